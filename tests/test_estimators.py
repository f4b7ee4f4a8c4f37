"""LS and BCLS (Eq 17) against independent peers; rank and conditioning of the hip records; the
hip chain's population fits in their boxes (paramid.hip.fits)."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from scipy.optimize import lsq_linear

from paramid import estimators


def _problem(seed: int = 3, n: int = 200, d: int = 5):
    rng = np.random.default_rng(seed)
    H = rng.normal(size=(n, d))
    x = rng.normal(size=d)
    return H, H @ x + 0.2 * rng.normal(size=n), x


def test_ls_equals_numpy_lstsq():
    H, y, _ = _problem()
    np.testing.assert_allclose(
        estimators.ls(H, y), np.linalg.lstsq(H, y, rcond=None)[0], rtol=1e-12
    )


def _brute_force_bcls(H, y, lower, upper):
    """Enumerate every active set (free / at lower / at upper): an independent BCLS solver."""
    best, best_cost = None, np.inf
    d = H.shape[1]
    for state in itertools.product((0, 1, 2), repeat=d):
        x = np.where(np.array(state) == 1, lower, upper).astype(float)
        free = np.array(state) == 0
        if free.any():
            x[free] = np.linalg.lstsq(H[:, free], y - H[:, ~free] @ x[~free], rcond=None)[0]
        if np.all(x >= lower - 1e-12) and np.all(x <= upper + 1e-12):
            cost = np.sum((y - H @ x) ** 2)
            if cost < best_cost:
                best, best_cost = x, cost
    return best


@pytest.mark.parametrize("seed", range(5))
def test_bcls_equals_brute_force_and_lsq_linear_trf(seed):
    H, y, x = _problem(seed)
    lower, upper = x - 0.3, x + np.array([0.3, -0.1, 0.3, -0.2, 0.3])  # some bounds bind
    lower, upper = np.minimum(lower, upper - 0.05), np.maximum(upper, lower + 0.05)
    got = estimators.bcls(H, y, lower, upper)
    np.testing.assert_allclose(got, _brute_force_bcls(H, y, lower, upper), atol=1e-9)
    trf = lsq_linear(H, y, bounds=(lower, upper), method="trf", tol=1e-14).x
    np.testing.assert_allclose(got, trf, atol=1e-6)


def test_bcls_equals_ls_when_bounds_inactive():
    H, y, _ = _problem()
    x_ls = estimators.ls(H, y)
    np.testing.assert_allclose(estimators.bcls(H, y, x_ls - 1, x_ls + 1), x_ls, atol=1e-12)


def test_bcls_with_degenerate_box_fixes_that_parameter():
    H, y, _ = _problem()
    lower, upper = np.full(5, -5.0), np.full(5, 5.0)
    lower[2] = upper[2] = 0.25
    got = estimators.bcls(H, y, lower, upper)
    assert got[2] == 0.25
    np.testing.assert_allclose(got, _brute_force_bcls(H, y, lower, upper), atol=1e-9)


def test_rank_deficient_regressor_is_rejected():
    H, y, _ = _problem()
    H[:, 4] = 2 * H[:, 1]
    with pytest.raises(ValueError, match="rank 4 < 5"):
        estimators.ls(H, y)


def test_condition_number_and_collinear_columns_equal_numpy():
    """The condition number equals numpy's 2-norm cond; a column that is a multiple of another
    names exactly those two (the others carry no weight in the null space)."""
    H, _, _ = _problem(d=4)
    H[:, 3] *= 1e-3  # ill-conditioned, still full rank
    assert estimators.condition_number(H) == pytest.approx(np.linalg.cond(H), rel=1e-10)
    assert estimators.collinear_columns(H, list("abcd")) == []
    H[:, 2] = 2.0 * H[:, 0]
    assert estimators.collinear_columns(H, list("abcd")) == ["a", "c"]
    assert estimators.condition_number(H) > 1e12


def test_rmse_is_eq21():
    H, y, x = _problem()
    assert estimators.rmse(H, y, x) == pytest.approx(np.sqrt(np.mean((y - H @ x) ** 2)), rel=1e-14)


@pytest.mark.parametrize("method", ["pso", "rls_agwo"])
def test_run_population_searches_the_methods_box_with_its_settings(hip, method):
    from paramid import population
    from paramid.hip import fits

    H, y, x = _problem(d=5)
    H_val, y_val = H[::2].copy(), y[::2] + 0.3  # another record: another score
    pop = {**hip["population"], "runs": 3, "size": 8, "iterations": 5, "timing_repeats": 1}
    cfg = {**hip, "study": "test", "population": pop}
    rls = {"lower": (x - 0.5).tolist(), "upper": (x + 0.5).tolist(), "gamma": 0.04}
    run = fits.run_population(method, cfg, rls, H, y, H_val, y_val)
    lower, upper = population.search_box(method, 5, rls["lower"], rls["upper"], pop["standard_box"])
    np.testing.assert_array_equal(run.lower, lower)
    np.testing.assert_array_equal(run.upper, upper)
    block = cfg.get(population.POPULATION_METHODS[method].optimiser, {})
    assert run.settings == population.optimiser_settings(method, block, 0.04)
    assert (run.settings.get("gamma") == 0.04) == (method == "rls_agwo")
    want = population.fit_population(
        method, H, y, H_val, y_val, lower, upper,
        study="test", runs=3, population=8, iterations=5, settings=run.settings, timing_repeats=1,
    )  # fmt: skip
    np.testing.assert_array_equal(run.fit.x, want.x)
    np.testing.assert_array_equal(run.fit.val_rmse, want.val_rmse)
    np.testing.assert_array_equal(run.fit.history, want.history)
    np.testing.assert_array_equal(run.fit.n_evals, want.n_evals)
    for r in range(3):  # each run scored by Eq 21 on its own record (an independent formula)
        assert want.train_rmse[r] == pytest.approx(estimators.rmse(H, y, want.x[r]), rel=1e-12)
        assert want.val_rmse[r] == pytest.approx(
            estimators.rmse(H_val, y_val, want.x[r]), rel=1e-12
        )
    assert want.train_rmse[0] != pytest.approx(want.val_rmse[0])  # two records, two scores
    if method == "pso":  # Table 2's inertia falls from its start to its end value
        assert run.settings["inertia"] == (hip["pso"]["inertia_start"], hip["pso"]["inertia_end"])


def test_fit_timings_are_per_run_and_per_fit_in_ms(monkeypatch):
    """A clock that advances 1 s per reading: each repeat of a batched population call of 4
    runs is 1000 ms / 4 runs; a deterministic fit's time is its median call, 1000 ms."""
    from paramid import population

    ticks = iter(range(10_000))
    monkeypatch.setattr(population.time, "perf_counter", lambda: float(next(ticks)))
    assert estimators.time is population.time  # both read the patched clock
    H, y, x = _problem(d=3)
    fit = population.fit_population(
        "pso", H, y, H, y, x - 1.0, x + 1.0,
        study="test", runs=4, population=6, iterations=2, settings={}, timing_repeats=2,
    )  # fmt: skip
    np.testing.assert_array_equal(fit.time_ms_per_run, [250.0, 250.0])
    assert estimators.timed(lambda: x, 3).time_ms == 1000.0


