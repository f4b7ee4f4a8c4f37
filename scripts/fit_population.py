"""Rule fit_population: all seeded runs of one population method in one batched call (§4.1-4.3)."""

import numpy as np
import pandas as pd

from paramid import io, population
from paramid.hip import model


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "fit_population")
    keys, method, pop = cfg["regressor"], cfg["method"], cfg["population"]
    names = model.parameter_names(keys)
    H, y, _ = io.read_regression(smk.input.calibration, keys)
    Hv, yv, _ = io.read_regression(smk.input.validation, keys)
    rls = io.read_json(smk.input.bounds)
    lower, upper = population.search_box(
        method, len(names), rls["lower"], rls["upper"], pop["standard_box"]
    )
    settings = population.optimiser_settings(method, cfg, rls["gamma"])
    fit = population.fit_population(
        method,
        H,
        y,
        Hv,
        yv,
        lower,
        upper,
        study=cfg["study"],
        runs=pop["runs"],
        population=pop["size"],
        iterations=pop["iterations"],
        settings=settings,
        timing_repeats=pop["timing_repeats"],
    )

    runs = np.arange(pop["runs"])
    frame = pd.DataFrame({"run": runs, "seed": runs})
    frame[names] = fit.x
    frame["train_rmse"] = fit.train_rmse
    frame["val_rmse"] = fit.val_rmse
    frame["time_ms"] = float(np.median(fit.time_ms_per_run))
    frame["n_evals"] = fit.n_evals.astype("int64")
    frame = frame.astype({"seed": "Int64", "n_evals": "Int64"})
    units = {"run": "1", "seed": "1", **model.parameter_units(keys)}
    units |= {"train_rmse": "N m", "val_rmse": "N m", "time_ms": "ms", "n_evals": "1"}
    meta = io.provenance(
        cfg,
        smk.input,
        stage="fit_population",
        seed_stream=[cfg["study"], method, "<seed>"],
        box={"lower": lower.tolist(), "upper": upper.tolist()},
        optimiser_settings=settings,
        time_ms_per_run_repeats=fit.time_ms_per_run.tolist(),
        timing="batched wall time of all runs / runs, one value per repeat of the batched call",
    )
    io.write_parquet(
        frame, smk.output.fits, units=units, meta=meta, nondeterministic_columns=["time_ms"]
    )

    iterations = np.arange(1, fit.history.shape[1] + 1)
    history = pd.DataFrame(
        {
            "run": np.repeat(runs, iterations.size),
            "iteration": np.tile(iterations, runs.size),
            "best_train_rmse": fit.history.ravel(),
        }
    )
    io.write_parquet(
        history,
        smk.output.history,
        units={"run": "1", "iteration": "1", "best_train_rmse": "N m"},
        meta=meta,
    )
    log.info(
        "%s: median val %.5f N m, evals %s, %.3f ms/run",
        method,
        np.median(fit.val_rmse),
        np.unique(fit.n_evals),
        np.median(fit.time_ms_per_run),
    )


main(snakemake)  # noqa: F821
