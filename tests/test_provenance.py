"""Provenance: git commit of the checkout, comparison hashes per output kind, provenance.json,
tree comparison, and ``paramid verify`` end to end (rebuild, identical, then a tampered output).
"""

from __future__ import annotations

import json
import runpy
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from paramid import cli, io, provenance

HAVE_GIT = shutil.which("git") is not None


def git(repo: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, timeout=120
    ).stdout.strip()


@pytest.fixture()
def repo(tmp_path: Path) -> Path:
    if not HAVE_GIT:
        pytest.skip("git is not installed")
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    git(root, "config", "user.email", "test@example.org")
    git(root, "config", "user.name", "test")
    (root / ".gitignore").write_text("results/\n")
    (root / "Snakefile").write_text("rule all:\n")
    git(root, "add", ".gitignore", "Snakefile")
    git(root, "commit", "-q", "-m", "init")
    return root


def test_git_commit_is_head_of_a_clean_checkout(repo):
    head = git(repo, "rev-parse", "HEAD")
    assert len(head) == 40
    assert io.git_commit(repo) == head
    (repo / "scripts").mkdir()
    assert io.git_commit(repo / "scripts") == head  # any path inside the checkout
    assert io.git_commit(repo / "Snakefile") == head  # or a file in it


def test_git_commit_ignores_outputs_and_untracked_files(repo):
    head = git(repo, "rev-parse", "HEAD")
    (repo / "results").mkdir()
    (repo / "results/x.parquet").write_bytes(b"data")  # ignored: a run's own outputs
    (repo / "notes.txt").write_text("untracked")
    assert io.git_commit(repo) == head


def test_git_commit_marks_uncommitted_changes_dirty(repo):
    head = git(repo, "rev-parse", "HEAD")
    (repo / "Snakefile").write_text("rule all:\n    input: []\n")
    assert io.git_commit(repo) == f"{head}-dirty"
    git(repo, "commit", "-q", "-am", "edit")
    assert io.git_commit(repo) == git(repo, "rev-parse", "HEAD") != head


def test_git_commit_outside_git_is_unknown(tmp_path):
    assert io.git_commit(tmp_path) == "unknown"
    assert io.git_commit(tmp_path / "missing" / "dir") == "unknown"


def test_a_library_from_another_checkout_is_named_and_warned_of(
    repo, tmp_path, monkeypatch, caplog
):
    """Run from a checkout while the imported paramid lies elsewhere (a venv installed from
    another clone): the provenance names the library and its commit beside the working
    directory's, and the job warns once; from no checkout, nothing is added."""
    library = Path(io.__file__).resolve().parent
    if library.is_relative_to(repo):
        pytest.skip("the library lies in the test checkout")
    monkeypatch.chdir(repo)
    monkeypatch.setattr(io.foreign_library, "found", None, raising=False)
    with caplog.at_level("WARNING", logger="paramid.provenance"):
        block = io.provenance({"a": 1})
        io.provenance({"a": 2})
    assert block["git_commit"] == git(repo, "rev-parse", "HEAD")
    assert block["library"] == str(library)
    assert block["library_git_commit"] == io.git_commit(library)
    assert [r.getMessage() for r in caplog.records].count(caplog.records[0].getMessage()) == 1
    assert "outside this checkout" in caplog.records[0].getMessage()
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.chdir(plain)
    monkeypatch.setattr(io.foreign_library, "found", None, raising=False)
    assert "library" not in io.provenance({"a": 1})


@pytest.mark.parametrize(
    ("name", "timing"),
    [
        ("time_ms", True),
        ("time_ms_mean", True),
        ("time_ms_per_run_repeats", True),
        ("timing", True),
        ("elapsed_s", True),
        ("time_s_sd", True),
        ("m5_time_saving_pct", True),  # derived from timings
        ("time_to_1pct_ms_median", True),
        ("runtime", True),
        ("paper_time_ms_mean", False),  # a printed value: compared
        ("paper_m5_time_saving_pct", False),
        ("time", False),  # a time axis
        ("val_rmse", False),
        ("timestamp_offset", False),
        ("evals_to_1pct_median", False),
    ],
)
def test_timing_names(name, timing):
    assert provenance.is_timing(name) is timing


