"""Plausibility of a measured record before fitting, and of a fit after it (issue #15).

Each record check returns a message naming what looks wrong, or ``None``; the caller adds the
file and the config field.  A study can skip a check by name (``studies.<name>.checks.skip``)
when the record is known to be unusual (a continuous-rotation joint, say).  Thresholds are
stated as constants with their reasoning; none is tuned to a data set.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.ingest import UNIT_FACTORS

Array = NDArray[np.float64]


class Stamped(Protocol):
    """A record with its sample times [s] (1-DOF or multi-joint)."""

    @property
    def time(self) -> Array: ...


Timed = TypeVar("Timed", bound=Stamped)

# The checks of a 1-DOF study's records, by the names ``checks.skip`` takes: the code that
# honours a skip looks these up, RECORD_CHECKS lists them (the schema's enum, in its order)
TIME_UNITS = "time_units"
RADIANS_AS_DEGREES = "radians_as_degrees"
ANGLE_UNITS = "angle_units"
TORQUE_VARIES = "torque_varies"
MAGNITUDES = "magnitudes"
ENCODER_CLIPPED = "encoder_clipped"
TORQUE_CLIPPED = "torque_clipped"
REST_AT_ENDS = "rest_at_ends"
COLUMNS_SWAPPED = "columns_swapped"
TORQUE_SIGN = "torque_sign"
REFERENCE_SCALE = "reference_scale"
EXCITATION = "excitation"
RECORDS_SCALE = "records_scale"
RECORD_CHECKS = (
    TIME_UNITS,
    RADIANS_AS_DEGREES,
    ANGLE_UNITS,
    TORQUE_VARIES,
    MAGNITUDES,
    ENCODER_CLIPPED,
    TORQUE_CLIPPED,
    REST_AT_ENDS,
    COLUMNS_SWAPPED,
    TORQUE_SIGN,
    REFERENCE_SCALE,
    EXCITATION,
    RECORDS_SCALE,
)

# An arm or leg joint turns less than two revolutions in a record: a larger angle span given
# as rad is almost surely degrees (or encoder counts).
MAX_ANGLE_SPAN_RAD = 4 * np.pi
# 100 rad/s (955 rpm) at the joint is beyond a geared robot joint; degrees read as rad reach
# it at a modest 1.7 rad/s.
MAX_SPEED_RAD_S = 100.0
# A dynamics log is sampled at tens of Hz or more: below this rate its time stamps are in ms
# (or another small unit) read as s.
MIN_RATE_HZ = 5.0
# ... and at most at a drive's current-loop rate (tens of kHz): above this its time stamps are
# in s read as ms (a 1 kHz log then reads as 1 MHz).
MAX_RATE_HZ = 1e5
# Joint torques of robot arms and exoskeletons stay below ~1e4 N m; a larger value is a unit
# or scaling error (N mm, raw counts).
MAX_TORQUE_N_M = 1e4
# Clipped encoder: this share of the samples sits exactly at the record's extreme angle (a
# saturated torque alike: on the shipped records at most 0.09 % of a column's samples share its
# extreme value).
MAX_SHARE_AT_EXTREME = 0.05
# a clipped torque holds its extreme this many times as often as the next value in from it; a
# quantised sensor's smooth peak holds its top level about 1.4 times as often (a sine's dwell
# in its top quantisation step against the next: the Gen3's torques rounded to 0.1 N m had
# 7-10 % of their samples at the top, and were called clipped without this)
CLIP_CONTRAST = 5.0
# a joint whose angle moves less than this over a stretch of the record does not move in it
STILL_RAD = 1e-3
# measured velocity vs the derivative of the angle: a time unit wrong by 1000 (ms as s) or 60
# gives a ratio far outside this band; filtering and jitter keep a right record within it
RATE_RATIO_BAND = (0.2, 5.0)
# a record that stands still at its start or its end for longer than this loses that rest
# (rest_to_drop): rest shows the model only gravity at one pose, leaves time blocks of the
# cross-validation (the cutoff's, the prior weight's, the friction laws') without motion
# (opti_traj_testing1 with 1 s of it at each end chose 10 Hz instead of 20 and predicted
# opti_traj_testing2 at 2.46 N m instead of 2.08; with 5 s 8 Hz, 18 % worse; with 20 s the
# cutoff's CV scores reached 10^6 N m) and misleads the torque checks.  A shorter rest is how a
# motion begins: the shipped records hold at most 0.42 s (the quadratic Gen3 record's start)
MIN_REST_S = 0.5
# rest kept at an end whose rest is dropped: the lead-in that filtering and signals.trim_s use up
REST_KEPT_S = 0.1
# ... in a record whose joints span at least this many times STILL_RAD: in a rocking of a few
# thousandths of a rad (0.4 deg: 7x) rest and motion differ by the threshold alone, and the
# regressor's condition number names what is wrong (rest advice came first and was followed
# by that error once trimmed)
REST_SPAN_FACTOR = 10.0
# Swapped columns: the regression with angle and torque exchanged explains this much more of
# the torque variance (R²) than the one as given.
SWAP_R2_MARGIN = 0.3
# Regressor columns whose coefficient is positive for any physical joint (Eq 6): inertia,
# viscous and Coulomb friction.  An inertia estimated negative by more than SIGN_Z standard
# errors is no noise: the torque runs against the angle (a sign convention inverted).
# A fit of the record and a reference identification of the same joint (a published one, the
# maker's) differ by a common factor this large only through a unit: N cm or N mm declared as
# N m (100, 1000), kN m (1e-3).  Honest identifications of one joint differ by tens of per cent,
# friction by a few times; the magnitude check cannot see a small joint's N mm (0.5 N m is 500).
MAX_REFERENCE_RATIO = 30.0
# Least-squares parameters move by up to cond(H) times the torque's relative error (H with
# unit-norm columns).  A record that moves its joint through its motion scores 8-18 (the
# shipped pendulum records, a 115 deg knee multisine); a knee rocking +-0.15 deg scores 1.4e6,
# +-0.5 deg 1.3e5: at 1e4 a 1 % torque error can move a parameter by 100 %.
MAX_SCALED_COND = 1e4
POSITIVE_COLUMNS = {"qdd": "inertia", "qd": "viscous friction", "sign_qd": "Coulomb friction"}
SIGN_Z = 5.0


def span_and_speed(time: Array, angle: Array) -> tuple[float, float, bool]:
    """An angle's span, its largest speed, and whether either is implausible in rad (or, for a
    prismatic joint, in m)."""
    span = float(np.ptp(angle))
    speed = float(np.max(np.abs(np.diff(angle) / np.diff(time))))
    return span, speed, span > MAX_ANGLE_SPAN_RAD or speed > MAX_SPEED_RAD_S


# A value this many times the spread of the record's 1st-99th percentiles away from its median
# is one corrupt sample, not a unit: a unit scales every sample alike.
OUTLIER_SPREADS = 100.0


def corrupt_sample(
    time: Array, values: Array, name: str, judge_flat: bool = True
) -> tuple[str, int, int] | None:
    """The farthest sample of ``values`` (N,) or (N, n) when it lies more than
    :data:`OUTLIER_SPREADS` spreads of the 1st-99th percentiles from the median (per column):
    its message naming its time, its row and column; ``None`` otherwise.  Without
    ``judge_flat`` a column without spread (one value in 98 % of its samples) is not judged."""
    values = values.reshape(values.shape[0], -1)
    low, middle, high = np.percentile(values, [1, 50, 99], axis=0)
    spread = high - low
    floor = (
        np.maximum(spread, np.finfo(float).tiny)
        if judge_flat
        else np.where(spread > 0, spread, np.inf)
    )
    distance = np.abs(values - middle) / floor
    row, column = np.unravel_index(int(np.argmax(distance)), distance.shape)
    if distance[row, column] <= OUTLIER_SPREADS:
        return None
    message = _corrupt_message(values[row, column], time[row], name, low[column], high[column])
    return message, int(row), int(column)


def _corrupt_message(value: float, at: float, name: str, low: float, high: float) -> str:
    return (
        f"the {name} is {value:.4g} at t = {at:.6g} s, while 98 % of its samples lie in "
        f"[{low:.4g}, {high:.4g}]: a corrupt sample? fix or drop that row of the file"
    )


def torque_spike(time: Array, torque: Array) -> str | None:
    """One torque sample (of a column of ``torque``, (N,) or (N, n)) beyond
    :data:`OUTLIER_SPREADS` spreads of the 1st-99th percentiles from the median that also
    stands apart from both its neighbours (each at least half its distance from the median
    away from it): a corrupt sample, which the low-pass filter would smear into a ringing the
    fit then explains.  A torque that stays far out over several samples (a joint moved briefly
    in a long rest) is motion, not named; so is any sample of a column that holds one value
    in 98 % of its samples (no spread to judge by: a joint at rest, for other checks)."""
    values = torque.reshape(torque.shape[0], -1)
    found = corrupt_sample(time, values, "torque", judge_flat=False)
    if found is None:
        return None
    message, row, column = found
    series = values[:, column]
    gap = abs(series[row] - np.median(series))
    neighbours = series[[k for k in (row - 1, row + 1) if 0 <= k < series.size]]
    return None if np.any(np.abs(neighbours - series[row]) < 0.5 * gap) else message


# A step faster than MAX_SPEED_RAD_S and this many times the median step of its
# JUMP_NEIGHBOURS neighbours on each side is a jump in the log (a dropped or corrupt sample, an
# angle wrapped to ±π, an encoder catching up), not a unit: a unit scales every step alike, so
# a fast step of a smooth motion has fast neighbours.
JUMP_RATIO = 10.0
JUMP_NEIGHBOURS = 5
JUMP_MESSAGE = "the angle jumps by"  # how :func:`angle_jumps` begins its message
#: how :func:`angle_units` begins where an angle is implausible in rad (likely degrees)
SPAN_MESSAGE = "the angle spans"


def angle_jumps(time: Array, angle: Array) -> str | None:
    """Steps of the angle faster than :data:`MAX_SPEED_RAD_S` that are all isolated jumps
    (:data:`JUMP_RATIO` times the median step of their calm neighbours), named with the first
    one's time; ``None`` when there is no such step or when a fast step has only fast steps
    around it, as in a smooth record in degrees."""
    step = np.diff(angle)
    fast = np.flatnonzero(np.abs(step) / np.diff(time) > MAX_SPEED_RAD_S)
    if fast.size == 0:
        return None
    offsets = np.r_[-JUMP_NEIGHBOURS:0, 1 : JUMP_NEIGHBOURS + 1]
    around = np.clip(fast[:, None] + offsets, 0, step.size - 1)
    neighbours = np.abs(step[around])
    neighbours[np.isin(around, fast)] = np.nan  # other fast steps are no neighbourhood
    typical = np.full(fast.size, np.inf)  # a step among fast ones only: not isolated
    calm = ~np.all(np.isnan(neighbours), axis=1)
    typical[calm] = np.nanmedian(neighbours[calm], axis=1)
    if not np.all(np.abs(step[fast]) > JUMP_RATIO * typical):
        return None
    first = int(fast[0])
    full_turns = np.abs(np.abs(step[fast]) - 2 * np.pi) < 0.1 * np.pi
    cause = (
        "the angle wrapped to ±π? log it unwrapped (or unwrap it: numpy.unwrap)"
        if np.all(full_turns)
        else "a dropped or corrupt sample, or an encoder catching up? fix those rows of the file"
    )
    more = f" and {fast.size - 1} more such step(s)" if fast.size > 1 else ""
    return (
        f"{JUMP_MESSAGE} {step[first]:+.4g} rad between t = {time[first]:.6g} and "
        f"{time[first + 1]:.6g} s{more}, while its neighbouring steps are {typical[0]:.3g} rad: "
        f"{cause} (not a unit: a unit scales every step)"
    )


def angle_units(
    time: Array, angle: Array, setting: str = "units.angle", judge_speed: bool = True
) -> str | None:
    """An angle span or speed implausible in rad (the record is likely in degrees, unless one
    corrupt sample makes it so: :func:`corrupt_sample`, or isolated jumps within a plausible
    span: :func:`angle_jumps`); without ``judge_speed`` (a time unit known to be wrong puts the
    speed off by as much) the span alone.  The hint names the config ``setting`` that declares
    the angle's unit."""
    span, speed, _ = span_and_speed(time, angle)
    implausible = span > MAX_ANGLE_SPAN_RAD or (judge_speed and speed > MAX_SPEED_RAD_S)
    if implausible and (corrupt := corrupt_sample(time, angle, "angle")):
        return corrupt[0]
    if implausible and span <= MAX_ANGLE_SPAN_RAD and (jumps := angle_jumps(time, angle)):
        return jumps
    if implausible:
        return (
            f"{SPAN_MESSAGE} {span:.4g} rad and reaches {speed:.4g} rad/s, implausible in rad "
            f"(limits {MAX_ANGLE_SPAN_RAD:.3g} rad, {MAX_SPEED_RAD_S:g} rad/s): is it in degrees? "
            f"set {setting}: deg"
        )
    return None


