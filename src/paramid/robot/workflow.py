"""The workflow side of the multi-joint studies (``robots:`` in config.yaml; rules robot.smk
and robot_excitation.smk).

:class:`RobotStudies` names every study's records, checks the URDF, joints and joint logs and
an excitation block's limits and coefficient files before any job runs (one error naming the
study and the field or file, nothing written), gives each rule its config subset and lists
the final targets.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from paramid import codehash, ingest, io, paths
from paramid.config import ConfigError, check_fourier_design
from paramid.errors import InputError, UserError, raise_together
from paramid.plausibility import RECORDS_SCALE
from paramid.population import POPULATION_METHODS
from paramid.robot.estimators import CONSISTENT, ESTIMATORS
from paramid.workflow import (
    Family,
    Wildcards,
    drops_rest,
    fixed_signal_settings,
    mark_validated,
    validated_before,
)

if TYPE_CHECKING:  # they load pinocchio
    from paramid.robot.model import Robot
    from paramid.robot.records import RobotRecord

FIGURES = ("torque", "rmse", "parameters", "regularisation")
METHODS = tuple(ESTIMATORS)
ROLES = ("calibration", "validation")
#: samples a record must keep after its trims: fewer give an RMSE (or CV blocks) of a few
#: samples, no validation (0.1 s at 1 kHz)
ROBOT_KEYS = ("urdf", "joints", "locked", "friction", "offset", "armature")
#: what reading a joint log takes of the robot (its joints' kinds and units): editing friction,
#: offset or armature reruns the fits, not the records of measured logs
LOG_KEYS = ("urdf", "joints", "locked", "urdf_sha256")
#: a record id (the schema's records' ``name`` pattern, the rules' ``{record}`` wildcard)
RECORD_ID = "[A-Za-z0-9][A-Za-z0-9_.-]*"


def record_signals(settings: Mapping[str, Any], role: str) -> dict[str, Any]:
    """The signal settings of a record in ``role``: a validation record is never decimated
    (``decimate`` thins the calibration records' rows for the fit; a validation RMSE on every
    n-th sample moved with the phase of the thinning: 1.5-2.7 N m at 20 on a Gen3 log)."""
    return {**settings, "decimate": settings["decimate"] if role == "calibration" else 1}


def problems_message(
    name: str,
    path: str,
    problems: Sequence[tuple[str, str | None, str]],
    right: str = "the record is",
) -> str:
    """One error for every problem the log checks found in one record (check, joint or None,
    message): the study and the file (or files), each problem on its own line beside its
    joint, and the ``checks.skip`` entry that silences the checks named if ``right`` (the
    record, or the records compared)."""
    named = list(dict.fromkeys(check for check, _, _ in problems))
    the_checks = "the check" if len(named) == 1 else "the checks"
    skip = f"robots.{name}.checks.skip: [{', '.join(named)}]"
    advice = f"(if {right} right, skip {the_checks} with {skip})"
    lines = [f"{joint}: {message}" if joint else message for _, joint, message in problems]
    if len(lines) == 1:
        return f"robots.{name}: {path}: {lines[0]} {advice}"
    listed = "".join(f"\n  - {line}" for line in lines)
    return f"robots.{name}: {path}: {len(lines)} problems:{listed}\n{advice}"


#: samples of trajectory.csv per cycle of the design's highest harmonic, at least: a controller
#: interpolating linearly between them then stays within (2π/20)²/8 = 1.2 % of its amplitude
MIN_SAMPLES_PER_CYCLE = 20


class RobotStudies(Family):
    """The ``robots:`` block: one URDF robot per entry, with joint logs or twin records and an
    optional excitation design."""

    figures = FIGURES
    all_methods = METHODS
    consistent = CONSISTENT
    #: the methods whose standard parameters may be inconsistent: no URDF goes out for them
    not_exported = tuple(m for m in METHODS if m not in CONSISTENT)
    record_id = RECORD_ID

    def __init__(self, config: Mapping[str, Any]) -> None:
        """Names the records of every study (its files: :meth:`check_inputs`)."""
        self.config = config
        self.blocks: Mapping[str, Any] = config.get("robots") or {}
        self.names = list(self.blocks)
        self.records = {name: self._record_names(name) for name in self.names}
        self.excitation = [s for s in self.names if "excitation" in self.blocks[s]]
        self.twin = [s for s in self.names if self._is_twin(s)]
        for name in dict.fromkeys(self.twin + self.excitation):  # the config's order
            block = self.blocks[name]
            field = f"robots.{name}.twin.noise.torque_noise_nm"
            noise = block["twin"]["noise"].get("torque_noise_nm")
            if noise is None:  # another robot's sensors, silently, is no twin of this one
                raise ConfigError(
                    f"{field} is unset: {self._simulated(name)} needs your torque sensors' "
                    "noise [N m], one value or one per joint (the shipped gen3_twin states the "
                    "Kinova Gen3's, measured on its logs)"
                )
            if isinstance(noise, list) and len(noise) != len(block["joints"]):
                raise ConfigError(
                    f"{field} has {len(noise)} values for {len(block['joints'])} joints: give "
                    "one value or one per joint, your torque sensors' noise [N m]"
                )

    def check_inputs(self) -> None:
        """The URDF, joint logs and excitation block of every study, before any job runs (the
        robot is loaded): one error naming the study and the field or file, nothing written."""
        paths.check_study_folders(self.names)
        stamps: list[Path] = []
        for name in self.names:
            try:
                stamps += self._check(name)
            except UserError as error:
                raise type(error)(self._named(name, str(error))) from None
        mark_validated(stamps)

    def _named(self, name: str, message: str) -> str:
        """A library message with the study in front: ``joints: ...`` becomes
        ``robots.<name>.joints: ...``, any other ``robots.<name>: ...``."""
        if f"robots.{name}" in message:
            return message
        field = message.split(":", 1)[0]
        joiner = "." if field in self.blocks[name] else ": "
        return f"robots.{name}{joiner}{message}"

    # -- records ---------------------------------------------------------------------------
    def _record_names(self, name: str) -> dict[str, tuple[str, Mapping[str, Any]]]:
        """{record id: (role, spec)}; ids default to the file stem (measured) or <role>_<k>
        (twin) and must be unique."""
        names: dict[str, tuple[str, Mapping[str, Any]]] = {}
        given = self.blocks[name].get("records") or {}  # none: an excitation-only study
        for role in ROLES:
            for k, spec in enumerate(given.get(role, []), start=1):
                default = Path(spec["path"]).stem if "path" in spec else f"{role}_{k}"
                record = spec.get("name", default)
                if not re.fullmatch(RECORD_ID, record):  # a file stem (a name: has the schema's)
                    raise ConfigError(
                        f"robots.{name}.records.{role}: {spec['path']} has no `name:`, and its "
                        f"file name {record!r} is no record id (a letter or digit, then letters, "
                        "digits, '_', '.', '-'): give it a `name:`"
                    )
                if record in names:
                    first_role, first = names[record]
                    if first_role != role and first.get("path") == spec.get("path"):
                        raise ConfigError(
                            f"robots.{name}.records: {spec['path']} is a calibration and a "
                            "validation record: a model must be judged on motion it was not "
                            "fitted on; validate on another record, or on a disjoint span of "
                            "this one (trim_start_s/trim_end_s, and a `name:` for each)"
                        )
                    raise ConfigError(
                        f"robots.{name}.records: two records named {record!r}; give one a `name:`"
                    )
                names[record] = (role, spec)
        return names

    def _is_twin(self, name: str) -> bool:
        """True for simulated records (duration_s + excitation), False for joint logs (path)."""
        kinds = {"path" in spec for _, spec in self.records[name].values()}
        if len(kinds) > 1:
            raise ConfigError(
                f"robots.{name}.records: all records must be joint logs (path) or all twin "
                "records (duration_s, excitation)"
            )
        return kinds == {False}

    def record_ids(self, name: str, role: str | None = None) -> list[str]:
        return [r for r, (rr, _) in self.records[name].items() if role in (None, rr)]

    # -- checks before any job -------------------------------------------------------------
    def _check(self, name: str) -> list[Path]:
        """URDF and joints (the robot loads), each joint log's layout and length, the excitation
        block's limits and coefficient files; returns the stamps."""
        block = self.blocks[name]
        io.check_file(block["urdf"], f"robots.{name}.urdf")
        for reference, path in block["references"].items():
            io.check_file(path, f"robots.{name}.references.{reference}")
        stamps = []
        lmi = block["lmi"]
        settings = self.robot_block(name) | {k: lmi[k] for k in ("free_links", "metric", "weight")}
        settings |= {"methods": block["methods"], "simulated": self._simulated(name)}
        settings |= {"base": block["base"]}  # the structural base the free links are judged on
        done, stamp = validated_before(block["urdf"], settings, "paramid.robot.model")
        if not done:
            from paramid.robot import model, priors, study  # here: it loads pinocchio

            robot = study.robot_of(block, io.read_urdf(block["urdf"], f"robots.{name}.urdf"))
            links = model.link_parameter_slices(robot)
            pulled = priors.pulled_links(
                links,
                lmi["free_links"],
                f"robots.{name}.lmi.free_links",
                model.carrying_links(robot),
            )
            theta0 = model.urdf_parameters(robot)
            if lmi["metric"] == "logdet":
                priors.check_logdet_prior(theta0, pulled, f"robots.{name}.lmi.metric")
            self._check_masses(name, priors.massless_links(theta0, links), pulled)
            if lmi["free_links"]:  # robot_friction's consistent fits free them too
                from paramid.robot import estimators
                from paramid.robot.base import structural_base

                base = structural_base(robot, rel_tol=block["base"]["rel_tol"])
                estimators.check_freeable(
                    links,
                    theta0.size,
                    model.held_offsets(robot),
                    base,
                    lmi["free_links"],
                    f"robots.{name}.lmi.free_links",
                )
            stamps.append(stamp)
        for reference, path in block["references"].items():
            stamps += self._check_reference(name, reference, path)
        failed: dict[str, UserError] = {}  # every record's problems in one error, each once
        for record, (role, spec) in self.records[name].items():
            if "path" in spec:
                try:
                    stamps += self._check_log(name, record, role, spec)
                except UserError as error:
                    failed.setdefault(str(error), error)  # a file read by two records: once
        raise_together(f"robots.{name}", failed)
        stamps += self._check_across_records(name)
        stamps += self._check_held_out(name)
        if name in self.excitation:
            stamps += self._check_excitation(name)
        return stamps

    def _simulated(self, name: str) -> str | None:
        """What simulates the URDF's bodies in a study: its twin records, or the twin its
        excitation designs are compared on (None: neither)."""
        if name in self.twin:
            return "the twin that simulates its records"
        if name in self.excitation:
            return "the twin its excitation designs are compared on"
        return None

    def _check_masses(self, name: str, massless: Sequence[str], pulled: Mapping[str, Any]) -> None:
        """A moving link without mass in the URDF (no ``<inertial>``) cannot be simulated, and
        ``lmi``'s prior would pull it toward zero mass (a measured forearm without one was
        exported at 0.25 kg against 2.3 kg, with a generic warning only)."""
        block = self.blocks[name]
        if massless and (simulated := self._simulated(name)):
            raise ConfigError(
                f"robots.{name}.urdf: {list(massless)} have no mass in {block['urdf']} (no "
                f"<inertial>, or mass 0), and {simulated} scales the URDF's bodies: give each "
                "its <inertial>"
            )
        held = [link for link in massless if link in pulled]
        if held and "lmi" in block["methods"] and block["lmi"]["weight"] != 0:
            raise ConfigError(
                f"robots.{name}.urdf: lmi pulls each link toward its URDF body, but "
                f"{held} have no mass in {block['urdf']} (no <inertial>, or mass 0): the pull "
                "would drive "
                "them toward zero mass. Give each its <inertial> (from CAD or the maker), or "
                "name it in lmi.free_links to identify it from the data alone"
            )

    def _check_reference(self, name: str, reference: str, path: str) -> list[Path]:
        """A reference URDF loads with the study's joints, as ``robot_reference`` loads it."""
        block = self.blocks[name]
        settings = self.robot_block(name) | {"reference": codehash.file_digest(path)}
        done, stamp = validated_before(path, settings, "paramid.robot.model")
        if done:
            return []
        from paramid.robot import study

        field = f"robots.{name}.references.{reference}"
        source = io.read_urdf(path, field)
        try:
            study.robot_of({**block, "urdf": path}, source, physical=False)
        except UserError as error:
            raise ConfigError(f"{field} ({path}): {error}") from None
        return [stamp]

    def _check_held_out(self, name: str) -> list[Path]:
        """No validation log repeats calibration data: a file in both roles (the same bytes
        holding one motion, :func:`paramid.ingest.same_motion` of the angle columns each reads,
        however written; whichever time and torque columns) must keep disjoint spans
        (``trim_start_s``/``trim_end_s``: phases of one long log), else a fit would be judged
        on samples it was fitted on.  Returns the stamps of the pairs that passed (their spans
        are read once)."""
        logs = [(r, role, spec) for r, (role, spec) in self.records[name].items() if "path" in spec]
        digest = {record: codehash.file_digest(spec["path"]) for record, _, spec in logs}
        fitted = [(r, spec) for r, role, spec in logs if role == "calibration"]
        stamps = []
        for record, role, spec in logs:
            if role != "validation":
                continue
            for other, cal in fitted:
                if digest[other] != digest[record]:
                    continue
                joints = self.blocks[name]["joints"]
                pair = {"held_out": [spec, cal], "joints": joints}
                done, stamp = validated_before(spec["path"], pair, "paramid.robot.workflow")
                if done:
                    continue
                from paramid.robot.records import held_out_angles  # pandas

                frame, time_name, angles = held_out_angles(io.read_record(spec), spec, cal, joints)
                if angles and not ingest.same_motion(frame, *angles):
                    stamps.append(stamp)  # another motion (one log of two arms, read by its
                    continue  # angle columns)
                shared, seconds = ingest.shared_samples(
                    frame,
                    spec["path"],
                    time_name,
                    spec["units"].get("time", "s"),
                    [(s["trim_start_s"], s["trim_end_s"]) for s in (spec, cal)],
                )
                if shared:
                    same = Path(spec["path"]).resolve() == Path(cal["path"]).resolve()
                    raise ConfigError(
                        f"robots.{name}.records.validation ({record}): {spec['path']} holds "
                        f"{shared} samples ({seconds:.4g} s) of calibration record {other!r} "
                        + (
                            "(the same file"
                            if same
                            else f"(the same bytes as its file {cal['path']}, copied"
                        )
                        + ", spans that overlap: trim_start_s/trim_end_s): a model must be "
                        "judged on motion it was not fitted on; validate on another record or "
                        "a disjoint span"
                    )
                stamps.append(stamp)
        return stamps

    def _loaded_log(
        self, name: str, spec: Mapping[str, Any]
    ) -> tuple[Robot, RobotRecord, tuple[float, float]]:
        """The study's robot and a joint log as the checks judge it (its trims applied, a long
        rest at its ends dropped: :func:`paramid.robot.records.log_record`), with the rest
        dropped at its start and end [s]."""
        from paramid.robot import model, records, study  # here: they load pinocchio

        block = self.blocks[name]
        robot = study.robot_of(block, io.read_urdf(block["urdf"], f"robots.{name}.urdf"))
        loaded, rest = records.log_record(
            io.read_record(spec),
            spec,
            block["joints"],
            kinds=model.joint_kinds(robot),
            locked=dict(zip((joint for joint, _ in robot.locked), robot.locked_kinds, strict=True)),
            drop_rest=drops_rest(block),
        )
        return robot, loaded, rest

    def _check_across_records(self, name: str) -> list[Path]:
        """Each joint's torque against the URDF's agrees between the study's joint logs,
        calibration and validation alike (one arm:
        :func:`paramid.robot.checks.torque_across_records`), once every log passed its own
        checks; returns the stamp (keyed by the URDF, the robot, the logs' settings and
        bytes)."""
        logs = {r: spec for r, (_, spec) in self.records[name].items() if "path" in spec}
        block = self.blocks[name]
        if len(logs) < 2 or RECORDS_SCALE in block["checks"]["skip"]:
            return []
        settings = {
            "logs": {r: [spec, codehash.file_digest(spec["path"])] for r, spec in logs.items()},
            "robot": self.robot_block(name),
            "checks": block["checks"],
        }
        done, stamp = validated_before(block["urdf"], settings, "paramid.robot.checks")
        if done:
            return []
        from paramid.robot import checks

        logged = {}
        for record, spec in logs.items():
            robot, loaded, _ = self._loaded_log(name, spec)
            gains = checks.record_gains(loaded, robot)
            logged[record] = checks.Logged(spec["path"], loaded.tau_columns, gains)
        problems = checks.torque_across_records(logged, block["joints"], block["checks"]["skip"])
        if problems:
            files = ", ".join(spec["path"] for spec in logs.values())
            raise InputError(problems_message(name, files, problems, "the records are"))
        return [stamp]

    def _check_log(self, name: str, record: str, role: str, spec: Mapping[str, Any]) -> list[Path]:
        """A joint log's layout, length and plausibility (:mod:`paramid.robot.checks`)."""
        field = f"robots.{name}.records.{role} ({record}).path"
        io.check_file(spec["path"], field)
        block = self.blocks[name]
        settings = {
            "spec": spec,
            "role": role,
            "robot": self.robot_block(name),
            "signals": block["signals"],
            "checks": block["checks"],
        }
        done, stamp = validated_before(spec["path"], settings, "paramid.robot.checks")
        if done:
            return []
        from paramid.cutoff import at_or_above_nyquist, usable_candidates
        from paramid.robot import checks, signals

        robot, loaded, rest = self._loaded_log(name, spec)
        kept = loaded.time[-1]
        settings, fs = block["signals"], loaded.sample_rate_hz
        fixed = settings["cutoff_hz"]  # a fixed cutoff's settling (auto's: robot_signals)
        needed = 2 * (
            signals.end_trim_s(settings["trim_s"], fixed, fs, settings["filter_order"])
            if fixed != "auto" and fixed < fs / 2
            else settings["trim_s"]
        )
        decimate = record_signals(block["signals"], role)["decimate"]  # calibration records'
        samples = -(-int((kept - needed) * loaded.sample_rate_hz) // decimate)  # kept every n-th
        if samples < signals.MIN_KEPT_SAMPLES:  # the folds (cv.folds at most 50) need them too
            thinned = f" kept by signals.decimate = {decimate}" if decimate > 1 else ""
            rested = f" and {sum(rest):.4g} s of rest dropped at its ends" if any(rest) else ""
            raise InputError(
                f"{spec['path']}: too short: its {kept:.4g} s after trim_start_s/trim_end_s"
                f"{rested}, "
                f"less the {needed:.4g} s that filtering drops at its ends (signals.trim_s, or "
                "the filter's settling at a fixed cutoff if longer), leave "
                f"{max(samples, 0)} samples{thinned}, fewer than {signals.MIN_KEPT_SAMPLES}: "
                "record a longer motion or lower those trims"
                + (" or decimate" if decimate > 1 else "")
                + f" (its {loaded.time.size} samples were read as "
                f"{loaded.sample_rate_hz:.4g} Hz: if that rate is wrong, check units.time)"
            )
        units = spec["units"]
        problems = checks.record_problems(
            loaded,
            robot,
            block["checks"]["skip"],
            units.get("time", "s"),
            units,
            spec.get("negate") or [],
        )
        if problems:  # first: a time unit read wrong would mislead the trim's message
            raise InputError(problems_message(name, spec["path"], problems))
        cutoff = block["signals"]["cutoff_hz"]
        if cutoff != "auto" and (
            high := signals.above_nyquist(float(cutoff), loaded.sample_rate_hz, decimate)
        ):
            raise ConfigError(f"robots.{name}.signals.cutoff_hz: {spec['path']}: {high}")
        if cutoff == "auto" and role == "calibration":  # robot_cutoff scores these candidates
            try:
                usable_candidates(
                    block["signals"]["cutoff_candidates_hz"], [loaded.sample_rate_hz / decimate]
                )
            except ValueError as err:
                rate = f"{loaded.sample_rate_hz:.4g} Hz / signals.decimate = {decimate}"
                raise ConfigError(
                    f"robots.{name}.signals.cutoff_candidates_hz: {spec['path']} ({rate}): {err}"
                ) from None
        if cutoff == "auto" and role == "validation":  # filtered at whichever candidate is chosen
            rate = loaded.sample_rate_hz / decimate
            if all(at_or_above_nyquist(c, rate) for c in block["signals"]["cutoff_candidates_hz"]):
                raise ConfigError(
                    f"robots.{name}.signals.cutoff_candidates_hz: {spec['path']} is sampled at "
                    f"{rate:.4g} Hz: every candidate is at or above its Nyquist frequency "
                    f"{rate / 2:.4g} Hz, so the cutoff chosen from the calibration records cannot "
                    "filter it; log it faster or list a candidate below that"
                )
        if round(block["signals"]["trim_s"] * loaded.sample_rate_hz) < 1:  # as signals.process
            field = f"robots.{name}.signals"
            raise InputError(
                ingest.one_sample_trim(
                    spec["path"], field, block["signals"]["trim_s"], loaded.sample_rate_hz
                )
            )
        return [stamp]

    def _check_excitation(self, name: str) -> list[Path]:
        """Margins against the URDF's limits and every coefficient file's joints and
        harmonics; returns the stamp (keyed by the URDF, the block and the files' bytes)."""
        block = self.blocks[name]
        spec = block["excitation"]
        rest = spec["boundary"] == "rest_to_rest"
        check_fourier_design(f"robots.{name}.excitation", spec, "harmonics", rest)
        highest = spec["harmonics"] * spec["base_frequency_hz"]  # [Hz]
        if spec["controller_rate_hz"] < MIN_SAMPLES_PER_CYCLE * highest:
            raise ConfigError(
                f"robots.{name}.excitation.controller_rate_hz = {spec['controller_rate_hz']:g} Hz "
                f"samples the highest harmonic ({highest:g} Hz) fewer than "
                f"{MIN_SAMPLES_PER_CYCLE} times a cycle: trajectory.csv would step the joints "
                f"(give at least {MIN_SAMPLES_PER_CYCLE * highest:g} Hz, in Hz: 1 kHz is 1000)"
            )
        for entry in spec["compare"]:
            field = f"robots.{name}.excitation.compare ({entry['name']})"
            io.check_file(entry["coefficients"], field)
        files = [codehash.file_digest(e["coefficients"]) for e in spec["compare"]]
        settings = {"excitation": spec, "robot": self.robot_block(name), "files": files}
        done, stamp = validated_before(block["urdf"], settings, "paramid.robot.excitation")
        if done:
            return []
        from paramid.robot import excitation, study  # here: they load pinocchio, scipy.stats

        robot = study.robot_of(block, io.read_urdf(block["urdf"], f"robots.{name}.urdf"))
        excitation.limits_of(robot, spec, name)
        omega = 2 * math.pi * spec["base_frequency_hz"]
        for entry in spec["compare"]:
            field = f"robots.{name}.excitation.compare ({entry['name']}).coefficients"
            try:
                frame = io.read_table(entry["coefficients"])
            except InputError as error:
                raise InputError(f"{field}: {error}") from None
            excitation.coefficients_from_table(
                frame,
                entry["coefficients"],
                robot.joints,
                spec["harmonics"],
                omega,
                entry["constant"],
            )
        return [stamp]

    # -- config subsets (params) -----------------------------------------------------------
    def robot_block(self, name: str) -> dict[str, Any]:
        """The settings every stage needs to rebuild the robot, with the URDF's SHA-256: a job
        reruns when the file changes, not only its path (the checks judge logs against it)."""
        block = {k: self.blocks[name][k] for k in ROBOT_KEYS}
        return block | {"urdf_sha256": codehash.file_digest(block["urdf"])}

    def _params(self, wildcards: Wildcards, **extra: Any) -> dict[str, Any]:
        return {"study": wildcards.study, "robot": self.robot_block(wildcards.study), **extra}

    def record_params(self, wildcards: Wildcards) -> dict[str, Any]:
        name = wildcards.study
        cfg = self._params(wildcards, record=wildcards.record)
        cfg["spec"] = self.records[name][wildcards.record][1]
        if "path" in cfg["spec"]:
            cfg["robot"] = {k: cfg["robot"][k] for k in LOG_KEYS}
            cfg["drop_rest"] = drops_rest(self.blocks[name])
        if name in self.twin:
            cfg["twin"] = self.blocks[name]["twin"]
        return cfg

    def record_file(self, wildcards: Wildcards) -> list[str]:
        """The joint log a measured record reads (none for a twin's): an input, so the record
        and everything after it rerun when the log changes, and its hash is in the metadata."""
        spec = self.records[wildcards.study][wildcards.record][1]
        return [str(spec["path"])] if "path" in spec else []

    def cutoff_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The CV's OLS fit has offset columns only where every joint keeps one (``auto``
        chooses them later, on the filtered signals): ``auto`` and ``false`` share a cutoff.
        Its blocks are ``cv.folds`` (no gap: ``cv.gap_s`` is the compression's)."""
        block = self.blocks[wildcards.study]
        cv = {"folds": block["cv"]["folds"]}
        params = self._params(wildcards, signals=block["signals"], cv=cv)
        params["robot"]["offset"] = block["offset"] is True
        return params

    def signals_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The signal settings without the ``auto`` cutoff's candidates (the chosen cutoff is
        read from cutoff.json): editing them reruns the choice, not the signals."""
        block = self.blocks[wildcards.study]
        role, spec = self.records[wildcards.study][wildcards.record]
        settings = record_signals(fixed_signal_settings(block["signals"]), role)
        source = f"{role} record {wildcards.record}" + (
            f" ({spec['path']})" if "path" in spec else ""
        )
        return {
            "study": wildcards.study,
            "source": source,
            "joints": block["joints"],
            "signals": settings,
        }

    def compress_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The segments of the compression (``cv``: folds, gap) and the tanh law's velocity."""
        block = self.blocks[wildcards.study]
        velocity = block["coulomb"]["velocity_rad_s"]
        return self._params(wildcards, cv=block["cv"], velocity_rad_s=velocity)

    def model_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(wildcards, base=self.blocks[wildcards.study]["base"])

    def friction_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The Coulomb law (``auto``: chosen per joint by the consistent fit's CV)."""
        block = self.blocks[wildcards.study]
        return self._params(wildcards, coulomb=block["coulomb"], lmi=block["lmi"])

    def fit_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The method's settings; for lmi on a twin the spread its truth scales the URDF by
        (a pull toward the URDF is then expected to cost, not a sign of a wrong URDF)."""
        name, method = wildcards.study, wildcards.method
        extra = {}
        if method == "lmi" and name in self.twin:
            extra["twin_spread"] = float(self.blocks[name]["twin"]["inertia_spread"])
        settings = self.fit_settings(name, method)
        return self._params(wildcards, method=method, settings=settings, **extra)

    def fit_inputs(self, wildcards: Wildcards) -> dict[str, Any]:
        """The compressed data; the methods that need the rows read the signals too."""
        model = f"results/{wildcards.study}/model"
        inputs: dict[str, Any] = {
            "compressed": f"{model}/compressed.parquet",
            "base": f"{model}/base.json",
            "friction": f"{model}/friction.json",
        }
        if ESTIMATORS[wildcards.method].needs_rows:
            inputs["signals"] = self.calibration_signals(wildcards)
        return inputs

    def fit_settings(self, name: str, method: str) -> dict[str, Any]:
        """The config blocks an estimator reads (editing one reruns only the methods reading
        it)."""
        block = self.blocks[name]
        if method == "lmi":
            return dict(block["lmi"])
        if method == "bcls":
            return {"rls": block["rls"]}
        if ESTIMATORS[method].population:  # its own optimiser's block (pso or agwo) only
            population, optimiser = block["population"], POPULATION_METHODS[method].optimiser
            return {
                "rls": block["rls"],
                "runs": population["runs"],
                "population": population["size"],
                "iterations": population["iterations"],
                optimiser: block[optimiser],
            }
        return {}

    def predict_params(self, wildcards: Wildcards) -> dict[str, Any]:
        validation = self.record_ids(wildcards.study, "validation")
        return self._params(wildcards, method=wildcards.method, records=validation)

    def reference_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """A published model's URDF in place of the study's (same joints and friction)."""
        block = self.blocks[wildcards.study]
        urdf = block["references"][wildcards.reference]
        robot = self.robot_block(wildcards.study) | {
            "urdf": urdf,
            "urdf_sha256": codehash.file_digest(urdf),
        }
        validation = self.record_ids(wildcards.study, "validation")
        return {
            "study": wildcards.study,
            "reference": wildcards.reference,
            "robot": robot,
            "base": block["base"],
            "velocity_rad_s": block["coulomb"]["velocity_rad_s"],
            "records": validation,
        }

    def reference_inputs(self, wildcards: Wildcards) -> dict[str, Any]:
        block = self.blocks[wildcards.study]
        return {
            "urdf": block["references"][wildcards.reference],
            "friction": f"results/{wildcards.study}/model/friction.json",
            "calibration": self.calibration_signals(wildcards),
            "validation": self.validation_signals(wildcards),
        }

    def urdf(self, wildcards: Wildcards) -> str:
        return str(self.blocks[wildcards.study]["urdf"])

    def no_export(self, wildcards: Wildcards) -> list[str]:
        """The input function of a request for an identified URDF of a method that gives none
        (``model/ols.urdf``): it ends the run with one line saying which methods give one and
        why (Snakemake alone says "No rule to produce"), as :func:`paramid.workflow.
        no_such_study` does."""
        exported = ", ".join(f"model/{m}.urdf" for m in self.consistent)
        raise SystemExit(
            f"paramid: results/{wildcards.study}/model/{wildcards.method}.urdf: only a "
            f"physically consistent method's fit goes out as a URDF ({exported}): "
            f"{wildcards.method}'s standard parameters may have a link with negative mass or an "
            "impossible inertia, which a simulator refuses or runs wrongly; the urdf rows' "
            "rigid body is your URDF itself (README, 'Multi-joint robots')"
        )

    def export_params(self, wildcards: Wildcards) -> dict[str, Any]:
        block = self.blocks[wildcards.study]
        specs = [
            (name, spec)
            for name, (role, spec) in self.records[wildcards.study].items()
            if role == "calibration"
        ]
        calibration = [spec.get("path", f"{name} (a twin record)") for name, spec in specs]
        digests = [codehash.file_digest(spec["path"]) for _, spec in specs if "path" in spec]
        return self._params(
            wildcards,
            method=wildcards.method,
            lmi=block["lmi"],
            calibration=calibration,
            calibration_sha256=digests,
        )

    def tables_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return self._params(
            wildcards, methods=self.methods(wildcards), rows=self.rows(wildcards.study)
        )

    def recovery_params(self, wildcards: Wildcards) -> dict[str, Any]:
        twin = self.blocks[wildcards.study]["twin"]
        return self._params(wildcards, twin=twin, methods=self.methods(wildcards))

    def figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {
            "study": wildcards.study,
            "figure": wildcards.figure,
            "joints": self.blocks[wildcards.study]["joints"],
            "records": self.record_ids(wildcards.study, "validation"),
            "methods": self.rows(wildcards.study),
            "style": self.config["figures"],
        }

    def excitation_params(self, wildcards: Wildcards) -> dict[str, Any]:
        block = self.blocks[wildcards.study]
        keys = ("base", "excitation", "twin")
        return self._params(wildcards, **{k: block[k] for k in keys})

    def excitation_design_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The design's settings: not what it is compared with, nor the twin that compares
        (adding a `compare:` file reruns the comparison, not the design)."""
        block = self.blocks[wildcards.study]
        compared = ("compare", "comparison")
        design = {k: v for k, v in block["excitation"].items() if k not in compared}
        return self._params(wildcards, base=block["base"], excitation=design)

    def excitation_figure_params(self, wildcards: Wildcards) -> dict[str, Any]:
        return {"study": wildcards.study, "style": self.config["figures"]}

    # -- inputs ----------------------------------------------------------------------------
    def methods(self, wildcards: Wildcards) -> list[str]:
        return list(self.blocks[wildcards.study]["methods"])

    def rows(self, name: str) -> list[str]:
        """The rows of the validation table: the methods, then a ``reference_<name>`` per
        published model."""
        block = self.blocks[name]
        return [*block["methods"], *(f"reference_{r}" for r in block["references"])]

    def _files(self, wildcards: Wildcards, folder: str, names: list[str]) -> list[str]:
        return [f"results/{wildcards.study}/{folder}/{n}.parquet" for n in names]

    def record_files(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "records", self.record_ids(wildcards.study))

    def calibration_records(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "records", self.record_ids(wildcards.study, "calibration"))

    def calibration_signals(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "signals", self.record_ids(wildcards.study, "calibration"))

    def validation_signals(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "signals", self.record_ids(wildcards.study, "validation"))

    def signals_inputs(self, wildcards: Wildcards) -> dict[str, str]:
        files = {"record": f"results/{wildcards.study}/records/{wildcards.record}.parquet"}
        if self.blocks[wildcards.study]["signals"]["cutoff_hz"] == "auto":
            files["cutoff"] = f"results/{wildcards.study}/signals/cutoff.json"
        return files

    def fits(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "fits", self.methods(wildcards))

    def predictions(self, wildcards: Wildcards) -> list[str]:
        return self._files(wildcards, "predictions", self.rows(wildcards.study))

    def figure_inputs(self, wildcards: Wildcards) -> dict[str, Any]:
        """The torque figure reads the predictions, the others one table each."""
        base = f"results/{wildcards.study}/tables"
        if wildcards.figure == "torque":
            return {"predictions": self.predictions(wildcards)}
        if wildcards.figure == "rmse":
            return {"validation": f"{base}/validation.csv"}
        if wildcards.figure == "regularisation":
            return {"regularisation": f"{base}/regularisation.csv"}
        return {"parameters": f"{base}/parameters.csv"}

    def excitation_coefficients(self, wildcards: Wildcards) -> list[str]:
        entries = self.blocks[wildcards.study]["excitation"]["compare"]
        return [entry["coefficients"] for entry in entries]

    # -- targets ---------------------------------------------------------------------------
    def study_targets(self, name: str) -> list[str]:
        out = []
        if name in self.excitation:
            base = f"results/{name}/excitation"
            files = ["design.json", "trajectory.parquet", "trajectory.csv", "comparison.csv"]
            out += [f"{base}/{f}" for f in [*files, "per_seed.parquet"]]
            out += [
                f"{base}/{f}.{ext}"
                for f in ("trajectories", "comparison")
                for ext in ("png", "pdf")
            ]
        if not self.records[name]:
            return out
        base = f"results/{name}"
        methods = self.blocks[name]["methods"]
        out.append(f"{base}/model/base.json")
        tables = (
            "validation",
            "parameters",
            "consistency",
            "friction",
            "regularisation",
            "warnings",
        )
        out += [f"{base}/tables/{t}.csv" for t in tables]
        out += [f"{base}/model/{m}.urdf" for m in methods if m in CONSISTENT]
        if name in self.twin:
            out.append(f"{base}/tables/recovery.csv")
        figures = [f for f in FIGURES if f != "regularisation" or self._auto_weight(name)]
        return out + [f"{base}/figures/{f}.{ext}" for f in figures for ext in ("png", "pdf")]

    def _auto_weight(self, name: str) -> bool:
        block = self.blocks[name]
        return "lmi" in block["methods"] and block["lmi"]["weight"] == "auto"
