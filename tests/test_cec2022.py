"""Tests for the CEC 2022 suite (paramid.cec2022.suite, basic, kernels, data) against the
organisers' reference values.

``tests/data/cec2022_official_test_vectors.csv`` holds 504 points (12 functions x D in {10, 20} x
21 points: the optimum, 8 points at distances 1e-3..10 from it, 12 uniform points in
[-100, 100]^D) with the values returned by the organisers' ``cec22_test_func.cpp``.
"""

from __future__ import annotations

import csv
import hashlib
import math
import threading
from functools import cache
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paramid.cec2022.basic import katsuura, schwefel
from paramid.cec2022.data import load_data
from paramid.cec2022.kernels import (
    fast_cos,
    fast_sin,
    prod_over_coords,
    sum_over_coords,
    thread_arena,
)
from paramid.cec2022.suite import BIASES, CEC2022
from paramid.config import ConfigError
from paramid.plotting import SERIES

VECTORS = Path(__file__).parent / "data" / "cec2022_official_test_vectors.csv"
CASES = [(f, d) for f in range(1, 13) for d in (10, 20)]
CASE_IDS = [f"F{f}-D{d}" for f, d in CASES]
REL_TOL = 1e-12  # the suite agrees to < 2e-14 (suite.py); 1e-9 let a dropped Katsuura term pass


@cache
def _vectors() -> dict[tuple[int, int], tuple[np.ndarray, np.ndarray]]:
    rows: dict[tuple[int, int], list[tuple[list[float], float]]] = {}
    with VECTORS.open(newline="") as fh:
        for rec in csv.DictReader(fh):
            f, d = int(rec["function"]), int(rec["dim"])
            x = [float(rec[f"x{i}"]) for i in range(d)]
            rows.setdefault((f, d), []).append((x, float(rec["f"])))
    return {
        key: (np.array([x for x, _ in v]), np.array([fv for _, fv in v])) for key, v in rows.items()
    }


