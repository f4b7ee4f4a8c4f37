"""Rule robot_fit: one estimator on the compressed calibration data (the methods that need the
rows read the signals too; population methods run every seeded run in this one job)."""

import time

import numpy as np

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
    fit = estimators.ESTIMATORS[cfg["method"]](problem, cfg["settings"])
    elapsed = time.perf_counter() - started
    rmse = float(np.sqrt(np.sum(estimators.joint_residuals(problem, fit.base)) / problem.n_rows))
    found = []  # to the terminal, the log and the fit's metadata (tables/warnings.csv)
    unit = model.torque_unit([units["tau"] for units in model.joint_units(robot)])
    if fit.curve is not None and study.prior_climbs(fit.curve) and "twin_spread" in cfg:
        found.append(study.twin_prior_cost(fit.curve, cfg["study"], cfg["twin_spread"], unit))
    elif fit.curve is not None and study.prior_climbs(fit.curve):
        trials = estimators.free_link_trials(problem, cfg["settings"])
        free = cfg["settings"]["free_links"]
        found.append(study.prior_disagreement(fit.curve, cfg["study"], trials, unit, free))
    if fit.solver is not None and not fit.solver.optimal:
        found.append(study.inexact_solve(fit.solver, cfg["study"], cfg["method"]))
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
    log.info("%s: calibration RMSE %.4g N m in %.3g s; %s", cfg["method"], rmse, elapsed, fit.notes)
    if fit.curve is not None and (unsolved := study.unsolved_solves(fit.curve.statuses)):
        log.info("%s: the prior weight's cross-validation: %s", cfg["method"], unsolved)
    for text in found:
        log.warning(text)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
