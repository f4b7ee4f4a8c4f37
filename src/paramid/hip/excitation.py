"""The hip comparison: paper Eq 18 vs a designed Fourier excitation on the hip twin.

:func:`hip_regressor` is the design regressor of the 1-DOF hip model (Eq 6) for
:func:`paramid.excitation.design.design`; :func:`compare_hip` simulates each calibration
protocol (:class:`Variant`: Eq 18, the designed trajectory for one period, or P periods
averaged into one) with the hip twin over several noise seeds, identifies the hip (RLS box and
BCLS, or LS) and scores the estimates on the Eq 19 validation record; :func:`summarise` makes
the comparison table.  :func:`design_inputs` and :func:`compare_design` are the two workflow
steps (design, then comparison) on a hip study's config.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from paramid import estimators, signals, simulation
from paramid.excitation.design import RegressorFn, criterion_value
from paramid.excitation.fourier import Array, FourierTrajectory, JointLimits, grid, reached_limits
from paramid.friction.laws import sign_or_tanh
from paramid.hip import model, pipeline, twin

#: Units of the per-seed comparison frame's columns beside the parameters'.
COMPARISON_UNITS = {
    "trajectory": "1",
    "seed": "1",
    "plant_coulomb_smoothing": "rad/s",
    "param_error": "1",
    "train_rmse": "N m",
    "val_rmse": "N m",
    "val_rmse_true": "N m",
    "cond_signals": "1",
    "periods": "1",
    "raw_samples": "1",
    "rows": "1",
}


def hip_regressor(keys: Sequence[str], gravity: float) -> RegressorFn:
    """Regressor function for the 1-DOF model of Eq 6 (``paramid.hip.model.regressor``), with the
    sgn(q̇) column replaced by tanh(q̇/v_s) when a smoothing v_s > 0 is passed."""
    keys = list(keys)
    model.check_columns(keys)

    def fn(q: Array, qd: Array, qdd: Array, smoothing: float) -> Array:
        q, qd, qdd = (np.asarray(x).reshape(-1) for x in (q, qd, qdd))
        H = model.regressor(keys, q, qd, qdd, gravity)
        if smoothing > 0 and "sign_qd" in keys:
            H[:, keys.index("sign_qd")] = sign_or_tanh(qd, smoothing)
        return H

    return fn


def design_inputs(
    base: Mapping[str, Any], design: Mapping[str, Any]
) -> tuple[RegressorFn, JointLimits, dict[str, Any]]:
    """What the hip design needs of a hip study (``base``: regressor, gravity, records) and its
    design block (``limits_from_record``, ``period_s``, ``grid_points``): the Eq 6 regressor,
    the limits Eq 18 reaches over that record (on a 0.1 ms grid), and the paper's trajectory
    scored on the design grid under those limits (design.json's ``reference``)."""
    record = design["limits_from_record"]
    spec = base["records"][record]
    reference = simulation.Trajectory.from_config(spec["trajectory"])
    dense = np.arange(int(round(spec["duration_s"] * 1e4))) / 1e4
    limits = reached_limits(reference, dense)
    fn = hip_regressor(base["regressor"], base["gravity"])
    t = np.asarray(grid(design["period_s"], design["grid_points"]), dtype=np.float64)
    H = fn(*reference.evaluate(t), 0.0)
    entry = {
        "name": f"paper ({record} record, Eq 18)",
        "cond": criterion_value(H, "cond"),
        "dopt": criterion_value(H, "dopt"),
        "limits_reached": limits.to_dict(),
    }
    return fn, limits, entry


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


def _calibration(v: Variant, settings: twin.TwinSettings, seed: int) -> simulation.Record:
    """A variant's calibration record on one twin seed: whole periods where they are averaged
    or filtered as periodic (:func:`simulate_periods`), else its duration as given (the
    paper's Eq 18 record spans the study's calibration duration, any number of samples)."""
    if v.periods > 1 or v.periodic_filter:
        return simulate_periods(v.trajectory, v.period_s, v.periods, settings, seed, "calibration")
    return twin.simulate(v.trajectory, v.period_s, settings, seed, "calibration")


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


def _stacked(recs: Sequence[simulation.Record]) -> dict[str, Array]:
    """The records of S twin seeds as (S, N) arrays (one time axis)."""
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
    val = _stacked(
        [
            twin.simulate(validation, validation_duration_s, setup.settings, s, "validation")
            for s in seeds
        ]
    )
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
        cal = _stacked([_calibration(v, setup.settings, s) for s in seeds])
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


def slow_shares(
    variants: Sequence[Variant], speed: float, points: int = 2001
) -> dict[str, float] | None:
    """Per variant, the share of one period spent below ``speed`` [rad/s] (|q̇| < v_s): where a
    plant's smooth Coulomb law departs from the model's sgn (Eq 2); None for an exact-sgn plant
    (``speed`` 0), where there is no such band."""
    if speed <= 0:
        return None
    shares = {}
    for v in variants:
        t = np.linspace(0.0, v.period_s, points)
        qd = np.asarray(v.trajectory.evaluate(t)[1]).reshape(t.size, -1)[:, 0]
        shares[v.name] = float(np.mean(np.abs(qd) < speed))
    return shares


def summarise(
    per_seed: pd.DataFrame,
    cond: Mapping[str, float],
    slow: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """comparison.csv: per trajectory the design-grid cond (exact sgn), medians and IQRs over
    seeds of the relative parameter error and RMSEs, the two-sided Wilcoxon signed-rank test of
    each against the first trajectory (paired by seed: ``*_p``) and the seeds it beats that one
    on (``*_wins``), the share of its period below the plant's Coulomb smoothing speed
    (``slow``, :func:`slow_shares`) and how much data each variant used."""
    import scipy.stats

    def q(x: pd.Series, p: float) -> float:
        return float(np.quantile(x, p))

    first = per_seed["trajectory"].iloc[0]
    reference = per_seed[per_seed["trajectory"] == first].set_index("seed")
    rows = []
    for name, g in per_seed.groupby("trajectory", sort=False):
        if set(g["seed"]) != set(reference.index):
            raise ValueError(f"{name}: its seeds are not {first}'s: no pairs to test")
        paired: dict[str, float] = {}
        for column in ("param_error", "val_rmse"):
            ours = g.set_index("seed")[column]
            theirs = reference.loc[ours.index, column]
            differ = name != first and bool(np.any(ours.to_numpy() != theirs.to_numpy()))
            p = float(scipy.stats.wilcoxon(ours, theirs).pvalue) if differ else float("nan")
            paired[f"{column}_p"] = p
            paired[f"{column}_wins"] = float(np.sum(ours < theirs)) if name != first else np.nan
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
                **paired,
                "slow_share": float("nan") if slow is None else slow[name],
                "seeds": int(g.seed.nunique()),
                "periods": int(g.periods.iloc[0]),
                "raw_samples": int(g.raw_samples.iloc[0]),
                "data_factor": int(g.periods.iloc[0]),
                "rows": int(g.rows.iloc[0]),
            }
        )
    return pd.DataFrame(rows)


