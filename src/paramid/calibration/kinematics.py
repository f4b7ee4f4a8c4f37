"""Forward kinematics, parameter Jacobians and inverse kinematics of a 6R arm from a DH table.

Conventions
    Parameters are the 24-vector of the paper's Eq 6, grouped by kind and then by joint:
    ``[alpha_1..6, a_1..6, d_1..6, theta_1..6]`` with angles in rad and lengths in mm.
    ``theta`` is the joint offset; the joint variable q_i is added to it.

    ``"standard"`` DH (Denavit-Hartenberg 1955, the textbook "distal" form):
    ``A_i = Rz(theta_i + q_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``.

    ``"modified"`` DH (Craig 1986, the paper's Eq 3): row i of the table holds
    ``(alpha_{i-1}, a_{i-1}, d_i, theta_i)`` and
    ``A_i = Tx(a_{i-1}) Rx(alpha_{i-1}) Tz(d_i) Rz(theta_i + q_i)``.

    The end point is the tool point ``p = o_6 + R_6 t`` (``t`` in the flange frame {6}, e.g. the
    laser tracker's SMR), all in the robot base frame {B} (paper Eq 2, 4-5).

KUKA KR 210 R2700 (paper Table 1)
    The paper says the table is MD-H (§2.1.2, Eq 3) but it is a *standard* DH table: read as
    standard DH, q = 0 gives the KUKA home pose (A2 = -90 deg, A3 = +90 deg: upper arm
    vertical, forearm horizontal) with the flange at (1765, 0, 1784) mm = (350 + 1200 + 215,
    0, 675 + 1150 - 41) and its axis along +x; row 1 (alpha = -90, a = 350, d = 675) puts the
    A2 axis 350 mm ahead of and 675 mm above the base, as in KUKA's data sheet.  Read as MD-H,
    row 1 would tilt the A1 axis horizontal and move it 350 mm off the base origin, and q = 0
    gives (1285, -525, 41) mm, no pose of this robot.  See docs/kr210.md.

Everything is vectorised: ``params`` (..., 24) and ``q`` (..., 6) broadcast against each
other, so one call evaluates many configurations for one parameter vector, one
configuration for many parameter vectors (sigma points, a population), or both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
Convention = Literal["standard", "modified"]

N_JOINTS = 6
N_PARAMS = 4 * N_JOINTS
#: Order of the parameter kinds in the 24-vector (paper Eq 6).
KINDS: tuple[str, ...] = ("alpha", "a", "d", "theta")
KIND_UNITS = {"alpha": "rad", "a": "mm", "d": "mm", "theta": "rad"}

__all__ = [
    "KINDS",
    "Chain",
    "chain",
    "cross",
    "last",
    "tool_point",
    "N_PARAMS",
    "DHTable",
    "Convention",
    "forward",
    "geometric_jacobian",
    "inverse_kinematics",
    "parameter_names",
    "parameter_units",
    "positions",
    "rotation_error",
]


def parameter_names() -> list[str]:
    """``alpha1..alpha6, a1..a6, d1..d6, theta1..theta6`` in the order of Eq 6."""
    return [f"{kind}{j}" for kind in KINDS for j in range(1, N_JOINTS + 1)]


def parameter_units() -> dict[str, str]:
    """Unit of each parameter: rad for alpha and theta, mm for a and d."""
    return {f"{kind}{j}": KIND_UNITS[kind] for kind in KINDS for j in range(1, N_JOINTS + 1)}


@dataclass(frozen=True)
class DHTable:
    """A 6R DH table: ``alpha``, ``theta`` in rad, ``a``, ``d`` in mm, one entry per joint."""

    alpha: tuple[float, ...]
    a: tuple[float, ...]
    d: tuple[float, ...]
    theta: tuple[float, ...]
    convention: Convention = "standard"

    @classmethod
    def from_degrees(
        cls,
        alpha_deg: ArrayLike,
        a_mm: ArrayLike,
        d_mm: ArrayLike,
        theta_deg: ArrayLike,
        convention: Convention = "standard",
    ) -> DHTable:
        """Build a table from angles in degrees (as printed in Table 1) and lengths in mm."""
        values = [np.asarray(v, dtype=np.float64).reshape(-1) for v in (alpha_deg, a_mm, d_mm)]
        theta = np.asarray(theta_deg, dtype=np.float64).reshape(-1)
        for v in (*values, theta):
            if v.shape != (N_JOINTS,):
                raise ValueError(f"each DH column needs {N_JOINTS} entries, got {v.shape}")
        if convention not in ("standard", "modified"):
            raise ValueError(f"convention must be 'standard' or 'modified', got {convention!r}")
        return cls(
            alpha=tuple(np.deg2rad(values[0]).tolist()),
            a=tuple(values[1].tolist()),
            d=tuple(values[2].tolist()),
            theta=tuple(np.deg2rad(theta).tolist()),
            convention=convention,
        )

    def vector(self) -> FloatArray:
        """The 24-vector ``[alpha, a, d, theta]`` of Eq 6."""
        return np.concatenate([self.alpha, self.a, self.d, self.theta]).astype(np.float64)


def _split(params: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    if params.shape[-1] != N_PARAMS:
        raise ValueError(f"params must end in {N_PARAMS}, got {params.shape}")
    p = params.reshape(*params.shape[:-1], 4, N_JOINTS)
    return p[..., 0, :], p[..., 1, :], p[..., 2, :], p[..., 3, :]


@dataclass(frozen=True)
class Chain:
    """Frames {k}, k = 0..6 (0 = base), component-major for speed: ``x[k]``, ``y[k]``,
    ``z[k]`` are the axes and ``o[k]`` the origin of frame {k}, each (3, *batch).
    ``xa[k]`` is the axis of the twist alpha_k and the offset a_k (standard DH): ``x[k]``
    before a Hayati rotation beta_k (equal to ``x[k]`` where beta_k = 0)."""

    x: list[FloatArray]
    y: list[FloatArray]
    z: list[FloatArray]
    o: list[FloatArray]
    xa: list[FloatArray]


def _turn(
    u: FloatArray, v: FloatArray, c: FloatArray, s: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Axes (u, v) turned by the angle with cosine c and sine s about their normal."""
    return u * c + v * s, v * c - u * s


