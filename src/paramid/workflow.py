"""The workflow's shared Python: start-up checks, wildcard patterns, stamps and the rule template.

The Snakefile builds one object per study family (``HipStudies`` of the hip package,
:class:`paramid.robot.workflow.RobotStudies`, ...) inside :func:`checked`: each constructor
checks its config block and inputs before any job runs, and a user's mistake ends the run
with one message naming the study and the field or file, never a traceback.  The rule files
then hold rules whose params and inputs are these objects' methods.

Everything here is plain Python on plain values: the one place that touches Snakemake's rule
objects is :func:`apply_rule_template`.
"""

from __future__ import annotations

import abc
import hashlib
import json
import math
import os
import re
import shlex
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, Protocol, TypeVar

from paramid import codehash, io
from paramid.config import ConfigError, result_folders, validate
from paramid.errors import InputError, UserError
from paramid.plausibility import REST_AT_ENDS

T = TypeVar("T")
NEVER = "(?!)"  # a wildcard pattern that matches nothing
VALIDATED = Path(".snakemake/paramid-validated")
#: the parsed imports of the library's files, by content, and the checked inputs' hashes
#: (:func:`paramid.codehash.use_store`)
IMPORT_STORE = Path(".snakemake/paramid-imports.json")
#: one file per distinct params of a rule: the input through which they rerun jobs
SETTINGS = Path(".snakemake/paramid-settings")
# the arguments that make a params function "derived" (from files): Snakemake leaves those out
# of its params record too, as their changes show as input changes
DERIVING_ARGUMENTS = frozenset({"input", "output", "threads", "resources"})
# the keys of a `signals:` block that only the `auto` cutoff choice reads
CUTOFF_CHOICE_KEYS = ("cutoff_candidates_hz", "cv_blocks")


class Wildcards(Protocol):
    """The wildcards of a job as Snakemake passes them to input and params functions."""

    def __getattr__(self, name: str) -> str: ...


def checked(build: Callable[[], T]) -> T:
    """``build()``, or the end of the run with its user error as one line on stderr.

    A :class:`paramid.io.UserError` (bad config, unreadable or implausible input) leaves as
    ``SystemExit``: Snakemake prints the message alone and exits 1, without the wrapper line
    naming an internal file and the frames of a traceback.
    """
    try:
        return build()
    except UserError as error:
        raise SystemExit(f"paramid: {error}") from None


def load_config(
    config: dict, configfiles: Iterable[str], schema: str, main_process: bool = True
) -> dict[str, str]:
    """Fill ``config`` in place: config.yaml, then what Snakemake read from --configfile and
    --config on top (as its configfile directive does), validated against ``schema`` with its
    defaults filled.  Every file is read by :func:`paramid.io.read_yaml`, so a syntax error
    or a key given twice (Snakemake keeps the last silently) names the file and line.  Returns
    the results folders with the config field that owns each (two owners are an error).

    A study or robot block given with its own measured records (a ``path`` for every
    calibration and validation record) is a study of its own: it replaces a shipped block of
    the same name whole instead of being merged into it (a user's ``pendulum`` took the shipped
    one's column names, reference values and checks; a block equal to the shipped one, as in a
    copy of config.yaml, changes nothing and is not announced); any other block (a twin's
    longer record, one record re-pointed) changes the shipped study's settings; the
    ``main_process`` (not a cluster job's, which parses the workflow again) says so on
    stderr."""
    from snakemake.utils import update_config

    codehash.use_store(IMPORT_STORE)
    settings = io.read_yaml("config.yaml")
    for path in configfiles:
        io.read_yaml(path)
    for family in ("studies", "robots"):
        shipped, given = settings.get(family) or {}, config.get(family) or {}
        for name, block in given.items() if isinstance(given, dict) else ():
            if name in shipped and isinstance(block, dict) and own_records(block):
                if block == shipped[name]:  # a copy of config.yaml's block: nothing replaced
                    continue
                shipped[name] = {}
                if main_process:  # a notice, not an error: it may be one's own copy of it
                    print(
                        f"paramid: {family}.{name} of the given config replaces the shipped "
                        f"study of that name whole (its outputs go to results/{name}/, the "
                        "shipped one's folder: name yours otherwise to keep both)",
                        file=sys.stderr,
                    )
    for tree in (settings, config):
        _robot_records_as_lists(tree)
    update_config(settings, config)
    config.clear()
    config.update(validated(settings, schema))
    return result_folders(config)


