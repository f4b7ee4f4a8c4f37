"""Signal chain (hip paper §4.1): zero-phase Butterworth low-pass on the angle, central
finite differences for velocity and acceleration, and trimming of both record ends."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import scipy  # submodules load on first use: jobs that only need sample_rate skip scipy.signal
from numpy.typing import NDArray

Array = NDArray[np.float64]


#: units of a :class:`Processed` record's columns as written to Parquet
PROCESSED_UNITS = {"time": "s", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2", "torque": "N m"}


@dataclass(frozen=True)
class Processed:
    """Trimmed, filtered and differentiated samples of one record."""

    time: Array
    q: Array
    qd: Array
    qdd: Array
    torque: Array

    def frame(self) -> pd.DataFrame:
        """One record's samples as a table (columns of :data:`PROCESSED_UNITS`)."""
        return pd.DataFrame({column: getattr(self, column) for column in PROCESSED_UNITS})


def sample_rate(time: Array) -> float:
    """Sample rate [Hz] of a uniform time grid."""
    step = np.diff(time)
    if step.size == 0 or np.any(step <= 0):
        raise ValueError("time must be strictly increasing with at least two samples")
    return float(1.0 / np.median(step))


def power_band(x: Array, sample_rate_hz: float, fraction: float) -> Array:
    """Per column of ``x`` (time along the first axis, the mean removed), the frequency [Hz]
    below which ``fraction`` of its power lies."""
    power = np.abs(np.fft.rfft(x - x.mean(axis=0), axis=0)) ** 2
    share = np.cumsum(power, axis=0) / np.maximum(power.sum(axis=0), np.finfo(float).tiny)
    frequencies = np.fft.rfftfreq(x.shape[0], 1.0 / sample_rate_hz)
    return frequencies[np.argmax(share >= fraction, axis=0)]


def split_rms(x: Array, sample_rate_hz: float, edge_hz: float) -> tuple[Array, Array]:
    """Per column of ``x`` (time along the first axis), the RMS of its content at or below
    ``edge_hz`` (the mean included) and above it: the one-sided periodogram
    (scipy.signal.periodogram, rectangular window, no detrending) summed on each side of the
    edge, so that below² + above² = mean(x²) (Parseval)."""
    frequencies, power = scipy.signal.periodogram(
        x, fs=sample_rate_hz, window="boxcar", detrend=False, scaling="spectrum", axis=0
    )
    below = frequencies <= edge_hz
    return np.sqrt(power[below].sum(axis=0)), np.sqrt(power[~below].sum(axis=0))


def lowpass(x: Array, cutoff_hz: float, sample_rate_hz: float, order: int = 4) -> Array:
    """Forward–backward (zero-phase) Butterworth low-pass, scipy.signal.filtfilt on SOS.

    The forward–backward pass squares the magnitude response and cancels the phase (§4.1).
    """
    nyquist = sample_rate_hz / 2
    if not 0 < cutoff_hz < nyquist:
        raise ValueError(f"cutoff {cutoff_hz} Hz must lie in (0, {nyquist}) Hz (Nyquist)")
    sos = scipy.signal.butter(order, cutoff_hz, btype="low", fs=sample_rate_hz, output="sos")
    return scipy.signal.sosfiltfilt(sos, x)


#: the share of its peak below which a zero-phase filter's impulse response counts as settled
#: (the conventional 1 % settling criterion)
TRANSIENT_TOLERANCE = 1e-2


@functools.lru_cache(maxsize=64)
def transient_s(
    cutoff_hz: float, sample_rate_hz: float, order: int, tolerance: float = TRANSIENT_TOLERANCE
) -> float:
    """How far [s] a record's end disturbs :func:`lowpass`: the time after an impulse at which
    the forward–backward filter's response falls for good below ``tolerance`` × its peak.  For
    the 4th order it is 1.8 / cutoff at 1 % (1.2 s at 1.5 Hz, 0.09 s at 20 Hz), 2.5 / cutoff at
    0.1 %; a simulated 0.1-0.55 Hz motion at 500 Hz had its q̈ error above twice the interior's
    within 1.2-3.0 / cutoff of each end, so a fixed 0.2 s trim left 1.8 s of them in at 1.5
    Hz."""
    periods = 20.0  # the response has decayed far below any tolerance used within these
    half = int(np.ceil(periods * sample_rate_hz / cutoff_hz))
    impulse = np.zeros(2 * half + 1)
    impulse[half] = 1.0
    response = np.abs(lowpass(impulse, cutoff_hz, sample_rate_hz, order)[half:])
    above = np.flatnonzero(response > tolerance * response.max())
    return float(above[-1] + 1) / sample_rate_hz


