"""Shared fixtures: the repository root and the hip study's config as validated by the schema."""

from __future__ import annotations

import copy
from pathlib import Path

import pytest
import yaml

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
