"""Rule hip_stats: validation-RMSE comparisons over seeds (Welch, Mann-Whitney, Holm, effect
sizes)."""

from pathlib import Path

import numpy as np

from paramid import io, stats
from paramid.hip import methods

STOCHASTIC = ["pso", "rls_pso", "rls_ga", "rls_gwo", "rls_agwo"]


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_stats")
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    stochastic = [m for m in STOCHASTIC if m in fits]
    n_runs = max(len(fits[m]) for m in stochastic)
    groups = {methods.display_name(m): fits[m]["val_rmse"].to_numpy() for m in stochastic}
    pairs = []
    if {"rls_agwo", "rls_gwo"} <= set(fits):
        pairs.append(("RLS-AGWO", "RLS-GWO"))
    if "bcls" in fits:
        # BCLS is deterministic: its single value stands as a constant sample, so the
        # Welch test reduces to a one-sample t-test against it (the note column says so).
        bcls = float(fits["bcls"]["val_rmse"].iloc[0])
        groups["BCLS"] = np.full(n_runs, bcls)
        pairs += [(methods.display_name(m), "BCLS") for m in stochastic]
    table = stats.comparison_table(groups, pairs, seed_keys=(cfg["study"], "stats"))
    if "bcls" in fits:
        table["outlier_frac_2x_bcls"] = [
            stats.outlier_fraction(groups[a], bcls) if b == "BCLS" else np.nan
            for a, b in zip(table["a"], table["b"], strict=True)
        ]
    io.write_csv(table, smk.output.csv)
    caption = (
        f"Statistics ({cfg['study']}): validation RMSE, a vs b over seeds; Holm over the family "
        "of rows; bootstrap 95 % CI of median(a) - median(b)"
    )
    io.write_markdown(table, smk.output.md, digits=4, caption=caption)
    log.info("%d comparisons", len(table))


main(snakemake)  # noqa: F821
