"""Time and peak memory of the multi-joint chain against the record length (issue #25, item 3).

A 7-joint 1 kHz record of N samples (the Gen3 twin: its URDF with perturbed inertias, friction,
Gen3-like sensor noise; written as a CSV joint log like a user's) is run through the README's
multi-joint block (auto cutoff, the default methods, auto prior weight and Coulomb law) in a
temporary copy of the workflow, for N in 10^4 ... 10^6.  Printed per N: the wall time of the
whole build, the summed CPU of its jobs (each job's log ends with its CPU time), and per rule
the largest peak resident memory of its jobs (Snakemake's benchmark ``max_rss``) - the goal is
at most 2 GB at 400 000 samples and time linear in N.  A second N/4-sample record validates.

Usage: python perf/robot_scaling.py [--sizes 10000 100000 400000] [--cores 2]
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pandas as pd

from paramid import io
from paramid.config import validate
from paramid.robot import model, twin
from paramid.workflow import BENCHMARKS

ROOT = Path(__file__).resolve().parents[1]
FILES = ["Snakefile", "config.yaml", "workflow", "scripts", "data", "envs"]
URDF = "data/kinova_gen3/kinovaGen3.urdf"
JOINTS = [f"joint_{i}" for i in range(1, 8)]
BLOCK = f"""\
robots:
  long:
    urdf: {URDF}
    joints: {JOINTS}
    records:
      calibration: [{{path: data/long/cal.csv}}]
      validation:  [{{path: data/long/val.csv}}]
    friction: [viscous, coulomb]
    methods: [urdf, urdf_friction, ols, wls, lmi]
"""


def gen3_sensors() -> twin.TwinNoise:
    """The shipped gen3_twin study's sensors (config.yaml, the schema's defaults filled)."""
    config = io.read_yaml(ROOT / "config.yaml")
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return twin.TwinNoise.from_config(config["robots"]["gen3_twin"]["twin"]["noise"])


def gen3_friction() -> dict:
    """The shipped gen3_twin study's friction ranges (``twin.friction``, the schema's)."""
    config = io.read_yaml(ROOT / "config.yaml")
    validate(config, str(ROOT / "workflow/schemas/config.schema.yaml"))
    return config["robots"]["gen3_twin"]["twin"]["friction"]


def write_log(path: Path, samples: int, seed: int) -> None:
    """A twin joint log of ``samples`` samples at 1 kHz (a 20 s Fourier excitation repeated)."""
    robot = model.robot_from_urdf(io.read_urdf(ROOT / URDF), ROOT / URDF, JOINTS)
    theta = twin.true_parameters(robot, seed=0, inertia_spread=0.0, **gen3_friction())
    trajectory = twin.excitation(robot, seed=seed, period_s=20.0)
    record = twin.simulate(
        robot, theta, trajectory, samples / 1000.0, 1000.0, gen3_sensors(), 0, path.stem
    )
    record.frame(JOINTS).to_csv(path, index=False)


def build(samples: int, cores: int) -> dict[str, object]:
    """Wall, summed job CPU and per-rule peak memory of the README block on N samples."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "wf"
        work.mkdir()
        for name in FILES:
            source = ROOT / name
            (shutil.copytree if source.is_dir() else shutil.copy2)(source, work / name)
        (work / "data/long").mkdir()
        write_log(work / "data/long/cal.csv", samples, seed=1)
        write_log(work / "data/long/val.csv", max(samples // 4, 2000), seed=2)
        (work / "my.yaml").write_text(BLOCK)
        started = time.perf_counter()
        command = [sys.executable, "-m", "snakemake", "--cores", str(cores), "long"]
        out = subprocess.run(
            [*command, "--configfile", "my.yaml"], cwd=work, capture_output=True, text=True
        )
        wall = time.perf_counter() - started
        if out.returncode:
            sys.exit(out.stderr[-3000:])
        cpu = sum(
            float(m[1])
            for log in (work / "logs/long").glob("*.log")
            for m in re.finditer(r"CPU ([0-9.]+) s", log.read_text())
        )
        peaks: dict[str, float] = {}
        for path in work.joinpath(*BENCHMARKS).rglob("*.tsv"):
            rule = path.relative_to(work.joinpath(*BENCHMARKS)).parts[0]
            rss = float(pd.read_csv(path, sep="\t")["max_rss"].max())
            peaks[rule] = max(peaks.get(rule, 0.0), rss)
        validation = pd.read_csv(work / "results/long/tables/validation.csv")
        lmi = float(validation.loc[validation["method"] == "lmi", "rmse"].mean())
    return {"samples": samples, "wall_s": wall, "job_cpu_s": cpu, "lmi_rmse": lmi, **peaks}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 400_000])
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    rows = [build(n, args.cores) for n in args.sizes]
    table = pd.DataFrame(rows).set_index("samples")
    peaks = table.drop(columns=["wall_s", "job_cpu_s", "lmi_rmse"])
    print(table[["wall_s", "job_cpu_s", "lmi_rmse"]].round(2).to_string())
    print("\npeak resident memory per rule [MB]:")
    print(peaks.round(0).T.to_string())
    print(f"\nlargest peak: {peaks.max(axis=1).round(0).to_dict()} MB (goal <= 2048 at 400 000)")
    per_sample = table["job_cpu_s"] / table.index
    print(f"job CPU per 1000 samples: {(1000 * per_sample).round(3).to_dict()} s")


if __name__ == "__main__":
    main()
