"""Rule calibration_identify: one identifier on one model, each run on its own data set (§3.2,
Tables 6-7)."""

from paramid import io
from paramid.calibration import report
from paramid.calibration.identify import identify_runs, run_timing


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], f"calibration_identify_{cfg['model']}_{cfg['identifier']}")
    runs = list(range(cfg["runs"]))
    free = io.read_json(smk.input.ident)[cfg["model"]]["free"]
    data, truth = io.read_parquet(smk.input.data)[0], io.read_json(smk.input.truth)
    problems = report.run_problems(data, truth, free, runs)
    fit = identify_runs(cfg["identifier"], problems, cfg, study=cfg["study"], runs=runs)
    frame = report.fit_frame(fit, problems, runs)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="calibration_identify",
        seed_stream=[cfg["study"], cfg["identifier"], "<run>"],
        eq28_stream=[cfg["study"], "eq28", "<run>"],
        timing=run_timing(cfg["identifier"]),
    )
    io.write_parquet(
        frame,
        smk.output.fit,
        units=report.fit_units(frame),
        meta=meta,
        nondeterministic_columns=["time_s"],
    )
    history = report.history_frame(fit, runs)
    io.write_parquet(
        history,
        smk.output.history,
        units={"run": "1", "iteration": "1", "train_rmse_mm": "mm"},
        meta=meta,
    )
    summary = report.fit_summary(frame)
    log.info(
        "%s on %s: validation RMSE %.5f +- %.5f mm, %.3f +- %.3f s per run",
        cfg["identifier"],
        cfg["model"],
        summary["val_rmse_mm_mean"],
        summary["val_rmse_mm_sd"],
        summary["time_s_mean"],
        summary["time_s_sd"],
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
