"""The excitation paper's claims audit: its structure rows from a design, its benefit rows
from a comparison on the twin (verdicts from the paired tests, the start pose against Eq 9's
q = 0)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import scipy.stats

from paramid import audit as audit_columns
from paramid.excitation import audit
from paramid.excitation.fourier import FourierTrajectory


def _design(joints: int = 4, excess: float = -0.01, residual: float = 1e-16) -> dict:
    rng = np.random.default_rng(joints)
    trajectory = FourierTrajectory(
        q0=rng.normal(size=joints), a=rng.normal(size=(joints, 5)), b=rng.normal(size=(joints, 5)),
        omega_f=2 * np.pi / 10,
    )  # fmt: skip
    return {
        "trajectory": trajectory.to_dict(),
        "criterion": "cond",
        "fine_violation": {"q_min": -0.2, "q_max": excess, "qd_max": -1.0, "qdd_max": -3.0},
        "boundary_residual": residual,
    }


def _verdicts(frame: pd.DataFrame) -> dict[str, str]:
    return dict(zip(frame["claim"], frame["verdict"], strict=True))


def test_a_designs_structure_is_audited_against_eq_8_to_10():
    """What the design takes from the paper or imposes by construction is an input (never
    evidence); broken, it differs; q = 0 at the ends, not imposed, is not comparable, with
    where 0 lies outside the limits."""
    design = _design() | {"limits": {"q_min": [-2.6, -1.0, -1.0, -1.0], "q_max": [-0.5, 1, 1, 1]}}
    frame = audit.excitation_audit(design)
    assert list(frame.columns) == audit_columns.COLUMNS
    verdicts = _verdicts(frame)
    assert verdicts["Fourier series order per joint (Eq 8)"] == "input"
    row = frame.set_index("claim").loc["coefficients of the trajectory (4 joint(s), 2L + 1 each)"]
    assert (row["paper_value"], row["reproduced_value"]) == (44, 44)  # the paper's 44
    assert verdicts["the joint limits of Eq 9 hold for all t"] == "input"
    assert verdicts["rest at both ends of the period: q̇ = q̈ = 0 (Eq 9)"] == "input"
    # q = 0 at the ends is not imposed: the start pose is the series' value at t = 0
    start = FourierTrajectory.from_dict(design["trajectory"]).evaluate_joints(np.zeros(1))[0][0]
    zero = frame.set_index("claim").loc["q = 0 at both ends of the period (Eq 9)"]
    assert zero["verdict"] == "not comparable" and "not imposed" in zero["reason"]
    assert zero["reproduced_value"] == ", ".join(f"{q:.3g}" for q in start)
    assert zero["reason"].endswith("0 lies outside the limits of joint 1 [-2.6, -0.5] rad")
    broken = _verdicts(audit.excitation_audit(_design(excess=0.02, residual=1e-6)))
    assert broken["the joint limits of Eq 9 hold for all t"] == "differs"
    assert broken["rest at both ends of the period: q̇ = q̈ = 0 (Eq 9)"] == "differs"
    one = audit.excitation_audit(_design(joints=2) | {"criterion": "dopt"}).set_index("claim")
    assert one.loc["coefficients of the trajectory (2 joint(s), 2L + 1 each)", "paper_value"] == 22
    assert one.loc["criterion: condition number of the regressor (Eq 10)", "verdict"] == "differs"
    third = _design()
    third["trajectory"] = {**third["trajectory"], "order": 3}
    third["trajectory"]["a"] = [row[:3] for row in third["trajectory"]["a"]]
    third["trajectory"]["b"] = [row[:3] for row in third["trajectory"]["b"]]
    assert _verdicts(audit.excitation_audit(third))["Fourier series order per joint (Eq 8)"] == (
        "differs"
    )


def _seeds(designed: np.ndarray, averaged: np.ndarray, paper: np.ndarray) -> pd.DataFrame:
    frames = []
    for name, error in (
        ("paper_eq18", paper),
        ("designed", designed),
        ("designed_averaged", averaged),
    ):
        rmse = 0.04 + error  # the validation RMSE follows the parameter error here
        frames.append(
            pd.DataFrame(
                {
                    "trajectory": name,
                    "seed": range(error.size),
                    "param_error": error,
                    "val_rmse": rmse,
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def _table() -> pd.DataFrame:
    """comparison.csv's columns the audit reads (the tests come from the seeds)."""
    return pd.DataFrame(
        {
            "trajectory": ["paper_eq18", "designed", "designed_averaged"],
            "cond": [17.0, 14.8, 14.8],
            "seeds": 30,
            "periods": [1, 1, 5],
        }
    )


@pytest.mark.parametrize(
    ("scale", "verdict"), [(3.0, "differs"), (1.5, "differs"), (0.5, "reproduced")]
)
def test_the_papers_benefits_are_judged_by_paired_tests_over_the_seeds(scale, verdict):
    """On the default hip twin the design beats Eq 18 (parameters p = 0.001) but averaging 5
    periods does not help (0.0021 against 0.0007). Averaging is judged against the one-period
    design, paired by seed: 1.5x its error (still below Eq 18's 2x) differs."""
    rng = np.random.default_rng(3)
    designed = rng.uniform(0.5, 1.0, 30) * 1e-3
    per_seed = _seeds(designed, designed * scale * rng.uniform(0.9, 1.1, 30), designed * 2.0)
    frame = audit.excitation_audit(_design(joints=1), _table(), per_seed)
    verdicts = _verdicts(frame)
    assert (
        verdicts["the optimised trajectory has a smaller condition number (Eq 10)"] == "reproduced"
    )
    assert verdicts["a smaller condition number identifies the parameters better"] == "reproduced"
    averaging = "averaging several sampled periods improves the signal-to-noise ratio"
    assert verdicts[averaging] == verdict
    row = frame.set_index("claim").loc[averaging]
    error = per_seed.pivot(index="seed", columns="trajectory", values="param_error")
    p = scipy.stats.wilcoxon(error["designed_averaged"], error["designed"]).pvalue
    assert f"p = {p:.2g} (Holm" in row["reason"]
    assert row["reproduced_value"].endswith(f"vs {np.median(designed):.3g} (one)")


def test_a_benefit_not_significant_after_holm_is_a_direction_only():
    """Lower on most seeds but not significantly: the direction alone."""
    rng = np.random.default_rng(5)
    designed = rng.uniform(0.5, 1.0, 30) * 1e-3
    paper = designed * rng.uniform(0.7, 1.4, 30)  # about as good
    per_seed = _seeds(designed, designed * 3.0, paper)
    frame = audit.excitation_audit(_design(joints=1), _table(), per_seed)
    error = per_seed.pivot(index="seed", columns="trajectory", values="param_error")
    difference = error["designed"] - error["paper_eq18"]
    p = scipy.stats.wilcoxon(error["designed"], error["paper_eq18"]).pvalue
    verdict = _verdicts(frame)["a smaller condition number identifies the parameters better"]
    assert p > 0.05 and np.median(difference) < 0 and verdict == "direction only"
