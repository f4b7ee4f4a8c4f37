"""Figures of the hip study (paper Figures 3a–d, 4a–b, the §5.3 sweeps) as matplotlib Figures;
saving lives in paramid.io.

Sized for a journal column pair (7 in wide), fonts readable at print size, axes with units.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from numpy.typing import NDArray

from paramid.hip.methods import display_name
from paramid.hip.tables import median_run
from paramid.plotting import COLOURS, coincident_note, legend_outside, log_ticks, new_figure
from paramid.population import POPULATION_METHODS
from paramid.seeding import generator

Array = NDArray[np.float64]
MARKERS = ("o", "s", "^", "D", "v")  # one per method of a sweep figure
#: a method's place in the shared colour table sets its marker and line in every sweep figure
STYLE_ORDER = list(COLOURS)


#: the longest stretch of a record a time plot draws (the paper's validation record: 7 s);
#: a longer one is drawn from its start, and the title says how much of it
MAX_SHOWN_S = 10.0


def _shown(time: Array) -> tuple[NDArray[np.bool_], str]:
    """The samples a time plot draws and the title's note on them ("" for the whole)."""
    keep = time <= time[0] + MAX_SHOWN_S + 0.5 * float(np.median(np.diff(time)))
    if keep.all():
        return keep, ""
    return keep, f" (first {MAX_SHOWN_S:g} s of {time[-1] - time[0]:.3g} s)"


def _legend_above(ax: Any, drawn: Mapping[str, Array], ncols: int) -> None:
    """The legend above a time plot's curves ``drawn``, titled where they lie on one another
    (:func:`paramid.plotting.coincident_note`), the axis leaving room for it."""
    title = coincident_note(drawn, "N m") or None
    ax.margins(y=0.35 if title else 0.25)
    ax.legend(ncols=ncols, loc="upper center", title=title, title_fontsize="small")


def validation_torque(time: Array, measured: Array, estimates: Mapping[str, Array]) -> Figure:
    """Figure 3a: measured validation torque and the estimates H X̂ of selected methods (the
    first :data:`MAX_SHOWN_S` of a longer record; curves drawn on one another are said to be,
    :func:`paramid.plotting.coincident_note`)."""
    keep, note = _shown(time)
    fig, ax = new_figure(3.0)
    ax.plot(time[keep], measured[keep], color=COLOURS["Measured"], lw=1.6, label="Measured")
    for (label, est), style in zip(estimates.items(), ("-", "--", ":"), strict=False):
        ax.plot(
            time[keep],
            est[keep],
            style,
            color=COLOURS.get(label),
            lw=1.1,
            label=f"{label} estimate",
        )
    ax.set(xlabel="Time [s]", ylabel="Joint torque [N m]", title=f"Validation record: torque{note}")
    drawn = {"Measured": measured[keep]}
    drawn |= {f"{label} estimate": est[keep] for label, est in estimates.items()}
    _legend_above(ax, drawn, ncols=4)
    return fig


def residuals(time: Array, residual: Mapping[str, Array]) -> Figure:
    """Figure 3b: signed validation residuals T_m − H X̂ (Eq 20) of each method's median run
    (of an even count the lower middle one, Table 4's: its RMSE can differ from Table 3's
    median, the mean of the two middle runs); the RMSE is the whole record's, the curves its
    first :data:`MAX_SHOWN_S`; curves drawn on one another are said to be
    (:func:`paramid.plotting.coincident_note`)."""
    keep, note = _shown(time)
    fig, ax = new_figure(3.0)
    for label, r in residual.items():
        rmse = float(np.sqrt(np.mean(r * r)))
        label_rmse = f"{label} (RMSE {rmse:.4f} N m)"
        ax.plot(time[keep], r[keep], color=COLOURS.get(label), lw=0.9, label=label_rmse)
    ax.axhline(0.0, color="black", lw=0.6)
    ax.set(
        xlabel="Time [s]",
        ylabel="Residual torque [N m]",
        title="Signed validation residuals (Eq 20), median run (lower middle) of each method"
        + note,
    )
    _legend_above(ax, {label: r[keep] for label, r in residual.items()}, ncols=3)
    return fig


