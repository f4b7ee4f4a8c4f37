"""Rule sweep_table: a sweep's table (median, IQR over runs, tests against the default)."""

from pathlib import Path

import pandas as pd

from paramid import io, sweeps, tables


def main(smk) -> None:
    cfg = smk.params.cfg
    sweep, study = cfg["sweep"], cfg["study"]
    log = io.start_log(smk.log[0], f"sweep_table_{sweep}")
    points = pd.concat([io.read_parquet(p)[0] for p in smk.input.points], ignore_index=True)
    keys = (study, "sweep", sweep)
    paired = sweep in sweeps.PAIRED_SWEEPS
    if sweep == "leave_one_trajectory_out":
        default = pd.concat(
            [io.read_parquet(p)[0].assign(method=Path(p).stem) for p in smk.input.fits],
            ignore_index=True,
        )
        both = pd.concat(
            [
                default.assign(value=sweeps.LOTO_DEFAULT),
                points.assign(value=sweeps.LOTO_SWAPPED),
            ],
            ignore_index=True,
        )[["value", "method", "run", "val_rmse"]]
        table = sweeps.summarise_sweep(both, sweeps.LOTO_DEFAULT, paired=paired, seed_keys=keys)
    elif sweep == "agwo_grid":
        default = sweeps.grid_label(*cfg["default"])
        table = sweeps.summarise_sweep(points, default, paired=paired, seed_keys=keys)
    else:
        table = sweeps.summarise_sweep(points, float(cfg["default"]), paired=paired, seed_keys=keys)
    table.insert(0, "sweep", sweep)
    io.write_csv(table, smk.output.csv)
    caption = (
        f"Sweep {sweep} ({study}): validation RMSE [N m], median and IQR over runs; tests against "
        f"the default setting ({'paired over twin seeds' if paired else 'unpaired'}), "
        "Holm-adjusted over the sweep"
    )
    io.write_text(tables.to_markdown(table, caption=caption), smk.output.md)
    log.info("%s: %d rows", sweep, len(table))


main(snakemake)  # noqa: F821
