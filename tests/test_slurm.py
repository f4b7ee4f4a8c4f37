"""The hip study on a real (one-node, local) SLURM gives the same data as a local run.

tests/slurm/start-local-slurm.sh brings SLURM up (installing it with apt when needed) and
down again, also when the test fails. A reduced hip study (3 seeds per population method,
written as a --configfile overlay in the temporary copy) runs once locally and once with
`--workflow-profile workflow/profiles/slurm`; every output's data hash must match.

Skipped, with the reason, where SLURM cannot be installed (not root, no apt-get) or the
`cluster` extra is missing -- except under CI=true, where those are failures.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from importlib.util import find_spec
from pathlib import Path

import pytest
from test_workflow import copy_workflow, snakemake

from paramid import provenance

pytestmark = [pytest.mark.slurm, pytest.mark.slow]

SCRIPT = Path(__file__).parent / "slurm" / "start-local-slurm.sh"
CANNOT_INSTALL = 3  # exit status of the script when installing is impossible here
RUN = Path("/run/paramid-local-slurm")  # the script's pidfiles and its list of daemons started
STARTED = RUN / "started"
REDUCED = """\
studies:
  hip:
    population: {runs: 3, timing_repeats: 1}
    fit: {timing_repeats: 2}
"""
# the hip paper pipeline (§4.1): records -> signals -> RLS -> LS/BCLS and population fits ->
# tables, statistics, Figure 3 (three SLURM group jobs: prepare, population, report)
TARGETS = [
    "results/hip/rls/summary.json",
    *(f"results/hip/tables/{t}.csv" for t in ("table3", "table4", "stats")),
    *(f"results/hip/figures/{f}.png" for f in ("fig3a", "fig3b", "fig3c", "fig3d")),
]
# fast status polling for a local cluster (the profile's values suit a real site); the
# plugin honours squeue while MinJobAge (300 s) >= 3 x the initial wait
FAST_POLLING = [
    "--slurm-init-seconds-before-status-checks",
    "1",
    "--seconds-between-status-checks",
    "1",
]


def unavailable(reason: str) -> None:
    """Skip, or fail under CI (where this test must run)."""
    if os.environ.get("CI"):
        pytest.fail(f"SLURM test cannot run in CI: {reason}")
    pytest.skip(reason)


def local_slurm(action: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", str(SCRIPT), action], capture_output=True, text=True, timeout=600
    )


@pytest.fixture(scope="module")
def slurm() -> Iterator[None]:
    if find_spec("snakemake_executor_plugin_slurm") is None:
        unavailable("snakemake-executor-plugin-slurm is not installed (pip install '.[cluster]')")
    if shutil.which("sbatch") is None and (os.geteuid() != 0 or shutil.which("apt-get") is None):
        unavailable("SLURM is not installed and cannot be (needs root and apt-get)")
    up = local_slurm("up")
    try:
        if up.returncode == CANNOT_INSTALL:
            unavailable(f"cannot install SLURM here: {up.stderr.strip()}")
        assert up.returncode == 0, f"start-local-slurm.sh up failed:\n{up.stderr}"
        yield
    finally:
        down = local_slurm("down")
        assert down.returncode == 0, down.stderr


def prepare(repo_root: Path, dest: Path) -> Path:
    work = copy_workflow(repo_root, dest)
    (work / "reduced.yaml").write_text(REDUCED)
    return work


def slurm_command(*args: str) -> str:
    """stdout of one of SLURM's commands, which must succeed."""
    out = subprocess.run(args, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, f"{args}: {out.stderr}"
    return out.stdout


def queue() -> list[str]:
    """The jobs SLURM knows of, one 'id name state' line each."""
    return slurm_command("squeue", "-h", "-o", "%i %j %T").splitlines()


def node_cpus() -> str:
    return slurm_command("sinfo", "-h", "-o", "%c").strip()


def started_here() -> bool:
    """The cluster is the one start-local-slurm.sh started (not a machine's own SLURM)."""
    return STARTED.exists()


def running(pid: int) -> bool:
    """Process ``pid`` exists and is no zombie."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


@pytest.mark.parametrize("controller", ["running", "killed"])
def test_up_forgets_jobs_of_an_interrupted_run(slurm, controller):
    """A test run killed mid-job (or a machine copied then) left its job RUNNING in the
    controller, holding the node's CPUs; the next run's jobs pended until a timeout. With
    the controller gone too, only its cleared start (slurmctld -c) forgets the job."""
    if not started_here():
        pytest.skip("a SLURM that start-local-slurm.sh did not start: its jobs are not ours")
    job = slurm_command(
        "sbatch",
        "--parsable",
        "-c",
        node_cpus(),
        "-t",
        "30",
        "-o",
        "/dev/null",
        "--wrap",
        "sleep 1800",
    ).strip()
    try:
        deadline = time.monotonic() + 60
        while slurm_command("squeue", "-h", "-j", job, "-o", "%T").strip() != "RUNNING":
            assert time.monotonic() < deadline, f"job {job} did not start: {queue()}"
            time.sleep(0.5)
        listed = slurm_command("scontrol", "listpids", job).splitlines()[1:]
        pids = [int(line.split()[0]) for line in listed]
        assert pids
        if controller == "killed":
            os.kill(int((RUN / "slurmctld.pid").read_text()), 9)
        up = local_slurm("up")
        assert up.returncode == 0, up.stderr
        assert queue() == []
        deadline = time.monotonic() + 30  # an orphaned step is ended as its node registers
        while any(map(running, pids)):
            assert time.monotonic() < deadline, "the job's processes run on"
            time.sleep(0.5)
    finally:
        subprocess.run(["scancel", job], capture_output=True, timeout=60)


def test_slurm_run_matches_local_run(slurm, tmp_path, repo_root):
    if started_here():
        assert queue() == [], "the node is busy before the test starts"
    local = prepare(repo_root, tmp_path / "local")
    out = snakemake(local, "--cores", "2", *TARGETS, "--configfile", "reduced.yaml")
    assert out.returncode == 0, (out.stdout + out.stderr)[-3000:]

    cluster = prepare(repo_root, tmp_path / "slurm")
    start = time.perf_counter()
    out = snakemake(
        cluster,
        "--workflow-profile",
        "workflow/profiles/slurm",
        "--cores",
        node_cpus(),  # a group job asks for at most this many
        *FAST_POLLING,
        *TARGETS,
        "--configfile",
        "reduced.yaml",
    )
    elapsed = time.perf_counter() - start
    log = out.stdout + out.stderr
    assert out.returncode == 0, log[-5000:]
    submitted = log.count("has been submitted with SLURM jobid")
    print(f"SLURM run: {elapsed:.0f} s, {submitted} SLURM jobs")
    # the jobs really went through SLURM, grouped: a handful of jobs for the study
    assert 2 <= submitted <= 4, submitted

    files = provenance.list_outputs(local)
    assert files == provenance.list_outputs(cluster)
    assert sum(f.endswith(".parquet") for f in files) >= 12
    local_hashes = provenance.hashes(local, files)
    cluster_hashes = provenance.hashes(cluster, files)
    differing = [f for f in files if local_hashes[f] != cluster_hashes[f]]
    assert not differing, f"outputs differ between local and SLURM runs: {differing}"
    assert provenance.stray_temporaries(cluster) == []
