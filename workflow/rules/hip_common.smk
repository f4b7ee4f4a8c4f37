# Helpers of the hip-chain stage files (the `studies` block: hip, pendulum, users' own): study
# lookup, config subsets (passed as params, so that a change reruns exactly the stages that read
# it), the parse-time checks of measured records and the list of final targets.

from paramid import config as _config_checks
from paramid import paths as _paths
from paramid import ingest as _ingest
from paramid.hip import checks as _hip_checks
from paramid.hip import methods as _methods

# Snakemake reads --configfile files itself and keeps the last of two equal keys silently:
# reading them again finds such duplicates (paramid.ingest.read_yaml names file and line)
for _configfile in workflow.overwrite_configfiles:
    _ingest.read_yaml(_configfile)
# what the schema cannot say (paramid.config), and no study folder a symlink leading out
_config_checks.check(config)
RESULT_FOLDERS = _config_checks.result_folders(config)
_paths.check_study_folders(RESULT_FOLDERS)

STUDIES = list(config["studies"])
RECORDS = ["calibration", "validation"]

# The hip chain's stage files: their jobs run before the other families' (priority, given by
# the rule template), so a run of `all` has the headline hip results first.
HIP_STAGES = ("simulate", "ingest", "signals", "rls", "fit", "tables", "stats", "figures", "sweeps")
HIP_RULE_FILES = [f"{stage}.smk" for stage in (*HIP_STAGES, "audit")]
HIP_PRIORITY = 50


def record_kind(study, record):
    """'twin' for a simulated record (Eq 18/19-style trajectory), 'measured' for a file."""
    return "twin" if "trajectory" in config["studies"][study]["records"][record] else "measured"


def study_kind(study):
    kinds = {record_kind(study, r) for r in RECORDS}
    if len(kinds) > 1:
        raise _ingest.InputError(
            f"studies.{study}.records: calibration and validation must both be simulated "
            "(trajectory) or both measured (path)"
        )
    return kinds.pop()


TWIN_STUDIES = [s for s in STUDIES if study_kind(s) == "twin"]
MEASURED_STUDIES = [s for s in STUDIES if study_kind(s) == "measured"]


def validate_inputs():
    """Check every shipped or measured input before any job runs: one clear error, nothing
    written (measured records, and the YAML of the paper's values)."""
    checked = []
    for study in STUDIES:
        path = config["studies"][study].get("paper_values")
        if path:
            checked += check_paper_values(path, f"studies.{study}.paper_values")
    for study in MEASURED_STUDIES:
        cfg = config["studies"][study]
        for record in RECORDS:
            spec = cfg["records"][record]
            _ingest.check_file(spec["path"], f"studies.{study}.records.{record}.path")
            settings = {
                k: cfg[k] for k in ("ingest", "regressor", "gravity", "signals", "rls", "checks")
            }
            sweep = cfg.get("sweeps", {}).get("cutoff_hz", {}).get("values", [])
            settings["sweep_cutoffs"] = sweep
            done, stamp = validated_before(spec["path"], {"spec": spec, **settings}, _ingest)
            if done:
                continue
            checked.append(stamp)
            loaded = _ingest.load_record(
                spec["path"], spec["units"], spec["columns"], cfg["ingest"]["max_jitter"]
            )
            check_sweep_cutoffs(study, spec["path"], sweep, loaded.sample_rate_hz)
            _hip_checks.check_usable(
                loaded,
                spec["path"],
                study=study,
                regressor=cfg["regressor"],
                gravity=cfg["gravity"],
                signals_config=cfg["signals"],
                burn_in_s=cfg["rls"]["burn_in_s"] if record == "calibration" else 0.0,
                skip_checks=cfg["checks"]["skip"],
            )
    mark_validated(checked)


def check_paper_values(path, field):
    """A YAML mapping of the paper's printed values; returns the stamps to leave."""
    _ingest.check_file(path, field)
    done, stamp = validated_before(path, {}, _ingest)
    if done:
        return []
    values = _ingest.read_yaml(path)
    if not isinstance(values, dict):
        raise _ingest.InputError(
            f"{field} = {path!r} holds a {type(values).__name__}, not a mapping of the paper's "
            "tables (see data/hip/paper_values.yaml)"
        )
    return [stamp]


def check_sweep_cutoffs(study, path, values, sample_rate_hz):
    """Every cutoff of a measured study's cutoff sweep lies below the record's Nyquist."""
    high = [v for v in values if v >= sample_rate_hz / 2]
    if high:
        raise _ingest.InputError(
            f"{path}: studies.{study}.sweeps.cutoff_hz.values {high} are at or above the "
            f"Nyquist frequency {sample_rate_hz / 2:g} Hz of this record"
        )


validate_inputs()
DETERMINISTIC_METHODS = list(_methods.DETERMINISTIC_METHODS)
POPULATION_METHODS = list(_methods.POPULATION_METHODS)
FIG3_SELECTED = list(_methods.FIG3_SELECTED)


def study_config(wildcards):
    return config["studies"][wildcards.study]


