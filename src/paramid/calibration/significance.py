"""Table 8 of the KR210 study: M5 against BC, M1-M4 and the hybrids on validation RMSE,
paired over repeats, beside the paper's printed row and the p-values its printed numbers imply.

Every repeat ``r`` has its own data (twin draw, tracker noise, split) and every method runs on
repeat ``r``'s data, so two methods' results on one repeat are paired: fit frames are matched
by ``run`` and compared with the paired t-test and the Wilcoxon signed-rank test, Holm-adjusted
over the comparisons (:func:`paramid.stats.comparison_table` with ``paired=True``).  The
paper's independent-samples Student t (§3.2.2, Table 8) is kept beside them.  Differences are
``other - M5`` throughout (the paper's sign: positive = M5 has the lower RMSE).
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats as sps

from paramid.audit import ALPHA
from paramid.calibration.identify import LABELS
from paramid.calibration.paper import PrintedValues
from paramid.calibration.report import TABLE7, TABLE7_NAMES
from paramid.seeding import Key
from paramid.stats import comparison_table

__all__ = [
    "N_PAPER",
    "TABLE8_COLUMNS",
    "paper_rows",
    "paired_values",
    "paired_comparisons",
    "paper_implied",
    "table8",
]

#: Repeats behind every printed mean ± SD (§3.2.1; Table 8: "executed 10 times").
N_PAPER = 10
#: A printed mean difference agrees with the difference of two printed means when they are
#: within the rounding of three 4-decimal numbers (3 x 0.5e-4).
DIFF_ROUNDING = 1.5e-4
#: Half a unit in the last printed digit of Table 6-7 means and SDs (4 decimals).
HALF_UNIT = 0.5e-4
#: comparison_table(paired=True) column -> Table 8 column (its t_*/rank_* hold the paired
#: t-test and the Wilcoxon signed-rank test).
_PAIRED_NAMES = {
    "t_stat": "paired_t",
    "t_p": "paired_p",
    "holm_t_p": "holm_p_paired_t",
    "rank_stat": "wilcoxon_w",
    "rank_p": "wilcoxon_p",
    "holm_rank_p": "holm_p_wilcoxon",
    "hedges_g": "hedges_gz",
    "median_diff": "median_diff_mm",
    "boot_ci_low": "boot_ci_low_mm",
    "boot_ci_high": "boot_ci_high_mm",
}

#: Columns of :func:`table8`, in order.
TABLE8_COLUMNS: list[str] = [
    *("comparison", "identifier", "n_runs", "mean_diff_mm", "median_diff_mm", "median_diff_pct"),
    *("boot_ci_low_mm", "boot_ci_high_mm", "paired_t", "paired_p", "holm_p_paired_t"),
    *("wilcoxon_w", "wilcoxon_p", "holm_p_wilcoxon", "significant", "hedges_gz", "cliffs_delta"),
    *("student_t", "student_p", "paper_mean_diff_mm", "paper_diff_of_means_mm"),
    *("paper_diff_consistent", "paper_diff_check", "paper_p", "paper_student_p"),
    *("paper_welch_p", "paper_p_consistent", "paper_p_check", "note"),
]


def paper_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the paper's 24-parameter DH model (``model == "paper"``) when the frame has
    a ``model`` column, else the whole frame."""
    return frame[frame["model"] == "paper"] if "model" in frame.columns else frame


def paired_values(
    fits: Mapping[str, pd.DataFrame], identifiers: Sequence[str], column: str
) -> pd.DataFrame:
    """``column`` per run (rows, sorted by run) and identifier (columns), matched by ``run``.

    Raises :class:`ValueError` when a frame repeats a run or when the identifiers do not all
    have the same runs (a missing run would silently break the pairing).
    """
    series = {}
    for ident in identifiers:
        frame = paper_rows(fits[ident])
        repeated = sorted(frame.loc[frame["run"].duplicated(), "run"].unique().tolist())
        if repeated:
            raise ValueError(f"{ident}: run(s) {repeated} appear more than once")
        series[ident] = frame.set_index("run")[column]
    runs = sorted(set().union(*(s.index for s in series.values())))
    missing = {i: sorted(set(runs) - set(s.index)) for i, s in series.items()}
    missing = {i: m for i, m in missing.items() if m}
    if missing:
        raise ValueError(
            f"paired comparison needs every run of every method; missing runs: {missing}"
        )
    return pd.DataFrame(series).loc[runs]


