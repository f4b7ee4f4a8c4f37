"""Figures of a multi-joint study (PNG + PDF through :mod:`paramid.plotting`).

- :func:`torque_figure`: measured vs predicted torque per joint on the validation records;
- :func:`rmse_figure`: per-joint validation RMSE by method, one panel per record;
- :func:`parameters_figure`: base parameters by method with ±1.96 standard errors;
- :func:`excitation_figure`: a designed excitation's joint trajectories against the limits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from paramid.excitation.fourier import FourierTrajectory
from paramid.plotting import new_figure


def torque_figure(
    predictions: Mapping[str, pd.DataFrame], joints: Sequence[str], records: Sequence[str]
) -> Figure:
    """One row per joint, one column per validation record: the torque as recorded (grey)
    and each method's prediction."""
    fig, axes = new_figure(
        1.1 * len(joints) + 0.6,
        nrows=len(joints),
        ncols=len(records),
        squeeze=False,
        sharex="col",
    )
    first = next(iter(predictions.values()))
    for c, record in enumerate(records):
        rows = first["record"] == record
        time = first.loc[rows, "time"].to_numpy()
        for r, joint in enumerate(joints):
            ax = axes[r, c]
            ax.plot(
                time, first.loc[rows, f"tau_meas_{joint}"], color="0.6", lw=0.6, label="measured"
            )
            for method, frame in predictions.items():
                part = frame[frame["record"] == record]
                ax.plot(part["time"], part[f"tau_pred_{joint}"], lw=0.7, label=method)
            ax.set_ylabel(f"{joint} [N m]")
        axes[0, c].set_title(record)
        axes[-1, c].set_xlabel("time [s]")
    axes[0, 0].legend(ncol=min(4, len(predictions) + 1), loc="upper left")
    return fig


def rmse_figure(validation: pd.DataFrame) -> Figure:
    """Grouped bars: per-joint RMSE [N m] by method, one panel per validation record."""
    records = list(dict.fromkeys(validation["record"]))
    fig, axes = new_figure(2.2 * len(records), nrows=len(records), squeeze=False)
    for ax, record in zip(axes[:, 0], records, strict=True):
        table = validation[validation["record"] == record].pivot(
            index="joint", columns="method", values="rmse"
        )
        table = table[list(dict.fromkeys(validation["method"]))]
        width = 0.8 / table.shape[1]
        x = np.arange(table.shape[0])
        for k, method in enumerate(table.columns):
            ax.bar(x + (k - (table.shape[1] - 1) / 2) * width, table[method], width, label=method)
        ax.set_xticks(x, table.index)
        ax.set_yscale("log")
        ax.set_ylabel("RMSE [N m]")
        ax.set_title(record)
    axes[0, 0].legend(ncol=min(7, validation["method"].nunique()), loc="upper left")
    return fig


def parameters_figure(parameters: pd.DataFrame) -> Figure:
    """Base parameters (symlog axis) of each method; error bars ±1.96 standard errors where
    the method has them."""
    names = list(dict.fromkeys(parameters["parameter"]))
    fig, ax = new_figure(3.2)
    x = np.arange(len(names))
    methods = list(dict.fromkeys(parameters["method"]))
    width = 0.8 / len(methods)
    for k, method in enumerate(methods):
        part = parameters[parameters["method"] == method].set_index("parameter").loc[names]
        error = 1.959963984540054 * part["stderr"].to_numpy()
        ax.errorbar(
            x + (k - (len(methods) - 1) / 2) * width,
            part["value"],
            yerr=np.where(np.isfinite(error), error, 0.0),
            fmt="o",
            ms=2,
            lw=0.6,
            label=method,
        )
    ax.set_yscale("symlog", linthresh=1e-3)
    ax.set_xticks(x, names, rotation=90, fontsize="x-small")
    ax.set_ylabel("base parameter [SI]")
    ax.legend(ncol=min(7, len(methods)), loc="upper right")
    return fig


def excitation_figure(
    trajectory: FourierTrajectory, joints: Sequence[str], limits: Mapping[str, Sequence[float]]
) -> Figure:
    """One row per joint: q (left) and q̇ (right) of the designed excitation over one period,
    the limits used dashed."""
    t = np.linspace(0.0, trajectory.period, 2000)
    q, dq, _ = trajectory.evaluate_joints(t)
    fig, axes = new_figure(
        1.0 * len(joints) + 0.6, nrows=len(joints), ncols=2, squeeze=False, sharex=True
    )
    for k, joint in enumerate(joints):
        for ax, values, lo, hi, unit in (
            (axes[k, 0], q[:, k], limits["q_min"][k], limits["q_max"][k], "rad"),
            (axes[k, 1], dq[:, k], -limits["qd_max"][k], limits["qd_max"][k], "rad/s"),
        ):
            ax.plot(t, values, lw=0.8)
            for bound in (lo, hi):
                ax.axhline(bound, color="0.4", ls="--", lw=0.6)
            ax.set_ylabel(f"{joint} [{unit}]")
    axes[0, 0].set_title("position vs limits")
    axes[0, 1].set_title("velocity vs limits")
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    return fig
