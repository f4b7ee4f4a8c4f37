"""Multi-joint records (paramid.robot.records) and their signal chain (paramid.robot.signals)."""

from __future__ import annotations

import re
from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pytest

from paramid import ingest, io, plausibility
from paramid.errors import UserError
from paramid.hip import pipeline
from paramid.ingest import InputError
from paramid.robot import records, signals, study

JOINTS = ["shoulder", "elbow", "wrist"]
KINOVA = Path(__file__).resolve().parents[1] / "data/kinova_gen3/opti_traj_testing2.csv"
KINOVA_COLUMNS = {"time": "Time", "q": "Position{i}", "dq": "Velocity{i}", "tau": "TorqueCur{i}"}
SIGNALS = {"cutoff_hz": 10.0, "filter_order": 4, "trim_s": 0.1, "decimate": 1}


def motion(t: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """q, q̇, q̈ (N, 3): one sinusoid per joint."""
    w = 2 * np.pi * np.array([0.5, 0.7, 1.1])
    a = np.array([1.0, 0.5, 0.25])
    return (
        a * np.sin(w * t[:, None]),
        a * w * np.cos(w * t[:, None]),
        -a * w**2 * np.sin(w * t[:, None]),
    )


def frame(t: np.ndarray, velocity: bool = True) -> pd.DataFrame:
    """The default layout: time, q_<joint>, dq_<joint>, tau_<joint>."""
    q, dq, _ = motion(t)
    data = {"time": t}
    for j, name in enumerate(JOINTS):
        data[f"q_{name}"] = q[:, j]
        if velocity:
            data[f"dq_{name}"] = dq[:, j]
        data[f"tau_{name}"] = 2.0 * q[:, j] + 0.1 * j
    return pd.DataFrame(data)


@pytest.fixture
def uniform(tmp_path: Path) -> Path:
    path = tmp_path / "record.csv"
    frame(np.arange(2000) / 1000.0).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("suffix", [".csv", ".parquet"])
def test_default_layout_round_trips(tmp_path: Path, suffix: str):
    t = np.arange(500) / 500.0
    path = tmp_path / f"record{suffix}"
    data = frame(t)
    data.to_csv(path, index=False) if suffix == ".csv" else data.to_parquet(path)
    record = loaders.load_robot_record(path, JOINTS)
    q, dq, _ = motion(t)
    np.testing.assert_allclose(record.q, q, rtol=1e-12)
    np.testing.assert_allclose(record.dq, dq, rtol=1e-12)
    np.testing.assert_allclose(record.tau[:, 2], 2 * q[:, 2] + 0.2, rtol=1e-12)
    assert record.sample_rate_hz == pytest.approx(500.0) and not record.resampled


def test_template_columns_and_units(tmp_path: Path):
    t = np.arange(300) / 1000.0
    q, _, _ = motion(t)
    data = {"Time": np.arange(300)}  # row index in ms
    for j in range(3):
        data[f"Position{j + 1}"] = np.degrees(q[:, j])
        data[f"Tq{j + 1}"] = 1e3 * q[:, j]  # N mm
        data[f"Position{j + 1}Ref"] = 0.0  # similar names that are not joint columns
    path = tmp_path / "log.csv"
    pd.DataFrame(data).to_csv(path, index=False)
    record = loaders.load_robot_record(
        path,
        JOINTS,
        columns={"time": "Time", "q": "Position{i}", "tau": "Tq{i}"},  # no velocity logged
        units={"time": "ms", "q": "deg", "tau": "N mm"},
    )
    np.testing.assert_allclose(record.time, t, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(record.q, q, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(record.tau, q, rtol=1e-12, atol=1e-15)
    assert record.dq is None


def test_a_zero_based_log_is_read_with_i0_and_named_with_i(tmp_path: Path):
    """A logger that numbers its joints from 0 (UR RTDE's actual_q_0 ...): {i} missed the last
    joint's column without a word on why; {i0} reads it."""
    t = np.arange(300) / 500.0
    q, dq, _ = motion(t)
    data = {"timestamp": t}
    for j in range(3):
        data |= {f"actual_q_{j}": q[:, j], f"actual_qd_{j}": dq[:, j], f"target_tau_{j}": q[:, j]}
    path = tmp_path / "rtde.csv"
    pd.DataFrame(data).to_csv(path, index=False)
    columns = {"time": "timestamp", "q": "actual_q_{i0}", "dq": "actual_qd_{i0}"}
    record = loaders.load_robot_record(path, JOINTS, columns=columns | {"tau": "target_tau_{i0}"})
    np.testing.assert_allclose(record.q, q, rtol=1e-12)
    np.testing.assert_allclose(record.dq, dq, rtol=1e-12)
    one_based = columns | {"q": "actual_q_{i}", "tau": "target_tau_{i0}"}
    with pytest.raises(InputError, match=r"missing column 'actual_q_3'.*from 0: use \{i0\}"):
        loaders.load_robot_record(path, JOINTS, columns=one_based)
    # the other way round: {i0} on a log numbered from 1 (a Panda user's A{i0}_pos_deg)
    renamed = pd.read_csv(path).rename(
        columns=lambda c: re.sub(r"_(\d)$", lambda m: f"_{int(m[1]) + 1}", c)
    )
    renamed.to_csv(tmp_path / "one.csv", index=False)
    with pytest.raises(InputError, match=r"missing column 'actual_q_0'.*from 1: use \{i\} for"):
        loaders.load_robot_record(
            tmp_path / "one.csv", JOINTS, columns=columns | {"tau": "target_tau_{i}"}
        )


def test_joint_name_template(tmp_path: Path):
    data = frame(np.arange(100) / 100.0, velocity=False)
    data = data.rename(columns=lambda c: c.replace("q_", "pos.") if c.startswith("q_") else c)
    data["pos.gripper"] = 0.0  # a locked joint's column is allowed with {joint}
    path = tmp_path / "named.csv"
    data.to_csv(path, index=False)
    record = loaders.load_robot_record(path, JOINTS, columns={"q": "pos.{joint}"})
    assert record.q.shape == (100, 3) and record.dq is None


def test_a_locked_joints_logged_angle_is_read_in_the_records_units(tmp_path: Path):
    """A named layout's column of a joint the model locks is read like the others' (deg to
    rad for a revolute or continuous joint, a continuous one unwrapped, a prismatic one in m)
    and resampled with them; an indexed layout has no locked joint's column."""
    t = np.arange(200) / 100.0
    data = frame(t, velocity=False)
    data["time"] *= 1 + 0.2 * (np.arange(200) % 2) / 200  # jittered: resampled
    wrist = np.linspace(-170.0, 190.0, 200)  # a continuous joint logged wrapped
    data["q_gripper"] = (wrist + 180.0) % 360.0 - 180.0
    data["q_rail"] = 0.25  # m
    data = data.assign(**{f"q_{j}": np.degrees(data[f"q_{j}"]) for j in JOINTS})
    path = tmp_path / "arm.csv"
    data.to_csv(path, index=False)
    locked = {"gripper": "continuous", "rail": "prismatic", "unlogged": "revolute"}
    kinds = ["revolute"] * 3
    record = loaders.load_robot_record(path, JOINTS, units={"q": "deg"}, kinds=kinds, locked=locked)
    assert sorted(record.locked_q) == ["gripper", "rail"] and record.resampled
    np.testing.assert_allclose(record.locked_q["rail"], 0.25)
    np.testing.assert_allclose(np.degrees(record.locked_q["gripper"]), wrist, atol=2.5)
    assert np.all(np.diff(record.locked_q["gripper"]) > 0)  # unwrapped
    assert record.q.shape == (200, 3)
    trimmed = loaders.load_robot_record(
        path, JOINTS, units={"q": "deg"}, kinds=kinds, locked=locked, trim_s=(0.5, 0.5)
    )
    assert trimmed.locked_q["rail"].shape == trimmed.time.shape
    data = data.rename(columns={f"q_{j}": f"Position{i + 1}" for i, j in enumerate(JOINTS)})
    data.to_csv(path, index=False)
    indexed = loaders.load_robot_record(path, JOINTS, columns={"q": "Position{i}"}, locked=locked)
    assert dict(indexed.locked_q) == {}


def test_a_prismatic_joints_columns_stay_in_si_whatever_the_units(uniform: Path):
    """units of q, dq and tau convert revolute and continuous joints only: a lift logged in m,
    m/s and N beside arm joints in deg, deg/s and N mm keeps its values (its force was read
    1000x too small, and the identified mass above it came out negative)."""
    kinds = ["revolute", "prismatic", "continuous"]
    units = {"q": "deg", "dq": "deg/s", "tau": "N mm"}
    record = loaders.load_robot_record(uniform, JOINTS, units=units, kinds=kinds)
    plain = loaders.load_robot_record(uniform, JOINTS)
    converted = np.array([np.pi / 180.0, 1.0, np.pi / 180.0])
    np.testing.assert_allclose(record.q, plain.q * converted, rtol=1e-15)
    np.testing.assert_allclose(record.dq, plain.dq * converted, rtol=1e-15)
    np.testing.assert_allclose(record.tau, plain.tau * np.array([1e-3, 1.0, 1e-3]), rtol=1e-15)


def _units_row(path: Path, units: dict[str, str]) -> Path:
    """The ``uniform`` log at ``path`` with a units row below its header: ``units`` per column,
    '' elsewhere."""
    frame(np.arange(2000) / 1000.0).to_csv(path, index=False)
    lines = path.read_text().splitlines()
    lines.insert(1, ",".join(units.get(column, "") for column in lines[0].split(",")))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_units_row_agrees_with_each_joints_units_or_names_the_columns(uniform: Path):
    """A logger's units row (deg, deg/s, N m per joint; a prismatic joint's mm) was data row 1
    (not a number); it is read as the file's statement of units: where it agrees the log reads
    as without it, where it differs each column is named with the setting that reads it."""
    plain = loaders.load_robot_record(uniform, JOINTS, units={"q": "deg", "dq": "deg/s"})
    given = {f"q_{j}": "deg" for j in JOINTS} | {f"dq_{j}": "[deg/s]" for j in JOINTS}
    given |= {"time": "s", **{f"tau_{j}": "Nm" for j in JOINTS}}
    path = _units_row(uniform.with_name("units.csv"), given)
    record = loaders.load_robot_record(path, JOINTS, units={"q": "deg", "dq": "deg/s"})
    np.testing.assert_array_equal(record.q, plain.q)
    np.testing.assert_array_equal(record.tau, plain.tau)
    with pytest.raises(
        InputError,
        match=r"units row \(file line 2\), 'q_shoulder' is in deg \(read as rad\); "
        r"'q_elbow' is in deg .*'dq_wrist' is in deg/s \(read as rad/s\): set units.q: 'deg', "
        r"units.dq: 'deg/s' in the record's config",
    ):
        loaders.load_robot_record(path, JOINTS)
    kinds = ["revolute", "prismatic", "revolute"]
    lift = _units_row(
        uniform.with_name("lift.csv"),
        given | {"q_elbow": "mm", "dq_elbow": "m/s", "tau_elbow": "N"},
    )
    with pytest.raises(
        InputError,
        match=r"2\), 'q_elbow' is in mm \(a prismatic joint's is read in m\): set scale: "
        r"\{\"q_elbow\": 0.001\} in the record's config",
    ):
        loaders.load_robot_record(lift, JOINTS, units={"q": "deg", "dq": "deg/s"}, kinds=kinds)
    # so set, the column is read in m and the units row, which names the file's mm, stands
    # aside for it (a SCARA's quill log was refused whatever its config said)
    spec = {"path": lift, **vars(io.CsvFormat()), "scale": {"q_elbow": 0.001}}
    units = {"q": "deg", "dq": "deg/s"}
    scaled = records.record_from_table(
        io.read_record(spec), lift, JOINTS, units=units, kinds=kinds, max_jitter=1.0
    )
    slide = loaders.load_robot_record(lift.with_name("units.csv"), JOINTS, units=units)
    np.testing.assert_allclose(scaled.q[:, 1], 1e-3 * pd.read_csv(uniform)["q_elbow"], rtol=1e-15)
    np.testing.assert_array_equal(scaled.q[:, [0, 2]], slide.q[:, [0, 2]])
    # a scale that does not read the units row's unit is named (a revolute angle in degrees
    # read times 0.5 lost its advice); one that reads it, as above, passes
    half = {"path": path, **vars(io.CsvFormat()), "scale": {"q_shoulder": 0.5}}
    with pytest.raises(InputError, match=r"'q_shoulder' is in deg, which the record's scale: 0.5 "):
        records.record_from_table(io.read_record(half), path, JOINTS, max_jitter=1.0)
    odd = _units_row(uniform.with_name("odd.csv"), given)  # a slide's column said in deg
    with pytest.raises(InputError, match=r"'q_elbow' is in deg \(read as m; a prismatic joint"):
        loaders.load_robot_record(odd, JOINTS, units=units, kinds=kinds)


def test_jittered_stamps_are_resampled(tmp_path: Path):
    rng = np.random.default_rng(0)
    step = 1e-3 * rng.choice([0.7, 1.0, 1.0, 1.0, 1.3, 9.0], size=3000)
    t = np.concatenate([[0.0], np.cumsum(step)])
    data = frame(t)
    data[[f"q_{j}" for j in JOINTS]] = np.outer(
        t, [1.0, 2.0, 3.0]
    )  # linear: exact after resampling
    path = tmp_path / "jitter.csv"
    data.to_csv(path, index=False)
    record = loaders.load_robot_record(path, JOINTS)
    assert record.resampled and record.jitter == pytest.approx(8.0)
    assert record.sample_rate_hz == pytest.approx(1000.0)
    np.testing.assert_allclose(np.diff(record.time), 1e-3, rtol=1e-9)
    np.testing.assert_allclose(record.q, np.outer(record.time, [1.0, 2.0, 3.0]), atol=1e-12)
    with pytest.raises(InputError, match="jitter 8 .* exceeds the tolerance 5"):
        loaders.load_robot_record(path, JOINTS, max_jitter=5.0)
    # as rule robot_record writes it, then reads back: the same samples, not resampled again
    units = [{"q": "rad", "dq": "rad/s", "tau": "N m"}] * len(JOINTS)
    channels = {"q": record.q, "dq": record.dq, "tau": record.tau}
    written, _ = study.channel_frame(record.time, channels, JOINTS, units)
    again = records.written_record(written, "written.parquet", JOINTS)
    assert not again.resampled
    np.testing.assert_array_equal(again.q, record.q)
    np.testing.assert_array_equal(again.time, record.time)
    # a written record off its grid is a stage's defect: refused, not resampled a second time
    with pytest.raises(
        InputError,
        match=r"^written\.parquet: not the record rule robot_record .*"
        r"\(time-stamp jitter 8 .*--forcerun robot_record$",
    ):
        records.written_record(data, "written.parquet", JOINTS)


def test_a_resampled_unix_time_log_is_on_its_grid_from_zero(tmp_path: Path):
    """Jittered Unix-time stamps (1.7e9 s: doubles 2.4e-7 s apart) are resampled onto k·Δ
    exactly, not onto t₀ + k·Δ less t₀, which kept t₀'s rounding: the record rule wrote such
    a time and the signals rule, reading it back on its grid, refused it as jittered."""
    rng = np.random.default_rng(1)
    t = 1.7e9 + np.arange(3000) * 1e-3 + rng.uniform(-2e-4, 2e-4, 3000)
    frame(t).to_csv(path := tmp_path / "unix.csv", index=False, float_format="%.17g")
    record = loaders.load_robot_record(path, JOINTS)
    assert record.resampled
    np.testing.assert_array_equal(record.time, np.arange(record.time.size) * record.time[1])
    units = [{"q": "rad", "dq": "rad/s", "tau": "N m"}] * len(JOINTS)
    channels = {"q": record.q, "dq": record.dq, "tau": record.tau}
    written, _ = study.channel_frame(record.time, channels, JOINTS, units)
    np.testing.assert_array_equal(records.written_record(written, "w", JOINTS).q, record.q)


def test_trim_drops_both_ends_and_restarts_time(tmp_path: Path):
    t = np.arange(10) / 10.0
    data = frame(t)
    path = tmp_path / "r.csv"
    data.to_csv(path, index=False)
    whole = loaders.load_robot_record(path, JOINTS)
    trimmed = loaders.load_robot_record(path, JOINTS, trim_s=(0.2, 0.3))  # keeps t = 0.2 ... 0.6
    assert trimmed.rows_trimmed == 5 and whole.rows_trimmed == 0
    np.testing.assert_allclose(trimmed.time, [0.0, 0.1, 0.2, 0.3, 0.4])
    np.testing.assert_array_equal(trimmed.q, whole.q[2:7])
    np.testing.assert_array_equal(trimmed.dq, whole.dq[2:7])
    np.testing.assert_array_equal(trimmed.tau, whole.tau[2:7])
    assert trimmed.sample_rate_hz == pytest.approx(10.0)
    with pytest.raises(InputError, match=r"trim_start_s = 0\.5 s and trim_end_s = 0\.5 s leave"):
        loaders.load_robot_record(path, JOINTS, trim_s=(0.5, 0.5))


def test_a_gap_is_trimmed_away_before_the_stamps_are_judged(tmp_path: Path):
    """A 500 ms gap near a log's end: trimming it away was refused, the jitter check ran on
    the whole file first; the refusal now says what drops or bridges it."""
    t = np.concatenate([np.arange(900), 1400 + np.arange(100)]) / 1000.0
    path = tmp_path / "gap.csv"
    frame(t).to_csv(path, index=False)
    with pytest.raises(InputError, match=r"a gap or dropped samples\? trim_start_s or trim_end_s"):
        loaders.load_robot_record(path, JOINTS)
    kept = loaders.load_robot_record(path, JOINTS, trim_s=(0.0, 0.6))
    assert kept.time.size == 900 and not kept.resampled and kept.rows_trimmed == 100
    # after a trimmed start the refusal still names the file's row and line
    with pytest.raises(InputError, match=r"worst at data row 901 \(file line 902\)"):
        loaders.load_robot_record(path, JOINTS, trim_s=(0.5, 0.0))


def test_a_half_written_last_line_is_trimmed_away_unread(tmp_path: Path):
    """A logger stopped mid-write leaves a last line short of its torques: it stops the run,
    naming the row, until ``trim_end_s`` drops it; the trimmed rows' cells are not read, and a
    bad cell after a trimmed start names the file's row."""
    path = tmp_path / "cut.csv"
    frame(np.arange(100) / 100.0).to_csv(path, index=False)
    with path.open("a") as handle:
        handle.write("1.0,0.1,0.2\n")  # time and one angle of the 101st row
    with pytest.raises(
        InputError, match=r"cut\.csv: columns 'q_elbow' \(q\), .* are not finite "
    ) as cut:
        loaders.load_robot_record(path, JOINTS)
    assert str(cut.value).count("data row 101 (file line 102)") == 1  # said once for the line
    kept = loaders.load_robot_record(path, JOINTS, trim_s=(0.0, 0.005))
    assert kept.time.size == 100 and kept.rows_trimmed == 1
    data = frame(np.arange(100) / 100.0)
    data["tau_elbow"] = data["tau_elbow"].astype(object)
    data.loc[60, "tau_elbow"] = "x"
    data.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"'tau_elbow' \(tau\) .* data row 61 \(file line 62"):
        loaders.load_robot_record(path, JOINTS, trim_s=(0.5, 0.0))


def test_a_last_line_cut_inside_a_read_number_is_named(tmp_path: Path):
    """A logger stopped mid-write leaves a last line without a line break whose last field may
    be cut inside its number (``0.3`` of ``0.3417``): it read as that number.  Where that
    field is a column the record reads it stops the run naming the line and the column, until
    ``trim_end_s`` drops it; cut in a column not read, or ended by a line break, it passes."""
    data = frame(np.arange(100) / 100.0).assign(note=1.0)  # a last column the record never reads
    last = data.iloc[-1]
    path = tmp_path / "cut.csv"
    data.iloc[:-1].to_csv(path, index=False)
    head = ",".join(f"{value!r}" for value in last.iloc[:-2])  # time ... dq_wrist
    with path.open("a") as handle:
        handle.write(f"{head},{last['tau_wrist']:.6f}"[:-3])  # tau_wrist cut, no line break
    with pytest.raises(InputError) as cut:
        loaders.load_robot_record(path, JOINTS)
    assert re.search(
        r"cut\.csv: the last line ends without a line break after 10 of 11 fields, in column "
        r"'tau_wrist' at data row 100 \(file line 101\): a line cut short",
        str(cut.value),
    )
    kept = loaders.load_robot_record(path, JOINTS, trim_s=(0.0, 0.005))
    np.testing.assert_array_equal(kept.tau, data.iloc[:99, [3, 6, 9]].to_numpy())
    with path.open("a") as handle:
        handle.write(",")  # the cut is in 'note' now, which is not read
    whole = loaders.load_robot_record(path, JOINTS)
    assert whole.time.size == 100 and whole.tau[-1, 2] == round(last["tau_wrist"], 3)
    assert records.record_from_table(data, path, JOINTS, max_jitter=10.0).tau.shape == (
        100,
        3,
    )  # a frame made otherwise has no file to look at


def test_an_unreadable_time_cell_in_a_trimmed_end_is_dropped(tmp_path: Path):
    """A time cell without a number in a trimmed end stopped the load; it is dropped with the
    rows the trim drops, and one in the rows kept still names its row."""
    data = frame(np.arange(200) / 100.0)
    data["time"] = data["time"].astype(object)
    data.loc[[0, 10], "time"] = ["", "-"]
    data.to_csv(path := tmp_path / "start.csv", index=False)
    with pytest.raises(InputError, match=r"start\.csv: column 'time' .* data row 1 \(file line 2"):
        loaders.load_robot_record(path, JOINTS)
    kept = loaders.load_robot_record(path, JOINTS, trim_s=(0.5, 0.0))  # from 0.01 s: 0.51-1.99 s
    assert kept.time.size == 149 and kept.rows_trimmed == 51
    np.testing.assert_array_equal(kept.q, frame(np.arange(200) / 100.0).iloc[51:, 1::3])
    data.loc[100, "time"] = "?"
    data.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"'time' \(time\) .* data row 101 \(file line 102\)"):
        loaders.load_robot_record(path, JOINTS, trim_s=(0.5, 0.0))


def test_a_record_says_which_rows_and_values_of_the_file_its_samples_are(tmp_path: Path):
    """The file's data row of each sample (after a trim; the nearest stamp's on a resampled
    grid) and the angle it holds there as logged (its unit, not unwrapped), for the checks'
    messages; a wrapped continuous joint unwraps as numpy does, a step of more than a turn
    (a glitch) by one turn only."""
    t = np.arange(300) / 100.0
    t[150:] += 0.004  # jittered: resampled
    data = frame(t)
    wrapped = np.angle(np.exp(1j * 3.0 * t))
    data["q_wrist"] = np.rad2deg(wrapped)
    data.to_csv(path := tmp_path / "r.csv", index=False)
    kinds = ["revolute", "revolute", "continuous"]
    record = loaders.load_robot_record(
        path, JOINTS, units={"q": "deg"}, kinds=kinds, trim_s=(0.5, 0)
    )
    assert record.resampled and record.rows is not None and record.q_logged is not None
    assert record.rows[0] == 50 and record.rows[-1] == 299 and record.q_columns[2] == "q_wrist"
    stamps = t[record.rows] - t[50]
    assert np.all(np.abs(stamps - record.time) <= 0.005 + 1e-12)
    np.testing.assert_array_equal(record.q_logged[:, 2], data["q_wrist"].to_numpy()[record.rows])
    turns = np.unwrap(wrapped[50:])
    assert np.ptp(record.q[:, 2]) > 2 * np.pi and np.max(np.abs(np.diff(record.q[:, 2]))) < 0.1
    np.testing.assert_array_equal(records.unwrap_turns(wrapped[50:, None]), turns[:, None])
    glitch = wrapped.copy()
    glitch[100] += 2 * np.pi * 50 + 0.3
    unwrapped = records.unwrap_turns(glitch[:, None])[:, 0]
    assert unwrapped[100] - unwrapped[99] > 2 * np.pi * 48  # left a glitch, for the checks
    np.testing.assert_allclose(unwrapped[110:], np.unwrap(wrapped)[110:], atol=1e-9)


def test_missing_joint_column(tmp_path: Path, uniform: Path):
    data = pd.read_csv(uniform).drop(columns="tau_elbow")
    data.to_csv(path := tmp_path / "missing.csv", index=False)
    with pytest.raises(InputError, match=r"missing.csv: missing column 'tau_elbow' \(tau of joint"):
        loaders.load_robot_record(path, JOINTS)


def test_a_velocity_template_that_names_no_column(tmp_path: Path, uniform: Path):
    """A template the user set must match (a typo would silently differentiate q instead)."""
    with pytest.raises(
        InputError, match=r"no column matches columns.dq = 'Velocty\{i\}' \(e.g. 'Velocty1'\)"
    ):
        loaders.load_robot_record(uniform, JOINTS, columns={"dq": "Velocty{i}"})


def test_a_near_miss_column_name_is_shown(tmp_path: Path, uniform: Path):
    """Headers with a stray space match no template; the error shows the closest names (not the
    first ten columns, where they may not be)."""
    data = pd.read_csv(uniform)
    data.columns = [f"{c} " if c.startswith("tau_") else c for c in data.columns]
    data.to_csv(path := tmp_path / "spaced.csv", index=False)
    with pytest.raises(InputError, match=r"closest columns are 'tau_shoulder '"):
        loaders.load_robot_record(path, JOINTS)


def test_a_unit_bearing_header_missing_a_templates_column_shows_the_closest(tmp_path: Path):
    """A header that writes units after the names (``q_shoulder [rad]``): a template without
    them, a column misspelt among them and a time column named without its unit each show
    the file's closest columns, as other missing columns do."""
    units = {"time": "[s]", "q": "[rad]", "dq": "[rad/s]", "tau": "[N m]"}
    data = frame(np.arange(300) / 100.0)
    data.columns = [f"{c} {units[c.split('_')[0]]}" for c in data.columns]
    data = data.rename(columns={"q_wrist [rad]": "q_wirst [rad]"})
    columns = {"time": "time [s]", "q": "q_{joint} [rad]", "dq": "dq_{joint} [rad/s]"}
    with pytest.raises(InputError, match=r"closest columns are 'q_shoulder \[rad\]'"):
        records.record_from_table(data, "x.csv", JOINTS, columns | {"q": "q_{joint}"}, max_jitter=1)
    with pytest.raises(
        InputError,
        match=r"missing column 'q_wrist \[rad\]' .*closest columns are 'q_wirst \[rad\]'",
    ):
        records.record_from_table(data, "x.csv", JOINTS, columns, max_jitter=1)
    with pytest.raises(InputError, match=r"missing time column 'time'; .*closest .* 'time \[s\]'"):
        records.record_from_table(data, "x.csv", JOINTS, columns | {"time": "time"}, max_jitter=1)


@pytest.mark.parametrize("template", ["q{i}_{unit}", "q{i}{0}", "q{i}{"])
def test_a_malformed_column_template(uniform: Path, template: str):
    with pytest.raises(InputError, match=r"columns.q = .* is not a column template"):
        loaders.load_robot_record(uniform, JOINTS, columns={"q": template})


def test_a_column_named_twice(tmp_path: Path, uniform: Path):
    """pandas would read the first and rename the second 'tau_elbow.1'."""
    text = uniform.read_text().splitlines()
    header = text[0].split(",")
    header[header.index("tau_wrist")] = "tau_elbow"
    path = tmp_path / "twice.csv"
    path.write_text("\n".join([",".join(header), *text[1:]]) + "\n")
    with pytest.raises(
        InputError, match=r"twice.csv: the header names column\(s\) \['tau_elbow'\]"
    ):
        loaders.load_robot_record(path, JOINTS)


def test_joint_count_mismatch(tmp_path: Path):
    data = pd.DataFrame({"t": [0.0, 0.1, 0.2, 0.3], **{f"P{i}": 0.0 for i in range(1, 5)}})
    data = data.assign(**{f"T{i}": 0.0 for i in range(1, 4)})
    data.to_csv(path := tmp_path / "four.csv", index=False)
    columns = {"time": "t", "q": "P{i}", "tau": "T{i}"}
    with pytest.raises(InputError, match=r"four.csv: 4 q column\(s\) match 'P\{i\}'.*3 joints"):
        loaders.load_robot_record(path, JOINTS, columns=columns)


def test_a_missing_indexed_column_is_named_not_counted(tmp_path: Path):
    """A log numbered by index that lacks one joint's column: the column is named (the count
    of the template's matches is one short, which said only "joint count mismatch")."""
    data = pd.DataFrame({"t": [0.0, 0.1, 0.2, 0.3], **{f"P{i}": 0.0 for i in range(1, 4)}})
    data = data.assign(T1=0.0, T3=0.0)
    data.to_csv(path := tmp_path / "no_t2.csv", index=False)
    columns = {"time": "t", "q": "P{i}", "tau": "T{i}"}
    with pytest.raises(InputError, match=r"no_t2.csv: missing column 'T2' \(tau of joint 'elbow'"):
        loaders.load_robot_record(path, JOINTS, columns=columns)


def test_listed_columns_read_some_joints_of_a_log_numbered_by_index(tmp_path: Path):
    """A logger numbering 5 joints (J1..J5, one a gripper) of which 3 are identified: listed
    columns read exactly those, in the order of ``joints``; a list of another length, or a
    column the file lacks, is named."""
    t = np.arange(200) / 100.0
    q, dq, _ = motion(t)
    data = {"stamp": t}
    for i in range(1, 6):
        data |= {f"J{i}_pos": 10.0 * i + t, f"J{i}_vel": np.ones_like(t), f"J{i}_eff": -t}
    for j, i in enumerate((4, 1, 2)):  # shoulder is J4, elbow J1, wrist J2
        data |= {f"J{i}_pos": q[:, j], f"J{i}_vel": dq[:, j], f"J{i}_eff": 2.0 * q[:, j]}
    pd.DataFrame(data).to_csv(path := tmp_path / "five.csv", index=False)
    columns = {
        "time": "stamp",
        "q": ["J4_pos", "J1_pos", "J2_pos"],
        "dq": ["J4_vel", "J1_vel", "J2_vel"],
        "tau": ["J4_eff", "J1_eff", "J2_eff"],
    }
    record = loaders.load_robot_record(path, JOINTS, columns=columns)
    np.testing.assert_array_equal(record.q, q)
    np.testing.assert_array_equal(record.dq, dq)
    np.testing.assert_array_equal(record.tau, 2.0 * q)
    with pytest.raises(InputError, match=r"columns.q lists 2 column\(s\).*3 configured joints"):
        loaders.load_robot_record(path, JOINTS, columns=columns | {"q": ["J4_pos", "J1_pos"]})
    with pytest.raises(InputError, match=r"columns.q lists \['J1_pos'\] for more than one"):
        loaders.load_robot_record(
            path, JOINTS, columns=columns | {"q": ["J1_pos", "J1_pos", "J2_pos"]}
        )
    with pytest.raises(InputError, match=r"missing column 'J9_eff' \(tau of joint 'wrist'"):
        loaders.load_robot_record(
            path, JOINTS, columns=columns | {"tau": ["J4_eff", "J1_eff", "J9_eff"]}
        )
    with pytest.raises(InputError, match=r"5 q column\(s\) match.*give columns.q as a list"):
        loaders.load_robot_record(path, JOINTS, columns={"time": "stamp", "q": "J{i}_pos"})


def test_an_interval_of_exactly_one_and_a_half_samples_is_a_gap():
    """A gap is an interval of 1.5 grid intervals or longer, as the warning says: jittered
    stamps exact in binary (multiples of 1/1024 s) with one interval of exactly 1.5 medians."""
    steps = np.random.default_rng(1).integers(900, 1101, size=300).astype(float)
    median = float(np.median(np.r_[steps, 1500.0]))
    steps = np.r_[steps[:100], 1.5 * median, steps[100:]]
    t = np.r_[0.0, np.cumsum(steps)] / 1024.0
    record = records.record_from_table(frame(t), "x.csv", JOINTS, max_jitter=10.0)
    assert record.resampled and record.longest_gap == 1.5 and record.gaps == 1


def test_dropped_samples_bridged_by_interpolation_are_told(tmp_path: Path, uniform: Path):
    """Eight rows dropped (an interval of 9 samples, within the default max_jitter of 10): the
    record is resampled and the warning names the gap, its length and where it lies; the
    uniform file has nothing to tell."""
    assert records.gap_warning(loaders.load_robot_record(uniform, JOINTS), "u") is None
    data = pd.read_csv(uniform).drop(index=range(50, 58))
    data.to_csv(path := tmp_path / "gap.csv", index=False)
    record = loaders.load_robot_record(path, JOINTS)
    assert record.resampled and record.gaps == 1
    assert record.longest_gap == pytest.approx(9.0) and record.gap_at_s == pytest.approx(0.049)
    warning = records.gap_warning(record, "gap")
    assert warning is not None and warning.startswith("gap: 1 interval(s)")
    assert (
        "the longest 9 sample intervals, after data row 50 (file line 51), 0.049 s into" in warning
    )
    trimmed = records.gap_warning(
        loaders.load_robot_record(path, JOINTS, trim_s=(0.02, 0.0)), "gap"
    )
    assert trimmed is not None and "after data row 50 (file line 51), 0.029 s into" in trimmed


def test_a_row_logged_twice_whole_is_left_out(tmp_path: Path, uniform: Path):
    """A row equal to the one before it in every column read (a sample logged twice) is left
    out, the record as if it had been logged once, and told with the file's row; a stamp
    repeated with other values is still refused, and errors after a left-out row name the
    file's own rows."""
    data = pd.read_csv(uniform)
    twice = pd.concat([data.iloc[:701], data.iloc[700:]], ignore_index=True)  # row 701 again
    twice.to_csv(path := tmp_path / "twice.csv", index=False)
    once = loaders.load_robot_record(uniform, JOINTS)
    record = loaders.load_robot_record(path, JOINTS)
    for field in ("time", "q", "dq", "tau"):
        np.testing.assert_array_equal(getattr(record, field), getattr(once, field))
    assert not record.resampled and record.sample_rate_hz == once.sample_rate_hz
    assert (record.repeats_dropped, record.repeat_row, once.repeats_dropped) == (1, 701, 0)
    assert record.rows is not None and record.rows[700] == 700 and record.rows[701] == 702
    note = ingest.repeat_note(record.repeats_dropped, record.repeat_row, record.lines, "twice")
    assert note is not None and note.startswith("twice: 1 row(s) equal to the row before them")
    assert "the first at data row 702 (file line 703)" in note
    assert ingest.repeat_note(0, 0, record.lines, "once") is None
    gap = twice.drop(index=range(1500, 1520)).reset_index(drop=True)  # 20 rows lost
    gap.to_csv(path, index=False)
    after = int(np.flatnonzero(np.diff(gap["time"].to_numpy()) > 0.01)[0]) + 1  # after it
    assert after == 1500  # the file's data row 1501; the record's sample 1499
    with pytest.raises(InputError, match=r"jitter .* data row 1501 \(file line 1502\)"):
        loaders.load_robot_record(path, JOINTS)
    twice.loc[701, "tau_elbow"] += 0.5  # same stamp, another value: which is the sample?
    twice.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"duplicate time stamp 0\.7 s at data row 702 \(file"):
        loaders.load_robot_record(path, JOINTS)


