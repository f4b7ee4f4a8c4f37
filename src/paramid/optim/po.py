"""Parrot optimiser (PO) and the budget machinery shared by the CEC2022 comparison methods.

Reference: J. Lian, G. Hui, L. Ma, T. Zhu, X. Wu, A. A. Heidari, Y. Chen, H. Chen, "Parrot
optimizer: Algorithm and applications to medical problems", Computers in Biology and Medicine
172 (2024) 108064.  Equation numbers are those of the MIPO paper's review of PO (§2.3.1,
Eq 30-36, ``shared/papers/mipo-arkekf-robot-calibration.txt``).

Each parrot picks one of four behaviours per iteration, St uniform in {1, 2, 3, 4}:

* foraging (Eq 31): X' = (X - X_best) Levy(D) + r (1 - t)^(2t) X_mean, X_mean of Eq 32;
* staying (Eq 34): X' = X + X_best Levy(D) + r ones(D);
* communicating (Eq 35): X' = X + 0.2 r (1 - t)(X - X_mean) if P <= 0.5,
  else X' = X + 0.2 r exp(-t / r');
* fear of strangers (Eq 36): X' = X + r cos(pi t / 2)(X_best - X) - cos(r' pi) t^(2/T)(X - X_best),

with t = (iteration)/MAX_Iter and every r, r', P an independent U(0, 1) scalar per parrot
(Eq 30's text: "rand(0, 1) denotes a scalar").  Levy(D) is Mantegna's algorithm with
beta = 1.5 (Eq 33, read as in the original paper: u ~ N(0, sigma^2), v ~ N(0, 1),
step = u / |v|^(1/beta), sigma = [Gamma(1+beta) sin(pi beta/2) / (Gamma((1+beta)/2) beta
2^((beta-1)/2))]^(1/beta)).  Positions are replaced every iteration (no greedy selection,
as in the original); X_best is the best point evaluated so far.  Readings of ambiguous
text are listed in ``docs/choices.md`` (section PO).

Budget convention (all methods of this module family, ``Ledger``)
    The initial population is iteration 1 (N evaluations).  A method whose iterations
    evaluate more or fewer than N points (MIPO's opposition and neighbourhood points, HHO's
    rapid dives, HO's predators) keeps iterating until exactly N x iterations evaluations
    per run are spent; the batch that crosses the budget is truncated to the evaluations
    left, in candidate order.  Every schedule uses the fraction of the budget spent,
    t = (evaluations so far) / (N x iterations), which equals the iteration fraction g/G of
    ``base.progress`` for methods that evaluate N points per iteration.  ``history[:, k]``
    is the best value among the first (k + 1) N evaluations, read from the trace of all
    values in evaluation order, as for the other methods of ``paramid.optim``.
"""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import NDArray

from paramid.optim.base import (
    BLOCK_VALUES,
    FloatArray,
    OptimResult,
    Problem,
    optimiser,
    uniform_block,
)

#: Levy index of Eq 33 (delta = 1.5) and of HHO/HO.
LEVY_BETA = 1.5
#: Levy steps are clipped to +-1e300 (only v = 0 reaches it), so 0 * step stays 0.
LEVY_LIMIT = 1e300


def mantegna_sigma(beta: float = LEVY_BETA) -> float:
    """sigma_u of Mantegna's algorithm (Eq 33).

    sigma = [Gamma(1+b) sin(pi b/2) / (Gamma((1+b)/2) b 2^((b-1)/2))]^(1/b).
    """
    num = math.gamma(1.0 + beta) * math.sin(math.pi * beta / 2.0)
    den = math.gamma((1.0 + beta) / 2.0) * beta * 2.0 ** ((beta - 1.0) / 2.0)
    return (num / den) ** (1.0 / beta)


def levy_steps(u: FloatArray, v: FloatArray, scale: float = 1.0) -> FloatArray:
    """Mantegna Levy steps scale * sigma u / |v|^(1/beta) (beta = 1.5) from N(0, 1) draws u, v.

    |v|^(2/3) is computed as cbrt(v^2) (exact same value up to rounding, 5x faster than pow).
    """
    denom = np.cbrt(v * v)
    with np.errstate(divide="ignore", invalid="ignore"):
        step = u * (scale * mantegna_sigma(LEVY_BETA)) / denom
    # v = 0 (probability ~0) would give an infinite step, and 0 * inf = NaN in the updates.
    return np.clip(step, -LEVY_LIMIT, LEVY_LIMIT, out=step)


def settle(X: FloatArray, lo: FloatArray, hi: FloatArray, out: FloatArray) -> FloatArray:
    """Projection clip_[L, U] (``base.project``) that also maps NaN onto the lower bound.

    Several update rules divide by random numbers or distances (Eq 44, HO's Eq 9); a 0/0 in a
    degenerate box would otherwise survive ``np.maximum``.  ``fmax`` ignores NaN.
    """
    np.fmax(X, lo, out=out)
    return np.fmin(out, hi, out=out)


