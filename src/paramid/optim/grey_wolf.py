"""Grey wolf optimiser (Mirjalili et al. 2014; paper Eq 14-16) and its adaptive schedule (Eq 11-12).

GWO and AGWO are one implementation, ``_grey_wolf``, differing only in the exponent mu of
the convergence factor a = 2[1 - (g/G)^mu] (Eq 11): GWO is mu = 1 (the standard linear
schedule), AGWO uses mu(gamma) = mu_base + kappa exp(gamma) (Eq 12).  Because x**1.0 == x
exactly, ``agwo`` with mu_base = 1, kappa = 0 reproduces ``gwo`` bit for bit.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from paramid.optim import base
from paramid.optim.base import FloatArray, OptimResult, Problem, optimiser

LEADERS = 3  # alpha, beta, delta


def convergence_factor(t: FloatArray, mu: float) -> FloatArray:
    """Eq 11: a = 2[1 - t^mu] for schedule fractions t = g/G (see ``base.progress``)."""
    return 2.0 * (1.0 - np.power(t, mu))


def adaptive_exponent(
    gamma: npt.ArrayLike, mu_base: float = 0.45, kappa: float = 0.25
) -> FloatArray:
    """Eq 12: mu(gamma) = mu_base + kappa exp(gamma), gamma the friction index of Eq 10.

    Elementwise over ``gamma`` (one value per record); a 0-d array for a scalar.
    """
    mu = mu_base + kappa * np.exp(np.asarray(gamma, dtype=float))
    if not np.all(np.isfinite(mu) & (mu > 0)):
        raise ValueError(
            f"mu = {mu} from gamma={np.asarray(gamma)}, mu_base={mu_base}, kappa={kappa}"
        )
    return mu


@optimiser(min_population=LEADERS)
def gwo(prob: Problem) -> OptimResult:
    """Standard bounded GWO: Eq 14-16 with the linear schedule a = 2(1 - g/G) (Eq 11, mu=1)."""
    return _grey_wolf(prob, mu=1.0)


@optimiser(min_population=LEADERS)
def agwo(
    prob: Problem,
    *,
    gamma: float,
    mu_base: float = 0.45,
    kappa: float = 0.25,
) -> OptimResult:
    """Adaptive GWO: Eq 14-16 with a = 2[1 - (g/G)^mu], mu = mu_base + kappa exp(gamma).

    ``gamma`` is the non-smooth friction severity index of Eq 10 (0.0328 in the paper's
    Table 2), computed by the caller from the RLS estimate.
    """
    mu = float(adaptive_exponent(gamma, mu_base, kappa))
    return _grey_wolf(prob, mu=mu)


def _grey_wolf(prob: Problem, *, mu: float) -> OptimResult:
    """Eq 14-16 with leaders alpha, beta, delta = the three best points evaluated so far.

    Per wolf i and leader l: A_l = a(2 r1 - 1), C_l = 2 r2 (Eq 14), D_l = |C_l X_l - X_i|,
    Y_l = X_l - A_l D_l (Eq 15), X_i <- clip_[L, U]((Y_alpha + Y_beta + Y_delta) / 3)
    (Eq 16), evaluated as sum_l X_l / 3 - (a / 3) sum_l (2 r1 - 1) D_l.  The leader archive
    keeps the three best evaluations of the whole run (ties favour the older point), so a
    leader is never lost when the pack moves away from it.
    """
    runs, dim, n = prob.runs, prob.dim, prob.population
    a = convergence_factor(base.progress(prob.iterations), mu)
    lo, hi = prob.box(n)
    rows = np.arange(runs)[:, None]

    # pool[..., :3] mirrors the leader archive, pool[..., 3:] the pack; fpool their values.
    X = prob.initial()
    pool = np.empty((runs, dim, LEADERS + n))
    fpool = np.empty((runs, LEADERS + n))
    pool[..., LEADERS:] = X
    pool[..., :LEADERS] = X[..., :LEADERS]
    fpool[:, :LEADERS] = np.inf  # empty archive
    fpool[:, LEADERS:] = prob.evaluate(X)
    leaders = _select_leaders(pool, fpool, rows)  # (runs, 3, dim): alpha, beta, delta
    history = np.empty((runs, prob.iterations))
    history[:, 0] = fpool[:, 0]

    term = np.empty((runs, LEADERS, dim, n))
    step_x = np.empty_like(X)
    blocks = base.step_blocks(prob.iterations - 1, 2 * LEADERS * dim * n)
    A_by_a = base.block_buffer(runs, blocks, (LEADERS, dim, n))
    C = base.block_buffer(runs, blocks, (LEADERS, dim, n))
    for start, stop in blocks:
        base.uniform_block(prob.gens, A_by_a[:, : stop - start], signed=True)  # 2 r1 - 1 ~ U(-1, 1)
        base.uniform_block(prob.gens, C[:, : stop - start], high=2.0)  # C = 2 r2 ~ U(0, 2)
        for i, step in enumerate(range(start, stop)):
            np.multiply(C[:, i], leaders[..., None], out=term)  # C_l X_l
            term -= X[:, None]
            np.abs(term, out=term)  # D_l
            term *= A_by_a[:, i]
            np.add.reduce(term, axis=1, out=step_x)
            step_x *= a[step] / LEADERS  # sum_l A_l D_l / 3
            np.subtract(np.add.reduce(leaders, axis=1)[..., None] / LEADERS, step_x, out=step_x)
            base.project(step_x, lo, hi, out=X)
            pool[..., LEADERS:] = X
            fpool[:, LEADERS:] = prob.evaluate(X)
            leaders = _select_leaders(pool, fpool, rows)
            history[:, step + 1] = fpool[:, 0]
    return prob.result(leaders[:, 0], fpool[:, 0], history)


def _select_leaders(pool: FloatArray, fpool: FloatArray, rows: np.ndarray) -> FloatArray:
    """Keep the three best of archive + pack in the archive slots, per run (stable order).

    Returns the leaders as (runs, 3, dim).
    """
    order = np.argsort(fpool, axis=1, kind="stable")[:, :LEADERS]
    leaders = pool[rows, :, order]
    pool[..., :LEADERS] = leaders.transpose(0, 2, 1)
    fpool[:, :LEADERS] = fpool[rows, order]
    return leaders
