"""The cells of one twin variant of the nonlinear-friction study (hip paper §4.1-4.3, §5.3).

A cell is one (true friction law, fitted friction law) pair; :func:`fit_truth` runs every
fitting method of :mod:`paramid.friction.methods` on every fitted law of one true law's twin
records and returns per-run rows (estimates, RMSE of Eq 13/21, parameter errors, cost and
reach of 1 % of the cell's best) and the improvement traces.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid import population
from paramid.friction.data import Data, rigid_bounds, search_box
from paramid.friction.fitters import fit_least_squares, fit_population
from paramid.friction.laws import RIGID_PARAMS, HipModel, hip_model, parameter_units
from paramid.friction.methods import METHOD_NAMES
from paramid.friction.runs import Cell, RunSet, param_error, reach
from paramid.friction.varpro import fit_varpro
from paramid.rls import SavedPrior
from paramid.seeding import seed_sequence

Array = NDArray[np.float64]
LOG = logging.getLogger(__name__)

#: Wall-clock columns of the per-run frame (left out of comparisons).
TIMING_COLUMNS = ["time_ms", "time_to_1pct_ms"]
#: Units of the improvement traces of :func:`cell_frames`.
TRACE_UNITS = {
    "true_model": "",
    "fitted_model": "",
    "method": "",
    "run": "1",
    "evals": "1",
    "time_ms": "ms",
    "best_train_rmse": "N m",
}
#: What ``n_evals`` counts for each kind of method.
EVALUATIONS = (
    "population: candidate rows evaluated; least_squares: residual passes + dim per "
    "Jacobian; varpro: projected residuals (grid points + polish)"
)


def run_units() -> dict[str, str]:
    """Units of the per-run frame of :func:`fit_truth`: labels, every friction law's
    parameters (:func:`paramid.friction.laws.parameter_units`), errors, cost and reach."""
    units = {"true_model": "", "fitted_model": "", "method": "", "run": "1", "seed": "1"}
    units |= parameter_units()
    return units | {
        "train_rmse": "N m",
        "val_rmse": "N m",
        "param_error": "1",
        "rigid_error": "1",
        "n_evals": "1",
        "time_ms": "ms",
        "evals_to_1pct": "1",
        "time_to_1pct_ms": "ms",
        "best_train_rmse_cell": "N m",
    }


def fit_cell(
    cell: Cell,
    methods: Sequence[str],
    boxes: Mapping[str, tuple[Array, Array]],
    *,
    seeds: Callable[[str], list[np.random.SeedSequence]],
    population_size: int,
    iterations: int,
    settings: Callable[[str], dict],
    timing_repeats: int,
    least_squares_cfg: Mapping,
    varpro_cfg: Mapping,
) -> dict[str, RunSet]:
    """Every method on one (true model, fitted model) cell; ``seeds(method)`` gives its runs."""
    out: dict[str, RunSet] = {}
    for method in methods:
        LOG.info("fitted %s, method %s: started", cell.hip.friction.name, method)
        lower, upper = boxes[method]
        if method in population.POPULATION_METHODS:
            out[method] = fit_population(
                method,
                cell,
                lower,
                upper,
                seeds=seeds(method),
                population_size=population_size,
                iterations=iterations,
                settings=settings(method),
                timing_repeats=timing_repeats,
            )
        elif method == "least_squares":
            out[method] = fit_least_squares(
                cell, lower, upper, seeds=seeds(method), **least_squares_cfg
            )
        elif method == "varpro":
            out[method] = fit_varpro(cell, lower, upper, **varpro_cfg)
        else:
            raise ValueError(f"unknown nonlinear method {method!r}; known: {METHOD_NAMES}")
    return out


def cell_frames(
    true_model: str,
    hip: HipModel,
    results: Mapping[str, RunSet],
    truth: ArrayLike | None,
    target_fraction: float,
    all_params: Sequence[str],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Per-run rows and improvement traces of one cell.

    The reference is the lowest training RMSE any run of any method reached on the cell;
    ``evals_to_1pct`` / ``time_to_1pct_ms`` are where a run first came within
    ``target_fraction`` of it (inf if never).  ``param_error`` (relative RMS against the
    truth) is filled where the fitted model is the true one; ``rigid_error`` (Mxt, Myt, Jt)
    for every cell.
    """
    best = min(float(np.min(tr.best)) for rs in results.values() for tr in rs.traces)
    target = best * (1.0 + target_fraction) + 1e-12  # + 1e-12 N m: a zero best (noise-free)
    rows, methods, runs, trace_list = [], [], [], []
    for method, rs in results.items():
        for r in range(rs.x.shape[0]):
            evals, t_ms = reach(rs.traces[r], target)
            row = {
                "true_model": true_model,
                "fitted_model": hip.friction.name,
                "method": method,
                "run": r,
                "seed": r if rs.seeded else pd.NA,
                **{p: np.nan for p in all_params},
                **dict(zip(hip.params, rs.x[r], strict=True)),
                "train_rmse": float(rs.train_rmse[r]),
                "val_rmse": float(rs.val_rmse[r]),
                "param_error": float(param_error(rs.x[r], truth)) if truth is not None else np.nan,
                "rigid_error": np.nan,
                "n_evals": int(rs.n_evals[r]),
                "time_ms": float(rs.time_ms[r]),
                "evals_to_1pct": evals,
                "time_to_1pct_ms": t_ms,
                "best_train_rmse_cell": best,
            }
            rows.append(row)
            methods.append(method)
            runs.append(r)
            trace_list.append(rs.traces[r])
    # One frame for all traces (the rows and dtypes of one frame per run, concatenated)
    lengths = [tr.evals.size for tr in trace_list]
    traces = pd.DataFrame(
        {
            "true_model": true_model,
            "fitted_model": hip.friction.name,
            "method": np.repeat(np.array(methods, dtype=object), lengths),
            "run": np.repeat(np.array(runs, dtype=np.int64), lengths),
            "evals": np.concatenate([tr.evals for tr in trace_list]),
            "time_ms": np.concatenate([tr.time_ms for tr in trace_list]),
            "best_train_rmse": np.concatenate([tr.best for tr in trace_list]),
        }
    )
    return pd.DataFrame(rows), traces


