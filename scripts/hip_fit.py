"""Rule hip_fit: one deterministic estimator (LS, or BCLS of Eq 17) scored by Eq 21 on both
records; a fit that explains too little of the torque, or whose inertia comes out negative (the
torque's sign inverted; a warning where the study skips the torque_sign check), stops the study
with its likely causes."""

from paramid import estimators, io
from paramid.errors import UserError
from paramid.hip import fits, model


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_fit")
    keys, method, settings = cfg["regressor"], cfg["method"], cfg["fit"]
    H, y, frame = io.read_regression(smk.input.calibration, keys)
    H_val, y_val, frame_val = io.read_regression(smk.input.validation, keys)
    estimators.check_rank(H, smk.input.calibration)
    box = io.read_json(smk.input.bounds[0]) if smk.input.bounds else None
    result = fits.fit_deterministic(method, H, y, box, settings["timing_repeats"])
    judged = fits.judge_deterministic(
        method,
        keys,
        result.x,
        (H, y, frame["qd"].to_numpy()),
        (H_val, y_val, frame_val["qd"].to_numpy()),
        spike_mad_k=settings["spike_mad_k"],
        min_explained_variance=settings["min_explained_variance"],
        skip_torque_sign=cfg["skip_torque_sign"],
    )
    for warning in judged.warnings:
        log.warning("%s", warning)
    if judged.problem:  # the study fails here: one message (in the log, once on the terminal)
        raise UserError(f"{method} on {smk.input.calibration}: {judged.problem}")
    frame = fits.deterministic_frame(
        model.parameter_names(keys), result.x, judged.train_rmse, judged.val_rmse, result.time_ms
    )
    meta = io.provenance(cfg, smk.input, stage="hip_fit", **judged.metadata())
    units = fits.fit_units(keys)
    io.write_parquet(
        frame, smk.output[0], units=units, meta=meta, nondeterministic_columns=["time_ms"]
    )
    log.info(
        "%s: train %.5f val %.5f N m, %.3f ms",
        method,
        judged.train_rmse,
        judged.val_rmse,
        result.time_ms,
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