def setup_of(base: Mapping[str, Any], estimator: str) -> HipSetup:
    """The identification chain of a hip study's config (``twin``, ``gravity``, ``regressor``,
    ``signals``, ``rls``) with ``estimator`` (``bcls`` or ``ls``)."""
    s = base["signals"]
    return HipSetup(
        settings=twin.TwinSettings.from_config({**base["twin"], "gravity": base["gravity"]}),
        keys=tuple(base["regressor"]),
        cutoff_hz=s["cutoff_hz"],
        filter_order=s["filter_order"],
        trim_s=s["trim_s"],
        rls=base["rls"],
        estimator=estimator,
    )


@dataclass(frozen=True)
class DesignComparison:
    """The hip comparison's outputs: the per-seed rows on the study's plant, their table
    (:func:`summarise`), the same table for every plant smoothing of the sensitivity, and the
    per-seed rows' units."""

    per_seed: pd.DataFrame
    table: pd.DataFrame
    sensitivity: pd.DataFrame
    units: dict[str, str]


def compare_design(
    base: Mapping[str, Any], comparison: Mapping[str, Any], design: Mapping[str, Any]
) -> DesignComparison:
    """Paper Eq 18 vs the designed excitation (design.json content ``design``) for one period
    and for ``periods`` periods averaged, over ``seeds`` twin seeds from the study's own
    (:func:`compare_hip`), on the study's plant and on each plant Coulomb smoothing of
    ``sensitivity_coulomb_smoothing`` (column ``plant_coulomb_smoothing``)."""
    setup = setup_of(base, comparison["estimator"])
    cal, val = base["records"]["calibration"], base["records"]["validation"]
    designed = FourierTrajectory.from_dict(design["trajectory"])
    period = float(design["trajectory"]["period_s"])
    variants = [
        Variant(
            "paper_eq18", simulation.Trajectory.from_config(cal["trajectory"]), cal["duration_s"]
        ),
        Variant("designed", designed, period),
        Variant(
            "designed_averaged",
            designed,
            period,
            comparison["periods"],
            comparison["periodic_filter"],
        ),
    ]
    validation = simulation.Trajectory.from_config(val["trajectory"])
    seeds = twin.noise_seeds(base["twin"], comparison["seeds"])
    cond = {
        "paper_eq18": design["reference"]["cond"],
        "designed": design["cond"],
        "designed_averaged": design["cond"],
    }
    settings = setup.settings
    frames = {}
    for v_s in [settings.coulomb_smoothing_velocity, *comparison["sensitivity_coulomb_smoothing"]]:
        plant = dataclasses.replace(
            setup, settings=dataclasses.replace(settings, coulomb_smoothing_velocity=float(v_s))
        )
        per_seed = compare_hip(variants, validation, val["duration_s"], plant, seeds)
        per_seed.insert(2, "plant_coulomb_smoothing", float(v_s))
        frames[float(v_s)] = per_seed
    main = frames[settings.coulomb_smoothing_velocity]
    sensitivity = []
    for v_s, frame in frames.items():
        table = summarise(frame, cond, slow_shares(variants, v_s))
        table.insert(1, "plant_coulomb_smoothing", v_s)
        sensitivity.append(table)
    slow = slow_shares(variants, settings.coulomb_smoothing_velocity)
    return DesignComparison(
        per_seed=main,
        table=summarise(main, cond, slow),
        sensitivity=pd.concat(sensitivity, ignore_index=True),
        units=COMPARISON_UNITS | model.parameter_units(setup.keys),
    )
