"""The one figure style of every study (config ``figures``) and a bare-Figure factory.

Every figure function of every family draws inside :func:`styled` and sizes itself with
:func:`new_figure`, so ``figures.font_size`` / ``width_in`` / ``dpi`` in config.yaml change
every figure and nothing else (a style change reruns figure rules only).  Saving (PNG + PDF
without time stamps) lives in :func:`paramid.io.save_figure`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import matplotlib as mpl
import numpy as np
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties
from matplotlib.ticker import Formatter, Locator, LogLocator, MaxNLocator, NullFormatter
from numpy.typing import NDArray

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
#: its grey, which the robot figures give the recorded torque, then tab20's light shades of
#: the same (18 distinct before they repeat).
SERIES = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
    "#8c564b", "#e377c2", "#bcbd22", "#17becf",
    "#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5",
    "#c49c94", "#f7b6d2", "#dbdb8d", "#9edae5",
)  # fmt: skip


def unit_label(unit: str) -> str:
    """A unit as written in the tables (``kg m^2``, ``rad/s^2``) as an axis label shows it."""
    return unit.replace("^2", "²")


def series_colours(labels: Sequence[str]) -> dict[str, str]:
    """A colour per label: its own in :data:`COLOURS`, else the next of :data:`SERIES`
    (cycled past eighteen), so one figure's series and another's with the same labels match."""
    spare = iter(SERIES * (len(labels) // len(SERIES) + 1))
    return {label: COLOURS.get(label) or next(spare) for label in labels}


#: series whose every pair differs by less than this share of the drawn span lie on one
#: another at any figure size (a line is about 1 % of a panel's height)
COINCIDENT_SHARE = 0.01


def coincident_note(series: Mapping[str, NDArray[np.float64]], unit: str) -> str:
    """A legend title for series drawn on one another ("all 3 curves within 0.002 N m RMS of
    each other, drawn as one"), where every pair differs by less than
    :data:`COINCIDENT_SHARE` of their span; "" where some pair can be told apart (or there is
    one series)."""
    values = list(series.values())
    if len(values) < 2:
        return ""
    span = float(np.ptp(np.concatenate(values)))
    largest = max(
        float(np.sqrt(np.mean((a - b) ** 2))) for i, a in enumerate(values) for b in values[:i]
    )
    if span == 0.0 or largest >= COINCIDENT_SHARE * span:
        return ""
    return f"all {len(values)} curves within {largest:.2g} {unit} RMS of each other, drawn as one"


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


#: Mantissas of a log axis' labelled ticks in each decade, densest first (:func:`log_ticks`).
LOG_MANTISSAS = (
    (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0),
    (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0),
    (1.0, 1.5, 2.0, 3.0, 4.0, 6.0),
    (1.0, 1.5, 2.0, 3.0, 5.0, 7.0),
    (1.0, 2.0, 3.0, 5.0),
    (1.0, 2.0, 5.0),
    (1.0, 3.0),
    (1.0,),
)
#: The least distance of two tick labels' centres, in label font sizes: along a vertical axis
#: a label's height and a gap; along a horizontal one a label of about five characters.
LABEL_PITCH = {"y": 1.5, "x": 4.0}
#: An autoscaled log axis ends on the nearest 1, 2 or 5 x 10^k beyond its data when that lies
#: within this share of its decades: a label at each end of the data (0.55 N m lay below 1).
ROUND_END = 0.1
#: Tick values a log axis writes as plain numbers (0.001 ... 9999); an axis with any tick
#: beyond them writes every tick as a power of ten.
PLAIN_RANGE = (1e-3, 1e4)


def readable_log_ticks(low: float, high: float, length_pt: float, pitch_pt: float) -> list[float]:
    """Major tick values of a log axis showing [``low``, ``high``] over ``length_pt`` points
    whose labels keep ``pitch_pt`` apart: the densest of :data:`LOG_MANTISSAS` with two ticks
    or more in view that keeps them apart; else, within a decade (too narrow for two), evenly
    spaced ticks as on a linear axis; over more, every k-th decade."""
    per_decade = length_pt / np.log10(high / low)

    def fits(ticks: NDArray[np.float64]) -> bool:
        shown = ticks[(ticks >= low * (1 - 1e-9)) & (ticks <= high * (1 + 1e-9))]
        closest = np.diff(np.log10(np.sort(shown))).min(initial=np.inf) * per_decade
        return shown.size >= 2 and closest >= pitch_pt

    decades = np.arange(np.floor(np.log10(low)), np.ceil(np.log10(high)) + 1)
    for mantissas in LOG_MANTISSAS:
        ticks = np.outer(10.0**decades, mantissas).ravel()
        if fits(ticks):
            return ticks.tolist()
    if high / low < 10.0:
        for bins in range(8, 0, -1):
            even = np.asarray(MaxNLocator(nbins=bins).tick_values(low, high), dtype=np.float64)
            if fits(even[even > 0]):
                return even[even > 0].tolist()
    step = max(1, int(np.ceil(pitch_pt / per_decade)))
    return (10.0 ** decades[decades % step == 0]).tolist()


class ReadableLogLocator(Locator):
    """:func:`readable_log_ticks` at the axis' drawn length (known when the figure is laid
    out), its labels' font size taken when the locator is set (a figure may be saved outside
    :func:`styled`)."""

    def __init__(self, axis: str, font_size: float) -> None:
        self.axis_name = axis
        self.pitch_pt = LABEL_PITCH[axis] * font_size

    def __call__(self) -> Sequence[float]:
        low, high = self.axis.get_view_interval() if self.axis else (1.0, 10.0)
        return self.tick_values(low, high)

    def tick_values(self, vmin: float, vmax: float) -> Sequence[float]:
        low, high = sorted((float(vmin), float(vmax)))
        if not (low > 0.0 and np.isfinite(high) and high > low):
            return LogLocator().tick_values(vmin, vmax)
        return readable_log_ticks(low, high, self._length_pt(), self.pitch_pt)

    def view_limits(self, vmin: float, vmax: float) -> tuple[float, float]:
        """Autoscaled limits, each end moved to the nearest 1, 2 or 5 x 10^k beyond it when
        within :data:`ROUND_END` of the decades shown (there it gets a label)."""
        low, high = sorted((float(vmin), float(vmax)))
        if not (low > 0.0 and np.isfinite(high) and high > low):
            return vmin, vmax
        reach = ROUND_END * np.log10(high / low)
        decades = 10.0 ** np.arange(np.floor(np.log10(low)) - 1, np.ceil(np.log10(high)) + 2)
        rounds = np.outer(decades, (1.0, 2.0, 5.0)).ravel()
        below, above = rounds[rounds <= low].max(), rounds[rounds >= high].min()
        return (
            float(below) if np.log10(low / below) <= reach else low,
            float(above) if np.log10(above / high) <= reach else high,
        )

    def _length_pt(self) -> float:
        """The axis' drawn length in points (one of 2 inches on no axes)."""
        axes = getattr(self.axis, "axes", None)
        if axes is None:
            return 144.0
        pixels = axes.bbox.height if self.axis_name == "y" else axes.bbox.width
        return float(pixels) * 72.0 / float(axes.figure.dpi)


