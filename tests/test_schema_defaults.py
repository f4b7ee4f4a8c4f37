"""One default per setting (README "Layout": the schema holds every default).

Where a library function or dataclass takes a config block's settings as keywords, a keyword
default of the same name must equal the schema's default (a reader of the schema would
otherwise get another behaviour from the library than from the workflow), or be absent; and
every optimiser setting a study's schema block gives must reach its optimiser."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from schema_blocks import defaults

from paramid import base_parameters, io, plotting, population
from paramid.calibration import filters, identifiability, kinematics
from paramid.calibration import model as calibration_model
from paramid.calibration import twin as calibration_twin
from paramid.cec2022 import runs as cec_runs
from paramid.cec2022 import study as cec_study
from paramid.excitation import chain, design
from paramid.friction import fitters, laws, report, varpro
from paramid.hip import twin as hip_twin
from paramid.optim.objectives import LinearRMSE
from paramid.optim.registry import METHODS
from paramid.robot import priors
from paramid.robot import twin as robot_twin

#: (library callable, the schema block whose settings it takes by the same names).  A pair
#: missing here is only a check not made; a default of another meaning under a setting's name
#: (cec2022.study.rank_table's ``algorithms``: the paper's six of Figures 6-7) is left out.
PAIRS: list[tuple[Callable[..., Any], tuple[str, ...]]] = [
    (robot_twin.true_parameters, ("robots", "*", "twin")),
    (robot_twin.true_parameters, ("robots", "*", "twin", "friction")),
    (robot_twin.excitation, ("$defs", "robot_twin_record", "excitation")),
    (priors.ConsistentLS, ("robots", "*", "lmi")),
    (base_parameters.base_parameters, ("robots", "*", "base")),
    (design.design, ("$defs", "excitation_design")),
    (chain.PlanarChain, ("$defs", "excitation_chain")),
    (chain.PlanarChain.from_config, ("$defs", "excitation_chain")),
    (chain.ChainNoise, ("$defs", "excitation_chain", "twin")),
    (hip_twin.TwinSettings, ("studies", "*", "twin")),
    (hip_twin.TwinSettings, ("studies", "*")),
    (laws.hip_model, ("studies", "*")),
    (fitters.fit_population, ("nonlinear", "*")),
    (fitters.fit_least_squares, ("nonlinear", "*", "least_squares")),
    (varpro.fit_varpro, ("nonlinear", "*", "varpro")),
    (report.stats_table, ("nonlinear", "*", "stats")),
    (report.verdicts, ("nonlinear", "*", "stats")),
    (filters.ukf, ("calibration", "*", "ukf")),
    (calibration_twin.TrackerNoise, ("calibration", "*", "twin", "noise")),
    (calibration_model.MassModel, ("calibration", "*", "mass_model")),
    (identifiability.identifiability, ("calibration", "*", "identifiability")),
    (identifiability.model_identifiability, ("calibration", "*", "identifiability")),
    (kinematics.DHTable.from_degrees, ("calibration", "*", "robot")),
    (cec_runs.run_job, ("cec2022",)),
    *[(METHODS[name], ("$defs", name)) for name in ("ipso", "dqpso", "mipo", "woa", "ggo")],
    (cec_study.wilcoxon_table, ("cec2022",)),
    (cec_study.run_level_tests, ("cec2022",)),
    (plotting.FigureStyle, ("figures",)),
    (io.save_figure, ("figures",)),
]


def _plain(value: Any) -> Any:
    """A default as the schema writes it (tuples as lists)."""
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    return value


def _library_defaults(fn: Callable[..., Any]) -> dict[str, Any]:
    return {
        name: p.default
        for name, p in inspect.signature(fn).parameters.items()
        if p.default is not inspect.Parameter.empty
    }


@pytest.mark.parametrize(
    ("fn", "block"), PAIRS, ids=[f"{f.__qualname__}-{'.'.join(b)}" for f, b in PAIRS]
)
def test_a_library_default_of_a_setting_is_the_schemas(
    fn: Callable[..., Any], block: tuple[str, ...]
) -> None:
    schema = defaults(*block)
    shared = {k: v for k, v in _library_defaults(fn).items() if k in schema}
    differ = {k: (v, schema[k]) for k, v in shared.items() if _plain(v) != _plain(schema[k])}
    assert not differ, f"{fn.__qualname__}: (library, schema) defaults differ: {differ}"


def _optimiser_blocks() -> list[tuple[str, str, str]]:
    """(family, population method, its optimiser's block) for every method of
    population.POPULATION_METHODS whose optimiser has a settings block in the family's schema."""
    found = []
    for family in ("studies", "robots"):
        blocks = set(_block_names(family))
        for method, spec in population.POPULATION_METHODS.items():
            if spec.optimiser in blocks:
                found.append((family, method, spec.optimiser))
    return found


def _block_names(family: str) -> list[str]:
    import yaml
    from schema_blocks import SCHEMA

    schema = yaml.safe_load(SCHEMA.read_text())
    node = schema["properties"][family]["additionalProperties"]
    node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return list(node["properties"])


def _changed(value: Any) -> Any:
    """Another valid value of a setting (None: a positive number; a list: each item's)."""
    if isinstance(value, list):
        return [_changed(v) for v in value]
    if value is None:
        return 0.5
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    return value * 0.5 + 0.01


def test_the_population_methods_blocks_are_found() -> None:
    """The walk below sees the hip paper's three blocks (pso, ga, agwo) and the robots' two."""
    found = {(family, block) for family, _, block in _optimiser_blocks()}
    assert {("studies", "pso"), ("studies", "ga"), ("studies", "agwo")} <= found
    assert {("robots", "pso"), ("robots", "agwo")} <= found


@pytest.mark.parametrize(("family", "method", "block"), _optimiser_blocks())
def test_every_optimiser_setting_of_the_schema_reaches_the_optimiser(
    family: str, method: str, block: str
) -> None:
    """With the schema's block, population.optimiser_settings gives the optimiser only keywords
    it takes, at the optimiser's own defaults where it has them, and a change of any one
    setting of the block changes what the optimiser is given (none is silently ignored)."""
    spec = population.POPULATION_METHODS[method]
    settings_block = defaults(family, "*", block)
    assert settings_block, f"{family}.*.{block} has no defaults"
    given = population.optimiser_settings(method, settings_block, 0.03)
    parameters = inspect.signature(spec.run).parameters
    keywords = {n for n, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert set(given) <= keywords, f"{method}: {set(given) - keywords} not taken by {block}"
    own = _library_defaults(spec.run)
    differ = {k: (own[k], v) for k, v in given.items() if k in own and _plain(own[k]) != _plain(v)}
    assert not differ, f"{method}: (optimiser, schema) defaults differ: {differ}"
    for key, value in settings_block.items():
        changed = population.optimiser_settings(
            method, settings_block | {key: _changed(value)}, 0.03
        )
        assert changed != given, f"{family}.*.{block}.{key} does not reach {spec.optimiser}"


@pytest.mark.parametrize(("family", "method", "block"), _optimiser_blocks())
def test_the_schemas_optimiser_settings_run(family: str, method: str, block: str) -> None:
    """The optimiser runs with what the schema's block gives it (a tiny problem)."""
    spec = population.POPULATION_METHODS[method]
    given = population.optimiser_settings(method, defaults(family, "*", block), 0.03)
    result = spec.run(
        LinearRMSE(np.eye(2), np.zeros(2)),
        [-1.0, -1.0],
        [1.0, 1.0],
        population=4,
        iterations=3,
        seeds=[np.random.SeedSequence(0)],
        **given,
    )
    assert np.all(np.isfinite(result.best_f))


def test_every_calibration_stage_setting_is_a_keyword_of_its_optimiser() -> None:
    """The KR210 studies' optimiser stages (tuning, IPSO, the hybrids' second stages) pass
    their ``settings`` to the optimiser they name as keywords (calibration.identify): each of
    config.yaml's is one that optimiser takes (a misspelt one would stop the job late)."""
    import yaml
    from schema_blocks import SCHEMA

    from paramid.config import validate
    from paramid.optim.registry import METHODS

    config = yaml.safe_load((SCHEMA.parents[2] / "config.yaml").read_text())
    validate(config, SCHEMA)  # fills the schema's defaults (a stage's method among them)
    stages = []
    for study in config["calibration"].values():
        stages += [study["tuning"], study["ipso"], study["lm_ga"]["ga"]]
        stages += [study["ekf_dqpso"]["dqpso"]]
    assert stages
    for stage in stages:
        parameters = inspect.signature(METHODS[stage["method"]]).parameters
        keywords = {n for n, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
        assert set(stage["settings"]) <= keywords, (stage["method"], stage["settings"])


#: Optimisers whose settings live in a schema block of their name ($defs), used by the
#: calibration stages (whose method names one) and by cec2022.settings.
SCHEMA_OPTIMISERS = ("ipso", "dqpso", "mipo", "woa", "ggo")


def _keywords(fn: Callable[..., Any]) -> set[str]:
    parameters = inspect.signature(fn).parameters
    return {n for n, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}


@pytest.mark.parametrize("name", SCHEMA_OPTIMISERS)
def test_an_optimisers_schema_block_holds_each_of_its_settings(name: str) -> None:
    """The block of the optimiser's name gives every keyword the optimiser takes, and only
    those; the optimiser has no default of its own for any (the schema is the source)."""
    block = defaults("$defs", name)
    assert set(block) == _keywords(METHODS[name]) - {"population", "iterations", "seeds"}
    assert not set(_library_defaults(METHODS[name])) & set(block)


class _Given(Exception):
    """Raised by a recorder optimiser once it has its keywords (the test needs no result)."""


def _recorder(given: dict) -> Callable[..., Any]:
    def record(*args: Any, **kwargs: Any) -> Any:
        given.update(kwargs)
        raise _Given

    return record


def _validated_config() -> dict:
    import yaml
    from schema_blocks import SCHEMA

    from paramid.config import validate

    config = yaml.safe_load((SCHEMA.parents[2] / "config.yaml").read_text())
    validate(config, SCHEMA)
    return config


def _stages(study: dict) -> dict[str, dict]:
    return {
        "tuning": study["tuning"],
        "ipso": study["ipso"],
        "lm_ga.ga": study["lm_ga"]["ga"],
        "ekf_dqpso.dqpso": study["ekf_dqpso"]["dqpso"],
    }


def test_a_calibration_stage_gets_its_methods_schema_settings() -> None:
    """The schema fills a calibration stage's ``settings`` from the block of its ``method``
    (config.yaml's MIPO tuning, IPSO and DQPSO stages), whatever the method (a stage switched
    to WOA gets WOA's; one leaving its method to the default gets that method's around the
    settings it gives), and refuses a setting its method's block lacks, naming the field."""
    import yaml
    from schema_blocks import SCHEMA

    from paramid.config import ConfigError, validate

    config = _validated_config()
    methods = set()
    for study in config["calibration"].values():
        for stage in _stages(study).values():
            if stage["method"] in SCHEMA_OPTIMISERS:
                methods.add(stage["method"])
                assert stage["settings"] == defaults("$defs", stage["method"]), stage
    assert {"mipo", "ipso", "dqpso"} <= methods
    raw = yaml.safe_load((SCHEMA.parents[2] / "config.yaml").read_text())
    study = next(iter(raw["calibration"].values()))
    study["tuning"] |= {"method": "woa", "settings": {}}
    study["ipso"] = {"settings": {"velocity_clamp": 0.3}}  # its method left to the default
    validate(raw, SCHEMA)
    assert study["tuning"]["settings"] == defaults("$defs", "woa")
    assert study["ipso"]["settings"] == defaults("$defs", "ipso") | {"velocity_clamp": 0.3}
    study["ekf_dqpso"]["dqpso"]["settings"] = {"beta": [1.0, 0.5], "bta": 1.0}
    with pytest.raises(ConfigError, match=r"dqpso\.settings.*bta"):
        validate(raw, SCHEMA)


@pytest.mark.parametrize("name", SCHEMA_OPTIMISERS)
def test_every_setting_of_a_calibration_stage_reaches_its_optimiser(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """calibration.identify gives a stage's optimiser the stage's settings: the schema's, and
    a change of any one of them (none is silently ignored)."""
    from paramid.calibration import identify

    given: dict[str, Any] = {}
    monkeypatch.setitem(METHODS, name, _recorder(given))
    block = defaults("$defs", name)
    for key, value in [(None, None), *block.items()]:
        settings = block if key is None else block | {key: _changed(value)}
        stage = {"method": name, "population": 4, "iterations": 2, "settings": settings}
        given.clear()
        with pytest.raises(_Given):
            identify._optimise(lambda X: X, np.zeros(2), np.ones(2), stage, [])
        assert {k: given[k] for k in block} == settings, (name, key)


@pytest.mark.parametrize("algorithm", sorted(cec_runs.ALGORITHMS))
def test_every_cec2022_setting_reaches_its_optimiser(
    algorithm: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run job's optimiser gets its ``cec2022.settings`` block (the schema's defaults, or a
    change of any one setting) through the job's params and run_job; an optimiser without a
    block gets no settings."""
    from paramid.cec2022 import workflow

    name = cec_runs.ALGORITHMS[algorithm]
    config = _validated_config()
    block = config["cec2022"]["settings"].get(name, {})
    assert block == (defaults("$defs", name) if name in SCHEMA_OPTIMISERS else {})
    assert set(config["cec2022"]["settings"]) <= set(SCHEMA_OPTIMISERS)
    given: dict[str, Any] = {}
    monkeypatch.setitem(METHODS, name, _recorder(given))
    wildcards = type("Wildcards", (), {"algorithm": algorithm, "dim": "10"})()
    for key, value in [(None, None), *block.items()]:
        settings = block if key is None else block | {key: _changed(value)}
        config["cec2022"]["settings"] = {name: settings}
        params = workflow.Cec2022Benchmark(config, {}, ".").run_params(wildcards)
        assert params["optimiser_settings"] == settings
        given.clear()
        with pytest.raises(_Given):
            cec_runs.run_configured(
                1, 10, algorithm, **{k: params[k] for k in cec_runs.RUN_SETTINGS},
                optimiser_settings=params["optimiser_settings"],
            )  # fmt: skip
        assert {k: given[k] for k in settings} == settings, (algorithm, key)


def test_the_twins_friction_ranges_reach_its_true_parameters(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A robot twin's ``twin.friction`` ranges (the schema's, or a change of any one) are the
    ranges true_parameters is given where the library builds the twin's truth (a record, the
    excitation comparison's twin)."""
    from paramid.robot import excitation

    config = _validated_config()
    twin = next(r["twin"] for r in config["robots"].values() if "twin" in r)
    block = defaults("robots", "*", "twin", "friction")
    assert twin["friction"] == block
    given: dict[str, Any] = {}
    monkeypatch.setattr(robot_twin, "true_parameters", _recorder(given))
    monkeypatch.setattr(excitation, "true_parameters", _recorder(given))
    for key, value in [(None, None), *block.items()]:
        ranges = block if key is None else block | {key: _changed(value)}
        block_of = twin | {"friction": ranges}
        for job in ("record", "excitation"):
            given.clear()
            with pytest.raises(_Given):
                if job == "record":
                    robot_twin.simulate_record(None, block_of, {}, 1.0, "calibration")
                else:
                    excitation.twin_setup(None, None, block_of, {}, 1)
            assert {k: given[k] for k in block} == ranges, (job, key)


@pytest.mark.parametrize(("family", "method", "block"), _optimiser_blocks())
def test_every_setting_an_optimiser_takes_is_in_the_schemas_block(
    family: str, method: str, block: str
) -> None:
    """The other way round: every keyword the optimiser takes is given from the schema's block
    (or, AGWO's gamma, by the method), so none runs at a library default the config cannot set
    and the provenance does not record."""
    spec = population.POPULATION_METHODS[method]
    given = population.optimiser_settings(method, defaults(family, "*", block), 0.03)
    parameters = inspect.signature(spec.run).parameters
    keywords = {n for n, p in parameters.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    missing = keywords - set(given)
    assert not missing, f"{family}.*.{block} lacks {sorted(missing)} of {spec.optimiser}"
