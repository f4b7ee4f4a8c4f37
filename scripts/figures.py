"""Rules fig3a-fig3d: draw one panel of Figure 3 from the fits (PNG + PDF)."""

from pathlib import Path

from paramid import io
from paramid.hip import figures, methods, model, tables
from paramid.plotting import FigureStyle, styled

POPULATION = ["pso", "rls_pso", "rls_ga", "rls_gwo", "rls_agwo"]


def _median_estimates(smk, regressor):
    H, y, frame = io.read_regression(smk.input.validation, regressor)
    names = model.parameter_names(regressor)
    estimates = {}
    for path in smk.input.fits:
        fit, _ = io.read_parquet(path)
        x = tables.median_run(fit)[names].to_numpy(float)
        estimates[methods.display_name(Path(path).stem)] = H @ x
    return frame["time"].to_numpy(), y, estimates


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], cfg["figure"])
    figure = cfg["figure"]
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        fig = _draw(smk, cfg)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s written", figure)


def _draw(smk, cfg):
    figure = cfg["figure"]
    if figure in ("fig3a", "fig3b"):
        time, measured, estimates = _median_estimates(smk, cfg["regressor"])
        if figure == "fig3a":
            fig = figures.validation_torque(time, measured, estimates)
        else:
            fig = figures.residuals(time, {k: measured - v for k, v in estimates.items()})
    elif figure == "fig3c":
        fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
        values = {
            methods.display_name(m): f["val_rmse"].to_numpy()
            for m, f in fits.items()
            if m in POPULATION
        }
        refs = {
            methods.display_name(m): float(f["val_rmse"].iloc[0])
            for m, f in fits.items()
            if m == "bcls"
        }
        fig = figures.rmse_distribution(values, refs)
    else:
        histories = {}
        for path in smk.input.histories:
            h = io.read_parquet(path)[0].pivot(
                index="run", columns="iteration", values="best_train_rmse"
            )
            histories[methods.display_name(Path(path).stem)] = h.to_numpy()
        optimum = float(io.read_parquet(smk.input.bcls)[0]["train_rmse"].iloc[0])
        fig = figures.convergence(histories, optimum)
    return fig


main(snakemake)  # noqa: F821
