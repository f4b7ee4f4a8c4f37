"""Rule hip_figure: one panel of Figure 3 (from the fits) or Figure 4 (from its sweep's table),
PNG + PDF."""

from pathlib import Path

import pandas as pd

from paramid import io
from paramid.hip import figures, model
from paramid.plotting import FigureStyle, styled


def _frames(paths) -> dict[str, pd.DataFrame]:
    return {Path(p).stem: io.read_parquet(p)[0] for p in paths}


def main(smk) -> None:
    cfg = smk.params.cfg
    figure = smk.wildcards.figure
    log = io.start_log(smk.log[0], f"hip_figure_{figure}")
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        if figure.startswith("fig4"):
            points = _frames(smk.input.points)
            paper = io.paper_settings(smk.input.paper)
            fig = figures.sweep_figure(
                cfg["sweep"],
                pd.read_csv(smk.input.table),
                pd.concat(points.values(), ignore_index=True) if points else None,
                cfg["default"],
                paper,
                cfg["chosen"],
            )
        elif figure == "fig3d":
            bcls = io.read_parquet(smk.input.bcls)[0]
            fig = figures.figure3(
                figure,
                {},
                histories=_frames(smk.input.histories),
                bcls_train_rmse=float(bcls["train_rmse"].iloc[0]),
            )
        elif figure == "fig3c":
            fig = figures.figure3(figure, _frames(smk.input.fits))
        else:
            H, y, frame = io.read_regression(smk.input.validation, cfg["regressor"])
            validation = (frame["time"].to_numpy(), H, y)
            names = model.parameter_names(cfg["regressor"])
            fig = figures.figure3(figure, _frames(smk.input.fits), validation, names)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s written", figure)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
