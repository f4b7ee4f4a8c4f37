"""The KR210 filters as first written, before their exact speed-ups (``Problem.jacobian`` per
call, fresh arrays): the reference the optimised ``sequential_ekf`` and ``ekf`` must equal bit
for bit (tests/test_calibration.py) and the baseline perf/calibration_filters.py times them
against."""

from __future__ import annotations

import numpy as np

from paramid.calibration.filters import _kalman_step, _noise_model, _solve, _symmetrise
from paramid.calibration.problem import state_scale


def reference_sequential_ekf(problem, C0, S0, R0, factors, iterations, *, gsbise=False, unit=1.0):
    """The per-point filter as first written (``Problem.jacobian`` per point, fresh arrays):
    the reference the optimised :func:`sequential_ekf` must equal bit for bit."""
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    n = problem.p_train.shape[0]
    R = R.reshape(*batch, n, 3)
    z, scale = problem.p_train, state_scale(problem, unit)
    x = np.zeros((*batch, r))
    diag = C.reshape(*batch, r * r)[..., :: r + 1]
    path, priors = np.empty((*batch, iterations, r)), np.empty((*batch, iterations, r))
    post = x
    for k in range(iterations):
        priors[..., k, :] = x
        for i in range(n):
            diag += S
            H, h = problem.jacobian(x, "train", slice(i, i + 1))
            H = H * scale
            HC = H @ C
            G = HC @ np.swapaxes(H, -1, -2)
            G.reshape(*batch, 9)[..., ::4] += R[..., i, :]
            KT = _solve(G, HC)
            step = ((z[i] - h)[..., None, :] @ KT)[..., 0, :] * scale
            C -= np.swapaxes(KT, -1, -2) @ HC
            post = x + step
            x = post + (post - x) if gsbise else post
        path[..., k, :] = post
        C[...] = _symmetrise(C)
    return path, C, priors


def reference_ekf(problem, C0, S0, R0, factors, iterations, *, gsbise=False, unit=1.0):
    """The batch filter as first written (``Problem.jacobian`` of all points, fresh arrays)."""
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    scale = state_scale(problem, unit)
    outer, z, W = scale[:, None] * scale, problem.p_train.reshape(-1), 1.0 / R
    x = np.zeros((*batch, r))
    path = np.empty((*batch, iterations, r))
    for k in range(iterations):
        H, h = problem.jacobian(x)
        HtW = np.swapaxes(H * W[..., None], -1, -2)
        A = (HtW @ H) * outer
        g = (HtW @ (z - h)[..., None])[..., 0] * scale
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx * scale
        path[..., k, :] = post
        x = post + (post - x) if gsbise else post
    return path, C
