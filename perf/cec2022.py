"""Time the full CEC 2022 protocol of the MIPO paper: 12 functions x 2 dimensions x 7
algorithms x 30 runs x 50 000 evaluations (population 100, 500 iterations), the jobs of
``workflow/rules/cec2022.smk`` (``paramid.cec2022.runs.run_job``) spread over
``--workers`` processes.

Reports the total wall time, per-job wall and CPU (process) time, and evaluations per
second per function and dimension (CPU time, all algorithms together: 7 x 30 x 50 000
evaluations), plus the share of CPU time spent in the objective (measured separately by
timing the CEC function on the same number of points).  CPU time is the better measure on
a shared machine: it excludes time spent waiting for a core.

    python perf/cec2022.py [--workers 2] [--runs 30] [--iterations 500]
        [--functions 1 2 ...] [--dims 10 20] [--out results/cec2022/benchmark.csv]

Measured (2-vCPU VM shared with other jobs, load average 3-7 during the run, Python 3.11,
numpy 2.4): 168 jobs, 252 000 000 evaluations in 342.6 s wall (5.7 min) with 2 workers;
336 s of job CPU time in all.  Evaluations per CPU second (7 algorithms together): D=10
1.4e6 (F1-F6), 1.0-1.1e6 (F7-F10), 0.7e6 (F11-F12); D=20 0.7-0.9e6 (F1-F6), 0.5-0.6e6
(F7-F9), 0.3-0.5e6 (F10-F12).  The objective takes 6-54 % of the CPU time (the rest is the
optimisers' vectorised updates, random numbers and bookkeeping).  Per-algorithm CPU time
per job (median): WOA 0.9 s, PO 1.5 s, SGA 1.7 s, HO 2.0 s, HHO 2.0 s, MIPO 2.3 s, GGO 2.5 s.
The same protocol through Snakemake (``workflow/rules/cec2022.smk``, one process per job,
tables, statistics and figures included) took 6 min 39 s wall with ``--cores 2``.
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from paramid.cec2022.runs import ALGORITHMS, optimiser_settings, run_job
from paramid.cec2022.suite import CEC2022
from paramid.config import validate

ROOT = Path(__file__).resolve().parents[1]


def settings_block() -> dict:
    """``cec2022.settings`` of config.yaml with the schema's defaults filled."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return config["cec2022"]["settings"]


def _job(args: tuple[int, int, str, int, int, int, dict]) -> dict:
    function, dim, algorithm, runs, population, iterations, settings = args
    start, cpu0 = time.perf_counter(), time.process_time()
    frame, _, _ = run_job(
        function,
        dim,
        algorithm,
        runs=runs,
        population=population,
        iterations=iterations,
        optimiser_settings=optimiser_settings(settings, algorithm),
    )
    return {
        "function": function,
        "dim": dim,
        "algorithm": algorithm,
        "wall_s": time.perf_counter() - start,
        "cpu_s": time.process_time() - cpu0,
        "evaluations": int(frame["n_evals"].sum()),
        "median_error": float(frame["error"].median()),
    }


def objective_cpu(function: int, dim: int, runs: int, population: int, iterations: int) -> float:
    """CPU seconds of evaluating the CEC function on runs x population points, iterations
    times (the objective's share of one job)."""
    problem = CEC2022(function, dim)
    X = np.random.default_rng(0).uniform(-100, 100, (runs, population, dim))
    problem(X)
    cpu0 = time.process_time()
    for _ in range(iterations):
        problem(X)
    return time.process_time() - cpu0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--population", type=int, default=100)
    parser.add_argument("--iterations", type=int, default=500)
    parser.add_argument("--functions", type=int, nargs="+", default=list(range(1, 13)))
    parser.add_argument("--dims", type=int, nargs="+", default=[10, 20])
    parser.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS))
    parser.add_argument("--out", default=None, help="CSV of the per-job timings")
    args = parser.parse_args()
    settings = settings_block()
    jobs = [
        (f, d, a, args.runs, args.population, args.iterations, settings)
        for d in args.dims
        for f in args.functions
        for a in args.algorithms
    ]
    # Longest jobs first (D = 20, composition functions) keep both workers busy to the end.
    jobs.sort(key=lambda j: (-j[1], -j[0]))
    load = os.getloadavg()[0]
    start = time.perf_counter()
    with ProcessPoolExecutor(max_workers=args.workers) as pool:
        rows = list(pool.map(_job, jobs))
    total = time.perf_counter() - start
    table = pd.DataFrame(rows)
    if args.out:
        table.to_csv(args.out, index=False)
    print(f"{len(jobs)} jobs, {table['evaluations'].sum():,} evaluations, {args.workers} workers")
    print(
        f"total wall time: {total:.1f} s ({total / 60:.2f} min); load average at start {load:.2f}"
    )
    print(f"sum of job CPU times: {table['cpu_s'].sum():.1f} s")
    per_function = table.groupby(["dim", "function"]).agg(
        cpu_s=("cpu_s", "sum"), wall_s=("wall_s", "sum"), evaluations=("evaluations", "sum")
    )
    per_function["evals_per_cpu_s"] = per_function["evaluations"] / per_function["cpu_s"]
    per_function["objective_cpu_s"] = [
        len(args.algorithms) * objective_cpu(f, d, args.runs, args.population, args.iterations)
        for d, f in per_function.index
    ]
    per_function["objective_share"] = per_function["objective_cpu_s"] / per_function["cpu_s"]
    with pd.option_context("display.width", 120, "display.float_format", "{:.3g}".format):
        print(per_function.reset_index().to_string(index=False))
        per_algorithm = table.groupby("algorithm")[["cpu_s", "wall_s"]].agg(["sum", "median"])
        print(per_algorithm.to_string())


if __name__ == "__main__":
    main()
