"""DQPSO: double quantum-behaved PSO, stage 2 of the EKF+DQPSO hybrid (MIPO-ARKEKF paper §3.2).

The calibration paper names the method only by reference ([15] Quang et al., double
quantum-behaved PSO) without its update rules, so the reading here is ours and is stated in
the docstring.
"""

from __future__ import annotations

import numpy as np

from paramid.optim import base
from paramid.optim.base import OptimResult, Problem, optimiser
from paramid.optim.particle_swarm import SwarmMemory

__all__ = ["dqpso"]


@optimiser(min_population=2, population=100, iterations=30)
def dqpso(
    prob: Problem,
    *,
    beta: tuple[float, float],
) -> OptimResult:
    """Double quantum-behaved PSO (our reading of [15]): two QPSO sub-swarms sharing g.

    QPSO (Sun, Feng & Xu 2004): each particle's local attractor is
    ``p = phi p_i + (1 - phi) g`` (phi ~ U(0, 1) per component) and its new position
    ``x = p +- b(t) |c - x| ln(1/u)`` (u ~ U(0, 1), sign + when a third uniform < 0.5), with the
    contraction-expansion coefficient ``b`` linear from ``beta[0]`` to ``beta[1]`` (the
    schema's ``dqpso`` block: 1.0 -> 0.5, no default here).  "Double": the
    first half of the population uses the mean personal best ``c = mean_i p_i`` (exploration),
    the second half the global best ``c = g`` (exploitation); both share g, so information
    flows between them every iteration.
    """
    runs, dim, n = prob.runs, prob.dim, prob.population
    lo, hi = prob.box(n)
    b = beta[0] + (beta[1] - beta[0]) * base.progress(prob.iterations)
    half = n // 2

    X = prob.initial()
    memory = SwarmMemory(X, prob.evaluate(X), prob.iterations)
    centre = np.empty_like(X)
    blocks = base.step_blocks(prob.iterations - 1, 3 * dim * n)
    buffer = base.block_buffer(runs, blocks, (3, dim, n))
    for start, stop in blocks:
        rnd = base.uniform_block(prob.gens, buffer[:, : stop - start])
        for i, step in enumerate(range(start, stop)):
            phi, u, sign = rnd[:, i, 0], rnd[:, i, 1], rnd[:, i, 2]
            attractor = phi * memory.pbest + (1.0 - phi) * memory.gbest
            centre[..., :half] = memory.pbest.mean(axis=2, keepdims=True)
            centre[..., half:] = memory.gbest
            jump = b[step] * np.abs(centre - X) * -np.log1p(-u)  # ln(1/u'), u' = 1 - u in (0, 1]
            X = attractor + np.where(sign < 0.5, jump, -jump)
            base.project(X, lo, hi, out=X)
            memory.update(step, X, prob.evaluate(X))
    return memory.result(prob)
