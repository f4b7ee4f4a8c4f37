"""IPSO: improved PSO, method M2 of the KR210 calibration study (MIPO-ARKEKF paper §3.2).

The calibration paper names the method only by reference ([14] Chen et al., improved PSO)
without its update rules, so the reading here is ours and is stated in the docstring.
"""

from __future__ import annotations

import numpy as np

from paramid.optim import base
from paramid.optim.base import OptimResult, Problem, optimiser
from paramid.optim.particle_swarm import SwarmMemory

__all__ = ["ipso"]


@optimiser(population=100, iterations=60)
def ipso(
    prob: Problem,
    *,
    inertia: tuple[float, float],
    c1: tuple[float, float],
    c2: tuple[float, float],
    velocity_clamp: float,
) -> OptimResult:
    """Improved PSO (M2): global-best PSO with three adaptive schedules (our reading of [14]).

    ``v <- w(t) v + c1(t) r1 (p_i - x_i) + c2(t) r2 (g - x_i)``, ``x <- clip(x + v)``, with
    t = g/G (``optim.base.progress``), a concave inertia ``w = w0 - (w0 - w1) t^2`` (long
    exploration, late exploitation), time-varying acceleration coefficients ``c1`` and ``c2``
    linear from their first to their second value (Ratnaweera et al. 2004, IEEE TEC 8:240) and
    |v| clamped to ``velocity_clamp`` x span.  Zero initial velocity, uniform initial
    positions.  The settings have no default here: the schema's ``ipso`` block holds them
    (w 0.9 -> 0.4, c1 2.5 -> 0.5, c2 0.5 -> 2.5, clamp 0.2).
    """
    runs, dim, n = prob.runs, prob.dim, prob.population
    lo, hi = prob.box(n)
    vmax = np.broadcast_to(velocity_clamp * prob.span, lo.shape).copy()
    vmin = -vmax
    t = base.progress(prob.iterations)
    w = inertia[0] - (inertia[0] - inertia[1]) * t**2
    a1 = c1[0] + (c1[1] - c1[0]) * t
    a2 = c2[0] + (c2[1] - c2[0]) * t

    X = prob.initial()
    V = np.zeros_like(X)
    memory = SwarmMemory(X, prob.evaluate(X), prob.iterations)
    term = np.empty_like(X)
    blocks = base.step_blocks(prob.iterations - 1, 2 * dim * n)
    buffer = base.block_buffer(runs, blocks, (2, dim, n))
    for start, stop in blocks:
        rnd = base.uniform_block(prob.gens, buffer[:, : stop - start])
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
            base.project(X, lo, hi, out=X)
            memory.update(step, X, prob.evaluate(X))
    return memory.result(prob)
