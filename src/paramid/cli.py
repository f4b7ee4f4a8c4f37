"""The paramid command: verify, report and run in the current checkout.

    paramid verify [--study hip] [--cores 2] [--configfile overlay.yaml] [--keep]
    paramid report [--output results/report.html] [snakemake options ...]
    paramid run [targets and snakemake options ...]

``verify`` rebuilds the workflow from scratch in a temporary copy of the checkout and compares
every output with ``results/``: the reference is the existing ``results/`` (all studies, or
``results/<study>/``); exactly those files are rebuilt and compared as described in
:mod:`paramid.provenance` (data and metadata, timings and the build's own facts left out;
figures via their source data).  Exit status: 0 identical, 1 something differs or the
reference lacks a rebuilt output, 2 nothing to verify or the rebuild failed.

``report`` writes Snakemake's self-contained HTML report of the finished run; ``run`` is
``snakemake`` with the same interpreter (so the installed paramid is the one the jobs use).
Both pass any further options to Snakemake and return its exit status.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from paramid import io, provenance

# never copied into the rebuild: outputs, state, caches and virtual environments
IGNORED = {
    ".git",
    "results",
    "logs",
    ".snakemake",
    ".ci-venv",
    ".venv",
    "venv",
    ".pytest_cache",
    ".ruff_cache",
    ".mypy_cache",
    ".hypothesis",
    "__pycache__",
    "build",
    "dist",
}
PROVENANCE_RECORD = "results/provenance.json"
REPORT = "results/report.html"


def snakemake_command(*args: str) -> list[str]:
    """``snakemake`` run by this interpreter, with ``args``."""
    return [sys.executable, "-m", "snakemake", *args]


# --------------------------------------------------------------------------------------
# verify
# --------------------------------------------------------------------------------------


def workflow_files(root: Path) -> list[Path]:
    """The files of the checkout: tracked and untracked-but-not-ignored (git), else a walk."""
    try:
        out = subprocess.run(
            [
                "git",
                "-C",
                str(root),
                "ls-files",
                "-z",
                "--cached",
                "--others",
                "--exclude-standard",
            ],
            capture_output=True,
            check=True,
        ).stdout
        names = [Path(n) for n in out.decode().split("\0") if n]
    except (OSError, subprocess.CalledProcessError):
        names = [
            p.relative_to(root)
            for p in root.rglob("*")
            if p.is_file() and not IGNORED.intersection(p.relative_to(root).parts)
        ]
    return [n for n in names if not IGNORED.intersection(n.parts) and (root / n).is_file()]


def copy_checkout(root: Path, dest: Path) -> None:
    """Copy the checkout's files (no outputs, no state) to ``dest``."""
    for rel in workflow_files(root):
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target, follow_symlinks=False)


def reference_files(results_root: Path, studies: Sequence[str]) -> list[str]:
    """Outputs to verify: everything under results/ (or results/<study>/), less provenance
    and the report (``paramid report``'s default file, made by no rule)."""
    unders = [f"results/{s}" for s in studies] or ["results"]
    files = [rel for under in unders for rel in provenance.list_outputs(results_root, under)]
    return sorted(f for f in set(files) if f not in (PROVENANCE_RECORD, REPORT))


def rebuild_targets(files: Sequence[str], studies: Sequence[str]) -> list[str]:
    """What verify rebuilds: the ``studies`` named, else every study with outputs among
    ``files`` (``results/<study>/...``), by its Snakemake target, which builds every output the
    study has (an output deleted from results/, every file of a rule included, is then rebuilt
    and named as missing from results/), and any file directly under results/."""
    if studies:
        return list(studies)
    parts = [Path(rel).parts for rel in files]
    return sorted({p[1] for p in parts if len(p) > 2}) + sorted(
        "/".join(p) for p in parts if len(p) <= 2
    )


# Snakemake's progress line ("12 of 185 steps (6%) done"), echoed while verify rebuilds
PROGRESS = re.compile(r"^\d+ of \d+ steps \(\d+%\) done$")


