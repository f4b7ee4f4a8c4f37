"""Kinematic calibration of the KR210 (paper §2.2-2.4, §3.2): identifiers and their metrics.

Problem
    Identify the geometric errors x = Δe (Eq 6) from laser-tracker positions of the SMR
    (Eq 1-2, 11).  Only an identifiable subset of the 24 parameters is estimated
    (:func:`identifiability`: QR with column pivoting of the column-scaled position Jacobian);
    the others stay at their nominal values.  Every identifier returns the same
    :class:`Fit` (estimates, per-iteration training RMSE, time), scored with Eq 45.

Identifiers (budgets of §3.2.1: 60 iterations, hybrids 30 + 30, MIPO population 100)
    ``bc``           before compensation: the nominal table.
    ``ekf``          M1, Eq 16-22, batch form (z_k in R^{3n}), relinearised every iteration,
                     fixed "manual" noise factors applied to the Eq 28 draws (Eq 26).
    ``ekf_gsbise``   M1 + the gradient stabiliser of Eq 24-25.
    ``ekf_mipo``     M1 with (alpha, beta, gamma) of Eq 26-27 tuned by MIPO on Eq 29.
    ``mipo_arkekf``  M5 = Algorithm 2: MIPO-tuned factors + EKF + GSBISE.
    ``ipso``         M2, improved PSO on the training RMSE (``optim.calibration_swarms``).
    ``lasso``        M3, L1-penalised least squares (coordinate descent, lambda by K-fold CV).
    ``ukf``          M4, unscented Kalman filter with the same noise model as M1.
    ``lm_ga``        Levenberg-Marquardt (scipy, 30 iterations) then a GA (30 generations).
    ``ekf_dqpso``    EKF (30 iterations) then DQPSO (30 iterations).

Units
    Estimates are reported in rad (alpha, theta) and mm (a, d), positions in mm.  Inside the
    Kalman filters lengths are expressed in ``state_length_unit_mm`` (1 = mm, the unit of
    Table 1; 1000 = m), which fixes what the ranges of Eq 26-27 mean for the length prior.

Eq 28 draws C0, S0, R0 = diag(randn): a covariance with a negative diagonal is not a
covariance, so we read it as diag(|randn|) (half-normal magnitudes; positive definite with
probability 1), drawn per run from the stream ``(study, "eq28", run)`` and shared by every
EKF/UKF variant, so the ablation rows of run r differ only in the method.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy.optimize import least_squares

from paramid.calibration import kinematics as kin
from paramid.optim import METHODS, LinearRMSE, OptimResult
from paramid.optim.calibration_swarms import LOCAL_METHODS
from paramid.seeding import generator, seed_sequence

FloatArray = NDArray[np.float64]

__all__ = [
    "IDENTIFIERS",
    "LABELS",
    "Fit",
    "Identifiability",
    "NoiseFactorFitness",
    "Problem",
    "draw_noise_bases",
    "ekf",
    "identifiability",
    "identify",
    "lasso_cd",
    "linear_filter",
    "metrics",
    "optimiser",
    "ukf",
]

#: Display names (table rows) of the identifiers.
LABELS: dict[str, str] = {
    "bc": "BC",
    "ekf": "EKF",
    "ekf_gsbise": "EKF+GSBISE",
    "ekf_mipo": "EKF+MIPO",
    "mipo_arkekf": "MIPO-ARKEKF",
    "ipso": "IPSO",
    "lasso": "LASSO",
    "ukf": "UKF",
    "lm_ga": "LM+GA",
    "ekf_dqpso": "EKF+DQPSO",
}
#: Table 7 names (M1-M5) of the single identification methods.
TABLE7_NAMES: dict[str, str] = {
    "bc": "BC",
    "ekf": "M1",
    "ipso": "M2",
    "lasso": "M3",
    "ukf": "M4",
    "mipo_arkekf": "M5",
    "lm_ga": "LM+GA",
    "ekf_dqpso": "EKF+DQPSO",
}


# --------------------------------------------------------------------------------------
# Data and metrics
# --------------------------------------------------------------------------------------


def metrics(distances: ArrayLike) -> dict[str, FloatArray]:
    """Eq 45 over the last axis of point distances |P_i - P'_i| [mm]: MEAN, RMSE and MAX."""
    d = np.asarray(distances, dtype=np.float64)
    return {
        "mean": d.mean(axis=-1),
        "rmse": np.sqrt(np.mean(d * d, axis=-1)),
        "max": d.max(axis=-1),
    }


