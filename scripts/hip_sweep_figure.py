"""Rule hip_sweep_figure: the figure of a §5.3 sweep, drawn from its table (and, for the AGWO
grid, its points), its marked setting named against the paper's Table 2 where the study has
the paper's values. Only figure settings reach this rule, so a style change reruns figures and
nothing else."""

import pandas as pd

from paramid import io
from paramid.hip import figures
from paramid.plotting import FigureStyle, styled


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], f"hip_sweep_figure_{cfg['sweep']}")
    style = FigureStyle.from_config(cfg["style"])
    table = pd.read_csv(smk.input.table)
    points = [io.read_parquet(p)[0] for p in smk.input.points]
    paper = io.paper_settings(smk.input.paper)
    with styled(style):
        fig = figures.sweep_figure(
            cfg["sweep"],
            table,
            pd.concat(points) if points else None,
            cfg["default"],
            paper,
            cfg["chosen"],
        )
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s: figure from %d table rows", cfg["sweep"], len(table))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
