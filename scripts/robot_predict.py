"""Rule robot_predict: a method's torque on every validation record, beside the torque as
recorded (time, record, tau_meas_<joint>, tau_pred_<joint>)."""

import pandas as pd

from paramid import io
from paramid.robot import study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_predict")
    robot = study.robot_of(cfg["robot"])
    base = study.base_from_json(io.read_json(smk.input.base))
    beta, _ = study.fit_vectors(io.read_parquet(smk.input.fit)[0])
    frames, units = [], {"record": "-"}
    for name, path in zip(cfg["records"], smk.input.signals, strict=True):
        part = study.read_signals(path, robot.joints)
        channels = {"tau_meas": part.tau, "tau_pred": study.predict(robot, base, part, beta)}
        frame, frame_units = study.channel_frame(part.time, {}, robot.joints)
        for prefix, values in channels.items():
            for k, joint in enumerate(robot.joints):
                frame[f"{prefix}_{joint}"] = values[:, k]
                frame_units[f"{prefix}_{joint}"] = "N m"
        frames.append(frame.assign(record=name))
        units.update(frame_units)
    meta = io.provenance(cfg, smk.input, stage="robot_predict")
    io.write_parquet(pd.concat(frames, ignore_index=True), smk.output[0], units=units, meta=meta)
    log.info(
        "%s: %d validation samples in %d records", cfg["method"], sum(map(len, frames)), len(frames)
    )


main(snakemake)  # noqa: F821
