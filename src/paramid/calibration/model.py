"""The complete kinematic error model of the KR210 cell (issue #18), beside the paper's 24 DH.

Parameter vector (``N_EXTENDED`` = 38 entries, this order):

    ``alpha1..6, a1..6, d1..6, theta1..6``  the 24 DH parameters of Eq 6 (rad, mm)
    ``base_x, base_y`` [mm], ``base_rx, base_ry`` [rad]
        the robot base in the tracker-registered world frame: p = Rx(rx) Ry(ry) p_robot + t.
        The base's z offset and rotation about z are absorbed by d1 and theta1 (joint 1 is
        vertical), so only these four are parameters.
    ``beta2`` [rad]  Hayati's rotation Ry(beta) after Rx(alpha2) (Hayati & Mirmirani 1985):
        joint axes 2 and 3 are parallel, where DH cannot represent a small tilt between them.
    ``tool_x, tool_y, tool_z`` [mm]  the SMR (tool point) in the flange frame {6} (T_F^S of
        Eq 2), which the paper takes as known.
    ``c1..c6`` [rad/(kN m)]  joint compliances: joint i deflects by c_i M_i(q), M_i the
        gravity moment about its axis from a nominal mass model (:class:`MassModel`).

The identification models are subsets of these groups (:data:`GROUPS`): ``dh`` alone is the
paper's model; ``dh + base + beta2 + tool`` the complete geometric model (rank 27 with
position-only data: 4 R + 2 P + 3 per joint type count, Everett et al. 1987, less the 3 of
orientation); ``+ compliance`` adds the deflections.  Parameters outside the model stay at
their nominal values (base and beta 0, the configured tool, compliance 0).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from paramid.calibration import kinematics as kin

FloatArray = NDArray[np.float64]

__all__ = [
    "GROUPS",
    "N_EXTENDED",
    "MassModel",
    "PointJacobian",
    "gravity_moments",
    "group_indices",
    "inverse_kinematics",
    "jacobian",
    "kinds",
    "nominal_vector",
    "parameter_names",
    "parameter_units",
    "positions",
]

GRAVITY_M_S2 = 9.81
_BASE = ["base_x", "base_y", "base_rx", "base_ry"]
_TOOL = ["tool_x", "tool_y", "tool_z"]
_COMPLIANCE = [f"c{j}" for j in range(1, kin.N_JOINTS + 1)]

#: Parameter groups of the extended vector, in order, and their names.
GROUPS: dict[str, list[str]] = {
    "dh": kin.parameter_names(),
    "base": _BASE,
    "beta2": ["beta2"],
    "tool": _TOOL,
    "compliance": _COMPLIANCE,
}
_NAMES = [name for names in GROUPS.values() for name in names]
N_EXTENDED = len(_NAMES)
_INDEX = {name: i for i, name in enumerate(_NAMES)}
_SLICE: dict[str, Any] = {
    "base": slice(_INDEX["base_x"], _INDEX["base_ry"] + 1),
    "beta2": _INDEX["beta2"],
    "tool": slice(_INDEX["tool_x"], _INDEX["tool_z"] + 1),
    "compliance": slice(_INDEX["c1"], _INDEX["c6"] + 1),
}


def parameter_names() -> list[str]:
    """Names of the extended vector's entries, in order."""
    return list(_NAMES)


def parameter_units() -> dict[str, str]:
    """Unit of every extended parameter."""
    units = kin.parameter_units()
    units |= {"base_x": "mm", "base_y": "mm", "base_rx": "rad", "base_ry": "rad"}
    units |= {"beta2": "rad"} | {n: "mm" for n in _TOOL} | {n: "rad/(kN m)" for n in _COMPLIANCE}
    return units


def dh_rows(e: ArrayLike) -> dict[str, FloatArray]:
    """The DH part of an extended vector (38,) as a controller's table takes it, per joint
    1-6: ``alpha_deg``, ``a_mm``, ``d_mm``, ``theta_deg`` (Eq 6's standard DH); the base,
    Hayati's beta2, the tool and the compliances stay in ``e[24:]`` (:func:`parameter_units`)."""
    e = np.asarray(e, dtype=np.float64)
    if e.shape != (N_EXTENDED,):
        raise ValueError(f"an extended vector is ({N_EXTENDED},), got {e.shape}")
    alpha, a, d, theta = e[: kin.N_PARAMS].reshape(4, kin.N_JOINTS)
    return {"alpha_deg": np.rad2deg(alpha), "a_mm": a, "d_mm": d, "theta_deg": np.rad2deg(theta)}


