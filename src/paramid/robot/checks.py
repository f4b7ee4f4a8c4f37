"""Plausibility of a multi-joint record before fitting: the faults that otherwise run silently
to a table (degrees declared as radians, time in ms declared as s, a robot that stands still, a
torque unit off by orders of magnitude, a joint's torque sign inverted against the URDF or
against its friction, two joints' columns swapped, a joint left out of ``joints:`` that the log
shows moving or held elsewhere than the model locks it).

:func:`record_problems` returns ``(check, joint or None, message)`` for what looks wrong; the
workflow adds the file and the study and stops before any job, unless the study skips the check
by name (``robots.<study>.checks.skip``).  The sign and swap checks compare the recorded torque
with the URDF's gravity torque g(q) (Pinocchio); they need no fit.  They are weighed together:
each proposes a correction (negate a column, exchange two joints' columns), and the one that
leaves the smallest misfit is reported, with near-equal ones beside it.  Thresholds are stated
with their reasoning, none tuned to a record.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from paramid import plausibility
from paramid.robot.model import Robot, joint_kinds, joint_ranges, pin_configuration
from paramid.robot.records import RobotRecord

Array = NDArray[np.float64]
Problem = tuple[str, str | None, str]
CHECKS = (
    "locked_joints",
    "angle_units",
    "time_units",
    "stands_still",
    "torque_units",
    "torque_sign",
    "friction_sign",
    "columns_swapped",
)
# degrees read as radians put a joint tens of radians past its URDF limits; encoders of a
# real arm stay within them up to calibration offsets
LIMIT_MARGIN_RAD = 0.5
# measured velocity vs the derivative of the angle: a time unit wrong by 1000 (ms as s) or 60
# gives a ratio far outside this band; filtering and jitter keep a right record within it
RATE_RATIO_BAND = (0.2, 5.0)
# a joint whose angle moves less than this over the record does not move
STILL_RAD = 1e-3
# a locked joint logged this far from the value the model holds it at: the links beyond it
# would sit off by as much, their gravity moment off by up to this share of its range
LOCK_TOLERANCE_RAD = 0.02
# gravity is a visible share of a joint's torque when its spread is this share of the
# torque's spread (and at least MIN_GRAVITY_NM): only there do the sign and swap checks speak
GRAVITY_SHARE = 0.2
MIN_GRAVITY_NM = 0.5
# correlation of torque and URDF gravity: below -SIGN_CORRELATION the sign is inverted
SIGN_CORRELATION = 0.5
# the recorded torque against the URDF's gravity torque (median least-squares slope over the
# joints with a gravity spread of MIN_GRAVITY_NM): a unit error (N mm, N cm as N m or the
# reverse) puts it 100-1000x off; a payload or torque constants the URDF lacks move it by a
# small factor (1.0-2.6 on the shipped Gen3 logs)
TORQUE_SCALE_BAND = (0.1, 10.0)
# friction opposes motion, so a joint's torque follows the sign of its velocity on average
# (correlation 0.0-0.89 on the shipped Gen3 logs, 0 where a joint moves one way only): below
# -FRICTION_CORRELATION the column's sign is inverted (checked where gravity cannot tell)
FRICTION_CORRELATION = 0.2
# a torque whose part beyond the URDF's gravity spreads less than this has no friction to
# judge (a small servo's friction is tens of mN m, the Gen3's about 1 N m): e.g. a noiseless
# simulation of gravity alone
MIN_FRICTION_NM = 1e-3
# exchanging two columns back shrinks the misfit to the URDF's gravity below this share of it
# as given (on the shipped Gen3 logs as recorded: >= 0.91 for any pair's torques, >= 0.95 for
# angles or all columns; 0.07-0.65 for their joint 2/4 torques exchanged)
SWAP_RATIO = 0.75
# corrections that remove at least this share of what the best one removes are named beside
# it: the misfit also holds the URDF's own errors (the Gen3's missing gripper: 1.3-1.6x gravity
# on joints 2 and 4), and joints that move together (the shipped excitations: |correlation| up
# to 0.99) make different exchanges remove about as much
CLOSE_REDUCTION = 2 / 3
SAMPLES = 1000  # gravity is evaluated on this many samples spread over the record


def gravity_torque(robot: Robot, q: Array) -> Array:
    """g(q) (N, n) of the URDF's rigid body at joint values q (N, n)."""
    import pinocchio as pin

    data = robot.model.createData()
    velocity = [robot.model.joints[j].idx_v for j in robot.pin_joint]
    return np.array(
        [
            pin.computeGeneralizedGravity(robot.model, data, qk)[velocity]
            for qk in pin_configuration(robot, q)
        ]
    )


