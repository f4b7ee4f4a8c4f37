"""Rule nonlinear_data: one twin variant (Eq 18/19 through Eq 1 + a friction law), its signal
chain (§4.1) and the RLS prior of the Eq 6 model (§3.1, Eq 7-10, 12)."""

from dataclasses import asdict

import pandas as pd

from paramid import io
from paramid.friction import laws as friction
from paramid.friction import nonlinear
from paramid.hip import signals, twin

HIP_PARAMETERS = ["Mxt", "Myt", "Jt", "fc", "fv"]  # TwinSettings order; fc, fv unused here


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_data")
    hip = friction.hip_model(cfg["truth"], cfg["gravity"])
    settings = twin.TwinSettings.from_config(
        {**cfg["twin"], "gravity": cfg["gravity"]}, HIP_PARAMETERS
    )
    rigid = [cfg["twin"]["x_true"][p] for p in friction.RIGID_PARAMS]
    truth = [float(v) for v in (*rigid, *hip.friction.vector(cfg["truth_values"]))]
    meta = io.provenance(
        cfg,
        (),
        stage="nonlinear_data",
        truth=dict(zip(hip.params, truth, strict=True)),
        friction_law=hip.friction.equation,
        twin_settings=asdict(settings),
    )
    s = cfg["signals"]
    processed = {}
    for record in ("calibration", "validation"):
        spec = cfg["records"][record]
        rec = nonlinear.simulate_variant(
            hip,
            truth,
            twin.Trajectory.from_config(spec["trajectory"]),
            spec["duration_s"],
            settings,
            cfg["twin"]["seed"],
            record,
        )
        raw = pd.DataFrame(
            {
                "time": rec.time,
                "angle": rec.angle,
                "torque": rec.torque,
                "angle_true": rec.angle_true,
                "velocity_true": rec.velocity_true,
                "acceleration_true": rec.acceleration_true,
                "torque_true": rec.torque_true,
            }
        )
        units = {"time": "s", "angle": "rad", "torque": "N m", "angle_true": "rad"}
        units |= {"velocity_true": "rad/s", "acceleration_true": "rad/s^2", "torque_true": "N m"}
        io.write_parquet(raw, smk.output[f"records_{record}"], units=units, meta=meta)
        out = signals.process(
            rec.time,
            rec.angle,
            rec.torque,
            cutoff_hz=s["cutoff_hz"],
            order=s["filter_order"],
            trim_s=s["trim_s"],
        )
        processed[record] = out
        frame = pd.DataFrame(
            {"time": out.time, "q": out.q, "qd": out.qd, "qdd": out.qdd, "torque": out.torque}
        )
        units = {"time": "s", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2", "torque": "N m"}
        io.write_parquet(frame, smk.output[record], units=units, meta=meta)
        log.info("%s: %d samples kept", record, len(frame))

    prior = nonlinear.linear_prior(
        processed["calibration"], cfg["gravity"], cfg["rls"], cfg["agwo"]
    )
    lower, upper = prior.rigid()
    io.write_json(
        {
            "params": prior.names,
            "lower": prior.lower.tolist(),
            "upper": prior.upper.tolist(),
            "rls_mean": prior.rls_mean.tolist(),
            "rigid_params": list(friction.RIGID_PARAMS),
            "rigid_lower": lower.tolist(),
            "rigid_upper": upper.tolist(),
            "gamma": prior.gamma,
            "mu": prior.mu,
            "notes": prior.notes,
            "truth": dict(zip(hip.params, truth, strict=True)),
            "provenance": meta,
        },
        smk.output.prior,
    )
    log.info("truth %s; RLS box L=%s U=%s gamma=%.5f", truth, lower, upper, prior.gamma)


main(snakemake)  # noqa: F821
