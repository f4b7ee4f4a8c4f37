"""Which library code a script runs, and its hash: every rule's ``params.code``.

Snakemake tracks a rule's ``script:`` file but not what it imports; :func:`code_version`
hashes the closure of the script's ``paramid`` imports so that a rule reruns exactly when code
it runs changes. The workflow asks this for ~70 scripts at every start (dry runs, the report,
each cluster job), so each file is read once per process and its imports are parsed once per
file *content*: :func:`use_store` keeps the parsed imports, keyed by the SHA-256 of the file,
and each closure's version, keyed by its files' hashes, in a JSON file that survives between
invocations (the workflow's is under ``.snakemake/``). The same store remembers the hashes
of the workflow's checked input files by path, size and time (:func:`file_digest`).
Nothing here imports more than the standard library.
"""

from __future__ import annotations

import ast
import atexit
import contextlib
import functools
import hashlib
import json
import os
import time
from collections.abc import Iterable
from pathlib import Path

LIBRARY = Path(__file__).resolve().parent
# a file modified this recently [s] may change again within its timestamp's resolution
SETTLED_S = 2.0


class _Store:
    """The parsed imports: "<content SHA-256>:<module>" -> the paramid modules it imports,
    code versions: "version:<SHA-256 of the closure's paths and content hashes>" -> [version],
    and file hashes: "file:<resolved path>" -> [size, mtime_ns, ctime_ns, inode, SHA-256]
    (:func:`file_digest`);
    ``path``: the JSON file they persist in (:func:`use_store`), ``dirty``: added since."""

    imports: dict[str, list[str]] = {}
    path: Path | None = None
    dirty = False


def use_store(path: str | os.PathLike) -> None:
    """Keep parsed imports in the JSON file ``path`` across invocations: read it now (a
    missing or unreadable file is an empty store), rewrite it atomically at exit when this
    process parsed a file it did not hold. Entries are keyed by content, so a stale entry is
    never used, only left unused."""
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(Path(path).read_text())
        if isinstance(loaded, dict):
            _Store.imports.update({k: v for k, v in loaded.items() if isinstance(v, list)})
    if _Store.path is None:
        atexit.register(_save)
    _Store.path = Path(path)


def _save() -> None:
    """Write the store (atomically: a concurrent reader sees the old or the new file)."""
    store = _Store.path
    if store is None or not _Store.dirty:
        return
    from paramid.io import atomic_file  # io imports this module

    with contextlib.suppress(OSError), atomic_file(store) as tmp:
        tmp.write_text(json.dumps(_Store.imports, sort_keys=True))
        _Store.dirty = False


@functools.cache
def _read(path: Path, mtime_ns: int, size: int) -> tuple[bytes, str]:
    """The bytes of one version of a file and their SHA-256."""
    data = path.read_bytes()
    return data, hashlib.sha256(data).hexdigest()


def _contents(path: Path) -> tuple[bytes, str]:
    stat = path.stat()
    return _read(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def module_file(dotted: str) -> Path | None:
    """The file of a ``paramid`` module or package (``paramid.robot.twin`` -> robot/twin.py)."""
    parts = dotted.split(".")[1:]
    base = LIBRARY.joinpath(*parts)
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if parts and candidate.is_file():
            return candidate
    return LIBRARY / "__init__.py" if not parts else None


@functools.cache
def dotted_name(path: Path) -> str:
    rel = path.relative_to(LIBRARY).with_suffix("")
    parts = [p for p in rel.parts if p != "__init__"]
    return ".".join(["paramid", *parts])


def imported_modules(path: Path) -> frozenset[str]:
    """Every ``paramid`` module ``path`` imports (at top level or inside functions), with the
    packages whose ``__init__`` an import executes."""
    stat = path.stat()
    return _imported_modules(path, stat.st_mtime_ns, stat.st_size)


@functools.cache
def _imported_modules(path: Path, mtime_ns: int, size: int) -> frozenset[str]:
    """:func:`imported_modules` of one version of a file: from the store by content, else
    parsed."""
    data, digest = _read(path, mtime_ns, size)
    # the package of a relative import depends on where the file is, not only on its content
    key = f"{digest}:{dotted_name(path) if path.is_relative_to(LIBRARY) else ''}"
    if key not in _Store.imports:
        _Store.imports[key] = sorted(_parse_imports(data, path))
        _Store.dirty = True
    return frozenset(_Store.imports[key])


def _parse_imports(data: bytes, path: Path) -> set[str]:
    tree = ast.parse(data, filename=str(path))
    package = dotted_name(path) if path.name == "__init__.py" else ""
    if path.is_relative_to(LIBRARY) and not package:
        package = dotted_name(path).rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "paramid")
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative import inside the library
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            else:
                module = node.module or ""
            if module.split(".")[0] != "paramid":
                continue
            found.add(module)
            found.update(f"{module}.{a.name}" for a in node.names)  # submodules named directly
    closed: set[str] = set()
    for name in found:
        parts = name.split(".")
        closed.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return closed


