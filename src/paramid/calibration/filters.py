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

Exact speed-ups (every filter's numbers unchanged, tested against the straightforward code):
the Jacobians come from :class:`paramid.calibration.model.PointJacobian` (the operations of
``Problem.jacobian`` with a third of the numpy calls and reused buffers, in its memory
layout, which decides numpy's matmul kernel); the batch filter reuses its 3n-row buffers (no
page faults of large temporaries) and runs its filters in cache-sized blocks
(:data:`BLOCK_POINTS`); :func:`sequential_ekf` and :func:`ekf` take one problem
per run, so the repeats of a study are one batch of filters (sharing the Python loop over
points), and :class:`RunsNoiseFactorFitness` tunes them in lockstep.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.calibration.model import PointJacobian
from paramid.calibration.problem import FloatArray, Problem, state_scale

__all__ = [
    "LAYOUT_FREE",
    "READINGS",
    "FilterResult",
    "LinearSurrogateFitness",
    "NoiseFactorFitness",
    "RunsNoiseFactorFitness",
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


#: One problem, or one per entry of a filter batch's first axis (:func:`sequential_ekf`).
Problems = Problem | Sequence[Problem]
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

    ``problem`` may be a sequence of problems of one model, one per entry of the first batch
    axis, as for :func:`sequential_ekf`: each filter's numbers are those of its own call.
    """
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    M = math.prod(batch)
    scale = state_scale(_first(problem), length_unit_mm)
    C, S = C.reshape(M, r, r), np.reshape(S, (M, r))
    W = 1.0 / np.reshape(R, (M, -1))  # R^-1 diagonal (M, 3n)
    x = _start(x0, (*batch, r)).reshape(M, r)
    path, priors = np.empty((M, iterations, r)), np.empty((M, iterations, r))
    C_post = np.empty((M, r, r))
    for members, jacobian, z in _block_models(problem, batch):
        C_post[members] = _ekf_block(
            jacobian,
            z,
            (C[members], S[members], W[members], x[members]),
            scale,
            gsbise,
            path[members],
            priors[members],
        )
    return FilterResult(
        path=path.reshape(*batch, iterations, r),
        C=C_post.reshape(*batch, r, r),
        priors=priors.reshape(*batch, iterations, r),
    )


def _ekf_block(
    jacobian: Callable[[FloatArray], tuple[FloatArray, FloatArray]],
    z: FloatArray,
    start: tuple[FloatArray, FloatArray, FloatArray, FloatArray],
    scale: FloatArray,
    gsbise: bool,
    path: FloatArray,
    priors: FloatArray,
) -> FloatArray:
    """The iterations of :func:`ekf` for a block of m filters: ``start`` = (C (m, r, r), S
    (m, r), R^-1 (m, 3n), x0 (m, r)); writes ``path`` and ``priors`` (m, K, r), returns the
    last C (m, r, r)."""
    C, S, W, x = start
    outer = scale[:, None] * scale  # native -> filter units of A = H^T R^-1 H
    HW = innov = None
    for k in range(path.shape[1]):
        priors[:, k] = x
        H, h = jacobian(x)
        if HW is None:  # buffers for the 3n-row products (reused: no page faults)
            HW = np.empty(np.broadcast_shapes(H.shape, W[..., None].shape))
            innov = np.empty(np.broadcast_shapes(z.shape, h.shape))
        HtW = np.swapaxes(np.multiply(H, W[..., None], out=HW), -1, -2)  # H^T R^-1, native
        A = (HtW @ H) * outer
        g = (HtW @ np.subtract(z, h, out=innov)[..., None])[..., 0] * scale
        C, dx = _kalman_step(C, S, A, g)
        post = x + dx * scale
        path[:, k] = post
        x = post + (post - x) if gsbise else post
    return C


#: Member-points (filters x training points) of one block of :func:`ekf`: its point Jacobian's
#: buffers and 3n-row products stay small enough for the cache.  Chosen by measurement (a
#: 2-vCPU VM, 2 MiB of L2 per core): a KR210 filter of 280 points costs 15-16 ms at 8-24
#: filters in a block, 22 ms at 48 and 26 ms at 300 (the tuning population of its 10 runs).
BLOCK_POINTS = 4096


def _block_models(
    problem: Problems, batch: tuple[int, ...]
) -> Iterator[tuple[slice, Callable[[FloatArray], tuple[FloatArray, FloatArray]], FloatArray]]:
    """The M = prod(batch) filters in blocks of at most :data:`BLOCK_POINTS` member-points:
    each block's members (a slice of the flattened batch), its ``Problem.jacobian(x)`` of
    the training points for states x (m, r) -> H (m, 3n, r), h (m, 3n), and its measured
    positions z (3n,) or (m, 3n) (P problems, one per entry of the first batch axis,
    :func:`_per_problem`).  By :class:`paramid.calibration.model.PointJacobian`
    (bit-identical, reused buffers, C-contiguous H in every block: a filter's numbers do not
    depend on its block) for problems, else the problem's own method in one block."""
    M = math.prod(batch)
    if not (isinstance(problem, Problem) or _is_problem_list(problem)):
        duck: Any = problem  # anything with Problem.jacobian and p_train
        yield slice(0, M), duck.jacobian, np.asarray(duck.p_train).reshape(-1)
        return
    first, q, tau, z_all = _per_problem(problem, batch, M)
    P, n = z_all.shape[0], first.q_train.shape[0]
    z_all = z_all.reshape(P, -1)
    size = max(1, BLOCK_POINTS // n)
    for start in range(0, M, size):
        members = slice(start, min(start + size, M))
        own = (q, tau) if q.ndim == 2 else (q[members], tau[members])
        m = members.stop - start
        model = PointJacobian(first.nominal, first.free, *own, members=m, block=True)
        z = z_all[0] if P == 1 else z_all[np.arange(start, members.stop) // (M // P)]
        yield members, model, z


def _per_problem(
    problem: Problems, batch: tuple[int, ...], M: int
) -> tuple[Problem, FloatArray, FloatArray, FloatArray]:
    """The shared model, the training configurations q and gravity moments tau ((n, 6) for
    one problem, else (M, n, 6), member m's own) and the measured positions (P, n, 3) of
    the M = prod(batch) filters of one problem or of P problems of one model (same free
    parameters and number of points), one per entry of the first batch axis."""
    problems = [problem] if isinstance(problem, Problem) else list(problem)
    if len(problems) > 1 and (not batch or batch[0] != len(problems)):
        raise ValueError(f"{len(problems)} problems need a first batch axis of that length")
    first = problems[0]
    for other in problems[1:]:
        if not (
            np.array_equal(other.free, first.free)
            and np.array_equal(other.nominal, first.nominal)
            and other.q_train.shape == first.q_train.shape
        ):
            raise ValueError("batched problems need the same model and number of points")
    z = np.stack([p.p_train for p in problems])
    if len(problems) == 1:
        return first, first.q_train, first.tau_train, z
    per = M // len(problems)  # filters per problem
    q = np.repeat(np.stack([p.q_train for p in problems]), per, axis=0)
    tau = np.repeat(np.stack([p.tau_train for p in problems]), per, axis=0)
    return first, q, tau, z


def _point_model(
    problem: Problems, batch: tuple[int, ...], r: int
) -> tuple[Callable[[FloatArray, int], tuple[FloatArray, FloatArray]], FloatArray]:
    """The per-point measurement model of M = prod(batch) filters: ``point(x, i)`` gives H_i
    (M, 3, r) and h_i(x) (M, 3) for states x (M, r), and the measured positions z (n, M or 1,
    3).

    A :class:`Problem` or a sequence of them (one per entry of the first batch axis, each
    filter on its own data set) is evaluated by :class:`paramid.calibration.model.PointJacobian`
    (bit-identical to ``Problem.jacobian(x, "train", slice(i, i + 1))``); anything else with
    that method (e.g. a test's linear model) through it.
    """
    M = math.prod(batch)
    if isinstance(problem, Problem) or _is_problem_list(problem):
        first, q, tau, z = _per_problem(problem, batch, M)  # z (P, n, 3)
        per = M // z.shape[0]  # filters per problem
        if z.shape[0] > 1:
            z = np.repeat(z, per, axis=0)
        # a problem's own call would hold its `per` filters: H in that call's layout
        model = PointJacobian(first.nominal, first.free, q, tau, members=M, per_member=per == 1)
        return model, np.swapaxes(z, 0, 1)

    duck: Any = problem  # anything with Problem.jacobian and p_train

    def point(x: FloatArray, i: int) -> tuple[FloatArray, FloatArray]:
        H, h = duck.jacobian(x.reshape(*batch, r), "train", slice(i, i + 1))
        return np.reshape(H, (M, 3, r)), np.reshape(h, (M, 3))

    return point, np.asarray(duck.p_train)[:, None, :]


def _is_problem_list(problem: object) -> bool:
    return isinstance(problem, Sequence) and all(isinstance(p, Problem) for p in problem)


def _first(problem: Problems) -> Problem:
    """The problem whose model (free parameters, units) every filter of a batch shares."""
    return problem[0] if _is_problem_list(problem) else problem  # type: ignore[index,return-value]


def sequential_ekf(
    problem: Problems,
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

    ``problem`` may be a sequence of problems of one model (same free parameters and number
    of training points), one per entry of the first batch axis: filter b then runs on the
    data set ``problem[b]`` (the repeats of a study in one call).  Every filter's numbers are
    those of its own call (the per-filter products and solves are separate BLAS/LAPACK calls;
    tested), the batch only shares the Python loop over points, which is the cost here.  H_i
    and h_i come from :class:`paramid.calibration.model.PointJacobian` (bit-identical to
    ``Problem.jacobian``).
    """
    C, S, R = _noise_model(C0, S0, R0, factors)
    batch, r = S.shape[:-1], S.shape[-1]
    M = math.prod(batch)
    point, z = _point_model(problem, batch, r)
    generic = not isinstance(point, PointJacobian)
    n = z.shape[0]
    C = C.reshape(M, r, r)
    S = S.reshape(M, r)
    R = R.reshape(M, n, 3)
    scale = state_scale(_first(problem), length_unit_mm)
    unit = bool(np.all(scale == 1.0))  # x * 1.0 is x: the unit scaling is skipped
    x = _start(x0, (*batch, r)).reshape(M, r)
    diag = C.reshape(M, r * r)[:, :: r + 1]  # a view: Eq 18 adds S in place
    G_diag = (G := np.empty((M, 3, 3))).reshape(M, 9)[:, ::4]
    HC, U = np.empty((M, 3, r)), np.empty((M, r, r))
    innov, step = np.empty((M, 1, 3)), np.empty((M, 1, r))
    path = np.empty((M, iterations, r))
    priors = np.empty((M, iterations, r))
    post = x
    for k in range(iterations):
        priors[:, k] = x
        for i in range(n):
            diag += S  # Eq 18
            H, h = point(x, i)
            if generic:
                H = H * scale  # filter units
            elif not unit:
                np.multiply(H, scale, out=H)
            np.matmul(H, C, out=HC)
            np.matmul(HC, np.swapaxes(H, -1, -2), out=G)  # H C⁻ Hᵀ + R_i (3 x 3)
            G_diag += R[:, i]
            KT = _solve(G, HC)  # K_iᵀ (Eq 20)
            np.subtract(z[i], h, out=innov[:, 0])
            np.matmul(innov, KT, out=step)  # Eq 21
            dx = step[:, 0] if unit else step[:, 0] * scale
            C -= np.matmul(np.swapaxes(KT, -1, -2), HC, out=U)  # Eq 22
            post = x + dx
            x = post + (post - x) if gsbise else post
        path[:, k] = post
        C[...] = _symmetrise(C)
    return FilterResult(
        path=path.reshape(*batch, iterations, r),
        C=C.reshape(*batch, r, r),
        priors=priors.reshape(*batch, iterations, r),
    )


#: The two readings of Algorithm 2 lines 5-19 by name (the keys of config ``tuning.reduced``).
READINGS: dict[str, FilterFn] = {"batch": ekf, "sequential": sequential_ekf}
#: The filters whose every filter's numbers do not depend on the others in its batch, however
#: many of one problem share it (the batch reading: its block Jacobian is C-contiguous in every
#: layout); :func:`sequential_ekf`'s per-point Jacobian layout depends on that number.
LAYOUT_FREE: frozenset[FilterFn] = frozenset({ekf})


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
        return self.score(W, res)

    def score(self, W: FloatArray, res: FilterResult) -> FloatArray:
        """Eq 29 of the filters ``res`` (..., K, r) run for W (..., 3); keeps the best."""
        with np.errstate(all="ignore"):
            f = eq29_fitness(self.H0, self.z0, res.x)
        j = int(np.argmin(f))
        if f.reshape(-1)[j] < self.best_f:
            self.best_f = float(f.reshape(-1)[j])
            self._best = (W.reshape(-1, 3)[j].tobytes(), res.member(j))
        return f

    def kept(self, w: ArrayLike) -> FilterResult | None:
        """The kept filter when log-factors w (3,) are the best so far, else None."""
        w = np.asarray(w, dtype=np.float64)
        if self._best is not None and self._best[0] == w.tobytes():
            return self._best[1]
        return None

    def result(self, w: ArrayLike) -> FilterResult:
        """The filter (leading dim 1) for log-factors w (3,): kept when w is the best so far,
        else run (e.g. when every candidate diverged)."""
        kept = self.kept(w)
        return kept if kept is not None else self.run(np.asarray(w, dtype=np.float64)[None])


class RunsNoiseFactorFitness:
    """:class:`NoiseFactorFitness` of several runs, each on its own data set, as one objective
    for an optimiser that runs them in lockstep (one seed per run, ``paramid.optim``).

    W (runs, n, 3) -> values (runs, n): row p is scored exactly as the run's own
    :class:`NoiseFactorFitness` (``self.runs[p]``: problem p, its Eq 28 draws C0[p], S0[p],
    R0[p]) scores it alone, the same numbers and the same kept filter, but the filters of all
    runs are one batch (``run_filter`` takes the problems, one per run).  ``by_run``: the
    optimiser passes which rows each run evaluates (``active``), so a run's rows stay its own.

    One call of the run's own objective held the candidates it evaluated (k of them); its
    filter's numbers depend on k only through the memory layout of the per-point Jacobian
    (k = 1 or more, see :class:`paramid.calibration.model.PointJacobian`).  The runs are
    therefore batched in two groups, k = 1 and k > 1, each padded to its largest k with
    copies of a run's last candidate (filters of a batch are independent; the copies are
    dropped).  The batch filter's numbers do not depend on that layout (its block Jacobian is
    C-contiguous in every batch, :data:`LAYOUT_FREE`): its rows are one batch of one filter
    per wanted row, each on its run's problem, with no padding.
    """

    by_run = True

    def __init__(
        self,
        problems: Sequence[Problem],
        C0: FloatArray,
        S0: FloatArray,
        R0: FloatArray,
        run_filter: FilterFn,
        iterations: int,
        *,
        gsbise: bool,
        length_unit_mm: float = 1.0,
    ) -> None:
        self.problems = list(problems)
        self.bases = (np.asarray(C0), np.asarray(S0), np.asarray(R0))
        self.runs = [
            NoiseFactorFitness(
                p,
                self.bases[0][i],
                self.bases[1][i],
                self.bases[2][i],
                run_filter,
                iterations,
                gsbise=gsbise,
                length_unit_mm=length_unit_mm,
            )
            for i, p in enumerate(self.problems)
        ]

    def _run(self, group: Sequence[int], W: FloatArray) -> FilterResult:
        """The filters of runs ``group`` (each on its own problem) for W (runs, k, 3)."""
        fit = self.runs[0]
        return fit.run_filter(
            [self.problems[p] for p in group],
            *(b[list(group)][:, None] for b in self.bases),
            10.0**W,
            fit.iterations,
            gsbise=fit.gsbise,
            length_unit_mm=fit.length_unit_mm,
        )

    def _flat(self, W: FloatArray, rows: Sequence[NDArray[np.intp]], values: FloatArray) -> None:
        """Score the wanted rows of every run as one batch of filters, one per row, for a
        filter in :data:`LAYOUT_FREE`; writes ``values``."""
        fit = self.runs[0]
        owner = np.repeat(np.arange(len(rows)), [row.size for row in rows])
        picked = np.concatenate([W[p, row] for p, row in enumerate(rows)])  # (filters, 3)
        with np.errstate(all="ignore"):  # a diverging candidate overflows: it scores +inf
            res = fit.run_filter(
                [self.problems[p] for p in owner],
                *(b[owner] for b in self.bases),
                10.0**picked,
                fit.iterations,
                gsbise=fit.gsbise,
                length_unit_mm=fit.length_unit_mm,
            )
        start = 0
        for p, row in enumerate(rows):
            part = slice(start, start + row.size)
            start += row.size
            if row.size:
                own = FilterResult(
                    path=res.path[None, part], C=res.C[None, part], priors=res.priors[None, part]
                )
                values[p, row] = self.runs[p].score(picked[None, part], own)[0]

    def __call__(self, W: FloatArray, active: NDArray[np.bool_] | None = None) -> FloatArray:
        W = np.asarray(W, dtype=np.float64)
        runs, n = W.shape[:2]
        every = np.ones((runs, n), dtype=bool) if active is None else np.asarray(active, bool)
        rows = [np.flatnonzero(row) for row in every]
        values = np.full((runs, n), np.inf)
        if self.runs[0].run_filter in LAYOUT_FREE:
            if every.any():
                self._flat(W, rows, values)
            return values
        for single in (True, False):
            group = [p for p in range(runs) if rows[p].size and (rows[p].size == 1) == single]
            if not group:
                continue
            k = max(rows[p].size for p in group)
            picked = np.stack(
                [W[p, np.pad(rows[p], (0, k - rows[p].size), mode="edge")] for p in group]
            )
            with np.errstate(all="ignore"):  # a diverging candidate overflows: it scores +inf
                res = self._run(group, picked)
            for g, p in enumerate(group):
                m = rows[p].size
                own = FilterResult(
                    path=res.path[g : g + 1, :m],
                    C=res.C[g : g + 1, :m],
                    priors=res.priors[g : g + 1, :m],
                )
                values[p, rows[p]] = self.runs[p].score(picked[g : g + 1, :m], own)[0]
        return values

    def result(self, W: ArrayLike) -> list[FilterResult]:
        """Each run's filter (leading dim 1) for its log-factors W[p] (3,): kept when W[p] is
        that run's best so far, else run (the runs that need it in one batch of one filter
        each, as :meth:`NoiseFactorFitness.result` runs one)."""
        W = np.asarray(W, dtype=np.float64)
        out: list[FilterResult | None] = [fit.kept(w) for fit, w in zip(self.runs, W, strict=True)]
        again = [p for p, res in enumerate(out) if res is None]
        if again:
            res = self._run(again, W[again][:, None])
            for g, p in enumerate(again):
                out[p] = FilterResult(path=res.path[g], C=res.C[g], priors=res.priors[g])
        return [res for res in out if res is not None]


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
    fk: PointJacobian | None = None
    if isinstance(problem, Problem):  # Problem.predict's numbers, reused buffers
        members = runs * (2 * r + 1)
        fk = PointJacobian(
            problem.nominal, problem.free, problem.q_train, problem.tau_train,
            members=members, block=True,
        )  # fmt: skip

    def hx(sig: FloatArray) -> FloatArray:
        if fk is not None:  # (runs, 2r+1, 3n): fk's buffer, read before the next call
            return fk.positions((sig * scale).reshape(-1, r)).reshape(*sig.shape[:-1], -1)
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
