"""Figures of the KR210 calibration study (paper Figures 8 and 10-13) as matplotlib Figures.

Draw them inside :func:`paramid.plotting.styled` (the config's ``figures`` style); saving
(PNG + PDF without time stamps) lives in :func:`paramid.io.save_figure`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from numpy.typing import NDArray

from paramid import stats
from paramid.calibration import paper, report
from paramid.calibration.identify import LABELS
from paramid.calibration.problem import Problem
from paramid.plotting import COLOURS, legend_outside, log_ticks, new_figure, series_colours

Array = NDArray[np.float64]


#: Line styles of the series of one panel, in drawing order (see :func:`_series_lines`).
LINESTYLES = ("-", "--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)))
#: Space above the data of a log axis for its legend, as a fraction of the decades spanned.
LEGEND_HEADROOM = 0.35

#: The single identification methods M1-M5 of Figure 11, in Table 7's order.
SINGLE = ["ekf", "ipso", "lasso", "ukf", "mipo_arkekf"]
#: Figure 10's panels: title -> (legend name, identifier) of each series.
PROFILE_PANELS = {
    "(a) before compensation, M1 and M5": (("BC", "bc"), ("M1", "ekf"), ("M5", "mipo_arkekf")),
    "(b) M2, M3, M4 and M5": (
        ("M2", "ipso"),
        ("M3", "lasso"),
        ("M4", "ukf"),
        ("M5", "mipo_arkekf"),
    ),
}

__all__ = [
    "SINGLE",
    "convergence",
    "error_profiles",
    "hybrid_bars",
    "kr210_figure",
    "median_run",
    "median_run_errors",
    "model_comparison",
    "model_groups",
    "sample_points",
]


def sample_points(train: Array, validation: Array, unused: Array) -> Figure:
    """Figure 8: compensation (training) and validation SMR positions in the base frame."""
    fig, ax = new_figure(4.2, subplot_kw={"projection": "3d"})
    ax.scatter(*unused.T, s=2, c="0.8", label=f"candidates ({len(unused)})", alpha=0.5)
    ax.scatter(*train.T, s=6, c="#1f77b4", label=f"compensation points ({len(train)})")
    ax.scatter(*validation.T, s=8, c="#d62728", marker="^", label=f"validation ({len(validation)})")
    ax.set(xlabel="x [mm]", ylabel="y [mm]", zlabel="z [mm]")
    ax.set_title("Calibration points in the robot base frame (Fig 8)")
    ax.legend(loc="upper left")
    return fig


def _series_lines(n: int, widest: float, thinnest: float) -> list[tuple[object, float]]:
    """(line style, width) of n series drawn in order: each its own style, and each drawn
    thinner than the ones before it, so a later series (M5) over an earlier one with nearly
    the same values (M1) leaves the earlier one visible on both sides."""
    widths = np.linspace(widest, thinnest, n) if n > 1 else [widest]
    return [(LINESTYLES[k % len(LINESTYLES)], float(w)) for k, w in enumerate(widths)]


def _log_range(series: Mapping[str, Array]) -> tuple[float, float]:
    """The range of every positive value of the series, widened by 2 % at both ends."""
    top = max(float(np.max(v)) for v in series.values())
    low = min(float(np.min(v[v > 0])) for v in series.values())
    return low * 0.98, top * 1.02


def error_profiles(panels: Mapping[str, Mapping[str, Array]]) -> Figure:
    """Figure 10: per-point validation position errors before/after compensation.

    ``panels`` maps a panel title to {method: errors over the validation points (mm)}.  Each
    series has its own line style and width (:func:`_series_lines`: M1 stays visible under
    M5) and the legend sits in a band above the data.
    """
    fig, axes = new_figure(
        2.6 * len(panels), nrows=len(panels), ncols=2, width_ratios=[3, 1], squeeze=False
    )
    ranges = [_log_range(series) for series in panels.values()]  # one y range for every panel
    low, top = min(r[0] for r in ranges), max(r[1] for r in ranges)
    for (title, series), (ax, hx) in zip(panels.items(), axes, strict=True):
        bins = np.geomspace(low, top, 40)
        lines = _series_lines(len(series), widest=1.6, thinnest=0.8)
        for (name, err), (ls, lw) in zip(series.items(), lines, strict=True):
            colour = COLOURS.get(name)
            ax.plot(np.arange(1, err.size + 1), err, ls=ls, lw=lw, color=colour, label=name)
            hx.hist(
                err,
                bins=bins,
                orientation="horizontal",
                histtype="step",
                color=colour,
                ls=ls,
                lw=lw,
            )
        ax.set(xlabel="Validation point", ylabel="Position error [mm]", title=title)
        for a in (ax, hx):
            a.set_yscale("log")
            a.set_ylim(low, top * (top / low) ** LEGEND_HEADROOM)
            log_ticks(a)
        hx.set(xlabel="Points", ylabel="Position error [mm]", title="Distribution")
        ax.legend(ncols=len(series), loc="upper center")
    return fig


def convergence(histories: Mapping[str, pd.DataFrame], title: str, bc: float | None) -> Figure:
    """Figures 11 and 13: training RMSE [mm] per iteration, median over runs with a min-max band
    (said in the title), the legend beside the axes.

    Each method has its own line style and width (:func:`_series_lines`), so a median drawn
    over another (M5 over M1) leaves both visible.
    """
    fig, ax = new_figure(3.2)
    lines = _series_lines(len(histories), widest=2.2, thinnest=1.0)
    for (name, h), (ls, lw) in zip(histories.items(), lines, strict=True):
        table = h.pivot(index="iteration", columns="run", values="train_rmse_mm")
        it = table.index.to_numpy()
        colour = COLOURS.get(name)
        ax.plot(it, table.median(axis=1), ls=ls, color=colour, lw=lw, label=name)
        ax.fill_between(it, table.min(axis=1), table.max(axis=1), color=colour, alpha=0.15)
    if bc is not None:
        ax.axhline(bc, color="black", ls=":", lw=1.0, label="BC")
    ax.set_yscale("log")
    log_ticks(ax)
    ax.set(
        xlabel="Iteration",
        ylabel="Training RMSE [mm] (Eq 45)",
        title=f"{title}\nmedian over runs, band: min-max",
    )
    legend_outside(ax)
    return fig


def hybrid_bars(table: pd.DataFrame) -> Figure:
    """Figure 12: (a) validation RMSE, mean ± 1 SD over runs, and (b) time per run, mean as a
    marker with the runs' min-max as a bar on a log axis (times differ by 100x, and a
    symmetric SD of 0.069 s drew LM+GA's 0.031 s below zero)."""
    fig, (a, b) = new_figure(2.8, ncols=2)
    names = table["method"].tolist()
    labels = [report.method_label(n) for n in names]
    palette = series_colours(labels)
    colours = [palette[label] for label in labels]
    x = np.arange(len(names))
    a.bar(x, table["rmse_mm"], yerr=table["rmse_mm_sd"].fillna(0.0), color=colours)
    a.set(
        xticks=x,
        xticklabels=names,
        ylabel="Validation RMSE [mm]",
        title="(a) accuracy, mean ± 1 SD over runs",
    )
    for xi, colour, (_, row) in zip(x, colours, table.iterrows(), strict=True):
        b.vlines(xi, row["time_s_min"], row["time_s_max"], color=colour, lw=6, alpha=0.4)
        b.plot(xi, row["time_s"], "o", color=colour)
    b.set_yscale("log")
    b.set(
        xticks=x,
        xticklabels=names,
        ylabel="Time per run [s]",
        title="(b) time, mean and min-max over runs",
    )
    return fig


