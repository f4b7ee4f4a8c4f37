"""Time and peak memory of the 1-DOF chain against the record length (issue #15, item 3).

For 10^4 ... 10^6 samples of a synthetic 1 kHz record (a hip-like swing with encoder noise and
jittered stamps, written to CSV in a temporary folder), each stage runs on its own and reports
its wall time and its peak of traced memory (numpy's buffers included, via tracemalloc), beside
reading the same CSV with pandas (the peer: the least any tool must do).

Stages: ingest (read, validate, resample) -> plausibility/rank checks (what the workflow runs
at parse time) -> signals (filter, differentiate, trim) -> regressor -> RLS prior (Eq 7-9 in
information form) -> LS -> BCLS.  Time and memory must grow linearly with the length.

Usage: python perf/scaling.py [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from paramid import estimators, ingest, io
from paramid.hip import checks, pipeline

KEYS = ["g_sin_q", "g_cos_q", "qdd", "sign_qd", "qd"]
SIGNALS = {"cutoff_hz": 15.0, "filter_order": 4, "trim_s": 0.2}
RLS = {"forgetting": 0.98, "p0": 1e4, "burn_in_s": 1.0, "margin": 0.1, "nfsi_eps": 1e-6}
UNITS = {"time": "s", "angle": "rad", "torque": "N m"}


def write_record(path: Path, n: int) -> None:
    """A 1 kHz swing (0.3-1.1 Hz components), encoder noise, stamps jittered by 10 %."""
    rng = np.random.default_rng(0)
    t = np.arange(n) / 1000.0 + rng.uniform(-1e-4, 1e-4, n)
    t[0] = 0.0
    q = 0.6 * np.sin(2 * np.pi * 0.3 * t) + 0.3 * np.sin(2 * np.pi * 1.1 * t + 0.5)
    qd = np.gradient(q, t)
    qdd = np.gradient(qd, t)
    tau = 1.1 * qdd + 1.5 * 9.81 * np.sin(q) - 0.2 * 9.81 * np.cos(q) + 0.8 * np.sign(qd)
    tau += 2.5 * qd + 0.01 * rng.standard_normal(n)
    angle = q + 1e-5 * rng.standard_normal(n)
    pd.DataFrame({"time": t, "angle": angle, "torque": tau}).to_csv(path, index=False)


def measured(stage: Callable[[], Any]) -> tuple[Any, float, float]:
    """Result, wall time [s] and traced peak memory [MB] of one stage."""
    tracemalloc.start()
    start = time.perf_counter()
    result = stage()
    elapsed = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, elapsed, peak


def run(n: int, folder: Path) -> list[tuple[str, float, float]]:
    path = folder / f"record_{n}.csv"
    write_record(path, n)
    rows = []
    _, t, m = measured(lambda: pd.read_csv(path))
    rows.append(("pandas.read_csv (peer)", t, m))
    record, t, m = measured(
        lambda: ingest.record_from_table(io.read_table(path), path, UNITS, {}, max_jitter=0.5)
    )
    rows.append(("ingest", t, m))
    _, t, m = measured(
        lambda: checks.check_usable(
            record, path, study="scaling", regressor=KEYS, gravity=9.81, signals_config=SIGNALS
        )
    )
    rows.append(("parse-time checks", t, m))
    proc, t, m = measured(
        lambda: pipeline.process(record.time, record.angle, record.torque, SIGNALS)
    )
    rows.append(("signals", t, m))
    (H, y), t, m = measured(lambda: pipeline.regression(proc, KEYS, 9.81))
    rows.append(("regressor", t, m))
    prior, t, m = measured(lambda: pipeline.rls_prior(H, y, KEYS, RLS, record.sample_rate_hz))
    rows.append(("RLS prior", t, m))
    _, t, m = measured(lambda: estimators.ls(H, y))
    rows.append(("LS", t, m))
    _, t, m = measured(lambda: estimators.bcls(H, y, prior.lower, prior.upper))
    rows.append(("BCLS", t, m))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(2_000, Path(tmp))  # warm-up: imports and first calls are not the record's cost
        results = {n: run(n, Path(tmp)) for n in args.sizes}
    print(f"{'stage':<24}" + "".join(f"{n:>26,}" for n in args.sizes))
    print(f"{'':<24}" + "".join(f"{'time s (x read_csv) / MB':>26}" for _ in args.sizes))
    for i, (stage, *_) in enumerate(results[args.sizes[0]]):
        cells = []
        for n in args.sizes:
            _, t, m = results[n][i]
            ratio = t / results[n][0][1]
            cells.append(f"{t:8.3f} ({ratio:5.1f}x) {m:7.0f}")
        print(f"{stage:<24}" + "".join(f"{c:>26}" for c in cells))


if __name__ == "__main__":
    main()
