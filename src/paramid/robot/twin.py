"""Digital twin of a URDF arm: a Fourier excitation, friction and the sensors of a real arm.

The twin follows a finite Fourier excitation (Swevers et al. 1997; Eq 8 of the excitation
paper, :class:`paramid.excitation.fourier.FourierTrajectory`, one (q₀, a, b) set per joint),
computes the true torque by ``pin.rnea`` with the true standard parameters θ plus friction
(:func:`paramid.robot.model.inverse_dynamics`) and measures it as a Kinova Gen3 would:

- encoder: q_m = Δ·round((q + e_q)/Δ), Δ = 1e-5 rad (the Kinova logs print 6 significant
  digits, hence 1e-5 rad for |q| ≥ 1 rad: data/kinova_gen3/SOURCE.md,
  "Quantisation"); e_q ~ N(0, σ_q²), σ_q = 0 by default (an assumption: the logs show no
  noise beyond the printing resolution);
- velocity: q̇_m = q̇ + e_v, σ_v = 2e-3 rad/s (an assumption; SOURCE.md gives no figure);
- torque from motor current: τ_m = τ + e_τ with per-joint σ_τ, white, stated by the study (the
  shipped ``gen3_twin`` states the real Gen3's ``TorqueCur`` content above 10 Hz: std 3.0–3.6
  N m on joints 1–4, 0.56–0.66 N m on joints 5–7 in RunTrajectory1,
  data/kinova_gen3/SOURCE.md "Real or simulated?").

The defaults of σ_q, σ_v and Δ are the schema's (``twin.noise``); σ_τ has none.

True parameters (:func:`true_parameters`): the URDF's inertial values, optionally each link's 10
scaled by one factor in [1 − s, 1 + s] (a positive factor keeps the pseudo-inertia ⪰ 0),
viscous friction uniform in 0.1–0.5 N m s/rad and Coulomb in 0.5–2 N m per joint.  Those
ranges are an assumption for a Gen3-class harmonic-drive actuator, consistent with the
0.3–3 N m at-rest offsets/stiction that SOURCE.md measures on the real arm.  Every draw comes
from the named stream ("robot_twin", seed, ...) of :mod:`paramid.seeding`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.excitation.fourier import FourierTrajectory
from paramid.robot.model import (
    Robot,
    friction_columns,
    inverse_dynamics,
    joint_ranges,
    urdf_parameters,
    velocity_limits,
)
from paramid.seeding import generator
from paramid.simulation import sense

Array = NDArray[np.float64]


@dataclass(frozen=True)
class TwinNoise:
    """Sizes of the sensor model (module docstring; :func:`paramid.simulation.sense`): encoder
    step and noise [rad], velocity noise [rad/s], torque noise [N m] (one value for all joints
    or one per joint)."""

    encoder_step_rad: float
    encoder_noise_rad: float
    velocity_noise_rad_s: float
    torque_noise_nm: float | tuple[float, ...]

    @classmethod
    def from_config(cls, noise: Mapping[str, Any]) -> TwinNoise:
        """From a study's ``twin.noise`` block (a list of per-joint torque σ becomes a tuple)."""
        values = dict(noise)
        if isinstance(values["torque_noise_nm"], list):
            values["torque_noise_nm"] = tuple(values["torque_noise_nm"])
        return cls(**values)

    def torque_sigma(self, n_joints: int) -> Array:
        """σ_τ per joint (n_joints,)."""
        sigma = np.broadcast_to(np.asarray(self.torque_noise_nm, dtype=np.float64), (n_joints,))
        return np.array(sigma)


@dataclass(frozen=True)
class TwinRecord:
    """Measured channels (``time``, ``q``, ``dq``, ``tau``; (N,), (N, n)) and the truth."""

    time: Array
    q: Array
    dq: Array
    tau: Array
    q_true: Array
    dq_true: Array
    ddq_true: Array
    tau_true: Array

    def frame(self, joints: tuple[str, ...] | list[str]) -> pd.DataFrame:
        """The record in paramid's record layout: ``time``, ``q_<joint>``, ``dq_<joint>``,
        ``tau_<joint>`` (the columns :mod:`paramid.robot.records` reads by default)."""
        columns: dict[str, Array] = {"time": self.time}
        for prefix, values in (("q", self.q), ("dq", self.dq), ("tau", self.tau)):
            columns.update({f"{prefix}_{j}": values[:, k] for k, j in enumerate(joints)})
        return pd.DataFrame(columns)


def true_parameters(
    robot: Robot,
    seed: int,
    inertia_spread: float,
    viscous: tuple[float, float],
    coulomb: tuple[float, float],
    offset: tuple[float, float],
    armature: tuple[float, float],
) -> Array:
    """θ (p,) of the twin: URDF inertias (each link scaled by U[1 − s, 1 + s] when
    ``inertia_spread`` s > 0) and friction, offset and armature per joint (the robot's terms)
    uniform in the given ranges [N m s/rad, N m, N m, kg m²; the armature's: the reflected
    rotor inertias identified on the real Gen3's motor-current torque, 0.13-0.55].  Streams
    ("robot_twin", seed, "inertia") and ("robot_twin", seed, "friction").  No default here: a
    study's come from its ``twin`` block (the ranges from ``twin.friction``), whose defaults
    live in the schema (``inertia_spread`` 0.2, 0 keeps the URDF's inertias; fv 0.1-0.5,
    fc 0.5-2, f0 -0.5-0.5, ia 0.1-0.6)."""
    if not 0 <= inertia_spread < 1:
        raise ValueError(f"inertia_spread must be in [0, 1), got {inertia_spread}")
    theta = urdf_parameters(robot)
    n_links = robot.n_inertial // 10
    scale = generator("robot_twin", seed, "inertia").uniform(
        1 - inertia_spread, 1 + inertia_spread, n_links
    )
    theta[: robot.n_inertial] *= np.repeat(scale, 10)
    rng = generator("robot_twin", seed, "friction")
    ranges = {"fv": viscous, "fc": coulomb, "f0": offset, "ia": armature}
    for term, columns in friction_columns(robot).items():
        theta[columns] = rng.uniform(*ranges[term], robot.n_joints)
    return theta


