"""paramid.robot.model and .base (issue #16 item 1): URDF robot with locked joints, regressor vs
``pin.rnea``, friction columns, base parameters by pivoted QR, and bad input."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pinocchio as pin
import pytest
from loaders import load_robot
from scipy.spatial.transform import Rotation

from paramid.base_parameters import base_columns, base_parameters, unidentified
from paramid.io import UserError
from paramid.robot import base, checks, model, study
from paramid.robot.base import structural_base
from paramid.robot.estimators import to_base
from paramid.robot.model import (
    Robot,
    RobotError,
    friction_columns,
    held_offsets,
    inverse_dynamics,
    joint_kinds,
    joint_ranges,
    link_parameter_slices,
    pin_configuration,
    regressor,
    robot_from_model,
    urdf_parameters,
    with_offsets,
)
from paramid.robot.records import RobotRecord

ROOT = Path(__file__).resolve().parents[1]
KINOVA_URDF = ROOT / "data" / "kinova_gen3" / "kinovaGen3.urdf"
KINOVA_JOINTS = [f"joint_{k}" for k in range(1, 8)]

SMALL_URDF = """<?xml version="1.0"?>
<robot name="small">
  <link name="base"/>
  <link name="upper">
    <inertial><origin xyz="0.01 0.02 0.15" rpy="0.1 0 0"/><mass value="2.0"/>
      <inertia ixx="0.03" ixy="0.001" ixz="0.002" iyy="0.04" iyz="0.003" izz="0.01"/></inertial>
  </link>
  <link name="fore">
    <inertial><origin xyz="0.2 0.01 0" rpy="0 0.2 0"/><mass value="1.5"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial>
  </link>
  <link name="slider">
    <inertial><origin xyz="0 0 0.05"/><mass value="0.5"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.002"/></inertial>
  </link>
  <link name="finger">
    <inertial><origin xyz="0.03 0 0"/><mass value="0.2"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0002" iyz="0" izz="0.0002"/></inertial>
  </link>
  <link name="tool">
    <inertial><origin xyz="0 0 0.02"/><mass value="0.3"/>
      <inertia ixx="0.0003" ixy="0" ixz="0" iyy="0.0003" iyz="0" izz="0.0001"/></inertial>
  </link>
  <joint name="spin" type="continuous"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/></joint>
  <joint name="elbow" type="revolute"><parent link="upper"/><child link="fore"/>
    <origin xyz="0 0 0.3" rpy="0.3 0 0"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="10" velocity="2"/></joint>
  <joint name="slide" type="prismatic"><parent link="fore"/><child link="slider"/>
    <origin xyz="0.4 0 0"/><axis xyz="1 0 0"/>
    <limit lower="-0.1" upper="0.1" effort="50" velocity="1"/></joint>
  <joint name="grip" type="revolute"><parent link="slider"/><child link="finger"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="flange" type="fixed"><parent link="slider"/><child link="tool"/>
    <origin xyz="0 0 0.08"/></joint>
</robot>
"""


@pytest.fixture(scope="module")
def kinova() -> Robot:
    return load_robot(KINOVA_URDF, KINOVA_JOINTS)


@pytest.fixture(scope="module")
def small_urdf(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("urdf") / "small.urdf"
    path.write_text(SMALL_URDF)
    return path


def states(n: int, joints: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return (
        rng.uniform(-4.0, 4.0, (n, joints)),  # beyond ±π: continuous joints wrap
        rng.normal(0.0, 2.0, (n, joints)),
        rng.normal(0.0, 5.0, (n, joints)),
    )


def rnea_reference(model: pin.Model, q_full: np.ndarray, v: np.ndarray, a: np.ndarray):
    data = model.createData()
    return np.array([pin.rnea(model, data, *x) for x in zip(q_full, v, a, strict=True)])


def random_inertial(robot: Robot, seed: int) -> np.ndarray:
    """θ with physically plausible random inertias (so rnea can carry them) and friction."""
    rng = np.random.default_rng(seed)
    theta = np.zeros(robot.n_parameters)
    for k in range(len(robot.links)):
        inertia = pin.Inertia.Random()
        inertia.mass = rng.uniform(0.5, 3.0)
        theta[10 * k : 10 * k + 10] = inertia.toDynamicParameters()
    theta[robot.n_inertial :] = rng.uniform(0.1, 2.0, robot.n_parameters - robot.n_inertial)
    return theta


# ------------------------------------------------------------------------------------------------
# Regressor against pin.rnea
# ------------------------------------------------------------------------------------------------


def test_kinova_rnea_equals_regressor_times_urdf_parameters(kinova: Robot) -> None:
    assert kinova.model.nq == 11 and kinova.model.nv == 7  # 4 continuous joints: (cos, sin)
    q, dq, ddq = states(300, 7, seed=1)
    tau = rnea_reference(kinova.model, pin_configuration(kinova, q), dq, ddq)
    theta = urdf_parameters(kinova)
    assert np.abs(tau).max() > 1.0
    assert np.abs(regressor(kinova, q, dq, ddq) @ theta - tau).max() < 1e-10
    assert np.abs(inverse_dynamics(kinova, q, dq, ddq, theta) - tau).max() < 1e-10


def test_kinova_names_and_urdf_values(kinova: Robot) -> None:
    names = kinova.standard_names
    assert len(names) == 70 + 14 and kinova.n_parameters == 84
    assert names[:2] == ["m_shoulder_link", "mx_shoulder_link"]
    assert names[9] == "Izz_shoulder_link" and names[70:72] == ["fv_joint_1", "fc_joint_1"]
    theta = urdf_parameters(kinova)
    masses = theta[[s.start for s in link_parameter_slices(kinova).values()]]
    assert masses.sum() == pytest.approx(6.401, abs=1e-3)  # SOURCE.md: moving mass 6.401 kg
    assert np.all(theta[70:] == 0)


def test_sample_manipulator_locking_and_any_theta() -> None:
    """Pinocchio's sample arm (no file): 4 of 6 joints move, 2 locked; rows in the user's order."""
    full = pin.buildSampleModelManipulator()
    joints = ["elbow_joint", "shoulder1_joint", "wrist2_joint", "shoulder2_joint"]
    robot = robot_from_model(full, joints, locked={"shoulder3_joint": 0.7}, offset=True)
    assert robot.n_joints == 4 and robot.n_inertial == 40
    assert dict(robot.locked) == {"shoulder3_joint": 0.7, "wrist1_joint": 0.0}
    q, dq, ddq = states(50, 4, seed=2)
    ids = [full.getJointId(j) - 1 for j in joints]  # all joints of the sample arm are 1-DOF
    q_full, v_full, a_full = (np.zeros((50, 6)) for _ in range(3))
    q_full[:, full.getJointId("shoulder3_joint") - 1] = 0.7
    q_full[:, ids], v_full[:, ids], a_full[:, ids] = q, dq, ddq
    tau = rnea_reference(full, q_full, v_full, a_full)[:, ids]
    theta = urdf_parameters(robot)
    assert np.abs(regressor(robot, q, dq, ddq) @ theta - tau).max() < 1e-10
    other = random_inertial(robot, seed=3)
    Y = regressor(robot, q, dq, ddq)
    assert np.abs(Y @ other - inverse_dynamics(robot, q, dq, ddq, other)).max() < 1e-10


def test_small_urdf_continuous_prismatic_locked_fixed(small_urdf: Path) -> None:
    robot = load_robot(small_urdf, ["spin", "elbow", "slide"], locked={"grip": 0.4})
    assert robot.links == ("upper", "fore", "slider")  # tool (fixed) and finger (locked) merged
    full = pin.buildModelFromUrdf(str(small_urdf))
    q, dq, ddq = states(40, 3, seed=4)
    q[:, 2] *= 0.02
    q_full = np.zeros((40, full.nq))
    q_full[:, 0], q_full[:, 1] = np.cos(q[:, 0]), np.sin(q[:, 0])
    q_full[:, 2], q_full[:, 3], q_full[:, 4] = q[:, 1], q[:, 2], 0.4
    pad = np.zeros((40, 1))
    tau = rnea_reference(full, q_full, np.hstack([dq, pad]), np.hstack([ddq, pad]))[:, :3]
    theta = urdf_parameters(robot)
    assert theta[20] == pytest.approx(0.5 + 0.2 + 0.3)  # slider + locked finger + fixed tool
    assert np.abs(regressor(robot, q, dq, ddq) @ theta - tau).max() < 1e-10
    assert np.abs(inverse_dynamics(robot, q, dq, ddq, theta) - tau).max() < 1e-10


def test_which_locked_joints_lie_on_the_identified_chain(small_urdf: Path) -> None:
    """A joint on another branch of the tree (a second arm's, here one on the upper link beside
    the elbow) moves no identified joint's torque; an ancestor (spin) and a descendant (grip)
    do."""
    side = """  <link name="side">
    <inertial><origin xyz="0.05 0 0"/><mass value="0.4"/>
      <inertia ixx="0.001" ixy="0" ixz="0" iyy="0.001" iyz="0" izz="0.001"/></inertial>
  </link>
  <joint name="side_joint" type="revolute"><parent link="upper"/><child link="side"/>
    <origin xyz="0 0.1 0.2"/><axis xyz="1 0 0"/>
    <limit lower="-1" upper="1" effort="5" velocity="1"/></joint>
