"""Provenance records and bitwise comparison of workflow outputs.

What is compared for each kind of output under ``results/``:

- Parquet: :func:`paramid.io.data_hash` (the data; columns listed as nondeterministic, i.e.
  timings, left out) and the metadata block (units, config and results kept there such as
  μ(γ) of Eq 12 or a solver's status) without what describes the build rather than the
  output (:data:`BUILD_METADATA`: input SHA-256s, versions, commits) and timings.
- JSON: the canonical JSON of the content without timing keys and without ``provenance``
  blocks (those hold input hashes and versions, recorded separately).
- CSV: the cells as text, timing columns left out (no float parsing: bit-for-bit).
- Markdown: the text with the timing columns of its pipe tables left out.
- Figures (PNG, PDF, SVG): not compared byte-wise; they are drawn from Parquet/JSON that is
  compared, so they are reported as "compared via source data".
- Claims audits (``audit.csv``/``audit.md``): every cell as text, verdicts and reasons
  included, except the reproduced value and reason of a row whose verdict is
  machine-dependent (a wall-clock time moves between builds): an edited verdict or number
  shows.
- ``provenance.json``: "compared via source data"; it holds the other outputs' hashes
  (compared) and the SHA-256 of input files, which differ between runs where an input has a
  timing column.
- Anything else: the SHA-256 of its bytes.

Where two outputs differ, :func:`difference` says where, in the same terms (a CSV cell, a
line, a JSON key, Parquet columns with the size of the gap).

Timing columns and keys contain the word ``time``, ``timing``, ``elapsed``, ``wall`` or
``runtime`` between underscores (``time_ms``, ``time_ms_sd``, ``m5_time_saving_pct``,
``time_to_1pct_ms_median``), except a bare ``time`` (a time axis) and ``paper_*`` (printed
values, compared).
"""

from __future__ import annotations

import csv
import hashlib
import io as _io
import math
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paramid import io
from paramid.audit import MACHINE_DEPENDENT  # its rows hold a wall-clock value: not compared

if TYPE_CHECKING:
    import pandas as pd

TIMING_WORD = re.compile(r"(^|_)(time|timing|elapsed|wall|runtime)(_|$)")
FIGURE_SUFFIXES = frozenset({".png", ".pdf", ".svg"})
DERIVED_REPORTS = frozenset({"provenance.json"})
AUDITS = frozenset({"audit.csv", "audit.md"})
# a pipe-table cell boundary: a "|" not escaped as "\|" (paramid.io.markdown_table)
CELL_BOUNDARY = re.compile(r"(?<!\\)\|")
VIA_SOURCE = "compared via source data"
VIA_SOURCE_KINDS = frozenset({"figure", "derived"})
PROVENANCE_KEY = "provenance"
# metadata keys left out of provenance.json: the bulky config (its hash stays) and units
DROPPED_METADATA = frozenset({"config", "units"})
#: Parquet metadata of the build, not of the output: the inputs' SHA-256 (an upstream file's
#: bytes hold its own build's commit), package versions, the commits of checkout and library
BUILD_METADATA = frozenset(
    {"inputs", "versions", "git_commit", "code_version", "library", "library_git_commit"}
)


def is_timing(name: str) -> bool:
    """Whether a column or key holds a wall-clock timing (excluded from comparisons)."""
    if name == "time" or name.startswith("paper_"):
        return False
    return bool(TIMING_WORD.search(name))


def strip_nondeterministic(obj: Any) -> Any:
    """JSON content without timing keys and ``provenance`` blocks, at any depth."""
    if isinstance(obj, Mapping):
        return {
            k: strip_nondeterministic(v)
            for k, v in obj.items()
            if not is_timing(str(k)) and k != PROVENANCE_KEY
        }
    if isinstance(obj, list):
        return [strip_nondeterministic(v) for v in obj]
    return obj


def _sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def json_content(path: str | os.PathLike) -> Any:
    """A JSON file's content as compared: timings and provenance left out."""
    return strip_nondeterministic(io.read_json(path))


