"""The basic functions of the CEC 2022 suite (TR, section 2, and ``cec22_test_func.cpp``).

Points are coordinate-major: ``z`` has shape ``(n, N)`` and holds ``N`` points after shift,
shrink and rotation (see ``paramid.cec2022.suite``).  Each function leaves ``z`` untouched
and returns an ``(N,)`` buffer of the scratch arena ``ar`` (``paramid.cec2022.kernels``).
Sums over coordinates run in the C code's order, so the values equal the C code's doubles.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from paramid.cec2022.kernels import (
    Arena,
    FloatArray,
    fast_cos,
    fast_sin,
    prod_over_coords,
    sum_over_coords,
    sumsq_over_coords,
)

#: A basic function: coordinate-major points ``(n, N)`` and an arena -> values ``(N,)``.
BasicFunction = Callable[[FloatArray, Arena], FloatArray]

_E = 2.7182818284590452353602874713526625
_PI = 3.1415926535897932384626433832795029


def zakharov(z: FloatArray, ar: Arena) -> FloatArray:
    """Zakharov: sum z_i^2 + s^2 + s^4, s = sum 0.5 i z_i."""
    n, npts = z.shape
    s1 = sumsq_over_coords(z, ar)
    wz = ar.take(n, npts)
    np.multiply((0.5 * np.arange(1, n + 1, dtype=np.float64))[:, None], z, out=wz)
    s2 = sum_over_coords(wz, ar)
    s2 *= s2
    out = ar.take(npts)
    np.add(s1, s2, out=out)
    s2 *= s2
    out += s2
    return out


def rosenbrock(z: FloatArray, ar: Arena) -> FloatArray:
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
    return sum_over_coords(t1, ar)


def schaffer_f7(y: FloatArray, ar: Arena) -> FloatArray:
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
    t = fast_sin(arg, ar)
    rt = arg
    np.sqrt(s, out=rt)
    t *= t
    t *= rt
    t += rt
    f = sum_over_coords(t, ar)
    f *= f
    f /= n - 1
    f /= n - 1
    return f


def rastrigin(z: FloatArray, ar: Arena) -> FloatArray:
    """Rastrigin: sum z_i^2 - 10 cos(2 pi z_i) + 10."""
    arg = ar.take(*z.shape)
    np.multiply(z, 2.0 * _PI, out=arg)
    c = fast_cos(arg, ar)
    c *= -10.0
    np.multiply(z, z, out=arg)
    c += arg
    c += 10.0
    return sum_over_coords(c, ar)


def levy(z: FloatArray, ar: Arena) -> FloatArray:
    """Levy, w = 1 + z/4: sin^2(pi w_1) + sum_{i<n} (w_i - 1)^2 (1 + 10 sin^2(pi w_i + 1))
    + (w_n - 1)^2 (1 + sin^2(2 pi w_n))."""
    n, npts = z.shape
    w = ar.take(n, npts)
    np.divide(z, 4.0, out=w)
    w += 1.0
    a = ar.take(n - 1, npts)
    np.multiply(w[:-1], _PI, out=a)
    a += 1.0
    s = fast_sin(a, ar)
    s *= s
    s *= 10.0
    s += 1.0
    np.subtract(w[:-1], 1.0, out=a)
    a *= a
    s *= a
    mid = sum_over_coords(s, ar)
    e = ar.take(npts)
    np.multiply(w[0], _PI, out=e)
    s0 = fast_sin(e, ar)
    np.multiply(w[-1], 2.0 * _PI, out=e)
    sl = fast_sin(e, ar)
    sl *= sl
    sl += 1.0
    np.subtract(w[-1], 1.0, out=e)
    e *= e
    sl *= e  # term3
    s0 *= s0  # term1
    s0 += mid
    s0 += sl
    return s0


def bent_cigar(z: FloatArray, ar: Arena) -> FloatArray:
    """Bent cigar: z_1^2 + 1e6 sum_{i>1} z_i^2."""
    sq = ar.take(*z.shape)
    np.multiply(z[0], z[0], out=sq[0])
    np.multiply(z[1:], 1.0e6, out=sq[1:])
    sq[1:] *= z[1:]
    return sum_over_coords(sq, ar)


def discus(z: FloatArray, ar: Arena) -> FloatArray:
    """Discus: 1e6 z_1^2 + sum_{i>1} z_i^2."""
    sq = ar.take(*z.shape)
    np.multiply(z[0], 1.0e6, out=sq[0])
    sq[0] *= z[0]
    np.multiply(z[1:], z[1:], out=sq[1:])
    return sum_over_coords(sq, ar)


def ellips(z: FloatArray, ar: Arena) -> FloatArray:
    """High-conditioned elliptic: sum 10^(6 (i-1)/(n-1)) z_i^2."""
    n = z.shape[0]
    c = np.array([math.pow(10.0, 6.0 * i / (n - 1)) for i in range(n)])
    sq = ar.take(*z.shape)
    np.multiply(c[:, None], z, out=sq)
    sq *= z
    return sum_over_coords(sq, ar)


def _hg_sums(z: FloatArray, ar: Arena) -> tuple[FloatArray, FloatArray]:
    """r2 = sum (z_i - 1)^2 and s = sum (z_i - 1) (HGBat, HappyCat)."""
    zm = ar.take(*z.shape)
    np.subtract(z, 1.0, out=zm)
    s = sum_over_coords(zm, ar)
    zm *= zm
    return sum_over_coords(zm, ar), s


def _add_hg_tail(out: FloatArray, r2: FloatArray, s: FloatArray, n: int) -> FloatArray:
    """``out + (r2/2 + s)/n + 1/2``, the common tail of HGBat and HappyCat (in place)."""
    r2 *= 0.5
    r2 += s
    r2 /= n
    out += r2
    out += 0.5
    return out


def hgbat(z: FloatArray, ar: Arena) -> FloatArray:
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
    return _add_hg_tail(out, r2, s, n)


def happycat(z: FloatArray, ar: Arena) -> FloatArray:
    """HappyCat on ``z - 1``: |r2 - n|^(1/4) + (r2/2 + s)/n + 1/2."""
    n = z.shape[0]
    r2, s = _hg_sums(z, ar)
    out = ar.take(z.shape[1])
    np.subtract(r2, n, out=out)
    np.abs(out, out=out)
    np.power(out, 0.25, out=out)
    return _add_hg_tail(out, r2, s, n)


def katsuura(z: FloatArray, ar: Arena) -> FloatArray:
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
    f = prod_over_coords(temp, ar)
    c = 10.0 / n / n
    f *= c
    f -= c
    return f


def ackley(z: FloatArray, ar: Arena) -> FloatArray:
    """Ackley: e + 20 - 20 exp(-0.2 sqrt(mean z_i^2)) - exp(mean cos(2 pi z_i))."""
    n = z.shape[0]
    s1 = sumsq_over_coords(z, ar)
    s1 /= n
    np.sqrt(s1, out=s1)
    s1 *= -0.2
    arg = ar.take(*z.shape)
    np.multiply(z, 2.0 * _PI, out=arg)
    s2 = sum_over_coords(fast_cos(arg, ar), ar)
    s2 /= n
    np.exp(s1, out=s1)
    s1 *= -20.0
    np.exp(s2, out=s2)
    out = ar.take(z.shape[1])
    np.add(s1, _E, out=out)  # E - 20 exp(s1) evaluated as (-20 exp(s1)) + E: same double
    out -= s2
    out += 20.0
    return out


def schwefel(z: FloatArray, ar: Arena) -> FloatArray:
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
    s = fast_sin(arg, ar)
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
    out = sum_over_coords(au, ar)
    out += 4.189828872724338e002 * n
    return out


def griewank(z: FloatArray, ar: Arena) -> FloatArray:
    """Griewank: 1 + sum z_i^2 / 4000 - prod cos(z_i / sqrt(i))."""
    n = z.shape[0]
    s = sumsq_over_coords(z, ar)
    arg = ar.take(*z.shape)
    np.divide(z, np.sqrt(1.0 + np.arange(n, dtype=np.float64))[:, None], out=arg)
    p = prod_over_coords(fast_cos(arg, ar), ar)
    s /= 4000.0
    s += 1.0
    s -= p
    return s


def grie_rosen(z: FloatArray, ar: Arena) -> FloatArray:
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
    c = fast_cos(t, ar)
    t *= t
    t /= 4000.0
    t -= c
    t += 1.0
    return sum_over_coords(t, ar)


def escaffer6(z: FloatArray, ar: Arena) -> FloatArray:
    """Expanded Schaffer f6 over cyclic pairs: sum 0.5 + (sin^2(sqrt q) - 0.5)/(1 + q/1000)^2,
    q = z_i^2 + z_i+1^2."""
    n, npts = z.shape
    z2 = ar.take(n, npts)
    np.multiply(z, z, out=z2)
    q = ar.take(n, npts)
    np.add(z2[:-1], z2[1:], out=q[:-1])
    np.add(z2[-1], z2[0], out=q[-1])
    np.sqrt(q, out=z2)
    s = fast_sin(z2, ar)
    s *= s
    s -= 0.5
    q *= 0.001
    q += 1.0
    q *= q
    s /= q
    s += 0.5
    return sum_over_coords(s, ar)
