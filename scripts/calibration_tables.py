"""Rule calibration_tables: Tables 6-7 (with the complete models' rows), the model comparison,
the hybrid runtime comparison and parameter recovery."""

from paramid import io
from paramid.calibration import paper, report


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_tables")
    fits = report.fits_by_model({p: io.read_parquet(p)[0] for p in smk.input.fits})
    frame, truth = io.read_parquet(smk.input.data)[0], io.read_json(smk.input.truth)
    free = io.read_json(smk.input.ident)["paper"]["free"]
    problems = report.run_problems(frame, truth, free, list(range(cfg["runs"])))
    printed = io.read_printed(smk.input.paper, paper.printed_values)
    tables = report.study_tables(
        fits, problems, frame, truth, printed, study=cfg["study"], n_boot=cfg["n_boot"]
    )
    for name, caption in report.table_captions(cfg["study"], report.noise_floor(frame)).items():
        io.write_csv(tables[name], smk.output[name])
        io.write_markdown(tables[name], smk.output[f"{name}_md"], caption=caption)
    io.write_csv(tables["recovery"], smk.output.recovery)
    for row in tables["table7"].itertuples():
        log.info(
            "%s: RMSE %.5f +- %.5f mm, %.3f s", row.method, row.rmse_mm, row.rmse_mm_sd, row.time_s
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
