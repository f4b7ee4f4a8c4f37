"""The calibration paper's printed numbers (Tables 6-9 and §3.2.2 text), for side-by-side tables.

Source: "High-Precision and Efficient Calibration of Robot Polishing Systems Using an Adaptive
Residual EKF Optimized by MIPO" (shared/papers/mipo-arkekf-robot-calibration.txt).  Values are
mean and SD over 10 repeats in mm; ``None`` where the paper prints nothing.
"""

from __future__ import annotations

#: Table 6 (ablation) and Table 7 (all models): (mean, sd) per metric; hybrids from §3.2.2.
ACCURACY: dict[str, dict[str, tuple[float | None, float | None]]] = {
    "BC": {"mean": (0.7923, 0.0317), "rmse": (0.8927, 0.0357), "max": (2.3152, 0.0926)},
    "EKF": {"mean": (0.5514, 0.0165), "rmse": (0.6194, 0.0186), "max": (1.4521, 0.0436)},
    "EKF+GSBISE": {"mean": (0.5126, 0.0125), "rmse": (0.5687, 0.0137), "max": (1.3685, 0.0313)},
    "EKF+MIPO": {"mean": (0.4689, 0.0146), "rmse": (0.5213, 0.0158), "max": (1.3246, 0.0335)},
    "MIPO-ARKEKF": {"mean": (0.4382, 0.0114), "rmse": (0.4858, 0.0126), "max": (1.2869, 0.0283)},
    "IPSO": {"mean": (0.5760, 0.0202), "rmse": (0.6423, 0.0225), "max": (1.5327, 0.0536)},
    "LASSO": {"mean": (0.5673, 0.0221), "rmse": (0.6582, 0.0257), "max": (1.3643, 0.0409)},
    "UKF": {"mean": (0.4836, 0.0135), "rmse": (0.5518, 0.0155), "max": (1.2985, 0.0389)},
    # §3.2.2 (3): RMSE only, printed in the text (Figure 12a)
    "LM+GA": {"mean": (None, None), "rmse": (0.4627, None), "max": (None, None)},
    "EKF+DQPSO": {"mean": (None, None), "rmse": (0.4538, None), "max": (None, None)},
}

#: §3.2.2 (3), Figure 12b: total computation time per run [s] (MATLAB, the authors' PC).
TIME_S: dict[str, float] = {"MIPO-ARKEKF": 121.47, "LM+GA": 186.53, "EKF+DQPSO": 347.81}
#: §3.2.2 (3), Abstract, §4: M5's time saving against each hybrid [%], as printed (34.88 and
#: 65.08; :data:`TIME_S` gives 34.879 and 65.076, which round to them).
TIME_SAVING_PCT: dict[str, float] = {"LM+GA": 34.88, "EKF+DQPSO": 65.08}

#: Table 8: mean RMSE difference (other - M5) [mm] and p-value text of the independent t-test.
TABLE8: dict[str, tuple[float, str]] = {
    "BC": (0.4069, "<0.001"),
    "M1": (0.1336, "<0.001"),
    "M2": (0.1565, "<0.001"),
    "M3": (0.1724, "<0.001"),
    "M4": (0.0660, "0.003"),
    "LM+GA": (0.0231, "0.038"),
    "EKF+DQPSO": (0.0320, "0.032"),
}

#: Table 9: polishing-path tracking, per method: mean, rmse, max [mm], % within 0.5 / 1.0 mm.
TABLE9: dict[str, dict[str, float]] = {
    "BC": {
        "mean_mm": 0.847,
        "rmse_mm": 0.963,
        "max_mm": 2.184,
        "within_0p5_pct": 12.5,
        "within_1p0_pct": 45.3,
    },
    "M1": {
        "mean_mm": 0.623,
        "rmse_mm": 0.708,
        "max_mm": 1.401,
        "within_0p5_pct": 34.8,
        "within_1p0_pct": 78.6,
    },
    "M2": {
        "mean_mm": 0.598,
        "rmse_mm": 0.731,
        "max_mm": 1.486,
        "within_0p5_pct": 38.2,
        "within_1p0_pct": 81.4,
    },
    "M3": {
        "mean_mm": 0.612,
        "rmse_mm": 0.746,
        "max_mm": 1.337,
        "within_0p5_pct": 36.5,
        "within_1p0_pct": 79.8,
    },
    "M4": {
        "mean_mm": 0.512,
        "rmse_mm": 0.586,
        "max_mm": 1.274,
        "within_0p5_pct": 52.3,
        "within_1p0_pct": 91.7,
    },
    "M5": {
        "mean_mm": 0.438,
        "rmse_mm": 0.498,
        "max_mm": 1.241,
        "within_0p5_pct": 68.5,
        "within_1p0_pct": 96.2,
    },
}


# -- the rows of the paper's tables: which identifiers each table and claim reads --------

#: Table 7 names (M1-M5) of the single identification methods, in Table 7's row order.
TABLE7_NAMES: dict[str, str] = {
    "bc": "BC",
    "ekf": "M1",
    "ipso": "M2",
    "lasso": "M3",
    "ukf": "M4",
    "mipo_arkekf": "M5",
    "lm_ga": "LM+GA",
    "ekf_dqpso": "EKF+DQPSO",
}
#: Rows of Table 6 (the paper's ablation, batch reading of Algorithm 2), the rows of the
#: literal per-point reading that Table 6 adds after them, and Table 7 (all models).
TABLE6: list[str] = ["ekf", "ekf_gsbise", "ekf_mipo", "mipo_arkekf"]
TABLE6_SEQUENTIAL: list[str] = ["ekf_sequential", "mipo_arkekf_sequential"]
TABLE7: list[str] = list(TABLE7_NAMES)
HYBRIDS: list[str] = ["mipo_arkekf", "lm_ga", "ekf_dqpso"]
#: Identifiers the paper model's tables and figures read (the sequential rows are optional).
PAPER_IDENTIFIERS: list[str] = list(dict.fromkeys([*TABLE7, *TABLE6, *HYBRIDS]))

M5 = "mipo_arkekf"
#: The hybrids of §3.2.2 (3), whose mean RMSE (no SD) the paper prints in the text.
PRINTED_HYBRIDS: list[str] = [h for h in HYBRIDS if h != M5]
#: Table 7's printed columns (BC, M1-M5).
TABLE7_PRINTED: list[str] = [i for i in TABLE7 if i not in PRINTED_HYBRIDS]
#: M1-M4, the single methods M5 is claimed to beat (§3.2.2 (2)).
SINGLE: list[str] = [i for i in TABLE7_PRINTED if i not in ("bc", M5)]
#: Fit frames the ordering claims read (Table 6's ablation and M1-M5).
FIT_IDENTIFIERS: list[str] = list(dict.fromkeys([*TABLE6, *SINGLE, M5]))
