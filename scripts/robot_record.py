"""Rule robot_record: one record of a multi-joint study, in SI units on a uniform grid (a joint
log validated and resampled, or a twin record simulated), as time, q_, dq_, tau_ per joint."""

from paramid import ingest, io, plausibility
from paramid.robot import model, records, study, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_record")
    spec, joints = cfg["spec"], cfg["robot"]["joints"]
    urdf = io.read_urdf(cfg["robot"]["urdf"])
    if "path" in spec:  # a joint log, trimmed at both ends (and of a long rest there)
        robot = study.log_robot(cfg["robot"], urdf)
        kinds = model.joint_kinds(robot)  # deg converts revolute joints; continuous unwrapped
        rec, rest = records.log_record(
            io.read_record(spec), spec, joints, kinds=kinds, drop_rest=cfg["drop_rest"]
        )
        warned = [plausibility.rest_warning(cfg["record"], rest)] if any(rest) else []
        if bridged := records.gap_warning(rec, cfg["record"]):
            warned.append(bridged)
        if repeated := ingest.repeat_note(
            rec.repeats_dropped, rec.repeat_row, rec.lines, cfg["record"]
        ):
            warned.append(repeated)
        for text in warned:
            log.warning("%s", text)
        extra = {"source_file": spec["path"], "original_rate_hz": rec.sample_rate_hz}
        extra |= {
            "jitter": rec.jitter,
            "resampled": rec.resampled,
            "rows_dropped": rec.rows_trimmed,
            "start_in_file_s": rec.start_in_file_s,  # the file's time at time 0: file = time + it
            "rest_dropped_s": list(rest),
            "warnings": warned,  # tables/warnings.csv repeats them
        }
    else:
        robot = study.robot_of(cfg["robot"], urdf)
        excitation = spec["excitation"]
        rec = twin.simulate_record(
            robot, cfg["twin"], excitation, spec["duration_s"], cfg["record"]
        )
        extra = {"twin": cfg["twin"], "excitation": excitation}
    channels = {"q": rec.q, "dq": rec.dq, "tau": rec.tau}
    frame, units = study.channel_frame(rec.time, channels, joints, model.joint_units(robot))
    meta = io.provenance(cfg, smk.input, stage="robot_record", **extra)
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info(
        "%s: %d samples, %d joints, %.4g s", cfg["record"], len(frame), len(joints), rec.time[-1]
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
