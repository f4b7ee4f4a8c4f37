"""Calibration data of a multi-joint robot as QR compressions, streamed over samples.

Every estimator of :mod:`paramid.robot.estimators` that minimises a sum of squared torque
residuals needs the data only through, per joint j, [Y_j y_j] = Q [R_j c_j; 0 ρ_j] (Y_j: joint
j's rows of the standard regressor, y_j its torque): ‖Y_j θ − y_j‖² = ‖R_j θ − c_j‖² + ρ_j² for
every θ.  :func:`compress_records` builds these per time block of every record, computing the
regressor ``chunk`` samples at a time and folding each chunk into the running triangular factor
(Householder QR of the stacked [R; chunk]), so memory is O(chunk · n · p) whatever the length
of the record, and time linear in it.  Blocks are contiguous in time (the folds of a blocked
cross-validation); :meth:`Compressed.joint` merges any set of them, :meth:`Compressed.stacked`
merges the joints too (the whole calibration regressor's R, for the base parameters).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import scipy  # scipy.linalg loads on first use: the workflow's start imports this module
from numpy.typing import NDArray

from paramid import cutoff

Array = NDArray[np.float64]
#: regressor(q, dq, ddq) with (K, n) arrays -> (K, n, p)
Regressor = Callable[[Array, Array, Array], Array]
CHUNK = 10_000  # samples per regressor evaluation: 10 000 x 7 joints x 84 columns = 47 MB


class Channels(Protocol):
    """The arrays of one processed record the compression reads (K, n), time along axis 0
    (:class:`paramid.robot.signals.ProcessedRecord`)."""

    @property
    def q(self) -> Array: ...

    @property
    def dq(self) -> Array: ...

    @property
    def ddq(self) -> Array: ...

    @property
    def tau(self) -> Array: ...


def fold(acc: Array, rows: Array) -> Array:
    """The triangular factor of [acc; rows] (at most ``rows.shape[1]`` rows): Householder QR,
    so ‖[acc; rows] x‖ = ‖fold(acc, rows) x‖ for every x."""
    stacked = np.vstack([acc, rows])
    return scipy.linalg.qr(stacked, mode="r", overwrite_a=True, check_finite=False)[0][
        : rows.shape[1]
    ]


def _split(factor: Array, p: int) -> tuple[Array, Array, float]:
    """(R, c, ρ²) of a folded [Y y] factor, padded with zero rows to p + 1."""
    full = np.zeros((p + 1, p + 1))
    full[: factor.shape[0]] = factor
    return full[:p, :p], full[:p, p], float(full[p, p] ** 2)


def joint_rmse(R: Array, c: Array, rho2: Array, samples: int, theta: Array) -> Array:
    """Each joint's torque RMSE (n,) of the parameters θ on compressed data (R (n, p, p),
    c (n, p), ρ² (n,)) of ``samples`` samples: √((‖R_j θ − c_j‖² + ρ_j²) / samples).  At θ = 0
    it is each joint's RMS torque."""
    squared = np.sum((R @ theta - c) ** 2, axis=1) + rho2
    return np.sqrt(np.maximum(squared, 0.0) / samples)


@dataclass(frozen=True)
class Compressed:
    """Per segment b and joint j: R (B, n, p, p), c (B, n, p), ρ² (B, n) of that segment's rows;
    per segment (B,): its ``samples``, ``record`` (index), cross-validation ``fold`` and
    ``role`` (:data:`CORE`, or :data:`HEAD` / :data:`TAIL`: the gap samples at the fold's start
    and end, left out of the training of the neighbouring fold)."""

    R: Array
    c: Array
    rho2: Array
    samples: NDArray[np.intp]
    record: NDArray[np.intp]
    fold: NDArray[np.intp]
    role: NDArray[np.intp]

    def select(self, columns: Sequence[int] | NDArray[np.intp]) -> Compressed:
        """The compression of the regressor's ``columns`` only (each segment folded again):
        e.g. one Coulomb law per joint out of the extended regressor."""
        columns = np.asarray(columns, dtype=np.intp)
        p = columns.size
        R = np.empty((*self.R.shape[:2], p, p))
        c, rho2 = np.empty((*self.R.shape[:2], p)), self.rho2.copy()
        for b, j in np.ndindex(*self.R.shape[:2]):
            rows = np.column_stack([self.R[b, j][:, columns], self.c[b, j]])
            R[b, j], c[b, j], rest = _split(fold(np.zeros((0, p + 1)), rows), p)
            rho2[b, j] += rest
        return Compressed(R, c, rho2, self.samples, self.record, self.fold, self.role)

    @property
    def blocks(self) -> int:
        return int(self.R.shape[0])

    @property
    def total_samples(self) -> int:
        """The samples compressed, over all segments."""
        return int(self.samples.sum())

    def joint(
        self, keep: Sequence[bool] | NDArray[np.bool_] | None = None
    ) -> tuple[Array, Array, Array]:
        """(R (n, p, p), c (n, p), ρ² (n,)) of the blocks in ``keep`` (all by default), merged
        per joint."""
        mask = np.ones(self.blocks, bool) if keep is None else np.asarray(keep, bool)
        p = self.R.shape[-1]
        n = self.R.shape[1]
        R, c, rho2 = np.empty((n, p, p)), np.empty((n, p)), np.empty(n)
        for j in range(n):
            rows = np.concatenate(
                [np.column_stack([self.R[b, j], self.c[b, j]]) for b in np.flatnonzero(mask)]
            )
            R[j], c[j], rest = _split(fold(np.zeros((0, p + 1)), rows), p)
            rho2[j] = rest + float(self.rho2[mask, j].sum())
        return R, c, rho2

    def stacked(self) -> Array:
        """R (p, p) of every row of every joint and block: the calibration regressor's
        column geometry (rank, condition number, base parameters)."""
        p = self.R.shape[-1]
        factor = fold(np.zeros((0, p)), self.R.reshape(-1, p))
        return np.vstack([factor, np.zeros((p - factor.shape[0], p))])


