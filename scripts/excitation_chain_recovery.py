"""Rule excitation_chain_recovery: the designed excitation drives the planar-chain twin; least
squares on the base regressor (after averaging P periods, filtering and differentiating)
recovers the base parameters, written beside their true values."""

import numpy as np
import pandas as pd

from paramid import io
from paramid.excitation import chain, fourier


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_chain_recovery")
    d, tw, ident = cfg["design"], cfg["twin"], cfg["identification"]
    robot = chain.PlanarChain.from_config(d, d["gravity"])
    base = chain.base_parameters(robot.lengths, robot.gravity, samples=d["base_samples"])
    design = io.read_json(smk.input.design)
    trajectory = fourier.FourierTrajectory.from_dict(design["trajectory"])
    noise = chain.ChainNoise(
        sample_rate_hz=tw["sample_rate_hz"],
        torque_noise_relative=tw["torque_noise_relative"],
        encoder_noise_rad=tw["encoder_noise_rad"],
        coulomb_smoothing_velocity=tw["coulomb_smoothing_velocity"],
    )
    record = chain.simulate(
        robot,
        trajectory,
        ident["periods"] * trajectory.period,
        noise,
        seed=tw["seed"],
        record="calibration",
    )
    estimate, proc = chain.identify(
        robot,
        base,
        record,
        periods=ident["periods"],
        cutoff_hz=ident["cutoff_hz"],
        order=ident["filter_order"],
        trim_s=ident["trim_s"],
        periodic=ident["periodic_filter"],
    )
    true = base.beta(robot.standard_parameters())
    frame = pd.DataFrame(
        {
            "param": base.names,
            "true": true,
            "estimate": estimate,
            "abs_error": np.abs(estimate - true),
            "rel_error": np.abs(estimate - true) / np.abs(true),
            "combination": base.combinations(chain.standard_names(robot.n)),
        }
    )
    io.write_csv(frame, smk.output.table)
    rel = float(np.linalg.norm(estimate - true) / np.linalg.norm(true))
    io.write_json(
        {
            "relative_l2_error": rel,
            "max_rel_error": float(frame.rel_error.max()),
            "median_rel_error": float(frame.rel_error.median()),
            "rank": base.rank,
            "standard_parameters": chain.standard_names(robot.n),
            "rows": int(proc.q.size),
            "design_cond": design["cond"],
            "provenance": io.provenance(cfg, smk.input, stage="excitation_chain_recovery"),
        },
        smk.output.summary,
    )
    log.info(
        "%d base parameters; relative L2 error %.3g, max relative %.3g (%s)",
        base.rank,
        rel,
        frame.rel_error.max(),
        frame.param[frame.rel_error.idxmax()],
    )


main(snakemake)  # noqa: F821
