"""Rule calibration_figure: Figures 8 and 10-13 of the KR210 study (PNG + PDF)."""

from pathlib import Path

import matplotlib.pyplot as plt

from paramid import io
from paramid.calibration import core as cal
from paramid.calibration import figures as figs
from paramid.calibration import report

SINGLE = ["ekf", "ipso", "lasso", "ukf", "mipo_arkekf"]


def _median_run(frame):
    order = frame["val_rmse_mm"].rank(method="first")
    return frame.loc[(order - (len(frame) + 1) / 2).abs().idxmin()]


def main(smk) -> None:
    cfg = smk.params.cfg
    figure = cfg["figure"]
    log = io.start_log(smk.log[0], figure)
    problem, frame, _, _ = report.load_problem(smk.input.data, smk.input.truth, smk.input.ident)
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    hist = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.histories}
    bc = float(fits["bc"]["train_rmse_mm"].iloc[0]) if "bc" in fits else None
    if figure == "fig8":
        xyz = ["x", "y", "z"]
        fig = figs.sample_points(
            frame.loc[frame["split"] == "train", xyz].to_numpy(),
            frame.loc[frame["split"] == "validation", xyz].to_numpy(),
            frame.loc[frame["split"] == "unused", xyz].to_numpy(),
        )
    elif figure == "fig10":

        def errors(ident):
            run = _median_run(fits[ident])
            x = report.estimates(run.to_frame().T, problem.free)[0]
            return problem.distances(x, "validation")

        panels = {
            "(a) before compensation, M1 and M5": {
                n: errors(i) for n, i in (("BC", "bc"), ("M1", "ekf"), ("M5", "mipo_arkekf"))
            },
            "(b) M2, M3, M4 and M5": {
                n: errors(i)
                for n, i in (("M2", "ipso"), ("M3", "lasso"), ("M4", "ukf"), ("M5", "mipo_arkekf"))
            },
        }
        fig = figs.error_profiles(panels)
    elif figure == "fig11":
        fig = figs.convergence(
            {cal.TABLE7_NAMES[i]: hist[i] for i in SINGLE}, "Convergence of M1-M5 (Fig 11)", bc
        )
    elif figure == "fig12":
        fig = figs.hybrid_bars(report.hybrid_runtime_table(fits))
    elif figure == "fig13":
        fig = figs.convergence(
            {cal.LABELS[i]: hist[i] for i in report.HYBRIDS},
            "Convergence of MIPO-ARKEKF and the hybrids (Fig 13)",
            bc,
        )
    else:
        raise ValueError(f"unknown figure {figure!r}")
    io.save_figure(fig, smk.output.png, smk.output.pdf)
    plt.close(fig)
    log.info("%s written (%d fits)", figure, len(fits))


main(snakemake)  # noqa: F821
