"""Time paramid.optim's batched methods against mealpy on the hip LS problem (paper Eq 13).

Each configuration runs 30 seeds x 2400 evaluations (population 30, 80 iterations) in one
batched call on a 460 x 5 LinearRMSE problem (the Eq 6 regressor on the Eq 18 trajectory);
the median of several repeats is reported.  mealpy (not a paramid dependency) is timed on
the same objective with exactly 2400 evaluations (epoch=79, pop_size=30), counted at the
objective.  See perf/README.md for the mealpy venv.

    python perf/optimisers.py [--repeats 15] [--mealpy-runs 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

from paramid.optim.base import OptimResult
from paramid.optim.objectives import LinearRMSE
from paramid.optim.registry import METHODS
from paramid.seeding import seed_sequence

RUNS, POPULATION, ITERATIONS = 30, 30, 80
BUDGET = POPULATION * ITERATIONS
GAMMA = 0.0328  # paper Table 2

MEALPY_HELP = """mealpy is not installed in this interpreter; its rows are skipped.  To time it:
    python -m venv /tmp/mealpy-venv
    /tmp/mealpy-venv/bin/pip install --no-deps mealpy==3.0.3
    /tmp/mealpy-venv/bin/pip install numpy scipy pandas matplotlib
    /tmp/mealpy-venv/bin/pip install --no-deps -e .
    /tmp/mealpy-venv/bin/python perf/optimisers.py
(mealpy 3.0.3 imports numpy, scipy, pandas and matplotlib; its pins numpy<=1.26 and opfunu
are not needed for OriginalGWO / LDW_PSO, which run on numpy 2.)"""


def hip_problem() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Eq 6 regressor on the Eq 18 calibration trajectory, 460 samples, 0.115 Nm noise."""
    t = 0.2 + np.arange(460) / 100.0
    deg = np.pi / 180.0
    q = deg * (60 + 30 * np.sin(np.pi * t) + 15 * np.cos(2 * np.pi * t))
    qd = deg * (30 * np.pi * np.cos(np.pi * t) - 30 * np.pi * np.sin(2 * np.pi * t))
    qdd = deg * (-30 * np.pi**2 * np.sin(np.pi * t) - 60 * np.pi**2 * np.cos(2 * np.pi * t))
    H = np.column_stack([9.81 * np.sin(q), 9.81 * np.cos(q), qdd, np.sign(qd), qd])
    x = np.array([0.35, 0.05, 0.25, 0.3, 0.2])
    y = H @ x + 0.115 * np.random.default_rng(0).standard_normal(t.size)
    return H, y, x


