"""The workflow side of a multi-joint study (``robots:`` in config.yaml; rules robot.smk).

Glue between the stages' files and :mod:`paramid.robot`: the robot of a study block, records
and processed signals as Parquet in one layout (``time``, ``q_<joint>``, ``dq_<joint>``,
``ddq_<joint>``, ``tau_<joint>``), the base parameters as JSON and back, the identification
problem of the calibration records, fits as Parquet, and the study's tables:

- ``validation.csv``: per method × validation record × joint, the RMSE [N m] of the predicted
  torque against the torque **as recorded** (not filtered) at the retained samples, and
  ``rel_rmse`` = RMSE / RMS of the recorded torque;
- ``parameters.csv``: per method and base parameter, estimate and standard error (OLS, WLS)
  or the searched box (BCLS, population methods);
- ``consistency.csv``: per method and moving link, mass and smallest eigenvalue of the
  pseudo-inertia of the standard parameters (a base-only estimate is completed with the URDF's
  values of the dependent parameters, :func:`paramid.robot.estimators.standard_completion`);
- ``recovery.csv`` (twin studies): per method and base parameter, the truth, the error and
  whether the 95 % interval (±1.96 standard errors) covers it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import io
from paramid.robot import estimators
from paramid.robot.base import BaseParameters, base_columns
from paramid.robot.consistency import link_report
from paramid.robot.model import (
    Robot,
    friction_columns,
    link_parameter_slices,
    load_robot,
    regressor,
    urdf_parameters,
)
from paramid.robot.signals import ProcessedRecord

Array = NDArray[np.float64]
CHANNELS = ("q", "dq", "ddq", "tau")
UNITS = {"time": "s", "q": "rad", "dq": "rad/s", "ddq": "rad/s^2", "tau": "N m"}
Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def robot_of(block: Mapping[str, Any]) -> Robot:
    """The robot of a validated ``robots.<study>`` block (URDF, joints, locked, friction, offset;
    the schema fills their defaults)."""
    return load_robot(
        block["urdf"],
        block["joints"],
        locked=block["locked"] or {},
        friction=block["friction"],
        offset=bool(block["offset"]),
    )


def channel_frame(time: Array, channels: Mapping[str, Array | None], joints: Sequence[str]):
    """``time`` and ``<channel>_<joint>`` columns (channels that are None are left out), with
    their units."""
    columns: dict[str, Array] = {"time": time}
    units = {"time": "s"}
    for name, values in channels.items():
        if values is None:
            continue
        for k, joint in enumerate(joints):
            columns[f"{name}_{joint}"] = values[:, k]
            units[f"{name}_{joint}"] = UNITS[name]
    return pd.DataFrame(columns), units


def _channel(frame: pd.DataFrame, name: str, joints: Sequence[str]) -> Array:
    return frame[[f"{name}_{j}" for j in joints]].to_numpy(np.float64)


def write_signals(part: ProcessedRecord, joints: Sequence[str], path: str | Path, meta) -> None:
    """A processed record as Parquet (time, q, dq, ddq, tau per joint)."""
    frame, units = channel_frame(part.time, {c: getattr(part, c) for c in CHANNELS}, joints)
    meta = {**meta, "sample_rate_hz": part.sample_rate_hz, "cutoff_hz": part.cutoff_hz}
    io.write_parquet(frame, path, units=units, meta=meta)


def read_signals(path: str | Path, joints: Sequence[str]) -> ProcessedRecord:
    """The processed record written by :func:`write_signals`."""
    frame, meta = io.read_parquet(path)
    arrays = {c: _channel(frame, c, joints) for c in CHANNELS}
    return ProcessedRecord(
        time=frame["time"].to_numpy(np.float64),
        sample_rate_hz=float(meta["sample_rate_hz"]),
        cutoff_hz=float(meta["cutoff_hz"]),
        **arrays,
    )


def base_summary(base: BaseParameters, robot: Robot, W: Array) -> dict[str, Any]:
    """base.json: counts, names, expressions, the map (independent, dependent, K), the rank and
    the condition numbers of the stacked calibration base regressor W (raw and with unit-norm
    columns)."""
    R = np.linalg.qr(W, mode="r")
    scaled = R / np.linalg.norm(R, axis=0)
    n_friction = robot.n_parameters - robot.n_inertial
    return {
        "counts": {
            "standard": robot.n_parameters,
            "standard_inertial": robot.n_inertial,
            "friction": n_friction,
            "base": base.rank,
            "base_inertial": int(np.sum(base.independent < robot.n_inertial)),
            "rows": int(W.shape[0]),
        },
        "rank": base.rank,
        "rel_tol": base.tolerance,
        "cond": float(np.linalg.cond(R)),
        "cond_scaled": float(np.linalg.cond(scaled)),
        "names": list(base.names),
        "expressions": list(base.expressions),
        "standard_names": list(base.standard_names),
        "independent": base.independent.tolist(),
        "dependent": base.dependent.tolist(),
        "K": base.K.tolist(),
    }


def base_from_json(summary: Mapping[str, Any]) -> BaseParameters:
    """The :class:`BaseParameters` stored by :func:`base_summary`."""
    dependent = np.array(summary["dependent"], dtype=np.intp)
    K = np.array(summary["K"], dtype=np.float64).reshape(summary["rank"], dependent.size)
    return BaseParameters(
        independent=np.array(summary["independent"], dtype=np.intp),
        dependent=dependent,
        K=K,
        names=tuple(summary["names"]),
        expressions=tuple(summary["expressions"]),
        standard_names=tuple(summary["standard_names"]),
        rank=int(summary["rank"]),
        tolerance=float(summary["rel_tol"]),
    )


def standard_regressors(robot: Robot, parts: Sequence[ProcessedRecord]) -> list[Array]:
    """The standard regressor (K, n, p) of each processed record."""
    return [regressor(robot, p.q, p.dq, p.ddq) for p in parts]


def problem(
    robot: Robot, base: BaseParameters, parts: Sequence[ProcessedRecord], study: str
) -> estimators.Problem:
    """The identification problem of the calibration records (stacked, joint-major)."""
    friction = friction_columns(robot)
    columns = [np.asarray(friction[t], dtype=np.intp) for t in ("fv", "fc") if t in friction]
    nonnegative = np.sort(np.concatenate(columns)) if columns else np.zeros(0, dtype=np.intp)
    return estimators.make_problem(
        standard_regressors(robot, parts),
        [p.tau for p in parts],
        base,
        base.names,
        theta_urdf=urdf_parameters(robot),
        links=link_parameter_slices(robot),
        nonnegative=nonnegative,
        sample_rate_hz=parts[0].sample_rate_hz,
        study=study,
    )


def fit_frame(fit: estimators.Fit, base: BaseParameters) -> pd.DataFrame:
    """One row per parameter: ``kind`` base (the estimate), standard (urdf, lmi) or run (every
    seeded run of a population method, ``run`` its index; -1 otherwise)."""
    r = base.rank
    nan = np.full(r, np.nan)
    rows = [
        pd.DataFrame(
            {
                "kind": "base",
                "run": -1,
                "parameter": list(base.names),
                "value": fit.base,
                "stderr": nan if fit.stderr is None else fit.stderr,
                "lower": nan if fit.lower is None else fit.lower,
                "upper": nan if fit.upper is None else fit.upper,
            }
        )
    ]
    if fit.standard is not None:
        p = len(base.standard_names)
        rows.append(
            pd.DataFrame(
                {"kind": "standard", "run": -1, "parameter": list(base.standard_names)}
                | {"value": fit.standard, "stderr": np.full(p, np.nan)}
                | {"lower": np.full(p, np.nan), "upper": np.full(p, np.nan)}
            )
        )
    for k, values in enumerate([] if fit.runs is None else fit.runs):
        rows.append(
            pd.DataFrame(
                {"kind": "run", "run": k, "parameter": list(base.names), "value": values}
                | {"stderr": nan, "lower": nan, "upper": nan}
            )
        )
    return pd.concat(rows, ignore_index=True)


FIT_UNITS = {
    "kind": "-",
    "run": "-",
    "parameter": "-",
    "value": "SI",
    "stderr": "SI",
    "lower": "SI",
    "upper": "SI",
}


def fit_vectors(frame: pd.DataFrame) -> tuple[Array, Array | None]:
    """(base estimate, standard parameters or None) of a fit frame."""
    base = frame.loc[frame["kind"] == "base", "value"].to_numpy(np.float64)
    standard = frame.loc[frame["kind"] == "standard", "value"].to_numpy(np.float64)
    return base, (standard if standard.size else None)


def predict(robot: Robot, base: BaseParameters, part: ProcessedRecord, beta: Array) -> Array:
    """Predicted torque (K, n) of a processed record with base parameters β."""
    Y = regressor(robot, part.q, part.dq, part.ddq)
    return base_columns(Y, base) @ beta


def validation_table(predictions: Mapping[str, pd.DataFrame], joints: Sequence[str]):
    """validation.csv from each method's predictions frame (module docstring)."""
    rows = []
    for method, frame in predictions.items():
        for record, part in frame.groupby("record", sort=False):
            for joint in joints:
                measured = part[f"tau_meas_{joint}"].to_numpy(np.float64)
                error = part[f"tau_pred_{joint}"].to_numpy(np.float64) - measured
                rmse = float(np.sqrt(np.mean(error**2)))
                scale = float(np.sqrt(np.mean(measured**2)))
                rows.append((method, record, joint, rmse, rmse / scale if scale else np.nan))
    return pd.DataFrame(rows, columns=["method", "record", "joint", "rmse", "rel_rmse"])


