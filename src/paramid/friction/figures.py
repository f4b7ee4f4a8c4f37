"""Figure of one twin variant of the nonlinear-friction study (hip paper §5.1, §5.3).

Drawn with :mod:`paramid.plotting` (call :func:`truth_figure` inside ``styled(style)``);
methods keep the hip study's colours of Figure 3.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from numpy.typing import ArrayLike, NDArray

from paramid.friction import laws
from paramid.friction.laws import FrictionModel
from paramid.friction.methods import DISPLAY, METHOD_NAMES, POPULATION
from paramid.plotting import COLOURS as METHOD_COLOURS
from paramid.plotting import log_ticks, new_figure, series_colours
from paramid.seeding import generator

Array = NDArray[np.float64]

#: Method colours: the hip study's (Figure 3; a method without one its next spare colour);
#: LSQ-TRF takes BCLS's, VarPro black.
_POPULATION_COLOURS = series_colours([DISPLAY[m] for m in POPULATION])
COLOURS = {
    **{m: _POPULATION_COLOURS[DISPLAY[m]] for m in POPULATION},
    "least_squares": METHOD_COLOURS["BCLS"],
    "varpro": "#000000",
}


#: Panel (b) draws an excess at or below this [N m] on this floor: the fit reached the cell's
#: best (a log axis cannot show 0).
REACHED_NM = 1e-7
#: Panel (b)'s axis reaches this share of its decades below the floor: a band under every
#: curve for its legend (in the lower left it hid the floor and VarPro's curve on it).
LEGEND_BAND = 0.25


def traces_on_grid(traces: pd.DataFrame, grid: ArrayLike) -> Array:
    """Best-so-far value of each run (rows, in run order) at evaluation counts ``grid``.

    NaN before a run's first recorded evaluation.
    """
    grid = np.asarray(grid, dtype=np.float64)
    out = []
    for _, g in traces.groupby("run", sort=True):
        e = g.evals.to_numpy(float)
        b = g.best_train_rmse.to_numpy(float)
        idx = np.searchsorted(e, grid, side="right") - 1
        out.append(np.where(idx >= 0, b[np.clip(idx, 0, None)], np.nan))
    return np.array(out)


def _friction_panel(
    ax: Axes,
    law: FrictionModel,
    truth: Mapping[str, float],
    matched: pd.DataFrame,
    velocity_max: float,
) -> None:
    """(a) The true friction law and the median-run fits of the matched model near reversals."""
    span = min(velocity_max, 0.75)  # the shape lives near reversals; viscous beyond
    qd = np.linspace(-span, span, 2001)
    ax.plot(qd, law.torque(qd, law.vector(truth)), color="0.5", lw=3, label="truth")
    for method, line in (("varpro", "-"), ("rls_agwo", "--"), ("rls_gwo", ":")):
        g = matched[matched.method == method]
        if g.empty:
            continue
        row = g.iloc[int(np.argsort(g.val_rmse.to_numpy())[len(g) // 2])]  # median run
        theta = row[list(law.params)].to_numpy(float)
        ax.plot(
            qd,
            law.torque(qd, theta),
            line,
            color=COLOURS[method],
            lw=1.2,
            label=f"{DISPLAY[method]} (median run)",
        )
    ax.set(
        xlabel="Velocity q̇ [rad/s] (zoom on reversals)",
        ylabel="Friction torque [N m]",
        title=f"(a) true friction: {law.label}",
    )
    ax.text(0.98, 0.02, law.equation, transform=ax.transAxes, ha="right", fontsize="x-small")
    ax.legend(loc="upper left")


def _convergence_panel(
    ax: Axes, law: FrictionModel, matched: pd.DataFrame, traces: pd.DataFrame
) -> None:
    """(b) Best-so-far training RMSE (Eq 13) above the cell's best against evaluations:
    median and IQR over seeds of the matched model's fits."""
    cell = traces[traces.fitted_model == law.name]
    best = float(matched.best_train_rmse_cell.iloc[0]) if len(matched) else np.nan
    top = max(2400.0, float(cell.evals.max()) if len(cell) else 1.0)
    evals = np.unique(np.geomspace(1, top, 200).round())
    for method in cell.method.unique():
        h = traces_on_grid(cell[cell.method == method], evals)
        excess = np.maximum(h - best, REACHED_NM)
        with warnings.catch_warnings():  # all-NaN columns before a run's first evaluation
            warnings.simplefilter("ignore", RuntimeWarning)
            q1, med, q3 = np.nanpercentile(excess, [25, 50, 75], axis=0)
        ax.plot(evals, med, color=COLOURS.get(method), lw=1.2)  # named in (c)'s legend
        if h.shape[0] > 1:
            ax.fill_between(evals, q1, q3, color=COLOURS.get(method), alpha=0.15, lw=0)
    ax.axhline(0.01 * best, color="0.3", lw=0.8, ls="--", label="1 % of best")
    ax.axhline(REACHED_NM, color="0.6", lw=0.6, ls=":", label="reached the cell best")
    ax.set(
        xscale="log",
        yscale="log",
        xlabel="Evaluations",
        ylabel="Best training RMSE − cell best [N m]",
        title=f"(b) convergence, fitted {law.label}",
    )
    top = ax.get_ylim()[1]
    ax.set_ylim(REACHED_NM / (top / REACHED_NM) ** LEGEND_BAND, top)  # nothing drawn below
    ax.legend(fontsize="small", loc="lower center", ncols=2)  # the methods: below (c)