def paired_comparisons(
    fits: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    column: str,
    *,
    names: Mapping[str, str],
    n_boot: int = 10_000,
    seed_keys: Sequence[Key],
) -> pd.DataFrame:
    """Paired comparisons ``a - b`` of ``column`` for identifier pairs ``(a, b)``, matched by run.

    :func:`paramid.stats.comparison_table` (``paired=True``: paired t and Wilcoxon signed-rank,
    Holm over ``pairs``, paired Hedges g_z, paired bootstrap of the median difference) with
    the columns renamed after the tests they hold (see ``TABLE8_COLUMNS``), plus ``n_runs``,
    ``mean_diff`` (mean of the paired differences) and ``significant`` (both Holm-adjusted
    p-values below ``ALPHA``).
    """
    identifiers = list(dict.fromkeys(i for pair in pairs for i in pair))
    values = paired_values(fits, identifiers, column)
    groups = {names[i]: values[i].to_numpy(np.float64) for i in identifiers}
    table = comparison_table(
        groups,
        [(names[a], names[b]) for a, b in pairs],
        paired=True,
        n_boot=n_boot,
        seed_keys=seed_keys,
    ).rename(columns=_PAIRED_NAMES)
    table["n_runs"] = len(values)
    table["mean_diff"] = [float((values[a] - values[b]).mean()) for a, b in pairs]
    table["significant"] = (table["holm_p_paired_t"] < ALPHA) & (table["holm_p_wilcoxon"] < ALPHA)
    return table


def _t_p(d: float, sd_a: float, sd_b: float, n: int, equal_var: bool) -> float:
    """Two-sided p of the two-sample t-test from summary statistics (scipy)."""
    result = sps.ttest_ind_from_stats(d, sd_a, n, 0.0, sd_b, n, equal_var=equal_var)
    return float(result.pvalue)


def _p_range(d: float, sd_a: float, sd_b: float, n: int) -> tuple[float, float]:
    """Smallest and largest Student / Welch p over the rounding of the printed numbers, at the
    corners of the rounding box: |t| falls as |d| shrinks and as either SD grows (exact bounds
    for Student; Welch's degrees of freedom move too, slightly)."""
    low_t = (max(abs(d) - 2 * HALF_UNIT, 0.0), sd_a + HALF_UNIT, sd_b + HALF_UNIT)
    high_t = (abs(d) + 2 * HALF_UNIT, max(sd_a - HALF_UNIT, 0.0), max(sd_b - HALF_UNIT, 0.0))
    ps = [_t_p(*corner, n, equal) for corner in (low_t, high_t) for equal in (True, False)]
    return min(ps), max(ps)


def _p_matches(text: str, low: float, high: float) -> bool:
    """Whether a printed p (``"<0.001"`` or ``"0.003"``) is attainable by some p in [low, high]
    (a printed value stands for the interval it rounds from)."""
    if text.startswith("<"):
        return low < float(text[1:])
    value = float(text)
    half = 0.5 * 10.0 ** -len(text.split(".")[1])
    return low < value + half and high >= value - half