@dataclass(frozen=True)
class Problem:
    """Training and validation data of one calibration study and the parameters to identify.

    ``q_*`` (n, 6) joint angles [rad]; ``p_*`` (n, 3) measured SMR positions in the base frame
    [mm]; ``free`` the indices (into Eq 6's 24-vector) of the identified parameters.
    """

    q_train: FloatArray
    p_train: FloatArray
    q_val: FloatArray
    p_val: FloatArray
    nominal: FloatArray
    tool: FloatArray
    free: NDArray[np.int64]
    convention: kin.Convention = "standard"

    @classmethod
    def from_frame(
        cls,
        frame: pd.DataFrame,
        nominal: ArrayLike,
        tool: ArrayLike,
        free: ArrayLike,
        convention: kin.Convention = "standard",
    ) -> Problem:
        """Build from the twin's frame (:func:`paramid.calibration.twin.simulate`)."""
        qcols = [f"q{j}" for j in range(1, kin.N_JOINTS + 1)]
        parts = []
        for split in ("train", "validation"):
            sub = frame[frame["split"] == split].sort_values("design_order")
            parts += [sub[qcols].to_numpy(np.float64), sub[["x", "y", "z"]].to_numpy(np.float64)]
        return cls(
            *parts,
            nominal=np.asarray(nominal, dtype=np.float64),
            tool=np.asarray(tool, dtype=np.float64),
            free=np.asarray(free, dtype=np.int64),
            convention=convention,
        )

    @property
    def dim(self) -> int:
        """Number of identified parameters r."""
        return int(self.free.size)

    def data(self, split: str) -> tuple[FloatArray, FloatArray]:
        """(q, p) of ``"train"`` or ``"validation"``."""
        if split == "train":
            return self.q_train, self.p_train
        if split == "validation":
            return self.q_val, self.p_val
        raise ValueError(f"split must be 'train' or 'validation', got {split!r}")

    def full(self, x: ArrayLike) -> FloatArray:
        """Parameter vectors (..., 24): nominal plus the identified errors ``x`` (..., r)."""
        x = np.asarray(x, dtype=np.float64)
        out = np.broadcast_to(self.nominal, (*x.shape[:-1], kin.N_PARAMS)).copy()
        out[..., self.free] += x
        return out

    def predict(self, x: ArrayLike, split: str) -> FloatArray:
        """Model positions (..., n, 3) with errors ``x`` (..., r)."""
        q, _ = self.data(split)
        params = self.full(x)[..., None, :]
        return kin.positions(params, q, convention=self.convention, tool=self.tool)

    def distances(self, x: ArrayLike, split: str) -> FloatArray:
        """Position errors |P_i - P'_i| (..., n) [mm] of the compensated model (Eq 1, 45)."""
        _, p = self.data(split)
        return np.linalg.norm(p - self.predict(x, split), axis=-1)

    def jacobian(self, x: ArrayLike, split: str = "train") -> tuple[FloatArray, FloatArray]:
        """Stacked Jacobian (..., 3n, r) w.r.t. the free parameters and positions (..., 3n)."""
        q, _ = self.data(split)
        params = self.full(x)[..., None, :]
        J, p = kin.position_jacobian(
            params, q, convention=self.convention, tool=self.tool, with_positions=True
        )
        J = J[..., self.free]
        return J.reshape(*J.shape[:-3], -1, self.dim), p.reshape(*p.shape[:-2], -1)

    def linearised(self) -> tuple[FloatArray, FloatArray]:
        """The error model of Eq 9/11 at the nominal table: H0 (3n, r) and z0 = P - P' (3n,)."""
        H0, p0 = self.jacobian(np.zeros(self.dim))
        return H0, self.p_train.reshape(-1) - p0

    def linear_point_errors(self, x: ArrayLike) -> FloatArray:
        """|ΔP_i - J_i x| (..., n) on the training set under the linear error model (Eq 29)."""
        H0, z0 = self.linearised()
        r = z0 - np.asarray(x, dtype=np.float64) @ H0.T
        return np.linalg.norm(r.reshape(*r.shape[:-1], -1, 3), axis=-1)


