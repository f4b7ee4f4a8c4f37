# CEC 2022 optimiser comparison of the MIPO paper (§3.1, Tables 3-4, Figures 6-7; issue #8).
# One job per (function, dimension, algorithm), all runs batched inside it, so the sweep fans
# out on a cluster; then tables, statistics + audit, and figures per dimension.
# Every table and PNG figure is in `snakemake --report` under the category "cec2022".
# Config: the `cec2022:` block of config.yaml (figures: the top-level `figures:` style);
# targets: rule cec2022.


include: "cec2022_common.smk"


rule cec2022:
    input:
        CEC_TARGETS,


rule cec2022_run:
    output:
        runs=f"{CEC_OUT}/runs/d{{dim}}/F{{function}}/{{algorithm}}.parquet",
        history=f"{CEC_OUT}/histories/d{{dim}}/F{{function}}/{{algorithm}}.parquet",
    log:
        f"{CEC_LOGS}/run_d{{dim}}_F{{function}}_{{algorithm}}.log",
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
        function=one_of(CEC["functions"]),
        algorithm=one_of(_cec_runs.ALGORITHMS),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    params:
        cfg=cec_run_params,
        code=cec_run_code,
    script:
        "../../scripts/cec2022_run.py"


rule cec2022_tables:
    input:
        runs=lambda wc: cec_runs(wc.dim),
        paper=CEC["paper_values"],
    output:
        table=report(
            f"{CEC_OUT}/tables/d{{dim}}.csv",
            caption="../report/cec2022_table.rst",
            category="cec2022",
            subcategory="Tables",
        ),
        ranks=report(
            f"{CEC_OUT}/tables/ranks_d{{dim}}.csv",
            caption="../report/cec2022_rank_table.rst",
            category="cec2022",
            subcategory="Ranks",
        ),
    log:
        f"{CEC_LOGS}/tables_d{{dim}}.log",
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/cec2022_tables.py"


rule cec2022_stats:
    input:
        tables=expand(f"{CEC_OUT}/tables/d{{dim}}.csv", dim=CEC["dims"]),
        ranks=expand(f"{CEC_OUT}/tables/ranks_d{{dim}}.csv", dim=CEC["dims"]),
        runs=[p for dim in CEC["dims"] for p in cec_runs(dim)],
    output:
        friedman=report(
            f"{CEC_OUT}/tables/friedman.csv",
            caption="../report/cec2022_friedman.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        wilcoxon=report(
            f"{CEC_OUT}/tables/wilcoxon.csv",
            caption="../report/cec2022_wilcoxon.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        runs_tests=report(
            f"{CEC_OUT}/tables/runs_tests.csv",
            caption="../report/cec2022_runs_tests.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        audit=report(
            f"{CEC_OUT}/audit.csv",
            caption="../report/cec2022_audit.rst",
            category="cec2022",
            subcategory="Audit",
        ),
    log:
        f"{CEC_LOGS}/stats.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg={"reference": CEC["reference"]},
    script:
        "../../scripts/cec2022_stats.py"


rule cec2022_figures:
    input:
        ranks=f"{CEC_OUT}/tables/ranks_d{{dim}}.csv",
        histories=lambda wc: cec_histories(wc.dim),
    output:
        **{
            f"{name}_png": report(
                f"{CEC_OUT}/figures/{name}_d{{dim}}.png",
                caption=f"../report/cec2022_{name}_figure.rst",
                category="cec2022",
                subcategory="Figures",
            )
            for name in CEC_FIGURES
        },
        **{f"{name}_pdf": f"{CEC_OUT}/figures/{name}_d{{dim}}.pdf" for name in CEC_FIGURES},
    log:
        f"{CEC_LOGS}/figures_d{{dim}}.log",
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        style=config["figures"],
    script:
        "../../scripts/cec2022_figures.py"
