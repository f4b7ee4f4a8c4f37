"""Checks of a 1-DOF study's measured record before any job runs (the hip chain, §4.1).

:func:`check_usable` refuses a record the signal chain or the Eq 6 regressor cannot use, naming
the file and the config field: a cutoff at or above Nyquist, too few samples for trimming and
RLS burn-in, a failed plausibility check (:mod:`paramid.plausibility`) or a rank-deficient
regressor.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from paramid import cutoff, estimators, plausibility, rls
from paramid.errors import InputError
from paramid.hip import model, pipeline
from paramid.ingest import MeasuredRecord, one_sample_trim
from paramid.plausibility import EXCITATION, RECORDS_SCALE, REFERENCE_SCALE, TIME_UNITS, TORQUE_SIGN

Array = NDArray[np.float64]


def _checked_cutoff(signals_config: Mapping, fs: float, path: str | Path, study: str) -> float:
    """The cutoff to check a record with: the configured one (which must lie below Nyquist) or,
    for ``auto``, the highest candidate this record can use (the choice itself needs both
    records and runs in the workflow)."""
    field = f"studies.{study}.signals"
    if signals_config["cutoff_hz"] == "auto":
        try:
            return cutoff.usable_candidates(signals_config["cutoff_candidates_hz"], [fs])[-1]
        except ValueError as err:
            raise InputError(f"{path}: {field}.cutoff_candidates_hz: {err}") from None
    value = float(signals_config["cutoff_hz"])
    if above := cutoff.nyquist_text(value, fs):
        raise InputError(f"{path}: {field}.cutoff_hz = {above} of this record ({fs:g} Hz sampling)")
    return value


def _stop(path: str | Path, study: str, check: str, message: str) -> None:
    """Raise the failed plausibility ``check`` naming the file and how to skip it."""
    raise InputError(
        f"{path}: {message} (a check of studies.{study}; if the record is right, skip it "
        f"with studies.{study}.checks.skip: [{check}])"
    )


def check_usable(
    record: MeasuredRecord,
    path: str | Path,
    *,
    study: str,
    regressor: list[str],
    gravity: float,
    signals_config: Mapping,
    burn_in_s: float = 0.0,
    skip_checks: Sequence[str] = (),
    sweep_cutoffs: Sequence[float] = (),
    reference: Mapping[str, float] | None = None,
    rls_recursion: tuple[float | str, float] | None = None,
    time_unit: str = "s",
    angle_unit: str = "rad",
    velocity_unit: str = "rad/s",
    rest_dropped_s: tuple[float, float] = (0.0, 0.0),
) -> None:
    """Check that the signal chain and the regressor can use this record (before any job runs).

    Raises :class:`InputError` naming the file and the config field when the sample rate is no
    dynamics log's (time in ms read as s: first, the checks after it would name the wrong
    setting; the advice names the unit that fits, given the declared ``time_unit``; an angle
    declared in degrees, ``angle_unit``, whose file values look like radians), a cutoff
    (or one of the ``sweep_cutoffs``) is at or above Nyquist, ``trim_s`` is under one sample,
    the record is shorter than trimming (and RLS burn-in) need (``rest_dropped_s``: the rest
    its reading dropped at its ends, named there), the regressor is rank-deficient
    (listing the collinear columns), or a plausibility check of :mod:`paramid.plausibility`
    fails (degrees given as rad, constant torque, absurd magnitudes, a clipped encoder, angle
    and torque swapped, a regressor too ill-conditioned to identify its parameters, a least-
    squares inertia negative by many standard errors (the torque's sign inverted against the
    angle's), a least-squares fit a unit's factor away from the study's ``reference``
    parameters; after those, a recorded velocity that disagrees with the angle's change,
    :func:`paramid.plausibility.velocity_units`, given ``velocity_unit`` too), unless
    ``skip_checks`` names it, or the RLS recursion of a calibration record
    (``rls_recursion`` = forgetting, p0) meets a singular stretch.
    """
    fs = record.sample_rate_hz
    rate = plausibility.sample_rate(record.time, declared=time_unit)
    if TIME_UNITS not in skip_checks and rate:
        _stop(path, study, TIME_UNITS, rate)
    if above := cutoff.nyquist_text(sweep_cutoffs, fs):
        raise InputError(f"{path}: studies.{study}.sweeps.cutoff_hz.values {above} of this record")
    cutoff_hz = _checked_cutoff(signals_config, fs, path, study)
    trim = int(round(signals_config["trim_s"] * fs))
    if trim < 1:
        raise InputError(
            one_sample_trim(path, f"studies.{study}.signals", signals_config["trim_s"], fs)
        )
    burn_in = int(round(burn_in_s * fs))
    needed = model.samples_needed(trim, burn_in, len(regressor))
    if record.time.size < needed:
        rested = sum(rest_dropped_s)
        rest = f" after {rested:.4g} s of rest dropped at its ends" if rested else ""
        raise InputError(
            f"{path}: {record.time.size} samples ({record.time[-1]:.3g} s){rest} is too short: "
            f"studies.{study}.signals.trim_s ({trim} samples at each end)"
            + (f" and studies.{study}.rls.burn_in_s ({burn_in} samples)" if burn_in else "")
            + f" need at least {needed} samples"
        )

    def r2(angle: Array, torque: Array) -> float:
        processed = pipeline.process(record.time, angle, torque, signals_config, cutoff_hz)
        H, y = pipeline.regression(processed, regressor, gravity)
        x = np.linalg.lstsq(H, y, rcond=None)[0]
        return plausibility.explained_variance(H, y, np.asarray(x, dtype=np.float64))

    checked = [*skip_checks, TIME_UNITS]  # done first, above
    problems = plausibility.record_problems(
        record.time, record.angle, record.torque, checked, r2, time_unit, angle_unit
    )
    if problems:
        _stop(path, study, *problems[0])
    if TIME_UNITS not in skip_checks and record.velocity is not None:  # after angle_units
        ratios = plausibility.rate_ratios(record.time, record.angle, record.velocity)
        degrees = (angle_unit == "deg", velocity_unit == "deg/s")
        if disagree := plausibility.velocity_units(ratios, time_unit, degrees):
            _stop(path, study, TIME_UNITS, disagree)
    out = pipeline.process(record.time, record.angle, record.torque, signals_config, cutoff_hz)
    H = model.regressor(regressor, out.q, out.qd, out.qdd, gravity)
    collinear = estimators.collinear_columns(H, regressor)
    if collinear:
        rank = np.linalg.matrix_rank(H)
        raise InputError(
            f"{path}: the regressor of studies.{study}.regressor is rank-deficient (rank {rank} of "
            f"{H.shape[1]}): columns {collinear} are collinear — the record does not excite them"
        )
    if EXCITATION not in skip_checks and (poor := plausibility.excitation(H, regressor, out.q)):
        _stop(path, study, EXCITATION, poor)
    if TORQUE_SIGN not in skip_checks and (
        sign := plausibility.inverted_sign(H, out.torque, regressor)
    ):
        _stop(path, study, TORQUE_SIGN, sign)
    if rls_recursion is not None:
        try:
            forgetting = rls.forgetting_factor(rls_recursion[0], fs)
            rls.rls_trajectory(H, out.torque, forgetting, rls_recursion[1])
        except rls.SingularRecursion as err:
            raise InputError(f"{path}: {err} (studies.{study}.rls)") from None
    if reference and REFERENCE_SCALE not in skip_checks:
        scale = plausibility.reference_scale(_fit(H, out.torque, regressor), reference)
        if scale:
            _stop(path, study, REFERENCE_SCALE, f"{scale} and studies.{study}.reference")


def _fit(H: Array, torque: Array, regressor: Sequence[str]) -> dict[str, float]:
    """Least-squares parameters by name."""
    fitted = np.linalg.lstsq(H, torque, rcond=None)[0]
    return dict(zip(model.parameter_names(regressor), fitted.tolist(), strict=True))


def check_records_agree(
    records: Mapping[str, tuple[MeasuredRecord, str | Path]],
    *,
    study: str,
    regressor: list[str],
    gravity: float,
    signals_config: Mapping,
    skip_checks: Sequence[str] = (),
) -> None:
    """The validation record's least-squares parameters within a unit's factor of the
    calibration record's (:func:`paramid.plausibility.reference_scale`): a torque in N mm
    declared as N m in one of them, which a small joint's magnitudes cannot show; and of
    their sign (:func:`paramid.plausibility.opposite_sign`).  ``records``:
    ``calibration`` and ``validation`` -> (record, path)."""
    if RECORDS_SCALE in skip_checks:
        return
    keys = model.parameter_names(regressor)
    fits, determined = {}, set(keys)
    for name, (record, path) in records.items():
        cutoff_hz = _checked_cutoff(signals_config, record.sample_rate_hz, path, study)
        out = pipeline.process(record.time, record.angle, record.torque, signals_config, cutoff_hz)
        H = model.regressor(regressor, out.q, out.qd, out.qdd, gravity)
        x, se = plausibility.least_squares_errors(H, out.torque)
        fits[name] = dict(zip(keys, x.tolist(), strict=True))
        determined &= {
            k for k, z in zip(keys, np.abs(x) / se, strict=True) if z > plausibility.SIGN_Z
        }
    names = {"against": "the calibration record's", "subject": "the validation record's"}
    scale = plausibility.reference_scale(
        fits["validation"], fits["calibration"], f"studies.{study}.records.*.units.torque", **names
    ) or plausibility.opposite_sign(fits["validation"], fits["calibration"], determined, **names)
    if scale:
        paths = f"{records['calibration'][1]}, {records['validation'][1]}"
        _stop(paths, study, RECORDS_SCALE, scale)
