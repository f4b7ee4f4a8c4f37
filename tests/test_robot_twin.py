"""paramid.robot.twin (issue #16 item 5, library level): a Kinova Gen3 twin on a Fourier
excitation; noise-free data recover the true base parameters, the sensors are as stated."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from loaders import (
    BASE_REL_TOL,
    GEN3_NOISE,
    GEN3_TORQUE_NOISE_NM,
    NOISE_FREE,
    TWIN_FRICTION,
    load_robot,
)

from paramid.base_parameters import base_columns
from paramid.excitation.fourier import FourierTrajectory
from paramid.robot.base import structural_base
from paramid.robot.estimators import to_base
from paramid.robot.model import (
    Robot,
    friction_columns,
    joint_ranges,
    regressor,
    urdf_parameters,
)
from paramid.robot.twin import (
    TwinNoise,
    excitation,
    simulate,
    simulate_record,
    true_parameters,
)
from paramid.seeding import generator
from paramid.simulation import sense

KINOVA_URDF = Path(__file__).resolve().parents[1] / "data" / "kinova_gen3" / "kinovaGen3.urdf"


@pytest.fixture(scope="module")
def kinova() -> Robot:
    return load_robot(KINOVA_URDF, [f"joint_{k}" for k in range(1, 8)])


@pytest.fixture(scope="module")
def theta(kinova: Robot) -> np.ndarray:
    return true_parameters(kinova, seed=1, inertia_spread=0.2, **TWIN_FRICTION)


def test_noise_free_twin_recovers_base_parameters(kinova: Robot, theta: np.ndarray) -> None:
    """OLS (np.linalg.lstsq) on the stacked base regressor of one 10 s period at 200 Hz."""
    trajectory = excitation(kinova, seed=1)
    rec = simulate(kinova, theta, trajectory, 10.0, 200.0, NOISE_FREE, seed=1)
    assert np.array_equal(rec.q, rec.q_true) and np.array_equal(rec.tau, rec.tau_true)
    base = structural_base(kinova, BASE_REL_TOL)
    W = base_columns(regressor(kinova, rec.q, rec.dq, rec.ddq_true), base).reshape(-1, base.rank)
    beta = np.linalg.lstsq(W, rec.tau.reshape(-1), rcond=None)[0]
    truth = to_base(theta, base)
    assert np.linalg.norm(beta - truth) / np.linalg.norm(truth) < 1e-6
    # each parameter to 1e-6 relative; those below 1 mm·kg / 1e-3 kg m² are zero up to URDF
    # round-off (e.g. 3.7e-6 from a π/2 printed as 1.5708) and are held to 1e-9 absolute
    assert np.all(np.abs(beta - truth) <= 1e-6 * np.maximum(np.abs(truth), 1e-3))


def test_noise_free_twin_with_armature_recovers_it() -> None:
    """A reflected rotor inertia per joint: its own base parameter on joints 2-7 (on joint 1
    it joins the link's Izz, both multiply q̈₁ alone), recovered like the others."""
    robot = load_robot(KINOVA_URDF, [f"joint_{k}" for k in range(1, 8)], armature=True)
    theta = true_parameters(robot, seed=4, inertia_spread=0.2, **TWIN_FRICTION)
    rec = simulate(robot, theta, excitation(robot, seed=4), 10.0, 200.0, NOISE_FREE, 4)
    base = structural_base(robot, BASE_REL_TOL)
    assert [n for n in base.names if n.startswith("ia_")] == [f"ia_joint_{k}" for k in range(2, 8)]
    W = base_columns(regressor(robot, rec.q, rec.dq, rec.ddq_true), base).reshape(-1, base.rank)
    beta = np.linalg.lstsq(W, rec.tau.reshape(-1), rcond=None)[0]
    truth = to_base(theta, base)
    armature = [base.names.index(f"ia_joint_{k}") for k in range(2, 8)]
    np.testing.assert_allclose(beta[armature], truth[armature], rtol=1e-6)
    np.testing.assert_allclose(truth[armature], theta[friction_columns(robot)["ia"][1:]])


def test_true_parameters(kinova: Robot, theta: np.ndarray) -> None:
    cols = friction_columns(kinova)
    assert np.all((0.1 <= theta[cols["fv"]]) & (theta[cols["fv"]] <= 0.5))
    assert np.all((0.5 <= theta[cols["fc"]]) & (theta[cols["fc"]] <= 2.0))
    ratio = theta[:70].reshape(7, 10) / urdf_parameters(kinova)[:70].reshape(7, 10)
    factor = ratio[:, 0]  # one factor per link, within ±20 %
    assert np.all(np.abs(factor - 1) <= 0.2) and np.ptp(factor) > 0.05
    finite = np.isfinite(ratio)
    np.testing.assert_allclose(ratio[finite], np.broadcast_to(factor[:, None], ratio.shape)[finite])
    assert np.array_equal(
        theta, true_parameters(kinova, seed=1, inertia_spread=0.2, **TWIN_FRICTION)
    )
    assert not np.array_equal(
        theta, true_parameters(kinova, seed=2, inertia_spread=0.2, **TWIN_FRICTION)
    )
    with pytest.raises(ValueError, match="inertia_spread"):
        true_parameters(kinova, 0, inertia_spread=1.0, **TWIN_FRICTION)


def test_excitation_within_ranges(kinova: Robot) -> None:
    trajectory = excitation(kinova, seed=3, amplitude_rad=2.0, max_velocity_rad_s=1.0)
    assert isinstance(trajectory, FourierTrajectory) and trajectory.period == pytest.approx(10.0)
    q, dq, _ = trajectory.evaluate_joints(np.linspace(0.0, 10.0, 5001))
    lo, hi = joint_ranges(kinova)
    assert np.all(q >= lo - 1e-3) and np.all(q <= hi + 1e-3)
    assert np.all(np.abs(q - trajectory.q0).max(axis=0) <= 0.45 * (hi - lo) + 1e-3)
    assert np.abs(dq).max() <= 1.0 + 1e-3
    assert np.all(np.abs(dq).max(axis=0) > 0.3)  # every joint moves


def test_noisy_twin_sensors(kinova: Robot, theta: np.ndarray) -> None:
    trajectory = excitation(kinova, seed=1)
    noise = GEN3_NOISE
    rec = simulate(kinova, theta, trajectory, 20.0, 500.0, noise, seed=1, record="cal")
    step = noise.encoder_step_rad
    np.testing.assert_allclose(rec.q / step, np.round(rec.q / step), atol=1e-6)
    assert np.abs(rec.q - rec.q_true).max() <= step / 2 + 1e-12
    sigma = np.std(rec.tau - rec.tau_true, axis=0)
    np.testing.assert_allclose(sigma, GEN3_TORQUE_NOISE_NM, rtol=0.05)
    assert np.std(rec.dq - rec.dq_true) == pytest.approx(noise.velocity_noise_rad_s, rel=0.05)
    again = simulate(kinova, theta, trajectory, 20.0, 500.0, noise, seed=1, record="cal")
    assert np.array_equal(again.tau, rec.tau)
    val = simulate(kinova, theta, trajectory, 20.0, 500.0, noise, seed=1, record="val")
    assert not np.array_equal(val.tau, rec.tau) and np.array_equal(val.tau_true, rec.tau_true)
    quiet = replace(GEN3_NOISE, torque_noise_nm=0.0)
    no_tau = simulate(kinova, theta, trajectory, 20.0, 500.0, quiet, seed=1, record="cal")
    assert np.array_equal(no_tau.dq, rec.dq) and np.array_equal(no_tau.tau, rec.tau_true)


def test_record_frame_and_errors(kinova: Robot, theta: np.ndarray) -> None:
    trajectory = excitation(kinova, seed=1)
    rec = simulate(kinova, theta, trajectory, 1.0, 100.0, GEN3_NOISE, seed=0)
    frame = rec.frame(kinova.joints)
    assert list(frame.columns[:3]) == ["time", "q_joint_1", "q_joint_2"]
    assert frame.shape == (100, 1 + 3 * 7)
    np.testing.assert_array_equal(frame["tau_joint_3"], rec.tau[:, 2])
    with pytest.raises(ValueError, match="fewer than 2 samples"):
        simulate(kinova, theta, trajectory, 0.001, 100.0, GEN3_NOISE, seed=0)
    three = FourierTrajectory(np.zeros(3), np.ones((3, 2)), np.ones((3, 2)), 1.0)
    with pytest.raises(ValueError, match="trajectory has 3 joints, robot 7"):
        simulate(kinova, theta, three, 1.0, 100.0, GEN3_NOISE, seed=0)


def test_twin_noise_from_config() -> None:
    block = {"encoder_step_rad": 1e-5, "encoder_noise_rad": 0.0, "velocity_noise_rad_s": 2e-3}
    listed = TwinNoise.from_config(block | {"torque_noise_nm": [3.3, 0.6]})
    assert listed == TwinNoise(1e-5, 0.0, 2e-3, (3.3, 0.6))
    scalar = TwinNoise.from_config(block | {"torque_noise_nm": 1.5})
    np.testing.assert_array_equal(scalar.torque_sigma(3), [1.5, 1.5, 1.5])


def test_simulate_record_is_the_twin_of_the_config(kinova: Robot) -> None:
    twin_block = {
        "seed": 3,
        "sample_rate_hz": 50.0,
        "inertia_spread": 0.1,
        "friction": TWIN_FRICTION,
        "noise": {"encoder_step_rad": 1e-5, "encoder_noise_rad": 0.0,
                  "velocity_noise_rad_s": 2e-3, "torque_noise_nm": [1.0] * 7},
    }  # fmt: skip
    spec = {"seed": 2, "order": 3, "period_s": 4.0, "amplitude_rad": 0.5, "max_velocity_rad_s": 1.0}
    rec = simulate_record(kinova, twin_block, spec, 8.0, "calibration")
    theta = true_parameters(kinova, 3, 0.1, **TWIN_FRICTION)
    trajectory = excitation(kinova, 2, 3, 4.0, 0.5, 1.0)
    noise = TwinNoise(1e-5, 0.0, 2e-3, (1.0,) * 7)
    want = simulate(kinova, theta, trajectory, 8.0, 50.0, noise, seed=3, record="calibration")
    for field in ("time", "q", "dq", "tau", "tau_true"):
        np.testing.assert_array_equal(getattr(rec, field), getattr(want, field))


def test_an_excitation_asked_for_more_than_a_joints_range_fills_nine_tenths_of_it(
    kinova: Robot,
) -> None:
    """amplitude_rad far beyond every range and a slow period (the speed cap not binding): each
    joint swings about the middle of its range by 0.45 of it on the 1000-point grid (90 % of the
    range, 5 % kept free at each end), never past a limit."""
    trajectory = excitation(kinova, seed=3, period_s=400.0, amplitude_rad=10.0)
    t = np.linspace(0.0, 400.0, 1000, endpoint=False)
    q, dq, _ = trajectory.evaluate_joints(t)
    lo, hi = joint_ranges(kinova)
    np.testing.assert_allclose(trajectory.q0, 0.5 * (lo + hi))
    assert np.abs(dq).max() < 1.2  # the speed cap does not bind
    np.testing.assert_allclose(np.abs(q - trajectory.q0).max(axis=0), 0.45 * (hi - lo), rtol=1e-9)
    assert np.all(q >= lo) and np.all(q <= hi)


def test_the_twin_samples_from_time_zero_at_its_rate(kinova: Robot, theta: np.ndarray) -> None:
    """t = 0 … duration − 1/rate: the states are the trajectory's at k / rate."""
    trajectory = excitation(kinova, seed=1)
    rec = simulate(kinova, theta, trajectory, 1.0, 100.0, NOISE_FREE, seed=0)
    np.testing.assert_array_equal(rec.time, np.arange(100) / 100.0)
    q, dq, ddq = trajectory.evaluate_joints(np.arange(100) / 100.0)
    np.testing.assert_allclose(rec.q_true, q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(rec.ddq_true, ddq, rtol=0, atol=1e-12)


def test_each_sensor_draws_from_its_own_stream(kinova: Robot, theta: np.ndarray) -> None:
    """Encoder and velocity noise are independent: the velocity error is the ("robot_twin",
    seed, record, "velocity") stream times σ_v, unchanged when the encoder noise is switched
    on, and not the encoder's draws."""
    trajectory = excitation(kinova, seed=1)
    noisy = TwinNoise(0.0, 1e-3, 2e-3, 0.0)
    quiet = replace(noisy, encoder_noise_rad=0.0)
    rec = simulate(kinova, theta, trajectory, 2.0, 100.0, noisy, seed=5, record="cal")
    ref = simulate(kinova, theta, trajectory, 2.0, 100.0, quiet, seed=5, record="cal")
    np.testing.assert_array_equal(rec.dq, ref.dq)
    e_v = generator("robot_twin", 5, "cal", "velocity").standard_normal(rec.dq.shape)
    np.testing.assert_allclose(rec.dq - rec.dq_true, 2e-3 * e_v, rtol=1e-9, atol=1e-15)
    e_q = (rec.q - rec.q_true) / 1e-3
    e_dq = (rec.dq - rec.dq_true) / 2e-3
    assert abs(np.corrcoef(e_q.ravel(), e_dq.ravel())[0, 1]) < 0.1


def test_the_twin_measures_with_the_shared_sensor_model(kinova: Robot, theta: np.ndarray) -> None:
    """q, q̇, τ are paramid.simulation.sense of the true signals with the draws of the streams
    ("robot_twin", seed, record, "encoder" | "velocity" | "torque") times σ_q, σ_v and the
    per-joint σ_τ: the encoder error lands before the rounding, every angle is a multiple of Δ."""
    sigma = np.array([3.3] * 4 + [0.6] * 3)
    noise = TwinNoise(1e-4, 3e-4, 2e-3, tuple(sigma))
    rec = simulate(kinova, theta, excitation(kinova, seed=1), 2.0, 100.0, noise, 4, "cal")
    e_q, e_v, e_tau = (
        generator("robot_twin", 4, "cal", sensor).standard_normal(rec.q_true.shape)
        for sensor in ("encoder", "velocity", "torque")
    )
    want = sense(
        rec.q_true,
        rec.dq_true,
        rec.tau_true,
        encoder_error=3e-4 * e_q,
        encoder_step_rad=1e-4,
        velocity_error=2e-3 * e_v,
        additive_torque_error=sigma * e_tau,
    )
    for got, expected in zip((rec.q, rec.dq, rec.tau), want, strict=True):
        np.testing.assert_array_equal(got, expected)
    k = rec.q / 1e-4
    np.testing.assert_allclose(k, np.round(k), rtol=0, atol=1e-6)
    assert np.abs(rec.q - rec.q_true).max() > 5e-4  # the encoder error is there, not only Δ/2
    np.testing.assert_allclose((rec.tau - rec.tau_true).std(axis=0), sigma, rtol=0.25)