def _points(dim: int, n: int, seed: int) -> np.ndarray:
    """Uniform points in the box plus some far outside it (optimisers probe there too)."""
    rng = np.random.default_rng(seed)
    X = rng.uniform(-100.0, 100.0, size=(n, dim))
    X[: n // 4] *= 3.0
    return X


# -- reference values ----------------------------------------------------------------------


def test_vector_file_complete() -> None:
    vec = _vectors()
    assert sorted(vec) == sorted(CASES)
    assert sum(len(v[1]) for v in vec.values()) == 504


@pytest.mark.parametrize(("function", "dim"), CASES, ids=CASE_IDS)
def test_official_vectors(function: int, dim: int) -> None:
    X, expected = _vectors()[(function, dim)]
    got = CEC2022(function, dim)(X)
    assert got.shape == expected.shape
    rel = np.abs(got - expected) / np.abs(expected)
    assert rel.max() < REL_TOL, f"max rel err {rel.max():.3e} at row {rel.argmax()}"


@pytest.mark.parametrize(("function", "dim"), CASES, ids=CASE_IDS)
def test_optimum(function: int, dim: int) -> None:
    f = CEC2022(function, dim)
    assert f.optimum_value == BIASES[function]
    x_star = f.optimum_x
    assert x_star.shape == (dim,)
    np.testing.assert_array_equal(x_star, _vectors()[(function, dim)][0][0])
    assert float(f(x_star)) == f.optimum_value
    # no official or random point beats the optimum
    X = np.concatenate([_vectors()[(function, dim)][0], _points(dim, 200, function)])
    assert np.all(f(X) >= f.optimum_value)


# -- batch handling ------------------------------------------------------------------------


@pytest.mark.parametrize(("function", "dim"), CASES, ids=CASE_IDS)
def test_batch_shapes_match_pointwise(function: int, dim: int) -> None:
    f = CEC2022(function, dim)
    X = _points(dim, 12, function).reshape(3, 4, dim)
    X[0, 0] = f.optimum_x  # composition weight special case (d = 0) inside a batch
    per_point = np.array([[float(f(X[r, n])) for n in range(4)] for r in range(3)])
    single = f(X[1, 2])
    assert isinstance(single, np.ndarray) and single.shape == ()
    out3 = f(X)
    assert out3.shape == (3, 4) and out3.dtype == np.float64
    out2 = f(X.reshape(12, dim))
    assert out2.shape == (12,)
    np.testing.assert_array_equal(out3, per_point)
    np.testing.assert_array_equal(out2, per_point.reshape(12))
    np.testing.assert_array_equal(f(X.tolist()), per_point)  # nested lists accepted
    np.testing.assert_array_equal(f(np.asfortranarray(X)), per_point)  # any memory layout
    assert f(np.empty((0, dim))).shape == (0,)
    assert f(np.empty((2, 0, dim))).shape == (2, 0)


@pytest.mark.parametrize("function", range(1, 13))
def test_value_independent_of_batch_size(function: int) -> None:
    """Bitwise: a point's value does not depend on the batch (size, position, chunking)."""
    dim = 20
    f = CEC2022(function, dim)
    X = _points(dim, 5000, 100 + function)  # > one internal chunk of 4096 points
    full = f(X)
    for n in [1, 2, 3, 5, 7, 8, 9, 13, 16, 17, 100]:
        for start in (0, 3, 4090):
            np.testing.assert_array_equal(f(X[start : start + n]), full[start : start + n])


def test_input_not_modified_and_integer_input() -> None:
    f = CEC2022(12, 20)
    X = _points(20, 5, 0)
    X0 = X.copy()
    f(X)
    np.testing.assert_array_equal(X, X0)
    Xi = np.round(X).astype(np.int64)
    np.testing.assert_array_equal(f(Xi), f(Xi.astype(np.float64)))


def test_threads_agree_with_serial() -> None:
    funcs = [CEC2022(i, 20) for i in (3, 7, 8, 11, 12)]
    X = _points(20, 700, 7)
    serial = [f(X) for f in funcs]
    results: dict[int, list[np.ndarray]] = {}

    def work(t: int) -> None:
        results[t] = [f(X) for f in funcs for _ in range(3)][::3]

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    for t in range(4):
        for a, b in zip(results[t], serial, strict=True):
            np.testing.assert_array_equal(a, b)


# -- errors and metadata -------------------------------------------------------------------


@pytest.mark.parametrize("function", [0, 13, -1, 1.0, "1", True, None])
def test_bad_function(function: object) -> None:
    with pytest.raises(ValueError, match="function"):
        CEC2022(function, 10)  # type: ignore[arg-type]


@pytest.mark.parametrize("dim", [2, 5, 30, 0, 10.0, "10"])
def test_bad_dim(dim: object) -> None:
    with pytest.raises(ValueError, match="D in|dimension"):
        CEC2022(1, dim)  # type: ignore[arg-type]


def test_wrong_point_length() -> None:
    f = CEC2022(1, 10)
    with pytest.raises(ValueError, match="last axis of length 10"):
        f(np.zeros((4, 20)))
    with pytest.raises(ValueError, match="last axis"):
        f(3.0)
    with pytest.raises(ValueError, match="last axis"):
        f(np.zeros((10, 3)))


def test_numpy_integer_arguments() -> None:
    f = CEC2022(np.int64(5), np.int32(20))
    assert (f.function, f.dim) == (5, 20)
    assert type(f.function) is int and type(f.dim) is int


def test_bounds_and_metadata() -> None:
    f = CEC2022(7, 20)
    assert f.bounds.shape == (20, 2)
    np.testing.assert_array_equal(f.bounds[:, 0], -100.0)
    np.testing.assert_array_equal(f.bounds[:, 1], 100.0)
    np.testing.assert_array_equal(f.lower, -100.0)
    np.testing.assert_array_equal(f.upper, 100.0)
    assert not f.bounds.flags.writeable
    assert f.optimum_value == 2000.0
    assert "Hybrid" in f.name
    assert repr(f) == "CEC2022(function=7, dim=20)"
    x = f.optimum_x  # a copy: mutating it must not change the function
    x[:] = 0.0
    assert float(f(f.optimum_x)) == 2000.0
    assert np.all(np.abs(f.optimum_x) <= 80.0)
    assert [BIASES[i] for i in range(1, 13)] == [
        300,
        400,
        600,
        800,
        900,
        1800,
        2000,
        2200,
        2300,
        2400,
        2600,
        2700,
    ]


# -- packaged data -------------------------------------------------------------------------


def test_packaged_data_checksums() -> None:
    root = resources.files("paramid.cec2022").joinpath("data", "cec2022")
    lines = root.joinpath("SHA256SUMS").read_text().splitlines()
    assert len(lines) == 42
    for line in lines:
        digest, name = line.split()
        assert hashlib.sha256(root.joinpath(name).read_bytes()).hexdigest() == digest, name
    assert root.joinpath("SOURCE.md").is_file()


@pytest.mark.parametrize(("function", "dim"), CASES, ids=CASE_IDS)
def test_data_shapes(function: int, dim: int) -> None:
    data = load_data(function, dim)
    k = {9: 5, 10: 3, 11: 5, 12: 6}.get(function, 1)
    assert data.shifts.shape == (k, dim)
    assert data.rotations.shape == (k, dim, dim)
    assert np.all(np.abs(data.shifts) <= 100.0)
    assert (data.shuffle is not None) == (6 <= function <= 8)
    if data.shuffle is not None:
        assert sorted(data.shuffle.tolist()) == list(range(dim))
    assert not data.shifts.flags.writeable and not data.rotations.flags.writeable


# -- numerical kernels ---------------------------------------------------------------------


def test_sin_cos_kernel_accuracy() -> None:
    ar = thread_arena()
    rng = np.random.default_rng(3)
    parts = [rng.uniform(-s, s, 20000) for s in (1e-8, 1.0, 4.0, 30.0, 1e3, 9e5, 5e6)]
    parts.append(np.arange(-5000, 5000) * (np.pi / 2))  # near zeros of sin / cos
    x = np.concatenate(parts + [np.array([0.0, -0.0, np.inf, -np.inf, np.nan])])
    base = ar.top
    try:
        with np.errstate(invalid="ignore"):
            s = fast_sin(x, ar).copy()
            c = fast_cos(x, ar).copy()
            s_ref, c_ref = np.sin(x), np.cos(x)
    finally:
        ar.top = base
    finite = np.isfinite(x)
    assert np.max(np.abs(s - s_ref)[finite]) <= 4e-16
    assert np.max(np.abs(c - c_ref)[finite]) <= 4e-16
    assert np.all(np.isnan(s[~finite])) and np.all(np.isnan(c[~finite]))


@pytest.mark.parametrize("columns", [3, 8, 13, 4096])
def test_coordinate_sums_and_products_add_rows_in_order(columns: int) -> None:
    """The coordinate sum and product of (n, N) equal the C code's row-by-row accumulation
    bit for bit (signed zeros, huge and tiny terms: an order that pairs terms differently
    would round differently), in one reduce call on the suite's layout, in the row loop on
    a transposed view."""
    rng = np.random.default_rng(11)
    a = rng.standard_normal((20, columns)) * 10.0 ** rng.integers(-12, 12, (20, columns))
    a[:, 0] = -0.0  # -0.0 + ... + -0.0 is -0.0, a sum from +0.0 would give +0.0
    a[:5, 1 % columns] = [1e16, 1.0, -1e16, 1.0, 1.0]
    ar = thread_arena()
    base = ar.top
    try:
        for layout in (a, np.asfortranarray(a)):
            sums = sum_over_coords(layout, ar).copy()
            products = prod_over_coords(layout, ar).copy()
            expected_sum, expected_product = a[0].copy(), a[0].copy()
            for row in a[1:]:
                expected_sum += row
                expected_product *= row
            np.testing.assert_array_equal(sums.view(np.uint64), expected_sum.view(np.uint64))
            np.testing.assert_array_equal(
                products.view(np.uint64), expected_product.view(np.uint64)
            )
    finally:
        ar.top = base


def _schwefel_reference(z: np.ndarray) -> np.ndarray:
    """Straight transcription of schwefel_func (C) for rows of z (N, n), scalar branches."""
    n = z.shape[1]
    out = np.empty(z.shape[0])
    for p, row in enumerate(z):
        f = 0.0
        for v in row + 4.209687462275036e002:
            if v > 500:
                m = np.fmod(v, 500.0)
                f -= (500.0 - m) * np.sin(np.sqrt(500.0 - m))
                f += ((v - 500.0) / 100) ** 2 / n
            elif v < -500:
                m = np.fmod(abs(v), 500.0)
                f -= (-500.0 + m) * np.sin(np.sqrt(500.0 - m))
                f += ((v + 500.0) / 100) ** 2 / n
            else:
                f -= v * np.sin(np.sqrt(abs(v)))
        out[p] = f + 4.189828872724338e002 * n
    return out


def _on_arena(basic, z: np.ndarray) -> np.ndarray:
    """A basic function's values at the points z (points, dim), on this thread's arena (its
    scratch released after)."""
    ar = thread_arena()
    base = ar.top
    try:
        return basic(np.ascontiguousarray(z.T), ar).copy()
    finally:
        ar.top = base


def test_schwefel_branches() -> None:
    rng = np.random.default_rng(5)
    z = rng.uniform(-3000.0, 3000.0, size=(64, 10))
    u0 = 4.209687462275036e002
    edges = np.array([500.0, -500.0, 1000.0, -1000.0, 1500.0, 2000.0, -2500.0]) - u0
    z[0, : edges.size] = edges
    z[1, : edges.size] = np.nextafter(edges + u0, np.inf) - u0
    z[2, : edges.size] = np.nextafter(edges + u0, -np.inf) - u0
    got = _on_arena(schwefel, z)
    np.testing.assert_allclose(got, _schwefel_reference(z), rtol=1e-12, atol=1e-9)


# -- transcriptions of the C code ----------------------------------------------------------


def _katsuura_c(z):
    """katsuura_func of cec22_test_func.cpp, scalar, for one point z (n,)."""
    n = z.size
    f, tmp3 = 1.0, math.pow(1.0 * n, 1.2)
    for i in range(n):
        temp = 0.0
        for j in range(1, 33):
            tmp1 = math.pow(2.0, j)
            tmp2 = tmp1 * z[i]
            temp += abs(tmp2 - math.floor(tmp2 + 0.5)) / tmp1
        f *= math.pow(1.0 + (i + 1) * temp, 10.0 / tmp3)
    tmp1 = 10.0 / n / n
    return f * tmp1 - tmp1


def test_katsuura_matches_the_c_code_to_rounding():
    z = np.random.default_rng(2).uniform(-5.0, 5.0, size=(16, 10))
    got = _on_arena(katsuura, z)
    np.testing.assert_allclose(got, [_katsuura_c(p) for p in z], rtol=1e-13)


@pytest.mark.parametrize("function", [9, 10, 11, 12])
def test_composition_far_from_every_optimum_is_the_plain_mean(function):
    # all weights exp(-d^2 / (2 D sigma^2)) underflow: the C code falls back to equal weights
    f = CEC2022(function, 10)
    value = f(np.full(10, 1.0e5))
    assert np.isfinite(value) and value > f.optimum_value


def _ranks(algorithms, functions=(1, 2, 3)):
    """A ranks table as cec2022_tables writes it: ours ascending by place, the paper's reversed."""
    rows = []
    for f in functions:
        for k, a in enumerate(algorithms):
            row = {"function": f, "algorithm": a}
            for ind in ("ave", "std", "time_s", "best"):
                row[f"rank_{ind}"] = float(k + 1)
                row[f"paper_rank_{ind}"] = float(len(algorithms) - k)
            rows.append(row)
    return pd.DataFrame(rows)


def test_the_rank_maps_label_each_column_with_its_algorithms_ranks():
    """Columns in the registry's order (WOA ... PO) and each column's cells that algorithm's
    ranks; paper=True draws the paper's ranks, not ours."""
    from paramid.cec2022 import figures

    ranks = _ranks(["PO", "MIPO", "HO", "WOA"])  # not the registry's order
    fig = figures.rank_figure(ranks, 10)
    heat = [ax for ax in fig.axes if ax.images]
    assert len(heat) == 4
    ax = heat[0]
    names = [t.get_text() for t in ax.get_xticklabels()]
    assert names == ["WOA", "HO", "MIPO", "PO"]
    ours = {"PO": 1.0, "MIPO": 2.0, "HO": 3.0, "WOA": 4.0}
    grid = np.asarray(ax.images[0].get_array())
    np.testing.assert_array_equal(grid[0], [ours[n] for n in names])
    paper = figures.rank_figure(ranks, 10, paper=True)
    grid = np.asarray([ax for ax in paper.axes if ax.images][0].images[0].get_array())
    np.testing.assert_array_equal(grid[0], [5.0 - ours[n] for n in names])
    assert "paper's Tables 3-4" in paper.get_suptitle()


def _histories(functions, algorithms=("WOA", "MIPO"), runs=4, steps=200, seed=0):
    """Run-major histories (run, evaluations, best_f) as paramid.cec2022.runs writes them; the
    first evaluation's error 1e6, then errors around 1-10 (per run, decreasing)."""
    rng = np.random.default_rng(seed)
    out = {}
    for f in functions:
        for a in algorithms:
            err = np.sort(rng.uniform(1.0, 10.0, (runs, steps)), axis=1)[:, ::-1]
            err[:, 0] = 1e6
            out[(f, a)] = pd.DataFrame(
                {
                    "run": np.repeat(np.arange(runs), steps),
                    "evaluations": np.tile(100 * np.arange(1, steps + 1), runs),
                    "best_f": (err + BIASES[f]).ravel(),
                }
            )
    return out, err


def test_the_convergence_panels_draw_the_median_error_and_leave_out_the_first_evaluations():
    """Each line is the median over runs of f - f*; the y range is that of the bands after
    the first 2 % of the budget (the first population's 1e6 flattened the final medians)."""
    from paramid.cec2022 import figures

    histories, _ = _histories([1])
    fig = figures.convergence_figure(histories, 10)
    ax = fig.axes[0]
    frame = histories[(1, "WOA")]
    error = (frame["best_f"].to_numpy() - BIASES[1]).reshape(4, -1)
    woa = next(line for line in ax.lines if line.get_label() == "WOA")
    np.testing.assert_allclose(woa.get_ydata(), np.median(error, axis=0))
    np.testing.assert_array_equal(woa.get_xdata(), 100 * np.arange(1, 201))
    low, high = ax.get_ylim()
    assert ax.get_yscale() == "log"
    assert 0.5 < low < 1.0 and 10.0 < high < 100.0  # the later errors (1-10) fill the panel


def test_the_convergence_range_leaves_out_a_first_population_at_two_percent():
    """With 50 iterations the first population's evaluations are 2 % of the budget: left out
    of the y range with the rest of the first 2 % (its 1e6 set the top)."""
    from paramid.cec2022 import figures

    histories, _ = _histories([1], steps=50)
    assert histories[(1, "WOA")]["evaluations"].iloc[0] == 0.02 * 100 * 50
    high = figures.convergence_figure(histories, 10).axes[0].get_ylim()[1]
    assert 10.0 < high < 100.0


def test_the_convergence_figure_draws_a_panel_for_every_function():
    """Five functions: two rows of four, F1-F5 drawn and the three spare panels hidden."""
    from paramid.cec2022 import figures

    histories, _ = _histories([1, 2, 3, 4, 5], algorithms=("WOA",), steps=10)
    fig = figures.convergence_figure(histories, 10)
    shown = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in shown] == ["F1", "F2", "F3", "F4", "F5"]
    assert all(ax.lines for ax in shown)


