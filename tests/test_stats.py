"""Tests for paramid.stats: agreement with scipy, independent formulas, degenerate inputs."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from paramid import stats as S
from paramid.seeding import generator

# Hand-made samples (validation-RMSE-like values, no ties inside a group).
A = np.array([0.151, 0.139, 0.162, 0.148, 0.171, 0.133, 0.155, 0.144, 0.166, 0.129])
B = np.array([0.158, 0.149, 0.171, 0.163, 0.152, 0.177, 0.160, 0.146, 0.169, 0.174, 0.181])
# Small samples with cross-group ties, for the rank statistics.
C = np.array([1.0, 2.0, 2.0, 3.0, 5.0, 8.0])
D = np.array([2.0, 3.0, 3.0, 4.0, 6.0])


def _brute_cliffs_delta(a: np.ndarray, b: np.ndarray) -> float:
    """Cliff (1993): mean over all cross pairs of sign(a_i - b_j), by the double loop."""
    total = 0
    for x in map(float, a):
        for y in map(float, b):
            total += (x > y) - (x < y)
    return total / (len(a) * len(b))


def _textbook_hedges_g(a: np.ndarray, b: np.ndarray) -> float:
    """Hedges & Olkin (1985): g = J * (mean_a - mean_b) / s_pooled, written out with lists.

    J is the *exact* correction Γ(m/2) / (sqrt(m/2) Γ((m-1)/2)), m = n1 + n2 - 2, via
    math.lgamma (independent of scipy.special used in the module): :func:`_hedges_j`.
    """
    a, b = list(map(float, a)), list(map(float, b))
    n1, n2 = len(a), len(b)
    m1, m2 = sum(a) / n1, sum(b) / n2
    ss1 = sum((x - m1) ** 2 for x in a)
    ss2 = sum((x - m2) ** 2 for x in b)
    sp = math.sqrt((ss1 + ss2) / (n1 + n2 - 2))
    return _hedges_j(n1 + n2 - 2) * (m1 - m2) / sp


def _hedges_j(m: float) -> float:
    """The exact correction J(m) through math.lgamma."""
    return math.exp(math.lgamma(m / 2) - math.lgamma((m - 1) / 2)) / math.sqrt(m / 2)


def _hand_holm(p: list[float]) -> list[float]:
    """Holm by the definition: adj_i = max over all p_k <= p_i of min(1, (m - rank_k + 1) p_k)."""
    m = len(p)
    ranked = sorted(p)
    out = []
    for pi in p:
        candidates = [min(1.0, (m - k) * ranked[k]) for k in range(m) if ranked[k] <= pi]
        out.append(max(candidates))
    return out


# --------------------------------------------------------------------------------------
# summarise
# --------------------------------------------------------------------------------------


def test_summarise_matches_numpy_linear_percentiles():
    s = S.summarise(A)
    assert s.n == 10
    assert s.mean == pytest.approx(np.mean(A))
    assert s.sd == pytest.approx(np.std(A, ddof=1))
    assert s.median == pytest.approx(np.median(A))
    # linear (type 7) interpolation by hand: position (n-1)*q on the sorted sample
    srt = np.sort(A)
    pos = 9 * 0.25
    assert s.q1 == pytest.approx(srt[2] + (pos - 2) * (srt[3] - srt[2]))
    pos = 9 * 0.75
    assert s.q3 == pytest.approx(srt[6] + (pos - 6) * (srt[7] - srt[6]))
    assert s.iqr == pytest.approx(s.q3 - s.q1)
    assert (s.min, s.max) == (A.min(), A.max())


def test_summarise_degenerate():
    one = S.summarise([0.1152])
    assert one.n == 1 and one.median == 0.1152 and math.isnan(one.sd)
    empty = S.summarise([])
    assert empty.n == 0 and math.isnan(empty.mean) and math.isnan(empty.median)
    const = S.summarise(np.full(30, 0.1152))
    assert const.iqr == 0.0 and const.sd == pytest.approx(0.0, abs=1e-15)
    with pytest.raises(ValueError, match="non-finite"):
        S.summarise([0.1, np.nan])


# --------------------------------------------------------------------------------------
# compare: agreement with scipy
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [(A, B), (C, D), (B, A)])
def test_compare_independent_equals_scipy(a, b):
    c = S.compare(a, b, n_boot=200)
    welch = sps.ttest_ind(a, b, equal_var=False)
    mwu = sps.mannwhitneyu(a, b, alternative="two-sided")
    assert c.t_test == "welch" and c.rank_test == "mann-whitney" and not c.paired
    assert c.t_stat == pytest.approx(welch.statistic, rel=1e-12)
    assert c.t_p == pytest.approx(welch.pvalue, rel=1e-12)
    assert c.rank_stat == mwu.statistic
    assert c.rank_p == pytest.approx(mwu.pvalue, rel=1e-12)
    assert c.median_a == np.median(a) and c.median_b == np.median(b)
    assert c.median_diff == pytest.approx(np.median(a) - np.median(b))
    assert c.median_diff_pct == pytest.approx(100 * (np.median(a) - np.median(b)) / np.median(b))
    assert c.note == ""


def test_compare_paired_equals_scipy():
    a = A
    b = A + np.array([0.004, -0.001, 0.006, 0.002, 0.009, 0.003, -0.002, 0.005, 0.007, 0.001])
    c = S.compare(a, b, paired=True, n_boot=200)
    rel = sps.ttest_rel(a, b)
    wil = sps.wilcoxon(a, b)
    assert c.t_test == "paired-t" and c.rank_test == "wilcoxon" and c.paired
    assert c.t_stat == pytest.approx(rel.statistic, rel=1e-12)
    assert c.t_p == pytest.approx(rel.pvalue, rel=1e-12)
    assert c.rank_stat == wil.statistic
    assert c.rank_p == pytest.approx(wil.pvalue, rel=1e-12)
    d = a - b
    j = math.exp(math.lgamma((9) / 2) - math.lgamma(8 / 2)) / math.sqrt(9 / 2)
    assert c.hedges_g == pytest.approx(j * d.mean() / d.std(ddof=1), rel=1e-12)


def test_paper_relative_difference_convention():
    # "adaptive schedule reduced median validation RMSE from 0.1562 to 0.1516 (3.0 %)"
    c = S.compare([0.1516, 0.1516, 0.1516], [0.1562, 0.1562, 0.1562], n_boot=0)
    assert c.median_diff_pct == pytest.approx(-2.945, abs=1e-3)
    assert round(-c.median_diff_pct, 1) == 2.9  # the paper's 3.0 % is a rounding of 2.94 %
    # "BCLS remained approximately 24.0 % more accurate than median RLS-AGWO"
    c = S.compare([0.1152, 0.1152], [0.1516, 0.1516], n_boot=0)
    assert round(-c.median_diff_pct, 1) == 24.0


# --------------------------------------------------------------------------------------
# effect sizes against independent formulas
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("a", "b"), [(A, B), (C, D), (D, C), (C, C)])
def test_cliffs_delta_equals_double_loop(a, b):
    assert S.cliffs_delta(a, b) == pytest.approx(_brute_cliffs_delta(a, b), abs=1e-15)
    # and the identity delta = 2U/(n_a n_b) - 1 with scipy's U
    u = sps.mannwhitneyu(a, b).statistic
    assert S.cliffs_delta(a, b) == pytest.approx(2 * u / (len(a) * len(b)) - 1, abs=1e-15)


@pytest.mark.parametrize(("a", "b"), [(A, B), (C, D), (B, C)])
def test_hedges_g_equals_textbook_exact_gamma(a, b):
    g = S.hedges_g(a, b)
    assert g == pytest.approx(_textbook_hedges_g(a, b), rel=1e-12)
    # the exact J is close to the usual approximation 1 - 3/(4(n1+n2) - 9)
    n = len(a) + len(b)
    d = _textbook_hedges_g(a, b) / (
        math.exp(math.lgamma((n - 2) / 2) - math.lgamma((n - 3) / 2)) / math.sqrt((n - 2) / 2)
    )
    assert g == pytest.approx(d * (1 - 3 / (4 * n - 9)), rel=2e-3)
    assert S.compare(a, b, n_boot=0).hedges_g == g


# --------------------------------------------------------------------------------------
# degenerate inputs
# --------------------------------------------------------------------------------------


def test_two_deterministic_methods_give_nan_not_fake_p():
    # np.var of 30 copies of 0.1152 is ~1e-33, and scipy would report t ~ -1e15, p = 0.
    c = S.compare(np.full(30, 0.1152), np.full(30, 0.2), n_boot=500)
    assert math.isnan(c.t_stat) and math.isnan(c.t_p)
    assert math.isnan(c.rank_stat) and math.isnan(c.rank_p)
    assert math.isnan(c.hedges_g)
    assert "zero variance in both groups" in c.note
    assert c.median_diff == pytest.approx(0.1152 - 0.2)
    assert c.cliffs_delta == -1.0
    assert c.boot_ci_low == c.boot_ci_high == pytest.approx(0.1152 - 0.2)


def test_identical_constant_groups():
    c = S.compare(np.full(5, 1.0), np.full(5, 1.0), n_boot=100)
    assert math.isnan(c.t_p) and math.isnan(c.rank_p) and c.cliffs_delta == 0.0
    assert c.median_diff == 0.0


def test_one_deterministic_group_is_a_one_sample_test(recwarn):
    bcls = np.full(30, 0.1152)
    pso = generator("test", "stats", "pso").lognormal(np.log(0.19), 0.6, size=30)
    c = S.compare(pso, bcls, n_boot=200)
    ref = sps.ttest_1samp(pso, 0.1152)
    assert c.t_stat == pytest.approx(ref.statistic, rel=1e-9)
    assert c.t_p == pytest.approx(ref.pvalue, rel=1e-6)
    wilcoxon = sps.wilcoxon(pso - 0.1152)
    assert (c.rank_stat, c.rank_p) == pytest.approx((wilcoxon.statistic, wilcoxon.pvalue))
    assert "b is a constant" in c.note
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


@pytest.mark.parametrize("copies", [None, 2, 5, 300])
def test_a_constant_compares_alike_however_many_copies_are_given(copies):
    """A deterministic method's value (a scalar, or repeated runs) is a constant: the tests,
    Hedges g, Cliff's delta and the interval do not change with the number of copies (a
    Mann-Whitney U against 300 copies gave p ~ 0 where 5 copies gave 0.10), and the constant
    may stand on either side (the signed results flip)."""
    pso = generator("test", "stats", "copies").normal(0.4, 1.0, size=30)
    constant = 0.0 if copies is None else np.zeros(copies)
    c = S.compare(pso, constant, n_boot=300)
    t, rank = sps.ttest_1samp(pso, 0.0), sps.wilcoxon(pso)
    expected = (t.statistic, t.pvalue, rank.statistic, rank.pvalue)
    assert (c.t_stat, c.t_p, c.rank_stat, c.rank_p) == pytest.approx(expected, rel=1e-12)
    one_sample_g = _hedges_j(29.0) * pso.mean() / pso.std(ddof=1)
    assert c.hedges_g == pytest.approx(one_sample_g, rel=1e-12)
    assert c.cliffs_delta == pytest.approx(np.mean(np.sign(pso)))
    medians = S.bootstrap_median_diff(pso, [0.0, 0.0], n_boot=300)
    assert (c.boot_ci_low, c.boot_ci_high) == tuple(np.quantile(medians, [0.025, 0.975]))
    flipped = S.compare(constant, pso, n_boot=300)
    assert (flipped.t_stat, flipped.hedges_g) == pytest.approx((-c.t_stat, -c.hedges_g))
    assert (flipped.t_p, flipped.rank_p) == pytest.approx((c.t_p, c.rank_p))
    assert "a is a constant" in flipped.note
    assert (c.t_test, c.rank_test) == ("one-sample-t", "wilcoxon")


def test_paired_scalars_pair_with_nothing():
    """paired=True keeps pairs: two single values give NaN tests and no interval (a scalar is a
    constant only for independent groups)."""
    c = S.compare(0.1, 0.15, paired=True, n_boot=50)
    assert math.isnan(c.t_p) and math.isnan(c.rank_p) and math.isnan(c.boot_ci_low)
    assert (c.t_test, c.rank_test) == ("paired-t", "wilcoxon")


@pytest.mark.parametrize(("a", "b"), [([1.0], [2.0, 3.0, 4.0]), ([], [1.0, 2.0]), ([1.0], [2.0])])
def test_small_n_gives_nan_with_reason(a, b):
    c = S.compare(a, b)
    for value in (c.t_stat, c.t_p, c.rank_stat, c.rank_p, c.hedges_g, c.boot_ci_low):
        assert math.isnan(value)
    assert "n < 2" in c.note and "bootstrap" in c.note


def test_paired_degenerate():
    a = np.array([1.0, 2.0, 3.0, 4.0])
    c = S.compare(a, a, paired=True, n_boot=50)
    assert math.isnan(c.t_p) and math.isnan(c.rank_p) and "all paired differences" in c.note
    c = S.compare(a + 0.5, a, paired=True, n_boot=50)  # constant non-zero shift
    assert math.isnan(c.t_p) and "zero variance" in c.note
    assert c.rank_p == pytest.approx(sps.wilcoxon(a + 0.5, a).pvalue)
    c = S.compare([1.0], [2.0], paired=True)
    assert math.isnan(c.t_p) and "n < 2 pairs" in c.note
    with pytest.raises(ValueError, match="equal lengths"):
        S.compare([1.0, 2.0], [1.0], paired=True)


def test_zero_median_b_and_bad_inputs():
    c = S.compare([1.0, 2.0, 3.0], [-1.0, 0.0, 1.0], n_boot=0)
    assert math.isnan(c.median_diff_pct) and "median_b is zero" in c.note
    # a negative median_b: the difference in % of its size keeps the difference's sign
    c = S.compare([-3.0, -3.2, -2.8], [-2.0, -2.1, -1.9], n_boot=0)
    assert c.median_diff == pytest.approx(-1.0) and c.median_diff_pct == pytest.approx(-50.0)
    # two pairs: one degree of freedom, where Hedges' J(1) = 0 would report g = 0: undefined
    assert math.isnan(S.hedges_g([1.0, 2.0], [0.0, 0.0], paired=True))
    with pytest.raises(ValueError, match="non-finite"):
        S.compare([1.0, np.inf], [1.0, 2.0])
    with pytest.raises(ValueError, match="n_boot"):
        S.compare(A, B, n_boot=-1)
    with pytest.raises(ValueError, match="confidence"):
        S.compare(A, B, confidence=1.5)


# --------------------------------------------------------------------------------------
# bootstrap
# --------------------------------------------------------------------------------------


def test_bootstrap_ci_covers_true_difference_for_separated_samples():
    rng = generator("test", "stats", "separated")
    a = rng.normal(10.0, 1.0, size=30)
    b = rng.normal(0.0, 1.0, size=30)
    c = S.compare(a, b)
    assert c.boot_ci_low < 10.0 < c.boot_ci_high
    assert c.boot_ci_low > 5.0  # clearly excludes zero
    assert c.boot_ci_low <= c.median_diff <= c.boot_ci_high


def test_bootstrap_is_reproducible_and_keyed():
    first = S.compare(A, B, seed_keys=("study", 1))
    again = S.compare(A, B, seed_keys=("study", 1))
    other = S.compare(A, B, seed_keys=("study", 2))
    assert (first.boot_ci_low, first.boot_ci_high) == (again.boot_ci_low, again.boot_ci_high)
    assert (first.boot_ci_low, first.boot_ci_high) != (other.boot_ci_low, other.boot_ci_high)
    r1 = S.bootstrap_median_diff(A, B, seed_keys=("study", 1), name_a="x", name_b="y")
    r2 = S.bootstrap_median_diff(A, B, seed_keys=("study", 1), name_a="x", name_b="z")
    assert not np.array_equal(r1, r2)  # the names are part of the stream


def test_a_stream_without_a_name_is_refused():
    """No keys would be one fixed stream shared by every caller that forgot its name."""
    from paramid import seeding

    with pytest.raises(ValueError, match="at least one key"):
        seeding.seed_sequence()


def test_bootstrap_draws_from_named_streams():
    n_boot = 7
    reps = S.bootstrap_median_diff(A, B, n_boot=n_boot, seed_keys=("k",), name_a="p", name_b="q")
    ia = generator("k", "p", "q", "a").integers(0, A.size, size=(n_boot, A.size))
    ib = generator("k", "p", "q", "b").integers(0, B.size, size=(n_boot, B.size))
    expected = np.median(A[ia], axis=1) - np.median(B[ib], axis=1)
    np.testing.assert_array_equal(reps, expected)
    # paired: one index set for both groups
    b = A + 0.01 * np.arange(A.size)
    reps = S.bootstrap_median_diff(A, b, paired=True, n_boot=n_boot, seed_keys=("k",))
    idx = generator("k", "a", "b", "pairs").integers(0, A.size, size=(n_boot, A.size))
    np.testing.assert_array_equal(reps, np.median(A[idx], axis=1) - np.median(b[idx], axis=1))


@pytest.mark.parametrize("paired", [False, True])
def test_bootstrap_chunking_does_not_change_replicates(monkeypatch, paired):
    full = S.bootstrap_median_diff(A, A[::-1], paired=paired, n_boot=1001)
    monkeypatch.setattr(S, "_BOOT_CHUNK_ELEMENTS", 70)  # odd chunk sizes, many chunks
    chunked = S.bootstrap_median_diff(A, A[::-1], paired=paired, n_boot=1001)
    np.testing.assert_array_equal(full, chunked)


def _diff(x, y, axis=-1):
    return np.median(x, axis=axis) - np.median(y, axis=axis)


def test_bootstrap_interval_is_scipys_percentile_interval():
    # paired: one scipy.stats.bootstrap call on the "pairs" stream gives the same interval
    x = generator("test", "stats", "paired-ci").normal(size=30)
    y = x + generator("test", "stats", "paired-ci-b").normal(0.2, 0.5, size=30)
    c = S.compare(x, y, paired=True, n_boot=5000, seed_keys=("k",), name_a="p", name_b="q")
    ref = sps.bootstrap(
        (x, y),
        _diff,
        paired=True,
        n_resamples=5000,
        vectorized=True,
        method="percentile",
        rng=generator("k", "p", "q", "pairs"),
    ).confidence_interval
    assert (c.boot_ci_low, c.boot_ci_high) == (ref.low, ref.high)


def test_bootstrap_agrees_with_scipys_two_sample_bootstrap():
    # scipy's own two-sample bootstrap (both groups from one generator) on other draws:
    # the same resampling scheme, so the intervals agree within Monte Carlo error
    rng = generator("test", "stats", "scipy-boot")
    a = rng.lognormal(np.log(0.15), 0.3, size=30)
    b = rng.lognormal(np.log(0.19), 0.3, size=30)
    c = S.compare(a, b, n_boot=20_000)
    ref = sps.bootstrap(
        (a, b),
        _diff,
        n_resamples=20_000,
        vectorized=True,
        method="percentile",
        rng=generator("test", "stats", "scipy-boot-ref"),
    )
    width = c.boot_ci_high - c.boot_ci_low
    assert c.boot_ci_low == pytest.approx(ref.confidence_interval.low, abs=0.03 * width)
    assert c.boot_ci_high == pytest.approx(ref.confidence_interval.high, abs=0.03 * width)
    reps = S.bootstrap_median_diff(a, b, n_boot=20_000)
    assert np.std(reps, ddof=1) == pytest.approx(ref.standard_error, rel=0.03)


# --------------------------------------------------------------------------------------
# Holm
# --------------------------------------------------------------------------------------


def test_holm_textbook_examples():
    # R: p.adjust(c(0.01, 0.02, 0.03, 0.04, 0.05), "holm") -> 0.05 0.08 0.09 0.09 0.09
    np.testing.assert_allclose(
        S.holm([0.01, 0.02, 0.03, 0.04, 0.05]), [0.05, 0.08, 0.09, 0.09, 0.09], rtol=1e-12
    )
    # unsorted input; by hand: sorted 0.005, 0.01, 0.03, 0.04 -> 4*.005=.02, 3*.01=.03,
    # 2*.03=.06, max(.06, 1*.04)=.06
    np.testing.assert_allclose(S.holm([0.01, 0.04, 0.03, 0.005]), [0.03, 0.06, 0.06, 0.02])
    # capped at one
    np.testing.assert_allclose(S.holm([0.4, 0.6, 0.9]), [1.0, 1.0, 1.0])


def test_holm_nan_aware_and_shapes():
    out = S.holm([0.01, np.nan, 0.04, np.nan, 0.03])
    assert np.isnan(out[1]) and np.isnan(out[3])
    np.testing.assert_allclose(out[[0, 2, 4]], S.holm([0.01, 0.04, 0.03]))  # family of 3
    assert S.holm([]).shape == (0,)
    assert np.all(np.isnan(S.holm([np.nan, np.nan])))
    assert S.holm(np.array([[0.01, 0.02], [0.03, 0.04]])).shape == (2, 2)
    with pytest.raises(ValueError):
        S.holm([0.5, 1.2])


def test_holm_against_statsmodels():
    from statsmodels.stats.multitest import multipletests  # the test extra installs it

    p = generator("test", "stats", "holm").uniform(size=25) ** 3
    np.testing.assert_allclose(S.holm(p), multipletests(p, method="holm")[1])


pvals = st.lists(st.one_of(st.floats(0.0, 1.0), st.just(float("nan"))), min_size=0, max_size=20)


@settings(max_examples=200, deadline=None)
@given(pvals)
def test_holm_invariants(p):
    p = np.array(p, dtype=float)
    adj = S.holm(p)
    ok = ~np.isnan(p)
    assert np.array_equal(np.isnan(adj), ~ok)
    raw, a = p[ok], adj[ok]
    assert np.all(a >= raw) and np.all(a <= 1.0)
    order = np.argsort(raw, kind="stable")
    assert np.all(np.diff(a[order]) >= 0.0)  # monotone in the order of the raw p-values
    np.testing.assert_allclose(a, _hand_holm(list(raw)), rtol=1e-12, atol=0)


# --------------------------------------------------------------------------------------
# hypothesis invariants of the comparison
# --------------------------------------------------------------------------------------

samples = st.lists(
    st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False), min_size=1, max_size=15
)


@settings(max_examples=200, deadline=None)
@given(samples, samples)
def test_cliffs_delta_antisymmetric_bounded(a, b):
    d = S.cliffs_delta(a, b)
    assert -1.0 <= d <= 1.0
    assert d == -S.cliffs_delta(b, a)
    assert d == pytest.approx(_brute_cliffs_delta(np.array(a), np.array(b)), abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(samples, samples)
def test_compare_swap_invariants(a, b):
    ab = S.compare(a, b, n_boot=20)
    ba = S.compare(b, a, n_boot=20)
    assert ab.median_diff == -ba.median_diff
    assert ab.cliffs_delta == -ba.cliffs_delta
    np.testing.assert_allclose(ab.hedges_g, -ba.hedges_g, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ab.t_p, ba.t_p, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(ab.rank_p, ba.rank_p, rtol=1e-9, atol=1e-15)
    for p in (ab.t_p, ab.rank_p):
        assert math.isnan(p) or 0.0 <= p <= 1.0
    if math.isnan(ab.t_p) or math.isnan(ab.rank_p):
        assert ab.note
    if not math.isnan(ab.boot_ci_low):
        assert ab.boot_ci_low <= ab.boot_ci_high


# --------------------------------------------------------------------------------------
# comparison_table and outlier_fraction
# --------------------------------------------------------------------------------------


def _groups() -> dict[str, np.ndarray]:
    rng = generator("test", "stats", "table")
    return {
        "bcls": np.full(30, 0.1152),
        "ls": np.full(30, 0.1152),
        "pso": rng.lognormal(np.log(0.19), 0.8, size=30),
        "rls_gwo": rng.normal(0.155, 0.017, size=30),
        "rls_agwo": rng.normal(0.150, 0.020, size=30),
    }


def test_comparison_table_columns_values_and_holm():
    groups = _groups()
    pairs = [("rls_agwo", "rls_gwo"), ("rls_agwo", "bcls"), ("pso", "bcls"), ("ls", "bcls")]
    table = S.comparison_table(groups, pairs, n_boot=300, seed_keys=("t",))
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == list(S.TABLE_COLUMNS)
    assert len(table) == len(pairs)
    for (name_a, name_b), (_, row) in zip(pairs, table.iterrows(), strict=True):
        c = S.compare(
            groups[name_a],
            groups[name_b],
            name_a=name_a,
            name_b=name_b,
            n_boot=300,
            seed_keys=("t",),
        )
        assert (row["a"], row["b"], row["n_a"], row["n_b"]) == (name_a, name_b, 30, 30)
        np.testing.assert_equal(
            row[["t_stat", "t_p", "rank_stat", "rank_p", "boot_ci_low", "boot_ci_high"]].to_numpy(
                dtype=float
            ),
            [c.t_stat, c.t_p, c.rank_stat, c.rank_p, c.boot_ci_low, c.boot_ci_high],
        )
        assert row["note"] == c.note
    np.testing.assert_allclose(table["holm_t_p"], S.holm(table["t_p"]))
    np.testing.assert_allclose(table["holm_rank_p"], S.holm(table["rank_p"]))
    last = table.iloc[-1]  # ls vs bcls: two deterministic methods
    assert np.isnan(last["t_p"]) and np.isnan(last["holm_t_p"])
    assert "zero variance in both groups" in last["note"]
    # the NaN row is not part of the Holm family: three finite p-values
    finite = table["t_p"].notna()
    np.testing.assert_allclose(table.loc[finite, "holm_t_p"], S.holm(table.loc[finite, "t_p"]))


def test_comparison_table_paired_and_errors():
    groups = _groups()
    table = S.comparison_table(groups, [("rls_agwo", "rls_gwo")], paired=True, n_boot=50)
    assert table.loc[0, "test"] == "paired-t / wilcoxon"
    unpaired = S.comparison_table(groups, [("rls_agwo", "rls_gwo")], n_boot=0)
    assert unpaired.loc[0, "test"] == "welch / mann-whitney"
    ref = sps.ttest_rel(groups["rls_agwo"], groups["rls_gwo"])
    assert table.loc[0, "t_p"] == pytest.approx(ref.pvalue)
    with pytest.raises(KeyError, match="unknown"):
        S.comparison_table(groups, [("rls_agwo", "nope")])
    empty = S.comparison_table(groups, [])
    assert list(empty.columns) == list(S.TABLE_COLUMNS) and len(empty) == 0


def test_outlier_fraction():
    values = np.array([0.10, 0.2304, 0.2305, 0.5, 1.2])
    assert S.outlier_fraction(values, 0.1152) == pytest.approx(3 / 5)  # strictly > 0.2304
    assert S.outlier_fraction(values, 0.1152, factor=5.0) == pytest.approx(1 / 5)
    assert math.isnan(S.outlier_fraction([], 0.1152))
    with pytest.raises(ValueError):
        S.outlier_fraction([0.1, np.nan], 0.1152)
    with pytest.raises(ValueError):
        S.outlier_fraction([0.1], np.nan)


def test_sd_is_exactly_zero_for_identical_runs_and_numpy_otherwise():
    runs = generator("test", "stats", "sd").normal(0.0, 2.0, size=7)
    assert S.sd(runs) == pytest.approx(statistics.stdev(runs.tolist()), rel=1e-12)
    copies = np.full(30, 0.1152)
    assert np.std(copies, ddof=1) > 0 and S.sd(copies) == 0.0  # numpy's is rounding
    assert math.isnan(S.sd([1.0])) and S.summarise(copies).sd == 0.0


@pytest.mark.parametrize(
    ("values", "position"),
    [([3.0, 1.0, 2.0], 2), ([4.0, 1.0, 3.0, 2.0], 3), ([2.0, 1.0, 2.0, 2.0], 0), ([5.0], 0)],
)
def test_median_position_is_the_lower_middle_run_first_of_equals(values, position):
    by_value = sorted(range(len(values)), key=lambda i: (values[i], i))
    assert by_value[(len(values) - 1) // 2] == position  # the definition, written out
    assert S.median_position(values) == position
    assert S.median_position(values, upper=True) == by_value[len(values) // 2]


def test_runs_equal_up_to_rounding_compare_without_a_warning(recwarn):
    """Runs that converged to one optimum differ by rounding: scipy's "Precision loss" stayed
    out of the job logs before the constant path, and stays out now (11 lines in one log)."""
    optimum = 0.1152 + np.array([0.0, 2.8e-17, -2.8e-17, 0.0] * 5)
    spread = generator("test", "stats", "rounding").normal(0.2, 0.05, size=20)
    S.compare(spread, optimum, n_boot=50)
    assert not [w for w in recwarn if "Precision loss" in str(w.message)]


@settings(max_examples=60, deadline=None)
@given(
    rows=st.integers(1, 4),
    n=st.integers(1, 12),
    levels=st.integers(1, 6),
    seed=st.integers(0, 2**32 - 1),
    axis=st.sampled_from([0, 1, -1]),
)
def test_sorted_median_is_numpys_median_bit_for_bit(rows, n, levels, seed, axis):
    rng = np.random.default_rng(seed)
    # few distinct levels give ties; the scale gives sums that round
    x = rng.integers(0, levels, (rows, n)) * 0.1 + rng.standard_normal((rows, n)) * 1e3 * (
        levels > 3
    )
    got, want = S.sorted_median(x, axis=axis), np.median(x, axis=axis)
    assert got.shape == want.shape
    assert got.tobytes() == want.tobytes()
