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

import numpy as np
from numpy.typing import NDArray

from paramid.optim import base
from paramid.optim.base import FloatArray, OptimResult, Problem, optimiser


@optimiser()
def ga(
    prob: Problem,
    *,
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
    _check_settings(
        prob.population, tournament, crossover, mutation, mutation_scale, elitism, blend_alpha
    )
    runs, dim, n = prob.runs, prob.dim, prob.population
    budget, n_kids = n * prob.iterations, n - elitism
    pairs = (n_kids + 1) // 2
    n_gens = -(-(budget - n) // n_kids)
    genes = (2, pairs, dim)  # children: (first or second child, pair, dim)
    lo, hi, sigma = _child_bounds(prob, genes, mutation_scale)

    # The GA keeps points as rows, (runs, n, dim), so that one np.take gathers elites and
    # parents; a population is the elites followed by the children.
    pop, nxt = np.empty((runs, n, dim)), np.empty((runs, n, dim))
    pop[...] = prob.initial().transpose(0, 2, 1)
    f, f_nxt = prob.counter(pop), np.empty((runs, n))
    trace = [f.copy()]  # every value, in evaluation order (f is reused as a buffer)
    evals = n
    # Flat offset of each run in f (runs, n) and in the rows of pop.reshape(-1, dim).
    run_start = np.arange(runs)[:, None] * n
    kids = np.empty((runs, *genes))
    draws = _Draws(prob.gens, n_gens, n, elitism, tournament, genes, run_start)
    for start, stop in draws.blocks:
        chosen_rank, blend, jump = draws.block(start, stop, crossover, mutation, blend_alpha)
        jump *= sigma
        for i in range(stop - start):
            # Ranks 0..E-1 are the elites; tournament winners are the lowest of uniform picks.
            order = np.argsort(f, axis=1, kind="stable")
            chosen = np.take(order, chosen_rank[:, i])  # (runs, elitism + 2 pairs)
            picked = np.take(pop.reshape(-1, dim), run_start + chosen, axis=0)
            parents = picked[:, elitism:].reshape(runs, *genes)
            # Symmetric BLX-alpha (u = 0 copies the parent), Gaussian mutation, clip.
            np.multiply(blend[:, i], (parents[:, 1] - parents[:, 0])[:, None], out=kids)
            kids += parents
            kids += jump[:, i]
            base.project(kids, lo, hi, out=kids)
            count = min(n_kids, budget - evals)
            batch = kids.reshape(runs, 2 * pairs, dim)[:, :count]
            kid_f = prob.counter(batch)
            trace.append(kid_f)
            evals += count
            if evals == budget:
                # The best point so far is an elite of pop or one of these children.
                pop = np.concatenate((pop, batch), axis=1)
                f = np.concatenate((f, kid_f), axis=1)
                break
            nxt[:, :elitism] = picked[:, :elitism]
            nxt[:, elitism:] = batch
            f_nxt[:, :elitism] = np.take(f, run_start + chosen[:, :elitism])
            f_nxt[:, elitism:] = kid_f
            pop, nxt, f, f_nxt = nxt, pop, f_nxt, f
    running = np.minimum.accumulate(np.concatenate(trace, axis=1).T, axis=0)
    top = np.argmin(f, axis=1)
    return prob.result(pop[np.arange(runs), top], running[-1], running[n - 1 :: n].T)


def _check_settings(
    population: int,
    tournament: int,
    crossover: float,
    mutation: float,
    mutation_scale: float,
    elitism: int,
    blend_alpha: float,
) -> None:
    """Reject GA settings outside their domains (probabilities in [0, 1], counts >= 1, more
    individuals than elites)."""
    if tournament < 1 or elitism < 1:
        raise ValueError(f"need tournament >= 1 and elitism >= 1, got {tournament}, {elitism}")
    if population < elitism + 1:
        raise ValueError(f"population must be an integer >= {elitism + 1}, got {population}")
    for name, p in (("crossover", crossover), ("mutation", mutation)):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name} probability must be in [0, 1], got {p}")
    if mutation_scale < 0 or blend_alpha < 0:
        raise ValueError("mutation_scale and blend_alpha must be non-negative")


def _child_bounds(
    prob: Problem, genes: tuple[int, int, int], mutation_scale: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The box of every child gene, (runs, 2, pairs, dim), and the mutation sigma per gene."""
    shape = (prob.runs, *genes)
    lo = np.broadcast_to(prob.lower[:, None, None, :, 0], shape).copy()
    hi = np.broadcast_to(prob.upper[:, None, None, :, 0], shape).copy()
    sigma = mutation_scale * prob.span[:, None, None, None, :, 0]
    return lo, hi, np.broadcast_to(sigma, (prob.runs, 1, *genes)).copy()


class _Draws:
    """Per-run random numbers for blocks of generations, drawn in a fixed order and stacked.

    Per run and block: one draw of uniforms laid out as [tournament picks | pair crossover
    uniforms | blend uniforms | mutation uniforms] (each for all generations of the block),
    then N(0, 1) values for the mutated genes only.  Buffers are reused across blocks.
    """

    def __init__(
        self,
        gens: list[np.random.Generator],
        n_gens: int,
        n: int,
        elitism: int,
        tournament: int,
        genes: tuple[int, int, int],
        run_start: NDArray[np.intp],
    ) -> None:
        self.gens, self.n, self.elitism = gens, n, elitism
        self.tournament, self.genes = tournament, genes
        pairs, size = genes[1], int(np.prod(genes))
        self.sizes = np.array([tournament * 2 * pairs, pairs, size, size])
        self.blocks = base.step_blocks(n_gens, int(self.sizes.sum()))
        runs = len(gens)
        self.uniform = base.block_buffer(runs, self.blocks, (int(self.sizes.sum()),))
        self.jump = base.block_buffer(runs, self.blocks, self.genes)
        # Flat indices into the rank order: elites' ranks 0..E-1, then the winners' ranks.
        self.chosen = base.block_buffer(runs, self.blocks, (elitism + 2 * pairs,), dtype=np.intp)
        self.chosen[...] = run_start[:, :, None]
        self.chosen[..., :elitism] += np.arange(elitism)
        self.run_start = run_start[:, :, None]

    def block(
        self, start: int, stop: int, crossover: float, mutation: float, alpha: float
    ) -> tuple[NDArray[np.intp], FloatArray, FloatArray]:
        """Generations [start, stop): flat rank indices (runs, g, elitism + 2 pairs); blend
        factors (runs, g, 2, pairs, dim), u ~ U(-alpha, 1 + alpha) for first and -u for
        second children of crossing pairs, 0 for copied pairs; N(0, 1) mutation steps (same
        shape) on mutated genes, 0 elsewhere.
        """
        runs, length = len(self.gens), stop - start
        flat = self.uniform[:, :length].reshape(runs, -1)
        base.uniform_block(self.gens, flat)
        a, b, c = np.cumsum(self.sizes[:3] * length)
        picks = flat[:, :a].reshape(runs, length, self.tournament, -1)
        keep = np.repeat(flat[:, a:b] < crossover, self.genes[2], axis=1)
        blend = flat[:, b:c].reshape(runs, length, *self.genes)
        mutated = flat[:, c:].reshape(runs, length, *self.genes) < mutation
        # floor(n min(u)) is the best (lowest) rank among uniform picks with replacement.
        ranks = np.minimum.reduce(picks, axis=2)
        ranks *= self.n
        chosen = self.chosen[:, :length]
        np.add(ranks.astype(np.intp), self.run_start, out=chosen[..., self.elitism :])
        blend *= 1.0 + 2.0 * alpha
        blend -= alpha
        blend[:, :, 1] *= -1.0  # second children move from p2 towards p1
        blend *= keep.reshape(runs, length, 1, *self.genes[1:])
        counts = mutated.reshape(runs, -1).sum(axis=1)
        normals = [gen.standard_normal(int(k)) for gen, k in zip(self.gens, counts, strict=True)]
        jump = self.jump[:, :length]
        jump[...] = 0.0
        np.place(jump, mutated, np.concatenate(normals))
        return chosen, blend, jump
