"""Measured records: every defect gives one clear error naming the file and the row or field."""

from __future__ import annotations

import bz2
import dataclasses
import gzip
import re
import zipfile
from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pytest

from paramid import ingest, io
from paramid.hip import checks

HIP_KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]
SIGNALS = {"filter_order": 4, "cutoff_hz": 15.0, "trim_s": 0.2}


def write_csv(path: Path, n: int = 600, fs: float = 100.0, **overrides) -> Path:
    t = np.arange(n) / fs
    frame = pd.DataFrame(
        {
            "time": t,
            "angle": 0.8 + 0.5 * np.sin(np.pi * t) + 0.2 * np.cos(2 * np.pi * t),
            "torque": 3.0 * np.sin(np.pi * t),
        }
    )
    for column, value in overrides.items():
        frame[column] = value
    frame.to_csv(path, index=False)
    return path


def test_clean_record_round_trips_in_si(tmp_path):
    path = write_csv(tmp_path / "r.csv")
    rec = loaders.load_record(path, {"angle": "rad", "torque": "N m"})
    assert rec.sample_rate_hz == pytest.approx(100.0)
    assert not rec.resampled and rec.jitter < 1e-9
    assert rec.time.size == 600 and rec.velocity is None


def test_degrees_and_column_names(tmp_path):
    frame = pd.DataFrame({"t": np.arange(50) / 10, "position": np.full(50, 90.0), "tau": 1.0})
    frame.to_csv(tmp_path / "d.csv", index=False)
    rec = loaders.load_record(
        tmp_path / "d.csv", {"angle": "deg"}, {"time": "t", "angle": "position", "torque": "tau"}
    )
    np.testing.assert_allclose(rec.angle, np.pi / 2)


def test_a_missing_column_names_the_files_closest(tmp_path):
    """The shipped pendulum record with its header's ``torque`` written ``Torque [Nm]``: the
    error names that column as the closest to ``torque`` (compared without its unit), and
    none for a column nothing in the file resembles."""
    shipped = Path(__file__).resolve().parents[1] / "data/pendulum/swingup_ddp_measured.csv"
    lines = shipped.read_text().splitlines(keepends=True)
    assert lines[0] == "time,position,velocity,torque\n"
    path = tmp_path / "renamed.csv"
    path.write_text("time,position,velocity,Torque [Nm]\n" + "".join(lines[1:]))
    with pytest.raises(ingest.InputError) as error:
        loaders.load_record(path, {}, {"angle": "position"})
    assert str(error.value) == (
        f"{path}: missing column(s) ['torque']; the file has "
        "['time', 'position', 'velocity', 'Torque [Nm]']; closest to 'torque': 'Torque [Nm]'"
    )
    with pytest.raises(ingest.InputError) as error:
        loaders.load_record(path, {}, {"angle": "position", "torque": "effort"})
    assert "closest" not in str(error.value)


def test_closest_columns():
    """Close as written first (a typo, another case); else compared without a unit suffix,
    the first of two columns that differ only by their unit; none below difflib's 0.8."""
    names = ["time", "Position1 [rad]", "Position1 (deg)", "tau"]
    assert ingest.closest_columns(names, "tme") == ["time"]
    assert ingest.closest_columns(names, "Position1") == ["Position1 [rad]"]
    assert ingest.closest_columns(names, "position1 [rad]") == ["Position1 [rad]"]
    assert ingest.closest_columns(names, "torque") == []


def test_a_records_table_holds_its_channels_in_si_units():
    """hip_ingest's file: time, angle, torque (and velocity where the file had one) as the
    record holds them, each with its SI unit; no velocity column for a file without one."""
    time = np.arange(4) / 10.0
    record = ingest.MeasuredRecord(time, time + 1, time + 2, None, 10.0, 0.0, False)
    frame, units = record.table()
    assert list(frame.columns) == ["time", "angle", "torque"]
    np.testing.assert_array_equal(frame.to_numpy(), np.column_stack([time, time + 1, time + 2]))
    assert units == {"time": "s", "angle": "rad", "torque": "N m"}
    moving = dataclasses.replace(record, velocity=time + 3)
    frame, units = moving.table()
    assert list(frame.columns) == ["time", "angle", "torque", "velocity"]
    np.testing.assert_array_equal(frame["velocity"], time + 3)
    assert units == {"time": "s", "angle": "rad", "torque": "N m", "velocity": "rad/s"}


def test_a_velocity_column_the_config_names_must_be_in_the_file(tmp_path):
    """An optional column is optional only when the config does not name it: a misspelled
    ``columns.velocity`` is an error, not a record silently read without its velocity."""
    frame = pd.DataFrame({"time": np.arange(50) / 10, "angle": 0.1, "torque": 1.0, "vel": 0.0})
    frame.to_csv(tmp_path / "v.csv", index=False)
    assert loaders.load_record(tmp_path / "v.csv", {}).velocity is None  # not named: not read
    assert loaders.load_record(tmp_path / "v.csv", {}, {"velocity": "vel"}).velocity is not None
    with pytest.raises(ingest.InputError, match=r"v\.csv: missing column\(s\) \['velocity_typo'\]"):
        loaders.load_record(tmp_path / "v.csv", {}, {"velocity": "velocity_typo"})
    # a column named velocity with a gap: carried along when whole, left out (not refused) when
    # the config does not name it, refused when it does
    frame["velocity"] = np.where(np.arange(50) == 3, np.nan, 0.5)
    frame.to_csv(tmp_path / "gap.csv", index=False)
    assert loaders.load_record(tmp_path / "gap.csv", {}).velocity is None
    with pytest.raises(ingest.InputError, match=r"gap\.csv: column 'velocity' .* data row 4"):
        loaders.load_record(tmp_path / "gap.csv", {}, {"velocity": "velocity"})
    frame["velocity"] = 0.5
    frame.to_csv(tmp_path / "whole.csv", index=False)
    assert loaders.load_record(tmp_path / "whole.csv", {}).velocity is not None


def test_jittered_time_is_resampled_onto_uniform_grid(tmp_path):
    rng = np.random.default_rng(1)
    t = np.arange(400) * 0.01 + rng.uniform(-0.002, 0.002, 400)
    t[0] = 0.0
    frame = pd.DataFrame({"time": t, "angle": 2.0 * t + 1.0, "torque": -t})
    frame.to_csv(tmp_path / "j.csv", index=False)
    rec = loaders.load_record(tmp_path / "j.csv", {}, max_jitter=loaders.MAX_JITTER)
    assert rec.resampled and 0.2 < rec.jitter < 0.8
    # the grid is the clock's 10 ms (the median interval here: 2e-4 off)
    np.testing.assert_allclose(np.diff(rec.time), 0.01, rtol=1e-4)
    # linear signals are interpolated exactly
    np.testing.assert_allclose(rec.angle, 2.0 * rec.time + 1.0, atol=1e-12)
    with pytest.raises(
        ingest.InputError, match=r"j\.csv: time-stamp jitter .* exceeds the tolerance 0\.1"
    ):
        loaders.load_record(tmp_path / "j.csv", {}, max_jitter=0.1)


@pytest.mark.parametrize(
    ("decimals", "unit", "rate"),
    [(0, "ms", 299.96), (3, "ms", 299.96), (6, "s", 299.96), (0, "ms", 611.3)],
)
def test_stamps_rounded_by_the_logger_are_uniform_at_the_spans_rate(tmp_path, decimals, unit, rate):
    """A 300 Hz log whose stamps the logger rounded (integer ms: intervals of 3 and 4 ms; ms to
    1 µs; a 611 Hz log in integer ms, intervals of 1 and 2 ms): kept as sampled at the span's
    mean rate, not interpolated onto the grid of the median interval (integer ms put it at
    333.3 Hz with 11 % more samples, smoothing its torque); a log jittered beyond its
    resolution is still resampled."""
    t = np.arange(1170) / rate
    torque = np.sin(7.0 * t) + (np.arange(t.size) % 50 == 0)  # spikes: interpolation shows
    stamps = np.round(t * (1000.0 if unit == "ms" else 1.0), decimals)
    frame = pd.DataFrame({"time": stamps, "angle": np.sin(t), "torque": torque})
    frame.to_csv(path := tmp_path / "r.csv", index=False)
    rec = loaders.load_record(path, {"time": unit})
    assert not rec.resampled and rec.time.size == t.size
    resolution = 10.0**-decimals * (1e-3 if unit == "ms" else 1.0)  # [s]
    assert rec.sample_rate_hz == pytest.approx(rate, rel=resolution / t[-1])
    np.testing.assert_array_equal(rec.torque, torque)
    np.testing.assert_allclose(rec.time, t - t[0], atol=2 * resolution)
    jittered = stamps.astype(float)
    jittered[500] += 0.4 if unit == "ms" else 4e-4  # one stamp late by far more than its rounding
    frame.assign(time=jittered).to_csv(path, index=False)
    assert loaders.load_record(path, {"time": unit}, max_jitter=1.0).resampled


