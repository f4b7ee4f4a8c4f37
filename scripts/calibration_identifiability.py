"""Rule calibration_identifiability: rank and identifiable subset of the 24 DH errors (Eq 9-10)."""

import numpy as np

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration.identifiability import identifiability


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_identifiability")
    frame, _ = io.read_parquet(smk.input.data)
    truth = io.read_json(smk.input.truth)
    train = frame[frame["split"] == "train"].sort_values("design_order")
    q = train[[f"q{j}" for j in range(1, 7)]].to_numpy(np.float64)
    J = kin.position_jacobian(
        truth["nominal"], q, convention=truth["convention"], tool=truth["tool_mm"]
    ).reshape(-1, kin.N_PARAMS)
    ident = identifiability(J, cfg["identifiability"]["rel_tol"])
    io.write_csv(ident.table(), smk.output.csv)
    names = kin.parameter_names()
    summary = {
        "rank": ident.rank,
        "rel_tol": ident.rel_tol,
        "free": ident.free.tolist(),
        "free_names": [names[i] for i in ident.free],
        "fixed_names": [n for i, n in enumerate(names) if i not in set(ident.free.tolist())],
        "unidentifiable_combinations": ident.combinations(),
        "condition_number_identified": ident.condition_number,
        "singular_values_scaled": ident.singular_values.tolist(),
        "method": "SVD rank of the column-normalised stacked Jacobian at the nominal table "
        "(training configurations); subset = first rank pivots of QR with column pivoting",
        "provenance": io.provenance(cfg, smk.input, stage="calibration_identifiability"),
    }
    io.write_json(summary, smk.output.json)
    log.info(
        "rank %d of 24; fixed %s; null space %s",
        ident.rank,
        summary["fixed_names"],
        summary["unidentifiable_combinations"],
    )


main(snakemake)  # noqa: F821
