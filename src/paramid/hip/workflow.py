"""The workflow side of the 1-DOF studies (``studies:`` in config.yaml; rules hip*.smk).

:class:`HipStudies` holds what the rules of the hip chain need: the studies and their kinds
(twin or measured records), the checks that run before any job (what the schema cannot say,
measured records usable by the chain), each rule's narrow config subset (passed as params, so
that a change reruns exactly the stages that read it), input functions and the final targets.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from paramid import codehash, cutoff, ingest, io, paths
from paramid.config import ConfigError, check_names
from paramid.errors import UserError, raise_together
from paramid.hip import methods, model
from paramid.plausibility import TORQUE_SIGN
from paramid.workflow import (
    Family,
    Wildcards,
    check_paper_values,
    drops_rest,
    fixed_signal_settings,
    mark_validated,
    validated_before,
)

RECORDS = ("calibration", "validation")
# the schema's default of rls.mechanical: entries left at it may name parameters a study's
# regressor lacks (a study without qdd has no Jt), any other entry must name one of its own
DEFAULT_MECHANICAL = {"Jt": {"min": 0.0}, "fc": {"min": 0.0}, "fv": {"min": 0.0}}
# Figure 4's sweeps run one job per value, so adding a value adds only its job; the §5.3 sweeps
# run all their values in one job (a value takes tens of ms, far less than a job's start-up)
VALUE_SWEEPS = tuple(methods.VALUE_UNITS)
WHOLE_SWEEPS = ("forgetting", "population", "agwo_grid", "leave_one_trajectory_out")
FIG3 = ("fig3a", "fig3b", "fig3c", "fig3d")
FIG4 = {"fig4a": "margin", "fig4b": "cutoff_hz"}  # Figure 4 panel -> its sweep
FIGURES = (*FIG3, *FIG4)
# the config blocks each value of a sweep may read
SWEEP_SETTINGS = ("regressor", "gravity", "rls", "population")  # + its methods' optimisers


def sweep_value(value: float) -> str:
    """File-name form of a sweep value (the wildcard {value})."""
    return f"{value:g}"


class HipStudies(Family):
    """The ``studies:`` block: 1-DOF studies run through the hip chain (hip, pendulum, yours)."""

    records = RECORDS
    deterministic = methods.DETERMINISTIC_METHODS
    population = tuple(methods.POPULATION_METHODS)
    figures = FIGURES
    whole_sweeps = WHOLE_SWEEPS
    value_sweeps = VALUE_SWEEPS

    def __init__(self, config: Mapping[str, Any]) -> None:
        """Checks the settings of every study (its files: :meth:`check_inputs`)."""
        self.config = config
        self.blocks: Mapping[str, Any] = config["studies"]
        self.names = list(self.blocks)
        self.kinds = {name: self._kind(name) for name in self.names}
        self.twin = [s for s in self.names if self.kinds[s] == "twin"]
        self.measured = [s for s in self.names if self.kinds[s] == "measured"]
        self.audited_names = [s for s in self.names if self.audited(s)]
        for name in self.names:
            self._check_settings(name)

    # -- checks before any job -------------------------------------------------------------
    def _kind(self, study: str) -> str:
        """'twin' for simulated records (Eq 18/19-style trajectories), 'measured' for files."""
        records = self.blocks[study]["records"]
        kinds = {"twin" if "trajectory" in records[r] else "measured" for r in RECORDS}
        if len(kinds) > 1:
            raise ConfigError(
                f"studies.{study}.records: calibration and validation must both be simulated "
                "(trajectory) or both measured (path)"
            )
        return kinds.pop()

    def _check_settings(self, name: str) -> None:
        """Names in reference.values and rls.mechanical are parameters of the regressor, those
        in reference.derived reference values; a forgetting sweep has a number to test
        against; a twin's cutoffs lie below its Nyquist frequency."""
        study = self.blocks[name]
        known = model.parameter_names(study["regressor"])
        reference = study.get("reference") or {}
        values = reference.get("values") or {}
        check_names(f"studies.{name}.reference.values", values, known, study["regressor"])
        if stray := sorted(set(reference.get("derived", ())) - set(values)):
            raise ConfigError(
                f"studies.{name}.reference.derived: {stray} not among reference.values "
                f"({sorted(values)}): name the values converted from what the source prints"
            )
        mechanical = study["rls"]["mechanical"]
        given = [k for k, v in mechanical.items() if DEFAULT_MECHANICAL.get(k) != v]
        check_names(f"studies.{name}.rls.mechanical", given, known, study["regressor"])
        for parameter, limits in mechanical.items():
            if limits.get("min", float("-inf")) > limits.get("max", float("inf")):
                raise ConfigError(
                    f"studies.{name}.rls.mechanical.{parameter}: min > max ({limits})"
                )
        if "forgetting" in study.get("sweeps", {}) and study["rls"]["forgetting"] == "auto":
            raise ConfigError(
                f"studies.{name}.sweeps.forgetting tests each value against rls.forgetting, "
                "which is auto: give rls.forgetting a number (one of the sweep's values)"
            )
        if self.kinds[name] == "twin":
            self._check_twin_cutoffs(name)
            self._check_twin_lengths(name)

    def _check_twin_lengths(self, name: str) -> None:
        """Each twin record is long enough for the chain (:func:`model.samples_needed`: trim
        at both ends, the RLS burn-in of a record the RLS bounds are computed on)."""
        study = self.blocks[name]
        fs = float(study["twin"]["sample_rate_hz"])
        trim_s = float(study["signals"]["trim_s"])
        trim = int(round(trim_s * fs))
        fitted = self._rls_records(name)
        for record, spec in study["records"].items():
            burn_in_s = float(study["rls"]["burn_in_s"]) if record in fitted else 0.0
            needed = model.samples_needed(trim, int(round(burn_in_s * fs)), len(study["regressor"]))
            samples = int(round(float(spec["duration_s"]) * fs))
            if samples < needed:
                burn_in = f", rls.burn_in_s = {burn_in_s:g} s" if burn_in_s else ""
                raise ConfigError(
                    f"studies.{name}.records.{record}.duration_s = {spec['duration_s']:g} s is "
                    f"{samples} samples at twin.sample_rate_hz = {fs:g} Hz: too short for "
                    f"signals.trim_s = {trim_s:g} s at each end{burn_in} and the fit, which "
                    f"need {needed} samples ({needed / fs:g} s)"
                )

    def _rls_records(self, name: str) -> set[str]:
        """The records an RLS prior is computed on: the calibration record, and the validation
        record where the §5.3 ``leave_one_trajectory_out`` sweep calibrates on it."""
        sweeps = self.blocks[name].get("sweeps", {})
        return {"calibration", *(["validation"] if "leave_one_trajectory_out" in sweeps else [])}

    def _check_twin_cutoffs(self, name: str) -> None:
        """A twin sampled at f_s can only be filtered below f_s / 2 (the chain's Butterworth)."""
        study = self.blocks[name]
        fs = float(study["twin"]["sample_rate_hz"])
        field = f"studies.{name}"
        rate = f"{field}.twin.sample_rate_hz = {fs:g} Hz"
        signals = study["signals"]
        if signals["cutoff_hz"] == "auto":
            try:
                cutoff.usable_candidates(signals["cutoff_candidates_hz"], [fs])
            except ValueError as err:
                raise ConfigError(
                    f"{field}.signals.cutoff_candidates_hz with {rate}: {err}"
                ) from None
        elif above := cutoff.nyquist_text(float(signals["cutoff_hz"]), fs):
            raise ConfigError(
                f"{field}.signals.cutoff_hz = {above} of {rate}: sample faster or lower the cutoff"
            )
        if above := cutoff.nyquist_text(self._sweep_cutoffs(name), fs):
            raise ConfigError(f"{field}.sweeps.cutoff_hz.values {above} of {rate}")

    def _sweep_cutoffs(self, study: str) -> list[float]:
        return self.blocks[study].get("sweeps", {}).get("cutoff_hz", {}).get("values", [])

    def check_inputs(self) -> None:
        """Every shipped or measured input, before any job runs: one clear error, nothing
        written (study folders, the YAML of the paper's values, measured records)."""
        paths.check_study_folders(self.names)
        stamps = []
        for study in self.names:
            path = self.blocks[study].get("paper_values")
            if path:
                stamps += check_paper_values(path, f"studies.{study}.paper_values")
        for study in self.measured:
            failed: dict[str, UserError] = {}  # both records' problems in one error
            for record in RECORDS:
                try:
                    stamps += self._check_record(study, record)
                except UserError as error:
                    failed[str(error)] = error
            raise_together(f"studies.{study}", failed)
            stamps += self._check_held_out(study)
            stamps += self._check_records_agree(study)
        mark_validated(stamps)

    def _check_held_out(self, study: str) -> list:
        """The validation record repeats no calibration data: the same bytes holding one motion
        (:func:`paramid.ingest.same_motion` of their angle columns; whichever time and torque
        columns are read) must keep disjoint spans (``trim_start_s``/``trim_end_s``: phases of
        one long record), else a fit would be judged on samples it was fitted on.  Returns the
        stamp of a pair that passed (its spans are read once)."""
        specs = [self.blocks[study]["records"][record] for record in RECORDS]
        if len({codehash.file_digest(s["path"]) for s in specs}) > 1:
            return []
        done, stamp = validated_before(
            specs[1]["path"], {"held_out": specs}, "paramid.hip.workflow"
        )
        if done:
            return []
        angles = [(ingest.field_columns(s["columns"])["angle"],) for s in specs]
        frame = io.read_record(specs[0])
        if not ingest.same_motion(frame, *angles):
            return [stamp]  # another motion in the same file (a second joint's columns)
        shared, seconds = ingest.shared_samples(
            frame,
            specs[0]["path"],
            ingest.field_columns(specs[0]["columns"])["time"],
            specs[0]["units"].get("time", "s"),
            [(s["trim_start_s"], s["trim_end_s"]) for s in specs],
        )
        if shared:
            paths = [str(s["path"]) for s in specs]
            where = (
                f"the same file, {paths[0]}"
                if paths[0] == paths[1]
                else f"{paths[1]} is a copy of {paths[0]}"
            )
            trims = [s[k] for s in specs for k in ("trim_start_s", "trim_end_s")]
            spans = "their trim_start_s/trim_end_s spans overlap" if any(trims) else "no trims"
            raise ConfigError(
                f"studies.{study}.records: the validation record holds {shared} samples "
                f"({seconds:.4g} s) of the calibration record's motion ({where}; {spans}): a "
                "fit must be judged on motion it was not fitted on; validate on another record "
                "or a disjoint span"
            )
        return [stamp]

    def _check_record(self, study: str, record: str) -> list:
        cfg = self.blocks[study]
        spec = cfg["records"][record]
        io.check_file(spec["path"], f"studies.{study}.records.{record}.path")
        settings = {
            k: cfg[k] for k in ("ingest", "regressor", "gravity", "signals", "rls", "checks")
        }
        settings["sweep_cutoffs"] = self._sweep_cutoffs(study)
        settings["rls_fitted"] = rls_fitted = record in self._rls_records(study)
        settings["reference"] = (cfg.get("reference") or {}).get("values")
        checker = "paramid.hip.checks"  # imported only when a record is new: it loads scipy.signal
        done, stamp = validated_before(spec["path"], {"spec": spec, **settings}, checker)
        if done:
            return []
        from paramid.hip import checks

        loaded, rest = ingest.configured_record(
            io.read_record(spec),
            spec,
            cfg["ingest"]["max_jitter"],
            drop_rest=drops_rest(cfg),
        )
        checks.check_usable(
            loaded,
            spec["path"],
            study=study,
            regressor=cfg["regressor"],
            gravity=cfg["gravity"],
            signals_config=cfg["signals"],
            burn_in_s=cfg["rls"]["burn_in_s"] if rls_fitted else 0.0,
            rls_recursion=(cfg["rls"]["forgetting"], cfg["rls"]["p0"]) if rls_fitted else None,
            skip_checks=cfg["checks"]["skip"],
            sweep_cutoffs=settings["sweep_cutoffs"],
            reference=settings["reference"],
            time_unit=spec["units"].get("time", "s"),
            angle_unit=spec["units"].get("angle", "rad"),
            velocity_unit=spec["units"].get("velocity", "rad/s"),
            rest_dropped_s=rest,
        )
        return [stamp]

    def _check_records_agree(self, study: str) -> list:
        """The two records' fits within a unit's factor (:func:`paramid.hip.checks.
        check_records_agree`), stamped by both files and their settings."""
        cfg = self.blocks[study]
        specs = {record: cfg["records"][record] for record in RECORDS}
        settings = {k: cfg[k] for k in ("ingest", "regressor", "gravity", "signals", "checks")}
        partner = {
            "records": specs,
            "calibration": codehash.file_digest(specs["calibration"]["path"]),
        }
        checker = "paramid.hip.checks"
        done, stamp = validated_before(specs["validation"]["path"], partner | settings, checker)
        if done:
            return []
        from paramid.hip import checks

        loaded = {
            record: (
                ingest.configured_record(
                    io.read_record(spec),
                    spec,
                    cfg["ingest"]["max_jitter"],
                    drop_rest=drops_rest(cfg),
                )[0],
                spec["path"],
            )
            for record, spec in specs.items()
        }
        checks.check_records_agree(
            loaded,
            study=study,
            regressor=cfg["regressor"],
            gravity=cfg["gravity"],
            signals_config=cfg["signals"],
            skip_checks=cfg["checks"]["skip"],
        )
        return [stamp]

    # -- config subsets (params) -----------------------------------------------------------
    def study(self, wildcards: Wildcards) -> Mapping[str, Any]:
        return self.blocks[wildcards.study]

    def simulate_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {
            "record": wildcards.record,
            "twin": study["twin"],
            "gravity": study["gravity"],
            "spec": study["records"][wildcards.record],
        }

    def ingest_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {
            "record": wildcards.record,
            "spec": study["records"][wildcards.record],
            "ingest": study["ingest"],
            "drop_rest": drops_rest(study),
        }

    def measured_path(self, wildcards: Wildcards) -> str:
        return self.study(wildcards)["records"][wildcards.record]["path"]

    def cutoff_is_auto(self, study: str) -> bool:
        """Whether the study's low-pass cutoff is chosen from its calibration record."""
        return self.blocks[study]["signals"]["cutoff_hz"] == "auto"

    def chosen_cutoff(self, wildcards: Wildcards) -> list[str]:
        """The cutoff choice a stage needs ([] for a fixed cutoff)."""
        if self.cutoff_is_auto(wildcards.study):
            return [f"results/{wildcards.study}/signals/cutoff.json"]
        return []

    def cutoff_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {
            "study": wildcards.study,
            "signals": study["signals"],
            "regressor": study["regressor"],
            "gravity": study["gravity"],
        }

    def signals_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {
            "signals": fixed_signal_settings(study["signals"]),
            "regressor": study["regressor"],
            "gravity": study["gravity"],
        }

    def rls_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {"rls": study["rls"], "regressor": study["regressor"]}  # μ (Eq 12): AGWO's own

    def rls_bounds(self, wildcards: Wildcards) -> list[str]:
        """LS and plain PSO (its standard box) need no RLS box: a change to RLS leaves them be;
        every other method needs it."""
        spec = methods.POPULATION_METHODS.get(wildcards.method)
        if wildcards.method == "ls" or (spec is not None and spec.box != "rls"):
            return []
        return [f"results/{wildcards.study}/rls/summary.json"]

    def fit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """With whether the study skips the torque-sign check: the fit honours that skip."""
        study = self.study(wildcards)
        skip_sign = TORQUE_SIGN in study["checks"]["skip"]
        return {
            "method": wildcards.method,
            "regressor": study["regressor"],
            "fit": study["fit"],
            "skip_torque_sign": skip_sign,
        }

    def fit_population_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """Only the settings block of this method's optimiser, so editing the GA settings
        reruns GA only (GWO has no settings block)."""
        study = self.study(wildcards)
        spec = methods.POPULATION_METHODS[wildcards.method]
        block = spec.optimiser
        # the RLS box's edges that are physics (plain PSO's standard box has none)
        mechanical = {"mechanical": study["rls"]["mechanical"]} if spec.box == "rls" else {}
        return mechanical | {
            "study": wildcards.study,
            "method": wildcards.method,
            "regressor": study["regressor"],
            "population": study["population"],
            **({block: study[block]} if block in study else {}),
        }

    def tables_params(self, wildcards: Wildcards) -> dict[str, Any]:
        study = self.study(wildcards)
        return {
            "study": wildcards.study,
            "methods": study["methods"],
            "regressor": study["regressor"],
            "reference": self.reference_values(wildcards.study),
        }

    def stats_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {"study": wildcards.study, "methods": self.study(wildcards)["methods"]}

    def reference_values(self, study: str) -> Mapping[str, float] | None:
        """Reference parameters: the twin's X_true, or a measured study's published values."""
        cfg = self.blocks[study]
        if "twin" in cfg:
            return cfg["twin"]["x_true"]
        return cfg.get("reference", {}).get("values")

    def paper_values(self, wildcards: Wildcards) -> list[str]:
        path = self.study(wildcards).get("paper_values")
        return [path] if path else []

    def fits(self, wildcards: Wildcards) -> list[str]:
        return self._method_files(wildcards, "fits", self.study(wildcards)["methods"])

    def histories(self, wildcards: Wildcards) -> list[str]:
        population = [
            m for m in self.study(wildcards)["methods"] if m in methods.POPULATION_METHODS
        ]
        return self._method_files(wildcards, "histories", population)

    @staticmethod
    def _method_files(wildcards: Wildcards, folder: str, names: Sequence[str]) -> list[str]:
        return [f"results/{wildcards.study}/{folder}/{m}.parquet" for m in names]

    # -- figures ---------------------------------------------------------------------------
    def figure_inputs(self, wildcards: Wildcards) -> dict[str, Any]:
        """What each figure reads: 3a/3b the validation signals and the selected fits, 3c every
        fit, 3d the population histories and BCLS, 4a/4b their sweep's table (and 4b its
        per-value points, to mark the first twin seed) and the paper's values (its Table 2
        settings name the marked one)."""
        base = f"results/{wildcards.study}"
        figure = wildcards.figure
        if figure in ("fig3a", "fig3b"):
            selected = self._method_files(wildcards, "fits", methods.FIG3_SELECTED)
            return {"validation": f"{base}/signals/validation.parquet", "fits": selected}
        if figure == "fig3c":
            return {"fits": self.fits(wildcards)}
        if figure == "fig3d":
            return {"histories": self.histories(wildcards), "bcls": f"{base}/fits/bcls.parquet"}
        sweep = FIG4[figure]
        points = self.sweep_points(wildcards, sweep) if sweep == "cutoff_hz" else []
        table = f"{base}/tables/sweep_{sweep}.csv"
        return {"table": table, "points": points, "paper": self.paper_values(wildcards)}

    def figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """Figure settings and what a figure marks; nothing that changes a table."""
        if wildcards.figure in FIG4:
            return self._sweep_figure_params(wildcards, FIG4[wildcards.figure])
        cfg = {"figure": wildcards.figure, "style": self.config["figures"]}
        if wildcards.figure in ("fig3a", "fig3b"):
            cfg["regressor"] = self.study(wildcards)["regressor"]
        return cfg

    def sweep_figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._sweep_figure_params(wildcards, wildcards.sweep)

    def _sweep_figure_params(self, wildcards: Wildcards, sweep: str) -> dict[str, Any]:
        return {
            "figure": f"sweep_{sweep}",
            "sweep": sweep,
            "default": self.sweep_default(wildcards.study, sweep),
            "chosen": sweep == "cutoff_hz" and self.cutoff_is_auto(wildcards.study),
            "style": self.config["figures"],
        }

    def sweep_figure_points(self, wildcards: Wildcards) -> list[str]:
        """The AGWO grid's figure shows cell medians."""
        return self.sweep_points(wildcards) if wildcards.sweep == "agwo_grid" else []

    # -- sweeps ----------------------------------------------------------------------------
    def sweep_default(self, study: str, sweep: str) -> Any:
        """The study's setting of a sweep (the hip study's are the paper's Table 2), the one
        every other value is tested against."""
        cfg = self.blocks[study]
        return {
            "margin": cfg["rls"]["margin"],
            "cutoff_hz": cfg["signals"]["cutoff_hz"],
            "forgetting": cfg["rls"]["forgetting"],
            "population": cfg["population"]["size"],
            "agwo_grid": [cfg["agwo"]["mu_base"], cfg["agwo"]["kappa"]],
            "leave_one_trajectory_out": None,
        }[sweep]

    def sweep_value_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """What one value of a Figure 4 sweep reads; never the list of values (adding a value
        must not rerun the others).  A cutoff value on a twin study runs its records for every
        twin seed; on a measured study its two records once (no seeds to pair)."""
        study, sweep = self.study(wildcards), wildcards.sweep
        block = {k: v for k, v in study["sweeps"][sweep].items() if k != "values"}
        if sweep == "margin":  # the value sets the margin: the study's own reruns none of them
            settings = self._sweep_settings(study, sweep)
            settings["rls"] = {k: v for k, v in settings["rls"].items() if k != "margin"}
        else:
            twin = self.kinds[wildcards.study] == "twin"
            keys = ("regressor", "gravity", "rls", "records") + (("twin",) if twin else ())
            settings = {k: study[k] for k in keys}
            settings["signals"] = {
                k: v for k, v in fixed_signal_settings(study["signals"]).items() if k != "cutoff_hz"
            }
            block = {"twin_seeds": block["twin_seeds"]} if twin else {}
        return {
            "study": wildcards.study,
            "sweep": sweep,
            "value": wildcards.value,
            "sweep_config": block,
            "settings": settings,
        }

    def sweep_value_inputs(self, wildcards: Wildcards) -> dict[str, str]:
        """The margin sweep refits the study's signals; the cutoff sweep filters the measured
        records again (a twin study simulates its own)."""
        base = f"results/{wildcards.study}"
        if wildcards.sweep == "margin":
            return {r: f"{base}/signals/{r}.parquet" for r in RECORDS}
        if self.kinds[wildcards.study] == "twin":
            return {}
        return {r: f"{base}/records/{r}.parquet" for r in RECORDS}

    def sweep_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """A whole §5.3 sweep: the study's settings, its block and the default it is tested
        against."""
        study = self.study(wildcards)
        return {
            "study": wildcards.study,
            "sweep": wildcards.sweep,
            "sweep_config": study["sweeps"][wildcards.sweep],
            "settings": self._sweep_settings(study, wildcards.sweep),
            "default": self.sweep_default(wildcards.study, wildcards.sweep),
            "measured": self.kinds[wildcards.study] == "measured",
        }

    @staticmethod
    def _sweep_settings(study: Mapping[str, Any], sweep: str) -> dict[str, Any]:
        """The study settings a sweep's fits read: the optimiser blocks of its own methods only
        (a GA setting reruns no GWO sweep; the AGWO grid runs RLS-AGWO)."""
        names = study["sweeps"][sweep].get("methods", ["rls_agwo"])
        specs = [methods.POPULATION_METHODS[m] for m in names if m in methods.POPULATION_METHODS]
        blocks = sorted({spec.optimiser for spec in specs} & set(study))
        return {k: study[k] for k in (*SWEEP_SETTINGS, *blocks)}

    def sweep_reference_fits(self, wildcards: Wildcards) -> list[str]:
        """Leave-one-trajectory-out compares with the main fits (the default direction)."""
        if wildcards.sweep != "leave_one_trajectory_out":
            return []
        return self._method_files(
            wildcards, "fits", self.study(wildcards)["sweeps"][wildcards.sweep]["methods"]
        )

    def sweep_points(self, wildcards: Wildcards, sweep: str | None = None) -> list[str]:
        sweep = sweep or wildcards.sweep
        if sweep not in (self.study(wildcards).get("sweeps") or {}):
            panel = {v: k for k, v in FIG4.items()}.get(sweep)
            raise ConfigError(
                f"studies.{wildcards.study} runs no {sweep} sweep"
                + (f" (Figure {panel[3:]} plots it)" if panel else "")
                + f": add a sweeps.{sweep} block to the study (studies.hip.sweeps.{sweep} in "
                "config.yaml is one), or leave that figure or table out"
            )
        base = f"results/{wildcards.study}/sweeps"
        if sweep in VALUE_SWEEPS:
            values = self.study(wildcards)["sweeps"][sweep]["values"]
            return [f"{base}/{sweep}/{sweep_value(v)}.parquet" for v in values]
        return [f"{base}/{sweep}.parquet"]

    def sweep_table_params(self, wildcards: Wildcards) -> dict[str, Any]:
        sweep = wildcards.sweep
        return {
            "study": wildcards.study,
            "sweep": sweep,
            "default": self.sweep_default(wildcards.study, sweep),
            "measured": self.kinds[wildcards.study] == "measured",
        }

    def sweep_default_choice(self, wildcards: Wildcards) -> list[str]:
        """A cutoff sweep whose default is ``auto`` is tested against the chosen cutoff."""
        if wildcards.sweep == "cutoff_hz" and self.cutoff_is_auto(wildcards.study):
            return self.chosen_cutoff(wildcards)
        return []

    # -- audit -----------------------------------------------------------------------------
    def audited(self, study: str) -> bool:
        """A study is audited when it has the paper's printed values or reference parameters."""
        return "paper_values" in self.blocks[study] or "reference" in self.blocks[study]

    def audit_inputs(self, wildcards: Wildcards) -> dict[str, Any]:
        base = f"results/{wildcards.study}"
        cfg = self.study(wildcards)
        inputs: dict[str, Any] = {
            "table3": f"{base}/tables/table3.csv",
            "table4": f"{base}/tables/table4.csv",
            "validation": f"{base}/signals/validation.parquet",
        }
        if "paper_values" in cfg:
            inputs |= {
                "paper": cfg["paper_values"],
                "stats": f"{base}/tables/stats.csv",
                "rls": f"{base}/rls/summary.json",
            }
            sweeps = cfg.get("sweeps", {})
            if "margin" in sweeps:
                inputs["margin"] = f"{base}/tables/sweep_margin.csv"
            if "cutoff_hz" in sweeps:
                inputs["cutoff"] = self.sweep_points(wildcards, "cutoff_hz")
        return inputs

    def audit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        cfg = self.study(wildcards)
        return {
            "study": wildcards.study,
            "regressor": cfg["regressor"],
            "reference": cfg.get("reference"),
            "twin": cfg.get("twin"),  # its seed, and its calibrated settings (audit rows)
            "cutoff_hz": cfg["signals"]["cutoff_hz"],  # Figure 4b's point of Table 3's fit
        }

    # -- targets ---------------------------------------------------------------------------
    def study_targets(self, study: str) -> list[str]:
        """The final tables and figures of one study, its audit included."""
        base = f"results/{study}"
        cfg = self.blocks[study]
        names = cfg["methods"]
        population = [m for m in names if m in methods.POPULATION_METHODS]
        tables = ["table3", "table4"]
        figures = []
        if population and "bcls" in names:
            tables.append("stats")
            figures.append("fig3d")
        if population:
            figures.append("fig3c")
        if set(methods.FIG3_SELECTED) <= set(names):
            figures += ["fig3a", "fig3b"]
        if self.cutoff_is_auto(study):
            tables.append("cutoff")
        for sweep in cfg.get("sweeps", {}):
            tables.append(f"sweep_{sweep}")
            figures.append({v: k for k, v in FIG4.items()}.get(sweep, f"sweep_{sweep}"))
        targets = [f"{base}/rls/summary.json"]
        targets += [f"{base}/tables/{t}.{ext}" for t in tables for ext in ("csv", "md")]
        targets += [f"{base}/figures/{f}.{ext}" for f in sorted(figures) for ext in ("png", "pdf")]
        if self.audited(study):
            targets += [f"{base}/audit.{ext}" for ext in ("csv", "md")]
        return targets
