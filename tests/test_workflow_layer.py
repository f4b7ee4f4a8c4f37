"""The workflow's Python (paramid.workflow and each family's workflow module) on the shipped
config: wildcard patterns, start-up errors, config subsets, input functions and targets, without
running Snakemake."""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import os
import re
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

import loaders
import pandas as pd
import pytest
import yaml

from paramid import ingest, io, workflow
from paramid.calibration.workflow import CalibrationStudies
from paramid.cec2022.workflow import Cec2022Benchmark
from paramid.config import ConfigError, result_folders
from paramid.excitation.workflow import ExcitationDesigns
from paramid.friction.workflow import NonlinearStudies
from paramid.hip.workflow import HipStudies
from paramid.io import UserError
from paramid.robot.workflow import RECORD_ID, RobotStudies

ROOT = Path(__file__).resolve().parents[1]


def wc(**values: str) -> SimpleNamespace:
    """Wildcards as a job sees them (attribute access)."""
    return SimpleNamespace(**values)


def test_one_of_matches_exactly_the_names():
    pattern = workflow.one_of(["hip", "kr.210"])
    assert re.fullmatch(pattern, "kr.210") and not re.fullmatch(pattern, "krx210")
    assert not re.fullmatch(workflow.one_of([]), "")


RULES = {"all": False, "audit": False, "studies": False, "hip_tables": True}


def test_a_target_of_a_study_the_config_lacks_is_named_with_the_fix():
    """``snakemake mine`` or ``results/mine/...`` without the config file that has ``mine``
    (Snakemake alone: "No rule to produce mine") match one rule, whose input ends the run with
    one line naming the studies and the likely fix; a known study's outputs and inputs never
    match."""
    pattern = re.compile(
        workflow.unknown_study(["hip", "kr210", "cec2022"], ["Snakefile", "LICENSE"])
    )
    for target in (
        "mine",
        "Cec2O22",
        "results/mine",
        "results/mine/tables/table3.csv",
        "results/hipp/x",
        "results/HIP/x",
    ):
        assert pattern.fullmatch(target), target
    for target in (
        "hip",
        "results/hip/tables/table3.csv",
        "results/cec2022/tables/d10.csv",
        "results/provenance.json",
        "data/mine/cal.csv",
        "config.yaml",
        "Snakefile",
        "LICENSE",
    ):
        assert not pattern.fullmatch(target), target
    rules = [SimpleNamespace(name=n, has_wildcards=lambda w=w: w) for n, w in RULES.items()]
    stop = workflow.no_such_study(
        {"hip": "studies.hip", "mine": "studies.mine"}, ["my.yaml"], rules
    )
    with pytest.raises(
        SystemExit,
        match=r"^paramid: results/hipp/x: no study 'hipp' .*read from config.yaml, my.yaml; its "
        r"studies: hip, mine\): did you mean 'hip'\? is it in another config file\? give",
    ):
        stop(SimpleNamespace(target="results/hipp/x"))
    alone = workflow.no_such_study({"hip": "studies.hip"}, [], rules)
    with pytest.raises(SystemExit, match=r"^paramid: lab: no study 'lab' .*hip\): a study of your"):
        alone(SimpleNamespace(target="lab"))
    with pytest.raises(
        SystemExit, match=r"'Hipp'.*: study names are lower case: did you mean 'hip'"
    ):
        alone(SimpleNamespace(target="Hipp"))
    for typo, target in (("audti", "audit"), ("studys", "studies"), ("ALL", "all")):
        with pytest.raises(SystemExit, match=rf": did you mean the target '{target}'\?$"):
            alone(SimpleNamespace(target=typo))
    with pytest.raises(SystemExit, match=r"a study of your"):  # a rule with wildcards: no target
        alone(SimpleNamespace(target="hip_tabels"))


def test_a_user_error_ends_the_run_with_one_line():
    def bad():
        raise ConfigError("studies.mine.signals.cutoff_hz: too high")

    with pytest.raises(SystemExit) as stop:
        workflow.checked(bad)
    assert str(stop.value) == "paramid: studies.mine.signals.cutoff_hz: too high"
    assert workflow.checked(lambda: 3) == 3
    with pytest.raises(KeyError):  # a bug is not a user error: its traceback stays
        workflow.checked(lambda: {}["x"])


def test_benchmark_path_follows_the_wildcards_of_the_output():
    path = workflow.benchmark_path("hip_fit", "results/{study}/fits/{method}.parquet")
    assert path == "logs/benchmarks/hip_fit/{study}/{method}.tsv"
    assert (
        workflow.benchmark_path("provenance", "results/provenance.json")
        == "logs/benchmarks/provenance.tsv"
    )


class FakeRule:
    """The parts of a Snakemake rule that apply_rule_template reads and sets."""

    def __init__(self, name, script, snakefile="workflow/rules/hip.smk", log=("logs/x.log",)):
        self.name, self.script, self.snakefile, self.log = name, script, snakefile, list(log)
        self.norun, self.docstring, self.priority = False, None, 0
        self.params = SimpleNamespace(_names={}, items=lambda: self._params.items())
        self._params, self.input = {}, {}
        self.output, self.log_modifier = ["results/{study}/fits/{method}.parquet"], object()

    def set_input(self, **files):
        self.input.update(files)

    def set_params(self, **values):
        self._params.update(values)
        self.params._names.update(dict.fromkeys(values))


def test_the_rule_template_gives_scripted_rules_code_settings_benchmark_and_priority(
    monkeypatch,
):
    """Each scripted rule's params (its code version included) become an input, so its jobs
    rerun when its settings or library code change; only the rules of the files named first
    get the priority; a rule without a log, or running another rule's script, is refused."""
    monkeypatch.setenv("PARAMID_CHECKOUT", "")  # the template sets it; restored afterwards
    monkeypatch.setattr(workflow, "script_code", lambda basedir, script: f"code of {script}")
    fit, run = (
        FakeRule("hip_fit", "scripts/hip_fit.py"),
        FakeRule("cec2022_run", "x/cec2022_run.py"),
    )
    run.snakefile = "workflow/rules/cec2022.smk"
    workflow.apply_rule_template(SimpleNamespace(basedir=ROOT, rules=[fit, run]), ["hip.smk"], 7)
    settings = fit.input["settings"]
    assert isinstance(settings, workflow.SettingsFile)
    assert settings.params == {"code": "code of hip_fit.py"}
    assert fit.benchmark == "logs/benchmarks/hip_fit/{study}/{method}.tsv"
    assert (fit.priority, run.priority) == (7, 0)
    for rule, said in (
        (FakeRule("hip_fit", "scripts/hip_fit.py", log=()), "hip_fit declares no log"),
        (FakeRule("hip_fit", "scripts/hip_plot.py"), "rule hip_fit runs scripts/hip_plot.py"),
    ):
        with pytest.raises(ValueError, match=said):
            workflow.apply_rule_template(SimpleNamespace(basedir=ROOT, rules=[rule]), [], 7)


def test_paper_values_must_be_a_mapping_and_are_checked_again_when_their_parser_changes(
    tmp_path, monkeypatch
):
    """The stamp is keyed by the code of the module that parses the values."""
    monkeypatch.chdir(tmp_path)
    Path("values.yaml").write_text("- 1\n- 2\n")
    with pytest.raises(io.InputError, match=r"studies\.hip\.paper_values = 'values.yaml' holds"):
        workflow.check_paper_values("values.yaml", "studies.hip.paper_values")
    Path("values.yaml").write_text("table: 1\n")
    parsed = []

    def parse(values, path):
        parsed.append(path)

    parse.__module__ = "paramid.audit"
    workflow.mark_validated(workflow.check_paper_values("values.yaml", "f", parse))
    assert workflow.check_paper_values("values.yaml", "f", parse) == [] and len(parsed) == 1
    edited(monkeypatch, "audit.py")
    workflow.check_paper_values("values.yaml", "f", parse)
    assert len(parsed) == 2


def edited(monkeypatch, name: str) -> None:
    """Make the code version of the library module ``name`` (a file name) differ."""
    real = workflow.codehash.code_version
    monkeypatch.setattr(
        workflow.codehash,
        "code_version",
        lambda path, *a: real(path, *a) + ("edited" if Path(path).name == name else ""),
    )


def test_the_scheduler_wake_ups_are_cancelled_and_no_other_timer():
    """Snakemake's own scheduler arms the timer; cancelled, it ends without waking the
    scheduler, and a timer of anyone else keeps running."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    wake = threading.Semaphore(0)
    before = set(threading.enumerate())
    JobScheduler._schedule_reevalutation(SimpleNamespace(_open_jobs=wake), 60)
    (armed,) = set(threading.enumerate()) - before
    other = threading.Timer(60, lambda: None)
    other.start()
    try:
        assert workflow.cancel_scheduler_wakeups() == 1
        armed.join(5)
        assert not armed.is_alive() and not wake.acquire(blocking=False)
        assert other.is_alive() and workflow.cancel_scheduler_wakeups() == 0
    finally:
        other.cancel()


def test_validation_stamps_skip_a_second_check(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = tmp_path / "r.csv"
    record.write_text("time,angle,torque\n0,0,0\n")
    done, stamp = workflow.validated_before(record, {"a": 1}, "paramid.workflow")
    assert not done
    workflow.mark_validated([stamp])
    assert workflow.validated_before(record, {"a": 1}, "paramid.workflow")[0]
    assert not workflow.validated_before(record, {"a": 2}, "paramid.workflow")[0]
    record.write_text("time,angle,torque\n0,0,1\n")
    assert not workflow.validated_before(record, {"a": 1}, "paramid.workflow")[0]
    done, stamp = workflow.validated_before(record, {"a": 1}, "paramid.workflow")
    workflow.mark_validated([stamp])
    edited(monkeypatch, "io.py")  # paramid.io reads every checked file
    assert not workflow.validated_before(record, {"a": 1}, "paramid.workflow")[0]


def test_settings_file_names_a_job_params_by_their_hash(tmp_path, monkeypatch):
    """A job's params become an input named by their hash: equal params share a file written
    once, any change of a value or of the code version names another; params derived from
    files are left out, as Snakemake leaves them out of its own record.  The input is not
    ``ancient``: without Snakemake's record a new settings file is newer than the outputs."""
    from snakemake.io import is_flagged

    monkeypatch.chdir(tmp_path)
    block = {"fit": {"min_explained_variance": 0.1}, "method": "ls"}
    settings = workflow.SettingsFile(
        "hip_fit",
        {
            "cfg": lambda wildcards: block | {"study": wildcards.study},
            "code": "248a7472f5514e64",
            "derived": lambda wildcards, input: input[0],
        },
    )
    path = settings(wc(study="hip"))
    assert not is_flagged(path, "ancient")
    assert path.startswith(".snakemake/paramid-settings/hip_fit/")
    written = json.loads(Path(path).read_text())
    assert written == {"cfg": block | {"study": "hip"}, "code": "248a7472f5514e64"}
    digest = Path(path).parent.name
    assert digest == hashlib.sha256(Path(path).read_text().rstrip("\n").encode()).hexdigest()
    mtime = Path(path).stat().st_mtime_ns
    assert settings(wc(study="hip")) == path and Path(path).stat().st_mtime_ns == mtime
    assert settings(wc(study="pendulum")) != path
    block["fit"]["min_explained_variance"] = 0.2
    assert settings(wc(study="hip")) != path
    recoded = workflow.SettingsFile("hip_fit", dict(settings.params) | {"code": "0" * 16})
    assert recoded(wc(study="hip")) not in (path, settings(wc(study="hip")))
    assert len(list((tmp_path / workflow.SETTINGS / "hip_fit").glob("*/params.json"))) == 4


