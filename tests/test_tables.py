"""Tables 3 and 4: paper_* columns only for a study with the paper's printed values (#19)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from paramid.hip import tables


def _fits() -> dict[str, pd.DataFrame]:
    one = {"Mxt": [1.5], "train_rmse": [0.14], "val_rmse": [0.12], "time_ms": [0.1]}
    runs = {
        "Mxt": [1.4, 1.5, 1.6],
        "train_rmse": [0.15, 0.14, 0.16],
        "val_rmse": [0.13, 0.12, 0.14],
        "time_ms": [5.0, 5.0, 5.0],
    }
    return {"bcls": pd.DataFrame(one), "rls_agwo": pd.DataFrame(runs)}


def test_a_study_without_printed_values_has_no_paper_columns():
    t3 = tables.table3(_fits())
    t4 = tables.table4(_fits(), ["Mxt"], reference={"Mxt": 1.5})
    assert not [c for c in (*t3.columns, *t4.columns) if c.startswith("paper_")]
    assert t3.set_index("method").loc["RLS-AGWO", "val_median"] == 0.13
    assert t4.set_index("method").loc["RLS-AGWO", "Mxt"] == 1.4  # run 0: median val RMSE 0.13


def test_table4_of_an_even_count_gives_both_middle_runs():
    """Four runs: val RMSE 0.13, 0.12, 0.14, 0.11 -> the lower middle run is run 1 (0.12), the
    upper one run 0 (0.13); an odd count or one deterministic run gives the same run twice."""
    fits = _fits()
    fits["rls_agwo"] = pd.DataFrame(
        {"Mxt": [1.4, 1.5, 1.6, 1.7], "val_rmse": [0.13, 0.12, 0.14, 0.11]}
    )
    t4 = tables.table4(fits, ["Mxt"]).set_index("method")
    assert t4.loc["RLS-AGWO", ["Mxt", "upper_Mxt"]].tolist() == [1.5, 1.4]
    assert t4.loc["BCLS", ["Mxt", "upper_Mxt"]].tolist() == [1.5, 1.5]
    three = tables.table4(_fits(), ["Mxt"]).set_index("method")
    assert three.loc["RLS-AGWO", "Mxt"] == three.loc["RLS-AGWO", "upper_Mxt"] == 1.4


def test_printed_values_stand_beside_ours():
    paper3 = {"BCLS": {"val_mean": 0.1152}}
    t3 = tables.table3(_fits(), paper3).set_index("method")
    assert t3.loc["BCLS", "paper_val_mean"] == 0.1152
    assert np.isnan(t3.loc["RLS-AGWO", "paper_val_mean"])
    t4 = tables.table4(_fits(), ["Mxt"], None, {"BCLS": {"Mxt": 1.4994}}).set_index("method")
    assert t4.loc["BCLS", "paper_Mxt"] == 1.4994


def test_batched_timing_takes_the_repeats_of_the_methods_that_have_them():
    """A population method's metadata holds its per-run times from repeats of its batched call;
    a deterministic fit's has none and is left to its rows."""
    metas = {
        "rls_agwo": {"time_ms_per_run_repeats": [1.5, 2.5], "study": "hip"},
        "ls": {"study": "hip"},
        "pso": {"time_ms_per_run_repeats": [3.0]},
    }
    assert tables.batched_timing(metas) == {"rls_agwo": [1.5, 2.5], "pso": [3.0]}
    assert tables.batched_timing({}) == {}
