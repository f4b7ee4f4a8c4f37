"""Result frames and Tables 6-9 of the KR210 calibration study, beside the paper's values.

Fit frames (one per identifier, one row per run): ``run``, ``seed``, the identified errors
``de_<parameter>`` for all 24 parameters of Eq 6 (0 for those not identified), Eq 45 metrics
on the training and validation points (``train_mean_mm`` ... ``val_max_mm``), ``time_s``,
``n_evals`` and identifier-specific columns (e.g. the tuned factors, ``diverged``, and
``tuning_fitness``: the Eq 29 fitness the factors were tuned on).  History frames:
``run``, ``iteration``, ``train_rmse_mm``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
from scipy import stats as sps

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration import paper
from paramid.calibration.identify import IDENTIFIERS, LABELS, Fit
from paramid.calibration.problem import Problem, metrics, truth_equivalent
from paramid.stats import comparison_table

__all__ = [
    "TABLE6",
    "TABLE7",
    "TABLE7_NAMES",
    "TABLE9",
    "HYBRIDS",
    "fit_frame",
    "load_problem",
    "fit_units",
    "history_frame",
    "estimates",
    "accuracy_table",
    "hybrid_runtime_table",
    "table8",
    "parameter_recovery",
]

#: Table 7 names (M1-M5) of the single identification methods, in Table 7's row order.
TABLE7_NAMES: dict[str, str] = {
    "bc": "BC",
    "ekf": "M1",
    "ipso": "M2",
    "lasso": "M3",
    "ukf": "M4",
    "mipo_arkekf": "M5",
    "lm_ga": "LM+GA",
    "ekf_dqpso": "EKF+DQPSO",
}
#: Rows of Table 6 (ablation, and the sequential reading of Algorithm 2), Table 7 (all models)
#: and Table 9 (polishing path: the Table 7 rows that the identifier registry marks as
#: polishing rows).
TABLE6: list[str] = [
    "ekf",
    "ekf_gsbise",
    "ekf_mipo",
    "mipo_arkekf",
    "ekf_sequential",
    "mipo_arkekf_sequential",
]
TABLE7: list[str] = list(TABLE7_NAMES)
TABLE9: list[str] = [ident for ident in TABLE7 if IDENTIFIERS[ident].polishing]
HYBRIDS: list[str] = ["mipo_arkekf", "lm_ga", "ekf_dqpso"]
METRICS = ("mean", "rmse", "max")


def load_problem(
    dataset: str, truth: str, identifiability: str
) -> tuple[Problem, pd.DataFrame, dict, dict]:
    """The calibration problem from the rule outputs: (problem, data frame, truth, ident)."""
    frame, _ = io.read_parquet(dataset)
    t = io.read_json(truth)
    ident = io.read_json(identifiability)
    problem = Problem.from_frame(frame, t["nominal"], t["tool_mm"], ident["free"], t["convention"])
    return problem, frame, t, ident


def fit_frame(fit: Fit, problem: Problem, runs: Sequence[int]) -> pd.DataFrame:
    """The per-run frame of one identifier (see the module docstring)."""
    frame = pd.DataFrame({"run": np.asarray(runs, dtype=np.int64)})
    frame["seed"] = frame["run"]
    de = np.zeros((len(runs), kin.N_PARAMS))
    de[:, problem.free] = fit.x
    for j, name in enumerate(kin.parameter_names()):
        frame[f"de_{name}"] = de[:, j]
    for split, tag in (("train", "train"), ("validation", "val")):
        for key, values in metrics(problem.distances(fit.x, split)).items():
            frame[f"{tag}_{key}_mm"] = values
    frame["time_s"] = fit.time_s
    frame["n_evals"] = fit.n_evals.astype(np.int64)
    for key, values in fit.info.items():
        values = np.asarray(values)
        frame[key] = values if values.dtype.kind in "bUO" else values.astype(np.float64)
    return frame


def fit_units(frame: pd.DataFrame) -> dict[str, str]:
    """Units of a fit frame's columns."""
    units = {"run": "1", "seed": "1", "time_s": "s", "n_evals": "1"}
    units |= {f"de_{k}": v for k, v in kin.parameter_units().items()}
    units |= {c: "mm" for c in frame.columns if c.endswith("_mm")}
    units |= {"alpha": "1", "beta": "1", "gamma": "1", "lambda": "1"}
    return {c: units.get(c, "1") for c in frame.columns}


