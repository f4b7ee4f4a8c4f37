"""Identified models as URDFs (paramid.robot.urdf): the exported file reproduces the model's
inverse dynamics through Pinocchio, links welded to a body are emptied, friction is written."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from loaders import load_robot

from paramid.robot import urdf
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
    rng = np.random.default_rng(7)
    q, dq, ddq = rng.uniform(-2, 2, (20, 6)), rng.normal(size=(20, 6)), rng.normal(size=(20, 6))
    predicted = regressor(robot, q, dq, ddq) @ theta
    exported = urdf_parameters(again)
    exported[again.n_inertial :] = theta[robot.n_inertial :]
    replayed = inverse_dynamics(again, q, dq, ddq, exported)
    assert np.max(np.abs(replayed - predicted)) < 1e-9 * np.max(np.abs(predicted))


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
