"""Excitation design (issue #7): Fourier series, rest conditions, limits, design, averaging."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from paramid import signals, simulation
from paramid.excitation.design import (
    Design,
    DesignError,
    RestProblem,
    criterion_value,
    design,
    design_from_config,
    neg_log_det,
    repair,
)
from paramid.excitation.fourier import (
    LIMIT_NAMES,
    FourierTrajectory,
    JointLimits,
    between_samples,
    boundary_matrix,
    bounded_violation,
    fourier_basis,
    grid,
    limit_violation,
    period_frame,
    reached_limits,
    rest_basis,
)
from paramid.hip import model, twin
from paramid.hip.excitation import (
    HipSetup,
    Variant,
    compare_design,
    compare_hip,
    design_inputs,
    hip_regressor,
    setup_of,
    simulate_periods,
    slow_shares,
    summarise,
)

KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]
NAMES = ["Mxt", "Myt", "Jt", "fc", "fv"]
PERIOD = 5.0
OMEGA = 2 * np.pi / PERIOD


def _random_trajectory(joints: int = 3, order: int = 5, seed: int = 0) -> FourierTrajectory:
    rng = np.random.default_rng(seed)
    return FourierTrajectory(
        rng.normal(size=joints),
        rng.normal(size=(joints, order)),
        rng.normal(size=(joints, order)),
        OMEGA,
    )


@pytest.fixture(scope="module")
def eq18(request) -> simulation.Trajectory:
    return simulation.Trajectory(
        60.0, (simulation.HarmonicTerm("sin", 30.0, 0.5), simulation.HarmonicTerm("cos", 15.0, 1.0))
    )


@pytest.fixture(scope="module")
def eq18_limits(eq18) -> JointLimits:
    return reached_limits(eq18, np.arange(50_000) / 1e4)


@pytest.fixture(scope="module")
def hip_design(eq18_limits) -> Design:
    """A small design (coarse grid, two starts): seconds, not the workflow's full search."""
    return design(
        hip_regressor(KEYS, 9.81),
        eq18_limits,
        order=5,
        omega_f=OMEGA,
        grid_points=100,
        starts=2,
        seed_keys=("test", "hip"),
    )


def test_eq18_limits_are_what_the_paper_trajectory_reaches(eq18_limits):
    np.testing.assert_allclose(np.rad2deg(eq18_limits.q_min), 15.0, atol=1e-6)
    np.testing.assert_allclose(np.rad2deg(eq18_limits.q_max), 82.5, atol=1e-6)
    assert np.rad2deg(eq18_limits.qd_max[0]) == pytest.approx(165.89, abs=0.01)
    assert np.rad2deg(eq18_limits.qdd_max[0]) == pytest.approx(888.26, abs=0.01)


def test_fourier_series_matches_eq8_term_by_term():
    traj = _random_trajectory(joints=2, order=3)
    t = np.linspace(0, 7, 50)
    q, _, _ = traj.evaluate(t)
    for j in range(2):
        expected = traj.q0[j] + sum(
            traj.a[j, k] / (OMEGA * (k + 1)) * np.sin(OMEGA * (k + 1) * t)
            - traj.b[j, k] / (OMEGA * (k + 1)) * np.cos(OMEGA * (k + 1) * t)
            for k in range(3)
        )
        np.testing.assert_allclose(q[:, j], expected, atol=1e-12)
    assert traj.theta.shape == (7, 2)  # 2n + 1 coefficients per joint


def test_analytic_derivatives_equal_finite_differences():
    traj = _random_trajectory()
    t = np.linspace(0, PERIOD, 20_001)
    h = t[1] - t[0]
    q, qd, qdd = traj.evaluate(t)
    np.testing.assert_allclose(np.gradient(q, h, axis=0)[1:-1], qd[1:-1], atol=1e-6)
    np.testing.assert_allclose(np.gradient(qd, h, axis=0)[1:-1], qdd[1:-1], atol=1e-5)


def test_single_joint_evaluate_has_the_twin_shape_and_is_periodic():
    traj = _random_trajectory(joints=1)
    t = np.linspace(0, 1, 11)
    assert all(x.shape == (11,) for x in traj.evaluate(t))
    assert isinstance(traj, simulation.Evaluable)
    for a, b in zip(traj.evaluate(t), traj.evaluate(t + traj.period), strict=True):
        np.testing.assert_allclose(a, b, atol=1e-9)
    again = FourierTrajectory.from_dict(traj.to_dict())
    np.testing.assert_array_equal(again.theta, traj.theta)


