"""Signal chain: unit DC gain, no phase lag, exact central differences, trimming."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramid import signals

FS = 100.0


def test_unit_dc_gain():
    x = np.full(500, 3.25)
    np.testing.assert_allclose(signals.lowpass(x, 15.0, FS), x, rtol=0, atol=1e-12)


@pytest.mark.parametrize("frequency", [0.5, 1.0, 1.3, 3.0])
def test_no_phase_lag_in_pass_band(frequency):
    t = np.arange(2000) / FS
    x = np.sin(2 * np.pi * frequency * t)
    y = signals.lowpass(x, 15.0, FS)
    inner = slice(200, -200)
    # zero phase and |H|^2 = 1/(1 + (f/fc)^8) ~ 1: the output equals the input sample by sample
    np.testing.assert_allclose(y[inner], x[inner], atol=1e-5)
    lags = np.arange(-5, 6)
    corr = [np.dot(np.roll(y, k)[inner], x[inner]) for k in lags]
    assert lags[int(np.argmax(corr))] == 0


def test_cutoff_attenuates_by_squared_butterworth_gain():
    t = np.arange(4000) / FS
    x = np.sin(2 * np.pi * 15.0 * t)
    y = signals.lowpass(x, 15.0, FS)
    inner = slice(500, -500)
    gain = np.std(y[inner]) / np.std(x[inner])
    assert gain == pytest.approx(0.5, abs=0.02)  # |H(fc)|^2 = 1/2 after forward-backward


@pytest.mark.parametrize("order", [2, 4, 6])
def test_the_filter_order_sets_the_stop_band(order):
    """At twice the cutoff the forward-backward gain is the digital Butterworth's |H|^2 =
    1 / (1 + (Ω / Ω_c)^(2 order)), Ω = tan(π f / f_s) (the bilinear transform's frequency
    warping): 1/26, 1/626, 1/15626 for 20 Hz against 10 Hz at 100 Hz (the cutoff's 1/2 holds
    at any order)."""
    t = np.arange(8000) / FS
    x = np.sin(2 * np.pi * 20.0 * t)
    y = signals.lowpass(x, 10.0, FS, order)
    inner = slice(1000, -1000)
    gain = np.std(y[inner]) / np.std(x[inner])
    warped = np.tan(np.pi * 20.0 / FS) / np.tan(np.pi * 10.0 / FS)
    assert gain == pytest.approx(1 / (1 + warped ** (2 * order)), rel=0.02)


@settings(max_examples=50, deadline=None)
@given(st.floats(-5, 5), st.floats(-5, 5), st.floats(-5, 5), st.floats(-5, 5), st.floats(1e-3, 0.1))
def test_central_differences_exact_for_low_order_polynomials(a, b, c, d, h):
    t = np.arange(50) * h
    q = a + b * t + c * t**2 + d * t**3
    qd, qdd = signals.central_derivatives(q, h)
    exact_qd = b + 2 * c * t + 3 * d * t**2 + d * h**2  # central difference of t^3 adds d h^2
    np.testing.assert_allclose(qd[1:-1], exact_qd[1:-1], rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(qdd[1:-1], (2 * c + 6 * d * t)[1:-1], rtol=1e-5, atol=1e-4)
    assert np.isnan(qd[0]) and np.isnan(qdd[-1])


def test_process_trims_to_table2_counts():
    for n, kept in ((500, 460), (700, 660)):
        t = np.arange(n) / FS
        out = signals.process(t, np.sin(t), np.cos(t), cutoff_hz=15.0, order=4, trim_s=0.2)
        assert out.q.size == kept
        assert out.time[0] == pytest.approx(0.2)
        assert out.time[-1] == pytest.approx(t[-21])
        np.testing.assert_array_equal(out.torque, np.cos(t)[20:-20])
        # a 0.16 Hz angle passes the 15 Hz filter: its derivatives are the exact ones
        np.testing.assert_allclose(out.q, np.sin(out.time), atol=1e-6)
        np.testing.assert_allclose(out.qd, np.cos(out.time), atol=1e-4)
        np.testing.assert_allclose(out.qdd, -np.sin(out.time), atol=5e-3)  # the ends: 1e-3


def test_bad_cutoff_and_short_record_are_rejected():
    t = np.arange(100) / FS
    with pytest.raises(ValueError, match="Nyquist"):
        signals.lowpass(np.sin(t), 60.0, FS)
    with pytest.raises(ValueError, match="too short"):
        signals.process(t[:30], t[:30], t[:30], cutoff_hz=15, order=4, trim_s=0.2)
    with pytest.raises(ValueError, match="strictly increasing"):
        signals.sample_rate(np.array([0.0, 0.01, 0.01, 0.02]))
    with pytest.raises(ValueError, match="less than one sample at 100 Hz"):  # rounds to 0
        signals.process(t, t, t, cutoff_hz=15, order=4, trim_s=0.004)


def test_sample_rate_is_the_typical_step_not_the_mean_one():
    """A dropped sample (one step of 0.02 s among 0.01 s) leaves the rate at 100 Hz."""
    stamps = np.r_[0:50, 51:101] * 0.01
    assert signals.sample_rate(stamps) == pytest.approx(100.0, rel=1e-12)


def test_split_rms_separates_tones_either_side_of_the_edge():
    """A 2 Hz tone of amplitude 3 and offset 1 below a 10 Hz edge, a 30 Hz tone of amplitude 2
    above it: RMS sqrt(1 + 9/2) and sqrt(2) on whole periods; a column is split on its own."""
    t = np.arange(1000) / 200.0
    low, high = 1.0 + 3.0 * np.sin(2 * np.pi * 2.0 * t), 2.0 * np.sin(2 * np.pi * 30.0 * t)
    below, above = signals.split_rms(np.column_stack([low + high, high]), 200.0, 10.0)
    np.testing.assert_allclose(below, [np.sqrt(1 + 4.5), 0.0], atol=1e-12)
    np.testing.assert_allclose(above, [np.sqrt(2.0), np.sqrt(2.0)], rtol=1e-12)


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 400),
    edge=st.floats(0.0, 60.0),
    seed=st.integers(0, 2**32 - 1),
)
def test_split_rms_is_parseval_and_equals_a_direct_dft(n, edge, seed):
    """below² + above² = mean(x²) for any length (odd or even) and edge, and each part equals
    the one-sided power of numpy's DFT summed on its side (DC and an even length's Nyquist bin
    once, the others twice)."""
    x = np.random.default_rng(seed).normal(size=(n, 2))
    below, above = signals.split_rms(x, 100.0, edge)
    np.testing.assert_allclose(below**2 + above**2, np.mean(x**2, axis=0), rtol=1e-10)
    power = np.abs(np.fft.rfft(x, axis=0)) ** 2 / n**2
    power[1 : (n + 1) // 2] *= 2
    side = np.fft.rfftfreq(n, 0.01) <= edge
    np.testing.assert_allclose(below**2, power[side].sum(axis=0), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(above**2, power[~side].sum(axis=0), rtol=1e-10, atol=1e-14)


def test_power_band_finds_the_frequency_below_which_the_power_lies():
    """Two tones, 1 Hz with 4x the power of 5 Hz: half and 75 % of the power lie at or below
    1 Hz, 90 % needs the 5 Hz tone; columns are independent, the mean does not count."""
    fs, t = 100.0, np.arange(2000) / 100.0
    x = 7.0 + 2.0 * np.sin(2 * np.pi * t) + np.sin(2 * np.pi * 5.0 * t)
    both = np.column_stack([x, np.sin(2 * np.pi * 5.0 * t)])
    np.testing.assert_allclose(signals.power_band(both, fs, 0.5), [1.0, 5.0])
    assert signals.power_band(x, fs, 0.75) == pytest.approx(1.0)
    assert signals.power_band(x, fs, 0.9) == pytest.approx(5.0)


@pytest.mark.parametrize(("cutoff_hz", "order"), [(1.5, 4), (20.0, 4), (5.0, 2), (5.0, 6)])
def test_the_filters_settling_time_is_that_of_its_two_passes(cutoff_hz: float, order: int):
    """The forward–backward filter's impulse response is the autocorrelation of the causal
    filter's (|H|² in frequency): an independent route to the time it settles to 1 % of its
    peak; at the 4th order that is 1.8 / cutoff."""
    import scipy.signal

    fs = 1000.0
    sos = scipy.signal.butter(order, cutoff_hz, fs=fs, output="sos")
    impulse = np.zeros(int(40 * fs / cutoff_hz))
    impulse[0] = 1.0
    causal = scipy.signal.sosfilt(sos, impulse)
    both = np.correlate(causal, causal, mode="full")[causal.size - 1 :]
    settled = np.flatnonzero(np.abs(both) > 1e-2 * np.abs(both).max())[-1] + 1
    assert signals.transient_s(cutoff_hz, fs, order) == pytest.approx(settled / fs, abs=1.5 / fs)
    if order == 4:
        assert signals.transient_s(cutoff_hz, fs, order) * cutoff_hz == pytest.approx(1.8, abs=0.03)
