"""Recursive least squares and the RLS-derived search box (hip paper §3.1–§3.2).

Eq 7–9 track X̂(k); after a burn-in the componentwise extrema are widened by a margin of
their span to give [L, U]; mechanical sign constraints take precedence.  Eq 10 gives the
non-smooth friction severity index γ and Eq 12 the AGWO exponent μ(γ).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray

from paramid.errors import UserError

Array = NDArray[np.float64]


#: The memory of the paper's forgetting factor: λ = 0.98 per sample at its 100 Hz (Table 2)
#: weighs the last 1 / (1 - λ) = 50 samples, 0.5 s
PAPER_MEMORY_S = 0.5


def forgetting_factor(setting: float | str, sample_rate_hz: float) -> float:
    """λ per sample: a number as given, or for ``"auto"`` the paper's memory of
    :data:`PAPER_MEMORY_S` at this record's rate, 1 - 1 / (0.5 s · fs) (0.98 at 100 Hz, 0.998
    at 1 kHz, where the paper's 0.98 would remember 0.05 s)."""
    if setting == "auto":
        return 1.0 - 1.0 / (PAPER_MEMORY_S * sample_rate_hz)
    return float(setting)


class SingularRecursion(UserError):
    """The RLS recursion met a stretch of the record that excites too few directions."""


