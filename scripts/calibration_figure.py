"""Rule calibration_figure: Figures 8 and 10-13 of the KR210 study (PNG + PDF)."""

from pathlib import Path

from paramid import io
from paramid.calibration import figures, report
from paramid.plotting import FigureStyle, styled


def main(smk) -> None:
    cfg = smk.params.cfg
    figure = cfg["figure"]
    log = io.start_log(smk.log[0], f"calibration_figure_{figure}")
    style = FigureStyle.from_config(cfg["style"])
    frame, truth = io.read_parquet(smk.input.data)[0], io.read_json(smk.input.truth)
    free = io.read_json(smk.input.ident)["paper"]["free"]
    problems = report.run_problems(frame, truth, free, list(range(cfg["runs"])))
    fits = report.fits_by_model({p: io.read_parquet(p)[0] for p in smk.input.fits})
    histories = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.histories}
    with styled(style):
        fig = figures.kr210_figure(figure, problems, frame, fits, histories)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s written (%d fits)", figure, len(smk.input.fits))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
