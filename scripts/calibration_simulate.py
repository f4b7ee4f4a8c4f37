"""Rule simulate_calibration: the laser-tracker twin's data set and truth (§2.1.1, §3.2.1)."""

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration import twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "simulate_calibration")
    robot = cfg["robot"]
    table = kin.DHTable.from_degrees(**robot["dh"], convention=robot["convention"])
    data = twin.simulate(cfg["study"], cfg["twin"], table)
    meta = io.provenance(cfg, smk.input, stage="simulate_calibration", truth=data.truth)
    io.write_parquet(data.frame, smk.output.data, units=twin.frame_units(), meta=meta)
    io.write_json(data.truth, smk.output.truth)
    sel = data.frame[data.frame["selected"]]
    log.info(
        "%d candidates, %d selected (%d train), tracker sigma %.4f-%.4f mm",
        len(data.frame),
        len(sel),
        data.truth["n_train"],
        sel["sigma_mm"].min(),
        sel["sigma_mm"].max(),
    )


main(snakemake)  # noqa: F821
