# Helpers of workflow/rules/calibration.smk (functions and constants only; rules live there).
# The identifiers, the config blocks each reads and the Table 9 (polishing) rows come from the
# library's one registry, paramid.calibration.identify.IDENTIFIERS.

from paramid.calibration.identify import IDENTIFIERS as _IDENTIFIERS

CAL_STUDIES = list(config.get("calibration", {}))
CAL_IDENTIFIERS = list(_IDENTIFIERS)
CAL_MODELS = sorted(
    {m for study in config.get("calibration", {}).values() for m in study.get("models", {})}
)
CAL_POLISHING = [name for name, spec in _IDENTIFIERS.items() if spec.polishing]
CAL_FIGURES = ["fig8", "fig10", "fig11", "fig12", "fig13", "models"]


def _cal(wildcards):
    return config["calibration"][wildcards.study]


def _cal_blocks(identifier):
    """The config blocks an identifier reads (editing one reruns only the identifiers that
    read it)."""
    return _IDENTIFIERS[identifier].blocks


def _cal_base(wildcards):
    return {
        "data": f"results/{wildcards.study}/calibration/dataset.parquet",
        "truth": f"results/{wildcards.study}/calibration/truth.json",
        "ident": f"results/{wildcards.study}/calibration/identifiability.json",
    }


def _cal_model_identifiers(study):
    """{model: identifiers} of a study (``all`` = every registered identifier)."""
    models = config["calibration"][study]["models"]
    return {
        name: CAL_IDENTIFIERS if spec["identifiers"] == "all" else list(spec["identifiers"])
        for name, spec in models.items()
    }


def _cal_fits(wildcards, identifiers=None):
    """Fits of the paper's model (Tables 6-8, figures)."""
    return expand(
        "results/{study}/calibration/fits/paper/{identifier}.parquet",
        study=wildcards.study,
        identifier=identifiers or _cal_model_identifiers(wildcards.study)["paper"],
    )


def _cal_all_fits(wildcards, polishing=False):
    """Fits of every model and its identifiers (only Table 9 rows with ``polishing``)."""
    return [
        f"results/{wildcards.study}/calibration/fits/{model}/{ident}.parquet"
        for model, idents in _cal_model_identifiers(wildcards.study).items()
        for ident in idents
        if not polishing or ident in CAL_POLISHING
    ]


def _cal_figure_fits(wildcards):
    """Fig 8 reads no fit, the models figure every model's, the others the paper model's."""
    if wildcards.calfig == "fig8":
        return []
    return _cal_all_fits(wildcards) if wildcards.calfig == "models" else _cal_fits(wildcards)


def _cal_histories(wildcards):
    return expand(
        "results/{study}/calibration/histories/paper/{identifier}.parquet",
        study=wildcards.study,
        identifier=_cal_model_identifiers(wildcards.study)["paper"],
    )


def calibration_targets(study):
    """Final outputs of one calibration study (for rule all)."""
    base = f"results/{study}"
    tables = [
        "table6",
        "table7",
        "models",
        "hybrid_runtime",
        "parameter_recovery_summary",
        "table8",
        "table9",
    ]
    return [
        f"{base}/identifiability.csv",
        *(f"{base}/tables/{t}.{ext}" for t in tables for ext in ("csv", "md")),
        f"{base}/tables/parameter_recovery.csv",
        f"{base}/audit.csv",
        f"{base}/audit.md",
        *(f"{base}/figures/{f}.{ext}" for f in CAL_FIGURES for ext in ("png", "pdf")),
    ]