def excitation(
    robot: Robot,
    seed: int = 0,
    order: int = 5,
    period_s: float = 10.0,
    amplitude_rad: float = 1.0,
    max_velocity_rad_s: float = 1.2,
) -> FourierTrajectory:
    """A random Fourier excitation (Eq 8) inside the joint ranges.

    Per joint, a and b are standard normal (stream ("robot_twin", seed, "excitation")), q₀ is
    the middle of the joint's range, and the series is scaled so that max |q − q₀| on a
    1000-point grid is min(``amplitude_rad``, 0.9 × half the range) and max |q̇| ≤
    ``max_velocity_rad_s`` (default 1.2 rad/s, about the real Gen3's 1.37 rad/s peak in SOURCE.md)
    and ≤ the joint's URDF velocity limit where it gives one (a lift's 0.07 m/s: it was driven
    at 1.2 m/s).
    """
    lo, hi = joint_ranges(robot)
    q0 = 0.5 * (lo + hi)
    amplitude = np.minimum(amplitude_rad, 0.45 * (hi - lo))
    urdf_speed = velocity_limits(robot)
    speed = np.where(urdf_speed > 0, np.minimum(max_velocity_rad_s, urdf_speed), max_velocity_rad_s)
    rng = generator("robot_twin", seed, "excitation")
    a = rng.standard_normal((robot.n_joints, order))
    b = rng.standard_normal((robot.n_joints, order))
    raw = FourierTrajectory(np.zeros(robot.n_joints), a, b, 2 * np.pi / period_s)
    q, dq, _ = raw.evaluate_joints(np.linspace(0.0, period_s, 1000, endpoint=False))
    k = np.minimum(amplitude / np.abs(q).max(axis=0), speed / np.abs(dq).max(axis=0))
    return FourierTrajectory(q0, a * k[:, None], b * k[:, None], raw.omega_f)


def simulate(
    robot: Robot,
    theta: ArrayLike,
    trajectory: FourierTrajectory,
    duration_s: float,
    rate_hz: float,
    noise: TwinNoise,
    seed: int,
    record: str = "twin",
) -> TwinRecord:
    """Sample the twin at ``rate_hz`` for ``duration_s`` (t = 0 … duration − 1/rate).

    The true torque is :func:`inverse_dynamics` with ``theta``; the sensors are the shared model
    :func:`paramid.simulation.sense` (no torque gain error), each drawing from its own stream
    ("robot_twin", seed, record, "encoder" | "velocity" | "torque"), so switching one noise off
    leaves the others unchanged.
    """
    n = int(round(duration_s * rate_hz))
    if n < 2:
        raise ValueError(f"record {record!r}: duration {duration_s} s gives fewer than 2 samples")
    if trajectory.n_joints != robot.n_joints:
        raise ValueError(f"trajectory has {trajectory.n_joints} joints, robot {robot.n_joints}")
    t = np.arange(n) / rate_hz
    q, dq, ddq = trajectory.evaluate_joints(t)
    tau = inverse_dynamics(robot, q, dq, ddq, theta)
    shape = q.shape
    e_q = generator("robot_twin", seed, record, "encoder").standard_normal(shape)
    e_v = generator("robot_twin", seed, record, "velocity").standard_normal(shape)
    e_tau = generator("robot_twin", seed, record, "torque").standard_normal(shape)
    q_m, dq_m, tau_m = sense(
        q,
        dq,
        tau,
        encoder_error=noise.encoder_noise_rad * e_q,
        encoder_step_rad=noise.encoder_step_rad,
        velocity_error=noise.velocity_noise_rad_s * e_v,
        additive_torque_error=noise.torque_sigma(robot.n_joints) * e_tau,
    )
    return TwinRecord(
        time=t,
        q=q_m,
        dq=dq_m,
        tau=tau_m,
        q_true=q,
        dq_true=dq,
        ddq_true=ddq,
        tau_true=tau,
    )


def simulate_record(
    robot: Robot,
    twin: Mapping[str, Any],
    spec: Mapping[str, Any],
    duration_s: float,
    record: str,
) -> TwinRecord:
    """One record of a twin study: the true parameters of the ``twin`` block (``seed``,
    ``inertia_spread``, ``friction``; :func:`true_parameters`), the random excitation of the
    record's ``spec`` (``seed``, ``order``, ``period_s``, ``amplitude_rad``,
    ``max_velocity_rad_s``; :func:`excitation`), sampled at ``twin.sample_rate_hz`` with the
    sensors of ``twin.noise`` (:func:`simulate`, streams of ``twin.seed`` and ``record``)."""
    theta = true_parameters(robot, twin["seed"], twin["inertia_spread"], **twin["friction"])
    trajectory = excitation(
        robot,
        seed=spec["seed"],
        order=spec["order"],
        period_s=spec["period_s"],
        amplitude_rad=spec["amplitude_rad"],
        max_velocity_rad_s=spec["max_velocity_rad_s"],
    )
    noise = TwinNoise.from_config(twin["noise"])
    return simulate(
        robot, theta, trajectory, duration_s, twin["sample_rate_hz"], noise, twin["seed"], record
    )