</robot>"""
    tree = small_urdf.with_name("tree.urdf")
    tree.write_text(small_urdf.read_text().replace("</robot>", side))
    robot = load_robot(tree, ["elbow", "slide"])
    in_chain = dict(zip((j for j, _ in robot.locked), robot.locked_in_chain, strict=True))
    assert in_chain == {"spin": True, "grip": True, "side_joint": False}
    assert load_robot(tree, ["spin", "elbow"]).locked_in_chain == (True, True, True)


def test_a_lock_outside_the_urdf_limits_is_named(small_urdf: Path) -> None:
    """A finger locked at 3 m (travel 0-0.04 m) was written into the exported URDF, and a
    joint left out of `joints:` sat at its default 0 outside its limits, without a word."""
    load_robot(small_urdf, ["spin", "elbow", "slide"], locked={"grip": 1.02})  # within 2 %
    load_robot(small_urdf, ["spin", "elbow", "slide"], locked={"grip": 0.5 + 2 * np.pi})  # a turn
    with pytest.raises(RobotError, match=r"^locked: 'grip' at 3 rad \[limits -1, 1\]: outside"):
        load_robot(small_urdf, ["spin", "elbow", "slide"], locked={"grip": 3.0})
    both = r"'slide' at 0.5 m \[limits -0.1, 0.1\]; 'grip' at 3 rad \[limits -1, 1\]"
    with pytest.raises(RobotError, match=both):  # every such lock in one message
        load_robot(small_urdf, ["spin", "elbow"], locked={"slide": 0.5, "grip": 3.0})
    text = small_urdf.read_text().replace('lower="-2" upper="2"', 'lower="0.5" upper="2"')
    shifted = small_urdf.with_name("shifted.urdf")
    shifted.write_text(text)
    with pytest.raises(RobotError, match=r"'elbow' at 0 rad \(the default: not in `joints:`\)"):
        load_robot(shifted, ["spin", "slide", "grip"])  # the elbow's limits are [0.5, 2]


def test_a_free_link_fixed_to_a_moving_one_names_the_body_that_carries_it(
    small_urdf: Path,
) -> None:
    """A Panda user freed ``panda_hand``, the gripper's link, which fixed joints weld to
    ``panda_link7``: the start stopped with "not moving links" and the list of them, without
    saying which one holds the hand. The body that carries a fixed or locked link is named,
    and a link on the fixed base is told as such."""
    from paramid.io import UserError
    from paramid.robot import priors

    robot = load_robot(small_urdf, ["spin", "elbow", "slide"])  # grip locked: finger welded
    carriers = model.carrying_links(robot)
    assert carriers == {
        "base": "",
        "upper": "upper",
        "fore": "fore",
        "slider": "slider",
        "finger": "slider",
        "tool": "slider",
    }
    links = model.link_parameter_slices(robot)
    expected = (
        r"^arm.lmi.free_links: \['base', 'tool'\] are not moving links; they are \['upper', "
        r"'fore', 'slider'\]\. 'base' is on the fixed base: no joint moves it\. 'tool' is fixed "
        r"to 'slider', whose body carries it: free 'slider'$"
    )
    with pytest.raises(UserError, match=expected):
        priors.pulled_links(links, ["tool", "base"], "arm.lmi.free_links", carriers)
    with pytest.raises(UserError, match=r"\['gripper'\] are not moving links; they are \[.*\]$"):
        priors.pulled_links(links, ["gripper"], "arm.lmi.free_links", carriers)  # no such link
    assert list(priors.pulled_links(links, ["slider"], "f", carriers)) == ["upper", "fore"]


def _with_mimic_finger(urdf: Path, mimic: str, number: int = 2) -> Path:
    """``urdf`` with finger ``number`` on the slider, its joint ``grip<number>`` carrying
    ``mimic``, written beside it."""
    finger = f"""  <link name="finger{number}">
    <inertial><origin xyz="0.04 0.01 0"/><mass value="0.25"/>
      <inertia ixx="0.0001" ixy="0" ixz="0" iyy="0.0002" iyz="0" izz="0.0002"/></inertial>
  </link>
  <joint name="grip{number}" type="revolute"><parent link="slider"/><child link="finger{number}"/>
    <origin xyz="0 {0.01 * number} 0.1"/><axis xyz="0 0 1"/>
    <limit lower="-1" upper="1" effort="1" velocity="1"/>{mimic}</joint>