def json_hash(path: str | os.PathLike) -> str:
    """Hash of a JSON file's canonical content (:func:`json_content`)."""
    return _sha256(io.canonical_json(json_content(path)))


def compared_metadata(meta: Mapping[str, Any]) -> Any:
    """The part of a Parquet output's metadata block an auditor compares: all but
    :data:`BUILD_METADATA`, timings and ``provenance`` blocks (at any depth)."""
    return strip_nondeterministic({k: v for k, v in meta.items() if k not in BUILD_METADATA})


def parquet_hash(path: str | os.PathLike) -> str:
    """Hash of a Parquet output's data (:func:`paramid.io.data_hash`) and its compared
    metadata (:func:`compared_metadata`)."""
    frame, meta = io.read_parquet(path)
    return _sha256(io.frame_hash(frame, meta) + io.canonical_json(compared_metadata(meta)))


def _keep_columns(header: list[str]) -> list[int]:
    return [i for i, name in enumerate(header) if not is_timing(name.strip())]


def csv_cells(path: str | os.PathLike) -> list[list[str]]:
    """A CSV file's rows of cells as text, header first, timing columns left out (a cell
    beyond the header's columns is kept: it is no timing column's)."""
    rows = list(csv.reader(_io.StringIO(io.read_text(path))))
    if not rows:
        return []
    keep, width = _keep_columns(rows[0]), len(rows[0])
    return [[row[i] for i in keep if i < len(row)] + row[width:] for row in rows]


def csv_hash(path: str | os.PathLike) -> str:
    """Hash of a CSV file's cells as text (:func:`csv_cells`; no float parsing)."""
    return _sha256(io.canonical_json(csv_cells(path)))


def markdown_lines(path: str | os.PathLike) -> list[str]:
    """A Markdown file's lines, the timing columns of its pipe tables left out (one line per
    line of the file)."""
    lines: list[str] = []
    keep: list[int] | None = None  # column indices kept in the current table
    for line in io.read_text(path).splitlines():
        if not line.startswith("|"):
            keep = None
            lines.append(line)
            continue
        cells = CELL_BOUNDARY.split(line.strip().strip("|"))
        if keep is None:  # header row of a new table
            keep = _keep_columns(cells)
        lines.append("|".join(cells[i].strip() for i in keep if i < len(cells)))
    return lines


def markdown_hash(path: str | os.PathLike) -> str:
    """Hash of a Markdown file's compared lines (:func:`markdown_lines`)."""
    return _sha256("\n".join(markdown_lines(path)))


AUDIT_COLUMNS = ("verdict", "reproduced_value", "reason")


def _audit_cells(rows: list[list[str]], path: str | os.PathLike) -> list[list[str]]:
    """An audit's cells (header first) with the value and reason of machine-dependent rows
    blanked; one without the audit's columns (empty, hand-edited) is unreadable as an audit."""
    header = [cell.strip() for cell in rows[0]] if rows else []
    missing = [name for name in AUDIT_COLUMNS if name not in header]
    if missing:
        raise io.UnreadableFile(
            f"{path}: not a claims audit (no column {', '.join(missing)}); rebuild it with "
            f"`snakemake --force {path}`"
        )
    verdict = header.index("verdict")
    masked = [header.index("reproduced_value"), header.index("reason")]
    kept = [header]
    for row in rows[1:]:
        cells = [cell.strip() for cell in row]
        if len(cells) > verdict and cells[verdict] == MACHINE_DEPENDENT:
            for i in masked:
                cells[i] = ""
        kept.append(cells)
    return kept


