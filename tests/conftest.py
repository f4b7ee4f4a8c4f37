"""Shared fixtures: the repository root and the hip study's config as validated by the schema."""

from __future__ import annotations

import copy
import os
from pathlib import Path

import pytest
import yaml
from hypothesis import settings

# CI explores the same examples on every run (no flaky red builds); locally hypothesis searches.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

ROOT = Path(__file__).resolve().parents[1]


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
