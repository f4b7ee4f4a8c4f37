# Helpers of workflow/rules/nonlinear.smk (included by it): the nonlinear studies of the config,
# their config subsets (passed as params, so a change reruns exactly the stages that read it)
# and their final targets.  Functions only, rules live in nonlinear.smk (snakemake --lint).

NONLINEAR = config.get("nonlinear", {})
for _name in NONLINEAR:
    if _name in config.get("studies", {}):
        raise ValueError(f"nonlinear study {_name!r} collides with studies.{_name} (results/{_name})")


def nonlinear_config(wildcards):
    return NONLINEAR[wildcards.nlstudy]


def nonlinear_base(wildcards):
    return config["studies"][nonlinear_config(wildcards)["base_study"]]


def nonlinear_data_params(wildcards):
    nl, base = nonlinear_config(wildcards), nonlinear_base(wildcards)
    return {
        "study": wildcards.nlstudy,
        "truth": wildcards.truth,
        "truth_values": nl["truths"][wildcards.truth],
        "gravity": base["gravity"],
        "twin": base["twin"],
        "records": base["records"],
        "signals": base["signals"],
        "rls": base["rls"],
        "agwo": base["agwo"],
    }


def nonlinear_fit_params(wildcards):
    nl, base = nonlinear_config(wildcards), nonlinear_base(wildcards)
    keys = ("fitted", "methods", "friction_bounds", "timing_repeats", "least_squares", "varpro")
    return {
        "study": wildcards.nlstudy,
        "truth": wildcards.truth,
        "truth_values": nl["truths"][wildcards.truth],
        "gravity": base["gravity"],
        "target_fraction": nl["target_fraction"],
        **{k: nl[k] for k in keys},
        "base": {k: base[k] for k in ("population", "pso", "ga", "agwo")},
    }


def nonlinear_fits(wildcards):
    return expand(
        "results/{nlstudy}/fits/{truth}.parquet",
        nlstudy=wildcards.nlstudy,
        truth=list(nonlinear_config(wildcards)["truths"]),
    )


def nonlinear_targets():
    """Final targets of every nonlinear study (for rule all)."""
    targets = []
    for name, nl in NONLINEAR.items():
        base = f"results/{name}"
        targets += [f"{base}/tables/{t}.csv" for t in ("summary", "stats")]
        targets += [f"{base}/tables/stats.md", f"{base}/audit.csv"]
        targets += [f"{base}/figures/{truth}.{ext}" for truth in nl["truths"] for ext in ("png", "pdf")]
    return targets
