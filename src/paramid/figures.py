"""Figures of the hip study (paper Figure 3a–d) as matplotlib Figures; saving lives in paramid.io.

Sized for a journal column pair (7 in wide), fonts readable at print size, axes with units.
"""

from __future__ import annotations

from collections.abc import Mapping

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import NDArray

from paramid.seeding import generator

Array = NDArray[np.float64]
WIDTH_IN = 7.0
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
    "Measured": "black",
    "BCLS": "#1b9e77",
    "LS": "#66a61e",
    "PSO": "#a6761d",
    "RLS-PSO": "#e6ab02",
    "RLS-GA": "#7570b3",
    "RLS-GWO": "#d95f02",
    "RLS-AGWO": "#e7298a",
}


def _figure(height_in: float) -> tuple[Figure, plt.Axes]:
    """A full-width figure; call inside ``plt.rc_context(STYLE)``."""
    return plt.subplots(figsize=(WIDTH_IN, height_in), layout="constrained")


def validation_torque(time: Array, measured: Array, estimates: Mapping[str, Array]) -> Figure:
    """Figure 3a: measured validation torque and the estimates H X̂ of selected methods."""
    with plt.rc_context(STYLE):
        fig, ax = _figure(3.0)
        ax.plot(time, measured, color=COLOURS["Measured"], lw=1.6, label="Measured")
        for (label, est), style in zip(estimates.items(), ("-", "--", ":"), strict=False):
            ax.plot(time, est, style, color=COLOURS.get(label), lw=1.1, label=f"{label} estimate")
        ax.set(xlabel="Time [s]", ylabel="Hip torque [N m]", title="Validation torque (Eq 19)")
        ax.margins(y=0.25)
        ax.legend(ncols=4, loc="upper center")
    return fig


def residuals(time: Array, residual: Mapping[str, Array]) -> Figure:
    """Figure 3b: signed validation residuals T_m − H X̂ (Eq 20)."""
    with plt.rc_context(STYLE):
        fig, ax = _figure(3.0)
        for label, r in residual.items():
            rmse = float(np.sqrt(np.mean(r * r)))
            ax.plot(
                time, r, color=COLOURS.get(label), lw=0.9, label=f"{label} (RMSE {rmse:.4f} N m)"
            )
        ax.axhline(0.0, color="black", lw=0.6)
        ax.set(
            xlabel="Time [s]",
            ylabel="Residual torque [N m]",
            title="Signed validation residuals (Eq 20)",
        )
        ax.margins(y=0.25)
        ax.legend(ncols=3, loc="upper center")
    return fig


def rmse_distribution(values: Mapping[str, Array], references: Mapping[str, float]) -> Figure:
    """Figure 3c: validation RMSE over seeds per method, box plus every run, log scale.

    The log axis shows standard PSO's outliers and the tight RLS clusters together;
    deterministic methods are drawn as horizontal reference lines.
    """
    with plt.rc_context(STYLE):
        fig, ax = _figure(3.4)
        labels = list(values)
        data = [np.asarray(values[k]) for k in labels]
        ax.boxplot(
            data,
            tick_labels=labels,
            whis=(0, 100),
            widths=0.5,
            showfliers=False,
            medianprops={"color": "black"},
        )
        rng = generator("figures", "fig3c", "jitter")
        for i, (label, v) in enumerate(zip(labels, data, strict=True), start=1):
            x = i + rng.uniform(-0.15, 0.15, size=v.size)
            ax.scatter(x, v, s=10, alpha=0.7, color=COLOURS.get(label), zorder=3)
        for label, value in references.items():
            ax.axhline(
                value, ls="--", lw=0.9, color=COLOURS.get(label), label=f"{label} {value:.4f} N m"
            )
        ax.set_yscale("log")
        ax.set(ylabel="Validation RMSE [N m]", title="Repeated-run distribution (30 seeds)")
        ax.legend(loc="upper right")
    return fig


def convergence(histories: Mapping[str, Array], optimum: float) -> Figure:
    """Figure 3d: median and IQR band of the best-so-far training RMSE per iteration.

    Drawn as the excess over the BCLS training RMSE ``optimum`` (the global minimum within
    the RLS box) on a log axis, so that the RLS methods do not collapse onto one line.
    """
    with plt.rc_context(STYLE):
        fig, ax = _figure(3.2)
        for label, h in histories.items():
            it = np.arange(1, h.shape[1] + 1)
            excess = np.maximum(h - optimum, 1e-9)
            q1, med, q3 = np.percentile(excess, [25, 50, 75], axis=0)
            colour = COLOURS.get(label)
            ax.plot(it, med, color=colour, lw=1.3, label=label)
            ax.fill_between(it, q1, q3, color=colour, alpha=0.2, lw=0)
        ax.set_yscale("log")
        ax.set(
            xlabel="Iteration (one population of evaluations each)",
            ylabel="Best training RMSE − BCLS [N m]",
            title=f"Convergence: median and IQR over seeds (BCLS training RMSE {optimum:.4f} N m)",
        )
        ax.legend(ncols=2, loc="upper right")
    return fig
