# Multi-joint robots from a URDF and joint logs (paramid.robot; helpers in paramid.robot.workflow).
# Studies live under `robots:`; wildcard {study} names one. DAG: robot_record (ingest a joint log
# or simulate a twin record) -> [robot_cutoff when cutoff_hz is auto] -> robot_signals (per
# record) -> robot_compress (the calibration regressor QR-compressed per time segment, streamed)
# -> robot_model (base parameters) -> robot_friction (Coulomb law, offset per joint) -> robot_fit
# (one job per method; lmi chooses its prior weight by cross-validation) -> robot_predict and
# robot_reference (validation records) -> robot_tables / robot_recovery (twin) / robot_export
# (identified URDFs; with base.json, what the data determine of each parameter) / robot_figure.
# The jobs that hold a record's samples ask for mem_mb by their inputs' size
# (paramid.workflow.memory_mb; peak RSS per input MB measured at 10^6 samples of a 7-joint log,
# perf/robot_scaling.py: record 2.2 (CSV), cutoff and signals 8, compress 3.9, predict 6.7,
# tables 2.9, figure 4.6, with a fifth more) on top of 500 MB for the job's imports (a
# 512,000-sample log's robot_signals peaked at 1,049 MB against 10 x 95 MB without it); the
# rest fit the profile's default 1000 MB.


rule robot_record:
    input:
        ROBOTS.record_file,
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/robot_record_{record}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        record=ROBOTS.record_id,
    resources:
        mem_mb=memory_mb(1000, 3, 500),
    params:
        cfg=ROBOTS.record_params,
    script:
        "../../scripts/robot_record.py"


rule robot_cutoff:
    input:
        records=ROBOTS.calibration_records,
    output:
        "results/{study}/signals/cutoff.json",
    log:
        "logs/{study}/robot_cutoff.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
    resources:
        mem_mb=memory_mb(1000, 10, 500),
    params:
        cfg=ROBOTS.cutoff_params,
    script:
        "../../scripts/robot_cutoff.py"


rule robot_signals:
    input:
        unpack(ROBOTS.signals_inputs),
    output:
        "results/{study}/signals/{record}.parquet",
    log:
        "logs/{study}/robot_signals_{record}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        record=ROBOTS.record_id,
    resources:
        mem_mb=memory_mb(1000, 10, 500),
    params:
        cfg=ROBOTS.signals_params,
    script:
        "../../scripts/robot_signals.py"


rule robot_compress:
    input:
        signals=ROBOTS.calibration_signals,
    output:
        "results/{study}/model/compressed.parquet",
    log:
        "logs/{study}/robot_compress.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
    resources:
        mem_mb=memory_mb(1000, 5, 500),
    params:
        cfg=ROBOTS.compress_params,
    script:
        "../../scripts/robot_compress.py"


rule robot_model:
    input:
        compressed="results/{study}/model/compressed.parquet",
    output:
        "results/{study}/model/base.json",
    log:
        "logs/{study}/robot_model.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
    params:
        cfg=ROBOTS.model_params,
    script:
        "../../scripts/robot_model.py"


rule robot_friction:
    input:
        compressed="results/{study}/model/compressed.parquet",
        base="results/{study}/model/base.json",
    output:
        choice="results/{study}/model/friction.json",
        table=report(
            "results/{study}/tables/friction.csv",
            caption="../report/robot_friction.rst",
            category="{study}",
            subcategory="Parameters",
        ),
    log:
        "logs/{study}/robot_friction.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
    params:
        cfg=ROBOTS.friction_params,
    script:
        "../../scripts/robot_friction.py"


rule robot_fit:
    input:
        unpack(ROBOTS.fit_inputs),
    output:
        "results/{study}/fits/{method}.parquet",
    log:
        "logs/{study}/robot_fit_{method}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        method=one_of(ROBOTS.all_methods),
    params:
        cfg=ROBOTS.fit_params,
    script:
        "../../scripts/robot_fit.py"