# --------------------------------------------------------------------------------------
# Identifiability
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Identifiability:
    """Rank analysis of the stacked position Jacobian (Eq 9-10) at the nominal table.

    Columns are scaled to unit norm (so rad and mm columns compare); ``singular_values`` are
    those of the scaled matrix, descending; ``rank`` counts sigma_k > rel_tol sigma_1.
    ``pivots`` is the column order of QR with column pivoting (Businger-Golub) and
    ``r_diag`` the |R_kk| in that order; ``free`` = the first ``rank`` pivots (sorted), the
    identified subset.  ``null_space`` (24 - rank, 24) holds the right singular vectors of
    the unidentifiable combinations (in scaled coordinates).
    """

    names: list[str]
    column_norms: FloatArray
    singular_values: FloatArray
    rank: int
    rel_tol: float
    pivots: NDArray[np.int64]
    r_diag: FloatArray
    free: NDArray[np.int64]
    null_space: FloatArray

    @property
    def condition_number(self) -> float:
        """sigma_1 / sigma_rank of the scaled Jacobian restricted to its rank."""
        return float(self.singular_values[0] / self.singular_values[self.rank - 1])

    def combinations(self, threshold: float = 0.05) -> list[str]:
        """Each null-space vector written as a readable combination, e.g. ``+0.707 d2 ...``."""
        out = []
        for v in self.null_space:
            v = v * np.sign(v[np.argmax(np.abs(v))])
            terms = [
                f"{v[i]:+.3f} {self.names[i]}"
                for i in np.argsort(-np.abs(v))
                if abs(v[i]) >= threshold
            ]
            out.append(" ".join(terms))
        return out

    def table(self) -> pd.DataFrame:
        """One row per pivot position k: the pivoted parameter, |R_kk|, sigma_k, selected."""
        s1, r1 = self.singular_values[0], self.r_diag[0]
        return pd.DataFrame(
            {
                "k": np.arange(1, len(self.names) + 1),
                "pivot_parameter": [self.names[i] for i in self.pivots],
                "pivot_unit": [kin.parameter_units()[self.names[i]] for i in self.pivots],
                "r_diag": self.r_diag,
                "r_diag_rel": self.r_diag / r1,
                "selected": np.arange(len(self.names)) < self.rank,
                "singular_value": self.singular_values,
                "singular_value_rel": self.singular_values / s1,
                "column_norm": self.column_norms[self.pivots],
            }
        )


def pivoted_qr(A: ArrayLike, tie_rtol: float = 1e-9) -> tuple[NDArray[np.int64], FloatArray]:
    """QR with column pivoting (Businger-Golub) with a deterministic tie-break.

    Step k picks the column with the largest norm after projecting out the columns already
    chosen; columns within ``tie_rtol`` of that norm count as tied and the lowest index wins,
    so exactly dependent columns (e.g. d2 and d3 of parallel axes) are resolved by Eq 6 order,
    never by rounding.  Modified Gram-Schmidt with re-orthogonalisation.  Returns the pivot
    order and |R_kk| (the residual norm of each pivot when chosen).
    """
    W = np.array(A, dtype=np.float64)
    n = W.shape[1]
    remaining = list(range(n))
    order, r_diag = [], []
    for _ in range(n):
        norms = np.linalg.norm(W[:, remaining], axis=0)
        top = norms.max()
        j = min(c for c, v in zip(remaining, norms, strict=True) if v >= (1.0 - tie_rtol) * top)
        order.append(j)
        r_diag.append(float(np.linalg.norm(W[:, j])))
        remaining.remove(j)
        if r_diag[-1] > 0 and remaining:
            q = W[:, j] / r_diag[-1]
            for _ in range(2):  # twice is enough (Giraud et al. 2005)
                W[:, remaining] -= np.outer(q, q @ W[:, remaining])
    return np.asarray(order, dtype=np.int64), np.asarray(r_diag)


