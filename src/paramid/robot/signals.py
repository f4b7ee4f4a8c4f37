"""The signal chain (hip paper §4.1) on multi-joint records, all joints at once.

Per record: zero-phase Butterworth low-pass of every joint's angle (and of its velocity when
measured), q̇ from the filtered velocity or by central differences of the filtered angle, q̈
by central differences of q̇ (of the filtered measured velocity when there is one: one
differentiation instead of two), ``trim_s`` (at the study's cutoff: or the filter's settling
time, whichever is longer) dropped at both ends and optional decimation by an integer factor.
The torque is never filtered: fits and scores use it as recorded, at the retained samples.
The joints run along a leading axis of :mod:`paramid.signals`, which treats them as
independent records.

``cutoff_hz: auto`` (:func:`choose_cutoff`) scores each candidate cutoff by blocked
cross-validation of the least-squares fit on the calibration records and takes the lowest
candidate within one standard error of the best that still passes the band the motion occupies.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paramid import cutoff, signals
from paramid.errors import UserError
from paramid.robot.compression import Compressed, compress_records, joint_rmse
from paramid.robot.records import RobotRecord

Array = NDArray[np.float64]
BAND_FRACTION = 0.99  # the share of the velocity's power the motion band holds
BAND_FACTOR = 2.0  # the lowest cutoff, in motion bands
#: the fewest samples a record may keep after its trims (the folds, cv.folds ≤ 50, need them)
MIN_KEPT_SAMPLES = 100
#: regressor(q, dq, ddq) with (K, n) arrays -> (K, n, p)
Regressor = Callable[[Array, Array, Array], Array]


@dataclass(frozen=True)
class ProcessedRecord:
    """Retained samples of one record: time (K,), joint arrays (K, n), torque as recorded."""

    time: Array
    q: Array
    dq: Array
    ddq: Array
    tau: Array
    sample_rate_hz: float  # after decimation
    cutoff_hz: float


def above_nyquist(cutoff_hz: float, sample_rate_hz: float, decimate: int) -> str | None:
    """Why a cutoff cannot be used on a record: at or above the Nyquist frequency of its rate
    after decimation by ``decimate``; ``None`` when it can."""
    above = cutoff.nyquist_text(cutoff_hz, sample_rate_hz / decimate)
    if above is None:
        return None
    return f"cutoff {above} of the decimated rate ({sample_rate_hz:g} Hz / {decimate})"


def end_trim_s(trim_s: float, cutoff_hz: float, sample_rate_hz: float, order: int) -> float:
    """The seconds dropped at each end of a record filtered at the study's cutoff: ``trim_s``,
    or longer where the filter's end transient reaches further
    (:func:`paramid.signals.transient_s`: 1.8 / cutoff at the 4th order, 1.2 s at 1.5 Hz, 0.18
    s at 10 Hz), so no fit or validation reads a q̈ the record's end disturbs."""
    return max(float(trim_s), signals.transient_s(cutoff_hz, sample_rate_hz, order))


def process(
    record: RobotRecord, signals_config: Mapping, cutoff_hz: float | None = None
) -> ProcessedRecord:
    """Filter, differentiate, trim and decimate one record (§4.1, per joint).

    ``signals_config`` has ``cutoff_hz`` (used unless ``cutoff_hz`` is given), ``filter_order``,
    ``trim_s`` and optionally ``decimate`` (an integer factor, 1 by default); the cutoff must lie
    below the Nyquist frequency of the decimated rate.
    """
    fs = record.sample_rate_hz
    cut = float(signals_config["cutoff_hz"] if cutoff_hz is None else cutoff_hz)
    factor = int(signals_config.get("decimate", 1))  # optional: a notebook's plain settings
    if factor < 1:
        raise ValueError(f"decimate must be a positive integer, got {factor}")
    if problem := above_nyquist(cut, fs, factor):
        raise ValueError(problem)
    order, trim_s = signals_config["filter_order"], signals_config["trim_s"]
    out = signals.process(
        record.time, record.q.T, record.tau.T, cutoff_hz=cut, order=order, trim_s=trim_s
    )
    dq, ddq = out.qd, out.qdd
    if record.dq is not None:
        velocity = signals.lowpass(record.dq.T, cut, fs, order)
        ddq_full = signals.central_derivatives(velocity, 1.0 / fs)[0]
        trim = (record.time.size - out.time.size) // 2
        keep = slice(trim, record.time.size - trim)
        dq, ddq = velocity[:, keep], ddq_full[:, keep]
    step = slice(None, None, factor)
    return ProcessedRecord(
        time=out.time[step],
        q=out.q.T[step],
        dq=dq.T[step],
        ddq=ddq.T[step],
        tau=out.torque.T[step],
        sample_rate_hz=fs / factor,
        cutoff_hz=cut,
    )


