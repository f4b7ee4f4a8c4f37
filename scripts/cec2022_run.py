"""Rule cec2022_run: every function of the benchmark for one algorithm and dimension, all runs
of each function in one batched call; one run table and one history file for the job."""

from paramid import io
from paramid.cec2022 import runs


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "cec2022_run")
    dim, algorithm = int(smk.wildcards.dim), smk.wildcards.algorithm
    settings = {k: cfg[k] for k in runs.RUN_SETTINGS} | {
        "optimiser_settings": cfg["optimiser_settings"]
    }
    results = runs.run_functions(cfg["functions"], dim, algorithm, **settings)
    for function, job in results.items():
        evaluations = int(job.runs["n_evals"].iloc[0])
        done = "F%d D%d %s: %d x %d evaluations in %.2f s"
        log.info(done, function, dim, algorithm, cfg["runs"], evaluations, job.wall_s)
    run_table, history = runs.job_tables(results)
    meta = io.provenance(
        cfg,
        stage="cec2022_run",
        dim=dim,
        algorithm=algorithm,
        iterations=job.iterations,
        seed_stream=["cec2022", cfg["seed"], algorithm, "<function>", dim, "<run>"],
        timing="per function: wall time of the batched call of all runs / runs",
    )
    io.write_parquet(
        run_table,
        smk.output.runs,
        units=runs.RUN_UNITS,
        meta=meta,
        nondeterministic_columns=["time_s"],
    )
    io.write_parquet(history, smk.output.histories, units=runs.HISTORY_UNITS, meta=meta)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
