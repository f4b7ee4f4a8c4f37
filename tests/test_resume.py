"""Interrupted runs resume to the same data.

A part of the hip DAG (8 jobs, reduced budget) runs at --cores 1 and is stopped in the middle,
once by SIGINT (Ctrl-C) and once by SIGKILL of the whole process group (a crashed node: no
clean-up at all). Every file then present must be complete (writes are temp + rename), and
`--rerun-incomplete` must finish with the data hashes of an uninterrupted run, without
redoing finished jobs and without leaving temporary files behind.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_workflow import copy_workflow, snakemake

from paramid import io, provenance

pytestmark = pytest.mark.slow

TARGETS = [
    "results/hip/fits/ls.parquet",
    "results/hip/fits/bcls.parquet",
    "results/hip/fits/rls_agwo.parquet",
]
REDUCED = """\
studies:
  hip:
    population: {runs: 3, timing_repeats: 1}
    fit: {timing_repeats: 2}
"""
# the middle of the run: the RLS stage is written, fits are still to come
MIDDLE = "results/hip/rls/summary.json"


def prepare(repo_root: Path, dest: Path) -> Path:
    work = copy_workflow(repo_root, dest)
    (work / "reduced.yaml").write_text(REDUCED)
    return work


def run(work: Path, *args: str) -> subprocess.CompletedProcess:
    out = snakemake(work, *args, "--configfile", "reduced.yaml")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]
    return out


def job_stats(text: str) -> dict[str, int]:
    """Rules and job counts from the 'Job stats:' table Snakemake prints."""
    table = text.split("Job stats:", 1)[1].split("\n\n", 1)[0]
    return {
        m[1]: int(m[2]) for m in re.finditer(r"^(\w+)\s+(\d+)\s*$", table, re.M) if m[1] != "total"
    }


def outputs(work: Path) -> dict[str, str | None]:
    return provenance.hashes(work, provenance.list_outputs(work))


def interrupt(work: Path, sig: signal.Signals, delay: float = 0.0) -> bool:
    """Start the run and send ``sig`` to its process group ``delay`` s after MIDDLE appears.

    Returns whether the run was interrupted: a signal that lands while Snakemake is between
    jobs can be absorbed, and the run then completes.
    """
    cmd = [sys.executable, "-m", "snakemake", "--cores", "1", *TARGETS]
    proc = subprocess.Popen(
        [*cmd, "--configfile", "reduced.yaml"],
        cwd=work,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: the signal reaches every job too
        # a shell without job control (CI, nohup) starts us with SIGINT ignored, which the
        # child would inherit and Python would then never raise KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 300
        while not (work / MIDDLE).exists():
            assert proc.poll() is None, f"the run ended (rc {proc.returncode}) before {MIDDLE}"
            assert time.monotonic() < deadline, f"{MIDDLE} did not appear"
            time.sleep(0.01)
        time.sleep(delay)
        os.killpg(proc.pid, sig)
        proc.wait(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    return proc.returncode != 0


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory, repo_root) -> dict[str, str | None]:
    work = prepare(repo_root, tmp_path_factory.mktemp("resume") / "ref")
    run(work, "--cores", "2", *TARGETS)
    hashes = outputs(work)
    assert set(TARGETS) <= set(hashes) and len(hashes) == 10
    return hashes


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGKILL], ids=["SIGINT", "SIGKILL"])
def test_interrupted_run_resumes_to_identical_data(sig, uninterrupted, tmp_path, repo_root):
    for attempt, delay in enumerate((0.0, 0.3, 0.8)):  # land the signal inside a fit job
        work = prepare(repo_root, tmp_path / f"wf{attempt}")
        if interrupt(work, sig, delay):
            break
    else:
        pytest.fail("the run was never interrupted")

    present = provenance.list_outputs(work)
    assert MIDDLE in present
    assert not set(TARGETS) <= set(present), "nothing was left to resume"
    for rel in present:  # whatever exists is whole: readable, with its metadata block
        if rel.endswith(".parquet"):
            assert io.read_parquet(work / rel)[1]["config_hash"], rel
        elif rel.endswith(".json"):
            io.read_json(work / rel)
    # finished before the RLS stage started (its inputs): must not be redone
    done = ["results/hip/records/calibration.parquet", "results/hip/signals/calibration.parquet"]
    mtimes = {rel: (work / rel).stat().st_mtime_ns for rel in done}

    if sig == signal.SIGKILL:  # no clean-up ran: the lock is stale
        run(work, "--unlock", *TARGETS)
    resumed = run(work, "--cores", "2", "--rerun-incomplete", *TARGETS)
    jobs = job_stats(resumed.stdout + resumed.stderr)
    assert 0 < sum(jobs.values()) < 8, jobs  # resumed, not restarted
    assert {rel: (work / rel).stat().st_mtime_ns for rel in done} == mtimes, "jobs redone"

    assert outputs(work) == uninterrupted
    assert provenance.stray_temporaries(work) == []
    assert not any(work.glob("results/**/*.tmp"))
    assert "Nothing to be done" in run(work, "-n", "--cores", "1", *TARGETS).stdout
