# Sensitivity sweeps of the 1-DOF studies (§4.5 Figure 4, §5.3 future work). Every value of a
# Figure 4 sweep (bound margin, filter cutoff) is one job (hip_sweep_value), gathered into a
# table (median, IQR, tests against the default) by hip_sweep_table and drawn by hip_figure
# (fig4a, fig4b). Each §5.3 sweep is one job with its table (hip_sweep): a value takes tens of
# ms, a job's start-up ~0.5 s; hip_sweep_figure draws it. Figures see only figure settings, so
# a style change reruns figures alone.


rule hip_sweep_value:
    input:
        unpack(HIP.sweep_value_inputs),
    output:
        points="results/{study}/sweeps/{sweep}/{value}.parquet",
    log:
        "logs/{study}/hip_sweep_{sweep}_{value}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        sweep=one_of(HIP.value_sweeps),
        value=r"[0-9.eE+-]+",
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=HIP.sweep_value_params,
    script:
        "../../scripts/hip_sweep_value.py"


rule hip_sweep:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        fits=HIP.sweep_reference_fits,
    output:
        points="results/{study}/sweeps/{sweep}.parquet",
        csv=report(
            "results/{study}/tables/sweep_{sweep}.csv",
            caption="../report/hip_sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        md="results/{study}/tables/sweep_{sweep}.md",
    log:
        "logs/{study}/hip_sweep_{sweep}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        sweep=one_of(HIP.whole_sweeps),
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=HIP.sweep_params,
    script:
        "../../scripts/hip_sweep.py"


rule hip_sweep_table:
    input:
        points=HIP.sweep_points,
        default=HIP.sweep_default_choice,
    output:
        csv=report(
            "results/{study}/tables/sweep_{sweep}.csv",
            caption="../report/hip_sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        md="results/{study}/tables/sweep_{sweep}.md",
    log:
        "logs/{study}/hip_sweep_table_{sweep}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        sweep=one_of(HIP.value_sweeps),
    group:
        "sweeps"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=HIP.sweep_table_params,
    script:
        "../../scripts/hip_sweep_table.py"


rule hip_sweep_figure:
    input:
        table="results/{study}/tables/sweep_{sweep}.csv",
        points=HIP.sweep_figure_points,
        paper=HIP.paper_values,
    output:
        png=report(
            "results/{study}/figures/sweep_{sweep}.png",
            caption="../report/hip_sweep.rst",
            category="{study}",
            subcategory="Sweeps",
        ),
        pdf="results/{study}/figures/sweep_{sweep}.pdf",
    log:
        "logs/{study}/hip_sweep_figure_{sweep}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        sweep=one_of(HIP.whole_sweeps),
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=HIP.sweep_figure_params,
    script:
        "../../scripts/hip_sweep_figure.py"
