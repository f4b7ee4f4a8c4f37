"""An identified model as a URDF: a copy of the user's URDF with each moving body's mass, centre
of mass and inertia replaced by the estimate, and friction in ``<dynamics>``.

URDF conventions (ROS REP 103; the URDF XML spec): ``<inertial><origin xyz rpy/>`` places the
centre of mass (and the axes of the inertia) in the link frame, ``<mass value>``, and
``<inertia ixx ixy ixz iyy iyz izz>`` is the rotational inertia **about the centre of mass**.
Pinocchio's standard parameters of body k are π = [m, m c, I_o] with I_o about the joint
frame's origin (:mod:`paramid.robot.model`); the child link frame of a joint is that joint's
frame, so with rpy = 0 the export is c = (m c)/m and the parallel-axis theorem
I_com = I_o − m (|c|² 1 − c cᵀ).

A body of the identified model may hold several URDF links: links on fixed joints, and links
behind a locked joint (at its lock value), are welded to their parent when the model is built.
Their sum is what the data identify, so the export writes it into the body's first link (the
child of the moving joint) and removes the ``<inertial>`` of the links welded to it, saying so in
a comment; each locked joint is written ``fixed`` at its lock value (its origin composed with
the joint's motion there, a comment says so), because the welded sum holds only in that pose:
the file then reproduces the identified dynamics exactly at any pose of the moving joints.
``<dynamics damping friction>`` take the viscous and Coulomb coefficients where the friction
law has them (simulators read them; Pinocchio's inverse dynamics ignores them).
URDF has no field for a joint's armature (reflected rotor inertia): it is written as a comment
in the joint, :data:`ARMATURE_NOTE`, for the user to carry into a simulator (MuJoCo's joint
``armature``, Pinocchio's ``model.armature``); so is a joint's identified torque offset,
:data:`OFFSET_NOTE` (a property of the measurement, not of the robot).
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from paramid.robot.model import Robot, RobotError

Array = NDArray[np.float64]
MIN_MASS_KG = 1e-12  # below this a body is written massless (no centre of mass to place)
ARMATURE_NOTE = (
    " armature {value} kg m^2: reflected rotor inertia, as the fit gives it (the header says how "
    "far the data determine it); not a URDF field (MuJoCo "
    "<joint armature>, Pinocchio model.armature) "
)
OFFSET_NOTE = (
    " offset {value} N m: a constant torque added to this joint's measured torque (e.g. a "
    "torque sensor's bias), as the fit gives it; not a URDF field: subtract it from measurements "
)


def _number(value: float) -> str:
    """Enough digits for a round trip of a double."""
    return f"{float(value):.17g}"


def com_inertia(pi: Array) -> tuple[float, Array, Array]:
    """(mass, centre of mass (3,), inertia about the centre of mass (3, 3)) of one body's
    standard parameters π = [m, m c, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz] (about the frame's
    origin, Pinocchio's order); a body below :data:`MIN_MASS_KG` is massless, its rotational
    inertia kept about the origin (c = 0: consistency leaves m c ≈ 0 with m ≈ 0)."""
    mass = float(pi[0])
    ixx, ixy, iyy, ixz, iyz, izz = pi[4:10]
    origin = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]], dtype=np.float64)
    if mass < MIN_MASS_KG:
        return 0.0, np.zeros(3), origin
    c = np.asarray(pi[1:4], dtype=np.float64) / mass
    return mass, c, origin - mass * (float(c @ c) * np.eye(3) - np.outer(c, c))


def _comment(text: str) -> ET.Element[Any]:
    """An XML comment of ``text`` ("--" is not allowed inside one: a path or link name with
    it would make the file ill-formed)."""
    while "--" in text:
        text = text.replace("--", "- -")
    return ET.Comment(text if not text.endswith("-") else text + " ")


def welded_links(robot: Robot) -> dict[str, list[str]]:
    """Each moving body's first URDF link -> the other URDF links welded to it (fixed joints,
    locked joints), from the model's body frames."""
    import pinocchio as pin

    out: dict[str, list[str]] = {}
    for k, first in enumerate(robot.links, start=1):
        bodies = [
            str(f.name)
            for f in robot.model.frames
            if f.parentJoint == k and f.type == pin.FrameType.BODY
        ]
        out[first] = [b for b in bodies if b != first]
    return out


def _fix_at(joint: ET.Element, value: float) -> None:
    """A revolute, continuous or prismatic ``joint`` made ``fixed`` at coordinate ``value``: its
    origin becomes origin · (rotation about, or translation along, its axis by ``value``)."""
    import pinocchio as pin

    def vector(tag: str, key: str, default: str) -> Array:
        element = joint.find(tag)
        return np.array(
            (element.get(key, default) if element is not None else default).split(), float
        )

    xyz, rpy = vector("origin", "xyz", "0 0 0"), vector("origin", "rpy", "0 0 0")
    axis = vector("axis", "xyz", "1 0 0")  # URDF's default axis
    axis /= np.linalg.norm(axis)
    rotation = pin.rpy.rpyToMatrix(*rpy)
    kind = joint.get("type")
    if kind == "prismatic":
        xyz = xyz + rotation @ axis * value
        unit = "m"
    else:
        rpy = pin.rpy.matrixToRpy(rotation @ pin.AngleAxis(value, axis).matrix())
        unit = "rad"
    for tag in ("origin", "axis", "limit", "dynamics", "safety_controller", "calibration", "mimic"):
        for element in joint.findall(tag):
            joint.remove(element)
    joint.set("type", "fixed")
    note = (
        f" a {kind} joint locked at {float(value)!r} {unit} in the identification (the links "
        "behind it were identified as one body in that pose): written fixed there "
    )
    joint.insert(0, _comment(note))
    ET.SubElement(joint, "origin", xyz=" ".join(map(_number, xyz)), rpy=" ".join(map(_number, rpy)))


