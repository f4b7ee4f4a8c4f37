# Nonlinear-friction studies (issue #10; paper §3.3, §5.1, §5.3): twin variants of the hip with
# Stribeck, asymmetric-Coulomb and tanh-Coulomb friction, each fitted with every friction law
# by the population methods, multi-start TRF least squares and variable projection.
#
# Config: `nonlinear: {<name>: {...}}` in config.yaml (helpers: paramid.friction.workflow); the
# trajectories,
# twin noise, signal chain, RLS, budget and Table 2 settings come from studies.<base_study>.
# Jobs per study: one data job, one fit job and one figure per true friction law, and one
# tables job (summary, statistics, audit.csv and audit.md).


rule nonlinear_data:
    output:
        records_calibration="results/{study}/records/{truth}/calibration.parquet",
        records_validation="results/{study}/records/{truth}/validation.parquet",
        calibration="results/{study}/signals/{truth}/calibration.parquet",
        validation="results/{study}/signals/{truth}/validation.parquet",
        prior="results/{study}/rls/{truth}.json",
    log:
        "logs/{study}/nonlinear_data_{truth}.log",
    wildcard_constraints:
        study=one_of(NONLINEAR.names),
        truth=one_of(NONLINEAR.laws),
    params:
        cfg=NONLINEAR.data_params,
    script:
        "../../scripts/nonlinear_data.py"


rule nonlinear_fit:
    input:
        calibration="results/{study}/signals/{truth}/calibration.parquet",
        validation="results/{study}/signals/{truth}/validation.parquet",
        prior="results/{study}/rls/{truth}.json",
    output:
        fits="results/{study}/fits/{truth}.parquet",
        traces="results/{study}/histories/{truth}.parquet",
    log:
        "logs/{study}/nonlinear_fit_{truth}.log",
    wildcard_constraints:
        study=one_of(NONLINEAR.names),
        truth=one_of(NONLINEAR.laws),
    params:
        cfg=NONLINEAR.fit_params,
    script:
        "../../scripts/nonlinear_fit.py"


rule nonlinear_figure:
    input:
        fits="results/{study}/fits/{truth}.parquet",
        traces="results/{study}/histories/{truth}.parquet",
        calibration="results/{study}/signals/{truth}/calibration.parquet",
    output:
        png=report(
            "results/{study}/figures/{truth}.png",
            caption="../report/nonlinear_figure.rst",
            category="{study}",
            subcategory="Figures",
        ),
        pdf="results/{study}/figures/{truth}.pdf",
    log:
        "logs/{study}/nonlinear_figure_{truth}.log",
    wildcard_constraints:
        study=one_of(NONLINEAR.names),
        truth=one_of(NONLINEAR.laws),
    params:
        cfg=NONLINEAR.figure_params,
        style=config["figures"],
    script:
        "../../scripts/nonlinear_figure.py"


rule nonlinear_tables:
    input:
        fits=NONLINEAR.fits,
    output:
        summary=report(
            "results/{study}/tables/summary.csv",
            caption="../report/nonlinear_summary.rst",
            category="{study}",
            subcategory="Tables",
        ),
        stats=report(
            "results/{study}/tables/stats.csv",
            caption="../report/nonlinear_stats.rst",
            category="{study}",
            subcategory="Tables",
        ),
        stats_md="results/{study}/tables/stats.md",
        audit=report(
            "results/{study}/audit.csv",
            caption="../report/nonlinear_audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        audit_md="results/{study}/audit.md",
    log:
        "logs/{study}/nonlinear_tables.log",
    wildcard_constraints:
        study=one_of(NONLINEAR.names),
    params:
        cfg=NONLINEAR.tables_params,
    script:
        "../../scripts/nonlinear_tables.py"
