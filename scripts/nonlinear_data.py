"""Rule nonlinear_data: one twin variant (Eq 18/19 through Eq 1 + a friction law), its signal
chain (§4.1) and the RLS prior of the Eq 6 model (§3.1, Eq 7-10, 12)."""

from dataclasses import asdict

import pandas as pd

from paramid import io, signals, simulation
from paramid.friction import laws
from paramid.hip import nonlinear, pipeline, twin

RECORD_UNITS = {"time": "s", "angle": "rad", "torque": "N m", "angle_true": "rad"}
RECORD_UNITS |= {"velocity_true": "rad/s", "acceleration_true": "rad/s^2", "torque_true": "N m"}
SIGNAL_UNITS = {"time": "s", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2", "torque": "N m"}


def write_record(rec: simulation.Record, path: str, meta: dict) -> None:
    """The raw twin record (measured and true signals)."""
    raw = pd.DataFrame({column: getattr(rec, column) for column in RECORD_UNITS})
    io.write_parquet(raw, path, units=RECORD_UNITS, meta=meta)


def process(rec: simulation.Record, cfg: dict, path: str, meta: dict) -> signals.Processed:
    """The signal chain of §4.1 on one record, written as a signals frame."""
    out = pipeline.process(rec.time, rec.angle, rec.torque, cfg["signals"])
    frame = pd.DataFrame({column: getattr(out, column) for column in SIGNAL_UNITS})
    io.write_parquet(frame, path, units=SIGNAL_UNITS, meta=meta)
    return out


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_data")
    hip = laws.hip_model(cfg["truth"], cfg["gravity"])
    settings = twin.TwinSettings.from_config({**cfg["twin"], "gravity": cfg["gravity"]})
    rigid = [cfg["twin"]["x_true"][p] for p in laws.RIGID_PARAMS]
    truth = [float(v) for v in (*rigid, *hip.friction.vector(cfg["truth_values"]))]
    truth_by_name = dict(zip(hip.params, truth, strict=True))
    meta = io.provenance(
        cfg,
        (),
        stage="nonlinear_data",
        truth=truth_by_name,
        friction_law=hip.friction.equation,
        twin_settings=asdict(settings),
    )
    processed = {}
    for record in ("calibration", "validation"):
        spec = cfg["records"][record]
        rec = nonlinear.simulate_variant(
            hip,
            truth,
            simulation.Trajectory.from_config(spec["trajectory"]),
            spec["duration_s"],
            settings,
            cfg["twin"]["seed"],
            record,
        )
        write_record(rec, smk.output[f"records_{record}"], meta)
        processed[record] = process(rec, cfg, smk.output[record], meta)
        log.info("%s: %d samples kept", record, processed[record].time.size)

    prior = nonlinear.linear_prior(
        processed["calibration"], cfg["gravity"], cfg["rls"], cfg["agwo"]
    )
    io.write_json({**prior.to_json(), "truth": truth_by_name, "provenance": meta}, smk.output.prior)
    lower, upper = prior.rigid()
    log.info("truth %s; RLS box L=%s U=%s gamma=%.5f", truth, lower, upper, prior.gamma)


main(snakemake)  # noqa: F821
