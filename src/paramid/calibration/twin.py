"""Laser-tracker digital twin of the KR210 calibration cell (paper §2.1.1, §3.2.1).

The twin's robot is the nominal DH table (Table 1) plus seeded geometric errors of every one
of the 24 parameters (Eq 6-7).  A spherically mounted retroreflector (SMR) sits at a known
offset ``t`` in the flange frame; a Leica AT960 at a known pose T_B^L measures the SMR in its
own frame {L} with the data-sheet accuracy +-(10 um + 6 um/m) at 2 sigma (§2.1.1), read as
isotropic Gaussian noise of standard deviation (10 + 6 r[m]) / 2 um on each axis, r the
tracker-to-SMR distance.  Measurements are mapped back to the base frame with the known
transform (Eq 2), as the measurement software does.

Data set (§3.2.1): ``candidates`` configurations uniform in the joint limits (rejecting those
whose SMR lies below a floor height), ``selected`` of them chosen by a greedy maximin
(farthest-point) design in the joint space scaled to the unit cube, then a fixed seeded
train/validation split (70/30).  Every draw comes from a named stream
``(study, "twin", seed, <part>)`` of :mod:`paramid.seeding`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin
from paramid.calibration import model
from paramid.calibration.problem import split_sizes
from paramid.errors import InputError
from paramid.seeding import generator

FloatArray = NDArray[np.float64]

__all__ = [
    "PhysicalRobot",
    "TrackerNoise",
    "data_keys",
    "draw_robot",
    "robot_of",
    "TwinData",
    "draw_errors",
    "greedy_maximin",
    "pose_matrix",
    "sample_configurations",
    "simulate",
    "split_mask",
]


@dataclass(frozen=True)
class TrackerNoise:
    """Tracker accuracy ``U = constant_um + per_metre_um * r[m]`` at ``coverage`` sigma."""

    constant_um: float = 10.0
    per_metre_um: float = 6.0
    coverage: float = 2.0

    def sigma_mm(self, distance_mm: ArrayLike) -> FloatArray:
        """Per-axis standard deviation [mm] at the given tracker-to-SMR distances [mm]."""
        r_m = np.asarray(distance_mm, dtype=np.float64) / 1000.0
        return (self.constant_um + self.per_metre_um * r_m) / self.coverage / 1000.0


#: Twin settings fitted to a paper's number rather than taken from physics: the DH error sizes
#: were set (before issue #18) so that a geometric-only BC RMSE matched Table 7's 0.8927 mm
#: (Hayati beta2's size is copied from them).  The audit calls the BC cells calibration targets.
CALIBRATED = {"errors_sd": {"alpha_deg": 0.0125, "a_mm": 0.125, "d_mm": 0.125, "theta_deg": 0.0125}}


def is_calibrated(twin: Mapping[str, Any]) -> bool:
    """Whether a ``twin`` config block keeps the :data:`CALIBRATED` settings."""
    return all(
        {k: float(v) for k, v in twin[key].items()} == value for key, value in CALIBRATED.items()
    )


def pose_matrix(position_mm: ArrayLike, rpy_deg: ArrayLike) -> FloatArray:
    """Homogeneous transform with R = Rz(yaw) Ry(pitch) Rx(roll) and the given translation."""
    roll, pitch, yaw = np.deg2rad(np.asarray(rpy_deg, dtype=np.float64))
    cr, sr, cp, sp, cy, sy = (
        np.cos(roll),
        np.sin(roll),
        np.cos(pitch),
        np.sin(pitch),
        np.cos(yaw),
        np.sin(yaw),
    )
    Rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
    Ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
    Rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
    T = np.eye(4)
    T[:3, :3] = Rz @ Ry @ Rx
    T[:3, 3] = np.asarray(position_mm, dtype=np.float64)
    return T


def apply(T: FloatArray, points: FloatArray) -> FloatArray:
    """Apply a homogeneous transform to points (..., 3)."""
    return points @ T[:3, :3].T + T[:3, 3]


def invert(T: FloatArray) -> FloatArray:
    """Inverse of a rigid homogeneous transform."""
    out = np.eye(4)
    out[:3, :3] = T[:3, :3].T
    out[:3, 3] = -T[:3, :3].T @ T[:3, 3]
    return out


def draw_errors(rng: np.random.Generator, sd: Mapping[str, float]) -> FloatArray:
    """Geometric errors (24,) in Eq 6 order: N(0, sd^2) per kind (angles given in degrees).

    ``sd`` has ``alpha_deg``, ``a_mm``, ``d_mm``, ``theta_deg``.
    """
    scale = np.repeat(
        [
            np.deg2rad(sd["alpha_deg"]),
            float(sd["a_mm"]),
            float(sd["d_mm"]),
            np.deg2rad(sd["theta_deg"]),
        ],
        kin.N_JOINTS,
    )
    return rng.standard_normal(kin.N_PARAMS) * scale


def sample_configurations(
    rng: np.random.Generator,
    lower_rad: ArrayLike,
    upper_rad: ArrayLike,
    n: int,
    accept: Callable[[FloatArray], NDArray[np.bool_]],
    *,
    batch: int = 4096,
) -> FloatArray:
    """``n`` configurations uniform in the joint box that ``accept`` keeps (floor, sight).

    Draws blocks of ``batch`` configurations and keeps, in draw order, those accepted
    (uniform on the accepted part of the box).
    """
    lo = np.asarray(lower_rad, dtype=np.float64)
    hi = np.asarray(upper_rad, dtype=np.float64)
    kept: list[FloatArray] = []
    total = 0
    for _ in range(1000):
        q = lo + (hi - lo) * rng.random((batch, kin.N_JOINTS))
        good = q[accept(q)]
        kept.append(good)
        total += good.shape[0]
        if total >= n:
            return np.concatenate(kept)[:n]
    raise InputError(
        f"the twin found {total} of the {n} candidate configurations asked for in "
        f"{1000 * batch} drawn uniformly within joint_limits_deg: the others put the SMR "
        "below min_height_mm or out of the tracker's line_of_sight; check those settings and "
        "the units of the robot's table (a_mm, d_mm in mm, angles in degrees)"
    )


def greedy_maximin(points: FloatArray, k: int, start: int | None = None) -> NDArray[np.int64]:
    """Indices of ``k`` points chosen by greedy maximin (farthest-point) selection.

    Starts from ``start`` (default: the point nearest the centroid) and repeatedly adds the
    point whose distance to the chosen set is largest (ties: lowest index).  Deterministic.
    """
    X = np.asarray(points, dtype=np.float64)
    if not 0 < k <= X.shape[0]:
        raise ValueError(f"k must lie in 1..{X.shape[0]}, got {k}")
    if start is None:
        start = int(np.argmin(np.sum((X - X.mean(axis=0)) ** 2, axis=1)))
    chosen = [start]
    dist = np.sum((X - X[start]) ** 2, axis=1)
    for _ in range(k - 1):
        nxt = int(np.argmax(dist))
        chosen.append(nxt)
        np.minimum(dist, np.sum((X - X[nxt]) ** 2, axis=1), out=dist)
    return np.asarray(chosen, dtype=np.int64)


def split_mask(n: int, train_fraction: float, rng: np.random.Generator) -> NDArray[np.bool_]:
    """Boolean mask, True for the round(train_fraction * n) training points (random subset)."""
    n_train, _ = split_sizes(n, train_fraction)
    mask = np.zeros(n, dtype=bool)
    mask[rng.permutation(n)[:n_train]] = True
    return mask


@dataclass(frozen=True)
class TwinData:
    """Output of :func:`simulate`: the per-configuration frame and the twin's truth."""

    frame: pd.DataFrame
    truth: dict[str, Any]