def test_nan_names_the_row(tmp_path: Path, uniform: Path):
    data = pd.read_csv(uniform)
    data.loc[41, "q_wrist"] = np.nan
    data.to_csv(path := tmp_path / "nan.csv", index=False)
    with pytest.raises(
        InputError, match=r"nan.csv: column 'q_wrist' .* data row 42 \(file line 43"
    ):
        loaders.load_robot_record(path, JOINTS)


def test_every_column_with_a_missing_cell_is_named_in_one_error(tmp_path: Path, uniform: Path):
    """An angle's and a torque's missing cells, in other rows: one error names both columns
    with their rows (the torque's went unnamed while the angle's stopped the run)."""
    data = pd.read_csv(uniform)
    data.loc[41, "q_wrist"] = np.nan
    data.loc[20, f"tau_{JOINTS[0]}"] = np.nan
    data.to_csv(path := tmp_path / "nan.csv", index=False)
    with pytest.raises(InputError) as raised:
        loaders.load_robot_record(path, JOINTS)
    head, *listed = str(raised.value).split("\n  - ")
    assert head == f"{path}: 2 defects in cells that must hold numbers:"
    assert listed[0].startswith("column 'q_wrist' (q) is not a finite number at data row 42")
    assert listed[1].startswith(
        f"column 'tau_{JOINTS[0]}' (tau) is not a finite number at data row 21"
    )


