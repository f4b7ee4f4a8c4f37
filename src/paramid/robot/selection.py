"""Choices made from the calibration data alone: the weight of the prior toward the URDF, by
cross-validation over time blocks or records, and the rule that picks it (issue #24).

Folds (:func:`folds`): with two or more calibration records, the prior's weight is chosen by
**leaving one record out**: train on the other records, score the held-out one, the question a
user asks of the model (does it predict a trajectory it was not fitted on?); a joint's Coulomb
law and offset leave records out from three records on (:data:`COLUMN_RECORDS_OUT`).  With
three or more records each held-out record is one score; with two, two scores are too few for a
standard error, so each held-out record is scored in its K time blocks (2K scores of two fits;
the spread over blocks is that of the trajectory's content, not of the training data: a
rougher standard error, stated).  Otherwise every record is cut into K contiguous time blocks
and fold k holds block k of every record out, training on the rest **minus a gap** on each
side of the held-out block (neighbouring samples are correlated through the zero-phase filter
and the drivetrain's oscillation, so without a gap the training data see the test data and
the curve favours too little regularisation; on the Gen3 a 0.2 s gap, two periods of the 10 Hz
cutoff, made the minimum-CV choice as good as the one-standard-error one).

A score is the validation metric on held-out samples: the mean over joints of each joint's
RMSE against the torque as recorded, from the compressions (‖R_j θ − c_j‖² + ρ_j² is the
joint's squared error).  :func:`choose` applies the rule: ``one_se`` the most regularised
weight whose mean score is within one standard error of the lowest (Hastie, Tibshirani &
Friedman, ESL §7.10), ``min`` the lowest.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from paramid.robot.compression import HEAD, TAIL, Compressed, _split, fold, joint_rmse

Array = NDArray[np.float64]
RULES = ("one_se", "min")
WHOLE_RECORDS = 3  # held-out records from which each scores as a whole
#: records from which a choice leaves records out: the prior's weight (one number, and the
#: prior keeps a fit on one record sane on another) from two; a joint's Coulomb law or offset
#: (columns one short record may not identify alone: the Gen3's 5 s quadratic record, trained
#: on by itself, predicted opti_traj_testing1 at 12 N m on joint 2 with an offset) from three
WEIGHT_RECORDS_OUT = 2
COLUMN_RECORDS_OUT = 3


@dataclass(frozen=True)
class Fold:
    """Segments (:class:`Compressed`) trained on, and those of each held-out score."""

    train: NDArray[np.bool_]
    tests: tuple[NDArray[np.bool_], ...]


def folds(data: Compressed, records_out: int = WEIGHT_RECORDS_OUT) -> list[Fold]:
    """The folds of the module docstring, leaving records out from ``records_out`` records
    on (time blocks below)."""
    records = np.unique(data.record)
    if records.size >= max(records_out, WHOLE_RECORDS):
        return [Fold(data.record != r, (data.record == r,)) for r in records]
    if records.size == 2 and records_out <= 2:
        blocks = np.unique(data.fold)
        return [
            Fold(data.record != r, tuple((data.record == r) & (data.fold == k) for k in blocks))
            for r in records
        ]
    out = []
    for k in np.unique(data.fold):
        test = data.fold == k
        gap = ((data.fold == k - 1) & (data.role == TAIL)) | (
            (data.fold == k + 1) & (data.role == HEAD)
        )
        out.append(Fold(~test & ~gap, (test,)))
    return out


def scheme(data: Compressed, records_out: int = WEIGHT_RECORDS_OUT) -> str:
    """The folds of :func:`folds` in words, for the tables."""
    records, blocks = np.unique(data.record).size, np.unique(data.fold).size
    if records >= max(records_out, WHOLE_RECORDS):
        return f"leave one of {records} records out"
    if records == 2 and records_out <= 2:
        return f"leave one of 2 records out, scored in {blocks} blocks"
    return f"{blocks} time blocks"


#: one held-out score's compressed data: R (n, p, p), c (n, p), ρ² (n,) and its samples
HeldOut = tuple[Array, Array, Array, int]


def held_out_data(data: Compressed, fold: Fold) -> list[HeldOut]:
    """The fold's held-out scores' compressed data, merged per joint once (for any θ)."""
    return [(*data.joint(test), int(data.samples[test].sum())) for test in fold.tests]


def scores_of(held_out: Sequence[HeldOut], theta: Array) -> Array:
    """(len(held_out), n) each joint's RMSE of θ on each of :func:`held_out_data`'s scores."""
    return np.array([joint_rmse(R, c, rho2, samples, theta) for R, c, rho2, samples in held_out])


def held_out_scores(data: Compressed, fold: Fold, theta: Array) -> Array:
    """(len(fold.tests), n) each joint's RMSE of θ on each of the fold's held-out scores."""
    return scores_of(held_out_data(data, fold), theta)


def joint_noise(
    R: Array, c: Array, rho2: Array, samples: int, independent: Sequence[int] | NDArray[np.intp]
) -> Array:
    """σ̂_j (n,): each joint's residual standard deviation of the least-squares fit on the base
    columns (the levels WLS weighs the joints by)."""
    columns = np.asarray(independent, dtype=np.intp)
    A = R[:, :, columns].reshape(-1, columns.size)
    beta = np.linalg.lstsq(A, c.reshape(-1), rcond=None)[0]
    residual = np.sum((R[:, :, columns] @ beta - c) ** 2, axis=1) + rho2
    dof = max(samples - columns.size / R.shape[0], 1.0)
    scale = joint_rmse(R, c, rho2, samples, np.zeros(R.shape[-1]))  # RMS torque: floor for σ̂
    return np.maximum(np.sqrt(residual / dof), 1e-6 * np.maximum(scale, 1e-12))


def weighted(R: Array, c: Array, weights: Array) -> tuple[Array, Array]:
    """(R_w (p, p), c_w (p,)) of every joint's rows scaled by its weight, folded into one:
    Σ_j w_j² ‖R_j θ − c_j‖² = ‖R_w θ − c_w‖² + constant."""
    p = R.shape[-1]
    rows = np.concatenate(
        [np.column_stack([w * Rj, w * cj]) for Rj, cj, w in zip(R, c, weights, strict=True)]
    )
    R_w, c_w, _ = _split(fold(np.zeros((0, p + 1)), rows), p)
    return R_w, c_w


@dataclass(frozen=True)
class Curve:
    """The cross-validation curve of a weight grid: per weight, fold and joint the held-out
    RMSE; the rule and its choice (:func:`choose`); the solver's status of every solve."""

    weights: Array  # (W,) ascending
    scores: Array  # (W, S, n) [N m]: S held-out scores (:func:`folds`)
    rule: str
    statuses: tuple[str, ...]
    folds: str  # :func:`scheme`

    @property
    def chosen(self) -> int:
        """Index into ``weights`` of the rule's choice."""
        return choose(self.mean, self.se, self.rule)[0]

    @property
    def lowest(self) -> int:
        """Index of the lowest mean score."""
        return choose(self.mean, self.se, self.rule)[1]

    @property
    def mean(self) -> Array:
        """(W,) mean over the held-out scores of each score's mean over joints; NaN for a
        weight whose solve failed on any fold (a mean over the folds that solved would be
        that of an easier subset)."""
        return self.scores.mean(axis=2).mean(axis=1)

    @property
    def se(self) -> Array:
        """(W,) standard error of that mean over the held-out scores (NaN where it is)."""
        fold_scores = self.scores.mean(axis=2)
        return fold_scores.std(axis=1, ddof=1) / np.sqrt(fold_scores.shape[1])

    @property
    def weight(self) -> float:
        return float(self.weights[self.chosen])

    @property
    def strongest(self) -> int:
        """Index of the strongest weight solved on every fold."""
        return int(np.flatnonzero(np.isfinite(self.mean))[-1])

    @property
    def climb_se(self) -> float:
        """How far the score of the strongest weight solved on every fold lies above the
        lowest, in standard errors of the lowest: near 0 when the URDF agrees with the
        records, large when pulling every link toward it costs prediction (a load it lacks,
        wrong constants)."""
        mean, se = self.mean, self.se
        rise = mean[self.strongest] - mean[self.lowest]
        if se[self.lowest] > 0:
            return float(rise / se[self.lowest])
        return np.inf if rise > 0 else 0.0


def choose(mean: Array, se: Array, rule: str) -> tuple[int, int]:
    """(chosen, lowest) indices of a curve over ascending weights (module docstring); weights
    whose solve failed on any fold (NaN) are never chosen."""
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; known: {RULES}")
    if np.all(np.isnan(mean)):
        raise ValueError("no weight of the grid could be solved on every fold")
    lowest = int(np.nanargmin(mean))
    if rule == "min":
        return lowest, lowest
    bound = mean[lowest] + (se[lowest] if np.isfinite(se[lowest]) else 0.0)
    within = np.flatnonzero(np.where(np.isnan(mean), np.inf, mean) <= bound)
    return int(within.max()), lowest