</robot>"""
    path = urdf.with_name(f"{urdf.stem}_finger{number}_{len(mimic)}.urdf")
    path.write_text(urdf.read_text().replace("</robot>", finger))
    return path


def test_a_locked_mimic_joint_follows_its_leader(small_urdf: Path) -> None:
    """A URDF ``<mimic>`` (a gripper's second finger) locked with its leader sits at
    multiplier · leader + offset, as a model with both locked there by hand; it used to stay
    at 0 while the leader was locked closed. A value given against its leader, or a mimic of
    an identified joint (it cannot follow in a model that holds it), is refused."""
    urdf = _with_mimic_finger(small_urdf, '<mimic joint="grip" multiplier="-1.5" offset="0.1"/>')
    arm = ["spin", "elbow", "slide"]
    robot = load_robot(urdf, arm, locked={"grip": 0.4})
    assert dict(robot.locked)["grip2"] == pytest.approx(-0.5)
    by_hand = load_robot(urdf, arm, locked={"grip": 0.4, "grip2": -0.5})
    q, dq, ddq = states(30, 3, seed=8)
    q[:, 2] *= 0.02
    theta = urdf_parameters(robot)
    np.testing.assert_allclose(theta, urdf_parameters(by_hand), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(
        regressor(robot, q, dq, ddq), regressor(by_hand, q, dq, ddq), rtol=0, atol=1e-12
    )
    unfollowed = urdf_parameters(load_robot(_with_mimic_finger(small_urdf, ""), arm, {"grip": 0.4}))
    assert np.abs(theta - unfollowed).max() > 1e-3  # the finger's pose moves the slider's CoM
    with pytest.raises(RobotError, match=r"'grip2' at 0.2 but it mimics 'grip'.*sits at -0.5"):
        load_robot(urdf, arm, locked={"grip": 0.4, "grip2": 0.2})
    with pytest.raises(RobotError, match=r"'grip2' follows 'grip' .*which is identified"):
        load_robot(urdf, [*arm, "grip"])
    load_robot(urdf, [*arm, "grip", "grip2"])  # both logged: each moves as recorded


def test_a_logged_mimic_finger_held_elsewhere_names_its_leader(small_urdf: Path) -> None:
    """Both fingers logged, held at 0.3 while the model locks the leader at 0 (``locked:``
    left out): the leader alone is told to be locked there (the follower was told "set
    locked: {grip2: ...}", which the mimic check refuses); the follower logged alone names
    its leader's lock."""
    from paramid.robot import checks
    from paramid.robot.records import RobotRecord

    urdf = _with_mimic_finger(small_urdf, '<mimic joint="grip" multiplier="-1.5" offset="0.1"/>')
    arm = ["spin", "elbow", "slide"]
    robot = load_robot(urdf, arm)
    assert dict(zip(dict(robot.locked), robot.locked_leaders, strict=True))["grip2"] == "grip"
    n = 200
    time = np.arange(n) / 100.0
    q = np.column_stack([np.sin(time), np.cos(time), 0.01 * np.sin(time)])
    held = np.full(n, 0.3)
    record = RobotRecord(
        time, q, None, np.zeros_like(q), tuple(arm), 100.0, 0.0, False,
        locked_q={"grip": held, "grip2": -1.5 * held + 0.1},
    )  # fmt: skip
    found = checks.locked_joints(record, robot)
    assert [joint for _, joint, _ in found] == ["grip"]
    assert "set `locked: {grip: 0.3}`" in found[0][2]
    alone = dataclasses.replace(record, locked_q={"grip2": -1.5 * held + 0.1})
    [(_, joint, message)] = checks.locked_joints(alone, robot)
    assert joint == "grip2" and "by its <mimic> of 'grip': lock 'grip' where" in message


def test_a_mimic_chain_an_out_of_range_mimic_and_a_whole_turn(small_urdf: Path) -> None:
    """A mimic of a mimic of an identified joint was locked (only the chain's root was
    checked); a mimic whose leader's lock put it outside its range was told to set its own
    lock, which the mimic check then refused; a value a whole turn away was refused."""
    grip2 = _with_mimic_finger(small_urdf, '<mimic joint="grip" multiplier="-1.5" offset="0.1"/>')
    chain = _with_mimic_finger(grip2, '<mimic joint="grip2"/>', number=3)
    arm = ["spin", "elbow", "slide"]
    assert dict(load_robot(chain, arm, locked={"grip": 0.4}).locked)["grip3"] == pytest.approx(-0.5)
    with pytest.raises(RobotError, match=r"'grip3' follows 'grip2' .*which is identified"):
        load_robot(chain, [*arm, "grip2"], locked={"grip": 0.4})
    with pytest.raises(RobotError, match=r"'grip2' at -1.25 rad \(by its <mimic> of 'grip'"):
        load_robot(grip2, arm, locked={"grip": 0.9})
    load_robot(grip2, arm, locked={"grip": 0.4, "grip2": -0.5 + 2 * np.pi})  # the same pose


@pytest.mark.parametrize(("lower", "upper"), [("0.3", "0.3"), ("2", "-2")])
def test_an_empty_or_reversed_urdf_range_is_named(small_urdf: Path, lower, upper) -> None:
    """Read as ±π, such a range let the excitation design drive the joint over [-1.2, 3.0]."""
    text = small_urdf.read_text().replace(
        'lower="-2" upper="2"', f'lower="{lower}" upper="{upper}"'
    )
    path = small_urdf.with_name(f"range_{lower}_{upper}.urdf")
    path.write_text(text)
    with pytest.raises(RobotError, match=rf"'elbow' \[lower {lower}, upper {upper}\]: an empty"):
        load_robot(path, ["spin", "elbow", "slide"])
    load_robot(path, ["spin", "slide"], locked={"elbow": float(lower)})  # locked: fine


def test_friction_columns_and_joint_order(kinova: Robot) -> None:
    robot = load_robot(KINOVA_URDF, KINOVA_JOINTS[::-1], offset=True, armature=True)
    cols = friction_columns(robot)
    assert [robot.standard_names[i] for i in cols["fc"][:2]] == ["fc_joint_7", "fc_joint_6"]
    assert robot.standard_names[70:74] == ["fv_joint_7", "fc_joint_7", "f0_joint_7", "ia_joint_7"]
    q, dq, ddq = states(20, 7, seed=5)
    dq[0, 3] = 0.0
    theta = np.zeros(robot.n_parameters)
    fv, fc, f0 = np.linspace(0.1, 0.7, 7), np.linspace(0.5, 2.0, 7), np.linspace(-1, 1, 7)
    ia = np.linspace(0.05, 0.6, 7)
    theta[cols["fv"]], theta[cols["fc"]], theta[cols["f0"]], theta[cols["ia"]] = fv, fc, f0, ia
    tau = regressor(robot, q, dq, ddq) @ theta
    expected = fv * dq + fc * np.sign(dq) + f0 + ia * ddq
    np.testing.assert_allclose(tau, expected, rtol=0, atol=1e-14)
    other = theta + urdf_parameters(robot)  # the rigid body too: rnea plus the joint terms
    np.testing.assert_allclose(
        inverse_dynamics(robot, q, dq, ddq, other),
        regressor(robot, q, dq, ddq) @ other,
        rtol=0,
        atol=1e-10,
    )
    assert tau[0, 3] == f0[3] + ia[3] * ddq[0, 3]  # sgn(0) = 0
    assert robot.links == kinova.links  # links stay in tree order, rows follow the user's
    reversed_rows = regressor(robot, q, dq, ddq)[..., :70]
    forward = regressor(kinova, q[:, ::-1], dq[:, ::-1], ddq[:, ::-1])[..., :70]
    np.testing.assert_array_equal(reversed_rows, forward[:, ::-1])


def test_offsets_per_joint_zero_the_other_joints_columns() -> None:
    """An offset on joints 2 and 5 only: the others' f0 columns are 0, their f0 are no base
    parameters and are the held ones; everything else is the all-offset robot's."""
    full = load_robot(KINOVA_URDF, KINOVA_JOINTS, offset=True)
    mask = [False, True, False, False, True, False, False]
    some = with_offsets(full, mask)
    assert some.offset_joints == tuple(mask) and full.offset_joints == (True,) * 7
    q, dq, ddq = states(30, 7, seed=6)
    Y_full, Y_some = regressor(full, q, dq, ddq), regressor(some, q, dq, ddq)
    f0 = friction_columns(full)["f0"]
    held = f0[[0, 2, 3, 5, 6]]
    np.testing.assert_array_equal(held_offsets(some), held)
    assert held_offsets(full).size == 0
    assert np.all(Y_some[..., held] == 0)
    others = np.setdiff1d(np.arange(full.n_parameters), held)
    np.testing.assert_array_equal(Y_some[..., others], Y_full[..., others])
    names = structural_base(some, loaders.BASE_REL_TOL).names
    assert [n for n in names if n.startswith("f0_")] == ["f0_joint_2", "f0_joint_5"]
    assert (
        structural_base(full, loaders.BASE_REL_TOL).rank
        == structural_base(some, loaders.BASE_REL_TOL).rank + 5
    )
    plain = load_robot(KINOVA_URDF, KINOVA_JOINTS)
    assert plain.offset_joints == (False,) * 7 and held_offsets(plain).size == 0
    with pytest.raises(RobotError, match="no offset terms"):
        with_offsets(plain, mask)
    with pytest.raises(RobotError, match="6 offset flags for 7 joints"):
        with_offsets(full, mask[:6])


def test_friction_none_and_shapes(kinova: Robot) -> None:
    robot = load_robot(KINOVA_URDF, KINOVA_JOINTS, friction=())
    assert robot.n_parameters == 70 and robot.friction_terms == ()
    with pytest.raises(ValueError, match=r"expected \(N, 7\)"):
        regressor(kinova, np.zeros((3, 6)), np.zeros((3, 6)), np.zeros((3, 6)))
    with pytest.raises(ValueError, match="mass"):
        inverse_dynamics(kinova, np.zeros(7), np.zeros(7), np.zeros(7), np.zeros(84))


# ------------------------------------------------------------------------------------------------
# Bad input
# ------------------------------------------------------------------------------------------------


def test_a_urdf_is_read_in_the_encoding_it_declares(tmp_path: Path) -> None:
    """A URDF saved as Latin-1 (declared) or with a byte-order mark builds the same robot as
    the UTF-8 file; an encoding Python does not know is one error naming the file."""
    text = KINOVA_URDF.read_text(encoding="utf-8")
    body = text.split("?>", 1)[1].replace("<robot ", "<!-- Jürgen's arm --><robot ", 1)
    latin = tmp_path / "latin.urdf"
    latin.write_bytes(('<?xml version="1.0" encoding="ISO-8859-1"?>' + body).encode("latin-1"))
    marked = tmp_path / "marked.urdf"
    marked.write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    expected = urdf_parameters(load_robot(KINOVA_URDF, KINOVA_JOINTS))
    for path in (latin, marked):
        np.testing.assert_array_equal(urdf_parameters(load_robot(path, KINOVA_JOINTS)), expected)
    unknown = tmp_path / "unknown.urdf"
    unknown.write_text('<?xml version="1.0" encoding="no-such-code"?>' + body)
    with pytest.raises(UserError, match=r"unknown.urdf: cannot be read as no-such-code text"):
        load_robot(unknown, KINOVA_JOINTS)


def test_missing_urdf(tmp_path: Path) -> None:
    with pytest.raises(UserError, match="nope.urdf: file not found"):
        load_robot(tmp_path / "nope.urdf", ["a"])
    assert issubclass(RobotError, UserError)


def test_unparsable_urdf(tmp_path: Path) -> None:
    bad = tmp_path / "bad.urdf"
    bad.write_text("<robot name='x'><link name='a'></robot")
    with pytest.raises(RobotError, match="bad.urdf.*could not be parsed"):
        load_robot(bad, ["a"])


@pytest.mark.parametrize(
    ("joints", "locked", "friction", "match"),
    [
        (["joint_1", "joint_9"], None, ("viscous",), r"joints: joint\(s\) \['joint_9'\] not in"),
        (["joint_1"], {"gripper": 0.0}, ("viscous",), r"locked: joint\(s\) \['gripper'\]"),
        (["joint_1", "end_effector"], None, ("viscous",), r"\['end_effector'\] are fixed in the"),
        (["joint_1", "joint_1"], None, ("viscous",), "listed twice"),
        (["joint_1"], {"joint_1": 0.0}, ("viscous",), "both identified and locked"),
        (["joint_1"], None, ("stribeck",), "friction terms"),
        ([], None, ("viscous",), "no joints"),
    ],
)
def test_bad_joints(joints, locked, friction, match) -> None:
    with pytest.raises(RobotError, match=match):
        load_robot(KINOVA_URDF, joints, locked=locked, friction=friction)


# ------------------------------------------------------------------------------------------------
# Base parameters
# ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kinova_stack(kinova: Robot) -> np.ndarray:
    q, dq, ddq = states(300, 7, seed=6)
    return regressor(kinova, q, dq, ddq)


def test_kinova_base_count(kinova: Robot, kinova_stack: np.ndarray) -> None:
    base = base_parameters(kinova_stack.reshape(-1, 84), kinova.standard_names)
    assert base.rank == 59  # 45 inertial + 7 viscous + 7 Coulomb (SOURCE.md: 70 -> 45)
    assert sum(not n.startswith(("fv_", "fc_")) for n in base.names) == 45
    assert base.names[-14:] == tuple(kinova.standard_names[70:])
    assert "m_shoulder_link" not in base.names  # the first link's mass never acts on a joint
    inertial = load_robot(KINOVA_URDF, KINOVA_JOINTS, friction=())
    assert structural_base(inertial, loaders.BASE_REL_TOL).rank == 45
    structural = structural_base(kinova, loaders.BASE_REL_TOL)
    assert structural.names == base.names


def test_base_deterministic_and_row_order(kinova: Robot, kinova_stack: np.ndarray) -> None:
    Y = kinova_stack.reshape(-1, 84)
    first, again = (base_parameters(Y, kinova.standard_names) for _ in range(2))
    assert np.array_equal(first.independent, again.independent)
    assert np.array_equal(first.K, again.K) and first.expressions == again.expressions
    shuffled = base_parameters(
        Y[np.random.default_rng(7).permutation(len(Y))], kinova.standard_names
    )
    assert np.array_equal(shuffled.independent, first.independent)
    np.testing.assert_allclose(shuffled.K, first.K, rtol=0, atol=1e-9)


def test_base_regressor_reproduces_standard(kinova: Robot, kinova_stack: np.ndarray) -> None:
    base = base_parameters(kinova_stack.reshape(-1, 84), kinova.standard_names)
    rng = np.random.default_rng(8)
    for theta in (rng.normal(size=84), urdf_parameters(kinova)):
        tau = kinova_stack @ theta
        tau_base = base_columns(kinova_stack, base) @ to_base(theta, base)
        assert np.abs(tau - tau_base).max() < 1e-9
        np.testing.assert_allclose(base.matrix @ theta, to_base(theta, base), atol=1e-14)
    assert base.expressions[base.names.index("Izz_shoulder_link")].startswith(
        "Izz_shoulder_link + "
    )


def test_unidentified_names_missing_base_parameters(
    kinova: Robot, kinova_stack: np.ndarray
) -> None:
    base = base_parameters(kinova_stack.reshape(-1, 84), kinova.standard_names)
    assert unidentified(base_columns(kinova_stack, base).reshape(-1, base.rank), base) == []
    q = np.zeros((200, 7))
    q[:, 1] = np.linspace(-1.0, 1.0, 200)  # only joint 2 moves, slowly, one way
    dq = np.zeros_like(q)
    dq[:, 1] = 0.5
    W = base_columns(regressor(kinova, q, dq, np.zeros_like(q)), base).reshape(-1, base.rank)
    missing = unidentified(W, base)
    assert "fv_joint_1" in missing and "fc_joint_7" in missing and "fv_joint_2" not in missing
    assert "fc_joint_2" in missing  # q̇₂ constant: Coulomb = viscous / 0.5, the later one is named
    assert 35 < len(missing) < base.rank


def test_base_parameters_bad_shapes() -> None:
    with pytest.raises(ValueError, match="expected"):
        base_parameters(np.zeros((10, 3)), ["a", "b"])
    with pytest.raises(ValueError, match="non-finite"):
        base_parameters(np.full((4, 2), np.nan), ["a", "b"])


def test_a_log_in_degrees_with_a_wrapped_continuous_joint_and_a_slide(
    small_urdf: Path, tmp_path: Path
) -> None:
    """units q: deg converts the revolute joints, not the slide's metres; the continuous joint,
    logged wrapped to (-180, 180] deg as many loggers do, is unwrapped; a slide logged in mm
    is named as such (it read as 'degrees' before, and deg scaled the slide by pi/180)."""
    robot = load_robot(small_urdf, ["spin", "elbow", "slide"])
    assert joint_kinds(robot) == ("continuous", "revolute", "prismatic")
    t = np.arange(2000) / 500.0
    truth = np.column_stack([0.9 * t, 0.5 * np.sin(t), 0.05 * np.sin(2 * t)])  # spin: 3.6 rad
    wrapped = (np.rad2deg(truth[:, 0]) + 180.0) % 360.0 - 180.0
    frame = pd.DataFrame({"time": t, "q_spin": wrapped, "q_elbow": np.rad2deg(truth[:, 1])})
    frame["q_slide"] = truth[:, 2]
    for joint in robot.joints:
        frame[f"tau_{joint}"] = 0.0
    frame.to_csv(tmp_path / "log.csv", index=False)
    kinds = joint_kinds(robot)
    record = loaders.load_robot_record(
        tmp_path / "log.csv", robot.joints, units={"q": "deg"}, kinds=kinds
    )
    np.testing.assert_allclose(record.q, truth, atol=1e-12)
    assert checks.angle_units(record, robot) == []
    frame["q_slide"] *= 1000.0
    frame.to_csv(tmp_path / "mm.csv", index=False)
    in_mm = loaders.load_robot_record(
        tmp_path / "mm.csv", robot.joints, units={"q": "deg"}, kinds=kinds
    )
    [(check, joint, message)] = checks.angle_units(in_mm, robot)
    assert (check, joint) == ("angle_units", "slide") and "is it in mm?" in message
    assert "the record's scale: {column: 0.001}" in message
    # a quill counted upward against a URDF travel of [0, 0.2] m: plain metres, negated
    quill = -(0.1 + 0.07 * np.sin(t))
    upward = checks._prismatic_units(t, quill, (0.0, 0.2), judge_speed=True)
    assert upward is not None and "negated it lies within it" in upward and "mm" not in upward
    assert "negate its position, velocity and force columns" in upward
    assert "is it in mm?" in str(checks._prismatic_units(t, -1000 * quill, (0.0, 0.2), True))


def test_each_standard_parameter_has_its_unit_by_kind_and_joint(small_urdf: Path) -> None:
    """Inertial parameters in kg, kg m, kg m²; a revolute joint's friction in N m s/rad and N m,
    a prismatic joint's in N s/m and N, its armature (a reflected mass) in kg; a mean over
    both kinds of joint names both units."""
    robot = load_robot(small_urdf, ["spin", "elbow", "slide"], offset=True, armature=True)
    units = model.parameter_units(robot)
    assert list(units) == robot.standard_names
    assert [units[n] for n in ("m_upper", "mx_fore", "Ixz_slider")] == ["kg", "kg m", "kg m^2"]
    assert [units[f"{t}_elbow"] for t in ("fv", "fc", "f0", "ia")] == [
        "N m s/rad",
        "N m",
        "N m",
        "kg m^2",
    ]
    assert [units[f"{t}_slide"] for t in ("fv", "fc", "f0", "ia")] == ["N s/m", "N", "N", "kg"]
    torques = [u["tau"] for u in model.joint_units(robot)]
    assert model.torque_unit(torques) == "N m and N mixed"
    assert model.torque_unit(torques[:2]) == "N m"
    assert model.robot_torque_unit(robot) == "N m and N mixed"
    assert model.robot_torque_unit(load_robot(small_urdf, ["spin", "elbow"])) == "N m"
    # the compressed data's rows are each in their joint's unit (not "N and N m mixed / (kg)")
    compressed = study.compressed_units(robot, model.extended_names(robot))
    assert compressed["c"] == "the row's joint's N m or N"
    assert compressed["fct_slide"] == "the row's joint's N m or N / (N)"
    turning = load_robot(small_urdf, ["spin", "elbow"])
    compressed = study.compressed_units(turning, model.extended_names(turning))
    assert compressed["rho2"] == "(N m)^2" and compressed["Iyy_fore"] == "N m / (kg m^2)"


def _held_record(robot: Robot, q: np.ndarray) -> RobotRecord:
    """The angles q as a 500 Hz record with zero torque (for the checks that read angles)."""
    t = np.arange(q.shape[0]) / 500.0
    return RobotRecord(t, q, None, np.zeros_like(q), tuple(robot.joints), 500.0, 0.0, False)


@pytest.mark.parametrize(
    ("limits", "elbow_rad"),
    [
        (None, 3.0),  # limits ±2 rad: above the upper one, never below the lower
        ('lower="-4" upper="1"', 2.0),  # open on one side (no bound within ±π below)
    ],
)
def test_an_angle_beyond_one_urdf_limit_is_named(
    small_urdf: Path, tmp_path: Path, limits: str | None, elbow_rad: float
) -> None:
    """The elbow logged around an angle beyond one of its URDF limits by more than
    LIMIT_MARGIN_RAD: named as far outside the URDF's limits."""
    path = small_urdf
    if limits is not None:
        path = tmp_path / "one_sided.urdf"
        path.write_text(small_urdf.read_text().replace('lower="-2" upper="2"', limits))
    robot = load_robot(path, ["spin", "elbow", "slide"])
    t = np.arange(2000) / 500.0
    q = np.column_stack([0.5 * np.sin(t), elbow_rad + 0.1 * np.sin(t), 0.05 * np.sin(2 * t)])
    [(check, joint, message)] = checks.angle_units(_held_record(robot, q), robot)
    assert (check, joint) == ("angle_units", "elbow") and "far outside the URDF's limits" in message


def test_a_slide_beyond_half_its_travel_past_its_limit_is_named(small_urdf: Path) -> None:
    """The slide's travel is [-0.1, 0.1] m: a position reaching 0.25 m (0.15 m, more than half
    its travel, beyond it), moving slowly, is named (a unit off); within half its travel
    beyond, it is not."""
    robot = load_robot(small_urdf, ["spin", "elbow", "slide"])
    t = np.arange(2000) / 500.0
    base = np.column_stack([0.5 * np.sin(t), 0.5 * np.sin(t), np.zeros_like(t)])
    far, near = base.copy(), base.copy()
    far[:, 2] = 0.24 + 0.01 * np.sin(t)
    near[:, 2] = 0.18 + 0.01 * np.sin(t)
    [(check, joint, message)] = checks.angle_units(_held_record(robot, far), robot)
    assert (check, joint) == ("angle_units", "slide") and "is it in mm?" in message
    assert checks.angle_units(_held_record(robot, near), robot) == []


def _simulated(robot: Robot, q: np.ndarray, coulomb: np.ndarray) -> RobotRecord:
    """A 500 Hz record of the angles q with the URDF's torque plus Coulomb friction and
    0.02 N m of noise."""
    t = np.arange(q.shape[0]) / 500.0
    dq = np.gradient(q, t, axis=0)
    tau = checks.urdf_torque(robot, q, dq, np.gradient(dq, t, axis=0)) + coulomb * np.sign(dq)
    tau += np.random.default_rng(0).normal(0.0, 0.02, tau.shape)
    return RobotRecord(t, q, None, tau, tuple(robot.joints), 500.0, 0.0, False)


def test_two_joints_exchanged_are_named_before_the_torque_scale_they_put_off(
    small_urdf: Path,
) -> None:
    """Every column of spin and elbow exchanged (the `joints:` order against the log's): only
    the elbow carries a rigid-body torque to judge, so the record's torque reads 0.016 x the
    URDF's, a unit error by the scale alone; the exchange puts it back at 1.0 x and is named
    instead, with the scale it explains.  A torque in another unit, not exchanged, is still
    named as a unit."""
    robot = load_robot(small_urdf, ["spin", "elbow"])
    t = np.arange(5000) / 500.0
    q = np.column_stack([np.sin(0.7 * t), 0.8 * np.sin(1.1 * t + 0.5)])
    record = _simulated(robot, q, np.array([0.3, 0.4]))
    assert checks.record_problems(record, robot) == []
    exchanged = dataclasses.replace(record, q=record.q[:, ::-1], tau=record.tau[:, ::-1])
    [(check, joint, message)] = checks.record_problems(exchanged, robot)
    assert (check, joint) == ("columns_swapped", "spin and elbow")
    assert message.startswith("all columns (angle, velocity, torque) of spin and elbow")
    assert message.endswith("(the torque's scale against the URDF's: 0.0158 x, exchanged 0.999 x)")
    in_cn_m = dataclasses.replace(record, tau=record.tau * 100.0)  # N cm read as N m
    [(check, joint, message)] = checks.record_problems(in_cn_m, robot)
    assert (check, joint) == ("torque_units", None) and "check units.tau" in message


def test_a_slide_exchanged_with_an_elbow_is_named_beside_the_unit(small_urdf: Path) -> None:
    """The slide's and the elbow's angle columns exchanged: the slide's column, the elbow's
    angle, reads as a position 8x its travel (mm?); the elbow's column, the slide's position, is
    a plausible angle, and each passes as the other's, so the exchange is named beside the unit.
    The spin, a continuous joint without limits, takes the elbow's angle too, but its slow
    sway read as the slide's position is still beyond the slide's travel: not named."""
    robot = load_robot(small_urdf, ["spin", "elbow", "slide"])
    t = np.arange(2000) / 500.0
    q = np.column_stack([0.5 * np.sin(t), 0.8 * np.sin(1.1 * t), 0.05 * np.sin(2 * t)])
    assert checks.angle_units(_held_record(robot, q), robot) == []
    [(check, joint, message)] = checks.angle_units(_held_record(robot, q[:, [0, 2, 1]]), robot)
    assert (check, joint) == ("angle_units", "slide") and "is it in mm?" in message
    assert message.endswith(
        "; or exchanged with elbow's column? each passes this check as the other's: check the "
        "record's `columns:` setting"
    )


def test_a_revolute_joint_without_urdf_limits_ranges_over_a_turn(small_urdf: Path) -> None:
    """A revolute joint whose <limit> gives no lower/upper gets URDF's default lower = upper =
    0: its range reads as ±π (as a continuous joint's), not the single pose 0 (the twin's
    excitation would not move it, the design's margins would empty it); a prismatic joint
    keeps its own limits."""
    path = small_urdf.with_name("no_limits.urdf")
    path.write_text(small_urdf.read_text().replace('lower="-2" upper="2" ', ""))
    robot = load_robot(path, ["spin", "elbow", "slide"])
    lo, hi = joint_ranges(robot)
    np.testing.assert_allclose(lo, [-np.pi, -np.pi, -0.1])
    np.testing.assert_allclose(hi, [np.pi, np.pi, 0.1])


def test_a_moving_joint_without_an_axis_is_named() -> None:
    """A revolute joint with <axis xyz="0 0 0"/> moved nothing: the urdf method predicted zero
    torque on it and all 25 jobs ran. It is named with its axis before anything is built."""
    text = KINOVA_URDF.read_text()
    start = text.index('<joint name="joint_4"')
    end = text.index("</joint>", start)
    joint = re.sub(r'<axis xyz="[^"]*"', '<axis xyz="0 0 0"', text[start:end])
    broken = text[:start] + joint + text[end:]
    with pytest.raises(RobotError, match=r"joint 'joint_4' has <axis xyz=\"0 0 0\"/>: a revolute"):
        model.robot_from_urdf(broken, "broken.urdf", KINOVA_JOINTS)


def _forearm_edited(pattern: str, replacement: str) -> str:
    """The Kinova URDF with ``pattern`` replaced by ``replacement`` in forearm_link."""
    text = KINOVA_URDF.read_text()
    start = text.index('<link name="forearm_link"')
    end = text.index("</link>", start)
    return text[:start] + re.sub(pattern, replacement, text[start:end]) + text[end:]


@pytest.mark.parametrize("mass", ["-1.2", "nan", "heavy"])
def test_a_link_with_a_mass_that_is_no_body_is_named(mass: str) -> None:
    """A negative, NaN or unreadable <mass> was reported as "no mass (no <inertial>)" with the
    <inertial> present, or as a torque unit (3e-60 x the URDF's): the link is named."""
    broken = _forearm_edited(r'<mass value="[^"]*"', f'<mass value="{mass}"')
    with pytest.raises(RobotError, match=rf"link 'forearm_link' has <mass value=\"{mass}\"/>"):
        model.robot_from_urdf(broken, "broken.urdf", KINOVA_JOINTS)


@pytest.mark.parametrize(
    ("inertia", "hint"),
    [
        ('ixx="-0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"', "check its entries"),
        # a CAD export's +integral of x y dm: the tensor of a real body with its products flipped
        ('ixx="1" ixy="-0.9" ixz="-0.9" iyy="1" iyz="-0.9" izz="1"', "signs of ixy, ixz and iyz"),
        ('ixx="nan" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"', "six entries are numbers"),
    ],
)
def test_a_link_whose_inertia_has_a_negative_principal_moment_is_named(
    inertia: str, hint: str
) -> None:
    """An <inertia> with a negative principal moment (no body has one) ran silently: the urdf
    method predicted with it, the prior toward the URDF clipped it. The link is named, with
    the sign convention of the products as the likely cause where flipping them mends it."""
    broken = _forearm_edited(r"<inertia [^>]*/>", f"<inertia {inertia} />")
    with pytest.raises(RobotError, match=rf"link 'forearm_link' has <inertia .*{hint}"):
        model.robot_from_urdf(broken, "broken.urdf", KINOVA_JOINTS)
    if "nan" not in inertia:  # a published (identified) model as a reference row: as written
        model.robot_from_urdf(broken, "published.urdf", KINOVA_JOINTS, physical=False)


INERTIA_INDEX = ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2))  # model.INERTIA_KEYS