def audit_content(path: str | os.PathLike) -> Any:
    """A claims audit as compared (CSV: its cells; Markdown: its prose lines and pipe table),
    every cell but the wall-clock ones (:func:`_audit_cells`)."""
    text = io.read_text(path)
    if Path(path).suffix.lower() == ".csv":
        return _audit_cells(list(csv.reader(_io.StringIO(text))), path)
    lines = text.splitlines()
    table = [CELL_BOUNDARY.split(line.strip().strip("|")) for line in lines if line.startswith("|")]
    table = [row for row in table if not set("".join(row)) <= set("-: ")]  # the rule row
    prose = [line for line in lines if not line.startswith("|")]
    return [prose, _audit_cells(table, path) if table else []]


def audit_hash(path: str | os.PathLike) -> str:
    """Hash of a claims audit's compared content (:func:`audit_content`)."""
    return _sha256(io.canonical_json(audit_content(path)))


# the exported URDF's header names the commit it was built from; a rebuild elsewhere (paramid
# verify's copy has no .git) says "unknown"
URDF_COMMIT = re.compile(r"git commit \S+\.")


def urdf_lines(path: str | os.PathLike) -> list[str]:
    """An exported URDF's lines with the git commit of its provenance comment left out
    (every value, joint comment and the config hash stay)."""
    return URDF_COMMIT.sub("git commit .", io.read_text(path)).split("\n")


def urdf_hash(path: str | os.PathLike) -> str:
    """Hash of an exported URDF's compared text (:func:`urdf_lines`)."""
    return _sha256("\n".join(urdf_lines(path)))