@pytest.mark.parametrize(("value", "what"), [(0.0095, "not increasing"), (0.01, "duplicate")])
def test_bad_time_names_the_row(tmp_path: Path, uniform: Path, value: float, what: str):
    data = pd.read_csv(uniform)
    data.loc[11, "time"] = value  # row 10 has t = 0.010
    data.to_csv(path := tmp_path / "time.csv", index=False)
    with pytest.raises(InputError, match=rf"time.csv: .*{what}.* data row 12 \(file line 13\)"):
        loaders.load_robot_record(path, JOINTS)


def test_bad_config_is_named(uniform: Path):
    with pytest.raises(InputError, match="unknown unit 'furlong' for q"):
        loaders.load_robot_record(uniform, JOINTS, units={"q": "furlong"})
    with pytest.raises(InputError, match="names no joint"):
        loaders.load_robot_record(uniform, JOINTS, columns={"q": "angle"})
    with pytest.raises(InputError, match="missing time column 'Time'"):
        loaders.load_robot_record(uniform, JOINTS, columns={"time": "Time"})


def test_real_kinova_layout():
    joints = [f"joint_{i}" for i in range(1, 8)]
    record = loaders.load_robot_record(KINOVA, joints, columns=KINOVA_COLUMNS, units={"time": "ms"})
    assert record.q.shape == (2294, 7) and record.dq is not None and record.tau.shape == (2294, 7)
    assert record.sample_rate_hz == pytest.approx(1000.0) and not record.resampled
    raw = pd.read_csv(KINOVA)
    np.testing.assert_array_equal(record.tau[:, 6], raw["TorqueCur7"].to_numpy())
    processed = signals.process(record, SIGNALS)
    # the filtered measured velocity agrees with the derivative of the filtered angle
    from_angle = signals.process(records.RobotRecord(**{**record.__dict__, "dq": None}), SIGNALS)
    assert np.corrcoef(processed.dq.ravel(), from_angle.dq.ravel())[0, 1] > 0.99


