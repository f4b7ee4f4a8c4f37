"""The workflow side of the kinematic-calibration studies (``calibration:`` in config.yaml;
rules calibration.smk): the studies, their checks, each rule's config subset and targets.

The identifiers, the config blocks each reads and the Table 9 (polishing) rows come from the
library's one registry, :data:`paramid.calibration.identify.IDENTIFIERS`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from paramid.calibration import model, paper
from paramid.calibration.identify import IDENTIFIERS
from paramid.calibration.paper import FIT_IDENTIFIERS, HYBRIDS, PAPER_IDENTIFIERS
from paramid.calibration.problem import split_sizes
from paramid.config import ConfigError
from paramid.workflow import Family, Wildcards, check_paper_values, mark_validated

FIGURES = ("fig8", "fig10", "fig11", "fig12", "fig13", "models")
TABLES = (
    "table6",
    "table7",
    "models",
    "hybrid_runtime",
    "parameter_recovery_summary",
    "table8",
    "table9",
)
#: every joint's range this narrow [deg] is one given in radians (two turns: a joint limited to
#: ±350°, 12.2 rad; no arm moves less than 12.6° on every joint)
RADIAN_RANGE_DEG = 4 * math.pi
#: a robot whose every DH length is below this [mm] is one given in metres
METRE_LENGTH_MM = 10.0
POLISHING = [name for name, spec in IDENTIFIERS.items() if spec.polishing]
# the blocks every twin stage reads
TWIN_BLOCKS = ("robot", "twin", "mass_model", "runs")


class CalibrationStudies(Family):
    """The ``calibration:`` block: one KR210-style study per entry."""

    figures = FIGURES

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.blocks: Mapping[str, Any] = config.get("calibration") or {}
        self.names = list(self.blocks)
        # the studies that give the paper's printed values: the claims audit is theirs
        self.audited_names = [n for n in self.names if self.blocks[n].get("paper_values")]
        self.identifiers = list(IDENTIFIERS)
        self.models = sorted({m for study in self.blocks.values() for m in study["models"]})
        for name in self.names:
            self._check(name)

    def _check(self, name: str) -> None:
        """The paper's model runs every identifier Tables 6-9 read; compliance groups name
        their joints; the robot's table is standard DH in mm and degrees; every model has
        more training equations than candidate parameters and a validation pose is left."""
        study = self.blocks[name]
        check_robot_units(name, study)
        for model_name, spec in study["models"].items():
            if ("compliance" in spec["groups"]) != bool(spec.get("compliance_joints")):
                raise ConfigError(
                    f"calibration.{name}.models.{model_name}: compliance_joints lists the joints "
                    "of the 'compliance' group (give both or neither)"
                )
        check_pose_count(name, study)
        paper = study["models"]["paper"]["identifiers"]
        missing = [i for i in PAPER_IDENTIFIERS if paper != "all" and i not in paper]
        if missing:
            raise ConfigError(
                f"calibration.{name}.models.paper.identifiers lacks {missing}: Tables 6-9 of "
                "the paper's model read them (use 'all')"
            )

    def check_inputs(self) -> None:
        """The YAML of the paper's printed values (Tables 6-9, §3.2.2) of every study that
        gives one."""
        stamps = []
        for name in self.names:
            if path := self.blocks[name].get("paper_values"):
                field = f"calibration.{name}.paper_values"
                stamps += check_paper_values(path, field, paper.printed_values)
        mark_validated(stamps)

    def study(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.blocks[wildcards.study]

    def paper_values(self, wildcards: Wildcards) -> list[str]:
        """The paper's printed values, when the study gives them (none: no paper columns)."""
        path = self.blocks[wildcards.study].get("paper_values")
        return [path] if path else []

    def _params(self, wildcards: Wildcards, keys: Sequence[str], **extra: Any) -> dict[str, Any]:
        study = self.study(wildcards)
        return {"study": wildcards.study, **{k: study[k] for k in keys}, **extra}

    def simulate_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(wildcards, TWIN_BLOCKS)

    def identifiability_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """Each model's candidate parameters (its groups and compliance joints, Eq 9-10), not
        its identifiers: adding one to a model reruns that fit alone, not the identifiability
        every fit reads."""
        models = {
            name: {k: v for k, v in spec.items() if k != "identifiers"}
            for name, spec in self.study(wildcards)["models"].items()
        }
        return self._params(wildcards, ("identifiability",), models=models)

    def identify_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """Only the blocks this identifier reads (editing one reruns only its readers)."""
        blocks = IDENTIFIERS[wildcards.identifier].blocks
        return self._params(
            wildcards,
            ("runs", *blocks),
            model=wildcards.model,
            identifier=wildcards.identifier,
        )

    def tables_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(wildcards, ("runs",), n_boot=10000)

    def stats_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {"study": wildcards.study, "n_boot": 10000}

    def polishing_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(wildcards, (*TWIN_BLOCKS, "polishing"))

    def figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(
            wildcards, ("runs",), figure=wildcards.figure, style=self.config["figures"]
        )

    def audit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {"study": wildcards.study, "twin": self.blocks[wildcards.study]["twin"]}

    # -- inputs ----------------------------------------------------------------------------
    def data(self, wildcards: Wildcards) -> dict[str, str]:
        """The data set, the truth and the identifiability of a study."""
        base = f"results/{wildcards.study}/calibration"
        return {
            "data": f"{base}/dataset.parquet",
            "truth": f"{base}/truth.json",
            "ident": f"{base}/identifiability.json",
        }

    def model_identifiers(self, study: str) -> dict[str, list[str]]:
        """{model: identifiers} of a study (``all`` = every registered identifier)."""
        models = self.blocks[study]["models"]
        return {
            name: self.identifiers if spec["identifiers"] == "all" else list(spec["identifiers"])
            for name, spec in models.items()
        }

    def paper_fits(self, wildcards: Wildcards, identifiers: Sequence[str] = ()) -> list[str]:
        """Fits of the paper's model (Tables 6-8, figures)."""
        names = identifiers or self.model_identifiers(wildcards.study)["paper"]
        base = f"results/{wildcards.study}/calibration/fits/paper"
        return [f"{base}/{name}.parquet" for name in names]

    def audit_fits(self, wildcards: Wildcards) -> list[str]:
        """The fits the audit's ordering claims compare pairwise."""
        return self.paper_fits(wildcards, FIT_IDENTIFIERS)

    def audit_histories(self, wildcards: Wildcards) -> list[str]:
        """The training curves of M5 and the hybrids (the §3.2.2 convergence claims)."""
        base = f"results/{wildcards.study}/calibration/histories/paper"
        return [f"{base}/{name}.parquet" for name in HYBRIDS]  # M5 is the first

    def all_fits(self, wildcards: Wildcards) -> list[str]:
        """Fits of every model and its identifiers."""
        return self._fits(wildcards, polishing=False)

    def polishing_fits(self, wildcards: Wildcards) -> list[str]:
        """Fits of the identifiers of Table 9's rows, every model."""
        return self._fits(wildcards, polishing=True)

    def _fits(self, wildcards: Wildcards, polishing: bool) -> list[str]:
        return [
            f"results/{wildcards.study}/calibration/fits/{model}/{ident}.parquet"
            for model, idents in self.model_identifiers(wildcards.study).items()
            for ident in idents
            if not polishing or ident in POLISHING
        ]

    def figure_fits(self, wildcards: Wildcards) -> list[str]:
        """Fig 8 reads no fit, the models figure every model's, the others the paper model's."""
        if wildcards.figure == "fig8":
            return []
        return (
            self.all_fits(wildcards) if wildcards.figure == "models" else self.paper_fits(wildcards)
        )

    def figure_histories(self, wildcards: Wildcards) -> list[str]:
        if wildcards.figure == "fig8":
            return []
        base = f"results/{wildcards.study}/calibration/histories/paper"
        return [f"{base}/{i}.parquet" for i in self.model_identifiers(wildcards.study)["paper"]]

    # -- targets ---------------------------------------------------------------------------
    def study_targets(self, study: str) -> list[str]:
        """Every table and figure; the audit where the study gives the paper's values."""
        base = f"results/{study}"
        audit = [f"{base}/audit.csv", f"{base}/audit.md"]
        return [
            f"{base}/identifiability.csv",
            *(f"{base}/tables/{t}.{ext}" for t in TABLES for ext in ("csv", "md")),
            f"{base}/tables/parameter_recovery.csv",
            *(audit if study in self.audited_names else []),
            *(f"{base}/figures/{f}.{ext}" for f in FIGURES for ext in ("png", "pdf")),
        ]


