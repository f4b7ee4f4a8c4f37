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
shape ``X.shape[:-1]``. Implementation notes (all invisible in the results):

* points are held coordinate-major, ``(D, N)``; sums over coordinates are accumulated one
  coordinate at a time, in the C code's order;
* batches are zero-padded to a multiple of 8 points so that the BLAS rotation ``M @ y`` uses
  the same kernel for every point: a point's value is bitwise independent of the batch it is
  evaluated in (checked by the tests); the rotation is done in single-threaded BLAS calls of
  256 columns;
* ``sin``/``cos`` use a vectorised kernel (Cody-Waite reduction modulo pi, economised odd
  polynomial), accurate to ~1 ulp and 2-3x faster than the scalar libm loop NumPy uses for
  float64;
* temporaries live in a per-thread scratch arena (at most ~15 MB for D = 20) that is reused
  across calls: on a VM, page-faulting fresh NumPy temporaries costs more than the arithmetic.
  Batches larger than 4096 points are processed in chunks.

Data (shift vectors, rotation matrices, shuffles) are the organisers' files, shipped unchanged
as package data in ``paramid/cec2022/data/cec2022`` (see ``SOURCE.md`` there).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = [
    "BIASES",
    "CEC2022",
    "DATA_PACKAGE",
    "FUNCTION_NAMES",
    "SUPPORTED_DIMS",
    "SUPPORTED_FUNCTIONS",
    "CEC2022Data",
    "load_data",
]

FloatArray = NDArray[np.float64]

SUPPORTED_DIMS: tuple[int, ...] = (10, 20)
SUPPORTED_FUNCTIONS: tuple[int, ...] = tuple(range(1, 13))

#: Package (importlib.resources anchor) holding the organisers' data files in data/cec2022/.
DATA_PACKAGE = "paramid.cec2022"
_DATA_SUBDIR = ("data", "cec2022")

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
_E = 2.7182818284590452353602874713526625
_PI = 3.1415926535897932384626433832795029

# Shrink rates of sr_func, written as in the C code so that the doubles are identical.
_RATE_ROSENBROCK = 2.048 / 100.0
_RATE_RASTRIGIN = 5.12 / 100.0
_RATE_SCHWEFEL = 1000.0 / 100.0
_RATE_GRIEWANK = 600.0 / 100.0
_RATE_HG = 5.0 / 100.0  # HGBat, HappyCat, Katsuura, Griewank-Rosenbrock

# Number of components (rows of shift_data_N, matrices in M_N_DD) of the composition functions.
_N_COMPONENTS = {9: 5, 10: 3, 11: 5, 12: 6}

# Points per evaluation pass: bounds the scratch memory (about 30 arrays of D x _CHUNK doubles
# per thread) while keeping NumPy call overhead small.
_CHUNK = 4096
# Batches are padded with zero points to a multiple of _PAD columns. BLAS matrix products
# process columns in fixed-width groups and treat a ragged remainder with other kernels whose
# rounding differs; with full groups only, every point's value is bitwise independent of the
# size of the batch it is evaluated in (column unrolls of the common x86/ARM kernels divide 8).
_PAD = 8
# Columns per BLAS call in _rotate (a multiple of _PAD).
_BLAS_BLOCK = 256


# --------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CEC2022Data:
    """Organisers' data for one function and dimension (read-only arrays).

    Attributes:
        shifts: ``(K, D)`` shift vectors ``o_k`` (``K = 1`` for F1-F8, the number of
            components for the composition functions F9-F12).
        rotations: ``(K, D, D)`` rotation matrices ``M_k``; the rotated point is ``M_k @ y``.
        shuffle: ``(D,)`` zero-based permutation for the hybrid functions F6-F8, else ``None``.
    """

    shifts: FloatArray
    rotations: FloatArray
    shuffle: NDArray[np.intp] | None


def _read_text(name: str) -> str:
    path = resources.files(DATA_PACKAGE).joinpath(*_DATA_SUBDIR, name)
    try:
        return path.read_text(encoding="ascii")
    except FileNotFoundError as exc:  # pragma: no cover - broken installation
        raise FileNotFoundError(
            f"CEC2022 data file {name!r} missing from package data {DATA_PACKAGE}/"
            f"{'/'.join(_DATA_SUBDIR)}; reinstall paramid"
        ) from exc


