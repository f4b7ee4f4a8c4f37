"""Rule robot_tables: validation RMSE per method (and published model), record and joint
(against the torque as recorded; split at the low-pass cutoff), base parameters with standard
errors, the per-link consistency report, the prior weight's cross-validation curve and the
fits' warnings, with the predictions worse than no torque at all."""

from paramid import io
from paramid.robot import model, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_tables")
    urdf = io.read_urdf(cfg["robot"]["urdf"])
    robot = study.robot_of(cfg["robot"], urdf)
    base = study.base_from_json(io.read_json(smk.input.base))
    read = {m: io.read_parquet(p) for m, p in zip(cfg["methods"], smk.input.fits, strict=True)}
    fits = {m: frame for m, (frame, _) in read.items()}
    rows = {m: io.read_parquet(p) for m, p in zip(cfg["rows"], smk.input.predictions, strict=True)}
    predictions = {m: frame for m, (frame, _) in rows.items()}
    bands = {m: meta["records"] for m, (_, meta) in rows.items()}
    torque_units = [units["tau"] for units in model.joint_units(robot)]
    validation = study.validation_table(predictions, robot.joints, bands, torque_units)
    io.write_csv(validation, smk.output.validation)
    io.write_csv(study.parameters_table(fits, base), smk.output.parameters)
    consistency = study.consistency_table(fits, base, robot)
    io.write_csv(consistency, smk.output.consistency)
    curve = read["lmi"][1].get("curve") if "lmi" in read else None
    unit = model.torque_unit(torque_units)
    io.write_csv(study.regularisation_table(curve, unit), smk.output.regularisation)
    metas = {m: meta for m, (_, meta) in read.items()}
    stages = [*smk.input.records, smk.input.compressed]  # what the records' stages warned of
    noted = [text for path in stages for text in io.read_parquet_metadata(path).get("warnings", [])]
    placeholders = model.massless_inertias(robot, urdf)
    placeholders += study.hidden_mass_warnings(robot, base.tolerance)
    table = study.warnings_table(metas, validation, noted, placeholders)
    io.write_csv(table, smk.output.warnings)
    for text in [*placeholders, *study.extrapolation_warnings(validation).values()]:
        log.warning(text)
    summary = validation.groupby("method", sort=False)["rmse"].mean()
    log.info("mean validation RMSE [%s] by method: %s", unit, summary.round(4).to_dict())
    bad = consistency.loc[~consistency["consistent"], ["method", "link"]]
    log.info("links with an indefinite pseudo-inertia: %s", bad.values.tolist())


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
