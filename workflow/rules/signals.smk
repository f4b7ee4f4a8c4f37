# Stage 2: zero-phase low-pass, central differences, end trimming, regressor columns (§4.1, Eq 6).


rule signals:
    input:
        "results/{study}/records/{record}.parquet",
    output:
        "results/{study}/signals/{record}.parquet",
    params:
        cfg=signals_params,
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    group:
        "prepare"
    log:
        "logs/{study}/signals_{record}.log",
    script:
        "../../scripts/signals.py"
