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
law has them (simulators read them; Pinocchio's inverse dynamics ignores them); what else an
identified joint's ``<dynamics>`` held (Gazebo's joint spring) is removed, with a comment.
URDF has no field for a joint's armature (reflected rotor inertia): it is written as a comment
in the joint, :data:`ARMATURE_NOTE`, for the user to carry into a simulator (MuJoCo's joint
``armature``, Pinocchio's ``model.armature``); so is a joint's identified torque offset,
:data:`OFFSET_NOTE` (a property of the measurement, not of the robot).

The data determine only the base parameters, so a comment in each body's link says which of
its standard parameters they fix (:func:`determinacy`, :func:`determinacy_notes`) and which the
fit took from the prior (the URDF), and :func:`determinacy_table` lists them all.
"""

from __future__ import annotations

import io
import posixpath
import re
import xml.etree.ElementTree as ET
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid.base_parameters import BaseParameters
from paramid.robot.model import (
    ARMATURE,
    INERTIAL,
    OFFSET,
    TERM_UNITS,
    Robot,
    RobotError,
    attributes_text,
    coordinate_unit,
    dynamic_extras,
    joint_kinds,
    link_parameter_slices,
    shown_default_namespaces,
    urdf_tree,
)

Array = NDArray[np.float64]
MIN_MASS_KG = 1e-12  # below this a body is written massless (no centre of mass to place)
ARMATURE_NOTE = (
    " armature {value} {unit}: reflected rotor inertia, as the fit gives it{determined}; not a "
    "URDF field (MuJoCo <joint armature>, Pinocchio model.armature) "
)
OFFSET_NOTE = (
    " offset {value} {unit}: a constant torque added to this joint's measured torque (e.g. a "
    "torque sensor's bias), as the fit gives it{determined}; not a URDF field: subtract it from "
    "measurements "
)
DROPPED_NOTE = (
    " <dynamics> {stated} removed: the identified model has no such term (a joint spring, in "
    "Gazebo), and beside it a simulator would add torque the fit does not have "
)
#: a determinacy within this of 1 or 0 is an exact 1 (the data fix the parameter) or 0 (it
#: never changes the torque): round-off of the SVD, ~1e-15 on the Gen3
ROUND_OFF = 1e-9
#: the standard parameters of :data:`paramid.robot.model.INERTIAL` as the notes write them
LABELS = dict(
    zip(
        INERTIAL,
        ("m", "m·c_x", "m·c_y", "m·c_z", "I_xx", "I_xy", "I_yy", "I_xz", "I_yz", "I_zz"),
        strict=True,
    )
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


def determinacy(base: BaseParameters, held: Sequence[int] | NDArray[np.intp] = ()) -> Array:
    """Each standard parameter's determinacy d_i = ‖P e_i‖² = P_ii (p,), P the orthogonal
    projector onto the row space of the calibration regressor Y (the identifiable subspace).

    Y θ = Y₁ β = Y₁ B θ with Y₁ of full column rank (:mod:`paramid.base_parameters`), so
    null(Y) = null(B) and the row space of Y is that of B (:attr:`BaseParameters.matrix`): the
    rank r is the one the base parameters were given (pivoted QR of Y, |Rᵢᵢ| > ``base.tolerance``
    · |R₀₀|).  The ``held`` columns (parameters the fit holds, as offsets it left out) are
    zeroed first, as the fit zeroes them in Y; with B = U S Vᵀ and V_r the right singular
    vectors of the singular values above ``base.tolerance`` × the largest (all r without held
    columns: B Bᵀ = 1 + K Kᵀ; a held base column empties its row), P = V_r V_rᵀ and
    d_i = Σ_k V_ik², Σ_i d_i = r (the trace of a projector).  d_i = 1: every θ that fits the
    data as well has the same θ_i; d_i = 0: column i of Y is zero, θ_i never changes the torque
    and only the prior sets it; between: θ_i enters the torque only in combinations (base
    parameters) with others.  Exact 0 and 1 do not depend on the parameters' units, values
    between do (SI units here).  This is exact identifiability at that tolerance: how well the
    data pin a combination (its standard error) is not in d.
    """
    B = base.matrix
    B[:, np.asarray(held, dtype=np.intp)] = 0.0
    _, s, Vt = np.linalg.svd(B, full_matrices=False)
    V = Vt[s > base.tolerance * s.max(initial=0.0)].T
    return np.sum(V**2, axis=1)


def _listed(names: Sequence[str]) -> str:
    return ", ".join(names) if names else "none"


def determinacy_notes(robot: Robot, d: Array, free_links: Collection[str] = ()) -> dict[str, str]:
    """Per moving body (its first link) a comment naming which of its 10 standard parameters
    the data determine (d = 1), which they leave to the prior (d = 0; both to within
    :data:`ROUND_OFF`) and which they determine only in combinations with others (with d),
    from :func:`determinacy` ``d`` in :attr:`Robot.standard_names` order; a link in
    ``free_links`` is not pulled toward the URDF, so consistency alone sets what the data
    leave."""
    out = {}
    for link, columns in link_parameter_slices(robot).items():
        values = dict(zip(INERTIAL, d[columns], strict=True))
        data = [LABELS[k] for k, v in values.items() if v >= 1.0 - ROUND_OFF]
        prior = [LABELS[k] for k, v in values.items() if v <= ROUND_OFF]
        partly = [
            f"{LABELS[k]} {v:.2f}" for k, v in values.items() if ROUND_OFF < v < 1.0 - ROUND_OFF
        ]
        prior_is = (
            "consistency alone (not pulled toward the URDF: lmi.free_links)"
            if link in free_links
            else "the prior (the URDF's value, unless consistency moved it)"
        )
        out[link] = (
            " Of this body's standard parameters (m, m·c, inertia about the link frame's origin, "
            "from which <inertial> is written): determined by the data: "
            f"{_listed(data)}; no effect on the torque, set by {prior_is}: {_listed(prior)}; "
            "determined only in combinations with other parameters, split by the fit's prior "
            "and constraints (share in the data's row space, SI units): "
            f"{_listed(partly)} "
        )
    return out


def set_by(d: Array, held: Sequence[int] | NDArray[np.intp] = ()) -> list[str]:
    """Per determinacy: ``data`` (d = 1), ``prior`` (d = 0; both to within
    :data:`ROUND_OFF`), ``data and prior`` between, ``held`` for the ``held`` columns."""
    out = [
        "data" if v >= 1.0 - ROUND_OFF else "prior" if v <= ROUND_OFF else "data and prior"
        for v in d
    ]
    for i in held:
        out[int(i)] = "held"
    return out


def determinacy_table(
    robot: Robot,
    theta: Array,
    theta_urdf: Array,
    d: Array,
    held: Sequence[int] | NDArray[np.intp] = (),
) -> pd.DataFrame:
    """One row per standard parameter (:attr:`Robot.standard_names` order): its body (link or
    joint), the exported value θ, the URDF's (none for friction, armature and offsets: no URDF
    field), its :func:`determinacy` d and :func:`set_by`."""
    body = [link for link in robot.links for _ in INERTIAL]
    body += [joint for joint in robot.joints for _ in robot.friction_terms]
    urdf = np.where(np.arange(robot.n_parameters) < robot.n_inertial, theta_urdf, np.nan)
    return pd.DataFrame(
        {
            "parameter": robot.standard_names,
            "body": body,
            "value": theta,
            "urdf": urdf,
            "determinacy": d,
            "set_by": set_by(d, held),
        }
    )


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


#: a body whose density-weighted second moments' smallest eigenvalue is below this share of
#: its largest principal moment of inertia lies on the boundary of physical consistency
FLAT_SHARE = 1e-6
FLAT_NOTE = (
    "On the boundary of physical consistency (a body as thin as a plate or a rod: its principal "
    "moments A + B exceed C by less than 2e-6 of C): {links}. The numbers are written with 17 "
    "digits; rounded, such a body may break A + B >= C, which MuJoCo checks exactly (it refuses "
    "the file; its balanceinertia option replaces the moments by their mean, another body)."
)
BEYOND_NOTE = (
    "Not physically consistent as this method gives them (principal moments that break "
    "A + B >= C): {links}; simulators that check inertias refuse the file (MuJoCo, exactly)."
)


def second_moment_margin(inertia: Array) -> float:
    """The smallest eigenvalue of the density-weighted second moments Σ = ½ tr(I) 1 − I of a
    rotational inertia ``I`` about the centre of mass (3, 3): min over the principal moments of
    (A + B − C)/2, ≥ 0 exactly when the triangle inequalities hold (Wensing et al. 2017)."""
    moments = np.linalg.eigvalsh(0.5 * (inertia + inertia.T))
    return float(0.5 * moments.sum() - moments.max())


def flat_bodies(robot: Robot, theta: Array) -> tuple[list[str], list[str]]:
    """The first links of the bodies whose inertia (standard parameters ``theta``) lies on the
    consistency boundary (:func:`second_moment_margin` within :data:`FLAT_SHARE` of the largest
    principal moment, from above) and of those beyond it (below 0: not physically consistent,
    as MuJoCo checks it, with no tolerance; the Gen3 URDF's own shoulder link, 0.0004 + 0.0048
    < 0.0146 kg m²); massless bodies are left out."""
    flat: list[str] = []
    beyond: list[str] = []
    for k, first in enumerate(welded_links(robot)):
        mass, _, inertia = com_inertia(theta[10 * k : 10 * (k + 1)])
        largest = float(np.max(np.abs(np.linalg.eigvalsh(inertia))))
        margin = second_moment_margin(inertia)
        if mass > 0 and largest > 0 and margin < FLAT_SHARE * largest:
            (flat if margin >= 0 else beyond).append(first)
    return flat, beyond


def unphysical_inertials(root: ET.Element, robot: Robot) -> list[str]:
    """A note naming each link the export leaves as written (no moving joint of the model
    carries it: a fixed base's links) whose ``<inertial>`` is not physical: a negative mass,
    or principal moments that break A + B ≥ C (as MuJoCo checks it, exactly); it changes nothing
    the model predicts, but simulators refuse it (MuJoCo: "inertia must satisfy A + B >= C",
    the Gen3's base_link)."""
    identified = {
        name for first, welded in welded_links(robot).items() for name in (first, *welded)
    }
    bad = []
    for link in root.findall("link"):
        inertial = link.find("inertial")
        if link.get("name") in identified or inertial is None:
            continue
        mass_element, tensor = inertial.find("mass"), inertial.find("inertia")
        mass = float(mass_element.get("value", "0")) if mass_element is not None else 0.0
        keys = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
        ixx, ixy, ixz, iyy, iyz, izz = (
            float(tensor.get(key, "0")) if tensor is not None else 0.0 for key in keys
        )
        inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
        if mass < 0 or second_moment_margin(inertia) < 0:
            bad.append(str(link.get("name")))
    if not bad:
        return []
    return [
        f"Left as written, not identified (no joint of the model moves it): {', '.join(bad)}, "
        "whose <inertial> in the original URDF is not physical (a negative mass, or principal "
        "moments that break A + B >= C). It changes none of this model's torques, but "
        "simulators that check inertias refuse the file (MuJoCo): correct it there."
    ]


#: a filename with a scheme (``package://``, ``file:``) or a drive (``C:``): not a relative path
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def relocated_paths(root: ET.Element, prefix: str) -> list[str]:
    """Rewrite each relative ``filename`` of a ``<mesh>`` or ``<texture>`` as seen from the
    exported file, ``prefix`` being the source URDF's folder relative to the export's; a note
    saying how many moved (none when nothing did).  Left as written: a name with a scheme
    (``package://``, ``file:``) or a drive letter, an absolute one, one with a backslash (a
    Windows path, which a posix join would mangle)."""
    moved = 0
    for element in (*root.iter("mesh"), *root.iter("texture")):
        name = element.get("filename")
        if not name or _SCHEME.match(name) or posixpath.isabs(name) or "\\" in name:
            continue
        new = posixpath.normpath(posixpath.join(prefix, name))
        if new != posixpath.normpath(name):
            element.set("filename", new)
            moved += 1
    if not moved:
        return []
    return [
        f"{moved} relative mesh or texture path(s) rewritten to point from this file's folder "
        f"to the files beside the original URDF ({prefix}/)."
    ]


def _wrapped(note: str, width: int = 92) -> list[str]:
    """A header note as comment lines of at most ``width`` characters."""
    import textwrap

    return textwrap.wrap(note, width) or [""]


def export_urdf(
    text: str,
    robot: Robot,
    theta: Array,
    friction: Mapping[str, Mapping[str, float]],
    header: Sequence[str],
    armature: Mapping[str, float] | None = None,
    offsets: Mapping[str, float] | None = None,
    link_notes: Mapping[str, str] | None = None,
    determined: Mapping[str, float] | None = None,
    mesh_prefix: str = "",
) -> str:
    """The URDF ``text`` with the identified standard parameters ``theta`` (in
    :attr:`Robot.standard_names` order) written into each moving body's link (module docstring),
    ``friction`` (joint -> {"damping": f_v, "friction": f_c}, either may be absent) into the
    joints' ``<dynamics>``, ``armature`` (joint -> I_a) and ``offsets`` (joint -> f_0) as
    comments in each joint (with how far the data determine each, from ``determined``:
    standard parameter name -> :func:`determinacy`), ``link_notes`` (first link of a body ->
    text, as :func:`determinacy_notes`) as a comment in the link, and ``header`` lines as a
    comment at the top of ``<robot>``, followed by what the export found: the bodies it wrote on
    the boundary of physical consistency (:func:`flat_bodies`), the links it left as written
    whose inertia is not physical (:func:`unphysical_inertials`), and the relative mesh and
    texture paths it rewrote by ``mesh_prefix`` (the source URDF's folder seen from the
    exported file's, :func:`relocated_paths`).  The
    text's namespace prefixes (Gazebo's ``sensor:``, ``controller:``) and what precedes
    ``<robot>`` (comments, a DOCTYPE) are kept: tools look them up by name (the prefixes are
    registered with ElementTree, for the process: each workflow job is one), and so are default
    namespace declarations (``xmlns="..."``, on ``<robot>`` or a Gazebo ``<plugin>``), which
    URDF readers ignore (:func:`paramid.robot.model.urdf_tree`)."""
    for prefix, uri in _namespaces(text):
        ET.register_namespace(prefix, uri)
    root = urdf_tree(text, comments=True)
    found = unphysical_inertials(root, robot) + relocated_paths(root, mesh_prefix)
    # the robot's own elements: a <transmission> holds <joint name> elements too
    links = {link.get("name"): link for link in root.findall("link")}
    joints = {joint.get("name"): joint for joint in root.findall("joint")}
    flat, beyond = flat_bodies(robot, theta)
    if beyond:
        found.insert(0, BEYOND_NOTE.format(links=", ".join(beyond)))
    if flat:
        found.insert(0, FLAT_NOTE.format(links=", ".join(flat)))
    for k, (first, welded) in enumerate(welded_links(robot).items()):
        if first not in links:
            raise RobotError(f"link {first!r} of the model is not a <link> of the URDF text")
        mass, c, inertia = com_inertia(theta[10 * k : 10 * (k + 1)])
        _replace_inertial(links[first], _inertial(mass, c, inertia))
        if link_notes and first in link_notes:
            links[first].insert(0, _comment(link_notes[first]))
        for name in welded:
            if name in links and links[name].find("inertial") is not None:
                _replace_inertial(links[name], None)
                note = f" inertia identified as part of {first} (welded to it in the model) "
                links[name].insert(0, _comment(note))
    # a locked joint on the identified chain holds the welded bodies in its pose; one on another
    # branch of a fixed base (a second arm) moves no identified torque and stays as written
    fixed = []
    for (joint, value), in_chain in zip(robot.locked, robot.locked_in_chain, strict=True):
        if in_chain:
            _fix_at(joints[joint], value)
            fixed.append(joint)
    for element in joints.values():  # a joint left moving cannot mimic one written fixed
        mimic = element.find("mimic")
        if mimic is not None and mimic.get("joint") in fixed and element.get("type") != "fixed":
            element.remove(mimic)
            note = (
                f" its <mimic> of {mimic.get('joint')} removed: that joint is locked (written "
                "fixed) and this one was identified moving on its own "
            )
            element.insert(0, _comment(note))
    for joint, values in friction.items():
        element = joints[joint]
        dynamics = element.find("dynamics")
        if dynamics is None:
            dynamics = ET.SubElement(element, "dynamics")
        for key, value in values.items():
            dynamics.set(key, _number(max(float(value), 0.0)))
    for joint in robot.joints:  # an identified joint's <dynamics> holds the model's terms only
        dynamics = joints[joint].find("dynamics")
        if dynamics is None or not (extra := dynamic_extras(dynamics.attrib)):
            continue
        for key in extra:
            del dynamics.attrib[key]
        joints[joint].insert(0, _comment(DROPPED_NOTE.format(stated=attributes_text(extra))))
    # a slide's offset in N, its armature in kg
    units = {
        joint: TERM_UNITS[coordinate_unit(kind)]
        for joint, kind in zip(robot.joints, joint_kinds(robot), strict=True)
    }
    for joint, value in (offsets or {}).items():
        how = _how_determined((determined or {}).get(f"f0_{joint}"))
        unit = units[joint][OFFSET]
        note = OFFSET_NOTE.format(value=_number(value), unit=unit, determined=how)
        joints[joint].insert(0, _comment(note))
    for joint, value in (armature or {}).items():
        how = _how_determined((determined or {}).get(f"ia_{joint}"))
        unit = units[joint][ARMATURE]
        note = ARMATURE_NOTE.format(
            value=_number(max(float(value), 0.0)), unit=unit, determined=how
        )
        joints[joint].insert(0, _comment(note))
    lines = [*header, *(line for note in found for line in _wrapped(note))]
    root.insert(0, _comment("\n  " + "\n  ".join(lines) + "\n"))
    ET.indent(root, space="  ")
    body = shown_default_namespaces(ET.tostring(root, encoding="unicode"))
    return '<?xml version="1.0"?>\n' + _preamble(text) + body + "\n"


def _how_determined(d: float | None) -> str:
    """How far the data determine a joint's armature or offset (:func:`determinacy` d), as its
    comment says it ("" where not given)."""
    if d is None:
        return ""
    if d >= 1.0 - ROUND_OFF:
        return (
            ", a base parameter of its own (identifiable; how precisely the records pin it: "
            "tables/parameters.csv's standard errors)"
        )
    if d <= ROUND_OFF:
        return ", which the data leave to the prior"
    return (
        f" (the data determine it only in a combination with other parameters, share {d:.2f}; "
        "the rest is the fit's prior's: treat with care)"
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
