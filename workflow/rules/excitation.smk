# Excitation design (issue #7; excitation paper Eq 7-10): optimal Fourier trajectories, the
# hip comparison of Eq 18 vs the designed trajectory (with and without P-period averaging),
# and the 4-joint planar chain (base parameters, designed excitation, recovery on its twin).
# Config: the top-level block `excitation:` of config.yaml; each entry
# names an output folder results/<name>/.  Final targets: excitation_targets().


include: "excitation_common.smk"


rule design_excitation:
    output:
        json="results/{xstudy}/excitation/design.json",
        trajectory="results/{xstudy}/excitation/trajectory.parquet",
    wildcard_constraints:
        xstudy=_names(HIP_DESIGNS + CHAIN_DESIGNS),
    params:
        cfg=excitation_design_params,
    log:
        "logs/{xstudy}/design_excitation.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/design_excitation.py"


rule excitation_comparison:
    input:
        design="results/{xstudy}/excitation/design.json",
    output:
        seeds="results/{xstudy}/comparison/seeds.parquet",
        table="results/{xstudy}/tables/comparison.csv",
        sensitivity="results/{xstudy}/tables/comparison_sensitivity.csv",
    wildcard_constraints:
        xstudy=_names(HIP_DESIGNS),
    params:
        cfg=excitation_comparison_params,
    log:
        "logs/{xstudy}/excitation_comparison.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/excitation_compare.py"


rule excitation_figure:
    input:
        design="results/{xstudy}/excitation/design.json",
        seeds="results/{xstudy}/comparison/seeds.parquet",
    output:
        png="results/{xstudy}/figures/excitation.png",
        pdf="results/{xstudy}/figures/excitation.pdf",
    wildcard_constraints:
        xstudy=_names(HIP_DESIGNS),
    params:
        cfg=lambda wc: {
            "calibration": config["studies"][EXCITATION[wc.xstudy]["base_study"]]["records"][
                "calibration"
            ],
            "style": config.get("figures", {}),
        },
    log:
        "logs/{xstudy}/excitation_figure.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/excitation_figure.py"


rule chain_recovery:
    input:
        design="results/{xstudy}/excitation/design.json",
    output:
        table="results/{xstudy}/tables/recovery.csv",
        summary="results/{xstudy}/tables/recovery.json",
    wildcard_constraints:
        xstudy=_names(CHAIN_DESIGNS),
    params:
        cfg=chain_recovery_params,
    log:
        "logs/{xstudy}/chain_recovery.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/chain_recovery.py"
