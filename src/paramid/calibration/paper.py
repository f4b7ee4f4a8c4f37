"""The calibration paper's tables: which identifiers each table and claim reads, and its
printed numbers (Tables 6-9 and §3.2.2 text, ``data/kr210/paper_values.yaml``), for
side-by-side tables and the audit.

Source: "High-Precision and Efficient Calibration of Robot Polishing Systems Using an Adaptive
Residual EKF Optimized by MIPO" (shared/papers/mipo-arkekf-robot-calibration.txt).  Values are
mean and SD over 10 repeats in mm; ``None`` where the paper prints nothing.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from paramid.calibration.identify import LABELS
from paramid.errors import InputError

# -- the rows of the paper's tables: which identifiers each table and claim reads --------

#: Table 7 names (M1-M5) of the single identification methods, in Table 7's row order.
TABLE7_NAMES: dict[str, str] = {
    "bc": "BC",
    "ekf": "M1",
    "ipso": "M2",
    "lasso": "M3",
    "ukf": "M4",
    "mipo_arkekf": "M5",
    "lm_ga": "LM+GA",
    "ekf_dqpso": "EKF+DQPSO",
}
#: Rows of Table 6 (the paper's ablation, batch reading of Algorithm 2), the rows of the
#: literal per-point reading that Table 6 adds after them, and Table 7 (all models).
TABLE6: list[str] = ["ekf", "ekf_gsbise", "ekf_mipo", "mipo_arkekf"]
TABLE6_SEQUENTIAL: list[str] = ["ekf_sequential", "mipo_arkekf_sequential"]
TABLE7: list[str] = list(TABLE7_NAMES)
HYBRIDS: list[str] = ["mipo_arkekf", "lm_ga", "ekf_dqpso"]
#: Identifiers the paper model's tables and figures read (the sequential rows are optional).
PAPER_IDENTIFIERS: list[str] = list(dict.fromkeys([*TABLE7, *TABLE6, *HYBRIDS]))

M5 = "mipo_arkekf"
#: The hybrids of §3.2.2 (3), whose mean RMSE (no SD) the paper prints in the text.
PRINTED_HYBRIDS: list[str] = [h for h in HYBRIDS if h != M5]
#: Table 7's printed columns (BC, M1-M5).
TABLE7_PRINTED: list[str] = [i for i in TABLE7 if i not in PRINTED_HYBRIDS]
#: M1-M4, the single methods M5 is claimed to beat (§3.2.2 (2)).
SINGLE: list[str] = [i for i in TABLE7_PRINTED if i not in ("bc", M5)]
#: Fit frames the ordering claims read (Table 6's ablation and M1-M5).
FIT_IDENTIFIERS: list[str] = list(dict.fromkeys([*TABLE6, *SINGLE, M5]))


# -- the printed numbers ----------------------------------------------------------------

#: (mean, SD) as printed; None where the paper prints none
Printed = tuple[float | None, float | None]
#: the accuracy metrics of Tables 6-7 (their MEAN, RMSE, MAX columns)
METRICS = ("mean", "rmse", "max")
#: Table 9's printed columns
TABLE9_METRICS = ("mean_mm", "rmse_mm", "max_mm", "within_0p5_pct", "within_1p0_pct")


@dataclass(frozen=True)
class PrintedValues:
    """The paper's printed numbers, by its method names (:func:`printed_values` reads them).

    ``accuracy``: Table 6 (ablation) and Table 7, and the hybrids' mean RMSE of §3.2.2 (3)
    (Figure 12a): (mean, SD) per metric; ``time_s``: §3.2.2 (3), Figure 12b, the "total
    computational time" [s], read as one calibration run's (MATLAB, the authors' PC);
    ``time_saving_pct``: M5's time saving against each hybrid as printed (§3.2.2 (3),
    Abstract, §4); ``table8``: mean RMSE difference (other - M5) [mm] and the p-value text of
    the independent t-test; ``table9``: polishing-path tracking per method,
    :data:`TABLE9_METRICS`.
    """

    accuracy: Mapping[str, Mapping[str, Printed]]
    time_s: Mapping[str, float]
    time_saving_pct: Mapping[str, float]
    table8: Mapping[str, tuple[float, str]]
    table9: Mapping[str, Mapping[str, float]]


class _Reader:
    """Reads one YAML file's values, naming the file and key of the first that is wrong."""

    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, message: str) -> NoReturn:
        raise InputError(f"{self.path}: {message}")

    def mapping(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            self.fail(f"{where} must be a mapping, not {value!r}")
        return value

    def entry(self, block: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in block:
            self.fail(f"{where} lacks {key!r}")
        return block[key]

    def number(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            self.fail(f"{where} = {value!r} is not a number")
        return float(value)

    def rows(self, block: Mapping[str, Any], wanted: list[str], where: str) -> None:
        missing = [name for name in wanted if name not in block]
        if missing:
            self.fail(f"{where} lacks the rows {missing}, which the tables and the audit read")


def printed_values(raw: Any, path: str) -> PrintedValues:
    """The YAML mapping read from ``path`` (``data/kr210/paper_values.yaml``'s layout) as
    :class:`PrintedValues`, with every row the tables and the audit read; an
    :class:`InputError` names the key that is missing or wrong."""
    read = _Reader(path)
    top = read.mapping(raw, "the file")

    def block(key: str) -> Mapping[str, Any]:
        return read.mapping(read.entry(top, key, "the file"), key)

    accuracy: dict[str, dict[str, Printed]] = {}
    for label, cells in block("accuracy").items():
        where = f"accuracy.{label}"
        unknown = sorted(set(read.mapping(cells, where)) - set(METRICS))
        if unknown:
            read.fail(f"{where}: {unknown} not among {list(METRICS)}")
        accuracy[label] = {}
        for metric in METRICS:
            pair = cells.get(metric, [None, None])
            if not isinstance(pair, list) or len(pair) != 2:
                read.fail(f"{where}.{metric} = {pair!r} is not [mean, SD]")
            mean, sd = (None if v is None else read.number(v, f"{where}.{metric}") for v in pair)
            accuracy[label][metric] = (mean, sd)
    printed = [LABELS[i] for i in dict.fromkeys([*TABLE6, *TABLE7_PRINTED])]
    read.rows(accuracy, [LABELS[i] for i in dict.fromkeys([*TABLE6, *TABLE7])], "accuracy")
    for label in printed:
        for metric in METRICS:
            if accuracy[label][metric][0] is None:
                read.fail(f"accuracy.{label}.{metric}: Tables 6-7 print a mean")
    for hybrid in PRINTED_HYBRIDS:
        if accuracy[LABELS[hybrid]]["rmse"][0] is None:
            read.fail(f"accuracy.{LABELS[hybrid]}.rmse: §3.2.2 (3) prints a mean")
    time_s, saving = (
        {label: read.number(v, f"{key}.{label}") for label, v in block(key).items()}
        for key in ("time_s", "time_saving_pct")
    )
    read.rows(time_s, [LABELS[h] for h in HYBRIDS], "time_s")
    read.rows(saving, [LABELS[h] for h in PRINTED_HYBRIDS], "time_saving_pct")
    table8 = {}
    for name, row in block("table8").items():
        where = f"table8.{name}"
        p_text = read.entry(read.mapping(row, where), "p", where)
        if not isinstance(p_text, str):
            read.fail(f'{where}.p = {p_text!r}: write it as printed, quoted ("<0.001")')
        diff = read.number(read.entry(row, "mean_diff_mm", where), f"{where}.mean_diff_mm")
        table8[name] = (diff, p_text)
    read.rows(table8, [TABLE7_NAMES[i] for i in TABLE7 if i != M5], "table8")
    table9 = {
        name: {
            key: read.number(read.entry(read.mapping(row, f"table9.{name}"), key, name), key)
            for key in TABLE9_METRICS
        }
        for name, row in block("table9").items()
    }
    read.rows(table9, [TABLE7_NAMES[i] for i in TABLE7_PRINTED], "table9")
    return PrintedValues(accuracy, time_s, saving, table8, table9)
