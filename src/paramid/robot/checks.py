"""Plausibility of a multi-joint record before fitting: the faults that otherwise run silently
to a table (degrees declared as radians, time in ms declared as s, a robot that stands still, a
dead or frozen sensor channel, a velocity sample beyond any joint's speed or against its angle's
change, a torque unit off by orders of magnitude, a joint's torque sign inverted against the URDF
or against its friction, two joints' columns swapped (velocities: each following the other's
angle), a joint left out of ``joints:`` that the log
shows moving or held elsewhere than the model locks it); and across a study's records, one
joint's torque against the URDF's that differs between them by a factor (one record's torque
constant, gear ratio or unit: :func:`torque_across_records`).

:func:`record_problems` returns ``(check, joint or None, message)`` for what looks wrong; the
workflow adds the file and the study and stops before any job, unless the study skips the check
by name (``robots.<study>.checks.skip``).  The unit, sign and swap checks compare the
recorded torque with what the URDF lets one expect along the logged motion: its rigid body's
inverse dynamics τ_URDF(q, q̇, q̈) (``pin.rnea``; q̇, q̈ by a Savitzky-Golay derivative of the
angles) at a gain per joint within 0.5-2 (a payload or torque constants the URDF lacks), plus
per joint a Coulomb step and an offset fitted by least squares to what remains
(:class:`Expected`).  Gravity alone would leave the inertia and friction of a fast arm in the
misfit (a simulated 5-joint arm: 94 % of its torque's variance), where a negated shoulder torque
passed and a correct 0.6 s log was called exchanged.  The viscous term is left out: on a motion
whose velocity drifts one way (the Gen3's quadratic record) it fits any slow trend, an
exchanged column's gravity included.  The checks are weighed together: each proposes a
correction (negate a column, exchange two joints' columns), and the one that leaves the
smallest misfit is reported, with near-equal ones beside it.  Thresholds are stated with their
reasoning, none tuned to a record.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations

import numpy as np
from numpy.typing import NDArray

from paramid import plausibility
from paramid.ingest import data_row
from paramid.plausibility import (
    ANGLE_UNITS,
    COLUMNS_SWAPPED,
    RADIANS_AS_DEGREES,
    RECORDS_SCALE,
    REST_AT_ENDS,
    STILL_RAD,
    TIME_UNITS,
    TORQUE_SIGN,
)
from paramid.robot.model import Robot, coordinate_unit, joint_kinds, joint_ranges, pin_configuration
from paramid.robot.records import RobotRecord

Array = NDArray[np.float64]
Problem = tuple[str, str | None, str]
# The checks of a robot study's logs, by the names ``checks.skip`` takes (those a 1-DOF study
# has too, by :mod:`paramid.plausibility`'s; rest_at_ends is honoured where a log is read,
# :func:`paramid.workflow.drops_rest`): CHECKS lists them (the schema's enum, in its order)
LOCKED_JOINTS = "locked_joints"
STANDS_STILL = "stands_still"
SENSOR_FAULTS = "sensor_faults"
TORQUE_UNITS = "torque_units"
FRICTION_SIGN = "friction_sign"
CHECKS = (
    LOCKED_JOINTS,
    RADIANS_AS_DEGREES,
    ANGLE_UNITS,
    TIME_UNITS,
    STANDS_STILL,
    REST_AT_ENDS,
    SENSOR_FAULTS,
    TORQUE_UNITS,
    TORQUE_SIGN,
    FRICTION_SIGN,
    COLUMNS_SWAPPED,
    RECORDS_SCALE,  # across a study's records (torque_across_records), as a 1-DOF study's
)
# degrees read as radians put a joint tens of radians past its URDF limits; encoders of a
# real arm stay within them up to calibration offsets
LIMIT_MARGIN_RAD = 0.5
# how :func:`angle_units` asks about degrees (both its messages; :func:`in_degrees` reads it)
DEGREES_ADVICE = "is it in degrees? set units.q: deg"
# what it asks instead where the record already declares degrees (they were converted)
DECLARED_DEGREES_ADVICE = (
    "the record declares units.q: deg and it was converted: is the column this joint's, in "
    "another unit, or is its zero elsewhere than the URDF's?"
)
# how :func:`angle_units` names an exchange of angle columns beside a unit (:func:`in_degrees`
# leaves such a joint's message whole)
EXCHANGE_ADVICE = "each passes this check as the other's"
# a joint whose recorded velocity reaches this (99th percentile of |q̇|) moves: about 3 deg/s;
# the shipped Gen3 logs at rest show at most 2e-4 rad/s
MOVING_RAD_S = 0.05
# a locked joint logged this far from the value the model holds it at, or moving this much
# (between the 1st and 99th percentile: an encoder's noise is not motion): the links beyond
# it would sit off by as much, their gravity moment off by up to this share of its range
LOCK_TOLERANCE_RAD = 0.02
# the URDF's rigid body is a visible share of a joint's torque when its spread beyond the joint's
# friction is this share of the torque's and at least MIN_RIGID_NM: only there does the sign
# check speak (elsewhere the friction check does), and the torque exchange check where neither
# joint has friction to judge
RIGID_SHARE = 0.2
MIN_RIGID_NM = 0.5
# correlation of the torque and the URDF's beyond friction: below -SIGN_CORRELATION the sign is
# inverted
SIGN_CORRELATION = 0.5
# the recorded torque against the URDF's (median least-squares slope beyond friction over the
# joints with a rigid-body spread of MIN_RIGID_NM): a unit error (N mm, N cm as N m or the
# reverse) puts it 100-1000x off; a payload or torque constants the URDF lacks move it by a
# small factor (per joint 0.91-1.95, median 1.26-1.44 on the shipped Gen3 logs)
TORQUE_SCALE_BAND = (0.1, 10.0)
# a torque this many times the URDF's or more, below the band, may be a motor current in A
# (a torque constant times the gear ratio: up to some 200 N m/A) or a motor-side torque (a
# gear ratio up to some 200), unlike N m read as N mm (0.001 x)
CURRENT_SCALE = 0.005
# an exchange explains a whole record's torque scale where it brings the scale within this
# band, a plausible one (a 3-joint arm's first two joints exchanged: 0.07 x, about 1 x
# exchanged), not merely nearer it (a motor current at 0.097 x, lifted to 0.18 x by exchanging
# two angle columns, was called that exchange)
EXCHANGE_SCALE_BAND = (1 / 3, 3.0)
# one joint's scale against the joints' median: a motor current logged without its torque
# constant and gear ratio on one joint puts it ~10x off the others (a UR-like twin's elbow:
# 0.0995 x the URDF's beside a median of 0.96, inside TORQUE_SCALE_BAND); the shipped Gen3 logs'
# joints lie within 0.63-1.55 x their median
RELATIVE_SCALE_BAND = (0.25, 4.0)
# one joint's scale against the URDF's (:meth:`Expected.scales`) in two records of one arm: at
# most this factor apart.  The shipped Gen3 logs (two sessions, 2022 and 2024) lie within 1.46x
# of each other (joint 2: 0.91x in RecordTrajectory_quadratic, 1.24x and 1.32x in the
# optimised logs; joint 4 1.33x), any 2 s of them within 1.56x (joint 2: 0.85-1.33x),
# gen3_twin's two records within 1.05x (1.17x with armature): a margin of 1.28x.  A current
# read with another actuator's torque constant (the Gen3's 9.130 against 5.852 N m/A: 1.56x),
# a gear ratio or a firmware's unit moves one record alone: x 0.5 or 2 on joint 2 or 4 of one
# of the three logs is named in 8 of 12 cases, x 0.67 or 1.5 in 3 (1.75 would name 10 and 6,
# with a margin of 1.12x over 2 s of the logs)
RECORD_GAIN_SPREAD = 2.0
# a joint's scale is compared across records where its torque beyond friction correlates this
# closely with the URDF's (the URDF's shape explains half its variance): the Gen3's joints 2
# and 4 (0.81-0.995 in the shipped logs); joints 1 and 3 (0.43-0.67 but in the quadratic
# record's joint 3) put any 2 s of them 2.16x apart (joint 3: 0.89-1.93x), beside friction and a
# 5-10 Hz drivetrain oscillation the URDF lacks
GAIN_CORRELATION = 0.7
# friction opposes motion, so a joint's torque follows the sign of its velocity on average
# (correlation 0.0-0.89 on the shipped Gen3 logs, 0 where a joint moves one way only): below
# -FRICTION_CORRELATION the column's sign is inverted (checked where the rigid body cannot
# tell)
FRICTION_CORRELATION = 0.2
# a torque whose part beyond the URDF's spreads less than this has no friction to judge (a
# small servo's friction is tens of mN m, the Gen3's about 1 N m): e.g. a noiseless simulation
# of the rigid body alone
MIN_FRICTION_NM = 1e-3
# exchanging two columns back shrinks the misfit to the URDF's torque below this share of it
# as given: over every joint, or over the two joints where their torque columns move with
# them and the whole misfit falls too (on the five Gen3 logs of SOURCE.md as recorded: >= 1.11
# for any pair's torques, >= 1.05 for all their columns over the two joints, >= 0.96 for angles
# or all columns over every joint; exchanged in the shipped logs: 0.06-0.12 for the torques of
# joints 2 and 4, 0.52-0.72 over the two joints for all columns of a wrist joint and another)
SWAP_RATIO = 0.75
# the recorded velocities against the angles' derivatives (both through the Savitzky-Golay
# filter of :func:`motion`): exchanging two joints' velocity columns back leaves less than this
# share of the two joints' misfit.  On the shipped Gen3 logs as recorded each velocity follows
# its own angle to 1-3 % of its RMS, and exchanging any two multiplies the misfit by >= 1.01
# (>= 260 where the joints' motions differ; the quadratic record moves joints 1-4 alike, and
# 5-7); with two columns exchanged, exchanging them back leaves 4e-5 to 0.004 of it, 0.07
# between the quadratic record's two groups (one profile, 14 % apart) and 0.16 for joints 1
# and 3 of opti_traj_testing2 (they move against each other: a negated sign fits nearly as well)
VELOCITY_SWAP_RATIO = 0.25
# corrections that remove at least this share of what the best one removes are named beside
# it: the misfit also holds the URDF's own errors (the Gen3's missing gripper: 1.3-1.6x gravity
# on joints 2 and 4), and joints that move together (the shipped excitations: |correlation| up
# to 0.99) make different exchanges remove about as much
CLOSE_REDUCTION = 2 / 3
# the gain each joint's rigid-body torque may take in the misfit: a payload, a gripper or torque
# constants the URDF lacks scale it (per joint 0.91-1.95 on the shipped Gen3 logs,
# TORQUE_SCALE_BAND); without it a URDF whose masses were 1.6x the arm's, or whose last link
# carried a 3 kg load 0.2 m out, had right Gen3 logs called exchanged.  A unit error is told
# apart first (torque_units) and an inverted sign is no gain (its fit takes the band's floor)
GAIN_BAND = (0.5, 2.0)
SAMPLES = 1000  # the URDF's torque is evaluated on this many samples spread over the record
# one joint's velocity column is judged against its angle's rate where the two move together
# this closely (a unit keeps the shape; a joint that barely moves shows the velocity's noise:
# a Gen3 wrist at ±0.005 rad beside 0.01 rad/s of noise read 241x, correlated far less)
RATE_COHERENCE = 0.9
# a slide's weight is judged where it moves up and down in at least this share of the samples
# each (the mean force of a slide moving one way holds its Coulomb friction)
BALANCE_SHARE = 0.1
# velocity and acceleration of the logged angles: a cubic Savitzky-Golay derivative over this
# span (it passes the few hertz an arm's excitation holds and smooths an encoder's steps)
DERIVATIVE_WINDOW_S = 0.1


def motion(record: RobotRecord, rows: Array) -> tuple[Array, Array, Array]:
    """q, q̇, q̈ (S, n) of the record at ``rows``, the derivatives by a cubic Savitzky-Golay
    filter over :data:`DERIVATIVE_WINDOW_S` (from the angles: exchanged with them)."""
    from scipy.signal import savgol_filter

    if record.time.size < 5:
        raise ValueError(f"{record.time.size} samples: a cubic derivative needs at least 5")
    window, step = _derivative_window(record)
    dq, ddq = (
        savgol_filter(record.q, window, 3, deriv=d, delta=step, axis=0)[rows] for d in (1, 2)
    )
    return record.q[rows], dq, ddq


def _derivative_window(record: RobotRecord) -> tuple[int, float]:
    """The Savitzky-Golay window (odd, samples) spanning :data:`DERIVATIVE_WINDOW_S` within
    the record, and its sample step [s]."""
    window = max(5, round(DERIVATIVE_WINDOW_S * record.sample_rate_hz) // 2 * 2 + 1)
    return min(window, (record.time.size - 1) // 2 * 2 + 1), 1.0 / record.sample_rate_hz


def urdf_torque(robot: Robot, q: Array, dq: Array, ddq: Array) -> Array:
    """τ (S, n) of the URDF's rigid body along the motion (``pin.rnea``)."""
    import pinocchio as pin

    model = robot.model
    data = model.createData()
    index = [model.joints[j].idx_v for j in robot.pin_joint]
    v, a = np.zeros((len(q), model.nv)), np.zeros((len(q), model.nv))
    v[:, index], a[:, index] = dq, ddq
    return np.array(
        [
            pin.rnea(model, data, qk, vk, ak)[index]
            for qk, vk, ak in zip(pin_configuration(robot, q), v, a, strict=True)
        ]
    )