def chain(
    params: FloatArray,
    q: FloatArray,
    convention: Convention,
    *,
    base: tuple[FloatArray, FloatArray] | None = None,
    beta: FloatArray | None = None,
) -> Chain:
    """Frames along the chain; every array op runs over the whole batch per component.

    ``base`` = (R (..., 3, 3), t (..., 3)) places frame {0} in the world (default: identity);
    ``beta`` (..., 6) adds Hayati's rotation Ry(beta_i) after Rx(alpha_i) (standard DH only;
    Hayati & Mirmirani 1985, for nearly parallel axes).
    """
    if convention not in ("standard", "modified"):
        raise ValueError(f"convention must be 'standard' or 'modified', got {convention!r}")
    alpha, a, d, theta = _split(params)
    batch = [params.shape[:-1], q.shape[:-1]]
    if base is not None:
        batch += [base[0].shape[:-2], base[1].shape[:-1]]
    if beta is not None:
        if convention != "standard":
            raise ValueError("Hayati beta is implemented for the standard DH convention only")
        batch.append(beta.shape[:-1])
    shape = np.broadcast_shapes(*batch)
    if base is None:
        eye = np.eye(3).reshape(3, 3, *([1] * len(shape)))
        x = np.broadcast_to(eye[0], (3, *shape))
        y = np.broadcast_to(eye[1], (3, *shape))
        z = np.broadcast_to(eye[2], (3, *shape))
        o = np.zeros((3, *shape))
    else:
        R = np.moveaxis(np.broadcast_to(base[0], (*shape, 3, 3)), (-2, -1), (0, 1))
        x, y, z = R[:, 0], R[:, 1], R[:, 2]
        o = np.moveaxis(np.broadcast_to(base[1], (*shape, 3)), -1, 0)
    xs, ys, zs, os_, xas = [x], [y], [z], [o], [x]
    angle = theta + q  # joint variables (..., 6) broadcast against the frames (3, *shape)
    ct, st = np.cos(angle), np.sin(angle)
    ca, sa = np.cos(alpha), np.sin(alpha)
    if beta is not None:
        cb, sb = np.cos(beta), np.sin(beta)
    for i in range(N_JOINTS):
        if convention == "standard":  # Rz(theta) Tz(d) Tx(a) Rx(alpha) [Ry(beta)]
            x, y = _turn(x, y, ct[..., i], st[..., i])
            o = o + z * d[..., i] + x * a[..., i]
            y, z = _turn(y, z, ca[..., i], sa[..., i])
            xas.append(x)
            if beta is not None:
                z, x = _turn(z, x, cb[..., i], sb[..., i])
        else:  # Tx(a) Rx(alpha) Tz(d) Rz(theta)
            o = o + x * a[..., i]
            y, z = _turn(y, z, ca[..., i], sa[..., i])
            o = o + z * d[..., i]
            x, y = _turn(x, y, ct[..., i], st[..., i])
            xas.append(x)
        xs.append(x)
        ys.append(y)
        zs.append(z)
        os_.append(o)
    return Chain(x=xs, y=ys, z=zs, o=os_, xa=xas)


def tool_point(frames: Chain, t: FloatArray) -> FloatArray:
    """p = o_6 + R_6 t, (3, *batch); ``t`` (..., 3) broadcasts against the batch."""
    tc = np.moveaxis(t, -1, 0)
    return frames.o[-1] + frames.x[-1] * tc[0] + frames.y[-1] * tc[1] + frames.z[-1] * tc[2]


