"""The hip study's method registry: the rows of Table 3 (§4.1–§4.3).

Deterministic estimators (LS; BCLS of Eq 17 in the RLS box) run in rule ``fit``; the seeded
population methods of :data:`paramid.population.POPULATION_METHODS` in rule
``fit_population``.  The config schema's ``method`` enum equals :data:`METHODS` (tested).
"""

from __future__ import annotations

from paramid.population import POPULATION_METHODS

DETERMINISTIC_METHODS: tuple[str, ...] = ("ls", "bcls")
METHODS: tuple[str, ...] = (*DETERMINISTIC_METHODS, *POPULATION_METHODS)
FIG3_SELECTED: tuple[str, ...] = ("bcls", "rls_gwo", "rls_agwo")  # the fits of Figure 3a-b
#: Figure 4's sweeps (§4.5) and the unit of their values (the RLS bound margin is a fraction)
VALUE_UNITS: dict[str, str] = {"margin": "1", "cutoff_hz": "Hz"}
DISPLAY_NAMES: dict[str, str] = {  # Table 3 labels
    "ls": "LS",
    "bcls": "BCLS",
    **{method: spec.label for method, spec in POPULATION_METHODS.items()},
}


def display_name(method: str) -> str:
    """Table label of a method key (``rls_agwo`` → ``RLS-AGWO``)."""
    return DISPLAY_NAMES.get(method, method)