def simulate_params(wildcards):
    study = study_config(wildcards)
    return {
        "record": wildcards.record,
        "twin": study["twin"],
        "gravity": study["gravity"],
        "spec": study["records"][wildcards.record],
    }


def ingest_params(wildcards):
    study = study_config(wildcards)
    return {
        "record": wildcards.record,
        "spec": study["records"][wildcards.record],
        "ingest": study["ingest"],
    }


def measured_path(wildcards):
    return study_config(wildcards)["records"][wildcards.record]["path"]


def fixed_signal_settings(study):
    """The signal chain's settings without those of the cutoff choice (a chain that uses the
    chosen cutoff reads it from signals/cutoff.json, so the candidates never rerun it)."""
    return {
        k: v for k, v in study["signals"].items() if k not in ("cutoff_candidates_hz", "cv_blocks")
    }


def cutoff_is_auto(study):
    """Whether the study's low-pass cutoff is chosen from its calibration record."""
    return config["studies"][study]["signals"]["cutoff_hz"] == "auto"


def chosen_cutoff(wildcards):
    """The cutoff choice a stage needs ([] for a fixed cutoff)."""
    return (
        [f"results/{wildcards.study}/signals/cutoff.json"]
        if cutoff_is_auto(wildcards.study)
        else []
    )


def cutoff_params(wildcards):
    study = study_config(wildcards)
    return {
        "study": wildcards.study,
        "signals": study["signals"],
        "regressor": study["regressor"],
        "gravity": study["gravity"],
    }


def signals_params(wildcards):
    study = study_config(wildcards)
    return {
        "signals": fixed_signal_settings(study),
        "regressor": study["regressor"],
        "gravity": study["gravity"],
    }


def rls_params(wildcards):
    study = study_config(wildcards)
    return {"rls": study["rls"], "agwo": study["agwo"], "regressor": study["regressor"]}


def fit_params(wildcards):
    study = study_config(wildcards)
    return {"method": wildcards.method, "regressor": study["regressor"], "fit": study["fit"]}


def fit_population_params(wildcards):
    study = study_config(wildcards)
    # only the settings block of this method's optimiser, so editing GA settings reruns GA only
    # (GWO has no settings block)
    block = _methods.POPULATION_METHODS[wildcards.method].optimiser
    return {
        "study": wildcards.study,
        "method": wildcards.method,
        "regressor": study["regressor"],
        "population": study["population"],
        **({block: study[block]} if block in study else {}),
    }


def tables_params(wildcards):
    study = study_config(wildcards)
    return {
        "study": wildcards.study,
        "methods": study["methods"],
        "regressor": study["regressor"],
        "reference": reference_values(wildcards.study),
    }


def reference_values(study):
    """Reference parameters: the twin's X_true, or a measured study's published values."""
    cfg = config["studies"][study]
    if "twin" in cfg:
        return cfg["twin"]["x_true"]
    return cfg.get("reference", {}).get("values")


def paper_values(wildcards):
    path = study_config(wildcards).get("paper_values")
    return [path] if path else []


# Figure 4's sweeps run one job per value, so adding a value adds only its job. The §5.3 sweeps
# run all their values in one job: a value takes tens of ms, far less than a job's start-up.
VALUE_SWEEPS = ["margin", "cutoff_hz"]
SWEEP_FIGURES = {"margin": "fig4a", "cutoff_hz": "fig4b"}


def sweep_value(value):
    """File-name form of a sweep value (the wildcard {value})."""
    return f"{value:g}"


def sweep_params(wildcards):
    """What one sweep job reads: the study's settings and this sweep's own block; a one-value job
    never sees the list of values (adding a value must not rerun the other values)."""
    study = study_config(wildcards)
    block = study["sweeps"][wildcards.sweep]
    if wildcards.sweep in VALUE_SWEEPS:
        block = {k: v for k, v in block.items() if k != "values"}
    keys = ("regressor", "gravity", "rls", "agwo", "population", "pso", "ga")
    params = {
        "study": wildcards.study,
        "sweep": wildcards.sweep,
        "value": getattr(wildcards, "value", None),
        "sweep_config": block,
        "settings": {k: study[k] for k in keys},
    }
    if wildcards.sweep not in VALUE_SWEEPS:  # a whole sweep's job writes its table too
        params["default"] = sweep_default(wildcards, wildcards.sweep)
    return params


def sweep_cutoff_params(wildcards):
    """A twin study runs its records for every twin seed at the cutoff; a measured study runs
    its two records once (no seeds to pair)."""
    study = study_config(wildcards)
    signals = {k: v for k, v in fixed_signal_settings(study).items() if k != "cutoff_hz"}
    twin = study_kind(wildcards.study) == "twin"
    keys = ("regressor", "gravity", "rls", "records") + (("twin",) if twin else ())
    block = study["sweeps"]["cutoff_hz"]
    return {
        "study": wildcards.study,
        "sweep": "cutoff_hz",
        "value": wildcards.value,
        "sweep_config": {"twin_seeds": block["twin_seeds"]} if twin else {},
        "settings": {**{k: study[k] for k in keys}, "signals": signals},
    }


