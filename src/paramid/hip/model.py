"""Regressor columns of the linear-in-parameters joint model (hip paper Eq 1–6).

A study names its regressor as a list of column keys (``studies.<name>.regressor`` in
config.yaml); each key fixes one column of H(k) and the name of its parameter in X.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]


@dataclass(frozen=True)
class RegressorColumn:
    """One column of H(k) (Eq 6) and the parameter it multiplies (Eq 5)."""

    key: str
    parameter: str
    unit: str  # unit of the parameter, so that H·X is in N m
    column_unit: str  # unit of the regressor column itself
    formula: Callable[[Array, Array, Array, float], Array]


def _ones(q: Array, qd: Array, qdd: Array, g: float) -> Array:
    return np.ones_like(q)


COLUMNS: dict[str, RegressorColumn] = {
    c.key: c
    for c in (
        # g sin q and g cos q (Eq 6): the gravity moments of Mxt, Myt
        RegressorColumn("g_sin_q", "Mxt", "kg m", "m/s^2", lambda q, qd, qdd, g: g * np.sin(q)),
        RegressorColumn("g_cos_q", "Myt", "kg m", "m/s^2", lambda q, qd, qdd, g: g * np.cos(q)),
        RegressorColumn("qdd", "Jt", "kg m^2", "rad/s^2", lambda q, qd, qdd, g: qdd),  # Eq 6
        # Coulomb (sgn of the velocity) and viscous friction (Eq 2, 6)
        RegressorColumn("sign_qd", "fc", "N m", "1", lambda q, qd, qdd, g: np.sign(qd)),
        RegressorColumn("qd", "fv", "N m s/rad", "rad/s", lambda q, qd, qdd, g: qd),
        RegressorColumn("offset", "tau0", "N m", "1", _ones),  # a constant torque offset
    )
}


def check_columns(keys: Sequence[str]) -> list[RegressorColumn]:
    """Resolve regressor keys, raising one clear error for unknown or repeated keys."""
    unknown = [k for k in keys if k not in COLUMNS]
    if unknown:
        raise ValueError(f"unknown regressor column(s) {unknown}; known: {sorted(COLUMNS)}")
    if len(set(keys)) != len(keys):
        raise ValueError(f"regressor columns repeat: {list(keys)}")
    if not keys:
        raise ValueError("the regressor needs at least one column")
    return [COLUMNS[k] for k in keys]


def parameter_names(keys: Sequence[str]) -> list[str]:
    """Parameter names (Eq 5) in regressor order, e.g. ['Mxt', 'Myt', 'Jt', 'fc', 'fv']."""
    return [c.parameter for c in check_columns(keys)]


def parameter_units(keys: Sequence[str]) -> dict[str, str]:
    """Unit of each parameter of the regressor."""
    return {c.parameter: c.unit for c in check_columns(keys)}


def regressor(
    keys: Sequence[str], q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, gravity: float
) -> Array:
    """Stacked regressor H (K × d) of Eq 4–6 for the chosen columns."""
    columns = check_columns(keys)
    q, qd, qdd = (np.asarray(a, dtype=np.float64) for a in (q, qd, qdd))
    return np.column_stack([c.formula(q, qd, qdd, gravity) for c in columns])


def samples_needed(trim: int, burn_in: int, n_parameters: int) -> int:
    """The fewest samples the chain can use: ``trim`` samples cut at each end, the RLS
    ``burn_in`` (Eq 7-9), and twice the regressor's columns plus three for the fit."""
    return 2 * trim + burn_in + 2 * n_parameters + 3