def test_rest_basis_satisfies_the_boundary_conditions_of_eq9():
    Z = rest_basis(5)
    assert Z.shape == (11, 9)
    np.testing.assert_allclose(Z.T @ Z, np.eye(9), atol=1e-12)
    np.testing.assert_allclose(boundary_matrix(5) @ Z, 0.0, atol=1e-12)
    theta = Z @ np.random.default_rng(1).normal(size=(9, 2))
    traj = FourierTrajectory.from_theta(theta, OMEGA)
    _, qd, qdd = traj.evaluate(np.array([0.0, traj.period]))
    np.testing.assert_allclose(qd, 0.0, atol=1e-12)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-12)


def test_a_rest_is_exactly_zero_at_the_period_boundaries_as_designed_or_as_stored():
    """A rest trajectory's q̇ and q̈ at kT are exactly 0, for its coefficients and for a copy
    rounded as a file stores them (1e-11 off): both have the same Coulomb column sgn q̇ there
    (it took the sign of the rounding, +1 for one and -1 for the other, and one design scored
    two condition numbers); a joint that does not rest keeps its q̇(0), and instants between
    keep their values."""
    rng = np.random.default_rng(3)
    theta = rest_basis(5) @ rng.normal(size=(9, 2))
    theta[1, 1] += 0.3  # joint 2: q̇(0) = 0.3, no rest
    traj = FourierTrajectory.from_theta(theta, OMEGA)
    stored = FourierTrajectory.from_theta(theta * (1 + 1e-11 * rng.normal(size=theta.shape)), OMEGA)
    t = np.array([0.0, traj.period / 3, traj.period, 2 * traj.period])
    for each in (traj, stored):
        _, qd, qdd = each.evaluate(t)
        assert np.all(qd[[0, 2, 3], 0] == 0.0) and np.all(qdd[[0, 2, 3], 0] == 0.0)
        np.testing.assert_allclose(qd[[0, 2, 3], 1], 0.3, rtol=1e-9)
        assert np.all(np.sign(qd[1]) != 0)
    plain = [p @ theta for p in fourier_basis(t[1:2], OMEGA, 5)]
    np.testing.assert_array_equal(traj.evaluate(t[1:2])[1], plain[1])


def test_designed_trajectory_rests_at_both_ends(hip_design):
    traj = hip_design.trajectory
    _, qd, qdd = traj.evaluate(np.array([0.0, traj.period]))
    np.testing.assert_allclose(qd, 0.0, atol=1e-10)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-10)
    assert hip_design.boundary_residual < 1e-10


def test_designed_trajectory_keeps_its_limits_on_a_ten_times_finer_grid(hip_design, eq18_limits):
    fine = grid(PERIOD, 10 * hip_design.grid_points)
    violation = limit_violation(hip_design.trajectory, eq18_limits, fine)
    assert max(violation.values()) <= 0.0, violation
    assert max(hip_design.fine_violation.values()) <= 0.0
    # and, denser still, within a hair of them (the margin absorbs what lies between samples)
    denser = limit_violation(hip_design.trajectory, eq18_limits, grid(PERIOD, 20_000))
    assert max(denser.values()) <= 1e-6


def test_designed_hip_has_lower_cond_than_eq18_under_the_same_limits(hip_design, eq18):
    t = grid(PERIOD, hip_design.grid_points)
    fn = hip_regressor(KEYS, 9.81)
    cond_eq18 = criterion_value(fn(*eq18.evaluate(t), 0.0), "cond")
    assert cond_eq18 == pytest.approx(17.0, abs=0.1)
    assert hip_design.cond < cond_eq18
    # exact sgn is what is reported; the surrogate is only the optimiser's view
    q, qd, qdd = hip_design.trajectory.evaluate(t)
    assert hip_design.cond == pytest.approx(criterion_value(fn(q, qd, qdd, 0.0), "cond"))


def test_design_reports_active_constraints(hip_design):
    active = hip_design.active_constraints
    assert active[-1].startswith("rest_at_ends")
    assert {c["limit"] for c in hip_design.active} == set(LIMIT_NAMES)
    binding = [c for c in hip_design.active if c["active"]]
    assert binding, "an optimal excitation presses against at least one limit"
    for c in binding:
        assert c["relative_slack"] <= hip_design.margin + 1e-3


