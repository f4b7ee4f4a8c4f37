"""Identified models as URDFs (paramid.robot.urdf): the exported file reproduces the model's
inverse dynamics through Pinocchio, links welded to a body are emptied, friction is written."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from loaders import BASE_REL_TOL, load_robot
from schema_blocks import defaults

from paramid.base_parameters import base_parameters
from paramid.robot import export, study, urdf
from paramid.robot.base import structural_base
from paramid.robot.consistency import link_report
from paramid.robot.model import (
    inverse_dynamics,
    link_parameter_slices,
    regressor,
    urdf_parameters,
)

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "data/kinova_gen3/kinovaGen3.urdf"
JOINTS = [f"joint_{i}" for i in range(1, 8)]


def _identified(seed: int, armature: bool = False) -> tuple[object, np.ndarray]:
    """The Gen3 with every link's 10 parameters scaled (a consistent body stays consistent)
    and friction (and an armature) per joint."""
    robot = load_robot(URDF, JOINTS, armature=armature)
    theta = urdf_parameters(robot)
    rng = np.random.default_rng(seed)
    theta[: robot.n_inertial] *= np.repeat(rng.uniform(0.7, 1.3, len(robot.links)), 10)
    theta[robot.n_inertial :] = rng.uniform(0.05, 2.0, robot.n_parameters - robot.n_inertial)
    return robot, theta


def _friction(robot, theta) -> dict[str, dict[str, float]]:
    values = dict(zip(robot.standard_names, theta, strict=True))
    return {j: {"damping": values[f"fv_{j}"], "friction": values[f"fc_{j}"]} for j in JOINTS}


def test_com_inertia_is_the_parallel_axis_theorem():
    mass, c = 2.0, np.array([0.1, -0.2, 0.3])
    inertia_com = np.array([[0.04, 0.001, -0.002], [0.001, 0.05, 0.003], [-0.002, 0.003, 0.06]])
    about_origin = inertia_com + mass * (c @ c * np.eye(3) - np.outer(c, c))
    pi = np.array(
        [mass, *(mass * c)]
        + [about_origin[i, j] for i, j in ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2))]
    )
    m, com, inertia = urdf.com_inertia(pi)
    assert m == mass
    np.testing.assert_allclose(com, c, rtol=1e-15)
    np.testing.assert_allclose(inertia, inertia_com, atol=1e-15)
    assert urdf.com_inertia(np.zeros(10))[0] == 0.0
    # a massless body keeps its rotational inertia (about the origin, c = 0): still consistent
    massless = np.array([0.0, 0.0, 0.0, 0.0, 0.02, 0.0, 0.03, 0.0, 0.0, 0.04])
    m, com, inertia = urdf.com_inertia(massless)
    assert m == 0.0 and not com.any()
    np.testing.assert_array_equal(np.diag(inertia), [0.02, 0.03, 0.04])


def test_comments_stay_well_formed_xml():
    """'--' may not appear inside an XML comment: a path in the header must not break the file."""
    robot, theta = _identified(4)
    header = ["calibrated on data/run--2/log-.csv", "ends with a dash -"]
    text = urdf.export_urdf(URDF.read_text(), robot, theta, {}, header)
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    assert "run- -2/log-" in text and root.tag == "robot"


@pytest.mark.parametrize(("seed", "armature"), [(0, False), (1, False), (2, True)])
def test_exported_urdf_reproduces_the_models_dynamics(tmp_path, seed, armature):
    robot, theta = _identified(seed, armature)
    values = dict(zip(robot.standard_names, theta, strict=True))
    inertia = {j: values[f"ia_{j}"] for j in JOINTS} if armature else None
    text = urdf.export_urdf(
        URDF.read_text(), robot, theta, _friction(robot, theta), ["test"], inertia
    )
    path = tmp_path / "identified.urdf"
    path.write_text(text)
    again = load_robot(path, JOINTS, armature=armature)
    exported = urdf_parameters(again)
    n = robot.n_inertial
    scale = np.maximum(np.abs(theta[:n]), 1e-9 * np.abs(theta[:n]).max())
    assert np.max(np.abs(exported[:n] - theta[:n]) / scale) < 1e-9
    rng = np.random.default_rng(seed + 10)
    q, dq, ddq = rng.uniform(-2, 2, (30, 7)), rng.normal(size=(30, 7)), rng.normal(size=(30, 7))
    predicted = regressor(robot, q, dq, ddq) @ theta
    exported[n:] = theta[n:]  # Pinocchio ignores <dynamics>; friction read back below
    replayed = inverse_dynamics(again, q, dq, ddq, exported)
    assert np.max(np.abs(replayed - predicted)) < 1e-9 * np.max(np.abs(predicted))
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    joints = {j.get("name"): j for j in ET.fromstring(text, parser=parser).iter("joint")}
    dynamics = {name: j.find("dynamics") for name, j in joints.items()}
    for joint in JOINTS:
        notes = [c.text for c in joints[joint] if c.tag is ET.Comment and "armature" in c.text]
        if armature:  # the comment's value is the identified one, to the digits written
            assert float(notes[0].split()[1]) == pytest.approx(values[f"ia_{joint}"], rel=1e-12)
        else:
            assert not notes
        assert float(dynamics[joint].get("damping")) == pytest.approx(
            values[f"fv_{joint}"], rel=1e-15
        )
        assert float(dynamics[joint].get("friction")) == pytest.approx(
            values[f"fc_{joint}"], rel=1e-15
        )


def _replay_error(robot, theta, again, exported, seed: int) -> float:
    """Largest difference, relative to the largest torque, between the fit's predictions
    (``robot``, ``theta``) and inverse dynamics of the exported file (``again``, its
    ``exported`` parameters) at 20 random states."""
    rng = np.random.default_rng(seed)
    n = robot.n_joints
    q, dq, ddq = rng.uniform(-2, 2, (20, n)), rng.normal(size=(20, n)), rng.normal(size=(20, n))
    predicted = regressor(robot, q, dq, ddq) @ theta
    replayed = inverse_dynamics(again, q, dq, ddq, exported)
    return float(np.max(np.abs(replayed - predicted)) / np.max(np.abs(predicted)))


@pytest.mark.parametrize(("locked", "value"), [("joint_7", 0.6), ("joint_4", -1.1)])
def test_a_locked_joint_is_exported_fixed_at_its_lock_value(tmp_path, locked, value):
    """The links behind a locked joint are identified as one body in its lock pose: the file
    wrote that body but left the joint movable, so loaded as it is (joint at 0) it differed
    from the fit by up to 1.2 N m. Written fixed there, it reproduces the fit at any pose."""
    moving = [j for j in JOINTS if j != locked]
    robot = load_robot(URDF, moving, locked={locked: value})
    theta = urdf_parameters(robot)
    theta[: robot.n_inertial] *= np.repeat(np.linspace(0.8, 1.2, len(robot.links)), 10)
    text = urdf.export_urdf(URDF.read_text(), robot, theta, {}, ["test"])
    joint = {j.get("name"): j for j in ET.fromstring(text).findall("joint")}[locked]
    assert joint.get("type") == "fixed" and joint.find("axis") is None
    assert f"locked at {value}" in text
    path = tmp_path / "locked.urdf"
    path.write_text(text)
    again = load_robot(path, moving)  # nothing to lock: the joint is fixed in the file
    exported = urdf_parameters(again)
    exported[again.n_inertial :] = theta[robot.n_inertial :]
    assert _replay_error(robot, theta, again, exported, seed=7) < 1e-9


def _prismatic_urdf(tmp_path: Path) -> Path:
    """Three links; the middle joint prismatic along x of a frame turned by rpy (0.4, 0.7, 0.3)."""
    inertial = (
        '<inertial><origin xyz="0.05 0.02 0.01"/><mass value="1.2"/>'
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial>'
    )
    links = "".join(f'<link name="l{k}">{inertial}</link>' for k in (1, 2, 3))
    limit = '<limit lower="-3" upper="3" effort="9" velocity="2"/>'
    text = f"""<?xml version="1.0"?>
