"""Greylag goose optimisation (GGO), El-kenawy et al. (2024).

Reference: E.-S. M. El-kenawy, N. Khodadadi, S. Mirjalili, A. A. Abdelhamid, M. M. Eid,
A. Ibrahim, "Greylag Goose Optimization: Nature-inspired optimization algorithm", Expert
Systems with Applications 238 (2024) 122147; equation numbers as in that paper.

The flock is split into an exploration group (n1 geese) and an exploitation group (n2 =
N - n1), n1 = n2 = N/2 at the start; the n2 best geese (by current value) exploit.  With
a = 2 (1 - t) decreasing linearly, A = 2 a r1 - a, C = 2 r2, z = 1 - t^2 (Eq 3), weights
w1..w4 ~ U(0, 2), r1..r5 ~ U(0, 1), l ~ U(-1, 1) and b = ``spiral_b``:

* exploration, r3 < 0.5 and |A| < 1 (Eq 1): X' = X* - A |C X* - X|;
* exploration, r3 < 0.5 and |A| >= 1 (Eq 2), three random geese (paddles):
  X' = w1 X_p1 + z w2 (X_p2 - X_p3) + (1 - z) w3 (X - X_p1);
* exploration, r3 >= 0.5 (Eq 4): X' = w4 |X* - X| e^(b l) cos(2 pi l) + 2 w1 (r4 + r5) X*;
* exploitation (Eq 5-7), the three best geese as sentries:
  X_k = X_sentry_k - A_k |C_k X_sentry_k - X| (k = 1, 2, 3), X' = (X_1 + X_2 + X_3) / 3,
  with A_k, C_k per component as in GWO.

X* is the best point so far.  When the best value has not improved for ``stall_iterations``
consecutive iterations, one goose moves from the exploitation to the exploration group (n1 + 1, kept
<= N - 1).  Every goose moves and is evaluated each iteration (N evaluations; no greedy
selection); t = g/G.  A, C and the branch variables of Eq 1-2 are scalars per goose.  The
paper's second exploitation rule (moving around X_Flock1 with a factor D) is not used:
its quantities are not defined precisely enough to reproduce; see ``docs/choices.md``
(section GGO) for this and the other readings.
"""

from __future__ import annotations

import numpy as np

from paramid.optim.base import FloatArray, OptimResult, Problem, optimiser, take_columns
from paramid.optim.po import Draws, ledger_start, settle

SENTRIES = 3  # the three best geese of Eq 5-7: the equations' structure, not a setting


@optimiser(min_population=SENTRIES)
def ggo(
    prob: Problem,
    *,
    spiral_b: float,
    stall_iterations: int,
) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with GGO; see the module docstring.

    ``spiral_b`` is b of Eq 4, ``stall_iterations`` the iterations without improvement that
    move a goose to exploration (the schema's ``ggo`` block: 1 and 2, no defaults here).
    """
    ledger, lo, hi, X, f = ledger_start(prob)
    runs, dim, n = prob.runs, prob.dim, prob.population
    n1 = np.full(runs, n // 2)  # exploration group size
    stall = np.zeros(runs, dtype=np.int64)
    last_best = ledger.best_f.copy()
    # r1, r2, r3, w1, w2, w3, w4, r4, r5, l, paddle 1-3
    scalars = Draws(prob.gens, (13, n))
    sentry_draws = Draws(prob.gens, (2, SENTRIES, dim, n))  # r1, r2 of A_k, C_k
    buf = np.empty((3, runs, dim, n))  # scratch of the updates
    while not ledger.done:
        t = ledger.progress[:, None]
        u, s = scalars.next(), sentry_draws.next()
        a = 2.0 * (1.0 - t)
        z = 1.0 - t * t  # Eq 3
        A = a * (2.0 * u[:, 0] - 1.0)
        C = 2.0 * u[:, 1]
        w1, w2, w3, w4 = (2.0 * u[:, k] for k in range(3, 7))
        l_spiral = 2.0 * u[:, 9] - 1.0
        best = ledger.best_x[:, :, None]
        # Exploration (Eq 1, 2, 4)
        paddles = np.minimum((u[:, 10:13] * n).astype(np.intp), n - 1)  # (runs, 3, n)
        p1, p2, p3 = (take_columns(X, paddles[:, k]) for k in range(3))
        near = np.multiply(C[:, None, :], best, out=buf[0])  # Eq 1
        near -= X
        np.abs(near, out=near)
        near *= A[:, None, :]
        np.subtract(best, near, out=near)
        z3 = z[:, :, None]
        paddle = np.subtract(p2, p3, out=p2)  # Eq 2
        paddle *= z3 * w2[:, None]
        paddle += np.multiply(w1[:, None], p1, out=p3)
        np.subtract(X, p1, out=p1)
        p1 *= (1.0 - z3) * w3[:, None]
        paddle += p1
        spiral = np.subtract(best, X, out=buf[1])
        np.abs(spiral, out=spiral)
        spiral *= (w4 * np.exp(spiral_b * l_spiral) * np.cos(2 * np.pi * l_spiral))[:, None]
        spiral += np.multiply((2.0 * w1 * (u[:, 7] + u[:, 8]))[:, None], best, out=p1)  # Eq 4
        first = u[:, 2] < 0.5
        explore = np.where((first & (np.abs(A) < 1.0))[:, None], near, paddle)
        explore = np.where(first[:, None], explore, spiral)
        # Exploitation (Eq 5-7): the three best geese (by current value) are the sentries.
        order = np.argsort(f, axis=1, kind="stable")
        exploit = _sentry_mean(X, take_columns(X, order[:, :SENTRIES]), s, a, buf)
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(n)[None, :], axis=1)
        exploiting = rank < (n - n1)[:, None]
        new = np.where(exploiting[:, None, :], exploit, explore)
        X = settle(new, lo, hi, out=new)
        f, _ = ledger.evaluate(X)
        # Dynamic groups: no improvement for `stall_iterations` iterations -> n1 + 1.
        improved = ledger.best_f < last_best
        stall = np.where(improved, 0, stall + 1)
        grow = stall >= stall_iterations
        n1 = np.where(grow, np.minimum(n1 + 1, n - 1), n1)
        stall[grow] = 0
        last_best = ledger.best_f.copy()
    return ledger.result()


def _sentry_mean(
    X: FloatArray, sentries: FloatArray, s: FloatArray, a: FloatArray, buf: FloatArray
) -> FloatArray:
    """Eq 5-7: mean over the sentries k of X_sentry_k - A_k |C_k X_sentry_k - X|, with
    A_k = a (2 r1 - 1), C_k = 2 r2 (r1 = s[:, 0, k], r2 = s[:, 1, k]).

    Sentries (runs, dim, 3); ``buf`` (3, runs, dim, n) scratch, the result is ``buf[0]``.
    """
    total, term, coef = buf
    for k in range(sentries.shape[2]):
        lead = sentries[:, :, k, None]  # (runs, dim, 1)
        np.multiply(s[:, 1, k], 2.0, out=term)
        term *= lead
        term -= X
        np.abs(term, out=term)
        np.multiply(s[:, 0, k], 2.0, out=coef)
        coef -= 1.0
        coef *= a[:, :, None]
        term *= coef
        if k == 0:
            np.subtract(lead, term, out=total)
        else:
            total += np.subtract(lead, term, out=term)
    total /= sentries.shape[2]
    return total
