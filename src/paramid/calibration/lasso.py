"""M3: LASSO on the linear error model (paper Eq 11), lambda chosen by K-fold CV."""

from __future__ import annotations

import numpy as np

from paramid.calibration.problem import FloatArray, Problem

__all__ = ["lasso_cd", "lasso_fit"]


def lasso_cd(
    X: FloatArray, y: FloatArray, lam: float, sweeps: int, beta0: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """Coordinate descent for min (1/2N)|y - X b|^2 + lam |b|_1; returns (b, path (sweeps, p)).

    Cyclic exact coordinate minimisation with soft thresholding (Friedman et al. 2010). A
    zero column does not enter the loss: its coefficient keeps its start value.  A sweep that
    changes no coefficient leaves b and the residual as they were, so every later sweep would
    repeat it: the path is b from there on, and the loop stops.
    """
    N, p = X.shape
    start = np.zeros(p) if beta0 is None else np.asarray(beta0, dtype=np.float64)
    resid = y - X @ start
    col_sq = (np.sum(X * X, axis=0) / N).tolist()
    columns = list(X.T)  # the views X[:, j]
    b = start.tolist()  # Python floats: the scalar steps below skip numpy's overhead
    active = [j for j in range(p) if col_sq[j] != 0.0]
    lam = float(lam)
    path = np.empty((sweeps, p))
    for s in range(sweeps):
        changed = False
        for j in active:
            rho = float(columns[j].dot(resid)) / N + col_sq[j] * b[j]  # the BLAS dot of @
            sign = 1.0 if rho > 0.0 else -1.0 if rho < 0.0 else 0.0 if rho == 0.0 else rho  # NaN
            new = sign * max(abs(rho) - lam, 0.0) / col_sq[j]
            if new != b[j]:
                resid -= columns[j] * (new - b[j])
                b[j] = new
                changed = True
        path[s] = b
        if not changed:  # a fixed point: the later sweeps are this one
            path[s + 1 :] = b
            break
    return np.array(b), path


def lasso_fit(
    problem: Problem, *, sweeps: int, folds: int, n_lambda: int, lambda_ratio: float
) -> tuple[FloatArray, FloatArray, float]:
    """M3: LASSO on the linear error model (Eq 11) with standardised columns.

    lambda is chosen by ``folds``-fold cross-validation over points (fold = point index mod
    ``folds``) on a log grid from lambda_max down to lambda_max x ``lambda_ratio``, each fit
    ``sweeps`` coordinate-descent sweeps; returns (x, path (sweeps, r), lambda).
    """
    H0, z0 = problem.linearised()
    scale = np.linalg.norm(H0, axis=0) / np.sqrt(H0.shape[0])
    Xs = H0 / scale
    n_pts = problem.q_train.shape[0]
    lam_max = np.max(np.abs(Xs.T @ z0)) / Xs.shape[0]
    grid = lam_max * np.logspace(0.0, np.log10(lambda_ratio), n_lambda)
    fold = np.repeat(np.arange(n_pts) % folds, 3)
    cv = np.zeros(n_lambda)
    for k in range(folds):
        X_train, z_train = Xs[fold != k], z0[fold != k]
        X_test, z_test = Xs[fold == k], z0[fold == k]
        b = None
        for i, lam in enumerate(grid):  # warm starts along the path
            b, _ = lasso_cd(X_train, z_train, lam, sweeps, b)
            cv[i] += np.sum((z_test - X_test @ b) ** 2)
    lam = float(grid[int(np.argmin(cv))])
    b, path = lasso_cd(Xs, z0, lam, sweeps)
    return b / scale, path / scale, lam