#: the span [the file's unit] past which angles declared in degrees that never leave ±2π look
#: like radians: half a degree of motion is no excitation, half a radian is one
RADIANS_SPAN = 0.5


def radian_like(logged: ArrayLike) -> NDArray[np.bool_]:
    """Per column of ``logged`` ((N,) or (N, k), angles as the file holds them): never leaving
    ±2π while moving by :data:`RADIANS_SPAN` or more, as radians do (or degrees of a motion
    within ±6.3° of zero)."""
    values = np.asarray(logged, dtype=np.float64)
    values = values.reshape(values.shape[0], -1)
    return (np.abs(values).max(axis=0) <= 2 * np.pi) & (np.ptp(values, axis=0) >= RADIANS_SPAN)


def radians_as_degrees(
    logged: ArrayLike, setting: str = "units.angle", also: str = ""
) -> str | None:
    """Angles declared in degrees whose values in the file (``logged``, (N,) or (N, joints) of
    revolute joints, in the file's unit) never leave ±2π while moving by more than
    :data:`RADIANS_SPAN`: radians read as degrees (the motion 57x too small and slow, which the
    checks after it take for other faults, or pass).  A real log in degrees of a motion within
    ±6.3° of zero looks the same: the message says so, and the check can be skipped.  ``also``
    names another setting to drop with ``setting`` (a velocity declared in deg/s)."""
    values = np.asarray(logged, dtype=np.float64)
    if values.size == 0:
        return None
    largest = float(np.abs(values).max())
    span = float(np.ptp(values.reshape(values.shape[0], -1), axis=0).max())
    if largest > 2 * np.pi or span < RADIANS_SPAN:
        return None
    return (
        f"its angles are declared in degrees ({setting}: deg) but never leave ±2π in the file "
        f"(largest {largest:.3g}, moving by up to {span:.3g}): is it in radians? drop {setting}"
        + (f" and {also}" if also else "")
        + " "
        "(a motion in degrees within ±6.3° of zero looks alike: then skip this check)"
    )


