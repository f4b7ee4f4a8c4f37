"""File I/O: Parquet with provenance metadata, JSON, atomic writes, and reading users' files.

Every Parquet file written here carries, under the schema metadata key ``paramid``, a JSON
object with the units of its columns, the config subset that produced it and its hash, the
SHA-256 of each input file, and the versions of paramid and its numeric stack.  Nothing in
it depends on the clock, so reruns write byte-identical files (timing columns aside, which
are listed under ``nondeterministic_columns``).

Users' files (records as CSV or Parquet, YAML configs, URDFs) are read here too, each defect
an :class:`~paramid.errors.InputError` naming the file; the library parses what was read.
pandas and pyarrow are imported where they are used: the workflow's start reads its configs
through this module.
"""

from __future__ import annotations

import atexit
import contextlib
import csv
import ctypes
import functools
import hashlib
import json
import logging
import math
import os
import re
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import numpy as np

from paramid.codehash import file_sha256
from paramid.errors import InputError, UserError

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

METADATA_KEY = b"paramid"
# the robot fits' numbers also depend on Pinocchio (pin), cvxpy and its solver Clarabel
_VERSIONED = (
    "paramid",
    "numpy",
    "scipy",
    "pandas",
    "pyarrow",
    "snakemake",
    "pin",
    "cvxpy",
    "clarabel",
)


def package_versions() -> dict[str, str]:
    """Python's version and the installed versions of paramid and the packages its numbers
    depend on (looked up once per process: a job writing several outputs asks each time)."""
    return {"python": sys.version.split()[0], **dict(_installed_versions())}


@functools.cache
def _installed_versions() -> tuple[tuple[str, str], ...]:
    versions = []
    for name in _VERSIONED:
        try:
            versions.append((name, metadata.version(name)))
        except metadata.PackageNotFoundError:
            versions.append((name, "not installed"))
    return tuple(versions)


def canonical_json(obj: Any) -> str:
    """JSON with sorted keys and no whitespace variation: the basis of config hashes."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=_jsonable)


def _jsonable(obj: Any) -> Any:
    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")


def config_hash(config_subset: Any) -> str:
    """SHA-256 of the canonical JSON of a config subset."""
    return hashlib.sha256(canonical_json(config_subset).encode()).hexdigest()


#: the running job's code version (its rule's ``params.code``: the hash of the library code
#: its script runs, :func:`paramid.codehash.code_version`), set by :func:`run_job`
_JOB: dict[str, str] = {}
#: provenance keys every Parquet file a job writes carries (:func:`write_parquet`)
PROVENANCE_KEYS = ("config_hash", "inputs", "versions", "git_commit")
_IN_JOB = False  # True inside :func:`run_job`


def remember_code_version(smk: Any) -> None:
    """Keep the job's ``params.code`` for :func:`provenance` (a rule without one: nothing)."""
    code = getattr(getattr(smk, "params", None), "code", None)
    if code:
        _JOB["code_version"] = str(code)


def provenance(
    config_subset: Any, inputs: Iterable[str | os.PathLike] = (), **extra: Any
) -> dict[str, Any]:
    """The provenance block stored with every output: the config subset and its hash, the
    SHA-256 of each input, the package versions, the git commit of the working directory and,
    in a job, the hash of the library code its script runs (``code_version``).

    Snakemake's own files among the inputs (``.snakemake/``: the settings file through which
    the config subset reruns a job, :class:`paramid.workflow.SettingsFile`) are not data and
    are left out.  Where the ``paramid`` that runs lies outside that checkout (a venv installed
    from another clone), the block also names the library's place and commit, and the job
    warns: the working directory's commit is then not the code that ran."""
    block = {
        "config": config_subset,
        "config_hash": config_hash(config_subset),
        "inputs": {str(p): file_sha256(p) for p in inputs if Path(p).parts[:1] != (".snakemake",)},
        "versions": package_versions(),
        "git_commit": git_commit(),
        **_JOB,
        **extra,
    }
    return block | foreign_library()


def foreign_library() -> dict[str, str]:
    """``library`` (the running paramid's folder) and ``library_git_commit`` when the working
    directory is a git checkout that does not hold it; ``{}`` otherwise.  Warns once."""
    if getattr(foreign_library, "found", None) is None:
        library = Path(__file__).resolve().parent
        top = _git_toplevel(Path.cwd())
        outside = top is not None and not library.is_relative_to(top)
        found = {"library": str(library), "library_git_commit": git_commit(library)}
        foreign_library.found = found if outside else {}  # type: ignore[attr-defined]
        if outside:
            logging.getLogger("paramid.provenance").warning(
                "the paramid that runs is %s (commit %s), outside this checkout %s: its "
                "results come from that code, not this checkout's; install this one "
                "(pip install -e .) or run from the other",
                library,
                found["library_git_commit"],
                top,
            )
    return dict(foreign_library.found)  # type: ignore[attr-defined]


