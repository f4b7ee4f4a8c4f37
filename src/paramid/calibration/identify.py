"""Identifiers of the KR210 calibration study (paper §3.2) and their one registry.

Every identifier estimates the identified subset x of the geometric errors (Eq 6) of a
:class:`~paramid.calibration.problem.Problem` for a list of runs (batched where the method
allows) and returns the same :class:`Fit` (estimates, per-iteration training RMSE, time),
scored with Eq 45.  :data:`IDENTIFIERS` maps each name to its :class:`IdentifierSpec`; the
workflow (``workflow/rules/calibration_common.smk``) reads its names, config blocks and
Table 9 rows from there.

Identifiers (budgets of §3.2.1: 60 iterations, hybrids 30 + 30, MIPO population 100 x 60;
the MIPO tuning runs a reduced budget by default, config ``tuning.budget``)
    ``bc``           before compensation: the nominal table.
    ``ekf``          M1, Eq 16-22, batch form (z_k in R^{3n}), relinearised every iteration,
                     fixed "manual" noise factors applied to the Eq 28 draws (Eq 26).
    ``ekf_gsbise``   M1 + the gradient stabiliser of Eq 24-25.
    ``ekf_mipo``     M1 with (alpha, beta, gamma) of Eq 26-27 tuned by MIPO on Eq 29.
    ``mipo_arkekf``  M5 = Algorithm 2: MIPO-tuned factors + EKF + GSBISE.
    ``ekf_sequential``          M1 in the literal per-point reading of Algorithm 2 (lines 5-6:
                                for k, for i; :func:`~paramid.calibration.filters.sequential_ekf`).
    ``mipo_arkekf_sequential``  M5 in that reading: GSBISE inside the per-point loop, the
                                factors tuned on Eq 29 with the sequential filter.
    ``ipso``         M2, improved PSO on the training RMSE (:mod:`paramid.optim.ipso`).
    ``lasso``        M3, L1-penalised least squares (coordinate descent, lambda by K-fold CV).
    ``ukf``          M4, unscented Kalman filter with the same noise model as M1.
    ``lm_ga``        Levenberg-Marquardt (scipy, 30 iterations) then a GA (30 generations).
    ``ekf_dqpso``    EKF (30 iterations) then DQPSO (30 iterations, :mod:`paramid.optim.dqpso`).

Population methods are looked up by name in :data:`paramid.optim.registry.METHODS`.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import scipy
from numpy.typing import NDArray

from paramid.calibration.filters import (
    READINGS,
    FilterResult,
    LinearSurrogateFitness,
    RunsNoiseFactorFitness,
    ekf,
    ukf,
)
from paramid.calibration.lasso import lasso_fit
from paramid.calibration.model import PointJacobian
from paramid.calibration.problem import FloatArray, Problem, metrics, noise_bases
from paramid.errors import InputError
from paramid.optim.base import OptimResult
from paramid.optim.objectives import LinearRMSE, Objective
from paramid.optim.registry import METHODS
from paramid.seeding import seed_sequence

__all__ = [
    "EKF_VARIANTS",
    "IDENTIFIERS",
    "LABELS",
    "Fit",
    "IdentifierSpec",
    "PositionRMSE",
    "identify",
    "identify_runs",
    "run_timing",
]

Config = Mapping[str, Any]
LOG = logging.getLogger(__name__)


@dataclass(frozen=True)
class Fit:
    """Output of one identifier over its runs.

    ``x`` (runs, r) identified errors (native units); ``history`` (runs, K) training RMSE
    [mm] after each iteration (Eq 45; the objective's best-so-far value for population
    methods, which score the linear error model); ``time_s`` (runs,) wall time per run (a
    batched call's wall time / its runs: the EKF family, IPSO and the hybrids run all runs in
    one call; BC, LASSO and the UKF are timed per run by :func:`identify_runs`); ``n_evals``
    (runs,) model evaluations; ``info`` extra per-run columns (e.g. the factors,
    ``diverged``).
    """

    x: FloatArray
    history: FloatArray
    time_s: FloatArray
    n_evals: NDArray[np.int64]
    info: dict[str, NDArray[Any]] = field(default_factory=dict)


class PositionRMSE:
    """Training RMSE of Eq 45 under a linear model z ≈ y - H x: sqrt(3) x LinearRMSE; H (K, d)
    and y (K,) shared by the runs, or H (runs, K, d) and y (runs, K), each run's own
    (``by_run``, as :class:`~paramid.optim.objectives.LinearRMSE`)."""

    def __init__(self, H: FloatArray, y: FloatArray) -> None:
        self.inner = LinearRMSE(H, y)
        self.by_run = self.inner.by_run

    def __call__(self, X: FloatArray, active: NDArray[np.bool_] | None = None) -> FloatArray:
        return np.sqrt(3.0) * self.inner(X)


def _optimise(
    objective: Objective,
    lower: FloatArray,
    upper: FloatArray,
    stage: Config,
    seeds: Sequence[np.random.SeedSequence],
) -> OptimResult:
    """Run the optimiser ``stage["method"]`` of ``paramid.optim.registry.METHODS`` with the stage's
    population, iterations and settings; an unregistered name is an error, never a stand-in."""
    name = stage["method"]
    if name not in METHODS:
        raise KeyError(
            f"optimiser {name!r} is not registered in paramid.optim.registry.METHODS "
            f"(available: {sorted(METHODS)})"
        )
    return METHODS[name](
        objective,
        lower,
        upper,
        population=stage["population"],
        iterations=stage["iterations"],
        seeds=list(seeds),
        **stage.get("settings", {}),
    )


def _train_rmse_path(problem: Problem, path: FloatArray) -> FloatArray:
    """Training RMSE (runs, K) of each estimate on a path (runs, K, r), nonlinear model."""
    return metrics(problem.distances(path, "train"))["rmse"]


def _box(
    problem: Problem, half: Mapping[str, float], centre: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """Search box centre +- half-widths (``angle_deg`` for angles, ``length_mm`` for
    lengths, ``compliance_rad_per_knm`` for compliances)."""
    widths = {
        "angle": np.deg2rad(half["angle_deg"]),
        "length": float(half["length_mm"]),
        "compliance": float(half["compliance_rad_per_knm"]),
    }
    w = np.array([widths[k] for k in problem.kinds])
    c = np.zeros(problem.dim) if centre is None else centre
    return c - w, c + w


def _manual_factors(cfg: Config, runs: int) -> FloatArray:
    """The fixed ("manual") noise factors (alpha, beta, gamma) of Eq 26 for every run."""
    f = cfg["ekf"]["factors"]
    return np.tile([f["alpha"], f["beta"], f["gamma"]], (runs, 1)).astype(np.float64)


#: The EKF family: identifier -> (reading of Algorithm 2 lines 5-19, GSBISE, MIPO-tuned).
EKF_VARIANTS: dict[str, tuple[str, bool, bool]] = {
    "ekf": ("batch", False, False),
    "ekf_gsbise": ("batch", True, False),
    "ekf_mipo": ("batch", False, True),
    "mipo_arkekf": ("batch", True, True),
    "ekf_sequential": ("sequential", False, False),
    "mipo_arkekf_sequential": ("sequential", True, True),
}


def _tuning_stage(tcfg: Config, reading: str) -> dict[str, Any]:
    """The tuner as a population stage: ``budget: paper`` = population x iterations of
    §3.2.1 for every reading, ``budget: reduced`` = the per-reading budget of ``reduced``."""
    budget = tcfg if tcfg["budget"] == "paper" else tcfg["reduced"][reading]
    return {
        "method": tcfg["method"],
        "population": budget["population"],
        "iterations": budget["iterations"],
        "settings": tcfg.get("settings", {}),
    }


def _tuning_box(tcfg: Config) -> tuple[FloatArray, FloatArray]:
    """The Eq 27 box of w = log10(alpha, beta, gamma)."""
    b = tcfg["bounds"]
    lower = np.log10([b["alpha"][0], b["beta"][0], b["gamma"][0]])
    upper = np.log10([b["alpha"][1], b["beta"][1], b["gamma"][1]])
    return lower, upper


def _surrogate(
    problem: Problem, cfg: Config, identifier: str, bases: tuple[FloatArray, ...]
) -> LinearSurrogateFitness:
    """The linear-model surrogate of Eq 29 (``tuning.fitness: linear_surrogate``)."""
    _, gsbise, _ = EKF_VARIANTS[identifier]
    return LinearSurrogateFitness(
        problem,
        *bases,
        cfg["tuning"]["surrogate_iterations"],
        gsbise=gsbise,
        length_unit_mm=cfg["ekf"]["state_length_unit_mm"],
    )


def _runs_bases(
    problems: Sequence[Problem], study: str, runs: Sequence[int]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The Eq 28 draws of run p on ``problems[p]`` (Algorithm 2 line 3), stacked: C0, S0
    (runs, r) and R0 (runs, 3n)."""
    draws = [noise_bases(p, study, [run]) for p, run in zip(problems, runs, strict=True)]
    C0, S0, R0 = (np.concatenate([d[i] for d in draws]) for i in range(3))
    return C0, S0, R0


