"""Every registry exists once: the config schema's enums equal the library's registries, and the
rule files read the registries instead of copying them (issue #14)."""

from __future__ import annotations

import typing
from pathlib import Path

import pytest
import yaml

from paramid import ingest, plausibility
from paramid.calibration import kinematics
from paramid.calibration import model as cal_model
from paramid.calibration.filters import READINGS
from paramid.calibration.identify import IDENTIFIERS
from paramid.cec2022 import runs as cec_runs
from paramid.excitation import design
from paramid.friction import laws
from paramid.friction import methods as friction_methods
from paramid.hip import methods, model
from paramid.optim import registry
from paramid.robot import checks as robot_checks

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = yaml.safe_load((ROOT / "workflow/schemas/config.schema.yaml").read_text())
DEFS = SCHEMA["$defs"]


def _cec(key: str) -> dict:
    return DEFS["cec2022"]["properties"][key]


def _cal_model(key: str) -> dict:
    return DEFS["calibration_study"]["properties"]["models"]["additionalProperties"]["properties"][
        key
    ]


def _tuning(key: str) -> dict:
    return DEFS["calibration_study"]["properties"]["tuning"]["properties"][key]


@pytest.mark.parametrize(
    ("enum", "registry"),
    [
        (DEFS["method"]["enum"], list(methods.METHODS)),
        (DEFS["friction_law"]["enum"], list(laws.MODELS)),
        (
            DEFS["nonlinear_study"]["properties"]["methods"]["items"]["enum"],
            list(friction_methods.METHOD_NAMES),
        ),
        (_cec("algorithms")["items"]["enum"], list(cec_runs.ALGORITHMS)),
        (_cec("reference")["enum"], list(cec_runs.ALGORITHMS)),
        (_cec("budget")["enum"], ["paper", "cec"]),
        (_cec("dims")["items"]["enum"], list(cec_runs.CEC_BUDGET)),
        (_cal_model("groups")["items"]["enum"], list(cal_model.GROUPS)),
        (_cal_model("identifiers")["oneOf"][1]["items"]["enum"], list(IDENTIFIERS)),
        (_tuning("reduced")["required"], list(READINGS)),
    ],
    ids=[
        "hip methods",
        "friction laws",
        "friction methods",
        "cec algorithms",
        "cec reference",
        "cec budget",
        "cec dims",
        "calibration model groups",
        "calibration identifiers",
        "calibration filter readings",
    ],
)
def test_schema_enum_equals_its_registry(enum: list, registry: list) -> None:
    assert enum == registry


def test_enums_found_by_walking_the_schema_match_their_registries() -> None:
    """Every enum of the schema that names registry entries, found wherever it sits."""
    found: dict[str, list] = {}

    def walk(node: object, path: str) -> None:
        if isinstance(node, dict):
            if "enum" in node:
                found[path] = node["enum"]
            for key, value in node.items():
                walk(value, f"{path}/{key}")
        elif isinstance(node, list):
            for i, value in enumerate(node):
                walk(value, f"{path}/{i}")

    walk(SCHEMA, "")
    regressor = [v for k, v in found.items() if k.endswith("regressor/items")]
    assert regressor and all(v == list(model.COLUMNS) for v in regressor)
    criteria = [v for k, v in found.items() if k.endswith("criterion")]
    assert criteria and all(v == list(design.CRITERIA) for v in criteria)
    skips = [v for k, v in found.items() if k.endswith("checks/properties/skip/items")]
    one_dof = [
        v for k, v in found.items() if k.endswith("/study/properties/checks/properties/skip/items")
    ]
    robots = [v for k, v in found.items() if "robot_study" in k and k.endswith("skip/items")]
    assert len(skips) == 2 and one_dof == [list(plausibility.RECORD_CHECKS)]
    assert robots == [list(robot_checks.CHECKS)]
    conventions = [v for k, v in found.items() if k.endswith("convention")]
    assert conventions and all(
        v == list(typing.get_args(kinematics.Convention)) for v in conventions
    )
    for quantity, factors in ingest.UNIT_FACTORS.items():
        units = [v for k, v in found.items() if k.endswith(f"units/properties/{quantity}")]
        assert units and all(v == list(factors) for v in units), quantity


def test_every_optimiser_a_study_names_is_registered_once() -> None:
    from paramid.population import POPULATION_METHODS

    for spec in POPULATION_METHODS.values():
        assert registry.METHODS[spec.optimiser] is spec.run
    assert set(cec_runs.ALGORITHMS.values()) <= set(registry.METHODS)
    assert {"ipso", "dqpso"} <= set(registry.METHODS)
    # one entry per optimiser, under its own name (no function registered twice or renamed)
    assert all(method.__name__ == name for name, method in registry.METHODS.items())
    assert len({id(method) for method in registry.METHODS.values()}) == len(registry.METHODS)


def test_rule_files_read_the_registries() -> None:
    """No rule file spells out a registry's entries (they import them from paramid)."""
    rules = {p.name: p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk")}
    text = "\n".join(rules.values())
    for copied in (
        '"rls_agwo", "rls_gwo"',
        '"pso", "rls_pso"',
        '"ekf_gsbise", "ekf_mipo"',
        '"WOA", "HHO"',
        "optim/po",
    ):
        assert copied not in text, copied


def test_cutoff_candidates_default_is_one_list() -> None:
    """The schema's default candidates of ``cutoff_hz: auto`` are the same for 1-DOF and robot
    studies (the schema holds them; the library has no copy)."""
    text = (ROOT / "workflow/schemas/config.schema.yaml").read_text()
    defaults = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "cutoff_candidates_hz" in node:
                defaults.append(node["cutoff_candidates_hz"]["default"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(yaml.safe_load(text))
    assert len(defaults) == 2
    assert defaults[0] == defaults[1] and defaults[0][-1] == 25.0