def test_rounded_stamps_with_a_gap_are_resampled_at_the_rate_they_were_taken(tmp_path):
    """A 300 Hz log in integer ms with one sample dropped: not uniform, so resampled, onto the
    grid of its clock's interval, the gap left out (300 Hz; the median, a rounded 3 ms, put it
    at 333.3 Hz); a signal linear in the stamps is interpolated exactly."""
    stamps = np.round(1000.0 * np.delete(np.arange(1200) / 300.0, 600))  # [ms]
    frame = pd.DataFrame({"time": stamps, "angle": 2e-3 * stamps, "torque": np.sin(stamps)})
    frame.to_csv(path := tmp_path / "r.csv", index=False)
    rec = loaders.load_record(path, {"time": "ms"}, max_jitter=2.0)
    # the clock's 300 Hz (the mean of the intervals without the gap: 299.92 Hz, 1199 samples)
    assert rec.resampled and rec.sample_rate_hz == pytest.approx(300.0, rel=1e-5)
    assert rec.time.size == 1200  # the 1200 samples taken, 3.9967 s of the stamps' 3.997 s
    np.testing.assert_allclose(rec.angle, 2.0 * rec.time, atol=1e-12)
    # eleven samples dropped: the gaps stay out of the interval (with them: 297 Hz)
    stamps = np.round(1000.0 * np.delete(np.arange(1200) / 300.0, np.arange(100, 1200, 100)))
    frame = pd.DataFrame({"time": stamps, "angle": 2e-3 * stamps, "torque": np.sin(stamps)})
    frame.to_csv(path, index=False)
    rec = loaders.load_record(path, {"time": "ms"}, max_jitter=2.0)
    assert rec.resampled and rec.sample_rate_hz == pytest.approx(300.0, rel=1e-5)


@pytest.mark.parametrize("dropped", [[1200], [700, 1300]])
def test_rows_dropped_from_a_log_in_whole_ms_are_gaps(tmp_path, dropped):
    """A 1 kHz log stamped in whole ms with isolated rows dropped (2 ms steps): no rounded
    uniform grid (rounding 1 ms gives 1 ms steps only; drops spread unevenly are no rounding
    of a slower clock either), so not laid on the grid of its mean interval, which shifted
    every sample after a drop; its gaps are refused naming the row, or bridged on the 1 kHz
    grid by max_jitter, each sample at its own time."""
    stamps = np.delete(np.arange(2000.0), dropped)  # [ms]
    frame = pd.DataFrame({"time": stamps, "angle": 2e-3 * stamps, "torque": np.sin(stamps)})
    frame.to_csv(path := tmp_path / "r.csv", index=False)
    row = dropped[0] + 1  # the data row (1-based) of the stamp after the first gap
    with pytest.raises(ingest.InputError, match=rf"jitter 1 .* data row {row} .* a gap"):
        loaders.load_record(path, {"time": "ms"})
    rec = loaders.load_record(path, {"time": "ms"}, max_jitter=2.0)
    assert rec.resampled and rec.sample_rate_hz == pytest.approx(1000.0, rel=1e-12)
    assert rec.time.size == 2000
    np.testing.assert_allclose(rec.angle, 2.0 * rec.time, atol=1e-12)


def test_same_motion_needs_every_joint_to_agree():
    """Two records of one file read one motion only where every joint's columns agree: one
    joint alike and another unrelated is two motions."""
    rng = np.random.default_rng(1)
    a1, a2 = np.sin(np.linspace(0, 6, 200)), np.cos(np.linspace(0, 9, 200))
    frame = pd.DataFrame({"a1": a1, "a2": a2, "b1": a1 + 1e-4, "b2": rng.normal(size=200)})
    assert not ingest.same_motion(frame, ["a1", "a2"], ["b1", "b2"])
    frame["b2"] = a2 - 1e-4  # a commanded and a measured position: one motion
    assert ingest.same_motion(frame, ["a1", "a2"], ["b1", "b2"])
    assert ingest.same_motion(frame, ["a1", "a2"], ["a2", "a1"])  # the same columns


@pytest.mark.parametrize(("unit", "factor"), [("us", 1e6), ("ns", 1e9)])
def test_time_in_us_or_ns(tmp_path, unit, factor):
    t = np.arange(300) / 100.0
    frame = pd.DataFrame({"time": np.round(factor * t), "angle": np.sin(t), "torque": t})
    frame.to_csv(tmp_path / "r.csv", index=False)
    rec = loaders.load_record(tmp_path / "r.csv", {"time": unit})
    assert rec.sample_rate_hz == pytest.approx(100.0) and not rec.resampled


def test_timestamps_carry_their_unit(tmp_path):
    """A Parquet timestamp column was read as its integer microseconds (and called a time in
    ms); timestamps, from Parquet or as ISO 8601 text, are seconds from the first one, and a
    declared time unit, which would scale them again, is refused."""
    t = np.arange(300) / 100.0
    stamps = pd.Timestamp("2026-12-05T06:00:00Z") + pd.to_timedelta(t, unit="s")
    frame = pd.DataFrame({"time": stamps, "angle": np.sin(t), "torque": t})
    frame.to_parquet(tmp_path / "r.parquet")
    frame.assign(time=stamps.strftime("%Y-%m-%dT%H:%M:%S.%fZ")).to_csv(tmp_path / "r.csv")
    for name in ("r.parquet", "r.csv"):
        rec = loaders.load_record(tmp_path / name, {})
        np.testing.assert_allclose(rec.time, t, atol=1e-9)
    with pytest.raises(ingest.InputError, match=r"r\.csv: column 'time' holds timestamps.*'ms'"):
        loaders.load_record(tmp_path / "r.csv", {"time": "ms"})


def test_unix_time_stamps_keep_a_uniform_log_as_it_is(tmp_path):
    """Stamps near 1.7e9 s hold a 2 ms interval only to ~2.4e-7 s, so a uniform log's intervals
    differ in their last bits: it is kept (the median of the rounded intervals gave 499.977 Hz
    and interpolated every channel onto a drifting grid), its rate the span's."""
    n = 5000
    stamps = [f"{1733356800 + k // 500}.{2 * (k % 500):03d}" for k in range(n)]
    angle = np.sin(np.arange(n) / 500)
    frame = pd.DataFrame({"time": stamps, "angle": angle, "torque": np.cos(np.arange(n) / 90)})
    frame.to_csv(tmp_path / "unix.csv", index=False)
    rec = loaders.load_record(tmp_path / "unix.csv", {})
    assert not rec.resampled and rec.jitter == 0.0
    # to the stamps' resolution over the span: 2.4e-7 s in 10 s
    assert rec.sample_rate_hz == pytest.approx(500.0, rel=1e-7)
    np.testing.assert_allclose(np.diff(rec.time), 1 / 500, rtol=1e-7)
    np.testing.assert_array_equal(rec.angle, angle)  # each sample is at its grid point
    strict = loaders.load_record(tmp_path / "unix.csv", {}, max_jitter=0.0)  # no jitter allowed
    assert strict.sample_rate_hz == rec.sample_rate_hz
    for late in ([0.0, 4e-4], [0.0, 4e-4, 1e-4]):  # jittered (0.8 ms is no logger's rounding)
        frame["time"] = 1733356800 + np.arange(n) / 500 + np.resize(late, n)
        frame.to_csv(tmp_path / "jittered.csv", index=False)
        assert loaders.load_record(tmp_path / "jittered.csv", {}).resampled


@pytest.mark.parametrize(
    ("mutate", "pattern"),
    [
        (lambda f: f.drop(columns="torque"), r"missing column\(s\) \['torque'\]"),
        (
            lambda f: f.assign(angle=f.angle.where(f.index != 17, np.nan)),
            r"column 'angle' .* data row 18 \(file line 19\): empty or a missing-value mark "
            r"\(NA, NaN, null\); fix the file there \(trim_start_s and trim_end_s drop only",
        ),
        (
            lambda f: f.assign(torque=f.torque.where(f.index != 5, np.inf)),
            r"column 'torque' .* data row 6",
        ),
        (
            lambda f: f.assign(torque=f.torque.where(f.index != 0, np.nan)),
            r"column 'torque' .* data row 1 .*; raise trim_start_s past it or remove it",
        ),
        (
            lambda f: f.assign(time=f.time.where(f.index != 40, 0.1)),
            r"time is not increasing at data row 41 \(file line 42\): 0\.1 s after \d",
        ),
        (
            lambda f: f.assign(time=f.time.where(f.index != 40, f.time[39])),
            r"duplicate time stamp .* data row 41",
        ),
        (
            lambda f: f.assign(angle=f.angle.astype(str).where(f.index != 3, "abc")),
            r"column 'angle' .* data row 4 .*'abc'",
        ),
        (lambda f: f.iloc[:0], r"header but no data rows"),
    ],
)
def test_defects_name_file_and_row(tmp_path, mutate, pattern):
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv"))
    mutate(frame).to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ingest.InputError, match=rf"bad\.csv: .*{pattern}|bad\.csv: {pattern}"):
        loaders.load_record(tmp_path / "bad.csv", {})