def paper_implied(identifier: str, printed: PrintedValues, n: int = N_PAPER) -> dict[str, Any]:
    """Table 8's printed row for ``identifier`` against the paper's own printed means and SDs
    (``printed``).

    From the printed RMSE mean ± SD (Table 7; the hybrids' means from §3.2.2 (3), which prints
    no SD) of the method and of M5 over ``n`` repeats: the difference of the printed means
    (``other - M5``), the Student (pooled) and Welch p-values they imply
    (:func:`scipy.stats.ttest_ind_from_stats`), and whether the printed difference and p-value
    agree with them within the printed rounding (``yes`` / ``no`` / ``not computable``), each
    with a sentence saying why.
    """
    name = TABLE7_NAMES[identifier]
    label = LABELS[identifier]
    m5_mean, m5_sd = printed.accuracy[LABELS["mipo_arkekf"]]["rmse"]
    mean, sd = printed.accuracy[label]["rmse"]
    printed_diff, p_text = printed.table8[name]
    if m5_mean is None or m5_sd is None or mean is None:
        raise KeyError(f"the paper prints no mean RMSE for {label} or M5")
    diff = mean - m5_mean
    diff_ok = abs(printed_diff - diff) <= DIFF_ROUNDING
    diff_check = f"{mean:.4f} - {m5_mean:.4f} = {diff:+.4f} mm; printed {printed_diff:+.4f} mm"
    if not diff_ok and np.sign(diff) != np.sign(printed_diff):
        diff_check += f" (sign flipped: the paper's own mean RMSE of {label} is below M5's)"
    if sd is None:
        student = welch = float("nan")
        p_ok = "not computable"
        # two-sided p of Student's t with 2n - 2 degrees of freedom; a printed bound "<x"
        # bounds the SD from above (a smaller p needs a larger t, so a smaller SD)
        p_value = float(p_text.removeprefix("<"))
        s_pooled = abs(printed_diff) / (sps.t.isf(p_value / 2, 2 * n - 2) * np.sqrt(2 / n))
        needed = np.sqrt(max(2 * s_pooled**2 - m5_sd**2, 0.0))
        size = "below" if p_text.startswith("<") else "of"
        p_check = (
            f"not computable: no printed SD for {label} (§3.2.2 prints its mean RMSE only); "
            f"p = {p_text} with n = {n} would need a pooled SD {size} {s_pooled:.4f} mm, "
            f"i.e. an SD {size} {needed:.4f} mm for {label} beside M5's {m5_sd:.4f} mm"
        )
    else:
        student = _t_p(diff, sd, m5_sd, n, True)
        welch = _t_p(diff, sd, m5_sd, n, False)
        low, high = _p_range(diff, sd, m5_sd, n)
        p_ok = "yes" if _p_matches(p_text, low, high) else "no"
        p_check = (
            f"{mean:.4f} ± {sd:.4f} vs {m5_mean:.4f} ± {m5_sd:.4f} (n = {n} each) imply "
            f"Student p = {student:.2g}, Welch p = {welch:.2g} ({low:.2g} to {high:.2g} within "
            f"the printed rounding); printed p = {p_text}"
        )
    return {
        "paper_mean_diff_mm": printed_diff,
        "paper_diff_of_means_mm": diff,
        "paper_diff_consistent": "yes" if diff_ok else "no",
        "paper_diff_check": diff_check,
        "paper_p": p_text,
        "paper_student_p": student,
        "paper_welch_p": welch,
        "paper_p_consistent": p_ok,
        "paper_p_check": p_check,
    }


def table8(
    fits: Mapping[str, pd.DataFrame],
    printed: PrintedValues | None,
    *,
    study: str,
    n_boot: int = 10_000,
) -> pd.DataFrame:
    """Table 8: validation RMSE of BC, M1-M4 and the hybrids against M5, paired by run.

    ``fits`` maps identifiers to fit frames (extra identifiers are ignored).  Per comparison:
    the paired statistics of :func:`paired_comparisons` (``other - M5``; Holm over the seven
    comparisons; ``significant`` = both Holm-adjusted paired p-values < 0.05), the paper's
    independent-samples Student t on our runs (``student_t``, ``student_p``) and
    :func:`paper_implied` of the paper's ``printed`` values (None: NaN).  Columns:
    ``TABLE8_COLUMNS``.
    """
    others = [i for i in TABLE7 if i != "mipo_arkekf"]
    pairs = [(i, "mipo_arkekf") for i in others]
    table = paired_comparisons(
        fits,
        pairs,
        "val_rmse_mm",
        names=TABLE7_NAMES,
        n_boot=n_boot,
        seed_keys=(study, "table8"),
    )
    values = paired_values(fits, [*others, "mipo_arkekf"], "val_rmse_mm")
    table["comparison"] = [f"M5 vs {TABLE7_NAMES[i]}" for i in others]
    table["identifier"] = others
    table["mean_diff_mm"] = table.pop("mean_diff")
    with warnings.catch_warnings():  # scipy warns on a constant group (BC, LASSO); t is defined
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        student = [sps.ttest_ind(values[i], values["mipo_arkekf"], equal_var=True) for i in others]
    table["student_t"] = [float(s.statistic) for s in student]
    table["student_p"] = [float(s.pvalue) for s in student]
    if printed is None:  # no paper: its columns stay empty
        return table.reindex(columns=TABLE8_COLUMNS)
    implied = pd.DataFrame([paper_implied(i, printed) for i in others])
    return pd.concat([table, implied], axis=1)[TABLE8_COLUMNS]
