"""Kalman filters of the KR210 study: the EKF (M1, Eq 16-22) with GSBISE (Eq 24-25), its
linear-model form inside the Eq 29 fitness of the noise factors (Eq 26-27), and the UKF (M4).

All filters are batched over runs and stack every training point into one measurement
(z_k in R^{3n}); the noise model is C = alpha C0, S = beta S0, R = gamma R0 (Eq 26) with the
Eq 28 draws of :func:`paramid.calibration.problem.noise_bases`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from paramid.calibration.problem import FloatArray, Problem, state_scale

__all__ = ["FilterResult", "NoiseFactorFitness", "ekf", "linear_filter", "ukf", "ukf_update"]


@dataclass(frozen=True)
class FilterResult:
    """Batched filter output: posterior estimates after each iteration, native units.

    ``path`` (runs, K, r): x̂_{k|k} of Eq 21 after iteration k = 1..K (Algorithm 2 line 14,
    before the GSBISE compensation); ``priors`` (runs, K, r): x̂_{k|k-1}, the state each
    iteration started from (Eq 16; after Eq 25 with GSBISE); ``x`` = path[:, -1]; ``C``
    (runs, r, r) the final posterior covariance in filter units.
    """

    path: FloatArray
    C: FloatArray
    priors: FloatArray

    @property
    def x(self) -> FloatArray:
        """Final estimates (runs, r)."""
        return self.path[:, -1]


def _symmetrise(C: FloatArray) -> FloatArray:
    return 0.5 * (C + np.swapaxes(C, -1, -2))


def _noise_model(
    C0: ArrayLike, S0: ArrayLike, R0: ArrayLike, factors: ArrayLike
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Eq 26 per run: C = alpha C0 as a matrix (runs, r, r), S = beta S0 (runs, r) and
    R = gamma R0 (runs, 3n) as diagonals, from the Eq 28 draws and ``factors`` (runs, 3)."""
    C0, S0, R0 = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (C0, S0, R0))
    factors = np.atleast_2d(np.asarray(factors, dtype=np.float64))
    runs, r = C0.shape
    C = np.zeros((runs, r, r))
    C[:, np.arange(r), np.arange(r)] = factors[:, :1] * C0
    return C, factors[:, 1:2] * S0, factors[:, 2:3] * R0


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
    Y = np.linalg.solve(lhs, rhs)
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
    """Batched EKF of Eq 16-22 over runs, relinearised at the prior of each iteration.

    Per run: C = alpha C0, S = beta S0, R = gamma R0 (Eq 26; ``factors`` (runs, 3) linear,
    C0/S0 (runs, r), R0 (runs, 3n) diagonals in filter units).  Iteration k: x̂_{k|k-1} =
    x̂_{k-1} (Eq 16), C- = C + S (Eq 18), H_k = dP/de at x̂_{k|k-1} (Eq 10, all n training
    points stacked: z_k in R^{3n}, Eq 19), gain and updates of Eq 20-22 with the innovation
    z - h(x̂_{k|k-1}) of the nonlinear model (the linearisation of Eq 13).  With ``gsbise``
    the next prior is x̂_{k|k} + Δx̂_k, Δx̂_k = x̂_{k|k} - x̂_{k-1} (Eq 24-25).
    """
    C, S, R = _noise_model(C0, S0, R0, factors)
    runs, r = S.shape
    scale = state_scale(problem, length_unit_mm)
    z = problem.p_train.reshape(-1)
    x = np.zeros((runs, r)) if x0 is None else np.array(np.broadcast_to(x0, (runs, r)))
    W = 1.0 / R  # R^-1 diagonal (runs, 3n)
    path = np.empty((runs, iterations, r))
    priors = np.empty((runs, iterations, r))
    for k in range(iterations):
        priors[:, k] = x
        H, h = problem.jacobian(x)
        H = H * scale  # filter units
        HW = H * W[..., None]
        A = np.swapaxes(HW, -1, -2) @ H
        g = np.einsum("rmi,rm->ri", HW, z - h)
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx * scale
        path[:, k] = post
        x = post + (post - x) if gsbise else post
    return FilterResult(path=path, C=C, priors=priors)


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
    """The EKF of :func:`ekf` on the linear error model (Eq 9, 19), in r-space; batched.

    With H fixed at the nominal table, A = H^T R^-1 H = M / gamma and H^T R^-1 (z - H x) =
    (b - M x) / gamma for M = H^T R0^-1 H and b = H^T R0^-1 z0 (per run).  Shapes: M (runs,
    r, r), b (runs, r), C0/S0 (runs, r), factors (runs, pop, 3) linear; returns the final
    posterior x̂_{K|K} (runs, pop, r) in filter units.  Every step is an r x r solve, so a
    whole population of filters costs about as much as one pass over the data.
    """
    runs, pop, _ = factors.shape
    r = M.shape[-1]
    alpha, beta, gamma = (factors[..., i : i + 1] for i in range(3))
    A = M[:, None] / gamma[..., None]  # (runs, pop, r, r)
    bg = b[:, None] / gamma
    C = np.zeros((runs, pop, r, r))
    idx = np.arange(r)
    C[..., idx, idx] = alpha * C0[:, None]
    S = beta * S0[:, None]
    x = np.zeros((runs, pop, r))
    post = x
    for _ in range(iterations):
        g = bg - (A @ x[..., None])[..., 0]
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx
        x = post + (post - x) if gsbise else post
    return post


class NoiseFactorFitness:
    """Eq 29 as a batched objective of w = log10(alpha, beta, gamma) (Eq 27), (runs, pop, 3).

    f = (1/n) sum_i |ΔP_i - J_i x̂_EKF(C, S, R)| on the training points, J_i the error model
    of Eq 9 at the nominal table and x̂ the output of the (linear-model) filter after
    ``iterations`` iterations, with or without GSBISE.  With one iteration from x0 = 0 the
    linear model is exact: it is the first iteration of :func:`ekf` (H and h at x0).  We
    read Eq 29's |J_i x̂ T| as the remaining error after compensating the measured ΔP_i
    (|J_i x̂| alone is minimised by x̂ = 0).  Run r uses its own Eq 28 draws (C0/S0/R0 rows r).
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
        self.H = H0 * self.scale
        self.z0 = z0
        W = 1.0 / np.atleast_2d(R0)
        HW = self.H[None] * W[..., None]
        self.M = np.swapaxes(HW, -1, -2) @ self.H
        self.b = np.einsum("rmi,m->ri", HW, z0)
        self.C0, self.S0 = np.atleast_2d(C0), np.atleast_2d(S0)
        self.iterations, self.gsbise = int(iterations), bool(gsbise)

    def estimates(self, W: ArrayLike) -> FloatArray:
        """Filter outputs (runs, pop, r) in native units for log-factors W (runs, pop, 3)."""
        factors = 10.0 ** np.asarray(W, dtype=np.float64)
        x = linear_filter(
            self.M, self.b, self.C0, self.S0, factors, self.iterations, gsbise=self.gsbise
        )
        return x * self.scale

    def __call__(self, W: FloatArray) -> FloatArray:
        x = self.estimates(W) / self.scale
        resid = self.z0 - x @ self.H.T
        d = np.linalg.norm(resid.reshape(*resid.shape[:-1], -1, 3), axis=-1)
        f = d.mean(axis=-1)
        return np.where(np.isfinite(f), f, np.inf)


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
