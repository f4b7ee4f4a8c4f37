"""The hip comparison: paper Eq 18 vs a designed Fourier excitation on the hip twin.

:func:`hip_regressor` is the design regressor of the 1-DOF hip model (Eq 6) for
:func:`paramid.excitation.design.design`; :func:`compare_hip` simulates each calibration
protocol (:class:`Variant`: Eq 18, the designed trajectory for one period, or P periods
averaged into one) with the hip twin over several noise seeds, identifies the hip (RLS box and
BCLS, or LS) and scores the estimates on the Eq 19 validation record; :func:`summarise` makes
the comparison table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from paramid import estimators, signals, simulation
from paramid.excitation.design import RegressorFn
from paramid.excitation.fourier import Array
from paramid.hip import model, pipeline, twin


def hip_regressor(keys: Sequence[str], gravity: float) -> RegressorFn:
    """Regressor function for the 1-DOF model of Eq 6 (``paramid.hip.model.regressor``), with the
    sgn(q̇) column replaced by tanh(q̇/v_s) when a smoothing v_s > 0 is passed."""
    keys = list(keys)
    model.check_columns(keys)

    def fn(q: Array, qd: Array, qdd: Array, smoothing: float) -> Array:
        q, qd, qdd = (np.asarray(x).reshape(-1) for x in (q, qd, qdd))
        H = model.regressor(keys, q, qd, qdd, gravity)
        if smoothing > 0 and "sign_qd" in keys:
            H[:, keys.index("sign_qd")] = np.tanh(qd / smoothing)
        return H

    return fn


def simulate_periods(
    trajectory: simulation.Evaluable,
    period_s: float,
    periods: int,
    settings: twin.TwinSettings,
    seed: int,
    record: str,
) -> simulation.Record:
    """P consecutive periods of a T-periodic trajectory through the hip twin (Eq 1–2 plant,
    the configured noise), sampled at the twin's rate: P·T·fs samples, t = 0 … P·T − 1/fs."""
    n = period_s * settings.sample_rate_hz
    if abs(n - round(n)) > 1e-9:
        raise ValueError(f"period {period_s} s is not a whole number of samples")
    return twin.simulate(trajectory, periods * period_s, settings, seed, record)


@dataclass(frozen=True)
class Variant:
    """One calibration protocol of the comparison: a trajectory, recorded for ``periods``
    periods of ``period_s`` and averaged into one before the signal chain (P = 1: no averaging)."""

    name: str
    trajectory: simulation.Evaluable
    period_s: float
    periods: int = 1
    periodic_filter: bool = False


@dataclass(frozen=True)
class HipSetup:
    """Everything the hip identification chain needs (from the hip study's config)."""

    settings: twin.TwinSettings
    keys: tuple[str, ...]
    cutoff_hz: float
    filter_order: int
    trim_s: float
    rls: Mapping[str, Any]
    estimator: str = "bcls"  # "bcls" (Eq 17 in the RLS box) or "ls"


def _records(
    trajectory: simulation.Evaluable,
    duration_s: float,
    setup: HipSetup,
    seeds: Sequence[int],
    record: str,
) -> dict[str, Array]:
    recs = [twin.simulate(trajectory, duration_s, setup.settings, int(s), record) for s in seeds]
    return {
        "time": recs[0].time,
        "angle": np.stack([r.angle for r in recs]),
        "torque": np.stack([r.torque for r in recs]),
        "torque_true": np.stack([r.torque_true for r in recs]),
    }


def identify_hip(H: Array, y: Array, setup: HipSetup, sample_rate_hz: float) -> Array:
    """The hip identification on S records at once: the hip chain's RLS prior (Eq 7–9, §3.1,
    :func:`paramid.hip.pipeline.rls_prior`) → BCLS (Eq 17) per record, or plain LS.
    H (S, K, d), y (S, K) → X̂ (S, d)."""
    if setup.estimator == "ls":
        return np.stack([estimators.ls(h, yy) for h, yy in zip(H, y, strict=True)])
    if setup.estimator != "bcls":
        raise ValueError(f"estimator must be 'bcls' or 'ls', got {setup.estimator!r}")
    prior = pipeline.rls_prior(H, y, setup.keys, setup.rls, sample_rate_hz)
    return np.stack(
        [
            estimators.bcls(h, yy, lo, hi)
            for h, yy, lo, hi in zip(H, y, prior.lower, prior.upper, strict=True)
        ]
    )