def _centred(x: Array) -> Array:
    return x - x.mean(axis=0)


def _correlation(a: Array, b: Array) -> float:
    a, b = a - a.mean(), b - b.mean()
    scale = float(np.sqrt((a @ a) * (b @ b)))
    return float(a @ b) / scale if scale > 0 else 0.0


def locked_joints(record: RobotRecord, robot: Robot) -> list[Problem]:
    """Each locked joint the log has a column of (``locked_q``): one that moves
    (:data:`STILL_RAD`) is missing from ``joints:`` (the model holds it still and blames its
    torque on the others); one held elsewhere than its ``locked:`` value by more than
    :data:`LOCK_TOLERANCE_RAD` puts the links beyond it in the wrong pose."""
    problems: list[Problem] = []
    for (joint, value), kind in zip(robot.locked, robot.locked_kinds, strict=True):
        if joint not in record.locked_q:
            continue
        q = record.locked_q[joint]
        unit = "m" if kind == "prismatic" else "rad"
        low, high = float(q.min()), float(q.max())
        held = float(np.median(q))
        off = held - value
        if kind == "continuous":  # a turn more or less is the same pose
            off = float(np.angle(np.exp(1j * off)))
        if high - low >= STILL_RAD:
            message = (
                f"its angle in the log moves over [{low:.4g}, {high:.4g}] {unit}, but it is not "
                f"in `joints:` and the model locks it at {value:g} {unit}: its motion's torque "
                "would be blamed on the other joints; add it to `joints:`"
            )
        elif abs(off) > LOCK_TOLERANCE_RAD:
            message = (
                f"the log holds it at {held:.4g} {unit}, but the model locks it at {value:g} "
                f"{unit} (`locked:`, default 0): set `locked: {{{joint}: {held:.4g}}}`"
            )
        else:
            continue
        problems.append(("locked_joints", joint, message))
    return problems


def angle_units(record: RobotRecord, robot: Robot) -> list[Problem]:
    """Per joint: a span or speed implausible in rad (a continuous joint's angle is unwrapped
    by :func:`paramid.robot.records.load_record`), or angles far outside the URDF's limits; a
    prismatic joint's position in m judged alike (the likely error there: mm)."""
    problems: list[Problem] = []
    lower, upper = joint_ranges(robot)
    for k, (joint, kind) in enumerate(zip(record.joints, joint_kinds(robot), strict=True)):
        q = record.q[:, k]
        if kind == "prismatic":
            problems += _prismatic_units(record.time, q, joint, (lower[k], upper[k]))
            continue
        message = plausibility.angle_units(record.time, q, setting="units.q")
        if message is None and (lower[k] > -np.pi or upper[k] < np.pi):
            low, high = float(q.min()), float(q.max())
            if low < lower[k] - LIMIT_MARGIN_RAD or high > upper[k] + LIMIT_MARGIN_RAD:
                message = (
                    f"the angle reaches [{low:.4g}, {high:.4g}] rad, far outside the URDF's "
                    f"limits [{lower[k]:.4g}, {upper[k]:.4g}] rad: is it in degrees? set "
                    "units: {q: deg}"
                )
        if message and kind == "continuous":  # its span may be real: it turns without end
            message += " (or a continuous joint turning over two revolutions: skip angle_units)"
        if message:
            problems.append(("angle_units", joint, message))
    return problems


def _prismatic_units(
    time: Array, position: Array, joint: str, limits: tuple[float, float]
) -> list[Problem]:
    """A prismatic joint's position [m] far beyond its URDF travel or implausibly fast
    (the bounds of an angle in rad): logged in mm?"""
    low, high = float(position.min()), float(position.max())
    _, speed, fast = plausibility.span_and_speed(time, position)
    limited = limits[0] > -np.pi or limits[1] < np.pi  # joint_ranges: ±π where none is given
    margin = max(0.5 * (limits[1] - limits[0]), 0.01)  # half its travel beyond it, at least 1 cm
    beyond = limited and (low < limits[0] - margin or high > limits[1] + margin)
    if not (beyond or fast):
        return []
    message = (
        f"the position reaches [{low:.4g}, {high:.4g}] m at up to {speed:.4g} m/s against the "
        f"URDF's travel [{limits[0]:.4g}, {limits[1]:.4g}] m: is it in mm? a prismatic joint's "
        "position must be in m (units: {q: deg} converts the revolute joints only)"
    )
    return [("angle_units", joint, message)]


