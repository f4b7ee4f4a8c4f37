"""Exact speed-ups of the KR210 EKF filters: optimised against the reference, same run.

The reference is the code before the speed-ups (tests/reference_filters.py, which the tests
also compare with bit for bit): each point's 3 x r Jacobian from ``Problem.jacobian`` (about
200 numpy calls on a few numbers), numpy's products on fresh arrays, one run per call.  The
optimised filters (``paramid.calibration.filters``) evaluate the same floating-point operations with
``model.PointJacobian`` (a third of the calls, reused buffers), run the repeats of a study in
one call (each on its own data set) and keep the MIPO tuning's runs in lockstep.  Every row
checks that each filter's path and covariance are equal to the reference's (``identical``),
then prints the CPU seconds (the minimum of ``--repeats``) and the ratio.

On the default twin (config.yaml), the first ``--runs`` data sets, paper model:

  sequential, 1 filter/run     ``ekf_sequential``: one filter per run, run by run
  sequential, runs batched     the same filters, all runs in one call (as identify_runs)
  sequential, 10 filters/run   one MIPO evaluation round of ``mipo_arkekf_sequential``
  sequential, runs x 10        the same for all runs in one call (the lockstep tuning)
  batch, 1 filter              M1 (``ekf``), 60 iterations
  batch, 20 filters            one MIPO evaluation round of ``mipo_arkekf``, 60 iterations

The sequential rows run ``--passes`` passes (time is linear in them; the identifiers run 60).

Usage: python perf/calibration_filters.py [--runs 3] [--passes 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from paramid.calibration import kinematics as kin
from paramid.calibration import model, twin
from paramid.calibration.filters import ekf, sequential_ekf
from paramid.calibration.identifiability import extended_jacobian, model_identifiability
from paramid.calibration.problem import Problem, noise_bases

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from calibration import study_config  # noqa: E402  (perf/calibration.py)
from reference_filters import reference_ekf, reference_sequential_ekf  # noqa: E402


def build_problems(cfg: dict, runs: int) -> list[Problem]:
    """The twin's first ``runs`` data sets and the paper model's identified subset."""
    robot = cfg["robot"]
    table = kin.DHTable.from_degrees(**robot["dh"], convention=robot["convention"])
    mass = model.MassModel.from_config(cfg["mass_model"])
    data = twin.simulate("kr210", cfg["twin"], table, mass=mass, repeats=runs)
    t, spec = data.truth, cfg["models"]["paper"]
    candidates = model.group_indices(spec["groups"], spec.get("compliance_joints", []))
    J = [
        extended_jacobian(Problem.from_frame(data.frame, t["nominal"], t["tool_mm"], [], repeat=r))
        for r in range(runs)
    ]
    _, free, _ = model_identifiability(J, candidates, cfg["identifiability"]["rel_tol"])
    return [
        Problem.from_frame(data.frame, t["nominal"], t["tool_mm"], free, repeat=r)
        for r in range(runs)
    ]


def cpu(fn: Callable[[], object], repeats: int) -> tuple[float, object]:
    """Minimum CPU seconds of ``repeats`` calls and the last result."""
    best, out = np.inf, None
    for _ in range(repeats):
        c0 = time.process_time()
        out = fn()
        best = min(best, time.process_time() - c0)
    return best, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--passes", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    cfg = copy.deepcopy(study_config())
    problems = build_problems(cfg, args.runs)
    bases = [tuple(b[0] for b in noise_bases(p, "kr210", [r])) for r, p in enumerate(problems)]
    pairs = list(zip(problems, bases, strict=True))
    stacked = [np.stack([b[i] for b in bases]) for i in range(3)]
    rng = np.random.default_rng(0)
    manual = np.array([1e-6, 1e-6, 1e-4])
    pop10 = 10.0 ** rng.uniform([-7, -7, -5], [-5, -5, -3], (10, 3))
    pop20 = 10.0 ** rng.uniform([-7, -7, -5], [-5, -5, -3], (20, 3))
    K, reps = args.passes, args.repeats
    print(
        f"KR210 paper model: {args.runs} data sets, n = {problems[0].q_train.shape[0]} training "
        f"points, r = {problems[0].dim}; sequential rows {K} passes, batch rows 60 iterations; "
        f"CPU s, minimum of {reps}"
    )
    print(f"{'filters':34s} {'reference':>10s} {'optimised':>10s} {'ratio':>7s}  identical")

    def row(label, ref_fn, new_fn, same):
        t_ref, ref = cpu(ref_fn, reps)
        t_new, new = cpu(new_fn, reps)
        print(f"{label:34s} {t_ref:10.3f} {t_new:10.3f} {t_ref / t_new:7.1f}  {same(ref, new)}")

    def seq_ref(factors):
        return [reference_sequential_ekf(p, *b, factors, K, gsbise=True)[:2] for p, b in pairs]

    def per_run(ref, new):
        return all(
            np.array_equal(r[0], n.path) and np.array_equal(r[1], n.C)
            for r, n in zip(ref, new, strict=True)
        )

    def batched(ref, new):
        return all(
            np.array_equal(r[0], new.path[p : p + 1]) and np.array_equal(r[1], new.C[p : p + 1])
            for p, r in enumerate(ref)
        )

    def batched_pop(ref, new):
        return all(
            np.array_equal(r[0], new.path[p]) and np.array_equal(r[1], new.C[p])
            for p, r in enumerate(ref)
        )

    row(
        "sequential, 1 filter/run",
        lambda: seq_ref(manual),
        lambda: [sequential_ekf(p, *b, manual, K, gsbise=True) for p, b in pairs],
        per_run,
    )
    row(
        "sequential, runs batched",
        lambda: seq_ref(manual),
        lambda: sequential_ekf(problems, *stacked, np.tile(manual, (args.runs, 1)), K, gsbise=True),
        batched,
    )
    row(
        "sequential, 10 filters/run",
        lambda: seq_ref(pop10),
        lambda: [sequential_ekf(p, *b, pop10, K, gsbise=True) for p, b in pairs],
        per_run,
    )
    row(
        "sequential, runs x 10 filters",
        lambda: seq_ref(pop10),
        lambda: sequential_ekf(
            problems, *(s[:, None] for s in stacked), pop10[None], K, gsbise=True
        ),
        batched_pop,
    )
    p, b = problems[0], bases[0]
    for label, factors in (("batch, 1 filter", manual), ("batch, 20 filters", pop20)):
        row(
            label,
            lambda f=factors: [reference_ekf(p, *b, f, 60, gsbise=True)],
            lambda f=factors: [ekf(p, *b, f, 60, gsbise=True)],
            per_run,
        )


if __name__ == "__main__":
    main()
