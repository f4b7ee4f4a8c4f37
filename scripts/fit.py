"""Rule fit: one deterministic estimator (LS, or BCLS of Eq 17) scored by Eq 21 on both records."""

import pandas as pd

from paramid import estimators, io, plausibility
from paramid.hip import model


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "fit")
    keys, method = cfg["regressor"], cfg["method"]
    names = model.parameter_names(keys)
    H, y, _ = io.read_regression(smk.input.calibration, keys)
    Hv, yv, _ = io.read_regression(smk.input.validation, keys)
    estimators.check_rank(H, smk.input.calibration)

    repeats = cfg["fit"]["timing_repeats"]
    if method == "ls":
        result = estimators.timed(lambda: estimators.ls(H, y), repeats)
    elif method == "bcls":
        box = io.read_json(smk.input.bounds)
        result = estimators.timed(
            lambda: estimators.bcls(H, y, box["lower"], box["upper"]), repeats
        )
    else:
        raise ValueError(f"rule fit: unknown deterministic method {method!r}")
    quality = plausibility.fit_quality(H, y, result.x, cfg["fit"]["spike_mad_k"])
    problem = quality.problem(cfg["fit"]["min_explained_variance"])
    if problem:  # the study fails here: one message, no traceback, nothing written
        log.error("%s on %s: %s", method, smk.input.calibration, problem)
        raise SystemExit(f"{method} on {smk.input.calibration}: {problem}")
    if quality.spikes:
        log.warning(
            "%d isolated spike(s) in the calibration residual (|r| > %.4g N m = %g scaled MADs)",
            quality.spikes,
            quality.spike_threshold_n_m,
            cfg["fit"]["spike_mad_k"],
        )

    row = {"run": 0, "seed": pd.NA, **dict(zip(names, result.x, strict=True))}
    row |= {
        "train_rmse": estimators.rmse(H, y, result.x),
        "val_rmse": estimators.rmse(Hv, yv, result.x),
        "time_ms": result.time_ms,
        "n_evals": pd.NA,
    }
    frame = pd.DataFrame([row]).astype({"run": "int64", "seed": "Int64", "n_evals": "Int64"})
    units = {"run": "1", "seed": "1", **model.parameter_units(keys)}
    units |= {"train_rmse": "N m", "val_rmse": "N m", "time_ms": "ms", "n_evals": "1"}
    meta = io.provenance(
        cfg,
        smk.input,
        stage="fit",
        explained_variance=quality.explained_variance,
        residual_spikes=quality.spikes,
        spike_threshold_n_m=quality.spike_threshold_n_m,
    )
    io.write_parquet(
        frame, smk.output[0], units=units, meta=meta, nondeterministic_columns=["time_ms"]
    )
    log.info(
        "%s: train %.5f val %.5f N m, %.3f ms",
        method,
        row["train_rmse"],
        row["val_rmse"],
        row["time_ms"],
    )


main(snakemake)  # noqa: F821
