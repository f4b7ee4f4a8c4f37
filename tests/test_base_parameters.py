"""paramid.base_parameters (pivoted QR, ordered scan, regrouping) on small known matrices:
its rank tolerance is relative, a rank its two tests disagree on is refused, the regrouping
keeps negative coefficients, and ``unidentified`` scales by the largest column norm."""

from __future__ import annotations

import numpy as np
import pytest

from paramid.base_parameters import AmbiguousRank, base_parameters, unidentified


def test_the_base_parameters_do_not_depend_on_the_regressors_scale():
    """Other units scale the regressor: the same base parameters, the same map."""
    rng = np.random.default_rng(1)
    combine = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]])
    Y = rng.standard_normal((40, 3)) @ combine
    names = ["a", "b", "c", "d"]
    unit = base_parameters(Y, names)
    assert unit.rank == 3 and unit.names == ("a", "b", "d")
    for scale in (1e-12, 1e9):
        scaled = base_parameters(scale * Y, names)
        assert scaled.rank == 3 and scaled.names == unit.names
        np.testing.assert_allclose(scaled.K, unit.K, atol=1e-9)


def test_a_rank_the_pivoted_qr_and_the_ordered_scan_disagree_on_is_refused():
    # pivoted QR: |R00| = sqrt(2), |R11| = 1/sqrt(2) below 0.6 |R00|: rank 1; the ordered scan
    # keeps both columns (each at distance 1 > 0.6 sqrt(2) from the span before it): rank 2
    with pytest.raises(AmbiguousRank, match="rel_tol=0.6"):
        base_parameters(np.array([[1.0, 1.0], [0.0, 1.0]]), ["a", "b"], rel_tol=0.6)


def test_expressions_keep_negative_coefficients():
    a, b = np.random.default_rng(2).standard_normal((2, 30))
    base = base_parameters(np.column_stack([a, b, a - 2 * b]), ["a", "b", "c"])
    assert base.names == ("a", "b")
    assert base.expressions == ("a + c", "b - 2*c")


def test_unidentified_scales_its_threshold_by_the_largest_column_norm():
    base = base_parameters(np.eye(2), ["a", "b"])
    W = np.array([[10.0, 10.0], [0.0, 5.0]])  # column norms 10 and 11.18; b lies 5 from a's span
    assert unidentified(W, base, rel_tol=0.4) == []  # 5 > 0.4 * 11.18
    assert unidentified(W, base, rel_tol=0.5) == ["b"]  # 5 < 0.5 * 11.18


def test_a_column_exactly_at_the_threshold_is_dependent_in_both_tests():
    """|R₁₁| = rel_tol |R₀₀| exactly (a diagonal Y is its own R): both the pivoted QR and the
    ordered scan count it out, so they agree and the rank is 1."""
    base = base_parameters(np.diag([2.0, 1.0]), ["a", "b"], rel_tol=0.5)
    assert base.rank == 1 and base.names == ("a",)
    assert unidentified(np.diag([2.0, 1.0]), base_parameters(np.eye(2), ["a", "b"]), 0.5) == ["b"]


def test_unidentified_refuses_a_regressor_of_another_width():
    base = base_parameters(np.eye(2), ["a", "b"])
    with pytest.raises(ValueError, match=r"W has shape \(5, 3\); expected \(M, 2\)"):
        unidentified(np.ones((5, 3)), base)
