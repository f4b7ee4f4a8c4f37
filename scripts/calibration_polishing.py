"""Rule polishing_path: Table 9, dwell-point tracking on a phi 150 mm part (§3.2.3)."""

from pathlib import Path

import numpy as np
import pandas as pd

from paramid import io
from paramid.calibration import paper, polish, report


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "polishing_path")
    problem, _, truth, _ = report.load_problem(smk.input.data, smk.input.truth, smk.input.ident)
    fits = {Path(p).stem: io.read_parquet(p)[0] for p in smk.input.fits}
    pcfg = cfg["polishing"]
    targets = polish.path_targets(pcfg)
    tcp, conv = pcfg["tcp_mm"], truth["convention"]
    centre = targets[0].copy()
    centre[:3, 3] = pcfg["centre_mm"]
    q_seed = polish.seed_configuration(truth["nominal"], centre, tool=tcp, convention=conv)
    rows, points = [], []
    for ident in report.TABLE9:
        x = report.estimates(fits[ident], problem.free)
        errors = polish.tracking_errors(
            problem.full(x), truth["true"], targets, q_seed, tool=tcp, convention=conv
        )
        s = polish.summary(errors)
        name = report.TABLE7_NAMES[ident]
        row = {
            "method": name,
            "stage": "before" if ident == "bc" else "after",
            "runs": errors.shape[0],
        }
        for key, values in s.items():
            row[key] = float(np.mean(values))
            row[f"{key}_sd"] = float(np.std(values, ddof=1)) if values.size > 1 else float("nan")
        row |= {f"paper_{k}": v for k, v in paper.TABLE9[name].items()}
        rows.append(row)
        points.append(
            pd.DataFrame(
                {
                    "method": name,
                    "point": np.arange(errors.shape[1]),
                    "error_mm": errors.mean(axis=0),
                }
            )
        )
    t9 = pd.DataFrame(rows)
    io.write_csv(t9, smk.output.csv)
    cols = [
        "method",
        "stage",
        "mean_mm",
        "rmse_mm",
        "max_mm",
        "within_0p5_pct",
        "within_1p0_pct",
        "paper_mean_mm",
        "paper_rmse_mm",
        "paper_max_mm",
        "paper_within_0p5_pct",
        "paper_within_1p0_pct",
    ]
    io.write_markdown(
        t9[cols], smk.output.md, caption=f"Table 9 ({cfg['study']}): polishing path [mm, %]"
    )
    path = pd.concat(points, ignore_index=True)
    meta = io.provenance(cfg, smk.input, stage="polishing_path", n_points=int(targets.shape[0]))
    io.write_parquet(
        path, smk.output.points, units={"method": "1", "point": "1", "error_mm": "mm"}, meta=meta
    )
    for row in rows:
        log.info("%s: mean %.4f mm, max %.4f mm", row["method"], row["mean_mm"], row["max_mm"])


main(snakemake)  # noqa: F821
