"""Multi-strategy improved parrot optimiser (MIPO), the paper's §2.3.2 and Algorithm 1.

Paper: "High-Precision and Efficient Calibration of Robot Polishing Systems Using an Adaptive
Residual EKF Optimized by MIPO" (``shared/papers/mipo-arkekf-robot-calibration.txt``), built
on the parrot optimiser of Lian et al. (2024) (``paramid.optim.po``, Eq 30-36).  Three
changes to PO:

1. Chebyshev chaotic initialisation (Eq 37-38): x_{k+1} = cos(tau arccos x_k), tau = 2
   (the setting ``chebyshev_degree``), iterated over the individuals k = 0..N-1 from a
   U(-1, 1) start per run and dimension, and X_k = lb + (x_k + 1)/2 (ub - lb).
2. Adaptive weights in the communicating behaviour (Eq 39-40): w1 = 0.9 exp(-3 t^2),
   w2 = 0.1 + 0.8 (1 - exp(-3 t^2)) and
   X' = X + w1 0.2 r1 (1 - t) exp(-t / r2) + w2 0.2 r3 (1 - t)(X - X_mean).
3. Dynamic information sharing in the staying behaviour (Eq 41-44, Alg 1 lines 13-20): each
   staying parrot makes a dynamic-opposition point (Eq 41-42)
   X_rev = X + phi r (r' X_f - X), X_f = ub + lb - X, phi = 0.5 (1 + cos(pi t))^2 (Eq 43),
   and a neighbourhood point (Eq 44) X_rd = X + |ub - lb| / (2 N r sign(r' - 0.5)); the
   staying parrots, their OL points and their RD points are pooled and the best |S| of the
   3|S| (elite selection, Alg 1 lines 19-20) become the staying parrots' new positions.

Foraging (Eq 31) and fear of strangers (Eq 36) are PO's.  St is uniform in {1, 2, 3, 4} per
parrot and iteration (Alg 1 line 8); r, r' are U(0, 1) scalars per parrot in the scalar
rules (Eq 31, 36, 40) and per component in the vector rules (Eq 42, 44, as in dynamic
opposition-based learning, Xu et al. 2014).  Every candidate is projected onto [lb, ub].

Budget: an iteration evaluates N + |S| points (the moved parrots, and two points per staying
parrot), about 1.25 N; iterations continue until N x ``iterations`` evaluations are spent,
the last batch truncated (``paramid.optim.po.Ledger``).  The schedule t/MAX_Iter is the
fraction of the budget spent.  Alg 1 line 20's "MAXIter best individuals" is read as the
size of the pooled group (|S|; N when every parrot stays), so the population size stays N.
Choices are listed in ``docs/choices.md`` (section MIPO).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.optim.base import (
    FloatArray,
    OptimResult,
    Problem,
    optimiser,
    take_columns,
    uniform_block,
)
from paramid.optim.po import Draws, Ledger, _linear_update, forage_and_fear, levy_steps, settle


def chebyshev_sequence(x0: ArrayLike, count: int, tau: float) -> FloatArray:
    """Eq 37: x_0 = x0, x_{k+1} = cos(tau arccos x_k), k < count; shape (count, *x0.shape).

    The recursion is sequential by definition: one vectorised step per individual.
    """
    x = np.clip(np.asarray(x0, dtype=np.float64), -1.0, 1.0)
    out = np.empty((count, *x.shape))
    for k in range(count):
        out[k] = x
        x = np.cos(tau * np.arccos(x))
    return out


def chebyshev_population(
    x0: FloatArray, lower: FloatArray, upper: FloatArray, n: int, tau: float
) -> FloatArray:
    """Eq 37-38: (runs, dim, n) population lb + (x_k + 1)/2 (ub - lb) from starts x0 (runs, dim).

    ``lower``/``upper`` broadcast against (runs, dim, 1).
    """
    seq = chebyshev_sequence(x0, n, tau)  # (n, runs, dim)
    X = (np.moveaxis(seq, 0, -1) + 1.0) / 2.0
    X *= upper - lower
    X += lower
    return np.clip(X, lower, upper, out=X)


def opposition_weight(t: ArrayLike) -> FloatArray:
    """Eq 43: phi = 0.5 (1 + cos(pi t))^2 for the budget fraction t = t/MAX_Iter."""
    return 0.5 * (1.0 + np.cos(np.pi * np.asarray(t, dtype=np.float64))) ** 2


def adaptive_weights(t: ArrayLike) -> tuple[FloatArray, FloatArray]:
    """Eq 39: w1 = 0.9 exp(-3 t^2), w2 = 0.1 + 0.8 (1 - exp(-3 t^2)).

    The numbers are the equation's own (the paper gives no parameter for them, unlike tau of
    Eq 37), as are Eq 40's 0.2 and Eq 43's phi: fixed here, not settings.
    """
    e = np.exp(-3.0 * np.asarray(t, dtype=np.float64) ** 2)
    return 0.9 * e, 0.1 + 0.8 * (1.0 - e)


def dynamic_opposition(
    X: FloatArray, lower: ArrayLike, upper: ArrayLike, phi: FloatArray, r1: ArrayLike, r2: ArrayLike
) -> FloatArray:
    """Eq 41-42: X + phi r1 (r2 X_f - X) with the opposite point X_f = ub + lb - X (unclipped)."""
    opposite = np.add(lower, upper) - X
    return X + phi * np.asarray(r1) * (np.asarray(r2) * opposite - X)


def neighbourhood(
    X: FloatArray, span: ArrayLike, n: int, r1: ArrayLike, r2: ArrayLike
) -> FloatArray:
    """Eq 44: X + |ub - lb| / (2 N r1 sign(r2 - 0.5)) (unclipped).

    sign(0) is read as +1 and r1 = 0 as the smallest positive 32-bit uniform 2^-33, so the
    step is always finite.
    """
    r1 = np.where(np.asarray(r1) > 0.0, r1, 2.0**-33)
    sign = 1.0 - 2.0 * (np.asarray(r2) < 0.5)  # -1 or +1, exactly
    return X + np.abs(span) / (2.0 * n * r1 * sign)


@optimiser()
def mipo(
    prob: Problem,
    *,
    chebyshev_degree: float,
) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with MIPO (Alg 1); see the module docstring.

    ``chebyshev_degree`` is tau of Eq 37 (the schema's ``mipo`` block: the paper's 2, no
    default here).
    """
    runs, dim, n = prob.runs, prob.dim, prob.population
    G = prob.iterations
    ledger = Ledger(prob)
    lo, hi = prob.box(n)
    start = uniform_block(prob.gens, np.empty((runs, dim)), signed=True)  # x_0 ~ U(-1, 1)
    X = chebyshev_population(start, prob.lower, prob.upper, n, chebyshev_degree)
    f, _ = ledger.evaluate(X)
    # Per parrot and iteration: St, r (Eq 31), r1 r2 r3 (Eq 40), r r' (Eq 36); then the
    # per-component uniforms of Eq 42 (r, r') and Eq 44 (r, r').
    scalars = Draws(prob.gens, (7, n))
    vectors = Draws(prob.gens, (4, dim, n))
    normals = Draws(prob.gens, (2, dim, n), normal=True)
    coef = np.empty((runs, 6, 1, n))
    cand = np.empty((runs, dim, 3 * n))  # staying pool: X, OL, RD
    cand_f = np.empty((runs, 3 * n))
    while not ledger.done:
        t = ledger.progress[:, None]  # (runs, 1)
        u, w, z = scalars.next(), vectors.next(), normals.next()
        behaviour = np.minimum((u[:, 0] * 4.0).astype(np.intp), 3)
        stay = behaviour == 1
        _mipo_coefficients(coef, behaviour, u, t, G)
        moved = _linear_update(
            X, ledger.best_x[:, :, None], coef, levy_steps(z[:, 0], z[:, 1]), lo, hi
        )
        # Staying parrots: OL (Eq 42) in the moved slot, RD (Eq 44) in a second batch column.
        phi = opposition_weight(t)[:, :, None]
        ol = settle(
            dynamic_opposition(X, prob.lower, prob.upper, phi, w[:, 0], w[:, 1]),
            lo,
            hi,
            out=np.empty_like(X),
        )
        rd = settle(neighbourhood(X, prob.span, n, w[:, 2], w[:, 3]), lo, hi, out=np.empty_like(X))
        moved = np.where(stay[:, None, :], ol, moved)
        batch = np.concatenate((moved, rd), axis=2)
        want = np.concatenate((np.ones((runs, n), dtype=bool), stay), axis=1)
        values, _ = ledger.evaluate(batch, want)
        f_moved, f_rd = values[:, :n], values[:, n:]
        X, f = _elite_merge(X, f, moved, f_moved, rd, f_rd, stay, cand, cand_f)
    return ledger.result()


