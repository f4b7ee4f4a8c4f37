"""Rules sweep_summary, fig4a, fig4b: a sweep's table (median, IQR, test vs default) and figure."""

from pathlib import Path

import matplotlib.pyplot as plt
import pandas as pd

from paramid import figures, io, sweeps, tables

PAIRED = {"cutoff_hz"}  # twin-seed sweeps pair runs by seed; optimiser sweeps are unpaired
LABELS = {
    "margin": ("Bound margin [% of span]", 100.0),
    "cutoff_hz": ("Low-pass cutoff [Hz]", 1.0),
    "forgetting": ("RLS forgetting factor λ", 1.0),
    "population": ("Population size N (2400 evaluations)", 1.0),
}


def main(smk) -> None:
    cfg = smk.params.cfg
    sweep, study = cfg["sweep"], cfg["study"]
    log = io.start_log(smk.log[0], f"sweep_summary_{sweep}")
    style = figures.FigureStyle(**cfg["style"])
    points = pd.concat([io.read_parquet(p)[0] for p in smk.input.points], ignore_index=True)
    keys = (study, "sweep", sweep)
    if sweep == "leave_one_trajectory_out":
        default = pd.concat(
            [io.read_parquet(p)[0].assign(method=Path(p).stem) for p in smk.input.fits],
            ignore_index=True,
        )
        both = pd.concat(
            [
                default.assign(value="default (cal Eq 18)"),
                points.assign(value="swapped (cal Eq 19)"),
            ],
            ignore_index=True,
        )[["value", "method", "run", "val_rmse"]]
        table = sweeps.summarise_sweep(both, "default (cal Eq 18)", paired=False, seed_keys=keys)
        with figures.styled(style):
            fig = figures.loto(table)
    elif sweep == "agwo_grid":
        default = sweeps.grid_label(*cfg["default"])
        table = sweeps.summarise_sweep(points, default, paired=False, seed_keys=keys)
        cells = points.groupby(["mu_base", "kappa"])["val_rmse"].median().unstack()
        with figures.styled(style):
            fig = figures.agwo_grid(cells, tuple(cfg["default"]))
    else:
        table = sweeps.summarise_sweep(
            points, float(cfg["default"]), paired=sweep in PAIRED, seed_keys=keys
        )
        label, scale = LABELS[sweep]
        seed0 = None
        if sweep == "cutoff_hz":  # the default twin (first seed) as in the paper's Figure 4b
            first = points["run"].min()
            seed0 = points[points["run"] == first].set_index("value")["val_rmse"]
        with figures.styled(style):
            fig = figures.sweep(table, label, scale, float(cfg["default"]), seed0=seed0)
    table.insert(0, "sweep", sweep)
    io.write_csv(table, smk.output.csv)
    caption = (
        f"Sweep {sweep} ({study}): validation RMSE [N m], median and IQR over runs; tests against "
        f"the default setting ({'paired over twin seeds' if sweep in PAIRED else 'unpaired'}), "
        "Holm-adjusted over the sweep"
    )
    io.write_text(tables.to_markdown(table, caption=caption), smk.output.md)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    plt.close(fig)
    log.info("%s: %d rows", sweep, len(table))


main(snakemake)  # noqa: F821
