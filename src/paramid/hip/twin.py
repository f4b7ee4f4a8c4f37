"""Digital twin of the pedestal-mounted 1-DOF hip (hip paper §2, §4.1).

The true motion is a harmonic reference (Eq 18 calibration, Eq 19 validation) plus a small
structural ripple; the plant torque follows Eq 1–2 with a tanh-smoothed Coulomb term; the
sensors add relative torque noise and additive encoder noise.  Every random draw comes from
the stream ``("twin", seed, record)`` so a record is the same in every study that names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from paramid.seeding import generator

Array = NDArray[np.float64]


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


PLANT_PARAMETERS = ("Mxt", "Myt", "Jt", "fc", "fv")  # X of the Eq 1-2 plant (Eq 5 order)


@dataclass(frozen=True)
class TwinSettings:
    """Plant and sensor settings of the twin (config ``studies.<name>.twin``)."""

    x_true: tuple[float, ...]  # Mxt, Myt, Jt, fc, fv (Table 4)
    gravity: float = 9.81
    sample_rate_hz: float = 100.0
    coulomb_smoothing_velocity: float = 0.065  # v_s of fc·tanh(q̇/v_s); 0 → exact sgn (Eq 2)
    torque_noise_relative: float = 0.0072  # T_m = T (1 + σ n)
    encoder_noise_rad: float = 1e-5  # additive N(0, σ²) on the measured angle
    ripple_sines: int = 20
    ripple_band_hz: tuple[float, float] = (6.0, 10.0)
    ripple_rms_rad: float = 4.5e-5

    @classmethod
    def from_config(
        cls, twin: Mapping, parameter_order: Sequence[str] = PLANT_PARAMETERS
    ) -> TwinSettings:
        x = twin["x_true"]
        missing = [p for p in parameter_order if p not in x]
        if missing:
            raise ValueError(f"twin.x_true lacks parameter(s) {missing}")
        ripple = twin["ripple"]
        return cls(
            x_true=tuple(float(x[p]) for p in parameter_order),
            gravity=float(twin["gravity"]),
            sample_rate_hz=float(twin["sample_rate_hz"]),
            coulomb_smoothing_velocity=float(twin["coulomb_smoothing_velocity"]),
            torque_noise_relative=float(twin["torque_noise_relative"]),
            encoder_noise_rad=float(twin["encoder_noise_rad"]),
            ripple_sines=int(ripple["sines"]),
            ripple_band_hz=(float(ripple["f_min_hz"]), float(ripple["f_max_hz"])),
            ripple_rms_rad=float(ripple["rms_rad"]),
        )


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


def coulomb(qd: Array, smoothing_velocity: float) -> Array:
    """sgn(q̇) of Eq 2, or tanh(q̇/v_s) when a smoothing velocity v_s > 0 is set."""
    if smoothing_velocity > 0:
        return np.tanh(qd / smoothing_velocity)
    return np.sign(qd)


def plant_torque(
    x: Sequence[float],
    q: Array,
    qd: Array,
    qdd: Array,
    settings: TwinSettings,
    friction: Callable[[Array], Array] | None = None,
) -> Array:
    """Joint torque of Eq 1–2 with X = [Mxt, Myt, Jt, fc, fv] (Eq 3, 5).

    ``friction``, when given, maps q̇ to the friction torque and replaces Eq 2 (then only
    Mxt, Myt, Jt of ``x`` are read), e.g. a Stribeck law from :mod:`paramid.friction.laws`.
    """
    mxt, myt, jt = x[:3]
    g = settings.gravity
    if friction is None:
        fc, fv = x[3], x[4]
        tau_f = fc * coulomb(qd, settings.coulomb_smoothing_velocity) + fv * qd
    else:
        tau_f = np.asarray(friction(qd), dtype=np.float64)
    return jt * qdd + g * (mxt * np.sin(q) + myt * np.cos(q)) + tau_f


def simulate(
    trajectory: Evaluable,
    duration_s: float,
    settings: TwinSettings,
    seed: int,
    record: str,
    friction: Callable[[Array], Array] | None = None,
) -> Record:
    """Sample the twin at ``settings.sample_rate_hz`` for ``duration_s`` (t = 0 … duration − 1/fs).

    Draw order from the stream ("twin", seed, record): ripple frequencies, ripple phases,
    torque noise, encoder noise; so switching one noise off leaves the others unchanged.
    ``friction`` (q̇ ↦ torque) replaces Eq 2 in the plant, see :func:`plant_torque`.
    """
    n = int(round(duration_s * settings.sample_rate_hz))
    if n < 2:
        raise ValueError(f"record {record!r}: duration {duration_s} s gives fewer than 2 samples")
    t = np.arange(n) / settings.sample_rate_hz
    q, qd, qdd = trajectory.evaluate(t)

    rng = generator("twin", seed, record)
    m = settings.ripple_sines
    freqs = rng.uniform(*settings.ripple_band_hz, size=m)
    phases = rng.uniform(0.0, 2 * np.pi, size=m)
    torque_noise = rng.standard_normal(n)
    encoder_noise = rng.standard_normal(n)

    if m > 0 and settings.ripple_rms_rad > 0:
        amp = settings.ripple_rms_rad * np.sqrt(2.0 / m)  # Σ amp²/2 = rms²
        w = 2 * np.pi * freqs
        arg = np.outer(t, w) + phases
        q = q + amp * np.sin(arg).sum(axis=1)
        qd = qd + amp * (w * np.cos(arg)).sum(axis=1)
        qdd = qdd - amp * (w * w * np.sin(arg)).sum(axis=1)

    torque = plant_torque(settings.x_true, q, qd, qdd, settings, friction)
    measured = (
        settings.encoder_noise_rad * encoder_noise,
        settings.torque_noise_relative * torque_noise,
    )
    return measure(t, (q, qd, qdd), torque, *measured)


def measure(
    time: Array,
    motion: tuple[Array, Array, Array],
    torque: Array,
    encoder_error: Array,
    relative_torque_error: Array,
) -> Record:
    """A record as the sensors see it: q_m = q + e_q (encoder) and T_m = T (1 + e_τ) (torque
    sensor), beside the true q, q̇, q̈ and T."""
    q, qd, qdd = motion
    return Record(
        time=time,
        angle=q + encoder_error,
        torque=torque * (1.0 + relative_torque_error),
        angle_true=q,
        velocity_true=qd,
        acceleration_true=qdd,
        torque_true=torque,
    )
