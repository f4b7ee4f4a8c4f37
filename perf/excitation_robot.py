"""Time the excitation design of a 7-DOF URDF robot (issue #17: L = 5, 7 x (2L + 1) = 77
coefficients, within 5 minutes on 2 cores) and say where the time goes.

On the Kinova Gen3 URDF (7 joints, 59 base parameters incl. viscous + Coulomb friction) with the
gen3_twin settings (margins, acceleration limits, effort and floor keep-out):

- the whole design (:func:`paramid.robot.excitation.design_for_robot`) with ``--starts`` seeded
  starts and ``--maxiter`` SLSQP iterations per smoothing stage, ``--boundary periodic`` (all 77
  coefficients free) or ``rest_to_rest`` (the rest conditions leave 63);
- the split of that time: the batched finite-difference gradients (they contain most regressor
  evaluations; the rest of a gradient is its batched SVD), the regressor evaluations
  (Pinocchio), and the effort / floor constraints (inverse dynamics and forward kinematics,
  differenced by SLSQP itself), counted by wrapping them (the first two overlap);
- one gradient: the batched central differences of :class:`paramid.excitation.design.RestProblem`
  (all 2n points in one regressor call and one batched SVD) against the naive loop of 2n
  separate criterion evaluations, and their agreement (no analytic gradient is implemented:
  the regressor's derivatives would need Pinocchio's regressor derivatives, which it lacks).

BLAS is pinned to one thread (set before numpy loads): with threads competing on a shared
2-core machine one batched SVD of 126 x 420 x 59 took 18.7 s instead of 0.06 s.

Measured (shared 2-core VM, --starts 4 --maxiter 100 --boundary periodic, 77 coefficients):
116 s in all (cond 2.38e5; fine-grid excess <= 0): gradients 72 s (62 %, 776 calls), of which
regressor ~26 s and batched SVDs ~45 s; floor constraint 24.5 s (21 %), effort 11.2 s (10 %).
One criterion 0.6 ms; one gradient batched 178 ms vs a loop of 154 criterion calls 101 ms (the
batch does not pay off here: the regressor is a per-sample Pinocchio loop either way and one
154 x 420 x 59 batched SVD costs more than 154 small ones); both agree exactly.  The shipped
gen3_twin design (2 starts x maxiter 30, rest_to_rest) takes 15 s.

Usage: PYTHONPATH=src python perf/excitation_robot.py [--starts 4] [--maxiter 100]
       [--boundary periodic]
"""

from __future__ import annotations

import os

os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import argparse  # noqa: E402
import time  # noqa: E402
from collections import defaultdict  # noqa: E402

import numpy as np  # noqa: E402

from paramid import io  # noqa: E402
from paramid.excitation import design as dz  # noqa: E402
from paramid.excitation.fourier import grid  # noqa: E402
from paramid.robot import base, model  # noqa: E402
from paramid.robot import excitation as ex  # noqa: E402

URDF = "data/kinova_gen3/kinovaGen3.urdf"
REL_TOL = 1e-8  # the rank threshold of the pivoted QR (the schema's base.rel_tol)
SPEC = {
    "harmonics": 5,
    "base_frequency_hz": 0.075,
    "margins": {"position_rad": 0.087, "velocity_rad_s": 0.17},
    "acceleration_limit_rad_s2": [15, 7.5, 10, 12.5, 15, 20, 20],
    "effort_margin": 0.1,
    "keep_out": {"floor_height_m": 0.05, "clearance_m": 0.01},
    "criterion": "cond",
    "grid_points": 60,
    "fine_factor": 10,
    "sign_smoothing": [0.1, 0.03],
    "seed": 0,
}
TIMES: dict[str, float] = defaultdict(float)
CALLS: dict[str, int] = defaultdict(int)


def _timed(name, fn):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            TIMES[name] += time.perf_counter() - start
            CALLS[name] += 1

    return wrapper


def _instrument() -> None:
    ex.regressor = _timed("regressor (Pinocchio)", ex.regressor)
    ex.Physical.torque = _timed("effort constraint (rnea)", ex.Physical.torque)
    ex.Physical.heights = _timed("floor constraint (FK)", ex.Physical.heights)
    dz.RestProblem.gradient = _timed("gradient (batched FD)", dz.RestProblem.gradient)


def _gradients(robot, structural, spec) -> None:
    """Batched FD gradient vs 2n separate criterion evaluations at a random start."""
    order, omega = spec["harmonics"], 2 * np.pi * spec["base_frequency_hz"]
    problem = dz.RestProblem.on_grid(
        ex.design_regressor(robot, structural),
        "cond",
        np.asarray(grid(2 * np.pi / omega, spec["grid_points"])),
        omega,
        order,
        robot.n_joints,
        spec["boundary"] == "rest_to_rest",
    )
    limits, _ = ex.limits_of(robot, spec, "perf")
    z = problem.random_start(limits, dz.generator("perf", "gradient"))
    start = time.perf_counter()
    batched = problem.gradient(z, 0.03)
    t_batched = time.perf_counter() - start
    step = dz._FD_STEP * np.maximum(1.0, np.abs(z))
    start = time.perf_counter()
    naive = np.array(
        [
            (problem.objective(z + s * e, 0.03) - problem.objective(z - s * e, 0.03)) / (2 * s)
            for s, e in zip(step, np.eye(z.size), strict=True)
        ]
    )
    t_naive = time.perf_counter() - start
    t0 = time.perf_counter()
    problem.objective(z, 0.03)
    t_obj = time.perf_counter() - t0
    print(
        f"one criterion {t_obj * 1e3:.1f} ms; gradient over {z.size} coordinates: batched "
        f"{t_batched * 1e3:.0f} ms, naive loop {t_naive * 1e3:.0f} ms "
        f"({t_naive / t_batched:.1f}x); max |difference| {np.abs(batched - naive).max():.2e} "
        f"(|gradient| max {np.abs(batched).max():.2e})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=4)
    parser.add_argument("--maxiter", type=int, default=100)
    parser.add_argument("--boundary", choices=["periodic", "rest_to_rest"], default="periodic")
    args = parser.parse_args()
    spec = SPEC | {"starts": args.starts, "maxiter": args.maxiter, "boundary": args.boundary}
    robot = model.robot_from_urdf(io.read_urdf(URDF), URDF, [f"joint_{i}" for i in range(1, 8)])
    structural = base.structural_base(robot, REL_TOL)
    _gradients(robot, structural, spec)
    _instrument()
    start = time.perf_counter()
    result, limits, _, physical = ex.design_for_robot(robot, structural, spec, "perf")
    total = time.perf_counter() - start
    t = ex.fine_grid(result.trajectory, spec["grid_points"], spec["fine_factor"])
    worst = max(ex.violations(robot, result.trajectory, limits, physical, t).values())
    print(
        f"design: {robot.n_joints} joints x L={spec['harmonics']} ({args.boundary}), "
        f"{args.starts} starts x maxiter {args.maxiter}: {total:.1f} s; cond {result.cond:.4g}; "
        f"iterations {[s.iterations for s in result.starts]}; worst fine-grid excess {worst:.2e}"
    )
    for name in sorted(TIMES, key=TIMES.get, reverse=True):
        share = 100 * TIMES[name] / total
        print(f"  {name:28s} {TIMES[name]:7.1f} s ({share:4.1f} %, {CALLS[name]} calls)")


if __name__ == "__main__":
    main()