def sample_rate(time: Array, setting: str = "units.time", declared: str = "s") -> str | None:
    """A sample rate no dynamics log has (the time in ms read as s, in ns read as ms, ...); the
    hint names the config ``setting`` that declares the time's unit and the unit, nearest to
    the ``declared`` one, that puts the rate within [MIN_RATE_HZ, MAX_RATE_HZ]."""
    duration = float(time[-1] - time[0])
    rate = (time.size - 1) / duration if duration > 0 else float("inf")
    if MIN_RATE_HZ <= rate <= MAX_RATE_HZ:
        return None
    factors = UNIT_FACTORS["time"]
    nearest = sorted(factors, key=lambda unit: abs(math.log(factors[unit] / factors[declared])))
    fitting = [
        unit
        for unit in nearest
        if unit != declared
        and MIN_RATE_HZ <= rate * factors[declared] / factors[unit] <= MAX_RATE_HZ
    ]
    hint = f"is the time in {fitting[0]}? set {setting}: {fitting[0]}" if fitting else ""
    return f"sampled at {rate:.4g} Hz over {duration:.4g} s: {hint or 'check the time column'}"


def time_unit(apart: float, declared: str, setting: str = "units.time") -> str:
    """Advice for stamps ``apart`` x as far apart as the data say they are (a measured
    velocity against the angle's change): the unit of :data:`UNIT_FACTORS` within 3x of what
    that makes the ``declared`` one, else to check the time column."""
    factors = UNIT_FACTORS["time"]
    wanted = factors[declared] / apart
    unit = min(factors, key=lambda u: abs(math.log(factors[u] / wanted)))
    if unit != declared and abs(math.log(factors[unit] / wanted)) < math.log(3.0):
        return f"is the time in {unit}? set {setting}: {unit}"
    return "check the time column"