def _git_toplevel(where: Path) -> Path | None:
    """The top folder of the git checkout holding ``where``, or None."""
    import subprocess

    try:
        out = subprocess.run(
            ["git", "--no-optional-locks", "-C", str(where), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return Path(out).resolve() if out else None


def _umask() -> int:
    """The process's umask (reading it means setting it; it is put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike) -> Iterator[Path]:
    """A temporary file beside ``path`` to write, moved onto ``path`` when the block ends
    without an error and removed otherwise: a reader (a concurrent start, a killed job's
    rerun) sees the old file or the new one, never a half-written one.  The one atomic writer
    of the package (Parquet, CSV, JSON, text, figures, the workflow's settings files and
    stores).

    ``mkstemp`` creates files 0600; the final file gets 0666 minus the umask (0644 under the
    usual umask 022), so colleagues sharing a cluster account or group can read the results.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(name)
    try:
        try:
            os.fchmod(fd, 0o666 & ~_umask())
        finally:
            os.close(fd)
        yield tmp
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)


def write_parquet(
    frame: pd.DataFrame,
    path: str | os.PathLike,
    *,
    units: Mapping[str, str],
    meta: Mapping[str, Any],
    nondeterministic_columns: Iterable[str] = (),
) -> None:
    """Write ``frame`` atomically with the ``paramid`` metadata block (units + ``meta``); in
    a job (:func:`run_job`), ``meta`` must hold the :func:`provenance` block (one output
    written without it was found by an audit)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    missing = [c for c in frame.columns if c not in units]
    if missing:
        raise ValueError(f"{path}: no unit declared for column(s) {missing}")
    if _IN_JOB and (lacking := [key for key in PROVENANCE_KEYS if key not in meta]):
        raise ValueError(f"{path}: its metadata lacks {lacking}: pass io.provenance(...)")
    block = {
        "units": {c: units[c] for c in frame.columns},
        "nondeterministic_columns": sorted(nondeterministic_columns),
        **meta,
    }
    table = pa.Table.from_pandas(frame, preserve_index=False)
    schema_meta = dict(table.schema.metadata or {})
    schema_meta[METADATA_KEY] = canonical_json(block).encode()
    table = table.replace_schema_metadata(schema_meta)
    with atomic_file(path) as tmp:
        pq.write_table(table, tmp)


class UnreadableFile(UserError):
    """An intermediate that cannot be read (truncated, corrupt): named, with how to rebuild it."""


def read_parquet(path: str | os.PathLike) -> tuple[pd.DataFrame, dict[str, Any]]:
    """Read a Parquet file written by :func:`write_parquet`: the frame and its metadata block.

    A truncated or corrupt file raises :class:`UnreadableFile` naming it and the command that
    rebuilds it (a missing one raises FileNotFoundError as usual).
    """
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as err:
        raise _unreadable(path, err) from None
    raw = (table.schema.metadata or {}).get(METADATA_KEY)
    meta = json.loads(raw) if raw else {}
    return table.to_pandas(), meta


def read_parquet_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The ``paramid`` metadata block of a Parquet file, without reading its data; an
    unreadable file raises as in :func:`read_parquet` (it read as empty: a stage's warnings
    were left out of a table without a word, a missing unit was a KeyError)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_schema(path).metadata or {}).get(METADATA_KEY)
    except (pa.ArrowException, OSError) as err:
        raise _unreadable(path, err) from None
    return json.loads(raw) if raw else {}


def _unreadable(path: str | os.PathLike, err: Exception, kind: str = "Parquet") -> Exception:
    """What reading output ``path`` (a ``kind`` file) raises for ``err``: a missing file's own
    error, else :class:`UnreadableFile` naming the file and the command that rebuilds it."""
    if not Path(path).exists():
        return err
    return UnreadableFile(
        f"{path}: unreadable {kind} ({err}); rebuild it with "
        f"`snakemake --force {path}` (or delete it and rerun)"
    )


def data_hash(path: str | os.PathLike) -> str:
    """SHA-256 of a Parquet file's data, leaving out columns marked nondeterministic (timings)."""
    return frame_hash(*read_parquet(path))


def frame_hash(frame: pd.DataFrame, meta: Mapping[str, Any]) -> str:
    """:func:`data_hash` of a frame read with its metadata block."""
    import pandas as pd

    frame = frame.drop(columns=meta.get("nondeterministic_columns", []))
    digest = hashlib.sha256(canonical_json(list(frame.columns)).encode())
    digest.update(pd.util.hash_pandas_object(frame, index=False).to_numpy().tobytes())
    return digest.hexdigest()


def _finite_or_null(obj: Any) -> Any:
    """``obj`` with every NaN and ±inf float made None (JSON has neither: Python's
    ``Infinity`` and ``NaN`` tokens stop other readers' parsers)."""
    obj = _jsonable(obj) if isinstance(obj, np.ndarray | np.generic | Path) else obj
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, Mapping):
        return {key: _finite_or_null(value) for key, value in obj.items()}
    if isinstance(obj, list | tuple):
        return [_finite_or_null(value) for value in obj]
    return obj


def write_json(obj: Any, path: str | os.PathLike) -> None:
    """Write JSON atomically, keys sorted, indented for people; a NaN or an infinite value (a
    limit the URDF does not give) is written null."""
    text = json.dumps(
        _finite_or_null(obj), sort_keys=True, indent=2, default=_jsonable, allow_nan=False
    )
    with atomic_file(path) as tmp:
        tmp.write_text(text + "\n")


def read_json(path: str | os.PathLike) -> Any:
    """Read a JSON output; a truncated or corrupt one raises :class:`UnreadableFile` naming it
    and the command that rebuilds it."""
    try:
        return json.loads(read_text(path))
    except json.JSONDecodeError as err:
        raise _unreadable(path, err, "JSON") from None


def read_text(path: str | os.PathLike) -> str:
    """Read a text output (UTF-8, as :func:`write_text` writes it); bytes that are no UTF-8
    (a corrupt or overwritten file) raise :class:`UnreadableFile` naming it."""
    try:
        return Path(path).read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise _unreadable(path, err, "UTF-8 text") from None


