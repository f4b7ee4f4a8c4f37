"""Friction laws: analytic Jacobians against finite differences, batching, the variable-projection
split tau_f = Phi(eta) beta, limiting cases, and the twin's friction callable."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

from paramid import simulation
from paramid.friction import laws as friction
from paramid.friction.laws import MODELS
from paramid.hip import nonlinear, twin
from paramid.io import read_yaml

NAMES = list(MODELS)

NONLINEAR = read_yaml(Path(__file__).resolve().parents[1] / "config.yaml")["nonlinear"]
TRUTHS = NONLINEAR["hip_nonlinear"]["truths"]  # the shipped twin variants' friction laws


def _velocities() -> np.ndarray:
    rng = np.random.default_rng(1)
    qd = np.concatenate([rng.normal(0.0, 1.0, 60), np.linspace(-0.3, 0.3, 13), [0.0, 1e-9]])
    return qd


def _points(name: str) -> np.ndarray:
    """The truth and two other interior points of the default box."""
    m = MODELS[name]
    b = np.array(m.bounds)
    return np.stack([m.vector(TRUTHS[name]), b[:, 0] + 0.3 * np.ptp(b, 1), b.mean(axis=1)])


def _central_difference(fn, theta: np.ndarray, h: float = 1e-6) -> np.ndarray:
    cols = []
    for j in range(theta.size):
        step = h * max(1.0, abs(theta[j]))
        e = np.zeros_like(theta)
        e[j] = step
        cols.append((fn(theta + e) - fn(theta - e)) / (2 * step))
    return np.stack(cols, axis=-1)


def test_the_coulomb_column_is_the_sign_unless_a_smoothing_velocity_is_set():
    qd = np.array([-2.0, 0.0, 3.0])
    np.testing.assert_array_equal(friction.sign_or_tanh(qd, 0.0), [-1.0, 0.0, 1.0])
    np.testing.assert_allclose(friction.sign_or_tanh(qd, 0.5), np.tanh(qd / 0.5), rtol=0)


@pytest.mark.parametrize("name", NAMES)
def test_jacobian_matches_finite_differences(name):
    m, qd = MODELS[name], _velocities()
    for theta in _points(name):
        numeric = _central_difference(lambda t: m.torque(qd, t), theta)
        np.testing.assert_allclose(m.jacobian(qd, theta), numeric, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("name", NAMES)
def test_hip_model_jacobian_matches_finite_differences(name):
    hip = friction.hip_model(name)
    rng = np.random.default_rng(2)
    q, qd, qdd = rng.uniform(0, 2, 40), _velocities()[:40], rng.normal(0, 5, 40)
    H = nonlinear.joint_data(q, qd, qdd, np.zeros_like(q), hip.gravity).H_rb
    theta = np.concatenate([[1.5, -0.2, 1.1], MODELS[name].vector(TRUTHS[name])])
    numeric = _central_difference(lambda t: hip.torque(H, qd, t), theta)
    np.testing.assert_allclose(hip.jacobian(H, qd, theta), numeric, rtol=1e-6, atol=1e-7)
    assert hip.params[:3] == ("Mxt", "Myt", "Jt") and hip.dim == 3 + len(MODELS[name].params)


@pytest.mark.parametrize("name", NAMES)
def test_batched_parameters_give_rowwise_results(name):
    m, qd = MODELS[name], _velocities()
    points = _points(name)
    batch = np.stack([points, points[::-1]])  # (runs=2, pop=3, k)
    torque = m.torque(qd, batch)
    jac = m.jacobian(qd, batch)
    assert torque.shape == (2, 3, qd.size) and jac.shape == (2, 3, qd.size, points.shape[1])
    for r in range(2):
        for i in range(3):
            np.testing.assert_array_equal(torque[r, i], m.torque(qd, batch[r, i]))
            np.testing.assert_array_equal(jac[r, i], m.jacobian(qd, batch[r, i]))


def _plain_torque(name: str, qd: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Each law's equation written plainly (Stribeck's e from the ``_shape`` its Jacobian and
    basis use), for parameters theta (..., k)."""
    col = [theta[..., j, None] for j in range(theta.shape[-1])]
    if name == "coulomb_viscous":
        return col[0] * np.sign(qd) + col[1] * qd
    if name == "stribeck":
        fc, fs, vs, delta, fv = col
        _, e, _ = friction.Stribeck._shape(qd, vs, delta)
        return (fc + (fs - fc) * e) * np.sign(qd) + fv * qd
    if name == "asymmetric":
        return col[0] * (qd > 0) - col[1] * (qd < 0) + col[2] * qd
    fc, vs, fv = col
    return fc * np.tanh(qd / vs) + fv * qd


