"""Rule hip_fit: one deterministic estimator (LS, or BCLS of Eq 17) scored by Eq 21 on both
records; a fit that explains too little of the torque, or whose inertia comes out negative (the
torque's sign inverted; a warning where the study skips the torque_sign check), stops the study
with its likely causes."""

from paramid import estimators, io, plausibility
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
    velocity = frame["qd"].to_numpy()
    quality = plausibility.fit_quality(H, y, result.x, settings["spike_mad_k"], velocity)
    problem, warning = plausibility.fit_verdict(
        H, y, keys, quality, settings["min_explained_variance"], cfg["skip_torque_sign"]
    )
    if warning:
        log.warning("%s", warning)
    if problem:  # the study fails here: one message (in the log, once on the terminal)
        raise UserError(f"{method} on {smk.input.calibration}: {problem}")
    if quality.spikes:
        log.warning(
            "%d isolated spike(s) in the calibration residual (|r| > %.4g N m = %g scaled MADs), "
            "%d of them at velocity reversals (the Coulomb term's step, not the sensor)",
            quality.spikes,
            quality.spike_threshold_n_m,
            settings["spike_mad_k"],
            quality.spikes_at_reversals,
        )
    train, val = estimators.rmse(H, y, result.x), estimators.rmse(H_val, y_val, result.x)
    if gap := plausibility.validation_gap(train, val):
        log.warning("%s: %s", method, gap)
    held_out = plausibility.fit_quality(
        H_val, y_val, result.x, settings["spike_mad_k"], frame_val["qd"].to_numpy()
    )
    if held_out.spikes:
        log.warning("%s: %s", method, plausibility.validation_spikes(held_out))
    frame = fits.deterministic_frame(
        model.parameter_names(keys), result.x, train, val, result.time_ms
    )
    meta = io.provenance(
        cfg,
        smk.input,
        stage="hip_fit",
        explained_variance=quality.explained_variance,
        residual_spikes=quality.spikes,
        residual_spikes_at_reversals=quality.spikes_at_reversals,
        spike_threshold_n_m=quality.spike_threshold_n_m,
        validation_warning=gap or "",
        validation_spikes=held_out.spikes,
        validation_rmse_without_spikes=held_out.rmse_without_spikes,
    )
    units = fits.fit_units(keys)
    io.write_parquet(
        frame, smk.output[0], units=units, meta=meta, nondeterministic_columns=["time_ms"]
    )
    log.info("%s: train %.5f val %.5f N m, %.3f ms", method, train, val, result.time_ms)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
