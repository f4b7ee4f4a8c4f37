# Helpers of workflow/rules/cec2022.smk (functions and constants only; rules live there).

import sys as _sys

from paramid import optim as _optim
from paramid import paths as _paths
from paramid.cec2022 import runs as _cec_runs

if "cec2022" not in config:
    raise ValueError("config has no `cec2022:` block: see config.yaml")
CEC = config["cec2022"]
# confined to results/ and logs/ (symlinks followed); never another study's folder
CEC_OUT = _paths.confine(CEC["output"], "cec2022.output", "results", taken=RESULT_FOLDERS)
CEC_LOGS = _paths.confine(CEC["logs"], "cec2022.logs", "logs", taken=RESULT_FOLDERS)
mark_validated(check_paper_values(CEC["paper_values"], "cec2022.paper_values"))


def cec_run_code(wildcards):
    """params.code of one run job: the script's library code without the optimisers of
    optim.METHODS that this job's algorithm does not run (editing GGO reruns GGO's jobs only)."""
    own = _sys.modules[_optim.METHODS[_cec_runs.ALGORITHMS[wildcards.algorithm]].__module__]
    needed = {_provenance.dotted_name(f) for f in _provenance.library_files(own.__file__)}
    others = {m.__module__ for m in _optim.METHODS.values()} - needed
    return script_code("cec2022_run.py", exclude=sorted(others))


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