def _check(function: object, dim: object) -> None:
    """Raise ``ValueError`` unless ``function`` is an int in 1..12 and ``dim`` is 10 or 20."""
    if isinstance(function, bool) or not isinstance(function, int | np.integer):
        raise ValueError(f"CEC2022 function number must be an int in 1..12, got {function!r}")
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise ValueError(f"CEC2022 dimension must be an int, one of {SUPPORTED_DIMS}, got {dim!r}")
    if function not in SUPPORTED_FUNCTIONS:
        raise ValueError(f"CEC2022 defines functions 1..12, got function={function}")
    if dim not in SUPPORTED_DIMS:
        raise ValueError(
            f"CEC2022 functions are provided for D in {SUPPORTED_DIMS} only, got dim={dim}"
        )


@cache
def load_data(function: int, dim: int) -> CEC2022Data:
    """Load (and cache) the organisers' shift, rotation and shuffle data.

    Parsing follows ``cec22_test_func.cpp``: the rotation file is read as a flat stream of
    row-major ``D x D`` matrices; for F1-F8 the shift is the first ``D`` numbers of
    ``shift_data_N.txt``; for F9-F12 component ``k`` uses the first ``D`` numbers of line
    ``k``; the shuffle file holds a one-based permutation.

    Raises:
        ValueError: for a function outside 1..12 or a dimension other than 10 or 20.
    """
    _check(function, dim)
    function, dim = int(function), int(dim)
    k = _N_COMPONENTS.get(function, 1)

    m_flat = np.array(_read_text(f"M_{function}_D{dim}.txt").split(), dtype=np.float64)
    rotations = m_flat[: k * dim * dim].reshape(k, dim, dim)

    shift_text = _read_text(f"shift_data_{function}.txt")
    if k == 1:
        shifts = np.array(shift_text.split()[:dim], dtype=np.float64)[None, :]
    else:
        lines = [ln for ln in shift_text.splitlines() if ln.strip()]
        shifts = np.array([ln.split()[:dim] for ln in lines[:k]], dtype=np.float64)
    if shifts.shape != (k, dim) or rotations.shape != (k, dim, dim):  # pragma: no cover
        raise ValueError(f"malformed CEC2022 data for F{function}, D={dim}")

    shuffle = None
    if 6 <= function <= 8:
        perm = np.array(_read_text(f"shuffle_data_{function}_D{dim}.txt").split(), dtype=np.intp)
        shuffle = perm[:dim] - 1
        if sorted(shuffle.tolist()) != list(range(dim)):  # pragma: no cover
            raise ValueError(f"malformed CEC2022 shuffle for F{function}, D={dim}")
        shuffle.flags.writeable = False

    shifts.flags.writeable = False
    rotations = np.ascontiguousarray(rotations)
    rotations.flags.writeable = False
    return CEC2022Data(shifts=shifts, rotations=rotations, shuffle=shuffle)


# --------------------------------------------------------------------------------------
# Scratch memory
# --------------------------------------------------------------------------------------


class _Arena:
    """Bump allocator of float64 scratch arrays, reused from one evaluation to the next.

    Fresh NumPy temporaries of a few hundred kB are mmap-ed or trimmed back to the OS by
    glibc and page-faulted in again on every call, which costs more than the arithmetic; the
    arena keeps its buffers. ``take`` hands out the next buffer (grown when too small);
    resetting ``top`` to an earlier value releases everything taken since.
    """

    def __init__(self) -> None:
        self._bufs: list[FloatArray] = []
        self.top = 0

    def take(self, *shape: int) -> FloatArray:
        size = math.prod(shape)
        i = self.top
        if i == len(self._bufs):
            self._bufs.append(np.empty(size))
        elif self._bufs[i].size < size:
            self._bufs[i] = np.empty(size)
        self.top = i + 1
        return self._bufs[i][:size].reshape(shape)


_LOCAL = threading.local()


def _arena() -> _Arena:
    arena: _Arena | None = getattr(_LOCAL, "arena", None)
    if arena is None:
        arena = _LOCAL.arena = _Arena()
    return arena


def _sum0(a: FloatArray, ar: _Arena) -> FloatArray:
    """Column sums of ``a`` (n, N), accumulated row by row (the C code's order)."""
    out = ar.take(a.shape[1])
    np.copyto(out, a[0])
    for row in a[1:]:
        out += row
    return out