def test_provenance_leaves_out_snakemake_own_files(tmp_path, monkeypatch):
    from paramid import io

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r.csv").write_text("time\n0\n")
    stamp = tmp_path / ".snakemake/paramid-settings/r/x.json"
    stamp.parent.mkdir(parents=True)
    stamp.write_text("{}")
    meta = io.provenance({"a": 1}, ["r.csv", ".snakemake/paramid-settings/r/x.json"])
    assert list(meta["inputs"]) == ["r.csv"]


def test_file_digest_is_remembered_by_size_and_time_once_settled(tmp_path, monkeypatch):
    """The SHA-256 of a settled file is read back while its size and times stay; any change of
    either hashes it again, new content under the same size and modification time too (its
    change time moved); a file modified just now is never remembered."""
    import time

    from paramid import codehash

    monkeypatch.setattr(codehash._Store, "imports", {})
    monkeypatch.setattr(codehash._Store, "path", None)
    monkeypatch.setattr(codehash._Store, "dirty", False)
    store = tmp_path / "store.json"
    codehash.use_store(store)
    record = tmp_path / "r.csv"
    record.write_text("time,angle,torque\n0,0,0\n")
    key = f"file:{record.resolve()}"
    fresh = codehash.file_digest(record)
    assert fresh == hashlib.sha256(record.read_bytes()).hexdigest()
    codehash._save()
    assert not store.exists()  # modified just now: not remembered
    os.utime(record, ns=(10**18, 10**18))  # settled (2001)
    assert codehash.file_digest(record) == fresh
    codehash._save()
    saved = json.loads(store.read_text())
    stat = record.stat()
    assert saved[key] == [str(v) for v in (stat.st_size, 10**18, stat.st_ctime_ns, stat.st_ino)] + [
        fresh
    ]
    monkeypatch.setattr(codehash._Store, "imports", {})  # a new start reads the file
    saved[key][4] = "planted"
    store.write_text(json.dumps(saved))
    codehash.use_store(store)
    assert codehash.file_digest(record) == "planted"
    record.write_text("time,angle,torque\n0,0,1\n")  # same size, new time
    os.utime(record, ns=(10**18 + 1, 10**18 + 1))
    assert codehash.file_digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    settled = codehash.file_digest(record)
    time.sleep(0.05)  # past the kernel clock's tick, which stamps the change time
    record.write_text("time,angle,torque\n0,0,2\n")  # same size and time (cp -p, touch -r)
    os.utime(record, ns=(10**18 + 1, 10**18 + 1))
    assert codehash.file_digest(record) == hashlib.sha256(record.read_bytes()).hexdigest()
    assert codehash.file_digest(record) != settled


def test_a_validated_config_is_remembered_with_its_defaults_and_order(tmp_path, monkeypatch):
    """The second start with an unchanged config reads the filled config back (same keys, same
    order, same types) instead of validating; a changed value is validated again."""
    schema = shutil.copy(ROOT / "workflow" / "schemas" / "config.schema.yaml", tmp_path)
    settings = workflow.io.read_yaml(ROOT / "config.yaml")
    monkeypatch.chdir(tmp_path)
    first = workflow.validated(copy.deepcopy(settings), schema)
    assert len(list((tmp_path / workflow.VALIDATED).glob("config-*.json"))) == 1
    calls = []
    monkeypatch.setattr(workflow, "validate", lambda *a: calls.append(a))
    again = workflow.validated(copy.deepcopy(settings), schema)
    assert again == first and not calls
    assert json.dumps(again) == json.dumps(first)  # key order kept (it orders the targets)
    settings["cec2022"]["runs"] = 7
    workflow.validated(settings, schema)
    assert len(calls) == 1
    Path(schema).write_text(Path(schema).read_text() + "\n# an edited schema\n")
    workflow.validated(copy.deepcopy(settings), schema)
    edited(monkeypatch, "config.py")  # the validating code
    workflow.validated(copy.deepcopy(settings), schema)
    assert len(calls) == 3
    settings["studies"] = dict(reversed(settings["studies"].items()))
    assert list(workflow.validated(settings, schema)["studies"]) == list(settings["studies"])


def test_a_users_block_with_its_own_records_replaces_a_shipped_one_of_that_name(
    tmp_path, monkeypatch, capsys
):
    """A user's own ``pendulum`` (their records, the README's block) took the shipped study's
    column names and reference values and failed on them; a block without records still
    changes one setting of the shipped study."""
    schema = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)
    records = {role: {"path": f"data/mine/{role}.csv"} for role in ("calibration", "validation")}
    mine = {"records": records, "regressor": ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]}
    given = {"studies": {"pendulum": mine, "hip": {"signals": {"trim_s": 0.3}}}}
    workflow.load_config(config := copy.deepcopy(given), [], schema)
    assert capsys.readouterr().err == (
        "paramid: studies.pendulum of the given config replaces the shipped study of that name "
        "whole (its outputs go to results/pendulum/, the shipped one's folder: name yours "
        "otherwise to keep both)\n"
    )
    workflow.load_config(copy.deepcopy(given), [], schema, main_process=False)  # a cluster job
    assert capsys.readouterr().err == ""
    mine = config["studies"]["pendulum"]
    assert mine["records"]["calibration"]["columns"] == {}  # not the shipped {angle: position}
    assert "values" not in mine.get("reference", {}) and "DFKI" not in str(mine)
    assert config["studies"]["hip"]["signals"]["trim_s"] == 0.3
    assert config["studies"]["hip"]["records"]  # the shipped twin records kept
    assert list(config["studies"]) == ["hip", "pendulum"]
    # a twin's longer record, or one record re-pointed, still changes the shipped study
    partial = {"hip": {"records": {"calibration": {"duration_s": 10.0}}}}
    partial["pendulum"] = {"records": {"validation": {"path": "data/mine/validation.csv"}}}
    workflow.load_config(config := {"studies": partial}, [], schema)
    assert config["studies"]["hip"]["regressor"] and config["studies"]["pendulum"]["reference"]
    pendulum = config["studies"]["pendulum"]["records"]
    assert pendulum["calibration"]["columns"] == {"angle": "position"}
    assert pendulum["validation"]["path"] == "data/mine/validation.csv"
    records = {"calibration": {"path": "data/mine/c.csv"}, "validation": {"columns": {}}}
    workflow.load_config(config := {"studies": {"pendulum": {"records": records}}}, [], schema)
    assert config["studies"]["pendulum"]["records"]["validation"]["path"].startswith("data/pend")
    capsys.readouterr()
    # a copy of config.yaml as --configfile: its blocks equal the shipped ones, nothing to say
    workflow.load_config(copy.deepcopy(workflow.io.read_yaml("config.yaml")), [], schema)
    assert capsys.readouterr().err == ""


def test_a_users_robot_with_its_own_records_replaces_a_shipped_one_and_overlays_are_read(
    tmp_path, monkeypatch, capsys
):
    """Robot blocks follow the rule of study blocks; a key given twice in an overlay (which
    Snakemake would keep the last of silently) is named with the overlay's file and line."""
    schema = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)
    shipped = yaml.safe_load((ROOT / "config.yaml").read_text())["robots"]["kinova_gen3"]
    mine = {key: value for key, value in shipped.items() if key != "armature"}
    mine["records"] = {"calibration": [{"path": "a.csv"}], "validation": [{"path": "b.csv"}]}
    workflow.load_config(config := {"robots": {"kinova_gen3": mine}}, [], schema)
    assert "robots.kinova_gen3 of the given config replaces" in capsys.readouterr().err
    assert config["robots"]["kinova_gen3"].get("armature") != shipped["armature"]
    overlay = tmp_path / "mine.yaml"
    overlay.write_text("cec2022:\n  runs: 3\n  runs: 4\n")
    with pytest.raises(io.InputError, match=r"mine\.yaml: malformed YAML at line 3"):
        workflow.load_config({"cec2022": {"runs": 4}}, [str(overlay)], schema)


