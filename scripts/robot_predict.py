"""Rule robot_predict: a method's torque on every validation record, beside the torque as
recorded (time, record, tau_meas_<joint>, tau_pred_<joint>)."""

from paramid import io
from paramid.robot import study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_predict")
    robot = study.law_robot(
        study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"])),
        io.read_json(smk.input.friction),
    )
    base = study.base_from_json(io.read_json(smk.input.base))
    beta, _ = study.fit_vectors(io.read_parquet(smk.input.fit)[0])
    records = {
        name: study.signals_of(*io.read_parquet(path), robot.joints)
        for name, path in zip(cfg["records"], smk.input.signals, strict=True)
    }
    predicted = study.predict_records(robot, records, beta, base.independent)
    meta = io.provenance(cfg, smk.input, stage="robot_predict", records=predicted.bands)
    io.write_parquet(predicted.frame, smk.output[0], units=predicted.units, meta=meta)
    log.info(
        "%s: %d validation samples in %d records", cfg["method"], len(predicted.frame), len(records)
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
