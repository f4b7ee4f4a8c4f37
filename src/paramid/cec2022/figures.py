"""Figures of the CEC 2022 comparison: rank maps (the paper's Figures 6-7) and convergence.

Pure functions returning matplotlib figures; the scripts save them with
``paramid.io.save_figure`` (PNG + PDF).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from paramid.cec2022.runs import ALGORITHMS  # noqa: E402
from paramid.cec2022.study import INDICATORS  # noqa: E402
from paramid.cec2022.suite import BIASES  # noqa: E402

_TITLES = {
    "ave": "Ave. (mean f over runs)",
    "std": "Std. (of f over runs)",
    "time_s": "Time (s per run)",
    "best": "Best (min f over runs)",
}


def rank_figure(
    ranks: pd.DataFrame, dim: int, *, paper: bool = False, width: float = 10.0
) -> Figure:
    """Figures 6-7: per-function rank (1 = best) of each method for the four indicators.

    One heat map per indicator, functions F1-F12 by methods; ``paper`` draws the ranks
    computed from the paper's Tables 3-4 instead of ours.
    """
    algorithms = [a for a in ALGORITHMS if a in set(ranks["algorithm"])]
    fig, axes = plt.subplots(2, 2, figsize=(width, 0.8 * width), constrained_layout=True)
    prefix = "paper_rank_" if paper else "rank_"
    for ax, k in zip(axes.ravel(), INDICATORS, strict=True):
        grid = ranks.pivot(index="function", columns="algorithm", values=f"{prefix}{k}")
        grid = grid.reindex(columns=algorithms).astype(float)
        image = ax.imshow(
            grid.to_numpy(), cmap="viridis_r", vmin=1, vmax=len(algorithms), aspect="auto"
        )
        for (i, j), value in np.ndenumerate(grid.to_numpy()):
            if np.isfinite(value):
                shade = "k" if value <= (1 + len(algorithms)) / 2 else "w"  # dark on light cells
                ax.text(j, i, f"{value:.0f}", ha="center", va="center", color=shade, fontsize=8)
        ax.set_xticks(range(len(algorithms)), algorithms)
        ax.set_yticks(range(len(grid.index)), [f"F{f}" for f in grid.index])
        ax.set_xlabel("algorithm")
        ax.set_ylabel("CEC 2022 function")
        ax.set_title(_TITLES[k])
        fig.colorbar(image, ax=ax, label="rank (1 = best) [-]")
    source = "paper's Tables 3-4" if paper else "this reproduction"
    fig.suptitle(f"CEC 2022, D = {dim}: ranks of the four indicators ({source})")
    return fig


def convergence_figure(
    histories: Mapping[tuple[int, str], pd.DataFrame],
    dim: int,
    *,
    functions: Sequence[int] | None = None,
    width: float = 12.0,
) -> Figure:
    """Median (line) and interquartile band of the best-so-far error f - f* over the runs
    against evaluations, one panel per function (those in ``histories`` by default), one
    line per method (log scale)."""
    if functions is None:
        functions = sorted({function for function, _ in histories})
    rows = max(1, -(-len(functions) // 4))
    fig, axes = plt.subplots(
        rows, 4, figsize=(width, 0.23 * width * rows + 0.5), constrained_layout=True, squeeze=False
    )
    for ax in axes.ravel()[len(functions) :]:
        ax.set_visible(False)
    colours = dict(zip(ALGORITHMS, plt.rcParams["axes.prop_cycle"].by_key()["color"], strict=False))
    for ax, function in zip(axes.ravel(), functions, strict=False):
        for algorithm in ALGORITHMS:
            frame = histories.get((function, algorithm))
            if frame is None:
                continue
            error = frame["best_f"].to_numpy() - BIASES[function]
            runs = frame["run"].nunique()
            evals = frame["evaluations"].to_numpy()[: len(frame) // runs]
            curve = np.maximum(error.reshape(runs, -1), 1e-8)
            q1, med, q3 = np.percentile(curve, [25, 50, 75], axis=0)
            ax.plot(evals, med, label=algorithm, color=colours[algorithm], lw=1.2)
            ax.fill_between(evals, q1, q3, color=colours[algorithm], alpha=0.15, lw=0)
        ax.set_yscale("log")
        ax.set_title(f"F{function}")
        ax.set_xlabel("function evaluations [-]")
        ax.set_ylabel("best error f - f* [-]")
    axes.ravel()[0].legend(fontsize=7, ncol=2)
    fig.suptitle(f"CEC 2022, D = {dim}: convergence (median and IQR over runs)")
    return fig