def _compress_block(
    part: Channels, regressor: Regressor, start: int, stop: int, chunk: int
) -> tuple[Array, Array, Array]:
    """(R (n, p, p), c (n, p), ρ² (n,)) of samples [start, stop) of one record."""
    factors: list[Array] = []
    for first in range(start, stop, chunk):
        last = min(first + chunk, stop)
        Y = regressor(part.q[first:last], part.dq[first:last], part.ddq[first:last])
        if not factors:
            factors = [np.zeros((0, Y.shape[-1] + 1)) for _ in range(Y.shape[1])]
        for j, acc in enumerate(factors):
            factors[j] = fold(acc, np.column_stack([Y[:, j], part.tau[first:last, j]]))
    p = factors[0].shape[1] - 1
    R, c, rho2 = (np.array(x) for x in zip(*(_split(f, p) for f in factors), strict=True))
    return R, c, rho2


CORE, HEAD, TAIL = 0, 1, 2


def segments(samples: int, folds: int, gap: int) -> list[tuple[int, int, int, int]]:
    """(start, stop, fold, role) of one record cut into ``folds`` contiguous folds, each split
    into its first ``gap`` samples (HEAD, not for the first fold), its core and its last ``gap``
    samples (TAIL, not for the last fold); empty pieces are left out."""
    edges = cutoff.block_edges(samples, folds)
    if np.any(np.diff(edges) < 1 + 2 * gap):
        raise ValueError(f"{samples} samples cannot make {folds} folds with a gap of {gap}")
    out = []
    for k, (start, stop) in enumerate(zip(edges[:-1], edges[1:], strict=True)):
        head = start + (gap if k > 0 else 0)
        tail = stop - (gap if k < folds - 1 else 0)
        pieces = ((start, head, HEAD), (head, tail, CORE), (tail, stop, TAIL))
        out += [(int(a), int(b), k, role) for a, b, role in pieces if b > a]
    return out


def usable_gap(samples: int, folds: int, gap: int) -> int:
    """The gap a record of ``samples`` split into ``folds`` gets: at most a quarter of a fold
    (a short record keeps most of its samples for training and scoring)."""
    return min(gap, samples // (4 * folds))


def compress_records(
    parts: Sequence[Channels],
    regressor: Regressor,
    folds: int = 1,
    gap: int | Sequence[int] = 0,
    chunk: int = CHUNK,
) -> Compressed:
    """The compression of every record's rows by segment (:func:`segments`: ``folds``
    contiguous folds per record, ``gap`` samples at their inner boundaries, one for all records
    or one per record, at most a quarter of a fold; module docstring); ``regressor`` maps (q,
    dq, ddq) of K samples to (K, n, p)."""
    gaps = [gap] * len(parts) if isinstance(gap, int) else list(gap)
    pieces, meta = [], []
    for index, (part, record_gap) in enumerate(zip(parts, gaps, strict=True)):
        samples = part.tau.shape[0]
        record_gap = usable_gap(samples, folds, int(record_gap))
        for start, stop, k, role in segments(samples, folds, record_gap):
            pieces.append(_compress_block(part, regressor, start, stop, chunk))
            meta.append((stop - start, index, k, role))
    R, c, rho2 = (np.array(x) for x in zip(*pieces, strict=True))
    samples, record, fold_, role_ = (np.array(x, dtype=np.intp) for x in zip(*meta, strict=True))
    return Compressed(R, c, rho2, samples, record, fold_, role_)
