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
    wildcard_constraints:
        study=one_of(HIP_DESIGNS + CHAIN_DESIGNS),
    params:
        cfg=excitation_design_params,
    log:
        "logs/{study}/design_excitation.log",
    script:
        "../../scripts/design_excitation.py"


rule excitation_comparison:
    input:
        design="results/{study}/excitation/design.json",
    output:
        seeds="results/{study}/comparison/seeds.parquet",
        table="results/{study}/tables/comparison.csv",
        sensitivity="results/{study}/tables/comparison_sensitivity.csv",
    wildcard_constraints:
        study=one_of(HIP_DESIGNS),
    params:
        cfg=excitation_comparison_params,
    log:
        "logs/{study}/excitation_comparison.log",
    script:
        "../../scripts/excitation_compare.py"


rule excitation_figure:
    input:
        design="results/{study}/excitation/design.json",
        seeds="results/{study}/comparison/seeds.parquet",
    output:
        png="results/{study}/figures/excitation.png",
        pdf="results/{study}/figures/excitation.pdf",
    wildcard_constraints:
        study=one_of(HIP_DESIGNS),
    params:
        cfg=excitation_figure_params,
    log:
        "logs/{study}/excitation_figure.log",
    script:
        "../../scripts/excitation_figure.py"


rule chain_recovery:
    input:
        design="results/{study}/excitation/design.json",
    output:
        table="results/{study}/tables/recovery.csv",
        summary="results/{study}/tables/recovery.json",
    wildcard_constraints:
        study=one_of(CHAIN_DESIGNS),
    params:
        cfg=chain_recovery_params,
    log:
        "logs/{study}/chain_recovery.log",
    script:
        "../../scripts/chain_recovery.py"
