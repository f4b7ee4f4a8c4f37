"""Rule calibration_audit: the KR210 calibration paper's claims audit (audit.csv and audit.md)."""

from pathlib import Path

import pandas as pd

from paramid import io
from paramid.audit import audit_caption
from paramid.calibration import audit, paper, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_audit")
    tables = {
        name: pd.read_csv(smk.input[name])
        for name in ("table6", "table7", "table8", "table9", "hybrid")
    }
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    histories = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.histories}
    calibrated = twin.is_calibrated(cfg["twin"])
    (path,) = smk.input.paper  # the audit runs only where the study gives the paper's values
    printed = paper.printed_values(io.read_yaml(path), path)
    result = audit.kr210_audit(
        **tables, fits=fits, printed=printed, calibrated=calibrated, histories=histories
    )
    caption = audit_caption(cfg["study"], list(result["verdict"]))
    log.info(io.write_table(result, smk.output.csv, smk.output.md, caption))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