def _robot_records_as_lists(tree: Mapping[str, Any]) -> None:
    """A robot's single calibration or validation record given as a mapping (the form a 1-DOF
    study takes) becomes a list of one, in place, before the shipped blocks are merged."""
    robots = tree.get("robots")
    for block in robots.values() if isinstance(robots, dict) else ():
        records = block.get("records") if isinstance(block, dict) else None
        if not isinstance(records, dict):
            continue
        for role in ("calibration", "validation"):
            if isinstance(records.get(role), dict):
                records[role] = [records[role]]


def own_records(block: Mapping[str, Any]) -> bool:
    """Whether a study or robot block gives measured data of its own: calibration and
    validation records (one mapping or a list of them each), every one with a ``path``."""
    records = block.get("records")
    if not isinstance(records, Mapping):
        return False
    roles = [records.get(role) for role in ("calibration", "validation")]
    specs = [spec for role in roles for spec in (role if isinstance(role, list) else [role])]
    return all(roles) and all(isinstance(spec, Mapping) and "path" in spec for spec in specs)


def validated(settings: dict, schema: str | Path) -> dict:
    """``settings`` validated against ``schema`` with its defaults filled
    (:func:`paramid.config.validate`), remembered under :data:`VALIDATED` by the hash of the
    settings, the schema and the validating code: an unchanged config is not validated again
    at every start (loading the schema and validating take ~0.4 s). Settings that JSON cannot
    hold exactly (a non-string key) are validated every time."""
    text = json.dumps(settings)  # key order kept: it orders studies, targets and params
    if json.loads(text) != settings:
        validate(settings, schema)
        return settings
    digest = hashlib.sha256(text.encode())
    digest.update(Path(schema).read_bytes())
    digest.update(codehash.code_version(codehash.LIBRARY / "config.py").encode())
    stamp = VALIDATED / f"config-{digest.hexdigest()}.json"
    if stamp.exists():
        return json.loads(stamp.read_text())
    validate(settings, schema)
    with io.atomic_file(stamp) as partial:
        partial.write_text(json.dumps(settings))
    return settings


class Family(abc.ABC):
    """A family of named studies' workflow object (``paramid.<family>.workflow``): each study's
    final targets, and the family's (its target rule's input)."""

    names: list[str]

    @abc.abstractmethod
    def study_targets(self, name: str) -> list[str]:
        """The final targets of study ``name`` (its target rule: ``snakemake <name>``)."""

    def targets(self) -> list[str]:
        """Every study's final targets, in the config's order."""
        return [target for name in self.names for target in self.study_targets(name)]


def study_targets(families: Iterable[Family], rules: Iterable[Any]) -> list[tuple[str, list[str]]]:
    """(study, its final targets) of every study, for a target rule named after the study
    (``snakemake kr210``); a study named like a rule of the workflow is refused."""
    taken = {rule.name for rule in rules}
    out = []
    for family in families:
        for name in family.names:
            if name in taken:
                raise ConfigError(
                    f"a study is named {name!r}, the name of a rule of the workflow "
                    f"(`snakemake {name}` would be ambiguous): rename the study"
                )
            out.append((name, family.study_targets(name)))
    return out


