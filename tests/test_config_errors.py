"""Configs the schema accepts never crash a job: each case of issue #15 item 5 is refused by the
schema or by paramid.config with its field named, in a few lines; bad files in a study get the
project's own message and nothing is written."""

from __future__ import annotations

import copy
import os
from collections.abc import Callable
from pathlib import Path

import jsonschema
import loaders
import pytest

from paramid import config as config_checks
from paramid import ingest, io
from paramid.hip import workflow as hip_workflow
from paramid.io import UserError

SCHEMA = "workflow/schemas/config.schema.yaml"


@pytest.fixture(scope="module")
def raw(repo_root) -> dict:
    """config.yaml as written (defaults not yet filled)."""
    return io.read_yaml(repo_root / "config.yaml")


def _refused(raw: dict, repo_root, check_config, edit: Callable[[dict], None]) -> str:
    config = copy.deepcopy(raw)
    edit(config)
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
        check_config(config)
    return str(err.value)


def _hip(edit: Callable[[dict], None]) -> Callable[[dict], None]:
    return lambda c: edit(c["studies"]["hip"])


CASES = {
    "margin sweep without methods": (
        _hip(lambda s: s["sweeps"]["margin"].pop("methods")),
        ["studies.hip.sweeps.margin", "'methods' is a required property"],
    ),
    "leave-one-out without methods": (
        _hip(lambda s: s["sweeps"].update(leave_one_trajectory_out={})),
        ["studies.hip.sweeps.leave_one_trajectory_out", "'methods'"],
    ),
    "population sweep below the smallest population": (
        _hip(lambda s: s["sweeps"]["population"].update(values=[2, 30])),
        ["studies.hip.sweeps.population.values[0] = 2"],
    ),
    "ga.elitism: 0 (the GA keeps at least one elite)": (
        _hip(lambda s: s.update(ga={"elitism": 0})),
        ["studies.hip.ga.elitism = 0", "less than the minimum of 1"],
    ),
    "methods: []": (
        _hip(lambda s: s.update(methods=[])),
        ["studies.hip.methods = []", "should be non-empty"],
    ),
    "cec2022.algorithms with 2 entries": (
        lambda c: c["cec2022"].update(algorithms=["MIPO", "PO"]),
        ["cec2022.algorithms = ['MIPO', 'PO']", "too short"],
    ),
    "cec2022.reference not compared": (
        lambda c: c["cec2022"].update(algorithms=["WOA", "HHO", "PO"]),
        ["cec2022.reference = 'MIPO' is not among cec2022.algorithms"],
    ),
    "twin sampled below twice the cutoff": (
        _hip(lambda s: s["twin"].update(sample_rate_hz=25.0)),
        ["studies.hip.signals.cutoff_hz = 15 Hz", "studies.hip.twin.sample_rate_hz = 25 Hz"],
    ),
    "twin cutoff sweep above Nyquist": (
        _hip(lambda s: s["sweeps"]["cutoff_hz"].update(values=[5.0, 50.0, 60.0])),
        ["studies.hip.sweeps.cutoff_hz.values [50.0, 60.0]", "Nyquist frequency 50 Hz"],
    ),
    "twin cutoff auto without a usable candidate": (
        _hip(lambda s: s["signals"].update(cutoff_hz="auto", cutoff_candidates_hz=[45.0])),
        ["studies.hip.signals.cutoff_candidates_hz", "sample_rate_hz = 100 Hz"],
    ),
    "twin record too short for trim and burn-in": (
        _hip(lambda s: s["records"]["calibration"].update(duration_s=1.2)),
        [
            "studies.hip.records.calibration.duration_s = 1.2 s is 120 samples",
            "rls.burn_in_s = 1 s",
            "need 153 samples",
        ],
    ),
    "twin validation record too short, fitted by leave_one_trajectory_out": (
        _hip(lambda s: s["records"]["validation"].update(duration_s=0.3)),
        ["studies.hip.records.validation.duration_s = 0.3 s is 30 samples", "need 153 samples"],
    ),
    "twin validation record too short for trim": (
        _hip(
            lambda s: (
                s["records"]["validation"].update(duration_s=0.3),
                s["sweeps"].pop("leave_one_trajectory_out"),
            )
        ),
        ["studies.hip.records.validation.duration_s = 0.3 s is 30 samples", "need 53 samples"],
    ),
    "chain twin below twice its cutoff": (
        lambda c: c["excitation"]["chain4"].setdefault("twin", {}).update(sample_rate_hz=20.0),
        ["excitation.chain4.identification.cutoff_hz = 15 Hz", "Nyquist frequency 10 Hz"],
    ),
    "unknown reference.values name": (
        lambda c: c["studies"]["pendulum"]["reference"]["values"].update(Myt=0.1),
        ["studies.pendulum.reference.values: ['Myt'] not parameters", "'tau0'"],
    ),
    "unknown rls.mechanical name": (
        _hip(lambda s: s["rls"].setdefault("mechanical", {}).update(tau0={"min": 0.0})),
        ["studies.hip.rls.mechanical: ['tau0'] not parameters"],
    ),
    "rls.mechanical min above max": (
        _hip(lambda s: s["rls"].setdefault("mechanical", {}).update(Jt={"min": 2.0, "max": 1.0})),
        ["studies.hip.rls.mechanical.Jt: min > max"],
    ),
    "study named like an excitation design": (
        lambda c: c["studies"].update(chain4=copy.deepcopy(c["studies"]["hip"])),
        ["excitation.chain4 and studies.chain4 would both write results/chain4"],
    ),
    "study named like a calibration study": (
        lambda c: c["studies"].update(kr210=copy.deepcopy(c["studies"]["pendulum"])),
        ["calibration.kr210 and studies.kr210"],
    ),
    "calibration paper model without a table identifier": (
        lambda c: c["calibration"]["kr210"]["models"]["paper"].update(identifiers=["ekf"]),
        ["calibration.kr210.models.paper.identifiers lacks", "'bc'"],
    ),
    "compliance group without its joints": (
        lambda c: c["calibration"]["kr210"]["models"]["complete_compliance"].pop(
            "compliance_joints"
        ),
        ["calibration.kr210.models.complete_compliance: compliance_joints"],
    ),
    "study named like a nonlinear study": (
        lambda c: c["studies"].update(hip_nonlinear=copy.deepcopy(c["studies"]["hip"])),
        ["nonlinear.hip_nonlinear and studies.hip_nonlinear"],
    ),
    "study named like the CEC folder": (
        lambda c: c["studies"].update(cec2022=copy.deepcopy(c["studies"]["hip"])),
        ["cec2022.output = 'results/cec2022' and studies.cec2022 would both write"],
    ),
    "nonlinear study on a measured base": (
        lambda c: c["nonlinear"]["hip_nonlinear"].update(base_study="pendulum"),
        ["nonlinear.hip_nonlinear.base_study = 'pendulum': a measured study"],
    ),
    "excitation design on a missing base": (
        lambda c: c["excitation"]["hip_designed"].update(base_study="hop"),
        ["excitation.hip_designed.base_study = 'hop': no such study"],
    ),
    "hip design period of a fractional number of samples": (
        lambda c: c["excitation"]["hip_designed"].update(period_s=5.003),
        ["excitation.hip_designed.period_s = 5.003 s is 500.3 samples", "sample_rate_hz = 100"],
    ),
    "chain design period of a fractional number of samples": (
        lambda c: c["excitation"]["chain4"].update(period_s=10.0025),
        ["excitation.chain4.period_s = 10.0025 s", "excitation.chain4.twin.sample_rate_hz"],
    ),
    "forgetting sweep against an auto forgetting factor": (
        lambda c: c["studies"]["pendulum"].update(
            sweeps={"forgetting": {"values": [0.99, 0.998], "methods": ["bcls"]}}
        ),
        ["studies.pendulum.sweeps.forgetting", "rls.forgetting a number"],
    ),
    "a required key misspelt": (
        lambda c: c["studies"]["pendulum"].update(
            regresor=c["studies"]["pendulum"].pop("regressor")
        ),
        ["'regressor' is a required property; the block has 'regresor': did you mean 'regressor'?"],
    ),
    "a derived reference value the reference does not give": (
        lambda c: c["studies"]["pendulum"]["reference"].update(derived=["Fc"]),
        ["studies.pendulum.reference.derived: ['Fc'] not among reference.values"],
    ),
    "a record missing, not misspelt": (
        lambda c: c["studies"]["pendulum"]["records"].pop("validation"),
        ["'validation' is a required property\n"],
    ),
    "a method misspelt": (
        _hip(lambda s: s.update(methods=["ls", "rls_agow"])),
        ["studies.hip.methods[1] = 'rls_agow'", "did you mean 'rls_agwo'?"],
    ),
    "a nonlinear method misspelt": (
        lambda c: c["nonlinear"]["hip_nonlinear"].update(methods=["rls_agwo", "newton"]),
        ["nonlinear.hip_nonlinear.methods[1] = 'newton'"],
    ),
    "an unknown friction law to fit": (
        lambda c: c["nonlinear"]["hip_nonlinear"].update(fitted=["stribeck", "lugre"]),
        ["nonlinear.hip_nonlinear.fitted[1] = 'lugre'"],
    ),
    "a study named with a hyphen": (
        lambda c: c["robots"].update({"my-arm": c["robots"]["kinova_gen3"]}),
        ["robots: the name 'my-arm' is not allowed", "lower-case letters, digits and _"],
    ),
    "measured record with a misspelt key": (
        lambda c: c["studies"]["pendulum"]["records"]["calibration"].update(unit={}),
        [
            "studies.pendulum.records.calibration = {'path'",
            "('unit' was unexpected); did you mean 'unit' -> 'units'?",
        ],
    ),
    "a robot record's units in a 1-DOF record's names": (
        lambda c: c["robots"]["kinova_gen3"]["records"]["calibration"][0].update(
            units={"time": "ms", "angle": "deg"}
        ),
        ["did you mean 'angle' -> 'q' (the name in this kind of record)?"],
    ),
    "a 1-DOF record's columns in a robot record's names": (
        lambda c: c["studies"]["pendulum"]["records"]["calibration"].update(columns={"tau": "T"}),
        ["did you mean 'tau' -> 'torque' (the name in this kind of record)?"],
    ),
    "a study's checks written inside its record": (
        lambda c: c["studies"]["pendulum"]["records"]["calibration"].update(
            checks={"skip": ["swapped"]}
        ),
        ["('checks' was unexpected); 'checks' belongs in studies.pendulum, not inside it"],
    ),
    "a robot study's checks written inside one of its records": (
        lambda c: c["robots"]["kinova_gen3"]["records"]["calibration"][0].update(
            checks={"skip": ["torque_units"]}
        ),
        ["'checks' belongs in robots.kinova_gen3, not inside it"],
    ),
    "a top-level block written inside a study": (
        lambda c: c["studies"]["hip"].update(cec2022=dict(c["cec2022"])),
        ["'cec2022' belongs in (top level), not inside it"],
    ),
    "a study's fit settings one block too deep, beside a misspelt key": (
        lambda c: c["studies"]["pendulum"]["records"].update(fit={}, calibratoin={}),
        ["'fit' belongs in studies.pendulum, not inside it", "'calibratoin' -> 'calibration'"],
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_accepted_configs_never_reach_a_job(raw, repo_root, check_config, case):
    edit, patterns = CASES[case]
    message = _refused(raw, repo_root, check_config, edit)
    for pattern in patterns:
        assert pattern in message, message
    assert len(message.splitlines()) <= 3 and "Failed validating" not in message


def test_schema_messages_are_short(raw, repo_root, check_config):
    message = _refused(
        raw, repo_root, check_config, _hip(lambda s: s["signals"].update(cutoff_hz=-1.0))
    )
    assert message.splitlines()[:2] == [
        "invalid config: studies.hip.signals.cutoff_hz = -1.0",
        "  -1.0 is less than or equal to the minimum of 0 or 'auto' was expected",
    ]
    limit = config_checks.MAX_VALUE_CHARS  # a value is shown whole up to the limit, then cut
    for text, shown in (("x" * (limit - 2), "x" * (limit - 2) + "'"), ("x" * limit, "x ...")):
        message = _refused(
            raw, repo_root, check_config, _hip(lambda s, t=text: s["signals"].update(cutoff_hz=t))
        )
        first = message.splitlines()[0]
        assert first.endswith(shown) and len(first.split(" = ", 1)[1]) == limit


def test_shipped_config_and_default_mechanical_limits_pass(raw, repo_root, check_config):
    config = copy.deepcopy(raw)
    # a regressor without qdd has no Jt, yet the default rls.mechanical names it
    config["studies"]["pendulum"]["regressor"] = ["g_sin_q", "sign_qd", "qd", "offset"]
    del config["studies"]["pendulum"]["reference"]
    config_checks.validate(config, repo_root / SCHEMA)
    check_config(config)
    schema = io.read_yaml(repo_root / SCHEMA)
    rls = schema["$defs"]["study"]["properties"]["rls"]["properties"]
    assert rls["mechanical"]["default"] == hip_workflow.DEFAULT_MECHANICAL
    assert config_checks.result_folders(config)["kr210"] == "calibration.kr210"


def test_duplicate_yaml_key_names_file_and_lines(tmp_path):
    path = tmp_path / "my.yaml"
    path.write_text("studies:\n  hip:\n    methods: [ls]\n    gravity: 9.8\n    methods: [bcls]\n")
    with pytest.raises(
        ingest.InputError,
        match=r"my\.yaml: .*line 5.*duplicate key 'methods' \(first given on line 3\)",
    ):
        io.read_yaml(path)


@pytest.mark.parametrize("kind", ["missing", "directory", "dangling symlink"])
def test_bad_record_paths_get_the_projects_message(tmp_path, kind):
    path = tmp_path / "cal.csv"
    if kind == "directory":
        path.mkdir()
    elif kind == "dangling symlink":
        os.symlink(tmp_path / "gone.csv", path)
    field = "studies.mine.records.calibration.path"
    expected = {
        "missing": "file not found",
        "directory": "a directory, not a file",
        "dangling symlink": "a symlink to .*gone.csv.*, which does not exist",
    }[kind]
    with pytest.raises(ingest.InputError, match=rf"{field} = '.*cal\.csv': {expected}"):
        io.check_file(path, field)
    with pytest.raises(ingest.InputError, match=expected):
        loaders.load_record(path, {})


def test_a_file_the_config_gives_inside_results_is_refused(tmp_path, monkeypatch):
    """A record pointed at a study's own output (results/mine/records/...) made a cycle that
    Snakemake skipped: "Nothing to be done", exit 0, the old tables kept as current. A file
    the config gives inside results/ (a symlink into it too) is refused; the workflow's own
    reads of results/ (no field) are not."""
    monkeypatch.chdir(tmp_path)
    inside = tmp_path / "results/mine/records/calibration.parquet"
    inside.parent.mkdir(parents=True)
    inside.write_text("x")
    (tmp_path / "data").mkdir()
    os.symlink(inside, tmp_path / "data/link.parquet")
    field = "studies.mine.records.calibration.path"
    for given in ("results/mine/records/calibration.parquet", "data/link.parquet"):
        with pytest.raises(ingest.InputError, match=rf"{field} = .*: inside results/, which"):
            io.check_file(given, field)
    assert io.check_file("results/mine/records/calibration.parquet") == Path(
        "results/mine/records/calibration.parquet"
    )


# End to end: a dry run stops at parse time with the project's message, nothing written.
USER = """\
studies:
  mine:
    records:
      calibration: {path: data/mine/cal.csv}
      validation: {path: data/pendulum/sysid_pd_measured.csv, columns: {angle: position}}
    regressor: [g_sin_q, qdd, sign_qd, qd, offset]
"""


def _dry_run_fails(workdir, *patterns: str) -> None:
    from test_workflow import snakemake

    out = snakemake(workdir, "-n", "--cores", "1", "studies", "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    for pattern in patterns:
        assert pattern in text, text[-3000:]
    assert "Traceback" not in text and len(text.splitlines()) < 12, text
    assert not (workdir / "results").exists() and not (workdir / "logs").exists()


@pytest.fixture()
def workdir(tmp_path, repo_root):
    from test_workflow import copy_workflow

    return copy_workflow(repo_root, tmp_path / "wf")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["missing", "directory", "dangling symlink"])
def test_dry_run_names_a_bad_record_path(workdir, kind):
    (workdir / "data/mine").mkdir()
    if kind == "directory":
        (workdir / "data/mine/cal.csv").mkdir()
    elif kind == "dangling symlink":
        os.symlink(workdir / "data/mine/gone.csv", workdir / "data/mine/cal.csv")
    (workdir / "my.yaml").write_text(USER)
    _dry_run_fails(workdir, "studies.mine.records.calibration.path = 'data/mine/cal.csv'")


@pytest.mark.slow
def test_dry_run_refuses_duplicate_keys_in_a_configfile(workdir):
    (workdir / "my.yaml").write_text("studies:\n  hip:\n    gravity: 9.8\n    gravity: 9.81\n")
    _dry_run_fails(workdir, "my.yaml: malformed YAML at line 4", "duplicate key 'gravity'")


@pytest.mark.slow
def test_dry_run_refuses_paper_values_that_are_not_a_mapping(workdir):
    (workdir / "data/hip/list.yaml").write_text("- 0.1\n- 0.2\n")
    (workdir / "my.yaml").write_text("studies:\n  hip:\n    paper_values: data/hip/list.yaml\n")
    _dry_run_fails(workdir, "studies.hip.paper_values = 'data/hip/list.yaml' holds a list")


@pytest.mark.slow
def test_dry_run_refuses_a_study_named_like_the_cec_folder(workdir):
    block = USER.replace("mine:", "cec2022:").replace("data/mine/cal.csv", "x.csv")
    (workdir / "my.yaml").write_text(block)
    _dry_run_fails(workdir, "cec2022.output = 'results/cec2022' and studies.cec2022")


SWEEP = "studies:\n  pendulum:\n    sweeps:\n      cutoff_hz: {values: [3.0, 6.0, 12.0]}\n"


@pytest.mark.slow
def test_cutoff_sweep_on_a_measured_study_builds(workdir):
    import pandas as pd
    from test_workflow import snakemake

    (workdir / "my.yaml").write_text(SWEEP)
    target = "results/pendulum/tables/sweep_cutoff_hz.csv"
    figure = "results/pendulum/figures/fig4b.png"
    out = snakemake(workdir, "--cores", "1", target, figure, "--configfile", "my.yaml")
    assert out.returncode == 0, out.stderr[-3000:]
    assert (workdir / figure).stat().st_size > 0
    table = pd.read_csv(workdir / target)
    assert table["value"].tolist() == [3, 6, 12] and set(table["method"]) == {"bcls"}
    assert table["val_median"].notna().all()


@pytest.mark.slow
def test_measured_cutoff_sweep_above_nyquist_is_refused(workdir):
    # the validation record is sampled at 300 Hz: 200 Hz lies above its Nyquist frequency
    (workdir / "my.yaml").write_text(SWEEP.replace("12.0", "200.0"))
    _dry_run_fails(workdir, "studies.pendulum.sweeps.cutoff_hz.values [200.0]", "Nyquist")


def test_the_rule_for_names_explained_is_the_schemas(repo_root):
    """config.NAME_PATTERN, whose reason a refused name is told, is every name rule of the
    schema (a rule changed there and not here would be explained wrongly)."""
    from paramid.config import NAME_PATTERN

    schema = io.read_yaml(repo_root / SCHEMA)
    patterns = set()

    def walk(node):
        if isinstance(node, dict):
            if isinstance(names := node.get("propertyNames"), dict) and "pattern" in names:
                patterns.add(names["pattern"])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert patterns == {NAME_PATTERN}


def test_every_schema_mistake_is_named_in_one_run(raw, repo_root):
    """A new config with two wrong units named the first only; the next run the second."""
    config = copy.deepcopy(raw)
    record = config["studies"]["pendulum"]["records"]["calibration"]
    record["units"] = {"angle": "degrees", "torque": "Nm"}
    config["studies"]["hip"]["ga"] = {"elitism": 0}
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    text = str(err.value)
    fields = (
        "studies.pendulum.records.calibration.units.angle = 'degrees'",
        "studies.pendulum.records.calibration.units.torque = 'Nm'",
        "studies.hip.ga.elitism = 0",
    )
    for field in fields:
        assert field in text, text
    assert text.count("invalid config:") == 3  # each unit under its own field


@pytest.mark.parametrize("methods", [8, config_checks.MAX_ERRORS])
def test_a_long_list_of_schema_mistakes_is_cut_and_counted(raw, repo_root, methods):
    config = copy.deepcopy(raw)
    config["studies"]["hip"]["ga"] = {"elitism": 0}
    config["studies"]["hip"]["methods"] = [f"m{k}" for k in range(methods)]
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    text = str(err.value)
    assert text.count("invalid config:") == config_checks.MAX_ERRORS
    assert text.endswith(f"(and {methods + 1 - config_checks.MAX_ERRORS} more)")


def test_two_mistakes_in_one_block_are_both_named(raw, repo_root):
    """An unknown key and a missing one in the same block: both (the review found the second
    hidden behind the first); a misspelt key is still named once."""
    config = copy.deepcopy(raw)
    config["studies"]["hip"]["foo"] = 1
    del config["studies"]["hip"]["regressor"]
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    text = str(err.value)
    assert "'regressor' is a required property" in text and "'foo' was unexpected" in text, text


def test_every_bad_study_name_is_named(raw, repo_root):
    config = copy.deepcopy(raw)
    config["robots"]["my-arm"] = config["robots"]["kinova_gen3"]
    config["robots"]["Other"] = config["robots"]["kinova_gen3"]
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    assert "robots: the names 'my-arm' and 'Other' are not allowed" in str(err.value)


def test_a_key_is_sent_only_to_an_enclosing_block_that_declares_it():
    """The nearest enclosing block whose schema (through $ref, oneOf and items) declares the
    key is named; a key declared nowhere above gets no such hint."""
    schema = {
        "$defs": {
            "record": {
                "type": "object",
                "additionalProperties": False,
                "properties": {"path": {"type": "string"}},
            }
        },
        "type": "object",
        "properties": {
            "study": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "checks": {"type": "object"},
                    "records": {
                        "oneOf": [
                            {"$ref": "#/$defs/record"},
                            {"type": "array", "items": {"$ref": "#/$defs/record"}},
                        ]
                    },
                },
            }
        },
    }
    assert config_checks._declared_keys(schema, schema, ["study", "records", 0]) == {"path"}
    config = {"study": {"records": [{"path": "a.csv", "checks": {}, "colour": 1}]}}
    [error] = jsonschema.Draft202012Validator(schema).iter_errors(config)
    [branch] = [e for e in error.context if e.validator == "additionalProperties"]
    assert config_checks._where_keys_belong(schema, config, branch) == {"checks": "study"}


