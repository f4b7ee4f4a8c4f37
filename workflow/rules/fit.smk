# Stage 4: fit one estimator on the calibration record, score it on both records (§4.2).


rule fit:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        bounds=lambda wc: [] if wc.method == "ls" else f"results/{wc.study}/rls/summary.json",
    output:
        "results/{study}/fits/{method}.parquet",
    params:
        cfg=fit_params,
    log:
        "logs/{study}/fit_{method}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/fit.py"