def write_text(text: str, path: str | os.PathLike) -> None:
    """Write a text file atomically, in UTF-8 whatever the locale (an exported URDF declares
    XML's default encoding, and its notes hold non-ASCII signs)."""
    with atomic_file(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def write_csv(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write a CSV atomically, floats to 10 significant digits (the tables people read; the
    Parquet intermediates keep every bit)."""
    write_text(frame.to_csv(index=False, float_format="%.10g"), path)


class _JobLogHandler(logging.FileHandler):
    """The handler :func:`start_log` puts on the root logger (told apart from others')."""


class _JobWarningHandler(logging.StreamHandler):
    """The stderr handler :func:`start_log` puts on the job's and the library's loggers; a
    record logged with ``extra={"file_only": True}`` goes to the log file alone (a
    :class:`UserError`'s message, which :func:`_log_uncaught` prints once itself)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not getattr(record, "file_only", False) and bool(super().filter(record))


LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def start_log(path: str | os.PathLike, name: str) -> logging.Logger:
    """Send everything a job reports to its rule's ``log:`` file (overwritten on each run), and
    its own and the library's warnings to stderr too (the terminal of a local run).

    The file handler sits on the root logger, so the progress lines of library modules
    (``logging.getLogger(__name__)``), Python warnings (``logging.captureWarnings``) and an
    uncaught exception's traceback (``sys.excepthook``) land in the log with time stamps. The
    traceback is still printed to stderr and the job still exits non-zero, so Snakemake
    reports the failure as before. Returns the logger ``name`` for the script's own lines.
    """
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger()
    for old in [h for h in root.handlers if isinstance(h, _JobLogHandler)]:
        root.removeHandler(old)
        old.close()
    handler = _JobLogHandler(path, mode="w")
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    for logger in (logging.getLogger(name), logging.getLogger("paramid")):
        for stale in [h for h in logger.handlers if isinstance(h, _JobWarningHandler)]:
            logger.removeHandler(stale)
        terminal = _JobWarningHandler(sys.stderr)
        terminal.setLevel(logging.WARNING)
        terminal.setFormatter(logging.Formatter(f"paramid {name}: %(levelname)s %(message)s"))
        logger.addHandler(terminal)
    logging.captureWarnings(True)
    sys.excepthook = _log_uncaught
    if not getattr(start_log, "cpu_registered", False):
        atexit.register(_log_cpu, name)
        pin_malloc_thresholds()
        start_log.cpu_registered = True  # type: ignore[attr-defined]
    return logging.getLogger(name)


#: glibc's ``mallopt`` parameters and the values a job pins them to: the ceiling glibc's own
#: dynamic rule reaches (mmap threshold 32 MiB on 64-bit, trim threshold twice that).
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3
MALLOC_MMAP_THRESHOLD = 32 * 2**20
MALLOC_TRIM_THRESHOLD = 2 * MALLOC_MMAP_THRESHOLD


def pin_malloc_thresholds() -> bool:
    """Pin glibc's malloc thresholds at the ceiling its dynamic rule would reach by itself;
    True where they were set (glibc), False elsewhere (nothing changes there).

    glibc starts at 128 KiB and raises the thresholds only when a block it mapped is freed;
    until then a job that allocates and frees the same medium-sized arrays every iteration
    hands the top of its heap back to the kernel and faults it in again each time. Measured
    with the defaults: the KR210 UKF spent 3.3 of its 6.9 s CPU in the kernel, the
    nonlinear-friction tables 0.8-1.1 of 4.6-6.0 s; pinned, 0.1 s each. Only where arrays are
    placed changes, not what is computed; freed memory up to 64 MiB stays with the process.
    """
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the interpreter runs on
    except (OSError, AttributeError, TypeError):  # no mallopt (macOS), no dlopen(NULL)
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(
        mallopt(_M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD)
        and mallopt(_M_TRIM_THRESHOLD, MALLOC_TRIM_THRESHOLD)
    )


def run_job(main: Callable[[Any], object], smk: Any) -> NoReturn:
    """Run a script's ``main(snakemake)`` and end the job's process without tearing the
    interpreter down.

    On success the exit handlers run as at a normal exit (``atexit._run_exitfuncs``, what
    CPython itself calls: the job's CPU line, logging's flush of the log file), the standard
    streams are flushed, and ``os._exit(0)`` skips
    freeing every module and object: 0.1-0.3 s of CPU per job once pandas, pyarrow, scipy
    or matplotlib are loaded, which no output needs (every file a job writes is closed by
    then: this module writes atomically). A failure propagates as before: the traceback in
    the log, a non-zero exit.
    """
    global _IN_JOB
    remember_code_version(smk)
    _IN_JOB = True
    main(smk)
    atexit._run_exitfuncs()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _log_cpu(rule: str) -> None:
    """The job's CPU time (user + system of the whole process, Python's start and imports
    included) as its log's last line, ``<rule> CPU <seconds> s``: ``perf/speed.py`` sums
    these lines, which, unlike Snakemake's sampled benchmark ``cpu_time``, miss nothing at
    the job's end."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    cpu = usage.ru_utime + usage.ru_stime
    logging.getLogger("paramid.job").info("%s CPU %.3f s", rule, cpu)


def _log_uncaught(kind: type[BaseException], error: BaseException, trace: Any) -> None:
    """``sys.excepthook`` of a job: the traceback into the log, then Python's default hook; a
    :class:`UserError` is its message alone, in the log and on stderr."""
    if issubclass(kind, UserError):
        logging.getLogger("paramid.job").error("%s", error, extra={"file_only": True})
        print(f"paramid: {error}", file=sys.stderr)
        return
    if not issubclass(kind, KeyboardInterrupt):
        logging.getLogger("paramid.job").critical(
            "job failed with an uncaught exception", exc_info=(kind, error, trace)
        )
    sys.__excepthook__(kind, error, trace)


def read_regression(
    path: str | os.PathLike, regressor: Iterable[str]
) -> tuple[np.ndarray, np.ndarray, pd.DataFrame]:
    """Regressor H (columns ``H_<key>`` in regressor order), measured torque and the frame."""
    frame, _ = read_parquet(path)
    columns = [f"H_{key}" for key in regressor]
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(f"{path}: missing regressor column(s) {missing}")
    return frame[columns].to_numpy(dtype=np.float64), frame["torque"].to_numpy(np.float64), frame


def save_figure(
    fig: Figure, png: str | os.PathLike, pdf: str | os.PathLike, dpi: int = 200
) -> None:
    """Save a figure as PNG and PDF without time stamps (reruns give identical bytes).

    The layout engine (constrained layout) runs once, for the PNG; the PDF keeps those axes
    positions (figure fractions, independent of the resolution) instead of measuring every
    tick label again.
    """
    engine = fig.get_layout_engine()
    try:
        for path, meta in (
            (png, {"Software": None}),
            (pdf, {"CreationDate": None, "Producer": None}),
        ):
            with atomic_file(path) as tmp:
                fig.savefig(tmp, format=Path(path).suffix[1:], dpi=dpi, metadata=meta)
            fig.set_layout_engine("none")
    finally:
        fig.set_layout_engine(engine)


def git_commit(path: str | os.PathLike = ".") -> str:
    """Commit of the git checkout that contains ``path``: ``git rev-parse HEAD``.

    ``-dirty`` is appended when tracked files differ from that commit (as ``git describe
    --dirty`` does; untracked and ignored files such as ``results/`` do not count, so a run
    never changes the answer for its own later jobs). ``"unknown"`` outside a git checkout
    or without git. Reads only: no index refresh, no lock taken.
    """
    import subprocess  # local: only this helper runs external commands

    where = Path(path)
    where = where if where.is_dir() else where.parent

    def git(*args: str) -> str:
        return subprocess.run(
            ["git", "--no-optional-locks", "-C", str(where), *args],
            capture_output=True,
            text=True,
            check=True,
            timeout=60,
        ).stdout.strip()

    try:
        head = git("rev-parse", "--verify", "HEAD")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head}-dirty" if dirty else head


def markdown_table(frame: pd.DataFrame, digits: int = 4, caption: str = "") -> str:
    """A GitHub-flavoured Markdown table; NaN (and a nullable integer's NA) prints as "–" like
    the paper, a "|" in a cell as "\\|" (else it would end the cell)."""
    import pandas as pd

    def cell(v: object) -> str:
        if v is pd.NA:  # a missing count of an integer (Int64) column
            return "–"
        if isinstance(v, float | np.floating):
            if np.isnan(v):
                return "–"
            if v != 0 and not 1e-3 <= abs(v) < 1e6:
                return f"{v:.{max(digits - 1, 1)}e}"
            return f"{v:.{digits}f}"
        return str(v).replace("|", "\\|")

    header = "| " + " | ".join(frame.columns) + " |"
    rule = "|" + "|".join("---" for _ in frame.columns) + "|"
    body = ["| " + " | ".join(cell(v) for v in row) + " |" for row in frame.itertuples(index=False)]
    lines = ([caption, ""] if caption else []) + [header, rule, *body]
    return "\n".join(lines) + "\n"


def write_markdown(
    frame: pd.DataFrame, path: str | os.PathLike, *, caption: str = "", digits: int = 4
) -> None:
    """Write ``frame`` as a Markdown table (:func:`markdown_table`) atomically."""
    write_text(markdown_table(frame, digits=digits, caption=caption), path)


def write_table(
    frame: pd.DataFrame, csv: str | os.PathLike, md: str | os.PathLike, caption: str
) -> str:
    """Write ``frame`` as ``csv`` and as the Markdown table ``md`` under ``caption`` (a claims
    audit's two files, :func:`paramid.audit.audit_caption`); returns the caption."""
    write_csv(frame, csv)
    write_markdown(frame, md, caption=caption)
    return caption


# ---- users' files: records, configs, models -------------------------------------------------


@dataclass(frozen=True)
class CsvFormat:
    """How a record's CSV file is written (the record's config keys of the same names):
    the line of its column names (1-based; a logger's title or comment lines above it are
    skipped), the field separator, the decimal mark and the text encoding."""

    header_line: int = 1
    separator: str = ","
    decimal: str = "."
    encoding: str = "utf-8"

    @classmethod
    def of(cls, spec: Mapping[str, Any]) -> CsvFormat:
        """The format a record's config gives (the schema fills the defaults)."""
        return cls(**{k: spec[k] for k in ("header_line", "separator", "decimal", "encoding")})

    def text_encoding(self) -> str:
        """The encoding text is read in: UTF-8 without its byte-order mark, which is no part of
        the first column's name."""
        utf8 = self.encoding.lower().replace("_", "-") in ("utf-8", "utf8")
        return "utf-8-sig" if utf8 else self.encoding


@dataclass(frozen=True)
class FileLines:
    """Where a table's data rows lie in its file: below the header on ``header_line`` of a
    text file whose blank lines the reader skipped (counted, from ``path`` as ``fmt`` reads it,
    only when a row is named), or the rows of a Parquet file (``text`` False), which has no
    lines.  :func:`read_table` keeps it in the frame's ``attrs["lines"]`` as plain values
    (:meth:`as_attrs`: a frame's attrs go into the Parquet file it is saved as)."""

    header_line: int = 1
    path: Path | None = None  # a CSV file's, for its blank lines; None: a frame made otherwise
    fmt: CsvFormat = CsvFormat()
    text: bool = True
    units_row: bool = False  # a row of units right below the header, not a data row

    def as_attrs(self) -> dict[str, Any]:
        """Plain values (JSON: a frame's ``attrs`` go into the Parquet file it is saved as)."""
        return {
            "header_line": self.header_line,
            "path": None if self.path is None else str(self.path),
            "csv_format": asdict(self.fmt),
            "text": self.text,
            "units_row": self.units_row,
        }

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any]) -> FileLines:
        """The inverse of :meth:`as_attrs`."""
        path = attrs["path"]
        return cls(
            attrs["header_line"],
            None if path is None else Path(path),
            CsvFormat(**attrs["csv_format"]),
            attrs["text"],
            attrs.get("units_row", False),
        )

    def line_of(self, row: int) -> int | None:
        """The file line (1-based) of data row ``row`` (0-based); None for a Parquet file.
        Rows are counted as the reader splits them: a quoted field's line break stays within
        its row, and lines of spaces and tabs only (no separator) are no rows (pandas skips
        them)."""
        if not self.text:
            return None
        row += self.units_row
        if self.path is None:
            return row + 1 + self.header_line
        encoding = self.fmt.text_encoding()
        with self.path.open(encoding=encoding, errors="replace", newline="") as handle:
            for _ in range(self.header_line - 1):
                handle.readline()
            ended = self.header_line - 1  # the last line read
            counted = -2  # the header (the first record not blank from header_line on), then rows
            reader = csv.reader(handle, delimiter=self.fmt.separator)
            for fields in reader:  # line_num: the lines read so far, a record's last
                start, ended = ended + 1, self.header_line - 1 + reader.line_num
                if _is_row(fields):
                    counted += 1
                    if counted == row:
                        return start
        return row + 1 + self.header_line  # the file changed since it was read