def test_an_inertia_rounded_to_few_digits_loads() -> None:
    """A rotated thin rod (principal moments 1e-3, 1e-3, 0 kg m^2) written with 6 significant
    digits has a smallest moment of about -1e-9: rounding, not a wrong body (a tolerance of
    1e-9 x the largest refused half of 200 random rotations)."""
    rotations = Rotation.random(50, random_state=np.random.default_rng(7))
    for matrix in rotations.as_matrix():
        tensor = matrix @ np.diag([1e-3, 1e-3, 0.0]) @ matrix.T
        entries = {
            k: tensor[i, j] for k, (i, j) in zip(model.INERTIA_KEYS, INERTIA_INDEX, strict=True)
        }
        written = " ".join(f'{k}="{v:.6g}"' for k, v in entries.items())
        model.robot_from_urdf(
            _forearm_edited(r"<inertia [^>]*/>", f"<inertia {written}/>"), "r.urdf", KINOVA_JOINTS
        )


@pytest.mark.parametrize("physical", [True, False])
def test_an_inertia_without_all_six_entries_is_refused(physical) -> None:
    """urdfdom drops a whole ``<inertia>`` that lacks an entry (it prints "inertia element
    missing ixy attribute" and goes on): Pinocchio's body keeps its mass and centre of mass
    with no rotational inertia at all, so a hand-written diagonal-only tensor silently lost
    the link's inertia (it was said to be "read as 0").  It is refused, naming the missing
    entries, in the study's URDF and a reference's alike."""
    diagonal = '<inertia ixx="0.01" iyy="0.02" izz="0.02"/>'
    text = _forearm_edited(r"<inertia [^>]*/>", diagonal)
    complete = _forearm_edited(
        r"<inertia [^>]*/>",
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/>',
    )
    import pinocchio as pin

    loaded = model.robot_from_urdf(complete, "r.urdf", KINOVA_JOINTS)
    forearm = loaded.links.index("forearm_link") + 1
    assert loaded.model.inertias[forearm].inertia[0, 0] == pytest.approx(0.01)
    read = pin.buildModelFromXML(text)  # Pinocchio alone: the tensor gone, the mass kept
    body = read.getJointId("joint_4")
    assert read.inertias[body].mass > 0.9 and np.all(read.inertias[body].inertia == 0.0)
    with pytest.raises(
        RobotError,
        match=rf"link 'forearm_link' has {diagonal} without ixy, ixz, iyz: urdfdom",
    ):
        model.robot_from_urdf(text, "r.urdf", KINOVA_JOINTS, physical=physical)


