"""The calibration problem of the KR210 study (paper §2.2-2.4): data, model and Eq 45.

:class:`Problem` holds the laser-tracker positions of the SMR (Eq 1-2, 11) for the training
and validation configurations of one data set and the identified subset x of the extended
parameter vector of :mod:`paramid.calibration.model` (the 24 geometric errors of Eq 6 for
the paper's model; :mod:`paramid.calibration.identifiability` picks the subset); the others
stay at their nominal values.  :func:`metrics` scores a compensated model (Eq 45).

Noise bases (Eq 26-28): C0, S0, R0 = diag(randn) in the paper; a covariance with a negative
diagonal is not a covariance, so we read them as diag(|randn|) (half-normal magnitudes;
positive definite with probability 1), drawn per run from the stream ``(study, "eq28", run)``
and shared by every EKF/UKF variant, so the ablation rows of run r differ only in the method.

Units
    Estimates are reported in rad (alpha, theta) and mm (a, d), positions in mm.  Inside the
    Kalman filters lengths are expressed in ``state_length_unit_mm`` (1 = mm, the unit of
    Table 1; 1000 = m), which fixes what the ranges of Eq 26-27 mean for the length prior
    (:func:`state_scale`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin
from paramid.calibration import model
from paramid.errors import InputError
from paramid.seeding import generator

if TYPE_CHECKING:
    import pandas as pd

FloatArray = NDArray[np.float64]
#: Configurations of a split: an index array or a slice (None = all).
Points = slice | NDArray[np.intp] | Sequence[int] | None

__all__ = [
    "FloatArray",
    "Points",
    "Problem",
    "check_nominal_miss",
    "draw_noise_bases",
    "metrics",
    "noise_bases",
    "split_sizes",
    "state_scale",
    "truth_equivalent",
]


def split_sizes(n: int, train_fraction: float) -> tuple[int, int]:
    """(training, validation) poses of ``n``: round(train_fraction * n) and the rest."""
    n_train = int(round(train_fraction * n))
    return n_train, n - n_train


#: after the best rigid motion between them, the nominal model may miss the measured points by
#: this fraction of the robot's reach (its largest nominal distance from the base) at most: a
#: geometric error as large as a tenth of the arm is no calibration, but lengths in m read
#: as mm, angles in degrees read as radians or another robot's table (a frame offset or
#: rotation, which the base parameters absorb, is aligned away first)
IMPLAUSIBLE_MISS = 0.1


def check_nominal_miss(
    nominal: FloatArray, q: FloatArray, p: FloatArray, tau: FloatArray, split: str
) -> None:
    """Refuse measurements that the nominal model misses by more than :data:`IMPLAUSIBLE_MISS`
    of its reach (median over the poses of ``split``, after the best rigid motion: Kabsch,
    ``scipy.spatial.transform.Rotation.align_vectors`` of the centred points), naming the
    likely unit mistake.  Fewer than three poses fix no rotation: not checked."""
    from scipy.spatial.transform import Rotation

    if q.shape[0] < 3:
        return
    predicted = model.positions(nominal, q, tau)
    measured_c, predicted_c = p - p.mean(axis=0), predicted - predicted.mean(axis=0)
    rotation, _ = Rotation.align_vectors(measured_c, predicted_c)
    miss = float(np.median(np.linalg.norm(measured_c - rotation.apply(predicted_c), axis=1)))
    reach = float(np.linalg.norm(predicted, axis=1).max())
    if not miss <= IMPLAUSIBLE_MISS * reach:
        raise InputError(
            f"the nominal model misses the measured positions of the {split} poses by "
            f"{miss:.4g} mm (median over {q.shape[0]}, after the best rigid motion between "
            f"them), more than {IMPLAUSIBLE_MISS:.0%} of its reach {reach:.4g} mm: positions "
            "in m rather than mm, joint angles in degrees rather than radians, or another "
            "robot's table?"
        )


def metrics(distances: ArrayLike) -> dict[str, FloatArray]:
    """Eq 45 over the last axis of point distances |P_i - P'_i| [mm]: MEAN, RMSE and MAX."""
    d = np.asarray(distances, dtype=np.float64)
    return {
        "mean": d.mean(axis=-1),
        "rmse": np.sqrt(np.mean(d * d, axis=-1)),
        "max": d.max(axis=-1),
    }


