"""Rule robot_tables: validation RMSE per method (and published model), record and joint
(against the torque as recorded; split at the low-pass cutoff), base parameters with standard
errors, the per-link consistency report, the prior weight's cross-validation curve and the
fits' warnings, with the predictions worse than no torque at all."""

from paramid import io
from paramid.robot import study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_tables")
    urdf = io.read_urdf(cfg["robot"]["urdf"])
    robot = study.robot_of(cfg["robot"], urdf)
    stages = [*smk.input.records, smk.input.compressed]  # what the records' stages warned of
    tables = study.study_tables(
        robot,
        urdf,
        study.base_from_json(io.read_json(smk.input.base)),
        {m: io.read_parquet(p) for m, p in zip(cfg["methods"], smk.input.fits, strict=True)},
        {m: io.read_parquet(p) for m, p in zip(cfg["rows"], smk.input.predictions, strict=True)},
        [io.read_parquet_metadata(path) for path in stages],
    )
    io.write_csv(tables.validation, smk.output.validation)
    io.write_csv(tables.parameters, smk.output.parameters)
    io.write_csv(tables.consistency, smk.output.consistency)
    io.write_csv(tables.regularisation, smk.output.regularisation)
    io.write_csv(tables.warnings, smk.output.warnings)
    for text in tables.warnings_to_log:
        log.warning(text)
    log.info(
        "mean validation RMSE [%s] by method: %s",
        tables.torque_unit,
        tables.mean_rmse().round(4).to_dict(),
    )
    log.info("links with an indefinite pseudo-inertia: %s", tables.indefinite_links())


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
