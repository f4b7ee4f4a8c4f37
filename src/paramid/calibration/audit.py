"""The KR210 calibration paper's claims audit: every number of Tables 6-9, the hybrids' RMSE and
the runtime claims of §3.2.2, and the claims about method differences and orderings, each
beside our twin's value with a verdict (rules of :mod:`paramid.audit`) and a reason.

- Absolute accuracies (Tables 6, 7, 9, §3.2.2 (3)) are judged against a stated tolerance.  Our
  twin is not the authors' robot, so after calibration they differ by construction; the
  reason says why.
- Claims about differences and orderings are judged on our paired statistics
  (:mod:`paramid.calibration.significance`, repeats matched by ``run``): ``reproduced`` when
  every step goes the claimed way and both Holm-adjusted paired tests (t, Wilcoxon) give
  p < 0.05, ``direction only`` when the ordering holds but not its significance, ``differs``
  when a step goes the other way.  Table 8's "M5's RMSE is significantly lower" claims assert
  significance: there M5 lower without it ``differs``, and a printed bound ("<0.001") stays
  as printed and needs our paired t p below it (significant but above it: ``direction only``).
- Table 8's printed differences and p-values are also checked against the paper's own printed
  means and SDs (:func:`paramid.calibration.significance.paper_implied`).
- Wall-clock times and time savings are ``machine-dependent``.

Only the paper's methods are read, and only rows of the paper's 24-parameter DH model
(``model == "paper"``) where a table has a ``model`` column.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from paramid.audit import (
    ALPHA,
    COLUMNS,
    PAPER_CONSISTENT,
    PAPER_INCONSISTENT,
    calibration_target,
    direction_verdict,
    numeric,
    row,
    timing,
)
from paramid.calibration.identify import EKF_VARIANTS, LABELS
from paramid.calibration.paper import (
    FIT_IDENTIFIERS,
    HYBRIDS,
    M5,
    METRICS,
    PRINTED_HYBRIDS,
    SINGLE,
    TABLE6,
    TABLE7,
    TABLE7_NAMES,
    TABLE7_PRINTED,
    PrintedValues,
)
from paramid.calibration.significance import (
    DIFF_ROUNDING,
    paired_comparisons,
    paper_implied,
    paper_rows,
)

__all__ = ["FIT_IDENTIFIERS", "TOLERANCE", "kr210_audit"]

#: Relative tolerance of means (``mean``, Tables 6-7 and §3.2.2; ``path``, Table 9), of SDs
#: over repeats (``sd``) and of Table 8's differences (``diff``); absolute tolerance of Table 9's
#: within-band percentages in percentage points (``band_pct``).
TOLERANCE = {"mean": 0.10, "sd": 0.50, "diff": 0.25, "path": 0.10, "band_pct": 10.0}

#: Why BC is a calibration target on the default twin (:data:`paramid.calibration.twin.
#: CALIBRATED`)
CALIBRATED_BC = (
    "the twin's DH error sizes (twin.errors_sd; Hayati beta2 copied from them) were set before "
    "issue #18 so that a geometric-only BC RMSE matched Table 7's 0.8927 mm, not from physics; "
    "BC now also holds the physical sources (gravity deflection, lost motion, transmission "
    "error, registration; docs/kr210.md §2)"
)

WHY = {
    "bc": "the twin's uncompensated error is dominated by the gravity deflection of its assumed "
    "KR210-class mass and stiffness model plus lost motion and transmission error "
    "(docs/kr210.md §2), sized from physics and stated assumptions; its DH errors are a "
    "minority of BC's variance (§2's error budget), where the paper puts geometric errors above "
    "80 % of the positioning error and does not model compliance; the real robot's error mix "
    "is not known",
    "level": "the accuracy after calibration is set by what the 24-parameter DH model (Eq 6) "
    "cannot absorb: on the real KR210 non-geometric errors (compliance, thermal drift, "
    "transmission), on our physical twin its assumed compliance, lost motion, transmission "
    "error, registration and SMR offset plus the AT960 noise (docs/kr210.md §2); the twin is "
    "not their robot, so the residual level is not expected to match",
    "sd": "the spread over repeats comes from how the data and the seeds vary between repeats; "
    "the paper's repeats reuse one measured data set (§3.2.2), ours each draw their own robot, "
    "poses, split and tracker noise",
    "bc_sd": "the paper's repeats reuse one calibration data set (§3.2.2), on which BC (no "
    "identification) is deterministic, yet it prints an SD for BC; ours is the spread of the "
    "uncompensated error over our repeats' data",
    "path": "the dwell-point error over the 150 mm part (§3.2.3, Table 10) is what the "
    "controller's model leaves at one patch of the workspace; as for Table 7, it is set by the "
    "error sources of each robot, the paper's real one and our twin's assumed ones",
    "band": "the share of dwell points within the band follows from the path-error level of the "
    "same row (MEAN, RMSE, MAX), which differs for the reason given there",
    "time": "the paper prints each method's 'total computational time' and reports its results "
    "as means over 10 runs (§3), read here as one calibration run's; its times are MATLAB on "
    "the authors' PC, one run at a time (§3.2.2); ours "
    "are numpy, each repeat timed alone, on whatever machine built this, so they move with the "
    "machine and its load",
    "mipo_budget": "M5 tunes its filter factors with MIPO, running the whole filter in every "
    "evaluation, at a reduced budget by default (20 x 8 evaluations against the paper's "
    "100 x 60: docs/kr210.md §4)",
    "saving": "both times come from one build on one machine, so the ratio is the methods' work "
    "per run, not the machine: M5's MIPO tuning runs its filter in each of its evaluations, "
    "while the hybrids' population stage searches the model linearised at their first stage's "
    "estimate (docs/kr210.md §4)",
}


def kr210_audit(
    table6: pd.DataFrame,
    table7: pd.DataFrame,
    table8: pd.DataFrame,
    table9: pd.DataFrame,
    hybrid: pd.DataFrame,
    fits: Mapping[str, pd.DataFrame],
    printed: PrintedValues,
    calibrated: bool = False,
    histories: Mapping[str, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Every claim of Tables 6-9 and §3.2.2 of the calibration paper (columns
    :data:`paramid.audit.COLUMNS`, the paper's values from ``printed``), from the study's
    tables and the fit frames of
    :data:`FIT_IDENTIFIERS` (identifier -> frame; extra identifiers and rows are ignored).
    ``histories`` (identifier -> run, iteration, train_rmse_mm) of M5 and the hybrids give the
    §3.2.2 convergence claims.  ``calibrated``: the twin keeps
    :data:`paramid.calibration.twin.CALIBRATED`, so the BC means
    of Tables 6-7 are calibration targets and Table 9's BC says it follows them.  A claim that
    M5 is significantly better than a method that diverged in some repeats must also hold on
    the repeats where neither diverged, else it ``differs`` (a claim of significance)."""
    t6 = _select(table6, "identifier", TABLE6, "Table 6")
    t7 = _select(table7, "identifier", TABLE7, "Table 7")
    rows = _accuracy_rows("Table 6", t6, TABLE6, LABELS, printed, calibrated)
    rows += _accuracy_rows("Table 7", t7, TABLE7_PRINTED, TABLE7_NAMES, printed, calibrated)
    rows += [
        _absolute(
            f"{LABELS[h]} RMSE (mean of repeats)",
            "§3.2.2 (3), Figure 12a",
            _printed(printed, LABELS[h], "rmse")[0],
            float(t7.loc[h, "rmse_mm"]),
            rel=TOLERANCE["mean"],
            why=WHY["level"],
        )
        for h in PRINTED_HYBRIDS
    ]
    diverged = t7["diverged_runs"].astype(int).to_dict() if "diverged_runs" in t7 else {}
    t8 = _select(table8, "identifier", [i for i in TABLE7 if i != M5], "Table 8")
    converged = {str(i): _converged_test(fits, str(i)) for i in t8.index}
    rows += _table8_rows(t8, diverged, printed, converged)
    rows += _ordering_rows(fits, printed)
    t9 = _select(table9, "method", list(printed.table9), "Table 9")
    rows += _table9_rows(t9, printed, calibrated)
    hyb = _select(hybrid, "method", [LABELS[h] for h in HYBRIDS], "hybrid_runtime")
    rows += _runtime_rows(hyb, printed)
    rows += _convergence_rows(histories or {})
    return pd.DataFrame(rows, columns=COLUMNS)


