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

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin
from paramid.seeding import generator

FloatArray = NDArray[np.float64]

__all__ = [
    "TrackerNoise",
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


def pose_matrix(position_mm: Sequence[float], rpy_deg: Sequence[float]) -> FloatArray:
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
    *,
    params: ArrayLike,
    tool: ArrayLike,
    min_height_mm: float,
    batch: int = 4096,
) -> FloatArray:
    """``n`` configurations uniform in the joint box whose tool point is above the floor.

    Draws blocks of ``batch`` configurations and keeps, in draw order, those with tool-point
    z >= ``min_height_mm`` (uniform on the feasible part of the box).
    """
    lo = np.asarray(lower_rad, dtype=np.float64)
    hi = np.asarray(upper_rad, dtype=np.float64)
    kept: list[FloatArray] = []
    total = 0
    for _ in range(1000):
        q = lo + (hi - lo) * rng.random((batch, kin.N_JOINTS))
        z = kin.positions(params, q, tool=tool)[:, 2]
        good = q[z >= min_height_mm]
        kept.append(good)
        total += good.shape[0]
        if total >= n:
            return np.concatenate(kept)[:n]
    raise RuntimeError("could not find enough configurations above the floor height")


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
    n_train = int(round(train_fraction * n))
    mask = np.zeros(n, dtype=bool)
    mask[rng.permutation(n)[:n_train]] = True
    return mask


@dataclass(frozen=True)
class TwinData:
    """Output of :func:`simulate`: the per-configuration frame and the twin's truth."""

    frame: pd.DataFrame
    truth: dict[str, Any]


def simulate(study: str, cfg: Mapping[str, Any], nominal: kin.DHTable) -> TwinData:
    """Simulate the calibration data set of §3.2.1 from the ``twin`` config block.

    ``frame`` has one row per candidate configuration: ``q1..q6`` [rad], ``selected``,
    ``split`` (``train`` / ``validation`` / ``unused``), ``design_order`` (position in the
    maximin sequence, -1 if unused), the SMR measured by the tracker in its frame
    (``xl, yl, zl``) and mapped to the base (``x, y, z``), the true position (``x_true``...),
    the nominal model's prediction (``x_nom``...), the tracker distance and noise sigma.
    """
    seed = int(cfg["seed"])
    keys = (study, "twin", seed)
    e_nom = nominal.vector()
    errors = draw_errors(generator(*keys, "errors"), cfg["errors_sd"])
    e_true = e_nom + errors
    tool = np.asarray(cfg["tool_mm"], dtype=np.float64)
    T_BL = pose_matrix(cfg["tracker"]["position_mm"], cfg["tracker"]["rpy_deg"])  # {L} in {B}
    T_LB = invert(T_BL)
    limits = cfg["joint_limits_deg"]
    q = sample_configurations(
        generator(*keys, "configurations"),
        np.deg2rad(limits["lower"]),
        np.deg2rad(limits["upper"]),
        int(cfg["candidates"]),
        params=e_true,
        tool=tool,
        min_height_mm=float(cfg["min_height_mm"]),
    )
    scaled = (q - np.deg2rad(limits["lower"])) / np.deg2rad(
        np.subtract(limits["upper"], limits["lower"])
    )
    order = greedy_maximin(scaled, int(cfg["selected"]))
    train = split_mask(order.size, float(cfg["train_fraction"]), generator(*keys, "split"))

    p_true = kin.positions(e_true, q, convention=nominal.convention, tool=tool)
    p_nom = kin.positions(e_nom, q, convention=nominal.convention, tool=tool)
    p_true_L = apply(T_LB, p_true)
    distance = np.linalg.norm(p_true_L, axis=1)
    noise = TrackerNoise(**cfg["noise"])
    sigma = noise.sigma_mm(distance)
    p_meas_L = p_true_L + sigma[:, None] * generator(*keys, "noise").standard_normal(p_true.shape)
    p_meas = apply(T_BL, p_meas_L)

    n = q.shape[0]
    split = np.full(n, "unused", dtype=object)
    split[order[train]] = "train"
    split[order[~train]] = "validation"
    design_order = np.full(n, -1, dtype=np.int64)
    design_order[order] = np.arange(order.size)
    frame = pd.DataFrame({f"q{j + 1}": q[:, j] for j in range(kin.N_JOINTS)})
    frame["selected"] = design_order >= 0
    frame["split"] = split.astype(str)
    frame["design_order"] = design_order
    for block, values in (("l", p_meas_L), ("", p_meas), ("_true", p_true), ("_nom", p_nom)):
        for j, axis in enumerate("xyz"):
            frame[f"{axis}{block}"] = values[:, j]
    frame["tracker_distance_mm"] = distance
    frame["sigma_mm"] = sigma
    truth = {
        "parameters": kin.parameter_names(),
        "nominal": e_nom.tolist(),
        "true": e_true.tolist(),
        "errors": errors.tolist(),
        "tool_mm": tool.tolist(),
        "T_BL": T_BL.tolist(),
        "convention": nominal.convention,
        "design": "greedy maximin in joint space scaled to [0,1]^6, start nearest the centroid",
        "n_train": int(train.sum()),
        "n_validation": int((~train).sum()),
    }
    return TwinData(frame=frame, truth=truth)


def frame_units() -> dict[str, str]:
    """Units of the columns of :attr:`TwinData.frame`."""
    units = {f"q{j + 1}": "rad" for j in range(kin.N_JOINTS)}
    units |= {"selected": "1", "split": "1", "design_order": "1"}
    for block in ("l", "", "_true", "_nom"):
        units |= {f"{axis}{block}": "mm" for axis in "xyz"}
    units |= {"tracker_distance_mm": "mm", "sigma_mm": "mm"}
    return units
