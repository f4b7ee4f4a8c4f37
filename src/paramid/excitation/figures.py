"""Figure of the hip comparison: Eq 18 vs the designed excitation and the identification errors.

Drawn with :func:`paramid.plotting.new_figure`; call it inside :func:`paramid.plotting.styled`
(the workflow's ``figures`` style).  Saving lives in :func:`paramid.io.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from paramid import simulation
from paramid.excitation.fourier import JointLimits
from paramid.plotting import new_figure, seed_boxes

PANELS = (  # column, title, y label
    ("param_error", "(d) parameter error", "‖x̂ − x‖ / ‖x‖ [-]"),
    ("val_rmse", "(e) validation RMSE", "RMSE [N m]"),
    ("val_rmse_true", "(f) RMSE, true torque", "RMSE [N m]"),
)


def comparison_figure(
    trajectories: Mapping[str, simulation.Evaluable],
    period_s: float,
    limits: JointLimits,
    per_seed: pd.DataFrame,
) -> Figure:
    """Eq 18 and the designed excitation over one period (q, q̇, q̈ with the limits), and the
    relative parameter error and validation RMSE over the twin seeds per variant."""
    t = np.linspace(0.0, period_s, 1001)
    fig, axes = new_figure(4.6, nrows=2, ncols=3)
    labels = ("Angle [deg]", "Velocity [deg/s]", "Acceleration [deg/s²]")
    for name, traj in trajectories.items():
        for ax, x in zip(axes[0], traj.evaluate(t), strict=True):
            ax.plot(t, np.rad2deg(np.asarray(x).reshape(t.size, -1)[:, 0]), lw=1.1, label=name)
    bounds = (
        (limits.q_min[0], limits.q_max[0]),
        (-limits.qd_max[0], limits.qd_max[0]),
        (-limits.qdd_max[0], limits.qdd_max[0]),
    )
    for ax, label, (lo, hi) in zip(axes[0], labels, bounds, strict=True):
        for v in (lo, hi):
            ax.axhline(np.rad2deg(v), color="grey", ls="--", lw=0.8)
        ax.set(xlabel="Time [s]", ylabel=label)
    handles, names = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, names, loc="outside upper center", ncols=len(names))
    axes[0, 0].set_title("(a) angle, limits dashed")
    axes[0, 1].set_title("(b) velocity")
    axes[0, 2].set_title("(c) acceleration")
    order = list(dict.fromkeys(per_seed.trajectory))
    box_labels = [n.replace("_", "\n") for n in order]
    for ax, (col, title, unit) in zip(axes[1], PANELS, strict=True):
        log = col == "param_error"
        seed_boxes(ax, per_seed, col, order, box_labels, title=title, ylabel=unit, log=log)
    return fig
