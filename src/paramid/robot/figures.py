"""Figures of a multi-joint study (PNG + PDF through :mod:`paramid.plotting`).

- :func:`torque_figure`: measured vs predicted torque per joint on the validation records;
- :func:`rmse_figure`: per-joint validation RMSE by method, one panel per record, the part
  above the cutoff marked;
- :func:`parameters_figure`: base parameters by method with ±1.96 standard errors;
- :func:`regularisation_figure`: the prior weight's cross-validation curve;
- :func:`excitation_figure`: a designed excitation's joint trajectories against the limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import FixedLocator
from numpy.typing import NDArray

from paramid.excitation.fourier import FourierTrajectory
from paramid.plotting import (
    label_rows,
    log_ticks,
    new_figure,
    seed_boxes,
    series_colours,
    unit_label,
)


def torque_figure(
    predictions: Mapping[str, pd.DataFrame],
    joints: Sequence[str],
    records: Sequence[str],
    units: Mapping[str, str],
) -> Figure:
    """One row per joint, one column per validation record: the torque as recorded (grey)
    and each method's prediction, in the predictions' ``units`` (a prismatic joint's force in
    N); the legend above the panels, over no curve."""
    fig, axes = new_figure(
        1.1 * len(joints) + 0.6,
        nrows=len(joints),
        ncols=len(records),
        squeeze=False,
        sharex="col",
    )
    first = next(iter(predictions.values()))
    colours = series_colours(list(predictions))
    off_scale: set[str] = set()
    for c, record in enumerate(records):
        rows = first["record"] == record
        time = first.loc[rows, "time"].to_numpy()
        for r, joint in enumerate(joints):
            ax = axes[r, c]
            measured = first.loc[rows, f"tau_meas_{joint}"].to_numpy()
            ax.plot(time, measured, color="0.6", lw=0.6, label="measured")
            for method, frame in predictions.items():
                part = frame[frame["record"] == record]
                prediction = part[f"tau_pred_{joint}"]
                ax.plot(part["time"], prediction, lw=0.7, color=colours[method], label=method)
            low, high = _limits(measured)
            ax.set_ylim(low, high)
            for method, frame in predictions.items():
                values = frame.loc[frame["record"] == record, f"tau_pred_{joint}"]
                if values.min() < low or values.max() > high:
                    off_scale.add(method)
            unit = units[f"tau_meas_{joint}"]
            ax.set_ylabel(f"{joint}\n[{unit}]", fontsize="small")  # long names on two lines
        axes[0, c].set_title(record)
        axes[-1, c].set_xlabel("time [s]")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    labels = [f"{m} (leaves the axes)" if m in off_scale else m for m in labels]
    fig.legend(handles, labels, ncol=min(4, len(predictions) + 1), loc="outside upper center")
    return fig


def _limits(measured: np.ndarray) -> tuple[float, float]:
    """Axis limits from the recorded torque (its 0.5-99.5 % range, widened by half of it): a
    prediction that diverges leaves the axes instead of flattening every other curve."""
    low, high = np.percentile(measured, [0.5, 99.5])
    span = max(high - low, 1e-3)
    return float(low - 0.5 * span), float(high + 0.5 * span)


def regularisation_figure(table: pd.DataFrame) -> Figure:
    """The prior weight's cross-validation curve: mean held-out RMSE [N m] ± one standard error
    over the folds against the weight (zero at the left of a log axis), the rule's choice and
    the lowest score marked, the folds (time blocks or records left out) in the title."""
    fig, ax = new_figure(2.8)
    weights = table["weight"].to_numpy(np.float64)
    positive = weights[weights > 0]
    x = np.where(weights > 0, weights, positive.min() / 10 if positive.size else 1.0)
    mean, se = table["cv_rmse"].to_numpy(), table["cv_se"].to_numpy()
    ax.fill_between(x, mean - se, mean + se, color="0.85", lw=0, label="± 1 standard error")
    ax.plot(x, mean, "o-", ms=3, color="C0", label="cross-validated RMSE")
    for flag, style, name in (("lowest", "s", "lowest"), ("chosen", "*", "chosen")):
        rows = table[flag].to_numpy(bool)
        ax.plot(
            x[rows],
            mean[rows],
            style,
            ms=9,
            mfc="none",
            label=f"{name} ({table['rule'].iloc[0]})" if flag == "chosen" else name,
        )
    ax.set_xscale("log")
    if not np.all(weights > 0):  # λ = 0 drawn a decade left of the smallest weight: say so
        ticks = [t for t in ax.get_xticks() if x.min() < t <= x.max() * 1.0001]
        ax.set_xticks(
            [float(x.min()), *ticks], ["0", *(f"$10^{{{np.log10(t):g}}}$" for t in ticks)]
        )
        ax.xaxis.set_minor_locator(mpl.ticker.NullLocator())
    ax.set_xlabel("prior weight λ")
    ax.set_ylabel(f"mean per-joint RMSE [{table['unit'].iloc[0]}]")
    ax.set_title(f"held out: {table['folds'].iloc[0]}", fontsize="medium")
    ax.legend(loc="upper left")
    return fig


def rmse_figure(validation: pd.DataFrame) -> Figure:
    """Per-joint RMSE by method (in each joint's unit: N m, N for a prismatic joint, named per
    joint where they differ), one panel per validation record with the joints in the study's
    order, one marker each on a log axis shared by the panels (bars on a log axis have no
    meaningful length); a black dash beside each marks the part of its error above the
    low-pass cutoff (validation.csv's ``rmse_above_cutoff``), which no model fed the filtered
    states follows."""
    records = list(dict.fromkeys(validation["record"]))
    methods = list(dict.fromkeys(validation["method"]))
    joints = list(dict.fromkeys(validation["joint"]))
    unit = dict(zip(validation["joint"], validation["unit"], strict=True))
    mixed = len(set(unit.values())) > 1
    colours = series_colours(methods)
    fig, axes = new_figure(2.2 * len(records), nrows=len(records), squeeze=False, sharey=True)
    for ax, record in zip(axes[:, 0], records, strict=True):
        part = validation[validation["record"] == record]
        table = part.pivot(index="joint", columns="method", values="rmse").loc[joints, methods]
        above = part.pivot(index="joint", columns="method", values="rmse_above_cutoff")
        above = above.loc[joints, methods]
        width = 0.8 / table.shape[1]
        x = np.arange(table.shape[0])
        for k, method in enumerate(table.columns):
            centre = x + (k - (table.shape[1] - 1) / 2) * width
            ax.plot(centre, table[method], "o", ms=5, color=colours[method], label=method)
            ax.hlines(
                above[method],
                centre - width / 2,
                centre + width / 2,
                colors="k",
                lw=0.8,
                label=f"error above {part['cutoff_hz'].iloc[0]:g} Hz" if k == 0 else None,
            )
        labels = [f"{j}\n[{unit[j]}]" if mixed else j for j in table.index]
        ax.set_xticks(x, labels)
        ax.set_yscale("log")
        ax.set_ylabel("RMSE" if mixed else f"RMSE [{unit[joints[0]]}]")
        ax.set_title(record)
    log_ticks(axes[0, 0])
    ncol = min(4, len(methods) + 1)  # rows of four: long names stay inside the figure
    fig.legend(*axes[0, 0].get_legend_handles_labels(), ncol=ncol, loc="outside upper center")
    return fig


#: The width [in] of a parameters panel's y tick labels and two-line axis label.
Y_LABELS_IN = 1.2
#: The height [in] of a parameters panel's plotting area (its names' labels below it).
PANEL_IN = 1.6


def parameters_figure(parameters: pd.DataFrame) -> Figure:
    """Base parameters (symlog axis) of each method; error bars ±1.96 standard errors where
    the method has them.  The parameters' names stand upright under their points, in as many
    rows of panels as keep them apart (:func:`paramid.plotting.label_rows`: the 70 of the Gen3
    ran together on one)."""
    names = list(dict.fromkeys(parameters["parameter"]))
    size = FontProperties(size="small").get_size_in_points()  # the names' font
    width = mpl.rcParams["figure.figsize"][0]
    rows = label_rows(len(names), size, width - Y_LABELS_IN)
    names_in = 0.6 * size / 72.0 * max(map(len, names))  # upright: a character ~0.6 em wide
    fig, axes = new_figure(
        rows * (PANEL_IN + names_in) + 0.5, nrows=rows, squeeze=False, sharey=True
    )
    methods = list(dict.fromkeys(parameters["method"]))
    width_each = 0.8 / len(methods)
    colours = series_colours(methods)
    chunks = np.array_split(np.arange(len(names)), rows)
    units = ", ".join(dict.fromkeys(map(unit_label, parameters["unit"])))
    for ax, chunk in zip(axes[:, 0], chunks, strict=True):
        shown = [names[i] for i in chunk]
        x = np.arange(len(shown))
        for k, method in enumerate(methods):
            part = parameters[parameters["method"] == method].set_index("parameter").loc[shown]
            error = 1.959963984540054 * part["stderr"].to_numpy()
            ax.errorbar(
                x + (k - (len(methods) - 1) / 2) * width_each,
                part["value"],
                yerr=np.where(np.isfinite(error), error, 0.0),
                fmt="o",
                ms=2,
                lw=0.6,
                color=colours[method],
                label=method,
            )
        ax.set_yscale("symlog", linthresh=SYMLOG_LINTHRESH)
        ax.yaxis.set_major_locator(FixedLocator(symlog_ticks(parameters["value"].to_numpy())))
        ax.set_xticks(x, shown, rotation=90, fontsize=size)
        ax.set_xlim(-0.5, len(chunks[0]) - 0.5)  # one spacing in every row
        ax.set_ylabel(f"base parameter\n[{units}]")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(
        handles,
        labels,
        ncol=min(4, len(methods)),
        loc="outside upper center",
        title="bars: ±1.96 standard errors (95 %) where the method has them",
        title_fontsize="small",
    )
    return fig


SYMLOG_LINTHRESH = 1e-3  # N m, kg m², ...: below it a base parameter is drawn linearly
MAX_DECADE_TICKS = 4  # per sign: a few labelled decades stay readable at 3.2 in


def symlog_ticks(values: np.ndarray) -> list[float]:
    """0 and ± every k-th decade from ten times :data:`SYMLOG_LINTHRESH` up to the largest
    |value|, k such that at most :data:`MAX_DECADE_TICKS` decades are labelled on each side
    (one tick per decade overlapped when the values span 1e-3 to 1e6, and ±1e-3 sat on 0's
    label in the linear band)."""
    finite = np.abs(values[np.isfinite(values)])
    low = int(np.log10(SYMLOG_LINTHRESH)) + 1
    top = max(int(np.ceil(np.log10(finite.max()))) if finite.size and finite.max() > 0 else 0, low)
    step = max(1, int(np.ceil((top - low + 1) / MAX_DECADE_TICKS)))
    decades = [10.0**d for d in range(low, top + 1, step)]
    return [-d for d in reversed(decades)] + [0.0] + decades


# an acceleration limit beyond this many times the curve's peak is written, not drawn
OFF_SCALE = 1.5


def excitation_figure(
    trajectory: FourierTrajectory,
    joints: Sequence[str],
    limits: Mapping[str, Sequence[float]],
    units: Mapping[str, str],
) -> Figure:
    """One row per joint: q, q̇ and q̈ of the designed excitation over one period (in
    ``units``, by column: a prismatic joint's in m), the limits used dashed (none where a limit
    is null: the URDF gives none).  An acceleration limit more than :data:`OFF_SCALE` times the
    design's peak is written beside its panel instead of drawn, so that it does not flatten
    the curve (a slow design's limits reach 2.6-8.1x it)."""
    t = np.linspace(0.0, trajectory.period, 2000)
    q, dq, ddq = trajectory.evaluate_joints(t)
    fig, axes = new_figure(
        1.0 * len(joints) + 0.6, nrows=len(joints), ncols=3, squeeze=False, sharex=True
    )
    for k, joint in enumerate(joints):
        speed, accel = limits["qd_max"][k], limits["qdd_max"][k]
        drawn_accel = accel <= OFF_SCALE * np.abs(ddq[:, k]).max()
        panels: list[tuple[Any, NDArray[np.float64], list[float], str]] = [
            (
                axes[k, 0],
                q[:, k],
                [limits["q_min"][k], limits["q_max"][k]],
                f"{joint}\nq [{units[f'q_{joint}']}]",
            ),
            (
                axes[k, 1],
                dq[:, k],
                [] if speed is None else [-speed, speed],
                f"q̇ [{units[f'dq_{joint}']}]",
            ),
            (
                axes[k, 2],
                ddq[:, k],
                [-accel, accel] if drawn_accel else [],
                f"q̈ [{unit_label(units[f'ddq_{joint}'])}]",
            ),
        ]
        for ax, values, bounds, label in panels:
            ax.plot(t, values, lw=0.8)
            for level in bounds:
                ax.axhline(level, color="0.4", ls="--", lw=0.6)
            ax.set_ylabel(label)
        if not drawn_accel:
            axes[k, 2].text(
                1.03,
                0.5,
                f"limit ±{accel:.3g} {unit_label(units[f'ddq_{joint}'])}",
                transform=axes[k, 2].transAxes,
                rotation=90,
                ha="left",
                va="center",
                fontsize="small",
                color="0.4",
            )
    for ax, title in zip(axes[0], ("position", "velocity", "acceleration"), strict=True):
        ax.set_title(title)
    fig.suptitle("designed excitation, limits used dashed")
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    return fig


def excitation_comparison_figure(
    per_seed: pd.DataFrame, table: pd.DataFrame, rmse_unit: str
) -> Figure:
    """The excitations of comparison.csv on the twin, one box per trajectory over the noise
    seeds: (a) median relative base-parameter error of OLS (log axis), (b) torque RMSE on the
    independent validation trajectory against its noise-free torque (a mean over joints in
    ``rmse_unit``; the study's rmse figure judges the noisy records); each label gives
    the trajectory's cond (Eq 8)."""
    order = list(table["trajectory"])
    cond = dict(zip(table["trajectory"], table["cond"], strict=True))
    labels = [f"{name.replace('_', chr(10))}\ncond {cond[name]:.3g}" for name in order]
    fig, axes = new_figure(3.2, ncols=2)
    panels = (
        ("param_error", "(a) base-parameter error", "median |β̂ − β| / |β| (1 = 100 %)"),
        ("val_rmse", "(b) validation torque, noise-free", f"RMSE [{rmse_unit}]"),
    )
    for ax, (column, title, unit) in zip(axes, panels, strict=True):
        log = column == "param_error"
        seed_boxes(ax, per_seed, column, order, labels, title=title, ylabel=unit, log=log)
    return fig
