"""A serial robot from a URDF: the moving joints, their regressor and inverse dynamics.

:func:`robot_from_urdf` builds a URDF's model with Pinocchio (Carpentier et al. 2019) and locks
every joint that is not identified at a configured value (``pin.buildReducedModel``: a locked
joint's child links are welded to its parent, their inertias merged).  The rigid-body torque is
linear in the standard parameters, 10 per moving link in Pinocchio's order

    π_k = [m, m c_x, m c_y, m c_z, I_xx, I_xy, I_yy, I_xz, I_yz, I_zz],

with c the centre of mass and I the rotational inertia about the joint frame's origin, both in
the joint frame (Atkeson, An & Hollerbach 1986; Khalil & Dombre 2002, §9.3):
τ = Y(q, q̇, q̈) π (``pin.computeJointTorqueRegressor``).  Friction adds per joint the columns
q̇ (viscous f_v), the Coulomb law (sgn q̇, or tanh(q̇/v_s) with a smoothing velocity v_s per
joint), optionally 1 (offset f_0, on the joints that have one) and optionally q̈ (armature
I_a: the drive's rotor inertia reflected through the gear, I_rotor·r², which a torque computed
from motor current includes and a joint torque sensor behind the gear does not; Khalil &
Dombre 2002, §9.3.4):

    τ_j = Y_j π + f_v,j q̇_j + f_c,j sgn(q̇_j) + f_0,j + I_a,j q̈_j.

Joint values are one number per joint in the URDF's coordinates (rad or m); Pinocchio stores a
``continuous`` joint as (cos q, sin q), which :func:`pin_configuration` builds.  The regressor
is a loop over samples calling the C++ regressor with one reused ``pin.Data``: Pinocchio has no
batched call.  Measured for the 7-joint Kinova Gen3 on a shared 2-core VM: 20 000 samples take
0.07 s in the C++ calls and 0.1–0.4 s for the whole :func:`regressor` (writing a 20 000 × 7 ×
84 array); :func:`inverse_dynamics` (``pin.rnea``) 0.05 s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from xml.etree import ElementTree

import numpy as np
import pinocchio as pin
from numpy.typing import ArrayLike, NDArray

from paramid.errors import UserError
from paramid.ingest import CHANNEL_UNITS

Array = NDArray[np.float64]
INERTIAL = ("m", "mx", "my", "mz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
FRICTION = {"viscous": "fv", "coulomb": "fc"}
OFFSET = "f0"
ARMATURE = "ia"
#: Pinocchio joint model short names by kind (a moving URDF joint of one coordinate each)
JOINT_KINDS = {
    "revolute": {"RX", "RY", "RZ", "RevoluteUnaligned"},
    "prismatic": {"PX", "PY", "PZ", "PrismaticUnaligned"},
    "continuous": {"RUBX", "RUBY", "RUBZ", "RevoluteUnboundedUnaligned"},
}


class RobotError(UserError):
    """A URDF or joint list that cannot give a robot model (the message names the culprit)."""


@dataclass(frozen=True)
class Robot:
    """A URDF robot with only ``joints`` moving (others locked), plus friction per joint.

    ``urdf`` is the source file, ``model`` the reduced Pinocchio model; ``links`` names each
    moving body (the URDF child link of its joint, in Pinocchio's joint order);
    ``standard_names`` lists the 10 inertial parameters per link (:data:`INERTIAL` +
    ``_<link>``) then, per joint in ``joints`` order, ``fv_<joint>``, ``fc_<joint>``,
    ``f0_<joint>``, ``ia_<joint>`` for the configured terms.  ``pin_joint`` is the reduced
    model's joint id of each entry of ``joints`` (the user's order may differ from the tree's);
    ``coulomb_velocity`` the smoothing velocity v_s [rad/s] of each joint's Coulomb law (0:
    sgn q̇); ``offsets`` which joints' offset column is 1 (the others are 0: no offset on that
    joint; empty: every joint); ``armature``: a reflected rotor inertia per joint;
    ``locked_kinds`` the kind of each joint of ``locked`` (their coordinates: rad or m);
    ``locked_in_chain`` whether each lies on an identified joint's chain (an ancestor or a
    descendant in the URDF's tree: its motion or pose changes their torque; a joint on another
    branch of a tree, a second arm or a head, does not on a fixed base); ``locked_leaders``
    the joint a locked ``<mimic>`` joint follows (its lock is that joint's doing).
    """

    urdf: str
    model: pin.Model
    joints: tuple[str, ...]
    links: tuple[str, ...]
    locked: tuple[tuple[str, float], ...]
    friction: tuple[str, ...]
    offset: bool
    pin_joint: tuple[int, ...]
    coulomb_velocity: tuple[float, ...] = ()
    armature: bool = False
    offsets: tuple[bool, ...] = ()
    locked_kinds: tuple[str, ...] = ()  # of each locked joint (a key of JOINT_KINDS)
    locked_in_chain: tuple[bool, ...] = ()
    locked_leaders: tuple[str, ...] = ()  # each locked <mimic> joint's root leader, else ""

    @property
    def n_joints(self) -> int:
        return len(self.joints)

    @property
    def n_inertial(self) -> int:
        """Number of inertial standard parameters (10 per moving link)."""
        return 10 * len(self.links)

    @property
    def friction_terms(self) -> tuple[str, ...]:
        """Prefixes of each joint's columns after the inertial ones, e.g. ("fv", "fc", "f0",
        "ia"): friction, offset, armature."""
        extra = ((OFFSET,) if self.offset else ()) + ((ARMATURE,) if self.armature else ())
        return tuple(FRICTION[f] for f in self.friction) + extra

    @property
    def offset_joints(self) -> tuple[bool, ...]:
        """Per joint, whether it has an offset f_0 (none without ``offset``)."""
        if not self.offset:
            return (False,) * self.n_joints
        return self.offsets or (True,) * self.n_joints

    @property
    def standard_names(self) -> list[str]:
        inertial = [f"{p}_{link}" for link in self.links for p in INERTIAL]
        friction = [f"{t}_{j}" for j in self.joints for t in self.friction_terms]
        return inertial + friction

    @property
    def n_parameters(self) -> int:
        return self.n_inertial + self.n_joints * len(self.friction_terms)


def _check_names(
    joints: Sequence[str], locked: Mapping[str, float], known: list[str], fixed: list[str]
) -> None:
    """Duplicates, unknown joints (a URDF joint of type fixed named as such) and joints both
    moving and locked raise RobotError."""
    if not joints:
        raise RobotError("no joints to identify: list at least one URDF joint")
    dupes = sorted({j for j in joints if list(joints).count(j) > 1})
    if dupes:
        raise RobotError(f"joint(s) listed twice: {dupes}")
    for where, names in (("joints", joints), ("locked", locked)):
        rigid = [j for j in names if j in fixed]
        if rigid:
            raise RobotError(
                f"{where}: joint(s) {rigid} are fixed in the URDF: nothing moves there to identify "
                f"or lock (their child links join their parents'); the moving joints: {known}"
            )
        unknown = [j for j in names if j not in known]
        if unknown:
            raise RobotError(f"{where}: joint(s) {unknown} not in the URDF (it has {known})")
    both = [j for j in joints if j in locked]
    if both:
        raise RobotError(f"joint(s) {both} are both identified and locked")


@dataclass(frozen=True)
class Mimic:
    """A URDF ``<mimic>``: the joint's coordinate is ``multiplier`` · leader + ``offset``."""

    leader: str
    multiplier: float = 1.0
    offset: float = 0.0