def process_chosen(
    record: RobotRecord, signals_config: Mapping, cutoff_hz: float, study: str, source: str
) -> ProcessedRecord:
    """:func:`process` at the study's cutoff, dropping :func:`end_trim_s` at each end; a record
    sampled too slowly for it (a validation log slower than the calibration records that chose
    an ``auto`` cutoff; a fixed cutoff, and a log too slow for every candidate, are checked
    before any job) or too short for that trim is a :class:`~paramid.errors.UserError` naming
    the record (``source``: its role, name and file) and saying what to change.  The cutoff's
    candidates are scored at ``trim_s`` alone (:func:`choose_cutoff`: the same samples for
    each)."""
    factor = int(signals_config.get("decimate", 1))
    fs = record.sample_rate_hz
    nyquist = above_nyquist(cutoff_hz, fs, factor)
    if nyquist:
        raise UserError(
            f"robots.{study}.signals: {nyquist} of {source}, sampled at "
            f"{fs:.4g} Hz; the cutoff was chosen from the calibration "
            "records: log this record faster, or list signals.cutoff_candidates_hz below its "
            "Nyquist frequency"
        )
    trim_s = end_trim_s(signals_config["trim_s"], cutoff_hz, fs, signals_config["filter_order"])
    kept = -(-(record.time.size - 2 * int(round(trim_s * fs))) // factor)
    if kept < MIN_KEPT_SAMPLES:
        raise UserError(
            f"robots.{study}.signals: {source} ({record.time[-1]:.4g} s) keeps {max(kept, 0)} "
            f"samples, fewer than {MIN_KEPT_SAMPLES}, once {trim_s:.3g} s are dropped at each "
            f"end (the filter's settling at {cutoff_hz:g} Hz, at least signals.trim_s): record "
            "a longer motion, or filter it at a higher cutoff, which settles sooner "
            "(signals.cutoff_hz, or the candidates signals.cutoff_candidates_hz of auto)"
        )
    return process(record, {**signals_config, "trim_s": trim_s}, cutoff_hz)


def velocity_band(
    record: RobotRecord, widest_hz: float, order: int, fraction: float = BAND_FRACTION
) -> Array:
    """Per joint, the frequency [Hz] below which ``fraction`` of the velocity's power lies
    within the pass band of the widest candidate cutoff ``widest_hz`` (the measured velocity,
    else the angle's central difference, low-passed there as the chain would; the mean
    removed).  Unfiltered, a logger's differentiated encoder or a ripple far above the motion
    held most of the power: the DFKI pendulum's logged velocity in ``sysid_pd`` has 99 % of it
    below about 100 Hz, below 1.5 Hz within a 25 Hz pass band."""
    fs = record.sample_rate_hz
    velocity = record.dq if record.dq is not None else np.gradient(record.q, record.time, axis=0)
    return signals.power_band(signals.lowpass(velocity.T, widest_hz, fs, order).T, fs, fraction)


def choose_cutoff(
    records: Sequence[RobotRecord],
    signals_config: Mapping,
    regressor: Regressor,
    candidates_hz: Sequence[float],
    blocks: int,
) -> cutoff.CutoffChoice:
    """The ``auto`` cutoff of the calibration ``records`` (``signals.cutoff_candidates_hz``,
    ``blocks``: ``cv.folds``).

    Each usable candidate (below 0.8 x the lowest Nyquist frequency after decimation) is scored
    by the blocked cross-validation of the least-squares fit on the stacked regressor: the mean
    over folds (contiguous time blocks of every record; not one record left out as for the
    prior's weight: across records the free fit's error is its extrapolation, not the filter's,
    2.4-152 N m over the candidates on two Gen3 records) of the mean per-joint held-out RMSE
    against the torque as recorded, computed on QR compressions streamed over the records
    (memory independent of their length).  Such a curve is flat over a wide band (on the real
    Gen3 logs it falls by 0.15 N m from 8 to 25 Hz within its standard error): the choice is the
    **lowest** candidate whose score is within one standard error of the lowest score and that
    is at least :data:`BAND_FACTOR` x the median over joints of the band holding
    :data:`BAND_FRACTION` of the velocity's power within the widest candidate's pass band
    (:func:`velocity_band`; a 4th-order zero-phase Butterworth passes 99 % of the power at
    0.56 of its cutoff), so the filter keeps the motion and drops what lies above it.  Where
    no candidate meets both, the lowest score is taken and the rule's text says why.
    """
    factor = int(signals_config["decimate"])
    rates = [r.sample_rate_hz / factor for r in records]
    usable = cutoff.usable_candidates(candidates_hz, rates)
    widest, order = usable[-1], int(signals_config["filter_order"])
    bands = np.concatenate([velocity_band(r, widest, order) for r in records])
    floor = BAND_FACTOR * float(np.median(bands))
    means, errors = [], []
    for cut in usable:
        parts = [process(r, signals_config, cut) for r in records]
        scores = _cv_scores(compress_records(parts, regressor, blocks))
        means.append(float(np.mean(scores)))
        errors.append(float(np.std(scores, ddof=1) / np.sqrt(scores.size)))
    mean, se = np.array(means), np.array(errors)
    lowest = int(np.nanargmin(mean))
    within = (mean <= mean[lowest] + se[lowest]) & (np.asarray(usable) >= floor)
    chosen = int(np.flatnonzero(within)[0]) if within.any() else lowest
    rule = (
        "lowest cutoff within one standard error of the lowest blocked CV RMSE of the LS fit, "
        f"at least {BAND_FACTOR:g} x the median {100 * BAND_FRACTION:g} % velocity band "
        f"below the widest candidate (a floor of {floor:.3g} Hz"
        + (
            ")"
            if within.any()
            else "; above every candidate: the lowest score taken)"
            if floor > usable[-1]
            else "; no candidate at or above it scores within one standard error of the lowest: "
            "the lowest score taken)"
        )
    )
    left_out = sorted(float(c) for c in candidates_hz if float(c) not in usable)
    if left_out:  # a slow record, or one decimated below them: named, not silently gone
        thinned = f" after signals.decimate = {factor}" if factor > 1 else ""
        rule += (
            f"; candidates {', '.join(f'{c:g}' for c in left_out)} Hz left out: not below "
            f"{100 * cutoff.NYQUIST_FRACTION:g} % of the Nyquist frequency of the slowest "
            f"calibration record ({min(rates):.4g} Hz{thinned})"
        )
    candidates = np.asarray(usable, dtype=np.float64)
    return cutoff.CutoffChoice(candidates, mean, float(candidates[chosen]), blocks, rule, se, floor)


def _cv_scores(data: Compressed) -> Array:
    """Per fold (a time block of every record): the mean per-joint held-out RMSE of the
    least-squares fit (minimum norm: a candidate that leaves a column unexcited still scores)
    on the other folds."""
    scores = []
    for k in np.unique(data.fold):
        test = data.fold == k
        R, c, _ = data.joint(~test)
        fit = np.linalg.lstsq(R.reshape(-1, R.shape[-1]), c.reshape(-1), rcond=None)[0]
        theta = np.asarray(fit, dtype=np.float64)
        held_out = int(data.samples[test].sum())
        scores.append(float(np.mean(joint_rmse(*data.joint(test), held_out, theta))))
    return np.array(scores)
