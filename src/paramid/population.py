"""Population fits on a least-squares objective: the hip paper's methods (§4.1–§4.3, Table 2)
on the shared optimiser API, used by every study.

Each method key names an optimiser and its box: standard PSO searches a fixed configured box,
the RLS methods search the RLS box [L, U] of §3.1.  All runs of a method go through one
vectorised call of :mod:`paramid.optim`; run r draws from the stream (study, method, r).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.optim.base import OptimResult
from paramid.optim.genetic import ga
from paramid.optim.grey_wolf import agwo, gwo
from paramid.optim.objectives import LinearRMSE
from paramid.optim.particle_swarm import pso
from paramid.seeding import seed_sequence

Array = NDArray[np.float64]


@dataclass(frozen=True)
class MethodSpec:
    """Which optimiser a method key runs and in which box.  The optimiser is the function
    itself (one of :data:`paramid.optim.registry.METHODS`, under its own name), so the jobs of
    these methods import, and rerun with, these four optimisers' code alone."""

    run: Callable[..., OptimResult]  # the optimiser
    box: str  # "rls" (the RLS box of §3.1) or "standard" (the configured fixed box)
    label: str  # the name in tables and figures (Table 3)

    @property
    def optimiser(self) -> str:
        """The optimiser's name: its key in ``METHODS`` and its settings block in a study."""
        return self.run.__name__


POPULATION_METHODS: dict[str, MethodSpec] = {
    "pso": MethodSpec(pso, "standard", "PSO"),
    "rls_pso": MethodSpec(pso, "rls", "RLS-PSO"),
    "rls_ga": MethodSpec(ga, "rls", "RLS-GA"),
    "rls_gwo": MethodSpec(gwo, "rls", "RLS-GWO"),
    "rls_agwo": MethodSpec(agwo, "rls", "RLS-AGWO"),
}


def optimiser_settings(method: str, block: Mapping, gamma: float) -> dict:
    """Keyword settings of the method's optimiser (Table 2) from its settings ``block``: the
    study's block of :attr:`MethodSpec.optimiser` (``pso``, ``ga`` or ``agwo``; GWO has none,
    and is given nothing), with AGWO's friction index ``gamma`` (Eq 10)."""
    spec = POPULATION_METHODS[method]
    if spec.optimiser == "pso":
        return {
            "inertia": (block["inertia_start"], block["inertia_end"]),
            "c1": block["c1"],
            "c2": block["c2"],
            "velocity_clamp": block["velocity_clamp"],
        }
    if spec.optimiser == "ga":
        return dict(block)
    if spec.optimiser == "agwo":
        return {"gamma": gamma, **block}
    return {}


def search_box(
    method: str,
    dim: int,
    rls_lower: ArrayLike | None,
    rls_upper: ArrayLike | None,
    standard: Mapping[str, float],
) -> tuple[Array, Array]:
    """The box a method searches: the RLS box, or the standard box on every parameter."""
    if POPULATION_METHODS[method].box == "rls":
        if rls_lower is None or rls_upper is None:
            raise ValueError(f"{method} searches the RLS box: give its bounds")
        return np.asarray(rls_lower, float), np.asarray(rls_upper, float)
    return np.full(dim, float(standard["lower"])), np.full(dim, float(standard["upper"]))


#: a run's parameter within this fraction of the box's width from a bound sits on that edge
EDGE_FRACTION = 1e-6
#: from this share of runs on one edge, the box and not the data decides that parameter
EDGE_SHARE = 0.5


