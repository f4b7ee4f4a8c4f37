"""Rule cec2022_stats: Friedman ranks, Wilcoxon of the reference against each peer (Holm),
run-level Mann-Whitney per function, and the audit of the paper's ranking claims (audit.csv and
audit.md, as the other studies')."""

import pandas as pd

from paramid import io
from paramid.audit import audit_caption
from paramid.cec2022 import paper, study
from paramid.cec2022 import runs as run_files


def main(smk) -> None:
    reference = smk.params.cfg["reference"]
    log = io.start_log(smk.log[0], "cec2022_stats")
    dims = smk.params.cfg["dims"]  # the order of the tables' files (Cec2022Benchmark.tables)
    tables = dict(zip(dims, map(pd.read_csv, smk.input.tables), strict=True))
    ranks = dict(zip(dims, map(pd.read_csv, smk.input.ranks), strict=True))
    runs = run_files.split_jobs({p: io.read_parquet(p)[0] for p in smk.input.runs})
    friedman = study.friedman_table(tables)
    wilcoxon = study.wilcoxon_table(tables, reference=reference)
    io.write_csv(friedman, smk.output.friedman)
    io.write_csv(wilcoxon, smk.output.wilcoxon)
    io.write_csv(study.run_level_tests(runs, reference=reference), smk.output.runs_tests)
    intervals = study.rank_intervals(runs)
    claims_tests = study.claims_tests(tables, wilcoxon, reference)
    places = paper.text_places(io.read_yaml(smk.input.paper), smk.input.paper)
    audit = study.audit_table(ranks, friedman, claims_tests, tables, intervals, text_places=places)
    caption = audit_caption("cec2022", list(audit["verdict"]))
    io.write_table(audit, smk.output.audit, smk.output.audit_md, caption)
    log.info(
        "%s against its peers: %d Wilcoxon rows, %d run sets", reference, len(wilcoxon), len(runs)
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
