"""Rule calibration_identifiability: rank and identified subset of every model (Eq 9-10)."""

from paramid import io
from paramid.calibration import identifiability


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_identifiability")
    frame, _ = io.read_parquet(smk.input.data)
    jacobians = identifiability.data_set_jacobians(frame, io.read_json(smk.input.truth))
    table, summary = identifiability.models_identifiability(
        jacobians, cfg["models"], cfg["identifiability"]["rel_tol"]
    )
    for name, entry in summary.items():
        log.info(
            "%s: rank %d of %d candidates; fixed %s; null space %s",
            name,
            entry["rank"],
            entry["candidates"],
            entry["fixed_names"],
            entry["unidentifiable_combinations"],
        )
    io.write_csv(table, smk.output.csv)
    out = {
        **summary,
        "method": identifiability.METHOD,
        "provenance": io.provenance(cfg, smk.input, stage="calibration_identifiability"),
    }
    io.write_json(out, smk.output.json)


if __name__ == "__main__":
    io.run_job(main, snakemake)  # noqa: F821
