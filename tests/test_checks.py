"""Plausibility checks of measured records and of fits (paramid.plausibility, issue #15)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import loaders
import numpy as np
import pandas as pd
import pytest
from skip_lookups import LookedUp

from paramid import estimators, ingest, plausibility, workflow
from paramid.hip import checks, fits, model, pipeline

ROOT = Path(__file__).resolve().parents[1]
UNITS = {"time": "s", "angle": "rad", "torque": "N m", "velocity": "rad/s"}
KEYS = ["g_sin_q", "qdd", "sign_qd", "qd", "offset"]
SIGNALS = {"filter_order": 4, "trim_s": 0.2}


@pytest.fixture(scope="module")
def pendulum() -> ingest.MeasuredRecord:
    path = ROOT / "data/pendulum/swingup_ddp_measured.csv"
    return loaders.load_record(path, UNITS, {"angle": "position"})


def _r2(rec: ingest.MeasuredRecord):
    def r2(angle, torque):
        processed = pipeline.process(rec.time, angle, torque, SIGNALS, 6.0)
        H, y = pipeline.regression(processed, KEYS, 9.81)
        return plausibility.explained_variance(H, y, np.linalg.lstsq(H, y, rcond=None)[0])

    return r2


def _problems(rec, angle=None, torque=None, skip=()):
    angle = rec.angle if angle is None else angle
    torque = rec.torque if torque is None else torque
    return [
        name for name, _ in plausibility.record_problems(rec.time, angle, torque, skip, _r2(rec))
    ]


def _held_after(angle: np.ndarray, share: float) -> np.ndarray:
    """``angle`` held at its value at ``share`` of the samples from there on."""
    held = angle.copy()
    start = int(share * angle.size)
    held[start:] = angle[start]
    return held


@pytest.mark.parametrize(
    ("rate", "declared", "unit"),
    [(1.0, "s", "ms"), (1e-6, "s", "ns"), (1e-3, "ms", "ns"), (1e6, "ms", "s"), (1e-9, "s", "")],
)
def test_an_implausible_sample_rate_names_the_unit_that_fits(rate, declared, unit):
    """A 1 kHz log's stamps in ns read as s (1e-6 Hz) were told "set units.time: ms", and
    then the same again; the advice is the unit nearest the declared one that gives a rate
    within 5 Hz - 100 kHz, else to check the time column."""
    time = np.arange(1000) / rate
    message = plausibility.sample_rate(time, declared=declared)
    expected = f"set units.time: {unit}" if unit else "check the time column"
    assert message is not None and message.endswith(expected)


def test_a_real_record_passes_every_check(pendulum):
    assert _problems(pendulum) == []


@pytest.mark.parametrize(
    ("name", "angle", "torque"),
    [
        ("angle_units", lambda r: np.rad2deg(r.angle), None),
        ("torque_varies", None, lambda r: np.zeros_like(r.torque)),
        ("magnitudes", None, lambda r: 1e4 * r.torque),  # raw counts declared as N m
        ("encoder_clipped", lambda r: np.minimum(r.angle, np.quantile(r.angle, 0.8)), None),
        ("torque_clipped", None, lambda r: np.maximum(r.torque, np.quantile(r.torque, 0.2))),
        ("columns_swapped", lambda r: r.torque, lambda r: r.angle),
    ],
)
def test_each_check_catches_its_fault_and_can_be_skipped(pendulum, name, angle, torque):
    faulty = {
        "angle": angle(pendulum) if angle else None,
        "torque": torque(pendulum) if torque else None,
    }
    assert _problems(pendulum, **faulty)[0] == name
    assert name not in _problems(pendulum, **faulty, skip=[name])


def test_swapped_columns_are_named_as_such_not_as_degrees(pendulum):
    """The torque read as the angle also spans and moves like degrees; the exchange, which fits
    far better, is the one problem named (degrees were named before, and following that
    advice hid the exchange); with the exchange skipped, the angle's check still speaks."""
    swapped = {"angle": pendulum.torque, "torque": pendulum.angle}
    assert _problems(pendulum, **swapped) == ["columns_swapped"]
    assert _problems(pendulum, **swapped, skip=["columns_swapped"])[0] == "angle_units"
    degrees = _problems(pendulum, angle=np.rad2deg(pendulum.angle))
    assert degrees == ["angle_units"]  # degrees are not taken for an exchange


@pytest.mark.parametrize("column", ["angle", "torque"])
def test_one_corrupt_sample_is_named_with_its_time_not_as_a_unit(pendulum, column):
    """A single 1e12 in the angle or the torque made the angle look like degrees or the torque
    like N mm; every other sample says the unit is right, so the sample is named."""
    values = getattr(pendulum, column).copy()
    values[1500] = 1e12
    angle, torque = (values, pendulum.torque) if column == "angle" else (pendulum.angle, values)
    problems = plausibility.record_problems(pendulum.time, angle, torque, (), _r2(pendulum))
    assert len(problems) == 1
    assert f"is 1e+12 at t = {pendulum.time[1500]:.6g} s" in problems[0][1]
    assert "corrupt sample" in problems[0][1]


def test_a_lone_torque_spike_within_plausible_magnitudes_is_named(pendulum):
    """One torque sample 200 spreads out (well below the N mm bound) passed every check, and
    the filter smeared it into the fit; a torque that stays out over many samples is motion."""
    low, high = np.percentile(pendulum.torque, [1, 99])
    spiked = pendulum.torque.copy()
    spiked[1500] = np.median(spiked) + 200 * (high - low)
    problems = plausibility.record_problems(
        pendulum.time, pendulum.angle, spiked, (), _r2(pendulum)
    )
    assert [name for name, _ in problems] == ["magnitudes"]
    assert f"at t = {pendulum.time[1500]:.6g} s" in problems[0][1]
    assert "corrupt sample" in problems[0][1]
    held = pendulum.torque.copy()
    held[1500:1520] = spiked[1500]  # 20 samples: a pulse of motion, not one corrupt sample
    assert plausibility.torque_spike(pendulum.time, held) is None
    t = np.arange(20000) / 100
    rest = np.full(t.size, 5.0)  # a joint holding one quantised value: no spread to judge by
    rest[10000:10003] += [4.0, 8.0, 4.0]
    assert plausibility.torque_spike(t, rest) is None
    rest[15000] += 0.01  # one LSB
    assert plausibility.torque_spike(t, rest) is None


