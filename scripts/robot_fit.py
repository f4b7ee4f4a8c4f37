"""Rule robot_fit: one estimator on the compressed calibration data (the methods that need the
rows read the signals too; population methods run every seeded run in this one job)."""

import time

from paramid import io
from paramid.robot import estimators, model, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_fit")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    base = study.base_from_json(io.read_json(smk.input.base))
    choice = io.read_json(smk.input.friction)
    frame, meta = io.read_parquet(smk.input.compressed)
    data = study.compressed_from_frame(frame, meta)
    parts = [
        study.signals_of(*io.read_parquet(p), robot.joints) for p in smk.input.get("signals", [])
    ]
    rate = float(meta["sample_rate_hz"])
    _, problem = study.law_problem(robot, base, data, choice, rate, cfg["study"], parts)
    started = time.perf_counter()
    fit = estimators.ESTIMATORS[cfg["method"]].fit(problem, cfg["settings"])
    elapsed = time.perf_counter() - started
    rmse = study.training_rmse(problem, fit)
    unit = model.robot_torque_unit(robot)
    spread = cfg.get("twin_spread")  # only a twin's lmi job has it (RobotStudies.fit_params)
    found = study.fit_warnings(problem, fit, cfg["method"], cfg["settings"], unit, spread)
    meta = io.provenance(
        cfg,
        smk.input,
        stage="robot_fit",
        method=cfg["method"],
        notes=fit.notes,
        train_rmse=rmse,
        fit_time_s=elapsed,
        run_rmse=None if fit.run_rmse is None else fit.run_rmse.tolist(),
        curve=None if fit.curve is None else study.curve_summary(fit.curve),
        solver=None if fit.solver is None else study.solver_summary(fit.solver),
        warnings=found,
    )
    io.write_parquet(
        study.fit_frame(fit, base, model.parameter_units(robot)),
        smk.output[0],
        units=study.FIT_UNITS,
        meta=meta,
        nondeterministic_columns=(),
    )
    log.info(
        "%s: calibration RMSE %.4g %s in %.3g s; %s", cfg["method"], rmse, unit, elapsed, fit.notes
    )
    if fit.curve is not None and (unsolved := study.unsolved_solves(fit.curve.statuses)):
        log.info("%s: the prior weight's cross-validation: %s", cfg["method"], unsolved)
    for text in found:
        log.warning(text)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
