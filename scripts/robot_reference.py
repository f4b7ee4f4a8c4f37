"""Rule robot_reference: a published or maker's model as a row of the validation table: the
rigid body of its URDF with friction fitted on the calibration records (the study's Coulomb law
per joint), predicting every validation record."""

from paramid import io
from paramid.robot import study


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
    records = {
        name: study.signals_of(*io.read_parquet(path), joints)
        for name, path in zip(cfg["records"], smk.input.validation, strict=True)
    }
    predicted = study.predict_records(robot, records, theta)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="robot_reference",
        urdf=cfg["robot"]["urdf"],
        records=predicted.bands,
    )
    io.write_parquet(predicted.frame, smk.output[0], units=predicted.units, meta=meta)
    log.info("reference %s: %d validation samples", cfg["reference"], len(predicted.frame))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
