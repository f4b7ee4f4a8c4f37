"""Rule excitation_figure: Eq 18 vs the designed excitation and the identification errors."""

from paramid import io, simulation
from paramid.excitation import figures, fourier
from paramid.plotting import FigureStyle, styled


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_figure")
    design = io.read_json(smk.input.design)
    per_seed, _ = io.read_parquet(smk.input.seeds)
    trajectories = {
        "paper Eq 18": simulation.Trajectory.from_config(cfg["calibration"]["trajectory"]),
        "designed": fourier.FourierTrajectory.from_dict(design["trajectory"]),
    }
    limits = fourier.JointLimits(**design["limits"])
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        fig = figures.comparison_figure(
            trajectories, design["trajectory"]["period_s"], limits, per_seed
        )
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("figure written: %s", smk.output.png)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
