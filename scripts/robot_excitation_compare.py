"""Rule robot_excitation_compare: the designed excitation, a random feasible one and the
configured coefficient files on the robot's twin over the noise seeds (comparison.csv; each
seed's errors in per_seed.parquet)."""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy loads (see robot_excitation_design)
os.environ["OMP_NUM_THREADS"] = "1"

from paramid import io  # noqa: E402
from paramid.excitation.fourier import FourierTrajectory  # noqa: E402
from paramid.robot import base as bp  # noqa: E402
from paramid.robot import excitation as ex  # noqa: E402
from paramid.robot import model, study  # noqa: E402


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_excitation_compare")
    spec = cfg["excitation"]
    design = io.read_json(smk.input.design)
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    base = bp.structural_base(robot, rel_tol=cfg["base"]["rel_tol"])
    ex.check_design_base(design, base, smk.input.design)
    designed = FourierTrajectory.from_dict(design["trajectory"])
    tables = [(io.read_table(path), path) for path in smk.input.coefficients]
    files = ex.coefficient_files(spec["compare"], tables, robot.joints, designed)
    table, per_seed, draw = ex.compare_excitations(
        robot, base, spec, cfg["twin"], cfg["study"], designed, files
    )
    if draw is not None:
        log.info("random feasible trajectory: draw %d", draw)
    for warning in ex.infeasible(table, cfg["study"]) + ex.outperformed(table, cfg["study"]):
        log.warning("%s", warning)
    io.write_csv(table, smk.output.comparison)
    meta = io.provenance(cfg, smk.input, stage="robot_excitation_compare")
    unit = model.robot_torque_unit(robot)
    units = {"trajectory": "", "seed": "1", "param_error": "1", "val_rmse": unit}
    io.write_parquet(per_seed, smk.output.per_seed, units=units, meta=meta)
    for row in table.itertuples():
        log.info(
            "%s: cond %.4g (scaled %.4g), param error %.3g, val RMSE %.3g %s, p %.3g, feasible %s",
            row.trajectory,
            row.cond,
            row.cond_scaled,
            row.param_error_median,
            row.val_rmse_median,
            unit,
            row.p_value,
            row.feasible,
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