@dataclass(frozen=True)
class Expected:
    """What the URDF lets one expect of a record's torque at the sampled rows: its rigid body's
    torque along the logged motion, and per joint an orthonormal basis of the columns (sgn q̇,
    1: Coulomb, offset) fitted per joint to what the rigid body leaves."""

    rigid: Array  # (S, n) [N m]
    friction: Array  # (n, S, 2); a zero column where a joint moves one way only
    #: (S, n) per joint, the weights of the mean of its samples moving up and of those moving
    #: down, averaged: Coulomb friction cancels in it (:func:`expected`)
    balance: Array
    #: (n,) a slide's balanced mean force by the URDF (the weight it carries, which the fitted
    #: offset hides from the other checks), NaN elsewhere (:func:`expected`)
    weight: Array

    def beyond_friction(self, y: Array) -> Array:
        """y (S, n) less the least-squares fit of each joint's Coulomb and offset columns."""
        columns = y.T[:, :, None]
        fitted = self.friction @ (self.friction.transpose(0, 2, 1) @ columns)
        return (columns - fitted)[:, :, 0].T

    @cached_property
    def rigid_beyond_friction(self) -> Array:
        """The rigid body's torque less each joint's fitted Coulomb step and offset."""
        return self.beyond_friction(self.rigid)

    def scales(self, tau: Array) -> Array:
        """Per joint, the size of ``tau`` (S, n) against the rigid body's torque, both beyond
        friction (the least-squares gain's magnitude); NaN where the rigid body's torque spreads
        less than :data:`MIN_RIGID_NM` (no scale to judge)."""
        rigid, beyond = self.rigid_beyond_friction, self.beyond_friction(tau)
        power = np.sum(rigid**2, axis=0)
        gain = np.abs(np.sum(rigid * beyond, axis=0)) / np.where(power > 0, power, 1.0)
        return np.where(rigid.std(axis=0) >= MIN_RIGID_NM, gain, np.nan)

    def misfits(self, tau: Array) -> Array:
        """Per joint, the squared misfit of ``tau`` (S, n) to the rigid body, at the least-squares
        gain within :data:`GAIN_BAND`, plus the fitted Coulomb step and offset."""
        rigid, beyond = self.rigid_beyond_friction, self.beyond_friction(tau)
        power = np.einsum("sn,sn->n", rigid, rigid)
        slope = np.einsum("sn,sn->n", rigid, beyond) / np.where(power > 0, power, 1.0)
        gain = np.clip(slope, *GAIN_BAND)
        return np.sum((beyond - gain * rigid) ** 2, axis=0)


def expected(robot: Robot, q: Array, dq: Array, ddq: Array) -> Expected:
    """:class:`Expected` along the motion q, q̇, q̈ (S, n); a prismatic joint's weight where it
    moves each way in :data:`BALANCE_SHARE` of the samples or more and the URDF's balanced
    mean force on it is at least :data:`MIN_RIGID_NM` and its spread."""
    columns = np.stack([np.sign(dq), np.ones_like(dq)], axis=-1).transpose(1, 0, 2)  # (n, S, 2)
    u, sv, _ = np.linalg.svd(columns, full_matrices=False)
    kept = sv > sv[:, :1] * 1e-9  # a joint moving one way: its Coulomb step is its offset
    rigid = urdf_torque(robot, q, dq, ddq)
    up, down = dq > 0, dq < 0
    ups, downs = up.sum(axis=0), down.sum(axis=0)
    balance = 0.5 * up / np.maximum(ups, 1) + 0.5 * down / np.maximum(downs, 1)
    mean, spread = np.sum(balance * rigid, axis=0), rigid.std(axis=0)
    slide = np.array([kind == "prismatic" for kind in joint_kinds(robot)])
    both_ways = np.minimum(ups, downs) >= BALANCE_SHARE * len(dq)
    carried = slide & both_ways & (np.abs(mean) >= MIN_RIGID_NM) & (np.abs(mean) >= spread)
    return Expected(rigid, u * kept[:, None, :], balance, np.where(carried, mean, np.nan))


def carried_weights(record: RobotRecord, tau: Array, model: Expected) -> dict[int, float]:
    """Per slide that carries a weight by the URDF (:attr:`Expected.weight`), its recorded
    balanced mean force (up and down alike: Coulomb friction cancels) over the URDF's: about
    1 as logged (a payload, a brake's drag, a sensor's offset move it); about -1 with the sign
    inverted; 0.001 or 1000 in kN or mN (the callers ask the dynamics too).  A vertical
    slide's rigid-body force is mostly that constant, which the per-joint offset the other
    checks fit takes away (a SCARA quill's force negated, 56 N against the URDF's -50, passed
    them, and its fit put -5.9 kg on it)."""
    judged = np.flatnonzero(~np.isnan(model.weight))
    carried = np.sum(model.balance * tau, axis=0)
    return {int(k): float(carried[k] / model.weight[k]) for k in judged}


def _correlation(a: Array, b: Array) -> float:
    a, b = a - a.mean(), b - b.mean()
    scale = float(np.sqrt((a @ a) * (b @ b)))
    return float(a @ b) / scale if scale > 0 else 0.0