def history_frame(fit: Fit, runs: Sequence[int]) -> pd.DataFrame:
    """Long frame of the training-RMSE history: run, iteration (1..K), train_rmse_mm."""
    runs = np.asarray(runs, dtype=np.int64)
    K = fit.history.shape[1]
    return pd.DataFrame(
        {
            "run": np.repeat(runs, K),
            "iteration": np.tile(np.arange(1, K + 1, dtype=np.int64), runs.size),
            "train_rmse_mm": fit.history.reshape(-1),
        }
    )


def estimates(frame: pd.DataFrame, free: Sequence[int]) -> np.ndarray:
    """Identified errors (runs, r) of the free parameters, from a fit frame."""
    names = kin.parameter_names()
    return frame[[f"de_{names[i]}" for i in free]].to_numpy(np.float64)


def _sd(values: pd.Series) -> float:
    """SD over runs (ddof=1); exactly 0 for identical values, NaN for a single run."""
    if values.size < 2:
        return float("nan")
    return 0.0 if np.ptp(values.to_numpy()) == 0 else float(values.std(ddof=1))


def _method(name: str, frame: pd.DataFrame) -> str:
    """A table row's method name, marked when its factors were tuned on the linear surrogate
    of Eq 29 rather than on the filter (``tuning.fitness``)."""
    surrogate = "tuning_fitness" in frame and (frame["tuning_fitness"] == "linear_surrogate").any()
    return f"{name} [linear-surrogate tuning]" if surrogate else name


