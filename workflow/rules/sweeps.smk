# Stage 8: sensitivity sweeps (§4.5 Figure 4, §5.3 future work). Every value of a config list is
# one job; a summary per sweep gives a table (median, IQR, test against the default) and a figure.


rule sweep_point:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
    output:
        "results/{study}/sweeps/{sweep}/{value}.parquet",
    wildcard_constraints:
        sweep="margin|forgetting|population",
        value=r"[0-9.eE+-]+",
    params:
        code=code_version("sweeps", "population", "optim", "rls", "estimators", "model", "seeding", "io"),
        cfg=sweep_params,
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/sweep_{sweep}_{value}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/sweep.py"


rule sweep_cutoff:
    output:
        "results/{study}/sweeps/cutoff_hz/{value}.parquet",
    wildcard_constraints:
        value=r"[0-9.eE+-]+",
    params:
        code=code_version("sweeps", "twin", "signals", "rls", "estimators", "model", "seeding", "io"),
        cfg=sweep_cutoff_params,
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/sweep_cutoff_hz_{value}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/sweep.py"


rule sweep_single:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
    output:
        "results/{study}/sweeps/{sweep}.parquet",
    wildcard_constraints:
        sweep="agwo_grid|leave_one_trajectory_out",
    params:
        code=code_version("sweeps", "population", "optim", "rls", "estimators", "model", "seeding", "io"),
        cfg=sweep_params,
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/sweep_{sweep}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/sweep.py"


rule sweep_summary:
    input:
        points=sweep_points,
        fits=sweep_reference_fits,
    output:
        csv=report(
            "results/{study}/tables/sweep_{sweep}.csv",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        md="results/{study}/tables/sweep_{sweep}.md",
        png=report(
            "results/{study}/figures/sweep_{sweep}.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        pdf="results/{study}/figures/sweep_{sweep}.pdf",
    wildcard_constraints:
        sweep="forgetting|population|agwo_grid|leave_one_trajectory_out",
    params:
        code=code_version("sweeps", "stats", "figures", "tables", "seeding", "io"),
        cfg=sweep_summary_params,
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/sweep_summary_{sweep}.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/sweep_summary.py"


use rule sweep_summary as fig4a with:
    input:
        points=lambda wc: sweep_points(wc, "margin"),
        fits=[],
    output:
        csv=report(
            "results/{study}/tables/sweep_margin.csv",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        md="results/{study}/tables/sweep_margin.md",
        png=report(
            "results/{study}/figures/fig4a.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        pdf="results/{study}/figures/fig4a.pdf",
    params:
        code=code_version("sweeps", "stats", "figures", "tables", "seeding", "io"),
        cfg=lambda wc: sweep_summary_params(wc, "margin"),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/fig4a.log",


use rule sweep_summary as fig4b with:
    input:
        points=lambda wc: sweep_points(wc, "cutoff_hz"),
        fits=[],
    output:
        csv=report(
            "results/{study}/tables/sweep_cutoff_hz.csv",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        md="results/{study}/tables/sweep_cutoff_hz.md",
        png=report(
            "results/{study}/figures/fig4b.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        pdf="results/{study}/figures/fig4b.pdf",
    params:
        code=code_version("sweeps", "stats", "figures", "tables", "seeding", "io"),
        cfg=lambda wc: sweep_summary_params(wc, "cutoff_hz"),
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    group:
        "sweeps"
    log:
        "logs/{study}/fig4b.log",