<robot name="prismatic">
  <link name="base"/>{links}
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 0 1"/>{limit}</joint>
  <joint name="j2" type="prismatic"><parent link="l1"/><child link="l2"/>
    <origin xyz="0.2 0 0" rpy="0.4 0.7 0.3"/><axis xyz="1 0 0"/>{limit}</joint>
  <joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>
    <origin xyz="0.1 0 0"/><axis xyz="0 1 0"/>{limit}</joint>
</robot>
"""
    path = tmp_path / "prismatic.urdf"
    path.write_text(text)
    return path


def test_a_locked_prismatic_joint_is_exported_at_its_lock_value(tmp_path):
    """A prismatic lock moves the child along the joint's axis in the turned joint frame."""
    source = _prismatic_urdf(tmp_path)
    robot = load_robot(source, ["j1", "j3"], locked={"j2": 0.25})
    theta = urdf_parameters(robot)
    text = urdf.export_urdf(source.read_text(), robot, theta, {}, ["test"])
    path = tmp_path / "locked.urdf"
    path.write_text(text)
    again = load_robot(path, ["j1", "j3"])
    assert _replay_error(robot, theta, again, urdf_parameters(again), seed=3) < 1e-9


def test_a_slides_offset_and_armature_notes_are_in_its_units(tmp_path):
    """A prismatic joint's offset is a force [N] and its armature a reflected mass [kg]: the
    export's notes said N m and kg m^2 for a SCARA's quill."""
    source = _prismatic_urdf(tmp_path)
    robot = load_robot(source, ["j1", "j2", "j3"], offset=True, armature=True)
    theta = urdf_parameters(robot)
    text = urdf.export_urdf(
        source.read_text(),
        robot,
        theta,
        {},
        ["test"],
        {"j1": 0.3, "j2": 2.0},
        {"j1": -0.7, "j2": 5.0},
    )
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    joints = {j.get("name"): j for j in root.findall("joint")}
    notes = {
        name: " ".join(c.text for c in joints[name] if c.tag is ET.Comment) for name in ("j1", "j2")
    }
    assert " armature 2 kg:" in notes["j2"] and " offset 5 N:" in notes["j2"]
    assert (
        " armature 0.29999999999999999 kg m^2:" in notes["j1"]
        and " offset -0.69999999999999996 N m:" in notes["j1"]
    )


def test_a_negative_friction_estimate_is_written_as_zero():
    """A simulator refuses negative damping or friction: the export writes 0 for them."""
    robot = load_robot(URDF, JOINTS)
    text = urdf.export_urdf(
        URDF.read_text(),
        robot,
        urdf_parameters(robot),
        {"joint_3": {"damping": -0.2, "friction": 0.4}},
        ["test"],
    )
    joint = {j.get("name"): j for j in ET.fromstring(text).findall("joint")}["joint_3"]
    assert float(joint.find("dynamics").get("damping")) == 0.0
    assert float(joint.find("dynamics").get("friction")) == 0.4


@pytest.mark.parametrize(
    ("terms", "damping", "friction"),
    [(["coulomb"], 0.0, 1.25), (["viscous"], 0.5, 0.0), ([], 0.0, 0.0)],
)
def test_a_friction_term_the_model_lacks_is_written_as_zero(terms, damping, friction):
    """The user's <dynamics damping="0.7" friction="0.2"> on joint 3: a model without a viscous
    (Coulomb) term writes damping (friction) 0, not the user's value beside the identified one
    (a simulator would apply friction the model does not have), and the header says so."""
    robot = load_robot(URDF, JOINTS, friction=terms)
    theta = urdf_parameters(robot)
    names = list(robot.standard_names)
    if "coulomb" in terms:
        theta[names.index("fc_joint_3")] = 1.25
    if "viscous" in terms:
        theta[names.index("fv_joint_3")] = 0.5
    user = URDF.read_text().replace(
        '<joint name="joint_3" type="continuous">',
        '<joint name="joint_3" type="continuous"><dynamics damping="0.7" friction="0.2"/>',
    )
    assert user != URDF.read_text()
    text = urdf.export_urdf(user, robot, theta, study.urdf_friction(robot, theta), ["test"])
    joint = {j.get("name"): j for j in ET.fromstring(text).findall("joint")}["joint_3"]
    written = {key: float(value) for key, value in joint.find("dynamics").attrib.items()}
    assert written == {"damping": damping, "friction": friction}
    cfg = {
        "study": "s",
        "method": "lmi",
        "calibration": ["a.csv"],
        "lmi": {"weight": 1.0, "metric": "robot", "rule": "1se"},
        "robot": {"joints": JOINTS, "friction": terms, "armature": False},
    }
    choice = {"laws": dict.fromkeys(JOINTS, "sign"), "offsets": [False] * 7, "velocity_rad_s": 0.01}
    header = " ".join(study.export_header(cfg, choice, {}))
    expected = {
        ("coulomb",): "holds friction: the Coulomb level; its damping is 0: the model has no such",
        ("viscous",): "holds damping: the viscous coefficient; its friction is 0: the model has",
        (): "No friction was identified: <dynamics> damping and friction are 0.",
    }
    assert expected[tuple(terms)] in header


