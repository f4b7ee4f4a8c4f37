"""Data of the nonlinear-friction study: records, the direct objective, the RLS prior and the
search boxes (hip paper §3.1, §4.1).

:class:`Data` holds one processed record as a :class:`paramid.friction.laws.HipModel` needs it
(the hip package builds it from a record); :func:`rmse_rows` is the torque RMSE of
Eq 13/21 on the *direct* residual path (no Gram matrix exists for a nonlinear model);
:func:`rigid_bounds` reads the rigid-body part of the saved RLS prior
(:class:`paramid.rls.SavedPrior`: Algorithm 1 steps 1-4) and :func:`search_box` gives the box
each fitting method searches.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid import population
from paramid.friction.laws import RIGID_PARAMS, HipModel
from paramid.optim.objectives import RowwiseObjective
from paramid.rls import SavedPrior

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Data:
    """One processed record as a hip model needs it: H_rb (K, 3), q̇ (K,), torque (K,).

    H_rb is kept column-major: each rigid-body column that :meth:`HipModel.torque` multiplies
    by is then contiguous (the same products, faster than a strided column)."""

    H_rb: Array
    qd: Array
    y: Array

    def __post_init__(self) -> None:
        object.__setattr__(self, "H_rb", np.asfortranarray(self.H_rb))


# Rows per block of :func:`rmse_rows`: a block's (rows, K) temporaries stay near this many
# samples (256 KiB of float64), which stay in the CPU's cache
BLOCK_SAMPLES = 32_768


def rmse_rows(hip: HipModel, data: Data, X: ArrayLike) -> Array:
    """Torque RMSE (Eq 13/21) of each parameter row of X (..., dim): direct residual path.

    Elementwise operations and a row reduction only (no BLAS), so a row's value does not
    depend on the other rows in the batch; the rows are therefore scored in blocks of about
    :data:`BLOCK_SAMPLES` residuals (cache blocking: the same values, about 40 % less CPU than one
    (rows, K) pass for a population at K = 460).
    """
    X = np.asarray(X, dtype=np.float64)
    rows = X.reshape(-1, X.shape[-1] if X.ndim else 1)  # hip.torque checks the parameters
    step = max(1, BLOCK_SAMPLES // max(1, data.y.size))
    out = np.empty(rows.shape[0])
    for start in range(0, rows.shape[0], step):
        residual = hip.torque(data.H_rb, data.qd, rows[start : start + step])
        np.subtract(data.y, residual, out=residual)
        np.square(residual, out=residual)
        # the mean as np.mean forms it (sum along the row, then / K), without its overhead
        total = np.add.reduce(residual, axis=-1)
        out[start : start + step] = np.sqrt(np.divide(total, residual.shape[-1], out=total))
    return out.reshape(X.shape[:-1])


def objective(hip: HipModel, data: Data) -> RowwiseObjective:
    """Batched objective f(X (runs, pop, dim)) -> (runs, pop) for :mod:`paramid.optim`."""
    return RowwiseObjective(lambda rows: rmse_rows(hip, data, rows))


def rigid_bounds(prior: SavedPrior) -> tuple[Array, Array]:
    """The RLS box of the rigid-body parameters (Mxt, Myt, Jt) of a saved Eq 6 prior."""
    idx = [prior.names.index(p) for p in RIGID_PARAMS]
    return prior.lower[idx], prior.upper[idx]


def search_box(
    hip: HipModel,
    method: str,
    rigid_lower: ArrayLike,
    rigid_upper: ArrayLike,
    friction_bounds: Mapping[str, Sequence[float]] | None,
    standard: Mapping[str, float],
) -> tuple[Array, Array]:
    """The box a method searches: rigid body from RLS (or the standard box for PSO), friction
    parameters from their configured physical bounds (every method; the model needs them)."""
    fb = hip.friction.bounds_array(friction_bounds)
    if method in population.POPULATION_METHODS:
        rl, ru = population.search_box(method, hip.n_rigid, rigid_lower, rigid_upper, standard)
    else:  # the deterministic baselines search the RLS box
        rl, ru = np.asarray(rigid_lower, float), np.asarray(rigid_upper, float)
    return np.concatenate([rl, fb[:, 0]]), np.concatenate([ru, fb[:, 1]])
