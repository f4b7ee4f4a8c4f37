"""Rule robot_figure: a multi-joint study's figures (torque on validation, per-joint RMSE by
method, base parameters with error bars, the prior weight's cross-validation curve), PNG +
PDF."""

import pandas as pd

from paramid import io
from paramid.plotting import FigureStyle, styled
from paramid.robot import figures


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_figure")
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        if cfg["figure"] == "torque":
            predictions = {
                m: io.read_parquet(p)[0]
                for m, p in zip(cfg["methods"], smk.input.predictions, strict=True)
            }
            units = io.read_parquet_metadata(smk.input.predictions[0])["units"]
            fig = figures.torque_figure(predictions, cfg["joints"], cfg["records"], units)
        elif cfg["figure"] == "rmse":
            fig = figures.rmse_figure(pd.read_csv(smk.input.validation))
        elif cfg["figure"] == "regularisation":
            fig = figures.regularisation_figure(pd.read_csv(smk.input.regularisation))
        else:
            fig = figures.parameters_figure(pd.read_csv(smk.input.parameters))
        io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s figure written", cfg["figure"])


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