def test_an_inertia_that_breaks_only_the_triangle_inequality_loads() -> None:
    """The maker's Gen3 URDF: shoulder_link's principal moments 0.0004 + 0.0048 < 0.0146
    kg m^2 (not a physical body, but positive): it loads, as users' files must."""
    root = model.urdf_tree(KINOVA_URDF.read_text())
    link = next(x for x in root.iter("link") if x.get("name") == "shoulder_link")
    values = {k: float(link.find("inertial/inertia").get(k)) for k in model.INERTIA_KEYS}
    moments = np.linalg.eigvalsh(
        [
            [values["ixx"], values["ixy"], values["ixz"]],
            [values["ixy"], values["iyy"], values["iyz"]],
            [values["ixz"], values["iyz"], values["izz"]],
        ]
    )
    assert moments[0] > 0 and moments[0] + moments[1] < moments[2]
    model.robot_from_urdf(KINOVA_URDF.read_text(), "gen3.urdf", KINOVA_JOINTS)


def _links_and_joints(links: str, joints: list[tuple[str, str, str]]) -> str:
    """A URDF of bare links (space-separated names) and revolute joints (name, parent, child)."""
    body = "".join(f'<link name="{name}"/>' for name in links.split())
    for name, parent, child in joints:
        body += (
            f'<joint name="{name}" type="revolute"><parent link="{parent}"/>'
            f'<child link="{child}"/><axis xyz="0 0 1"/>'
            '<limit lower="-1" upper="1" effort="1" velocity="1"/></joint>'
        )
    return f'<robot name="r">{body}</robot>'


