# CEC 2022 optimiser comparison of the MIPO paper (§3.1, Tables 3-4, Figures 6-7; issue #8).
# One job per (function, dimension, algorithm), all runs batched inside it, so the sweep fans
# out on a cluster; then tables, statistics + audit, and figures per dimension.
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
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
        function=one_of(CEC["functions"]),
        algorithm=one_of(_cec_runs.ALGORITHMS),
    params:
        cfg=cec_run_params,
        code=cec_run_code,
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    log:
        f"{CEC_LOGS}/run_d{{dim}}_F{{function}}_{{algorithm}}.log",
    script:
        "../../scripts/cec2022_run.py"


rule cec2022_tables:
    input:
        runs=lambda wc: cec_runs(wc.dim),
        paper=CEC["paper_values"],
    output:
        table=f"{CEC_OUT}/tables/d{{dim}}.csv",
        ranks=f"{CEC_OUT}/tables/ranks_d{{dim}}.csv",
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        f"{CEC_LOGS}/tables_d{{dim}}.log",
    script:
        "../../scripts/cec2022_tables.py"


rule cec2022_stats:
    input:
        tables=expand(f"{CEC_OUT}/tables/d{{dim}}.csv", dim=CEC["dims"]),
        ranks=expand(f"{CEC_OUT}/tables/ranks_d{{dim}}.csv", dim=CEC["dims"]),
        runs=[p for dim in CEC["dims"] for p in cec_runs(dim)],
    output:
        friedman=f"{CEC_OUT}/tables/friedman.csv",
        wilcoxon=f"{CEC_OUT}/tables/wilcoxon.csv",
        runs_tests=f"{CEC_OUT}/tables/runs_tests.csv",
        audit=f"{CEC_OUT}/audit.csv",
    params:
        cfg={"reference": CEC["reference"]},
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        f"{CEC_LOGS}/stats.log",
    script:
        "../../scripts/cec2022_stats.py"


rule cec2022_figures:
    input:
        ranks=f"{CEC_OUT}/tables/ranks_d{{dim}}.csv",
        histories=lambda wc: cec_histories(wc.dim),
    output:
        **{
            f"{name}_{ext}": f"{CEC_OUT}/figures/{name}_d{{dim}}.{ext}"
            for name in CEC_FIGURES
            for ext in ("png", "pdf")
        },
    wildcard_constraints:
        dim=one_of(CEC["dims"]),
    params:
        style=config["figures"],
    threads: 1
    resources:
        mem_mb=1500,
        runtime=5,
    log:
        f"{CEC_LOGS}/figures_d{{dim}}.log",
    script:
        "../../scripts/cec2022_figures.py"