def rebuild(workdir: Path, targets: list[str], cores: int, configfiles: list[Path]) -> bool:
    """Run Snakemake for ``targets`` in ``workdir``, echoing its progress lines (a full
    rebuild takes minutes); print its tail on failure."""
    cmd = snakemake_command(*targets, "--cores", str(cores), "--nolock")
    if configfiles:  # last: --configfile takes every value that follows it
        cmd += ["--configfile", *(str(cf.resolve()) for cf in configfiles)]
    said: list[str] = []
    with subprocess.Popen(
        cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as run:
        for line in run.stdout or []:
            said.append(line)
            if PROGRESS.match(line.strip()):
                print(f"verify: {line.strip()}", flush=True)
    if run.returncode != 0:
        text = "".join(said)
        print(text[-4000:], file=sys.stderr)
        print(f"verify: the rebuild failed (exit {run.returncode})", file=sys.stderr)
        unmade = set(re.findall(r"No rule to produce (.+?)(?: \(if you use|$)", text, re.M))
        unmade |= set(re.findall(r"^paramid: [^:]+: no study '([^']+)'", text, re.M))
        overlay = "" if configfiles else "; or built with a config overlay: pass --configfile"
        if files := sorted(name for name in unmade if "/" in name):
            print(
                f"verify: no rule makes {', '.join(files)}: a file put under results/ by hand "
                f"or left by an earlier version of the workflow (move it out){overlay}",
                file=sys.stderr,
            )
        if studies := sorted(name for name in unmade if "/" not in name):
            print(
                f"verify: this checkout's config has no study {', '.join(studies)}: results/ "
                f"holds a study it no longer defines (move it out){overlay}",
                file=sys.stderr,
            )
    return run.returncode == 0


def verify(args: argparse.Namespace) -> int:
    """``paramid verify``: rebuild in a temporary copy, compare with results/."""
    root = args.workflow.resolve()
    results_root = (args.results or root).resolve()
    if absent := [str(path) for path in args.configfile if not path.is_file()]:
        print(f"verify: --configfile {', '.join(absent)}: no such file", file=sys.stderr)
        return 2
    files = reference_files(results_root, args.study)
    empty = [s for s in args.study if not reference_files(results_root, [s])]
    if not files or empty:
        where = ", ".join(f"results/{s}" for s in empty) or "results"
        held = sorted(
            {Path(f).parts[1] for f in reference_files(results_root, []) if f.count("/") > 1}
        )
        print(
            f"verify: no outputs under {results_root}/{where} to verify"
            + (f" (studies with outputs: {', '.join(held)})" if held else ""),
            file=sys.stderr,
        )
        return 2
    stray = provenance.stray_temporaries(results_root)
    for path in stray:
        print(f"verify: stray temporary file (interrupted write?): {path}", file=sys.stderr)
    for path, what in provenance.changed_inputs(results_root, root, files).items():
        print(f"verify: input {path} {what}: expect its outputs to differ", file=sys.stderr)
    if io.git_commit(root).endswith("-dirty"):
        print(
            "verify: the checkout has uncommitted changes (git status): the rebuild uses them",
            file=sys.stderr,
        )

    tmp = Path(tempfile.mkdtemp(prefix="paramid-verify-"))
    try:
        copy_checkout(root, tmp)
        targets = files if args.present_only else rebuild_targets(files, args.study)
        print(
            f"verify: rebuilding {', '.join(targets)} ({len(files)} outputs in results/) from "
            f"scratch in {tmp}",
            flush=True,
        )
        start = time.perf_counter()
        if not rebuild(tmp, targets, args.cores, args.configfile):
            return 2
        print(f"verify: rebuilt in {time.perf_counter() - start:.1f} s", flush=True)
        scope = [f"results/{s}" for s in args.study] or ["results"]
        rebuilt = {rel for under in scope for rel in provenance.list_outputs(tmp, under)}
        rebuilt -= {PROVENANCE_RECORD, REPORT}
        if args.present_only and (on_the_way := sorted(rebuilt - set(files))):
            print(
                f"verify: --present-only: {len(on_the_way)} files the rebuild made on the way "
                f"(inputs of those results/ holds, such as {on_the_way[0]}) are not in results/: "
                "not compared",
                flush=True,
            )
            rebuilt = set()
        comparison = provenance.compare_trees(results_root, tmp, set(files) | rebuilt)
    finally:
        if args.keep:
            print(f"verify: kept {tmp}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(comparison.report())
    return 0 if comparison.ok and not stray else 1


# --------------------------------------------------------------------------------------
# report, run
# --------------------------------------------------------------------------------------


# Snakemake 9 warns, once per job whose resources read its inputs' size, of a coroutine never
# awaited while it writes a report (snakemake/snakemake#4280, open): harmless, but dozens of
# lines that bury the report's own messages
REPORT_WARNINGS = "ignore:coroutine 'InputFiles._predicated_size_files:RuntimeWarning"


def report(args: argparse.Namespace) -> int:
    """``paramid report``: ``snakemake --report <output>`` in the current directory."""
    folder = Path(args.output).parent
    if not folder.is_dir():
        print(
            f"paramid report: the folder {folder} of --output {args.output} does not exist "
            f"(the default, {REPORT}, is written once a run has built results/)",
            file=sys.stderr,
        )
        return 2
    warnings = ",".join(filter(None, [os.environ.get("PYTHONWARNINGS"), REPORT_WARNINGS]))
    out = subprocess.run(
        snakemake_command("--report", args.output, *args.snakemake_args),
        env=os.environ | {"PYTHONWARNINGS": warnings},
        stderr=subprocess.PIPE,
        text=True,
    )
    said = out.stderr or ""
    sys.stderr.write(said)
    if unbuilt := re.findall(r"File (\S+) marked for report but does not exist", said):
        print(
            f"paramid report: {', '.join(unbuilt)} not built yet: build the targets first "
            "(snakemake --cores 2 <targets>) and report the same ones (paramid report "
            "<targets>), or name only what was built",
            file=sys.stderr,
        )
    return out.returncode


def run(args: argparse.Namespace) -> int:
    """``paramid run``: ``snakemake`` with the given targets and options."""
    return subprocess.run(snakemake_command(*args.snakemake_args)).returncode


# --------------------------------------------------------------------------------------
# command line
# --------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    """The ``paramid`` argument parser with its three subcommands."""
    top = argparse.ArgumentParser(prog="paramid", description=__doc__.split("\n\n")[0])
    sub = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ver = sub.add_parser("verify", help="rebuild from scratch and compare with results/")
    ver.add_argument("--study", action="append", default=[], help="only this study (repeatable)")
    ver.add_argument("--cores", type=int, default=2, help="cores for the rebuild")
    ver.add_argument(
        "--configfile", action="append", type=Path, default=[], help="overlay used for results/"
    )
    ver.add_argument(
        "--workflow", type=Path, default=Path.cwd(), help="checkout to rebuild (default: here)"
    )
    ver.add_argument(
        "--results",
        type=Path,
        default=None,
        help="directory holding results/ (default: --workflow)",
    )
    ver.add_argument(
        "--present-only",
        action="store_true",
        help="rebuild only the files results/ holds (a partial build), not whole studies: "
        "then an output deleted with every other file of its rule goes unnoticed",
    )
    ver.add_argument("--keep", action="store_true", help="keep the temporary rebuild")
    ver.set_defaults(handler=verify)

    more = "Further options are passed to snakemake (see snakemake --help)."
    rep = sub.add_parser(
        "report", help=f"write Snakemake's HTML report ({REPORT})", description=more
    )
    rep.add_argument("--output", default=REPORT, help="report file (.html or .zip)")
    rep.set_defaults(handler=report, passes_on=True)

    runp = sub.add_parser("run", help="snakemake with these targets and options", description=more)
    runp.set_defaults(handler=run, passes_on=True)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``paramid`` command; returns the exit status."""
    top = parser()
    args, rest = top.parse_known_args(argv)
    if rest and not getattr(args, "passes_on", False):
        top.error(f"unrecognized arguments: {' '.join(rest)}")
    args.snakemake_args = rest  # report and run pass them to Snakemake
    status: int = args.handler(args)
    return status