def test_runs_decided_by_the_search_box_are_named():
    """A helper's 1 kHz knee: plain PSO's tau0 at the +5 edge of its standard box in every run
    (the true 0.15 N m lay well inside: the runs did not converge there); an
    edge at a mechanical limit (fv >= 0) is physics holding and is not named."""
    from paramid import population

    names = ["Mxt", "fv", "tau0"]
    lower, upper = np.array([-5.0, 0.0, -5.0]), np.array([5.0, 5.0, 5.0])
    runs = np.column_stack([np.linspace(0.5, 0.7, 30), np.zeros(30), np.full(30, 5.0)])
    message = population.box_edges("pso", names, runs, lower, upper, {"fv": {"min": 0.0}})
    assert message is not None
    assert message.startswith("pso: tau0 at its upper bound 5 in 100 % of the runs")
    assert "fv" not in message and "this parameter" in message
    assert "fv at its lower bound 0" in population.box_edges("pso", names, runs, lower, upper)
    runs[:16, 2] = 0.15  # 14 of 30 at the edge: under half
    assert population.box_edges("pso", names, runs, lower, upper, {"fv": {"min": 0.0}}) is None
    runs[15, 2] = 5.0  # 15 of 30: half the runs is enough
    half = population.box_edges("pso", names, runs, lower, upper, {"fv": {"min": 0.0}})
    assert half is not None and "tau0 at its upper bound 5 in 50 % of the runs" in half
    runs[15, 2] = 0.15
    # a box collapsed onto fv's mechanical min (the RLS range all negative): named apart, with
    # no advice to widen a margin that multiplies a span of 0
    upper[1] = 0.0
    collapsed = population.box_edges("rls_gwo", names, runs, lower, upper, {"fv": {"min": 0.0}})
    assert collapsed == (
        "rls_gwo: fv = 0 fixed by a box of zero width (the RLS range lies outside the "
        "mechanical limits: hip_rls's notes)"
    )


