# KR210 kinematic calibration (issue #9; the MIPO-ARKEKF paper, §2-3).  Studies live under
# config["calibration"] (one block per study, e.g. kr210); wildcard {study} names one.
# DAG: simulate_calibration (one data set per repeat) -> calibration_identifiability (every
# model) -> calibrate (one job per model and identifier, each run on its own data set) -> calibration_tables / calibration_stats / polishing_path /
# calibration_figure.  Each rule gets only the config blocks it reads as params.


include: "calibration_common.smk"


rule simulate_calibration:
    output:
        data="results/{study}/calibration/dataset.parquet",
        truth="results/{study}/calibration/truth.json",
    log:
        "logs/{study}/simulate_calibration.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "robot": _cal(wc)["robot"],
            "twin": _cal(wc)["twin"],
            "mass_model": _cal(wc)["mass_model"],
            "runs": _cal(wc)["runs"],
        },
    script:
        "../../scripts/calibration_simulate.py"


rule calibration_identifiability:
    input:
        data="results/{study}/calibration/dataset.parquet",
        truth="results/{study}/calibration/truth.json",
    output:
        csv=report(
            "results/{study}/identifiability.csv",
            caption="../report/calibration_identifiability.rst",
            category="{study}",
            subcategory="Identifiability",
        ),
        json="results/{study}/calibration/identifiability.json",
    log:
        "logs/{study}/calibration_identifiability.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "identifiability": _cal(wc)["identifiability"],
            "models": _cal(wc)["models"],
        },
    script:
        "../../scripts/calibration_identifiability.py"


rule calibrate:
    input:
        unpack(_cal_base),
    output:
        fit="results/{study}/calibration/fits/{model}/{identifier}.parquet",
        history="results/{study}/calibration/histories/{model}/{identifier}.parquet",
    log:
        "logs/{study}/calibrate_{model}_{identifier}.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
        model=one_of(CAL_MODELS),
        identifier=one_of(CAL_IDENTIFIERS),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "model": wc.model,
            "identifier": wc.identifier,
            "runs": _cal(wc)["runs"],
            **{block: _cal(wc)[block] for block in _cal_blocks(wc.identifier)},
        },
    script:
        "../../scripts/calibration_identify.py"


rule calibration_tables:
    input:
        unpack(_cal_base),
        fits=_cal_all_fits,
    output:
        table6=report(
            "results/{study}/tables/table6.csv",
            caption="../report/calibration_table6.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table6_md="results/{study}/tables/table6.md",
        table7=report(
            "results/{study}/tables/table7.csv",
            caption="../report/calibration_table7.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table7_md="results/{study}/tables/table7.md",
        models=report(
            "results/{study}/tables/models.csv",
            caption="../report/calibration_models.rst",
            category="{study}",
            subcategory="Tables",
        ),
        models_md="results/{study}/tables/models.md",
        hybrid=report(
            "results/{study}/tables/hybrid_runtime.csv",
            caption="../report/calibration_hybrid_runtime.rst",
            category="{study}",
            subcategory="Tables",
        ),
        hybrid_md="results/{study}/tables/hybrid_runtime.md",
        recovery=report(
            "results/{study}/tables/parameter_recovery.csv",
            caption="../report/calibration_parameter_recovery.rst",
            category="{study}",
            subcategory="Parameter recovery",
        ),
        recovery_summary=report(
            "results/{study}/tables/parameter_recovery_summary.csv",
            caption="../report/calibration_parameter_recovery_summary.rst",
            category="{study}",
            subcategory="Parameter recovery",
        ),
        recovery_summary_md="results/{study}/tables/parameter_recovery_summary.md",
    log:
        "logs/{study}/calibration_tables.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {"study": wc.study, "runs": _cal(wc)["runs"], "n_boot": 10000},
    script:
        "../../scripts/calibration_tables.py"


rule calibration_stats:
    input:
        fits=_cal_fits,
    output:
        csv=report(
            "results/{study}/tables/table8.csv",
            caption="../report/calibration_table8.rst",
            category="{study}",
            subcategory="Tables",
        ),
        md="results/{study}/tables/table8.md",
    log:
        "logs/{study}/calibration_stats.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {"study": wc.study, "n_boot": 10000},
    script:
        "../../scripts/calibration_stats.py"


rule polishing_path:
    input:
        unpack(_cal_base),
        fits=lambda wc: _cal_all_fits(wc, polishing=True),
    output:
        csv=report(
            "results/{study}/tables/table9.csv",
            caption="../report/calibration_table9.rst",
            category="{study}",
            subcategory="Tables",
        ),
        md="results/{study}/tables/table9.md",
        points="results/{study}/polishing/dwell_errors.parquet",
    log:
        "logs/{study}/polishing_path.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "runs": _cal(wc)["runs"],
            "robot": _cal(wc)["robot"],
            "twin": _cal(wc)["twin"],
            "mass_model": _cal(wc)["mass_model"],
            "polishing": _cal(wc)["polishing"],
        },
    script:
        "../../scripts/calibration_polishing.py"


rule calibration_figure:
    input:
        unpack(_cal_base),
        fits=_cal_figure_fits,
        histories=lambda wc: [] if wc.calfig == "fig8" else _cal_histories(wc),
    output:
        png=report(
            "results/{study}/figures/{calfig}.png",
            caption="../report/calibration_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/{calfig}.pdf",
    log:
        "logs/{study}/calibration_figure_{calfig}.log",
    wildcard_constraints:
        study=one_of(CAL_STUDIES),
        calfig=one_of(CAL_FIGURES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "runs": _cal(wc)["runs"],
            "figure": wc.calfig,
            "style": config["figures"],
        },
    script:
        "../../scripts/calibration_figures.py"
