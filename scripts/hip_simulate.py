"""Rule hip_simulate: one twin record (Eq 18 or 19 through the Eq 1-2 plant) as Parquet."""

from dataclasses import asdict

from paramid import io, simulation
from paramid.hip import twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_simulate")
    settings = twin.TwinSettings.from_config({**cfg["twin"], "gravity": cfg["gravity"]})
    trajectory = simulation.Trajectory.from_config(cfg["spec"]["trajectory"])
    record = twin.simulate(
        trajectory,
        cfg["spec"]["duration_s"],
        settings,
        seed=cfg["twin"]["seed"],
        record=cfg["record"],
    )
    frame = record.frame()
    meta = io.provenance(cfg, smk.input, stage="hip_simulate", twin_settings=asdict(settings))
    io.write_parquet(frame, smk.output[0], units=simulation.RECORD_UNITS, meta=meta)
    log.info(
        "record %s: %d samples, max |torque| %.4f N m",
        cfg["record"],
        len(frame),
        frame.torque.abs().max(),
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