@pytest.mark.parametrize(
    ("links", "joints", "message"),
    [
        ("a b", [("j1", "a", "b"), ("j2", "b", "a")], r"links \['a', 'b'\] close a cycle"),
        (
            "a b c d",
            [("j1", "a", "b"), ("j2", "c", "d"), ("j3", "d", "c")],
            r"links \['c', 'd'\] close a cycle",
        ),
        ("a b", [("j1", "a", "b"), ("j2", "a", "b")], r"'b' is the child of joints \['j1', 'j2'\]"),
        ("a b", [("j1", "a", "b"), ("j2", "b", "z")], r"'j2' names child link 'z', which"),
        ("a b c", [("j1", "a", "b")], r"links \['a', 'c'\] are each no joint's child"),
        ("a b a", [("j1", "a", "b")], r"link names \['a'\] are declared more than once"),
        ("a b", [("j1", "a", "b"), ("j1", "b", "a")], r"joint names \['j1'\] are declared"),
        (
            "a b c d e",
            [("j1", "a", "b"), ("j2", "c", "d"), ("j3", "d", "c"), ("j4", "d", "e")],
            r"links \['c', 'd'\] close a cycle",
        ),
        (  # named in the order of the chain: each the child of the next
            "a b c d e",
            [("j1", "a", "b"), ("j2", "c", "d"), ("j3", "d", "e"), ("j4", "e", "c")],
            r"links \['c', 'e', 'd'\] close a cycle \(each is the child of the next\)",
        ),
    ],
)
def test_links_and_joints_that_are_no_tree_are_named(
    links: str, joints: list[tuple[str, str, str]], message: str
) -> None:
    """A cycle read "The XML stream does not contain a valid URDF model" (urdfdom), a link
    with two parent joints "Model does not have any body named b" (Pinocchio)."""
    with pytest.raises(RobotError, match=message):
        model.robot_from_urdf(_links_and_joints(links, joints), "r.urdf", ["j1"])


