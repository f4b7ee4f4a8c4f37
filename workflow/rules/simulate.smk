# Stage 1 (twin studies): simulate the calibration (Eq 18) and validation (Eq 19) records.


rule simulate:
    output:
        "results/{study}/records/{record}.parquet",
    params:
        cfg=simulate_params,
    log:
        "logs/{study}/simulate_{record}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/simulate.py"