def time_units(record: RobotRecord) -> list[Problem]:
    """The measured velocity against the derivative of the angle (their ratio is the error of
    the time unit); without a velocity, an implausibly slow sample rate."""
    if record.dq is None:  # a dynamics log's rate (plausibility.MIN_RATE_HZ)
        message = plausibility.sample_rate(record.time)
        return [("time_units", None, message)] if message else []
    derivative = np.gradient(record.q, record.time, axis=0)
    moving = np.abs(record.dq) > 0.05 * np.abs(record.dq).max(axis=0, initial=0.0)
    moving &= np.ptp(record.q, axis=0) >= STILL_RAD  # a joint at rest shows only noise
    ratios = [
        float(np.median(derivative[moving[:, k], k] / record.dq[moving[:, k], k]))
        for k in range(record.q.shape[1])
        if moving[:, k].sum() > 10
    ]
    if not ratios:
        return []
    ratio = float(np.median(ratios))
    low, high = RATE_RATIO_BAND
    if low <= ratio <= high:
        return []
    hint = "is the time in ms? set units.time: ms" if ratio < low else "check units.time"
    return [
        (
            "time_units",
            None,
            f"the angle changes {ratio:.3g} x as fast as the recorded velocity says (expected "
            f"about 1): {hint}",
        )
    ]


def stands_still(record: RobotRecord) -> list[Problem]:
    """A record in which no joint moves carries no dynamics."""
    span = np.ptp(record.q, axis=0)
    if np.all(span < STILL_RAD):
        return [
            (
                "stands_still",
                None,
                f"no joint moves more than {STILL_RAD:g} rad (largest {span.max():.3g} rad): the "
                "robot stands still; record an excitation",
            )
        ]
    return []


def torque_units(record: RobotRecord, gravity: Array, rows: Array) -> list[Problem]:
    """A torque whose scale against the URDF's gravity torque (or whose peak) betrays a unit
    error: :data:`TORQUE_SCALE_BAND`, :data:`paramid.plausibility.MAX_TORQUE_N_M`."""
    peak = plausibility.magnitudes(record.tau, setting="units.tau")
    if peak is not None:
        return [("torque_units", None, peak)]
    loaded = gravity.std(axis=0) >= MIN_GRAVITY_NM
    if not loaded.any():
        return []
    g, tau = _centred(gravity[:, loaded]), _centred(record.tau[rows][:, loaded])
    scale = float(np.median(np.abs(np.sum(g * tau, axis=0) / np.sum(g * g, axis=0))))
    low, high = TORQUE_SCALE_BAND
    if low <= scale <= high:
        return []
    joints = ", ".join(j for j, used in zip(record.joints, loaded, strict=True) if used)
    return [
        (
            "torque_units",
            None,
            f"the torque of {joints} is {scale:.3g} x the URDF's gravity torque (expected "
            f"{low:g}-{high:g}): check units.tau (N m or N mm)",
        )
    ]


def _misfit(tau: Array, gravity: Array) -> float:
    """Summed squared misfit of the (offset-free) torque to the URDF's gravity torque."""
    return float(np.sum((_centred(tau) - _centred(gravity)) ** 2))


def _share(after: float, before: float) -> float:
    """``after`` as a share of ``before``; 1 (no change) when there was nothing to shrink."""
    return after / before if before > 0 else 1.0


@dataclass(frozen=True)
class Explanation:
    """A correction of a record that brings its torque closer to what the URDF's gravity or
    friction lets one expect."""

    share: float  # the measure left over every judged joint, as a share of it as given
    strong: bool  # enough to report on its own (its check's threshold)
    correction: str  # what the user would change, for naming it as an alternative
    problems: tuple[Problem, ...]  # what is reported when it is the best explanation
    measure: str = "misfit"  # what `share` is a share of


