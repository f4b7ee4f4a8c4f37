"""CEC 2022 single-objective bound-constrained benchmark suite (F1-F12, D = 10 and 20).

Reference: A. Kumar, K. V. Price, A. W. Mohamed, A. A. Hadi, P. N. Suganthan, "Problem
Definitions and Evaluation Criteria for the CEC 2022 Special Session and Competition on
Single Objective Bound Constrained Numerical Optimization", Technical Report, Nanyang
Technological University, Singapore, 2021 (below: "TR"), and the organisers' reference
implementation ``cec22_test_func.cpp`` (public repository ``P-N-Suganthan/2022-SO-BO``).

The functions reproduce the organisers' C code (relative error < 1e-9 on the 504 official
test vectors, observed < 2e-14), *including* its deviations from the TR text:

* F3 (shifted and rotated expanded Schaffer f7): the C code evaluates the pairs on the
  shifted point before rotation, so the rotation matrix has no effect.
* F4 (shifted and rotated non-continuous Rastrigin): the C code's rounding step acts on a
  buffer that is overwritten before use, so F4 equals shifted and rotated Rastrigin.
* F7 (hybrid function 2): its last component, Schaffer f7, reads the *first* ``n_6``
  entries of the shuffled vector instead of its own block (global-buffer aliasing in C).
* Names follow TR Table I, which calls F3 "Expanded Schaffer's f6" (the C code evaluates
  Schaffer's f7) and lists F10 with N = 4 components (the C code has 3: Schwefel, Rastrigin,
  HGBat).

Every evaluation is vectorised over a batch: ``X`` has shape ``(..., D)`` and the result has
shape ``X.shape[:-1]``; each point's value is bitwise independent of the batch it is
evaluated in (checked by the tests).  Batches larger than ``_CHUNK`` points are processed in
chunks.  The numerical kernels are in ``paramid.cec2022.kernels``, the basic functions in
``paramid.cec2022.basic`` and the organisers' data files are read by ``paramid.cec2022.data``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from paramid.cec2022.basic import (
    BasicFunction,
    ackley,
    bent_cigar,
    discus,
    ellips,
    escaffer6,
    grie_rosen,
    griewank,
    happycat,
    hgbat,
    katsuura,
    levy,
    rastrigin,
    rosenbrock,
    schaffer_f7,
    schwefel,
    zakharov,
)
from paramid.cec2022.data import check_problem, load_data
from paramid.cec2022.kernels import (
    PAD,
    Arena,
    FloatArray,
    rotate,
    sum_over_coords,
    sumsq_over_coords,
    thread_arena,
)

#: F_i* = F_i(o_i): the bias added to each function (TR, Table I).
BIASES: dict[int, float] = {
    1: 300.0,
    2: 400.0,
    3: 600.0,
    4: 800.0,
    5: 900.0,
    6: 1800.0,
    7: 2000.0,
    8: 2200.0,
    9: 2300.0,
    10: 2400.0,
    11: 2600.0,
    12: 2700.0,
}

#: Names as in TR, Table I.
FUNCTION_NAMES: dict[int, str] = {
    1: "Shifted and full Rotated Zakharov Function",
    2: "Shifted and full Rotated Rosenbrock's Function",
    3: "Shifted and full Rotated Expanded Schaffer's f6 Function",
    4: "Shifted and full Rotated Non-Continuous Rastrigin's Function",
    5: "Shifted and full Rotated Levy Function",
    6: "Hybrid Function 1 (N = 3)",
    7: "Hybrid Function 2 (N = 6)",
    8: "Hybrid Function 3 (N = 5)",
    9: "Composition Function 1 (N = 5)",
    10: "Composition Function 2 (N = 4)",
    11: "Composition Function 3 (N = 5)",
    12: "Composition Function 4 (N = 6)",
}

_LOWER, _UPPER = -100.0, 100.0
_INF = 1.0e99  # the C code's INF: weight of a composition component hit exactly

# Shrink rates of sr_func, written as in the C code so that the doubles are identical.
_RATE_ROSENBROCK = 2.048 / 100.0
_RATE_RASTRIGIN = 5.12 / 100.0
_RATE_SCHWEFEL = 1000.0 / 100.0
_RATE_GRIEWANK = 600.0 / 100.0
_RATE_HG = 5.0 / 100.0  # HGBat, HappyCat, Katsuura, Griewank-Rosenbrock

# Points per evaluation pass: bounds the scratch memory (about 30 arrays of D x _CHUNK doubles
# per thread) while keeping NumPy call overhead small.
_CHUNK = 4096


def _hybrid_sizes(dim: int, fractions: tuple[float, ...]) -> list[int]:
    """Block sizes n_i = ceil(p_i D) for all but the last block, which takes the rest."""
    sizes = [math.ceil(p * dim) for p in fractions[:-1]]
    sizes.append(dim - sum(sizes))
    return sizes


# Hybrid functions (TR, hybrid function definitions): fractions p_i and (function, shrink rate).
_HYBRIDS: dict[int, tuple[tuple[float, ...], list[tuple[BasicFunction, float]]]] = {
    6: (
        (0.4, 0.4, 0.2),
        [(bent_cigar, 1.0), (hgbat, _RATE_HG), (rastrigin, _RATE_RASTRIGIN)],
    ),
    7: (
        (0.1, 0.2, 0.2, 0.2, 0.1, 0.2),
        [
            (hgbat, _RATE_HG),
            (katsuura, _RATE_HG),
            (ackley, 1.0),
            (rastrigin, _RATE_RASTRIGIN),
            (schwefel, _RATE_SCHWEFEL),
            (schaffer_f7, 1.0),  # reads the first n_6 shuffled entries, see module docstring
        ],
    ),
    8: (
        (0.3, 0.2, 0.2, 0.1, 0.2),
        [
            (katsuura, _RATE_HG),
            (happycat, _RATE_HG),
            (grie_rosen, _RATE_HG),
            (schwefel, _RATE_SCHWEFEL),
            (ackley, 1.0),
        ],
    ),
}


@dataclass(frozen=True)
class _Component:
    """One composition component: value ``num * g(z) / den`` (in this order, as in C)."""

    fn: BasicFunction
    rate: float
    rotate: bool = True
    num: float = 1.0
    den: float = 1.0


# Composition functions (TR, composition function definitions): sigma_k, bias_k, components.
_COMPOSITIONS: dict[int, tuple[tuple[float, ...], tuple[float, ...], list[_Component]]] = {
    9: (
        (10.0, 20.0, 30.0, 40.0, 50.0),
        (0.0, 200.0, 300.0, 100.0, 400.0),
        [
            _Component(rosenbrock, _RATE_ROSENBROCK, num=10000.0, den=1e4),
            _Component(ellips, 1.0, num=10000.0, den=1e10),
            _Component(bent_cigar, 1.0, num=10000.0, den=1e30),
            _Component(discus, 1.0, num=10000.0, den=1e10),
            _Component(ellips, 1.0, rotate=False, num=10000.0, den=1e10),
        ],
    ),
    10: (
        (20.0, 10.0, 10.0),
        (0.0, 200.0, 100.0),
        [
            _Component(schwefel, _RATE_SCHWEFEL, rotate=False),
            _Component(rastrigin, _RATE_RASTRIGIN),
            _Component(hgbat, _RATE_HG),
        ],
    ),
    11: (
        (20.0, 20.0, 30.0, 30.0, 20.0),
        (0.0, 200.0, 300.0, 400.0, 200.0),
        [
            _Component(escaffer6, 1.0, num=10000.0, den=2e7),
            _Component(schwefel, _RATE_SCHWEFEL),
            _Component(griewank, _RATE_GRIEWANK, num=1000.0, den=100.0),
            _Component(rosenbrock, _RATE_ROSENBROCK),
            _Component(rastrigin, _RATE_RASTRIGIN, num=10000.0, den=1e3),
        ],
    ),
    12: (
        (10.0, 20.0, 30.0, 40.0, 50.0, 60.0),
        (0.0, 300.0, 500.0, 100.0, 400.0, 200.0),
        [
            _Component(hgbat, _RATE_HG, num=10000.0, den=1000.0),
            _Component(rastrigin, _RATE_RASTRIGIN, num=10000.0, den=1e3),
            _Component(schwefel, _RATE_SCHWEFEL, num=10000.0, den=4e3),
            _Component(bent_cigar, 1.0, num=10000.0, den=1e30),
            _Component(ellips, 1.0, num=10000.0, den=1e10),
            _Component(escaffer6, 1.0, num=10000.0, den=2e7),
        ],
    ),
}

# Simple functions F1-F5: (basic function, shrink rate).
_SIMPLE: dict[int, tuple[BasicFunction, float]] = {
    1: (zakharov, 1.0),
    2: (rosenbrock, _RATE_ROSENBROCK),
    3: (schaffer_f7, 1.0),  # on the unrotated shifted point, see module docstring
    4: (rastrigin, _RATE_RASTRIGIN),  # the rounding step is dead code in the C reference
    5: (levy, 1.0),
}


class CEC2022:
    """One CEC 2022 benchmark function ``F_i: [-100, 100]^D -> R``, vectorised over batches.

    Args:
        function: function number 1..12 (TR, Table I).
        dim: dimension, 10 or 20 (the dimensions of the CEC 2022 competition).

    Attributes:
        function, dim, name: identification (``name`` as in TR, Table I).
        optimum_value: the bias ``F_i*`` = global minimum value.
        bounds: ``(D, 2)`` array of (lower, upper) = (-100, 100) rows, usable as SciPy bounds;
            ``lower`` and ``upper`` are the ``(D,)`` columns.

    Raises:
        ValueError: if ``function`` is not an int in 1..12 or ``dim`` not in (10, 20).

    Example:
        >>> f = CEC2022(1, 10)
        >>> float(f(f.optimum_x))
        300.0
        >>> f(np.zeros((30, 100, 10))).shape
        (30, 100)
    """

    def __init__(self, function: int, dim: int) -> None:
        check_problem(function, dim)
        self.function: int = int(function)
        self.dim: int = int(dim)
        self._data = load_data(self.function, self.dim)
        self.name: str = FUNCTION_NAMES[self.function]
        self.optimum_value: float = BIASES[self.function]
        lower = np.full(self.dim, _LOWER)
        upper = np.full(self.dim, _UPPER)
        bounds = np.stack([lower, upper], axis=1)
        for arr in (lower, upper, bounds):
            arr.flags.writeable = False
        self.lower: FloatArray = lower
        self.upper: FloatArray = upper
        self.bounds: FloatArray = bounds
        self._blocks: list[tuple[BasicFunction, float, slice]] = []
        if self.function in _HYBRIDS:
            fractions, parts = _HYBRIDS[self.function]
            start = 0
            for (fn, rate), size in zip(parts, _hybrid_sizes(self.dim, fractions), strict=True):
                self._blocks.append((fn, rate, slice(start, start + size)))
                start += size
        # shift vectors as (D, 1) columns for the coordinate-major layout
        self._shift_cols = [o[:, None] for o in self._data.shifts]

    @property
    def optimum_x(self) -> FloatArray:
        """Global minimiser (the shift vector ``o``; for F9-F12 that of component 1), ``(D,)``."""
        return self._data.shifts[0].copy()

    @property
    def shifts(self) -> FloatArray:
        """All shift vectors, ``(K, D)``, read-only."""
        return self._data.shifts

    @property
    def rotations(self) -> FloatArray:
        """All rotation matrices, ``(K, D, D)``, read-only."""
        return self._data.rotations

    def __repr__(self) -> str:
        return f"CEC2022(function={self.function}, dim={self.dim})"

    def __call__(self, X: ArrayLike) -> FloatArray:
        """Evaluate ``F_i`` (bias included) on a batch of points.

        Args:
            X: points of shape ``(..., D)``, e.g. ``(runs, population, D)``, ``(N, D)`` or a
                single point ``(D,)``. Not modified.

        Returns:
            float64 array of shape ``X.shape[:-1]`` (0-d for a single point). Each value is
            bitwise independent of the other points in the batch.

        Raises:
            ValueError: if the last axis of ``X`` does not have length ``D``.
        """
        x = np.asarray(X, dtype=np.float64)
        if x.ndim == 0 or x.shape[-1] != self.dim:
            raise ValueError(
                f"{self!r} expects points with last axis of length {self.dim}, got shape {x.shape}"
            )
        batch_shape = x.shape[:-1]
        n_points = math.prod(batch_shape)
        out = np.empty(n_points)
        ar = thread_arena()
        base = ar.top
        try:
            # one chunk: copied straight from x (no flat copy of a non-contiguous x)
            flat = x.reshape(-1, self.dim) if n_points > _CHUNK else None
            for start in range(0, n_points, _CHUNK):
                stop = min(start + _CHUNK, n_points)
                n = stop - start
                ar.top = base
                xt = ar.take(self.dim, -(-n // PAD) * PAD)  # coordinate-major (D, n_padded)
                if flat is None:  # reshape splits the slice's contiguous axis: always a view
                    np.copyto(xt[:, :n].reshape(self.dim, *batch_shape), np.moveaxis(x, -1, 0))
                else:
                    np.copyto(xt[:, :n], flat[start:stop].T)
                xt[:, n:] = 0.0
                out[start:stop] = self._evaluate(xt, ar)[:n]
        finally:
            ar.top = base
        return out.reshape(batch_shape)

    # -- implementation ------------------------------------------------------------------

    def _evaluate(self, xt: FloatArray, ar: Arena) -> FloatArray:
        """Evaluate on coordinate-major points ``xt`` of shape ``(D, n)``."""
        fnum = self.function
        rots = self._data.rotations
        if fnum in _SIMPLE:
            fn, rate = _SIMPLE[fnum]
            y = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[0], out=y)
            if rate != 1.0:
                y *= rate
            z = y if fnum == 3 else rotate(rots[0], y, ar)
            f = fn(z, ar)
        elif fnum in _HYBRIDS:
            y = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[0], out=y)
            z = rotate(rots[0], y, ar)
            shuffle = self._data.shuffle
            assert shuffle is not None
            np.take(z, shuffle, axis=0, out=y)
            f = ar.take(xt.shape[1])
            f.fill(0.0)
            for fn, rate, block in self._blocks:
                if fn is schaffer_f7:
                    # C: schaffer_F7_func indexes the global y from 0, not its own block.
                    part = y[: block.stop - block.start]
                else:
                    part = y[block]
                if rate != 1.0:
                    part = np.multiply(part, rate, out=ar.take(*part.shape))
                f += fn(part, ar)
        else:
            f = self._composition(xt, ar)
        f += self.optimum_value
        return f

    def _composition(self, xt: FloatArray, ar: Arena) -> FloatArray:
        """cf_cal: sum_k w_k / sum(w) (g_k + bias_k), w_k = exp(-d_k^2/(2 D s_k^2)) / d_k."""
        sigmas, cbias, comps = _COMPOSITIONS[self.function]
        n_points = xt.shape[1]
        fits = ar.take(len(comps), n_points)
        w = ar.take(len(comps), n_points)
        for k, comp in enumerate(comps):
            mark = ar.top
            diff = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[k], out=diff)
            d2 = sumsq_over_coords(diff, ar)
            with np.errstate(divide="ignore"):
                wk = np.sqrt(1.0 / d2) * np.exp(-d2 / 2.0 / self.dim / sigmas[k] ** 2.0)
            w[k] = np.where(d2 != 0.0, wk, _INF)
            if comp.rate != 1.0:
                diff *= comp.rate
            z = rotate(self._data.rotations[k], diff, ar) if comp.rotate else diff
            g = comp.fn(z, ar)
            if comp.num != 1.0 or comp.den != 1.0:
                g *= comp.num
                g /= comp.den
            np.add(g, cbias[k], out=fits[k])
            ar.top = mark
        all_zero = ~np.any(w > 0.0, axis=0)
        if np.any(all_zero):  # every weight underflowed: plain mean (as in C)
            w[:, all_zero] = 1.0
        w_sum = sum_over_coords(w, ar)
        w /= w_sum
        w *= fits
        return sum_over_coords(w, ar)
