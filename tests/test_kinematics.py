"""paramid.calibration.kinematics: FK of both DH conventions, the 3 x 24 parameter Jacobian, IK."""

from __future__ import annotations

import numpy as np
import pytest
import reference_kinematics as ref

from paramid.calibration import kinematics as kin

E = ref.KR210_TABLE1.vector()
TOOL = np.array([60.0, 0.0, 120.0])


def _rz(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0, 0], [s, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1.0]])


def _rx(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[1, 0, 0, 0], [0, c, -s, 0], [0, s, c, 0], [0, 0, 0, 1.0]])


def _trans(x: float = 0.0, z: float = 0.0) -> np.ndarray:
    T = np.eye(4)
    T[0, 3], T[2, 3] = x, z
    return T


def _reference_fk(e: np.ndarray, q: np.ndarray, convention: str) -> np.ndarray:
    """Independent FK: the literal 4x4 products (standard DH; Eq 3 for modified DH)."""
    al, a, d, th = e[:6], e[6:12], e[12:18], e[18:]
    T = np.eye(4)
    for i in range(6):
        if convention == "standard":
            T = T @ _rz(th[i] + q[i]) @ _trans(z=d[i]) @ _trans(x=a[i]) @ _rx(al[i])
        else:  # Eq 3: Trans(x, a) Rot(x, alpha) Trans(z, d) Rot(z, theta)
            T = T @ _trans(x=a[i]) @ _rx(al[i]) @ _trans(z=d[i]) @ _rz(th[i] + q[i])
    return T


def test_kr210_home_pose_standard_dh():
    """Table 1 read as standard DH: q = 0 is KUKA's home pose (flange forward, 1765/0/1784)."""
    R, p = kin.forward(E, np.zeros(6))
    np.testing.assert_allclose(p, [350 + 1200 + 215, 0.0, 675 + 1150 - 41], atol=1e-9)
    np.testing.assert_allclose(R[:, 2], [1.0, 0.0, 0.0], atol=1e-12)  # flange axis along +x


def test_kr210_table_read_as_modified_dh_is_not_a_home_pose():
    """The same numbers through the paper's Eq 3 (MD-H) give no pose of this robot."""
    p = kin.positions(E, np.zeros(6), convention="modified")
    np.testing.assert_allclose(p, [1285.0, -525.0, 41.0], atol=1e-9)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_fk_matches_literal_matrix_products(convention):
    rng = np.random.default_rng(1)
    q = rng.uniform(-np.pi, np.pi, (7, 6))
    e = E + rng.normal(0, [1e-3] * 6 + [0.5] * 12 + [1e-3] * 6)
    T = ref.transform(e, q, convention=convention, tool=TOOL)
    for k in range(q.shape[0]):
        literal = _reference_fk(e, q[k], convention)
        np.testing.assert_allclose(T[k, :3, :3], literal[:3, :3], atol=1e-12)
        np.testing.assert_allclose(T[k, :3, 3], (literal @ np.r_[TOOL, 1.0])[:3], atol=1e-9)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_parameter_jacobian_matches_finite_differences(convention):
    rng = np.random.default_rng(2)
    q = rng.uniform(-np.pi, np.pi, (9, 6))
    J = ref.position_jacobian(E, q, convention=convention, tool=TOOL)
    assert J.shape == (9, 3, 24)
    h = 1e-6
    for j in range(kin.N_PARAMS):
        step = np.zeros(24)
        step[j] = h
        fd = (
            kin.positions(E + step, q, convention=convention, tool=TOOL)
            - kin.positions(E - step, q, convention=convention, tool=TOOL)
        ) / (2 * h)
        # central differences: error O(h^2 * |p|) ~ 1e-9 mm; columns reach ~3000 mm/rad
        np.testing.assert_allclose(J[..., j], fd, atol=2e-6, err_msg=kin.parameter_names()[j])


def test_jacobian_columns_follow_eq6_order():
    """Length columns are dimensionless unit-free directions (|dp/da| = |dp/dd| = 1)."""
    q = np.random.default_rng(3).uniform(-2, 2, (5, 6))
    J = ref.position_jacobian(E, q, tool=TOOL)
    np.testing.assert_allclose(np.linalg.norm(J[..., 6:18], axis=1), 1.0, atol=1e-12)
    assert kin.parameter_names()[:2] == ["alpha1", "alpha2"]
    assert kin.parameter_names()[-1] == "theta6"
    assert list(kin.parameter_units().values()).count("rad") == 12  # alpha and theta


def test_broadcasting_params_against_configurations():
    rng = np.random.default_rng(4)
    params = E + rng.normal(0, 1e-3, (4, 1, 24))
    q = rng.uniform(-1, 1, (5, 6))
    p = kin.positions(params, q, tool=TOOL)
    assert p.shape == (4, 5, 3)
    np.testing.assert_allclose(p[2, 3], kin.positions(params[2, 0], q[3], tool=TOOL))
    J, p2 = ref.position_jacobian(params, q, tool=TOOL, with_positions=True)
    assert J.shape == (4, 5, 3, 24)
    np.testing.assert_allclose(p2, p)


@pytest.mark.parametrize("convention", ["standard", "modified"])
def test_geometric_jacobian_matches_finite_differences(convention):
    rng = np.random.default_rng(5)
    q = rng.uniform(-2, 2, 6)
    G = kin.geometric_jacobian(E, q, convention=convention, tool=TOOL)
    h = 1e-7
    R0, _ = kin.forward(E, q, convention=convention, tool=TOOL)
    for i in range(6):
        dq = np.zeros(6)
        dq[i] = h
        Rp, pp = kin.forward(E, q + dq, convention=convention, tool=TOOL)
        Rm, pm = kin.forward(E, q - dq, convention=convention, tool=TOOL)
        np.testing.assert_allclose(G[:3, i], (pp - pm) / (2 * h), atol=1e-5)
        np.testing.assert_allclose(G[3:, i], kin.rotation_error(Rp, Rm) / (2 * h), atol=1e-7)
    assert R0.shape == (3, 3)


def test_inverse_kinematics_round_trip():
    rng = np.random.default_rng(6)
    q = rng.uniform(-1.5, 1.5, (20, 6))
    target = ref.transform(E, q, tool=TOOL)
    solved = kin.inverse_kinematics(E, target, q + rng.normal(0, 0.05, q.shape), tool=TOOL)
    np.testing.assert_allclose(solved, q, atol=1e-9)


def test_inverse_kinematics_reports_failure():
    target = ref.transform(E, np.zeros(6), tool=TOOL)
    target[0, 3] += 5000.0  # out of reach
    with pytest.raises(RuntimeError, match="did not converge"):
        kin.inverse_kinematics(E, target, np.zeros(6), tool=TOOL, max_iter=5)


def test_bad_inputs_raise():
    with pytest.raises(ValueError):
        kin.positions(E[:20], np.zeros(6))
    with pytest.raises(ValueError):
        kin.positions(E, np.zeros(5))
    with pytest.raises(ValueError):
        kin.DHTable.from_degrees([0] * 5, [0] * 6, [0] * 6, [0] * 6)