@pytest.mark.parametrize(
    ("fault", "edit"),
    [
        ("degrees", lambda t, q, tau: (t, np.rad2deg(q), tau)),
        ("constant torque", lambda t, q, tau: (t, q, 0 * tau)),
        ("N mm", lambda t, q, tau: (t, q, 1e6 * tau)),
        ("ms as s", lambda t, q, tau: (1000 * t, q, tau)),
        ("swapped", lambda t, q, tau: (t, tau, q)),
    ],
)
def test_every_record_check_is_skipped_by_its_registered_name(pendulum, fault, edit):
    """Each fault is named without a skip; skipping every name of ``RECORD_CHECKS`` leaves
    nothing (a check spelt otherwise in the code could not be skipped)."""
    time, angle, torque = edit(pendulum.time, pendulum.angle, pendulum.torque)
    found = plausibility.record_problems(time, angle, torque, (), _r2(pendulum))
    assert found and {name for name, _ in found} <= set(plausibility.RECORD_CHECKS)
    skip = plausibility.RECORD_CHECKS
    assert plausibility.record_problems(time, angle, torque, skip, _r2(pendulum)) == []


USABLE = {
    "study": "mine",
    "regressor": KEYS,
    "gravity": 9.81,
    "signals_config": {**SIGNALS, "cutoff_hz": 6.0},
}
# the shipped upstream parameters, as the N mm test below compares with
REFERENCE = {"Mxt": 0.1022, "Jt": 0.06259, "fc": 0.2889, "fv": 0.04707, "tau0": -0.07586}
Record = ingest.MeasuredRecord
Outcome = Callable[[Record, Record, list[str]], str | None]


@pytest.fixture(scope="module")
def sysid() -> Record:
    return loaders.load_record(
        ROOT / "data/pendulum/sysid_pd_measured.csv", UNITS, {"angle": "position"}
    )


def _stopped(check: Callable[..., None], *args: Any, **kwargs: Any) -> str | None:
    """The message ``check`` stops a study with (None: it passes)."""
    try:
        check(*args, **kwargs)
    except ingest.InputError as err:
        return str(err)
    return None


def _usable(edit: Callable[[Record], Record], **settings: Any) -> Outcome:
    """:func:`checks.check_usable` of the pendulum's record edited by ``edit``."""

    def outcome(pendulum: Record, _: Record, skip: list[str]) -> str | None:
        args = USABLE | settings | {"skip_checks": skip}
        return _stopped(checks.check_usable, edit(pendulum), "p.csv", **args)

    return outcome


def _squeezed(r: Record) -> Record:
    """The swing-up squeezed to a 0.4 deg rocking (a joint that barely moves)."""
    scale = np.deg2rad(0.4) / np.ptp(r.angle)
    angle = r.angle.mean() + (r.angle - r.angle.mean()) * scale
    return dataclasses.replace(r, angle=angle, velocity=r.velocity * scale)


def _records_scale(pendulum: Record, sysid: Record, skip: list[str]) -> str | None:
    """:func:`checks.check_records_agree` of a validation torque in N mm declared as N m."""
    milli = dataclasses.replace(sysid, torque=1000 * sysid.torque)
    records = {"calibration": (pendulum, "c.csv"), "validation": (milli, "v.csv")}
    return _stopped(checks.check_records_agree, records, **USABLE, skip_checks=skip)


def _rest_at_ends(pendulum: Record, _: Record, skip: list[str]) -> str | None:
    """What reading the swing-up's file with 2 s of rest before it says of the rest, its study
    skipping ``skip`` (:func:`paramid.workflow.drops_rest`)."""
    frame = loaders.with_rest(pd.read_csv(ROOT / "data/pendulum/swingup_ddp_measured.csv"), 1000)
    spec = {"path": "p.csv", "units": UNITS, "columns": {"angle": "position"}}
    spec |= {"trim_start_s": 0.0, "trim_end_s": 0.0}
    drop = workflow.drops_rest({"checks": {"skip": skip}})
    _, rest = ingest.configured_record(frame, spec, loaders.MAX_JITTER, drop_rest=drop)
    return plausibility.rest_warning("p.csv", rest) if any(rest) else None


# a fault per check a 1-DOF study can skip, by the name a user's ``checks.skip`` spells
SKIPPABLE: dict[str, Outcome] = {
    "time_units": _usable(
        lambda r: dataclasses.replace(r, time=1000 * r.time, sample_rate_hz=r.sample_rate_hz / 1000)
    ),
    "radians_as_degrees": _usable(
        lambda r: dataclasses.replace(r, angle=np.deg2rad(r.angle)), angle_unit="deg"
    ),
    "angle_units": _usable(lambda r: dataclasses.replace(r, angle=np.rad2deg(r.angle))),
    "torque_varies": _usable(lambda r: dataclasses.replace(r, torque=0 * r.torque)),
    "magnitudes": _usable(lambda r: dataclasses.replace(r, torque=1e4 * r.torque)),
    "encoder_clipped": _usable(
        lambda r: dataclasses.replace(r, angle=np.minimum(r.angle, np.quantile(r.angle, 0.8)))
    ),
    "torque_clipped": _usable(
        lambda r: dataclasses.replace(r, torque=np.maximum(r.torque, np.quantile(r.torque, 0.2)))
    ),
    "rest_at_ends": _rest_at_ends,
    "columns_swapped": _usable(lambda r: dataclasses.replace(r, angle=r.torque, torque=r.angle)),
    "torque_sign": _usable(lambda r: dataclasses.replace(r, torque=-r.torque)),
    "reference_scale": _usable(
        lambda r: dataclasses.replace(r, torque=1000 * r.torque), reference=REFERENCE
    ),
    # with both gravity columns and the offset: cos q of the rocking is nearly constant
    "excitation": _usable(
        _squeezed, regressor=["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd", "offset"]
    ),
    "records_scale": _records_scale,
}


