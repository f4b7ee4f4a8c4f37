# Helpers of workflow/rules/excitation.smk (functions only; the rules live there).

EXCITATION = config.get("excitation", {})
HIP_DESIGNS = [k for k, v in EXCITATION.items() if v["kind"] == "hip"]
CHAIN_DESIGNS = [k for k, v in EXCITATION.items() if v["kind"] == "chain"]


def excitation_design_params(wildcards):
    block = EXCITATION[wildcards.study]
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
    block = EXCITATION[wildcards.study]
    study = config["studies"][block["base_study"]]
    base = {k: study[k] for k in ("twin", "gravity", "regressor", "records", "rls")}
    base["signals"] = fixed_signal_settings(study)
    return {"comparison": block["comparison"], "base": base}


def excitation_figure_params(wildcards):
    study = config["studies"][EXCITATION[wildcards.study]["base_study"]]
    return {"calibration": study["records"]["calibration"], "style": config["figures"]}


def chain_recovery_params(wildcards):
    block = EXCITATION[wildcards.study]
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
