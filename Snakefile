# paramid: robot parameter identification as a cached Snakemake DAG.
# Stages follow the hip paper's protocol (§4.1): simulate (or ingest) records -> signals
# (filter, differentiate, trim) -> RLS bounds -> per-method seeded fits -> tables, statistics
# and figures.

from snakemake.utils import min_version, update_config

from paramid.config import validate
from paramid.ingest import read_yaml

min_version("9.0")

# config.yaml is read by paramid (a syntax error names the file and line); values given with
# --configfile or --config take precedence over it, as with Snakemake's configfile directive.
_settings = read_yaml("config.yaml")
update_config(_settings, config)
config.clear()
config.update(_settings)

# schema errors in three lines: field path, offending value, broken rule (paramid.config)
validate(config, f"{workflow.basedir}/workflow/schemas/config.schema.yaml")


report: "workflow/report/workflow.rst"


include: "workflow/rules/common.smk"
include: "workflow/rules/hip_common.smk"


wildcard_constraints:
    study=one_of(STUDIES),
    record=one_of(RECORDS),
    method="[a-z_]+",


include: "workflow/rules/simulate.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/signals.smk"
include: "workflow/rules/rls.smk"
include: "workflow/rules/fit.smk"
include: "workflow/rules/tables.smk"
include: "workflow/rules/stats.smk"
include: "workflow/rules/figures.smk"
include: "workflow/rules/sweeps.smk"
include: "workflow/rules/nonlinear.smk"
include: "workflow/rules/excitation.smk"
include: "workflow/rules/calibration.smk"
include: "workflow/rules/calibration_audit.smk"
include: "workflow/rules/cec2022.smk"
include: "workflow/rules/audit.smk"
include: "workflow/rules/robot.smk"
include: "workflow/rules/robot_excitation.smk"


# the studies under `studies:` (hip, pendulum, users' own): tables, figures, sweeps, audits
rule studies:
    input:
        all_targets(),


rule all:
    default_target: True
    input:
        rules.studies.input,
        nonlinear_targets(),
        excitation_targets(),
        [t for study in CAL_STUDIES for t in calibration_targets(study)],
        CEC_TARGETS,
        robot_targets(),
        "results/provenance.json",


include: "workflow/rules/provenance.smk"


# The rule template: every rule that runs a script gets params.code, the hash of the paramid
# modules the script imports (their whole import closure, paramid.provenance.code_version), so
# editing library code reruns exactly the rules whose jobs run it. A rule may pass a narrower
# `code` itself (cec2022_run: only its own optimiser of optim.METHODS); every rule has a log.
# Each also gets a benchmark file (benchmarks/<rule>/<wildcards>.tsv: wall time, memory), every
# rule the run's one conda environment (by name, envs/paramid.yaml), and the hip chain's rules
# run first (priority).
apply_rule_template(first_files=HIP_RULE_FILES, priority=HIP_PRIORITY)
