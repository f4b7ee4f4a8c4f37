"""Estimators and physical consistency of paramid.robot on Pinocchio's sample manipulator.

The fixture builds the joint-torque regressor with Pinocchio directly (6 revolute joints,
10 inertial parameters per link, viscous and Coulomb friction per joint), the base columns by
pivoted QR, and synthetic torques from known parameters along a Fourier excitation.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pinocchio as pin
import pytest
import scipy.linalg
import scipy.optimize
from schema_blocks import defaults

from paramid.errors import UserError
from paramid.robot import compression, consistency, estimators, priors
from paramid.robot.estimators import ESTIMATORS, Problem

LMI = defaults("robots", "*", "lmi")  # the schema's lmi block
MODEL = pin.buildSampleModelManipulator()
N_JOINTS = MODEL.nv
FV = np.array([0.8, 0.6, 0.5, 0.3, 0.2, 0.1])
FC = np.array([0.5, 0.4, 0.3, 0.2, 0.1, 0.1])
NOISE = np.array([0.20, 0.15, 0.10, 0.05, 0.02, 0.02])  # torque noise std per joint [N m]
# RLS over 50 base parameters needs a long memory and burn-in: with the hip's λ = 0.98 and 1 s
# the box is 20-55 times wider than the parameters and 3000 evaluations end 2-8 x OLS's RMSE
POPULATION = {
    "rls": {"forgetting": 1.0, "p0": 1e4, "burn_in_s": 5.0, "margin": 0.1, "nfsi_eps": 1e-9},
    "runs": 30,
    "population": 30,
    "iterations": 100,  # 3000 evaluations per run
    "pso": {"inertia_start": 0.9, "inertia_end": 0.4, "c1": 2.0, "c2": 2.0, "velocity_clamp": None},
    "agwo": {"mu_base": 0.45, "kappa": 0.25},
}


@dataclass(frozen=True)
class Selection:
    """The base map: β = θ[independent] + K θ[dependent]."""

    independent: np.ndarray
    dependent: np.ndarray
    K: np.ndarray


def truth() -> np.ndarray:
    """The model's standard parameters, then viscous and Coulomb friction."""
    inertial = [MODEL.inertias[i].toDynamicParameters() for i in range(1, MODEL.njoints)]
    return np.concatenate([*inertial, FV, FC])


def regressor(q: np.ndarray, dq: np.ndarray, ddq: np.ndarray) -> np.ndarray:
    """(K, n, 10 n + 2 n): Pinocchio's joint-torque regressor, then viscous and Coulomb."""
    data = MODEL.createData()
    inertial = np.stack(
        [pin.computeJointTorqueRegressor(MODEL, data, *row) for row in zip(q, dq, ddq, strict=True)]
    )
    eye = np.eye(N_JOINTS)
    return np.concatenate([inertial, dq[:, :, None] * eye, np.sign(dq)[:, :, None] * eye], axis=2)


def fourier(seconds: float, rate: float, amplitude: float, seed: int) -> tuple:
    """q, q̇, q̈ (K, n) of a 5-harmonic Fourier excitation at 0.2 Hz base frequency."""
    rng = np.random.default_rng(seed)
    t = np.arange(int(seconds * rate)) / rate
    w = 2 * np.pi * 0.2 * np.arange(1, 6)
    a, b = amplitude * rng.uniform(-1, 1, (2, N_JOINTS, 5)) / np.arange(1, 6)
    phase = w[:, None] * t  # (5, K)
    q = a @ np.sin(phase) + b @ np.cos(phase)
    dq = (a * w) @ np.cos(phase) - (b * w) @ np.sin(phase)
    ddq = -(a * w**2) @ np.sin(phase) - (b * w**2) @ np.cos(phase)
    return q.T, dq.T, ddq.T


def selection(Y: np.ndarray) -> Selection:
    """Base columns by pivoted QR of the stacked regressor (M, p)."""
    _, R, piv = scipy.linalg.qr(Y, mode="economic", pivoting=True)
    rank = int(np.sum(np.abs(np.diag(R)) > 1e-8 * abs(R[0, 0])))
    independent, dependent = np.sort(piv[:rank]), np.sort(piv[rank:])
    K = np.linalg.lstsq(Y[:, independent], Y[:, dependent], rcond=None)[0]
    return Selection(independent, dependent, K)


