"""Rule nonlinear_fit: every (fitted friction law, method) cell of one twin variant, all seeds
of a population method in one batched call (§4.1-4.3 protocol, Eq 13/21)."""

from paramid import io
from paramid.friction import cells
from paramid.hip import nonlinear


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_fit")
    cal = nonlinear.joint_data_from_frame(io.read_parquet(smk.input.calibration)[0], cfg["gravity"])
    val = nonlinear.joint_data_from_frame(io.read_parquet(smk.input.validation)[0], cfg["gravity"])
    runs, traces, prior = cells.fit_variant(cfg, cal, val, io.read_json(smk.input.prior))
    meta = io.provenance(
        cfg,
        smk.input,
        stage="nonlinear_fit",
        seed_stream=[cfg["study"], cfg["truth"], "<fitted>", "<method>", "<run>"],
        gamma=prior.gamma,
        evaluations=cells.EVALUATIONS,
    )
    timing = cells.TIMING_COLUMNS
    io.write_parquet(
        runs, smk.output.fits, units=cells.run_units(), meta=meta, nondeterministic_columns=timing
    )
    io.write_parquet(
        traces,
        smk.output.traces,
        units=cells.TRACE_UNITS,
        meta=meta,
        nondeterministic_columns=["time_ms"],
    )
    for cell in cells.cell_medians(runs).itertuples():
        log.info(
            "%s <- %s %s: val %.5f N m, evals %.0f, %.2f ms/run",
            cfg["truth"],
            cell.fitted_model,
            cell.method,
            cell.val_rmse,
            cell.n_evals,
            cell.time_ms,
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