def test_d_optimal_criterion_is_minus_log_det(eq18_limits, eq18):
    fn = hip_regressor(KEYS, 9.81)
    d = design(
        fn,
        eq18_limits,
        order=3,
        omega_f=OMEGA,
        grid_points=60,
        starts=1,
        criterion="dopt",
        sign_smoothing=[0.05],
        seed_keys=("test", "dopt"),
    )
    H = fn(*d.trajectory.evaluate(grid(PERIOD, 60)), 0.0)
    assert d.value == pytest.approx(neg_log_det(H))
    assert d.value == pytest.approx(-np.log(np.linalg.det(H.T @ H / 60)), rel=1e-6)
    assert max(d.fine_violation.values()) <= 0.0


def test_design_is_reproducible_from_its_seed_keys(eq18_limits):
    kwargs = dict(order=2, omega_f=OMEGA, grid_points=40, starts=1, sign_smoothing=[0.1])
    fn = hip_regressor(KEYS, 9.81)
    a = design(fn, eq18_limits, seed_keys=("same",), **kwargs)
    b = design(fn, eq18_limits, seed_keys=("same",), **kwargs)
    np.testing.assert_array_equal(a.trajectory.theta, b.trajectory.theta)


def test_fine_grid_repair_shrinks_an_infeasible_design_into_its_limits():
    limits = JointLimits([-0.5], [0.5], [1.0], [2.0])
    theta = rest_basis(3) @ np.array([[0.3], [2.0], [-1.0], [1.5], [0.5]])
    phi = fourier_basis(grid(PERIOD, 1000), OMEGA, 3)
    repaired, shrink = repair(theta, limits, phi, OMEGA)
    assert 0 < shrink < 1
    traj = FourierTrajectory.from_theta(repaired, OMEGA)
    assert max(limit_violation(traj, limits, grid(PERIOD, 1000)).values()) <= 0.0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("points", [12, 40, 400])
def test_the_bound_between_samples_holds_and_is_needed_on_coarse_grids(seed, points):
    """Each sampled extreme widened by between_samples bounds the continuous one (a 200 000
    point grid as the reference); on a coarse grid the samples alone miss part of it."""
    traj = _random_trajectory(joints=3, order=5, seed=seed)
    coarse, dense = grid(PERIOD, points), grid(PERIOD, 200_000)
    widths = between_samples(traj.theta, OMEGA, PERIOD / points)
    for sampled, true, width in zip(
        traj.evaluate_joints(coarse), traj.evaluate_joints(dense), widths, strict=True
    ):
        assert np.all(true.max(axis=0) <= sampled.max(axis=0) + width + 1e-12)
        assert np.all(true.min(axis=0) >= sampled.min(axis=0) - width - 1e-12)
    if points == 12:  # five harmonics on 12 samples: the samples miss the peaks
        missed = traj.evaluate_joints(dense)[1].max(axis=0) - traj.evaluate_joints(coarse)[1].max(
            axis=0
        )
        assert np.any(missed > 1e-3)


def test_a_design_on_a_coarse_check_grid_meets_its_limits_between_samples(eq18_limits):
    """grid_points 20 and fine_factor 1 (the schema's minimum): the design was checked at its
    own 20 instants only and passed q̇_max by 6 % and the angle range by 0.04 rad between them;
    now it meets every limit over the whole period."""
    d = design(
        hip_regressor(KEYS, 9.81),
        eq18_limits,
        order=5,
        omega_f=OMEGA,
        grid_points=20,
        fine_factor=1,
        starts=2,
        seed_keys=("test", "coarse"),
    )
    dense = limit_violation(d.trajectory, eq18_limits, grid(PERIOD, 200_000))
    assert max(dense.values()) <= 0.0, dense
    assert max(d.fine_violation.values()) <= 0.0
    assert d.fine_violation["qd_max"] >= dense["qd_max"]  # the bound is an upper bound


def test_limits_that_leave_no_identifiable_motion_stop_the_design(eq18_limits):
    """Two columns that only a tiny acceleration tells apart: the best design's regressor is
    numerically rank-deficient, and the design stops naming the binding limits instead of
    returning it (cond 8e14 was written as a design and compared)."""

    def nearly_dependent(q, qd, qdd, smoothing):
        return np.stack([qd, qd + 1e-10 * qdd, np.sin(q)], axis=-1).reshape(-1, 3)

    with pytest.raises(DesignError, match=r"rank-deficient \(condition number .* binding: "):
        design(
            nearly_dependent,
            eq18_limits,
            order=3,
            omega_f=OMEGA,
            grid_points=40,
            starts=1,
            sign_smoothing=[0.1],
            seed_keys=("test", "rank"),
        )

    def dependent(q, qd, qdd, smoothing):
        return np.stack([qd, 2 * qd], axis=-1).reshape(-1, 2)

    with pytest.raises(DesignError, match="rank-deficient"):
        design(dependent, eq18_limits, order=3, omega_f=OMEGA, grid_points=40, starts=1)