def box_edges(
    method: str,
    names: Sequence[str],
    x: Array,
    lower: Array,
    upper: Array,
    mechanical: Mapping[str, Mapping[str, float]] | None = None,
    optimum: Array | None = None,
) -> str | None:
    """Why ``method``'s runs ``x`` (runs, dim) sit on the search box [lower, upper]: the
    parameters on which at least :data:`EDGE_SHARE` of the runs sit on one edge, or None.  An
    edge at a ``mechanical`` limit (``rls.mechanical``: fv >= 0, say) is physics holding, not
    the box: left out.  Given the box's ``optimum`` (the least-squares fit in the same box,
    Eq 21's objective), an edge where that optimum lies inside is the optimiser stopping short,
    not the box deciding: named apart, with no advice to widen the box.  A box of zero width
    (the RLS range outside the mechanical limits) is named apart: no margin widens it."""
    width = np.asarray(upper, float) - np.asarray(lower, float)
    tolerance = EDGE_FRACTION * width
    on_lower = np.mean(x <= lower + tolerance, axis=0)
    on_upper = np.mean(x >= upper - tolerance, axis=0)
    best = None if optimum is None else np.asarray(optimum, float)
    limits = mechanical or {}
    decided: list[str] = []
    short: list[str] = []
    for i, (name, w) in enumerate(zip(names, width, strict=True)):
        for side, bound, share in (
            ("lower", lower[i], on_lower[i]),
            ("upper", upper[i], on_upper[i]),
        ):
            if w == 0 or share < EDGE_SHARE or bound in limits.get(name, {}).values():
                continue
            text = f"{name} at its {side} bound {bound:.6g} in {100 * share:.0f} % of the runs"
            if best is not None and lower[i] + tolerance[i] < best[i] < upper[i] - tolerance[i]:
                short.append(f"{text} (the box's least-squares optimum: {best[i]:.6g})")
            else:
                decided.append(text)
    collapsed = [
        f"{name} = {lo:.4g}" for name, lo, w in zip(names, lower, width, strict=True) if w == 0
    ]
    parts = []
    if decided:
        parts.append(
            f"{'; '.join(decided)}: the search box, not the data, decides "
            f"{'this parameter' if len(decided) == 1 else 'these parameters'}. Widen the box "
            "(population.standard_box; rls.margin and rls.forgetting for the RLS box, whose "
            "memory note is in hip_rls's log) or check the record's units"
        )
    if short:
        parts.append(
            f"{'; '.join(short)}: the runs stop on the edge short of an optimum inside the box, "
            "so the optimiser, not the box or the data, decides these runs' gap to BCLS"
        )
    if collapsed:
        parts.append(
            f"{', '.join(collapsed)} fixed by a box of zero width (the RLS range lies outside "
            "the mechanical limits: hip_rls's notes)"
        )
    return f"{method}: {'; '.join(parts)}" if parts else None


@dataclass(frozen=True)
class PopulationFit:
    """All runs of one method: estimates, RMSEs (Eq 21), histories and amortised timings."""

    x: Array  # (runs, dim)
    train_rmse: Array  # (runs,)
    val_rmse: Array  # (runs,)
    history: Array  # (runs, iterations) best-so-far training RMSE
    n_evals: NDArray[np.int64]  # (runs,)
    time_ms_per_run: Array  # (timing_repeats,) batched wall time / runs, one per repeat


def batch_rmse(H: Array, y: Array, X: Array) -> Array:
    """Torque RMSE (Eq 21) of each row of X (runs, dim) on one record."""
    residual = y[:, None] - H @ X.T
    return np.sqrt(np.mean(residual * residual, axis=0))


def fit_population(
    method: str,
    H: Array,
    y: Array,
    H_val: Array,
    y_val: Array,
    lower: Array,
    upper: Array,
    *,
    study: str,
    runs: int,
    population: int,
    iterations: int,
    settings: Mapping,
    timing_repeats: int,
) -> PopulationFit:
    """Run ``runs`` seeded runs of ``method`` in one batched call and score them.

    The fitness is the training RMSE of Eq 13 through the Gram matrix (same objective, O(d²)
    per evaluation).  The batched call is repeated ``timing_repeats`` times for timing only;
    every repeat gives the same numbers, and the first one's are returned.
    """
    optimiser = POPULATION_METHODS[method].run
    objective = LinearRMSE(H, y)
    seeds = [seed_sequence(study, method, run) for run in range(runs)]

    def call() -> OptimResult:
        return optimiser(
            objective,
            lower,
            upper,
            population=population,
            iterations=iterations,
            seeds=seeds,
            **settings,
        )

    result = call()
    times = []
    for _ in range(timing_repeats):
        start = time.perf_counter()
        call()
        times.append(1e3 * (time.perf_counter() - start) / runs)
    x = np.asarray(result.best_x)
    return PopulationFit(
        x=x,
        train_rmse=batch_rmse(H, y, x),
        val_rmse=batch_rmse(H_val, y_val, x),
        history=np.asarray(result.history),
        n_evals=np.asarray(result.n_evals),
        time_ms_per_run=np.asarray(times),
    )
