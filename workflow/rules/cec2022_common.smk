# Helpers of workflow/rules/cec2022.smk (functions and constants only; rules live there).

if "cec2022" not in config:
    raise ValueError(
        "config has no `cec2022:` block: see config.yaml"
    )
CEC = config["cec2022"]
CEC_OUT = CEC.get("output", "results/cec2022")
CEC_LOGS = CEC.get("logs", "logs/cec2022")


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