def model_comparison(groups: Mapping[str, Mapping[str, Array]], floor_mm: float) -> Figure:
    """Validation RMSE per repeat of each identifier on each identification model (issue #18):
    ``groups`` maps a model to {method: RMSE over the repeats [mm]}; one box per (model,
    method) on a log axis, repeats as points, the tracker noise floor as a line."""
    fig, ax = new_figure(3.4)
    labels, values, colours = [], [], []
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd")
    for k, (model_name, methods) in enumerate(groups.items()):
        for method, v in methods.items():
            labels.append(f"{method}\n{model_name.replace('_', chr(10) + '+ ')}")
            values.append(np.asarray(v, dtype=np.float64))
            colours.append(palette[k % len(palette)])
    x = np.arange(1, len(values) + 1)
    boxes = ax.boxplot(values, positions=x, widths=0.6, patch_artist=True, showfliers=False)
    for patch, colour in zip(boxes["boxes"], colours, strict=True):
        patch.set(facecolor=colour, alpha=0.35)
    for xi, v in zip(x, values, strict=True):
        ax.plot(np.full(v.size, xi), v, "k.", ms=3)
    ax.axhline(
        floor_mm, color="black", ls=":", lw=1.0, label=f"tracker noise floor {floor_mm:.3f} mm"
    )
    ax.set_yscale("log")
    ax.set_xticks(x, labels, fontsize="x-small")
    ax.set(
        ylabel="Validation RMSE [mm] (Eq 45)",
        title="Identification models: validation RMSE per repeat",
    )
    ax.legend(loc="upper right")
    return fig


