"""Rule hip_rls: RLS trajectory (Eq 7-9), the box [L, U] (§3.1), gamma (Eq 10); mu (Eq 12) is
the AGWO fit's, so the AGWO settings leave this rule and the fits in the box alone."""

import numpy as np

from paramid import io, signals
from paramid.hip import pipeline


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "hip_rls")
    keys = cfg["regressor"]
    H, y, frame = io.read_regression(smk.input[0], keys)
    fs = signals.sample_rate(frame["time"].to_numpy())
    prior = pipeline.rls_prior(H, y, keys, cfg["rls"], fs)
    memory = pipeline.memory_note(frame["qd"].to_numpy(), fs, prior.forgetting)
    if memory:
        log.warning(memory)

    meta = io.provenance(cfg, smk.input, stage="hip_rls")
    traj, units = prior.trajectory_frame(frame["time"].to_numpy())
    io.write_parquet(traj, smk.output.trajectory, units=units, meta=meta)
    saved = prior.saved([memory] if memory else [])
    io.write_json({**saved.to_json(), "provenance": meta}, smk.output.summary)
    log.info(
        "bounds L=%s U=%s gamma=%.5f",
        np.round(prior.lower, 4),
        np.round(prior.upper, 4),
        prior.gamma,
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
