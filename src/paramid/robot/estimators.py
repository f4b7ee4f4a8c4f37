"""Estimators of a multi-joint robot's parameters from its calibration records.

Data: the standard regressor Y and torque y of the calibration records, rows joint-major per
sample; the base regressor is W = Y[:, independent] and base = θ[independent] + K θ[dependent]
(pivoted QR, see :mod:`paramid.base_parameters`).  A :class:`Problem` holds the data as QR
compressions (:mod:`paramid.robot.compression`): per segment and joint j, [Y_j y_j] = Q [R_j c_j;
0 ρ_j]; since W_j's columns are columns of Y_j, ‖W_j β − y_j‖² = ‖R_j[:, independent] β − c_j‖²
+ ρ_j², so every least-squares estimator works on n·p rows instead of the record's length
(exactly, up to round-off).  The RLS-based methods need the rows themselves and ask
:attr:`Problem.rows` for them.  Every estimator takes a :class:`Problem` and its settings and
returns a :class:`Fit`; :data:`ESTIMATORS` names them:

``urdf``
    The maker's model, no fit: the URDF's standard parameters and the viscous and Coulomb
    friction of its ``<dynamics damping friction>`` (0 where it states none).
``urdf_friction``
    The URDF's rigid body with friction (and offset) fitted on the calibration data, f_v, f_c
    ≥ 0: the model a user has before identification, the reference a fit must beat.  An
    armature stays 0, as in the URDF (it is inertia the URDF does not describe, not friction).
``ols``
    min ‖y − W β‖² (QR of the compressed rows); standard errors from σ̂² (WᵀW)⁻¹ with
    σ̂² = ‖r‖²/(M − r) with r the parameters fitted (Gautier 1997, "Dynamic identification of
    robots with power model"); an offset held at 0 is no parameter (standard error NaN).
``wls``
    Per-joint noise variances σ̂_j² = ‖r_j‖²/(K − r/n) from the OLS residuals r_j of joint j,
    rows weighted by 1/σ̂_j², one weighted solve; covariance (Wᵀ Σ⁻¹ W)⁻¹ (Gautier & Poignet
    2001, "Extended Kalman filtering and weighted least squares dynamic identification of robot").
``bcls``
    Least squares inside the RLS box of the hip paper (Eq 7–9 on the stacked rows, extrema
    after a burn-in widened by a margin; :mod:`paramid.rls`), scipy's BVLS.
``rls_pso``, ``rls_agwo``
    The hip paper's population methods in the same box on the same objective (the torque RMSE
    of W β, :class:`paramid.optim.objectives.LinearRMSE`), ``runs`` seeded runs in one
    vectorised call (:func:`paramid.population.fit_population`; run s draws from the stream
    (study, method, s) of :mod:`paramid.seeding`); the fit is the best run.
``lmi``
    Physically consistent least squares over the standard parameters (every moving link's
    pseudo-inertia ⪰ 0, viscous and Coulomb friction and armature ≥ 0, the offset of a joint
    without one held at 0;
    :mod:`paramid.robot.priors`) with rows weighted by each joint's noise level and a pull
    toward the URDF of weight λ, chosen from the calibration data by cross-validation
    (``weight: auto``; :mod:`paramid.robot.selection`) or given.  The standard parameters it
    returns are the consistent set nearest to the URDF (in the prior's metric) among those
    that explain the data as well.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Protocol

import numpy as np
import scipy  # submodules load on first use: the workflow's start imports this registry
from numpy.typing import ArrayLike, NDArray

from paramid import population, rls
from paramid.errors import UserError
from paramid.estimators import collinear_columns
from paramid.robot import priors, selection
from paramid.robot.compression import Compressed, joint_rmse

Array = NDArray[np.float64]
Index = NDArray[np.intp]


class BaseMap(Protocol):
    """The base ↔ standard map of :class:`paramid.base_parameters.BaseParameters`."""

    @property
    def independent(self) -> Index: ...

    @property
    def dependent(self) -> Index: ...

    @property
    def K(self) -> Array: ...


@dataclass(frozen=True)
class Problem:
    """One identification problem: compressed data, base map and what ``urdf``/``lmi`` need."""

    data: Compressed  # per segment and joint, of the standard columns
    n_joints: int
    names: list[str]  # base parameter names (r)
    base: BaseMap
    theta_urdf: Array  # (p,) URDF standard parameters, friction 0
    links: Mapping[str, slice]  # moving link -> its 10 standard columns
    nonnegative: Index  # standard columns constrained ≥ 0 (viscous, Coulomb friction, armature)
    sample_rate_hz: float  # of the samples (for burn-in in seconds)
    study: str  # seed key of the population methods
    arm_length: float = 1.0  # L of the ``robot`` prior metric [m]
    standard_names: Sequence[str] = ()  # (p,) names of the standard columns
    rows: Callable[[], tuple[Array, Array]] | None = None  # (W, y) when a method needs the rows
    zero: Index = field(default_factory=lambda: np.zeros(0, dtype=np.intp))  # held at 0 (offsets)
    urdf_dynamics: Array | None = None  # (p,) the friction of the URDF's <dynamics> (None: 0)

    @cached_property
    def free(self) -> NDArray[np.bool_]:
        """(r,) the base parameters a fit estimates: all but those of :attr:`zero` columns (an
        offset the joint does not have; such a base parameter is its own standard one)."""
        return ~np.isin(self.base.independent, self.zero)

    @cached_property
    def merged(self) -> tuple[Array, Array, Array]:
        """(R (n, p, p), c (n, p), ρ² (n,)) of every row, per joint."""
        return self.data.joint()

    @property
    def R(self) -> Array:
        return self.merged[0]

    @property
    def c(self) -> Array:
        return self.merged[1]

    @property
    def rho2(self) -> Array:
        return self.merged[2]

    @property
    def samples(self) -> int:
        """Samples of the calibration records (each gives one row per joint)."""
        return int(self.data.samples.sum())

    @property
    def n_rows(self) -> int:
        return self.samples * self.n_joints

    @cached_property
    def stacked_rows(self) -> tuple[Array, Array]:
        """(W (M, r), y (M,)): the base regressor's rows and the torque, joint-major."""
        if self.rows is None:
            raise ValueError("this problem has no rows (the RLS-based methods need them)")
        return self.rows()

    @property
    def W(self) -> Array:
        return self.stacked_rows[0]

    @property
    def y(self) -> Array:
        return self.stacked_rows[1]


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
    curve: selection.Curve | None = None  # the weight's cross-validation curve (lmi, auto)
    solver: priors.Solution | None = None  # the conic solve (lmi)


