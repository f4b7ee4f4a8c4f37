"""Figures of the CEC 2022 comparison: rank maps (the paper's Figures 6-7) and convergence.

Pure functions returning matplotlib figures drawn with ``paramid.plotting.new_figure``: call
them inside ``paramid.plotting.styled`` (the workflow's ``figures`` config sets the width and
fonts); the scripts save them with ``paramid.io.save_figure`` (PNG + PDF).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.image import AxesImage

from paramid.cec2022.runs import ALGORITHMS
from paramid.cec2022.study import INDICATORS
from paramid.cec2022.suite import BIASES
from paramid.plotting import log_ticks, new_figure, series_colours

_TITLES = {
    "ave": "Ave. (mean f over runs)",
    "std": "Std. (of f over runs)",
    "time_s": "Time (s per run)",
    "best": "Best (min f over runs)",
}


#: The convergence panels' y range leaves out this share of the budget (the first evaluations'
#: errors, orders of magnitude above the rest).
SKIP_SHARE = 0.02


def _style_width() -> float:
    """Figure width of the current style (``paramid.plotting.styled``), inches."""
    return float(mpl.rcParams["figure.figsize"][0])


def _label_cells(ax: Axes, image: AxesImage, grid: np.ndarray) -> None:
    """Write each finite cell's value in black on light cells and white on dark ones."""
    for (i, j), value in np.ndenumerate(grid):
        if not np.isfinite(value):
            continue
        red, green, blue, _ = image.cmap(image.norm(value))
        luminance = 0.299 * red + 0.587 * green + 0.114 * blue
        shade = "black" if luminance > 0.5 else "white"
        ax.text(j, i, f"{value:.0f}", ha="center", va="center", color=shade)


def rank_figure(ranks: pd.DataFrame, dim: int, *, paper: bool = False) -> Figure:
    """Figures 6-7: per-function rank (1 = best) of each method for the four indicators.

    One heat map per indicator, functions F1-F12 by methods; ``paper`` draws the ranks
    computed from the paper's Tables 3-4 instead of ours.
    """
    algorithms = [a for a in ALGORITHMS if a in set(ranks["algorithm"])]
    fig, axes = new_figure(0.8 * _style_width(), nrows=2, ncols=2)
    prefix = "paper_rank_" if paper else "rank_"
    for ax, k in zip(axes.ravel(), INDICATORS, strict=True):
        grid = ranks.pivot(index="function", columns="algorithm", values=f"{prefix}{k}")
        grid = grid.reindex(columns=algorithms).astype(float)
        image = ax.imshow(
            grid.to_numpy(), cmap="viridis_r", vmin=1, vmax=len(algorithms), aspect="auto"
        )
        _label_cells(ax, image, grid.to_numpy())
        ax.set_xticks(range(len(algorithms)), algorithms)
        ax.set_yticks(range(len(grid.index)), [f"F{f}" for f in grid.index])
        ax.set_xlabel("algorithm")
        ax.set_ylabel("CEC 2022 function")
        ax.set_title(_TITLES[k])
        ax.grid(False)
        fig.colorbar(image, ax=ax, label="rank (1 = best) [-]")
    source = "paper's Tables 3-4" if paper else "this reproduction"
    fig.suptitle(f"CEC 2022, D = {dim}: ranks of the four indicators ({source})")
    return fig


def convergence_figure(
    histories: Mapping[tuple[int, str], pd.DataFrame],
    dim: int,
    *,
    functions: Sequence[int] | None = None,
) -> Figure:
    """Median (line) and interquartile band of the best-so-far error f - f* over the runs
    against evaluations, one panel per function (those in ``histories`` by default), one
    line per method (log scale).  Each panel's y range is that of the bands after the first
    :data:`SKIP_SHARE` of the budget: the first population's error set it and flattened the
    methods' final medians into a tenth of the panel."""
    if functions is None:
        functions = sorted({function for function, _ in histories})
    rows = max(1, -(-len(functions) // 4))
    height = 0.23 * _style_width() * rows + 0.5
    fig, axes = new_figure(height, nrows=rows, ncols=4, squeeze=False)
    for ax in axes.ravel()[len(functions) :]:
        ax.set_visible(False)
    colours = series_colours(list(ALGORITHMS))
    for ax, function in zip(axes.ravel(), functions, strict=False):
        low, high = np.inf, 0.0
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
            later = evals > SKIP_SHARE * evals[-1]  # 50 iterations: the first is at 2 %
            low, high = min(low, float(q1[later].min())), max(high, float(q3[later].max()))
        ax.set_yscale("log")
        if high > 0:
            ax.set_ylim(low / 1.3, high * 1.3)
        log_ticks(ax)
        ax.set_title(f"F{function}")
    for ax in axes[-1]:
        ax.set_xlabel("evaluations [-]")
    fig.supylabel("best error f - f* [-]")
    handles, labels = axes.ravel()[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=len(labels))
    share = f"{SKIP_SHARE:.0%}"
    fig.suptitle(
        f"CEC 2022, D = {dim}: convergence (median and IQR over runs; y range from {share} "
        "of the budget)"
    )
    return fig