STD_NAMES = [
    f"{kind}_{link}"
    for link in range(1, N_JOINTS + 1)
    for kind in ("m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
] + [f"{kind}_{j}" for kind in ("fv", "fc") for j in range(1, N_JOINTS + 1)]
RICH = fourier(20.0, 100.0, 1.2, seed=1)
Y_RICH = regressor(*RICH)
BASE = selection(Y_RICH.reshape(-1, Y_RICH.shape[-1]))


@dataclass(frozen=True)
class Arrays:
    """A record whose regressor is already computed: its rows stand in for q (the index)."""

    Y: np.ndarray
    tau: np.ndarray

    @property
    def q(self) -> np.ndarray:
        return self.Y

    dq = ddq = q

    @staticmethod
    def regressor(q: np.ndarray, dq: np.ndarray, ddq: np.ndarray) -> np.ndarray:
        return q


def problem(Y: np.ndarray, tau: np.ndarray, theta_urdf: np.ndarray | None = None) -> Problem:
    """The estimators' problem on one record (100 Hz) held in memory, compressed in 5 time
    blocks as the workflow streams its records (:func:`paramid.robot.compression.
    compress_records`)."""
    data = compression.compress_records([Arrays(Y, tau)], Arrays.regressor, 5, 0)

    def rows() -> tuple[np.ndarray, np.ndarray]:
        return Y.reshape(-1, Y.shape[-1])[:, BASE.independent], tau.reshape(-1)

    return Problem(
        data,
        Y.shape[1],
        [STD_NAMES[i] for i in BASE.independent],
        BASE,
        rows=rows,
        theta_urdf=truth() if theta_urdf is None else theta_urdf,
        links={f"link{i}": slice(10 * i, 10 * i + 10) for i in range(N_JOINTS)},
        nonnegative=np.arange(10 * N_JOINTS, 12 * N_JOINTS),
        sample_rate_hz=100.0,
        study="robot-test",
        standard_names=STD_NAMES,
    )


def noisy(Y: np.ndarray, seed: int) -> np.ndarray:
    """Torques of the true parameters with independent Gaussian noise of std NOISE per joint."""
    rng = np.random.default_rng(seed)
    return Y @ truth() + NOISE * rng.standard_normal(Y.shape[:2])


@pytest.fixture(scope="module")
def rich() -> Problem:
    return problem(Y_RICH, noisy(Y_RICH, 0))


def test_fixture_regressor_matches_rnea():
    q, dq, ddq = (x[:5] for x in RICH)
    tau = np.stack(
        [pin.rnea(MODEL, MODEL.createData(), *row) for row in zip(q, dq, ddq, strict=True)]
    )
    friction = FV * dq + FC * np.sign(dq)
    np.testing.assert_allclose(regressor(q, dq, ddq) @ truth(), tau + friction, atol=1e-10)
    assert 0 < BASE.independent.size < 12 * N_JOINTS


def test_ols_equals_lstsq(rich: Problem):
    fit = ESTIMATORS["ols"].fit(rich, {})
    expected = np.linalg.lstsq(rich.W, rich.y, rcond=None)[0]
    np.testing.assert_allclose(fit.base, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    # sqrt(σ̂² diag (WᵀW)⁻¹), σ̂² = ‖r‖² / (M − r), from the stacked rows
    residual = rich.y - rich.W @ expected
    sigma2 = residual @ residual / (rich.W.shape[0] - rich.W.shape[1])
    covariance = sigma2 * np.linalg.inv(rich.W.T @ rich.W)
    np.testing.assert_allclose(fit.stderr, np.sqrt(np.diag(covariance)), rtol=1e-7)


def test_wls_equals_explicit_weighted_solve(rich: Problem):
    beta_ols = np.linalg.lstsq(rich.W, rich.y, rcond=None)[0]
    r = (rich.y - rich.W @ beta_ols).reshape(-1, N_JOINTS)
    variances = np.sum(r**2, axis=0) / (r.shape[0] - rich.W.shape[1] / N_JOINTS)
    root = np.tile(1 / np.sqrt(variances), r.shape[0])
    expected = np.linalg.lstsq(rich.W * root[:, None], rich.y * root, rcond=None)[0]
    fit = ESTIMATORS["wls"].fit(rich, {})
    np.testing.assert_allclose(fit.base, expected, rtol=1e-9, atol=1e-9 * np.abs(expected).max())
    Ww = rich.W * root[:, None]
    np.testing.assert_allclose(fit.stderr, np.sqrt(np.diag(np.linalg.inv(Ww.T @ Ww))), rtol=1e-8)
    # the per-joint noise levels are recovered
    np.testing.assert_allclose(np.sqrt(variances), NOISE, rtol=0.1)


def test_wls_intervals_cover_truth():
    true_base = estimators.to_base(truth(), BASE)
    covered = []
    for seed in range(20):
        fit = ESTIMATORS["wls"].fit(problem(Y_RICH, noisy(Y_RICH, 100 + seed)), {})
        covered.append(np.abs(fit.base - true_base) <= 1.96 * fit.stderr)
    rate = np.mean(covered)
    assert rate >= 0.9, rate
    assert rate <= 0.99, rate  # the intervals are not vacuously wide


def test_lmi_without_regularisation_recovers_base_parameters():
    exact = problem(Y_RICH, Y_RICH @ truth(), theta_urdf=np.zeros(12 * N_JOINTS))
    fit = ESTIMATORS["lmi"].fit(exact, {**LMI, "weight": 0.0})
    true_base = estimators.to_base(truth(), BASE)
    np.testing.assert_allclose(fit.base, true_base, rtol=0, atol=1e-6 * np.abs(true_base).max())
    assert min(inconsistencies(fit.standard)) >= -1e-9


def poorly_excited() -> Problem:
    """A short, slow record with noise: friction and several inertial directions are barely
    excited, so OLS is free to leave the physical set."""
    weak = fourier(3.0, 100.0, 0.15, seed=7)
    Y = regressor(*weak)
    return problem(Y, noisy(Y, 3))


def inconsistencies(theta: np.ndarray) -> tuple[float, float]:
    """Smallest pseudo-inertia eigenvalue over links and smallest friction coefficient."""
    eig = consistency.smallest_eigenvalue(theta[: 10 * N_JOINTS].reshape(-1, 10))
    return float(eig.min()), float(theta[10 * N_JOINTS :].min())


def test_lmi_is_consistent_where_ols_is_not():
    weak = poorly_excited()
    ols = ESTIMATORS["ols"].fit(weak, {})
    completed = estimators.standard_completion(ols.base, BASE, truth())
    np.testing.assert_allclose(estimators.to_base(completed, BASE), ols.base, atol=1e-10)
    np.testing.assert_array_equal(completed[BASE.dependent], truth()[BASE.dependent])
    assert min(inconsistencies(completed)) < -1e-3  # OLS leaves the physical set here
    lmi = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 0.0})
    eig, friction = inconsistencies(lmi.standard)
    assert eig >= -1e-9 and friction >= -1e-9
    report = consistency.link_report(lmi.standard, weak.links)
    assert [r.link for r in report] == list(weak.links) and all(r.consistent for r in report)


