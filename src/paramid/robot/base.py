"""The base parameters of a robot model itself (:func:`structural_base`): those of its
joint-torque regressor on random states, by :func:`paramid.base_parameters.base_parameters`."""

from __future__ import annotations

from collections.abc import Sequence

from paramid.base_parameters import BaseParameters, base_parameters
from paramid.robot.model import Robot, joint_ranges, regressor
from paramid.seeding import Key, generator


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
    rng = generator(*keys)
    q = rng.uniform(*joint_ranges(robot), (samples, robot.n_joints))
    dq = rng.standard_normal((samples, robot.n_joints))
    ddq = rng.standard_normal((samples, robot.n_joints))
    Y = regressor(robot, q, dq, ddq).reshape(-1, robot.n_parameters)
    return base_parameters(Y, robot.standard_names, rel_tol)
