"""Rule calibration_polishing: Table 9, dwell-point tracking on a phi 150 mm part (§3.2.3)."""

from paramid import io
from paramid.calibration import paper, polish, report


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_polishing")
    runs = list(range(cfg["runs"]))
    fits = report.fits_by_model({p: io.read_parquet(p)[0] for p in smk.input.fits})
    data, truth = io.read_parquet(smk.input.data)[0], io.read_json(smk.input.truth)
    ident = io.read_json(smk.input.ident)
    problems = {name: report.run_problems(data, truth, ident[name]["free"], runs) for name in fits}
    setup = polish.PolishingSetup.from_config(cfg, truth)
    printed = io.read_printed(smk.input.paper, paper.printed_values)
    t9, points = polish.table9(fits, problems, setup, printed)
    io.write_csv(t9, smk.output.csv)
    caption = (
        f"Table 9 ({cfg['study']}): polishing path [mm, %], each column the mean over "
        f"{len(runs)} repeats (the mean of each repeat's maximum, of its share within the band)"
    )
    io.write_markdown(t9[polish.TABLE9_COLUMNS], smk.output.md, caption=caption)
    meta = io.provenance(
        cfg, smk.input, stage="calibration_polishing", n_points=int(setup.targets.shape[0])
    )
    io.write_parquet(points, smk.output.points, units=polish.POINT_UNITS, meta=meta)
    for row in t9.itertuples():
        log.info("%s: mean %.4f mm, max %.4f mm", row.method, row.mean_mm, row.max_mm)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