def _mipo_coefficients(
    coef: FloatArray, behaviour: NDArray[np.intp], u: FloatArray, t: FloatArray, G: int
) -> None:
    """Linear-form coefficients (see ``po._po_coefficients``) of Eq 31, 40 and 36.

    Staying parrots (behaviour 1) get the identity here; their points come from Eq 42/44.
    """
    coef[...] = 0.0
    a, c, d, v = (coef[:, i, 0] for i in (0, 2, 3, 5))
    forage, stay, talk, fear = (behaviour == k for k in range(4))
    r_forage, r1, r2, r3, r_fear, theta = (u[:, i] for i in range(1, 7))
    forage_and_fear(coef, forage, fear, r_forage, r_fear, theta, t, G)
    np.copyto(a, 1.0, where=stay)
    w1, w2 = adaptive_weights(t)  # Eq 39
    k = w2 * 0.2 * r3 * (1.0 - t)
    np.copyto(a, 1.0 + k, where=talk)
    np.copyto(c, -k, where=talk)
    with np.errstate(divide="ignore"):
        drift = w1 * 0.2 * r1 * (1.0 - t) * np.exp(-t / r2)
    np.copyto(d, drift, where=talk)


def _elite_merge(
    X: FloatArray,
    f: FloatArray,
    moved: FloatArray,
    f_moved: FloatArray,
    rd: FloatArray,
    f_rd: FloatArray,
    stay: NDArray[np.bool_],
    cand: FloatArray,
    cand_f: FloatArray,
) -> tuple[FloatArray, FloatArray]:
    """New population: moved parrots take their new points; the staying slots take the best
    |S| of {X_S, OL_S, RD_S} per run (stable sort: the older point wins ties)."""
    n = X.shape[2]
    cand[..., :n], cand[..., n : 2 * n], cand[..., 2 * n :] = X, moved, rd
    np.copyto(cand_f[:, :n], np.where(stay, f, np.inf))
    np.copyto(cand_f[:, n : 2 * n], np.where(stay, f_moved, np.inf))
    np.copyto(cand_f[:, 2 * n :], np.where(stay, f_rd, np.inf))
    order = np.argsort(cand_f, axis=1, kind="stable")
    slot = np.where(stay, np.cumsum(stay, axis=1) - 1, 0)  # k-th staying slot gets rank k
    pick = np.take_along_axis(order, slot, axis=1)
    new_X = np.where(stay[:, None, :], take_columns(cand, pick), moved)
    new_f = np.where(stay, np.take_along_axis(cand_f, pick, axis=1), f_moved)
    return new_X, new_f
