"""Planar chain (issue #7): Newton–Euler vs closed-form / energy / Pinocchio, regressor, base
parameters, a 44-coefficient excitation, and recovery of the base parameters on the chain twin."""

from __future__ import annotations

import numpy as np
import pinocchio as pin
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramid.excitation import chain as ch
from paramid.excitation.design import design
from paramid.excitation.fourier import (
    FourierTrajectory,
    JointLimits,
    grid,
    limit_violation,
    rest_basis,
)

G = 9.81


@pytest.fixture(scope="module")
def chain4() -> ch.PlanarChain:
    return ch.PlanarChain(
        lengths=[0.40, 0.35, 0.30, 0.20],
        masses=[4.0, 3.0, 2.0, 1.0],
        com=[[0.20, 0.03], [0.17, -0.02], [0.15, 0.02], [0.10, 0.01]],
        inertia_com=[0.05, 0.03, 0.02, 0.01],
        fv=[1.0, 0.8, 0.5, 0.3],
        fc=[0.5, 0.4, 0.3, 0.2],
        gravity=G,
    )


@pytest.fixture(scope="module")
def base4(chain4) -> ch.BaseParameters:
    return ch.base_parameters(chain4.lengths, G)


def _states(n: int, k: int = 40, seed: int = 0):
    rng = np.random.default_rng(seed)
    return rng.uniform(-np.pi, np.pi, (k, n)), rng.normal(size=(k, n)), rng.normal(size=(k, n))


def test_two_link_newton_euler_equals_closed_form_lagrange_equations():
    m1, m2, l1, lc1, lc2, i1, i2 = 3.0, 2.0, 0.5, 0.25, 0.2, 0.05, 0.03
    two = ch.PlanarChain([l1, 0.4], [m1, m2], [[lc1, 0], [lc2, 0]], [i1, i2], [0, 0], [0, 0], G)
    q, qd, qdd = _states(2)
    c2, s2 = np.cos(q[:, 1]), np.sin(q[:, 1])
    m11 = i1 + i2 + m1 * lc1**2 + m2 * (l1**2 + lc2**2 + 2 * l1 * lc2 * c2)
    m12 = i2 + m2 * (lc2**2 + l1 * lc2 * c2)
    m22 = i2 + m2 * lc2**2
    h = m2 * l1 * lc2 * s2
    g2 = m2 * lc2 * G * np.cos(q[:, 0] + q[:, 1])
    g1 = (m1 * lc1 + m2 * l1) * G * np.cos(q[:, 0]) + g2
    tau1 = m11 * qdd[:, 0] + m12 * qdd[:, 1] - h * (2 * qd[:, 0] * qd[:, 1] + qd[:, 1] ** 2) + g1
    tau2 = m12 * qdd[:, 0] + m22 * qdd[:, 1] + h * qd[:, 0] ** 2 + g2
    np.testing.assert_allclose(
        ch.inverse_dynamics(two, q, qd, qdd), np.column_stack([tau1, tau2]), atol=1e-12
    )


def _energy(chain: ch.PlanarChain, q, qd):
    """Kinetic + potential energy from the centres of mass (independent of the recursion)."""
    theta, omega = np.cumsum(q, 1), np.cumsum(qd, 1)
    p = np.zeros((len(q), 2))
    v = np.zeros((len(q), 2))
    energy = np.zeros(len(q))
    for j in range(chain.n):
        c, s = np.cos(theta[:, j]), np.sin(theta[:, j])
        rc = np.column_stack(
            [c * chain.com[j, 0] - s * chain.com[j, 1], s * chain.com[j, 0] + c * chain.com[j, 1]]
        )
        vc = v + omega[:, j, None] * np.column_stack([-rc[:, 1], rc[:, 0]])
        energy += (
            0.5 * chain.masses[j] * (vc**2).sum(1) + 0.5 * chain.inertia_com[j] * omega[:, j] ** 2
        )
        energy += chain.masses[j] * G * (p[:, 1] + rc[:, 1])
        r = chain.lengths[j] * np.column_stack([c, s])
        v = v + omega[:, j, None] * np.column_stack([-r[:, 1], r[:, 0]])
        p = p + r
    return energy


