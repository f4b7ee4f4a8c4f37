"""Rule robot_fit: one estimator on the stacked calibration base regressor (population methods:
every seeded run in this one job)."""

import time

import numpy as np

from paramid import io
from paramid.robot import estimators, study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_fit")
    robot = study.robot_of(cfg["robot"])
    base = study.base_from_json(io.read_json(smk.input.base))
    parts = [study.read_signals(path, robot.joints) for path in smk.input.signals]
    problem = study.problem(robot, base, parts, cfg["study"])
    started = time.perf_counter()
    fit = estimators.ESTIMATORS[cfg["method"]](problem, cfg["settings"])
    elapsed = time.perf_counter() - started
    residual = problem.y - problem.W @ fit.base
    rmse = float(np.sqrt(np.mean(residual**2)))
    meta = io.provenance(
        cfg,
        smk.input,
        stage="robot_fit",
        method=cfg["method"],
        notes=fit.notes,
        train_rmse=rmse,
        fit_time_s=elapsed,
        run_rmse=None if fit.run_rmse is None else fit.run_rmse.tolist(),
    )
    io.write_parquet(
        study.fit_frame(fit, base),
        smk.output[0],
        units=study.FIT_UNITS,
        meta=meta,
        nondeterministic_columns=(),
    )
    log.info("%s: calibration RMSE %.4g N m in %.3g s; %s", cfg["method"], rmse, elapsed, fit.notes)


main(snakemake)  # noqa: F821