def test_an_unsettled_unregularised_solve_breaks_ties_without_moving_the_fit(monkeypatch):
    """λ = 0 leaves the standard parameters a set of minimisers; where Clarabel cannot settle
    (NumericalError, seen on real records) the solve is repeated at λ = TIE_BREAK: its fit to
    the data equals the λ = 0 optimum where that one solves, and the fit's notes say so."""
    from paramid.robot import priors

    weak = poorly_excited()
    free = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 0.0})
    broken = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": priors.TIE_BREAK})
    assert free.solver.tie_break == 0.0 and broken.solver.status == "Solved"
    residual = [estimators.joint_residuals(weak, f.base).sum() for f in (free, broken)]
    np.testing.assert_allclose(residual[1], residual[0], rtol=1e-6)
    solve = priors.ConsistentLS._solve
    never = priors.Solution(None, "NumericalError", 40, 1e-10, 1e-3, 0.1)

    def failing_at_zero(self, R, c, rows, weight):
        if weight == 0:
            return never
        return solve(self, R, c, rows, weight)

    monkeypatch.setattr(priors.ConsistentLS, "_solve", failing_at_zero)
    repaired = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 0.0})
    assert repaired.solver.tie_break == priors.TIE_BREAK and repaired.solver.optimal
    np.testing.assert_array_equal(repaired.standard, broken.standard)
    assert "ties broken" in repaired.notes[0]
    # a solve that fails at a positive weight stops with one message, no traceback
    monkeypatch.setattr(priors.ConsistentLS, "_solve", lambda *args: never)
    with pytest.raises(UserError, match=r"lmi\) at weight 1 was not solved \(Clarabel: Numer"):
        ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 1.0})


