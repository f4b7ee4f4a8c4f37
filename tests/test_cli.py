"""The ``paramid`` command (paramid.cli): help, argument errors, verify with the rebuild mocked,
report and run passing their commands to Snakemake, and the console-script entry point."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from paramid import cli


def tree(root: Path, value: str = "0.1174") -> Path:
    """A checkout with a Snakefile and two outputs of one study and one of another."""
    (root / "results/hip/tables").mkdir(parents=True)
    (root / "results/other").mkdir(parents=True)
    (root / "Snakefile").write_text("rule all:\n")
    (root / "results/hip/tables/table3.csv").write_text(f"method,val\nLS,{value}\n")
    (root / "results/hip/tables/stats.csv").write_text("a,b\nx,y\n")
    (root / "results/other/x.csv").write_text("a\n1\n")
    (root / "results/provenance.json").write_text("{}")
    (root / "results/report.html").write_text("<html></html>")  # paramid report's, no rule's
    return root


def fake_rebuild(source: Path, calls: list):
    """A ``rebuild`` that copies the requested study targets' outputs (``results/<study>``) or
    files from ``source`` (no Snakemake)."""

    def rebuild(workdir: Path, targets: list[str], cores: int, configfiles: list[Path]) -> bool:
        calls.append((workdir, targets, cores, configfiles))
        assert (workdir / "Snakefile").is_file()  # the checkout was copied, not its outputs
        assert not (workdir / "results").exists()
        for target in targets:
            study = source / "results" / target
            if study.is_dir():
                shutil.copytree(study, workdir / "results" / target, dirs_exist_ok=True)
            else:
                (workdir / target).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source / target, workdir / target)
        return True

    return rebuild


def test_help_lists_the_subcommands(capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: paramid")
    for command in ("verify", "report", "run"):
        assert command in out
    with pytest.raises(SystemExit):
        cli.main(["verify", "--help"])
    assert "--study" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv",
    [[], ["frobnicate"], ["verify", "--cores", "many"], ["verify", "--nonsense"]],
)
def test_argument_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        cli.main(argv)
    assert exit_.value.code == 2
    assert "error:" in capsys.readouterr().err


def test_verify_identical_then_tampered(tmp_path, monkeypatch, capsys):
    work = tree(tmp_path / "wf")
    calls: list = []
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, calls))
    argv = ["verify", "--workflow", str(work), "--study", "hip", "--cores", "3"]
    assert cli.main(argv) == 0
    (workdir, targets, cores, configfiles) = calls[0]
    assert targets == ["hip"]  # the study's target: it builds every output the study has
    assert cli.main([*argv, "--present-only"]) == 0  # a partial build: only its files
    assert calls[1][1] == ["results/hip/tables/stats.csv", "results/hip/tables/table3.csv"]
    assert cores == 3 and configfiles == []
    assert not workdir.exists()  # the temporary rebuild is removed
    assert "identical: 2 same, 0 different" in capsys.readouterr().out

    # a partial build whose intermediates were deleted: the rebuild makes them on the way,
    # and --present-only compares only what results/ holds
    (work / "results/hip/signals").mkdir()
    (work / "results/hip/signals/x.csv").write_text("a\n2\n")
    partial = tree(tmp_path / "partial")
    files_only = fake_rebuild(work, calls)

    def with_intermediates(workdir, targets, cores, configfiles):
        made = files_only(workdir, targets, cores, configfiles)
        shutil.copytree(
            work / "results/hip/signals", workdir / "results/hip/signals", dirs_exist_ok=True
        )
        return made

    monkeypatch.setattr(cli, "rebuild", with_intermediates)
    assert cli.main([*argv, "--results", str(partial), "--present-only"]) == 0
    assert "1 files the rebuild made on the way" in capsys.readouterr().out
    assert cli.main([*argv, "--results", str(partial)]) == 1  # a whole study: one is missing
    assert "EXTRA      results/hip/signals/x.csv" in capsys.readouterr().out
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, calls))

    reference = tree(tmp_path / "ref", value="0.1175")  # one number differs from the rebuild
    assert cli.main([*argv, "--results", str(reference)]) == 1
    assert "DIFFERENT  results/hip/tables/table3.csv" in capsys.readouterr().out


def test_verify_defaults_to_the_current_directory_and_reports_failures(
    tmp_path, monkeypatch, capsys
):
    work = tree(tmp_path / "wf")
    monkeypatch.chdir(work)
    calls: list = []
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, calls))
    assert cli.main(["verify"]) == 0
    assert calls[0][1] == ["hip", "other"]  # every study with outputs, by its target
    monkeypatch.setattr(cli, "rebuild", lambda *args: False)
    assert cli.main(["verify"]) == 2
    monkeypatch.chdir(tmp_path)
    assert cli.main(["verify"]) == 2  # no results/ here
    assert "no outputs under" in capsys.readouterr().err


def test_report_and_run_call_snakemake(monkeypatch, tmp_path, capsys):
    seen: list[list[str]] = []
    environments: list[dict] = []

    def fake_run(cmd, **kwargs):
        seen.append(cmd)
        environments.append(kwargs.get("env", {}))
        return subprocess.CompletedProcess(cmd, 7)

    monkeypatch.setattr(cli.subprocess, "run", fake_run)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["report"]) == 2  # nothing built: no results/ to write the report in
    assert "the folder results of --output results/report.html does not exist" in (
        capsys.readouterr().err
    )
    (tmp_path / "results").mkdir()
    snakemake = [sys.executable, "-m", "snakemake"]
    assert cli.main(["report"]) == 7  # Snakemake's exit status is passed on
    assert cli.main(["report", "--output", "r.zip", "--configfile", "x.yaml"]) == 7
    assert cli.main(["run", "results/hip/tables/table3.csv", "--cores", "1", "-n"]) == 7
    assert seen == [
        [*snakemake, "--report", "results/report.html"],
        [*snakemake, "--report", "r.zip", "--configfile", "x.yaml"],
        [*snakemake, "results/hip/tables/table3.csv", "--cores", "1", "-n"],
    ]
    assert environments[0]["PYTHONWARNINGS"].endswith(cli.REPORT_WARNINGS)


def test_the_report_silences_only_snakemakes_unawaited_coroutine_warning():
    """snakemake/snakemake#4280's warning is dropped under the report's filter; others are not."""
    code = (
        "import warnings; warnings.warn(\"coroutine 'InputFiles._predicated_size_files.<locals>"
        ".sizes' was never awaited\", RuntimeWarning); warnings.warn('other', RuntimeWarning)"
    )
    env = {**os.environ, "PYTHONWARNINGS": cli.REPORT_WARNINGS}
    out = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120
    )
    assert "other" in out.stderr and "never awaited" not in out.stderr