#: A run has converged at the first iteration from which its training RMSE stays within this
#: share of its final value (the paper's "stabilises" read as a number)
SETTLED = 0.01
#: §3.2.2 (3), §4: M5 converges within 25 iterations, the hybrids need more than 50
CONVERGENCE_CLAIMS = {M5: ("<=", 25), "lm_ga": (">", 50), "ekf_dqpso": (">", 50)}


def settling_iterations(history: pd.DataFrame, share: float = SETTLED) -> pd.Series:
    """Per run: the first iteration from which the training RMSE stays within ``share`` of the
    run's final value (a non-finite value is outside; NaN for a run whose final value is not
    finite: it never settles)."""

    def first(run: pd.DataFrame) -> float:
        rmse = run.sort_values("iteration")
        values = rmse["train_rmse_mm"].to_numpy(np.float64)
        final = values[-1]
        if not np.isfinite(final):
            return float("nan")
        inside = np.abs(values - final) <= share * abs(final)  # False for NaN and inf
        last_out = np.flatnonzero(~inside)
        its = rmse["iteration"].to_numpy()
        return float(its[last_out[-1] + 1]) if last_out.size else float(its[0])

    return pd.Series({run: first(group) for run, group in history.groupby("run")}, dtype=float)


def _convergence_rows(histories: Mapping[str, pd.DataFrame]) -> list[dict]:
    """'M5 converges within 25 iterations, EKF+DQPSO and LM+GA need more than 50' (§3.2.2,
    Figure 13), on the median over repeats of :func:`settling_iterations`."""
    rows = []
    for ident, (side, bound) in CONVERGENCE_CLAIMS.items():
        if ident not in histories or histories[ident].empty:
            continue
        every = settling_iterations(histories[ident])
        settle = every.dropna()
        if settle.empty:
            continue
        median = float(settle.median())
        holds = median <= bound if side == "<=" else median > bound
        word = "converges within" if side == "<=" else "needs more than"
        rows.append(
            row(
                f"§3.2.2 {LABELS[ident]} {word} {bound} iterations",
                "§3.2.2 (3), Figure 13, §4",
                float(bound),
                median,
                f"median over repeats of the first iteration from which the training RMSE stays "
                f"within {100 * SETTLED:g} % of its final value, {side} {bound}",
                "reproduced" if holds else "differs",
                f"ours {median:g} (the repeats settle between iterations {int(settle.min())} "
                f"and {int(settle.max())} of {int(histories[ident]['iteration'].max())}"
                + (
                    f"; {len(every) - len(settle)} repeats ending non-finite left out"
                    if len(settle) < len(every)
                    else ""
                )
                + "); the paper reads it off its Figure 13 and gives no criterion",
                unit="iterations",
            )
        )
    return rows