def _prod0(a: FloatArray, ar: _Arena) -> FloatArray:
    """Column products of ``a`` (n, N), accumulated row by row."""
    out = ar.take(a.shape[1])
    np.copyto(out, a[0])
    for row in a[1:]:
        out *= row
    return out


def _sumsq0(a: FloatArray, ar: _Arena) -> FloatArray:
    """Column sums of squares of ``a`` (n, N), row by row."""
    sq = ar.take(*a.shape)
    np.multiply(a, a, out=sq)
    return _sum0(sq, ar)


# --------------------------------------------------------------------------------------
# Vectorised sin / cos (NumPy's float64 sin/cos is a scalar libm loop)
# --------------------------------------------------------------------------------------

# Cody-Waite split pi = _PI_A + _PI_B (+ O(1e-23)); _PI_A has 24 significant bits, so k * _PI_A
# is exact for |k| < 2**29 and x - k * _PI_A is exact; the reduction error is ~|k| 1e-23.
_PI_A = 3.1415927410125732
_PI_B = -8.742278000372485e-08
_INV_PI = 0.3183098861837907
_TRIG_LIMIT = 1.0e6  # beyond this |x| (or for inf/nan) fall back to np.sin / np.cos
# sin(r) = r + r^3 P(r^2) on |r| <= 1.5708 (> pi/2): coefficients of P, highest order first,
# from the degree-41 Taylor series economised (exactly, in rational arithmetic) to degree 17
# in the Chebyshev basis; truncation error < 2e-19, evaluated error ~1 ulp.
_SIN_COEFFS = (
    2.716657728626969e-15,
    -7.642510874609758e-13,
    1.60589186094384e-10,
    -2.505210638029477e-08,
    2.7557319204570305e-06,
    -0.00019841269841159375,
    0.008333333333332993,
    -0.16666666666666663,
)


def _sin_cos(x: FloatArray, cosine: bool, ar: _Arena) -> FloatArray:
    """``sin(x)`` or ``cos(x)`` elementwise, absolute error ~1e-16 (about 1 ulp of 1).

    NumPy evaluates float64 sin/cos with a scalar libm loop; this vectorised kernel (argument
    reduction modulo pi, odd polynomial of degree 17 on [-pi/2, pi/2]) is two to three times
    as fast for the argument ranges of the CEC functions.
    """
    shape = x.shape
    ax = ar.take(*shape)
    np.abs(x, out=ax)
    if not ax.max(initial=0.0) < _TRIG_LIMIT:
        out = ar.take(*shape)
        (np.cos if cosine else np.sin)(x, out=out)
        return out
    # x = k pi + r (sin) or x = (k + 1/2) pi + r (cos), |r| <= pi/2 (+ rounding)
    k = ar.take(*shape)
    np.multiply(x, _INV_PI, out=k)
    if cosine:
        k -= 0.5
    np.rint(k, out=k)
    t = ar.take(*shape)
    r = ar.take(*shape)
    if cosine:
        np.add(k, 0.5, out=r)  # k + 1/2, exact
        np.multiply(r, _PI_B, out=t)
        r *= _PI_A
    else:
        np.multiply(k, _PI_A, out=r)
        np.multiply(k, _PI_B, out=t)
    np.subtract(x, r, out=r)
    r -= t
    u = ax
    np.multiply(r, r, out=u)
    p = t
    np.multiply(u, _SIN_COEFFS[0], out=p)
    for c in _SIN_COEFFS[1:]:
        p += c
        p *= u
    p *= r
    p += r  # sin(r)
    # sin(x) = (-1)^k sin(r); cos(x) = -(-1)^k sin(r)
    h = u
    np.multiply(k, 0.5, out=h)
    np.floor(h, out=r)
    h -= r  # 0 (k even) or 0.5 (k odd)
    if cosine:
        h *= 4.0
        h -= 1.0
    else:
        h *= -4.0
        h += 1.0
    p *= h
    return p


def _sin(x: FloatArray, ar: _Arena) -> FloatArray:
    return _sin_cos(x, False, ar)


def _cos(x: FloatArray, ar: _Arena) -> FloatArray:
    return _sin_cos(x, True, ar)


# --------------------------------------------------------------------------------------
# Basic functions (TR, section 2 "basic functions", and cec22_test_func.cpp). Points are
# coordinate-major: z has shape (n, N) and holds N points after shift, shrink and rotation.
# Each function leaves z untouched and returns an (N,) arena buffer. Sums over coordinates
# run in the C code's order.
# --------------------------------------------------------------------------------------


