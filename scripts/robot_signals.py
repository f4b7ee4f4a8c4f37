"""Rule robot_signals: one record filtered, differentiated, trimmed and decimated per joint
(the hip chain, §4.1); the torque stays as recorded."""

from paramid import io
from paramid.robot import records, signals, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_signals")
    joints = cfg["joints"]
    cutoff = cfg["signals"]["cutoff_hz"]
    if cutoff == "auto":
        cutoff = io.read_json(smk.input.cutoff)["chosen_hz"]  # as the 1-DOF choice
    record = records.written_record(io.read_table(smk.input.record), smk.input.record, joints)
    part = signals.process_chosen(
        record, cfg["signals"], float(cutoff), cfg["study"], cfg["source"]
    )
    recorded = study.units_of(io.read_parquet_metadata(smk.input.record)["units"], joints)
    frame, units, sampling = study.signals_frame(part, joints, recorded)
    meta = io.provenance(cfg, smk.input, stage="robot_signals") | sampling
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info(
        "%d samples retained at %.4g Hz, cutoff %.4g Hz, %.3g s dropped at each end",
        part.time.size,
        part.sample_rate_hz,
        part.cutoff_hz,
        signals.end_trim_s(
            cfg["signals"]["trim_s"],
            part.cutoff_hz,
            record.sample_rate_hz,
            cfg["signals"]["filter_order"],
        ),
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
