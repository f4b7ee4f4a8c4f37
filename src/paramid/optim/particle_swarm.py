"""Particle swarm optimisation with linearly decreasing inertia (paper Table 2 settings).

Standard PSO and RLS-PSO are this one function; they differ only in the box [L, U] the
caller passes (a wide physical box versus the RLS-derived box of Section 3.1, Eq 7-9).
"""

from __future__ import annotations

import numpy as np

from paramid.optim import base
from paramid.optim.base import OptimResult, Problem, optimiser


class SwarmMemory:
    """Personal bests, the swarm leader and the best-so-far history of a batched swarm.

    Shared by PSO and the calibration swarms (IPSO, DQPSO); positions are (runs, dim, n).
    """

    def __init__(self, X: np.ndarray, f: np.ndarray, iterations: int) -> None:
        self.pbest, self.pbest_f = X.copy(), f.copy()
        self.rows = np.arange(f.shape[0])
        self.history = np.empty((f.shape[0], iterations))
        self._lead(0)

    def _lead(self, column: int) -> None:
        lead = np.argmin(self.pbest_f, axis=1)
        self.gbest = self.pbest[self.rows, :, lead][:, :, None]
        self.history[:, column] = self.pbest_f[self.rows, lead]

    def update(self, step: int, X: np.ndarray, f: np.ndarray) -> None:
        """Replace personal bests on strict improvement and record history column step + 1."""
        better = f < self.pbest_f
        np.copyto(self.pbest_f, f, where=better)
        np.copyto(self.pbest, X, where=better[:, None, :])
        self._lead(step + 1)

    def result(self, prob: Problem) -> OptimResult:
        """The swarm's best position and value per run, with its history."""
        return prob.result(self.gbest[:, :, 0], self.history[:, -1], self.history)


@optimiser()
def pso(
    prob: Problem,
    *,
    inertia: tuple[float, float] = (0.9, 0.4),
    c1: float = 2.0,
    c2: float = 2.0,
    velocity_clamp: float | None = None,
) -> OptimResult:
    """Minimise ``objective`` (e.g. Eq 13) over [lower, upper] with global-best PSO.

    v <- w_g v + c1 r1 (p_i - x_i) + c2 r2 (p_best - x_i),  x <- clip_[L, U](x + v)
    with r1, r2 ~ U(0, 1) per component, zero initial velocity, uniform initial positions,
    w_g = w0 + (w1 - w0) g/G (``inertia`` = (w0, w1), g/G from ``base.progress``), personal
    bests replaced on strict improvement and the swarm best taken after each iteration.
    ``velocity_clamp`` (a fraction of the box span) limits |v| componentwise; off by default.
    """
    if velocity_clamp is not None and not velocity_clamp > 0:
        raise ValueError(f"velocity_clamp must be positive or None, got {velocity_clamp}")
    runs, dim, n = prob.runs, prob.dim, prob.population
    lo, hi = prob.box(n)
    if velocity_clamp is not None:
        vmax = np.broadcast_to(velocity_clamp * prob.span, lo.shape).copy()
        vmin = -vmax
    weights = inertia[0] + (inertia[1] - inertia[0]) * base.progress(prob.iterations)

    X = prob.initial()
    V = np.zeros_like(X)
    memory = SwarmMemory(X, prob.evaluate(X), prob.iterations)

    term = np.empty_like(X)
    blocks = base.step_blocks(prob.iterations - 1, 2 * dim * n)
    c1_r1, c2_r2 = (
        base.block_buffer(runs, blocks, (dim, n)),
        base.block_buffer(runs, blocks, (dim, n)),
    )
    for start, stop in blocks:
        base.uniform_block(prob.gens, c1_r1[:, : stop - start], high=c1)  # c1 r1, r1 ~ U(0, 1)
        base.uniform_block(prob.gens, c2_r2[:, : stop - start], high=c2)
        for i, step in enumerate(range(start, stop)):
            V *= weights[step]
            np.subtract(memory.pbest, X, out=term)
            term *= c1_r1[:, i]
            V += term
            np.subtract(memory.gbest, X, out=term)
            term *= c2_r2[:, i]
            V += term
            if velocity_clamp is not None:
                base.project(V, vmin, vmax, out=V)
            X += V
            base.project(X, lo, hi, out=X)
            memory.update(step, X, prob.evaluate(X))
    return memory.result(prob)
