"""Estimators of a multi-joint robot's base parameters on one stacked regression.

Data: the standard regressor Y (M, p) and torque y (M,) of the calibration records, rows
joint-major per sample (row k·n + j is joint j at sample k); the base regressor is
W = Y[:, independent] and base = θ[independent] + K θ[dependent] (pivoted QR, see
:mod:`paramid.robot.base`).  :func:`make_problem` compresses each joint's rows once by QR,
[Y_j y_j] = Q_j [R_j c_j; 0 ρ_j]; since W_j's columns are columns of Y_j,
‖W_j β − y_j‖² = ‖R_j[:, independent] β − c_j‖² + ρ_j², so OLS, WLS and LMI work on n·p rows
instead of M (exactly, up to round-off).  Every estimator takes a :class:`Problem` and its
settings and returns a :class:`Fit`; :data:`ESTIMATORS` names them:

``urdf``
    The maker's model, no fit: the URDF's standard parameters (friction 0), the baseline row.
``ols``
    min ‖y − W β‖² (QR of the compressed rows); standard errors from σ̂² (WᵀW)⁻¹ with
    σ̂² = ‖r‖²/(M − r) (Gautier 1997, "Dynamic identification of robots with power model").
``wls``
    Per-joint noise variances σ̂_j² = ‖r_j‖²/(K − r/n) from the OLS residuals r_j of joint j,
    rows weighted by 1/σ̂_j², one weighted solve; covariance (Wᵀ Σ⁻¹ W)⁻¹ (Gautier & Poignet
    2001, "Extended Kalman filtering and weighted least squares dynamic identification of robot").
``bcls``
    Least squares inside the RLS box of the hip paper (Eq 7–9 on the stacked rows, extrema
    after a burn-in widened by a margin; :mod:`paramid.rls`), scipy's BVLS.
``rls_pso``, ``rls_agwo``
    The hip paper's population methods in the same box on the same objective (the torque RMSE
    of W β, :class:`paramid.optim.LinearRMSE`), ``runs`` seeded runs in one vectorised call
    (:func:`paramid.population.fit_population`; run s draws from the stream
    (study, method, s) of :mod:`paramid.seeding`); the fit is the best run.
``lmi``
    Physically consistent least squares over the standard parameters θ (Wensing, Kim &
    Slotine 2017; Sousa & Cortesão 2014): every moving link's pseudo-inertia J(θ_link) ⪰ 0
    (:mod:`paramid.robot.consistency`), viscous and Coulomb friction ≥ 0, minimising

        (1/M) ‖Y θ − y‖² + w ‖θ − θ_urdf‖²

    by cvxpy with Clarabel.  The data enter only through the per-joint compressions, stacked
    and compressed once more to R (p×p) and c, since ‖Yθ − y‖² = ‖Rθ − c‖² + ρ²: cvxpy never
    sees the M×p data.  The weight w
    ≥ 0 [N² m² per squared parameter unit] pulls the parameters the data do not determine
    (and, weakly, the others) towards the URDF; w = 0 (default) fits the data alone.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
import scipy
from numpy.typing import ArrayLike, NDArray

from paramid import population, rls
from paramid.estimators import collinear_columns
from paramid.robot.consistency import PSEUDO_INERTIA_BASIS

Array = NDArray[np.float64]
Index = NDArray[np.intp]


class BaseMap(Protocol):
    """The base ↔ standard map of :class:`paramid.robot.base.BaseParameters`."""

    @property
    def independent(self) -> Index: ...

    @property
    def dependent(self) -> Index: ...

    @property
    def K(self) -> Array: ...


@dataclass(frozen=True)
class Problem:
    """One identification problem: data, base map and what ``urdf``/``lmi`` need."""

    W: Array  # (M, r) base regressor, rows joint-major per sample
    y: Array  # (M,) torque as recorded
    n_joints: int
    names: list[str]  # base parameter names (r)
    base: BaseMap
    R: Array  # (n, p, p) per joint j: [Y_j y_j] = Q_j [R_j c_j; 0 ρ_j] (Y_j: joint j's rows)
    c: Array  # (n, p)
    rho2: Array  # (n,) ρ_j²: ‖Y_j θ − y_j‖² = ‖R_j θ − c_j‖² + ρ_j²
    theta_urdf: Array  # (p,) URDF standard parameters, friction 0
    links: Mapping[str, slice]  # moving link -> its 10 standard columns
    nonnegative: Index  # standard columns constrained ≥ 0 (viscous, Coulomb friction)
    sample_rate_hz: float  # of the samples (for burn-in in seconds)
    study: str  # seed key of the population methods


@dataclass(frozen=True)
class Fit:
    """An estimate of the base parameters (and of the standard ones where the method has them)."""

    base: Array  # (r,)
    stderr: Array | None = None  # (r,) standard errors (ols, wls)
    standard: Array | None = None  # (p,) (urdf, lmi)
    lower: Array | None = None  # (r,) the box searched (bcls, population)
    upper: Array | None = None
    runs: Array | None = None  # (runs, r) every seeded run (population)
    run_rmse: Array | None = None  # (runs,) training RMSE of every run
    notes: list[str] = field(default_factory=list)


def compress(Y: Array, y: Array, chunk: int = 50_000) -> tuple[Array, Array, float]:
    """R (p, p), c (p,) and ρ² of [Y y] = Q [R c; 0 ρ] by Householder QR in row chunks (memory
    O(chunk·p)): ‖Yθ − y‖² = ‖Rθ − c‖² + ρ² for every θ."""
    M, p = Y.shape
    acc = np.zeros((0, p + 1))
    for start in range(0, M, chunk):
        block = np.column_stack([Y[start : start + chunk], y[start : start + chunk]])
        acc = scipy.linalg.qr(np.vstack([acc, block]), mode="r")[0][: p + 1]
    acc = np.vstack([acc, np.zeros((max(0, p + 1 - acc.shape[0]), p + 1))])
    return acc[:p, :p], acc[:p, p], float(acc[p, p] ** 2)


def to_base(theta: ArrayLike, base: BaseMap) -> Array:
    """β = θ[independent] + K θ[dependent] for θ (p,) or (…, p)."""
    theta = np.asarray(theta, dtype=np.float64)
    return theta[..., base.independent] + theta[..., base.dependent] @ base.K.T


def standard_completion(beta: Array, base: BaseMap, prior: Array) -> Array:
    """The standard vector with the base parameters β whose dependent parameters are the
    prior's (e.g. the URDF): θ[dependent] = prior[dependent], θ[independent] = β − K
    prior[dependent]; used to check a base estimate for consistency."""
    theta = np.array(prior, dtype=np.float64)
    theta[base.independent] = beta - base.K @ prior[base.dependent]
    return theta


def _weighted_ls(problem: Problem, weights: Array) -> tuple[Array, Array]:
    """β minimising Σ_j w_j ‖W_j β − y_j‖² and √diag (Σ_j w_j W_jᵀW_j)⁻¹, from the per-joint
    compression (W_j = Y_j[:, independent], so ‖W_j β − y_j‖² = ‖R_j[:, independent] β − c_j‖²
    + ρ_j²): a QR of n·p rows instead of M; a rank-deficient W is named."""
    root = np.sqrt(weights)[:, None]
    A = (root[:, :, None] * problem.R[:, :, problem.base.independent]).reshape(
        -1, len(problem.names)
    )
    Q, R = np.linalg.qr(A)
    rank = np.linalg.matrix_rank(R)
    if rank < R.shape[1]:
        involved = collinear_columns(A, problem.names)
        raise ValueError(
            f"the stacked base regressor has rank {rank} < {R.shape[1]}: {involved} are "
            "not identifiable from these records (they do not excite them independently)"
        )
    beta = scipy.linalg.solve_triangular(R, Q.T @ (root * problem.c).reshape(-1))
    R_inv = scipy.linalg.solve_triangular(R, np.eye(R.shape[0]))
    return beta, np.sqrt(np.sum(R_inv * R_inv, axis=1))


def joint_residuals(problem: Problem, beta: Array) -> Array:
    """‖y_j − W_j β‖² (n,) of each joint, from the compression."""
    fitted = problem.R[:, :, problem.base.independent] @ beta - problem.c
    return np.sum(fitted * fitted, axis=1) + problem.rho2


def joint_variances(problem: Problem, beta: Array) -> Array:
    """σ̂_j² = ‖r_j‖²/(K − r/n) of each joint's residuals."""
    samples = problem.y.size // problem.n_joints
    return joint_residuals(problem, beta) / (samples - len(problem.names) / problem.n_joints)


