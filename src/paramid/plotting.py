"""The one figure style of every study (config ``figures``) and a bare-Figure factory.

Every figure function of every family draws inside :func:`styled` and sizes itself with
:func:`new_figure`, so ``figures.font_size`` / ``width_in`` / ``dpi`` in config.yaml change
every figure and nothing else (a style change reruns figure rules only).  Saving (PNG + PDF
without time stamps) lives in :func:`paramid.io.save_figure`.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
from matplotlib.figure import Figure

#: One colour per method label, shared by every study's figures (hip Figure 3, the friction
#: study, the KR210 figures; M1-M5 are the KR210 paper's names of EKF ... MIPO-ARKEKF).
COLOURS: dict[str, str] = {
    "Measured": "black",
    "BCLS": "#1b9e77",
    "LS": "#66a61e",
    "PSO": "#a6761d",
    "RLS-PSO": "#e6ab02",
    "RLS-GA": "#7570b3",
    "RLS-GWO": "#d95f02",
    "RLS-AGWO": "#e7298a",
    "BC": "black",
    **dict.fromkeys(("EKF", "M1"), "#1f77b4"),
    "EKF+GSBISE": "#17becf",
    "EKF+MIPO": "#9467bd",
    **dict.fromkeys(("IPSO", "M2"), "#ff7f0e"),
    **dict.fromkeys(("LASSO", "M3"), "#2ca02c"),
    **dict.fromkeys(("UKF", "M4"), "#8c564b"),
    **dict.fromkeys(("MIPO-ARKEKF", "M5"), "#d62728"),
    "LM+GA": "#7f7f7f",
    "EKF+DQPSO": "#bcbd22",
}


#: Colours of series without their own in :data:`COLOURS`, in order: matplotlib's tab10 without
#: its grey, which the robot figures give the recorded torque.
SERIES = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#bcbd22", "#17becf",
)  # fmt: skip


def unit_label(unit: str) -> str:
    """A unit as written in the tables (``kg m^2``, ``rad/s^2``) as an axis label shows it."""
    return unit.replace("^2", "²")


def series_colours(labels: Sequence[str]) -> dict[str, str]:
    """A colour per label: its own in :data:`COLOURS`, else the next of :data:`SERIES`
    (cycled past nine), so one figure's series and another's with the same labels match."""
    spare = iter(SERIES * (len(labels) // len(SERIES) + 1))
    return {label: COLOURS.get(label) or next(spare) for label in labels}


@dataclass(frozen=True)
class FigureStyle:
    """Figure style (config ``figures``): a change reruns only the figure rules."""

    font_size: float = 9.0
    width_in: float = 7.0  # full text width of a two-column paper
    dpi: int = 200

    @classmethod
    def from_config(cls, style: Mapping[str, Any] | None) -> FigureStyle:
        """From the config block ``figures`` (missing keys take the defaults above)."""
        return cls(**(style or {}))

    def rc(self) -> dict:
        """matplotlib rcParams of this style."""
        small = self.font_size - 1
        return {
            "font.size": self.font_size,
            "axes.titlesize": self.font_size,
            "axes.labelsize": self.font_size,
            "legend.fontsize": small,
            "xtick.labelsize": small,
            "ytick.labelsize": small,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "figure.figsize": (self.width_in, 3.0),
            "savefig.dpi": self.dpi,
            "svg.hashsalt": "paramid",
        }


@contextmanager
def styled(style: FigureStyle) -> Iterator[None]:
    """Draw figures inside this context to apply ``style``."""
    with mpl.rc_context(style.rc()):
        yield


def new_figure(height_in: float, **subplots: Any) -> tuple[Figure, Any]:
    """A figure of the current style's width (see :func:`styled`) and its axes.

    A bare Figure, not pyplot's: no global figure registry to close, and a figure job starts
    without pyplot's backend set-up.  ``subplots`` go to :meth:`Figure.subplots`.
    """
    fig = Figure(figsize=(mpl.rcParams["figure.figsize"][0], height_in), layout="constrained")
    return fig, fig.subplots(**subplots)


def legend_outside(ax: Any, **legend: Any) -> None:
    """The axes' legend to its right, outside the data (a legend inside hid curves and bands);
    constrained layout makes room for it."""
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, **legend)


def plain_log_ticks(ax: Any, axis: str = "y") -> None:
    """Readable log-axis ticks, set after the data are drawn: within two decades, ticks at 1,
    1.5, 2, 3, 5 per decade labelled as plain numbers (not only 10^0 and 10^1); over more,
    the decades alone, minor ticks unlabelled (their labels collided)."""
    import numpy as np
    from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

    target = ax.yaxis if axis == "y" else ax.xaxis
    low, high = ax.get_ylim() if axis == "y" else ax.get_xlim()
    if low > 0 and np.log10(high / low) <= 2.0:
        target.set_major_locator(LogLocator(subs=(1.0, 1.5, 2.0, 3.0, 5.0)))
        target.set_major_formatter(FormatStrFormatter("%.3g"))
    target.set_minor_formatter(NullFormatter())


def seed_boxes(
    ax: Any,
    per_seed: Any,
    column: str,
    order: Sequence[str],
    labels: Sequence[str],
    *,
    title: str,
    ylabel: str,
    log: bool = False,
) -> None:
    """One box per trajectory of ``per_seed`` (a frame with ``trajectory`` and ``column``,
    one row per noise seed), in ``order`` under ``labels``; log axis where errors span
    decades."""
    data = [per_seed.loc[per_seed["trajectory"] == name, column].to_numpy() for name in order]
    ax.boxplot(data, tick_labels=list(labels), medianprops={"color": "black"})
    ax.set_title(title)
    ax.set_ylabel(ylabel)
    if log:
        ax.set_yscale("log")
