"""Rule robot_reference: a published or maker's model as a row of the validation table: the
rigid body of its URDF with friction fitted on the calibration records (the study's Coulomb law
per joint), predicting every validation record."""

from paramid import io
from paramid.robot import model, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_reference")
    joints = cfg["robot"]["joints"]
    choice = io.read_json(smk.input.friction)
    calibration = [study.signals_of(*io.read_parquet(p), joints) for p in smk.input.calibration]
    robot, theta = study.reference_model(
        cfg["robot"],
        io.read_urdf(cfg["robot"]["urdf"]),
        choice,
        calibration,
        cfg["base"]["rel_tol"],
    )
    parts = {}
    for name, path in zip(cfg["records"], smk.input.validation, strict=True):
        part = study.signals_of(*io.read_parquet(path), joints)
        parts[name] = (part, study.predict(robot, part, theta))
    frame, units = study.prediction_frame(joints, parts, model.joint_units(robot))
    meta = io.provenance(
        cfg,
        smk.input,
        stage="robot_reference",
        urdf=cfg["robot"]["urdf"],
        records=study.record_bands(parts),
    )
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info("reference %s: %d validation samples", cfg["reference"], len(frame))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
