# Helpers of workflow/rules/calibration.smk (functions and constants only; rules live there).
# The identifiers, the config blocks each reads and the Table 9 (polishing) rows come from the
# library's one registry, paramid.calibration.identify.IDENTIFIERS.

from paramid.calibration.identify import IDENTIFIERS as _IDENTIFIERS

CAL_STUDIES = list(config.get("calibration", {}))
CAL_IDENTIFIERS = list(_IDENTIFIERS)
CAL_POLISHING = [name for name, spec in _IDENTIFIERS.items() if spec.polishing]
CAL_FIGURES = ["fig8", "fig10", "fig11", "fig12", "fig13"]


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


def _cal_fits(wildcards, identifiers=None):
    return expand(
        "results/{study}/calibration/fits/{identifier}.parquet",
        study=wildcards.study,
        identifier=identifiers or CAL_IDENTIFIERS,
    )


def _cal_histories(wildcards):
    return expand(
        "results/{study}/calibration/histories/{identifier}.parquet",
        study=wildcards.study,
        identifier=CAL_IDENTIFIERS,
    )


def calibration_targets(study):
    """Final outputs of one calibration study (for rule all)."""
    base = f"results/{study}"
    tables = [
        "table6",
        "table7",
        "hybrid_runtime",
        "parameter_recovery_summary",
        "table8",
        "table9",
    ]
    return [
        f"{base}/identifiability.csv",
        *(f"{base}/tables/{t}.{ext}" for t in tables for ext in ("csv", "md")),
        f"{base}/tables/parameter_recovery.csv",
        *(f"{base}/figures/{f}.{ext}" for f in CAL_FIGURES for ext in ("png", "pdf")),
    ]
