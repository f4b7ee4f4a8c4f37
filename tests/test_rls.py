"""RLS (Eq 7-9), the RLS box (§3.1), gamma (Eq 10) and mu (Eq 12)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from paramid import rls, simulation
from paramid.hip import model, twin

NAMES = ["Mxt", "Myt", "Jt", "fc", "fv"]
KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]


def _exact_sign_data(hip: dict) -> tuple[np.ndarray, np.ndarray]:
    s = twin.TwinSettings.from_config({**hip["twin"], "gravity": 9.81}, NAMES)
    s = dataclasses.replace(
        s,
        coulomb_smoothing_velocity=0.0,
        torque_noise_relative=0.0,
        torque_noise_nm=0.0,
        encoder_noise_rad=0.0,
        ripple_rms_rad=0.0,
    )
    spec = hip["records"]["calibration"]
    rec = twin.simulate(
        simulation.Trajectory.from_config(spec["trajectory"]), 5.0, s, 0, "calibration"
    )
    H = model.regressor(KEYS, rec.angle_true, rec.velocity_true, rec.acceleration_true, 9.81)
    return H, rec.torque


def test_rls_converges_to_x_true_on_noise_free_exact_sign_data(hip):
    H, y = _exact_sign_data(hip)
    traj = rls.rls_trajectory(H, y, forgetting=0.98, p0=1e4)
    np.testing.assert_allclose(traj[-1], list(hip["twin"]["x_true"].values()), atol=1e-6)
    # after the 1.0 s burn-in the estimate no longer moves on exact data
    assert np.ptp(traj[100:], axis=0).max() < 1e-4


def _literal_rls(H: np.ndarray, y: np.ndarray, forgetting: float, p0: float) -> np.ndarray:
    """Eq 7–9 written out sample by sample (the reference the information form must equal)."""
    d = H.shape[1]
    x, P = np.zeros(d), p0 * np.eye(d)
    out = np.empty_like(H)
    for k, (h, yk) in enumerate(zip(H, y, strict=True)):
        gain = P @ h / (forgetting + h @ P @ h)  # Eq 7
        x = x + gain * (yk - h @ x)  # Eq 8
        P = (np.eye(d) - np.outer(gain, h)) @ P / forgetting  # Eq 9
        out[k] = x
    return out


@pytest.mark.parametrize("forgetting", [0.9, 0.98, 1.0])
def test_information_form_equals_the_literal_recursion(forgetting: float):
    rng = np.random.default_rng(3)
    H = rng.normal(size=(2, 700, 5))
    H[..., 3] = np.sign(H[..., 3])
    y = H @ np.array([1.5, -0.2, 1.1, 0.8, 2.5]) + 0.05 * rng.normal(size=(2, 700))
    batch = rls.rls_trajectory(H, y, forgetting, 1e4, chunk=64)  # chunk edges inside the run
    for s in range(2):
        np.testing.assert_allclose(
            batch[s], _literal_rls(H[s], y[s], forgetting, 1e4), rtol=1e-8, atol=1e-9
        )


def test_rls_without_forgetting_equals_batch_least_squares():
    rng = np.random.default_rng(7)
    H = rng.normal(size=(300, 5))
    y = H @ np.array([1.0, -2.0, 0.5, 3.0, -1.0]) + 0.1 * rng.normal(size=300)
    traj = rls.rls_trajectory(H, y, forgetting=1.0, p0=1e10)
    # with P(0) = p0 I the recursion solves (H'H + I/p0) x = H'y exactly
    ridge = np.linalg.solve(H.T @ H + np.eye(5) / 1e10, H.T @ y)
    np.testing.assert_allclose(traj[-1], ridge, rtol=1e-7)
    np.testing.assert_allclose(traj[-1], np.linalg.lstsq(H, y, rcond=None)[0], rtol=1e-6)


def test_bounds_widen_extrema_by_margin_of_span():
    traj = np.array([[100.0, 100.0], [1.0, -1.0], [3.0, 2.0], [2.0, 0.0]])
    box = rls.rls_bounds(traj, burn_in=1, margin=0.10, names=["a", "b"])
    np.testing.assert_allclose(box.lower, [1.0 - 0.2, -1.0 - 0.3])
    np.testing.assert_allclose(box.upper, [3.0 + 0.2, 2.0 + 0.3])
    assert box.notes == []


def test_mechanical_constraints_take_precedence():
    traj = np.array([[0.0, 0.0], [-0.5, 1.0], [0.5, 2.0]])
    box = rls.rls_bounds(traj, 1, 0.10, ["fc", "fv"], {"fc": {"min": 0.0}, "fv": {"max": 1.5}})
    np.testing.assert_allclose(box.lower, [0.0, 0.9])
    np.testing.assert_allclose(box.upper, [0.6, 1.5])
    assert len(box.notes) == 2
    collapsed = rls.rls_bounds(
        np.array([[0.0], [-2.0], [-1.0]]), 1, 0.1, ["fc"], {"fc": {"min": 0}}
    )
    assert collapsed.lower[0] == collapsed.upper[0] == 0.0
    assert any("collapsed" in n for n in collapsed.notes)
    # both limits given, the RLS range above the max: the box collapses onto the max it
    # overshoots (not onto the min), and below the min onto the min
    both = {"fc": {"min": 0.0, "max": 1.0}}
    above = rls.rls_bounds(np.array([[0.0], [2.0], [3.0]]), 1, 0.1, ["fc"], both)
    assert above.lower[0] == above.upper[0] == 1.0
    below = rls.rls_bounds(np.array([[0.0], [-3.0], [-2.0]]), 1, 0.1, ["fc"], both)
    assert below.lower[0] == below.upper[0] == 0.0
    batch = rls.rls_bounds(
        np.array([[[0.0], [2.0], [3.0]], [[0.0], [-3.0], [-2.0]]]), 1, 0.1, ["fc"], both
    )
    np.testing.assert_array_equal(batch.lower[:, 0], [1.0, 0.0])
    np.testing.assert_array_equal(batch.upper[:, 0], [1.0, 0.0])


def test_a_negative_margin_is_rejected():
    with pytest.raises(ValueError, match="margin must be non-negative"):
        rls.rls_bounds(np.zeros((10, 2)), 1, -0.1, ["a", "b"])


def test_burn_in_longer_than_record_is_rejected():
    with pytest.raises(ValueError, match="burn-in"):
        rls.rls_bounds(np.zeros((10, 2)), 10, 0.1, ["a", "b"])


def test_gamma_formula():
    sign = np.array([1.0, -1.0, 0.0, 1.0])
    torque = np.array([2.0, -10.0, 3.0, 4.0])
    assert rls.nfsi_gamma(sign, 0.75, torque, eps=0.0) == pytest.approx(0.075)
    # |H_f f_c|: a negative mean Coulomb estimate (one-way motion) gives the same severity
    assert rls.nfsi_gamma(np.ones(10), -0.5, np.ones(10), eps=0.0) == pytest.approx(0.5)


def test_batched_recursions_equal_single_ones():
    rng = np.random.default_rng(11)
    H = rng.normal(size=(4, 120, 3))
    y = rng.normal(size=(4, 120))
    batched = rls.rls_trajectory(H, y, 0.98, 1e4)
    for s in range(4):
        np.testing.assert_allclose(
            batched[s], rls.rls_trajectory(H[s], y[s], 0.98, 1e4), rtol=1e-12
        )


def test_a_priors_trajectory_frame_is_time_then_each_parameters_estimate():
    """hip_rls's trajectory file: the record's time [s], then one column per parameter
    holding the RLS estimate at each sample, with the parameters' units."""
    from paramid.hip import pipeline

    rng = np.random.default_rng(5)
    keys = ["g_sin_q", "qdd", "qd"]
    H = rng.normal(size=(120, 3))
    y = H @ np.array([1.5, 1.1, 2.5]) + 0.05 * rng.normal(size=120)
    cfg = {"forgetting": 0.98, "p0": 1e4, "burn_in_s": 0.2, "margin": 0.1, "nfsi_eps": 1e-6}
    prior = pipeline.rls_prior(H, y, keys, cfg, 100.0, {"mu_base": 0.45, "kappa": 0.25})
    time = np.arange(120) / 100.0
    frame, units = prior.trajectory_frame(time)
    assert list(frame.columns) == ["time", *model.parameter_names(keys)]
    np.testing.assert_array_equal(frame["time"], time)
    for j, name in enumerate(model.parameter_names(keys)):
        np.testing.assert_array_equal(frame[name], prior.trajectory[:, j])
    assert units == {"time": "s", **model.parameter_units(keys)}


