"""Rule robot_recovery: a twin study's base-parameter recovery (truth known): estimate, relative
error and whether the 95 % interval covers the truth, per method and base parameter."""

import math

from paramid import io
from paramid.robot import study, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_recovery")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    base = study.base_from_json(io.read_json(smk.input.base))
    t = cfg["twin"]
    truth = twin.true_parameters(robot, t["seed"], t["inertia_spread"], **t["friction"])
    fits = {m: io.read_parquet(p)[0] for m, p in zip(cfg["methods"], smk.input.fits, strict=True)}
    table = study.recovery_table(fits, base, truth)
    io.write_csv(table, smk.output[0])
    for row in study.recovery_summary(table).itertuples():
        log.info(
            "%s: median relative error %.3g (%d parameters true 0: no relative error), 95 %% "
            "coverage %s",
            row.method,
            row.median_rel_error,
            row.true_zero,
            "n/a" if math.isnan(row.coverage_95) else f"{row.coverage_95:.3f}",
        )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
