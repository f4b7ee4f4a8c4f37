"""Rule simulate: one twin record (Eq 18 or 19 through the Eq 1-2 plant) as Parquet."""

from dataclasses import asdict

import pandas as pd

from paramid import io, simulation
from paramid.hip import twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "simulate")
    settings = twin.TwinSettings.from_config({**cfg["twin"], "gravity": cfg["gravity"]})
    trajectory = simulation.Trajectory.from_config(cfg["spec"]["trajectory"])
    record = twin.simulate(
        trajectory,
        cfg["spec"]["duration_s"],
        settings,
        seed=cfg["twin"]["seed"],
        record=cfg["record"],
    )
    frame = pd.DataFrame(
        {
            "time": record.time,
            "angle": record.angle,
            "torque": record.torque,
            "angle_true": record.angle_true,
            "velocity_true": record.velocity_true,
            "acceleration_true": record.acceleration_true,
            "torque_true": record.torque_true,
        }
    )
    units = {
        "time": "s",
        "angle": "rad",
        "torque": "N m",
        "angle_true": "rad",
        "velocity_true": "rad/s",
        "acceleration_true": "rad/s^2",
        "torque_true": "N m",
    }
    meta = io.provenance(cfg, smk.input, stage="simulate", twin_settings=asdict(settings))
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info(
        "record %s: %d samples, max |torque| %.4f N m",
        cfg["record"],
        len(frame),
        frame.torque.abs().max(),
    )


main(snakemake)  # noqa: F821