def test_batched_prior_equals_each_record_alone():
    """pipeline.rls_prior on S records side by side = S separate runs (box, mean, γ, μ)."""
    from paramid.hip import pipeline

    rng = np.random.default_rng(4)
    keys = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]
    H = rng.normal(size=(3, 200, 5))
    H[..., 3] = np.sign(H[..., 3])
    y = H @ np.array([1.5, -0.2, 1.1, 0.8, 2.5]) + 0.05 * rng.normal(size=(3, 200))
    cfg = {
        "forgetting": 0.98,
        "p0": 1e4,
        "burn_in_s": 0.5,
        "margin": 0.1,
        "nfsi_eps": 1e-6,
        "mechanical": {"fc": {"min": 0.79}, "Jt": {"max": 1.0}},
    }
    agwo = {"mu_base": 0.45, "kappa": 0.25}
    batch = pipeline.rls_prior(H, y, keys, cfg, 100.0, agwo)
    for s in range(3):
        alone = pipeline.rls_prior(H[s], y[s], keys, cfg, 100.0, agwo)
        np.testing.assert_allclose(batch.trajectory[s], alone.trajectory, rtol=1e-9, atol=1e-12)
        for field in ("lower", "upper", "rls_mean", "gamma", "mu"):
            np.testing.assert_allclose(
                getattr(batch, field)[s], getattr(alone, field), rtol=1e-9, atol=1e-12
            )
    assert any("of 3 records" in note for note in batch.notes)
    # each record's box, mean, γ (Eq 10, from the sgn(q̇) column) and μ (Eq 12) by the formulas
    burn_in = 50  # 0.5 s at 100 Hz
    assert batch.burn_in == burn_in
    for s in range(3):
        retained = batch.trajectory[s, burn_in:]
        np.testing.assert_allclose(batch.rls_mean[s], retained.mean(axis=0), rtol=1e-12)
        widen = 0.1 * (retained.max(axis=0) - retained.min(axis=0))
        lower, upper = retained.min(axis=0) - widen, retained.max(axis=0) + widen
        lower[3], upper[2] = max(lower[3], 0.79), min(upper[2], 1.0)  # fc, Jt (Eq 9)
        lower[2] = min(lower[2], upper[2])  # the box collapses where the RLS range lies beyond
        np.testing.assert_allclose(batch.lower[s], lower, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(batch.upper[s], upper, rtol=1e-12, atol=1e-12)
        coulomb = np.abs(H[s, :, 3] * retained[:, 3].mean())
        gamma = coulomb.max() / (np.abs(y[s]).max() + 1e-6)
        assert batch.gamma[s] == pytest.approx(gamma, rel=1e-12)
        assert batch.mu[s] == pytest.approx(0.45 + 0.25 * np.exp(gamma), rel=1e-12)


def test_the_memory_note_compares_the_recursion_with_the_motion():
    """lambda is per sample: the paper's 0.98 at 100 Hz keeps 0.5 s, at 1 kHz 0.05 s; against a
    0.7 Hz motion (period 1.43 s) the second is under a tenth of the period, and the value the
    note suggests keeps exactly a tenth."""
    assert rls.memory_note(0.98, 100.0, 0.7) is None
    note = rls.memory_note(0.98, 1000.0, 0.7)
    assert note is not None and "50 samples, 0.05 s at this record's 1000 Hz" in note
    suggested = float(note.rsplit(">= ", 1)[1].split()[0])
    memory_s = 1.0 / ((1.0 - suggested) * 1000.0)
    assert memory_s == pytest.approx(rls.MIN_MEMORY_SHARE / 0.7, rel=1e-4)
    assert rls.memory_note(suggested + 1e-5, 1000.0, 0.7) is None


def test_auto_forgetting_keeps_the_papers_half_second_at_any_rate():
    """λ = 0.98 at the paper's 100 Hz remembers 50 samples, 0.5 s; `auto` keeps 0.5 s: 0.98
    exactly at 100 Hz, 0.998 at 1 kHz (where 0.98 remembers 0.05 s, under a tenth of a 1 s
    motion period: the memory note's case)."""
    assert rls.forgetting_factor("auto", 100.0) == 0.98
    assert rls.forgetting_factor("auto", 1000.0) == pytest.approx(0.998, abs=1e-15)
    assert rls.forgetting_factor(0.95, 1000.0) == 0.95
    for fs in (100.0, 500.0, 1000.0):
        memory_s = 1.0 / ((1.0 - rls.forgetting_factor("auto", fs)) * fs)
        assert memory_s == pytest.approx(rls.PAPER_MEMORY_S, rel=1e-12)
    assert rls.memory_note(rls.forgetting_factor("auto", 1000.0), 1000.0, 1.0) is None
    assert rls.memory_note(0.98, 1000.0, 1.0) is not None
