"""Measured records: validation, SI units and resampling onto a uniform grid.

A measured record is a CSV or Parquet file (read by :func:`paramid.io.read_table`; this module
judges the table it gives) with columns ``time``, ``angle``, ``torque`` and
optionally ``velocity`` (names mappable per study).  Every defect is reported once, naming
the file and the row or column, as an :class:`InputError`.  Jittered time stamps are
linearly interpolated onto the uniform grid t₀ + k/f_s (1/f_s the interval of their clock,
:func:`clock_fit`; else the median Δt) when the largest deviation of an interval from the
median interval stays within ``max_jitter`` of it; otherwise the record is rejected.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from difflib import get_close_matches
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from paramid.errors import InputError
from paramid.io import CUT_LAST_FIELD, FileLines, header_of_columns, unit_spelled

if TYPE_CHECKING:
    import pandas as pd

Array = NDArray[np.float64]
REQUIRED = ("time", "angle", "torque")
OPTIONAL = ("velocity",)
UNIT_FACTORS = {
    "time": {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9},
    "angle": {"rad": 1.0, "deg": np.pi / 180.0},
    "torque": {"N m": 1.0, "N mm": 1e-3},
    "velocity": {"rad/s": 1.0, "deg/s": np.pi / 180.0},
}
#: a frame not read from a file: its header on line 1, no blank lines
DEFAULT_LINES = FileLines()
SI_UNITS = {"time": "s", "angle": "rad", "torque": "N m", "velocity": "rad/s"}
#: a joint's channels in SI units by the unit of its position: a revolute or continuous joint's
#: angle [rad] and torque [N m], a prismatic joint's position [m] and force [N]
CHANNEL_UNITS: dict[str, dict[str, str]] = {
    "rad": {"q": "rad", "dq": "rad/s", "ddq": "rad/s^2", "tau": "N m"},
    "m": {"q": "m", "dq": "m/s", "ddq": "m/s^2", "tau": "N"},
}


@dataclass(frozen=True)
class MeasuredRecord:
    """A validated record in SI units on a uniform time grid."""

    time: Array
    angle: Array
    torque: Array
    velocity: Array | None
    sample_rate_hz: float  # of the uniform grid: 1 / its interval (on_uniform_grid)
    jitter: float  # max |Δt − median Δt| / median Δt in the file
    resampled: bool
    rows_trimmed: int = 0  # rows dropped by trim_start_s / trim_end_s
    # the file's time [s] at the record's time 0, its first kept stamp (timestamps: seconds
    # after the file's first): the file's time of a sample is its time + this
    start_in_file_s: float = 0.0
    repeats_dropped: int = 0  # rows that repeated the row before them whole (:func:`repeat_note`)
    repeat_row: int = 0  # the file's data row (0-based) of the first of them

    def table(self) -> tuple[pd.DataFrame, dict[str, str]]:
        """The record as its Parquet file holds it: time, angle, torque and (where the file
        had one) velocity in SI units, and the units of those columns (:data:`SI_UNITS`)."""
        import pandas as pd

        frame = pd.DataFrame({"time": self.time, "angle": self.angle, "torque": self.torque})
        if self.velocity is not None:
            frame["velocity"] = self.velocity
        return frame, {column: SI_UNITS[column] for column in frame.columns}


def data_row(at: int, lines: FileLines = DEFAULT_LINES) -> str:
    """``data row N (file line M)`` of the file's data row ``at`` (0-based), whose rows lie in
    the file as ``lines`` says (:func:`paramid.io.read_table`); ``row N`` of a Parquet file."""
    line = lines.line_of(at)
    return f"data row {at + 1} (file line {line})" if line is not None else f"row {at + 1}"


def lines_of(frame: pd.DataFrame) -> FileLines:
    """Where ``frame``'s rows lie in its file, as :func:`paramid.io.read_table` read it (a
    header on line 1 for a frame made otherwise)."""
    lines = frame.attrs.get("lines")
    return DEFAULT_LINES if lines is None else FileLines.from_attrs(lines)


#: a unit a header writes after a column's name: ``Position1 [rad]``, ``Torque1 (N m)``
HEADER_UNIT = re.compile(r"\s*(\[[^\[\]]*\]|\([^()]*\))\s*$")


def closest_columns(names: Sequence[str], wanted: str) -> list[str]:
    """Up to three of ``names`` closest to ``wanted`` (a stray space, another case, a typo:
    difflib ratio at least 0.8), compared also without a unit the header writes after them
    (:data:`HEADER_UNIT`: ``Position1 [rad]`` for ``Position1``) where none is close as
    written; [] where none is close either way."""
    close = get_close_matches(wanted, names, n=3, cutoff=0.8)
    if not close:
        bare = {HEADER_UNIT.sub("", name): name for name in reversed(names)}  # first kept
        matched = get_close_matches(HEADER_UNIT.sub("", wanted), list(bare), n=3, cutoff=0.8)
        close = [bare[name] for name in matched]
    return close


def nearest_columns(frame: pd.DataFrame, wanted: str) -> str:
    """The file's columns closest to ``wanted`` (:func:`closest_columns`), else the first ten,
    and where the header holding ``wanted`` stands (:func:`paramid.io.header_of_columns`)."""
    names = [str(c) for c in frame.columns]
    elsewhere = header_of_columns(lines_of(frame), [wanted])
    if close := closest_columns(names, wanted):
        return f"the file's closest columns are {', '.join(map(repr, close))}{elsewhere}"
    return f"the file's columns begin {', '.join(map(repr, names[:10]))}{elsewhere}"


#: (a slide's unit in a units row, the unit it is read in) -> the ``scale:`` factor that reads it
SLIDE_FACTORS = {("mm", "m"): 1e-3, ("mm/s", "m/s"): 1e-3}


def _flow(mapping: Mapping[str, float]) -> str:
    """A mapping as the YAML a user writes in a record's block: ``{"q_3": 0.001}`` (keys
    quoted: a column named ``z [mm]`` or ``Pos, Z`` is no plain YAML key)."""
    return "{" + ", ".join(f"{json.dumps(key)}: {value:g}" for key, value in mapping.items()) + "}"


def check_file_units(
    frame: pd.DataFrame,
    path: str | Path,
    read: Sequence[tuple[str, str | None, str, Mapping[str, float]]],
) -> None:
    """A file's units row (:func:`paramid.io.read_table` keeps it in ``attrs["file_units"]``)
    must give each column the unit it is read in, or the record is refused naming each column
    that differs (degrees declared as radians, time in ms read as s, the file's own statement
    of them).  ``read`` holds per column read: its name, the setting that gives its unit
    (``units.angle``; None where none converts it: a prismatic joint's m, m/s and N), the unit
    it is read in and the units that setting takes.  A field naming no unit it knows
    (:data:`paramid.io.UNIT_SPELLINGS`: a time zone, a stamp's format, a spelling it lacks) is
    passed over: the plausibility checks judge the values."""
    stated = frame.attrs.get("file_units") or {}
    scaled = frame.attrs.get("scale") or {}
    problems: list[str] = []
    settings: dict[str, str | dict[str, float]] = {}
    scale: dict[str, float] = {}
    for column, setting, unit, known in read:
        named = unit_spelled(stated.get(column, ""))
        if named is None or named == unit:
            continue
        if column in scaled:  # the record's scale: reads it, where it converts a known unit
            conversion = (
                SLIDE_FACTORS.get((named, unit))
                if setting is None
                else known[named] / known[unit]
                if named in known and unit in known
                else None
            )
            if conversion is not None and abs(scaled[column] / conversion - 1) > 1e-6:
                problems.append(
                    f"{column!r} is in {named}, which the record's scale: {scaled[column]:g} "
                    f"does not read in {unit} ({conversion:.6g} would)"
                )
            continue  # right, or a unit no setting converts (a current times its constant)
        if setting is not None and named in known:
            problems.append(f"{column!r} is in {named} (read as {unit})")
            settings[setting] = named
        elif setting is None and (factor := SLIDE_FACTORS.get((named, unit))) is not None:
            problems.append(f"{column!r} is in {named} (a prismatic joint's is read in {unit})")
            scale[column] = factor
        else:
            takes = (
                f"{setting} takes {', '.join(sorted(known))}"
                if setting
                else "a prismatic joint's is read as logged"
            )
            problems.append(f"{column!r} is in {named} (read as {unit}; {takes}): convert it")
    if scale:
        settings["scale"] = scale
    if problems:
        line = replace(lines_of(frame), units_row=False).line_of(0)
        advice = ", ".join(
            f"{key}: {_flow(value) if isinstance(value, dict) else repr(value)}"
            for key, value in settings.items()
        )
        raise InputError(
            f"{path}: by its units row (file line {line}), "
            + "; ".join(problems)
            + (f": set {advice} in the record's config" if advice else "")
        )


def _numeric_column(
    frame: pd.DataFrame,
    column: str,
    field: str,
    path: Path,
    first_row: int = 0,
    lines: FileLines = DEFAULT_LINES,
) -> Array:
    """``frame[column]`` as finite floats; the first row of ``frame`` is the file's data row
    ``first_row`` (0-based: the rows a trim dropped are counted in the error's row).  A lone
    bad cell in the last row read is named as a line cut short (a logger stopped mid-write)."""
    return numeric_columns(frame, [(column, field)], path, first_row, lines)[0]


def numeric_columns(
    frame: pd.DataFrame,
    columns: Sequence[tuple[str, str]],
    path: Path,
    first_row: int = 0,
    lines: FileLines = DEFAULT_LINES,
) -> list[Array]:
    """:func:`_numeric_column` of each (column, field) of ``columns``, every column's defect in
    one :class:`InputError` (a NaN in a torque column went unnamed while an angle's stopped the
    run), columns with the same defect at the same row named together (a line cut short)."""
    read = [_column_values(frame, column, field, first_row, lines) for column, field in columns]
    found: dict[str, list[str]] = {}  # what and where -> the columns it is found in
    for (column, field), (_, defect) in zip(columns, read, strict=True):
        if defect is not None:
            found.setdefault(defect, []).append(f"{column!r} ({field})")
    defects = [
        f"column {named[0]} is not a finite number at {defect}"
        if len(named) == 1
        else f"columns {', '.join(named)} are not finite numbers at {defect}"
        for defect, named in found.items()
    ]
    if len(defects) == 1:
        raise InputError(f"{path}: {defects[0]}")
    if defects:
        listed = "".join(f"\n  - {defect}" for defect in defects)
        raise InputError(f"{path}: {len(defects)} defects in cells that must hold numbers:{listed}")
    return [values for values, _ in read]


def _column_values(
    frame: pd.DataFrame, column: str, field: str, first_row: int, lines: FileLines
) -> tuple[Array, str | None]:
    """``frame[column]`` as floats and where and what its first non-finite cell is (None: every
    cell finite)."""
    import pandas as pd

    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(values))
    if not bad.size:
        return values, None
    raw = frame[column].iloc[int(bad[0])]
    row = first_row + int(bad[0])
    raw = raw.item() if isinstance(raw, np.generic) else raw  # nan, not np.float64(nan)
    missing = isinstance(raw, float) and np.isnan(raw)  # the file's "", NA, NaN, null...
    shown = "empty or a missing-value mark (NA, NaN, null)" if missing else repr(raw)
    more = f"; {bad.size} such rows" if bad.size > 1 else ""
    if _decimal_comma(raw, frame[column], lines):  # a spreadsheet's export
        more += '; a decimal comma? set decimal: "," in the record\'s config'
    elif bad[-1] == len(frame) - 1 and bad.size == bad[-1] - bad[0] + 1 < len(frame) / 2:
        # the last lines only (a footer, a logger stopped mid-write), not the column's format
        last = "the last line read" if bad.size == 1 else f"the last {bad.size} lines read"
        them = "it" if bad.size == 1 else "them"
        remedy = (  # stamps they lack: any end trim drops the lines after the last stamp
            f"set trim_end_s (one sample period drops {them}) or remove {them}"
            if field == "time"
            else f"raise trim_end_s past {them} or remove {them}"
        )
        more = f"; {last}, a footer or cut short? {remedy}"
    elif bad.size == 1 and bad[0] == 0 and field != "time":  # a start trim drops it
        more += "; raise trim_start_s past it or remove it"
    else:  # inside the record
        more += "; fix the file there (trim_start_s and trim_end_s drop only a record's ends)"
    return values, f"{data_row(row, lines)}: {shown}{more}"


def _decimal_comma(cell: object, column: pd.Series, lines: FileLines) -> bool:
    """Whether ``cell`` of a CSV file read with a decimal point and another separator than ","
    is a number written with a decimal comma (``-43,32``, ``1,5e-3``) in a column that holds no
    decimal point (where one does, ``1,234`` may be a thousands separator): ``decimal: ","``
    reads it."""
    import re

    number = r"[+-]?\d*,\d+([eE][+-]?\d+)?"
    return (
        lines.text
        and lines.path is not None
        and lines.fmt.decimal == "."
        and lines.fmt.separator != ","
        and isinstance(cell, str)
        and re.fullmatch(number, cell.strip()) is not None
        and not column.astype(str).str.contains(".", regex=False).any()
    )


def time_column(
    frame: pd.DataFrame,
    column: str,
    unit: str,
    path: Path,
    first_row: int = 0,
    unreadable: bool = False,
    lines: FileLines = DEFAULT_LINES,
) -> Array:
    """The time column in s: numbers times ``unit``'s factor (:data:`UNIT_FACTORS`), or
    timestamps (a Parquet timestamp or duration column, ISO 8601 text) as seconds from the first
    one, which carry their unit (a declared one other than s is refused: it would scale them
    again).  A cell that holds no finite number or timestamp is an :class:`InputError` naming
    its row (the first row of ``frame`` is the file's data row ``first_row``, 0-based), or NaN
    with ``unreadable`` (for :func:`trimmed_time`, which drops such a cell where the trims do)."""
    import pandas as pd
    from pandas.api.types import is_numeric_dtype

    values = frame[column]
    if pd.api.types.is_timedelta64_dtype(values):  # a Parquet duration since some start
        values = pd.Timestamp(0, tz="UTC") + values
    if not pd.api.types.is_datetime64_any_dtype(values) and not is_numeric_dtype(values):
        # timestamps when most cells are no number (a line cut inside its cell can leave a
        # number, "2", in a column of ISO text)
        if np.isnan(pd.to_numeric(values, errors="coerce")).mean() > 0.5:
            parsed = pd.to_datetime(values, format="ISO8601", utc=True, errors="coerce")
            commas = values.dropna().astype(str).str.replace(",", ".", regex=False)
            if parsed.notna().any():  # timestamps; a cell that is none is named below
                values = parsed
            elif len(commas) and np.isnan(pd.to_numeric(commas, errors="coerce")).mean() > 0.5:
                # text in another format ("30.11.2026 10:15:00,000"; numbers with a decimal
                # comma are named below, with the setting that reads them)
                row = int(np.argmax(values.notna().to_numpy()))  # the first cell with text
                raise InputError(
                    f"{path}: column {column!r} (time) holds text that is neither a number nor "
                    f"an ISO 8601 time stamp, e.g. {str(values.iloc[row])!r} at "
                    f"{data_row(first_row + row, lines)}: write the stamps as ISO 8601 "
                    "(2026-11-30T10:15:00.000, a zone as +01:00 or Z) or as numbers (seconds, or "
                    "another unit by units.time), or store them as a Parquet timestamp"
                )
    if not pd.api.types.is_datetime64_any_dtype(values):
        if unreadable:
            numbers = np.array(pd.to_numeric(values, errors="coerce"), dtype=np.float64)
            numbers[~np.isfinite(numbers)] = np.nan
            return UNIT_FACTORS["time"][unit] * numbers
        return UNIT_FACTORS["time"][unit] * _numeric_column(
            frame, column, "time", path, first_row, lines
        )
    if unit != "s":
        raise InputError(
            f"{path}: column {column!r} holds timestamps, which carry their unit: leave "
            f"units.time unset (it is {unit!r})"
        )
    missing = values.isna().to_numpy()
    if missing.any() and not unreadable:
        row = int(np.flatnonzero(missing)[0])
        raw = frame[column].iloc[row]
        at = first_row + row
        raise InputError(
            f"{path}: column {column!r} (time) has no timestamp at {data_row(at, lines)}: {raw!r}"
        )
    if missing.all():
        return np.full(len(values), np.nan)
    start = values.iloc[int(np.flatnonzero(~missing)[0])]
    seconds = np.array((values - start) / pd.Timedelta(seconds=1), dtype=np.float64)
    seconds[missing] = np.nan
    return seconds


def time_grid(
    t: Array,
    path: Path,
    max_jitter: float,
    first_row: int = 0,
    lines: FileLines = DEFAULT_LINES,
    rows: NDArray[np.int64] | None = None,
) -> tuple[float, float]:
    """Median interval and jitter of strictly increasing stamps; an :class:`InputError`
    naming the row for a repeated or decreasing stamp or a jitter above ``max_jitter`` (with
    what a record's settings allow against a gap).  ``t[0]`` is the file's data row
    ``first_row`` (0-based; a trimmed start's rows are counted); ``rows`` gives each stamp's
    data row counted from ``first_row`` where some rows were left out (:func:`unrepeated_rows`),
    else they are consecutive."""
    if t.size < 3:
        raise InputError(f"{path}: only {t.size} rows; a record needs many more samples")
    at_row = np.arange(t.size) if rows is None else rows
    step = np.diff(t)
    if np.any(step == 0):
        repeats = np.flatnonzero(step == 0) + 1
        at = first_row + int(at_row[repeats[0]])  # the file's data row
        more = f" (and {repeats.size - 1} more row(s) repeat the stamp before them)"
        raise InputError(
            f"{path}: duplicate time stamp {float(t[repeats[0]]):.15g} s at {data_row(at, lines)}"
            + (more if repeats.size > 1 else "")
            + ": "
            + _duplicate_cause(t, repeats.size)
        )
    _refuse_falling_stamps(t, path, first_row, lines)
    median = float(np.median(step))
    jitter = float(np.max(np.abs(step - median)) / median)
    if jitter > max_jitter and jitter * median > rounding_allowance(t):
        row = int(np.argmax(np.abs(step - median))) + 1
        at = first_row + int(at_row[row])
        raise InputError(
            f"{path}: time-stamp jitter {jitter:.4g} of the median interval exceeds the tolerance "
            f"{max_jitter:g} (worst at {data_row(at, lines)}: "
            f"{float(t[row - 1]):.15g} s to {float(t[row]):.15g} s, an interval of "
            f"{step[row - 1]:.4g} s against the median {median:.4g} s; a gap or dropped "
            "samples? trim_start_s or trim_end_s drop it near an end; elsewhere, two records of "
            "the file with disjoint trims keep both sides, each given a `name`; max_jitter "
            "bridges it, interpolating straight across)"
        )
    return median, jitter


def _duplicate_cause(t: Array, repeats: int) -> str:
    """What repeated stamps (``repeats`` of them in ``t`` [s]) suggest: whole seconds in
    every row, a second's fraction kept in another column (ROS 2's ``header.stamp.sec`` and
    ``nanosec``); else a message written twice or stamps of coarse resolution."""
    if repeats > t.size // 10 and np.all(t == np.round(t)):
        return (
            "every stamp is a whole second: is the fraction in another column (as ROS 2's "
            "header.stamp.nanosec beside header.stamp.sec)? a multi-joint record reads the "
            "pair as columns.time: [<seconds>, <nanoseconds>]; else give a column that holds "
            "the whole time (a receive time)"
        )
    return (
        "a message logged twice, or stamps coarser than the sampling? remove the repeated "
        "rows (a row equal to the one before it in every column read is left out by itself "
        "where no stamp repeats with other values), or give a time column of finer resolution"
    )


def refuse_cut_last_line(
    frame: pd.DataFrame, read: Sequence[str], rows: slice, path: Path, lines: FileLines
) -> None:
    """An :class:`InputError` where the file's last line, cut short while written
    (:func:`paramid.io.read_table` marks it), is among the ``rows`` kept and its last field,
    perhaps cut inside its number, is in a column ``read``; the missing cells after it are
    named by :func:`numeric_columns`, a cut in a column not read harms nothing."""
    cut = frame.attrs.get(CUT_LAST_FIELD)
    if cut is None or rows.stop < len(frame) or (column := frame.columns[cut]) not in read:
        return
    raise InputError(
        f"{path}: the last line ends without a line break after {cut + 1} of "
        f"{frame.shape[1]} fields, in column {column!r} at {data_row(len(frame) - 1, lines)}: "
        "a line cut short as the logger stopped, its value there perhaps cut too; raise "
        "trim_end_s past it or remove it"
    )


def unrepeated_rows(data: Mapping[str, Array]) -> NDArray[np.int64]:
    """The rows of ``data`` (``time`` and channels along the first axis) to keep: all but
    those equal to the row before them in every field, stamp included (a sample a logger
    wrote twice now and then: leaving it out loses nothing), where these are the only
    repeated stamps and fewer than a tenth of the rows; else every row, for
    :func:`time_grid` to refuse the repeats (a stamp repeated with other values, or in many
    rows, says stamps coarser than the sampling, and a held pose's samples are equal too)."""
    count = len(data["time"])
    same = np.ones(max(count - 1, 0), dtype=bool)
    for values in data.values():
        flat = np.asarray(values).reshape(count, -1)
        same &= np.all(flat[1:] == flat[:-1], axis=1)
    repeated = np.diff(data["time"]) == 0
    if not same.any() or np.any(repeated & ~same) or np.count_nonzero(same) > count // 10:
        return np.arange(count, dtype=np.int64)
    return np.concatenate([[0], np.flatnonzero(~same) + 1]).astype(np.int64)


def repeat_note(repeats: int, first: int, lines: FileLines, name: str) -> str | None:
    """What :func:`unrepeated_rows` left out of the record ``name``: ``repeats`` rows, the
    first at the file's data row ``first`` (0-based); None when none was."""
    if repeats == 0:
        return None
    return (
        f"{name}: {repeats} row(s) equal to the row before them in every column read, time "
        f"included (a sample logged twice; the first at {data_row(first, lines)}), were left "
        "out: they add nothing"
    )


def one_sample_trim(path: str | Path, field: str, trim_s: float, fs: float) -> str:
    """The error of a ``trim_s`` (in the config ``field``) shorter than one sample at ``fs``:
    the filter's edge transients are dropped a sample at a time."""
    return (
        f"{path}: {field}.trim_s = {trim_s:g} s is less than one sample at this "
        f"record's {fs:g} Hz: the filter's edge transients need at least {1 / fs:.3g} s dropped "
        "at each end"
    )


def _refuse_falling_stamps(
    t: Array, path: Path, first_row: int = 0, lines: FileLines = DEFAULT_LINES
) -> None:
    """An :class:`InputError` naming the first stamp below the readable one before it (``t[0]``
    is the file's data row ``first_row``, 0-based; an unreadable stamp, NaN, is passed over)."""
    readable = np.flatnonzero(np.isfinite(t))
    if (falls := np.flatnonzero(np.diff(t[readable]) < 0)).size:
        row, before = int(readable[falls[0] + 1]), int(readable[falls[0]])
        at = first_row + row
        raise InputError(
            f"{path}: time is not increasing at {data_row(at, lines)}: "
            f"{float(t[row]):.15g} s after {float(t[before]):.15g} s (a line cut short?)"
        )


def kept_rows(
    time: Array, start_s: float, end_s: float, path: Path, lines: FileLines = DEFAULT_LINES
) -> slice:
    """The rows from ``start_s`` after the first stamp to ``end_s`` before the last (1e-12 s of
    tolerance; a record's ``trim_start_s`` and ``trim_end_s``).  The other columns are read on
    these rows only: a cell the trims drop (a logger's half-written last line) is not judged.
    A stamp below the one before it is refused first, naming its row: the trims are measured
    from the first and the last stamp (a last line cut inside its time cell, ``1`` after
    ``9.99``, would have trimmed away most of the record).

    An unreadable stamp (NaN: a cell that holds no number) is placed by the readable ones around
    it, and the trims are measured from the first and the last readable stamp (the file's own
    ends lie beyond them, so no row the trims drop is kept).  Unreadable rows that lie before
    a readable stamp ``trim_start_s`` drops, or after one ``trim_end_s`` drops, are dropped
    with it; the slice spans every other unreadable row (between kept stamps, at an end the
    trims leave whole, or between a kept and a dropped stamp, where the trim may keep it), for
    :func:`trimmed_time` to name."""
    _refuse_falling_stamps(time, path, lines=lines)
    readable = np.flatnonzero(np.isfinite(time))
    if readable.size == 0:
        return slice(0, time.size)  # no stamp to measure from: trimmed_time names the first
    t = time - time[readable[0]]
    last = t[readable[-1]]
    at = t[readable]
    keep = readable[(at >= start_s - 1e-12) & (at <= last - end_s + 1e-12)]
    if keep.size < 3:
        raise InputError(
            f"{path}: trim_start_s = {start_s:g} s and trim_end_s = {end_s:g} s leave "
            f"{keep.size} of its rows ({last:.4g} s long as its {readable.size} stamps are read: "
            "if that is not its length, check units.time)"
        )
    dropped_before = readable[readable < keep[0]]
    dropped_after = readable[readable > keep[-1]]
    start = int(dropped_before[-1]) + 1 if dropped_before.size else 0
    stop = int(dropped_after[0]) if dropped_after.size else time.size
    return slice(start, stop)


def trimmed_time(
    frame: pd.DataFrame,
    column: str,
    unit: str,
    path: Path,
    trim_s: tuple[float, float] = (0.0, 0.0),
) -> tuple[slice, Array]:
    """The rows the trims ``trim_s`` (``trim_start_s``, ``trim_end_s``) keep
    (:func:`kept_rows`) and their stamps [s].  The stamps of the rows the trims drop are not
    judged: an unreadable one there is dropped with them.  One the trims keep, or may keep
    (it lies between a kept and a dropped stamp), is an :class:`InputError` naming its row."""
    lines = lines_of(frame)
    time = time_column(frame, column, unit, path, unreadable=True, lines=lines)
    return _trimmed(time, frame, column, unit, path, trim_s)


def _trimmed(
    time: Array,
    frame: pd.DataFrame,
    column: str,
    unit: str,
    path: Path,
    trim_s: tuple[float, float],
) -> tuple[slice, Array]:
    """:func:`trimmed_time` of the column already read, ``time`` (NaN where unreadable)."""
    lines = lines_of(frame)
    rows = kept_rows(time, *trim_s, path, lines=lines)
    stamps = time[rows]
    if np.isnan(stamps).mean() > 0.5:  # the column's format, not a cut line: named, counted
        time_column(frame.iloc[rows], column, unit, path, rows.start, lines=lines)
    unreadable = np.flatnonzero(np.isnan(stamps))
    if unreadable.size == 0:
        return rows, stamps
    readable = np.flatnonzero(~np.isnan(time))
    row = rows.start + int(unreadable[0])
    before, after = readable[readable < row], readable[readable > row]
    if before.size and before[-1] < rows.start:  # after a stamp the start trim drops
        trim, seconds, past = "trim_start_s", trim_s[0], time[after[0]] - time[readable[0]]
    elif after.size and after[0] >= rows.stop:  # before a stamp the end trim drops
        trim, seconds, past = "trim_end_s", trim_s[1], time[readable[-1]] - time[before[-1]]
    else:  # within the kept stamps, or at an end the trims leave whole: named as any bad cell
        time_column(frame.iloc[rows], column, unit, path, rows.start, lines=lines)
        raise AssertionError(f"{path}: row {row + 1}'s unreadable stamp passed")  # unreachable
    raise InputError(
        f"{path}: column {column!r} (time) holds no number at {data_row(row, lines)}: "
        f"{frame[column].iloc[row]!r}; it lies between the stamps "
        f"{float(time[before[-1]]):.15g} s and {float(time[after[0]]):.15g} s, across the "
        f"{trim} = {seconds:g} s boundary, which may keep it: fix the cell, or raise {trim} "
        f"above {float(past):.6g} s to drop it"
    )


def shared_samples(
    frame: pd.DataFrame,
    path: str | Path,
    column: str,
    unit: str,
    spans: Sequence[tuple[float, float]],
) -> tuple[int, float]:
    """The rows that two trims ``(trim_start_s, trim_end_s)`` of the one file ``path`` (read
    as ``frame``) both keep (:func:`kept_rows`) and the seconds they span, from its time
    ``column`` alone (a gap that both trims drop is no reason to refuse them)."""
    path = Path(path)
    lines = lines_of(frame)
    stamps = time_column(frame, column, unit, path, unreadable=True, lines=lines)  # once
    first, second = (_trimmed(stamps, frame, column, unit, path, span)[0] for span in spans)
    start, stop = max(first.start, second.start), min(first.stop, second.stop)
    if stop <= start:
        return 0, 0.0
    return stop - start, float(stamps[stop - 1] - stamps[start])


def uniform_grid(t: Array, median: float) -> Array:
    """The uniform grid t₀ + k·Δ (Δ the median interval) covering the stamps ``t``."""
    return t[0] + median * np.arange(int(np.floor((t[-1] - t[0]) / median + 1e-9)) + 1)


#: an interval this many sampling intervals long or longer is a gap (a sample or more dropped),
#: not jitter
GAP_INTERVALS = 1.5

# Intervals within this share of the median are uniform: the samples are kept as they are.
UNIFORM_JITTER = 1e-9
# Stamps stored as large numbers (Unix time: 1.7e9 s holds an interval to ~2.4e-7 s) step by a
# few of their doubles' last bits around the interval of a uniform log; within this many units
# in the last place the log is uniform and its interval the span's mean.
ROUNDING_ULPS = 4


def rounding_allowance(t: Array) -> float:
    """The deviation [s] of an interval that the stamps' doubles alone can cause
    (:data:`ROUNDING_ULPS` units in the last place of the largest stamp)."""
    return float(ROUNDING_ULPS * np.spacing(max(abs(float(t[0])), abs(float(t[-1])))))


def stamp_resolution(t: Array) -> float:
    """The resolution [s] a logger rounded uniform stamps ``t`` to: the smallest difference
    between two of their distinct intervals (intervals within :func:`rounding_allowance` of
    each other are one), where that is a decimal unit, 10^k s (loggers round to digits: 1 ms,
    1 µs); 0 when the intervals are all one or the difference is no decimal unit (0.8 ms:
    jitter taking two values, not a rounding)."""
    allowance = rounding_allowance(t)
    steps = np.unique(np.diff(t))
    gaps = np.diff(steps)
    gaps = gaps[gaps > 2 * allowance]
    if not gaps.size:
        return 0.0
    smallest = float(gaps.min())
    decimal = 10.0 ** np.round(np.log10(smallest))
    return float(decimal) if abs(smallest - decimal) <= 1e-6 * decimal + 2 * allowance else 0.0


def quantised_uniform(t: Array, resolution: float) -> bool:
    """Whether the stamps ``t`` are a uniform grid rounded to the logger's resolution (integer
    ms of a 300 Hz log: intervals of 3 and 4 ms): the stamps are whole multiples of the
    resolution from the first, it is finer than the mean interval, and every stamp lies
    within one resolution of the line through the first and the last, as rounding leaves them
    (each stamp off by half a resolution at most, the line's ends by as much); where a step is
    twice the shortest or longer (a dropped sample's), they must be a rounded grid
    (:func:`_rounded_grid`: a 1 kHz log in whole ms with a row dropped is not).  Such a log is
    uniform at the span's mean interval; its median interval (3 ms) would put it at the wrong
    rate.  ``resolution``: :func:`stamp_resolution` of ``t``."""
    mean = float(t[-1] - t[0]) / (t.size - 1)
    if not 0.0 < resolution < mean:
        return False
    allowance = rounding_allowance(t)
    counts = np.concatenate([[0.0], np.cumsum(np.round(np.diff(t) / resolution))])
    step = float(t[-1] - t[0]) / counts[-1]  # the resolution, from the whole span
    if float(np.abs(t - t[0] - counts * step).max()) > 0.01 * step + 2 * allowance:
        return False  # not on the resolution's grid: jitter that happens to take few values
    steps = np.diff(counts)
    if steps.max() >= 2 * steps.min() and not _rounded_grid(counts):
        return False  # a step a dropped sample's length: a gap (1 kHz in whole ms, 2 ms)
    line = t[0] + mean * np.arange(t.size)
    return float(np.abs(t - line).max()) <= step + allowance


def _rounded_grid(counts: Array) -> bool:
    """Whether the whole numbers ``counts`` (each stamp's resolutions from the first, N of
    them) are a uniform grid of x resolutions rounded, round(a + k·x), whose steps are ⌊x⌋
    and ⌈x⌉ only.  The span, its ends rounded, admits x from (span − 1) / (N − 1): where that
    is whole, so is x (a 1 kHz log in whole ms is at 1 ms, its one 2 ms step a dropped row, not
    the rounding of a 999.6 Hz clock) and a longer step is a gap.  And some line must leave
    every count within half of it (counts − k·x spread over 1 at most: rounding spreads the
    longer steps evenly, rows dropped here and there do not).  The spread is convex in x: its
    least is found by ternary search over the x the span admits.  Rows dropped evenly are
    the rounding of a slower clock, and are taken for it."""
    rows = counts.size - 1
    longest = int(np.diff(counts).max())
    if longest > -(-(int(counts[-1]) - 1) // rows):  # ⌈(span − 1) / (N − 1)⌉
        return False
    k = np.arange(counts.size, dtype=np.float64)

    def spread(x: float) -> float:
        off = counts - x * k
        return float(off.max() - off.min())

    low, high = (counts[-1] - 1) / rows, (counts[-1] + 1) / rows
    for _ in range(100):  # a third of the interval gone each time: to float precision
        a, b = low + (high - low) / 3, high - (high - low) / 3
        low, high = (low, b) if spread(a) <= spread(b) else (a, high)
    return spread(0.5 * (low + high)) <= 1.0 + 1e-9


#: a step further from the median step than this many robust deviations of the steps (a
#: normal jitter's standard deviations) is no jitter: a phase jump or a gap, where a clock's runs
#: are cut (:func:`clock_fit`)
JUMP_SCALES = 5.0


def clock_fit(t: Array, resolution: float = 0.0) -> tuple[float, Array] | None:
    """The interval [s] of the uniform clock that took the stamps ``t`` (strictly increasing;
    rounded to ``resolution``, :func:`stamp_resolution`) and each of their intervals in its
    intervals, net of the stamps' jitter: (interval, spans); None where the stamps are no such
    clock's, each within half an interval of its tick (a clock whose rate wanders).

    The median interval of jittered stamps is one noisy interval (±0.3 ms on a 1 kHz log: 1 %
    off, stretching the record); the clock's interval is the least-squares slope of stamp
    against sample number over the runs between the steps that are no jitter, each run with its
    own intercept (a gap or a phase jump leaves it unbiased).  Such a step is one of
    :data:`GAP_INTERVALS` typical intervals (the mean of the shorter steps) or longer, or one
    off the median step by more than :data:`JUMP_SCALES` robust deviations of the steps and by
    more than the stamps' rounding.  It spans the intervals from the line of the run before it
    at its last stamp to the line of the run after it at its first: a late stamp leaves both
    lines in place, a dropped sample moves the second by an interval.  A long step that spans
    fewer than :data:`GAP_INTERVALS` intervals (late stamps) joins its runs again before the
    slope is fitted the second time: a cut at a late stamp would bias it."""
    steps = np.diff(t)
    typical = float(steps[steps < GAP_INTERVALS * steps.mean()].mean())
    deviation = np.abs(steps - np.median(steps))
    scale = 1.4826 * float(np.median(deviation))  # a normal jitter's σ
    jumps = (deviation > JUMP_SCALES * scale) & (deviation > resolution + rounding_allowance(t))
    breaks = jumps | (steps >= GAP_INTERVALS * typical)
    for _ in range(2):  # cut at every candidate, then at the jumps and the gaps among them only
        fit = _runs_fit(t, breaks)
        if fit is None:
            return None
        interval, ticks = fit
        spans = np.diff(ticks) / interval
        breaks &= jumps | (spans >= GAP_INTERVALS)
    return interval, spans


def _runs_fit(t: Array, breaks: NDArray[np.bool_]) -> tuple[float, Array] | None:
    """The least-squares slope of the stamps ``t`` against their number, each run between two
    ``breaks`` (per step) with its own intercept, and each stamp's point on its run's line;
    None where no run has two stamps or a stamp lies half an interval or more off its line."""
    run = np.concatenate([[0], np.cumsum(breaks)])
    counts = np.bincount(run).astype(np.float64)
    index = np.arange(t.size, dtype=np.float64)
    centred_index = index - (np.bincount(run, index) / counts)[run]
    centred_t = t - (np.bincount(run, t) / counts)[run]
    spread = float(np.sum(centred_index**2))
    if spread == 0.0:
        return None
    interval = float(np.sum(centred_index * centred_t)) / spread
    residual = centred_t - interval * centred_index
    if float(np.abs(residual).max()) >= 0.5 * interval:
        return None
    return interval, t - residual


def on_uniform_grid(
    data: dict[str, Array],
    path: Path,
    max_jitter: float,
    first_row: int = 0,
    lines: FileLines = DEFAULT_LINES,
    rows: NDArray[np.int64] | None = None,
) -> tuple[dict[str, Array], float, float, bool, Array]:
    """``data`` (``time`` and channels along the first axis) on the uniform grid k·Δ from the
    first stamp: (data, Δ, jitter, resampled, spans), ``spans`` each interval of the stamps in
    Δ (net of their jitter where the clock is fitted: :func:`clock_fit`).  Uniform stamps are
    kept; stamps uniform to their doubles' rounding or to the logger's resolution
    (:func:`quantised_uniform`) are replaced by the grid of the span's mean interval (no
    interpolation: each sample is at its grid point);
    jittered ones (within ``max_jitter``, :func:`time_grid`) are linearly interpolated onto the
    grid of their clock's interval (:func:`clock_fit`), else of the median interval, or, where
    the stamps are rounded to a logger's resolution (:func:`stamp_resolution`; the median is
    then a rounded interval: 3 ms for 300 Hz), of the mean of the intervals shorter than
    :data:`GAP_INTERVALS` mean intervals (the gaps left out).  ``rows``: each stamp's data
    row from ``first_row``, for the errors (:func:`time_grid`)."""
    t = data["time"]
    resolution = stamp_resolution(t) if t.size >= 3 else 0.0
    quantised = resolution > 0 and quantised_uniform(t, resolution)
    median, jitter = time_grid(t, path, np.inf if quantised else max_jitter, first_row, lines, rows)
    if jitter <= UNIFORM_JITTER:
        return {**data, "time": t - t[0]}, median, jitter, False, np.diff(t) / median
    if quantised or jitter * median <= rounding_allowance(t):
        interval = float(t[-1] - t[0]) / (t.size - 1)
        grid: Array = interval * np.arange(t.size, dtype=np.float64)
        return {**data, "time": grid}, interval, 0.0, False, np.diff(t) / interval
    interval = median
    if (clock := clock_fit(t, resolution)) is not None:
        interval, spans = clock
    elif resolution > 0:
        steps = np.diff(t)
        interval = float(steps[steps < GAP_INTERVALS * steps.mean()].mean())
    if clock is None:
        spans = np.diff(t) / interval
    grid = uniform_grid(t, interval)
    # time is k·Δ exactly: grid - grid[0] would keep the rounding of a large first stamp
    # (Unix time: 2.4e-7 s), and a written record read back would seem jittered
    resampled: dict[str, Array] = {
        field: interval * np.arange(grid.size, dtype=np.float64)
        if field == "time"
        else _interpolate(grid, t, values)
        for field, values in data.items()
    }
    return resampled, interval, jitter, True, spans


def _interpolate(grid: Array, t: Array, values: Array) -> Array:
    """Linear interpolation of ``values`` (N,) or (N, n), column by column, onto ``grid``."""
    if values.ndim == 1:
        return np.interp(grid, t, values)
    return np.column_stack([np.interp(grid, t, column) for column in values.T])


def field_columns(columns: Mapping[str, str] | None) -> dict[str, str]:
    """The file column of every field: as ``columns`` maps it, else the field's own name."""
    return {**{field: field for field in (*REQUIRED, *OPTIONAL)}, **(columns or {})}


#: two angle columns of one file whose median absolute difference is below this share of
#: their interquartile range are one motion (the Gen3 logs' commanded and measured positions:
#: 0.002-0.008; two of its trajectories, as if two arms of one log: 0.08-3.7)
SAME_MOTION_SHARE = 0.05


def same_motion(frame: pd.DataFrame, first: Sequence[str], second: Sequence[str]) -> bool:
    """Whether two records of one file, read as ``frame``, read one motion through their
    angle columns ``first`` and ``second`` (one per joint, in order): the same columns in any
    order, or columns whose values agree, joint by joint, to :data:`SAME_MOTION_SHARE` of
    their spread (median and interquartile range: a logger's garbage cell does not decide; a
    commanded and a measured position agree, two arms of one log do not)."""
    import pandas as pd

    if set(first) == set(second):
        return True
    if len(first) != len(second):
        return False
    a, b = (
        frame[list(columns)].apply(pd.to_numeric, errors="coerce").to_numpy(dtype=np.float64)
        for columns in (first, second)
    )
    difference = np.nanmedian(np.abs(a - b), axis=0)
    spread = np.subtract(*np.nanpercentile(a, [75, 25], axis=0))
    return bool(np.all(difference <= SAME_MOTION_SHARE * spread))


def record_from_table(
    frame: pd.DataFrame,
    path: str | Path,
    units: Mapping[str, str],
    columns: Mapping[str, str] | None = None,
    *,
    max_jitter: float,
    trim_s: tuple[float, float] = (0.0, 0.0),
) -> MeasuredRecord:
    """Validate, convert to SI and (if jittered) resample one measured record, the file
    ``path`` read as ``frame`` (:func:`paramid.io.read_table`; ``path`` names it in errors);
    ``trim_s`` drops the file's first and last seconds (:func:`trimmed_time`: an unreadable
    stamp among them too) before its stamps are judged and put on the grid, time from 0 again."""
    path = Path(path)
    named = dict(columns or {})  # an optional column the config names must be in the file
    columns = field_columns(named)
    for field, unit in units.items():
        if field not in UNIT_FACTORS:
            raise InputError(
                f"{path}: units names unknown field {field!r}; known: {sorted(UNIT_FACTORS)}"
            )
        if unit not in UNIT_FACTORS[field]:
            raise InputError(
                f"{path}: unknown unit {unit!r} for {field}; known: {sorted(UNIT_FACTORS[field])}"
            )
    wanted = (*REQUIRED, *(f for f in OPTIONAL if f in named))
    missing = [columns[f] for f in wanted if columns[f] not in frame.columns]
    if missing:
        raise InputError(
            f"{path}: missing column(s) {missing}; the file has {list(frame.columns)}"
            + "".join(
                f"; closest to {name!r}: {', '.join(map(repr, close))}"
                for name in missing
                if (close := closest_columns([str(c) for c in frame.columns], name))
            )
            + header_of_columns(lines_of(frame), missing)
        )
    check_file_units(
        frame,
        path,
        [(columns[f], f"units.{f}", units.get(f, SI_UNITS[f]), UNIT_FACTORS[f]) for f in wanted],
    )
    rows, stamps = trimmed_time(frame, columns["time"], units.get("time", "s"), path, trim_s)
    kept, lines = frame.iloc[rows], lines_of(frame)
    data = {"time": stamps}
    asked = [field for field in wanted if field != "time"]
    read = numeric_columns(kept, [(columns[f], f) for f in asked], path, rows.start, lines)
    refuse_cut_last_line(frame, [columns[f] for f in wanted], rows, path, lines)
    values = dict(zip(asked, read, strict=True))
    for field in OPTIONAL:
        if field in asked or columns[field] not in frame.columns:
            continue
        # a column of that name the config does not ask for and the fit never reads (the
        # velocity is carried along only): a defect in it is no reason to refuse the record
        column, defect = _column_values(kept, columns[field], field, rows.start, lines)
        if defect is None:
            values[field] = column
    for field, column in values.items():
        data[field] = UNIT_FACTORS[field][units.get(field, SI_UNITS[field])] * column
    unrepeated = unrepeated_rows(data)  # a sample logged twice adds nothing: left out
    if repeats := stamps.size - unrepeated.size:
        data = {field: channel[unrepeated] for field, channel in data.items()}
    data, interval, jitter, resampled, _ = on_uniform_grid(
        data, path, max_jitter, rows.start, lines, unrepeated
    )
    return MeasuredRecord(
        time=data["time"],
        angle=data["angle"],
        torque=data["torque"],
        velocity=data.get("velocity"),
        sample_rate_hz=1.0 / interval,
        jitter=jitter,
        resampled=resampled,
        rows_trimmed=len(frame) - (rows.stop - rows.start),
        start_in_file_s=float(stamps[0]),
        repeats_dropped=repeats,
        repeat_row=rows.start + first_left_out(unrepeated),
    )


def first_left_out(kept: NDArray[np.int64]) -> int:
    """The first row (0-based) missing from the increasing row indices ``kept`` (from 0);
    0 when none is."""
    missing = np.flatnonzero(kept != np.arange(kept.size))
    return int(missing[0]) if missing.size else 0


def configured_record(
    frame: pd.DataFrame, spec: Mapping[str, Any], max_jitter: float, *, drop_rest: bool
) -> tuple[MeasuredRecord, tuple[float, float]]:
    """:func:`record_from_table` of a record as a study's config gives it (``path``, read as
    ``frame``, ``units``, ``columns``, ``trim_start_s``, ``trim_end_s``; the schema fills the
    defaults); with ``drop_rest`` a rest of more than 0.5 s at either end is trimmed too
    (:func:`paramid.plausibility.dropping_rest`).  Returns the record and the seconds of rest
    dropped at its start and end."""
    from paramid.plausibility import dropping_rest  # it imports this module's units

    def read(rest: tuple[float, float]) -> MeasuredRecord:
        return record_from_table(
            frame,
            spec["path"],
            spec["units"],
            spec["columns"],
            max_jitter=max_jitter,
            trim_s=(spec["trim_start_s"] + rest[0], spec["trim_end_s"] + rest[1]),
        )

    return dropping_rest(read, lambda record: record.angle, drop_rest)
