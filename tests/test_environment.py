"""Software deployment and defaults: the one conda environment of the run, the workflow
profile a fresh checkout picks up, and what the rule template gives every scripted rule
(benchmark file, hip-first priority)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.specifiers import SpecifierSet

ENV_FILE = "envs/paramid.yaml"
# pyproject requirement -> the conda package(s) that provide it
CONDA_NAMES = {
    "snakemake": ["snakemake-minimal"],
    "matplotlib": ["matplotlib-base"],
    "pyyaml": ["pyyaml"],
    "pin": ["pinocchio"],
}
PROFILE_LINE = (
    "Using workflow specific profile profiles/default for setting default command line arguments."
)


def _environment(repo_root: Path) -> dict:
    return yaml.safe_load((repo_root / ENV_FILE).read_text())


def _conda_pins(env: dict) -> dict[str, str]:
    """Conda package -> pinned version (``name==version`` or ``name=version``)."""
    pins = {}
    for dep in env["dependencies"]:
        if isinstance(dep, str) and "=" in dep:
            name, version = re.split(r"==?", dep, maxsplit=1)
            pins[name.strip()] = version.split("#")[0].strip()
    return pins


def test_environment_pins_every_dependency_within_pyproject(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    pins = _conda_pins(_environment(repo_root))
    for line in project["dependencies"]:
        req = Requirement(line)
        for conda_name in CONDA_NAMES.get(req.name.lower(), [req.name.lower()]):
            assert conda_name in pins, f"{ENV_FILE} does not pin {conda_name} ({line})"
            assert req.specifier.contains(pins[conda_name]), (conda_name, pins[conda_name], line)
        if "reports" in req.extras:  # snakemake[reports] = pygments
            assert "pygments" in pins
    assert SpecifierSet(project["requires-python"]).contains(pins["python"] + ".0")


def test_environment_installs_this_checkout(repo_root, tmp_path):
    """The pip section names ${PARAMID_CHECKOUT}, which pip expands (a path relative to the
    file would break once Snakemake copies it to .snakemake/conda/); the workflow sets it."""
    env = _environment(repo_root)
    pip = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    assert pip == ["-e ${PARAMID_CHECKOUT}"]
    requirements = tmp_path / "requirements.txt"  # what conda hands to pip
    requirements.write_text("\n".join(pip) + "\n")
    out = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--no-deps", "--no-index"]
        + ["--no-build-isolation", "-r", str(requirements)],
        capture_output=True,
        text=True,
        env={**os.environ, "PARAMID_CHECKOUT": str(repo_root)},
        timeout=120,
    )
    assert f"Obtaining file://{repo_root.as_posix()}" in out.stdout, out.stdout + out.stderr
    template = (repo_root / "src/paramid/workflow.py").read_text()
    assert 'os.environ["PARAMID_CHECKOUT"] = basedir.as_posix()' in template


def test_every_rule_names_the_one_environment(repo_root):
    """No rule file declares its own ``conda:``; the rule template gives every rule the one
    environment file (checked in the dry run below)."""
    files = [repo_root / "Snakefile", *sorted((repo_root / "workflow/rules").glob("*.smk"))]
    assert [f.name for f in files if re.search(r"^\s*conda:", f.read_text(), re.M)] == []


def test_default_profile_sets_the_local_defaults(repo_root):
    profile = yaml.safe_load((repo_root / "profiles/default/config.yaml").read_text())
    triggers = ["mtime", "input", "code", "software-env"]  # params: as input (SettingsFile)
    assert profile == {
        "cores": "all",
        "rerun-incomplete": True,
        "show-failed-logs": True,
        "rerun-triggers": triggers,
        "max-jobs-per-timespan": "10000/30s",
    }
    # the scheduler's 30 s wake-ups would hold the process at exit without the end-of-run
    # handlers (paramid.workflow.cancel_scheduler_wakeups)
    snakefile = (repo_root / "Snakefile").read_text()
    for handler in ("onsuccess", "onerror"):
        assert re.search(rf"^{handler}:\n\s+cancel_scheduler_wakeups\(\)$", snakefile, re.M)
    assert not (repo_root / "workflow/profiles/default").exists()
    slurm = yaml.safe_load((repo_root / "workflow/profiles/slurm/config.yaml").read_text())
    assert slurm["rerun-triggers"] == triggers
    assert slurm["max-jobs-per-timespan"] == "100/30s"


@pytest.fixture(scope="module")
def dry_run_all(repo_root, tmp_path_factory) -> str:
    """``snakemake -n all`` with no flags in a copy laid out as a fresh clone."""
    from test_workflow import copy_workflow, snakemake

    work = copy_workflow(repo_root, tmp_path_factory.mktemp("clone") / "wf")  # with profiles/
    out = snakemake(work, "-n", "all")
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout + out.stderr


@pytest.mark.slow
def test_fresh_checkout_reports_the_default_profile(dry_run_all):
    assert PROFILE_LINE in dry_run_all


def _jobs(text: str) -> list[dict[str, str]]:
    """The planned jobs of a dry run: rule name and its ``key: value`` lines (a group job
    prints its rules indented)."""
    jobs: list[dict[str, str]] = []
    for line in text.splitlines():
        if head := re.match(r"\s*(?:local)?rule (\w+):$", line):
            jobs.append({"rule": head[1]})
        elif jobs and (field := re.match(r"\s+(\w+): (.*)", line)):
            jobs[-1].setdefault(field[1], field[2])
    return jobs


@pytest.mark.slow
def test_every_scripted_job_has_its_benchmark_file(dry_run_all):
    jobs = [j for j in _jobs(dry_run_all) if j["rule"] != "all"]
    assert len(jobs) > 100
    benchmarks = [j.get("benchmark", "") for j in jobs]
    assert [
        j["rule"] for j in jobs if not j.get("benchmark", "").startswith("logs/benchmarks/")
    ] == []
    assert len(set(benchmarks)) == len(benchmarks)  # one file per job
    rls = next(j for j in jobs if j["output"].startswith("results/hip/fits/rls_agwo"))
    assert rls["benchmark"] == "logs/benchmarks/hip_fit_population/hip/rls_agwo.tsv"


@pytest.mark.slow
def test_the_hip_chain_runs_first(dry_run_all):
    priority = {j["rule"]: int(j.get("priority", 0)) for j in _jobs(dry_run_all)}
    hip = ("hip_simulate", "hip_fit_population", "hip_tables", "hip_figure", "hip_sweep_value")
    for rule in (*hip, "hip_audit"):
        assert priority[rule] == 50, rule
    others = ("cec2022_run", "excitation_design", "nonlinear_fit", "calibration_identify")
    for rule in (*others, "provenance"):
        assert priority[rule] == 0, rule