def test_process_is_the_hip_chain_per_joint(uniform: Path):
    record = loaders.load_robot_record(uniform, JOINTS)
    angle_only = records.RobotRecord(**{**record.__dict__, "dq": None})
    out = signals.process(angle_only, SIGNALS)
    for j in range(3):
        hip = pipeline.process(record.time, record.q[:, j], record.tau[:, j], SIGNALS)
        np.testing.assert_array_equal(out.q[:, j], hip.q)
        np.testing.assert_array_equal(out.ddq[:, j], hip.qdd)
        np.testing.assert_array_equal(out.tau[:, j], hip.torque)  # as recorded, not filtered
    assert out.time.size == 2000 - 2 * 100


def test_measured_velocity_is_filtered_and_differentiated_once(uniform: Path):
    record = loaders.load_robot_record(uniform, JOINTS)
    measured = signals.process(record, SIGNALS)
    from_angle = signals.process(records.RobotRecord(**{**record.__dict__, "dq": None}), SIGNALS)
    _, dq, ddq = motion(measured.time)
    middle = slice(300, -300)  # away from the filter's end transients
    for out in (measured, from_angle):
        np.testing.assert_allclose(out.dq[middle], dq[middle], atol=2e-3)
        np.testing.assert_allclose(out.ddq[middle], ddq[middle], atol=2e-2)
    # one differentiation of the measured velocity instead of two of the angle: smaller q̈
    # errors where the end transients remain
    error = np.abs(measured.ddq - ddq).max(axis=0)
    assert np.all(error < 0.2 * np.abs(from_angle.ddq - ddq).max(axis=0)), error