def test_console_script_and_python_m(repo_root):
    project = tomllib.loads((repo_root / "pyproject.toml").read_text())["project"]
    module, _, name = project["scripts"]["paramid"].partition(":")
    assert getattr(importlib.import_module(module), name) is cli.main
    env = {**os.environ, "PYTHONPATH": str(repo_root / "src")}
    out = subprocess.run(
        [sys.executable, "-m", "paramid", "run", "--help"],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert out.returncode == 0 and out.stdout.startswith("usage: paramid run"), out.stderr


class FakeSnakemake:
    """``subprocess.Popen`` of a Snakemake run that says ``said`` and exits ``returncode``."""

    def __init__(self, said: str, returncode: int = 1) -> None:
        self.said, self.returncode = said, returncode

    def __call__(self, cmd, **kwargs):
        self.cmd = cmd
        self.stdout = iter(self.said.splitlines(keepends=True))
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        return None


def test_a_rebuild_shows_its_progress(tmp_path, monkeypatch, capsys):
    """A full verify was silent for ten minutes: Snakemake's progress lines are echoed."""
    said = "Building DAG of jobs...\n1 of 2 steps (50%) done\nrule x:\n2 of 2 steps (100%) done\n"
    monkeypatch.setattr(cli.subprocess, "Popen", FakeSnakemake(said, 0))
    assert cli.rebuild(tmp_path, ["hip"], 1, [])
    assert capsys.readouterr().out == (
        "verify: 1 of 2 steps (50%) done\nverify: 2 of 2 steps (100%) done\n"
    )


def test_a_rebuild_reads_the_given_overlays_last(tmp_path, monkeypatch):
    """A user's study exists only in its overlay: without it the rebuild builds another one."""
    snakemake = FakeSnakemake("", 0)
    monkeypatch.setattr(cli.subprocess, "Popen", snakemake)
    overlay = tmp_path / "mine.yaml"
    assert cli.rebuild(tmp_path, ["mine"], 1, [overlay])
    assert snakemake.cmd[-2:] == ["--configfile", str(overlay.resolve())]


def test_a_file_no_rule_makes_is_named_with_what_to_do(tmp_path, monkeypatch, capsys):
    """results/ of a user's study need its overlay, and a file put under results/ by hand is
    made by no rule: Snakemake's MissingRuleException alone said neither, nor which file."""
    failed = FakeSnakemake(
        "MissingRuleException:\nNo rule to produce results/mine/my notes.txt (if you use"
    )
    monkeypatch.setattr(cli.subprocess, "Popen", failed)
    assert not cli.rebuild(tmp_path, ["results/mine/x.csv"], 1, [])
    err = capsys.readouterr().err
    assert "no rule makes results/mine/my notes.txt: a file put under results/ by hand" in err
    assert "pass --configfile" in err
    assert not cli.rebuild(tmp_path, ["results/mine/x.csv"], 1, [tmp_path / "my.yaml"])
    assert "pass --configfile" not in capsys.readouterr().err
    for said in (
        "MissingRuleException:\nNo rule to produce mine (if you use input functions",
        "paramid: mine: no study 'mine' in this run's config (read from config.yaml; ...",
    ):
        failed.said = said  # Snakemake's, then the workflow's own (rule no_such_study)
        assert not cli.rebuild(tmp_path, ["mine"], 1, [])
        err = capsys.readouterr().err
        assert "this checkout's config has no study mine" in err and "pass --configfile" in err


def test_verify_names_an_output_the_reference_lacks(tmp_path, monkeypatch, capsys):
    """A published tree with an output deleted passed as identical: first the rebuild's extra
    was only a note, then every output of a rule deleted (an audit's CSV and Markdown) was not
    rebuilt at all, as only the files found were; the study's target rebuilds them. A file no
    rule makes is named, and everything else is still compared."""
    work = tree(tmp_path / "wf")
    reference = tree(tmp_path / "ref")
    (reference / "results/hip/tables/stats.csv").unlink()
    (reference / "results/hip/tables/notes.txt").write_text("mine\n")
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, []))
    for argv in (["--study", "hip"], []):
        assert (
            cli.main(["verify", "--workflow", str(work), "--results", str(reference), *argv]) == 1
        )
        out = capsys.readouterr().out
        assert (
            "EXTRA      results/hip/tables/stats.csv (rebuilt, but missing from results/: deleted"
            in out
        )
        assert "MISSING    results/hip/tables/notes.txt (in the reference, not rebuilt" in out
        assert "same       results/hip/tables/table3.csv" in out


