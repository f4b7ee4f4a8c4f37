"""Output paths stay in results/ and logs/: `..`, absolute paths elsewhere and symlinked folders
leading out are refused with the config field named; a dry run writes nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from paramid import paths


@pytest.fixture()
def workdir(tmp_path) -> Path:
    (tmp_path / "wf/results").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    return tmp_path / "wf"


@pytest.mark.parametrize(
    ("value", "how"),
    [
        ("../outside", "lies outside results/"),
        ("results/../../outside", "lies outside results/"),
        ("results/..", "lies outside results/"),
        ("results", "is results/ itself"),
        ("logs/cec2022", "lies outside results/"),
    ],
)
def test_relative_escapes_are_refused(workdir, value, how):
    with pytest.raises(paths.PathError, match=rf"cec2022\.output = .*{how}"):
        paths.confine(value, "cec2022.output", "results", workdir=workdir)


def test_absolute_path_outside_is_refused(workdir):
    outside = str(workdir.parent / "outside")
    with pytest.raises(paths.PathError, match=r"cec2022\.logs = .*lies outside logs/"):
        paths.confine(outside, "cec2022.logs", "logs", workdir=workdir)


def test_symlinked_folder_leading_out_is_refused(workdir):
    os.symlink(workdir.parent / "outside", workdir / "results/cec2022")
    with pytest.raises(paths.PathError, match="follows a symlink out of results/"):
        paths.confine("results/cec2022", "cec2022.output", "results", workdir=workdir)
    with pytest.raises(paths.PathError, match="follows a symlink out of results/"):
        paths.confine("results/cec2022/deeper", "cec2022.output", "results", workdir=workdir)
    with pytest.raises(paths.PathError, match="the folder of study 'cec2022'"):
        paths.check_study_folders(["hip", "cec2022"], workdir=workdir)
    (workdir / "logs").mkdir()  # a study's logs/ folder is checked as its results/ folder is
    os.symlink(workdir.parent / "outside", workdir / "logs/hip")
    with pytest.raises(paths.PathError, match="study 'hip'.*symlink out of logs/"):
        paths.check_study_folders(["hip"], workdir=workdir)


def test_folders_inside_are_accepted_as_relative_paths(workdir):
    confine = paths.confine
    assert confine("results/cec2022", "f", "results", workdir=workdir) == "results/cec2022"
    assert confine("./results/a/../b", "f", "results", workdir=workdir) == "results/b"
    inside = str(workdir / "logs/bench")
    assert confine(inside, "f", "logs", workdir=workdir) == "logs/bench"
    paths.check_study_folders(["hip", "pendulum"], workdir=workdir)


def test_results_root_may_itself_live_elsewhere(tmp_path):
    """results/ as a symlink to a scratch disk is the user's choice; beneath it stays beneath."""
    (tmp_path / "scratch").mkdir()
    (tmp_path / "wf").mkdir()
    os.symlink(tmp_path / "scratch", tmp_path / "wf/results")
    got = paths.confine("results/cec2022", "f", "results", workdir=tmp_path / "wf")
    assert got == "results/cec2022"
    with pytest.raises(paths.PathError, match="lies outside results/"):
        paths.confine(str(tmp_path / "elsewhere"), "f", "results", workdir=tmp_path / "wf")


def test_another_studys_folder_is_refused(workdir):
    with pytest.raises(paths.PathError, match=r"results/hip, the folder of studies\.hip"):
        paths.confine(
            "results/hip/cec",
            "cec2022.output",
            "results",
            workdir=workdir,
            taken={"hip": "studies.hip"},
        )


def test_only_results_and_logs_are_roots(workdir):
    with pytest.raises(ValueError, match="root must be one of"):
        paths.confine("data/x", "f", "data", workdir=workdir)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["dotdot", "absolute", "symlink"])
def test_dry_run_refuses_and_writes_nothing(tmp_path, repo_root, kind):
    from test_workflow import copy_workflow, snakemake

    workdir = copy_workflow(repo_root, tmp_path / "wf")
    outside = tmp_path / "outside"
    value = {"dotdot": "../outside", "absolute": str(outside), "symlink": "results/cec2022"}[kind]
    if kind == "symlink":
        outside.mkdir()
        (workdir / "results").mkdir()
        os.symlink(outside, workdir / "results/cec2022")
    (workdir / "my.yaml").write_text(f"cec2022:\n  output: {value}\n")
    out = snakemake(workdir, "-n", "--cores", "1", "cec2022", "--configfile", "my.yaml")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert "cec2022.output" in text and "Traceback" not in text, text[-2000:]
    assert not outside.exists() or not any(outside.iterdir())
    assert not (workdir / "results").exists() or os.listdir(workdir / "results") == ["cec2022"]
    assert not (workdir / "logs").exists()
