# Helpers shared by every family's stage files: wildcard constraints, the template applied to
# every scripted step (code version, log, benchmark, priority) and the parse-time validation
# stamps.

import hashlib as _hashlib
import json as _json
import os as _os
import re as _re
from pathlib import Path as _Path

from paramid import provenance as _provenance

NEVER = "(?!)"  # a wildcard pattern that matches nothing


def one_of(names):
    """A wildcard constraint matching exactly these names (NEVER when there are none)."""
    return "|".join(_re.escape(str(n)) for n in names) or NEVER


_VALIDATED = _Path(".snakemake/paramid-validated")


def validated_before(path, settings, checker):
    """Whether this file, with these settings and this checking code, passed validation before.

    Snakemake parses the workflow at every start; a stamp named by the hash of all three lets a
    rerun skip the checks (filtering a record imports scipy.signal, ~1 s) while any change to
    the file, its settings or the checking module ``checker`` (and what it imports) validates
    again. Returns the stamp to touch once the checks pass.
    """
    digest = _hashlib.sha256(_Path(path).read_bytes())
    digest.update(_json.dumps(settings, sort_keys=True, default=str).encode())
    digest.update(_provenance.code_version(checker.__file__).encode())
    stamp = _VALIDATED / digest.hexdigest()
    return stamp.exists(), stamp


def mark_validated(stamps):
    """Leave the stamps of inputs that passed their checks (see validated_before)."""
    _VALIDATED.mkdir(parents=True, exist_ok=True)
    for stamp in stamps:
        stamp.touch()


def script_code(script, exclude=()):
    """params.code of a rule running ``scripts/<script>`` (see apply_rule_template)."""
    return _provenance.code_version(_Path(workflow.basedir) / "scripts" / script, exclude)


def benchmark_path(scripted):
    """benchmarks/<rule>/<wildcard values>.tsv (benchmarks/<rule>.tsv without wildcards): the
    wall time and memory of each of a rule's jobs, wildcards in the order of its output path."""
    names = dict.fromkeys(_re.findall(r"{(\w+)", str(scripted.output[0])))
    return _Path("benchmarks", scripted.name, *(f"{{{w}}}" for w in names)).as_posix() + ".tsv"


# The one environment of the whole run (envs/paramid.yaml, pinned versions), named by every
# rule: Snakemake runs in it (the Snakefile imports paramid), and with --use-conda it builds it
# once under .snakemake/conda/ for the jobs. Its pip section installs ${PARAMID_CHECKOUT}, the
# checkout: pip expands the variable, which a relative path could not do once Snakemake has
# copied the file.
CONDA_ENV = _Path(workflow.basedir, "envs", "paramid.yaml").as_posix()
_os.environ.update(PARAMID_CHECKOUT=_Path(workflow.basedir).as_posix())  # set, never read here


def apply_rule_template(first_files, priority):
    """Give every rule that runs something the run's conda environment, and every scripted
    rule its code version and benchmark file; check the parts every rule must have, and give
    the rules declared in ``first_files`` (file names) ``priority``."""
    for scripted in workflow.rules:
        if scripted.norun:
            continue
        scripted.conda_env = CONDA_ENV
        if scripted.script is None:
            continue
        if not scripted.log:
            raise ValueError(f"{scripted.name} declares no log; every job writes one under logs/")
        if "code" not in scripted.params._names:
            scripted.set_params(code=script_code(_Path(scripted.script).name))
        scripted.benchmark_modifier = scripted.log_modifier  # the rule's own path modifier
        scripted.benchmark = benchmark_path(scripted)
        if _Path(scripted.snakefile).name in first_files:
            scripted.priority = priority
