"""Recursive least squares and the RLS-derived search box (hip paper §3.1–§3.2).

Eq 7–9 track X̂(k); after a burn-in the componentwise extrema are widened by a margin of
their span to give [L, U]; mechanical sign constraints take precedence.  Eq 10 gives the
non-smooth friction severity index γ and Eq 12 the AGWO exponent μ(γ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

Array = NDArray[np.float64]


def rls_trajectory(H: Array, y: Array, forgetting: float, p0: float) -> Array:
    """X̂(k) for k = 1 … K by Eq 7–9 with X̂(0) = 0 and P(0) = p0·I.

    H is (..., K, d) and y (..., K): leading axes (e.g. twin seeds) run as independent
    recursions side by side.  P is updated as λ⁻¹ (I − K H) P (Eq 9) and re-symmetrised each
    step against round-off.
    """
    if not 0 < forgetting <= 1:
        raise ValueError(f"forgetting factor must lie in (0, 1], got {forgetting}")
    H = np.asarray(H, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    *batch, n_samples, d = H.shape
    x = np.zeros((*batch, d))
    P = np.broadcast_to(p0 * np.eye(d), (*batch, d, d)).copy()
    identity = np.eye(d)
    out = np.empty((*batch, n_samples, d))
    for k in range(n_samples):
        h = H[..., k, :]
        Ph = np.einsum("...ij,...j->...i", P, h)
        gain = Ph / (forgetting + np.einsum("...i,...i->...", h, Ph))[..., None]  # Eq 7
        innovation = y[..., k] - np.einsum("...i,...i->...", h, x)
        x = x + gain * innovation[..., None]  # Eq 8
        P = (identity - gain[..., :, None] * h[..., None, :]) @ P / forgetting  # Eq 9
        P = 0.5 * (P + np.swapaxes(P, -1, -2))
        out[..., k, :] = x
    return out


@dataclass(frozen=True)
class Bounds:
    """The RLS box [L, U] and how it was formed."""

    lower: Array
    upper: Array
    rls_min: Array
    rls_max: Array
    notes: list[str] = field(default_factory=list)


def rls_bounds(
    trajectory: Array,
    burn_in: int,
    margin: float,
    names: Sequence[str],
    mechanical: Mapping[str, Mapping[str, float]] | None = None,
) -> Bounds:
    """Widen the post-burn-in extrema by ``margin`` × span on each side (§3.1, Alg 1 step 3).

    ``trajectory`` is (..., K, d): leading axes (records, twin seeds) get one box each.
    ``mechanical`` maps a parameter name to ``{"min": v}`` and/or ``{"max": v}``; a mechanical
    limit stricter than the RLS limit replaces it.  Should the mechanical limit exclude the
    whole RLS range, the box collapses onto the mechanical limit and a note says so.
    """
    n_samples = trajectory.shape[-2]
    if not 0 <= burn_in < n_samples:
        raise ValueError(
            f"burn-in of {burn_in} samples leaves nothing of a {n_samples}-sample RLS run"
        )
    if margin < 0:
        raise ValueError(f"bound margin must be non-negative, got {margin}")
    kept = trajectory[..., burn_in:, :]
    lo, hi = kept.min(axis=-2), kept.max(axis=-2)
    span = hi - lo
    lower, upper = lo - margin * span, hi + margin * span
    notes: list[str] = []
    for name, limits in (mechanical or {}).items():
        if name not in names:
            continue  # a constraint on a column this study does not use
        i = list(names).index(name)
        if "min" in limits and np.any(raised := limits["min"] > lower[..., i]):
            lower[..., i] = np.where(raised, limits["min"], lower[..., i])
            text = f"{name}: mechanical min {limits['min']} replaces RLS lower bound"
            notes.append(_note(text, raised))
        if "max" in limits and np.any(lowered := limits["max"] < upper[..., i]):
            upper[..., i] = np.where(lowered, limits["max"], upper[..., i])
            text = f"{name}: mechanical max {limits['max']} replaces RLS upper bound"
            notes.append(_note(text, lowered))
        if np.any(collapsed := lower[..., i] > upper[..., i]):
            text = f"{name}: RLS range lies outside the mechanical limits; box collapsed"
            notes.append(_note(text, collapsed))
            value = limits["min"] if "min" in limits else limits["max"]
            lower[..., i] = np.where(collapsed, value, lower[..., i])
            upper[..., i] = np.where(collapsed, value, upper[..., i])
    return Bounds(lower, upper, lo, hi, notes)


def _note(text: str, where: NDArray[np.bool_]) -> str:
    """A note on the box; for a batch of boxes it says how many of them it concerns."""
    return text if where.ndim == 0 else f"{text} ({int(where.sum())} of {where.size} records)"


def nfsi_gamma(sign_column: Array, fc_rls_mean: Array, torque: Array, eps: float) -> Array:
    """Non-smooth friction severity index γ = max|H_f f̂c| / (max|T_m| + ε_T) (Eq 10).

    Maxima over the last (sample) axis; leading axes are records.
    """
    friction = np.abs(sign_column * np.asarray(fc_rls_mean)[..., None])
    return np.max(friction, axis=-1) / (np.max(np.abs(torque), axis=-1) + eps)


def agwo_exponent(gamma: Array, mu_base: float, kappa: float) -> Array:
    """μ(γ) = μ_base + κ exp(γ) (Eq 12)."""
    return mu_base + kappa * np.exp(gamma)
