"""Rule hip_sweep_table: the table of a Figure 4 sweep (median, IQR over runs, tests against the
default), gathered from its one-value jobs."""

import pandas as pd

from paramid import io
from paramid.hip import sweeps


def main(smk) -> None:
    cfg = smk.params.cfg
    sweep, study = cfg["sweep"], cfg["study"]
    log = io.start_log(smk.log[0], f"hip_sweep_table_{sweep}")
    points = pd.concat([io.read_parquet(p)[0] for p in smk.input.points], ignore_index=True)
    default = cfg["default"]
    if default == "auto":  # the cutoff chosen from the data (rule hip_cutoff)
        default = io.read_json(smk.input.default[0])["chosen_hz"]
    table = sweeps.sweep_table(sweep, points, default, study)
    io.write_csv(table, smk.output.csv)
    caption = sweeps.sweep_caption(sweep, study, cfg["measured"])
    io.write_markdown(table, smk.output.md, caption=caption)
    log.info("%s: %d rows", sweep, len(table))


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
