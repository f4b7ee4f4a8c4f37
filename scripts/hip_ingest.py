"""Rule hip_ingest: one measured record, validated, in SI units on a uniform time grid."""

from paramid import ingest, io, plausibility


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_ingest")
    spec = cfg["spec"]
    table = io.read_record(spec)
    record, rest = ingest.configured_record(
        table, spec, cfg["ingest"]["max_jitter"], drop_rest=cfg["drop_rest"]
    )
    if any(rest):
        log.warning("%s", plausibility.rest_warning(cfg["record"], rest))
    lines = ingest.lines_of(table)
    if repeated := ingest.repeat_note(
        record.repeats_dropped, record.repeat_row, lines, cfg["record"]
    ):
        log.warning("%s", repeated)
    frame, units = record.table()
    meta = io.provenance(
        cfg,
        smk.input,
        stage="hip_ingest",
        source_file=str(smk.input[0]),
        original_rate_hz=record.sample_rate_hz,
        trim_s=[spec["trim_start_s"], spec["trim_end_s"]],
        rest_dropped_s=list(rest),
        rows_trimmed=record.rows_trimmed,
        start_in_file_s=record.start_in_file_s,  # the file's time at time 0: file = time + it
        jitter=record.jitter,
        resampled=record.resampled,
        resampling="linear interpolation onto t0 + k / f_s, f_s = 1 / median interval"
        if record.resampled
        else "none (uniform time stamps)",
    )
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info(
        "%s: %d samples at %.4g Hz (%d rows trimmed), jitter %.3g of the interval, resampled=%s",
        smk.input[0],
        len(frame),
        record.sample_rate_hz,
        record.rows_trimmed,
        record.jitter,
        record.resampled,
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
