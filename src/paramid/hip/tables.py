"""Paper tables from per-method fits: Table 3 (RMSE, time), Table 4 (parameters) and the
repeated-run statistics of §4.3.

Each of our rows stands beside the paper's printed value (``paper_*`` columns) so that a
reader sees reproduction and publication side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from paramid import stats
from paramid.hip.methods import display_name
from paramid.population import POPULATION_METHODS

TABLE3_COLUMNS = [
    "train_mean",
    "val_mean",
    "val_sd",
    "val_median",
    "val_q1",
    "val_q3",
    "time_ms_mean",
    "time_ms_sd",
]


def batched_timing(metas: Mapping[str, Mapping]) -> dict[str, list[float]]:
    """The per-run times of each method whose fit metadata (method -> metadata) holds them
    (``time_ms_per_run_repeats``: a population method's repeats of its batched call), for
    :func:`table3`'s ``timing``."""
    key = "time_ms_per_run_repeats"
    return {method: list(meta[key]) for method, meta in metas.items() if key in meta}


def table3(
    fits: Mapping[str, pd.DataFrame],
    paper: Mapping | None = None,
    timing: Mapping[str, Sequence[float]] | None = None,
) -> pd.DataFrame:
    """Table 3: train mean; validation mean, SD, median, Q1, Q3; time mean and SD (§4.2).

    SD and quartiles of a single deterministic run are NaN (the paper prints "–"); the
    ``paper_*`` columns are there only for a study with the paper's printed values.  Where
    ``timing`` gives a method's per-run times from repeats of its batched call, the time
    mean and SD come from those repeats instead of the fit rows.
    """
    rows = []
    for method, fit in fits.items():
        val = fit["val_rmse"]
        single = len(fit) == 1
        times = pd.Series((timing or {}).get(method, fit["time_ms"]), dtype=float)
        row = {
            "method": display_name(method),
            "train_mean": float(fit["train_rmse"].mean()),
            "val_mean": float(val.mean()),
            "val_sd": stats.sd(val),
            "val_median": float(val.median()),
            "val_q1": float("nan") if single else float(val.quantile(0.25)),
            "val_q3": float("nan") if single else float(val.quantile(0.75)),
            "time_ms_mean": float(times.mean()),
            "time_ms_sd": stats.sd(times),
        }
        if paper is not None:
            printed = paper.get(row["method"], {})
            row |= {f"paper_{c}": _num(printed.get(c)) for c in TABLE3_COLUMNS}
        rows.append(row)
    return pd.DataFrame(rows)


def median_run(fit: pd.DataFrame, upper: bool = False) -> pd.Series:
    """The run with the median validation RMSE (:func:`paramid.stats.median_position`, Table 4):
    of an even count the lower of the two middle runs, or the ``upper`` one."""
    return fit.iloc[stats.median_position(fit["val_rmse"], upper)]


def table4(
    fits: Mapping[str, pd.DataFrame],
    names: Sequence[str],
    reference: Mapping[str, float] | None = None,
    paper: Mapping | None = None,
) -> pd.DataFrame:
    """Table 4: reference parameters (the twin's truth or published values) and each method's
    median-validation run.

    LS is left out, as in the paper, because it equals BCLS whenever the bounds are inactive.
    Of an even count of runs the row is the lower of the two middle runs (the paper does not
    say which it prints); ``upper_*`` columns hold the other one (for the audit).
    ``paper_*`` columns only for a study with the paper's printed values.
    """
    rows: list[dict] = []
    if reference is not None:
        rows.append({"method": "Reference", **{n: float(reference.get(n, np.nan)) for n in names}})
    for method, fit in fits.items():
        if method == "ls":
            continue
        run, other = median_run(fit), median_run(fit, upper=True)
        rows.append(
            {"method": display_name(method)}
            | {n: float(run[n]) for n in names}
            | {f"upper_{n}": float(other[n]) for n in names}
        )
    if paper is not None:
        for row in rows:
            printed = paper.get(row["method"], {})
            row |= {f"paper_{n}": _num(printed.get(n)) for n in names}
    return pd.DataFrame(rows)


def _num(value: object) -> float:
    return float("nan") if value is None else float(value)


def comparisons(fits: Mapping[str, pd.DataFrame], seed_keys: Sequence[str]) -> pd.DataFrame:
    """Validation RMSE over seeds (§4.3): RLS-AGWO against RLS-GWO (the schedule's ablation)
    and every population method against BCLS, by :func:`paramid.stats.comparison_table`
    (Holm over the rows).  BCLS is deterministic: its one value is a constant, tested by
    one-sample tests (the note says so), and ``outlier_frac_2x_bcls`` is the share of runs
    above twice it.  Fits are by method key; the methods present decide the rows."""
    population = [m for m in POPULATION_METHODS if m in fits]
    groups: dict[str, np.ndarray | float] = {
        display_name(m): fits[m]["val_rmse"].to_numpy() for m in population
    }
    pairs = []
    if {"rls_agwo", "rls_gwo"} <= set(fits):
        pairs.append(("RLS-AGWO", "RLS-GWO"))
    if "bcls" in fits:
        bcls = float(fits["bcls"]["val_rmse"].iloc[0])
        groups["BCLS"] = bcls
        pairs += [(display_name(m), "BCLS") for m in population]
    table = stats.comparison_table(groups, pairs, seed_keys=seed_keys)
    if "bcls" in fits:
        table["outlier_frac_2x_bcls"] = [
            stats.outlier_fraction(groups[a], bcls) if b == "BCLS" else np.nan
            for a, b in zip(table["a"], table["b"], strict=True)
        ]
    return table
