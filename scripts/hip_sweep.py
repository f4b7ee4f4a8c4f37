"""Rule hip_sweep: a whole §5.3 sweep (forgetting factor, population size, AGWO grid,
leave-one-trajectory-out) and its table (median, IQR, tests against the default)."""

from pathlib import Path

import pandas as pd

from paramid import io, signals
from paramid.hip import pipeline, sweeps


def main(smk) -> None:
    cfg = smk.params.cfg
    sweep, study, settings = cfg["sweep"], cfg["study"], cfg["settings"]
    log = io.start_log(smk.log[0], f"hip_sweep_{sweep}")
    H, y, frame = io.read_regression(smk.input.calibration, settings["regressor"])
    H_val, y_val, _ = io.read_regression(smk.input.validation, settings["regressor"])
    rate = signals.sample_rate(frame["time"].to_numpy())
    data = pipeline.Regression(H, y, H_val, y_val, rate)
    points = sweeps.whole_sweep(sweep, cfg["sweep_config"], data, settings, study)
    units = sweeps.point_units(points.columns)
    meta = io.provenance(cfg, smk.input, stage="hip_sweep")
    io.write_parquet(points, smk.output.points, units=units, meta=meta)
    fits = [io.read_parquet(p)[0].assign(method=Path(p).stem) for p in smk.input.fits]
    reference = pd.concat(fits, ignore_index=True) if fits else None
    measured = cfg["measured"]
    table = sweeps.sweep_table(sweep, points, cfg["default"], study, reference, measured)
    io.write_csv(table, smk.output.csv)
    caption = sweeps.sweep_caption(sweep, study, measured)
    io.write_markdown(table, smk.output.md, caption=caption)
    log.info("%s: %d points, %d table rows", sweep, len(points), len(table))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
