# Tables, statistics, figures and the claims audit of the 1-DOF studies: Table 3 (RMSE and time
# per method) and Table 4 (parameters) beside the paper's values, the statistics over seeds
# (§4.3), Figures 3a-d and 4a-b (each figure its own job, so one rebuilds alone) and the audit
# (the paper's numbers, or published reference values, beside ours, with a verdict and a reason).


rule hip_tables:
    input:
        fits=HIP.fits,
        rls="results/{study}/rls/summary.json",
        paper=HIP.paper_values,
    output:
        table3=report(
            "results/{study}/tables/table3.csv",
            caption="../report/hip_table3.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table3_md="results/{study}/tables/table3.md",
        table4=report(
            "results/{study}/tables/table4.csv",
            caption="../report/hip_table4.rst",
            category="{study}",
            subcategory="Tables",
        ),
        table4_md="results/{study}/tables/table4.md",
    log:
        "logs/{study}/hip_tables.log",
    wildcard_constraints:
        study=one_of(HIP.names),
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.tables_params,
    script:
        "../../scripts/hip_tables.py"


rule hip_stats:
    input:
        fits=HIP.fits,
    output:
        csv=report(
            "results/{study}/tables/stats.csv",
            caption="../report/hip_stats.rst",
            category="{study}",
            subcategory="Tables",
        ),
        md="results/{study}/tables/stats.md",
    log:
        "logs/{study}/hip_stats.log",
    wildcard_constraints:
        study=one_of(HIP.names),
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.stats_params,
    script:
        "../../scripts/hip_stats.py"


rule hip_figure:
    input:
        unpack(HIP.figure_inputs),
    output:
        png=report(
            "results/{study}/figures/{figure}.png",
            caption="../report/hip_figure.rst",
            category="{study}",
            subcategory="Figures 3-4",
        ),
        pdf="results/{study}/figures/{figure}.pdf",
    log:
        "logs/{study}/hip_figure_{figure}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        figure=one_of(HIP.figures),
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1500,
        runtime=10,
    params:
        cfg=HIP.figure_params,
    script:
        "../../scripts/hip_figure.py"


rule hip_audit:
    input:
        unpack(HIP.audit_inputs),
    output:
        csv=report(
            "results/{study}/audit.csv",
            caption="../report/hip_audit.rst",
            category="{study}",
            subcategory="Audit",
        ),
        md="results/{study}/audit.md",
    log:
        "logs/{study}/hip_audit.log",
    wildcard_constraints:
        study=one_of(HIP.audited_names),
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.audit_params,
    script:
        "../../scripts/hip_audit.py"
