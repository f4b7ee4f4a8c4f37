"""Every rule reruns when the library code it runs changes, and only then (issue #14).

The library is copied next to the workflow and put first on PYTHONPATH; every output of
``all`` is created empty and marked current with ``--touch --forceall`` (which records every
job's params, ``params.code`` included), then one module of a family is edited and a dry run
must schedule that family's jobs and no others (``provenance`` records every output, so it
reruns too, and the target rule ``all``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from test_workflow import copy_workflow

from paramid import codehash

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "workflow" / "rules"
# a module of each family that only that family's scripts import
EDITED = {
    "hip": "hip/sweeps.py",
    "friction": "friction/report.py",
    "excitation": "excitation/chain.py",
    "calibration": "calibration/filters.py",
    "cec2022": "cec2022/study.py",
    "robot": "robot/study.py",
}
FAMILY_RULE_FILES = {
    "hip": ["hip.smk", "hip_report.smk", "hip_sweeps.smk"],
    "friction": ["nonlinear.smk"],
    "excitation": ["excitation.smk"],
    "calibration": ["calibration.smk"],
    "cec2022": ["cec2022.smk"],
    "robot": ["robot.smk", "robot_excitation.smk"],
}


def _rule_names(files: list[str]) -> set[str]:
    text = "\n".join((RULES / f).read_text() for f in files)
    return set(re.findall(r"^rule (\w+):", text, re.M)) | set(
        re.findall(r"^use rule \w+ as (\w+)", text, re.M)
    )


@contextlib.contextmanager
def library_at(monkeypatch, library: Path) -> Iterator[None]:
    """``codehash.LIBRARY`` moved to ``library`` with the path caches cleared, before and after."""
    monkeypatch.setattr(codehash, "LIBRARY", library)
    codehash.module_file.cache_clear()
    codehash.dotted_name.cache_clear()
    try:
        yield
    finally:
        codehash.module_file.cache_clear()
        codehash.dotted_name.cache_clear()


def _families() -> dict[str, set[str]]:
    return {name: _rule_names(files) for name, files in FAMILY_RULE_FILES.items()}


def test_every_rule_file_belongs_to_one_family() -> None:
    listed = [f for files in FAMILY_RULE_FILES.values() for f in files]
    assert sorted(listed) == sorted(
        p.name for p in RULES.glob("*.smk") if p.name != "provenance.smk"
    )


def _snakemake(
    workdir: Path, env: dict, *args: str, launcher: tuple[str, ...] = ("-m", "snakemake")
) -> str:
    """Snakemake's output (stdout + stderr) of a run that must succeed; ``launcher``: what
    Python runs (``("-c", code)`` for Snakemake behind a wrapper)."""
    out = subprocess.run(
        [sys.executable, *launcher, "--cores", "1", *args],
        cwd=workdir,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout + out.stderr


def _planned_rules(text: str) -> set[str]:
    if "Nothing to be done" in text:
        return set()
    stats = text.split("Job stats:", 1)[1]
    return {m.group(1) for m in re.finditer(r"^(\w+)\s+\d+$", stats, re.M)} - {"total"}


def test_code_version_follows_the_import_closure(tmp_path: Path) -> None:
    script = tmp_path / "job.py"
    script.write_text("from paramid.hip import sweeps\n")
    files = {p.relative_to(codehash.LIBRARY).as_posix() for p in codehash.library_files(script)}
    assert {"hip/sweeps.py", "hip/pipeline.py", "rls.py", "stats.py"} <= files
    assert not any(f.startswith(("calibration/", "cec2022/")) for f in files)
    # the hip sweeps run PSO, GA and (A)GWO: no CEC optimiser (the optim package imports none
    # of its modules; an edit of WOA reran 59 of the hip and pendulum studies' 63 jobs)
    assert {"optim/particle_swarm.py", "optim/grey_wolf.py"} <= files
    assert not {"optim/ggo.py", "optim/woa.py", "optim/registry.py"} & files
    script.write_text("from paramid.optim.registry import METHODS\n")
    files = {p.relative_to(codehash.LIBRARY).as_posix() for p in codehash.library_files(script)}
    excluded = codehash.library_files(script, exclude=["paramid.optim.ggo"])
    assert "optim/ggo.py" in files and codehash.LIBRARY / "optim/ggo.py" not in excluded
    # a dotted import inside a function runs every package on its way
    script.write_text("def main():\n    import paramid.hip.sweeps\n")
    assert {"paramid", "paramid.hip", "paramid.hip.sweeps"} <= codehash.imported_modules(script)
    files = {p.relative_to(codehash.LIBRARY).as_posix() for p in codehash.library_files(script)}
    assert {"__init__.py", "hip/__init__.py", "hip/sweeps.py"} <= files
    stats = codehash.LIBRARY / "stats.py"  # a library module hashed as the script (config.py)
    assert stats in codehash.library_files(stats)


def test_relative_imports_resolve_in_their_own_package(tmp_path: Path, monkeypatch) -> None:
    """Two files of equal bytes in two packages import each its own package's modules (the
    parsed imports are remembered by content and package)."""
    monkeypatch.setattr(codehash._Store, "imports", {})
    library = tmp_path / "paramid"
    for package in ("hip", "robot"):
        (library / package).mkdir(parents=True)
        (library / package / "__init__.py").write_text("")
        (library / package / "probe.py").write_text("from . import helper\nfrom .base import x\n")
    with library_at(monkeypatch, library):
        hip, robot = (codehash.imported_modules(library / p / "probe.py") for p in ("hip", "robot"))
    assert {"paramid.hip.helper", "paramid.hip.base"} <= hip and "robot" not in str(hip)
    assert {"paramid.robot.helper", "paramid.robot.base"} <= robot and "hip" not in str(robot)


def test_parsed_imports_persist_by_content(tmp_path: Path, monkeypatch) -> None:
    """The import store: an entry for a file's content is used instead of parsing (so a second
    invocation parses nothing), and an edited file is parsed again, never served stale."""
    monkeypatch.setattr(codehash._Store, "imports", {})
    monkeypatch.setattr(codehash._Store, "path", None)
    monkeypatch.setattr(codehash._Store, "dirty", False)  # a new parse alone marks it for saving
    store = tmp_path / "store.json"
    script = tmp_path / "job.py"
    script.write_text("from paramid.hip import sweeps\n")
    codehash.use_store(store)
    assert "paramid.hip.sweeps" in codehash.imported_modules(script)
    codehash._save()
    saved = json.loads(store.read_text())
    assert any("paramid.hip.sweeps" in modules for modules in saved.values())

    # a new process reads the store: a planted entry for this content is what it returns
    monkeypatch.setattr(codehash._Store, "imports", {})
    key = next(k for k, v in saved.items() if "paramid.hip.sweeps" in v)
    store.write_text(json.dumps({key: ["paramid.planted"]}))
    twin = tmp_path / "twin.py"  # same content, another file: same key, no parse
    twin.write_text(script.read_text())
    codehash.use_store(store)
    assert codehash.imported_modules(twin) == {"paramid.planted"}
    twin.write_text("from paramid.cec2022 import runs\n")  # edited: parsed again
    assert "paramid.cec2022.runs" in codehash.imported_modules(twin)


def test_remembered_code_versions_equal_the_hash_and_follow_edits(tmp_path, monkeypatch) -> None:
    """A code version from the store is the SHA-256 of the closure's paths and bytes, computed
    here independently; editing a file of the closure gives a new key, never a stale version."""
    import hashlib

    monkeypatch.setattr(codehash._Store, "imports", {})
    script = tmp_path / "job.py"
    script.write_text("from paramid import stats\n")

    def direct() -> str:
        digest = hashlib.sha256()
        for path in codehash.library_files(script):
            digest.update(path.relative_to(codehash.LIBRARY).as_posix().encode())
            digest.update(path.read_bytes())
        return digest.hexdigest()[:16]

    first = codehash.code_version(script)
    assert first == direct() and [first] in codehash._Store.imports.values()
    assert codehash.code_version(script) == first  # served from the store
    key = next(k for k, v in codehash._Store.imports.items() if v == [first])
    codehash._Store.imports[key] = ["planted"]
    assert codehash.code_version(script) == "planted"  # the store is what is read
    library = tmp_path / "lib"  # an edited copy of the library: new content, new key
    shutil.copytree(codehash.LIBRARY, library)
    (library / "stats.py").write_text((library / "stats.py").read_text() + "\n# edited\n")
    with library_at(monkeypatch, library):
        edited = codehash.code_version(script)
        assert edited == direct() and edited not in (first, "planted")
        stats = library / "stats.py"  # edited again within this process: read again
        stats.write_text(stats.read_text() + "# and again\n")
        os.utime(stats, ns=(10**18, 10**18))
        assert codehash.code_version(script) == direct() != edited


def test_the_workflow_start_imports_no_heavy_library() -> None:
    """What the Snakefile imports (the family objects, the workflow layer) loads none of the
    libraries a job needs: every snakemake call, dry runs included, pays for these imports."""
    modules = [f"paramid.{f}.workflow" for f in ("hip", "friction", "excitation", "calibration")]
    modules += ["paramid.cec2022.workflow", "paramid.robot.workflow", "paramid.workflow"]
    heavy = ["pandas", "pyarrow", "scipy.signal", "scipy.stats", "scipy.optimize"]
    heavy += ["scipy.linalg", "matplotlib", "pinocchio", "cvxpy"]
    code = f"import sys\nfor m in {modules!r}: __import__(m)\n"
    code += f"print([m for m in {heavy!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def _scripted_rules() -> dict[str, str]:
    """Rule name -> script file name, from the rule files (``use rule`` copies their base's)."""
    scripts: dict[str, str] = {}
    for path in RULES.glob("*.smk"):
        text = path.read_text()
        blocks = re.split(r"^(?=rule |use rule )", text, flags=re.M)
        for block in blocks:
            name = re.match(r"(?:rule (\w+):|use rule (\w+) as (\w+))", block)
            if not name:
                continue
            script = re.search(r'script:\s*\n\s*"[./]*scripts/(\w+\.py)"', block)
            if name.group(1) and script:
                scripts[name.group(1)] = script.group(1)
            elif name.group(3):
                scripts[name.group(3)] = scripts[name.group(2)]
    return scripts


@pytest.mark.parametrize("family", list(EDITED))
def test_every_module_of_a_family_is_run_by_that_family_alone(family: str) -> None:
    """The rule template hashes each script's import closure: a family's own modules are in
    the closure of that family's scripts only (shared modules -- io, stats, optim, the hip
    chain the other studies build on -- may be in several)."""
    families = _families()
    own = {rule: script for rule, script in _scripted_rules().items() if rule in families[family]}
    others = {
        rule: script for rule, script in _scripted_rules().items() if rule not in families[family]
    }
    package = codehash.LIBRARY / EDITED[family].split("/")[0]
    if family == "hip":  # the hip chain is shared; its study-specific modules are not
        modules = [
            package / m for m in ("sweeps.py", "tables.py", "audit.py", "figures.py", "fits.py")
        ]
    elif family == "excitation":  # the Fourier trajectory and its design also serve the robots
        modules = [
            m for m in sorted(package.glob("*.py")) if m.name not in ("fourier.py", "design.py")
        ]
    elif family == "friction":  # the laws also give the robots their smooth Coulomb law
        modules = [m for m in sorted(package.glob("*.py")) if m.name != "laws.py"]
    else:
        modules = sorted(package.glob("*.py"))
    modules = [m for m in modules if m.name != "__init__.py"]
    closures = {
        rule: set(codehash.library_files(ROOT / "scripts" / script))
        for rule, script in {**own, **others}.items()
    }
    for module in modules:
        users = {rule for rule, files in closures.items() if module in files}
        assert users <= set(own), (module.name, users - set(own))
    assert any(codehash.LIBRARY / EDITED[family] in closures[rule] for rule in own)


def _params_comparisons(workdir: Path, env: dict, *args: str) -> int:
    """How often a dry run of ``all`` calls Snakemake's params comparison (counted by a
    wrapper around ``PersistenceBase.params_changed``)."""
    count = (
        "import atexit, sys\n"
        "from snakemake.persistence import PersistenceBase as P\n"
        "calls, compare = [], P.params_changed\n"
        "P.params_changed = lambda self, *a, **k: calls.append(1) or compare(self, *a, **k)\n"
        "atexit.register(lambda: print('params compared', len(calls), file=sys.stderr))\n"
        "from snakemake.cli import main\n"
        "main(sys.argv[1:])\n"
    )
    text = _snakemake(workdir, env, "-n", "all", *args, launcher=("-c", count))
    return int(re.search(r"^params compared (\d+)$", text, re.M).group(1))


@pytest.mark.slow
def test_editing_a_module_reruns_exactly_its_familys_rules(tmp_path: Path) -> None:
    workdir = copy_workflow(ROOT, tmp_path / "wf")
    library = tmp_path / "lib" / "paramid"
    shutil.copytree(codehash.LIBRARY, library, ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(library.parent)}
    summary = _snakemake(workdir, env, "-n", "all", "--summary")
    for line in summary.splitlines()[1:]:
        path = line.split("\t", 1)[0]
        if path.startswith("results/"):
            (workdir / path).parent.mkdir(parents=True, exist_ok=True)
            (workdir / path).touch()
    _snakemake(workdir, env, "--touch", "--forceall", "all", "-q")
    assert _planned_rules(_snakemake(workdir, env, "-n", "all")) == set()
    # the no-op compares params through their settings files: Snakemake's own comparison
    # (which imports pandas, 0.3 s at every start) never runs under the shipped profile
    assert _params_comparisons(workdir, env) == 0
    assert _params_comparisons(workdir, env, "--rerun-triggers", "params") > 0  # it can fail

    families = _families()
    for family, module in EDITED.items():
        path = library / module
        original = path.read_text()
        path.write_text(original + "\n# edited\n")
        try:
            planned = _planned_rules(_snakemake(workdir, env, "-n", "all"))
        finally:
            path.write_text(original)
        assert planned, f"editing {module} reruns nothing"
        assert planned - {"provenance", "all"} <= families[family], (family, planned)


def test_a_modules_data_files_are_part_of_its_code(tmp_path: Path, monkeypatch) -> None:
    """The CEC 2022 shifts and rotations (cec2022/data/, read by cec2022/data.py) are in every
    run job's code: a changed shift under an older time was a stale result (8 % of best_f
    differed when forced); a folder that is a package is not data."""
    monkeypatch.setattr(codehash._Store, "imports", {})
    script = tmp_path / "job.py"
    script.write_text("from paramid.cec2022 import runs\n")
    files = {p.relative_to(codehash.LIBRARY).as_posix() for p in codehash.library_files(script)}
    assert "cec2022/data/cec2022/shift_data_1.txt" in files
    assert not any(f.endswith("/.gitattributes") for f in files)  # hidden: no data
    assert not any(f.startswith("cec2022/kernels/") for f in files)  # kernels.py: no folder
    first = codehash.code_version(script)
    library = tmp_path / "lib"
    shutil.copytree(codehash.LIBRARY, library)
    shift = library / "cec2022/data/cec2022/shift_data_1.txt"
    time = shift.stat().st_mtime_ns
    shift.write_text("1" + shift.read_text()[1:])
    os.utime(shift, ns=(time, time))
    codehash.package_data.cache_clear()
    with library_at(monkeypatch, library):  # LIBRARY stays moved to the test's end
        edited = codehash.code_version(script)
        assert edited != first
        (shift.parent / ".shift_data_1.txt.swp").write_text("an editor's swap file")
        (shift.parent / "shift_data_1.txt~").write_text("a backup")
        codehash.package_data.cache_clear()
        assert codehash.code_version(script) == edited
        hip = tmp_path / "hip_job.py"
        hip.write_text("from paramid.hip import sweeps\n")  # no data folder in its closure
        assert all(p.suffix == ".py" for p in codehash.library_files(hip))
    codehash.package_data.cache_clear()