def test_an_angle_and_a_torque_with_bad_cells_are_named_in_one_error(tmp_path):
    """The angle's NaN and the torque's text cell, both named with their rows in one error; a
    bad cell in a velocity column the config does not name leaves the record readable."""
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv"))
    frame["angle"] = frame["angle"].where(frame.index != 17, np.nan)
    frame["torque"] = frame["torque"].astype(str).where(frame.index != 30, "abc")
    frame.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ingest.InputError) as raised:
        loaders.load_record(tmp_path / "bad.csv", {})
    head, *listed = str(raised.value).split("\n  - ")
    assert head.endswith("bad.csv: 2 defects in cells that must hold numbers:")
    assert listed[0].startswith("column 'angle' (angle) is not a finite number at data row 18")
    assert listed[1].startswith("column 'torque' (torque) is not a finite number at data row 31")
    assert "'abc'" in listed[1]
    good = pd.read_csv(tmp_path / "ok.csv").assign(velocity=0.0)
    good["velocity"] = good["velocity"].where(good.index != 5, np.nan)
    good.to_csv(tmp_path / "velocity.csv", index=False)
    assert loaders.load_record(tmp_path / "velocity.csv", {}).velocity is None


def test_logger_quirks_read_as_the_plain_file_or_name_the_defect(tmp_path):
    """A byte-order mark and CRLF line endings read as the plain file; a BOM before a header
    that names its first column twice still names it (the BOM hid it: pandas read ``time.1``);
    data rows ending in a comma keep their columns (they slid onto the index, and the error
    blamed the torque)."""
    text = write_csv(tmp_path / "plain.csv").read_text()
    plain = loaders.load_record(tmp_path / "plain.csv", {})
    (tmp_path / "bom.csv").write_bytes(b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode())
    np.testing.assert_array_equal(loaders.load_record(tmp_path / "bom.csv", {}).angle, plain.angle)
    header, *rows = text.splitlines()
    (tmp_path / "twice.csv").write_text(
        "\ufeff" + header + ",time\n" + "".join(r + ",0\n" for r in rows)
    )
    with pytest.raises(ingest.InputError, match=r"twice\.csv: the header names .*\['time'\]"):
        loaders.load_record(tmp_path / "twice.csv", {})
    (tmp_path / "trailing.csv").write_text(header + "\n" + "".join(r + ",\n" for r in rows))
    trailing = loaders.load_record(tmp_path / "trailing.csv", {})
    np.testing.assert_array_equal(trailing.torque, plain.torque)


def test_empty_and_unknown_files(tmp_path):
    (tmp_path / "empty.csv").write_text("")
    with pytest.raises(ingest.InputError, match=r"empty\.csv: file is empty"):
        loaders.load_record(tmp_path / "empty.csv", {})
    with pytest.raises(ingest.InputError, match="file not found"):
        loaders.load_record(tmp_path / "nope.csv", {})
    (tmp_path / "x.xlsx").write_text("a")
    with pytest.raises(ingest.InputError, match="unknown file type"):
        loaders.load_record(tmp_path / "x.xlsx", {})


@pytest.mark.parametrize(
    ("separator", "decimal", "name"),
    [(";", ".", "semicolons"), ("\t", ".", "tabs"), (";", ",", "semicolons")],
)
def test_a_file_not_separated_by_commas_is_named(tmp_path, separator, decimal, name):
    """A spreadsheet's export (semicolons and decimal commas) reads as one column or fails to
    tokenise: the error says what separates the file."""
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv"))
    frame.to_csv(tmp_path / "sep.csv", index=False, sep=separator, decimal=decimal)
    with pytest.raises(
        ingest.InputError,
        match=rf"sep\.csv: .*separated by {name}.*set separator: {re.escape(repr(separator))}",
    ):
        loaders.load_record(tmp_path / "sep.csv", {})
    fmt = io.CsvFormat(separator=separator, decimal=decimal)  # the settings that read it
    read = ingest.record_from_table(
        io.read_table(tmp_path / "sep.csv", fmt), "sep.csv", {}, max_jitter=loaders.MAX_JITTER
    )
    plain = loaders.load_record(tmp_path / "ok.csv", {})
    np.testing.assert_array_equal(read.torque, plain.torque)
    if decimal == ",":  # the separator set, the decimal mark forgotten: named, not "fix the file"
        half = io.read_table(tmp_path / "sep.csv", io.CsvFormat(separator=separator))
        with pytest.raises(
            ingest.InputError,
            match=r"'time' \(time\) .* data row 1 \(file line 2\): '0,0'; 600 such rows; a "
            r'decimal comma\? set decimal: "," in the record',
        ):
            ingest.record_from_table(half, "sep.csv", {}, max_jitter=loaders.MAX_JITTER)
        text = (tmp_path / "ok.csv").read_text().replace(",", ";").splitlines()
        text[5] = text[5].replace(text[5].split(";")[1], "1,234", 1)  # thousands, among points
        (tmp_path / "thousands.csv").write_text("\n".join(text) + "\n")
        with pytest.raises(ingest.InputError, match="'1,234'; fix the file there") as err:
            ingest.record_from_table(
                io.read_table(tmp_path / "thousands.csv", io.CsvFormat(separator=";")),
                "t",
                {},
                max_jitter=loaders.MAX_JITTER,
            )
        assert "decimal" not in str(err.value)


def test_a_tsv_file_reads_by_its_separator(tmp_path):
    """A .tsv file is text like a .csv: its tabs are named and ``separator`` reads them (no
    separator is guessed from the name: a comma-separated .tsv reads as written)."""
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv"))
    frame.to_csv(tmp_path / "r.tsv", index=False, sep="\t")
    with pytest.raises(ingest.InputError, match=r"separated by tabs.*set separator: '\\t'"):
        io.read_table(tmp_path / "r.tsv")
    tabs = io.read_table(tmp_path / "r.tsv", io.CsvFormat(separator="\t"))
    read = ingest.record_from_table(tabs, "r.tsv", {}, max_jitter=loaders.MAX_JITTER)
    np.testing.assert_array_equal(read.angle, loaders.load_record(tmp_path / "ok.csv", {}).angle)
    frame.to_csv(tmp_path / "commas.tsv", index=False)
    assert list(io.read_table(tmp_path / "commas.tsv").columns) == list(frame.columns)


def test_a_file_in_another_encoding_names_the_setting_that_reads_it(tmp_path):
    """A Latin-1 header ("Winkel [°]") gave Python's own words: 'utf-8' codec can't decode."""
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv")).rename(columns={"angle": "Winkel [°]"})
    frame.to_csv(tmp_path / "latin.csv", index=False, encoding="latin-1")
    with pytest.raises(
        ingest.InputError,
        match=r"latin\.csv: cannot be read as utf-8 text \(line 1: invalid start byte\): set "
        "encoding: latin-1",
    ):
        io.read_table(tmp_path / "latin.csv")
    with pytest.raises(ingest.InputError, match=r"cannot be read as utf-16 text"):
        io.read_table(tmp_path / "latin.csv", io.CsvFormat(encoding="utf-16"))
    read = io.read_table(tmp_path / "latin.csv", io.CsvFormat(encoding="latin-1"))
    assert "Winkel [°]" in read.columns
    with pytest.raises(ingest.InputError, match=r"unknown encoding 'latin-9000'"):
        io.read_table(tmp_path / "latin.csv", io.CsvFormat(encoding="latin-9000"))


@pytest.mark.parametrize("encoding", ["utf-8", "latin-1"])
def test_a_compressed_or_binary_file_named_csv_says_what_it_is(tmp_path, encoding):
    """A gzipped log named .csv got the advice to set encoding: latin-1 (which then read
    bytes as a table); a spreadsheet saved as .xlsx and named .csv too."""
    text = write_csv(tmp_path / "ok.csv").read_bytes()
    fmt = io.CsvFormat(encoding=encoding)
    (tmp_path / "log.csv").write_bytes(gzip.compress(text))
    with pytest.raises(ingest.InputError, match=r"log\.csv: not a text table but a gzip archive"):
        io.read_table(tmp_path / "log.csv", fmt)
    with zipfile.ZipFile(tmp_path / "book.csv", "w") as book:
        book.writestr("sheet.xml", text)
    with pytest.raises(ingest.InputError, match=r"book\.csv: not a text table but a zip archive"):
        io.read_table(tmp_path / "book.csv", fmt)
    (tmp_path / "log.bz.csv").write_bytes(bz2.compress(text))
    with pytest.raises(ingest.InputError, match=r"a bzip2 archive: bunzip2 -c log\.bz\.csv >"):
        io.read_table(tmp_path / "log.bz.csv", fmt)
    pd.read_csv(tmp_path / "ok.csv").to_parquet(tmp_path / "frame.csv")
    with pytest.raises(ingest.InputError, match=r"a Parquet file: give it a \.parquet name"):
        io.read_table(tmp_path / "frame.csv", fmt)


@pytest.mark.parametrize("first", ["PAR1", "BZh91AY"])
def test_a_text_table_that_begins_like_an_archive_is_read(tmp_path, first):
    """A header beginning "PAR1" or "BZh" is text: the signatures need bytes no header has
    (a Parquet file also ends with PAR1)."""
    path = tmp_path / "t.csv"
    path.write_text(f"{first},angle,torque\n0,1,2\n1,2,PAR1\n")
    assert list(io.read_table(path).columns) == [first, "angle", "torque"]