def rate_ratios(time: Array, angle: ArrayLike, velocity: ArrayLike) -> dict[int, float]:
    """Per joint (a column of ``angle`` and ``velocity``, (N,) or (N, joints)) that moves by
    :data:`STILL_RAD` with more than 10 samples of recorded speed above 5 % of its peak: the
    median there of the angle's derivative over the recorded velocity (1 for a right record;
    the error of the time unit, 180/π or π/180 for one column in degrees, -1 for a velocity
    whose sign is inverted)."""
    q = np.asarray(angle, dtype=np.float64).reshape(len(time), -1)
    dq = np.asarray(velocity, dtype=np.float64).reshape(len(time), -1)
    derivative = np.asarray(np.gradient(q, time, axis=0))
    moving = np.abs(dq) > 0.05 * np.abs(dq).max(axis=0, initial=0.0)
    moving &= np.ptp(q, axis=0) >= STILL_RAD  # a joint at rest shows only noise
    return {
        k: float(np.median(derivative[moving[:, k], k] / dq[moving[:, k], k]))
        for k in range(q.shape[1])
        if moving[:, k].sum() > 10
    }


def time_error(ratios: Mapping[int, float]) -> float:
    """The factor a record's time is off by, as its recorded velocity tells (the median over
    the joints of their :func:`rate_ratios`, regardless of sign) where it lies outside
    :data:`RATE_RATIO_BAND`; 1 without a velocity or inside the band."""
    if not ratios:
        return 1.0
    ratio = float(np.median(np.abs(list(ratios.values()))))
    low, high = RATE_RATIO_BAND
    return 1.0 if low <= ratio <= high else ratio


def degrees_column(ratio: float) -> str:
    """Which column a ratio of angle rate to recorded velocity within 10 % of 180/π
    (``"angle"``) or π/180 (``"velocity"``) says is in degrees while the other is in radians;
    ``""`` otherwise."""
    for column, factor in (("angle", 180 / np.pi), ("velocity", np.pi / 180)):
        if abs(np.log(ratio / factor)) < np.log(1.1):
            return column
    return ""


def velocity_units(
    ratios: Mapping[int, float],
    declared: str = "s",
    degrees: tuple[bool, bool] = (False, False),
    settings: tuple[str, str] = ("units.angle", "units.velocity"),
) -> str | None:
    """The recorded velocity against the angle's derivative (:func:`time_error` of the
    :func:`rate_ratios`), or None where they agree: the advice names the unit that explains
    it, given the ``declared`` time unit and whether the angle and the velocity are declared in
    degrees (``degrees``; their config ``settings``): with one declared in degrees, either the
    other is in degrees too or the first is in radians after all."""
    ratio = time_error(ratios)
    if ratio == 1.0:
        return None
    angle, velocity = settings
    column = degrees_column(ratio)
    if column == "velocity" and degrees[0]:
        hint = (
            f"the angle is read in degrees ({angle}: deg) and the velocity in rad/s: if the "
            f"velocity is in deg/s set {velocity}: deg/s; if the angle is in rad, drop {angle}"
        )
    elif column == "velocity":
        hint = f"is the velocity in deg/s? set {velocity}: deg/s"
    elif column == "angle" and degrees[1]:
        hint = (
            f"the angle is read in rad and the velocity in deg/s ({velocity}: deg/s): if the "
            f"angle is in degrees set {angle}: deg; if the velocity is in rad/s, drop {velocity}"
        )
    elif column == "angle":
        hint = f"is the angle in degrees and the velocity in rad/s? set {angle}: deg"
    else:
        apart = ratio < RATE_RATIO_BAND[0]
        off, how = (1 / ratio, "far apart") if apart else (ratio, "close together")
        hint = (
            f"{time_unit(1 / ratio, declared)} (its stamps lie {off:.3g} x too {how} for the "
            "velocity)"
        )
    return (
        f"the angle changes {ratio:.3g} x as fast as the recorded velocity says (expected "
        f"about 1): {hint}"
    )


def torque_varies(torque: Array) -> str | None:
    """A constant (or all-zero) torque carries no information about the parameters."""
    if float(np.ptp(torque)) == 0.0:
        return f"the torque is constant ({torque[0]:g} N m): nothing to identify"
    return None


def magnitudes(time: Array, torque: Array, setting: str = "units.torque") -> str | None:
    """Absurd magnitudes: a unit or scaling error (or one corrupt sample:
    :func:`corrupt_sample`); the hint names the config ``setting`` that declares the torque's
    unit."""
    peak = float(np.max(np.abs(torque)))
    if peak > MAX_TORQUE_N_M and (corrupt := corrupt_sample(time, torque, "torque")):
        return corrupt[0]
    if peak > MAX_TORQUE_N_M:
        return (
            f"|torque| reaches {peak:.4g} N m (> {MAX_TORQUE_N_M:g}): check {setting} (N m or N mm)"
        )
    return None


def reference_scale(
    fitted: Mapping[str, float],
    reference: Mapping[str, float],
    setting: str = "units.torque",
    against: str = "the reference's",
    subject: str = "the record's",
) -> str | None:
    """A least-squares fit whose parameters are, in the median, more than
    :data:`MAX_REFERENCE_RATIO` times the reference's (or less than its inverse): the torque's
    unit is not the declared one.  Parameters the reference leaves out or sets to 0 are not
    compared; a negative median is a sign error, the sign check's to name.  ``subject`` and
    ``against`` name the fit and the reference in the message (two records' fits, say)."""
    ratios = [fitted[name] / value for name, value in reference.items() if value and name in fitted]
    if not ratios:
        return None
    scale = float(np.median(ratios))
    if scale > MAX_REFERENCE_RATIO or 0 < scale < 1 / MAX_REFERENCE_RATIO:
        each = ", ".join(f"{name} {fitted[name]:.4g}" for name in reference if name in fitted)
        return (
            f"{subject} least-squares parameters ({each}) are {scale:.3g} times {against} in "
            f"the median (beyond 1/{MAX_REFERENCE_RATIO:g}..{MAX_REFERENCE_RATIO:g}): check "
            f"{setting} (N m or N mm)"
        )
    return None