def test_every_registered_record_check_has_a_fault_here():
    assert set(SKIPPABLE) == set(plausibility.RECORD_CHECKS)


@pytest.mark.parametrize("name", plausibility.RECORD_CHECKS)
def test_skipping_a_registered_record_check_silences_it(pendulum, sysid, name):
    """A record that fails the check is named with the skip that keeps it; skipped by its
    registered name, the check says nothing (where the code looked up another spelling, a
    user's ``skip: [name]`` did nothing)."""
    named = SKIPPABLE[name](pendulum, sysid, [])
    assert named is not None and f"checks.skip: [{name}]" in named
    skipped = SKIPPABLE[name](pendulum, sysid, [name])
    assert f"[{name}]" not in (skipped or "")


def test_the_record_checks_look_up_exactly_the_registered_names(pendulum, sysid):
    """Records that pass every check (none stops early, so each looks its name up in
    ``checks.skip``): the names looked up are ``RECORD_CHECKS``, no other spelling."""
    lookups = [LookedUp() for _ in range(4)]
    r2 = _r2(pendulum)
    plausibility.record_problems(pendulum.time, pendulum.angle, pendulum.torque, lookups[0], r2)
    args = USABLE | {"reference": REFERENCE, "skip_checks": lookups[1]}
    assert pendulum.velocity is not None  # its check runs too
    checks.check_usable(pendulum, "p.csv", **args)
    records = {"calibration": (pendulum, "c.csv"), "validation": (sysid, "v.csv")}
    checks.check_records_agree(records, **USABLE, skip_checks=lookups[2])
    workflow.drops_rest({"checks": {"skip": lookups[3]}})
    asked = set().union(*(lookup.asked for lookup in lookups))
    assert asked == set(plausibility.RECORD_CHECKS)


def test_radians_declared_as_degrees_are_named_before_what_they_mislead(pendulum):
    """The pendulum's swing-up in rad declared ``angle: deg`` (its angle 57x too small): it was
    called a torque sign inverted, and negating the torque as advised ran the study to a
    validation RMSE of 176 N m; now named first, as radians; declared right, nothing."""
    read_as_degrees = np.deg2rad(pendulum.angle)  # what the loader makes of radians declared deg
    found = plausibility.record_problems(
        pendulum.time, read_as_degrees, pendulum.torque, (), _r2(pendulum), angle_unit="deg"
    )
    assert found[0][0] == "radians_as_degrees"
    assert "is it in radians? drop units.angle" in found[0][1]
    right = plausibility.record_problems(
        pendulum.time, pendulum.angle, pendulum.torque, (), _r2(pendulum), angle_unit="deg"
    )
    assert all(name != "radians_as_degrees" for name, _ in right)  # it swings past ±6.3°
    assert plausibility.radians_as_degrees(np.full(10, 3.0)) is None  # no motion to judge


def test_jumps_in_the_angle_are_named_with_their_time_not_as_degrees(pendulum):
    """A dropped sample (one angle read as 0) and an angle wrapped to ±π moved the angle at
    hundreds of rad/s within a plausible span: they were called degrees, and following that
    advice ran the study to a fit 50 times off.  Every fast step there is isolated; a small
    fast motion in degrees has runs of fast steps and is still called degrees."""
    dropped = pendulum.angle.copy()
    dropped[1500] = 0.0
    problems = plausibility.record_problems(
        pendulum.time, dropped, pendulum.torque, (), _r2(pendulum)
    )
    assert [name for name, _ in problems] == ["angle_units"]
    message = problems[0][1]
    assert f"between t = {pendulum.time[1499]:.6g} and {pendulum.time[1500]:.6g} s" in message
    assert "and 1 more such step" in message and "dropped or corrupt sample" in message
    assert "degrees" not in message
    centred = pendulum.angle - np.median(pendulum.angle) + np.pi  # the swing crosses +π
    wrapped = np.mod(centred + np.pi, 2 * np.pi) - np.pi
    assert np.ptp(wrapped) > 6.0
    assert "wrapped to ±π" in plausibility.angle_units(pendulum.time, wrapped)
    assert plausibility.angle_units(pendulum.time, centred) is None
    t = np.arange(5000) / 1000
    small_fast_in_degrees = 5.0 * np.sin(2 * np.pi * 4 * t)  # ±5 deg at 4 Hz: 126 "rad/s"
    assert "is it in degrees?" in plausibility.angle_units(t, small_fast_in_degrees)


def test_time_in_seconds_declared_as_ms_is_named(pendulum):
    fast = dataclasses.replace(
        pendulum, time=pendulum.time / 1000, sample_rate_hz=pendulum.sample_rate_hz * 1000
    )
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    with pytest.raises(ingest.InputError, match=r"sampled at 4\.999e\+05 Hz .* units\.time: s"):
        checks.check_usable(
            fast,
            "p.csv",
            study="mine",
            regressor=KEYS,
            gravity=9.81,
            signals_config=signals,
            time_unit="ms",
        )