def locked_joints(record: RobotRecord, robot: Robot) -> list[Problem]:
    """Each locked joint on the identified joints' chain (``Robot.locked_in_chain``) the log
    has a column of (``locked_q``): one that moves by more than :data:`LOCK_TOLERANCE_RAD` is
    missing from ``joints:`` (the model holds it still and blames its torque on the others);
    one held elsewhere than its ``locked:`` value by more than that puts the links beyond it in
    the wrong pose.  A joint on another branch (a second arm) moves no identified joint's
    torque, wherever it is.  A ``<mimic>`` joint's lock is its leader's doing: it is told only
    where its leader is not logged, and then names the leader's lock (its own is refused)."""
    problems: list[Problem] = []
    leaders = robot.locked_leaders or ("",) * len(robot.locked)
    for (joint, value), kind, in_chain, leader in zip(
        robot.locked, robot.locked_kinds, robot.locked_in_chain, leaders, strict=True
    ):
        if joint not in record.locked_q or not in_chain or leader in record.locked_q:
            continue
        q = record.locked_q[joint]
        unit = coordinate_unit(kind)
        what = "position" if unit == "m" else "angle"
        low, high = (float(v) for v in np.percentile(q, [1, 99]))
        held = float(np.median(q))
        off = held - value
        if kind == "continuous":  # a turn more or less is the same pose
            off = float(np.angle(np.exp(1j * off)))
        if high - low > LOCK_TOLERANCE_RAD:
            message = (
                f"its {what} in the log moves over [{low:.4g}, {high:.4g}] {unit} (1st-99th "
                "percentile), but it is not "
                f"in `joints:` and the model locks it at {value:g} {unit}: its motion's torque "
                "would be blamed on the other joints; add it to `joints:`"
            )
        elif abs(off) > LOCK_TOLERANCE_RAD and leader:
            message = (
                f"the log holds it at {held:.4g} {unit}, but the model puts it at {value:g} "
                f"{unit} by its <mimic> of {leader!r}: lock {leader!r} where the robot held it"
            )
        elif abs(off) > LOCK_TOLERANCE_RAD:
            message = (
                f"the log holds it at {held:.4g} {unit}, but the model locks it at {value:g} "
                f"{unit} (`locked:`, default 0): set `locked: {{{joint}: {held:.4g}}}`"
            )
        else:
            continue
        problems.append((LOCKED_JOINTS, joint, message))
    return problems


def angle_units(
    record: RobotRecord, robot: Robot, judge_speed: bool = True, declared: str = "rad"
) -> list[Problem]:
    """Per joint: a span or speed implausible in rad (a continuous joint's angle is unwrapped
    by :func:`paramid.robot.records.record_from_table`), or angles far outside the URDF's limits; a
    prismatic joint's position in m judged alike (the likely error there: mm).  Without
    ``judge_speed`` (a time unit the recorded velocity shows wrong: the speeds are off by it)
    the span and limits alone.  Where exchanging the flagged joint's angle column with another
    joint's makes both pass, the exchange is named beside the unit.  With ``declared`` (the
    record's ``units.q``) in degrees the angles were converted: the advice to declare degrees
    gives way to :data:`DECLARED_DEGREES_ADVICE`."""
    problems: list[Problem] = []
    lower, upper = joint_ranges(robot)
    kinds = joint_kinds(robot)

    def judged(column: int, as_joint: int) -> str | None:
        limits = (lower[as_joint], upper[as_joint])
        q = record.q[:, column]
        message = _units_message(record.time, q, kinds[as_joint], limits, judge_speed)
        if message is not None and declared == "deg":
            message = message.replace(DEGREES_ADVICE, DECLARED_DEGREES_ADVICE)
        return message

    for k, (joint, kind) in enumerate(zip(record.joints, kinds, strict=True)):
        message = judged(k, k)
        q = record.q[:, k]
        if (
            kind == "continuous"
            and message is not None
            and message.startswith(plausibility.SPAN_MESSAGE)
            and (jumps := plausibility.angle_jumps(record.time, q))
        ):  # a glitch of whole turns (unwrapped by one at most): not a turning joint's span
            message = jumps
        jump = message is not None and message.startswith(plausibility.JUMP_MESSAGE)
        if message and kind == "continuous" and not jump:  # its span may be real: it turns
            message += f" (or a continuous joint turning over two revolutions: skip {ANGLE_UNITS})"
        if message and (place := _logged_place(record, k, kind, message)):
            message += place
        if message and not jump:  # the `joints:` order against the log's
            others = [
                record.joints[j]
                for j in range(len(kinds))
                if j != k and judged(k, j) is None and judged(j, k) is None
            ]
            if others:
                message += (
                    f"; or exchanged with {' or '.join(others)}'s column? {EXCHANGE_ADVICE}: "
                    "check the record's `columns:` setting"
                )
        if message:
            problems.append((ANGLE_UNITS, joint, message))
    n = len(kinds)
    if n >= 3 and len(problems) >= 2 and all(judged(n - 1 - k, k) is None for k in range(n)):
        flagged = ", ".join(str(joint) for _, joint, _ in problems)
        columns = record.q_columns
        first = (
            f" (the file's {columns[0]!r}, read as {record.joints[0]}'s, would be "
            f"{record.joints[-1]}'s)"
            if len(columns) == n
            else ""
        )
        return [
            (
                ANGLE_UNITS,
                None,
                f"the angle columns fit the URDF's joints in reverse order ({flagged} do not as "
                f"read): is the log's joint order the opposite of the study's{first}? check the "
                "record's `columns:` setting and the order of the study's joints",
            )
        ]
    return problems


def _units_message(
    time: Array, q: Array, kind: str, limits: tuple[float, float], judge_speed: bool
) -> str | None:
    """What makes ``q`` implausible as the angle (or a prismatic joint's position) of a joint of
    ``kind`` with the URDF's ``limits`` (:func:`angle_units`), or None."""
    if kind == "prismatic":
        return _prismatic_units(time, q, limits, judge_speed)
    message = plausibility.angle_units(time, q, "units.q", judge_speed)
    if message is None and (limits[0] > -np.pi or limits[1] < np.pi):
        low, high = float(q.min()), float(q.max())
        if low < limits[0] - LIMIT_MARGIN_RAD or high > limits[1] + LIMIT_MARGIN_RAD:
            message = (
                f"the angle reaches [{low:.4g}, {high:.4g}] rad, far outside the URDF's "
                f"limits [{limits[0]:.4g}, {limits[1]:.4g}] rad: is it in degrees? set "
                "units.q: deg"
            )
    return message


def in_degrees(
    problems: list[Problem],
    record: RobotRecord,
    ratios: Mapping[int, float],
    kinds: Sequence[str],
) -> list[Problem]:
    """Two or more joints' angles that :func:`angle_units` takes for degrees, as one problem of
    the record naming them with the range of their spans (seven lines a log, alike but for
    their numbers, buried the one fix), and ``units.dq`` beside ``units.q`` where the recorded
    velocity agrees with the angle's derivative (it is in degrees too: its ratio stays 1).
    Where other joints' angles (revolute or continuous by ``kinds``) look like radians
    (:func:`paramid.plausibility.radian_like`), one problem says the record holds two units
    (:func:`two_angle_units`): ``units.q: deg``, which converts every joint, read those 57x
    too small and passed every check (a continuous joint keeps its own line: it may turn)."""
    degrees = [
        p
        for p in problems
        if p[0] == ANGLE_UNITS and DEGREES_ADVICE in p[2] and EXCHANGE_ADVICE not in p[2]
    ]
    joints = [joint for _, joint, _ in degrees]
    columns = [record.joints.index(joint) for joint in joints]
    turning = [k for k, kind in enumerate(kinds) if kind != "prismatic" and k not in columns]
    like = plausibility.radian_like(record.q[:, turning])
    radian = [record.joints[k] for k, yes in zip(turning, like, strict=True) if yes]
    fixed = [  # not a continuous joint (it may turn), nor a joint outside its URDF limits alone
        p
        for p, k in zip(degrees, columns, strict=True)
        if kinds[k] != "continuous" and p[2].startswith(plausibility.SPAN_MESSAGE)
    ]
    if fixed and radian:
        message = two_angle_units([str(joint) for _, joint, _ in fixed], radian, "rad")
        return [p for p in problems if p not in fixed] + [(ANGLE_UNITS, None, message)]
    if len(degrees) < 2:
        return problems
    spans = np.ptp(record.q[:, columns], axis=0)
    named = "every joint" if len(joints) == len(record.joints) else ", ".join(map(str, joints))
    velocity = bool(ratios) and plausibility.time_error(ratios) == 1.0
    units = "units: {q: deg, dq: deg/s}" if velocity else "units.q: deg"
    why = " (the recorded velocity agrees with the angle's rate: it is in deg/s too)"
    message = (
        f"{named}: the angles span {spans.min():.4g}-{spans.max():.4g} rad, implausible in rad or "
        f"far outside the URDF's limits: are they in degrees? set {units}{why if velocity else ''}"
    )
    return [p for p in problems if p not in degrees] + [(ANGLE_UNITS, None, message)]


def _logged_place(record: RobotRecord, k: int, kind: str, message: str) -> str:
    """Where in the file a glitch of joint ``k``'s angle that ``message`` names (a corrupt
    sample, :func:`paramid.plausibility.corrupt_sample`, or the first of the isolated jumps,
    :func:`paramid.plausibility.angle_jumps`) is: the data rows and the values the file holds
    there, in its unit and as logged (a continuous joint's angle is judged unwrapped, in rad:
    the message's own values may differ from the file's by whole turns).  ``""`` for another
    message or a record that does not say where its samples come from."""
    if record.rows is None or record.q_logged is None or not record.q_columns:
        return ""
    q = record.q[:, k]
    if message.startswith(plausibility.JUMP_MESSAGE):
        fast = np.abs(np.diff(q)) / np.diff(record.time) > plausibility.MAX_SPEED_RAD_S
        first = int(np.flatnonzero(fast)[0])
        samples = [first, first + 1]
    elif (found := plausibility.corrupt_sample(record.time, q, "angle")) is not None:
        samples = [found[1]]
    else:
        return ""
    held = " then ".join(
        f"{float(record.q_logged[i, k])!r} at {data_row(int(record.rows[i]), record.lines)}"
        for i in samples
    )
    turns = (
        "; a continuous joint's angle is judged unwrapped, a step of a turn a wrap"
        if kind == "continuous"
        else ""
    )
    nearest = ", the nearest rows to the resampled grid's" if record.resampled else ""
    return f" (the file's column {record.q_columns[k]!r} holds {held}{nearest}{turns})"