def bytes_hash(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes."""
    return io.file_sha256(path)


def output_kind(path: str | os.PathLike) -> str:
    """How an output is compared: parquet, json, csv, markdown, audit, urdf, figure, derived
    or bytes."""
    suffix = Path(path).suffix.lower()
    if suffix in FIGURE_SUFFIXES:
        return "figure"
    if Path(path).name in DERIVED_REPORTS:
        return "derived"
    if Path(path).name in AUDITS:
        return "audit"
    kinds = {".parquet": "parquet", ".json": "json", ".csv": "csv", ".md": "markdown"}
    return (kinds | {".urdf": "urdf"}).get(suffix, "bytes")


_HASHERS = {
    "parquet": parquet_hash,
    "json": json_hash,
    "csv": csv_hash,
    "markdown": markdown_hash,
    "audit": audit_hash,
    "urdf": urdf_hash,
    "bytes": bytes_hash,
}


def output_hash(path: str | os.PathLike) -> str | None:
    """The comparison hash of one output; ``None`` when it is compared via its source data."""
    kind = output_kind(path)
    return None if kind in VIA_SOURCE_KINDS else _HASHERS[kind](path)


def is_temporary(path: str | os.PathLike) -> bool:
    """A leftover of an interrupted atomic write (``.<name>.<random>.tmp``, see paramid.io)."""
    name = Path(path).name
    return name.startswith(".") and name.endswith(".tmp")


def list_outputs(root: str | os.PathLike, under: str = "results") -> list[str]:
    """Files below ``root/under``, as sorted paths relative to ``root``; temporaries left out."""
    base = Path(root)
    return sorted(
        p.relative_to(base).as_posix()
        for p in (base / under).rglob("*")
        if p.is_file() and not is_temporary(p)
    )


def stray_temporaries(root: str | os.PathLike, under: str = "results") -> list[str]:
    """Leftovers of interrupted writes below ``root/under`` (should be none)."""
    base = Path(root)
    return sorted(
        p.relative_to(base).as_posix() for p in (base / under).rglob("*") if is_temporary(p)
    )


def changed_inputs(
    results_root: str | os.PathLike, checkout: str | os.PathLike, files: Iterable[str]
) -> dict[str, str]:
    """The inputs outside ``results/`` (the data and configs a build read, as the Parquet
    outputs among ``files`` record them) whose file in ``checkout`` no longer has the SHA-256
    recorded, each with what happened to it: a rebuild from this checkout cannot reproduce
    what was made from the old one, and verify says why before it compares (an unreadable
    output: skipped here, the comparison names it)."""
    recorded: dict[str, set[str]] = {}
    for rel in files:
        if output_kind(rel) == "parquet":
            try:
                meta = io.read_parquet_metadata(Path(results_root) / rel)
            except io.UnreadableFile:
                continue  # the comparison names it
            inputs = meta.get("inputs", {})
            for path, digest in inputs.items():
                if Path(path).parts[:1] not in (("results",), (".snakemake",)):
                    recorded.setdefault(path, set()).add(digest)
    changed = {}
    for path, digests in sorted(recorded.items()):
        current = Path(checkout) / path
        if not current.is_file():
            changed[path] = "no longer in the checkout"
        elif io.file_sha256(current) not in digests:
            changed[path] = "changed since results/ was built (its SHA-256 differs)"
    return changed


def parquet_record(path: str | os.PathLike) -> dict[str, Any]:
    """A Parquet output's metadata block (less config and units; timings dropped) + data hash."""
    _, meta = io.read_parquet(path)
    kept = {k: v for k, v in meta.items() if k not in DROPPED_METADATA and not is_timing(str(k))}
    return {"kind": "parquet", "data_hash": io.data_hash(path), "metadata": kept}


def output_record(path: str | os.PathLike) -> dict[str, Any]:
    """The provenance entry of one output file."""
    kind = output_kind(path)
    if kind == "parquet":
        return parquet_record(path)
    if kind in VIA_SOURCE_KINDS:
        return {"kind": kind, "hash": None, "note": VIA_SOURCE}
    return {"kind": kind, "hash": output_hash(path)}


def collect(root: str | os.PathLike, files: Iterable[str], git_commit: str) -> dict[str, Any]:
    """The content of ``results/provenance.json`` for ``files`` (paths relative to ``root``).

    Deterministic for a given checkout: timings are left out, keys sorted by the writer.
    """
    base = Path(root)
    return {
        "git_commit": git_commit,
        "versions": io.package_versions(),
        "outputs": {rel: output_record(base / rel) for rel in sorted(files)},
    }


@dataclass
class Comparison:
    """Outcome of comparing the outputs of two trees, by relative path."""

    same: list[str] = field(default_factory=list)
    different: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)  # in the reference, not rebuilt
    extra: list[str] = field(default_factory=list)  # rebuilt, not in the reference
    via_source: list[str] = field(default_factory=list)  # figures, derived reports
    unreadable: list[str] = field(default_factory=list)  # with the reason and how to rebuild

    @property
    def ok(self) -> bool:
        """True when nothing differs, nothing is unreadable, none of the reference is missing
        and the reference lacks none of the rebuilt outputs (a published tree with an output
        deleted is not a complete reproduction)."""
        return not (self.different or self.missing or self.unreadable or self.extra)

    def report(self) -> str:
        """Human-readable summary, differences first."""
        lines = [f"UNREADABLE {p}" for p in self.unreadable]
        lines += [f"DIFFERENT  {p}" for p in self.different]
        lines += [
            f"MISSING    {p} (in the reference, not rebuilt: no rule of this config makes it;"
            " left from an earlier config? move it out of results/)"
            for p in self.missing
        ]
        lines += [
            f"EXTRA      {p} (rebuilt, but missing from results/: deleted, or never built there)"
            for p in self.extra
        ]
        lines += [f"same       {p}" for p in self.same]
        lines += [f"via source {p} ({VIA_SOURCE})" for p in self.via_source]
        verdict = "identical" if self.ok else "DIFFERENT"
        lines.append(
            f"{verdict}: {len(self.same)} same, {len(self.different)} different, "
            f"{len(self.unreadable)} unreadable, "
            f"{len(self.missing)} not rebuilt, {len(self.extra)} missing from results/, "
            f"{len(self.via_source)} figures/reports {VIA_SOURCE}"
        )
        return "\n".join(lines)


