"""A user's own study: one config block, own CSV files, no rule touched; bad input stops the
run before anything of that study is written."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pytest
from test_workflow import copy_workflow, planned_jobs, snakemake

from paramid import io, plausibility, simulation
from paramid.hip import twin

pytestmark = pytest.mark.slow

USER_BLOCK = """\
studies:
  mine:
    records:
      calibration: {path: data/mine/cal.csv, units: {angle: rad, torque: N m}}
      validation:  {path: data/mine/val.csv, header_line: 3, units: {angle: deg, torque: N m}}
    regressor: [g_sin_q, g_cos_q, qdd, sign_qd, qd, offset]
"""


def _write_records(workdir: Path, hip: dict) -> None:
    """Twin records stand in for a user's measurements (validation written in degrees below
    two lines of a logger's, which ``header_line`` skips)."""
    names = ["Mxt", "Myt", "Jt", "fc", "fv"]
    settings = twin.TwinSettings.from_config({**hip["twin"], "gravity": 9.81}, names)
    settings = dataclasses.replace(settings, x_true=(1.2, 0.1, 0.9, 0.5, 1.5))
    (workdir / "data/mine").mkdir(parents=True)
    for record, file, scale in (
        ("calibration", "cal.csv", 1.0),
        ("validation", "val.csv", 180 / np.pi),
    ):
        spec = hip["records"][record]
        rec = twin.simulate(
            simulation.Trajectory.from_config(spec["trajectory"]),
            spec["duration_s"],
            settings,
            5,
            record,
        )
        table = pd.DataFrame(
            {"time": rec.time, "angle": rec.angle * scale, "torque": rec.torque + 0.3}
        ).to_csv(index=False)
        preamble = "Logger v2, hip joint\n# angle in degrees\n" if record == "validation" else ""
        (workdir / "data/mine" / file).write_text(preamble + table)


@pytest.fixture()
def user_workdir(tmp_path, repo_root, hip) -> Path:
    workdir = copy_workflow(repo_root, tmp_path / "wf")
    _write_records(workdir, hip)
    (workdir / "my.yaml").write_text(USER_BLOCK)
    return workdir


def test_user_block_adds_a_study_next_to_the_shipped_ones(user_workdir):
    jobs = planned_jobs(user_workdir, "all", "--configfile", "my.yaml")
    assert jobs["hip_ingest"] == 4  # pendulum's two records and the user's two
    out = snakemake(
        user_workdir,
        "--cores",
        "2",
        "results/mine/tables/table3.csv",
        "results/mine/tables/table4.csv",
        "--configfile",
        "my.yaml",
    )
    assert out.returncode == 0, out.stderr[-3000:]
    t3 = pd.read_csv(user_workdir / "results/mine/tables/table3.csv").set_index("method")
    t4 = pd.read_csv(user_workdir / "results/mine/tables/table4.csv").set_index("method")
    assert set(t3.index) == {"LS", "BCLS", "PSO", "RLS-PSO", "RLS-GA", "RLS-GWO", "RLS-AGWO"}
    # the twin behind the CSVs has Jt = 0.9, fc = 0.5 and a 0.3 N m offset: recovered
    assert t4.loc["BCLS", "Jt"] == pytest.approx(0.9, abs=0.01)
    assert t4.loc["BCLS", "tau0"] == pytest.approx(0.3, abs=0.05)
    assert t3.loc["BCLS", "val_mean"] < 0.15


def _fails_cleanly(workdir: Path, *patterns: str) -> str:
    out = snakemake(workdir, "--cores", "1", "all", "--configfile", "my.yaml")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    for pattern in patterns:
        assert pattern in text, text[-3000:]
    assert not (workdir / "results").exists()  # nothing of any study was written
    return text


def test_nan_in_user_record_stops_before_anything_is_written(user_workdir):
    path = user_workdir / "data/mine/cal.csv"
    frame = pd.read_csv(path)
    frame.loc[41, "torque"] = np.nan
    frame.to_csv(path, index=False)
    _fails_cleanly(user_workdir, "data/mine/cal.csv", "column 'torque'", "data row 42")


def test_record_changed_after_a_clean_start_is_checked_again(user_workdir):
    # a first start validates the records and remembers it (stamps named by file + settings hash)
    planned_jobs(user_workdir, "all", "--configfile", "my.yaml")
    stamps = list((user_workdir / ".snakemake/paramid-validated").iterdir())
    assert len(stamps) >= 4  # pendulum's two records, the user's two (and the paper's values)
    path = user_workdir / "data/mine/cal.csv"
    frame = pd.read_csv(path)
    frame.loc[9, "time"] = frame.loc[8, "time"]
    frame.to_csv(path, index=False)
    _fails_cleanly(user_workdir, "data/mine/cal.csv", "data row 10")


def test_constant_angle_names_collinear_columns(user_workdir):
    path = user_workdir / "data/mine/val.csv"
    frame = pd.read_csv(path, skiprows=2)  # the logger's two lines above the header
    frame["angle"] = 30.0
    frame.to_csv(path, index=False)
    (user_workdir / "my.yaml").write_text(USER_BLOCK.replace("header_line: 3, ", ""))
    _fails_cleanly(user_workdir, "data/mine/val.csv", "rank-deficient", "'qdd'")


