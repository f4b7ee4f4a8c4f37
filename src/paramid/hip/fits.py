"""Fits of the hip chain as tables (§4.1–4.3): one row per run, the parameters of Eq 5 in the
regressor's order, training and validation RMSE (Eq 13, 21), time per run and evaluations.

:func:`fit_deterministic` runs LS or BCLS (Eq 17) timed, :func:`run_population` a population
method's seeded runs in its box; :func:`deterministic_frame` and :func:`population_frames` make
the frames the workflow writes (the population method's best-so-far history too);
:func:`fit_units` their units; :func:`judge_deterministic` what a deterministic fit says of
both records (why it stops the study, what to warn of).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import estimators, plausibility, population
from paramid.hip import model
from paramid.optim.grey_wolf import adaptive_exponent
from paramid.plausibility import FitQuality
from paramid.population import PopulationFit

Array = NDArray[np.float64]
HISTORY_UNITS = {"run": "1", "iteration": "1", "best_train_rmse": "N m"}


def fit_units(keys: Sequence[str]) -> dict[str, str]:
    """Units of a fit frame's columns for the regressor ``keys``."""
    units = {"run": "1", "seed": "1", **model.parameter_units(keys)}
    return units | {"train_rmse": "N m", "val_rmse": "N m", "time_ms": "ms", "n_evals": "1"}


def deterministic_estimate(
    method: str, H: Array, y: Array, lower: Array | None, upper: Array | None
) -> Array:
    """LS, or BCLS in the RLS box [lower, upper] (Eq 17)."""
    if method == "ls":
        return estimators.ls(H, y)
    if method == "bcls" and lower is not None and upper is not None:
        return estimators.bcls(H, y, lower, upper)
    raise ValueError(f"unknown deterministic method {method!r} (or BCLS without its box)")


def fit_deterministic(
    method: str, H: Array, y: Array, box: Mapping[str, Sequence[float]] | None, repeats: int
) -> estimators.Timed:
    """:func:`deterministic_estimate` in the RLS box ``box`` (``lower``, ``upper``), timed as
    the median of ``repeats`` calls."""
    lower, upper = (
        (None, None) if box is None else (np.asarray(box["lower"]), np.asarray(box["upper"]))
    )
    return estimators.timed(lambda: deterministic_estimate(method, H, y, lower, upper), repeats)


@dataclass(frozen=True)
class DeterministicJudgement:
    """A deterministic fit on both records: its RMSE on each (Eq 13, 21), its residuals'
    quality on each (:func:`paramid.plausibility.fit_quality`), the validation record's gap
    (:func:`paramid.plausibility.validation_gap`), why it stops the study (None: it does not)
    and the warnings to log, in order (only the torque sign's where it stops the study)."""

    train_rmse: float
    val_rmse: float
    calibration: FitQuality
    validation: FitQuality
    validation_gap: str | None
    problem: str | None
    warnings: tuple[str, ...]

    def metadata(self) -> dict[str, Any]:
        """The judgement as fields of the fit's metadata."""
        return {
            "explained_variance": self.calibration.explained_variance,
            "residual_spikes": self.calibration.spikes,
            "residual_spikes_at_reversals": self.calibration.spikes_at_reversals,
            "spike_threshold_n_m": self.calibration.spike_threshold_n_m,
            "validation_warning": self.validation_gap or "",
            "validation_spikes": self.validation.spikes,
            "validation_rmse_without_spikes": self.validation.rmse_without_spikes,
        }


def judge_deterministic(
    method: str,
    keys: Sequence[str],
    x: Array,
    calibration: tuple[Array, Array, Array],
    validation: tuple[Array, Array, Array],
    *,
    spike_mad_k: float,
    min_explained_variance: float,
    skip_torque_sign: bool,
) -> DeterministicJudgement:
    """The estimate ``x`` of ``method`` on the regressor ``keys`` judged on the calibration and
    validation records, each as (H, y, q̇): an inverted torque sign or too little explained
    variance stops the study (:func:`paramid.plausibility.fit_verdict`; the sign only warns
    where ``skip_torque_sign``); isolated residual spikes beyond ``spike_mad_k`` scaled MADs
    on either record and a validation RMSE far above the training RMSE are warnings."""
    H, y, velocity = calibration
    H_val, y_val, velocity_val = validation
    quality = plausibility.fit_quality(H, y, x, spike_mad_k, velocity)
    problem, sign = plausibility.fit_verdict(
        H, y, keys, quality, min_explained_variance, skip_torque_sign
    )
    train, val = estimators.rmse(H, y, x), estimators.rmse(H_val, y_val, x)
    gap = plausibility.validation_gap(train, val)
    held_out = plausibility.fit_quality(H_val, y_val, x, spike_mad_k, velocity_val)
    warnings = [sign] if sign else []
    if not problem:
        if quality.spikes:
            warnings.append(
                f"{quality.spikes} isolated spike(s) in the calibration residual (|r| > "
                f"{quality.spike_threshold_n_m:.4g} N m = {spike_mad_k:g} scaled MADs), "
                f"{quality.spikes_at_reversals} of them at velocity reversals (the Coulomb "
                "term's step, not the sensor)"
            )
        if gap:
            warnings.append(f"{method}: {gap}")
        if held_out.spikes:
            warnings.append(f"{method}: {plausibility.validation_spikes(held_out)}")
    return DeterministicJudgement(train, val, quality, held_out, gap, problem, tuple(warnings))


