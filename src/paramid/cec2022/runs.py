"""One job of the CEC 2022 comparison: all runs of every function for one (dimension, algorithm).

Kept apart from ``paramid.cec2022.study`` (tables, tests, audit) so that the
workflow's run jobs depend only on this module, the optimisers and the benchmark functions.
Seeds: run r of (algorithm, F, D) uses the stream ("cec2022", seed, algorithm, F, D, r).
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from paramid.cec2022.suite import CEC2022
from paramid.optim.base import OptimResult
from paramid.optim.registry import METHODS
from paramid.seeding import seed_sequence

if TYPE_CHECKING:
    import pandas as pd

LOG = logging.getLogger(__name__)

#: Display name -> paramid.optim.registry.METHODS key, in the paper's column order (+ the
#: original PO).
ALGORITHMS: dict[str, str] = {
    "WOA": "woa",
    "HHO": "hho",
    "GGO": "ggo",
    "SGA": "sga",
    "HO": "ho",
    "MIPO": "mipo",
    "PO": "po",
}
#: Units of a job's run table (``time_s``: the batched wall time of the function / runs) and
#: history table; one file of each per (dimension, algorithm), a ``function`` column first.
RUN_UNITS = {
    "function": "1",
    "run": "1",
    "best_f": "1",
    "error": "1",
    "n_evals": "1",
    "time_s": "s",
}
HISTORY_UNITS = {"function": "1", "run": "1", "evaluations": "1", "best_f": "1"}
#: The benchmark's settings a job runs with, keywords of :func:`run_configured` (the workflow's
#: ``params.cfg`` of a run job holds them, the functions and the job's ``optimiser_settings``:
#: :func:`optimiser_settings`).
RUN_SETTINGS = ("population", "iterations", "runs", "budget", "seed")
#: Official CEC 2022 budgets (TR §3: 200 000 evaluations for D = 10, 1 000 000 for D = 20).
CEC_BUDGET: dict[int, int] = {10: 200_000, 20: 1_000_000}


def iterations_for(dim: int, population: int, iterations: int, budget: str) -> int:
    """Iterations of a job: ``iterations`` for the paper's protocol ("paper"), or the
    official CEC budget / population ("cec")."""
    if budget == "paper":
        return int(iterations)
    if budget == "cec":
        return CEC_BUDGET[int(dim)] // int(population)
    raise ValueError(f"budget must be 'paper' or 'cec', got {budget!r}")


def optimiser_settings(settings: Mapping[str, Any], algorithm: str) -> dict[str, Any]:
    """The settings of ``algorithm`` (a display name) in the ``cec2022.settings`` block
    (registry name -> that optimiser's keywords); empty for one without a block."""
    return dict(settings.get(ALGORITHMS[algorithm], {}))


def job_seeds(seed: int, algorithm: str, function: int, dim: int, runs: int) -> list:
    """One SeedSequence per run: stream ("cec2022", seed, algorithm, F, D, run)."""
    return [seed_sequence("cec2022", seed, algorithm, function, dim, r) for r in range(runs)]


def run_job(
    function: int,
    dim: int,
    algorithm: str,
    *,
    runs: int,
    population: int,
    iterations: int,
    optimiser_settings: Mapping[str, Any],
    seed: int = 0,
) -> tuple[pd.DataFrame, pd.DataFrame, float]:
    """All runs of one (F, D, algorithm) in one batched call, the optimiser given
    ``optimiser_settings`` as keywords (the ``cec2022.settings`` block of its registry name;
    empty for an optimiser without settings).

    Returns the run table (run, best_f, error, n_evals), the history table (run,
    evaluations, best_f: best-so-far after each multiple of ``population`` evaluations)
    and the wall time of the batched call in seconds.
    """
    import pandas as pd  # here: the workflow's start imports this module for ALGORITHMS

    if algorithm not in ALGORITHMS:
        raise ValueError(f"unknown algorithm {algorithm!r}; known: {sorted(ALGORITHMS)}")
    problem = CEC2022(function, dim)
    method = METHODS[ALGORITHMS[algorithm]]
    seeds = job_seeds(seed, algorithm, function, dim, runs)
    LOG.info(
        "F%d D%d %s: %d runs x %d iterations x population %d, batched: started",
        function,
        dim,
        algorithm,
        runs,
        iterations,
        population,
    )
    start = time.perf_counter()
    res: OptimResult = method(
        problem,
        problem.lower,
        problem.upper,
        population=population,
        iterations=iterations,
        seeds=seeds,
        **optimiser_settings,
    )
    wall = time.perf_counter() - start
    frame = pd.DataFrame(
        {
            "run": np.arange(runs, dtype=np.int64),
            "best_f": res.best_f,
            "error": res.best_f - problem.optimum_value,
            "n_evals": res.n_evals.astype(np.int64),
        }
    )
    evaluations = population * np.arange(1, res.history.shape[1] + 1, dtype=np.int64)
    history = pd.DataFrame(
        {
            "run": np.repeat(np.arange(runs, dtype=np.int64), evaluations.size),
            "evaluations": np.tile(evaluations, runs),
            "best_f": res.history.reshape(-1),
        }
    )
    return frame, history, wall


@dataclass(frozen=True)
class JobResult:
    """A job's run table (with ``time_s``), its history table, the wall time of the batched
    call [s] and the iterations it ran."""

    runs: pd.DataFrame
    history: pd.DataFrame
    wall_s: float
    iterations: int


def run_configured(
    function: int,
    dim: int,
    algorithm: str,
    *,
    runs: int,
    population: int,
    iterations: int,
    budget: str,
    seed: int,
    optimiser_settings: Mapping[str, Any],
) -> JobResult:
    """:func:`run_job` with the benchmark's settings (``runs``, ``population``, ``seed``, and
    ``iterations`` or the CEC ``budget``: :func:`iterations_for`) and the optimiser's own
    (``optimiser_settings``); every run's ``time_s`` is the batched wall time / runs."""
    iterations = iterations_for(dim, population, iterations, budget)
    table, history, wall = run_job(
        function,
        dim,
        algorithm,
        runs=runs,
        population=population,
        iterations=iterations,
        optimiser_settings=optimiser_settings,
        seed=seed,
    )
    table["time_s"] = wall / runs
    return JobResult(runs=table, history=history, wall_s=wall, iterations=iterations)


def run_functions(
    functions: Sequence[int], dim: int, algorithm: str, **settings: Any
) -> dict[int, JobResult]:
    """One job: :func:`run_configured` of each of ``functions`` in the order given, with the
    benchmark's and the optimiser's settings (``settings``: its keywords)."""
    return {
        function: run_configured(function, dim, algorithm, **settings) for function in functions
    }


def job_tables(results: Mapping[int, JobResult]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The run table and the history table of one job (function number -> its result), each
    function's rows stacked in the order given, with a ``function`` column first."""
    import pandas as pd

    def stacked(frames: dict[int, pd.DataFrame]) -> pd.DataFrame:
        parts = [frame.assign(function=np.int64(f)) for f, frame in frames.items()]
        table = pd.concat(parts, ignore_index=True)
        return table[["function", *table.columns.drop("function")]]

    return (
        stacked({f: r.runs for f, r in results.items()}),
        stacked({f: r.history for f, r in results.items()}),
    )


def split_jobs(tables: Mapping[str, pd.DataFrame]) -> dict[tuple[int, int, str], pd.DataFrame]:
    """The tables of run jobs, by their file (``.../d<dim>/<algorithm>.parquet``, the layout of
    :meth:`paramid.cec2022.workflow.Cec2022Benchmark.job_output`), as one frame per (dimension,
    function, algorithm) (:func:`by_function`)."""
    out = {}
    for path, table in tables.items():
        found = re.search(r"d(\d+)/(\w+)\.parquet$", str(path))
        if found is None:
            raise ValueError(
                f"{path}: not a CEC 2022 run job's file (.../d<dim>/<algorithm>.parquet)"
            )
        dim, algorithm = int(found.group(1)), found.group(2)
        for function, frame in by_function(table).items():
            out[(dim, function, algorithm)] = frame
    return out


def by_function(table: pd.DataFrame) -> dict[int, pd.DataFrame]:
    """Split a table of :func:`job_tables` back into one frame per function (without the
    ``function`` column, index from 0), in the order of the file."""
    return {
        int(function): part.drop(columns="function").reset_index(drop=True)
        for function, part in table.groupby("function", sort=False)
    }


def by_cell(tables: Mapping[str, pd.DataFrame]) -> dict[tuple[int, str], pd.DataFrame]:
    """:func:`split_jobs` of one dimension's job files, by (function, algorithm); files of
    two dimensions are an error (their cells would collide)."""
    jobs = split_jobs(tables)
    dims = sorted({dim for dim, _, _ in jobs})
    if len(dims) > 1:
        raise ValueError(f"job files of one dimension expected, got dimensions {dims}")
    return {(function, algorithm): frame for (_, function, algorithm), frame in jobs.items()}


def time_per_run(cells: Mapping[tuple[int, str], pd.DataFrame]) -> dict[tuple[int, str], float]:
    """Each cell's time per run [s] (its job's batched wall time / runs, in every row)."""
    return {key: float(frame["time_s"].iloc[0]) for key, frame in cells.items()}