class Draws:
    """Per-run random numbers for one step at a time, drawn in blocks of fixed length.

    Each call of ``next`` returns a (runs, *shape) view of U(0, 1) values of 32-bit resolution
    (``base.uniform_block``) or N(0, 1) values; run r's values come from its own generator
    in blocks whose length depends only on ``shape`` (never on the number of runs or on the
    state of other runs), so a run draws the same numbers alone or batched.  The view is
    valid until the block is refilled (after ``length`` further calls).
    """

    def __init__(
        self, gens: list[np.random.Generator], shape: tuple[int, ...], *, normal: bool = False
    ) -> None:
        self.gens, self.normal = gens, normal
        per_step = max(1, math.prod(shape))
        self.length = max(1, BLOCK_VALUES // per_step)
        self.buf = np.empty((len(gens), self.length, *shape))
        self.pos = self.length

    def next(self) -> FloatArray:
        if self.pos == self.length:
            if self.normal:
                for gen, part in zip(self.gens, self.buf, strict=True):
                    gen.standard_normal(out=part)
            else:
                uniform_block(self.gens, self.buf)
            self.pos = 0
        out = self.buf[:, self.pos]
        self.pos += 1
        return out


class Ledger:
    """Exact evaluation budget, value trace and best point of every run (see module docstring).

    ``evaluate(X, want)`` evaluates the candidates X (runs, dim, n) flagged in ``want``
    (runs, n) (all when None) in column order, as far as each run's budget allows; the rest
    get +inf and ``evaluated`` says which were evaluated.  Values are appended to the run's
    trace in evaluation order; the best value (strict improvement, the earliest on ties) and
    its point are kept for ``result``.
    """

    def __init__(self, prob: Problem) -> None:
        self.prob = prob
        self.n = prob.population
        self.budget = prob.population * prob.iterations
        runs = prob.runs
        self.used = np.zeros(runs, dtype=np.int64)
        self.trace = np.full((runs, self.budget), np.inf)
        self.best_f = np.full(runs, np.inf)
        self.best_x = np.array(prob.lower[:, :, 0])  # (runs, dim), replaced at the first value
        self.rows = np.arange(runs)

    @property
    def progress(self) -> FloatArray:
        """Fraction of the budget spent, per run: the schedule variable t/T, shape (runs,)."""
        return self.used / self.budget

    @property
    def done(self) -> bool:
        """True when every run has spent its budget."""
        return bool(np.all(self.used >= self.budget))

    def evaluate(
        self, X: FloatArray, want: NDArray[np.bool_] | None = None
    ) -> tuple[FloatArray, NDArray[np.bool_]]:
        """Values (runs, n) of the wanted columns of X (runs, dim, n), +inf elsewhere."""
        runs, _, n = X.shape
        left = self.budget - self.used
        if want is None and np.all(left >= n):
            values = self.prob.evaluate(X)
            evaluated = np.ones((runs, n), dtype=bool)
            pos = self.used[:, None] + np.arange(n)
            self.trace[self.rows[:, None], pos] = values
        else:
            wanted = np.ones((runs, n), dtype=bool) if want is None else want
            order = np.cumsum(wanted, axis=1)
            evaluated = wanted & (order <= left[:, None])
            if evaluated.any():
                values = self.prob.counter(X.transpose(0, 2, 1), evaluated)
            else:
                values = np.full((runs, n), np.inf)
            r, c = np.nonzero(evaluated)
            self.trace[r, self.used[r] + order[r, c] - 1] = values[r, c]
        self.used += evaluated.sum(axis=1)
        top = np.argmin(values, axis=1)
        value = values[self.rows, top]
        better = value < self.best_f
        if better.any():
            self.best_f[better] = value[better]
            self.best_x[better] = X[self.rows[better], :, top[better]]
        return values, evaluated

    def result(self) -> OptimResult:
        """OptimResult with history[:, k] = best of the first (k + 1) N evaluations."""
        running = np.minimum.accumulate(self.trace, axis=1)
        history = running[:, self.n - 1 :: self.n]
        return self.prob.result(self.best_x, running[:, -1], history)


def ledger_start(prob: Problem) -> tuple[Ledger, FloatArray, FloatArray, FloatArray, FloatArray]:
    """The start every ledger-budgeted method shares: the ledger of ``prob``, the clip box,
    the initial population uniform in [L, U] (Eq 30) and its values, (runs, n)."""
    ledger = Ledger(prob)
    lo, hi = prob.box(prob.population)
    X = prob.initial()
    f, _ = ledger.evaluate(X)
    return ledger, lo, hi, X, f


@optimiser()
def po(prob: Problem) -> OptimResult:
    """Original parrot optimiser (Lian et al. 2024), Eq 30-36; see the module docstring.

    N evaluations per iteration, so exactly ``population`` x ``iterations`` in all.
    """
    ledger, lo, hi, X, f = ledger_start(prob)
    runs, dim, n = prob.runs, prob.dim, prob.population
    scalars = Draws(prob.gens, (8, n))  # St, r (Eq 31, 34, 35), P, r' (Eq 35), r, r' (Eq 36)
    normals = Draws(prob.gens, (2, dim, n), normal=True)
    coef = np.empty((runs, 6, 1, n))  # alpha, beta, gamma, delta, mu, nu of the linear form
    G = prob.iterations
    while not ledger.done:
        t = ledger.progress[:, None]  # (runs, 1)
        u = scalars.next()
        z = normals.next()
        behaviour = np.minimum((u[:, 0] * 4.0).astype(np.intp), 3)  # St - 1 in 0..3
        _po_coefficients(coef, behaviour, u, t, G)
        levy = levy_steps(z[:, 0], z[:, 1])
        X = _linear_update(X, ledger.best_x[:, :, None], coef, levy, lo, hi)
        ledger.evaluate(X)
    return ledger.result()


def _po_coefficients(
    coef: FloatArray,
    behaviour: NDArray[np.intp],
    u: FloatArray,
    t: FloatArray,
    G: int,
) -> None:
    """Per-parrot coefficients of X' = a X + b X_best + c X_mean + d + Levy (m X + v X_best).

    Rows of ``coef`` (runs, 6, 1, n): a, b, c, d, m, v.  Eq 31: m = 1, v = -1,
    c = r (1 - t)^(2t); Eq 34: a = 1, v = 1, d = r; Eq 35: a = 1 + k, c = -k with
    k = 0.2 r (1 - t) (P <= 0.5) or a = 1, d = 0.2 r exp(-t / r') (P > 0.5); Eq 36: a = 1 - s,
    b = s with s = r cos(pi t / 2) + cos(r' pi) t^(2/G).
    """
    coef[...] = 0.0
    a, c, d, v = (coef[:, i, 0] for i in (0, 2, 3, 5))
    forage, stay, talk, fear = (behaviour == k for k in range(4))
    r_forage, r_stay, r_talk, p_talk, r_exp, r_fear, theta = (u[:, i] for i in range(1, 8))
    forage_and_fear(coef, forage, fear, r_forage, r_fear, theta, t, G)
    np.copyto(a, 1.0, where=stay | talk)
    np.copyto(v, 1.0, where=stay)
    np.copyto(d, r_stay, where=stay)
    join = talk & (p_talk <= 0.5)
    k = 0.2 * r_talk * (1.0 - t)
    np.copyto(a, 1.0 + k, where=join)
    np.copyto(c, -k, where=join)
    with np.errstate(divide="ignore"):
        leave = 0.2 * r_talk * np.exp(-t / r_exp)
    np.copyto(d, leave, where=talk & ~join)


def forage_and_fear(
    coef: FloatArray,
    forage: NDArray[np.bool_],
    fear: NDArray[np.bool_],
    r_forage: FloatArray,
    r_fear: FloatArray,
    theta: FloatArray,
    t: FloatArray,
    G: int,
) -> None:
    """The coefficients (rows a, b, c, m, v of ``coef``) of the foraging parrots, Eq 31
    (m = 1, v = -1, c = r (1 - t)^(2t)), and of the fearful ones, Eq 36 (a = 1 - s, b = s
    with s = r cos(pi t / 2) + cos(r' pi) t^(2/G)): the same in PO and MIPO."""
    a, b, c, m, v = (coef[:, i, 0] for i in (0, 1, 2, 4, 5))
    np.copyto(m, 1.0, where=forage)
    np.copyto(v, -1.0, where=forage)
    np.copyto(c, r_forage * (1.0 - t) ** (2.0 * t), where=forage)
    s = r_fear * np.cos(0.5 * np.pi * t) + np.cos(theta * np.pi) * t ** (2.0 / G)
    np.copyto(a, 1.0 - s, where=fear)
    np.copyto(b, s, where=fear)


def _linear_update(
    X: FloatArray,
    best: FloatArray,
    coef: FloatArray,
    levy: FloatArray,
    lo: FloatArray,
    hi: FloatArray,
) -> FloatArray:
    """X' = clip(a X + b X_best + c X_mean + d + Levy (m X + v X_best)), coef rows a..v."""
    a, b, c, d, m, v = (coef[:, i] for i in range(6))  # each (runs, 1, n)
    mean = X.mean(axis=2, keepdims=True)  # Eq 32, (runs, dim, 1)
    out = a * X
    out += b * best
    out += c * mean
    out += d
    step = m * X
    step += v * best
    step *= levy
    out += step
    return settle(out, lo, hi, out=out)
