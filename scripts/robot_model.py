"""Rule robot_model: base parameters of the stacked calibration regressor (pivoted QR of its
compression), their map to the standard parameters, rank and condition number; an excitation
that leaves base parameters of the model unidentifiable is an error naming them."""

from paramid import io
from paramid.robot import base as bp
from paramid.robot import study
from paramid.robot.model import RobotError, law_columns


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_model")
    robot = study.robot_of(cfg["robot"])
    frame, meta = io.read_parquet(smk.input.compressed)
    data = study.compressed_from_frame(frame, meta)
    stacked = data.select(law_columns(robot, [False] * robot.n_joints)).stacked()
    rel_tol = cfg["base"]["rel_tol"]
    structural = bp.structural_base(robot, rel_tol=rel_tol)
    base = bp.base_parameters(stacked, robot.standard_names, rel_tol)
    if base.rank < structural.rank:
        missing = bp.unidentified(bp.base_columns(stacked, structural), structural)
        raise RobotError(
            f"robots.{cfg['study']}: the calibration records identify {base.rank} of the model's "
            f"{structural.rank} base parameters; not excited independently: {missing}. Use a "
            "richer excitation (more joints moving, both directions, more speeds) or more records."
        )
    rows = int(data.samples.sum()) * robot.n_joints
    summary = study.base_summary(base, robot, bp.base_columns(stacked, base), rows)
    summary["structural_rank"] = structural.rank
    summary["provenance"] = io.provenance(cfg, smk.input, stage="robot_model")
    io.write_json(summary, smk.output[0])
    log.info(
        "%d standard -> %d base parameters (%d inertial); cond %.3g, column-scaled %.3g",
        robot.n_parameters,
        base.rank,
        summary["counts"]["base_inertial"],
        summary["cond"],
        summary["cond_scaled"],
    )


main(snakemake)  # noqa: F821