def test_csv_hash_ignores_timing_columns_only(tmp_path):
    a, b, c = (tmp_path / f"{n}.csv" for n in "abc")
    a.write_text("method,val,time_ms_mean,paper_time_ms_mean\nLS,0.1174,0.148,0.13\n")
    b.write_text("method,val,time_ms_mean,paper_time_ms_mean\nLS,0.1174,0.091,0.13\n")
    c.write_text("method,val,time_ms_mean,paper_time_ms_mean\nLS,0.1175,0.148,0.13\n")
    assert provenance.csv_hash(a) == provenance.csv_hash(b)
    assert provenance.csv_hash(a) != provenance.csv_hash(c)
    c.write_text("method,val,time_ms_mean,paper_time_ms_mean\nLS,0.1174,0.148,0.14\n")
    assert provenance.csv_hash(a) != provenance.csv_hash(c)
    c.write_text("method,val,time_ms_mean,paper_time_ms_mean\nLS,0.1174,0.148,0.13,999\n")
    assert provenance.csv_hash(a) != provenance.csv_hash(c)  # a cell beyond the header's


def test_markdown_hash_ignores_timing_columns_of_tables(tmp_path):
    def table(val: str, t: str) -> str:
        return (
            f"Table 3 (hip)\n\n| method | val | time_ms_mean |\n|---|---|---|\n"
            f"| LS | {val} | {t} |\n\nnote\n"
        )

    a, b, c = (tmp_path / f"{n}.md" for n in "abc")
    a.write_text(table("0.1174", "0.1480"))
    b.write_text(table("0.1174", "0.0879"))
    c.write_text(table("0.1175", "0.1480"))
    assert provenance.markdown_hash(a) == provenance.markdown_hash(b)
    assert provenance.markdown_hash(a) != provenance.markdown_hash(c)
    c.write_text(table("0.1174", "0.1480").replace("note", "other"))
    assert provenance.markdown_hash(a) != provenance.markdown_hash(c)
    second = "\n| time_ms_mean | n | val |\n|---|---|---|\n| 0.1480 | 1 | {} |\n"  # own columns
    a.write_text(table("0.1174", "0.1480") + second.format("0.5"))
    c.write_text(table("0.1174", "0.1480") + second.format("0.6"))
    assert provenance.markdown_hash(a) != provenance.markdown_hash(c)


def test_json_hash_ignores_timings_and_provenance_but_not_data(tmp_path):
    base = {"gamma": 0.0328, "lower": [1.0, 2.0], "provenance": {"versions": {"numpy": "2"}}}
    a, b, c = (tmp_path / f"{n}.json" for n in "abc")
    io.write_json(base | {"time_ms": 1.0}, a)
    io.write_json(base | {"time_ms": 2.0, "provenance": {"git_commit": "x"}}, b)
    io.write_json(base | {"lower": [1.0, 2.5]}, c)
    assert provenance.json_hash(a) == provenance.json_hash(b)
    assert provenance.json_hash(a) != provenance.json_hash(c)
    for rmse, time_ms, path in ((0.1, 1.0, a), (0.1, 2.0, b), (0.2, 1.0, c)):  # inside a list
        io.write_json({"runs": [{"rmse": rmse, "time_ms": time_ms}]}, path)
    assert provenance.json_hash(a) == provenance.json_hash(b)
    assert provenance.json_hash(a) != provenance.json_hash(c)


def write_fit(
    path: Path,
    rmse: float,
    time_ms: float,
    commit: str = "abc",
    unit: str = "N m",
    mu: float = 0.709,
    margin: float = 0.1,
) -> None:
    frame = pd.DataFrame({"run": [0, 1], "val_rmse": [rmse, 0.2], "time_ms": [time_ms, 1.0]})
    cfg = {"method": "ls", "rls": {"margin": margin}}
    meta = io.provenance(cfg, [], stage="fit", git_commit=commit, mu_eq12=mu)
    meta["time_ms_per_run_repeats"] = [time_ms]
    meta["versions"] = {"numpy": commit}  # another build's
    io.write_parquet(
        frame,
        path,
        units={"run": "1", "val_rmse": unit, "time_ms": "ms"},
        meta=meta,
        nondeterministic_columns=["time_ms"],
    )


