# Excitation design (issue #7; excitation paper Eq 7-10): optimal Fourier trajectories, the
# hip comparison of Eq 18 vs the designed trajectory (with and without P-period averaging),
# and the 4-joint planar chain (base parameters, designed excitation, recovery on its twin).
# Config: the top-level block `excitation:` of config.yaml; each entry
# names an output folder results/<name>/.  Final targets: excitation_targets().


include: "excitation_common.smk"


rule design_excitation:
    output:
        json="results/{study}/excitation/design.json",
        trajectory="results/{study}/excitation/trajectory.parquet",
    log:
        "logs/{study}/design_excitation.log",
    wildcard_constraints:
        study=one_of(HIP_DESIGNS + CHAIN_DESIGNS),
    params:
        cfg=excitation_design_params,
    script:
        "../../scripts/design_excitation.py"


rule excitation_comparison:
    input:
        design="results/{study}/excitation/design.json",
    output:
        seeds="results/{study}/comparison/seeds.parquet",
        table=report(
            "results/{study}/tables/comparison.csv",
            caption="../report/excitation_comparison.rst",
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
        "logs/{study}/excitation_comparison.log",
    wildcard_constraints:
        study=one_of(HIP_DESIGNS),
    params:
        cfg=excitation_comparison_params,
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
        study=one_of(HIP_DESIGNS),
    params:
        cfg=excitation_figure_params,
    script:
        "../../scripts/excitation_figure.py"


rule chain_recovery:
    input:
        design="results/{study}/excitation/design.json",
    output:
        table=report(
            "results/{study}/tables/recovery.csv",
            caption="../report/chain_recovery.rst",
            category="{study}",
            subcategory="Tables",
        ),
        summary="results/{study}/tables/recovery.json",
    log:
        "logs/{study}/chain_recovery.log",
    wildcard_constraints:
        study=one_of(CHAIN_DESIGNS),
    params:
        cfg=chain_recovery_params,
    script:
        "../../scripts/chain_recovery.py"
