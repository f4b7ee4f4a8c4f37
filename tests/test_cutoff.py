"""The cutoff chosen from the data (signals.cutoff_hz: auto, paramid.cutoff)."""

from __future__ import annotations

from pathlib import Path

import loaders
import numpy as np
import pandas as pd
import pytest

from paramid import cutoff, estimators, ingest, io
from paramid.hip import pipeline
from paramid.robot.signals import above_nyquist

ROOT = Path(__file__).resolve().parents[1]
#: the schema's default candidates of a 1-DOF study's ``cutoff_hz: auto``
CANDIDATES = io.read_yaml(ROOT / "workflow/schemas/config.schema.yaml")["$defs"]["study"][
    "properties"
]["signals"]["properties"]["cutoff_candidates_hz"]["default"]
UNITS = {"time": "s", "angle": "rad", "torque": "N m", "velocity": "rad/s"}
KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd", "offset"]  # the README's example block
SIGNALS = {"filter_order": 4, "trim_s": 0.2}


def _record(name: str) -> ingest.MeasuredRecord:
    path = ROOT / "data" / "pendulum" / f"{name}_measured.csv"
    return loaders.load_record(path, UNITS, {"angle": "position"})


def _validation_rmse(cal: ingest.MeasuredRecord, val: ingest.MeasuredRecord, hz: float) -> float:
    """LS on the calibration record, RMSE on the validation record's torque as recorded."""
    fits = []
    for rec in (cal, val):
        processed = pipeline.process(rec.time, rec.angle, rec.torque, SIGNALS, hz)
        fits.append(pipeline.regression(processed, KEYS, 9.81))
    (H, y), (Hv, yv) = fits
    return estimators.rmse(Hv, yv, estimators.ls(H, y))


@pytest.mark.parametrize(
    ("calibration", "validation"), [("sysid_pd", "swingup_ddp"), ("swingup_ddp", "sysid_pd")]
)
def test_chosen_cutoff_is_within_10_percent_of_the_best_in_3_to_8_hz(calibration, validation):
    """Two real records of different runs of the DFKI pendulum: the cutoff chosen on the
    calibration record alone validates within 10 % of the best cutoff in 3-8 Hz (issue #15)."""
    cal, val = _record(calibration), _record(validation)
    candidates = cutoff.usable_candidates(CANDIDATES, [cal.sample_rate_hz, val.sample_rate_hz])
    choice = pipeline.choose_cutoff(
        cal.time, cal.angle, cal.torque, KEYS, 9.81, SIGNALS, candidates, blocks=5
    )
    best = min(_validation_rmse(cal, val, hz) for hz in (3.0, 4.0, 5.0, 6.0, 7.0, 8.0))
    assert _validation_rmse(cal, val, choice.chosen_hz) <= 1.10 * best
    assert choice.chosen_hz == choice.candidates_hz[np.argmin(choice.cv_rmse)]


def test_blocked_cv_equals_an_explicit_fold_loop():
    rng = np.random.default_rng(2)
    H = rng.normal(size=(103, 4))
    y = H @ np.array([1.0, -2.0, 0.5, 3.0]) + 0.2 * rng.normal(size=103)
    folds = [np.arange(a, b) for a, b in [(0, 25), (25, 51), (51, 77), (77, 103)]]  # floor(k n / 4)
    errors = []
    for test in folds:
        train = np.setdiff1d(np.arange(103), test)
        x = np.linalg.solve(H[train].T @ H[train], H[train].T @ y[train])
        errors.append(y[test] - H[test] @ x)
    expected = np.sqrt(np.mean(np.concatenate(errors) ** 2))
    np.testing.assert_allclose(cutoff.blocked_cv_rmse(H, y, 4), expected, rtol=1e-10)
    with pytest.raises(ValueError, match="at least 2 blocks"):
        cutoff.blocked_cv_rmse(H, y, 1)