def check_robot_units(name: str, study: Mapping[str, Any]) -> None:
    """The robot's table in the units and convention the study reads: standard DH (the
    identification models, Hayati's β on the parallel axes 2-3, and the twin are built on
    it: ``paramid.calibration.problem``), lengths in mm and joint limits in degrees (DH
    angles in radians are not told apart: 1.57° is a possible twist)."""
    field = f"calibration.{name}.robot"
    robot, limits = study["robot"], study["twin"]["joint_limits_deg"]
    if robot["convention"] != "standard":
        raise ConfigError(
            f"{field}.convention = {robot['convention']}: the identification models and the "
            "twin are built on standard DH (Hayati's beta on the parallel axes; "
            "docs/kr210.md section 1): give the table in standard DH"
        )
    longest = max(abs(v) for key in ("a_mm", "d_mm") for v in robot["dh"][key])
    if longest < METRE_LENGTH_MM:
        raise ConfigError(
            f"{field}.dh: the longest of a_mm and d_mm is {longest:g} mm: lengths in metres? "
            "give them in mm (1 m is 1000)"
        )
    ranges = [hi - lo for lo, hi in zip(limits["lower"], limits["upper"], strict=True)]
    if max(ranges) <= RADIAN_RANGE_DEG:
        raise ConfigError(
            f"calibration.{name}.twin.joint_limits_deg: every joint's range is at most "
            f"{max(ranges):.4g} deg: limits in radians? give them in degrees (pi is 180)"
        )


def check_pose_count(name: str, study: Mapping[str, Any]) -> None:
    """Each model's candidate parameters need more training equations (3 per pose) than there
    are of them, or its fit interpolates the training poses; validation needs a pose."""
    twin = study["twin"]
    n_train, n_validation = split_sizes(twin["selected"], twin["train_fraction"])
    needed = {
        model_name: model.group_indices(spec["groups"], spec.get("compliance_joints", [])).size
        for model_name, spec in study["models"].items()
    }
    largest = max(needed, key=needed.__getitem__)
    if 3 * n_train <= needed[largest] or n_validation < 1:
        raise ConfigError(
            f"calibration.{name}.twin: selected = {twin['selected']} poses at train_fraction = "
            f"{twin['train_fraction']:g} give {n_train} training poses ({3 * n_train} "
            f"equations) and {n_validation} for validation; model {largest!r} has "
            f"{needed[largest]} candidate parameters: select at least "
            f"{needed[largest] // 3 + 1} training poses and one for validation"
        )