def _select(frame: pd.DataFrame, key: str, wanted: Sequence[str], table: str) -> pd.DataFrame:
    """The paper-model rows of ``wanted`` (indexed by ``key``); the others are ignored."""
    rows = paper_rows(frame)
    rows = rows[rows[key].isin(wanted)]
    missing = sorted(set(wanted) - set(rows[key]))
    if missing or rows[key].duplicated().any():
        raise ValueError(f"{table}: expected one paper-model row each of {list(wanted)}")
    return rows.set_index(key)


def _printed(printed: PrintedValues, label: str, metric: str) -> tuple[float, float | None]:
    """The paper's printed (mean, SD) of a metric; raises where it prints no mean."""
    mean, sd = printed.accuracy[label][metric]
    if mean is None:
        raise KeyError(f"the paper prints no {metric} for {label}")
    return mean, sd


def _absolute(
    claim: str,
    source: str,
    printed: float,
    ours: float,
    *,
    why: str,
    why_ok: str = "within tolerance",
    rel: float | None = None,
    abs_: float | None = None,
    unit: str = "mm",
) -> dict:
    """An absolute number against a tolerance; ``not comparable`` where ours is undefined."""
    result = numeric(
        claim,
        source,
        printed,
        ours,
        unit=unit,
        rel=rel,
        abs_=abs_,
        why_differs=why,
        why_ok=why_ok,
    )
    if not np.isfinite(ours):
        result |= {"verdict": "not comparable", "reason": "undefined here (fewer than 2 repeats)"}
    return result