def test_a_robots_single_record_may_be_a_mapping(tmp_path, monkeypatch):
    """One calibration or validation record written as a mapping (the 1-DOF form) failed the
    schema ('is not of type array'), and re-pointing a shipped robot's record so would have
    met the shipped list in the merge; it is a list of one."""
    schema = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")
    shutil.copy(ROOT / "config.yaml", tmp_path / "config.yaml")
    monkeypatch.chdir(tmp_path)
    block = copy.deepcopy(yaml.safe_load((ROOT / "config.yaml").read_text())["robots"])
    mine = block["kinova_gen3"] | {"records": {"calibration": {"path": "a.csv"}}}
    mine["records"]["validation"] = {"path": "b.csv", "units": {"time": "ms"}}
    workflow.load_config(config := {"robots": {"mine": mine}}, [], schema)
    records = config["robots"]["mine"]["records"]
    assert [r["path"] for r in records["calibration"] + records["validation"]] == ["a.csv", "b.csv"]
    moved = {"kinova_gen3": {"records": {"validation": {"path": "c.csv"}}}}
    workflow.load_config(config := {"robots": moved}, [], schema)
    assert [r["path"] for r in config["robots"]["kinova_gen3"]["records"]["validation"]] == [
        "c.csv"
    ]


def test_the_cutoff_candidates_never_reach_a_fixed_chain():
    signals = {"cutoff_hz": "auto", "cutoff_candidates_hz": [1.0], "cv_blocks": 5, "trim_s": 0.2}
    assert workflow.fixed_signal_settings(signals) == {"cutoff_hz": "auto", "trim_s": 0.2}


def test_a_study_named_like_a_rule_is_refused(config):
    hip = HipStudies(config)
    rules = [SimpleNamespace(name="hip"), SimpleNamespace(name="all")]
    with pytest.raises(ConfigError, match="named 'hip', the name of a rule"):
        workflow.study_targets([hip], rules)
    targets = dict(workflow.study_targets([hip], [SimpleNamespace(name="all")]))
    assert targets["hip"] == hip.study_targets("hip")


def test_a_family_target_rule_takes_every_study_in_config_order(config):
    """`snakemake studies` builds each study's targets (the family's, from one base class)."""
    hip = HipStudies(config)
    assert hip.names == list(config["studies"])
    assert hip.targets() == [t for name in hip.names for t in hip.study_targets(name)]
    assert len(hip.names) > 1 and hip.targets()[0] in hip.study_targets(hip.names[0])


def test_hip_params_are_narrow_config_subsets(config):
    hip = HipStudies(config)
    assert hip.twin == ["hip"] and hip.measured == ["pendulum"]
    fit = hip.fit_params(wc(study="hip", method="bcls"))
    assert set(fit) == {"method", "regressor", "fit", "skip_torque_sign"}
    ga = hip.fit_population_params(wc(study="hip", method="rls_ga"))
    assert "ga" in ga and "pso" not in ga
    signals = hip.signals_params(wc(study="pendulum"))["signals"]
    assert signals["cutoff_hz"] == "auto" and "cutoff_candidates_hz" not in signals
    assert hip.chosen_cutoff(wc(study="pendulum")) == ["results/pendulum/signals/cutoff.json"]
    assert hip.chosen_cutoff(wc(study="hip")) == []
    assert hip.rls_bounds(wc(study="hip", method="ls")) == []
    assert "agwo" not in hip.rls_params(wc(study="hip"))  # κ reruns no RLS, no BCLS


def test_only_studies_with_something_to_audit_have_an_audit_rule(config):
    """A measured study without paper values or reference parameters has no audit: asking for
    its audit.md is "no rule" (the hip_audit constraint), not a TypeError inside the job."""
    own = copy.deepcopy(config)
    own["studies"]["mine"] = copy.deepcopy(own["studies"]["pendulum"])
    del own["studies"]["mine"]["reference"]
    hip = HipStudies(own)
    assert hip.audited_names == ["hip", "pendulum"]
    assert not any(t.endswith("audit.csv") for t in hip.study_targets("mine"))


def test_hip_sweeps_read_their_own_methods_optimisers_only(config):
    """A GA setting reruns no sweep of GWO/AGWO alone (margin: rls_gwo, rls_agwo)."""
    hip = HipStudies(config)
    margin = hip.sweep_value_params(wc(study="hip", sweep="margin", value="0.2"))["settings"]
    assert "agwo" in margin and not {"ga", "pso"} & set(margin)
    forgetting = hip.sweep_params(wc(study="hip", sweep="forgetting"))["settings"]
    assert "agwo" in forgetting and not {"ga", "pso"} & set(forgetting)
    population = hip.sweep_params(wc(study="hip", sweep="population"))["settings"]
    assert {"ga", "pso", "agwo"} <= set(population)
    grid = hip.sweep_params(wc(study="hip", sweep="agwo_grid"))["settings"]
    assert "agwo" in grid and not {"ga", "pso"} & set(grid)


def test_hip_value_sweeps_never_see_the_list_of_values(config):
    hip = HipStudies(config)
    params = hip.sweep_value_params(wc(study="hip", sweep="margin", value="0.2"))
    assert "values" not in params["sweep_config"] and params["value"] == "0.2"
    config["studies"]["hip"]["rls"]["margin"] = 0.3  # the value sets it: no point reruns
    again = HipStudies(config).sweep_value_params(wc(study="hip", sweep="margin", value="0.2"))
    assert again == params and "margin" not in params["settings"]["rls"]
    cutoff = hip.sweep_value_params(wc(study="hip", sweep="cutoff_hz", value="10"))
    assert cutoff["sweep_config"] == {"twin_seeds": 30} and "twin" in cutoff["settings"]
    assert hip.sweep_value_inputs(wc(study="hip", sweep="cutoff_hz")) == {}
    points = hip.sweep_points(wc(study="hip", sweep="margin"))
    assert points[0] == "results/hip/sweeps/margin/0.parquet" and len(points) == 5


def test_hip_figures_read_what_they_draw(config):
    hip = HipStudies(config)
    fig3d = hip.figure_inputs(wc(study="hip", figure="fig3d"))
    assert fig3d["bcls"] == "results/hip/fits/bcls.parquet" and len(fig3d["histories"]) == 5
    fig4b = hip.figure_inputs(wc(study="hip", figure="fig4b"))
    assert fig4b["table"] == "results/hip/tables/sweep_cutoff_hz.csv" and len(fig4b["points"]) == 5
    assert hip.figure_params(wc(study="hip", figure="fig4a"))["sweep"] == "margin"
    targets = hip.study_targets("hip")
    for name in ("fig3a", "fig4a", "fig4b", "sweep_agwo_grid"):
        assert f"results/hip/figures/{name}.png" in targets
    assert "results/hip/audit.md" in targets and "results/hip/tables/cutoff.csv" not in targets
    assert "results/pendulum/tables/cutoff.csv" in hip.study_targets("pendulum")


def test_robot_records_and_figures(config):
    robots = RobotStudies(config)
    assert robots.twin == ["gen3_twin"] and robots.excitation == ["gen3_twin"]
    assert robots.record_ids("kinova_gen3", "validation") == [
        "opti_traj_testing2",
        "RecordTrajectory_quadratic",
    ]
    assert robots.figure_inputs(wc(study="kinova_gen3", figure="rmse")) == {
        "validation": "results/kinova_gen3/tables/validation.csv"
    }
    lmi = robots.fit_params(wc(study="kinova_gen3", method="lmi"))["settings"]
    assert lmi["weight"] == "auto" and lmi["metric"] == "robot" and lmi["rule"] == "one_se"
    assert robots.fit_params(wc(study="kinova_gen3", method="ols"))["settings"] == {}
    assert "twin_spread" not in robots.fit_params(wc(study="kinova_gen3", method="lmi"))
    assert robots.fit_params(wc(study="gen3_twin", method="lmi"))["twin_spread"] == 0.2
    assert "signals" not in robots.fit_inputs(wc(study="kinova_gen3", method="lmi"))
    assert len(robots.fit_inputs(wc(study="gen3_twin", method="bcls"))["signals"]) == 1
    assert "results/gen3_twin/tables/recovery.csv" in robots.study_targets("gen3_twin")
    targets = robots.study_targets("kinova_gen3")
    for name in ("model/lmi.urdf", "tables/friction.csv", "figures/regularisation.png"):
        assert f"results/kinova_gen3/{name}" in targets
    assert "results/kinova_gen3/tables/recovery.csv" not in robots.study_targets("kinova_gen3")
    assert set(robots.not_exported).isdisjoint(robots.consistent)
    assert {"ols", "urdf"} <= set(robots.not_exported) and "lmi" in robots.consistent
    with pytest.raises(SystemExit, match=r"kinova_gen3/model/ols.urdf: only a physically con"):
        robots.no_export(wc(study="kinova_gen3", method="ols"))
    # a measured record reads its log as an input (an edited log reran nothing); a twin's none
    log = robots.record_file(wc(study="kinova_gen3", record="opti_traj_testing2"))
    assert log == ["data/kinova_gen3/opti_traj_testing2.csv"]
    assert robots.record_file(wc(study="gen3_twin", record="validation")) == []
    design = robots.excitation_design_params(wc(study="gen3_twin"))  # a compare: file added
    assert "twin" not in design and not {"compare", "comparison"} & set(design["excitation"])
    assert "compare" in robots.excitation_params(wc(study="gen3_twin"))["excitation"]


def test_robot_start_up_errors_name_the_study(config):
    config["robots"]["kinova_gen3"]["joints"][-1] = "lwr_7_joint"
    with pytest.raises(
        UserError, match=r"^robots\.kinova_gen3\.joints: joint\(s\) \['lwr_7_joint'\]"
    ):
        RobotStudies(config).check_inputs()
    twin = config["robots"]["gen3_twin"]
    twin["twin"]["noise"]["torque_noise_nm"] = [1.0, 2.0]
    with pytest.raises(ConfigError, match="robots.gen3_twin.twin.noise.torque_noise_nm has 2"):
        RobotStudies(config)