def _is_row(fields: Sequence[str]) -> bool:
    """Whether a CSV record (as :mod:`csv` splits it) is a row for the reader: a line of spaces
    and tabs only (no separator) is none, pandas skips it; a line of separators is one."""
    return len(fields) > 1 or bool(fields and fields[0].strip(" \t"))


#: suffixes read as delimited text (by the record's ``separator``: a .tsv file's tabs too)
CSV_SUFFIXES = (".csv", ".txt", ".tsv")
#: how files that are no text begin (patterns of their first bytes, each with a byte no text
#: table starts with), and what they are: a CSV's name on one got the advice to set a text
#: encoding
BINARY_SIGNATURES = {
    rb"\x1f\x8b": "a gzip archive: gunzip -c {name} > plain.csv",
    rb"PK\x03\x04": "a zip archive (or a spreadsheet saved as .xlsx): unpack it, or export CSV",
    rb"BZh[1-9]1AY&SY": "a bzip2 archive: bunzip2 -c {name} > plain.csv",
    rb"\xfd7zXZ\x00": "an xz archive: xz -dc {name} > plain.csv",
    rb"\x28\xb5\x2f\xfd": "a zstd archive: zstd -dc {name} > plain.csv",
    rb"\xd0\xcf\x11\xe0": "an old Excel workbook (.xls): export CSV",
}


def _binary_kind(path: Path) -> str | None:
    """What a file named as a text table is when it is an archive, a workbook or a Parquet
    file (which begins and ends with PAR1: a text file can begin with it), else None."""
    with path.open("rb") as handle:
        start = handle.read(16)
        handle.seek(max(path.stat().st_size - 4, 0))
        end = handle.read(4)
    for pattern, what in BINARY_SIGNATURES.items():
        if re.match(pattern, start, re.DOTALL):
            return what.format(name=path.name)
    if start.startswith(b"PAR1") and end == b"PAR1":
        return "a Parquet file: give it a .parquet name"
    return None


def read_record(spec: Mapping[str, Any]) -> pd.DataFrame:
    """:func:`read_table` of a record as its config gives it (``path`` and :class:`CsvFormat`),
    with the columns its ``negate`` list names read with their sign inverted (a torque or an
    angle measured the other way round) and those its ``scale`` mapping names read times their
    factor (a motor current times its torque constant, a slide's mm times 0.001; kept in
    ``attrs["scale"]`` for the units row's check); the file stays as the logger wrote it.
    A cell that holds no number is kept as written, for the record's checks to name."""
    import pandas as pd

    frame = read_table(spec["path"], CsvFormat.of(spec), units_row=True)
    negate = list(spec.get("negate") or [])
    scale = dict(spec.get("scale") or {})
    for setting, named in (("negate", negate), ("scale", list(scale))):
        if missing := [c for c in named if c not in frame.columns]:
            raise InputError(
                f"{spec['path']}: {setting} names column(s) {missing} the file does not have; it "
                f"has {list(frame.columns)}"
            )
        for column in named:
            if frame[column].dtype.kind not in "iufO":  # times, durations, booleans
                raise InputError(
                    f"{spec['path']}: {setting} names column {column!r}, which holds "
                    f"{frame[column].dtype} values, not numbers"
                )
    factors = {column: -1.0 for column in negate}
    for column, factor in scale.items():
        factors[column] = factors.get(column, 1.0) * float(factor)
    for column, factor in factors.items():
        numbers = pd.to_numeric(frame[column], errors="coerce")
        frame[column] = (factor * numbers).where(numbers.notna(), frame[column])
    frame.attrs["scale"] = {column: float(factor) for column, factor in scale.items()}
    return frame


