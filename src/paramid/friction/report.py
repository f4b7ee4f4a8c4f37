"""Tables and the audit of the nonlinear-friction study (hip paper §3.3, §5.1, §5.3).

:func:`summary_table` gives medians per (true law, fitted law, method); :func:`stats_table`
compares RLS-AGWO with each comparator per cell (effect sizes, Holm over all cells);
:func:`verdicts` calls a comparison better, worse or no difference (:func:`judged_stats_table`
adds them as a column); :func:`audit_rows` states AGWO's record per true law and the conclusion
on the paper's open question: does population search pay off where linear least squares no
longer applies?
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import audit, stats
from paramid.friction.methods import COMPARATORS, DETERMINISTIC, DISPLAY, REFERENCE

Array = NDArray[np.float64]

SUMMARY_COLUMNS = [
    "true_model",
    "fitted_model",
    "method",
    "val_rmse_median",
    "param_error_median",
    "evals_to_1pct_median",
    "time_ms_median",
    "n_runs",
    "train_rmse_median",
    "val_rmse_q1",
    "val_rmse_q3",
    "rigid_error_median",
    "reach_1pct_fraction",
    "time_to_1pct_ms_median",
    "n_evals_median",
    "best_train_rmse_cell",
]


def summary_table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per (true model, fitted model, method): medians over runs (§4.2 style).

    ``time_ms_median`` is the wall time of a whole run; ``time_to_1pct_ms_median`` the time
    to come within 1 % of the cell's best training RMSE.
    """
    rows = []
    keys = ["true_model", "fitted_model", "method"]
    for (t, f, m), g in runs.groupby(keys, sort=False):
        q1, q3 = np.percentile(g.val_rmse, [25, 75])
        rows.append(
            {
                "true_model": t,
                "fitted_model": f,
                "method": m,
                "val_rmse_median": float(g.val_rmse.median()),
                "param_error_median": float(g.param_error.median()),
                "evals_to_1pct_median": float(np.median(g.evals_to_1pct)),
                "time_ms_median": float(g.time_ms.median()),
                "n_runs": len(g),
                "train_rmse_median": float(g.train_rmse.median()),
                "val_rmse_q1": float(q1),
                "val_rmse_q3": float(q3),
                "rigid_error_median": float(g.rigid_error.median()),
                "reach_1pct_fraction": float(np.mean(np.isfinite(g.evals_to_1pct))),
                "time_to_1pct_ms_median": float(np.median(g.time_to_1pct_ms)),
                "n_evals_median": float(g.n_evals.median()),
                "best_train_rmse_cell": float(g.best_train_rmse_cell.iloc[0]),
            }
        )
    return pd.DataFrame(rows, columns=SUMMARY_COLUMNS)


def stats_table(
    runs: pd.DataFrame,
    *,
    metrics: Sequence[str] = ("val_rmse", "train_rmse"),
    reference: str = REFERENCE,
    comparators: Sequence[str] = COMPARATORS,
    n_boot: int = 10_000,
    seed_keys: Sequence[str | int] = ("hip_nonlinear", "stats"),
) -> pd.DataFrame:
    """AGWO against each comparator in every cell via :func:`paramid.stats.comparison_table`.

    One Holm family per metric over all cells and comparators.  A deterministic method's
    single run is a constant (as BCLS in the hip study): one-sample t and Wilcoxon
    signed-rank tests against it (the note says so).
    """
    tables = []
    for metric in metrics:
        groups: dict[str, Array | float] = {}
        pairs, meta = [], []
        for (t, f), cell in runs.groupby(["true_model", "fitted_model"], sort=False):
            by = {m: g[metric].to_numpy(float) for m, g in cell.groupby("method", sort=False)}
            if reference not in by:
                continue
            n = by[reference].size
            for m, v in by.items():
                groups[f"{t}|{f}|{m}"] = float(v[0]) if v.size == 1 and n > 1 else v
            for m in comparators:
                if m in by:
                    pairs.append((f"{t}|{f}|{reference}", f"{t}|{f}|{m}"))
                    meta.append((t, f, m))
        if not pairs:
            continue
        table = stats.comparison_table(groups, pairs, n_boot=n_boot, seed_keys=(*seed_keys, metric))
        table.insert(0, "metric", metric)
        table.insert(1, "true_model", [t for t, _, _ in meta])
        table.insert(2, "fitted_model", [f for _, f, _ in meta])
        table["a"] = DISPLAY[reference]
        table["b"] = [DISPLAY.get(m, m) for _, _, m in meta]
        table.insert(3, "method_a", reference)
        table.insert(4, "method_b", [m for _, _, m in meta])
        tables.append(table)
    return pd.concat(tables, ignore_index=True) if tables else pd.DataFrame()