def test_fit_quality_against_direct_formulas():
    rng = np.random.default_rng(5)
    H = rng.normal(size=(400, 3))
    y = H @ np.array([1.0, 2.0, -1.0]) + 0.1 * rng.normal(size=400)
    y[[10, 200]] += 5.0  # two spikes
    x = np.linalg.lstsq(H, y, rcond=None)[0]
    quality = plausibility.fit_quality(H, y, x, spike_k=8.0)
    r = y - H @ x
    total = np.sum((y - y.mean()) ** 2)
    assert quality.explained_variance == pytest.approx(1 - np.sum(r**2) / total, rel=1e-12)
    assert quality.rmse == pytest.approx(np.sqrt(np.mean(r**2)), rel=1e-12)
    assert quality.spikes == 2 and quality.spikes_at_reversals == 0
    calm = np.delete(r, [10, 200])
    assert quality.rmse_without_spikes == pytest.approx(np.sqrt(np.mean(calm**2)), rel=1e-12)
    told = plausibility.validation_spikes(quality)
    assert told.startswith("2 isolated spike(s)")
    assert f"is {quality.rmse_without_spikes:.4g} without them" in told
    # a velocity changing sign at sample 204: the spike at 200 is within 5 samples, 10 is not
    velocity = np.where(np.arange(400) < 205, 1.0, -1.0)
    assert plausibility.fit_quality(H, y, x, 8.0, velocity).spikes_at_reversals == 1
    velocity[:12] = -1.0  # and one at 11: both
    assert plausibility.fit_quality(H, y, x, 8.0, velocity).spikes_at_reversals == 2
    assert quality.problem(0.5) is None
    assert "explains" in quality.problem(0.999)
    assert "not finite" in plausibility.FitQuality(0.9, float("nan"), 0, 1.0).problem(0.5)
    mad = np.median(np.abs(r - np.median(r)))
    assert quality.spike_threshold_n_m == pytest.approx(8.0 * 1.4826 * mad, rel=1e-12)
    velocity = np.where(np.arange(400) < 206, 1.0, -1.0)  # 5 samples from 200: still at it
    assert plausibility.fit_quality(H, y, x, 8.0, velocity).spikes_at_reversals == 1
    exact = H @ x
    exact[7] += 1.0  # an exact fit but for one sample: no spread, so no spike to count
    assert plausibility.fit_quality(H, exact, x, 8.0).spikes == 0


def test_validation_judgements_at_their_edges():
    """A calibration fit of zero RMSE names no gap (no ratio); a cosine over one period has
    exactly the two reversals a back-and-forth needs; a slope-free acceleration column is
    not an inverted sign; a regressor whose scaled condition number is 6.8e4 (> 1e4) is
    named as not excited."""
    assert plausibility.validation_gap(0.0, 1.0) is None
    assert "x its" in plausibility.validation_gap(0.01, 1.0)
    t = np.linspace(0.0, 1.0, 1001)
    velocity = np.cos(2 * np.pi * t + 0.3)
    assert plausibility.velocity_reversals(velocity) == 2
    assert plausibility.validation_coverage(velocity, 1.0) is None
    assert "1 velocity reversal" in plausibility.validation_coverage(velocity[:600], 0.6)
    rng = np.random.default_rng(4)
    H = rng.normal(size=(500, 3))
    y = H @ np.array([0.0, 1.0, 1.0]) + 0.1 * rng.normal(size=500)
    assert plausibility.inverted_sign(H, y, ["qdd", "qd", "sign_qd"]) is None
    inverted = -(H @ np.ones(3)) + 0.1 * rng.normal(size=500)
    assert "sign inverted" in plausibility.inverted_sign(H, inverted, ["qdd", "qd", "sign_qd"])
    base = rng.normal(size=500)
    near = np.column_stack([base, base + 3e-5 * rng.normal(size=500), rng.normal(size=500)])
    assert "condition number" in plausibility.excitation(near, ["a", "b", "c"], base)
    assert plausibility.excitation(H, ["a", "b", "c"], base) is None


def test_time_in_ms_declared_as_seconds_is_named_before_the_cutoff(pendulum):
    """At the declared 0.1 Hz no cutoff candidate fits below Nyquist: the unit is named, not
    the candidates (their message sent a user to change them)."""
    slow = dataclasses.replace(
        pendulum, time=1000 * pendulum.time, sample_rate_hz=pendulum.sample_rate_hz / 1000
    )
    signals = {**SIGNALS, "cutoff_hz": "auto", "cutoff_candidates_hz": [2.0, 4.0, 6.0]}
    pattern = r"p\.csv: sampled at 0\.\d+ Hz .* set units\.time: ms .*skip: \[time_units\]"
    for sweep in ((), (5.0, 10.0)):  # a cutoff sweep's values are not blamed either
        with pytest.raises(ingest.InputError, match=pattern):
            checks.check_usable(
                slow, "p.csv", study="mine", regressor=KEYS, gravity=9.81,
                signals_config=signals, sweep_cutoffs=sweep,
            )  # fmt: skip
    assert plausibility.sample_rate(pendulum.time) is None


def test_the_fit_honours_a_skipped_torque_sign_check_with_a_warning(pendulum):
    """The record check's message says to skip torque_sign if the record is right; the fit
    stage then warns instead of stopping the study on the same negative inertia (it stopped
    before: the advice led nowhere). A fit that explains nothing still stops it."""
    processed = pipeline.process(pendulum.time, pendulum.angle, pendulum.torque, SIGNALS, 6.0)
    H, y = pipeline.regression(processed, KEYS, 9.81)
    x = np.linalg.lstsq(H, -y, rcond=None)[0]
    quality = plausibility.fit_quality(H, -y, x, 6.0)

    def verdict(target, fit_quality, skip):
        return plausibility.fit_verdict(H, target, KEYS, fit_quality, 0.1, skip)

    problem, warning = verdict(-y, quality, False)
    assert "inertia (qdd) -" in problem and warning is None
    problem, warning = verdict(-y, quality, True)
    assert problem is None and "inertia (qdd) -" in warning and "checks.skip" in warning
    assert verdict(y, plausibility.fit_quality(H, y, -x, 6.0), True) == (None, None)
    noise = np.random.default_rng(0).standard_normal(y.size)
    unrelated = plausibility.fit_quality(H, noise, np.linalg.lstsq(H, noise, rcond=None)[0], 6.0)
    problem, _ = verdict(-y, unrelated, True)
    assert "explains" in problem