class LogTickFormatter(Formatter):
    """One way of writing an axis' log ticks: plain numbers (0.045, 1500) where every tick in
    view lies in :data:`PLAIN_RANGE`, else powers of ten (10³, 2×10³) for every tick: an axis
    never mixes 1e+03 and 10³."""

    plain = True

    def set_locs(self, locs: list[float]) -> None:
        super().set_locs(locs)
        low, high = sorted(self.axis.get_view_interval()) if self.axis else (0.0, np.inf)
        shown = np.abs([x for x in locs if low <= x <= high and x != 0])
        self.plain = bool(np.all((shown >= PLAIN_RANGE[0]) & (shown < PLAIN_RANGE[1])))

    def __call__(self, x: float, pos: int | None = None) -> str:
        if x == 0 or not np.isfinite(x):
            return f"{x:g}"
        if self.plain:
            return f"{x:.4g}"
        exponent = int(np.floor(np.log10(abs(x)) + 1e-9))
        mantissa = float(f"{x / 10.0**exponent:.3g}")
        if mantissa == 1.0:
            return f"$10^{{{exponent}}}$"
        return f"${mantissa:g}\\times10^{{{exponent}}}$"


def label_rows(count: int, font_size: float, length_in: float) -> int:
    """Rows of panels that ``count`` category labels, written upright (rotated 90°) in
    ``font_size`` points along an axis ``length_in`` long, need for :data:`LABEL_PITCH` font
    sizes between neighbours (70 base-parameter names on one 7-inch axis ran together)."""
    return max(1, math.ceil(count * LABEL_PITCH["y"] * font_size / (72.0 * length_in)))


def log_ticks(ax: Any, axis: str = "y") -> None:
    """Readable log-axis ticks: as many per decade as fit without their labels touching at the
    axis' drawn length (:class:`ReadableLogLocator`: 1, 1.5, 2, 3, ... within a decade or two,
    every other decade over many), all written one way (:class:`LogTickFormatter`), minor
    ticks unlabelled; an autoscaled axis ends on a round value near its data
    (:meth:`ReadableLogLocator.view_limits`).  Set after the axis is made logarithmic."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    size = mpl.rcParams["ytick.labelsize" if axis == "y" else "xtick.labelsize"]
    points = FontProperties(size=size).get_size_in_points()
    target.set_major_locator(ReadableLogLocator(axis, points))
    target.set_major_formatter(LogTickFormatter())
    target.set_minor_formatter(NullFormatter())
    ax.autoscale_view(scalex=axis == "x", scaley=axis == "y")  # its ends, unless set by hand


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
        log_ticks(ax)
