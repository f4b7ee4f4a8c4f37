"""Rules sweep_point, sweep_cutoff (one value of a Figure 4 sweep) and sweep_single (a whole §5.3
sweep and its table): the fits behind a sensitivity sweep (§4.5, §5.3)."""

from pathlib import Path

import numpy as np
import pandas as pd

from paramid import io, signals
from paramid.hip import pipeline, sweeps


def _regression(smk, keys) -> pipeline.Regression:
    H, y, frame = io.read_regression(smk.input.calibration, keys)
    Hv, yv, _ = io.read_regression(smk.input.validation, keys)
    return pipeline.Regression(H, y, Hv, yv, signals.sample_rate(frame["time"].to_numpy()))


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], f"sweep_{cfg['sweep']}")
    settings, block, sweep, study = cfg["settings"], cfg["sweep_config"], cfg["sweep"], cfg["study"]
    if sweep == "cutoff_hz" and "twin" in settings:
        seeds = settings["twin"]["seed"] + np.arange(block["twin_seeds"])
        frame = sweeps.cutoff_point(settings, float(cfg["value"]), seeds.tolist())
    elif sweep == "cutoff_hz":  # a measured study: its own record pair
        records = {}
        for name in ("calibration", "validation"):
            raw, _ = io.read_parquet(smk.input[name])
            records[name] = tuple(raw[c].to_numpy() for c in ("time", "angle", "torque"))
        frame = sweeps.measured_cutoff_point(records, settings, float(cfg["value"]))
    elif sweep == "agwo_grid":
        frame = sweeps.agwo_grid(
            _regression(smk, settings["regressor"]),
            settings,
            study,
            block["mu_base"],
            block["kappa"],
        )
    elif sweep == "leave_one_trajectory_out":
        frame = sweeps.leave_one_trajectory_out(
            _regression(smk, settings["regressor"]), settings, study, block["methods"]
        )
    elif sweep in ("forgetting", "population"):
        frame = sweeps.value_sweep(
            sweep,
            block["values"],
            _regression(smk, settings["regressor"]),
            settings,
            study,
            block["methods"],
        )
    else:
        frame = sweeps.sweep_point(
            sweep,
            float(cfg["value"]),
            _regression(smk, settings["regressor"]),
            settings,
            study,
            block["methods"],
        )
    if cfg["value"] is not None:
        frame.insert(0, "value", float(cfg["value"]))
    units = {c: "1" for c in frame.columns} | {"train_rmse": "N m", "val_rmse": "N m"}
    io.write_parquet(
        frame, smk.output.points, units=units, meta=io.provenance(cfg, smk.input, stage="sweep")
    )
    log.info("%s %s: %d rows", sweep, cfg["value"], len(frame))
    if "csv" in smk.output.keys():  # a whole §5.3 sweep: its table too
        reference = None
        if smk.input.fits:
            fits = [io.read_parquet(p)[0].assign(method=Path(p).stem) for p in smk.input.fits]
            reference = pd.concat(fits, ignore_index=True)
        table = sweeps.sweep_table(sweep, frame, cfg["default"], study, reference)
        io.write_csv(table, smk.output.csv)
        caption = sweeps.sweep_caption(sweep, study)
        io.write_markdown(table, smk.output.md, caption=caption)


main(snakemake)  # noqa: F821
