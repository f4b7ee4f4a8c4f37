"""Numerical kernels of the CEC 2022 functions: scratch arena, ordered sums, sin/cos, rotation.

Implementation notes (all invisible in the results):

* points are held coordinate-major, ``(D, N)``; sums over coordinates are accumulated one
  coordinate at a time, in the C code's order (``sum_over_coords`` and friends);
* batches are zero-padded to a multiple of ``PAD`` points so that the BLAS rotation ``M @ y``
  uses the same kernel for every point: a point's value is bitwise independent of the batch
  it is evaluated in; the rotation is done in single-threaded BLAS calls of ``BLAS_BLOCK``
  columns (``rotate``);
* ``fast_sin``/``fast_cos`` use a vectorised kernel (Cody-Waite reduction modulo pi,
  economised odd polynomial), accurate to ~1 ulp and 2-3x faster than the scalar libm loop
  NumPy uses for float64;
* temporaries live in a per-thread scratch ``Arena`` (at most ~15 MB for D = 20) that is
  reused across calls: on a VM, page-faulting fresh NumPy temporaries costs more than the
  arithmetic.
"""

from __future__ import annotations

import math
import threading

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

# Batches are padded with zero points to a multiple of PAD columns. BLAS matrix products
# process columns in fixed-width groups and treat a ragged remainder with other kernels whose
# rounding differs; with full groups only, every point's value is bitwise independent of the
# size of the batch it is evaluated in (column unrolls of the common x86/ARM kernels divide 8).
PAD = 8
# Columns per BLAS call in rotate (a multiple of PAD).
BLAS_BLOCK = 256


class Arena:
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
        """The next scratch buffer, viewed with ``shape`` (contents undefined)."""
        size = math.prod(shape)
        i = self.top
        if i == len(self._bufs):
            self._bufs.append(np.empty(size))
        elif self._bufs[i].size < size:
            self._bufs[i] = np.empty(size)
        self.top = i + 1
        return self._bufs[i][:size].reshape(shape)


_LOCAL = threading.local()


def thread_arena() -> Arena:
    """This thread's scratch arena (created on first use)."""
    arena: Arena | None = getattr(_LOCAL, "arena", None)
    if arena is None:
        arena = _LOCAL.arena = Arena()
    return arena


def _rowwise(a: FloatArray) -> bool:
    """True where one ``ufunc.reduce`` over axis 0 of ``a`` (n, N) adds (multiplies) whole rows
    in row order: contiguous rows of at least ``PAD`` columns keep the columns as NumPy's inner
    loop, an elementwise loop (pairwise summation only runs along an inner reduction axis)."""
    return a.shape[1] >= PAD and a.strides[1] == a.itemsize and a.strides[0] > 0


def sum_over_coords(a: FloatArray, ar: Arena) -> FloatArray:
    """Column sums of ``a`` (n, N), accumulated row by row (the C code's order).

    One ``np.add.reduce`` from ``-0.0``, the exact identity of ``+`` (``-0.0 + x`` is ``x``,
    signed zeros included), gives the doubles of ``a[0] + a[1] + ...`` in one call instead
    of one call per row; other layouts take the row loop.
    """
    out = ar.take(a.shape[1])
    if _rowwise(a):
        return np.add.reduce(a, axis=0, out=out, initial=-0.0)
    np.copyto(out, a[0])
    for row in a[1:]:
        out += row
    return out


def prod_over_coords(a: FloatArray, ar: Arena) -> FloatArray:
    """Column products of ``a`` (n, N), accumulated row by row (one ``np.multiply.reduce``
    from the exact identity ``1.0`` where :func:`sum_over_coords` makes one reduce call)."""
    out = ar.take(a.shape[1])
    if _rowwise(a):
        return np.multiply.reduce(a, axis=0, out=out, initial=1.0)
    np.copyto(out, a[0])
    for row in a[1:]:
        out *= row
    return out


def sumsq_over_coords(a: FloatArray, ar: Arena) -> FloatArray:
    """Column sums of squares of ``a`` (n, N), row by row."""
    sq = ar.take(*a.shape)
    np.multiply(a, a, out=sq)
    return sum_over_coords(sq, ar)


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


def _sin_cos(x: FloatArray, cosine: bool, ar: Arena) -> FloatArray:
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


def fast_sin(x: FloatArray, ar: Arena) -> FloatArray:
    """``sin(x)`` elementwise (see ``_sin_cos``), an arena buffer."""
    return _sin_cos(x, False, ar)


def fast_cos(x: FloatArray, ar: Arena) -> FloatArray:
    """``cos(x)`` elementwise (see ``_sin_cos``), an arena buffer."""
    return _sin_cos(x, True, ar)


def rotate(rot: FloatArray, y: FloatArray, ar: Arena) -> FloatArray:
    """``z = M y`` for all columns of ``y``, as BLAS products over blocks of columns.

    Blocks of ``BLAS_BLOCK`` columns keep every product below OpenBLAS's multithreading
    threshold (m n k < 262144): for matrices this small, BLAS threads only add overhead, and on
    an oversubscribed machine their spin-waiting stalls a call for tens of milliseconds.
    """
    out = ar.take(*y.shape)
    for s in range(0, y.shape[1], BLAS_BLOCK):
        np.matmul(rot, y[:, s : s + BLAS_BLOCK], out=out[:, s : s + BLAS_BLOCK])
    return out
