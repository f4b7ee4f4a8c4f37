"""Cross-check paramid's WOA and HHO against mealpy's OriginalWOA / OriginalHHO on CEC 2022.

For each function (D = 10 by default) both implementations get the same evaluation budget
per run: ours through ``paramid.optim.METHODS`` (population x iterations, exact by
construction), mealpy's counted at the objective, which stops the run (an exception caught
here) as soon as the budget is spent; the run's result is the best value among its first
``budget`` evaluations.  The final values of the runs are compared with a two-sided
Mann-Whitney U test (``paramid.stats.compare``), Holm-adjusted over all (function, method)
rows: "indistinguishable" means Holm p >= 0.05.

mealpy is not a paramid dependency and pins an old numpy; see benchmarks/README.md for the
separate venv (``/tmp/mealpy-venv``: ``pip install --no-deps mealpy`` + numpy, scipy,
pandas, matplotlib, and ``pip install --no-deps -e .`` for paramid itself).

    /tmp/mealpy-venv/bin/python benchmarks/cec2022_peers.py [--functions 1 4 6 9]
        [--dim 10] [--runs 15] [--population 50] [--iterations 200]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from paramid.benchmarks.cec2022 import CEC2022
from paramid.optim import METHODS
from paramid.seeding import seed_sequence
from paramid.stats import compare, holm

PEERS = {"woa": ("WOA", "OriginalWOA"), "hho": ("HHO", "OriginalHHO")}


class BudgetSpent(Exception):
    """Raised by ``Counted`` once the budget is used up."""


class Counted:
    """Single-point objective for mealpy that counts evaluations and keeps the best value
    among the first ``budget``; the evaluation after the budget raises ``BudgetSpent``."""

    def __init__(self, problem: CEC2022, budget: int) -> None:
        self.problem, self.budget = problem, budget
        self.count, self.best = 0, np.inf

    def __call__(self, x: np.ndarray) -> float:
        if self.count >= self.budget:
            raise BudgetSpent
        self.count += 1
        value = float(self.problem(np.asarray(x, dtype=np.float64)))
        self.best = min(self.best, value)
        return value


def mealpy_runs(
    name: str, problem: CEC2022, runs: int, population: int, budget: int
) -> list[float]:
    """Best value within ``budget`` evaluations of mealpy's original method, per run."""
    import importlib

    from mealpy import FloatVar

    module, cls = PEERS[name]
    Model = getattr(importlib.import_module(f"mealpy.swarm_based.{module}"), cls)
    values = []
    for run in range(runs):
        objective = Counted(problem, budget)
        spec = {
            "obj_func": objective,
            "bounds": FloatVar(lb=problem.lower.tolist(), ub=problem.upper.tolist()),
            "minmax": "min",
            "log_to": None,
        }
        # More epochs than the budget allows: the counter ends the run at the budget.
        model = Model(epoch=budget // population + 10, pop_size=population)
        try:
            model.solve(spec, seed=run)
        except BudgetSpent:
            pass
        if objective.count != budget:
            raise RuntimeError(f"mealpy {cls} used {objective.count} != {budget} evaluations")
        values.append(objective.best)
    return values


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--functions", type=int, nargs="+", default=[1, 4, 6, 9])
    parser.add_argument("--dim", type=int, default=10)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--population", type=int, default=50)
    parser.add_argument("--iterations", type=int, default=200)
    parser.add_argument("--out", default=None, help="CSV of the comparison rows")
    args = parser.parse_args()
    budget = args.population * args.iterations
    rows = []
    for function in args.functions:
        problem = CEC2022(function, args.dim)
        for name in PEERS:
            seeds = [seed_sequence("cec2022-peers", name, function, r) for r in range(args.runs)]
            start = time.perf_counter()
            ours = METHODS[name](
                problem,
                problem.lower,
                problem.upper,
                population=args.population,
                iterations=args.iterations,
                seeds=seeds,
            )
            t_ours = time.perf_counter() - start
            assert np.all(ours.n_evals == budget)
            start = time.perf_counter()
            theirs = np.array(mealpy_runs(name, problem, args.runs, args.population, budget))
            t_theirs = time.perf_counter() - start
            c = compare(ours.best_f, theirs, name_a=f"paramid {name}", name_b="mealpy", n_boot=0)
            rows.append(
                {
                    "function": function,
                    "dim": args.dim,
                    "method": PEERS[name][0],
                    "budget": budget,
                    "runs": args.runs,
                    "median_ours": c.median_a,
                    "median_mealpy": c.median_b,
                    "mwu_p": c.rank_p,
                    "cliffs_delta": c.cliffs_delta,
                    "time_ours_s": t_ours,
                    "time_mealpy_s": t_theirs,
                }
            )
            print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    table["holm_p"] = holm(table["mwu_p"].to_numpy(np.float64))
    table["indistinguishable"] = table["holm_p"] >= 0.05
    if args.out:
        table.to_csv(args.out, index=False)
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