def central_derivatives(q: Array, step: float) -> tuple[Array, Array]:
    """Central differences: q̇ₖ = (qₖ₊₁ − qₖ₋₁)/2h and q̈ₖ = (qₖ₊₁ − 2qₖ + qₖ₋₁)/h².

    Along the last (time) axis; leading axes (records, seeds, joints) are independent.  The
    end samples have no central stencil and are NaN; the trim removes them.
    """
    qd = np.full_like(q, np.nan)
    qdd = np.full_like(q, np.nan)
    qd[..., 1:-1] = (q[..., 2:] - q[..., :-2]) / (2 * step)
    qdd[..., 1:-1] = (q[..., 2:] - 2 * q[..., 1:-1] + q[..., :-2]) / step**2
    return qd, qdd


def process(
    time: Array, angle: Array, torque: Array, *, cutoff_hz: float, order: int, trim_s: float
) -> Processed:
    """Filter the angle, differentiate it, and drop ``trim_s`` at each end (§4.1, Table 2).

    Time runs along the last axis of ``angle`` and ``torque``; leading axes (e.g. one row per
    twin seed) are processed independently, as separate records would be.
    """
    fs = sample_rate(time)
    trim = int(round(trim_s * fs))
    if trim < 1:
        raise ValueError(f"trim_s={trim_s} s is less than one sample at {fs:g} Hz")
    if time.size <= 2 * trim + 1:
        raise ValueError(
            f"record of {time.size} samples is too short for trimming {trim} samples at each end"
        )
    q = lowpass(angle, cutoff_hz, fs, order)
    qd, qdd = central_derivatives(q, 1.0 / fs)
    keep = slice(trim, time.size - trim)
    return Processed(time[keep], q[..., keep], qd[..., keep], qdd[..., keep], torque[..., keep])


def average_periods(x: Array, periods: int) -> Array:
    """Mean of ``periods`` consecutive equal-length periods along the last (time) axis.

    A record of P periods of n samples (shape ``(..., P·n)``) becomes one period ``(..., n)``;
    zero-mean noise that is uncorrelated between periods drops by a factor √P in RMS.
    """
    if periods < 1:
        raise ValueError(f"periods must be a positive integer, got {periods}")
    n_total = x.shape[-1]
    if n_total % periods:
        raise ValueError(f"{n_total} samples do not split into {periods} equal periods")
    return x.reshape(*x.shape[:-1], periods, n_total // periods).mean(axis=-2)


def process_averaged(
    time: Array,
    angle: Array,
    torque: Array,
    *,
    periods: int,
    cutoff_hz: float,
    order: int,
    trim_s: float,
    periodic: bool = True,
) -> Processed:
    """The hip chain of :func:`process` on the average of P periods of a periodic record.

    The measured angle and torque (time along the last axis; leading axes, e.g. one row per
    seed or joint, are processed independently) are first averaged over ``periods`` periods
    into one period, then low-pass filtered, differentiated and trimmed as in §4.1.

    With ``periodic=True`` the averaged period is treated as one period of a periodic signal:
    the zero-phase filter runs on three copies laid end to end and keeps the middle one, and
    the central differences wrap around, so no end transient is left (``trim_s`` may then be
    0; with a positive ``trim_s`` the ends are still dropped, to keep the row count of the
    ordinary chain).  With ``periodic=False`` and ``periods=1`` the result equals
    :func:`process` row by row.
    """
    time = np.asarray(time, dtype=np.float64)
    angle = np.asarray(angle, dtype=np.float64)
    torque = np.asarray(torque, dtype=np.float64)
    if angle.shape != torque.shape or angle.shape[-1] != time.size:
        raise ValueError("angle and torque must have the same shape, time along the last axis")
    q_avg = average_periods(angle, periods)
    tau_avg = average_periods(torque, periods)
    n = q_avg.shape[-1]
    t = time[:n]
    fs = sample_rate(t)
    trim = int(round(trim_s * fs))
    if trim < (0 if periodic else 1):
        raise ValueError(f"trim_s={trim_s} s is less than one sample at {fs:g} Hz")
    if n <= 2 * trim + 1:
        raise ValueError(f"period of {n} samples is too short for trimming {trim} at each end")
    step = 1.0 / fs
    if periodic:
        tiled = np.concatenate([q_avg, q_avg, q_avg], axis=-1)
        q = lowpass(tiled, cutoff_hz, fs, order)[..., n : 2 * n]
        ahead, behind = np.roll(q, -1, axis=-1), np.roll(q, 1, axis=-1)
        qd = (ahead - behind) / (2 * step)
        qdd = (ahead - 2 * q + behind) / step**2
    else:
        q = lowpass(q_avg, cutoff_hz, fs, order)
        qd, qdd = central_derivatives(q, step)
    keep = slice(trim, n - trim)
    return Processed(t[keep], q[..., keep], qd[..., keep], qdd[..., keep], tau_avg[..., keep])