def test_lmi_weight_pulls_towards_the_urdf():
    weak = poorly_excited()
    inertial = slice(0, 10 * N_JOINTS)  # friction has no URDF value and is never pulled
    free = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 0.0}).standard[inertial]
    pulled = ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": 1e5}).standard[inertial]
    prior = weak.theta_urdf[inertial]
    assert np.linalg.norm(pulled - prior) < 0.1 * np.linalg.norm(free - prior)
    with pytest.raises(ValueError, match="weight"):
        ESTIMATORS["lmi"].fit(weak, {**LMI, "weight": -1.0})


def test_urdf_row_is_the_prior(rich: Problem):
    fit = ESTIMATORS["urdf"].fit(rich, {})
    np.testing.assert_array_equal(fit.standard, rich.theta_urdf)
    np.testing.assert_allclose(rich.W @ fit.base, Y_RICH.reshape(-1, 12 * N_JOINTS) @ truth())


def test_bcls_stays_inside_the_rls_box(rich: Problem):
    fit = ESTIMATORS["bcls"].fit(rich, POPULATION)
    assert fit.lower is not None and fit.upper is not None
    assert np.all(fit.base >= fit.lower - 1e-12) and np.all(fit.base <= fit.upper + 1e-12)
    box, _ = estimators.rls_box(rich, POPULATION)
    np.testing.assert_array_equal(fit.lower, box.lower)
    # the box's optimum: the peer (scipy's trust-region reflective solver) and the KKT
    # conditions, gradient ≈ 0 off the bounds and pointing out of the box on them
    peer = scipy.optimize.lsq_linear(
        rich.W, rich.y, bounds=(fit.lower, fit.upper), method="trf", tol=1e-12
    ).x
    cost = [np.sum((rich.y - rich.W @ x) ** 2) for x in (fit.base, peer)]
    assert cost[0] <= cost[1] * (1 + 1e-9)
    gradient = rich.W.T @ (rich.W @ fit.base - rich.y)
    span = fit.upper - fit.lower
    at_lower, at_upper = fit.base - fit.lower < 1e-9 * span, fit.upper - fit.base < 1e-9 * span
    scale = np.linalg.norm(rich.W, axis=0) * np.linalg.norm(rich.y)
    inside = ~(at_lower | at_upper)
    assert np.all(np.abs(gradient[inside]) <= 1e-6 * scale[inside])
    assert np.all(gradient[at_lower] >= -1e-6 * scale[at_lower])
    assert np.all(gradient[at_upper] <= 1e-6 * scale[at_upper])


def test_friction_gamma_is_eq_10_on_the_coulomb_columns(rich: Problem):
    """γ = max |Coulomb torque| / (max |τ| + ε) from the base columns of Coulomb friction (one
    per joint: no other parameter shares them)."""
    columns = [i for i, name in enumerate(rich.names) if name.startswith("fc_")]
    assert len(columns) == N_JOINTS
    beta = estimators.to_base(truth(), BASE)
    coulomb = rich.W[:, columns] @ beta[columns]
    np.testing.assert_allclose(coulomb.reshape(-1, N_JOINTS), FC * np.sign(RICH[1]), atol=1e-12)
    expected = np.abs(coulomb).max() / (np.abs(rich.y).max() + 1e-9)
    assert estimators.friction_gamma(rich, beta, 1e-9) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("method", list(ESTIMATORS))
def test_registry_says_which_methods_read_the_rows(method: str):
    """The workflow feeds the signals only to a method whose entry says it reads the rows, and
    the seeded runs only to a population method: each entry's flags match what its fit does."""
    asked = []
    base = problem(Y_RICH, noisy(Y_RICH, 0))

    def rows() -> tuple[np.ndarray, np.ndarray]:
        asked.append(True)
        return base.W, base.y

    small = {**POPULATION, "runs": 2, "population": 5, "iterations": 3}
    settings = {**LMI, "weight": 0.0} if method == "lmi" else small
    fit = ESTIMATORS[method].fit(dataclasses.replace(base, rows=rows), settings)
    assert bool(asked) == ESTIMATORS[method].needs_rows
    assert (fit.runs is not None) == ESTIMATORS[method].population