def test_four_link_power_balance_dE_dt_equals_tau_dot_qd(chain4):
    rng = np.random.default_rng(5)
    traj = FourierTrajectory(
        rng.normal(size=4), rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), 2 * np.pi / 4
    )
    t = np.linspace(0, 4, 40_001)
    q, qd, qdd = traj.evaluate(t)
    frictionless = ch.PlanarChain(
        chain4.lengths, chain4.masses, chain4.com, chain4.inertia_com, np.zeros(4), np.zeros(4), G
    )
    power = (ch.inverse_dynamics(frictionless, q, qd, qdd) * qd).sum(1)
    d_energy = np.gradient(_energy(frictionless, q, qd), t)
    np.testing.assert_allclose(d_energy[1:-1], power[1:-1], atol=1e-5 * np.abs(power).max())


def _urdf(chain: ch.PlanarChain) -> str:
    """The chain as a URDF: joint j about z at the end of link j−1 (x = lⱼ₋₁ in its frame), link
    j's centre of mass and centroidal Izz as the chain's.  Out-of-plane terms the chain leaves
    out (a z offset of the centre of mass, Ixx, Iyy, products of inertia) are nonzero: they
    must not change the torques about z."""
    links, joints, parent, x = ['<link name="base"/>'], [], "base", 0.0
    for j in range(chain.n):
        (cx, cy), izz = chain.com[j].tolist(), float(chain.inertia_com[j])
        links.append(
            f'<link name="l{j}"><inertial><origin xyz="{cx!r} {cy!r} 0.05" rpy="0 0 0"/>'
            f'<mass value="{float(chain.masses[j])!r}"/><inertia ixx="{izz!r}" iyy="{izz!r}" '
            f'izz="{izz!r}" ixy="{0.1 * izz!r}" ixz="{0.2 * izz!r}" iyz="{0.1 * izz!r}"/>'
            "</inertial></link>"
        )
        joints.append(
            f'<joint name="j{j}" type="revolute"><parent link="{parent}"/><child link="l{j}"/>'
            f'<origin xyz="{x!r} 0 0" rpy="0 0 0"/><axis xyz="0 0 1"/>'
            '<limit lower="-10" upper="10" effort="1000" velocity="1000"/></joint>'
        )
        parent, x = f"l{j}", float(chain.lengths[j])
    return f'<robot name="chain">{"".join(links + joints)}</robot>'


@settings(max_examples=30, deadline=None)
@given(n=st.integers(2, 4), seed=st.integers(0, 2**32 - 1))
def test_newton_euler_and_regressor_equal_pinocchio(n, seed):
    """Random chains (gravity along −y, as the chain's base acceleration (0, g)) at random
    states: :func:`rnea`, :func:`inverse_dynamics` less its friction and Y θ less the friction
    columns equal ``pin.rnea`` on the URDF; the chain's inertial columns equal Pinocchio's
    joint-torque regressor's columns of (Izz about the joint, m cx, m cy, m), and Pinocchio's
    other six columns per link are zero on the plane."""
    rng = np.random.default_rng(seed)
    chain = ch.PlanarChain(
        lengths=rng.uniform(0.1, 1.0, n),
        masses=rng.uniform(0.5, 5.0, n),
        com=rng.uniform(-0.3, 0.3, (n, 2)),
        inertia_com=rng.uniform(0.01, 0.2, n),
        fv=rng.uniform(0.0, 1.0, n),
        fc=rng.uniform(0.0, 1.0, n),
        gravity=rng.uniform(1.0, 20.0),
    )
    model = pin.buildModelFromXML(_urdf(chain))
    model.gravity.linear = np.array([0.0, -chain.gravity, 0.0])
    data = model.createData()
    q, qd, qdd = _states(n, k=8, seed=seed)
    states = list(zip(q, qd, qdd, strict=True))
    reference = np.array([pin.rnea(model, data, *x) for x in states])
    friction = chain.fv * qd + chain.fc * np.sign(qd)
    scale = 1e-10 * np.abs(reference).max()
    ours = ch.rnea(chain.lengths, chain.gravity, q, qd, qdd, chain.inertial_parameters())
    np.testing.assert_allclose(ours, reference, rtol=1e-10, atol=scale)
    tau = ch.inverse_dynamics(chain, q, qd, qdd) - friction
    np.testing.assert_allclose(tau, reference, rtol=1e-10, atol=scale)
    Y = ch.regressor(chain.lengths, chain.gravity, q, qd, qdd)
    np.testing.assert_allclose(Y @ chain.standard_parameters() - friction, reference, atol=scale)
    # pin's per-link order: m, mcx, mcy, mcz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz (about the joint)
    pin_Y = np.array([pin.computeJointTorqueRegressor(model, data, *x) for x in states])
    pin_Y = pin_Y.reshape(len(q), n, n, 10)
    inertial = Y.reshape(len(q), n, n, 6)[..., :4]
    np.testing.assert_allclose(inertial, pin_Y[..., [9, 1, 2, 0]], rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pin_Y[..., 3:9], 0.0, atol=1e-12)