def compare_trees(
    reference: str | os.PathLike, rebuilt: str | os.PathLike, files: Iterable[str]
) -> Comparison:
    """Compare ``files`` (relative paths) between two workflow directories."""
    ref, new = Path(reference), Path(rebuilt)
    result = Comparison()
    for rel in sorted(set(files)):
        a, b = ref / rel, new / rel
        if not a.is_file() and not b.is_file():
            continue
        if not b.is_file():
            result.missing.append(rel)
        elif not a.is_file():
            result.extra.append(rel)
        elif output_kind(rel) in VIA_SOURCE_KINDS:
            result.via_source.append(rel)
        else:
            _compare_one(rel, a, b, result)
    return result


def _compare_one(rel: str, a: Path, b: Path, result: Comparison) -> None:
    """File ``rel`` of both trees, sorted into ``result``; one that cannot be read is
    reported as unreadable (and so as a difference), never a crash. A difference names where
    it lies (:func:`difference`)."""
    try:
        hash_a = output_hash(a)
    except io.UnreadableFile as err:
        result.unreadable.append(f"{rel} (reference: {err})")
        return
    try:
        hash_b = output_hash(b)
    except io.UnreadableFile as err:
        result.unreadable.append(f"{rel} (rebuilt: {err})")
        return
    if hash_a == hash_b:
        result.same.append(rel)
    else:
        try:
            where = difference(a, b)
        except (TypeError, ValueError) as err:  # the files differ: where is a courtesy
            where = f"not located: {type(err).__name__}: {err}"
        result.different.append(f"{rel} ({where})" if where else rel)


def difference(reference: str | os.PathLike, rebuilt: str | os.PathLike) -> str:
    """Where two outputs of one kind first differ, in the terms their comparison uses: a
    Parquet file's columns (:func:`frame_difference`) and metadata keys, a CSV file's row and
    column, a Markdown, URDF or text line, a JSON key; the two values, with the relative
    difference of two numbers, so that an auditor tells rounding from a changed result."""
    kind = output_kind(reference)
    if kind == "parquet":
        return _parquet_difference(Path(reference), Path(rebuilt))
    if kind == "csv":
        return _rows_difference(csv_cells(reference), csv_cells(rebuilt))
    if kind in ("markdown", "urdf"):
        read = markdown_lines if kind == "markdown" else urdf_lines
        return _lines_difference(read(reference), read(rebuilt))
    if kind == "audit" and Path(reference).suffix.lower() == ".csv":
        return _rows_difference(audit_content(reference), audit_content(rebuilt))
    if kind == "audit":  # Markdown: its prose lines, then its table's cells
        (prose_a, table_a), (prose_b, table_b) = audit_content(reference), audit_content(rebuilt)
        if prose_a != prose_b:
            return _lines_difference(prose_a, prose_b).replace("line", "caption or note line", 1)
        return _rows_difference(table_a, table_b)
    if kind == "json":
        return _nested_difference(json_content(reference), json_content(rebuilt))
    return "bytes"


