# Stage 9: the claims audit of each study (the paper's numbers, or published reference values,
# beside ours, with a verdict and a reason). `snakemake --cores 8 audit` builds all of them.


rule audit_study:
    input:
        unpack(audit_inputs),
    output:
        csv=report(
            "results/{study}/audit.csv",
            caption="../report/audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        md="results/{study}/audit.md",
    log:
        "logs/{study}/audit.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=audit_params,
    script:
        "../../scripts/audit.py"


rule audit:
    input:
        audit_targets(),
        [t for t in nonlinear_targets() if t.endswith(("audit.csv", "audit.md"))],
        [t for t in CEC_TARGETS if t.endswith("audit.csv")],
        [f"results/{s}/audit.{ext}" for s in CAL_STUDIES for ext in ("csv", "md")],
