"""Rule hip_signals: filter, differentiate and trim one record; add the regressor columns (Eq 6).
A calibration record that leaves parameters loose, and a validation record holding less than
one back-and-forth of the joint, are warned about once, here, in the log and the file's
metadata."""

from paramid import io
from paramid.hip import pipeline


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_signals")
    raw, _ = io.read_parquet(smk.input.record)
    cutoff = cfg["signals"]["cutoff_hz"]
    if cutoff == "auto":  # chosen on the calibration record (rule hip_cutoff)
        cutoff = io.read_json(smk.input.cutoff[0])["chosen_hz"]
    out = pipeline.process(
        raw["time"].to_numpy(),
        raw["angle"].to_numpy(),
        raw["torque"].to_numpy(),
        cfg["signals"],
        float(cutoff),
    )
    validation = smk.wildcards.record == "validation"
    table = pipeline.signals_table(out, cfg["regressor"], cfg["gravity"], validation)
    coverage, loose = table.coverage_warning, table.precision_warning
    meta = io.provenance(
        cfg,
        smk.input,
        stage="hip_signals",
        condition_number=table.condition_number,
        cutoff_hz=float(cutoff),
        coverage_warning=coverage or "",
        precision_warning=loose or "",
    )
    io.write_parquet(table.frame, smk.output[0], units=table.units, meta=meta)
    log.info(
        "%d samples kept; cutoff %g Hz; cond(H) = %.1f",
        len(table.frame),
        cutoff,
        table.condition_number,
    )
    for warning in (coverage, loose):
        if warning:
            log.warning("%s: %s", smk.input.record, warning)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
