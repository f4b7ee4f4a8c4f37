"""Snow geese algorithm (SGA), Tian et al. (2024).

Reference: A.-Q. Tian, F.-F. Liu, H.-X. Lv, "Snow Geese Algorithm: A novel migration-inspired
meta-heuristic algorithm for constrained engineering optimization problems", Applied
Mathematical Modelling 126 (2024) 327-347.

Each goose carries a velocity V (zero at the start).  Per iteration, with the flock sorted by
value (rank 1 = best), X* the best point so far, the decay coe = 4t / e^(4t) and one flight
angle fi ~ U(0, 2 pi) for the whole flock:

* acceleration and velocity: acc = [(X* - X) - 1.29 V^2 sin(fi)] / 100, V' = coe V + acc,
  X1 = X + V';
* fi < pi, herringbone (V-shaped) formation, by rank group with a ~ U(-2, 2),
  b ~ U(-1.5, 1.5), c ~ U(-1, 1) scalars per goose and X_c the value-weighted centre
  sum_i (f_i / sum f) X_i:
  leading 20 %: X' = X1 + a (X* - X1) + V';
  middle 60 %: X' = X1 + a (X* - X1) + b (X_c - X1) - c (X_worst - X1) + V';
  last 20 %: X' = X1 + a (X* - X1) + b (X_c - X1) + V';
* fi >= pi, straight-line formation: with probability 1/2 X' = X1 + r (X1 - X*), else
  X' = X* + r (X1 - X*) BM, BM a Brownian path over the coordinates (cumulative sums of
  N(0, 1/D) steps), r ~ U(0, 1).

Every goose moves and is evaluated (N evaluations per iteration, no greedy selection);
t = g/G.  The coefficient ranges, X_c's weights and the rank groups follow the public
re-implementation of the authors' code; "X_worst + X1" there is read as the repulsion
X_worst - X1.  See ``docs/choices.md`` (section SGA).
"""

from __future__ import annotations

import numpy as np

from paramid.optim.base import OptimResult, Problem, optimiser, take_columns
from paramid.optim.po import Draws, ledger_start, settle


@optimiser()
def sga(prob: Problem) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with SGA; see the module docstring."""
    ledger, lo, hi, X, f = ledger_start(prob)
    dim, n = prob.dim, prob.population
    V = np.zeros_like(X)
    scalars = Draws(prob.gens, (6, n))  # a, b, c, straight-line branch, r, (spare)
    angle = Draws(prob.gens, (1,))  # fi, one per iteration and run
    normals = Draws(prob.gens, (dim, n), normal=True)  # Brownian steps
    rank_group = np.zeros(n, dtype=np.intp)  # 0 leading 20 %, 1 middle, 2 last 20 %
    ranks = np.arange(n)
    rank_group[ranks + 1 > n / 5.0] = 1
    rank_group[ranks + 1 >= 4.0 * n / 5.0] = 2
    while not ledger.done:
        t = ledger.progress[:, None, None]  # (runs, 1, 1)
        u, fi, z = scalars.next(), 2.0 * np.pi * angle.next()[:, 0], normals.next()
        # Rank the flock (stable: ties keep index order).
        order = np.argsort(f, axis=1, kind="stable")
        X = take_columns(X, order)
        V = take_columns(V, order)
        f = np.take_along_axis(f, order, axis=1)
        best = ledger.best_x[:, :, None]
        coe = 4.0 * t / np.exp(4.0 * t)
        acc = (best - X) - 1.29 * V * V * np.sin(fi)[:, None, None]
        acc *= 1e-2
        V = coe * V + acc
        X1 = X + V
        centre = _weighted_centre(X, f)
        a = (4.0 * u[:, 0] - 2.0)[:, None]  # U(-2, 2)
        b = (3.0 * u[:, 1] - 1.5)[:, None]  # U(-1.5, 1.5)
        c = (2.0 * u[:, 2] - 1.0)[:, None]  # U(-1, 1)
        herring = X1 + a * (best - X1) + V
        group = rank_group[None, None, :]
        herring += np.where(group >= 1, b * (centre - X1), 0.0)
        herring -= np.where(group == 1, c * (X[:, :, -1:] - X1), 0.0)
        brownian = z * np.sqrt(1.0 / dim)
        for k in range(1, dim):  # cumulative sum over the coordinates, in place
            brownian[:, k] += brownian[:, k - 1]
        r = u[:, None, 4]
        straight = np.where(
            (u[:, 3] > 0.5)[:, None, :], X1 + r * (X1 - best), best + r * (X1 - best) * brownian
        )
        new = np.where((fi < np.pi)[:, None, None], herring, straight)
        X = settle(new, lo, hi, out=new)
        f, _ = ledger.evaluate(X)
    return ledger.result()


def _weighted_centre(X: np.ndarray, f: np.ndarray) -> np.ndarray:
    """sum_i (f_i / sum f) X_i per run (the authors' centre); the plain mean where the
    weights are undefined (non-finite values or a zero sum)."""
    total = f.sum(axis=1, keepdims=True)
    ok = np.isfinite(total) & (total != 0.0)
    weights = np.where(ok, f / np.where(ok, total, 1.0), 1.0 / f.shape[1])
    weights = np.where(np.isfinite(weights), weights, 0.0)
    return np.sum(X * weights[:, None, :], axis=2, keepdims=True)
