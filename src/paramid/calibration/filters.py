"""Kalman filters of the KR210 study: the EKF (M1, Eq 16-22) with GSBISE (Eq 24-25) in both
readings of Algorithm 2, the Eq 29 fitness of the noise factors (Eq 26-27) and the UKF (M4).

Readings of Algorithm 2 lines 5-19 (:data:`READINGS`)
    ``batch`` (:func:`ekf`): iteration k stacks all n training points into one measurement
    (z_k in R^{3n}, H_k in R^{3n x r}, K_k in R^{r x 3n} as Eq 19-20 state); GSBISE once per
    iteration.
    ``sequential`` (:func:`sequential_ekf`): the literal nesting "for k = 1..K, for i = 1..N"
    of lines 5-6: one update per point with its 3 x r Jacobian; Eq 18 and GSBISE (Eq 24-25,
    lines 15-16) run inside the per-point loop.

All filters are batched over leading dims (runs, population members): the noise model is
C = alpha C0, S = beta S0, R = gamma R0 (Eq 26) with the Eq 28 draws of
:func:`paramid.calibration.problem.noise_bases`; their leading dims broadcast against those of
the factors.  A diverging filter returns its (huge or non-finite) estimates, never an
exception; the identifiers flag it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from paramid.calibration.problem import FloatArray, Problem, state_scale

__all__ = [
    "READINGS",
    "FilterResult",
    "LinearSurrogateFitness",
    "NoiseFactorFitness",
    "ekf",
    "eq29_fitness",
    "linear_filter",
    "sequential_ekf",
    "ukf",
    "ukf_update",
]


@dataclass(frozen=True)
class FilterResult:
    """Batched filter output: posterior estimates after each iteration, native units.

    ``path`` (..., K, r): x̂_{k|k} of Eq 21 after iteration k = 1..K (Algorithm 2 line 14,
    before the GSBISE compensation; the sequential reading: after the last point of pass k);
    ``priors`` (..., K, r): the state iteration k started from (Eq 16; after Eq 25 with
    GSBISE); ``x`` = path[..., -1, :]; ``C`` (..., r, r) the final posterior covariance in
    filter units.
    """

    path: FloatArray
    C: FloatArray
    priors: FloatArray

    @property
    def x(self) -> FloatArray:
        """Final estimates (..., r)."""
        return self.path[..., -1, :]

    def member(self, index: int) -> FilterResult:
        """Filter ``index`` of the flattened leading dims, with one leading dim (1, ...)."""
        K, r = self.path.shape[-2:]
        return FilterResult(
            path=self.path.reshape(-1, K, r)[index : index + 1],
            C=self.C.reshape(-1, r, r)[index : index + 1],
            priors=self.priors.reshape(-1, K, r)[index : index + 1],
        )


#: A filter with the signature of :func:`ekf`.
FilterFn = Callable[..., FilterResult]


def _symmetrise(C: FloatArray) -> FloatArray:
    return 0.5 * (C + np.swapaxes(C, -1, -2))


def _solve(A: FloatArray, B: FloatArray) -> FloatArray:
    """np.linalg.solve over leading dims; a singular system (a diverged filter) gives NaN for
    its own member instead of an exception for the whole batch."""
    try:
        return np.asarray(np.linalg.solve(A, B), dtype=np.float64)
    except np.linalg.LinAlgError:
        singular = np.linalg.det(A) == 0.0
        eye = np.broadcast_to(np.eye(A.shape[-1]), A.shape)
        out = np.asarray(np.linalg.solve(np.where(singular[..., None, None], eye, A), B))
        out[singular] = np.nan
        return out


def _noise_model(
    C0: ArrayLike, S0: ArrayLike, R0: ArrayLike, factors: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Eq 26 per filter: C = alpha C0 as a matrix (..., r, r), S = beta S0 (..., r) and
    R = gamma R0 (..., 3n) as diagonals.  The leading dims of the Eq 28 draws (at least one)
    and of ``factors`` (..., 3) broadcast."""
    C0, S0, R0 = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (C0, S0, R0))
    factors = np.atleast_2d(np.asarray(factors, dtype=np.float64))
    Cd, S, R = (factors[..., i : i + 1] * base for i, base in enumerate((C0, S0, R0)))
    batch = np.broadcast_shapes(Cd.shape[:-1], S.shape[:-1], R.shape[:-1])
    r = Cd.shape[-1]
    C = np.zeros((*batch, r, r))
    C[..., np.arange(r), np.arange(r)] = Cd
    return C, np.broadcast_to(S, (*batch, r)), np.broadcast_to(R, (*batch, R.shape[-1]))


