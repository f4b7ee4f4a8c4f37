# CEC 2022 optimiser comparison of the MIPO paper (§3.1, Tables 3-4, Figures 6-7; issue #8).
# One job per (algorithm, dimension): every function of the benchmark, all runs of each batched
# in one call, one run table and one history file per job (a `function` column); then tables,
# statistics + audit, and figures per dimension. A job of one function would spend most of its time
# starting Python; one algorithm per job keeps editing one optimiser rerunning its jobs alone.
# Every table and PNG figure is in `snakemake --report` under the category "cec2022".
# Config: the `cec2022:` block of config.yaml (figures: the top-level `figures:` style; helpers:
# paramid.cec2022.workflow); targets: rule cec2022.


rule cec2022_run:
    output:
        runs=CEC.job_output("runs"),
        histories=CEC.job_output("histories"),
    log:
        f"{CEC.logs}/run_d{{dim}}_{{algorithm}}.log",
    wildcard_constraints:
        dim=one_of(CEC.block["dims"]),
        algorithm=one_of(CEC.block["algorithms"]),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=60,
    params:
        cfg=CEC.run_params,
        code=CEC.run_code,
    script:
        "../../scripts/cec2022_run.py"


rule cec2022_tables:
    input:
        runs=CEC.runs,
        paper=CEC.block["paper_values"],
    output:
        table=report(
            f"{CEC.out}/tables/d{{dim}}.csv",
            caption="../report/cec2022_table.rst",
            category="cec2022",
            subcategory="Tables",
        ),
        ranks=report(
            f"{CEC.out}/tables/ranks_d{{dim}}.csv",
            caption="../report/cec2022_rank_table.rst",
            category="cec2022",
            subcategory="Ranks",
        ),
    log:
        f"{CEC.logs}/tables_d{{dim}}.log",
    wildcard_constraints:
        dim=one_of(CEC.block["dims"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    script:
        "../../scripts/cec2022_tables.py"


rule cec2022_stats:
    input:
        tables=CEC.tables(""),
        ranks=CEC.tables("ranks"),
        runs=CEC.all_runs(),
        paper=CEC.block["paper_values"],
    output:
        friedman=report(
            f"{CEC.out}/tables/friedman.csv",
            caption="../report/cec2022_friedman.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        wilcoxon=report(
            f"{CEC.out}/tables/wilcoxon.csv",
            caption="../report/cec2022_wilcoxon.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        runs_tests=report(
            f"{CEC.out}/tables/runs_tests.csv",
            caption="../report/cec2022_runs_tests.rst",
            category="cec2022",
            subcategory="Statistics",
        ),
        audit=report(
            f"{CEC.out}/audit.csv",
            caption="../report/cec2022_audit.rst",
            category="cec2022",
            subcategory="Audit",
        ),
        audit_md=f"{CEC.out}/audit.md",
    log:
        f"{CEC.logs}/stats.log",
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=CEC.stats_params,
    script:
        "../../scripts/cec2022_stats.py"


rule cec2022_figures:
    input:
        ranks=f"{CEC.out}/tables/ranks_d{{dim}}.csv",
        histories=CEC.histories,
    output:
        **{
            f"{name}_png": report(
                f"{CEC.out}/figures/{name}_d{{dim}}.png",
                caption=f"../report/cec2022_{name}_figure.rst",
                category="cec2022",
                subcategory="Figures",
            )
            for name in CEC.figures
        },
        **{f"{name}_pdf": f"{CEC.out}/figures/{name}_d{{dim}}.pdf" for name in CEC.figures},
    log:
        f"{CEC.logs}/figures_d{{dim}}.log",
    wildcard_constraints:
        dim=one_of(CEC.block["dims"]),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=5,
    params:
        style=config["figures"],
    script:
        "../../scripts/cec2022_figures.py"
