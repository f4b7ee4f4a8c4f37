# Helpers shared by the stage files: study lookup, config subsets (passed as params, so that a
# change reruns exactly the stages that read it) and the list of final targets.

STUDIES = list(config["studies"])
RECORDS = ["calibration", "validation"]


def study_config(wildcards):
    return config["studies"][wildcards.study]


def simulate_params(wildcards):
    study = study_config(wildcards)
    return {
        "record": wildcards.record,
        "twin": study["twin"],
        "gravity": study["gravity"],
        "spec": study["records"][wildcards.record],
    }


def signals_params(wildcards):
    study = study_config(wildcards)
    return {
        "signals": study["signals"],
        "regressor": study["regressor"],
        "gravity": study["gravity"],
    }


def rls_params(wildcards):
    study = study_config(wildcards)
    return {"rls": study["rls"], "agwo": study["agwo"], "regressor": study["regressor"]}


def fit_params(wildcards):
    study = study_config(wildcards)
    return {"method": wildcards.method, "regressor": study["regressor"], "fit": study["fit"]}


def tables_params(wildcards):
    study = study_config(wildcards)
    return {
        "study": wildcards.study,
        "methods": study["methods"],
        "regressor": study["regressor"],
        "x_true": study.get("twin", {}).get("x_true"),
    }


def paper_values(wildcards):
    path = study_config(wildcards).get("paper_values")
    return [path] if path else []


def study_targets(study):
    base = f"results/{study}"
    return [
        f"{base}/rls/summary.json",
        *(f"{base}/tables/{name}.{ext}" for name in ("table3", "table4") for ext in ("csv", "md")),
    ]


def all_targets():
    return [target for study in STUDIES for target in study_targets(study)]
