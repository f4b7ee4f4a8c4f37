# KR210 kinematic calibration (issue #9; the MIPO-ARKEKF paper, §2-3).  Studies live under
# config["calibration"] (one block per study, e.g. kr210); wildcard {cal} names one.
# DAG: simulate_calibration -> calibration_identifiability -> calibrate (one job per identifier,
# all seeds batched inside) -> calibration_tables / calibration_stats / polishing_path /
# calibration_figure.  Each rule gets only the config blocks it reads as params.

include: "calibration_common.smk"


wildcard_constraints:
    cal="|".join(CAL_STUDIES) if CAL_STUDIES else "^$",
    identifier="|".join(CAL_IDENTIFIERS),
    calfig="|".join(CAL_FIGURES),


rule simulate_calibration:
    output:
        data="results/{cal}/calibration/dataset.parquet",
        truth="results/{cal}/calibration/truth.json",
    params:
        cfg=lambda wc: {"study": wc.cal, "robot": _cal(wc)["robot"], "twin": _cal(wc)["twin"]},
    log:
        "logs/{cal}/simulate_calibration.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_simulate.py"


rule calibration_identifiability:
    input:
        data="results/{cal}/calibration/dataset.parquet",
        truth="results/{cal}/calibration/truth.json",
    output:
        csv="results/{cal}/identifiability.csv",
        json="results/{cal}/calibration/identifiability.json",
    params:
        cfg=lambda wc: {"study": wc.cal, "identifiability": _cal(wc)["identifiability"]},
    log:
        "logs/{cal}/calibration_identifiability.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_identifiability.py"


rule calibrate:
    input:
        unpack(_cal_base),
    output:
        fit="results/{cal}/calibration/fits/{identifier}.parquet",
        history="results/{cal}/calibration/histories/{identifier}.parquet",
    params:
        cfg=lambda wc: {
            "study": wc.cal,
            "identifier": wc.identifier,
            "runs": _cal(wc)["runs"],
            **{block: _cal(wc)[block] for block in CAL_BLOCKS[wc.identifier]},
        },
    log:
        "logs/{cal}/calibrate_{identifier}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_identify.py"


rule calibration_tables:
    input:
        unpack(_cal_base),
        fits=_cal_fits,
    output:
        table6="results/{cal}/tables/table6.csv",
        table6_md="results/{cal}/tables/table6.md",
        table7="results/{cal}/tables/table7.csv",
        table7_md="results/{cal}/tables/table7.md",
        hybrid="results/{cal}/tables/hybrid_runtime.csv",
        hybrid_md="results/{cal}/tables/hybrid_runtime.md",
        recovery="results/{cal}/tables/parameter_recovery.csv",
        recovery_summary="results/{cal}/tables/parameter_recovery_summary.csv",
        recovery_summary_md="results/{cal}/tables/parameter_recovery_summary.md",
    params:
        cfg=lambda wc: {"study": wc.cal},
    log:
        "logs/{cal}/calibration_tables.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_tables.py"


rule calibration_stats:
    input:
        fits=_cal_fits,
    output:
        csv="results/{cal}/tables/table8.csv",
        md="results/{cal}/tables/table8.md",
    params:
        cfg=lambda wc: {"study": wc.cal, "n_boot": 10000},
    log:
        "logs/{cal}/calibration_stats.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_stats.py"


rule polishing_path:
    input:
        unpack(_cal_base),
        fits=lambda wc: _cal_fits(wc, CAL_POLISHING),
    output:
        csv="results/{cal}/tables/table9.csv",
        md="results/{cal}/tables/table9.md",
        points="results/{cal}/polishing/dwell_errors.parquet",
    params:
        cfg=lambda wc: {"study": wc.cal, "polishing": _cal(wc)["polishing"]},
    log:
        "logs/{cal}/polishing_path.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_polishing.py"


rule calibration_figure:
    input:
        unpack(_cal_base),
        fits=lambda wc: [] if wc.calfig == "fig8" else _cal_fits(wc),
        histories=lambda wc: [] if wc.calfig == "fig8" else expand(
            "results/{cal}/calibration/histories/{identifier}.parquet",
            cal=wc.cal,
            identifier=CAL_IDENTIFIERS,
        ),
    output:
        png="results/{cal}/figures/{calfig}.png",
        pdf="results/{cal}/figures/{calfig}.pdf",
    params:
        cfg=lambda wc: {"study": wc.cal, "figure": wc.calfig},
    log:
        "logs/{cal}/{calfig}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/calibration_figures.py"