def opposite_sign(
    fitted: Mapping[str, float],
    reference: Mapping[str, float],
    determined: Collection[str],
    subject: str,
    against: str,
) -> str | None:
    """Two least-squares fits of one joint whose ``determined`` parameters (beyond
    :data:`SIGN_Z` standard errors in both: a loose one takes either sign) are, in the median,
    of opposite sign: one record's torque (or angle) sign is inverted against the other's,
    which a fit of either alone may not show (a narrow motion leaves its inertia's sign within
    its errors).  Fewer than two such parameters tell nothing."""
    names = [name for name in reference if name in determined and name in fitted]
    if len(names) < 2:
        return None
    scale = float(np.median([fitted[name] / reference[name] for name in names]))
    if scale >= 0:
        return None
    each = ", ".join(f"{name} {fitted[name]:.4g} against {reference[name]:.4g}" for name in names)
    return (
        f"{subject} least-squares parameters are {scale:.3g} times {against} in the median of "
        f"those both records determine ({each}): one record's torque or angle has its sign "
        "inverted against the other's; negate the column in the record that is wrong "
        "(negate: [<column>])"
    )


def excitation(H: Array, keys: Sequence[str], angle: Array) -> str | None:
    """A regressor too ill-conditioned to identify its parameters (cond of its unit-norm
    columns above :data:`MAX_SCALED_COND`): a joint that barely moves, or a motion whose
    columns nearly coincide; the message names the weakest combination's main columns."""
    scaled = H / np.linalg.norm(H, axis=0)
    _, s, vt = np.linalg.svd(scaled, full_matrices=False)
    cond = float(s[0] / s[-1]) if s[-1] > 0 else float("inf")
    if cond <= MAX_SCALED_COND:
        return None
    weak = vt[-1] ** 2
    names = [keys[i] for i in np.argsort(weak)[::-1] if weak[i] > 0.1]
    return (
        f"the regressor's condition number (columns scaled to unit norm) is {cond:.3g} "
        f"(> {MAX_SCALED_COND:g}): the record does not excite the parameters, its weakest "
        f"combination is mostly of {names}; the angle spans {np.rad2deg(np.ptp(angle)):.3g} deg. "
        "Record a motion that moves the joint through its range"
    )


def _at_extreme(values: Array) -> tuple[str, float, float] | None:
    """(``maximum`` or ``minimum``, the value, its share of the samples) of the first extreme
    that more than :data:`MAX_SHARE_AT_EXTREME` of a varying column's samples sit exactly at."""
    if float(np.ptp(values)) == 0.0:
        return None
    for name, extreme in (("maximum", values.max()), ("minimum", values.min())):
        share = float(np.mean(values == extreme))
        if share > MAX_SHARE_AT_EXTREME:
            return name, float(extreme), share
    return None


def encoder_clipped(angle: Array) -> str | None:
    """Long flat runs at the extremes: a saturated or clipped encoder (a constant angle is left
    to the rank check, which names the columns it leaves unexcited)."""
    if (found := _at_extreme(angle)) is None:
        return None
    name, extreme, share = found
    return (
        f"{100 * share:.1f} % of the samples sit exactly at the {name} angle {extreme:.6g} rad: "
        "a saturated or clipped encoder?"
    )


def torque_clipped(torque: Array) -> str | None:
    """A torque column flat at one of its extremes for more than :data:`MAX_SHARE_AT_EXTREME` of
    its samples and :data:`CLIP_CONTRAST` times the share of the next value in from it: a
    saturated drive or a clipped sensor (the fit would take the flat stretch for the joint's
    torque).  A column whose median sits at that extreme (a joint at rest reading one value,
    a sensor's dead band) is not judged."""
    found = _at_extreme(torque)
    if found is None or found[1] == float(np.median(torque)):
        return None
    name, extreme, share = found
    inside = torque[torque != extreme]
    nearest = inside.max() if name == "maximum" else inside.min()
    if share < CLIP_CONTRAST * float(np.mean(torque == nearest)):
        return None  # the next level as full: a quantised sensor's flat peak, not a clip
    return (
        f"{100 * share:.1f} % of its torque samples sit exactly at its {name} {extreme:.6g} N m: "
        "a saturated drive or a clipped sensor? leave those stretches out of the record"
    )


def rest_at_ends(time: Array, angles: Array) -> tuple[float, float]:
    """Seconds at the start and at the end of a record in which no joint (columns of
    ``angles``; one column for a 1-DOF record) moves more than :data:`STILL_RAD` from its first
    or its last angle."""
    angles = angles.reshape(time.size, -1)
    moved_from_start = np.flatnonzero(np.abs(angles - angles[0]).max(axis=1) > STILL_RAD)
    moved_before_end = np.flatnonzero(np.abs(angles - angles[-1]).max(axis=1) > STILL_RAD)
    duration = float(time[-1] - time[0])
    lead = float(time[moved_from_start[0]] - time[0]) if moved_from_start.size else duration
    trail = float(time[-1] - time[moved_before_end[-1]]) if moved_before_end.size else duration
    return lead, trail


