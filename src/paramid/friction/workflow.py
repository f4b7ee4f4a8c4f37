"""The workflow side of the nonlinear-friction studies (``nonlinear:`` in config.yaml; rules
nonlinear.smk): the studies, their checks, each rule's config subset and the final targets.

The trajectories, twin noise, signal chain, RLS, budget and Table 2 settings of a study come
from its ``base_study`` under ``studies:`` (a twin study).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paramid.config import check_base_study
from paramid.friction import laws
from paramid.workflow import Family, Wildcards, fixed_signal_settings

FRICTION_LAWS = list(laws.MODELS)


class NonlinearStudies(Family):
    """The ``nonlinear:`` block: twin variants of the hip with other friction laws."""

    laws = FRICTION_LAWS

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.blocks: Mapping[str, Any] = config.get("nonlinear") or {}
        self.names = list(self.blocks)
        for name, block in self.blocks.items():
            check_base_study(config, f"nonlinear.{name}", block["base_study"])

    def study(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.blocks[wildcards.study]

    def base(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.config["studies"][self.study(wildcards)["base_study"]]

    def data_params(self, wildcards: Wildcards) -> dict[str, Any]:
        nl, base = self.study(wildcards), self.base(wildcards)
        return {
            "study": wildcards.study,
            "truth": wildcards.truth,
            "truth_values": nl["truths"][wildcards.truth],
            "gravity": base["gravity"],
            "twin": base["twin"],
            "records": base["records"],
            "signals": fixed_signal_settings(base["signals"]),
            "rls": base["rls"],
            "agwo": base["agwo"],
        }

    def fit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        nl, base = self.study(wildcards), self.base(wildcards)
        keys = ("fitted", "methods", "friction_bounds", "timing_repeats", "least_squares", "varpro")
        return {
            "study": wildcards.study,
            "truth": wildcards.truth,
            "truth_values": nl["truths"][wildcards.truth],
            "gravity": base["gravity"],
            "target_fraction": nl["target_fraction"],
            **{k: nl[k] for k in keys},
            "base": {k: base[k] for k in ("population", "pso", "ga", "agwo")},
        }

    def figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {
            "truth": wildcards.truth,
            "truth_values": self.study(wildcards)["truths"][wildcards.truth],
        }

    def tables_params(self, wildcards: Wildcards) -> dict[str, Any]:
        nl = self.study(wildcards)
        twin = self.base(wildcards)["twin"]  # whether its noise is the fitted one (audit)
        return {
            "study": wildcards.study,
            "fitted": nl["fitted"],
            "stats": nl["stats"],
            "twin": twin,
        }

    def fits(self, wildcards: Wildcards) -> list[str]:
        return [
            f"results/{wildcards.study}/fits/{truth}.parquet"
            for truth in self.study(wildcards)["truths"]
        ]

    def study_targets(self, name: str) -> list[str]:
        base = f"results/{name}"
        targets = [f"{base}/tables/{t}.csv" for t in ("summary", "stats")]
        targets += [f"{base}/tables/stats.md", f"{base}/audit.csv", f"{base}/audit.md"]
        truths = self.blocks[name]["truths"]
        return targets + [f"{base}/figures/{t}.{ext}" for t in truths for ext in ("png", "pdf")]