def _mimic_urdf() -> str:
    """A 3-joint arm whose j3 carries <mimic joint="j2">."""
    inertial = (
        '<inertial><origin xyz="0.1 0.02 0" rpy="0.3 0 0"/><mass value="1"/><inertia ixx="0.01" '
        'ixy="0.001" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>'
    )
    limit = '<limit lower="-3" upper="3" effort="10" velocity="3"/>'
    links = "".join(f'<link name="l{k}">{inertial}</link>' for k in (1, 2, 3))
    return (
        f'<robot name="r"><link name="base"/>{links}'
        '<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>'
        f'<axis xyz="0 0 1"/>{limit}</joint>'
        '<joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>'
        f'<origin xyz="0.2 0 0"/><axis xyz="0 1 0"/>{limit}</joint>'
        '<joint name="j3" type="revolute"><parent link="l2"/><child link="l3"/>'
        f'<origin xyz="0.2 0 0"/><axis xyz="0 1 0"/>{limit}<mimic joint="j2"/></joint></robot>'
    )


def test_a_follower_identified_while_its_leader_is_locked_is_warned_of(tmp_path):
    """j3 mimics j2: identified moving with j2 locked, the URDF says it cannot move, so the
    study warns naming both (under (urdf)); with j2 identified too, or j3 locked behind j2, it
    does not."""
    from paramid.robot import model

    text = _mimic_urdf()
    path = tmp_path / "mimic.urdf"
    path.write_text(text)
    robot = load_robot(path, ["j1", "j3"], locked={"j2": 0.4})
    [warning] = model.independent_followers(robot, text)
    assert "joint 'j3' is identified moving on its own, but its <mimic> follows 'j2'" in warning
    assert "which is locked" in warning and str(path) in warning
    assert model.independent_followers(load_robot(path, ["j1", "j2", "j3"]), text) == []
    assert model.independent_followers(load_robot(path, ["j1"], locked={"j2": 0.4}), text) == []


def test_a_joint_spring_is_warned_of_and_dropped_from_the_export(tmp_path):
    """Gazebo's <dynamics spring_stiffness spring_reference> on joint 3: no model here has a
    spring, so the study warns naming the joint and the export removes both attributes, with
    a comment, keeping the identified damping and friction; a stiffness of 0 states no spring
    (no warning), a joint left locked is not the model's (nothing said), and the exported file
    loads with no spring."""
    from paramid.robot import model

    def with_spring(joint: str, stiffness: str) -> str:
        tag = f'<joint name="{joint}" type="continuous">'
        spring = f'spring_stiffness="{stiffness}" spring_reference="0.3"'
        return URDF.read_text().replace(
            tag, f'{tag}<dynamics damping="0.7" friction="0.2" {spring}/>'
        )

    texts = {k: with_spring("joint_3", k) for k in ("12.5", "0")}
    robot, theta = _identified(seed=4)
    [warning] = model.unmodelled_dynamics(robot, texts["12.5"])
    assert 'joint \'joint_3\' has <dynamics spring_stiffness="12.5", spring_reference="0.3">' in (
        warning
    )
    assert model.unmodelled_dynamics(robot, texts["0"]) == []
    six = load_robot(URDF, JOINTS[:6], locked={"joint_7": 0.0})
    assert model.unmodelled_dynamics(six, with_spring("joint_7", "12.5")) == []
    exported = urdf.export_urdf(texts["12.5"], robot, theta, _friction(robot, theta), ["test"])
    joint = {j.get("name"): j for j in ET.fromstring(exported).findall("joint")}["joint_3"]
    assert set(joint.find("dynamics").attrib) == {"damping", "friction"}
    assert float(joint.find("dynamics").get("damping")) == pytest.approx(
        _friction(robot, theta)["joint_3"]["damping"], rel=1e-15
    )
    assert '<dynamics> spring_stiffness="12.5", spring_reference="0.3" removed' in exported
    (tmp_path / "exported.urdf").write_text(exported)
    again = load_robot(tmp_path / "exported.urdf", JOINTS)
    assert model.unmodelled_dynamics(again, exported) == []


def test_a_joint_left_moving_does_not_mimic_one_written_fixed(tmp_path):
    """j3 carries <mimic joint="j2">, j2 is locked (written fixed) and j3 identified moving on
    its own: the export drops the mimic, with a comment, so that a mimic-aware parser loads the
    file (Pinocchio refused it: the mimic's parent joint is not in the tree), and it still
    reproduces the fit."""
    import pinocchio as pin

    text = _mimic_urdf()
    pin.buildModelFromXML(text, mimic=True)  # the user's file loads so
    path = tmp_path / "mimic.urdf"
    path.write_text(text)
    robot = load_robot(path, ["j1", "j3"], locked={"j2": 0.4})
    theta = urdf_parameters(robot)
    theta[: robot.n_inertial] *= np.repeat([0.8, 1.3], 10)
    exported = urdf.export_urdf(text, robot, theta, {}, ["test"])
    joint = {j.get("name"): j for j in ET.fromstring(exported).findall("joint")}["j3"]
    assert joint.find("mimic") is None
    assert "its <mimic> of j2 removed" in exported
    model = pin.buildModelFromXML(exported, mimic=True)
    assert [str(name) for name in model.names] == ["universe", "j1", "j3"]
    (tmp_path / "exported.urdf").write_text(exported)
    again = load_robot(tmp_path / "exported.urdf", ["j1", "j3"])
    assert _replay_error(robot, theta, again, urdf_parameters(again), seed=5) < 1e-9


