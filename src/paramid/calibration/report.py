"""Result frames and Tables 6-9 of the KR210 calibration study, beside the paper's values.

Fit frames (one per identifier, one row per run): ``run``, ``seed``, the identified errors
``de_<parameter>`` for all 24 parameters of Eq 6 (0 for those not identified), Eq 45 metrics
on the training and validation points (``train_mean_mm`` ... ``val_max_mm``), ``time_s``,
``n_evals`` and identifier-specific columns (e.g. the tuned factors, ``diverged``, and
``tuning_fitness``: the Eq 29 fitness the factors were tuned on).  History frames:
``run``, ``iteration``, ``train_rmse_mm``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from paramid import stats
from paramid.calibration import model
from paramid.calibration.identify import LABELS, Fit
from paramid.calibration.paper import (
    HYBRIDS,
    METRICS,
    TABLE6,
    TABLE6_SEQUENTIAL,
    TABLE7,
    TABLE7_NAMES,
    PrintedValues,
)
from paramid.calibration.problem import Problem, metrics, truth_equivalent

__all__ = [
    "dataset_of",
    "fit_frame",
    "fits_by_model",
    "study_tables",
    "table_captions",
    "train_positions",
    "run_problems",
    "model_comparison",
    "model_label",
    "model_rows",
    "noise_floor",
    "fit_units",
    "fit_summary",
    "history_frame",
    "estimates",
    "accuracy_table",
    "hybrid_runtime_table",
    "parameter_recovery",
]


def dataset_of(run: int, truth: Mapping) -> int:
    """The data set of a run: its own with ``vary_data``, else the single shared one."""
    return int(run) % int(truth.get("n_datasets", 1))


def fits_by_model(
    frames: Mapping[str | os.PathLike, pd.DataFrame],
) -> dict[str, dict[str, pd.DataFrame]]:
    """Fit frames keyed by their paths (``.../fits/<model>/<identifier>.parquet``) as
    ``{model: {identifier: frame}}``, both in the order the paths come."""
    out: dict[str, dict[str, pd.DataFrame]] = {}
    for path, frame in frames.items():
        out.setdefault(Path(path).parent.name, {})[Path(path).stem] = frame
    return out


def run_problems(
    frame: pd.DataFrame, truth: Mapping, free: Sequence[int], runs: Sequence[int]
) -> list[Problem]:
    """One calibration problem per run: its data set of ``frame`` (the twin's data) and the
    model's identified subset ``free`` (its identifiability entry), with the nominal table and
    tool of ``truth``."""
    return [
        Problem.from_frame(
            frame, truth["nominal"], truth["tool_mm"], free, repeat=dataset_of(run, truth)
        )
        for run in runs
    ]


def fit_frame(fit: Fit, problems: Sequence[Problem], runs: Sequence[int]) -> pd.DataFrame:
    """The per-run frame of one identifier (see the module docstring)."""
    frame = pd.DataFrame({"run": np.asarray(runs, dtype=np.int64)})
    frame["seed"] = frame["run"]
    free = problems[0].free
    de = np.zeros((len(runs), model.N_EXTENDED))
    de[:, free] = fit.x
    for j, name in enumerate(model.parameter_names()):
        frame[f"de_{name}"] = de[:, j]
    for split, tag in (("train", "train"), ("validation", "val")):
        values = [metrics(p.distances(x, split)) for p, x in zip(problems, fit.x, strict=True)]
        for key in METRICS:
            frame[f"{tag}_{key}_mm"] = [float(v[key]) for v in values]
    frame["time_s"] = fit.time_s
    frame["n_evals"] = fit.n_evals.astype(np.int64)
    for key, values in fit.info.items():
        values = np.asarray(values)
        frame[key] = values if values.dtype.kind in "bUO" else values.astype(np.float64)
    return frame


def fit_units(frame: pd.DataFrame) -> dict[str, str]:
    """Units of a fit frame's columns."""
    units = {"run": "1", "seed": "1", "time_s": "s", "n_evals": "1"}
    units |= {f"de_{k}": v for k, v in model.parameter_units().items()}
    units |= {c: "mm" for c in frame.columns if c.endswith("_mm")}
    units |= {"alpha": "1", "beta": "1", "gamma": "1", "lambda": "1"}
    return {c: units.get(c, "1") for c in frame.columns}


def fit_summary(frame: pd.DataFrame) -> dict[str, float]:
    """Mean and SD over runs (ddof=1; 0 for a single run) of one identifier's validation RMSE
    [mm] and time per run [s] (:func:`fit_frame`), the spread of Tables 6-7: keys
    ``val_rmse_mm_mean``, ``val_rmse_mm_sd``, ``time_s_mean``, ``time_s_sd``."""
    summary = {}
    for column in ("val_rmse_mm", "time_s"):
        values = frame[column]
        summary[f"{column}_mean"] = float(values.mean())
        summary[f"{column}_sd"] = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return summary


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


def estimates(frame: pd.DataFrame, free: Sequence[int] | NDArray[np.integer]) -> np.ndarray:
    """Identified errors (runs, r) of the free parameters (extended indices), from a fit frame."""
    names = model.parameter_names()
    return frame[[f"de_{names[i]}" for i in free]].to_numpy(np.float64)


SURROGATE_MARK = " [linear-surrogate tuning]"


def _method(name: str, frame: pd.DataFrame) -> str:
    """A table row's method name, marked when its factors were tuned on the linear surrogate
    of Eq 29 rather than on the filter (``tuning.fitness``)."""
    surrogate = "tuning_fitness" in frame and (frame["tuning_fitness"] == "linear_surrogate").any()
    return f"{name}{SURROGATE_MARK}" if surrogate else name


def method_label(method: str) -> str:
    """The identifier's label of a table row's ``method``, without the surrogate mark (the
    key of its colour)."""
    return method.removesuffix(SURROGATE_MARK)


def _num(value: float | None) -> float:
    return float("nan") if value is None else float(value)


def accuracy_table(
    fits: Mapping[str, pd.DataFrame],
    rows: Sequence[str],
    printed: PrintedValues | None,
    *,
    names: Mapping[str, str] = LABELS,
) -> pd.DataFrame:
    """Validation MEAN / RMSE / MAX (mean and SD over runs), time per run, the paper's values.

    ``names`` maps identifiers to the ``method`` column (``LABELS`` for Table 6,
    ``TABLE7_NAMES`` for Table 7); the paper's values (``printed``; None: NaN, for rows of
    another model than the paper's) are looked up by ``LABELS``.
    """
    out = []
    for ident in rows:
        f = fits[ident]
        row: dict[str, object] = {"method": _method(names[ident], f), "identifier": ident}
        row["runs"] = len(f)
        for m in METRICS:
            row[f"{m}_mm"] = float(f[f"val_{m}_mm"].mean())
            row[f"{m}_mm_sd"] = stats.sd(f[f"val_{m}_mm"].dropna())
        row["time_s"] = float(f["time_s"].mean())
        row["time_s_sd"] = stats.sd(f["time_s"].dropna())
        row["diverged_runs"] = int(f["diverged"].sum()) if "diverged" in f else 0
        cells = printed.accuracy.get(LABELS[ident], {}) if printed else {}
        for m in METRICS:
            mean, sd = cells.get(m, (None, None))
            row[f"paper_{m}_mm"] = _num(mean)
            row[f"paper_{m}_mm_sd"] = _num(sd)
        row["paper_time_s"] = _num(printed.time_s.get(LABELS[ident]) if printed else None)
        out.append(row)
    return pd.DataFrame(out)


def hybrid_runtime_table(
    fits: Mapping[str, pd.DataFrame], printed: PrintedValues | None
) -> pd.DataFrame:
    """MIPO-ARKEKF vs the hybrids: RMSE, time per run and M5's time saving vs each (§3.2.2),
    beside the paper's ``printed`` ones (none for M5 against itself; None: NaN)."""
    t5 = float(fits["mipo_arkekf"]["time_s"].mean())
    rows = []
    for ident in HYBRIDS:
        f = fits[ident]
        t = float(f["time_s"].mean())
        label = LABELS[ident]
        rmse, time_s, saving = (
            (
                printed.accuracy[label]["rmse"][0],
                printed.time_s[label],
                printed.time_saving_pct.get(label),
            )
            if printed
            else (None, None, None)
        )
        rows.append(
            {
                "method": _method(label, f),
                "rmse_mm": float(f["val_rmse_mm"].mean()),
                "rmse_mm_sd": stats.sd(f["val_rmse_mm"].dropna()),
                "time_s": t,
                "time_s_sd": stats.sd(f["time_s"].dropna()),
                "time_s_min": float(f["time_s"].min()),
                "time_s_max": float(f["time_s"].max()),
                "m5_time_saving_pct": 100.0 * (t - t5) / t,
                "paper_rmse_mm": _num(rmse),
                "paper_time_s": _num(time_s),
                "paper_m5_time_saving_pct": _num(saving),
            }
        )
    return pd.DataFrame(rows)


def parameter_recovery(
    fits: Mapping[str, pd.DataFrame],
    problems: Sequence[Problem],
    true_positions: Sequence[np.ndarray],
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Identified parameters vs the twin's truth, in the identified subset, run by run.

    The reference of run r is :func:`paramid.calibration.problem.truth_equivalent` on its
    data set (the subset vector that reproduces its noise-free positions best).  Returns a
    long frame (method, parameter, unit, mean truth equivalent, mean estimate, bias, RMS error
    over runs) and a summary per method (RMS error over parameters and runs, angles in urad
    and lengths in um).
    """
    refs = np.stack([truth_equivalent(p, t) for p, t in zip(problems, true_positions, strict=True)])
    problem = problems[0]
    names, units, kinds = problem.names, model.parameter_units(), problem.kinds
    long_rows, summary = [], []
    for ident, f in fits.items():
        runs = f["run"].to_numpy()
        err = estimates(f, problem.free) - refs[runs]
        x = estimates(f, problem.free)
        for k, name in enumerate(names):
            long_rows.append(
                {
                    "method": LABELS[ident],
                    "parameter": name,
                    "unit": units[name],
                    "truth_equivalent": float(refs[runs, k].mean()),
                    "estimate_mean": float(x[:, k].mean()),
                    "bias": float(err[:, k].mean()),
                    "rms_error": float(np.sqrt(np.mean(err[:, k] ** 2))),
                }
            )
        summary.append(
            {
                "method": LABELS[ident],
                "angle_rms_error_urad": 1e6
                * float(np.sqrt(np.mean(err[:, kinds == "angle"] ** 2))),
                "length_rms_error_um": 1e3
                * float(np.sqrt(np.mean(err[:, kinds == "length"] ** 2))),
            }
        )
    return pd.DataFrame(long_rows), pd.DataFrame(summary)


def noise_floor(frame: pd.DataFrame) -> float:
    """RMSE [mm] of the tracker noise alone on the validation points: sqrt(mean 3 sigma^2)
    per data set (isotropic per-axis sigma), averaged over data sets."""
    val = frame[frame["split"] == "validation"]
    by_set = val.groupby("repeat" if "repeat" in val else np.zeros(len(val)))["sigma_mm"]
    return float(by_set.apply(lambda s: np.sqrt(3.0 * np.mean(s.to_numpy() ** 2))).mean())


def model_label(identifier: str, model_name: str) -> str:
    """Table 7 row name of an identifier on a model (the paper's names on the paper model)."""
    name = TABLE7_NAMES.get(identifier, LABELS[identifier])
    return name if model_name == "paper" else f"{name} [{model_name}]"


#: Table 7's columns that count repeats
COUNTS = ("runs", "diverged_runs")


def model_rows(fits: Mapping[str, Mapping[str, pd.DataFrame]], floor_mm: float) -> pd.DataFrame:
    """Table 7's rows beyond the paper's model: every identifier run on another model
    (``fits[model][identifier]``), then the tracker noise floor, with a ``model`` column."""
    parts = []
    for model_name, by_ident in fits.items():
        if model_name == "paper":
            continue
        names = {i: model_label(i, model_name) for i in by_ident}
        rows = accuracy_table(by_ident, list(by_ident), None, names=names)  # the paper's only
        parts.append(rows.assign(model=model_name))
    floor = pd.DataFrame(
        [
            {
                "method": "tracker noise floor",
                "identifier": "noise_floor",
                "model": "",
                "rmse_mm": floor_mm,
            }
        ]
    )
    rows = pd.concat([*parts, floor], ignore_index=True)
    # counts stay integers beside the floor's empty cells (not 10.0000 in table7.md)
    return rows.astype({c: "Int64" for c in COUNTS if c in rows})


def model_comparison(
    fits: Mapping[str, Mapping[str, pd.DataFrame]],
    floor_mm: float,
    *,
    study: str,
    n_boot: int = 10_000,
) -> pd.DataFrame:
    """Each identifier on every other model against itself on the paper's model, paired by
    repeat (same data): validation RMSE of both, the ratio of the paper model's RMSE to the
    noise floor, and :func:`paramid.stats.comparison_table`'s paired t / Wilcoxon with Holm
    over all rows; bootstrap streams (``study``, "models", ...)."""
    groups, pairs, rows = {}, [], []
    paper_fits = fits["paper"]
    for model_name, by_ident in fits.items():
        if model_name == "paper":
            continue
        for ident, f in by_ident.items():
            if ident not in paper_fits:
                continue
            base = paper_fits[ident].sort_values("run")
            other = f.sort_values("run")
            if not np.array_equal(base["run"].to_numpy(), other["run"].to_numpy()):
                raise ValueError(f"{ident}: runs of the {model_name} and paper fits differ")
            a, b = model_label(ident, model_name), model_label(ident, "paper")
            groups[a] = other["val_rmse_mm"].to_numpy(np.float64)
            groups[b] = base["val_rmse_mm"].to_numpy(np.float64)
            pairs.append((a, b))
            rows.append(
                {
                    "identifier": ident,
                    "model": model_name,
                    "rmse_mm": float(groups[a].mean()),
                    "paper_model_rmse_mm": float(groups[b].mean()),
                    "paper_model_over_noise_floor": float(groups[b].mean() / floor_mm),
                    "model_over_noise_floor": float(groups[a].mean() / floor_mm),
                }
            )
    comp = stats.comparison_table(
        groups, pairs, paired=True, n_boot=n_boot, seed_keys=(study, "models")
    )
    return pd.concat([pd.DataFrame(rows), comp], axis=1)


def train_positions(frame: pd.DataFrame, truth: Mapping, runs: Sequence[int]) -> list[np.ndarray]:
    """The true (noise-free) positions (n, 3) [mm] of each run's training points, in design
    order, from its data set (:func:`dataset_of`) of the twin's data frame."""
    out = []
    for run in runs:
        sub = frame[(frame["repeat"] == dataset_of(run, truth)) & (frame["split"] == "train")]
        sub = sub.sort_values("design_order")
        out.append(sub[["x_true", "y_true", "z_true"]].to_numpy(np.float64))
    return out


def study_tables(
    fits: Mapping[str, Mapping[str, pd.DataFrame]],
    problems: Sequence[Problem],
    frame: pd.DataFrame,
    truth: Mapping,
    printed: PrintedValues | None,
    *,
    study: str,
    n_boot: int,
) -> dict[str, pd.DataFrame]:
    """Every table of the study but Tables 8-9, from the fits ``fits[model][identifier]`` and
    the paper model's ``problems`` (one per run), beside the paper's ``printed`` values (None:
    NaN):
    ``table6`` (ablation, with the sequential rows that ran), ``table7`` (all methods, the
    other models' rows and the noise floor),
    ``models`` (:func:`model_comparison`), ``hybrid`` (:func:`hybrid_runtime_table`),
    ``recovery`` and ``recovery_summary`` (:func:`parameter_recovery`)."""
    paper_fits = fits["paper"]
    floor = noise_floor(frame)
    rows6 = TABLE6 + [i for i in TABLE6_SEQUENTIAL if i in paper_fits]
    t7 = accuracy_table(paper_fits, TABLE7, printed, names=TABLE7_NAMES)
    runs = range(len(problems))
    recovery, summary = parameter_recovery(
        paper_fits, problems, train_positions(frame, truth, runs)
    )
    return {
        "table6": accuracy_table(paper_fits, rows6, printed).assign(model="paper"),
        "table7": pd.concat([t7.assign(model="paper"), model_rows(fits, floor)], ignore_index=True),
        "models": model_comparison(fits, floor, study=study, n_boot=n_boot),
        "hybrid": hybrid_runtime_table(paper_fits, printed),
        "recovery": recovery,
        "recovery_summary": summary,
    }


def table_captions(study: str, floor_mm: float) -> dict[str, str]:
    """The Markdown captions of :func:`study_tables`' tables (the long recovery table has none)."""
    return {
        "table6": f"Table 6 ({study}): ablation, validation errors [mm]",
        "table7": f"Table 7 ({study}): all methods and models, validation errors [mm]; tracker "
        f"noise floor {floor_mm:.4f} mm",
        "models": f"Models ({study}): each identifier on the complete models vs the paper's "
        "24-parameter model, paired by repeat [mm]",
        "hybrid": f"Hybrid comparison ({study}): RMSE [mm] and time of one calibration run [s], "
        "means over the repeats; paper_time_s is the paper's 'total computational time' "
        "(§3.2.2, Figure 12b), its results being means over its 10 runs (§3)",
        "recovery_summary": f"Parameter recovery ({study}): RMS error vs the twin's "
        "truth-equivalent subset",
    }