@pytest.mark.parametrize("name", NAMES)
def test_torque_computed_in_place_equals_the_plain_equation(name):
    """The in-place evaluation (the objectives' hot path) gives the plain formula's values bit
    for bit, one parameter vector or a batch, and the hip model adds the rigid columns in order."""
    m, qd = MODELS[name], _velocities()
    batch = np.stack([_points(name), _points(name)[::-1] * 0.7])
    for theta in (batch[0, 0], batch):
        np.testing.assert_array_equal(m.torque(qd, theta), _plain_torque(name, qd, theta))
    hip = friction.hip_model(name)
    H = np.random.default_rng(4).normal(size=(qd.size, 3))
    full = np.concatenate([np.broadcast_to([1.5, -0.2, 1.1], (*batch.shape[:-1], 3)), batch], -1)
    plain = _plain_torque(name, qd, batch)
    for j in range(3):
        plain = plain + full[..., j, None] * H[:, j]
    np.testing.assert_array_equal(hip.torque(H, qd, full), plain)


@pytest.mark.parametrize("name", NAMES)
def test_basis_times_linear_parameters_is_the_torque(name):
    m, qd = MODELS[name], _velocities()
    for theta in _points(name):
        phi = m.basis(qd, theta[m.nonlinear_index])
        assert phi.shape == (qd.size, len(m.linear))
        np.testing.assert_allclose(phi @ theta[m.linear_index], m.torque(qd, theta), atol=1e-14)
    hip = friction.hip_model(name)
    theta = np.concatenate([[1.5, -0.2, 1.1], _points(name)[0]])
    H = np.random.default_rng(3).normal(size=(qd.size, 3))
    A = hip.basis(H, qd, theta[hip.nonlinear_index])
    np.testing.assert_allclose(A @ theta[hip.linear_index], hip.torque(H, qd, theta), atol=1e-13)
    np.testing.assert_array_equal(
        hip.assemble(theta[hip.linear_index], theta[hip.nonlinear_index]), theta
    )


def test_linear_laws_have_no_nonlinear_parameters():
    assert MODELS["coulomb_viscous"].is_linear and MODELS["asymmetric"].is_linear
    assert MODELS["stribeck"].nonlinear == ("vs", "delta")
    assert MODELS["tanh"].nonlinear == ("vs",)


def test_limiting_cases_reduce_to_eq2():
    qd = _velocities()
    eq2 = MODELS["coulomb_viscous"].torque(qd, [0.8, 2.5])
    # Stribeck with f_s = f_c, asymmetric with equal levels: exactly Eq 2
    np.testing.assert_allclose(MODELS["stribeck"].torque(qd, [0.8, 0.8, 0.1, 2.0, 2.5]), eq2)
    np.testing.assert_allclose(MODELS["asymmetric"].torque(qd, [0.8, 0.8, 2.5]), eq2)
    # tanh Coulomb tends to sgn away from zero as v_s -> 0
    far = np.abs(qd) > 0.05
    np.testing.assert_allclose(
        MODELS["tanh"].torque(qd, [0.8, 1e-3, 2.5])[far], eq2[far], atol=1e-12
    )
    # Stribeck: breakaway f_s at q̇ -> 0+, Coulomb f_c far from zero
    st = MODELS["stribeck"]
    assert st.torque(np.array([1e-8]), [0.8, 1.2, 0.15, 2.0, 0.0])[0] == pytest.approx(1.2)
    assert st.torque(np.array([5.0]), [0.8, 1.2, 0.15, 2.0, 0.0])[0] == pytest.approx(0.8)
    # asymmetric: direction-dependent levels, zero at rest
    asym = MODELS["asymmetric"].torque(np.array([-1.0, 0.0, 1.0]), [0.95, 0.65, 0.0])
    np.testing.assert_array_equal(asym, [-0.65, 0.0, 0.95])


