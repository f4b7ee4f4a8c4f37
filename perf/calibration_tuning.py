"""Cost of the MIPO noise tuning with the filter inside Eq 29 (issue #18), both readings.

Times one tuned run (``identify(..., runs=[run])``, as the workflow calls it) of M5 in the
batch reading (``mipo_arkekf``) and the sequential reading (``mipo_arkekf_sequential``) of
Algorithm 2 on the default twin (config.yaml), with

  default    the config: ``tuning.budget: reduced``, ``fitness: filter``
  paper      ``budget: paper`` (MIPO population 100 x 60 iterations, §3.2.1), ``fitness: filter``
  surrogate  ``budget: paper``, ``fitness: linear_surrogate`` (the one-update linear model
             that was the default before: not the filter Algorithm 2 runs)

and prints wall and CPU seconds per run, the Eq 29 evaluations, CPU ms per evaluation, the
training/validation RMSE and the ratios to the default, all measured in the same run.  The
sequential reading's paper budget takes about ten minutes: without ``--paper-sequential`` its
row is extrapolated from one measured fitness call of population 100 (6000 evaluations at
that call's CPU time per evaluation) and marked so.

Usage: python perf/calibration_tuning.py [--run 0] [--paper-sequential]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np

from paramid.calibration.filters import READINGS, NoiseFactorFitness
from paramid.calibration.identify import IDENTIFIERS, identify
from paramid.calibration.problem import metrics, noise_bases

sys.path.insert(0, str(Path(__file__).resolve().parent))
from calibration import build_problem, study_config  # noqa: E402  (perf/calibration.py)

READING = {"mipo_arkekf": "batch", "mipo_arkekf_sequential": "sequential"}


def variants(cfg: dict) -> dict[str, dict]:
    """The tuning configurations compared (see the module docstring)."""
    paper = copy.deepcopy(cfg)
    paper["tuning"]["budget"] = "paper"
    surrogate = copy.deepcopy(paper)
    surrogate["tuning"]["fitness"] = "linear_surrogate"
    return {"default": cfg, "paper": paper, "surrogate": surrogate}


def one_call_ms_per_eval(problem, cfg: dict, name: str, run: int, population: int) -> float:
    """CPU ms per Eq 29 evaluation of one fitness call with ``population`` candidates."""
    bases = tuple(b[0] for b in noise_bases(problem, "kr210", [run]))
    fitness = NoiseFactorFitness(
        problem,
        *bases,
        READINGS[READING[name]],
        cfg["ekf"]["iterations"],
        gsbise=True,
        length_unit_mm=cfg["ekf"]["state_length_unit_mm"],
    )
    b = cfg["tuning"]["bounds"]
    lower = np.log10([b["alpha"][0], b["beta"][0], b["gamma"][0]])
    upper = np.log10([b["alpha"][1], b["beta"][1], b["gamma"][1]])
    W = np.random.default_rng(0).uniform(lower, upper, (1, population, 3))
    c0 = time.process_time()
    fitness(W)
    return 1e3 * (time.process_time() - c0) / population


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", type=int, default=0)
    parser.add_argument("--paper-sequential", action="store_true")
    args = parser.parse_args()
    cfg = copy.deepcopy(study_config())
    problem = build_problem(cfg)
    bc = metrics(problem.distances(np.zeros(problem.dim), "train"))["rmse"]
    print(
        f"KR210: n = {problem.q_train.shape[0]} training points, r = {problem.dim}, "
        f"K = {cfg['ekf']['iterations']} filter iterations, run {args.run}; "
        f"reduced budgets {cfg['tuning']['reduced']}; training RMSE before compensation "
        f"{bc:.4f} mm"
    )
    print(
        f"{'identifier':24s} {'tuning':9s} {'wall s':>8s} {'cpu s':>8s} {'evals':>6s} "
        f"{'cpu ms/eval':>11s} {'train mm':>9s} {'val mm':>8s} {'diverged':>8s} "
        f"{'cpu / default':>13s}"
    )
    for name in READING:
        cpu_default = np.nan
        for tag, vcfg in variants(cfg).items():
            if tag == "paper" and READING[name] == "sequential" and not args.paper_sequential:
                per_eval = one_call_ms_per_eval(problem, cfg, name, args.run, 100)
                cpu = 6000 * per_eval / 1e3
                print(
                    f"{name:24s} {tag:9s} {'':>8s} {cpu:8.1f} {6000:6d} {per_eval:11.2f} "
                    f"{'':>9s} {'':>8s} {'':>8s} {cpu / cpu_default:13.1f}  "
                    "(extrapolated from one population-100 call)"
                )
                continue
            w0, c0 = time.perf_counter(), time.process_time()
            fit = identify(name, problem, vcfg, study="kr210", runs=[args.run])
            wall, cpu = time.perf_counter() - w0, time.process_time() - c0
            if tag == "default":
                cpu_default = cpu
            evals = int(fit.n_evals[0]) - cfg["ekf"]["iterations"]
            train = metrics(problem.distances(fit.x, "train"))["rmse"][0]
            val = metrics(problem.distances(fit.x, "validation"))["rmse"][0]
            print(
                f"{name:24s} {tag:9s} {wall:8.2f} {cpu:8.2f} {evals:6d} "
                f"{1e3 * cpu / evals:11.2f} {train:9.4f} {val:8.4f} "
                f"{bool(fit.info['diverged'][0])!s:>8s} {cpu / cpu_default:13.2f}"
            )
    untuned = [n for n in IDENTIFIERS if n in ("ekf", "ekf_sequential")]
    for name in untuned:
        w0, c0 = time.perf_counter(), time.process_time()
        fit = identify(name, problem, cfg, study="kr210", runs=[args.run])
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        val = metrics(problem.distances(fit.x, "validation"))["rmse"][0]
        print(f"{name:24s} {'manual':9s} {wall:8.2f} {cpu:8.2f} {'':>27s} {val:8.4f}")


if __name__ == "__main__":
    main()
