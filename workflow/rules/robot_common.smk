# Helpers of workflow/rules/robot.smk (functions and constants only; rules live there): the
# multi-joint studies under `robots:` (paramid.robot), their records, the parse-time checks of
# URDFs and joint logs (one clear error, nothing written), config subsets passed as params and
# the list of final targets.

from pathlib import Path as _RobotPath

from paramid import paths as _robot_paths
from paramid.config import ConfigError as _RobotConfigError
from paramid.ingest import InputError as _RobotInputError
from paramid.ingest import check_file as _robot_check_file
from paramid.robot import model as _robot_model
from paramid.robot import records as _robot_records

ROBOTS = config.get("robots") or {}
ROBOT_STUDIES = list(ROBOTS)
ROBOT_FIGURES = ["torque", "rmse", "parameters"]
ROBOT_ROLES = ["calibration", "validation"]


def robot_record_names(study):
    """{record id: (role, spec)} of a study; ids default to the file stem (measured) or
    <role>_<k> (twin) and must be unique."""
    names = {}
    records = ROBOTS[study].get("records") or {}  # none: an excitation-only study
    for role in ROBOT_ROLES:
        for k, spec in enumerate(records.get(role, []), start=1):
            default = _RobotPath(spec["path"]).stem if "path" in spec else f"{role}_{k}"
            name = spec.get("name", default)
            if name in names:
                raise _RobotConfigError(
                    f"robots.{study}.records: two records named {name!r}; give one a `name:`"
                )
            names[name] = (role, spec)
    return names


def robot_is_twin(study):
    """True for simulated records (duration_s + excitation), False for joint logs (path)."""
    kinds = {"path" in spec for _, spec in robot_record_names(study).values()}
    if len(kinds) > 1:
        raise _RobotConfigError(
            f"robots.{study}.records: all records must be joint logs (path) or all twin "
            "records (duration_s, excitation)"
        )
    return kinds == {False}


def _robot_block(study):
    """The settings every stage needs to rebuild the robot."""
    block = ROBOTS[study]
    return {k: block[k] for k in ("urdf", "joints", "locked", "friction", "offset")}


def _check_robot_study(study):
    """URDF and joints (the robot loads), twin noise per joint, each joint log's layout; returns
    the validation stamps to leave."""
    block = ROBOTS[study]
    _robot_check_file(block["urdf"], f"robots.{study}.urdf")
    stamps = []
    done, stamp = validated_before(block["urdf"], _robot_block(study), _robot_model)
    if not done:
        _robot_model.load_robot(
            block["urdf"], block["joints"], block["locked"], block["friction"], block["offset"]
        )
        stamps.append(stamp)
    noise = block["twin"]["noise"]["torque_noise_nm"]
    if robot_is_twin(study) and isinstance(noise, list) and len(noise) != len(block["joints"]):
        raise _RobotConfigError(
            f"robots.{study}.twin.noise.torque_noise_nm has {len(noise)} values for "
            f"{len(block['joints'])} joints"
        )
    for name, (role, spec) in robot_record_names(study).items():
        if "path" in spec:
            stamps += _check_robot_log(study, name, role, spec)
    return stamps


def _check_robot_log(study, name, role, spec):
    field = f"robots.{study}.records.{role} ({name}).path"
    _robot_check_file(spec["path"], field)
    settings = {
        "spec": spec,
        "joints": ROBOTS[study]["joints"],
        "signals": ROBOTS[study]["signals"],
    }
    done, stamp = validated_before(spec["path"], settings, _robot_records)
    if done:
        return []
    record = _robot_records.load_record(
        spec["path"], ROBOTS[study]["joints"], spec["columns"], spec["units"], spec["max_jitter"]
    )
    kept = record.time[-1] - spec["trim_start_s"] - spec["trim_end_s"]
    needed = 2 * ROBOTS[study]["signals"]["trim_s"]
    if kept <= needed:
        raise _RobotInputError(
            f"{spec['path']}: {kept:.4g} s left after trim_start_s/trim_end_s, not more than the "
            f"2 x signals.trim_s = {needed:g} s that filtering drops"
        )
    return [stamp]


def validate_robot_inputs():
    """Check every robot study's inputs before any job runs (one clear error, nothing written;
    name clashes with other families are caught by paramid.config.result_folders)."""
    _robot_paths.check_study_folders(ROBOT_STUDIES)
    stamps = []
    for study in ROBOT_STUDIES:
        stamps += _check_robot_study(study)
    mark_validated(stamps)


validate_robot_inputs()


def robot_records(study, role=None):
    return [n for n, (r, _) in robot_record_names(study).items() if role in (None, r)]


def _robot_signal_files(study, role):
    return [f"results/{study}/signals/{n}.parquet" for n in robot_records(study, role)]


def robot_record_params(wildcards):
    study, record = wildcards.study, wildcards.record
    cfg = {"study": study, "record": record, "robot": _robot_block(study)}
    cfg["spec"] = robot_record_names(study)[record][1]
    if robot_is_twin(study):
        cfg["twin"] = ROBOTS[study]["twin"]
    return cfg


def robot_signals_input(wildcards):
    study = wildcards.study
    files = {"record": f"results/{study}/records/{wildcards.record}.parquet"}
    if ROBOTS[study]["signals"]["cutoff_hz"] == "auto":
        files["cutoff"] = f"results/{study}/signals/cutoff.json"
    return files


def robot_cal_signals(wildcards):
    return _robot_signal_files(wildcards.study, "calibration")


def robot_val_signals(wildcards):
    return _robot_signal_files(wildcards.study, "validation")


def robot_fit_settings(study, method):
    """The config blocks an estimator reads (editing one reruns only the methods reading it)."""
    block = ROBOTS[study]
    if method == "lmi":
        return {"weight": block["lmi"]["weight"]}
    if method == "bcls":
        return {"rls": block["rls"]}
    if method in ("rls_pso", "rls_agwo"):
        pop = block["population"]
        return {
            "rls": block["rls"],
            "runs": pop["runs"],
            "population": pop["size"],
            "iterations": pop["iterations"],
            "pso": block["pso"],
            "agwo": block["agwo"],
        }
    return {}


def robot_methods(wildcards):
    return ROBOTS[wildcards.study]["methods"]


def _robot_method_files(wildcards, folder):
    return [f"results/{wildcards.study}/{folder}/{m}.parquet" for m in robot_methods(wildcards)]


def robot_fits(wildcards):
    return _robot_method_files(wildcards, "fits")


def robot_predictions(wildcards):
    return _robot_method_files(wildcards, "predictions")


def robot_targets():
    """Final outputs of every robot study (for rule all)."""
    out = []
    for study in ROBOT_STUDIES:
        out += robot_excitation_targets(study)
        if "records" not in ROBOTS[study]:
            continue
        base = f"results/{study}"
        out.append(f"{base}/model/base.json")
        out += [f"{base}/tables/{t}.csv" for t in ("validation", "parameters", "consistency")]
        if robot_is_twin(study):
            out.append(f"{base}/tables/recovery.csv")
        out += [f"{base}/figures/{f}.{ext}" for f in ROBOT_FIGURES for ext in ("png", "pdf")]
    return out