def rmse_distribution(values: Mapping[str, Array], references: Mapping[str, float]) -> Figure:
    """Figure 3c: validation RMSE over seeds per method, box plus every run.

    Left, every method on a log axis (standard PSO's outliers and the tight RLS clusters
    together); right, the RLS-bounded methods alone on a linear axis, where standard PSO's
    outliers no longer flatten them and GWO against AGWO (the paper's ablation) can be read.
    Deterministic methods are horizontal reference lines.
    """
    in_box = {spec.label for spec in POPULATION_METHODS.values() if spec.box == "rls"}
    inside = [k for k in values if k in in_box]
    if inside and len(inside) < len(values):
        fig, (whole, bounded) = new_figure(3.4, ncols=2, width_ratios=[5, 4])
        panels = [(whole, list(values)), (bounded, inside)]
        bounded.set(ylabel="Validation RMSE [N m]", title="In the RLS box (linear axis)")
    else:  # nothing outside the RLS box (or nothing in it) to flatten the others
        fig, whole = new_figure(3.4)
        panels = [(whole, list(values))]
    if len(panels) == 2:
        lines = list(references.values())
        _outliers_marked(bounded, [np.asarray(values[k], dtype=float) for k in inside], lines)
    rng = generator("figures", "fig3c", "jitter")
    jitter = {k: rng.uniform(-0.15, 0.15, size=np.size(v)) for k, v in values.items()}
    for ax, labels in panels:
        data = [np.asarray(values[k]) for k in labels]
        ax.boxplot(
            data,
            tick_labels=labels,
            whis=(0, 100),
            widths=0.5,
            showfliers=False,
            medianprops={"color": "black"},
        )
        for i, (label, v) in enumerate(zip(labels, data, strict=True), start=1):
            ax.scatter(i + jitter[label], v, s=10, alpha=0.7, color=COLOURS.get(label), zorder=3)
        for label, value in references.items():
            ax.axhline(
                value, ls="--", lw=0.9, color=COLOURS.get(label), label=f"{label} {value:.4f} N m"
            )
        ax.tick_params(axis="x", labelrotation=30)
    whole.set_yscale("log")
    log_ticks(whole)
    whole.set(ylabel="Validation RMSE [N m]", title="All methods (log axis)")
    whole.legend(loc="upper right")
    runs = max(np.size(v) for v in values.values())
    fig.suptitle(f"Repeated-run distribution ({runs} seeds)")
    return fig


def _outliers_marked(ax: Any, data: Sequence[Array], references: Sequence[float]) -> None:
    """Linear y-limits over the runs within 3 interquartile ranges of their method's box and
    the ``references`` (lines drawn on the panel); the runs of a method beyond them drawn as
    one triangle on the axis edge with the farthest value and their count: one diverged run
    flattened every other box (2.32 against 2.266-2.273 N m on the pendulum)."""
    finite = [v[np.isfinite(v)] for v in data]
    inner = []
    for v in (v for v in finite if v.size):
        q1, q3 = np.percentile(v, [25, 75])
        reach = 3.0 * max(q3 - q1, 1e-12)
        inner.append(v[(v >= q1 - reach) & (v <= q3 + reach)])
    levels = np.concatenate([*inner, np.asarray(references, dtype=np.float64)])
    levels = levels[np.isfinite(levels)]
    if levels.size == 0:
        return
    low, high = float(levels.min()), float(levels.max())
    pad = 0.08 * max(high - low, 1e-12)
    low, high = low - pad, high + pad
    if all(v.size == 0 or (v.min() >= low and v.max() <= high) for v in finite):
        return
    ax.set_ylim(low, high)
    for i, v in enumerate(finite, start=1):
        for beyond, edge, marker, va in (
            (v[v > high], high, "^", "top"),
            (v[v < low], low, "v", "bottom"),
        ):
            if beyond.size == 0:
                continue
            farthest = beyond.max() if marker == "^" else beyond.min()
            count = f" ({beyond.size} runs)" if beyond.size > 1 else ""
            ax.plot(i, edge, marker=marker, color="black", ms=6, clip_on=False, zorder=4)
            ax.annotate(
                f"{farthest:.4g}{count}",
                (i, edge),
                xytext=(6, 0),
                textcoords="offset points",
                va=va,
                fontsize="small",
            )