#: what a default namespace declaration (``xmlns="..."``) is called while a URDF's text is read
#: as a tree: ElementTree would put the elements under it into the namespace (``{uri}link``,
#: written back as ``ns0:link``), which URDF readers (urdfdom, Pinocchio) ignore
HIDDEN_XMLNS = "paramid_default_xmlns"


#: a start tag (its attribute values quoted, so a ">" or "xmlns=" inside one is no end or
#: attribute) and one attribute of it
_START_TAG = re.compile(r"""<[A-Za-z_][^\s/>]*(?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*\s*/?>""")
_ATTRIBUTE = re.compile(r"""(\s)([^\s=/>]+)(\s*=\s*(?:"[^"]*"|'[^']*'))""")


def urdf_tree(xml: str, comments: bool = False) -> ElementTree.Element:
    """The URDF text as an ElementTree, its elements by their bare names as URDF readers see
    them: each start tag's ``xmlns=`` attribute is read as a plain attribute
    :data:`HIDDEN_XMLNS` (:func:`shown_default_namespaces` writes it back); with ``comments``,
    comments are kept as elements."""
    if HIDDEN_XMLNS in xml:
        raise RobotError(f"the URDF text holds {HIDDEN_XMLNS!r}, a name reserved for reading it")

    def renamed(attribute: re.Match[str]) -> str:
        space, name, value = attribute.groups()
        return space + (HIDDEN_XMLNS if name == "xmlns" else name) + value

    hidden = _START_TAG.sub(lambda tag: _ATTRIBUTE.sub(renamed, tag.group(0)), xml)
    parser = ElementTree.XMLParser(target=ElementTree.TreeBuilder(insert_comments=comments))
    return ElementTree.fromstring(hidden, parser=parser)


def shown_default_namespaces(text: str) -> str:
    """The inverse of :func:`urdf_tree`'s renaming, on text written from its tree."""
    return re.sub(rf"(\s){HIDDEN_XMLNS}(\s*=)", r"\1xmlns\2", text)


def _check_axes_and_masses(root: ElementTree.Element, path: str, physical: bool) -> None:
    """A moving joint's ``<axis>`` three numbers, not zero (about no axis it moves nothing:
    the ``urdf`` method predicted zero torque there), every ``<mass>`` and ``<inertia>`` entry
    a number and, where ``physical``, every mass >= 0 (a negative one read as "no mass" or as
    a torque unit) and every inertia without a negative principal moment
    (:func:`_check_inertia`); RobotError naming joint or link."""
    for joint in root.iter("joint"):  # a moving joint about no axis moves nothing
        axis = joint.find("axis")
        if joint.get("type") in ("revolute", "continuous", "prismatic") and axis is not None:
            try:
                xyz = [float(v) for v in str(axis.get("xyz", "1 0 0")).split()]
            except ValueError:
                xyz = []
            if len(xyz) != 3 or not math.hypot(*xyz) > 0:
                raise RobotError(
                    f"URDF {path!r}: joint {joint.get('name')!r} has <axis "
                    f'xyz="{axis.get("xyz")}"/>: a {joint.get("type")} joint needs a '
                    "non-zero axis of three numbers"
                )
    for link in root.iter("link"):
        mass = link.find("inertial/mass")
        try:
            value = float(mass.get("value", "nan")) if mass is not None else 0.0
        except ValueError:
            value = math.nan
        if not math.isfinite(value) or (physical and value < 0):
            raise RobotError(
                f"URDF {path!r}: link {link.get('name')!r} has <mass value="
                f'"{mass.get("value") if mass is not None else ""}"/>: a body\'s mass is a '
                f"number{' >= 0' if physical else ''} [kg]"
            )
        inertia = link.find("inertial/inertia")
        if inertia is not None:
            _check_inertia(inertia, str(link.get("name")), path, physical)


INERTIA_KEYS = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
#: a principal moment below -INERTIA_TOLERANCE x the largest is negative: a tensor written
#: with few digits (a thin rod's, rotated: its zero moment comes out at +-1e-6 of the largest
#: with 6 significant digits) stays within it, a wrong sign or entry goes far beyond
INERTIA_TOLERANCE = 1e-3


