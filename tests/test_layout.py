"""The house rules of the layout: a neutral core that no domain package reaches through hip/,
rule files without Python functions, one name per stage, one target per family."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIBRARY = ROOT / "src" / "paramid"
RULES = ROOT / "workflow" / "rules"
# the rule-name prefix of each family target's jobs
FAMILY_PREFIXES = {
    "studies": ("hip_",),
    "nonlinear": ("nonlinear_",),
    "excitation": ("excitation_",),
    "calibration": ("calibration_",),
    "cec2022": ("cec2022_",),
    "robots": ("robot_",),
}


def _rule_blocks() -> dict[str, str]:
    """Rule name -> its text, over every rule file."""
    blocks = {}
    for path in sorted(RULES.glob("*.smk")):
        for block in re.split(r"^(?=rule )", path.read_text(), flags=re.M):
            head = re.match(r"rule (\w+):", block)
            if head:
                blocks[head[1]] = block
    return blocks


def test_only_the_hip_package_imports_hip() -> None:
    """The shared core and every other domain package stand without the hip paper's code."""
    offenders = [
        f"{path.relative_to(LIBRARY)}:{number}"
        for path in LIBRARY.rglob("*.py")
        if path.parent.name != "hip"
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if "paramid.hip" in line
    ]
    assert offenders == []


#: modules that touch files beside :mod:`paramid.io`, and why: the workflow's own machinery
#: (config files, validation stamps, code hashes, the comparison of two builds, the CLI) and
#: the package data the CEC 2022 suite ships (not a user's file)
FILE_TOUCHING = {
    "io.py": "the library's file I/O",
    "workflow.py": "the workflow's stamps and settings files",
    "codehash.py": "the code-hash store",
    "provenance.py": "compares two builds' outputs",
    "cli.py": "the command line",
    "config.py": "the workflow's JSON schema (through snakemake.utils.validate)",
    "cec2022/data.py": "the package's own CEC 2022 data",
}
FILE_CALLS = re.compile(
    r"read_(csv|parquet|text|bytes|table)\(|write_(text|bytes)\(|\bopen\(|to_(csv|parquet)\("
    r"|savefig\(|np\.(load|save|loadtxt|savetxt)\(|json\.(load|dump)\(|ElementTree\.parse\("
    r"|buildModelFromUrdf|\.unlink\(|mkdir\(|os\.(replace|remove|rename)\(|shutil\."
)


def test_the_library_touches_no_file_outside_io() -> None:
    """Library functions take arrays and plain values (README, "Where things live"): a user's
    file is read by :mod:`paramid.io` (records, configs, URDFs, coefficient files), the library
    judges what was read. A call through ``io.`` is fine anywhere."""
    offenders = [
        f"{path.relative_to(LIBRARY)}:{number}: {line.strip()}"
        for path in sorted(LIBRARY.rglob("*.py"))
        if str(path.relative_to(LIBRARY)) not in FILE_TOUCHING
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if FILE_CALLS.search(line.replace("io.read_", "").replace("io.write_", ""))
    ]
    assert offenders == []


def test_the_library_writes_no_file_even_through_io() -> None:
    """Writing is the scripts' (a stage's outputs) and the workflow's machinery's: a library
    module that calls ``io.write_*`` (audit.write_audit did) passed the test above, which lets
    ``io.`` calls through."""
    writes = re.compile(r"\bio\.(write_\w+|atomic_file)\(")
    offenders = [
        f"{path.relative_to(LIBRARY)}:{number}: {line.strip()}"
        for path in sorted(LIBRARY.rglob("*.py"))
        if str(path.relative_to(LIBRARY)) not in FILE_TOUCHING
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if writes.search(line)
    ]
    assert offenders == []


def test_rule_files_hold_no_python_functions() -> None:
    defined = [
        f"{path.name}: {line.strip()}"
        for path in sorted([ROOT / "Snakefile", *RULES.glob("*.smk")])
        for line in path.read_text().splitlines()
        if re.match(r"\s*def \w+\(", line)
    ]
    assert defined == []


def test_every_rule_runs_the_script_of_its_name() -> None:
    scripted = {
        name: re.search(r'script:\s*\n\s*"[./]*scripts/(\w+)\.py"', block)
        for name, block in _rule_blocks().items()
    }
    other = {name: m[1] for name, m in scripted.items() if m and m[1] != name}
    assert other == {}
    names = {m[1] for m in scripted.values() if m}
    assert names == {p.stem for p in (ROOT / "scripts").glob("*.py")}


def test_every_script_runs_its_main_through_run_job() -> None:
    """A script defines ``main(smk)`` and ends by ``io.run_job`` (the job leaves without
    Python's teardown), only when Snakemake runs it as __main__."""
    ending = 'if __name__ == "__main__":\n    io.run_job(main, snakemake)  # noqa: F821\n'
    scripts = sorted((ROOT / "scripts").glob("*.py"))
    assert scripts
    assert [p.name for p in scripts if not p.read_text().endswith(ending)] == []
    assert [p.name for p in scripts if "\ndef main(smk" not in p.read_text()] == []


def test_every_scripted_rule_carries_its_family_prefix() -> None:
    prefixes = tuple(p for family in FAMILY_PREFIXES.values() for p in family)
    scripted = [name for name, block in _rule_blocks().items() if "script:" in block]
    assert [n for n in scripted if not n.startswith(prefixes) and n != "provenance"] == []


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILY_PREFIXES))
def test_a_family_target_builds_only_its_familys_jobs(family: str, tmp_path: Path) -> None:
    from test_workflow import copy_workflow

    workdir = copy_workflow(ROOT, tmp_path / "wf")
    out = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "1", family],
        cwd=workdir,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    stats = (out.stdout + out.stderr).split("Job stats:", 1)[1].split("total", 1)[0]
    rules = set(re.findall(r"^(\w+)\s+\d+$", stats, re.M)) - {"job", family}
    assert rules and all(r.startswith(FAMILY_PREFIXES[family]) for r in rules), rules
