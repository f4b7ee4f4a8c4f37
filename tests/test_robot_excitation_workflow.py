"""Robot excitation in the workflow (workflow/rules/robot_excitation.smk): a study with an
`excitation:` block and no records builds only the design and its twin comparison, with the
promised files and columns; bad settings or coefficient files stop the run before any job."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from test_workflow import copy_workflow, planned_jobs, snakemake

from paramid import io

pytestmark = pytest.mark.slow

URDF = "data/kinova_gen3/kinovaGen3.urdf"
BLOCK = f"""\
robots:
  arm:
    urdf: {URDF}
    joints: [joint_2, joint_4, joint_6]
    twin: {{noise: {{torque_noise_nm: [3.3, 3.3, 0.6]}}}}
    excitation:
      harmonics: 2
      base_frequency_hz: 0.2
      margins: {{position_rad: 0.087, velocity_rad_s: 0.17}}
      acceleration_limit_rad_s2: [7.5, 12.5, 20]
      starts: 2
      maxiter: 10
      grid_points: 24
      sign_smoothing: [0.1]
      compare: [{{name: mine, coefficients: data/arm/coefficients.csv}}]
      comparison: {{seeds: 8, periods: 1, validation_period_s: 5.0}}
"""
TARGETS = ["results/arm/excitation/comparison.csv", "results/arm/excitation/trajectories.png"]
TARGETS += ["results/arm/excitation/comparison.png"]


@pytest.fixture()
def workdir(tmp_path, repo_root) -> Path:
    root = copy_workflow(repo_root, tmp_path / "wf")
    (root / "data/arm").mkdir(parents=True)
    rows = [
        {"joint": j, "harmonic": h, "a": 0.1 * h if h else 0.2, "b": 0.05 * h}
        for j in ("joint_2", "joint_4", "joint_6")
        for h in range(3)
    ]
    pd.DataFrame(rows).to_csv(root / "data/arm/coefficients.csv", index=False)
    return root


def test_excitation_only_study_builds_design_and_comparison(workdir):
    (workdir / "my.yaml").write_text(BLOCK)
    jobs = planned_jobs(workdir, *TARGETS, "--configfile", "my.yaml")
    assert set(jobs) - {"all"} <= {
        "robot_excitation_design",
        "robot_excitation_compare",
        "robot_excitation_figure",
    }
    out = snakemake(workdir, "--cores", "1", *TARGETS, "--configfile", "my.yaml")
    assert out.returncode == 0, out.stderr[-3000:]
    folder = workdir / "results/arm/excitation"
    assert not (workdir / "results/arm/records").exists()
    design = json.loads((folder / "design.json").read_text())
    assert max(design["fine_violation"].values()) <= 0
    assert design["base_columns"]["rank"] == len(design["base_columns"]["names"])
    assert {"cond", "cond_scaled", "logdet"} <= set(design["scores"])
    trajectory = pd.read_csv(folder / "trajectory.csv")
    assert list(trajectory.columns[:2]) == ["time", "q_joint_2"]
    assert len(trajectory) == 500  # one 5 s period at 100 Hz
    # coefficients.csv, in the layout of `compare:` files, is the designed series itself
    from loaders import read_coefficients

    from paramid.excitation.fourier import FourierTrajectory

    saved = FourierTrajectory.from_dict(design["trajectory"])
    joints = ["joint_2", "joint_4", "joint_6"]
    again = read_coefficients(folder / "coefficients.csv", joints, 2, saved.omega_f, "offset")
    q, _, _ = again.evaluate_joints(trajectory["time"].to_numpy())
    assert abs(q[:, 0] - trajectory["q_joint_2"].to_numpy()).max() < 1e-9
    table = pd.read_csv(folder / "comparison.csv")
    assert list(table.columns[:6]) == [
        "trajectory",
        "cond",
        "logdet",
        "param_error_median",
        "val_rmse_median",
        "p_value",
    ]
    assert list(table["trajectory"]) == ["designed", "random", "mine"]
    per_seed, _ = io.read_parquet(folder / "per_seed.parquet")  # the figure's boxes
    medians = per_seed.groupby("trajectory", sort=False)["param_error"].median()
    np.testing.assert_allclose(medians[table["trajectory"]], table["param_error_median"], rtol=1e-9)
    assert list(per_seed.groupby("trajectory", sort=False).size()) == [8, 8, 8]  # the seeds
    designed = table["cond"].iloc[0]
    beaten = table[table["feasible"] & (table["cond"] < designed)]
    assert list(beaten["trajectory"]) == list(table.loc[table["cond_below_designed"], "trajectory"])


@pytest.mark.parametrize(
    ("old", "new", "patterns"),
    [
        ("position_rad: 0.087", "position_rad: 3.0", ["margins.position_rad", "empties joint_2"]),
        ("harmonics: 2", "harmonics: 3", ["coefficients.csv", "joint joint_2 has harmonics"]),
        (
            "coefficients: data/arm/coefficients.csv",
            f"coefficients: {URDF}",
            ["excitation.compare (mine).coefficients: ", "unknown file type '.urdf'"],
        ),
        ("harmonics: 2", "harmonics: 0", ["harmonics", "0"]),
        ("base_frequency_hz: 0.2", "base_frequency_hz: 0", ["base_frequency_hz", "0"]),
        (
            "[3.3, 3.3, 0.6]",
            "[3.3, 0.6]",
            ["torque_noise_nm has 2 values for 3 joints", "one value or one per joint"],
        ),
        (
            "starts: 2",
            "starts: 2\n      controller_rate_hz: 5",
            ["controller_rate_hz = 5 Hz samples the highest harmonic (0.4 Hz) fewer than 20"],
        ),
    ],
    ids=[
        "margin_empties_range",
        "file_harmonics",
        "file_unreadable",
        "harmonics_zero",
        "frequency_zero",
        "noise",
        "controller_rate",
    ],
)
def test_bad_excitation_input_stops_before_any_job(workdir, old, new, patterns):
    (workdir / "my.yaml").write_text(BLOCK.replace(old, new))
    out = snakemake(workdir, "--cores", "1", *TARGETS, "--configfile", "my.yaml")
    assert out.returncode != 0
    text = out.stdout + out.stderr
    for pattern in patterns:
        assert pattern in text, text[-3000:]
    assert "Traceback" not in text, text[-3000:]  # the one message, not a crash
    assert not (workdir / "results").exists()