def verdicts(table: pd.DataFrame, *, alpha: float = 0.05, min_delta: float = 0.33) -> pd.Series:
    """Per row: ``"a better"``, ``"a worse"`` or ``"no difference"``.

    "Better" needs a lower median, Holm-adjusted rank-test p < ``alpha`` (Mann-Whitney, or
    Wilcoxon signed-rank against a deterministic comparator's constant) and Cliff's δ ≤
    −``min_delta`` (a medium effect by Romano et al. 2006's thresholds 0.147/0.33/0.474);
    symmetric for "worse".
    """
    p = table["holm_rank_p"].to_numpy(float)
    d = table["cliffs_delta"].to_numpy(float)
    diff = table["median_diff"].to_numpy(float)
    sig = np.nan_to_num(p, nan=1.0) < alpha
    better = sig & (d <= -min_delta) & (diff < 0)
    worse = sig & (d >= min_delta) & (diff > 0)
    return pd.Series(
        np.where(better, "a better", np.where(worse, "a worse", "no difference")),
        index=table.index,
    )


def judged_stats_table(
    runs: pd.DataFrame,
    *,
    n_boot: int,
    seed_keys: Sequence[str | int],
    alpha: float,
    min_delta: float,
) -> pd.DataFrame:
    """stats.csv: :func:`stats_table` of ``runs`` with each row's :func:`verdicts` in a
    ``verdict`` column."""
    table = stats_table(runs, n_boot=n_boot, seed_keys=seed_keys)
    table["verdict"] = verdicts(table, alpha=alpha, min_delta=min_delta)
    return table


VERDICT_RULE = f"rule of {verdicts.__module__}.{verdicts.__qualname__}"
#: Methods whose cost the conclusion quotes.
COST_METHODS = ("rls_agwo", "rls_gwo", "rls_ga", "least_squares", "varpro")


def _cell_cost(summary: pd.DataFrame, true_model: str, fitted: str, method: str) -> str:
    """Median evaluations and validation RMSE of one method on one cell (times: the audit's
    machine-dependent row, :func:`_time_row`)."""
    s = summary[
        (summary.true_model == true_model)
        & (summary.fitted_model == fitted)
        & (summary.method == method)
    ]
    if s.empty:
        return f"{DISPLAY.get(method, method)} n/a"
    s = s.iloc[0]
    return (
        f"{DISPLAY.get(method, method)} {s.n_evals_median:.0f} evals, "
        f"val {s.val_rmse_median:.4f} N m"
    )


def _agwo_vs_gwo(matched: pd.DataFrame) -> str:
    """AGWO against GWO on the matched model (fitted law = true law)."""
    gwo = matched[matched.method_b == "rls_gwo"]
    if gwo.empty:
        return "AGWO vs GWO: n/a"
    return (
        f"AGWO vs GWO on the matched model: median diff {gwo.median_diff.iloc[0]:+.4g} N m, "
        f"Cliff's delta {gwo.cliffs_delta.iloc[0]:+.2f}, Hedges g {gwo.hedges_g.iloc[0]:+.2f}, "
        f"p_holm {gwo.holm_rank_p.iloc[0]:.2g}"
    )


def _truth_row(
    true_model: str, g: pd.DataFrame, summary: pd.DataFrame, tolerance: str, caveat: str
) -> dict:
    """Audit row ``agwo_<true law>``: AGWO's significant wins and losses on one twin variant
    (``caveat``: :func:`_caveat`)."""
    wins = g[g.verdict == "a better"]
    losses = g[g.verdict == "a worse"]
    won = (
        "; ".join(
            f"{r.fitted_model}: vs {r.b} (delta {r.cliffs_delta:+.2f}, p_holm {r.holm_rank_p:.2g})"
            for r in wins.itertuples()
        )
        or "none"
    )
    gwo_text = _agwo_vs_gwo(g[g.fitted_model == true_model])
    reach = _agwo_reach(summary, true_model)
    cost = "; ".join(
        _cell_cost(summary, true_model, true_model, m)
        for m in ("rls_agwo", "varpro", "least_squares")
    )
    return audit.row(
        f"agwo_{true_model}",
        "paper §5.1, §5.3 (open question); stats.csv rows of this true model",
        "population search may pay off for nonlinear friction (untested)",
        (
            f"AGWO significantly better in: {won}; significantly worse in "
            f"{len(losses)} of {len(g)} comparisons. {gwo_text}. Cost on the matched "
            f"model: {cost}"
        ),
        tolerance,
        "reproduced" if wins.method_b.isin(DETERMINISTIC).any() else "differs",
        (
            f"AGWO significantly better in {len(wins)}, worse in {len(losses)} of {len(g)} "
            f"comparisons; validation RMSE over {int(g.n_a.max())} seeds, {VERDICT_RULE} "
            f"(median lower, Holm rank test, Cliff's delta); {reach}{caveat}"
        ),
        unit="text",
        reading="reading",  # the paper's conjecture (§5.1, §5.3), in words only, restated
    )


