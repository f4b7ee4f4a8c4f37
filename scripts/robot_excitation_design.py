"""Rule robot_excitation_design: the excitation of a robot study (excitation paper Eq 7-10 under
the URDF's limits, paramid.robot.excitation): design.json, coefficients.csv (the layout of the
block's `compare:` files), trajectory.parquet, trajectory.csv."""

import os

# one BLAS thread: the design's batched SVDs slow down by orders of magnitude when threads
# compete with other jobs (set before numpy loads)
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import time  # noqa: E402

from paramid import io  # noqa: E402
from paramid.robot import base as bp  # noqa: E402
from paramid.robot import excitation as ex  # noqa: E402
from paramid.robot import model, study  # noqa: E402


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_excitation_design")
    spec = cfg["excitation"]
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    base = bp.structural_base(robot, rel_tol=cfg["base"]["rel_tol"])
    start = time.perf_counter()
    result, limits, urdf, physical = ex.design_for_robot(robot, base, spec, cfg["study"])
    seconds = time.perf_counter() - start
    warned = ex.design_warnings(robot, result, limits, physical, spec, cfg["study"])
    for warning in warned:
        log.warning("%s", warning)
    summary = ex.checked_summary(
        result, robot, base, limits, urdf, physical, spec, cfg["study"], warned
    )
    summary["provenance"] = provenance = io.provenance(cfg, {}, stage="robot_excitation_design")
    io.write_json(summary, smk.output.design)
    io.write_csv(ex.coefficient_frame(result.trajectory, robot.joints), smk.output.coefficients)
    frame, units = ex.trajectory_frame(
        result.trajectory, robot.joints, spec["controller_rate_hz"], model.joint_units(robot)
    )
    meta = provenance | {"study": cfg["study"], "period_s": result.trajectory.period}
    io.write_parquet(frame, smk.output.parquet, units=units, meta=meta)
    io.write_csv(frame, smk.output.csv)
    log.info(
        "%d joints x %d harmonics: %s %.4g (cond %.4g, column-scaled %.4g) in %.1f s; "
        "worst fine-grid excess %.3g",
        robot.n_joints,
        result.trajectory.order,
        result.criterion,
        result.value,
        summary["scores"]["cond"],
        summary["scores"]["cond_scaled"],
        seconds,
        ex.worst_excess(summary["fine_violation"]),
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
