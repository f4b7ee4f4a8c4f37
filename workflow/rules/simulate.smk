# Stage 1 (twin studies): simulate the calibration (Eq 18) and validation (Eq 19) records.


rule simulate:
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/simulate_{record}.log",
    wildcard_constraints:
        study=one_of(TWIN_STUDIES),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=simulate_params,
    script:
        "../../scripts/simulate.py"