def to_base(theta: ArrayLike, base: BaseMap) -> Array:
    """β = θ[independent] + K θ[dependent] for θ (p,) or (…, p)."""
    theta = np.asarray(theta, dtype=np.float64)
    return theta[..., base.independent] + theta[..., base.dependent] @ base.K.T


#: A true base parameter this small (in its SI unit) is a structural zero of the URDF, not a
#: value: kg m² of a wrist's inertia are ~1e-4, float residue of a combination ~1e-17.
ZERO_TRUTH = 1e-12


def relative_error(estimate: ArrayLike, truth: ArrayLike) -> Array:
    """|estimate − truth| / |truth| of base parameters (``estimate`` (r,) or (r, k) against
    ``truth`` (r,)), NaN where the truth is a structural zero (|truth| ≤ :data:`ZERO_TRUTH`, a
    link symmetric about its axis: the UR5 has 19 of 48): divided by a floor, an error of 1e-3
    reads as 1e9 and decides any median it enters."""
    estimate = np.asarray(estimate, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64).reshape(-1, *(1,) * (estimate.ndim - 1))
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            np.abs(truth) <= ZERO_TRUTH, np.nan, np.abs(estimate - truth) / np.abs(truth)
        )


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
    root, free = np.sqrt(weights)[:, None], problem.free
    columns = problem.base.independent[free]
    A = (root[:, :, None] * problem.R[:, :, columns]).reshape(-1, columns.size)
    Q, R = np.linalg.qr(A)
    rank = np.linalg.matrix_rank(R)
    if rank < R.shape[1]:
        kept = [name for name, f in zip(problem.names, free, strict=True) if f]
        involved = collinear_columns(A, kept)
        raise ValueError(
            f"the stacked base regressor has rank {rank} < {R.shape[1]}: {involved} are "
            "not identifiable from these records (they do not excite them independently)"
        )
    beta, scale = np.zeros(free.size), np.full(free.size, np.nan)  # held: 0, no error
    beta[free] = scipy.linalg.solve_triangular(R, Q.T @ (root * problem.c).reshape(-1))
    R_inv = scipy.linalg.solve_triangular(R, np.eye(R.shape[0]))
    scale[free] = np.sqrt(np.sum(R_inv * R_inv, axis=1))
    return beta, scale


