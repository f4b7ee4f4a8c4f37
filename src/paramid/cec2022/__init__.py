"""Benchmark problems for the optimisers (CEC 2022 single-objective suite)."""

from paramid.cec2022.functions import (
    BIASES,
    CEC2022,
    FUNCTION_NAMES,
    SUPPORTED_DIMS,
    SUPPORTED_FUNCTIONS,
)

__all__ = ["BIASES", "CEC2022", "FUNCTION_NAMES", "SUPPORTED_DIMS", "SUPPORTED_FUNCTIONS"]
