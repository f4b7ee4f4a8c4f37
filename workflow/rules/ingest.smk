# Stage 1 (measured studies): validate a measured record, convert to SI, resample jittered
# time stamps onto a uniform grid, and write it in the same layout as a twin record.


rule ingest:
    input:
        measured_path,
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/ingest_{record}.log",
    wildcard_constraints:
        study=one_of(MEASURED_STUDIES),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=ingest_params,
    script:
        "../../scripts/ingest.py"