def test_a_joint_without_its_parent_link_is_named() -> None:
    text = _links_and_joints("a b", [("j1", "a", "b")]).replace('<parent link="a"/>', "<parent/>")
    with pytest.raises(RobotError, match=r"joint 'j1' has no <parent link=...>"):
        model.robot_from_urdf(text, "r.urdf", ["j1"])


SCARA = """<robot name="scara"><link name="base"/>
  <link name="arm"><inertial><mass value="4"/><origin xyz="0.15 0 0"/><inertia ixx="0.01"
    iyy="0.05" izz="0.05" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="quill"><inertial><mass value="2"/><inertia ixx="0.02" iyy="0.02" izz="0.001"
    ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="tool"><inertial><mass value="1"/><origin xyz="0.02 0 -0.05"/><inertia
    ixx="0.002" iyy="0.002" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="arm"/>
    <axis xyz="0 0 1"/><limit lower="-2.5" upper="2.5" effort="100" velocity="3"/></joint>
  <joint name="lift" type="prismatic"><parent link="arm"/><child link="quill"/>
    <origin xyz="0.3 0 0"/><axis xyz="0 0 {axis}"/>
    <limit lower="-0.2" upper="0.2" effort="500" velocity="1"/></joint>
  <joint name="wrist" type="revolute"><parent link="quill"/><child link="tool"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint></robot>"""


