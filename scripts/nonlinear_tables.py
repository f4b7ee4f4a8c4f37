"""Rule nonlinear_tables: summary per cell, AGWO-vs-comparator statistics (effect sizes, Holm)
and the audit (audit.csv, audit.md) with the conclusion on the paper's open question (§5.1,
§5.3)."""

import pandas as pd

from paramid import io
from paramid.audit import audit_caption
from paramid.friction import laws, report
from paramid.hip import twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_tables")
    runs = pd.concat([io.read_parquet(p)[0] for p in smk.input.fits], ignore_index=True)
    summary = report.summary_table(runs)
    io.write_csv(summary, smk.output.summary)

    s = cfg["stats"]
    table = report.judged_stats_table(
        runs,
        n_boot=s["n_boot"],
        seed_keys=(cfg["study"], "stats"),
        alpha=s["alpha"],
        min_delta=s["min_cliffs_delta"],
    )
    io.write_csv(table, smk.output.stats)
    caption = (
        f"Statistics ({cfg['study']}): RLS-AGWO (a) vs each method (b) per true/fitted friction "
        "law over seeds; Holm over all rows of a metric; bootstrap 95 % CI of median(a) - "
        "median(b); the metrics are RMSEs: medians, differences and CI in N m, median_diff_pct "
        "in %"
    )
    io.write_markdown(table, smk.output.stats_md, digits=4, caption=caption)

    audit = report.audit_rows(
        table,
        summary,
        nonlinear_models=laws.nonlinear_laws(cfg["fitted"]),
        alpha=s["alpha"],
        min_delta=s["min_cliffs_delta"],
        calibrated_noise=twin.is_calibrated(cfg["twin"]),
    )
    audit_summary = audit_caption(cfg["study"], list(audit["verdict"]))
    io.write_table(audit, smk.output.audit, smk.output.audit_md, audit_summary)
    log.info("%d cells, %d comparisons", len(summary), len(table))
    conclusion = audit[audit.claim == "conclusion"].iloc[0]
    log.info("conclusion: %s (%s)", conclusion.verdict, conclusion.reason)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
