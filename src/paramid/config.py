"""Config checks: the schema with short messages, and what a JSON schema cannot express.

:func:`validate` runs Snakemake's schema validation (which fills the defaults) and turns its
failure into a few lines: the field path, the offending value and the broken rule.  The
checks shared by several families live here (two studies sharing one folder, parameter names
a regressor lacks, a ``base_study`` that is not a twin study); each family's own checks run
when its workflow object is built (``paramid.<family>.workflow``), before any job.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from paramid.errors import UserError

MAX_VALUE_CHARS = 120


class ConfigError(UserError):
    """A config setting the workflow refuses, naming its field."""


#: the rule for the names of studies and other mapping keys that become paths and wildcards
NAME_PATTERN = "^[a-z][a-z0-9_]*$"


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
    """The broken rule; for oneOf/anyOf every error of the branch that came closest (fewest
    errors), or each branch's first when they tie."""
    if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
        return error.message + _did_you_mean(error)
    if error.validator == "required" and isinstance(error.instance, Mapping):  # a valid key
        return error.message + _close(_missing_key(error), _unknown_keys(error), "key")  # no typo
    if error.validator == "enum" and isinstance(error.instance, str):
        return error.message + _close(error.instance, list(map(str, error.validator_value)), "")
    if error.validator == "type" and isinstance(error.instance, str) and _reads_as_yaml(error):
        return error.message + (
            " (text: Snakemake passes the values inside a nested --config as text; give "
            "nested settings in a file, --configfile)"
        )
    if error.validator not in ("oneOf", "anyOf") or not error.context:
        return error.message if len(error.message) <= 300 else error.message[:295] + " ..."
    branches: dict[int, list] = {}
    for sub in error.context:
        branches.setdefault(sub.schema_path[0], []).append(sub)
    fewest = min(len(subs) for subs in branches.values())
    closest = [subs for subs in branches.values() if len(subs) == fewest]
    if len(closest) == 1:  # each of its errors (two wrong units of a record), a line each
        return "\n  ".join(
            (f"{_field(sub.relative_path)}: " if sub.relative_path else "") + _reason(sub)
            for group in per_field(closest[0], relative=True)
            for sub in group
        )
    return " or ".join(_reason(subs[0]) for subs in closest)


def _reads_as_yaml(error: Any) -> bool:
    """Whether a string the schema wants as another type reads as that type in YAML ('50' for
    an integer): a value of a nested ``--config`` override, which Snakemake passes as text."""
    import jsonschema
    import yaml

    try:
        value = yaml.safe_load(error.instance)
    except yaml.YAMLError:
        return False
    return not isinstance(value, str) and jsonschema.Draft202012Validator(
        {"type": error.validator_value}
    ).is_valid(value)


def _close(word: str, candidates: list[str], kind: str) -> str:
    """``"; did you mean 'x'?"`` for the candidate most like ``word`` (a missing required key
    the block holds misspelt, a value one letter off its enum's), else ``""``."""
    import difflib

    close = difflib.get_close_matches(word, [c for c in candidates if c != word], n=1, cutoff=0.6)
    if not close:
        return ""
    if kind == "key":
        return f"; the block has {close[0]!r}: did you mean {word!r}?"
    return f"; did you mean {close[0]!r}?"


def _unknown_keys(error: Any) -> list[str]:
    """The keys of the mapping an error is about that its schema does not allow."""
    allowed = error.schema.get("properties", {})
    return [str(key) for key in error.instance if key not in allowed]


def _missing_key(error: Any) -> str:
    """The key a ``required`` error names ("'regressor' is a required property")."""
    return str(error.message.split("'")[1])


#: a 1-DOF record's field names and a robot record's (its columns and units), for a key given
#: in the other kind's terms (``units: {angle: deg}`` in a robot record)
OTHER_RECORD_FIELDS = {
    "angle": "q",
    "velocity": "dq",
    "torque": "tau",
    "q": "angle",
    "dq": "velocity",
    "tau": "torque",
}


