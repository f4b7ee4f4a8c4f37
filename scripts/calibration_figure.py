"""Rule calibration_figure: Figures 8 and 10-13 of the KR210 study (PNG + PDF)."""

from pathlib import Path

from paramid import io
from paramid.calibration import figures as figs
from paramid.calibration import report
from paramid.calibration.identify import LABELS
from paramid.plotting import FigureStyle, styled

SINGLE = ["ekf", "ipso", "lasso", "ukf", "mipo_arkekf"]


def _median_run(frame):
    order = frame["val_rmse_mm"].rank(method="first")
    return frame.loc[(order - (len(frame) + 1) / 2).abs().idxmin()]


def _sample_points(frame):
    xyz = ["x", "y", "z"]
    return figs.sample_points(
        *(frame.loc[frame["split"] == s, xyz].to_numpy() for s in ("train", "validation", "unused"))
    )


def _error_profiles(problems, fits):
    def errors(ident):
        run = _median_run(fits[ident])
        problem = problems[int(run["run"])]
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
    return figs.error_profiles(panels)


def _draw(figure, smk):
    runs = list(range(smk.params.cfg["runs"]))
    problems, frame, _, _ = report.load_problems(
        smk.input.data, smk.input.truth, smk.input.ident, "paper", runs
    )
    by_model: dict = {}
    for path in map(Path, smk.input.fits):
        by_model.setdefault(path.parent.name, {})[path.stem] = io.read_parquet(path)[0]
    fits = by_model.get("paper", {})
    hist = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.histories}
    bc = float(fits["bc"]["train_rmse_mm"].mean()) if "bc" in fits else None
    if figure == "fig8":
        return _sample_points(frame[frame["repeat"] == 0])
    if figure == "fig10":
        return _error_profiles(problems, fits)
    if figure == "fig11":
        names = report.TABLE7_NAMES
        return figs.convergence(
            {names[i]: hist[i] for i in SINGLE}, "Convergence of M1-M5 (Fig 11)", bc
        )
    if figure == "models":  # the identifiers run on more than one model
        shared = set.intersection(*(set(f) for f in by_model.values())) if by_model else set()
        groups = {
            model_name: {
                report.model_label(i, "paper"): f.sort_values("run")["val_rmse_mm"].to_numpy()
                for i, f in by_ident.items()
                if i in shared
            }
            for model_name, by_ident in by_model.items()
        }
        return figs.model_comparison(groups, report.noise_floor(frame))
    if figure == "fig12":
        return figs.hybrid_bars(report.hybrid_runtime_table(fits))
    if figure == "fig13":
        return figs.convergence(
            {LABELS[i]: hist[i] for i in report.HYBRIDS},
            "Convergence of MIPO-ARKEKF and the hybrids (Fig 13)",
            bc,
        )
    raise ValueError(f"unknown figure {figure!r}")


def main(smk) -> None:
    cfg = smk.params.cfg
    figure = cfg["figure"]
    log = io.start_log(smk.log[0], figure)
    style = FigureStyle.from_config(cfg["style"])
    with styled(style):
        fig = _draw(figure, smk)
    io.save_figure(fig, smk.output.png, smk.output.pdf, dpi=style.dpi)
    log.info("%s written (%d fits)", figure, len(smk.input.fits))


main(snakemake)  # noqa: F821