def _inertial(mass: float, c: Array, inertia: Array) -> ET.Element:
    element = ET.Element("inertial")
    ET.SubElement(element, "origin", xyz=" ".join(map(_number, c)), rpy="0 0 0")
    ET.SubElement(element, "mass", value=_number(mass))
    names = {
        "ixx": (0, 0),
        "ixy": (0, 1),
        "ixz": (0, 2),
        "iyy": (1, 1),
        "iyz": (1, 2),
        "izz": (2, 2),
    }
    ET.SubElement(element, "inertia", {k: _number(inertia[i, j]) for k, (i, j) in names.items()})
    return element


def _replace_inertial(link: ET.Element, new: ET.Element | None) -> None:
    old = link.find("inertial")
    position = list(link).index(old) if old is not None else 0
    if old is not None:
        link.remove(old)
    if new is not None:
        link.insert(position, new)


def export_urdf(
    text: str,
    robot: Robot,
    theta: Array,
    friction: Mapping[str, Mapping[str, float]],
    header: Sequence[str],
    armature: Mapping[str, float] | None = None,
    offsets: Mapping[str, float] | None = None,
) -> str:
    """The URDF ``text`` with the identified standard parameters ``theta`` (in
    :attr:`Robot.standard_names` order) written into each moving body's link (module docstring),
    ``friction`` (joint -> {"damping": f_v, "friction": f_c}, either may be absent) into the
    joints' ``<dynamics>``, ``armature`` (joint -> I_a) and ``offsets`` (joint -> f_0) as
    comments in each joint, and ``header`` lines as a comment at the top of ``<robot>``.  The
    text's namespace prefixes (Gazebo's ``sensor:``, ``controller:``) and what precedes
    ``<robot>`` (comments, a DOCTYPE) are kept: tools look them up by name (the prefixes are
    registered with ElementTree, for the process: each workflow job is one)."""
    for prefix, uri in _namespaces(text):
        ET.register_namespace(prefix, uri)
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    root = ET.fromstring(text, parser=parser)
    # the robot's own elements: a <transmission> holds <joint name> elements too
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    for k, (first, welded) in enumerate(welded_links(robot).items()):
        if first not in links:
            raise RobotError(f"link {first!r} of the model is not a <link> of the URDF text")
        mass, c, inertia = com_inertia(theta[10 * k : 10 * (k + 1)])
        _replace_inertial(links[first], _inertial(mass, c, inertia))
        for name in welded:
            if name in links and links[name].find("inertial") is not None:
                _replace_inertial(links[name], None)
                note = f" inertia identified as part of {first} (welded to it in the model) "
                links[name].insert(0, _comment(note))
    for joint, value in robot.locked:
        _fix_at(joints[joint], value)
    for joint, values in friction.items():
        element = joints[joint]
        dynamics = element.find("dynamics")
        if dynamics is None:
            dynamics = ET.SubElement(element, "dynamics")
        for key, value in values.items():
            dynamics.set(key, _number(max(float(value), 0.0)))
    for joint, value in (offsets or {}).items():
        joints[joint].insert(0, _comment(OFFSET_NOTE.format(value=_number(value))))
    for joint, value in (armature or {}).items():
        note = ARMATURE_NOTE.format(value=_number(max(float(value), 0.0)))
        joints[joint].insert(0, _comment(note))
    root.insert(0, _comment("\n  " + "\n  ".join(header) + "\n"))
    ET.indent(root, space="  ")
    return (
        '<?xml version="1.0"?>\n' + _preamble(text) + ET.tostring(root, encoding="unicode") + "\n"
    )


def _namespaces(text: str) -> list[tuple[str, str]]:
    """The (prefix, URI) pairs the text declares with a prefix of its own (``ns0``-style ones
    are ElementTree's, which it makes up again)."""
    declared = (value for _, value in ET.iterparse(io.StringIO(text), events=("start-ns",)))
    return [(p, uri) for p, uri in declared if p and not re.fullmatch(r"ns\d+", p)]


def _preamble(text: str) -> str:
    """What precedes the root ``<robot>`` element in the text, without its XML declaration."""
    text = text.lstrip("\ufeff")
    uncommented = re.sub(r"<!--.*?-->", lambda m: " " * len(m.group(0)), text, flags=re.S)
    start = re.search(r"<robot[\s>]", uncommented)
    head = text[: start.start()] if start else ""
    head = re.sub(r"^\s*<\?xml[^>]*\?>", "", head).strip()
    return head + "\n" if head else ""