def _accuracy_rows(
    table: str,
    frame: pd.DataFrame,
    identifiers: Sequence[str],
    names: Mapping[str, str],
    printed: PrintedValues,
    calibrated: bool = False,
) -> list[dict]:
    """MEAN / RMSE / MAX, mean and SD over repeats, of each printed column of Table 6 or 7;
    on a ``calibrated`` twin BC's means are calibration targets."""
    rows = []
    for ident in identifiers:
        bc = ident == "bc"
        diverged = int(frame.loc[ident, "diverged_runs"]) if "diverged_runs" in frame else 0
        lost = _diverged_note(names[ident], diverged, _runs_of(frame, ident))
        note = lost
        if EKF_VARIANTS.get(ident, ("", False, False))[2]:
            note += (
                "; its factors are tuned by MIPO at the study's tuning budget (by default 20 x 8 "
                "evaluations against the paper's 100 x 60: docs/kr210.md §4, where the tuning "
                "does not move the result on this twin)"
            )
        for m in METRICS:
            mean, sd = _printed(printed, LABELS[ident], m)
            claim = f"{table} {names[ident]} {m.upper()}"
            ours = float(frame.loc[ident, f"{m}_mm"])
            if bc and calibrated:
                rows.append(
                    calibration_target(
                        f"{claim} (mean of repeats)", table, mean, ours, CALIBRATED_BC, unit="mm"
                    )
                )
            else:
                rows.append(
                    _absolute(
                        f"{claim} (mean of repeats)",
                        table,
                        mean,
                        ours,
                        rel=TOLERANCE["mean"],
                        why=WHY["bc" if bc else "level"] + note,
                        why_ok="within tolerance" + note,
                    )
                )
            if sd is not None:
                rows.append(
                    _absolute(
                        f"{claim} (SD over repeats)",
                        table,
                        sd,
                        float(frame.loc[ident, f"{m}_mm_sd"]),
                        rel=TOLERANCE["sd"],
                        why=WHY["bc_sd" if bc else "sd"] + lost,
                    )
                )
    return rows


def _printed_p(text: str) -> float | str:
    """A printed p-value as the audit's paper_value: a number as a number ("0.003" -> 0.003),
    an upper bound as printed ("<0.001"), never turned into the point value it bounds."""
    text = text.strip()
    return text if text.startswith("<") else float(text)


def _p_bound(text: str) -> float | None:
    """The bound of a printed "<x" p-value (x), None for a printed point value."""
    text = text.strip()
    return float(text[1:]) if text.startswith("<") else None


def _converged_test(fits: Mapping[str, pd.DataFrame], ident: str) -> Converged | None:
    """The paired tests of ``ident`` - M5 (validation RMSE) on the repeats where neither
    diverged; None without per-run divergence flags for both."""
    import scipy.stats

    if ident not in fits or M5 not in fits:
        return None
    other, m5 = (fits[i].set_index("run") for i in (ident, M5))
    if "diverged" not in other or "diverged" not in m5:
        return None
    runs = other.index.intersection(m5.index)
    lost = other.loc[runs, "diverged"].astype(bool).to_numpy()
    keep = runs[~lost & ~m5.loc[runs, "diverged"].astype(bool).to_numpy()]
    diff = (other.loc[keep, "val_rmse_mm"] - m5.loc[keep, "val_rmse_mm"]).to_numpy(np.float64)
    if diff.size < 2 or not np.any(diff):
        return Converged(int(lost.sum()), int(diff.size), float(np.mean(diff)), 1.0, 1.0)
    t_p = float(scipy.stats.ttest_1samp(diff, 0.0).pvalue)
    w_p = float(scipy.stats.wilcoxon(diff).pvalue)
    return Converged(int(lost.sum()), int(diff.size), float(np.mean(diff)), t_p, w_p)


