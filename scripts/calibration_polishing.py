"""Rule calibration_polishing: Table 9, dwell-point tracking on a phi 150 mm part (§3.2.3)."""

from pathlib import Path

import numpy as np
import pandas as pd

from paramid import io
from paramid.calibration import kinematics as kin
from paramid.calibration import model, paper, polish, report, twin


def _row(name: str, model_name: str, ident: str, errors: np.ndarray) -> dict:
    """Table 9 row: mean and SD over runs of each path metric, the paper's values."""
    row: dict = {
        "method": name,
        "model": model_name,
        "stage": "before" if ident == "bc" else "after",
        "runs": errors.shape[0],
    }
    for key, values in polish.summary(errors).items():
        row[key] = float(np.mean(values))
        row[f"{key}_sd"] = float(np.std(values, ddof=1)) if values.size > 1 else float("nan")
    printed = paper.TABLE9.get(name, {}) if model_name == "paper" else {}
    for key in ("mean_mm", "rmse_mm", "max_mm", "within_0p5_pct", "within_1p0_pct"):
        row[f"paper_{key}"] = printed.get(key, float("nan"))
    return row


def main(smk) -> None:
    cfg = smk.params.cfg
    log = io.start_log(smk.log[0], "calibration_polishing")
    runs = list(range(cfg["runs"]))
    pcfg = cfg["polishing"]
    targets = polish.path_targets(pcfg)
    tcp = np.asarray(pcfg["tcp_mm"], dtype=np.float64)
    table = kin.DHTable.from_degrees(**cfg["robot"]["dh"], convention=cfg["robot"]["convention"])
    mass = model.MassModel.from_config(cfg["mass_model"])
    truth = io.read_json(smk.input.truth)
    robots = [
        twin.robot_of(cfg["study"], cfg["twin"], table, mass, report.dataset_of(r, truth))
        for r in runs
    ]
    centre = targets[0].copy()
    centre[:3, 3] = pcfg["centre_mm"]
    q_seed = polish.seed_configuration(truth["nominal"], centre, tool=tcp)
    rows, points = [], []
    problems_of: dict[str, list] = {}  # one load per model
    for path in map(Path, smk.input.fits):
        model_name, ident = path.parent.name, path.stem
        if model_name not in problems_of:
            problems_of[model_name] = report.load_problems(
                smk.input.data, smk.input.truth, smk.input.ident, model_name, runs
            )[0]
        problems = problems_of[model_name]
        fit = io.read_parquet(path)[0].sort_values("run")
        x = report.estimates(fit, problems[0].free)
        errors = np.concatenate(
            [
                polish.tracking_errors(p.full(xr), robot, targets, q_seed, tool=tcp, mass=mass)
                for p, xr, robot in zip(problems, x, robots, strict=True)
            ]
        )
        name = report.model_label(ident, model_name)
        row = _row(name, model_name, ident, errors)
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
    path_errors = pd.concat(points, ignore_index=True)
    meta = io.provenance(
        cfg, smk.input, stage="calibration_polishing", n_points=int(targets.shape[0])
    )
    io.write_parquet(
        path_errors,
        smk.output.points,
        units={"method": "1", "point": "1", "error_mm": "mm"},
        meta=meta,
    )
    for row in rows:
        log.info("%s: mean %.4f mm, max %.4f mm", row["method"], row["mean_mm"], row["max_mm"])


main(snakemake)  # noqa: F821