# ---------------------------------------------------------------------------- twin, averaging


def test_twin_follows_a_fourier_trajectory(hip):
    settings = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, NAMES)
    traj = _random_trajectory(joints=1)
    rec = simulate_periods(traj, PERIOD, 3, settings, 0, "calibration")
    assert rec.time.size == 1500
    smooth = dataclasses.replace(settings, ripple_rms_rad=0.0)
    rec = simulate_periods(traj, PERIOD, 1, smooth, 0, "calibration")
    np.testing.assert_allclose(rec.angle_true, traj.evaluate(rec.time)[0], atol=1e-15)


def test_average_periods_reduces_noise_by_sqrt_p():
    rng = np.random.default_rng(3)
    clean = np.sin(2 * np.pi * np.arange(500) / 500)
    noisy = np.tile(clean, 16) + rng.normal(scale=0.1, size=16 * 500)
    avg = signals.average_periods(noisy, 16)
    np.testing.assert_allclose(np.std(avg - clean), 0.1 / 4, rtol=0.1)
    with pytest.raises(ValueError, match="equal periods"):
        signals.average_periods(noisy[:-1], 16)


def test_process_averaged_without_averaging_is_the_hip_chain(hip):
    settings = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, NAMES)
    recs = [simulate_periods(_random_trajectory(1), PERIOD, 1, settings, s, "c") for s in (0, 1)]
    kw = dict(cutoff_hz=15.0, order=4, trim_s=0.2)
    batch = signals.process_averaged(
        recs[0].time,
        np.stack([r.angle for r in recs]),
        np.stack([r.torque for r in recs]),
        periods=1,
        periodic=False,
        **kw,
    )
    for i, r in enumerate(recs):
        one = signals.process(r.time, r.angle, r.torque, **kw)
        for field in ("q", "qd", "qdd", "torque"):
            np.testing.assert_allclose(getattr(batch, field)[i], getattr(one, field), atol=1e-12)


def test_periodic_processing_of_an_averaged_period_is_exact_for_the_series():
    traj = _random_trajectory(joints=1, order=3)
    t = np.arange(4 * 500) / 100.0
    q, qd, qdd = traj.evaluate(t)
    out = signals.process_averaged(
        t, q, np.zeros_like(q), periods=4, cutoff_hz=15.0, order=4, trim_s=0.0
    )
    assert out.q.size == 500
    # a 1 Hz-limited series passes the 15 Hz filter; wrap-around differences: O(h^2) only
    np.testing.assert_allclose(out.q, q[:500], atol=1e-6)
    np.testing.assert_allclose(out.qd, qd[:500], atol=2e-3 * np.abs(qd).max())
    np.testing.assert_allclose(out.qdd, qdd[:500], atol=5e-3 * np.abs(qdd).max())


def test_comparison_recovers_x_true_on_a_noise_free_exact_sign_twin(hip, hip_design, eq18):
    settings = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, NAMES)
    clean = dataclasses.replace(
        settings,
        coulomb_smoothing_velocity=0.0,
        torque_noise_relative=0.0,
        torque_noise_nm=0.0,
        encoder_noise_rad=0.0,
        ripple_rms_rad=0.0,
    )
    setup = HipSetup(clean, tuple(KEYS), 15.0, 4, 0.2, hip["rls"], "ls")
    validation = simulation.Trajectory.from_config(hip["records"]["validation"]["trajectory"])
    variants = [
        Variant("paper_eq18", eq18, 5.005),  # the study's duration: any number of samples
        Variant("designed", hip_design.trajectory, PERIOD),
        Variant("designed_averaged", hip_design.trajectory, PERIOD, 2, True),
    ]
    per_seed = compare_hip(variants, validation, 7.0, setup, [0, 1])
    with pytest.raises(ValueError, match="not a whole number of samples"):  # averaged periods
        compare_hip([Variant("odd", eq18, 5.005, 2, True)], validation, 7.0, setup, [0])
    assert list(per_seed.trajectory.unique()) == [v.name for v in variants]
    designed = per_seed[per_seed.trajectory != "paper_eq18"]
    # 100 Hz differences and sgn at reversals leave ~1e-3; no noise, so seeds agree
    assert designed.param_error.max() < 5e-3
    table = summarise(per_seed, {v.name: 1.0 for v in variants})
    assert list(table.trajectory) == [v.name for v in variants]
    assert table.set_index("trajectory").loc["designed_averaged", "data_factor"] == 2