def identifiability(J: ArrayLike, rel_tol: float = 1e-9) -> Identifiability:
    """Rank, singular values and the identifiable subset of a stacked Jacobian (3n, 24)."""
    J = np.asarray(J, dtype=np.float64)
    if J.ndim != 2 or J.shape[1] != kin.N_PARAMS:
        raise ValueError(f"J must be (3n, {kin.N_PARAMS}), got {J.shape}")
    norms = np.linalg.norm(J, axis=0)
    if np.any(norms == 0):
        raise ValueError("a parameter has an all-zero Jacobian column")
    Js = J / norms
    _, s, vt = np.linalg.svd(Js, full_matrices=False)
    rank = int(np.count_nonzero(s > rel_tol * s[0]))
    piv, r_diag = pivoted_qr(Js)
    qr_rank = int(np.count_nonzero(r_diag > rel_tol * r_diag[0]))
    if qr_rank != rank:
        raise RuntimeError(f"QR rank {qr_rank} disagrees with SVD rank {rank}: adjust rel_tol")
    return Identifiability(
        names=kin.parameter_names(),
        column_norms=norms,
        singular_values=s,
        rank=rank,
        rel_tol=float(rel_tol),
        pivots=np.asarray(piv, dtype=np.int64),
        r_diag=r_diag,
        free=np.sort(piv[:rank]).astype(np.int64),
        null_space=vt[rank:],
    )


def truth_equivalent(problem: Problem, errors: ArrayLike) -> FloatArray:
    """The identified-subset vector (r,) equivalent to the twin's full 24 errors.

    Least-squares projection of the true position errors J e (noise-free, linear model at the
    nominal table, training configurations) onto the identified columns: what a perfect
    identifier of the subset would return.  Parameter-recovery errors are measured from it.
    """
    q = problem.q_train
    J = kin.position_jacobian(
        problem.nominal, q, convention=problem.convention, tool=problem.tool
    ).reshape(-1, kin.N_PARAMS)
    target = J @ np.asarray(errors, dtype=np.float64)
    return np.linalg.lstsq(J[:, problem.free], target, rcond=None)[0]


# --------------------------------------------------------------------------------------
# Noise bases (Eq 26-28)
# --------------------------------------------------------------------------------------


def draw_noise_bases(
    study: str, run: int, problem: Problem
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """C0, S0 (diagonals, r) and R0 (diagonal, 3n) of Eq 28 read as diag(|randn|).

    Draws randn(24) for C0, randn(24) for S0 and randn(3n) for R0 in that order from the
    stream ``(study, "eq28", run)`` as in Algorithm 2 line 3, and keeps the identified entries.
    """
    rng = generator(study, "eq28", int(run))
    C0 = np.abs(rng.standard_normal(kin.N_PARAMS))[problem.free]
    S0 = np.abs(rng.standard_normal(kin.N_PARAMS))[problem.free]
    R0 = np.abs(rng.standard_normal(3 * problem.q_train.shape[0]))
    return C0, S0, R0


def state_scale(problem: Problem, length_unit_mm: float) -> FloatArray:
    """Filter state unit per identified parameter, in native units: 1 rad or ``length_unit_mm``."""
    angle = kin.is_angle()[problem.free]
    return np.where(angle, 1.0, float(length_unit_mm))


# --------------------------------------------------------------------------------------
# Kalman filters
# --------------------------------------------------------------------------------------


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
    C0, S0, R0 = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (C0, S0, R0))
    factors = np.atleast_2d(np.asarray(factors, dtype=np.float64))
    runs, r = C0.shape
    scale = state_scale(problem, length_unit_mm)
    z = problem.p_train.reshape(-1)
    x = np.zeros((runs, r)) if x0 is None else np.array(np.broadcast_to(x0, (runs, r)))
    C = np.zeros((runs, r, r))
    C[:, np.arange(r), np.arange(r)] = factors[:, :1] * C0
    S = factors[:, 1:2] * S0
    W = 1.0 / (factors[:, 2:3] * R0)  # R^-1 diagonal (runs, 3n)
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


def _sigma_weights(n: int, alpha: float, beta: float, kappa: float) -> tuple[FloatArray, ...]:
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
    C0, S0, R0 = (np.atleast_2d(np.asarray(v, dtype=np.float64)) for v in (C0, S0, R0))
    factors = np.atleast_2d(np.asarray(factors, dtype=np.float64))
    runs, r = C0.shape
    scale = state_scale(problem, length_unit_mm)
    z = np.broadcast_to(problem.p_train.reshape(-1), (runs, problem.p_train.size))
    x = np.zeros((runs, r))
    P = np.zeros((runs, r, r))
    P[:, np.arange(r), np.arange(r)] = factors[:, :1] * C0
    S = factors[:, 1:2] * S0
    R = factors[:, 2:3] * R0

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


