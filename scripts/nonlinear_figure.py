"""Rule nonlinear_figure: friction law, validation RMSE and convergence for one twin variant."""

from paramid import io
from paramid.friction import figures
from paramid.plotting import FigureStyle, styled


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_figure")
    runs, _ = io.read_parquet(smk.input.fits)
    traces, _ = io.read_parquet(smk.input.traces)
    qd = io.read_parquet(smk.input.calibration)[0]["qd"].to_numpy()
    style = FigureStyle.from_config(smk.params.style)
    with styled(style):
        fig = figures.truth_figure(cfg["truth"], cfg["truth_values"], runs, traces, qd)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("figure for %s written", cfg["truth"])


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