def test_decimation(uniform: Path):
    record = loaders.load_robot_record(uniform, JOINTS)
    full = signals.process(record, SIGNALS)
    every_fifth = signals.process(record, {**SIGNALS, "decimate": 5})
    np.testing.assert_array_equal(every_fifth.q, full.q[::5])
    assert every_fifth.sample_rate_hz == pytest.approx(200.0)
    with pytest.raises(ValueError, match="Nyquist frequency 10 Hz of the decimated rate"):
        signals.process(record, {**SIGNALS, "decimate": 50})
    # decimate is optional, as the docstring says (a notebook's settings: KeyError before)
    plain = {key: value for key, value in SIGNALS.items() if key != "decimate"}
    np.testing.assert_array_equal(signals.process(record, plain).q, full.q)


def diagonal_regressor(q: np.ndarray, dq: np.ndarray, ddq: np.ndarray) -> np.ndarray:
    """(K, n, 2n): per joint an inertia (q̈) and a viscous (q̇) column."""
    eye = np.eye(q.shape[1])
    return np.concatenate([ddq[:, :, None] * eye, dq[:, :, None] * eye], axis=2)


def test_auto_cutoff_rejects_noise_and_keeps_motion():
    rng = np.random.default_rng(1)
    t = np.arange(4000) / 500.0
    q, dq, ddq = motion(t)
    tau = 0.5 * ddq + 0.3 * dq + 0.05 * rng.standard_normal(q.shape)
    angle = q + 1e-3 * rng.standard_normal(q.shape)  # encoder noise, amplified by q̈
    record = records.RobotRecord(t, angle, None, tau, tuple(JOINTS), 500.0, 0.0, False)
    candidates = [1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0, 10.0, 12.0, 15.0, 20.0, 25.0]
    choice = signals.choose_cutoff([record, record], SIGNALS, diagonal_regressor, candidates, 4)
    assert choice.candidates_hz.max() < 0.8 * 250.0
    assert 6.0 <= choice.chosen_hz <= 12.0, choice
    assert choice.cv_rmse[0] > choice.cv_rmse.min() < choice.cv_rmse[-1]


