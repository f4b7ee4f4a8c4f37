"""Where a run of the workflow spends its time, in one report (issue #25).

Prints, measured in this run on this machine:

1. the no-op: ``snakemake -n <target>`` on an up-to-date tree against ``snakemake --version``
   (the minimum of ``--repeat`` runs each; goal: at most 2x);
2. per family: jobs, summed wall and CPU seconds of a build's ``benchmarks/`` (each scripted
   job's Snakemake benchmark file), and, with ``--previous DIR``, the same for an earlier
   build's benchmarks (e.g. the layout before issue #23, whose rule names map to the same
   families) and the ratio of the summed CPU (goal: at most 0.5);
3. the import floor: starting Python and importing what every job imports (numpy, pandas,
   pyarrow through ``paramid.io``), and the heavy libraries one at a time.

Measure a clean build first (``rm -rf results benchmarks; snakemake --cores 2 all``), then
``python perf/speed.py --target all [--previous ../old/benchmarks]`` in the checkout (the
no-op runs in the working directory).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
# rule-name prefix -> family (rules of the layout before issue #23 listed by name)
FAMILIES = {
    "hip_": "studies",
    "nonlinear_": "nonlinear",
    "excitation_": "excitation",
    "calibration_": "calibration",
    "cec2022_": "cec2022",
    "robot_": "robots",
}
OLD_RULES = {
    "studies": (
        "simulate ingest choose_cutoff signals rls_bounds fit fit_population tables stats fig3a "
        "fig3b fig3c fig3d sweep_point sweep_cutoff sweep_single sweep_table sweep_figure fig4a "
        "fig4b audit_study"
    ).split(),
    "excitation": ["design_excitation", "chain_recovery"],
    "calibration": ["simulate_calibration", "calibrate", "polishing_path"],
}
IMPORTS = {
    "python": "pass",
    "paramid.io (numpy, pandas, pyarrow)": "import paramid.io",
    "scipy.signal": "import scipy.signal",
    "scipy.stats": "import scipy.stats",
    "matplotlib.pyplot": "import matplotlib.pyplot",
    "pinocchio": "import pinocchio",
    "cvxpy": "import cvxpy",
}


def family(rule: str) -> str:
    for prefix, name in FAMILIES.items():
        if rule.startswith(prefix):
            return name
    for name, rules in OLD_RULES.items():
        if rule in rules:
            return name
    return "other"


def benchmarks(root: Path) -> pd.DataFrame:
    """One row per job of a build: rule, family, wall and CPU seconds."""
    rows = []
    for path in sorted(root.rglob("*.tsv")):
        bench = pd.read_csv(path, sep="\t")
        rule = path.relative_to(root).parts[0]
        rows.append(
            (rule, family(rule), float(bench["s"].iloc[-1]), float(bench["cpu_time"].iloc[-1]))
        )
    return pd.DataFrame(rows, columns=["rule", "family", "wall_s", "cpu_s"])


def per_family(jobs: pd.DataFrame) -> pd.DataFrame:
    table = jobs.groupby("family").agg(
        jobs=("rule", "size"), wall_s=("wall_s", "sum"), cpu_s=("cpu_s", "sum")
    )
    table.loc["total"] = table.sum()
    return table


def timed(command: list[str], repeat: int) -> float:
    """The minimum wall time of ``repeat`` runs of a command that must succeed."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        if out.returncode:
            sys.exit(f"{' '.join(command)} failed:\n{out.stderr[-2000:]}")
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="all", help="the target of the no-op (default all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--benchmarks", type=Path, default=Path("benchmarks"))
    parser.add_argument("--previous", type=Path, help="benchmarks/ of an earlier build")
    args = parser.parse_args()

    snakemake = [sys.executable, "-m", "snakemake"]
    version = timed([*snakemake, "--version"], args.repeat)
    noop = timed([*snakemake, "-n", args.target], args.repeat)
    print(
        f"no-op `snakemake -n {args.target}`: {noop:.2f} s; `snakemake --version`: {version:.2f} s;"
    )
    print(f"ratio {noop / version:.2f} (goal <= 2)\n")

    if args.benchmarks.is_dir():
        now = per_family(benchmarks(args.benchmarks))
        if args.previous:
            before = per_family(benchmarks(args.previous))
            now = now.join(before.add_suffix("_before"), how="outer")
            now["cpu_ratio"] = now["cpu_s"] / now["cpu_s_before"]
        print(now.round(2).to_string(), "\n")
        if args.previous:
            ratio = now.loc["total", "cpu_ratio"]
            print(f"summed CPU of the build / the previous one: {ratio:.2f} (goal <= 0.5)\n")

    print("import floor (minimum of the runs, one Python each):")
    for name, statement in IMPORTS.items():
        print(f"  {name:40s} {timed([sys.executable, '-c', statement], args.repeat):.2f} s")


if __name__ == "__main__":
    main()
