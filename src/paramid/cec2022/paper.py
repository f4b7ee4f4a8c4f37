"""The MIPO paper's printed CEC 2022 results (§3.1.2, Tables 3-4) as the study's YAML gives
them (``cec2022.paper_values``): the Tables' values and the places the text states.

Plain Python, no pandas: the workflow checks the file at start-up with :func:`read`, and
:func:`paramid.cec2022.study.paper_values_frame` makes the Tables' rows a frame.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from paramid.cec2022.suite import BIASES
from paramid.errors import InputError

#: The six methods of the paper's Tables 3-4 (no PO row there).
PAPER_ALGORITHMS: tuple[str, ...] = ("WOA", "HHO", "GGO", "SGA", "HO", "MIPO")
INDICATORS: tuple[str, ...] = ("ave", "std", "time_s", "best")
#: §3.1.2's text: MIPO's place among the six methods, (D, indicator) -> {function: place}
TextPlaces = Mapping[tuple[int, str], Mapping[int, int]]


#: the file's top-level keys (a misspelt ``text_places`` would otherwise drop the text's
#: places from the audit without a word)
KEYS = ("source", "values", "tables", "text_places")


def _document(doc: Any, source: str) -> Mapping:
    """The parsed YAML ``doc`` where it is a mapping of :data:`KEYS` with ``tables``."""
    if not isinstance(doc, Mapping) or not isinstance(doc.get("tables"), Mapping):
        raise InputError(f"{source}: no 'tables' mapping of the paper's Tables 3-4")
    if unknown := sorted(str(key) for key in doc if key not in KEYS):
        raise InputError(f"{source}: unknown key(s) {unknown}; the file holds {list(KEYS)}")
    return doc


def _mapping(value: Any, source: str, where: str, shape: str) -> Mapping:
    """``value`` where it is a mapping, else an :class:`InputError` naming ``where``."""
    if not isinstance(value, Mapping):
        raise InputError(f"{source}: {where} is not a mapping {shape}")
    return value


def _number(key: Any, pattern: str, source: str, where: str) -> int:
    """The number of a key such as ``d10`` or ``F3`` (``pattern`` with one group, written
    without leading zeros: two keys never name one number)."""
    if not (found := re.fullmatch(pattern, str(key))):
        form = pattern.replace(r"([1-9]\d*)", "<n>")
        raise InputError(f"{source}: {where}.{key} is not a key {form}")
    return int(found.group(1))


def _function(key: Any, source: str, where: str) -> int:
    """The function number of a key ``F<n>``, one of the suite's."""
    if (function := _number(key, r"F([1-9]\d*)", source, where)) not in BIASES:
        raise InputError(f"{source}: {where}.{key} is no function F1-F{len(BIASES)}")
    return function


def table_rows(doc: Any, source: str) -> list[dict[str, Any]]:
    """Tables 3-4 as rows (dim, function, algorithm, paper_ave/std/time_s/best) of the parsed
    YAML ``doc`` (``tables``: ``d<D>`` -> algorithm -> ``F<n>`` -> the four values); an entry
    that is not one, or without a number, is named with ``source``."""
    rows = []
    for key, by_algorithm in _document(doc, source)["tables"].items():
        dim = _number(key, r"d([1-9]\d*)", source, "tables")
        methods = _mapping(by_algorithm, source, f"tables.{key}", "algorithm -> F<n> -> values")
        for algorithm, by_function in methods.items():
            where = f"tables.{key}.{algorithm}"
            for fname, values in _mapping(by_function, source, where, "F<n> -> values").items():
                function = _function(fname, source, where)
                row: dict[str, Any] = {"dim": dim, "function": function, "algorithm": algorithm}
                try:
                    row |= {f"paper_{k}": float(values[k]) for k in INDICATORS}
                except (KeyError, TypeError, ValueError) as err:
                    raise InputError(
                        f"{source}: {where}.{fname} needs a number for each of "
                        f"{list(INDICATORS)} ({type(err).__name__}: {err})"
                    ) from None
                rows.append(row)
    return rows


def text_places(doc: Any, source: str) -> dict[tuple[int, str], dict[int, int]]:
    """§3.1.2's stated places of MIPO from the parsed YAML ``doc`` (``text_places``: ``d<D>``
    -> indicator -> ``F<n>`` -> place among the six methods; none where the file has no such
    mapping); a key or a place that is not one is named with ``source``."""
    shape = "d<D> -> indicator -> F<n> -> place"
    by_dim = _document(doc, source).get("text_places", {})
    places: dict[tuple[int, str], dict[int, int]] = {}
    for key, by_indicator in _mapping(by_dim, source, "text_places", shape).items():
        dim = _number(key, r"d([1-9]\d*)", source, "text_places")
        where = f"text_places.{key}"
        indicators = _mapping(by_indicator, source, where, "indicator -> F<n> -> place")
        for indicator, by_function in indicators.items():
            if indicator not in INDICATORS:
                raise InputError(f"{source}: {where}.{indicator} is none of {list(INDICATORS)}")
            at = f"{where}.{indicator}"
            stated = {}
            for fname, place in _mapping(by_function, source, at, "F<n> -> place").items():
                function = _function(fname, source, at)
                if type(place) is not int or not 1 <= place <= len(PAPER_ALGORITHMS):
                    raise InputError(
                        f"{source}: {at}.{fname} = {place!r} is no place among the paper's "
                        f"{len(PAPER_ALGORITHMS)} methods"
                    )
                stated[function] = place
            places[(dim, str(indicator))] = stated
    return places


def read(
    doc: Any, source: str
) -> tuple[list[dict[str, Any]], dict[tuple[int, str], dict[int, int]]]:
    """The Tables' rows (:func:`table_rows`) and the text's places (:func:`text_places`) of
    the parsed YAML ``doc``, as the start-up check reads them."""
    return table_rows(doc, source), text_places(doc, source)
