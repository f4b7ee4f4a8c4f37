"""config.yaml against its schema: the shipped config is valid, bad values name their field."""

from __future__ import annotations

import copy

import pytest
from snakemake.exceptions import WorkflowError
from snakemake.utils import validate

from paramid.hip import model


def _validate(config, repo_root):
    validate(config, str(repo_root / "workflow/schemas/config.schema.yaml"))


def test_shipped_config_mirrors_table2(hip):
    assert hip["twin"]["sample_rate_hz"] == 100.0
    table2 = {k: hip["signals"][k] for k in ("filter_order", "cutoff_hz", "trim_s")}
    assert table2 == {"filter_order": 4, "cutoff_hz": 15.0, "trim_s": 0.2}
    assert hip["rls"]["forgetting"] == 0.98 and hip["rls"]["p0"] == 1e4
    assert hip["rls"]["burn_in_s"] == 1.0 and hip["rls"]["margin"] == 0.10
    assert hip["agwo"] == {"mu_base": 0.45, "kappa": 0.25}
    assert model.parameter_names(hip["regressor"]) == ["Mxt", "Myt", "Jt", "fc", "fv"]


@pytest.mark.parametrize(
    ("path", "value", "field"),
    [
        (("signals", "cutoff_hz"), -1.0, "cutoff_hz"),
        (("rls", "forgetting"), 1.5, "forgetting"),
        (("regressor",), ["g_sin_q", "tan_q"], "regressor"),
        (("twin", "x_true", "Jt"), -1.0, "Jt"),
        (("records", "calibration", "duration_s"), "five", "duration_s"),
    ],
)
def test_invalid_values_name_their_field(config, repo_root, path, value, field):
    bad = copy.deepcopy(config)
    node = bad["studies"]["hip"]
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    with pytest.raises(WorkflowError, match=field):
        _validate(bad, repo_root)


def test_twin_study_without_twin_block_is_rejected(config, repo_root):
    del config["studies"]["hip"]["twin"]
    with pytest.raises(WorkflowError, match="twin"):
        _validate(config, repo_root)
