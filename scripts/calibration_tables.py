"""Rule calibration_tables: Tables 6-7 (with the complete models' rows), the model comparison,
the hybrid runtime comparison and parameter recovery."""

from pathlib import Path

import numpy as np
import pandas as pd

from paramid import io
from paramid.calibration import report


def _write(frame, csv, md, caption) -> None:
    io.write_csv(frame, csv)
    io.write_markdown(frame, md, caption=caption)


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_tables")
    by_model: dict[str, dict[str, pd.DataFrame]] = {}
    for path in map(Path, smk.input.fits):
        by_model.setdefault(path.parent.name, {})[path.stem] = io.read_parquet(path)[0]
    fits = by_model["paper"]
    runs = list(range(cfg["runs"]))
    problems, frame, truth, _ = report.load_problems(
        smk.input.data, smk.input.truth, smk.input.ident, "paper", runs
    )
    floor = report.noise_floor(frame)
    out = smk.output
    rows6 = report.TABLE6 + [i for i in report.TABLE6_SEQUENTIAL if i in fits]
    t6 = report.accuracy_table(fits, rows6).assign(model="paper")
    t7 = report.accuracy_table(fits, report.TABLE7, names=report.TABLE7_NAMES)
    t7 = pd.concat(
        [t7.assign(model="paper"), report.model_rows(by_model, floor)], ignore_index=True
    )
    models = report.model_comparison(by_model, floor, n_boot=cfg["n_boot"])
    hyb = report.hybrid_runtime_table(fits)
    true_positions = []
    for run in runs:
        sub = frame[
            (frame["repeat"] == report.dataset_of(run, truth)) & (frame["split"] == "train")
        ]
        sub = sub.sort_values("design_order")
        true_positions.append(sub[["x_true", "y_true", "z_true"]].to_numpy(np.float64))
    recovery, summary = report.parameter_recovery(fits, problems, true_positions)
    study = cfg["study"]
    _write(t6, out.table6, out.table6_md, f"Table 6 ({study}): ablation, validation errors [mm]")
    _write(
        t7,
        out.table7,
        out.table7_md,
        f"Table 7 ({study}): all methods and models, validation errors [mm]; tracker noise "
        f"floor {floor:.4f} mm",
    )
    _write(
        models,
        out.models,
        out.models_md,
        f"Models ({study}): each identifier on the complete models vs the paper's 24-parameter "
        "model, paired by repeat [mm]",
    )
    _write(hyb, out.hybrid, out.hybrid_md, f"Hybrid comparison ({study}): RMSE [mm], time [s]")
    io.write_csv(recovery, out.recovery)
    _write(
        summary,
        out.recovery_summary,
        out.recovery_summary_md,
        f"Parameter recovery ({study}): RMS error vs the twin's truth-equivalent subset",
    )
    for row in t7.itertuples():
        log.info(
            "%s: RMSE %.5f +- %.5f mm, %.3f s", row.method, row.rmse_mm, row.rmse_mm_sd, row.time_s
        )


main(snakemake)  # noqa: F821
