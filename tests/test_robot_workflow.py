"""Multi-joint robot studies in the workflow (`robots:`; workflow/rules/robot.smk): the shipped
studies plan, a small twin study builds end to end with the promised columns, and bad input
stops the run with one clear error before anything is written."""

from __future__ import annotations

from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pytest
from test_workflow import copy_workflow, planned_jobs, snakemake

from paramid import io, plausibility
from paramid.robot import study, twin

pytestmark = pytest.mark.slow

URDF = "data/kinova_gen3/kinovaGen3.urdf"
JOINTS = [f"joint_{i}" for i in range(1, 8)]
TWIN_BLOCK = f"""\
robots:
  tiny:
    urdf: {URDF}
    joints: {JOINTS}
    twin: {{sample_rate_hz: 100.0, noise: {{torque_noise_nm: [3.3, 3.3, 3.3, 3.3, 0.6, 0.6, 0.6]}}}}
    records:
      calibration: [{{duration_s: 8.0, excitation: {{seed: 1, period_s: 4.0}}}}]
      validation: [{{duration_s: 4.0, excitation: {{seed: 2, period_s: 4.0}}}}]
    signals: {{cutoff_hz: 10.0, trim_s: 0.2}}
    methods: [urdf, ols, wls]
"""
LOG_BLOCK = f"""\
robots:
  mine:
    urdf: {URDF}
    joints: {JOINTS}
    records:
      calibration: [{{path: data/mine/cal.csv}}]
      validation: [{{path: data/mine/val.csv}}]
    signals: {{cutoff_hz: 10.0}}
    methods: [urdf, ols]
"""


def _tables(study: str, twin_study: bool) -> list[str]:
    names = ["validation", "parameters", "consistency", *(["recovery"] if twin_study else [])]
    return [f"results/{study}/tables/{t}.csv" for t in names]


@pytest.fixture()
def workdir(tmp_path, repo_root) -> Path:
    return copy_workflow(repo_root, tmp_path / "wf")


def test_shipped_studies_plan_every_stage(workdir):
    targets = [
        *_tables("kinova_gen3", False),
        *_tables("gen3_twin", True),
        "results/kinova_gen3/figures/torque.png",
    ]
    jobs = planned_jobs(workdir, *targets)
    assert jobs["robot_record"] == 3 + 2  # kinova: 1 calibration + 2 validation logs; twin: 2
    assert jobs["robot_signals"] == 5
    assert jobs["robot_model"] == jobs["robot_compress"] == jobs["robot_friction"] == 2
    assert jobs["robot_fit"] == 5 + 6  # one job per method
    assert jobs["robot_predict"] == 11
    assert jobs["robot_recovery"] == 1
    assert jobs["robot_cutoff"] == 1  # kinova_gen3 chooses its cutoff, the twin fixes it