def _prismatic_units(
    time: Array, position: Array, limits: tuple[float, float], judge_speed: bool
) -> str | None:
    """A prismatic joint's position [m] far beyond its URDF travel or implausibly fast
    (the bounds of an angle in rad): logged in mm?"""
    low, high = float(position.min()), float(position.max())
    _, speed, fast = plausibility.span_and_speed(time, position)
    fast &= judge_speed
    limited = limits[0] > -np.pi or limits[1] < np.pi  # joint_ranges: ±π where none is given
    margin = max(0.5 * (limits[1] - limits[0]), 0.01)  # half its travel beyond it, at least 1 cm
    beyond = limited and (low < limits[0] - margin or high > limits[1] + margin)
    if not (beyond or fast):
        return None
    where = (
        f"the position reaches [{low:.4g}, {high:.4g}] m at up to {speed:.4g} m/s against the "
        f"URDF's travel [{limits[0]:.4g}, {limits[1]:.4g}] m"
    )
    if not fast and limits[0] - margin <= -high and -low <= limits[1] + margin:
        return (  # metres counted the other way: negated, the position lies within the travel
            f"{where}: negated it lies within it: does the log count the slide against the "
            "URDF's axis (then negate its position, velocity and force columns: the record's "
            "negate: list), or put its zero at the other end of the travel (then shift the "
            "logged position; the force stays as it is)?"
        )
    return (
        f"{where}: is it in mm? a prismatic joint's position is read in m: read it with the "
        "record's scale: {column: 0.001} (units: {q: deg} converts the revolute joints only); "
        "or is the column another joint's (the order of joints: against the log's)?"
    )


def _rate_ratios(record: RobotRecord) -> dict[int, float]:
    """:func:`paramid.plausibility.rate_ratios` of each joint's angle and recorded velocity
    (none without a velocity)."""
    return {} if record.dq is None else plausibility.rate_ratios(record.time, record.q, record.dq)


def time_units(
    record: RobotRecord,
    ratios: Mapping[int, float] | None = None,
    declared: str = "s",
    units: Mapping[str, str] | None = None,
) -> list[Problem]:
    """The measured velocity against the derivative of the angle
    (:func:`paramid.plausibility.velocity_units`, given the ``declared`` time unit and the
    record's declared ``units``); without a velocity, an implausibly slow sample rate."""
    units = units or {}
    if record.dq is None:  # a dynamics log's rate (plausibility.MIN_RATE_HZ)
        message = plausibility.sample_rate(record.time, declared=declared)
    else:
        message = plausibility.velocity_units(
            _rate_ratios(record) if ratios is None else ratios,
            declared,
            (units.get("q") == "deg", units.get("dq") == "deg/s"),
            ("units.q", "units.dq"),
        )
    return [(TIME_UNITS, None, message)] if message else []


def exchanged_velocities(record: RobotRecord) -> tuple[list[Problem], set[int]]:
    """Pairs of moving joints whose recorded velocities follow the other joint's angle: the
    misfit of velocity to the angle's derivative (both filtered as in :func:`motion`), summed
    over the two joints, shrinks below :data:`VELOCITY_SWAP_RATIO` of what it is as given (or
    with a joint's velocity negated, where that fits better) when the two velocity columns are
    exchanged.  The best pairs first, each joint in one pair at most; with the
    joints they name.  An exchange of angle columns shows alike (the comparison cannot tell
    which of the two was exchanged)."""
    from scipy.signal import savgol_filter

    moving = np.flatnonzero(np.ptp(record.q, axis=0) >= STILL_RAD)
    if record.dq is None or moving.size < 2 or record.time.size < 5:
        return [], set()
    window, step = _derivative_window(record)
    rate = savgol_filter(record.q[:, moving], window, 3, deriv=1, delta=step, axis=0)
    velocity = savgol_filter(record.dq[:, moving], window, 3, axis=0)
    # misfit[a, b]: the recorded velocity of joint moving[b] against the angle rate of moving[a]
    squares = np.einsum("ta,ta->a", rate, rate)[:, None] + np.einsum("tb,tb->b", velocity, velocity)
    products = rate.T @ velocity
    misfit = squares - 2 * products
    # as given, or negated where that fits better (sensor_faults names an inverted sign): a
    # negated velocity follows the angle of a joint that moves against it
    own = np.minimum(np.diagonal(misfit), np.diagonal(squares + 2 * products))
    shares = sorted(
        (_share(float(misfit[a, b] + misfit[b, a]), float(own[a] + own[b])), a, b)
        for a, b in combinations(range(moving.size), 2)
    )
    problems: list[Problem] = []
    named: set[int] = set()
    for share, a, b in shares:
        i, j = int(moving[a]), int(moving[b])
        if share >= VELOCITY_SWAP_RATIO or i in named or j in named:
            continue
        named |= {i, j}
        names = f"{record.joints[i]} and {record.joints[j]}"
        message = (
            f"the recorded velocities of {names} follow each other's angle: exchanged, their "
            f"misfit to the angles' derivatives is x {share:.2g}; the angle or the velocity "
            "columns of the two are exchanged: check columns.q and columns.dq"
        )
        problems.append((COLUMNS_SWAPPED, names, message))
    return problems, named


def odd_rate(ratios: Mapping[int, float], k: int) -> bool:
    """Whether joint ``k``'s angle rate over its recorded velocity (:func:`_rate_ratios`) is
    positive but outside :data:`paramid.plausibility.RATE_RATIO_BAND` while the record's time
    agrees with the velocities (their median in the band): that one column's unit (a slide's
    velocity in mm/s in one log, 67 m/s beneath the speed bound, had its fit miss by 1346 N)."""
    low, high = plausibility.RATE_RATIO_BAND
    ratio = ratios.get(k)
    return (
        ratio is not None
        and ratio > 0
        and not low <= ratio <= high
        and plausibility.time_error(ratios) == 1.0
    )


def sensor_faults(
    record: RobotRecord,
    ratios: Mapping[int, float] | None = None,
    exchanged: Collection[int] = (),
    explained: Collection[str] = (),
    kinds: Sequence[str] | None = None,
) -> list[Problem]:
    """Per joint, a channel no live sensor of a moving arm gives: a torque that never changes
    (a moving arm's torque follows its gravity and inertia, and a sensor shows noise), a
    velocity that never changes while the angle moves, an angle that never changes while the
    velocity reaches :data:`MOVING_RAD_S`, a lone torque spike
    (:func:`paramid.plausibility.torque_spike`), a saturated torque
    (:func:`paramid.plausibility.torque_clipped`), a velocity beyond
    :data:`paramid.plausibility.MAX_SPEED_RAD_S` (a corrupt sample, or mm/s where ``kinds``
    says the joint is prismatic; not for the ``explained`` joints, whose angle or time unit is
    named already), or a velocity that runs
    against the angle's change (unless it is one of the ``exchanged`` joints: another joint's
    velocity, :func:`exchanged_velocities`); and two joints' columns equal in every sample.
    Called on a record in which some joint moves."""
    problems: list[Problem] = []
    ratios = _rate_ratios(record) if ratios is None else ratios
    for k, joint in enumerate(record.joints):
        q, tau = record.q[:, k], record.tau[:, k]
        if np.ptp(tau) == 0.0:
            problems.append(
                (
                    SENSOR_FAULTS,
                    joint,
                    f"its torque is {tau[0]:g} in every sample while the arm moves: a dead "
                    "sensor or the wrong column? check columns.tau",
                )
            )
        elif spike := plausibility.torque_spike(record.time, tau):
            problems.append((SENSOR_FAULTS, joint, spike))
        elif clipped := plausibility.torque_clipped(tau):
            problems.append((SENSOR_FAULTS, joint, clipped))
        if record.dq is None:
            continue
        dq = record.dq[:, k]
        span, speed = float(np.ptp(q)), float(np.percentile(np.abs(dq), 99))
        peak = int(np.argmax(np.abs(dq)))
        if np.ptp(dq) == 0.0 and span >= STILL_RAD:
            message = (
                f"its velocity is {dq[0]:g} in every sample while its angle moves over "
                f"{span:.3g}: a dead channel or the wrong column? check columns.dq"
            )
        elif span == 0.0 and speed >= MOVING_RAD_S:
            message = (
                f"its angle is {q[0]:g} in every sample while its velocity reaches {speed:.3g} "
                "(99th percentile of its magnitude): a frozen encoder or the wrong column? "
                "check columns.q"
            )
        elif abs(dq[peak]) > plausibility.MAX_SPEED_RAD_S and joint not in explained:
            slides = kinds is not None and kinds[k] == "prismatic"
            message = (
                f"its velocity reaches {dq[peak]:.4g} at t = {record.time[peak]:.6g} s (beyond "
                + (
                    f"{plausibility.MAX_SPEED_RAD_S:g} m/s, no slide's speed): a corrupt sample, "
                    "or is it in mm/s? a prismatic joint's velocity must be in m/s"
                    if slides
                    else f"{plausibility.MAX_SPEED_RAD_S:g} rad/s, no geared joint's speed): a "
                    "corrupt sample, or check units.dq"
                )
            )
        elif (
            odd_rate(ratios, k)
            and abs(_correlation(np.gradient(q, record.time), dq)) >= RATE_COHERENCE
            and joint not in explained
            and k not in exchanged
        ):
            slides = kinds is not None and kinds[k] == "prismatic"
            message = (
                f"its recorded velocity is {1 / ratios[k]:.3g} x its angle's rate of change, "
                "while the other joints' agree with theirs: is the velocity column in another "
                + (
                    "unit (mm/s: the record's scale: "
                    f"{{{json.dumps(_column(record.dq_columns, k))}: 0.001}})"
                    if slides
                    else "unit (deg/s while the angle is in rad)"
                )
                + " or another joint's? check columns.dq"
            )
        elif ratios.get(k, 1.0) < -plausibility.RATE_RATIO_BAND[0] and k not in exchanged:
            message = (
                f"its angle changes {ratios[k]:.3g} x as fast as its recorded velocity says "
                "(expected about 1): is the velocity's sign inverted against the angle's (negate "
                "one of the two columns: the record's negate: list), or is one of them another "
                "joint's? check columns.q and columns.dq"
            )
        else:
            continue
        problems.append((SENSOR_FAULTS, joint, message))
    return problems + _duplicated_columns(record)


