"""Sensitivity sweeps of the hip study: Figure 4 (§4.5) and the paper's future work (§5.3).

Each sweep point re-runs one stage with one setting changed and returns, per method, the
training and validation RMSE of every run.  Population methods keep their seed streams
(study, method, run), so the point at the default setting reproduces the main results.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid.hip import estimators, model, population, rls, signals, twin

Array = NDArray[np.float64]
HIP_PARAMETERS = ["Mxt", "Myt", "Jt", "fc", "fv"]
# twin-seed sweeps pair runs by seed; optimiser sweeps (independent seeded runs) are unpaired
PAIRED_SWEEPS = frozenset({"cutoff_hz"})
# the two settings of the leave-one-trajectory-out sweep (§5.3)
LOTO_DEFAULT = "default (cal Eq 18)"
LOTO_SWAPPED = "swapped (cal Eq 19)"


@dataclass(frozen=True)
class Regression:
    """Calibration and validation regressors of one record pair (Eq 4–6)."""

    H: Array
    y: Array
    H_val: Array
    y_val: Array
    sample_rate_hz: float


@dataclass(frozen=True)
class RlsBox:
    """The RLS stage's outputs that the fits need: box and γ (Eq 10)."""

    lower: Array
    upper: Array
    gamma: float


def rls_box(
    H: Array, y: Array, names: Sequence[str], keys: Sequence[str], rls_config: Mapping, fs: float
) -> RlsBox:
    """Eq 7–10 on one calibration regressor with the given RLS settings (§3.1–3.2)."""
    trajectory = rls.rls_trajectory(H, y, rls_config["forgetting"], rls_config["p0"])
    burn_in = int(round(rls_config["burn_in_s"] * fs))
    box = rls.rls_bounds(trajectory, burn_in, rls_config["margin"], names, rls_config["mechanical"])
    gamma = 0.0
    if "sign_qd" in keys:
        i = list(keys).index("sign_qd")
        fc_mean = trajectory[burn_in:, i].mean()
        gamma = rls.nfsi_gamma(H[:, i], fc_mean, y, rls_config["nfsi_eps"])
    return RlsBox(box.lower, box.upper, gamma)


def fit_methods(
    methods: Sequence[str],
    data: Regression,
    box: RlsBox,
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
    settings_config = {**study_config, "agwo": {**study_config["agwo"], **(agwo or {})}}
    frames = []
    for method in methods:
        if method in ("ls", "bcls"):
            x = (
                estimators.ls(data.H, data.y)
                if method == "ls"
                else estimators.bcls(data.H, data.y, box.lower, box.upper)
            )
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
                settings=population.optimiser_settings(method, settings_config, box.gamma),
                timing_repeats=0,
            )
            train, val = fit.train_rmse, fit.val_rmse
        frames.append(
            pd.DataFrame(
                {"method": method, "run": np.arange(val.size), "train_rmse": train, "val_rmse": val}
            )
        )
    return pd.concat(frames, ignore_index=True)


def twin_regressions(
    study_config: Mapping, seeds: Sequence[int], cutoff_hz: float
) -> list[Regression]:
    """Simulate both records for each twin seed and run the signal chain at ``cutoff_hz``."""
    keys = study_config["regressor"]
    settings = twin.TwinSettings.from_config(
        {**study_config["twin"], "gravity": study_config["gravity"]}, HIP_PARAMETERS
    )
    sig = study_config["signals"]
    out = []
    for seed in seeds:
        parts = []
        for record in ("calibration", "validation"):
            spec = study_config["records"][record]
            rec = twin.simulate(
                twin.Trajectory.from_config(spec["trajectory"]),
                spec["duration_s"],
                settings,
                seed,
                record,
            )
            p = signals.process(
                rec.time,
                rec.angle,
                rec.torque,
                cutoff_hz=cutoff_hz,
                order=sig["filter_order"],
                trim_s=sig["trim_s"],
            )
            parts.append(
                (model.regressor(keys, p.q, p.qd, p.qdd, study_config["gravity"]), p.torque)
            )
        (H, y), (Hv, yv) = parts
        out.append(Regression(H, y, Hv, yv, settings.sample_rate_hz))
    return out


