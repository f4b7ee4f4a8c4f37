"""The signal chain (hip paper §4.1) on multi-joint records, all joints at once.

Per record: zero-phase Butterworth low-pass of every joint's angle (and of its velocity when
measured), q̇ from the filtered velocity or by central differences of the filtered angle, q̈
by central differences of q̇ (of the filtered measured velocity when there is one: one
differentiation instead of two), ``trim_s`` dropped at both ends and optional decimation by
an integer factor.  The torque is never filtered: fits and scores use it as recorded, at the
retained samples.  The joints run along a leading axis of :mod:`paramid.signals`, which
treats them as independent records.

``cutoff_hz: auto`` generalises :mod:`paramid.cutoff` to several joints and records:
each candidate cutoff is scored by the blocked cross-validation RMSE of the least-squares fit
on the stacked regressor of the calibration records (rows joint-major per sample, blocks
contiguous in time) against the recorded torque, and the lowest score wins.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paramid import cutoff, signals
from paramid.robot.records import RobotRecord

Array = NDArray[np.float64]
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
    factor = int(signals_config["decimate"])
    if factor < 1:
        raise ValueError(f"decimate must be a positive integer, got {factor}")
    if cut >= fs / (2 * factor):
        raise ValueError(
            f"cutoff {cut:g} Hz is at or above the Nyquist frequency {fs / (2 * factor):g} Hz "
            f"of the decimated rate ({fs:g} Hz / {factor})"
        )
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


def stacked(parts: Sequence[ProcessedRecord], regressor: Regressor) -> tuple[Array, Array]:
    """Regressor rows of all records stacked, joint-major per sample: W (Σ K·n, p), y."""
    W = [regressor(p.q, p.dq, p.ddq) for p in parts]
    return (
        np.concatenate([w.reshape(-1, w.shape[-1]) for w in W]),
        np.concatenate([p.tau.reshape(-1) for p in parts]),
    )


def choose_cutoff(
    records: Sequence[RobotRecord],
    signals_config: Mapping,
    regressor: Regressor,
    candidates_hz: Sequence[float] = cutoff.DEFAULT_CANDIDATES_HZ,
    blocks: int = 5,
) -> cutoff.CutoffChoice:
    """The ``auto`` cutoff of the calibration ``records``: the usable candidate (below 0.8 ×
    the lowest Nyquist frequency after decimation) with the lowest blocked CV RMSE of the
    stacked fit (:func:`paramid.cutoff.blocked_cv_rmse`, blocks of whole samples; ties:
    the lower cutoff)."""
    factor = int(signals_config["decimate"])
    usable = cutoff.usable_candidates(candidates_hz, [r.sample_rate_hz / factor for r in records])

    def regression_at(cutoff_hz: float) -> tuple[Array, Array]:
        return stacked([process(r, signals_config, cutoff_hz) for r in records], regressor)

    rule = "lowest blocked CV RMSE of the LS fit on the stacked calibration regressor"
    return cutoff.choose_cutoff(usable, regression_at, blocks, records[0].q.shape[1], rule)