def test_a_deterministic_fit_is_judged_on_both_records(pendulum):
    """hip_fit's judgement of its estimate: both RMSEs and residual qualities; a validation
    record far off (its torque in other units) and its spikes are warnings naming the method; an
    inverted sign stops the study with no other warning, or is the first warning where the
    study skips torque_sign."""
    processed = pipeline.process(pendulum.time, pendulum.angle, pendulum.torque, SIGNALS, 6.0)
    H, y = pipeline.regression(processed, KEYS, 9.81)
    x = np.linalg.lstsq(H, y, rcond=None)[0]
    qd = processed.qd
    settings = {"spike_mad_k": 6.0, "min_explained_variance": 0.1}

    def judge(calibration, validation, estimate=x, skip=False):
        return fits.judge_deterministic(
            "ls", KEYS, estimate, calibration, validation, **settings, skip_torque_sign=skip
        )

    spiky = y.copy()
    spiky[[100, 900]] += 1e3
    judged = judge((H, y, qd), (H, 30 * spiky, qd))
    assert judged.problem is None
    assert judged.train_rmse == pytest.approx(estimators.rmse(H, y, x), rel=1e-12)
    assert judged.val_rmse == pytest.approx(estimators.rmse(H, 30 * spiky, x), rel=1e-12)
    assert judged.calibration == plausibility.fit_quality(H, y, x, 6.0, qd)
    assert judged.validation == plausibility.fit_quality(H, 30 * spiky, x, 6.0, qd)
    gap = plausibility.validation_gap(judged.train_rmse, judged.val_rmse)
    assert gap is not None and judged.validation_gap == gap
    told = [w for w in judged.warnings if w.startswith("ls: ")]
    assert told == [f"ls: {gap}", f"ls: {plausibility.validation_spikes(judged.validation)}"]
    assert judged.validation.spikes >= 2
    meta = judged.metadata()
    assert meta["validation_warning"] == gap
    assert meta["explained_variance"] == judged.calibration.explained_variance
    assert meta["validation_spikes"] == judged.validation.spikes
    same = judge((H, y, qd), (H, y, qd))
    assert same.validation_gap is None and same.metadata()["validation_warning"] == ""
    assert same.train_rmse == same.val_rmse
    # the torque negated on both records: a negative inertia
    negated = np.linalg.lstsq(H, -y, rcond=None)[0]
    flipped = judge((H, -y, qd), (H, -y, qd), negated)
    assert "inertia (qdd) -" in flipped.problem and flipped.warnings == ()
    skipped = judge((H, -y, qd), (H, -y, qd), negated, skip=True)
    assert skipped.problem is None and "checks.skip" in skipped.warnings[0]
    # a fit that explains nothing stops the study even so: the sign's warning alone
    unexplained = judge((H, -y, qd), (H, -y, qd), skip=True)
    assert "explains" in unexplained.problem
    assert unexplained.warnings == skipped.warnings[:1]


def test_an_inverted_torque_sign_gives_a_negative_inertia_and_is_named(pendulum):
    """The shipped pendulum's fit has a positive inertia; its torque negated gives Jt, fv and
    fc negative far beyond their standard errors (the fit explained the torque as well, and
    ran to a table with a negative inertia)."""
    processed = pipeline.process(pendulum.time, pendulum.angle, pendulum.torque, SIGNALS, 6.0)
    H, y = pipeline.regression(processed, KEYS, 9.81)
    assert plausibility.inverted_sign(H, y, KEYS) is None
    message = plausibility.inverted_sign(H, -y, KEYS)
    assert message is not None and "Negate the torque column" in message
    for name in ("inertia (qdd) -", "viscous friction (qd) -", "Coulomb friction (sign_qd) -"):
        assert name in message
    # named before any job, in either record's role, unless skipped
    flipped = dataclasses.replace(pendulum, torque=-pendulum.torque)
    usable = {"study": "mine", "regressor": KEYS, "gravity": 9.81}
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    with pytest.raises(ingest.InputError, match=r"p\.csv: the least-squares fit .*\[torque_sign\]"):
        checks.check_usable(flipped, "p.csv", **usable, signals_config=signals)
    checks.check_usable(
        flipped, "p.csv", **usable, signals_config=signals, skip_checks=["torque_sign"]
    )
    # the inertia's z by an independent route: QR, s^2 R^-1 R^-T
    q, r = np.linalg.qr(H)
    x = np.linalg.solve(r, q.T @ -y)
    residual = -y - H @ x
    r_inv = np.linalg.inv(r)
    se = np.sqrt(residual @ residual / (H.shape[0] - H.shape[1]) * np.sum(r_inv**2, axis=1))
    z = x[KEYS.index("qdd")] / se[KEYS.index("qdd")]
    assert f"inertia (qdd) {x[KEYS.index('qdd')]:.4g} at {z:.1f} standard errors" in message


def test_a_trim_shorter_than_a_sample_names_its_field(pendulum):
    """trim_s below one sample ended in a raw ValueError of the Snakefile."""
    signals = {**SIGNALS, "trim_s": 1e-4, "cutoff_hz": 6.0}
    pattern = r"p\.csv: studies\.mine\.signals\.trim_s = 0\.0001 s is less than one sample"
    with pytest.raises(ingest.InputError, match=pattern):
        checks.check_usable(
            pendulum, "p.csv", study="mine", regressor=KEYS, gravity=9.81, signals_config=signals
        )


def test_a_validation_far_worse_than_training_is_named():
    assert plausibility.validation_gap(0.317, 2.27) is None  # the shipped pendulum: 7x
    message = plausibility.validation_gap(0.05, 12.9)  # the validation torque negated
    assert message is not None and "258 x" in message
    assert plausibility.validation_gap(0.05, float("nan")) is None
    assert plausibility.validation_gap(0.0, 1e-3) is None  # a perfect fit divides by nothing
    assert plausibility.validation_gap(1e-15, 1e-13) is None  # a noiseless twin: rounding


def test_a_validation_record_without_a_back_and_forth_is_named():
    """Reversals counted where the joint moves: a 1 s stretch of a 0.2 Hz swing has none,
    noise around a rest adds none, a 7 s Eq 19 record has many."""
    t = np.arange(0.0, 1.0, 0.001)
    one_way = 0.3 * np.cos(2 * np.pi * 0.2 * t)  # q̇ of a swing, 1 s from its turning point
    noise = 1e-4 * np.random.default_rng(0).standard_normal(t.size)
    assert plausibility.velocity_reversals(one_way + noise) == 0
    message = plausibility.validation_coverage(one_way + noise, 1.0)
    assert message is not None and "1 s with 0 velocity reversal" in message
    there_and_back = np.cos(2 * np.pi * 1.0 * np.arange(0.0, 1.5, 0.001))
    assert plausibility.velocity_reversals(there_and_back) == 3
    assert plausibility.validation_coverage(there_and_back, 1.5) is None
    jitter = 0.01 * np.random.default_rng(1).standard_normal(200)  # 1 % of peak, around zero
    rest = np.concatenate([jitter, there_and_back])  # a noisy rest adds no reversal
    assert plausibility.velocity_reversals(rest) == 3
    gapped = there_and_back.copy()
    gapped[::100] = np.nan  # a NaN does not hide the peak nor add a reversal
    assert plausibility.velocity_reversals(gapped) == 3


