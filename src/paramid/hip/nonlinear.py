"""The hip twin with other friction laws: the data of the nonlinear-friction study (hip paper
§5.1, §5.3; :mod:`paramid.friction`).

:func:`simulate_variant` runs the hip twin (Eq 18/19) with any friction law as the plant;
:func:`joint_data` gives a processed record as a :class:`paramid.friction.laws.HipModel` needs it
(the rigid-body columns of Eq 6); :func:`linear_prior` is Algorithm 1 steps 1-4 (RLS box,
Eq 7-9; γ, Eq 10; μ(γ), Eq 12) on the Coulomb-viscous regressor of Eq 6; :func:`variant_truth`
and :func:`variant_records` give a variant's truth and its two records with their signal chain.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from paramid import signals, simulation
from paramid.friction.data import Data
from paramid.friction.laws import RIGID_KEYS, RIGID_PARAMS, HipModel
from paramid.hip import model, pipeline, twin
from paramid.rls import SavedPrior

EQ6_KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]  # Eq 6: the RLS prior's regressor
RECORDS = ("calibration", "validation")  # Eq 18, Eq 19


def joint_data(
    q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, torque: ArrayLike, gravity: float
) -> Data:
    """From filtered angle, velocity, acceleration and measured torque (§4.1)."""
    H = model.regressor(list(RIGID_KEYS), q, qd, qdd, gravity)
    return Data(H, np.asarray(qd, np.float64), np.asarray(torque, np.float64))


def joint_data_from_frame(frame: pd.DataFrame, gravity: float) -> Data:
    """From a signals Parquet frame (columns q, qd, qdd, torque)."""
    return joint_data(frame.q, frame.qd, frame.qdd, frame.torque, gravity)


def simulate_variant(
    hip: HipModel,
    truth: ArrayLike,
    trajectory: simulation.Trajectory,
    duration_s: float,
    settings: twin.TwinSettings,
    seed: int,
    record: str,
) -> simulation.Record:
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


def variant_truth(
    hip: HipModel, x_true: Mapping[str, float], friction: Mapping[str, float]
) -> dict[str, float]:
    """The true parameters of a twin variant by name: the hip twin's rigid body (``x_true``:
    Mxt, Myt, Jt) and the friction law's values (``friction``), in ``hip.params`` order."""
    rigid = [x_true[p] for p in RIGID_PARAMS]
    truth = [float(v) for v in (*rigid, *hip.friction.vector(friction))]
    return dict(zip(hip.params, truth, strict=True))


def variant_records(
    hip: HipModel,
    truth: Sequence[float],
    records: Mapping[str, Any],
    settings: twin.TwinSettings,
    seed: int,
    signals_cfg: Mapping[str, Any],
) -> dict[str, tuple[simulation.Record, signals.Processed]]:
    """The calibration and validation records of a twin variant (:func:`simulate_variant` on
    each ``records`` spec: trajectory, duration) and their signal chain (§4.1,
    :func:`paramid.hip.pipeline.process` with ``signals_cfg``)."""
    out = {}
    for record in RECORDS:
        spec = records[record]
        rec = simulate_variant(
            hip,
            truth,
            simulation.Trajectory.from_config(spec["trajectory"]),
            spec["duration_s"],
            settings,
            seed,
            record,
        )
        out[record] = (rec, pipeline.process(rec.time, rec.angle, rec.torque, signals_cfg))
    return out


def linear_prior(
    processed: signals.Processed,
    gravity: float,
    rls_cfg: Mapping,
    agwo_cfg: Mapping,
) -> SavedPrior:
    """Algorithm 1 steps 1-4 on the Coulomb-viscous regressor (Eq 6) of a calibration record,
    by the hip chain's :func:`paramid.hip.pipeline.rls_prior`, as its file holds it."""
    H, y = pipeline.regression(processed, EQ6_KEYS, gravity)
    prior = pipeline.rls_prior(
        H, y, EQ6_KEYS, rls_cfg, signals.sample_rate(processed.time), agwo_cfg
    )
    return prior.saved()
