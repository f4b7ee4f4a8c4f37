"""Rule robot_cutoff: the `auto` low-pass cutoff of a multi-joint study (blocked CV of the OLS
fit on the stacked regressor of the calibration records)."""

from paramid import io
from paramid.robot import model, records, signals, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_cutoff")
    robot = study.robot_of(cfg["robot"])
    joints = robot.joints
    loaded = [records.load_record(path, joints) for path in smk.input.records]
    choice = signals.choose_cutoff(
        loaded,
        cfg["signals"],
        lambda q, dq, ddq: model.regressor(robot, q, dq, ddq),
        cfg["signals"]["cutoff_candidates_hz"],
        cfg["signals"]["cv_blocks"],
    )
    summary = {
        "chosen_hz": choice.chosen_hz,
        "candidates_hz": choice.candidates_hz.tolist(),
        "cv_rmse": choice.cv_rmse.tolist(),
        "rule": choice.rule,
        "provenance": io.provenance(cfg, smk.input, stage="robot_cutoff"),
    }
    io.write_json(summary, smk.output[0])
    log.info("cutoff %.4g Hz (%s)", choice.chosen_hz, choice.rule)


main(snakemake)  # noqa: F821