def _duplicated_columns(record: RobotRecord) -> list[Problem]:
    """Two joints whose angle, velocity or torque columns are equal sample for sample (and not
    constant): one column read twice, no two sensors agree to the last digit."""
    problems: list[Problem] = []
    for field in ("q", "dq", "tau"):
        values = getattr(record, field)
        if values is None:
            continue
        for i, j in combinations(range(values.shape[1]), 2):
            if np.ptp(values[:, i]) > 0 and np.array_equal(values[:, i], values[:, j]):
                pair = f"{record.joints[i]} and {record.joints[j]}"
                message = (
                    f"the {field} columns of {pair} are equal in every sample: one column read "
                    f"twice? check columns.{field}"
                )
                problems.append((SENSOR_FAULTS, pair, message))
    return problems


def stands_still(record: RobotRecord) -> list[Problem]:
    """A record in which no joint moves carries no dynamics."""
    span = np.ptp(record.q, axis=0)
    if np.all(span < STILL_RAD):
        return [
            (
                STANDS_STILL,
                None,
                f"no joint moves more than {STILL_RAD:g} rad (largest {span.max():.3g} rad): the "
                "robot stands still; record an excitation",
            )
        ]
    return []


def torque_peak(record: RobotRecord) -> list[Problem]:
    """A torque whose peak betrays a unit error (:data:`paramid.plausibility.MAX_TORQUE_N_M`,
    or one corrupt sample); named by joint where one joint's column alone does (a record in
    N mm lifts several: its light wrist joints may stay below): ``units.tau`` sets every
    joint's unit, so one column logged in another is converted in the file, not there."""
    found = [
        (joint, said)
        for joint, column in zip(record.joints, record.tau.T, strict=True)
        if (said := plausibility.magnitudes(record.time, column, setting="units.tau"))
    ]
    if len(found) == 1 and len(record.joints) > 1:
        [(joint, said)] = found
        rest = "units.tau sets every joint's unit: convert this column in the file"
        return [(TORQUE_UNITS, joint, f"{said}; {rest}")]
    peak = plausibility.magnitudes(record.time, record.tau, setting="units.tau")
    return [] if peak is None else [(TORQUE_UNITS, None, peak)]


def median_scale(scales: Array) -> float:
    """The median of the judged joints' scales (:meth:`Expected.scales`); NaN where none is
    judged."""
    judged = scales[~np.isnan(scales)]
    return float(np.median(judged)) if judged.size else float("nan")


def torque_units(record: RobotRecord, tau: Array, model: Expected) -> list[Problem]:
    """A torque whose scale against the URDF's torque beyond friction betrays a unit error
    (:data:`TORQUE_SCALE_BAND`): over the joints (their median), then per joint where its
    torque follows the URDF's shape (correlation beyond :data:`SIGN_CORRELATION`: an exchanged
    column does not) at a scale outside the band or away from the joints' median
    (:data:`RELATIVE_SCALE_BAND`): one column logged in another unit than the rest."""
    every = model.scales(tau)
    loaded = np.flatnonzero(~np.isnan(every))
    low, high = TORQUE_SCALE_BAND
    units = "units.tau (N m or N mm; a prismatic joint's force in N)"
    weights: list[Problem] = [
        (
            TORQUE_UNITS,
            record.joints[k],
            f"its force averages {ratio:.3g} x the weight the URDF puts on it "
            f"({model.weight[k]:.4g} N; expected {low:g}-{high:g} x), and its dynamics "
            f"{every[k]:.3g} x the URDF's: is it logged in another unit (kN, mN)? check the "
            "file, and read it with the record's scale: "
            f"{{{json.dumps(_column(record.tau_columns, k))}: factor}}",
        )
        for k, ratio in carried_weights(record, tau, model).items()
        # the dynamics must agree (a counterbalanced axis or a sensor's offset moves the
        # mean force alone: its m q̈ keeps the URDF's scale)
        if not low <= abs(ratio) <= high and np.isfinite(every[k]) and not low <= every[k] <= high
    ]
    if loaded.size == 0:
        return weights
    tau, rigid = model.beyond_friction(tau)[:, loaded], model.rigid_beyond_friction[:, loaded]
    scales = every[loaded]
    scale = median_scale(scales)
    if not low <= scale <= high:
        joints = ", ".join(record.joints[k] for k in loaded)
        current = (
            "; a motor current in A, or a motor-side torque? read it times each joint's torque "
            "constant or gear ratio: the record's scale: {column: factor}"
            if CURRENT_SCALE <= scale < low  # far below: a unit (N m read as N mm: 0.001 x)
            else ""
        )
        message = (
            f"the torque of {joints} is {scale:.3g} x the URDF's (expected {low:g}-{high:g}): "
            f"check {units}{current}"
        )
        return [(TORQUE_UNITS, None, message)]
    problems: list[Problem] = []
    near, far = RELATIVE_SCALE_BAND
    for column, k in enumerate(loaded):
        shaped = abs(_correlation(tau[:, column], rigid[:, column])) >= SIGN_CORRELATION
        alone = not near <= scales[column] / scale <= far
        if shaped and (alone or not low <= scales[column] <= high):
            message = (
                f"its torque follows the URDF's at {scales[column]:.3g} x its size (the "
                f"joints' median {scale:.3g} x; expected {low:g}-{high:g} x, and within "
                f"{near:g}-{far:g} x the median): is its column in another unit than the "
                f"others' (a motor current without its torque constant)? check the file and "
                f"{units}"
            )
            problems.append((TORQUE_UNITS, record.joints[k], message))
    named = {joint for _, joint, _ in problems}
    return problems + [problem for problem in weights if problem[1] not in named]


def record_gains(record: RobotRecord, robot: Robot) -> Array:
    """Per joint, the record's torque against the URDF's as :func:`torque_units` judges it
    (:meth:`Expected.scales` on :data:`SAMPLES` rows); NaN where the rigid body's torque is not
    judged or the torque does not follow its shape closely (correlation beyond friction within
    ±:data:`GAIN_CORRELATION`: a joint barely excited, or whose gravity and dynamics are weak
    against its friction and noise)."""
    rows = np.unique(np.linspace(0, record.time.size - 1, SAMPLES).astype(int))
    tau, model = record.tau[rows], expected(robot, *motion(record, rows))
    rigid, beyond = model.rigid_beyond_friction, model.beyond_friction(tau)
    shaped = np.array(
        [
            abs(_correlation(beyond[:, k], rigid[:, k])) >= GAIN_CORRELATION
            for k in range(tau.shape[1])
        ]
    )
    return np.where(shaped, model.scales(tau), np.nan)


@dataclass(frozen=True)
class Logged:
    """One record of a study for :func:`torque_across_records`: its file, its joints' torque
    columns there and its per-joint gains (:func:`record_gains`)."""

    path: str
    tau_columns: Sequence[str]
    gains: Array


def torque_across_records(
    logged: Mapping[str, Logged],
    joints: Sequence[str],
    skip: Sequence[str] = (),
    spread: float = RECORD_GAIN_SPREAD,
) -> list[Problem]:
    """Per joint judged in two or more of the ``logged`` records (by id), gains against the
    URDF's more than ``spread`` apart (:data:`RECORD_GAIN_SPREAD`): one arm's torque constants,
    gear ratios and links are the same in every record, so one record's torque for that joint
    is in another unit or read with another ``scale:``.  A record without which the others
    agree within ``spread`` is named as the odd one where it is the only such record (else the
    two that either may be, :func:`_odd_records`); two or more joints off the same way in one
    record (or between the same two records) are one problem of the record: its torque unit or
    its columns' scale.  Nothing where ``skip`` holds :data:`paramid.plausibility.RECORDS_SCALE`."""
    if RECORDS_SCALE in skip:
        return []
    # per joint off: each record that may be the odd one, and its gain over the others' median
    off: dict[int, dict[str, float]] = {}
    for k in range(len(joints)):
        judged = {r: float(log.gains[k]) for r, log in logged.items() if np.isfinite(log.gains[k])}
        if len(judged) < 2 or max(judged.values()) <= spread * min(judged.values()):
            continue
        off[k] = {
            r: judged[r] / float(np.median([g for o, g in judged.items() if o != r]))
            for r in _odd_records(judged, spread) or judged
        }
    # a record that may be the odd one on two or more joints, the same way: one problem of it
    ways = [(r, factor > 1) for k in off for r, factor in off[k].items()]
    counted = {
        way: [k for k in off if way[0] in off[k] and (off[k][way[0]] > 1) == way[1]] for way in ways
    }
    problems: list[Problem] = []
    if counted and len(most := max(counted.values(), key=len)) >= 2:
        records = [way[0] for way, ks in counted.items() if ks == most]
        problems.append(
            (RECORDS_SCALE, None, _record_message(logged, joints, most, records, off, spread))
        )
        off = {k: v for k, v in off.items() if k not in most}
    for k, candidates in off.items():
        problems.append(
            (RECORDS_SCALE, joints[k], _gain_message(logged, k, list(candidates), spread))
        )
    return problems


