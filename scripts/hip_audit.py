"""Rule hip_audit: a study's claims audit (audit.csv and audit.md)."""

import pandas as pd

from paramid import io
from paramid.audit import audit_caption
from paramid.hip import audit, model, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_audit")
    table3 = pd.read_csv(smk.input.table3)
    table4 = pd.read_csv(smk.input.table4)
    if "paper" in smk.input.keys():
        cutoff = median = None
        seed = twin.own_seed(cfg["twin"])
        if "cutoff" in smk.input.keys():  # the default twin's BCLS per cutoff (Figure 4b's line)
            points = pd.concat([io.read_parquet(p)[0] for p in smk.input.cutoff])
            cutoff, median = audit.cutoff_series(points, seed)
        result = audit.hip_audit(
            table3,
            table4,
            pd.read_csv(smk.input.stats),
            io.read_json(smk.input.rls),
            pd.read_csv(smk.input.margin) if "margin" in smk.input.keys() else None,
            cutoff,
            io.read_yaml(smk.input.paper),
            twin=cfg["twin"] is not None,
            calibrated=twin.is_calibrated(cfg["twin"]),
            cutoff_hz=cfg["cutoff_hz"],
            cutoff_seed=seed,
            cutoff_median=median,
        )
    else:
        H, y, _ = io.read_regression(smk.input.validation, cfg["regressor"])
        names = model.parameter_names(cfg["regressor"])
        result = audit.record_reference_audit(table4, table3, cfg["reference"], names, H, y)
    partly = twin.partly_calibrated(cfg["twin"])
    if partly:
        log.warning(partly)
    caption = audit_caption(cfg["study"], list(result["verdict"]))
    log.info(io.write_table(result, smk.output.csv, smk.output.md, caption))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
