"""Rule cec2022_run: every function of the benchmark for one algorithm and dimension, all runs
of each function in one batched call, one table and one history file per function."""

from paramid import io
from paramid.cec2022 import runs


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "cec2022_run")
    dim, algorithm = int(smk.wildcards.dim), smk.wildcards.algorithm
    outputs = zip(cfg["functions"], smk.output.runs, smk.output.histories, strict=True)
    for function, runs_path, history_path in outputs:
        job = runs.run_configured(function, dim, algorithm, cfg)
        meta = io.provenance(
            cfg,
            stage="cec2022_run",
            function=function,
            dim=dim,
            algorithm=algorithm,
            iterations=job.iterations,
            seed_stream=["cec2022", cfg["seed"], algorithm, function, dim, "<run>"],
            timing="wall time of the batched call of all runs / runs",
        )
        units, timing = runs.RUN_UNITS, ["time_s"]
        io.write_parquet(
            job.runs, runs_path, units=units, meta=meta, nondeterministic_columns=timing
        )
        io.write_parquet(job.history, history_path, units=runs.HISTORY_UNITS, meta=meta)
        evaluations = int(job.runs["n_evals"].iloc[0])
        done = "F%d D%d %s: %d x %d evaluations in %.2f s"
        log.info(done, function, dim, algorithm, cfg["runs"], evaluations, job.wall_s)


main(snakemake)  # noqa: F821
