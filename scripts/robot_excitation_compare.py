"""Rule robot_excitation_compare: the designed excitation, a random feasible one and the
configured coefficient files on the robot's twin over the noise seeds (comparison.csv)."""

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # before numpy loads (see robot_excitation_design)
os.environ["OMP_NUM_THREADS"] = "1"

import numpy as np  # noqa: E402

from paramid import io  # noqa: E402
from paramid.excitation.fourier import FourierTrajectory  # noqa: E402
from paramid.robot import base as bp  # noqa: E402
from paramid.robot import excitation as ex  # noqa: E402
from paramid.robot import study, twin  # noqa: E402


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_excitation_compare")
    spec, tw, name = cfg["excitation"], cfg["twin"], cfg["study"]
    design = io.read_json(smk.input.design)
    robot = study.robot_of(cfg["robot"])
    base = bp.structural_base(robot, rel_tol=cfg["base"]["rel_tol"])
    if base.independent.tolist() != design["base_columns"]["independent"]:
        raise RuntimeError(f"{smk.input.design}: base columns differ from this robot's; rebuild it")
    limits, _ = ex.limits_of(robot, spec, name)
    physical = ex.physical_of(robot, spec)
    designed = FourierTrajectory.from_dict(design["trajectory"])
    random, draw = ex.random_feasible(robot, base, spec, limits, physical, name)
    log.info("random feasible trajectory: draw %d", draw)
    trajectories = {"designed": designed, "random": random}
    for entry, path in zip(spec["compare"], smk.input.coefficients, strict=True):
        trajectories[entry["name"]] = ex.read_coefficients(
            path, robot.joints, designed.order, designed.omega_f, entry["constant"]
        )
    t_fine = ex.fine_grid(designed, spec["grid_points"], spec["fine_factor"])
    feasibility = {
        k: ex.violations(robot, v, limits, physical, ex.fine_grid(v, len(t_fine), 1))
        for k, v in trajectories.items()
    }
    c = spec["comparison"]
    setup = ex.TwinSetup(
        robot=robot,
        base=base,
        theta=twin.true_parameters(robot, tw["seed"], tw["inertia_spread"]),
        sigma=twin.TwinNoise(
            torque_noise_nm=tuple(np.atleast_1d(tw["noise"]["torque_noise_nm"]))
        ).torque_sigma(robot.n_joints),
        rate_hz=tw["sample_rate_hz"],
        validation=twin.excitation(
            robot, c["validation_seed"], designed.order, c["validation_period_s"]
        ),
        validation_s=c["validation_period_s"],
    )
    seeds = list(range(c["seeds"]))
    table, _ = ex.compare(
        setup, trajectories, feasibility, c["periods"], seeds, spec["grid_points"]
    )
    io.write_csv(table, smk.output[0])
    for row in table.itertuples():
        log.info(
            "%s: cond %.4g (scaled %.4g), param error %.3g, val RMSE %.3g N m, p %.3g, feasible %s",
            row.trajectory,
            row.cond,
            row.cond_scaled,
            row.param_error_median,
            row.val_rmse_median,
            row.p_value,
            row.feasible,
        )


main(snakemake)  # noqa: F821
