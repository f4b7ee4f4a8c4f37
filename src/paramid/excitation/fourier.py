"""Finite Fourier excitation trajectories (Eq 8) and their limits (Eq 9).

The excitation paper (Tong et al. 2024, ``shared/papers/fourier-excitation-trajectory.txt``)
writes each joint's excitation as a finite Fourier series (Eq 8)

    q(t) = q₀ + Σₗ₌₁ⁿ [aₗ/(ω_f l) sin(ω_f l t) − bₗ/(ω_f l) cos(ω_f l t)],

2n + 1 parameters per joint (n = 5 → 11), bounded in angle, velocity and acceleration and at
rest (q̇ = q̈ = 0) at the start and end of the period (Eq 9).  :class:`FourierTrajectory`
evaluates such a series analytically (vectorised over time and joints; it is an
:class:`paramid.simulation.Evaluable`, which twins follow); :class:`JointLimits` holds the
bounds of Eq 9 and
:func:`reached_limits` / :func:`limit_violation` check a trajectory against them on a grid,
:func:`bounded_violation` over the whole period (the grid's extremes widened by a bound on
what lies between samples).

Rest at both ends (Eq 9): q̇(0) = Σ aₗ and q̈(0) = ω_f Σ l bₗ, and the series is T-periodic
(T = 2π/ω_f), so rest at both ends is the pair of linear conditions Σ aₗ = 0 and Σ l bₗ = 0
(:func:`boundary_matrix`); :func:`rest_basis` spans their null space.  Eq 9 also sets
q(t₀) = q(t_f) = 0, which is not imposed: the series starts and ends at one pose,
q(0) = q(T) = q₀ − Σ bₗ/(ω_f l), placed where the limits allow (0 lies outside the hip's
15–82.5° of Eq 18, and a robot's zero pose may lie outside its limits or its keep-out).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg
from numpy.typing import NDArray

from paramid import simulation

Array = NDArray[np.float64]
LIMIT_NAMES = ("q_min", "q_max", "qd_max", "qdd_max")


def fourier_basis(t: Array, omega_f: float, order: int) -> tuple[Array, Array, Array]:
    """Matrices Φ_q, Φ_q̇, Φ_q̈ (len(t) × (2n+1)) with q = Φ_q θ for θ = [q₀, a₁…aₙ, b₁…bₙ].

    Eq 8 and its analytic derivatives:
    q̇ = Σ aₗ cos(ω_f l t) + bₗ sin(ω_f l t),  q̈ = Σ ω_f l (−aₗ sin(ω_f l t) + bₗ cos(ω_f l t)).
    """
    t = np.asarray(t, dtype=np.float64)
    w = omega_f * np.arange(1, order + 1)
    s, c = np.sin(np.multiply.outer(t, w)), np.cos(np.multiply.outer(t, w))
    ones, zeros = np.ones((*t.shape, 1)), np.zeros((*t.shape, 1))
    phi_q = np.concatenate([ones, s / w, -c / w], axis=-1)
    phi_qd = np.concatenate([zeros, c, s], axis=-1)
    phi_qdd = np.concatenate([zeros, -w * s, w * c], axis=-1)
    return phi_q, phi_qd, phi_qdd


@dataclass(frozen=True)
class FourierTrajectory:
    """Finite Fourier series of Eq 8 for J joints: q₀ (J,), a and b (J, n), fundamental ω_f.

    ``evaluate(t)`` returns (q, q̇, q̈) in rad, rad/s, rad/s² of shape (len(t),) for one
    joint (so the hip twin can follow it like an Eq 18
    :class:`paramid.simulation.Trajectory`) and
    (len(t), J) for several.
    """

    q0: Array
    a: Array
    b: Array
    omega_f: float

    def __post_init__(self) -> None:
        q0 = np.atleast_1d(np.asarray(self.q0, dtype=np.float64))
        a = np.atleast_2d(np.asarray(self.a, dtype=np.float64))
        b = np.atleast_2d(np.asarray(self.b, dtype=np.float64))
        if a.shape != b.shape or a.shape[0] != q0.size:
            raise ValueError(f"shapes q0 {q0.shape}, a {a.shape}, b {b.shape} do not match")
        if not self.omega_f > 0:
            raise ValueError(f"omega_f must be positive, got {self.omega_f}")
        object.__setattr__(self, "q0", q0)
        object.__setattr__(self, "a", a)
        object.__setattr__(self, "b", b)

    @property
    def n_joints(self) -> int:
        return int(self.q0.size)

    @property
    def order(self) -> int:
        return int(self.a.shape[1])

    @property
    def period(self) -> float:
        """T = 2π/ω_f [s]."""
        return 2 * np.pi / self.omega_f

    @property
    def theta(self) -> Array:
        """Coefficients as a ((2n+1) × J) matrix, column j = [q₀, a₁…aₙ, b₁…bₙ] of joint j."""
        return np.vstack([self.q0[None, :], self.a.T, self.b.T])

    @classmethod
    def from_theta(cls, theta: Array, omega_f: float) -> FourierTrajectory:
        """Inverse of :attr:`theta`, a ((2n+1) × J) matrix (a flat vector is refused: its
        joint layout would be a guess)."""
        theta = np.asarray(theta, dtype=np.float64)
        if theta.ndim == 1:
            raise ValueError("pass theta as a ((2n+1) × J) matrix")
        n = (theta.shape[0] - 1) // 2
        return cls(theta[0], theta[1 : n + 1].T, theta[n + 1 :].T, omega_f)

    def evaluate_joints(self, t: Array) -> tuple[Array, Array, Array]:
        """(q, q̇, q̈), each (len(t), J); at the instants kT, q̇ (q̈) is exactly 0 on the joints
        whose coefficients hold it there (E θ = 0 to :data:`REST_TOLERANCE` of their size:
        rounding left ±1e-16 of the design, ±1e-11 of its coefficients as stored, and a
        Coulomb column took the sign of that)."""
        t = np.asarray(t, dtype=np.float64)
        phi = fourier_basis(t, self.omega_f, self.order)
        return states_at_rest(phi, self.theta, period_boundaries(t, self.period))

    def evaluate(self, t: Array) -> tuple[Array, Array, Array]:
        """(q, q̇, q̈): (len(t),) for one joint, (len(t), J) for several (Eq 8)."""
        q, qd, qdd = self.evaluate_joints(t)
        if self.n_joints == 1:
            return q[:, 0], qd[:, 0], qdd[:, 0]
        return q, qd, qdd

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready coefficients (per joint q₀ [rad], aₗ, bₗ [rad/s])."""
        return {
            "omega_f": self.omega_f,
            "period_s": self.period,
            "order": self.order,
            "q0": self.q0.tolist(),
            "a": self.a.tolist(),
            "b": self.b.tolist(),
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FourierTrajectory:
        return cls(np.asarray(d["q0"]), np.asarray(d["a"]), np.asarray(d["b"]), d["omega_f"])


#: relative size below which a boundary condition counts as held (:meth:`evaluate_joints`), and
#: how close to a multiple of the period an instant is one (both far above rounding, far below
#: any motion: a designed rest's 1e-16, a stored one's 1e-11, against coefficients of 0.1)
REST_TOLERANCE = 1e-9


def period_boundaries(t: Array, period: float) -> NDArray[np.bool_]:
    """Which instants ``t`` are multiples of the period (to :data:`REST_TOLERANCE` of it)."""
    turns = np.asarray(t, dtype=np.float64) / period
    return np.abs(turns - np.rint(turns)) <= REST_TOLERANCE


def states_at_rest(
    phi: tuple[Array, Array, Array], theta: Array, boundary: NDArray[np.bool_]
) -> tuple[Array, Array, Array]:
    """(q, q̇, q̈) = Φ θ of :func:`fourier_basis` rows ``phi``, with q̇ (q̈) exactly 0 on the
    ``boundary`` rows (instants kT) of each joint whose coefficients hold it there (E θ = 0 to
    :data:`REST_TOLERANCE` of their size)."""
    q, qd, qdd = (p @ theta for p in phi)
    if boundary.any():
        weights = boundary_matrix((theta.shape[0] - 1) // 2)
        held = np.abs(weights @ theta) <= REST_TOLERANCE * (np.abs(weights) @ np.abs(theta))
        qd[np.ix_(boundary, held[0])] = 0.0
        qdd[np.ix_(boundary, held[1])] = 0.0
    return q, qd, qdd


def boundary_matrix(order: int) -> Array:
    """E (2 × (2n+1)) with E θ = [q̇(0), q̈(0)/ω_f] = [Σ aₗ, Σ l bₗ]; rest at t = 0, T iff E θ = 0."""
    e = np.zeros((2, 2 * order + 1))
    e[0, 1 : order + 1] = 1.0
    e[1, order + 1 :] = np.arange(1, order + 1)
    return e


def rest_basis(order: int) -> Array:
    """Orthonormal basis Z ((2n+1) × (2n−1)) of {θ : E θ = 0}; its first column is q₀."""
    za = scipy.linalg.null_space(np.ones((1, order)))
    zb = scipy.linalg.null_space(np.arange(1, order + 1, dtype=np.float64)[None, :])
    return scipy.linalg.block_diag(np.ones((1, 1)), za, zb)


def grid(period: float, points: int) -> NDArray[np.floating]:
    """``points`` equally spaced instants over one period, end excluded (the series is periodic)."""
    return np.arange(points) * (period / points)


@dataclass(frozen=True)
class JointLimits:
    """Per-joint limits of Eq 9: q_min ≤ q ≤ q_max [rad], |q̇| ≤ q̇_max, |q̈| ≤ q̈_max."""

    q_min: Array
    q_max: Array
    qd_max: Array
    qdd_max: Array

    def __post_init__(self) -> None:
        for name in LIMIT_NAMES:
            object.__setattr__(
                self, name, np.atleast_1d(np.asarray(getattr(self, name), dtype=np.float64))
            )
        sizes = {name: getattr(self, name).size for name in LIMIT_NAMES}
        if len(set(sizes.values())) != 1:
            raise ValueError(f"one limit per joint in each of {LIMIT_NAMES}, got sizes {sizes}")
        if (
            np.any(self.q_max <= self.q_min)
            or np.any(self.qd_max <= 0)
            or np.any(self.qdd_max <= 0)
        ):
            raise ValueError(f"empty limits: {self}")

    @property
    def n_joints(self) -> int:
        return int(self.q_min.size)

    def tightened(self, margin: float) -> JointLimits:
        """Limits shrunk by ``margin``: the angle range by margin × span on each side."""
        span = self.q_max - self.q_min
        k = 1.0 - margin
        return JointLimits(
            self.q_min + margin * span,
            self.q_max - margin * span,
            k * self.qd_max,
            k * self.qdd_max,
        )

    def to_dict(self) -> dict[str, list[float]]:
        return {name: getattr(self, name).tolist() for name in LIMIT_NAMES}

    @classmethod
    def from_degrees(
        cls,
        q_min_deg: Sequence[float] | float,
        q_max_deg: Sequence[float] | float,
        qd_max_deg_s: Sequence[float] | float,
        qdd_max_deg_s2: Sequence[float] | float,
    ) -> JointLimits:
        return cls(
            *(
                np.deg2rad(np.atleast_1d(v))
                for v in (q_min_deg, q_max_deg, qd_max_deg_s, qdd_max_deg_s2)
            )
        )


def reached_limits(trajectory: simulation.Evaluable, t: Array) -> JointLimits:
    """The limits a trajectory reaches on the grid ``t`` (e.g. Eq 18 on a dense grid)."""
    q, qd, qdd = (np.asarray(x).reshape(len(t), -1) for x in trajectory.evaluate(np.asarray(t)))
    return JointLimits(
        q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0)
    )


def limit_violation(
    trajectory: simulation.Evaluable,
    limits: JointLimits,
    t: Array,
    widths: tuple[Array | float, Array | float, Array | float] = (0.0, 0.0, 0.0),
) -> dict[str, float]:
    """Largest excess over each limit on grid ``t`` (≤ 0 means satisfied), in rad, rad/s, rad/s²,
    each sampled extreme widened by ``widths`` (q, q̇, q̈; :func:`bounded_violation`)."""
    r = reached_limits(trajectory, t)
    pq, pqd, pqdd = widths
    return {
        "q_min": float(np.max(limits.q_min - (r.q_min - pq))),
        "q_max": float(np.max(r.q_max + pq - limits.q_max)),
        "qd_max": float(np.max(r.qd_max + pqd - limits.qd_max)),
        "qdd_max": float(np.max(r.qdd_max + pqdd - limits.qdd_max)),
    }


def between_samples(theta: Array, omega_f: float, spacing: float) -> tuple[Array, Array, Array]:
    """Per joint, how far q, q̇ and q̈ of the series θ ((2n+1) × J, Eq 8) can pass their largest
    sample (or fall below their smallest) between samples ``spacing`` [s] apart.

    The error bound of linear interpolation, h²/8 · max|f''|, with |f''| bounded by the
    coefficients: q̈ ≤ Σ ω l Aₗ, d³q/dt³ ≤ Σ (ω l)² Aₗ, d⁴q/dt⁴ ≤ Σ (ω l)³ Aₗ, Aₗ = √(aₗ² + bₗ²)
    (Eq 8: q̇ = Σ aₗ cos(ω l t) + bₗ sin(ω l t)).  Scaling a joint's aₗ, bₗ by s scales its
    bounds by s."""
    theta = np.asarray(theta, dtype=np.float64)
    n = (theta.shape[0] - 1) // 2
    amplitude = np.hypot(theta[1 : n + 1], theta[n + 1 :])  # (n, J)
    rate = omega_f * np.arange(1, n + 1, dtype=np.float64)[:, None]
    pad = spacing * spacing / 8.0
    bound = [pad * np.sum(rate**k * amplitude, axis=0) for k in (1, 2, 3)]
    return bound[0], bound[1], bound[2]


def period_spacing(trajectory: FourierTrajectory, t: Array) -> float:
    """The spacing [s] of ``t``, a grid equally spaced over one period of ``trajectory`` (as
    :func:`grid` gives); raises ValueError for any other grid (a bound between its samples
    would not hold)."""
    t = np.asarray(t, dtype=np.float64)
    spacing = trajectory.period / t.size
    if not np.allclose(np.diff(t), spacing, rtol=1e-9, atol=0.0):
        raise ValueError("a bound between samples needs a grid equally spaced over one period")
    return spacing


def bounded_violation(
    trajectory: FourierTrajectory, limits: JointLimits, t: Array
) -> dict[str, float]:
    """:func:`limit_violation` over the whole period, not only at the instants of ``t``: each
    sampled extreme widened by :func:`between_samples` (``t`` equally spaced over one period,
    as :func:`grid` gives: ≤ 0 means the continuous trajectory meets every limit)."""
    spacing = period_spacing(trajectory, t)
    widths = between_samples(trajectory.theta, trajectory.omega_f, spacing)
    return limit_violation(trajectory, limits, t, widths)


def period_frame(
    trajectory: FourierTrajectory, period_s: float, rate_hz: float
) -> tuple[pd.DataFrame, dict[str, str]]:
    """One period sampled at ``rate_hz``: ``time``, then ``q``, ``qd``, ``qdd`` of each joint
    (suffixed ``_1``, ``_2``, ... when there are several), and their units."""
    t = np.arange(int(round(period_s * rate_hz))) / rate_hz
    q, qd, qdd = trajectory.evaluate_joints(t)
    columns: dict[str, Array] = {"time": t}
    units = {"time": "s"}
    for j in range(q.shape[1]):
        suffix = "" if q.shape[1] == 1 else f"_{j + 1}"
        columns |= {f"q{suffix}": q[:, j], f"qd{suffix}": qd[:, j], f"qdd{suffix}": qdd[:, j]}
        units |= {f"q{suffix}": "rad", f"qd{suffix}": "rad/s", f"qdd{suffix}": "rad/s^2"}
    return pd.DataFrame(columns), units
