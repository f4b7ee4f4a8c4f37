"""IPSO (M2) and DQPSO (stage 2 of EKF+DQPSO) in the batched optimiser interface.

Both follow :mod:`paramid.optim`: ``method(objective, lower, upper, *, population,
iterations, seeds, **settings) -> OptimResult``, X passed to the objective as
(runs, population, dim), every candidate clipped to [lower, upper] after each move (Eq 16 of
the hip paper), the initial population is iteration 1 (population x iterations evaluations),
``history[:, k]`` the best-so-far value after k + 1 iterations, and each run draws from its
own generator in blocks independent of the number of runs (run s is bit-identical alone or
batched).

The calibration paper names these methods only by reference ([14] Chen et al., improved
PSO; [15] Quang et al., double quantum-behaved PSO) without their update rules, so the
readings here are ours and are stated in each docstring.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike

from paramid.optim.base import (
    OptimResult,
    Problem,
    block_buffer,
    progress,
    project,
    step_blocks,
    uniform_block,
)
from paramid.optim.objectives import Objective
from paramid.optim.particle_swarm import SwarmMemory

__all__ = ["LOCAL_METHODS", "dqpso", "ipso"]


def ipso(
    objective: Objective,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    population: int = 100,
    iterations: int = 60,
    seeds: Sequence[np.random.SeedSequence],
    inertia: tuple[float, float] = (0.9, 0.4),
    c1: tuple[float, float] = (2.5, 0.5),
    c2: tuple[float, float] = (0.5, 2.5),
    velocity_clamp: float = 0.2,
) -> OptimResult:
    """Improved PSO (M2): global-best PSO with three adaptive schedules (our reading of [14]).

    ``v <- w(t) v + c1(t) r1 (p_i - x_i) + c2(t) r2 (g - x_i)``, ``x <- clip(x + v)``, with
    t = g/G (``optim.base.progress``), a concave inertia ``w = w0 - (w0 - w1) t^2`` (long
    exploration, late exploitation), time-varying acceleration coefficients ``c1: 2.5 -> 0.5``
    and ``c2: 0.5 -> 2.5`` (Ratnaweera et al. 2004, IEEE TEC 8:240) and |v| clamped to
    ``velocity_clamp`` x span.  Zero initial velocity, uniform initial positions.
    """
    prob = Problem(
        objective, lower, upper, population=population, iterations=iterations, seeds=seeds
    )
    runs, dim, n = prob.runs, prob.dim, prob.population
    lo, hi = prob.box(n)
    vmax = np.broadcast_to(velocity_clamp * prob.span, lo.shape).copy()
    vmin = -vmax
    t = progress(prob.iterations)
    w = inertia[0] - (inertia[0] - inertia[1]) * t**2
    a1 = c1[0] + (c1[1] - c1[0]) * t
    a2 = c2[0] + (c2[1] - c2[0]) * t

    X = prob.initial()
    V = np.zeros_like(X)
    memory = SwarmMemory(X, prob.evaluate(X), prob.iterations)
    term = np.empty_like(X)
    blocks = step_blocks(prob.iterations - 1, 2 * dim * n)
    buffer = block_buffer(runs, blocks, (2, dim, n))
    for start, stop in blocks:
        rnd = uniform_block(prob.gens, buffer[:, : stop - start])
        for i, step in enumerate(range(start, stop)):
            V *= w[step]
            np.subtract(memory.pbest, X, out=term)
            term *= rnd[:, i, 0]
            term *= a1[step]
            V += term
            np.subtract(memory.gbest, X, out=term)
            term *= rnd[:, i, 1]
            term *= a2[step]
            V += term
            np.clip(V, vmin, vmax, out=V)
            X += V
            project(X, lo, hi, out=X)
            memory.update(step, X, prob.evaluate(X))
    return memory.result(prob)


def dqpso(
    objective: Objective,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    population: int = 100,
    iterations: int = 30,
    seeds: Sequence[np.random.SeedSequence],
    beta: tuple[float, float] = (1.0, 0.5),
) -> OptimResult:
    """Double quantum-behaved PSO (our reading of [15]): two QPSO sub-swarms sharing g.

    QPSO (Sun, Feng & Xu 2004): each particle's local attractor is
    ``p = phi p_i + (1 - phi) g`` (phi ~ U(0, 1) per component) and its new position
    ``x = p +- b(t) |c - x| ln(1/u)`` (u ~ U(0, 1), sign + when a third uniform < 0.5), with the
    contraction-expansion coefficient ``b`` falling linearly ``1.0 -> 0.5``.  "Double": the
    first half of the population uses the mean personal best ``c = mean_i p_i`` (exploration),
    the second half the global best ``c = g`` (exploitation); both share g, so information
    flows between them every iteration.
    """
    prob = Problem(
        objective,
        lower,
        upper,
        population=population,
        iterations=iterations,
        seeds=seeds,
        min_population=2,
    )
    runs, dim, n = prob.runs, prob.dim, prob.population
    lo, hi = prob.box(n)
    b = beta[0] + (beta[1] - beta[0]) * progress(prob.iterations)
    half = n // 2

    X = prob.initial()
    memory = SwarmMemory(X, prob.evaluate(X), prob.iterations)
    centre = np.empty_like(X)
    blocks = step_blocks(prob.iterations - 1, 3 * dim * n)
    buffer = block_buffer(runs, blocks, (3, dim, n))
    for start, stop in blocks:
        rnd = uniform_block(prob.gens, buffer[:, : stop - start])
        for i, step in enumerate(range(start, stop)):
            phi, u, sign = rnd[:, i, 0], rnd[:, i, 1], rnd[:, i, 2]
            attractor = phi * memory.pbest + (1.0 - phi) * memory.gbest
            centre[..., :half] = memory.pbest.mean(axis=2, keepdims=True)
            centre[..., half:] = memory.gbest
            jump = b[step] * np.abs(centre - X) * -np.log1p(-u)  # ln(1/u'), u' = 1 - u in (0, 1]
            X = attractor + np.where(sign < 0.5, jump, -jump)
            project(X, lo, hi, out=X)
            memory.update(step, X, prob.evaluate(X))
    return memory.result(prob)


#: Calibration-only optimisers, looked up after ``paramid.optim.METHODS``.
LOCAL_METHODS: dict[str, Callable[..., OptimResult]] = {"ipso": ipso, "dqpso": dqpso}
