"""Repeated-run statistics: summaries, two-group comparisons, Holm adjustment.

Pure functions over numpy arrays.  Every hypothesis test is delegated to :mod:`scipy.stats`
(imported by the functions that test: a job that only summarises runs does not load it);
every random draw (the bootstrap, resampled by :func:`scipy.stats.bootstrap`) comes from a named
stream of :mod:`paramid.seeding`.

Sign conventions, used throughout: a comparison of ``a`` against ``b`` reports
``median(a) - median(b)``, and every effect size is positive when ``a`` tends to be larger.
For error metrics such as validation RMSE a negative value therefore means "``a`` is better".

Degenerate inputs never raise and never produce a made-up p-value: when a test is undefined
(fewer than two runs in a group, zero variance in both groups, all paired differences zero,
...) its statistic and p-value are NaN and :attr:`Comparison.note` says why.  A deterministic
method is a constant, not a sample: given as one number, or as runs that are all equal, it is
compared by one-sample tests of the other group against it, whose results do not depend on
how many copies of the constant were passed.  Non-finite
values (NaN, inf) are rejected with :class:`ValueError` instead of being dropped silently:
a failed run must be handled explicitly by the caller.
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.seeding import Key, generator

DEFAULT_SEED_KEYS: tuple[Key, ...] = ("stats", "compare")

#: Columns of :func:`comparison_table`, in order.
TABLE_COLUMNS: tuple[str, ...] = (
    *("a", "b", "n_a", "n_b", "median_a", "median_b", "median_diff", "median_diff_pct"),
    *("test", "t_stat", "t_p", "rank_stat", "rank_p", "holm_t_p", "holm_rank_p"),
    *("hedges_g", "cliffs_delta", "boot_ci_low", "boot_ci_high", "note"),
)

# Upper bound on the number of resampled values held in memory at once by the bootstrap.
_BOOT_CHUNK_ELEMENTS = 4_000_000

_NAN = float("nan")


def _as_sample(values: ArrayLike, name: str = "values") -> NDArray[np.float64]:
    """1-D float64 copy of ``values``; raises on non-finite entries or wrong dimension."""
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        bad = int(np.count_nonzero(~np.isfinite(arr)))
        raise ValueError(f"{name} contains {bad} non-finite value(s); drop or handle them first")
    return arr


def _is_constant(x: NDArray[np.float64]) -> bool:
    """True when all values are bit-identical (exact test, not ``var == 0``).

    ``np.var`` of thirty copies of 0.1152 is about 1e-33, not 0, which makes scipy return
    t ~ 1e15 and p = 0 for two deterministic methods; comparing the range avoids that.
    """
    return x.size > 0 and bool(np.ptp(x) == 0.0)


def _is_reference(values: ArrayLike, x: NDArray[np.float64]) -> bool:
    """True for a deterministic method's value: a scalar, or two or more bit-identical runs
    (one array value may be a single run of a stochastic method: not a constant)."""
    return np.ndim(values) == 0 or (x.size >= 2 and _is_constant(x))


# --------------------------------------------------------------------------------------
# Summary
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Summary:
    """Descriptive statistics of one set of runs (Table 3 style).

    ``sd`` uses ``ddof=1`` (NaN for n < 2, exactly 0 for identical runs: :func:`sd`).
    ``q1``/``q3`` are the 25th/75th percentiles with numpy's default ``method="linear"``
    (type 7 of Hyndman & Fan 1996, R's default), so the IQR is ``q3 - q1``.  All fields are
    NaN for an empty sample.
    """

    n: int
    mean: float
    sd: float
    median: float
    q1: float
    q3: float
    min: float
    max: float

    @property
    def iqr(self) -> float:
        """Interquartile range ``q3 - q1``."""
        return self.q3 - self.q1


def sd(values: ArrayLike) -> float:
    """SD over runs (ddof=1): exactly 0 for bit-identical runs (a deterministic method's ~1e-17
    is rounding, not spread), NaN for fewer than two."""
    x = _as_sample(values)
    if x.size < 2:
        return _NAN
    return 0.0 if _is_constant(x) else float(np.std(x, ddof=1))


def median_position(values: ArrayLike, upper: bool = False) -> int:
    """Position of the run with the median value: the lower of the two middle runs for an
    even count (the ``upper`` one if asked), the first of equal values (Table 4's median run)."""
    x = _as_sample(values)
    if x.size == 0:
        raise ValueError("no runs: no median run")
    return int(np.argsort(x, kind="stable")[x.size // 2 if upper else (x.size - 1) // 2])


def summarise(values: ArrayLike) -> Summary:
    """Summarise a sample: n, mean, SD (ddof=1), median, linear-interpolated Q1/Q3, min, max.

    Raises :class:`ValueError` if ``values`` contains NaN or inf.
    """
    x = _as_sample(values)
    n = int(x.size)
    if n == 0:
        return Summary(0, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN, _NAN)
    q1, med, q3 = np.percentile(x, [25.0, 50.0, 75.0])
    return Summary(
        n=n,
        mean=float(np.mean(x)),
        sd=sd(x),
        median=float(med),
        q1=float(q1),
        q3=float(q3),
        min=float(np.min(x)),
        max=float(np.max(x)),
    )


# --------------------------------------------------------------------------------------
# Effect sizes
# --------------------------------------------------------------------------------------


def _hedges_correction(df: float) -> float:
    """Exact small-sample correction J(df) = Γ(df/2) / (sqrt(df/2) Γ((df-1)/2)).

    Hedges (1981), J. Educ. Stat. 6(2):107-128, eq. 6e; Hedges & Olkin (1985), p. 80.
    It is well approximated by 1 - 3/(4 df - 1); for two groups df = n1 + n2 - 2, which
    gives the familiar 1 - 3/(4(n1 + n2) - 9).  Computed through log-gamma for stability.
    """
    from scipy import special

    if df <= 1:
        return _NAN
    return float(
        np.exp(special.gammaln(df / 2.0) - special.gammaln((df - 1.0) / 2.0)) / np.sqrt(df / 2.0)
    )


def hedges_g(a: ArrayLike, b: ArrayLike, *, paired: bool = False) -> float:
    """Bias-corrected standardised mean difference (Hedges g), positive when mean(a) > mean(b).

    Independent groups: ``g = J(n_a + n_b - 2) * (mean(a) - mean(b)) / s_p`` with the pooled
    SD ``s_p = sqrt(((n_a-1) s_a^2 + (n_b-1) s_b^2) / (n_a + n_b - 2))`` (Hedges 1981;
    Hedges & Olkin 1985, eqs. 5.3-5.4), ``J`` the exact gamma-function correction
    (:func:`_hedges_correction`).

    Paired samples: ``g_z = J(n - 1) * mean(d) / sd(d)`` with ``d = a - b`` (the
    standardiser of the paired t-test; Lakens 2013, Front. Psychol. 4:863, eq. 7).

    One group a constant c (a scalar, or all its runs equal; :func:`compare`): the one-sample
    ``J(n - 1) * (mean(x) - c) / sd(x)`` of the other group x, signed as a - b (the
    standardiser of the one-sample t-test; a pooled SD would shrink with each copy of c).

    NaN when undefined: fewer than two runs in a group (pairs), or a zero standardiser.
    """
    x = _as_sample(a, "a")
    y = _as_sample(b, "b")
    a_fixed = _is_reference(a, x)
    if not paired and a_fixed != _is_reference(b, y):
        sample, constant, sign = (y, x[0], -1.0) if a_fixed else (x, y[0], 1.0)
        spread = sd(sample)  # 0 for identical runs, NaN for one
        if not spread > 0:
            return _NAN
        effect = (np.mean(sample) - constant) / spread
        return float(sign * _hedges_correction(sample.size - 1.0) * effect)
    if paired:
        if x.size != y.size:
            raise ValueError(f"paired samples need equal lengths, got {x.size} and {y.size}")
        d = x - y
        spread = sd(d)
        if not spread > 0:
            return _NAN
        return float(_hedges_correction(d.size - 1.0) * np.mean(d) / spread)
    n_a, n_b = x.size, y.size
    if n_a < 2 or n_b < 2 or (_is_constant(x) and _is_constant(y)):
        return _NAN
    df = n_a + n_b - 2.0
    pooled = np.sqrt(((n_a - 1) * np.var(x, ddof=1) + (n_b - 1) * np.var(y, ddof=1)) / df)
    if not pooled > 0:  # variances below the float range
        return _NAN
    return float(_hedges_correction(df) * (np.mean(x) - np.mean(y)) / pooled)


def cliffs_delta(a: ArrayLike, b: ArrayLike) -> float:
    """Cliff's δ = P(A > B) - P(A < B) over all n_a·n_b cross pairs (Cliff 1993, Psychol. Bull.
    114(3):494-509), in [-1, 1], positive when ``a`` tends to be larger; ties count zero.

    Equals ``2 U_a / (n_a n_b) - 1`` with U_a the Mann-Whitney statistic of ``a``.  Computed in
    O((n_a + n_b) log n_b) with sorted search; NaN if either sample is empty.
    """
    x = _as_sample(a, "a")
    y = _as_sample(b, "b")
    if x.size == 0 or y.size == 0:
        return _NAN
    ys = np.sort(y)
    below = np.searchsorted(ys, x, side="left")  # number of b strictly less than each a
    not_above = np.searchsorted(ys, x, side="right")  # number of b <= each a
    greater = int(below.sum())
    less = int((y.size - not_above).sum())
    return (greater - less) / float(x.size * y.size)


# --------------------------------------------------------------------------------------
# Bootstrap
# --------------------------------------------------------------------------------------


def _check_n_boot(n_boot: int) -> int:
    """Validate the replicate count (a non-negative integer) and return it as ``int``."""
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 0:
        raise ValueError(f"n_boot must be a non-negative integer, got {n_boot!r}")
    return int(n_boot)


def _replicates(
    data: tuple[NDArray[np.float64], ...],
    statistic: Callable[..., NDArray],
    n_boot: int,
    rng: np.random.Generator,
    *,
    paired: bool = False,
) -> NDArray[np.float64]:
    """``n_boot`` replicates of ``statistic`` by :func:`scipy.stats.bootstrap`, in batches of at
    most ``_BOOT_CHUNK_ELEMENTS`` values.  Each batch's indices are one ``rng.integers(0, n,
    (batch, n))`` call, filled in C order: the replicates do not depend on the batch size.
    (scipy's standard error, unused, has no degrees of freedom for n_boot = 1: silenced.)"""
    from scipy import stats as sps

    batch = max(1, _BOOT_CHUNK_ELEMENTS // sum(d.size for d in data))
    with warnings.catch_warnings(), np.errstate(invalid="ignore"):
        warnings.filterwarnings("ignore", "Degrees of freedom", RuntimeWarning)
        result = sps.bootstrap(
            data,
            statistic,
            n_resamples=n_boot,
            batch=batch,
            vectorized=True,
            paired=paired,
            method="percentile",
            rng=rng,
        )
    return np.asarray(result.bootstrap_distribution, dtype=np.float64)


def bootstrap_median_diff(
    a: ArrayLike,
    b: ArrayLike,
    *,
    paired: bool = False,
    n_boot: int = 10_000,
    seed_keys: Sequence[Key] = DEFAULT_SEED_KEYS,
    name_a: str = "a",
    name_b: str = "b",
) -> NDArray[np.float64]:
    """Bootstrap replicates of ``median(a) - median(b)``, resampled by ``scipy.stats.bootstrap``.

    Independent groups are resampled independently, ``a`` from stream
    ``(*seed_keys, name_a, name_b, "a")`` and ``b`` from ``(*seed_keys, name_a, name_b, "b")``:
    two one-sample bootstraps of the median, subtracted (one two-sample call would draw both
    groups from one generator, interleaved by batch: its replicates would depend on the batch
    size).  Paired samples resample whole pairs (scipy's ``paired=True``) from stream
    ``(*seed_keys, name_a, name_b, "pairs")``.  Returns an empty array when ``n_boot == 0``.
    """
    x = _as_sample(a, "a")
    y = _as_sample(b, "b")
    n_boot = _check_n_boot(n_boot)
    if x.size == 0 or y.size == 0:
        raise ValueError("bootstrap needs non-empty samples")
    if paired and x.size != y.size:
        raise ValueError(f"paired samples need equal lengths, got {x.size} and {y.size}")
    if n_boot == 0:
        return np.empty(0)
    keys = (*seed_keys, name_a, name_b)
    if paired:
        diff = lambda u, v, axis: sorted_median(u, axis) - sorted_median(v, axis)  # noqa: E731
        return _replicates((x, y), diff, n_boot, generator(*keys, "pairs"), paired=True)
    med_a = _medians(x, n_boot, generator(*keys, "a"))
    med_b = _medians(y, n_boot, generator(*keys, "b"))
    return med_a - med_b


def _medians(x: NDArray[np.float64], n_boot: int, rng: np.random.Generator) -> NDArray[np.float64]:
    """Bootstrap replicates of the median of ``x``; a constant's are the constant (exactly
    what resampling it gives, also for a single value)."""
    if _is_constant(x):
        return np.full(n_boot, x[0])
    return _replicates((x,), sorted_median, n_boot, rng)


def sorted_median(x: NDArray[np.float64], axis: int = -1) -> NDArray[np.float64]:
    """``np.median(x, axis)`` of finite data, bit for bit, from a sort: the middle value, or the
    two middle values' sum halved (what ``np.median`` computes after its partition). On the
    bootstrap's batches of 10-100 values a sort is ~9x faster than that partition at two ranks."""
    ordered = np.sort(x, axis=axis)
    half = ordered.shape[axis] // 2
    upper = np.take(ordered, half, axis=axis)
    if ordered.shape[axis] % 2:
        return upper
    return (np.take(ordered, half - 1, axis=axis) + upper) / 2


# --------------------------------------------------------------------------------------
# Two-group comparison
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Comparison:
    """Result of :func:`compare` for ``a`` against ``b`` (differences are ``a - b``).

    Fields:
        name_a, name_b: labels of the two groups.
        paired: whether the paired tests were used.
        n_a, n_b: sample sizes.
        median_a, median_b: sample medians (NaN for an empty group).
        median_diff: ``median_a - median_b``.
        median_diff_pct: ``100 * median_diff / |median_b|`` (NaN if ``median_b == 0``).
        t_test: ``"welch"`` (scipy ``ttest_ind(equal_var=False)``), ``"paired-t"``
            (scipy ``ttest_rel``) or ``"one-sample-t"`` (``ttest_1samp``, against a constant).
        t_stat, t_p: its statistic and two-sided p-value.
        rank_test: ``"mann-whitney"`` (scipy ``mannwhitneyu``, two-sided, default
            ``method="auto"``, U reported for ``a``) or ``"wilcoxon"`` (scipy ``wilcoxon``
            signed-rank on ``a - b``, paired or against a constant, two-sided,
            ``zero_method="wilcox"``).
        rank_stat, rank_p: its statistic and p-value.
        hedges_g: bias-corrected standardised mean difference (see :func:`hedges_g`).
        cliffs_delta: Cliff's δ of ``a`` vs ``b`` as independent samples (also when paired).
        boot_ci_low, boot_ci_high: percentile bootstrap interval of ``median_diff``.
        confidence: nominal coverage of that interval (0.95 by default).
        n_boot: number of bootstrap replicates.
        note: semicolon-separated reasons for every NaN / caveat; ``""`` when none.
    """

    name_a: str
    name_b: str
    paired: bool
    n_a: int
    n_b: int
    median_a: float
    median_b: float
    median_diff: float
    median_diff_pct: float
    t_test: str
    t_stat: float
    t_p: float
    rank_test: str
    rank_stat: float
    rank_p: float
    hedges_g: float
    cliffs_delta: float
    boot_ci_low: float
    boot_ci_high: float
    confidence: float
    n_boot: int
    note: str


@contextlib.contextmanager
def _rounding_spread_is_known() -> Iterator[None]:
    """Silence scipy's "Precision loss" for runs that converged to one optimum and differ by
    rounding only (some of the nonlinear study's methods): their t is what the other group's
    spread makes it, as before this warning was seen."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Precision loss occurred", RuntimeWarning)
        yield


def _independent_tests(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    constant: tuple[bool, bool],
    notes: list[str],
) -> tuple[float, float, float, float]:
    """Welch t and Mann-Whitney U (statistics and p-values) or NaNs with reasons; against a
    constant (``constant``: a, b is one), :func:`_one_sample_tests`."""
    from scipy import stats as sps

    if all(constant):
        notes.append(
            "zero variance in both groups (deterministic?): tests undefined, difference is exact"
        )
        return _NAN, _NAN, _NAN, _NAN
    if constant[1] and x.size >= 2:
        return _one_sample_tests(x, float(y[0]), "b", notes)
    if constant[0] and y.size >= 2:
        t_stat, t_p, rank_stat, rank_p = _one_sample_tests(y, float(x[0]), "a", notes)
        return -t_stat, t_p, rank_stat, rank_p  # t of a - b
    if x.size < 2 or y.size < 2:
        notes.append(f"n < 2 (n_a={x.size}, n_b={y.size}): tests undefined")
        return _NAN, _NAN, _NAN, _NAN
    with _rounding_spread_is_known():
        welch = sps.ttest_ind(x, y, equal_var=False)
    mwu = sps.mannwhitneyu(x, y, alternative="two-sided")
    if np.isnan(welch.pvalue):
        notes.append("Welch t undefined: the sample variances underflow to zero")
    return float(welch.statistic), float(welch.pvalue), float(mwu.statistic), float(mwu.pvalue)


def _one_sample_tests(
    x: NDArray[np.float64], constant: float, which: str, notes: list[str]
) -> tuple[float, float, float, float]:
    """One-sample t (scipy ``ttest_1samp``) and Wilcoxon signed-rank (``wilcoxon`` of
    x - constant, two-sided, ``zero_method="wilcox"``) of the runs x against group
    ``which``'s constant: a deterministic method's value is not a sample, and neither result
    depends on how many copies of it were passed (Welch against copies of it is this t; a
    Mann-Whitney U against them would grow significant with their number)."""
    from scipy import stats as sps

    notes.append(
        f"{which} is a constant (deterministic): the other group is tested against it by a "
        "one-sample t and a Wilcoxon signed-rank"
    )
    d = x - constant
    n_zero = int(np.count_nonzero(d == 0.0))
    if n_zero:
        notes.append(f"{n_zero} run(s) equal to the constant dropped by Wilcoxon")
    with _rounding_spread_is_known():
        t = sps.ttest_1samp(x, constant)
    if n_zero == d.size:
        return float(t.statistic), float(t.pvalue), _NAN, _NAN
    rank = sps.wilcoxon(d, zero_method="wilcox", alternative="two-sided")
    return float(t.statistic), float(t.pvalue), float(rank.statistic), float(rank.pvalue)


def _paired_tests(
    x: NDArray[np.float64], y: NDArray[np.float64], notes: list[str]
) -> tuple[float, float, float, float]:
    """Paired t and Wilcoxon signed-rank (statistics and p-values) or NaNs with reasons."""
    from scipy import stats as sps

    d = x - y
    if d.size < 2:
        notes.append(f"n < 2 pairs (n={d.size}): tests undefined")
        return _NAN, _NAN, _NAN, _NAN
    if not np.any(d != 0.0):
        notes.append("all paired differences are zero: tests undefined")
        return _NAN, _NAN, _NAN, _NAN
    t_stat = t_p = _NAN
    if _is_constant(d):
        notes.append("paired differences have zero variance: paired t undefined")
    else:
        rel = sps.ttest_rel(x, y)
        t_stat, t_p = float(rel.statistic), float(rel.pvalue)
    n_zero = int(np.count_nonzero(d == 0.0))
    if n_zero:
        notes.append(f"{n_zero} zero paired difference(s) dropped by Wilcoxon (zero_method=wilcox)")
    wil = sps.wilcoxon(x, y, zero_method="wilcox", alternative="two-sided")
    return t_stat, t_p, float(wil.statistic), float(wil.pvalue)


def _median_difference(
    x: NDArray[np.float64], y: NDArray[np.float64], notes: list[str]
) -> tuple[float, float, float, float]:
    """Both medians, their difference a - b and that difference in % of |median_b|."""
    median_a = float(np.median(x)) if x.size else _NAN
    median_b = float(np.median(y)) if y.size else _NAN
    median_diff = median_a - median_b
    if y.size and median_b == 0.0:
        notes.append("median_b is zero: relative difference undefined")
        return median_a, median_b, median_diff, _NAN
    return median_a, median_b, median_diff, 100.0 * median_diff / abs(median_b)


def _bootstrap_interval(
    x: NDArray[np.float64],
    y: NDArray[np.float64],
    paired: bool,
    n_boot: int,
    seed_keys: Sequence[Key],
    names: tuple[str, str],
    confidence: float,
    constant: tuple[bool, bool],
    notes: list[str],
) -> tuple[float, float]:
    """Percentile bootstrap interval of the median difference (NaN where it is undefined;
    a constant group, ``constant``, counts as known)."""
    known = (x.size >= 2 or constant[0], y.size >= 2 or constant[1])
    if n_boot > 0 and all(known):
        boot = bootstrap_median_diff(
            x,
            y,
            paired=paired,
            n_boot=n_boot,
            seed_keys=seed_keys,
            name_a=names[0],
            name_b=names[1],
        )
        alpha = 1.0 - confidence
        low, high = np.quantile(boot, [alpha / 2.0, 1.0 - alpha / 2.0])
        return float(low), float(high)
    if n_boot > 0:
        notes.append("bootstrap CI needs n >= 2 in each group")
    return _NAN, _NAN


def compare(
    a: ArrayLike,
    b: ArrayLike,
    *,
    paired: bool = False,
    name_a: str = "a",
    name_b: str = "b",
    n_boot: int = 10_000,
    seed_keys: Sequence[Key] = DEFAULT_SEED_KEYS,
    confidence: float = 0.95,
) -> Comparison:
    """Compare the runs of method ``a`` against method ``b`` (differences are ``a - b``).

    Reports both medians, their difference and the relative difference in % of ``|median_b|``
    (so "AGWO vs GWO" with medians 0.1516 and 0.1562 gives -2.9 %), a parametric test (Welch t,
    or paired t when ``paired``), a rank test (two-sided Mann-Whitney U, or Wilcoxon
    signed-rank when ``paired``), Hedges g, Cliff's δ and a percentile bootstrap interval of
    the median difference.

    The bootstrap draws ``n_boot`` replicates from the named streams described in
    :func:`bootstrap_median_diff` (``seed_keys`` plus both names), so the interval is
    reproducible and independent across pairs of methods.  It is NaN when a group has fewer
    than two runs, or when ``n_boot == 0``.

    A deterministic method (``b`` or ``a`` a scalar, or runs that are all equal) is a
    constant: the other group is tested against it by one-sample tests (one-sample t and
    Wilcoxon signed-rank in the Welch and rank fields, one-sample Hedges g; the note says so).

    Degenerate inputs give NaN statistics plus a reason in ``note``; they never raise:
    fewer than two runs, zero variance in both groups (two deterministic methods compared via
    repeated identical values: there is nothing to test, the difference is exact), all paired
    differences zero.  Non-finite values and unequal paired lengths raise :class:`ValueError`.
    """
    x = _as_sample(a, "a")
    y = _as_sample(b, "b")
    # a deterministic method's value is a constant for two independent groups; paired runs
    # keep their pairs (a scalar pairs with nothing)
    constant = (False, False) if paired else (_is_reference(a, x), _is_reference(b, y))
    if paired and x.size != y.size:
        raise ValueError(f"paired samples need equal lengths, got {x.size} and {y.size}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must lie in (0, 1), got {confidence}")
    n_boot = _check_n_boot(n_boot)
    notes: list[str] = []

    median_a, median_b, median_diff, median_diff_pct = _median_difference(x, y, notes)
    if paired:
        t_stat, t_p, rank_stat, rank_p = _paired_tests(x, y, notes)
    else:
        t_stat, t_p, rank_stat, rank_p = _independent_tests(x, y, constant, notes)
    ci_low, ci_high = _bootstrap_interval(
        x, y, paired, n_boot, seed_keys, (name_a, name_b), confidence, constant, notes
    )
    one_sample = constant[0] != constant[1]  # against a constant: one-sample t, signed-rank
    return Comparison(
        name_a=name_a,
        name_b=name_b,
        paired=paired,
        n_a=int(x.size),
        n_b=int(y.size),
        median_a=median_a,
        median_b=median_b,
        median_diff=median_diff,
        median_diff_pct=median_diff_pct,
        t_test="paired-t" if paired else "one-sample-t" if one_sample else "welch",
        t_stat=t_stat,
        t_p=t_p,
        rank_test="wilcoxon" if paired or one_sample else "mann-whitney",
        rank_stat=rank_stat,
        rank_p=rank_p,
        hedges_g=hedges_g(a, b, paired=paired),
        cliffs_delta=cliffs_delta(x, y),
        boot_ci_low=ci_low,
        boot_ci_high=ci_high,
        confidence=float(confidence),
        n_boot=int(n_boot),
        note="; ".join(notes),
    )


# --------------------------------------------------------------------------------------
# Multiplicity
# --------------------------------------------------------------------------------------


def holm(pvalues: ArrayLike) -> NDArray[np.float64]:
    """Holm-Bonferroni step-down adjusted p-values (Holm 1979, Scand. J. Stat. 6:65-70).

    With the m finite p-values sorted ascending, p_(1) <= ... <= p_(m), the adjusted value
    of p_(i) is ``max_{j <= i} min(1, (m - j + 1) p_(j))`` (the running maximum makes it
    monotone in the raw order).  NaNs stay NaN and are not counted in the family size m.
    Returns an array of the input's shape; raises on values outside [0, 1] or infinities.
    """
    p = np.asarray(pvalues, dtype=np.float64)
    flat = p.ravel()
    finite = ~np.isnan(flat)
    if np.any(np.isinf(flat)) or np.any((flat[finite] < 0.0) | (flat[finite] > 1.0)):
        raise ValueError("p-values must lie in [0, 1] (NaN allowed)")
    out = np.full(flat.shape, np.nan)
    idx = np.flatnonzero(finite)
    m = idx.size
    if m:
        order = np.argsort(flat[idx], kind="stable")
        ranked = flat[idx][order]
        stepped = np.minimum(1.0, (m - np.arange(m)) * ranked)
        adjusted = np.maximum.accumulate(stepped)
        out[idx[order]] = adjusted
    return out.reshape(p.shape)


# --------------------------------------------------------------------------------------
# Tables and simple fractions
# --------------------------------------------------------------------------------------


def comparison_table(
    groups: Mapping[str, ArrayLike],
    pairs: Sequence[tuple[str, str]],
    *,
    paired: bool = False,
    n_boot: int = 10_000,
    seed_keys: Sequence[Key] = DEFAULT_SEED_KEYS,
    confidence: float = 0.95,
) -> pd.DataFrame:
    """One :func:`compare` row per ``(a, b)`` pair, with Holm adjustment over the rows.

    Columns are :data:`TABLE_COLUMNS`.  ``test`` names the row's two tests (``t_*``: Welch,
    paired or one-sample t; ``rank_*``: Mann-Whitney U or Wilcoxon signed-rank, see
    :func:`compare`); ``holm_t_p`` / ``holm_rank_p`` adjust ``t_p`` / ``rank_p`` separately,
    each over the family of rows with a finite p-value.
    Each row's bootstrap uses the stream ``(*seed_keys, a, b, ...)``.
    """
    missing = sorted({name for pair in pairs for name in pair} - set(groups))
    if missing:
        raise KeyError(f"pairs name unknown groups: {missing}")
    rows = []
    for name_a, name_b in pairs:
        c = compare(
            groups[name_a],
            groups[name_b],
            paired=paired,
            name_a=name_a,
            name_b=name_b,
            n_boot=n_boot,
            seed_keys=seed_keys,
            confidence=confidence,
        )
        rows.append(
            {
                "a": name_a,
                "b": name_b,
                "n_a": c.n_a,
                "n_b": c.n_b,
                "median_a": c.median_a,
                "median_b": c.median_b,
                "median_diff": c.median_diff,
                "median_diff_pct": c.median_diff_pct,
                "test": f"{c.t_test} / {c.rank_test}",
                "t_stat": c.t_stat,
                "t_p": c.t_p,
                "rank_stat": c.rank_stat,
                "rank_p": c.rank_p,
                "hedges_g": c.hedges_g,
                "cliffs_delta": c.cliffs_delta,
                "boot_ci_low": c.boot_ci_low,
                "boot_ci_high": c.boot_ci_high,
                "note": c.note,
            }
        )
    table = pd.DataFrame(rows, columns=[c for c in TABLE_COLUMNS if not c.startswith("holm_")])
    table["holm_t_p"] = holm(table["t_p"].to_numpy(dtype=np.float64))
    table["holm_rank_p"] = holm(table["rank_p"].to_numpy(dtype=np.float64))
    table = table[list(TABLE_COLUMNS)]
    int_cols = ["n_a", "n_b"]
    table[int_cols] = table[int_cols].astype(np.int64)
    return table


def outlier_fraction(values: ArrayLike, reference: float, factor: float = 2.0) -> float:
    """Fraction of runs whose value strictly exceeds ``factor * reference``.

    E.g. the share of standard-PSO runs whose validation RMSE exceeds 2x the BCLS RMSE:
    ``outlier_fraction(pso_rmse, bcls_rmse)``.  NaN for an empty sample; raises on
    non-finite values, reference or factor.
    """
    x = _as_sample(values)
    if not (np.isfinite(reference) and np.isfinite(factor)):
        raise ValueError("reference and factor must be finite")
    if x.size == 0:
        return _NAN
    return float(np.count_nonzero(x > factor * reference)) / x.size