def unknown_study(known: Iterable[str], present: Iterable[str] = ()) -> str:
    """A wildcard constraint matching a target of a study the config does not have:
    ``results/<name>[/...]`` or a bare ``<name>`` (``snakemake mine``, ``snakemake Mine``; a
    rule's name is taken for the rule first) for any ``<name>`` but ``known`` (the results
    folders of the config's studies and families) and, bare, the names ``present`` in the
    working directory (``Snakefile``, ``LICENSE``: an existing file is never this rule's
    output).  Its rule's input function is :func:`no_such_study`."""
    taken = "|".join(re.escape(name) for name in sorted(known, key=len, reverse=True)) or NEVER
    here = "|".join(re.escape(name) for name in sorted(present, key=len, reverse=True))
    bare = f"{taken}|{here}" if here else taken
    name = "[A-Za-z][A-Za-z0-9_]*"
    return rf"results/(?!(?:{taken})(?:/|$)){name}(?:/.+)?|(?!(?:{bare})$){name}"


def no_such_study(
    folders: Mapping[str, str], configfiles: Iterable[str | os.PathLike], rules: Iterable[Any]
) -> Callable[[Any], list[str]]:
    """The input function of the rule for a target of a study the config does not have
    (:func:`unknown_study`): it ends the run (``SystemExit``, as :func:`checked` does: no
    traceback, nothing locked or written) with one line naming the config files read,
    the studies they give, a name the target's may be misspelt from (a study's, else a
    target rule's of ``rules``: ``audti``, ``Cec2O22``; study names are lower case) and the
    likely cause, a study of one's own left out of ``--configfile`` (Snakemake alone says
    "No rule to produce mine")."""
    import difflib

    overlays = [str(p) for p in configfiles]
    read = ", ".join(["config.yaml", *overlays])
    fix = (
        "is it in another config file? give that one with --configfile too"
        if overlays
        else "a study of your own is read from its config file: add --configfile my.yaml (the "
        "file that holds it) to the command"
    )

    def stop(wildcards: Any) -> list[str]:
        target = str(wildcards.target)
        name = target.split("/")[1] if target.startswith("results/") else target
        close = difflib.get_close_matches(name.lower(), list(folders), n=1, cutoff=0.6)
        targets = [rule.name for rule in rules if not rule.has_wildcards()]
        near = (
            [] if close or "/" in target else difflib.get_close_matches(name.lower(), targets, n=1)
        )
        hint = f"did you mean {close[0]!r}? " if close else ""
        if name != name.lower():
            hint = f"study names are lower case: {hint}"
        advice = f"did you mean the target {near[0]!r}?" if near else f"{hint}{fix}"
        raise SystemExit(
            f"paramid: {target}: no study {name!r} in this run's config (read from {read}; "
            f"its studies: {', '.join(folders)}): {advice}"
        )

    return stop


def other_targets(targets: Iterable[object], excluded: str) -> list[str]:
    """``targets`` (a rule's input, e.g. ``rules.all.input``) other than ``excluded``: what
    ``results/provenance.json`` records, every target of ``all`` but itself."""
    return [str(t) for t in targets if str(t) != excluded]


def audit_targets(targets: Iterable[object]) -> list[str]:
    """The claims audits (``audit.csv``, ``audit.md``) among ``targets``: rule ``audit``'s."""
    return [str(t) for t in targets if Path(str(t)).stem == "audit"]


def overlay_options(configfiles: Iterable[str | os.PathLike]) -> str:
    """The ``--configfile`` options of a run's overlays for a shell command (absolute, quoted):
    ``verify`` rebuilds with the same config as the run that asked for it."""
    return " ".join(f"--configfile {shlex.quote(os.path.abspath(p))}" for p in configfiles)


def memory_mb(base: int, per_input_mb: float, floor_mb: int = 0) -> Callable[[Any, Any], int]:
    """A rule's ``mem_mb``: ``base``, or ``floor_mb`` plus ``per_input_mb`` times the size of its
    inputs [MB] where that is more (a long record's job holds its arrays several times over,
    beside what its imports take), so a cluster grants a long log's jobs what they use (a
    robot job of a 512,000-sample log peaked at 1,049 MB and asked 10 x 95 MB = 953).  Only
    for a rule whose inputs are not made inside its own group: Snakemake sizes a group job
    before those exist."""

    def mem_mb(wildcards: Any, input: Any) -> int:  # the names Snakemake passes by
        return max(base, floor_mb + math.ceil(per_input_mb * input.size_mb))

    return mem_mb