def _dual_arm_urdf() -> str:
    """Two 2-joint arms on one fixed torso."""
    inertial = (
        '<inertial><origin xyz="0.1 0.02 0"/><mass value="1.5"/><inertia ixx="0.01" ixy="0" '
        'ixz="0" iyy="0.02" iyz="0" izz="0.015"/></inertial>'
    )
    links = "".join(f'<link name="{arm}{k}">{inertial}</link>' for arm in "ab" for k in (1, 2))

    def joint(name: str, parent: str, child: str, xyz: str, axis: str) -> str:
        return (
            f'<joint name="{name}" type="revolute"><parent link="{parent}"/>'
            f'<child link="{child}"/><origin xyz="{xyz}"/><axis xyz="{axis}"/>'
            '<limit lower="-2" upper="2" effort="10" velocity="2"/></joint>'
        )

    joints = "".join(
        joint(f"{arm}_j1", "torso", f"{arm}1", f"0 {side} 0", "0 0 1")
        + joint(f"{arm}_j2", f"{arm}1", f"{arm}2", "0.3 0 0", "0 1 0")
        for arm, side in (("a", "0.3"), ("b", "-0.3"))
    )
    return f'<robot name="dual"><link name="torso"/>{links}{joints}</robot>'


def test_the_other_arm_of_a_fixed_base_stays_movable_in_the_export(tmp_path):
    """Identifying one arm of a dual-arm URDF locks the other arm's joints, which move no torque
    of the identified arm: the export leaves them as written (it froze the other arm) and still
    reproduces the fit at any pose of both arms."""
    path = tmp_path / "dual.urdf"
    path.write_text(_dual_arm_urdf())
    robot = load_robot(path, ["a_j1", "a_j2"], locked={"b_j2": 0.4})
    assert robot.locked_in_chain == (False, False)
    theta = urdf_parameters(robot)
    theta[: robot.n_inertial] *= np.repeat([0.8, 1.3], 10)
    text = urdf.export_urdf(path.read_text(), robot, theta, {}, ["test"])
    kinds = {j.get("name"): j.get("type") for j in ET.fromstring(text).findall("joint")}
    assert kinds == dict.fromkeys(["a_j1", "a_j2", "b_j1", "b_j2"], "revolute")
    (tmp_path / "exported.urdf").write_text(text)
    again = load_robot(tmp_path / "exported.urdf", ["a_j1", "a_j2"], locked={"b_j1": -1.0})
    assert _replay_error(robot, theta, again, urdf_parameters(again), seed=3) < 1e-9


def test_welded_links_are_emptied_and_said_so():
    robot, theta = _identified(2)
    assert urdf.welded_links(robot)["bracelet_link"] == ["end_effector_link"]
    text = urdf.export_urdf(URDF.read_text(), robot, theta, {}, ["provenance line"])
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    links = {link.get("name"): link for link in root.iter("link")}
    assert links["end_effector_link"].find("inertial") is None
    assert "bracelet_link" in ET.tostring(links["end_effector_link"], encoding="unicode")
    assert "provenance line" in text and text.startswith('<?xml version="1.0"?>')
    assert "robotiq_arg2f_base_link" in text  # the user's commented-out gripper is kept


def test_exported_bodies_are_consistent_where_the_estimate_is(tmp_path):
    robot, theta = _identified(3)
    path = tmp_path / "x.urdf"
    path.write_text(urdf.export_urdf(URDF.read_text(), robot, theta, {}, []))
    again = load_robot(path, JOINTS)
    ours = {r.link: r.consistent for r in link_report(theta, link_parameter_slices(robot))}
    back = {
        r.link: r.consistent
        for r in link_report(urdf_parameters(again), link_parameter_slices(again))
    }
    assert ours == back


def test_a_transmission_does_not_take_the_joints_dynamics():
    """ROS URDFs name each joint again inside its <transmission>: <dynamics>, the armature and
    the offset comments go into the robot's own <joint>, the transmission stays as it was."""
    robot, theta = _identified(4)
    transmission = (
        '<transmission name="t1"><type>transmission_interface/SimpleTransmission</type>'
        '<joint name="joint_1"><hardwareInterface>EffortJointInterface</hardwareInterface>'
        "</joint></transmission></robot>"
    )
    source = URDF.read_text().replace("</robot>", transmission)
    text = urdf.export_urdf(
        source, robot, theta, _friction(robot, theta), [], {"joint_1": 0.3}, {"joint_1": -0.7}
    )
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    own = {j.get("name"): j for j in root.findall("joint")}["joint_1"]
    inside = root.find("transmission/joint")
    assert inside is not None and inside.find("dynamics") is None and len(inside) == 1
    assert own.find("dynamics") is not None
    notes = " ".join(c.text for c in own if c.tag is ET.Comment)
    assert (
        "armature 0.29999999999999999 kg m^2" in notes
        and "offset -0.69999999999999996 N m" in notes
    )


def test_namespace_prefixes_and_what_precedes_the_robot_are_kept():
    """Gazebo's `sensor:` and `controller:` prefixes came out as `ns0:`/`ns1:` and the comment
    above <robot> was lost: the XML meant the same, but tools look prefixes up by name."""
    robot, theta = _identified(5)
    source = URDF.read_text()
    start = source.index("<robot")
    robot_tag = source[start : source.index(">", start)]
    namespaced = (
        source[:start]
        + "<!-- generated from kinova.xacro; do not edit -->\n"
        + robot_tag
        + ' xmlns:sensor="http://playerstage.sourceforge.net/gazebo/xmlschema/#sensor"'
        + ' xmlns:controller="http://playerstage.sourceforge.net/gazebo/xmlschema/#controller"'
        + source[source.index(">", start) :].replace(
            "</robot>", '<gazebo><sensor:contact name="c"/><controller:plugin/></gazebo></robot>'
        )
    )
    text = urdf.export_urdf(namespaced, robot, theta, _friction(robot, theta), ["made here"])
    assert "<sensor:contact" in text and "<controller:plugin" in text and "ns0:" not in text
    head = text[: text.index("<robot")]
    assert head.startswith('<?xml version="1.0"?>') and "generated from kinova.xacro" in head
    reread = ET.fromstring(text)  # still well-formed, the same tree
    assert reread.find("gazebo") is not None and reread.get("name") == ET.fromstring(source).get(
        "name"
    )


