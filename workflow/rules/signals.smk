# Stage 2: zero-phase low-pass, central differences, end trimming, regressor columns (§4.1, Eq 6).
# With signals.cutoff_hz: auto the cutoff is chosen first, on the calibration record only.


rule choose_cutoff:
    input:
        calibration="results/{study}/records/calibration.parquet",
        validation="results/{study}/records/validation.parquet",
    output:
        choice="results/{study}/signals/cutoff.json",
        csv=report(
            "results/{study}/tables/cutoff.csv",
            caption="../report/cutoff.rst",
            category="{study}",
            subcategory="Signals",
        ),
        md="results/{study}/tables/cutoff.md",
    log:
        "logs/{study}/choose_cutoff.log",
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=cutoff_params,
    script:
        "../../scripts/choose_cutoff.py"


rule signals:
    input:
        record="results/{study}/records/{record}.parquet",
        cutoff=chosen_cutoff,
    output:
        "results/{study}/signals/{record}.parquet",
    log:
        "logs/{study}/signals_{record}.log",
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=signals_params,
    script:
        "../../scripts/signals.py"
