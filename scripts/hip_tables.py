"""Rule hip_tables: Table 3 and Table 4 as CSV and Markdown, beside the paper's printed values."""

from pathlib import Path

from paramid import io
from paramid.hip import model, tables


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_tables")
    loaded = {Path(p).stem: io.read_parquet(p) for p in smk.input.fits}
    fits = {method: frame for method, (frame, _) in loaded.items()}
    timing = tables.batched_timing({method: meta for method, (_, meta) in loaded.items()})
    paper = io.read_yaml(smk.input.paper[0]) if smk.input.paper else {}
    names = model.parameter_names(cfg["regressor"])

    t3 = tables.table3(fits, paper.get("table3"), timing)
    t4 = tables.table4(fits, names, cfg["reference"], paper.get("table4"))
    study = cfg["study"]
    io.write_csv(t3, smk.output.table3)
    io.write_csv(t4, smk.output.table4)
    printed = "; paper_* = printed" if paper else ""
    io.write_markdown(
        t3,
        smk.output.table3_md,
        caption=f"Table 3 ({study}): RMSE in N m; time per run in ms (population methods: "
        f"batched wall time / runs, mean and SD over repeats){printed}",
    )
    units = model.parameter_units(cfg["regressor"])
    in_units = ", ".join(f"{name} [{units[name]}]" for name in names)
    io.write_markdown(
        t4,
        smk.output.table4_md,
        caption=f"Table 4 ({study}): base parameters of each method's median run (of an even "
        f"count the lower middle one; upper_* = the upper){printed}; {in_units}",
    )
    log.info("tables for %s: %d methods", study, len(fits))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