def convergence(histories: Mapping[str, Array], optimum: float) -> Figure:
    """Figure 3d: median and IQR band of the best-so-far training RMSE per iteration.

    Drawn as the excess over the BCLS training RMSE ``optimum`` (the global minimum within
    the RLS box) on a log axis, so that the RLS methods do not collapse onto one line.
    """
    fig, ax = new_figure(3.2)
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
    legend_outside(ax)
    return fig


def setting_label(
    sweep: str, value: float, paper: Mapping[str, float] | None, chosen: bool, scale: float = 1.0
) -> str:
    """What a sweep figure's marked ``value`` is: a cutoff ``chosen`` from the data, the
    paper's Table 2 setting (``paper``: the ``settings`` of its printed values), another value
    of a study that reproduces the paper (the paper's beside it, times the axis' ``scale``), or
    the study's own."""
    if chosen:
        return "cutoff chosen from the data"
    if paper is None or sweep not in paper:
        return "study's setting"
    if np.isclose(value, float(paper[sweep])):
        return "paper's setting"
    return f"study's setting (the paper's: {float(paper[sweep]) * scale:g})"


def sweep(
    table: pd.DataFrame,
    xlabel: str,
    scale: float,
    default: float,
    seed0: pd.Series | None = None,
    seed: int = 0,
    setting: str = "paper's setting",
) -> Figure:
    """Figure 4a/4b and the §5.3 sweeps: median and IQR of validation RMSE per setting (of the
    table's ``n`` runs; a measured record's one run per setting has no IQR); ``default`` is
    marked as ``setting``."""
    fig, ax = new_figure(3.0)
    for method, group in table.groupby("method", sort=False):
        group = group.sort_values("value")
        x = group["value"].to_numpy(float) * scale
        label = display_name(method)
        colour = COLOURS.get(label)
        k = STYLE_ORDER.index(label) if label in STYLE_ORDER else len(STYLE_ORDER)
        hollow = k % 2 == 1  # methods at the same values (RLS-PSO, RLS-GA) stay both visible
        ax.plot(
            x,
            group["val_median"],
            marker=MARKERS[k % len(MARKERS)],
            ls="--" if hollow else "-",
            ms=8 if hollow else 5,
            mfc="none" if hollow else colour,
            color=colour,
            label=_series_label(label, method, int(group["n"].max()) if "n" in group else 0),
        )
        ax.fill_between(x, group["val_q1"], group["val_q3"], color=colour, alpha=0.2, lw=0)
    if seed0 is not None:
        seed0 = seed0.sort_index()
        ax.plot(
            seed0.index * scale,
            seed0.to_numpy(),
            "s--",
            color="black",
            ms=4,
            label=f"twin seed {seed}",
        )
    ax.axvline(default * scale, color="grey", ls=":", lw=1, label=setting)
    runs = int(table["n"].max()) if "n" in table else 0
    title = f"Median and IQR over {runs} runs" if runs > 1 else "One run per setting"
    single = table.groupby("method", sort=False)["n"].max() if runs > 1 else pd.Series()
    if (single == 1).any():
        title += f"; {', '.join(display_name(m) for m in single.index[single == 1])}: one run"
    ax.set(xlabel=xlabel, ylabel="Validation RMSE [N m]", title=title)
    legend_outside(ax)
    return fig