def test_default_namespaces_are_read_and_kept_as_written(tmp_path):
    """A URDF with ``xmlns="..."`` on <robot> (Pinocchio loads it: urdfdom ignores namespaces)
    was refused ('its root is <{uri}robot>') and its export found no <link>; one on a Gazebo
    <plugin> came out as ``ns0:plugin``, a name no URDF reader knows."""
    robot, theta = _identified(7)
    source = URDF.read_text()
    end = source.index(">", source.index("<robot"))
    namespaced = (
        source[:end]
        + ' xmlns="http://www.ros.org"'
        + source[end:].replace(
            "</robot>",
            '<gazebo><plugin args="-v xmlns=1 a>b" xmlns="http://gazebosim.org/schema" '
            'name="p"><a>1</a></plugin></gazebo></robot>',
        )
    )
    given = tmp_path / "namespaced.urdf"
    given.write_text(namespaced)
    read = load_robot(given, JOINTS)
    assert np.array_equal(urdf_parameters(read), urdf_parameters(robot))
    text = urdf.export_urdf(namespaced, read, theta, _friction(robot, theta), ["made here"])
    assert "ns0" not in text and "paramid" not in text
    assert '<robot name="gen3_gen3" xmlns="http://www.ros.org">' in text
    # an attribute value holding "xmlns=" or ">" stays a value (it ended the start tag early)
    assert '<plugin args="-v xmlns=1 a&gt;b" xmlns="http://gazebosim.org/schema" name="p">' in text
    exported = tmp_path / "identified.urdf"
    exported.write_text(text)
    again = load_robot(exported, JOINTS)
    n = robot.n_inertial
    replayed = np.concatenate([urdf_parameters(again)[:n], theta[n:]])
    assert _replay_error(robot, theta, again, replayed, 7) < 1e-9


def test_a_preamble_with_a_bom_or_a_commented_robot_stays_well_formed():
    """A comment naming an old <robot> cut the preamble inside it, and a byte-order mark kept
    the source's own XML declaration after the new one: not well-formed XML."""
    robot, theta = _identified(6)
    source = URDF.read_text()
    declared = source.index("?>") + 2
    commented = source[:declared] + '\n<!-- was <robot name="old"> -->' + source[declared:]
    for given in ("\ufeff" + source, commented):
        text = urdf.export_urdf(given, robot, theta, _friction(robot, theta), [])
        ET.fromstring(text.encode())
        assert text.count("<?xml") == 1
    assert '<!-- was <robot name="old"> -->' in text


def _planar_2r(tmp_path: Path, a: float) -> Path:
    """Two links turning about vertical z axes (gravity along -z does no work), the second
    joint at distance ``a`` from the first along the first link's x."""
    inertial = (
        '<inertial><origin xyz="{x} 0.02 0.01"/><mass value="{m}"/>'
        '<inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial>'
    )
    text = f"""<?xml version="1.0"?>
<robot name="planar_2r">
  <link name="base"/>
  <link name="l1">{inertial.format(x=a / 2, m=2.0)}</link>
  <link name="l2">{inertial.format(x=0.2, m=1.0)}</link>
  <joint name="j1" type="revolute"><parent link="base"/><child link="l1"/>
    <axis xyz="0 0 1"/><limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
  <joint name="j2" type="revolute"><parent link="l1"/><child link="l2"/>
    <origin xyz="{a} 0 0"/><axis xyz="0 0 1"/>
    <limit lower="-3" upper="3" effort="10" velocity="3"/></joint>
</robot>
"""
    path = tmp_path / "planar_2r.urdf"
    path.write_text(text)
    return path


def _random_rows(robot, seed: int, samples: int = 200) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = robot.n_joints
    q, dq, ddq = (rng.uniform(-2, 2, (samples, n)) for _ in range(3))
    return regressor(robot, q, dq, ddq).reshape(-1, robot.n_parameters)


def test_determinacy_of_a_horizontal_planar_arm_is_the_known_regrouping(tmp_path):
    """About vertical axes only I_zz of a body acts, and the second body's mass only as a point
    mass at its joint, m_2 a² q̈_1 = a² × the column of I_zz,1: the row space is spanned by
    e(I_zz,1) + a² e(m_2), e(I_zz,2), e(m c_x,2), e(m c_y,2) and the friction columns, so
    d(I_zz,1) = 1/(1 + a⁴), d(m_2) = a⁴/(1 + a⁴), 1 for the others named, 0 for the rest."""
    a = 0.5
    robot = load_robot(_planar_2r(tmp_path, a), ["j1", "j2"])
    base = base_parameters(_random_rows(robot, 0), robot.standard_names)
    d = dict(zip(robot.standard_names, urdf.determinacy(base), strict=True))
    expected = dict.fromkeys(robot.standard_names, 0.0)
    expected |= {"Izz_l1": 1 / (1 + a**4), "m_l2": a**4 / (1 + a**4)}
    expected |= dict.fromkeys(["Izz_l2", "mx_l2", "my_l2", "fv_j1", "fc_j1", "fv_j2", "fc_j2"], 1.0)
    assert base.rank == 8
    np.testing.assert_allclose(list(d.values()), list(expected.values()), atol=1e-12)


def test_a_first_link_alone_about_a_vertical_axis_is_its_i_zz(tmp_path):
    """One link turning about a vertical z axis: the data determine its I_zz (about the joint)
    and friction, and nothing of its mass, first moment or other inertias."""
    robot = load_robot(_planar_2r(tmp_path, 0.5), ["j1"], locked={"j2": 0.3})
    base = base_parameters(_random_rows(robot, 1), robot.standard_names)
    d = urdf.determinacy(base)
    names = robot.standard_names
    determined = {"Izz_l1", "fv_j1", "fc_j1"}
    np.testing.assert_allclose(d, [1.0 if n in determined else 0.0 for n in names], atol=1e-12)
    assert urdf.set_by(d) == ["data" if n in determined else "prior" for n in names]


@pytest.mark.parametrize("seed", [2, 3])
def test_determinacy_is_the_diagonal_of_the_pseudo_inverse_projector(seed):
    """On the Gen3 with an armature (dependent on I_zz of the first link) and a 5-joint arm: the
    diagonal of P = pinv(Y) Y, an independent route to the row space, and Σ d = rank Y; the
    model's structural base gives the same (the data miss no base parameter)."""
    fast = ["j1_yaw", "j2_shoulder", "j3_elbow", "j4_wrist_roll", "j5_wrist_pitch"]
    for path, joints in ((URDF, JOINTS), (ROOT / "tests/data/fast_arm.urdf", fast)):
        robot = load_robot(path, joints, armature=True)
        Y = _random_rows(robot, seed)
        d = urdf.determinacy(base_parameters(Y, robot.standard_names))
        np.testing.assert_allclose(d, np.diag(np.linalg.pinv(Y) @ Y), atol=1e-8)
        assert np.sum(d) == pytest.approx(np.linalg.matrix_rank(Y), abs=1e-8)
        np.testing.assert_allclose(
            d, urdf.determinacy(structural_base(robot, BASE_REL_TOL)), atol=1e-8
        )
        assert np.any((d > 0.01) & (d < 0.99))  # parameters known only in combinations


