"""Rule robot_export's step: a consistent fit's model as a URDF
(:func:`paramid.robot.urdf.export_urdf`) and the table of what the data determine
(:func:`paramid.robot.urdf.determinacy_table`); apart from :mod:`paramid.robot.urdf`, which
edits URDF text and does not read fits."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from paramid.base_parameters import BaseParameters
from paramid.robot import study
from paramid.robot.model import Robot, held_offsets, joint_kinds, urdf_parameters
from paramid.robot.urdf import determinacy, determinacy_notes, determinacy_table, export_urdf


@dataclass(frozen=True)
class ExportedModel:
    """An identified model as rule robot_export writes it: the URDF's text and every standard
    parameter's exported value, URDF value and determinacy (:func:`determinacy_table`)."""

    urdf: str
    determinacy: pd.DataFrame


def export_model(
    cfg: Mapping[str, Any],
    choice: Mapping[str, Any],
    robot: Robot,
    base: BaseParameters,
    source: str,
    fit: pd.DataFrame,
    fit_meta: Mapping[str, Any],
    signals_meta: Sequence[Mapping[str, Any]],
    mesh_prefix: str = "",
) -> ExportedModel:
    """A consistent fit's standard parameters (the fit frame ``fit``, its metadata
    ``fit_meta``) written into the study's URDF text ``source`` (:func:`export_urdf`):
    friction, armature and offsets per joint, per body what the data determine
    (:func:`determinacy` of ``base``, the offsets the fit holds at 0 held) and the provenance
    header (:func:`paramid.robot.study.export_header`, with the distinct low-pass cutoffs of
    the calibration signals' metadata ``signals_meta``); ``mesh_prefix`` leads the mesh paths
    from the exported file's folder to the source's."""
    if list(base.standard_names) != robot.standard_names:
        raise ValueError("base.json's standard parameters are not the model's: rerun robot_model")
    _, theta = study.fit_vectors(fit)
    if theta is None:
        raise ValueError(f"{cfg['method']} gives no standard parameters to export")
    held = held_offsets(robot)
    d = determinacy(base, held)
    notes = determinacy_notes(robot, d, cfg["lmi"].get("free_links") or ())
    prismatic = "prismatic" in joint_kinds(robot)
    armature = study.urdf_armature(robot, theta)
    cutoffs = sorted({float(meta["cutoff_hz"]) for meta in signals_meta})
    text = export_urdf(
        source,
        robot,
        theta,
        study.urdf_friction(robot, theta),
        study.export_header(cfg, choice, fit_meta, prismatic, armature, cutoffs),
        armature,
        study.urdf_offsets(robot, theta),
        notes,
        dict(zip(robot.standard_names, d, strict=True)),
        mesh_prefix=mesh_prefix,
    )
    table = determinacy_table(robot, theta, urdf_parameters(robot), d, held)
    return ExportedModel(text, table)