@dataclass(frozen=True)
class Converged:
    """A comparison with M5 on the repeats where neither method diverged."""

    diverged: int  # repeats in which the compared method diverged
    pairs: int  # repeats where neither did
    mean_diff_mm: float  # other - M5 over those
    t_p: float  # paired t (unadjusted)
    wilcoxon_p: float

    @property
    def significant(self) -> bool:
        """M5 lower and both tests p < ALPHA on the converged repeats."""
        return self.mean_diff_mm > 0 and max(self.t_p, self.wilcoxon_p) < ALPHA


def _table8_rows(
    t8: pd.DataFrame,
    diverged: Mapping[str, int],
    printed: PrintedValues,
    converged: Mapping[str, Converged | None] | None = None,
) -> list[dict]:
    """Per comparison: the printed difference against ours, the significance claim on our paired
    statistics (``diverged``: identifier -> repeats in which it diverged; ``converged``: the
    tests on the repeats where neither method did, :func:`_converged_test`), and the printed
    difference and p against the paper's own printed means/SDs (paper consistent or not);
    then the claim that all seven comparisons are significant."""
    converged = converged or {}
    rows = []
    verdicts = {
        "yes": PAPER_CONSISTENT,
        "no": PAPER_INCONSISTENT,
        "not computable": "not comparable",
    }
    for ident, r in t8.iterrows():
        name = TABLE7_NAMES[str(ident)]
        implied = paper_implied(str(ident), printed)
        claim = f"Table 8 M5 vs {name}"
        source = "Table 8 vs " + ("§3.2.2 (3)" if ident in PRINTED_HYBRIDS else "Table 7")
        lost = diverged.get(str(ident), 0)
        paper_diff = float(implied["paper_mean_diff_mm"])
        why = _difference_why(
            str(ident), name, float(r["mean_diff_mm"]), paper_diff, lost, converged.get(str(ident))
        )
        if implied["paper_diff_consistent"] == "no":
            why += "; the printed difference also disagrees with the paper's own means (below)"
        rows.append(
            _absolute(
                f"{claim}: mean RMSE difference ({name} - M5)",
                "Table 8",
                paper_diff,
                float(r["mean_diff_mm"]),
                rel=TOLERANCE["diff"],
                why=why,
            )
        )
        rows.append(_significance_row(claim, name, r, implied, lost, converged.get(str(ident))))
        rows.append(
            row(
                f"{claim}: printed difference = difference of the printed means",
                source,
                implied["paper_mean_diff_mm"],
                implied["paper_diff_of_means_mm"],
                f"±{DIFF_ROUNDING:g} mm (rounding of the printed values)",
                verdicts[str(implied["paper_diff_consistent"])],
                str(implied["paper_diff_check"]),
                unit="mm",
            )
        )
        rows.append(
            row(
                f"{claim}: printed p follows from the printed means and SDs",
                source,
                _printed_p(str(implied["paper_p"])),
                implied["paper_student_p"],
                "printed p attainable by a Student or Welch t within the printed rounding",
                verdicts[str(implied["paper_p_consistent"])],
                str(implied["paper_p_check"]),
                unit="1 (p)",
            )
        )
    lower = t8["mean_diff_mm"] > 0
    held = np.array([_holds(diverged.get(str(i), 0), converged.get(str(i))) for i in t8.index])
    both = lower & t8["significant"].astype(bool) & held
    failing = [TABLE7_NAMES[str(i)] for i in t8.index[~both]]
    rows.append(
        row(
            "Table 8: M5's RMSE is significantly lower than each of the seven compared",
            "Table 8, §3.2.2, §4",
            float(len(t8)),
            float(both.sum()),
            f"M5 lower and both Holm-adjusted paired tests p < {ALPHA} in every comparison",
            "reproduced" if both.all() else "differs",  # a claim of significance
            f"M5 lower in {int(lower.sum())} of {len(t8)} comparisons, significantly (and, where "
            f"the other method diverged, also on the repeats where neither did) in "
            f"{int(both.sum())}" + (f"; not: {', '.join(failing)}" if failing else ""),
            unit="comparisons",
            reading="derived",
        )
    )
    return rows


