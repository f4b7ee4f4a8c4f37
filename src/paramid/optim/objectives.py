"""Batched objectives: f(X) -> values with X (runs, population, dim) and values (runs, population).

``LinearRMSE`` is the torque RMSE of the paper's Eq 13 for a fixed regressor ``H`` (Eq 4-6);
``RowwiseObjective`` wraps any row function (e.g. a nonlinear friction model) in the same
interface; ``CountingObjective`` counts, per run, the rows that were actually evaluated.

Every objective here computes each row from that row alone with elementwise operations and
reductions in a fixed order (no BLAS, whose kernels may round differently depending on the
batch shape), so a candidate's value does not depend on which other runs share the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]


class Objective(Protocol):
    """Batched objective: X (runs, population, dim) float64 -> values (runs, population)."""

    def __call__(self, X: FloatArray, /) -> FloatArray: ...


class LinearRMSE:
    """Eq 13: J(x) = sqrt(mean_k (y_k - H_k x)^2) for every candidate row of X.

    ``H`` (K, d) and ``y`` (K,) are shared by every run; ``H`` (runs, K, d) and ``y`` (runs,
    K) give each run its own regressor (run r's rows of X are scored on ``H[r]``, ``y[r]``,
    with the numbers of a call with that run alone: ``by_run``).

    ``path="gram"`` (default) costs O(d^2) per candidate, independent of K.  It precomputes
    the triangular factor R of the Gram matrix (H^T H = R^T R, from a reduced QR H = QR),
    c = Q^T y and s0 = ||y - Q c||^2, and evaluates

        K J^2 = s0 + ||R x - c||^2,

    which is algebraically the expanded form y^T y - 2 x^T H^T y + x^T H^T H x but is a sum
    of non-negative terms: no cancellation near the optimum (where the expanded form loses
    about eps * y^T y / (K J^2) relative accuracy) and no clamp at zero needed.
    ``path="direct"`` forms the K residuals of every candidate (O(K d), the reference).
    """

    def __init__(
        self, H: ArrayLike, y: ArrayLike, *, path: Literal["gram", "direct"] = "gram"
    ) -> None:
        H = np.array(H, dtype=np.float64)
        y = np.array(y, dtype=np.float64)
        if H.ndim not in (2, 3) or y.shape != H.shape[:-1] or H.shape[-2] == 0:
            raise ValueError(
                f"need H (K, d) and y (K,), or H (runs, K, d) and y (runs, K), got {H.shape} "
                f"and {y.shape}"
            )
        if not (np.all(np.isfinite(H)) and np.all(np.isfinite(y))):
            raise ValueError("H and y must be finite")
        if path not in ("gram", "direct"):
            raise ValueError(f"path must be 'gram' or 'direct', got {path!r}")
        #: Whether each run has its own H and y (X's first axis must then have ``runs`` rows).
        self.by_run = H.ndim == 3
        self.runs = H.shape[0] if self.by_run else 1
        self.H, self.y = H.reshape(self.runs, *H.shape[-2:]), y.reshape(self.runs, -1)
        self.path = path
        self.n_samples, self.dim = H.shape[-2:]
        Q, R = np.linalg.qr(self.H)  # per run: LAPACK on each (K, d) block
        c = (np.swapaxes(Q, -1, -2) @ self.y[..., None])[..., 0]  # (runs, d)
        # Scaled by 1/K (1/sqrt K inside the norm): J^2 = s0/K + ||R x/sqrt K - c/sqrt K||^2.
        root = np.sqrt(self.n_samples)
        resid = self.y - (Q @ c[..., None])[..., 0]
        self._s0 = (np.sum(resid**2, axis=-1) / self.n_samples)[:, None]  # (runs, 1)
        # Column j of R as a (rows, runs, 1) array, so R x is a sum of full-array products.
        self._r_cols = [(R[..., j] / root).T[:, :, None] for j in range(self.dim)]
        self._c = (c / root).T[:, :, None]

    def __call__(self, X: FloatArray, active: NDArray[np.bool_] | None = None) -> FloatArray:
        """Values (runs, n) of X (runs, n, d); every row is scored (each from itself alone),
        so ``active`` (the rows a caller reads, :class:`CountingObjective`) changes nothing."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 3 or X.shape[-1] != self.dim:
            raise ValueError(f"X must be (runs, population, {self.dim}), got {X.shape}")
        if self.by_run and X.shape[0] != self.runs:
            raise ValueError(f"X has {X.shape[0]} runs, H and y {self.runs}")
        return self._gram(X) if self.path == "gram" else self._direct(X)

    def _gram(self, X: FloatArray) -> FloatArray:
        Xd = X.transpose(2, 0, 1)  # (d, runs, population)
        z = self._r_cols[0] * Xd[0]
        term = np.empty_like(z)
        for j in range(1, self.dim):
            np.multiply(self._r_cols[j], Xd[j], out=term)
            z += term
        z -= self._c
        np.square(z, out=z)
        sq = np.add.reduce(z, axis=0)
        sq += self._s0
        return np.sqrt(sq, out=sq)

    def _direct(self, X: FloatArray) -> FloatArray:
        residual = np.broadcast_to(self.y[:, None], (*X.shape[:2], self.n_samples)).copy()
        for j in range(self.dim):
            residual -= X[..., j, None] * self.H[:, None, :, j]
        return np.sqrt(np.mean(residual * residual, axis=-1))


