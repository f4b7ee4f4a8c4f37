"""Digital twin: ground truth is exact, draws are keyed by name, noise models are as configured."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paramid import estimators, rls, signals, simulation
from paramid.hip import model, pipeline, twin
from paramid.seeding import generator

NAMES = ["Mxt", "Myt", "Jt", "fc", "fv"]
KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]


def _settings(hip: dict, **changes) -> twin.TwinSettings:
    s = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, NAMES)
    return dataclasses.replace(s, **changes)


def _record(hip: dict, name: str, settings: twin.TwinSettings, seed: int = 0) -> simulation.Record:
    spec = hip["records"][name]
    return twin.simulate(
        simulation.Trajectory.from_config(spec["trajectory"]),
        spec["duration_s"],
        settings,
        seed,
        name,
    )


NOISE_FREE = dict(
    coulomb_smoothing_velocity=0.0,
    torque_noise_relative=0.0,
    torque_noise_nm=0.0,
    encoder_noise_rad=0.0,
    ripple_rms_rad=0.0,
)


def test_sample_counts_match_table2(hip):
    s = _settings(hip)
    assert _record(hip, "calibration", s).time.size == 500
    assert _record(hip, "validation", s).time.size == 700


def test_trajectory_derivatives_are_analytic(hip):
    traj = simulation.Trajectory.from_config(hip["records"]["validation"]["trajectory"])
    t = np.linspace(0, 7, 20001)
    q, qd, qdd = traj.evaluate(t)
    h = t[1] - t[0]
    np.testing.assert_allclose(np.gradient(q, h)[1:-1], qd[1:-1], atol=1e-5)
    np.testing.assert_allclose(np.gradient(qd, h)[1:-1], qdd[1:-1], atol=1e-4)
    assert np.rad2deg(q[0]) == pytest.approx(48 + 12)  # Eq 19 at t = 0


def test_noise_free_twin_recovers_x_true_exactly_on_true_signals(hip):
    rec = _record(hip, "calibration", _settings(hip, **NOISE_FREE))
    H = model.regressor(KEYS, rec.angle_true, rec.velocity_true, rec.acceleration_true, 9.81)
    x = np.linalg.lstsq(H, rec.torque, rcond=None)[0]
    np.testing.assert_allclose(x, list(hip["twin"]["x_true"].values()), atol=1e-10)


@pytest.mark.parametrize("record", ["calibration", "validation"])
def test_noise_free_twin_recovers_x_true_through_signal_chain(hip, record):
    rec = _record(hip, record, _settings(hip, **NOISE_FREE))
    out = signals.process(rec.time, rec.angle, rec.torque, cutoff_hz=15.0, order=4, trim_s=0.2)
    H = model.regressor(KEYS, out.q, out.qd, out.qdd, 9.81)
    # Eq 18 reverses exactly on samples (t = 0.5, 1.5, ...): there the plant's sgn(0) = 0 while
    # the estimated velocity has an arbitrary sign, an outlier of size fc.  Leave those out.
    on_reversal = np.abs(rec.velocity_true[20:-20]) < 1e-9
    assert on_reversal.sum() == (5 if record == "calibration" else 0)
    x = np.linalg.lstsq(H[~on_reversal], out.torque[~on_reversal], rcond=None)[0]
    # finite differences at 100 Hz cost O((w h)^2) in the acceleration: a few 1e-4 here
    np.testing.assert_allclose(x, list(hip["twin"]["x_true"].values()), atol=2e-3)


def test_records_are_keyed_by_seed_and_name(hip):
    s = _settings(hip)
    a = _record(hip, "calibration", s, seed=0)
    b = _record(hip, "calibration", s, seed=0)
    c = _record(hip, "calibration", s, seed=1)
    np.testing.assert_array_equal(a.torque, b.torque)
    assert not np.array_equal(a.torque, c.torque)


def test_switching_off_one_noise_leaves_the_others(hip):
    full = _record(hip, "calibration", _settings(hip))
    no_encoder = _record(hip, "calibration", _settings(hip, encoder_noise_rad=0.0))
    np.testing.assert_array_equal(full.torque, no_encoder.torque)
    np.testing.assert_array_equal(no_encoder.angle, no_encoder.angle_true)


def test_noise_models_have_configured_size(hip):
    s = _settings(hip)
    rec = _record(hip, "validation", s)
    assert np.std(rec.torque - rec.torque_true) == pytest.approx(0.034, rel=0.15)  # the floor
    assert np.std(rec.angle - rec.angle_true) == pytest.approx(1e-5, rel=0.15)
    gain = _record(hip, "validation", _settings(hip, torque_noise_relative=0.01, torque_noise_nm=0))
    rel = (gain.torque - gain.torque_true) / gain.torque_true
    assert np.std(rel) == pytest.approx(0.01, rel=0.15)
    both = _record(hip, "validation", _settings(hip, torque_noise_relative=0.01))
    np.testing.assert_allclose(  # independent draws: the floor adds to the gain noise
        both.torque - both.torque_true,
        (gain.torque - gain.torque_true) + (rec.torque - rec.torque_true),
        atol=1e-12,
    )
    smooth = _record(hip, "validation", _settings(hip, ripple_rms_rad=0.0))
    ripple = rec.angle_true - smooth.angle_true
    assert np.sqrt(np.mean(ripple**2)) == pytest.approx(4.5e-5, rel=0.25)


def test_unknown_trajectory_function_is_rejected():
    with pytest.raises(ValueError, match="'tan'"):
        simulation.Trajectory.from_config(
            {"offset_deg": 0, "terms": [{"fn": "tan", "amplitude_deg": 1, "frequency_hz": 1}]}
        )


def test_the_default_twin_is_not_fitted_to_the_paper(hip):
    """Every default error source is physics (the measured sensor floor, exact sgn of Eq 2);
    the settings once fitted to Table 3 are recognised when a study sets them again."""
    assert not twin.is_calibrated(hip["twin"])
    assert twin.is_calibrated({**hip["twin"], **twin.CALIBRATED})
    s = _settings(hip)
    assert (s.coulomb_smoothing_velocity, s.torque_noise_relative) == (0.0, 0.0)
    assert s.torque_noise_nm == simulation.JOINT_TORQUE_SENSOR_NOISE_NM


def test_calibrated_settings_give_the_records_they_gave_before_the_noise_floor(hip):
    """A study that sets :data:`twin.CALIBRATED` again gets the records it had before the noise
    floor existed (the floor's draw comes last and is 0 there): LS on them trains to 0.14477
    and validates to 0.11735 N m, as measured at commit c7e4b80 before the floor was added."""
    settings = _settings(hip, **twin.CALIBRATED)
    fits = []
    for name in ("calibration", "validation"):
        rec = _record(hip, name, settings, seed=hip["twin"]["seed"])
        processed = pipeline.process(
            rec.time, rec.angle, rec.torque, hip["signals"], hip["signals"]["cutoff_hz"]
        )
        fits.append(pipeline.regression(processed, hip["regressor"], hip["gravity"]))
    (H, y), (H_val, y_val) = fits
    x = estimators.ls(H, y)
    assert estimators.rmse(H, y, x) == pytest.approx(0.14477, abs=5e-6)
    assert estimators.rmse(H_val, y_val, x) == pytest.approx(0.11735, abs=5e-6)


def test_every_default_torque_floor_is_the_measured_one(repo_root):
    """The schema's scalar torque_noise_nm defaults (hip twin, chain twin) are the one measured
    floor; the robot twin's has none (each twin states its robot's)."""
    from paramid.io import read_yaml

    found: list[float] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            default = node.get("properties", {}).get("torque_noise_nm", {}).get("default")
            if isinstance(default, float):
                found.append(default)
            for child in node.values():
                walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(read_yaml(repo_root / "workflow/schemas/config.schema.yaml"))
    assert len(found) == 2
    assert set(found) == {simulation.JOINT_TORQUE_SENSOR_NOISE_NM}


def test_the_twins_truth_columns_carry_the_units_of_the_signals_they_are_compared_with():
    """A simulated record's true q, q̇, q̈ and torque are scored against the signal chain's
    processed columns: the same units, as the Parquet metadata says."""
    pairs = {"time": "time", "angle_true": "q", "velocity_true": "qd"}
    pairs |= {"acceleration_true": "qdd", "torque_true": "torque", "angle": "q", "torque": "torque"}
    assert set(pairs) == set(simulation.RECORD_UNITS)
    for column, processed in pairs.items():
        assert simulation.RECORD_UNITS[column] == signals.PROCESSED_UNITS[processed], column


def test_sense_rounds_the_encoder_to_its_step_after_the_error():
    """q_m = Δ·round((q + e_q)/Δ) on (N, n): 0.3Δ + 0.4Δ rounds to Δ (rounding q first would
    give 0.4Δ); random angles over ±3 rad land on multiples of Δ within Δ/2 of q + e_q; Δ = 0
    keeps q + e_q exactly."""
    step = 1e-5
    q = np.array([[0.3, -2.6], [1.49, 7.0]]) * step
    e_q = np.array([[0.4, 0.0], [0.0, -0.2]]) * step
    angle, _, _ = simulation.sense(q, q, q, encoder_error=e_q, encoder_step_rad=step)
    np.testing.assert_allclose(angle / step, [[1.0, -3.0], [1.0, 7.0]], rtol=0, atol=1e-9)

    rng = np.random.default_rng(0)
    q = rng.uniform(-3.0, 3.0, (200, 7))
    e_q = 3e-5 * rng.standard_normal(q.shape)
    angle, _, _ = simulation.sense(q, q, q, encoder_error=e_q, encoder_step_rad=step)
    k = angle / step
    np.testing.assert_allclose(k, np.round(k), rtol=0, atol=1e-6)
    assert np.abs(angle - (q + e_q)).max() <= 0.5 * step * (1 + 1e-6)
    assert len(np.unique(np.round(k - np.round((q + e_q) / step)))) == 1  # the nearest step
    angle, _, _ = simulation.sense(q, q, q, encoder_error=e_q)
    np.testing.assert_array_equal(angle, q + e_q)


def test_sense_adds_the_velocity_error_torque_gain_and_floor_per_joint():
    """q̇_m = q̇ + e_v and τ_m = τ (1 + e_r) + e_a, the floor broadcast as σ (n,) · draws
    (N, n); a single joint's (N,) signals take scalar errors; no error gives the truth."""
    qd = np.array([[1.0, -0.5], [0.0, 2.0]])
    tau = np.array([[10.0, -2.0], [4.0, 0.0]])
    sigma, draws = np.array([3.3, 0.6]), np.array([[1.0, -1.0], [0.5, 2.0]])
    gain = np.array([[0.1, 0.0], [-0.5, 0.2]])
    _, velocity, torque = simulation.sense(
        qd, qd, tau, velocity_error=0.25, relative_torque_error=gain,
        additive_torque_error=sigma * draws,
    )  # fmt: skip
    np.testing.assert_allclose(velocity, [[1.25, -0.25], [0.25, 2.25]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(torque, [[14.3, -2.6], [3.65, 1.2]], rtol=0, atol=1e-12)
    one = np.array([2.0, -4.0])
    _, _, torque = simulation.sense(
        one, one, one, relative_torque_error=0.5, additive_torque_error=0.1
    )
    np.testing.assert_allclose(torque, [3.1, -5.9], rtol=0, atol=1e-15)
    for measured, true in zip(simulation.sense(qd, -qd, tau), (qd, -qd, tau), strict=True):
        np.testing.assert_array_equal(measured, true)


def test_the_hip_twin_measures_with_the_shared_sensor_model(hip):
    """The record's angle and torque are simulation.sense of its truth with the draws of
    ("twin", seed, record) in the documented order: ripple frequencies and phases, relative
    torque noise, encoder noise, additive torque noise."""
    s = _settings(hip, torque_noise_relative=0.01)
    rec = _record(hip, "calibration", s, seed=3)
    rng = generator("twin", 3, "calibration")
    rng.uniform(size=2 * s.ripple_sines)  # ripple frequencies, then phases
    e_r, e_q, e_a = (rng.standard_normal(rec.time.size) for _ in range(3))
    angle, _, torque = simulation.sense(
        rec.angle_true,
        rec.velocity_true,
        rec.torque_true,
        encoder_error=s.encoder_noise_rad * e_q,
        relative_torque_error=0.01 * e_r,
        additive_torque_error=s.torque_noise_nm * e_a,
    )
    np.testing.assert_array_equal(rec.angle, angle)
    np.testing.assert_array_equal(rec.torque, torque)
    assert np.all(rec.angle != rec.angle_true) and np.all(rec.torque != rec.torque_true)


def test_noise_seeds_start_at_the_twins_seed(hip):
    """A study's twin seeds are its seed and the ones after it (plain ints: stream keys)."""
    assert twin.noise_seeds({"seed": 7}, 3) == [7, 8, 9]
    assert twin.noise_seeds({"seed": 0}, 0) == []
    seeds = twin.noise_seeds(hip["twin"], 2)
    assert seeds == [hip["twin"]["seed"], hip["twin"]["seed"] + 1]
    assert all(type(seed) is int for seed in seeds)


def test_the_memory_note_is_judged_at_the_velocitys_median_power_frequency():
    """lambda = 0.8 at 100 Hz keeps 0.05 s: under a tenth of a 1 Hz motion's period, not of a
    4 Hz one's.  A velocity of 1 Hz and 4 Hz parts is judged at the frequency below which half
    of its power lies: 4 Hz when that part has 4 x the power, 1 Hz when the 1 Hz part has."""
    t = np.arange(1000) / 100.0
    one, four = np.sin(2 * np.pi * 1.0 * t), np.sin(2 * np.pi * 4.0 * t)
    assert pipeline.memory_note(one + 2 * four, 100.0, 0.8) is None
    note = pipeline.memory_note(2 * one + four, 100.0, 0.8)
    assert note is not None and note == rls.memory_note(0.8, 100.0, 1.0)
    assert "half the velocity's power lies below 1 Hz" in note


def test_a_measured_study_keeps_no_calibrated_setting_and_its_own_seed_is_0(hip):
    """hip_audit asks these of every study: a measured one (no twin block) is not calibrated,
    not partly, and its one record pair is run 0; a twin's own pair is its seed's."""
    assert twin.is_calibrated(None) is False
    assert twin.partly_calibrated(None) is None
    assert twin.own_seed(None) == 0
    assert twin.own_seed({**hip["twin"], "seed": 5}) == 5
    assert twin.is_calibrated({**hip["twin"], **twin.CALIBRATED}) is True