def _record_message(
    logged: Mapping[str, Logged],
    joints: Sequence[str],
    ks: Sequence[int],
    records: Sequence[str],
    off: Mapping[int, Mapping[str, float]],
    spread: float,
) -> str:
    """:func:`torque_across_records`' message for joints ``ks`` off in one record (or in
    either of two: ``records``), ``off`` their gains over the other records' median."""
    named = ", ".join(joints[k] for k in ks)
    where = {r: f"{r} ({logged[r].path}" for r in records}
    columns = {r: ", ".join(repr(_column(logged[r].tau_columns, k)) for k in ks) for r in records}
    if len(records) == 1:
        [odd] = records
        factors = ", ".join(f"{off[k][odd]:.3g}" for k in ks)
        said = (
            f"{where[odd]}): the torque of {named} (columns {columns[odd]}) is {factors} x the "
            "other records' against the URDF's"
        )
        check = "that record's units.tau and its columns' scale: {column: factor}"
    else:
        high, low = sorted(records[:2], key=lambda r: -off[ks[0]][r])
        factors = ", ".join(f"{logged[high].gains[k] / logged[low].gains[k]:.3g}" for k in ks)
        said = (
            f"the torque of {named} is {factors} x as large against the URDF's in "
            f"{where[high]}, columns {columns[high]}) as in {where[low]})"
        )
        check = "both records' units.tau and their columns' scale: {column: factor}"
    return (
        f"{said}, where one arm's records agree within {spread:g} x (the same torque constants, "
        "gear ratios and links): is one record's torque in another unit, or read with other "
        f"torque constants or gear ratios? check {check} (or a payload that differs between the "
        "records)"
    )


def _gain_message(
    logged: Mapping[str, Logged], k: int, records: Sequence[str], spread: float
) -> str:
    """:func:`torque_across_records`' message for joint ``k`` off in the odd record (one of
    ``records``) or between two (both)."""
    judged = {r: float(log.gains[k]) for r, log in logged.items() if np.isfinite(log.gains[k])}
    listed = ", ".join(
        f"{gain:.3g} x in {r} ({logged[r].path}, column {_column(logged[r].tau_columns, k)!r})"
        for r, gain in judged.items()
    )
    apart = max(judged.values()) / min(judged.values())
    if len(records) == 1:
        [odd] = records
        others = float(np.median([g for r, g in judged.items() if r != odd]))
        which = f"is {odd}'s column ({judged[odd] / others:.3g} x the others')"
    else:
        which = "is one record's column"
        records = sorted(records, key=lambda r: -judged[r])
    return (
        f"its torque follows the URDF's at {listed}: {apart:.3g} x apart, where one arm's "
        f"records agree within {spread:g} x (the same torque constants, gear ratios and links): "
        f"{which} in another unit, or read with another torque constant or gear ratio? check "
        f"{' and '.join(records)}: the column's scale: {{column: factor}} (or a payload that "
        "differs between the records)"
    )


def _odd_records(judged: Mapping[str, float], spread: float) -> list[str]:
    """The records whose gain alone keeps the others' from agreeing within ``spread``: one
    where it is the odd one, two or more where the gains cannot tell which (either of two
    records), none where no one record explains the disagreement."""
    return [
        r
        for r in judged
        if max(g for o, g in judged.items() if o != r)
        <= spread * min(g for o, g in judged.items() if o != r)
    ]


def _share(after: float, before: float) -> float:
    """``after`` as a share of ``before``; 1 (no change) when there was nothing to shrink."""
    return after / before if before > 0 else 1.0


@dataclass(frozen=True)
class Explanation:
    """A correction of a record that brings its torque closer to what the URDF or friction lets
    one expect."""

    share: float  # the measure left over every judged joint, as a share of it as given
    strong: bool  # enough to report on its own (its check's threshold)
    correction: str  # what the user would change, for naming it as an alternative
    problems: tuple[Problem, ...]  # what is reported when it is the best explanation
    measure: str = "misfit"  # what `share` is a share of
    joints: tuple[str, ...] = ()  # the joints an exchange exchanges
    plausible_scale: bool = True  # both joints' torques judged and within GAIN_BAND after it
    scale: float = float("nan")  # the judged joints' median torque scale after it (median_scale)
    scales: Array | None = None  # each joint's torque scale after it (Expected.scales)


def friction_signs(
    record: RobotRecord, tau: Array, model: Expected, listed: Sequence[str] = ()
) -> list[Explanation]:
    """Where the URDF's rigid body cannot tell (and the torque beyond it spreads at least
    :data:`MIN_FRICTION_NM`): negating the joints whose torque runs against their own
    velocity (correlation with its sign below -:data:`FRICTION_CORRELATION`), or exchanging
    such a joint's torque column with another's: friction opposes each joint's own motion.
    The share left: the disagreement sum(1 - correlation) over these joints after the
    correction, against before; none when no joint runs against its velocity."""
    velocity = np.gradient(record.q, record.time, axis=0) if record.dq is None else record.dq
    hidden = np.flatnonzero(~_visible(tau, model) & _has_friction(tau, model))
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
            FRICTION_SIGN,
            record.joints[hidden[a]],
            f"the torque correlates {own[a]:.2f} with the sign of the joint's velocity: "
            "friction would make it positive; is its sign inverted? "
            + _negate_advice(record, int(hidden[a]), listed),
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
            "record's `columns:` setting"
        )
        explanations.append(
            Explanation(
                float(np.sum(1 - crossed)) / before,
                True,
                f"the torque columns of {pair} exchanged",
                ((FRICTION_SIGN, pair, message),),
                disagreement,
            )
        )
    return explanations


def _visible(tau: Array, model: Expected) -> NDArray[np.bool_]:
    """Joints where the URDF's rigid body is a visible share of the torque beyond friction."""
    spread = model.rigid_beyond_friction.std(axis=0)
    return (spread >= RIGID_SHARE * model.beyond_friction(tau).std(axis=0)) & (
        spread >= MIN_RIGID_NM
    )


def _has_friction(tau: Array, model: Expected) -> NDArray[np.bool_]:
    """Joints whose torque beyond the URDF's rigid body spreads at least
    :data:`MIN_FRICTION_NM`: there is friction to judge."""
    return (tau - model.rigid).std(axis=0) >= MIN_FRICTION_NM


def inverted_signs(
    record: RobotRecord, tau: Array, model: Expected, listed: Sequence[str] = ()
) -> list[Explanation]:
    """Negating the joints whose torque runs against the URDF's (correlation beyond friction
    below -:data:`SIGN_CORRELATION` where the rigid body is visible) and the slides whose
    force carries their weight the wrong way (:func:`carried_weights` within -:data:`GAIN_BAND`:
    the plainest evidence of a sign, which the offset hides from the correlation); none when
    no joint does."""
    rigid, beyond = model.rigid_beyond_friction, model.beyond_friction(tau)
    correlated = {
        int(k): correlation
        for k in np.flatnonzero(_visible(tau, model))
        if (correlation := _correlation(beyond[:, k], rigid[:, k])) < -SIGN_CORRELATION
    }
    # a slide carrying its weight the wrong way, unless its dynamics say the sign is right
    # (a sensor's offset beyond the weight moves the mean alone)
    weights = {
        k: r
        for k, r in carried_weights(record, tau, model).items()
        if r <= -GAIN_BAND[0] and _correlation(beyond[:, k], rigid[:, k]) < 0
    }
    found = sorted(set(correlated) | set(weights))
    if not found:
        return []
    problems = []
    for k in found:
        evidence = (
            f"its force averages {np.sum(model.balance[:, k] * tau[:, k]):.4g} N where the "
            f"URDF's weight on it is {model.weight[k]:.4g} N, and its dynamics do not follow "
            "the URDF's either"
            if k in weights
            else f"the torque correlates {correlated[k]:.2f} with the URDF's (beyond friction)"
        )
        problems.append(
            (
                TORQUE_SIGN,
                record.joints[k],
                f"{evidence}: is its sign inverted against the URDF's joint axis? "
                + _negate_advice(record, k, listed)
                + (
                    ""  # a position counted the other way leaves the weight as it is
                    if k in weights
                    else " (or, where the log counts the joint's angle against the URDF's axis, "
                    "negate its angle and velocity columns)"
                ),
            )
        )
    names = " and ".join(record.joints[k] for k in found)
    if weights:  # measured by the weights: the offset the misfit fits hides them
        carried = np.sum(model.balance * tau, axis=0)
        before = sum(abs(carried[k] - model.weight[k]) for k in weights)
        after = sum(abs(carried[k] + model.weight[k]) for k in weights)
        measure = "disagreement with the weight"
    else:
        negated = tau.copy()
        negated[:, found] *= -1
        before, after = float(model.misfits(tau).sum()), float(model.misfits(negated).sum())
        measure = "misfit"
    return [
        Explanation(
            _share(after, before), True, f"the torque of {names} negated", tuple(problems), measure
        )
    ]


def _negate_advice(record: RobotRecord, k: int, listed: Sequence[str]) -> str:
    """How to invert joint ``k``'s torque: negate its column, or, where the record's
    ``negate:`` list (``listed``) holds it already, take it out of that list."""
    column = _column(record.tau_columns, k)
    if column in listed:
        return (
            f"its column {column!r} is in the record's negate: list already: remove it from there"
        )
    return f"negate the column (the record's negate: [{column!r}])"


def _column(columns: Sequence[str], k: int) -> str:
    """The file's column of joint ``k`` (``...`` for a record made otherwise)."""
    return columns[k] if k < len(columns) else "..."


