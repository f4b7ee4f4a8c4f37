"""Identifiability of a calibration model (paper Eq 9-10): which subset to identify.

The columns are the candidate parameters of a model (the 24 geometric errors of Eq 6 for the
paper's model; the extended vector of :mod:`paramid.calibration.model` for the complete one).

The stacked position Jacobian at the nominal table is column-scaled (so rad and mm columns
compare); its SVD gives the rank and the unidentifiable combinations, QR with column
pivoting the identified subset (the first ``rank`` pivots).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin
from paramid.calibration import model
from paramid.calibration.problem import FloatArray, Problem

__all__ = [
    "METHOD",
    "Identifiability",
    "data_set_jacobians",
    "extended_jacobian",
    "identifiability",
    "model_identifiability",
    "model_summary",
    "models_identifiability",
    "pivoted_qr",
]

#: How the identified subset is chosen (the ``method`` entry of identifiability.json).
METHOD = (
    "SVD rank of the column-normalised stacked Jacobian at the nominal vector (training "
    "configurations of data set 0, rank re-checked on every data set); subset = first "
    "rank pivots of QR with column pivoting"
)


@dataclass(frozen=True)
class Identifiability:
    """Rank analysis of the stacked position Jacobian (Eq 9-10) at the nominal table.

    Columns are scaled to unit norm (so rad and mm columns compare); ``singular_values`` are
    those of the scaled matrix, descending; ``rank`` counts sigma_k > rel_tol sigma_1.
    ``pivots`` is the column order of QR with column pivoting (Businger-Golub) and
    ``r_diag`` the |R_kk| in that order; ``free`` = the first ``rank`` pivots (sorted), the
    identified subset.  ``null_space`` (24 - rank, 24) holds the right singular vectors of
    the unidentifiable combinations (in scaled coordinates).
    """

    names: list[str]
    column_norms: FloatArray
    singular_values: FloatArray
    rank: int
    rel_tol: float
    pivots: NDArray[np.int64]
    r_diag: FloatArray
    free: NDArray[np.int64]
    null_space: FloatArray

    @property
    def condition_number(self) -> float:
        """sigma_1 / sigma_rank of the scaled Jacobian restricted to its rank."""
        return float(self.singular_values[0] / self.singular_values[self.rank - 1])

    def combinations(self, threshold: float = 0.05) -> list[str]:
        """Each null-space vector written as a readable combination, e.g. ``+0.707 d2 ...``."""
        out = []
        for v in self.null_space:
            v = v * np.sign(v[np.argmax(np.abs(v))])
            terms = [
                f"{v[i]:+.3f} {self.names[i]}"
                for i in np.argsort(-np.abs(v))
                if abs(v[i]) >= threshold
            ]
            out.append(" ".join(terms))
        return out

    def table(self) -> pd.DataFrame:
        """One row per pivot position k: the pivoted parameter, |R_kk|, sigma_k, selected."""
        s1, r1 = self.singular_values[0], self.r_diag[0]
        return pd.DataFrame(
            {
                "k": np.arange(1, len(self.names) + 1),
                "pivot_parameter": [self.names[i] for i in self.pivots],
                "pivot_unit": [model.parameter_units()[self.names[i]] for i in self.pivots],
                "r_diag": self.r_diag,
                "r_diag_rel": self.r_diag / r1,
                "selected": np.arange(len(self.names)) < self.rank,
                "singular_value": self.singular_values,
                "singular_value_rel": self.singular_values / s1,
                "column_norm": self.column_norms[self.pivots],
            }
        )


def pivoted_qr(A: ArrayLike, tie_rtol: float = 1e-9) -> tuple[NDArray[np.int64], FloatArray]:
    """QR with column pivoting (Businger-Golub) with a deterministic tie-break.

    Step k picks the column with the largest norm after projecting out the columns already
    chosen; columns within ``tie_rtol`` of that norm count as tied and the lowest index wins,
    so exactly dependent columns (e.g. d2 and d3 of parallel axes) are resolved by Eq 6 order,
    never by rounding.  Modified Gram-Schmidt with re-orthogonalisation.  Returns the pivot
    order and |R_kk| (the residual norm of each pivot when chosen).
    """
    W = np.array(A, dtype=np.float64)
    n = W.shape[1]
    remaining = list(range(n))
    order, r_diag = [], []
    for _ in range(n):
        norms = np.linalg.norm(W[:, remaining], axis=0)
        top = norms.max()
        j = min(c for c, v in zip(remaining, norms, strict=True) if v >= (1.0 - tie_rtol) * top)
        order.append(j)
        r_diag.append(float(np.linalg.norm(W[:, j])))
        remaining.remove(j)
        if r_diag[-1] > 0 and remaining:
            q = W[:, j] / r_diag[-1]
            for _ in range(2):  # twice is enough (Giraud et al. 2005)
                W[:, remaining] -= np.outer(q, q @ W[:, remaining])
    return np.asarray(order, dtype=np.int64), np.asarray(r_diag)


def identifiability(
    J: ArrayLike, rel_tol: float = 1e-9, names: list[str] | None = None
) -> Identifiability:
    """Rank, singular values and the identifiable subset of a stacked Jacobian (3n, m).

    ``names`` label the m columns (default: the 24 DH parameters of Eq 6); ``free`` indexes
    the columns.
    """
    J = np.asarray(J, dtype=np.float64)
    names = kin.parameter_names() if names is None else list(names)
    if J.ndim != 2 or J.shape[1] != len(names):
        raise ValueError(f"J must be (3n, {len(names)}), got {J.shape}")
    norms = np.linalg.norm(J, axis=0)
    if np.any(norms == 0):
        zero = [n for n, v in zip(names, norms, strict=True) if v == 0]
        raise ValueError(f"parameters with an all-zero Jacobian column: {zero}")
    tiny = [n for n, v in zip(names, norms, strict=True) if v < 1e-12 * norms.max()]
    if tiny:
        raise ValueError(f"parameters whose Jacobian column is numerically zero: {tiny}")
    Js = J / norms
    _, s, vt = np.linalg.svd(Js, full_matrices=False)
    rank = int(np.count_nonzero(s > rel_tol * s[0]))
    piv, r_diag = pivoted_qr(Js)
    qr_rank = int(np.count_nonzero(r_diag > rel_tol * r_diag[0]))
    if qr_rank != rank:
        raise RuntimeError(f"QR rank {qr_rank} disagrees with SVD rank {rank}: adjust rel_tol")
    return Identifiability(
        names=names,
        column_norms=norms,
        singular_values=s,
        rank=rank,
        rel_tol=float(rel_tol),
        pivots=np.asarray(piv, dtype=np.int64),
        r_diag=r_diag,
        free=np.sort(piv[:rank]).astype(np.int64),
        null_space=vt[rank:],
    )


def model_identifiability(
    jacobians: Sequence[ArrayLike], candidates: ArrayLike, rel_tol: float = 1e-9
) -> tuple[Identifiability, NDArray[np.int64], list[int]]:
    """Identifiability of a model's ``candidates`` (indices into the extended vector of
    :mod:`paramid.calibration.model`) from the stacked Jacobians (3n, 38) of every data set
    at the nominal vector (:func:`extended_jacobian`): analysed on the first, the rank
    re-checked on every data set.

    Returns the analysis (columns = candidates), the identified subset as extended indices,
    and the rank on each data set.  A data set whose rank differs is an error: the subset
    would not be the same model.
    """
    cand = np.asarray(candidates, dtype=np.int64)
    names = [model.parameter_names()[i] for i in cand]
    analyses = [identifiability(np.asarray(J)[:, cand], rel_tol, names) for J in jacobians]
    ranks = [a.rank for a in analyses]
    if len(set(ranks)) > 1:
        raise ValueError(f"the model's rank differs between data sets: {ranks}")
    return analyses[0], cand[analyses[0].free], ranks


def extended_jacobian(problem: Problem) -> FloatArray:
    """The stacked Jacobian (3n, 38) of all extended parameters at the nominal vector on
    ``problem``'s training configurations (its ``free`` set is irrelevant)."""
    full = replace(problem, free=np.arange(model.N_EXTENDED))
    return full.jacobian(np.zeros(model.N_EXTENDED))[0]