def _rotate(rot: FloatArray, y: FloatArray, ar: _Arena) -> FloatArray:
    """``z = M y`` for all columns of ``y``, as BLAS products over blocks of columns.

    Blocks of ``_BLAS_BLOCK`` columns keep every product below OpenBLAS's multithreading
    threshold (m n k < 262144): for matrices this small, BLAS threads only add overhead, and on
    an oversubscribed machine their spin-waiting stalls a call for tens of milliseconds.
    """
    out = ar.take(*y.shape)
    for s in range(0, y.shape[1], _BLAS_BLOCK):
        np.matmul(rot, y[:, s : s + _BLAS_BLOCK], out=out[:, s : s + _BLAS_BLOCK])
    return out


def _zakharov(z: FloatArray, ar: _Arena) -> FloatArray:
    """Zakharov: sum z_i^2 + s^2 + s^4, s = sum 0.5 i z_i."""
    n, npts = z.shape
    s1 = _sumsq0(z, ar)
    wz = ar.take(n, npts)
    np.multiply((0.5 * np.arange(1, n + 1, dtype=np.float64))[:, None], z, out=wz)
    s2 = _sum0(wz, ar)
    s2 *= s2
    out = ar.take(npts)
    np.add(s1, s2, out=out)
    s2 *= s2
    out += s2
    return out


def _rosenbrock(z: FloatArray, ar: _Arena) -> FloatArray:
    """Rosenbrock on ``z + 1``: sum 100 (z_i^2 - z_i+1)^2 + (z_i - 1)^2."""
    n, npts = z.shape
    zp = ar.take(n, npts)
    np.add(z, 1.0, out=zp)
    a = zp[:-1]
    t1 = ar.take(n - 1, npts)
    np.multiply(a, a, out=t1)
    t1 -= zp[1:]
    t2 = ar.take(n - 1, npts)
    np.multiply(t1, 100.0, out=t2)
    t1 *= t2
    np.subtract(a, 1.0, out=t2)
    t2 *= t2
    t1 += t2
    return _sum0(t1, ar)


def _schaffer_f7(y: FloatArray, ar: _Arena) -> FloatArray:
    """Schaffer f7: (sum_i sqrt(s_i) (1 + sin^2(50 s_i^0.2)) / (n-1))^2, s_i = |(y_i, y_i+1)|."""
    n, npts = y.shape
    y2 = ar.take(n, npts)
    np.multiply(y, y, out=y2)
    s = ar.take(n - 1, npts)
    np.add(y2[:-1], y2[1:], out=s)
    np.sqrt(s, out=s)
    arg = ar.take(n - 1, npts)
    np.power(s, 0.2, out=arg)
    arg *= 50.0
    t = _sin(arg, ar)
    rt = arg
    np.sqrt(s, out=rt)
    t *= t
    t *= rt
    t += rt
    f = _sum0(t, ar)
    f *= f
    f /= n - 1
    f /= n - 1
    return f


def _rastrigin(z: FloatArray, ar: _Arena) -> FloatArray:
    """Rastrigin: sum z_i^2 - 10 cos(2 pi z_i) + 10."""
    arg = ar.take(*z.shape)
    np.multiply(z, 2.0 * _PI, out=arg)
    c = _cos(arg, ar)
    c *= -10.0
    np.multiply(z, z, out=arg)
    c += arg
    c += 10.0
    return _sum0(c, ar)


def _levy(z: FloatArray, ar: _Arena) -> FloatArray:
    """Levy, w = 1 + z/4: sin^2(pi w_1) + sum_{i<n} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
    + (w_n - 1)^2 (1 + sin^2(2 pi w_n))."""
    n, npts = z.shape
    w = ar.take(n, npts)
    np.divide(z, 4.0, out=w)
    w += 1.0
    a = ar.take(n - 1, npts)
    np.multiply(w[:-1], _PI, out=a)
    a += 1.0
    s = _sin(a, ar)
    s *= s
    s *= 10.0
    s += 1.0
    np.subtract(w[:-1], 1.0, out=a)
    a *= a
    s *= a
    mid = _sum0(s, ar)
    e = ar.take(npts)
    np.multiply(w[0], _PI, out=e)
    s0 = _sin(e, ar)
    np.multiply(w[-1], 2.0 * _PI, out=e)
    sl = _sin(e, ar)
    sl *= sl
    sl += 1.0
    np.subtract(w[-1], 1.0, out=e)
    e *= e
    sl *= e  # term3
    s0 *= s0  # term1
    s0 += mid
    s0 += sl
    return s0


