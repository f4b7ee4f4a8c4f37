"""What a fit of the nonlinear-friction study returns (hip paper §4.2, §5.1).

A :class:`RunSet` holds all runs of one method on one :class:`Cell` (a fitted hip model on the
true model's records): per-run estimates, training/validation RMSE (Eq 21), evaluation counts,
wall time and an improvement :class:`Trace`, from which :func:`reach` reads the evaluations and
time needed to come within 1 % of the best value.  :class:`Recorder` writes the trace of a
deterministic fitter evaluation by evaluation.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.friction.data import Data, rmse_rows
from paramid.friction.laws import HipModel

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Trace:
    """Best-so-far training RMSE of one run against evaluations and wall time spent.

    Entries are recorded where the best value improves (and at the end), in evaluation order.
    """

    evals: NDArray[np.int64]
    time_ms: Array
    best: Array

    @classmethod
    def from_values(cls, evals: ArrayLike, time_ms: ArrayLike, values: ArrayLike) -> Trace:
        """Compress a raw evaluation log (cumulative evals, time, value) to improvements; a
        failed evaluation (NaN) counts as +inf, never as an improvement."""
        evals = np.asarray(evals, dtype=np.int64)
        time_ms = np.asarray(time_ms, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        best = np.minimum.accumulate(np.where(np.isnan(values), np.inf, values))
        keep = np.ones(best.size, dtype=bool)
        keep[1:] = best[1:] < best[:-1]
        keep[-1] = True
        return cls(evals[keep], time_ms[keep], best[keep])


@dataclass(frozen=True)
class RunSet:
    """All runs of one method on one (true model, fitted model) cell."""

    method: str
    x: Array  # (runs, dim)
    train_rmse: Array  # (runs,)
    val_rmse: Array  # (runs,)
    n_evals: NDArray[np.int64]  # (runs,)
    time_ms: Array  # (runs,) wall time per run
    traces: list[Trace]
    seeded: bool  # False for the deterministic varpro (one run, no seed)


def reach(trace: Trace, target: float) -> tuple[float, float]:
    """Evaluations and time [ms] at which the trace first reaches ``target`` (inf if never)."""
    hit = np.flatnonzero(trace.best <= target)
    if hit.size == 0:
        return float("inf"), float("inf")
    return float(trace.evals[hit[0]]), float(trace.time_ms[hit[0]])


def param_error(x: ArrayLike, truth: ArrayLike) -> Array:
    """Relative RMS parameter error sqrt(mean(((x - x*) / x*)^2)) of each row of x."""
    x = np.asarray(x, dtype=np.float64)
    truth = np.asarray(truth, dtype=np.float64)
    return np.sqrt(np.mean(((x - truth) / truth) ** 2, axis=-1))


@dataclass(frozen=True)
class Cell:
    """One (true model, fitted model) cell: the fitted hip model and the true model's records."""

    hip: HipModel
    cal: Data  # calibration record: the training RMSE (Eq 13)
    val: Data  # validation record: the validation RMSE (Eq 21)

    def run_set(
        self,
        method: str,
        x: Array,
        n_evals: ArrayLike,
        time_ms: ArrayLike,
        traces: Sequence[Trace],
        *,
        seeded: bool,
    ) -> RunSet:
        """The runs ``x`` (runs, dim) of ``method``, scored on both records."""
        return RunSet(
            method,
            x,
            rmse_rows(self.hip, self.cal, x),
            rmse_rows(self.hip, self.val, x),
            np.asarray(n_evals, dtype=np.int64),
            np.asarray(time_ms),
            list(traces),
            seeded=seeded,
        )


class Recorder:
    """Counts model evaluations and logs (cumulative evals, elapsed ms, RMSE) of each."""

    def __init__(self) -> None:
        self.evals = 0
        self.start = time.perf_counter()
        self.log: list[tuple[int, float, float]] = []

    def elapsed_ms(self) -> float:
        """Wall time since the recorder was made [ms]."""
        return 1e3 * (time.perf_counter() - self.start)

    def value(self, residual: Array, weight: int = 1) -> None:
        """One residual evaluation (``weight`` residual-equivalents) and its RMSE."""
        self.evals += weight
        rmse = float(np.sqrt(np.mean(residual * residual)))
        self.log.append((self.evals, self.elapsed_ms(), rmse))

    def batch(self, values: Array, elapsed_ms: float) -> None:
        """A batch of evaluations with RMSEs ``values``, its time spread evenly over them."""
        for i, v in enumerate(values):
            self.evals += 1
            self.log.append((self.evals, elapsed_ms * (i + 1) / values.size, float(v)))

    def cost(self, weight: int) -> None:
        """A Jacobian evaluation: ``weight`` residual-equivalents, no new value."""
        self.evals += weight

    def trace(self) -> Trace:
        """The improvements of the log."""
        evals, times, values = zip(*self.log, strict=True)
        return Trace.from_values(evals, times, values)
