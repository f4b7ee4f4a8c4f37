# Stage 6: statistics over seeds (§4.3): AGWO vs GWO and every stochastic method vs BCLS.


rule stats:
    input:
        fits=lambda wc: expand(
            "results/{study}/fits/{method}.parquet",
            study=wc.study,
            method=study_config(wc)["methods"],
        ),
    output:
        csv=report(
            "results/{study}/tables/stats.csv",
            caption="../report/stats.rst",
            category="{study}",
            subcategory="Tables",
        ),
        md="results/{study}/tables/stats.md",
    log:
        "logs/{study}/stats.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=lambda wc: {"study": wc.study, "methods": study_config(wc)["methods"]},
    script:
        "../../scripts/stats.py"
