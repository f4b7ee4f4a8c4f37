"""The workflow side of the CEC 2022 optimiser benchmark (``cec2022:`` in config.yaml; rules
cec2022.smk): its output folders, checks, each rule's config subset, inputs and targets.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paramid import codehash, paths
from paramid.cec2022 import paper, runs
from paramid.config import ConfigError
from paramid.optim import registry
from paramid.workflow import Wildcards, check_paper_values, mark_validated, script_code

FIGURES = ("ranks", "paper_ranks", "convergence")


class Cec2022Benchmark:
    """The ``cec2022:`` block (always present: the schema fills its defaults)."""

    figures = FIGURES

    def __init__(self, config: Mapping[str, Any], taken: Mapping[str, str], basedir: str) -> None:
        """Checks the block's settings and output folders (its files: :meth:`check_inputs`)."""
        self.config = config
        self.block: Mapping[str, Any] = config["cec2022"]
        self.basedir = basedir
        block = self.block
        for key in ("output", "logs"):  # as written; paths.confine resolves symlinks below
            parts = Path(os.path.normpath(block[key])).parts
            if len(parts) > 1 and parts[0] in paths.ROOTS and parts[1] in taken:
                raise ConfigError(
                    f"cec2022.{key} = {block[key]!r} and {taken[parts[1]]} would both write "
                    f"{parts[0]}/{parts[1]}: rename the study or set another cec2022.{key}"
                )
        if unregistered := [a for a in block["algorithms"] if a not in runs.ALGORITHMS]:
            raise ConfigError(
                f"cec2022.algorithms: {unregistered} have no entry in "
                "paramid.cec2022.runs.ALGORITHMS (display name -> paramid.optim.registry "
                "name), which the run jobs, tables and figures read: register them there"
            )
        if block["reference"] not in block["algorithms"]:
            raise ConfigError(
                f"cec2022.reference = {block['reference']!r} is not among cec2022.algorithms "
                f"{block['algorithms']}: the reference is tested against each of them"
            )
        if block["budget"] == "cec":
            short = {
                dim: budget
                for dim, budget in runs.CEC_BUDGET.items()
                if dim in block["dims"] and budget % int(block["population"])
            }
            if short:
                raise ConfigError(
                    f"cec2022.budget = cec with cec2022.population = {block['population']}: "
                    f"{', '.join(f'{b:,} evaluations (D = {d})' for d, b in short.items())} "
                    "is not a whole number of iterations, so each run would stop short of the "
                    "official budget; use a population that divides it (e.g. 100)"
                )
        self.out = paths.confine(block["output"], "cec2022.output", "results", taken=taken)
        self._run_codes: dict[str, str] = {}
        self.logs = paths.confine(block["logs"], "cec2022.logs", "logs", taken=taken)

    def check_inputs(self) -> None:
        """The YAML of the paper's values (Tables 3-4, §3.1.2's places)."""
        mark_validated(
            check_paper_values(self.block["paper_values"], "cec2022.paper_values", paper.read)
        )

    def run_code(self, wildcards: Wildcards) -> str:
        """params.code of one run job: the script's library code without the optimisers of
        registry.METHODS that this job's algorithm does not run (editing GGO reruns GGO's jobs
        only)."""
        if wildcards.algorithm not in self._run_codes:  # asked per job, twice (SettingsFile)
            method = registry.METHODS[runs.ALGORITHMS[wildcards.algorithm]]
            own = sys.modules[method.__module__]
            needed = {codehash.dotted_name(f) for f in codehash.library_files(str(own.__file__))}
            others = {m.__module__ for m in registry.METHODS.values()} - needed
            code = script_code(self.basedir, "cec2022_run.py", exclude=sorted(others))
            self._run_codes[wildcards.algorithm] = code
        return self._run_codes[wildcards.algorithm]

    def job_output(self, folder: str) -> str:
        """The file of one run job (one algorithm and dimension, every function): its run
        table (``folder`` "runs") or best-so-far histories ("histories"), wildcards {dim},
        {algorithm}."""
        return f"{self.out}/{folder}/d{{dim}}/{{algorithm}}.parquet"

    def run_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The config subset one job depends on (a change of `runs` reruns every job, one of an
        optimiser's ``settings`` that optimiser's jobs)."""
        settings = {k: self.block[k] for k in runs.RUN_SETTINGS}
        own = runs.optimiser_settings(self.block["settings"], wildcards.algorithm)
        return settings | {"functions": self.block["functions"], "optimiser_settings": own}

    def stats_params(self, wildcards: Wildcards) -> dict[str, Any]:
        """The reference, and the dimensions in the order of :meth:`tables`' files."""
        return {"reference": self.block["reference"], "dims": list(self.block["dims"])}

    def _per_run(self, folder: str, dim: str | int) -> list[str]:
        return [f"{self.out}/{folder}/d{dim}/{a}.parquet" for a in self.block["algorithms"]]

    def runs(self, wildcards: Wildcards) -> list[str]:
        return self._per_run("runs", wildcards.dim)

    def histories(self, wildcards: Wildcards) -> list[str]:
        return self._per_run("histories", wildcards.dim)

    def all_runs(self) -> list[str]:
        return [p for dim in self.block["dims"] for p in self._per_run("runs", dim)]

    def tables(self, name: str) -> list[str]:
        """``tables/<name>_d<dim>.csv`` (``tables/d<dim>.csv`` for the main table) per dim."""
        prefix = f"{name}_" if name else ""
        return [f"{self.out}/tables/{prefix}d{dim}.csv" for dim in self.block["dims"]]

    def targets(self) -> list[str]:
        tables = ("friedman", "wilcoxon", "runs_tests")
        return [
            *self.tables(""),
            *self.tables("ranks"),
            *(f"{self.out}/tables/{t}.csv" for t in tables),
            f"{self.out}/audit.csv",
            f"{self.out}/audit.md",
            *(
                f"{self.out}/figures/{name}_d{dim}.{ext}"
                for name in FIGURES
                for dim in self.block["dims"]
                for ext in ("png", "pdf")
            ),
        ]
