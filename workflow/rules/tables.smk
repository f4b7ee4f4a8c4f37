# Stage 5: Table 3 (RMSE and time per method) and Table 4 (parameters), beside the paper's values.


rule tables:
    input:
        fits=lambda wc: expand(
            "results/{study}/fits/{method}.parquet",
            study=wc.study,
            method=study_config(wc)["methods"],
        ),
        rls="results/{study}/rls/summary.json",
        paper=paper_values,
    output:
        table3=report(
            "results/{study}/tables/table3.csv",
            caption="../report/table3.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table3_md="results/{study}/tables/table3.md",
        table4=report(
            "results/{study}/tables/table4.csv",
            caption="../report/table4.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table4_md="results/{study}/tables/table4.md",
    log:
        "logs/{study}/tables.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=tables_params,
    script:
        "../../scripts/tables.py"
