"""Rule nonlinear_data: one twin variant (Eq 18/19 through Eq 1 + a friction law), its signal
chain (§4.1) and the RLS prior of the Eq 6 model (§3.1, Eq 7-10, 12)."""

from dataclasses import asdict

from paramid import io, signals, simulation
from paramid.friction import laws
from paramid.hip import nonlinear, pipeline, twin


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
        io.write_parquet(
            rec.frame(), smk.output[f"records_{record}"], units=simulation.RECORD_UNITS, meta=meta
        )
        processed[record] = pipeline.process(rec.time, rec.angle, rec.torque, cfg["signals"])
        io.write_parquet(
            processed[record].frame(), smk.output[record], units=signals.PROCESSED_UNITS, meta=meta
        )
        log.info("%s: %d samples kept", record, processed[record].time.size)

    prior = nonlinear.linear_prior(
        processed["calibration"], cfg["gravity"], cfg["rls"], cfg["agwo"]
    )
    io.write_json({**prior.to_json(), "truth": truth_by_name, "provenance": meta}, smk.output.prior)
    lower, upper = prior.rigid()
    log.info("truth %s; RLS box L=%s U=%s gamma=%.5f", truth, lower, upper, prior.gamma)


main(snakemake)  # noqa: F821