def _check_inertia(inertia: ElementTree.Element, link: str, path: str, physical: bool) -> None:
    """A link's ``<inertia>``: all six entries, numbers (urdfdom drops a tensor that lacks
    one, printing an error and going on: Pinocchio's body then keeps its mass with no
    rotational inertia), whose tensor, where ``physical``, has no negative principal moment;
    no body has one (the ``urdf`` method predicted with it and the prior toward the URDF
    clipped it silently).  Principal
    moments that break only the triangle inequality pass: makers' files do (the Gen3's
    shoulder_link), and the prior and the export say so where it matters
    (:func:`paramid.robot.priors.prior_pseudo_inertia`)."""
    try:
        v = {key: float(inertia.get(key, "0")) for key in INERTIA_KEYS}
    except ValueError:
        v = {key: math.nan for key in INERTIA_KEYS}
    tensor = np.array(
        [
            [v["ixx"], v["ixy"], v["ixz"]],
            [v["ixy"], v["iyy"], v["iyz"]],
            [v["ixz"], v["iyz"], v["izz"]],
        ]
    )
    missing = [key for key in INERTIA_KEYS if inertia.get(key) is None]
    written = " ".join(f'{key}="{inertia.get(key)}"' for key in INERTIA_KEYS if key not in missing)
    written = f"<inertia {written}/>"
    if missing:
        raise RobotError(
            f"URDF {path!r}: link {link!r} has {written} without {', '.join(missing)}: urdfdom "
            "(Pinocchio's reader) drops a tensor that lacks an entry, and the link would turn "
            "with no inertia at all; write all six (0 where an entry is 0) [kg m^2]"
        )
    if not np.all(np.isfinite(tensor)):
        raise RobotError(
            f"URDF {path!r}: link {link!r} has {written}: its six entries are numbers [kg m^2]"
        )
    moments = np.linalg.eigvalsh(tensor)
    tolerance = INERTIA_TOLERANCE * np.abs(moments).max()
    if not physical or moments[0] >= -tolerance:
        return
    flipped = tensor * np.where(np.eye(3, dtype=bool), 1.0, -1.0)
    hint = (
        ": with the signs of ixy, ixz and iyz flipped it has none (URDF's are the tensor's "
        "entries, -integral of x y dm; some CAD exports give +integral of x y dm)"
        if np.linalg.eigvalsh(flipped)[0] >= -tolerance
        else ": check its entries"
    )
    raise RobotError(
        f"URDF {path!r}: link {link!r} has {written}, whose principal moments "
        f"{np.array2string(moments, precision=4)} kg m^2 include a negative one; no body has "
        f"one{hint}"
    )


def _check_tree(root: ElementTree.Element, path: str) -> None:
    """The links and joints form one tree: link and joint names unique, every joint's parent
    and child declared links, no link the child of two joints, and every link reached from
    the one link that is no joint's child (its root); RobotError naming the links and joints
    (urdfdom said "The XML stream does not contain a valid URDF model" of a cycle, and
    Pinocchio "does not have any body named b" of a link with two parents)."""
    links = [str(link.get("name")) for link in root.findall("link")]
    joints = root.findall("joint")
    for kind, names in (("link", links), ("joint", [str(j.get("name")) for j in joints])):
        if twice := sorted({name for name in names if names.count(name) > 1}):
            raise RobotError(f"URDF {path!r}: {kind} names {twice} are declared more than once")
    parent_of: dict[str, str] = {}  # child link -> parent link
    joint_to: dict[str, str] = {}  # child link -> the joint to it
    children: dict[str, list[str]] = {}
    for joint in joints:
        ends = {}
        for end in ("parent", "child"):
            tag = joint.find(end)
            ends[end] = link = None if tag is None else tag.get("link")
            if link is None:
                raise RobotError(
                    f"URDF {path!r}: joint {joint.get('name')!r} has no <{end} link=...>"
                )
            if link not in links:
                raise RobotError(
                    f"URDF {path!r}: joint {joint.get('name')!r} names {end} link {link!r}, "
                    f"which the URDF does not declare (its links: {links})"
                )
        child, parent = str(ends["child"]), str(ends["parent"])
        if child in parent_of:
            raise RobotError(
                f"URDF {path!r}: link {child!r} is the child of joints "
                f"{[joint_to[child], str(joint.get('name'))]}: a URDF is a tree (of a closed "
                "chain, leave one joint out)"
            )
        parent_of[child], joint_to[child] = parent, str(joint.get("name"))
        children.setdefault(parent, []).append(child)
    roots = [link for link in links if link not in parent_of]
    if len(roots) > 1:
        raise RobotError(
            f"URDF {path!r}: links {roots} are each no joint's child: a URDF is one tree with "
            "one root link"
        )
    reached, todo = set(roots), list(roots)
    while todo:
        todo.extend(child for child in children.get(todo.pop(), []) if child not in reached)
        reached.update(todo)
    if unreached := [link for link in links if link not in reached]:
        cycle, link = [], unreached[0]  # up the parents until a link repeats: the cycle
        while link not in cycle:
            cycle.append(link)
            link = parent_of[link]
        cycle = cycle[cycle.index(link) :]
        raise RobotError(
            f"URDF {path!r}: the joints between links {cycle} close a cycle (each is "
            "the child of the next): a URDF is one tree"
        )


def _parse(xml: str, path: str, physical: bool = True) -> tuple[pin.Model, dict[str, Mimic]]:
    """Pinocchio's model of a URDF's text ``xml`` (every joint its own coordinate, as
    Pinocchio builds it) and its ``<mimic>`` joints by name; a text that is not XML with a
    ``<robot>`` root is named (as the file ``path``) before urdfdom parses it (which prints its
    own lines to stderr)."""
    try:
        root = urdf_tree(xml)
    except ElementTree.ParseError as err:
        raise RobotError(f"URDF {str(path)!r} could not be parsed: not XML ({err})") from err
    if root.tag != "robot":
        raise RobotError(
            f"URDF {str(path)!r} could not be parsed: its root is <{root.tag}>, not <robot>"
        )
    _check_tree(root, str(path))
    try:
        model = pin.buildModelFromXML(xml)
    except Exception as err:  # Pinocchio raises ValueError/RuntimeError on bad XML or structure
        raise RobotError(f"URDF {str(path)!r} could not be parsed: {err}") from err
    _check_axes_and_masses(root, str(path), physical)
    mimics = {}
    for joint in root.iter("joint"):
        tag = joint.find("mimic")
        if tag is None or joint.get("name") is None:
            continue
        try:
            mimic = Mimic(
                str(tag.get("joint")),
                float(tag.get("multiplier", "1")),
                float(tag.get("offset", "0")),
            )
        except ValueError as err:
            raise RobotError(
                f"URDF {str(path)!r}: joint {joint.get('name')!r} has a <mimic> that is not "
                f"numbers ({err})"
            ) from err
        mimics[str(joint.get("name"))] = mimic
    return model, mimics