def test_the_comparison_tests_each_trajectory_against_the_first_paired_by_seed():
    """comparison.csv's p-values are scipy's paired Wilcoxon of the per-seed errors against
    Eq 18's (the first row), and *_wins counts the seeds a trajectory is better on."""
    import scipy.stats

    rng = np.random.default_rng(4)
    base = rng.uniform(0.1, 0.2, 12)
    per_seed = pd.DataFrame(
        {
            "trajectory": np.repeat(["paper_eq18", "designed"], 12),
            "seed": np.tile(np.arange(12), 2),
            "param_error": np.concatenate([base, base * rng.uniform(0.5, 0.9, 12)]),
            "val_rmse": np.concatenate([base, base + rng.normal(0, 0.01, 12)]),
            "val_rmse_true": 0.1,
            "train_rmse": 0.1,
            "cond_signals": 1.0,
            "periods": 1,
            "raw_samples": 500,
            "rows": 460,
        }
    )
    table = summarise(
        per_seed, {"paper_eq18": 2.0, "designed": 1.0}, {"paper_eq18": 0.04, "designed": 0.24}
    )
    row = table.set_index("trajectory").loc["designed"]
    assert row["param_error_wins"] == 12 and row["slow_share"] == 0.24
    want = scipy.stats.wilcoxon(per_seed.param_error[12:].to_numpy(), base).pvalue
    assert row["param_error_p"] == pytest.approx(want, rel=1e-12)
    first = table.set_index("trajectory").loc["paper_eq18"]
    assert np.isnan(first["val_rmse_p"]) and np.isnan(first["param_error_wins"])
    with pytest.raises(ValueError, match="designed: its seeds are not paper_eq18's"):
        summarise(per_seed[per_seed.seed != 3].iloc[1:], {"paper_eq18": 2.0, "designed": 1.0})


def test_slow_shares_measure_the_time_below_a_speed():
    """A 1 Hz sine of amplitude A spends arcsin(v / (2 pi A)) * 2 / pi of its period below
    speed v (|q̇| = 2 pi A |cos|)."""
    sine = simulation.Trajectory.from_config(
        {"offset_deg": 0.0, "terms": [{"fn": "sin", "amplitude_deg": 10.0, "frequency_hz": 1.0}]}
    )
    peak = 2 * np.pi * np.deg2rad(10.0)
    share = slow_shares([Variant("sine", sine, 1.0)], 0.3 * peak, points=200001)["sine"]
    assert share == pytest.approx(2 / np.pi * np.arcsin(0.3), abs=1e-4)
    assert slow_shares([Variant("sine", sine, 1.0)], 0.0) is None  # exact sgn: no such band


def test_period_frame_samples_one_period_of_every_joint():
    one = FourierTrajectory.from_dict(_random_trajectory(joints=1).to_dict())
    frame, units = period_frame(one, PERIOD, 20.0)
    assert list(frame.columns) == ["time", "q", "qd", "qdd"] and len(frame) == 100
    assert units == {"time": "s", "q": "rad", "qd": "rad/s", "qdd": "rad/s^2"}
    np.testing.assert_array_equal(frame["time"], np.arange(100) / 20.0)
    np.testing.assert_array_equal(frame["qd"], one.evaluate(np.arange(100) / 20.0)[1])
    three = _random_trajectory(joints=3)
    frame, units = period_frame(three, PERIOD, 10.0)
    assert list(frame.columns[:4]) == ["time", "q_1", "qd_1", "qdd_1"]
    assert list(frame.columns[-1:]) == ["qdd_3"] and set(units) == set(frame.columns)
    np.testing.assert_array_equal(
        frame["q_2"], three.evaluate_joints(frame["time"].to_numpy())[0][:, 1]
    )