def median_run(frame: pd.DataFrame) -> pd.Series:
    """The fit row of the median run by validation RMSE (:func:`paramid.stats.median_position`:
    the lower of the two middle runs for an even count)."""
    return frame.iloc[stats.median_position(frame["val_rmse_mm"])]


def median_run_errors(problems: Sequence[Problem], fit: pd.DataFrame) -> Array:
    """Validation position errors [mm] of a fit's median run (:func:`median_run`), on that
    run's problem."""
    run = median_run(fit)
    problem = problems[int(run["run"])]
    x = report.estimates(run.to_frame().T, problem.free)[0]
    return problem.distances(x, "validation")


def model_groups(
    fits: Mapping[str, Mapping[str, pd.DataFrame]],
) -> dict[str, dict[str, Array]]:
    """{model: {method: validation RMSE per run, in run order}} of the identifiers that ran
    on every model of ``fits[model][identifier]`` (the 'models' figure)."""
    shared = set.intersection(*(set(f) for f in fits.values())) if fits else set()
    return {
        model_name: {
            report.model_label(i, "paper"): f.sort_values("run")["val_rmse_mm"].to_numpy()
            for i, f in by_ident.items()
            if i in shared
        }
        for model_name, by_ident in fits.items()
    }


def kr210_figure(
    figure: str,
    problems: Sequence[Problem],
    frame: pd.DataFrame,
    fits: Mapping[str, Mapping[str, pd.DataFrame]],
    histories: Mapping[str, pd.DataFrame],
) -> Figure:
    """One figure of the KR210 study by name: ``fig8`` (data set 0's points), ``fig10`` (the
    median run's validation errors), ``fig11`` / ``fig13`` (convergence of M1-M5 / of
    MIPO-ARKEKF and the hybrids, the BC line the mean training RMSE over runs), ``fig12``
    (the hybrids' accuracy and time) or ``models`` (every model's identifiers).

    ``problems`` (one per run) and ``frame`` are the paper model's, ``fits[model][identifier]``
    the fit frames, ``histories[identifier]`` the paper model's training-RMSE histories.
    """
    paper_fits = fits.get("paper", {})
    bc = float(paper_fits["bc"]["train_rmse_mm"].mean()) if "bc" in paper_fits else None
    if figure == "fig8":
        data = frame[frame["repeat"] == 0]
        xyz = ["x", "y", "z"]
        return sample_points(
            *(
                data.loc[data["split"] == s, xyz].to_numpy()
                for s in ("train", "validation", "unused")
            )
        )
    if figure == "fig10":
        return error_profiles(
            {
                title: {n: median_run_errors(problems, paper_fits[i]) for n, i in series}
                for title, series in PROFILE_PANELS.items()
            }
        )
    if figure == "fig11":
        names = paper.TABLE7_NAMES
        return convergence(
            {names[i]: histories[i] for i in SINGLE}, "Convergence of M1-M5 (Fig 11)", bc
        )
    if figure == "models":
        return model_comparison(model_groups(fits), report.noise_floor(frame))
    if figure == "fig12":
        return hybrid_bars(report.hybrid_runtime_table(paper_fits, None))  # ours alone
    if figure == "fig13":
        return convergence(
            {LABELS[i]: histories[i] for i in paper.HYBRIDS},
            "Convergence of MIPO-ARKEKF and the hybrids (Fig 13)",
            bc,
        )
    raise ValueError(f"unknown figure {figure!r}")
