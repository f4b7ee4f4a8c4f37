"""Rule cec2022_tables: Table 3/4 (with the paper's values) and the per-function ranks."""

import re

from paramid import io
from paramid.cec2022 import runs as run_files
from paramid.cec2022 import study


def main(smk) -> None:
    dim = int(smk.wildcards.dim)
    log = io.start_log(smk.log[0], "cec2022_tables")
    runs, times = {}, {}
    for path in smk.input.runs:
        algorithm = re.search(r"(\w+)\.parquet$", path).group(1)
        for function, frame in run_files.by_function(io.read_parquet(path)[0]).items():
            runs[(function, algorithm)] = frame
            times[(function, algorithm)] = float(frame["time_s"].iloc[0])
    paper = study.read_paper_values(smk.input.paper)
    table = study.summary_table(runs, times, paper, dim)
    io.write_csv(table, smk.output.table)
    io.write_csv(study.rank_table(table), smk.output.ranks)
    log.info("D%d: %d (function, algorithm) jobs summarised", dim, len(table))


main(snakemake)  # noqa: F821
