"""Claims audit: every numeric claim of a paper beside our reproduction, with a verdict.

Verdicts: ``reproduced`` (within the stated tolerance; for a difference between methods:
same direction, Holm-adjusted p < 0.05 and a bootstrap CI that excludes 0), ``direction
only`` (same direction or ordering, but the size, or the significance of a claim that does
not assert it, does not hold: the reason says which), ``inconclusive`` (the paper's value lies
within our uncertainty, as a place inside our bootstrap interval of places, but so do others:
our runs neither confirm nor refute it), ``differs`` (outside the tolerance, the
other direction, or a claim of significance that is not significant here),
``not comparable`` (the paper gives nothing to compare with),
``machine-dependent`` (a wall-clock time, or a ratio or rank of times: reported beside the
paper's but never judged, since a verdict on it could flip between two builds of the same
commit with the machine's load), ``calibration target`` (a number a twin setting was
chosen to give: shown beside the paper's, never evidence), ``input`` (a number the study
takes from the paper or the user, such as the twin's truth set to the paper's reference
parameters: equal by construction, never evidence) and ``paper consistent`` / ``paper
inconsistent`` (a printed number checked against the paper's own other numbers: says nothing
about our reproduction, so it is never counted as one).  Every verdict is a function of
seeded, deterministic results only, so two clean builds give the same verdict column.  Every
row says why.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

COLUMNS = [
    "claim",
    "source",
    "paper_value",
    "paper_reading",
    "reproduced_value",
    "unit",
    "tolerance",
    "verdict",
    "reason",
]
#: what a paper_value is: ``printed`` in the paper, exactly as printed (a table cell, a number
#: in its text, a bound such as "<0.001" as that text; for a measured study, a value of its
#: reference as its source prints it), ``derived`` by us from printed numbers (a ratio, a
#: count, a minimum, a reference value converted to our model: the reason, the claim or the
#: study's note says how) or, for a measured study, from its reference or its record (the
#: RMSE they give), ``reading``: words of the paper read as a value ("orders of magnitude" as
#: 100x, "the same solution" as 0) or a claim it makes in words only, restated; ``none``: no
#: value given
READINGS = ("printed", "derived", "reading", "none")
ALPHA = 0.05
MACHINE_DEPENDENT = "machine-dependent"
CALIBRATION_TARGET = "calibration target"
INPUT = "input"
PAPER_CONSISTENT = "paper consistent"
PAPER_INCONSISTENT = "paper inconsistent"
INCONCLUSIVE = "inconclusive"
VERDICTS = (
    "reproduced",
    "direction only",
    INCONCLUSIVE,
    "differs",
    "not comparable",
    MACHINE_DEPENDENT,
    CALIBRATION_TARGET,
    INPUT,
    PAPER_CONSISTENT,
    PAPER_INCONSISTENT,
)


def audit_caption(study: str, verdicts: Sequence[str]) -> str:
    """The audit table's caption: its claims and how many got each verdict, in
    :data:`VERDICTS` order ("verdicts: 25 reproduced, 3 direction only, 50 differs, ...")."""
    counts = [f"{list(verdicts).count(v)} {v}" for v in VERDICTS if v in verdicts]
    return f"Claims audit ({study}): {len(verdicts)} claims; verdicts: {', '.join(counts)}"


def row(
    claim: str,
    source: str,
    paper: float | str,
    ours: float | str,
    tolerance: str,
    verdict: str,
    reason: str,
    *,
    unit: str,
    reading: str | None = None,
) -> dict:
    """One audit row; ``unit`` of the paper's and our value ("1": a plain number); ``verdict``
    one of :data:`VERDICTS`; ``reading`` one of :data:`READINGS`, by default ``none`` where
    ``paper`` is missing (NaN, empty, a dash) and ``printed`` otherwise."""
    if verdict not in VERDICTS:
        raise ValueError(f"{claim}: verdict {verdict!r} is not one of {VERDICTS}")
    if reading is None:
        if isinstance(paper, str):
            missing = paper.strip() in ("", "-", "–")
        else:
            missing = paper is None or bool(pd.isna(paper))
        reading = "none" if missing else "printed"
    if reading not in READINGS:
        raise ValueError(f"{claim}: paper reading {reading!r} is not one of {READINGS}")
    cells = (claim, source, paper, reading, ours, unit, tolerance, verdict, reason)
    return dict(zip(COLUMNS, cells, strict=True))


def timing(
    claim: str,
    source: str,
    paper: float | str,
    ours: float | str,
    reason: str,
    *,
    unit: str = "ms",
    reading: str | None = None,
) -> dict:
    """A claim about wall-clock time: our value beside the paper's, verdict machine-dependent
    (a time, or a ratio of times from different jobs, moves with the machine's load)."""
    tolerance = "not judged (wall-clock time)"
    return row(
        claim, source, paper, ours, tolerance, MACHINE_DEPENDENT, reason, unit=unit, reading=reading
    )


def calibration_target(
    claim: str, source: str, paper: float, ours: float, setting: str, *, unit: str
) -> dict:
    """A number the twin was sized to give (``setting`` says how): ours beside the paper's,
    verdict calibration target, since agreement there shows the fit of a setting, not the
    method."""
    gap = f"ours {ours:.4g} vs {paper:.4g} ({100 * (ours - paper) / abs(paper):+.1f} %)"
    reason = f"{gap}; {setting}: not evidence"
    tolerance = "not judged (a twin setting was fitted to it)"
    return row(claim, source, paper, ours, tolerance, CALIBRATION_TARGET, reason, unit=unit)


def given(claim: str, source: str, paper: float, ours: float, how: str, *, unit: str) -> dict:
    """A number the study was given (``how`` says where from), not one it estimated: ours beside
    the paper's, verdict input, since agreement there shows the setting, not the method."""
    gap = f"ours {ours:.4g} vs {paper:.4g} ({ours - paper:+.4g} {unit})"
    tolerance = "not judged (an input of the study)"
    return row(
        claim, source, paper, ours, tolerance, INPUT, f"{gap}; {how}: not evidence", unit=unit
    )


def numeric(
    claim: str,
    source: str,
    paper: float,
    ours: float,
    *,
    unit: str,
    rel: float | None = None,
    abs_: float | None = None,
    why_differs: str = "",
    why_ok: str = "within tolerance",
    reading: str | None = None,
) -> dict:
    """A number judged against a relative or absolute tolerance; ``reading`` as in
    :func:`row`."""
    if rel is not None:
        ok = abs(ours - paper) <= rel * abs(paper)
        tolerance = f"±{100 * rel:g} % relative"
    else:
        ok = abs(ours - paper) <= abs_
        tolerance = f"±{abs_:g} absolute"
    if rel is None:  # an absolute tolerance: the gap in the row's unit, digits to a tenth of it
        shown = "percentage points" if unit == "%" else unit
        d = max(0, 2 - math.floor(math.log10(abs_))) if abs_ else 4
        gap = f"ours {ours:.{d}f} vs {paper:.{d}f} ({ours - paper:+.{d}f} {shown})"
    else:
        gap = (
            f"ours {ours:.4g} vs {paper:.4g} ({100 * (ours - paper) / abs(paper):+.1f} %)"
            if paper
            else ""
        )
    reason = why_ok if ok else "; ".join(r for r in (gap, why_differs) if r)
    verdict = "reproduced" if ok else "differs"
    return row(claim, source, paper, ours, tolerance, verdict, reason, unit=unit, reading=reading)


def direction_verdict(direction: bool, significant: bool) -> str:
    """The verdict of a claimed direction (a difference, an ordering) that does not itself
    claim significance: ``reproduced`` where it holds and is significant, ``direction only``
    where it holds alone, else ``differs``.  A claim of significance ("significantly lower")
    not significant here differs: not judged with this."""
    if not direction:
        return "differs"
    return "reproduced" if significant else "direction only"


def method_difference(
    claim: str,
    source: str,
    paper_pct: float,
    stats_row: pd.Series,
    *,
    sign: float = 1.0,
    rel: float = 0.25,
) -> dict:
    """A claimed % improvement of one method over another, judged with the statistics table.

    ``paper_pct`` is the claimed improvement (positive = a better than b).  Our improvement
    is ``-sign * median_diff_pct`` of the stats row (a − b, lower RMSE is better).
    """
    ours = -sign * float(stats_row["median_diff_pct"])
    p = float(stats_row["holm_rank_p"])
    ci = (float(stats_row["boot_ci_low"]), float(stats_row["boot_ci_high"]))
    significant = p < ALPHA and not (ci[0] <= 0.0 <= ci[1])
    same_direction = np.sign(ours) == np.sign(paper_pct)
    size_ok = abs(ours - paper_pct) <= rel * abs(paper_pct)
    evidence = (
        f"ours {ours:.2f} % vs {paper_pct:g} %; Holm-adjusted rank-test p = {p:.3g}, "
        f"bootstrap 95 % CI of the median difference [{ci[0]:.4g}, {ci[1]:.4g}] N m, "
        f"Cliff's delta {float(stats_row['cliffs_delta']):.2f}"
    )
    if same_direction and significant and size_ok:
        verdict = "reproduced"
    elif same_direction:
        verdict = "direction only"
        evidence += "; " + ("not significant" if not significant else "size differs")
    else:
        verdict = "differs"
        evidence += "; opposite direction"
    tolerance = f"same sign, Holm p < {ALPHA}, size ±{100 * rel:g} % relative"
    return row(claim, source, paper_pct, ours, tolerance, verdict, evidence, unit="%")