def _jacobians(problems: Sequence[Problem], X: FloatArray) -> tuple[FloatArray, FloatArray]:
    """dP/de (Eq 10) H (runs, 3n, r) and the positions h (runs, 3n) of the training points of
    ``problems[p]`` at X[p] (runs, r), for all runs in one evaluation
    (:class:`~paramid.calibration.model.PointJacobian`, bit-identical to ``Problem.jacobian``)."""
    first = problems[0]
    q, tau = (np.stack([getattr(p, a) for p in problems]) for a in ("q_train", "tau_train"))
    jacobian = PointJacobian(first.nominal, first.free, q, tau, members=len(problems), block=True)
    H, h = jacobian(np.asarray(X, dtype=np.float64))
    return H.copy(), h.copy()


def _train_targets(problems: Sequence[Problem]) -> FloatArray:
    """The measured training positions of every run's data set, (runs, 3n)."""
    return np.stack([p.p_train.reshape(-1) for p in problems])


def _tune_runs(
    problems: Sequence[Problem],
    cfg: Config,
    study: str,
    identifier: str,
    runs: Sequence[int],
    bases: tuple[FloatArray, FloatArray, FloatArray],
) -> tuple[FloatArray, FloatArray, NDArray[np.int64], list[FilterResult]]:
    """Tune w = log10(alpha, beta, gamma) (Eq 26-27, Algorithm 2 line 4) of every run, run p on
    ``problems[p]`` with its Eq 28 draws (``bases`` stacked, (runs, ...)), and run its filter.

    The fitness (``tuning.fitness``) is Eq 29 with x̂ the output of the identifier's own filter
    (``filter``: reading, K = ``ekf.iterations``, GSBISE as the identifier) or of the
    linear-model surrogate (``linear_surrogate``, ``surrogate_iterations`` updates); the
    optimiser runs with seed ``(study, identifier, run)`` per run.  With the ``filter``
    fitness all runs are one optimiser call in lockstep (a run's numbers do not depend on the
    others, ``paramid.optim``) and each round's filters one batch
    (:class:`~paramid.calibration.filters.RunsNoiseFactorFitness`).  The surrogate runs run by
    run: its Eq 29 is a BLAS product over the candidates one call holds, whose rounding may
    depend on their number (MIPO evaluates subsets), so a batch could change its numbers.
    The filters the tuning did not keep are one batch.  Returns the factors (runs, 3), best
    fitness (runs,), evaluations (runs,) and each run's filter.
    """
    tcfg, ecfg = cfg["tuning"], cfg["ekf"]
    reading, gsbise, _ = EKF_VARIANTS[identifier]
    lower, upper = _tuning_box(tcfg)
    unit = ecfg["state_length_unit_mm"]
    stage = _tuning_stage(tcfg, reading)
    seeds = [seed_sequence(study, identifier, run) for run in runs]
    if tcfg["fitness"] == "filter":
        fitness = RunsNoiseFactorFitness(
            problems,
            *bases,
            READINGS[reading],
            ecfg["iterations"],
            gsbise=gsbise,
            length_unit_mm=unit,
        )
        result = _optimise(fitness, lower, upper, stage, seeds)
        W = np.asarray(result.best_x, dtype=np.float64)
        best_f = np.asarray(result.best_f, dtype=np.float64)
        evals = np.asarray(result.n_evals, dtype=np.int64)
        return np.power(10.0, W), best_f, evals, fitness.result(W)
    results = []
    for p, problem in enumerate(problems):
        surrogate = _surrogate(problem, cfg, identifier, tuple(b[p] for b in bases))
        results.append(_optimise(surrogate, lower, upper, stage, [seeds[p]]))
    W = np.stack([np.asarray(res.best_x)[0] for res in results])
    best_f = np.array([float(res.best_f[0]) for res in results])
    evals = np.array([int(res.n_evals[0]) for res in results], dtype=np.int64)
    res = READINGS[reading](
        problems, *bases, 10.0**W, ecfg["iterations"], gsbise=gsbise, length_unit_mm=unit
    )
    return np.power(10.0, W), best_f, evals, [res.member(p) for p in range(len(problems))]


