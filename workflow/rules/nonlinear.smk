# Nonlinear-friction studies (issue #10; paper §3.3, §5.1, §5.3): twin variants of the hip with
# Stribeck, asymmetric-Coulomb and tanh-Coulomb friction, each fitted with every friction law
# by the population methods, multi-start TRF least squares and variable projection.
#
# Config: `nonlinear: {<name>: {...}}` in config.yaml; the trajectories,
# twin noise, signal chain, RLS, budget and Table 2 settings come from studies.<base_study>.
# Jobs per study: one data job, one fit job and one figure per true friction law, and one
# tables job (summary, statistics, audit).

include: "nonlinear_common.smk"


rule nonlinear_data:
    output:
        records_calibration="results/{nlstudy}/records/{truth}/calibration.parquet",
        records_validation="results/{nlstudy}/records/{truth}/validation.parquet",
        calibration="results/{nlstudy}/signals/{truth}/calibration.parquet",
        validation="results/{nlstudy}/signals/{truth}/validation.parquet",
        prior="results/{nlstudy}/rls/{truth}.json",
    wildcard_constraints:
        nlstudy="|".join(NONLINEAR) or "(?!)",
        truth="[a-z_]+",
    params:
        cfg=nonlinear_data_params,
    log:
        "logs/{nlstudy}/data_{truth}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/nonlinear_data.py"


rule nonlinear_fit:
    input:
        calibration="results/{nlstudy}/signals/{truth}/calibration.parquet",
        validation="results/{nlstudy}/signals/{truth}/validation.parquet",
        prior="results/{nlstudy}/rls/{truth}.json",
    output:
        fits="results/{nlstudy}/fits/{truth}.parquet",
        traces="results/{nlstudy}/histories/{truth}.parquet",
    wildcard_constraints:
        nlstudy="|".join(NONLINEAR) or "(?!)",
        truth="[a-z_]+",
    params:
        cfg=nonlinear_fit_params,
    log:
        "logs/{nlstudy}/fit_{truth}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/nonlinear_fit.py"


rule nonlinear_figure:
    input:
        fits="results/{nlstudy}/fits/{truth}.parquet",
        traces="results/{nlstudy}/histories/{truth}.parquet",
        calibration="results/{nlstudy}/signals/{truth}/calibration.parquet",
    output:
        png="results/{nlstudy}/figures/{truth}.png",
        pdf="results/{nlstudy}/figures/{truth}.pdf",
    wildcard_constraints:
        nlstudy="|".join(NONLINEAR) or "(?!)",
        truth="[a-z_]+",
    params:
        cfg=lambda wc: {
            "truth": wc.truth,
            "truth_values": nonlinear_config(wc)["truths"][wc.truth],
        },
    log:
        "logs/{nlstudy}/figure_{truth}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/nonlinear_figure.py"


rule nonlinear_tables:
    input:
        fits=nonlinear_fits,
    output:
        summary="results/{nlstudy}/tables/summary.csv",
        stats="results/{nlstudy}/tables/stats.csv",
        stats_md="results/{nlstudy}/tables/stats.md",
        audit="results/{nlstudy}/audit.csv",
    wildcard_constraints:
        nlstudy="|".join(NONLINEAR) or "(?!)",
    params:
        cfg=lambda wc: {
            "study": wc.nlstudy,
            "fitted": nonlinear_config(wc)["fitted"],
            "stats": nonlinear_config(wc)["stats"],
        },
    log:
        "logs/{nlstudy}/tables.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/nonlinear_tables.py"