def read_table(
    path: str | Path, fmt: CsvFormat = CsvFormat(), *, units_row: bool = False
) -> pd.DataFrame:
    """Read a CSV or Parquet file, naming the file in every error.  A CSV is read as ``fmt``
    says; the frame keeps where its rows lie in the file in ``attrs["lines"]``
    (:class:`FileLines`), so that an error names a data row's file line
    (:func:`paramid.ingest.data_row`).  With ``units_row`` (a record, whose reader checks it:
    :func:`paramid.ingest.check_file_units`) a logger's units row right below the header is
    read into ``attrs["file_units"]`` (:func:`_units_row`), not as data."""
    import codecs

    import pandas as pd

    path = check_file(path)
    if path.stat().st_size == 0:
        raise InputError(f"{path}: file is empty")
    suffix = path.suffix.lower()
    csv_file = suffix in CSV_SUFFIXES
    if csv_file and (kind := _binary_kind(path)):
        raise InputError(f"{path}: not a text table but {kind}")
    if not csv_file and fmt != CsvFormat():
        given = ", ".join(
            f"{name} = {value!r}"
            for name, value in vars(fmt).items()
            if value != getattr(CsvFormat(), name)
        )
        raise InputError(f"{path}: {given} is for CSV files; leave it unset")
    if fmt.separator == fmt.decimal:
        layout = _sniffed_layout(path, fmt) if csv_file and path.is_file() else None
        raise InputError(
            f"{path}: separator and decimal are both {fmt.separator!r}: a spreadsheet that "
            'writes decimal commas separates its fields by ";"'
            + ("" if layout is None else _layout_hint(fmt, layout))
        )
    try:
        codecs.lookup(fmt.encoding)
    except LookupError:
        raise InputError(
            f"{path}: unknown encoding {fmt.encoding!r} (e.g. utf-8, latin-1)"
        ) from None
    units: dict[str, str] = {}  # a CSV's units row (_units_row)
    try:
        if suffix in (".parquet", ".pq"):
            try:
                frame = pd.read_parquet(path)
            except ValueError as err:  # pyarrow's ArrowInvalid: a CSV renamed, a cut file
                raise InputError(
                    f"{path}: not a readable Parquet file ({str(err).strip()}): a CSV needs a "
                    ".csv name, a copy cut short must be written again"
                ) from None
            frame.attrs.pop("file_units", None)  # a CSV's, carried by a frame saved from it
        elif csv_file:
            # the first rows tell a units row (the whole file with one would be read as text)
            if units_row and (units := _units_row(_read_csv(path, fmt, rows=2), fmt)):
                frame = _read_csv(path, fmt, _first_row_below_header(path, fmt))
                frame.attrs["file_units"] = units
            else:
                frame = _read_csv(path, fmt)
        else:
            raise InputError(
                f"{path}: unknown file type {path.suffix!r} (use .csv, .tsv or .parquet)"
            )
    except UnicodeError as err:  # UnicodeDecodeError, or a UTF-16 stream without its BOM
        raise InputError(
            f"{path}: cannot be read as {fmt.encoding} text{_undecodable_line(path, fmt)}: "
            "set encoding: latin-1 (or the one the logger writes) in the record's config, or "
            "save the file as UTF-8"
        ) from err
    except (
        pd.errors.ParserError,
        pd.errors.ParserWarning,
        pd.errors.EmptyDataError,
        OSError,
    ) as err:
        said = str(err).strip().rstrip(".")
        if isinstance(err, pd.errors.EmptyDataError) and fmt.header_line > 1:
            with path.open(encoding=fmt.text_encoding(), errors="replace") as handle:
                length = sum(1 for _ in handle)  # universal newlines: a CR-only file's too
            if length < fmt.header_line:
                raise InputError(
                    f"{path}: header_line = {fmt.header_line}, but the file has {length} "
                    f"line{'s' if length != 1 else ''}: header_line counts from 1 (the file's "
                    "first line) to the line of the column names"
                ) from None
        if hint := _reading_hint(path, fmt):  # what to set first, the reader's words after
            raise InputError(f"{path}: cannot be read as a table{hint} (read: {said})") from err
        raise InputError(f"{path}: cannot be read as a table: {said}") from err
    if frame.empty:
        below = f" below header_line = {fmt.header_line}" if fmt.header_line > 1 else ""
        raise InputError(f"{path}: file has a header but no data rows{below}")
    if csv_file:
        if frame.shape[1] == 1 and (hint := _reading_hint(path, fmt)):
            raise InputError(f"{path}: one column only{hint}")
        _header_of_names(path, fmt)
        _unique_header(path, fmt)
        _misread_header(path, fmt, [str(column) for column in frame.columns])
    lines = FileLines(fmt.header_line, path, fmt, text=csv_file, units_row=bool(units))
    frame.attrs["lines"] = lines.as_attrs()
    frame.attrs.pop(CUT_LAST_FIELD, None)  # a CSV's, carried by a frame saved from it
    if csv_file and (cut := _cut_last_field(path, fmt, frame.shape[1])) is not None:
        frame.attrs[CUT_LAST_FIELD] = cut
    return frame


#: ``attrs`` key of a frame whose file's last line is cut short (:func:`_cut_last_field`)
CUT_LAST_FIELD = "cut_last_field"
#: bytes read from a file's end for its last line
TAIL_BYTES = 1 << 16


def _cut_last_field(path: Path, fmt: CsvFormat, columns: int) -> int | None:
    """The column (0-based) of the last field of the file's last line where that line ends
    without a line break and holds fewer fields than the header's ``columns``: a logger stopped
    while writing it, so its last field may be cut inside a number (``1.1`` of ``1.13178``),
    which reads as a number; None otherwise (a UTF-16 or UTF-32 file is not looked at)."""
    import codecs

    if codecs.lookup(fmt.text_encoding()).name.startswith(("utf-16", "utf-32")):
        return None
    with path.open("rb") as handle:
        handle.seek(max(0, path.stat().st_size - TAIL_BYTES))
        tail = handle.read()
    if tail.endswith((b"\n", b"\r")):
        return None
    last = tail.replace(b"\r", b"\n").rsplit(b"\n", 1)[-1].decode(fmt.encoding, "replace")
    if not last.strip():
        return None
    fields = next(csv.reader([last], delimiter=fmt.separator))
    return len(fields) - 1 if len(fields) < columns else None


def _read_csv(
    path: Path, fmt: CsvFormat, units_row: int | None = None, rows: int | None = None
) -> pd.DataFrame:
    """The CSV file as ``fmt`` says (its first ``rows`` data rows if given), without the lines
    above its header, nor its row ``units_row`` (0-based, as the parser counts rows:
    :func:`_first_row_below_header`) if given."""
    import pandas as pd

    skipped = list(range(fmt.header_line - 1)) + ([] if units_row is None else [units_row])
    # index_col=False: rows ending in a comma must not shift the columns onto an index;
    # rows with more fields than the header (pandas would drop them, warning) are an error
    with warnings.catch_warnings():
        warnings.simplefilter("error", pd.errors.ParserWarning)
        return pd.read_csv(
            path,
            index_col=False,
            skiprows=skipped,
            nrows=rows,
            sep=fmt.separator,
            decimal=fmt.decimal,
            encoding=fmt.text_encoding(),
        )


def _first_row_below_header(path: Path, fmt: CsvFormat) -> int:
    """The row below the header that is not blank, as pandas' ``skiprows`` counts rows (0-based,
    from the file's start: a blank line is a row, a quoted field's line break stays within
    its row)."""
    with path.open(encoding=fmt.text_encoding(), errors="replace", newline="") as handle:
        for _ in range(fmt.header_line - 1):
            handle.readline()
        rows = csv.reader(handle, delimiter=fmt.separator)
        filled = (k for k, fields in enumerate(rows) if _is_row(fields))
        next(filled)  # the header
        return fmt.header_line - 1 + next(filled)


