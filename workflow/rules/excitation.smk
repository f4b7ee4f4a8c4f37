# Excitation design (issue #7; excitation paper Eq 7-10): optimal Fourier trajectories, the
# hip comparison of Eq 18 vs the designed trajectory (with and without P-period averaging),
# and the 4-joint planar chain (base parameters, designed excitation, recovery on its twin).
# Config: the top-level block `excitation:` (docs/fragments/hip_designed.yaml); each entry
# names an output folder results/<name>/.  Final targets: excitation_targets().

EXCITATION = config.get("excitation", {})
HIP_DESIGNS = [k for k, v in EXCITATION.items() if v["kind"] == "hip"]
CHAIN_DESIGNS = [k for k, v in EXCITATION.items() if v["kind"] == "chain"]
_NEVER = "(?!x)x"  # a wildcard pattern that matches nothing (no study of that kind)


def _names(names):
    return "|".join(names) if names else _NEVER


def excitation_design_params(wildcards):
    block = EXCITATION[wildcards.xstudy]
    design = {k: v for k, v in block.items() if k not in ("comparison", "twin", "identification")}
    if block["kind"] == "hip":
        study = config["studies"][block["base_study"]]
        design["sample_rate_hz"] = study["twin"]["sample_rate_hz"]
        base = {
            "regressor": study["regressor"],
            "gravity": study["gravity"],
            "records": {block["limits_from_record"]: study["records"][block["limits_from_record"]]},
        }
        return {"design": design, "base": base}
    design["sample_rate_hz"] = block["twin"]["sample_rate_hz"]
    return {"design": design}


def excitation_comparison_params(wildcards):
    block = EXCITATION[wildcards.xstudy]
    study = config["studies"][block["base_study"]]
    base = {k: study[k] for k in ("twin", "gravity", "regressor", "records", "signals", "rls")}
    return {"comparison": block["comparison"], "base": base}


def chain_recovery_params(wildcards):
    block = EXCITATION[wildcards.xstudy]
    design = {k: block[k] for k in ("kind", "gravity", "links", "base_samples")}
    return {"design": design, "twin": block["twin"], "identification": block["identification"]}


def excitation_targets():
    targets = []
    for name in HIP_DESIGNS:
        base = f"results/{name}"
        targets += [
            f"{base}/excitation/design.json",
            f"{base}/excitation/trajectory.parquet",
            f"{base}/tables/comparison.csv",
            f"{base}/tables/comparison_sensitivity.csv",
            f"{base}/figures/excitation.png",
            f"{base}/figures/excitation.pdf",
        ]
    for name in CHAIN_DESIGNS:
        base = f"results/{name}"
        targets += [
            f"{base}/excitation/design.json",
            f"{base}/excitation/trajectory.parquet",
            f"{base}/tables/recovery.csv",
            f"{base}/tables/recovery.json",
        ]
    return targets


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