def rest_to_drop(time: Array, angles: Array) -> tuple[float, float]:
    """Seconds to drop at the start and at the end of a record that rests there for longer
    than :data:`MIN_REST_S` (:func:`rest_at_ends`), keeping :data:`REST_KEPT_S` of each rest.
    (0, 0) for a record that never moves, or whose largest span stays within
    :data:`REST_SPAN_FACTOR` times :data:`STILL_RAD` (rest cannot be told from its motion): the
    checks that name those (stands still, rank, the regressor's condition number) see it whole."""
    spans = np.ptp(angles.reshape(time.size, -1), axis=0)
    lead, trail = rest_at_ends(time, angles)
    if spans.max() < REST_SPAN_FACTOR * STILL_RAD or max(lead, trail) >= time[-1] - time[0]:
        return 0.0, 0.0
    drop = [rest - REST_KEPT_S if rest > MIN_REST_S else 0.0 for rest in (lead, trail)]
    return drop[0], drop[1]


def dropping_rest(
    read: Callable[[tuple[float, float]], Timed], angles: Callable[[Timed], Array], drop: bool
) -> tuple[Timed, tuple[float, float]]:
    """``read(more_trims_s)`` of a record (a file with its configured trims, each end's
    trim raised by the given seconds) and, with ``drop``, read again without the rest at
    its ends (:func:`rest_to_drop` of its ``time`` and ``angles(record)``): the record and the
    seconds of rest dropped at its start and end."""
    record = read((0.0, 0.0))
    rest = rest_to_drop(record.time, angles(record)) if drop else (0.0, 0.0)
    return (read(rest) if any(rest) else record), rest


def rest_warning(name: str, rest: tuple[float, float]) -> str:
    """What :func:`dropping_rest` dropped of record ``name``'s rest at its ends."""
    start, end = (round(seconds, 3) for seconds in rest)
    ends = dropped_ends(start, end, "{} s at its start", "{} s at its end")
    return (
        f"{name}: at rest (no joint moving {STILL_RAD:g} rad or m) for longer than "
        f"{MIN_REST_S:g} s at its ends: dropped {ends} (kept {REST_KEPT_S:g} s of each rest: "
        "rest shows the model only gravity at one pose, "
        "and a cross-validation block without motion misleads the cutoff and the fits' "
        f"choices); to keep it, checks.skip: [{REST_AT_ENDS}]"
    )


def dropped_ends(start_s: float, end_s: float, start: str, end: str) -> str:
    """``start`` and ``end`` (templates of one ``{}``, the seconds) joined for the non-zero
    seconds of the two ends."""
    parts = [form.format(f"{v:g}") for form, v in ((start, start_s), (end, end_s)) if v > 0]
    return " and ".join(parts)


def columns_swapped(r2_as_given: float, r2_swapped: float) -> str | None:
    """Angle and torque look exchanged: the model explains the data better swapped."""
    if r2_swapped > max(0.5, r2_as_given + SWAP_R2_MARGIN):
        return (
            f"the model explains R² = {r2_as_given:.3f} of the torque as given but "
            f"{r2_swapped:.3f} with angle and torque exchanged: are the columns swapped? "
            "check the record's `columns:` setting"
        )
    return None


def inverted_sign(H: Array, y: Array, keys: Sequence[str]) -> str | None:
    """The least-squares fit's inertia (column ``qdd``) negative by more than :data:`SIGN_Z`
    standard errors (s² (HᵀH)⁻¹): the torque's sign is inverted against the angle's; the
    message lists every :data:`POSITIVE_COLUMNS` coefficient that came out negative."""
    if "qdd" not in keys or H.shape[0] <= H.shape[1]:
        return None
    x, se = least_squares_errors(H, y)
    z = {k: x[i] / se[i] for i, k in enumerate(keys) if k in POSITIVE_COLUMNS and se[i] > 0}
    if z.get("qdd", 0.0) >= -SIGN_Z:
        return None
    negative = ", ".join(
        f"{POSITIVE_COLUMNS[k]} ({k}) {x[list(keys).index(k)]:.4g} at {v:.1f} standard errors"
        for k, v in z.items()
        if v < 0
    )
    return (
        f"the least-squares fit gives negative values to what is positive for any joint: "
        f"{negative}. Is the torque's sign inverted against the angle's (a positive torque "
        "accelerates the angle positively)? Negate the torque column, or the angle's (the "
        "record's negate: [<column>] reads it so)"
    )


def fit_verdict(
    H: Array,
    y: Array,
    keys: Sequence[str],
    quality: FitQuality,
    min_explained: float,
    skip_sign: bool,
) -> tuple[str | None, str | None]:
    """(why a deterministic fit stops the study, a warning to log): an inertia negative by many
    standard errors (:func:`inverted_sign`) stops it, or is only a warning where the study
    skips the ``torque_sign`` check (the record check's advice, so the fit honours it too);
    then a fit that explains too little (:meth:`FitQuality.problem`) stops it."""
    sign = inverted_sign(H, y, keys)
    if sign and skip_sign:
        warning = f"{sign} (checks.skip has {TORQUE_SIGN}: fitted as recorded)"
        return quality.problem(min_explained), warning
    return sign or quality.problem(min_explained), None


# A fit predicting the other record this many times worse than it fits its own says nothing
# about it: the two records disagree in units, sign or columns (a model mismatch or an
# extrapolation costs a few times: the shipped pendulum's validation is 7x its training).
MAX_VALIDATION_RATIO = 20.0
# ... and by more than this [N m], below any torque sensor's resolution (a noiseless twin fits
# both records to rounding: 1e-15 against 1e-13 is no disagreement)
MIN_VALIDATION_GAP_N_M = 1e-3


def validation_gap(train_rmse: float, val_rmse: float) -> str | None:
    """Why the validation record looks unlike the calibration record, or None."""
    far = val_rmse > MAX_VALIDATION_RATIO * train_rmse and val_rmse > MIN_VALIDATION_GAP_N_M
    if not far or not train_rmse > 0:
        return None
    return (
        f"the fit predicts the validation record at {val_rmse:.4g} N m, "
        f"{val_rmse / train_rmse:.3g} x its {train_rmse:.4g} N m on the calibration record: do "
        "the two records differ in units, torque sign or columns?"
    )


