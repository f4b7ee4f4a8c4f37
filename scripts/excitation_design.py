"""Rule excitation_design: an optimal Fourier excitation (Eq 8-10 of the excitation paper).

kind "hip": the 1-DOF model of the base study (Eq 6), limits = what the base study's
calibration reference (Eq 18) reaches; kind "chain": the planar chain's base regressor.
Writes design.json (coefficients, criterion, active limits, starts) and one period of
q, qd, qdd on the twin's sample grid as trajectory.parquet.
"""

from paramid import io
from paramid.excitation import chain, design, fourier
from paramid.hip import excitation


def main(smk) -> None:
    cfg = smk.params.cfg
    d = cfg["design"]
    log = io.start_log(smk.log[0], "excitation_design")
    if d["kind"] == "hip":  # the paper's trajectory scored under the same limits, same grid
        fn, limits, reference = excitation.design_inputs(cfg["base"], d)
    else:
        (fn, limits), reference = chain.design_inputs(d), None
    result = design.design_from_config(fn, limits, d, ("excitation", smk.wildcards.study))
    meta = io.provenance(cfg, smk.input, stage="excitation_design")
    io.write_json(result.to_dict(reference) | {"provenance": meta}, smk.output.json)
    frame, units = fourier.period_frame(result.trajectory, d["period_s"], d["sample_rate_hz"])
    io.write_parquet(frame, smk.output.trajectory, units=units, meta=meta)
    log.info(
        "%s: %s = %.6g (cond %.4f), shrink %.4f, active %s; starts %s",
        smk.wildcards.study,
        d["criterion"],
        result.value,
        result.cond,
        result.shrink,
        result.active_constraints,
        [round(s.value, 4) for s in result.starts],
    )
    if reference:
        log.info("reference %s: cond %.4f", reference["name"], reference["cond"])


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