def test_least_squares_intervals_cover_the_truth_at_their_level():
    """Eq 4's 95 % intervals: the half-widths equal Z_95 sigma sqrt(diag (HᵀH)⁻¹) from the
    inverse, and over 500 noisy records they hold each known parameter about 95 % of the time."""
    rng = np.random.default_rng(7)
    H = np.column_stack([np.sin(np.linspace(0, 9, 300)), rng.normal(size=(300, 2)), np.ones(300)])
    truth = np.array([1.5, -0.2, 0.8, 0.3])
    y = H @ truth + 0.05 * rng.standard_normal((500, 300))
    covered = np.zeros(4)
    for record in y:
        x, half = plausibility.intervals_95(H, record)
        covered += np.abs(x - truth) <= half
    assert np.all(np.abs(covered / 500 - 0.95) < 0.03)
    x, half = plausibility.intervals_95(H, y[0])
    sigma = np.sqrt(np.sum((y[0] - H @ x) ** 2) / (300 - 4))
    direct = plausibility.Z_95 * sigma * np.sqrt(np.diag(np.linalg.inv(H.T @ H)))
    np.testing.assert_allclose(half, direct, rtol=1e-10)
    # an offset beside a Coulomb column of one-way motion: named, not given as ±1e14 %
    one_way = np.column_stack([H[:, 0], np.ones(300), np.ones(300) + 1e-13 * H[:, 1]])
    names, units = ["a", "sign", "offset"], {"a": "kg m", "sign": "N m", "offset": "N m"}
    velocity, angle = np.ones(300), np.linspace(0.0, 1.0, 300)
    message = plausibility.loose_parameters(one_way, y[0], names, units, velocity, angle)
    assert "sign (not identified: the record barely excites it)" in message
    assert "offset (not identified" in message and "leaves a " not in message


def test_a_calibration_record_of_one_swing_leaves_its_parameters_loose(pendulum):
    """The shipped pendulum record pins every parameter; its first 2 s (1.6 s kept, two
    reversals over 24 deg) leave the gravity and inertia terms loose, and least squares there
    puts them 17-21 % off the whole record's: a warning names them with their intervals."""
    names, units = model.parameter_names(KEYS), model.parameter_units(KEYS)

    def loose(stop):
        out = pipeline.process(
            pendulum.time[:stop], pendulum.angle[:stop], pendulum.torque[:stop], SIGNALS, 6.0
        )
        H, y = pipeline.regression(out, KEYS, 9.81)
        return plausibility.loose_parameters(H, y, names, units, out.qd, out.q)

    assert loose(None) is None and loose(1500) is None
    message = loose(1000)
    assert message is not None
    assert re.search(
        r"leaves Mxt 0\.44\d* ± 0\.04\d* kg m \(±1\d\.\d % of the torque\), Jt ", message
    )
    assert "2 velocity reversal(s) over 24.3 deg" in message


def test_a_torque_in_n_mm_declared_as_n_m_is_named_by_the_reference(pendulum):
    """The swing-up's peak torque in N mm (a few thousand) passes the magnitude check; its
    least-squares fit is then about 500 times the study's reference parameters (the shipped
    upstream ones, whose own median ratio to this record's fit is 0.52)."""
    reference = {"Mxt": 0.1022, "Jt": 0.06259, "fc": 0.2889, "fv": 0.04707, "tau0": -0.07586}
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    milli = dataclasses.replace(pendulum, torque=1000 * pendulum.torque)
    assert plausibility.magnitudes(milli.time, milli.torque) is None
    args = {"study": "mine", "regressor": KEYS, "gravity": 9.81, "signals_config": signals}
    checks.check_usable(pendulum, "p.csv", **args, reference=reference)
    pattern = r"p\.csv: .* are 5\d\d times the reference's .* units\.torque .*\[reference_scale\]"
    with pytest.raises(ingest.InputError, match=pattern):
        checks.check_usable(milli, "p.csv", **args, reference=reference)
    checks.check_usable(
        milli, "p.csv", **args, reference=reference, skip_checks=["reference_scale"]
    )
    checks.check_usable(milli, "p.csv", **args)  # no reference: nothing to compare with


def test_the_reference_scale_compares_the_median_ratio():
    reference = {"Jt": 0.5, "fc": 0.0, "fv": 2.0}
    assert plausibility.reference_scale({"Jt": 0.6, "fc": 9.0, "fv": 1.0}, reference) is None
    assert "40 times" in plausibility.reference_scale({"Jt": 20.0, "fv": 80.0}, reference)
    assert "0.02 times" in plausibility.reference_scale({"Jt": 0.01, "fv": 0.04}, reference)
    assert plausibility.reference_scale({"Jt": -20.0, "fv": -80.0}, reference) is None  # sign
    assert plausibility.reference_scale({"Jt": 20.0}, {"Mxt": 1.0}) is None  # nothing shared