# --------------------------------------------------------------------------------------
# LASSO (M3)
# --------------------------------------------------------------------------------------


def lasso_cd(
    X: FloatArray, y: FloatArray, lam: float, sweeps: int, beta0: FloatArray | None = None
) -> tuple[FloatArray, FloatArray]:
    """Coordinate descent for min (1/2N)|y - X b|^2 + lam |b|_1; returns (b, path (sweeps, p)).

    Cyclic exact coordinate minimisation with soft thresholding (Friedman et al. 2010).
    """
    N, p = X.shape
    b = np.zeros(p) if beta0 is None else beta0.copy()
    resid = y - X @ b
    col_sq = np.sum(X * X, axis=0) / N
    path = np.empty((sweeps, p))
    for s in range(sweeps):
        for j in range(p):
            rho = X[:, j] @ resid / N + col_sq[j] * b[j]
            new = np.sign(rho) * max(abs(rho) - lam, 0.0) / col_sq[j]
            if new != b[j]:
                resid -= X[:, j] * (new - b[j])
                b[j] = new
        path[s] = b
    return b, path


def lasso_fit(
    problem: Problem, *, sweeps: int, folds: int, n_lambda: int, lambda_ratio: float
) -> tuple[FloatArray, FloatArray, float]:
    """M3: LASSO on the linear error model (Eq 11) with standardised columns.

    lambda is chosen by ``folds``-fold cross-validation over points (fold = point index mod
    ``folds``) on a log grid from lambda_max down to lambda_max x ``lambda_ratio``, each fit
    ``sweeps`` coordinate-descent sweeps; returns (x, path (sweeps, r), lambda).
    """
    H0, z0 = problem.linearised()
    scale = np.linalg.norm(H0, axis=0) / np.sqrt(H0.shape[0])
    Xs = H0 / scale
    n_pts = problem.q_train.shape[0]
    lam_max = np.max(np.abs(Xs.T @ z0)) / Xs.shape[0]
    grid = lam_max * np.logspace(0.0, np.log10(lambda_ratio), n_lambda)
    fold = np.repeat(np.arange(n_pts) % folds, 3)
    cv = np.zeros(n_lambda)
    for k in range(folds):
        tr, te = fold != k, fold == k
        b = None
        for i, lam in enumerate(grid):  # warm starts along the path
            b, _ = lasso_cd(Xs[tr], z0[tr], lam, sweeps, b)
            cv[i] += np.sum((z0[te] - Xs[te] @ b) ** 2)
    lam = float(grid[int(np.argmin(cv))])
    b, path = lasso_cd(Xs, z0, lam, sweeps)
    return b / scale, path / scale, lam


# --------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Fit:
    """Output of one identifier over its runs.

    ``x`` (runs, r) identified errors (native units); ``history`` (runs, K) training RMSE
    [mm] after each iteration (Eq 45; the objective's best-so-far value for population
    methods, which score the linear error model); ``time_s`` (runs,) wall time per run;
    ``n_evals`` (runs,) model evaluations; ``info`` extra per-run columns (e.g. the factors).
    """

    x: FloatArray
    history: FloatArray
    time_s: FloatArray
    n_evals: NDArray[np.int64]
    info: dict[str, FloatArray] = field(default_factory=dict)


def optimiser(name: str) -> Callable[..., OptimResult]:
    """An optimiser by name: ``paramid.optim.METHODS`` first, then the local IPSO/DQPSO.

    Raises a clear error for an unregistered name (e.g. ``"mipo"`` before it lands in
    ``paramid.optim``): nothing is substituted silently.
    """
    if name in METHODS:
        return METHODS[name]
    if name in LOCAL_METHODS:
        return LOCAL_METHODS[name]
    raise KeyError(
        f"optimiser {name!r} is not registered in paramid.optim.METHODS "
        f"(available: {sorted(METHODS) + sorted(LOCAL_METHODS)})"
    )


