"""Figures of the KR210 calibration study (paper Figures 8 and 10-13) as matplotlib Figures.

Saving (PNG + PDF without time stamps) lives in :func:`paramid.io.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from numpy.typing import NDArray

Array = NDArray[np.float64]
WIDTH_IN = 7.0  # full text width of a two-column paper
STYLE = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.hashsalt": "paramid",
}

COLOURS = {
    "BC": "black",
    "EKF": "#1f77b4",
    "M1": "#1f77b4",
    "EKF+GSBISE": "#17becf",
    "EKF+MIPO": "#9467bd",
    "IPSO": "#ff7f0e",
    "M2": "#ff7f0e",
    "LASSO": "#2ca02c",
    "M3": "#2ca02c",
    "UKF": "#8c564b",
    "M4": "#8c564b",
    "MIPO-ARKEKF": "#d62728",
    "M5": "#d62728",
    "LM+GA": "#7f7f7f",
    "EKF+DQPSO": "#bcbd22",
}

__all__ = ["COLOURS", "convergence", "error_profiles", "hybrid_bars", "sample_points"]


def sample_points(train: Array, validation: Array, unused: Array) -> Figure:
    """Figure 8: compensation (training) and validation SMR positions in the base frame."""
    with plt.rc_context(STYLE):
        fig = plt.figure(figsize=(WIDTH_IN, 4.2), layout="constrained")
        ax = fig.add_subplot(projection="3d")
        ax.scatter(*unused.T, s=2, c="0.8", label=f"candidates ({len(unused)})", alpha=0.5)
        ax.scatter(*train.T, s=6, c="#1f77b4", label=f"compensation points ({len(train)})")
        ax.scatter(
            *validation.T, s=8, c="#d62728", marker="^", label=f"validation ({len(validation)})"
        )
        ax.set(xlabel="x [mm]", ylabel="y [mm]", zlabel="z [mm]")
        ax.set_title("Calibration points in the robot base frame (Fig 8)")
        ax.legend(loc="upper left")
    return fig


def error_profiles(panels: Mapping[str, Mapping[str, Array]]) -> Figure:
    """Figure 10: per-point validation position errors before/after compensation.

    ``panels`` maps a panel title to {method: errors over the validation points (mm)}.
    """
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(
            len(panels),
            2,
            figsize=(WIDTH_IN, 2.6 * len(panels)),
            layout="constrained",
            gridspec_kw={"width_ratios": [3, 1]},
            squeeze=False,
        )
        for (title, series), (ax, hx) in zip(panels.items(), axes, strict=True):
            top = max(float(np.max(v)) for v in series.values())
            low = min(float(np.min(v[v > 0])) for v in series.values())
            bins = np.geomspace(low * 0.98, top * 1.02, 40)
            for name, err in series.items():
                colour = COLOURS.get(name)
                ax.plot(np.arange(1, err.size + 1), err, lw=0.9, color=colour, label=name)
                hx.hist(err, bins=bins, orientation="horizontal", histtype="step", color=colour)
            ax.set(xlabel="Validation point", ylabel="Position error [mm]", title=title)
            ax.set_yscale("log")
            hx.set_yscale("log")
            hx.set(xlabel="Points", ylabel="Position error [mm]", title="Distribution")
            ax.legend(ncols=len(series), loc="upper center", fontsize=7)
    return fig


def convergence(histories: Mapping[str, pd.DataFrame], title: str, bc: float | None) -> Figure:
    """Figures 11 and 13: training RMSE [mm] per iteration, median over runs with a min-max band."""
    with plt.rc_context(STYLE):
        fig, ax = plt.subplots(figsize=(WIDTH_IN, 3.2), layout="constrained")
        for name, h in histories.items():
            table = h.pivot(index="iteration", columns="run", values="train_rmse_mm")
            it = table.index.to_numpy()
            colour = COLOURS.get(name)
            ax.plot(it, table.median(axis=1), color=colour, lw=1.3, label=name)
            ax.fill_between(it, table.min(axis=1), table.max(axis=1), color=colour, alpha=0.15)
        if bc is not None:
            ax.axhline(bc, color="black", ls=":", lw=1.0, label="BC")
        ax.set_yscale("log")
        ax.set(xlabel="Iteration", ylabel="Training RMSE [mm] (Eq 45)", title=title)
        ax.legend(ncols=3)
    return fig


def hybrid_bars(table: pd.DataFrame) -> Figure:
    """Figure 12: (a) validation RMSE and (b) time per run of MIPO-ARKEKF and the hybrids."""
    with plt.rc_context(STYLE):
        fig, (a, b) = plt.subplots(1, 2, figsize=(WIDTH_IN, 2.8), layout="constrained")
        names = table["method"].tolist()
        colours = [COLOURS.get(n) for n in names]
        x = np.arange(len(names))
        a.bar(x, table["rmse_mm"], yerr=table["rmse_mm_sd"].fillna(0.0), color=colours)
        a.set(xticks=x, xticklabels=names, ylabel="Validation RMSE [mm]", title="(a) accuracy")
        b.bar(x, table["time_s"], yerr=table["time_s_sd"].fillna(0.0), color=colours)
        b.set(xticks=x, xticklabels=names, ylabel="Time per run [s]", title="(b) computation time")
    return fig