def test_small_twin_study_builds_its_tables(workdir):
    (workdir / "my.yaml").write_text(TWIN_BLOCK)
    targets = [*_tables("tiny", True), "results/tiny/figures/rmse.png"]
    out = snakemake(workdir, "--cores", "2", *targets, "--configfile", "my.yaml")
    assert out.returncode == 0, out.stderr[-3000:]
    base = pd.read_json(workdir / "results/tiny/model/base.json", typ="series")
    # offset: auto (the default): the model has one per joint, the twin simulates them, and
    # its Fourier excitation (both directions) identifies them all; cross-validation keeps
    # those that stand out of the joint's noise (here joints 5-7: 0.6-0.7 N m of noise)
    assert base["counts"]["standard"] == 91 and base["rank"] == 66
    friction = pd.read_csv(workdir / "results/tiny/tables/friction.csv")
    held = [f"f0_{j}" for j in friction.loc[~friction["offset"], "joint"]]
    assert friction["offset"].tolist() == [False] * 4 + [True] * 3
    validation = pd.read_csv(workdir / "results/tiny/tables/validation.csv")
    assert list(validation.columns) == [
        "method",
        "record",
        "joint",
        "unit",
        "rmse",
        "rel_rmse",
        "cutoff_hz",
        "rmse_below_cutoff",
        "rmse_above_cutoff",
    ]
    assert set(validation["unit"]) == {"N m"}
    parts = validation["rmse_below_cutoff"] ** 2 + validation["rmse_above_cutoff"] ** 2
    np.testing.assert_allclose(parts, validation["rmse"] ** 2, rtol=1e-9)
    # the twin's white torque noise σ lies above the 10 Hz cutoff in the share 1 - 2 f_c / f_s
    ols = validation[validation["method"] == "ols"]
    above = np.asarray(loaders.GEN3_TORQUE_NOISE_NM) * np.sqrt(1 - 2 * 10.0 / 100.0)
    np.testing.assert_allclose(ols["rmse_above_cutoff"], above, rtol=0.15)
    assert len(validation) == 3 * 1 * 7
    rmse = validation.groupby("method")["rmse"].mean()
    assert rmse["ols"] < rmse["urdf"]  # the twin has friction the URDF lacks
    parameters = pd.read_csv(workdir / "results/tiny/tables/parameters.csv")
    ols = parameters[parameters["method"] == "ols"]
    free = ~ols["parameter"].isin(held)
    assert len(ols) == 66 and np.all(ols.loc[free, "stderr"] > 0)
    assert np.all(ols.loc[~free, "value"] == 0) and ols.loc[~free, "stderr"].isna().all()
    assert set(ols["unit"]) == {"kg m", "kg m^2", "N m s/rad", "N m"}  # no mass leads one
    _, meta = io.read_parquet(workdir / "results/tiny/model/compressed.parquet")
    assert meta["units"]["c"] == "N m" and meta["units"]["rho2"] == "(N m)^2"
    assert meta["units"]["Ixx_shoulder_link"] == "N m / (kg m^2)"  # no more "SI"
    assert meta["units"]["fv_joint_1"] == "N m / (N m s/rad)"
    consistency = pd.read_csv(workdir / "results/tiny/tables/consistency.csv")
    assert list(consistency.columns[:4]) == ["method", "link", "mass", "min_eigenvalue"]
    assert len(consistency) == 3 * 7
    recovery = pd.read_csv(workdir / "results/tiny/tables/recovery.csv")
    assert recovery.loc[recovery["method"] == "wls", "covered_95"].mean() >= 0.8


def _write_logs(workdir: Path) -> None:
    """Twin records of the Gen3 stand in for a user's joint logs."""
    robot = loaders.load_robot(workdir / URDF, JOINTS)
    theta = twin.true_parameters(robot, seed=0, inertia_spread=0.0, **loaders.TWIN_FRICTION)
    (workdir / "data/mine").mkdir(parents=True)
    for name, seed in (("cal", 1), ("val", 2)):
        trajectory = twin.excitation(robot, seed=seed, period_s=4.0)
        rec = twin.simulate(robot, theta, trajectory, 4.0, 100.0, loaders.GEN3_NOISE, 0, name)
        rec.frame(JOINTS).to_csv(workdir / f"data/mine/{name}.csv", index=False)


def _edit_log(workdir: Path, edit) -> None:
    path = workdir / "data/mine/cal.csv"
    frame = edit(pd.read_csv(path))
    frame.to_csv(path, index=False)


def _nan(frame: pd.DataFrame) -> pd.DataFrame:
    frame.loc[41, "tau_joint_3"] = np.nan
    return frame


def _backwards(frame: pd.DataFrame) -> pd.DataFrame:
    frame.loc[9, "time"] = frame.loc[7, "time"]
    return frame


