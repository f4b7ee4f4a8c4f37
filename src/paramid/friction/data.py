"""Data of the nonlinear-friction study: records, the direct objective, twin variants and the
RLS prior (hip paper §3.1, §4.1).

:class:`Data` holds one processed record as a :class:`paramid.friction.laws.HipModel` needs it;
:func:`rmse_rows` is the torque RMSE of Eq 13/21 on the *direct* residual path (no Gram matrix
exists for a nonlinear model).  :func:`simulate_variant` runs the hip twin (Eq 18/19) with any
friction law as the plant; :func:`linear_prior` is Algorithm 1 steps 1-4 (RLS box, Eq 7-9;
γ, Eq 10; μ(γ), Eq 12) on the Coulomb-viscous regressor, and :func:`search_box` the box each
fitting method searches.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.friction.laws import RIGID_KEYS, RIGID_PARAMS, HipModel
from paramid.hip import model, pipeline, population, signals, twin
from paramid.optim import RowwiseObjective

Array = NDArray[np.float64]

EQ6_KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]  # Eq 6: the RLS prior's regressor


@dataclass(frozen=True)
class Data:
    """One processed record as a hip model needs it: H_rb (K, 3), q̇ (K,), torque (K,)."""

    H_rb: Array
    qd: Array
    y: Array

    @classmethod
    def from_signals(
        cls, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, torque: ArrayLike, gravity: float
    ) -> Data:
        """From filtered angle, velocity, acceleration and measured torque (§4.1)."""
        H = model.regressor(list(RIGID_KEYS), q, qd, qdd, gravity)
        return cls(H, np.asarray(qd, np.float64), np.asarray(torque, np.float64))

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, gravity: float) -> Data:
        """From a signals Parquet frame (columns q, qd, qdd, torque)."""
        return cls.from_signals(frame.q, frame.qd, frame.qdd, frame.torque, gravity)


def rmse_rows(hip: HipModel, data: Data, X: ArrayLike) -> Array:
    """Torque RMSE (Eq 13/21) of each parameter row of X (..., dim): direct residual path.

    Elementwise operations and a row reduction only (no BLAS), so a row's value does not
    depend on the other rows in the batch.
    """
    residual = data.y - hip.torque(data.H_rb, data.qd, X)
    return np.sqrt(np.mean(residual * residual, axis=-1))


def objective(hip: HipModel, data: Data) -> RowwiseObjective:
    """Batched objective f(X (runs, pop, dim)) -> (runs, pop) for :mod:`paramid.optim`."""
    return RowwiseObjective(lambda rows: rmse_rows(hip, data, rows))


def simulate_variant(
    hip: HipModel,
    truth: ArrayLike,
    trajectory: twin.Trajectory,
    duration_s: float,
    settings: twin.TwinSettings,
    seed: int,
    record: str,
) -> twin.Record:
    """A twin record (Eq 18/19) whose plant friction is ``hip.friction`` at ``truth``.

    ``truth`` is the full vector [Mxt, Myt, Jt, *friction params]; the rigid body and the
    noise model are the hip twin's (``settings``), the stream is ("twin", seed, record).
    """
    truth = np.asarray(truth, dtype=np.float64)
    if truth.shape != (hip.dim,):
        raise ValueError(f"truth must have {hip.dim} values {hip.params}, got {truth.shape}")
    rigid = truth[: hip.n_rigid]
    x = (*rigid.tolist(), 0.0, 0.0)  # fc, fv of Eq 2 are unused when friction is given
    plant = dataclasses.replace(settings, x_true=x)
    return twin.simulate(
        trajectory,
        duration_s,
        plant,
        seed,
        record,
        friction=hip.friction.callable(truth[hip.n_rigid :]),
    )


@dataclass(frozen=True)
class LinearPrior:
    """RLS box of the Eq 6 model (§3.1), γ (Eq 10) and μ(γ) (Eq 12)."""

    names: list[str]  # Eq 5 order: Mxt, Myt, Jt, fc, fv
    lower: Array
    upper: Array
    rls_mean: Array
    gamma: float
    mu: float
    notes: list[str]

    def rigid(self) -> tuple[Array, Array]:
        """Bounds of the rigid-body parameters (Mxt, Myt, Jt)."""
        idx = [self.names.index(p) for p in RIGID_PARAMS]
        return self.lower[idx], self.upper[idx]

    def to_json(self) -> dict[str, Any]:
        """The prior as the fields of ``rls/<truth>.json`` (rigid-body bounds spelled out)."""
        lower, upper = self.rigid()
        return {
            "params": self.names,
            "lower": self.lower.tolist(),
            "upper": self.upper.tolist(),
            "rls_mean": self.rls_mean.tolist(),
            "rigid_params": list(RIGID_PARAMS),
            "rigid_lower": lower.tolist(),
            "rigid_upper": upper.tolist(),
            "gamma": self.gamma,
            "mu": self.mu,
            "notes": self.notes,
        }

    @classmethod
    def from_json(cls, saved: Mapping[str, Any]) -> LinearPrior:
        """The prior written by :meth:`to_json` (other fields of the file are ignored)."""
        return cls(
            saved["params"],
            np.asarray(saved["lower"]),
            np.asarray(saved["upper"]),
            np.asarray(saved["rls_mean"]),
            saved["gamma"],
            saved["mu"],
            saved["notes"],
        )


def linear_prior(
    processed: signals.Processed,
    gravity: float,
    rls_cfg: Mapping,
    agwo_cfg: Mapping,
) -> LinearPrior:
    """Algorithm 1 steps 1-4 on the Coulomb-viscous regressor (Eq 6) of a calibration record,
    by the hip chain's :func:`paramid.hip.pipeline.rls_prior`."""
    H, y = pipeline.regression(processed, EQ6_KEYS, gravity)
    prior = pipeline.rls_prior(
        H, y, EQ6_KEYS, rls_cfg, signals.sample_rate(processed.time), agwo_cfg
    )
    return LinearPrior(
        prior.names,
        prior.lower,
        prior.upper,
        prior.rls_mean,
        float(prior.gamma),
        float(prior.mu),
        prior.notes,
    )


def search_box(
    hip: HipModel,
    method: str,
    rigid_lower: ArrayLike,
    rigid_upper: ArrayLike,
    friction_bounds: Mapping[str, Sequence[float]] | None,
    standard: Mapping[str, float],
) -> tuple[Array, Array]:
    """The box a method searches: rigid body from RLS (or the standard box for PSO), friction
    parameters from their configured physical bounds (every method; the model needs them)."""
    fb = hip.friction.bounds_array(friction_bounds)
    if method in population.POPULATION_METHODS:
        rl, ru = population.search_box(method, hip.n_rigid, rigid_lower, rigid_upper, standard)
    else:  # the deterministic baselines search the RLS box
        rl, ru = np.asarray(rigid_lower, float), np.asarray(rigid_upper, float)
    return np.concatenate([rl, fb[:, 0]]), np.concatenate([ru, fb[:, 1]])