def timed(call: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    """Median wall and median CPU (thread) seconds of ``repeats`` calls after one warm-up.

    CPU time is the better measure on a shared machine: it excludes time spent waiting for
    a core, though not the slowdown from other jobs sharing the caches.
    """
    wall, cpu = [], []
    for _ in range(repeats + 1):
        start, start_cpu = time.perf_counter(), time.thread_time()
        result = call()
        wall.append(time.perf_counter() - start)
        cpu.append(time.thread_time() - start_cpu)
    return float(np.median(wall[1:])), float(np.median(cpu[1:])), result


def time_ours(
    name: str, method: Callable[..., OptimResult], box, objective, repeats: int, **settings
) -> tuple[float, float, OptimResult]:
    """Median wall and CPU seconds of one batched call of RUNS seeds, and its result."""
    seeds = [seed_sequence("bench-optim", name, run) for run in range(RUNS)]

    def call() -> OptimResult:
        return method(
            objective, *box, population=POPULATION, iterations=ITERATIONS, seeds=seeds, **settings
        )

    wall, cpu, result = timed(call, repeats)
    if not np.all(result.n_evals == BUDGET):
        raise RuntimeError(f"{name}: {result.n_evals} evaluations, expected {BUDGET}")
    return wall, cpu, result


def time_mealpy(model_name: str, H, y, box, runs: int) -> tuple[float, float, float] | None:
    """Median wall and CPU seconds and median best RMSE per mealpy run (2400 evaluations)."""
    try:
        from mealpy import GWO, PSO, FloatVar
    except ImportError:
        return None
    calls = [0]

    def rmse(x: np.ndarray) -> float:
        calls[0] += 1
        return float(np.sqrt(np.mean((y - H @ x) ** 2)))

    make = {
        "OriginalGWO": lambda: GWO.OriginalGWO(epoch=ITERATIONS - 1, pop_size=POPULATION),
        "LDW_PSO": lambda: PSO.LDW_PSO(
            epoch=ITERATIONS - 1, pop_size=POPULATION, c1=2.0, c2=2.0, w_min=0.4, w_max=0.9
        ),
    }[model_name]
    problem = {
        "obj_func": rmse,
        "bounds": FloatVar(lb=box[0].tolist(), ub=box[1].tolist()),
        "minmax": "min",
        "log_to": None,
    }
    seeds, best = iter(range(runs + 1)), []

    def call() -> None:
        calls[0] = 0
        agent = make().solve(problem, seed=next(seeds))
        if calls[0] != BUDGET:
            raise RuntimeError(f"mealpy {model_name}: {calls[0]} evaluations, expected {BUDGET}")
        best.append(agent.target.fitness)

    wall, cpu, _ = timed(call, runs)
    return wall, cpu, float(np.median(best[1:]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15, help="timed batched calls per method")
    parser.add_argument("--mealpy-runs", type=int, default=5, help="timed mealpy runs per model")
    args = parser.parse_args()

    H, y, x = hip_problem()
    objective = LinearRMSE(H, y)
    rls_box = (x - 0.15 * np.abs(x) - 0.02, x + 0.25 * np.abs(x) + 0.02)
    wide_box = (x - 2.0 * np.abs(x) - 0.5, x + 2.0 * np.abs(x) + 0.5)
    configs = [
        ("pso (standard, wide box)", "pso", wide_box, {}),
        ("rls-pso", "pso", rls_box, {}),
        ("rls-ga", "ga", rls_box, {}),
        ("rls-gwo", "gwo", rls_box, {}),
        ("rls-agwo", "agwo", rls_box, {"gamma": GAMMA}),
    ]
    print(
        f"{RUNS} seeds x {BUDGET} evaluations, 460 x 5 LinearRMSE (gram); paramid: median of "
        f"{args.repeats} batched calls, mealpy: median of {args.mealpy_runs} runs"
    )
    print(
        f"{'configuration':26s} {'30 runs wall ms':>15s} {'CPU ms':>7s} {'per run ms':>10s} "
        f"{'median RMSE':>11s}"
    )
    per_run: dict[str, tuple[float, float]] = {}
    for label, name, box, settings in configs:
        wall, cpu, result = time_ours(
            label, METHODS[name], box, objective, args.repeats, **settings
        )
        per_run[label] = (wall / RUNS, cpu / RUNS)
        print(
            f"{label:26s} {wall * 1e3:15.2f} {cpu * 1e3:7.2f} {wall / RUNS * 1e3:10.3f} "
            f"{np.median(result.best_f):11.5f}"
        )

    for model, ours in (("OriginalGWO", "rls-gwo"), ("LDW_PSO", "rls-pso")):
        measured = time_mealpy(model, H, y, rls_box, args.mealpy_runs)
        if measured is None:
            print(MEALPY_HELP)
            break
        wall, cpu, best = measured
        print(
            f"mealpy {model:19s} {wall * 1e3:15.2f} {cpu * 1e3:7.2f} per run, median RMSE "
            f"{best:.5f}: {ours} is {wall / per_run[ours][0]:.0f}x faster per run (wall), "
            f"{cpu / per_run[ours][1]:.0f}x (CPU)"
        )


if __name__ == "__main__":
    main()
