"""The error every user-facing check raises; kept free of heavy imports so that the
workflow's start (Snakefile, config checks) can raise it without loading pandas."""

from __future__ import annotations

from collections.abc import Mapping


class UserError(ValueError):
    """An error whose message is the whole story (bad input, an unreadable file): a job prints
    it without a traceback (see :func:`paramid.io.start_log`)."""


class InputError(UserError):
    """A defect in a user's input file or config, with the place it was found."""


def raise_together(where: str, failed: Mapping[str, UserError]) -> None:
    """The records' problems of one study in one error, each message once (``failed``: message
    -> error): the error itself where one failed, else an :class:`InputError` ``<where>: N
    records have problems:`` listing them; nothing where none did."""
    if len(failed) == 1:
        raise next(iter(failed.values()))
    if failed:
        problems = "\n".join(failed)
        raise InputError(f"{where}: {len(failed)} records have problems:\n{problems}")