def friction_signs(record: RobotRecord, gravity: Array, rows: Array) -> list[Explanation]:
    """Where gravity cannot tell (and the torque beyond it spreads at least
    :data:`MIN_FRICTION_NM`): negating the joints whose torque runs against their own
    velocity (correlation with its sign below -:data:`FRICTION_CORRELATION`), or exchanging
    such a joint's torque column with another's: friction opposes each joint's own motion.
    The share left: the disagreement sum(1 - correlation) over these joints after the
    correction, against before; none when no joint runs against its velocity."""
    velocity = np.gradient(record.q, record.time, axis=0) if record.dq is None else record.dq
    judged = (record.tau[rows] - gravity).std(axis=0) >= MIN_FRICTION_NM
    hidden = np.flatnonzero(~_gravity_joints(record.tau[rows], gravity) & judged)
    if hidden.size == 0:
        return []
    # follows[a, b]: the torque of joint hidden[a] against the velocity sign of joint hidden[b]
    follows = np.array(
        [[_correlation(record.tau[:, a], np.sign(velocity[:, b])) for b in hidden] for a in hidden]
    )
    own = np.diagonal(follows).copy()
    inverted = np.flatnonzero(own < -FRICTION_CORRELATION)
    if inverted.size == 0:
        return []
    before = float(np.sum(1 - own))
    negated = own.copy()
    negated[inverted] *= -1
    names = " and ".join(record.joints[hidden[a]] for a in inverted)
    problems = tuple(
        (
            "friction_sign",
            record.joints[hidden[a]],
            f"the torque correlates {own[a]:.2f} with the sign of the joint's velocity: "
            "friction would make it positive; is its sign inverted? negate the column",
        )
        for a in inverted
    )
    disagreement = "disagreement with friction"
    explanations = [
        Explanation(
            float(np.sum(1 - negated)) / before,
            True,
            f"the torque of {names} negated",
            problems,
            disagreement,
        )
    ]
    for a, b in combinations(range(hidden.size), 2):
        if a not in inverted and b not in inverted:
            continue
        crossed = own.copy()
        crossed[[a, b]] = follows[b, a], follows[a, b]
        pair = f"{record.joints[hidden[a]]} and {record.joints[hidden[b]]}"
        message = (
            f"the torques of {pair} correlate {own[a]:.2f}, {own[b]:.2f} with the sign of their "
            f"joint's velocity and {crossed[b]:.2f}, {crossed[a]:.2f} with the other's: friction "
            "opposes each joint's own motion; are the torque columns exchanged? check the "
            "record's columns: setting"
        )
        explanations.append(
            Explanation(
                float(np.sum(1 - crossed)) / before,
                True,
                f"the torque columns of {pair} exchanged",
                (("friction_sign", pair, message),),
                disagreement,
            )
        )
    return explanations


def _gravity_joints(tau: Array, gravity: Array) -> NDArray[np.bool_]:
    """Joints where gravity is a visible share of the torque."""
    spread = gravity.std(axis=0)
    return (spread >= GRAVITY_SHARE * tau.std(axis=0)) & (spread >= MIN_GRAVITY_NM)


def inverted_signs(record: RobotRecord, gravity: Array, rows: Array) -> list[Explanation]:
    """Negating the joints whose torque runs against the URDF's gravity torque (correlation
    below -:data:`SIGN_CORRELATION` where gravity is visible); none when no joint does."""
    tau = record.tau[rows]
    inverted = [
        (k, correlation)
        for k in np.flatnonzero(_gravity_joints(tau, gravity))
        if (correlation := _correlation(tau[:, k], gravity[:, k])) < -SIGN_CORRELATION
    ]
    if not inverted:
        return []
    negated = tau.copy()
    negated[:, [k for k, _ in inverted]] *= -1
    names = " and ".join(record.joints[k] for k, _ in inverted)
    problems = tuple(
        (
            "torque_sign",
            record.joints[k],
            f"the torque correlates {correlation:.2f} with the URDF's gravity torque: is its "
            "sign inverted against the URDF's joint axis? negate the column",
        )
        for k, correlation in inverted
    )
    share = _share(_misfit(negated, gravity), _misfit(tau, gravity))
    return [Explanation(share, True, f"the torque of {names} negated", problems)]


