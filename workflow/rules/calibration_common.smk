# Helpers of workflow/rules/calibration.smk (functions and constants only; rules live there).

CAL_STUDIES = list(config.get("calibration", {}))
CAL_IDENTIFIERS = [
    "bc", "ekf", "ekf_gsbise", "ekf_mipo", "mipo_arkekf",
    "ipso", "lasso", "ukf", "lm_ga", "ekf_dqpso",
]
# config blocks each identifier reads (editing one reruns only the identifiers that read it)
CAL_BLOCKS = {
    "bc": [],
    "ekf": ["ekf"],
    "ekf_gsbise": ["ekf"],
    "ekf_mipo": ["ekf", "tuning"],
    "mipo_arkekf": ["ekf", "tuning"],
    "ipso": ["ipso", "search_box"],
    "lasso": ["lasso"],
    "ukf": ["ukf", "ekf"],
    "lm_ga": ["lm_ga", "search_box"],
    "ekf_dqpso": ["ekf_dqpso", "ekf", "search_box"],
}
CAL_FIGURES = ["fig8", "fig10", "fig11", "fig12", "fig13"]
CAL_POLISHING = ["bc", "ekf", "ipso", "lasso", "ukf", "mipo_arkekf"]  # Table 9 rows


def _cal(wildcards):
    return config["calibration"][wildcards.cal]


def _cal_base(wildcards):
    return {
        "data": f"results/{wildcards.cal}/calibration/dataset.parquet",
        "truth": f"results/{wildcards.cal}/calibration/truth.json",
        "ident": f"results/{wildcards.cal}/calibration/identifiability.json",
    }


def _cal_fits(wildcards, identifiers=None):
    return expand(
        "results/{cal}/calibration/fits/{identifier}.parquet",
        cal=wildcards.cal,
        identifier=identifiers or CAL_IDENTIFIERS,
    )


def calibration_targets(study):
    """Final outputs of one calibration study (for rule all)."""
    base = f"results/{study}"
    tables = ["table6", "table7", "hybrid_runtime", "parameter_recovery_summary", "table8", "table9"]
    return [
        f"{base}/identifiability.csv",
        *(f"{base}/tables/{t}.{ext}" for t in tables for ext in ("csv", "md")),
        f"{base}/tables/parameter_recovery.csv",
        *(f"{base}/figures/{f}.{ext}" for f in CAL_FIGURES for ext in ("png", "pdf")),
    ]
