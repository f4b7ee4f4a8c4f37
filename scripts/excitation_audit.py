"""Rule excitation_audit: the excitation paper's claims audit of one design (audit.csv and
audit.md): its structure against Eq 8-10, and, for a design compared on the hip twin, the
benefits the paper claims (paramid.excitation.audit)."""

import pandas as pd

from paramid import io
from paramid.audit import audit_caption
from paramid.excitation import audit


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_audit")
    design = io.read_json(smk.input.design)
    compared = "comparison" in smk.input.keys()
    comparison = pd.read_csv(smk.input.comparison) if compared else None
    per_seed = io.read_parquet(smk.input.seeds)[0] if compared else None
    result = audit.excitation_audit(design, comparison, per_seed)
    caption = audit_caption(cfg["study"], list(result["verdict"]))
    log.info(io.write_table(result, smk.output.csv, smk.output.md, caption))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
