# Stage 1 (twin studies): simulate the calibration (Eq 18) and validation (Eq 19) records.


rule simulate:
    output:
        "results/{study}/records/{record}.parquet",
    wildcard_constraints:
        study=one_of(TWIN_STUDIES),
    params:
        cfg=simulate_params,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    group:
        "prepare"
    log:
        "logs/{study}/simulate_{record}.log",
    script:
        "../../scripts/simulate.py"
