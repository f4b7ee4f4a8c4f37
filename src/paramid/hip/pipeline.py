"""The hip chain, once: record -> processed signals -> regressor -> RLS prior (§3.1-§4.1).

Every caller (the workflow's stages, the sweeps, the nonlinear-friction and excitation
studies) runs these functions; each is batch-aware, with records (e.g. twin seeds) along
leading axes and the RLS recursions of all records side by side.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import cutoff, estimators, plausibility, rls, signals, simulation
from paramid.hip import model, twin
from paramid.optim.grey_wolf import adaptive_exponent

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Regression:
    """Calibration and validation regressors of one record pair (Eq 4–6)."""

    H: Array
    y: Array
    H_val: Array
    y_val: Array
    sample_rate_hz: float


def process(
    time: Array,
    angle: Array,
    torque: Array,
    signals_config: Mapping,
    cutoff_hz: float | None = None,
) -> signals.Processed:
    """§4.1 on a record (time along the last axis): zero-phase low-pass at the configured
    cutoff (or ``cutoff_hz``), central differences, ``trim_s`` dropped at each end."""
    return signals.process(
        time,
        angle,
        torque,
        cutoff_hz=signals_config["cutoff_hz"] if cutoff_hz is None else cutoff_hz,
        order=signals_config["filter_order"],
        trim_s=signals_config["trim_s"],
    )


def regression(
    processed: signals.Processed, keys: Sequence[str], gravity: float
) -> tuple[Array, Array]:
    """H (..., K, d) of Eq 6 with the columns ``keys`` and the torque y (..., K) (Eq 4)."""
    q = processed.q
    H = model.regressor(keys, q.ravel(), processed.qd.ravel(), processed.qdd.ravel(), gravity)
    return H.reshape(*q.shape, len(keys)), processed.torque


@dataclass(frozen=True)
class SignalsTable:
    """A processed record with its regressor columns ``H_<key>`` (Eq 6) as hip_signals writes
    it: the table, its units, cond(H), and the warning its kind of record may carry (a
    validation record's too little motion, a calibration record's loose parameters)."""

    frame: pd.DataFrame
    units: dict[str, str]
    condition_number: float
    coverage_warning: str | None
    precision_warning: str | None


def signals_table(
    processed: signals.Processed, keys: Sequence[str], gravity: float, validation: bool
) -> SignalsTable:
    """:class:`SignalsTable` of a processed record (:func:`process`) with the regressor columns
    ``keys``; ``validation``: checked for its coverage of the motion
    (:func:`paramid.plausibility.validation_coverage`), else for the parameters it identifies
    only loosely (:func:`paramid.plausibility.loose_parameters`)."""
    H, _ = regression(processed, keys, gravity)
    frame, units = processed.frame(), dict(signals.PROCESSED_UNITS)
    for key, column in zip(keys, H.T, strict=True):
        frame[f"H_{key}"] = column
        units[f"H_{key}"] = model.COLUMNS[key].column_unit
    coverage = loose = None
    if validation:
        duration = float(processed.time[-1] - processed.time[0])
        coverage = plausibility.validation_coverage(processed.qd, duration)
    else:
        names = model.parameter_names(keys)
        units_of = model.parameter_units(keys)
        loose = plausibility.loose_parameters(
            H, processed.torque, names, units_of, processed.qd, processed.q
        )
    return SignalsTable(frame, units, estimators.condition_number(H), coverage, loose)


@dataclass(frozen=True)
class Prior:
    """Algorithm 1 steps 1–4: the RLS run (Eq 7–9), the box [L, U] (§3.1), γ (Eq 10), μ(γ)
    (Eq 12).  Arrays carry the records' leading axes."""

    names: list[str]
    units: list[str]  # of each parameter
    trajectory: Array  # (..., K, d)
    forgetting: float  # λ of Eq 7-9 (a number, or ``auto``'s value at this sample rate)
    burn_in: int
    lower: Array
    upper: Array
    rls_min: Array
    rls_max: Array
    rls_mean: Array  # retained (post-burn-in) mean
    gamma: Array
    mu: Array
    notes: list[str]

    def trajectory_frame(self, time: Array) -> tuple[pd.DataFrame, dict[str, str]]:
        """One record's RLS estimate per sample (Eq 7-9, trajectory (K, d)) beside its
        ``time`` [s], and the units of the frame's columns: the record's trajectory file."""
        frame = pd.DataFrame(self.trajectory, columns=self.names)
        frame.insert(0, "time", time)
        return frame, {"time": "s", **dict(zip(self.names, self.units, strict=True))}

    def saved(self, more_notes: Sequence[str] = ()) -> rls.SavedPrior:
        """The prior of one record (trajectory (K, d)) as its file holds it, ``more_notes``
        after the box's own."""
        return rls.SavedPrior(
            names=list(self.names),
            units=list(self.units),
            lower=self.lower,
            upper=self.upper,
            rls_min=self.rls_min,
            rls_max=self.rls_max,
            rls_mean=self.rls_mean,
            rls_final=self.trajectory[-1],
            burn_in_samples=self.burn_in,
            forgetting=self.forgetting,
            gamma=float(self.gamma),
            mu=float(self.mu),
            notes=[*self.notes, *more_notes],
        )