def exchanged_columns(
    record: RobotRecord,
    robot: Robot,
    motion_at_rows: tuple[Array, Array, Array],
    tau: Array,
    model: Expected,
) -> list[Explanation]:
    """Exchanging two joints' torque columns (where the rigid body is visible on one of the
    two, or both have friction to judge: each joint's Coulomb step follows its own velocity;
    else nothing tells them apart), angle columns or all columns (the ``joints`` order of
    the config against the logger's).  An exchange is strong where it shrinks the misfit of the
    joints it changes below :data:`SWAP_RATIO` (exchanged angles change every joint's torque;
    exchanged torques two joints'; all columns exchanged either: a wrist joint's rigid body is
    a small share of the whole misfit, so theirs counts where the whole misfit falls too)."""
    visible = _visible(tau, model)
    judged = _has_friction(tau, model)
    given = model.misfits(tau)
    total = float(given.sum())
    explanations = []
    files = {"the torque columns": record.tau_columns, "the angle columns": record.q_columns}
    for i, j in combinations(range(tau.shape[1]), 2):
        names = f"{record.joints[i]} and {record.joints[j]}"
        crossed = tau.copy()
        crossed[:, [i, j]] = tau[:, [j, i]]
        exchanged = []
        for values in motion_at_rows:
            values = values.copy()
            values[:, [i, j]] = values[:, [j, i]]
            exchanged.append(values)
        other = expected(robot, *exchanged)
        angle = _share(float(other.misfits(tau).sum()), total)
        moved = other.misfits(crossed)
        joint = _share(float(moved.sum()), total)
        joint_local = _share(float(moved[[i, j]].sum()), float(given[[i, j]].sum()))
        kinds = [
            (
                "the angle columns",
                angle,
                angle,
                f"misfit x {angle:.2f}",
                # velocities that followed other angles were named before (exchanged_velocities)
                ""
                if record.dq is None
                else " for the angle and the velocity columns alike (each velocity follows its "
                "angle): columns.q and columns.dq",
                other.scales(tau),
            ),
            (
                "all columns (angle, velocity, torque)",
                joint,
                min(joint, joint_local) if joint < 1 else joint,
                f"misfit x {joint:.2f}, of the two joints x {joint_local:.2f}",
                " and the order of the study's joints: against the log's",
                other.scales(crossed),
            ),
        ]
        if visible[i] or visible[j] or (judged[i] and judged[j]):
            misfits = model.misfits(crossed)
            local = _share(float(misfits[[i, j]].sum()), float(given[[i, j]].sum()))
            torque = _share(float(misfits.sum()), total)
            shrink = f"misfit x {torque:.2f}, of the two joints x {local:.2f}"
            kinds.insert(
                0, ("the torque columns", torque, local, shrink, "", model.scales(crossed))
            )
        for what, share, changed, shrink, order, scales in kinds:
            logged = files.get(what, ())
            read = f" (the file's {logged[i]!r} and {logged[j]!r})" if len(logged) > j else ""
            message = (
                f"{what} of {names}{read} fit the URDF's torque better exchanged ({shrink}): check "
                f"the record's `columns:` setting{order} (a short record, or one near rest, "
                "may not tell these joints apart)"
            )
            problem = (COLUMNS_SWAPPED, names, message)
            explanations.append(
                Explanation(
                    share,
                    changed < SWAP_RATIO,
                    f"{what} of {names} exchanged",
                    (problem,),
                    joints=(record.joints[i], record.joints[j]),
                    plausible_scale=_in_band(scales[[i, j]], GAIN_BAND),
                    scale=median_scale(scales),
                    scales=scales,
                )
            )
    return explanations + reversed_columns(record, robot, motion_at_rows, tau, model)


def radians_among_degrees(
    record: RobotRecord,
    robot: Robot,
    motion_at_rows: tuple[Array, Array, Array],
    tau: Array,
    model: Expected,
    units: Mapping[str, str],
) -> list[Explanation]:
    """In a record declared in degrees (``units.q: deg``) whose other joints' angles leave
    ±2π as degrees do, a joint whose angle column stays within ±2π and moves like radians
    (:func:`paramid.plausibility.radian_like`), which :func:`radians_declared_degrees` leaves
    as degrees of a small motion: that column read in radians (its angle, and the derivatives
    taken from it, x 180/π).  The angles alone cannot tell the two apart (a Panda log with its
    last joint in radians ran to a validation RMSE 7x the noise, unwarned); the torque can,
    where the joint's rigid body shows.  Strong where the whole misfit shrinks below
    :data:`SWAP_RATIO`."""
    if units.get("q") != "deg" or record.q_logged is None:
        return []
    turning, leaving, like = _logged_angle_units(record, robot)
    if not leaving.any():
        return []
    total = float(model.misfits(tau).sum())
    # its velocity column is in radians too where the record declares degrees per second
    declared = record.dq is not None and units.get("dq") == "deg/s"
    velocity = " (and its velocity's)" if declared else ""
    explanations = []
    for k in (k for k, radians in zip(turning, like, strict=True) if radians):
        scaled = [values.copy() for values in motion_at_rows]
        for values in scaled:
            values[:, k] *= 180.0 / np.pi
        share = _share(float(expected(robot, *scaled).misfits(tau).sum()), total)
        joint = record.joints[k]
        column = f" ({record.q_columns[k]!r})" if len(record.q_columns) > k else ""
        message = (
            f"the torque fits the URDF's far better with this joint's angle column{column} read "
            f"in radians (misfit x {share:.2f}), while the record declares units.q: deg and "
            f"other joints' angles leave ±2π as degrees do: a record with angle columns in two "
            "units? units.q converts every joint of a record alike: convert that column"
            f"{velocity} to degrees"
        )
        explanations.append(
            Explanation(
                share,
                share < SWAP_RATIO,
                f"{joint}'s angle column read in radians",
                ((ANGLE_UNITS, joint, message),),
            )
        )
    return explanations


def reversed_columns(
    record: RobotRecord,
    robot: Robot,
    motion_at_rows: tuple[Array, Array, Array],
    tau: Array,
    model: Expected,
) -> list[Explanation]:
    """The torque columns, or all columns, of three or more joints in reverse order (a log
    numbering its joints from the tool, or a ``joints:`` list written from it): every joint's
    column is another's, which exchanges of two joints name only in part (a Panda log's
    reversed torque columns were called joints 2 and 6 exchanged in one record, 1 and 7 in
    the other).  Strong where the whole misfit shrinks below :data:`SWAP_RATIO`."""
    n = tau.shape[1]
    if n < 3:  # two joints reversed are two exchanged
        return []
    order = np.arange(n)[::-1]
    total = float(model.misfits(tau).sum())
    other = expected(robot, *(values[:, order] for values in motion_at_rows))
    crossed = tau[:, order]
    logged = record.tau_columns
    first = (
        f" (the file's {logged[0]!r}, read as {record.joints[0]}'s, would be {record.joints[-1]}'s)"
        if len(logged) == n
        else ""
    )
    explanations = []
    for what, judge, order_note in (
        ("the torque columns", model, ""),
        ("all columns (angle, velocity, torque)", other, " and the order of the study's joints"),
    ):
        share = _share(float(judge.misfits(crossed).sum()), total)
        scales = judge.scales(crossed)
        message = (
            f"{what} of all {n} joints fit the URDF's torque better in reverse order (misfit x "
            f"{share:.2f}): is the log's joint order the opposite of the study's{first}? "
            f"check the record's `columns:` setting{order_note}"
        )
        judged = scales[np.isfinite(scales)]
        explanations.append(
            Explanation(
                share,
                share < SWAP_RATIO,
                f"{what} of all joints in reverse order",
                ((COLUMNS_SWAPPED, None, message),),
                joints=tuple(record.joints),
                plausible_scale=judged.size > 0 and _in_band(judged, GAIN_BAND),
                scale=median_scale(scales),
                scales=scales,
            )
        )
    return explanations


def _clears(
    explanation: Explanation, flagged: Collection[str | None], joints: Sequence[str]
) -> bool:
    """Whether the exchange leaves each of the ``flagged`` joints' torque scale plausible, as
    :func:`torque_units` judges it (within :data:`TORQUE_SCALE_BAND` and
    :data:`RELATIVE_SCALE_BAND` of the median): two other joints' columns exchanged put the
    URDF's torque of a third in another pose (the Gen3's joints 1 and 2 listed the other way
    round had joint 3's torque called 7x the joints' median in the quadratic record)."""
    scales = explanation.scales
    if scales is None or not flagged or None in flagged:
        return False
    median = median_scale(scales)
    column = [joints.index(str(joint)) for joint in flagged]
    low, high = TORQUE_SCALE_BAND
    near, far = RELATIVE_SCALE_BAND
    return bool(
        np.all(
            (low <= scales[column])
            & (scales[column] <= high)
            & (near * median <= scales[column])
            & (scales[column] <= far * median)
        )
    )


def _in_band(values: Array, band: tuple[float, float]) -> bool:
    """Whether every value is judged (not NaN) and within ``band``."""
    return bool(np.all((band[0] <= values) & (values <= band[1])))


def strongest(explanations: Sequence[Explanation]) -> Explanation | None:
    """The strong explanation that leaves the smallest share (None without a strong one)."""
    return min((e for e in explanations if e.strong), key=lambda e: e.share, default=None)


def best_explanation(explanations: Sequence[Explanation]) -> list[Problem]:
    """The strong explanation that leaves the smallest share, with up to two others (strong or
    not) that remove at least :data:`CLOSE_REDUCTION` of what it removes named after its last
    problem: an exchange and a negation both turn a torque against the URDF's, and joints that move
    together cannot be told apart."""
    if (best := strongest(explanations)) is None:
        return []
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
    note = f"; nearly as good ({best.measure} x {best.share:.2f} with {these}): "
    *first, (check, joint, message) = best.problems  # said once, after the last of them
    return [*first, (check, joint, message + note + alternatives)]