def joint_residuals(problem: Problem, beta: Array) -> Array:
    """‖y_j − W_j β‖² (n,) of each joint, from the compression."""
    fitted = problem.R[:, :, problem.base.independent] @ beta - problem.c
    return np.sum(fitted * fitted, axis=1) + problem.rho2


def joint_variances(problem: Problem, beta: Array) -> Array:
    """σ̂_j² = ‖r_j‖²/(K − r/n) of each joint's residuals (r: the parameters fitted)."""
    samples = problem.samples
    free = int(problem.free.sum())
    return joint_residuals(problem, beta) / (samples - free / problem.n_joints)


def fit_urdf(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """The URDF's parameters, no fit: its rigid body and the friction its ``<dynamics>``
    states (:attr:`Problem.urdf_dynamics`; an exported identified URDF's damping and friction)."""
    standard = problem.theta_urdf.copy()
    if problem.urdf_dynamics is not None:
        standard += problem.urdf_dynamics
    return Fit(to_base(standard, problem.base), standard=standard)


def fit_ols(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Ordinary least squares with standard errors."""
    beta, scale = _weighted_ls(problem, np.ones(problem.n_joints))
    sigma2 = float(np.sum(joint_residuals(problem, beta))) / (problem.n_rows - problem.free.sum())
    return Fit(beta, stderr=np.sqrt(sigma2) * scale)


def fit_wls(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Weighted least squares, per-joint weights from the OLS residuals."""
    variances = joint_variances(problem, fit_ols(problem, settings).base)
    beta, stderr = _weighted_ls(problem, 1.0 / variances)
    note = "joint noise std [N m; N on a slide]: " + ", ".join(
        f"{s:.4g}" for s in np.sqrt(variances)
    )
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
    free, beta = problem.free, np.zeros(len(problem.names))  # held: their columns are 0
    beta[free] = bcls(problem.W[:, free], problem.y, box.lower[free], box.upper[free])
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
        optimiser = population.POPULATION_METHODS[method].optimiser
        if optimiser == "agwo":
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
            settings=population.optimiser_settings(method, settings[optimiser], gamma),
            timing_repeats=0,
        )
        best = int(np.argmin(result.train_rmse))
        notes = [*box.notes, f"gamma (Eq 10) = {gamma:.4g}"]
        runs = np.where(problem.free, result.x, 0.0)  # held parameters: 0 columns, any value fits
        return Fit(
            runs[best],
            lower=box.lower,
            upper=box.upper,
            runs=runs,
            run_rmse=result.train_rmse,
            notes=notes,
        )

    return fit


def fit_urdf_friction(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """The URDF's rigid body, friction fitted on the calibration data (f_v, f_c ≥ 0; an
    armature stays 0); the URDF itself where the model has no friction or offset column."""
    inertial = 10 * len(problem.links)
    names = list(problem.standard_names) or [""] * problem.theta_urdf.size
    friction = np.array(
        [
            k
            for k in range(inertial, problem.theta_urdf.size)
            if not names[k].startswith("ia_") and k not in problem.zero
        ],
        dtype=np.intp,
    )
    standard = problem.theta_urdf.copy()
    if not friction.size:  # friction: [] and no offsets: nothing to fit
        return Fit(to_base(standard, problem.base), standard=standard)
    A = problem.R[:, :, friction].reshape(-1, friction.size)
    b = (problem.c - problem.R[:, :, :inertial] @ problem.theta_urdf[:inertial]).reshape(-1)
    lower = np.where(np.isin(friction, problem.nonnegative), 0.0, -np.inf)
    solution = scipy.optimize.lsq_linear(A, b, bounds=(lower, np.inf), method="bvls", tol=1e-12)
    standard[friction] = solution.x
    return Fit(to_base(standard, problem.base), standard=standard)


def variable_scales(problem: Problem, metric: str) -> Array:
    """Scales s of the unknowns z = (θ − θ_URDF)/s of the consistent fit: the prior's own for
    the inertial parameters (:mod:`paramid.robot.priors`), per joint the RMS torque for Coulomb
    and offset, the RMS torque over the RMS of the column (velocity, acceleration) for viscous
    friction and armature."""
    inertial = 10 * len(problem.links)
    scales = np.ones(problem.theta_urdf.size)
    if metric == "robot":
        scales[:inertial] = priors.robot_scales(
            problem.theta_urdf, problem.links, problem.arm_length
        )
    elif metric == "logdet":
        scales[:inertial] = priors.typed_scales(problem.theta_urdf, problem.links)
    R, c, rho2 = problem.merged
    torque = joint_rmse(R, c, rho2, problem.samples, np.zeros(R.shape[-1]))  # (n,) RMS torque
    per_joint = (scales.size - inertial) // problem.n_joints
    for j in range(problem.n_joints):
        for k in range(per_joint):
            column = inertial + per_joint * j + k
            norm = float(np.linalg.norm(R[j][:, column])) / np.sqrt(problem.samples)
            name = problem.standard_names[column] if problem.standard_names else ""
            per_motion = name.startswith(("fv_", "ia_"))
            value = torque[j] / norm if per_motion and norm > 0 else torque[j]
            scales[column] = value if value > 0 else 1.0
    return scales


def fit_lmi(problem: Problem, settings: Mapping[str, Any]) -> Fit:
    """Physically consistent least squares pulled toward the URDF (module docstring).

    ``settings``: ``weight`` (λ ≥ 0, or ``auto``: cross-validation over ``grid`` with ``rule``),
    ``metric`` (:data:`paramid.robot.priors.METRICS`), ``joint_weights`` (``noise``: rows of
    joint j weighted by 1/σ̂_j of the OLS residuals; ``none``), ``free_links`` (links left out
    of the prior: :func:`check_free_links`): the validated ``lmi`` block, every key present
    (its defaults live in the schema only).
    """
    metric, weight = settings["metric"], settings["weight"]
    if weight != "auto" and float(weight) < 0:
        raise ValueError(f"lmi weight must be >= 0 or auto, got {weight}")
    solver = _consistent_solver(problem, metric, tuple(settings["free_links"]))
    noise = settings["joint_weights"] == "noise"
    curve = None
    if weight == "auto":
        curve = cv_curve(problem, solver, settings["grid"], settings["rule"], noise)
        weight = curve.weight
    R, c, rho2 = problem.merged
    sigma = _noise(problem, R, c, rho2, problem.samples) if noise else np.ones(problem.n_joints)
    R_w, c_w = selection.weighted(R, c, 1.0 / sigma)
    solution = solver.solve(R_w, c_w, problem.n_rows, float(weight))
    if solution.theta is None:
        raise UserError(
            f"robots.{problem.study}: the consistent fit (lmi) at weight {float(weight):g} was "
            f"not solved (Clarabel: {solution.status}); the calibration records may excite too "
            "little for the solver to settle: check their excitation, or set lmi.weight or "
            "lmi.metric"
        )
    notes = [
        f"Clarabel {solution.status} in {solution.iterations} iterations, primal residual "
        f"{solution.primal_residual:.2g}; metric {metric}, weight {float(weight):g}"
        + (f" (solved at {solution.tie_break:g}: ties broken)" if solution.tie_break else "")
    ]
    return Fit(
        to_base(solution.theta, problem.base),
        standard=solution.theta,
        notes=notes,
        curve=curve,
        solver=solution,
    )


def _consistent_solver(
    problem: Problem, metric: str, free_links: tuple[str, ...]
) -> priors.ConsistentLS:
    """The consistent least-squares solver of :func:`fit_lmi`, ``free_links`` checked."""
    check_free_links(problem, free_links)
    return priors.ConsistentLS(
        problem.theta_urdf,
        problem.links,
        problem.nonnegative,
        variable_scales(problem, metric),
        metric,
        zero=problem.zero,
        free_links=free_links,
    )


def free_link_trials(problem: Problem, settings: Mapping[str, Any]) -> dict[str, selection.Curve]:
    """Per moving link not yet in ``free_links`` whose release still leaves one standard set
    (:func:`check_free_links`): the weight's cross-validation curve with that link free too,
    on the same folds and grid as ``settings``' own (``weight: auto``).  What a curve that
    climbs toward the URDF is asked: would a load on one link explain it?"""
    metric, free = settings["metric"], tuple(settings["free_links"])
    noise = settings["joint_weights"] == "noise"
    trials = {}
    for link in problem.links:
        if link in free:
            continue
        try:
            solver = _consistent_solver(problem, metric, (*free, link))
        except UserError:  # releasing it leaves combinations nothing determines
            continue
        trials[link] = cv_curve(problem, solver, settings["grid"], settings["rule"], noise)
    return trials


def check_free_links(problem: Problem, free_links: Sequence[str]) -> None:
    """:func:`check_freeable` on the problem's base map and held columns."""
    check_freeable(
        problem.links,
        problem.theta_urdf.size,
        problem.zero,
        problem.base,
        free_links,
        f"robots.{problem.study}.lmi.free_links",
    )


def check_freeable(
    links: Mapping[str, slice],
    n_standard: int,
    zero: Index,
    base: BaseMap,
    free_links: Sequence[str],
    field: str,
) -> None:
    """Stop unless the prior still fixes one standard set when ``free_links`` are not pulled:
    the columns no prior term holds (the free links' inertial parameters, friction, armature,
    offsets not in ``zero``) must map to independent combinations of base parameters
    (columns of B, β = B θ, full rank).  A link whose parameters all reach the base set alone
    (on the Gen3 any one link from the third on) passes; the first links of a chain, or two
    adjacent links, leave combinations that no motion and no prior determine: the message
    names the links that can be freed alone.  Run at the start on the model's structural
    base (a middle link without ``<inertial>``, freed, stopped only after six jobs) and again
    on the records' own."""
    if not free_links:
        return

    def undetermined(free: Sequence[str]) -> int:
        """How many combinations of the columns no prior term holds with ``free`` free miss
        the base set."""
        pulled = priors.pulled_links(links, free, field)
        held = np.union1d(priors.columns_of(pulled), zero)
        loose = np.setdiff1d(np.arange(n_standard), held)
        columns = to_base(np.eye(n_standard)[loose], base)  # rows: B[:, loose]ᵀ
        norms = np.linalg.norm(columns, axis=1, keepdims=True)
        unit = columns / np.where(norms > 0, norms, 1.0)
        singular = np.linalg.svd(unit, compute_uv=False)
        return loose.size - int(np.sum(singular > 1e-8 * singular[0]))

    missing = undetermined(free_links)
    if missing:
        alone = [link for link in links if not undetermined([link])]
        raise UserError(
            f"{field} {list(free_links)}: {missing} combinations of their "
            "inertial parameters reach no base parameter apart from each other (the data cannot "
            "tell them apart and no prior holds them); free a single link, the one carrying the "
            f"load: these can be freed alone: {alone}"
        )


def _noise(problem: Problem, R: Array, c: Array, rho2: Array, samples: int) -> Array:
    free = problem.base.independent[problem.free]  # not the offsets held at 0
    return selection.joint_noise(R, c, rho2, samples, free)


def cv_curve(
    problem: Problem,
    solver: priors.ConsistentLS,
    grid: Sequence[float],
    rule: str,
    noise: bool = True,
) -> selection.Curve:
    """The cross-validation curve of the prior weights ``grid`` (ascending) on the problem's
    folds (:func:`paramid.robot.selection.folds`), and the ``rule``'s choice."""
    weights = np.sort(np.asarray(grid, dtype=np.float64))
    folds = selection.folds(problem.data)
    scores = np.full((weights.size, sum(len(f.tests) for f in folds), problem.n_joints), np.nan)
    statuses = []
    first = 0
    for fold in folds:
        R, c, rho2 = problem.data.joint(fold.train)
        train = int(problem.data.samples[fold.train].sum())
        sigma = _noise(problem, R, c, rho2, train) if noise else np.ones(problem.n_joints)
        R_w, c_w = selection.weighted(R, c, 1.0 / sigma)
        held_out = slice(first, first + len(fold.tests))
        tests = selection.held_out_data(problem.data, fold)  # the same for every weight
        for w, weight in enumerate(weights):
            solution = solver.solve(R_w, c_w, train * problem.n_joints, float(weight))
            statuses.append(solution.status)
            if solution.theta is not None:
                scores[w, held_out] = selection.scores_of(tests, solution.theta)
        first = held_out.stop
    return selection.Curve(weights, scores, rule, tuple(statuses), selection.scheme(problem.data))


@dataclass(frozen=True)
class Estimator:
    """An entry of :data:`ESTIMATORS`: ``fit(problem, settings) -> Fit`` and what the workflow
    feeds it."""

    fit: Callable[[Problem, Mapping[str, Any]], Fit]
    #: its standard parameters are physically consistent by construction (an URDF goes out)
    consistent: bool = False
    #: it reads the stacked rows (:attr:`Problem.rows`: the RLS box), not only the compression
    needs_rows: bool = False
    #: seeded runs of a population method (``runs``, ``population``, ``iterations``)
    population: bool = False


#: method name -> its :class:`Estimator`
ESTIMATORS: dict[str, Estimator] = {
    "urdf": Estimator(fit_urdf),
    "urdf_friction": Estimator(fit_urdf_friction),
    "ols": Estimator(fit_ols),
    "wls": Estimator(fit_wls),
    "bcls": Estimator(fit_bcls, needs_rows=True),
    "lmi": Estimator(fit_lmi, consistent=True),
    "rls_pso": Estimator(_population("rls_pso"), needs_rows=True, population=True),
    "rls_agwo": Estimator(_population("rls_agwo"), needs_rows=True, population=True),
}
#: the methods whose standard parameters are physically consistent by construction
CONSISTENT = tuple(name for name, estimator in ESTIMATORS.items() if estimator.consistent)


@dataclass(frozen=True)
class CoulombChoice:
    """Per joint the Coulomb law the data prefer (``smooth``: tanh, else sgn) and each law's
    cross-validated RMSE of that joint [N m] (NaN where the law was set, not chosen)."""

    smooth: tuple[bool, ...]
    cv_sign: Array
    cv_tanh: Array


def fold_scores(problem: Problem, settings: Mapping[str, Any]) -> Array:
    """(S, n) each joint's RMSE in each held-out score of the consistent fit (``settings``: the
    ``lmi`` block; at the weight its own curve chooses when ``auto``), on the folds of a
    joint's columns (:data:`paramid.robot.selection.COLUMN_RECORDS_OUT`): the curve's own
    scores where its folds are the same."""
    fit = fit_lmi(problem, settings)
    columns = selection.COLUMN_RECORDS_OUT
    if fit.curve is not None and fit.curve.folds == selection.scheme(problem.data, columns):
        return fit.curve.scores[fit.curve.chosen]
    weight = settings["weight"] if fit.curve is None else fit.curve.weight
    per_fold = []  # the weight's own held-out scores on these folds
    for fold in selection.folds(problem.data, columns):
        single = replace(problem, data=_subset(problem.data, fold.train))
        theta = fit_lmi(single, {**settings, "weight": weight}).standard
        assert theta is not None
        per_fold.append(selection.held_out_scores(problem.data, fold, theta))
    return np.concatenate(per_fold)


def choose_coulomb(sign: Array, smooth: Array) -> CoulombChoice:
    """Per joint, the law with the lower held-out RMSE of the consistent fit, from each law's
    :func:`fold_scores` (S, n), both on the same folds (those of a joint's columns)."""
    cv_sign, cv_tanh = np.nanmean(sign, axis=0), np.nanmean(smooth, axis=0)
    return CoulombChoice(
        tuple(bool(t < s) for s, t in zip(cv_sign, cv_tanh, strict=True)), cv_sign, cv_tanh
    )


@dataclass(frozen=True)
class OffsetChoice:
    """Per joint whether the data ask for an offset, each variant's cross-validated RMSE of
    that joint [N m], the standard error of their paired difference over the folds and the
    threshold in standard errors."""

    offsets: tuple[bool, ...]
    cv_without: Array
    cv_with: Array
    se: Array
    z: float  # an offset is kept where cv_without − cv_with > z · se


def family_se_multiple(tests: int) -> float:
    """z such that n one-sided tests "gain > z SE" together pass by chance as often as one test
    "gain > 1 SE" does (Šidák: 1 − Φ(z) = 1 − Φ(1)^(1/n)); 1 for one test, 1.97 for 7."""
    from scipy.stats import norm

    return float(norm.isf(1.0 - norm.cdf(1.0) ** (1.0 / tests)))


#: a change of a cross-validated RMSE smaller than this share of it changes no prediction a
#: user would notice, however many standard errors long records make of it: an offset must
#: lower its joint's RMSE by more (a clean simulated log got offsets for gains of 0.04 %, 2e-5
#: N m on 0.054), and a prior-weight curve must climb by more to be warned of
MIN_PRACTICAL_GAIN = 0.01


def choose_offsets(
    plain: Array, offset: Array, tested: Sequence[bool], family: int | None = None
) -> OffsetChoice:
    """Per joint, an offset only where the consistent fit with offsets predicts that joint's
    held-out torque better by more than z standard errors of the paired fold differences: the
    simpler model wins ties, as in the weight's one-standard-error rule, with z =
    :func:`family_se_multiple` (one test per joint: without it a 7-joint arm would get a
    spurious offset on some joint two times in three; a normal approximation: with few folds
    the standard error is itself uncertain and the chance is higher), and by at least
    :data:`MIN_PRACTICAL_GAIN` of the RMSE without it.  ``plain`` and ``offset`` are the
    :func:`fold_scores` (S, n) of the fits without and with offsets on the same folds; only
    the ``tested`` joints (those with an offset to add) can get one; ``family``: the number
    of tests z is corrected for (default: the tested joints)."""
    gain = plain - offset  # (S, n) > 0 where the offset helps
    mean = np.nanmean(gain, axis=0)
    se = np.nanstd(gain, axis=0, ddof=1) / np.sqrt(np.sum(np.isfinite(gain), axis=0))
    z = family_se_multiple(max(family or sum(bool(t) for t in tested), 1))
    floor = MIN_PRACTICAL_GAIN * np.nanmean(plain, axis=0)
    return OffsetChoice(
        tuple(
            bool(t and g > z * e and g > f)
            for t, g, e, f in zip(tested, mean, se, floor, strict=True)
        ),
        np.nanmean(plain, axis=0),
        np.nanmean(offset, axis=0),
        se,
        z,
    )


def _subset(data: Compressed, keep: NDArray[np.bool_]) -> Compressed:
    return Compressed(
        data.R[keep], data.c[keep], data.rho2[keep], data.samples[keep], data.record[keep],
        data.fold[keep], data.role[keep],
    )  # fmt: skip
