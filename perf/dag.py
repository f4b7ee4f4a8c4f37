"""Speed of the whole DAG on this machine (issue: hip study incl. sweeps <= 30 s from clean at
--cores 2; no-op rerun <= 3 s; a figure-style change reruns only figure rules).

Runs in a temporary copy of the workflow:
  1. the hip study from clean (`snakemake --cores 2 <hip targets>`),
  2. the no-op rerun,
  3. the rerun after a figure-style change (config `figures.font_size`),
and prints wall times, job counts and which rules the style change reran.

Usage: python perf/dag.py [--cores 2] [--study hip] [--repeat 3]
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = ["Snakefile", "config.yaml", "workflow", "scripts", "data", "envs"]


def run(workdir: Path, *args: str) -> tuple[float, str]:
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", *args], cwd=workdir, capture_output=True, text=True
    )
    elapsed = time.perf_counter() - start
    if out.returncode:
        sys.exit(out.stderr[-3000:])
    return elapsed, out.stdout + out.stderr


def jobs(log: str) -> dict[str, int]:
    if "Job stats:" not in log:
        return {}
    stats = log.split("Job stats:", 1)[1]
    found = re.finditer(r"^(\w+)\s+(\d+)\s*$", stats, re.M)
    return {m[1]: int(m[2]) for m in found if m[1] != "total"}


def targets(study: str) -> list[str]:
    """The study's final outputs: audit (tables, statistics), Figures 3-4 and every sweep."""
    figures = ["fig3a", "fig3b", "fig3c", "fig3d", "fig4a", "fig4b"]
    figures += [
        f"sweep_{s}" for s in ("forgetting", "population", "agwo_grid", "leave_one_trajectory_out")
    ]
    return [f"results/{study}/audit.csv"] + [f"results/{study}/figures/{f}.png" for f in figures]


def measure(study: str, cores: str) -> dict:
    """One clean build, no-op rerun and restyle rerun in a fresh copy of the workflow."""
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in FILES:
            src = ROOT / name
            (shutil.copytree if src.is_dir() else shutil.copy2)(src, work / name)
        target = targets(study)
        clean, log = run(work, "--cores", cores, *target)
        built = jobs(log)
        noop, _ = run(work, "--cores", cores, *target)
        config = work / "config.yaml"
        config.write_text(config.read_text().replace("font_size: 9.0", "font_size: 10.0", 1))
        restyle, log = run(work, "--cores", cores, *target)
        startup, _ = run(work, "--version")
    return {
        "clean": clean,
        "noop": noop,
        "restyle": restyle,
        "startup": startup,
        "built": built,
        "rerun": jobs(log),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cores", default="2")
    parser.add_argument("--study", default="hip")
    parser.add_argument("--repeat", type=int, default=3, help="fresh copies to measure")
    args = parser.parse_args()
    runs = [measure(args.study, args.cores) for _ in range(args.repeat)]
    built, rerun = runs[0]["built"], runs[0]["rerun"]

    def times(key: str) -> str:
        values = [r[key] for r in runs]
        each = ", ".join(f"{v:.1f}" for v in values)
        return f"median {statistics.median(values):5.1f} s  ({each})"

    print(f"study {args.study} at --cores {args.cores}, {args.repeat} fresh copies")
    print(f"  from clean:           {times('clean')}, {sum(built.values())} jobs")
    print(f"  no-op rerun:          {times('noop')}")
    print(f"  figure-style change:  {times('restyle')}, reran {rerun}")
    print(f"  snakemake --version:  {times('startup')} (start-up of Snakemake and its plugins)")
    for rule, count in sorted(built.items(), key=lambda kv: -kv[1]):
        print(f"    {rule:18s} {count}")


if __name__ == "__main__":
    main()