class RowwiseObjective:
    """Objective from a row function fn: (n, dim) -> (n,), e.g. a nonlinear model's RMSE.

    ``fn`` must compute each row's value from that row alone (no cross-row reductions or
    matrix products whose rounding depends on n) for batch-independent results.
    """

    def __init__(self, fn: Callable[[FloatArray], ArrayLike]) -> None:
        self.fn = fn

    def __call__(self, X: FloatArray) -> FloatArray:
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 3:
            raise ValueError(f"X must be (runs, population, dim), got {X.shape}")
        rows = np.ascontiguousarray(X.reshape(-1, X.shape[-1]))
        values = np.asarray(self.fn(rows), dtype=np.float64)
        if values.shape != (rows.shape[0],):
            raise ValueError(f"row function returned {values.shape}, expected ({rows.shape[0]},)")
        return values.reshape(X.shape[:2])


class CountingObjective:
    """Counts, per run, the candidate rows actually evaluated and keeps the lowest value
    returned; NaN values become +inf.

    ``counts`` is the evaluation count the optimisers report: it is counted here, at the
    call, never inferred from population sizes and iteration numbers; ``lowest`` is what a
    method's best_f must be (:func:`paramid.optim.base.check_result`).
    """

    def __init__(self, objective: Objective, runs: int) -> None:
        self.objective = objective
        self._counts = np.zeros(runs, dtype=np.int64)
        self._lowest = np.full(runs, np.inf)

    @property
    def counts(self) -> NDArray[np.int64]:
        """Rows evaluated so far, per run (a copy)."""
        return self._counts.copy()

    @property
    def lowest(self) -> FloatArray:
        """The lowest value returned so far, per run (+inf before any; a copy)."""
        return self._lowest.copy()

    def __call__(self, X: FloatArray, active: NDArray[np.bool_] | None = None) -> FloatArray:
        """Values (runs, n) of X (runs, n, dim); with ``active`` (runs, n) only those rows.

        Rows outside ``active`` are not passed to the objective and get +inf.  An objective
        whose rows belong to their run (attribute ``by_run`` true: run r's rows are scored on
        run r's own data) is called as ``objective(X, active)`` and returns (runs, n); its
        values outside ``active`` are ignored.
        """
        runs, n = X.shape[:2]
        if runs != self._counts.size:
            raise ValueError(f"X has {runs} runs, the counter {self._counts.size}")
        if active is None:
            values = np.asarray(self.objective(X), dtype=np.float64)
            if values.shape != (runs, n):
                raise ValueError(f"objective returned {values.shape}, expected {(runs, n)}")
            self._counts += n
        else:
            active = np.asarray(active, dtype=bool)
            if active.shape != (runs, n):
                raise ValueError(f"active must be {(runs, n)}, got {active.shape}")
            values = np.full((runs, n), np.inf)
            if active.any() and getattr(self.objective, "by_run", False):
                objective: Any = self.objective  # (X, active) -> (runs, n)
                by_run = np.asarray(objective(X, active), dtype=np.float64)
                if by_run.shape != (runs, n):
                    raise ValueError(f"objective returned {by_run.shape}, expected {(runs, n)}")
                values[active] = by_run[active]
            elif active.any():
                picked = np.asarray(self.objective(X[active][None]), dtype=np.float64)
                if picked.shape != (1, int(active.sum())):
                    raise ValueError(f"objective returned {picked.shape} for {active.sum()} rows")
                values[active] = picked[0]
            self._counts += active.sum(axis=1)
        values = np.fmin(values, np.inf)  # NaN -> +inf, all else unchanged (a new array)
        if n:
            np.minimum(self._lowest, values.min(axis=1), out=self._lowest)
        return values
