"""Cross-check paramid's WOA and HHO against mealpy's OriginalWOA / OriginalHHO on CEC 2022.

For each function (D = 10 by default) both implementations get the same evaluation budget
per run: ours through ``paramid.optim.registry.METHODS`` (population x iterations, exact by
construction), mealpy's counted at the objective, which stops the run (an exception caught
here) as soon as the budget is spent; the run's result is the best value among its first
``budget`` evaluations.  The final values of the runs are compared with a two-sided
Mann-Whitney U test (``paramid.stats.compare``), Holm-adjusted over all (function, method)
rows: "indistinguishable" means Holm p >= 0.05.

As a second peer, ``loop_woa`` / ``loop_hho`` below are plain per-individual loops written
from the papers' pseudo-code (Mirjalili & Lewis 2016, Algorithm 1; Heidari et al. 2019,
Algorithm 1) with the readings of docs/choices.md: they share no code with
``paramid.optim`` (no batching, no vectorisation, numpy's default generator), so agreement
checks the vectorised implementation of the same algorithm.  mealpy's "Original" classes
are different variants: both keep the better of the old and the new position of every
individual after each iteration (greedy selection, absent from both papers); OriginalWOA
draws X_rand as a fresh uniform point instead of a whale, uses the same r for A and C and
l ~ U(-1, 1); OriginalHHO uses the scalar mean of all coordinates as X_m, S ~ U(lb, ub)
instead of U(0, 1) in the dives, and re-evaluates unchanged hawks.  Differences from
mealpy are therefore expected where elitism matters (hybrid and composition functions).

mealpy is not a paramid dependency and pins an old numpy; see perf/README.md for the
separate venv (``/tmp/mealpy-venv``: ``pip install --no-deps mealpy`` + numpy, scipy,
pandas, matplotlib, and ``pip install --no-deps -e .`` for paramid itself).

    /tmp/mealpy-venv/bin/python perf/cec2022_peers.py [--functions 1 4 6 9]
        [--dim 10] [--runs 15] [--population 50] [--iterations 200] [--no-mealpy]

Measured (mealpy 3.0.3, numpy 2.4; ``--functions 1 2 4 6 9 11 --runs 20``, D = 10,
population 50, 10 000 evaluations per run; median final f, Holm over the 12 rows per peer):

    F   method  ours    loop    mealpy  | ours vs loop   | ours vs mealpy
    1   WOA     19330   20330   18900   | indist. (p=1)  | indist. (p=1)
    1   HHO     10590   10470    9952   | indist. (p=1)  | indist. (p=1)
    2   WOA       550     512     445   | indist. (p=1)  | differ (p=4e-5)
    2   HHO       696     768     509   | indist. (p=1)  | differ (p=1e-3)
    4   WOA       851     846     844   | indist. (p=1)  | indist. (p=0.40)
    4   HHO       845     844     828   | indist. (p=1)  | differ (p=1e-4)
    6   WOA     59440    9176    3301   | indist. (p=1)  | differ (p=3e-5)
    6   HHO    183100   35140    2935   | indist. (p=1)  | differ (p=1e-6)
    9   WOA      2682    2694    2549   | indist. (p=1)  | differ (p=5e-6)
    9   HHO      2708    2692    2635   | indist. (p=1)  | differ (p=0.012)
    11  WOA      2839    2837    2762   | indist. (p=1)  | indist. (p=0.08)
    11  HHO      3029    2966    2770   | indist. (p=1)  | differ (p=1e-5)

Ours and the independent loops of the same algorithm are indistinguishable on every
function; mealpy's greedy variants are better on the hybrid and composition functions and
indistinguishable where elitism matters little (F1, and F4/F11 for WOA).  Time per 20 runs:
ours 0.1-0.6 s (batched), loops 7-78 s, mealpy 12-94 s.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd
import yaml

from paramid.cec2022.suite import CEC2022
from paramid.config import validate
from paramid.optim.registry import METHODS
from paramid.seeding import seed_sequence
from paramid.stats import compare, holm

PEERS = {"woa": ("WOA", "OriginalWOA"), "hho": ("HHO", "OriginalHHO")}
ROOT = Path(__file__).resolve().parents[1]


def settings_block() -> dict:
    """``cec2022.settings`` of config.yaml with the schema's defaults filled."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return config["cec2022"]["settings"]


class BudgetSpent(Exception):
    """Raised by ``Counted`` once the budget is used up."""


class Counted:
    """Single-point objective for mealpy that counts evaluations and keeps the best value
    among the first ``budget``; the evaluation after the budget raises ``BudgetSpent``."""

    def __init__(self, problem: CEC2022, budget: int) -> None:
        self.problem, self.budget = problem, budget
        self.count, self.best = 0, np.inf
        self.best_x: np.ndarray | None = None

    def __call__(self, x: np.ndarray) -> float:
        if self.count >= self.budget:
            raise BudgetSpent
        self.count += 1
        value = float(self.problem(np.asarray(x, dtype=np.float64)))
        if value < self.best:
            self.best, self.best_x = value, np.array(x, dtype=np.float64)
        return value


