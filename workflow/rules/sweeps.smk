# Stage 8: sensitivity sweeps (§4.5 Figure 4, §5.3 future work). Every value of Figure 4's sweeps
# is one job (sweep_point, sweep_cutoff), gathered into a table (median, IQR, tests against the
# default) by sweep_table. Each §5.3 sweep is one job with its table (sweep_single): a value takes
# tens of ms, a job's start-up ~0.5 s. Figures are separate rules that see only figure settings,
# so a style change reruns figures alone.


rule sweep_point:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
    output:
        points="results/{study}/sweeps/{sweep}/{value}.parquet",
    log:
        "logs/{study}/sweep_{sweep}_{value}.log",
    wildcard_constraints:
        sweep="margin",
        value=r"[0-9.eE+-]+",
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=sweep_params,
    script:
        "../../scripts/sweep.py"


rule sweep_cutoff:
    input:
        unpack(sweep_cutoff_records),
    output:
        points="results/{study}/sweeps/cutoff_hz/{value}.parquet",
    log:
        "logs/{study}/sweep_cutoff_hz_{value}.log",
    wildcard_constraints:
        value=r"[0-9.eE+-]+",
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=sweep_cutoff_params,
    script:
        "../../scripts/sweep.py"


rule sweep_single:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        fits=sweep_reference_fits,
    output:
        points="results/{study}/sweeps/{sweep}.parquet",
        csv=report(
            "results/{study}/tables/sweep_{sweep}.csv",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        md="results/{study}/tables/sweep_{sweep}.md",
    log:
        "logs/{study}/sweep_{sweep}.log",
    wildcard_constraints:
        sweep="forgetting|population|agwo_grid|leave_one_trajectory_out",
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=sweep_params,
    script:
        "../../scripts/sweep.py"


rule sweep_table:
    input:
        points=sweep_points,
        default=sweep_default_choice,
    output:
        csv=report(
            "results/{study}/tables/sweep_{sweep}.csv",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        md="results/{study}/tables/sweep_{sweep}.md",
    log:
        "logs/{study}/sweep_table_{sweep}.log",
    wildcard_constraints:
        sweep="margin|cutoff_hz",
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=sweep_table_params,
    script:
        "../../scripts/sweep_table.py"


rule sweep_figure:
    input:
        table="results/{study}/tables/sweep_{sweep}.csv",
        points=sweep_figure_points,
    output:
        png=report(
            "results/{study}/figures/sweep_{sweep}.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        pdf="results/{study}/figures/sweep_{sweep}.pdf",
    log:
        "logs/{study}/sweep_figure_{sweep}.log",
    wildcard_constraints:
        sweep="forgetting|population|agwo_grid|leave_one_trajectory_out",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=sweep_figure_params,
    script:
        "../../scripts/sweep_figure.py"


use rule sweep_figure as fig4a with:
    input:
        table="results/{study}/tables/sweep_margin.csv",
        points=[],
    output:
        png=report(
            "results/{study}/figures/fig4a.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        pdf="results/{study}/figures/fig4a.pdf",
    log:
        "logs/{study}/fig4a.log",
    params:
        cfg=lambda wc: sweep_figure_params(wc, "margin"),


use rule sweep_figure as fig4b with:
    input:
        table="results/{study}/tables/sweep_cutoff_hz.csv",
        points=lambda wc: sweep_points(wc, "cutoff_hz"),
    output:
        png=report(
            "results/{study}/figures/fig4b.png",
            caption="../report/sweep.rst",
            category="{study}",
            subcategory="Figure 4",
        ),
        pdf="results/{study}/figures/fig4b.pdf",
    log:
        "logs/{study}/fig4b.log",
    params:
        cfg=lambda wc: sweep_figure_params(wc, "cutoff_hz"),
