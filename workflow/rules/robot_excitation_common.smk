# Helpers of workflow/rules/robot_excitation.smk (functions only; rules live there): the
# `excitation:` block of a robot study (paramid.robot.excitation), its parse-time checks (limits
# emptied by margins, coefficient files that do not match: one clear error, nothing written),
# config subsets passed as params and the final targets.

from paramid.robot import excitation as _robot_excitation
from paramid.robot import study as _robot_study


def robot_excitation_studies():
    return [s for s in ROBOT_STUDIES if "excitation" in ROBOTS[s]]


def _check_robot_excitation(study):
    """Margins against the URDF's limits and every coefficient file's joints and harmonics."""
    spec = ROBOTS[study]["excitation"]
    robot = _robot_study.robot_of(ROBOTS[study])
    limits, _ = _robot_excitation.limits_of(robot, spec, study)
    noise = ROBOTS[study]["twin"]["noise"]["torque_noise_nm"]
    if isinstance(noise, list) and len(noise) != robot.n_joints:
        raise _RobotConfigError(
            f"robots.{study}.twin.noise.torque_noise_nm has {len(noise)} values for "
            f"{robot.n_joints} joints (the excitation comparison runs on the twin)"
        )
    omega = 2 * 3.141592653589793 * spec["base_frequency_hz"]
    for entry in spec["compare"]:
        _robot_check_file(
            entry["coefficients"], f"robots.{study}.excitation.compare ({entry['name']})"
        )
        _robot_excitation.read_coefficients(
            entry["coefficients"], robot.joints, spec["harmonics"], omega, entry["constant"]
        )


for _study in robot_excitation_studies():
    _check_robot_excitation(_study)


def robot_excitation_params(wildcards):
    study = wildcards.study
    block = ROBOTS[study]
    return {
        "study": study,
        "robot": _robot_block(study),
        "base": block["base"],
        "excitation": block["excitation"],
        "twin": block["twin"],
    }


def robot_excitation_coefficients(wildcards):
    return [e["coefficients"] for e in ROBOTS[wildcards.study]["excitation"]["compare"]]


def robot_excitation_targets(study):
    """The excitation outputs of one robot study (none without an `excitation:` block)."""
    if "excitation" not in ROBOTS[study]:
        return []
    base = f"results/{study}/excitation"
    files = ["design.json", "trajectory.parquet", "trajectory.csv", "comparison.csv"]
    return [f"{base}/{f}" for f in files] + [f"{base}/trajectories.{e}" for e in ("png", "pdf")]