def _bent_cigar(z: FloatArray, ar: _Arena) -> FloatArray:
    """Bent cigar: z_1^2 + 1e6 sum_{i>1} z_i^2."""
    sq = ar.take(*z.shape)
    np.multiply(z[0], z[0], out=sq[0])
    np.multiply(z[1:], 1.0e6, out=sq[1:])
    sq[1:] *= z[1:]
    return _sum0(sq, ar)


def _discus(z: FloatArray, ar: _Arena) -> FloatArray:
    """Discus: 1e6 z_1^2 + sum_{i>1} z_i^2."""
    sq = ar.take(*z.shape)
    np.multiply(z[0], 1.0e6, out=sq[0])
    sq[0] *= z[0]
    np.multiply(z[1:], z[1:], out=sq[1:])
    return _sum0(sq, ar)


def _ellips(z: FloatArray, ar: _Arena) -> FloatArray:
    """High-conditioned elliptic: sum 10^(6 (i-1)/(n-1)) z_i^2."""
    n = z.shape[0]
    c = np.array([math.pow(10.0, 6.0 * i / (n - 1)) for i in range(n)])
    sq = ar.take(*z.shape)
    np.multiply(c[:, None], z, out=sq)
    sq *= z
    return _sum0(sq, ar)


def _hg_sums(z: FloatArray, ar: _Arena) -> tuple[FloatArray, FloatArray]:
    """r2 = sum (z_i - 1)^2 and s = sum (z_i - 1) (HGBat, HappyCat)."""
    zm = ar.take(*z.shape)
    np.subtract(z, 1.0, out=zm)
    s = _sum0(zm, ar)
    zm *= zm
    return _sum0(zm, ar), s


def _hgbat(z: FloatArray, ar: _Arena) -> FloatArray:
    """HGBat on ``z - 1``: |r2^2 - s^2|^(1/2) + (r2/2 + s)/n + 1/2."""
    n = z.shape[0]
    r2, s = _hg_sums(z, ar)
    out = ar.take(z.shape[1])
    np.multiply(r2, r2, out=out)
    t = ar.take(z.shape[1])
    np.multiply(s, s, out=t)
    out -= t
    np.abs(out, out=out)
    np.sqrt(out, out=out)
    r2 *= 0.5
    r2 += s
    r2 /= n
    out += r2
    out += 0.5
    return out


def _happycat(z: FloatArray, ar: _Arena) -> FloatArray:
    """HappyCat on ``z - 1``: |r2 - n|^(1/4) + (r2/2 + s)/n + 1/2."""
    n = z.shape[0]
    r2, s = _hg_sums(z, ar)
    out = ar.take(z.shape[1])
    np.subtract(r2, n, out=out)
    np.abs(out, out=out)
    np.power(out, 0.25, out=out)
    r2 *= 0.5
    r2 += s
    r2 /= n
    out += r2
    out += 0.5
    return out


def _katsuura(z: FloatArray, ar: _Arena) -> FloatArray:
    """Katsuura: c prod_i (1 + i sum_j |2^j z_i - round(2^j z_i)| 2^-j)^(10/n^1.2) - c, with
    c = 10/n^2 and j = 1..32.

    ``2^j z - round(2^j z)`` is obtained by repeatedly doubling the signed fractional part,
    which is exact and equals the C expression ``t - floor(t + 0.5)`` in magnitude.
    """
    n, npts = z.shape
    frac = ar.take(n, npts)
    tmp = ar.take(n, npts)
    temp = ar.take(n, npts)
    np.rint(z, out=tmp)
    np.subtract(z, tmp, out=frac)
    temp.fill(0.0)
    for j in range(1, 33):
        frac *= 2.0
        np.rint(frac, out=tmp)
        frac -= tmp
        np.abs(frac, out=tmp)
        tmp *= 2.0**-j
        temp += tmp
    temp *= np.arange(1, n + 1, dtype=np.float64)[:, None]
    temp += 1.0
    np.power(temp, 10.0 / (1.0 * n) ** 1.2, out=temp)
    f = _prod0(temp, ar)
    c = 10.0 / n / n
    f *= c
    f -= c
    return f


