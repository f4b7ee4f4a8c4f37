"""The base parameters of a robot model itself (:func:`structural_base`): those of its
joint-torque regressor on random states, by :func:`paramid.base_parameters.base_parameters`."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from paramid.base_parameters import BaseParameters, base_parameters
from paramid.robot.model import (
    ARMATURE,
    OFFSET,
    Robot,
    friction_columns,
    joint_ranges,
    link_parameter_slices,
    regressor,
)
from paramid.seeding import Key, generator

Array = NDArray[np.float64]


def structural_base(
    robot: Robot,
    rel_tol: float,
    samples: int = 400,
    keys: Sequence[Key] = ("robot", "structural_base"),
) -> BaseParameters:
    """Base parameters of the model itself: pivoted QR of Y on random states, rank at
    ``rel_tol`` (|R_ii| / |R_00|, a study's ``base.rel_tol``).

    q uniform within :func:`~paramid.robot.model.joint_ranges`,
    q̇ and q̈ standard normal, all from the stream ``keys``.  Any excitation identifies at most
    these; :func:`paramid.base_parameters.unidentified` names what a given one misses.
    """
    return base_parameters(random_regressor(robot, samples, keys), robot.standard_names, rel_tol)


def random_regressor(robot: Robot, samples: int, keys: Sequence[Key]) -> Array:
    """The stacked regressor Y (samples · n, p) of the model on random states: q uniform
    within :func:`~paramid.robot.model.joint_ranges`, q̇ and q̈ standard normal, all from the
    stream ``keys``."""
    rng = generator(*keys)
    q = rng.uniform(*joint_ranges(robot), (samples, robot.n_joints))
    dq = rng.standard_normal((samples, robot.n_joints))
    ddq = rng.standard_normal((samples, robot.n_joints))
    return regressor(robot, q, dq, ddq).reshape(-1, robot.n_parameters)


def _mass_space(Y: Array, masses: NDArray[np.intp], rel_tol: float) -> Array:
    """An orthonormal basis (|masses|, d) of the combinations of the link masses (columns
    ``masses`` of Y (M, p)) that the data identify: c with (c on the masses, 0 elsewhere) in
    Y's row space, i.e. orthogonal to the masses' rows of Y's null space (columns scaled to unit
    norm, rank at ``rel_tol`` of the largest singular value)."""
    norms = np.linalg.norm(Y, axis=0)
    scale = np.where(norms > 0, norms, 1.0)
    _, sv, vt = np.linalg.svd(Y / scale, full_matrices=True)
    rank = int(np.sum(sv > rel_tol * sv[0])) if sv.size and sv[0] > 0 else 0
    null = (vt[rank:].T / scale[:, None])[masses]  # the null space in the parameters' own units
    if null.size == 0:
        return np.eye(masses.size)
    u, s, _ = np.linalg.svd(null, full_matrices=True)
    spanned = int(np.sum(s > rel_tol * max(float(s[0]), 1e-300)))
    return u[:, spanned:]


def hidden_masses(
    robot: Robot, rel_tol: float, samples: int = 200
) -> dict[str, tuple[tuple[str, ...], list[str]]]:
    """Per joint whose offset or armature hides a combination of link masses that the model
    identifies without it: (the term, or both where neither alone does; the links that
    combination holds), on random states as :func:`structural_base`.  A slide carries what it
    moves as m q̈, which its armature takes alike (a gantry's carriage), and, along gravity,
    their weight as a constant force, which its offset takes: with both, no record tells that
    mass (a SCARA quill's 0.5 kg payload left the identified URDF at the URDF's mass)."""
    columns = friction_columns(robot)
    Y = random_regressor(robot, samples, ("robot", "hidden_masses"))
    masses = np.array([links.start for links in link_parameter_slices(robot).values()])
    told = _mass_space(Y, masses, rel_tol)
    present = tuple(term for term in (OFFSET, ARMATURE) if term in columns)

    def lost_links(k: int, terms: tuple[str, ...]) -> list[str]:
        """The links whose mass joint k's ``terms`` hide: told without them, not with them."""
        dropped = [int(columns[term][k]) for term in terms]
        kept = np.delete(np.arange(robot.n_parameters), dropped)
        without = _mass_space(Y[:, kept], np.searchsorted(kept, masses), rel_tol)
        lost = without - told @ (told.T @ without)
        u, s, _ = np.linalg.svd(lost, full_matrices=False)
        direction = u[:, s > 0.5]  # s ~ 1 for a lost combination, ~ round-off otherwise
        weight = np.linalg.norm(direction, axis=1)
        return [link for link, w in zip(robot.links, weight, strict=True) if w > 0.1]

    hidden = {}
    for k, joint in enumerate(robot.joints):
        if not present or not (links := lost_links(k, present)):
            continue
        # the one term whose dropping tells them is named alone; where dropping either does
        # (or only both), the two hide them together (a vertical quill's offset and armature)
        telling = [term for term in present if len(present) > 1 and lost_links(k, (term,))]
        hidden[joint] = (tuple(telling) if len(telling) == 1 else present, links)
    return hidden
