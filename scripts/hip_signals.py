"""Rule hip_signals: filter, differentiate and trim one record; add the regressor columns (Eq 6).
A calibration record that leaves parameters loose, and a validation record holding less than
one back-and-forth of the joint, are warned about once, here, in the log and the file's
metadata."""

from paramid import estimators, io, plausibility, signals
from paramid.hip import model, pipeline


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
    H, _ = pipeline.regression(out, cfg["regressor"], cfg["gravity"])
    frame, units = out.frame(), dict(signals.PROCESSED_UNITS)
    for key, column in zip(cfg["regressor"], H.T, strict=True):
        frame[f"H_{key}"] = column
        units[f"H_{key}"] = model.COLUMNS[key].column_unit
    condition = estimators.condition_number(H)
    coverage = loose = None
    if smk.wildcards.record == "validation":
        coverage = plausibility.validation_coverage(out.qd, float(out.time[-1] - out.time[0]))
    else:
        names = model.parameter_names(cfg["regressor"])
        units_of = model.parameter_units(cfg["regressor"])
        loose = plausibility.loose_parameters(H, out.torque, names, units_of, out.qd, out.q)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="hip_signals",
        condition_number=condition,
        cutoff_hz=float(cutoff),
        coverage_warning=coverage or "",
        precision_warning=loose or "",
    )
    io.write_parquet(frame, smk.output[0], units=units, meta=meta)
    log.info("%d samples kept; cutoff %g Hz; cond(H) = %.1f", len(frame), cutoff, condition)
    for warning in (coverage, loose):
        if warning:
            log.warning("%s: %s", smk.input.record, warning)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
