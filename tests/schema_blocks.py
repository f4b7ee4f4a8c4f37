"""The schema's defaults of one config block, for tests that call the library directly (the
library takes validated blocks, every key present; defaults live in the schema only)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

SCHEMA = Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml"


def defaults(*path: str) -> dict[str, Any]:
    """Defaults of the block at ``path`` (property names; ``*`` for a study of a family, e.g.
    ``defaults("robots", "*", "lmi")``; ``"$defs", name`` first for a definition's), ``$ref``s
    into ``$defs`` followed."""
    schema = yaml.safe_load(SCHEMA.read_text())

    def resolve(node: dict) -> dict:
        while "$ref" in node:
            node = schema["$defs"][node["$ref"].rsplit("/", 1)[1]]
        return node

    node = resolve(schema)
    if path and path[0] == "$defs":  # a definition's block: defaults("$defs", "record")
        node, path = resolve(schema["$defs"][path[1]]), path[2:]
    for key in path:
        node = resolve(node["additionalProperties"] if key == "*" else node["properties"][key])
    return {k: v["default"] for k, v in node["properties"].items() if "default" in v}
