"""Rule robot_record: one record of a multi-joint study, in SI units on a uniform grid (a joint
log validated and resampled, or a twin record simulated), as time, q_, dq_, tau_ per joint."""

import numpy as np

from paramid import io
from paramid.robot import records, study, twin


def _measured(spec, joints):
    rec = records.load_record(
        spec["path"], joints, spec["columns"], spec["units"], spec["max_jitter"]
    )
    keep = (rec.time >= spec["trim_start_s"] - 1e-12) & (
        rec.time <= rec.time[-1] - spec["trim_end_s"] + 1e-12
    )
    meta = {
        "source_file": spec["path"],
        "original_rate_hz": rec.sample_rate_hz,
        "jitter": rec.jitter,
        "resampled": rec.resampled,
        "rows_dropped": int(np.sum(~keep)),
    }
    dq = None if rec.dq is None else rec.dq[keep]
    t = rec.time[keep] - rec.time[keep][0]
    return t, {"q": rec.q[keep], "dq": dq, "tau": rec.tau[keep]}, meta


def _twin(cfg, spec):
    robot = study.robot_of(cfg["robot"])
    settings = cfg["twin"]
    theta = twin.true_parameters(robot, settings["seed"], settings["inertia_spread"])
    excitation = spec["excitation"]
    trajectory = twin.excitation(
        robot,
        seed=excitation["seed"],
        order=excitation["order"],
        period_s=excitation["period_s"],
        amplitude_rad=excitation["amplitude_rad"],
        max_velocity_rad_s=excitation["max_velocity_rad_s"],
    )
    noise = dict(settings["noise"])
    if isinstance(noise["torque_noise_nm"], list):
        noise["torque_noise_nm"] = tuple(noise["torque_noise_nm"])
    rec = twin.simulate(
        robot,
        theta,
        trajectory,
        spec["duration_s"],
        settings["sample_rate_hz"],
        twin.TwinNoise(**noise),
        seed=settings["seed"],
        record=cfg["record"],
    )
    meta = {"twin": settings, "excitation": excitation}
    return rec.time, {"q": rec.q, "dq": rec.dq, "tau": rec.tau}, meta


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_record")
    spec, joints = cfg["spec"], cfg["robot"]["joints"]
    time, channels, extra = _measured(spec, joints) if "path" in spec else _twin(cfg, spec)
    frame, units = study.channel_frame(time, channels, joints)
    meta = io.provenance(cfg, smk.input, stage="robot_record", **extra)
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info("%s: %d samples, %d joints, %.4g s", cfg["record"], len(frame), len(joints), time[-1])


main(snakemake)  # noqa: F821
