"""Sensitivity sweeps of the hip study: Figure 4 (§4.5) and the paper's future work (§5.3).

Each sweep point re-runs one stage with one setting changed and returns, per method, the
training and validation RMSE of every run.  Population methods keep their seed streams
(study, method, run), so the point at the default setting reproduces the main results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import estimators, population, signals
from paramid.hip import fits, pipeline
from paramid.hip.methods import DETERMINISTIC_METHODS, VALUE_UNITS

Array = NDArray[np.float64]
# every sweep pairs its runs by ``run``: the cutoff sweep's run is a twin seed, the others'
# a population run whose random stream (study, method, run) is the same at every setting
# (common random numbers: at the margin sweep's 10 % the runs are the main fits run by run,
# and runs correlate 0.16-0.77 across margins), so tests on them are paired
# the two settings of the leave-one-trajectory-out sweep (§5.3)
#: leave-one-trajectory-out's (default, swapped) labels: the twin's trajectories are Eq 18 and 19
LOTO_LABELS = {
    False: ("default (cal Eq 18)", "swapped (cal Eq 19)"),
    True: ("default (cal calibration record)", "swapped (cal validation record)"),
}


def fit_methods(
    methods: Sequence[str],
    data: pipeline.Regression,
    box: pipeline.Prior,
    study_config: Mapping,
    study: str,
    *,
    population_size: int | None = None,
    agwo: Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Train/validation RMSE of every run of each method (long format: method, run, ...).

    ``population_size`` overrides N at the same evaluation budget (G = budget // N);
    ``agwo`` overrides μ_base and κ of Eq 12.
    """
    pop = study_config["population"]
    budget = pop["size"] * pop["iterations"]
    n = population_size or pop["size"]
    iterations = budget // n
    settings_config = dict(study_config)  # the optimiser blocks of ``methods`` (at least)
    if agwo:
        settings_config["agwo"] = {**study_config["agwo"], **agwo}
    frames = []
    for method in methods:
        if method in DETERMINISTIC_METHODS:
            x = fits.deterministic_estimate(method, data.H, data.y, box.lower, box.upper)
            train = np.array([estimators.rmse(data.H, data.y, x)])
            val = np.array([estimators.rmse(data.H_val, data.y_val, x)])
        else:
            lower, upper = population.search_box(
                method, data.H.shape[1], box.lower, box.upper, pop["standard_box"]
            )
            fit = population.fit_population(
                method,
                data.H,
                data.y,
                data.H_val,
                data.y_val,
                lower,
                upper,
                study=study,
                runs=pop["runs"],
                population=n,
                iterations=iterations,
                settings=population.optimiser_settings(
                    method,
                    settings_config.get(population.POPULATION_METHODS[method].optimiser, {}),
                    float(box.gamma),
                ),
                timing_repeats=0,
            )
            train, val = fit.train_rmse, fit.val_rmse
        frames.append(
            pd.DataFrame(
                {"method": method, "run": np.arange(val.size), "train_rmse": train, "val_rmse": val}
            )
        )
    return pd.concat(frames, ignore_index=True)


def measured_cutoff_point(
    records: Mapping[str, tuple[Array, Array, Array]], study_config: Mapping, cutoff_hz: float
) -> pd.DataFrame:
    """BCLS (Eq 17) train and validation RMSE of a measured study at one cutoff (Figure 4b on
    real records): ``records`` maps calibration/validation to (time, angle, torque); one row,
    ``run`` 0 (one record pair, nothing to pair over)."""
    keys, gravity = study_config["regressor"], study_config["gravity"]
    parts = {}
    for name in ("calibration", "validation"):
        processed = pipeline.process(*records[name], study_config["signals"], cutoff_hz)
        parts[name] = pipeline.regression(processed, keys, gravity)
    (H, y), (H_val, y_val) = parts["calibration"], parts["validation"]
    fs = signals.sample_rate(records["calibration"][0])
    prior = pipeline.rls_prior(H, y, keys, study_config["rls"], fs)
    x = estimators.bcls(H, y, prior.lower, prior.upper)
    row = {"method": "bcls", "run": 0, "train_rmse": estimators.rmse(H, y, x)}
    return pd.DataFrame([row | {"val_rmse": estimators.rmse(H_val, y_val, x)}])


