"""Audit verdicts: tolerances and statistics decide, not the comparison of two medians."""

from __future__ import annotations

import pandas as pd

from paramid import audit


def test_numeric_verdicts_follow_the_tolerance():
    assert audit.numeric("x", "T", 1.0, 1.05, rel=0.06)["verdict"] == "reproduced"
    far = audit.numeric("x", "T", 1.0, 1.2, rel=0.06, why_differs="because")
    assert far["verdict"] == "differs" and "because" in far["reason"] and "+20.0 %" in far["reason"]
    assert audit.numeric("p", "T", 0.75, 0.77, abs_=0.03)["verdict"] == "reproduced"


def _stats(pct: float, p: float, lo: float, hi: float) -> pd.Series:
    return pd.Series(
        {
            "median_diff_pct": pct,
            "holm_p_mwu": p,
            "boot_ci_low": lo,
            "boot_ci_high": hi,
            "cliffs_delta": -0.5,
        }
    )


def test_method_difference_needs_direction_significance_and_size():
    # a is 3 % better than b, significant, CI excludes 0: reproduced
    assert (
        audit.method_difference("c", "s", 3.0, _stats(-3.0, 0.01, -0.006, -0.001))["verdict"]
        == "reproduced"
    )
    # same direction but not significant: direction only, however close the medians
    row = audit.method_difference("c", "s", 3.0, _stats(-3.0, 0.2, -0.006, 0.002))
    assert row["verdict"] == "direction only" and "not significant" in row["reason"]
    # significant but a tenth of the claimed size
    assert (
        audit.method_difference("c", "s", 24.0, _stats(-2.4, 1e-6, -0.005, -0.002))["verdict"]
        == "direction only"
    )
    # opposite direction
    assert (
        audit.method_difference("c", "s", 3.0, _stats(1.0, 0.5, -0.001, 0.003))["verdict"]
        == "differs"
    )
