"""Base parameters of a stacked regressor by QR with column pivoting (the robots'
:mod:`paramid.robot.base` and the planar chain of :mod:`paramid.excitation.chain` use it).

The standard parameters θ (p,) of a serial robot are not all identifiable: some columns of the
joint-torque regressor are zero and others are linear combinations of the rest for every
motion.  The base parameters β (r,) are the identifiable combinations (Gautier & Khalil 1990,
"Direct calculation of minimum set of inertial parameters of serial robots", IEEE TRA 6(3);
Gautier 1991, "Numerical calculation of the base inertial parameters of robots", J. Robot.
Syst. 8(4)), computed numerically as FIGAROH (Nguyen et al. 2023, §III-A) and the 4-joint
chain of :mod:`paramid.excitation.chain` do: with the pivoted QR Y Π = Q [R₁₁ R₁₂] of the
stacked regressor Y (M × p), rank r = #{i : |Rᵢᵢ| > rel_tol · |R₀₀|}, independent columns
Y₁ = Y Π[:, :r], dependent Y₂, and

    Y θ = Y₁ θ₁ + Y₂ θ₂ = Y₁ (θ₁ + K θ₂),  K = R₁₁⁻¹ R₁₂,

so the base regressor is Y₁ and β = θ₁ + K θ₂.  LAPACK's pivoted QR (``scipy.linalg.qr``,
``pivoting=True``) is deterministic for a given matrix; the result depends on the samples only
through that matrix (its pivots are the columns' residual norms, which row order does not
change in exact arithmetic).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]
ZERO = 1e-10  # |K| entries below this are round-off of structural zeros: not printed


@dataclass(frozen=True)
class BaseParameters:
    """β = θ[independent] + K θ[dependent] (r,) and the columns Y[..., independent] beside it.

    ``names`` names each base parameter after its independent standard parameter,
    ``expressions`` writes it out (e.g. ``"Izz_l1 + Iyy_l2 + 0.0841*m_l3"``), ``rank`` = r,
    ``tolerance`` the relative threshold on |Rᵢᵢ| that fixed it.
    """

    independent: NDArray[np.intp]
    dependent: NDArray[np.intp]
    K: Array  # (r, p - r)
    names: tuple[str, ...]
    expressions: tuple[str, ...]
    standard_names: tuple[str, ...]
    rank: int
    tolerance: float

    @property
    def matrix(self) -> Array:
        """The full map B (r × p) with β = B θ."""
        B = np.zeros((self.rank, len(self.standard_names)))
        B[np.arange(self.rank), self.independent] = 1.0
        B[:, self.dependent] = self.K
        return B


def _expressions(
    K: Array, independent: NDArray[np.intp], dependent: NDArray[np.intp], names: Sequence[str]
) -> list[str]:
    """Readable β: the independent name plus each dependent term with its coefficient."""
    out = []
    for row, i in zip(K, independent, strict=True):
        text = names[i]
        for value, j in zip(row, dependent, strict=True):
            if abs(value) >= ZERO:
                text += f" {'-' if value < 0 else '+'} {abs(value):.6g}*{names[j]}"
        out.append(text.replace(" 1*", " "))
    return out


class AmbiguousRank(ValueError):
    """The pivoted QR and the ordered scan disagree on the rank at the tolerance: a column lies
    within round-off of it (:func:`base_parameters`)."""


def _numerical_rank(R: Array, rel_tol: float) -> int:
    """#{i : |Rᵢᵢ| > rel_tol · |R₀₀|} of a pivoted-QR factor R."""
    diag = np.abs(np.diag(R))
    return int(np.sum(diag > rel_tol * diag[0])) if diag.size and diag[0] > 0 else 0


def _canonical_columns(R: Array, threshold: float) -> NDArray[np.intp]:
    """Columns of R kept in index order: each one whose distance to the span of the columns
    kept before it exceeds ``threshold`` (Gram–Schmidt, orthogonalised twice)."""
    basis = np.zeros((0, R.shape[0]))
    kept = []
    for j in range(R.shape[1]):
        v = R[:, j] - basis.T @ (basis @ R[:, j])
        v -= basis.T @ (basis @ v)
        norm = float(np.linalg.norm(v))
        if norm > threshold:
            basis = np.vstack([basis, v / norm])
            kept.append(j)
    return np.array(kept, dtype=np.intp)