#: a difference below this share of the paper's says the two methods coincide on the twin
COINCIDE_SHARE = 0.05


def _difference_why(
    ident: str,
    name: str,
    ours: float,
    paper: float,
    diverged: int,
    converged: Converged | None,
) -> str:
    """Why our mean RMSE difference ``name`` - M5 differs from the paper's, from the numbers:
    the order reversed, the two methods coinciding, repeats in which ``name`` diverged (with
    the difference on the others), BC's own level, or the residual level both sit on."""
    if ident == "bc":
        return f"BC's own level sets it: {WHY['bc']}"
    if np.sign(ours) != np.sign(paper):
        return f"the order is reversed: M5 lies {'above' if ours < 0 else 'below'} {name} here"
    if diverged and converged is not None:
        return (
            f"{name} diverged in {diverged} repeats (docs/kr210.md §5), which this mean "
            f"includes; on the {converged.pairs} where neither diverged it is "
            f"{converged.mean_diff_mm:+.4g} mm"
        )
    if abs(ours) < COINCIDE_SHARE * abs(paper):
        return f"the two methods nearly coincide on the twin ({ours:+.3g} mm)"
    return f"same order, another size: {WHY['level']}"


def _holds(diverged: int, converged: Converged | None) -> bool:
    """Whether a significant difference survives the compared method's ``diverged`` repeats:
    none diverged, or it stays significant on the repeats where neither did (unknown without
    per-run flags: it does not)."""
    return not diverged or (converged is not None and converged.significant)


def _significance_row(
    claim: str,
    name: str,
    r: pd.Series,
    printed: Mapping,
    diverged: int = 0,
    converged: Converged | None = None,
) -> dict:
    """'M5's RMSE is significantly lower than ``name``' (Table 8) judged on our paired
    statistics: a claim of significance, so M5 lower without significance ``differs``; where
    ``name`` diverged in some repeats, the difference must also be significant on the repeats
    where neither method did (``converged``).  A printed bound ("<0.001") is kept as printed
    and needs our Holm-adjusted paired t p below it too (significant above it: ``direction
    only``); a printed point p is shown beside ours, not judged (the paper's test is another)."""
    diff = float(r["mean_diff_mm"])
    lower = diff > 0
    significant = bool(r["significant"]) and _holds(diverged, converged)
    p_text = str(printed["paper_p"])
    bound = _p_bound(p_text)
    p_ours = float(r["holm_p_paired_t"])
    tolerance = f"{name} - M5 > 0, Holm-adjusted paired t and Wilcoxon p < {ALPHA}"
    if bound is not None:
        tolerance += f", paired t p < {bound:g} (the printed bound)"
    reason = (
        f"ours: {name} - M5 = {diff:+.4g} mm over {int(r['n_runs'])} paired repeats; "
        f"Holm-adjusted paired t p = {p_ours:.3g}, Wilcoxon p = "
        f"{r['holm_p_wilcoxon']:.3g}; independent Student t on our repeats (the paper's test) "
        f"p = {r['student_p']:.3g}"
    )
    if diverged:
        reason += (
            f"; {name} diverged in {diverged} of {int(r['n_runs'])} repeats (training RMSE above "
            "BC, with our filter settings: docs/kr210.md §5)"
        )
        if converged is None:
            reason += ": no per-run flags to test without them, so not evidence"
        else:
            reason += (
                f"; on the {converged.pairs} repeats where neither diverged {name} - M5 = "
                f"{converged.mean_diff_mm:+.4g} mm, paired t p = {converged.t_p:.3g}, Wilcoxon "
                f"p = {converged.wilcoxon_p:.3g} (unadjusted): "
                + ("the difference holds" if converged.significant else "not significant there")
            )
    if not lower:
        worse = max(p_ours, float(r["holm_p_wilcoxon"])) < ALPHA
        reason += "; M5 significantly higher (worse)" if worse else "; M5 not lower"
        verdict = "differs"
    elif not significant:
        reason += "; M5 lower but not significantly: the claimed significance does not hold"
        verdict = "differs"
    elif bound is not None and p_ours >= bound:
        reason += (
            f"; significant, but paired t p = {p_ours:.3g} is not below the printed bound {p_text}"
        )
        verdict = "direction only"
    else:
        verdict = "reproduced"
    if float(printed["paper_diff_of_means_mm"]) < 0:
        reason += f"; the paper's own means have M5 above {name} (§3.2.2 (3))"
    return row(
        f"{claim}: M5's RMSE is significantly lower",
        "Table 8",
        _printed_p(p_text),
        p_ours,
        tolerance,
        verdict,
        reason,
        unit="1 (p)",
    )