def one_of(names: Iterable[object]) -> str:
    """A wildcard constraint matching exactly these names (:data:`NEVER` when there are none)."""
    return "|".join(re.escape(str(n)) for n in names) or NEVER


def drops_rest(block: Mapping[str, Any]) -> bool:
    """Whether a study block's measured records lose a long rest at their ends
    (:func:`paramid.plausibility.dropping_rest`): unless ``checks.skip`` holds ``rest_at_ends``."""
    return REST_AT_ENDS not in block["checks"]["skip"]


def fixed_signal_settings(signals: Mapping[str, Any]) -> dict[str, Any]:
    """A ``signals:`` block without the settings of the cutoff choice (a stage that uses the
    chosen cutoff reads it from its JSON file, so the candidates never rerun it)."""
    return {k: v for k, v in signals.items() if k not in CUTOFF_CHOICE_KEYS}


def validated_before(path: str | os.PathLike, settings: Any, checker: str) -> tuple[bool, Path]:
    """Whether this file, with these settings and this checking code, passed validation before.

    Snakemake parses the workflow at every start; a stamp named by the hash of all three lets a
    rerun skip the checks (and the imports they need: filtering a record loads scipy.signal)
    while any change to the file, its settings or the checking module ``checker`` (a dotted
    name, ``paramid.robot.checks``, hashed with what it imports without importing it), or to
    :mod:`paramid.io`, which reads every checked file, validates again.  Returns the stamp to
    leave (:func:`mark_validated`) once the checks pass.
    """
    module = codehash.module_file(checker)
    if module is None:
        raise ValueError(f"{checker!r} is not a module of paramid")
    digest = hashlib.sha256(codehash.file_digest(path).encode())
    digest.update(json.dumps(settings, sort_keys=True, default=str).encode())
    for code in (module, codehash.LIBRARY / "io.py"):
        digest.update(codehash.code_version(code).encode())
    stamp = VALIDATED / digest.hexdigest()
    return stamp.exists(), stamp


def mark_validated(stamps: Iterable[Path]) -> None:
    """Leave the stamps of inputs that passed their checks (see :func:`validated_before`)."""
    stamps = list(stamps)
    if stamps:
        VALIDATED.mkdir(parents=True, exist_ok=True)
    for stamp in stamps:
        stamp.touch()


def script_code(basedir: str | os.PathLike, script: str, exclude: Iterable[str] = ()) -> str:
    """params.code of a rule running ``scripts/<script>``: the hash of the library code it
    imports (:func:`paramid.codehash.code_version`) and of the script's own bytes (Snakemake
    judges a script by its time alone: an edit that kept an older time reran nothing)."""
    path = Path(basedir) / "scripts" / script
    return f"{codehash.code_version(path, exclude)}:{codehash.file_digest(path)[:16]}"


