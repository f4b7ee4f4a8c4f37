"""Hippopotamus optimisation (HO), Amiri et al. (2024).

Reference: M. H. Amiri, N. Mehrabi Hashjin, M. Montazeri, S. Mirjalili, N. Khodadadi,
"Hippopotamus optimization algorithm: a novel nature-inspired optimization algorithm",
Scientific Reports 14 (2024) 5032; equation numbers as in that paper.

Per iteration (X_D the dominant hippo = best point so far, greedy replacement after each
candidate, as in Eq 7, 12 and 17):

* phase 1, position in the river (first half, i <= N/2; Eq 4-7): I1, I2 ~ {1, 2}; a random
  group of g ~ U{1..N} distinct hippos with mean MG_i;
  X_P1 = X + y1 (X_D - I1 X), y1 ~ U(0, 1) (Eq 4);
  T = exp(-t/T_max) (Eq 5); T > 0.6: X_P2 = X + h1 (X_D - I2 MG_i), else with probability
  1/2 X_P2 = X + h2 (MG_i - X_D) and otherwise a uniform random point (Eq 6), with h1, h2
  drawn from Eq 5's five forms {I2 r + !q1, 2 r - 1, r, I1 r + !q2, r_scalar};
  X_P1 then X_P2 replace X when better (Eq 7);
* phase 2, defence against a predator (second half; Eq 8-12): a uniform random predator
  point is evaluated; with D = |predator - X| and b ~ U(2, 4), c ~ U(1, 1.5),
  d ~ U(2, 3), l ~ U(-2 pi, 2 pi), RL = 0.05 Levy(1.5):
  X_P3 = RL * predator + b / (c - d cos l) / D if F(predator) < F(X), else
  X_P3 = RL * predator + b / (c - d cos l) / (2 D + r) (Eq 11), greedy (Eq 12);
* phase 3, escaping (all hippos; Eq 13-17): lb_local = lb / g, ub_local = ub / g with g the
  iteration number, s one of {2 r - 1, r_scalar, n_scalar ~ N(0, 1)}:
  X_P4 = X + r_scalar (lb_local + s (ub_local - lb_local)), greedy (Eq 17).

Evaluations: 2 (phase 1 or 2) + 1 (phase 3) per hippo, 3 N per iteration (the predator's
value is a real evaluation and counts).  Iterations continue until N x ``iterations``
evaluations are spent, the last batch truncated; T uses the budget fraction t
(``paramid.optim.po.Ledger``).  Within a phase all hippos move from the same population
(the authors' code updates them one after another); see ``docs/choices.md`` (section HO).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from paramid.optim.base import FloatArray, OptimResult, Problem, optimiser
from paramid.optim.po import Draws, ledger_start, levy_steps, settle


@optimiser(min_population=2)
def ho(prob: Problem) -> OptimResult:
    """Minimise ``objective`` over [lower, upper] with HO; see the module docstring."""
    ledger, lo, hi, X, f = ledger_start(prob)
    runs, dim, n = prob.runs, prob.dim, prob.population
    half = n // 2
    river = np.arange(n) < half  # phase 1 hippos; the rest defend (phase 2)
    # Scalars per hippo: I1, I2, q1, q2, y1, form h1, form h2, r (h scalar form), branch,
    # b, c, d, l, form s, r (s scalar form), r (phase 3 step), group size
    scalars = Draws(prob.gens, (17, n))
    vectors = Draws(prob.gens, (6, dim, n))  # h-form r (x2), random point, predator, r, s
    group_keys = Draws(prob.gens, (max(half, 1), n))  # random group membership keys
    normals = Draws(prob.gens, (3, dim, n), normal=True)  # Levy u, v; s normal (row 2, [0])
    iteration = 0
    while not ledger.done:
        iteration += 1
        t = ledger.progress[:, None, None]
        u, w, keys, z = scalars.next(), vectors.next(), group_keys.next(), normals.next()
        best = ledger.best_x[:, :, None]
        # Phase 1 (Eq 4-6)
        I1 = 1.0 + (u[:, 0] >= 0.5)
        I2 = 1.0 + (u[:, 1] >= 0.5)
        not_q1, not_q2 = (u[:, 2] < 0.5).astype(float), (u[:, 3] < 0.5).astype(float)
        mean_group = np.zeros_like(X)  # only the river hippos (first half) use MG_i
        if half:
            mean_group[..., :half] = _random_group_mean(X, keys[:, :half], u[:, 16, :half])
        p1 = X + u[:, None, 4] * (best - I1[:, None] * X)  # Eq 4
        early = np.exp(-t) > 0.6  # Eq 5, T = exp(-t/T_max), (runs, 1, 1)
        # Eq 6 per run: the early branch or the late one; a branch no run takes is not formed
        branches = []
        if early.any():
            h1 = _h_form(w[:, 0], u[:, 5], I1, I2, not_q1, not_q2, u[:, 7])
            branches.append(X + h1 * (best - I2[:, None] * mean_group))
        if not early.all():
            h2 = _h_form(w[:, 1], u[:, 6], I1, I2, not_q1, not_q2, u[:, 7])
            uniform_point = prob.lower + w[:, 2] * prob.span
            moved = X + h2 * (mean_group - best)
            branches.append(np.where((u[:, 8] > 0.5)[:, None], moved, uniform_point))
        p2 = np.where(early, *branches) if len(branches) == 2 else branches[0]
        settle(p1, lo, hi, out=p1)
        settle(p2, lo, hi, out=p2)
        predator = prob.lower + w[:, 3] * prob.span  # Eq 8
        # Batch 1: P1 of the river hippos, then P2 of the river hippos, then the predators.
        batch = np.concatenate((p1, p2, predator), axis=2)
        want = np.concatenate((river, river, ~river))[None, :].repeat(runs, axis=0)
        values, _ = ledger.evaluate(batch, want)
        f_p1, f_p2, f_pred = values[:, :n], values[:, n : 2 * n], values[:, 2 * n :]
        X, f = _greedy(X, f, p1, f_p1, river)
        X, f = _greedy(X, f, p2, f_p2, river)
        # Phase 2 (Eq 9-11)
        distance = np.abs(predator - X)
        b, c, d = 2.0 + 2.0 * u[:, 9], 1.0 + 0.5 * u[:, 10], 2.0 + u[:, 11]
        ell = 4.0 * np.pi * u[:, 12] - 2.0 * np.pi
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = (b / (c - d * np.cos(ell)))[:, None]
            near = factor / distance
            far = factor / (2.0 * distance + w[:, 4])
            RL = levy_steps(z[:, 0], z[:, 1], scale=0.05)
            p3 = RL * predator + np.where((f > f_pred)[:, None], near, far)
        settle(p3, lo, hi, out=p3)
        f_p3, _ = ledger.evaluate(p3, np.broadcast_to(~river, (runs, n)))
        X, f = _greedy(X, f, p3, f_p3, ~river)
        # Phase 3 (Eq 13-16)
        p4 = _local_search(X, prob, iteration, u, w, z)
        settle(p4, lo, hi, out=p4)
        f_p4, _ = ledger.evaluate(p4)
        X, f = _greedy(X, f, p4, f_p4, np.ones(n, dtype=bool))
    return ledger.result()


def _local_search(
    X: FloatArray, prob: Problem, iteration: int, u: FloatArray, w: FloatArray, z: FloatArray
) -> FloatArray:
    """Phase 3 (Eq 13-16): a step inside the shrinking local box [L/t, U/t] (t = iteration),
    scaled by one of the three forms of s (uniform vector, scalar, normal)."""
    lo_local, hi_local = prob.lower / iteration, prob.upper / iteration
    s = _pick((2.0 * w[:, 5] - 1.0, u[:, None, 14], z[:, 2, :1]), u[:, 13])
    return X + u[:, None, 15] * (lo_local + s * (hi_local - lo_local))


def _h_form(
    r: FloatArray,
    u: FloatArray,
    I1: NDArray[np.floating],
    I2: NDArray[np.floating],
    not_q1: FloatArray,
    not_q2: FloatArray,
    r_scalar: FloatArray,
) -> FloatArray:
    """h per hippo (runs, dim, n): Eq 5's form k = floor(5 u) (as in :func:`_pick`) of one
    U(0, 1) vector draw r (runs, dim, n), the forms being

        I2 r + !q1,  2 r - 1,  r,  I1 r + !q2,  r_scalar.

    Each is evaluated as alpha r + beta with the hippo's (alpha, beta) = (I2, !q1), (2, -1),
    (1, 0), (I1, !q2), (0, r_scalar): the same doubles as the forms themselves, since r and
    r_scalar are uniforms in [0, 1) (so 1 r + 0 = r, 0 r + r_scalar = r_scalar exactly, and
    2 r + (-1) is 2 r - 1), in two passes over the (runs, dim, n) array instead of five
    forms and four selections.
    """
    k = np.minimum((u * 5).astype(np.intp), 4)[None]  # (1, runs, n)
    alpha = np.take_along_axis(np.stack(np.broadcast_arrays(I2, 2.0, 1.0, I1, 0.0)), k, 0)[0]
    beta = np.take_along_axis(
        np.stack(np.broadcast_arrays(not_q1, -1.0, 0.0, not_q2, r_scalar)), k, 0
    )[0]
    h = np.multiply(alpha[:, None], r)
    h += beta[:, None]
    return h


def _pick(forms: Sequence[FloatArray], u: FloatArray) -> FloatArray:
    """forms[k] per hippo (runs, dim, n) with k = floor(len(forms) u) (uniform over the forms);
    ``forms[0]`` is (runs, dim, n), the others broadcast against it."""
    count = len(forms)
    k = np.minimum((u * count).astype(np.intp), count - 1)[:, None, :]
    out = forms[0]
    for j in range(1, count):
        out = np.where(k == j, forms[j], out)
    return out


def _random_group_mean(X: FloatArray, keys: FloatArray, u: FloatArray) -> FloatArray:
    """Mean of a random group of g ~ U{1..N} distinct hippos per river hippo (Eq 6's MG_i).

    keys (runs, hippos, N) are uniform; hippo i's group is the g members with the smallest
    keys, i.e. the first g of a uniform random permutation (members whose key ties the g-th
    smallest, probability ~1e-6 per group with 32-bit keys, join the group too: the mean
    is over the actual members).
    """
    n = X.shape[2]
    size = np.minimum((u * n).astype(np.intp), n - 1)  # g - 1, (runs, hippos)
    threshold = np.take_along_axis(np.sort(keys, axis=2), size[:, :, None], axis=2)
    member = (keys <= threshold).astype(np.float64)  # (runs, hippo, member)
    total = np.matmul(X, member.transpose(0, 2, 1))  # (runs, dim, hippo)
    return total / member.sum(axis=2)[:, None, :]


def _greedy(
    X: FloatArray, f: FloatArray, cand: FloatArray, f_cand: FloatArray, mask: np.ndarray
) -> tuple[FloatArray, FloatArray]:
    """Replace X_i by the candidate where it is better (strictly) and flagged by ``mask``."""
    take = (f_cand < f) & mask
    return np.where(take[:, None, :], cand, X), np.where(take, f_cand, f)
