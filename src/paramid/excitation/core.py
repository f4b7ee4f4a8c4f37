"""Optimal excitation: finite Fourier trajectories, their design, and period averaging.

The excitation paper (Tong et al. 2024, ``shared/papers/fourier-excitation-trajectory.txt``)
writes each joint's excitation as a finite Fourier series (Eq 8)

    q(t) = q₀ + Σₗ₌₁ⁿ [aₗ/(ω_f l) sin(ω_f l t) − bₗ/(ω_f l) cos(ω_f l t)],

2n + 1 parameters per joint (n = 5 → 11), bounded in angle, velocity and acceleration and at
rest (q̇ = q̈ = 0) at the start and end of the period (Eq 9), and chooses the coefficients that
minimise the condition number of the stacked regressor (Eq 7, 10).  This module

* evaluates such trajectories analytically (:class:`FourierTrajectory`, vectorised over time
  and joints; its ``evaluate`` is what :func:`paramid.hip.twin.simulate` follows);
* designs them (:func:`design`) by ``scipy.optimize.minimize`` (SLSQP) from several seeded
  starts, on the condition number (Eq 10) or the D-optimal criterion −log det(HᵀH/K);
* simulates P periods with the twin and compares the hip's Eq 18 record with the designed
  trajectory, with and without averaging of P periods (:func:`compare_hip`).

Handling of the boundary conditions (Eq 9): q̇(0) = Σ aₗ and q̈(0) = ω_f Σ l bₗ, and the series
is T-periodic (T = 2π/ω_f), so rest at both ends is the pair of linear conditions Σ aₗ = 0 and
Σ l bₗ = 0.  The optimiser works in an orthonormal basis of their null space, so every iterate
satisfies them exactly (to round-off); only the inequality limits are SLSQP constraints, and
since q, q̇, q̈ are linear in the coefficients these are linear constraints on a time grid.

Handling of sgn(q̇): the Coulomb column of Eq 6 makes cond(H) piecewise constant in the
coefficients wherever a velocity sample changes sign, so finite-difference gradients are
useless there.  During optimisation the column is replaced by the smooth surrogate
tanh(q̇ / v_s) (``sign_smoothing``, a continuation schedule of decreasing v_s, each stage
warm-starting the next); every reported number (criterion, cond, the choice among
starts) uses the exact sgn.

Limits between grid points: the constraints hold on the optimisation grid with the limits
tightened by ``margin``; each design is then checked on a grid ``fine_factor`` (10) times finer
and, should it still exceed a limit there, the oscillating part is scaled down (and q₀
re-centred) by the smallest factor that makes it feasible on that grid — recorded as
``shrink`` (1 when not needed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import scipy.linalg
from numpy.typing import NDArray
from scipy.optimize import minimize

from paramid.hip import estimators, model, rls, signals, twin
from paramid.seeding import Key, generator

if TYPE_CHECKING:
    from matplotlib.figure import Figure

Array = NDArray[np.float64]
RegressorFn = Callable[[Array, Array, Array, float], Array]
"""``fn(q, q̇, q̈, sign_smoothing) -> H``: q etc. of shape (M, J); H stacked (rows = M·J)."""

CRITERIA = ("cond", "dopt")
_FD_STEP = np.finfo(np.float64).eps ** (1 / 3)  # central-difference step (relative)
LIMIT_NAMES = ("q_min", "q_max", "qd_max", "qdd_max")


# --------------------------------------------------------------------------------------------
# Fourier trajectories (Eq 8)
# --------------------------------------------------------------------------------------------


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
    joint (so the hip twin can follow it like an Eq 18 :class:`paramid.hip.twin.Trajectory`) and
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
        """Inverse of :attr:`theta` (also accepts a flat joint-major vector of J(2n+1))."""
        theta = np.asarray(theta, dtype=np.float64)
        if theta.ndim == 1:
            raise ValueError("pass theta as a ((2n+1) × J) matrix")
        n = (theta.shape[0] - 1) // 2
        return cls(theta[0], theta[1 : n + 1].T, theta[n + 1 :].T, omega_f)

    def evaluate_joints(self, t: Array) -> tuple[Array, Array, Array]:
        """(q, q̇, q̈), each (len(t), J)."""
        phi = fourier_basis(np.asarray(t, dtype=np.float64), self.omega_f, self.order)
        theta = self.theta
        return tuple(p @ theta for p in phi)  # type: ignore[return-value]

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


# --------------------------------------------------------------------------------------------
# Limits (Eq 9)
# --------------------------------------------------------------------------------------------


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


def reached_limits(trajectory: twin.Evaluable, t: Array) -> JointLimits:
    """The limits a trajectory reaches on the grid ``t`` (e.g. Eq 18 on a dense grid)."""
    q, qd, qdd = (np.asarray(x).reshape(len(t), -1) for x in trajectory.evaluate(np.asarray(t)))
    return JointLimits(
        q.min(axis=0), q.max(axis=0), np.abs(qd).max(axis=0), np.abs(qdd).max(axis=0)
    )


def limit_violation(trajectory: twin.Evaluable, limits: JointLimits, t: Array) -> dict[str, float]:
    """Largest excess over each limit on grid ``t`` (≤ 0 means satisfied), in rad, rad/s, rad/s²."""
    r = reached_limits(trajectory, t)
    return {
        "q_min": float(np.max(limits.q_min - r.q_min)),
        "q_max": float(np.max(r.q_max - limits.q_max)),
        "qd_max": float(np.max(r.qd_max - limits.qd_max)),
        "qdd_max": float(np.max(r.qdd_max - limits.qdd_max)),
    }


def _scale_into(
    theta: Array, limits: JointLimits, phi: tuple[Array, Array, Array], fraction: float, cap: bool
) -> tuple[Array, float]:
    """Scale each joint's oscillation (aₗ, bₗ) so that it fills ``fraction`` of its limits on
    the grid of ``phi``; q₀ is re-centred (``cap=False``: starts) or moved as little as needed
    (``cap=True``: the fine-grid repair, which never scales up).  Returns θ and min scale."""
    theta = theta.copy()
    phi_q, phi_qd, phi_qdd = phi
    dev = phi_q[:, 1:] @ theta[1:]
    vel, acc = np.abs(phi_qd @ theta).max(axis=0), np.abs(phi_qdd @ theta).max(axis=0)
    lo, hi = dev.min(axis=0), dev.max(axis=0)
    tiny = np.finfo(float).tiny
    span = limits.q_max - limits.q_min
    s = np.minimum.reduce(
        [
            span / np.maximum(hi - lo, tiny),
            limits.qd_max / np.maximum(vel, tiny),
            limits.qdd_max / np.maximum(acc, tiny),
        ]
    )
    s = fraction * (np.minimum(s, 1.0) if cap else s)
    theta[1:] *= s
    if cap:
        theta[0] = np.clip(theta[0], limits.q_min - s * lo, limits.q_max - s * hi)
    else:
        theta[0] = 0.5 * (limits.q_min + limits.q_max) - 0.5 * s * (lo + hi)
    return theta, float(s.min())


# --------------------------------------------------------------------------------------------
# Criteria (Eq 10 and D-optimality)
# --------------------------------------------------------------------------------------------


def log_cond(H: Array) -> float:
    """log of the 2-norm condition number σ_max/σ_min of Eq 10 (+inf when rank-deficient)."""
    s = np.linalg.svd(H, compute_uv=False)
    return float(np.log(s[0] / s[-1])) if s[-1] > 0 else math.inf


def neg_log_det(H: Array) -> float:
    """D-optimal criterion −log det(HᵀH/K) = −Σ log(σᵢ²/K) (+inf when rank-deficient)."""
    s = np.linalg.svd(H, compute_uv=False)
    if s[-1] <= 0:
        return math.inf
    return float(-np.sum(np.log(s * s / H.shape[0])))


def criterion_value(H: Array, criterion: str) -> float:
    """The design criterion: cond(H) (Eq 10) or −log det(HᵀH/K)."""
    if criterion == "cond":
        return float(np.exp(log_cond(H)))
    if criterion == "dopt":
        return neg_log_det(H)
    raise ValueError(f"unknown criterion {criterion!r}; choose from {CRITERIA}")


def _objective(H: Array, criterion: str) -> float:
    return log_cond(H) if criterion == "cond" else neg_log_det(H)


def hip_regressor(keys: Sequence[str], gravity: float) -> RegressorFn:
    """Regressor function for the 1-DOF model of Eq 6 (``paramid.hip.model.regressor``), with the
    sgn(q̇) column replaced by tanh(q̇/v_s) when a smoothing v_s > 0 is passed."""
    keys = list(keys)
    model.check_columns(keys)

    def fn(q: Array, qd: Array, qdd: Array, smoothing: float) -> Array:
        q, qd, qdd = (np.asarray(x).reshape(-1) for x in (q, qd, qdd))
        H = model.regressor(keys, q, qd, qdd, gravity)
        if smoothing > 0 and "sign_qd" in keys:
            H[:, keys.index("sign_qd")] = np.tanh(qd / smoothing)
        return H

    return fn


# --------------------------------------------------------------------------------------------
# Design
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StartResult:
    """One seeded SLSQP start: its criterion (exact sgn), status and iterations."""

    start: int
    value: float
    surrogate: float
    success: bool
    message: str
    iterations: int
    shrink: float


@dataclass(frozen=True)
class Design:
    """A designed excitation: the trajectory, the achieved criterion and which limits bind.

    ``value`` is the criterion with the exact sgn on the optimisation grid (``cond`` and
    ``dopt`` are both given); ``active`` lists, per joint, each limit with the value reached on
    the fine grid and whether it binds (slack within the margin + 1e-3 of the limit's scale).
    """

    trajectory: FourierTrajectory
    criterion: str
    value: float
    cond: float
    dopt: float
    surrogate_cond: float
    limits: JointLimits
    margin: float
    grid_points: int
    fine_factor: int
    sign_smoothing: list[float]
    shrink: float
    fine_violation: dict[str, float]
    boundary_residual: float
    active: list[dict[str, Any]]
    starts: list[StartResult] = field(default_factory=list)

    @property
    def coefficients(self) -> dict[str, Any]:
        return self.trajectory.to_dict()

    @property
    def active_constraints(self) -> list[str]:
        """Names like ``'joint1.qd_max'`` of the binding limits (plus the rest conditions)."""
        names = [f"joint{c['joint']}.{c['limit']}" for c in self.active if c["active"]]
        return [*names, "rest_at_ends (Eq 9, equality)"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "trajectory": self.trajectory.to_dict(),
            "criterion": self.criterion,
            "value": self.value,
            "cond": self.cond,
            "dopt": self.dopt,
            "surrogate_cond": self.surrogate_cond,
            "limits": self.limits.to_dict(),
            "margin": self.margin,
            "grid_points": self.grid_points,
            "fine_factor": self.fine_factor,
            "sign_smoothing": self.sign_smoothing,
            "shrink": self.shrink,
            "fine_violation": self.fine_violation,
            "boundary_residual": self.boundary_residual,
            "active": self.active,
            "active_constraints": self.active_constraints,
            "starts": [s.__dict__ for s in self.starts],
        }


def grid(period: float, points: int) -> Array:
    """``points`` equally spaced instants over one period, end excluded (the series is periodic)."""
    return np.arange(points) * (period / points)


def active_constraints(
    trajectory: FourierTrajectory, limits: JointLimits, t: Array, tolerance: float
) -> list[dict[str, Any]]:
    """Per joint and limit: the reached value, its slack relative to the limit's scale and
    whether it binds (slack ≤ ``tolerance``)."""
    r = reached_limits(trajectory, t)
    span = limits.q_max - limits.q_min
    out = []
    for j in range(limits.n_joints):
        slack = {
            "q_min": ((r.q_min[j] - limits.q_min[j]) / span[j], r.q_min[j], limits.q_min[j]),
            "q_max": ((limits.q_max[j] - r.q_max[j]) / span[j], r.q_max[j], limits.q_max[j]),
            "qd_max": (1 - r.qd_max[j] / limits.qd_max[j], r.qd_max[j], limits.qd_max[j]),
            "qdd_max": (1 - r.qdd_max[j] / limits.qdd_max[j], r.qdd_max[j], limits.qdd_max[j]),
        }
        for name, (s, reached, limit) in slack.items():
            out.append(
                {
                    "joint": j + 1,
                    "limit": name,
                    "value": float(limit),
                    "reached": float(reached),
                    "relative_slack": float(s),
                    "active": bool(s <= tolerance),
                }
            )
    return out


def design(
    regressor_fn: RegressorFn,
    limits: JointLimits,
    *,
    order: int,
    omega_f: float,
    grid_points: int,
    starts: int,
    criterion: str = "cond",
    margin: float = 0.005,
    sign_smoothing: float | Sequence[float] = (0.1, 0.03, 0.01),
    maxiter: int = 300,
    fine_factor: int = 10,
    seed_keys: Sequence[Key] = ("excitation",),
) -> Design:
    """Minimise cond(H) (Eq 10) or −log det(HᵀH/K) over the Fourier coefficients (Eq 8) subject
    to the limits and rest conditions of Eq 9, by SLSQP from ``starts`` seeded starts.

    Start i draws from the stream ``(*seed_keys, "start", i)``: random coefficients in the
    rest subspace, scaled to fill 30–90 % of the limits and centred in the angle range.  The
    limits are imposed on ``grid_points`` instants per period, tightened by ``margin``; the
    result is checked (and if need be shrunk) on a grid ``fine_factor`` times finer.  The best
    start by the exact-sgn criterion wins.
    """
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; choose from {CRITERIA}")
    if starts < 1 or order < 1 or grid_points < 4 * order:
        raise ValueError("need starts ≥ 1, order ≥ 1 and at least 4·order grid points")
    J = limits.n_joints
    period = 2 * np.pi / omega_f
    t = grid(period, grid_points)
    t_fine = grid(period, fine_factor * grid_points)
    phi = fourier_basis(t, omega_f, order)
    phi_fine = fourier_basis(t_fine, omega_f, order)
    Z = rest_basis(order)
    gq, gqd, gqdd = (p @ Z for p in phi)
    tight = limits.tightened(margin)

    # linear inequalities A z ≤ b per joint (same A, joint-specific b), block diagonal over J
    A1 = np.vstack([gq, -gq, gqd, -gqd, gqdd, -gqdd])
    A = np.kron(np.eye(J), A1)
    b = np.concatenate(
        [
            np.concatenate(
                [np.full(grid_points, v) for v in (tight.q_max[j], -tight.q_min[j])]
                + [
                    np.full(2 * grid_points, tight.qd_max[j]),
                    np.full(2 * grid_points, tight.qdd_max[j]),
                ]
            )
            for j in range(J)
        ]
    )
    nz = Z.shape[1]
    schedule = [float(v) for v in np.atleast_1d(sign_smoothing)]
    if not schedule or min(schedule) <= 0:
        raise ValueError(f"sign_smoothing must be positive, got {sign_smoothing}")
    final_smoothing = schedule[-1]

    def to_theta(z: Array) -> Array:
        return Z @ z.reshape(J, nz).T

    def H_of(theta: Array, smoothing: float, which: tuple[Array, Array, Array] = phi) -> Array:
        q, qd, qdd = (p @ theta for p in which)
        return regressor_fn(q, qd, qdd, smoothing)

    regressor_columns = H_of(np.ones((2 * order + 1, J)), schedule[0]).shape[1]

    def values(zs: Array, smoothing: float) -> Array:
        """Objective at a batch of points zs (B, J·nz), one regressor call and one batched SVD."""
        thetas = np.einsum("kz,bjz->bkj", Z, zs.reshape(len(zs), J, nz))
        q, qd, qdd = (np.einsum("mk,bkj->bmj", p, thetas).reshape(-1, J) for p in phi)
        H = regressor_fn(q, qd, qdd, smoothing).reshape(len(zs), -1, regressor_columns)
        sv = np.linalg.svd(H, compute_uv=False)
        with np.errstate(divide="ignore"):
            if criterion == "cond":
                out = np.log(sv[:, 0] / sv[:, -1])
            else:
                out = -np.sum(np.log(sv * sv / H.shape[1]), axis=1)
        return np.where(np.isfinite(out), out, 1e6)

    def fun(z: Array, smoothing: float) -> float:
        return float(values(z[None], smoothing)[0])

    def jac(z: Array, smoothing: float) -> Array:
        """Central differences, all 2·J·nz points in one batch."""
        step = _FD_STEP * np.maximum(1.0, np.abs(z))
        shifts = np.diag(step)
        v = values(np.concatenate([z + shifts, z - shifts]), smoothing)
        return (v[: z.size] - v[z.size :]) / (2 * step)

    constraints = [{"type": "ineq", "fun": lambda z: b - A @ z, "jac": lambda z: -A}]
    results: list[tuple[float, Array, StartResult]] = []
    for i in range(starts):
        rng = generator(*seed_keys, "start", i)
        theta0 = Z @ rng.standard_normal((nz, J))
        theta0[1:] /= np.concatenate([np.arange(1, order + 1)] * 2)[:, None]  # decaying spectrum
        theta0, _ = _scale_into(theta0, tight, phi, rng.uniform(0.3, 0.9), cap=False)
        z0 = np.linalg.lstsq(Z, theta0, rcond=None)[0].T.ravel()
        z, nit = z0, 0
        for smoothing in schedule:  # continuation: each stage warm-starts the next, sharper one
            res = minimize(
                fun,
                z,
                args=(smoothing,),
                jac=jac,
                method="SLSQP",
                constraints=constraints,
                options={"maxiter": maxiter, "ftol": 1e-10},
            )
            z, nit = res.x, nit + int(res.nit)
        theta = to_theta(z)
        theta, shrink = _repair(theta, limits, phi_fine)
        exact = criterion_value(H_of(theta, 0.0), criterion)
        surrogate = criterion_value(H_of(theta, final_smoothing), criterion)
        results.append(
            (
                exact,
                theta,
                StartResult(
                    i, exact, surrogate, bool(res.success), str(res.message), int(res.nit), shrink
                ),
            )
        )
    finite = [r for r in results if math.isfinite(r[0])]
    if not finite:
        raise RuntimeError("every start gave a rank-deficient regressor")
    best_value, best_theta, best = min(finite, key=lambda r: r[0])
    traj = FourierTrajectory.from_theta(best_theta, omega_f)
    H_exact = H_of(best_theta, 0.0)
    return Design(
        trajectory=traj,
        criterion=criterion,
        value=best_value,
        cond=criterion_value(H_exact, "cond"),
        dopt=criterion_value(H_exact, "dopt"),
        surrogate_cond=criterion_value(H_of(best_theta, final_smoothing), "cond"),
        limits=limits,
        margin=margin,
        grid_points=grid_points,
        fine_factor=fine_factor,
        sign_smoothing=schedule,
        shrink=best.shrink,
        fine_violation=limit_violation(traj, limits, t_fine),
        boundary_residual=float(np.abs(boundary_matrix(order) @ best_theta).max()),
        active=active_constraints(traj, limits, t_fine, margin + 1e-3),
        starts=[r[2] for r in results],
    )


def _repair(
    theta: Array, limits: JointLimits, phi_fine: tuple[Array, Array, Array]
) -> tuple[Array, float]:
    """Scale down (never up) a design that exceeds a limit on the fine grid; 1.0 if it does not."""
    q, qd, qdd = (p @ theta for p in phi_fine)
    ok = (
        np.all(q >= limits.q_min)
        and np.all(q <= limits.q_max)
        and np.all(np.abs(qd) <= limits.qd_max)
        and np.all(np.abs(qdd) <= limits.qdd_max)
    )
    if ok:
        return theta, 1.0
    # a hair inside the limits, so that round-off in other evaluations cannot cross them
    return _scale_into(theta, limits.tightened(1e-9), phi_fine, 1.0, cap=True)


# --------------------------------------------------------------------------------------------
# Twin records of P periods and the hip comparison
# --------------------------------------------------------------------------------------------


def simulate_periods(
    trajectory: twin.Evaluable,
    period_s: float,
    periods: int,
    settings: twin.TwinSettings,
    seed: int,
    record: str,
) -> twin.Record:
    """P consecutive periods of a T-periodic trajectory through the hip twin (Eq 1–2 plant,
    the configured noise), sampled at the twin's rate: P·T·fs samples, t = 0 … P·T − 1/fs."""
    n = period_s * settings.sample_rate_hz
    if abs(n - round(n)) > 1e-9:
        raise ValueError(f"period {period_s} s is not a whole number of samples")
    return twin.simulate(trajectory, periods * period_s, settings, seed, record)


def rls_batch(H: Array, y: Array, forgetting: float, p0: float) -> Array:
    """RLS of Eq 7–9 (X̂(0) = 0, P(0) = p0·I) run on S records at once: H (S, K, d), y (S, K)
    → X̂ (S, K, d).  Same arithmetic as :func:`paramid.hip.rls.rls_trajectory`, one loop over k."""
    S, K, d = H.shape
    x = np.zeros((S, d))
    P = np.broadcast_to(p0 * np.eye(d), (S, d, d)).copy()
    out = np.empty((S, K, d))
    for k in range(K):
        h = H[:, k]
        Ph = np.einsum("sij,sj->si", P, h)
        gain = Ph / (forgetting + np.einsum("si,si->s", h, Ph))[:, None]  # Eq 7
        x = x + gain * (y[:, k] - np.einsum("si,si->s", h, x))[:, None]  # Eq 8
        P = (P - np.einsum("si,sj,sjk->sik", gain, h, P)) / forgetting  # Eq 9
        P = 0.5 * (P + P.transpose(0, 2, 1))
        out[:, k] = x
    return out


@dataclass(frozen=True)
class Variant:
    """One calibration protocol of the comparison: a trajectory, recorded for ``periods``
    periods of ``period_s`` and averaged into one before the signal chain (P = 1: no averaging)."""

    name: str
    trajectory: twin.Evaluable
    period_s: float
    periods: int = 1
    periodic_filter: bool = False


@dataclass(frozen=True)
class HipSetup:
    """Everything the hip identification chain needs (from the hip study's config)."""

    settings: twin.TwinSettings
    keys: tuple[str, ...]
    cutoff_hz: float
    filter_order: int
    trim_s: float
    rls: Mapping[str, Any]
    estimator: str = "bcls"  # "bcls" (Eq 17 in the RLS box) or "ls"


def _records(
    trajectory: twin.Evaluable,
    duration_s: float,
    setup: HipSetup,
    seeds: Sequence[int],
    record: str,
) -> dict[str, Array]:
    recs = [twin.simulate(trajectory, duration_s, setup.settings, int(s), record) for s in seeds]
    return {
        "time": recs[0].time,
        "angle": np.stack([r.angle for r in recs]),
        "torque": np.stack([r.torque for r in recs]),
        "torque_true": np.stack([r.torque_true for r in recs]),
    }


def _regression(proc: signals.Processed, setup: HipSetup) -> tuple[Array, Array]:
    S, K = proc.q.shape
    H = model.regressor(
        setup.keys, proc.q.ravel(), proc.qd.ravel(), proc.qdd.ravel(), setup.settings.gravity
    )
    return H.reshape(S, K, -1), proc.torque


def identify_hip(H: Array, y: Array, setup: HipSetup, sample_rate_hz: float) -> Array:
    """The hip identification on S records at once: RLS (Eq 7–9) → box [L, U] (§3.1) → BCLS
    (Eq 17) per record, or plain LS.  H (S, K, d), y (S, K) → X̂ (S, d)."""
    names = model.parameter_names(setup.keys)
    if setup.estimator == "ls":
        return np.stack([estimators.ls(h, yy) for h, yy in zip(H, y, strict=True)])
    if setup.estimator != "bcls":
        raise ValueError(f"estimator must be 'bcls' or 'ls', got {setup.estimator!r}")
    r = setup.rls
    traj = rls_batch(H, y, r["forgetting"], r["p0"])
    burn_in = int(round(r["burn_in_s"] * sample_rate_hz))
    out = []
    for h, yy, tr in zip(H, y, traj, strict=True):
        box = rls.rls_bounds(tr, burn_in, r["margin"], names, r.get("mechanical", {}))
        out.append(estimators.bcls(h, yy, box.lower, box.upper))
    return np.stack(out)


def compare_hip(
    variants: Sequence[Variant],
    validation: twin.Evaluable,
    validation_duration_s: float,
    setup: HipSetup,
    seeds: Sequence[int],
) -> pd.DataFrame:
    """Identify the hip from each calibration variant on every twin seed; score on Eq 19.

    Seed s draws the calibration record of every variant from the stream
    ("twin", s, "calibration") and the validation record from ("twin", s, "validation")
    (seed 0 is the hip study's own pair of records): the variants share their random numbers,
    so the comparison is paired.  One row per (variant, seed): the estimate, its relative L2
    error against X_true, train / validation RMSE against the measured torque (Eq 21) and
    validation RMSE against the true torque, and cond(H) of the processed calibration record.
    """
    seeds = [int(s) for s in seeds]
    fs = setup.settings.sample_rate_hz
    names = model.parameter_names(setup.keys)
    x_true = np.asarray(setup.settings.x_true)
    val = _records(validation, validation_duration_s, setup, seeds, "validation")
    pv = signals.process_averaged(
        val["time"],
        val["angle"],
        val["torque"],
        periods=1,
        cutoff_hz=setup.cutoff_hz,
        order=setup.filter_order,
        trim_s=setup.trim_s,
        periodic=False,
    )
    Hv, yv = _regression(pv, setup)
    trim = int(round(setup.trim_s * fs))
    yv_true = val["torque_true"][:, trim : val["time"].size - trim]

    frames = []
    for v in variants:
        cal = _records(v.trajectory, v.periods * v.period_s, setup, seeds, "calibration")
        proc = signals.process_averaged(
            cal["time"],
            cal["angle"],
            cal["torque"],
            periods=v.periods,
            cutoff_hz=setup.cutoff_hz,
            order=setup.filter_order,
            trim_s=setup.trim_s,
            periodic=v.periodic_filter,
        )
        H, y = _regression(proc, setup)
        X = identify_hip(H, y, setup, fs)
        frame = pd.DataFrame(X, columns=names)
        frame.insert(0, "trajectory", v.name)
        frame.insert(1, "seed", seeds)
        frame["param_error"] = np.linalg.norm(X - x_true, axis=1) / np.linalg.norm(x_true)
        frame["train_rmse"] = _rmse(y - np.einsum("skd,sd->sk", H, X))
        frame["val_rmse"] = _rmse(yv - np.einsum("skd,sd->sk", Hv, X))
        frame["val_rmse_true"] = _rmse(yv_true - np.einsum("skd,sd->sk", Hv, X))
        frame["cond_signals"] = [model.condition_number(h) for h in H]
        frame["periods"] = v.periods
        frame["raw_samples"] = cal["time"].size
        frame["rows"] = H.shape[1]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _rmse(r: Array) -> Array:
    return np.sqrt(np.mean(r * r, axis=-1))


def summarise(per_seed: pd.DataFrame, cond: Mapping[str, float]) -> pd.DataFrame:
    """comparison.csv: per trajectory the design-grid cond (exact sgn), medians and IQRs over
    seeds of the relative parameter error and RMSEs, and how much data each variant used."""

    def q(x: pd.Series, p: float) -> float:
        return float(np.quantile(x, p))

    rows = []
    for name, g in per_seed.groupby("trajectory", sort=False):
        rows.append(
            {
                "trajectory": name,
                "cond": cond[name],
                "cond_signals_median": float(g.cond_signals.median()),
                "param_error_median": float(g.param_error.median()),
                "param_error_q1": q(g.param_error, 0.25),
                "param_error_q3": q(g.param_error, 0.75),
                "val_rmse_median": float(g.val_rmse.median()),
                "val_rmse_q1": q(g.val_rmse, 0.25),
                "val_rmse_q3": q(g.val_rmse, 0.75),
                "val_rmse_true_median": float(g.val_rmse_true.median()),
                "train_rmse_median": float(g.train_rmse.median()),
                "seeds": int(g.seed.nunique()),
                "periods": int(g.periods.iloc[0]),
                "raw_samples": int(g.raw_samples.iloc[0]),
                "data_factor": int(g.periods.iloc[0]),
                "rows": int(g.rows.iloc[0]),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------
# Figure
# --------------------------------------------------------------------------------------------


def comparison_figure(
    trajectories: Mapping[str, twin.Evaluable],
    period_s: float,
    limits: JointLimits,
    per_seed: pd.DataFrame,
    style: Mapping[str, Any] | None = None,
) -> Figure:
    """Eq 18 and the designed excitation over one period (q, q̇, q̈ with the limits), and the
    relative parameter error and validation RMSE over the twin seeds per variant.

    ``style``: the workflow's ``figures`` config (``paramid.plotting.FigureStyle`` fields)."""
    import matplotlib.pyplot as plt

    from paramid.plotting import FigureStyle, styled

    fs = FigureStyle(**(style or {}))
    t = np.linspace(0.0, period_s, 1001)
    with styled(fs):
        fig, axes = plt.subplots(2, 3, figsize=(fs.width_in, 4.6), layout="constrained")
        labels = ("Angle [deg]", "Velocity [deg/s]", "Acceleration [deg/s²]")
        for name, traj in trajectories.items():
            for ax, x in zip(axes[0], traj.evaluate(t), strict=True):
                ax.plot(t, np.rad2deg(np.asarray(x).reshape(t.size, -1)[:, 0]), lw=1.1, label=name)
        bounds = (
            (limits.q_min[0], limits.q_max[0]),
            (-limits.qd_max[0], limits.qd_max[0]),
            (-limits.qdd_max[0], limits.qdd_max[0]),
        )
        for ax, label, (lo, hi) in zip(axes[0], labels, bounds, strict=True):
            for v in (lo, hi):
                ax.axhline(np.rad2deg(v), color="grey", ls="--", lw=0.8)
            ax.set(xlabel="Time [s]", ylabel=label)
        handles, names = axes[0, 0].get_legend_handles_labels()
        fig.legend(handles, names, loc="outside upper center", ncols=len(names))
        axes[0, 0].set_title("(a) angle, limits dashed")
        axes[0, 1].set_title("(b) velocity")
        axes[0, 2].set_title("(c) acceleration")
        order = list(dict.fromkeys(per_seed.trajectory))
        for ax, col, title in (
            (axes[1, 0], "param_error", "(d) relative parameter error"),
            (axes[1, 1], "val_rmse", "(e) validation RMSE [N m]"),
            (axes[1, 2], "val_rmse_true", "(f) validation RMSE vs true torque [N m]"),
        ):
            data = [per_seed.loc[per_seed.trajectory == n, col].to_numpy() for n in order]
            ax.boxplot(data, tick_labels=[n.replace("_", "\n") for n in order])
            ax.set_title(title)
            if col == "param_error":
                ax.set_yscale("log")
    return fig