def kinds() -> NDArray[np.str_]:
    """Kind of every extended parameter: ``angle``, ``length`` or ``compliance``."""
    unit = parameter_units()
    table = {"rad": "angle", "mm": "length", "rad/(kN m)": "compliance"}
    return np.array([table[unit[n]] for n in _NAMES])


def group_indices(
    groups: Sequence[str], compliance_joints: Sequence[int] = ()
) -> NDArray[np.int64]:
    """Indices of the candidate parameters of a model made of ``groups``.

    ``compliance`` takes only the joints listed in ``compliance_joints`` (1-based): a joint
    whose gravity moment is zero everywhere (joint 1, vertical) has no identifiable compliance.
    """
    unknown = sorted(set(groups) - set(GROUPS))
    if unknown:
        raise ValueError(f"unknown parameter groups {unknown}; known: {list(GROUPS)}")
    out: list[int] = []
    for group in GROUPS:
        if group not in groups:
            continue
        names = GROUPS[group]
        if group == "compliance":
            names = [f"c{j}" for j in compliance_joints]
        out += [_INDEX[n] for n in names]
    return np.asarray(out, dtype=np.int64)


def nominal_vector(dh: ArrayLike, tool: ArrayLike) -> FloatArray:
    """The extended nominal vector: the DH table, base and beta 0, the tool, compliance 0."""
    e = np.zeros(N_EXTENDED)
    e[: kin.N_PARAMS] = np.asarray(dh, dtype=np.float64)
    e[_SLICE["tool"]] = np.asarray(tool, dtype=np.float64)
    return e


def _rotation_xy(rx: FloatArray, ry: FloatArray) -> FloatArray:
    """Rx(rx) Ry(ry), (..., 3, 3)."""
    cx, sx, cy, sy = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry)
    zero = np.zeros_like(cx)
    return np.stack(
        [
            np.stack([cy, zero, sy], axis=-1),
            np.stack([sx * sy, cx, -sx * cy], axis=-1),
            np.stack([-cx * sy, sx, cx * cy], axis=-1),
        ],
        axis=-2,
    )


def _frames(e: FloatArray, q: FloatArray, tau: FloatArray) -> tuple[kin.Chain, FloatArray]:
    """The chain at the deflected joint angles q + c M and its tool point (3, *batch)."""
    b = e[..., _SLICE["base"]]
    R = _rotation_xy(b[..., 2], b[..., 3])
    t = np.stack([b[..., 0], b[..., 1], np.zeros_like(b[..., 0])], axis=-1)
    beta = np.zeros((*e.shape[:-1], kin.N_JOINTS))
    beta[..., 1] = e[..., _SLICE["beta2"]]
    q_eff = q + e[..., _SLICE["compliance"]] * tau
    frames = kin.chain(e[..., : kin.N_PARAMS], q_eff, "standard", base=(R, t), beta=beta)
    return frames, kin.tool_point(frames, e[..., _SLICE["tool"]])


def _inputs(e: ArrayLike, q: ArrayLike, tau: ArrayLike | None) -> tuple[FloatArray, ...]:
    E = np.asarray(e, dtype=np.float64)
    Q = np.asarray(q, dtype=np.float64)
    if E.shape[-1] != N_EXTENDED:
        raise ValueError(f"parameters must end in {N_EXTENDED}, got {E.shape}")
    T = np.zeros(kin.N_JOINTS) if tau is None else np.asarray(tau, dtype=np.float64)
    return E, Q, T


def positions(e: ArrayLike, q: ArrayLike, tau: ArrayLike | None = None) -> FloatArray:
    """Tool-point positions (..., 3) [mm] of the extended model (standard DH).

    ``q`` (..., 6) commanded joint angles [rad]; ``tau`` (..., 6) the nominal gravity moments
    [kN m] that the compliances multiply (None = no deflection).
    """
    E, Q, T = _inputs(e, q, tau)
    return kin.last(_frames(E, Q, T)[1])


