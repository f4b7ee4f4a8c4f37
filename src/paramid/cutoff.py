"""The low-pass cutoff of the signal chain chosen from the data (``signals.cutoff_hz: auto``).

The hip paper fixes 15 Hz for its 100 Hz twin (Table 2).  A measured record has its own rate and
noise: on a 500 Hz record with encoder quantisation a high cutoff amplifies q̈ noise (biasing
every estimate through errors in the regressor), a low one removes motion.  The rule here:
for each candidate cutoff, run the chain of §4.1 on the *calibration* record and score the
least-squares fit of Eq 4 by blocked K-fold cross-validation (contiguous blocks, so that
neighbouring, correlated samples are not split between training and test folds), RMSE against
the torque as recorded; the cutoff with the lowest score is chosen.  The validation record
is never used (only its sample rate caps the candidates, so that both records can be filtered).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

Array = NDArray[np.float64]
NYQUIST_FRACTION = 0.8  # candidates stay below 0.8 x the lower Nyquist frequency of the records


@dataclass(frozen=True)
class CutoffChoice:
    """The candidates, their blocked-CV RMSE [N m] and the chosen cutoff [Hz]."""

    candidates_hz: Array
    cv_rmse: Array
    chosen_hz: float
    blocks: int
    rule: str = "lowest blocked cross-validation RMSE of the LS fit on the calibration record"
    cv_se: Array | None = None  # standard error over the folds, where the rule uses it
    floor_hz: float | None = None  # the lowest cutoff the rule allows

    def table(self) -> pd.DataFrame:
        """One row per candidate: cutoff, CV RMSE, whether it was chosen."""
        import pandas as pd  # here: the workflow's start imports this module

        return pd.DataFrame(
            {
                "cutoff_hz": self.candidates_hz,
                "cv_rmse": self.cv_rmse,
                "chosen": self.candidates_hz == self.chosen_hz,
            }
        )

    def summary(self) -> dict[str, Any]:
        """The choice as the fields of its JSON file."""
        return {
            "chosen_hz": self.chosen_hz,
            "rule": self.rule,
            "blocks": self.blocks,
            "candidates_hz": self.candidates_hz.tolist(),
            "cv_rmse": self.cv_rmse.tolist(),
            **({"cv_se": self.cv_se.tolist()} if self.cv_se is not None else {}),
            **({"floor_hz": self.floor_hz} if self.floor_hz is not None else {}),
        }


def block_edges(samples: int, blocks: int) -> NDArray[np.intp]:
    """Sample indices bounding ``blocks`` contiguous blocks of nearly equal length: the folds
    of :func:`blocked_cv_rmse` and of a robot record's compressed segments."""
    return np.linspace(0, samples, blocks + 1).astype(np.intp)


def blocked_cv_rmse(H: Array, y: Array, blocks: int) -> float:
    """RMSE of LS predictions on each of ``blocks`` contiguous held-out blocks of samples
    (:func:`block_edges`), fitted on the others; the root of the mean squared error over all
    held-out samples.  LS by SVD, so a rank-deficient H still gives unique predictions."""
    if blocks < 2:
        raise ValueError(f"cross-validation needs at least 2 blocks, got {blocks}")
    edges = block_edges(y.size, blocks)
    squared = 0.0
    for start, stop in zip(edges[:-1], edges[1:], strict=True):
        train = np.ones(y.size, dtype=bool)
        train[start:stop] = False
        x = np.linalg.lstsq(H[train], y[train], rcond=None)[0]
        squared += float(np.sum((y[start:stop] - H[start:stop] @ x) ** 2))
    return float(np.sqrt(squared / y.size))


def at_or_above_nyquist(cutoff_hz: float, sample_rate_hz: float) -> bool:
    """A cutoff at or above the Nyquist frequency, up to the float noise of a rate read from
    stamps (a 40 Hz log read as 40.00000000000014 Hz let a 20 Hz cutoff through)."""
    return cutoff_hz >= sample_rate_hz / 2 * (1 - 1e-9)


def nyquist_text(cutoff_hz: float | Sequence[float], sample_rate_hz: float) -> str | None:
    """Why a cutoff (or which of a list of them) cannot filter a signal sampled at
    ``sample_rate_hz`` (:func:`at_or_above_nyquist`): "15 Hz is at or above the Nyquist
    frequency 10 Hz", "[50.0, 60.0] are ..."; None when it can (none of them is)."""
    nyquist = f"at or above the Nyquist frequency {sample_rate_hz / 2:g} Hz"
    if isinstance(cutoff_hz, (int, float)):
        return (
            f"{cutoff_hz:g} Hz is {nyquist}"
            if at_or_above_nyquist(cutoff_hz, sample_rate_hz)
            else None
        )
    high = [float(c) for c in cutoff_hz if at_or_above_nyquist(c, sample_rate_hz)]
    return f"{high} are {nyquist}" if high else None


def usable_candidates(
    candidates_hz: Sequence[float], sample_rates_hz: Sequence[float]
) -> list[float]:
    """Candidates below ``NYQUIST_FRACTION`` of the lowest Nyquist frequency of the records."""
    limit = NYQUIST_FRACTION * min(sample_rates_hz) / 2
    usable = sorted(float(c) for c in candidates_hz if 0 < c < limit)
    if not usable:
        raise ValueError(
            f"no cutoff candidate lies below {limit:g} Hz (0.8 x the Nyquist frequency of the "
            f"slowest record); candidates were {list(candidates_hz)}"
        )
    return usable


def choose_cutoff(
    candidates_hz: Sequence[float],
    regression: Callable[[float], tuple[Array, Array]],
    blocks: int,
) -> CutoffChoice:
    """Score every candidate by :func:`blocked_cv_rmse` of ``regression(cutoff) -> (H, y)``
    (the chain run at that cutoff on the calibration data) and choose the lowest score (ties:
    the lower cutoff)."""
    cv = np.array([blocked_cv_rmse(*regression(c), blocks) for c in candidates_hz])
    candidates = np.asarray(candidates_hz, dtype=np.float64)
    return CutoffChoice(candidates, cv, float(candidates[np.argmin(cv)]), blocks)
