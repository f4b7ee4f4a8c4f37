# Excitation design for a robot study (issue #17; excitation paper Eq 7-10 under the URDF's
# limits; paramid.robot.excitation). A study's `excitation:` block -> robot_excitation_design
# (design.json, trajectory.parquet/.csv at the controller rate) -> robot_excitation_compare
# (designed vs a random feasible trajectory vs the configured coefficient files on the twin,
# comparison.csv, per_seed.parquet) and robot_excitation_figure (the design against its limits;
# the comparison's errors per seed). Needs no records.


rule robot_excitation_design:
    output:
        design="results/{study}/excitation/design.json",
        coefficients="results/{study}/excitation/coefficients.csv",
        parquet="results/{study}/excitation/trajectory.parquet",
        csv=report(
            "results/{study}/excitation/trajectory.csv",
            caption="../report/robot_excitation_trajectory.rst",
            category="{study}",
            subcategory="Excitation",
        ),
    log:
        "logs/{study}/robot_excitation_design.log",
    wildcard_constraints:
        study=one_of(ROBOTS.excitation),
    params:
        cfg=ROBOTS.excitation_design_params,
    script:
        "../../scripts/robot_excitation_design.py"


rule robot_excitation_compare:
    input:
        design="results/{study}/excitation/design.json",
        coefficients=ROBOTS.excitation_coefficients,
    output:
        comparison=report(
            "results/{study}/excitation/comparison.csv",
            caption="../report/robot_excitation_comparison.rst",
            category="{study}",
            subcategory="Excitation",
        ),
        per_seed="results/{study}/excitation/per_seed.parquet",
    log:
        "logs/{study}/robot_excitation_compare.log",
    wildcard_constraints:
        study=one_of(ROBOTS.excitation),
    params:
        cfg=ROBOTS.excitation_params,
    script:
        "../../scripts/robot_excitation_compare.py"


rule robot_excitation_figure:
    input:
        design="results/{study}/excitation/design.json",
        trajectory="results/{study}/excitation/trajectory.parquet",
        comparison="results/{study}/excitation/comparison.csv",
        per_seed="results/{study}/excitation/per_seed.parquet",
    output:
        png=report(
            "results/{study}/excitation/trajectories.png",
            caption="../report/robot_excitation_figure.rst",
            category="{study}",
            subcategory="Excitation",
        ),
        pdf="results/{study}/excitation/trajectories.pdf",
        comparison_png=report(
            "results/{study}/excitation/comparison.png",
            caption="../report/robot_excitation_comparison_figure.rst",
            category="{study}",
            subcategory="Excitation",
        ),
        comparison_pdf="results/{study}/excitation/comparison.pdf",
    log:
        "logs/{study}/robot_excitation_figure.log",
    wildcard_constraints:
        study=one_of(ROBOTS.excitation),
    params:
        cfg=ROBOTS.excitation_figure_params,
    script:
        "../../scripts/robot_excitation_figure.py"