def cutoff_point(study_config: Mapping, cutoff_hz: float, seeds: Sequence[int]) -> pd.DataFrame:
    """BCLS (Eq 17) validation RMSE per twin noise seed at one cutoff (Figure 4b).

    The RLS recursions of all seeds run side by side; one row per seed (``run`` = seed).
    """
    keys = study_config["regressor"]
    names = model.parameter_names(keys)
    data = twin_regressions(study_config, seeds, cutoff_hz)
    r = study_config["rls"]
    H = np.stack([d.H for d in data])
    y = np.stack([d.y for d in data])
    trajectories = rls.rls_trajectory(H, y, r["forgetting"], r["p0"])
    burn_in = int(round(r["burn_in_s"] * data[0].sample_rate_hz))
    rows = []
    for seed, d, trajectory in zip(seeds, data, trajectories, strict=True):
        box = rls.rls_bounds(trajectory, burn_in, r["margin"], names, r["mechanical"])
        x = estimators.bcls(d.H, d.y, box.lower, box.upper)
        rows.append(
            {
                "method": "bcls",
                "run": int(seed),
                "train_rmse": estimators.rmse(d.H, d.y, x),
                "val_rmse": estimators.rmse(d.H_val, d.y_val, x),
            }
        )
    return pd.DataFrame(rows)


def summarise_sweep(
    points: pd.DataFrame, default_value: float, paired: bool, seed_keys: Sequence[str]
) -> pd.DataFrame:
    """Median and IQR of validation RMSE per (value, method) and a test against the default.

    ``points`` has columns value, method, run, val_rmse.  Paired tests (paired t, Wilcoxon)
    match runs by ``run`` (twin seeds); unpaired ones use Welch and Mann–Whitney.  Holm's
    adjustment runs over the sweep's family of comparisons.
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
) -> pd.DataFrame:
    """A sweep's table (§4.5, §5.3): median and IQR per value and method, tests against the default.

    ``default`` is the paper's setting (``[mu_base, kappa]`` for the AGWO grid); for
    leave-one-trajectory-out, ``reference`` holds the main fits (the default direction).
    """
    paired = sweep in PAIRED_SWEEPS
    if sweep == "leave_one_trajectory_out":
        if reference is None:
            raise ValueError("leave_one_trajectory_out needs the main fits as reference")
        both = [reference.assign(value=LOTO_DEFAULT), points.assign(value=LOTO_SWAPPED)]
        points = pd.concat(both, ignore_index=True)[["value", "method", "run", "val_rmse"]]
        baseline = LOTO_DEFAULT
    elif sweep == "agwo_grid":
        baseline = grid_label(*default)
    else:
        baseline = float(default)
    table = summarise_sweep(points, baseline, paired=paired, seed_keys=(study, "sweep", sweep))
    table.insert(0, "sweep", sweep)
    return table


def sweep_caption(sweep: str, study: str) -> str:
    """Caption of a sweep's Markdown table."""
    pairing = "paired over twin seeds" if sweep in PAIRED_SWEEPS else "unpaired"
    return (
        f"Sweep {sweep} ({study}): validation RMSE [N m], median and IQR over runs; tests against "
        f"the default setting ({pairing}), Holm-adjusted over the sweep"
    )


SWEEPS = ("margin", "cutoff_hz", "forgetting", "population", "agwo_grid")


def sweep_point(
    sweep: str,
    value: float,
    data: Regression,
    study_config: Mapping,
    study: str,
    methods: Sequence[str],
) -> pd.DataFrame:
    """One point of the margin (Figure 4a), forgetting-factor or population-size sweep (§5.3)."""
    keys = study_config["regressor"]
    names = model.parameter_names(keys)
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
    box = rls_box(data.H, data.y, names, keys, r, data.sample_rate_hz)
    return fit_methods(methods, data, box, study_config, study, population_size=size)


def value_sweep(
    sweep: str,
    values: Sequence[float],
    data: Regression,
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
    data: Regression,
    study_config: Mapping,
    study: str,
    mu_base: Sequence[float],
    kappa: Sequence[float],
) -> pd.DataFrame:
    """RLS–AGWO over a μ_base × κ grid (Eq 12, §5.3); ``value`` labels each cell."""
    keys = study_config["regressor"]
    names = model.parameter_names(keys)
    box = rls_box(data.H, data.y, names, keys, study_config["rls"], data.sample_rate_hz)
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
    data: Regression, study_config: Mapping, study: str, methods: Sequence[str]
) -> pd.DataFrame:
    """Swap the records (§5.3): calibrate on the validation trajectory, validate on Eq 18's."""
    keys = study_config["regressor"]
    names = model.parameter_names(keys)
    swapped = Regression(data.H_val, data.y_val, data.H, data.y, data.sample_rate_hz)
    box = rls_box(swapped.H, swapped.y, names, keys, study_config["rls"], data.sample_rate_hz)
    return fit_methods(methods, swapped, box, study_config, study)
