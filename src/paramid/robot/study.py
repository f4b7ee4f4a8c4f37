"""The workflow side of a multi-joint study (``robots:`` in config.yaml; rules robot.smk).

Glue between the stages' files and :mod:`paramid.robot`: the robot of a study block, records
and processed signals as Parquet in one layout (``time``, ``q_<joint>``, ``dq_<joint>``,
``ddq_<joint>``, ``tau_<joint>``), the base parameters as JSON and back, the identification
problem of the calibration records, fits as Parquet, and the study's tables:

- ``validation.csv``: per method × validation record × joint, the RMSE [N m] of the predicted
  torque against the torque **as recorded** (not filtered) at the retained samples,
  ``rel_rmse`` = RMSE / RMS of the recorded torque, and the RMSE split at the record's
  low-pass cutoff (``rmse_below_cutoff``, ``rmse_above_cutoff``; their squares sum to the
  RMSE's): what lies above is torque content that a model fed states filtered at the cutoff
  cannot follow (sensor noise, current ripple, vibration);
- ``parameters.csv``: per method and base parameter, estimate and standard error (OLS, WLS)
  or the searched box (BCLS, population methods);
- ``consistency.csv``: per method and moving link, mass and smallest eigenvalue of the
  pseudo-inertia of the standard parameters (a base-only estimate is completed with the URDF's
  values of the dependent parameters, :func:`paramid.robot.estimators.standard_completion`);
- ``recovery.csv`` (twin studies): per method and base parameter, the truth, the error (no
  relative error where the truth is 0 at the base's rank tolerance) and whether the 95 %
  interval (±1.96 standard errors) covers it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import signals
from paramid.base_parameters import (
    AmbiguousRank,
    BaseParameters,
    base_columns,
    base_parameters,
    unidentified,
)
from paramid.plausibility import REVERSAL_SPEED_SHARE, STILL_RAD
from paramid.robot import estimators, priors
from paramid.robot.base import hidden_masses, structural_base
from paramid.robot.compression import CHUNK, Compressed, compress_records, usable_gap
from paramid.robot.consistency import link_report
from paramid.robot.model import (
    ARMATURE,
    CHANNEL_UNITS,
    OFFSET,
    Robot,
    RobotError,
    coordinate_unit,
    extended_regressor,
    friction_columns,
    held_offsets,
    independent_followers,
    joint_kinds,
    joint_units,
    law_columns,
    link_parameter_slices,
    massless_inertias,
    parameter_units,
    regressor,
    robot_from_urdf,
    torque_unit,
    unmodelled_dynamics,
    urdf_friction_parameters,
    urdf_parameters,
    with_coulomb,
    with_offsets,
)
from paramid.robot.signals import ProcessedRecord

Array = NDArray[np.float64]
CHANNELS = ("q", "dq", "ddq", "tau")
Z95 = 1.959963984540054  # two-sided 95 % normal quantile


def robot_of(block: Mapping[str, Any], urdf: str, physical: bool = True) -> Robot:
    """The robot of a validated ``robots.<study>`` block (joints, locked, friction, offset,
    armature; the schema fills their defaults) on the text ``urdf`` of its URDF file
    (:func:`paramid.io.read_urdf` of ``block["urdf"]``; ``physical``: as
    :func:`paramid.robot.model.robot_from_urdf` has it, false for a reference model)."""
    return robot_from_urdf(
        urdf,
        block["urdf"],
        block["joints"],
        locked=block["locked"] or {},
        friction=block["friction"],
        offset=block["offset"] in (True, "auto"),
        armature=bool(block["armature"]),
        physical=physical,
    )


def log_robot(block: Mapping[str, Any], urdf: str) -> Robot:
    """The robot a joint log is read against: its joints' kinds and units, from the URDF text
    ``urdf``, the moving and the locked joints of ``block`` alone (no friction, offset or
    armature column: those enter the fits)."""
    return robot_from_urdf(
        urdf, block["urdf"], block["joints"], locked=block["locked"] or {}, friction=()
    )


def channel_frame(
    time: Array,
    channels: Mapping[str, Array | None],
    joints: Sequence[str],
    units: Sequence[Mapping[str, str]],
) -> tuple[pd.DataFrame, dict[str, str]]:
    """``time`` and ``<channel>_<joint>`` columns (channels that are None are left out), with
    their units (``units``: per joint, its channels' units, :func:`paramid.robot.model.
    joint_units`)."""
    columns: dict[str, Array] = {"time": time}
    column_units = {"time": "s"}
    for name, values in channels.items():
        if values is None:
            continue
        for k, joint in enumerate(joints):
            columns[f"{name}_{joint}"] = values[:, k]
            column_units[f"{name}_{joint}"] = units[k][name]
    return pd.DataFrame(columns), column_units


def units_of(column_units: Mapping[str, str], joints: Sequence[str]) -> list[dict[str, str]]:
    """Per joint, its channels' units as a table of :func:`channel_frame` states them (by the
    unit of its ``q_<joint>`` column)."""
    return [CHANNEL_UNITS[column_units[f"q_{joint}"]] for joint in joints]


def _channel(frame: pd.DataFrame, name: str, joints: Sequence[str]) -> Array:
    return frame[[f"{name}_{j}" for j in joints]].to_numpy(np.float64)


def signals_frame(
    part: ProcessedRecord, joints: Sequence[str], joint_units: Sequence[Mapping[str, str]]
) -> tuple[pd.DataFrame, dict[str, str], dict[str, float]]:
    """A processed record as a table (time, q, dq, ddq, tau per joint), its units (per joint:
    ``joint_units``) and the metadata :func:`signals_of` needs (sample rate, cutoff)."""
    channels = {c: getattr(part, c) for c in CHANNELS}
    frame, units = channel_frame(part.time, channels, joints, joint_units)
    return frame, units, {"sample_rate_hz": part.sample_rate_hz, "cutoff_hz": part.cutoff_hz}


def signals_of(
    frame: pd.DataFrame, meta: Mapping[str, Any], joints: Sequence[str]
) -> ProcessedRecord:
    """The processed record of a table and metadata of :func:`signals_frame`."""
    arrays = {c: _channel(frame, c, joints) for c in CHANNELS}
    return ProcessedRecord(
        time=frame["time"].to_numpy(np.float64),
        sample_rate_hz=float(meta["sample_rate_hz"]),
        cutoff_hz=float(meta["cutoff_hz"]),
        **arrays,
    )


def base_summary(base: BaseParameters, robot: Robot, W: Array, rows: int) -> dict[str, Any]:
    """base.json: counts, names, expressions, the map (independent, dependent, K), the rank and
    the condition numbers of the stacked calibration base regressor W of ``rows`` rows (raw and
    with unit-norm columns; W may be its compression)."""
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
            "rows": int(rows),
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


def gap_samples(part: ProcessedRecord, gap_s: float | str) -> int:
    """The cross-validation gap of a record in samples; ``auto``: two periods of its cutoff."""
    seconds = 2.0 / part.cutoff_hz if gap_s == "auto" else float(gap_s)
    return int(round(seconds * part.sample_rate_hz))


def shortened_gaps(
    parts: Sequence[ProcessedRecord], *, folds: int, gap_s: float | str
) -> list[tuple[int, int, int]]:
    """(record index, gap asked, gap used) [samples] of each calibration record whose
    cross-validation gap (``gap_s``, :func:`gap_samples`) is cut to a quarter of one of its
    ``folds`` (:func:`paramid.robot.compression.usable_gap`): its held-out blocks then have
    neighbours in training closer than the gap asks, and their scores are optimistic."""
    out = []
    for index, part in enumerate(parts):
        wanted = gap_samples(part, gap_s)
        used = usable_gap(part.tau.shape[0], folds, wanted)
        if used < wanted:
            out.append((index, wanted, used))
    return out


def shortened_gap_warning(record: str, wanted: int, used: int, folds: int) -> str:
    """What :func:`shortened_gaps` found of calibration record ``record``, as a warning."""
    return (
        f"{record}: cross-validation gap cut from {wanted} to {used} samples (a quarter of each "
        f"of its {folds} folds): the record is short for cv.gap_s, its held-out scores are "
        "optimistic"
    )


def check_joints_move(robot: Robot, parts: Sequence[ProcessedRecord], study: str) -> None:
    """Every identified joint moves (by :data:`paramid.plausibility.STILL_RAD`) in some
    calibration record: a joint held still leaves only its sensors' noise in its velocity and
    acceleration columns, which a fit turns into any friction and inertia (a 0.8 N m s/rad
    viscous friction came out at 1410, predicting 900 N m); raises naming the joints."""
    span = np.max([np.ptp(part.q, axis=0) for part in parts], axis=0)
    still = [
        f"{joint} ({s:.2g})" for joint, s in zip(robot.joints, span, strict=True) if s < STILL_RAD
    ]
    if still:
        raise RobotError(
            f"robots.{study}: joint(s) {', '.join(still)} do not move in any calibration record "
            f"(angle span in rad or m, below {STILL_RAD:g}): nothing identifies their inertia "
            "and friction. Leave them out of `joints:` and give their angle in `locked:` (a log "
            "numbered by index, {i}, then lists the other joints' columns: `columns: {q: [...]}`), "
            "or record an excitation that moves them."
        )


#: a joint whose moving samples turn the other way less often than this share of them (both
#: directions counted over every calibration record) is said to turn one way only
ONE_WAY_SHARE = 0.05


def one_way_warnings(robot: Robot, parts: Sequence[ProcessedRecord], velocity: float) -> list[str]:
    """Joints with Coulomb friction that turn one way only in the calibration records (of their
    samples faster than ``velocity``, the Coulomb law's smoothing velocity [rad/s or m/s], and
    than :data:`paramid.plausibility.REVERSAL_SPEED_SHARE` of the joint's peak speed, fewer
    than :data:`ONE_WAY_SHARE` the other way): their Coulomb column is then nearly constant,
    so the fit reads a constant torque (a torque sensor's bias, a gravity error) as friction
    and exports it as friction both ways (the Gen3's joint 2, q̇ from −0.82 to −0.005 rad/s in
    its calibration record, got 5.9 N m, twice the other joints'; its joints 5 and 6 are
    warned of too)."""
    if "coulomb" not in robot.friction:
        return []
    dq = np.concatenate([part.dq for part in parts])
    # moving: faster than the law's velocity and than REVERSAL_SPEED_SHARE of the joint's peak
    # (velocity noise during a rest is no turn back), as the velocity reversals are counted
    moving = np.abs(dq) > np.maximum(velocity, REVERSAL_SPEED_SHARE * np.abs(dq).max(axis=0))
    forward, backward = np.sum(moving & (dq > 0), axis=0), np.sum(moving & (dq < 0), axis=0)
    warned = []
    for j, (joint, kind) in enumerate(zip(robot.joints, joint_kinds(robot), strict=True)):
        fewer, total = min(forward[j], backward[j]), forward[j] + backward[j]
        if total and fewer < ONE_WAY_SHARE * total:
            warned.append(
                f"{joint} turns one way in {1 - fewer / total:.1%} of the calibration records' "
                f"moving samples (q̇ from {dq[:, j].min():.3g} to {dq[:, j].max():.3g} "
                f"{coordinate_unit(kind)}/s): its "
                "Coulomb friction is there a nearly constant torque, which a torque sensor's "
                "bias or a gravity error would give as well; its exported friction is not "
                "measured as friction (calibrate on a record that turns it both ways)"
            )
    return warned


def compress_warnings(
    robot: Robot,
    parts: Sequence[ProcessedRecord],
    records: Sequence[str],
    *,
    folds: int,
    gap_s: float | str,
    velocity: float,
) -> list[str]:
    """robot_compress's warnings on the calibration records ``parts`` (read from the files
    ``records``): each record whose cross-validation gap is cut (:func:`shortened_gaps`),
    then each joint that turns one way only (:func:`one_way_warnings`)."""
    shortened = [
        shortened_gap_warning(records[index], wanted, used, folds)
        for index, wanted, used in shortened_gaps(parts, folds=folds, gap_s=gap_s)
    ]
    return shortened + one_way_warnings(robot, parts, velocity)


def compress_calibration(
    robot: Robot,
    parts: Sequence[ProcessedRecord],
    *,
    folds: int,
    gap_s: float | str,
    velocity: float,
) -> Compressed:
    """The calibration records compressed by segment (``folds`` per record, ``gap_s`` at their
    boundaries, :func:`gap_samples`; the study's ``cv`` block) over the extended regressor
    (both Coulomb laws of every joint, the tanh one at ``velocity``; :func:`paramid.robot.
    model.extended_regressor`), a chunk of samples of the regressor at a time."""
    gaps = [gap_samples(part, gap_s) for part in parts]
    return compress_records(
        parts, lambda q, dq, ddq: extended_regressor(robot, q, dq, ddq, velocity), folds, gaps
    )


def compressed_frame(data: Compressed, names: Sequence[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The compression as a table (one row per segment, joint and row of R: ``segment``,
    ``joint``, ``row``, ``c``, ``rho2``, then R's columns named after the regressor's) and the
    metadata that rebuilds it (:func:`compressed_from_frame`)."""
    B, n, p, _ = data.R.shape
    segment, joint, row = (x.reshape(-1) for x in np.indices((B, n, p)))
    frame = pd.DataFrame({"segment": segment, "joint": joint, "row": row})
    frame["c"] = data.c.reshape(-1)
    frame["rho2"] = np.repeat(data.rho2.reshape(-1), p)
    frame = pd.concat([frame, pd.DataFrame(data.R.reshape(-1, p), columns=list(names))], axis=1)
    meta = {k: getattr(data, k).tolist() for k in ("samples", "record", "fold", "role")}
    return frame, meta | {"names": list(names)}


def compressed_from_frame(frame: pd.DataFrame, meta: Mapping[str, Any]) -> Compressed:
    """The :class:`Compressed` written by :func:`compressed_frame`."""
    B, names = len(meta["samples"]), meta["names"]
    p = len(names)
    n = int(frame["joint"].max()) + 1
    R = frame[names].to_numpy(np.float64).reshape(B, n, p, p)
    c = frame["c"].to_numpy(np.float64).reshape(B, n, p)
    rho2 = frame["rho2"].to_numpy(np.float64).reshape(B, n, p)[:, :, 0]
    fields = (np.array(meta[k], dtype=np.intp) for k in ("samples", "record", "fold", "role"))
    return Compressed(R, c, rho2, *fields)


def law_robot(robot: Robot, choice: Mapping[str, Any]) -> Robot:
    """The robot with the friction chosen per joint (``friction.json``: ``smooth`` per joint
    and ``velocity_rad_s`` of the Coulomb law; ``offsets``: which joints have an offset)."""
    velocity = float(choice["velocity_rad_s"])
    law = with_coulomb(robot, [velocity if s else 0.0 for s in choice["smooth"]])
    return with_offsets(law, choice["offsets"]) if robot.offset else law


def problem(
    robot: Robot,
    base: BaseParameters,
    data: Compressed,
    sample_rate_hz: float,
    study: str,
    rows: Callable[[], tuple[Array, Array]] | None = None,
) -> estimators.Problem:
    """The identification problem of the calibration records: ``data`` compressed over the
    robot's standard columns (its Coulomb law per joint), ``rows`` the stacked base regressor
    and torque for the methods that need the rows."""
    friction = friction_columns(robot)
    columns = [np.asarray(friction[t], dtype=np.intp) for t in ("fv", "fc", "ia") if t in friction]
    nonnegative = np.sort(np.concatenate(columns)) if columns else np.zeros(0, dtype=np.intp)
    placements = [robot.model.jointPlacements[k].translation for k in range(1, robot.model.njoints)]
    return estimators.Problem(
        data,
        robot.n_joints,
        list(base.names),
        base,
        theta_urdf=urdf_parameters(robot),
        links=link_parameter_slices(robot),
        nonnegative=nonnegative,
        sample_rate_hz=sample_rate_hz,
        study=study,
        arm_length=priors.arm_length(np.array(placements)),
        standard_names=robot.standard_names,
        rows=rows,
        zero=held_offsets(robot),
        urdf_dynamics=urdf_friction_parameters(robot),
    )


def stacked_rows(
    robot: Robot, base: BaseParameters, parts: Sequence[ProcessedRecord]
) -> Callable[[], tuple[Array, Array]]:
    """A function giving (W, y): the base regressor's rows and the torque of the records,
    joint-major per sample (memory O(record length · base parameters))."""

    def rows() -> tuple[Array, Array]:
        W = [base_columns(regressor(robot, p.q, p.dq, p.ddq), base) for p in parts]
        return (
            np.concatenate([w.reshape(-1, w.shape[-1]) for w in W]),
            np.concatenate([p.tau.reshape(-1) for p in parts]),
        )

    return rows


def fit_frame(fit: estimators.Fit, base: BaseParameters, units: Mapping[str, str]) -> pd.DataFrame:
    """One row per parameter: ``kind`` base (the estimate), standard (urdf, lmi) or run (every
    seeded run of a population method, ``run`` its index; -1 otherwise), with the parameter's
    ``unit`` (``units``: :func:`model.parameter_units`; a base parameter carries its leading
    standard parameter's)."""
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
    frame = pd.concat(rows, ignore_index=True)
    frame.insert(3, "unit", frame["parameter"].map(units))
    return frame


#: a fit frame's values are each in their row's ``unit`` (kg, kg m, kg m^2, N m s/rad, ...)
ROW_UNIT = "the row's unit"
FIT_UNITS = {
    "kind": "-",
    "run": "-",
    "parameter": "-",
    "unit": "-",
    "value": ROW_UNIT,
    "stderr": ROW_UNIT,
    "lower": ROW_UNIT,
    "upper": ROW_UNIT,
}


def compressed_units(robot: Robot, names: Sequence[str]) -> dict[str, str]:
    """Units of :func:`compressed_frame`'s columns: ``c`` in the joint's torque unit, ``rho2``
    its square, and each regressor column that unit per its parameter's (a tanh Coulomb
    column ``fct_<joint>`` as the sgn one ``fc_<joint>``); on an arm with turning and sliding
    joints each row is in its own joint's unit (N m or N)."""
    torques = {units["tau"] for units in joint_units(robot)}
    torque = torques.pop() if len(torques) == 1 else "the row's joint's N m or N"
    parameters = parameter_units(robot)
    columns = {name: f"{torque} / ({parameters[name.replace('fct_', 'fc_', 1)]})" for name in names}
    index = {"segment": "-", "joint": "-", "row": "-"}
    return index | {"c": torque, "rho2": f"({torque})^2"} | columns


def fit_vectors(frame: pd.DataFrame) -> tuple[Array, Array | None]:
    """(base estimate, standard parameters or None) of a fit frame."""
    base = frame.loc[frame["kind"] == "base", "value"].to_numpy(np.float64)
    standard = frame.loc[frame["kind"] == "standard", "value"].to_numpy(np.float64)
    return base, (standard if standard.size else None)


def predict(
    robot: Robot, part: ProcessedRecord, theta: Array, columns: Sequence[int] | None = None
) -> Array:
    """Predicted torque (K, n) of a processed record: the regressor's ``columns`` (all by
    default; a base map's ``independent`` for base parameters) times θ, computed a chunk of
    samples at a time."""
    out = np.empty_like(part.tau)
    for start in range(0, part.tau.shape[0], CHUNK):
        stop = start + CHUNK
        Y = regressor(robot, part.q[start:stop], part.dq[start:stop], part.ddq[start:stop])
        out[start:stop] = (Y if columns is None else Y[..., columns]) @ theta
    return out


def validation_table(
    predictions: Mapping[str, pd.DataFrame],
    joints: Sequence[str],
    bands: Mapping[str, Mapping[str, Mapping[str, float]]],
    units: Sequence[str],
) -> pd.DataFrame:
    """validation.csv from each method's predictions frame (module docstring); ``bands`` gives
    per method and record its ``sample_rate_hz`` and ``cutoff_hz`` (:func:`record_bands`),
    ``units`` each joint's torque unit (N m, or N for a prismatic joint)."""
    rows = []
    for method, frame in predictions.items():
        for record, part in frame.groupby("record", sort=False):
            band = bands[method][str(record)]
            for joint, unit in zip(joints, units, strict=True):
                measured = part[f"tau_meas_{joint}"].to_numpy(np.float64)
                error = part[f"tau_pred_{joint}"].to_numpy(np.float64) - measured
                rmse = float(np.sqrt(np.mean(error**2)))
                scale = float(np.sqrt(np.mean(measured**2)))
                below, above = signals.split_rms(error, band["sample_rate_hz"], band["cutoff_hz"])
                rows.append(
                    (
                        method,
                        record,
                        joint,
                        unit,
                        rmse,
                        rmse / scale if scale else np.nan,
                        band["cutoff_hz"],
                        float(below),
                        float(above),
                    )
                )
    columns = ["method", "record", "joint", "unit", "rmse", "rel_rmse", "cutoff_hz"]
    return pd.DataFrame(rows, columns=[*columns, "rmse_below_cutoff", "rmse_above_cutoff"])


def parameters_table(fits: Mapping[str, pd.DataFrame], base: BaseParameters) -> pd.DataFrame:
    """parameters.csv: the base estimate of every method with its standard error and box, in
    the unit of its leading standard parameter (the fit frame's ``unit``)."""
    expression = dict(zip(base.names, base.expressions, strict=True))
    rows = []
    for method, frame in fits.items():
        part = frame[frame["kind"] == "base"].drop(columns=["kind", "run"])
        rows.append(part.assign(method=method, expression=part["parameter"].map(expression)))
    columns = ["method", "parameter", "unit", "value", "stderr", "lower", "upper", "expression"]
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
    """recovery.csv (twin): truth, estimate, absolute and relative error and 95 % coverage per
    parameter.  A base parameter whose truth is zero has no relative error
    (:func:`paramid.robot.estimators.relative_error`: NaN; its absolute error stays): divided
    by a floor, its 1e-3 errors read as 1e9 and ranked the unfitted URDF best.  So has one
    whose truth is 0 at the base's rank tolerance (:func:`numerical_zeros`): round-off of a
    combination that is 0 in exact arithmetic, or a value that small in the URDF (the Gen3's
    5.5e-9 and 5.9e-9 kg m² products of inertia of its wrist links, against 1.8 the largest:
    relative errors up to 5e6)."""
    true_base = estimators.to_base(truth, base)
    zero = numerical_zeros(true_base, base.tolerance)
    rows = []
    for method, frame in fits.items():
        part = frame[frame["kind"] == "base"]
        value = part["value"].to_numpy(np.float64)
        stderr = part["stderr"].to_numpy(np.float64)
        error = np.abs(value - true_base)
        relative = np.where(zero, np.nan, estimators.relative_error(value, true_base))
        covered = np.where(np.isfinite(stderr), error <= Z95 * stderr, np.nan)
        rows.append(
            pd.DataFrame(
                {"method": method, "parameter": list(base.names), "true": true_base}
                | {"estimate": value, "stderr": stderr, "abs_error": error}
                | {"rel_error": relative, "covered_95": covered}
            )
        )
    return pd.concat(rows, ignore_index=True)


def numerical_zeros(true_base: Array, rel_tol: float) -> NDArray[np.bool_]:
    """The base parameters whose truth is 0 at the base's rank tolerance: |βᵢ| ≤ ``rel_tol`` ·
    maxⱼ |βⱼ|, the relative tolerance of the base's rank (|Rᵢᵢ| ≤ rel_tol · |R₀₀|,
    :func:`base_parameters`), e.g. 6.6e-11 for a combination of a double pendulum's parameters
    that is exactly 0."""
    magnitude = np.abs(np.asarray(true_base, dtype=np.float64))
    return magnitude <= rel_tol * magnitude.max(initial=0.0)


def recovery_summary(table: pd.DataFrame) -> pd.DataFrame:
    """Per method of recovery.csv (:func:`recovery_table`, in its order): the median relative
    error over the parameters that have one, the count of those whose truth is 0 (no relative
    error) and the share of 95 % intervals covering the truth (NaN: no standard errors)."""
    rows = [
        {
            "method": method,
            "median_rel_error": part["rel_error"].median(),
            "true_zero": int(part["rel_error"].isna().sum()),
            "coverage_95": part["covered_95"].mean(),
        }
        for method, part in table.groupby("method", sort=False)
    ]
    return pd.DataFrame(rows, columns=["method", "median_rel_error", "true_zero", "coverage_95"])


def law_problem(
    robot: Robot,
    base: BaseParameters,
    data: Compressed,
    choice: Mapping[str, Any],
    sample_rate_hz: float,
    study: str,
    rows_from: Sequence[ProcessedRecord] = (),
) -> tuple[Robot, estimators.Problem]:
    """The robot with the friction ``choice`` per joint (:func:`law_robot`) and the problem of
    the extended compression ``data`` restricted to its columns (with the rows of ``rows_from``
    when a method needs them)."""
    law = law_robot(robot, choice)
    selected = data.select(law_columns(robot, choice["smooth"]))
    rows = stacked_rows(law, base, rows_from) if rows_from else None
    return law, problem(law, base, selected, sample_rate_hz, study, rows)


def friction_choice(
    smooth: Sequence[bool], velocity: float, offsets: Sequence[bool] | None = None
) -> dict[str, Any]:
    """The fields of friction.json that :func:`law_robot` reads."""
    choice: dict[str, Any] = {"smooth": [bool(s) for s in smooth], "velocity_rad_s": velocity}
    return choice | {"offsets": [bool(o) for o in offsets or [False] * len(smooth)]}


def model_base(
    robot: Robot, stacked: Array, rel_tol: float, offset: bool | str, study: str
) -> tuple[Robot, BaseParameters, BaseParameters, list[str]]:
    """The base parameters of the stacked calibration regressor (its compression) and of the
    model itself, and the offsets left out (``offset: auto``: an offset that these records do
    not excite apart from the rest, as on a joint moving one way, where it equals its Coulomb
    column, is dropped and named); any other base parameter the records miss is an error, and
    so is a rank the records leave within round-off of ``rel_tol`` (a short or weak excitation:
    :func:`base_parameters` cannot tell it), with the combinations nearest to it named."""
    offsets = list(robot.offset_joints)
    dropped: list[str] = []
    while True:
        law = with_offsets(robot, offsets) if robot.offset else robot
        structural = structural_base(law, rel_tol=rel_tol)
        columns = np.array(stacked, dtype=np.float64)
        columns[:, held_offsets(law)] = 0.0
        try:
            base: BaseParameters | None = base_parameters(columns, law.standard_names, rel_tol)
        except AmbiguousRank:  # some combination excited to within round-off of rel_tol
            base = None
        if base is not None and base.rank == structural.rank:
            return law, base, structural, dropped
        W = base_columns(columns, structural)
        missing = unidentified(W, structural)
        if base is None:  # an ambiguous rank: the combinations a stricter scan finds first
            for stricter in (10.0, 100.0, 1000.0):
                missing = missing or unidentified(W, structural, stricter * rel_tol)
        loose = [j for j, joint in enumerate(law.joints) if f"{OFFSET}_{joint}" in missing]
        if offset != "auto" or not loose:
            found = (
                f"identify {base.rank} of the model's {structural.rank} base parameters"
                if base is not None
                else f"excite the model's {structural.rank} base parameters only to within "
                f"round-off of base.rel_tol = {rel_tol:g} (a short or weak excitation)"
            )
            named = missing or "none alone (at up to 1000 times the tolerance)"
            raise RobotError(
                f"robots.{study}: the calibration records {found}; not excited independently: "
                f"{named}. Use a richer or longer excitation (more joints moving, both "
                "directions, more speeds) or more records."
            )
        for j in loose:
            offsets[j] = False
            dropped.append(f"{OFFSET}_{law.joints[j]}")


def model_summary(
    robot: Robot, data: Compressed, rel_tol: float, offset: bool | str, study: str
) -> tuple[Robot, dict[str, Any], list[str]]:
    """robot_model's base.json (less its provenance) of the calibration records' compression
    ``data``: :func:`model_base` of its columns of the sign Coulomb law, :func:`base_summary`
    of its ``samples x joints`` rows, the model's structural rank and the offsets it could
    identify and left out; with the model (its offsets as chosen) and the offsets left out."""
    stacked = data.select(law_columns(robot, [False] * robot.n_joints)).stacked()
    law, base, structural, dropped = model_base(robot, stacked, rel_tol, offset, study)
    rows = int(data.samples.sum()) * law.n_joints
    summary = base_summary(base, law, base_columns(stacked, base), rows)
    summary["structural_rank"] = structural.rank
    summary["offsets_identifiable"] = list(law.offset_joints)  # candidates, not the chosen
    summary["offsets_unidentified"] = dropped
    return law, summary, dropped


def _own_offsets(
    cv: Callable[[Sequence[bool]], NDArray[np.float64]], picked: Sequence[bool], family: int
) -> estimators.OffsetChoice:
    """Of the offsets ``picked`` (all candidates' offsets against none), those whose joint
    predicts its held-out torque worse without its own offset, the others kept: the same rule
    and z (the candidates' family).  Compared with all candidates at once, a joint without a
    bias gained from the others' offsets (a UR5 with biases on joints 2 and 3 got offsets on
    joints 1-5, of 1e-4 N m on joints 4 and 5)."""
    kept = cv(picked)
    without = kept.copy()  # a joint without an offset: no gain, never chosen
    for j in np.flatnonzero(picked):
        others = [bool(o) and k != j for k, o in enumerate(picked)]
        without[:, j] = cv(others)[:, j]
    own = estimators.choose_offsets(without, kept, picked, family)
    unpicked = ~np.asarray(picked, dtype=bool)
    return replace(
        own,
        cv_without=np.where(unpicked, np.nan, own.cv_without),
        se=np.where(unpicked, np.nan, own.se),
    )


def choose_friction(
    robot: Robot,
    base: BaseParameters,
    data: Compressed,
    sample_rate_hz: float,
    study: str,
    coulomb: Mapping[str, Any],
    lmi: Mapping[str, Any],
    offset: bool | str = False,
    candidates: Sequence[bool] | None = None,
) -> tuple[dict[str, Any], pd.DataFrame]:
    """The friction of every joint as the fields of friction.json, and friction.csv (joint,
    law, v_s, offset, the cross-validated RMSE of each choice).

    ``coulomb.law``: sign, tanh, or auto (per joint the one with the lower cross-validated
    RMSE of the consistent fit of the ``lmi`` block, :func:`estimators.choose_coulomb`);
    ``offset``: true, false or auto (per joint among the ``candidates`` the records identify,
    by default the robot's offset joints,
    an offset only where it lowers that joint's cross-validated RMSE by more than z standard
    errors, :func:`estimators.choose_offsets`, first with every candidate's offset against
    none, then each kept one alone, :func:`_own_offsets`); the laws are compared with the
    ``candidates``' offsets under ``true``, without offsets under ``auto`` and, where offsets
    are kept, again beside them.  The offset columns of friction.csv (no_offset, offset,
    without_own, kept) are scores under the laws compared without offsets; law, cv_rmse_sign
    and cv_rmse_tanh are the final comparison's."""
    n, velocity, law = robot.n_joints, float(coulomb["velocity_rad_s"]), coulomb["law"]
    nan = np.full(n, np.nan)
    candidates = list(robot.offset_joints if candidates is None else candidates)
    given = candidates if offset is True else [False] * n

    scores: dict[tuple[tuple[bool, ...], tuple[bool, ...]], NDArray[np.float64]] = {}

    def cv(smooth: Sequence[bool], offsets: Sequence[bool]) -> NDArray[np.float64]:
        """The consistent fit's fold scores of one friction variant, each computed once."""
        key = (tuple(bool(s) for s in smooth), tuple(bool(o) for o in offsets))
        if key not in scores:
            choice = friction_choice(smooth, velocity, offsets)
            posed = law_problem(robot, base, data, choice, sample_rate_hz, study)[1]
            scores[key] = estimators.fold_scores(posed, lmi)
        return scores[key]

    coulombic = "coulomb" in robot.friction  # without a Coulomb term there is no law to choose
    if law == "auto" and coulombic:
        choice = estimators.choose_coulomb(cv([False] * n, given), cv([True] * n, given))
        smooth, cv_sign, cv_tanh = choice.smooth, choice.cv_sign, choice.cv_tanh
    else:
        smooth, cv_sign, cv_tanh = (law == "tanh" and coulombic,) * n, nan, nan
    offsets, cv_without, cv_with, gain_se, z = tuple(given), nan, nan, nan, None
    cv_own, own_se, cv_kept = nan, nan, nan
    if offset == "auto" and any(candidates):
        picked = estimators.choose_offsets(cv(smooth, given), cv(smooth, candidates), candidates)
        offsets = picked.offsets
        cv_without, cv_with, gain_se, z = picked.cv_without, picked.cv_with, picked.se, picked.z
        if any(offsets):  # each kept offset on its own: the others' may have made its gain
            own = _own_offsets(lambda o: cv(smooth, o), offsets, sum(map(bool, candidates)))
            offsets, cv_own, own_se = own.offsets, own.cv_without, own.se
            cv_kept = np.where(np.isnan(own_se), np.nan, own.cv_with)
        if any(offsets) and law == "auto" and coulombic:  # the laws again, beside the offsets
            choice = estimators.choose_coulomb(cv([False] * n, offsets), cv([True] * n, offsets))
            smooth, cv_sign, cv_tanh = choice.smooth, choice.cv_sign, choice.cv_tanh
    laws = ["tanh" if s else "sign" for s in smooth] if coulombic else ["none"] * n
    table = pd.DataFrame(
        {"joint": list(robot.joints), "law": laws}
        | {"velocity_rad_s": [velocity if s else 0.0 for s in smooth]}
        | {"cv_rmse_sign": cv_sign, "cv_rmse_tanh": cv_tanh}
        | {"offset": list(offsets), "cv_rmse_no_offset": cv_without, "cv_rmse_offset": cv_with}
        | {"offset_gain_se": gain_se, "cv_rmse_without_own": cv_own, "cv_rmse_kept": cv_kept}
        | {"own_gain_se": own_se}
    )
    summary = {"law": law, "offset": offset, "offset_threshold_se": z}
    summary |= friction_choice(smooth, velocity, offsets)
    return summary | {"laws": dict(zip(robot.joints, laws, strict=True))}, table


#: a prior-weight curve whose strongest weight scores more than this many standard errors above
#: its lowest says the URDF disagrees with the records (:func:`prior_disagreement`)
PRIOR_CLIMB_SE = 3.0


def prior_climbs(curve: Any) -> bool:
    """Whether a prior-weight curve climbs steeply toward strong weights
    (``Curve.climb_se`` > :data:`PRIOR_CLIMB_SE`) and by more than
    :data:`~paramid.robot.estimators.MIN_PRACTICAL_GAIN` of its lowest score: the URDF
    disagrees with the records.  Standard errors shrink with the records' length, so on a
    512,000-sample log a rise of 0.011 N m on 1.182 (0.9 %) read as 8 standard errors and was
    warned of, with the load's link already free."""
    rise = curve.mean[curve.strongest] - curve.mean[curve.lowest]
    floor = estimators.MIN_PRACTICAL_GAIN * curve.mean[curve.lowest]
    return bool(curve.climb_se > PRIOR_CLIMB_SE and rise > floor)


def unsolved_solves(statuses: Sequence[str]) -> str:
    """How many conic solves did not end "Solved", by status ("" when all did): e.g. "3 of
    15 solves not Solved (AlmostSolved 3)"."""
    names, counts = np.unique([s for s in statuses if s != "Solved"], return_counts=True)
    if not names.size:
        return ""
    listed = ", ".join(f"{name} {count}" for name, count in zip(names, counts, strict=True))
    return f"{counts.sum()} of {len(statuses)} solves not Solved ({listed})"


def training_rmse(problem: estimators.Problem, fit: estimators.Fit) -> float:
    """The fit's torque RMSE on its calibration rows (all joints), from the compression."""
    return float(np.sqrt(np.sum(estimators.joint_residuals(problem, fit.base)) / problem.n_rows))


def fit_warnings(
    problem: estimators.Problem,
    fit: estimators.Fit,
    method: str,
    settings: Mapping[str, Any],
    unit: str,
    twin_spread: float | None = None,
) -> list[str]:
    """What a fit's user must hear (``tables/warnings.csv``): a prior-weight curve that climbs
    (on a twin of link scale ``twin_spread``, expected: :func:`twin_prior_cost`; on measured
    records, which link's release would help: :func:`prior_disagreement`, from
    :func:`~paramid.robot.estimators.free_link_trials` with the method's ``settings``) and a
    final solve that did not end optimal; ``unit`` the torques'."""
    found = []
    if fit.curve is not None and prior_climbs(fit.curve):
        if twin_spread is not None:
            found.append(twin_prior_cost(fit.curve, problem.study, twin_spread, unit))
        else:
            trials = estimators.free_link_trials(problem, settings)
            free = settings["free_links"]
            found.append(prior_disagreement(fit.curve, problem.study, trials, unit, free))
    if fit.solver is not None and not fit.solver.optimal:
        found.append(inexact_solve(fit.solver, problem.study, method))
    return found


def inexact_solve(solution: priors.Solution, study: str, method: str) -> str:
    """The warning of a consistent fit whose final conic solve did not end "Solved"."""
    return (
        f"{study}: the {method} fit's solve ended {solution.status} (primal residual "
        f"{solution.primal_residual:.2g}, dual {solution.dual_residual:.2g}): its estimate is "
        "used, but the solver did not reach its tolerances; the records may excite too little "
        "(README, 'Multi-joint robots')"
    )


def twin_prior_cost(curve: Any, study: str, spread: float, unit: str) -> str:
    """The note of a twin whose prior-weight curve climbs: expected, since its truth scales
    each link's URDF body (the advice for measured records would mislead there); ``unit`` the
    torques' (:func:`paramid.robot.model.torque_unit`)."""
    return (
        f"{_climb(curve, study, unit)}: expected on this twin, whose truth scales each link's URDF "
        f"body by a factor within 1 ± {spread:g} (twin.inertia_spread); on measured records "
        "this would say the URDF disagrees with them"
    )


def _climb(curve: Any, study: str, unit: str) -> str:
    """What a climbing prior-weight curve costs, in the torques' ``unit`` and standard
    errors."""
    return (
        f"{study}: pulled hard toward the URDF, the fit predicts held-out calibration data "
        f"{curve.mean[curve.strongest] - curve.mean[curve.lowest]:.3g} {unit} worse than at its "
        f"best weight ({curve.climb_se:.1f} standard errors)"
    )


def prior_disagreement(
    curve: Any, study: str, trials: Mapping[str, Any], unit: str, free: Sequence[str] = ()
) -> str:
    """The warning of a study whose prior-weight curve climbs (:func:`prior_climbs`), with what
    freeing one more link did to it (``trials``: link -> its curve, from
    :func:`paramid.robot.estimators.free_link_trials`): the links whose release removes the
    climb, by held-out score at the strongest weight (every other link but the study's
    ``free`` ones, ``lmi.free_links``, held at the URDF), those within one standard error of
    the best named as ties (neighbouring links can carry the same load: physics decides, not
    these data); ``unit`` the torques'."""
    one, pulled = (
        ("one more link", f"every link but {', '.join(free)} pulled")
        if free
        else ("one link", "every link pulled")
    )
    name = (
        f"add that link to lmi.free_links ({', '.join(free)} now)"
        if free
        else "name that link in lmi.free_links"
    )
    text = (
        f"{_climb(curve, study, unit)}: the URDF disagrees with these records. If a load it "
        f"lacks (a gripper, a tool, a payload) sits on {one}, {name} (README, 'Multi-joint "
        "robots')"
    )
    if not trials:  # nothing to name in lmi.free_links: the URDF itself must gain the load
        further = "further " if free else ""
        return (
            f"{_climb(curve, study, unit)}: the URDF disagrees with these records, and no "
            f"{further}link can be freed alone on them (check_free_links): if a load it lacks "
            "(a gripper, a tool, a payload) is on the arm, add its mass and inertia to the "
            "URDF's link that carries it (README, 'Multi-joint robots')"
        )
    unsolved = unsolved_solves([status for c in trials.values() for status in c.statuses])
    solves = f" (trials: {unsolved})" if unsolved else ""
    # trials are compared at the grid's strongest weight, where each must have solved and
    # predict better than every link pulled by more than its standard error there (a link
    # freed on a short record can leave a flat curve above the climb's top: no remedy)
    top = float(curve.mean[curve.strongest] - curve.se[curve.strongest])
    calm = {
        k: c
        for k, c in trials.items()
        if np.isfinite(c.mean[-1]) and not prior_climbs(c) and c.mean[-1] < top
    }
    if not calm:
        # a link whose release predicts better but leaves a climb: a load there beside other
        # links off (a Panda's 0.8 kg payload on link 7 with every link 10 % off: freeing it
        # halved the strongest weight's error, 0.238 -> 0.122 N m, and went unnamed)
        better = sorted(
            (k for k, c in trials.items() if np.isfinite(c.mean[-1]) and c.mean[-1] < top),
            key=lambda k: float(trials[k].mean[-1]),
        )
        helps = (
            f"; freeing {', '.join(f'{k} {float(trials[k].mean[-1]):.4g}' for k in better[:3])} "
            f"{unit} predicts better there but leaves a climb ({better[0]} best: a load there "
            "beside other links off?)"
            if better
            else ""
        )
        return (
            text + f"; freeing any {one} leaves the climb or predicts no better at the strongest "
            f"weight than {pulled} ({curve.mean[curve.strongest]:.4g} {unit}){helps}: several "
            "links off (a CAD export's masses and centres of mass often are), wrong constants or "
            "units, or records too short to tell? The fit uses the weight cross-validation chose "
            "(tables/regularisation.csv), not the strongest" + solves
        )
    score = {k: float(c.mean[-1]) for k, c in calm.items()}
    order = sorted(calm, key=score.__getitem__)
    bound = score[order[0]] + float(calm[order[0]].se[-1])
    ties = [k for k in order if score[k] <= bound]
    listed = ", ".join(f"{k} {score[k]:.4g}" for k in order)
    return text + (
        f". Tried freeing each {'further ' if free else ''}link: the climb goes with {listed} "
        f"{unit} (held-out RMSE at the strongest weight, against "
        f"{curve.mean[curve.strongest]:.4g} with {pulled}); "
        + (
            f"{', '.join(ties)} lie within one standard error of each other: the data cannot "
            "tell which carries the load, name the one that does"
            if len(ties) > 1
            else f"{ties[0]} does it best; free it only if a load the URDF lacks sits there "
            "(a climb that one freed link removes can also come from several links off, as a "
            "CAD export's are: then the weight cross-validation chose stands)"
        )
        + solves
        + "."
    )


def curve_summary(curve: Any) -> dict[str, Any]:
    """A cross-validation curve as the fields of a fit's metadata (:func:`regularisation_table`
    reads them back)."""
    statuses, counts = np.unique(curve.statuses, return_counts=True)
    return {
        "weights": curve.weights.tolist(),
        "cv_rmse": curve.mean.tolist(),
        "cv_se": curve.se.tolist(),
        "chosen": int(curve.chosen),
        "lowest": int(curve.lowest),
        "rule": curve.rule,
        "folds": curve.folds,
        "solver_statuses": dict(zip(statuses.tolist(), counts.tolist(), strict=True)),
    }


def regularisation_table(summary: Mapping[str, Any] | None, unit: str) -> pd.DataFrame:
    """regularisation.csv: the prior's weight, its CV RMSE (a mean over joints, in ``unit``:
    :func:`model.torque_unit`) and standard error, which the rule chose and which scored
    lowest, and the folds (empty without a curve: a weight was given)."""
    columns = ["weight", "cv_rmse", "cv_se", "unit", "chosen", "lowest", "rule", "folds"]
    if not summary:
        return pd.DataFrame(columns=columns)
    index = np.arange(len(summary["weights"]))
    return pd.DataFrame(
        {
            "weight": summary["weights"],
            "cv_rmse": summary["cv_rmse"],
            "cv_se": summary["cv_se"],
            "unit": unit,
            "chosen": index == summary["chosen"],
            "lowest": index == summary["lowest"],
            "rule": summary["rule"],
            "folds": summary["folds"],
        }
    )


# a prediction whose error on a validation record is this many times the recorded torque's RMS
# (predicting no torque at all scores 1) has left what the calibration records determine: a
# perfect model scores below 1 (its error is the noise, the record's RMS holds the torque too);
# the shipped studies' fitted methods score at most 0.9 on any joint (a twin's noisy joints),
# the URDF without friction 1.2; a free fit of a 1 s calibration record of a 3-joint arm, 12
EXTRAPOLATION_REL_RMSE = 2.0


#: the methods that take the rigid body from the URDF (a reference row's from its own): the
#: calibration records fit their friction at most
GIVEN_MODELS = ("urdf", "urdf_friction")
#: warnings.csv's method of a warning about the records, not one method
RECORDS_ROW = "(records)"
URDF_ROW = "(urdf)"  # warnings.csv's rows of the study's model: its URDF and its joint terms


def extrapolation_warnings(validation: pd.DataFrame) -> dict[str, str]:
    """Per method, the joints and records of ``validation`` (:func:`validation_table`) that it
    predicts :data:`EXTRAPOLATION_REL_RMSE` times worse than no torque at all, as a warning.
    A joint of a record that every method predicts so (the URDF's included, which no record
    fitted) says the record is off, not the models (a torque in another unit than declared):
    one warning under :data:`RECORDS_ROW` names those, and the methods' own leave them out."""
    worse = validation[validation["rel_rmse"] > EXTRAPOLATION_REL_RMSE]
    methods = validation["method"].nunique()
    cells = worse.groupby(["record", "joint"], sort=False)["method"].nunique()
    everyone = cells[cells == methods].index
    found = {}
    if len(everyone):
        named = ", ".join(f"{joint} in {record}" for record, joint in everyone)
        found[RECORDS_ROW] = (
            f"every method, the URDF's included, predicts {named} worse than no torque at all "
            f"(an RMSE beyond {EXTRAPOLATION_REL_RMSE:g} x the recorded torque's RMS): no model "
            "explains what was recorded there; is that torque in another unit or sign than "
            "declared (a motor current without its torque constant and gear ratio)? check the "
            "record's units.tau, negate and columns"
        )
    kept = ~pd.MultiIndex.from_frame(worse[["record", "joint"]]).isin(everyone)
    for method, rows in worse[kept].groupby("method", sort=False):
        rows = rows.sort_values("rel_rmse", ascending=False)
        listed = ", ".join(
            f"{r.joint} in {r.record} RMSE {r.rmse:.4g} ({r.rel_rmse:.3g} x)"
            for r in rows.itertuples()
        )
        if method in GIVEN_MODELS or str(method).startswith("reference_"):
            why = "its rigid body is the URDF's, which these records disagree with there"
        else:
            remedy = (
                ""
                if method in estimators.CONSISTENT
                else ", or a physically consistent method, lmi"
            )
            why = (
                "the calibration records do not determine this model along that motion (an "
                f"extrapolation: longer or richer calibration records{remedy})"
            )
        found[str(method)] = (
            f"{method} predicts validation torque worse than no torque at all (an RMSE beyond "
            f"{EXTRAPOLATION_REL_RMSE:g} x the recorded torque's RMS): {listed}; {why}"
        )
    return found


def hidden_mass_warnings(robot: Robot, rel_tol: float) -> list[str]:
    """The ``(urdf)`` rows of a model whose offset or armature on a joint hides link masses
    (:func:`paramid.robot.base.hidden_masses`): what is lost and what to change."""
    rows = []
    for joint, (terms, links) in hidden_masses(robot, rel_tol).items():
        mass = f"the mass of {', '.join(links)} is not identified"
        if terms == (ARMATURE,):
            why = (
                f"{joint}: with an armature on it, {mass}: what it moves enters its force as "
                "m q̈, as the armature does"
            )
            fix = "if its drive has no rotor inertia worth a term, set armature: false"
        elif terms == (OFFSET,):
            why = f"{joint}: with an offset on it, {mass}: their force is a constant, as it is"
            fix = "unless its sensor has a bias, set offset: false"
        else:
            why = (
                f"{joint}: with both an offset and an armature on it, {mass}: a slide along "
                "gravity carries their weight as a constant force, which the offset takes, and "
                "their inertia as m q̈, which the armature takes"
            )
            fix = "unless its force sensor has a bias, set offset: false"
        rows.append(
            f"{why}; the identified URDF keeps the URDF's mass there (a payload on them is "
            f"lost: a SCARA quill's 0.5 kg went into a -5.6 N offset): {fix}, or give the "
            "payload's mass in the URDF"
        )
    return rows


def warnings_table(
    metas: Mapping[str, Mapping[str, Any]],
    validation: pd.DataFrame | None = None,
    record_warnings: Sequence[str] = (),
    urdf_warnings: Sequence[str] = (),
) -> pd.DataFrame:
    """warnings.csv: what the URDF holds that its rigid body should not and what the model's
    joint terms hide (``urdf_warnings``: :func:`paramid.robot.model.massless_inertias`,
    :func:`~paramid.robot.model.unmodelled_dynamics`,
    :func:`~paramid.robot.model.independent_followers`,
    :func:`hidden_mass_warnings`; under :data:`URDF_ROW`), what the records'
    stages warned of (``record_warnings``: a gap bridged by
    interpolation, rest dropped at an end, a cross-validation gap cut; under
    :data:`RECORDS_ROW`), what each method's fit warned of (its metadata's ``warnings``; the
    prior climbing toward the URDF, say) and, given the ``validation`` table, its predictions
    worse than no torque (:func:`extrapolation_warnings`), one row per warning, no row when
    none did."""
    rows = [(URDF_ROW, text) for text in urdf_warnings]
    rows += [(RECORDS_ROW, text) for text in record_warnings]
    rows += [(method, text) for method, meta in metas.items() for text in meta.get("warnings", [])]
    if validation is not None:
        rows += list(extrapolation_warnings(validation).items())
    return pd.DataFrame(rows, columns=["method", "warning"])


@dataclass(frozen=True)
class StudyTables:
    """A study's tables as rule robot_tables writes them (module docstring; regularisation.csv:
    :func:`regularisation_table`, warnings.csv: :func:`warnings_table`), the unit of a mean
    over its joints' torques and the warnings to log: the URDF's placeholders and hidden masses,
    and the predictions worse than no torque."""

    validation: pd.DataFrame
    parameters: pd.DataFrame
    consistency: pd.DataFrame
    regularisation: pd.DataFrame
    warnings: pd.DataFrame
    torque_unit: str
    warnings_to_log: list[str]

    def mean_rmse(self) -> pd.Series:
        """The mean validation RMSE per method (over records and joints, in table order)."""
        return self.validation.groupby("method", sort=False)["rmse"].mean()

    def indefinite_links(self) -> list[list[str]]:
        """[method, link] of each link whose pseudo-inertia is indefinite (consistency.csv)."""
        bad = self.consistency.loc[~self.consistency["consistent"], ["method", "link"]]
        return bad.values.tolist()


def study_tables(
    robot: Robot,
    urdf: str,
    base: BaseParameters,
    fits: Mapping[str, tuple[pd.DataFrame, Mapping[str, Any]]],
    predictions: Mapping[str, tuple[pd.DataFrame, Mapping[str, Any]]],
    stage_metas: Sequence[Mapping[str, Any]],
) -> StudyTables:
    """The tables of a study of ``robot`` (its URDF text ``urdf``, base parameters ``base``)
    from each method's fit and each row's predictions (frame and metadata: the records' bands
    of :func:`record_bands` under ``records``, the lmi fit's prior-weight ``curve``) and the
    metadata of the records' stages ``stage_metas`` (what they warned of)."""
    torque_units = [units["tau"] for units in joint_units(robot)]
    unit = torque_unit(torque_units)
    validation = validation_table(
        {m: frame for m, (frame, _) in predictions.items()},
        robot.joints,
        {m: meta["records"] for m, (_, meta) in predictions.items()},
        torque_units,
    )
    frames = {m: frame for m, (frame, _) in fits.items()}
    curve = fits["lmi"][1].get("curve") if "lmi" in fits else None
    noted = [text for meta in stage_metas for text in meta.get("warnings", [])]
    placeholders = [
        *massless_inertias(robot, urdf),
        *unmodelled_dynamics(robot, urdf),
        *independent_followers(robot, urdf),
        *hidden_mass_warnings(robot, base.tolerance),
    ]
    metas = {m: meta for m, (_, meta) in fits.items()}
    return StudyTables(
        validation=validation,
        parameters=parameters_table(frames, base),
        consistency=consistency_table(frames, base, robot),
        regularisation=regularisation_table(curve, unit),
        warnings=warnings_table(metas, validation, noted, placeholders),
        torque_unit=unit,
        warnings_to_log=[*placeholders, *extrapolation_warnings(validation).values()],
    )


def reference_model(
    block: Mapping[str, Any],
    urdf: str,
    choice: Mapping[str, Any],
    parts: Sequence[ProcessedRecord],
    rel_tol: float,
) -> tuple[Robot, Array]:
    """A published model as a user would use it: its URDF's rigid body (``block["urdf"]``, its
    text ``urdf``) with friction fitted on the calibration records ``parts`` (the study's
    Coulomb law per joint; its bodies as published, physical or not): the robot and its
    standard parameters (the records compressed whole: one fold, no gap)."""
    robot = robot_of(block, urdf, physical=False)
    velocity = float(choice["velocity_rad_s"])
    data = compress_calibration(robot, parts, folds=1, gap_s=0.0, velocity=velocity)
    stacked = data.select(law_columns(robot, [False] * robot.n_joints)).stacked()
    base = base_parameters(stacked, robot.standard_names, rel_tol)
    law, reference = law_problem(robot, base, data, choice, parts[0].sample_rate_hz, "")
    standard = estimators.fit_urdf_friction(reference, {}).standard
    assert standard is not None
    return law, standard


def prediction_frame(
    joints: Sequence[str],
    parts: Mapping[str, tuple[ProcessedRecord, Array]],
    joint_units: Sequence[Mapping[str, str]],
) -> tuple[pd.DataFrame, dict[str, str]]:
    """The predictions of one method: per validation record its samples' time, the torque as
    recorded and the prediction per joint (``tau_meas_<joint>``, ``tau_pred_<joint>``; a
    prismatic joint's force in N, per ``joint_units``)."""
    frames, units = [], {"record": "-"}
    for name, (part, predicted) in parts.items():
        frame, frame_units = channel_frame(part.time, {}, joints, joint_units)
        for prefix, values in (("tau_meas", part.tau), ("tau_pred", predicted)):
            for k, joint in enumerate(joints):
                frame[f"{prefix}_{joint}"] = values[:, k]
                frame_units[f"{prefix}_{joint}"] = joint_units[k]["tau"]
        frames.append(frame.assign(record=name))
        units.update(frame_units)
    return pd.concat(frames, ignore_index=True), units


def record_bands(
    parts: Mapping[str, tuple[ProcessedRecord, Array]],
) -> dict[str, dict[str, float]]:
    """Per validation record its sample rate and low-pass cutoff [Hz], for the predictions'
    metadata (``records``) and :func:`validation_table`."""
    return {
        name: {"sample_rate_hz": part.sample_rate_hz, "cutoff_hz": part.cutoff_hz}
        for name, (part, _) in parts.items()
    }


@dataclass(frozen=True)
class Predictions:
    """A model's torque on the validation records: the table of :func:`prediction_frame`, its
    columns' units and per record its sample rate and cutoff (:func:`record_bands`)."""

    frame: pd.DataFrame
    units: dict[str, str]
    bands: dict[str, dict[str, float]]


def predict_records(
    robot: Robot,
    records: Mapping[str, ProcessedRecord],
    theta: Array,
    columns: Sequence[int] | None = None,
) -> Predictions:
    """Every validation record's torque predicted by θ (:func:`predict`; ``columns`` as there)
    beside the torque as recorded: the step of rules robot_predict and robot_reference."""
    parts = {name: (part, predict(robot, part, theta, columns)) for name, part in records.items()}
    frame, units = prediction_frame(robot.joints, parts, joint_units(robot))
    return Predictions(frame, units, record_bands(parts))


def solver_summary(solution: priors.Solution) -> dict[str, Any]:
    """A conic solve as the fields of a fit's metadata: status, iterations, residuals, and the
    tie-breaking λ a λ = 0 solve needed (0: none)."""
    return {
        "status": solution.status,
        "iterations": solution.iterations,
        "primal_residual": solution.primal_residual,
        "dual_residual": solution.dual_residual,
        "tie_break": solution.tie_break,
    }


def urdf_friction(robot: Robot, theta: Array) -> dict[str, dict[str, float]]:
    """Per joint the URDF's ``<dynamics>`` values of standard parameters θ: ``damping`` the
    viscous coefficient, ``friction`` the Coulomb level (of sgn q̇ or of tanh(q̇/v_s)); 0 for a
    term the model does not have (the user's URDF value would otherwise stay beside the
    identified ones)."""
    values = dict(zip(robot.standard_names, theta, strict=True))
    keys = {"fv": "damping", "fc": "friction"}
    return {
        joint: {key: float(values.get(f"{term}_{joint}", 0.0)) for term, key in keys.items()}
        for joint in robot.joints
    }


def urdf_armature(robot: Robot, theta: Array) -> dict[str, float]:
    """Per joint the armature I_a [kg m²] of standard parameters θ (empty without one)."""
    values = dict(zip(robot.standard_names, theta, strict=True))
    names = {j: f"{ARMATURE}_{j}" for j in robot.joints}
    return {j: values[name] for j, name in names.items() if name in values}


def urdf_offsets(robot: Robot, theta: Array) -> dict[str, float]:
    """Per joint that has one, the offset f_0 [N m] of standard parameters θ."""
    values = dict(zip(robot.standard_names, theta, strict=True))
    has = dict(zip(robot.joints, robot.offset_joints, strict=True))
    return {j: values[f"{OFFSET}_{j}"] for j in robot.joints if has[j]}


def export_header(
    cfg: Mapping[str, Any],
    choice: Mapping[str, Any],
    meta: Mapping[str, Any],
    prismatic: bool = False,
    armature: Mapping[str, float] | None = None,
    cutoffs: Sequence[float] = (),
) -> list[str]:
    """The provenance comment of an exported URDF: the study, method, data, prior, friction law
    (its tanh velocity in m/s on a ``prismatic`` joint), how the standard parameters were
    chosen, the torque the file stands for, each joint's ``armature`` (a URDF has no field for
    it: loaded without it, the Gen3's mass matrix lost 10-20x on joints 5-7), and what
    reproduces it: the calibration files' and the URDF's SHA-256, the signals' low-pass
    ``cutoffs`` [Hz] (distinct values over the calibration records), the config hash and
    commit."""
    weight = (meta.get("curve") or {}).get("weights"), (meta.get("curve") or {}).get("chosen")
    chosen = weight[0][weight[1]] if weight[0] is not None else cfg["lmi"]["weight"]
    joints = list(cfg["robot"]["joints"])  # friction.json keeps its laws sorted by name
    laws = ", ".join(f"{j}: {choice['laws'][j]}" for j in joints)
    offsets = ", ".join(j for j, offset in zip(joints, choice["offsets"], strict=True) if offset)
    terms = cfg["robot"]["friction"]
    held = {
        "coulomb": ("friction", "the Coulomb level"),
        "viscous": ("damping", "the viscous coefficient"),
    }
    dynamics = "; ".join(f"{key}: {text}" for term, (key, text) in held.items() if term in terms)
    zero = next((key for term, (key, _) in held.items() if term not in terms), "")
    auto = cfg["lmi"]["weight"] == "auto"
    how = f"chosen by cross-validation, rule {cfg['lmi']['rule']}" if auto else "given"
    return [
        f"Identified by paramid {meta.get('versions', {}).get('paramid', '')} (study "
        f"{cfg['study']}, method {cfg['method']}) from {', '.join(map(str, cfg['calibration']))}.",
        "Inertial parameters: physically consistent least squares (every link's pseudo-inertia",
        f"positive semidefinite) pulled toward the original URDF with the {cfg['lmi']['metric']} "
        f"metric, weight {float(chosen):g}",
        f"({how}).",
        *(
            [f"Not pulled (lmi.free_links, a load the URDF lacks): {', '.join(free)}."]
            if (free := cfg["lmi"].get("free_links"))
            else []
        ),
        "The data determine only the base parameters; of the standard sets that fit them as",
        "well, this is the consistent one nearest to the original URDF in that metric.",
        "How far the data determine each base parameter (armatures and offsets included):",
        "tables/parameters.csv, the free fits' standard errors; a value they leave loose is",
        "set by the prior and the constraints, not measured.",
        "A comment in each body's link names which of its standard parameters the data",
        f"determine (model/{cfg['method']}_determinacy.csv lists every parameter's determinacy).",
        *(
            [
                f"Coulomb law per joint ({laws}; tanh velocity {choice['velocity_rad_s']:g} rad/s"
                + ("; m/s on a prismatic joint)." if prismatic else ").")
            ]
            if "coulomb" in terms
            else []
        ),
        (
            f"<dynamics> holds {dynamics}"
            + (f"; its {zero} is 0: the model has no such term." if zero else ".")
            if dynamics
            else "No friction was identified: <dynamics> damping and friction are 0."
        ),
        "The torque it stands for: inverse dynamics of this file's bodies (Pinocchio's rnea,"
        + " which ignores <dynamics>)"
        + (" + armature * qdd" if armature else "")
        + (" + damping * qd" if "viscous" in terms else "")
        + (" + friction * law(qd)" if "coulomb" in terms else "")
        + (" + offset" if offsets else "")
        + ".",
        *(
            [
                "Armature (reflected rotor inertia; no URDF field holds it, so set it in your",
                "simulator: Pinocchio model.armature, MuJoCo <joint armature>), kg m^2"
                + (" (kg on a prismatic joint)" if prismatic else "")
                + ": "
                + ", ".join(f"{j} {float(max(v, 0.0)):.6g}" for j, v in armature.items())
                + ".",
            ]
            if armature
            else []
        ),
        *([f"Torque offsets (comments in their joints) on: {offsets}."] if offsets else []),
        *(
            [f"Calibration records' SHA-256: {', '.join(digests)}."]
            if (digests := cfg.get("calibration_sha256"))
            else []
        ),
        *([f"Original URDF's SHA-256: {sha}."] if (sha := cfg["robot"].get("urdf_sha256")) else []),
        *(
            [f"Signals low-passed at {', '.join(f'{c:g}' for c in cutoffs)} Hz (zero-phase)."]
            if cutoffs
            else []
        ),
        f"config hash {meta.get('config_hash', '')}; git commit {meta.get('git_commit', '')}.",
    ]
