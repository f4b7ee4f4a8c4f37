"""Physical consistency of a link's inertial parameters: the pseudo-inertia matrix.

Wensing, Kim and Slotine (2017), "Linear matrix inequalities for physically consistent
inertial parameter identification: a statistical perspective on the mass distribution",
IEEE RA-L 3(1):60–67.  A link's ten standard parameters π = (m, h, I) in Pinocchio's order
(m, h_x, h_y, h_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz), with h = m c the first moment and I the
rotational inertia about the link frame's origin, map linearly to the 4×4 pseudo-inertia

    J(π) = [[Σ, h], [hᵀ, m]],   Σ = ½ tr(I) 1₃ − I,

the second moment of the mass distribution.  π is the parameter vector of some physical
(non-negative) mass distribution if and only if J(π) ⪰ 0 (their Theorem 1); this is stricter
than m > 0 with I ≻ 0, since it includes the triangle inequalities and the parallel-axis
bound.  J is linear in π, so J ⪰ 0 is a linear matrix inequality in the identification.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]
PARAMETERS_PER_LINK = 10


def _basis() -> Array:
    """A (10, 4, 4): J(π) = Σ_k π_k A_k for Pinocchio's parameter order."""
    A = np.zeros((PARAMETERS_PER_LINK, 4, 4))
    A[0, 3, 3] = 1.0  # m
    for k, axis in enumerate(range(3), start=1):  # h_x, h_y, h_z
        A[k, axis, 3] = A[k, 3, axis] = 1.0
    # I_xx, I_yy, I_zz enter Σ as ½ tr(I) − I_aa on the diagonal
    for k, axis in ((4, 0), (6, 1), (9, 2)):
        A[k, :3, :3] = 0.5 * np.eye(3)
        A[k, axis, axis] = -0.5
    for k, (a, b) in ((5, (0, 1)), (7, (0, 2)), (8, (1, 2))):  # products of inertia: Σ_ab = −I_ab
        A[k, a, b] = A[k, b, a] = -1.0
    return A


#: J(π) = Σ_k π_k PSEUDO_INERTIA_BASIS[k]
PSEUDO_INERTIA_BASIS = _basis()


def pseudo_inertia(parameters: Array) -> Array:
    """J (..., 4, 4) of links with standard parameters (..., 10) in Pinocchio's order."""
    parameters = np.asarray(parameters, dtype=np.float64)
    if parameters.shape[-1] != PARAMETERS_PER_LINK:
        raise ValueError(f"a link has 10 standard parameters, got shape {parameters.shape}")
    return np.einsum("...k,kij->...ij", parameters, PSEUDO_INERTIA_BASIS)


def smallest_eigenvalue(parameters: Array) -> Array:
    """λ_min(J(π)) (...,): ≥ 0 exactly when the parameters are physically consistent."""
    return np.linalg.eigvalsh(pseudo_inertia(parameters))[..., 0].astype(np.float64)


@dataclass(frozen=True)
class LinkConsistency:
    """Mass [kg] and smallest pseudo-inertia eigenvalue [kg m²] of one link's parameters."""

    link: str
    mass: float
    min_eigenvalue: float

    @property
    def consistent(self) -> bool:
        """J ⪰ 0 (to round-off of 1e-12 kg m²)."""
        return self.min_eigenvalue >= -1e-12


def link_report(theta: Array, links: Mapping[str, slice]) -> list[LinkConsistency]:
    """Per link (``links``: name -> its 10 columns of the standard vector ``theta``)."""
    theta = np.asarray(theta, dtype=np.float64)
    out = []
    for name, columns in links.items():
        parameters = theta[columns]
        out.append(
            LinkConsistency(name, float(parameters[0]), float(smallest_eigenvalue(parameters)))
        )
    return out