def test_a_record_too_slow_for_the_chosen_cutoff_says_what_to_change(tmp_path: Path):
    """A validation log at 25 Hz under an ``auto`` cutoff of 15 Hz chosen from 1 kHz
    calibration logs ended robot_signals with a traceback that named no record or fix."""
    path = tmp_path / "slow.csv"
    frame(np.arange(500) / 25.0).to_csv(path, index=False)
    slow = loaders.load_robot_record(path, JOINTS)
    source = f"validation record slow ({path})"
    match = r"^robots\.arm\.signals: cutoff 15 Hz .* 12\.5 Hz .* of validation record slow \(/"
    with pytest.raises(UserError, match=match):
        signals.process_chosen(slow, SIGNALS, 15.0, "arm", source)
    assert signals.process_chosen(slow, SIGNALS, 10.0, "arm", source).cutoff_hz == 10.0


def test_a_low_cutoff_drops_the_filters_settling_time_at_each_end():
    """At 1.5 Hz a record loses 1.2 s at each end (the filter's settling to 1 %, longer than
    trim_s): its q̈ then matches the q̈ the same filter gives inside a
    longer record of the same motion, where no end is near, within 3 % of its RMS (2 % here);
    with trim_s alone (0.1 s) the record's ends were off by 40-160 % of it.  At 20 Hz the trim
    stays trim_s."""
    rate = 500.0
    t = np.arange(int(60 * rate)) / rate
    q, _, _ = motion(t)
    angle = q + 1e-4 * np.random.default_rng(6).standard_normal(q.shape)
    inside = slice(int(10 * rate), int(50 * rate))

    def record(rows: slice) -> records.RobotRecord:
        return records.RobotRecord(
            t[rows] - t[rows][0], angle[rows], None, q[rows], tuple(JOINTS), rate, 0.0, False
        )

    long = signals.process_chosen(record(slice(None)), SIGNALS, 1.5, "arm", "long")
    short = signals.process_chosen(record(inside), SIGNALS, 1.5, "arm", "short")
    settle = signals.end_trim_s(SIGNALS["trim_s"], 1.5, rate, SIGNALS["filter_order"])
    assert settle == pytest.approx(1.8 / 1.5, abs=0.03) and short.time[0] == pytest.approx(settle)
    offset = int(round((10.0 + short.time[0] - long.time[0]) * rate))
    reference = long.ddq[offset : offset + short.time.size]
    scale = np.sqrt(np.mean(reference**2, axis=0))
    assert np.all(np.abs(short.ddq - reference).max(axis=0) < 0.03 * scale)
    plain = signals.process(record(inside), SIGNALS, 1.5)  # trim_s alone
    start = int(round((10.0 + plain.time[0] - long.time[0]) * rate))
    edge = np.abs(plain.ddq[:10] - long.ddq[start : start + 10]).max(axis=0)
    assert np.all(edge > 0.3 * scale)
    fast = signals.process_chosen(record(inside), SIGNALS, 20.0, "arm", "short")
    assert fast.time[0] == pytest.approx(SIGNALS["trim_s"])
    with pytest.raises(UserError, match=r"short \(3\.998 s\) keeps 0 samples, fewer than 100"):
        signals.process_chosen(record(slice(0, 2000)), SIGNALS, 0.5, "arm", "short")


def test_a_joint_log_below_a_loggers_lines_is_read_from_its_header_line(
    tmp_path: Path, uniform: Path
):
    """``header_line`` skips a logger's preamble: the joint log reads as the plain file, and a
    bridged gap is named at its data row and at its own line of the file (two lines below)."""
    data = pd.read_csv(uniform).drop(index=range(50, 58))
    data.to_csv(plain := tmp_path / "gap.csv", index=False)
    logged = tmp_path / "logged.csv"
    logged.write_text("# Gen3 logger\n# 1 kHz\n" + plain.read_text())
    record = records.record_from_table(
        io.read_table(logged, io.CsvFormat(header_line=3)),
        logged,
        JOINTS,
        max_jitter=loaders.ROBOT_MAX_JITTER,
    )
    np.testing.assert_array_equal(record.q, loaders.load_robot_record(plain, JOINTS).q)
    warning = records.gap_warning(record, "gap")
    assert warning is not None and "after data row 50 (file line 53)," in warning
    assert logged.read_text().splitlines()[52] == plain.read_text().splitlines()[50]


def test_a_revolute_joints_angle_is_never_unwrapped(tmp_path: Path):
    """Only a continuous joint's angle is unwrapped: a revolute joint's step of more than π
    between two samples is a glitch for the checks to name, kept as the file holds it."""
    t = np.arange(300) / 100.0
    data = frame(t)
    wrapped = np.angle(np.exp(1j * 3.0 * t))  # steps of ~2π where it wraps
    data["q_wrist"] = wrapped
    data.to_csv(path := tmp_path / "r.csv", index=False)
    record = loaders.load_robot_record(path, JOINTS, kinds=["revolute", "revolute", "revolute"])
    np.testing.assert_allclose(record.q[:, 2], wrapped, rtol=0, atol=1e-12)
    assert np.max(np.abs(np.diff(record.q[:, 2]))) > np.pi


def test_a_quantised_log_at_its_own_grid_bridges_no_gap():
    """A 900 Hz log stamped in whole ms steps by 1 or 2 ms (2 ms: 1.8 of its mean interval):
    it is uniform to its stamps' rounding and put on its mean interval's grid without
    interpolation, so nothing was bridged and nothing is told."""
    t = np.round(np.arange(900) / 900.0, 3)
    record = records.record_from_table(frame(t), "x.csv", JOINTS, max_jitter=10.0)
    assert not record.resampled and record.sample_rate_hz == pytest.approx(900.0, rel=1e-3)
    assert np.max(np.diff(t)) >= 1.5 * np.mean(np.diff(t))  # steps a gap's length apart
    assert records.gap_warning(record, "x") is None


def test_a_row_dropped_from_a_log_in_whole_ms_is_told():
    """A 1 kHz log in whole ms (the Gen3's) with one row dropped: its 2 ms step is a gap, not
    a rounding (rounding 1 ms intervals leaves 1 ms steps only), bridged and told with its
    row; it was laid on the grid of the mean interval, every sample after it shifted."""
    t = np.delete(np.arange(2000), 1200) / 1000.0
    record = records.record_from_table(frame(t), "x.csv", JOINTS, max_jitter=10.0)
    assert record.resampled and record.sample_rate_hz == pytest.approx(1000.0, rel=1e-12)
    assert record.gaps == 1 and record.gap_row == 1199 and record.time.size == 2000
    warning = records.gap_warning(record, "x")
    assert warning is not None and "the longest 2 sample intervals, after data row 1200" in warning


def test_a_jittered_clock_is_put_on_its_own_interval_and_bridges_no_gap():
    """±0.3 ms on every stamp of a 1 kHz log (within max_jitter): the grid is the clock's 1 ms,
    the least-squares slope of stamp against sample number (the median interval, one jittered
    interval, was 0.8 % off: 16 samples more, the record stretched), and nothing is told as
    bridged (a 1.6 ms step from an early to a late stamp drops no sample); a sample dropped
    among them is still one gap of two intervals, after its row."""
    t = (np.arange(2000) + np.random.default_rng(0).uniform(-0.3, 0.3, 2000)) / 1000.0
    assert abs(np.median(np.diff(t)) / 1e-3 - 1) > 7e-3 and np.max(np.diff(t)) > 1.5e-3
    record = records.record_from_table(frame(t), "x.csv", JOINTS, max_jitter=10.0)
    assert record.resampled and record.sample_rate_hz == pytest.approx(1000.0, rel=1e-4)
    assert record.time.size in (1999, 2000) and record.gaps == 0
    assert records.gap_warning(record, "x") is None
    dropped = records.record_from_table(frame(np.delete(t, 1200)), "x.csv", JOINTS, max_jitter=10.0)
    assert dropped.sample_rate_hz == pytest.approx(1000.0, rel=1e-4) and dropped.gaps == 1
    assert dropped.longest_gap == pytest.approx(2.0, abs=0.05) and dropped.gap_row == 1199


