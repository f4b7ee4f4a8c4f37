# paramid: robot parameter identification as a cached Snakemake DAG.
# Config, schema validation, the study families (their Python: paramid.<family>.workflow), the
# rule files of each family and the targets. Every check runs before any job: a mistake in the
# config or an input ends the run with one message naming the study and the field or file.

import os
from pathlib import Path

from snakemake.utils import min_version

from paramid.calibration.workflow import CalibrationStudies
from paramid.cec2022.workflow import Cec2022Benchmark
from paramid.excitation.workflow import ExcitationDesigns
from paramid.friction.workflow import NonlinearStudies
from paramid.hip.workflow import HipStudies
from paramid.robot.workflow import RobotStudies
from paramid.workflow import (
    apply_rule_template,
    audit_targets,
    cancel_scheduler_wakeups,
    checked,
    load_config,
    memory_mb,
    no_such_study,
    one_of,
    other_targets,
    overlay_options,
    study_targets,
    unknown_study,
)

min_version("9.0")


SCHEMA = f"{workflow.basedir}/workflow/schemas/config.schema.yaml"
FOLDERS = checked(
    lambda: load_config(config, workflow.overwrite_configfiles, SCHEMA, workflow.is_main_process)
)
HIP, NONLINEAR, EXCITATION, CALIBRATION, CEC, ROBOTS = checked(
    lambda: (
        HipStudies(config),
        NonlinearStudies(config),
        ExcitationDesigns(config),
        CalibrationStudies(config),
        Cec2022Benchmark(config, FOLDERS, workflow.basedir),
        RobotStudies(config),
    )
)
checked(lambda: [family.check_inputs() for family in (HIP, CALIBRATION, CEC, ROBOTS)])


report: "workflow/report/workflow.rst"


wildcard_constraints:
    study="[a-z][a-z0-9_]*",
    method="[a-z_]+",


include: "workflow/rules/hip.smk"
include: "workflow/rules/hip_report.smk"
include: "workflow/rules/hip_sweeps.smk"
include: "workflow/rules/nonlinear.smk"
include: "workflow/rules/excitation.smk"
include: "workflow/rules/calibration.smk"
include: "workflow/rules/cec2022.smk"
include: "workflow/rules/robot.smk"
include: "workflow/rules/robot_excitation.smk"


# One target per family (`snakemake robots`), and `all`.
rule studies:
    """The 1-DOF studies under `studies:` (hip, pendulum, yours): tables, figures, sweeps, audits."""
    input:
        HIP.targets(),


rule nonlinear:
    """The nonlinear-friction studies under `nonlinear:`."""
    input:
        NONLINEAR.targets(),


rule excitation:
    """The excitation designs under `excitation:` (hip and planar chain)."""
    input:
        EXCITATION.targets(),


rule calibration:
    """The kinematic-calibration studies under `calibration:` (the KR210)."""
    input:
        CALIBRATION.targets(),


rule cec2022:
    """The CEC 2022 optimiser benchmark."""
    input:
        CEC.targets(),


rule robots:
    """The multi-joint robot studies under `robots:` (URDF + joint logs or twin)."""
    input:
        ROBOTS.targets(),


rule all:
    default_target: True
    input:
        rules.studies.input,
        rules.nonlinear.input,
        rules.excitation.input,
        rules.calibration.input,
        rules.cec2022.input,
        rules.robots.input,
        "results/provenance.json",


rule audit:
    """Every claims audit (hip, pendulum, nonlinear, KR210, CEC 2022, the excitation designs)."""
    input:
        audit_targets(rules.all.input),


include: "workflow/rules/provenance.smk"


# The scheduler's pending wake-ups (profiles/default: max-jobs-per-timespan) end with the run.
onsuccess:
    cancel_scheduler_wakeups()


onerror:
    cancel_scheduler_wakeups()


# A target per study too (`snakemake kr210`, `snakemake kinova_gen3`): its family's targets.
for _name, _targets in checked(
    lambda: study_targets([HIP, NONLINEAR, EXCITATION, CALIBRATION, ROBOTS], workflow.rules)
):

    rule:
        name:
            _name
        input:
            _targets,


# A target of a study the config does not have (`snakemake mine` without --configfile my.yaml):
# one message naming the studies it has, not Snakemake's "No rule to produce mine".
rule no_such_study:
    input:
        no_such_study(FOLDERS, workflow.overwrite_configfiles, workflow.rules),
    output:
        "{target}",
    wildcard_constraints:
        target=unknown_study([*FOLDERS, Path(CEC.out).parts[1]], os.listdir()),


# The rule template (paramid.workflow.apply_rule_template): code hash, log, benchmark file and
# conda environment for every scripted rule; the hip chain's rules run first (priority).
apply_rule_template(
    workflow, first_files=["hip.smk", "hip_report.smk", "hip_sweeps.smk"], priority=50
)