def test_regressor_is_linear_in_the_standard_parameters(chain4):
    q, qd, qdd = _states(4)
    Y = ch.regressor(chain4.lengths, G, q, qd, qdd)
    assert Y.shape == (40, 4, 24)
    np.testing.assert_allclose(
        Y @ chain4.standard_parameters(), ch.inverse_dynamics(chain4, q, qd, qdd), atol=1e-12
    )
    # closed form = Newton–Euler run on the unit parameter vectors
    inertial = Y.reshape(40, 4, 4, 6)[..., :4].reshape(40, 4, 16)
    units = np.eye(16).reshape(16, 4, 4)  # one unit inertial parameter vector per column
    numerical = ch.rnea(chain4.lengths, G, q, qd, qdd, units).transpose(0, 2, 1)
    np.testing.assert_allclose(inertial, numerical, atol=1e-12)


def test_base_parameters_are_the_known_planar_combinations(chain4, base4):
    assert base4.rank == 20  # 3 inertial per link + 2 friction per joint
    assert not any(name.startswith("M") and name[1:].isdigit() for name in base4.names)
    combos = dict(zip(base4.names, base4.expressions, strict=True))
    assert combos["ZZ1"] == "ZZ1 + 0.16*M2 + 0.16*M3 + 0.16*M4"  # l1^2 (M2 + M3 + M4)
    assert combos["MX3"] == "MX3 + 0.3*M4"
    assert combos["MY2"] == "MY2"


def _planar_regrouping(lengths: np.ndarray) -> np.ndarray:
    """B (5n × 6n) of the planar chain's base parameters by hand (Gautier & Khalil's
    regrouping): ZZⱼ + lⱼ² ΣMᵢ and MXⱼ + lⱼ ΣMᵢ over the links i > j, MYⱼ, FVⱼ, FCⱼ."""
    n = lengths.size
    rows = []
    for j in range(n):
        for k, scale in ((0, lengths[j] ** 2), (1, lengths[j]), (2, 0.0), (4, 0.0), (5, 0.0)):
            row = np.zeros(6 * n)
            row[6 * j + k] = 1.0
            row[6 * (j + 1) + 3 :: 6] = scale
            rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize("n", [1, 2, 3, 4, 5, 6])
def test_base_parameters_are_the_robots_pivoted_qr_and_the_planar_regrouping(chain4, base4, n):
    """The chain's base parameters (by :func:`paramid.base_parameters.base_parameters`, one
    pivoted QR for chains and robots): chain4's independent columns are those the chain's own
    QR chose before, and every chain's map is the regrouping by hand, the masses always folded
    (the chain's own pivot order once kept M5 of a 5-link chain of ~1 m links instead of
    ZZ1)."""
    lengths = chain4.lengths if n == 4 else np.random.default_rng(n).uniform(0.1, 1.0, n)
    base = base4 if n == 4 else ch.base_parameters(lengths, G)
    assert base.rank == 5 * n and len(base.expressions) == 5 * n
    if n == 4:
        before = [0, 1, 2, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 16, 17, 18, 19, 20, 22, 23]
        assert base.independent.tolist() == before
    np.testing.assert_allclose(base.matrix, _planar_regrouping(lengths), atol=1e-12)


