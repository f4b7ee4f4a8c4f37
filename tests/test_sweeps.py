"""Sweep tables (paramid.hip.sweeps, §4.5 and §5.3): summaries and tests against the default equal
numpy and scipy.stats computed independently; Holm runs over the sweep's comparisons."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from paramid.hip import sweeps


def _points(values, methods=("rls_gwo", "rls_agwo"), runs=30, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    rows = [
        {"value": v, "method": m, "run": r, "val_rmse": 0.12 + 0.01 * i + rng.gamma(2.0, 0.004)}
        for i, v in enumerate(values)
        for m in methods
        for r in range(runs)
    ]
    return pd.DataFrame(rows)


def _series(points: pd.DataFrame, value, method: str) -> np.ndarray:
    rows = points[(points.value == value) & (points.method == method)]
    return rows.sort_values("run")["val_rmse"].to_numpy()


def _holm(p: np.ndarray) -> np.ndarray:
    """Holm's step-down adjustment written out (independent of paramid.stats.holm)."""
    order = np.argsort(p)
    adjusted = np.empty_like(p)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (p.size - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def test_margin_sweep_table_is_paired_by_run_and_equals_numpy_and_scipy():
    """Every margin reuses each run's random stream (study, method, run): the runs pair."""
    points = _points([0.0, 0.05, 0.1, 0.2])
    table = sweeps.sweep_table("margin", points, 0.1, "hip")
    assert list(table["sweep"].unique()) == ["margin"]
    assert len(table) == 8  # 4 values x 2 methods
    for row in table.itertuples():
        x = _series(points, row.value, row.method)
        assert row.val_median == pytest.approx(np.median(x), rel=1e-12)
        assert row.val_q1 == pytest.approx(np.percentile(x, 25), rel=1e-12)
        assert row.val_q3 == pytest.approx(np.percentile(x, 75), rel=1e-12)
        if row.value == 0.1:  # the default is the baseline, not tested against itself
            assert np.isnan(row.t_p) and np.isnan(row.rank_p)
            continue
        base = _series(points, 0.1, row.method)
        assert row.t_p == pytest.approx(sps.ttest_rel(x, base).pvalue, rel=1e-10)
        assert row.rank_p == pytest.approx(sps.wilcoxon(x, base).pvalue, rel=1e-10)
    tested = table.dropna(subset=["t_p"])
    np.testing.assert_allclose(tested["holm_t_p"], _holm(tested["t_p"].to_numpy()), rtol=1e-12)


def test_cutoff_sweep_is_paired_over_twin_seeds():
    points = _points([5.0, 15.0], methods=("bcls",))
    table = sweeps.sweep_table("cutoff_hz", points, 15.0, "hip").set_index("value")
    x, base = _series(points, 5.0, "bcls"), _series(points, 15.0, "bcls")
    assert table.loc[5.0, "t_p"] == pytest.approx(sps.ttest_rel(x, base).pvalue, rel=1e-10)
    assert table.loc[5.0, "rank_p"] == pytest.approx(sps.wilcoxon(x, base).pvalue, rel=1e-10)
    assert "paired over twin seeds" in sweeps.sweep_caption("cutoff_hz", "hip")
    assert "paired by run" in sweeps.sweep_caption("margin", "hip")
    assert "one record pair: no test" in sweeps.sweep_caption("cutoff_hz", "pendulum", True)


def test_leave_one_trajectory_out_compares_with_the_main_fits():
    swapped = _points([None], methods=("bcls", "rls_agwo")).drop(columns="value")
    main = _points([None], methods=("bcls", "rls_agwo"), seed=1).drop(columns="value")
    with pytest.raises(ValueError, match="main fits"):
        sweeps.sweep_table("leave_one_trajectory_out", swapped, None, "hip")
    table = sweeps.sweep_table("leave_one_trajectory_out", swapped, None, "hip", reference=main)
    default, swapped_label = sweeps.LOTO_LABELS[False]
    assert set(table["value"]) == {default, swapped_label} and "Eq 19" in swapped_label
    row = table[(table.value == swapped_label) & (table.method == "bcls")].iloc[0]
    x = swapped[swapped.method == "bcls"].sort_values("run")["val_rmse"].to_numpy()
    base = main[main.method == "bcls"].sort_values("run")["val_rmse"].to_numpy()
    assert row.val_median == pytest.approx(np.median(x))
    assert row.t_p == pytest.approx(sps.ttest_rel(x, base).pvalue, rel=1e-10)
    measured = sweeps.sweep_table("leave_one_trajectory_out", swapped, None, "p", main, True)
    assert set(measured["value"]) == set(sweeps.LOTO_LABELS[True])  # no Eq 18/19 on real records


def test_agwo_grid_default_is_its_cell_label():
    labels = [sweeps.grid_label(m, k) for m in (0.45, 1.0) for k in (0.25, 0.5)]
    points = _points(labels, methods=("rls_agwo",))
    table = sweeps.sweep_table("agwo_grid", points, [0.45, 0.25], "hip").set_index("value")
    assert np.isnan(table.loc["mu0.45_k0.25", "t_p"])
    assert table.drop(index="mu0.45_k0.25")["t_p"].notna().all()


@pytest.mark.parametrize(
    ("methods", "panels"),
    [(["PSO", "RLS-GWO", "RLS-AGWO"], 2), (["PSO"], 1), (["RLS-GWO", "RLS-AGWO"], 1)],
)
def test_figure_3c_zooms_on_the_rls_box_only_beside_other_methods(methods, panels):
    """A linear panel of the RLS-bounded methods where a method outside the box (standard PSO,
    runs up to 2.6 N m) would flatten them; one panel otherwise (no RLS method: no zoom)."""
    from paramid.hip import figures

    rng = np.random.default_rng(0)
    values = {m: 0.12 + rng.gamma(2.0, 0.004 if m != "PSO" else 0.5, 30) for m in methods}
    fig = figures.rmse_distribution(values, {"BCLS": 0.1174})
    assert len(fig.axes) == panels
    if panels == 2:
        low, high = fig.axes[1].get_ylim()
        assert high < 0.2 and fig.axes[1].get_yscale() == "linear"


def test_figure_3c_marks_diverged_runs_on_the_edge_instead_of_flattening_the_boxes():
    """The pendulum's one RLS-PSO run at 2.32 N m (others 2.266-2.273) flattened every RLS box
    into a tenth of the panel. Runs beyond 3 IQR sit on the edge as one triangle with the
    farthest value and their count; the reference line stays in view; a NaN run (a fit that
    failed) is left out instead of stopping the figure; the title counts the runs."""
    from paramid.hip import figures

    rng = np.random.default_rng(1)
    values = {m: 2.266 + rng.uniform(0.0, 0.007, 30) for m in ("PSO", "RLS-PSO", "RLS-GWO")}
    values["PSO"] = values["PSO"] + 2.0
    values["RLS-PSO"][:2] = (2.32, 2.40)
    values["RLS-GWO"][0] = np.nan
    fig = figures.rmse_distribution(values, {"BCLS": 2.262})
    low, high = fig.axes[1].get_ylim()
    assert low < 2.262 and high < 2.28  # the reference in view, the boxes not flattened
    notes = [t.get_text() for t in fig.axes[1].texts]
    assert notes == ["2.4 (2 runs)"]
    assert fig.get_suptitle() == "Repeated-run distribution (30 seeds)"


@pytest.mark.parametrize(
    ("seconds", "note"), [(6.6, ""), (10.0, ""), (30.0, " (first 10 s of 30 s)")]
)
def test_figures_3a_3b_draw_at_most_ten_seconds_of_a_long_record(seconds, note):
    """A 30 s validation log at 500 Hz drawn whole was one smear; the figures draw its first
    10 s and say so, the residual's RMSE stays the whole record's.  The paper's 6.6 s record
    is drawn whole."""
    from paramid.hip import figures

    time = np.arange(100, 100 + int(round(seconds * 500)) + 1) * 0.002  # 0.2 s on, 500 Hz
    torque = np.sin(time)
    residual = 0.1 * np.cos(3 * time)
    fig = figures.validation_torque(time, torque, {"BCLS": torque + residual})
    shown = fig.axes[0].lines[0].get_xdata()
    assert shown.max() <= 0.2 + 10.0 + 1e-9 and shown.size == min(time.size, 5001)
    assert fig.axes[0].get_title() == "Validation record: torque" + note
    fig = figures.residuals(time, {"BCLS": residual})
    rmse = np.sqrt(np.mean(residual**2))
    assert fig.axes[0].lines[0].get_label() == f"BCLS (RMSE {rmse:.4f} N m)"
    assert fig.axes[0].get_title().endswith("each method" + note)


def test_a_sweep_pairs_runs_by_their_number_not_their_place():
    points = _points([0.05, 0.1])
    missing = points[~((points.value == 0.05) & (points.run == 3))]
    with pytest.raises(ValueError, match="different runs"):
        sweeps.sweep_table("margin", missing, 0.1, "hip")


@pytest.mark.parametrize(("runs", "title"), [(30, "Median and IQR over 30 runs"), (1, "One run")])
def test_a_sweep_figure_names_its_runs_and_the_setting_it_marks(runs, title):
    """A measured study's cutoff sweep has one run per value and a cutoff chosen from its data:
    the figure said "Median and IQR over runs" and "paper's setting"."""
    from paramid.hip import figures

    points = _points([4.0, 6.0, 8.0], methods=("bcls",), runs=runs)
    table = sweeps.sweep_table("cutoff_hz", points, 6.0, "mine")
    fig = figures.sweep_figure("cutoff_hz", table, None, 6.0, chosen=True)
    ax = fig.axes[0]
    assert ax.get_title().startswith(title)
    assert "cutoff chosen from the data" in [t.get_text() for t in ax.get_legend().get_texts()]


@pytest.mark.parametrize(
    ("marked", "paper", "label"),
    [
        (0.1, {"margin": 0.10}, "paper's setting"),
        (0.2, {"margin": 0.10}, "study's setting (the paper's: 10)"),  # in the axis' %
        (0.1, None, "study's setting"),
    ],
)
def test_a_sweep_figure_calls_a_setting_the_papers_only_where_it_is(marked, paper, label):
    """A paper study whose margin was changed to 0.2 had it marked "paper's setting": the mark
    is named against the paper's Table 2 setting (data/hip/paper_values.yaml `settings`)."""
    from paramid.hip import figures

    points = _points([0.0, 0.1, 0.2], methods=("rls_agwo",), runs=3)
    table = sweeps.sweep_table("margin", points, marked, "hip")
    fig = figures.sweep_figure("margin", table, None, marked, paper)
    assert label in [t.get_text() for t in fig.axes[0].get_legend().get_texts()]


def test_the_papers_table_2_settings_are_the_hip_studys(hip, repo_root):
    """The shipped hip study runs the settings the paper printed (its Table 2)."""
    from paramid import io

    settings = io.read_yaml(repo_root / hip["paper_values"])["settings"]
    assert settings == {"margin": 0.10, "cutoff_hz": 15.0, "forgetting": 0.98, "population": 30}
    configured = {
        "margin": hip["rls"]["margin"],
        "cutoff_hz": hip["signals"]["cutoff_hz"],
        "forgetting": hip["rls"]["forgetting"],
        "population": hip["population"]["size"],
    }
    assert configured == settings


def test_the_sweep_figures_read_the_papers_settings_from_its_values(hip, repo_root):
    """io.paper_settings: the paper's Table 2 from its values file, None without one."""
    from paramid import io

    assert io.paper_settings([str(repo_root / hip["paper_values"])])["margin"] == 0.10
    assert io.paper_settings([]) is None


def test_the_default_row_of_a_sweep_carries_no_test():
    rng = np.random.default_rng(0)
    pts = pd.DataFrame(
        {
            "value": np.repeat([0.1, 0.2, 0.3], 8),
            "method": "rls_agwo",
            "run": np.tile(np.arange(8), 3),
            "val_rmse": rng.uniform(0.1, 0.2, 24),
        }
    )
    table = sweeps.summarise_sweep(pts, 0.1, True, ("s",)).set_index("value")
    assert np.isnan(table.loc[0.1, "median_diff_pct"]) and np.isnan(table.loc[0.1, "rank_p"])


def test_figure_3c_draws_every_method_on_a_log_axis():
    """3c's left panel holds standard PSO's outliers and the RLS clusters together: a log axis
    (the right panel alone is linear)."""
    from paramid.hip import figures

    rng = np.random.default_rng(0)
    values = {
        m: 0.12 + rng.gamma(2.0, 0.004 if m != "PSO" else 0.5, 30) for m in ("PSO", "RLS-GWO")
    }
    fig = figures.rmse_distribution(values, {"BCLS": 0.1174})
    assert fig.axes[0].get_yscale() == "log"
    assert fig.axes[0].get_ylabel() == "Validation RMSE [N m]"


def test_figure_3d_draws_the_median_excess_over_bcls_per_iteration():
    """3d: iterations on x, the median over seeds of best training RMSE - BCLS on a log y."""
    from paramid.hip import figures

    rng = np.random.default_rng(2)
    runs, iterations, optimum = 5, 12, 0.117
    best = optimum + np.sort(rng.uniform(1e-4, 1e-2, (runs, iterations)), axis=1)[:, ::-1]
    history = pd.DataFrame(
        {
            "run": np.repeat(np.arange(runs), iterations),
            "iteration": np.tile(np.arange(1, iterations + 1), runs),
            "best_train_rmse": best.ravel(),
        }
    )
    fig = figures.figure3("fig3d", {}, histories={"rls_agwo": history}, bcls_train_rmse=optimum)
    ax = fig.axes[0]
    (line,) = ax.lines
    np.testing.assert_array_equal(line.get_xdata(), np.arange(1, iterations + 1))
    np.testing.assert_allclose(line.get_ydata(), np.median(best - optimum, axis=0))
    assert line.get_label() == "RLS-AGWO" and ax.get_yscale() == "log"


def test_a_margin_sweep_is_drawn_in_percent_of_the_span_with_its_setting_marked():
    """The margin's values are fractions; its axis says % of span: 0.1 drawn at 10."""
    from paramid.hip import figures

    points = _points([0.0, 0.1, 0.2], methods=("rls_agwo",), runs=3)
    table = sweeps.sweep_table("margin", points, 0.1, "hip")
    fig = figures.sweep_figure("margin", table, None, 0.1)
    ax = fig.axes[0]
    assert ax.get_xlabel() == "Bound margin [% of span]"
    median = next(line for line in ax.lines if line.get_label() == "RLS-AGWO median")
    np.testing.assert_allclose(median.get_xdata(), [0.0, 10.0, 20.0])
    mark = next(line for line in ax.lines if line.get_label() == "study's setting")
    np.testing.assert_allclose(mark.get_xdata(), [10.0, 10.0])


def test_the_cutoff_sweep_draws_its_first_twin_seed():
    """Figure 4b's black line is the lowest-numbered run's RMSE per cutoff, named by it."""
    from paramid.hip import figures

    points = _points([4.0, 6.0, 8.0], methods=("bcls",), runs=4)
    points["run"] += 3  # runs 3..6
    table = sweeps.sweep_table("cutoff_hz", points, 6.0, "hip")
    fig = figures.sweep_figure("cutoff_hz", table, points, 6.0)
    seed_line = next(line for line in fig.axes[0].lines if line.get_label().startswith("twin"))
    assert seed_line.get_label() == "twin seed 3"
    first = points[points.run == 3].sort_values("value")
    np.testing.assert_allclose(seed_line.get_ydata(), first["val_rmse"])


def test_the_agwo_grid_puts_kappa_across_mu_up_and_frames_the_default_cell():
    """Each cell's colour is the median RMSE of its (μ_base, κ); κ on x, μ_base on y as the
    axis labels say, the default cell framed."""
    from matplotlib.patches import Rectangle

    from paramid.hip import figures

    rng = np.random.default_rng(3)
    mus, kappas = (0.45, 1.0, 2.0), (0.25, 0.5)
    rows = [
        {
            "mu_base": m,
            "kappa": k,
            "run": r,
            "val_rmse": 0.1 + 0.01 * i + 0.001 * j + rng.uniform(0, 1e-4),
        }
        for i, m in enumerate(mus)
        for j, k in enumerate(kappas)
        for r in range(5)
    ]
    points = pd.DataFrame(rows)
    fig = figures.sweep_figure("agwo_grid", pd.DataFrame(), points, [1.0, 0.25])
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["0.25", "0.5"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["0.45", "1", "2"]
    grid = ax.images[0].get_array()
    medians = points.groupby(["mu_base", "kappa"])["val_rmse"].median()
    for i, m in enumerate(mus):
        for j, k in enumerate(kappas):
            assert grid[i, j] == medians[(m, k)]
    (frame,) = [p for p in ax.patches if isinstance(p, Rectangle)]
    assert frame.get_xy() == (-0.5, 0.5)  # κ = 0.25 (column 0), μ_base = 1 (row 1)


def test_a_sweep_figure_names_a_deterministic_method_as_such():
    """BCLS's one run per setting beside 30-run methods: not called a median over 30 runs."""
    from paramid.hip import figures

    table = pd.DataFrame(
        {
            "value": [0.95, 0.95, 0.98, 0.98],
            "method": ["bcls", "rls_gwo"] * 2,
            "n": [1, 30, 1, 30],
            "val_median": [0.0416, 0.0478, 0.0416, 0.0444],
            "val_q1": [0.0416, 0.0446, 0.0416, 0.0439],
            "val_q3": [0.0416, 0.0535, 0.0416, 0.0456],
            "default_value": [0.98] * 4,
        }
    )
    fig = figures.sweep_figure("forgetting", table, None, 0.98)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels[:2] == ["BCLS (deterministic)", "RLS-GWO median"]
    assert ax.get_title() == "Median and IQR over 30 runs; BCLS: one run"


def test_loto_draws_each_methods_median_over_its_own_label():
    """Leave-one-trajectory-out: the medians in the table's method order, under their names."""
    from paramid.hip import figures

    table = pd.DataFrame(
        {
            "value": ["default (cal Eq 18)"] * 2 + ["swapped (cal Eq 19)"] * 2,
            "method": ["rls_pso", "bcls"] * 2,
            "val_median": [0.2, 0.1, 0.3, 0.15],
            "val_q1": [0.19, 0.09, 0.29, 0.14],
            "val_q3": [0.21, 0.11, 0.31, 0.16],
        }
    )
    fig = figures.sweep_figure("leave_one_trajectory_out", table, None, None)
    ax = fig.axes[0]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["RLS-PSO", "BCLS"]
    default, swapped = (c.lines[0] for c in ax.containers)
    np.testing.assert_allclose(np.asarray(default.get_ydata(), float), [0.2, 0.1])
    np.testing.assert_allclose(np.asarray(swapped.get_ydata(), float), [0.3, 0.15])


def test_loto_draws_the_methods_beside_standard_pso_on_their_own_linear_axis():
    """Standard PSO (0.12-0.45 N m) beside methods at 0.040-0.046 N m: as Figure 3c, a
    second panel without it, on a linear axis spanning the others' medians and IQRs."""
    from paramid.hip import figures

    methods = ["bcls", "pso", "rls_gwo"]
    table = pd.DataFrame(
        {
            "value": ["default (cal Eq 18)"] * 3 + ["swapped (cal Eq 19)"] * 3,
            "method": methods * 2,
            "val_median": [0.0416, 0.117, 0.0444, 0.0398, 0.243, 0.0460],
            "val_q1": [0.0416, 0.063, 0.0439, 0.0398, 0.127, 0.0433],
            "val_q3": [0.0416, 0.169, 0.0456, 0.0398, 0.432, 0.0492],
        }
    )
    fig = figures.sweep_figure("leave_one_trajectory_out", table, None, None)
    whole, bounded = fig.axes
    assert whole.get_yscale() == "log" and bounded.get_yscale() == "linear"
    assert [t.get_text() for t in bounded.get_xticklabels()] == ["BCLS", "RLS-GWO"]
    low, high = bounded.get_ylim()
    assert low <= 0.0398 and 0.0492 <= high < 0.06
    assert "PSO" in bounded.get_title()


def test_figure_3a_draws_the_median_runs_estimate():
    """3a's estimate is H X̂ of the fit's median run by validation RMSE (not its first run)."""
    from paramid.hip import figures

    time = np.arange(50) * 0.01
    H = np.column_stack([np.sin(time), np.cos(time)])
    fit = pd.DataFrame(
        {"run": [0, 1, 2], "val_rmse": [3.0, 1.0, 2.0], "a": [1.0, 2.0, 3.0], "b": [0.5, 0.6, 0.7]}
    )
    fig = figures.figure3("fig3a", {"bcls": fit}, (time, H, np.zeros_like(time)), ["a", "b"])
    estimate = next(line for line in fig.axes[0].lines if line.get_label() == "BCLS estimate")
    np.testing.assert_allclose(estimate.get_ydata(), H @ [3.0, 0.7])  # run 2: RMSE 2.0
    assert fig.axes[0].get_ylabel() == "Joint torque [N m]"


def test_point_units_put_the_rmses_in_n_m_and_a_figure_4_value_in_its_unit():
    columns = ["value", "method", "run", "train_rmse", "val_rmse"]
    assert sweeps.point_units(columns) == {
        "value": "1",
        "method": "1",
        "run": "1",
        "train_rmse": "N m",
        "val_rmse": "N m",
    }
    assert sweeps.point_units(columns, "cutoff_hz")["value"] == "Hz"
    assert sweeps.point_units(columns, "margin")["value"] == "1"
    assert sweeps.point_units(["method"], "cutoff_hz") == {
        "method": "1",
        "train_rmse": "N m",
        "val_rmse": "N m",
        "value": "Hz",
    }
