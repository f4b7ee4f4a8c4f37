"""Rule hip_cutoff: the low-pass cutoff of a study chosen on its calibration record by blocked
cross-validation of the LS fit (signals.cutoff_hz: auto; paramid.cutoff)."""

from paramid import cutoff, io, signals
from paramid.hip import pipeline


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_cutoff")
    s = cfg["signals"]
    record, _ = io.read_parquet(smk.input.calibration)
    validation, _ = io.read_parquet(smk.input.validation)
    rates = [signals.sample_rate(f["time"].to_numpy()) for f in (record, validation)]
    candidates = cutoff.usable_candidates(s["cutoff_candidates_hz"], rates)
    time, angle, torque = (record[c].to_numpy() for c in ("time", "angle", "torque"))
    choice = pipeline.choose_cutoff(
        time, angle, torque, cfg["regressor"], cfg["gravity"], s, candidates, s["cv_blocks"]
    )
    meta = io.provenance(cfg, smk.input, stage="hip_cutoff")
    io.write_json({**choice.summary(), "provenance": meta}, smk.output.choice)
    table = choice.table()
    io.write_csv(table, smk.output.csv)
    caption = (
        f"Cutoff of {cfg['study']}: blocked {choice.blocks}-fold CV RMSE [N m] of the LS fit on "
        f"the calibration record per candidate; chosen {choice.chosen_hz:g} Hz"
    )
    io.write_markdown(table, smk.output.md, caption=caption)
    log.info("chosen cutoff %g Hz (CV RMSE %.5f N m)", choice.chosen_hz, choice.cv_rmse.min())


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