@dataclass(frozen=True)
class Problem:
    """Training and validation data of one calibration data set and the parameters to identify.

    ``q_*`` (n, 6) commanded joint angles [rad]; ``p_*`` (n, 3) measured SMR positions in the
    base frame [mm]; ``tau_*`` (n, 6) nominal gravity moments [kN m] (what the compliances
    of :mod:`paramid.calibration.model` multiply); ``nominal`` the extended nominal vector
    (38,) and ``free`` the indices (into it) of the identified parameters: the paper's model
    identifies DH entries only (indices 0-23, Eq 6), the complete model more.
    """

    q_train: FloatArray
    p_train: FloatArray
    q_val: FloatArray
    p_val: FloatArray
    nominal: FloatArray
    free: NDArray[np.int64]
    tau_train: FloatArray
    tau_val: FloatArray

    def __post_init__(self) -> None:
        """Each split's arrays of one length and width, finite, and a nominal model that
        lies near the measurements of both splits (:data:`IMPLAUSIBLE_MISS`: units)."""
        for split, arrays in (("train", ("q", "p", "tau")), ("val", ("q", "p", "tau"))):
            lengths = set()
            for array in arrays:
                name = f"{array}_{split}"
                values = np.asarray(getattr(self, name))
                width = 3 if array == "p" else kin.N_JOINTS
                if values.ndim != 2 or values.shape[1] != width:
                    raise InputError(f"{name} must be (poses, {width}), got {values.shape}")
                if not (finite := np.isfinite(values).all(axis=1)).all():
                    row = int(np.argmin(finite))
                    raise InputError(f"{name} row {row} is not finite: {values[row].tolist()}")
                lengths.add(values.shape[0])
            if len(lengths) > 1:
                raise InputError(f"q_{split}, p_{split} and tau_{split} differ in length")
        check_nominal_miss(self.nominal, self.q_train, self.p_train, self.tau_train, "training")
        check_nominal_miss(self.nominal, self.q_val, self.p_val, self.tau_val, "validation")

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        nominal: ArrayLike,
        tool: ArrayLike,
        free: ArrayLike,
        convention: kin.Convention = "standard",
        *,
        repeat: int = 0,
    ) -> Problem:
        """Build from the twin's frame (:func:`paramid.calibration.twin.simulate`): data set
        ``repeat``, the DH table ``nominal`` (24,) and the nominal tool point (3,)."""
        if convention != "standard":
            raise ValueError("the calibration model is built on standard DH (docs/kr210.md)")
        if "repeat" in frame:
            frame = frame[frame["repeat"] == repeat]
        qcols = [f"q{j}" for j in range(1, kin.N_JOINTS + 1)]
        tcols = [f"tau{j}" for j in range(1, kin.N_JOINTS + 1)]
        parts: dict[str, FloatArray] = {}
        for split, tag in (("train", "train"), ("validation", "val")):
            sub = frame[frame["split"] == split].sort_values("design_order")
            parts[f"q_{tag}"] = sub[qcols].to_numpy(np.float64)
            parts[f"p_{tag}"] = sub[["x", "y", "z"]].to_numpy(np.float64)
            has_tau = all(c in sub for c in tcols)
            parts[f"tau_{tag}"] = (
                sub[tcols].to_numpy(np.float64) if has_tau else np.zeros((len(sub), 6))
            )
        return cls(
            **parts,
            nominal=model.nominal_vector(nominal, tool),
            free=np.asarray(free, dtype=np.int64),
        )

    @property
    def dim(self) -> int:
        """Number of identified parameters r."""
        return int(self.free.size)

    @property
    def kinds(self) -> NDArray[np.str_]:
        """Kind of each identified parameter: ``angle``, ``length`` or ``compliance``."""
        return model.kinds()[self.free]

    @property
    def names(self) -> list[str]:
        """Names of the identified parameters."""
        names = model.parameter_names()
        return [names[i] for i in self.free]

    def data(self, split: str) -> tuple[FloatArray, FloatArray]:
        """(q, p) of ``"train"`` or ``"validation"``."""
        if split == "train":
            return self.q_train, self.p_train
        if split == "validation":
            return self.q_val, self.p_val
        raise ValueError(f"split must be 'train' or 'validation', got {split!r}")

    def _points(self, split: str, points: Points) -> tuple[FloatArray, FloatArray]:
        """(q, tau) of a split, restricted to ``points`` (index array or slice; None = all)."""
        q, _ = self.data(split)
        tau = self.tau_train if split == "train" else self.tau_val
        if points is None:
            return q, tau
        return q[points], tau[points]

    def full(self, x: ArrayLike) -> FloatArray:
        """Extended parameter vectors (..., 38): nominal plus the identified errors ``x``."""
        x = np.asarray(x, dtype=np.float64)
        out = np.broadcast_to(self.nominal, (*x.shape[:-1], model.N_EXTENDED)).copy()
        out[..., self.free] += x
        return out

    def predict(self, x: ArrayLike, split: str, points: Points = None) -> FloatArray:
        """Model positions (..., n, 3) with errors ``x`` (..., r); ``points`` (an index array or
        a slice) selects configurations of the split (default all)."""
        q, tau = self._points(split, points)
        return model.positions(self.full(x)[..., None, :], q, tau)

    def distances(self, x: ArrayLike, split: str) -> FloatArray:
        """Position errors |P_i - P'_i| (..., n) [mm] of the compensated model (Eq 1, 45)."""
        _, p = self.data(split)
        return np.linalg.norm(p - self.predict(x, split), axis=-1)

    def jacobian(
        self, x: ArrayLike, split: str = "train", points: Points = None
    ) -> tuple[FloatArray, FloatArray]:
        """Stacked Jacobian (..., 3n, r) w.r.t. the free parameters and positions (..., 3n);
        ``points`` (an index array or a slice) selects configurations (default all)."""
        q, tau = self._points(split, points)
        J, p = model.jacobian(self.full(x)[..., None, :], q, tau, with_positions=True)
        J = J[..., self.free]
        return J.reshape(*J.shape[:-3], -1, self.dim), p.reshape(*p.shape[:-2], -1)

    def linearised(self) -> tuple[FloatArray, FloatArray]:
        """The error model of Eq 9/11 at the nominal table: H0 (3n, r) and z0 = P - P' (3n,)."""
        H0, p0 = self.jacobian(np.zeros(self.dim))
        return H0, self.p_train.reshape(-1) - p0


