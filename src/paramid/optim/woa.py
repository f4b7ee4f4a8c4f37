"""Whale optimisation algorithm (WOA), Mirjalili & Lewis (2016).

Reference: S. Mirjalili, A. Lewis, "The Whale Optimization Algorithm", Advances in
Engineering Software 95 (2016) 51-67; equations numbered as in that paper.

Per whale and iteration, with a = 2(1 - t) decreasing linearly from 2 to 0 (Eq 2.3),
A = 2 a r1 - a and C = 2 r2 (Eq 2.3-2.4), p, r1, r2 ~ U(0, 1), b = ``spiral_b`` (the paper's
b = 1) and l ~ U(a2, 1) with a2 = -1 - t (the authors' code: l = (a2 - 1) rand + 1):

* p < 0.5 and |A| < 1, encircling (Eq 2.1-2.2): X' = X* - A |C X* - X|;
* p < 0.5 and |A| >= 1, search for prey (Eq 2.7-2.8): X' = X_rand - A |C X_rand - X|,
  X_rand a whale drawn uniformly from the population;
* p >= 0.5, bubble-net spiral (Eq 2.5): X' = |X* - X| e^(b l) cos(2 pi l) + X*.

A, C, p and l are scalars per whale (as in the authors' code), X* is the best point found
so far, every whale moves each iteration and is projected onto the box.  N evaluations per
iteration; t = g/G (``base.progress``), see ``paramid.optim.po`` for the budget convention.
Choices: ``docs/choices.md`` (section WOA).
"""

from __future__ import annotations

import numpy as np

from paramid.optim.base import OptimResult, Problem, optimiser, take_columns
from paramid.optim.po import Draws, ledger_start, settle


@optimiser()
def woa(
    prob: Problem,
    *,
    spiral_b: float,
) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with WOA; see the module docstring.

    ``spiral_b`` is b of Eq 2.5 (the schema's ``woa`` block: 1, no default here).
    """
    ledger, lo, hi, X, f = ledger_start(prob)
    n = prob.population
    scalars = Draws(prob.gens, (5, n))  # r1, r2, p, l, random whale
    while not ledger.done:
        t = ledger.progress[:, None]
        u = scalars.next()
        a = 2.0 * (1.0 - t)
        A = a * (2.0 * u[:, 0] - 1.0)  # 2 a r1 - a
        C = 2.0 * u[:, 1]
        encircle = u[:, 2] < 0.5
        l_spiral = (-2.0 - t) * u[:, 3] + 1.0  # (a2 - 1) rand + 1, a2 = -1 - t
        other = np.minimum((u[:, 4] * n).astype(np.intp), n - 1)
        best = ledger.best_x[:, :, None]
        chosen = take_columns(X, other)  # X_rand per whale
        target = np.where((np.abs(A) < 1.0)[:, None, :], best, chosen)
        moved = np.abs(C[:, None, :] * target - X)
        moved *= A[:, None, :]
        np.subtract(target, moved, out=moved)
        spiral = np.abs(best - X)
        spiral *= (np.exp(spiral_b * l_spiral) * np.cos(2.0 * np.pi * l_spiral))[:, None, :]
        spiral += best
        moved = np.where(encircle[:, None, :], moved, spiral)
        X = settle(moved, lo, hi, out=moved)
        ledger.evaluate(X)
    return ledger.result()