def rls_trajectory(
    H: Array, y: Array, forgetting: float, p0: float, *, chunk: int = 65536
) -> Array:
    """X̂(k) for k = 1 … K by Eq 7–9 with X̂(0) = 0 and P(0) = p0·I.

    H is (..., K, d) and y (..., K): leading axes (e.g. twin seeds) are independent records.
    The recursion of Eq 7–9 is computed in its information form: X̂(k) minimises
    Σ_{i≤k} λ^{k−i} (y_i − h_iᵀX)² + λ^k p0⁻¹ ‖X‖², so X̂(k) = A_k⁻¹ b_k with
    A_k = λ A_{k−1} + h_k h_kᵀ (A_0 = p0⁻¹ I) and b_k = λ b_{k−1} + h_k y_k.  Both are
    first-order linear recursions along the sample axis (``scipy.signal.lfilter``, in chunks
    of ``chunk`` samples so memory stays O(chunk·d²)), followed by one batched solve: time and
    memory linear in K, no Python loop over samples.  Equal to the literal recursion to
    round-off (tested).
    """
    import scipy.signal

    if not 0 < forgetting <= 1:
        raise ValueError(f"forgetting factor must lie in (0, 1], got {forgetting}")
    H = np.asarray(H, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    *batch, n_samples, d = H.shape
    decay = [1.0, -forgetting]
    A = np.broadcast_to(np.eye(d) / p0, (*batch, d, d))  # A_0
    b = np.zeros((*batch, d))
    out = np.empty((*batch, n_samples, d))
    for start in range(0, n_samples, chunk):
        h = H[..., start : start + chunk, :]
        outer = h[..., :, None] * h[..., None, :]
        A_k, _ = scipy.signal.lfilter(
            [1.0], decay, outer, axis=-3, zi=forgetting * A[..., None, :, :]
        )
        b_k, _ = scipy.signal.lfilter(
            [1.0],
            decay,
            h * y[..., start : start + chunk, None],
            axis=-2,
            zi=forgetting * b[..., None, :],
        )
        try:
            out[..., start : start + chunk, :] = np.linalg.solve(A_k, b_k[..., None])[..., 0]
        except np.linalg.LinAlgError:
            raise SingularRecursion(
                f"the RLS information matrix (Eq 7-9) is singular within samples {start}-"
                f"{start + h.shape[-2] - 1}: over its memory of about "
                f"{1 / max(1 - forgetting, 1e-300):.4g} samples (forgetting {forgetting:g}) the "
                "record does not excite every parameter: the joint rests or barely moves for "
                "longer than that. Raise rls.forgetting, trim the rest, or record more motion"
            ) from None
        A, b = A_k[..., -1, :, :], b_k[..., -1, :]
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
    limit stricter than the RLS limit replaces it.  Should the mechanical limits exclude the
    whole RLS range, the box collapses onto the limit the range overshoots (the max where it
    lies above it, else the min) and a note says so.
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
            # onto the limit the RLS range overshoots: the max where it lies above it
            above = lower[..., i] > limits.get("max", np.inf)
            value = np.where(above, limits.get("max", np.nan), limits.get("min", np.nan))
            lower[..., i] = np.where(collapsed, value, lower[..., i])
            upper[..., i] = np.where(collapsed, value, upper[..., i])
    return Bounds(lower, upper, lo, hi, notes)


#: The recursion's memory 1/(1 - λ) samples must span at least this share of the motion's
#: period: over a shorter window the regressor barely changes, the windowed estimates swing
#: with the noise and the box [L, U] they give grows far wider than the data's uncertainty.
MIN_MEMORY_SHARE = 0.1


def memory_note(forgetting: float, sample_rate_hz: float, motion_hz: float) -> str | None:
    """Why λ is too small for this record, or None: its memory 1/((1 - λ) fs) [s] against the
    motion's period 1/``motion_hz`` (λ is per sample: the paper's 0.98 at 100 Hz is 0.5 s)."""
    if forgetting >= 1.0 or motion_hz <= 0:
        return None
    memory_s = 1.0 / ((1.0 - forgetting) * sample_rate_hz)
    period_s = 1.0 / motion_hz
    if memory_s >= MIN_MEMORY_SHARE * period_s:
        return None
    enough = 1.0 - 1.0 / (MIN_MEMORY_SHARE * period_s * sample_rate_hz)
    return (
        f"rls.forgetting = {forgetting:g} keeps a memory of {1 / (1 - forgetting):.4g} samples, "
        f"{memory_s:.3g} s at this record's {sample_rate_hz:g} Hz: under a tenth of the motion's "
        f"period ({period_s:.3g} s; half the velocity's power lies below {motion_hz:.3g} Hz). The "
        "RLS estimates can swing with the noise and widen the box [L, U] of the population "
        f"methods (at 1 kHz up to 1e3 x the parameters, every RLS method failing); "
        f"rls.forgetting >= {enough:.5g} keeps a tenth of the period"
    )


def _note(text: str, where: NDArray[np.bool_]) -> str:
    """A note on the box; for a batch of boxes it says how many of them it concerns."""
    return text if where.ndim == 0 else f"{text} ({int(where.sum())} of {where.size} records)"


def nfsi_gamma(sign_column: Array, fc_rls_mean: Array, torque: Array, eps: float) -> Array:
    """Non-smooth friction severity index γ = max|H_f f̂c| / (max|T_m| + ε_T) (Eq 10).

    Maxima over the last (sample) axis; leading axes are records.
    """
    friction = np.abs(sign_column * np.asarray(fc_rls_mean)[..., None])
    return np.max(friction, axis=-1) / (np.max(np.abs(torque), axis=-1) + eps)


@dataclass(frozen=True)
class SavedPrior:
    """Algorithm 1 steps 1-4 of one calibration record as every study saves them
    (``rls/*.json``): the box [L, U] (§3.1) with the RLS extrema, retained mean and final
    estimate it came from, the burn-in and λ (Eq 7-9), γ (Eq 10) and μ(γ) (Eq 12; NaN, written
    null, where the AGWO fit computes it)."""

    names: list[str]
    units: list[str]
    lower: Array
    upper: Array
    rls_min: Array
    rls_max: Array
    rls_mean: Array
    rls_final: Array
    burn_in_samples: int
    forgetting: float
    gamma: float
    mu: float
    notes: list[str]
    ARRAYS: ClassVar[tuple[str, ...]] = (
        "lower",
        "upper",
        "rls_min",
        "rls_max",
        "rls_mean",
        "rls_final",
    )

    def to_json(self) -> dict[str, Any]:
        """The fields of the file (``params`` for :attr:`names`)."""
        return {
            "params": list(self.names),
            "units": list(self.units),
            **{name: np.asarray(getattr(self, name)).tolist() for name in self.ARRAYS},
            "burn_in_samples": int(self.burn_in_samples),
            "forgetting": float(self.forgetting),
            "gamma": float(self.gamma),
            "mu": float(self.mu),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, saved: Mapping[str, Any]) -> SavedPrior:
        """The prior :meth:`to_json` wrote (other fields of the file are ignored; a null μ
        reads NaN)."""
        mu = saved["mu"]
        return cls(
            names=list(saved["params"]),
            units=list(saved["units"]),
            **{name: np.asarray(saved[name], dtype=np.float64) for name in cls.ARRAYS},
            burn_in_samples=int(saved["burn_in_samples"]),
            forgetting=float(saved["forgetting"]),
            gamma=float(saved["gamma"]),
            mu=np.nan if mu is None else float(mu),
            notes=list(saved["notes"]),
        )
