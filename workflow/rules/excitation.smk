# Excitation design (issue #7; excitation paper Eq 7-10): optimal Fourier trajectories, the
# hip comparison of Eq 18 vs the designed trajectory (with and without P-period averaging),
# and the 4-joint planar chain (base parameters, designed excitation, recovery on its twin).
# Config: the top-level block `excitation:` of config.yaml; each entry
# names an output folder results/<name>/ (helpers: paramid.excitation.workflow).


rule excitation_design:
    output:
        json="results/{study}/excitation/design.json",
        trajectory="results/{study}/excitation/trajectory.parquet",
    log:
        "logs/{study}/excitation_design.log",
    wildcard_constraints:
        study=one_of(EXCITATION.names),
    params:
        cfg=EXCITATION.design_params,
    script:
        "../../scripts/excitation_design.py"


rule excitation_compare:
    input:
        design="results/{study}/excitation/design.json",
    output:
        seeds="results/{study}/comparison/seeds.parquet",
        table=report(
            "results/{study}/tables/comparison.csv",
            caption="../report/excitation_compare.rst",
            category="{study}",
            subcategory="Tables",
        ),
        sensitivity=report(
            "results/{study}/tables/comparison_sensitivity.csv",
            caption="../report/excitation_sensitivity.rst",
            category="{study}",
            subcategory="Tables",
        ),
    log:
        "logs/{study}/excitation_compare.log",
    wildcard_constraints:
        study=one_of(EXCITATION.hip),
    params:
        cfg=EXCITATION.compare_params,
    script:
        "../../scripts/excitation_compare.py"


rule excitation_figure:
    input:
        design="results/{study}/excitation/design.json",
        seeds="results/{study}/comparison/seeds.parquet",
    output:
        png=report(
            "results/{study}/figures/excitation.png",
            caption="../report/excitation_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/excitation.pdf",
    log:
        "logs/{study}/excitation_figure.log",
    wildcard_constraints:
        study=one_of(EXCITATION.hip),
    params:
        cfg=EXCITATION.figure_params,
    script:
        "../../scripts/excitation_figure.py"


rule excitation_chain_recovery:
    input:
        design="results/{study}/excitation/design.json",
    output:
        table=report(
            "results/{study}/tables/recovery.csv",
            caption="../report/excitation_chain_recovery.rst",
            category="{study}",
            subcategory="Tables",
        ),
        summary="results/{study}/tables/recovery.json",
    log:
        "logs/{study}/excitation_chain_recovery.log",
    wildcard_constraints:
        study=one_of(EXCITATION.chain),
    params:
        cfg=EXCITATION.chain_recovery_params,
    script:
        "../../scripts/excitation_chain_recovery.py"


rule excitation_audit:
    input:
        unpack(EXCITATION.audit_inputs),
    output:
        csv=report(
            "results/{study}/audit.csv",
            caption="../report/excitation_audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        md="results/{study}/audit.md",
    log:
        "logs/{study}/excitation_audit.log",
    wildcard_constraints:
        study=one_of(EXCITATION.names),
    params:
        cfg=EXCITATION.audit_params,
    script:
        "../../scripts/excitation_audit.py"
