"""Real-coded genetic algorithm with the paper's Table 2 settings, on an exact evaluation budget.

Generation scheme (N = population, E = elitism >= 1, m = N - E children per generation):
the initial population (N evaluations) is iteration 1.  Each generation keeps the E best
members unevaluated (their values are known) and evaluates m new children, so every
evaluation is a new point.  Generations continue until N x iterations evaluations are
spent; the last generation is truncated to the evaluations left.  ``history`` is the
best-so-far value after each multiple of N evaluations, read from the running minimum of
all values in evaluation order, so GA histories share the iteration-equivalent axis of the
other methods.  Elitism keeps the best point in the population, where ``best_x`` is read.

Operators: tournament selection (size 3, with replacement; drawn as ranks, the winner is
the pick of lowest rank in a stable sort of the values, so ties go to the lower index);
BLX-alpha blend crossover (Eshelman & Schaffer 1993, alpha = 0.5) with probability 0.9 per
parent pair, in symmetric form: child 1 = p1 + u1 (p2 - p1), child 2 = p2 + u2 (p1 - p2),
u ~ U(-alpha, 1 + alpha) independently per gene and child (the same law as p1 + u (p2 - p1),
as U(-alpha, 1 + alpha) is symmetric about 1/2); a pair without crossover has u = 0, an
exact copy.  Then Gaussian mutation with probability 0.2 per gene, N(0, (0.05 span)^2),
and projection onto [L, U] (the componentwise clip of Eq 16).  Fitness is Eq 13, as for
every other method.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.optim.base import (
    FloatArray,
    OptimResult,
    Problem,
    block_buffer,
    project,
    step_blocks,
    uniform_block,
)
from paramid.optim.objectives import Objective


def ga(
    objective: Objective,
    lower: ArrayLike,
    upper: ArrayLike,
    *,
    population: int = 30,
    iterations: int = 80,
    seeds: Sequence[np.random.SeedSequence],
    tournament: int = 3,
    crossover: float = 0.9,
    mutation: float = 0.2,
    mutation_scale: float = 0.05,
    elitism: int = 2,
    blend_alpha: float = 0.5,
) -> OptimResult:
    """Minimise ``objective`` (e.g. Eq 13) over [lower, upper]; see the module docstring.

    ``crossover`` is the per-pair BLX probability, ``mutation`` the per-gene probability and
    ``mutation_scale`` the Gaussian sigma as a fraction of the box span.
    """
    if tournament < 1 or elitism < 1:
        raise ValueError(f"need tournament >= 1 and elitism >= 1, got {tournament}, {elitism}")
    for name, p in (("crossover", crossover), ("mutation", mutation)):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name} probability must be in [0, 1], got {p}")
    if mutation_scale < 0 or blend_alpha < 0:
        raise ValueError("mutation_scale and blend_alpha must be non-negative")
    prob = Problem(
        objective,
        lower,
        upper,
        population=population,
        iterations=iterations,
        seeds=seeds,
        min_population=elitism + 1,
    )
    runs, dim, n = prob.runs, prob.dim, prob.population
    budget = n * prob.iterations
    n_kids = n - elitism
    pairs = (n_kids + 1) // 2
    n_gens = -(-(budget - n) // n_kids)
    lo, hi = prob.box(2, pairs)

    # Populations live in the first n columns of (runs, dim, elitism + 2 pairs) buffers: elites
    # first, then the children, written in place (an odd child count leaves one spare column).
    width = elitism + 2 * pairs
    pop, nxt = np.empty((runs, dim, width)), np.empty((runs, dim, width))
    pop[..., :n] = prob.initial()
    f, f_nxt = prob.evaluate(pop[..., :n]), np.empty((runs, n))
    trace = np.empty((budget, runs))  # every value, in evaluation order
    trace[:n] = f.T
    evals = n
    f_start = np.arange(runs)[:, None] * n  # flat offsets of each run in f and in order
    x_start = (np.arange(runs)[:, None, None] * dim + np.arange(dim)[:, None]) * width
    kids = nxt[..., elitism:].reshape(runs, dim, 2, pairs)
    draws = _Draws(prob.gens, n_gens, n, elitism, tournament, dim, pairs, f_start)
    for start, stop in draws.blocks:
        chosen_rank, blend, jump = draws.block(start, stop, crossover, mutation, blend_alpha)
        jump *= mutation_scale * prob.span[:, None, :, :, None]
        for i in range(stop - start):
            # Ranks 0..E-1 are the elites; tournament winners are the lowest of uniform picks.
            order = np.argsort(f, axis=1, kind="stable")
            chosen = np.take(order, chosen_rank[:, i])  # (runs, elitism + 2 pairs)
            picked = np.take(pop, x_start + chosen[:, None, :])  # (runs, dim, elitism + 2 pairs)
            parents = picked[..., elitism:].reshape(runs, dim, 2, pairs)
            # Symmetric BLX-alpha (u = 0 copies the parent), Gaussian mutation, clip.
            np.subtract(parents[:, :, ::-1], parents, out=kids)
            kids *= blend[:, i]
            kids += parents
            kids += jump[:, i]
            project(kids, lo, hi, out=kids)
            count = min(n_kids, budget - evals)
            kid_f = prob.evaluate(nxt[..., elitism : elitism + count])
            trace[evals : evals + count] = kid_f.T
            evals += count
            if evals == budget:
                # The best point so far is an elite of pop or one of these children.
                pop = np.concatenate((pop[..., :n], nxt[..., elitism : elitism + count]), axis=2)
                f = np.concatenate((f, kid_f), axis=1)
                break
            nxt[..., :elitism] = picked[..., :elitism]
            f_nxt[:, :elitism] = np.take(f, f_start + chosen[:, :elitism])
            f_nxt[:, elitism:] = kid_f
            pop, nxt, f, f_nxt = nxt, pop, f_nxt, f
            kids = nxt[..., elitism:].reshape(runs, dim, 2, pairs)
    running = np.minimum.accumulate(trace, axis=0)
    top = np.argmin(f, axis=1)
    best_x = pop[np.arange(runs), :, top]
    return prob.result(best_x, running[-1], running[n - 1 :: n].T)


class _Draws:
    """Per-run random numbers for blocks of generations, drawn in a fixed order and stacked.

    Per run and block, in this order: uniform tournament picks, pair crossover uniforms,
    blend uniforms and mutation uniforms, then N(0, 1) values for the mutated genes only.
    Buffers are allocated once and reused across blocks.
    """

    def __init__(
        self,
        gens: list[np.random.Generator],
        n_gens: int,
        n: int,
        elitism: int,
        tournament: int,
        dim: int,
        pairs: int,
        f_start: NDArray[np.intp],
    ) -> None:
        self.gens, self.n, self.elitism = gens, n, elitism
        genes = (dim, 2, pairs)
        per_gen = 2 * pairs * tournament + pairs + 2 * dim * 2 * pairs
        self.blocks = step_blocks(n_gens, per_gen)
        runs, blocks = len(gens), self.blocks
        self.picks = block_buffer(runs, blocks, (tournament, 2 * pairs))
        self.cross = block_buffer(runs, blocks, (1, 1, pairs))
        self.blend = block_buffer(runs, blocks, genes)
        self.mutate = block_buffer(runs, blocks, genes)
        self.jump = block_buffer(runs, blocks, genes)
        # Flat indices into the rank order: elites' ranks 0..E-1, then the winners' ranks.
        self.chosen = block_buffer(runs, blocks, (elitism + 2 * pairs,), dtype=np.intp)
        self.chosen[...] = f_start[:, :, None]
        self.chosen[..., :elitism] += np.arange(elitism)
        self.f_start = f_start[:, :, None]

    def block(
        self, start: int, stop: int, crossover: float, mutation: float, alpha: float
    ) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
        """Generations [start, stop): flat rank indices (runs, g, elitism + 2 pairs), blend
        factors (runs, g, dim, 2, pairs), U(-alpha, 1 + alpha) on crossing pairs and 0 on
        copied pairs, and N(0, 1) mutation steps (same shape) on mutated genes, 0 elsewhere.
        """
        length = stop - start
        picks = uniform_block(self.gens, self.picks[:, :length], high=float(self.n))
        cross = uniform_block(self.gens, self.cross[:, :length])
        blend = uniform_block(self.gens, self.blend[:, :length], high=1.0 + 2.0 * alpha)
        mutate = uniform_block(self.gens, self.mutate[:, :length])
        # floor(min(n u)) is the best (lowest) rank among uniform picks with replacement.
        ranks = np.minimum.reduce(picks, axis=2).astype(np.intp)
        chosen = self.chosen[:, :length]
        np.add(ranks, self.f_start, out=chosen[..., self.elitism :])
        blend -= alpha
        np.copyto(blend, 0.0, where=cross >= crossover)
        mutated = mutate < mutation
        counts = mutated.reshape(len(self.gens), -1).sum(axis=1)
        normals = [gen.standard_normal(int(k)) for gen, k in zip(self.gens, counts, strict=True)]
        jump = self.jump[:, :length]
        jump[...] = 0.0
        np.place(jump, mutated, np.concatenate(normals))
        return chosen, blend, jump