def _did_you_mean(error: Any) -> str:
    """For unknown keys, the allowed key each most resembles (``unit`` -> ``units``), in a
    record's ``columns``/``units`` the other kind of record's name (``angle`` -> ``q``), or the
    enclosing block it belongs in (:func:`all_errors` finds it)."""
    import difflib

    allowed = list(error.schema.get("properties", {}))
    hints, moves = [], []
    for key in (k for k in error.instance if k not in allowed):
        if close := difflib.get_close_matches(str(key), allowed, n=1, cutoff=0.6):
            hints.append(f"{key!r} -> {close[0]!r}")
        elif (other := OTHER_RECORD_FIELDS.get(str(key))) in allowed:
            hints.append(f"{key!r} -> {other!r} (the name in this kind of record)")
        elif block := getattr(error, "belongs", {}).get(key):
            moves.append(f"{key!r} belongs in {block}, not inside it")
    return (f"; did you mean {', '.join(hints)}?" if hints else "") + "".join(
        f"; {m}" for m in moves
    )


def describe(error: Any, also: Sequence[Any] = ()) -> str:
    """A jsonschema ValidationError in two or three lines (a line more for each error ``also``
    of the same field); a key that breaks its mapping's rule for names (``propertyNames``: a
    study named ``my-arm``) is named as a key, not as a value."""
    if "propertyNames" in error.schema_path:
        why = (
            " (a name here becomes part of file paths and rule wildcards: a lower-case letter, "
            "then lower-case letters, digits and _)"
            if error.validator == "pattern" and error.validator_value == NAME_PATTERN
            else ""
        )
        names = " and ".join(_short(e.instance) for e in [error, *also])
        return (
            f"invalid config: {_field(error.absolute_path)}: the name{'s' if also else ''} "
            f"{names} {'are' if also else 'is'} not allowed: {_reason(error)}{why}\n"
            "  (schema: workflow/schemas/config.schema.yaml)"
        )
    reasons = "\n  ".join(_reason(e) for e in [error, *also])
    return (
        f"invalid config: {_field(error.absolute_path)} = {_short(error.instance)}\n"
        f"  {reasons}\n"
        "  (schema: workflow/schemas/config.schema.yaml)"
    )


#: the most schema errors one message lists (the rest are counted)
MAX_ERRORS = 5


def validate(config: dict, schema: str | Path) -> None:
    """Validate ``config`` against ``schema`` and fill its defaults (Snakemake's validate);
    raises :class:`ConfigError` with :func:`describe`'s message of every error (up to
    :data:`MAX_ERRORS`, by field) instead of the whole schema: one run names all
    the mistakes of a new config, not one per run."""
    import jsonschema
    from snakemake.exceptions import WorkflowError
    from snakemake.utils import validate as snakemake_validate

    try:
        snakemake_validate(config, str(Path(schema).resolve()))
    except WorkflowError as err:
        cause = err.__context__  # Snakemake raises its error while handling jsonschema's
        if not isinstance(cause, jsonschema.ValidationError):
            raise
        fields = all_errors(config, schema) or [[cause]]
        more = len(fields) - MAX_ERRORS
        text = "\n".join(describe(group[0], group[1:]) for group in fields[:MAX_ERRORS])
        raise ConfigError(text + (f"\n(and {more} more)" if more > 0 else "")) from None


def all_errors(config: Mapping, schema: str | Path) -> list[list[Any]]:
    """Every jsonschema error of ``config`` against ``schema``, grouped by field
    (:func:`per_field`), sorted by field."""
    import jsonschema

    from paramid import io

    document = io.read_yaml(schema)
    checker = jsonschema.validators.validator_for(document)(document)
    errors = sorted(checker.iter_errors(config), key=lambda e: [str(k) for k in e.absolute_path])
    for error in _with_context(errors):
        if error.validator == "additionalProperties" and isinstance(error.instance, Mapping):
            error.belongs = _where_keys_belong(document, config, error)  # read by _did_you_mean
    return per_field(errors)


def _with_context(errors: Sequence[Any]) -> list[Any]:
    """The errors and, recursively, those of their oneOf/anyOf branches."""
    return [e for error in errors for e in [error, *_with_context(error.context or [])]]


def _where_keys_belong(document: Mapping, config: Mapping, error: Any) -> dict[str, str]:
    """For each key an unexpected-key ``error`` names, the nearest enclosing block whose schema
    declares it (``checks`` written inside a study's record belongs to the study)."""
    path = list(error.absolute_path)
    found = {}
    for key in (k for k in _unknown_keys(error) if isinstance(k, str)):
        for depth in range(len(path) - 1, -1, -1):
            block = _instance_at(config, path[:depth])
            if isinstance(block, Mapping) and key in _declared_keys(
                document, document, path[:depth]
            ):
                found[key] = _field(path[:depth])
                break
    return found