def test_base_regressor_has_full_rank_and_reproduces_the_full_model(chain4, base4):
    q, qd, qdd = _states(4, k=60, seed=9)
    Yb = ch.base_regressor(base4, chain4.lengths, G, q, qd, qdd)
    assert np.linalg.matrix_rank(Yb.reshape(-1, base4.rank)) == base4.rank
    tau = ch.inverse_dynamics(chain4, q, qd, qdd)
    np.testing.assert_allclose(Yb @ (base4.matrix @ chain4.standard_parameters()), tau, atol=1e-11)
    # any standard parameter vector: the folded parameters give the same torques
    theta = np.random.default_rng(2).normal(size=24)
    Y = ch.regressor(chain4.lengths, G, q, qd, qdd)
    np.testing.assert_allclose(Yb @ (base4.matrix @ theta), Y @ theta, atol=1e-11)


def _rest_trajectory(seed: int = 4) -> FourierTrajectory:
    rng = np.random.default_rng(seed)
    theta = rest_basis(5) @ rng.normal(scale=0.6, size=(9, 4))
    theta[0] = [-np.pi / 2, 0.2, -0.2, 0.1]
    return FourierTrajectory.from_theta(theta, 2 * np.pi / 10)


def test_noise_free_twin_recovers_the_base_parameters(chain4, base4):
    traj = _rest_trajectory()
    noise = ch.ChainNoise(torque_noise_relative=0.0, encoder_noise_rad=0.0, torque_noise_nm=0.0)
    rec = ch.simulate(chain4, traj, 10.0, noise, seed=0, record="calibration")
    beta = base4.matrix @ chain4.standard_parameters()
    # on the twin's own (analytic) motion: exact
    Yb = ch.base_regressor(
        base4, chain4.lengths, G, rec.angle_true, rec.velocity_true, rec.acceleration_true
    )
    exact = np.linalg.lstsq(Yb.reshape(-1, 20), rec.torque.ravel(), rcond=None)[0]
    np.testing.assert_allclose(exact, beta, rtol=1e-9, atol=1e-10)
    # through the signal chain (periodic filter + central differences at 100 Hz)
    est, proc = ch.identify(chain4, base4, rec, periods=1, cutoff_hz=15.0, order=4, trim_s=0.2)
    assert proc.q.shape == (4, 960)
    np.testing.assert_allclose(est, beta, rtol=2e-2, atol=2e-3)


def test_noisy_twin_with_period_averaging_recovers_the_base_parameters(chain4, base4):
    traj = _rest_trajectory()
    rec = ch.simulate(chain4, traj, 30.0, ch.ChainNoise(), seed=0, record="calibration")
    est, _ = ch.identify(chain4, base4, rec, periods=3, cutoff_hz=15.0, order=4, trim_s=0.2)
    beta = base4.matrix @ chain4.standard_parameters()
    assert np.linalg.norm(est - beta) / np.linalg.norm(beta) < 0.02


def test_four_joint_design_has_44_coefficients_and_keeps_its_limits(chain4, base4):
    limits = JointLimits.from_degrees([-150, -60, -60, -60], [-30, 60, 60, 60], [90] * 4, [300] * 4)
    d = design(
        ch.design_regressor(chain4, base4),
        limits,
        order=5,
        omega_f=2 * np.pi / 10,
        grid_points=40,
        starts=1,
        sign_smoothing=[0.1],
        maxiter=15,
        seed_keys=("test", "chain"),
    )
    assert d.trajectory.theta.size == 44
    fine = grid(10.0, 400)
    assert max(limit_violation(d.trajectory, limits, fine).values()) <= 0.0
    assert np.isfinite(d.cond) and d.cond < 1e3
    _, qd, qdd = d.trajectory.evaluate(np.array([0.0, 10.0]))
    np.testing.assert_allclose(qd, 0.0, atol=1e-10)
    np.testing.assert_allclose(qdd, 0.0, atol=1e-10)


