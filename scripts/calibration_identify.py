"""Rule calibrate: all runs of one identifier, batched, on the twin's data (§3.2, Tables 6-7)."""

from paramid import io
from paramid.calibration import report
from paramid.calibration.identify import identify


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], f"calibrate_{cfg['identifier']}")
    problem, _, _, _ = report.load_problem(smk.input.data, smk.input.truth, smk.input.ident)
    runs = list(range(cfg["runs"]))
    fit = identify(cfg["identifier"], problem, cfg, study=cfg["study"], runs=runs)
    frame = report.fit_frame(fit, problem, runs)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="calibrate",
        seed_stream=[cfg["study"], cfg["identifier"], "<run>"],
        eq28_stream=[cfg["study"], "eq28", "<run>"],
        timing="wall time of the batched call divided by the number of runs",
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
    log.info(
        "%s: validation RMSE %.5f +- %.5f mm, %.3f s per run",
        cfg["identifier"],
        frame["val_rmse_mm"].mean(),
        frame["val_rmse_mm"].std(ddof=1) if len(frame) > 1 else 0.0,
        frame["time_s"].mean(),
    )


main(snakemake)  # noqa: F821
