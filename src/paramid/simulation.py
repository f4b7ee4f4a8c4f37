"""Simulated records shared by every twin: reference trajectories and the sensor model.

:class:`Evaluable` is anything a twin can follow (``evaluate(t) -> (q, q̇, q̈)``);
:class:`Trajectory` is a harmonic reference, offset plus sine and cosine terms in degrees as
printed in the hip paper's Eq 18-19; :func:`sense` is the one sensor model of every twin
(encoder error and quantisation, velocity error, torque gain error and additive floor) and
:func:`measure` turns a true motion and torque into a :class:`Record` as the hip and chain
twins' sensors see it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

Array = NDArray[np.float64]

#: White noise floor [N m] of a real output-side joint torque sensor, per sample: the Kinova
#: Gen3's ``TorqueSm2`` (its largest actuator class; ±35 N m in that record, the hip twin's
#: torque spans −5…+23 N m) in ``RunTrajectory1.csv`` (W. Chiha's dynamic-identification repository,
#: ``datasets/kinova/identification_data/``, commit 44f47d5, the source of
#: ``data/kinova_gen3``; not shipped): mean Welch PSD 2.3e-6 (N m)²/Hz over 200–450 Hz, above
#: the arm's structural modes.  Sampled at 100 Hz without averaging, the per-sample σ stays that
#: of the 1 kHz sensor's 500 Hz band, √(PSD · 500 Hz) = 0.034 N m.  The hip paper keeps no
#: sensor specification (§2.1); the hip and chain twins use this measured floor.
JOINT_TORQUE_SENSOR_NOISE_NM = 0.034


@runtime_checkable
class Evaluable(Protocol):
    """Anything the twin can follow: ``evaluate(t) -> (q, q̇, q̈)`` in rad, rad/s, rad/s².

    :class:`Trajectory` (Eq 18–19) and ``paramid.excitation.fourier.FourierTrajectory`` (Fourier
    excitation, Eq 8 of the excitation paper) both satisfy it.
    """

    def evaluate(self, t: Array) -> tuple[Array, Array, Array]: ...


@dataclass(frozen=True)
class HarmonicTerm:
    """One term ``amplitude · fn(2π f t)`` of a reference trajectory (Eq 18–19)."""

    fn: str  # "sin" or "cos"
    amplitude_deg: float
    frequency_hz: float


@dataclass(frozen=True)
class Trajectory:
    """Reference q_ref(t) = offset + Σ terms, in degrees as printed in Eq 18–19."""

    offset_deg: float
    terms: tuple[HarmonicTerm, ...]

    @classmethod
    def from_config(cls, spec: Mapping) -> Trajectory:
        terms = tuple(
            HarmonicTerm(t["fn"], t["amplitude_deg"], t["frequency_hz"]) for t in spec["terms"]
        )
        for term in terms:
            if term.fn not in ("sin", "cos"):
                raise ValueError(f"trajectory term fn must be 'sin' or 'cos', got {term.fn!r}")
        return cls(float(spec["offset_deg"]), terms)

    def evaluate(self, t: Array) -> tuple[Array, Array, Array]:
        """Angle [rad], velocity [rad/s] and acceleration [rad/s²], analytic."""
        q = np.full_like(t, np.deg2rad(self.offset_deg))
        qd = np.zeros_like(t)
        qdd = np.zeros_like(t)
        for term in self.terms:
            amp, w = np.deg2rad(term.amplitude_deg), 2 * np.pi * term.frequency_hz
            s, c = np.sin(w * t), np.cos(w * t)
            if term.fn == "sin":
                q += amp * s
                qd += amp * w * c
                qdd -= amp * w * w * s
            else:
                q += amp * c
                qd -= amp * w * s
                qdd -= amp * w * w * c
        return q, qd, qdd


#: units of a :class:`Record`'s columns as written to Parquet
RECORD_UNITS = {
    "time": "s",
    "angle": "rad",
    "torque": "N m",
    "angle_true": "rad",
    "velocity_true": "rad/s",
    "acceleration_true": "rad/s^2",
    "torque_true": "N m",
}


@dataclass(frozen=True)
class Record:
    """A simulated record: measured channels and the ground truth behind them."""

    time: Array
    angle: Array  # measured [rad]
    torque: Array  # measured [N m]
    angle_true: Array
    velocity_true: Array
    acceleration_true: Array
    torque_true: Array

    def frame(self) -> pd.DataFrame:
        """The record as a table with the columns of :data:`RECORD_UNITS`."""
        return pd.DataFrame({column: getattr(self, column) for column in RECORD_UNITS})


def sense(
    q: Array,
    qd: Array,
    tau: Array,
    *,
    encoder_error: Array | float = 0.0,
    encoder_step_rad: float = 0.0,
    velocity_error: Array | float = 0.0,
    relative_torque_error: Array | float = 0.0,
    additive_torque_error: Array | float = 0.0,
) -> tuple[Array, Array, Array]:
    """The sensor model of every twin: measured (q_m, q̇_m, τ_m) from the true q, q̇, τ, arrays
    of shape (N,) or (N, n) (each error broadcasts against its signal, e.g. σ (n,) · draws
    (N, n)):

    - encoder: q_m = Δ·round((q + e_q)/Δ) with Δ = ``encoder_step_rad``; Δ = 0 keeps q + e_q;
    - velocity: q̇_m = q̇ + e_v;
    - torque: τ_m = τ (1 + e_r) + e_a (gain error e_r, additive floor e_a).

    The caller draws the errors from its own named streams (:mod:`paramid.seeding`), so each
    twin keeps its order of draws.  Where their sizes come from:

    - e_q: the hip and chain twins' σ_q = 1e-5 rad (``twin.encoder_noise_rad``); the robot
      twin's σ_q = 0 and Δ = 1e-5 rad, the Kinova logs' 6 printed significant digits
      (data/kinova_gen3/SOURCE.md, "Quantisation"; they show no noise beyond it);
    - e_v: the robot twin's σ_v = 2e-3 rad/s, an assumption (SOURCE.md gives no figure); the
      hip and chain records keep no measured velocity;
    - e_r: the hip and chain twins' σ_r, 0 by default (the hip twin's once-default 0.0072 was
      fitted to the hip paper's Table 3, not measured: its ``CALIBRATED`` settings);
    - e_a: the hip and chain twins' σ_a = :data:`JOINT_TORQUE_SENSOR_NOISE_NM`, measured on a
      real Gen3 joint torque sensor; the robot twin's per-joint σ_τ, stated by the study (the
      shipped ``gen3_twin``: the real Gen3's ``TorqueCur`` content above 10 Hz, 3.0–3.6 N m on
      joints 1–4, 0.56–0.66 N m on joints 5–7 in RunTrajectory1, SOURCE.md "Real or
      simulated?").
    """
    angle = q + encoder_error
    if encoder_step_rad > 0:
        angle = encoder_step_rad * np.round(angle / encoder_step_rad)
    return angle, qd + velocity_error, tau * (1.0 + relative_torque_error) + additive_torque_error


def measure(
    time: Array,
    motion: tuple[Array, Array, Array],
    torque: Array,
    encoder_error: Array,
    relative_torque_error: Array,
    additive_torque_error: Array | float = 0.0,
) -> Record:
    """A record as the sensors of :func:`sense` see it: q_m = q + e_q (encoder, not quantised)
    and T_m = T (1 + e_r) + e_a (torque sensor: gain noise e_r, white noise floor e_a [N m]),
    beside the true q, q̇, q̈ and T (the record keeps no measured velocity)."""
    q, qd, qdd = motion
    angle, _, measured = sense(
        q,
        qd,
        torque,
        encoder_error=encoder_error,
        relative_torque_error=relative_torque_error,
        additive_torque_error=additive_torque_error,
    )
    return Record(
        time=time,
        angle=angle,
        torque=measured,
        angle_true=q,
        velocity_true=qd,
        acceleration_true=qdd,
        torque_true=torque,
    )
