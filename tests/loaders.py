"""Users' files loaded as the workflow's scripts load them: :mod:`paramid.io` reads the file,
the library judges what was read (naming the file in its errors)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from schema_blocks import defaults

from paramid import ingest, io
from paramid.calibration import paper
from paramid.cec2022 import paper as cec_paper
from paramid.robot import excitation, model, records, twin

#: the largest time-stamp jitter a record's config accepts by default (1-DOF, multi-joint)
MAX_JITTER = defaults("$defs", "study", "ingest")["max_jitter"]
ROBOT_MAX_JITTER = defaults("$defs", "robot_measured_record")["max_jitter"]
#: the rank threshold of a robot study's base parameters by default
BASE_REL_TOL = defaults("robots", "*", "base")["rel_tol"]


def load_record(path: str | Path, *args: Any, **kwargs: Any) -> ingest.MeasuredRecord:
    """A 1-DOF record: :func:`paramid.ingest.record_from_table` of the file (``max_jitter``
    the schema's default unless given)."""
    kwargs.setdefault("max_jitter", MAX_JITTER)
    return ingest.record_from_table(io.read_table(path, units_row=True), path, *args, **kwargs)


def load_robot_record(path: str | Path, *args: Any, **kwargs: Any) -> records.RobotRecord:
    """A joint log: :func:`paramid.robot.records.record_from_table` of the file (``max_jitter``
    the schema's default unless given)."""
    kwargs.setdefault("max_jitter", ROBOT_MAX_JITTER)
    return records.record_from_table(io.read_table(path, units_row=True), path, *args, **kwargs)


def load_robot(path: str | Path, *args: Any, **kwargs: Any) -> model.Robot:
    """:func:`paramid.robot.model.robot_from_urdf` of a URDF file."""
    return model.robot_from_urdf(io.read_urdf(path), path, *args, **kwargs)


def read_coefficients(path: str | Path, *args: Any, **kwargs: Any) -> excitation.FourierTrajectory:
    """:func:`paramid.robot.excitation.coefficients_from_table` of a coefficients file."""
    return excitation.coefficients_from_table(io.read_table(path), path, *args, **kwargs)


#: the calibration paper's printed values as the KR210 study ships them
KR210_PAPER_VALUES = Path(__file__).resolve().parents[1] / "data/kr210/paper_values.yaml"


def kr210_printed(path: str | Path = KR210_PAPER_VALUES) -> paper.PrintedValues:
    """:func:`paramid.calibration.paper.printed_values` of a paper-values file."""
    return paper.printed_values(io.read_yaml(path), str(path))


#: the CEC 2022 paper's values as the benchmark ships them, and §3.1.2's stated places there
CEC_PAPER_VALUES = Path(__file__).resolve().parents[1] / "data/cec2022/paper_values.yaml"
CEC_TEXT_PLACES = cec_paper.text_places(io.read_yaml(CEC_PAPER_VALUES), str(CEC_PAPER_VALUES))

#: the real Gen3's TorqueCur content above 10 Hz per joint [N m] (SOURCE.md "Real or
#: simulated?"), the torque noise gen3_twin states
GEN3_TORQUE_NOISE_NM = (3.3, 3.3, 3.3, 3.3, 0.6, 0.6, 0.6)
#: a Gen3 twin's sensors: the schema's encoder and velocity defaults, gen3_twin's torque noise
GEN3_NOISE = twin.TwinNoise(1e-5, 0.0, 2e-3, GEN3_TORQUE_NOISE_NM)
#: the twin's friction, offset and armature ranges: the schema's (the library keeps no default)
TWIN_FRICTION = defaults("robots", "*", "twin", "friction")
#: perfect sensors: measured = true
NOISE_FREE = twin.TwinNoise(0.0, 0.0, 0.0, 0.0)


def with_rest(
    log: pd.DataFrame,
    before: int,
    after: int = 0,
    *,
    time: str = "time",
    noisy: tuple[str, ...] = (),
    seed: int = 0,
) -> pd.DataFrame:
    """``log`` with its first row held for ``before`` rows and its last for ``after`` (a logger
    running before and after the motion), stamped at its median interval beyond its own stamps,
    with N(0, 0.05) added to the ``noisy`` columns there (a torque sensor at rest: a value held
    exactly reads as a saturated one)."""
    held = pd.concat([log.iloc[[0] * before], log, log.iloc[[-1] * after]], ignore_index=True)
    step = float(log[time].diff().median())
    stamps = log[time].to_numpy()
    held[time] = np.concatenate(
        [
            stamps[0] - step * np.arange(before, 0, -1),
            stamps,
            stamps[-1] + step * np.arange(1, after + 1),
        ]
    )
    if noisy:
        rest = np.r_[0:before, len(held) - after : len(held)]
        noise = np.random.default_rng(seed).normal(0.0, 0.05, (rest.size, len(noisy)))
        held.loc[rest, list(noisy)] += noise
    return held