rule robot_predict:
    input:
        base="results/{study}/model/base.json",
        fit="results/{study}/fits/{method}.parquet",
        friction="results/{study}/model/friction.json",
        signals=ROBOTS.validation_signals,
    output:
        "results/{study}/predictions/{method}.parquet",
    log:
        "logs/{study}/robot_predict_{method}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        method=one_of(ROBOTS.all_methods),
    resources:
        mem_mb=memory_mb(1000, 8, 500),
    params:
        cfg=ROBOTS.predict_params,
    script:
        "../../scripts/robot_predict.py"


rule robot_reference:
    input:
        unpack(ROBOTS.reference_inputs),
    output:
        "results/{study}/predictions/reference_{reference}.parquet",
    log:
        "logs/{study}/robot_reference_{reference}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        reference="[a-z][a-z0-9_]*",
    params:
        cfg=ROBOTS.reference_params,
    script:
        "../../scripts/robot_reference.py"


rule robot_export:
    input:
        base="results/{study}/model/base.json",
        fit="results/{study}/fits/{method}.parquet",
        friction="results/{study}/model/friction.json",
        urdf=ROBOTS.urdf,
        signals=ROBOTS.calibration_signals,
    output:
        urdf=report(
            "results/{study}/model/{method}.urdf",
            caption="../report/robot_export.rst",
            category="{study}",
            subcategory="Identified model",
        ),
        determinacy="results/{study}/model/{method}_determinacy.csv",
    log:
        "logs/{study}/robot_export_{method}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        method=one_of(ROBOTS.consistent),
    params:
        cfg=ROBOTS.export_params,
    script:
        "../../scripts/robot_export.py"


# A request for the URDF of a method that exports none (`model/ols.urdf`): one line saying why.
rule robot_no_export:
    input:
        ROBOTS.no_export,
    output:
        "results/{study}/model/{method}.urdf",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        method=one_of(ROBOTS.not_exported),


rule robot_tables:
    input:
        base="results/{study}/model/base.json",
        records=ROBOTS.record_files,
        compressed="results/{study}/model/compressed.parquet",
        fits=ROBOTS.fits,
        predictions=ROBOTS.predictions,
    output:
        regularisation=report(
            "results/{study}/tables/regularisation.csv",
            caption="../report/robot_regularisation.rst",
            category="{study}",
            subcategory="Parameters",
        ),
        validation=report(
            "results/{study}/tables/validation.csv",
            caption="../report/robot_validation.rst",
            category="{study}",
            subcategory="Validation",
        ),
        parameters=report(
            "results/{study}/tables/parameters.csv",
            caption="../report/robot_parameters.rst",
            category="{study}",
            subcategory="Parameters",
        ),
        consistency=report(
            "results/{study}/tables/consistency.csv",
            caption="../report/robot_consistency.rst",
            category="{study}",
            subcategory="Parameters",
        ),
        warnings=report(
            "results/{study}/tables/warnings.csv",
            caption="../report/robot_warnings.rst",
            category="{study}",
            subcategory="Parameters",
        ),
    log:
        "logs/{study}/robot_tables.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
    resources:
        mem_mb=memory_mb(1000, 4, 500),
    params:
        cfg=ROBOTS.tables_params,
    script:
        "../../scripts/robot_tables.py"


rule robot_recovery:
    input:
        base="results/{study}/model/base.json",
        fits=ROBOTS.fits,
    output:
        report(
            "results/{study}/tables/recovery.csv",
            caption="../report/robot_recovery.rst",
            category="{study}",
            subcategory="Parameters",
        ),
    log:
        "logs/{study}/robot_recovery.log",
    wildcard_constraints:
        study=one_of(ROBOTS.twin),
    params:
        cfg=ROBOTS.recovery_params,
    script:
        "../../scripts/robot_recovery.py"


rule robot_figure:
    input:
        unpack(ROBOTS.figure_inputs),
    output:
        png=report(
            "results/{study}/figures/{figure}.png",
            caption="../report/robot_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "logs/{study}/robot_figure_{figure}.log",
    wildcard_constraints:
        study=one_of(ROBOTS.names),
        figure=one_of(ROBOTS.figures),
    resources:
        mem_mb=memory_mb(1000, 6, 500),
    params:
        cfg=ROBOTS.figure_params,
    script:
        "../../scripts/robot_figure.py"