def _instance_at(config: Any, path: Sequence[Any]) -> Any:
    for part in path:
        config = config[part]
    return config


def _declared_keys(document: Mapping, schema: Any, path: Sequence[Any]) -> set[str]:
    """The property names the (local-``$ref``) JSON schema ``schema`` of ``document`` declares
    for the mapping at instance ``path``, over every oneOf/anyOf/allOf and then/else branch."""
    if not isinstance(schema, Mapping):
        return set()
    if "$ref" in schema:
        schema = _instance_at(document, schema["$ref"].removeprefix("#/").split("/"))
    keys: set[str] = set()
    branches = [b for word in ("oneOf", "anyOf", "allOf") for b in schema.get(word, [])]
    for branch in branches + [schema[word] for word in ("then", "else") if word in schema]:
        keys |= _declared_keys(document, branch, path)
    if not path:
        return keys | set(schema.get("properties", {}))
    part, rest = path[0], path[1:]
    if isinstance(part, int):
        return keys | _declared_keys(document, schema.get("items"), rest)
    if part in schema.get("properties", {}):
        return keys | _declared_keys(document, schema["properties"][part], rest)
    return keys | _declared_keys(document, schema.get("additionalProperties"), rest)


def per_field(errors: Any, relative: bool = False) -> list[list[Any]]:
    """The errors grouped by field, in their order; a key named unexpected only as the
    misspelling of a missing one is left to the missing key's message ("the block has
    'regresor': did you mean 'regressor'?")."""
    fields: dict[tuple, list[Any]] = {}
    for error in errors:
        path = error.relative_path if relative else error.absolute_path
        fields.setdefault(tuple(path), []).append(error)
    groups = []
    for group in fields.values():
        missing = [_missing_key(e) for e in group if e.validator == "required"]
        groups.append([e for e in group if not _misspelling(e, missing)] or group[:1])
    return groups


def _misspelling(error: Any, missing: list[str]) -> bool:
    """An unexpected-key error whose every key resembles one of the ``missing`` required ones."""
    import difflib

    if error.validator != "additionalProperties" or not missing:
        return False
    return all(difflib.get_close_matches(k, missing, n=1, cutoff=0.6) for k in _unknown_keys(error))


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


def check_names(field: str, names: Any, known: list[str], regressor: list[str]) -> None:
    """Refuse ``names`` (of a config ``field``) that are not parameters of the regressor."""
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise ConfigError(
            f"{field}: {unknown} not parameters of this study's regressor {regressor} "
            f"(its parameters: {known})"
        )


def check_fourier_design(field: str, block: Mapping, harmonics: str, rest: bool) -> None:
    """A Fourier excitation design (Eq 8-9) the search can run: at least 2 harmonics where the
    joint rests at both ends (the rest conditions fix a₁ and b₁ of a single harmonic: a
    constant trajectory, 'every start gave a rank-deficient regressor'), and at least 4 grid
    points per harmonic (the search's own minimum, a traceback without the field)."""
    order, points = int(block[harmonics]), int(block["grid_points"])
    if rest and order < 2:
        raise ConfigError(
            f"{field}.{harmonics} = {order}: with rest at both ends (Eq 9) one harmonic leaves a "
            "constant trajectory; use 2 or more"
        )
    if points < 4 * order:
        raise ConfigError(
            f"{field}.grid_points = {points}: at least 4 per harmonic ({4 * order} for "
            f"{harmonics} = {order})"
        )


def check_base_study(config: Mapping, field: str, base: str) -> None:
    """A block that simulates on a twin study's settings (nonlinear studies, hip excitation
    designs) names a twin study under ``studies:`` as its ``base_study``."""
    studies = config["studies"]
    where = f"{field}.base_study = {base!r}"
    if base not in studies:
        raise ConfigError(f"{where}: no such study under studies: ({sorted(studies)})")
    if "trajectory" not in studies[base]["records"]["calibration"]:
        raise ConfigError(f"{where}: a measured study; this needs a twin study")