def _ordering_rows(fits: Mapping[str, pd.DataFrame], printed: PrintedValues) -> list[dict]:
    """The ablation ordering (Table 6) and M5 lowest of M1-M5 (Table 7), per metric, on paired
    statistics over the repeats (Holm over the steps of each claim)."""
    ablation = list(zip(TABLE6[:-1], TABLE6[1:], strict=True))
    chain = " > ".join(LABELS[i] for i in TABLE6)
    rows = []
    for m in METRICS:
        rows.append(
            _ordering_row(
                f"Table 6 ablation ordering of {m.upper()}: {chain}",
                "Table 6, §3.2.2 (1), §4",
                fits,
                ablation,
                m,
                LABELS,
                printed,
            )
        )
        rows.append(
            _ordering_row(
                f"Table 7: M5 has the lowest {m.upper()} of M1-M5",
                "Table 7, §3.2.2 (2), §4",
                fits,
                [(i, M5) for i in SINGLE],
                m,
                TABLE7_NAMES,
                printed,
            )
        )
    return rows


def _ordering_row(
    claim: str,
    source: str,
    fits: Mapping[str, pd.DataFrame],
    pairs: Sequence[tuple[str, str]],
    metric: str,
    names: Mapping[str, str],
    printed: PrintedValues,
) -> dict:
    """Every pair (a, b) with a's metric above b's; paper: smallest printed step, ours: smallest
    mean paired step [mm]."""
    stats = paired_comparisons(
        fits, pairs, f"val_{metric}_mm", names=names, n_boot=0, seed_keys=("audit",)
    )
    step = min(
        _printed(printed, LABELS[a], metric)[0] - _printed(printed, LABELS[b], metric)[0]
        for a, b in pairs
    )
    holds = bool((stats["mean_diff"] > 0).all())
    significant = bool(stats["significant"].all())
    steps = "; ".join(
        f"{s.a} - {s.b} = {s.mean_diff:+.3g} mm (Holm p {s.holm_p_paired_t:.3g} / "
        f"{s.holm_p_wilcoxon:.3g})"
        for s in stats.itertuples()
    )
    verdict = direction_verdict(holds, significant)
    return row(
        claim,
        source,
        step,
        float(stats["mean_diff"].min()),
        f"every step > 0 with Holm-adjusted paired t and Wilcoxon p < {ALPHA}",
        verdict,
        f"paired over {int(stats['n_runs'].iloc[0])} repeats, paired t / Wilcoxon: {steps}",
        unit="mm",
        reading="derived",
    )