@dataclass(frozen=True)
class PhysicalRobot:
    """One drawn robot of the twin: geometry plus the non-geometric error sources.

    ``dh`` (24,) true DH table (Eq 6); ``beta2`` Hayati tilt of axis 3 against axis 2 [rad];
    ``mass`` its true mass model; ``compliance`` (6,) [rad/(kN m)] (0 = rigid);
    ``lost_motion`` (6,) [rad]: the joint sits at +-lost_motion/2 on the flank its gravity
    moment loads, or on the ``approach`` flank where |M| < ``switch_moment`` [kN m];
    ``transmission`` (6, H) amplitudes [rad] and ``phase`` (6, H) of the harmonics
    ``harmonics`` (H,) of the joint angle (transmission error per output revolution).
    """

    dh: FloatArray
    beta2: float
    mass: model.MassModel
    compliance: FloatArray
    lost_motion: FloatArray
    approach: float
    switch_moment: float
    transmission: FloatArray
    phase: FloatArray
    harmonics: FloatArray

    def deflection(self, q: FloatArray) -> FloatArray:
        """Joint deflections (..., 6) [rad] at commanded angles q: compliance x gravity
        moment, lost motion and transmission error."""
        M = model.gravity_moments(self.mass, self.dh, q)
        side = np.where(np.abs(M) >= self.switch_moment, np.sign(M), self.approach)
        waves = np.sum(
            self.transmission * np.sin(self.harmonics * q[..., None] + self.phase), axis=-1
        )
        return self.compliance * M + 0.5 * self.lost_motion * side + waves

    def pose(self, q: FloatArray, tool: ArrayLike) -> tuple[FloatArray, FloatArray]:
        """Flange rotations R_6 (..., 3, 3) and tool-point positions (..., 3) in the robot
        base frame for commanded angles q (deflections included)."""
        beta = np.zeros(kin.N_JOINTS)
        beta[1] = self.beta2
        return kin.forward(self.dh, q + self.deflection(q), tool=tool, beta=beta)

    def positions(self, q: FloatArray, tool: ArrayLike) -> FloatArray:
        """Tool-point positions (..., 3) in the robot base frame for commanded angles q."""
        return self.pose(q, tool)[1]


