"""Joint friction models for the 1-DOF hip, linear and nonlinear in their parameters.

The hip paper models transmission friction as Coulomb plus viscous (Eq 2), which keeps the
whole torque model linear in X (Eq 4-6) so that Eq 13 is a convex quadratic (§3.3).  §5.1 and
§5.3 name the friction laws that break this -- Stribeck behaviour, asymmetry, smooth
(pre-sliding) transitions -- as the case where population search might pay off.  This module
gives each of them as a :class:`FrictionModel` with parameter names, units, default bounds,
a vectorised torque ``tau_f(qd, theta)`` that accepts batched parameters ``(..., k)``, its
analytic Jacobian with respect to ``theta``, and the split into parameters that enter
linearly (``beta``) and nonlinearly (``eta``) used by variable projection:
``tau_f(qd; theta) = Phi(qd; eta) @ beta``.

Models (``qd`` is the joint velocity q̇ [rad/s], sgn(0) = 0 everywhere):

=================  =============================================================  ==========
``coulomb_viscous``  f_c sgn q̇ + f_v q̇ (Eq 2)                                    linear
``stribeck``         (f_c + (f_s - f_c) exp(-|q̇/v_s|^δ)) sgn q̇ + f_v q̇             v_s, δ
``asymmetric``       f_c+ [q̇ > 0] - f_c- [q̇ < 0] + f_v q̇                            linear
``tanh``             f_c tanh(q̇/v_s) + f_v q̇                                     v_s
=================  =============================================================  ==========

:class:`HipModel` is the full joint model of Eq 1 plus one friction model: the rigid-body
part H_rb [Mxt, Myt, Jt]ᵀ with H_rb = [g sin q, g cos q, q̈] (the first three columns of
Eq 6, linear) plus ``tau_f(q̇; theta)``; its parameter vector is ``[Mxt, Myt, Jt, *theta]``.

The truth values of the twin variants (config.yaml, ``nonlinear.hip_nonlinear.truths``)
describe the paper's drive, a brushless motor behind a 156:1 planetary gearhead with
output-side torque sensing (§2.1, Table 2):

* rigid body and the Coulomb/viscous levels are Table 4's reference, f_c = 0.8 N m and
  f_v = 2.5 N m s/rad, in every variant, so that the variants differ only in friction shape;
* Stribeck: breakaway f_s = 1.2 N m = 1.5 f_c (geared drives typically show f_s/f_c of about
  1.2-2), Gaussian shape δ = 2 (Armstrong-Hélouvry's exponential model), v_s = 0.15 rad/s
  output side, i.e. about 23 rad/s (220 rpm) at the motor through 156:1 -- the upper end of
  reported geared-joint values, chosen so that 100 Hz records sample the Stribeck dip: near a
  reversal of Eq 18 (|q̈| of roughly 5-15 rad/s²) |q̇| < 2 v_s lasts 40-120 ms, 4-12 samples;
* asymmetric: f_c+ = 0.95 and f_c- = 0.65 N m, i.e. ±19 % about 0.8 N m, the order of the
  direction dependence that gravity preload on the gear flanks and lip seals give a
  pedestal-mounted hip whose load torque keeps one sign;
* tanh: v_s = 0.1 rad/s, a smooth Coulomb transition standing for pre-sliding compliance and
  backlash of the gear train (the hip twin's own plant has Eq 2's exact sgn; 0.1 rad/s spans a
  few samples per reversal, so v_s is identifiable at 100 Hz).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

Array = NDArray[np.float64]

RIGID_KEYS: tuple[str, ...] = ("g_sin_q", "g_cos_q", "qdd")  # Eq 6, columns 1-3
RIGID_PARAMS: tuple[str, ...] = ("Mxt", "Myt", "Jt")  # Eq 3
RIGID_UNITS: tuple[str, ...] = ("kg m", "kg m", "kg m^2")


def sign_or_tanh(qd: Array, smoothing_velocity: float) -> Array:
    """The Coulomb column of Eq 2, sgn(q̇), or tanh(q̇/v_s) when a smoothing velocity v_s > 0
    is set (a smoothed plant, or an excitation design's surrogate)."""
    if smoothing_velocity > 0:
        return np.tanh(qd / smoothing_velocity)
    return np.sign(qd)


def _column(theta: Array, j: int) -> Array:
    """Parameter j of batched ``theta`` (..., k) as (..., 1), to broadcast against q̇ (K,)."""
    return theta[..., j, None]


class FrictionModel(ABC):
    """A friction law tau_f(q̇; theta) [N m] with its parameter metadata.

    Subclasses set ``name``, ``label`` (the name in figures), ``params``, ``units``,
    ``bounds`` (physical default box, one ``(low, high)`` per parameter), ``linear`` (the
    names of the parameters that enter linearly, in the order of :meth:`basis` columns),
    ``log_scale`` (nonlinear parameters best gridded on a log axis) and ``equation``.
    """

    name: str
    label: str
    params: tuple[str, ...]
    units: tuple[str, ...]
    bounds: tuple[tuple[float, float], ...]
    linear: tuple[str, ...]
    log_scale: frozenset[str] = frozenset()
    equation: str

    @property
    def nonlinear(self) -> tuple[str, ...]:
        """Names of the parameters that enter nonlinearly (eta), in parameter order."""
        return tuple(p for p in self.params if p not in self.linear)

    @property
    def linear_index(self) -> NDArray[np.intp]:
        """Positions of the linear parameters (basis column order) in ``params``."""
        return np.array([self.params.index(p) for p in self.linear], dtype=np.intp)

    @property
    def nonlinear_index(self) -> NDArray[np.intp]:
        """Positions of the nonlinear parameters in ``params``."""
        return np.array([self.params.index(p) for p in self.nonlinear], dtype=np.intp)

    @property
    def is_linear(self) -> bool:
        """True when every parameter enters linearly (the model is a regressor, Eq 4)."""
        return not self.nonlinear

    def _check(self, qd: ArrayLike, theta: ArrayLike) -> tuple[Array, Array]:
        qd = np.asarray(qd, dtype=np.float64)
        theta = np.asarray(theta, dtype=np.float64)
        if qd.ndim != 1:
            raise ValueError(f"q̇ must be one-dimensional (K,), got {qd.shape}")
        if theta.ndim == 0 or theta.shape[-1] != len(self.params):
            raise ValueError(
                f"{self.name}: theta must end in {len(self.params)} parameters "
                f"{self.params}, got shape {theta.shape}"
            )
        return qd, theta

    def torque(self, qd: ArrayLike, theta: ArrayLike) -> Array:
        """Friction torque (..., K) for velocities q̇ (K,) and parameters theta (..., k)."""
        qd, theta = self._check(qd, theta)
        return self._torque(qd, theta)

    def jacobian(self, qd: ArrayLike, theta: ArrayLike) -> Array:
        """∂tau_f/∂theta (..., K, k), analytic."""
        qd, theta = self._check(qd, theta)
        return self._jacobian(qd, theta)

    def basis(self, qd: ArrayLike, eta: ArrayLike) -> Array:
        """Columns Phi (..., K, n_linear) with tau_f = Phi @ beta, for nonlinear params eta.

        ``eta`` is (..., n_nonlinear); for a linear model pass an empty last axis (or ``()``).
        """
        qd = np.asarray(qd, dtype=np.float64)
        eta = np.asarray(eta, dtype=np.float64)
        if eta.shape[-1:] != (len(self.nonlinear),):
            raise ValueError(f"{self.name}: eta must end in {self.nonlinear}, got {eta.shape}")
        return self._basis(qd, eta)

    def bounds_array(self, overrides: Mapping[str, Sequence[float]] | None = None) -> Array:
        """Bounds (k, 2): the defaults, replaced per parameter by ``overrides[name]``."""
        out = np.array(self.bounds, dtype=np.float64)
        for i, p in enumerate(self.params):
            if overrides and p in overrides:
                out[i] = [float(v) for v in overrides[p]]
        if not np.all(out[:, 0] <= out[:, 1]):
            raise ValueError(f"{self.name}: bounds need low <= high, got {out.tolist()}")
        return out

    def callable(self, theta: ArrayLike) -> Callable[[Array], Array]:
        """q̇ ↦ tau_f(q̇; theta) for fixed parameters, e.g. the twin's true friction."""
        theta = np.asarray(theta, dtype=np.float64)
        self._check(np.zeros(1), theta)

        def friction(qd: Array) -> Array:
            return self.torque(qd, theta)

        return friction

    def vector(self, values: Mapping[str, float]) -> Array:
        """Parameter vector in model order from a name → value mapping."""
        missing = [p for p in self.params if p not in values]
        if missing:
            raise ValueError(f"{self.name}: values lack parameter(s) {missing}")
        return np.array([float(values[p]) for p in self.params])

    @abstractmethod
    def _torque(self, qd: Array, theta: Array) -> Array: ...

    @abstractmethod
    def _jacobian(self, qd: Array, theta: Array) -> Array: ...

    @abstractmethod
    def _basis(self, qd: Array, eta: Array) -> Array: ...


class CoulombViscous(FrictionModel):
    """Eq 2: tau_f = f_c sgn q̇ + f_v q̇ (the paper's model; linear)."""

    name = "coulomb_viscous"
    label = "Coulomb + viscous (Eq 2)"
    params = ("fc", "fv")
    units = ("N m", "N m s/rad")
    bounds = ((0.0, 3.0), (0.0, 6.0))
    linear = ("fc", "fv")
    equation = "fc sgn(qd) + fv qd (Eq 2)"

    def _torque(self, qd: Array, theta: Array) -> Array:
        out = _column(theta, 0) * np.sign(qd)
        return np.add(out, _column(theta, 1) * qd, out=out)

    def _jacobian(self, qd: Array, theta: Array) -> Array:
        cols = np.stack([np.sign(qd), qd], axis=-1)
        return np.broadcast_to(cols, (*theta.shape[:-1], *cols.shape)).copy()

    def _basis(self, qd: Array, eta: Array) -> Array:
        cols = np.stack([np.sign(qd), qd], axis=-1)
        return np.broadcast_to(cols, (*eta.shape[:-1], *cols.shape)).copy()


class Stribeck(FrictionModel):
    """Stribeck: tau_f = (f_c + (f_s − f_c) exp(−|q̇/v_s|^δ)) sgn q̇ + f_v q̇.

    Linear in (f_c, f_s, f_v) with columns sgn·(1 − e), sgn·e, q̇ where e = exp(−|q̇/v_s|^δ);
    nonlinear in (v_s, δ).  With u = |q̇|/v_s: ∂e/∂v_s = e δ u^δ / v_s and
    ∂e/∂δ = −e u^δ ln u (→ 0 as u → 0).
    """

    name = "stribeck"
    label = "Stribeck"
    params = ("fc", "fs", "vs", "delta", "fv")
    units = ("N m", "N m", "rad/s", "1", "N m s/rad")
    bounds = ((0.0, 3.0), (0.0, 4.0), (0.01, 1.0), (0.5, 3.0), (0.0, 6.0))
    linear = ("fc", "fs", "fv")
    log_scale = frozenset({"vs"})
    equation = "(fc + (fs - fc) exp(-|qd/vs|^delta)) sgn(qd) + fv qd"

    @staticmethod
    def _shape(qd: Array, vs: Array, delta: Array) -> tuple[Array, Array, Array]:
        """u^δ, e = exp(−u^δ) and ln u (0 where u = 0) for u = |q̇|/v_s."""
        u = np.abs(qd) / vs
        positive = u > 0
        log_u = np.log(np.where(positive, u, 1.0))
        u_delta = np.where(positive, np.exp(delta * log_u), 0.0)
        return u_delta, np.exp(-u_delta), log_u

    def _torque(self, qd: Array, theta: Array) -> Array:
        """The values of ``_shape``'s e and the torque formula, computed in one buffer."""
        fc, fs, vs, delta, fv = (_column(theta, j) for j in range(5))
        out = np.abs(qd) / vs  # u
        zero = ~(out > 0)
        np.copyto(out, 1.0, where=zero)
        np.log(out, out=out)
        np.multiply(delta, out, out=out)
        np.exp(out, out=out)
        np.copyto(out, 0.0, where=zero)  # u^δ
        np.negative(out, out=out)
        np.exp(out, out=out)  # e
        np.multiply(fs - fc, out, out=out)
        np.add(fc, out, out=out)
        np.multiply(out, np.sign(qd), out=out)
        return np.add(out, fv * qd, out=out)

    def _jacobian(self, qd: Array, theta: Array) -> Array:
        fc, fs, vs, delta, fv = (_column(theta, j) for j in range(5))
        u_delta, e, log_u = self._shape(qd, vs, delta)
        s = np.sign(qd)
        ds = (fs - fc) * s * e
        shape = np.broadcast_shapes(e.shape, fv.shape, qd.shape)
        return np.stack(
            [
                np.broadcast_to(s * (1.0 - e), shape),
                np.broadcast_to(s * e, shape),
                np.broadcast_to(ds * delta * u_delta / vs, shape),
                np.broadcast_to(-ds * u_delta * log_u, shape),
                np.broadcast_to(qd, shape),
            ],
            axis=-1,
        )

    def _basis(self, qd: Array, eta: Array) -> Array:
        vs, delta = _column(eta, 0), _column(eta, 1)
        _, e, _ = self._shape(qd, vs, delta)
        s = np.sign(qd)
        shape = e.shape
        return np.stack(
            [s * (1.0 - e), s * e, np.broadcast_to(qd, shape)],
            axis=-1,
        )


class AsymmetricCoulomb(FrictionModel):
    """Direction-dependent Coulomb: tau_f = f_c+ [q̇ > 0] − f_c− [q̇ < 0] + f_v q̇ (linear).

    f_c+ and f_c− are magnitudes (both ≥ 0); f_c+ = f_c− = f_c gives Eq 2.
    """

    name = "asymmetric"
    label = "asymmetric Coulomb"
    params = ("fc_pos", "fc_neg", "fv")
    units = ("N m", "N m", "N m s/rad")
    bounds = ((0.0, 3.0), (0.0, 3.0), (0.0, 6.0))
    linear = ("fc_pos", "fc_neg", "fv")
    equation = "fc_pos [qd > 0] - fc_neg [qd < 0] + fv qd"

    @staticmethod
    def _columns(qd: Array) -> Array:
        return np.stack([(qd > 0).astype(np.float64), -(qd < 0).astype(np.float64), qd], -1)

    def _torque(self, qd: Array, theta: Array) -> Array:
        """The columns of ``_columns`` as contiguous vectors (the same products and sums)."""
        out = _column(theta, 0) * (qd > 0).astype(np.float64)
        term = np.empty_like(out)
        out += np.multiply(_column(theta, 1), -(qd < 0).astype(np.float64), out=term)
        out += np.multiply(_column(theta, 2), qd, out=term)
        return out

    def _jacobian(self, qd: Array, theta: Array) -> Array:
        cols = self._columns(qd)
        return np.broadcast_to(cols, (*theta.shape[:-1], *cols.shape)).copy()

    def _basis(self, qd: Array, eta: Array) -> Array:
        cols = self._columns(qd)
        return np.broadcast_to(cols, (*eta.shape[:-1], *cols.shape)).copy()


class TanhCoulomb(FrictionModel):
    """Smooth Coulomb: tau_f = f_c tanh(q̇/v_s) + f_v q̇, v_s unknown (nonlinear in v_s).

    ∂/∂v_s = −f_c (1 − tanh²(q̇/v_s)) q̇ / v_s².
    """

    name = "tanh"
    label = "tanh Coulomb"
    params = ("fc", "vs", "fv")
    units = ("N m", "rad/s", "N m s/rad")
    bounds = ((0.0, 3.0), (0.01, 1.0), (0.0, 6.0))
    linear = ("fc", "fv")
    log_scale = frozenset({"vs"})
    equation = "fc tanh(qd/vs) + fv qd"

    def _torque(self, qd: Array, theta: Array) -> Array:
        fc, vs, fv = (_column(theta, j) for j in range(3))
        out = qd / vs
        np.tanh(out, out=out)
        np.multiply(fc, out, out=out)
        return np.add(out, fv * qd, out=out)

    def _jacobian(self, qd: Array, theta: Array) -> Array:
        fc, vs, fv = (_column(theta, j) for j in range(3))
        t = np.tanh(qd / vs)
        shape = np.broadcast_shapes(t.shape, fv.shape)
        return np.stack(
            [
                np.broadcast_to(t, shape),
                np.broadcast_to(-fc * (1.0 - t * t) * qd / (vs * vs), shape),
                np.broadcast_to(qd, shape),
            ],
            axis=-1,
        )

    def _basis(self, qd: Array, eta: Array) -> Array:
        t = np.tanh(qd / _column(eta, 0))
        return np.stack([t, np.broadcast_to(qd, t.shape)], axis=-1)


MODELS: dict[str, FrictionModel] = {
    m.name: m for m in (CoulombViscous(), Stribeck(), AsymmetricCoulomb(), TanhCoulomb())
}


def parameter_units() -> dict[str, str]:
    """Unit of every parameter name used by any hip model (a name has one unit everywhere)."""
    units = dict(zip(RIGID_PARAMS, RIGID_UNITS, strict=True))
    for m in MODELS.values():
        for p, u in zip(m.params, m.units, strict=True):
            if units.setdefault(p, u) != u:
                raise ValueError(f"parameter {p!r} has units {units[p]!r} and {u!r}")
    return units


def get(name: str) -> FrictionModel:
    """The friction model called ``name``, with one clear error for unknown names."""
    try:
        return MODELS[name]
    except KeyError:
        raise ValueError(f"unknown friction model {name!r}; known: {sorted(MODELS)}") from None


@dataclass(frozen=True)
class HipModel:
    """Eq 1 rigid body (Mxt, Myt, Jt; linear, Eq 3) plus a friction law.

    tau = Mxt g sin q + Myt g cos q + Jt q̈ + tau_f(q̇; theta); parameters
    ``[Mxt, Myt, Jt, *friction.params]``.
    """

    friction: FrictionModel
    gravity: float = 9.81

    @property
    def params(self) -> tuple[str, ...]:
        return RIGID_PARAMS + self.friction.params

    @property
    def units(self) -> tuple[str, ...]:
        return RIGID_UNITS + self.friction.units

    @property
    def dim(self) -> int:
        return len(self.params)

    @property
    def n_rigid(self) -> int:
        return len(RIGID_PARAMS)

    @property
    def linear_index(self) -> NDArray[np.intp]:
        """Positions of every linear parameter (rigid body, then friction basis order)."""
        return np.concatenate([np.arange(self.n_rigid), self.n_rigid + self.friction.linear_index])

    @property
    def nonlinear_index(self) -> NDArray[np.intp]:
        """Positions of the nonlinear (friction) parameters."""
        return self.n_rigid + self.friction.nonlinear_index

    def torque(self, H_rb: Array, qd: Array, theta: ArrayLike) -> Array:
        """Joint torque (..., K) for parameters theta (..., dim); elementwise, no BLAS.

        The rigid part is summed column by column so that each row's value does not depend
        on the batch it is computed in (as :class:`paramid.optim.objectives.LinearRMSE` direct).
        """
        theta = np.asarray(theta, dtype=np.float64)
        if theta.shape[-1] != self.dim:
            raise ValueError(f"theta must end in {self.dim} parameters {self.params}")
        out = self.friction.torque(qd, theta[..., self.n_rigid :])
        term = np.empty_like(out)
        for j in range(self.n_rigid):
            out += np.multiply(_column(theta, j), H_rb[:, j], out=term)
        return out

    def jacobian(self, H_rb: Array, qd: Array, theta: ArrayLike) -> Array:
        """∂tau/∂theta (..., K, dim): H_rb for the rigid body, the friction Jacobian after."""
        theta = np.asarray(theta, dtype=np.float64)
        jf = self.friction.jacobian(qd, theta[..., self.n_rigid :])
        rigid = np.broadcast_to(H_rb, (*jf.shape[:-1], self.n_rigid))
        return np.concatenate([rigid, jf], axis=-1)

    def basis(self, H_rb: Array, qd: Array, eta: ArrayLike) -> Array:
        """Linear columns A(eta) (..., K, n_linear) = [H_rb, Phi(q̇; eta)] (variable projection)."""
        phi = self.friction.basis(qd, eta)
        rigid = np.broadcast_to(H_rb, (*phi.shape[:-1], self.n_rigid))
        return np.concatenate([rigid, phi], axis=-1)

    def assemble(self, beta: ArrayLike, eta: ArrayLike) -> Array:
        """Full parameter vector(s) (..., dim) from linear ``beta`` and nonlinear ``eta``."""
        beta = np.asarray(beta, dtype=np.float64)
        eta = np.asarray(eta, dtype=np.float64)
        out = np.empty((*beta.shape[:-1], self.dim))
        out[..., self.linear_index] = beta
        out[..., self.nonlinear_index] = eta
        return out


def nonlinear_laws(names: Sequence[str]) -> list[str]:
    """The laws among ``names`` with a parameter that enters nonlinearly (not a regressor,
    Eq 4): the cells where population search could pay off (§5.1)."""
    return [name for name in names if not get(name).is_linear]


def hip_model(name: str, gravity: float = 9.81) -> HipModel:
    """The full hip model with friction law ``name``."""
    return HipModel(get(name), gravity)