def _refine(
    problems: Sequence[Problem],
    cfg: Config,
    study: str,
    identifier: str,
    runs: Sequence[int],
    x1: FloatArray,
    stage_cfg: Config,
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Second hybrid stage: a population method around each first-stage estimate x1 (runs, r),
    run p on ``problems[p]`` with seed ``(study, identifier, run)``, all runs one call.

    The objective is the training RMSE (Eq 45) of the model linearised at x1 (exact to second
    order near x1): H = dP/de at x1 (Eq 10), y = P - h(x1) + H x1, each run's own; the box is
    x1 +- ``refine_scale`` x the search box.  Elitist hand-over: a run keeps x1 when the
    population method finds nothing better (as a GA/PSO seeded with the first-stage estimate
    would).  Returns (x, history (runs, K2), n_evals).
    """
    half = {k: v * stage_cfg["refine_scale"] for k, v in cfg["search_box"].items()}
    LOG.info("%s: refining runs %s in one call", identifier, list(runs))
    H, h = _jacobians(problems, x1)
    objective = PositionRMSE(H, _train_targets(problems) - h + (H @ x1[..., None])[..., 0])
    lower, upper = _box(problems[0], half, x1)
    seeds = [seed_sequence(study, identifier, run) for run in runs]
    res = _optimise(objective, lower, upper, stage_cfg, seeds)
    f1 = objective(x1[:, None])[:, 0]
    x = np.where((res.best_f < f1)[:, None], res.best_x, x1)
    return x, np.minimum(res.history, f1[:, None]), np.array(res.n_evals, dtype=np.int64)


def _identify_bc(
    problem: Problem, cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """Before compensation: the nominal table (x = 0)."""
    n = len(runs)
    return Fit(
        x=np.zeros((n, problem.dim)),
        history=np.zeros((n, 0)),
        time_s=np.zeros(n),
        n_evals=np.zeros(n, dtype=np.int64),
    )


def _diverged(problem: Problem, path: FloatArray, history: FloatArray) -> NDArray[np.bool_]:
    """Per run: a non-finite estimate on the path (runs, K, r) or a training RMSE above the
    nominal table's (BC) at any iteration (flags, never raised; :func:`identify_runs` warns
    once per identifier)."""
    bc = float(metrics(problem.distances(np.zeros(problem.dim), "train"))["rmse"])
    return ~np.all(np.isfinite(path), axis=(1, 2)) | np.any(~(history <= bc), axis=1)


def _ekf_fit(
    problem: Problem,
    cfg: Config,
    identifier: str,
    runs: Sequence[int],
    paths: Sequence[FloatArray],
    factors: Sequence[FloatArray],
    best_f: Sequence[float],
    n_evals: Sequence[int],
    times: Sequence[float],
) -> Fit:
    """The Fit of EKF-family runs on ``problem`` from each run's path (K, r) and factors."""
    _, _, tuned = EKF_VARIANTS[identifier]
    path = np.stack(paths)
    history = _train_rmse_path(problem, path)
    diverged = _diverged(problem, path, history)
    F = np.stack(factors)
    info: dict[str, NDArray[Any]] = {
        "alpha": F[:, 0],
        "beta": F[:, 1],
        "gamma": F[:, 2],
        "diverged": diverged,
    }
    if tuned:
        info["tuning_best_fitness_mm"] = np.asarray(best_f)
        info["tuning_fitness"] = np.full(len(runs), cfg["tuning"]["fitness"])
    LOG.info("%s: %d of %d runs diverged", identifier, int(diverged.sum()), len(runs))
    return Fit(
        x=path[:, -1],
        history=history,
        time_s=np.asarray(times),
        n_evals=np.asarray(n_evals, dtype=np.int64),
        info=info,
    )