GANTRY = """<robot name="g"><link name="base"/>
  <link name="carriage"><inertial><mass value="10"/><inertia ixx="0.1" iyy="0.1" izz="0.1"
    ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="ram"><inertial><mass value="3"/><inertia ixx="0.02" iyy="0.02" izz="0.01" ixy="0"
    ixz="0" iyz="0"/></inertial></link>
  <link name="tool"><inertial><mass value="1"/><origin xyz="0.02 0 -0.05"/><inertia ixx="0.002"
    iyy="0.002" izz="0.001" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <joint name="x" type="prismatic"><parent link="base"/><child link="carriage"/>
    <axis xyz="1 0 0"/><limit lower="-0.5" upper="0.5" effort="500" velocity="1"/></joint>
  <joint name="z" type="prismatic"><parent link="carriage"/><child link="ram"/>
    <axis xyz="0 0 1"/><limit lower="-0.2" upper="0.2" effort="500" velocity="1"/></joint>
  <joint name="c" type="revolute"><parent link="ram"/><child link="tool"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="3"/></joint></robot>"""
SCARA_JOINTS = ("shoulder", "lift", "wrist")


@pytest.mark.parametrize(
    ("urdf", "joints", "offset", "armature", "hidden"),
    [
        (SCARA.format(axis="1"), SCARA_JOINTS, True, True, {"lift": ("f0", "ia")}),
        (SCARA.format(axis="-1"), SCARA_JOINTS, True, True, {"lift": ("f0", "ia")}),
        (SCARA.format(axis="1"), SCARA_JOINTS, True, False, {}),
        (SCARA.format(axis="1"), SCARA_JOINTS, False, True, {}),
        (GANTRY, ("x", "z", "c"), False, True, {"x": ("ia",)}),
        (GANTRY, ("x", "z", "c"), True, True, {"x": ("ia",), "z": ("f0", "ia")}),
    ],
)
def test_a_slides_offset_or_armature_hides_the_mass_it_moves(
    tmp_path: Path, urdf: str, joints: tuple, offset: bool, armature: bool, hidden: dict
) -> None:
    """A slide's force is m q̈ of what it moves, plus its weight m g along gravity: an armature
    (a q̈ term) hides a horizontal carriage's mass alone; on a vertical quill it takes an
    offset (a constant) too (a SCARA quill's payload went into a -5.6 N offset), and dropping
    either tells the mass again.  The Gen3's revolute joints hide none."""
    path = tmp_path / "arm.urdf"
    path.write_text(urdf)
    robot = loaders.load_robot(path, list(joints), offset=offset, armature=armature)
    found = base.hidden_masses(robot, 1e-8)
    assert {joint: terms for joint, (terms, _) in found.items()} == hidden
    texts = study.hidden_mass_warnings(robot, 1e-8)
    if "lift" in found:
        assert found["lift"][1] == ["quill", "tool"]
        assert texts[0].startswith("lift: with both an offset and an armature on it, the mass of")
        assert "unless its force sensor has a bias, set offset: false" in texts[0]
    if "x" in found:
        assert "carriage" in found["x"][1]
        assert texts[0].startswith("x: with an armature on it, the mass of carriage")
    if urdf == GANTRY and offset:
        gen3 = loaders.load_robot(
            KINOVA_URDF, [f"joint_{i}" for i in range(1, 8)], offset=True, armature=True
        )
        assert base.hidden_masses(gen3, 1e-8) == {}
