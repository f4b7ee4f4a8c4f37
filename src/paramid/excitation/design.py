"""Optimal excitation design (Eq 7, 10): Fourier coefficients that condition the regressor best.

The excitation paper (Tong et al. 2024) chooses the coefficients of the Fourier series of
Eq 8 (:mod:`paramid.excitation.fourier`) that minimise the condition number of the stacked
regressor (Eq 7, 10) under the limits and rest conditions of Eq 9.  :func:`design` does so by
``scipy.optimize.minimize`` (SLSQP) from several seeded starts, on the condition number
(Eq 10) or the D-optimal criterion −log det(HᵀH/K).

Rest conditions (Eq 9): the optimiser works in an orthonormal basis of the null space of
:func:`paramid.excitation.fourier.boundary_matrix`, so every iterate satisfies them exactly
(to round-off); only the inequality limits are SLSQP constraints, and since q, q̇, q̈ are
linear in the coefficients these are linear constraints on a time grid.

Handling of sgn(q̇): the Coulomb column of Eq 6 makes cond(H) piecewise constant in the
coefficients wherever a velocity sample changes sign, so finite-difference gradients are
useless there.  During optimisation the column is replaced by the smooth surrogate
tanh(q̇ / v_s) (``sign_smoothing``, a continuation schedule of decreasing v_s, each stage
warm-starting the next); every reported number (criterion, cond, the choice among
starts) uses the exact sgn.

Limits between grid points: the constraints hold on the optimisation grid with the limits
tightened by ``margin``; each design is then checked over its whole period — on a grid
``fine_factor`` (10) times finer, each extreme widened by a bound on what lies between its
samples (:func:`paramid.excitation.fourier.between_samples`) — and, should it exceed a limit,
the oscillating part is scaled down (and q₀ re-centred) by the smallest factor that makes it
feasible — recorded as ``shrink`` (1 when not needed; :func:`repair`).  A best design whose
regressor is rank-deficient (:data:`UNIDENTIFIABLE_COND`) stops with :class:`DesignError`
naming the binding limits.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize

from paramid.errors import UserError
from paramid.excitation.fourier import (
    Array,
    FourierTrajectory,
    JointLimits,
    between_samples,
    boundary_matrix,
    bounded_violation,
    fourier_basis,
    grid,
    period_boundaries,
    reached_limits,
    rest_basis,
    states_at_rest,
)
from paramid.seeding import Key, generator

LOG = logging.getLogger(__name__)

RegressorFn = Callable[[Array, Array, Array, float], Array]
"""``fn(q, q̇, q̈, sign_smoothing) -> H``: q etc. of shape (M, J); H stacked (rows = M·J)."""
Bases = tuple[Array, Array, Array]
"""(Φ_q, Φ_q̇, Φ_q̈) of :func:`paramid.excitation.fourier.fourier_basis` on a time grid."""

CRITERIA = ("cond", "dopt")
_FD_STEP = np.finfo(np.float64).eps ** (1 / 3)  # central-difference step (relative)
_INFEASIBLE = 1e6  # objective of a rank-deficient regressor during the search
#: A design whose regressor, columns scaled to unit norm, has this condition number or more is
#: numerically rank-deficient (relative singular values below 1e-8): some parameters are not
#: identified from it.
UNIDENTIFIABLE_COND = 1e8


class DesignError(UserError):
    """Limits or settings under which no usable excitation exists (the message says which)."""


# --------------------------------------------------------------------------------------------
# Criteria (Eq 10 and D-optimality)
# --------------------------------------------------------------------------------------------


def log_criterion(sv: Array, rows: int, criterion: str) -> Array:
    """From singular values ``sv`` (descending along the last axis) of regressors with ``rows``
    rows: log cond = log σ_max/σ_min (Eq 10) or −log det(HᵀH/K) = −Σ log(σᵢ²/K); +inf (or
    nan) where a regressor is rank-deficient."""
    with np.errstate(divide="ignore"):
        if criterion == "cond":
            return np.log(sv[..., 0] / sv[..., -1])
        return -np.sum(np.log(sv * sv / rows), axis=-1)


def log_cond(H: Array) -> float:
    """log of the 2-norm condition number σ_max/σ_min of Eq 10 (+inf when rank-deficient)."""
    s = np.linalg.svd(H, compute_uv=False)
    return float(log_criterion(s, H.shape[0], "cond")) if s[-1] > 0 else math.inf


def neg_log_det(H: Array) -> float:
    """D-optimal criterion −log det(HᵀH/K) = −Σ log(σᵢ²/K) (+inf when rank-deficient)."""
    s = np.linalg.svd(H, compute_uv=False)
    return float(log_criterion(s, H.shape[0], "dopt")) if s[-1] > 0 else math.inf


def criterion_value(H: Array, criterion: str) -> float:
    """The design criterion: cond(H) (Eq 10) or −log det(HᵀH/K)."""
    if criterion == "cond":
        return float(np.exp(log_cond(H)))
    if criterion == "dopt":
        return neg_log_det(H)
    raise ValueError(f"unknown criterion {criterion!r}; choose from {CRITERIA}")


@dataclass(frozen=True)
class StartResult:
    """One seeded SLSQP start: its criterion (exact sgn and surrogate), the status and
    iterations of its last continuation stage, and its fine-grid ``shrink``."""

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
    def active_constraints(self) -> list[str]:
        """Names like ``'joint1.qd_max'`` of the binding limits (plus the rest conditions)."""
        names = [f"joint{c['joint']}.{c['limit']}" for c in self.active if c["active"]]
        return [*names, "rest_at_ends (Eq 9: q̇ = q̈ = 0; its q = 0 not imposed, fourier.py)"]

    def to_dict(self, reference: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """design.json's fields, with ``reference`` (the scores of the trajectory a study
        compares the design with, hip: Eq 18) under ``reference`` where the study has one."""
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
        } | ({"reference": dict(reference)} if reference else {})


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


# --------------------------------------------------------------------------------------------
# The search: coordinates in the rest subspace, starts, continuation, fine-grid repair
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RestProblem:
    """The design problem in rest-subspace coordinates z (J·(2n−1),): joint j's coefficients
    are θⱼ = Z zⱼ with Z of :func:`paramid.excitation.fourier.rest_basis`, so every z meets the
    rest conditions of Eq 9; the criterion is evaluated on the grid of ``phi``."""

    regressor_fn: RegressorFn
    criterion: str
    rest: Array
    phi: Bases
    n_joints: int
    columns: int
    boundary: NDArray[np.bool_]  # the grid's instants kT, where a rest holds q̇ = q̈ = 0

    @classmethod
    def on_grid(
        cls,
        regressor_fn: RegressorFn,
        criterion: str,
        t: Array,
        omega_f: float,
        order: int,
        n_joints: int,
        rest_to_rest: bool = True,
    ) -> RestProblem:
        """``rest_to_rest=False``: all 2n+1 coefficients free (a periodic trajectory)."""
        phi = fourier_basis(t, omega_f, order)
        q, qd, qdd = (p @ np.ones((2 * order + 1, n_joints)) for p in phi)
        columns = regressor_fn(q, qd, qdd, 0.0).shape[1]
        rest = rest_basis(order) if rest_to_rest else np.eye(2 * order + 1)
        boundary = period_boundaries(t, 2 * np.pi / omega_f)
        return cls(regressor_fn, criterion, rest, phi, n_joints, columns, boundary)

    @property
    def order(self) -> int:
        return (self.rest.shape[0] - 1) // 2

    @property
    def grid_points(self) -> int:
        return int(self.phi[0].shape[0])

    def theta(self, z: Array) -> Array:
        """Coefficients ((2n+1) × J) of the point z."""
        return self.rest @ z.reshape(self.n_joints, self.rest.shape[1]).T

    def coordinates(self, theta: Array) -> Array:
        """z of coefficients θ that meet the rest conditions (inverse of :meth:`theta`)."""
        return np.linalg.lstsq(self.rest, theta, rcond=None)[0].T.ravel()

    def regressor(self, theta: Array, smoothing: float) -> Array:
        """Stacked regressor of the trajectory θ on the grid (sgn smoothed by ``smoothing``),
        at rest exactly where the trajectory's evaluation is (:func:`states_at_rest`: what is
        reported and compared; the optimiser's batched :meth:`log_values` smooths sgn)."""
        return self.regressor_fn(*states_at_rest(self.phi, theta, self.boundary), smoothing)

    def log_values(self, zs: Array, smoothing: float) -> Array:
        """Log criterion at a batch of points zs (B, J·(2n−1)): one regressor call, one batched
        SVD; a rank-deficient point scores a large finite value."""
        J, nz = self.n_joints, self.rest.shape[1]
        thetas = np.einsum("kz,bjz->bkj", self.rest, zs.reshape(len(zs), J, nz))
        q, qd, qdd = (np.einsum("mk,bkj->bmj", p, thetas).reshape(-1, J) for p in self.phi)
        H = self.regressor_fn(q, qd, qdd, smoothing).reshape(len(zs), -1, self.columns)
        out = log_criterion(np.linalg.svd(H, compute_uv=False), H.shape[1], self.criterion)
        return np.where(np.isfinite(out), out, _INFEASIBLE)

    def objective(self, z: Array, smoothing: float) -> float:
        return float(self.log_values(z[None], smoothing)[0])

    def gradient(self, z: Array, smoothing: float) -> Array:
        """Central differences, all 2·J·(2n−1) points in one batch."""
        step = _FD_STEP * np.maximum(1.0, np.abs(z))
        shifts = np.diag(step)
        v = self.log_values(np.concatenate([z + shifts, z - shifts]), smoothing)
        return (v[: z.size] - v[z.size :]) / (2 * step)

    def limit_constraints(self, limits: JointLimits) -> list[dict[str, Any]]:
        """The limits of Eq 9 on the grid as SLSQP's linear inequalities A z ≤ b: per joint the
        same rows q ≤ q_max, −q ≤ −q_min, ±q̇ ≤ q̇_max, ±q̈ ≤ q̈_max; A block diagonal."""
        gq, gqd, gqdd = (p @ self.rest for p in self.phi)
        m = self.grid_points
        A = np.kron(np.eye(self.n_joints), np.vstack([gq, -gq, gqd, -gqd, gqdd, -gqdd]))
        b = np.concatenate(
            [
                np.concatenate(
                    [np.full(m, v) for v in (limits.q_max[j], -limits.q_min[j])]
                    + [np.full(2 * m, limits.qd_max[j]), np.full(2 * m, limits.qdd_max[j])]
                )
                for j in range(self.n_joints)
            ]
        )
        return [{"type": "ineq", "fun": lambda z: b - A @ z, "jac": lambda z: -A}]

    def random_start(self, limits: JointLimits, rng: np.random.Generator) -> Array:
        """Random coefficients in the rest subspace with a 1/l decaying spectrum, scaled to fill
        30–90 % of ``limits`` and centred in the angle range; returned as z."""
        theta = self.rest @ rng.standard_normal((self.rest.shape[1], self.n_joints))
        theta[1:] /= np.concatenate([np.arange(1, self.order + 1)] * 2)[:, None]
        theta, _ = scale_into(theta, limits, self.phi, rng.uniform(0.3, 0.9), cap=False)
        return self.coordinates(theta)


