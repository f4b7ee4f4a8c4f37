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
        table3="results/{study}/tables/table3.csv",
        table3_md="results/{study}/tables/table3.md",
        table4="results/{study}/tables/table4.csv",
        table4_md="results/{study}/tables/table4.md",
    params:
        cfg=tables_params,
    log:
        "logs/{study}/tables.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/tables.py"