def test_design_from_config_is_design_with_the_blocks_settings(eq18_limits):
    block = {
        "period_s": PERIOD,
        "order": 2,
        "grid_points": 40,
        "starts": 1,
        "criterion": "cond",
        "margin": 0.01,
        "sign_smoothing": [0.1],
        "maxiter": 50,
        "fine_factor": 5,
    }
    fn = hip_regressor(KEYS, 9.81)
    got = design_from_config(fn, eq18_limits, block, ("test", "config"))
    kwargs = {k: v for k, v in block.items() if k != "period_s"}
    want = design(fn, eq18_limits, omega_f=OMEGA, seed_keys=("test", "config"), **kwargs)
    np.testing.assert_array_equal(got.trajectory.theta, want.trajectory.theta)
    assert got.to_dict() == want.to_dict()


def test_design_json_carries_the_reference_last_where_the_study_has_one(hip_design):
    """design.json: the design's fields, then (hip: Eq 18's scores) the reference; a chain
    study has none and writes no ``reference`` key."""
    plain = hip_design.to_dict()
    assert "reference" not in plain and hip_design.to_dict(None) == plain
    reference = {"name": "paper (calibration record, Eq 18)", "cond": 12.5}
    scored = hip_design.to_dict(reference)
    assert list(scored) == [*plain, "reference"]
    assert scored["reference"] == reference and scored == plain | {"reference": reference}


def test_design_inputs_are_eq18s_limits_and_its_score_on_the_design_grid(hip):
    block = {"limits_from_record": "calibration", "period_s": PERIOD, "grid_points": 60}
    fn, limits, reference = design_inputs(hip, block)
    spec = hip["records"]["calibration"]
    eq18 = simulation.Trajectory.from_config(spec["trajectory"])
    dense = np.arange(int(round(spec["duration_s"] * 1e4))) / 1e4
    assert limits.to_dict() == reached_limits(eq18, dense).to_dict()
    H = hip_regressor(hip["regressor"], hip["gravity"])(*eq18.evaluate(grid(PERIOD, 60)), 0.0)
    np.testing.assert_array_equal(fn(*eq18.evaluate(grid(PERIOD, 60)), 0.0), H)
    assert reference == {
        "name": "paper (calibration record, Eq 18)",
        "cond": criterion_value(H, "cond"),
        "dopt": criterion_value(H, "dopt"),
        "limits_reached": limits.to_dict(),
    }


def test_compare_design_runs_the_comparison_on_each_plant(hip, hip_design):
    """Eq 18 vs the design (one period, two averaged) on the study's plant and a smoothed one:
    the per-seed rows are compare_hip's, the tables summarise them."""
    base = {k: hip[k] for k in ("twin", "gravity", "regressor", "records", "rls", "signals")}
    comparison = {
        "estimator": "ls",
        "periods": 2,
        "periodic_filter": True,
        "seeds": 2,
        "sensitivity_coulomb_smoothing": [0.05],
    }
    saved = {"trajectory": hip_design.trajectory.to_dict(), "cond": 3.0, "reference": {"cond": 9.0}}
    result = compare_design(base, comparison, saved)
    setup = setup_of(base, "ls")
    cal, val = hip["records"]["calibration"], hip["records"]["validation"]
    variants = [
        Variant(
            "paper_eq18", simulation.Trajectory.from_config(cal["trajectory"]), cal["duration_s"]
        ),
        Variant("designed", hip_design.trajectory, PERIOD),
        Variant("designed_averaged", hip_design.trajectory, PERIOD, 2, True),
    ]
    validation = simulation.Trajectory.from_config(val["trajectory"])
    seeds = [hip["twin"]["seed"], hip["twin"]["seed"] + 1]
    expected = compare_hip(variants, validation, val["duration_s"], setup, seeds)
    v_s = setup.settings.coulomb_smoothing_velocity
    expected.insert(2, "plant_coulomb_smoothing", v_s)
    pd.testing.assert_frame_equal(result.per_seed, expected)
    cond = {"paper_eq18": 9.0, "designed": 3.0, "designed_averaged": 3.0}
    slow = slow_shares(variants, v_s)
    pd.testing.assert_frame_equal(result.table, summarise(expected, cond, slow))
    sens = result.sensitivity
    assert list(sens["plant_coulomb_smoothing"]) == [v_s] * 3 + [0.05] * 3
    pd.testing.assert_frame_equal(
        sens.iloc[:3].drop(columns="plant_coulomb_smoothing"), result.table
    )
    assert set(result.units) == set(result.per_seed.columns)
    assert result.units["Jt"] == model.parameter_units(KEYS)["Jt"]


