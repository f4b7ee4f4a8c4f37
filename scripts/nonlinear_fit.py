"""Rule nonlinear_fit: every (fitted friction law, method) cell of one twin variant, all seeds
of a population method in one batched call (§4.1-4.3 protocol, Eq 13/21)."""

from paramid import io
from paramid.friction import cells, laws
from paramid.friction.data import LinearPrior
from paramid.hip import nonlinear


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_fit")
    cal = nonlinear.joint_data_from_frame(io.read_parquet(smk.input.calibration)[0], cfg["gravity"])
    val = nonlinear.joint_data_from_frame(io.read_parquet(smk.input.validation)[0], cfg["gravity"])
    saved = io.read_json(smk.input.prior)
    prior = LinearPrior.from_json(saved)
    hip = laws.hip_model(cfg["truth"], cfg["gravity"])
    truth = [saved["truth"][p] for p in hip.params]
    runs, traces = cells.fit_truth(
        cfg["truth"],
        truth,
        cal,
        val,
        prior,
        study=cfg["study"],
        fitted=cfg["fitted"],
        methods=cfg["methods"],
        gravity=cfg["gravity"],
        friction_bounds=cfg["friction_bounds"],
        base=cfg["base"],
        timing_repeats=cfg["timing_repeats"],
        least_squares_cfg=cfg["least_squares"],
        varpro_cfg=cfg["varpro"],
        target_fraction=cfg["target_fraction"],
    )
    runs = runs.astype({"seed": "Int64"})
    units = {"true_model": "", "fitted_model": "", "method": "", "run": "1", "seed": "1"}
    units |= laws.parameter_units()
    units |= {
        "train_rmse": "N m",
        "val_rmse": "N m",
        "param_error": "1",
        "rigid_error": "1",
        "n_evals": "1",
        "time_ms": "ms",
        "evals_to_1pct": "1",
        "time_to_1pct_ms": "ms",
        "best_train_rmse_cell": "N m",
    }
    meta = io.provenance(
        cfg,
        smk.input,
        stage="nonlinear_fit",
        seed_stream=[cfg["study"], cfg["truth"], "<fitted>", "<method>", "<run>"],
        gamma=prior.gamma,
        evaluations=(
            "population: candidate rows evaluated; least_squares: residual passes + dim per "
            "Jacobian; varpro: projected residuals (grid points + polish)"
        ),
    )
    timing = ["time_ms", "time_to_1pct_ms"]
    io.write_parquet(runs, smk.output.fits, units=units, meta=meta, nondeterministic_columns=timing)
    tunits = {"true_model": "", "fitted_model": "", "method": "", "run": "1", "evals": "1"}
    tunits |= {"time_ms": "ms", "best_train_rmse": "N m"}
    io.write_parquet(
        traces, smk.output.traces, units=tunits, meta=meta, nondeterministic_columns=["time_ms"]
    )
    for (f, m), g in runs.groupby(["fitted_model", "method"], sort=False):
        log.info(
            "%s <- %s %s: val %.5f N m, evals %.0f, %.2f ms/run",
            cfg["truth"],
            f,
            m,
            g.val_rmse.median(),
            g.n_evals.median(),
            g.time_ms.median(),
        )


main(snakemake)  # noqa: F821
