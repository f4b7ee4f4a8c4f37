"""Parquet with provenance metadata, atomic writes, and data hashes that ignore timings."""

from __future__ import annotations

import hashlib
import os
import pathlib
import platform
import subprocess
import sys
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from paramid import codehash, io


def test_parquet_round_trip_carries_units_and_provenance(tmp_path):
    src = tmp_path / "in.txt"
    src.write_text("input")
    frame = pd.DataFrame({"time": [0.0, 0.01], "angle": [1.0, 2.0]})
    meta = io.provenance({"cutoff_hz": 15.0}, [src])
    io.write_parquet(frame, tmp_path / "a.parquet", units={"time": "s", "angle": "rad"}, meta=meta)
    back, got = io.read_parquet(tmp_path / "a.parquet")
    pd.testing.assert_frame_equal(back, frame)
    assert got["units"] == {"time": "s", "angle": "rad"}
    # the hashes by hashlib itself: of the canonical JSON, and of the file's bytes
    assert got["config_hash"] == hashlib.sha256(b'{"cutoff_hz":15.0}').hexdigest()
    assert got["inputs"][str(src)] == hashlib.sha256(b"input").hexdigest()
    assert set(got["versions"]) >= {
        "python",
        "paramid",
        "numpy",
        "scipy",
        "pandas",
        "pyarrow",
        "snakemake",
    }
    assert got["git_commit"] == io.git_commit()


def test_a_job_cannot_write_a_parquet_file_without_provenance(tmp_path, monkeypatch):
    """Inside a job every Parquet output carries the provenance block: an excitation design's
    trajectory went out with its units alone (found by an audit of a built tree)."""
    frame = pd.DataFrame({"time": [0.0, 0.01]})
    io.write_parquet(frame, tmp_path / "a.parquet", units={"time": "s"}, meta={"study": "x"})
    monkeypatch.setattr(io, "_IN_JOB", True)
    with pytest.raises(ValueError, match=r"b\.parquet: its metadata lacks \['config_hash', "):
        io.write_parquet(frame, tmp_path / "b.parquet", units={"time": "s"}, meta={"study": "x"})
    assert not (tmp_path / "b.parquet").exists()
    meta = io.provenance({"study": "x"})
    io.write_parquet(frame, tmp_path / "b.parquet", units={"time": "s"}, meta=meta)


def test_a_file_larger_than_one_read_block_is_hashed_whole(tmp_path, monkeypatch):
    """file_sha256 reads 1 MiB blocks: a 2.5 MiB file's hash covers every block; the
    start-up's cached digest of a record (codehash.file_digest) is the same hash, read in
    blocks too (it read the whole file into memory: read_bytes now fails the test)."""
    data = np.random.default_rng(0).bytes(5 * 2**19)
    (path := tmp_path / "big.bin").write_bytes(data)
    assert io.file_sha256(path) == hashlib.sha256(data).hexdigest()

    def whole(self):
        raise AssertionError(f"{self} read whole")

    monkeypatch.setattr(pathlib.Path, "read_bytes", whole)
    assert codehash.file_digest(path) == hashlib.sha256(data).hexdigest()


def test_rewrite_is_byte_identical(tmp_path):
    frame = pd.DataFrame({"x": np.linspace(0, 1, 7)})
    for name in ("a", "b"):
        io.write_parquet(frame, tmp_path / f"{name}.parquet", units={"x": "1"}, meta={"k": 1})
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()


def test_missing_unit_is_an_error_and_nothing_is_written(tmp_path):
    with pytest.raises(ValueError, match=r"no unit declared for column\(s\) \['angle'\]"):
        io.write_parquet(
            pd.DataFrame({"time": [0.0], "angle": [1.0]}),
            tmp_path / "a.parquet",
            units={"time": "s"},
            meta={},
        )
    assert list(tmp_path.iterdir()) == []


