"""Rule robot_compress: the calibration records' regressor (both Coulomb laws of every joint),
QR-compressed per joint and time segment, a chunk of samples at a time: every later stage of a
study reads the data through it, whatever the records' length."""

from paramid import io
from paramid.robot import study
from paramid.robot.model import extended_names


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_compress")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    parts = [study.signals_of(*io.read_parquet(path), robot.joints) for path in smk.input.signals]
    study.check_joints_move(robot, parts, cfg["study"])
    folds, gap_s = cfg["cv"]["folds"], cfg["cv"]["gap_s"]
    warned = study.compress_warnings(
        robot, parts, smk.input.signals, folds=folds, gap_s=gap_s, velocity=cfg["velocity_rad_s"]
    )
    for text in warned:
        log.warning("%s", text)
    data = study.compress_calibration(
        robot, parts, folds=folds, gap_s=gap_s, velocity=cfg["velocity_rad_s"]
    )
    frame, layout = study.compressed_frame(data, extended_names(robot))
    units = study.compressed_units(robot, layout["names"])
    meta = io.provenance(
        cfg,
        smk.input,
        stage="robot_compress",
        sample_rate_hz=parts[0].sample_rate_hz,
        warnings=warned,
        **layout,
    )
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info(
        "%d samples of %d records in %d segments, %d columns",
        data.total_samples,
        len(parts),
        data.blocks,
        len(layout["names"]),
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
