# Stage 4: fit each estimator on the calibration record and score it on both records (§4.2).
# Deterministic estimators (LS, BCLS) run in rule fit; the seeded population methods run all
# their seeds in one batched job of rule fit_population.


rule fit:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        bounds=lambda wc: [] if wc.method == "ls" else f"results/{wc.study}/rls/summary.json",
    output:
        "results/{study}/fits/{method}.parquet",
    log:
        "logs/{study}/fit_{method}.log",
    wildcard_constraints:
        method=one_of(DETERMINISTIC_METHODS),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=fit_params,
    script:
        "../../scripts/fit.py"


rule fit_population:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        bounds="results/{study}/rls/summary.json",
    output:
        fits="results/{study}/fits/{method}.parquet",
        history="results/{study}/histories/{method}.parquet",
    log:
        "logs/{study}/fit_{method}.log",
    wildcard_constraints:
        method=one_of(POPULATION_METHODS),
    group:
        "population"
    threads: 1
    resources:
        mem_mb=2000,
        runtime=20,
    params:
        cfg=fit_population_params,
    script:
        "../../scripts/fit_population.py"
