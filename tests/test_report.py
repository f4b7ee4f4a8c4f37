"""`snakemake --report` covers every study: each table (csv) and figure (png) among the final
targets of rule `all` is a report() output with a caption that renders, in the category of its
study (the folder results/<study>/). Parses the workflow with Snakemake's API in a temporary
copy (no job runs), in a few seconds."""

from __future__ import annotations

import shutil
from pathlib import Path
from types import SimpleNamespace

import jinja2
import pytest
from docutils.core import publish_parts
from snakemake.api import SnakemakeApi
from snakemake.io import get_flag_value, is_flagged
from snakemake.settings.types import OutputSettings, ResourceSettings

WORKFLOW_FILES = ["Snakefile", "config.yaml", "workflow", "scripts", "data", "envs"]
REPORTED = (".csv", ".png")


@pytest.fixture(scope="module")
def parsed(tmp_path_factory, repo_root) -> SimpleNamespace:
    """The default target, and every csv/png target of rule all -> (producing rule, its output
    item, wildcards)."""
    dest = tmp_path_factory.mktemp("report") / "wf"
    dest.mkdir()
    for name in WORKFLOW_FILES:
        src = repo_root / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, dest / name)
    found = {}
    with SnakemakeApi(OutputSettings()) as api:
        workflow = api.workflow(ResourceSettings(), snakefile=dest / "Snakefile", workdir=dest)
        wf = workflow._workflow  # the parsed workflow (the API's DAG-free entry point)
        rules = [r for r in wf.rules if r.name != "all"]
        for target in map(str, wf.get_rule("all").input):
            if not target.endswith(REPORTED):
                continue
            producers = [r for r in rules if r.is_producer(target)]
            assert len(producers) == 1, f"{target}: producers {[r.name for r in producers]}"
            rule = producers[0]
            item = next(f for f in rule.output if f.match(target))
            found[target] = (rule, item, rule.get_wildcards(target))
        return SimpleNamespace(outputs=found, default_target=wf.default_target)


@pytest.fixture(scope="module")
def report_outputs(parsed) -> dict[str, tuple]:
    return parsed.outputs


def test_plain_report_command_covers_rule_all(parsed):
    """`snakemake --report` builds the report of the default target: it must be `all`."""
    assert parsed.default_target == "all"


def test_every_study_has_reported_tables_and_figures(report_outputs, config):
    studies = {Path(t).parts[1] for t in report_outputs}
    expected = {
        *config["studies"],
        *config.get("nonlinear", {}),
        *config.get("excitation", {}),
        *config.get("calibration", {}),
        *config.get("robots", {}),
        Path(config["cec2022"].get("output", "results/cec2022")).name,
    }
    assert studies == expected
    # hip, pendulum, hip_nonlinear, hip_designed, chain4, kr210, cec2022, gen3_twin, kinova_gen3
    assert len(expected) == 9


def test_every_final_table_and_figure_is_a_report_output(report_outputs):
    missing = [t for t, (_, item, _) in report_outputs.items() if not is_flagged(item, "report")]
    assert not missing, f"final targets not marked report(): {missing}"


def test_report_outputs_are_grouped_by_study(report_outputs):
    for target, (_, item, wildcards) in report_outputs.items():
        marker = get_flag_value(item, "report")
        assert marker.category.format(**wildcards) == Path(target).parts[1], target
        assert marker.subcategory, target


def _params(rule, wildcards: SimpleNamespace) -> SimpleNamespace:
    """The rule's params for these wildcards (functions of the wildcards are called)."""
    values = {
        name: (value(wildcards) if callable(value) else value)
        for name, value in rule.params.items()
    }
    return SimpleNamespace(**values)


def test_every_caption_renders(report_outputs):
    """Each caption is a Jinja template over the job (wildcards, params) and valid RST."""
    env = jinja2.Environment(undefined=jinja2.StrictUndefined)
    for target, (rule, item, wildcards) in report_outputs.items():
        caption = get_flag_value(item, "report").caption
        assert caption is not None, f"{target} has no caption"
        template = Path(caption.get_path_or_uri(secret_free=True)).read_text()
        wc = SimpleNamespace(**wildcards)  # attribute access, as jobs see their wildcards
        snakemake = SimpleNamespace(wildcards=wc, params=_params(rule, wc))
        text = env.from_string(template).render(snakemake=snakemake)
        assert len(text.split()) >= 15, f"{target}: caption too short: {text!r}"
        html = publish_parts(
            text, writer="html", settings_overrides={"halt_level": 2, "report_level": 5}
        )["body"]
        assert html.strip(), target
