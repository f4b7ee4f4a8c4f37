"""Rule excitation_chain_recovery: the designed excitation drives the planar-chain twin; least
squares on the base regressor (after averaging P periods, filtering and differentiating)
recovers the base parameters, written beside their true values."""

from paramid import io
from paramid.excitation import chain, fourier


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_chain_recovery")
    robot, base = chain.chain_of(cfg["design"])
    design = io.read_json(smk.input.design)
    trajectory = fourier.FourierTrajectory.from_dict(design["trajectory"])
    frame, summary = chain.recovery(robot, base, trajectory, cfg["twin"], cfg["identification"])
    io.write_csv(frame, smk.output.table)
    meta = io.provenance(cfg, smk.input, stage="excitation_chain_recovery")
    io.write_json(summary | {"design_cond": design["cond"], "provenance": meta}, smk.output.summary)
    log.info(
        "%d base parameters; relative L2 error %.3g, max relative %.3g (%s)",
        base.rank,
        summary["relative_l2_error"],
        summary["max_rel_error"],
        frame.param[frame.rel_error.idxmax()],
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