@pytest.mark.parametrize(
    ("block", "edit", "patterns"),
    [
        (
            LOG_BLOCK.replace(URDF, "data/none.urdf"),
            None,
            ["robots.mine.urdf = 'data/none.urdf': file not found"],
        ),
        (LOG_BLOCK.replace("'joint_7'", "'joint_9'"), None, ["joint_9", "not in the URDF"]),
        (LOG_BLOCK, lambda f: f.drop(columns="tau_joint_3"), ["cal.csv", "tau_joint_3"]),
        (
            LOG_BLOCK.replace("cal.csv}", "cal.csv, columns: {q: 'q_joint_{i}'}}"),
            lambda f: f.drop(columns="q_joint_7"),
            ["cal.csv", "missing column 'q_joint_7' (q of joint 'joint_7')"],
        ),
        (
            LOG_BLOCK.replace(", 'joint_7'", ""),  # the log's joint_7 moves: not to be locked
            None,
            ["cal.csv", "joint_7: its angle in the log moves", "add it to `joints:`"],
        ),
        (LOG_BLOCK, _nan, ["cal.csv", "tau", "row 42"]),
        (LOG_BLOCK, _backwards, ["cal.csv", "not increasing", "data row 10"]),
        (LOG_BLOCK, lambda f: f.iloc[:80], ["cal.csv", "samples, fewer than 100"]),
        (
            LOG_BLOCK.replace("cutoff_hz: 10.0", "cutoff_hz: 10.0, trim_s: 0.001"),
            None,
            ["cal.csv", "robots.mine.signals.trim_s = 0.001 s is less than one sample"],
        ),
    ],
    ids=[
        "urdf_missing",
        "unknown_joint",
        "missing_column",
        "joint_count",
        "joint_left_out",
        "nan",
        "time_back",
        "too_short",
        "trim_below_a_sample",
    ],
)
def test_bad_input_stops_before_anything_is_written(workdir, block, edit, patterns):
    _write_logs(workdir)
    if edit is not None:
        _edit_log(workdir, edit)
    (workdir / "my.yaml").write_text(block)
    out = snakemake(workdir, "--cores", "1", *_tables("mine", False), "--configfile", "my.yaml")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    for pattern in patterns:
        assert pattern in text, text[-3000:]
    assert "Traceback" not in text and 'File "' not in text, text[-3000:]
    assert "robots.mine" in text, text[-3000:]  # the study is named
    assert not (workdir / "results").exists()