LINKS = zip(  # chain4's links: length, mass, centre of mass, centroidal Izz, fv, fc
    [0.40, 0.35, 0.30, 0.20],
    [4.0, 3.0, 2.0, 1.0],
    [[0.20, 0.03], [0.17, -0.02], [0.15, 0.02], [0.10, 0.01]],
    [0.05, 0.03, 0.02, 0.01],
    [1.0, 0.8, 0.5, 0.3],
    [0.5, 0.4, 0.3, 0.2],
    strict=True,
)
BLOCK = {  # a chain design block as the workflow passes it
    "gravity": G,
    "base_samples": 200,
    "links": [
        {"length_m": ln, "mass_kg": m, "com_m": c, "inertia_com_kgm2": i, "fv": v, "fc": f}
        for ln, m, c, i, v, f in LINKS
    ],
    "limits": {
        "q_min_deg": [-150.0, -60.0, -60.0, -60.0],
        "q_max_deg": [-30.0, 60.0, 60.0, 60.0],
        "qd_max_deg_s": [90.0] * 4,
        "qdd_max_deg_s2": [300.0] * 4,
    },
}


def test_chain_of_and_design_inputs_read_a_design_block(chain4, base4):
    chain, base = ch.chain_of(BLOCK)
    np.testing.assert_array_equal(chain.standard_parameters(), chain4.standard_parameters())
    np.testing.assert_array_equal(base.matrix, base4.matrix)
    assert base.names == base4.names
    fn, limits = ch.design_inputs(BLOCK)
    expected = JointLimits.from_degrees(
        [-150, -60, -60, -60], [-30, 60, 60, 60], [90] * 4, [300] * 4
    )
    assert limits.to_dict() == expected.to_dict()
    q, qd, qdd = _states(4, k=5)
    np.testing.assert_array_equal(
        fn(q, qd, qdd, 0.0), ch.design_regressor(chain4, base4)(q, qd, qdd, 0.0)
    )


def test_chain_noise_from_config_ignores_the_other_twin_settings():
    twin = {"sample_rate_hz": 200.0, "torque_noise_relative": 0.01, "encoder_noise_rad": 2e-5,
            "coulomb_smoothing_velocity": 0.0, "torque_noise_nm": 0.02, "seed": 3}  # fmt: skip
    assert ch.ChainNoise.from_config(twin) == ch.ChainNoise(200.0, 0.01, 2e-5, 0.0, 0.02)


def test_recovery_table_and_summary_on_a_noise_free_twin(chain4, base4):
    twin = {"sample_rate_hz": 100.0, "torque_noise_relative": 0.0, "encoder_noise_rad": 0.0,
            "coulomb_smoothing_velocity": 0.0, "torque_noise_nm": 0.0, "seed": 0}  # fmt: skip
    ident = {"periods": 1, "cutoff_hz": 15.0, "filter_order": 4, "trim_s": 0.2,
             "periodic_filter": True}  # fmt: skip
    table, summary = ch.recovery(chain4, base4, _rest_trajectory(), twin, ident)
    # the same as simulate + identify by hand (test_noise_free_twin_recovers_the_base_parameters)
    noise = ch.ChainNoise(torque_noise_relative=0.0, encoder_noise_rad=0.0, torque_noise_nm=0.0)
    rec = ch.simulate(chain4, _rest_trajectory(), 10.0, noise, seed=0, record="calibration")
    est, proc = ch.identify(chain4, base4, rec, periods=1, cutoff_hz=15.0, order=4, trim_s=0.2)
    beta = base4.matrix @ chain4.standard_parameters()
    assert tuple(table["param"]) == base4.names
    np.testing.assert_array_equal(table["estimate"], est)
    np.testing.assert_array_equal(table["true"], beta)
    np.testing.assert_array_equal(table["rel_error"], np.abs(est - beta) / np.abs(beta))
    assert summary["relative_l2_error"] == np.linalg.norm(est - beta) / np.linalg.norm(beta)
    assert summary["relative_l2_error"] < 2e-2 and summary["rows"] == proc.q.size == 4 * 960
    assert summary["max_rel_error"] == table["rel_error"].max() and summary["rank"] == base4.rank
    assert summary["standard_parameters"] == ch.standard_names(4)