#: units as files spell them (lower case, "per"/"^-1" as "/", without spaces, brackets, dots,
#: dashes) -> the names the records' ``units`` settings use
#: (:data:`paramid.ingest.UNIT_FACTORS`); m, m/s and N are a prismatic joint's position,
#: velocity and force; the others (min, mm, A, ...) are units no setting reads, named so that a
#: column in them is refused rather than read as another
UNIT_SPELLINGS = {
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), "s"),
    **dict.fromkeys(("ms", "msec", "millisecond", "milliseconds"), "ms"),
    **dict.fromkeys(("us", "usec", "microsecond", "microseconds"), "us"),
    **dict.fromkeys(("ns", "nsec", "nanosecond", "nanoseconds"), "ns"),
    **dict.fromkeys(("min", "mins", "minute", "minutes"), "min"),
    **dict.fromkeys(("h", "hr", "hour", "hours"), "h"),
    **dict.fromkeys(("rad", "radian", "radians"), "rad"),
    **dict.fromkeys(("deg", "degree", "degrees"), "deg"),
    **dict.fromkeys(("rad/s", "radian/s", "radians/s"), "rad/s"),
    **dict.fromkeys(("deg/s", "degree/s", "degrees/s"), "deg/s"),
    **dict.fromkeys(("rpm", "rev/min"), "rpm"),
    **dict.fromkeys(("nm", "newtonmeter", "newtonmetre", "newtonmeters", "newtonmetres"), "N m"),
    **dict.fromkeys(("nmm", "newtonmillimeter", "newtonmillimetre"), "N mm"),
    **dict.fromkeys(("mnm", "millinewtonmeter", "millinewtonmetre"), "mN m"),
    **dict.fromkeys(("knm", "kilonewtonmeter", "kilonewtonmetre"), "kN m"),
    **dict.fromkeys(("a", "amp", "amps", "ampere", "amperes"), "A"),
    **dict.fromkeys(("ma", "milliamp", "milliamps", "milliampere", "milliamperes"), "mA"),
    **dict.fromkeys(("m", "meter", "metre", "meters", "metres"), "m"),
    **dict.fromkeys(("mm", "millimeter", "millimetre", "millimeters", "millimetres"), "mm"),
    **dict.fromkeys(("m/s", "meter/s", "metre/s", "meters/s", "metres/s"), "m/s"),
    "mm/s": "mm/s",
    **dict.fromkeys(("n", "newton", "newtons"), "N"),
}


def unit_spelled(text: str) -> str | None:
    """The unit a file's units-row field names (:data:`UNIT_SPELLINGS`: "[Nm]", "N·m", "N⋅m",
    "°/s", "rad s^-1", "degrees per second"), or None for one it does not know."""
    import re

    key = text.lower().replace("°", "deg").replace("µ", "u").replace("μ", "u")
    key = re.sub(r"[·⋅*.]", " ", key.replace("⁻¹", "^-1"))
    key = re.sub(r"\s*(?:/|\bper\b)\s*(?:s|sec|second)\b|\s+s\s*\^\s*-\s*1\b", "/s", key)
    key = re.sub(r"\s*(?:/|\bper\b)\s*(?:min|minute)\b", "/min", key)
    return UNIT_SPELLINGS.get(re.sub(r"[\s\[\](){}\-_]", "", key))


def _units_row(frame: pd.DataFrame, fmt: CsvFormat) -> dict[str, str]:
    """A logger's row of units right below the header (``s, deg, N m``), column -> its text:
    a first data row without a number, with at least one field that names a unit
    (:func:`unit_spelled`; a row of descriptions is no units row); {} if there is none."""
    if len(frame) < 2:
        return {}
    texts = {}
    for column, value in frame.iloc[0].items():
        if not isinstance(value, str):
            if value == value and value is not None:  # a number (NaN: an empty field)
                return {}
            continue
        try:
            float(value.replace(fmt.decimal, "."))
            return {}
        except ValueError:
            if value.strip():
                texts[str(column)] = value.strip()
    if not any(unit_spelled(text) for text in texts.values()):
        return {}
    return texts


UNDECODABLE_PIECE = 1 << 20  # bytes decoded at a time where a file is not text in its encoding


def _undecodable_line(path: Path, fmt: CsvFormat) -> str:
    """Where a file stops being text in ``fmt``'s encoding: `` (line N: why)`` of its first
    such line, or `` (at its end: ...)`` for a character cut short; "" for an encoding of
    several bytes per character (UTF-16, UTF-32: its lines are no byte lines) or where each
    line decodes (the reader refused the whole)."""
    import codecs

    name = codecs.lookup(fmt.encoding).name
    if name.startswith(("utf-16", "utf-32")):
        return ""
    decoder = codecs.getincrementaldecoder(fmt.text_encoding())()
    number = 1
    with path.open("rb") as handle:  # in pieces of a line: a binary file may have no newline
        for piece in iter(functools.partial(handle.readline, UNDECODABLE_PIECE), b""):
            try:
                decoder.decode(piece)
            except UnicodeError as err:
                return f" (line {number}: {getattr(err, 'reason', err)})"
            number += piece.endswith(b"\n")
    try:
        decoder.decode(b"", final=True)
    except UnicodeError as err:
        return f" (at its end: {getattr(err, 'reason', err)})"
    return ""


def _csv_lines(path: Path, fmt: CsvFormat, count: int) -> list[list[str]]:
    """Up to ``count`` CSV rows of ``path`` from its header line on."""
    import csv
    import itertools

    with path.open(newline="", encoding=fmt.text_encoding()) as handle:
        lines = itertools.islice(handle, fmt.header_line - 1, None)
        return list(itertools.islice(csv.reader(lines, delimiter=fmt.separator), count))


def _header_text(path: Path, fmt: CsvFormat) -> str:
    """The header line of a text file, as written ("" where unreadable)."""
    import itertools

    try:
        with path.open(newline="", encoding=fmt.text_encoding()) as handle:
            return next(itertools.islice(handle, fmt.header_line - 1, None), "")
    except (OSError, UnicodeDecodeError):
        return ""


# lines of a CSV file searched for its header, and data rows below it that must agree
SNIFF_LINES = 50
SNIFF_ROWS = 3
SEPARATOR_NAMES = {",": "commas", ";": "semicolons", "\t": "tabs"}


def _reading_hint(path: Path, fmt: CsvFormat) -> str:
    """The settings that read a CSV file the parser refused (or read as one column): the
    separator (:func:`_separator_hint`), the header line (:func:`_lines_above_header`) or, where
    the file needs both, every setting of the layout :func:`_sniffed_layout` finds.  A header
    line's separator is named only where the rows below agree with it: a logger's title line
    ``# rig 2, run 1`` above a semicolon file is no comma-separated header."""
    layout = _sniffed_layout(path, fmt)
    if layout is None:
        return _separator_hint(path, fmt) or _lines_above_header(path, fmt)
    if layout.separator == fmt.separator:
        below = layout.header_line > fmt.header_line  # not a title above the line set
        return _lines_above_header(path, fmt) or (_layout_hint(fmt, layout) if below else "")
    if layout.header_line == fmt.header_line:
        return _separator_hint(path, fmt) or _layout_hint(fmt, layout)
    return _layout_hint(fmt, layout)