def sweep_cutoff_records(wildcards):
    """The measured records a cutoff-sweep job filters (none for a twin: it simulates)."""
    if study_kind(wildcards.study) == "twin":
        return {}
    return {r: f"results/{wildcards.study}/records/{r}.parquet" for r in RECORDS}


def sweep_points(wildcards, sweep=None):
    sweep = sweep or wildcards.sweep
    base = f"results/{wildcards.study}/sweeps"
    if sweep in VALUE_SWEEPS:
        values = study_config(wildcards)["sweeps"][sweep]["values"]
        return [f"{base}/{sweep}/{sweep_value(v)}.parquet" for v in values]
    return [f"{base}/{sweep}.parquet"]


def sweep_reference_fits(wildcards):
    """Leave-one-trajectory-out compares with the main fits (the default direction)."""
    if wildcards.sweep != "leave_one_trajectory_out":
        return []
    methods = study_config(wildcards)["sweeps"][wildcards.sweep]["methods"]
    return [f"results/{wildcards.study}/fits/{m}.parquet" for m in methods]


def sweep_default(wildcards, sweep):
    """The paper's default setting of a sweep, the one every other value is tested against."""
    study = study_config(wildcards)
    return {
        "margin": study["rls"]["margin"],
        "cutoff_hz": study["signals"]["cutoff_hz"],
        "forgetting": study["rls"]["forgetting"],
        "population": study["population"]["size"],
        "agwo_grid": [study["agwo"]["mu_base"], study["agwo"]["kappa"]],
        "leave_one_trajectory_out": None,
    }[sweep]


def sweep_table_params(wildcards):
    sweep = wildcards.sweep
    return {"study": wildcards.study, "sweep": sweep, "default": sweep_default(wildcards, sweep)}


def sweep_default_choice(wildcards):
    """A cutoff sweep whose default is ``auto`` is tested against the chosen cutoff."""
    if wildcards.sweep == "cutoff_hz" and sweep_default(wildcards, "cutoff_hz") == "auto":
        return chosen_cutoff(wildcards)
    return []


def sweep_figure_params(wildcards, sweep=None):
    """Figure settings and the default to mark; nothing that changes the table."""
    sweep = sweep or wildcards.sweep
    return {"sweep": sweep, "default": sweep_default(wildcards, sweep), "style": config["figures"]}


def sweep_figure_points(wildcards):
    """The AGWO grid's figure shows cell medians; the cutoff figure marks the first twin seed."""
    if wildcards.sweep in ("agwo_grid", "cutoff_hz"):
        return sweep_points(wildcards)
    return []


def sweep_targets(study):
    base = f"results/{study}"
    targets = []
    for sweep in config["studies"][study].get("sweeps", {}):
        figure = SWEEP_FIGURES.get(sweep, f"sweep_{sweep}")
        targets += [f"{base}/tables/sweep_{sweep}.{ext}" for ext in ("csv", "md")]
        targets += [f"{base}/figures/{figure}.{ext}" for ext in ("png", "pdf")]
    return targets


def audited(study):
    """A study is audited when it has the paper's printed values or reference parameters."""
    cfg = config["studies"][study]
    return "paper_values" in cfg or "reference" in cfg


def audit_inputs(wildcards):
    base = f"results/{wildcards.study}"
    cfg = study_config(wildcards)
    inputs = {
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
            inputs["cutoff"] = sweep_points(wildcards, "cutoff_hz")
    return inputs


def audit_params(wildcards):
    cfg = study_config(wildcards)
    return {
        "study": wildcards.study,
        "regressor": cfg["regressor"],
        "reference": cfg.get("reference"),
        "twin_seed": cfg["twin"]["seed"] if "twin" in cfg else None,
    }


def audit_targets():
    return [f"results/{s}/audit.{ext}" for s in STUDIES if audited(s) for ext in ("csv", "md")]


def selected_fits(wildcards):
    return expand(
        "results/{study}/fits/{method}.parquet", study=wildcards.study, method=FIG3_SELECTED
    )


def study_targets(study):
    base = f"results/{study}"
    methods = config["studies"][study]["methods"]
    targets = [
        f"{base}/rls/summary.json",
        *(f"{base}/tables/{name}.{ext}" for name in ("table3", "table4") for ext in ("csv", "md")),
    ]
    population = [m for m in methods if m in POPULATION_METHODS]
    if population and "bcls" in methods:
        targets += [f"{base}/tables/stats.{ext}" for ext in ("csv", "md")]
    if population:
        targets += [f"{base}/figures/fig3c.{ext}" for ext in ("png", "pdf")]
    if population and "bcls" in methods:
        targets += [f"{base}/figures/fig3d.{ext}" for ext in ("png", "pdf")]
    if set(FIG3_SELECTED) <= set(methods):
        targets += [
            f"{base}/figures/{fig}.{ext}" for fig in ("fig3a", "fig3b") for ext in ("png", "pdf")
        ]
    if cutoff_is_auto(study):
        targets += [f"{base}/tables/cutoff.{ext}" for ext in ("csv", "md")]
    return targets + sweep_targets(study)


def all_targets():
    return [target for study in STUDIES for target in study_targets(study)] + audit_targets()