def radians_declared_degrees(
    record: RobotRecord, robot: Robot, units: Mapping[str, str]
) -> str | None:
    """:func:`paramid.plausibility.radians_as_degrees` of the revolute and continuous joints'
    angles as the file holds them, where ``units`` (the record's, as declared) puts them in
    degrees (a prismatic joint's position stays in m); where some joints' angles leave ±2π, as
    degrees do, and as many or more look like radians, the record's two units
    (:func:`two_angle_units`): fewer are taken for degrees of a motion within ±6.3° of zero (a
    wrist that barely moves in a log in degrees)."""
    if units.get("q") != "deg" or record.q_logged is None:
        return None
    turning, leaving, like = _logged_angle_units(record, robot)
    logged = record.q_logged[:, turning]
    if leaving.any() and like.sum() >= leaving.sum():  # else: degrees, some joints moving little
        named = [record.joints[k] for k in turning]
        degrees = [j for j, yes in zip(named, leaving, strict=True) if yes]
        radian = [j for j, yes in zip(named, like, strict=True) if yes]
        return two_angle_units(degrees, radian, "deg")
    also = "units.dq" if units.get("dq") == "deg/s" else ""
    return plausibility.radians_as_degrees(logged, "units.q", also)


def _logged_angle_units(
    record: RobotRecord, robot: Robot
) -> tuple[list[int], NDArray[np.bool_], NDArray[np.bool_]]:
    """The revolute and continuous joints' columns and, of each as the file holds it
    (``q_logged``), whether it leaves ±2π (as degrees do) and whether it looks like radians
    (:func:`paramid.plausibility.radian_like`)."""
    turning = [k for k, kind in enumerate(joint_kinds(robot)) if kind != "prismatic"]
    logged = np.asarray(record.q_logged)[:, turning]
    return turning, np.abs(logged).max(axis=0) > 2 * np.pi, plausibility.radian_like(logged)


def two_angle_units(degrees: Sequence[str], radians: Sequence[str], declared: str) -> str:
    """A record whose ``degrees`` joints' angles look like degrees (implausible in rad, or
    leaving ±2π) and whose ``radians`` joints' look like radians (within ±2π, moving by
    :data:`paramid.plausibility.RADIANS_SPAN` or more), its angle unit ``declared``
    (``units.q``, which converts every joint of the record alike)."""
    fits = "set units.q: deg" if declared == "rad" else "the record is right"
    way_out = f"or, if every column is in degrees and those move within ±6.3° of zero, {fits}"
    return (
        f"{', '.join(degrees)}: the angle looks like degrees (implausible in rad, or beyond ±2π) "
        f"while {', '.join(radians)} look{'s' if len(radians) == 1 else ''} like radians "
        "(within ±2π, moving by "
        f"{plausibility.RADIANS_SPAN:g} or more): a record with angle columns in two units? "
        "units.q converts every joint of a record alike: convert the odd columns to the others' "
        f"unit ({way_out})"
    )


def record_problems(
    record: RobotRecord,
    robot: Robot,
    skip: Sequence[str] = (),
    time_unit: str = "s",
    units: Mapping[str, str] | None = None,
    negated: Sequence[str] = (),
) -> list[Problem]:
    """:func:`checked_record` with :func:`still_joint_notes`: a problem naming a joint that
    never moves in the record says so (a gripper's channel read as an elbow's was told only
    as 'the torque columns fit the URDF's better exchanged')."""
    checked = checked_record(record, robot, skip, time_unit, units, negated)
    return still_joint_notes(record, checked)


def still_joint_notes(record: RobotRecord, problems: list[Problem]) -> list[Problem]:
    """``problems`` with a note on each that names a joint whose angle and velocity are one
    value in every sample while another joint moves: its column may be another channel's."""
    moving = np.ptp(record.q, axis=0)
    if not problems or moving.max() < STILL_RAD:
        return problems
    notes = {}
    for k, joint in enumerate(record.joints):
        dq = None if record.dq is None else record.dq[:, k]
        if moving[k] == 0.0 and (dq is None or np.ptp(dq) == 0.0):
            speed = "" if dq is None else f", its velocity {dq[0]:g}"
            notes[joint] = (
                f"; {joint} never moves in this record (its angle {record.q[0, k]:g} in every "
                f"sample{speed}) while other joints do: is its column another channel, a "
                "gripper's or an unused one? check columns"
            )
    noted: list[Problem] = []
    for check, where, message in problems:
        named = [] if where is None or check == LOCKED_JOINTS else where.split(" and ")
        noted.append((check, where, message + "".join(notes.get(j, "") for j in named)))
    return noted


def checked_record(
    record: RobotRecord,
    robot: Robot,
    skip: Sequence[str] = (),
    time_unit: str = "s",
    units: Mapping[str, str] | None = None,
    negated: Sequence[str] = (),
) -> list[Problem]:
    """Every failed check not in ``skip``, cheapest first, given the record's declared
    ``units`` and the columns its ``negate:`` list inverted (``negated``: a sign check's
    advice takes them into account); a locked joint the log shows moving or held elsewhere
    comes first (the model's torque is wrong then); radians declared as degrees
    (:func:`radians_declared_degrees`) alone after it (everything after is misled); a record
    that stands still is told so alone (its noise would mislead the unit checks; a long rest
    at a log's ends is dropped before the checks, :func:`paramid.robot.records.log_record`); a
    time unit the recorded velocity shows wrong leaves the angle's speed unjudged (it is off
    by as much);
    the torque checks run only on a record that passes the checks before them (a dead torque
    channel misleads them), the sign and swap checks only at a plausible torque scale (of the
    two, the explanation that leaves the smaller misfit; one joint's odd scale is named as an
    exchange with another joint where exchanging puts both joints' torques within
    :data:`GAIN_BAND` of the URDF's, the other joints' odd scales beside it), the friction
    check only where nothing else was found (a unit, sign or swap error would mislead it)."""
    units = units or {}
    problems = locked_joints(record, robot) if LOCKED_JOINTS not in skip else []
    if RADIANS_AS_DEGREES not in skip and (
        radians := radians_declared_degrees(record, robot, units)
    ):
        return [*problems, (RADIANS_AS_DEGREES, None, radians)]
    if STANDS_STILL not in skip and (still := stands_still(record)):
        return problems + still
    ratios = _rate_ratios(record)  # the recorded velocity against the angle, per joint
    time_error = plausibility.time_error(ratios)
    explained: list[str] = []  # joints whose speed a unit named below explains
    if ANGLE_UNITS not in skip:  # a time unit off makes the speeds off: time_units says so
        judge_speed = time_error == 1.0 or plausibility.degrees_column(time_error) != ""
        angles = angle_units(record, robot, judge_speed, units.get("q", "rad"))
        explained = [joint for _, joint, _ in angles if joint is not None]
        problems = in_degrees(problems + angles, record, ratios, joint_kinds(robot))
    if TIME_UNITS not in skip and (times := time_units(record, ratios, time_unit, units)):
        problems += times
        explained = list(record.joints)  # every joint's speed is off by the time unit's factor
    exchanged, named = ([], set()) if COLUMNS_SWAPPED in skip else exchanged_velocities(record)
    if SENSOR_FAULTS not in skip:
        problems += sensor_faults(record, ratios, named, explained, joint_kinds(robot))
    problems += exchanged
    model_checks = {TORQUE_UNITS, TORQUE_SIGN, FRICTION_SIGN, COLUMNS_SWAPPED}
    if problems or model_checks <= set(skip):
        return problems
    rows = np.unique(np.linspace(0, record.time.size - 1, SAMPLES).astype(int))
    sampled = motion(record, rows)
    tau, model = record.tau[rows], expected(robot, *sampled)
    if TORQUE_UNITS not in skip and (peak := torque_peak(record)):
        return peak
    if TORQUE_UNITS not in skip and (scale := torque_units(record, tau, model)):
        if COLUMNS_SWAPPED in skip:
            return scale
        # an odd scale may be another joint's torque: the `joints:` order against the log's
        # (joints 2 and 3 of a Gen3 exchanged gave joint 3 "10.7 x the URDF's"; a 3-joint arm's
        # first two exchanged, every column, put the record's torque at 0.07 x the URDF's)
        swaps = exchanged_columns(record, robot, sampled, tau, model)
        if scale[0][1] is None:  # the whole record's scale: an exchange that puts it in band
            low, high = EXCHANGE_SCALE_BAND
            fitting = [e for e in swaps if low <= e.scale <= high]
        else:  # an exchange of the flagged joints, or of two others that clears their scales
            flagged = {joint for _, joint, _ in scale}
            fitting = [
                e
                for e in swaps
                if e.plausible_scale
                and (flagged & set(e.joints) or _clears(e, flagged, record.joints))
            ]
        if (best := strongest(fitting)) is None:
            return scale
        found = best_explanation(fitting)
        if scale[0][1] is None:  # say what the scale was, which the exchange explains
            *first, (check, joint, message) = found
            given = median_scale(model.scales(tau))
            note = (
                f" (the torque's scale against the URDF's: {given:.3g} x, "
                f"exchanged {best.scale:.3g} x)"
            )
            found = [*first, (check, joint, message + note)]
        kept = [
            problem
            for problem in scale
            if problem[1] not in (None, *best.joints)
            and not _clears(best, {problem[1]}, record.joints)
        ]
        return found + kept
    explanations = inverted_signs(record, tau, model, negated)
    explanations += exchanged_columns(record, robot, sampled, tau, model)
    explanations += radians_among_degrees(record, robot, sampled, tau, model, units)
    found = best_explanation(explanations)  # over every explanation: a skip hides, not re-ranks
    problems += [problem for problem in found if problem[0] not in skip]
    exchange = any(check == COLUMNS_SWAPPED for check, _, _ in found)
    if FRICTION_SIGN not in skip and not problems and not exchange:  # a swap misleads it
        problems += best_explanation(friction_signs(record, tau, model, negated))
    return problems