def test_data_hash_ignores_nondeterministic_columns_only(tmp_path):
    def write(name, v, t, column="v"):
        frame = pd.DataFrame({column: [v], "time_ms": [t]})
        units = {column: "N m", "time_ms": "ms"}
        io.write_parquet(
            frame, tmp_path / name, units=units, meta={}, nondeterministic_columns=["time_ms"]
        )
        return io.data_hash(tmp_path / name)

    assert write("a.parquet", 1.0, 0.3) == write("b.parquet", 1.0, 9.9)
    assert write("c.parquet", 1.0, 0.3) != write("d.parquet", 1.0 + 1e-15, 0.3)
    assert write("e.parquet", 1.0, 0.3, column="w") != write("c.parquet", 1.0, 0.3)  # names too


def test_config_hash_is_order_independent():
    assert io.config_hash({"a": 1, "b": [1, 2]}) == io.config_hash({"b": [1, 2], "a": 1})
    assert io.config_hash({"a": 1}) != io.config_hash({"a": 2})


def test_save_figure_lays_out_once_and_the_pdf_keeps_the_png_layout(tmp_path, monkeypatch):
    import matplotlib.layout_engine as constrained

    from paramid.plotting import new_figure

    calls = []
    layout = constrained.do_constrained_layout
    monkeypatch.setattr(
        constrained, "do_constrained_layout", lambda *a, **k: calls.append(1) or layout(*a, **k)
    )

    def draw():
        fig, axes = new_figure(4.0, nrows=2, ncols=3)
        for i, ax in enumerate(axes.flat):
            ax.plot(np.arange(5.0), 10.0**i * np.arange(5.0))
            ax.set(title=f"F{i}", ylabel="error [mm]", yscale="log")
        return fig, axes

    fig, axes = draw()
    engine = fig.get_layout_engine()
    io.save_figure(fig, tmp_path / "f.png", tmp_path / "f.pdf")
    assert len(calls) == 1
    assert fig.get_layout_engine() is engine  # restored for a later save
    saved = np.array([ax.get_position().bounds for ax in axes.flat])
    # the PDF's own layout would differ from the PNG's by less than a point
    fresh, fresh_axes = draw()
    fresh.savefig(tmp_path / "g.pdf")
    own = np.array([ax.get_position().bounds for ax in fresh_axes.flat])
    assert np.abs(saved - own).max() * 72 * fig.get_figwidth() < 1.0
    first = (tmp_path / "f.pdf").read_bytes()
    again, _ = draw()
    io.save_figure(again, tmp_path / "f.png", tmp_path / "f.pdf")
    assert (tmp_path / "f.pdf").read_bytes() == first


