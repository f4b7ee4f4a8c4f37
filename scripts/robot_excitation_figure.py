"""Rule robot_excitation_figure: the designed joint trajectories over one period against the
limits used (position, velocity, acceleration), and each compared excitation's errors over the
twin's noise seeds; PNG + PDF."""

import pandas as pd

from paramid import io
from paramid.excitation.fourier import FourierTrajectory
from paramid.plotting import FigureStyle, styled
from paramid.robot import figures


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_excitation_figure")
    design = io.read_json(smk.input.design)
    per_seed, meta = io.read_parquet(smk.input.per_seed)
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        fig = figures.excitation_figure(
            FourierTrajectory.from_dict(design["trajectory"]),
            design["joints"],
            design["limits_used"],
            io.read_parquet_metadata(smk.input.trajectory)["units"],
        )
        io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
        comparison = pd.read_csv(smk.input.comparison)
        unit = meta["units"]["val_rmse"]
        fig = figures.excitation_comparison_figure(per_seed, comparison, unit)
        io.save_figure(fig, smk.output.comparison_png, smk.output.comparison_pdf, dpi=style.dpi)
    log.info("excitation figures written")


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
