"""The KR210's kinematics as the tests check them: the paper's Table 1 (from config.yaml), the
tool pose as a 4 x 4 transform, and the analytic 3 x 24 DH parameter Jacobian (Eq 8-10) of
either convention, all joints at once: the peer the calibration model's own Jacobian
(``paramid.calibration.model.jacobian``, which adds the base, Hayati and tool columns) must
equal on its DH columns, bit for bit, and that finite differences check."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import yaml
from numpy.typing import ArrayLike

from paramid.calibration import kinematics as kin
from paramid.calibration.kinematics import Convention, FloatArray

_CONFIG = yaml.safe_load((Path(__file__).resolve().parents[1] / "config.yaml").read_text())
#: KUKA KR 210 R2700, paper Table 1, read as standard DH (see paramid.calibration.kinematics).
KR210_TABLE1 = kin.DHTable.from_degrees(**_CONFIG["calibration"]["kr210"]["robot"]["dh"])


def transform(
    params: ArrayLike,
    q: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
) -> FloatArray:
    """Homogeneous pose (..., 4, 4) of the tool frame (flange axes, origin at the tool point)."""
    R, p = kin.forward(params, q, convention=convention, tool=tool)
    T = np.zeros((*R.shape[:-2], 4, 4))
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    T[..., 3, 3] = 1.0
    return T


def position_jacobian(
    params: ArrayLike,
    q: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
    with_positions: bool = False,
) -> FloatArray | tuple[FloatArray, FloatArray]:
    """Analytic 3 x 24 Jacobian dP_r/de (Eq 8-10) in the column order of Eq 6 (..., 3, 24).

    Standard DH, with frame {i-1} before joint i and frame {i} after it:
    ``dp/dtheta_i = z_{i-1} x (p - o_{i-1})``, ``dp/dd_i = z_{i-1}``, ``dp/da_i = x_i``,
    ``dp/dalpha_i = x_i x (p - o_i)``.
    Modified DH (row i holds alpha_{i-1}, a_{i-1}): ``dp/dalpha = x_{i-1} x (p - o_{i-1})``,
    ``dp/da = x_{i-1}``, ``dp/dtheta_i = z_i x (p - o_i)``, ``dp/dd_i = z_i``.
    Columns for alpha and theta are per rad, those for a and d per mm (dimensionless).
    With ``with_positions`` the tool-point positions (..., 3) are returned too.
    """
    P, Q, t = kin._inputs(params, q, tool)
    frames = kin.chain(P, Q, convention)
    p = kin.tool_point(frames, t)
    # all joints at once: frames stacked on axis 1, (3, 7, *batch); {i-1} = [:-1], {i} = [1:]
    x, z = np.stack(frames.x, axis=1), np.stack(frames.z, axis=1)
    r = p[:, None] - np.stack(frames.o, axis=1)
    if convention == "standard":
        cols = (kin.cross(x[:, 1:], r[:, 1:]), x[:, 1:], z[:, :-1], kin.cross(z[:, :-1], r[:, :-1]))
    else:
        cols = (kin.cross(x[:, :-1], r[:, :-1]), x[:, :-1], z[:, 1:], kin.cross(z[:, 1:], r[:, 1:]))
    J = np.moveaxis(np.concatenate(cols, axis=1), (0, 1), (-2, -1))  # alpha, a, d, theta
    p = kin.last(p)
    return (J, p) if with_positions else J
