"""Rule cec2022_figures: rank maps (Figures 6-7, ours and the paper's) and convergence curves."""

import pandas as pd

from paramid import io
from paramid.cec2022 import figures, runs
from paramid.plotting import FigureStyle, styled


def main(smk) -> None:
    log = io.start_log(smk.log[0], "cec2022_figures")
    dim = int(smk.wildcards.dim)
    style = FigureStyle.from_config(smk.params.style)
    ranks = pd.read_csv(smk.input.ranks)
    histories = runs.by_cell({p: io.read_parquet(p)[0] for p in smk.input.histories})
    with styled(style):
        drawn = {
            "ranks": figures.rank_figure(ranks, dim),
            "paper_ranks": figures.rank_figure(ranks, dim, paper=True),
            "convergence": figures.convergence_figure(histories, dim),
        }
    for key, fig in drawn.items():
        io.save_figure(fig, smk.output[f"{key}_png"], smk.output[f"{key}_pdf"], dpi=style.dpi)
    log.info("D%d: %s written", dim, ", ".join(drawn))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