def _ackley(z: FloatArray, ar: _Arena) -> FloatArray:
    """Ackley: e + 20 - 20 exp(-0.2 sqrt(mean z_i^2)) - exp(mean cos(2 pi z_i))."""
    n = z.shape[0]
    s1 = _sumsq0(z, ar)
    s1 /= n
    np.sqrt(s1, out=s1)
    s1 *= -0.2
    arg = ar.take(*z.shape)
    np.multiply(z, 2.0 * _PI, out=arg)
    s2 = _sum0(_cos(arg, ar), ar)
    s2 /= n
    np.exp(s1, out=s1)
    s1 *= -20.0
    np.exp(s2, out=s2)
    out = ar.take(z.shape[1])
    np.add(s1, _E, out=out)  # E - 20 exp(s1) evaluated as (-20 exp(s1)) + E: same double
    out -= s2
    out += 20.0
    return out


def _schwefel(z: FloatArray, ar: _Arena) -> FloatArray:
    """Modified Schwefel on ``u = z + 420.9687...``: sum g(u_i) + 418.9828... n, with
    g(u) = -u sin(sqrt|u|) for |u| <= 500, else -sign(u) r sin(sqrt r) + ((|u| - 500)/100)^2 / n,
    r = 500 - fmod(|u|, 500).

    Branches are blended with 0/1 factors (``a * 1 + b * 0`` is exact), which is much faster
    than masked assignment in NumPy.
    """
    n, npts = z.shape
    u = ar.take(n, npts)
    np.add(z, 4.209687462275036e002, out=u)
    au = ar.take(n, npts)
    np.abs(u, out=au)
    # r = 500 - fmod(|u|, 500), exactly: floor(|u|/500) may overshoot by one just below a
    # multiple of 500, giving a negative remainder that is then corrected.
    r = ar.take(n, npts)
    np.divide(au, 500.0, out=r)
    np.floor(r, out=r)
    r *= 500.0
    np.subtract(au, r, out=r)
    if r.min(initial=0.0) < 0.0:
        np.copyto(r, np.where(r < 0.0, r + 500.0, r))
    np.subtract(500.0, r, out=r)
    inside = ar.take(n, npts)  # 1.0 where |u| <= 500, else 0.0
    np.less_equal(au, 500.0, out=inside)
    outside = ar.take(n, npts)
    np.subtract(1.0, inside, out=outside)
    arg = ar.take(n, npts)
    tmp = ar.take(n, npts)
    np.multiply(au, inside, out=arg)
    np.multiply(r, outside, out=tmp)
    arg += tmp
    np.sqrt(arg, out=arg)
    s = _sin(arg, ar)
    # coefficient of the sine (the term is -coef * sin): u inside, sign(u) r outside
    np.copysign(r, u, out=tmp)
    tmp *= outside
    np.multiply(u, inside, out=arg)
    arg += tmp
    s *= arg
    # penalty outside [-500, 500]
    au -= 500.0
    au /= 100.0
    au *= au
    au /= n
    au *= outside
    au -= s
    out = _sum0(au, ar)
    out += 4.189828872724338e002 * n
    return out


def _griewank(z: FloatArray, ar: _Arena) -> FloatArray:
    """Griewank: 1 + sum z_i^2 / 4000 - prod cos(z_i / sqrt(i))."""
    n = z.shape[0]
    s = _sumsq0(z, ar)
    arg = ar.take(*z.shape)
    np.divide(z, np.sqrt(1.0 + np.arange(n, dtype=np.float64))[:, None], out=arg)
    p = _prod0(_cos(arg, ar), ar)
    s /= 4000.0
    s += 1.0
    s -= p
    return s


def _grie_rosen(z: FloatArray, ar: _Arena) -> FloatArray:
    """Expanded Griewank-Rosenbrock on ``z + 1`` over cyclic pairs (z_i, z_i+1), (z_n, z_1):
    sum t^2/4000 - cos(t) + 1, t = 100 (z_i^2 - z_i+1)^2 + (z_i - 1)^2."""
    n, npts = z.shape
    zp = ar.take(n, npts)
    np.add(z, 1.0, out=zp)
    t1 = ar.take(n, npts)
    np.multiply(zp, zp, out=t1)
    t1[:-1] -= zp[1:]
    t1[-1] -= zp[0]
    t = ar.take(n, npts)
    np.multiply(t1, 100.0, out=t)
    t *= t1
    np.subtract(zp, 1.0, out=t1)
    t1 *= t1
    t += t1  # temp
    c = _cos(t, ar)
    t *= t
    t /= 4000.0
    t -= c
    t += 1.0
    return _sum0(t, ar)


