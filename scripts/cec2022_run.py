"""Rule cec2022_run: all runs of one (function, dimension, algorithm) in one batched call."""

from paramid import io
from paramid.cec2022 import runs


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "cec2022_run")
    function, dim, algorithm = (
        int(smk.wildcards.function),
        int(smk.wildcards.dim),
        smk.wildcards.algorithm,
    )
    iterations = runs.iterations_for(dim, cfg["population"], cfg["iterations"], cfg["budget"])
    run_table, history, wall = runs.run_job(
        function,
        dim,
        algorithm,
        runs=cfg["runs"],
        population=cfg["population"],
        iterations=iterations,
        seed=cfg["seed"],
    )
    run_table["time_s"] = wall / cfg["runs"]
    meta = io.provenance(
        cfg,
        stage="cec2022_run",
        function=function,
        dim=dim,
        algorithm=algorithm,
        iterations=iterations,
        seed_stream=["cec2022", cfg["seed"], algorithm, function, dim, "<run>"],
        timing="wall time of the batched call of all runs / runs",
    )
    units = {"run": "1", "best_f": "1", "error": "1", "n_evals": "1", "time_s": "s"}
    io.write_parquet(
        run_table, smk.output.runs, units=units, meta=meta, nondeterministic_columns=["time_s"]
    )
    io.write_parquet(
        history,
        smk.output.history,
        units={"run": "1", "evaluations": "1", "best_f": "1"},
        meta=meta,
    )
    log.info(
        "F%d D%d %s: %d x %d evaluations in %.2f s",
        function,
        dim,
        algorithm,
        cfg["runs"],
        int(run_table["n_evals"].iloc[0]),
        wall,
    )


main(snakemake)  # noqa: F821