def test_a_records_start_in_its_file_is_compared(tmp_path):
    """A record's ``start_in_file_s`` (the file's time of its 0) is data, not a timing: two
    records that differ only there are a difference (named ``time_origin_s`` it was dropped
    as a wall-clock key)."""
    assert not provenance.is_timing("start_in_file_s")
    frame = pd.DataFrame({"time": [0.0, 0.01], "angle": [0.1, 0.2]})
    for name, start in (("a", 0.0), ("b", 1733.25)):
        meta = io.provenance({}, [], stage="hip_ingest", start_in_file_s=start)
        units = {"time": "s", "angle": "rad"}
        io.write_parquet(frame, tmp_path / f"{name}.parquet", units=units, meta=meta)
    assert provenance.output_hash(tmp_path / "a.parquet") != provenance.output_hash(
        tmp_path / "b.parquet"
    )


def test_output_hash_dispatches_on_kind(tmp_path):
    write_fit(tmp_path / "a.parquet", 0.1, 3.0, commit="one")
    write_fit(tmp_path / "b.parquet", 0.1, 9.0, commit="two")
    # timings and what describes the build (commits, versions) are not compared
    assert provenance.output_hash(tmp_path / "a.parquet") == provenance.output_hash(
        tmp_path / "b.parquet"
    )
    # units and results kept in the metadata are (a unit or μ(γ) edited passed unseen)
    write_fit(tmp_path / "c.parquet", 0.1, 3.0, unit="N mm")
    write_fit(tmp_path / "d.parquet", 0.1, 3.0, mu=0.5)
    hashes = {provenance.output_hash(tmp_path / f"{name}.parquet") for name in "acd"}
    assert len(hashes) == 3
    (tmp_path / "f.png").write_bytes(b"\x89PNG")
    assert provenance.output_kind(tmp_path / "f.png") == "figure"
    assert provenance.output_hash(tmp_path / "f.png") is None
    (tmp_path / "audit.csv").write_text(AUDIT_CSV.format(speed=7.3, verdict="reproduced"))
    assert provenance.output_kind(tmp_path / "audit.csv") == "audit"
    assert provenance.output_hash(tmp_path / "audit.csv") is not None
    io.write_json({"outputs": {}}, tmp_path / "provenance.json")  # a record of one build
    assert provenance.output_hash(tmp_path / "provenance.json") is None
    urdf = (
        '<robot name="r">\n  <!--\n  config hash 8c9a; git commit {}.\n-->\n  <mass value="{}"/>\n'
    )
    (tmp_path / "a.urdf").write_text(urdf.format("c63e0c8", 1.5))
    (tmp_path / "b.urdf").write_text(urdf.format("unknown", 1.5))  # paramid verify's rebuild
    (tmp_path / "c.urdf").write_text(urdf.format("c63e0c8", 1.6))
    hashes = [provenance.output_hash(tmp_path / f"{name}.urdf") for name in "abc"]
    assert hashes[0] == hashes[1] != hashes[2]
    (tmp_path / "x.bin").write_bytes(b"1")
    assert provenance.output_hash(tmp_path / "x.bin") == io.file_sha256(tmp_path / "x.bin")


AUDIT_CSV = (
    "claim,source,paper_value,reproduced_value,tolerance,verdict,reason\n"
    "BCLS val_mean,Table 3,0.1152,0.1174,±6 %,{verdict},within tolerance\n"
    "BCLS faster,§4.3,100,{speed},not judged,machine-dependent,ours {speed}x\n"
)


def _audit_markdown(csv_text: str) -> str:
    rows = [line.split(",") for line in csv_text.strip().splitlines()]
    table = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    table += ["| " + " | ".join(row) + " |" for row in rows[1:]]
    return "Claims audit (hip): 2 claims\n\n" + "\n".join(table) + "\n"


@pytest.mark.parametrize("suffix", [".csv", ".md"])
def test_an_audit_is_compared_but_for_its_wall_clock_rows(tmp_path, suffix):
    """A machine-dependent row's value and reason move between builds; an edited verdict
    (or any other cell) is a difference."""

    def hash_of(name: str, text: str) -> str | None:
        path = tmp_path / name / f"audit{suffix}"
        path.parent.mkdir()
        path.write_text(text if suffix == ".csv" else _audit_markdown(text))
        return provenance.output_hash(path)

    built = hash_of("a", AUDIT_CSV.format(speed=7.3, verdict="reproduced"))
    assert built == hash_of("b", AUDIT_CSV.format(speed=95.1, verdict="reproduced"))
    assert built != hash_of("c", AUDIT_CSV.format(speed=7.3, verdict="differs"))
    edited = AUDIT_CSV.format(speed=7.3, verdict="reproduced").replace("0.1174", "0.1516")
    assert built != hash_of("d", edited)
    if suffix == ".md":  # its caption (the verdict counts) is compared too
        path = tmp_path / "e" / "audit.md"
        path.parent.mkdir()
        path.write_text((tmp_path / "a" / "audit.md").read_text().replace("2 claims", "3 claims"))
        assert provenance.output_hash(path) != built


