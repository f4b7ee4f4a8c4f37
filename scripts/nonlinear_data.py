"""Rule nonlinear_data: one twin variant (Eq 18/19 through Eq 1 + a friction law), its signal
chain (§4.1) and the RLS prior of the Eq 6 model (§3.1, Eq 7-10, 12)."""

from dataclasses import asdict

from paramid import io, signals, simulation
from paramid.friction import data, laws
from paramid.hip import nonlinear, twin


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "nonlinear_data")
    hip = laws.hip_model(cfg["truth"], cfg["gravity"])
    settings = twin.TwinSettings.from_config({**cfg["twin"], "gravity": cfg["gravity"]})
    truth = nonlinear.variant_truth(hip, cfg["twin"]["x_true"], cfg["truth_values"])
    meta = io.provenance(
        cfg,
        (),
        stage="nonlinear_data",
        truth=truth,
        friction_law=hip.friction.equation,
        twin_settings=asdict(settings),
    )
    records = nonlinear.variant_records(
        hip, list(truth.values()), cfg["records"], settings, cfg["twin"]["seed"], cfg["signals"]
    )
    for name, (rec, proc) in records.items():
        units = simulation.RECORD_UNITS
        io.write_parquet(rec.frame(), smk.output[f"records_{name}"], units=units, meta=meta)
        io.write_parquet(proc.frame(), smk.output[name], units=signals.PROCESSED_UNITS, meta=meta)
        log.info("%s: %d samples kept", name, proc.time.size)
    prior = nonlinear.linear_prior(
        records["calibration"][1], cfg["gravity"], cfg["rls"], cfg["agwo"]
    )
    io.write_json({**prior.to_json(), "truth": truth, "provenance": meta}, smk.output.prior)
    lower, upper = data.rigid_bounds(prior)
    log.info(
        "truth %s; RLS box L=%s U=%s gamma=%.5f", list(truth.values()), lower, upper, prior.gamma
    )


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
