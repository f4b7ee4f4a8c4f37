"""Rule hip_stats: validation-RMSE comparisons over seeds (Welch or one-sample t,
Mann-Whitney or Wilcoxon signed-rank, Holm, effect sizes): paramid.hip.tables.comparisons."""

from pathlib import Path

from paramid import io
from paramid.hip import tables


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_stats")
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    table = tables.comparisons(fits, seed_keys=(cfg["study"], "stats"))
    io.write_csv(table, smk.output.csv)
    caption = (
        f"Statistics ({cfg['study']}): validation RMSE, a vs b over seeds; Holm over the family "
        "of rows; bootstrap 95 % CI of median(a) - median(b); medians, differences and CI in "
        "N m, median_diff_pct in %"
    )
    io.write_markdown(table, smk.output.md, digits=4, caption=caption)
    log.info("%d comparisons", len(table))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
