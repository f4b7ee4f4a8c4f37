"""Excitation design for a URDF robot (the excitation paper, Eq 7–10) and its test on the twin.

Per joint the excitation is the finite Fourier series of Eq 8
(:class:`paramid.excitation.fourier.FourierTrajectory`) with L harmonics of ω = 2π f; the
design is :func:`paramid.excitation.design.design` (seeded multi-start SLSQP, rest conditions
of Eq 9 exactly, limits on a grid and re-checked on a grid ``fine_factor`` times finer) with:

- limits from the URDF shrunk by absolute margins: position range (±π for a continuous joint)
  minus ``margins.position_rad`` on each side, velocity limit minus ``margins.velocity_rad_s``,
  acceleration limits from the config (a URDF has none);
- effort limits (where the URDF gives them) on the torque of the **URDF** inertias, friction
  left out (unknown before identification), shrunk by ``effort_margin`` (a fraction): SLSQP
  constraints on the grid, checked on the fine grid;
- an optional Cartesian keep-out: the origin of every moving link (a tool flange welded to
  the last one included) above ``floor_height_m`` (world z, forward kinematics) plus
  ``clearance_m`` on the grid;
- the joint limits are met over the whole period (:func:`paramid.excitation.design.repair`);
  effort and keep-out are checked over it too: the fine grid's extremes widened by an
  estimate of what lies between its samples (:func:`estimated_between_samples`: torque and
  link heights have no bound from the coefficients; exact to O(h⁴), not certified).  A design
  that passes the URDF's effort or goes below the floor itself stops the run, one that only
  eats into ``effort_margin`` is warned of (:func:`crossed_limits`);
- the criterion on the **raw** base regressor including friction columns, Y[..., independent]
  with the base columns chosen once per robot (:func:`paramid.robot.base.structural_base`:
  seeded random states, canonical column order) and stored in design.json, the same columns for
  every compared trajectory.  Raw cond mixes units (column norms differ by orders of
  magnitude); :func:`scores` reports it beside the cond of unit-norm columns.

:func:`compare` scores trajectories on the twin: per noise seed, the torque of the true
parameters on the true states plus the twin's per-joint torque noise, OLS on the base
regressor of the true states (the filter chain of the study is not re-run: the torque noise
dominates the twin's error), median relative base-parameter error and torque RMSE against the
noise-free torque of an independent validation trajectory.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pinocchio as pin
import scipy.stats
from numpy.typing import NDArray

from paramid import estimators
from paramid.base_parameters import BaseParameters, base_columns
from paramid.errors import UserError
from paramid.excitation import design as dz
from paramid.excitation.fourier import (
    FourierTrajectory,
    JointLimits,
    bounded_violation,
    grid,
    period_spacing,
)
from paramid.friction.laws import sign_or_tanh
from paramid.robot.estimators import relative_error, to_base
from paramid.robot.model import (
    Robot,
    coordinate_unit,
    friction_columns,
    inverse_dynamics,
    joint_kinds,
    joint_ranges,
    pin_configuration,
    regressor,
    urdf_parameters,
    velocity_limits,
)
from paramid.robot.twin import TwinNoise, excitation, true_parameters
from paramid.seeding import generator

Array = NDArray[np.float64]


class ExcitationError(UserError):
    """Settings or a coefficient file that cannot give an excitation (names the field/file)."""


def estimated_between_samples(values: Array) -> Array:
    """Per sample (rows: instants equally spaced over one period of a smooth periodic signal,
    columns: signals), how far the signal may pass that sample within half a spacing h of it:
    an extreme at t* lies within h/2 of a sample tₖ, and f(t*) − f(tₖ) ≤ h²/8 · |f''| there
    (the bound of :func:`paramid.excitation.fourier.between_samples`), with |f''| estimated by
    the largest periodic second difference |fⱼ₊₁ − 2fⱼ + fⱼ₋₁|/h² for j = k−1, k, k+1: the
    width is that /8.  Sample k widened by it (max + width, min − width) covers the extreme.

    An estimate, not a certified bound: torque and link heights are not finite Fourier series,
    so their f'' has no bound from Eq 8's coefficients.  Where the samples resolve f'', the
    widened extreme falls short of the continuous one by O(h⁴) at most (a sinusoid of period
    P peaking midway between samples: by 3/8 (πh/P)⁴ of its amplitude, against (πh/P)²/2
    unwidened) and passes it by at most the width (an extreme on a sample)."""
    second = np.abs(np.roll(values, -1, axis=0) - 2 * values + np.roll(values, 1, axis=0))
    return np.maximum.reduce([np.roll(second, -1, axis=0), second, np.roll(second, 1, axis=0)]) / 8


@dataclass(frozen=True)
class Physical:
    """Limits beyond Eq 9 on the URDF inertias: the effort [N m] per joint the design keeps to
    (the URDF's less ``effort_margin``; inf: none) and the URDF's own, and the floor [m] every
    moving link's origin stays above by ``clearance`` (None: no keep-out)."""

    effort: Array
    effort_urdf: Array
    floor: float | None
    clearance: float

    def torque(self, robot: Robot, q: Array, dq: Array, ddq: Array) -> Array:
        """Rigid-body torque of the URDF inertias (N, n), friction left out."""
        theta = urdf_parameters(robot)
        return inverse_dynamics(robot, q, dq, ddq, theta)

    @staticmethod
    def floor_frames(robot: Robot) -> list[int]:
        """Pinocchio frame ids of the links the keep-out holds above the floor: every link
        moved by a joint, those welded to it by fixed joints (a tool flange) included."""
        return [
            i
            for i, frame in enumerate(robot.model.frames)
            if frame.type == pin.FrameType.BODY and frame.parentJoint >= 1
        ]

    def heights(self, robot: Robot, q: Array) -> Array:
        """World z of the origin of every link of :meth:`floor_frames` (N, n_links)."""
        model, data = robot.model, robot.model.createData()
        frames = self.floor_frames(robot)
        out = np.empty((q.shape[0], len(frames)))
        for k, qk in enumerate(pin_configuration(robot, q)):
            pin.framesForwardKinematics(model, data, qk)
            placements = data.oMf.tolist()  # one call: faster than indexing oMf per frame
            out[k] = [placements[f].translation[2] for f in frames]
        return out

    def excess(
        self, robot: Robot, trajectory: FourierTrajectory, t: Array, used: bool
    ) -> dict[str, Array]:
        """Per joint (effort) and per moving link (floor), the largest excess over the effort
        the design keeps to (``used``: less its margin) or the URDF's, and below the floor
        itself, over the whole period: the extremes on ``t`` (equally spaced over one period)
        widened by :func:`estimated_between_samples`; ≤ 0: met."""
        period_spacing(trajectory, t)
        q, dq, ddq = trajectory.evaluate_joints(t)
        tau = self.torque(robot, q, dq, ddq)
        effort = self.effort if used else self.effort_urdf
        out = {"effort": (np.abs(tau) + estimated_between_samples(tau)).max(axis=0) - effort}
        if self.floor is not None:
            z = self.heights(robot, q)
            out["floor"] = self.floor - (z - estimated_between_samples(z)).min(axis=0)
        return out

    def violation(self, robot: Robot, trajectory: FourierTrajectory, t: Array) -> dict[str, float]:
        """Largest excess over the effort limits used [N m] and below the floor [m] over the
        whole period (:meth:`excess`; ≤ 0: satisfied)."""
        return {k: float(v.max()) for k, v in self.excess(robot, trajectory, t, True).items()}


def _grid(period: float, points: int) -> Array:
    return np.asarray(grid(period, points), dtype=np.float64)


def _field(study: str, name: str) -> str:
    return f"robots.{study}.excitation.{name}"


def _per_joint(value: Any, n: int, field: str) -> Array:
    arr = np.atleast_1d(np.asarray(value, dtype=np.float64))
    if arr.size == 1:
        arr = np.full(n, arr[0])
    if arr.shape != (n,):
        raise ExcitationError(
            f"{field} has {arr.size} values for {n} joints: give one value, or one per joint"
        )
    return arr


#: a revolute joint's URDF limit beyond this [rad] (two turns) reads as degrees: a design
#: would command 57x the angles meant (a range of +-160 "rad" was +-160 deg)
DEGREE_LIKE_RAD = 4 * np.pi
#: a revolute joint's velocity limit above this [rad/s] (about 480 rpm at the joint; arms'
#: wrists turn at 6-20 rad/s, a fast SCARA's up to about 50) may be deg/s: 86 "rad/s" meant
#: 86 deg/s = 1.5 rad/s; warned of, not refused (fast joints exist)
DEGREE_LIKE_RAD_S = 50.0


def fast_velocity_limits(robot: Robot, study: str) -> str | None:
    """A warning naming the revolute or continuous joints whose URDF velocity limit exceeds
    :data:`DEGREE_LIKE_RAD_S` (a limit in deg/s read as rad/s lets the design run the joint
    57x faster than meant, up to what its range and harmonics allow)."""
    fast = [
        f"{joint} {limit:g} rad/s"
        for joint, kind, limit in zip(
            robot.joints, joint_kinds(robot), velocity_limits(robot), strict=True
        )
        if kind != "prismatic" and np.isfinite(limit) and limit > DEGREE_LIKE_RAD_S
    ]
    if not fast:
        return None
    return (
        f"robots.{study}.excitation: URDF velocity limits above {DEGREE_LIKE_RAD_S:g} rad/s "
        f"({', '.join(fast)}): in deg/s? URDF gives rad/s, and the design keeps below the "
        f"limit it reads; correct {robot.urdf} before running the design, or lower them with "
        "margins.velocity_rad_s"
    )


def limits_of(robot: Robot, spec: Mapping[str, Any], study: str) -> tuple[JointLimits, dict]:
    """The limits used (URDF shrunk by the margins; acceleration from ``spec``) and a report of
    the URDF's own; raises :class:`ExcitationError` when a margin empties a limit or the
    settings are out of range."""
    n = robot.n_joints
    if int(spec["harmonics"]) < 1:
        raise ExcitationError(f"{_field(study, 'harmonics')} must be >= 1, got {spec['harmonics']}")
    if not float(spec["base_frequency_hz"]) > 0:
        raise ExcitationError(
            f"{_field(study, 'base_frequency_hz')} must be > 0, got {spec['base_frequency_hz']}"
        )
    lo, hi = joint_ranges(robot)
    vel = velocity_limits(robot)
    fields = {key: _field(study, f"margins.{key}") for key in ("position_rad", "velocity_rad_s")}
    mq, mv = (_per_joint(spec["margins"][key], n, field) for key, field in fields.items())
    for k, (joint, kind) in enumerate(zip(robot.joints, joint_kinds(robot), strict=True)):
        unit = coordinate_unit(kind)  # a prismatic joint's limits are in m, m/s
        if kind == "revolute" and max(abs(lo[k]), abs(hi[k])) > DEGREE_LIKE_RAD:
            raise ExcitationError(
                f"robots.{study}.excitation: {joint}'s URDF range [{lo[k]:g}, {hi[k]:g}] rad "
                f"reaches more than two turns from zero: limits in degrees? URDF gives them in "
                f"rad and rad/s (its velocity limit reads {vel[k]:g} rad/s); correct {robot.urdf} "
                "(a joint that turns without end is type continuous)"
            )
        if hi[k] - lo[k] <= 2 * mq[k]:
            raise ExcitationError(
                f"{fields['position_rad']} = {mq[k]:g} {unit} on each side empties {joint}'s "
                f"range [{lo[k]:g}, {hi[k]:g}] {unit} (one value per joint is allowed)"
            )
        if not np.isfinite(vel[k]) or vel[k] <= 0:
            raise ExcitationError(
                f"robots.{study}.excitation: {joint} has no velocity limit in the URDF "
                f"({vel[k]:g}): the design would bound its speed by nothing; give its "
                f"<limit velocity=...> in {robot.urdf}"
            )
        if not vel[k] > mv[k]:
            raise ExcitationError(
                f"{fields['velocity_rad_s']} = {mv[k]:g} {unit}/s is not below {joint}'s URDF "
                f"velocity limit {vel[k]:g} {unit}/s (one value per joint is allowed)"
            )
    acc = _per_joint(
        spec["acceleration_limit_rad_s2"], n, _field(study, "acceleration_limit_rad_s2")
    )
    if np.any(acc <= 0):
        raise ExcitationError(f"{_field(study, 'acceleration_limit_rad_s2')} must be positive")
    limits = JointLimits(lo + mq, hi - mq, vel - mv, acc)
    urdf = {"q_min": lo.tolist(), "q_max": hi.tolist(), "qd_max": vel.tolist()}
    return limits, urdf


def physical_of(robot: Robot, spec: Mapping[str, Any]) -> Physical:
    """Effort limits of the URDF (0 or missing: none), less ``effort_margin`` for the design,
    and the configured keep-out."""
    vi = [robot.model.joints[j].idx_v for j in robot.pin_joint]
    effort = np.asarray(robot.model.effortLimit, dtype=np.float64)[vi]
    effort = np.where(effort > 0, effort, np.inf)
    keep_out = spec.get("keep_out") or {}
    floor = keep_out.get("floor_height_m")
    return Physical(
        effort=(1 - float(spec["effort_margin"])) * effort,
        effort_urdf=effort,
        floor=None if floor is None else float(floor),
        clearance=0.0 if floor is None else float(keep_out["clearance_m"]),
    )


# An acceleration limit this many times what any trajectory within the other limits can reach
# bounds nothing: honest limits of a slow design lie within a few times it (gen3_twin's, the
# Franka's, 2.6-8.1x at its 13.3 s period), while one given in deg/s² is 57.3 times its rad/s².
LOOSE_ACCELERATION_FACTOR = 20.0


def reachable_acceleration(limits: JointLimits, order: int, omega_f: float) -> Array:
    """The largest |q̈| a Fourier excitation (Eq 8, harmonics up to ``order`` of ``omega_f``)
    can reach within the position and velocity limits, per joint: Bernstein's inequality for
    trigonometric polynomials (|p'| ≤ L ω max|p|) applied to q̇, and twice to q about the
    middle of its range."""
    top = order * omega_f
    return np.minimum(top * limits.qd_max, top**2 * (limits.q_max - limits.q_min) / 2)


def loose_acceleration(
    limits: JointLimits,
    order: int,
    omega_f: float,
    joints: Sequence[str],
    study: str,
    prismatic: Collection[str] = (),
) -> str | None:
    """A warning naming the joints whose acceleration limit is more than
    :data:`LOOSE_ACCELERATION_FACTOR` times :func:`reachable_acceleration`: it bounds nothing,
    and on a revolute joint may be a limit in deg/s² (then the design may accelerate beyond the
    robot's); a ``prismatic`` joint's is in m/s², which has no degrees to mistake."""
    reach = reachable_acceleration(limits, order, omega_f)
    loose = [int(k) for k in np.flatnonzero(limits.qdd_max > LOOSE_ACCELERATION_FACTOR * reach)]
    if not loose:
        return None

    def named(k: int) -> str:
        if joints[k] in prismatic:
            return f"{joints[k]} {limits.qdd_max[k]:.4g} m/s² (reachable {reach[k]:.3g})"
        degrees = np.deg2rad(limits.qdd_max[k])
        return (
            f"{joints[k]} {limits.qdd_max[k]:.4g} (reachable {reach[k]:.3g}; as deg/s² "
            f"{degrees:.3g} rad/s²)"
        )

    turning = any(joints[k] not in prismatic for k in loose)
    return (
        f"{_field(study, 'acceleration_limit_rad_s2')} bounds nothing on "
        f"{', '.join(map(named, loose))}: no trajectory of {order} harmonics of "
        f"{omega_f / (2 * np.pi):g} Hz within the position and velocity limits accelerates that "
        "fast" + (". Limits in deg/s²? give them in rad/s²" if turning else "")
    )


def unbounded_effort(robot: Robot, physical: Physical, study: str) -> str | None:
    """A warning naming the joints whose URDF gives no effort limit (0, as CAD exporters write,
    or missing): :func:`physical_of` bounds their torque by nothing."""
    free = [j for j, e in zip(robot.joints, physical.effort_urdf, strict=True) if np.isinf(e)]
    if not free:
        return None
    return (
        f"robots.{study}.excitation: {', '.join(free)} {'has' if len(free) == 1 else 'have'} "
        f"no effort limit in {robot.urdf} "
        "(0 or missing): the design does not bound their torque; give <limit effort=...> "
        "(N m) to bound it"
    )


def design_regressor(robot: Robot, base: BaseParameters) -> dz.RegressorFn:
    """Stacked base regressor (M·n × r) of the states; Coulomb columns tanh(q̇/v_s) when v_s > 0."""
    fc = friction_columns(robot).get("fc")
    rows = np.arange(robot.n_joints)

    def fn(q: Array, qd: Array, qdd: Array, smoothing: float) -> Array:
        Y = regressor(robot, q, qd, qdd)
        if smoothing > 0 and fc is not None:
            Y[:, rows, fc] = sign_or_tanh(qd, smoothing)
        return base_columns(Y, base).reshape(-1, base.rank)

    return fn


def _physical_constraints(
    robot: Robot, physical: Physical
) -> Any:  # Callable[[RestProblem], list[dict]]
    """SLSQP constraints (values ≥ 0) on the design grid: effort and keep-out at its instants.

    What lies between them is left to the cushions the config sets, ``effort_margin`` and
    ``clearance_m``, and to the check over the whole period (:func:`crossed_limits`), not
    widened here (:func:`estimated_between_samples`): the search stops at ``maxiter``
    unconverged and follows any change of a constraint's values, even one that is never
    active (gen3_twin's design moved with its effort values scaled by 1 + 1e-12), so
    widening would move designs that met their limits."""

    def build(problem: dz.RestProblem) -> list[dict[str, Any]]:
        def states(z: Array) -> tuple[Array, Array, Array]:
            theta = problem.theta(z)
            return tuple(p @ theta for p in problem.phi)  # type: ignore[return-value]

        out = []
        bound = physical.effort
        if np.any(np.isfinite(bound)):
            finite = np.isfinite(bound)

            def effort(z: Array) -> Array:
                tau = physical.torque(robot, *states(z))
                return (bound - np.abs(tau))[:, finite].ravel()

            out.append({"type": "ineq", "fun": effort})
        if physical.floor is not None:
            level = physical.floor + physical.clearance

            def floor(z: Array) -> Array:
                return (physical.heights(robot, states(z)[0]) - level).ravel()

            out.append({"type": "ineq", "fun": floor})
        return out

    return build


def design_for_robot(
    robot: Robot, base: BaseParameters, spec: Mapping[str, Any], study: str
) -> tuple[dz.Design, JointLimits, dict, Physical]:
    """Design the excitation of ``spec`` (a ``robots.<study>.excitation`` block)."""
    limits, urdf = limits_of(robot, spec, study)
    physical = physical_of(robot, spec)
    result = dz.design(
        design_regressor(robot, base),
        limits,
        order=int(spec["harmonics"]),
        omega_f=2 * np.pi * float(spec["base_frequency_hz"]),
        grid_points=int(spec["grid_points"]),
        starts=int(spec["starts"]),
        criterion=spec["criterion"],
        margin=0.0,
        sign_smoothing=spec["sign_smoothing"],
        maxiter=int(spec["maxiter"]),
        fine_factor=int(spec["fine_factor"]),
        seed_keys=("robot_excitation", study, int(spec["seed"])),
        rest_to_rest=spec["boundary"] == "rest_to_rest",
        extra_constraints=_physical_constraints(robot, physical),
    )
    return result, limits, urdf, physical


def _prismatic(robot: Robot) -> list[str]:
    """The robot's prismatic joints (their limits are in m, m/s, m/s²)."""
    return [j for j, k in zip(robot.joints, joint_kinds(robot), strict=True) if k == "prismatic"]


def design_warnings(
    robot: Robot,
    result: dz.Design,
    limits: JointLimits,
    physical: Physical,
    spec: Mapping[str, Any],
    study: str,
) -> list[str]:
    """The warnings of a design of ``spec`` (:func:`design_for_robot`), in this order:
    :func:`loose_acceleration`, :func:`unbounded_effort`, :func:`moving_start`,
    :func:`fast_velocity_limits` and :func:`crossed_limits` on the check grid
    (:func:`fine_grid`), which raises :class:`ExcitationError` for a design past the URDF's
    effort or below the floor."""
    trajectory = result.trajectory
    omega_f = 2 * np.pi * float(spec["base_frequency_hz"])
    loose = loose_acceleration(
        limits, int(spec["harmonics"]), omega_f, robot.joints, study, _prismatic(robot)
    )
    t_fine = fine_grid(trajectory, result.grid_points, result.fine_factor)
    found = (
        loose,
        unbounded_effort(robot, physical, study),
        moving_start(trajectory, robot.joints, study),
        fast_velocity_limits(robot, study),
        *crossed_limits(robot, trajectory, physical, t_fine, study),
    )
    return [text for text in found if text]


def crossed_limits(
    robot: Robot, trajectory: FourierTrajectory, physical: Physical, t: Array, study: str
) -> list[str]:
    """The design's effort and keep-out over its period (:meth:`Physical.excess` on grid ``t``,
    the extremes widened by an estimate of what lies between its samples): raises
    :class:`ExcitationError` naming each joint that passes the URDF's effort or link below the
    floor (a trajectory the robot must not run: SLSQP found no design within them); returns a
    warning naming each joint that only eats into ``effort_margin``."""
    links = [str(robot.model.frames[f].name) for f in physical.floor_frames(robot)]
    units = {"effort": "N m", "floor": "m"}

    def named(excess: dict[str, Array], kind: str) -> list[str]:
        labels = robot.joints if kind == "effort" else links
        return [
            f"{label} by {value:.3g} {units[kind]}"
            for label, value in zip(labels, excess[kind], strict=True)
            if value > 0
        ]

    crossed = physical.excess(robot, trajectory, t, used=False)
    what = {"effort": "its effort limit", "floor": "the floor keep-out"}
    broken = [f"{what[k]} ({', '.join(items)})" for k in crossed if (items := named(crossed, k))]
    if broken:
        raise ExcitationError(
            f"robots.{study}.excitation: the best design breaks {'; '.join(broken)} (URDF "
            "inertias, over its period: the check grid's samples widened by an estimate of "
            "what lies between them, narrower with a larger fine_factor): no design within "
            "those limits was found. Loosen the motion limits (acceleration_limit_rad_s2, "
            "margins), lower keep_out.floor_height_m, widen the design grid's cushions "
            "(effort_margin, keep_out.clearance_m) or give more grid_points, starts or maxiter"
        )
    eaten = named(physical.excess(robot, trajectory, t, used=True), "effort")
    if not eaten:
        return []
    return [f"robots.{study}.excitation: the design eats into effort_margin: {', '.join(eaten)}"]


def poor_excitation(
    scores_of_design: Mapping[str, float],
    trajectory: FourierTrajectory,
    joints: Sequence[str],
    t: Array,
    study: str,
    prismatic: Collection[str] = (),
) -> None:
    """Raise :class:`ExcitationError` for a design whose base regressor, columns scaled to unit
    norm, has a condition number above :data:`paramid.plausibility.MAX_SCALED_COND` (the
    1-DOF records' bound: a 1 % torque error may then move a parameter by 100 %), naming each
    joint's span over grid ``t`` (in m on a ``prismatic`` joint) and what to change: limits too
    tight for the period (a 0.5 s period gave spans of 0.004-0.06 rad and 5,705 N m of
    validation error)."""
    from paramid.plausibility import MAX_SCALED_COND

    cond = float(scores_of_design["cond_scaled"])
    if cond <= MAX_SCALED_COND:
        return
    q, _, _ = trajectory.evaluate_joints(t)
    spans = ", ".join(
        f"{joint} {span:.2g} {'m' if joint in prismatic else 'rad'}"
        for joint, span in zip(joints, np.ptp(q, axis=0), strict=True)
    )
    raise ExcitationError(
        f"robots.{study}.excitation: the best design excites the base parameters poorly: the "
        f"condition number of its regressor (columns scaled to unit norm) is {cond:.3g} "
        f"(> {MAX_SCALED_COND:g}); its joints span {spans}. Give it room to move: a "
        "longer period (lower base_frequency_hz), looser acceleration limits "
        "(acceleration_limit_rad_s2, in rad/s², m/s² on a prismatic joint) or margins, or more "
        "harmonics"
    )


def fine_grid(trajectory: FourierTrajectory, grid_points: int, fine_factor: int) -> Array:
    """The check grid: ``fine_factor`` × ``grid_points`` instants over one period."""
    return _grid(trajectory.period, fine_factor * grid_points)


#: what each limit of :func:`violations` is, as the comparison names it, in its order (their
#: units differ: rad or m, per s, per s², N m, m)
LIMIT_NAMES = {
    "q_min": "lower position",
    "q_max": "upper position",
    "qd_max": "velocity",
    "qdd_max": "acceleration",
    "effort": "effort [N m]",
    "floor": "floor [m]",
}


def violated(excess: Mapping[str, float]) -> str:
    """The limits a trajectory breaks (``excess``: :func:`violations`), in
    :data:`LIMIT_NAMES`' order, as comparison.csv's ``violated`` gives them ("" where none
    is); a position beyond a turn past its limit suggests coefficients in degrees (a file in
    degrees broke them by 10,402 rad)."""
    order = [*LIMIT_NAMES, *(k for k in excess if k not in LIMIT_NAMES)]
    broken = [(k, excess[k]) for k in order if excess.get(k, 0.0) > 0]
    text = ", ".join(f"{LIMIT_NAMES.get(k, k)} by {v:.3g}" for k, v in broken)
    if max(excess.get("q_min", 0.0), excess.get("q_max", 0.0)) > 2 * np.pi:
        text += " (coefficients in degrees?)"
    return text


def infeasible(table: pd.DataFrame, study: str) -> list[str]:
    """A warning for each compared trajectory of :func:`compare`'s ``table`` that breaks the
    limits used: it is scored all the same (a file in degrees had the best parameter error)."""
    return [
        f"robots.{study}.excitation: the {row.trajectory} trajectory breaks the limits used "
        f"({row.violated}; rad or m per joint kind, their derivatives per s): its scores are "
        "those of a motion the robot must not run"
        for row in table.iloc[1:].itertuples()
        if not row.feasible
    ]


def violations(
    robot: Robot,
    trajectory: FourierTrajectory,
    limits: JointLimits,
    physical: Physical,
    t: Array,
) -> dict[str, float]:
    """Largest excess over every limit (≤ 0: all satisfied) over the whole period, from grid
    ``t``: the joint limits widened by a bound on what lies between its samples
    (:func:`bounded_violation`), effort and keep-out by an estimate of it
    (:meth:`Physical.excess`)."""
    return bounded_violation(trajectory, limits, t) | physical.violation(robot, trajectory, t)


def worst_excess(violation: Mapping[str, float]) -> float:
    """The largest excess of :func:`violations` over all limits (≤ 0: all satisfied)."""
    return max(float(v) for v in violation.values())


def scores(W: Array) -> dict[str, float]:
    """cond (raw, the design's criterion), cond of unit-norm columns and log det(WᵀW/K)."""
    sv = np.linalg.svd(W, compute_uv=False)
    with np.errstate(divide="ignore"):
        logdet = float(np.sum(np.log(sv * sv / W.shape[0])))
    return {
        "cond": estimators.condition_number(W),
        "cond_scaled": estimators.condition_number(W / np.linalg.norm(W, axis=0)),
        "logdet": logdet,
    }


def random_feasible(
    robot: Robot,
    base: BaseParameters,
    spec: Mapping[str, Any],
    limits: JointLimits,
    physical: Physical,
    study: str,
    tries: int = 100,
) -> tuple[FourierTrajectory, int]:
    """A random Fourier trajectory with the design's L, f and boundary conditions that meets
    every limit on the fine grid: draw k is a start of the design's kind (stream
    ("robot_excitation", study, seed, "random", k)) scaled into the kinematic limits; the
    first draw that also meets the effort and keep-out limits is returned with its k."""
    order, omega = int(spec["harmonics"]), 2 * np.pi * float(spec["base_frequency_hz"])
    period = 2 * np.pi / omega
    points = int(spec["grid_points"])
    problem = dz.RestProblem.on_grid(
        design_regressor(robot, base),
        spec["criterion"],
        _grid(period, points),
        omega,
        order,
        robot.n_joints,
        spec["boundary"] == "rest_to_rest",
    )
    t_fine = _grid(period, int(spec["fine_factor"]) * points)
    fine = dz.fourier_basis(t_fine, omega, order)
    failed: dict[str, int] = {}  # draws that break each limit
    for k in range(tries):
        rng = generator("robot_excitation", study, int(spec["seed"]), "random", k)
        start = problem.theta(problem.random_start(limits, rng))
        theta, _ = dz.repair(start, limits, fine, omega)
        trajectory = FourierTrajectory.from_theta(theta, omega)
        excess = violations(robot, trajectory, limits, physical, t_fine)
        if max(excess.values()) <= 0:
            return trajectory, k
        for name in (n for n, e in excess.items() if e > 0):
            failed[name] = failed.get(name, 0) + 1
    broken = ", ".join(f"{name} in {n}" for name, n in sorted(failed.items(), key=lambda f: -f[1]))
    raise ExcitationError(
        f"robots.{study}.excitation: no random trajectory among {tries} draws meets the limits "
        f"(broken: {broken}). The design meets them (it is optimised under them); a random "
        "draw is only scaled into the joint limits. Loosen that limit, or leave the random "
        "reference out of comparison.csv with excitation.comparison.random: false"
    )


def coefficients_from_table(
    frame: pd.DataFrame,
    path: str | Path,
    joints: Sequence[str],
    order: int,
    omega_f: float,
    constant: str,
) -> FourierTrajectory:
    """The trajectory of a coefficients file ``path`` read as ``frame``
    (:func:`paramid.io.read_table`): columns ``joint, harmonic, a, b``; ``harmonic`` 0 rows give
    q₀ in ``a``.

    ``constant: offset``: q₀ is the series' constant term (Eq 8); ``constant: start``: the
    file's value is the pose at t = 0, so q₀ = q(0) + Σ bₗ/(lω) (the trajectory executed).
    Raises :class:`ExcitationError` naming the file for missing columns, joints or harmonics
    that do not match the study.
    """
    missing = {"joint", "harmonic", "a", "b"} - set(frame.columns)
    if missing:
        raise ExcitationError(f"{path}: missing column(s) {sorted(missing)}")
    names = list(dict.fromkeys(frame["joint"].astype(str)))
    if sorted(names) != sorted(joints):
        raise ExcitationError(
            f"{path}: joints {names} ({len(names)}) do not match the study's {list(joints)} "
            f"({len(joints)})"
        )
    q0, a, b = np.zeros(len(joints)), np.zeros((len(joints), order)), np.zeros((len(joints), order))
    for k, joint in enumerate(joints):
        rows = frame[frame["joint"].astype(str) == joint]
        harmonics = sorted(int(h) for h in rows["harmonic"])
        if harmonics != list(range(order + 1)):
            raise ExcitationError(
                f"{path}: joint {joint} has harmonics {harmonics}; the study uses 0..{order} "
                f"(harmonic 0 = q0, then {order} harmonics)"
            )
        rows = rows.sort_values("harmonic")
        q0[k] = float(rows["a"].iloc[0])
        a[k], b[k] = rows["a"].to_numpy()[1:], rows["b"].to_numpy()[1:]
    if constant == "start":
        q0 = q0 + (b / (omega_f * np.arange(1, order + 1))).sum(axis=1)
    return FourierTrajectory(q0, a, b, omega_f)


def coefficient_files(
    entries: Sequence[Mapping[str, Any]],
    tables: Sequence[tuple[pd.DataFrame, str | Path]],
    joints: Sequence[str],
    designed: FourierTrajectory,
) -> dict[str, FourierTrajectory]:
    """The trajectories of an excitation block's ``compare:`` ``entries`` (``name``,
    ``constant``), each from its coefficients file in ``tables`` ((frame, path), same order;
    :func:`coefficients_from_table`) at the order and base frequency of ``designed``."""
    return {
        entry["name"]: coefficients_from_table(
            frame, path, joints, designed.order, designed.omega_f, entry["constant"]
        )
        for entry, (frame, path) in zip(entries, tables, strict=True)
    }


def check_design_base(design: Mapping[str, Any], base: BaseParameters, path: str | Path) -> None:
    """Raise when ``design`` (design.json at ``path``) was made for other base columns than
    ``base``'s (the robot or ``base.rel_tol`` changed since): it must be rebuilt."""
    if base.independent.tolist() != design["base_columns"]["independent"]:
        raise RuntimeError(f"{path}: base columns differ from this robot's; rebuild it")


def coefficient_frame(trajectory: FourierTrajectory, joints: Sequence[str]) -> pd.DataFrame:
    """The coefficients-file layout of a trajectory (harmonic 0: a = q₀, b = 0)."""
    rows = []
    for k, joint in enumerate(joints):
        rows.append({"joint": joint, "harmonic": 0, "a": trajectory.q0[k], "b": 0.0})
        for h in range(trajectory.order):
            rows.append(
                {
                    "joint": joint,
                    "harmonic": h + 1,
                    "a": trajectory.a[k, h],
                    "b": trajectory.b[k, h],
                }
            )
    return pd.DataFrame(rows)


@dataclass(frozen=True)
class TwinSetup:
    """What :func:`compare` needs of the twin: true standard parameters θ, per-joint torque
    noise σ [N m], sample rate, the base map and the validation trajectory."""

    robot: Robot
    base: BaseParameters
    theta: Array
    sigma: Array
    rate_hz: float
    validation: FourierTrajectory
    validation_s: float


def _samples(duration_s: float, rate_hz: float) -> Array:
    """The sampling instants of ``duration_s`` at ``rate_hz`` from t = 0."""
    return np.arange(int(round(duration_s * rate_hz))) / rate_hz


def _base_rows(setup: TwinSetup, trajectory: FourierTrajectory, t: Array) -> tuple[Array, Array]:
    """Base regressor W (N·n, r) and true torque (N·n,) on the true states at instants t."""
    Y = regressor(setup.robot, *trajectory.evaluate_joints(t))
    tau = Y @ setup.theta
    return base_columns(Y, setup.base).reshape(-1, setup.base.rank), tau.ravel()


def twin_errors(
    setup: TwinSetup, trajectory: FourierTrajectory, periods: int, seeds: Sequence[int]
) -> pd.DataFrame:
    """Per noise seed: median relative base-parameter error of OLS (over the base parameters
    whose truth is no structural zero, :func:`paramid.robot.estimators.relative_error`) and
    validation torque RMSE.

    Seed s draws the torque noise (N, n) from the stream ("robot_excitation", "noise", s), the
    same for every trajectory of the same length (paired seeds).
    """
    W, tau = _base_rows(setup, trajectory, _samples(periods * trajectory.period, setup.rate_hz))
    Q, R = np.linalg.qr(W)
    beta = to_base(setup.theta, setup.base)
    W_val, tau_val = _base_rows(
        setup, setup.validation, _samples(setup.validation_s, setup.rate_hz)
    )
    n = setup.robot.n_joints
    noise = np.column_stack(
        [
            (
                generator("robot_excitation", "noise", int(s)).standard_normal((len(tau) // n, n))
                * setup.sigma
            ).ravel()
            for s in seeds
        ]
    )
    estimates = np.linalg.solve(R, Q.T @ (tau[:, None] + noise))  # (r, seeds)
    rel = relative_error(estimates, beta)
    residual = W_val @ estimates - tau_val[:, None]
    return pd.DataFrame(
        {
            "seed": np.asarray(seeds, dtype=np.int64),
            "param_error": np.nanmedian(rel, axis=0),
            "val_rmse": np.sqrt(np.mean(residual**2, axis=0)),
        }
    )


def compare(
    setup: TwinSetup,
    trajectories: Mapping[str, FourierTrajectory],
    feasibility: Mapping[str, dict[str, float]],
    periods: int,
    seeds: Sequence[int],
    grid_points: int,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The comparison table (one row per trajectory, ``designed`` first) and the per-seed errors.

    cond, cond_scaled and logdet are those of the base regressor on ``grid_points`` instants of
    one period (the design's grid for the designed one); ``p_value`` is the two-sided Wilcoxon
    signed-rank test of the per-seed parameter errors against the designed trajectory's (paired
    by seed); ``feasible`` says whether every limit holds on the fine grid (``max_violation``
    ≤ 0, ``violated`` names the limits broken, :func:`violated`); ``cond_below_designed``
    flags a feasible trajectory whose cond beats the design.
    """
    per_seed, rows = [], []
    for name, trajectory in trajectories.items():
        errors = twin_errors(setup, trajectory, periods, seeds)
        errors.insert(0, "trajectory", name)
        per_seed.append(errors)
        W, _ = _base_rows(setup, trajectory, _grid(trajectory.period, grid_points))
        worst = max(feasibility[name].values())
        rows.append(
            {"trajectory": name}
            | scores(W)
            | {
                "param_error_median": float(errors["param_error"].median()),
                "val_rmse_median": float(errors["val_rmse"].median()),
                "feasible": bool(worst <= 0),
                "max_violation": worst,
                "violated": violated(feasibility[name]),
            }
        )
    table = pd.DataFrame(rows)
    designed = per_seed[0]["param_error"].to_numpy()
    table["p_value"] = [np.nan] + [
        float(scipy.stats.wilcoxon(e["param_error"].to_numpy(), designed).pvalue)
        for e in per_seed[1:]
    ]
    table["cond_below_designed"] = table["feasible"] & (table["cond"] < table["cond"].iloc[0])
    table.loc[0, "cond_below_designed"] = False
    first = ["trajectory", "cond", "logdet", "param_error_median", "val_rmse_median", "p_value"]
    return table[first + [c for c in table.columns if c not in first]], pd.concat(per_seed)


#: a compared trajectory beats the design where it identifies better at this significance
OUTPERFORMED_P = 0.05


def outperformed(table: pd.DataFrame, study: str) -> list[str]:
    """A warning for each feasible compared trajectory of :func:`compare`'s ``table`` that
    identifies the twin's parameters significantly better than the design (lower median
    parameter error at Wilcoxon p < :data:`OUTPERFORMED_P`, and lower validation RMSE): the
    raw cond the design minimises mixes units, and can be lowered by a joint that hardly moves
    (a Gen3 design froze its shoulder and lost to a random trajectory, 5.45 against 0.37 N m)."""
    designed = table.iloc[0]
    better = table.iloc[1:][
        table["feasible"].iloc[1:]
        & (table["param_error_median"].iloc[1:] < designed["param_error_median"])
        & (table["val_rmse_median"].iloc[1:] < designed["val_rmse_median"])
        & (table["p_value"].iloc[1:] < OUTPERFORMED_P)
    ]
    return [
        f"robots.{study}.excitation: the {row.trajectory} trajectory identifies the twin better "
        f"than the design (median parameter error {row.param_error_median:.3g} against "
        f"{designed['param_error_median']:.3g}, p = {row.p_value:.2g}; validation RMSE "
        f"{row.val_rmse_median:.3g} against {designed['val_rmse_median']:.3g} N m): the raw "
        "cond mixes units and may favour a joint that hardly moves; try criterion: dopt, or "
        "more starts and maxiter"
        for row in better.itertuples()
    ]


def twin_setup(
    robot: Robot,
    base: BaseParameters,
    twin: Mapping[str, Any],
    comparison: Mapping[str, Any],
    order: int,
) -> TwinSetup:
    """The twin of a study's ``twin`` block (true parameters, torque noise, rate) with the
    validation excitation of ``comparison`` (``validation_seed``, ``validation_period_s``,
    ``validation_amplitude_rad``, ``validation_max_velocity_rad_s``;
    :func:`paramid.robot.twin.excitation` with ``order`` harmonics)."""
    return TwinSetup(
        robot=robot,
        base=base,
        theta=true_parameters(robot, twin["seed"], twin["inertia_spread"], **twin["friction"]),
        sigma=TwinNoise.from_config(twin["noise"]).torque_sigma(robot.n_joints),
        rate_hz=twin["sample_rate_hz"],
        validation=excitation(
            robot,
            comparison["validation_seed"],
            order,
            comparison["validation_period_s"],
            comparison["validation_amplitude_rad"],
            comparison["validation_max_velocity_rad_s"],
        ),
        validation_s=comparison["validation_period_s"],
    )


def compare_excitations(
    robot: Robot,
    base: BaseParameters,
    spec: Mapping[str, Any],
    twin: Mapping[str, Any],
    study: str,
    designed: FourierTrajectory,
    others: Mapping[str, FourierTrajectory],
) -> tuple[pd.DataFrame, pd.DataFrame, int | None]:
    """comparison.csv of a robot study's ``excitation`` block ``spec``: the designed
    trajectory, a random feasible one (:func:`random_feasible`) and ``others`` (e.g. the
    configured coefficient files), each checked against every limit on the design's fine
    grid (as many instants over its own period) and compared on the twin (:func:`compare`,
    ``spec["comparison"]``: periods, seeds).  Returns the table, the per-seed errors and the
    random draw used (None with ``comparison.random`` false: no random reference)."""
    limits, _ = limits_of(robot, spec, study)
    physical = physical_of(robot, spec)
    trajectories = {"designed": designed}
    draw = None
    if spec["comparison"]["random"]:
        trajectories["random"], draw = random_feasible(robot, base, spec, limits, physical, study)
    trajectories |= others
    points = len(fine_grid(designed, spec["grid_points"], spec["fine_factor"]))
    feasibility = {
        name: violations(robot, t, limits, physical, fine_grid(t, points, 1))
        for name, t in trajectories.items()
    }
    c = spec["comparison"]
    setup = twin_setup(robot, base, twin, c, designed.order)
    seeds = list(range(c["seeds"]))
    table, per_seed = compare(
        setup, trajectories, feasibility, c["periods"], seeds, spec["grid_points"]
    )
    return table, per_seed, draw


def start_state(trajectory: FourierTrajectory, joints: Sequence[str]) -> dict[str, dict]:
    """Angle, velocity and acceleration of each joint at t = 0 (the first row of
    trajectory.csv), where the robot must be brought before the period plays: at rest there
    with ``boundary: rest_to_rest``; not with ``periodic``. (Harmonic 0 of coefficients.csv is
    the series' offset q₀, not this pose.)"""
    q, dq, ddq = (x[0] for x in trajectory.evaluate_joints(np.zeros(1)))
    return {
        key: dict(zip(joints, map(float, value), strict=True))
        for key, value in (("q", q), ("dq", dq), ("ddq", ddq))
    }


def moving_start(trajectory: FourierTrajectory, joints: Sequence[str], study: str) -> str | None:
    """A warning for a design that does not start at rest (``boundary: periodic``): its first
    row commands a velocity the robot must be brought to, by a ramp of the user's own."""
    state = start_state(trajectory, joints)
    fastest = max(joints, key=lambda j: abs(state["dq"][j]))
    if abs(state["dq"][fastest]) <= 1e-9 and max(map(abs, state["ddq"].values())) <= 1e-9:
        return None
    return (
        f"robots.{study}.excitation: boundary: periodic: the trajectory does not start at rest "
        f"({fastest} at {state['dq'][fastest]:.3g} rad/s or m/s in its first row): ramp the "
        "robot into that pose and velocity before playing it (design.json's start), or use "
        "boundary: rest_to_rest"
    )


def design_summary(
    result: dz.Design,
    robot: Robot,
    base: BaseParameters,
    limits: JointLimits,
    urdf: Mapping[str, Any],
    physical: Physical,
    spec: Mapping[str, Any],
) -> dict[str, Any]:
    """design.json: coefficients per joint, criterion, cond (raw and column-scaled), log det,
    the URDF's and the used limits, fine-grid violations, active constraints, the base
    columns every comparison uses, and the solver's report per start."""
    trajectory = result.trajectory
    t_fine = fine_grid(trajectory, result.grid_points, result.fine_factor)
    t = _grid(trajectory.period, result.grid_points)
    W = design_regressor(robot, base)(*trajectory.evaluate_joints(t), 0.0)
    tau = np.abs(physical.torque(robot, *trajectory.evaluate_joints(t_fine))).max(axis=0)
    active = [{**c, "joint": robot.joints[c["joint"] - 1]} for c in result.active if c["active"]]
    return {
        "joints": list(robot.joints),
        "trajectory": trajectory.to_dict(),
        "boundary": spec["boundary"],
        "start": start_state(trajectory, robot.joints),
        "criterion": result.criterion,
        "criterion_definition": "raw 2-norm cond of the base regressor incl. friction columns"
        if result.criterion == "cond"
        else "-log det(W'W/K) of the base regressor incl. friction columns",
        "value": result.value,
        "scores": scores(W),
        "limits_urdf": dict(urdf) | {"effort": physical.effort_urdf.tolist()},
        "limits_used": limits.to_dict()
        | {
            "effort": physical.effort.tolist(),
            "floor_height_m": physical.floor,
            "clearance_m": physical.clearance,
        },
        "margins": dict(spec["margins"]),
        "effort_reached": tau.tolist(),
        "fine_violation": violations(robot, trajectory, limits, physical, t_fine),
        "active_constraints": active,
        "base_columns": {
            "names": list(base.names),
            "independent": base.independent.tolist(),
            "rank": base.rank,
            "chosen_by": "paramid.robot.base.structural_base (seeded random states, canonical "
            "order); the same columns score every compared trajectory",
        },
        "solver": {
            "method": "SLSQP, multi-start (paramid.excitation.design)",
            "starts": [s.__dict__ for s in result.starts],
            "grid_points": result.grid_points,
            "fine_factor": result.fine_factor,
            "sign_smoothing": result.sign_smoothing,
            "shrink": result.shrink,
        },
    }


def checked_summary(
    result: dz.Design,
    robot: Robot,
    base: BaseParameters,
    limits: JointLimits,
    urdf: Mapping[str, Any],
    physical: Physical,
    spec: Mapping[str, Any],
    study: str,
    warnings: Sequence[str],
) -> dict[str, Any]:
    """design.json: :func:`design_summary` with ``warnings`` (:func:`design_warnings`);
    raises :class:`ExcitationError` for a design that excites the base parameters poorly
    (:func:`poor_excitation` on the check grid)."""
    summary = design_summary(result, robot, base, limits, urdf, physical, spec)
    summary["warnings"] = list(warnings)
    t_fine = fine_grid(result.trajectory, result.grid_points, result.fine_factor)
    poor_excitation(
        summary["scores"], result.trajectory, robot.joints, t_fine, study, _prismatic(robot)
    )
    return summary


def trajectory_frame(
    trajectory: FourierTrajectory,
    joints: Sequence[str],
    rate_hz: float,
    joint_units: Sequence[Mapping[str, str]],
) -> tuple[pd.DataFrame, dict[str, str]]:
    """One period at ``rate_hz``: time, q_/dq_/ddq_<joint> (a controller can replay it), units
    (per joint: ``joint_units``, :func:`paramid.robot.model.joint_units`)."""
    t = np.arange(int(round(trajectory.period * rate_hz))) / rate_hz
    q, dq, ddq = trajectory.evaluate_joints(t)
    columns: dict[str, Array] = {"time": t}
    units = {"time": "s"}
    for name, values in (("q", q), ("dq", dq), ("ddq", ddq)):
        for k, joint in enumerate(joints):
            columns[f"{name}_{joint}"] = values[:, k]
            units[f"{name}_{joint}"] = joint_units[k][name]
    return pd.DataFrame(columns), units