class PositionRMSE:
    """Training RMSE of Eq 45 under a linear model z ≈ y - H x: sqrt(3) x LinearRMSE."""

    def __init__(self, H: FloatArray, y: FloatArray) -> None:
        self.inner = LinearRMSE(H, y)

    def __call__(self, X: FloatArray) -> FloatArray:
        return np.sqrt(3.0) * self.inner(X)


def _train_rmse_path(problem: Problem, path: FloatArray) -> FloatArray:
    """Training RMSE (runs, K) of each estimate on a path (runs, K, r), nonlinear model."""
    return metrics(problem.distances(path, "train"))["rmse"]


def _box(problem: Problem, half: Mapping[str, float], centre: FloatArray | None = None):
    angle = kin.is_angle()[problem.free]
    w = np.where(angle, np.deg2rad(half["angle_deg"]), float(half["length_mm"]))
    c = np.zeros(problem.dim) if centre is None else centre
    return c - w, c + w


def _bases(problem: Problem, study: str, runs: Sequence[int], unit: float):
    draws = [draw_noise_bases(study, r, problem) for r in runs]
    C0, S0, R0 = (np.stack([d[i] for d in draws]) for i in range(3))
    # C0, S0 are per unit of the filter state; R0 per mm^2 (Eq 28 draws are unitless).
    return C0, S0, R0


def _manual_factors(cfg: Mapping[str, Any], runs: int) -> FloatArray:
    f = cfg["ekf"]["factors"]
    return np.tile([f["alpha"], f["beta"], f["gamma"]], (runs, 1)).astype(np.float64)