def loop_woa(objective: Counted, lower: np.ndarray, upper: np.ndarray, n: int, seed: int) -> None:
    """WOA as a per-whale loop (Mirjalili & Lewis 2016, Algorithm 1), until the budget ends."""
    rng = np.random.default_rng(seed)
    dim = lower.size
    X = lower + rng.random((n, dim)) * (upper - lower)
    f = np.array([objective(x) for x in X])
    best, best_f = X[np.argmin(f)].copy(), f.min()
    while True:
        t = objective.count / objective.budget
        a, a2 = 2.0 * (1.0 - t), -1.0 - t
        new = np.empty_like(X)
        for i in range(n):
            r1, r2 = rng.random(), rng.random()
            A, C = 2 * a * r1 - a, 2 * r2
            p, ell = rng.random(), (a2 - 1) * rng.random() + 1
            if p < 0.5:
                target = best if abs(A) < 1 else X[rng.integers(n)]
                new[i] = target - A * np.abs(C * target - X[i])
            else:
                new[i] = np.abs(best - X[i]) * np.exp(ell) * np.cos(2 * np.pi * ell) + best
        X = np.clip(new, lower, upper)
        for i in range(n):
            value = objective(X[i])
            if value < best_f:
                best, best_f = X[i].copy(), value


def loop_hho(objective: Counted, lower: np.ndarray, upper: np.ndarray, n: int, seed: int) -> None:
    """HHO as a per-hawk loop (Heidari et al. 2019, Algorithm 1), until the budget ends."""
    from paramid.optim.po import mantegna_sigma

    rng = np.random.default_rng(seed)
    dim = lower.size
    X = lower + rng.random((n, dim)) * (upper - lower)
    f = np.array([objective(x) for x in X])
    sigma = mantegna_sigma(1.5)
    while True:
        best = objective.best_x  # the rabbit: best point evaluated so far
        t = objective.count / objective.budget
        mean = X.mean(axis=0)
        new, f_new = X.copy(), f.copy()
        for i in range(n):
            E = 2 * (2 * rng.random() - 1) * (1 - t)
            if abs(E) >= 1:
                if rng.random() >= 0.5:
                    other = X[rng.integers(n)]
                    y = other - rng.random() * np.abs(other - 2 * rng.random() * X[i])
                else:
                    y = (best - mean) - rng.random() * (lower + rng.random() * (upper - lower))
                new[i] = np.clip(y, lower, upper)
                f_new[i] = objective(new[i])
                continue
            r, J = rng.random(), 2 * (1 - rng.random())
            if r >= 0.5:
                if abs(E) >= 0.5:
                    y = (best - X[i]) - E * np.abs(J * best - X[i])
                else:
                    y = best - E * np.abs(best - X[i])
                new[i] = np.clip(y, lower, upper)
                f_new[i] = objective(new[i])
                continue
            base = X[i] if abs(E) >= 0.5 else mean
            y = best - E * np.abs(J * best - base)
            yc = np.clip(y, lower, upper)
            fy = objective(yc)
            if fy < f[i]:
                new[i], f_new[i] = yc, fy
                continue
            step = rng.standard_normal(dim) * sigma / np.abs(rng.standard_normal(dim)) ** (1 / 1.5)
            zc = np.clip(y + rng.random(dim) * 0.01 * step, lower, upper)
            fz = objective(zc)
            if fz < f[i]:
                new[i], f_new[i] = zc, fz
        X, f = new, f_new


def loop_runs(name: str, problem: CEC2022, runs: int, population: int, budget: int) -> list[float]:
    """Best value within ``budget`` evaluations of the per-individual loop version, per run."""
    loop = {"woa": loop_woa, "hho": loop_hho}[name]
    values = []
    for run in range(runs):
        objective = Counted(problem, budget)
        try:
            loop(objective, problem.lower, problem.upper, population, seed=run)
        except BudgetSpent:
            pass
        values.append(objective.best)
    return values


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
    parser.add_argument("--no-mealpy", action="store_true", help="compare with the loops only")
    parser.add_argument("--out", default=None, help="CSV of the comparison rows")
    args = parser.parse_args()
    budget = args.population * args.iterations
    peers = {"loop": loop_runs}
    if not args.no_mealpy:
        try:
            import mealpy  # noqa: F401
        except ImportError:
            print("mealpy not installed here: comparing with the loop versions only")
        else:
            peers["mealpy"] = mealpy_runs
    settings = settings_block()
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
                **settings.get(name, {}),  # cec2022.settings: the schema's (WOA's spiral_b)
            )
            t_ours = time.perf_counter() - start
            assert np.all(ours.n_evals == budget)
            for peer, runner in peers.items():
                start = time.perf_counter()
                theirs = np.array(runner(name, problem, args.runs, args.population, budget))
                t_theirs = time.perf_counter() - start
                c = compare(ours.best_f, theirs, name_a=f"paramid {name}", name_b=peer, n_boot=0)
                rows.append(
                    {
                        "function": function,
                        "dim": args.dim,
                        "method": PEERS[name][0],
                        "peer": peer,
                        "budget": budget,
                        "runs": args.runs,
                        "median_ours": c.median_a,
                        "median_peer": c.median_b,
                        "mwu_p": c.rank_p,
                        "cliffs_delta": c.cliffs_delta,
                        "time_ours_s": t_ours,
                        "time_peer_s": t_theirs,
                    }
                )
                print(rows[-1], flush=True)
    table = pd.DataFrame(rows)
    table["holm_p"] = np.nan
    for peer in peers:  # one Holm family per peer
        mask = table["peer"] == peer
        table.loc[mask, "holm_p"] = holm(table.loc[mask, "mwu_p"].to_numpy(np.float64))
    table["indistinguishable"] = table["holm_p"] >= 0.05
    if args.out:
        table.to_csv(args.out, index=False)
    with pd.option_context("display.width", 160, "display.float_format", "{:.4g}".format):
        print(table.to_string(index=False))


if __name__ == "__main__":
    main()