def scale_into(
    theta: Array, limits: JointLimits, phi: Bases, fraction: float, cap: bool
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


def repair(
    theta: Array, limits: JointLimits, phi_fine: Bases, omega_f: float
) -> tuple[Array, float]:
    """Scale down (never up) a design that exceeds a limit anywhere in its period; 1.0 if it
    does not.  ``phi_fine``: bases on a grid equally spaced over one period, whose extremes are
    widened by :func:`paramid.excitation.fourier.between_samples` (limits met at the samples
    only were passed by up to 6 % of q̇_max between them)."""
    period, points = 2 * np.pi / omega_f, phi_fine[0].shape[0]
    trajectory = FourierTrajectory.from_theta(theta, omega_f)
    if max(bounded_violation(trajectory, limits, grid(period, points)).values()) <= 0:
        return theta, 1.0
    pq, pqd, pqdd = between_samples(theta, omega_f, period / points)
    try:  # scaling by s ≤ 1 scales the widths by s: limits less the full widths hold after it
        inner = JointLimits(
            limits.q_min + pq, limits.q_max - pq, limits.qd_max - pqd, limits.qdd_max - pqdd
        )
    except ValueError:
        raise DesignError(
            "the check grid is too coarse for this trajectory: what may lie between its "
            "samples fills a joint's limits; raise fine_factor (or grid_points)"
        ) from None
    # a hair inside the limits, so that round-off in other evaluations cannot cross them
    return scale_into(theta, inner.tightened(1e-9), phi_fine, 1.0, cap=True)


def smoothing_schedule(
    criterion: str,
    starts: int,
    order: int,
    grid_points: int,
    sign_smoothing: float | Sequence[float],
) -> list[float]:
    """Check the design arguments; the continuation schedule of sgn smoothings v_s > 0."""
    if criterion not in CRITERIA:
        raise ValueError(f"unknown criterion {criterion!r}; choose from {CRITERIA}")
    if starts < 1 or order < 1 or grid_points < 4 * order:
        raise ValueError("need starts ≥ 1, order ≥ 1 and at least 4·order grid points")
    schedule = [float(v) for v in np.atleast_1d(sign_smoothing)]
    if not schedule or min(schedule) <= 0:
        raise ValueError(f"sign_smoothing must be positive, got {sign_smoothing}")
    return schedule


def run_start(
    problem: RestProblem,
    z: Array,
    constraints: list[dict[str, Any]],
    schedule: Sequence[float],
    maxiter: int,
) -> Any:
    """SLSQP from z through the continuation: each stage warm-starts the next, sharper one.
    Returns the last stage's ``scipy.optimize.OptimizeResult``."""
    for smoothing in schedule:
        res = minimize(
            problem.objective,
            z,
            args=(smoothing,),
            jac=problem.gradient,
            method="SLSQP",
            constraints=constraints,
            options={"maxiter": maxiter, "ftol": 1e-10},
        )
        z = res.x
    return res


def _one_start(
    problem: RestProblem,
    i: int,
    starts: int,
    tight: JointLimits,
    constraints: list[dict[str, Any]],
    schedule: Sequence[float],
    maxiter: int,
    phi_fine: Bases,
    limits: JointLimits,
    omega_f: float,
    seed_keys: Sequence[Key],
) -> tuple[Array, StartResult]:
    """Start i of :func:`design`: seeded random point, SLSQP continuation, fine-grid repair."""
    criterion = problem.criterion
    z0 = problem.random_start(tight, generator(*seed_keys, "start", i))
    res = run_start(problem, z0, constraints, schedule, maxiter)
    theta, shrink = repair(problem.theta(res.x), limits, phi_fine, omega_f)
    exact = criterion_value(problem.regressor(theta, 0.0), criterion)
    surrogate = criterion_value(problem.regressor(theta, schedule[-1]), criterion)
    start = StartResult(
        i, exact, surrogate, bool(res.success), str(res.message), int(res.nit), shrink
    )
    LOG.info(
        "start %d/%d: %s %.4g (SLSQP %d iterations, %s)",
        i + 1,
        starts,
        criterion,
        exact,
        start.iterations,
        start.message,
    )
    return theta, start


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
    rest_to_rest: bool = True,
    extra_constraints: Callable[[RestProblem], list[dict[str, Any]]] | None = None,
) -> Design:
    """Minimise cond(H) (Eq 10) or −log det(HᵀH/K) over the Fourier coefficients (Eq 8) subject
    to the limits and rest conditions of Eq 9, by SLSQP from ``starts`` seeded starts.

    Start i draws from the stream ``(*seed_keys, "start", i)``: random coefficients in the
    rest subspace, scaled to fill 30–90 % of the limits and centred in the angle range.  The
    limits are imposed on ``grid_points`` instants per period, tightened by ``margin``; the
    result is checked (and if need be shrunk) on a grid ``fine_factor`` times finer.  The best
    start by the exact-sgn criterion wins.  ``rest_to_rest=False`` drops the rest conditions
    (periodic trajectory); ``extra_constraints(problem)`` adds SLSQP constraints on z (e.g. a
    robot's effort limits or a keep-out zone, :mod:`paramid.robot.excitation`).
    """
    schedule = smoothing_schedule(criterion, starts, order, grid_points, sign_smoothing)
    period = 2 * np.pi / omega_f
    problem = RestProblem.on_grid(
        regressor_fn,
        criterion,
        grid(period, grid_points),
        omega_f,
        order,
        limits.n_joints,
        rest_to_rest,
    )
    t_fine = grid(period, fine_factor * grid_points)
    phi_fine = fourier_basis(t_fine, omega_f, order)
    tight = limits.tightened(margin)
    constraints = problem.limit_constraints(tight)
    if extra_constraints is not None:
        constraints += extra_constraints(problem)
    results = [
        _one_start(
            problem,
            i,
            starts,
            tight,
            constraints,
            schedule,
            maxiter,
            phi_fine,
            limits,
            omega_f,
            seed_keys,
        )
        for i in range(starts)
    ]
    finite = [r for r in results if math.isfinite(r[1].value)]
    if not finite:
        raise DesignError(
            "every start gave a rank-deficient regressor: the limits leave too little motion "
            "to identify the parameters; loosen the tightest of them"
        )
    theta, best = min(finite, key=lambda r: r[1].value)
    trajectory = FourierTrajectory.from_theta(theta, omega_f)
    H_exact = problem.regressor(theta, 0.0)
    scaled = criterion_value(H_exact / np.maximum(np.linalg.norm(H_exact, axis=0), 1e-300), "cond")
    if not scaled < UNIDENTIFIABLE_COND:
        binding = [
            f"joint{c['joint']}.{c['limit']}"
            for c in active_constraints(trajectory, limits, t_fine, margin + 1e-3)
            if c["active"]
        ]
        raise DesignError(
            f"the best design's regressor is rank-deficient (condition number {scaled:.3g} with "
            f"unit-norm columns, >= {UNIDENTIFIABLE_COND:g}): the limits leave too little "
            f"motion to identify the parameters; binding: {', '.join(binding) or 'none'}; "
            "loosen those limits"
        )
    return Design(
        trajectory=trajectory,
        criterion=criterion,
        value=best.value,
        cond=criterion_value(H_exact, "cond"),
        dopt=criterion_value(H_exact, "dopt"),
        surrogate_cond=criterion_value(problem.regressor(theta, schedule[-1]), "cond"),
        limits=limits,
        margin=margin,
        grid_points=grid_points,
        fine_factor=fine_factor,
        sign_smoothing=schedule,
        shrink=best.shrink,
        fine_violation=bounded_violation(trajectory, limits, t_fine),
        boundary_residual=float(np.abs(boundary_matrix(order) @ theta).max()),
        active=active_constraints(trajectory, limits, t_fine, margin + 1e-3),
        starts=[start for _, start in results],
    )


def design_from_config(
    regressor_fn: RegressorFn,
    limits: JointLimits,
    block: Mapping[str, Any],
    seed_keys: Sequence[Key],
) -> Design:
    """:func:`design` with the settings of an ``excitation.<name>`` block: ``period_s`` (ω_f =
    2π/T), ``order``, ``grid_points``, ``starts``, ``criterion``, ``margin``,
    ``sign_smoothing``, ``maxiter`` and ``fine_factor``."""
    return design(
        regressor_fn,
        limits,
        order=block["order"],
        omega_f=2 * np.pi / block["period_s"],
        grid_points=block["grid_points"],
        starts=block["starts"],
        criterion=block["criterion"],
        margin=block["margin"],
        sign_smoothing=block["sign_smoothing"],
        maxiter=block["maxiter"],
        fine_factor=block["fine_factor"],
        seed_keys=seed_keys,
    )
