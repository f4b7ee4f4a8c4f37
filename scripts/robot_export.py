"""Rule robot_export: a physically consistent method's model as a URDF: a copy of the study's
URDF with each moving body's identified mass, centre of mass and inertia, friction in
<dynamics>, armature and torque offset in comments per joint, a comment per body saying which
of its standard parameters the data determine (from the base parameters' map in base.json), and
a comment saying where the numbers come from; beside it a CSV of every standard parameter's
exported value, URDF value and determinacy."""

import os
from pathlib import Path

from paramid import io
from paramid.robot import export, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_export")
    choice = io.read_json(smk.input.friction)
    source = io.read_urdf(smk.input.urdf)
    robot = study.law_robot(study.robot_of(cfg["robot"], source), choice)
    base = study.base_from_json(io.read_json(smk.input.base))
    fit, fit_meta = io.read_parquet(smk.input.fit)
    exported = export.export_model(
        cfg,
        choice,
        robot,
        base,
        source,
        fit,
        fit_meta,
        [io.read_parquet_metadata(path) for path in smk.input.signals],
        mesh_prefix=os.path.relpath(  # resolved: a symlinked results/ or data/ folder
            Path(smk.input.urdf).resolve().parent, Path(smk.output.urdf).resolve().parent
        ),
    )
    io.write_text(exported.urdf, smk.output.urdf)
    io.write_csv(exported.determinacy, smk.output.determinacy)
    log.info("%s: %d links written to %s", cfg["method"], len(robot.links), smk.output.urdf)
    log.info(
        "determinacy: %s of %d standard parameters (rank %d)",
        exported.determinacy["set_by"].value_counts().to_dict(),
        len(exported.determinacy),
        base.rank,
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
