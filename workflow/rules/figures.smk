# Stage 7: Figure 3a-d, each its own rule so that one figure rebuilds alone (PNG and PDF).


rule fig3a:
    input:
        validation="results/{study}/signals/validation.parquet",
        fits=selected_fits,
    output:
        png=report(
            "results/{study}/figures/fig3a.png",
            caption="../report/fig3a.rst",
            category="{study}",
            subcategory="Figure 3",
        ),
        pdf="results/{study}/figures/fig3a.pdf",
    log:
        "logs/{study}/fig3a.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=lambda wc: {
            "figure": "fig3a",
            "regressor": study_config(wc)["regressor"],
            "style": config["figures"],
        },
    script:
        "../../scripts/figures.py"


use rule fig3a as fig3b with:
    output:
        png=report(
            "results/{study}/figures/fig3b.png",
            caption="../report/fig3b.rst",
            category="{study}",
            subcategory="Figure 3",
        ),
        pdf="results/{study}/figures/fig3b.pdf",
    log:
        "logs/{study}/fig3b.log",
    params:
        cfg=lambda wc: {
            "figure": "fig3b",
            "regressor": study_config(wc)["regressor"],
            "style": config["figures"],
        },


rule fig3c:
    input:
        fits=lambda wc: expand(
            "results/{study}/fits/{method}.parquet",
            study=wc.study,
            method=study_config(wc)["methods"],
        ),
    output:
        png=report(
            "results/{study}/figures/fig3c.png",
            caption="../report/fig3c.rst",
            category="{study}",
            subcategory="Figure 3",
        ),
        pdf="results/{study}/figures/fig3c.pdf",
    log:
        "logs/{study}/fig3c.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg={"figure": "fig3c", "style": config["figures"]},
    script:
        "../../scripts/figures.py"


rule fig3d:
    input:
        histories=lambda wc: expand(
            "results/{study}/histories/{method}.parquet",
            study=wc.study,
            method=[m for m in study_config(wc)["methods"] if m in POPULATION_METHODS],
        ),
        bcls="results/{study}/fits/bcls.parquet",
    output:
        png=report(
            "results/{study}/figures/fig3d.png",
            caption="../report/fig3d.rst",
            category="{study}",
            subcategory="Figure 3",
        ),
        pdf="results/{study}/figures/fig3d.pdf",
    log:
        "logs/{study}/fig3d.log",
    group:
        "report"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg={"figure": "fig3d", "style": config["figures"]},
    script:
        "../../scripts/figures.py"