def _sniffed_layout(path: Path, fmt: CsvFormat) -> CsvFormat | None:
    """``fmt`` where its header line stands over rows of data (:func:`_reads_as_configured`),
    else the first layout (separator, decimal mark, header line) under which one of the file's
    first :data:`SNIFF_LINES` lines reads as a header of names over data
    (:func:`_header_over_data`); None where none does (a header of numbered columns, rows
    mostly of text)."""
    rows = _rows_by_separator(path, fmt, max(SNIFF_LINES, fmt.header_line + 2 + SNIFF_ROWS))
    if rows is None:
        return None
    if _reads_as_configured(rows[fmt.separator], fmt.header_line - 1, fmt.decimal):
        return fmt
    for separator, lines in rows.items():
        decimals = ["."] if separator == "," else list(dict.fromkeys((fmt.decimal, ".", ",")))
        for decimal in decimals:
            for k in range(min(len(lines), SNIFF_LINES)):
                if _header_over_data(lines, k, decimal):
                    return replace(fmt, separator=separator, decimal=decimal, header_line=k + 1)
    return None


def _rows_by_separator(path: Path, fmt: CsvFormat, count: int) -> dict[str, list[list[str]]] | None:
    """The file's first ``count`` lines as CSV rows under ``fmt``'s separator and each other of
    :data:`SEPARATOR_NAMES` (``fmt``'s first); None where they cannot be read."""
    try:
        return {
            separator: _csv_lines(path, replace(fmt, separator=separator, header_line=1), count)
            for separator in dict.fromkeys((fmt.separator, *SEPARATOR_NAMES))
        }
    except (OSError, UnicodeDecodeError, csv.Error):
        return None


def _mostly_numbers(row: list[str], number: Callable[[str], bool]) -> bool:
    """Whether more than half of a row's fields are numbers (by ``number``)."""
    return 2 * sum(map(number, row)) > len(row)


def _reads_as_configured(rows: list[list[str]], k: int, decimal: str) -> bool:
    """Whether the configured header line ``rows[k]`` (two fields or more, whatever they hold:
    ``#time``, a column named ``1``) stands over :data:`SNIFF_ROWS` rows, among the next few,
    of two fields or more but not more than it has (a last column mostly empty), most of them
    numbers written with ``decimal``."""
    if k >= len(rows) or len(rows[k]) < 2:
        return False
    number = _number_reader(decimal)
    below = rows[k + 1 : k + 3 + SNIFF_ROWS]
    data = [2 <= len(row) <= len(rows[k]) and _mostly_numbers(row, number) for row in below]
    return sum(data) >= SNIFF_ROWS


def _header_over_data(rows: list[list[str]], k: int, decimal: str) -> bool:
    """Whether ``rows[k]`` reads as a header of names (two fields or more, no number, no ``#``
    comment) over :data:`SNIFF_ROWS` rows of as many fields, most of them numbers written with
    ``decimal`` (a units row or two right below the header may hold none)."""
    if k >= len(rows):
        return False
    header, number = rows[k], _number_reader(decimal)
    if len(header) < 2 or _comment(header) or any(map(number, header)):
        return False
    below = [row for row in rows[k + 1 :] if len(row) == len(header)]
    numeric = [_mostly_numbers(row, number) for row in below]
    return sum(numeric) >= SNIFF_ROWS and numeric.index(True) <= 2


def _layout_hint(
    fmt: CsvFormat, layout: CsvFormat, names: str = "it reads as a table with its column names"
) -> str:
    """The record settings that turn ``fmt`` into ``layout`` ("" where none differs), saying
    what stands on its header line (``names``)."""
    changes = {
        name: getattr(layout, name)
        for name in ("separator", "decimal", "header_line")
        if getattr(layout, name) != getattr(fmt, name)
    }
    if not changes:
        return ""
    settings = ", ".join(
        f"{name}: {value}" if name == "header_line" else f"{name}: {value!r}"
        for name, value in changes.items()
    )
    decimal = " with decimal commas" if layout.decimal == "," else ""
    return (
        f"; {names} on line {layout.header_line}, fields "
        f"separated by {SEPARATOR_NAMES[layout.separator]}{decimal}: set {settings} in the "
        "record's config"
        + (" (the lines above the header are skipped)" if layout.header_line > 1 else "")
    )


def _misread_header(path: Path, fmt: CsvFormat, columns: list[str]) -> None:
    """A file the parser read, but not as written: its header line is no header over data
    under ``fmt``, and another separator or header line reads it as one (a title line of as
    many fields as the rows below read as the header, say).  A decimal mark alone is left to
    the columns' checks, which name the cell."""
    layout = _sniffed_layout(path, fmt)
    if (
        layout is None
        or (layout.separator, layout.header_line) == (fmt.separator, fmt.header_line)
        or (layout.separator == fmt.separator and layout.header_line < fmt.header_line)
    ):
        return  # read as configured, or a header line set below a title that looks like one
    shown = columns if len(columns) <= 6 else [*columns[:6], "..."]
    raise InputError(
        f"{path}: read with separator {fmt.separator!r} and header_line {fmt.header_line}, "
        f"its columns are {shown}{_layout_hint(fmt, layout)}"
    )


def header_of_columns(lines: FileLines, wanted: Sequence[str]) -> str:
    """Where the columns ``wanted``, absent from the header read, stand together on another of
    the file's first :data:`SNIFF_LINES` lines, or under another separator: the settings that
    make that line the header ("" where no line holds them all: a misspelt name).  It finds a
    header below a title as wide as the rows, or one with a column named like a number, which
    the layout sniffer cannot tell from data."""
    if not lines.text or lines.path is None or not wanted:
        return ""
    fmt = lines.fmt
    for separator, rows in (_rows_by_separator(lines.path, fmt, SNIFF_LINES) or {}).items():
        for k, row in enumerate(rows):
            if set(wanted) <= set(row) and (k + 1, separator) != (fmt.header_line, fmt.separator):
                layout = replace(fmt, separator=separator, header_line=k + 1)
                names = f"the columns {', '.join(map(repr, wanted))} stand"
                return _layout_hint(fmt, layout, names)
    return ""


def _separator_hint(path: Path, fmt: CsvFormat = CsvFormat()) -> str:
    """Where a CSV's header holds none of ``fmt``'s separator but semicolons, tabs or commas,
    as many as the rows below it: the setting that reads it (a semicolon file often writes
    decimal commas too)."""
    header = _header_text(path, fmt)
    for separator, name in SEPARATOR_NAMES.items():
        if fmt.separator in header or separator == fmt.separator or separator not in header:
            continue
        try:  # the rows below must agree: a title's commas above a semicolon file do not
            widths = [len(row) for row in _csv_lines(path, replace(fmt, separator=separator), 6)]
        except (OSError, UnicodeDecodeError, csv.Error):
            widths = []
        if widths[1:] and max(set(widths[1:]), key=widths[1:].count) == widths[0]:
            decimal = ' (and decimal: "," for decimal commas)' if separator == ";" else ""
            return (
                f"; its header is separated by {name}, but the record is read with "
                f"{SEPARATOR_NAMES.get(fmt.separator, repr(fmt.separator))}: set separator: "
                f"{separator!r}{decimal} in the record's config"
            )
    return ""


