"""Signal chain (hip paper §4.1): zero-phase Butterworth low-pass on the angle, central
finite differences for velocity and acceleration, and trimming of both record ends."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import signal

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Processed:
    """Trimmed, filtered and differentiated samples of one record."""

    time: Array
    q: Array
    qd: Array
    qdd: Array
    torque: Array


def sample_rate(time: Array) -> float:
    """Sample rate [Hz] of a uniform time grid."""
    step = np.diff(time)
    if step.size == 0 or np.any(step <= 0):
        raise ValueError("time must be strictly increasing with at least two samples")
    return float(1.0 / np.median(step))


def lowpass(x: Array, cutoff_hz: float, sample_rate_hz: float, order: int = 4) -> Array:
    """Forward–backward (zero-phase) Butterworth low-pass, scipy.signal.filtfilt on SOS.

    The forward–backward pass squares the magnitude response and cancels the phase (§4.1).
    """
    nyquist = sample_rate_hz / 2
    if not 0 < cutoff_hz < nyquist:
        raise ValueError(f"cutoff {cutoff_hz} Hz must lie in (0, {nyquist}) Hz (Nyquist)")
    sos = signal.butter(order, cutoff_hz, btype="low", fs=sample_rate_hz, output="sos")
    return signal.sosfiltfilt(sos, x)


def central_derivatives(q: Array, step: float) -> tuple[Array, Array]:
    """Central differences: q̇ₖ = (qₖ₊₁ − qₖ₋₁)/2h and q̈ₖ = (qₖ₊₁ − 2qₖ + qₖ₋₁)/h².

    The end samples have no central stencil and are NaN; the trim removes them.
    """
    qd = np.full_like(q, np.nan)
    qdd = np.full_like(q, np.nan)
    qd[1:-1] = (q[2:] - q[:-2]) / (2 * step)
    qdd[1:-1] = (q[2:] - 2 * q[1:-1] + q[:-2]) / step**2
    return qd, qdd


def process(
    time: Array, angle: Array, torque: Array, *, cutoff_hz: float, order: int, trim_s: float
) -> Processed:
    """Filter the angle, differentiate it, and drop ``trim_s`` at each end (§4.1, Table 2)."""
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
    return Processed(time[keep], q[keep], qd[keep], qdd[keep], torque[keep])