def jacobian(
    e: ArrayLike, q: ArrayLike, tau: ArrayLike | None = None, *, with_positions: bool = False
) -> FloatArray | tuple[FloatArray, FloatArray]:
    """Analytic Jacobian dp/de (..., 3, 38) of :func:`positions` (and p with ``with_positions``).

    DH columns by Eq 8-10 (alpha_i and a_i along the axis before Hayati's rotation; without
    the extra parameters, bit for bit the tests' 24-column peer); base: e_x, e_y,
    e_x x (p - t), (Rx e_y) x (p - t); beta2: y_2 x (p - o_2); tool: the flange axes x_6,
    y_6, z_6; compliance c_i: the theta_i column times M_i(q) (the deflection adds to the
    joint angle).
    """
    E, Q, T = _inputs(e, q, tau)
    frames, p = _frames(E, Q, T)
    n = kin.N_JOINTS
    J = np.zeros((3, N_EXTENDED, *p.shape[1:]))
    # all joints at once: frames stacked on axis 1, (3, 7, *batch); {i-1} = [:-1], {i} = [1:]
    xa, z = np.stack(frames.xa, axis=1), np.stack(frames.z, axis=1)
    r = p[:, None] - np.stack(frames.o, axis=1)
    J[:, :n] = kin.cross(xa[:, 1:], r[:, 1:])
    J[:, n : 2 * n] = xa[:, 1:]
    J[:, 2 * n : 3 * n] = z[:, :-1]
    J[:, 3 * n : 4 * n] = kin.cross(z[:, :-1], r[:, :-1])
    base = _INDEX["base_x"]
    J[0, base] = 1.0
    J[1, base + 1] = 1.0
    arm = p - frames.o[0]
    J[:, base + 2] = np.stack([np.zeros_like(arm[0]), -arm[2], arm[1]])  # e_x x arm
    rx = E[..., _INDEX["base_rx"]]
    y_rot = np.stack([np.zeros_like(rx), np.cos(rx), np.sin(rx)], axis=-1)
    y_rot = np.moveaxis(np.broadcast_to(y_rot, (*arm.shape[1:], 3)), -1, 0)
    J[:, base + 3] = kin.cross(y_rot, arm)
    J[:, _INDEX["beta2"]] = kin.cross(frames.y[2], p - frames.o[2])
    tool = _INDEX["tool_x"]
    J[:, tool], J[:, tool + 1], J[:, tool + 2] = frames.x[-1], frames.y[-1], frames.z[-1]
    Tm = np.moveaxis(np.broadcast_to(T, (*p.shape[1:], n)), -1, 0)
    c0 = _INDEX["c1"]
    J[:, c0 : c0 + n] = J[:, 3 * n : 4 * n] * Tm
    J = np.moveaxis(J, (0, 1), (-2, -1))
    return (J, kin.last(p)) if with_positions else J


