"""Corrupt intermediates (issue #15, item 6): a truncated Parquet is reported by name with the
command that rebuilds it, in a job and in verify, never as a pyarrow traceback."""

from __future__ import annotations

import pandas as pd
import pytest
from test_workflow import copy_workflow, snakemake

from paramid import io, provenance


def _truncated(path):
    io.write_parquet(pd.DataFrame({"x": [1.0, 2.0]}), path, units={"x": "1"}, meta={})
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    return path


def test_a_truncated_parquet_names_itself_and_its_rebuild(tmp_path):
    path = _truncated(tmp_path / "results/a.parquet")
    with pytest.raises(io.UnreadableFile, match=r"a\.parquet: unreadable Parquet .*--force"):
        io.read_parquet(path)
    with pytest.raises(FileNotFoundError):
        io.read_parquet(tmp_path / "missing.parquet")
    # its metadata alone too (it read as empty: a stage's warnings left a table unsaid)
    with pytest.raises(io.UnreadableFile, match=r"a\.parquet: unreadable Parquet .*--force"):
        io.read_parquet_metadata(path)
    with pytest.raises(FileNotFoundError):
        io.read_parquet_metadata(tmp_path / "missing.parquet")


def test_verify_reports_an_unreadable_file_instead_of_crashing(tmp_path):
    for tree in ("ref", "new"):
        io.write_parquet(
            pd.DataFrame({"x": [1.0]}),
            tmp_path / tree / "results/b.parquet",
            units={"x": "1"},
            meta={},
        )
    _truncated(tmp_path / "new/results/a.parquet")
    _truncated(tmp_path / "ref/results/a.parquet")
    result = provenance.compare_trees(
        tmp_path / "ref", tmp_path / "new", ["results/a.parquet", "results/b.parquet"]
    )
    assert not result.ok and result.same == ["results/b.parquet"]
    assert result.unreadable[0].startswith("results/a.parquet (reference:")
    assert "UNREADABLE" in result.report() and "1 unreadable" in result.report()
    # the inputs' check before the comparison passes over it (the comparison names it)
    assert provenance.changed_inputs(tmp_path / "ref", tmp_path, ["results/a.parquet"]) == {}


@pytest.mark.slow
def test_a_job_reading_a_truncated_intermediate_fails_with_one_message(tmp_path, repo_root):
    work = copy_workflow(repo_root, tmp_path / "wf")
    target = "results/hip/signals/calibration.parquet"
    assert snakemake(work, "--cores", "1", target).returncode == 0
    data = (work / target).read_bytes()
    (work / target).write_bytes(data[: len(data) // 3])
    out = snakemake(work, "--cores", "1", "results/hip/rls/summary.json")
    text = out.stdout + out.stderr
    assert out.returncode != 0
    assert f"{target}: unreadable Parquet" in text and f"snakemake --force {target}" in text
    assert "Traceback" not in text and "pyarrow" not in text.split("unreadable Parquet (")[0]
    assert (work / "results/hip/records/calibration.parquet").is_file()  # good outputs stay