@pytest.mark.parametrize(
    ("edit", "patterns"),
    [
        (USER_BLOCK + "    methods: [ls, bcls, rls_foo]\n", ["rls_foo", "methods"]),
        (USER_BLOCK + "    population: {size: 0}\n", ["size", "population"]),
        (USER_BLOCK + "    population: {iterations: -3}\n", ["iterations"]),
        (
            USER_BLOCK + "    signals: {cutoff_hz: 80.0}\n",
            ["data/mine/cal.csv", "cutoff_hz = 80 Hz", "Nyquist"],
        ),
        # Snakemake itself reads --configfile files and does not name them when one is malformed
        (USER_BLOCK + "    records: [\n", ["not valid JSON or YAML"]),
        (USER_BLOCK.replace("angle: deg", "angle: gon"), ["gon"]),
    ],
)
def test_invalid_config_fails_with_the_field_named(user_workdir, edit, patterns):
    (user_workdir / "my.yaml").write_text(edit)
    _fails_cleanly(user_workdir, *patterns)


def test_malformed_shipped_config_names_file_and_line(user_workdir):
    path = user_workdir / "config.yaml"
    lines = path.read_text().splitlines()
    lines[20] = "      seed: [0"
    path.write_text("\n".join(lines) + "\n")
    out = snakemake(user_workdir, "--cores", "1", "-n", "all")
    assert out.returncode != 0
    assert re.search(r"config\.yaml: malformed YAML at line \d+", out.stdout + out.stderr)


def test_a_reference_of_some_parameters_is_audited(user_workdir):
    """A lab's CAD model gives the inertia, not the friction: the audit compares what it
    gives (the job stopped on KeyError: 'fc')."""
    reference = "    reference: {source: CAD, values: {Jt: 0.9, Mxt: 1.2}}\n"
    (user_workdir / "my.yaml").write_text(USER_BLOCK + reference)
    out = snakemake(
        user_workdir, "--cores", "2", "results/mine/audit.csv", "--configfile", "my.yaml"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    audit = pd.read_csv(user_workdir / "results/mine/audit.csv").set_index("claim")
    assert audit.loc["BCLS Jt vs reference", "verdict"] == "reproduced"  # the twin's 0.9
    rmse = "Validation RMSE: BCLS calibrated here vs the reference parameters on the same record"
    assert audit.loc[rmse, "verdict"] == "not comparable"
    assert "the reference gives no" in audit.loc[rmse, "reason"]


def test_a_sweep_figure_of_a_study_without_that_sweep_says_what_to_add(user_workdir):
    out = snakemake(user_workdir, "-n", "results/mine/figures/fig4b.png", "--configfile", "my.yaml")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "studies.mine runs no cutoff_hz sweep (Figure 4b plots it)" in text, text[-3000:]
    assert "add a sweeps.cutoff_hz block to the study (studies.hip.sweeps.cutoff_hz in" in text
    assert "KeyError" not in text


def test_a_study_asked_for_without_its_config_file_says_so(user_workdir):
    """`snakemake mine` with my.yaml forgotten: the studies the run has and the fix, not
    Snakemake's "No rule to produce mine"."""
    out = snakemake(user_workdir, "-n", "mine")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    assert "paramid: mine: no study 'mine' in this run's config (read from config.yaml; " in text
    assert "add --configfile my.yaml (the file that holds it)" in text, text[-3000:]
    assert "No rule to produce" not in text and "Traceback" not in text


def test_a_spreadsheets_export_reads_by_its_format_settings(user_workdir):
    """A record exported by a spreadsheet (semicolons, decimal commas, a Latin-1 degree sign
    in its header) is read as written when its block says so; the plain settings name them."""
    path = user_workdir / "data/mine/cal.csv"
    frame = pd.read_csv(path).rename(columns={"angle": "Winkel [°]"})
    frame.to_csv(path, index=False, sep=";", decimal=",", encoding="latin-1")
    block = USER_BLOCK.replace(
        "calibration: {path: data/mine/cal.csv, ",
        "calibration: {path: data/mine/cal.csv, separator: ';', decimal: ',', encoding: latin-1, "
        "columns: {angle: 'Winkel [°]'}, ",
    )
    (user_workdir / "my.yaml").write_text(block)
    out = snakemake(user_workdir, "-n", "results/mine/tables/table3.csv", "--configfile", "my.yaml")
    assert out.returncode == 0, out.stderr[-3000:]
    (user_workdir / "my.yaml").write_text(USER_BLOCK)
    text = _fails_cleanly(user_workdir, "data/mine/cal.csv")
    assert "set encoding: latin-1" in text, text[-3000:]


def test_hip_ingest_drops_a_long_rest_and_says_so(user_workdir):
    """Three seconds held before the user's calibration record: hip_ingest writes it without
    all but 0.1 s of that rest, with a warning and the seconds in the metadata."""
    path = user_workdir / "data/mine/cal.csv"
    log = pd.read_csv(path)
    step = log["time"].iloc[1] - log["time"].iloc[0]
    held = loaders.with_rest(log, round(3.0 / step))
    held.to_csv(path, index=False)
    target = "results/mine/records/calibration.parquet"
    out = snakemake(user_workdir, "--cores", "1", target, "--configfile", "my.yaml")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    frame, meta = io.read_parquet(user_workdir / target)
    own = plausibility.rest_at_ends(log["time"].to_numpy(), log["angle"].to_numpy())
    np.testing.assert_allclose(meta["rest_dropped_s"], (own[0] + 3.0 - 0.1, 0.0), atol=1e-9)
    assert len(frame) == pytest.approx(len(held) - meta["rest_dropped_s"][0] / step, abs=1)
    warning = (user_workdir / "logs/mine/hip_ingest_calibration.log").read_text()
    assert "calibration: at rest" in warning and "checks.skip: [rest_at_ends]" in warning
