"""Time the multi-joint identification steps (issue #16) against naive versions, and the whole
``kinova_gen3`` study without population methods (must take <= 60 s on 2 cores).

On a twin of the Kinova Gen3 (20 000 samples x 7 joints by default):

- regressor: :func:`paramid.robot.model.regressor` (one reused ``pin.Data``, one array write)
  vs a naive loop that creates a ``pin.Data`` per sample and stacks rows in Python lists;
- OLS / WLS: :mod:`paramid.robot.estimators` on per-joint QR compressions vs ``lstsq`` on the
  full M x r base regressor (WLS: two full solves);
- LMI: ``fit_lmi`` (cvxpy + Clarabel on the p x p compression) vs the same program with the full
  M x p data inside cvxpy (``--naive-lmi-rows`` caps its rows; 0 skips it);
- study: ``snakemake --cores 2`` on the kinova_gen3 targets in a fresh copy of the workflow,
  with ``methods: [urdf, ols, wls, bcls, lmi]``.

Usage: PYTHONPATH=src python perf/robot.py [--samples 20000] [--naive-lmi-rows 20000]
       [--skip-study]
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pinocchio as pin
import yaml

from paramid import base_parameters as bp
from paramid import io
from paramid.config import validate
from paramid.robot import estimators, model, study, twin
from paramid.robot.signals import ProcessedRecord

ROOT = Path(__file__).resolve().parents[1]
URDF = ROOT / "data/kinova_gen3/kinovaGen3.urdf"
JOINTS = [f"joint_{i}" for i in range(1, 8)]
STUDY_TARGETS = [
    f"results/kinova_gen3/tables/{t}.csv" for t in ("validation", "parameters", "consistency")
] + [f"results/kinova_gen3/figures/{f}.png" for f in ("torque", "rmse", "parameters")]


def gen3_sensors() -> twin.TwinNoise:
    """The shipped gen3_twin study's sensors (config.yaml, the schema's defaults filled)."""
    config = io.read_yaml(ROOT / "config.yaml")
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return twin.TwinNoise.from_config(config["robots"]["gen3_twin"]["twin"]["noise"])


def twin_block() -> dict:
    """gen3_twin's block of config.yaml with the schema's defaults filled."""
    config = yaml.safe_load((ROOT / "config.yaml").read_text())
    validate(config, ROOT / "workflow" / "schemas" / "config.schema.yaml")
    return config["robots"]["gen3_twin"]


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - start


def naive_regressor(robot, q, dq, ddq):
    """A pin.Data per sample, rows collected in lists (friction columns per element)."""
    rows = []
    qp = model.pin_configuration(robot, q)
    for k in range(q.shape[0]):
        data = robot.model.createData()
        Y = pin.computeJointTorqueRegressor(robot.model, data, qp[k], dq[k], ddq[k])
        for j in range(robot.n_joints):
            friction = [0.0] * (2 * robot.n_joints)
            friction[2 * j], friction[2 * j + 1] = dq[k, j], float(np.sign(dq[k, j]))
            rows.append(list(Y[j]) + friction)
    return np.array(rows)


def naive_wls(W, y, n):
    beta = np.linalg.lstsq(W, y, rcond=None)[0]
    r = (y - W @ beta).reshape(-1, n)
    w = np.tile(1.0 / np.sqrt(r.var(axis=0)), r.shape[0])
    return np.linalg.lstsq(W * w[:, None], y * w, rcond=None)[0]


def naive_lmi(prob, Y, y):
    import cvxpy as cp

    from paramid.robot.consistency import PSEUDO_INERTIA_BASIS

    theta = cp.Variable(Y.shape[1])
    basis = PSEUDO_INERTIA_BASIS.reshape(10, 16).T
    cons = [cp.reshape(basis @ theta[s], (4, 4), order="C") >> 0 for s in prob.links.values()]
    cons.append(theta[prob.nonnegative] >= 0)
    program = cp.Problem(cp.Minimize(cp.sum_squares(Y @ theta - y) / y.size), cons)
    try:
        program.solve(cp.CLARABEL)
    except cp.error.SolverError:
        return "Clarabel failed"
    return program.status


def library_steps(samples: int, naive_lmi_rows: int) -> None:
    robot = model.robot_from_urdf(io.read_urdf(URDF), URDF, JOINTS)
    friction = twin_block()["twin"]["friction"]  # the schema's ranges
    theta = twin.true_parameters(robot, seed=0, inertia_spread=0.2, **friction)
    trajectory = twin.excitation(robot, seed=1)
    rec = twin.simulate(robot, theta, trajectory, samples / 1000.0, 1000.0, gen3_sensors(), 0)
    q, dq, ddq = rec.q_true, rec.dq_true, rec.ddq_true
    Y, t_fast = timed(model.regressor, robot, q, dq, ddq)
    Yn, t_naive = timed(naive_regressor, robot, q, dq, ddq)
    assert np.allclose(Y.reshape(-1, Y.shape[-1]), Yn)
    print(f"regressor {samples} x 7: {t_fast:.3f} s (naive {t_naive:.3f} s)")
    flat = Y.reshape(-1, Y.shape[-1])
    block = twin_block()
    velocity = block["coulomb"]["velocity_rad_s"]
    cutoff = float(block["signals"]["cutoff_hz"])  # of the study's records: sets the CV gap
    part = ProcessedRecord(rec.time, q, dq, ddq, rec.tau, 1000.0, cutoff)
    data, t_prob = timed(study.compress_calibration, robot, [part], block["cv"], velocity)
    print(f"extended regressor + per-joint QR compression: {t_prob:.3f} s")
    sign = data.select(model.law_columns(robot, [False] * robot.n_joints)).stacked()
    base = bp.base_parameters(sign, robot.standard_names)
    choice = study.friction_choice([False] * robot.n_joints, velocity)
    prob = study.law_problem(robot, base, data, choice, 1000.0, "perf", [part])[1]
    assert prob.rows is not None
    W, y = prob.rows()
    for name, fast, naive in (
        ("ols", lambda: estimators.fit_ols(prob, {}), lambda: np.linalg.lstsq(W, y, rcond=None)),
        ("wls", lambda: estimators.fit_wls(prob, {}), lambda: naive_wls(W, y, 7)),
    ):
        _, a = timed(fast)
        _, b = timed(naive)
        print(f"{name}: {a:.3f} s (naive lstsq on {W.shape[0]} x {W.shape[1]}: {b:.3f} s)")
    _, t_lmi = timed(estimators.fit_lmi, prob, {**block["lmi"], "weight": 0.0})
    line = f"lmi: {t_lmi:.3f} s"
    if naive_lmi_rows:
        rows = min(naive_lmi_rows, samples) * robot.n_joints
        status, t = timed(naive_lmi, prob, flat[:rows], y[:rows])
        line += f" (naive, {rows} x {flat.shape[1]} data inside cvxpy: {t:.3f} s, {status})"
    print(line)


def whole_study() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        dest = Path(tmp) / "wf"
        dest.mkdir()
        for name in ("Snakefile", "config.yaml", "workflow", "scripts", "envs", "profiles"):
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / name)
        shutil.copytree(ROOT / "data", dest / "data")
        (dest / "perf.yaml").write_text(
            "robots:\n  kinova_gen3:\n    methods: [urdf, ols, wls, bcls, lmi]\n"
        )
        cmd = [sys.executable, "-m", "snakemake", "--cores", "2", *STUDY_TARGETS]
        start = time.perf_counter()
        out = subprocess.run(
            [*cmd, "--configfile", "perf.yaml"], cwd=dest, capture_output=True, text=True
        )
        elapsed = time.perf_counter() - start
        if out.returncode:
            sys.exit(out.stderr[-3000:])
        print(f"whole kinova_gen3 study (no population methods), --cores 2: {elapsed:.1f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=20_000)
    parser.add_argument("--naive-lmi-rows", type=int, default=20_000)
    parser.add_argument("--skip-study", action="store_true")
    args = parser.parse_args()
    library_steps(args.samples, args.naive_lmi_rows)
    if not args.skip_study:
        whole_study()


if __name__ == "__main__":
    main()
