"""An n-joint planar serial chain: inverse dynamics, regressor, base parameters, twin.

The chain moves in the vertical x–y plane (gravity g along −y) with n revolute joints whose
axes are parallel to z.  Link j has length lⱼ (its frame origin sits on joint j, its x axis
points to joint j+1), mass mⱼ, centre of mass (cxⱼ, cyⱼ) in its frame and centroidal inertia
Izzⱼ.  Joint j has viscous and Coulomb friction, τ_f = fvⱼ q̇ⱼ + fcⱼ sgn(q̇ⱼ) (as Eq 2 of the
hip paper, per joint).

Standard parameters (per joint, joint-major): ``ZZj`` = Izzⱼ + mⱼ(cxⱼ² + cyⱼ²) (inertia
about the joint axis), ``MXj`` = mⱼcxⱼ, ``MYj`` = mⱼcyⱼ, ``Mj`` = mⱼ, ``FVj``, ``FCj``.  For a
planar chain with parallel axes these are the only ones of the usual ten inertial parameters
per link that enter the dynamics (XX, XY, XZ, YY, YZ, MZ give zero regressor columns).

The inverse dynamics is the recursive Newton–Euler algorithm in the world frame, written
linearly in (ZZ, MX, MY, M); the regressor Y(q, q̇, q̈) is its closed form.  The base
parameters are those of Y stacked over random samples, by the robots' pivoted QR
(:func:`paramid.base_parameters.base_parameters`): the rank r gives r independent columns, and the
others are folded into them, β = θ₁ + K θ₂.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import scipy.linalg
from numpy.typing import NDArray

from paramid import base_parameters as regrouping
from paramid import signals, simulation
from paramid.base_parameters import BaseParameters
from paramid.excitation.design import RegressorFn
from paramid.excitation.fourier import FourierTrajectory, JointLimits
from paramid.friction.laws import sign_or_tanh
from paramid.seeding import Key, generator

Array = NDArray[np.float64]
INERTIAL = ("ZZ", "MX", "MY", "M")
FRICTION = ("FV", "FC")
PER_JOINT = INERTIAL + FRICTION


@dataclass(frozen=True)
class PlanarChain:
    """Geometry, inertia and friction of an n-link planar chain (SI units)."""

    lengths: Array
    masses: Array
    com: Array  # (n, 2): centre of mass in the link frame [m]
    inertia_com: Array  # (n,): centroidal Izz [kg m²]
    fv: Array
    fc: Array
    gravity: float = 9.81

    def __post_init__(self) -> None:
        n = np.atleast_1d(self.lengths).size
        for name in ("lengths", "masses", "inertia_com", "fv", "fc"):
            value = np.atleast_1d(np.asarray(getattr(self, name), dtype=np.float64))
            if value.shape != (n,):
                raise ValueError(f"{name} must have one value per link ({n}), got {value.shape}")
            object.__setattr__(self, name, value)
        com = np.asarray(self.com, dtype=np.float64).reshape(n, 2)
        object.__setattr__(self, "com", com)
        if np.any(self.masses <= 0) or np.any(self.inertia_com < 0):
            raise ValueError("masses must be positive and inertias non-negative")

    @property
    def n(self) -> int:
        return int(self.lengths.size)

    @classmethod
    def from_config(cls, cfg: Mapping, gravity: float = 9.81) -> PlanarChain:
        """From ``links: [{length_m, mass_kg, com_m: [x, y], inertia_com_kgm2, fv, fc}, …]``."""
        links = cfg["links"]
        return cls(
            lengths=np.array([ln["length_m"] for ln in links]),
            masses=np.array([ln["mass_kg"] for ln in links]),
            com=np.array([ln["com_m"] for ln in links]),
            inertia_com=np.array([ln["inertia_com_kgm2"] for ln in links]),
            fv=np.array([ln["fv"] for ln in links]),
            fc=np.array([ln["fc"] for ln in links]),
            gravity=float(gravity),
        )

    def inertial_parameters(self) -> Array:
        """(n, 4): [ZZ, MX, MY, M] per link (ZZ about the joint axis, parallel-axis theorem)."""
        m, c = self.masses, self.com
        zz = self.inertia_com + m * (c**2).sum(axis=1)
        return np.column_stack([zz, m * c[:, 0], m * c[:, 1], m])

    def standard_parameters(self) -> Array:
        """θ (6n,): [ZZ, MX, MY, M, FV, FC] joint after joint."""
        return np.column_stack([self.inertial_parameters(), self.fv, self.fc]).ravel()


def standard_names(n: int) -> list[str]:
    """Names of the standard parameters, e.g. ['ZZ1', 'MX1', 'MY1', 'M1', 'FV1', 'FC1', …]."""
    return [f"{p}{j + 1}" for j in range(n) for p in PER_JOINT]


def _cross(a: Array, b: Array) -> Array:
    """z component of the planar cross product a × b (last axis of size 2)."""
    return a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]


def _perp(v: Array) -> Array:
    """ẑ × v for planar vectors: (−v_y, v_x)."""
    return np.stack([-v[..., 1], v[..., 0]], axis=-1)


def rnea(lengths: Array, gravity: float, q: Array, qd: Array, qdd: Array, inertial: Array) -> Array:
    """Rigid-body joint torques by recursive Newton–Euler (no friction).

    q, q̇, q̈: (K, n).  ``inertial``: (..., n, 4) of [ZZ, MX, MY, M] per link, any leading
    batch shape B (e.g. the unit vectors for the regressor).  Returns (K, *B, n).

    Forward: absolute angle θⱼ = Σᵢ≤ⱼ qᵢ, ωⱼ = Σ q̇ᵢ, αⱼ = Σ q̈ᵢ; origin accelerations
    aⱼ₊₁ = aⱼ + αⱼ ẑ×rⱼ − ωⱼ² rⱼ with rⱼ = lⱼ(cos θⱼ, sin θⱼ) and a₁ = (0, g) (gravity as a base
    acceleration).  Backward, with hⱼ = R(θⱼ)(MXⱼ, MYⱼ) the first moment in the world frame:
    fⱼ = Mⱼ aⱼ + αⱼ ẑ×hⱼ − ωⱼ² hⱼ + fⱼ₊₁ and nⱼ = ZZⱼ αⱼ + hⱼ × aⱼ + rⱼ × fⱼ₊₁ + nⱼ₊₁; τⱼ = nⱼ.
    """
    q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (q, qd, qdd))
    K, n = q.shape
    theta, omega, alpha = np.cumsum(q, 1), np.cumsum(qd, 1), np.cumsum(qdd, 1)
    cos, sin = np.cos(theta), np.sin(theta)
    r = np.asarray(lengths)[None, :, None] * np.stack([cos, sin], axis=-1)  # (K, n, 2)
    a = np.empty((K, n, 2))
    a[:, 0] = (0.0, gravity)
    for j in range(n - 1):
        a[:, j + 1] = (
            a[:, j] + alpha[:, j, None] * _perp(r[:, j]) - omega[:, j, None] ** 2 * r[:, j]
        )

    inertial = np.asarray(inertial, dtype=np.float64)
    batch = inertial.shape[:-2]
    extra = (None,) * len(batch)  # broadcast kinematics (K, …) against the batch shape

    def kin(x: Array) -> Array:
        return x[(slice(None), *extra)]

    f = np.zeros((K, *batch, 2))
    moment = np.zeros((K, *batch))
    tau = np.empty((K, *batch, n))
    for j in reversed(range(n)):
        zz, mx, my, m = (inertial[..., j, i] for i in range(4))
        c, s = kin(cos[:, j]), kin(sin[:, j])
        h = np.stack([c * mx - s * my, s * mx + c * my], axis=-1)  # R(θⱼ)(MX, MY)
        aj, rj = kin(a[:, j]), kin(r[:, j])
        al, om = kin(alpha[:, j]), kin(omega[:, j])
        moment = zz * al + _cross(h, aj) + _cross(rj, f) + moment
        f = m[..., None] * aj + al[..., None] * _perp(h) - (om**2)[..., None] * h + f
        tau[..., j] = moment
    return tau


def inverse_dynamics(
    chain: PlanarChain, q: Array, qd: Array, qdd: Array, coulomb_smoothing: float = 0.0
) -> Array:
    """Joint torques (K, n): Newton–Euler rigid body + fv q̇ + fc sgn(q̇) (tanh(q̇/v_s) if v_s > 0)."""
    tau = rnea(chain.lengths, chain.gravity, q, qd, qdd, chain.inertial_parameters())
    return tau + chain.fv * qd + chain.fc * sign_or_tanh(qd, coulomb_smoothing)


def regressor(
    lengths: Array, gravity: float, q: Array, qd: Array, qdd: Array, sign_smoothing: float = 0.0
) -> Array:
    """Y (K, n, 6n) with τ = Y θ for the standard parameters θ of :func:`standard_names`.

    Closed form of the Newton–Euler recursion of :func:`rnea`: the inertial wrench of link k
    (force Fₖ = Mₖ aₖ + αₖ ẑ×hₖ − ωₖ² hₖ, moment Nₖ = ZZₖ αₖ + hₖ × aₖ about its origin pₖ)
    reaches joint j ≤ k as τⱼ = Nₖ + (pₖ − pⱼ) × Fₖ.  With uₖ = (cos θₖ, sin θₖ) and
    vₖ = ẑ×uₖ the columns of link k at joint j ≤ k are
    ZZₖ: αₖ;  Mₖ: dⱼₖ × aₖ;  MXₖ: uₖ × aₖ + dⱼₖ × (αₖ vₖ − ωₖ² uₖ);
    MYₖ: vₖ × aₖ − dⱼₖ × (αₖ uₖ + ωₖ² vₖ), with dⱼₖ = pₖ − pⱼ (zero for j > k).
    The friction columns are q̇ⱼ and sgn(q̇ⱼ) (or tanh(q̇ⱼ/v_s), the design's smooth surrogate).
    Tested against :func:`rnea` on the unit parameter vectors.
    """
    q, qd, qdd = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (q, qd, qdd))
    K, n = q.shape
    lengths = np.asarray(lengths, dtype=np.float64)
    theta, omega, alpha = np.cumsum(q, 1), np.cumsum(qd, 1), np.cumsum(qdd, 1)
    ux, uy = np.cos(theta), np.sin(theta)  # vₖ = (−uy, ux)
    rx, ry = lengths * ux, lengths * uy
    # origin positions pₖ (p₁ = 0) and accelerations aₖ (a₁ = (0, g): gravity)
    px = np.concatenate([np.zeros((K, 1)), np.cumsum(rx, 1)[:, :-1]], axis=1)
    py = np.concatenate([np.zeros((K, 1)), np.cumsum(ry, 1)[:, :-1]], axis=1)
    ax_step, ay_step = -alpha * ry - omega**2 * rx, alpha * rx - omega**2 * ry
    ax = np.concatenate([np.zeros((K, 1)), np.cumsum(ax_step, 1)[:, :-1]], axis=1)
    ay = np.concatenate([np.full((K, 1), gravity), gravity + np.cumsum(ay_step, 1)[:, :-1]], 1)
    upper = np.triu(np.ones((n, n)))  # [j, k] = 1 where j ≤ k
    dx = (px[:, None, :] - px[:, :, None]) * upper  # dⱼₖ, (K, j, k)
    dy = (py[:, None, :] - py[:, :, None]) * upper

    # d × w for a per-link vector w (K, k): dx wy − dy wx
    def dcross(wx: Array, wy: Array) -> Array:
        return dx * wy[:, None, :] - dy * wx[:, None, :]

    al = alpha[:, None, :]
    Y = np.zeros((K, n, n, 6))
    Y[..., 0] = al * upper
    Y[..., 1] = (ux * ay - uy * ax)[:, None, :] * upper + dcross(
        -alpha * uy - omega**2 * ux, alpha * ux - omega**2 * uy
    )
    Y[..., 2] = (-uy * ay - ux * ax)[:, None, :] * upper + dcross(
        -alpha * ux + omega**2 * uy, -alpha * uy - omega**2 * ux
    )
    Y[..., 3] = dcross(ax, ay)
    idx = np.arange(n)
    Y[:, idx, idx, 4] = qd
    Y[:, idx, idx, 5] = sign_or_tanh(qd, sign_smoothing)
    return Y.reshape(K, n, 6 * n)


def base_parameters(
    lengths: Array,
    gravity: float,
    samples: int = 200,
    seed_keys: Sequence[Key] = ("chain", "base_parameters"),
    tolerance: float = 1e-8,
) -> BaseParameters:
    """Base parameters of Y stacked over ``samples`` random states: q, q̇, q̈ drawn from the
    stream ``seed_keys`` (uniform angles, normal rates), then
    :func:`paramid.base_parameters.base_parameters` (pivoted QR, rank at relative ``tolerance``,
    independent columns by its ordered scan)."""
    lengths = np.asarray(lengths, dtype=np.float64)
    n = lengths.size
    rng = generator(*seed_keys)
    q = rng.uniform(-np.pi, np.pi, (samples, n))
    qd, qdd = rng.standard_normal((samples, n)), rng.standard_normal((samples, n))
    W = regressor(lengths, gravity, q, qd, qdd).reshape(samples * n, 6 * n)
    return regrouping.base_parameters(W, standard_names(n), tolerance)


def base_regressor(
    base: BaseParameters,
    lengths: Array,
    gravity: float,
    q: Array,
    qd: Array,
    qdd: Array,
    sign_smoothing: float = 0.0,
) -> Array:
    """Y_b (K, n, r) = the independent columns of Y; Y_b β = Y θ for every θ."""
    return regrouping.base_columns(regressor(lengths, gravity, q, qd, qdd, sign_smoothing), base)


def chain_of(design: Mapping[str, Any]) -> tuple[PlanarChain, BaseParameters]:
    """The chain of a chain design block (``links``, ``gravity``) and its base parameters
    (:func:`base_parameters` on ``base_samples`` random states)."""
    chain = PlanarChain.from_config(design, design["gravity"])
    return chain, base_parameters(chain.lengths, chain.gravity, samples=design["base_samples"])


def design_inputs(design: Mapping[str, Any]) -> tuple[RegressorFn, JointLimits]:
    """What :func:`paramid.excitation.design.design` needs of a chain design block: the base
    regressor (:func:`design_regressor`) and the joint limits of Eq 9 (``limits``, degrees)."""
    chain, base = chain_of(design)
    lim = design["limits"]
    limits = JointLimits.from_degrees(
        lim["q_min_deg"], lim["q_max_deg"], lim["qd_max_deg_s"], lim["qdd_max_deg_s2"]
    )
    return design_regressor(chain, base), limits


def design_regressor(chain: PlanarChain, base: BaseParameters) -> RegressorFn:
    """Regressor function for :func:`paramid.excitation.design.design`: stacked Y_b (M·n × r)."""

    def fn(q: Array, qd: Array, qdd: Array, smoothing: float) -> Array:
        Yb = base_regressor(base, chain.lengths, chain.gravity, q, qd, qdd, smoothing)
        return Yb.reshape(-1, base.rank)

    return fn


# --------------------------------------------------------------------------------------------
# Twin and identification
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ChainNoise:
    """Sensors of the chain twin (as the hip twin): torque noise floor and relative torque
    noise, encoder noise."""

    sample_rate_hz: float = 100.0
    torque_noise_relative: float = 0.0
    encoder_noise_rad: float = 1e-5
    coulomb_smoothing_velocity: float = 0.0  # plant friction sgn (0) or tanh(q̇/v_s)
    torque_noise_nm: float = simulation.JOINT_TORQUE_SENSOR_NOISE_NM

    @classmethod
    def from_config(cls, twin: Mapping[str, Any]) -> ChainNoise:
        """From a chain design's ``twin`` block (its other keys, e.g. ``seed``, are ignored)."""
        return cls(
            sample_rate_hz=twin["sample_rate_hz"],
            torque_noise_relative=twin["torque_noise_relative"],
            torque_noise_nm=twin["torque_noise_nm"],
            encoder_noise_rad=twin["encoder_noise_rad"],
            coulomb_smoothing_velocity=twin["coulomb_smoothing_velocity"],
        )


def simulate(
    chain: PlanarChain,
    trajectory: simulation.Evaluable,
    duration_s: float,
    noise: ChainNoise,
    seed: int,
    record: str,
) -> simulation.Record:
    """Sample the chain following ``trajectory.evaluate`` (q, q̇, q̈ of shape (N, n)); the
    record's channels are (N, n).

    Draws from the stream ("chain_twin", seed, record): relative torque noise (N, n), encoder
    noise (N, n), additive torque noise (N, n); T_m = T (1 + σ_r n₁) + σ_a n₃, q_m = q + σ_q n₂.
    """
    n_samples = int(round(duration_s * noise.sample_rate_hz))
    t = np.arange(n_samples) / noise.sample_rate_hz
    q, qd, qdd = (np.asarray(x).reshape(n_samples, chain.n) for x in trajectory.evaluate(t))
    tau = inverse_dynamics(chain, q, qd, qdd, noise.coulomb_smoothing_velocity)
    rng = generator("chain_twin", seed, record)
    torque_noise = rng.standard_normal(tau.shape)
    encoder_noise = rng.standard_normal(q.shape)
    torque_floor = rng.standard_normal(tau.shape)
    return simulation.measure(
        t,
        (q, qd, qdd),
        tau,
        noise.encoder_noise_rad * encoder_noise,
        noise.torque_noise_relative * torque_noise,
        noise.torque_noise_nm * torque_floor,
    )


def identify(
    chain: PlanarChain,
    base: BaseParameters,
    record: simulation.Record,
    *,
    periods: int,
    cutoff_hz: float,
    order: int,
    trim_s: float,
    periodic: bool = True,
) -> tuple[Array, signals.Processed]:
    """Least-squares β̂ from a chain record: average ``periods`` periods, filter,
    differentiate, trim (:func:`paramid.signals.process_averaged`, joints as leading axis),
    then solve Y_b β = τ stacked over samples and joints."""
    proc = signals.process_averaged(
        record.time,
        record.angle.T,
        record.torque.T,
        periods=periods,
        cutoff_hz=cutoff_hz,
        order=order,
        trim_s=trim_s,
        periodic=periodic,
    )
    Yb = base_regressor(base, chain.lengths, chain.gravity, proc.q.T, proc.qd.T, proc.qdd.T)
    A = Yb.reshape(-1, base.rank)
    beta = scipy.linalg.lstsq(A, proc.torque.T.ravel(), lapack_driver="gelsd")[0]
    return beta, proc


def recovery(
    chain: PlanarChain,
    base: BaseParameters,
    trajectory: FourierTrajectory,
    twin: Mapping[str, Any],
    identification: Mapping[str, Any],
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The designed excitation on the chain twin: ``identification["periods"]`` periods
    recorded (``twin`` block: noise and seed, stream ("chain_twin", seed, "calibration")),
    averaged, filtered and differentiated, then least squares on the base regressor
    (:func:`identify`).

    Returns the table (per base parameter: true value, estimate, absolute and relative error,
    its combination of standard parameters) and the summary (relative L2 error, max and
    median relative error, rank, the standard parameters, regression rows).
    """
    record = simulate(
        chain,
        trajectory,
        identification["periods"] * trajectory.period,
        ChainNoise.from_config(twin),
        seed=twin["seed"],
        record="calibration",
    )
    estimate, proc = identify(
        chain,
        base,
        record,
        periods=identification["periods"],
        cutoff_hz=identification["cutoff_hz"],
        order=identification["filter_order"],
        trim_s=identification["trim_s"],
        periodic=identification["periodic_filter"],
    )
    true = base.matrix @ chain.standard_parameters()
    frame = pd.DataFrame(
        {
            "param": list(base.names),
            "true": true,
            "estimate": estimate,
            "abs_error": np.abs(estimate - true),
            "rel_error": np.abs(estimate - true) / np.abs(true),
            "combination": list(base.expressions),
        }
    )
    summary = {
        "relative_l2_error": float(np.linalg.norm(estimate - true) / np.linalg.norm(true)),
        "max_rel_error": float(frame.rel_error.max()),
        "median_rel_error": float(frame.rel_error.median()),
        "rank": base.rank,
        "standard_parameters": standard_names(chain.n),
        "rows": int(proc.q.size),
    }
    return frame, summary