def fit_urdf(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """The URDF's parameters, no fit."""
    return Fit(to_base(problem.theta_urdf, problem.base), standard=problem.theta_urdf.copy())


def fit_ols(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Ordinary least squares with standard errors."""
    beta, scale = _weighted_ls(problem, np.ones(problem.n_joints))
    sigma2 = float(np.sum(joint_residuals(problem, beta))) / (problem.y.size - beta.size)
    return Fit(beta, stderr=np.sqrt(sigma2) * scale)


def fit_wls(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Weighted least squares, per-joint weights from the OLS residuals."""
    variances = joint_variances(problem, fit_ols(problem, settings).base)
    beta, stderr = _weighted_ls(problem, 1.0 / variances)
    note = "joint noise std [N m]: " + ", ".join(f"{s:.4g}" for s in np.sqrt(variances))
    return Fit(beta, stderr=stderr, notes=[note])


def rls_box(problem: Problem, settings: Mapping[str, Any]) -> tuple[rls.Bounds, Array]:
    """The hip paper's box (Eq 7–9, §3.1) from RLS on the stacked rows, and the retained
    mean of the RLS estimate: ``settings["rls"]`` has ``forgetting``, ``p0``, ``burn_in_s``
    (in time: × rate × joints rows), ``margin`` and optionally ``mechanical`` limits by base
    parameter name."""
    config = settings["rls"]
    r = problem.W.shape[1]
    trajectory = rls.rls_trajectory(
        problem.W, problem.y, config["forgetting"], config["p0"], chunk=max(1, 2**22 // r**2)
    )
    burn_in = int(round(config["burn_in_s"] * problem.sample_rate_hz)) * problem.n_joints
    box = rls.rls_bounds(
        trajectory, burn_in, config["margin"], problem.names, config.get("mechanical")
    )
    return box, trajectory[burn_in:].mean(axis=0)


def fit_bcls(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Bound-constrained least squares inside the RLS box (Eq 17)."""
    from paramid.estimators import bcls

    fit_ols(problem, settings)  # names unidentifiable parameters before the RLS run
    box = rls_box(problem, settings)[0]
    beta = bcls(problem.W, problem.y, box.lower, box.upper)
    return Fit(beta, lower=box.lower, upper=box.upper, notes=box.notes)


def friction_gamma(problem: Problem, beta: Array, eps: float) -> float:
    """γ of Eq 10 on the stacked rows: max |Coulomb torque of β| / (max |y| + ε), the Coulomb
    torque from the base columns named ``fc_*`` (0 without them)."""
    columns = [i for i, name in enumerate(problem.names) if name.startswith("fc_")]
    coulomb = problem.W[:, columns] @ beta[columns]
    return float(rls.nfsi_gamma(coulomb, np.array(1.0), problem.y, eps))


def _population(method: str) -> Callable[[Problem, Mapping[str, Any]], Fit]:
    def fit(problem: Problem, settings: Mapping[str, Any]) -> Fit:
        """Seeded runs of the population method in the RLS box; the best run is the fit.

        ``settings``: ``rls`` (as :func:`rls_box`, plus ``nfsi_eps`` for AGWO), ``runs``,
        ``population``, ``iterations`` and the optimiser blocks (``pso``, ``agwo``) of the
        hip config (:func:`paramid.population.optimiser_settings`).
        """
        box, mean = rls_box(problem, settings)
        gamma = 0.0
        if population.POPULATION_METHODS[method].optimiser == "agwo":
            gamma = friction_gamma(problem, mean, settings["rls"]["nfsi_eps"])
        result = population.fit_population(
            method,
            problem.W,
            problem.y,
            problem.W,
            problem.y,
            box.lower,
            box.upper,
            study=problem.study,
            runs=settings["runs"],
            population=settings["population"],
            iterations=settings["iterations"],
            settings=population.optimiser_settings(method, settings, gamma),
            timing_repeats=0,
        )
        best = int(np.argmin(result.train_rmse))
        notes = [*box.notes, f"gamma (Eq 10) = {gamma:.4g}"]
        return Fit(
            result.x[best],
            lower=box.lower,
            upper=box.upper,
            runs=result.x,
            run_rmse=result.train_rmse,
            notes=notes,
        )

    return fit


def fit_lmi(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Physically consistent least squares (module docstring); ``settings["weight"]`` is w
    (0 when absent); ``settings.get("solver_options")`` go to Clarabel."""
    import cvxpy as cp

    weight = float(settings.get("weight", 0.0))
    if weight < 0:
        raise ValueError(f"lmi weight must be >= 0, got {weight}")
    theta = cp.Variable(problem.R.shape[1])
    basis = PSEUDO_INERTIA_BASIS.reshape(10, 16).T  # (16, 10)
    constraints = [
        cp.reshape(basis @ theta[columns], (4, 4), order="C") >> 0
        for columns in problem.links.values()
    ]
    if problem.nonnegative.size:
        constraints.append(theta[problem.nonnegative] >= 0)
    R, c, _ = compress(problem.R.reshape(-1, problem.R.shape[-1]), problem.c.reshape(-1))
    scale = 1.0 / np.sqrt(problem.y.size)  # the mean squared residual: 1/M ‖Yθ − y‖²
    objective = cp.sum_squares(scale * R @ theta - scale * c)
    if weight > 0:
        objective = objective + weight * cp.sum_squares(theta - problem.theta_urdf)
    program = cp.Problem(cp.Minimize(objective), constraints)
    options = {"tol_gap_abs": 1e-10, "tol_gap_rel": 1e-10, "tol_feas": 1e-10}
    program.solve(solver=cp.CLARABEL, **{**options, **settings.get("solver_options", {})})
    if theta.value is None or program.status not in (cp.OPTIMAL, cp.OPTIMAL_INACCURATE):
        raise RuntimeError(f"the LMI problem was not solved: status {program.status}")
    standard = np.asarray(theta.value, dtype=np.float64)
    notes = [f"Clarabel status {program.status}, weight {weight:g}"]
    return Fit(to_base(standard, problem.base), standard=standard, notes=notes)


#: method name -> estimator(problem, settings) -> Fit
ESTIMATORS: dict[str, Callable[[Problem, Mapping[str, Any]], Fit]] = {
    "urdf": fit_urdf,
    "ols": fit_ols,
    "wls": fit_wls,
    "bcls": fit_bcls,
    "lmi": fit_lmi,
    "rls_pso": _population("rls_pso"),
    "rls_agwo": _population("rls_agwo"),
}


def make_problem(
    Y: Sequence[Array],
    tau: Sequence[Array],
    base: BaseMap,
    names: Sequence[str],
    **kwargs: Any,
) -> Problem:
    """A :class:`Problem` from per-record standard regressors Y_i (K_i, n, p) and torques
    (K_i, n): rows stacked joint-major per sample, W the independent columns, [Y y]
    compressed; ``kwargs`` are the remaining fields (theta_urdf, links, nonnegative,
    sample_rate_hz, study)."""
    n_joints = Y[0].shape[1]
    Ys, taus = np.concatenate(Y), np.concatenate(tau)
    parts = [compress(Ys[:, j], taus[:, j]) for j in range(n_joints)]
    R, c, rho2 = (np.array(x) for x in zip(*parts, strict=True))
    W = Ys.reshape(-1, Ys.shape[-1])[:, base.independent]
    return Problem(W, taus.reshape(-1), n_joints, list(names), base, R, c, rho2, **kwargs)
