"""Shared fixtures: the repository root and the hip study's config as validated by the schema."""

from __future__ import annotations

import copy
import os
import subprocess
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

# CI explores the same examples on every run (no flaky red builds); locally hypothesis searches.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]
LOCAL_SLURM = ROOT / "tests" / "slurm" / "start-local-slurm.sh"
SLURM_CONF = Path("/etc/slurm/slurm.conf")


def pytest_configure(config: pytest.Config) -> None:
    """Before any test (in the main process, not each xdist worker): the slurm.conf that the
    local SLURM of a run killed before its teardown left behind is removed when its controller
    no longer runs; every Snakemake start waited ~9 s on the slurm plugin's `scontrol show
    config` naming it (an interrupted CI run left it on a machine copied for the next). A
    cluster still running (another session's test) is left alone."""
    if not hasattr(config, "workerinput") and SLURM_CONF.exists():  # the script knows its own
        subprocess.run(["bash", str(LOCAL_SLURM), "clean"], capture_output=True, timeout=120)


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def _validated_config() -> dict:
    from snakemake.utils import validate

    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return config


@pytest.fixture()
def config(_validated_config: dict) -> dict:
    return copy.deepcopy(_validated_config)


@pytest.fixture()
def hip(config: dict) -> dict:
    return config["studies"]["hip"]


def _check_config(config: dict) -> None:
    """What the Snakefile checks before any job, without the input files: every family's
    workflow object built on a validated ``config`` (a :class:`paramid.io.UserError` on a
    setting the schema accepts but a job would crash on)."""
    from paramid.calibration.workflow import CalibrationStudies
    from paramid.cec2022.workflow import Cec2022Benchmark
    from paramid.config import result_folders
    from paramid.excitation.workflow import ExcitationDesigns
    from paramid.friction.workflow import NonlinearStudies
    from paramid.hip.workflow import HipStudies
    from paramid.robot.workflow import RobotStudies

    folders = result_folders(config)
    HipStudies(config)
    NonlinearStudies(config)
    ExcitationDesigns(config)
    CalibrationStudies(config)
    Cec2022Benchmark(config, folders, str(ROOT))
    RobotStudies(config)


@pytest.fixture(scope="session")
def check_config():
    """:func:`_check_config`, the Snakefile's start-up checks minus the input files."""
    return _check_config
