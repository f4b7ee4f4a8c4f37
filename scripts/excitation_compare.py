"""Rule excitation_compare: paper Eq 18 vs the designed excitation (one period, and P
periods averaged) on the hip twin, over the configured noise seeds, scored on Eq 19."""

import dataclasses

import numpy as np
import pandas as pd

from paramid import io, simulation
from paramid.excitation import fourier, hip
from paramid.hip import model, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_compare")
    base, c = cfg["base"], cfg["comparison"]
    design = io.read_json(smk.input.design)
    designed = fourier.FourierTrajectory.from_dict(design["trajectory"])
    period = float(design["trajectory"]["period_s"])
    cal, val = base["records"]["calibration"], base["records"]["validation"]
    settings = twin.TwinSettings.from_config({**base["twin"], "gravity": base["gravity"]})
    s = base["signals"]
    setup = hip.HipSetup(
        settings=settings,
        keys=tuple(base["regressor"]),
        cutoff_hz=s["cutoff_hz"],
        filter_order=s["filter_order"],
        trim_s=s["trim_s"],
        rls=base["rls"],
        estimator=c["estimator"],
    )
    variants = [
        hip.Variant(
            "paper_eq18", simulation.Trajectory.from_config(cal["trajectory"]), cal["duration_s"]
        ),
        hip.Variant("designed", designed, period),
        hip.Variant("designed_averaged", designed, period, c["periods"], c["periodic_filter"]),
    ]
    validation = simulation.Trajectory.from_config(val["trajectory"])
    seeds = np.arange(c["seeds"]) + base["twin"]["seed"]
    cond = {
        "paper_eq18": design["reference"]["cond"],
        "designed": design["cond"],
        "designed_averaged": design["cond"],
    }

    frames = {}
    for v_s in [settings.coulomb_smoothing_velocity, *c["sensitivity_coulomb_smoothing"]]:
        plant = dataclasses.replace(
            setup, settings=dataclasses.replace(settings, coulomb_smoothing_velocity=float(v_s))
        )
        per_seed = hip.compare_hip(variants, validation, val["duration_s"], plant, seeds)
        per_seed.insert(2, "plant_coulomb_smoothing", float(v_s))
        frames[float(v_s)] = per_seed
    main_frame = frames[settings.coulomb_smoothing_velocity]

    units = {"trajectory": "1", "seed": "1", "plant_coulomb_smoothing": "rad/s"}
    units |= model.parameter_units(setup.keys)
    units |= {"param_error": "1", "train_rmse": "N m", "val_rmse": "N m", "val_rmse_true": "N m"}
    units |= {"cond_signals": "1", "periods": "1", "raw_samples": "1", "rows": "1"}
    meta = io.provenance(cfg, smk.input, stage="excitation_compare")
    io.write_parquet(main_frame, smk.output.seeds, units=units, meta=meta)

    table = hip.summarise(main_frame, cond)
    io.write_csv(table, smk.output.table)
    sens = []
    for v_s, frame in frames.items():
        t = hip.summarise(frame, cond)
        t.insert(1, "plant_coulomb_smoothing", v_s)
        sens.append(t)
    io.write_csv(pd.concat(sens, ignore_index=True), smk.output.sensitivity)
    for row in table.itertuples():
        log.info(
            "%s: cond %.3f, param error median %.5f, val RMSE median %.5f N m",
            row.trajectory,
            row.cond,
            row.param_error_median,
            row.val_rmse_median,
        )


main(snakemake)  # noqa: F821
