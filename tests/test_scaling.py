"""Long records in linear memory (issue #15): a dry run of a study with a 1 M-sample record
(1000 s at 1 kHz) validates it at parse time in well under 2 GB."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_workflow import copy_workflow

pytestmark = pytest.mark.slow

BLOCK = """\
studies:
  long:
    records:
      calibration: {path: data/long/cal.csv, units: {angle: rad, torque: N m}}
      validation:  {path: data/long/val.csv, units: {angle: rad, torque: N m}}
    regressor: [g_sin_q, g_cos_q, qdd, sign_qd, qd]
"""


def _write(path: Path, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 1000.0
    q = 0.6 * np.sin(2 * np.pi * 0.3 * t) + 0.3 * np.sin(2 * np.pi * 1.1 * t + 0.5)
    qd, qdd = np.gradient(q, t), np.gradient(np.gradient(q, t), t)
    tau = 1.1 * qdd + 14.7 * np.sin(q) - 2.0 * np.cos(q) + 0.8 * np.sign(qd) + 2.5 * qd
    frame = pd.DataFrame({"time": t, "angle": q + 1e-5 * rng.standard_normal(n), "torque": tau})
    frame.to_csv(path, index=False)


def test_dry_run_of_a_million_sample_record_stays_under_2_gb(tmp_path, repo_root):
    workdir = copy_workflow(repo_root, tmp_path / "wf")
    (workdir / "data/long").mkdir(parents=True)
    _write(workdir / "data/long/cal.csv", 1_000_000, 1)
    _write(workdir / "data/long/val.csv", 200_000, 2)
    (workdir / "long.yaml").write_text(BLOCK)
    command = [sys.executable, "-m", "snakemake", "-n", "--cores", "1"]
    command += ["results/long/tables/table3.csv", "--configfile", "long.yaml"]
    returncode, peak_kib, said = _run_measured(command, workdir, tmp_path / "snakemake.log")
    assert returncode == 0, said[-3000:]
    assert peak_kib < 2 * 1024**2, f"peak {peak_kib / 1024:.0f} MiB"


def _run_measured(command: list[str], cwd: Path, log: Path) -> tuple[int, int, str]:
    """(exit code, peak resident memory [KiB], output) of ``command``: this child's own peak
    (os.wait4), not the largest of every child the test process has run (RUSAGE_CHILDREN
    depends on which tests ran before in the same xdist worker); killed after 900 s."""
    with log.open("w") as out:
        process = subprocess.Popen(command, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)
        timer = threading.Timer(900, process.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            timer.cancel()
    process.returncode = os.waitstatus_to_exitcode(status)
    return process.returncode, usage.ru_maxrss, log.read_text()