def point_units(columns: Sequence[str], sweep: str | None = None) -> dict[str, str]:
    """The units of a sweep's points with ``columns``: the RMSEs in N m, the rest "1"; the
    ``value`` of a Figure 4 ``sweep`` in its unit (:data:`VALUE_UNITS`)."""
    units = {column: "1" for column in columns} | {"train_rmse": "N m", "val_rmse": "N m"}
    if sweep is not None:
        units["value"] = VALUE_UNITS[sweep]
    return units


def cutoff_point(study_config: Mapping, cutoff_hz: float, seeds: Sequence[int]) -> pd.DataFrame:
    """BCLS (Eq 17) validation RMSE per twin noise seed at one cutoff (Figure 4b).

    All seeds run through the chain side by side; one row per seed (``run`` = seed).
    """
    data = pipeline.twin_regression(study_config, seeds, cutoff_hz)
    prior = pipeline.rls_prior(
        data.H, data.y, study_config["regressor"], study_config["rls"], data.sample_rate_hz
    )
    rows = []
    for s, seed in enumerate(seeds):
        H, y, H_val, y_val = data.H[s], data.y[s], data.H_val[s], data.y_val[s]
        x = estimators.bcls(H, y, prior.lower[s], prior.upper[s])
        rows.append(
            {
                "method": "bcls",
                "run": int(seed),
                "train_rmse": estimators.rmse(H, y, x),
                "val_rmse": estimators.rmse(H_val, y_val, x),
            }
        )
    return pd.DataFrame(rows)


def summarise_sweep(
    points: pd.DataFrame, default_value: float, paired: bool, seed_keys: Sequence[str]
) -> pd.DataFrame:
    """Median and IQR of validation RMSE per (value, method) and a test against the default.

    ``points`` has columns value, method, run, val_rmse.  Paired tests (paired t, Wilcoxon)
    match runs by ``run`` (a twin seed or a run's random stream); unpaired ones use Welch and
    Mann–Whitney.  Holm's adjustment runs over the sweep's family of comparisons.
    """
    from paramid import stats

    rows = []
    for (value, method), group in points.groupby(["value", "method"], sort=True):
        values = group.sort_values("run")["val_rmse"].to_numpy()
        summary = stats.summarise(values)
        row = {
            "value": value,
            "method": method,
            "n": summary.n,
            "val_median": summary.median,
            "val_q1": summary.q1,
            "val_q3": summary.q3,
            "val_mean": summary.mean,
            "default_value": default_value,
        }
        base = points[(points["value"] == default_value) & (points["method"] == method)]
        base_values = base.sort_values("run")["val_rmse"].to_numpy()
        if len(base) and sorted(base["run"]) != sorted(group["run"]):
            raise ValueError(
                f"sweep {method} at {value} and at {default_value}: different runs "
                f"({sorted(group['run'])} vs {sorted(base['run'])}): pairs need the same"
            )
        if value != default_value and base_values.size:
            c = stats.compare(
                values,
                base_values,
                paired=paired,
                name_a=f"{method}@{value}",
                name_b=f"{method}@{default_value}",
                n_boot=2000,
                seed_keys=seed_keys,
            )
            row |= {
                "median_diff_pct": c.median_diff_pct,
                "test": f"{c.t_test} / {c.rank_test}",
                "t_p": c.t_p,
                "rank_p": c.rank_p,
                "hedges_g": c.hedges_g,
                "cliffs_delta": c.cliffs_delta,
                "note": c.note,
            }
        rows.append(row)
    table = pd.DataFrame(rows)
    for column in ("t_p", "rank_p"):
        if column in table:
            table[f"holm_{column}"] = stats.holm(table[column].to_numpy(dtype=float))
    return table


def sweep_table(
    sweep: str,
    points: pd.DataFrame,
    default: float | Sequence[float] | None,
    study: str,
    reference: pd.DataFrame | None = None,
    measured: bool = False,
) -> pd.DataFrame:
    """A sweep's table (§4.5, §5.3): median and IQR per value and method, tests against the default.

    ``default`` is the paper's setting (``[mu_base, kappa]`` for the AGWO grid); for
    leave-one-trajectory-out, ``reference`` holds the main fits (the default direction) and
    ``measured`` picks the labels of :data:`LOTO_LABELS`.
    """
    if sweep == "leave_one_trajectory_out":
        if reference is None:
            raise ValueError("leave_one_trajectory_out needs the main fits as reference")
        baseline, swapped = LOTO_LABELS[measured]
        both = [reference.assign(value=baseline), points.assign(value=swapped)]
        points = pd.concat(both, ignore_index=True)[["value", "method", "run", "val_rmse"]]
    elif sweep == "agwo_grid":
        baseline = grid_label(*default)
    else:
        baseline = float(default)
    table = summarise_sweep(points, baseline, paired=True, seed_keys=(study, "sweep", sweep))
    table.insert(0, "sweep", sweep)
    return table


