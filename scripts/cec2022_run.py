"""Rule cec2022_run: all runs of one (function, dimension, algorithm) in one batched call."""

from paramid import io
from paramid.cec2022 import runs


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "cec2022_run")
    function, dim = int(smk.wildcards.function), int(smk.wildcards.dim)
    algorithm = smk.wildcards.algorithm
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
    io.write_parquet(
        job.runs,
        smk.output.runs,
        units=runs.RUN_UNITS,
        meta=meta,
        nondeterministic_columns=["time_s"],
    )
    io.write_parquet(job.history, smk.output.history, units=runs.HISTORY_UNITS, meta=meta)
    evaluations = int(job.runs["n_evals"].iloc[0])
    done = "F%d D%d %s: %d x %d evaluations in %.2f s"
    log.info(done, function, dim, algorithm, cfg["runs"], evaluations, job.wall_s)


main(snakemake)  # noqa: F821