@functools.cache
def package_data(module: Path) -> tuple[Path, ...]:
    """The data files a library module reads: those under the folder of its own name beside
    it (``cec2022/data.py`` reads ``cec2022/data/``), when that folder is no package; hidden
    files and editors' backups (``.gitattributes``, ``.x.swp``, ``x~``) are none of them."""
    folder = module.with_suffix("")
    if module.suffix != ".py" or not folder.is_dir() or (folder / "__init__.py").exists():
        return ()
    files = (
        path
        for path in folder.rglob("*")
        if path.is_file()
        and not any(
            part.startswith(".") or part == "__pycache__" for part in path.relative_to(folder).parts
        )
        and not path.name.endswith("~")
    )
    return tuple(sorted(files))


def library_files(script: str | os.PathLike, exclude: Iterable[str] = ()) -> list[Path]:
    """The paramid source files a script runs: the closure of its imports of ``paramid``
    (and the file itself when it is a library module), with each module's data files
    (:func:`package_data`: the CEC 2022 shifts and rotations are code as much as the
    functions that read them).

    ``exclude`` names modules (``paramid.optim.ggo``) left out and not followed, for a rule
    whose jobs are known to run only part of a registry (one optimiser of
    ``optim.registry.METHODS``).
    """
    skipped = set(exclude)
    start = Path(script).resolve()
    seen: set[Path] = {start} if start.is_relative_to(LIBRARY) else set()
    todo = [start]
    while todo:
        path = todo.pop()
        for name in imported_modules(path):
            file = module_file(name)
            if file is None or name in skipped or file in seen:
                continue
            seen.add(file)
            todo.append(file)
    return sorted(seen.union(*(package_data(file) for file in seen)))


def code_version(script: str | os.PathLike, exclude: Iterable[str] = ()) -> str:
    """SHA-256 (16 hex digits) of the library code a script runs (:func:`library_files`):
    each file's path relative to the library and its bytes, in path order.  Remembered in
    the store under the files' paths and content hashes (each file is hashed once per
    process anyway), so a start rehashes only the closures that changed."""
    files = [
        (path.relative_to(LIBRARY).as_posix(), path) for path in library_files(script, exclude)
    ]
    key = (
        "version:"
        + hashlib.sha256(
            "\n".join(f"{name}:{_contents(path)[1]}" for name, path in files).encode()
        ).hexdigest()
    )
    if key not in _Store.imports:
        digest = hashlib.sha256()
        for name, path in files:
            digest.update(name.encode())
            digest.update(_contents(path)[0])
        _Store.imports[key] = [digest.hexdigest()[:16]]
        _Store.dirty = True
    return _Store.imports[key][0]


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks (a long record is never held whole)."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_digest(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, remembered in the store under its path, size, modification
    and change times and inode (as git's index does), so an unchanged multi-megabyte record
    is not read at every start.  The change time and the inode are what ``cp -p``, ``rsync
    -t``, ``tar`` and ``touch -r`` cannot carry over: new content under an old size and
    time is read again.

    A file modified less than :data:`SETTLED_S` ago is hashed but not remembered: an edit
    within its timestamp's resolution could keep both size and time.
    """
    file = Path(path).resolve()
    stat = file.stat()
    known = [str(v) for v in (stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)]
    key = f"file:{file}"
    entry = _Store.imports.get(key)
    if entry is not None and entry[:4] == known:
        return entry[4]
    digest = file_sha256(file)
    if time.time() - stat.st_mtime > SETTLED_S:
        _Store.imports[key] = [*known, digest]
        _Store.dirty = True
    return digest