def _num(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def accuracy_table(
    fits: Mapping[str, pd.DataFrame], rows: Sequence[str], *, names: Mapping[str, str] = LABELS
) -> pd.DataFrame:
    """Validation MEAN / RMSE / MAX (mean and SD over runs), time per run, the paper's values.

    ``names`` maps identifiers to the ``method`` column (``LABELS`` for Table 6,
    ``TABLE7_NAMES`` for Table 7); the paper's values are looked up by ``LABELS``.
    """
    out = []
    for ident in rows:
        f = fits[ident]
        row: dict[str, object] = {"method": _method(names[ident], f), "identifier": ident}
        row["runs"] = len(f)
        for m in METRICS:
            row[f"{m}_mm"] = float(f[f"val_{m}_mm"].mean())
            row[f"{m}_mm_sd"] = _sd(f[f"val_{m}_mm"])
        row["time_s"] = float(f["time_s"].mean())
        row["time_s_sd"] = _sd(f["time_s"])
        printed = paper.ACCURACY.get(LABELS[ident], {})
        for m in METRICS:
            mean, sd = printed.get(m, (None, None))
            row[f"paper_{m}_mm"] = _num(mean)
            row[f"paper_{m}_mm_sd"] = _num(sd)
        row["paper_time_s"] = _num(paper.TIME_S.get(LABELS[ident]))
        out.append(row)
    return pd.DataFrame(out)


def hybrid_runtime_table(fits: Mapping[str, pd.DataFrame]) -> pd.DataFrame:
    """MIPO-ARKEKF vs the hybrids: RMSE, time per run and M5's time saving vs each (§3.2.2)."""
    t5 = float(fits["mipo_arkekf"]["time_s"].mean())
    p5 = paper.TIME_S["MIPO-ARKEKF"]
    rows = []
    for ident in HYBRIDS:
        f = fits[ident]
        t = float(f["time_s"].mean())
        label = LABELS[ident]
        pt = paper.TIME_S[label]
        rows.append(
            {
                "method": _method(label, f),
                "rmse_mm": float(f["val_rmse_mm"].mean()),
                "rmse_mm_sd": _sd(f["val_rmse_mm"]),
                "time_s": t,
                "time_s_sd": _sd(f["time_s"]),
                "m5_time_saving_pct": 100.0 * (t - t5) / t,
                "paper_rmse_mm": _num(paper.ACCURACY[label]["rmse"][0]),
                "paper_time_s": pt,
                "paper_m5_time_saving_pct": 100.0 * (pt - p5) / pt,
            }
        )
    return pd.DataFrame(rows)


def table8(fits: Mapping[str, pd.DataFrame], *, n_boot: int = 10_000) -> pd.DataFrame:
    """Table 8: validation RMSE of M5 against BC, M1-M4 and the hybrids over the runs.

    ``mean_diff_mm`` = mean(other) - mean(M5) (the paper's sign), ``student_t``/``student_p``
    the independent-samples (pooled-variance) t-test the paper uses, ``significant`` =
    student_p < 0.05; then every column of :func:`paramid.stats.comparison_table` for the
    pairs (M5, other): Welch t, Mann-Whitney U, their Holm-adjusted p-values over the seven
    comparisons, Hedges g, Cliff's delta and a bootstrap CI of the median difference.
    """
    others = [i for i in TABLE7 if i != "mipo_arkekf"]
    groups = {TABLE7_NAMES[i]: fits[i]["val_rmse_mm"].to_numpy(np.float64) for i in TABLE7}
    pairs = [("M5", TABLE7_NAMES[i]) for i in others]
    comp = comparison_table(groups, pairs, n_boot=n_boot, seed_keys=("kr210", "table8"))
    m5 = groups["M5"]
    rows = []
    for ident in others:
        name = TABLE7_NAMES[ident]
        b = groups[name]
        with np.errstate(all="ignore"):
            student = sps.ttest_ind(b, m5, equal_var=True)
        diff, p_text = paper.TABLE8[name]
        rows.append(
            {
                "comparison": f"M5 vs {name}",
                "mean_diff_mm": float(b.mean() - m5.mean()),
                "student_t": float(student.statistic),
                "student_p": float(student.pvalue),
                "significant": bool(student.pvalue < 0.05),
                "paper_mean_diff_mm": diff,
                "paper_p": p_text,
            }
        )
    return pd.concat([pd.DataFrame(rows), comp], axis=1)


def parameter_recovery(
    fits: Mapping[str, pd.DataFrame], problem: Problem, errors: Sequence[float]
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Identified errors vs the twin's truth, in the identified subset.

    The reference is :func:`paramid.calibration.problem.truth_equivalent` (the subset vector that
    reproduces the true position errors best).  Returns a long frame (method, parameter,
    unit, truth_equivalent, mean estimate, bias, RMS error over runs) and a summary per method
    (RMS error over parameters and runs, angles in urad and lengths in um).
    """
    ref = truth_equivalent(problem, errors)
    names = kin.parameter_names()
    units = kin.parameter_units()
    angle = kin.is_angle()[problem.free]
    long_rows, summary = [], []
    for ident, f in fits.items():
        x = estimates(f, problem.free)
        err = x - ref
        for k, i in enumerate(problem.free):
            long_rows.append(
                {
                    "method": LABELS[ident],
                    "parameter": names[i],
                    "unit": units[names[i]],
                    "truth_equivalent": ref[k],
                    "estimate_mean": float(x[:, k].mean()),
                    "bias": float(err[:, k].mean()),
                    "rms_error": float(np.sqrt(np.mean(err[:, k] ** 2))),
                }
            )
        summary.append(
            {
                "method": LABELS[ident],
                "angle_rms_error_urad": 1e6 * float(np.sqrt(np.mean(err[:, angle] ** 2))),
                "length_rms_error_um": 1e3 * float(np.sqrt(np.mean(err[:, ~angle] ** 2))),
            }
        )
    return pd.DataFrame(long_rows), pd.DataFrame(summary)
