"""Rule cec2022_figures: rank maps (Figures 6-7, ours and the paper's) and convergence curves."""

import re

import matplotlib.pyplot as plt
import pandas as pd

from paramid import io
from paramid.cec2022 import figures


def main(smk) -> None:
    dim = int(smk.wildcards.dim)
    style = smk.params.style
    ranks = pd.read_csv(smk.input.ranks)
    histories = {}
    for path in smk.input.histories:
        function, algorithm = re.search(r"F(\d+)/(\w+)\.parquet$", path).groups()
        histories[(int(function), algorithm)] = io.read_parquet(path)[0]
    plt.rcParams.update({"font.size": style["font_size"]})
    for fig, key in (
        (figures.rank_figure(ranks, dim, width=style["width"]), "ranks"),
        (figures.rank_figure(ranks, dim, paper=True, width=style["width"]), "paper_ranks"),
        (figures.convergence_figure(histories, dim, width=style["width"]), "convergence"),
    ):
        io.save_figure(fig, smk.output[f"{key}_png"], smk.output[f"{key}_pdf"], dpi=style["dpi"])
        plt.close(fig)


main(snakemake)  # noqa: F821
