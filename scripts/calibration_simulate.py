"""Rule calibration_simulate: the laser-tracker twin's data sets and truth (§2.1.1, §3.2.1)."""

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration import model, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_simulate")
    robot = cfg["robot"]
    table = kin.DHTable.from_degrees(**robot["dh"], convention=robot["convention"])
    mass = model.MassModel.from_config(cfg["mass_model"])
    data = twin.simulate(cfg["study"], cfg["twin"], table, mass=mass, repeats=cfg["runs"])
    meta = io.provenance(
        cfg, smk.input, stage="calibration_simulate", sources=data.truth["sources"]
    )
    io.write_parquet(data.frame, smk.output.data, units=twin.frame_units(), meta=meta)
    io.write_json(data.truth | {"provenance": meta}, smk.output.truth)
    summary = twin.selection_summary(data.frame, data.truth["n_datasets"])
    log.info(
        "%d data set(s) of %d candidates, %d selected (%d train); sources %s; "
        "tracker sigma %.4f-%.4f mm; true - nominal RMS %.3f mm",
        data.truth["n_datasets"],
        summary["candidates"],
        summary["selected"],
        data.truth["n_train"],
        data.truth["sources"] or "none",
        summary["sigma_min_mm"],
        summary["sigma_max_mm"],
        twin.nominal_error_rms_mm(data.frame),
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