def test_the_convergence_figure_draws_an_eleventh_registered_algorithm(monkeypatch):
    """Colours beyond matplotlib's ten (a user's 8th-11th algorithm): each line its own colour
    from plotting.series_colours, none grey; the shipped seven keep tab10's first seven."""
    from paramid.cec2022 import figures

    names = (*figures.ALGORITHMS, "DE", "A9", "A10", "A11")
    monkeypatch.setattr(figures, "ALGORITHMS", {name: name.lower() for name in names})
    histories, _ = _histories([1], algorithms=names, steps=10)
    fig = figures.convergence_figure(histories, 10)
    colours = {line.get_label(): line.get_color() for line in fig.axes[0].lines}
    assert set(names) <= set(colours) and len(set(colours.values())) == len(names)
    assert "#7f7f7f" not in colours.values()
    assert [colours[a] for a in names[:7]] == list(SERIES[:7])


def test_an_algorithm_the_schema_knows_but_the_runs_do_not_stops_the_start(config, monkeypatch):
    """Half-registered (in the schema's enum, not in runs.ALGORITHMS): the statistics and the
    convergence figure left it out silently; now the start names the registry to add it to."""
    from paramid.cec2022 import runs, workflow

    workflow.Cec2022Benchmark(config, {}, ".")
    config["cec2022"]["algorithms"] = [*config["cec2022"]["algorithms"], "DE"]
    with pytest.raises(ConfigError, match=r"cec2022\.algorithms: \['DE'\] have no entry in"):
        workflow.Cec2022Benchmark(config, {}, ".")
    monkeypatch.setitem(runs.ALGORITHMS, "DE", "woa")
    workflow.Cec2022Benchmark(config, {}, ".")


def test_the_statistics_job_reads_each_table_by_its_configured_dimension(config):
    """cec2022_stats keys each table by the dimension in its params, in the order of its input
    files (it parsed the dimension out of each file's name)."""
    from paramid.cec2022 import workflow

    config["cec2022"]["dims"] = [20, 10]
    benchmark = workflow.Cec2022Benchmark(config, {}, ".")
    dims = benchmark.stats_params(None)["dims"]
    assert dims == [20, 10]
    for name in ("", "ranks"):
        files = benchmark.tables(name)
        assert [int(f.rsplit("d", 1)[1].removesuffix(".csv")) for f in files] == dims
