"""Result frames and Tables 6-9 of the KR210 calibration study, beside the paper's values.

Fit frames (one per identifier, one row per run): ``run``, ``seed``, the identified errors
``de_<parameter>`` for all 24 parameters of Eq 6 (0 for those not identified), Eq 45 metrics
on the training and validation points (``train_mean_mm`` ... ``val_max_mm``), ``time_s``,
``n_evals`` and identifier-specific columns (e.g. the tuned factors).  History frames:
``run``, ``iteration``, ``train_rmse_mm``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration import paper
from paramid.calibration.identify import IDENTIFIERS, LABELS, Fit
from paramid.calibration.problem import Problem, metrics, truth_equivalent

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
#: Rows of Table 6 (ablation), Table 7 (all models) and Table 9 (polishing path: the Table 7
#: rows that the identifier registry marks as polishing rows).
TABLE6: list[str] = ["ekf", "ekf_gsbise", "ekf_mipo", "mipo_arkekf"]
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
        frame[key] = np.asarray(values, dtype=np.float64)
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
        row: dict[str, object] = {"method": names[ident], "identifier": ident, "runs": len(f)}
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
                "method": label,
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
