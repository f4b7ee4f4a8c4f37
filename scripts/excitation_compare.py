"""Rule excitation_compare: paper Eq 18 vs the designed excitation (one period, and P
periods averaged) on the hip twin, over the configured noise seeds, scored on Eq 19."""

from paramid import io
from paramid.hip import excitation


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_compare")
    design = io.read_json(smk.input.design)
    result = excitation.compare_design(cfg["base"], cfg["comparison"], design)
    meta = io.provenance(cfg, smk.input, stage="excitation_compare")
    io.write_parquet(result.per_seed, smk.output.seeds, units=result.units, meta=meta)
    io.write_csv(result.table, smk.output.table)
    io.write_csv(result.sensitivity, smk.output.sensitivity)
    for row in result.table.itertuples():
        log.info(
            "%s: cond %.3f, param error median %.5f, val RMSE median %.5f N m",
            row.trajectory,
            row.cond,
            row.param_error_median,
            row.val_rmse_median,
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
