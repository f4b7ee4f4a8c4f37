"""Rule cec2022_tables: Table 3/4 (with the paper's values) and the per-function ranks."""

from paramid import io
from paramid.cec2022 import runs as run_files
from paramid.cec2022 import study


def main(smk) -> None:
    dim = int(smk.wildcards.dim)
    log = io.start_log(smk.log[0], "cec2022_tables")
    runs = run_files.by_cell({p: io.read_parquet(p)[0] for p in smk.input.runs})
    times = run_files.time_per_run(runs)
    paper = study.paper_values_frame(io.read_yaml(smk.input.paper), smk.input.paper)
    table = study.summary_table(runs, times, paper, dim)
    io.write_csv(table, smk.output.table)
    io.write_csv(study.rank_table(table), smk.output.ranks)
    log.info("D%d: %d (function, algorithm) jobs summarised", dim, len(table))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