def _source(cfg: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The config of an enabled non-geometric source, or None."""
    block = cfg.get("sources", {}).get(name)
    return block if block and block.get("enabled", True) else None


def draw_robot(
    keys: tuple, cfg: Mapping[str, Any], nominal: kin.DHTable, mass: model.MassModel
) -> tuple[PhysicalRobot, dict[str, Any]]:
    """Draw one robot: DH errors (Eq 6-7) and every enabled source of ``cfg["sources"]``.

    Each source has its own stream ``(*keys, <source>)``; a disabled source draws nothing, so
    switching one off leaves every other draw unchanged.  Returns the robot and its truth.
    """
    errors = draw_errors(generator(*keys, "errors"), cfg["errors_sd"])
    n = kin.N_JOINTS
    truth: dict[str, Any] = {"errors": errors.tolist()}
    beta2 = 0.0
    if src := _source(cfg, "hayati_beta2"):
        beta2 = float(np.deg2rad(src["sd_deg"]) * generator(*keys, "beta2").standard_normal())
    truth["beta2"] = beta2
    compliance = np.zeros(n)
    true_mass = mass
    if src := _source(cfg, "compliance"):
        rng = generator(*keys, "compliance")
        k = np.asarray(src["stiffness_knm_per_rad"], dtype=np.float64)
        k = k * (1.0 + src["stiffness_spread"] * rng.standard_normal(n))
        compliance = 1.0 / k
        true_mass = mass.scaled(1.0 + src["mass_spread"] * rng.standard_normal(n))
    truth["compliance_rad_per_knm"] = compliance.tolist()
    truth["masses_kg"] = list(true_mass.masses_kg)
    lost = np.zeros(n)
    approach, switch = 1.0, 0.0
    if src := _source(cfg, "backlash"):
        lost = np.deg2rad(np.asarray(src["lost_motion_arcmin"], dtype=np.float64) / 60.0)
        approach, switch = float(src["approach"]), float(src["switch_moment_knm"])
    truth["lost_motion_rad"] = lost.tolist()
    harmonics = np.ones(1)
    amp, phase = np.zeros((n, 1)), np.zeros((n, 1))
    if src := _source(cfg, "transmission"):
        harmonics = np.asarray(src["harmonics"], dtype=np.float64)
        a = np.deg2rad(np.asarray(src["amplitude_arcsec"], dtype=np.float64) / 3600.0)
        amp = np.repeat(a[:, None], harmonics.size, axis=1)
        phase = generator(*keys, "transmission").uniform(0, 2 * np.pi, (n, harmonics.size))
    truth["transmission_phase"] = phase.tolist()
    robot = PhysicalRobot(
        dh=nominal.vector() + errors,
        beta2=beta2,
        mass=true_mass,
        compliance=compliance,
        lost_motion=lost,
        approach=approach,
        switch_moment=switch,
        transmission=amp,
        phase=phase,
        harmonics=harmonics,
    )
    return robot, truth


def _line_of_sight(
    cfg: Mapping[str, Any], tracker_mm: FloatArray
) -> Callable[[FloatArray, FloatArray], NDArray[np.bool_]] | None:
    """Acceptance test of the SMR's line of sight: the SMR's axis (flange frame) within
    ``max_angle_deg`` of the direction to the tracker; None when not configured."""
    los = cfg.get("line_of_sight")
    if not los or not los.get("enabled", True):
        return None
    axis = np.asarray(los["smr_axis"], dtype=np.float64)
    axis = axis / np.linalg.norm(axis)
    cos_max = np.cos(np.deg2rad(los["max_angle_deg"]))

    def visible(R6: FloatArray, p: FloatArray) -> NDArray[np.bool_]:
        view = tracker_mm - p
        view /= np.linalg.norm(view, axis=-1, keepdims=True)
        return np.einsum("nij,j,ni->n", R6, axis, view) >= cos_max

    return visible


def data_keys(study: str, cfg: Mapping[str, Any], repeat: int) -> tuple:
    """Stream keys of data set ``repeat``: ``(study, "twin", seed, repeat)`` with
    ``vary_data``, else ``(study, "twin", seed)`` (one data set for every repeat)."""
    seed = int(cfg["seed"])
    return (study, "twin", seed, int(repeat)) if cfg["vary_data"] else (study, "twin", seed)


def robot_of(
    study: str, cfg: Mapping[str, Any], nominal: kin.DHTable, mass: model.MassModel, repeat: int
) -> PhysicalRobot:
    """The physical robot of data set ``repeat`` (the same draw as :func:`simulate`'s)."""
    return draw_robot(data_keys(study, cfg, repeat), cfg, nominal, mass)[0]


def simulate(
    study: str,
    cfg: Mapping[str, Any],
    nominal: kin.DHTable,
    *,
    mass: model.MassModel | None = None,
    repeats: int = 1,
) -> TwinData:
    """Simulate the calibration data of §3.2.1 from the ``twin`` config block, per repeat.

    With ``cfg["vary_data"]`` every repeat r draws its own robot (DH errors and the enabled
    sources), configurations, split and tracker noise from the streams ``(study, "twin",
    seed, r, <part>)``; otherwise one data set (streams ``(study, "twin", seed, <part>)``)
    serves every repeat.  ``frame`` has one row per candidate configuration and data set:
    ``repeat``, ``q1..q6`` [rad] (commanded), ``tau1..tau6`` [kN m] (the nominal
    ``mass`` model's gravity moments, for the compliance model), ``selected``, ``split``
    (``train`` / ``validation`` / ``unused``), ``design_order``, the SMR measured in the
    tracker frame (``xl, yl, zl``) and mapped to the base with the nominal registration
    (``x, y, z``), the true position (``x_true``...), the nominal model's prediction
    (``x_nom``...), the tracker distance and noise sigma.
    """
    if nominal.convention != "standard":  # the true robot and the models are standard DH
        raise ValueError(f"the twin is built on standard DH, got a {nominal.convention} table")
    mass = mass or model.MassModel(masses_kg=(0.0,) * 6, com_mm=((0.0, 0.0, 0.0),) * 6)
    datasets = repeats if cfg["vary_data"] else 1
    frames, truths = [], []
    for r in range(datasets):
        frame, truth = _simulate_one(data_keys(study, cfg, r), cfg, nominal, mass)
        frame.insert(0, "repeat", np.int64(r))
        frames.append(frame)
        truths.append(truth)
    tool = np.asarray(cfg["tool_mm"], dtype=np.float64)
    T_BL = pose_matrix(cfg["tracker"]["position_mm"], cfg["tracker"]["rpy_deg"])
    truth_all = {
        "parameters": kin.parameter_names(),
        "nominal": nominal.vector().tolist(),
        "tool_mm": tool.tolist(),
        "T_BL": T_BL.tolist(),
        "convention": nominal.convention,
        "design": "greedy maximin in joint space scaled to [0,1]^6, start nearest the centroid",
        "n_datasets": datasets,
        "n_train": truths[0]["n_train"],
        "n_validation": truths[0]["n_validation"],
        "sources": sorted(k for k in cfg.get("sources", {}) if _source(cfg, k)),
        "repeats": truths,
    }
    return TwinData(frame=pd.concat(frames, ignore_index=True), truth=truth_all)


def _simulate_one(
    keys: tuple, cfg: Mapping[str, Any], nominal: kin.DHTable, mass: model.MassModel
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One data set of :func:`simulate` from the streams ``(*keys, <part>)``."""
    robot, truth = draw_robot(keys, cfg, nominal, mass)
    tool_nominal = np.asarray(cfg["tool_mm"], dtype=np.float64)
    tool = tool_nominal.copy()
    if smr := _source(cfg, "smr_offset"):
        tool += smr["sd_mm"] * generator(*keys, "smr_offset").standard_normal(3)
    T_BL = pose_matrix(cfg["tracker"]["position_mm"], cfg["tracker"]["rpy_deg"])  # {L} in {B}
    d = np.zeros(6)  # registration error: translation [mm], rotation [deg]
    if reg := _source(cfg, "registration"):
        sd = np.repeat([reg["position_sd_mm"], reg["angle_sd_deg"]], 3)
        d = sd * generator(*keys, "registration").standard_normal(6)
    T_true = T_BL @ pose_matrix(d[:3], d[3:])  # the tracker's true pose in {B}
    limits = cfg["joint_limits_deg"]
    lower, upper = np.deg2rad(limits["lower"]), np.deg2rad(limits["upper"])
    visible = _line_of_sight(cfg, T_true[:3, 3])
    floor = float(cfg["min_height_mm"])

    def accept(q: FloatArray) -> NDArray[np.bool_]:
        R6, p = robot.pose(q, tool)
        ok = p[:, 2] >= floor
        return ok & visible(R6, p) if visible is not None else ok

    q = sample_configurations(
        generator(*keys, "configurations"), lower, upper, int(cfg["candidates"]), accept
    )
    order = greedy_maximin((q - lower) / (upper - lower), int(cfg["selected"]))
    train = split_mask(order.size, float(cfg["train_fraction"]), generator(*keys, "split"))

    e_nom = nominal.vector()
    p_true = robot.positions(q, tool)
    p_nom = kin.positions(e_nom, q, convention=nominal.convention, tool=tool_nominal)
    p_true_L = apply(invert(T_true), p_true)
    distance = np.linalg.norm(p_true_L, axis=1)
    sigma = TrackerNoise(**cfg["noise"]).sigma_mm(distance)
    p_meas_L = p_true_L + sigma[:, None] * generator(*keys, "noise").standard_normal(p_true.shape)
    p_meas = apply(T_BL, p_meas_L)  # mapped back with the nominal registration (Eq 2)

    n = q.shape[0]
    split = np.full(n, "unused", dtype=object)
    split[order[train]] = "train"
    split[order[~train]] = "validation"
    design_order = np.full(n, -1, dtype=np.int64)
    design_order[order] = np.arange(order.size)
    frame = pd.DataFrame({f"q{j + 1}": q[:, j] for j in range(kin.N_JOINTS)})
    tau = model.gravity_moments(mass, e_nom, q)
    for j in range(kin.N_JOINTS):
        frame[f"tau{j + 1}"] = tau[:, j]
    frame["selected"] = design_order >= 0
    frame["split"] = split.astype(str)
    frame["design_order"] = design_order
    for block, values in (("l", p_meas_L), ("", p_meas), ("_true", p_true), ("_nom", p_nom)):
        for j, axis in enumerate("xyz"):
            frame[f"{axis}{block}"] = values[:, j]
    frame["tracker_distance_mm"] = distance
    frame["sigma_mm"] = sigma
    truth |= {
        "true": robot.dh.tolist(),
        "tool_true_mm": tool.tolist(),
        "registration_error": d.tolist(),
        "n_train": int(train.sum()),
        "n_validation": int((~train).sum()),
    }
    return frame, truth


def nominal_error_rms_mm(frame: pd.DataFrame) -> float:
    """RMS [mm] over the selected configurations of ``frame`` (:func:`simulate`'s) of the
    distance from the true position to the nominal model's: how far the drawn robot lies from
    its nominal DH table."""
    selected = frame[frame["selected"]]
    true = selected[["x_true", "y_true", "z_true"]].to_numpy()
    nominal = selected[["x_nom", "y_nom", "z_nom"]].to_numpy()
    return float((((true - nominal) ** 2).sum(axis=1).mean()) ** 0.5)


def selection_summary(frame: pd.DataFrame, n_datasets: int) -> dict[str, float]:
    """Per data set of ``frame`` (:func:`simulate`'s, ``n_datasets`` of equal size): the
    candidate and the selected configurations (whole numbers), and the range [mm] of the
    tracker's sigma over the selected ones."""
    selected = frame[frame["selected"]]
    return {
        "candidates": len(frame) // n_datasets,
        "selected": len(selected) // n_datasets,
        "sigma_min_mm": float(selected["sigma_mm"].min()),
        "sigma_max_mm": float(selected["sigma_mm"].max()),
    }


def frame_units() -> dict[str, str]:
    """Units of the columns of :attr:`TwinData.frame`."""
    units = {"repeat": "1"} | {f"q{j + 1}": "rad" for j in range(kin.N_JOINTS)}
    units |= {f"tau{j + 1}": "kN m" for j in range(kin.N_JOINTS)}
    units |= {"selected": "1", "split": "1", "design_order": "1"}
    for block in ("l", "", "_true", "_nom"):
        units |= {f"{axis}{block}": "mm" for axis in "xyz"}
    units |= {"tracker_distance_mm": "mm", "sigma_mm": "mm"}
    return units