def _escaffer6(z: FloatArray, ar: _Arena) -> FloatArray:
    """Expanded Schaffer f6 over cyclic pairs: sum 0.5 + (sin^2(sqrt q) - 0.5)/(1 + q/1000)^2,
    q = z_i^2 + z_i+1^2."""
    n, npts = z.shape
    z2 = ar.take(n, npts)
    np.multiply(z, z, out=z2)
    q = ar.take(n, npts)
    np.add(z2[:-1], z2[1:], out=q[:-1])
    np.add(z2[-1], z2[0], out=q[-1])
    np.sqrt(q, out=z2)
    s = _sin(z2, ar)
    s *= s
    s -= 0.5
    q *= 0.001
    q += 1.0
    q *= q
    s /= q
    s += 0.5
    return _sum0(s, ar)


# --------------------------------------------------------------------------------------
# F1-F12
# --------------------------------------------------------------------------------------


def _hybrid_sizes(dim: int, fractions: tuple[float, ...]) -> list[int]:
    """Block sizes n_i = ceil(p_i D) for all but the last block, which takes the rest."""
    sizes = [math.ceil(p * dim) for p in fractions[:-1]]
    sizes.append(dim - sum(sizes))
    return sizes


_BasicFn = Callable[[FloatArray, _Arena], FloatArray]

# Hybrid functions (TR, hybrid function definitions): fractions p_i and (function, shrink rate).
_HYBRIDS: dict[int, tuple[tuple[float, ...], list[tuple[_BasicFn, float]]]] = {
    6: (
        (0.4, 0.4, 0.2),
        [(_bent_cigar, 1.0), (_hgbat, _RATE_HG), (_rastrigin, _RATE_RASTRIGIN)],
    ),
    7: (
        (0.1, 0.2, 0.2, 0.2, 0.1, 0.2),
        [
            (_hgbat, _RATE_HG),
            (_katsuura, _RATE_HG),
            (_ackley, 1.0),
            (_rastrigin, _RATE_RASTRIGIN),
            (_schwefel, _RATE_SCHWEFEL),
            (_schaffer_f7, 1.0),  # reads the first n_6 shuffled entries, see module docstring
        ],
    ),
    8: (
        (0.3, 0.2, 0.2, 0.1, 0.2),
        [
            (_katsuura, _RATE_HG),
            (_happycat, _RATE_HG),
            (_grie_rosen, _RATE_HG),
            (_schwefel, _RATE_SCHWEFEL),
            (_ackley, 1.0),
        ],
    ),
}


@dataclass(frozen=True)
class _Component:
    """One composition component: value ``num * g(z) / den`` (in this order, as in C)."""

    fn: _BasicFn
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
            _Component(_rosenbrock, _RATE_ROSENBROCK, num=10000.0, den=1e4),
            _Component(_ellips, 1.0, num=10000.0, den=1e10),
            _Component(_bent_cigar, 1.0, num=10000.0, den=1e30),
            _Component(_discus, 1.0, num=10000.0, den=1e10),
            _Component(_ellips, 1.0, rotate=False, num=10000.0, den=1e10),
        ],
    ),
    10: (
        (20.0, 10.0, 10.0),
        (0.0, 200.0, 100.0),
        [
            _Component(_schwefel, _RATE_SCHWEFEL, rotate=False),
            _Component(_rastrigin, _RATE_RASTRIGIN),
            _Component(_hgbat, _RATE_HG),
        ],
    ),
    11: (
        (20.0, 20.0, 30.0, 30.0, 20.0),
        (0.0, 200.0, 300.0, 400.0, 200.0),
        [
            _Component(_escaffer6, 1.0, num=10000.0, den=2e7),
            _Component(_schwefel, _RATE_SCHWEFEL),
            _Component(_griewank, _RATE_GRIEWANK, num=1000.0, den=100.0),
            _Component(_rosenbrock, _RATE_ROSENBROCK),
            _Component(_rastrigin, _RATE_RASTRIGIN, num=10000.0, den=1e3),
        ],
    ),
    12: (
        (10.0, 20.0, 30.0, 40.0, 50.0, 60.0),
        (0.0, 300.0, 500.0, 100.0, 400.0, 200.0),
        [
            _Component(_hgbat, _RATE_HG, num=10000.0, den=1000.0),
            _Component(_rastrigin, _RATE_RASTRIGIN, num=10000.0, den=1e3),
            _Component(_schwefel, _RATE_SCHWEFEL, num=10000.0, den=4e3),
            _Component(_bent_cigar, 1.0, num=10000.0, den=1e30),
            _Component(_ellips, 1.0, num=10000.0, den=1e10),
            _Component(_escaffer6, 1.0, num=10000.0, den=2e7),
        ],
    ),
}