def parameters_table(fits: Mapping[str, pd.DataFrame], base: BaseParameters) -> pd.DataFrame:
    """parameters.csv: the base estimate of every method with its standard error and box."""
    expression = dict(zip(base.names, base.expressions, strict=True))
    rows = []
    for method, frame in fits.items():
        part = frame[frame["kind"] == "base"].drop(columns=["kind", "run"])
        rows.append(part.assign(method=method, expression=part["parameter"].map(expression)))
    columns = ["method", "parameter", "value", "stderr", "lower", "upper", "expression"]
    return pd.concat(rows, ignore_index=True)[columns]


def consistency_table(
    fits: Mapping[str, pd.DataFrame], base: BaseParameters, robot: Robot
) -> pd.DataFrame:
    """consistency.csv: mass and smallest pseudo-inertia eigenvalue per method and link."""
    links = link_parameter_slices(robot)
    prior = urdf_parameters(robot)
    rows = []
    for method, frame in fits.items():
        beta, standard = fit_vectors(frame)
        source = "fit"
        if standard is None:
            standard = estimators.standard_completion(beta, base, prior)
            source = "base + URDF dependent parameters"
        rows += [
            (method, k.link, k.mass, k.min_eigenvalue, k.consistent, source)
            for k in link_report(standard, links)
        ]
    columns = ["method", "link", "mass", "min_eigenvalue", "consistent", "standard_from"]
    return pd.DataFrame(rows, columns=columns)


def recovery_table(
    fits: Mapping[str, pd.DataFrame], base: BaseParameters, truth: Array
) -> pd.DataFrame:
    """recovery.csv (twin): truth, estimate, relative error and 95 % coverage per parameter."""
    true_base = estimators.to_base(truth, base)
    rows = []
    for method, frame in fits.items():
        part = frame[frame["kind"] == "base"]
        value = part["value"].to_numpy(np.float64)
        stderr = part["stderr"].to_numpy(np.float64)
        error = value - true_base
        scale = np.maximum(np.abs(true_base), 1e-12)
        covered = np.where(np.isfinite(stderr), np.abs(error) <= Z95 * stderr, np.nan)
        rows.append(
            pd.DataFrame(
                {"method": method, "parameter": list(base.names), "true": true_base}
                | {"estimate": value, "stderr": stderr, "rel_error": np.abs(error) / scale}
                | {"covered_95": covered}
            )
        )
    return pd.concat(rows, ignore_index=True)
