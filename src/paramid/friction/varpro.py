"""Variable projection (separable least squares, Golub & Pereyra 1973) for the hip models of
the nonlinear-friction study (hip paper §3.3, §5.3).

For fixed nonlinear friction parameters eta the model is linear, tau = A(eta) beta, so beta is
solved exactly (least squares, or BCLS of Eq 17 when the least-squares solution leaves the
box); a log/linear grid over eta's bounds, then a bounded trust-region polish of eta from the
best grid point.  Deterministic: one run.  For a linear friction law it is BCLS.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.linalg
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult, lsq_linear

from paramid import estimators
from paramid.friction.data import Data
from paramid.friction.fitters import strict_box, trust_region
from paramid.friction.laws import HipModel
from paramid.friction.runs import Cell, Recorder, RunSet

Array = NDArray[np.float64]


def _solve_linear(A: Array, y: Array, lo: Array, hi: Array) -> Array:
    """beta = argmin ||y − A beta|| (least squares); BCLS (Eq 17) in [lo, hi] if it leaves it."""
    beta = scipy.linalg.lstsq(A, y, lapack_driver="gelsd")[0]
    slack = 1e-12 * np.maximum(1.0, np.abs(beta))
    if np.all(beta >= lo - slack) and np.all(beta <= hi + slack):
        return np.clip(beta, lo, hi)
    try:
        return estimators.bcls(A, y, lo, hi)
    except ValueError:  # rank-deficient columns (e.g. a Stribeck dip too narrow to sample)
        return lsq_linear(A, y, bounds=strict_box(lo, hi), method="trf", tol=1e-12).x


def varpro_grid(
    hip: HipModel, lower: Array, upper: Array, points: int
) -> tuple[Array, list[Array]]:
    """Grid (m, n_nonlinear) over the nonlinear parameters' bounds and its axes.

    ``points`` per parameter, geometric on parameters in ``friction.log_scale`` (when their
    lower bound is positive), linear otherwise; the product of the axes.
    """
    axes = []
    for j in hip.nonlinear_index:
        name = hip.params[j]
        a, b = float(lower[j]), float(upper[j])
        if name in hip.friction.log_scale and a > 0:
            axes.append(np.geomspace(a, b, points))
        else:
            axes.append(np.linspace(a, b, points))
    if not axes:
        return np.empty((1, 0)), axes
    grid = np.array(list(itertools.product(*axes)), dtype=np.float64)
    return grid, axes


def _projected_rmse(
    hip: HipModel, data: Data, eta: Array, lo: Array, hi: Array
) -> tuple[Array, Array]:
    """Variable-projection RMSE and beta for each row of eta (m, n_nl), batched.

    Least squares for the whole batch through the pseudo-inverse of A(eta) (batched SVD,
    robust where a column vanishes); rows whose solution leaves [lo, hi] are redone by BCLS.
    """
    A = hip.basis(data.H_rb, data.qd, eta)  # (m, K, n_lin)
    beta = np.einsum("mnk,k->mn", np.linalg.pinv(A, rcond=1e-12), data.y)
    slack = 1e-12 * np.maximum(1.0, np.abs(beta))
    outside = np.any((beta < lo - slack) | (beta > hi + slack), axis=1)
    for i in np.flatnonzero(outside):
        beta[i] = _solve_linear(A[i], data.y, lo, hi)
    beta = np.clip(beta, lo, hi)
    residual = data.y - np.einsum("mkn,mn->mk", A, beta)
    return np.sqrt(np.mean(residual * residual, axis=1)), beta


def _polish(
    cell: Cell,
    eta: Array,
    beta_box: tuple[Array, Array],
    eta_box: tuple[Array, Array],
    rec: Recorder,
    *,
    max_nfev: int,
    tol: float,
) -> OptimizeResult:
    """TRF (forward differences) on the projected residual over eta in ``eta_box``."""
    hip, cal = cell.hip, cell.cal

    def fun(e: Array) -> Array:
        A = hip.basis(cal.H_rb, cal.qd, e)
        r = cal.y - A @ _solve_linear(A, cal.y, *beta_box)
        rec.value(r)
        return r

    lo_e, hi_e = eta_box
    return trust_region(
        fun, np.clip(eta, lo_e, hi_e), "2-point", lo_e, hi_e, tol=tol, max_nfev=max_nfev
    )


def fit_varpro(
    cell: Cell,
    lower: Array,
    upper: Array,
    *,
    grid_points: int = 11,
    max_nfev: int = 200,
    tol: float = 1e-10,
    timing_repeats: int,
) -> RunSet:
    """Separable least squares: grid + bounded TRF polish over eta, beta exact inside.

    For each eta the linear parameters (rigid body and the friction law's linear
    coefficients) are the least-squares solution of T_m ≈ A(eta) beta, or BCLS in their box
    when that leaves it; so J(eta) = RMSE(T_m − A(eta) beta(eta)) is Eq 13 minimised over
    beta.  The grid (``grid_points`` per nonlinear parameter) is evaluated as one batch, then
    ``least_squares`` (TRF, forward differences, bounds of eta) polishes the best grid
    point.  One evaluation = one projected residual (a K × n_linear solve included).  A
    linear friction law has no eta: the answer is BCLS (Eq 17) in one evaluation.
    """
    hip, cal = cell.hip, cell.cal
    lin, nl = hip.linear_index, hip.nonlinear_index
    lo_b, hi_b = np.asarray(lower, float)[lin], np.asarray(upper, float)[lin]
    eta_box = strict_box(np.asarray(lower, float)[nl], np.asarray(upper, float)[nl])

    def run() -> tuple[Array, Recorder]:
        rec = Recorder()
        grid, _ = varpro_grid(hip, lower, upper, grid_points)
        values, betas = _projected_rmse(hip, cal, grid, lo_b, hi_b)
        rec.batch(values, rec.elapsed_ms())
        k = int(np.argmin(values))
        eta, beta = grid[k], betas[k]
        if nl.size:
            sol = _polish(cell, eta, (lo_b, hi_b), eta_box, rec, max_nfev=max_nfev, tol=tol)
            if 2 * sol.cost / cal.y.size < values[k] ** 2:
                eta = np.clip(sol.x, lower[nl], upper[nl])
                A = hip.basis(cal.H_rb, cal.qd, eta)
                beta = _solve_linear(A, cal.y, lo_b, hi_b)
        return hip.assemble(beta, eta), rec

    repeats = []
    for _ in range(max(1, timing_repeats)):
        theta, rec = run()
        repeats.append((rec.elapsed_ms(), rec))
    elapsed, rec = sorted(repeats, key=lambda item: item[0])[len(repeats) // 2]  # median repeat
    return cell.run_set(
        "varpro", theta[None, :], [rec.evals], [elapsed], [rec.trace()], seeded=False
    )