# Simple functions F1-F5: (basic function, shrink rate).
_SIMPLE: dict[int, tuple[_BasicFn, float]] = {
    1: (_zakharov, 1.0),
    2: (_rosenbrock, _RATE_ROSENBROCK),
    3: (_schaffer_f7, 1.0),  # on the unrotated shifted point, see module docstring
    4: (_rastrigin, _RATE_RASTRIGIN),  # the rounding step is dead code in the C reference
    5: (_levy, 1.0),
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
        _check(function, dim)
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
        self._blocks: list[tuple[_BasicFn, float, slice]] = []
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
        flat = x.reshape(-1, self.dim)
        n_points = flat.shape[0]
        out = np.empty(n_points)
        ar = _arena()
        base = ar.top
        try:
            for start in range(0, n_points, _CHUNK):
                stop = min(start + _CHUNK, n_points)
                n = stop - start
                ar.top = base
                xt = ar.take(self.dim, -(-n // _PAD) * _PAD)  # coordinate-major (D, n_padded)
                np.copyto(xt[:, :n], flat[start:stop].T)
                xt[:, n:] = 0.0
                out[start:stop] = self._evaluate(xt, ar)[:n]
        finally:
            ar.top = base
        return out.reshape(batch_shape)

    # -- implementation ------------------------------------------------------------------

    def _evaluate(self, xt: FloatArray, ar: _Arena) -> FloatArray:
        """Evaluate on coordinate-major points ``xt`` of shape ``(D, n)``."""
        fnum = self.function
        rots = self._data.rotations
        if fnum in _SIMPLE:
            fn, rate = _SIMPLE[fnum]
            y = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[0], out=y)
            if rate != 1.0:
                y *= rate
            z = y if fnum == 3 else _rotate(rots[0], y, ar)
            f = fn(z, ar)
        elif fnum in _HYBRIDS:
            y = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[0], out=y)
            z = _rotate(rots[0], y, ar)
            shuffle = self._data.shuffle
            assert shuffle is not None
            np.take(z, shuffle, axis=0, out=y)
            f = ar.take(xt.shape[1])
            f.fill(0.0)
            for fn, rate, block in self._blocks:
                if fn is _schaffer_f7:
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

    def _composition(self, xt: FloatArray, ar: _Arena) -> FloatArray:
        """cf_cal: sum_k w_k / sum(w) (g_k + bias_k), w_k = exp(-d_k^2/(2 D s_k^2)) / d_k."""
        sigmas, cbias, comps = _COMPOSITIONS[self.function]
        n_points = xt.shape[1]
        fits = ar.take(len(comps), n_points)
        w = ar.take(len(comps), n_points)
        for k, comp in enumerate(comps):
            mark = ar.top
            diff = ar.take(*xt.shape)
            np.subtract(xt, self._shift_cols[k], out=diff)
            d2 = _sumsq0(diff, ar)
            with np.errstate(divide="ignore"):
                wk = np.sqrt(1.0 / d2) * np.exp(-d2 / 2.0 / self.dim / sigmas[k] ** 2.0)
            w[k] = np.where(d2 != 0.0, wk, _INF)
            if comp.rate != 1.0:
                diff *= comp.rate
            z = _rotate(self._data.rotations[k], diff, ar) if comp.rotate else diff
            g = comp.fn(z, ar)
            if comp.num != 1.0 or comp.den != 1.0:
                g *= comp.num
                g /= comp.den
            np.add(g, cbias[k], out=fits[k])
            ar.top = mark
        all_zero = ~np.any(w > 0.0, axis=0)
        if np.any(all_zero):  # every weight underflowed: plain mean (as in C)
            w[:, all_zero] = 1.0
        w_sum = _sum0(w, ar)
        w /= w_sum
        w *= fits
        return _sum0(w, ar)
