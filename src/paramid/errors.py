"""The error every user-facing check raises; kept free of heavy imports so that the
workflow's start (Snakefile, config checks) can raise it without loading pandas."""

from __future__ import annotations


class UserError(ValueError):
    """An error whose message is the whole story (bad input, an unreadable file): a job prints
    it without a traceback (see :func:`paramid.io.start_log`)."""


class InputError(UserError):
    """A defect in a user's input file or config, with the place it was found."""
