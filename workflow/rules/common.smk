# Helpers shared by the stage files: study lookup, config subsets (passed as params, so that a
# change reruns exactly the stages that read it) and the list of final targets.

STUDIES = list(config["studies"])
RECORDS = ["calibration", "validation"]
DETERMINISTIC_METHODS = ["ls", "bcls"]
POPULATION_METHODS = ["pso", "rls_pso", "rls_ga", "rls_gwo", "rls_agwo"]
FIG3_SELECTED = ["bcls", "rls_gwo", "rls_agwo"]  # the three fits shown in Figure 3a-b


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


def fit_population_params(wildcards):
    study = study_config(wildcards)
    # only the settings block of this method's optimiser, so editing GA settings reruns GA only
    block = {"pso": "pso", "rls_pso": "pso", "rls_ga": "ga", "rls_agwo": "agwo"}.get(wildcards.method)
    return {
        "study": wildcards.study,
        "method": wildcards.method,
        "regressor": study["regressor"],
        "population": study["population"],
        **({block: study[block]} if block else {}),
    }


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


def selected_fits(wildcards):
    return expand(
        "results/{study}/fits/{method}.parquet", study=wildcards.study, method=FIG3_SELECTED
    )


def study_targets(study):
    base = f"results/{study}"
    methods = config["studies"][study]["methods"]
    targets = [
        f"{base}/rls/summary.json",
        *(f"{base}/tables/{name}.{ext}" for name in ("table3", "table4") for ext in ("csv", "md")),
    ]
    population = [m for m in methods if m in POPULATION_METHODS]
    if population and "bcls" in methods:
        targets += [f"{base}/tables/stats.{ext}" for ext in ("csv", "md")]
    if population:
        targets += [f"{base}/figures/fig3c.{ext}" for ext in ("png", "pdf")]
    if population and "bcls" in methods:
        targets += [f"{base}/figures/fig3d.{ext}" for ext in ("png", "pdf")]
    if set(FIG3_SELECTED) <= set(methods):
        targets += [f"{base}/figures/{fig}.{ext}" for fig in ("fig3a", "fig3b") for ext in ("png", "pdf")]
    return targets


def all_targets():
    return [target for study in STUDIES for target in study_targets(study)]
