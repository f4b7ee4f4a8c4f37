"""Harris hawks optimisation (HHO), Heidari et al. (2019).

Reference: A. A. Heidari, S. Mirjalili, H. Faris, I. Aljarah, M. Mafarja, H. Chen, "Harris
hawks optimization: Algorithm and applications", Future Generation Computer Systems 97
(2019) 849-872; equations numbered as in that paper.

Per hawk and iteration, with the rabbit X_r (best point so far), the escaping energy
E = 2 E0 (1 - t), E0 ~ U(-1, 1) (Eq 3), the jump strength J = 2 (1 - r5) and the escape
chance r, all U(0, 1) scalars per hawk:

* |E| >= 1, exploration (Eq 1): q >= 0.5: X' = X_rand - r1 |X_rand - 2 r2 X|;
  q < 0.5: X' = (X_r - X_m) - r3 (lb + r4 (ub - lb)), X_m the mean position (Eq 2);
* r >= 0.5, |E| >= 0.5, soft besiege (Eq 4): X' = (X_r - X) - E |J X_r - X|;
* r >= 0.5, |E| < 0.5, hard besiege (Eq 6): X' = X_r - E |X_r - X|;
* r < 0.5, |E| >= 0.5, soft besiege with progressive rapid dives (Eq 7-10):
  Y = X_r - E |J X_r - X|, Z = Y + S * LF(D);
* r < 0.5, |E| < 0.5, hard besiege with progressive rapid dives (Eq 11-13):
  Y = X_r - E |J X_r - X_m|, Z = Y + S * LF(D);

with S ~ U(0, 1)^D and LF the Levy flight 0.01 u sigma / |v|^(1/beta), beta = 1.5 (Eq 9).
In the dive branches the hawk moves to Y if F(Y) < F(X), else to Z if F(Z) < F(X), else
stays (Eq 10, 13); the other branches always move.  q < 0.5 / q >= 0.5 follows the
paper's Eq 1 (the authors' code swaps the labels; the two rules are equally likely).

Evaluations: one per hawk (its new point or Y), then Z for each diving hawk whose Y did not
improve, so an iteration costs N plus the failed dives.  Iterations continue until N x
``iterations`` evaluations are spent, the last batch truncated; the schedule t is the
fraction of the budget spent (``paramid.optim.po.Ledger``).  Known fitness values are never
re-evaluated (the authors' code evaluates every hawk again at the top of each iteration).
Choices: ``docs/choices.md`` (section HHO).
"""

from __future__ import annotations

import numpy as np

from paramid.optim.base import OptimResult, Problem, optimiser, take_columns
from paramid.optim.po import Draws, ledger_start, levy_steps, settle


@optimiser()
def hho(prob: Problem) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with HHO; see the module docstring."""
    ledger, lo, hi, X, f = ledger_start(prob)
    dim, n = prob.dim, prob.population
    # E0, q, r1, r2, r3, r4, random hawk, escape chance r, r5 (jump strength)
    scalars = Draws(prob.gens, (9, n))
    dives = Draws(prob.gens, (dim, n))  # S of Eq 8
    normals = Draws(prob.gens, (2, dim, n), normal=True)
    while not ledger.done:
        t = ledger.progress[:, None]
        u, S, z = scalars.next(), dives.next(), normals.next()
        E = 2.0 * (2.0 * u[:, 0] - 1.0) * (1.0 - t)  # Eq 3
        absE = np.abs(E)
        explore = absE >= 1.0
        perch_family = u[:, 1] >= 0.5
        stay_put = u[:, 7] >= 0.5  # r >= 0.5: the rabbit does not escape
        soft = absE >= 0.5
        J = 2.0 * (1.0 - u[:, 8])
        best = ledger.best_x[:, :, None]
        mean = X.mean(axis=2, keepdims=True)
        E3, J3 = E[:, None, :], J[:, None, :]
        # Exploration (Eq 1)
        other = np.minimum((u[:, 6] * n).astype(np.intp), n - 1)
        X_rand = take_columns(X, other)
        family = X_rand - u[:, None, 2] * np.abs(X_rand - 2.0 * u[:, None, 3] * X)
        tree = (best - mean) - u[:, None, 4] * (prob.lower + u[:, None, 5] * prob.span)
        new = np.where(perch_family[:, None, :], family, tree)
        # Exploitation (Eq 4, 6, 7, 11): besiege targets
        leap = J3 * best
        gap = best - X
        jump = E3 * np.abs(leap - X)
        soft_move = gap - jump  # Eq 4
        np.abs(gap, out=gap)
        gap *= E3
        hard_move = np.subtract(best, gap, out=gap)  # Eq 6
        dive_soft = np.subtract(best, jump, out=jump)  # Eq 7
        leap -= mean
        np.abs(leap, out=leap)
        leap *= E3
        dive_hard = np.subtract(best, leap, out=leap)  # Eq 12
        besiege = np.where(soft[:, None, :], soft_move, hard_move)
        dive_y = np.where(soft[:, None, :], dive_soft, dive_hard)
        dive = ~explore & ~stay_put
        exploit = np.where(stay_put[:, None, :], besiege, dive_y)
        new = np.where(explore[:, None, :], new, exploit)
        settle(new, lo, hi, out=new)
        f_new, _ = ledger.evaluate(new)
        # Rapid dives (Eq 10, 13): Z where Y did not improve.
        y_better = f_new < f
        need_z = dive & ~y_better
        Z = dive_y + S * levy_steps(z[:, 0], z[:, 1], scale=0.01)  # Eq 8-9
        settle(Z, lo, hi, out=Z)
        f_z, _ = ledger.evaluate(Z, need_z)
        z_better = need_z & (f_z < f)
        move = ~dive | y_better
        X = np.where(move[:, None, :], new, np.where(z_better[:, None, :], Z, X))
        f = np.where(move, f_new, np.where(z_better, f_z, f))
    return ledger.result()