class SettingsFile:
    """The input function that turns a rule's params into a file, the rerun trigger of every
    config subset and code version (:func:`apply_rule_template`).

    A job's params (the values, or the functions of its wildcards Snakemake calls) are written
    as canonical JSON to ``.snakemake/paramid-settings/<rule>/<sha256>/params.json``, named
    by their hash, and that path is one of the job's inputs.  A change of the config subset or
    of ``params.code`` changes the path, so Snakemake's ``input`` trigger (the recorded set of
    input files) reruns exactly the jobs it concerns.  Where that record is gone
    (``.snakemake/`` deleted, ``results/`` copied into another checkout) the new file is newer
    than the outputs and the ``mtime`` trigger reruns the job: every job then, as every
    settings file is new.  A file is written once and keeps its time, so settings seen before
    rerun nothing by their age (with Snakemake's metadata alone dropped, a setting changed
    back to one seen before is therefore missed).
    Snakemake's own ``params`` trigger does the same by comparing each job's params with the
    record of each output, but it imports pandas to do it (0.3 s at every start), so the
    workflow profiles leave it out of ``rerun-triggers``; with it on, both agree.  Params
    derived from files (functions of ``input``, ``output``, ...) are left out, as Snakemake
    leaves them out of its record.

    The job's source files (its inputs that no rule writes: a user's records, URDF, paper
    values, coefficient files; every input outside ``results/``) join the params as their
    SHA-256 (:func:`paramid.codehash.file_digest`, remembered by size, times and inode): Snakemake
    judges a file by its time, so new content under an older time (``cp -p``, ``rsync -t``,
    ``tar``) reran nothing and left results computed from the old file.
    """

    def __init__(
        self, rule_name: str, params: Mapping[str, Any], inputs: Iterable[Any] = ()
    ) -> None:
        self.folder = SETTINGS / rule_name
        self.params = {
            name: value
            for name, value in params.items()
            if not (callable(value) and DERIVING_ARGUMENTS & set(_arguments(value)))
        }
        self.inputs = list(inputs)

    def values(self, wildcards: Wildcards) -> dict[str, Any]:
        """The job's params (each function called with its wildcards) and, where it has
        any, the SHA-256 of each of its source files (``sources``)."""
        values = {
            name: value(wildcards) if callable(value) else value
            for name, value in self.params.items()
        }
        if sources := source_files(self.inputs, wildcards):
            values["sources"] = {path: codehash.file_digest(path) for path in sources}
        return values

    def __call__(self, wildcards: Wildcards) -> str:
        """The job's settings file, written the first time these params are seen."""
        text = json.dumps(self.values(wildcards), sort_keys=True, default=repr, indent=1)
        # a folder per hash: Snakemake lists a folder once per start and takes a file that
        # was not in the listing as missing, so a new file never joins a listed folder
        path = self.folder / hashlib.sha256(text.encode()).hexdigest() / "params.json"
        if not path.exists():
            with io.atomic_file(path) as temporary:  # a concurrent start writes the same bytes
                temporary.write_text(text + "\n")
        return path.as_posix()


