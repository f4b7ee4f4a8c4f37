"""Rule robot_export: a physically consistent method's model as a URDF: a copy of the study's
URDF with each moving body's identified mass, centre of mass and inertia, friction in
<dynamics>, armature and torque offset in comments per joint, a comment per body saying which
of its standard parameters the data determine (from the base parameters' map in base.json), and
a comment saying where the numbers come from; beside it a CSV of every standard parameter's
exported value, URDF value and determinacy."""

import os
from pathlib import Path

from paramid import io
from paramid.robot import study, urdf
from paramid.robot.model import held_offsets, joint_kinds, urdf_parameters


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_export")
    choice = io.read_json(smk.input.friction)
    source = io.read_urdf(smk.input.urdf)
    robot = study.law_robot(study.robot_of(cfg["robot"], source), choice)
    base = study.base_from_json(io.read_json(smk.input.base))
    if list(base.standard_names) != robot.standard_names:
        raise ValueError("base.json's standard parameters are not the model's: rerun robot_model")
    frame, meta = io.read_parquet(smk.input.fit)
    _, theta = study.fit_vectors(frame)
    if theta is None:
        raise ValueError(f"{cfg['method']} gives no standard parameters to export")
    held = held_offsets(robot)
    d = urdf.determinacy(base, held)
    notes = urdf.determinacy_notes(robot, d, cfg["lmi"].get("free_links") or ())
    prismatic = "prismatic" in joint_kinds(robot)
    friction, armature = study.urdf_friction(robot, theta), study.urdf_armature(robot, theta)
    cutoffs = sorted(
        {float(io.read_parquet_metadata(path)["cutoff_hz"]) for path in smk.input.signals}
    )
    header = study.export_header(cfg, choice, meta, prismatic, armature, cutoffs)
    offsets = study.urdf_offsets(robot, theta)
    determined = dict(zip(robot.standard_names, d, strict=True))
    text = urdf.export_urdf(
        source,
        robot,
        theta,
        friction,
        header,
        armature,
        offsets,
        notes,
        determined,
        mesh_prefix=os.path.relpath(  # resolved: a symlinked results/ or data/ folder
            Path(smk.input.urdf).resolve().parent, Path(smk.output.urdf).resolve().parent
        ),
    )
    io.write_text(text, smk.output.urdf)
    table = urdf.determinacy_table(robot, theta, urdf_parameters(robot), d, held)
    io.write_csv(table, smk.output.determinacy)
    log.info("%s: %d links written to %s", cfg["method"], len(robot.links), smk.output.urdf)
    log.info(
        "determinacy: %s of %d standard parameters (rank %d)",
        table["set_by"].value_counts().to_dict(),
        len(table),
        base.rank,
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
