"""Rule calibration_stats: Table 8, M5 against BC, M1-M4 and the hybrids (t-tests, Holm, MWU)."""

from pathlib import Path

from paramid import io
from paramid.calibration import report


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_stats")
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    t8 = report.table8(fits, n_boot=cfg["n_boot"])
    io.write_csv(t8, smk.output.csv)
    cols = [
        "comparison",
        "mean_diff_mm",
        "student_t",
        "student_p",
        "significant",
        "paper_mean_diff_mm",
        "paper_p",
        "welch_p",
        "holm_p_welch",
        "mwu_p",
        "holm_p_mwu",
        "hedges_g",
        "cliffs_delta",
        "note",
    ]
    io.write_markdown(
        t8[cols], smk.output.md, caption=f"Table 8 ({cfg['study']}): RMSE, M5 vs others"
    )
    for row in t8.itertuples():
        log.info("%s: diff %.5f mm, p %.3g", row.comparison, row.mean_diff_mm, row.student_p)


main(snakemake)  # noqa: F821
