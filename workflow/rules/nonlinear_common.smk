# Helpers of workflow/rules/nonlinear.smk (included by it): the nonlinear studies of the config,
# their config subsets (passed as params, so a change reruns exactly the stages that read it)
# and their final targets.  Functions only, rules live in nonlinear.smk (snakemake --lint).
# Friction laws and fitting methods come from their one registry each: paramid.friction.laws.MODELS
# and paramid.friction.methods.METHOD_NAMES.

from paramid.friction import laws as _friction_laws
from paramid.friction import methods as _friction_methods

NONLINEAR_STUDIES = config.get("nonlinear", {})
FRICTION_LAWS = list(_friction_laws.MODELS)
for _name, _nl in NONLINEAR_STUDIES.items():
    for _law in [*_nl["truths"], *_nl["fitted"]]:
        _friction_laws.get(_law)  # raises for a law the registry does not know
    _unknown = sorted(set(_nl["methods"]) - set(_friction_methods.METHOD_NAMES))
    if _unknown:
        raise ValueError(
            f"nonlinear.{_name}.methods: unknown {_unknown}; known: {_friction_methods.METHOD_NAMES}"
        )


def nonlinear_config(wildcards):
    return NONLINEAR_STUDIES[wildcards.study]


def nonlinear_base(wildcards):
    return config["studies"][nonlinear_config(wildcards)["base_study"]]


def nonlinear_data_params(wildcards):
    nl, base = nonlinear_config(wildcards), nonlinear_base(wildcards)
    return {
        "study": wildcards.study,
        "truth": wildcards.truth,
        "truth_values": nl["truths"][wildcards.truth],
        "gravity": base["gravity"],
        "twin": base["twin"],
        "records": base["records"],
        "signals": fixed_signal_settings(base),
        "rls": base["rls"],
        "agwo": base["agwo"],
    }


def nonlinear_fit_params(wildcards):
    nl, base = nonlinear_config(wildcards), nonlinear_base(wildcards)
    keys = ("fitted", "methods", "friction_bounds", "timing_repeats", "least_squares", "varpro")
    return {
        "study": wildcards.study,
        "truth": wildcards.truth,
        "truth_values": nl["truths"][wildcards.truth],
        "gravity": base["gravity"],
        "target_fraction": nl["target_fraction"],
        **{k: nl[k] for k in keys},
        "base": {k: base[k] for k in ("population", "pso", "ga", "agwo")},
    }


def nonlinear_figure_params(wildcards):
    return {
        "truth": wildcards.truth,
        "truth_values": nonlinear_config(wildcards)["truths"][wildcards.truth],
    }


def nonlinear_tables_params(wildcards):
    nl = nonlinear_config(wildcards)
    return {"study": wildcards.study, "fitted": nl["fitted"], "stats": nl["stats"]}


def nonlinear_fits(wildcards):
    return expand(
        "results/{study}/fits/{truth}.parquet",
        study=wildcards.study,
        truth=list(nonlinear_config(wildcards)["truths"]),
    )


def nonlinear_targets():
    """Final targets of every nonlinear study (for rule all)."""
    targets = []
    for name, nl in NONLINEAR_STUDIES.items():
        base = f"results/{name}"
        targets += [f"{base}/tables/{t}.csv" for t in ("summary", "stats")]
        targets += [f"{base}/tables/stats.md", f"{base}/audit.csv", f"{base}/audit.md"]
        targets += [
            f"{base}/figures/{truth}.{ext}" for truth in nl["truths"] for ext in ("png", "pdf")
        ]
    return targets
