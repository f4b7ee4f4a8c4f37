# Stage 7: Figure 3a-d, each its own rule so that one figure rebuilds alone (PNG and PDF).

rule fig3a:
    input:
        validation="results/{study}/signals/validation.parquet",
        fits=selected_fits,
    output:
        png="results/{study}/figures/fig3a.png",
        pdf="results/{study}/figures/fig3a.pdf",
    params:
        cfg=lambda wc: {"figure": "fig3a", "regressor": study_config(wc)["regressor"]},
    log:
        "logs/{study}/fig3a.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/figures.py"


use rule fig3a as fig3b with:
    output:
        png="results/{study}/figures/fig3b.png",
        pdf="results/{study}/figures/fig3b.pdf",
    params:
        cfg=lambda wc: {"figure": "fig3b", "regressor": study_config(wc)["regressor"]},
    log:
        "logs/{study}/fig3b.log",


rule fig3c:
    input:
        fits=lambda wc: expand(
            "results/{study}/fits/{method}.parquet",
            study=wc.study,
            method=study_config(wc)["methods"],
        ),
    output:
        png="results/{study}/figures/fig3c.png",
        pdf="results/{study}/figures/fig3c.pdf",
    params:
        cfg={"figure": "fig3c"},
    log:
        "logs/{study}/fig3c.log",
    conda:
        "../../envs/paramid.yaml"
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
        png="results/{study}/figures/fig3d.png",
        pdf="results/{study}/figures/fig3d.pdf",
    params:
        cfg={"figure": "fig3d"},
    log:
        "logs/{study}/fig3d.log",
    conda:
        "../../envs/paramid.yaml"
    script:
        "../../scripts/figures.py"
