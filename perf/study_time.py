"""Time of one study from its jobs' benchmark files (``logs/benchmarks/<rule>/<study>...tsv``).

Every scripted rule writes a Snakemake benchmark file (wall seconds ``s`` and ``cpu_time``).
This prints, per rule, the jobs, their summed wall and CPU seconds, and for the whole study
the serial sum and a lower bound of the wall time on ``--cores`` cores (the larger of the
longest job and the summed wall time divided by the cores).  Measure after a fresh run of the
study's targets, e.g. for KR210 (issue #18: under 5 minutes on 2 cores)::

    rm -rf results/kr210 logs/benchmarks/*/kr210*
    /usr/bin/time -f "%e s wall" snakemake --cores 2 results/kr210/audit.csv ...
    python perf/study_time.py kr210 --cores 2
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from paramid.workflow import BENCHMARKS

ROOT = Path(__file__).resolve().parents[1]
BENCHMARK_ROOT = ROOT.joinpath(*BENCHMARKS)


def study_benchmarks(study: str, root: Path = BENCHMARK_ROOT) -> pd.DataFrame:
    """One row per benchmark file of ``study``: rule, job (wildcards), wall s, CPU s."""
    rows = []
    for path in sorted(root.glob(f"*/{study}.tsv")) + sorted(root.glob(f"*/{study}/**/*.tsv")):
        bench = pd.read_csv(path, sep="\t")
        rule = path.relative_to(root).parts[0]
        rows.append(
            {
                "rule": rule,
                "job": str(path.relative_to(root / rule)),
                "wall_s": float(bench["s"].iloc[-1]),
                "cpu_s": float(bench["cpu_time"].iloc[-1]),
            }
        )
    return pd.DataFrame(rows, columns=["rule", "job", "wall_s", "cpu_s"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study")
    parser.add_argument("--cores", type=int, default=2)
    args = parser.parse_args()
    jobs = study_benchmarks(args.study)
    if jobs.empty:
        raise SystemExit(f"no benchmark files for {args.study!r} under {'/'.join(BENCHMARKS)}/")
    per_rule = jobs.groupby("rule").agg(
        jobs=("job", "size"),
        wall_s=("wall_s", "sum"),
        cpu_s=("cpu_s", "sum"),
        longest_s=("wall_s", "max"),
    )
    print(per_rule.sort_values("wall_s", ascending=False).round(2).to_string())
    total = jobs["wall_s"].sum()
    bound = max(jobs["wall_s"].max(), total / args.cores)
    print(
        f"\n{args.study}: {len(jobs)} jobs, serial wall {total:.1f} s, "
        f"CPU {jobs['cpu_s'].sum():.1f} s; on {args.cores} cores at least {bound:.1f} s"
    )


if __name__ == "__main__":
    main()