def test_verify_of_a_study_without_outputs_names_those_with(tmp_path, capsys):
    work = tree(tmp_path / "wf")
    assert cli.main(["verify", "--workflow", str(work), "--study", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no outputs under" in err and "results/nosuch" in err
    assert "(studies with outputs: hip, other)" in err
    argv = ["verify", "--workflow", str(work), "--study", "hip", "--study", "nosuch"]
    assert cli.main(argv) == 2  # not hip verified and nosuch passed over
    assert "results/nosuch" in capsys.readouterr().err


def test_the_rebuild_copies_an_untracked_overlay_and_rebuilds_top_level_files(tmp_path):
    """A user's config file not yet committed (nor ignored) is part of the checkout copied for
    the rebuild, results/ is not; a file directly under results/ is rebuilt as that file."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    root = tree(tmp_path / "wf")
    (root / ".gitignore").write_text("results/\n")
    for args in (["init", "-q"], ["add", "Snakefile", ".gitignore"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, timeout=120)
    (root / "mine.yaml").write_text("studies: {}\n")
    names = {path.as_posix() for path in cli.workflow_files(root)}
    assert {"mine.yaml", "Snakefile"} <= names
    assert not any(name.startswith("results/") for name in names)
    files = ["results/hip/tables/table3.csv", "results/summary.csv"]
    assert cli.rebuild_targets(files, []) == ["hip", "results/summary.csv"]


def test_a_stray_temporary_fails_an_otherwise_identical_verify(tmp_path, monkeypatch, capsys):
    """A leftover of an interrupted write under results/ is a fault of the tree verified."""
    work = tree(tmp_path / "wf")
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, []))
    argv = ["verify", "--workflow", str(work), "--study", "hip"]
    assert cli.main(argv) == 0
    (work / "results/hip/tables/.table3.csv.x1.tmp").write_text("half")
    assert cli.main(argv) == 1
    out = capsys.readouterr()
    assert "identical" in out.out and "stray temporary file" in out.err


def test_verify_names_an_input_changed_since_the_build(tmp_path, monkeypatch, capsys):
    """An auditor who edited a data file (a paper value, a record) saw only which outputs
    differ: verify now names each input whose SHA-256 differs from the one the outputs
    record, or that is gone, before it compares."""
    import hashlib

    import pandas as pd

    from paramid import io

    work = tree(tmp_path / "wf")
    (work / "data").mkdir()
    for name in ("x.csv", "y.csv"):
        (work / "data" / name).write_text("a\n1\n")
    digest = hashlib.sha256(b"a\n1\n").hexdigest()
    meta = {"inputs": {"data/x.csv": digest, "data/y.csv": digest, "results/hip/a.csv": "0"}}
    meta["inputs"][".snakemake/paramid-settings/hip_fit/0/params.json"] = "0"  # build state
    frame = pd.DataFrame({"v": [1.0]})
    io.write_parquet(frame, work / "results/hip/fit.parquet", units={"v": "1"}, meta=meta)
    monkeypatch.setattr(cli, "rebuild", fake_rebuild(work, []))
    argv = ["verify", "--workflow", str(work), "--study", "hip"]
    assert cli.main(argv) == 0
    assert "verify: input" not in capsys.readouterr().err  # as built
    (work / "data/x.csv").write_text("a\n2\n")
    (work / "data/y.csv").unlink()
    cli.main(argv)
    err = capsys.readouterr().err
    assert "verify: input data/x.csv changed since results/ was built" in err
    assert "verify: input data/y.csv no longer in the checkout" in err
    assert "results/hip/a.csv" not in err  # an output of the build is no input to check
    assert ".snakemake" not in err  # nor the workflow's own settings files
    published = tree(tmp_path / "published")  # --results elsewhere: the inputs it records
    shutil.move(work / "results/hip/fit.parquet", published / "results/hip/fit.parquet")
    (work / "data/y.csv").write_text("a\n1\n")
    cli.main([*argv, "--results", str(published)])
    err = capsys.readouterr().err
    assert "verify: input data/x.csv changed since results/ was built" in err
    assert "data/y.csv" not in err


def test_a_report_of_unbuilt_outputs_and_a_missing_overlay_are_named(monkeypatch, tmp_path, capsys):
    """Snakemake's "marked for report but does not exist" gets what to do; verify refuses a
    --configfile that does not exist before it copies or rebuilds anything (it printed
    "rebuilding" and then Snakemake's traceback)."""
    said = (
        "WorkflowError:\nFile results/hip/tables/stats.csv marked for report but does not exist.\n"
    )
    monkeypatch.setattr(
        cli.subprocess, "run", lambda cmd, **kw: subprocess.CompletedProcess(cmd, 1, None, said)
    )
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results").mkdir()
    assert cli.main(["report", "hip"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(said) and "results/hip/tables/stats.csv not built yet" in err
    assert cli.main(["verify", "--configfile", "nosuch.yaml"]) == 2
    assert capsys.readouterr().err == "verify: --configfile nosuch.yaml: no such file\n"