def _joint_kind(model: pin.Model, jid: int) -> str:
    """A key of :data:`JOINT_KINDS` ('continuous': (cos, sin) coordinates) or 'other'
    (multi-DOF)."""
    short = model.joints[jid].shortname().removeprefix("JointModel")
    return next((kind for kind, names in JOINT_KINDS.items() if short in names), "other")


def _set_joint(model: pin.Model, jid: int, value: float | Array, q: Array) -> None:
    """Write joint values into Pinocchio configurations q (..., nq) in place, (cos, sin) for a
    continuous joint."""
    i = model.joints[jid].idx_q
    if _joint_kind(model, jid) == "continuous":
        q[..., i], q[..., i + 1] = np.cos(value), np.sin(value)
    else:
        q[..., i] = value


def _reference(full: pin.Model, locked: Mapping[str, float]) -> Array:
    """Full configuration with each locked joint at its value (others neutral)."""
    q = pin.neutral(full)
    for name, value in locked.items():
        jid = full.getJointId(name)
        if _joint_kind(full, jid) == "other":
            raise RobotError(f"locked joint {name!r} has several coordinates: leave it neutral")
        _set_joint(full, jid, float(value), q)
    return q


#: A locked joint may sit this share of its URDF range beyond a limit (a log's held value at a
#: stop, noise); farther out, the model's pose is one the robot cannot take.
LOCK_LIMIT_SLACK = 0.02


def _check_locks(
    full: pin.Model,
    values: Mapping[str, float],
    given: Mapping[str, float],
    followed: Mapping[str, str],
) -> None:
    """Each locked joint's value within its URDF limits (beyond them by more than
    :data:`LOCK_LIMIT_SLACK` of the range, at least 1e-3; a revolute joint's up to whole
    turns): a finger locked at 3 m was written into the exported URDF, the Panda's joint 4
    left out sat at 0 outside [-3.07, -0.07].  A ``<mimic>`` joint's value (``followed``: its
    root leader) is named as its leader's doing."""
    outside = []
    for name, value in values.items():
        jid = full.getJointId(name)
        if _joint_kind(full, jid) not in ("revolute", "prismatic"):
            continue
        i = full.joints[jid].idx_q
        low, high = float(full.lowerPositionLimit[i]), float(full.upperPositionLimit[i])
        if not (np.isfinite(low) and np.isfinite(high) and low < high):  # no limits given
            continue
        slack = max(LOCK_LIMIT_SLACK * (high - low), 1e-3)
        unit = coordinate_unit(_joint_kind(full, jid))
        pose = value  # a revolute joint's pose repeats every turn (a log wrapped to [0, 2π))
        if unit == "rad":
            pose -= 2 * np.pi * np.round((value - 0.5 * (low + high)) / (2 * np.pi))
        if low - slack <= pose <= high + slack:
            continue
        if name in followed:
            where = f" (by its <mimic> of {followed[name]!r}: change that lock)"
        else:
            where = "" if name in given else " (the default: not in `joints:`)"
        outside.append(f"{name!r} at {value:g} {unit}{where} [limits {low:.4g}, {high:.4g}]")
    if outside:
        raise RobotError(
            f"locked: {'; '.join(outside)}: outside the URDF's limits, a pose the robot cannot "
            "take. Give `locked: {<joint>: <value>}` where the robot held it, or add the joint "
            "to `joints:` if it moves"
        )


#: A locked mimic joint given its own value may differ from multiplier · leader + offset by
#: this much (rad or m: a value copied with a few digits).
MIMIC_TOLERANCE = 1e-3


def _mimic_locks(
    values: dict[str, float],
    given: Mapping[str, float],
    moving: Sequence[str],
    mimics: Mapping[str, Mimic],
    angular: Collection[str],
) -> tuple[dict[str, float], dict[str, str]]:
    """Lock values with each locked ``<mimic>`` joint at multiplier · leader + offset (URDF's
    rule) from its leader's locked value, following chains of mimics, and each such joint's
    root leader.  A value given for it in ``locked:`` must agree (:data:`MIMIC_TOLERANCE`; up
    to whole turns for the ``angular`` joints).  A mimic of an identified joint, anywhere up
    its chain, cannot follow it in a model that holds it fixed: RobotError, naming both."""
    out, followed = dict(values), {}
    for name in out:
        chain = [name]
        while chain[-1] in mimics and mimics[chain[-1]].leader not in chain:
            chain.append(mimics[chain[-1]].leader)
        leader = next((joint for joint in chain[1:] if joint in moving), None)
        if leader is not None:
            raise RobotError(
                f"joint {name!r} follows {leader!r} (URDF <mimic>), which is identified: "
                f"locked, {name!r} would stand still while {leader!r} moves. List {name!r} "
                f"in `joints:` too (its log's angle), or lock {leader!r}"
            )
        root = chain[-1]
        if len(chain) == 1 or root not in out or root in mimics:  # none, unlockable, a loop
            continue
        value = out[root]
        for joint in reversed(chain[:-1]):
            value = mimics[joint].multiplier * value + mimics[joint].offset
        if name in given:
            gap = given[name] - value
            if name in angular:
                gap -= 2 * np.pi * np.round(gap / (2 * np.pi))  # the same pose a turn away
            if abs(gap) > MIMIC_TOLERANCE:
                raise RobotError(
                    f"locked: {name!r} at {given[name]:g} but it mimics {root!r} (URDF "
                    f"<mimic>), which is locked at {out[root]:g}: it sits at {value:.6g}. "
                    f"Lock {root!r} where the robot held it and leave {name!r} out of "
                    "`locked:` (it follows its leader)"
                )
        out[name], followed[name] = value, root
    return out, followed


def _child_link(model: pin.Model, jid: int) -> str:
    """Name of the first URDF link attached to joint ``jid`` (its moving body)."""
    for frame in model.frames:
        if frame.parentJoint == jid and frame.type == pin.FrameType.BODY:
            return str(frame.name)
    return str(model.names[jid])


def carrying_links(robot: Robot) -> dict[str, str]:
    """Each URDF link of the robot -> the moving link whose body carries it: itself, the link
    Pinocchio merges it into across fixed or locked joints (the Panda's hand into
    ``panda_link7``), or "" on the fixed base (no joint moves it)."""
    model = robot.model
    return {
        str(frame.name): _child_link(model, frame.parentJoint) if frame.parentJoint else ""
        for frame in model.frames
        if frame.type == pin.FrameType.BODY
    }