def test_excitation_config_validates_and_bad_values_are_rejected(repo_root):
    import copy

    import yaml
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate

    config = yaml.safe_load((repo_root / "config.yaml").read_text())
    schema = str(repo_root / "workflow/schemas/config.schema.yaml")
    validate(copy.deepcopy(config), schema)
    assert config["excitation"]["hip_designed"]["order"] == 5
    assert len(config["excitation"]["chain4"]["links"]) == 4
    bad = copy.deepcopy(config)
    bad["excitation"]["hip_designed"]["criterion"] = "aopt"
    with pytest.raises(WorkflowError, match="'aopt' is not one of"):
        validate(bad, schema)


# -- limits, starts and errors (from a mutation test) ----------------------------------------


def test_tightened_shrinks_every_limit_inward():
    t = JointLimits([0.0], [1.0], [2.0], [4.0]).tightened(0.1)
    np.testing.assert_allclose(
        [t.q_min[0], t.q_max[0], t.qd_max[0], t.qdd_max[0]], [0.1, 0.9, 1.8, 3.6]
    )


def test_reached_velocity_limit_is_the_largest_magnitude_even_when_negative():
    # q̇ = -cos(wt) - 0.5 cos(2wt): max q̇ = 0.75, min q̇ = -1.5
    traj = FourierTrajectory([0.0], [[-1.0, -0.5]], [[0.0, 0.0]], OMEGA)
    r = reached_limits(traj, grid(PERIOD, 1000))
    assert r.qd_max[0] == pytest.approx(1.5, rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_bounded_violation_bounds_every_dense_violation(seed):
    rng = np.random.default_rng(seed)
    traj = FourierTrajectory(
        rng.normal(size=2), rng.normal(size=(2, 5)), rng.normal(size=(2, 5)), OMEGA
    )
    dense = grid(PERIOD, 200_000)
    limits = reached_limits(traj, dense)  # the dense violation is 0 for every limit
    bound = bounded_violation(traj, limits, grid(PERIOD, 12))
    exact = limit_violation(traj, limits, dense)
    for name in exact:
        assert bound[name] >= exact[name] - 1e-12, name


def test_limits_of_different_lengths_are_refused():
    with pytest.raises(ValueError, match="one limit per joint"):
        JointLimits([0.0, 0.0], [1.0, 1.0], [2.0], [4.0, 4.0])


def test_from_degrees_gives_radians():
    lim = JointLimits.from_degrees(15.0, 82.5, 90.0, 300.0)
    np.testing.assert_allclose(
        [lim.q_min[0], lim.q_max[0], lim.qd_max[0], lim.qdd_max[0]],
        np.deg2rad([15.0, 82.5, 90.0, 300.0]),
    )


def test_limit_constraints_accept_a_feasible_point_and_reject_one_below_q_min():
    limits = JointLimits([0.2], [1.4], [3.0], [15.0])
    problem = RestProblem.on_grid(hip_regressor(KEYS, 9.81), "cond", grid(PERIOD, 50), OMEGA, 3, 1)
    (cons,) = problem.limit_constraints(limits)
    theta = np.zeros((7, 1))
    theta[0] = 0.8  # at rest mid-range: feasible
    z = problem.coordinates(theta)
    assert np.all(cons["fun"](z) >= 0)
    theta[0] = 0.1  # below q_min
    assert np.any(cons["fun"](problem.coordinates(theta)) < 0)


def _small_design(limits: JointLimits, key: str, **settings) -> Design:
    """An order-3 hip design on a 40-point grid (a second, not the workflow's search)."""
    return design(
        hip_regressor(KEYS, 9.81),
        limits,
        order=3,
        omega_f=OMEGA,
        grid_points=40,
        sign_smoothing=[0.1],
        seed_keys=("mut", key),
        **settings,
    )


def test_design_keeps_the_start_with_the_lowest_criterion(eq18_limits):
    d = _small_design(eq18_limits, "best", starts=3, maxiter=20)
    values = [s.value for s in d.starts]
    assert len(set(values)) > 1
    assert d.value == min(values)


def test_design_stays_within_the_margin_on_its_optimisation_grid(eq18_limits):
    margin = 0.05
    d = _small_design(eq18_limits, "margin", starts=1, margin=margin)
    r, tight = reached_limits(d.trajectory, grid(PERIOD, 40)), eq18_limits.tightened(margin)
    tol = 1e-6
    assert r.q_min[0] >= tight.q_min[0] - tol and r.q_max[0] <= tight.q_max[0] + tol
    assert r.qd_max[0] <= tight.qd_max[0] * (1 + tol)
    assert r.qdd_max[0] <= tight.qdd_max[0] * (1 + tol)


def test_comparison_errors_are_relative_and_rmse_is_at_the_noise_level(hip, eq18):
    """The parameter error is relative to the truth's norm and the RMSEs are root mean squares
    (of the order of the torque noise, not sums over the rows)."""
    names = NAMES
    settings = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, names)
    sigma = 0.05
    noisy = dataclasses.replace(
        settings,
        coulomb_smoothing_velocity=0.0,
        torque_noise_relative=0.0,
        torque_noise_nm=sigma,
        encoder_noise_rad=0.0,
        ripple_rms_rad=0.0,
    )
    setup = HipSetup(noisy, tuple(KEYS), 15.0, 4, 0.2, hip["rls"], "ls")
    validation = simulation.Trajectory.from_config(hip["records"]["validation"]["trajectory"])
    per_seed = compare_hip([Variant("paper_eq18", eq18, 5.005)], validation, 7.0, setup, [0, 1])
    X, x_true = per_seed[names].to_numpy(), np.asarray(noisy.x_true)
    np.testing.assert_allclose(
        per_seed.param_error, np.linalg.norm(X - x_true, axis=1) / np.linalg.norm(x_true)
    )
    # white noise sigma low-passed at 15 of 50 Hz, plus the filtered Coulomb step at reversals:
    # RMSEs of tenths of a N m (a sum over the ~460 rows would be ~20x that)
    assert np.all((per_seed.val_rmse > 0.5 * sigma) & (per_seed.val_rmse < 4 * sigma))
    assert np.all(per_seed.train_rmse < 0.5) and np.all(per_seed.val_rmse_true < 0.5)


