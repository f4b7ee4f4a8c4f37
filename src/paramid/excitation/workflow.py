"""The workflow side of the excitation designs (``excitation:`` in config.yaml; rules
excitation.smk): the hip designs (a 1-DOF design on a twin study's model, compared with Eq 18)
and the planar-chain designs, their checks, config subsets and final targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from paramid.config import ConfigError, check_base_study, check_fourier_design
from paramid.cutoff import nyquist_text
from paramid.workflow import Family, Wildcards, fixed_signal_settings

# keys of a design block that the design itself does not read
NOT_DESIGN = ("comparison", "twin", "identification")


class ExcitationDesigns(Family):
    """The ``excitation:`` block: one design (and its test) per entry, under results/<name>/."""

    def __init__(self, config: Mapping[str, Any]) -> None:
        self.config = config
        self.blocks: Mapping[str, Any] = config.get("excitation") or {}
        self.names = list(self.blocks)
        self.hip = [k for k, v in self.blocks.items() if v["kind"] == "hip"]
        self.chain = [k for k, v in self.blocks.items() if v["kind"] == "chain"]
        for name, block in self.blocks.items():  # both kinds rest at both ends (Eq 9)
            check_fourier_design(f"excitation.{name}", block, "order", rest=True)
        for name in self.hip:
            base = self.blocks[name]["base_study"]
            check_base_study(config, f"excitation.{name}", base)
            rate = f"studies.{base}.twin.sample_rate_hz"
            whole_period(name, self.blocks[name], config["studies"][base]["twin"], rate)
        for name in self.chain:
            block = self.blocks[name]
            chain_limits(name, block)
            whole_period(name, block, block["twin"], f"excitation.{name}.twin.sample_rate_hz")
            fs = float(block["twin"]["sample_rate_hz"])
            cut = float(block["identification"]["cutoff_hz"])
            if above := nyquist_text(cut, fs):
                raise ConfigError(
                    f"excitation.{name}.identification.cutoff_hz = {above} of "
                    f"excitation.{name}.twin.sample_rate_hz"
                )

    def block(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.blocks[wildcards.study]

    def base_study(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.config["studies"][self.block(wildcards)["base_study"]]

    def design_params(self, wildcards: Wildcards) -> dict[str, Any]:
        block = self.block(wildcards)
        design = {k: v for k, v in block.items() if k not in NOT_DESIGN}
        if block["kind"] == "chain":
            design["sample_rate_hz"] = block["twin"]["sample_rate_hz"]
            return {"design": design}
        study = self.base_study(wildcards)
        design["sample_rate_hz"] = study["twin"]["sample_rate_hz"]
        record = block["limits_from_record"]
        base = {
            "regressor": study["regressor"],
            "gravity": study["gravity"],
            "records": {record: study["records"][record]},
        }
        return {"design": design, "base": base}

    def compare_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.base_study(wildcards)
        base = {k: study[k] for k in ("twin", "gravity", "regressor", "records", "rls")}
        base["signals"] = fixed_signal_settings(study["signals"])
        return {"comparison": self.block(wildcards)["comparison"], "base": base}

    def figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        calibration = self.base_study(wildcards)["records"]["calibration"]
        return {"calibration": calibration, "style": self.config["figures"]}

    def chain_recovery_params(self, wildcards: Wildcards) -> dict[str, Any]:
        block = self.block(wildcards)
        design = {k: block[k] for k in ("kind", "gravity", "links", "base_samples")}
        return {"design": design, "twin": block["twin"], "identification": block["identification"]}

    def audit_inputs(self, wildcards: Wildcards) -> dict[str, str]:
        """The design, and for a hip design its comparison on the twin (table and seeds)."""
        base = f"results/{wildcards.study}"
        inputs = {"design": f"{base}/excitation/design.json"}
        if wildcards.study in self.hip:
            inputs |= {
                "comparison": f"{base}/tables/comparison.csv",
                "seeds": f"{base}/comparison/seeds.parquet",
            }
        return inputs

    def audit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {"study": wildcards.study}

    def study_targets(self, name: str) -> list[str]:
        base = f"results/{name}"
        targets = [f"{base}/excitation/design.json", f"{base}/excitation/trajectory.parquet"]
        targets += [f"{base}/audit.csv", f"{base}/audit.md"]
        if name in self.hip:
            tables = ("comparison.csv", "comparison_sensitivity.csv")
            figures = ("excitation.png", "excitation.pdf")
            return (
                targets
                + [f"{base}/tables/{t}" for t in tables]
                + [f"{base}/figures/{f}" for f in figures]
            )
        return targets + [f"{base}/tables/recovery.{ext}" for ext in ("csv", "json")]


def whole_period(name: str, block: Mapping[str, Any], twin: Mapping[str, Any], rate: str) -> None:
    """The design's period spans a whole number of the twin's samples: the comparison records
    several periods and averages them sample by sample (``signals.average_periods``); a
    fractional period shifts each one against the others (a job's traceback without the
    field, or a misaligned average)."""
    fs, period = float(twin["sample_rate_hz"]), float(block["period_s"])
    samples = period * fs
    if abs(samples - round(samples)) > 1e-9:
        raise ConfigError(
            f"excitation.{name}.period_s = {period:g} s is {samples:.6g} samples at {rate} = "
            f"{fs:g} Hz: the periods are averaged sample by sample; use a period of a whole "
            "number of samples"
        )


def chain_limits(name: str, block: Mapping[str, Any]) -> None:
    """A chain design's ``limits``: one value per link in every list, and q_min < q_max per
    joint (each was a job's traceback without the field: a length mismatch, or 'empty
    limits' in radians)."""
    links, limits = len(block["links"]), block["limits"]
    for key, values in limits.items():
        if len(values) != links:
            raise ConfigError(
                f"excitation.{name}.limits.{key} has {len(values)} values for {links} links "
                f"(excitation.{name}.links): give one per joint"
            )
    for j, (low, high) in enumerate(zip(limits["q_min_deg"], limits["q_max_deg"], strict=True)):
        if not low < high:
            raise ConfigError(
                f"excitation.{name}.limits: joint {j + 1} has q_min_deg = {low:g} not below "
                f"q_max_deg = {high:g}"
            )