def test_bounds_overrides_and_errors():
    m = MODELS["stribeck"]
    b = m.bounds_array({"vs": [0.02, 0.5], "unused": [0, 1]})
    assert b[m.params.index("vs")].tolist() == [0.02, 0.5]
    assert b[m.params.index("fc")].tolist() == list(m.bounds[0])
    with pytest.raises(ValueError, match="low <= high"):
        m.bounds_array({"fc": [2.0, 1.0]})
    with pytest.raises(ValueError, match="unknown friction model 'lugre'"):
        friction.get("lugre")
    with pytest.raises(ValueError, match="5 parameters"):
        m.torque(np.zeros(3), [1.0, 2.0])
    with pytest.raises(ValueError, match="lack parameter"):
        m.vector({"fc": 1.0})


def test_parameter_units_are_unique_per_name():
    units = friction.parameter_units()
    assert units["vs"] == "rad/s" and units["fc"] == "N m" and units["Jt"] == "kg m^2"
    for m in MODELS.values():
        for p, u in zip(m.params, m.units, strict=True):
            assert units[p] == u


def test_truths_lie_inside_the_default_and_the_shipped_bounds():
    """config.yaml's twin truths lie inside each law's default box and inside the box the
    shipped study searches (``friction_bounds``)."""
    shipped = NONLINEAR["hip_nonlinear"]["friction_bounds"]
    for name, values in TRUTHS.items():
        m = MODELS[name]
        theta, b = m.vector(values), np.array(m.bounds)
        assert np.all((b[:, 0] < theta) & (theta < b[:, 1])), name
        for param, value in values.items():
            low, high = shipped[param]
            assert low < value < high, (name, param)


def test_twin_friction_callable_is_backwards_compatible(hip):
    """Eq 2 passed as a callable gives the default plant bit for bit (exact sgn)."""
    names = ["Mxt", "Myt", "Jt", "fc", "fv"]
    s = twin.TwinSettings.from_config({**hip["twin"], "gravity": hip["gravity"]}, names)
    s = dataclasses.replace(s, coulomb_smoothing_velocity=0.0)
    spec = hip["records"]["calibration"]
    traj = simulation.Trajectory.from_config(spec["trajectory"])
    default = twin.simulate(traj, spec["duration_s"], s, 0, "calibration")
    law = MODELS["coulomb_viscous"].callable([s.x_true[3], s.x_true[4]])
    given = twin.simulate(traj, spec["duration_s"], s, 0, "calibration", friction=law)
    np.testing.assert_allclose(given.torque_true, default.torque_true, rtol=0, atol=1e-13)
    np.testing.assert_array_equal(given.angle, default.angle)
    stribeck = MODELS["stribeck"].callable(MODELS["stribeck"].vector(TRUTHS["stribeck"]))
    other = twin.simulate(traj, spec["duration_s"], s, 0, "calibration", friction=stribeck)
    assert not np.allclose(other.torque_true, default.torque_true)


@pytest.mark.parametrize("name", NAMES)
def test_rmse_rows_in_blocks_equal_the_plain_rmse_of_the_whole_batch(name, monkeypatch):
    """rmse_rows scores rows in cache-sized blocks; the values are those of Eq 13 on the
    whole (runs, pop) batch at once, bit for bit, for blocks of one row, several rows or all."""
    from paramid.friction import data as fdata

    hip, qd = friction.hip_model(name), _velocities()
    rng = np.random.default_rng(5)
    record = fdata.Data(rng.normal(size=(qd.size, 3)), qd, rng.normal(size=qd.size))
    points = np.concatenate([np.broadcast_to([1.5, -0.2, 1.1], (3, 3)), _points(name)], 1)
    batch = np.stack([points, points * 0.9, points[::-1]])  # (runs=3, pop=3, dim)
    residual = record.y - hip.torque(record.H_rb, record.qd, batch)
    plain = np.sqrt(np.mean(residual**2, axis=-1))
    for samples in (1, 2 * qd.size, 10**6):  # 1 row, 2 rows (a last block of 1), all 9
        monkeypatch.setattr(fdata, "BLOCK_SAMPLES", samples)
        np.testing.assert_array_equal(fdata.rmse_rows(hip, record, batch), plain)
        assert fdata.rmse_rows(hip, record, batch[1, 2]).shape == ()
        np.testing.assert_array_equal(fdata.rmse_rows(hip, record, batch[1, 2]), plain[1, 2])
    with pytest.raises(ValueError, match="parameters"):
        fdata.rmse_rows(hip, record, points[:, :-1])
