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
    design = _design()
    frame = audit.excitation_audit(design)
    assert list(frame.columns) == audit_columns.COLUMNS
    verdicts = _verdicts(frame)
    assert verdicts["Fourier series order per joint (Eq 8)"] == "input"
    row = frame.set_index("claim").loc["coefficients of the trajectory (4 joint(s), 2L + 1 each)"]
    assert (row["paper_value"], row["reproduced_value"]) == (44, 44)  # the paper's 44
    assert verdicts["the joint limits of Eq 9 hold for all t"] == "reproduced"
    assert verdicts["rest at both ends of the period: q̇ = q̈ = 0 (Eq 9)"] == "reproduced"
    # q = 0 at the ends is not imposed: the start pose is the series' value at t = 0
    start = FourierTrajectory.from_dict(design["trajectory"]).evaluate_joints(np.zeros(1))[0][0]
    zero = frame.set_index("claim").loc["q = 0 at both ends of the period (Eq 9)"]
    assert zero["verdict"] == "differs" and "not imposed" in zero["reason"]
    assert zero["reproduced_value"] == ", ".join(f"{q:.3g}" for q in start)
    broken = _verdicts(audit.excitation_audit(_design(excess=0.02, residual=1e-6)))
    assert broken["the joint limits of Eq 9 hold for all t"] == "differs"
    assert broken["rest at both ends of the period: q̇ = q̈ = 0 (Eq 9)"] == "differs"
    one = audit.excitation_audit(_design(joints=1) | {"criterion": "dopt"}).set_index("claim")
    assert one.loc["coefficients of the trajectory (1 joint(s), 2L + 1 each)", "paper_value"] == 11
    assert one.loc["criterion: condition number of the regressor (Eq 10)", "verdict"] == "differs"


def _seeds(designed: np.ndarray, averaged: np.ndarray, paper: np.ndarray) -> pd.DataFrame:
    frames = []
    for name, error in (
        ("paper_eq18", paper),
        ("designed", designed),
        ("designed_averaged", averaged),
    ):
        frames.append(
            pd.DataFrame({"trajectory": name, "seed": range(error.size), "param_error": error})
        )
    return pd.concat(frames, ignore_index=True)


def _table(per_seed: pd.DataFrame) -> pd.DataFrame:
    """comparison.csv's columns the audit reads (p and wins against Eq 18, as the table has)."""
    error = per_seed.pivot(index="seed", columns="trajectory", values="param_error")
    rows = []
    for name in ("paper_eq18", "designed", "designed_averaged"):
        ours = error[name]
        p = (
            np.nan
            if name == "paper_eq18"
            else scipy.stats.wilcoxon(ours, error["paper_eq18"]).pvalue
        )
        rows.append(
            {
                "trajectory": name,
                "cond": {"paper_eq18": 17.0, "designed": 14.8, "designed_averaged": 14.8}[name],
                "param_error_median": ours.median(),
                "param_error_p": p,
                "param_error_wins": float(np.sum(ours < error["paper_eq18"])),
                "val_rmse_median": 0.04 if name == "paper_eq18" else 0.0395,
                "val_rmse_p": np.nan if name == "paper_eq18" else 0.2,
                "val_rmse_wins": 17.0,
                "seeds": ours.size,
                "periods": 5 if name == "designed_averaged" else 1,
            }
        )
    return pd.DataFrame(rows)


@pytest.mark.parametrize(("scale", "verdict"), [(3.0, "differs"), (0.5, "reproduced")])
def test_the_papers_benefits_are_judged_by_paired_tests_over_the_seeds(scale, verdict):
    """On the default hip twin the design beats Eq 18 (parameters p = 0.001) but averaging 5
    periods does not help (0.0021 against 0.0007): a claim of the paper our twin refutes."""
    rng = np.random.default_rng(3)
    designed = rng.uniform(0.5, 1.0, 30) * 1e-3
    per_seed = _seeds(designed, designed * scale, designed * 2.0)
    frame = audit.excitation_audit(_design(joints=1), _table(per_seed), per_seed)
    verdicts = _verdicts(frame)
    assert (
        verdicts["the optimised trajectory has a smaller condition number (Eq 10)"] == "reproduced"
    )
    assert verdicts["a smaller condition number identifies the parameters better"] == "reproduced"
    # lower but p = 0.2: the direction alone
    assert verdicts["a smaller condition number identifies the validation torque better"] == (
        "direction only"
    )
    averaging = "averaging several sampled periods improves the signal-to-noise ratio"
    assert verdicts[averaging] == verdict
    row = frame.set_index("claim").loc[averaging]
    assert row["reproduced_value"].endswith(f"vs {np.median(designed):.3g} (one)")
    assert set(frame["verdict"]) <= set(audit_columns.VERDICTS)