def _agwo_reach(summary: pd.DataFrame, true_model: str) -> str:
    """How far AGWO's median run trains from the best training RMSE any method reached on the
    matched cell (fitted law = true law), and how many of its runs come within 1 % of it:
    whether its runs stop short of the optimum (a clause ending in "; "), or ""."""
    s = summary[
        (summary.true_model == true_model)
        & (summary.fitted_model == true_model)
        & (summary.method == "rls_agwo")
    ]
    if s.empty:
        return ""
    s = s.iloc[0]
    above = s.train_rmse_median / s.best_train_rmse_cell - 1
    return (
        f"on the matched model AGWO's median run trains {100 * above:.0f} % above the best "
        f"training RMSE of the cell ({s.train_rmse_median:.4f} against "
        f"{s.best_train_rmse_cell:.4f} N m) and {100 * s.reach_1pct_fraction:.0f} % of its runs "
        "come within 1 % of it: "
        + (
            "its runs stop short of the cell's optimum; "
            if s.reach_1pct_fraction < 0.5
            else "most of its runs reach it; "
        )
    )


def _wins_by_comparator(nl: pd.DataFrame) -> tuple[list[str], dict[str, list[str]]]:
    """Per comparator on the nonlinear cells: a text line, and the cells AGWO wins."""
    lines, wins = [], {}
    for m in COMPARATORS:
        sub = nl[nl.method_b == m]
        if sub.empty:
            continue
        w = sub[sub.verdict == "a better"]
        if len(w):
            wins[m] = [f"{r.true_model}/{r.fitted_model}" for r in w.itertuples()]
        lines.append(
            f"vs {DISPLAY[m]}: better in {len(w)}/{len(sub)} nonlinear cells"
            + (f" ({', '.join(wins[m])})" if len(w) else "")
            + f", worse in {(sub.verdict == 'a worse').sum()}"
        )
    return lines, wins


def _cost_per_run(nl_summary: pd.DataFrame) -> str:
    """Median cost per run over the nonlinear cells of the methods in :data:`COST_METHODS`."""

    def spent(m: str) -> str:
        s = nl_summary[nl_summary.method == m]
        if s.empty:
            return f"{DISPLAY[m]} n/a"
        return (
            f"{DISPLAY[m]} {s.n_evals_median.median():.0f} evals, within 1 % of the best in "
            f"{100 * s.reach_1pct_fraction.mean():.0f} % of runs"
        )

    return "cost per run (median over nonlinear cells): " + "; ".join(
        spent(m) for m in COST_METHODS
    )


def _time_row(nl_summary: pd.DataFrame) -> dict:
    """The wall time per run of the methods in :data:`COST_METHODS` over the nonlinear cells:
    machine-dependent, so kept out of the judged rows (a rebuild reproduces those exactly)."""
    spent = [
        f"{DISPLAY[m]} {nl_summary[nl_summary.method == m].time_ms_median.median():.3g} ms"
        for m in COST_METHODS
        if (nl_summary.method == m).any()
    ]
    return audit.row(
        "cost per run in wall time (median over nonlinear cells)",
        "not in the paper",
        float("nan"),
        "; ".join(spent),
        "not judged (wall-clock time)",
        audit.MACHINE_DEPENDENT,
        "wall time moves with the machine's load; the evaluations counted in the other rows do not",
        unit="ms",
    )


#: What every verdict here rests on
ONE_RECORD = (
    "each true law is one twin noise record (the seeds vary the optimisers only): the "
    "significance is over seeds on that record, not over records"
)
#: ... and, on a twin that sets the hip twin's old fitted settings, what its noise is
FITTED_NOISE = (
    "the twin's torque noise was fitted to the hip paper's Table 3 LS row "
    "(the hip twin's CALIBRATED settings)"
)


def _caveat(calibrated_noise: bool) -> str:
    """The data caveat of every row (:data:`ONE_RECORD`, and :data:`FITTED_NOISE` on the
    calibrated twin)."""
    return ONE_RECORD + (f"; {FITTED_NOISE}" if calibrated_noise else "")


