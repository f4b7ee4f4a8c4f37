"""Digital twin of the pedestal-mounted 1-DOF hip (hip paper §2, §4.1).

The true motion is a harmonic reference (Eq 18 calibration, Eq 19 validation) plus a small
structural ripple; the plant torque follows Eq 1–2 (exact sgn by default, a tanh-smoothed
Coulomb term on request); the torque sensor adds the white noise floor measured on a real joint
torque sensor (:data:`paramid.simulation.JOINT_TORQUE_SENSOR_NOISE_NM`) and, on request,
relative noise; the encoder adds additive noise.  Every random draw comes from
the stream ``("twin", seed, record)`` so a record is the same in every study that names it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paramid.friction.laws import sign_or_tanh
from paramid.seeding import generator
from paramid.simulation import JOINT_TORQUE_SENSOR_NOISE_NM, Evaluable, Record, measure

Array = NDArray[np.float64]


PLANT_PARAMETERS = ("Mxt", "Myt", "Jt", "fc", "fv")  # X of the Eq 1-2 plant (Eq 5 order)
#: Settings fitted, not taken from physics, so that the twin's LS fit gives the paper's Table 3
#: LS row (train 0.1419, validation 0.1152 N m); the twin's defaults until 2026-12-03.  A study
#: that sets them (with no additive noise) is ``calibrated``: the audit then calls the cells
#: they were fitted to calibration targets, never evidence.
CALIBRATED = {
    "coulomb_smoothing_velocity": 0.065,
    "torque_noise_relative": 0.0072,
    "torque_noise_nm": 0.0,
}
#: Table 3 cells the CALIBRATED settings were fitted to (LS and BCLS coincide: bounds inactive)
CALIBRATION_TARGETS = tuple(
    (method, column)
    for method in ("LS", "BCLS")
    for column in ("train_mean", "val_mean", "val_median")
)


def is_calibrated(twin: Mapping | None) -> bool:
    """Whether a ``twin`` config block keeps the CALIBRATED settings (a measured study, None,
    keeps none)."""
    if twin is None:
        return False
    return all(float(twin[key]) == value for key, value in CALIBRATED.items())


def own_seed(twin: Mapping | None) -> int:
    """The seed of a study's own record pair: its ``twin`` block's; 0 for a measured study
    (None), the run its one record pair gets in the sweeps."""
    return int(twin["seed"]) if twin is not None else 0


def noise_seeds(twin_config: Mapping, count: int) -> list[int]:
    """The ``count`` noise seeds of a study's ``twin`` block: its ``seed`` and the ones after
    it, each naming the streams ("twin", seed, record) of :func:`simulate`."""
    first = int(twin_config["seed"])
    return list(range(first, first + count))


def partly_calibrated(twin: Mapping | None) -> str | None:
    """Why a ``twin`` that keeps some, not all, of the CALIBRATED settings is judged as if
    none were fitted (its Table 3 cells get verdicts, not ``calibration target``), or None
    (also for a measured study, None)."""
    if twin is None:
        return None
    fitted = [k for k, v in CALIBRATED.items() if v != 0 and float(twin[k]) == v]
    if not fitted or is_calibrated(twin):
        return None
    kept = ", ".join(f"{k} = {CALIBRATED[k]:g}" for k in fitted)
    other = ", ".join(f"{k} = {v:g}" for k, v in CALIBRATED.items() if float(twin[k]) != v)
    return (
        f"the twin keeps {kept}, once fitted to the paper's Table 3 LS row, but not {other}: "
        "its Table 3 cells are judged, not marked calibration targets, though a setting in "
        "them was fitted to the paper; set all of paramid.hip.twin.CALIBRATED, or none"
    )


@dataclass(frozen=True)
class TwinSettings:
    """Plant and sensor settings of the twin (config ``studies.<name>.twin``)."""

    x_true: tuple[float, ...]  # Mxt, Myt, Jt, fc, fv (Table 4)
    gravity: float = 9.81
    sample_rate_hz: float = 100.0
    coulomb_smoothing_velocity: float = 0.0  # v_s of fc·tanh(q̇/v_s); 0 → exact sgn (Eq 2)
    torque_noise_relative: float = 0.0  # σ_r of T_m = T (1 + σ_r n) + σ_a n'
    torque_noise_nm: float = JOINT_TORQUE_SENSOR_NOISE_NM  # σ_a [N m]
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
            torque_noise_nm=float(twin["torque_noise_nm"]),
            encoder_noise_rad=float(twin["encoder_noise_rad"]),
            ripple_sines=int(ripple["sines"]),
            ripple_band_hz=(float(ripple["f_min_hz"]), float(ripple["f_max_hz"])),
            ripple_rms_rad=float(ripple["rms_rad"]),
        )


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
        tau_f = fc * sign_or_tanh(qd, settings.coulomb_smoothing_velocity) + fv * qd
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
    relative torque noise, encoder noise, additive torque noise; so switching one noise off
    leaves the others unchanged.
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
    torque_floor = rng.standard_normal(n)

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
        settings.torque_noise_nm * torque_floor,
    )
    return measure(t, (q, qd, qdd), torque, *measured)