def test_an_audit_without_its_columns_is_unreadable_not_a_crash(tmp_path):
    """A file named audit.csv (or .md) that is no claims audit (empty, hand-edited) is named
    as unreadable by verify, as a truncated Parquet file is, instead of a traceback."""
    texts = {"a": "claim,value\nx,1\n", "b": "", "c": "| claim | value |\n|---|---|\n| x | 1 |\n"}
    for side, text in texts.items():
        path = tmp_path / side / "results/hip" / ("audit.md" if side == "c" else "audit.csv")
        path.parent.mkdir(parents=True)
        path.write_text(text)
        with pytest.raises(io.UnreadableFile, match="not a claims audit"):
            provenance.output_hash(path)
    result = provenance.compare_trees(tmp_path / "a", tmp_path / "b", ["results/hip/audit.csv"])
    assert not result.ok and result.unreadable[0].startswith("results/hip/audit.csv (reference:")


@pytest.mark.parametrize(
    ("name", "good", "bad", "kind"),
    [
        ("tables/t.csv", b"a,b\n1,2\n", b"a,b\n1,\xff\xfe2\n", "UTF-8 text"),
        ("tables/t.md", b"| a |\n|---|\n| 1 |\n", b"| a |\n|---|\n| \xff |\n", "UTF-8 text"),
        ("model/ols.urdf", b"<robot/>", b"<robot>\xff</robot>", "UTF-8 text"),
        ("signals/cutoff.json", b'{"chosen_hz": 6}', b'{"chosen_hz": 6', "JSON"),
    ],
)
def test_a_corrupt_text_output_is_unreadable_not_a_crash(tmp_path, name, good, bad, kind):
    """A text output cut short or overwritten with bytes that are no UTF-8 is named as
    unreadable by verify, with the command that rebuilds it, as a truncated Parquet file is
    (it raised UnicodeDecodeError or JSONDecodeError through verify)."""
    rel = f"results/robot/{name}"
    for side, content in (("a", good), ("b", bad)):
        path = tmp_path / side / rel
        path.parent.mkdir(parents=True)
        path.write_bytes(content)
    result = provenance.compare_trees(tmp_path / "a", tmp_path / "b", [rel])
    assert not result.ok and len(result.unreadable) == 1
    assert result.unreadable[0].startswith(
        f"{rel} (rebuilt: {tmp_path / 'b' / rel}: unreadable {kind} ("
    )
    assert f"`snakemake --force {tmp_path / 'b' / rel}`" in result.unreadable[0]


def test_a_job_reading_a_truncated_json_names_it(tmp_path):
    """A job's JSON input cut short (a full disk, a killed copy) is an UnreadableFile naming
    the file, as a truncated Parquet input is, not a JSONDecodeError traceback."""
    path = tmp_path / "cutoff.json"
    path.write_text('{"chosen_hz": 6.0, "rule": "lowest')
    with pytest.raises(
        io.UnreadableFile, match=r"cutoff\.json: unreadable JSON .*snakemake --force"
    ):
        io.read_json(path)
    missing = tmp_path / "absent.json"
    with pytest.raises(FileNotFoundError):
        io.read_json(missing)


def test_a_pipe_in_a_markdown_cell_stays_in_its_cell(tmp_path):
    """A tolerance such as |Cliff's delta| >= 0.33 is escaped in the table, so the cells after
    it keep their columns (a machine-dependent row's value is still the one left out)."""
    frame = pd.DataFrame(
        {
            "claim": ["a", "b"],
            "reproduced_value": ["1", "2"],
            "tolerance": ["|Cliff's delta| >= 0.33", "not judged"],
            "verdict": ["differs", "machine-dependent"],
            "reason": ["r", "t"],
        }
    )
    text = io.markdown_table(frame)
    assert "\\|Cliff's delta\\|" in text
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    io.write_markdown(frame, tmp_path / "a/audit.md")
    io.write_markdown(frame.assign(reproduced_value=["1", "9"]), tmp_path / "b/audit.md")
    assert provenance.audit_hash(tmp_path / "a/audit.md") == provenance.audit_hash(
        tmp_path / "b/audit.md"
    )