def _validation_panel(ax: Axes, law: FrictionModel, runs: pd.DataFrame) -> None:
    """(c) Validation RMSE (Eq 21) over seeds per fitted model and method (box + jitter)."""
    fitted = list(dict.fromkeys(runs.fitted_model))
    methods = [m for m in METHOD_NAMES if m in set(runs.method)]
    width = 0.8 / len(methods)
    rng = generator("figures", "hip_nonlinear", law.name)
    for i, f in enumerate(fitted):
        for j, m in enumerate(methods):
            v = runs[(runs.fitted_model == f) & (runs.method == m)].val_rmse.to_numpy()
            if v.size == 0:
                continue
            x = i - 0.4 + width * (j + 0.5)
            ax.boxplot(
                [v],
                positions=[x],
                widths=width * 0.8,
                whis=(0, 100),
                showfliers=False,
                medianprops={"color": "black"},
            )
            ax.scatter(
                x + rng.uniform(-0.3, 0.3, v.size) * width,
                v,
                s=5,
                alpha=0.6,
                color=COLOURS.get(m),
                label=DISPLAY[m] if i == 0 else None,
                zorder=3,
            )
    ax.set_xticks(range(len(fitted)), [laws.get(f).label for f in fitted])
    ax.set_yscale("log")
    log_ticks(ax)  # labels down among the fits at the noise floor, under PSO's spread
    ax.set(
        xlabel="Fitted friction law",
        ylabel="Validation RMSE [N m]",
        title=f"(c) validation RMSE over seeds (Eq 19, 21), true friction: {law.label}",
    )
    ax.legend(ncols=len(methods), loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize="small")


def truth_figure(
    true_model: str,
    truth: Mapping[str, float],
    runs: pd.DataFrame,
    traces: pd.DataFrame,
    qd: ArrayLike,
) -> Figure:
    """One figure per twin variant: (a) true friction law and median-run fits of the matched
    model near reversals, within the largest speed of the calibration velocities ``qd``
    [rad/s], (b) convergence of the matched model's fits against evaluations (best-so-far
    training RMSE, Eq 13, above the cell's best; median and IQR over seeds), (c) validation
    RMSE (Eq 21) over seeds per fitted model and method."""
    velocity_max = float(np.max(np.abs(qd)))
    law = laws.get(true_model)
    matched = runs[runs.fitted_model == true_model]
    fig, axes = new_figure(7.2, nrows=2, ncols=2, height_ratios=[1.0, 1.1])
    for ax in axes[1]:  # panel (c) spans the bottom row
        ax.remove()
    ax_v = fig.add_subplot(axes[0, 0].get_gridspec()[1, :])
    _friction_panel(axes[0, 0], law, truth, matched, velocity_max)
    _convergence_panel(axes[0, 1], law, matched, traces)
    _validation_panel(ax_v, law, runs)
    return fig