def test_a_held_parameter_is_determined_as_if_its_column_were_zero():
    """A fit that holds an offset the base parameters kept (friction.json dropped it after
    robot_model): its determinacy is 0 and the others' are those of the regressor without it."""
    robot = load_robot(URDF, JOINTS, offset=True)
    Y = _random_rows(robot, 4)
    base = base_parameters(Y, robot.standard_names)
    held = [robot.standard_names.index("f0_joint_3")]
    d = urdf.determinacy(base, held)
    Y[:, held] = 0.0
    np.testing.assert_allclose(d, np.diag(np.linalg.pinv(Y) @ Y), atol=1e-8)
    assert d[held[0]] == pytest.approx(0.0, abs=1e-12)
    assert np.sum(d) == pytest.approx(base.rank - 1, abs=1e-8)
    assert urdf.set_by(d, held)[held[0]] == "held"


def test_the_export_says_per_link_what_the_data_determine(tmp_path):
    path = _planar_2r(tmp_path, 0.5)
    robot = load_robot(path, ["j1", "j2"])
    base = base_parameters(_random_rows(robot, 5), robot.standard_names)
    d = urdf.determinacy(base)
    theta = urdf_parameters(robot)
    notes = urdf.determinacy_notes(robot, d, free_links=["l2"])
    text = urdf.export_urdf(path.read_text(), robot, theta, {}, ["test"], link_notes=notes)
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    said = {
        link.get("name"): " ".join(c.text for c in link if c.tag is ET.Comment)
        for link in root.iter("link")
    }
    assert "determined by the data: none;" in said["l1"]
    assert (
        "set by the prior (the URDF's value, unless consistency moved it): m, m·c_x" in said["l1"]
    )
    assert "I_xz, I_yz; determined only in combinations" in said["l1"]
    assert said["l1"].endswith("SI units): I_zz 0.94 ")
    assert "determined by the data: m·c_x, m·c_y, I_zz;" in said["l2"]
    assert "set by consistency alone (not pulled toward the URDF" in said["l2"]
    assert "SI units): m 0.06 " in said["l2"]
    table = urdf.determinacy_table(robot, theta, urdf_parameters(robot), d)
    assert list(table["parameter"]) == robot.standard_names
    assert table.loc[table["parameter"] == "Izz_l1", "set_by"].item() == "data and prior"
    assert table["urdf"].isna().sum() == 4 and set(table["body"]) == {"l1", "l2", "j1", "j2"}


def test_the_exported_model_is_the_fits_standard_parameters_with_what_the_data_determine(
    tmp_path,
):
    """export_model (rule robot_export's step): the fit's standard parameters (its base rows
    aside) in the URDF with friction in <dynamics>, per body what the data determine, the
    header naming the calibration signals' distinct cutoffs in order; the determinacy table
    beside it; a fit without standard parameters, or base parameters of another model, stop
    it."""
    path = _planar_2r(tmp_path, 0.5)
    robot = load_robot(path, ["j1", "j2"])
    base = base_parameters(_random_rows(robot, 5), robot.standard_names)
    theta = urdf_parameters(robot)
    theta[robot.n_inertial :] = [0.3, 0.2, 0.5, 0.4]  # fv_j1, fc_j1, fv_j2, fc_j2
    fit = pd.DataFrame(
        {
            "kind": ["base"] * 2 + ["standard"] * robot.n_parameters,
            "value": [9.0, 9.0, *theta],
        }
    )
    cfg = {"study": "t", "method": "lmi", "calibration": ["c.csv"]}
    cfg["robot"] = {"armature": False, "friction": ["viscous", "coulomb"], "joints": ["j1", "j2"]}
    cfg["lmi"] = {**defaults("robots", "*", "lmi"), "weight": 1.0, "free_links": ["l2"]}
    choice = {"laws": {"j1": "sign", "j2": "sign"}, "velocity_rad_s": 0.01}
    choice["offsets"] = [False, False]
    signals_meta = [{"cutoff_hz": 10.0}, {"cutoff_hz": 5.0}, {"cutoff_hz": 10.0}]
    exported = export.export_model(
        cfg, choice, robot, base, path.read_text(), fit, {}, signals_meta
    )
    assert "Signals low-passed at 5, 10 Hz (zero-phase)." in exported.urdf
    assert "Not pulled (lmi.free_links, a load the URDF lacks): l2." in exported.urdf
    root = ET.fromstring(
        exported.urdf, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    )
    dynamics = {
        j.get("name"): {k: float(v) for k, v in j.find("dynamics").attrib.items()}
        for j in root.iter("joint")
    }
    assert dynamics == {
        "j1": {"damping": 0.3, "friction": 0.2},
        "j2": {"damping": 0.5, "friction": 0.4},
    }
    said = {
        link.get("name"): " ".join(c.text for c in link if c.tag is ET.Comment)
        for link in root.iter("link")
    }
    assert "determined by the data: m·c_x, m·c_y, I_zz;" in said["l2"]
    assert "set by consistency alone (not pulled toward the URDF" in said["l2"]
    d = urdf.determinacy(base)
    expected = urdf.determinacy_table(robot, theta, urdf_parameters(robot), d)
    pd.testing.assert_frame_equal(exported.determinacy, expected)
    with pytest.raises(ValueError, match="lmi gives no standard parameters to export"):
        export.export_model(cfg, choice, robot, base, "", fit[fit["kind"] == "base"], {}, [])
    other = base_parameters(_random_rows(robot, 6)[:, :-1], robot.standard_names[:-1])
    with pytest.raises(ValueError, match="rerun robot_model"):
        export.export_model(cfg, choice, robot, other, "", fit, {}, [])


