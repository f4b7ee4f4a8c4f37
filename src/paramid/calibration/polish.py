"""Polishing-path check (paper §3.2.3, Table 9): dwell points over a flat part, with and without
compensation.

The path is a boustrophedon raster of dwell points at ``pitch`` over a disc of the part's
diameter (Table 10: phi 150 mm flat ULE glass), the tool axis normal to the part.  For each
set of parameters used by the controller (the nominal table = before compensation, or an
identifier's estimate = after), the commanded joint angles come from inverse kinematics with
those parameters; the robot (the twin's physical robot: true geometry and joint deflections)
then puts the tool point at FK_true(q_cmd).  The tracking error of a dwell point is
|FK_true(q_cmd) - target| [mm] (the twin's truth; no tracker noise), summarised as MEAN,
RMSE, MAX (Eq 45) and the share of points within +-0.5 mm and +-1.0 mm.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin
from paramid.calibration import model, report, twin
from paramid.calibration.paper import TABLE9_METRICS, PrintedValues
from paramid.calibration.problem import Problem, metrics
from paramid.calibration.twin import PhysicalRobot, pose_matrix
from paramid.errors import InputError

FloatArray = NDArray[np.float64]

__all__ = [
    "POINT_UNITS",
    "TABLE9_COLUMNS",
    "PolishingSetup",
    "dwell_points",
    "path_targets",
    "seed_configuration",
    "tracking_errors",
    "summary",
    "table9",
    "table9_row",
]

#: The columns of table9.md: our metrics beside the paper's.
TABLE9_COLUMNS = ["method", "stage", *TABLE9_METRICS, *(f"paper_{k}" for k in TABLE9_METRICS)]
#: Units of the dwell-point frame (the mean error over runs of each point of each method).
POINT_UNITS = {"method": "1", "point": "1", "error_mm": "mm"}


def dwell_points(diameter_mm: float, pitch_mm: float) -> FloatArray:
    """Raster (m, 2) of dwell points on a disc, rows alternating direction, centred at 0."""
    radius = 0.5 * diameter_mm
    n = int(np.floor(radius / pitch_mm))
    grid = pitch_mm * np.arange(-n, n + 1)
    rows = []
    for i, y in enumerate(grid):
        xs = grid[grid**2 + y**2 <= radius**2 + 1e-9]
        rows.append(np.column_stack([xs[:: (-1) ** i], np.full(xs.size, y)]))
    return np.concatenate(rows)


def path_targets(
    *, diameter_mm: float, pitch_mm: float, centre_mm: ArrayLike, tool_rpy_deg: ArrayLike
) -> FloatArray:
    """Target tool poses (m, 4, 4) in the base frame: the dwell points of a part of
    ``diameter_mm`` at ``pitch_mm`` (:func:`dwell_points`) around ``centre_mm``, the tool at
    ``tool_rpy_deg`` (the ``polishing`` config block's settings)."""
    pts = dwell_points(diameter_mm, pitch_mm)
    frame = pose_matrix(centre_mm, tool_rpy_deg)
    T = np.broadcast_to(frame, (pts.shape[0], 4, 4)).copy()
    T[:, :3, 3] = np.asarray(centre_mm, dtype=np.float64) + np.column_stack(
        [pts, np.zeros(pts.shape[0])]
    )
    return T


def seed_configuration(
    params: ArrayLike,
    target: FloatArray,
    *,
    tool: ArrayLike,
    convention: kin.Convention = "standard",
    steps: int = 200,
    max_step_rad: float = 0.1,
) -> FloatArray:
    """A joint solution (6,) for one pose, by damped Newton from an elbow-up guess.

    The start points the arm at the target (q1 = atan2(y, x)) with the upper arm tilted
    forward and the forearm down; steps are limited to ``max_step_rad`` so the iteration
    stays on that branch.  Refined to full precision by :func:`kin.inverse_kinematics`.
    """
    q = np.array([np.arctan2(target[1, 3], target[0, 3]), 0.3, 0.3, 0.0, 0.9, 0.0])
    for _ in range(steps):
        R, p = kin.forward(params, q, convention=convention, tool=tool)
        err = np.concatenate([target[:3, 3] - p, kin.rotation_error(target[:3, :3], R)])
        J = kin.geometric_jacobian(params, q, convention=convention, tool=tool)
        dq = np.linalg.lstsq(J, err, rcond=None)[0]
        q = q + dq * min(1.0, max_step_rad / max(np.abs(dq).max(), 1e-300))
        if np.abs(err[:3]).max() < 1e-6 and np.abs(err[3:]).max() < 1e-9:
            break
    return kin.inverse_kinematics(params, target, q, convention=convention, tool=tool)


def tracking_errors(
    commanded: ArrayLike,
    robot: PhysicalRobot,
    targets: FloatArray,
    q_seed: ArrayLike,
    *,
    tool: ArrayLike,
    mass: model.MassModel | None = None,
) -> FloatArray:
    """|robot(IK_commanded(target)) - target| (k, m) for k commanded extended parameter
    vectors (k, 38) of :mod:`paramid.calibration.model`: the controller inverts its model
    (compliance included where identified, with the nominal ``mass`` model) and the twin's
    physical ``robot`` (geometry, deflections) places the tool point ``tool``."""
    P = np.atleast_2d(np.asarray(commanded, dtype=np.float64))
    errors = []
    for e in P:
        try:
            q = model.inverse_kinematics(e, targets, q_seed, mass=mass, tool=tool)
        except RuntimeError:  # Newton did not converge on some target from the centre's seed
            raise InputError(
                "polishing: the path's inverse kinematics did not converge from its centre's "
                "joint solution: a target out of the robot's reach, or one the arm cannot "
                "reach on the centre's branch; move or shrink the part (centre_mm, "
                "diameter_mm) or turn the tool (tool_rpy_deg)"
            ) from None
        reached = robot.positions(q, tool)
        errors.append(np.linalg.norm(reached - targets[..., :3, 3], axis=-1))
    return np.stack(errors)


def summary(errors: ArrayLike) -> dict[str, FloatArray]:
    """Table 9 metrics over the last axis: mean, rmse, max [mm] and % within 0.5 / 1.0 mm."""
    e = np.asarray(errors, dtype=np.float64)
    out = {f"{k}_mm": v for k, v in metrics(e).items()}
    out["within_0p5_pct"] = 100.0 * np.mean(e <= 0.5, axis=-1)
    out["within_1p0_pct"] = 100.0 * np.mean(e <= 1.0, axis=-1)
    return out


@dataclass(frozen=True)
class PolishingSetup:
    """The polishing path of one study: target poses (m, 4, 4), the tool point [mm], the nominal
    mass model the controller inverts, the joint seed of the path's centre, and the twin's
    physical robot of each run (its own data set's draw)."""

    targets: FloatArray
    tool: FloatArray
    mass: model.MassModel
    q_seed: FloatArray
    robots: list[PhysicalRobot]

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any], truth: Mapping[str, Any]) -> PolishingSetup:
        """From the study's ``study``, ``robot``, ``twin``, ``mass_model``, ``runs`` and
        ``polishing`` blocks and the twin's truth (truth.json: nominal table, data sets)."""
        pcfg = cfg["polishing"]
        targets = path_targets(
            diameter_mm=pcfg["diameter_mm"],
            pitch_mm=pcfg["pitch_mm"],
            centre_mm=pcfg["centre_mm"],
            tool_rpy_deg=pcfg["tool_rpy_deg"],
        )
        tool = np.asarray(pcfg["tcp_mm"], dtype=np.float64)
        robot = cfg["robot"]
        table = kin.DHTable.from_degrees(**robot["dh"], convention=robot["convention"])
        mass = model.MassModel.from_config(cfg["mass_model"])
        robots = [
            twin.robot_of(cfg["study"], cfg["twin"], table, mass, report.dataset_of(r, truth))
            for r in range(cfg["runs"])
        ]
        centre = targets[0].copy()
        centre[:3, 3] = pcfg["centre_mm"]
        try:
            q_seed = seed_configuration(truth["nominal"], centre, tool=tool)
        except RuntimeError:  # Newton did not converge: the pose is out of the arm's reach
            raise InputError(
                f"polishing: the part's centre {pcfg['centre_mm']} mm with the tool point "
                f"{pcfg['tcp_mm']} mm at tool_rpy_deg {pcfg['tool_rpy_deg']} is beyond the "
                "nominal robot's reach (inverse kinematics did not converge): place the part "
                "(centre_mm) where this robot reaches it"
            ) from None
        return cls(targets=targets, tool=tool, mass=mass, q_seed=q_seed, robots=robots)

    def run_errors(self, problems: Sequence[Problem], x: FloatArray) -> FloatArray:
        """Dwell-point errors (runs, m): run r's estimate ``x[r]`` (its identified subset)
        commanded on run r's robot."""
        return np.concatenate(
            [
                tracking_errors(
                    p.full(xr), robot, self.targets, self.q_seed, tool=self.tool, mass=self.mass
                )
                for p, xr, robot in zip(problems, x, self.robots, strict=True)
            ]
        )