@pytest.mark.parametrize("method", ["rls_pso", "rls_agwo"])
def test_population_methods_approach_ols(rich: Problem, method: str):
    fit = ESTIMATORS[method].fit(rich, POPULATION)
    ols = ESTIMATORS["ols"].fit(rich, {}).base
    rmse_ols = np.sqrt(np.mean((rich.y - rich.W @ ols) ** 2))
    assert fit.runs is not None and fit.runs.shape == (30, rich.W.shape[1])
    assert fit.run_rmse is not None and fit.run_rmse.min() >= rmse_ols * (1 - 1e-12)
    assert fit.run_rmse.min() <= 1.01 * rmse_ols, (fit.run_rmse.min(), rmse_ols)
    best = int(np.argmin(fit.run_rmse))  # the fit is the run with the lowest training RMSE
    np.testing.assert_array_equal(fit.base, fit.runs[best])
    again = ESTIMATORS[method].fit(rich, POPULATION)
    np.testing.assert_array_equal(again.runs, fit.runs)  # seeded by (study, method, run)


def test_rank_deficient_data_names_the_parameters(rich: Problem):
    R = rich.data.R.copy()
    R[..., rich.base.independent[1]] = 2 * R[..., rich.base.independent[0]]
    bad = dataclasses.replace(rich, data=dataclasses.replace(rich.data, R=R))
    with pytest.raises(ValueError, match=rich.names[1]):
        ESTIMATORS["ols"].fit(bad, {})


def test_compression_preserves_the_objective():
    rng = np.random.default_rng(0)
    Y, y, theta = rng.standard_normal((1000, 8)), rng.standard_normal(1000), rng.standard_normal(8)
    factor = np.zeros((0, 9))
    for start in range(0, 1000, 300):  # folded in chunks, as a long record is
        factor = compression.fold(
            factor, np.column_stack([Y[start : start + 300], y[start : start + 300]])
        )
    R, c, rho2 = factor[:8, :8], factor[:8, 8], factor[8, 8] ** 2
    direct = np.sum((Y @ theta - y) ** 2)
    np.testing.assert_allclose(np.sum((R @ theta - c) ** 2) + rho2, direct, rtol=1e-12)


def test_pseudo_inertia_of_known_bodies():
    # a point mass m at c: J = m [c; 1][c; 1]ᵀ (rank 1, smallest eigenvalue 0)
    m, c = 2.0, np.array([0.1, -0.2, 0.3])
    inertia = pin.Inertia(m, c, np.zeros((3, 3)))
    J = consistency.pseudo_inertia(inertia.toDynamicParameters())
    np.testing.assert_allclose(J, m * np.outer([*c, 1], [*c, 1]), atol=1e-15)
    assert abs(consistency.smallest_eigenvalue(inertia.toDynamicParameters())) < 1e-12
    # a solid box with half-sizes a, b, d about its centre: Σ = m diag(a², b², d²)/3
    a, b, d = 0.3, 0.2, 0.1
    box = pin.Inertia.FromBox(m, 2 * a, 2 * b, 2 * d)
    J = consistency.pseudo_inertia(box.toDynamicParameters())
    np.testing.assert_allclose(J[:3, :3], m * np.diag([a * a, b * b, d * d]) / 3, atol=1e-15)
    # positive-definite I violating the triangle inequality Ixx <= Iyy + Izz is inconsistent
    bad = np.array([1.0, 0, 0, 0, 3.0, 0, 1.0, 0, 0, 1.0])
    assert np.all(np.linalg.eigvalsh(np.diag([3.0, 1.0, 1.0])) > 0)
    assert consistency.smallest_eigenvalue(bad) < 0


def payload() -> np.ndarray:
    """Standard parameters of a 1.5 kg point mass 0.1 m along the last link's z axis (a gripper
    the URDF lacks)."""
    return pin.Inertia(1.5, np.array([0.0, 0.0, 0.1]), np.zeros((3, 3))).toDynamicParameters()


