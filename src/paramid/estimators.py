"""Linear least squares shared by every study: LS and bound-constrained LS (hip paper §3.3,
Eq 17), the torque RMSE (Eq 13, 21), rank, conditioning and collinearity of a regressor.

Both estimators minimise ‖T_m − H X‖²; the torque RMSE is the figure of merit.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy  # submodules load on first use (cheap imports for jobs that never fit)
from numpy.typing import NDArray

Array = NDArray[np.float64]


def rmse(H: Array, y: Array, x: Array) -> float:
    """Torque RMSE of parameters x on a record (Eq 13, 21)."""
    r = y - H @ x
    return float(np.sqrt(np.mean(r * r)))


def check_rank(H: Array, record: str = "record") -> None:
    """Raise if H is rank-deficient (the LS problem of Eq 4 has no unique solution)."""
    rank = np.linalg.matrix_rank(H)
    if rank < H.shape[1]:
        involved = collinear_columns(H, [f"column {i}" for i in range(H.shape[1])])
        raise ValueError(
            f"{record}: regressor has rank {rank} < {H.shape[1]} columns; "
            f"{involved} are collinear: the record does not excite every parameter"
        )


def ls(H: Array, y: Array) -> Array:
    """Unconstrained least squares, scipy.linalg.lstsq (SVD driver)."""
    check_rank(H)
    return scipy.linalg.lstsq(H, y, lapack_driver="gelsd")[0]


def bcls(H: Array, y: Array, lower: Array, upper: Array) -> Array:
    """Bound-constrained least squares within [L, U] (Eq 17), scipy's bounded-variable LS."""
    check_rank(H)
    lower, upper = np.asarray(lower, float), np.asarray(upper, float)
    if np.any(lower > upper):
        raise ValueError("BCLS bounds have lower > upper")
    if np.any(lower == upper):  # lsq_linear needs lb < ub: fix those parameters, solve the rest
        fixed = lower == upper
        x = lower.copy()
        free = ~fixed
        if free.any():
            x[free] = bcls(H[:, free], y - H[:, fixed] @ lower[fixed], lower[free], upper[free])
        return x
    return scipy.optimize.lsq_linear(H, y, bounds=(lower, upper), method="bvls", tol=1e-12).x


@dataclass(frozen=True)
class Timed:
    """An estimate and the median wall-clock time of one fit."""

    x: Array
    time_ms: float


def timed(fit: Callable[[], Array], repeats: int) -> Timed:
    """Run ``fit`` ``repeats`` times and keep the median time (sub-ms fits are noisy)."""
    times = []
    x = fit()
    for _ in range(repeats):
        start = time.perf_counter()
        fit()
        times.append(time.perf_counter() - start)
    return Timed(x, 1e3 * float(np.median(times)))


def condition_number(H: Array) -> float:
    """2-norm condition number of H (ratio of extreme singular values)."""
    s = np.linalg.svd(H, compute_uv=False)
    return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")


def collinear_columns(H: Array, keys: Sequence[str]) -> list[str]:
    """Keys of the columns involved in a linear dependency of H ([] when H has full rank).

    A column is involved when it carries weight in a right singular vector of a singular
    value below numpy's rank tolerance.
    """
    _, s, vt = np.linalg.svd(H, full_matrices=False)  # economic: O(N d) memory
    tol = s.max(initial=0.0) * max(H.shape) * np.finfo(np.float64).eps
    rank = int(np.sum(s > tol))
    if rank == H.shape[1]:
        return []
    null = vt[rank:]
    weight = np.max(np.abs(null), axis=0)
    return [k for k, w in zip(keys, weight, strict=True) if w > 1e-8]
