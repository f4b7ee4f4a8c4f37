"""The fitting methods of the nonlinear-friction study (hip paper §5.1, §5.3): one registry.

The population methods are the hip study's (Table 2, :data:`paramid.population.
POPULATION_METHODS`, with its table names); the deterministic baselines are multi-start
trust-region least squares and variable projection (:mod:`paramid.friction.fitters`).
Config ``nonlinear.<study>.methods`` names a subset of :data:`METHOD_NAMES`.
"""

from __future__ import annotations

from paramid import population

POPULATION: tuple[str, ...] = tuple(population.POPULATION_METHODS)  # pso ... rls_agwo
DETERMINISTIC: tuple[str, ...] = ("least_squares", "varpro")
METHOD_NAMES: tuple[str, ...] = POPULATION + DETERMINISTIC

#: Table and legend name of every method.
DISPLAY: dict[str, str] = {
    **{m: population.POPULATION_METHODS[m].label for m in POPULATION},
    "least_squares": "LSQ-TRF",
    "varpro": "VarPro",
}

#: The reference method of the statistics (a) and the methods it is compared with (b).
REFERENCE = "rls_agwo"
COMPARATORS: tuple[str, ...] = (  # the nearest peer first, then the registry's order
    "rls_gwo",
    *(m for m in METHOD_NAMES if m not in (REFERENCE, "rls_gwo")),
)
