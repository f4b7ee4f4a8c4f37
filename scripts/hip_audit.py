"""Rule hip_audit: a study's claims audit (audit.csv and audit.md)."""

import pandas as pd

from paramid import estimators, io
from paramid.audit import audit_caption
from paramid.hip import audit, model, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_audit")
    table3 = pd.read_csv(smk.input.table3)
    table4 = pd.read_csv(smk.input.table4)
    if "paper" in smk.input.keys():
        cutoff = median = None
        seed = cfg["twin"]["seed"] if cfg["twin"] is not None else 0
        if "cutoff" in smk.input.keys():  # the default twin's BCLS per cutoff (Figure 4b's line)
            points = pd.concat([io.read_parquet(p)[0] for p in smk.input.cutoff])
            cutoff = points[points["run"] == seed].set_index("value")["val_rmse"]
            median = points.groupby("value")["val_rmse"].median()  # sweep_cutoff_hz.csv's
        result = audit.hip_audit(
            table3,
            table4,
            pd.read_csv(smk.input.stats),
            io.read_json(smk.input.rls),
            pd.read_csv(smk.input.margin) if "margin" in smk.input.keys() else None,
            cutoff,
            io.read_yaml(smk.input.paper),
            twin=cfg["twin"] is not None,
            calibrated=cfg["twin"] is not None and twin.is_calibrated(cfg["twin"]),
            cutoff_hz=cfg["cutoff_hz"],
            cutoff_seed=seed,
            cutoff_median=median,
        )
    else:
        reference = cfg["reference"]
        names = model.parameter_names(cfg["regressor"])
        H, y, _ = io.read_regression(smk.input.validation, cfg["regressor"])
        values = reference["values"]
        missing = [n for n in names if n not in values]  # a reference may give only some
        result = audit.reference_audit(
            table4,
            table3,
            values,
            None if missing else estimators.rmse(H, y, [values[n] for n in names]),
            estimators.rmse(H, y, estimators.ls(H, y)),
            reference.get("source", "reference"),
            reference.get("note", ""),
            reference["fitted_on_validation"],
            missing,
            reference.get("derived", ()),
        )
    partly = cfg["twin"] is not None and twin.partly_calibrated(cfg["twin"])
    if partly:
        log.warning(partly)
    caption = audit_caption(cfg["study"], list(result["verdict"]))
    log.info(io.write_table(result, smk.output.csv, smk.output.md, caption))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