def _series_label(label: str, method: str, runs: int) -> str:
    """A sweep figure's legend name of a method of ``runs`` runs per setting: a median where
    it has several, else its one run, named deterministic where no seed drives it (BCLS's
    one run was called a median over 30)."""
    if runs > 1:
        return f"{label} median"
    return f"{label} (deterministic)" if method not in POPULATION_METHODS else f"{label} (one run)"


def agwo_grid(cells: pd.DataFrame, default: tuple[float, float]) -> Figure:
    """AGWO μ_base × κ grid (Eq 12): median validation RMSE per cell."""
    fig, ax = new_figure(3.4)
    image = ax.imshow(cells.to_numpy(), origin="lower", cmap="viridis", aspect="auto")
    ax.set_xticks(range(cells.shape[1]), [f"{k:g}" for k in cells.columns])
    ax.set_yticks(range(cells.shape[0]), [f"{m:g}" for m in cells.index])
    for i in range(cells.shape[0]):
        for j in range(cells.shape[1]):
            value = cells.iat[i, j]
            ax.text(
                j,
                i,
                f"{value:.4f}",
                ha="center",
                va="center",
                color="black" if image.norm(value) > 0.6 else "white",  # viridis is light on top
                fontsize=7,
            )
    if default[0] in cells.index and default[1] in cells.columns:
        i, j = list(cells.index).index(default[0]), list(cells.columns).index(default[1])
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="red", lw=2))
    ax.set(
        xlabel="κ (Eq 12) [-]",
        ylabel="μ_base (Eq 12) [-]",
        title="RLS-AGWO median validation RMSE [N m]",
    )
    ax.grid(False)
    fig.colorbar(image, ax=ax, label="Validation RMSE [N m]")
    return fig


def loto(table: pd.DataFrame) -> Figure:
    """Leave-one-trajectory-out (§5.3): default vs swapped records, median and IQR per method.

    As Figure 3c: left, every method on a log axis; right, where standard PSO (outside the
    RLS box) is among them, the others without it on a linear axis, where its 10x larger
    errors no longer press them into the bottom 8 % of the axis.
    """
    methods = list(dict.fromkeys(table["method"]))
    outside = {k for k, spec in POPULATION_METHODS.items() if spec.box != "rls"}
    inside = [m for m in methods if m not in outside]
    if inside and len(inside) < len(methods):
        fig, (whole, bounded) = new_figure(
            3.4, ncols=2, width_ratios=[len(methods) + 1, len(inside) + 1]
        )
        panels = [(whole, methods), (bounded, inside)]
        left_out = ", ".join(display_name(m) for m in methods if m not in inside)
        bounded.set(ylabel="Validation RMSE [N m]", title=f"Without {left_out} (linear axis)")
    else:
        fig, whole = new_figure(3.2)
        panels = [(whole, methods)]
    for ax, shown in panels:
        for offset, (value, group) in zip(
            (-0.15, 0.15), table.groupby("value", sort=True), strict=False
        ):
            group = group.set_index("method").loc[shown]
            x = np.arange(len(shown)) + offset
            err = [group["val_median"] - group["val_q1"], group["val_q3"] - group["val_median"]]
            ax.errorbar(x, group["val_median"], yerr=err, fmt="o", capsize=3, label=value)
        ax.set_xticks(range(len(shown)), [display_name(m) for m in shown])
        if len(panels) == 2:
            ax.tick_params(axis="x", labelrotation=30)
    whole.set_yscale("log")
    log_ticks(whole)
    whole.set(ylabel="Validation RMSE [N m]")
    whole.legend(loc="best")
    title = "Leave-one-trajectory-out: median and IQR"
    if len(panels) == 2:
        whole.set_title("All methods (log axis)")
        fig.suptitle(title)
    else:
        whole.set_title(title)
    return fig