@pytest.mark.parametrize("metric", ["robot", "logdet"])
def test_free_link_takes_a_payload_the_urdf_lacks(metric: str):
    carried = truth()
    carried[50:60] += payload()
    rng = np.random.default_rng(5)
    tau = Y_RICH @ carried + NOISE * rng.standard_normal(Y_RICH.shape[:2])
    arm = problem(Y_RICH, tau)  # its prior: the URDF without the payload
    settings = {**LMI, "weight": 1e4, "metric": metric}
    pulled = ESTIMATORS["lmi"].fit(arm, settings)
    freed = ESTIMATORS["lmi"].fit(arm, {**settings, "free_links": ["link5"]})
    true_base = estimators.to_base(carried, BASE)
    error = {
        name: np.linalg.norm(fit.base - true_base) / np.linalg.norm(true_base)
        for name, fit in (("pulled", pulled), ("freed", freed))
    }
    assert error["freed"] < 0.2 * error["pulled"], error
    assert error["freed"] < 0.01, error
    # the links without the load stay at the URDF; the last link carries the 1.5 kg
    urdf = arm.theta_urdf[:50]
    assert np.linalg.norm(freed.standard[:50] - urdf) < 0.01 * np.linalg.norm(urdf)
    assert freed.standard[50] == pytest.approx(carried[50], rel=0.02)
    assert min(inconsistencies(freed.standard)) >= -1e-9
    assert freed.solver is not None and freed.solver.optimal


@pytest.mark.parametrize(
    ("free_links", "message"),
    [
        # the first link: few of its parameters reach the base set; the links that can be
        # freed alone are named
        (["link0"], r"combinations.*freed alone: \['link3', 'link4', 'link5'\]"),
        (["link4", "link5"], "combinations"),  # adjacent links lump into each other
        (["gripper"], "not moving links"),
        ([f"link{i}" for i in range(N_JOINTS)], "every moving link"),
    ],
)
def test_free_links_that_leave_the_fit_undetermined_are_refused(free_links, message):
    arm = problem(Y_RICH, noisy(Y_RICH, 0))
    with pytest.raises(ValueError, match=f"free_links.*{message}"):
        ESTIMATORS["lmi"].fit(arm, {**LMI, "weight": 1.0, "free_links": free_links})


def test_the_prior_is_averaged_over_the_pulled_links_parameters_only():
    """min |R θ - c|² / rows + λ |z_pulled|² / (10 pulled links) with θ = θ0 + z: with the LMI
    inactive (a body well inside the cone, data near it) it is the ridge solution, the prior
    divided by the 10 parameters of the one pulled link, not by the 20 of both."""
    body = np.array([1.0, 0.05, 0, 0, 0.2, 0, 0.2, 0, 0, 0.2])
    theta0 = np.concatenate([body, 1.5 * body])
    links = {"a": slice(0, 10), "b": slice(10, 20)}
    solver = priors.ConsistentLS(
        theta0, links, np.zeros(0, np.intp), np.ones(20), "euclid", free_links=("b",)
    )
    rng = np.random.default_rng(0)
    R = rng.normal(size=(20, 20))
    c = R @ (theta0 + 1e-3 * rng.normal(size=20))
    rows, weight = 100, 50.0
    theta = solver.solve(R, c, rows, weight).theta
    A, b = R / np.sqrt(rows), (c - R @ theta0) / np.sqrt(rows)
    pulled = np.diag(np.r_[np.ones(10), np.zeros(10)])
    ridge = np.linalg.solve(A.T @ A + weight / 10 * pulled, A.T @ b)
    np.testing.assert_allclose(theta, theta0 + ridge, atol=1e-6)


def test_the_robot_metrics_scales_and_the_logdet_priors_bodies():
    """L sums the joint placements after the first; the scales are the mean link mass M̄ times
    1, L, L² by parameter kind; the logdet prior refuses a pulled point mass (no rotational
    inertia: its pseudo-inertia is singular) by name and accepts a body with one."""
    from paramid.robot import priors

    placements = np.array([[0.0, 0.0, 0.3], [0.0, 0.0, 0.4], [0.3, 0.0, 0.0]])
    assert priors.arm_length(placements) == pytest.approx(0.7)
    assert priors.arm_length(np.zeros((3, 3))) == 0.1  # the floor
    theta0 = np.zeros(20)
    theta0[0], theta0[10] = 2.0, 4.0
    links = {"a": slice(0, 10), "b": slice(10, 20)}
    one = 3.0 * np.array([1.0, 2.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0])
    np.testing.assert_allclose(priors.robot_scales(theta0, links, 2.0), np.tile(one, 2))
    theta0[[4, 6, 9]] = 0.1  # link a: a body; link b: a point mass of 4 kg
    with pytest.raises(UserError, match=r"\['b'\] have no mass or no rotational inertia"):
        priors.check_logdet_prior(theta0, links)
    priors.check_logdet_prior(theta0, {"a": links["a"]})
