"""Config checks: the schema with short messages, and what a JSON schema cannot express.

:func:`validate` runs Snakemake's schema validation (which fills the defaults) and turns its
failure into a few lines: the field path, the offending value and the broken rule.
:func:`check` then refuses, before any job runs, the settings the schema accepts but a job
would crash on or silently misread: names in ``reference.values`` and ``rls.mechanical``
that are not parameters of the study's regressor, a twin sampled below twice its cutoff,
a CEC reference that is not among the compared algorithms, a ``base_study`` that is not a
twin study, and two studies (or a study and the CEC output) that would share one folder.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MAX_VALUE_CHARS = 120
# the schema's default of rls.mechanical: entries left at it may name parameters a study's
# regressor lacks (a study without qdd has no Jt), any other entry must name one of its own
DEFAULT_MECHANICAL = {"Jt": {"min": 0.0}, "fc": {"min": 0.0}, "fv": {"min": 0.0}}


class ConfigError(ValueError):
    """A config setting the workflow refuses, naming its field."""


def _field(path: Any) -> str:
    """``studies.hip.methods[1]`` from a jsonschema path."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= MAX_VALUE_CHARS else text[: MAX_VALUE_CHARS - 4] + " ..."


def _reason(error: Any) -> str:
    """The broken rule; for oneOf/anyOf the branch that came closest (fewest errors), or every
    branch when they tie."""
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return error.message if len(error.message) <= 300 else error.message[:295] + " ..."
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    fewest = min(len(subs) for subs in branches.values())
    closest = [subs for subs in branches.values() if len(subs) == fewest]
    if len(closest) == 1:
        sub = closest[0][0]
        where = _field(sub.relative_path)
        return (f"{where}: " if sub.relative_path else "") + _reason(sub)
    return " or ".join(_reason(subs[0]) for subs in closest)


def describe(error: Any) -> str:
    """A jsonschema ValidationError in three lines."""
    return (
        f"invalid config: {_field(error.absolute_path)} = {_short(error.instance)}\n"
        f"  {_reason(error)}\n"
        "  (schema: workflow/schemas/config.schema.yaml)"
    )


def validate(config: dict, schema: str | Path) -> None:
    """Validate ``config`` against ``schema`` and fill its defaults (Snakemake's validate);
    raises :class:`ConfigError` with :func:`describe`'s message instead of the whole schema."""
    import jsonschema
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate as snakemake_validate

    try:
        snakemake_validate(config, str(Path(schema).resolve()))
    except WorkflowError as err:
        cause = err.__context__  # Snakemake raises its error while handling jsonschema's
        if not isinstance(cause, jsonschema.ValidationError):
            raise
        raise ConfigError(describe(cause)) from None


def result_folders(config: Mapping) -> dict[str, str]:
    """``results/<name>`` folder -> the config field of the study that writes it; raises
    :class:`ConfigError` when two studies (of any family) would share one."""
    owners: dict[str, str] = {}
    for family in ("studies", "nonlinear", "excitation", "calibration", "robots"):
        for name in config.get(family) or {}:
            field = f"{family}.{name}"
            if name in owners:
                raise ConfigError(
                    f"{field} and {owners[name]} would both write results/{name} and "
                    f"logs/{name}: rename one of them"
                )
            owners[name] = field
    return owners


def _check_names(field: str, names: Any, known: list[str], regressor: list[str]) -> None:
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ConfigError(
            f"{field}: {unknown} not parameters of this study's regressor {regressor} "
            f"(its parameters: {known})"
        )


def _twin_cutoffs(name: str, study: Mapping) -> None:
    """A twin sampled at f_s can only be filtered below f_s / 2 (the chain's Butterworth)."""
    from paramid import cutoff

    fs = float(study["twin"]["sample_rate_hz"])
    field = f"studies.{name}"
    rate = f"{field}.twin.sample_rate_hz = {fs:g} Hz"
    signals = study["signals"]
    if signals["cutoff_hz"] == "auto":
        try:
            cutoff.usable_candidates(signals["cutoff_candidates_hz"], [fs])
        except ValueError as err:
            raise ConfigError(f"{field}.signals.cutoff_candidates_hz with {rate}: {err}") from None
    elif float(signals["cutoff_hz"]) >= fs / 2:
        raise ConfigError(
            f"{field}.signals.cutoff_hz = {signals['cutoff_hz']:g} Hz is at or above the Nyquist "
            f"frequency {fs / 2:g} Hz of {rate}: sample faster or lower the cutoff"
        )
    values = study.get("sweeps", {}).get("cutoff_hz", {}).get("values", [])
    high = [v for v in values if v >= fs / 2]
    if high:
        raise ConfigError(
            f"{field}.sweeps.cutoff_hz.values {high} are at or above the Nyquist frequency "
            f"{fs / 2:g} Hz of {rate}"
        )