def sweep_caption(sweep: str, study: str, measured: bool = False) -> str:
    """Caption of a sweep's Markdown table (a measured study's cutoff sweep has one record pair:
    one value per cutoff, nothing to test)."""
    if sweep != "cutoff_hz":
        pairing = "paired by run: one stream"
    else:
        pairing = "one record pair: no test" if measured else "paired over twin seeds"
    return (
        f"Sweep {sweep} ({study}): validation RMSE [N m], median and IQR over runs; tests against "
        f"the default setting ({pairing}), Holm-adjusted over the sweep"
    )


def sweep_point(
    sweep: str,
    value: float,
    data: pipeline.Regression,
    study_config: Mapping,
    study: str,
    methods: Sequence[str],
) -> pd.DataFrame:
    """One point of the margin (Figure 4a), forgetting-factor or population-size sweep (§5.3)."""
    r = dict(study_config["rls"])
    size = None
    if sweep == "margin":
        r["margin"] = float(value)
    elif sweep == "forgetting":
        r["forgetting"] = float(value)
    elif sweep == "population":
        size = int(value)
        budget = study_config["population"]["size"] * study_config["population"]["iterations"]
        if budget % size:
            raise ValueError(
                f"population {size} does not divide the budget of {budget} evaluations"
            )
    else:
        raise ValueError(f"unknown sweep {sweep!r}; known: margin, forgetting, population")
    box = pipeline.rls_prior(data.H, data.y, study_config["regressor"], r, data.sample_rate_hz)
    return fit_methods(methods, data, box, study_config, study, population_size=size)


def value_sweep(
    sweep: str,
    values: Sequence[float],
    data: pipeline.Regression,
    study_config: Mapping,
    study: str,
    methods: Sequence[str],
) -> pd.DataFrame:
    """Every point of the forgetting-factor or population-size sweep (§5.3), labelled ``value``."""
    frames = [
        sweep_point(sweep, value, data, study_config, study, methods).assign(value=float(value))
        for value in values
    ]
    return pd.concat(frames, ignore_index=True)


def agwo_grid(
    data: pipeline.Regression,
    study_config: Mapping,
    study: str,
    mu_base: Sequence[float],
    kappa: Sequence[float],
) -> pd.DataFrame:
    """RLS–AGWO over a μ_base × κ grid (Eq 12, §5.3); ``value`` labels each cell."""
    box = _prior(data, study_config)
    frames = []
    for mb in mu_base:
        for k in kappa:
            frame = fit_methods(
                ["rls_agwo"], data, box, study_config, study, agwo={"mu_base": mb, "kappa": k}
            )
            frames.append(frame.assign(mu_base=mb, kappa=k, value=grid_label(mb, k)))
    return pd.concat(frames, ignore_index=True)


def grid_label(mu_base: float, kappa: float) -> str:
    """Label of one AGWO grid cell, e.g. ``mu0.45_k0.25``."""
    return f"mu{mu_base:g}_k{kappa:g}"


def leave_one_trajectory_out(
    data: pipeline.Regression, study_config: Mapping, study: str, methods: Sequence[str]
) -> pd.DataFrame:
    """Swap the records (§5.3): calibrate on the validation trajectory, validate on Eq 18's."""
    swapped = pipeline.Regression(data.H_val, data.y_val, data.H, data.y, data.sample_rate_hz)
    return fit_methods(methods, swapped, _prior(swapped, study_config), study_config, study)


def _prior(data: pipeline.Regression, study_config: Mapping) -> pipeline.Prior:
    """The RLS prior of a calibration regressor with the study's own RLS settings."""
    return pipeline.rls_prior(
        data.H, data.y, study_config["regressor"], study_config["rls"], data.sample_rate_hz
    )


def whole_sweep(
    sweep: str, block: Mapping, data: pipeline.Regression, study_config: Mapping, study: str
) -> pd.DataFrame:
    """Every point of a §5.3 sweep (``block`` its config: values or grid, methods)."""
    if sweep == "agwo_grid":
        return agwo_grid(data, study_config, study, block["mu_base"], block["kappa"])
    if sweep == "leave_one_trajectory_out":
        return leave_one_trajectory_out(data, study_config, study, block["methods"])
    return value_sweep(sweep, block["values"], data, study_config, study, block["methods"])
