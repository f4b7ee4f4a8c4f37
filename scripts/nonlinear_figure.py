"""Rule nonlinear_figure: friction law, validation RMSE and convergence for one twin variant."""

import matplotlib.pyplot as plt
import numpy as np

from paramid import io
from paramid.friction import nonlinear


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_figure")
    runs, _ = io.read_parquet(smk.input.fits)
    traces, _ = io.read_parquet(smk.input.traces)
    qd = io.read_parquet(smk.input.calibration)[0]["qd"].to_numpy()
    fig = nonlinear.truth_figure(
        cfg["truth"], cfg["truth_values"], runs, traces, float(np.max(np.abs(qd)))
    )
    io.save_figure(fig, smk.output.png, smk.output.pdf)
    plt.close(fig)
    log.info("figure for %s written", cfg["truth"])


main(snakemake)  # noqa: F821