def _check_study(name: str, study: Mapping) -> None:
    from paramid.hip import model

    known = model.parameter_names(study["regressor"])
    values = (study.get("reference") or {}).get("values") or {}
    _check_names(f"studies.{name}.reference.values", values, known, study["regressor"])
    mechanical = study["rls"]["mechanical"]
    given = [k for k, v in mechanical.items() if DEFAULT_MECHANICAL.get(k) != v]
    _check_names(f"studies.{name}.rls.mechanical", given, known, study["regressor"])
    for parameter, limits in mechanical.items():
        if limits.get("min", float("-inf")) > limits.get("max", float("inf")):
            raise ConfigError(f"studies.{name}.rls.mechanical.{parameter}: min > max ({limits})")
    if "trajectory" in study["records"]["calibration"]:
        _twin_cutoffs(name, study)


def _check_base_studies(config: Mapping) -> None:
    """Nonlinear studies and hip excitation designs simulate on a twin study's settings."""
    studies = config["studies"]
    blocks = [("nonlinear", n, b) for n, b in (config.get("nonlinear") or {}).items()]
    blocks += [
        ("excitation", n, b)
        for n, b in (config.get("excitation") or {}).items()
        if b["kind"] == "hip"
    ]
    for family, name, block in blocks:
        base = block["base_study"]
        field = f"{family}.{name}.base_study = {base!r}"
        if base not in studies:
            raise ConfigError(f"{field}: no such study under studies: ({sorted(studies)})")
        if "trajectory" not in studies[base]["records"]["calibration"]:
            raise ConfigError(f"{field}: a measured study; this needs a twin study")


def _check_chain_twins(config: Mapping) -> None:
    for name, block in (config.get("excitation") or {}).items():
        if block["kind"] != "chain":
            continue
        fs = float(block["twin"]["sample_rate_hz"])
        cut = float(block["identification"]["cutoff_hz"])
        if cut >= fs / 2:
            raise ConfigError(
                f"excitation.{name}.identification.cutoff_hz = {cut:g} Hz is at or above the "
                f"Nyquist frequency {fs / 2:g} Hz of excitation.{name}.twin.sample_rate_hz"
            )


def _check_cec(cec: Mapping | None, owners: Mapping[str, str]) -> None:
    """The reference is among the compared algorithms; the output folder is no study's (as
    written: :func:`paramid.paths.confine` checks it again with symlinks resolved)."""
    if not cec:
        return
    for key in ("output", "logs"):
        parts = Path(os.path.normpath(cec[key])).parts
        if len(parts) > 1 and parts[0] in ("results", "logs") and parts[1] in owners:
            raise ConfigError(
                f"cec2022.{key} = {cec[key]!r} and {owners[parts[1]]} would both write "
                f"{parts[0]}/{parts[1]}: rename the study or set another cec2022.{key}"
            )
    if cec["reference"] not in cec["algorithms"]:
        raise ConfigError(
            f"cec2022.reference = {cec['reference']!r} is not among cec2022.algorithms "
            f"{cec['algorithms']}: the reference is tested against each of them"
        )


def _check_calibration(config: Mapping) -> None:
    """The paper's model runs every identifier Tables 6-9 read; compliance groups name joints."""
    from paramid.calibration.report import PAPER_IDENTIFIERS

    for name, study in (config.get("calibration") or {}).items():
        for model_name, spec in study["models"].items():
            field = f"calibration.{name}.models.{model_name}"
            if ("compliance" in spec["groups"]) != bool(spec.get("compliance_joints")):
                raise ConfigError(
                    f"{field}: compliance_joints lists the joints of the 'compliance' group "
                    "(give both or neither)"
                )
        paper = study["models"]["paper"]["identifiers"]
        missing = [i for i in PAPER_IDENTIFIERS if paper != "all" and i not in paper]
        if missing:
            raise ConfigError(
                f"calibration.{name}.models.paper.identifiers lacks {missing}: Tables 6-9 of "
                "the paper's model read them (use 'all')"
            )


def check(config: Mapping) -> None:
    """Every check of this module on a validated config (defaults filled)."""
    owners = result_folders(config)
    for name, study in config["studies"].items():
        _check_study(name, study)
    _check_base_studies(config)
    _check_chain_twins(config)
    _check_cec(config.get("cec2022"), owners)
    _check_calibration(config)
