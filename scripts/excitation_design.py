"""Rule excitation_design: an optimal Fourier excitation (Eq 8-10 of the excitation paper).

kind "hip": the 1-DOF model of the base study (Eq 6), limits = what the base study's
calibration reference (Eq 18) reaches; kind "chain": the planar chain's base regressor.
Writes design.json (coefficients, criterion, active limits, starts) and one period of
q, qd, qdd on the twin's sample grid as trajectory.parquet.
"""

import numpy as np
import pandas as pd

from paramid import io, simulation
from paramid.excitation import chain, design, fourier, hip


def _hip(cfg):
    base = cfg["base"]
    spec = base["records"][cfg["design"]["limits_from_record"]]
    reference = simulation.Trajectory.from_config(spec["trajectory"])
    # the extremes Eq 18 reaches over its record, on a 0.1 ms grid
    dense = np.arange(int(round(spec["duration_s"] * 1e4))) / 1e4
    limits = fourier.reached_limits(reference, dense)
    fn = hip.hip_regressor(base["regressor"], base["gravity"])
    return (
        fn,
        limits,
        {
            "record": cfg["design"]["limits_from_record"],
            "trajectory": reference,
            "duration_s": spec["duration_s"],
        },
    )


def _chain(cfg):
    d = cfg["design"]
    robot = chain.PlanarChain.from_config(d, d["gravity"])
    base = chain.base_parameters(robot.lengths, robot.gravity, samples=d["base_samples"])
    lim = d["limits"]
    limits = fourier.JointLimits.from_degrees(
        lim["q_min_deg"], lim["q_max_deg"], lim["qd_max_deg_s"], lim["qdd_max_deg_s2"]
    )
    return chain.design_regressor(robot, base), limits, None


def main(smk) -> None:
    cfg = smk.params.cfg
    d = cfg["design"]
    log = io.start_log(smk.log[0], "excitation_design")
    fn, limits, reference = (_hip if d["kind"] == "hip" else _chain)(cfg)
    omega_f = 2 * np.pi / d["period_s"]
    result = design.design(
        fn,
        limits,
        order=d["order"],
        omega_f=omega_f,
        grid_points=d["grid_points"],
        starts=d["starts"],
        criterion=d["criterion"],
        margin=d["margin"],
        sign_smoothing=d["sign_smoothing"],
        maxiter=d["maxiter"],
        fine_factor=d["fine_factor"],
        seed_keys=("excitation", smk.wildcards.study),
    )
    meta = io.provenance(cfg, smk.input, stage="excitation_design")
    out = result.to_dict()
    if reference is not None:  # the paper's trajectory under the same limits, same grid
        t = fourier.grid(d["period_s"], d["grid_points"])
        q, qd, qdd = reference["trajectory"].evaluate(t)
        H = fn(q, qd, qdd, 0.0)
        out["reference"] = {
            "name": f"paper ({reference['record']} record, Eq 18)",
            "cond": design.criterion_value(H, "cond"),
            "dopt": design.criterion_value(H, "dopt"),
            "limits_reached": limits.to_dict(),
        }
    out["provenance"] = meta
    io.write_json(out, smk.output.json)

    fs = d["sample_rate_hz"]
    t = np.arange(int(round(d["period_s"] * fs))) / fs
    q, qd, qdd = result.trajectory.evaluate_joints(t)
    frame = pd.DataFrame({"time": t})
    units = {"time": "s"}
    for j in range(q.shape[1]):
        suffix = "" if q.shape[1] == 1 else f"_{j + 1}"
        frame[f"q{suffix}"], frame[f"qd{suffix}"], frame[f"qdd{suffix}"] = (
            q[:, j],
            qd[:, j],
            qdd[:, j],
        )
        units |= {f"q{suffix}": "rad", f"qd{suffix}": "rad/s", f"qdd{suffix}": "rad/s^2"}
    io.write_parquet(frame, smk.output.trajectory, units=units, meta=meta)
    log.info(
        "%s: %s = %.6g (cond %.4f), shrink %.4f, active %s; starts %s",
        smk.wildcards.study,
        d["criterion"],
        result.value,
        result.cond,
        result.shrink,
        result.active_constraints,
        [round(s.value, 4) for s in result.starts],
    )
    if reference is not None:
        log.info("reference %s: cond %.4f", out["reference"]["name"], out["reference"]["cond"])


main(snakemake)  # noqa: F821