def table9_row(
    name: str,
    model_name: str,
    identifier: str,
    errors: FloatArray,
    printed: PrintedValues | None,
) -> dict[str, Any]:
    """Table 9 row of one method: mean and SD over runs (rows of ``errors``) of each path
    metric, and the paper's ``printed`` values (on the paper's model only; None: NaN)."""
    row: dict[str, Any] = {
        "method": name,
        "model": model_name,
        "stage": "before" if identifier == "bc" else "after",
        "runs": errors.shape[0],
    }
    for key, values in summary(errors).items():
        row[key] = float(np.mean(values))
        row[f"{key}_sd"] = float(np.std(values, ddof=1)) if values.size > 1 else float("nan")
    cells = printed.table9.get(name, {}) if printed and model_name == "paper" else {}
    for key in TABLE9_METRICS:
        row[f"paper_{key}"] = cells.get(key, float("nan"))
    return row


def table9(
    fits: Mapping[str, Mapping[str, pd.DataFrame]],
    problems: Mapping[str, Sequence[Problem]],
    setup: PolishingSetup,
    printed: PrintedValues | None,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Table 9 (one row per model and identifier of ``fits[model][identifier]``, each run's
    estimate on its own robot, ``problems[model]`` one per run; the paper's ``printed``
    values beside the paper model's rows) and the dwell-point errors
    (method, point, error_mm: the mean over runs of each point)."""
    rows, points = [], []
    for model_name, by_ident in fits.items():
        for ident, fit in by_ident.items():
            runs = problems[model_name]
            x = report.estimates(fit.sort_values("run"), runs[0].free)
            errors = setup.run_errors(runs, x)
            name = report.model_label(ident, model_name)
            rows.append(table9_row(name, model_name, ident, errors, printed))
            points.append(
                pd.DataFrame(
                    {
                        "method": name,
                        "point": np.arange(errors.shape[1]),
                        "error_mm": errors.mean(axis=0),
                    }
                )
            )
    return pd.DataFrame(rows), pd.concat(points, ignore_index=True)