def _tune(
    problem: Problem,
    cfg: Mapping[str, Any],
    study: str,
    identifier: str,
    runs: Sequence[int],
    C0: FloatArray,
    S0: FloatArray,
    R0: FloatArray,
    *,
    gsbise: bool,
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Tune w = log10(alpha, beta, gamma) (Eq 26-27) per run with the configured optimiser.

    Each run has its own Eq 28 draws, so its fitness is a different function: the optimiser
    is called once per run (seed ``(study, identifier, run)``), its population batched.  The
    optim interface makes a run's result independent of batching, so this equals one call
    over all seeds with run-specific objectives.  Returns factors (runs, 3), the best
    fitness (runs,) and the evaluations counted (runs,).
    """
    tcfg = cfg["tuning"]
    b = tcfg["bounds"]
    lower = np.log10([b["alpha"][0], b["beta"][0], b["gamma"][0]])
    upper = np.log10([b["alpha"][1], b["beta"][1], b["gamma"][1]])
    method = optimiser(tcfg["method"])
    best_x, best_f, evals = [], [], []
    for i, run in enumerate(runs):
        fitness = NoiseFactorFitness(
            problem,
            C0[i : i + 1],
            S0[i : i + 1],
            R0[i : i + 1],
            tcfg["fitness_iterations"],
            gsbise=gsbise,
            length_unit_mm=cfg["ekf"]["state_length_unit_mm"],
        )
        result = method(
            fitness,
            lower,
            upper,
            population=tcfg["population"],
            iterations=tcfg["iterations"],
            seeds=[seed_sequence(study, identifier, run)],
            **tcfg.get("settings", {}),
        )
        best_x.append(np.asarray(result.best_x)[0])
        best_f.append(float(result.best_f[0]))
        evals.append(int(result.n_evals[0]))
    return 10.0 ** np.stack(best_x), np.asarray(best_f), np.asarray(evals, dtype=np.int64)


def _identify_bc(problem: Problem, cfg, study, identifier, runs) -> Fit:
    n = len(runs)
    zero = np.zeros((n, problem.dim))
    return Fit(
        x=zero,
        history=np.zeros((n, 0)),
        time_s=np.zeros(n),
        n_evals=np.zeros(n, dtype=np.int64),
    )


def _identify_ekf_family(problem: Problem, cfg, study, identifier, runs) -> Fit:
    gsbise = identifier in ("ekf_gsbise", "mipo_arkekf")
    tuned = identifier in ("ekf_mipo", "mipo_arkekf")
    ecfg = cfg["ekf"]
    unit = ecfg["state_length_unit_mm"]
    C0, S0, R0 = _bases(problem, study, runs, unit)
    start = time.perf_counter()
    info: dict[str, FloatArray] = {}
    n_evals = np.zeros(len(runs), dtype=np.int64)
    if tuned:
        factors, best_f, evals = _tune(
            problem, cfg, study, identifier, runs, C0, S0, R0, gsbise=gsbise
        )
        info["tuning_best_fitness_mm"] = best_f
        n_evals += evals
    else:
        factors = _manual_factors(cfg, len(runs))
    res = ekf(
        problem,
        C0,
        S0,
        R0,
        factors,
        ecfg["iterations"],
        gsbise=gsbise,
        length_unit_mm=unit,
    )
    elapsed = time.perf_counter() - start
    info |= {"alpha": factors[:, 0], "beta": factors[:, 1], "gamma": factors[:, 2]}
    return Fit(
        x=res.x,
        history=_train_rmse_path(problem, res.path),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=n_evals + ecfg["iterations"],
        info=info,
    )


def _identify_ukf(problem: Problem, cfg, study, identifier, runs) -> Fit:
    ucfg, ecfg = cfg["ukf"], cfg["ekf"]
    unit = ecfg["state_length_unit_mm"]
    C0, S0, R0 = _bases(problem, study, runs, unit)
    factors = _manual_factors(cfg, len(runs))
    start = time.perf_counter()
    res = ukf(
        problem,
        C0,
        S0,
        R0,
        factors,
        ucfg["iterations"],
        alpha=ucfg["alpha"],
        beta=ucfg["beta"],
        kappa=ucfg["kappa"],
        length_unit_mm=unit,
    )
    elapsed = time.perf_counter() - start
    return Fit(
        x=res.x,
        history=_train_rmse_path(problem, res.path),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=np.full(len(runs), ucfg["iterations"] * (2 * problem.dim + 1), dtype=np.int64),
    )


def _identify_lasso(problem: Problem, cfg, study, identifier, runs) -> Fit:
    lcfg = cfg["lasso"]
    start = time.perf_counter()
    x, path, lam = lasso_fit(
        problem,
        sweeps=lcfg["iterations"],
        folds=lcfg["folds"],
        n_lambda=lcfg["n_lambda"],
        lambda_ratio=lcfg["lambda_ratio"],
    )
    elapsed = time.perf_counter() - start
    n = len(runs)
    return Fit(
        x=np.tile(x, (n, 1)),
        history=np.tile(_train_rmse_path(problem, path[None])[0], (n, 1)),
        time_s=np.full(n, elapsed),
        n_evals=np.full(n, lcfg["iterations"], dtype=np.int64),
        info={"lambda": np.full(n, lam)},
    )


def _identify_ipso(problem: Problem, cfg, study, identifier, runs) -> Fit:
    pcfg = cfg["ipso"]
    H0, z0 = problem.linearised()
    lower, upper = _box(problem, cfg["search_box"])
    start = time.perf_counter()
    result = optimiser(pcfg["method"])(
        PositionRMSE(H0, z0),
        lower,
        upper,
        population=pcfg["population"],
        iterations=pcfg["iterations"],
        seeds=[seed_sequence(study, identifier, r) for r in runs],
        **pcfg.get("settings", {}),
    )
    elapsed = time.perf_counter() - start
    return Fit(
        x=np.asarray(result.best_x),
        history=np.asarray(result.history),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=np.asarray(result.n_evals),
    )


def _refine(
    problem: Problem,
    cfg: Mapping[str, Any],
    study: str,
    identifier: str,
    runs: Sequence[int],
    x1: FloatArray,
    stage_cfg: Mapping[str, Any],
) -> tuple[FloatArray, FloatArray, NDArray[np.int64]]:
    """Second hybrid stage: a population method around each first-stage estimate x1 (runs, r).

    The objective is the training RMSE (Eq 45) of the model linearised at x1 (exact to second
    order near x1); the box is x1 +- ``refine_scale`` x the search box.  Elitist hand-over:
    a run keeps x1 when the population method finds nothing better (as a GA/PSO seeded with
    the first-stage estimate would).  Returns (x, history (runs, K2), n_evals).
    """
    half = {k: v * stage_cfg["refine_scale"] for k, v in cfg["search_box"].items()}
    xs, hist, evals = [], [], []
    method = optimiser(stage_cfg["method"])
    for i, run in enumerate(runs):
        H, h = problem.jacobian(x1[i])
        y = problem.p_train.reshape(-1) - h + H @ x1[i]
        objective = PositionRMSE(H, y)
        lower, upper = _box(problem, half, x1[i])
        res = method(
            objective,
            lower,
            upper,
            population=stage_cfg["population"],
            iterations=stage_cfg["iterations"],
            seeds=[seed_sequence(study, identifier, run)],
            **stage_cfg.get("settings", {}),
        )
        f1 = float(objective(x1[i][None, None])[0, 0])
        best = np.asarray(res.best_x)[0] if res.best_f[0] < f1 else x1[i]
        xs.append(best)
        hist.append(np.minimum(np.asarray(res.history)[0], f1))
        evals.append(int(res.n_evals[0]))
    return np.stack(xs), np.stack(hist), np.asarray(evals, dtype=np.int64)


def _identify_lm_ga(problem: Problem, cfg, study, identifier, runs) -> Fit:
    hcfg = cfg["lm_ga"]
    z = problem.p_train.reshape(-1)
    trace: list[float] = []

    def fun(x: FloatArray) -> FloatArray:
        r = problem.predict(x, "train").reshape(-1) - z
        trace.append(float(np.sqrt(3.0 * np.mean(r * r))))
        return r

    def jac(x: FloatArray) -> FloatArray:
        return problem.jacobian(x)[0]

    start = time.perf_counter()
    lm = least_squares(
        fun, np.zeros(problem.dim), jac=jac, method="lm", max_nfev=hcfg["lm_iterations"]
    )
    t_lm = time.perf_counter() - start
    lm_hist = np.minimum.accumulate(np.asarray(trace))
    lm_hist = np.pad(lm_hist, (0, hcfg["lm_iterations"] - lm_hist.size), mode="edge")
    n = len(runs)
    start = time.perf_counter()
    x, hist2, evals = _refine(
        problem, cfg, study, identifier, runs, np.tile(lm.x, (n, 1)), hcfg["ga"]
    )
    t_ga = time.perf_counter() - start
    return Fit(
        x=x,
        history=np.concatenate([np.tile(lm_hist, (n, 1)), hist2], axis=1),
        time_s=np.full(n, t_lm + t_ga / n),
        n_evals=evals + lm.nfev,
        info={"lm_train_rmse_mm": np.full(n, lm_hist[-1])},
    )


def _identify_ekf_dqpso(problem: Problem, cfg, study, identifier, runs) -> Fit:
    hcfg, ecfg = cfg["ekf_dqpso"], cfg["ekf"]
    unit = ecfg["state_length_unit_mm"]
    C0, S0, R0 = _bases(problem, study, runs, unit)
    start = time.perf_counter()
    res = ekf(
        problem,
        C0,
        S0,
        R0,
        _manual_factors(cfg, len(runs)),
        hcfg["ekf_iterations"],
        length_unit_mm=unit,
    )
    x, hist2, evals = _refine(problem, cfg, study, identifier, runs, res.x, hcfg["dqpso"])
    elapsed = time.perf_counter() - start
    return Fit(
        x=x,
        history=np.concatenate([_train_rmse_path(problem, res.path), hist2], axis=1),
        time_s=np.full(len(runs), elapsed / len(runs)),
        n_evals=evals + hcfg["ekf_iterations"],
        info={"ekf_train_rmse_mm": _train_rmse_path(problem, res.path)[:, -1]},
    )


IDENTIFIERS: dict[str, Callable[..., Fit]] = {
    "bc": _identify_bc,
    "ekf": _identify_ekf_family,
    "ekf_gsbise": _identify_ekf_family,
    "ekf_mipo": _identify_ekf_family,
    "mipo_arkekf": _identify_ekf_family,
    "ipso": _identify_ipso,
    "lasso": _identify_lasso,
    "ukf": _identify_ukf,
    "lm_ga": _identify_lm_ga,
    "ekf_dqpso": _identify_ekf_dqpso,
}


def identify(
    identifier: str,
    problem: Problem,
    cfg: Mapping[str, Any],
    *,
    study: str,
    runs: Sequence[int],
) -> Fit:
    """Run ``identifier`` for the given run indices (all batched where the method allows)."""
    if identifier not in IDENTIFIERS:
        raise KeyError(f"unknown identifier {identifier!r}; known: {sorted(IDENTIFIERS)}")
    return IDENTIFIERS[identifier](problem, cfg, study, identifier, list(runs))