def cross(u: FloatArray, v: FloatArray) -> FloatArray:
    """u x v of component-major vectors (3, *batch): np.cross(u, v, axis=0) without the axis
    moves that dominate its cost on small batches."""
    return np.stack(
        (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    )


def last(v: FloatArray) -> FloatArray:
    """(3, *batch) -> (*batch, 3)."""
    return np.moveaxis(v, 0, -1)


def _beta(beta: ArrayLike | None) -> FloatArray | None:
    return None if beta is None else np.asarray(beta, dtype=np.float64)


def _inputs(
    params: ArrayLike, q: ArrayLike, tool: ArrayLike | None
) -> tuple[FloatArray, FloatArray, FloatArray]:
    P = np.asarray(params, dtype=np.float64)
    Q = np.asarray(q, dtype=np.float64)
    if Q.shape[-1] != N_JOINTS:
        raise ValueError(f"q must end in {N_JOINTS}, got {Q.shape}")
    t = np.zeros(3) if tool is None else np.asarray(tool, dtype=np.float64)
    if t.shape[-1] != 3:
        raise ValueError(f"tool must end in 3, got {t.shape}")
    return P, Q, t


def forward(
    params: ArrayLike,
    q: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
    beta: ArrayLike | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Flange rotation R_6 (..., 3, 3) and tool-point position p (..., 3) in the base frame.

    Eq 4-5: ``0T6 = prod_i A_i`` and ``p = o_6 + R_6 t`` with ``t`` the tool point in {6};
    ``beta`` (6,) optional Hayati rotations (see :func:`chain`).
    """
    P, Q, t = _inputs(params, q, tool)
    frames = chain(P, Q, convention, beta=_beta(beta))
    R6 = np.stack([last(frames.x[-1]), last(frames.y[-1]), last(frames.z[-1])], axis=-1)
    return R6, last(tool_point(frames, t))


def positions(
    params: ArrayLike,
    q: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
) -> FloatArray:
    """Tool-point positions P_r(e, Q) (..., 3) in mm (Eq 5), vectorised over both arguments."""
    P, Q, t = _inputs(params, q, tool)
    return last(tool_point(chain(P, Q, convention), t))


def geometric_jacobian(
    params: ArrayLike,
    q: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
    beta: ArrayLike | None = None,
) -> FloatArray:
    """6 x 6 Jacobian of the tool point's [linear (mm/rad); angular (1)] velocity w.r.t. q."""
    P, Q, t = _inputs(params, q, tool)
    frames = chain(P, Q, convention, beta=_beta(beta))
    p = tool_point(frames, t)
    J = np.empty((6, N_JOINTS, *p.shape[1:]))
    for i in range(N_JOINTS):
        k = i if convention == "standard" else i + 1
        J[:3, i] = cross(frames.z[k], p - frames.o[k])
        J[3:, i] = frames.z[k]
    return np.moveaxis(J, (0, 1), (-2, -1))


def rotation_error(R_target: FloatArray, R: FloatArray) -> FloatArray:
    """Rotation vector (..., 3) of ``R_target R^T`` (the rotation still to apply, in rad)."""
    E = np.einsum("...ij,...kj->...ik", R_target, R)
    v = 0.5 * np.stack(
        [E[..., 2, 1] - E[..., 1, 2], E[..., 0, 2] - E[..., 2, 0], E[..., 1, 0] - E[..., 0, 1]],
        axis=-1,
    )
    s = np.linalg.norm(v, axis=-1)
    c = 0.5 * (np.trace(E, axis1=-2, axis2=-1) - 1.0)
    angle = np.arctan2(s, c)
    scale = np.where(s > 1e-12, angle / np.where(s > 1e-12, s, 1.0), 1.0)
    return v * scale[..., None]


def inverse_kinematics(
    params: ArrayLike,
    target: ArrayLike,
    q0: ArrayLike,
    *,
    convention: Convention = "standard",
    tool: ArrayLike | None = None,
    tol_mm: float = 1e-9,
    tol_rad: float = 1e-12,
    max_iter: int = 50,
    beta: ArrayLike | None = None,
) -> FloatArray:
    """Joint angles (..., 6) that put the tool frame at ``target`` (..., 4, 4), by Newton.

    Newton-Raphson on the 6-vector [position error (mm); rotation vector (rad)] with the
    geometric Jacobian, from ``q0`` (a nearby solution selects the branch).  Used with the
    nominal parameters (uncompensated path) and with identified parameters (compensated
    path, paper §3.2.3).  Raises if any pose has not converged after ``max_iter`` steps.
    """
    P = np.asarray(params, dtype=np.float64)
    T = np.asarray(target, dtype=np.float64)
    q = np.array(np.broadcast_to(q0, (*T.shape[:-2], N_JOINTS)), dtype=np.float64)
    for _ in range(max_iter):
        R, p = forward(P, q, convention=convention, tool=tool, beta=beta)
        err = np.concatenate([T[..., :3, 3] - p, rotation_error(T[..., :3, :3], R)], axis=-1)
        done = (np.abs(err[..., :3]).max(axis=-1) < tol_mm) & (
            np.abs(err[..., 3:]).max(axis=-1) < tol_rad
        )
        if np.all(done):
            return q
        J = geometric_jacobian(P, q, convention=convention, tool=tool, beta=beta)
        try:
            step = np.linalg.solve(J, err[..., None])[..., 0]
        except np.linalg.LinAlgError:  # a singular pose (e.g. stretched out): least squares
            step = (np.linalg.pinv(J) @ err[..., None])[..., 0]
        q = q + step
    raise RuntimeError(f"inverse kinematics did not converge in {max_iter} iterations")
