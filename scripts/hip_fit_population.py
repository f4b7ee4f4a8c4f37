"""Rule hip_fit_population: all seeded runs of one population method in one batched call
(§4.1-4.3), in the RLS box (or the standard box of plain PSO)."""

from paramid import io
from paramid.hip import fits, model


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_fit_population")
    keys, method = cfg["regressor"], cfg["method"]
    H, y, _ = io.read_regression(smk.input.calibration, keys)
    H_val, y_val, _ = io.read_regression(smk.input.validation, keys)
    rls = io.read_json(smk.input.bounds[0]) if smk.input.bounds else None  # plain PSO: none
    run = fits.run_population(method, cfg, rls, H, y, H_val, y_val)
    fit = run.fit
    names = model.parameter_names(keys)
    frame, history = fits.population_frames(names, fit)
    mechanical = cfg.get("mechanical")  # the RLS box's physical edges; plain PSO has none
    edge = fits.box_edge_warning(run, method, names, H, y, mechanical)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="hip_fit_population",
        seed_stream=[cfg["study"], method, "<seed>"],
        box={"lower": run.lower.tolist(), "upper": run.upper.tolist()},
        optimiser_settings=run.settings,
        time_ms_per_run_repeats=fit.time_ms_per_run.tolist(),
        timing="batched wall time of all runs / runs, one value per repeat of the batched call",
        warnings=[edge] if edge else [],
    )
    meta |= fits.agwo_exponent(method, run.settings)
    units = fits.fit_units(keys)
    io.write_parquet(
        frame, smk.output.fits, units=units, meta=meta, nondeterministic_columns=["time_ms"]
    )
    io.write_parquet(history, smk.output.history, units=fits.HISTORY_UNITS, meta=meta)
    log.info(
        "%s: median val %.5f N m, evals %s, %.3f ms/run", method, *fits.population_summary(fit)
    )
    if edge:
        log.warning(edge)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