# A validation record judges prediction only over a back-and-forth of the joint: with fewer
# velocity reversals (counted where |q̇| exceeds this share of its peak) it is a stretch of
# one-way motion, whose RMSE says little about a different trajectory
MIN_VALIDATION_REVERSALS = 2
REVERSAL_SPEED_SHARE = 0.05


def velocity_reversals(velocity: Array) -> int:
    """Sign changes of q̇ where |q̇| > :data:`REVERSAL_SPEED_SHARE` of its peak (a rest or
    the noise around zero speed counts no reversal; non-finite samples count nothing)."""
    velocity = np.asarray(velocity, dtype=np.float64)
    velocity = velocity[np.isfinite(velocity)]
    peak = float(np.max(np.abs(velocity), initial=0.0))
    signs = np.sign(velocity[np.abs(velocity) > REVERSAL_SPEED_SHARE * peak])
    return int(np.count_nonzero(np.diff(signs)))


def validation_coverage(velocity: Array, duration_s: float) -> str | None:
    """Why the validation record judges too little motion (fewer than
    :data:`MIN_VALIDATION_REVERSALS` velocity reversals), or None."""
    reversals = velocity_reversals(velocity)
    if reversals >= MIN_VALIDATION_REVERSALS:
        return None
    return (
        f"the validation samples kept (after the filter's edge trim) span {duration_s:.3g} s "
        f"with {reversals} velocity "
        "reversal(s), less than one back-and-forth of the joint: its RMSE says little about "
        "predicting other motion (record a longer, different trajectory)"
    )


# A least-squares parameter whose 95 % interval moves its column's torque (the interval's
# half-width times the column's RMS) by more than this share of the fitted (filtered) torque's
# RMS is left loose by the calibration record.  Measured (95 % intervals): the shipped hip and
# pendulum calibration records 0.05 % and 3.7 % at most, a 40 s knee multisine 0.47 %, its
# first 1.5 s (one swing, 17 deg) 36-73 %, where least squares put the offset at -2.9 N m
# for 0.25
MAX_LOOSE_TORQUE_SHARE = 0.10
LOOSE_SHARE_SHOWN = 100.0  # beyond 10,000 % an interval says only that the column is empty
Z_95 = 1.959963984540054  # two-sided 95 % quantile of the normal distribution


def least_squares_errors(H: Array, y: Array) -> tuple[Array, Array]:
    """Least-squares parameters (Eq 4) and their standard errors under white residuals:
    sigma sqrt((HᵀH)⁻¹)_ii, sigma² the residual's variance on n − p degrees of freedom, (HᵀH)⁻¹
    from the SVD of H (a direction H leaves empty: an infinite error)."""
    samples, count = H.shape
    x, *_ = np.linalg.lstsq(H, y, rcond=None)
    residual = y - H @ x
    sigma = math.sqrt(float(residual @ residual) / max(samples - count, 1))
    _, s, vt = np.linalg.svd(H, full_matrices=False)
    with np.errstate(divide="ignore", invalid="ignore"):
        se = sigma * np.sqrt(np.sum((vt.T / s) ** 2, axis=1))
    return np.asarray(x, dtype=np.float64), np.asarray(se, dtype=np.float64)


def intervals_95(H: Array, torque: Array) -> tuple[Array, Array]:
    """Least-squares parameters and the half-widths of their 95 % intervals, Z_95 standard
    errors (:func:`least_squares_errors`)."""
    x, se = least_squares_errors(H, torque)
    return x, Z_95 * se


def loose_parameters(
    H: Array,
    torque: Array,
    names: Sequence[str],
    units: Mapping[str, str],
    velocity: Array,
    angle: Array,
) -> str | None:
    """Parameters a calibration record identifies only loosely (Eq 4's least squares): those
    whose 95 % interval (white-residual standard errors, Z_95 sigma sqrt((HᵀH)⁻¹)_ii; a lower
    bound where the filtered residual is coloured) times their column's RMS exceeds
    :data:`MAX_LOOSE_TORQUE_SHARE` of the torque's RMS; None where every one is pinned."""
    H, torque = np.asarray(H, dtype=np.float64), np.asarray(torque, dtype=np.float64)
    x, half_width = intervals_95(H, torque)
    shares = half_width * np.sqrt(np.mean(H**2, axis=0)) / math.sqrt(float(np.mean(torque**2)))
    shares = np.where(np.isfinite(shares), shares, np.inf)  # a column the record leaves empty
    loose = [i for i in np.argsort(shares)[::-1] if shares[i] > MAX_LOOSE_TORQUE_SHARE]
    if not loose:
        return None
    each = ", ".join(
        f"{names[i]} {x[i]:.4g} ± {half_width[i]:.2g} {units[names[i]]} "
        f"(±{100 * shares[i]:.3g} % of the torque)"
        if shares[i] < LOOSE_SHARE_SHOWN
        else f"{names[i]} (not identified: the record barely excites it)"
        for i in loose
    )
    return (
        f"the calibration record leaves {each} loose (95 % intervals, each moving its share of "
        f"the torque by more than {100 * MAX_LOOSE_TORQUE_SHARE:g} % of the fitted (filtered) "
        "torque's RMS): every method's estimate of them rests on little information. A longer "
        "record with more back-and-forth motion over a wider angle pins them (this one has "
        f"{velocity_reversals(velocity)} velocity reversal(s) over "
        f"{np.rad2deg(np.ptp(angle)):.3g} deg)"
    )


