"""Plausibility checks in the workflow (issue #15, item 2): a record that fails one stops the
run before any job, naming the file and the opt-out, with no traceback and nothing written;
a fit that explains too little of the torque stops its study with one message."""

from __future__ import annotations

import shutil

import numpy as np
import pandas as pd
import pytest
from test_workflow import copy_workflow, snakemake

pytestmark = pytest.mark.slow

BLOCK = """\
studies:
  mine:
    records:
      calibration: {path: data/mine/cal.csv, columns: {angle: position}}
      validation:  {path: data/mine/val.csv, columns: {angle: position}}
    regressor: [g_sin_q, qdd, sign_qd, qd, offset]
    methods: [ls]
"""


def _workdir(tmp_path, repo_root, calibration: pd.DataFrame):
    work = copy_workflow(repo_root, tmp_path / "wf")
    (work / "data/mine").mkdir(parents=True)
    calibration.to_csv(work / "data/mine/cal.csv", index=False)
    shutil.copy(work / "data/pendulum/sysid_pd_measured.csv", work / "data/mine/val.csv")
    (work / "my.yaml").write_text(BLOCK)
    return work


def _pendulum(repo_root) -> pd.DataFrame:
    return pd.read_csv(repo_root / "data/pendulum/swingup_ddp_measured.csv")


def test_degrees_declared_as_rad_stop_the_run_before_any_job(tmp_path, repo_root):
    record = _pendulum(repo_root)
    record["position"] = np.rad2deg(record["position"])
    work = _workdir(tmp_path, repo_root, record)
    out = snakemake(
        work, "-n", "--cores", "1", "results/mine/fits/ls.parquet", "--configfile", "my.yaml"
    )
    text = out.stdout + out.stderr
    assert out.returncode != 0 and "Traceback" not in text
    assert "data/mine/cal.csv" in text and "degrees" in text
    assert "studies.mine.checks.skip: [angle_units]" in text
    assert not (work / "results/mine").exists()


def test_a_fit_that_explains_too_little_stops_the_study(tmp_path, repo_root):
    record = _pendulum(repo_root)
    rng = np.random.default_rng(0)
    record["torque"] = rng.permutation(record["torque"].to_numpy())  # torque unrelated to motion
    work = _workdir(tmp_path, repo_root, record)
    (work / "my.yaml").write_text(BLOCK + "    checks: {skip: [columns_swapped]}\n")
    out = snakemake(work, "--cores", "1", "results/mine/fits/ls.parquet", "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "explains" in text and "fit.min_explained_variance" in text
    assert "Traceback" not in text
    terminal = text.split("Error in rule", 1)[0]  # before Snakemake's dump of the job's log
    assert terminal.count("fit.min_explained_variance") == 1, terminal  # printed once
    assert not (work / "results/mine/fits/ls.parquet").exists()