def truth_equivalent(problem: Problem, true_positions: ArrayLike) -> FloatArray:
    """The identified-subset vector (r,) that best explains the twin's noise-free positions.

    Least-squares fit of the true position errors P_true - P_nominal (training
    configurations, no tracker noise) by the model linearised at the nominal vector (Eq 9):
    what a perfect identifier of the subset would return.  On a purely geometric twin this
    is the projection of J e onto the identified columns.  Parameter-recovery errors are
    measured from it.
    """
    H0, p0 = problem.jacobian(np.zeros(problem.dim))
    target = np.asarray(true_positions, dtype=np.float64).reshape(-1) - p0
    return np.asarray(np.linalg.lstsq(H0, target, rcond=None)[0], dtype=np.float64)


def draw_noise_bases(
    study: str, run: int, problem: Problem
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """C0, S0 (diagonals, r) and R0 (diagonal, 3n) of Eq 28 read as diag(|randn|).

    Draws randn(24) for C0, randn(24) for S0 and randn(3n) for R0 in that order from the
    stream ``(study, "eq28", run)`` as in Algorithm 2 line 3, then randn(14) each for the
    entries of the complete model (base, beta2, tool, compliance), and keeps the
    identified entries: every model of a run shares the draws of its common parameters.
    """
    rng = generator(study, "eq28", int(run))
    C0 = np.abs(rng.standard_normal(kin.N_PARAMS))
    S0 = np.abs(rng.standard_normal(kin.N_PARAMS))
    R0 = np.abs(rng.standard_normal(3 * problem.q_train.shape[0]))
    extra = model.N_EXTENDED - kin.N_PARAMS
    C0 = np.concatenate([C0, np.abs(rng.standard_normal(extra))])[problem.free]
    S0 = np.concatenate([S0, np.abs(rng.standard_normal(extra))])[problem.free]
    return C0, S0, R0


def state_scale(problem: Problem, length_unit_mm: float) -> FloatArray:
    """Filter state unit per identified parameter, in native units: 1 (rad, rad/(kN m)) or
    ``length_unit_mm`` for lengths."""
    return np.where(problem.kinds == "length", float(length_unit_mm), 1.0)


def noise_bases(
    problem: Problem, study: str, runs: Sequence[int]
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """The Eq 28 draws of several runs stacked: C0, S0 (runs, r) and R0 (runs, 3n).

    C0 and S0 are per unit of the filter state, R0 per mm^2 (the draws are unitless).
    """
    draws = [draw_noise_bases(study, run, problem) for run in runs]
    C0, S0, R0 = (np.stack([d[i] for d in draws]) for i in range(3))
    return C0, S0, R0