def test_a_header_line_beyond_the_file_says_how_long_the_file_is(tmp_path):
    """header_line past the file's end read "No columns to parse from file"."""
    path = tmp_path / "short.csv"
    path.write_text("time,angle,torque\n0,1,2\n0.01,1,2\n")
    with pytest.raises(ingest.InputError, match=r"header_line = 10, but the file has 3 lines"):
        io.read_table(path, io.CsvFormat(header_line=10))
    with pytest.raises(ingest.InputError, match=r"no data rows below header_line = 3$"):
        io.read_table(path, io.CsvFormat(header_line=3))
    path.write_bytes(b"# logger v2\r# 2 joints\rtime,angle,torque\r0,1,2\r")  # CR only
    with pytest.raises(ingest.InputError, match=r"header_line = 9, but the file has 4 lines"):
        io.read_table(path, io.CsvFormat(header_line=9))


def test_an_undecodable_byte_is_found_in_pieces_of_a_long_line(tmp_path, monkeypatch):
    """The bad byte's line is found reading a few bytes at a time (a binary file may have
    no newline to stop at): a character split between two pieces is no error."""
    monkeypatch.setattr(io, "UNDECODABLE_PIECE", 7)
    text = "time,angle\n0,1\n" + "x" * 6 + "°" * 5 + "\n"  # "°" split at byte 7
    (tmp_path / "bin.csv").write_bytes(text.encode() + b"1,\xff\xfe2\n")
    with pytest.raises(ingest.InputError, match=r"bin\.csv: .* utf-8 text \(line 4: invalid st"):
        io.read_table(tmp_path / "bin.csv")


def test_unknown_unit_names_field(tmp_path):
    path = write_csv(tmp_path / "r.csv")
    with pytest.raises(ingest.InputError, match=r"unknown unit 'grad' for angle"):
        loaders.load_record(path, {"angle": "grad"})


def test_parquet_records_are_read(tmp_path):
    frame = pd.read_csv(write_csv(tmp_path / "r.csv"))
    frame.to_parquet(tmp_path / "r.parquet")
    rec = loaders.load_record(tmp_path / "r.parquet", {})
    assert rec.time.size == 600