def massless_inertias(robot: Robot, urdf: str) -> list[str]:
    """Per URDF link of ``urdf`` (the robot's file) with no mass but an ``<inertia>`` (a
    placeholder: no body resists turning without mass; bullet's Panda has 0.1 kg m^2 on its
    massless flange and grasp target) that moves with an identified joint, a warning naming
    the moving body Pinocchio merges it into across fixed or locked joints: that body's URDF
    rigid body (the ``urdf`` rows, the prior toward the URDF) carries it."""
    warnings = []
    for link in urdf_tree(urdf).iter("link"):
        mass, inertia = link.find("inertial/mass"), link.find("inertial/inertia")
        if inertia is None or (mass is not None and float(mass.get("value", "0")) != 0.0):
            continue
        moments = [float(inertia.get(key, "0")) for key in ("ixx", "iyy", "izz")]
        name = str(link.get("name"))
        if not any(moments) or not robot.model.existFrame(name, pin.FrameType.BODY):
            continue
        joint = robot.model.frames[robot.model.getFrameId(name, pin.FrameType.BODY)].parentJoint
        if joint == 0:  # on the fixed base: it moves with no joint
            continue
        body = _child_link(robot.model, joint)
        held = "" if body == name else f"; it is fixed to {body!r}, which carries it"
        warnings.append(
            f"URDF {robot.urdf!r}: link {name!r} has no mass but an inertia of diagonal "
            f"ixx, iyy, izz = {', '.join(f'{m:g}' for m in moments)} kg m^2 (a placeholder? no "
            f"body has inertia without mass){held} in the URDF's rigid body: the urdf rows and "
            "the prior toward the URDF include it; write 0 there or the link's measured values"
        )
    return warnings


#: The attributes of a URDF joint's ``<dynamics>`` in the URDF spec; Gazebo reads two more,
#: ``spring_stiffness`` and ``spring_reference`` (a joint spring), which no model here has.
URDF_DYNAMICS = ("damping", "friction")


def unmodelled_dynamics(robot: Robot, urdf: str) -> list[str]:
    """Per identified joint of ``urdf`` (the robot's file) whose ``<dynamics>`` states a term
    beyond damping and friction (Gazebo's ``spring_stiffness``; one whose value is 0 states
    nothing, nor does a ``spring_reference`` without a stiffness), a warning naming the joint
    and the attributes: the urdf rows, the prior and every fit have no such term, and the
    exported URDF drops it (:func:`paramid.robot.urdf.export_urdf`)."""
    warnings = []
    for joint in urdf_tree(urdf).findall("joint"):  # the robot's (a <transmission> has some)
        dynamics = joint.find("dynamics")
        if joint.get("name") not in robot.joints or dynamics is None:
            continue
        extra = dynamic_extras(dynamics.attrib)
        if not any(_nonzero(v) for k, v in extra.items() if k != "spring_reference"):
            continue
        warnings.append(
            f"URDF {robot.urdf!r}: joint {joint.get('name')!r} has <dynamics "
            f"{attributes_text(extra)}>, a "
            "term (a joint spring, in Gazebo) that no model here has: the urdf rows, the prior "
            "and the fits leave it out, and the exported URDF drops it (it would act beside "
            "the identified torque in a simulator)"
        )
    return warnings


def dynamic_extras(attributes: Mapping[str, str]) -> dict[str, str]:
    """The attributes of a ``<dynamics>`` beyond :data:`URDF_DYNAMICS` (a default namespace
    declaration, as :func:`urdf_tree` reads it, is none)."""
    return {k: v for k, v in attributes.items() if k not in (*URDF_DYNAMICS, HIDDEN_XMLNS)}


def attributes_text(attributes: Mapping[str, str]) -> str:
    """XML attributes as a message writes them: ``key="value"``, comma-separated."""
    return ", ".join(f'{key}="{value}"' for key, value in attributes.items())


def _nonzero(value: str) -> bool:
    """Whether an attribute's text is anything but a number equal to 0."""
    try:
        return float(value) != 0.0
    except ValueError:
        return True


def independent_followers(robot: Robot, urdf: str) -> list[str]:
    """Per identified joint of ``urdf`` whose ``<mimic>`` follows a locked joint, a warning
    naming both: as the URDF says, it cannot move while its leader is held, so its log's
    angle must be its own (the model identifies it on its own; an export that writes the
    leader fixed drops the ``<mimic>``: :func:`paramid.robot.urdf.export_urdf`)."""
    locked = {name for name, _ in robot.locked}
    warnings = []
    for joint in urdf_tree(urdf).findall("joint"):
        mimic, name = joint.find("mimic"), joint.get("name")
        if name in robot.joints and mimic is not None and mimic.get("joint") in locked:
            leader = mimic.get("joint")
            warnings.append(
                f"URDF {robot.urdf!r}: joint {name!r} is identified moving on its own, but its "
                f"<mimic> follows {leader!r}, which is locked: a robot built as the URDF says "
                f"could not move it. Check that {name!r}'s logged angle is its own and that "
                f"{leader!r} was held (an exported URDF that writes {leader!r} fixed drops "
                "the <mimic>)"
            )
    return warnings


def robot_from_urdf(
    urdf: str,
    path: str | Path,
    joints: Sequence[str],
    locked: Mapping[str, float] | None = None,
    friction: Iterable[str] = ("viscous", "coulomb"),
    offset: bool = False,
    coulomb_velocity: float | Sequence[float] = 0.0,
    armature: bool = False,
    physical: bool = True,
) -> Robot:
    """Robot of the URDF text ``urdf`` (the file ``path``, read by
    :func:`paramid.io.read_urdf`; named in errors and kept as the robot's source) with
    ``joints`` moving; every other joint locked (at ``locked[name]``, default 0, i.e.
    Pinocchio's neutral configuration).

    ``friction`` lists ``"viscous"`` and/or ``"coulomb"``; ``offset`` adds a constant torque per
    joint; ``coulomb_velocity`` is the Coulomb law's v_s (0: sgn q̇), one for all joints or one
    per joint; ``armature`` adds a reflected rotor inertia per joint (column q̈).
    ``physical``: refuse a body no object has (a negative mass or principal moment): the
    study's own URDF is the prior and the ``urdf`` row; a reference (a published model,
    identified ones included) is judged by what it predicts.  Raises :class:`RobotError` for
    an unparsable URDF and everything :func:`robot_from_model` rejects.
    """
    model, mimics = _parse(urdf, str(path), physical)
    robot = robot_from_model(
        model, joints, locked, friction, offset, source=str(path), mimics=mimics
    )
    return with_coulomb(replace(robot, armature=bool(armature)), coulomb_velocity)