def add_rigid_error(frame: pd.DataFrame, rigid_truth: ArrayLike) -> pd.DataFrame:
    """Fill ``rigid_error``: relative RMS error of (Mxt, Myt, Jt) against the twin's truth."""
    out = frame.copy()
    out["rigid_error"] = param_error(out[list(RIGID_PARAMS)].to_numpy(float), rigid_truth)
    return out


def fit_truth(
    true_model: str,
    truth: ArrayLike,
    cal: Data,
    val: Data,
    prior: SavedPrior,
    *,
    study: str,
    fitted: Sequence[str],
    methods: Sequence[str],
    gravity: float,
    friction_bounds: Mapping[str, Sequence[float]] | None,
    base: Mapping,
    timing_repeats: int,
    least_squares_cfg: Mapping,
    varpro_cfg: Mapping,
    target_fraction: float,
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Every (fitted model, method) cell of one twin variant: per-run rows and traces.

    ``base`` is the hip study's config block (``population``, ``pso``, ``ga``, ``agwo``:
    Table 2); run r of a seeded method draws from the stream (study, true model, fitted
    model, method, r).  ``truth`` is the true model's full parameter vector.
    """
    pop = base["population"]
    rigid_lower, rigid_upper = rigid_bounds(prior)
    truth = np.asarray(truth, dtype=np.float64)
    all_params = list(parameter_units())
    frames, traces = [], []
    for k, name in enumerate(fitted, 1):
        LOG.info("true %s, fitted %s (%d/%d): %s", true_model, name, k, len(fitted), methods)
        hip = hip_model(name, gravity)
        boxes = {
            m: search_box(hip, m, rigid_lower, rigid_upper, friction_bounds, pop["standard_box"])
            for m in methods
        }

        def seeds(method: str, name: str = name) -> list[np.random.SeedSequence]:
            return [seed_sequence(study, true_model, name, method, r) for r in range(pop["runs"])]

        results = fit_cell(
            Cell(hip, cal, val),
            methods,
            boxes,
            seeds=seeds,
            population_size=pop["size"],
            iterations=pop["iterations"],
            settings=lambda m: population.optimiser_settings(
                m, base.get(population.POPULATION_METHODS[m].optimiser, {}), prior.gamma
            ),
            timing_repeats=timing_repeats,
            least_squares_cfg=least_squares_cfg,
            varpro_cfg=varpro_cfg,
        )
        frame, trace = cell_frames(
            true_model,
            hip,
            results,
            truth if name == true_model else None,
            target_fraction,
            all_params,
        )
        frames.append(frame)
        traces.append(trace)
    runs = add_rigid_error(pd.concat(frames, ignore_index=True), truth[: len(RIGID_PARAMS)])
    return runs, pd.concat(traces, ignore_index=True)


def cell_medians(runs: pd.DataFrame) -> pd.DataFrame:
    """Per (fitted law, method) cell of :func:`fit_variant`'s runs, in the runs' order: the
    median over seeds of the validation RMSE [N m] (Eq 21), the evaluations and the time
    per run [ms]."""
    rows = [
        {
            "fitted_model": fitted,
            "method": method,
            "val_rmse": cell.val_rmse.median(),
            "n_evals": cell.n_evals.median(),
            "time_ms": cell.time_ms.median(),
        }
        for (fitted, method), cell in runs.groupby(["fitted_model", "method"], sort=False)
    ]
    return pd.DataFrame(rows, columns=["fitted_model", "method", "val_rmse", "n_evals", "time_ms"])


def fit_variant(
    cfg: Mapping[str, Any], cal: Data, val: Data, saved_prior: Mapping[str, Any]
) -> tuple[pd.DataFrame, pd.DataFrame, SavedPrior]:
    """:func:`fit_truth` on one twin variant with the settings of a nonlinear study's block
    (``truth``, ``study``, ``fitted``, ``methods``, ``gravity``, ``friction_bounds``, ``base``,
    ``timing_repeats``, ``least_squares``, ``varpro``, ``target_fraction``) and its saved prior
    (``rls/<truth>.json``: the Eq 6 prior and the twin's truth by name).  Returns the per-run
    rows (``seed`` nullable: the deterministic methods have none), the traces and the prior."""
    prior = SavedPrior.from_json(saved_prior)
    hip = hip_model(cfg["truth"], cfg["gravity"])
    runs, traces = fit_truth(
        cfg["truth"],
        [saved_prior["truth"][p] for p in hip.params],
        cal,
        val,
        prior,
        study=cfg["study"],
        fitted=cfg["fitted"],
        methods=cfg["methods"],
        gravity=cfg["gravity"],
        friction_bounds=cfg["friction_bounds"],
        base=cfg["base"],
        timing_repeats=cfg["timing_repeats"],
        least_squares_cfg=cfg["least_squares"],
        varpro_cfg=cfg["varpro"],
        target_fraction=cfg["target_fraction"],
    )
    return runs.astype({"seed": "Int64"}), traces, prior