#: axis label and scale of each plotted sweep (the §5.3 grid and LOTO have their own figures)
SWEEP_LABELS = {
    "margin": ("Bound margin [% of span]", 100.0),
    "cutoff_hz": ("Low-pass cutoff [Hz]", 1.0),
    "forgetting": ("RLS forgetting factor λ [-]", 1.0),
    "population": ("Population size N (at the study's evaluation budget)", 1.0),
}


def figure3(
    figure: str,
    fits: Mapping[str, pd.DataFrame],
    validation: tuple[Array, Array, Array] | None = None,
    names: Sequence[str] = (),
    histories: Mapping[str, pd.DataFrame] | None = None,
    bcls_train_rmse: float | None = None,
) -> Figure:
    """One panel of Figure 3 from the fits (method key -> fit frame).

    3a/3b: the validation torque and residuals of each fit's median run, ``validation`` the
    time, the regressor H and the measured torque of the validation record and ``names`` the
    parameters of H's columns; 3c: the validation RMSE of every seeded run of the population
    methods, BCLS as a reference line; 3d: ``histories`` (method key -> best training RMSE per
    run and iteration) against ``bcls_train_rmse``.
    """
    if figure in ("fig3a", "fig3b"):
        if validation is None:
            raise ValueError(f"{figure} needs the validation record")
        time, H, measured = validation
        estimates = {
            display_name(m): H @ median_run(f)[list(names)].to_numpy(float) for m, f in fits.items()
        }
        if figure == "fig3a":
            return validation_torque(time, measured, estimates)
        return residuals(time, {k: measured - v for k, v in estimates.items()})
    if figure == "fig3c":
        runs = {
            display_name(m): f["val_rmse"].to_numpy()
            for m, f in fits.items()
            if m in POPULATION_METHODS
        }
        refs = {
            display_name(m): float(f["val_rmse"].iloc[0]) for m, f in fits.items() if m == "bcls"
        }
        return rmse_distribution(runs, refs)
    if histories is None or bcls_train_rmse is None:
        raise ValueError("fig3d needs the population histories and the BCLS training RMSE")
    curves = {
        display_name(m): h.pivot(
            index="run", columns="iteration", values="best_train_rmse"
        ).to_numpy()
        for m, h in histories.items()
    }
    return convergence(curves, bcls_train_rmse)


def sweep_figure(
    name: str,
    table: pd.DataFrame,
    points: pd.DataFrame | None,
    default: Any,
    paper: Mapping[str, float] | None = None,
    chosen: bool = False,
) -> Figure:
    """The figure of sweep ``name`` from its table (and its per-run points: the AGWO grid's
    cells, the cutoff sweep's first twin seed, as in the paper's Figure 4b); the study's
    setting is marked and named against the paper's Table 2 settings ``paper`` where the
    study reproduces the paper, or as a cutoff ``chosen`` from the data (:func:`setting_label`)."""
    if name == "leave_one_trajectory_out":
        return loto(table)
    if name == "agwo_grid":
        if points is None:
            raise ValueError("the AGWO grid figure needs its points")
        cells = points.groupby(["mu_base", "kappa"])["val_rmse"].median().unstack()
        return agwo_grid(cells, (float(default[0]), float(default[1])))
    seed0, seed = None, 0
    if name == "cutoff_hz" and points is not None and points["run"].nunique() > 1:  # twin seeds
        seed = int(points["run"].min())
        seed0 = points[points["run"] == seed].set_index("value")["val_rmse"]
    label, scale = SWEEP_LABELS[name]
    default_value = float(table["default_value"].iloc[0])  # a chosen cutoff too (auto)
    setting = setting_label(name, default_value, paper, chosen, scale)
    return sweep(table, label, scale, default_value, seed0=seed0, seed=seed, setting=setting)