def test_every_bad_record_is_named_in_one_error(workdir):
    """A NaN in the calibration log and time going back in the validation log: both in the
    one error (the second was found only after fixing the first and running again)."""
    _write_logs(workdir)
    _edit_log(workdir, _nan)
    val = workdir / "data/mine/val.csv"
    _backwards(pd.read_csv(val)).to_csv(val, index=False)
    (workdir / "my.yaml").write_text(LOG_BLOCK)
    out = snakemake(workdir, "--cores", "1", *_tables("mine", False), "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "2 records have problems" in text, text[-3000:]
    assert "cal.csv: column 'tau_joint_3'" in text and "data row 42" in text, text[-3000:]
    assert "val.csv: time is not increasing at data row 10" in text, text[-3000:]
    assert not (workdir / "results").exists()


def test_auto_cutoff_is_chosen_on_the_calibration_records(workdir):
    """signals.cutoff_hz: auto runs robot_cutoff before the signal chain of every record."""
    (workdir / "my.yaml").write_text(
        TWIN_BLOCK.replace("cutoff_hz: 10.0", "cutoff_hz: auto").replace(
            "methods: [urdf, ols, wls]", "methods: [ols]"
        )
    )
    out = snakemake(
        workdir, "--cores", "2", "results/tiny/tables/validation.csv", "--configfile", "my.yaml"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    choices = sorted((workdir / "results/tiny").rglob("cutoff*.json"))
    assert choices, "no cutoff choice written"
    cutoff = io.read_json(choices[0])
    # the rule: the lowest candidate at or above the motion's band within one SE of the best
    hz, mean, se = (np.array(cutoff[k]) for k in ("candidates_hz", "cv_rmse", "cv_se"))
    assert np.all(hz < 0.8 * 100.0 / 2)  # below 0.8 x Nyquist of the 100 Hz twin
    best = np.argmin(mean)
    within = (hz >= cutoff["floor_hz"]) & (mean <= mean[best] + se[best])
    assert cutoff["chosen_hz"] == hz[within].min()


def test_a_torque_logged_the_other_way_round_is_read_by_negate(workdir):
    """A joint whose torque sensor counts against the URDF's axis: the sign check names the
    joint and the setting; ``negate:`` reads the column inverted and the file stays as written."""
    _write_logs(workdir)
    for name in ("cal", "val"):
        path = workdir / f"data/mine/{name}.csv"
        frame = pd.read_csv(path)
        frame["tau_joint_2"] *= -1
        frame.to_csv(path, index=False)
    (workdir / "my.yaml").write_text(LOG_BLOCK)
    out = snakemake(workdir, "-n", *_tables("mine", False), "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "joint_2" in text and "negate: ['tau_joint_2']" in text, text[
        -3000:
    ]
    block = LOG_BLOCK.replace(
        "{path: data/mine/cal.csv}", "{path: data/mine/cal.csv, negate: [tau_joint_2]}"
    )
    block = block.replace(
        "{path: data/mine/val.csv}", "{path: data/mine/val.csv, negate: [tau_joint_2]}"
    )
    (workdir / "my.yaml").write_text(block)
    out = snakemake(workdir, "-n", *_tables("mine", False), "--configfile", "my.yaml")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]


def test_the_urdf_of_a_method_that_exports_none_is_refused_with_why(workdir):
    """`model/ols.urdf` asked for: which methods give a URDF and why, not "No rule to
    produce"."""
    _write_logs(workdir)
    (workdir / "my.yaml").write_text(LOG_BLOCK)
    out = snakemake(workdir, "-n", "results/mine/model/ols.urdf", "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "paramid: results/mine/model/ols.urdf: only a physically consistent" in text, text[
        -2000:
    ]
    assert "No rule to produce" not in text and "Traceback" not in text


def test_robot_record_drops_a_long_rest_and_says_so(workdir):
    """Two seconds held before a user's calibration log (1 s after it): robot_record writes
    the record without all but 0.1 s of each rest, logs a warning and records the seconds in
    the metadata; the validation log, without rest, is written whole. The warning is a row of
    tables/warnings.csv too (it was only in the job's log)."""
    _write_logs(workdir)
    path = workdir / "data/mine/cal.csv"
    log = pd.read_csv(path)
    step = log["time"].iloc[1] - log["time"].iloc[0]  # 10 ms
    held = loaders.with_rest(log, 200, 100)
    held.to_csv(path, index=False)
    (workdir / "my.yaml").write_text(LOG_BLOCK)
    records = ["results/mine/records/cal.parquet", "results/mine/records/val.parquet"]
    table = "results/mine/tables/warnings.csv"
    out = snakemake(workdir, "--cores", "1", *records, table, "--configfile", "my.yaml")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    cal, meta = io.read_parquet(workdir / records[0])
    rest = meta["rest_dropped_s"]
    q = log[[f"q_{joint}" for joint in JOINTS]].to_numpy()
    own = plausibility.rest_at_ends(log["time"].to_numpy(), q)  # the excitation starts at rest
    np.testing.assert_allclose(rest, (own[0] + 2.0 - 0.1, own[1] + 1.0 - 0.1), atol=1e-9)
    assert len(cal) == pytest.approx(len(held) - (rest[0] + rest[1]) / step, abs=1)
    warning = (workdir / "logs/mine/robot_record_cal.log").read_text()
    assert "cal: at rest" in warning and "checks.skip: [rest_at_ends]" in warning
    (told,) = meta["warnings"]
    assert told.startswith("cal: at rest") and told in warning
    rows = pd.read_csv(workdir / table)
    assert rows[rows["warning"] == told]["method"].tolist() == [study.RECORDS_ROW]
    val, meta = io.read_parquet(workdir / records[1])
    assert meta["warnings"] == []
    assert meta["rest_dropped_s"] == [0.0, 0.0] and len(val) == len(
        pd.read_csv(workdir / "data/mine/val.csv")
    )