def test_a_record_that_is_no_parquet_names_itself(tmp_path):
    """A CSV renamed .parquet, or a Parquet copy cut short: one message naming the file (it was
    pyarrow's ArrowInvalid traceback at the workflow's start)."""
    renamed = tmp_path / "csv_as.parquet"
    renamed.write_bytes(write_csv(tmp_path / "r.csv").read_bytes())
    cut = tmp_path / "cut.parquet"
    pd.read_csv(tmp_path / "r.csv").to_parquet(cut)
    cut.write_bytes(cut.read_bytes()[: cut.stat().st_size // 2])
    for path in (renamed, cut):
        with pytest.raises(io.InputError, match=rf"{path.name}: not a readable Parquet file"):
            io.read_table(path)


def _check(path, **kw):
    rec = loaders.load_record(path, {})
    args = dict(study="mine", regressor=HIP_KEYS, gravity=9.81, signals_config=SIGNALS)
    checks.check_usable(rec, path, **(args | kw))


def test_usable_record_passes(tmp_path):
    _check(write_csv(tmp_path / "r.csv"), burn_in_s=1.0)


def test_cutoff_at_nyquist_is_rejected(tmp_path):
    path = write_csv(tmp_path / "r.csv", fs=25.0)
    with pytest.raises(
        ingest.InputError,
        match=r"r\.csv: studies\.mine\.signals\.cutoff_hz = 15 Hz is at or above the Nyquist",
    ):
        _check(path)


def test_too_short_record_is_rejected(tmp_path):
    path = write_csv(tmp_path / "r.csv", n=100)
    with pytest.raises(
        ingest.InputError, match=r"r\.csv: 100 samples .* too short: .*trim_s .*burn_in_s"
    ):
        _check(path, burn_in_s=1.0)


def test_constant_angle_reports_collinear_columns(tmp_path):
    path = write_csv(tmp_path / "r.csv", angle=0.3)
    with pytest.raises(
        ingest.InputError,
        match=r"rank-deficient .*\['g_sin_q', 'g_cos_q', 'qdd', 'sign_qd', 'qd'\]",
    ):
        _check(path)


@pytest.mark.parametrize(
    "above",
    [
        "# logger v2\n# robot gen3\n",
        "My experiment\n\n",
        "# logger v2\n# units: s, rad, N m\n",  # a comment with as many commas as the header
    ],
)
@pytest.mark.parametrize(
    "below",
    ["", "s,rad,N m\n"],  # a units row below the header: no header of its own
)
@pytest.mark.parametrize("stamps", [("0", "0.01", "0.02"), ("2026-12-05T10:00:00Z",) * 3])
def test_lines_above_the_header_are_named(tmp_path, above, below, stamps):
    """Comment or title lines above the header gave the parser's own words ("Error tokenizing
    data. C error: Expected 1 fields in line 3, saw 3") without a remedy; a comment line with
    the header's count of fields was named as the header."""
    path = tmp_path / "r.csv"
    rows = "".join(f"{stamp},{k},2\n" for k, stamp in enumerate(stamps))
    path.write_text(above + "time,angle,torque\n" + below + rows)
    with pytest.raises(
        ingest.InputError,
        match=r"r\.csv: .*line 3 looks like the header .*set header_line: 3( \(the line of "
        r".*\))? in the record",
    ):
        io.read_table(path)
    assert list(io.read_table(path, io.CsvFormat(header_line=3)).columns) == [
        "time",
        "angle",
        "torque",
    ]


def test_a_header_below_a_loggers_lines_reads_as_the_plain_file(tmp_path):
    """``header_line`` skips a logger's title and comment lines: the record is the plain
    file's, and a defect is named at its data row and its own line of the file."""
    text = write_csv(tmp_path / "plain.csv").read_text()
    above = "Logger X v2.1, 2026-12-05\n# joint: hip\n\n"  # a blank line counts as a line
    (tmp_path / "logged.csv").write_text(above + text)
    plain = loaders.load_record(tmp_path / "plain.csv", {})
    frame = io.read_table(tmp_path / "logged.csv", io.CsvFormat(header_line=4))
    logged = ingest.record_from_table(
        frame, tmp_path / "logged.csv", {}, max_jitter=loaders.MAX_JITTER
    )
    np.testing.assert_array_equal(logged.angle, plain.angle)
    np.testing.assert_array_equal(logged.time, plain.time)
    lines = (above + text).splitlines()
    lines[4 + 17] = lines[4 + 17].replace(lines[4 + 17].split(",")[1], "nan", 1)  # data row 18
    (tmp_path / "bad.csv").write_text("\n".join(lines) + "\n")
    with pytest.raises(
        ingest.InputError, match=r"data row 18 \(file line 22\): empty or a missing"
    ):
        ingest.record_from_table(
            io.read_table(tmp_path / "bad.csv", io.CsvFormat(header_line=4)),
            tmp_path / "bad.csv",
            {},
            max_jitter=loaders.MAX_JITTER,
        )
    assert (tmp_path / "bad.csv").read_text().splitlines()[21].split(",")[1] == "nan"


def test_a_row_below_blank_lines_is_named_at_its_own_file_line(tmp_path):
    """The reader skips blank lines (empty or blanks only; a line of separators is a row):
    an error counts them to name the line a data row has in the file, in any line ending;
    a Parquet file's row has no line."""
    lines = write_csv(tmp_path / "plain.csv").read_text().splitlines()
    lines[1 + 17] = lines[1 + 17].replace(lines[1 + 17].split(",")[1], "nan", 1)  # data row 18
    lines[5:5] = ["", "   "]  # two blank lines among the first data rows
    for ending in ("\n", "\r\n"):
        (tmp_path / "gaps.csv").write_bytes((ending.join(lines) + ending).encode())
        frame = io.read_table(tmp_path / "gaps.csv")
        with pytest.raises(
            ingest.InputError, match=r"data row 18 \(file line 21\): empty or a missing"
        ):
            ingest.record_from_table(
                frame, tmp_path / "gaps.csv", {}, max_jitter=loaders.MAX_JITTER
            )
    assert lines[20].split(",")[1] == "nan"
    frame.to_parquet(tmp_path / "gaps.parquet")
    with pytest.raises(ingest.InputError, match=r"at row 18: empty or a missing"):
        ingest.record_from_table(
            io.read_table(tmp_path / "gaps.parquet"),
            tmp_path / "gaps.parquet",
            {},
            max_jitter=loaders.MAX_JITTER,
        )
    assert io.FileLines(path=tmp_path / "gaps.csv").line_of(4) == 8  # below the blank ones
    assert io.FileLines(path=tmp_path / "gaps.csv").line_of(3) == 5
    # a blank line above the header (pandas takes the next line), one of a no-break space and
    # one of the separator alone (both rows to pandas)
    (tmp_path / "odd.csv").write_text("\ntime,angle\n0,1\n\u00a0\n,\n1,2\n")
    frame = io.read_table(tmp_path / "odd.csv")
    assert len(frame) == 4
    lines = ingest.lines_of(frame)
    assert [lines.line_of(row) for row in range(4)] == [3, 4, 5, 6]
    # a quoted field's line break stays within its row, as pandas reads it (the count of
    # physical lines put the next row one line early); a tab separator likewise
    for sep in (",", "\t"):
        text = 'time,angle,note\n0,1,ok\n1,2,"two\r\nlines"\n\n2,nan,ok\n'.replace(",", sep)
        (tmp_path / "quoted.csv").write_bytes(text.encode())
        frame = io.read_table(tmp_path / "quoted.csv", io.CsvFormat(separator=sep))
        assert len(frame) == 3 and frame["note"][1] == "two\r\nlines"
        lines = ingest.lines_of(frame)
        assert [lines.line_of(row) for row in range(3)] == [2, 3, 6]


@pytest.mark.parametrize("preamble", ["", "Logger X v2.1\n# joint: hip\n"])
def test_a_header_line_on_a_data_row_names_the_line_of_the_column_names(tmp_path, preamble):
    """``header_line`` one too far down read the first data row as the column names ("the
    header names column(s) ['0'] more than once"); a file without column names is told so."""
    text = preamble + write_csv(tmp_path / "plain.csv").read_text()
    (tmp_path / "logged.csv").write_text(text)
    below = preamble.count("\n") + 2
    with pytest.raises(
        ingest.InputError,
        match=rf"logged\.csv: line {below}, read as the header \(header_line: {below}\), holds "
        rf"numbers, not column names: a data row\? set header_line: {below - 1} \(that line",
    ):
        io.read_table(tmp_path / "logged.csv", io.CsvFormat(header_line=below))
    (tmp_path / "bare.csv").write_text("0,1,0\n" + text.split("\n", below - 1)[-1])
    with pytest.raises(ingest.InputError, match=r"line 1, .*: a data row\? set header_line to the"):
        io.read_table(tmp_path / "bare.csv")
    (tmp_path / "numbered.csv").write_text("0,1,2\n0.0,1.5,2.5\n")  # numbered columns: a header
    assert list(io.read_table(tmp_path / "numbered.csv").columns) == ["0", "1", "2"]


def test_a_header_line_is_for_csv_files(tmp_path):
    frame = pd.read_csv(write_csv(tmp_path / "r.csv"))
    frame.to_parquet(tmp_path / "r.parquet")
    assert ingest.lines_of(io.read_table(tmp_path / "r.parquet")) == io.FileLines(
        path=tmp_path / "r.parquet", text=False
    )
    with pytest.raises(ingest.InputError, match=r"r\.parquet: header_line = 2 is for CSV"):
        io.read_table(tmp_path / "r.parquet", io.CsvFormat(header_line=2))


def test_time_messages_keep_a_unix_stamps_digits(tmp_path):
    stamps = 1714564800.0 + np.arange(50) / 1000.0
    stamps[30] = stamps[29]  # with another angle: a row logged twice whole is left out
    frame = pd.DataFrame({"time": stamps, "angle": np.arange(50.0), "torque": 0.0})
    frame.to_csv(tmp_path / "u.csv")
    with pytest.raises(ingest.InputError, match=r"duplicate time stamp 1714564800\.029 s"):
        loaders.load_record(tmp_path / "u.csv", {})


def test_a_bad_timestamp_is_named_at_its_row_and_durations_are_seconds(tmp_path):
    stamps = pd.Series(pd.date_range("2024-03-31T01:59:59", periods=5, freq="10ms"))
    text = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S.%f").tolist()
    text[2] = "oops"
    frame = pd.DataFrame({"time": text, "angle": np.arange(5.0), "torque": 1.0})
    frame.to_csv(tmp_path / "r.csv", index=False)
    with pytest.raises(ingest.InputError, match=r"no timestamp at data row 3 .*'oops'"):
        loaders.load_record(tmp_path / "r.csv", {})
    durations = pd.DataFrame(
        {"time": pd.to_timedelta(np.arange(300) * 10, unit="ms"), "angle": 0.0, "torque": 0.0}
    )
    durations.to_parquet(tmp_path / "d.parquet")
    assert loaders.load_record(tmp_path / "d.parquet", {}).sample_rate_hz == pytest.approx(100.0)


def test_rows_ending_in_a_comma_are_not_taken_for_lines_above_the_header(tmp_path):
    """Rows ending in a comma read (index_col=False); one row with more fields stops the file,
    and the hint must not call the first data row the header."""
    path = tmp_path / "r.csv"
    path.write_text("time,angle,torque\n0,1,2,\n0.01,2,3,\n0.02,3,4,5,6\n0.03,3,4,\n")
    with pytest.raises(ingest.InputError, match=r"Expected 4 fields in line 4") as err:
        io.read_table(path)
    assert "looks like the header" not in str(err.value)


def test_trims_drop_the_ends_before_the_stamps_are_judged(tmp_path):
    """``trim_start_s``/``trim_end_s`` drop a 1-DOF record's ends (rest, a gap, a stop) before
    its stamps are put on the grid: a gap trimmed away passes, time starts at 0 again, the
    rows kept are the file's, and a stamp error after a trimmed start names the file's row."""
    path = write_csv(tmp_path / "r.csv")  # 600 rows at 100 Hz: 0-5.99 s
    whole = loaders.load_record(path, {})
    kept = loaders.load_record(path, {}, trim_s=(1.0, 0.5))
    assert kept.rows_trimmed == 150 and whole.rows_trimmed == 0
    assert kept.time[0] == 0.0 and kept.time.size == 450
    np.testing.assert_array_equal(kept.angle, whole.angle[100:550])
    # the file's time of the record's 0 is kept (predictions line up with the lab's log)
    assert whole.start_in_file_s == 0.0 and kept.start_in_file_s == pytest.approx(1.0)
    late = pd.read_csv(path).assign(time=lambda f: f["time"] + 1733.25)
    late.to_csv(tmp_path / "late.csv", index=False)
    shifted = loaders.load_record(tmp_path / "late.csv", {}, trim_s=(1.0, 0.5))
    assert shifted.start_in_file_s == pytest.approx(1734.25) and shifted.time[0] == 0.0
    frame = pd.read_csv(path)
    frame.drop(index=range(20, 60)).to_csv(tmp_path / "gap.csv", index=False)  # 0.4 s lost
    with pytest.raises(
        ingest.InputError, match=r"jitter .* data row 21 \(file line 22\): .*trim_start_s or trim_e"
    ):
        loaders.load_record(tmp_path / "gap.csv", {})
    assert not loaders.load_record(tmp_path / "gap.csv", {}, trim_s=(1.0, 0.0)).resampled
    frame.loc[300, "time"] = frame.loc[299, "time"]  # data row 301 repeats its stamp
    frame.to_csv(tmp_path / "twice.csv", index=False)
    with pytest.raises(ingest.InputError, match=r"duplicate time stamp .* data row 301 \(file li"):
        loaders.load_record(tmp_path / "twice.csv", {}, trim_s=(1.0, 0.0))
    with pytest.raises(ingest.InputError, match=r"r\.csv: trim_start_s = 3 s and trim_end_s = 3 s"):
        loaders.load_record(path, {}, trim_s=(3.0, 3.0))


def test_two_trims_of_one_file_share_the_rows_both_keep(tmp_path):
    """Rows two trims both keep, and the seconds they span: a single boundary row is shared
    (seconds compared as floats passed it at 0.0 and refused it at 0.005)."""
    path = write_csv(tmp_path / "r.csv")  # 0-5.99 s at 100 Hz
    shared = ingest.shared_samples(io.read_table(path), path, "time", "s", [(0.0, 3.0), (2.5, 0.0)])
    assert shared[0] == 50 and shared[1] == pytest.approx(0.49)
    assert ingest.shared_samples(
        io.read_table(path), path, "time", "s", [(0.0, 3.0), (2.99, 0.0)]
    ) == (1, 0.0)
    assert ingest.shared_samples(
        io.read_table(path), path, "time", "s", [(0.0, 3.0), (3.0, 0.0)]
    ) == (0, 0.0)


def test_a_last_line_cut_inside_its_time_is_named_not_trimmed_from(tmp_path):
    """A last line cut to ``1`` after 5.99 s made ``trim_end_s`` measure from 1 s and keep a
    sixth of the record without a word; the falling stamp is named first."""
    path = write_csv(tmp_path / "cut.csv")
    with path.open("a") as handle:
        handle.write("1\n")
    with pytest.raises(ingest.InputError, match=r"not increasing at data row 601 .* cut short"):
        loaders.load_record(path, {}, trim_s=(0.0, 0.005))
    (tmp_path / "empty.csv").write_text(path.read_text().replace("\n1\n", "\n,0.5\n"))
    with pytest.raises(
        ingest.InputError,
        match=r"'time' .* row 601 .*: empty or .*; the last line .* set trim_end_s \(one sample "
        r"period drops it\) or remove it",
    ):
        loaders.load_record(tmp_path / "empty.csv", {})
    # an empty time cell is the file's end, which trim_end_s drops: measured from 5.99 s
    assert loaders.load_record(tmp_path / "empty.csv", {}, trim_s=(0.0, 0.005)).time.size == 599
    assert loaders.load_record(tmp_path / "empty.csv", {}, trim_s=(0.0, 1e-9)).time.size == 599
    footer = path.read_text().replace("\n1\n", "\n# STOP\n# saved by logger v2\n")
    (tmp_path / "footer.csv").write_text(footer)  # two lines without a stamp: named as the end
    with pytest.raises(
        ingest.InputError, match=r"row 601 .*'# STOP'; the last 2 lines read, a footer"
    ):
        loaders.load_record(tmp_path / "footer.csv", {})
    assert loaders.load_record(tmp_path / "footer.csv", {}, trim_s=(0.0, 0.01)).time.size == 599


def test_a_half_written_last_line_is_trimmed_away_unread(tmp_path):
    """A 1-DOF log stopped mid-write (its last line has no torque) is refused naming the row
    until ``trim_end_s`` drops that line; a bad cell after a trimmed start names the file's row."""
    path = write_csv(tmp_path / "cut.csv")
    with path.open("a") as handle:
        handle.write("6.0,0.5\n")
    with pytest.raises(ingest.InputError, match=r"'torque' .* row 601 .* raise trim_end_s past"):
        loaders.load_record(path, {})
    assert loaders.load_record(path, {}, trim_s=(0.0, 0.005)).time.size == 600
    frame = pd.read_csv(write_csv(tmp_path / "bad.csv"))
    frame["angle"] = frame["angle"].astype(object)
    frame.loc[300, "angle"] = "n/a"
    frame.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(ingest.InputError, match=r"'angle' \(angle\) .* data row 301 \(file line 3"):
        loaders.load_record(tmp_path / "bad.csv", {}, trim_s=(1.0, 0.0))


def _time_cells(path: Path, cells: dict[int, str]) -> Path:
    """``path`` with the time cells of the given 0-based data rows replaced."""
    frame = pd.read_csv(path)
    frame["time"] = frame["time"].astype(object)
    for row, text in cells.items():
        frame.loc[row, "time"] = text
    frame.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("cells", "trim_s", "kept"),
    [
        ({0: "", 1: "x"}, (1.0, 0.0), slice(102, 600)),  # before the first readable stamp, 0.02 s
        ({50: "n/a"}, (1.0, 0.0), slice(100, 600)),  # between stamps the start trim drops
        ({598: "", 599: ""}, (0.0, 0.5), slice(0, 548)),  # the file's end: from 5.97 s
        ({585: "?", 5: "?"}, (0.5, 0.3), slice(50, 570)),  # one in each trimmed end
    ],
)
def test_an_unreadable_time_cell_the_trims_drop_is_not_judged(tmp_path, cells, trim_s, kept):
    """A time cell without a number in the rows a trim drops stopped the load; it is dropped
    with them, the trims measured from the first and the last readable stamp: the record is the
    file's rows ``kept``, as the file with every cell readable gives them."""
    clean = loaders.load_record(write_csv(tmp_path / "clean.csv"), {})
    bad = _time_cells(write_csv(tmp_path / "bad.csv"), cells)
    with pytest.raises(
        ingest.InputError, match=rf"bad\.csv: column 'time' \(time\) .* row {min(cells) + 1} "
    ):
        loaders.load_record(bad, {})
    record = loaders.load_record(bad, {}, trim_s=trim_s)
    np.testing.assert_array_equal(record.angle, clean.angle[kept])
    np.testing.assert_allclose(record.time, clean.time[kept] - clean.time[kept.start], atol=1e-12)
    assert record.rows_trimmed == 600 - (kept.stop - kept.start) and not record.resampled


def test_an_unreadable_time_cell_the_trims_keep_is_named_at_its_row(tmp_path):
    """A time cell without a number in the rows the trims keep names its row as before; one
    between a dropped and a kept stamp (the trim may keep it) names the trim to raise."""
    bad = _time_cells(write_csv(tmp_path / "bad.csv"), {300: "x"})
    with pytest.raises(
        ingest.InputError, match=r"'time' \(time\) is not a finite number at data row 301 .*'x'"
    ):
        loaders.load_record(bad, {}, trim_s=(1.0, 1.0))
    edge = _time_cells(write_csv(tmp_path / "edge.csv"), {100: "x"})  # 1.00 s, first kept
    with pytest.raises(
        ingest.InputError,
        match=r"edge\.csv: .* data row 101 .*'x'; it lies between the stamps 0\.99 s and 1\.01 s,"
        r" across the trim_start_s = 1 s boundary.* raise trim_start_s above 1\.01 s",
    ):
        loaders.load_record(edge, {}, trim_s=(1.0, 0.0))
    assert loaders.load_record(edge, {}, trim_s=(1.02, 0.0)).time.size == 498
    end = _time_cells(write_csv(tmp_path / "end.csv"), {549: ""})  # 5.49 s, last kept
    with pytest.raises(ingest.InputError, match=r"row 550 .*across the trim_end_s = 0\.5 s"):
        loaders.load_record(end, {}, trim_s=(0.0, 0.5))
    # a falling stamp is refused across an unreadable one (the trims measure from the last)
    fall = _time_cells(write_csv(tmp_path / "fall.csv"), {598: "", 599: "1"})
    with pytest.raises(
        ingest.InputError, match=r"not increasing at data row 600 .*1 s after 5\.97"
    ):
        loaders.load_record(fall, {}, trim_s=(0.0, 0.5))


def test_a_column_of_timestamps_cut_to_a_number_and_a_column_of_comma_decimals(tmp_path):
    """ISO 8601 stamps whose last line is cut to a number ("2"): still timestamps, the cut cell
    dropped by the end's trim and named at its row without one (the whole column was read as
    numbers: "trims leave 0 of its rows");
    a column of comma decimals with trims set: named as the column's format with its count
    (not as one cell at a trim's boundary)."""
    frame = pd.read_csv(write_csv(tmp_path / "r.csv"))
    stamps = pd.Timestamp("2024-05-01T12:00:00Z") + pd.to_timedelta(frame["time"], unit="s")
    iso = frame.assign(time=stamps.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ"))
    iso.loc[len(iso) - 1, "time"] = "2"
    iso.to_csv(path := tmp_path / "iso_cut.csv", index=False)
    assert loaders.load_record(path, {}, trim_s=(0.0, 0.5)).time.size == 549
    with pytest.raises(ingest.InputError, match=r"no timestamp at data row 600 .*'2'"):
        loaders.load_record(path, {})
    comma = frame.assign(time=[f"{x:.2f}".replace(".", ",") for x in frame["time"]])
    comma.to_csv(path := tmp_path / "comma.csv", index=False)
    with pytest.raises(ingest.InputError, match=r"'0,00'; 600 such rows"):
        loaders.load_record(path, {}, trim_s=(0.5, 0.5))


def test_a_mostly_blank_time_column_the_trims_drop_loads(tmp_path):
    """Blank stamps in most rows, all of them in the span trim_start_s drops: the kept rows are
    judged, not the column (the format rule, more than half unreadable, is the kept rows')."""
    frame = pd.read_csv(write_csv(tmp_path / "r.csv", n=1000)).astype({"time": object})
    frame.loc[:599, "time"] = ""
    frame.to_csv(path := tmp_path / "blank.csv", index=False)
    assert loaders.load_record(path, {}, trim_s=(0.5, 0.0)).time.size == 350
    with pytest.raises(ingest.InputError, match=r"data row 1 \(file line 2\).*600 such rows"):
        loaders.load_record(path, {})


def test_trims_that_leave_nothing_point_at_the_time_unit(tmp_path):
    """Seconds declared as ms with a trim: the file is 0.006 s long as read, and the message
    says to check units.time (it named the trims alone)."""
    path = write_csv(tmp_path / "r.csv")
    with pytest.raises(ingest.InputError, match=r"leave 0 of its rows .*check units.time"):
        loaders.load_record(path, {"time": "ms"}, trim_s=(0.0, 2.5))


def test_an_unreadable_timestamp_the_trims_drop_is_not_judged(tmp_path):
    """ISO 8601 stamps alike: an unreadable one in the trimmed start is dropped, the seconds
    counted from the first readable stamp; one the trims keep names its row."""
    frame = pd.read_csv(write_csv(tmp_path / "r.csv"))
    stamps = pd.Timestamp("2024-05-01T12:00:00Z") + pd.to_timedelta(frame["time"], unit="s")
    frame["time"] = stamps.dt.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    frame.loc[3, "time"] = "oops"
    frame.to_csv(path := tmp_path / "iso.csv", index=False)
    record = loaders.load_record(path, {}, trim_s=(0.5, 0.0))
    assert record.time.size == 550 and record.rows_trimmed == 50
    np.testing.assert_allclose(record.time, np.arange(550) / 100.0, atol=1e-9)
    with pytest.raises(ingest.InputError, match=r"no timestamp at data row 4 \(file line 5\)"):
        loaders.load_record(path, {})
    assert (
        ingest.shared_samples(io.read_table(path), path, "time", "s", [(0.5, 3.0), (2.5, 0.0)])[0]
        == 50
    )


def test_a_decimal_comma_needs_another_separator(tmp_path):
    path = write_csv(tmp_path / "r.csv")
    with pytest.raises(ingest.InputError, match=r"separator and decimal are both ','"):
        io.read_table(path, io.CsvFormat(decimal=","))


def test_a_column_named_in_negate_is_read_inverted_and_the_file_kept(tmp_path):
    path = write_csv(tmp_path / "r.csv")
    before = path.read_bytes()
    frame = io.read_record({"path": path, **vars(io.CsvFormat()), "negate": ["torque"]})
    np.testing.assert_array_equal(frame["torque"], -pd.read_csv(path)["torque"])
    assert path.read_bytes() == before
    lines = path.read_text().splitlines()
    lines[5] = lines[5].rsplit(",", 1)[0] + ",abc"
    path.write_text("\n".join(lines) + "\n")
    bad = io.read_record({"path": path, **vars(io.CsvFormat()), "negate": ["torque"]})
    with pytest.raises(ingest.InputError, match=r"'torque' .* data row 5 .*'abc'"):
        ingest.record_from_table(
            bad, path, {}, max_jitter=loaders.MAX_JITTER
        )  # the cell as written, not a NaN
    with pytest.raises(ingest.InputError, match=r"negate names column\(s\) \['tau'\]"):
        io.read_record({"path": path, **vars(io.CsvFormat()), "negate": ["tau"]})


def test_a_column_named_in_scale_is_read_times_its_factor_after_negate(tmp_path):
    """A motor current logged in A (a UR's RTDE): ``scale`` reads the column times its torque
    constant, after ``negate``; the file stays as written; a column the file lacks, or one of
    no numbers, is named as for negate."""
    path = write_csv(tmp_path / "r.csv")
    before = path.read_bytes()
    logged = pd.read_csv(path)["torque"]
    spec = {"path": path, **vars(io.CsvFormat())}
    frame = io.read_record({**spec, "scale": {"torque": 13.0}})
    np.testing.assert_array_equal(frame["torque"], 13.0 * logged)
    both = io.read_record({**spec, "negate": ["torque"], "scale": {"torque": 13.0, "angle": 2.0}})
    np.testing.assert_array_equal(both["torque"], -13.0 * logged)
    np.testing.assert_array_equal(both["angle"], 2.0 * pd.read_csv(path)["angle"])
    assert path.read_bytes() == before
    with pytest.raises(ingest.InputError, match=r"scale names column\(s\) \['current_1'\]"):
        io.read_record({**spec, "scale": {"current_1": 13.0}})
    stamped = pd.read_csv(path)
    stamped["time"] = pd.Timestamp("2026-12-05", tz="UTC") + pd.to_timedelta(stamped["time"], "s")
    stamped.to_parquet(tmp_path / "r.parquet")
    with pytest.raises(ingest.InputError, match=r"scale names column 'time', which holds datetime"):
        io.read_record({**spec, "path": tmp_path / "r.parquet", "scale": {"time": 2.0}})


def test_a_title_with_the_headers_count_of_fields_is_named_beside_it(tmp_path):
    """A title line with as many commas as the header is no comment: both lines are offered."""
    path = tmp_path / "r.csv"
    title = "Logger v2\nDevice: hip, serial A42, firmware v1\n"
    path.write_text(title + "time,angle,torque\n0,1,2\n0.01,2,3\n0.02,3,4\n")
    with pytest.raises(
        ingest.InputError,
        match=r"set header_line: 2 \(the line of the column names: lines 2, 3 have 3 fields\)",
    ):
        io.read_table(path)


def test_missing_times_and_large_integers_are_compared_as_such():
    from paramid import provenance

    stamps = pd.DataFrame({"t": pd.to_datetime(["2026-01-01", None])})
    assert provenance.frame_difference(stamps, stamps.copy()).startswith("equal values")
    big = pd.DataFrame({"v": [2**60]})
    assert provenance.frame_difference(big, big + 1) == (
        "v (1 of 1 rows from row 1, largest |diff| 0, relative 0.0e+00)"
    )  # found, though its size is below a double's resolution


def test_negate_refuses_a_column_without_a_sign(tmp_path):
    frame = pd.read_csv(write_csv(tmp_path / "r.csv"))
    frame["time"] = pd.Timestamp("2026-12-05", tz="UTC") + pd.to_timedelta(frame["time"], "s")
    frame.to_parquet(tmp_path / "r.parquet")
    spec = {"path": tmp_path / "r.parquet", **vars(io.CsvFormat()), "negate": ["time"]}
    with pytest.raises(
        ingest.InputError, match=r"negate names column 'time', which holds datetime"
    ):
        io.read_record(spec)


@pytest.mark.parametrize(("separator", "decimal"), [(";", ","), (";", "."), ("\t", ".")])
def test_a_title_with_commas_above_another_separator_is_no_comma_header(
    tmp_path, separator, decimal
):
    """A logger's title with commas above a semicolon (or tab) file was taken for a comma
    header ("set separator: ','"), and that advice only led to other errors; the layout the
    rows below agree with is named instead, with every setting it needs."""
    frame = pd.read_csv(write_csv(tmp_path / "ok.csv"))
    path = tmp_path / "log.csv"
    title = (
        "# KneeExo-2 logger fw 1.4.2, session S03, run 1\n# 1000 Hz, 14 bit, torque from current\n"
    )
    path.write_text(title + frame.to_csv(index=False, sep=separator, decimal=decimal))
    with pytest.raises(ingest.InputError) as err:
        io.read_table(path)  # the default format: the separator is right only for a comma file
    text = str(err.value)
    assert "set separator: ','" not in text
    settings = f"separator: {separator!r}" + (", decimal: ','" if decimal == "," else "")
    assert f"set {settings}, header_line: 3 in the record's config" in text
    with pytest.raises(ingest.InputError, match=r"line 3 looks like the header .*header_line: 3"):
        io.read_table(path, io.CsvFormat(separator=separator, decimal=decimal))
    with pytest.raises(ingest.InputError, match=rf"set {re.escape(settings)}, header_line: 3 "):
        io.read_table(path, io.CsvFormat(separator=","))  # the old advice followed
    if decimal == ",":  # and with it the decimal comma: refused before reading, with the layout
        with pytest.raises(ingest.InputError, match=r"both ','.*set separator: ';', header_"):
            io.read_table(path, io.CsvFormat(separator=",", decimal=","))
    read = io.read_table(path, io.CsvFormat(header_line=3, separator=separator, decimal=decimal))
    np.testing.assert_array_equal(read["torque"].to_numpy(), frame["torque"].to_numpy())


@pytest.mark.parametrize(
    ("text", "header_line", "separator", "fields"),
    [
        ("Knee log, subject A, left, walk\n#,time,angle,torque\n", 2, ",", 4),
        ("Knee log; subject A; left; walk\n#;time;angle;torque\n", 2, ";", 4),
        ("Knee log, subject A\n#time,angle,torque\n", 2, ",", 3),  # a header opened by '#'
        ("Rig 2, run 1, left\ntime,angle,1\n", 2, ",", 3),  # a column named like a number
        ("time,angle,torque,event\n", 1, ",", 3),  # a last column left empty
        ("time,angle,torque,\n", 1, ",", 3),  # a comma ending the header only
    ],
)
def test_a_valid_file_read_as_configured_is_not_taken_for_another_layout(
    tmp_path, text, header_line, separator, fields
):
    """The layout sniffer judges a file only where its configured header does not stand over
    rows of data: a title above a header set right (as wide as the rows, no number in it),
    a header opened by '#' or holding a number-like name, a header wider than its rows all
    read as configured (they were refused, the advice pointing at the title)."""
    path = tmp_path / "r.csv"
    values = [[k, k / 100, 0.5, 1.5][4 - fields :] for k in range(20)]
    rows = "".join(separator.join(map(str, row)) + "\n" for row in values)
    path.write_text(text + rows)
    frame = io.read_table(path, io.CsvFormat(header_line=header_line, separator=separator))
    assert len(frame) == 20
    assert list(frame.columns)[:2] == text.splitlines()[-1].split(separator)[:2]


def test_a_header_below_a_title_as_wide_as_the_rows_is_found_by_its_columns(tmp_path):
    """A title as wide as the rows read as the header (header_line left at 1), and a header
    with a column named like a number under a narrower title: the first gave only "missing
    column(s)", the second advised the title's commas as the separator (a re-trial)."""
    path = tmp_path / "wide.csv"
    rows = "".join(f"{k / 100},{k},0.5,1.5\n" for k in range(20))
    path.write_text("# fw 1.4.2, 1000 Hz, 14 bit, S03\ntime,angle,torque,vel\n" + rows)
    with pytest.raises(
        ingest.InputError,
        match=r"missing column\(s\) \['time', 'angle', 'torque'\]; the file has \['# fw 1\.4\.2'"
        r", .*; the columns 'time', 'angle', 'torque' stand on line 2, fields separated by "
        r"commas: set header_line: 2 in the",
    ):
        loaders.load_record(path, {})
    read = io.read_table(path, io.CsvFormat(header_line=2))
    record = ingest.record_from_table(read, path, {}, max_jitter=loaders.MAX_JITTER)
    assert record.time.size == 20
    numbered = tmp_path / "numbered.csv"
    rows = "".join(f"{k};0,{k};7,5;0,3\n" for k in range(20))
    numbered.write_text("# KneeExo-2, S03\nt_ms;angle;1;vel\n" + rows)
    fmt = io.CsvFormat(separator=";", decimal=",")
    with pytest.raises(ingest.InputError, match=r"line 2 looks like the header .*header_line: 2"):
        io.read_table(numbered, fmt)
    fmt = io.CsvFormat(header_line=2, separator=";", decimal=",")
    assert list(io.read_table(numbered, fmt).columns)[2] == "1"


def _with_units_row(path: Path, units: str, decimal_comma: bool = False) -> Path:
    """The plain record of :func:`write_csv` with a logger's units row below its header (and,
    with ``decimal_comma``, written ';'-separated with decimal commas)."""
    lines = write_csv(path).read_text().splitlines()
    lines.insert(1, units)
    if decimal_comma:
        lines = [line.replace(",", ";").replace(".", ",") for line in lines]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize(
    ("units", "decimal_comma"),
    [
        ("s,rad,N m", False),
        ("[s],[rad],[Nm]", False),
        ("(sec);radians;N·m", True),
        (",rad,", False),
    ],
)
def test_a_units_row_below_the_header_is_read_as_the_files_units(tmp_path, units, decimal_comma):
    """A logger's units row was read as data row 1: 'not a finite number at data row 1', with
    no setting to skip it. It is the file's statement of its units: skipped, numbers read as
    numbers (decimal commas too), and rows still named at their own file lines."""
    path = _with_units_row(tmp_path / "u.csv", units, decimal_comma)
    fmt = io.CsvFormat(separator=";", decimal=",") if decimal_comma else io.CsvFormat()
    frame = io.read_table(path, fmt, units_row=True)
    plain = io.read_table(write_csv(tmp_path / "plain.csv"))
    pd.testing.assert_frame_equal(frame, plain, check_exact=False, rtol=1e-12)
    rec = ingest.record_from_table(frame, path, {}, max_jitter=loaders.MAX_JITTER)
    assert rec.time.size == 600
    assert ingest.data_row(17, ingest.lines_of(frame)) == "data row 18 (file line 20)"


@pytest.mark.parametrize(
    ("units", "declared", "message"),
    [
        (
            "s,deg,N m",
            {},
            r"file line 2\), 'angle' is in deg \(read as rad\): set units.angle: 'deg'",
        ),
        (
            "ms,rad,N mm",
            {"torque": "N m"},
            r"'time' is in ms \(read as s\); 'torque' is in N mm \(read as N m\): set "
            r"units.time: 'ms', units.torque: 'N mm'",
        ),
        (
            "s,rad,A",
            {},
            r"'torque' is in A \(read as N m; units.torque takes N m, N mm\): convert it",
        ),
        (
            "min,rad,N m",
            {},
            r"'time' is in min \(read as s; units.time takes ms, ns, s, us\): conv",
        ),
    ],
)
def test_a_units_row_that_differs_from_the_declared_units_is_refused(
    tmp_path, units, declared, message
):
    """Degrees declared as radians (or left at the default), ms as s: the file's own units row
    says so; each column that differs is named with the setting that reads it."""
    path = _with_units_row(tmp_path / "u.csv", units)
    with pytest.raises(ingest.InputError, match=message):
        loaders.load_record(path, declared)
    for known_as_read in ("UTC,rad,N m", "s,rad,N⋅m", "s,radians,counts", "sec,[rad],Nm (sensor)"):
        loaders.load_record(_with_units_row(tmp_path / "ok.csv", known_as_read), {})


def test_a_row_of_descriptions_is_no_units_row(tmp_path):
    """A first row of text that names no unit stays a data row, named as before."""
    path = _with_units_row(tmp_path / "d.csv", "time of sample,joint angle,motor torque")
    assert "file_units" not in io.read_table(path, units_row=True).attrs
    with pytest.raises(ingest.InputError, match=r"data row 1 \(file line 2\): 'time of sample'"):
        loaders.load_record(path, {})


def test_a_units_row_is_found_below_a_header_with_a_line_break_and_only_in_records(tmp_path):
    """A spreadsheet's header cell with a line break ("t<Alt-Enter>[s]") made the row below it
    counted in file lines, and the first data row was skipped in its place (the units row read
    as data, a trimmed record shifted by a sample); a Parquet file saved from such a frame was
    refused by the units it no longer has; a file that is no record keeps the row as data."""
    rows = write_csv(tmp_path / "plain.csv").read_text().splitlines()[1:]
    path = tmp_path / "broken_header.csv"
    path.write_text("\n".join(['"t\n[s]",angle,torque', "s,deg,N m", "", *rows]) + "\n")
    frame = io.read_table(path, units_row=True)
    assert frame.attrs["file_units"] == {"t\n[s]": "s", "angle": "deg", "torque": "N m"}
    assert len(frame) == 600 and frame.iloc[0].tolist() == [float(v) for v in rows[0].split(",")]
    assert ingest.data_row(4, ingest.lines_of(frame)) == "data row 5 (file line 9)"
    assert rows[4] == path.read_text().splitlines()[8]
    with pytest.raises(ingest.InputError, match=r"units row \(file line 3\), 'angle' is in deg"):
        ingest.record_from_table(frame, path, {}, {"time": "t\n[s]"}, max_jitter=0.5)
    saved = tmp_path / "saved.parquet"
    frame.to_parquet(saved)
    assert "file_units" not in io.read_table(saved).attrs
    assert "file_units" not in io.read_table(path).attrs and len(io.read_table(path)) == 601


def test_time_stamps_as_text_in_another_format_name_iso_8601(tmp_path):
    """A logger's local stamps ("30.11.2026 10:15:00,000") were told cell by cell as 'not a
    finite number ... 4996 such rows; fix the file there (trim_start_s ...)'."""
    path = write_csv(tmp_path / "r.csv")
    frame = pd.read_csv(path)
    frame["time"] = [f"30.11.2026 10:15:{k // 100:02d},{k % 100:02d}0" for k in range(len(frame))]
    frame.to_csv(path, index=False)
    with pytest.raises(
        ingest.InputError,
        match=r"'time' \(time\) holds text that is neither a number nor an ISO 8601 time stamp, "
        r"e\.g\. '30\.11\.2026 10:15:00,000' at data row 1 \(file line 2\): write the stamps as",
    ):
        loaders.load_record(path, {})


def test_a_gap_names_two_records_with_disjoint_trims():
    """A 0.4 s gap inside a log: 'max_jitter bridges it' alone would draw straight lines over
    it; two records of the file with disjoint trims keep both sides."""
    t = np.concatenate([np.arange(0, 5, 0.01), np.arange(5.4, 10, 0.01)])
    with pytest.raises(ingest.InputError, match=r"two records of the file with disjoint trims"):
        ingest.time_grid(t, Path("gap.csv"), max_jitter=0.5)


def test_repeated_stamps_are_counted_and_whole_seconds_named(tmp_path):
    """A ROS log's repeated messages: the first repeat is named with how many more there are
    (one at a time, a run per row); a ROS 2 export's header.stamp.sec column, whole seconds
    with the fraction in header.stamp.nanosec, is named as such (it read as 'duplicate time
    stamp 1733560000 s at data row 2', no hint)."""
    stamps = 1714564800.0 + np.arange(200) / 500.0
    stamps[[30, 90, 150]] = stamps[[29, 89, 149]]
    frame = pd.DataFrame({"time": stamps, "angle": np.arange(200.0), "torque": 0.0})
    frame.to_csv(tmp_path / "u.csv")
    with pytest.raises(ingest.InputError) as raised:
        loaders.load_record(tmp_path / "u.csv", {})
    assert "(and 2 more row(s) repeat the stamp before them): a message logged twice" in str(
        raised.value
    )
    seconds = np.floor(1733560000.0 + np.arange(2000) / 500.0)
    pd.DataFrame({"time": seconds, "angle": 0.0, "torque": 0.0}).to_csv(tmp_path / "s.csv")
    with pytest.raises(ingest.InputError, match=r"every stamp is a whole second: .*nanosec"):
        loaders.load_record(tmp_path / "s.csv", {})


def test_a_1dof_row_logged_twice_whole_is_left_out_and_a_cut_last_number_named(tmp_path):
    """The 1-DOF records share the multi-joint rules: a row equal to the one before it in
    every column read is left out (the record as if logged once, the row counted); a last
    line cut inside a number it reads, without a line break, is named until trimmed."""
    path = write_csv(tmp_path / "r.csv", note=1.0)  # a last column no record reads
    data = pd.read_csv(path)
    pd.concat([data.iloc[:301], data.iloc[300:]]).to_csv(tmp_path / "twice.csv", index=False)
    once = loaders.load_record(path, {})
    record = loaders.load_record(tmp_path / "twice.csv", {})
    np.testing.assert_array_equal(record.angle, once.angle)
    np.testing.assert_array_equal(record.time, once.time)
    assert (record.repeats_dropped, record.repeat_row, once.repeats_dropped) == (1, 301, 0)
    *rows, last = path.read_text().rstrip("\n").split("\n")
    time, angle, torque, _ = last.split(",")
    cut = tmp_path / "cut.csv"
    cut.write_text("\n".join([*rows, f"{time},{angle},{torque[:4]}"]))  # no line break
    with pytest.raises(ingest.InputError, match=r"after 3 of 4 fields, in column 'torque' at data"):
        loaders.load_record(cut, {})
    assert loaders.load_record(cut, {}, trim_s=(0.0, 0.005)).time.size == 599
    cut.write_text("\n".join([*rows, f"{time},{angle},{torque[:4]}\n"]))  # a line break: complete
    assert loaders.load_record(cut, {}).torque[-1] == float(torque[:4])