def make_tree(root: Path, rmse: float = 0.1, time_ms: float = 3.0, val: str = "0.1174") -> Path:
    (root / "results/hip/fits").mkdir(parents=True)
    (root / "results/hip/tables").mkdir(parents=True)
    (root / "results/hip/figures").mkdir(parents=True)
    write_fit(root / "results/hip/fits/ls.parquet", rmse, time_ms)
    (root / "results/hip/tables/table3.csv").write_text(
        f"method,val,time_ms_mean\nLS,{val},{time_ms}\n"
    )
    (root / "results/hip/figures/fig3c.png").write_bytes(f"png {time_ms}".encode())
    return root


def test_compare_trees_classifies_every_output(tmp_path, monkeypatch):
    ref = make_tree(tmp_path / "ref")
    same = make_tree(tmp_path / "same", time_ms=7.0)  # only timings and figure bytes differ
    files = provenance.list_outputs(ref)
    assert files == [
        "results/hip/figures/fig3c.png",
        "results/hip/fits/ls.parquet",
        "results/hip/tables/table3.csv",
    ]
    result = provenance.compare_trees(ref, same, files)
    assert result.ok
    assert result.same == ["results/hip/fits/ls.parquet", "results/hip/tables/table3.csv"]
    assert result.via_source == ["results/hip/figures/fig3c.png"]
    assert "identical" in result.report() and "compared via source data" in result.report()

    other = make_tree(tmp_path / "other", rmse=0.10000000001, val="0.1175")
    (other / "results/hip/figures/fig3c.png").unlink()
    (other / "results/hip/extra.json").write_text("{}")
    result = provenance.compare_trees(ref, other, files + ["results/hip/extra.json"])
    assert not result.ok
    assert result.different == [
        "results/hip/fits/ls.parquet (data: val_rmse (1 of 2 rows from row 1, largest |diff| "
        "1e-11, relative 1.0e-10))",
        "results/hip/tables/table3.csv (row 1, column 'val': '0.1174' -> '0.1175' (relative "
        "8.5e-04))",
    ]
    assert result.missing == ["results/hip/figures/fig3c.png"]
    assert result.extra == ["results/hip/extra.json"]
    assert "DIFFERENT  results/hip/fits/ls.parquet" in result.report()
    write_fit(other / "results/hip/fits/ls.parquet", 0.1, 3.0, unit="N mm", mu=0.5)
    result = provenance.compare_trees(ref, other, files)
    assert result.different[0] == (
        "results/hip/fits/ls.parquet (metadata: mu_eq12, units.val_rmse: 'N m' -> 'N mm')"
    )  # a mapping's differing key named with its values
    with monkeypatch.context() as patched:  # where they differ is a courtesy: never a crash
        patched.setattr(provenance, "difference", lambda *a: float("cannot locate"))
        located = provenance.compare_trees(ref, other, files).different[0]
    assert located.endswith(
        "(not located: ValueError: could not convert string to float: 'cannot locate')"
    )
    write_fit(other / "results/hip/fits/ls.parquet", 0.1, 3.0, margin=0.12)
    result = provenance.compare_trees(ref, other, files)
    assert result.different[0] == (  # the changed setting, not only "config"
        "results/hip/fits/ls.parquet (metadata: config.rls.margin: 0.1 -> 0.12 (relative "
        "1.7e-01), config_hash)"
    )