def compare_hip(
    variants: Sequence[Variant],
    validation: simulation.Evaluable,
    validation_duration_s: float,
    setup: HipSetup,
    seeds: Sequence[int],
) -> pd.DataFrame:
    """Identify the hip from each calibration variant on every twin seed; score on Eq 19.

    Seed s draws the calibration record of every variant from the stream
    ("twin", s, "calibration") and the validation record from ("twin", s, "validation")
    (seed 0 is the hip study's own pair of records): the variants share their random numbers,
    so the comparison is paired.  One row per (variant, seed): the estimate, its relative L2
    error against X_true, train / validation RMSE against the measured torque (Eq 21) and
    validation RMSE against the true torque, and cond(H) of the processed calibration record.
    """
    seeds = [int(s) for s in seeds]
    fs = setup.settings.sample_rate_hz
    names = model.parameter_names(setup.keys)
    x_true = np.asarray(setup.settings.x_true)
    val = _records(validation, validation_duration_s, setup, seeds, "validation")
    pv = signals.process_averaged(
        val["time"],
        val["angle"],
        val["torque"],
        periods=1,
        cutoff_hz=setup.cutoff_hz,
        order=setup.filter_order,
        trim_s=setup.trim_s,
        periodic=False,
    )
    Hv, yv = pipeline.regression(pv, setup.keys, setup.settings.gravity)
    trim = int(round(setup.trim_s * fs))
    yv_true = val["torque_true"][:, trim : val["time"].size - trim]

    frames = []
    for v in variants:
        cal = _records(v.trajectory, v.periods * v.period_s, setup, seeds, "calibration")
        proc = signals.process_averaged(
            cal["time"],
            cal["angle"],
            cal["torque"],
            periods=v.periods,
            cutoff_hz=setup.cutoff_hz,
            order=setup.filter_order,
            trim_s=setup.trim_s,
            periodic=v.periodic_filter,
        )
        H, y = pipeline.regression(proc, setup.keys, setup.settings.gravity)
        X = identify_hip(H, y, setup, fs)
        frame = pd.DataFrame(X, columns=names)
        frame.insert(0, "trajectory", v.name)
        frame.insert(1, "seed", seeds)
        frame["param_error"] = np.linalg.norm(X - x_true, axis=1) / np.linalg.norm(x_true)
        frame["train_rmse"] = _rmse(y - np.einsum("skd,sd->sk", H, X))
        frame["val_rmse"] = _rmse(yv - np.einsum("skd,sd->sk", Hv, X))
        frame["val_rmse_true"] = _rmse(yv_true - np.einsum("skd,sd->sk", Hv, X))
        frame["cond_signals"] = [estimators.condition_number(h) for h in H]
        frame["periods"] = v.periods
        frame["raw_samples"] = cal["time"].size
        frame["rows"] = H.shape[1]
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def _rmse(r: Array) -> Array:
    return np.sqrt(np.mean(r * r, axis=-1))


def summarise(per_seed: pd.DataFrame, cond: Mapping[str, float]) -> pd.DataFrame:
    """comparison.csv: per trajectory the design-grid cond (exact sgn), medians and IQRs over
    seeds of the relative parameter error and RMSEs, and how much data each variant used."""

    def q(x: pd.Series, p: float) -> float:
        return float(np.quantile(x, p))

    rows = []
    for name, g in per_seed.groupby("trajectory", sort=False):
        rows.append(
            {
                "trajectory": name,
                "cond": cond[name],
                "cond_signals_median": float(g.cond_signals.median()),
                "param_error_median": float(g.param_error.median()),
                "param_error_q1": q(g.param_error, 0.25),
                "param_error_q3": q(g.param_error, 0.75),
                "val_rmse_median": float(g.val_rmse.median()),
                "val_rmse_q1": q(g.val_rmse, 0.25),
                "val_rmse_q3": q(g.val_rmse, 0.75),
                "val_rmse_true_median": float(g.val_rmse_true.median()),
                "train_rmse_median": float(g.train_rmse.median()),
                "seeds": int(g.seed.nunique()),
                "periods": int(g.periods.iloc[0]),
                "raw_samples": int(g.raw_samples.iloc[0]),
                "data_factor": int(g.periods.iloc[0]),
                "rows": int(g.rows.iloc[0]),
            }
        )
    return pd.DataFrame(rows)
