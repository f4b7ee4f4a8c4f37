"""Rule robot_cutoff: the `auto` low-pass cutoff of a multi-joint study (blocked CV of the OLS
fit on the calibration records, the lowest candidate within one standard error of the best
that passes the motion's band; paramid.robot.signals.choose_cutoff)."""

from paramid import io
from paramid.robot import model, records, signals, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_cutoff")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    joints = robot.joints
    loaded = [
        records.written_record(io.read_table(path), path, joints) for path in smk.input.records
    ]
    choice = signals.choose_cutoff(
        loaded,
        cfg["signals"],
        lambda q, dq, ddq: model.regressor(robot, q, dq, ddq),
        cfg["signals"]["cutoff_candidates_hz"],
        cfg["cv"]["folds"],
    )
    meta = io.provenance(cfg, smk.input, stage="robot_cutoff")
    io.write_json({**choice.summary(), "provenance": meta}, smk.output[0])
    log.info("cutoff %.4g Hz (%s)", choice.chosen_hz, choice.rule)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