def _start(x0: ArrayLike | None, shape: tuple[int, ...]) -> FloatArray:
    """The initial state (native units): zeros (the nominal table) or ``x0`` broadcast."""
    return np.zeros(shape) if x0 is None else np.array(np.broadcast_to(x0, shape), dtype=float)


def _kalman_step(
    C: FloatArray, S: FloatArray, A: FloatArray, g: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """One batch update (Eq 18, 20-22) in information form; returns (C_post, dx).

    With C- = C + S (Eq 18), A = H^T R^-1 H and g = H^T R^-1 (z - h(x-)):
    K(z - h) = C- H^T (H C- H^T + R)^-1 (z - h) = (I + C- A)^-1 C- g and
    C+ = (I - K H) C- = (I + C- A)^-1 C- (Woodbury), an r x r solve instead of a 3n x 3n one.
    """
    r = C.shape[-1]
    Cm = C.copy()
    idx = np.arange(r)
    Cm[..., idx, idx] += S
    lhs = np.eye(r) + Cm @ A
    rhs = np.concatenate([Cm, (Cm @ g[..., None])], axis=-1)
    Y = _solve(lhs, rhs)
    return _symmetrise(Y[..., :r]), Y[..., r]


def ekf(
    problem: Problem,
    C0: ArrayLike,
    S0: ArrayLike,
    R0: ArrayLike,
    factors: ArrayLike,
    iterations: int,
    *,
    gsbise: bool = False,
    length_unit_mm: float = 1.0,
    x0: ArrayLike | None = None,
) -> FilterResult:
    """Batch reading of Algorithm 2 (Eq 16-22), relinearised at the prior of each iteration.

    Per filter: C = alpha C0, S = beta S0, R = gamma R0 (Eq 26; ``factors`` (..., 3) linear,
    C0/S0 (..., r), R0 (..., 3n) diagonals in filter units).  Iteration k: x̂_{k|k-1} =
    x̂_{k-1} (Eq 16), C- = C + S (Eq 18), H_k = dP/de at x̂_{k|k-1} (Eq 10, all n training
    points stacked: z_k in R^{3n}, Eq 19), gain and updates of Eq 20-22 with the innovation
    z - h(x̂_{k|k-1}) of the nonlinear model (the linearisation of Eq 13).  With ``gsbise``
    the next prior is x̂_{k|k} + Δx̂_k, Δx̂_k = x̂_{k|k} - x̂_{k-1} (Eq 24-25).
    """
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    scale = state_scale(problem, length_unit_mm)
    outer = scale[:, None] * scale  # native -> filter units of A = H^T R^-1 H
    z = problem.p_train.reshape(-1)
    x = _start(x0, (*batch, r))
    W = 1.0 / R  # R^-1 diagonal (..., 3n)
    path = np.empty((*batch, iterations, r))
    priors = np.empty((*batch, iterations, r))
    for k in range(iterations):
        priors[..., k, :] = x
        H, h = problem.jacobian(x)
        HtW = np.swapaxes(H * W[..., None], -1, -2)  # H^T R^-1, native units
        A = (HtW @ H) * outer
        g = (HtW @ (z - h)[..., None])[..., 0] * scale
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx * scale
        path[..., k, :] = post
        x = post + (post - x) if gsbise else post
    return FilterResult(path=path, C=C, priors=priors)


def sequential_ekf(
    problem: Problem,
    C0: ArrayLike,
    S0: ArrayLike,
    R0: ArrayLike,
    factors: ArrayLike,
    iterations: int,
    *,
    gsbise: bool = False,
    length_unit_mm: float = 1.0,
    x0: ArrayLike | None = None,
) -> FilterResult:
    """Sequential reading of Algorithm 2: lines 5-19 as written, ``for k in 1..K: for i in 1..N``.

    Noise model and shapes as :func:`ekf`.  Per training point i, at the current state x:
    x̂⁻ = x (Eq 16), C⁻ = C + S (Eq 18), H_i = dP_i/de at x (Eq 10, 3 x r), innovation
    z_i - h_i(x) of the nonlinear model (Eq 19, 13), K_i = C⁻ H_iᵀ (H_i C⁻ H_iᵀ + R_i)⁻¹ with
    R_i = gamma R0[3i:3i+3] (Eq 20), x̂ = x + K_i (z_i - h_i) (Eq 21), C = (I - K_i H_i) C⁻
    (Eq 22); with ``gsbise`` the next point starts from x̂ + Δx̂, Δx̂ = x̂ - x (Eq 24-25 inside
    the per-point loop, lines 15-16).  C is symmetrised once per pass.
    """
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    n = problem.p_train.shape[0]
    R = R.reshape(*batch, n, 3)
    z = problem.p_train
    scale = state_scale(problem, length_unit_mm)
    x = _start(x0, (*batch, r))
    diag = C.reshape(*batch, r * r)[..., :: r + 1]  # a view: Eq 18 adds S in place
    path = np.empty((*batch, iterations, r))
    priors = np.empty((*batch, iterations, r))
    post = x
    for k in range(iterations):
        priors[..., k, :] = x
        for i in range(n):
            diag += S  # Eq 18
            H, h = problem.jacobian(x, "train", slice(i, i + 1))
            H = H * scale  # filter units
            HC = H @ C
            G = HC @ np.swapaxes(H, -1, -2)  # H C⁻ Hᵀ + R_i (3 x 3)
            G.reshape(*batch, 9)[..., ::4] += R[..., i, :]
            KT = _solve(G, HC)  # K_iᵀ (Eq 20)
            step = ((z[i] - h)[..., None, :] @ KT)[..., 0, :] * scale  # Eq 21
            C -= np.swapaxes(KT, -1, -2) @ HC  # Eq 22
            post = x + step
            x = post + (post - x) if gsbise else post
        path[..., k, :] = post
        C[...] = _symmetrise(C)
    return FilterResult(path=path, C=C, priors=priors)


#: The two readings of Algorithm 2 lines 5-19 by name (the keys of config ``tuning.reduced``).
READINGS: dict[str, FilterFn] = {"batch": ekf, "sequential": sequential_ekf}


def linear_filter(
    M: FloatArray,
    b: FloatArray,
    C0: FloatArray,
    S0: FloatArray,
    factors: FloatArray,
    iterations: int,
    *,
    gsbise: bool = False,
) -> FloatArray:
    """The batch EKF of :func:`ekf` on the linear error model (Eq 9, 19), in r-space.

    With H fixed at the nominal table, A = H^T R^-1 H = M / gamma and H^T R^-1 (z - H x) =
    (b - M x) / gamma for M = H^T R0^-1 H (r, r) and b = H^T R0^-1 z0 (r,) of one run;
    C0/S0 (r,), ``factors`` (..., 3) linear; returns x̂_{K|K} (..., r) in filter units.
    """
    factors = np.asarray(factors, dtype=np.float64)
    r = M.shape[-1]
    alpha, beta, gamma = (factors[..., i : i + 1] for i in range(3))
    A = M / gamma[..., None]  # (..., r, r)
    bg = b / gamma
    C = np.zeros((*factors.shape[:-1], r, r))
    idx = np.arange(r)
    C[..., idx, idx] = alpha * C0
    S = beta * S0
    x = np.zeros((*factors.shape[:-1], r))
    post = x
    for _ in range(iterations):
        g = bg - (A @ x[..., None])[..., 0]
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx
        x = post + (post - x) if gsbise else post
    return post


def eq29_fitness(H0: FloatArray, z0: FloatArray, x: FloatArray) -> FloatArray:
    """Eq 29: f = (1/n) sum_i |ΔP_i - J_i x| (...,) for estimates x (..., r), native units.

    J_i (H0 (3n, r)) and ΔP_i (z0 (3n,)) are the error model of Eq 9 at the nominal table on
    the training points.  We read Eq 29's |J_i x̂ T| as the remaining error after compensating
    the measured ΔP_i (|J_i x̂| alone is minimised by x̂ = 0).  Non-finite values become +inf.
    """
    resid = z0 - x @ H0.T
    f = np.linalg.norm(resid.reshape(*resid.shape[:-1], -1, 3), axis=-1).mean(axis=-1)
    return np.where(np.isfinite(f), f, np.inf)


class NoiseFactorFitness:
    """Eq 29 of one run as a batched objective of w = log10(alpha, beta, gamma) (Eq 27).

    x̂(w) is the output of ``run_filter`` (:data:`READINGS`: the filter that Algorithm 2
    lines 5-19 run, ``iterations`` iterations, GSBISE for M5) with C = alpha C0, S = beta S0,
    R = gamma R0 (Eq 26) and the run's Eq 28 draws C0, S0 (r,), R0 (3n,).  W (..., 3): the
    whole population is one batch of filters; a diverged filter scores +inf.  The filter
    output of the best w so far (strict improvement, the first in a batch on ties: the
    optimisers' rule) is kept, so :meth:`result` does not run the filter again.
    """

    def __init__(
        self,
        problem: Problem,
        C0: FloatArray,
        S0: FloatArray,
        R0: FloatArray,
        run_filter: FilterFn,
        iterations: int,
        *,
        gsbise: bool,
        length_unit_mm: float = 1.0,
    ) -> None:
        self.problem = problem
        self.H0, self.z0 = problem.linearised()
        self.bases = (C0, S0, R0)
        self.run_filter = run_filter
        self.iterations, self.gsbise = int(iterations), bool(gsbise)
        self.length_unit_mm = float(length_unit_mm)
        self.best_f = np.inf
        self._best: tuple[bytes, FilterResult] | None = None

    def run(self, W: ArrayLike) -> FilterResult:
        """The filters (..., K, r) for log-factors W (..., 3)."""
        factors = 10.0 ** np.asarray(W, dtype=np.float64)
        return self.run_filter(
            self.problem,
            *self.bases,
            factors,
            self.iterations,
            gsbise=self.gsbise,
            length_unit_mm=self.length_unit_mm,
        )

    def __call__(self, W: FloatArray) -> FloatArray:
        W = np.asarray(W, dtype=np.float64)
        with np.errstate(all="ignore"):  # a diverging candidate overflows: it scores +inf
            res = self.run(W)
            f = eq29_fitness(self.H0, self.z0, res.x)
        j = int(np.argmin(f))
        if f.reshape(-1)[j] < self.best_f:
            self.best_f = float(f.reshape(-1)[j])
            self._best = (W.reshape(-1, 3)[j].tobytes(), res.member(j))
        return f

    def result(self, w: ArrayLike) -> FilterResult:
        """The filter (leading dim 1) for log-factors w (3,): kept when w is the best so far,
        else run (e.g. when every candidate diverged)."""
        w = np.asarray(w, dtype=np.float64)
        if self._best is not None and self._best[0] == w.tobytes():
            return self._best[1]
        return self.run(w[None])


class LinearSurrogateFitness:
    """Eq 29 of one run with x̂ from :func:`linear_filter` (the linear error model at the
    nominal table, ``iterations`` updates): a cheap surrogate of :class:`NoiseFactorFitness`,
    not the filter that Algorithm 2 runs.  With one iteration it is the first iteration of
    :func:`ekf` (H and h at x0 = 0).  W (..., 3) as :class:`NoiseFactorFitness`.
    """

    def __init__(
        self,
        problem: Problem,
        C0: FloatArray,
        S0: FloatArray,
        R0: FloatArray,
        iterations: int,
        *,
        gsbise: bool,
        length_unit_mm: float = 1.0,
    ) -> None:
        H0, z0 = problem.linearised()
        self.scale = state_scale(problem, length_unit_mm)
        self.H0, self.z0 = H0, z0
        H = H0 * self.scale
        HW = H / np.asarray(R0)[:, None]
        self.M = HW.T @ H
        self.b = HW.T @ z0
        self.C0, self.S0 = np.asarray(C0), np.asarray(S0)
        self.iterations, self.gsbise = int(iterations), bool(gsbise)

    def estimates(self, W: ArrayLike) -> FloatArray:
        """Filter outputs (..., r) in native units for log-factors W (..., 3)."""
        factors = 10.0 ** np.asarray(W, dtype=np.float64)
        x = linear_filter(
            self.M, self.b, self.C0, self.S0, factors, self.iterations, gsbise=self.gsbise
        )
        return x * self.scale

    def __call__(self, W: FloatArray) -> FloatArray:
        return eq29_fitness(self.H0, self.z0, self.estimates(W))


def _sigma_weights(
    n: int, alpha: float, beta: float, kappa: float
) -> tuple[FloatArray, FloatArray, float]:
    """Van der Merwe scaled sigma-point weights (Wm, Wc) and lambda."""
    lam = alpha**2 * (n + kappa) - n
    Wm = np.full(2 * n + 1, 0.5 / (n + lam))
    Wc = Wm.copy()
    Wm[0] = lam / (n + lam)
    Wc[0] = lam / (n + lam) + (1.0 - alpha**2 + beta)
    return Wm, Wc, np.float64(lam)


def ukf_update(
    x: FloatArray,
    P: FloatArray,
    z: FloatArray,
    R: FloatArray,
    hx: Callable[[FloatArray], FloatArray],
    *,
    alpha: float = 1.0,
    beta: float = 2.0,
    kappa: float = 0.0,
) -> tuple[FloatArray, FloatArray]:
    """One unscented measurement update, batched over runs: x (runs, n), P (runs, n, n).

    Sigma points x, x +- sqrt((n + lambda) P) columns (Cholesky), Van der Merwe weights;
    ``hx`` maps (runs, 2n+1, n) -> (runs, 2n+1, m); R (runs, m) is diagonal.  The m x m
    innovation covariance S = D Wc D^T + R is never formed: with all Wc > 0, Woodbury gives
    K = X' (Wc^-1 + D^T R^-1 D)^-1 D^T R^-1 and P+ = P - K S K^T = P - X' Wc D^T K^T.
    """
    runs, n = x.shape
    Wm, Wc, lam = _sigma_weights(n, alpha, beta, kappa)
    if np.any(Wc <= 0):
        raise ValueError("ukf_update needs positive covariance weights (e.g. alpha=1, kappa=0)")
    L = np.linalg.cholesky((n + lam) * P)
    Lt = np.swapaxes(L, -1, -2)  # rows = columns of L
    sig = np.concatenate([x[:, None], x[:, None] + Lt, x[:, None] - Lt], axis=1)
    Z = hx(sig)
    zbar = np.einsum("k,rkm->rm", Wm, Z)
    D = Z - zbar[:, None]  # (runs, 2n+1, m)
    Xd = sig - x[:, None]  # (runs, 2n+1, n)  (x is the weighted mean of the sigma points)
    DRi = D / R[:, None]
    G = DRi @ np.swapaxes(D, -1, -2)  # (runs, 2n+1, 2n+1)
    G[:, np.arange(2 * n + 1), np.arange(2 * n + 1)] += 1.0 / Wc
    B = np.linalg.solve(G, DRi)  # (Wc^-1 + D^T R^-1 D)^-1 D^T R^-1, (runs, 2n+1, m)
    K = np.swapaxes(Xd, -1, -2) @ B  # (runs, n, m)
    x_new = x + np.einsum("rnm,rm->rn", K, z - zbar)
    Pxz = np.swapaxes(Xd * Wc[:, None], -1, -2) @ D  # (runs, n, m)
    P_new = P - Pxz @ np.swapaxes(K, -1, -2)
    return x_new, _symmetrise(P_new)


def ukf(
    problem: Problem,
    C0: ArrayLike,
    S0: ArrayLike,
    R0: ArrayLike,
    factors: ArrayLike,
    iterations: int,
    *,
    alpha: float = 1.0,
    beta: float = 2.0,
    kappa: float = 0.0,
    length_unit_mm: float = 1.0,
) -> FilterResult:
    """UKF (M4) with the noise model of :func:`ekf`: random-walk prediction C- = C + S
    (Eq 18), then an unscented update with all n points stacked (z in R^{3n}), sigma points
    redrawn from (x̂_{k|k-1}, C-) every iteration and propagated through the nonlinear FK.
    """
    P, S, R = _noise_model(C0, S0, R0, factors)
    runs, r = S.shape
    scale = state_scale(problem, length_unit_mm)
    z = np.broadcast_to(problem.p_train.reshape(-1), (runs, problem.p_train.size))
    x = np.zeros((runs, r))

    def hx(sig: FloatArray) -> FloatArray:
        p = problem.predict(sig * scale, "train")  # (runs, 2r+1, n, 3)
        return p.reshape(*p.shape[:-2], -1)

    path = np.empty((runs, iterations, r))
    priors = np.empty((runs, iterations, r))
    for k in range(iterations):
        priors[:, k] = x * scale
        P = P.copy()
        P[:, np.arange(r), np.arange(r)] += S
        x, P = ukf_update(x, P, z, R, hx, alpha=alpha, beta=beta, kappa=kappa)
        path[:, k] = x * scale
    return FilterResult(path=path, C=P, priors=priors)