class PointJacobian:
    """:func:`jacobian` and the positions for M parameter vectors, bit for bit, with far fewer
    numpy calls and no temporaries.

    The filters evaluate the Jacobian of the same configurations again and again (the
    per-point filter :func:`paramid.calibration.filters.sequential_ekf` one configuration at a
    time, 280 x 60 times per filter, where numpy's per-call overhead on a few numbers is the
    cost; the batch :func:`paramid.calibration.filters.ekf` all of them 60 times, where the
    temporaries of a few MB and their page faults are).  This evaluates the same
    floating-point operations in the same order as :func:`jacobian` (every product and sum of
    the chain, the tool point and the cross products; the same cos/sin), so H and p are equal
    to its output, not close (tested):

    * the axes of a frame are one array (axis, component, member, configuration), so a turn
      of two axes by (cos, sin) is one product of both axes with both, then a sum and a
      difference;
    * for few members the components are stored as 5 rows (0, 1, 2, 0, 1): the cross product
      of :func:`paramid.calibration.kinematics.cross` is then three slice operations for all
      six joints, and every other operation treats the two extra rows like the others;
    * cos/sin of all joints in one call each; every buffer and view made once;
    * what depends on fixed parameters and the configurations only (the base frame when the
      base is fixed, q + c tau when the compliances are fixed) is computed once, with the same
      operations;
    * only the column groups that hold a free parameter are formed.

    ``nominal`` (38,) and ``free`` (r,) as :class:`paramid.calibration.problem.Problem`;
    ``q``, ``tau`` (n, 6) shared by the M members or (M, n, 6), each member's own (members of
    different data sets).  ``self(x, i)`` with x (M, r) the identified errors returns H and
    p, buffers that the next call overwrites: configuration i, H (M, 3, r) and p (M, 3); with
    ``block`` all n configurations (i is ignored), H (M, 3n, r) and p (M, 3n).

    H is laid out in memory as ``Problem.jacobian`` lays it out, since that decides which
    kernel ``np.matmul`` runs on it (BLAS for a contiguous matrix, numpy's own loop for a
    strided one; they round differently): with ``block`` C-contiguous; else, for several
    members, with the member axis the fastest (a member's 3 x r block is strided), and with
    ``per_member`` each member's block contiguous (column-major), the layout of one member's
    Jacobian.
    """

    def __init__(
        self,
        nominal: ArrayLike,
        free: ArrayLike,
        q: ArrayLike,
        tau: ArrayLike,
        *,
        members: int,
        block: bool = False,
        per_member: bool = False,
    ) -> None:
        nominal = np.asarray(nominal, dtype=np.float64)
        self.free = np.asarray(free, dtype=np.intp)
        Q0, T0 = (np.asarray(v, dtype=np.float64) for v in (q, tau))
        if Q0.ndim == 2:
            Q0, T0 = Q0[None], T0[None]
        M, n, r, J = int(members), Q0.shape[1], self.free.size, kin.N_JOINTS
        N = n if block else 1
        rows = 5 if M * N <= 256 else 3  # 5: the cross products as slices
        self.block = block
        is_free = np.zeros(N_EXTENDED, dtype=bool)
        is_free[self.free] = True
        self._free_base = bool(is_free[_SLICE["base"]].any())
        self._free_beta = bool(is_free[_SLICE["beta2"]])
        self._free_tool = bool(is_free[_SLICE["tool"]].any())
        self._free_compliance = bool(is_free[_SLICE["compliance"]].any())
        self._free_dh = [bool(is_free[k * J : (k + 1) * J].any()) for k in range(4)]
        # parameter rows (38, M, 1): the nominal vector with the free entries set per call
        self.E = np.repeat(nominal[:, None, None], M, axis=1)
        self._nominal_free = nominal[self.free][:, None]
        # configurations (blocks, 6, M or 1, N): one block of n, or n blocks of one
        Q, T = (np.moveaxis(v, 0, -1) for v in (Q0, T0))  # (n, 6, M or 1)
        if block:
            self.q, self.tau = (np.ascontiguousarray(np.moveaxis(v, 0, -1)[None]) for v in (Q, T))
        else:
            self.q, self.tau = (np.ascontiguousarray(v[..., None]) for v in (Q, T))
        if not self._free_compliance:  # q + c tau at the fixed (nominal) compliances
            self.q = self.q + self.E[_SLICE["compliance"]] * self.tau
        # angles: theta + q (6, M, N), alpha (6, M, 1) and Hayati's beta (6, M, 1; only beta2
        # is not 0); their cos and sin stacked on a leading axis of 2
        self._theta = np.empty((6, M, N))
        self._beta = np.zeros((6, M, 1))
        self._beta[1] = self.E[_INDEX["beta2"]]
        self._cs = [np.empty((2, 6, M, k)) for k in (N, 1, 1)]
        cs_theta, cs_alpha, cs_beta = (c[:, :, None, None] for c in self._cs)
        # frames {0}..{6}: axes (7, 3, rows, M, N), origins (7, rows, M, N); the axis of
        # alpha_k and a_k; p - o_k
        shape = (rows, M, N)
        self.frames = np.zeros((7, 3, *shape))
        self.origins = np.zeros((7, *shape))
        # Hayati's Ry(beta_j) where beta_j may differ from 0 (beta2 when free or nonzero):
        # Ry(0) multiplies by cos 0 = 1 and adds sin 0 = 0 times an axis, which changes no
        # number (at most the sign of an exact zero, which no product or nonzero sum sees),
        # so it is skipped elsewhere; with no Ry at all the axis of alpha_k and a_k is x_k
        self._hayati = [j == 1 and (self._free_beta or nominal[_INDEX["beta2"]] != 0.0)
                        for j in range(J)]  # fmt: skip
        copy_xa = any(self._hayati)
        self.xa = np.zeros((7, *shape)) if copy_xa else self.frames[:, 0]
        self.arm = np.zeros((7, *shape))
        self.p = np.empty(shape)
        self._yrot = np.zeros((rows, M, 1))
        self._tool = np.empty((3, *shape))
        self._xbuf = np.empty((2, J, 3, M, N))
        P = self._prod = np.empty((2, 2, *shape))
        T2 = self._pair = np.empty((2, *shape))
        self._turn = (P[0, 0], P[1, 1], P[0, 1], P[1, 0])
        F, o, E = self.frames, self.origins, self.E
        # the axes in one sequence x_0, y_0, z_0, x_1, ...: frame {j+1}'s z starts as z_j, so
        # Tz/Tx and Rx read z_j in place, in the pairs (z_j, x_{j+1}) and (y_{j+1}, z_j)
        axes = F.reshape(3 * 7, *shape)
        self._joints = [
            (F[j], F[j + 1], o[j], o[j + 1], self.xa[j + 1] if copy_xa else None,
             cs_theta[:, j], cs_alpha[:, j], cs_beta[:, j] if self._hayati[j] else None,
             E[2 * J + j : j : -J, None], T2[0], T2[1], axes[3 * j + 2 : 3 * j + 4],
             axes[3 * j + 4 : 3 * j + 1 : -2])
            for j in range(J)
        ]  # fmt: skip
        # Jacobian columns (38, 3, M, N); H and p in the layouts described above
        self.JT = np.zeros((N_EXTENDED, 3, M, N))
        base = _INDEX["base_x"]
        self.JT[base, 0] = 1.0
        self.JT[base + 1, 1] = 1.0
        self._H: FloatArray
        if block:
            self._H = np.empty((M, N, 3, r))
            self._H_view = self._H.transpose(3, 2, 0, 1)
            self.H = self._H.reshape(M, 3 * N, r)
        elif per_member:
            self._H = np.empty((M, r, 3))
            self._H_view = self._H.transpose(1, 2, 0)[..., None]
            self.H = self._H.transpose(0, 2, 1)
        else:
            self._H = np.empty((r, 3, M))
            self._H_view = self._H[..., None]
            self.H = self._H.transpose(2, 1, 0)
        # runs of consecutive free indices: (slice of JT, slice of H's columns)
        starts = [k for k in range(r) if k == 0 or self.free[k] != self.free[k - 1] + 1]
        self._runs = [
            (slice(self.free[a], self.free[b - 1] + 1), slice(a, b))
            for a, b in zip(starts, [*starts[1:], r], strict=True)
        ]
        self._h = np.empty((M, N, 3))
        self.h = self._h.reshape(M, 3 * N)
        if not self._free_base:
            self._base_frame()
        # joint angles that change between calls (theta_j or c_j free); with ``block`` the
        # configurations are fixed, so the others' cos and sin are computed here, once
        moving = [j for j in range(J) if is_free[3 * J + j] or is_free[_INDEX["c1"] + j]]
        self._moving = slice(0, J)
        if block:
            self._angles(0, self._moving)
            self._moving = slice(min(moving), max(moving) + 1) if moving else slice(0, 0)

    def _base_frame(self) -> None:
        """Frame {0}: Rx(rx) Ry(ry) and (b_x, b_y, 0), the operations of ``_rotation_xy``."""
        rx, ry = self.E[_INDEX["base_rx"]], self.E[_INDEX["base_ry"]]
        cx, sx, cy, sy = np.cos(rx), np.sin(rx), np.cos(ry), np.sin(ry)
        f = self.frames[0]
        f[0, 0], f[0, 1], f[0, 2] = cy, sx * sy, -cx * sy  # x axis: column 0 of R
        f[1, 0], f[1, 1], f[1, 2] = 0.0, cx, sx
        f[2, 0], f[2, 1], f[2, 2] = sy, -sx * cy, cx * cy
        o = self.origins[0]
        o[0], o[1], o[2] = self.E[_INDEX["base_x"]], self.E[_INDEX["base_y"]], 0.0
        if f.shape[1] == 5:
            f[:, 3:5] = f[:, 0:2]
            o[3:5] = o[0:2]
        self._yrot[1], self._yrot[2] = cx, sx
        if self._yrot.shape[0] == 5:
            self._yrot[4] = cx

    def _angles(self, k: int, joints: slice) -> None:
        """theta + q + c tau of ``joints`` at configuration block k, and their cos and sin."""
        E, theta, cs = self.E, self._theta[joints], self._cs[0][:, joints]
        q, tau = self.q[k][joints], self.tau[k][joints]
        if self._free_compliance:  # q_eff = q + c tau, then theta + q_eff
            np.multiply(E[_SLICE["compliance"]][joints], tau, out=theta)
            np.add(q, theta, out=theta)
            np.add(E[18:24][joints], theta, out=theta)
        else:
            np.add(E[18:24][joints], q, out=theta)
        np.cos(theta, out=cs[0])
        np.sin(theta, out=cs[1])

    def __call__(self, x: FloatArray, i: int = 0) -> tuple[FloatArray, FloatArray]:
        k = self._tool_point(x, i)
        np.subtract(self.p, self.origins, out=self.arm)
        self._columns(k)
        for src, dst in self._runs:  # the free columns, no temporary
            np.copyto(self._H_view[dst], self.JT[src])
        np.copyto(self._h, self.p[0:3].transpose(1, 2, 0))
        return self.H, self.h

    def positions(self, x: FloatArray, i: int = 0) -> FloatArray:
        """The positions p of :meth:`__call__` alone (the Jacobian is not formed): the buffer
        (M, 3) or, with ``block``, (M, 3n) that the next call overwrites."""
        self._tool_point(x, i)
        np.copyto(self._h, self.p[0:3].transpose(1, 2, 0))
        return self.h

    def _tool_point(self, x: FloatArray, i: int) -> int:
        """The frames and the tool point p for x (M, r) at configuration i; returns the
        index of the configuration block."""
        E = self.E
        E[self.free, :, 0] = self._nominal_free + x.T
        k = 0 if self.block else i
        self._angles(k, self._moving)
        if self._free_beta:
            self._beta[1] = E[_INDEX["beta2"]]
        if self._free_base:
            self._base_frame()
        for angle, cs in zip((E[0:6], self._beta), self._cs[1:], strict=True):
            np.cos(angle, out=cs[0])
            np.sin(angle, out=cs[1])
        P = self._prod
        P00, P11, P01, P10 = self._turn
        for prev, W, o, o_next, xa, ct, ca, cb, da, T0, T1, zx, yz in self._joints:
            # Rz(theta + q): x, y = x c + y s, y c - x s (z stays: z_j, read in place)
            np.multiply(prev[0:2], ct, out=P)
            np.add(P00, P11, out=W[0])
            np.subtract(P01, P10, out=W[1])
            if xa is not None:
                np.copyto(xa, W[0])
            # Tz(d) Tx(a): o + z d + x a
            np.multiply(zx, da, out=self._pair)
            np.add(o, T0, out=o_next)
            np.add(o_next, T1, out=o_next)
            # Rx(alpha): y, z = y c + z s, z c - y s
            np.multiply(yz, ca, out=P)
            np.add(P00, P11, out=W[1])
            np.subtract(P01, P10, out=W[2])
            if cb is None:
                continue
            # Ry(beta): z, x = z c + x s, x c - z s
            np.multiply(W[::-2], cb, out=P)
            np.add(P00, P11, out=W[2])
            np.subtract(P01, P10, out=W[0])
        # tool point p = o6 + x6 t0 + y6 t1 + z6 t2
        p, tool = self.p, self._tool
        np.multiply(self.frames[6], E[_SLICE["tool"], None], out=tool)
        np.add(self.origins[6], tool[0], out=p)
        np.add(p, tool[1], out=p)
        np.add(p, tool[2], out=p)
        return k

    def _cross(self, u: FloatArray, v: FloatArray, out: FloatArray) -> None:
        """u x v of component vectors (k, rows, M, N) into out (k, 3, M, N)."""
        a, b = self._xbuf[0, : u.shape[0]], self._xbuf[1, : u.shape[0]]
        if u.shape[1] == 5:
            np.multiply(u[:, 1:4], v[:, 2:5], out=a)
            np.multiply(u[:, 2:5], v[:, 1:4], out=b)
            np.subtract(a, b, out=out)
            return
        for c in range(3):
            c1, c2 = (c + 1) % 3, (c + 2) % 3
            np.multiply(u[:, c1], v[:, c2], out=a[:, c])
            np.multiply(u[:, c2], v[:, c1], out=b[:, c])
            np.subtract(a[:, c], b[:, c], out=out[:, c])

    def _columns(self, k: int) -> None:
        """The column groups of :func:`jacobian` that hold a free parameter."""
        JT, F, arm, J = self.JT, self.frames, self.arm, kin.N_JOINTS
        alpha, a, d, theta = self._free_dh
        if alpha:
            self._cross(self.xa[1:], arm[1:], JT[0:J])
        if a:
            np.copyto(JT[J : 2 * J], self.xa[1:, 0:3])
        if d:
            np.copyto(JT[2 * J : 3 * J], F[:-1, 2, 0:3])
        if theta or self._free_compliance:
            self._cross(F[:-1, 2], arm[:-1], JT[3 * J : 4 * J])
        if self._free_base:
            base = _INDEX["base_x"]
            np.negative(arm[0, 2], out=JT[base + 2, 1])
            np.copyto(JT[base + 2, 2], arm[0, 1])
            self._cross(self._yrot[None], arm[0:1], JT[base + 3 : base + 4])
        if self._free_beta:
            beta = _INDEX["beta2"]
            self._cross(F[2, 1][None], arm[2:3], JT[beta : beta + 1])
        if self._free_tool:
            np.copyto(JT[_SLICE["tool"]], F[6, :, 0:3])
        if self._free_compliance:
            c = _SLICE["compliance"]
            np.multiply(JT[3 * J : 4 * J], self.tau[k][:, None], out=JT[c])