def test_a_difference_is_located_in_the_terms_of_its_comparison(tmp_path):
    """verify names where two outputs differ and by how much: the CSV cell (row and column),
    the Markdown or URDF line, the JSON key, the Parquet column with its count of rows and
    largest difference; timing columns and keys never show, since they are not compared."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()

    def located(name: str, text_a: str, text_b: str) -> str:
        (a / name).write_text(text_a)
        (b / name).write_text(text_b)
        return provenance.difference(a / name, b / name)

    head = "method,time_ms,val\n"
    assert located("t.csv", head + "LS,1,2.0\nGA,1,4.0\n", head + "LS,9,2.0\nGA,9,4.4\n") == (
        "row 2, column 'val': '4.0' -> '4.4' (relative 9.1e-02)"
    )
    assert (
        located("t.csv", head + "LS,1,x\n", head + "LS,1,y\n") == "row 1, column 'val': 'x' -> 'y'"
    )
    assert located("t.csv", head + "LS,1,2\n", head + "LS,1,2\nGA,1,3\n") == (
        "1 rows in the reference, 2 rebuilt"
    )
    table = "Table\n\n| m | time_ms | v |\n|---|---|---|\n| LS | {t} | {v} |\n"
    assert located("t.md", table.format(t=1, v=0.5), table.format(t=2, v=0.6)) == (
        "line 5: 'LS|0.5' -> 'LS|0.6'"
    )
    data = {"gamma": 0.5, "runs": [{"rmse": 1.0, "time_ms": 3}], "provenance": {"x": 1}}
    other = {"gamma": 0.5, "runs": [{"rmse": 1.0 + 1e-15, "time_ms": 4}], "provenance": {}}
    assert located("s.json", json.dumps(data), json.dumps(other)) == (
        "runs[0].rmse: 1.0 -> 1.000000000000001 (relative 1.1e-15)"
    )
    assert located("s.json", json.dumps(data), json.dumps({"gamma": 0.5})) == (
        "runs: only in the reference"
    )
    urdf = '<robot name="x">\n  <!-- git commit {c}. -->\n  <mass value="{m}"/>\n</robot>\n'
    assert located("m.urdf", urdf.format(c="abc", m=1.0), urdf.format(c="def", m=1.5)) == (
        "line 3: '<mass value=\"1.0\"/>' -> '<mass value=\"1.5\"/>'"
    )
    assert located("a.bin", "x", "y") == "bytes"
    assert located("e.csv", "", head + "LS,1,2\n") == "0 rows in the reference, 1 rebuilt"
    audit_md = (
        "Claims audit (hip)\n\n| claim | reproduced_value | verdict | reason |\n"
        "|---|---|---|---|\n| a | 1 | {v} | r |\n"
    )
    assert located("audit.md", audit_md.format(v="reproduced"), audit_md.format(v="differs")) == (
        "row 1, column 'verdict': 'reproduced' -> 'differs'"
    )
    assert located("j.json", '{"ok": true}', '{"ok": false}') == "ok: True -> False"
    assert located("l.json", '{"lower": [1, 2]}', '{"lower": [1, 2, 3]}') == (
        "lower: 2 items in the reference, 3 rebuilt"
    )
    reason = "our rank 3 of 6 by std; 95 % bootstrap interval over the runs from {} to 4"
    long_a, long_b = (head + f"LS,1,{reason.format(k)}\n" for k in (2, 3))
    assert located("t.csv", long_a, long_b) == (
        "row 1, column 'val': '... over the runs from 2 to 4' -> '... over the runs from 3 to 4'"
    )  # two long texts shown from a little before their first difference


def test_frame_difference_counts_rows_and_sizes_the_gap():
    frame = pd.DataFrame({"k": ["a", "b", "c"], "x": [1.0, float("nan"), 3.0], "n": [1, 2, 3]})
    assert provenance.frame_difference(frame, frame.copy()) == (
        "equal values, stored otherwise (the data hash reads the bytes)"
    )  # NaN equals NaN
    moved = frame.assign(x=[1.0, float("nan"), 3.0 + 3e-12], k=["a", "B", "c"])
    assert provenance.frame_difference(frame, moved) == (
        "k (1 of 3 rows from row 2); x (1 of 3 rows from row 3, largest |diff| 3e-12, "
        "relative 1.0e-12)"
    )  # rows counted from 1, as in a CSV's
    lost = frame.assign(x=[float("nan"), float("nan"), -float("inf")])
    assert provenance.frame_difference(frame, lost) == (
        "x (2 of 3 rows from row 1, 2 non-finite in one of them (NaN, inf))"
    )  # a value turned NaN is no zero difference
    flags = pd.DataFrame({"f": pd.array([True, None, False], dtype="boolean")})
    assert provenance.frame_difference(flags, flags.assign(f=pd.array([True, None, True]))) == (
        "f (1 of 3 rows from row 3)"
    )  # a nullable boolean's NA compared as missing, not as a truth value
    assert provenance.frame_difference(frame.assign(k=["a", None, "c"]), frame) == (
        "k (1 of 3 rows from row 2)"
    )  # a cell missing on one side only
    seeds = pd.DataFrame({"seed": pd.array([None, 1, 2**60], dtype="Int64")})
    assert provenance.frame_difference(seeds, seeds.copy()) == (
        "equal values, stored otherwise (the data hash reads the bytes)"
    )  # both missing is alike (a fit without a seed was called different in its seed column)
    assert provenance.frame_difference(seeds, seeds.assign(seed=pd.array([0, 1, 2**60 + 1]))) == (
        "seed (2 of 3 rows from row 1, largest |diff| 0, relative 0.0e+00, "
        "1 non-finite in one of them (NaN, inf))"
    )
    twice = pd.DataFrame([[1.0, 2.0]], columns=["a", "a"])
    assert provenance.frame_difference(twice, twice + [0.0, 1.0]) == (
        "a (1 of 1 rows from row 1, largest |diff| 1, relative 3.3e-01)"
    )
    assert provenance.frame_difference(frame, frame.assign(n=[1.0, 2.0, 3.0])) == (
        "n (int64 -> float64)"
    )
    assert (
        provenance.frame_difference(frame, frame.iloc[:2]) == "3 rows in the reference, 2 rebuilt"
    )
    assert provenance.frame_difference(frame, frame.drop(columns="n").assign(m=1)) == (
        "columns only in the reference ['n'], only rebuilt ['m']"
    )
    assert provenance.frame_difference(frame, frame[["n", "k", "x"]]) == (
        "the same columns in another order"
    )
    wide = pd.DataFrame({f"c{i}": [0.0] for i in range(5)})
    assert provenance.frame_difference(wide, wide + 1.0, shown=2).endswith(" and 3 more columns")


def test_stray_temporaries_are_found_and_not_listed_as_outputs(tmp_path):
    ref = make_tree(tmp_path / "ref")
    stray = ref / "results/hip/fits/.ls.parquet.abc123.tmp"
    stray.write_bytes(b"half")
    assert provenance.stray_temporaries(ref) == ["results/hip/fits/.ls.parquet.abc123.tmp"]
    assert "results/hip/fits/.ls.parquet.abc123.tmp" not in provenance.list_outputs(ref)
    assert not provenance.is_temporary("results/hip/notes.tmp")  # not a dot-named leftover


def test_collect_keeps_hashes_drops_bulk_and_timings(tmp_path):
    a = make_tree(tmp_path / "a")
    b = make_tree(tmp_path / "b", time_ms=5.0)
    files = provenance.list_outputs(a)
    rec_a = provenance.collect(a, files, "abc123")
    rec_b = provenance.collect(b, files, "abc123")
    assert rec_a["git_commit"] == "abc123"
    assert set(rec_a["versions"]) >= {"paramid", "numpy", "snakemake"}
    fit = rec_a["outputs"]["results/hip/fits/ls.parquet"]
    assert fit["data_hash"] == io.data_hash(a / "results/hip/fits/ls.parquet")
    meta = fit["metadata"]
    assert {"config_hash", "inputs", "versions", "git_commit", "stage"} <= set(meta)
    assert "config" not in meta and "time_ms_per_run_repeats" not in meta
    assert rec_a["outputs"]["results/hip/figures/fig3c.png"]["hash"] is None
    # same data, other timings: the same record, byte for byte
    assert io.canonical_json(rec_a) == io.canonical_json(rec_b)


def test_verify_reference_files_skip_provenance_and_other_studies(tmp_path, repo_root):
    ref = make_tree(tmp_path / "ref")
    (ref / "results/other").mkdir()
    (ref / "results/other/x.csv").write_text("a\n1\n")
    (ref / "results/provenance.json").write_text("{}")
    assert cli.reference_files(ref, ["hip"]) == provenance.list_outputs(ref, "results/hip")
    everything = cli.reference_files(ref, [])
    assert "results/other/x.csv" in everything and "results/provenance.json" not in everything


def test_verify_copies_the_checkout_without_outputs(tmp_path, repo_root):
    src = make_tree(tmp_path / "src")
    (src / "Snakefile").write_text("rule all:\n")
    (src / ".snakemake").mkdir()
    (src / ".snakemake/state").write_text("x")
    cli.copy_checkout(src, tmp_path / "dest")
    assert (tmp_path / "dest/Snakefile").is_file()
    assert not (tmp_path / "dest/results").exists() and not (tmp_path / "dest/.snakemake").exists()


# --- end to end: a small part of the hip DAG, verified, then tampered with --------------------

SMALL_TARGETS = ["results/hip/fits/ls.parquet", "results/hip/fits/bcls.parquet"]


@pytest.mark.slow
def test_verify_passes_on_a_fresh_build_and_names_a_tampered_output(tmp_path, repo_root):
    from test_workflow import copy_workflow, snakemake

    work = copy_workflow(repo_root, tmp_path / "wf")
    built = snakemake(work, "--cores", "2", *SMALL_TARGETS)
    assert built.returncode == 0, built.stderr[-3000:]
    files = provenance.list_outputs(work)
    assert "results/hip/rls/summary.json" in files and len(files) >= 7

    def run_verify() -> subprocess.CompletedProcess:
        cmd = [sys.executable, "-m", "paramid", "verify", "--workflow", str(work)]
        return subprocess.run(
            [*cmd, "--study", "hip", "--cores", "2", "--present-only"],
            capture_output=True,
            text=True,
            timeout=600,
        )

    ok = run_verify()
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"identical: {len(files)} same, 0 different" in ok.stdout

    summary = work / "results/hip/rls/summary.json"
    data = json.loads(summary.read_text())
    data["gamma"] *= 1 + 1e-12  # one ulp-scale change in one number
    summary.write_text(json.dumps(data))
    bad = run_verify()
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "DIFFERENT  results/hip/rls/summary.json" in bad.stdout
    assert "1 different" in bad.stdout


def test_provenance_script_records_every_output_but_itself(tmp_path, repo_root, monkeypatch):
    work = make_tree(tmp_path / "wf")
    (work / "results/provenance.json").write_text("{}")  # an older record: not an output
    monkeypatch.chdir(work)
    smk = SimpleNamespace(
        output=["results/provenance.json"],
        log=["logs/provenance.log"],
        scriptdir=str(repo_root / "scripts"),
    )
    script = runpy.run_path(str(repo_root / "scripts/provenance.py"))  # defines, runs nothing
    script["main"](smk)
    first = (work / "results/provenance.json").read_bytes()
    record = json.loads(first)
    assert record["git_commit"] == io.git_commit(repo_root)
    assert sorted(record["outputs"]) == provenance.list_outputs(work, "results/hip")
    assert record["outputs"]["results/hip/fits/ls.parquet"]["data_hash"] == io.data_hash(
        work / "results/hip/fits/ls.parquet"
    )
    script["main"](smk)
    assert (work / "results/provenance.json").read_bytes() == first  # same checkout, same bytes


@pytest.mark.slow
def test_provenance_rules_wire_into_the_workflow(tmp_path, repo_root):
    """With the include and the target added (as the Snakefile will), the DAG and lint are ok."""
    from test_workflow import copy_workflow, snakemake

    work = copy_workflow(repo_root, tmp_path / "wf")
    snakefile = work / "Snakefile"
    text = snakefile.read_text()
    if "provenance.smk" not in text:  # not wired in yet
        text += '\n\ninclude: "workflow/rules/provenance.smk"\n'
    text += "\n\nrule with_provenance:\n    input:\n        rules.all.input,\n"
    snakefile.write_text(text + '        "results/provenance.json",\n')
    dry = snakemake(work, "-n", "--cores", "2", "with_provenance")
    assert dry.returncode == 0, dry.stderr[-3000:]
    text = dry.stdout + dry.stderr
    assert "rule provenance:" in text and "rule verify:" not in text  # verify is not in all
    dry = snakemake(work, "-n", "-p", "--cores", "2", "verify")
    assert dry.returncode == 0, dry.stderr[-3000:]
    assert "-m paramid verify --workflow" in dry.stdout + dry.stderr
    unlock = snakemake(work, "--unlock")  # needs no --cores (verify's threads are lazy)
    assert unlock.returncode == 0, unlock.stderr[-3000:]
    lint = snakemake(work, "--lint")
    assert "provenance.smk" not in lint.stdout + lint.stderr, lint.stdout


def test_versions_name_every_package_the_numbers_depend_on():
    """The robot fits' numbers depend on Pinocchio, cvxpy and Clarabel too (their versions were
    missing); each call returns its own dict (the lookup is made once per process)."""
    versions = io.package_versions()
    assert {"paramid", "numpy", "scipy", "pin", "cvxpy", "clarabel"} <= set(versions)
    assert versions["cvxpy"] != "not installed"
    versions["numpy"] = "edited"
    assert io.package_versions()["numpy"] != "edited"
