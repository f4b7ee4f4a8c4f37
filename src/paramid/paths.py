"""Output-path confinement: every folder the workflow writes lies in ``results/`` or ``logs/``.

A configured output location (``cec2022.output``, ``cec2022.logs``) is resolved against the
working directory, symlinks included, and refused when it leaves its root: ``..`` segments,
absolute paths elsewhere and a folder that is a symlink pointing out all give one
:class:`PathError` naming the config field.  The roots themselves may be symlinks (results on
a scratch disk); what lies beneath them must stay beneath them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from paramid.errors import UserError

ROOTS = ("results", "logs")


class PathError(UserError):
    """A configured output location outside the folders the workflow may write."""


def confine(
    value: str,
    field: str,
    root: str,
    *,
    workdir: Path | None = None,
    taken: Mapping[str, str] | None = None,
) -> str:
    """``value`` as a relative path under ``root`` (``results`` or ``logs``) of ``workdir``.

    Raises :class:`PathError` naming ``field`` when the resolved path (every symlink on the way
    followed) is not strictly inside the resolved root, or when its first folder below the
    root is a key of ``taken`` (another study's folder, whose files it would overwrite; the
    value is that study's config field).
    """
    if root not in ROOTS:
        raise ValueError(f"root must be one of {ROOTS}, not {root!r}")
    workdir = (workdir or Path.cwd()).resolve()
    base = (workdir / root).resolve()
    given = Path(value)
    target = (given if given.is_absolute() else workdir / given).resolve()
    if target == base or base not in target.parents:
        lexical = Path(os.path.normpath(workdir / given))
        if target == base:
            how = f"is {root}/ itself"
        elif (workdir / root) in lexical.parents:
            how = f"follows a symlink out of {root}/"
        else:
            how = f"lies outside {root}/"
        raise PathError(
            f"{field} = {value!r} resolves to {target}, which {how}: the workflow writes only "
            f"into folders inside {'/ and '.join(ROOTS)}/ of {workdir} (use e.g. {root}/<name>)"
        )
    relative = target.relative_to(base)
    owner = (taken or {}).get(relative.parts[0])
    if owner:
        raise PathError(
            f"{field} = {value!r} lies in {root}/{relative.parts[0]}, the folder of {owner}: "
            f"choose another folder or rename {owner}"
        )
    return f"{root}/{relative.as_posix()}"


def check_study_folders(names: Iterable[str], *, workdir: Path | None = None) -> None:
    """Refuse a study folder ``results/<name>`` or ``logs/<name>`` that is a symlink leaving
    its root (names are plain identifiers, so only a symlink can lead out)."""
    for name in names:
        for root in ROOTS:
            confine(f"{root}/{name}", f"the folder of study {name!r}", root, workdir=workdir)