def with_coulomb(robot: Robot, velocity: float | Sequence[float]) -> Robot:
    """The robot with the Coulomb law's smoothing velocity v_s per joint (0: sgn q̇)."""
    values = np.broadcast_to(np.asarray(velocity, dtype=np.float64), (robot.n_joints,))
    if np.any(values < 0) or not np.all(np.isfinite(values)):
        raise RobotError(f"Coulomb smoothing velocities must be finite and >= 0, got {velocity}")
    return replace(robot, coulomb_velocity=tuple(float(v) for v in values))


def with_offsets(robot: Robot, offsets: Sequence[bool]) -> Robot:
    """The robot with an offset f_0 on the joints where ``offsets`` is true: the others' offset
    columns are 0 (their f_0 is no base parameter; a fit holds it at 0)."""
    if not robot.offset:
        raise RobotError("this robot has no offset terms (offset: false)")
    if len(offsets) != robot.n_joints:
        raise RobotError(f"{len(offsets)} offset flags for {robot.n_joints} joints")
    return replace(robot, offsets=tuple(bool(o) for o in offsets))


def robot_from_model(
    full: pin.Model,
    joints: Sequence[str],
    locked: Mapping[str, float] | None = None,
    friction: Iterable[str] = ("viscous", "coulomb"),
    offset: bool = False,
    source: str = "<model>",
    mimics: Mapping[str, Mimic] | None = None,
) -> Robot:
    """:func:`robot_from_urdf` on a Pinocchio model already built (e.g. a sample model).

    A locked joint that ``mimics`` another takes multiplier · leader + offset from its leader's
    locked value (:func:`_mimic_locks`).  Raises :class:`RobotError` for a joint that is not in
    the model, a duplicated joint, an unknown friction term, a moving joint with several
    coordinates, or a mimic joint that cannot follow its leader.
    """
    joints = tuple(joints)
    known = [str(n) for n in list(full.names)[1:]]
    fixed = [str(f.name) for f in full.frames if f.type == pin.FrameType.FIXED_JOINT]
    _check_names(joints, dict(locked or {}), known, fixed)
    friction = tuple(friction)
    bad = [f for f in friction if f not in FRICTION]
    if bad or len(set(friction)) != len(friction):
        raise RobotError(f"friction terms {list(friction)}: each of {list(FRICTION)} at most once")
    for name in joints:
        if _joint_kind(full, full.getJointId(name)) == "other":
            raise RobotError(f"joint {name!r} has several coordinates; only 1-DOF joints move")
    _check_ranges(full, joints)
    given = {j: float(v) for j, v in (locked or {}).items()}
    free = [j for j in known if j not in joints]
    one_dof = [j for j in free if _joint_kind(full, full.getJointId(j)) != "other"]
    angular = {j for j in one_dof if _joint_kind(full, full.getJointId(j)) != "prismatic"}
    lock_values, followed = _mimic_locks(
        {j: given.get(j, 0.0) for j in one_dof}, given, joints, dict(mimics or {}), angular
    )
    _check_locks(full, lock_values, given, followed)
    reference = _reference(full, {**lock_values, **given})
    lock_ids = [full.getJointId(j) for j in free]
    model = pin.buildReducedModel(full, lock_ids, reference) if lock_ids else full.copy()
    return Robot(
        urdf=source,
        model=model,
        joints=joints,
        links=tuple(_child_link(model, jid) for jid in range(1, model.njoints)),
        locked=tuple(lock_values.items()),
        friction=friction,
        offset=bool(offset),
        pin_joint=tuple(int(model.getJointId(j)) for j in joints),
        locked_kinds=tuple(_joint_kind(full, full.getJointId(j)) for j in lock_values),
        locked_in_chain=tuple(_in_chain(full, j, joints) for j in lock_values),
        locked_leaders=tuple(followed.get(j, "") for j in lock_values),
    )


def _check_ranges(full: pin.Model, joints: Sequence[str]) -> None:
    """An identified joint's URDF range must not be reversed or a single value other than 0
    (lower = upper = 0 is URDF's default where none is given: ±π, :func:`joint_ranges`); such a
    range was read as ±π and the joint driven over it."""
    bad = []
    for name in joints:
        jid = full.getJointId(name)
        i = full.joints[jid].idx_q
        low, high = float(full.lowerPositionLimit[i]), float(full.upperPositionLimit[i])
        if full.joints[jid].nq == 1 and (high < low or (high == low and low != 0.0)):
            bad.append(f"{name!r} [lower {low:g}, upper {high:g}]")
    if bad:
        raise RobotError(
            f"URDF limits {'; '.join(bad)}: an empty or reversed range, a joint that cannot "
            "move. Correct the URDF's <limit lower upper>, or lock the joint (`locked:`)"
        )


def _in_chain(full: pin.Model, joint: str, identified: Sequence[str]) -> bool:
    """Whether ``joint`` is an ancestor or a descendant of one of the ``identified`` joints."""
    jid = full.getJointId(joint)
    ids = [full.getJointId(j) for j in identified]
    return any(jid in full.supports[i] or i in full.supports[jid] for i in ids)


def urdf_parameters(robot: Robot) -> Array:
    """The URDF's standard parameters (p,) in :attr:`Robot.standard_names` order; friction 0."""
    theta = np.zeros(robot.n_parameters)
    for k in range(1, robot.model.njoints):
        theta[10 * (k - 1) : 10 * k] = robot.model.inertias[k].toDynamicParameters()
    return theta