def _table9_rows(t9: pd.DataFrame, printed: PrintedValues, calibrated: bool = False) -> list[dict]:
    """Every cell of Table 9 and 'M5 tracks the path best' (means only: no per-run pairs).  A
    row's RMSE or MAX within tolerance while its MEAN is not and its ratio to the MEAN differs
    from the paper's by more than the tolerance is a coincidence of level and spread (a level
    too high with a spread too narrow lands on the printed MAX): it differs."""
    rows = []
    for name, cells in printed.table9.items():
        mean, printed_mean = float(t9.loc[name, "mean_mm"]), cells["mean_mm"]
        mean_off = abs(mean - printed_mean) > TOLERANCE["path"] * abs(printed_mean)
        for key, value in cells.items():
            band = key.endswith("_pct")
            label = (
                f"points within ±{key[7:10].replace('p', '.')} mm (%)" if band else key[:-3].upper()
            )
            why = WHY["band"] if band else (WHY["bc"] if name == "BC" else WHY["path"])
            if name == "BC" and calibrated:
                why += f"; {CALIBRATED_BC}"
            ours = float(t9.loc[name, key])
            result = _absolute(
                f"Table 9 {name} {label}",
                "Table 9, §3.2.3",
                value,
                ours,
                why=why,
                rel=None if band else TOLERANCE["path"],
                abs_=TOLERANCE["band_pct"] if band else None,
                unit="%" if band else "mm",
            )
            ratio, printed_ratio = ours / mean, value / printed_mean
            shape_off = abs(ratio / printed_ratio - 1) > TOLERANCE["path"]
            if key in ("rmse_mm", "max_mm") and mean_off and shape_off:
                if result["verdict"] == "reproduced":
                    result |= {
                        "verdict": "differs",
                        "reason": f"within tolerance alone: the row's MEAN is {mean:.4g} against "
                        f"{printed_mean:.4g} mm and its {label}/MEAN {ratio:.3g} against "
                        f"{printed_ratio:.3g}, a coincidence of a level and a spread that both "
                        "differ",
                    }
            rows.append(result)
    others = [n for n in printed.table9 if n != "M5"]
    for m in METRICS:
        key = f"{m}_mm"
        margins = t9.loc[others, key] - t9.loc["M5", key]
        margin = min(printed.table9[n][key] - printed.table9["M5"][key] for n in others)
        best = bool((margins > 0).all())
        rows.append(
            row(
                f"Table 9: M5 has the lowest path {m.upper()}",
                "Table 9, §3.2.3",
                margin,
                float(margins.min()),
                "M5 lowest (table9.csv holds means over repeats: no paired test)",
                "direction only" if best else "differs",
                (
                    "M5 lowest of the means; not tested for significance (no per-repeat path "
                    "errors in table9.csv), so at most direction only"
                    if best
                    else f"lowest mean: {t9[key].idxmin()} ({t9[key].min():.4g} mm; "
                    f"M5 {t9.loc['M5', key]:.4g} mm)"
                ),
                unit="mm",
                reading="derived",
            )
        )
    return rows


def _runtime_rows(hyb: pd.DataFrame, printed: PrintedValues) -> list[dict]:
    """§3.2.2 (3), Figure 12b: time per run of M5 and the hybrids and M5's time savings."""
    rows = []
    times = printed.time_s
    m5 = times[LABELS[M5]]
    for h in HYBRIDS:
        label = LABELS[h]
        ours = float(hyb.loc[label, "time_s"])
        rows.append(
            timing(
                f"§3.2.2 {label} total computational time [s], of one calibration run",
                "§3.2.2 (3), Figure 12b",
                times[label],
                ours,
                f"ours {ours:.3g} s vs {times[label]:g} s; {WHY['time']}"
                + (f"; {WHY['mipo_budget']}" if h == M5 else ""),
                unit="s",
            )
        )
    for h in PRINTED_HYBRIDS:
        label = LABELS[h]
        saving = printed.time_saving_pct[label]
        from_times = 100.0 * (times[label] - m5) / times[label]
        ours = float(hyb.loc[label, "m5_time_saving_pct"])
        rows.append(
            timing(
                f"§3.2.2 M5 saves {saving:.2f} % of the time of {label}",
                "§3.2.2 (3), Abstract, §4",
                saving,
                ours,
                f"ours {ours:+.1f} % (negative: M5 slower): M5 "
                f"{float(hyb.loc[LABELS[M5], 'time_s']):.3g} s against {label}'s "
                f"{float(hyb.loc[label, 'time_s']):.3g} s per run (the paper's printed "
                f"{m5:g} and {times[label]:g} s give {from_times:.3f} %, which it "
                f"prints as {saving:.2f} %); {WHY['saving']}",
                unit="%",
            )
        )
    return rows


def _runs_of(frame: pd.DataFrame, ident: str) -> int:
    """The repeats behind a row of Table 6 or 7 (its ``runs`` column)."""
    return int(frame.loc[ident, "runs"]) if "runs" in frame else 0


def _diverged_note(name: str, diverged: int, runs: int) -> str:
    """The clause a row of a method that diverged in some repeats carries."""
    if not diverged:
        return ""
    return (
        f"; {name} diverged in {diverged} of {runs} repeats (training RMSE above BC: with our "
        "filter settings, docs/kr210.md §5), which this value includes"
    )
