"""Rule robot_export: a physically consistent method's model as a URDF: a copy of the study's
URDF with each moving body's identified mass, centre of mass and inertia, friction in
<dynamics>, armature and torque offset in comments per joint, and a comment saying where the
numbers come from."""

from pathlib import Path

from paramid import io
from paramid.robot import study, urdf


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_export")
    choice = io.read_json(smk.input.friction)
    robot = study.law_robot(
        study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"])), choice
    )
    frame, meta = io.read_parquet(smk.input.fit)
    _, theta = study.fit_vectors(frame)
    if theta is None:
        raise ValueError(f"{cfg['method']} gives no standard parameters to export")
    header = study.export_header(cfg, choice, meta)
    friction, armature = study.urdf_friction(robot, theta), study.urdf_armature(robot, theta)
    source = Path(smk.input.urdf).read_text()
    offsets = study.urdf_offsets(robot, theta)
    text = urdf.export_urdf(source, robot, theta, friction, header, armature, offsets)
    io.write_text(text, smk.output[0])
    log.info("%s: %d links written to %s", cfg["method"], len(robot.links), smk.output[0])


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