def test_a_joint_that_barely_moves_is_named_before_any_job(pendulum):
    """The swing-up squeezed to a 0.4 deg rocking about its mean angle (12 deg), fitted with
    both gravity columns and an offset (a knee's regressor): cos q is then nearly constant,
    like the offset. The rank check passes, and the least-squares fit is noise (a helper's
    knee at +-0.15 deg gave Mxt 43.8 and a crash in hip_rls); the scaled regressor's
    condition number (2.3e6; 9.4 as recorded) names it.  Without g_cos_q the rocking still
    identifies g sin q (cond 739): not refused."""
    keys = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd", "offset"]
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    args = {"study": "mine", "regressor": keys, "gravity": 9.81, "signals_config": signals}
    checks.check_usable(pendulum, "p.csv", **args)
    mean = pendulum.angle.mean()
    scale = np.deg2rad(0.4) / np.ptp(pendulum.angle)
    small = mean + (pendulum.angle - mean) * scale
    still = dataclasses.replace(pendulum, angle=small, velocity=pendulum.velocity * scale)
    # its last 40 % held: dropped at full swing, not in a 7e-3 rad rocking (rest and motion
    # differ by the threshold alone); the condition number below names that record
    held = _held_after(pendulum.angle, 0.6)
    start, end = plausibility.rest_to_drop(pendulum.time, held)
    assert start == 0.0 and end == pytest.approx(0.4 * pendulum.time[-1] - 0.1, abs=0.01)
    squeezed = mean + (held - mean) * np.deg2rad(0.4) / np.ptp(held)
    assert plausibility.rest_to_drop(pendulum.time, squeezed) == (0.0, 0.0)
    processed = pipeline.process(still.time, still.angle, still.torque, SIGNALS, 6.0)
    H, _ = pipeline.regression(processed, keys, 9.81)
    assert estimators.collinear_columns(H, keys) == []  # full rank in numbers
    pattern = r"p\.csv: the regressor's condition number .* is 2\.\d+e\+06 .*\[excitation\]"
    with pytest.raises(ingest.InputError, match=pattern):
        checks.check_usable(still, "p.csv", **args)
    # without g_cos_q: not refused for its excitation (the sign check is skipped: the torque,
    # the full swing's, does not belong to the squeezed motion, its inertia comes out negative)
    checks.check_usable(
        still,
        "p.csv",
        **(args | {"regressor": KEYS, "skip_checks": ["torque_sign"]}),
    )


def test_a_rest_longer_than_the_rls_memory_is_named_before_any_job(pendulum):
    """Two seconds at rest in the middle of the swing-up: at forgetting 0.9 (a memory of 10
    samples) the RLS information matrix turns singular there; the check says so, naming the
    rls block, instead of a LinAlgError in hip_rls."""
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    args = {"study": "mine", "regressor": KEYS, "gravity": 9.81, "signals_config": signals}
    # the rest is a third of this short record, at its end
    args["skip_checks"] = ["encoder_clipped", "rest_at_ends"]
    rest = (pendulum.time > 4.0) & (pendulum.time < 6.0)
    angle = pendulum.angle.copy()
    angle[rest] = angle[np.argmax(rest)]
    torque = pendulum.torque.copy()
    torque[rest] = torque[np.argmax(rest)]
    resting = dataclasses.replace(pendulum, angle=angle, torque=torque)
    checks.check_usable(resting, "p.csv", **args, rls_recursion=(0.999, 1e4))
    pattern = r"p\.csv: the RLS information matrix .* singular .*forgetting 0\.9\).*\.rls\)"
    with pytest.raises(ingest.InputError, match=pattern):
        checks.check_usable(resting, "p.csv", **args, rls_recursion=(0.9, 1e4))


def test_records_whose_fits_differ_by_a_unit_are_named(pendulum):
    """The pendulum's two records fit to parameters 0.5x apart in the median (two motions of
    one joint); the validation torque in N mm declared as N m puts them 500x apart: named,
    with the setting and how to skip it, before any job (no reference needed)."""
    path = ROOT / "data/pendulum/sysid_pd_measured.csv"
    sysid = loaders.load_record(path, UNITS, {"angle": "position"})
    args = {"study": "mine", "regressor": KEYS, "gravity": 9.81}
    args["signals_config"] = {**SIGNALS, "cutoff_hz": 6.0}
    records = {"calibration": (pendulum, "c.csv"), "validation": (sysid, "v.csv")}
    checks.check_records_agree(records, **args)
    milli = dataclasses.replace(sysid, torque=1000 * sysid.torque)
    records["validation"] = (milli, "v.csv")
    pattern = (
        r"c\.csv, v\.csv: the validation record's least-squares parameters \(.*\) are \d+ "
        r"times the calibration record's .* studies\.mine\.records\.\*\.units\.torque .*"
        r"\[records_scale\]"
    )
    with pytest.raises(ingest.InputError, match=pattern):
        checks.check_records_agree(records, **args)
    checks.check_records_agree(records, **args, skip_checks=["records_scale"])


def test_a_validation_record_with_its_torque_sign_inverted_is_named(pendulum):
    """The pendulum's validation torque negated ran through to tables (RMSE 3.08 against 2.27
    N m, spike warnings only): its own fit is too narrow for the sign check, but its
    parameters are the calibration record's with the opposite sign in the median; named
    before any job, with how to skip it. The angle negated is the same inversion."""
    path = ROOT / "data/pendulum/sysid_pd_measured.csv"
    sysid = loaders.load_record(path, UNITS, {"angle": "position"})
    args = {"study": "mine", "regressor": KEYS, "gravity": 9.81}
    args["signals_config"] = {**SIGNALS, "cutoff_hz": 6.0}
    pattern = r"v\.csv: the validation record's .* times the calibration record's .* inverted"
    for flipped in ({"torque": -sysid.torque}, {"angle": -sysid.angle}):
        records = {
            "calibration": (pendulum, "c.csv"),
            "validation": (dataclasses.replace(sysid, **flipped), "v.csv"),
        }
        with pytest.raises(ingest.InputError, match=pattern):
            checks.check_records_agree(records, **args)
        checks.check_records_agree(records, **args, skip_checks=["records_scale"])


def test_rest_that_never_ends_or_barely_begins_is_kept_and_a_long_one_dropped():
    """A record whose angle leaves its start by 1.5e-3 rad and stays within 1e-3 of its end
    raised an IndexError; a short rest (under 0.5 s) is how a motion begins; 3 s before a
    swing lose all but 0.1 s of it, and the warning names what was dropped and how to keep it."""
    time = np.arange(2000) / 100.0
    nudged = np.r_[np.linspace(0.0, 0.0015, 1000), np.linspace(0.0015, 0.0008, 1000)]
    assert plausibility.rest_to_drop(time, nudged) == (0.0, 0.0)
    swing = np.sin(np.arange(400) / 50.0)
    short = np.r_[np.zeros(40), swing - swing[0]]  # 0.4 s at rest out of 4.4 s
    assert plausibility.rest_to_drop(np.arange(440) / 100.0, short) == (0.0, 0.0)
    only_start = np.r_[np.zeros(300), swing - swing[0]]  # 3 s of 7, nothing at the end
    rest = plausibility.rest_to_drop(np.arange(700) / 100.0, only_start)
    np.testing.assert_allclose(rest, (2.91, 0.0))  # it moves from 3.01 s on
    warning = plausibility.rest_warning("swing", rest)
    assert "dropped 2.91 s at its start (kept 0.1 s" in warning and "at its end " not in warning
    assert warning.endswith("checks.skip: [rest_at_ends]")


