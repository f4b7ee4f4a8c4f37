# Provenance and reproducibility checks.
# provenance: one JSON with every output under results/: its metadata block (config hash,
#   input SHA-256, versions) and data hash, plus the git commit of the checkout. Part of `all`.
# verify: rebuild everything from scratch in a temporary copy and compare every output's
#   data and metadata with results/ (paramid verify). Not part of `all`: run `snakemake verify`.

import sys

PROVENANCE_JSON = "results/provenance.json"
# every target of `rule all` but the provenance record itself (evaluated once all is parsed)
PROVENANCE_INPUTS = lambda wildcards: other_targets(rules.all.input, PROVENANCE_JSON)


rule provenance:
    input:
        PROVENANCE_INPUTS,
    output:
        PROVENANCE_JSON,
    log:
        "logs/provenance.log",
    localrule: True
    script:
        "../../scripts/provenance.py"


rule verify:
    input:
        PROVENANCE_INPUTS,
    log:
        "logs/verify.log",
    localrule: True
    threads: lambda wildcards: workflow.cores  # all cores given (lazy: --unlock needs none)
    params:
        python=sys.executable,
        checkout=workflow.basedir,  # the Snakefile's directory: the checkout to rebuild
        # the same --configfile overlays as this run (--config overrides are not carried)
        configfiles=overlay_options(workflow.overwrite_configfiles),
    shell:
        "{params.python:q} -m paramid verify --workflow {params.checkout:q}"
        " --results . --cores {threads} {params.configfiles} 2>&1 | tee {log}"
