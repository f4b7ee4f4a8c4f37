"""The organisers' data of the CEC 2022 suite: shift vectors, rotation matrices, shuffles.

The files are shipped unchanged as package data in ``paramid/cec2022/data/cec2022`` (see
``SOURCE.md`` there) and parsed as ``cec22_test_func.cpp`` does (public repository
``P-N-Suganthan/2022-SO-BO``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]

SUPPORTED_DIMS: tuple[int, ...] = (10, 20)
SUPPORTED_FUNCTIONS: tuple[int, ...] = tuple(range(1, 13))

#: Package (importlib.resources anchor) holding the organisers' data files in data/cec2022/.
DATA_PACKAGE = "paramid.cec2022"
_DATA_SUBDIR = ("data", "cec2022")

#: Number of components (rows of shift_data_N, matrices in M_N_DD) of F9-F12.
N_COMPONENTS = {9: 5, 10: 3, 11: 5, 12: 6}


@dataclass(frozen=True)
class CEC2022Data:
    """Organisers' data for one function and dimension (read-only arrays).

    Attributes:
        shifts: ``(K, D)`` shift vectors ``o_k`` (``K = 1`` for F1-F8, the number of
            components for the composition functions F9-F12).
        rotations: ``(K, D, D)`` rotation matrices ``M_k``; the rotated point is ``M_k @ y``.
        shuffle: ``(D,)`` zero-based permutation for the hybrid functions F6-F8, else ``None``.
    """

    shifts: FloatArray
    rotations: FloatArray
    shuffle: NDArray[np.intp] | None


def _read_text(name: str) -> str:
    path = resources.files(DATA_PACKAGE).joinpath(*_DATA_SUBDIR, name)
    try:
        return path.read_text(encoding="ascii")
    except FileNotFoundError as exc:  # pragma: no cover - broken installation
        raise FileNotFoundError(
            f"CEC2022 data file {name!r} missing from package data {DATA_PACKAGE}/"
            f"{'/'.join(_DATA_SUBDIR)}; reinstall paramid"
        ) from exc


def check_problem(function: object, dim: object) -> None:
    """Raise ``ValueError`` unless ``function`` is an int in 1..12 and ``dim`` is 10 or 20."""
    if isinstance(function, bool) or not isinstance(function, int | np.integer):
        raise ValueError(f"CEC2022 function number must be an int in 1..12, got {function!r}")
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise ValueError(f"CEC2022 dimension must be an int, one of {SUPPORTED_DIMS}, got {dim!r}")
    if function not in SUPPORTED_FUNCTIONS:
        raise ValueError(f"CEC2022 defines functions 1..12, got function={function}")
    if dim not in SUPPORTED_DIMS:
        raise ValueError(
            f"CEC2022 functions are provided for D in {SUPPORTED_DIMS} only, got dim={dim}"
        )


@cache
def load_data(function: int, dim: int) -> CEC2022Data:
    """Load (and cache) the organisers' shift, rotation and shuffle data.

    Parsing follows ``cec22_test_func.cpp``: the rotation file is read as a flat stream of
    row-major ``D x D`` matrices; for F1-F8 the shift is the first ``D`` numbers of
    ``shift_data_N.txt``; for F9-F12 component ``k`` uses the first ``D`` numbers of line
    ``k``; the shuffle file holds a one-based permutation.

    Raises:
        ValueError: for a function outside 1..12 or a dimension other than 10 or 20.
    """
    check_problem(function, dim)
    function, dim = int(function), int(dim)
    k = N_COMPONENTS.get(function, 1)

    m_flat = np.array(_read_text(f"M_{function}_D{dim}.txt").split(), dtype=np.float64)
    rotations = m_flat[: k * dim * dim].reshape(k, dim, dim)

    shift_text = _read_text(f"shift_data_{function}.txt")
    if k == 1:
        shifts = np.array(shift_text.split()[:dim], dtype=np.float64)[None, :]
    else:
        lines = [ln for ln in shift_text.splitlines() if ln.strip()]
        shifts = np.array([ln.split()[:dim] for ln in lines[:k]], dtype=np.float64)
    if shifts.shape != (k, dim) or rotations.shape != (k, dim, dim):  # pragma: no cover
        raise ValueError(f"malformed CEC2022 data for F{function}, D={dim}")

    shuffle = None
    if 6 <= function <= 8:
        perm = np.array(_read_text(f"shuffle_data_{function}_D{dim}.txt").split(), dtype=np.intp)
        shuffle = perm[:dim] - 1
        if sorted(shuffle.tolist()) != list(range(dim)):  # pragma: no cover
            raise ValueError(f"malformed CEC2022 shuffle for F{function}, D={dim}")
        shuffle.flags.writeable = False

    shifts.flags.writeable = False
    rotations = np.ascontiguousarray(rotations)
    rotations.flags.writeable = False
    return CEC2022Data(shifts=shifts, rotations=rotations, shuffle=shuffle)
