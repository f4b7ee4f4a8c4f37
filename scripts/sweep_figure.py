"""Rules sweep_figure, fig4a, fig4b: a sweep's figure, drawn from its table (and, for the AGWO grid
and the cutoff sweep, its points). Only figure settings reach this rule, so a style change reruns
figures and nothing else."""

import pandas as pd

from paramid import io
from paramid.hip import figures
from paramid.plotting import FigureStyle, styled

LABELS = {
    "margin": ("Bound margin [% of span]", 100.0),
    "cutoff_hz": ("Low-pass cutoff [Hz]", 1.0),
    "forgetting": ("RLS forgetting factor λ", 1.0),
    "population": ("Population size N (2400 evaluations)", 1.0),
}


def main(smk) -> None:
    cfg = smk.params.cfg
    sweep = cfg["sweep"]
    log = io.start_log(smk.log[0], f"sweep_figure_{sweep}")
    style = FigureStyle.from_config(cfg["style"])
    table = pd.read_csv(smk.input.table)
    points = [io.read_parquet(p)[0] for p in smk.input.points]
    with styled(style):
        if sweep == "leave_one_trajectory_out":
            fig = figures.loto(table)
        elif sweep == "agwo_grid":
            cells = pd.concat(points).groupby(["mu_base", "kappa"])["val_rmse"].median().unstack()
            fig = figures.agwo_grid(cells, tuple(cfg["default"]))
        else:
            seed0 = None
            if sweep == "cutoff_hz":  # the default twin (first seed) as in the paper's Figure 4b
                runs = pd.concat(points, ignore_index=True)
                seed0 = runs[runs["run"] == runs["run"].min()].set_index("value")["val_rmse"]
            label, scale = LABELS[sweep]
            default = float(table["default_value"].iloc[0])  # a chosen cutoff too (auto)
            fig = figures.sweep(table, label, scale, default, seed0=seed0)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s: figure from %d table rows", sweep, len(table))


main(snakemake)  # noqa: F821