def test_a_noisy_measured_velocity_is_low_passed():
    """The measured velocity passes the same low-pass as the angle: a 150 Hz ripple on it
    (far above the 10 Hz cutoff) is gone from q̇ and from the q̈ taken from it."""
    t = np.arange(2000) / 1000.0
    q, dq, ddq = motion(t)
    ripple = 0.5 * np.sin(2 * np.pi * 150.0 * t)[:, None] * np.ones(3)
    record = records.RobotRecord(t, q, dq + ripple, 2.0 * q, tuple(JOINTS), 1000.0, 0.0, False)
    out = signals.process(record, SIGNALS)
    _, dq_true, ddq_true = motion(out.time)
    middle = slice(300, -300)  # away from the filter's end transients
    np.testing.assert_allclose(out.dq[middle], dq_true[middle], atol=2e-3)
    np.testing.assert_allclose(out.ddq[middle], ddq_true[middle], atol=2e-2)


def test_the_auto_cutoff_stays_above_the_motion_band():
    """A torque of noise alone scores every candidate alike (within a standard error), so the
    rule would take the lowest; the floor keeps at least BAND_FACTOR (2) x the median over
    joints of the velocity band, which is at least the joints' motion frequencies (0.5, 0.7,
    1.1 Hz: median 0.7 Hz)."""
    rng = np.random.default_rng(3)
    t = np.arange(4000) / 500.0
    q, _, _ = motion(t)
    tau = 0.05 * rng.standard_normal(q.shape)
    record = records.RobotRecord(t, q, None, tau, tuple(JOINTS), 500.0, 0.0, False)
    candidates = [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0]
    choice = signals.choose_cutoff([record, record], SIGNALS, diagonal_regressor, candidates, 4)
    assert choice.floor_hz >= 2 * 0.7
    assert choice.chosen_hz >= choice.floor_hz and choice.chosen_hz >= 2 * 0.7


@pytest.mark.parametrize("ripple_hz", [40.0, 150.0])
def test_a_noisy_logged_velocity_does_not_lift_the_cutoffs_floor(ripple_hz):
    """A logger's velocity with a ripple far above the motion (a differentiated encoder)
    holds most of its power there: its raw band lifted the floor above every candidate and
    the rule fell back to the lowest score, naming a floor of hundreds of Hz.  The band is
    taken within the widest candidate's pass band, where the motion's 0.5-1.1 Hz remain: the
    floor is within 0.5 Hz of the clean velocity's."""
    rng = np.random.default_rng(3)
    t = np.arange(4000) / 500.0
    q, dq, _ = motion(t)
    ripple = 2.0 * np.sin(2 * np.pi * ripple_hz * t)[:, None] * np.ones(3)
    tau = 0.05 * rng.standard_normal(q.shape)
    candidates = [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0]
    floors = []
    for velocity in (dq, dq + ripple):
        record = records.RobotRecord(t, q, velocity, tau, tuple(JOINTS), 500.0, 0.0, False)
        choice = signals.choose_cutoff([record], SIGNALS, diagonal_regressor, candidates, 4)
        assert choice.chosen_hz >= choice.floor_hz
        floors.append(choice.floor_hz)
    assert 2 * 0.7 <= floors[0] <= floors[1] <= floors[0] + 0.5


def test_candidates_a_decimated_slow_record_cannot_hold_are_named():
    """Records at 500 and 125 Hz decimated by 4: the slower one keeps 31.25 Hz, so the
    candidates from 12.5 Hz up are not scored for any record, and the rule says which and
    why (they were dropped from the curve without a word)."""
    rng = np.random.default_rng(5)
    parts = []
    for rate in (500.0, 125.0):
        t = np.arange(int(8 * rate)) / rate
        q, dq, ddq = motion(t)
        tau = 0.5 * ddq + 0.3 * dq + 0.05 * rng.standard_normal(q.shape)
        parts.append(records.RobotRecord(t, q, None, tau, tuple(JOINTS), rate, 0.0, False))
    candidates = [2.0, 4.0, 8.0, 12.0, 12.5, 20.0]
    settings = {**SIGNALS, "decimate": 4}
    choice = signals.choose_cutoff(parts, settings, diagonal_regressor, candidates, 4)
    assert choice.candidates_hz.tolist() == [2.0, 4.0, 8.0, 12.0]
    assert "; candidates 12.5, 20 Hz left out: not below 80 % of the Nyquist frequency" in (
        choice.rule
    )
    assert "(31.25 Hz after signals.decimate = 4)" in choice.rule
    whole = signals.choose_cutoff(parts[:1], SIGNALS, diagonal_regressor, candidates, 4)
    assert "left out" not in whole.rule


def test_a_floor_above_every_candidate_says_so():
    """Velocity noise spread over the whole pass band puts the floor above every candidate:
    the rule takes the lowest score and its text says why instead of naming a floor no
    candidate met."""
    rng = np.random.default_rng(4)
    t = np.arange(4000) / 500.0
    q, dq, _ = motion(t)
    noisy = dq + 20.0 * rng.standard_normal(q.shape)
    tau = 0.05 * rng.standard_normal(q.shape)
    record = records.RobotRecord(t, q, noisy, tau, tuple(JOINTS), 500.0, 0.0, False)
    candidates = [0.5, 1.0, 2.0, 3.0]
    choice = signals.choose_cutoff([record], SIGNALS, diagonal_regressor, candidates, 4)
    assert choice.floor_hz > max(candidates)
    assert choice.chosen_hz == choice.candidates_hz[np.argmin(choice.cv_rmse)]
    assert "above every candidate" in choice.rule


def test_a_floor_no_close_score_meets_says_so(monkeypatch):
    """Candidates at or above the floor exist, but none scores within one standard error of
    the lowest (which lies below the floor): the lowest score is taken, and the rule says so
    instead of naming a floor the choice does not meet."""
    scores = {0.5: 1.0, 1.0: 1.0, 2.0: 1.0}
    calls = iter([0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0])

    def fake(data):
        cut = next(calls)
        base = scores.get(cut, 3.0)
        return np.array([base - 0.01, base + 0.01, base, base])

    monkeypatch.setattr(signals, "_cv_scores", fake)
    t = np.arange(4000) / 500.0
    q, _, _ = motion(t)
    record = records.RobotRecord(t, q, None, q.copy(), tuple(JOINTS), 500.0, 0.0, False)
    candidates = [0.5, 1.0, 2.0, 3.0, 4.0, 6.0, 8.0]
    choice = signals.choose_cutoff([record], SIGNALS, diagonal_regressor, candidates, 4)
    assert choice.chosen_hz == 0.5 < choice.floor_hz <= 8.0
    assert "no candidate at or above it scores within one standard error" in choice.rule


def test_the_auto_cutoffs_standard_error_is_over_the_folds(monkeypatch):
    """Each candidate's score is the mean of its fold scores and its standard error their
    sample standard deviation over √folds (here 4 folds scoring 1, 2, 3, 4 N m: mean 2.5,
    s.e. √(5/3) / 2)."""
    monkeypatch.setattr(signals, "_cv_scores", lambda data: np.array([1.0, 2.0, 3.0, 4.0]))
    t = np.arange(4000) / 500.0
    q, _, _ = motion(t)
    record = records.RobotRecord(t, q, None, q.copy(), tuple(JOINTS), 500.0, 0.0, False)
    choice = signals.choose_cutoff([record], SIGNALS, diagonal_regressor, [4.0, 8.0], 4)
    np.testing.assert_allclose(choice.cv_rmse, [2.5, 2.5])
    np.testing.assert_allclose(choice.cv_se, [np.sqrt(5.0 / 3.0) / 2.0] * 2)


@pytest.mark.parametrize(
    ("before", "after", "dropped"),
    [(1500, 700, (1.4, 0.6)), (1500, 300, (1.4, 0.0)), (400, 300, (0.0, 0.0))],
)
def test_a_log_loses_its_long_rest_at_the_ends(before, after, dropped):
    """Rest of more than 0.5 s at an end of a joint log is trimmed to 0.1 s (a
    cross-validation block without motion misled the cutoff, the prior's weight and the
    friction laws); shorter rest is how a motion begins and is kept; without ``drop_rest``
    (``checks.skip: [rest_at_ends]``) the whole log is kept."""
    t = np.arange(3000) / 1000.0
    motion_only = frame(t)
    spec = {
        "path": "cal.csv",
        "columns": {},
        "units": {},
        "max_jitter": 10.0,
        "trim_start_s": 0.0,
        "trim_end_s": 0.0,
    }
    kinds = ["revolute"] * 3
    padded = loaders.with_rest(motion_only, before, after)
    record, rest = records.log_record(padded, spec, JOINTS, kinds=kinds, drop_rest=True)
    np.testing.assert_allclose(rest, dropped, atol=1.5e-3)
    whole, none = records.log_record(padded, spec, JOINTS, kinds=kinds)
    assert none == (0.0, 0.0) and whole.time.size == padded.shape[0]
    start = round(rest[0] * 1000)
    assert record.time[0] == 0.0 and record.time.size == whole.time.size - round(sum(rest) * 1000)
    # the file's time of the record's 0: its first stamp, after the rest dropped there
    assert whole.start_in_file_s == padded["time"].iloc[0]
    assert record.start_in_file_s == pytest.approx(padded["time"].iloc[0] + rest[0], abs=1e-9)
    np.testing.assert_array_equal(record.q, whole.q[start : start + record.time.size])
    np.testing.assert_array_equal(record.tau, whole.tau[start : start + record.time.size])
    if any(rest):
        warning = plausibility.rest_warning("cal", rest)
        assert "checks.skip: [rest_at_ends]" in warning
        assert all(f"{v:g} s at its" in warning for v in rest if v)