def exchanged_columns(
    record: RobotRecord, robot: Robot, gravity: Array, rows: Array
) -> list[Explanation]:
    """Exchanging two joints' torque columns (where one of the two has a visible gravity, else
    nothing tells them apart), angle columns or all columns (the ``joints`` order of the config
    against the logger's).  An exchange is strong where it shrinks the misfit of the joints it
    changes below :data:`SWAP_RATIO` (exchanged angles change every joint's gravity; exchanged
    torques two joints')."""
    tau, q = record.tau[rows], record.q[rows]
    visible = _gravity_joints(tau, gravity)
    total = _misfit(tau, gravity)
    explanations = []
    for i, j in combinations(range(q.shape[1]), 2):
        names = f"{record.joints[i]} and {record.joints[j]}"
        crossed = tau.copy()
        crossed[:, [i, j]] = tau[:, [j, i]]
        exchanged = q.copy()
        exchanged[:, [i, j]] = q[:, [j, i]]
        exchanged_gravity = gravity_torque(robot, exchanged)
        angle = _share(_misfit(tau, exchanged_gravity), total)
        joint = _share(_misfit(crossed, exchanged_gravity), total)
        kinds = [
            ("the angle columns", angle, angle, f"misfit x {angle:.2f}", ""),
            (
                "all columns (angle, velocity, torque)",
                joint,
                joint,
                f"misfit x {joint:.2f}",
                " and the order of the study's joints: against the log's",
            ),
        ]
        if visible[i] or visible[j]:
            pair = gravity[:, [i, j]]
            local = _share(_misfit(crossed[:, [i, j]], pair), _misfit(tau[:, [i, j]], pair))
            torque = _share(_misfit(crossed, gravity), total)
            shrink = f"misfit x {torque:.2f}, of the two joints x {local:.2f}"
            kinds.insert(0, ("the torque columns", torque, local, shrink, ""))
        for what, share, changed, shrink, order in kinds:
            message = (
                f"{what} of {names} fit the URDF's gravity torque better exchanged ({shrink}): "
                f"check the record's columns: setting{order}"
            )
            problem = ("columns_swapped", names, message)
            explanations.append(
                Explanation(share, changed < SWAP_RATIO, f"{what} of {names} exchanged", (problem,))
            )
    return explanations


def best_explanation(explanations: Sequence[Explanation]) -> list[Problem]:
    """The strong explanation that leaves the smallest share, with up to two others (strong or
    not) that remove at least :data:`CLOSE_REDUCTION` of what it removes named after its last
    problem: an exchange and a negation both turn a torque against gravity, and joints that move
    together cannot be told apart."""
    strong = [e for e in explanations if e.strong]
    if not strong:
        return []
    best = min(strong, key=lambda e: e.share)
    close = sorted(
        (
            e
            for e in explanations
            if e is not best and 1 - e.share >= CLOSE_REDUCTION * (1 - best.share) > 0
        ),
        key=lambda e: e.share,
    )[:2]
    if not close:
        return list(best.problems)
    alternatives = "; ".join(f"{e.correction} ({e.measure} x {e.share:.2f})" for e in close)
    these = "this correction" if len(best.problems) == 1 else "these corrections"
    note = f"; as good a fit or better ({best.measure} x {best.share:.2f} with {these}): "
    *first, (check, joint, message) = best.problems  # said once, after the last of them
    return [*first, (check, joint, message + note + alternatives)]


def record_problems(record: RobotRecord, robot: Robot, skip: Sequence[str] = ()) -> list[Problem]:
    """Every failed check not in ``skip``, cheapest first; a locked joint the log shows moving
    or held elsewhere comes first (the model's gravity is wrong then); a record that stands
    still is told so alone (its noise would mislead the unit checks); the gravity checks run
    only on a record that passes the checks before them, the sign and swap checks only at a
    plausible torque scale (of the two, the explanation that leaves the smaller misfit), the
    friction check only where nothing else was found (a unit, sign or swap error would
    mislead it)."""
    problems = locked_joints(record, robot) if "locked_joints" not in skip else []
    if "stands_still" not in skip and (still := stands_still(record)):
        return problems + still
    if "angle_units" not in skip:
        problems += angle_units(record, robot)
    if "time_units" not in skip:
        problems += time_units(record)
    gravity_checks = {"torque_units", "torque_sign", "friction_sign", "columns_swapped"}
    if problems or gravity_checks <= set(skip):
        return problems
    rows = np.unique(np.linspace(0, record.time.size - 1, SAMPLES).astype(int))
    gravity = gravity_torque(robot, record.q[rows])
    if "torque_units" not in skip and (scale := torque_units(record, gravity, rows)):
        return scale
    explanations = inverted_signs(record, gravity, rows)
    explanations += exchanged_columns(record, robot, gravity, rows)
    found = best_explanation(explanations)  # over every explanation: a skip hides, not re-ranks
    problems += [problem for problem in found if problem[0] not in skip]
    exchange = any(check == "columns_swapped" for check, _, _ in found)
    if "friction_sign" not in skip and not problems and not exchange:  # a swap misleads it
        problems += best_explanation(friction_signs(record, gravity, rows))
    return problems