def test_every_robot_job_reruns_when_its_urdf_changes(config, tmp_path, monkeypatch):
    """The params carry the URDF's SHA-256 (they held its path only: an edited URDF left every
    job's results standing); a reference model's params carry its own; a missing reference is
    named before any job."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    block = config["robots"]["kinova_gen3"]
    block["references"] = {"maker": "data/kinova_gen3/kinovaGen3.urdf"}
    robots = RobotStudies(config)
    before = robots.fit_params(wc(study="kinova_gen3", method="lmi"))
    urdf = tmp_path / "data/kinova_gen3/kinovaGen3.urdf"
    urdf.write_text(urdf.read_text().replace('<mass value="', '<mass value="1', 1))
    after = robots.fit_params(wc(study="kinova_gen3", method="lmi"))
    assert after["robot"]["urdf_sha256"] != before["robot"]["urdf_sha256"]
    reference = robots.reference_params(wc(study="kinova_gen3", reference="maker"))
    assert reference["robot"]["urdf_sha256"] == after["robot"]["urdf_sha256"]
    block["references"] = {"maker": "data/kinova_gen3/missing.urdf"}
    with pytest.raises(UserError, match=r"robots\.kinova_gen3\.references\.maker"):
        RobotStudies(config).check_inputs()


def test_robot_settings_that_would_fail_inside_a_job_are_named_before_any(config, tmp_path):
    """A reference URDF that does not parse or lacks a joint, a free link the robot does not
    have, and a cutoff above the logs' Nyquist frequency (after decimation) passed the start-up
    checks and failed jobs later, the cutoff with a traceback."""
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    block = config["robots"]["kinova_gen3"]
    urdf = Path(block["urdf"]).read_text()
    broken, renamed = tmp_path / "broken.urdf", tmp_path / "renamed.urdf"
    broken.write_text("not xml")
    renamed.write_text(urdf.replace('name="joint_7"', 'name="wrist_7"'))
    for path, says in ((broken, "could not be parsed"), (renamed, r"\['joint_7'\] not in")):
        block["references"] = {"maker": str(path)}
        pattern = rf"^robots\.kinova_gen3\.references\.maker \({path}\): .*{says}"
        with pytest.raises(ConfigError, match=pattern):
            RobotStudies(config).check_inputs()
    block["references"] = {}
    block["lmi"]["free_links"] = ["no_such_link"]
    with pytest.raises(UserError, match=r"^robots\.kinova_gen3\.lmi\.free_links: \['no_such"):
        RobotStudies(config).check_inputs()
    block["lmi"]["free_links"] = []
    records = block["records"]
    records["validation"] = [dict(records["calibration"][0])]  # the calibration file again
    with pytest.raises(ConfigError, match=r"is a calibration and a validation record: a model"):
        RobotStudies(config)
    records["validation"] = [dict(records["calibration"][0], name="again")]  # renamed
    with pytest.raises(
        ConfigError,
        match=r"validation \(again\): .* holds .* samples .* of calibration .*\(the same file, sp",
    ):
        RobotStudies(config).check_inputs()
    copy = tmp_path / "copy.csv"  # a copy under another name is not "the same file"
    copy.write_bytes(Path(records["calibration"][0]["path"]).read_bytes())
    records["validation"] = [dict(records["calibration"][0], name="copy", path=str(copy))]
    with pytest.raises(ConfigError, match=r"\(the same bytes as its file .*, copied, spans"):
        RobotStudies(config).check_inputs()
    listed = {  # the same motion however its columns are written, whichever torque is read
        "time": "Time",
        "q": [f"Position{i}" for i in range(1, 8)],
        "dq": "Velocity{i}",
        "tau": [f"TorqueCur{i}" for i in range(1, 8)],
    }
    records["validation"] = [dict(records["calibration"][0], name="listed", columns=listed)]
    with pytest.raises(ConfigError, match=r"validation \(listed\): .* holds .* samples"):
        RobotStudies(config).check_inputs()
    listed["q"] = listed["q"][::-1]  # the same columns in another order
    records["validation"] = [dict(records["calibration"][0], name="listed", columns=listed)]
    with pytest.raises(ConfigError, match=r"validation \(listed\): .* holds .* samples"):
        RobotStudies(config)._check_held_out("kinova_gen3")
    gen3_log = records["calibration"][0]["columns"]
    for field, column in (("tau", "Torque{i}"), ("q", "PositionCmptd{i}")):  # sensors, commands
        records["validation"] = [
            dict(records["calibration"][0], name=field, columns=gen3_log | {field: column})
        ]
        with pytest.raises(ConfigError, match=rf"validation \({field}\): .* holds .* samples"):
            RobotStudies(config)._check_held_out("kinova_gen3")  # its commands end in NaN
    records["validation"] = [  # another motion in the same log (read as angles here)
        dict(records["calibration"][0], name="other", columns=gen3_log | {"q": "TorqueCur{i}"})
    ]
    RobotStudies(config)._check_held_out("kinova_gen3")
    records["validation"] = [dict(records["calibration"][0], name="phase_2", trim_start_s=3.0)]
    records["calibration"][0]["trim_end_s"] = 2.0  # disjoint phases of one log
    block["signals"]["decimate"] = 1
    for cutoff, decimate in ((600.0, 1), (100.0, 10)):  # the logs are 1 kHz
        block["signals"] |= {"cutoff_hz": cutoff, "decimate": decimate}
        with pytest.raises(ConfigError, match=r"^robots\.kinova_gen3\.signals\.cutoff_hz: .*Nyq"):
            RobotStudies(config).check_inputs()


def test_a_records_torque_scale_against_the_others_is_named_before_any_job(config):
    """opti_traj_testing2 read with its joint 2 torque x 2 (a current times another torque
    constant) passes its own checks; against the study's other Gen3 logs (calibration and
    validation alike: one arm) its joint 2 reads 2x theirs against the URDF's: named with the
    record, its file and column, and the skip; the logs as shipped pass."""
    block = config["robots"]["kinova_gen3"]
    RobotStudies(config)._check_across_records("kinova_gen3")
    block["records"]["validation"][0]["scale"] = {"TorqueCur2": 2.0}
    pattern = (
        r"^robots\.kinova_gen3: data/kinova_gen3/opti_traj_testing1\.csv, .*: joint_2: its torque "
        r".*opti_traj_testing2\.csv, column 'TorqueCur2'.*is opti_traj_testing2's column .*"
        r"if the records are right, skip the check with robots\.kinova_gen3\.checks\.skip: "
        r"\[records_scale\]"
    )
    with pytest.raises(UserError, match=pattern):
        RobotStudies(config)._check_across_records("kinova_gen3")
    block["checks"]["skip"] = ["records_scale"]
    assert RobotStudies(config)._check_across_records("kinova_gen3") == []


def test_a_prior_toward_a_link_without_a_body_is_named_before_any_job(config, tmp_path):
    """A moving link without <inertial> has no URDF pseudo-inertia to measure a log-det
    divergence from: robot_friction failed with 'Eigenvalues did not converge'. The robot
    metric would pull it toward zero mass (a UR5's forearm was exported at 0.25 kg, its truth
    2.3 kg, with a generic warning only): named too. Freeing the link, or no pull at all, lets
    both take the URDF; a twin of it cannot simulate that link (a traceback in robot_record)."""
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    block = config["robots"]["kinova_gen3"]
    text = Path(block["urdf"]).read_text()
    start = text.index("<inertial>", text.index('<link name="forearm_link"'))
    end = text.index("</inertial>", start) + len("</inertial>")
    (tmp_path / "no_forearm_body.urdf").write_text(text[:start] + text[end:])
    block["urdf"] = str(tmp_path / "no_forearm_body.urdf")
    block["records"] = {}  # the URDF alone is judged here
    block["lmi"]["metric"] = "logdet"
    with pytest.raises(UserError, match=r"^robots\.kinova_gen3\.lmi\.metric: .*\['forearm_link'\]"):
        RobotStudies(config).check_inputs()
    block["lmi"]["free_links"] = ["forearm_link"]
    RobotStudies(config).check_inputs()
    block["lmi"] |= {"metric": "robot", "free_links": []}
    pattern = r"^robots\.kinova_gen3\.urdf: .*\['forearm_link'\] have no mass in.*lmi.free_links"
    with pytest.raises(UserError, match=pattern):
        RobotStudies(config).check_inputs()
    block["lmi"]["weight"] = 0.0
    RobotStudies(config).check_inputs()
    twin = config["robots"]["gen3_twin"] = copy.deepcopy(config["robots"]["kinova_gen3"])
    twin["records"] = {
        "calibration": [{"duration_s": 5.0, "excitation": {"seed": 1}}],
        "validation": [{"duration_s": 5.0, "excitation": {"seed": 2}}],
    }
    with pytest.raises(UserError, match=r"torque_noise_nm is unset: the twin that simulates"):
        RobotStudies(config)  # no sensors of another robot by default
    twin["twin"]["noise"]["torque_noise_nm"] = 0.5
    with pytest.raises(UserError, match=r"^robots\.gen3_twin\.urdf: \['forearm_link'\] .*twin"):
        RobotStudies(config).check_inputs()


def test_links_that_cannot_be_freed_are_named_before_any_job(config):
    """A user's middle link without <inertial>, named in lmi.free_links, stopped in
    robot_friction after six jobs ('free a single link'): the model's structural base names
    it at the start. On the Gen3 any one link from the third on can be freed alone; the
    shoulder, or two adjacent links, cannot; without lmi among the methods too, since the
    Coulomb law's and offsets' consistent fits free the same links."""
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    block = config["robots"]["kinova_gen3"]
    block["records"] = {}  # the URDF alone is judged here
    block["lmi"]["free_links"] = ["forearm_link"]
    RobotStudies(config).check_inputs()
    for free in (["shoulder_link"], ["forearm_link", "spherical_wrist_1_link"]):
        block["lmi"]["free_links"] = free
        field = r"^robots\.kinova_gen3\.lmi\.free_links "
        pattern = field + re.escape(str(free)) + ": .* freed alone"
        with pytest.raises(UserError, match=pattern):
            RobotStudies(config).check_inputs()
    block["methods"] = [m for m in block["methods"] if m != "lmi"]
    with pytest.raises(UserError, match=pattern):  # robot_friction's consistent fits free it
        RobotStudies(config).check_inputs()


def test_a_chain_designs_limits_are_checked_before_any_job(config):
    """Three limit values for two links, or q_min above q_max, ended in the design job's
    traceback ('empty limits: JointLimits(...)' in radians) naming no field."""
    name = next(k for k, v in config["excitation"].items() if v["kind"] == "chain")
    limits = config["excitation"][name]["limits"]
    links = len(config["excitation"][name]["links"])
    saved = list(limits["qd_max_deg_s"])
    limits["qd_max_deg_s"] = saved + [90.0]
    with pytest.raises(
        ConfigError, match=rf"limits\.qd_max_deg_s has {links + 1} values for {links} links"
    ):
        ExcitationDesigns(config)
    limits["qd_max_deg_s"] = saved
    limits["q_min_deg"][1] = limits["q_max_deg"][1] + 10.0
    with pytest.raises(ConfigError, match=r"limits: joint 2 has q_min_deg = .* not below"):
        ExcitationDesigns(config)


def test_a_fourier_design_the_search_cannot_run_is_named_before_any_job(config):
    """One harmonic with rest at both ends (a constant trajectory: 'every start gave a
    rank-deficient regressor') and fewer than 4 grid points per harmonic failed inside the
    design job with a traceback naming no field."""
    design = config["excitation"]["hip_designed"]
    design["order"] = 1
    with pytest.raises(ConfigError, match=r"^excitation\.hip_designed\.order = 1: with rest"):
        ExcitationDesigns(config)
    design |= {"order": 5, "grid_points": 12}
    with pytest.raises(
        ConfigError, match=r"^excitation\.hip_designed\.grid_points = 12: .*\(20 for"
    ):
        ExcitationDesigns(config)
    design["grid_points"] = 20
    ExcitationDesigns(config)
    config["robots"] = {"gen3_twin": config["robots"]["gen3_twin"]}
    spec = config["robots"]["gen3_twin"]["excitation"]
    spec["harmonics"] = 1
    with pytest.raises(ConfigError, match=r"gen3_twin\.excitation\.harmonics = 1: with rest"):
        RobotStudies(config).check_inputs()
    spec |= {"boundary": "periodic", "compare": []}  # no rest conditions: one harmonic moves
    RobotStudies(config)._check_excitation("gen3_twin")


def test_validation_records_are_scored_at_their_own_rate(config):
    """``decimate`` thins the calibration rows only (a validation RMSE on every n-th sample
    moved with the thinning's phase)."""
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    block = config["robots"]["kinova_gen3"]
    block["signals"]["decimate"] = 4
    robots = RobotStudies(config)
    calibration = robots.signals_params(wc(study="kinova_gen3", record="opti_traj_testing1"))
    assert calibration["signals"]["decimate"] == 4
    validation = robots.signals_params(wc(study="kinova_gen3", record="opti_traj_testing2"))
    assert validation["signals"]["decimate"] == 1


def test_a_log_in_ms_declared_as_seconds_is_named_as_such(config):
    """The Gen3 logs' time is a row index in ms: without units.time their 1 Hz would fail the
    trim (0.1 s is less than one sample) with advice about the trim; the time unit comes first."""
    block = config["robots"]["kinova_gen3"]
    for spec in (*block["records"]["calibration"], *block["records"]["validation"]):
        spec["units"] = {}
    config["robots"] = {"kinova_gen3": block}
    with pytest.raises(UserError, match=r"is the time in ms\? set units\.time: ms"):
        RobotStudies(config).check_inputs()


def test_a_changed_urdf_checks_the_logs_again(config, tmp_path, monkeypatch):
    """The log checks judge a record against its URDF: a record that passed is checked again
    when the URDF changes (here joint_2's axis reversed: a shipped record's torque then runs
    against the new URDF's), not skipped by its stamp."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    RobotStudies(config).check_inputs()
    urdf = tmp_path / "data/kinova_gen3/kinovaGen3.urdf"
    text = urdf.read_text()
    axis = text.index('<axis xyz="0 0 1"/>', text.index('<joint name="joint_2"'))
    urdf.write_text(text[:axis] + '<axis xyz="0 0 -1"/>' + text[axis + 19 :])
    with pytest.raises(UserError, match=r"opti_traj_testing1\.csv: joint_.*checks\.skip: \["):
        RobotStudies(config).check_inputs()


def test_a_calibration_log_too_short_once_decimated_is_named(config, tmp_path, monkeypatch):
    """2 s of opti_traj_testing1 hold 1,800 samples after the filter's trims, enough; thinned
    by signals.decimate = 20 (calibration records only) 90 are left, fewer than the folds and
    fits need: named before any job, with decimate among the remedies (it passed the check
    and ended in a bare ValueError of the fold splitter)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    block = config["robots"]["kinova_gen3"]
    config["robots"] = {"kinova_gen3": block}
    block["records"]["calibration"][0]["trim_end_s"] = 2.74  # opti_traj_testing1 lasts 4.74 s
    RobotStudies(config).check_inputs()
    block["signals"]["decimate"] = 20
    message = r"opti_traj_testing1\.csv: too short: .* leave 90 samples kept by signals\.decimate"
    with pytest.raises(UserError, match=message + r" = 20, fewer than 100: .* or decimate"):
        RobotStudies(config).check_inputs()


def test_a_log_too_short_for_a_fixed_cutoffs_settling_is_named_before_any_job(
    config, tmp_path, monkeypatch
):
    """At a fixed 1 Hz the filter settles for 1.8 s at each end: opti_traj_testing2 (2.29 s)
    keeps nothing, named before any job (it passed and failed inside robot_signals)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    config["robots"]["kinova_gen3"]["signals"]["cutoff_hz"] = 1.0
    with pytest.raises(UserError, match=r"opti_traj_testing2\.csv: too short: .* less the 3\.6"):
        RobotStudies(config).check_inputs()
    config["robots"]["kinova_gen3"]["signals"]["cutoff_hz"] = 20.0
    RobotStudies(config).check_inputs()


def test_a_long_rest_at_a_logs_ends_passes_the_checks_and_is_dropped_by_its_job(
    config, tmp_path, monkeypatch
):
    """opti_traj_testing1 (4.74 s) and opti_traj_testing2 (2.29 s) with 3 s of rest before
    them and 2 s after (over a fifth of each: the run stopped on it, and 0.5 s at each end
    passed and chose 6 Hz instead of 20): the checks pass, and robot_record drops the rest of
    every log (``drop_rest`` in its settings) unless ``checks.skip`` keeps it (a twin's records
    have none), and a log too short without its rest says so."""
    monkeypatch.chdir(tmp_path)
    folder = tmp_path / "data/kinova_gen3"
    shutil.copytree(ROOT / "data/kinova_gen3", folder)
    torque = tuple(f"TorqueCur{i}" for i in range(1, 8))
    for name in ("opti_traj_testing1.csv", "opti_traj_testing2.csv"):
        held = loaders.with_rest(pd.read_csv(folder / name), 3000, 2000, time="Time", noisy=torque)
        held.to_csv(folder / name, index=False)
    config["robots"] = {name: config["robots"][name] for name in ("kinova_gen3", "gen3_twin")}
    block = config["robots"]["kinova_gen3"]
    robots = RobotStudies(config)
    robots.check_inputs()
    for record in ("opti_traj_testing1", "opti_traj_testing2"):
        assert robots.record_params(wc(study="kinova_gen3", record=record))["drop_rest"] is True
    assert "drop_rest" not in robots.record_params(wc(study="gen3_twin", record="calibration"))
    block["checks"]["skip"] = ["rest_at_ends"]
    cfg = RobotStudies(config).record_params(wc(study="kinova_gen3", record="opti_traj_testing2"))
    assert cfg["drop_rest"] is False
    block["checks"]["skip"] = []
    block["records"]["calibration"][0]["trim_end_s"] = 6.2  # 0.41 s of motion left
    block["signals"]["trim_s"] = 0.3  # 0.6 s of it, and the 0.1 s of rest kept, filtered away
    message = r"too short: its 0\.\d+ s after trim_start_s/trim_end_s and 3\.026 s of rest dropped"
    with pytest.raises(UserError, match=message):
        RobotStudies(config).check_inputs()


@pytest.mark.parametrize(
    ("thinned", "decimate", "refused", "accepted", "message"),
    [
        (
            None,
            40,
            [10.0, 12.0],
            [5.0, 8.0],
            r"opti_traj_testing1\.csv \(1000 Hz / signals\.decimate = 40\): no cutoff candidate "
            r"lies below 10 Hz",
        ),
        (
            "RecordTrajectory_quadratic.csv",
            1,
            [50.0, 60.0],
            [45.0, 60.0],
            r"RecordTrajectory_quadratic\.csv is sampled at 100 Hz: every candidate is at or "
            r"above its Nyquist frequency 50 Hz",
        ),
    ],
    ids=["decimated_calibration_log", "slow_validation_log"],
)
def test_auto_cutoff_candidates_a_log_cannot_carry_are_named_before_any_job(
    config, tmp_path, monkeypatch, thinned, decimate, refused, accepted, message
):
    """``cutoff_hz: auto``: every candidate at or above 0.8 x the Nyquist frequency of the
    decimated calibration log (1 kHz / 40: 10 Hz usable below) stops the run naming the field
    (it ended in a traceback inside robot_cutoff); a validation log, filtered at whichever
    candidate the calibration records choose, is named when it can carry none of them (every
    tenth row: 100 Hz; robot_signals stopped on it after the cutoff's job), and passes with one
    below its 50 Hz Nyquist frequency, as that one may be chosen."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    if thinned:
        path = tmp_path / "data/kinova_gen3" / thinned
        pd.read_csv(path).iloc[::10].to_csv(path, index=False)
    block = config["robots"]["kinova_gen3"]
    config["robots"] = {"kinova_gen3": block}
    block["signals"].update(decimate=decimate, cutoff_candidates_hz=refused)
    field = r"robots\.kinova_gen3\.signals\.cutoff_candidates_hz: .*"
    with pytest.raises(ConfigError, match=field + message):
        RobotStudies(config).check_inputs()
    block["signals"]["cutoff_candidates_hz"] = accepted
    RobotStudies(config).check_inputs()


def test_a_log_whose_file_name_is_no_record_id_is_named_with_the_fix(config, repo_root):
    """A record id defaults to the log's file stem: ``opti traj 2.csv`` passed the checks and
    the DAG failed with a MissingInputException naming no setting; the id must match the
    schema's ``name`` pattern, the rules' wildcard."""
    schema = io.read_yaml(repo_root / "workflow/schemas/config.schema.yaml")["$defs"]
    for record in ("robot_measured_record", "robot_twin_record"):
        assert schema[record]["properties"]["name"]["pattern"] == f"^{RECORD_ID}$"
    block = config["robots"]["kinova_gen3"]
    validation = block["records"]["validation"][0]
    validation["path"] = "data/kinova_gen3/opti traj 2.csv"
    message = (
        r"robots\.kinova_gen3\.records\.validation: data/kinova_gen3/opti traj 2\.csv has no "
        r"`name:`, and its file name 'opti traj 2' is no record id .* give it a `name:`"
    )
    with pytest.raises(ConfigError, match=message):
        RobotStudies(config)
    validation["name"] = "opti_traj_2"
    assert "opti_traj_2" in RobotStudies(config).record_ids("kinova_gen3", "validation")


def test_a_validation_log_may_not_repeat_calibration_data(config, tmp_path, monkeypatch):
    """The calibration log again as validation (another name, the same bytes) stops the run;
    disjoint spans of one long log (trim_start_s/trim_end_s) are a held-out phase and pass."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/kinova_gen3", tmp_path / "data/kinova_gen3")
    block = config["robots"]["kinova_gen3"]
    calibration = block["records"]["calibration"][0]
    copy = {**calibration, "name": "val_copy"}
    block["records"]["validation"] = [copy]
    config["robots"] = {"kinova_gen3": block}
    with pytest.raises(ConfigError, match=r"validation \(val_copy\).*calibration record"):
        RobotStudies(config).check_inputs()
    copy["columns"] = {**calibration["columns"], "dq": "dq_{joint}"}  # the default, spelled out
    calibration["columns"] = {k: v for k, v in calibration["columns"].items() if k != "dq"}
    with pytest.raises(ConfigError, match=r"validation \(val_copy\).*calibration record"):
        RobotStudies(config).check_inputs()
    calibration["trim_end_s"] = 2.5  # opti_traj_testing1 lasts 4.74 s
    copy["trim_start_s"] = 2.5
    RobotStudies(config).check_inputs()
    copy["trim_start_s"] = 2.0  # 0.24 s in both (calibration keeps 0-2.24 s)
    with pytest.raises(ConfigError, match=r"holds 241 samples \(0\.24 s\) of calibration"):
        RobotStudies(config).check_inputs()
    # 50 samples lost 2.3 s in: a gap the calibration's end and the validation's start drop
    log = tmp_path / "data/kinova_gen3/opti_traj_testing1.csv"
    frame = pd.read_csv(log)
    frame.drop(index=range(2300, 2350)).to_csv(log, index=False)
    calibration["trim_end_s"], copy["trim_start_s"] = 2.6, 2.4
    RobotStudies(config).check_inputs()


def test_a_measured_1dof_study_may_not_validate_on_its_calibration_data(config):
    """Nor by naming a column by its own name (``time: time``), which slipped past a
    comparison of the mappings as written; a column the fit does not read changes nothing, nor
    does another torque column of the same motion.  Disjoint spans of one record
    (``trim_start_s``/``trim_end_s``) are a held-out phase."""
    config["studies"] = {"pendulum": config["studies"]["pendulum"]}
    records = config["studies"]["pendulum"]["records"]
    for extra in ({}, {"time": "time"}, {"velocity": "velocity"}, {"torque": "velocity"}):
        records["validation"] = dict(records["calibration"])
        records["validation"]["columns"] = records["calibration"]["columns"] | extra
        pattern = r"studies.pendulum.records: the validation record holds 3000 samples .*same file"
        with pytest.raises(ConfigError, match=pattern + r".*; no trims\)"):
            if "torque" in extra:  # the held-out check alone: the velocity is no torque
                HipStudies(config)._check_held_out("pendulum")
            else:
                HipStudies(config).check_inputs()
    records["validation"]["columns"] = records["calibration"]["columns"] | {"angle": "velocity"}
    HipStudies(config)._check_held_out("pendulum")  # another signal as the angle: no repeat
    records["validation"]["columns"] = records["calibration"]["columns"]
    records["calibration"]["trim_end_s"] = 3.0  # swingup_ddp lasts 5.999 s
    records["validation"]["trim_start_s"] = 3.0
    HipStudies(config)._check_held_out("pendulum")
    records["validation"]["trim_start_s"] = 2.7  # 0.3 s in both (calibration keeps 0-2.999 s)
    with pytest.raises(ConfigError, match=r"holds 15\d samples \(0\.29\d* s\) .* spans overlap"):
        HipStudies(config)._check_held_out("pendulum")


def test_rest_before_a_1dof_record_is_dropped_by_its_job(config, tmp_path, monkeypatch):
    """Five seconds of rest logged before the pendulum's swing-up stopped the run with the
    record's trim to set: now the record passes, and hip_ingest drops all but 0.1 s of the
    rest (``drop_rest`` in its settings, as the start-up checks do) unless ``checks.skip``
    keeps it; a record too short without the rest says so."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/pendulum", tmp_path / "data/pendulum")
    path = tmp_path / "data/pendulum/swingup_ddp_measured.csv"
    loaders.with_rest(pd.read_csv(path), 2500).to_csv(path, index=False)  # 5 s at 2 ms
    config["studies"] = {"pendulum": config["studies"]["pendulum"]}
    study = config["studies"]["pendulum"]
    hip = HipStudies(config)
    hip.check_inputs()
    cfg = hip.ingest_params(wc(study="pendulum", record="calibration"))
    assert cfg["drop_rest"] is True
    record, rest = ingest.configured_record(
        io.read_record(cfg["spec"]), cfg["spec"], cfg["ingest"]["max_jitter"], drop_rest=True
    )
    assert rest[0] == pytest.approx(4.92, abs=0.005) and rest[1] == 0.0  # 5.02 s less 0.1
    whole, _ = ingest.configured_record(
        io.read_record(cfg["spec"]), cfg["spec"], cfg["ingest"]["max_jitter"], drop_rest=False
    )
    assert whole.time.size - record.time.size == pytest.approx(rest[0] * 500, abs=1)  # 2 ms
    study["checks"]["skip"] = ["rest_at_ends"]
    assert (
        HipStudies(config).ingest_params(wc(study="pendulum", record="calibration"))["drop_rest"]
        is False
    )
    study["checks"]["skip"] = []
    study["records"]["calibration"]["trim_end_s"] = 5.5  # of its 6 s of motion
    short = r"measured\.csv: \d+ samples \(0\.\d+ s\) after 4\.917 s of rest dropped at its "
    with pytest.raises(UserError, match=short + "ends is too short"):
        HipStudies(config).check_inputs()


def test_a_measured_validation_record_calibrated_by_the_sweep_needs_the_burn_in(
    config, tmp_path, monkeypatch
):
    """The §5.3 ``leave_one_trajectory_out`` sweep computes an RLS prior on the validation
    record too: 1 s of the pendulum's PD run (300 samples) holds the trims and the fit but not
    the 1 s burn-in, which is named for that record only where the sweep asks for it."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/pendulum", tmp_path / "data/pendulum")
    path = tmp_path / "data/pendulum/sysid_pd_measured.csv"
    pd.read_csv(path).iloc[:300].to_csv(path, index=False)
    config["studies"] = {"pendulum": config["studies"]["pendulum"]}
    study = config["studies"]["pendulum"]
    assert "leave_one_trajectory_out" not in study.get("sweeps", {})
    HipStudies(config).check_inputs()
    study.setdefault("sweeps", {})["leave_one_trajectory_out"] = {"methods": ["ls"]}
    short = r"sysid_pd_measured\.csv: 300 samples .* too short: .*rls\.burn_in_s \(300 samples\)"
    with pytest.raises(UserError, match=short + r" need at least 433 samples"):
        HipStudies(config).check_inputs()


def test_a_rest_longer_than_the_rls_memory_stops_a_1dof_study_before_any_job(
    config, tmp_path, monkeypatch
):
    """The start-up checks run the study's RLS recursion on a record it is fitted on: two
    seconds at rest at the end of the pendulum's swing-up pass at the shipped forgetting and
    are named, with the rls block, at forgetting 0.9 (a memory of ten samples)."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(ROOT / "data/pendulum", tmp_path / "data/pendulum")
    path = tmp_path / "data/pendulum/swingup_ddp_measured.csv"
    frame = pd.read_csv(path)
    rest = (frame["time"] > 4.0) & (frame["time"] < 6.0)
    for column in frame.columns.drop("time"):
        frame.loc[rest, column] = frame.loc[rest.idxmax(), column]
    frame.to_csv(path, index=False)
    config["studies"] = {"pendulum": config["studies"]["pendulum"]}
    study = config["studies"]["pendulum"]
    study["checks"] = {"skip": ["encoder_clipped", "rest_at_ends"]}  # the rest ends the record
    HipStudies(config).check_inputs()
    study["rls"]["forgetting"] = 0.9
    singular = r"swingup_ddp_measured\.csv: the RLS information matrix .*studies\.pendulum\.rls\)"
    with pytest.raises(UserError, match=singular):
        HipStudies(config).check_inputs()


def test_other_families_targets(config):
    calibration = CalibrationStudies(config)
    fits = calibration.all_fits(wc(study="kr210"))
    assert len(fits) == len(calibration.identifiers) + 6  # paper: all; two complete models: 3 each
    assert calibration.figure_fits(wc(study="kr210", figure="fig8")) == []
    cec = Cec2022Benchmark(config, result_folders(config), ".")
    assert len(cec.all_runs()) == 2 * 7 and cec.out == "results/cec2022"
    excitation = ExcitationDesigns(config)
    assert excitation.hip == ["hip_designed"] and excitation.chain == ["chain4"]
    assert "results/chain4/tables/recovery.json" in excitation.targets()
    nonlinear = NonlinearStudies(config)
    assert len(nonlinear.fits(wc(study="hip_nonlinear"))) == 4


def test_a_models_identifiers_leave_the_identifiability_every_fit_reads_as_it_is(config):
    """The identifiability (each model's rank and free parameters, an input of every fit)
    reads a model's groups and compliance joints, not its identifiers: dropping one from a
    model reruns no identifiability, so no fit; editing the groups does."""

    def params(edit: Callable[[dict], None]) -> dict:
        edited = copy.deepcopy(config)
        edit(edited["calibration"]["kr210"]["models"])
        return CalibrationStudies(edited).identifiability_params(wc(study="kr210"))

    shipped = params(lambda models: None)
    assert params(lambda models: models["complete"].update(identifiers=["ekf"])) == shipped
    joints = [2, 3]
    edited = params(lambda models: models["complete_compliance"].update(compliance_joints=joints))
    assert edited != shipped


def test_the_cec_budget_needs_a_population_that_divides_it(config):
    """budget: cec with population 30 ran 199 980 of the official 200 000 evaluations (and
    999 990 of 1 000 000) without a word."""
    config["cec2022"] |= {"budget": "cec", "population": 30}
    with pytest.raises(ConfigError, match=r"200,000 evaluations \(D = 10\), 1,000,000"):
        Cec2022Benchmark(config, result_folders(config), ".")
    config["cec2022"]["population"] = 40
    Cec2022Benchmark(config, result_folders(config), ".")  # 5 000 and 25 000 iterations


def test_overlay_options_quote_absolute_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    text = workflow.overlay_options(["my study.yaml", tmp_path / "b.yaml"])
    assert text == f"--configfile '{tmp_path}/my study.yaml' --configfile {tmp_path}/b.yaml"
    assert workflow.overlay_options([]) == ""


def test_only_the_methods_in_the_rls_box_wait_for_rls(config):
    """LS and plain PSO (the standard box) do not read the RLS summary: a change to RLS's
    settings reruns neither."""
    hip = HipStudies(config)
    summary = ["results/hip/rls/summary.json"]
    for method, bounds in (("ls", []), ("pso", []), ("bcls", summary), ("rls_pso", summary)):
        assert hip.rls_bounds(wc(study="hip", method=method)) == bounds


def test_memory_grows_with_the_inputs_of_a_long_log():
    mem = workflow.memory_mb(2000, 12)
    assert mem(wc(), SimpleNamespace(size_mb=10.0)) == 2000  # a short record: the base
    assert mem(wc(), SimpleNamespace(size_mb=284.3)) == 3412  # a 60 min 1 kHz log: 12 x
    assert inspect.signature(mem).parameters.keys() == {"wildcards", "input"}  # Snakemake's
    # a robot job's imports take their own: a 512,000-sample log's robot_signals peaked at
    # 1,049 MB on a 95.3 MB input and asked 10 x that, 953 MB (the base: 1000)
    robot = workflow.memory_mb(1000, 10, 500)
    assert robot(wc(), SimpleNamespace(size_mb=95.3)) == 1453
    assert robot(wc(), SimpleNamespace(size_mb=20.0)) == 1000


def test_a_log_listed_twice_in_one_role_is_named_as_a_duplicate_not_as_held_out(config):
    """Two calibration entries of one file (no `name:`) share the file stem: the fix is a
    `name:`, not 'validate on another record' (that message is for a file in both roles)."""
    records = config["robots"]["kinova_gen3"]["records"]
    records["calibration"] = [dict(records["calibration"][0]) for _ in range(2)]
    with pytest.raises(ConfigError, match=r"two records named 'opti_traj_testing1'") as error:
        RobotStudies(config)
    assert "is a calibration and a validation record" not in str(error.value)


def test_every_robot_log_that_cannot_be_read_is_named_in_one_error(config, tmp_path):
    """Two missing validation logs: both in the one error (a fast twin of the slow
    test_robot_workflow::test_every_bad_record_is_named_in_one_error)."""
    config["robots"] = {"kinova_gen3": config["robots"]["kinova_gen3"]}
    records = config["robots"]["kinova_gen3"]["records"]
    first = records["validation"][0]
    records["validation"] = [
        dict(first, name=n, path=str(tmp_path / f"{n}.csv")) for n in ("lost_a", "lost_b")
    ]
    with pytest.raises(UserError, match=r"^robots\.kinova_gen3: 2 records have problems:") as error:
        RobotStudies(config).check_inputs()
    assert "lost_a.csv" in str(error.value) and "lost_b.csv" in str(error.value)


def test_a_controller_too_slow_for_the_designs_harmonics_is_named(config):
    """trajectory.csv needs at least 20 samples a cycle of the highest harmonic (5 x 0.075 Hz:
    7.5 Hz): 5 Hz steps the joints though it exceeds that harmonic's frequency."""
    spec = config["robots"]["gen3_twin"]["excitation"]
    spec["controller_rate_hz"] = 5.0
    with pytest.raises(ConfigError, match=r"controller_rate_hz = 5 Hz .* fewer than 20 times"):
        RobotStudies(config)._check_excitation("gen3_twin")


def test_every_setting_that_rebuilds_the_robot_is_in_its_jobs_params(config):
    """study.robot_of builds the robot from urdf, joints, locked, friction, offset and
    armature: each is in every job's params, so editing one (armature off) reruns them."""
    block = config["robots"]["kinova_gen3"]
    params = RobotStudies(config).fit_params(wc(study="kinova_gen3", method="ols"))
    for key in ("urdf", "joints", "locked", "friction", "offset", "armature"):
        assert params["robot"][key] == block[key], key
    block["armature"] = not block["armature"]
    assert RobotStudies(config).fit_params(wc(study="kinova_gen3", method="ols")) != params


def test_robot_predictions_and_references_are_scored_on_the_validation_records(config):
    """A model is judged on the records it was not fitted on: the predictions and a published
    model's scores read the config's validation records, the export its calibration logs."""
    robots = RobotStudies(config)
    records = config["robots"]["kinova_gen3"]["records"]
    validation = [Path(s["path"]).stem for s in records["validation"]]
    predict = robots.predict_params(wc(study="kinova_gen3", method="ols"))
    assert predict["records"] == validation
    block = config["robots"]["kinova_gen3"]
    block["references"] = {"maker": block["urdf"]}
    reference = RobotStudies(config).reference_inputs(wc(study="kinova_gen3", reference="maker"))
    assert reference["validation"] == [
        f"results/kinova_gen3/signals/{r}.parquet" for r in validation
    ]
    export = robots.export_params(wc(study="kinova_gen3", method="lmi"))
    assert export["calibration"] == [s["path"] for s in records["calibration"]]
    digests = [
        hashlib.sha256(Path(s["path"]).read_bytes()).hexdigest() for s in records["calibration"]
    ]
    assert export["calibration_sha256"] == digests  # the header names the very bytes fitted
    twin = robots.export_params(wc(study="gen3_twin", method="lmi"))
    assert twin["calibration"] == ["calibration (a twin record)"] and not twin["calibration_sha256"]


def test_robot_fit_settings_carry_the_optimiser_blocks_each_method_reads(config):
    """RLS-PSO runs PSO and RLS-AGWO AGWO: each reruns when its optimiser's block changes, not
    when the other's does."""
    block = config["robots"]["gen3_twin"]
    own = {"rls_pso": "pso", "rls_agwo": "agwo"}
    for method, optimiser in own.items():
        settings = RobotStudies(config).fit_settings("gen3_twin", method)
        assert settings[optimiser] == block[optimiser], method
        for other in set(own.values()) - {optimiser}:
            edited = copy.deepcopy(config)
            edited["robots"]["gen3_twin"][other] = {}
            assert RobotStudies(edited).fit_settings("gen3_twin", method) == settings, method
            edited["robots"]["gen3_twin"][optimiser] = {}
            assert RobotStudies(edited).fit_settings("gen3_twin", method) != settings, method


def test_fit_settings_leave_a_logs_record_and_the_cutoff_as_they_are(config):
    """Editing friction, offset or armature reruns the fits, not what precedes them: a measured
    log's record does not take them (a twin's does: its torque is simulated with them), and the
    cutoff's CV sees ``offset: auto`` as ``false`` (offsets are chosen later)."""

    def settings(edit: Callable[[dict], dict]) -> tuple[list, dict, dict]:
        edited = copy.deepcopy(config)
        for name in ("kinova_gen3", "gen3_twin"):
            edited["robots"][name] |= edit(edited["robots"][name])
        robots = RobotStudies(edited)
        logs = [
            robots.record_params(wc(study="kinova_gen3", record=record))
            for record in robots.record_ids("kinova_gen3", "calibration")
        ]
        twin = robots.record_params(wc(study="gen3_twin", record="calibration"))
        return logs, twin, robots.cutoff_params(wc(study="kinova_gen3"))

    logs, twin, cutoff = settings(lambda block: {"offset": False})
    assert "offset" not in logs[0]["robot"] and twin["robot"]["offset"] is False
    assert settings(lambda block: {"offset": "auto"})[0::2] == (logs, cutoff)
    edits = {
        "offset true": lambda block: {"offset": True},
        "friction": lambda block: {"friction": ["viscous"]},
        "armature": lambda block: {"armature": not block["armature"]},
    }
    for name, edit in edits.items():
        edited_logs, edited_twin, edited_cutoff = settings(edit)
        assert edited_logs == logs and edited_twin != twin and edited_cutoff != cutoff, name


def test_robot_cutoff_choice_reads_the_cv_folds_and_signals_wait_for_it(config):
    """An ``auto`` cutoff is scored by blocked CV over cv.folds time blocks, with no gap:
    editing the folds reruns the choice, editing cv.gap_s (the compression's) does not; only an
    ``auto`` study's signals read cutoff.json."""

    def edited(key: str, value: Callable[[object], object]) -> RobotStudies:
        changed = copy.deepcopy(config)
        for block in changed["robots"].values():
            block["cv"][key] = value(block["cv"][key])
        return RobotStudies(changed)

    robots = RobotStudies(config)
    gapped, folded = edited("gap_s", lambda _: 0.5), edited("folds", lambda folds: folds + 1)
    for name, block in config["robots"].items():
        params = robots.cutoff_params(wc(study=name))
        assert params["cv"] == {"folds": block["cv"]["folds"]}
        assert params["signals"] == block["signals"]
        assert gapped.cutoff_params(wc(study=name)) == params, name
        assert folded.cutoff_params(wc(study=name)) != params, name
        record = robots.record_ids(name, "calibration")[0]
        inputs = robots.signals_inputs(wc(study=name, record=record))
        auto = block["signals"]["cutoff_hz"] == "auto"
        assert ("cutoff" in inputs) == auto, name
        if auto:
            assert inputs["cutoff"] == f"results/{name}/signals/cutoff.json"


def test_robot_cutoff_candidates_rerun_the_choice_not_the_signals(config):
    """The candidates of an ``auto`` cutoff are read by its choice alone (the signals read the
    chosen cutoff from cutoff.json): editing them reruns robot_cutoff, not robot_signals;
    editing what filters a record (trim_s) reruns both."""

    def settings(edit: dict) -> tuple[list, list]:
        edited = copy.deepcopy(config)
        for block in edited["robots"].values():
            block["signals"] |= edit
        robots = RobotStudies(edited)
        signals = [
            robots.signals_params(wc(study=name, record=record))
            for name in robots.names
            for record in robots.record_ids(name)
        ]
        return signals, [robots.cutoff_params(wc(study=name)) for name in robots.names]

    signals, cutoff = settings({})
    edited_signals, edited_cutoff = settings({"cutoff_candidates_hz": [2.0, 3.0]})
    assert edited_signals == signals and edited_cutoff != cutoff
    edited_signals, edited_cutoff = settings({"trim_s": 0.5})
    assert edited_cutoff != cutoff
    assert all(a != b for a, b in zip(edited_signals, signals, strict=True))


def test_a_1dof_parameter_fixed_by_equal_mechanical_limits_is_accepted(config):
    """rls.mechanical min = max fixes a parameter (rls_bounds collapses the box onto it, the
    population note names a box of zero width); only min > max is refused."""
    mechanical = config["studies"]["hip"]["rls"]["mechanical"]
    mechanical["fv"] = {"min": 0.1, "max": 0.1}
    HipStudies(config)
    mechanical["fv"] = {"min": 0.2, "max": 0.1}
    with pytest.raises(ConfigError, match=r"studies\.hip\.rls\.mechanical\.fv: min > max"):
        HipStudies(config)


def test_hip_fit_params_carry_what_the_fit_reads(config):
    """A fit honours checks.skip's torque_sign; the RLS-boxed population methods read
    rls.mechanical (its edges are physics), plain PSO's standard box does not."""
    hip = HipStudies(config)
    assert hip.fit_params(wc(study="hip", method="ls"))["skip_torque_sign"] is False
    config["studies"]["hip"]["checks"]["skip"] = ["torque_sign"]
    assert HipStudies(config).fit_params(wc(study="hip", method="ls"))["skip_torque_sign"]
    mechanical = config["studies"]["hip"]["rls"]["mechanical"]
    for method in ("rls_pso", "rls_ga", "rls_gwo", "rls_agwo"):
        params = hip.fit_population_params(wc(study="hip", method=method))
        assert params["mechanical"] == mechanical, method
    assert "mechanical" not in hip.fit_population_params(wc(study="hip", method="pso"))


def test_hip_audit_and_tables_read_the_studys_reference(config):
    """The twin's tables and audit compare with its X_true, a measured study's with its
    published values; the audit marks Table 3's cutoff on Figure 4b; the stats table (the
    population methods against BCLS) needs BCLS."""
    hip = HipStudies(config)
    twin, pendulum = config["studies"]["hip"], config["studies"]["pendulum"]
    assert hip.reference_values("hip") == twin["twin"]["x_true"]
    assert hip.reference_values("pendulum") == pendulum["reference"]["values"]
    assert hip.tables_params(wc(study="hip"))["reference"] == twin["twin"]["x_true"]
    audit = hip.audit_params(wc(study="hip"))
    assert audit["cutoff_hz"] == twin["signals"]["cutoff_hz"]
    twin["methods"] = [m for m in twin["methods"] if m != "bcls"]
    targets = HipStudies(config).study_targets("hip")
    assert "results/hip/tables/stats.csv" not in targets
    assert "results/hip/figures/fig3c.png" in targets


def test_a_1dof_study_may_not_mix_a_simulated_and_a_measured_record(config):
    """Calibration measured, validation a twin trajectory: named, not read as one kind."""
    studies = config["studies"]
    studies["pendulum"]["records"]["validation"] = copy.deepcopy(
        studies["hip"]["records"]["validation"]
    )
    with pytest.raises(ConfigError, match=r"studies\.pendulum\.records: calibration and valid"):
        HipStudies(config)


def test_a_1dof_validation_torque_in_another_unit_is_named_before_any_job(config):
    """The validation record's torque declared in N mm (1000x off the calibration's N m):
    its least-squares parameters are a unit's factor from the calibration record's, named
    before any job by the start-up checks (no reference values needed)."""
    config["studies"] = {"pendulum": config["studies"]["pendulum"]}
    study = config["studies"]["pendulum"]
    del study["reference"]
    validation = study["records"]["validation"]  # its units: one mapping with the calibration's
    validation["units"] = {**validation["units"], "torque": "N mm"}
    with pytest.raises(UserError, match=r"records_scale"):
        HipStudies(config).check_inputs()


def test_both_records_of_a_1dof_study_are_named_in_one_error(config, tmp_path):
    """A user whose two records share a defect learnt of the validation record's only after
    fixing the calibration record's: both are named in the one error, as for a robot."""
    records = config["studies"]["pendulum"]["records"]
    for record in ("calibration", "validation"):
        records[record]["path"] = str(tmp_path / f"lost_{record}.csv")
    with pytest.raises(UserError, match=r"^studies\.pendulum: 2 records have problems:") as error:
        HipStudies(config).check_inputs()
    assert "lost_calibration.csv" in str(error.value) and "lost_validation.csv" in str(error.value)
    records["validation"]["path"] = str(ROOT / "data/pendulum/swingup_ddp_measured.csv")
    with pytest.raises(UserError, match=r"^studies\.pendulum\.records\.calibration\.path = "):
        HipStudies(config).check_inputs()  # one problem: its own error, as before


def test_a_jobs_source_files_join_its_settings_by_content(tmp_path, monkeypatch):
    """A record (or URDF, paper values) replaced by new content under an older time (cp -p,
    rsync -t, tar) reran nothing: its SHA-256 is now in the job's settings, so new content
    names a new settings file and the same content under a new time the same one; inputs in
    results/ (other rules' outputs) and missing files are not sources."""
    from snakemake.io import IOFile, unpack
    from snakemake.iocontainers import Wildcards

    monkeypatch.chdir(tmp_path)
    jobs = Wildcards(fromdict={"study": "hip", "name": "cal"})  # as Snakemake passes them
    Path("data").mkdir()
    record = Path("data/cal.csv")
    record.write_text("time,q\n0,1\n")
    Path("results/hip").mkdir(parents=True)
    Path("results/hip/fit.parquet").write_text("x")
    Path("data/paper {x}.yaml").write_text("table: 1\n")  # a user's path with a brace
    inputs = [  # as Snakemake holds them in rule.input
        IOFile("data/{name}.csv"),  # a pattern
        IOFile(unpack(lambda wildcards: {"fit": f"results/{wildcards.study}/fit.parquet"})),
        IOFile(unpack(lambda wildcards: {"paper": "data/paper {x}.yaml"})),
        IOFile(lambda wildcards: ["data/missing.yaml"]),
    ]
    assert workflow.source_files(inputs, jobs) == ["data/cal.csv", "data/paper {x}.yaml"]
    settings = workflow.SettingsFile("hip_ingest", {"code": "0" * 16}, inputs)
    first = settings(jobs)
    digest = hashlib.sha256(record.read_bytes()).hexdigest()
    assert json.loads(Path(first).read_text())["sources"]["data/cal.csv"] == digest
    time = record.stat().st_mtime_ns - 10**9
    record.write_text("time,q\n0,2\n")  # new content, an older time
    os.utime(record, ns=(time, time))
    second = settings(jobs)
    assert second != first
    os.utime(record, ns=(time + 5 * 10**9, time + 5 * 10**9))  # touched: same content
    assert settings(jobs) == second


def test_a_scripts_own_bytes_are_in_its_code(tmp_path):
    """A script edited under an older time reran nothing (Snakemake judges a script by its
    time): params.code holds the script's hash beside its library's."""
    (tmp_path / "scripts").mkdir()
    script = tmp_path / "scripts" / "hip_stats.py"
    script.write_text("from paramid import stats\n")
    first = workflow.script_code(tmp_path, "hip_stats.py")
    time = script.stat().st_mtime_ns - 10**10
    script.write_text("from paramid import stats\nraise SystemExit\n")
    os.utime(script, ns=(time, time))
    assert workflow.script_code(tmp_path, "hip_stats.py") != first


def test_provenance_and_audit_targets_are_picked_from_all():
    """provenance.json records every target of `all` but itself; rule audit takes the claims
    audits among them, CSV and Markdown, wherever they lie."""
    targets = [
        "results/hip/audit.csv",
        "results/hip/audit.md",
        "results/kr210/calibration/audit.md",
        "results/hip/tables/table3.csv",
        "results/audit_notes.txt",
        "results/provenance.json",
    ]
    assert workflow.other_targets(targets, "results/provenance.json") == targets[:-1]
    assert workflow.audit_targets(targets) == targets[:3]