_CHURN = """
import resource, sys
import numpy as np
from paramid import io
if sys.argv[1] == "pin":
    assert io.pin_malloc_thresholds()
elif sys.argv[1] == "job":  # every job's set-up pins them
    io.start_log(sys.argv[2], "churn")
def churn():  # what an iterative job does: the same medium-sized temporaries, written, freed
    arrays = [np.ones(2**17) for _ in range(40)]  # 40 x 1 MiB
    del arrays
churn()
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(10):
    churn()
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt thresholds are glibc's")
def test_pinned_malloc_thresholds_stop_the_heap_from_being_faulted_in_again_every_iteration(
    tmp_path,
):
    # the allocator as glibc sets it up by default (no tunables inherited from the machine)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("MALLOC_", "GLIBC_TUNABLES", "PYTHONMALLOC"))
    }

    def page_faults(mode: str) -> int:
        command = [sys.executable, "-c", _CHURN, mode, str(tmp_path / "job.log")]
        out = subprocess.run(
            command, capture_output=True, text=True, check=True, timeout=300, env=env
        )
        return int(out.stdout)

    # glibc's defaults hand the 40 MiB back to the kernel after each iteration: 10 iterations
    # fault in about 10 x 40 MiB / 4 KiB pages again (fewer where transparent huge pages back
    # them: a ratio, not a count); pinned, the freed heap is reused
    pinned = max(page_faults("pin"), page_faults("job"), 1)
    assert pinned < 1_000
    assert page_faults("default") > 20 * pinned


def test_json_holds_no_infinity_or_nan_tokens(tmp_path):
    """A URDF without a velocity limit put ``Infinity`` into design.json, which strict JSON
    parsers refuse; non-finite values are written null, everything else as before."""
    import json

    path = tmp_path / "d.json"
    values = {"qd_max": np.array([1.5, np.inf]), "p": np.float64("nan"), "n": [1, -np.inf, 2.5]}
    io.write_json(values | {"nested": {"x": (0.5, float("inf"))}}, path)
    text = path.read_text()
    assert "Infinity" not in text and "NaN" not in text
    strict = json.loads(text, parse_constant=lambda token: pytest.fail(f"token {token}"))
    assert strict == {
        "qd_max": [1.5, None],
        "p": None,
        "n": [1, None, 2.5],
        "nested": {"x": [0.5, None]},
    }


def test_a_jobs_outputs_name_the_library_code_it_ran(monkeypatch):
    """In a job, provenance carries the rule's params.code (the hash of the library code the
    script runs), so an output says which code made it beyond a commit that may be dirty."""
    monkeypatch.setattr(io, "_JOB", {})
    assert "code_version" not in io.provenance({})  # outside a job: nothing to name
    io.remember_code_version(SimpleNamespace(params=SimpleNamespace(code="0123abcd")))
    assert io.provenance({})["code_version"] == "0123abcd"
    io.remember_code_version(SimpleNamespace(params=SimpleNamespace()))  # a rule without one
    assert io.provenance({})["code_version"] == "0123abcd"


def test_a_failed_parquet_write_leaves_the_old_file_whole_and_no_temporary(tmp_path, monkeypatch):
    import pyarrow.parquet as pq

    target = tmp_path / "a.parquet"
    io.write_parquet(pd.DataFrame({"x": [1.0]}), target, units={"x": "1"}, meta={})
    before = target.read_bytes()

    def half_written(table, where, **kwargs):
        with open(where, "wb") as handle:
            handle.write(b"PAR1 half")
        raise OSError("disk full")

    monkeypatch.setattr(pq, "write_table", half_written)
    with pytest.raises(OSError, match="disk full"):
        io.write_parquet(pd.DataFrame({"x": [2.0]}), target, units={"x": "1"}, meta={})
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["a.parquet"]


def test_a_failed_json_write_leaves_nothing_behind(tmp_path):
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        io.write_json({"x": object()}, tmp_path / "d.json")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_text_write_keeps_the_old_file(tmp_path):
    target = tmp_path / "t.md"
    io.write_text("old\n", target)
    with pytest.raises(UnicodeEncodeError):
        io.write_text("new \ud800\n", target)  # a lone surrogate: not encodable, mid-write
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["t.md"]


def test_text_is_written_in_utf8_whatever_the_locale(tmp_path):
    """An exported URDF's notes hold "·" and its declaration says UTF-8: under the C locale
    (ASCII) the write failed with UnicodeEncodeError; it is UTF-8 now."""
    import os
    import subprocess
    import sys

    target = tmp_path / "t.urdf"
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0"}
    code = f"from paramid import io; io.write_text('m\\u00b7c_x', {str(target)!r})"  # ASCII argv
    subprocess.run([sys.executable, "-c", code], env=env, check=True, timeout=120)
    assert target.read_bytes() == "m\u00b7c_x".encode()


def test_markdown_prints_negative_numbers_like_positive_ones():
    table = io.markdown_table(pd.DataFrame({"v": [-0.5, 0.5, -2.5e-5]}), digits=4)
    assert "| -0.5000 |" in table and "| 0.5000 |" in table and "| -2.500e-05 |" in table


def test_a_regression_table_missing_a_regressor_column_is_named_with_its_file(tmp_path):
    path = tmp_path / "reg.parquet"
    frame = pd.DataFrame({"H_a": [1.0, 2.0], "torque": [0.5, 1.0]})
    io.write_parquet(frame, path, units={"H_a": "1", "torque": "N m"}, meta={})
    H, y, _ = io.read_regression(path, ["a"])
    assert H.shape == (2, 1) and list(y) == [0.5, 1.0]
    with pytest.raises(ValueError, match=r"reg\.parquet: missing regressor column\(s\) \['H_b'\]"):
        io.read_regression(path, ["a", "b"])


def test_a_frame_made_otherwise_names_its_rows_below_a_header_on_line_one():
    from paramid.ingest import data_row

    assert io.FileLines().line_of(0) == 2
    assert io.FileLines(header_line=3).line_of(4) == 8
    assert data_row(0) == "data row 1 (file line 2)"


def test_a_numeric_header_points_to_the_nearest_line_of_names_above_it(tmp_path):
    from paramid.errors import InputError

    path = tmp_path / "r.csv"
    path.write_text("logger,x,y\ntime,angle,torque\n0,1,2\n3,4,5\n")
    with pytest.raises(InputError, match=r"line 3, read as the header .* set header_line: 2 "):
        io.read_table(path, io.CsvFormat(header_line=3))


def test_a_urdf_byte_order_mark_is_dropped(tmp_path):
    path = tmp_path / "marked.urdf"
    path.write_bytes(b"\xef\xbb\xbf<?xml version='1.0'?><robot name='r'/>")
    assert io.read_urdf(path) == "<?xml version='1.0'?><robot name='r'/>"


def test_a_csv_keeps_ten_significant_digits(tmp_path):
    frame = pd.DataFrame({"x": [0.1234567891, -98765.43211, 1.5e-12]})
    io.write_csv(frame, tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_text() == "x\n0.1234567891\n-98765.43211\n1.5e-12\n"


def test_the_configured_style_sizes_every_figure():
    """config ``figures`` (width_in, font_size) through FigureStyle.from_config: a figure drawn
    inside ``styled`` is that wide and as tall as asked, in that font."""
    import matplotlib as mpl

    from paramid.plotting import FigureStyle, new_figure, styled

    style = FigureStyle.from_config({"width_in": 5.0, "font_size": 11.0, "dpi": 50})
    with styled(style):
        fig, _ = new_figure(2.5)
        assert mpl.rcParams["font.size"] == 11.0
    np.testing.assert_allclose(fig.get_size_inches(), [5.0, 2.5])


def test_an_outside_legend_sits_right_of_the_data():
    from paramid.plotting import FigureStyle, legend_outside, new_figure, styled

    with styled(FigureStyle()):
        fig, ax = new_figure(3.0)
        ax.plot([0, 1], [0, 1], label="a curve")
        legend_outside(ax)
        fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    assert legend.x0 >= ax.get_window_extent().x1


def test_log_ticks_label_the_asked_axis_in_plain_numbers():
    """Within two decades the y ticks read 1, 1.5, 2, 3, 5, ... (not only 10^0, 10^1)."""
    from paramid.plotting import FigureStyle, log_ticks, new_figure, styled

    with styled(FigureStyle()):
        fig, ax = new_figure(3.0)
        ax.plot([1, 2, 3], [1.0, 7.0, 40.0])
        ax.set_yscale("log")
        log_ticks(ax)
        fig.canvas.draw()
    labels = {t.get_text() for t in ax.get_yticklabels()}
    assert {"2", "5", "20"} <= labels


def _shown_tick_labels(ax):
    """The y tick labels drawn inside the view, with their extents (after a draw)."""
    low, high = ax.get_ylim()
    return [t for t in ax.get_yticklabels() if t.get_text() and low <= t.get_position()[1] <= high]


@pytest.mark.parametrize(
    "span", [(50.0, 3000.0), (200.0, 5000.0), (1e3, 1e9), (0.55, 4.0), (0.04, 0.046)]
)
def test_log_ticks_never_touch_and_are_written_one_way(span):
    """Short panels of a 4 x 3 grid (the CEC convergence figure): the labels of neighbouring
    ticks keep apart (2e+03, 1.5e+03, 1e+03 touched), every label of an axis is written one
    way (plain numbers or powers of ten, never 1e+03 beside 10³), and two or more label it."""
    from paramid.plotting import FigureStyle, log_ticks, new_figure, styled

    with styled(FigureStyle()):
        fig, axes = new_figure(5.0, nrows=3, ncols=4)
        ax = axes[0, 1]
        ax.plot([0, 1], span)
        ax.set_yscale("log")
        log_ticks(ax)
        fig.canvas.draw()
    shown = _shown_tick_labels(ax)
    assert len(shown) >= 2
    boxes = sorted((t.get_window_extent() for t in shown), key=lambda b: b.y0)
    for lower, upper in zip(boxes, boxes[1:], strict=False):
        assert lower.y1 <= upper.y0, "neighbouring tick labels overlap"
    texts = [t.get_text() for t in shown]
    assert not any("e+" in t or "e-" in t for t in texts)
    assert len({"$" in t for t in texts}) == 1, texts


def test_curves_drawn_on_one_another_are_said_to_be():
    """The pendulum's Figure 3b drew BCLS and RLS-GWO under RLS-AGWO (residuals within 0.002
    N m of each other on a ±20 N m axis), their legend entries naming lines no one could see."""
    from paramid.hip import figures
    from paramid.plotting import coincident_note

    t = np.arange(0.0, 4.0, 0.002)
    r = np.random.default_rng(0).normal(size=t.size)
    close = {"BCLS": r, "RLS-GWO": r + 1e-3, "RLS-AGWO": r - 1e-3}
    note = coincident_note(close, "N m")
    assert note == "all 3 curves within 0.002 N m RMS of each other, drawn as one"
    assert coincident_note({"BCLS": r, "PSO": 1.5 * r}, "N m") == ""
    assert coincident_note({"BCLS": r}, "N m") == ""
    legend = figures.residuals(t, close).axes[0].get_legend()
    assert legend.get_title().get_text() == note
    assert (
        figures.residuals(t, {"BCLS": r, "PSO": 1.5 * r})
        .axes[0]
        .get_legend()
        .get_title()
        .get_text()
        == ""
    )


def test_every_writer_of_the_workflow_start_leaves_no_temporary_when_it_fails(
    tmp_path, monkeypatch
):
    """The settings files, the validated-config stamp and the code-hash store go through the
    one atomic writer: a write whose rename fails (a full disk, a quota) leaves neither the
    file nor a temporary beside it (each left its temporary behind, the settings writer in the
    folder Snakemake lists), and the store's failure stays silent (it is a cache)."""
    import os
    import shutil

    from paramid import workflow

    root = pathlib.Path(__file__).resolve().parents[1]
    schema = shutil.copy(root / "workflow" / "schemas" / "config.schema.yaml", tmp_path / "s")
    config = io.read_yaml(root / "config.yaml")
    monkeypatch.chdir(tmp_path)

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", disk_full)
    settings = workflow.SettingsFile("hip_fit", {"code": "248a7472f5514e64"})
    with pytest.raises(OSError, match="disk full"):
        settings(SimpleNamespace())
    with pytest.raises(OSError, match="disk full"):
        workflow.validated(config, schema)
    monkeypatch.setattr(codehash._Store, "path", tmp_path / ".snakemake" / "imports.json")
    monkeypatch.setattr(codehash._Store, "dirty", True)
    codehash._save()
    assert [p.name for p in tmp_path.rglob("*") if p.is_file()] == ["s"]


def test_an_atomic_file_closes_its_descriptor_when_its_mode_cannot_be_set(tmp_path, monkeypatch):
    """fchmod fails with EPERM on some CIFS and FUSE mounts: the temporary's descriptor leaked
    with each failed write."""
    import os

    def refused(fd, mode):
        raise PermissionError("EPERM")

    monkeypatch.setattr(os, "fchmod", refused)
    before = len(os.listdir("/proc/self/fd"))
    for _ in range(5):
        with pytest.raises(PermissionError), io.atomic_file(tmp_path / "r.csv"):
            pass
    assert len(os.listdir("/proc/self/fd")) == before
    assert list(tmp_path.iterdir()) == []
