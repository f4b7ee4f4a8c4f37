"""Time every KR210 calibration identifier with the configured budgets (issue #9: M5 <= 5 s).

Builds the twin's first data set from the ``calibration.kr210`` block of config.yaml and the
identified subset of ``--model``, then runs each identifier for all runs in one batched call
and reports wall time per run, CPU time per run and the validation RMSE.  ``--fitness`` and
``--budget`` override ``tuning.fitness`` (``filter``: the filter inside every Eq 29
evaluation; ``linear_surrogate``) and ``tuning.budget`` (``paper``: 100 x 60; ``reduced``);
``perf/calibration_tuning.py`` compares them.

Usage: python perf/calibration.py [--runs 10] [--tuner mipo|pso] [--repeats 3]
       [--fitness filter|linear_surrogate] [--budget paper|reduced] [--only mipo_arkekf,ekf]
       [--model paper]
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

import numpy as np
import yaml

from paramid.calibration import kinematics as kin
from paramid.calibration import model, twin
from paramid.calibration.identifiability import extended_jacobian, model_identifiability
from paramid.calibration.identify import IDENTIFIERS, identify
from paramid.calibration.problem import Problem, metrics
from paramid.config import validate
from paramid.optim.registry import METHODS

ROOT = Path(__file__).resolve().parents[1]


def study_config(tuner: str = "mipo") -> dict:
    """The ``calibration.kr210`` block of config.yaml, its tuning stage's method ``tuner``,
    with the schema's defaults filled (the tuner's settings among them)."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    config["calibration"]["kr210"]["tuning"] |= {"method": tuner, "settings": {}}
    validate(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return config["calibration"]["kr210"]


def build_problem(cfg: dict, model_name: str = "paper") -> Problem:
    """The first data set of the twin and the identified subset of ``model_name``."""
    robot = cfg["robot"]
    table = kin.DHTable.from_degrees(**robot["dh"], convention=robot["convention"])
    mass = model.MassModel.from_config(cfg["mass_model"])
    data = twin.simulate("kr210", cfg["twin"], table, mass=mass)
    t = data.truth
    spec = cfg["models"][model_name]
    candidates = model.group_indices(spec["groups"], spec.get("compliance_joints", []))
    J = extended_jacobian(Problem.from_frame(data.frame, t["nominal"], t["tool_mm"], []))
    _, free, _ = model_identifiability([J], candidates, cfg["identifiability"]["rel_tol"])
    return Problem.from_frame(data.frame, t["nominal"], t["tool_mm"], free)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--repeats", type=int, default=3, help="timed repeats (median)")
    parser.add_argument("--tuner", default="mipo" if "mipo" in METHODS else "pso")
    parser.add_argument("--fitness", choices=["filter", "linear_surrogate"], default=None)
    parser.add_argument("--budget", choices=["paper", "reduced"], default=None)
    parser.add_argument("--only", default="", help="comma-separated identifiers")
    parser.add_argument("--model", default="paper", help="a model of calibration.kr210.models")
    args = parser.parse_args()

    cfg = copy.deepcopy(study_config(args.tuner))
    for key in ("fitness", "budget"):
        if getattr(args, key) is not None:
            cfg["tuning"][key] = getattr(args, key)
    problem = build_problem(cfg, args.model)
    runs = list(range(args.runs))
    names = args.only.split(",") if args.only else list(IDENTIFIERS)
    stand_in = (
        ""
        if args.tuner == "mipo"
        else f"  (tuner = {args.tuner}: stand-in until mipo is registered)"
    )
    print(
        f"KR210 calibration: {problem.q_train.shape[0]} train / {problem.q_val.shape[0]} "
        f"validation points, {problem.dim} identified parameters, {args.runs} runs batched, "
        f"tuning fitness {cfg['tuning']['fitness']}, budget {cfg['tuning']['budget']}{stand_in}"
    )
    print(
        f"{'identifier':24s} {'time_s':>8s} {'wall s/run':>10s} {'cpu s/run':>10s} "
        f"{'val RMSE mm':>12s}"
    )
    for name in names:
        walls, cpus = [], []
        for _ in range(args.repeats):
            w0, c0 = time.perf_counter(), time.process_time()
            fit = identify(name, problem, cfg, study="kr210", runs=runs)
            walls.append((time.perf_counter() - w0) / len(runs))
            cpus.append((time.process_time() - c0) / len(runs))
        rmse = metrics(problem.distances(fit.x, "validation"))["rmse"]
        print(
            f"{name:24s} {fit.time_s.mean():8.3f} {np.median(walls):10.3f} "
            f"{np.median(cpus):10.3f} {rmse.mean():12.5f}"
        )


if __name__ == "__main__":
    main()