@pytest.mark.parametrize(("amplitude", "step"), [(1.0, 0.1), (0.2, 0.01), (30.0, 0.01)])
def test_a_quantised_torque_sensors_flat_peak_is_no_clip(amplitude, step):
    """A smooth torque rounded to its sensor's step holds its top level 7-10 % of the time; only
    a level held far more often than the next one in is a clip."""
    t = np.linspace(0.0, 20.0, 20000)
    torque = np.round(amplitude * np.sin(np.pi * t) / step) * step
    assert plausibility.torque_clipped(torque) is None
    if amplitude / step >= 100:  # a clip stands out where the sensor resolves the motion
        clipped = np.maximum(torque, np.percentile(torque, 22))
        assert "clipped sensor" in plausibility.torque_clipped(clipped)


def test_the_recorded_velocity_tells_a_wrong_velocity_or_angle_unit(pendulum):
    """The pendulum's recorded velocity agrees with its angle's change (median ratio 1.004;
    0.975 in sysid_pd); a velocity in deg/s read as rad/s, or one declared deg/s that is in
    rad/s, is named with the setting that explains it, the declared units considered."""
    assert plausibility.rate_ratios(pendulum.time, pendulum.angle, pendulum.velocity)[0] == (
        pytest.approx(1.0, abs=0.01)
    )
    signals = {**SIGNALS, "cutoff_hz": 6.0}
    args = {"study": "mine", "regressor": KEYS, "gravity": 9.81, "signals_config": signals}
    checks.check_usable(pendulum, "p.csv", **args)
    in_degrees = dataclasses.replace(pendulum, velocity=np.rad2deg(pendulum.velocity))
    with pytest.raises(ingest.InputError, match=r"is the velocity in deg/s\? set units.velocity"):
        checks.check_usable(in_degrees, "p.csv", **args)
    both = r"angle is read in degrees \(units.angle: deg\).*set units.velocity: deg/s.*drop units"
    with pytest.raises(ingest.InputError, match=both):
        checks.check_usable(in_degrees, "p.csv", **args, angle_unit="deg")
    too_slow = dataclasses.replace(pendulum, velocity=np.deg2rad(pendulum.velocity))
    wrong = r"angle is read in rad and the velocity in deg/s \(units.velocity: deg/s\)"
    with pytest.raises(ingest.InputError, match=wrong):
        checks.check_usable(too_slow, "p.csv", **args, velocity_unit="deg/s")
    checks.check_usable(in_degrees, "p.csv", **args, skip_checks=["time_units"])
    inverted = dataclasses.replace(pendulum, velocity=-pendulum.velocity)
    checks.check_usable(inverted, "p.csv", **args)  # a sign is no unit: the fit never reads it


def test_a_velocity_off_by_a_time_unit_names_the_unit_and_the_direction():
    far = plausibility.velocity_units({0: 1e-3}, "s")
    assert far is not None and "is the time in ms? set units.time: ms" in far
    assert "its stamps lie 1e+03 x too far apart for the velocity" in far
    close = plausibility.velocity_units({0: 1e3, 1: 1e3}, "ms")
    assert close is not None and "is the time in s? set units.time: s" in close
    assert "its stamps lie 1e+03 x too close together for the velocity" in close
    assert plausibility.velocity_units({0: 1.02, 1: -0.97}) is None  # a sign is no unit


def test_auto_cutoff_is_checked_at_the_highest_usable_candidate():
    cfg = {"cutoff_hz": "auto", "cutoff_candidates_hz": [5.0, 10.0, 20.0, 50.0]}
    assert checks._checked_cutoff(cfg, 100.0, "rec.csv", "s") == 20.0  # 0.8 x 50 Hz = 40 Hz


def test_the_signals_table_holds_the_regressor_and_the_warning_of_its_record(pendulum):
    """hip_signals' table: the processed columns, then H_<key> (Eq 6) in its units, cond(H);
    a calibration record is checked for loose parameters (the first 1000 samples leave some),
    a validation record for its coverage of the motion (the first 600 samples have too
    little), not for loose parameters."""
    from paramid import signals

    def table(stop, validation):
        out = pipeline.process(
            pendulum.time[:stop], pendulum.angle[:stop], pendulum.torque[:stop], SIGNALS, 6.0
        )
        return out, pipeline.signals_table(out, KEYS, 9.81, validation)

    out, whole = table(None, False)
    H, _ = pipeline.regression(out, KEYS, 9.81)
    assert list(whole.frame.columns) == [*signals.PROCESSED_UNITS, *(f"H_{k}" for k in KEYS)]
    np.testing.assert_array_equal(whole.frame[[f"H_{k}" for k in KEYS]].to_numpy(), H)
    np.testing.assert_array_equal(whole.frame["torque"].to_numpy(), out.torque)
    assert whole.units["H_qdd"] == model.COLUMNS["qdd"].column_unit
    assert whole.units["torque"] == signals.PROCESSED_UNITS["torque"]
    assert whole.condition_number == estimators.condition_number(H)
    assert whole.coverage_warning is None and whole.precision_warning is None
    _, short = table(1000, False)
    assert short.precision_warning.startswith("the calibration record leaves Mxt ")
    assert short.coverage_warning is None
    _, held_out = table(1000, True)
    assert held_out.coverage_warning is None and held_out.precision_warning is None
    _, brief = table(600, True)  # 0.8 s kept, one reversal
    assert brief.precision_warning is None
    assert brief.coverage_warning.startswith("the validation samples kept (after the filter's")
    assert "span 0.798 s with 1 velocity reversal(s)" in brief.coverage_warning