def _joint_states(t: np.ndarray, order: list[str]) -> pd.DataFrame:
    """A ROS JointState export (``rostopic echo -p``): ``field.name{k}`` beside
    ``field.position{k}``, ``field.velocity{k}``, ``field.effort{k}``, slots in ``order`` (a
    gripper finger's among them)."""
    base = frame(t)
    data: dict[str, object] = {"%time": (1.7e18 + t * 1e9).astype(np.int64)}
    for k, name in enumerate(order):
        data[f"field.name{k}"] = name
    for key, prefix in (("position", "q"), ("velocity", "dq"), ("effort", "tau")):
        for k, name in enumerate(order):
            data[f"field.{key}{k}"] = base[f"{prefix}_{name}"] if name in JOINTS else 0.02
    return pd.DataFrame(data)


def test_a_ros_log_is_read_by_the_joint_names_it_holds(tmp_path: Path):
    """``columns.names``: each joint is read from the slot its name holds (ROS orders them
    alphabetically, a gripper finger among them): the record equals the default layout's; a
    locked finger's angle is read too; a joint the log does not name, a non-indexed template
    and names that change order mid-log are each one error naming the file."""
    t = np.arange(1000) / 500.0
    order = ["elbow", "finger", "shoulder", "wrist"]
    _joint_states(t, order).to_csv(path := tmp_path / "js.csv", index=False)
    frame(t).to_csv(plain := tmp_path / "plain.csv", index=False)
    columns = {
        "time": "%time",
        "names": "field.name{i0}",
        "q": "field.position{i0}",
        "dq": "field.velocity{i0}",
        "tau": "field.effort{i0}",
    }
    ros = loaders.load_robot_record(
        path, JOINTS, columns, {"time": "ns"}, locked={"finger": "prismatic"}
    )
    reference = loaders.load_robot_record(plain, JOINTS)
    np.testing.assert_allclose(ros.q, reference.q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ros.tau, reference.tau, rtol=0, atol=1e-12)
    assert ros.q_columns == ("field.position2", "field.position0", "field.position3")
    np.testing.assert_array_equal(ros.locked_q["finger"], 0.02)
    one_based = {**columns, "names": "field.name{i}", "q": "field.position{i}"}
    with pytest.raises(InputError, match=r"has 'field.name0': it numbers its slots from 0"):
        loaders.load_robot_record(path, JOINTS, one_based, {"time": "ns"})
    # names by {i0}, angles by {i}: every joint one slot off (a gripper's angle read as the
    # wrist's, told later as a torque in another unit)
    mixed = {**columns, "q": "field.position{i}"}
    with pytest.raises(InputError, match=r"numbers the log's slots with \{i0\}, columns.q = "):
        loaders.load_robot_record(path, JOINTS, mixed, {"time": "ns"})
    with pytest.raises(InputError, match=r"\['forearm'\] are not among the names .* \['elbow'"):
        loaders.load_robot_record(path, [*JOINTS, "forearm"], columns, {"time": "ns"})
    # a name in two slots, an empty slot, a bad template field
    twice = _joint_states(t, order)
    twice["field.name3"] = "elbow"
    twice.to_csv(doubled := tmp_path / "twice.csv", index=False)
    with pytest.raises(InputError, match=r"'elbow' is named in two slots, 'field.name0' and 'fi"):
        loaders.load_robot_record(doubled, JOINTS, columns, {"time": "ns"})
    empty = _joint_states(t, order)
    empty["field.name1"] = np.nan  # the finger's slot names nothing
    empty.to_csv(unnamed := tmp_path / "empty.csv", index=False)
    read = loaders.load_robot_record(unnamed, JOINTS, columns, {"time": "ns"})
    np.testing.assert_allclose(read.q, reference.q, rtol=0, atol=1e-12)
    with pytest.raises(InputError, match=r"columns.q = 'field.position\{i0\}\{x\}' is not a col"):
        loaders.load_robot_record(
            path, JOINTS, {**columns, "q": "field.position{i0}{x}"}, {"time": "ns"}
        )
    with pytest.raises(InputError, match=r"columns.names = 'field.name0' must number"):
        loaders.load_robot_record(path, JOINTS, {**columns, "names": "field.name0"}, {"time": "ns"})
    swapped = _joint_states(t, order)
    swapped.loc[700:, ["field.name0", "field.name2"]] = ["shoulder", "elbow"]
    swapped.to_csv(path, index=False)
    with pytest.raises(InputError, match=r"js.csv: the joint names .* change at data row 701"):
        loaders.load_robot_record(path, JOINTS, columns, {"time": "ns"})
    # the start-up's held-out check of two such records compares them by name, not over the
    # whole file (it refused them with the advice to do what they did)
    specs = [
        {"path": str(path), "columns": columns, "units": {"time": "ns"}, **trims}
        for trims in (
            {"trim_start_s": 0, "trim_end_s": 0.7},
            {"trim_start_s": 1.4, "trim_end_s": 0},
        )
    ]
    assert records.held_out_angles(pd.read_csv(path), specs[1], specs[0], JOINTS)[2] == []
    # two records of the file with disjoint trims read each part by its own names
    before = loaders.load_robot_record(path, JOINTS, columns, {"time": "ns"}, trim_s=(0, 0.7))
    after = loaders.load_robot_record(path, JOINTS, columns, {"time": "ns"}, trim_s=(1.4, 0))
    np.testing.assert_allclose(before.q, reference.q[: len(before.q)], rtol=0, atol=1e-12)
    assert after.q_columns == ("field.position0", "field.position2", "field.position3")


def test_a_ros2_header_stamp_in_seconds_and_nanoseconds_is_one_time(tmp_path: Path):
    """``columns.time: [header.stamp.sec, header.stamp.nanosec]``: the publisher's stamp, its
    second's fraction in a column of its own (the receive time jitters with the transport's
    latency: a user's 3 lost messages were 167 gaps bridged), read as one time; a pair with
    units.time, or its fields in the other order, is named."""
    t = np.arange(1000) / 500.0
    stamp = 1733560000 * 10**9 + np.round(t * 1e9).astype(np.int64)
    data = _joint_states(t, ["elbow", "shoulder", "wrist"]).drop(columns="%time")
    data.insert(0, "header.stamp.nanosec", stamp % 10**9)
    data.insert(0, "header.stamp.sec", stamp // 10**9)
    data.to_csv(path := tmp_path / "ros2.csv", index=False)
    columns = {
        "time": ["header.stamp.sec", "header.stamp.nanosec"],
        "names": "field.name{i0}",
        "q": "field.position{i0}",
        "dq": "field.velocity{i0}",
        "tau": "field.effort{i0}",
    }
    record = loaders.load_robot_record(path, JOINTS, columns)
    assert not record.resampled and record.sample_rate_hz == pytest.approx(500.0, rel=1e-12)
    np.testing.assert_allclose(record.time, t, rtol=0, atol=1e-12)
    with pytest.raises(InputError, match=r"is seconds and nanoseconds: leave units.time unset"):
        loaders.load_robot_record(path, JOINTS, columns, {"time": "ns"})
    data.loc[40, "header.stamp.nanosec"] = np.nan
    data.to_csv(holed := tmp_path / "holed.csv", index=False)
    with pytest.raises(InputError, match=r"'header.stamp.nanosec' \(time\) is not a finite number"):
        loaders.load_robot_record(holed, JOINTS, columns)
    swapped = {**columns, "time": ["header.stamp.nanosec", "header.stamp.sec"]}
    with pytest.raises(InputError, match=r"'header.stamp.sec' holds 1.73356e\+09 at data row 1"):
        loaders.load_robot_record(path, JOINTS, swapped)