def source_files(inputs: Iterable[Any], wildcards: Wildcards) -> list[str]:
    """The inputs of a job that no rule writes, sorted: of a rule's input items (paths and
    patterns, input functions, ``unpack``ed ones, as Snakemake holds them in ``rule.input``)
    those outside ``results/`` and ``.snakemake/`` that are files (a missing one is Snakemake's
    to name).  Wildcards are applied to the rule's own patterns, not to what a function
    returns (a user's path may hold a brace)."""
    from snakemake.io import AnnotatedString, _IOFile, apply_wildcards

    found: set[str] = set()
    todo: list[tuple[Any, bool]] = [(item, True) for item in inputs]
    while todo:
        item, pattern = todo.pop()
        if isinstance(item, _IOFile) and item.is_callable():
            item = item._file  # the function, or a string annotated with it (unpack)
        if isinstance(item, AnnotatedString) and item.callable is not None:
            item = item.callable
        if callable(item):
            todo.append((item(wildcards), False))
        elif isinstance(item, Mapping):
            todo.extend((value, pattern) for value in item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend((value, pattern) for value in item)
        elif isinstance(item, (str, os.PathLike)):
            path = apply_wildcards(os.fspath(item), wildcards) if pattern else os.fspath(item)
            first = Path(os.path.normpath(path)).parts[:1]
            if first not in (("results",), (".snakemake",)) and os.path.isfile(path):
                found.add(path)
    return sorted(found)


def _arguments(function: Callable[..., Any]) -> list[str]:
    import inspect

    return list(inspect.signature(function).parameters)


#: where the jobs' benchmark files lie, relative to the working directory
BENCHMARKS = ("logs", "benchmarks")


def benchmark_path(rule_name: str, output: str) -> str:
    """logs/benchmarks/<rule>/<wildcard values>.tsv (logs/benchmarks/<rule>.tsv without
    wildcards): the wall time and memory of each of a rule's jobs, wildcards in the order of its
    output path; beside the logs (a run writes nothing outside results/ and logs/)."""
    names = dict.fromkeys(re.findall(r"{(\w+)", output))
    parts = (*BENCHMARKS, rule_name, *(f"{{{w}}}" for w in names))
    return Path(*parts).as_posix() + ".tsv"


def apply_rule_template(workflow: Any, first_files: Iterable[str], priority: int) -> None:
    """Give every rule that runs something the run's conda environment (envs/paramid.yaml),
    every scripted rule its code version and benchmark file, every rule with params their
    settings file as an input (:class:`SettingsFile`); check that each scripted rule
    writes a log and runs the script of its own name; give the rules declared in
    ``first_files`` (file names) ``priority``.

    ``params.code`` is the hash of the paramid modules the script imports (their whole import
    closure), so editing library code reruns exactly the rules whose jobs run it; a rule may
    pass a narrower ``code`` itself.  The environment's pip section installs
    ``${PARAMID_CHECKOUT}``, the checkout: pip expands the variable, which a relative path
    could not do once Snakemake has copied the file.
    """
    basedir = Path(workflow.basedir)
    conda_env = (basedir / "envs" / "paramid.yaml").as_posix()
    os.environ["PARAMID_CHECKOUT"] = basedir.as_posix()
    first = set(first_files)
    for rule in workflow.rules:
        if rule.norun:
            continue
        rule.conda_env = conda_env
        if rule.script is None:
            if rule.params:
                settings = SettingsFile(rule.name, dict(rule.params.items()), list(rule.input))
                rule.set_input(settings=settings)
            continue
        if not rule.log:
            raise ValueError(f"{rule.name} declares no log; every job writes one under logs/")
        script = Path(rule.script).name
        if script != f"{rule.name}.py" and not rule.docstring:
            raise ValueError(
                f"rule {rule.name} runs scripts/{script}: a rule runs the script of its own "
                "name, or says in its docstring why it shares one"
            )
        if "code" not in rule.params._names:
            rule.set_params(code=script_code(basedir, script))
        settings = SettingsFile(rule.name, dict(rule.params.items()), list(rule.input))
        rule.set_input(settings=settings)
        rule.benchmark_modifier = rule.log_modifier  # the rule's own path modifier
        rule.benchmark = benchmark_path(rule.name, str(rule.output[0]))
        if Path(rule.snakefile).name in first:
            rule.priority = priority


def cancel_scheduler_wakeups() -> int:
    """Cancel the pending wake-ups of Snakemake's job scheduler; returns how many.

    After every scheduling round that leaves a ready job waiting, Snakemake 9's scheduler arms
    a ``threading.Timer`` of its job-rate limiter's timespan (``max-jobs-per-timespan``), and
    every wake-up arms the next: the chains multiply with the jobs that finish.  At the default
    1 s a clean ``all`` at ``--cores 2`` went through 33,475 rounds for 184 jobs (56 s of
    Snakemake's CPU); the workflow profile sets a 30 s timespan.  The timers are not daemon
    threads, so the process would wait up to that long at exit: the Snakefile's end-of-run
    handlers call this.  Timers are recognised by their callback, defined in Snakemake's
    ``job_scheduler`` module; no other timer is touched.
    """
    wakeups = [
        thread
        for thread in threading.enumerate()
        if isinstance(thread, threading.Timer)
        and getattr(thread.function, "__module__", None) == "snakemake.scheduling.job_scheduler"
    ]
    for timer in wakeups:
        timer.cancel()
    return len(wakeups)


def check_paper_values(
    path: str, field: str, parse: Callable[[Any, str], object] | None = None
) -> list[Path]:
    """A YAML mapping of a paper's printed values, read by ``parse`` (the YAML's values and
    ``path``; it raises an :class:`InputError` naming what is wrong) where given; returns the
    stamps to leave (keyed by the file and the code of ``parse``'s module)."""
    io.check_file(path, field)
    checker = parse.__module__ if parse is not None else __name__
    done, stamp = validated_before(path, {}, checker)
    if done:
        return []
    values = io.read_yaml(path)
    if not isinstance(values, dict):
        raise InputError(
            f"{field} = {path!r} holds a {type(values).__name__}, not a mapping of the paper's "
            "tables (see data/hip/paper_values.yaml)"
        )
    if parse is not None:
        parse(values, path)
    return [stamp]