def _shown(a: Any, b: Any, width: int = 60) -> str:
    """``a -> b`` as reprs; two long texts are shown from a little before their first
    differing character, so that the difference is in view."""
    if isinstance(a, str) and isinstance(b, str) and max(len(a), len(b)) > width:
        same = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
        start = max(0, (min(len(a), len(b)) if same is None else same) - width // 3)
        cut = [
            ("..." if start else "")
            + text[start : start + width]
            + ("..." if len(text) > start + width else "")
            for text in (a, b)
        ]
        return f"{cut[0]!r} -> {cut[1]!r}"
    return f"{a!r} -> {b!r}"


def _values(a: Any, b: Any) -> str:
    """``a -> b`` (:func:`_shown`), with their relative difference where both are numbers."""
    text = _shown(a, b)
    numbers = []
    for value in (a, b):
        if isinstance(value, bool):
            return text
        try:
            numbers.append(float(value))
        except (TypeError, ValueError):
            return text
    scale = max(abs(numbers[0]), abs(numbers[1]))
    if scale > 0 and all(map(math.isfinite, numbers)):
        text += f" (relative {abs(numbers[0] - numbers[1]) / scale:.1e})"
    return text


def _rows_difference(a: list[list[str]], b: list[list[str]]) -> str:
    """First differing cell of two tables of text cells, header first."""
    header = a[0] if a else []
    for i, (row_a, row_b) in enumerate(zip(a, b, strict=False)):
        for j in range(max(len(row_a), len(row_b))):
            cell_a = row_a[j] if j < len(row_a) else "(no cell)"
            cell_b = row_b[j] if j < len(row_b) else "(no cell)"
            if cell_a != cell_b:
                column = header[j] if j < len(header) else f"cell {j + 1}"
                where = "header" if i == 0 else f"row {i}"
                return f"{where}, column {column!r}: {_values(cell_a, cell_b)}"
    return f"{max(len(a) - 1, 0)} rows in the reference, {max(len(b) - 1, 0)} rebuilt"


def _lines_difference(a: list[str], b: list[str]) -> str:
    """First differing line of two texts (1-based)."""
    for i, (line_a, line_b) in enumerate(zip(a, b, strict=False)):
        if line_a != line_b:
            return f"line {i + 1}: {_shown(line_a.strip(), line_b.strip())}"
    return f"{len(a)} lines in the reference, {len(b)} rebuilt"


def _nested_difference(a: Any, b: Any, where: str = "") -> str:
    """First difference of two JSON-like values, by key path."""
    here = where or "the top level"
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in sorted(set(a) | set(b), key=str):
            path = f"{where}.{key}" if where else str(key)
            if key not in a or key not in b:
                return f"{path}: {'only rebuilt' if key not in a else 'only in the reference'}"
            found = _nested_difference(a[key], b[key], path)
            if found:
                return found
        return ""
    if isinstance(a, list) and isinstance(b, list):
        for i, (item_a, item_b) in enumerate(zip(a, b, strict=False)):
            found = _nested_difference(item_a, item_b, f"{where}[{i}]")
            if found:
                return found
        if len(a) != len(b):
            return f"{here}: {len(a)} items in the reference, {len(b)} rebuilt"
        return ""
    return "" if a == b else f"{here}: {_values(a, b)}"


def _parquet_difference(a: Path, b: Path) -> str:
    """What differs between two Parquet outputs: their data (:func:`frame_difference`)
    and/or these metadata keys."""
    (frame_a, meta_a), (frame_b, meta_b) = io.read_parquet(a), io.read_parquet(b)
    parts = []
    if io.frame_hash(frame_a, meta_a) != io.frame_hash(frame_b, meta_b):
        frame_a = frame_a.drop(columns=meta_a.get("nondeterministic_columns", []))
        frame_b = frame_b.drop(columns=meta_b.get("nondeterministic_columns", []))
        parts.append(f"data: {frame_difference(frame_a, frame_b)}")
    kept_a, kept_b = compared_metadata(meta_a), compared_metadata(meta_b)
    keys = sorted(k for k in set(kept_a) | set(kept_b) if kept_a.get(k) != kept_b.get(k))
    named = [  # the setting itself where a config changed: `config.rls.margin: 0.1 -> 0.12`
        _nested_difference(kept_a[k], kept_b[k], k)
        if isinstance(kept_a.get(k), Mapping) and isinstance(kept_b.get(k), Mapping)
        else k
        for k in keys
    ]
    return "; ".join(parts + ([f"metadata: {', '.join(named)}"] if named else []))


def frame_difference(a: pd.DataFrame, b: pd.DataFrame, shown: int = 3) -> str:
    """Where two frames' data differ: their columns or row counts, else the first ``shown``
    differing columns, each with how many rows differ, the first of them (1-based) and, for
    real numbers, the largest absolute and relative difference of the rows finite in both and
    how many rows are finite in one only (NaN equals NaN, as in the data hash)."""

    if list(a.columns) != list(b.columns):
        only_a = [c for c in a.columns if c not in b.columns]
        only_b = [c for c in b.columns if c not in a.columns]
        if not (only_a or only_b):
            return "the same columns in another order"
        return f"columns only in the reference {only_a}, only rebuilt {only_b}"
    if len(a) != len(b):
        return f"{len(a)} rows in the reference, {len(b)} rebuilt"
    notes = []
    for k in range(a.shape[1]):  # by position: a name may repeat
        col_a, col_b, column = a.iloc[:, k], b.iloc[:, k], a.columns[k]
        if col_a.dtype != col_b.dtype:
            notes.append(f"{column} ({col_a.dtype} -> {col_b.dtype})")
        elif (note := _column_difference(col_a, col_b)) is not None:
            notes.append(f"{column} ({note})")
    if not notes:
        return "equal values, stored otherwise (the data hash reads the bytes)"
    more = f" and {len(notes) - shown} more columns" if len(notes) > shown else ""
    return "; ".join(notes[:shown]) + more


def _column_difference(a: pd.Series, b: pd.Series) -> str | None:
    """How two columns of one dtype and length differ; None where they hold the same values."""
    import numpy as np

    if a.dtype.kind in "iuf":  # real numbers: the size of the gap
        x, y = a.to_numpy(dtype=float), b.to_numpy(dtype=float)
        if a.dtype.kind == "f":
            differs = ~((x == y) | (np.isnan(x) & np.isnan(y)))
        else:  # integers compared exactly (as floats, 2**60 and 2**60 + 1 are one); a
            # nullable column's missing cells alike where both miss
            missing_a, missing_b = a.isna().to_numpy(), b.isna().to_numpy()
            exact = getattr(a.dtype, "numpy_dtype", a.dtype)
            equal = a.fillna(0).to_numpy(dtype=exact) == b.fillna(0).to_numpy(dtype=exact)
            differs = (missing_a != missing_b) | (~missing_a & ~equal)
        if not differs.any():
            return None
        rows = np.flatnonzero(differs)
        note = f"{rows.size} of {len(a)} rows from row {rows[0] + 1}"
        both = rows[np.isfinite(x[rows]) & np.isfinite(y[rows])]
        if both.size:
            gap = np.abs(x[both] - y[both])
            scale = np.maximum(np.abs(x[both]), np.abs(y[both]))
            relative = float(np.max(gap / np.where(scale > 0, scale, 1.0)))
            note += f", largest |diff| {np.max(gap):.3g}, relative {relative:.1e}"
        if both.size < rows.size:
            note += f", {rows.size - both.size} non-finite in one of them (NaN, inf)"
        return note
    values_a, values_b = a.astype(object).to_numpy(), b.astype(object).to_numpy()
    differs = np.array([not _same_cell(u, v) for u, v in zip(values_a, values_b, strict=True)])
    if not differs.any():
        return None
    rows = np.flatnonzero(differs)
    return f"{rows.size} of {len(a)} rows from row {rows[0] + 1}"


def _same_cell(a: Any, b: Any) -> bool:
    """Two cells of an object column alike: equal, both missing, or equal arrays."""
    import numpy as np
    import pandas as pd

    if isinstance(a, np.ndarray | list) or isinstance(b, np.ndarray | list):
        x, y = np.asarray(a), np.asarray(b)
        try:
            return bool(np.array_equal(x, y, equal_nan=True))
        except TypeError:  # no NaN in this dtype
            return bool(np.array_equal(x, y))
    missing_a, missing_b = bool(pd.isna(a)), bool(pd.isna(b))  # NaN, NaT, None, NA alike
    if missing_a or missing_b:
        return missing_a and missing_b
    return bool(a == b)


def hashes(root: str | os.PathLike, files: Iterable[str]) -> dict[str, str | None]:
    """Comparison hash of each file (relative to ``root``); ``None``: via source data (what an
    auditor compares two trees by: the resume and SLURM tests do)."""
    base = Path(root)
    return {rel: output_hash(base / rel) for rel in sorted(files)}