def test_runs_stopping_short_of_the_box_optimum_are_not_blamed_on_the_box():
    """The default hip twin's RLS-GWO: Mxt on the RLS box's lower edge in 73 % of the runs while
    BCLS in the same box lies inside (1.5002 against the edge 1.498).  Widening the box or
    checking units would not help: the message names the optimiser instead, and an optimum on
    the same edge still blames the box."""
    from paramid import population

    names = ["Mxt", "Jt"]
    lower, upper = np.array([1.498, 1.0]), np.array([1.502, 1.2])
    runs = np.column_stack([np.full(30, 1.498), np.linspace(1.05, 1.15, 30)])
    runs[22:, 0] = 1.5001  # 8 of 30 reach the interior
    short = population.box_edges("rls_gwo", names, runs, lower, upper, optimum=[1.5002, 1.1])
    assert short == (
        "rls_gwo: Mxt at its lower bound 1.498 in 73 % of the runs (the box's least-squares "
        "optimum: 1.5002): the runs stop on the edge short of an optimum inside the box, so the "
        "optimiser, not the box or the data, decides these runs' gap to BCLS"
    )
    decided = population.box_edges("rls_gwo", names, runs, lower, upper, optimum=[1.498, 1.1])
    assert decided is not None and "the search box, not the data, decides" in decided
    assert "short of" not in decided


def test_the_box_edge_warning_judges_the_runs_against_the_boxs_bcls_optimum():
    """hip_fit_population's warning: box_edges of the runs with the box's BCLS optimum on the
    calibration record; runs stopping on an edge short of an interior optimum blame the
    optimiser, runs inside the box warn of nothing."""
    from paramid import population
    from paramid.hip import fits

    H, y, x = _problem(d=2)
    lower, upper = x - 0.5, x + 0.5
    on_edge = np.column_stack([np.full(30, lower[0]), np.full(30, x[1])])
    zeros = np.zeros(30)
    fit = population.PopulationFit(on_edge, zeros, zeros, zeros[:, None], zeros.astype(int), zeros)
    run = fits.PopulationRun(fit=fit, lower=lower, upper=upper, settings={})
    warned = fits.box_edge_warning(run, "rls_gwo", ["a", "b"], H, y, None)
    optimum = estimators.bcls(H, y, lower, upper)
    assert warned == population.box_edges(
        "rls_gwo", ["a", "b"], on_edge, lower, upper, None, optimum
    )
    assert warned is not None and "a at its lower bound" in warned and "short of" in warned
    inside = dataclasses.replace(run, fit=dataclasses.replace(fit, x=np.tile(x, (30, 1))))
    assert fits.box_edge_warning(inside, "rls_gwo", ["a", "b"], H, y, None) is None


def test_population_summary_is_the_medians_and_distinct_evaluation_counts():
    """hip_fit_population's log line: the median validation RMSE over the runs, the distinct
    evaluation counts in order, the median time per run over the repeats."""
    from paramid import population
    from paramid.hip import fits

    val = np.array([0.31, 0.12, 0.5, 0.2])
    evals = np.array([300, 240, 300, 300])
    fit = population.PopulationFit(
        np.zeros((4, 2)), val, val, np.zeros((4, 1)), evals, np.array([4.0, 1.0, 2.5])
    )
    median_val, distinct, time_ms = fits.population_summary(fit)
    assert median_val == pytest.approx((0.2 + 0.31) / 2, rel=1e-15) and type(median_val) is float
    assert distinct.tolist() == [240, 300]
    assert time_ms == 2.5


def test_agwo_exponent_is_eq12_for_agwo_alone():
    """mu = mu_base + kappa exp(gamma) (Eq 12) under mu_eq12 for RLS-AGWO's settings; the other
    methods' metadata gets nothing."""
    from paramid.hip import fits

    settings = {"gamma": 0.2, "mu_base": 0.45, "kappa": 0.25}
    got = fits.agwo_exponent("rls_agwo", settings)
    assert list(got) == ["mu_eq12"] and type(got["mu_eq12"]) is float
    assert got["mu_eq12"] == pytest.approx(0.45 + 0.25 * np.exp(0.2), rel=1e-15)
    assert fits.agwo_exponent("rls_gwo", settings) == {}
    assert fits.agwo_exponent("pso", {}) == {}
