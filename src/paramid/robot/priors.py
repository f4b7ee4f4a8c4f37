"""Physically consistent least squares pulled toward the model the user already has (the URDF).

    minimise   ‖R θ − c‖² / M  +  (λ / n_P) · P(θ)
    subject to J(θ_link) ⪰ 0 for every moving link,  f_v, f_c ≥ 0

over the standard parameters θ (Wensing, Kim & Slotine 2017; Sousa & Cortesão 2014).  The data
enter through the compression of the (noise-weighted) rows, ‖Wᵀ(Yθ − y)‖² = ‖Rθ − c‖² + ρ², so
the conic solver sees a p × p problem whatever the record length; M is the number of rows, and
with rows weighted by 1/σ̂_j (each joint's residual level) the data term is O(1) at the fit,
which makes the weight λ dimensionless and one grid serve any arm (issue #24: the weights the
one-standard-error rule chose stayed within a factor of 2 over four calibration sets of the
Gen3, against a factor of 10 with the torque's power as the scale).

Priors P over the inertial parameters of the pulled links, n_P = 10 per link (friction is
never pulled: it has no URDF value and the data determine it; pulling it to 0 cost 2-3 N m of
validation RMSE).  Every link is pulled but those the user names as carrying a load the URDF
lacks (``free_links``: a gripper, a tool, a payload), which stay physically consistent and are
determined by the data alone:

``robot``
    Euclidean distance in robot units, Σ_links (Δm/M̄)² + ‖Δh‖²/(M̄L)² + ‖ΔI‖²/(M̄L²)², with M̄
    the mean URDF link mass and L the arm's length (the moving joints' placements after the
    first): the unit-free form of the plain Euclidean pull.
``euclid``
    ‖θ − θ_URDF‖² in SI units (kg, kg m, kg m²).
``logdet``
    Σ_links −log det J̃ + tr J̃ − 4 with J̃ = P0^{-1/2} J(θ) P0^{-1/2}: the Bregman (log-det)
    divergence of Lee, Wensing & Park (2020) evaluated whitened, P0 the URDF's pseudo-inertia
    made positive definite (:func:`prior_pseudo_inertia`).

Scaling: the unknowns are z = (θ − θ_URDF)/s with s the prior's own scales (friction: the
joint's RMS torque, over its RMS velocity for viscous), so every unknown is O(1) whatever the
units; the LMI is kept in these units (whitening it by P0 hurt at weak priors).  Clarabel runs
at its default tolerances (1e-8); λ = 0 solves the data-only problem.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import scipy  # scipy.linalg loads on first use: the workflow's start imports this module
from numpy.typing import NDArray

from paramid.errors import UserError
from paramid.robot.consistency import PSEUDO_INERTIA_BASIS, pseudo_inertia

Array = NDArray[np.float64]
METRICS = ("robot", "euclid", "logdet")
P0_FLOOR = 0.1  # a link's centre-of-mass second moments are clipped at this share of the largest
TOLERANCES = {"tol_gap_abs": 1e-8, "tol_gap_rel": 1e-8, "tol_feas": 1e-8}  # Clarabel's defaults
#: λ of a λ = 0 solve repeated because Clarabel could not settle on one of its minimisers
TIE_BREAK = 1e-8
BASIS = PSEUDO_INERTIA_BASIS.reshape(10, 16).T  # (16, 10): vec J = BASIS π


def prior_pseudo_inertia(pi: Array, floor: float = P0_FLOOR) -> tuple[Array, bool]:
    """(P0, changed): the pseudo-inertia of a link's URDF parameters, made positive definite
    where it is not by keeping its mass and centre of mass and clipping the eigenvalues of its
    centre-of-mass second moment Σ_c at ``floor`` × the largest (a URDF can violate the
    triangle inequality: the Gen3's shoulder_link does)."""
    mass, h = float(pi[0]), np.asarray(pi[1:4], dtype=np.float64)
    J = pseudo_inertia(pi)
    c = h / mass
    values, vectors = np.linalg.eigh(J[:3, :3] - mass * np.outer(c, c))
    if values[0] > 0:  # already a physical body
        return J, False
    clipped = np.maximum(values, floor * values.max())
    P0 = np.zeros((4, 4))
    P0[:3, :3] = (vectors * clipped) @ vectors.T + mass * np.outer(c, c)
    P0[:3, 3] = P0[3, :3] = h
    P0[3, 3] = mass
    return P0, bool(np.any(clipped != values))


def check_logdet_prior(
    theta0: Array, pulled: Mapping[str, slice], field: str = "lmi.metric"
) -> None:
    """The ``logdet`` prior is a divergence from each pulled link's URDF pseudo-inertia, which
    must be positive definite (:func:`prior_pseudo_inertia` can repair an inertia, not a body
    without mass or a point mass): a :class:`UserError` naming the links that have none."""
    empty = []
    for name, columns in pulled.items():
        if theta0[columns][0] <= 0:
            empty.append(name)
            continue
        values = np.linalg.eigvalsh(prior_pseudo_inertia(theta0[columns])[0])
        if values[0] <= 1e-12 * values[-1]:
            empty.append(name)
    if empty:
        raise UserError(
            f"{field}: logdet measures the distance from each pulled link's URDF body, but "
            f"{empty} have no mass or no rotational inertia in the URDF (no <inertial>, or a "
            "point mass): name them in lmi.free_links or use the robot metric"
        )


def massless_links(theta0: Array, links: Mapping[str, slice]) -> list[str]:
    """The moving links whose URDF body has no mass (no ``<inertial>``, or mass 0)."""
    return [name for name, columns in links.items() if theta0[columns][0] <= 0]


def pulled_links(
    links: Mapping[str, slice],
    free_links: Sequence[str],
    field: str = "lmi.free_links",
    carriers: Mapping[str, str] | None = None,
) -> dict[str, slice]:
    """The links the prior pulls: all but ``free_links`` (the config's ``field``), which must
    be moving links, and at least one link must stay pulled.  ``carriers``
    (:func:`paramid.robot.model.carrying_links`) lets the error name the moving link whose body
    holds a link fixed to it (a gripper's), or say that a link sits on the fixed base."""
    unknown = sorted(set(free_links) - set(links))
    if unknown:
        where = []
        for name in unknown:
            carrier = (carriers or {}).get(name)
            if carrier:
                where.append(
                    f"{name!r} is fixed to {carrier!r}, whose body carries it: free {carrier!r}"
                )
            elif carrier is not None:
                where.append(f"{name!r} is on the fixed base: no joint moves it")
        note = "".join(f". {text}" for text in where)
        raise UserError(f"{field}: {unknown} are not moving links; they are {list(links)}{note}")
    pulled = {name: s for name, s in links.items() if name not in set(free_links)}
    if not pulled:
        raise UserError(
            f"{field} names every moving link: nothing is left for the prior to pull toward the "
            "URDF (for a fit without the prior, set lmi.weight: 0)"
        )
    return pulled


def columns_of(links: Mapping[str, slice]) -> NDArray[np.intp]:
    """The standard columns of ``links`` (their 10 inertial parameters each), in link order."""
    return np.concatenate([np.arange(k.start, k.stop) for k in links.values()])


def arm_length(placements: Array) -> float:
    """L of the ``robot`` metric: the summed distances of the moving joints' placements after
    the first (0.97 m for the Gen3), at least 0.1 m."""
    return max(float(np.sum(np.linalg.norm(placements[1:], axis=1))), 0.1)


def robot_scales(theta0: Array, links: Mapping[str, slice], length: float) -> Array:
    """Per inertial parameter, M̄ (mass), M̄L (first moment), M̄L² (inertia)."""
    mean_mass = float(np.mean([theta0[s][0] for s in links.values()]))
    mean_mass = mean_mass if mean_mass > 0 else 1.0  # a prior without mass: unit scales
    one = mean_mass * np.array([1.0, length, length, length] + [length * length] * 6)
    return np.tile(one, len(links))


def typed_scales(theta0: Array, links: Mapping[str, slice]) -> Array:
    """Per link m0, m0 r0, m0 r0² (r0² = tr Σ0 / m0, the mean squared distance of its mass from
    the frame's origin): the scales of the unknowns under the ``logdet`` prior."""
    out = np.ones(10 * len(links))
    for k, columns in enumerate(links.values()):
        pi = theta0[columns]
        mass = max(float(pi[0]), 1e-9)
        r2 = max(float(np.trace(pseudo_inertia(pi)[:3, :3])) / mass, 1e-9)
        r = np.sqrt(r2)
        out[10 * k : 10 * k + 10] = [mass, *([mass * r] * 3), *([mass * r2] * 6)]
    return out


@dataclass(frozen=True)
class Solution:
    """A solve: θ (None when the solver returned none), Clarabel's status and residuals."""

    theta: Array | None
    status: str
    iterations: int
    primal_residual: float
    dual_residual: float
    tie_break: float = 0.0  # the λ this solve used instead of 0 (:meth:`ConsistentLS.solve`)

    @property
    def optimal(self) -> bool:
        return self.theta is not None and self.status == "Solved"


class ConsistentLS:
    """The problem of the module docstring for one parameter layout and metric, compiled once
    (cvxpy with parameters R, c, λ), solved for any data and weight."""

    def __init__(
        self,
        theta0: Array,
        links: Mapping[str, slice],
        nonnegative: NDArray[np.intp],
        scales: Array,
        metric: str = "robot",
        zero: NDArray[np.intp] | None = None,
        free_links: Sequence[str] = (),
    ) -> None:
        import cvxpy as cp

        if metric not in METRICS:
            raise ValueError(f"unknown prior metric {metric!r}; known: {METRICS}")
        pulled = pulled_links(links, free_links)
        p = theta0.size
        self.theta0, self.scales = np.asarray(theta0, float), np.asarray(scales, float)
        self.zero = np.zeros(0, dtype=np.intp) if zero is None else np.asarray(zero, np.intp)
        self.z = cp.Variable(p)
        theta = self.theta0 + cp.multiply(self.scales, self.z)
        self.R, self.c = cp.Parameter((p, p)), cp.Parameter(p)
        self.weight = cp.Parameter(nonneg=True)
        pseudo = {
            name: cp.reshape(BASIS @ theta[s], (4, 4), order="C") for name, s in links.items()
        }
        lmi = [J >> 0 for J in pseudo.values()]
        bounds = []
        if len(nonnegative):
            bounds.append(
                self.z[nonnegative] >= -self.theta0[nonnegative] / self.scales[nonnegative]
            )
        if self.zero.size:  # held at θ = 0 (an offset the joint does not have)
            bounds.append(self.z[self.zero] == -self.theta0[self.zero] / self.scales[self.zero])
        data = cp.sum_squares(self.R @ self.z - self.c)
        if metric == "logdet":  # its domain is J ≻ 0: the LMI is implied where it is a term
            check_logdet_prior(self.theta0, pulled)
            terms = []
            for name, columns in pulled.items():
                P0 = prior_pseudo_inertia(self.theta0[columns])[0]
                white = np.real(scipy.linalg.inv(scipy.linalg.sqrtm(P0)))
                white = 0.5 * (white + white.T)
                Jw = white @ pseudo[name] @ white
                terms.append(-cp.log_det(0.5 * (Jw + Jw.T)) + cp.trace(Jw) - 4)
            free = [pseudo[name] >> 0 for name in links if name not in pulled]
            prior, constraints = cp.sum(cp.hstack(terms)), bounds + free
        else:
            prior, constraints = cp.sum_squares(self.z[columns_of(pulled)]), lmi + bounds
        self.data_only = cp.Problem(cp.Minimize(data), lmi + bounds)
        n_prior = 10 * len(pulled)
        self.problem = cp.Problem(cp.Minimize(data + self.weight * prior / n_prior), constraints)

    def solve(self, R: Array, c: Array, rows: int, weight: float) -> Solution:
        """θ for the compressed data R θ ≈ c of ``rows`` rows (in θ's units) and weight λ:
        Clarabel on the problem compiled once (cvxpy's parameters), its own status and
        residuals reported.  At λ = 0 the data fix only the base combinations, so the
        consistent minimisers form a set, and Clarabel can fail to settle on one (NumericalError:
        the Gen3 on two records, tanh friction); the solve is then repeated at λ =
        :data:`TIE_BREAK`, which picks the minimiser nearest the URDF without moving the fit
        (``tie_break`` says so)."""
        solution = self._solve(R, c, rows, weight)
        if solution.theta is None and weight == 0:
            return replace(self._solve(R, c, rows, TIE_BREAK), tie_break=TIE_BREAK)
        return solution

    def _solve(self, R: Array, c: Array, rows: int, weight: float) -> Solution:
        """One Clarabel solve (:meth:`solve`)."""
        import cvxpy as cp

        self.R.value = R * self.scales / np.sqrt(rows)
        self.c.value = (c - R @ self.theta0) / np.sqrt(rows)
        self.weight.value = float(weight)
        problem = self.problem if weight > 0 else self.data_only
        data, chain, inverse = problem.get_problem_data(cp.CLARABEL)
        raw = chain.solver.solve_via_data(data, False, False, dict(TOLERANCES))
        for item in inverse:  # unpacking reads the options a plain solve() would have stored
            if getattr(item, "solver_options", {}) is None:
                item.solver_options = {}
        with warnings.catch_warnings():  # the status is the Solution's, reported by callers
            warnings.filterwarnings("ignore", "Solution may be inaccurate")
            try:
                problem.unpack_results(raw, chain, inverse)
            except cp.error.SolverError:  # a failed solve: raw.status names it, no theta
                pass
        theta = None
        if self.z.value is not None and str(raw.status) in ("Solved", "AlmostSolved"):
            theta = self.theta0 + self.scales * np.asarray(self.z.value, dtype=np.float64)
            theta[self.zero] = 0.0  # exactly, not to the solver's tolerance
        return Solution(
            theta,
            str(raw.status),
            int(raw.iterations),
            float(raw.r_prim),
            float(raw.r_dual),
        )