@dataclass(frozen=True)
class MassModel:
    """A nominal mass model for gravity moments: link masses [kg] with their centres of mass
    [mm] in the standard-DH link frames {1}..{6}, a payload [kg] at ``payload_com_mm`` in the
    flange frame, and an A2 counterbalance that cancels ``counterbalance`` (fraction) of the
    arm's own (payload-free) gravity moment about joint 2."""

    masses_kg: tuple[float, ...]
    com_mm: tuple[tuple[float, float, float], ...]
    payload_kg: float = 0.0
    payload_com_mm: tuple[float, float, float] = (0.0, 0.0, 0.0)
    counterbalance: float = 0.0

    @classmethod
    def from_config(cls, cfg: Mapping[str, Any]) -> MassModel:
        """From a ``mass_model`` config block (same keys as the fields)."""
        masses = tuple(float(m) for m in cfg["masses_kg"])
        com = tuple(tuple(float(v) for v in c) for c in cfg["com_mm"])
        if len(masses) != kin.N_JOINTS or len(com) != kin.N_JOINTS:
            raise ValueError(f"mass_model needs {kin.N_JOINTS} masses and centres of mass")
        return cls(
            masses_kg=masses,
            com_mm=com,  # type: ignore[arg-type]
            payload_kg=float(cfg["payload_kg"]),
            payload_com_mm=tuple(float(v) for v in cfg["payload_com_mm"]),  # type: ignore[arg-type]
            counterbalance=float(cfg["counterbalance"]),
        )

    def scaled(self, factors: ArrayLike, payload_factor: float = 1.0) -> MassModel:
        """The same model with link masses times ``factors`` (6,) and the payload times
        ``payload_factor`` (the twin's true masses)."""
        f = np.asarray(factors, dtype=np.float64)
        return MassModel(
            masses_kg=tuple((np.asarray(self.masses_kg) * f).tolist()),
            com_mm=self.com_mm,
            payload_kg=self.payload_kg * payload_factor,
            payload_com_mm=self.payload_com_mm,
            counterbalance=self.counterbalance,
        )


