"""Rule robot_model: base parameters of the stacked calibration regressor (pivoted QR of its
compression), their map to the standard parameters, rank and condition number; an excitation
that leaves base parameters of the model unidentifiable is an error naming them (with ``offset:
auto``, an offset it cannot tell from Coulomb friction is left out instead)."""

from paramid import io
from paramid.robot import study


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "robot_model")
    robot = study.robot_of(cfg["robot"], io.read_urdf(cfg["robot"]["urdf"]))
    frame, meta = io.read_parquet(smk.input.compressed)
    data = study.compressed_from_frame(frame, meta)
    robot, summary, dropped = study.model_summary(
        robot, data, cfg["base"]["rel_tol"], cfg["robot"]["offset"], cfg["study"]
    )
    if dropped:
        log.info("offsets these records cannot tell from Coulomb friction, left out: %s", dropped)
    summary["provenance"] = io.provenance(cfg, smk.input, stage="robot_model")
    io.write_json(summary, smk.output[0])
    log.info(
        "%d standard -> %d base parameters (%d inertial); cond %.3g, column-scaled %.3g",
        robot.n_parameters,
        summary["counts"]["base"],
        summary["counts"]["base_inertial"],
        summary["cond"],
        summary["cond_scaled"],
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