def test_a_locked_joint_without_an_axis_is_fixed_about_the_urdf_default_axis(tmp_path):
    """A URDF joint without <axis> turns about (1, 0, 0) (the URDF XML spec; Pinocchio reads it
    so): locked and written fixed, it is fixed about that axis at its lock value, and the file
    reproduces the fit at any pose."""
    text = URDF.read_text()
    start = text.index('<joint name="joint_4"')
    end = text.index("</joint>", start)
    no_axis = text[:start] + re.sub(r"\s*<axis [^>]*/>", "", text[start:end]) + text[end:]
    assert "<axis" not in no_axis[start : no_axis.index("</joint>", start)]
    (source := tmp_path / "no_axis.urdf").write_text(no_axis)
    moving = [j for j in JOINTS if j != "joint_4"]
    robot = load_robot(source, moving, locked={"joint_4": -1.1})
    theta = urdf_parameters(robot)
    theta[: robot.n_inertial] *= np.repeat(np.linspace(0.8, 1.2, len(robot.links)), 10)
    exported_text = urdf.export_urdf(no_axis, robot, theta, {}, ["test"])
    (path := tmp_path / "locked.urdf").write_text(exported_text)
    again = load_robot(path, moving)
    exported = urdf_parameters(again)
    exported[again.n_inertial :] = theta[robot.n_inertial :]
    assert _replay_error(robot, theta, again, exported, seed=7) < 1e-9


def test_an_armature_or_offset_comment_says_how_far_the_data_determine_it():
    """A UR-like arm's shoulder armature joins a link's inertia in one base parameter: the
    exported 0.506 (true 0.40) was half the prior's, and its comment did not say so."""
    robot, theta = _identified(8, armature=True)
    values = dict(zip(robot.standard_names, theta, strict=True))
    armature = {j: values[f"ia_{j}"] for j in JOINTS[:3]}
    determined = {"ia_joint_1": 1.0, "ia_joint_2": 0.49, "ia_joint_3": 0.0, "f0_joint_1": 0.3}
    text = urdf.export_urdf(
        URDF.read_text(),
        robot,
        theta,
        _friction(robot, theta),
        [],
        armature,
        {"joint_1": 0.2},
        None,
        determined,
    )
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    notes = {
        j.get("name"): " ".join(c.text for c in j if c.tag is ET.Comment)
        for j in root.findall("joint")
    }
    assert "gives it, a base parameter of its own (identifiable; how precisely" in notes["joint_1"]
    assert "combination with other parameters, share 0.49" in notes["joint_2"]
    assert "as the fit gives it, which the data leave to the prior;" in notes["joint_3"]
    assert "offset 0.2" in notes["joint_1"] and "share 0.30" in notes["joint_1"]


def _header(text: str) -> str:
    root = ET.fromstring(text, parser=ET.XMLParser(target=ET.TreeBuilder(insert_comments=True)))
    return " ".join(" ".join(root[0].text.split()).split())


def test_relative_mesh_paths_point_from_the_export_to_the_original_files(tmp_path):
    """A mesh beside the user's URDF (`meshes/link1.stl`) was copied as written into
    results/<robot>/model/, where it named a file that does not exist; package://, file:// and
    absolute paths stay as written."""
    source = tmp_path / "data" / "arm"
    (source / "meshes").mkdir(parents=True)
    (source / "meshes" / "base.stl").write_text("solid base\nendsolid base\n")
    text = URDF.read_text()
    text = text.replace("</robot>", '  <link name="decor"/>\n</robot>')
    names = ["meshes/base.stl", "package://arm/m.stl", "file:///opt/m.stl", "/opt/abs.stl"]
    names += ["file:meshes/c.stl", "C:/robot/a.stl", "C:\\robot\\b.stl", "meshes\\d.stl"]
    visuals = "".join(
        f'<visual><geometry><mesh filename="{name}"/></geometry></visual>' for name in names
    )
    text = text.replace('<link name="decor"/>', f'<link name="decor">{visuals}</link>')
    robot, theta = _identified(3)
    export = tmp_path / "results" / "arm" / "model"
    prefix = "../../../data/arm"
    written = urdf.export_urdf(text, robot, theta, {}, ["test"], mesh_prefix=prefix)
    meshes = [m.get("filename") for m in ET.fromstring(written).iter("mesh")]
    assert meshes[-8:] == [f"{prefix}/meshes/base.stl", *names[1:]]
    assert (export / meshes[-8]).resolve() == (source / "meshes" / "base.stl").resolve()
    every = [m.get("filename") for m in ET.fromstring(text).iter("mesh")]
    relative = [n for n in every if not re.match(r"[A-Za-z][\w+.-]*:|/", n) and "\\" not in n]
    assert len(relative) == len(every) - 7  # the Gen3's own relative meshes and base.stl
    assert f"{len(relative)} relative mesh or texture path(s) rewritten" in _header(written)
    unmoved = urdf.export_urdf(text, robot, theta, {}, ["test"])
    assert [m.get("filename") for m in ET.fromstring(unmoved).iter("mesh")][-8:] == names
    assert "rewritten" not in _header(unmoved)
    beside = urdf.export_urdf(text, robot, theta, {}, ["test"], mesh_prefix=".")  # same folder
    assert "rewritten" not in _header(beside)


def test_a_link_left_as_written_with_an_unphysical_inertia_is_named():
    """The Gen3's base_link (0.0146 + 0.0245 < 0.0721 kg m²) is no body of the model (a fixed
    base) and is left as the user wrote it: MuJoCo refused the export, whose header said
    "physically consistent"; the header now names it. Made physical, it is not named."""
    robot, theta = _identified(5)
    header = _header(urdf.export_urdf(URDF.read_text(), robot, theta, {}, ["test"]))
    assert "Left as written, not identified (no joint of the model moves it): base_link," in header
    root = ET.fromstring(URDF.read_text())
    tensor = next(link for link in root.iter("link") if link.get("name") == "base_link").find(
        "inertial/inertia"
    )
    moments = [float(tensor.get(k)) for k in ("ixx", "iyy", "izz")]
    assert moments[0] + moments[1] < moments[2]  # as the user's URDF gives it
    tensor.set("izz", repr(0.9 * (moments[0] + moments[1])))
    fixed = ET.tostring(root, encoding="unicode")
    assert "Left as written" not in _header(urdf.export_urdf(fixed, robot, theta, {}, ["test"]))