def urdf_friction_parameters(robot: Robot) -> Array:
    """The friction the URDF states (p,): each joint's ``<dynamics damping friction>`` (as
    Pinocchio reads them) in its viscous and Coulomb columns where the robot has those terms,
    0 elsewhere (inertial columns, offsets, armatures: URDF has no field for the last two)."""
    theta = np.zeros(robot.n_parameters)
    columns = friction_columns(robot)
    index = _velocity_index(robot)
    for term, values in (("fv", robot.model.damping), ("fc", robot.model.friction)):
        if term in columns:
            theta[columns[term]] = np.asarray(values, dtype=np.float64)[index]
    return theta


def link_parameter_slices(robot: Robot) -> dict[str, slice]:
    """Standard columns of each moving link (10 each, :data:`INERTIAL` order)."""
    return {link: slice(10 * k, 10 * (k + 1)) for k, link in enumerate(robot.links)}


def friction_columns(robot: Robot) -> dict[str, NDArray[np.intp]]:
    """Standard column indices of each per-joint term ("fv", "fc", "f0", "ia"), one per joint."""
    terms = robot.friction_terms
    return {
        t: robot.n_inertial + len(terms) * np.arange(robot.n_joints) + i
        for i, t in enumerate(terms)
    }


def held_offsets(robot: Robot) -> NDArray[np.intp]:
    """Standard column indices of the offsets f_0 of the joints without one (their columns are
    0; a fit holds them at 0); empty when the robot has no offset terms."""
    if not robot.offset:
        return np.zeros(0, dtype=np.intp)
    return friction_columns(robot)[OFFSET][~np.array(robot.offset_joints, dtype=bool)]


def joint_kinds(robot: Robot) -> tuple[str, ...]:
    """Per entry of ``robot.joints``: "revolute", "continuous" (a revolute joint without
    limits) or "prismatic" (its position in m, its velocity in m/s)."""
    return tuple(_joint_kind(robot.model, jid) for jid in robot.pin_joint)


def coordinate_unit(kind: str) -> str:
    """The unit of a joint's coordinate by its kind (:func:`joint_kinds`): m for a prismatic
    joint, rad for a revolute or continuous one (the keys of :data:`CHANNEL_UNITS`)."""
    return "m" if kind == "prismatic" else "rad"


def joint_units(robot: Robot) -> list[dict[str, str]]:
    """Per entry of ``robot.joints``: the units of its channels (:data:`CHANNEL_UNITS`)."""
    return [CHANNEL_UNITS[coordinate_unit(k)] for k in joint_kinds(robot)]


# the unit of each standard parameter by its prefix (inertial) or, per joint term, by the
# joint's coordinate (rad: revolute and continuous, m: prismatic)
INERTIAL_UNITS = {"m": "kg", "mx": "kg m", "my": "kg m", "mz": "kg m"} | {
    name: "kg m^2" for name in INERTIAL[4:]
}
TERM_UNITS = {
    coordinate: {"fc": units["tau"], OFFSET: units["tau"]} | rest
    for coordinate, units, rest in (
        ("rad", CHANNEL_UNITS["rad"], {"fv": "N m s/rad", ARMATURE: "kg m^2"}),
        ("m", CHANNEL_UNITS["m"], {"fv": "N s/m", ARMATURE: "kg"}),
    )
}


def parameter_units(robot: Robot) -> dict[str, str]:
    """The unit of each of ``robot.standard_names`` (a base parameter carries its leading
    standard parameter's)."""
    coordinate = {
        j: coordinate_unit(k) for j, k in zip(robot.joints, joint_kinds(robot), strict=True)
    }
    units = {}
    for name in robot.standard_names:
        prefix, owner = name.split("_", 1)
        units[name] = INERTIAL_UNITS.get(prefix) or TERM_UNITS[coordinate[owner]][prefix]
    return units


def torque_unit(units: Sequence[str]) -> str:
    """The unit of a mean over joints whose torques are in ``units``: theirs where they agree,
    else both named (a revolute joint's N m beside a prismatic joint's N)."""
    distinct = list(dict.fromkeys(units))
    return distinct[0] if len(distinct) == 1 else " and ".join(distinct) + " mixed"


def robot_torque_unit(robot: Robot) -> str:
    """:func:`torque_unit` of the joint torques of ``robot`` (:func:`joint_units`)."""
    return torque_unit([units["tau"] for units in joint_units(robot)])


def joint_ranges(robot: Robot) -> tuple[Array, Array]:
    """(lower, upper) per joint from the URDF; ±π where it gives none or the joint is
    continuous (Pinocchio's (cos, sin) coordinates carry no angle limit)."""
    model = robot.model
    idx = [model.joints[j].idx_q for j in robot.pin_joint]
    kinds = [model.joints[j].nq for j in robot.pin_joint]
    lo = np.array([model.lowerPositionLimit[i] for i in idx])
    hi = np.array([model.upperPositionLimit[i] for i in idx])
    ok = np.isfinite(lo) & np.isfinite(hi) & (hi > lo) & (np.array(kinds) == 1)
    return np.where(ok, lo, -np.pi), np.where(ok, hi, np.pi)


def velocity_limits(robot: Robot) -> Array:
    """Each joint's URDF velocity limit [rad/s or m/s] (Pinocchio's; 0 or huge where the URDF
    gives none)."""
    return np.asarray(robot.model.velocityLimit, dtype=np.float64)[_velocity_index(robot)]


def _states(robot: Robot, q: ArrayLike, dq: ArrayLike, ddq: ArrayLike) -> tuple[Array, ...]:
    """Validate (N, n_joints) joint arrays (a single sample (n_joints,) is promoted)."""
    arrays = tuple(np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (q, dq, ddq))
    for name, x in zip(("q", "dq", "ddq"), arrays, strict=True):
        if x.ndim != 2 or x.shape[1] != robot.n_joints or x.shape[0] != arrays[0].shape[0]:
            raise ValueError(f"{name} has shape {x.shape}; expected (N, {robot.n_joints})")
    return arrays


def pin_configuration(robot: Robot, q: ArrayLike) -> Array:
    """Pinocchio configurations (N, nq) of joint values q (N, n_joints); continuous: (cos, sin)."""
    q = np.atleast_2d(np.asarray(q, dtype=np.float64))
    out = np.zeros((q.shape[0], robot.model.nq))
    for k, jid in enumerate(robot.pin_joint):
        _set_joint(robot.model, jid, q[:, k], out)
    return out