def _lines_above_header(path: Path, fmt: CsvFormat = CsvFormat(), lines: int = SNIFF_LINES) -> str:
    """Where a CSV's first lines (from its header line) hold fewer fields than those below (a
    logger's comment or title lines above the header): name the line that looks like the
    header and the record setting that skips the lines above it."""
    import csv

    try:
        rows = _csv_lines(path, fmt, lines)
    except (OSError, UnicodeDecodeError, csv.Error):
        return ""
    widths = [len(row) for row in rows]
    if len(widths) < 3:
        return ""
    common = max(set(widths[1:]), key=widths[1:].count)
    wide = [k for k, width in enumerate(widths) if width == common and not _comment(rows[k])]
    if widths[0] >= common or not wide:
        return ""
    # the header: the first line of that width that is no comment line (one may hold the
    # header's count of commas: "# units: ms, deg, deg/s, N m"; a units row below the header
    # is no header)
    number = _number_reader(fmt.decimal)
    header = wide[0]
    if 2 * sum(map(number, rows[header])) >= len(rows[header]):
        return ""  # a data row: the header is short of fields (rows ending in a comma?)
    data = next((k for k in wide if all(map(number, rows[k]))), None)
    # a title with the header's count of fields, or a units row below it, is a candidate too
    candidates = [fmt.header_line + k for k in wide if data is not None and k < data]
    line = fmt.header_line + header
    which = f"set header_line: {line}"
    if len(candidates) > 1:
        which += f" (the line of the column names: lines {', '.join(map(str, candidates))} have "
        which += f"{common} fields)"
    return (
        f"; line {line} looks like the header ({common} fields; line {fmt.header_line} has "
        f"{widths[0]}): {which} in the record's config (the lines above it are skipped), or "
        "remove them"
    )


def _number_reader(decimal: str) -> Callable[[str], bool]:
    """Whether a field is a number written with the ``decimal`` mark."""
    return _is_number if decimal == "." else lambda text: _is_number(text.replace(decimal, "."))


def _comment(row: list[str]) -> bool:
    """A CSV row that a ``#`` opens (a logger's comment line)."""
    return bool(row) and row[0].lstrip().startswith("#")


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _header_of_names(path: Path, fmt: CsvFormat) -> None:
    """A header line of finite numbers only, read as a data row: where a line above it names as
    many columns (``header_line`` one too far down) or where it repeats a number (no column
    names at all: a header ``0,1,2`` of numbered columns is a header), an :class:`InputError`
    naming the line of the column names (the line above, where there is one)."""
    import csv
    import itertools

    def numbers(fields: list[str]) -> bool:
        try:
            return bool(fields) and all(
                math.isfinite(float(field.replace(fmt.decimal, "."))) for field in fields
            )
        except ValueError:
            return False

    with path.open(newline="", encoding=fmt.text_encoding()) as handle:
        rows = list(csv.reader(itertools.islice(handle, fmt.header_line), delimiter=fmt.separator))
    if len(rows) < fmt.header_line or not numbers(header := rows[-1]):
        return
    above = [
        number
        for number, row in enumerate(rows[:-1], start=1)
        if len(row) == len(header) and not any(numbers([field]) for field in row)
    ]
    if above:
        hint = f"set header_line: {above[-1]} (that line names as many columns)"
    elif len(set(header)) < len(header):
        hint = "set header_line to the line of the column names, or add such a line"
    else:
        return
    raise InputError(
        f"{path}: line {fmt.header_line}, read as the header (header_line: {fmt.header_line}), "
        f"holds numbers, not column names: a data row? {hint}"
    )


def _unique_header(path: Path, fmt: CsvFormat = CsvFormat()) -> None:
    """A CSV whose header names a column twice (pandas would silently read the first and
    rename the second ``name.1``)."""
    from collections import Counter

    header = next(iter(_csv_lines(path, fmt, 1)), [])
    twice = sorted(name for name, count in Counter(header).items() if count > 1)
    if twice:
        raise InputError(f"{path}: the header names column(s) {twice} more than once")


def _unique_key_loader() -> type:
    """A safe YAML loader that refuses a key given twice in one mapping (PyYAML keeps the last
    silently); libyaml's parser where PyYAML was built with it (about 10x faster)."""
    import yaml

    class UniqueKeyLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None,
                        None,
                        f"duplicate key {key!r} (first given on line {seen[key] + 1})",
                        key_node.start_mark,
                    )
                seen[key] = key_node.start_mark.line
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader


def check_file(path: str | Path, field: str | None = None) -> Path:
    """``path`` if it is a readable file; else an :class:`InputError` naming the file (and the
    config ``field`` that gives it) and what is wrong: missing, a directory, a dangling
    symlink, unreadable, or (a file the config gives) inside the ``results/`` the workflow
    writes: a record read from a study's own outputs made a cycle that Snakemake skipped,
    ending "Nothing to be done" with the old tables kept as current."""
    path = Path(path)
    where = f"{field} = {str(path)!r}" if field else str(path)
    if field and path.resolve().is_relative_to(Path("results").resolve()):
        raise InputError(
            f"{where}: inside results/, which the workflow writes and rewrites: copy the file "
            "to data/ (or another folder of yours) and give that path"
        )
    if path.is_symlink() and not path.exists():
        raise InputError(f"{where}: a symlink to {os.readlink(path)!r}, which does not exist")
    if not path.exists():
        raise InputError(f"{where}: file not found (relative paths start in the workflow folder)")
    if path.is_dir():
        raise InputError(f"{where}: a directory, not a file")
    if not os.access(path, os.R_OK):
        raise InputError(f"{where}: the file is not readable (permissions)")
    return path


T = TypeVar("T")


def read_printed(paths: Sequence[str], parse: Callable[[Any, str], T]) -> T | None:
    """A paper's printed values from a rule's optional input (a list of at most one YAML),
    read by ``parse`` (the YAML's values and its path); None without one."""
    if not paths:
        return None
    (path,) = paths
    return parse(read_yaml(path), str(path))


def read_yaml(path: str | Path) -> Any:
    """Load a YAML file; a syntax error or a key given twice names the file, line and column."""
    import yaml

    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        why = err.strerror if isinstance(err, OSError) else "not UTF-8 text"
        raise InputError(f"{path}: cannot be read: {why}") from err
    try:
        return yaml.load(text, Loader=_unique_key_loader())  # noqa: S506 (a SafeLoader)
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown place"
        raise InputError(f"{path}: malformed YAML at {where}: {err.problem}") from err


def paper_settings(paths: Sequence[str]) -> Any:
    """The ``settings`` a paper ran (its Table 2 for the hip paper) from the paper's values
    file among ``paths`` (a rule's optional input: empty for a study without one), or None."""
    return read_yaml(paths[0]).get("settings") if paths else None


def read_urdf(path: str | Path, field: str | None = None) -> str:
    """The text of a URDF file (for :func:`paramid.robot.model.robot_from_urdf`), decoded as
    its XML declaration says (UTF-8 without one, a byte-order mark dropped); a missing or
    unreadable file is an :class:`InputError` naming it (and the config ``field`` that gives
    it)."""
    import codecs
    import re

    path = check_file(path, field)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise InputError(f"{path}: cannot be read: {err.strerror}") from err
    declared = re.match(rb"""\s*<\?xml[^>]*encoding=["']([A-Za-z][\w.-]*)["']""", data)
    encoding = declared[1].decode("ascii") if declared else "utf-8"
    try:
        codecs.lookup(encoding)
        return data.decode("utf-8-sig" if encoding.lower() in ("utf-8", "utf8") else encoding)
    except (LookupError, UnicodeDecodeError) as err:
        raise InputError(f"{path}: cannot be read as {encoding} text ({err})") from err
