# Stage 3: offline RLS on the calibration record, the bounded box [L, U], gamma and mu (§3.1-3.2).


rule rls_bounds:
    input:
        "results/{study}/signals/calibration.parquet",
    output:
        trajectory="results/{study}/rls/trajectory.parquet",
        summary="results/{study}/rls/summary.json",
    log:
        "logs/{study}/rls_bounds.log",
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=rls_params,
    script:
        "../../scripts/rls_bounds.py"
