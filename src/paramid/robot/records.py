"""Multi-joint records: per-joint columns, units, validation and resampling.

A record is a CSV or Parquet file (read by :func:`paramid.io.read_table`; this module judges
the table it gives) with a time column and, per identified joint, its angle
(``q``), optionally its measured velocity (``dq``) and its torque (``tau``).  By default the
columns are ``time``, ``q_<joint>``, ``dq_<joint>`` and ``tau_<joint>`` with ``<joint>`` the
URDF joint name; other layouts map by template per record, e.g. ``{time: Time, q:
"Position{i}", dq: "Velocity{i}", tau: "TorqueCur{i}"}`` with ``{i}`` the 1-based index of the
joint in the configured list and ``{joint}`` its name.  Units use the tables of
:mod:`paramid.ingest` (``time``: s, ms, us or ns, or timestamps; ``q``: rad or deg; ``dq``:
rad/s or deg/s; ``tau``: N m or N mm).

Every defect is one :class:`paramid.errors.InputError` naming the file and the row or
column: a missing joint column, a file whose per-joint columns are for another number of
joints, a non-finite value, a time that does not increase.  Jittered stamps are resampled
linearly onto the uniform grid t₀ + k/f_s (f_s = 1/median Δt) as in the 1-DOF chain; arm logs
at ≈1 kHz with 0.7–9 ms intervals are normal, hence the wider default tolerance
(``max_jitter``, a multiple of the median interval).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid.errors import InputError
from paramid.ingest import (
    CHANNEL_UNITS,
    GAP_INTERVALS,
    SI_UNITS,
    UNIFORM_JITTER,
    UNIT_FACTORS,
    check_file_units,
    data_row,
    first_left_out,
    lines_of,
    nearest_columns,
    numeric_columns,
    on_uniform_grid,
    refuse_cut_last_line,
    trimmed_time,
    unrepeated_rows,
)
from paramid.io import FileLines
from paramid.plausibility import dropping_rest

Array = NDArray[np.float64]
#: a field's columns: a template (``{i}``, ``{i0}``, ``{joint}``) or one name per joint
Template = str | Sequence[str]
DEFAULT_COLUMNS = {"time": "time", "q": "q_{joint}", "dq": "dq_{joint}", "tau": "tau_{joint}"}
#: record field -> the field of paramid.ingest.UNIT_FACTORS that gives its units
UNIT_FIELDS = {"time": "time", "q": "angle", "dq": "velocity", "tau": "torque"}


@dataclass(frozen=True)
class RobotRecord:
    """A validated multi-joint record in SI units on a uniform time grid (time from 0)."""

    time: Array  # (N,) [s]
    q: Array  # (N, n) [rad]
    dq: Array | None  # (N, n) [rad/s], when measured
    tau: Array  # (N, n) [N m]
    joints: tuple[str, ...]
    sample_rate_hz: float  # of the uniform grid: 1 / its interval (ingest.on_uniform_grid)
    jitter: float  # max |Δt − median Δt| / median Δt in the file (the part kept)
    resampled: bool
    rows_trimmed: int = 0  # rows dropped by trim_start_s / trim_end_s
    # the file's time [s] at the record's time 0, its first kept stamp (timestamps: seconds
    # after the file's first): the file's time of a sample is its time + this
    start_in_file_s: float = 0.0
    # the file's angle [rad or m] of each locked joint it logs (a ``{joint}`` q template):
    # the checks compare it with the value the model holds the joint at
    locked_q: Mapping[str, Array] = dataclasses.field(default_factory=dict)
    # where each sample comes from, for a message to name the file's own row and value: the
    # file's data row (0-based; the nearest stamp's on a resampled grid), the angle the file
    # holds there (its unit, not unwrapped; (N, n)) and the angle columns' names
    rows: NDArray[np.int64] | None = None
    q_logged: Array | None = None
    q_columns: tuple[str, ...] = ()
    tau_columns: tuple[str, ...] = ()  # the file's torque column of each joint
    dq_columns: tuple[str, ...] = ()  # the file's velocity column of each joint (if logged)
    # the file's intervals of GAP_INTERVALS grid intervals or longer (dropped samples, bridged
    # by interpolation on a resampled grid; a jittered clock's net of the jitter:
    # ingest.clock_fit), the longest [grid intervals], where it starts [s from the record's
    # start] and the file's data row (0-based) before it
    gaps: int = 0
    longest_gap: float = 0.0
    gap_at_s: float = 0.0
    gap_row: int = 0
    lines: FileLines = FileLines()  # where its rows lie in the file (paramid.ingest.data_row)
    # rows equal to the row before them in every column read (a sample logged twice), left
    # out (paramid.ingest.unrepeated_rows), and the file's data row (0-based) of the first
    repeats_dropped: int = 0
    repeat_row: int = 0


def gap_warning(record: RobotRecord, name: str) -> str | None:
    """What interpolation bridged in ``record`` (named ``name``): its gaps, the longest and
    where; None when nothing was (the grid is the file's stamps, or none is a gap)."""
    if not record.resampled or record.gaps == 0:
        return None
    return (
        f"{name}: {record.gaps} interval(s) of the file {GAP_INTERVALS:g} sample intervals or "
        f"longer (the longest {record.longest_gap:.3g} sample intervals, after "
        f"{data_row(record.gap_row, record.lines)}, {record.gap_at_s:.4g} s into the "
        "record) were "
        "bridged by linear interpolation: the fit sees straight lines there (max_jitter sets "
        "how long a gap is bridged, trim_start_s/trim_end_s drop one near an end)"
    )


#: the template fields that number the joints: 1-based, or 0-based as many loggers count
INDEX_FIELDS = ("{i}", "{i0}")


def _indexed(template: str) -> bool:
    return any(field in template for field in INDEX_FIELDS)


def joint_columns(template: str, joints: Sequence[str]) -> list[str]:
    """The column of each joint: ``template`` with ``{i}`` (1-based index), ``{i0}`` (0-based)
    and ``{joint}``."""
    return [template.format(i=i + 1, i0=i, joint=joint) for i, joint in enumerate(joints)]


def _template_columns(template: str, field: str, joints: Sequence[str], path: Path) -> list[str]:
    """:func:`joint_columns`, a template with other fields than ``{i}``, ``{i0}`` and
    ``{joint}`` (or unbalanced braces) named as the config's error."""
    try:
        return joint_columns(template, joints)
    except (KeyError, IndexError, ValueError) as err:
        raise _not_a_template(path, field, template, err) from err


def _not_a_template(path: Path, field: str, template: str, err: Exception) -> InputError:
    return InputError(
        f"{path}: columns.{field} = {template!r} is not a column template ({err!r}): use "
        "{i} (1-based joint index; {i0} 0-based) and/or {joint} (the URDF joint name), "
        "braces only there"
    )


def _indexed_columns(frame: pd.DataFrame, template: str) -> list[str]:
    """The file's columns that ``template`` names for some integer ``{i}`` or ``{i0}``."""
    parts = re.split(r"(\{i0?\})", template)
    pattern = re.compile("".join(r"\d+" if p in INDEX_FIELDS else re.escape(p) for p in parts))
    return [str(c) for c in frame.columns if pattern.fullmatch(str(c))]


#: ``columns.names``: the template of a log's joint-name columns (a ROS JointState message
#: exported to CSV: ``field.name{i0}``), by which every joint's slot is found
NAMES = "names"


def log_joint_names(
    frame: pd.DataFrame, template: Template, path: Path, rows: slice | None = None
) -> dict[str, int]:
    """The slot (0-based) of every joint name the log holds in the columns that ``template``
    (``{i}`` or ``{i0}``) numbers: ROS's ``JointState`` carries ``name[k]`` beside
    ``position[k]``, in an order of its own (often alphabetical, a gripper's fingers among the
    arm's joints).  The names must be the same in every row of ``rows`` (the rows a record
    keeps; default all): a reordering is named at its row."""
    if not isinstance(template, str) or not _indexed(template):
        raise InputError(
            f"{path}: columns.{NAMES} = {template!r} must number the log's joint-name columns "
            "with {i} (1-based) or {i0} (0-based), e.g. field.name{i0}"
        )
    field = "{i0}" if "{i0}" in template else "{i}"
    head, tail = template.split(field, 1)
    pattern = re.compile(re.escape(head) + r"(\d+)" + re.escape(tail))
    found = {int(m.group(1)): str(c) for c in frame.columns if (m := pattern.fullmatch(str(c)))}
    if not found:
        raise InputError(
            f"{path}: no column matches columns.{NAMES} = {template!r}; "
            + nearest_columns(frame, template.replace("{i0}", "0").replace("{i}", "1"))
        )
    if field == "{i}" and 0 in found:
        raise InputError(
            f"{path}: columns.{NAMES} = {template!r} numbers from 1, but the log has "
            f"{found[0]!r}: it numbers its slots from 0, use {{i0}} (in q, dq and tau too)"
        )
    numbers = sorted(found)
    kept = slice(0, len(frame)) if rows is None else rows
    first = kept.start or 0
    block = frame[[found[n] for n in numbers]].iloc[kept]
    cells = block.astype(object).where(block.notna(), "").astype(str).to_numpy()
    if (changed := np.flatnonzero((cells != cells[0]).any(axis=1))).size:
        row = first + int(changed[0])
        raise InputError(
            f"{path}: the joint names of columns.{NAMES} ({template!r}) change at "
            f"{data_row(row, lines_of(frame))}: {list(cells[row - first])} after "
            f"{list(cells[0])}; a record reads each joint from one slot: split the log where "
            "the order changes (two records of the file with disjoint trims)"
        )
    offset = 0 if field == "{i0}" else 1
    slots: dict[str, int] = {}
    for n, name in zip(numbers, cells[0], strict=True):
        if name in slots and name:
            raise InputError(
                f"{path}: columns.{NAMES} ({template!r}): {name!r} is named in two slots, "
                f"{found[slots[name] + offset]!r} and {found[n]!r}: which one is the joint?"
            )
        slots[name] = n - offset
    return {name: slot for name, slot in slots.items() if name}


def named_columns(
    frame: pd.DataFrame,
    columns: Mapping[str, Template],
    joints: Sequence[str],
    locked: Iterable[str],
    path: Path,
    rows: slice | None = None,
) -> tuple[dict[str, Template], dict[str, str]]:
    """``columns`` with each joint field's indexed template written out per configured joint
    at the slot its name holds in the log (:func:`log_joint_names`), and the angle column of
    each ``locked`` joint the log names (read into ``locked_q``, as a ``{joint}`` template
    reads it); a configured joint the log does not name is an error listing the names it
    holds; ``rows``: the rows the record keeps (:func:`log_joint_names`)."""
    slots = log_joint_names(frame, columns[NAMES], path, rows)
    if missing := [joint for joint in joints if joint not in slots]:
        raise InputError(
            f"{path}: joint(s) {missing} are not among the names the log holds in "
            f"columns.{NAMES} ({columns[NAMES]!r}): {sorted(slots)}; the study's joints must "
            "be named as in the URDF"
        )

    def at(template: str, joint: str, field: str = "q") -> str:
        try:
            return template.format(i=slots[joint] + 1, i0=slots[joint], joint=joint)
        except (KeyError, IndexError, ValueError) as err:
            raise _not_a_template(path, field, template, err) from err

    out = {key: value for key, value in columns.items() if key != NAMES}
    numbering = "{i0}" if "{i0}" in str(columns[NAMES]) else "{i}"
    for field in ("q", "dq", "tau"):
        if isinstance(template := out[field], str) and _indexed(template):
            if numbering not in template:  # {i} beside {i0}: every joint one slot off
                raise InputError(
                    f"{path}: columns.{NAMES} = {columns[NAMES]!r} numbers the log's slots with "
                    f"{numbering}, columns.{field} = {template!r} otherwise: number them alike "
                    f"(use {numbering} in q, dq and tau too)"
                )
            out[field] = [at(template, joint, field) for joint in joints]
    q = columns["q"]
    indexed = isinstance(q, str) and _indexed(q)
    held = {joint: at(str(q), joint) for joint in locked if indexed and joint in slots}
    logged = {joint: column for joint, column in held.items() if column in frame.columns}
    return out, logged


def with_time(
    frame: pd.DataFrame, time: Template, units: Mapping[str, str], path: Path
) -> tuple[pd.DataFrame, str]:
    """``frame`` and the name of its time column: ``time`` as given, or for a pair of columns
    ``[seconds, nanoseconds]`` (ROS 2's ``header.stamp.sec`` and ``header.stamp.nanosec``, a
    second's fraction kept apart) one column added, ``"<seconds>+<nanoseconds>"``, of
    seconds from the first row's whole second (exact in float64, which an absolute stamp in
    ns is not).  A pair takes no ``units.time``; a cell that is no number, or a nanosecond
    field outside [0, 10⁹), is named with its column and row."""
    if isinstance(time, str):
        return frame, time
    if len(time) != 2:
        raise InputError(
            f"{path}: columns.time is one column's name or a pair [seconds, nanoseconds] "
            f"(ROS 2's header.stamp.sec, header.stamp.nanosec), not {list(time)!r}"
        )
    if "time" in units:
        raise InputError(
            f"{path}: columns.time = {list(time)!r} is seconds and nanoseconds: leave units.time "
            f"unset (it is {units['time']!r})"
        )
    for column in time:
        if column not in frame.columns:
            raise InputError(
                f"{path}: missing time column {column!r}; " + nearest_columns(frame, column)
            )
    seconds, nanoseconds = (pd.to_numeric(frame[c], errors="coerce").to_numpy(float) for c in time)
    for column, values in zip(time, (seconds, nanoseconds), strict=True):
        if (bad := np.flatnonzero(~np.isfinite(values))).size:
            row = int(bad[0])
            raise InputError(
                f"{path}: column {column!r} (time) is not a finite number at "
                f"{data_row(row, lines_of(frame))}: {frame[column].iloc[row]!r}"
            )
    if (beyond := np.flatnonzero((nanoseconds < 0) | (nanoseconds >= 1e9))).size:
        row = int(beyond[0])
        raise InputError(
            f"{path}: column {time[1]!r} holds {nanoseconds[row]:g} at "
            f"{data_row(row, lines_of(frame))}: not a second's nanoseconds (0 to 999999999); "
            "is the pair given in the order [seconds, nanoseconds]?"
        )
    name = f"{time[0]}+{time[1]}"
    first = seconds[np.isfinite(seconds)][:1]
    combined = (seconds - (first[0] if first.size else 0.0)) + 1e-9 * nanoseconds
    return frame.assign(**{name: combined}), name


def _field_columns(
    frame: pd.DataFrame, field: str, template: Template, joints: Sequence[str], path: Path
) -> list[str] | None:
    """The file's columns of ``field`` for the configured joints; None when the optional
    ``dq`` is left at its default template and has no column at all (a template the user set
    must match).  A configured joint's missing column is named first; then an indexed template
    (``{i}``) must match exactly one column per configured joint (else a joint count mismatch);
    a named one (``{joint}``) may leave other joints' columns (e.g. locked ones) in the file,
    and so may a list of the configured joints' columns (a log numbered by index whose joints
    are not all identified)."""
    if not isinstance(template, str):
        return _listed_columns(frame, field, list(template), joints, path)
    if not _indexed(template) and "{joint}" not in template:
        raise InputError(
            f"{path}: columns.{field} = {template!r} names no joint: use {{i}} (1-based joint "
            "index; {i0} 0-based) or {joint} (the URDF joint name)"
        )
    wanted = _template_columns(template, field, joints, path)
    present = [c for c in wanted if c in frame.columns]
    if field == "dq" and not present and template == DEFAULT_COLUMNS["dq"]:
        return None  # no velocity logged: it is differentiated from q
    if not present:
        raise InputError(
            f"{path}: no column matches columns.{field} = {template!r} (e.g. {wanted[0]!r}); "
            + nearest_columns(frame, wanted[0])
        )
    for column, joint in zip(wanted, joints, strict=True):
        if column not in frame.columns:
            zero = "{i}" in template and template.format(i=0, i0=0, joint=joint) in frame.columns
            last = len(joints)  # one past the last 0-based index
            one = (
                "{i0}" in template
                and template.format(i=last, i0=last, joint=joint) in frame.columns
            )
            raise InputError(
                f"{path}: missing column {column!r} ({field} of joint {joint!r}); the file has "
                f"{field} columns {present} of those configured"
                + ("; it numbers its joints from 0: use {i0} for that" if zero else "")
                + ("; it numbers its joints from 1: use {i} for that" if one else "")
                + ("" if zero or one else "; " + nearest_columns(frame, column))
            )
    if _indexed(template):
        found = _indexed_columns(frame, template)
        if len(found) != len(joints):
            raise InputError(
                f"{path}: {len(found)} {field} column(s) match {template!r} ({found}) but "
                f"{len(joints)} joints are configured ({list(joints)}): joint count mismatch "
                "({i} and {i0} number the configured joints: for a log of more joints than are "
                f"identified (a gripper's channel), give columns.{field} as a list, the "
                "configured joints' columns in the order of joints, or a {joint} template; "
                "the same holds for each of q, dq and tau)"
            )
    return wanted


def _listed_columns(
    frame: pd.DataFrame, field: str, listed: list[str], joints: Sequence[str], path: Path
) -> list[str]:
    """The columns of ``field`` a list gives, one per configured joint in their order; a list
    of another length, one naming a column twice, or a column the file lacks, is named."""
    if twice := sorted({column for column in listed if listed.count(column) > 1}):
        raise InputError(f"{path}: columns.{field} lists {twice} for more than one joint")
    if len(listed) != len(joints):
        raise InputError(
            f"{path}: columns.{field} lists {len(listed)} column(s) ({listed}) for the "
            f"{len(joints)} configured joints ({list(joints)}): give one per joint, in that order"
        )
    for column, joint in zip(listed, joints, strict=True):
        if column not in frame.columns:
            raise InputError(
                f"{path}: missing column {column!r} ({field} of joint {joint!r}, from "
                f"columns.{field}); " + nearest_columns(frame, column)
            )
    return listed


def _units_read(
    time_name: str,
    names: Mapping[str, Sequence[str] | None],
    prismatic: NDArray[np.bool_],
    units: Mapping[str, str],
) -> list[tuple[str, str | None, str, Mapping[str, float]]]:
    """Per column read: its name, its units setting, the unit it is read in and the units that
    setting takes (:func:`paramid.ingest.check_file_units`); a prismatic joint's columns have
    no setting and stay in SI as logged (:data:`paramid.ingest.CHANNEL_UNITS`)."""
    read: list[tuple[str, str | None, str, Mapping[str, float]]] = [
        (time_name, "units.time", units.get("time", "s"), UNIT_FACTORS["time"])
    ]
    for field, columns in names.items():
        table = UNIT_FIELDS[field]
        for column, slides in zip(columns or [], prismatic, strict=False):
            if slides:
                read.append((column, None, CHANNEL_UNITS["m"][field], {}))
            else:
                unit = units.get(field, SI_UNITS[table])
                read.append((column, f"units.{field}", unit, UNIT_FACTORS[table]))
    return read


def _unit_factors(units: Mapping[str, str], path: Path) -> dict[str, float]:
    """SI factor per record field from the configured units (SI when not given)."""
    factors = {}
    for field, table in UNIT_FIELDS.items():
        unit = units.get(field)
        if unit is not None and unit not in UNIT_FACTORS[table]:
            known = sorted(UNIT_FACTORS[table])
            raise InputError(f"{path}: unknown unit {unit!r} for {field}; known: {known}")
        factors[field] = 1.0 if unit is None else UNIT_FACTORS[table][unit]
    unknown = sorted(set(units) - set(UNIT_FIELDS))
    if unknown:
        raise InputError(f"{path}: units names unknown field(s) {unknown}; known: {UNIT_FIELDS}")
    return factors


def held_out_angles(
    frame: pd.DataFrame,
    spec: Mapping[str, Any],
    other: Mapping[str, Any],
    joints: Sequence[str],
) -> tuple[pd.DataFrame, str, list[list[str]]]:
    """For the held-out check of validation record ``spec`` against calibration record
    ``other`` of one file (read as ``frame``): the frame with ``spec``'s time column
    (:func:`with_time`), its name, and each record's angle columns (the ``q`` template written
    out, at the slots of the rows the record keeps where it reads the log's ``names``; or its
    list as given). Two records that both read the log's names are one arm's joints by name:
    no columns, nothing to compare."""
    path = Path(spec["path"])
    templates = [column_templates(s["columns"]) for s in (other, spec)]
    frame, time_name = with_time(frame, templates[1]["time"], spec["units"], path)
    if all(NAMES in t for t in templates):
        return frame, time_name, []
    angles = []
    for s, columns in zip((other, spec), templates, strict=True):
        if NAMES in columns:
            timed, name = with_time(frame, columns["time"], s["units"], path)
            unit = s["units"].get("time", "s")
            trims = (s["trim_start_s"], s["trim_end_s"])
            rows = trimmed_time(timed, name, unit, path, trims)[0]
            columns = named_columns(frame, columns, joints, (), path, rows)[0]
        q = columns["q"]
        angles.append(_template_columns(q, "q", joints, path) if isinstance(q, str) else list(q))
    return frame, time_name, angles


def column_templates(columns: Mapping[str, Template] | None) -> dict[str, Template]:
    """The column template (or list) of every field: as ``columns`` gives it, else the
    default one."""
    return {**DEFAULT_COLUMNS, **(columns or {})}


def record_from_table(
    frame: pd.DataFrame,
    path: str | Path,
    joints: Sequence[str],
    columns: Mapping[str, Template] | None = None,
    units: Mapping[str, str] | None = None,
    *,
    max_jitter: float,
    kinds: Sequence[str] | None = None,
    locked: Mapping[str, str] | None = None,
    trim_s: tuple[float, float] = (0.0, 0.0),
) -> RobotRecord:
    """Validate, convert to SI and (if jittered) resample one multi-joint record: the file
    ``path`` read as ``frame`` (:func:`paramid.io.read_table`; ``path`` names it in errors).

    ``columns`` overrides :data:`DEFAULT_COLUMNS` per field (``time``, ``q``, ``dq``, ``tau``;
    a per-joint field may list one column per joint instead of a template; with ``names``, the
    template of the log's joint-name columns, ``{i}``/``{i0}`` number the log's slots and
    each joint is read from the slot its name holds: :func:`named_columns`);
    ``units`` maps a field to a unit of :data:`paramid.ingest.UNIT_FACTORS`; ``max_jitter``
    is the largest deviation of an interval from the median one accepted (in medians; the
    record is then resampled: :func:`paramid.ingest.on_uniform_grid`).  ``kinds`` gives
    each joint's :func:`paramid.robot.model.joint_kinds` (all revolute when None): the units
    of ``q``, ``dq`` and ``tau`` convert revolute and continuous joints only, a prismatic
    joint's position, velocity and force stay in m, m/s and N; a continuous joint's angle is
    unwrapped (loggers often wrap it to (-π, π]: a jump of 2π between two samples is a wrap,
    not a motion).  ``locked`` maps each joint the
    model locks to its kind: where the ``q`` template names joints (``{joint}``) and the file
    has such a joint's column, its angle is read alike into ``locked_q``.  ``trim_s`` drops
    the file's first and last seconds before its stamps are judged and put on the grid (a gap,
    a stop or an unreadable stamp there is trimmed away: :func:`paramid.ingest.trimmed_time`),
    time from 0 again.
    """
    path = Path(path)
    columns = column_templates(columns)
    unknown = sorted(set(columns) - {*DEFAULT_COLUMNS, NAMES})
    if unknown:
        raise InputError(f"{path}: columns names unknown field(s) {unknown}; known: {columns}")
    factors = _unit_factors(units or {}, path)
    frame, time_name = with_time(frame, columns["time"], units or {}, path)
    if time_name not in frame.columns:
        raise InputError(
            f"{path}: missing time column {time_name!r}; " + nearest_columns(frame, time_name)
        )
    unit = (units or {}).get("time", "s")
    rows, stamps = trimmed_time(frame, time_name, unit, path, trim_s)
    logged: dict[str, str] = {}  # the locked joints' angle columns, read as more joints' q
    if NAMES in columns:  # a ROS log: each joint's slot from the names its kept rows hold
        columns, logged = named_columns(frame, columns, joints, locked or {}, path, rows)
    names = {f: _field_columns(frame, f, columns[f], joints, path) for f in ("q", "dq", "tau")}
    kinds = tuple(kinds or ("revolute",) * len(joints))
    if len(kinds) != len(joints):
        raise ValueError(f"{len(kinds)} joint kinds for {len(joints)} joints")
    if isinstance(q_template := columns["q"], str) and not _indexed(q_template):
        for joint in locked or {}:
            if (column := q_template.format(joint=joint)) in frame.columns:
                logged[joint] = column
    kinds = (*kinds, *(dict(locked or {})[joint] for joint in logged))
    names["q"] = [*(names["q"] or []), *logged.values()]  # q is required: never None
    prismatic = np.array([kind == "prismatic" for kind in kinds])
    check_file_units(frame, path, _units_read(time_name, names, prismatic, units or {}))
    kept, lines = frame.iloc[rows], lines_of(frame)
    data = {"time": stamps}
    q_logged = np.empty((stamps.size, 0))
    given = {field: cols for field, cols in names.items() if cols is not None}
    read = iter(
        numeric_columns(
            kept, [(c, f) for f, cols in given.items() for c in cols], path, rows.start, lines
        )
    )
    read_columns = [time_name, *(c for cols in given.values() for c in cols)]
    refuse_cut_last_line(frame, read_columns, rows, path, lines)
    for field, cols in given.items():
        unitless = prismatic[: len(cols)]  # a prismatic joint's stays in m, m/s and N
        factor = np.where(unitless, 1.0, factors[field])
        logged_values = np.column_stack([next(read) for _ in cols])
        data[field] = factor * logged_values
        if field == "q":
            q_logged = logged_values[:, : len(joints)]
    continuous = [k for k, kind in enumerate(kinds) if kind == "continuous"]
    if continuous:
        data["q"][:, continuous] = unwrap_turns(data["q"][:, continuous])
    unrepeated = unrepeated_rows(data)  # a sample logged twice adds nothing: left out
    if repeats := stamps.size - unrepeated.size:
        data = {field: channel[unrepeated] for field, channel in data.items()}
        stamps, q_logged = stamps[unrepeated], q_logged[unrepeated]
    # steps: the file's intervals in grid intervals, a jittered clock's net of the jitter
    data, interval, jitter, resampled, steps = on_uniform_grid(
        data, path, max_jitter, rows.start, lines, unrepeated
    )
    n = len(joints)
    source = nearest_stamps(stamps, data["time"]) if resampled else np.arange(stamps.size)
    longest = int(np.argmax(steps))
    return RobotRecord(
        time=data["time"],
        q=data["q"][:, :n],
        dq=data.get("dq"),
        tau=data["tau"],
        joints=tuple(joints),
        sample_rate_hz=1.0 / interval,
        jitter=jitter,
        resampled=resampled,
        rows_trimmed=len(frame) - (rows.stop - rows.start),
        start_in_file_s=float(stamps[0]),
        locked_q={joint: data["q"][:, n + k] for k, joint in enumerate(logged)},
        rows=rows.start + unrepeated[source],
        q_logged=q_logged[source],
        q_columns=tuple((names["q"] or [])[:n]),
        tau_columns=tuple(names["tau"] or []),
        dq_columns=tuple(names["dq"] or []),
        gaps=int(np.count_nonzero(steps >= GAP_INTERVALS)),
        longest_gap=float(steps[longest]),
        gap_at_s=float(stamps[longest] - stamps[0]),
        gap_row=rows.start + int(unrepeated[longest]),
        lines=lines,
        repeats_dropped=repeats,
        repeat_row=rows.start + first_left_out(unrepeated),
    )


def log_record(
    frame: pd.DataFrame,
    spec: Mapping[str, Any],
    joints: Sequence[str],
    *,
    kinds: Sequence[str],
    locked: Mapping[str, str] | None = None,
    drop_rest: bool = False,
) -> tuple[RobotRecord, tuple[float, float]]:
    """:func:`record_from_table` of a joint log read as ``frame``, with its record block's
    ``path``, ``columns``, ``units``, ``max_jitter``, ``trim_start_s`` and ``trim_end_s``.

    With ``drop_rest`` a rest of more than :data:`paramid.plausibility.MIN_REST_S` at either
    end is trimmed too, all but :data:`paramid.plausibility.REST_KEPT_S` of it
    (:func:`paramid.plausibility.dropping_rest`; in a validation record the score would be a
    held pose's, and with a minute of rest at each end a Gen3 log's wrist columns were called
    exchanged).  Returns the record and the seconds of rest dropped at its start and end."""

    def read(rest: tuple[float, float]) -> RobotRecord:
        return record_from_table(
            frame,
            spec["path"],
            joints,
            spec["columns"],
            spec["units"],
            max_jitter=spec["max_jitter"],
            kinds=kinds,
            locked=locked,
            trim_s=(spec["trim_start_s"] + rest[0], spec["trim_end_s"] + rest[1]),
        )

    return dropping_rest(read, lambda record: record.q, drop_rest)


def written_record(frame: pd.DataFrame, path: str | Path, joints: Sequence[str]) -> RobotRecord:
    """A record as rule ``robot_record`` wrote it, read back as ``frame``: the default columns,
    SI units, on its uniform grid (a record whose stamps are not, a defect of that stage,
    is refused rather than resampled a second time, with the rule to rerun)."""
    try:
        return record_from_table(frame, path, joints, max_jitter=UNIFORM_JITTER)
    except InputError as err:
        raise InputError(
            f"{path}: not the record rule robot_record writes, on a uniform grid in SI units "
            f"({str(err).removeprefix(f'{path}: ').split('; ')[0]}); rebuild it: snakemake "
            "--forcerun robot_record"
        ) from None


def unwrap_turns(q: Array) -> Array:
    """``q`` (N, k) with each step beyond π taken for a wrap and undone (:func:`numpy.unwrap`
    along the samples), but by one turn at most: a log wrapped to one turn steps by less than
    two, so a step of more is a glitch (a corrupt sample of 1e12 rad), which a full unwrap
    would shrink to within π of its neighbours and hide from the checks."""
    unwrapped = np.unwrap(q, axis=0)
    turns = np.rint(np.diff(q - unwrapped, axis=0) / (2 * np.pi))
    if np.all(np.abs(turns) <= 1):
        return unwrapped  # a wrapped log, or none: numpy's own values
    one = np.clip(turns, -1.0, 1.0)
    return q - 2 * np.pi * np.concatenate([np.zeros((1, q.shape[1])), np.cumsum(one, axis=0)])


def nearest_stamps(stamps: Array, grid: Array) -> NDArray[np.int64]:
    """Per point of ``grid`` (from 0), the index of the nearest of ``stamps`` (from their
    first)."""
    t = stamps - stamps[0]
    after = np.clip(np.searchsorted(t, grid), 1, t.size - 1)
    nearer = np.abs(t[after - 1] - grid) <= np.abs(t[after] - grid)
    return np.where(nearer, after - 1, after).astype(np.int64)