@pytest.fixture(scope="module")
def comparison():
    """One joint's random trajectory and the comparison figure drawn of it under limits of
    0.5/0.6 rad, 1.5 rad/s, 4 rad/s², with six seeds of two trajectories' scores."""
    from paramid.excitation import figures

    rng = np.random.default_rng(0)
    names = ["paper_eq18", "designed"]
    per_seed = pd.DataFrame(
        {
            "trajectory": np.repeat(names, 6),
            "seed": np.tile(np.arange(6), 2),
            "param_error": rng.lognormal(-3.0, 1.0, 12),
            "val_rmse": rng.uniform(0.1, 0.2, 12),
            "val_rmse_true": rng.uniform(0.01, 0.02, 12),
        }
    )
    trajectory = _random_trajectory(joints=1)
    limits = JointLimits([-0.5], [0.6], [1.5], [4.0])
    return trajectory, figures.comparison_figure({"designed": trajectory}, PERIOD, limits, per_seed)


def test_the_comparison_figure_draws_angles_and_limits_in_degrees(comparison):
    """(a)-(c): the trajectory and its limits in deg, deg/s, deg/s², each panel its own limit."""
    trajectory, fig = comparison
    t = np.linspace(0.0, PERIOD, 1001)
    expected = trajectory.evaluate(t)
    levels = ([-0.5, 0.6], [-1.5, 1.5], [-4.0, 4.0])
    for ax, values, bound in zip(fig.axes[:3], expected, levels, strict=True):
        curve, *dashed = ax.lines
        np.testing.assert_allclose(curve.get_ydata(), np.rad2deg(np.ravel(values)))
        np.testing.assert_allclose([line.get_ydata()[0] for line in dashed], np.rad2deg(bound))
    assert [ax.get_ylabel() for ax in fig.axes[:3]] == [
        "Angle [deg]",
        "Velocity [deg/s]",
        "Acceleration [deg/s²]",
    ]


def test_the_comparison_figure_draws_the_parameter_error_alone_on_a_log_axis(comparison):
    """(d) spans decades (log axis); (e), (f) are RMSEs in N m on linear axes."""
    _, fig = comparison
    assert [ax.get_yscale() for ax in fig.axes[3:6]] == ["log", "linear", "linear"]
    assert [ax.get_ylabel() for ax in fig.axes[4:6]] == ["RMSE [N m]", "RMSE [N m]"]
    assert [t.get_text() for t in fig.axes[3].get_xticklabels()] == ["paper\neq18", "designed"]