def gravity_moments(mass: MassModel, dh: ArrayLike, q: ArrayLike) -> FloatArray:
    """Gravity moments M_i(q) (..., 6) [kN m] about the joint axes (standard DH, z up).

    M_i = z_{i-1} . sum_{j >= i} (c_j - o_{i-1}) x (m_j g), g = (0, 0, -9.81) m/s^2, with the
    payload on link 6; at joint 2 the counterbalance removes its fraction of the links'
    (payload-free) moment.  The sign is that of the deflection the moment causes.
    """
    P = np.asarray(dh, dtype=np.float64)
    Q = np.asarray(q, dtype=np.float64)
    frames = kin.chain(P, Q, "standard")
    n = kin.N_JOINTS

    def world(k: int, local: Sequence[float]) -> FloatArray:
        return (
            frames.o[k] + frames.x[k] * local[0] + frames.y[k] * local[1] + frames.z[k] * local[2]
        )

    weight = np.array([0.0, 0.0, -GRAVITY_M_S2]).reshape(3, *([1] * (frames.o[0].ndim - 1)))
    com = [world(j + 1, mass.com_mm[j]) for j in range(n)]
    payload = world(n, mass.payload_com_mm)
    out = np.empty((n, *frames.o[0].shape[1:]))
    for i in range(n):
        links = sum(
            np.cross(com[j] - frames.o[i], mass.masses_kg[j] * weight, axis=0) for j in range(i, n)
        )
        load = np.cross(payload - frames.o[i], mass.payload_kg * weight, axis=0)
        links_moment = np.sum(frames.z[i] * links, axis=0)
        if i == 1:
            links_moment = (1.0 - mass.counterbalance) * links_moment
        out[i] = links_moment + np.sum(frames.z[i] * load, axis=0)
    return np.moveaxis(out, 0, -1) * 1e-6  # N mm -> kN m