def base_parameters(Y: ArrayLike, names: Sequence[str], rel_tol: float = 1e-8) -> BaseParameters:
    """Base parameters of the stacked regressor Y (M, p) (module docstring).

    The rank r is that of the pivoted QR of Y.  Which r columns are independent is then fixed
    canonically, not by LAPACK's pivot order (exactly tied residual norms, as Ixx/Iyy of a
    link, would otherwise be broken by round-off, so permuting Y's rows could rename the base
    parameters): scanning the standard parameters in order, a column is independent when its
    distance to the span of the columns kept before it exceeds rel_tol · |R₀₀| (Gautier 1991's
    regrouping order).  Then K solves Y₁ K = Y₂ (entries below 1e-10 are round-off of
    structural zeros: kept in K, left out of ``expressions``).  A
    rank that the two tests disagree on (a column within round-off of the threshold) raises
    :class:`AmbiguousRank`: choose another ``rel_tol``.
    """
    Y = np.asarray(Y, dtype=np.float64)
    if Y.ndim != 2 or Y.shape[1] != len(names):
        raise ValueError(f"Y has shape {Y.shape}; expected (M, {len(names)}) for the names given")
    if not np.all(np.isfinite(Y)):
        raise ValueError("Y has non-finite entries")
    compressed = scipy.linalg.qr(Y, mode="r")[0]  # same column geometry, at most p rows
    _, R, _ = scipy.linalg.qr(compressed, mode="economic", pivoting=True)
    rank = _numerical_rank(R, rel_tol)
    threshold = rel_tol * abs(R[0, 0]) if R.size else 0.0
    independent = _canonical_columns(compressed, threshold) if rank else np.zeros(0, np.intp)
    if independent.size != rank:
        raise AmbiguousRank(
            f"numerical rank ambiguous at rel_tol={rel_tol}: pivoted QR gives {rank}, "
            f"the ordered scan {independent.size}; choose another rel_tol"
        )
    dependent = np.setdiff1d(np.arange(len(names)), independent)
    K = np.linalg.lstsq(compressed[:, independent], compressed[:, dependent], rcond=None)[0]
    return BaseParameters(
        independent=independent,
        dependent=dependent,
        K=K,
        names=tuple(names[i] for i in independent),
        expressions=tuple(_expressions(K, independent, dependent, names)),
        standard_names=tuple(names),
        rank=rank,
        tolerance=rel_tol,
    )


def base_columns(Y: ArrayLike, base: BaseParameters) -> Array:
    """The base regressor Y[..., independent]: Y θ = base_columns(Y) β for every θ."""
    return np.asarray(Y, dtype=np.float64)[..., base.independent]


def unidentified(W: ArrayLike, base: BaseParameters, rel_tol: float | None = None) -> list[str]:
    """Names of the base parameters that the base regressor W (M, r) leaves unidentifiable.

    The ordered scan of :func:`base_parameters` on W's columns (threshold ``rel_tol``, default
    the base's tolerance, times W's largest column norm): a column within that distance of the
    span of the columns before it is a combination of them on these data, and is named.  Empty
    when W has full rank.
    """
    W = np.asarray(W, dtype=np.float64)
    if W.ndim != 2 or W.shape[1] != base.rank:
        raise ValueError(f"W has shape {W.shape}; expected (M, {base.rank})")
    tol = base.tolerance if rel_tol is None else rel_tol
    compressed = scipy.linalg.qr(W, mode="r")[0]
    threshold = tol * float(np.linalg.norm(compressed, axis=0).max(initial=0.0))
    kept = set(_canonical_columns(compressed, threshold).tolist()) if threshold > 0 else set()
    return [name for i, name in enumerate(base.names) if i not in kept]
