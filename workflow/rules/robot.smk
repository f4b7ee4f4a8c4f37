# Multi-joint robots from a URDF and joint logs (issue #16; paramid.robot). Studies live under
# config["robots"]; wildcard {study} names one. DAG: robot_record (ingest a joint log or simulate
# a twin record) -> [robot_cutoff when cutoff_hz is auto] -> robot_signals (per record) ->
# robot_model (base parameters of the stacked calibration regressor) -> robot_fit (one job per
# method, population methods with every seed inside) -> robot_predict (validation records) ->
# robot_tables / robot_recovery (twin) / robot_figure.


include: "robot_common.smk"


rule robot_record:
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/robot_record_{record}.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
        record="[A-Za-z0-9][A-Za-z0-9_.-]*",
    params:
        cfg=robot_record_params,
    script:
        "../../scripts/robot_record.py"


rule robot_cutoff:
    input:
        records=lambda wc: [
            f"results/{wc.study}/records/{n}.parquet"
            for n in robot_records(wc.study, "calibration")
        ],
    output:
        "results/{study}/signals/cutoff.json",
    log:
        "logs/{study}/robot_cutoff.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "robot": _robot_block(wc.study),
            "signals": ROBOTS[wc.study]["signals"],
        },
    script:
        "../../scripts/robot_cutoff.py"


rule robot_signals:
    input:
        unpack(robot_signals_input),
    output:
        "results/{study}/signals/{record}.parquet",
    log:
        "logs/{study}/robot_signals_{record}.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
        record="[A-Za-z0-9][A-Za-z0-9_.-]*",
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "joints": ROBOTS[wc.study]["joints"],
            "signals": ROBOTS[wc.study]["signals"],
        },
    script:
        "../../scripts/robot_signals.py"


rule robot_model:
    input:
        signals=robot_cal_signals,
    output:
        "results/{study}/model/base.json",
    log:
        "logs/{study}/robot_model.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "robot": _robot_block(wc.study),
            "base": ROBOTS[wc.study]["base"],
        },
    script:
        "../../scripts/robot_model.py"


rule robot_fit:
    input:
        base="results/{study}/model/base.json",
        signals=robot_cal_signals,
    output:
        "results/{study}/fits/{method}.parquet",
    log:
        "logs/{study}/robot_fit_{method}.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "method": wc.method,
            "robot": _robot_block(wc.study),
            "settings": robot_fit_settings(wc.study, wc.method),
        },
    script:
        "../../scripts/robot_fit.py"


rule robot_predict:
    input:
        base="results/{study}/model/base.json",
        fit="results/{study}/fits/{method}.parquet",
        signals=robot_val_signals,
    output:
        "results/{study}/predictions/{method}.parquet",
    log:
        "logs/{study}/robot_predict_{method}.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "method": wc.method,
            "robot": _robot_block(wc.study),
            "records": robot_records(wc.study, "validation"),
        },
    script:
        "../../scripts/robot_predict.py"


rule robot_tables:
    input:
        base="results/{study}/model/base.json",
        fits=robot_fits,
        predictions=robot_predictions,
    output:
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
    log:
        "logs/{study}/robot_tables.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "robot": _robot_block(wc.study),
            "methods": robot_methods(wc),
        },
    script:
        "../../scripts/robot_tables.py"


rule robot_recovery:
    input:
        base="results/{study}/model/base.json",
        fits=robot_fits,
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
        study=one_of([s for s in ROBOT_STUDIES if robot_is_twin(s)]),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "robot": _robot_block(wc.study),
            "twin": ROBOTS[wc.study]["twin"],
            "methods": robot_methods(wc),
        },
    script:
        "../../scripts/robot_recovery.py"


rule robot_figure:
    input:
        predictions=lambda wc: robot_predictions(wc) if wc.robotfig == "torque" else [],
        validation=lambda wc: (
            f"results/{wc.study}/tables/validation.csv" if wc.robotfig == "rmse" else []
        ),
        parameters=lambda wc: (
            f"results/{wc.study}/tables/parameters.csv" if wc.robotfig == "parameters" else []
        ),
    output:
        png=report(
            "results/{study}/figures/{robotfig}.png",
            caption="../report/robot_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/{robotfig}.pdf",
    log:
        "logs/{study}/robot_figure_{robotfig}.log",
    wildcard_constraints:
        study=one_of(ROBOT_STUDIES),
        robotfig=one_of(ROBOT_FIGURES),
    params:
        cfg=lambda wc: {
            "study": wc.study,
            "figure": wc.robotfig,
            "joints": ROBOTS[wc.study]["joints"],
            "records": robot_records(wc.study, "validation"),
            "methods": robot_methods(wc),
            "style": config["figures"],
        },
    script:
        "../../scripts/robot_figures.py"