def _conclusion_verdict(
    nl: pd.DataFrame, wins: dict[str, list[str]], lost: int, compared: int
) -> tuple[str, str]:
    """The paper's conjecture (§5.1, §5.3): population search pays off where linear least
    squares no longer applies -- i.e. AGWO beats the deterministic nonlinear baselines.

    Returns the verdict (``reproduced`` or ``differs``) and the answer behind it."""
    n_cells = len(nl[["true_model", "fitted_model"]].drop_duplicates())

    def cells(m: str) -> str:
        tags = [
            f"{c}{' misspecified' if c.split('/')[0] != c.split('/')[1] else ''}" for c in wins[m]
        ]
        return f"{len(wins[m])}/{n_cells} ({', '.join(tags)})"

    beaten = [f"{DISPLAY[m]} in {cells(m)}" for m in wins if m != "pso"]
    if "pso" in wins:
        box = (
            " (an RLS-box effect, §5.1: AGWO never beats RLS-PSO, which searches the same box)"
            if "rls_pso" not in wins and (nl.method_b == "rls_pso").any()
            else ""
        )
        beaten.append(f"standard PSO in {len(wins['pso'])}/{n_cells}{box}")
    never = [DISPLAY[m] for m in COMPARATORS if m not in wins and (nl.method_b == m).any()]
    term = "reproduced" if any(m in wins for m in DETERMINISTIC) else "differs"
    return term, (
        ("AGWO beats " + "; ".join(beaten) if beaten else "AGWO beats no comparator")
        + (f"; never {', '.join(never)}" if never else "")
        + f"; loses to the deterministic baselines in {lost}/{compared}"
        + " nonlinear comparisons"
    )


def _conclusion_row(
    val: pd.DataFrame,
    summary: pd.DataFrame,
    nonlinear_models: Sequence[str],
    tolerance: str,
    caveat: str,
) -> dict:
    """Audit row ``conclusion``: AGWO against each comparator over the nonlinear cells
    (``caveat``: :func:`_caveat`)."""
    nl = val[val.fitted_model.isin(nonlinear_models)]
    lines, wins = _wins_by_comparator(nl)
    cost_text = _cost_per_run(summary[summary.fitted_model.isin(nonlinear_models)])
    deterministic = nl[nl.method_b.isin(DETERMINISTIC)]
    lost = int((deterministic.verdict == "a worse").sum())
    n_runs = int(val.n_a.max()) if len(val) else 0
    verdict, answer = _conclusion_verdict(nl, wins, lost, len(deterministic))
    return audit.row(
        "conclusion",
        "paper §3.3, §5.1, §5.3; stats.csv (val_rmse, Holm over all cells)",
        (
            "AGWO kept as a bridge to nonlinear friction laws, where linear least squares "
            "no longer applies (not tested in the paper)"
        ),
        "; ".join(lines) + "; " + cost_text,
        tolerance,
        verdict,
        (
            f"{answer}; validation RMSE over {n_runs} seeds; nonlinear case = fitted law "
            f"nonlinear in its parameters ({', '.join(nonlinear_models)}); "
            f"{lost} of {len(deterministic)} AGWO-vs-deterministic comparisons there are "
            f"significant AGWO losses; {VERDICT_RULE}; {caveat}"
        ),
        unit="text",
        reading="reading",  # the paper's conjecture (§5.1, §5.3), in words only, restated
    )


def audit_rows(
    stats_tab: pd.DataFrame,
    summary: pd.DataFrame,
    *,
    nonlinear_models: Sequence[str],
    alpha: float = 0.05,
    min_delta: float = 0.33,
    calibrated_noise: bool = False,
) -> pd.DataFrame:
    """The audit: one row per true model (AGWO's record there) and the ``conclusion`` row;
    ``calibrated_noise``: the twin keeps the hip twin's fitted torque noise (said in each row).

    Decided on validation RMSE (the paper's figure of merit, Eq 21) with the rule of
    :func:`verdicts`; "nonlinear case" = a cell whose fitted friction law is nonlinear in its
    parameters (``nonlinear_models``), the only place population search could pay off (§5.1).
    The cost is the median evaluations and wall time per run of AGWO, GWO, GA, LSQ-TRF and
    VarPro on the nonlinear cells.  Verdicts use :mod:`paramid.audit`'s terms against the
    paper's conjecture that population search pays off where linear least squares no longer
    applies: ``reproduced`` if AGWO beats a deterministic baseline, else ``differs``; the
    ``reason`` column gives the answer (wins and losses per comparator) and the rule.
    """
    val = stats_tab[stats_tab.metric == "val_rmse"].copy()
    val["verdict"] = verdicts(val, alpha=alpha, min_delta=min_delta)
    tolerance = f"Holm-adjusted rank-test p < {alpha} and |Cliff's delta| >= {min_delta}"
    caveat = _caveat(calibrated_noise)
    rows = [
        _truth_row(t, g, summary, tolerance, caveat)
        for t, g in val.groupby("true_model", sort=False)
    ]
    rows.append(_conclusion_row(val, summary, nonlinear_models, tolerance, caveat))
    rows.append(_time_row(summary[summary.fitted_model.isin(nonlinear_models)]))
    return pd.DataFrame(rows, columns=audit.COLUMNS)
