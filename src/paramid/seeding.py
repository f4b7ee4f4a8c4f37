"""Named random streams: every draw in paramid comes from a SeedSequence keyed by names.

A stream is identified by a tuple of keys such as ``("hip", "rls_gwo", 7)``.  Strings are
mapped to 32-bit words through SHA-256 (never Python's per-process ``hash()``), so the same
keys give the same numbers in every process, at any ``--cores``, and on rerun.
"""

from __future__ import annotations

import hashlib

import numpy as np

Key = str | int


def _words(key: Key) -> list[int]:
    """Map one key to a list of uint32 words (ints pass through, strings are hashed)."""
    if isinstance(key, bool) or not isinstance(key, (int, np.integer, str)):
        raise TypeError(f"seed keys must be str or int, got {type(key).__name__}: {key!r}")
    if isinstance(key, str):
        digest = hashlib.sha256(key.encode("utf-8")).digest()
        return [int.from_bytes(digest[i : i + 4], "little") for i in range(0, 16, 4)]
    if key < 0:
        raise ValueError(f"integer seed keys must be non-negative, got {key}")
    return [int(key) & 0xFFFFFFFF, int(key) >> 32]


def seed_sequence(*keys: Key) -> np.random.SeedSequence:
    """SeedSequence whose entropy is the concatenated words of ``keys`` (order matters)."""
    if not keys:
        raise ValueError("a named stream needs at least one key")
    entropy: list[int] = []
    for key in keys:
        entropy.extend(_words(key))
        entropy.append(0x9E3779B9)  # separator: ("ab", 1) never collides with ("a", "b1")
    return np.random.SeedSequence(entropy)


def generator(*keys: Key) -> np.random.Generator:
    """A PCG64 generator for the stream named by ``keys``."""
    return np.random.default_rng(seed_sequence(*keys))
