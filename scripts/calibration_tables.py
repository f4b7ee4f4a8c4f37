"""Rule calibration_tables: Tables 6-7, the hybrid runtime comparison and parameter recovery."""

from pathlib import Path

from paramid import io
from paramid.calibration import report


def _write(frame, csv, md, caption) -> None:
    io.write_csv(frame, csv)
    io.write_markdown(frame, md, caption=caption)


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_tables")
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    problem, _, truth, _ = report.load_problem(smk.input.data, smk.input.truth, smk.input.ident)
    out = smk.output
    t6 = report.accuracy_table(fits, report.TABLE6)
    t7 = report.accuracy_table(fits, report.TABLE7, names=report.TABLE7_NAMES)
    hyb = report.hybrid_runtime_table(fits)
    recovery, summary = report.parameter_recovery(fits, problem, truth["errors"])
    study = cfg["study"]
    _write(t6, out.table6, out.table6_md, f"Table 6 ({study}): ablation, validation errors [mm]")
    _write(t7, out.table7, out.table7_md, f"Table 7 ({study}): all models, validation errors [mm]")
    _write(hyb, out.hybrid, out.hybrid_md, f"Hybrid comparison ({study}): RMSE [mm], time [s]")
    io.write_csv(recovery, out.recovery)
    _write(
        summary,
        out.recovery_summary,
        out.recovery_summary_md,
        f"Parameter recovery ({study}): RMS error vs the twin's truth",
    )
    for row in t7.itertuples():
        log.info(
            "%s: RMSE %.5f +- %.5f mm, %.3f s", row.method, row.rmse_mm, row.rmse_mm_sd, row.time_s
        )


main(snakemake)  # noqa: F821