def inverse_kinematics(
    e: ArrayLike,
    target: FloatArray,
    q0: ArrayLike,
    *,
    mass: MassModel | None = None,
    tool: ArrayLike | None = None,
    iterations: int = 8,
) -> FloatArray:
    """Commanded joint angles (..., 6) that put ``tool`` (flange frame; default: the model's
    tool) at ``target`` (..., 4, 4) under the extended model ``e`` (38,).

    The geometric part (base, beta2, DH) is inverted by Newton with the geometric Jacobian
    (:func:`paramid.calibration.kinematics.inverse_kinematics` on a frame-0-relative target);
    the compliance by the fixed point q = q_eff - c M(q) (M from ``mass`` at the nominal DH
    part of ``e``; contraction since |c dM/dq| << 1).
    """
    E = np.asarray(e, dtype=np.float64)
    if E.ndim != 1:
        raise ValueError("inverse_kinematics takes one parameter vector (38,)")
    b = E[_SLICE["base"]]
    R = _rotation_xy(b[2], b[3])
    t = np.array([b[0], b[1], 0.0])
    local = np.array(target, dtype=np.float64)
    local[..., :3, :3] = R.T @ local[..., :3, :3]
    local[..., :3, 3] = (local[..., :3, 3] - t) @ R
    beta = np.zeros(kin.N_JOINTS)
    beta[1] = E[_SLICE["beta2"]]
    tcp = E[_SLICE["tool"]] if tool is None else np.asarray(tool, dtype=np.float64)
    dh = E[: kin.N_PARAMS]
    q_eff = kin.inverse_kinematics(dh, local, q0, tool=tcp, beta=beta, tol_mm=1e-8, tol_rad=1e-11)
    c = E[_SLICE["compliance"]]
    if mass is None or not np.any(c):
        return q_eff
    q = q_eff
    for _ in range(iterations):
        q = q_eff - c * gravity_moments(mass, dh, q)
    return q