def memory_note(qd: Array, sample_rate_hz: float, forgetting: float) -> str | None:
    """:func:`paramid.rls.memory_note` of a record with joint velocity ``qd`` (K,): the motion's
    frequency is the one below which half of the velocity's power lies."""
    motion_hz = float(signals.power_band(qd, sample_rate_hz, 0.5))
    return rls.memory_note(forgetting, sample_rate_hz, motion_hz)


def rls_prior(
    H: Array,
    y: Array,
    keys: Sequence[str],
    rls_config: Mapping,
    sample_rate_hz: float,
    agwo_config: Mapping | None = None,
) -> Prior:
    """RLS on H (..., K, d), burn-in ``burn_in_s``, extrema widened by ``margin``, mechanical
    limits; γ from the sgn(q̇) column and the retained mean f̂c (0 without that column); μ(γ)
    when the AGWO settings are given (NaN otherwise)."""
    names = model.parameter_names(keys)
    forgetting = rls.forgetting_factor(rls_config["forgetting"], sample_rate_hz)
    trajectory = rls.rls_trajectory(H, y, forgetting, rls_config["p0"])
    burn_in = int(round(rls_config["burn_in_s"] * sample_rate_hz))
    box = rls.rls_bounds(
        trajectory, burn_in, rls_config["margin"], names, rls_config.get("mechanical")
    )
    mean = trajectory[..., burn_in:, :].mean(axis=-2)
    notes = list(box.notes)
    if "sign_qd" in keys:
        i = list(keys).index("sign_qd")
        gamma = rls.nfsi_gamma(H[..., i], mean[..., i], y, rls_config["nfsi_eps"])
    else:
        gamma = np.zeros(H.shape[:-2])
        notes.append("no sgn(qd) column: gamma (Eq 10) set to 0")
    mu = (
        adaptive_exponent(gamma, agwo_config["mu_base"], agwo_config["kappa"])
        if agwo_config is not None
        else np.full_like(gamma, np.nan)
    )
    units = model.parameter_units(keys)
    return Prior(
        names,
        [units[name] for name in names],
        trajectory,
        forgetting,
        burn_in,
        box.lower,
        box.upper,
        box.rls_min,
        box.rls_max,
        mean,
        gamma,
        mu,
        notes,
    )


def twin_regression(
    study_config: Mapping, seeds: Sequence[int], cutoff_hz: float | None = None
) -> Regression:
    """Both twin records of a study for each seed, through the signal chain at the study's
    cutoff (or ``cutoff_hz``): H (S, K, d), y (S, K) and the validation pair likewise."""
    settings = twin.TwinSettings.from_config(
        {**study_config["twin"], "gravity": study_config["gravity"]}
    )
    parts = []
    for record in ("calibration", "validation"):
        spec = study_config["records"][record]
        trajectory = simulation.Trajectory.from_config(spec["trajectory"])
        records = [
            twin.simulate(trajectory, spec["duration_s"], settings, int(seed), record)
            for seed in seeds
        ]
        angle = np.stack([r.angle for r in records])
        torque = np.stack([r.torque for r in records])
        processed = process(records[0].time, angle, torque, study_config["signals"], cutoff_hz)
        parts.append(regression(processed, study_config["regressor"], study_config["gravity"]))
    (H, y), (H_val, y_val) = parts
    return Regression(H, y, H_val, y_val, settings.sample_rate_hz)


def choose_cutoff(
    time: Array,
    angle: Array,
    torque: Array,
    keys: Sequence[str],
    gravity: float,
    signals_config: Mapping,
    candidates_hz: Sequence[float],
    blocks: int,
) -> cutoff.CutoffChoice:
    """The ``auto`` cutoff of one calibration record (:func:`paramid.cutoff.choose_cutoff` on
    the chain's regression, Eq 4–6)."""

    def regression_at(cutoff_hz: float) -> tuple[Array, Array]:
        return regression(process(time, angle, torque, signals_config, cutoff_hz), keys, gravity)

    return cutoff.choose_cutoff(candidates_hz, regression_at, blocks)
