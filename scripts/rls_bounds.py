"""Rule rls_bounds: RLS trajectory (Eq 7-9), the box [L, U] (§3.1), gamma (Eq 10), mu (Eq 12)."""

import numpy as np
import pandas as pd

from paramid import io
from paramid.hip import model, rls, signals


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "rls_bounds")
    r, keys = cfg["rls"], cfg["regressor"]
    names = model.parameter_names(keys)
    H, y, frame = io.read_regression(smk.input[0], keys)
    fs = signals.sample_rate(frame["time"].to_numpy())

    trajectory = rls.rls_trajectory(H, y, r["forgetting"], r["p0"])
    burn_in = int(round(r["burn_in_s"] * fs))
    box = rls.rls_bounds(trajectory, burn_in, r["margin"], names, r["mechanical"])
    retained_mean = trajectory[burn_in:].mean(axis=0)
    if "sign_qd" in keys:
        i = keys.index("sign_qd")
        gamma = rls.nfsi_gamma(H[:, i], retained_mean[i], y, r["nfsi_eps"])
    else:
        gamma = 0.0
        box.notes.append("no sgn(qd) column: gamma (Eq 10) set to 0")
    mu = rls.agwo_exponent(gamma, cfg["agwo"]["mu_base"], cfg["agwo"]["kappa"])

    meta = io.provenance(cfg, smk.input, stage="rls_bounds")
    traj = pd.DataFrame(trajectory, columns=names)
    traj.insert(0, "time", frame["time"].to_numpy())
    units = {"time": "s", **model.parameter_units(keys)}
    io.write_parquet(traj, smk.output.trajectory, units=units, meta=meta)
    summary = {
        "params": names,
        "units": [units[n] for n in names],
        "lower": box.lower.tolist(),
        "upper": box.upper.tolist(),
        "rls_min": box.rls_min.tolist(),
        "rls_max": box.rls_max.tolist(),
        "rls_mean": retained_mean.tolist(),
        "rls_final": trajectory[-1].tolist(),
        "burn_in_samples": burn_in,
        "gamma": gamma,
        "mu": mu,
        "notes": box.notes,
        "provenance": meta,
    }
    io.write_json(summary, smk.output.summary)
    log.info(
        "bounds L=%s U=%s gamma=%.5f mu=%.5f",
        np.round(box.lower, 4),
        np.round(box.upper, 4),
        gamma,
        mu,
    )


main(snakemake)  # noqa: F821