def explained_variance(H: Array, y: Array, x: Array) -> float:
    """R² = 1 − ‖y − Hx‖² / ‖y − ȳ‖² of a fit (Eq 4)."""
    residual = y - H @ x
    total = float(np.sum((y - y.mean()) ** 2))
    return 1.0 - float(residual @ residual) / total if total > 0 else float("nan")


def record_problems(
    time: Array,
    angle: Array,
    torque: Array,
    skip: Sequence[str],
    r2: Callable[[Array, Array], float],
    time_unit: str = "s",
    angle_unit: str = "rad",
) -> list[tuple[str, str]]:
    """(check, message) of every failed record check not in ``skip``; ``r2(angle, torque)`` is
    the R² of the study's least-squares fit on a record with these two columns; ``time_unit``
    and ``angle_unit`` the time's and the angle's declared units (for the advice on a wrong
    one; an angle declared in degrees is judged in the file's values by
    :func:`radians_as_degrees`, first).  The swap check
    runs on a record that passes the others (a unit error would mislead it) and on one whose
    angle looks like degrees or whose torque is far too large: a torque read as the angle looks
    like both, and an exchange that fits far better is then the one problem named."""
    checks: dict[str, Callable[[], str | None]] = {
        RADIANS_AS_DEGREES: lambda: (
            radians_as_degrees(np.rad2deg(angle)) if angle_unit == "deg" else None
        ),
        TIME_UNITS: lambda: sample_rate(time, declared=time_unit),
        ANGLE_UNITS: lambda: angle_units(time, angle),
        TORQUE_VARIES: lambda: torque_varies(torque),
        MAGNITUDES: lambda: magnitudes(time, torque) or torque_spike(time, torque),
        ENCODER_CLIPPED: lambda: encoder_clipped(angle),
        TORQUE_CLIPPED: lambda: torque_clipped(torque),
    }
    found = [(name, check()) for name, check in checks.items() if name not in skip]
    problems = [(name, message) for name, message in found if message]
    exchange = {ANGLE_UNITS, MAGNITUDES}
    if COLUMNS_SWAPPED not in skip and {name for name, _ in problems} <= exchange:
        message = columns_swapped(r2(angle, torque), r2(torque, angle))
        if message:
            return [(COLUMNS_SWAPPED, message)]
    return problems


@dataclass(frozen=True)
class FitQuality:
    """How well a fit explains the torque, and its isolated spikes (|r| > k MAD)."""

    explained_variance: float
    rmse: float
    spikes: int
    spike_threshold_n_m: float
    spikes_at_reversals: int = 0  # of ``spikes``, where the velocity changes sign
    rmse_without_spikes: float = float("nan")  # the RMSE of the other samples

    def problem(self, min_explained: float) -> str | None:
        """Why the fit fails the study, with likely causes; ``None`` when it is usable."""
        if not np.isfinite(self.rmse):
            return "the fit's RMSE is not finite"
        if self.explained_variance < min_explained:
            return (
                f"the fit explains {100 * self.explained_variance:.1f} % of the torque variance "
                f"(< {100 * min_explained:g} %, fit.min_explained_variance). Likely causes: the "
                "regressor misses a term (offset, gravity column, friction), angle units or sign "
                "(deg read as rad, q = 0 not where the model puts it), torque columns swapped or "
                "scaled, a cutoff that removes the motion, or a record without excitation"
            )
        return None


def validation_spikes(quality: FitQuality) -> str:
    """What the validation record's isolated spikes (``quality`` of the fit on it) make of its
    RMSE: how many, beyond which threshold, how many at velocity reversals, and the RMSE
    without them (a few samples can carry most of a headline validation number)."""
    return (
        f"{quality.spikes} isolated spike(s) in the validation residual (|r| > "
        f"{quality.spike_threshold_n_m:.4g} N m, {quality.spikes_at_reversals} of them at "
        f"velocity reversals): the validation RMSE {quality.rmse:.4g} N m is "
        f"{quality.rmse_without_spikes:.4g} without them"
    )


# A spike within this many samples of a velocity sign change sits where the Coulomb term's
# sgn(q̇) steps: the model's discontinuity (stiction, a smooth transition it lacks), not the sensor.
REVERSAL_SAMPLES = 5


def fit_quality(
    H: Array, y: Array, x: Array, spike_k: float, velocity: Array | None = None
) -> FitQuality:
    """R², RMSE and the count of residuals beyond ``spike_k`` scaled MADs (1.4826 MAD = σ for
    Gaussian noise) of a fit on a record, and the RMSE of the other samples; with the
    ``velocity``, how many of them lie within :data:`REVERSAL_SAMPLES` of a sign change of
    it."""
    residual = y - H @ x
    mad = 1.4826 * float(np.median(np.abs(residual - np.median(residual))))
    threshold = spike_k * mad
    spiky = np.abs(residual - np.median(residual)) > threshold
    spiky &= mad > 0  # no spread: no spike
    at_reversals = 0
    if velocity is not None and spiky.any():
        changes = np.flatnonzero(np.diff(np.sign(velocity)) != 0)
        if changes.size:
            spikes = np.flatnonzero(spiky)
            nearest = np.searchsorted(changes, spikes).clip(1, changes.size)
            gap = np.minimum(
                np.abs(spikes - changes[nearest - 1]),
                np.abs(spikes - changes[nearest.clip(max=changes.size - 1)]),
            )
            at_reversals = int(np.sum(gap <= REVERSAL_SAMPLES))
    return FitQuality(
        explained_variance(H, y, x),
        float(np.sqrt(np.mean(residual**2))),
        int(spiky.sum()),
        threshold,
        at_reversals,
        float(np.sqrt(np.mean(residual[~spiky] ** 2))) if (~spiky).any() else float("nan"),
    )
