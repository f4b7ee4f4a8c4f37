"""Rule excitation_figure: Eq 18 vs the designed excitation and the identification errors."""

from paramid import io
from paramid.excitation import core as excitation
from paramid.hip import twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "excitation_figure")
    design = io.read_json(smk.input.design)
    per_seed, _ = io.read_parquet(smk.input.seeds)
    trajectories = {
        "paper Eq 18": twin.Trajectory.from_config(cfg["calibration"]["trajectory"]),
        "designed": excitation.FourierTrajectory.from_dict(design["trajectory"]),
    }
    limits = excitation.JointLimits(**design["limits"])
    fig = excitation.comparison_figure(
        trajectories, design["trajectory"]["period_s"], limits, per_seed, cfg.get("style")
    )
    io.save_figure(
        fig, smk.output.png, smk.output.pdf, dpi=(cfg.get("style") or {}).get("dpi", 200)
    )
    log.info("figure written: %s", smk.output.png)


main(snakemake)  # noqa: F821
