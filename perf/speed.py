"""Where a run of the workflow spends its time, in one report (issue #25).

Prints, measured in this run on this machine:

1. with ``--build``: a clean ``snakemake --cores N all`` of the committed tree (``git archive
   HEAD`` into a temporary directory): its wall time and the CPU of the whole process tree
   (``getrusage(RUSAGE_CHILDREN)``: Snakemake itself and every job), and per family the jobs
   and their summed CPU from the last line each job writes to its log (the job's own
   ``getrusage``; Snakemake's benchmark ``cpu_time`` is sampled and misses the end of a job,
   so it is shown beside it only for comparison with older builds); ``--previous COMMIT``
   builds that commit the same way in the same run and prints the ratios (goal: CPU <= 0.5);
2. the no-op: ``snakemake -n <target>`` on the up-to-date tree (the build's, else the working
   directory) against ``snakemake --version``, the minimum of ``--repeat`` runs each (goal:
   at most 2x);
3. the import floor: starting Python and importing what every job uses (numpy through
   ``paramid.io``, pandas and pyarrow for its Parquet), and the heavy libraries one at a time.

``python perf/speed.py --build --previous 47cba6b`` (the layout before issue #23) takes two
clean builds (about 40 min on 2 cores); ``python perf/speed.py`` alone only the no-op and the
import floor, in an up-to-date checkout.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from paramid.workflow import BENCHMARKS

ROOT = Path(__file__).resolve().parents[1]
# rule-name prefix -> family (the rules of the layout before issue #23 listed by name)
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
    "excitation": ["design_excitation", "chain_recovery", "excitation_comparison"],
    "calibration": ["simulate_calibration", "calibrate", "polishing_path"],
}
IMPORTS = {
    "python": "pass",
    "snakemake.script (every job's preamble)": "import snakemake.script",
    "paramid.io (numpy, pandas, pyarrow)": "import paramid.io, pandas, pyarrow.parquet",
    "scipy.signal": "import scipy.signal",
    "scipy.stats": "import scipy.stats",
    "matplotlib.pyplot": "import matplotlib.pyplot",
    "pinocchio": "import pinocchio",
    "cvxpy": "import cvxpy",
}
JOB_CPU = re.compile(r"paramid\.job: (\S+) CPU ([0-9.]+) s$", re.MULTILINE)


def family(rule: str) -> str:
    for prefix, name in FAMILIES.items():
        if rule.startswith(prefix):
            return name
    for name, rules in OLD_RULES.items():
        if rule in rules:
            return name
    return "other"


@dataclass(frozen=True)
class Build:
    """A clean build: wall and whole-tree CPU seconds, and its directory."""

    label: str
    wall_s: float
    cpu_s: float
    root: Path


def clean_build(commit: str, cores: int, workdir: Path) -> Build:
    """``snakemake --cores N all`` of ``commit`` in a fresh copy of its tree."""
    tree = workdir / commit
    tree.mkdir(parents=True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True
    )
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", str(cores), "all"],
        cwd=tree,
        env={**os.environ, "PYTHONPATH": str(tree / "src")},  # that commit's library, not ours
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode:
        sys.exit(f"the build of {commit} failed:\n{out.stderr[-3000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Build(commit, wall, cpu, tree)


def per_family(root: Path) -> pd.DataFrame:
    """Per family of a build: jobs and summed wall and sampled ``cpu_time`` of their
    benchmarks, and the summed CPU of the last line of each job's log (NaN for builds older
    than these lines)."""
    bench = []
    folder = root.joinpath(*BENCHMARKS)
    folder = folder if folder.is_dir() else root / "benchmarks"  # builds before 2026-12-06
    for path in sorted(folder.rglob("*.tsv")):
        table = pd.read_csv(path, sep="\t")
        rule = path.relative_to(folder).parts[0]
        bench.append((family(rule), float(table["s"].iloc[-1]), float(table["cpu_time"].iloc[-1])))
    logged = [
        (family(m.group(1)), float(m.group(2)))
        for log in sorted((root / "logs").rglob("*.log"))
        for m in JOB_CPU.finditer(log.read_text(errors="replace"))
    ]
    jobs = pd.DataFrame(bench, columns=["family", "wall_s", "sampled_cpu_s"])
    table = jobs.groupby("family").agg(
        jobs=("wall_s", "size"), wall_s=("wall_s", "sum"), sampled_cpu_s=("sampled_cpu_s", "sum")
    )
    cpu = pd.DataFrame(logged, columns=["family", "cpu_s"]).groupby("family")["cpu_s"].sum()
    table["cpu_s"] = cpu
    table.loc["total"] = table.sum(min_count=1)
    return table


def timed(
    command: list[str], repeat: int, cwd: Path | None = None, env: dict | None = None
) -> float:
    """The minimum wall time of ``repeat`` runs of a command that must succeed."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        out = subprocess.run(command, capture_output=True, text=True, cwd=cwd, env=env)
        best = min(best, time.perf_counter() - start)
        if out.returncode:
            sys.exit(f"{' '.join(command)} failed:\n{out.stderr[-2000:]}")
    return best


def report_builds(builds: list[Build]) -> None:
    """Per family of each build, then the whole runs and the ratio now / previous."""
    for build in builds:
        print(f"build {build.label}: per family (job CPU from the logs; sampled = benchmarks')")
        print(per_family(build.root).round(1).to_string(), "\n")
    rows = {b.label: {"wall_s": b.wall_s, "cpu_s": b.cpu_s} for b in builds}
    print("whole clean `all` (wall; CPU of Snakemake and every job):")
    print(pd.DataFrame(rows).T.round(1).to_string())
    if len(builds) == 2:
        now, before = builds
        print(
            f"\nCPU now / {before.label}: {now.cpu_s / before.cpu_s:.2f} (goal <= 0.5); "
            f"wall: {now.wall_s / before.wall_s:.2f}\n"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", default="all", help="the target of the no-op (default all)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--build", action="store_true", help="time a clean `all` of HEAD")
    parser.add_argument("--previous", help="also time a clean `all` of this commit")
    parser.add_argument("--cores", type=int, default=2)
    parser.add_argument("--keep", type=Path, help="build in this new folder and keep it")
    args = parser.parse_args()

    snakemake = [sys.executable, "-m", "snakemake"]
    with tempfile.TemporaryDirectory(prefix="paramid-speed-") as tmp:
        workdir = args.keep or Path(tmp)
        noop_dir = None
        if args.build:
            head = subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            builds = [clean_build(head, args.cores, workdir)]
            if args.previous:
                builds.append(clean_build(args.previous, args.cores, workdir))
            report_builds(builds)
            noop_dir = builds[0].root
        env = {**os.environ, "PYTHONPATH": str(noop_dir / "src")} if noop_dir else None
        version = timed([*snakemake, "--version"], args.repeat, noop_dir, env)
        noop = timed([*snakemake, "-n", args.target], args.repeat, noop_dir, env)
    print(
        f"no-op `snakemake -n {args.target}`: {noop:.2f} s; `snakemake --version`: {version:.2f} s;"
    )
    print(f"ratio {noop / version:.2f} (goal <= 2)\n")

    print("import floor (minimum of the runs, one Python each):")
    for name, statement in IMPORTS.items():
        print(f"  {name:42s} {timed([sys.executable, '-c', statement], args.repeat):.2f} s")


if __name__ == "__main__":
    main()
