"""Rule hip_sweep_value: one value of a Figure 4 sweep (§4.5): the bound margin (refits the
study's signals) or the filter cutoff (reruns the chain on every twin seed, or on a measured
study's two records)."""

from paramid import io, signals
from paramid.hip import pipeline, sweeps, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    settings, block, sweep, value = cfg["settings"], cfg["sweep_config"], cfg["sweep"], cfg["value"]
    log = io.start_log(smk.log[0], f"hip_sweep_{sweep}_{value}")
    if sweep == "margin":
        H, y, frame = io.read_regression(smk.input.calibration, settings["regressor"])
        H_val, y_val, _ = io.read_regression(smk.input.validation, settings["regressor"])
        rate = signals.sample_rate(frame["time"].to_numpy())
        data = pipeline.Regression(H, y, H_val, y_val, rate)
        points = sweeps.sweep_point(
            sweep, float(value), data, settings, cfg["study"], block["methods"]
        )
    elif "twin" in settings:
        seeds = twin.noise_seeds(settings["twin"], block["twin_seeds"])
        points = sweeps.cutoff_point(settings, float(value), seeds)
    else:  # a measured study: its own record pair
        records = {}
        for name in ("calibration", "validation"):
            raw, _ = io.read_parquet(smk.input[name])
            records[name] = tuple(raw[c].to_numpy() for c in ("time", "angle", "torque"))
        points = sweeps.measured_cutoff_point(records, settings, float(value))
    points.insert(0, "value", float(value))
    units = sweeps.point_units(points.columns, sweep)
    meta = io.provenance(cfg, smk.input, stage="hip_sweep_value")
    io.write_parquet(points, smk.output.points, units=units, meta=meta)
    log.info("%s %s: %d rows", sweep, value, len(points))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