def test_a_twin_records_mistake_names_its_field_not_a_measured_records_keys(raw, repo_root):
    """A twin record's negative duration read "Additional properties are not allowed
    ('columns', 'decimal', 'encoding', ... were unexpected) or 'path' is a required property":
    the measured kind's defaults, filled in while that kind was tried (oneOf). A record is
    measured when it names a path, else the twin's (if/then/else): its own field is named."""
    config = copy.deepcopy(raw)
    config["studies"]["hip"]["records"]["calibration"]["duration_s"] = -5.0
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    text = str(err.value)
    assert "studies.hip.records.calibration.duration_s = -5.0" in text, text
    assert "columns" not in text and "'path' is a required property" not in text
    config = copy.deepcopy(raw)  # a measured record's own mistakes are still its own
    config["studies"]["pendulum"]["records"]["calibration"]["trim_start_s"] = -1
    with pytest.raises(UserError, match=r"calibration\.trim_start_s = -1"):
        config_checks.validate(config, repo_root / SCHEMA)
    config = copy.deepcopy(raw)  # a study's key inside a measured record: named where it goes
    config["studies"]["pendulum"]["records"]["calibration"]["fit"] = {"spike_mad_k": 8}
    with pytest.raises(UserError, match=r"'fit' belongs in studies\.pendulum, not inside it"):
        config_checks.validate(config, repo_root / SCHEMA)


def test_a_nested_config_overrides_text_value_points_to_a_configfile(raw, repo_root):
    """`--config 'cec2022={population: 50}'` reaches the schema as '50' (Snakemake passes a
    nested value as text): the message says so and names --configfile; a value that is no
    number in any reading gets the plain message."""
    config = copy.deepcopy(raw)
    config["cec2022"] = {"population": "50"}
    with pytest.raises(UserError, match=r"'50' is not of type 'integer' \(text: .*--configfile"):
        config_checks.validate(config, repo_root / SCHEMA)
    config["cec2022"] = {"population": "fifty"}
    with pytest.raises(UserError) as err:
        config_checks.validate(config, repo_root / SCHEMA)
    assert "'fifty' is not of type 'integer'" in str(err.value)
    assert "--configfile" not in str(err.value)
