# CEC 2022 optimiser comparison of the MIPO paper (§3.1, Tables 3-4, Figures 6-7; issue #8).
# One job per (function, dimension, algorithm), all runs batched inside it, so the sweep fans
# out on a cluster; then tables, statistics + audit, and figures per dimension.
# Config: the `cec2022:` block (docs/fragments/cec2022.yaml); targets: rule cec2022.

import hashlib as _cec_hashlib
from pathlib import Path as _CecPath

import paramid as _cec_paramid

if "cec2022" not in config:
    raise ValueError(
        "config has no `cec2022:` block: merge docs/fragments/cec2022.yaml (and its schema "
        "docs/fragments/cec2022.schema.yaml) before including workflow/rules/cec2022.smk"
    )
CEC = config["cec2022"]
CEC_OUT = CEC.get("output", "results/cec2022")
CEC_LOGS = CEC.get("logs", "logs/cec2022")
_CEC_LIBRARY = _CecPath(_cec_paramid.__file__).parent


def _cec_code(*modules):
    """SHA-256 of the library modules a rule runs (as common.smk's code_version), so that
    editing an optimiser reruns exactly the jobs that use it."""
    digest = _cec_hashlib.sha256()
    for name in modules:
        path = _CEC_LIBRARY / f"{name}.py"
        digest.update(name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


_CEC_OPTIM_MODULES = {
    "PO": ["optim/po"],
    "MIPO": ["optim/po", "optim/mipo"],
    "WOA": ["optim/po", "optim/woa"],
    "HHO": ["optim/po", "optim/hho"],
    "GGO": ["optim/po", "optim/ggo"],
    "SGA": ["optim/po", "optim/sga"],
    "HO": ["optim/po", "optim/ho"],
}


def cec_run_params(wildcards):
    """The config subset one job depends on (a change of `runs` reruns every job)."""
    keys = ("population", "iterations", "runs", "budget", "seed")
    return {k: CEC[k] for k in keys}


def cec_runs(dim):
    return expand(
        f"{CEC_OUT}/runs/d{dim}/F{{function}}/{{algorithm}}.parquet",
        function=CEC["functions"],
        algorithm=CEC["algorithms"],
    )


def cec_histories(dim):
    return expand(
        f"{CEC_OUT}/histories/d{dim}/F{{function}}/{{algorithm}}.parquet",
        function=CEC["functions"],
        algorithm=CEC["algorithms"],
    )


CEC_FIGURES = ["ranks", "paper_ranks", "convergence"]
CEC_TARGETS = (
    expand(f"{CEC_OUT}/tables/d{{dim}}.csv", dim=CEC["dims"])
    + expand(f"{CEC_OUT}/tables/ranks_d{{dim}}.csv", dim=CEC["dims"])
    + [
        f"{CEC_OUT}/tables/friedman.csv",
        f"{CEC_OUT}/tables/wilcoxon.csv",
        f"{CEC_OUT}/tables/runs_tests.csv",
        f"{CEC_OUT}/audit.csv",
    ]
    + expand(
        f"{CEC_OUT}/figures/{{name}}_d{{dim}}.{{ext}}",
        name=CEC_FIGURES,
        dim=CEC["dims"],
        ext=["png", "pdf"],
    )
)


rule cec2022:
    input:
        CEC_TARGETS,


rule cec2022_run:
    output:
        runs=f"{CEC_OUT}/runs/d{{dim}}/F{{function}}/{{algorithm}}.parquet",
        history=f"{CEC_OUT}/histories/d{{dim}}/F{{function}}/{{algorithm}}.parquet",
    wildcard_constraints:
        dim="10|20",
        function="[0-9]+",
        algorithm="|".join(_CEC_OPTIM_MODULES),
    params:
        cfg=cec_run_params,
        code=lambda wc: _cec_code(
            *_CEC_OPTIM_MODULES[wc.algorithm],
            "optim/base",
            "optim/objectives",
            "benchmarks/cec2022",
            "benchmarks/cec2022_runs",
            "seeding",
        ),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=30,
    log:
        f"{CEC_LOGS}/run_d{{dim}}_F{{function}}_{{algorithm}}.log",
    conda:
        "../../envs/paramid.yaml"
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
        dim="10|20",
    params:
        code=_cec_code("benchmarks/cec2022_study", "io"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        f"{CEC_LOGS}/tables_d{{dim}}.log",
    conda:
        "../../envs/paramid.yaml"
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
        code=_cec_code("benchmarks/cec2022_study", "stats", "io"),
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    log:
        f"{CEC_LOGS}/stats.log",
    conda:
        "../../envs/paramid.yaml"
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
        dim="10|20",
    params:
        style=CEC["figures"],
        code=_cec_code("benchmarks/cec2022_figures", "benchmarks/cec2022_study", "io"),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=5,
    log:
        f"{CEC_LOGS}/figures_d{{dim}}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/cec2022_figures.py"
