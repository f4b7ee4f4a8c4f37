# KR210 kinematic calibration (the MIPO-ARKEKF paper, §2-3; paramid.calibration, helpers in
# paramid.calibration.workflow). Studies live under `calibration:` (one block per study, e.g.
# kr210); wildcard {study} names one. DAG: calibration_simulate (one data set per repeat) ->
# calibration_identifiability (every model) -> calibration_identify (one job per model and
# identifier, each run on its own data set) -> calibration_tables / calibration_stats /
# calibration_polishing / calibration_figure -> calibration_audit (every printed number and
# claim of Tables 6-9 beside ours, with a verdict and a reason).


rule calibration_simulate:
    output:
        data="results/{study}/calibration/dataset.parquet",
        truth="results/{study}/calibration/truth.json",
    log:
        "logs/{study}/calibration_simulate.log",
    wildcard_constraints:
        study=one_of(CALIBRATION.names),
    params:
        cfg=CALIBRATION.simulate_params,
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
        study=one_of(CALIBRATION.names),
    params:
        cfg=CALIBRATION.identifiability_params,
    script:
        "../../scripts/calibration_identifiability.py"


rule calibration_identify:
    input:
        unpack(CALIBRATION.data),
    output:
        fit="results/{study}/calibration/fits/{model}/{identifier}.parquet",
        history="results/{study}/calibration/histories/{model}/{identifier}.parquet",
    log:
        "logs/{study}/calibration_identify_{model}_{identifier}.log",
    wildcard_constraints:
        study=one_of(CALIBRATION.names),
        model=one_of(CALIBRATION.models),
        identifier=one_of(CALIBRATION.identifiers),
    params:
        cfg=CALIBRATION.identify_params,
    script:
        "../../scripts/calibration_identify.py"


rule calibration_tables:
    input:
        unpack(CALIBRATION.data),
        fits=CALIBRATION.all_fits,
        paper=CALIBRATION.paper_values,
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
        study=one_of(CALIBRATION.names),
    params:
        cfg=CALIBRATION.tables_params,
    script:
        "../../scripts/calibration_tables.py"


rule calibration_stats:
    input:
        fits=CALIBRATION.paper_fits,
        paper=CALIBRATION.paper_values,
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
        study=one_of(CALIBRATION.names),
    params:
        cfg=CALIBRATION.stats_params,
    script:
        "../../scripts/calibration_stats.py"


rule calibration_polishing:
    input:
        unpack(CALIBRATION.data),
        fits=CALIBRATION.polishing_fits,
        paper=CALIBRATION.paper_values,
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
        "logs/{study}/calibration_polishing.log",
    wildcard_constraints:
        study=one_of(CALIBRATION.names),
    params:
        cfg=CALIBRATION.polishing_params,
    script:
        "../../scripts/calibration_polishing.py"


rule calibration_figure:
    input:
        unpack(CALIBRATION.data),
        fits=CALIBRATION.figure_fits,
        histories=CALIBRATION.figure_histories,
    output:
        png=report(
            "results/{study}/figures/{figure}.png",
            caption="../report/calibration_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "logs/{study}/calibration_figure_{figure}.log",
    wildcard_constraints:
        study=one_of(CALIBRATION.names),
        figure=one_of(CALIBRATION.figures),
    params:
        cfg=CALIBRATION.figure_params,
    script:
        "../../scripts/calibration_figure.py"


rule calibration_audit:
    input:
        table6="results/{study}/tables/table6.csv",
        table7="results/{study}/tables/table7.csv",
        table8="results/{study}/tables/table8.csv",
        table9="results/{study}/tables/table9.csv",
        paper=CALIBRATION.paper_values,
        hybrid="results/{study}/tables/hybrid_runtime.csv",
        fits=CALIBRATION.audit_fits,
        histories=CALIBRATION.audit_histories,
    output:
        csv=report(
            "results/{study}/audit.csv",
            caption="../report/calibration_audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        md="results/{study}/audit.md",
    log:
        "logs/{study}/calibration_audit.log",
    wildcard_constraints:
        study=one_of(CALIBRATION.audited_names),
    params:
        cfg=CALIBRATION.audit_params,
    script:
        "../../scripts/calibration_audit.py"
