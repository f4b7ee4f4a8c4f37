"""Population and least-squares fitters of the nonlinear-friction study (hip paper §5.1, §5.3).

Both minimise the torque RMSE of Eq 13 of a :class:`paramid.friction.laws.HipModel` over a box:

population methods
    PSO, RLS-PSO, RLS-GA, RLS-GWO and RLS-AGWO (Table 2 settings, via :mod:`paramid.population`)
    through the optimiser interface :mod:`paramid.optim` with the *direct* objective path
    (:func:`paramid.friction.data.objective`): every candidate's K residuals are formed from the
    model, because no Gram matrix exists for a nonlinear model.  All seeds run in one batched
    call.
``least_squares``
    the deterministic baseline: ``scipy.optimize.least_squares`` (trust-region reflective,
    analytic Jacobian, the same box), multi-started from points drawn uniformly in the box
    from a named per-run stream; the best start is the run's answer.

Variable projection, the third way, lives in :mod:`paramid.friction.varpro`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult, least_squares

from paramid import population
from paramid.friction.data import objective
from paramid.friction.runs import Cell, Recorder, RunSet, Trace
from paramid.optim.base import OptimResult

Array = NDArray[np.float64]


def fit_population(
    method: str,
    cell: Cell,
    lower: Array,
    upper: Array,
    *,
    seeds: Sequence[np.random.SeedSequence],
    population_size: int,
    iterations: int,
    settings: Mapping,
    timing_repeats: int = 1,
) -> RunSet:
    """All seeds of one population method in one batched call on the direct objective.

    The time per run is the batched wall time / runs (median over ``timing_repeats`` calls,
    as in the hip study); a run's trace assigns it evenly over its evaluations.
    """
    optimiser = population.POPULATION_METHODS[method].run
    fn = objective(cell.hip, cell.cal)

    def call() -> OptimResult:
        return optimiser(
            fn,
            lower,
            upper,
            population=population_size,
            iterations=iterations,
            seeds=list(seeds),
            **settings,
        )

    times = []
    result = None
    for _ in range(max(1, timing_repeats)):
        start = time.perf_counter()
        result = call()
        times.append(1e3 * (time.perf_counter() - start) / len(seeds))
    per_run = float(np.median(times))
    n_evals = np.asarray(result.n_evals, dtype=np.int64)
    history = np.asarray(result.history)
    steps = population_size * np.arange(1, history.shape[1] + 1)
    traces = [
        Trace.from_values(steps, per_run * steps / n_evals[r], history[r])
        for r in range(history.shape[0])
    ]
    x = np.array(result.best_x)
    return cell.run_set(method, x, n_evals, np.full(len(seeds), per_run), traces, seeded=True)


def strict_box(lower: Array, upper: Array) -> tuple[Array, Array]:
    """least_squares needs lower < upper: open collapsed bounds by a relative 1e-12."""
    lo, hi = np.array(lower, float), np.array(upper, float)
    same = lo >= hi
    pad = 1e-12 * np.maximum(1.0, np.abs(lo[same]))
    lo[same] -= pad
    hi[same] += pad
    return lo, hi


def trust_region(
    fun: Callable[[Array], Array],
    x0: Array,
    jac: Callable[[Array], Array] | str,
    lower: Array,
    upper: Array,
    *,
    tol: float,
    max_nfev: int,
) -> OptimizeResult:
    """Bounded trust-region reflective least squares, ``x_scale="jac"``, ftol = xtol = gtol."""
    return least_squares(
        fun,
        x0,
        jac=jac,
        bounds=(lower, upper),
        method="trf",
        x_scale="jac",
        ftol=tol,
        xtol=tol,
        gtol=tol,
        max_nfev=max_nfev,
    )


def fit_least_squares(
    cell: Cell,
    lower: Array,
    upper: Array,
    *,
    seeds: Sequence[np.random.SeedSequence],
    starts: int = 4,
    max_nfev: int = 200,
    tol: float = 1e-10,
) -> RunSet:
    """Seeded multi-start TRF (``scipy.optimize.least_squares``) on r = T_m − tau(theta).

    Run r draws ``starts`` points uniformly in [lower, upper] from ``seeds[r]`` and solves
    from each with the analytic Jacobian −∂tau/∂theta (:meth:`HipModel.jacobian`) and
    ``x_scale="jac"``; the lowest cost wins.  Evaluations count residual passes, a Jacobian
    counting ``dim`` (the price of a forward-difference Jacobian).
    """
    hip, cal = cell.hip, cell.cal
    lo, hi = strict_box(lower, upper)
    xs, n_evals, times, traces = [], [], [], []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        x0s = lo + rng.random((starts, hip.dim)) * (hi - lo)
        rec = Recorder()

        def fun(theta: Array, rec: Recorder = rec) -> Array:
            r = cal.y - hip.torque(cal.H_rb, cal.qd, theta)
            rec.value(r)
            return r

        def jac(theta: Array, rec: Recorder = rec) -> Array:
            rec.cost(hip.dim)
            return -hip.jacobian(cal.H_rb, cal.qd, theta)

        best = None
        for x0 in x0s:
            sol = trust_region(fun, x0, jac, lo, hi, tol=tol, max_nfev=max_nfev)
            if best is None or sol.cost < best.cost:
                best = sol
        times.append(rec.elapsed_ms())
        xs.append(np.clip(best.x, lower, upper))
        n_evals.append(rec.evals)
        traces.append(rec.trace())
    return cell.run_set("least_squares", np.array(xs), n_evals, times, traces, seeded=True)