def test_a_body_on_the_consistency_boundary_is_named_in_the_header():
    """The lmi fit of kinova_gen3 left its shoulder a plate (A + B − C = 1.7e-11) and its
    bracelet a rod (principal moments 1e-9, 0.0164, 0.0164): valid only to the digits
    written; the header names them. The Gen3 URDF's own shoulder (0.0004 + 0.0048 < 0.0146
    kg m²), scaled, is beyond the boundary: named as not consistent."""
    robot, theta = _identified(6)
    assert urdf.flat_bodies(robot, theta) == ([], ["shoulder_link"])
    header = _header(urdf.export_urdf(URDF.read_text(), robot, theta, {}, []))
    assert "Not physically consistent as this method gives them" in header
    assert "break A + B >= C): shoulder_link;" in header and "On the boundary" not in header
    k = robot.links.index("bracelet_link")
    pi = theta[10 * k : 10 * (k + 1)]
    mass, c, _ = urdf.com_inertia(pi)
    rod = np.diag([1e-9, 0.0164, 0.0164])  # the fit's bracelet: a rod along x, about its com
    about_origin = rod + mass * (c @ c * np.eye(3) - np.outer(c, c))
    pi[4:] = [about_origin[i, j] for i, j in ((0, 0), (0, 1), (1, 1), (0, 2), (1, 2), (2, 2))]
    assert urdf.flat_bodies(robot, theta) == (["bracelet_link"], ["shoulder_link"])
    header = _header(urdf.export_urdf(URDF.read_text(), robot, theta, {}, []))
    assert "On the boundary of physical consistency" in header and ": bracelet_link." in header
    assert urdf.second_moment_margin(rod) == pytest.approx(5e-10, rel=1e-6)
    assert urdf.second_moment_margin(np.diag([1.0, 2.0, 2.5])) == pytest.approx(0.25)


def test_the_header_gives_the_torque_the_file_stands_for_and_the_armature_it_cannot_hold(
    tmp_path,
):
    """Loaded as a simulator reads it, the Gen3's export lacked its armature (the mass matrix
    10-20x lighter on joints 5-7) and plain rnea scored 4.86 N m against the fit's 2.09: the
    header now lists each joint's armature in joint order and the torque the file stands for;
    rnea of the file plus the header's terms is the model's prediction."""
    robot, theta = _identified(2, armature=True)
    values = dict(zip(robot.standard_names, theta, strict=True))
    armature = {j: values[f"ia_{j}"] for j in JOINTS}
    cfg = {
        "study": "s",
        "method": "lmi",
        "calibration": ["a.csv"],
        "lmi": {"weight": 1.0, "metric": "robot", "rule": "1se"},
        "robot": {"joints": JOINTS, "friction": ["viscous", "coulomb"], "armature": True},
    }
    choice = {"laws": dict.fromkeys(JOINTS, "sign"), "offsets": [True] + [False] * 6}
    choice["velocity_rad_s"] = 0.01
    cfg["calibration_sha256"] = ["ab12", "cd34"]
    cfg["robot"]["urdf_sha256"] = "ef56"
    header = " ".join(study.export_header(cfg, choice, {}, False, armature, [10.0, 12.5]))
    assert "Calibration records' SHA-256: ab12, cd34. Original URDF's SHA-256: ef56." in header
    assert "Signals low-passed at 10, 12.5 Hz (zero-phase)." in header
    assert (
        "rnea, which ignores <dynamics>) + armature * qdd + damping * qd + friction * law(qd) "
        "+ offset." in header
    )
    listed = header.split("MuJoCo <joint armature>), kg m^2: ")[1].split(". ")[0]
    pairs = [pair.split() for pair in listed.split(", ")]
    assert [name for name, _ in pairs] == JOINTS
    text = urdf.export_urdf(URDF.read_text(), robot, theta, _friction(robot, theta), [header])
    (path := tmp_path / "lmi.urdf").write_text(text)
    again = load_robot(path, JOINTS)  # as a user loads it: no armature
    rng = np.random.default_rng(12)
    q, dq, ddq = rng.uniform(-2, 2, (20, 7)), rng.normal(size=(20, 7)), rng.normal(size=(20, 7))
    dynamics = {j.get("name"): j.find("dynamics") for j in ET.fromstring(text).iter("joint")}
    damping = np.array([float(dynamics[j].get("damping")) for j in JOINTS])
    friction = np.array([float(dynamics[j].get("friction")) for j in JOINTS])
    rotor = np.array([float(value) for _, value in pairs])
    exported = urdf_parameters(again)
    torque = inverse_dynamics(again, q, dq, ddq, exported) + rotor * ddq
    torque += damping * dq + friction * np.sign(dq)
    predicted = regressor(robot, q, dq, ddq) @ theta
    assert np.max(np.abs(torque - predicted)) < 1e-5 * np.max(np.abs(predicted))
    assert np.max(np.abs(torque - rotor * ddq - predicted)) > 1e-2 * np.max(np.abs(predicted))


def test_a_massless_link_with_inertia_is_named_with_the_body_that_carries_it():
    """A tool flange of no mass with a placeholder inertia of 0.1 kg m^2 (bullet's Panda has
    such on its flange and grasp target) fixed to the last link: Pinocchio adds it to that
    body, so the urdf rows and the prior carry it; one on the fixed base moves nothing, and
    the shipped Gen3 (its end effector 2.23e-12 kg) has none."""
    from paramid.robot import model

    text = URDF.read_text()
    assert model.massless_inertias(model.robot_from_urdf(text, URDF, JOINTS), text) == []
    six = 'ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"'
    placeholder = f'<inertial><mass value="0"/><inertia {six}/></inertial>'
    extra = (
        f'<link name="flange">{placeholder}</link>'
        '<joint name="to_flange" type="fixed"><parent link="end_effector_link"/>'
        '<child link="flange"/><origin xyz="0 0 -0.05"/></joint>'
        f'<link name="stand">{placeholder}</link>'
        '<joint name="to_stand" type="fixed"><parent link="base_link"/>'
        '<child link="stand"/></joint></robot>'
    )
    edited = text.replace("</robot>", extra)
    robot = model.robot_from_urdf(edited, "arm.urdf", JOINTS)
    plain = model.robot_from_urdf(text, URDF, JOINTS)
    added = robot.model.inertias[7].inertia - plain.model.inertias[7].inertia
    np.testing.assert_allclose(np.diag(added), 0.1, atol=1e-12)  # what the warning is about
    [warning] = model.massless_inertias(robot, edited)
    assert "link 'flange' has no mass but an inertia of diagonal ixx, iyy, izz = 0.1" in warning
    assert "fixed to 'bracelet_link', which carries it" in warning and "arm.urdf" in warning
    table = study.warnings_table({}, None, [], [warning])
    assert table.to_dict("list") == {"method": [study.URDF_ROW], "warning": [warning]}