def data_set_jacobians(frame: pd.DataFrame, truth: Mapping[str, Any]) -> list[FloatArray]:
    """:func:`extended_jacobian` of every data set of the twin's data frame (truth.json gives
    the nominal vector, the tool and the number of data sets): each computed once, every
    model's columns are a subset."""
    return [
        extended_jacobian(
            Problem.from_frame(frame, truth["nominal"], truth["tool_mm"], [], repeat=r)
        )
        for r in range(truth["n_datasets"])
    ]


def model_summary(
    name: str, spec: Mapping[str, Any], jacobians: Sequence[ArrayLike], rel_tol: float
) -> tuple[pd.DataFrame, dict[str, Any]]:
    """One model's identifiability (Eq 9-10, :func:`model_identifiability`) on its
    ``spec`` (``groups``, ``compliance_joints``): the pivot table with the model, its rank and
    candidate count in front, and the model's entry of identifiability.json (rank per data
    set, identified and fixed parameters, null-space combinations, conditioning)."""
    candidates = model.group_indices(spec["groups"], spec.get("compliance_joints", []))
    ident, free, ranks = model_identifiability(jacobians, candidates, rel_tol)
    names = model.parameter_names()
    table = ident.table()
    table.insert(0, "model", name)
    table.insert(1, "rank", ident.rank)
    table.insert(2, "candidates", len(candidates))
    summary = {
        "groups": spec["groups"],
        "candidates": len(candidates),
        "rank": ident.rank,
        "ranks_per_data_set": ranks,
        "rel_tol": ident.rel_tol,
        "free": free.tolist(),
        "free_names": [names[i] for i in free],
        "fixed_names": [names[i] for i in candidates if i not in set(free.tolist())],
        "unidentifiable_combinations": ident.combinations(),
        "condition_number_identified": ident.condition_number,
        "singular_values_scaled": ident.singular_values.tolist(),
    }
    return table, summary


def models_identifiability(
    jacobians: Sequence[ArrayLike], models: Mapping[str, Mapping[str, Any]], rel_tol: float
) -> tuple[pd.DataFrame, dict[str, dict[str, Any]]]:
    """:func:`model_summary` of every model of a study's ``models`` block: the pivot tables
    stacked (identifiability.csv) and ``{model: entry}`` (identifiability.json)."""
    parts = {name: model_summary(name, spec, jacobians, rel_tol) for name, spec in models.items()}
    table = pd.concat([t for t, _ in parts.values()], ignore_index=True)
    return table, {name: summary for name, (_, summary) in parts.items()}