def _velocity_index(robot: Robot) -> NDArray[np.intp]:
    """Index into Pinocchio's velocity vector of each entry of ``robot.joints``."""
    return np.array([robot.model.joints[j].idx_v for j in robot.pin_joint], dtype=np.intp)


def coulomb(dq: Array, velocity: ArrayLike = 0.0) -> Array:
    """The Coulomb column of each joint (the last axis): sgn q̇ (the ``coulomb_viscous`` law of
    :mod:`paramid.friction.laws`), or tanh(q̇/v_s) where v_s > 0 (its ``tanh`` law)."""
    from paramid.friction.laws import MODELS

    velocity = np.broadcast_to(np.asarray(velocity, dtype=np.float64), dq.shape[-1:])
    out = np.empty_like(dq)
    for j, v in enumerate(velocity):
        law, eta = (MODELS["tanh"], [v]) if v > 0 else (MODELS["coulomb_viscous"], [])
        out[..., j] = law.basis(dq[..., j], np.array(eta))[..., 0]
    return out


def _friction_block(robot: Robot, dq: Array, ddq: Array) -> Array:
    """Per-joint columns (N, n_joints, n_joints · terms): q̇, the Coulomb law, 1 (0 on a joint
    without offset), q̈ on each joint's own row."""
    n, terms = robot.n_joints, robot.friction_terms
    law = coulomb(dq, robot.coulomb_velocity or 0.0)
    offset = np.broadcast_to(np.array(robot.offset_joints, dtype=np.float64), dq.shape)
    values = {"fv": dq, "fc": law, "f0": offset, "ia": ddq}
    out = np.zeros((dq.shape[0], n, n * len(terms)))
    rows = np.arange(n)
    for i, t in enumerate(terms):
        out[:, rows, len(terms) * rows + i] = values[t]
    return out


def regressor(robot: Robot, q: ArrayLike, dq: ArrayLike, ddq: ArrayLike) -> Array:
    """Y (N, n_joints, p) with τ = Y θ: inertial columns (Pinocchio) then friction columns.

    Rows follow ``robot.joints``; one ``pin.Data`` is reused over the samples.
    """
    q, dq, ddq = _states(robot, q, dq, ddq)
    model, data = robot.model, robot.model.createData()
    qp, vi = pin_configuration(robot, q), _velocity_index(robot)
    v, a = np.zeros((q.shape[0], model.nv)), np.zeros((q.shape[0], model.nv))
    v[:, vi], a[:, vi] = dq, ddq
    Y = np.empty((q.shape[0], model.nv, robot.n_parameters))
    for qk, vk, ak, out in zip(qp, v, a, Y[..., : robot.n_inertial], strict=True):
        out[...] = pin.computeJointTorqueRegressor(model, data, qk, vk, ak)
    if np.any(vi != np.arange(model.nv)):
        Y = Y[:, vi]
    Y[..., robot.n_inertial :] = _friction_block(robot, dq, ddq)
    return Y


def inverse_dynamics(
    robot: Robot, q: ArrayLike, dq: ArrayLike, ddq: ArrayLike, theta: ArrayLike
) -> Array:
    """τ (N, n_joints) by ``pin.rnea`` on a copy of the model carrying θ's inertias, plus friction.

    Independent of :func:`regressor` (the test compares the two).  Every link needs a positive
    mass in θ (``pin.Inertia.FromDynamicParameters`` divides by it); for any other θ use
    ``regressor(...) @ theta``.
    """
    q, dq, ddq = _states(robot, q, dq, ddq)
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (robot.n_parameters,):
        raise ValueError(f"theta has shape {theta.shape}; expected ({robot.n_parameters},)")
    model = robot.model.copy()
    for k in range(1, model.njoints):
        pi = theta[10 * (k - 1) : 10 * k]
        if not pi[0] > 0:
            raise ValueError(f"link {robot.links[k - 1]!r} has mass {pi[0]}: rnea needs m > 0")
        model.inertias[k] = pin.Inertia.FromDynamicParameters(pi)
    data = model.createData()
    qp, vi = pin_configuration(robot, q), _velocity_index(robot)
    v, a = np.zeros((q.shape[0], model.nv)), np.zeros((q.shape[0], model.nv))
    v[:, vi], a[:, vi] = dq, ddq
    tau = np.empty_like(q)
    for k in range(q.shape[0]):
        tau[k] = pin.rnea(model, data, qp[k], v[k], a[k])[vi]
    return tau + _friction_block(robot, dq, ddq) @ theta[robot.n_inertial :]


def extended_names(robot: Robot) -> list[str]:
    """Columns of :func:`extended_regressor`: the standard ones with sgn q̇ Coulomb, then a
    tanh Coulomb column ``fct_<joint>`` per joint (when the robot has Coulomb friction)."""
    smooth = [f"fct_{j}" for j in robot.joints] if "fc" in robot.friction_terms else []
    return robot.standard_names + smooth


def extended_regressor(
    robot: Robot, q: ArrayLike, dq: ArrayLike, ddq: ArrayLike, velocity: float
) -> Array:
    """Y (N, n_joints, p + n_joints): the regressor with both Coulomb laws of every joint, sgn q̇
    and tanh(q̇/``velocity``), so one compression of the data serves any choice of law per joint
    (:func:`law_columns`)."""
    sign = replace(robot, coulomb_velocity=())
    Y = regressor(sign, q, dq, ddq)
    if "fc" not in robot.friction_terms:
        return Y
    dq = np.atleast_2d(np.asarray(dq, dtype=np.float64))
    smooth = np.zeros((*dq.shape, robot.n_joints))
    rows = np.arange(robot.n_joints)
    smooth[:, rows, rows] = coulomb(dq, velocity)
    return np.concatenate([Y, smooth], axis=-1)


def law_columns(robot: Robot, smooth: Sequence[bool]) -> NDArray[np.intp]:
    """Indices into :func:`extended_names` of the robot's standard columns with joint j's
    Coulomb column the tanh one where ``smooth[j]``."""
    names = extended_names(robot)
    columns = [names.index(n) for n in robot.standard_names]
    for j, joint in enumerate(robot.joints):
        if smooth[j]:
            columns[names.index(f"fc_{joint}")] = names.index(f"fct_{joint}")
    return np.array(columns, dtype=np.intp)