def test_noise_amplification_pulls_the_choice_below_the_nyquist_band():
    """Encoder quantisation on a slow swing: the CV score rises at high cutoffs (q̈ noise), so
    the choice is a low cutoff, not the highest candidate."""
    fs = 500.0
    t = np.arange(0, 8, 1 / fs)
    q = 0.8 * np.sin(2 * np.pi * 0.7 * t) + 0.3 * np.sin(2 * np.pi * 1.9 * t + 0.4)
    qd = np.gradient(q, t)
    qdd = np.gradient(qd, t)
    torque = 0.17 * qdd + 0.35 * 9.81 * np.sin(q) + 0.16 * np.sign(qd) + 0.02 * qd
    angle = np.round(q / 0.0029) * 0.0029  # a 12-bit encoder's steps
    choice = pipeline.choose_cutoff(
        t,
        angle,
        torque,
        ["g_sin_q", "qdd", "sign_qd", "qd"],
        9.81,
        SIGNALS,
        cutoff.usable_candidates(CANDIDATES, [fs]),
        blocks=5,
    )
    assert choice.chosen_hz <= 10.0
    assert choice.cv_rmse[-1] > 1.5 * choice.cv_rmse.min()


def test_no_usable_candidate_is_an_error():
    with pytest.raises(ValueError, match="Nyquist"):
        cutoff.usable_candidates([30.0, 60.0], [50.0])
    # the limit, 0.8 x the lowest Nyquist frequency (10 Hz at 25 Hz), is itself excluded
    assert cutoff.usable_candidates([12.0, 10.0, 8.0], [25.0, 100.0]) == [8.0]


@pytest.mark.slow
def test_the_readme_block_on_two_pendulum_runs_needs_no_signal_settings(tmp_path, repo_root):
    """The README's study block (no signals settings) on two real records of different runs:
    the workflow's LS validation RMSE is within 10 % of the best cutoff in 3-8 Hz."""
    import shutil

    from test_workflow import copy_workflow, snakemake

    work = copy_workflow(repo_root, tmp_path / "wf")
    (work / "data/mine").mkdir(parents=True)
    for name, record in (("cal", "sysid_pd"), ("val", "swingup_ddp")):
        shutil.copy(work / f"data/pendulum/{record}_measured.csv", work / f"data/mine/{name}.csv")
    block = """\
studies:
  mine:
    records:
      calibration: {path: data/mine/cal.csv, columns: {angle: position}}
      validation:  {path: data/mine/val.csv, columns: {angle: position}}
    regressor: [g_sin_q, g_cos_q, qdd, sign_qd, qd, offset]
    methods: [ls, bcls]
"""
    (work / "my.yaml").write_text(block)
    out = snakemake(
        work, "--cores", "1", "results/mine/tables/table3.csv", "--configfile", "my.yaml"
    )
    assert out.returncode == 0, out.stderr[-3000:]
    table = pd.read_csv(work / "results/mine/tables/table3.csv").set_index("method")
    cal, val = _record("sysid_pd"), _record("swingup_ddp")
    best = min(_validation_rmse(cal, val, hz) for hz in (3.0, 4.0, 5.0, 6.0, 7.0, 8.0))
    assert table.loc["LS", "val_mean"] <= 1.10 * best


@pytest.mark.parametrize("rate_hz", [40.0, 40.00000000000014, 39.99999999999986])
def test_a_cutoff_at_nyquist_is_refused_whatever_the_rates_float_noise(rate_hz):
    """A 40 Hz log's rate read from its stamps as 40.00000000000014 Hz let a 20 Hz cutoff
    through, against the README's "at or above Nyquist stops the run"."""
    assert cutoff.at_or_above_nyquist(20.0, rate_hz)
    assert above_nyquist(20.0, rate_hz, 1) is not None
    assert above_nyquist(9.99, rate_hz, 2) is None and above_nyquist(10.0, rate_hz, 2)
    assert not cutoff.at_or_above_nyquist(19.999, 40.0)


def test_one_text_names_the_cutoffs_at_or_above_nyquist():
    """One cutoff or a sweep's list: the ones at or above f_s / 2 (its float noise included,
    which the excitation chain's own test `cut >= fs / 2` missed) are named with the Nyquist
    frequency; nothing when every one lies below."""
    assert cutoff.nyquist_text(15.0, 20.0) == "15 Hz is at or above the Nyquist frequency 10 Hz"
    assert cutoff.nyquist_text(20.0, 40.00000000000014) is not None
    assert cutoff.nyquist_text(9.5, 20.0) is None
    listed = cutoff.nyquist_text([5.0, 50.0, 60.0], 100.0)
    assert listed == "[50.0, 60.0] are at or above the Nyquist frequency 50 Hz"
    assert cutoff.nyquist_text([5.0, 7.5], 100.0) is None and cutoff.nyquist_text([], 1.0) is None