@dataclass(frozen=True)
class PopulationRun:
    """A population method's fit with the box it searched and its optimiser's settings."""

    fit: PopulationFit
    lower: Array
    upper: Array
    settings: dict[str, Any]


def run_population(
    method: str,
    cfg: Mapping[str, Any],
    rls: Mapping[str, Any] | None,
    H: Array,
    y: Array,
    H_val: Array,
    y_val: Array,
) -> PopulationRun:
    """Every seeded run of a population method on a hip study (``cfg``: ``study``,
    ``regressor``, ``population`` and the optimisers' blocks of Table 2) in one batched call:
    in the RLS box of the RLS summary ``rls`` (``lower``, ``upper``; γ for AGWO, Eq 10) or,
    for plain PSO, the standard box (``rls`` None: it needs none); scored on both records
    (Eq 13, 21)."""
    pop = cfg["population"]
    box = rls or {"lower": None, "upper": None, "gamma": float("nan")}
    lower, upper = population.search_box(
        method, len(cfg["regressor"]), box["lower"], box["upper"], pop["standard_box"]
    )
    block = cfg.get(population.POPULATION_METHODS[method].optimiser, {})  # GWO's: none
    settings = population.optimiser_settings(method, block, box["gamma"])
    fit = population.fit_population(
        method, H, y, H_val, y_val, lower, upper,
        study=cfg["study"],
        runs=pop["runs"],
        population=pop["size"],
        iterations=pop["iterations"],
        settings=settings,
        timing_repeats=pop["timing_repeats"],
    )  # fmt: skip
    return PopulationRun(fit=fit, lower=lower, upper=upper, settings=settings)


def agwo_exponent(method: str, settings: Mapping[str, Any]) -> dict[str, float]:
    """RLS-AGWO's μ(γ) of Eq 12 from its optimiser ``settings`` (γ, mu_base, kappa) under
    ``mu_eq12``, for its fit's metadata beside them; nothing for the other methods."""
    if method != "rls_agwo":
        return {}
    return {"mu_eq12": float(adaptive_exponent(**settings))}


def population_summary(fit: PopulationFit) -> tuple[float, NDArray[np.int64], float]:
    """(median validation RMSE [N m] over the seeded runs (Eq 21), their distinct evaluation
    counts, median time per run [ms] over the repeats of the batched call): one method's
    line in the log."""
    return (
        float(np.median(fit.val_rmse)),
        np.unique(fit.n_evals),
        float(np.median(fit.time_ms_per_run)),
    )


def box_edge_warning(
    run: PopulationRun,
    method: str,
    names: Sequence[str],
    H: Array,
    y: Array,
    mechanical: Mapping[str, Mapping[str, float]] | None,
) -> str | None:
    """Why ``run``'s seeded runs sit on their search box (:func:`paramid.population.box_edges`,
    ``mechanical``: the RLS box's physical edges), judged against the box's least-squares
    optimum on the calibration record (Eq 21's minimum in the same box, BCLS); None where
    they do not."""
    optimum = estimators.bcls(H, y, run.lower, run.upper)
    return population.box_edges(method, names, run.fit.x, run.lower, run.upper, mechanical, optimum)


def deterministic_frame(
    names: Sequence[str], x: Array, train_rmse: float, val_rmse: float, time_ms: float
) -> pd.DataFrame:
    """The one-row frame of a deterministic fit (run 0, no seed, no evaluation count)."""
    row = {"run": 0, "seed": pd.NA, **dict(zip(names, x, strict=True))}
    row |= {"train_rmse": train_rmse, "val_rmse": val_rmse, "time_ms": time_ms, "n_evals": pd.NA}
    return pd.DataFrame([row]).astype({"run": "int64", "seed": "Int64", "n_evals": "Int64"})


def population_frames(
    names: Sequence[str], fit: PopulationFit
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(one row per seeded run, the best-so-far training RMSE per run and iteration); the time
    per run is the median over the repeats of the batched call."""
    runs = np.arange(fit.x.shape[0])
    frame = pd.DataFrame({"run": runs, "seed": runs})
    frame[list(names)] = fit.x
    frame["train_rmse"] = fit.train_rmse
    frame["val_rmse"] = fit.val_rmse
    frame["time_ms"] = float(np.median(fit.time_ms_per_run))
    frame["n_evals"] = fit.n_evals.astype("int64")
    frame = frame.astype({"seed": "Int64", "n_evals": "Int64"})
    iterations = np.arange(1, fit.history.shape[1] + 1)
    history = pd.DataFrame(
        {
            "run": np.repeat(runs, iterations.size),
            "iteration": np.tile(iterations, runs.size),
            "best_train_rmse": fit.history.ravel(),
        }
    )
    return frame, history