def _identify_ekf_runs(
    problems: Sequence[Problem], cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """M1, its GSBISE and MIPO-tuned variants and M5 = Algorithm 2, in the batch or the
    sequential reading (:data:`EKF_VARIANTS`), run p on its own data set ``problems[p]``, all
    runs in one call.

    Per run: the Eq 28 draws (line 3), the tuned (line 4, :func:`_tune_runs`: the runs in
    lockstep) or manual factors, the filter (lines 5-19; the filters of all runs are one
    batch, :func:`~paramid.calibration.filters.ekf` and
    :func:`~paramid.calibration.filters.sequential_ekf` take one problem per run), each run's
    numbers those of its own call.  ``diverged``: a non-finite estimate on the path or a
    training RMSE above the nominal table's (BC) at any iteration; such runs are logged, never
    raised.  ``time_s`` is the call's wall time / runs.
    """
    reading, gsbise, tuned = EKF_VARIANTS[identifier]
    ecfg = cfg["ekf"]
    start = time.perf_counter()
    bases = _runs_bases(problems, study, runs)
    if tuned:
        LOG.info("%s: tuning runs %s in lockstep", identifier, list(runs))
        factors, best_f, evals, results = _tune_runs(problems, cfg, study, identifier, runs, bases)
        paths = [res.path[0] for res in results]
    else:
        factors = _manual_factors(cfg, len(runs))
        best_f, evals = np.full(len(runs), np.nan), np.zeros(len(runs), dtype=np.int64)
        res = READINGS[reading](
            problems,
            *bases,
            factors,
            ecfg["iterations"],
            gsbise=gsbise,
            length_unit_mm=ecfg["state_length_unit_mm"],
        )
        paths = list(res.path)
    each = (time.perf_counter() - start) / len(runs)
    return _stack(
        [
            _ekf_fit(
                problem,
                cfg,
                identifier,
                [run],
                [paths[p]],
                [factors[p]],
                [best_f[p]],
                [int(evals[p]) + ecfg["iterations"]],
                [each],
            )
            for p, (problem, run) in enumerate(zip(problems, runs, strict=True))
        ]
    )


def _identify_ukf(
    problem: Problem, cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """M4: the UKF with M1's noise model and manual factors."""
    start = time.perf_counter()
    ucfg, ecfg = cfg["ukf"], cfg["ekf"]
    bases = noise_bases(problem, study, runs)
    factors = _manual_factors(cfg, len(runs))
    res = ukf(
        problem,
        *bases,
        factors,
        ucfg["iterations"],
        alpha=ucfg["alpha"],
        beta=ucfg["beta"],
        kappa=ucfg["kappa"],
        length_unit_mm=ecfg["state_length_unit_mm"],
    )
    elapsed = time.perf_counter() - start
    history = _train_rmse_path(problem, res.path)
    return Fit(
        x=res.x,
        history=history,
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=np.full(len(runs), ucfg["iterations"] * (2 * problem.dim + 1), dtype=np.int64),
        info={"diverged": _diverged(problem, res.path, history)},
    )


def _identify_lasso(
    problem: Problem, cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """M3: one deterministic LASSO fit, repeated for every run."""
    lcfg = cfg["lasso"]
    start = time.perf_counter()
    x, path, lam = lasso_fit(
        problem,
        sweeps=lcfg["iterations"],
        folds=lcfg["folds"],
        n_lambda=lcfg["n_lambda"],
        lambda_ratio=lcfg["lambda_ratio"],
    )
    elapsed = time.perf_counter() - start
    n = len(runs)
    return Fit(
        x=np.tile(x, (n, 1)),
        history=np.tile(_train_rmse_path(problem, path[None])[0], (n, 1)),
        time_s=np.full(n, elapsed),
        n_evals=np.full(n, lcfg["iterations"], dtype=np.int64),
        info={"lambda": np.full(n, lam)},
    )


def _identify_ipso(
    problems: Sequence[Problem], cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """M2: IPSO on the training RMSE (Eq 45) of the linear error model at the nominal table
    (Eq 9), run p on ``problems[p]``'s, all runs one optimiser call."""
    start = time.perf_counter()
    H0, p0 = _jacobians(problems, np.zeros((len(problems), problems[0].dim)))
    lower, upper = _box(problems[0], cfg["search_box"])
    seeds = [seed_sequence(study, identifier, r) for r in runs]
    objective = PositionRMSE(H0, _train_targets(problems) - p0)
    result = _optimise(objective, lower, upper, cfg["ipso"], seeds)
    elapsed = time.perf_counter() - start
    return Fit(
        x=np.asarray(result.best_x),
        history=np.asarray(result.history),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=np.asarray(result.n_evals),
    )


def _levenberg_marquardt(problem: Problem, iterations: int) -> tuple[FloatArray, FloatArray, int]:
    """Levenberg-Marquardt (scipy's MINPACK) on the nonlinear model from the nominal table:
    the estimate (r,), the best-so-far training RMSE (Eq 45) after each of ``iterations``
    evaluations (the last repeated when it stops early) and the evaluations."""
    z = problem.p_train.reshape(-1)
    trace: list[float] = []

    def fun(x: FloatArray) -> FloatArray:
        r = problem.predict(x, "train").reshape(-1) - z
        trace.append(float(np.sqrt(3.0 * np.mean(r * r))))
        return r

    def jac(x: FloatArray) -> FloatArray:
        return problem.jacobian(x)[0]

    lm = scipy.optimize.least_squares(  # scipy.optimize loads here (0.4 s)
        fun, np.zeros(problem.dim), jac=jac, method="lm", max_nfev=iterations
    )
    hist = np.minimum.accumulate(np.asarray(trace))
    return lm.x, np.pad(hist, (0, iterations - hist.size), mode="edge"), int(lm.nfev)


def _identify_lm_ga(
    problems: Sequence[Problem], cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """Hybrid LM+GA: Levenberg-Marquardt on each run's nonlinear model (deterministic, one
    MINPACK call per data set: it has no batched form), then :func:`_refine` for all runs in
    one GA call."""
    hcfg = cfg["lm_ga"]
    start = time.perf_counter()
    lms = [_levenberg_marquardt(p, hcfg["lm_iterations"]) for p in problems]
    x1, lm_hist = np.stack([lm[0] for lm in lms]), np.stack([lm[1] for lm in lms])
    x, hist2, evals = _refine(problems, cfg, study, identifier, runs, x1, hcfg["ga"])
    elapsed = time.perf_counter() - start
    return Fit(
        x=x,
        history=np.concatenate([lm_hist, hist2], axis=1),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=evals + np.array([lm[2] for lm in lms]),
        info={"lm_train_rmse_mm": lm_hist[:, -1]},
    )


def _identify_ekf_dqpso(
    problems: Sequence[Problem], cfg: Config, study: str, identifier: str, runs: Sequence[int]
) -> Fit:
    """Hybrid EKF+DQPSO: M1's EKF (manual factors; the filters of all runs one batch), then
    DQPSO by :func:`_refine` (all runs one call)."""
    start = time.perf_counter()
    hcfg, ecfg = cfg["ekf_dqpso"], cfg["ekf"]
    res = ekf(
        problems,
        *_runs_bases(problems, study, runs),
        _manual_factors(cfg, len(runs)),
        hcfg["ekf_iterations"],
        length_unit_mm=ecfg["state_length_unit_mm"],
    )
    x, hist2, evals = _refine(problems, cfg, study, identifier, runs, res.x, hcfg["dqpso"])
    elapsed = time.perf_counter() - start
    hist1 = np.concatenate(
        [_train_rmse_path(p, res.path[i : i + 1]) for i, p in enumerate(problems)]
    )
    return Fit(
        x=x,
        history=np.concatenate([hist1, hist2], axis=1),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=evals + hcfg["ekf_iterations"],
        info={"ekf_train_rmse_mm": hist1[:, -1]},
    )


@dataclass(frozen=True)
class IdentifierSpec:
    """One identifier: how it runs and what the workflow reads about it.

    Exactly one of ``run(problem, cfg, study, identifier, runs) -> Fit`` (every run on one
    data set) and ``run_all(problems, cfg, study, identifier, runs) -> Fit`` (run p on its
    own data set ``problems[p]``, all runs in one call with each run's numbers those of its
    own call; ``time_s`` the call's wall time / runs) is set; ``label`` its row name in the
    tables; ``blocks`` the study config blocks it reads besides ``runs`` (the rule
    ``calibrate`` passes exactly these, so editing one reruns only the identifiers that read
    it); ``polishing`` whether it is a row of Table 9 (the polishing path, §3.2.3).
    """

    run: Callable[..., Fit] | None
    label: str
    blocks: tuple[str, ...]
    polishing: bool = False
    run_all: Callable[..., Fit] | None = None

    def __post_init__(self) -> None:
        if (self.run is None) == (self.run_all is None):
            raise ValueError(f"{self.label}: set exactly one of run and run_all")


#: The identifiers in workflow order (the order of the fits every table rule reads).
IDENTIFIERS: dict[str, IdentifierSpec] = {
    "bc": IdentifierSpec(_identify_bc, "BC", (), polishing=True),
    "ekf": IdentifierSpec(None, "EKF", ("ekf",), polishing=True, run_all=_identify_ekf_runs),
    "ekf_gsbise": IdentifierSpec(None, "EKF+GSBISE", ("ekf",), run_all=_identify_ekf_runs),
    "ekf_mipo": IdentifierSpec(None, "EKF+MIPO", ("ekf", "tuning"), run_all=_identify_ekf_runs),
    "mipo_arkekf": IdentifierSpec(
        None, "MIPO-ARKEKF", ("ekf", "tuning"), polishing=True, run_all=_identify_ekf_runs
    ),
    "ekf_sequential": IdentifierSpec(
        None, "EKF (sequential)", ("ekf",), run_all=_identify_ekf_runs
    ),
    "mipo_arkekf_sequential": IdentifierSpec(
        None, "MIPO-ARKEKF (sequential)", ("ekf", "tuning"), run_all=_identify_ekf_runs
    ),
    "ipso": IdentifierSpec(
        None, "IPSO", ("ipso", "search_box"), polishing=True, run_all=_identify_ipso
    ),
    "lasso": IdentifierSpec(_identify_lasso, "LASSO", ("lasso",), polishing=True),
    "ukf": IdentifierSpec(_identify_ukf, "UKF", ("ukf", "ekf"), polishing=True),
    "lm_ga": IdentifierSpec(None, "LM+GA", ("lm_ga", "search_box"), run_all=_identify_lm_ga),
    "ekf_dqpso": IdentifierSpec(
        None, "EKF+DQPSO", ("ekf_dqpso", "ekf", "search_box"), run_all=_identify_ekf_dqpso
    ),
}
#: Display names (table rows) of the identifiers, read from :data:`IDENTIFIERS`.
LABELS: dict[str, str] = {name: spec.label for name, spec in IDENTIFIERS.items()}


def _stack(fits: Sequence[Fit]) -> Fit:
    """One Fit of the runs of ``fits``, in their order."""
    keys = fits[0].info.keys()
    return Fit(
        x=np.concatenate([f.x for f in fits]),
        history=np.concatenate([f.history for f in fits]),
        time_s=np.concatenate([f.time_s for f in fits]),
        n_evals=np.concatenate([f.n_evals for f in fits]),
        info={k: np.concatenate([np.atleast_1d(f.info[k]) for f in fits]) for k in keys},
    )


def identify_runs(
    identifier: str,
    problems: Sequence[Problem],
    cfg: Config,
    *,
    study: str,
    runs: Sequence[int],
) -> Fit:
    """Run ``identifier`` for every run on that run's data set ``problems[i]``.

    Each repeat has its own data (twin draw, tracker noise, split).  An identifier with
    ``run_all`` (:class:`IdentifierSpec`) runs them in one call with each run's numbers
    unchanged, and ``time_s`` is that call's wall time / runs; the others run once per run
    and ``time_s`` is each call's wall time (:func:`run_timing`).  Fits are stacked in run
    order.
    """
    if identifier not in IDENTIFIERS:
        raise KeyError(f"unknown identifier {identifier!r}; known: {sorted(IDENTIFIERS)}")
    run_all = IDENTIFIERS[identifier].run_all
    if run_all is not None:
        check_equations(identifier, problems)
        LOG.info("%s: %d runs in one call", identifier, len(runs))
        fit = run_all(list(problems), cfg, study, identifier, list(runs))
    else:
        fits = []
        for problem, run in zip(problems, runs, strict=True):
            start = time.perf_counter()
            one = identify(identifier, problem, cfg, study=study, runs=[run])
            fits.append(replace(one, time_s=np.array([time.perf_counter() - start])))
        fit = _stack(fits)
    diverged = np.asarray(fit.info.get("diverged", np.zeros(len(runs), bool)), dtype=bool)
    if diverged.any():
        LOG.warning(
            "%s: %d of %d runs diverged (training RMSE above the run's BC at some iteration): %s",
            identifier,
            int(diverged.sum()),
            len(runs),
            ", ".join(
                f"run {run} ends at {h[-1]:.4g} mm"
                for run, flag, h in zip(runs, diverged, fit.history, strict=True)
                if flag
            ),
        )
    return fit


def check_equations(identifier: str, problems: Sequence[Problem]) -> None:
    """Refuse training data with no more equations (3 per pose) than identified parameters:
    every identifier but ``bc`` (the nominal model) fits the errors to the training poses,
    and such a fit interpolates them (LM fitted 5 poses to 1e-13 mm and validated worse than
    no calibration)."""
    if identifier == "bc":
        return
    for problem in problems:
        poses = problem.q_train.shape[0]
        if 3 * poses <= problem.dim:
            raise InputError(
                f"{poses} training poses give {3 * poses} equations for {problem.dim} "
                f"identified parameters: {identifier} would interpolate them; measure at "
                f"least {problem.dim // 3 + 1} poses"
            )


def run_timing(identifier: str) -> str:
    """What ``time_s`` of :func:`identify_runs` measures for ``identifier`` (fit metadata)."""
    if IDENTIFIERS[identifier].run_all is not None:
        return "wall time of one call for all runs (each on its own data set) / runs"
    return "wall time of each run's call"


def identify(
    identifier: str,
    problem: Problem,
    cfg: Config,
    *,
    study: str,
    runs: Sequence[int],
) -> Fit:
    """Run ``identifier`` for the given run indices (all batched where the method allows)."""
    if identifier not in IDENTIFIERS:
        raise KeyError(f"unknown identifier {identifier!r}; known: {sorted(IDENTIFIERS)}")
    check_equations(identifier, [problem])
    LOG.info("%s: %d runs", identifier, len(runs))
    spec = IDENTIFIERS[identifier]
    if spec.run is not None:
        return spec.run(problem, cfg, study, identifier, list(runs))
    assert spec.run_all is not None  # IdentifierSpec sets exactly one
    return spec.run_all([problem] * len(runs), cfg, study, identifier, list(runs))
