"""Shared machinery: the result type, problem set-up, per-run random blocks and schedules.

Internally a population is stored as (runs, dim, n): each run's block of random numbers and
of positions is contiguous, so the elementwise updates run over long inner loops; objectives
still receive the documented (runs, n, dim) shape, as a transposed view.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.optim.objectives import CountingObjective, FloatArray, Objective

#: Random values drawn per run in one block (64 KiB of float64).  Block lengths depend only on
#: the per-iteration draw size, never on the number of runs, so a run's stream is the same
#: whether it runs alone or batched.
BLOCK_VALUES = 8192


@dataclass(frozen=True)
class OptimResult:
    """Outcome of one batched call; arrays are read-only.

    best_x (runs, dim); best_f (runs,); history (runs, iterations): best-so-far objective
    value after each block of ``population`` evaluations; n_evals (runs,): rows evaluated.
    """

    best_x: FloatArray
    best_f: FloatArray
    history: FloatArray
    n_evals: NDArray[np.int64]

    def __post_init__(self) -> None:
        for name in ("best_x", "best_f", "history", "n_evals"):
            getattr(self, name).flags.writeable = False


def generators(seeds: Sequence[np.random.SeedSequence]) -> list[np.random.Generator]:
    """One SFC64 generator per run (SFC64: about twice PCG64's speed in bulk)."""
    if len(seeds) == 0:
        raise ValueError("need at least one seed (one per run)")
    for seed in seeds:
        if not isinstance(seed, np.random.SeedSequence):
            raise TypeError(
                "seeds must be numpy SeedSequence objects (build them with "
                f"paramid.seeding.seed_sequence), got {type(seed).__name__}"
            )
    return [np.random.Generator(np.random.SFC64(seed)) for seed in seeds]


def uniform_block(
    gens: list[np.random.Generator], out: FloatArray, *, high: float = 1.0, signed: bool = False
) -> FloatArray:
    """Fill ``out`` (runs, ...) with uniforms of 32-bit resolution, run r from ``gens[r]``.

    Each 64-bit output of the run's bit generator gives two 32-bit words (low half first, as
    on every little-endian machine); a word k in 0..2^32-1 becomes k (high 2^-32) in
    [0, high), or with ``signed`` the same word read as j in -2^31..2^31-1 becomes
    j (high 2^-31) in [-high, high).  For high = c this is exactly c times the unit uniform.
    Each ``out[r]`` must be C-contiguous (slice a reused buffer along its second axis only).
    """
    kind, scale = (np.int32, high * 2.0**-31) if signed else (np.uint32, high * 2.0**-32)
    for gen, part in zip(gens, out, strict=True):
        flat = part.reshape(-1)
        words = gen.bit_generator.random_raw((flat.size + 1) // 2).view(kind)[: flat.size]
        np.multiply(words, scale, out=flat)
    return out


@functools.cache
def _block_starts(runs: int, dim: int, n: int) -> NDArray[np.intp]:
    """Flat index of element (r, d, 0) of a C-contiguous (runs, dim, n) array, (runs, dim, 1)."""
    starts = (np.arange(runs * dim, dtype=np.intp) * n).reshape(runs, dim, 1)
    starts.flags.writeable = False
    return starts


def take_columns(X: FloatArray, idx: NDArray[np.intp]) -> FloatArray:
    """Column ``idx[r, j]`` of run r's block for every run r and j: (runs, dim, k) from X
    (runs, dim, n) and idx (runs, k).

    The values of ``np.take_along_axis(X, idx[:, None, :], axis=2)``, gathered with flat
    indices into the contiguous data (several times faster).
    """
    runs, dim, n = X.shape
    flat = _block_starts(runs, dim, n) + idx[:, None, :]
    return np.take(np.ascontiguousarray(X).reshape(-1), flat)


def step_blocks(n_steps: int, values_per_step: int) -> list[tuple[int, int]]:
    """Split steps 0..n_steps-1 into [start, stop) blocks of about BLOCK_VALUES draws per run."""
    length = max(1, BLOCK_VALUES // max(1, values_per_step))
    return [(start, min(start + length, n_steps)) for start in range(0, n_steps, length)]


def block_buffer(
    runs: int, blocks: list[tuple[int, int]], shape: tuple[int, ...], dtype: type = np.float64
) -> np.ndarray:
    """Reusable (runs, longest block, *shape) buffer; ``buf[:, :length]`` keeps runs contiguous."""
    longest = max((stop - start for start, stop in blocks), default=0)
    return np.empty((runs, longest, *shape), dtype=dtype)


def progress(iterations: int) -> FloatArray:
    """Schedule fraction g/G of the update made after iteration g, for g = 1..G-1.

    Iteration 1 evaluates the initial population; the update that follows iteration g
    produces the population evaluated at iteration g+1 and uses t = g/G (the paper's
    Table 1 order: evaluate at g, update a(g) by Eq 11, move the pack).  The last evaluated
    population is made with t = (G-1)/G, so a never reaches 0 (and PSO's inertia never
    reaches exactly 0.4).
    """
    return np.arange(1, iterations, dtype=np.float64) / iterations


class Problem:
    """Validated inputs of one batched call, in the internal (runs, dim, n) layout."""

    def __init__(
        self,
        objective: Objective,
        lower: ArrayLike,
        upper: ArrayLike,
        population: int,
        iterations: int,
        seeds: Sequence[np.random.SeedSequence],
        *,
        min_population: int = 1,
    ) -> None:
        self.gens = generators(seeds)
        self.runs = len(self.gens)
        lo, hi = _bounds(lower, upper, self.runs)
        self.dim = lo.shape[1]
        if int(population) != population or population < min_population:
            raise ValueError(f"population must be an integer >= {min_population}, got {population}")
        if int(iterations) != iterations or iterations < 1:
            raise ValueError(f"iterations must be an integer >= 1, got {iterations}")
        self.population, self.iterations = int(population), int(iterations)
        self.lower = np.array(lo)[:, :, None]  # (runs, dim, 1)
        self.upper = np.array(hi)[:, :, None]
        self.span = self.upper - self.lower
        self.counter = CountingObjective(objective, self.runs)

    def box(self, *tail: int) -> tuple[FloatArray, FloatArray]:
        """Bounds broadcast and materialised to (runs, dim, *tail) for fast projection."""
        shape = (self.runs, self.dim, *tail)
        pad = (slice(None), slice(None)) + (None,) * (len(tail) - 1)
        return (
            np.broadcast_to(self.lower[pad], shape).copy(),
            np.broadcast_to(self.upper[pad], shape).copy(),
        )

    def initial(self) -> FloatArray:
        """Uniform initial population in the box, (runs, dim, population), projected."""
        X = uniform_block(self.gens, np.empty((self.runs, self.dim, self.population)))
        X *= self.span
        X += self.lower
        lo, hi = self.box(self.population)
        return project(X, lo, hi, out=X)

    def evaluate(self, X: FloatArray) -> FloatArray:
        """Counted objective values (runs, n) of X given as (runs, dim, n)."""
        return self.counter(X.transpose(0, 2, 1))

    def result(self, best_x: FloatArray, best_f: FloatArray, history: FloatArray) -> OptimResult:
        """Package best_x (runs, dim), best_f and history with the counted evaluations."""
        return OptimResult(
            best_x=np.array(best_x, dtype=np.float64),
            best_f=np.array(best_f, dtype=np.float64),
            history=np.ascontiguousarray(history),
            n_evals=self.counter.counts,
        )


class Method(Protocol):
    """The interface every optimiser of :data:`paramid.optim.registry.METHODS` offers."""

    def __call__(
        self,
        objective: Objective,
        lower: ArrayLike,
        upper: ArrayLike,
        *,
        population: int = ...,
        iterations: int = ...,
        seeds: Sequence[np.random.SeedSequence],
        **settings: Any,
    ) -> OptimResult: ...


def optimiser(
    *, min_population: int = 1, population: int = 30, iterations: int = 80
) -> Callable[[Callable[..., OptimResult]], Method]:
    """Give a search ``search(prob, **settings)`` the public interface of every method,
    ``method(objective, lower, upper, *, population, iterations, seeds, **settings)``: the
    inputs are validated into one :class:`Problem` (default budget ``population`` x
    ``iterations``, the hip paper's 30 x 80 unless a method states its own)."""

    def wrap(search: Callable[..., OptimResult]) -> Method:
        @functools.wraps(search)
        def method(
            objective: Objective,
            lower: ArrayLike,
            upper: ArrayLike,
            *,
            population: int = population,
            iterations: int = iterations,
            seeds: Sequence[np.random.SeedSequence],
            **settings: Any,
        ) -> OptimResult:
            prob = Problem(
                objective,
                lower,
                upper,
                population,
                iterations,
                seeds,
                min_population=min_population,
            )
            return check_result(prob, search(prob, **settings), search.__name__)

        return method

    return wrap


class ContractError(RuntimeError):
    """An optimiser broke the interface every method keeps (:mod:`paramid.optim`)."""


def check_result(prob: Problem, result: OptimResult, name: str) -> OptimResult:
    """``result`` of the method ``name`` as :mod:`paramid.optim` promises it: shapes (runs,
    dim), (runs,) and (runs, iterations); ``n_evals`` the counted evaluations, exactly the
    budget population x iterations; best_x in the box; best_f the lowest value the objective
    returned and the history's last, which never rises.  A method that breaks it (a user's
    new one) fails here, naming the breach, instead of reaching the tables as a number that
    reads right."""
    runs, dim, iterations = prob.runs, prob.dim, prob.iterations
    shapes = {
        "best_x": (runs, dim),
        "best_f": (runs,),
        "history": (runs, iterations),
        "n_evals": (runs,),
    }
    for field, shape in shapes.items():
        if (got := np.shape(getattr(result, field))) != shape:
            raise ContractError(f"{name}: {field} has shape {got}, not {shape}")
    budget = prob.population * iterations
    counted = prob.counter.counts
    if not np.array_equal(result.n_evals, counted) or np.any(counted != budget):
        raise ContractError(
            f"{name}: evaluated {counted.tolist()} points per run and reports "
            f"{result.n_evals.tolist()}; the budget is population x iterations = {budget}"
        )
    outside = (result.best_x < prob.lower[:, :, 0]) | (result.best_x > prob.upper[:, :, 0])
    if outside.any():
        run, j = np.argwhere(outside)[0]
        raise ContractError(
            f"{name}: run {run}'s best_x[{j}] = {result.best_x[run, j]:.6g} lies outside "
            f"[{prob.lower[run, j, 0]:.6g}, {prob.upper[run, j, 0]:.6g}]"
        )
    lowest = prob.counter.lowest
    wrong = result.best_f != lowest
    rising: NDArray[np.bool_] = np.any(np.diff(result.history, axis=1) > 0, axis=1)
    if (bad := wrong | (result.history[:, -1] != result.best_f) | rising).any():
        run = int(np.argmax(bad))
        raise ContractError(
            f"{name}: run {run}'s best_f = {result.best_f[run]:.10g}, the lowest value its "
            f"objective returned {lowest[run]:.10g}, its history ends at "
            f"{result.history[run, -1]:.10g}" + (" and rises" if rising[run] else "")
        )
    return result


def project(X: FloatArray, lo: FloatArray, hi: FloatArray, out: FloatArray) -> FloatArray:
    """Componentwise projection clip_[L, U] (Eq 16), written to ``out``."""
    np.maximum(X, lo, out=out)
    return np.minimum(out, hi, out=out)


def _bounds(lower: ArrayLike, upper: ArrayLike, runs: int) -> tuple[FloatArray, FloatArray]:
    """Bounds as (runs, dim) arrays; (dim,) inputs are shared by all runs."""
    lo = np.array(lower, dtype=np.float64, ndmin=1)
    hi = np.array(upper, dtype=np.float64, ndmin=1)
    if lo.shape != hi.shape or lo.ndim > 2 or lo.shape[-1] == 0:
        raise ValueError(f"lower/upper must be (dim,) or (runs, dim), got {lo.shape}/{hi.shape}")
    if lo.ndim == 2 and lo.shape[0] != runs:
        raise ValueError(f"bounds have {lo.shape[0]} rows for {runs} seeds")
    if not (np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)) and np.all(lo <= hi)):
        raise ValueError("bounds must be finite with lower <= upper")
    shape = (runs, lo.shape[-1])
    return np.broadcast_to(lo, shape), np.broadcast_to(hi, shape)
