# The KR210 calibration paper's claims audit (Tables 6-9, §3.2.2): every printed number and
# claim beside the study's value, with a verdict and a reason (paramid.calibration.audit).
# Reads the tables of workflow/rules/calibration.smk and the fits its ordering claims compare
# pairwise; included after calibration.smk (it uses CAL_STUDIES and _cal_fits).

from paramid.calibration.audit import FIT_IDENTIFIERS as CAL_AUDIT_FITS


rule calibration_audit:
    input:
        table6="results/{study}/tables/table6.csv",
        table7="results/{study}/tables/table7.csv",
        table8="results/{study}/tables/table8.csv",
        table9="results/{study}/tables/table9.csv",
        hybrid="results/{study}/tables/hybrid_runtime.csv",
        fits=lambda wc: _cal_fits(wc, CAL_AUDIT_FITS),
    output:
        csv=report(
            "results/{study}/audit.csv",
            caption="../report/calibration_audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        md="results/{study}/audit.md",
    log:
        "logs/{study}/calibration_audit.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {"study": wc.study},
    script:
        "../../scripts/calibration_audit.py"
