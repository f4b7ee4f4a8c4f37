"""Rule robot_friction: the Coulomb law of every joint, sgn q̇ or tanh(q̇/v_s) (``auto``: the
one with the lower cross-validated RMSE of the consistent fit, per joint), and which joints have
an offset (``auto``: where it lowers that joint's cross-validated RMSE by more than z standard
errors, paramid.robot.estimators.choose_offsets), as friction.json and tables/friction.csv."""

from paramid import io
from paramid.robot import study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_friction")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    summary = io.read_json(smk.input.base)
    base = study.base_from_json(summary)
    frame, meta = io.read_parquet(smk.input.compressed)
    data = study.compressed_from_frame(frame, meta)
    rate = float(meta["sample_rate_hz"])
    choice, table = study.choose_friction(
        robot, base, data, rate, cfg["study"], cfg["coulomb"], cfg["lmi"],
        cfg["robot"]["offset"], summary["offsets_identifiable"],
    )  # fmt: skip
    io.write_json(
        {**choice, "provenance": io.provenance(cfg, smk.input, stage="robot_friction")},
        smk.output.choice,
    )
    io.write_csv(table, smk.output.table)
    log.info("Coulomb law per joint: %s; offsets: %s", choice["laws"], choice["offsets"])


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
