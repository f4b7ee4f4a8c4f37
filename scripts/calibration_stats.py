"""Rule calibration_stats: Table 8, M5 against BC, M1-M4 and the hybrids, paired by run (paired
t, Wilcoxon, Holm), the paper's Student t, and the p-values the paper's printed numbers imply."""

from pathlib import Path

from paramid import io
from paramid.calibration import paper, significance


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_stats")
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    printed = io.read_printed(smk.input.paper, paper.printed_values)
    t8 = significance.table8(fits, printed, study=cfg["study"], n_boot=cfg["n_boot"])
    io.write_csv(t8, smk.output.csv)
    cols = [
        "comparison",
        "n_runs",
        "mean_diff_mm",
        "holm_p_paired_t",
        "holm_p_wilcoxon",
        "significant",
        "student_p",
        "paper_mean_diff_mm",
        "paper_diff_of_means_mm",
        "paper_p",
        "paper_student_p",
        "paper_welch_p",
        "paper_diff_consistent",
        "paper_p_consistent",
    ]
    io.write_markdown(
        t8[cols],
        smk.output.md,
        caption=f"Table 8 ({cfg['study']}): RMSE, M5 vs others, paired by run; the paper's "
        "printed difference and p beside what its printed means and SDs imply",
    )
    for row in t8.itertuples():
        log.info(
            "%s: diff %.5f mm, Holm paired-t p %.3g, Holm Wilcoxon p %.3g; paper: %s; %s",
            row.comparison,
            row.mean_diff_mm,
            row.holm_p_paired_t,
            row.holm_p_wilcoxon,
            row.paper_diff_check,
            row.paper_p_check,
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
