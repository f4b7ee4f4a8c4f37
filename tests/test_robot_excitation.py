"""Excitation design for a URDF robot (paramid.robot.excitation, issue #17): the design meets
every limit on the fine grid, is reproducible, beats a random feasible trajectory on cond, and
bad settings or coefficient files raise one clear error naming the field or file."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import replace

import loaders
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from paramid.errors import InputError
from paramid.robot import base, model, twin
from paramid.robot import excitation as ex
from paramid.robot.estimators import ZERO_TRUTH, relative_error

URDF = "data/kinova_gen3/kinovaGen3.urdf"
JOINTS = ["joint_2", "joint_4", "joint_6"]
SPEC = {
    "harmonics": 2,
    "base_frequency_hz": 0.2,
    "boundary": "rest_to_rest",
    "margins": {"position_rad": 0.087, "velocity_rad_s": 0.17},
    "acceleration_limit_rad_s2": [7.5, 12.5, 20],
    "effort_margin": 0.1,
    "keep_out": {"floor_height_m": 0.05, "clearance_m": 0.01},
    "criterion": "cond",
    "starts": 2,
    "maxiter": 15,
    "grid_points": 24,
    "fine_factor": 10,
    "sign_smoothing": [0.1],
    "seed": 0,
}


@pytest.fixture(scope="module")
def robot():
    return loaders.load_robot(URDF, JOINTS)


@pytest.fixture(scope="module")
def structural(robot):
    return base.structural_base(robot, loaders.BASE_REL_TOL)


@pytest.fixture(scope="module")
def designed(robot, structural):
    return ex.design_for_robot(robot, structural, SPEC, "unit")


def test_design_meets_every_limit_on_the_fine_grid(robot, designed):
    result, limits, urdf, physical = designed
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    worst = ex.violations(robot, result.trajectory, limits, physical, t)
    assert set(worst) == {"q_min", "q_max", "qd_max", "qdd_max", "effort", "floor"}
    assert max(worst.values()) <= 0
    # the limits used are the URDF's minus the margins
    np.testing.assert_allclose(limits.q_max, np.array(urdf["q_max"]) - 0.087)
    np.testing.assert_allclose(limits.qd_max, np.array(urdf["qd_max"]) - 0.17)
    _, dq0, ddq0 = result.trajectory.evaluate_joints(np.zeros(1))
    assert np.abs(dq0).max() < 1e-9 and np.abs(ddq0).max() < 1e-9  # rest at t = 0


def test_a_design_past_the_urdfs_effort_or_the_floor_stops_the_run(robot, designed):
    """A design over the URDF's effort limit (an effort of 2 N m the search could not meet) or
    below the floor was written with rc 0, its excess only in design.json; now it stops
    naming the joint or link, and one that only eats into effort_margin is warned of."""
    from dataclasses import replace

    result, _, _, physical = designed
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    assert ex.crossed_limits(robot, result.trajectory, physical, t, "unit") == []
    reached = np.abs(physical.torque(robot, *result.trajectory.evaluate_joints(t))).max(axis=0)
    low = replace(physical, effort_urdf=physical.effort_urdf.copy())
    low.effort_urdf[1] = 0.5 * reached[1]
    with pytest.raises(
        ex.ExcitationError, match=r"breaks its effort limit \(joint_4 by [0-9.]+ N m\)"
    ):
        ex.crossed_limits(robot, result.trajectory, low, t, "unit")
    eaten = replace(physical, effort=physical.effort.copy())
    eaten.effort[1] = 0.9 * reached[1]
    warnings = ex.crossed_limits(robot, result.trajectory, eaten, t, "unit")
    assert len(warnings) == 1 and "eats into effort_margin: joint_4 by" in warnings[0]
    high = replace(physical, floor=5.0)
    with pytest.raises(
        ex.ExcitationError, match=r"breaks the floor keep-out \(.*end_effector_link by"
    ):
        ex.crossed_limits(robot, result.trajectory, high, t, "unit")


@pytest.mark.parametrize("points", [16, 64])
def test_the_estimate_between_samples_finds_a_sinusoids_extremes_to_fourth_order(points):
    """cos and -cos of period P on ``points`` samples, their extremes midway between two:
    the samples miss them by 1 - cos(πh/P) ≈ (πh/P)²/2; widened by the estimate, the
    extremes are cos(πh/P)·(1 + (1 - cos(2πh/P))/4), short of 1 by ≈ 3/8 (πh/P)⁴."""
    x = np.pi / points  # πh/P
    phase = 2 * x * (np.arange(points) + 0.5)  # cos peaks at phase 0, between two samples
    f = np.column_stack([np.cos(phase), -np.cos(phase)])
    width = ex.estimated_between_samples(f)
    assert width.shape == f.shape
    widened = np.array([(f[:, 0] + width[:, 0]).max(), -(f[:, 1] - width[:, 1]).min()])
    np.testing.assert_allclose(widened, np.cos(x) * (1 + (1 - np.cos(2 * x)) / 4), rtol=1e-12)
    assert 1 - f[:, 0].max() > 0.45 * x**2  # the samples miss the extreme by O(h²)
    assert 0 < 1 - widened.max() < 0.4 * x**4  # the widened one by O(h⁴)


def _shifted(trajectory, s):
    """The trajectory delayed by -s: q(t + s) (Eq 8's coefficients rotated by l ω s)."""
    angle = trajectory.omega_f * s * np.arange(1, trajectory.order + 1)
    c, sn = np.cos(angle), np.sin(angle)
    a, b = trajectory.a, trajectory.b
    return type(trajectory)(trajectory.q0, a * c + b * sn, b * c - a * sn, trajectory.omega_f)


def test_an_effort_peak_between_the_check_grids_samples_stops_the_run(robot, designed):
    """Each joint's torque peak placed midway between two of 24 check instants: an effort
    limit between the sampled peak and the continuous one (200x denser grid) was passed
    unreported; now the run stops naming the joint, and the widened excess is the dense
    grid's to within a third of what the samples miss (a known answer, not only a sign)."""
    from dataclasses import replace

    result, _, _, physical = designed
    points = SPEC["grid_points"]
    dense = ex.fine_grid(result.trajectory, points, 200)
    peak = np.abs(physical.torque(robot, *result.trajectory.evaluate_joints(dense)))
    for j, joint in enumerate(JOINTS):
        h = result.trajectory.period / points
        moved = _shifted(result.trajectory, dense[np.argmax(peak[:, j])] - h / 2)
        t = ex.fine_grid(moved, points, 1)
        sampled = np.abs(physical.torque(robot, *moved.evaluate_joints(t)))[:, j].max()
        truth = np.abs(physical.torque(robot, *moved.evaluate_joints(dense)))[:, j].max()
        miss = truth - sampled
        assert miss > 1e-3 * truth  # the peak lies between samples
        limit = physical.effort_urdf.copy()
        limit[j] = sampled + miss / 2
        low = replace(physical, effort_urdf=limit, effort=limit)
        with pytest.raises(ex.ExcitationError, match=rf"breaks its effort limit \({joint} by "):
            ex.crossed_limits(robot, moved, low, t, "unit")
        widened = low.excess(robot, moved, t, used=False)["effort"][j] + limit[j]
        assert abs(widened - truth) < miss / 3
        assert ex.violations(robot, moved, ex.limits_of(robot, SPEC, "unit")[0], low, t)[
            "effort"
        ] == pytest.approx(widened - limit[j])
    with pytest.raises(ValueError, match="equally spaced over one period"):
        physical.excess(robot, moved, t[:-1], used=True)


def test_a_dip_below_the_floor_between_the_check_grids_samples_stops_the_run(robot, designed):
    """The lowest link's lowest point placed midway between two of 24 check instants, the
    floor between the sampled low and the continuous one: passed unreported, now named."""
    from dataclasses import replace

    result, _, _, physical = designed
    points = SPEC["grid_points"]
    dense = ex.fine_grid(result.trajectory, points, 200)
    z = physical.heights(robot, result.trajectory.evaluate_joints(dense)[0])
    link = int(np.argmin(z.min(axis=0)))
    h = result.trajectory.period / points
    moved = _shifted(result.trajectory, dense[np.argmin(z[:, link])] - h / 2)
    t = ex.fine_grid(moved, points, 1)
    sampled = physical.heights(robot, moved.evaluate_joints(t)[0])[:, link].min()
    truth = physical.heights(robot, moved.evaluate_joints(dense)[0])[:, link].min()
    miss = sampled - truth
    assert miss > 1e-3
    low = replace(physical, floor=truth + miss / 2)
    name = robot.model.frames[physical.floor_frames(robot)[link]].name
    with pytest.raises(ex.ExcitationError, match=rf"breaks the floor keep-out \({name} by "):
        ex.crossed_limits(robot, moved, low, t, "unit")
    widened = low.floor - low.excess(robot, moved, t, used=False)["floor"][link]
    assert abs(widened - truth) < miss / 3


def test_design_stays_within_the_urdfs_own_limits_by_pinocchio(robot, designed):
    """The limits read from the URDF's XML, the torque by ``pin.rnea`` and the joint origins
    by ``pin.forwardKinematics`` on the URDF's model, not through the design's own
    evaluators: on the fine grid every joint stays within its range, speed and effort, every
    moving joint's origin and the tool flange (end_effector_link, welded to the last link:
    it went 15 mm below a floor the joint origins kept) above the 0.05 m floor."""
    import xml.etree.ElementTree as ET

    import pinocchio as pin

    joints = {j.get("name"): j for j in ET.parse(URDF).getroot().iter("joint")}
    limit = {name: joints[name].find("limit").attrib for name in JOINTS}
    lower, upper, speed, effort = (
        np.array([float(limit[j][key]) for j in JOINTS])
        for key in ("lower", "upper", "velocity", "effort")
    )
    result = designed[0]
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    q, dq, ddq = result.trajectory.evaluate_joints(t)
    assert np.all((q >= lower) & (q <= upper)) and np.all(np.abs(dq) <= speed)
    pinocchio = robot.model
    data = pinocchio.createData()
    index = [pinocchio.joints[j].idx_v for j in robot.pin_joint]
    heights = []
    for qk, vk, ak in zip(model.pin_configuration(robot, q), dq, ddq, strict=True):
        v, a = np.zeros(pinocchio.nv), np.zeros(pinocchio.nv)
        v[index], a[index] = vk, ak
        tau = pin.rnea(pinocchio, data, qk, v, a)[index]
        assert np.all(np.abs(tau) <= effort)
        pin.forwardKinematics(pinocchio, data, qk)
        pin.updateFramePlacements(pinocchio, data)
        flange = data.oMf[pinocchio.getFrameId("end_effector_link")].translation[2]
        origins = [data.oMi[j].translation[2] for j in range(1, pinocchio.njoints)]
        heights.append(min(flange, *origins))
    assert min(heights) >= SPEC["keep_out"]["floor_height_m"]


def test_same_seed_gives_identical_coefficients(robot, structural, designed):
    again = ex.design_for_robot(robot, structural, SPEC, "unit")[0]
    np.testing.assert_array_equal(again.trajectory.theta, designed[0].trajectory.theta)


def test_designed_cond_beats_a_random_feasible_trajectory(robot, structural, designed, tmp_path):
    result, limits, _, physical = designed
    random, _ = ex.random_feasible(robot, structural, SPEC, limits, physical, "unit")
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    trajectories = {"designed": result.trajectory, "random": random}
    feasible = {k: ex.violations(robot, v, limits, physical, t) for k, v in trajectories.items()}
    setup = ex.TwinSetup(
        robot=robot,
        base=structural,
        theta=twin.true_parameters(robot, 0, 0.2, **loaders.TWIN_FRICTION),
        sigma=np.full(3, 1.0),
        rate_hz=50.0,
        validation=twin.excitation(robot, 2, 2, 5.0),
        validation_s=5.0,
    )
    table, seeds = ex.compare(setup, trajectories, feasible, 1, range(6), SPEC["grid_points"])
    assert list(table.columns[:6]) == [
        "trajectory",
        "cond",
        "logdet",
        "param_error_median",
        "val_rmse_median",
        "p_value",
    ]
    assert list(table["trajectory"]) == ["designed", "random"]
    assert table["feasible"].all() and not table["cond_below_designed"].any()
    assert table["cond"].iloc[0] == pytest.approx(result.cond, rel=1e-9)
    assert table["cond"].iloc[0] < table["cond"].iloc[1]
    assert np.isnan(table["p_value"].iloc[0]) and 0 < table["p_value"].iloc[1] <= 1
    assert len(seeds) == 12


def test_compare_excitations_is_the_comparison_of_the_config(robot, structural, designed):
    """robot_excitation_compare's call: the design, a random feasible trajectory and the
    others, checked on the fine grid and compared on the twin of the config."""
    result, limits, _, physical = designed
    comparison = {"seeds": 4, "periods": 1, "random": True}
    comparison |= {"validation_seed": 2, "validation_period_s": 5.0}
    comparison |= {"validation_amplitude_rad": 0.8, "validation_max_velocity_rad_s": 1.0}
    spec = SPEC | {"comparison": comparison}
    twin_block = {
        "seed": 0,
        "sample_rate_hz": 50.0,
        "inertia_spread": 0.2,
        "friction": loaders.TWIN_FRICTION,
        "noise": {"encoder_step_rad": 1e-5, "encoder_noise_rad": 0.0,
                  "velocity_noise_rad_s": 2e-3, "torque_noise_nm": [1.0, 2.0, 0.5]},
    }  # fmt: skip
    other = twin.excitation(robot, 5, SPEC["harmonics"], result.trajectory.period, 0.3, 0.3)
    table, per_seed, draw = ex.compare_excitations(
        robot, structural, spec, twin_block, "unit", result.trajectory, {"other": other}
    )
    setup = ex.twin_setup(robot, structural, twin_block, comparison, result.trajectory.order)
    np.testing.assert_array_equal(
        setup.theta, twin.true_parameters(robot, 0, 0.2, **loaders.TWIN_FRICTION)
    )
    np.testing.assert_array_equal(setup.sigma, [1.0, 2.0, 0.5])
    assert (setup.rate_hz, setup.validation_s) == (50.0, 5.0)
    drawn = twin.excitation(robot, 2, result.trajectory.order, 5.0, 0.8, 1.0)  # the block's
    np.testing.assert_array_equal(setup.validation.a, drawn.a)
    np.testing.assert_array_equal(setup.validation.b, drawn.b)
    random, k = ex.random_feasible(robot, structural, SPEC, limits, physical, "unit")
    trajectories = {"designed": result.trajectory, "random": random, "other": other}
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], SPEC["fine_factor"])
    feasible = {
        name: ex.violations(robot, v, limits, physical, ex.fine_grid(v, len(t), 1))
        for name, v in trajectories.items()
    }
    want, seeds = ex.compare(setup, trajectories, feasible, 1, range(4), SPEC["grid_points"])
    assert draw == k
    pd.testing.assert_frame_equal(table, want)
    pd.testing.assert_frame_equal(per_seed, seeds)
    spec["comparison"] = comparison | {"random": False}  # no random reference
    table, per_seed, draw = ex.compare_excitations(
        robot, structural, spec, twin_block, "unit", result.trajectory, {"other": other}
    )
    assert draw is None and list(table["trajectory"]) == ["designed", "other"]


def test_a_limit_no_random_draw_meets_is_named(robot, structural, designed):
    """A floor above the arm's reach breaks every random draw: the error names the limit and
    the way to leave the random reference out."""
    _, limits, _, _ = designed
    high = ex.physical_of(robot, SPEC | {"keep_out": {"floor_height_m": 5.0, "clearance_m": 0}})
    with pytest.raises(ex.ExcitationError, match=r"broken: floor in 3\).*random: false"):
        ex.random_feasible(robot, structural, SPEC, limits, high, "unit", tries=3)


def test_periodic_boundary_frees_the_rest_conditions(robot, structural):
    spec = SPEC | {"boundary": "periodic", "starts": 1, "maxiter": 5}
    result, limits, _, physical = ex.design_for_robot(robot, structural, spec, "unit")
    _, dq0, _ = result.trajectory.evaluate_joints(np.zeros(1))
    assert np.abs(dq0).max() > 1e-6
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    assert max(ex.violations(robot, result.trajectory, limits, physical, t).values()) <= 0
    # its first row is not at rest: the README's "move the arm to the first row's pose (at
    # rest there)" would have met a 1.7 rad/s step; the design says so and states the start
    fastest = robot.joints[int(np.argmax(np.abs(dq0[0])))]
    warning = ex.moving_start(result.trajectory, robot.joints, "unit")
    assert warning.startswith("robots.unit.excitation: boundary: periodic: the trajectory does")
    assert f"({fastest} at {dq0[0][robot.joints.index(fastest)]:.3g} rad/s" in warning
    frame, _ = ex.trajectory_frame(result.trajectory, robot.joints, 100.0, model.joint_units(robot))
    start = ex.start_state(result.trajectory, robot.joints)
    for kind in ("q", "dq", "ddq"):
        np.testing.assert_allclose(
            [start[kind][j] for j in robot.joints],
            [frame[f"{kind}_{j}"].iloc[0] for j in robot.joints],
            rtol=1e-12,
            atol=1e-12,
        )


def test_a_rest_to_rest_design_starts_at_rest_and_states_its_start_pose(robot, designed):
    """Harmonic 0 of coefficients.csv is the series' offset, not the start (j1: -0.067 against
    a start at 0.916 on a user's arm): design.json states the pose at t = 0."""
    result = designed[0]
    assert ex.moving_start(result.trajectory, robot.joints, "unit") is None
    start = ex.start_state(result.trajectory, robot.joints)
    q0, _, _ = result.trajectory.evaluate_joints(np.zeros(1))
    np.testing.assert_allclose([start["q"][j] for j in robot.joints], q0[0], rtol=1e-15)
    assert max(map(abs, start["dq"].values())) < 1e-12
    assert any(
        abs(start["q"][j] - q) > 1e-3
        for j, q in zip(robot.joints, result.trajectory.q0, strict=True)
    )


@pytest.mark.parametrize(
    ("edit", "pattern"),
    [
        ({"harmonics": 0}, r"excitation\.harmonics must be >= 1"),
        ({"base_frequency_hz": 0.0}, r"excitation\.base_frequency_hz must be > 0"),
        (
            {"margins": {"position_rad": 2.5, "velocity_rad_s": 0.1}},
            r"margins\.position_rad = 2\.5 rad on each side empties joint_2",
        ),
        (
            {"margins": {"position_rad": 0.1, "velocity_rad_s": 1.5}},
            r"margins\.velocity_rad_s = 1\.5 rad/s is not below joint_2",
        ),
        ({"acceleration_limit_rad_s2": [1, 2]}, r"acceleration_limit_rad_s2 has 2 values for 3"),
        (
            {"margins": {"position_rad": 0.1, "velocity_rad_s": [0.1, 1.5, 0.1]}},
            r"margins\.velocity_rad_s = 1\.5 rad/s is not below joint_4",
        ),
        (
            {"margins": {"position_rad": [0.1, 0.1], "velocity_rad_s": 0.1}},
            r"margins\.position_rad has 2 values for 3",
        ),
    ],
)
def test_bad_settings_name_the_field(robot, edit, pattern):
    with pytest.raises(ex.ExcitationError, match=r"^robots\.unit\.excitation\."):
        ex.limits_of(robot, SPEC | edit, "unit")
    with pytest.raises(ex.ExcitationError, match=pattern):
        ex.limits_of(robot, SPEC | edit, "unit")


def test_a_joint_without_a_urdf_velocity_limit_is_named(tmp_path):
    """A continuous joint without <limit> has an infinite velocity limit: the design ran with
    its speed unbounded and wrote Infinity into design.json."""
    import xml.etree.ElementTree as ET

    tree = ET.parse(URDF)
    joint = next(j for j in tree.getroot().iter("joint") if j.get("name") == "joint_1")
    joint.remove(joint.find("limit"))
    path = tmp_path / "no_limit.urdf"
    tree.write(path)
    robot = loaders.load_robot(path, ["joint_1", "joint_2", "joint_4"])
    spec = SPEC | {"acceleration_limit_rad_s2": 10.0}
    with pytest.raises(ex.ExcitationError, match=r"joint_1 has no velocity limit in the URDF"):
        ex.limits_of(robot, spec, "unit")


def _with_limit(tmp_path, **values):
    tree = ET.parse(URDF)
    joint = next(j for j in tree.getroot().iter("joint") if j.get("name") == "joint_2")
    for key, value in values.items():
        joint.find("limit").set(key, value)
    tree.write(path := tmp_path / "degrees.urdf")
    return loaders.load_robot(path, JOINTS)


def test_urdf_limits_in_degrees_are_refused_and_fast_velocities_warned_of(tmp_path):
    """A user's URDF with j1's limits in degrees (+-160, 86) was read as rad and rad/s: the
    design commanded 2.5 rad/s where 86 deg/s = 1.5 rad/s was meant. A range beyond two turns
    stops the design; a velocity limit beyond 50 rad/s alone is warned of (a fast SCARA's
    wrist may turn near it)."""
    robot = _with_limit(tmp_path, lower="-160", upper="160", velocity="1.4")
    with pytest.raises(ex.ExcitationError, match=r"joint_2's URDF range \[-160, 160\] rad reaches"):
        ex.limits_of(robot, SPEC, "unit")
    fast = _with_limit(tmp_path, lower="-2.2", upper="2.2", velocity="86")
    ex.limits_of(fast, SPEC, "unit")
    warning = ex.fast_velocity_limits(fast, "unit")
    assert warning.startswith("robots.unit.excitation: URDF velocity limits above 50 rad/s")
    assert "(joint_2 86 rad/s): in deg/s?" in warning
    assert ex.fast_velocity_limits(loaders.load_robot(URDF, JOINTS), "unit") is None


def test_a_compared_trajectory_that_breaks_the_limits_is_named():
    """A coefficient file in degrees broke the angle limits by 10,402 and had the best
    parameter error, told only at INFO: comparison.csv names the limits, the log warns."""
    excess = {"q_min": -0.2, "q_max": 10402.0, "qd_max": 3.5, "qdd_max": -1.0, "effort": 0.0}
    assert ex.violated(excess) == (
        "upper position by 1.04e+04, velocity by 3.5 (coefficients in degrees?)"
    )
    assert ex.violated({"floor": 3.0, "q_max": 2.1}) == "upper position by 2.1, floor [m] by 3"
    assert ex.violated({"q_max": -0.1}) == ""
    table = pd.DataFrame(
        {
            "trajectory": ["designed", "random", "mine", "lab"],
            "feasible": [True, True, False, False],
            "violated": ["", "", ex.violated(excess), "upper position by 2.1"],
        }
    )
    warned = ex.infeasible(table, "unit")
    assert [w.split(" trajectory")[0] for w in warned] == [
        "robots.unit.excitation: the mine",
        "robots.unit.excitation: the lab",
    ]
    assert (
        "(upper position by 1.04e+04, velocity by 3.5 (coefficients in degrees?); rad"
        in (warned[0])
    )


def _coefficients(robot, path, joints=None, harmonics=2):
    trajectory = twin.excitation(robot, 3, harmonics, 5.0)
    frame = ex.coefficient_frame(trajectory, joints or robot.joints)
    frame.to_csv(path, index=False)
    return trajectory


def test_coefficient_file_round_trip_and_start_pose(robot, tmp_path):
    path = tmp_path / "c.csv"
    original = _coefficients(robot, path)
    back = loaders.read_coefficients(path, robot.joints, 2, original.omega_f, "offset")
    np.testing.assert_allclose(back.theta, original.theta)
    # constant: start -> the file's harmonic-0 value is the pose at t = 0
    started = loaders.read_coefficients(path, robot.joints, 2, original.omega_f, "start")
    q_start = started.evaluate_joints(np.zeros(1))[0][0]
    np.testing.assert_allclose(q_start, original.q0, atol=1e-12)


def test_coefficient_file_that_does_not_match_names_the_file(robot, tmp_path):
    wrong_joints = tmp_path / "joints.csv"
    _coefficients(robot, wrong_joints, joints=["joint_1", "joint_4", "joint_6"])
    with pytest.raises(ex.ExcitationError, match=r"joints.csv: joints .* do not match"):
        loaders.read_coefficients(wrong_joints, robot.joints, 2, 1.0, "offset")
    wrong_order = tmp_path / "order.csv"
    _coefficients(robot, wrong_order, harmonics=3)
    with pytest.raises(ex.ExcitationError, match=r"order.csv: joint joint_2 has harmonics"):
        loaders.read_coefficients(wrong_order, robot.joints, 2, 1.0, "offset")
    missing = tmp_path / "missing.csv"
    pd.DataFrame({"joint": ["joint_2"], "a": [0.0]}).to_csv(missing, index=False)
    with pytest.raises(ex.ExcitationError, match=r"missing.csv: missing column\(s\)"):
        loaders.read_coefficients(missing, robot.joints, 2, 1.0, "offset")
    twice = tmp_path / "twice.csv"  # pandas would read the second `a` as `a.1`
    twice.write_text("joint,harmonic,a,b,a\njoint_2,1,0.1,0.2,0.3\n")
    with pytest.raises(InputError, match=r"twice.csv: the header names column\(s\) \['a'\]"):
        loaders.read_coefficients(twice, robot.joints, 2, 1.0, "offset")
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(InputError, match=r"empty.csv: file is empty"):
        loaders.read_coefficients(empty, robot.joints, 2, 1.0, "offset")


def test_the_comparison_figure_draws_every_trajectorys_seeds():
    """comparison.png: one box per trajectory in comparison.csv's order, parameter errors on
    a log axis (they span decades), validation RMSE in N m; each label carries its cond."""
    from paramid.robot import figures

    rng = np.random.default_rng(0)
    names = ["designed", "random", "file_example"]
    per_seed = pd.DataFrame(
        {
            "trajectory": np.repeat(names, 8),
            "seed": np.tile(np.arange(8), 3),
            "param_error": rng.lognormal(0.0, 1.0, 24),
            "val_rmse": rng.uniform(0.1, 0.6, 24),
        }
    )
    table = pd.DataFrame({"trajectory": names, "cond": [2.5e5, 8.8e5, 2.3e6]})
    fig = figures.excitation_comparison_figure(per_seed, table, "N m")
    errors, rmse = fig.axes
    assert errors.get_yscale() == "log" and rmse.get_ylabel() == "RMSE [N m]"
    mixed = figures.excitation_comparison_figure(per_seed, table, "N m and N mixed")
    assert mixed.axes[1].get_ylabel() == "RMSE [N m and N mixed]"
    ticks = [t.get_text() for t in rmse.get_xticklabels()]
    assert ticks == [
        "designed\ncond 2.5e+05",
        "random\ncond 8.8e+05",
        "file\nexample\ncond 2.3e+06",
    ]
    low, high = rmse.get_ylim()
    assert low <= per_seed["val_rmse"].min() and per_seed["val_rmse"].max() <= high
    assert len(rmse.lines) == 3 * 7  # per box: its outline, 2 whiskers, 2 caps, median, fliers


LIFT_URDF = """<?xml version="1.0"?>
<robot name="lift">
  <link name="base"/>
  <link name="column">
    <inertial><mass value="10.0"/>
      <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  <link name="arm">
    <inertial><origin xyz="0.3 0 0"/><mass value="2.0"/>
      <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.02"/></inertial></link>
  <joint name="lift" type="prismatic"><parent link="base"/><child link="column"/>
    <axis xyz="0 0 1"/><limit lower="0" upper="0.35" effort="2000" velocity="0.07"/></joint>
  <joint name="shoulder" type="revolute"><parent link="column"/><child link="arm"/>
    <origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>
    <limit lower="-2" upper="2" effort="50" velocity="2"/></joint>
</robot>
"""


def test_a_sliding_joints_margins_are_its_own_and_in_m(tmp_path):
    """A lift of 0.07 m/s beside a 2 rad/s shoulder: one velocity margin for both had to stay
    below 0.07, and the refusal spoke of rad/s; margins are per joint, in m and m/s there."""
    path = tmp_path / "lift.urdf"
    path.write_text(LIFT_URDF)
    lift = loaders.load_robot(path, ["lift", "shoulder"])
    spec = SPEC | {"margins": {"position_rad": [0.01, 0.1], "velocity_rad_s": [0.01, 0.5]}}
    limits, _ = ex.limits_of(lift, spec | {"acceleration_limit_rad_s2": 1.0}, "unit")
    np.testing.assert_allclose(limits.qd_max, [0.06, 1.5])
    np.testing.assert_allclose(limits.q_min, [0.01, -1.9])
    slow = spec | {"margins": {"position_rad": 0.01, "velocity_rad_s": 0.1}}
    pattern = r"velocity_rad_s = 0\.1 m/s is not below lift's URDF velocity limit 0\.07 m/s"
    with pytest.raises(ex.ExcitationError, match=pattern):
        ex.limits_of(lift, slow | {"acceleration_limit_rad_s2": 1.0}, "unit")


def test_the_twins_excitation_keeps_each_joints_urdf_speed(tmp_path):
    """A lift of 0.07 m/s was driven at the twin's 1.2 (rad or m)/s; the shoulder keeps it."""
    path = tmp_path / "lift.urdf"
    path.write_text(LIFT_URDF)
    lift = loaders.load_robot(path, ["lift", "shoulder"])
    trajectory = twin.excitation(lift, seed=1, order=5, period_s=10.0)
    _, dq, _ = trajectory.evaluate_joints(np.linspace(0.0, 10.0, 1000, endpoint=False))
    peak = np.abs(dq).max(axis=0)
    assert peak[0] == pytest.approx(0.07, rel=1e-9) and 0.5 < peak[1] <= 1.2 + 1e-12


def test_a_design_that_barely_moves_is_stopped_naming_the_spans():
    """A design whose limits leave it no room (a 0.5 s period: spans of 0.004-0.06 rad, 5,705 N m
    of validation error) is stopped, not written with `feasible: true`; a moving one passes."""
    from paramid.excitation.fourier import FourierTrajectory

    still = FourierTrajectory(np.zeros(2), np.full((2, 3), 1e-3), np.zeros((2, 3)), 2 * np.pi)
    t = np.linspace(0.0, 1.0, 200, endpoint=False)
    with pytest.raises(
        ex.ExcitationError,
        match=r"robots\.arm\.excitation: .* unit norm\) is 4e\+06 \(> 10000\); its joints span "
        r"j1 0\.00046 rad, j2 0\.00046 m\. .*lower base_frequency_hz",
    ):
        ex.poor_excitation({"cond_scaled": 4e6}, still, ["j1", "j2"], t, "arm", ["j2"])
    assert ex.poor_excitation({"cond_scaled": 8.8}, still, ["j1", "j2"], t, "arm") is None


def test_a_design_a_random_trajectory_beats_is_warned_of():
    """A feasible compared trajectory with lower parameter error (p < 0.05) and validation
    RMSE than the design is named; one that is not significant, or infeasible, is not."""
    table = pd.DataFrame(
        {
            "trajectory": ["designed", "random", "file_a", "file_b"],
            "param_error_median": [4.0, 1.0, 1.0, 1.0],
            "val_rmse_median": [5.45, 0.37, 0.37, 0.37],
            "p_value": [np.nan, 0.017, 0.3, 0.001],
            "feasible": [True, True, True, False],
        }
    )
    warnings = ex.outperformed(table, "arm")
    assert len(warnings) == 1 and warnings[0].startswith(
        "robots.arm.excitation: the random trajectory identifies the twin better than the design "
        "(median parameter error 1 against 4, p = 0.017; validation RMSE 0.37 against 5.45 N m)"
    )
    assert ex.outperformed(table.iloc[[0, 2, 3]], "arm") == []


@settings(deadline=None)
@given(seed=st.integers(0, 2**32 - 1), order=st.integers(1, 6), period=st.floats(0.5, 30.0))
def test_no_excitation_within_the_limits_outruns_the_reachable_acceleration(seed, order, period):
    """Bernstein's bound holds: any Fourier excitation scaled into the position and velocity
    limits accelerates at most ``reachable_acceleration``, and a top-harmonic sine touches it."""
    from paramid.excitation.fourier import FourierTrajectory, JointLimits

    rng = np.random.default_rng(seed)
    omega_f = 2 * np.pi / period
    limits = JointLimits([-1.0, -0.2], [1.0, 0.2], [1.2, 0.8], [1.0, 1.0])
    a, b = rng.normal(size=(2, 2, order))
    t = np.linspace(0.0, period, 4000, endpoint=False)
    shape = FourierTrajectory(np.zeros(2), a, b, omega_f)
    q, dq, _ = shape.evaluate_joints(t)
    scale = np.minimum(limits.q_max / np.abs(q).max(axis=0), limits.qd_max / np.abs(dq).max(axis=0))
    _, _, ddq = FourierTrajectory(
        np.zeros(2), a * scale[:, None], b * scale[:, None], omega_f
    ).evaluate_joints(t)
    reach = ex.reachable_acceleration(limits, order, omega_f)
    assert np.all(np.abs(ddq).max(axis=0) <= reach * (1 + 1e-9))
    top = np.zeros((2, order))
    top[:, -1] = np.minimum(limits.qd_max, order * omega_f * limits.q_max)  # Eq 8: q̇'s amplitude
    _, _, ddq = FourierTrajectory(np.zeros(2), top, np.zeros((2, order)), omega_f).evaluate_joints(
        t
    )
    np.testing.assert_allclose(np.abs(ddq).max(axis=0), reach, rtol=1e-5)


def test_acceleration_limits_in_degrees_are_warned_of(robot):
    """gen3_twin's limits (the Franka's, 2.6-8.1x what its 13.3 s design can reach) pass; the
    same numbers in deg/s² name each joint with its value read as degrees."""
    limits, _ = ex.limits_of(robot, SPEC, "unit")
    assert ex.loose_acceleration(limits, 2, 2 * np.pi * 0.2, JOINTS, "unit") is None
    gen3 = loaders.load_robot(URDF, [f"joint_{k}" for k in range(1, 8)])
    shipped = SPEC | {"acceleration_limit_rad_s2": [15, 7.5, 10, 12.5, 15, 20, 20]}
    limits, _ = ex.limits_of(gen3, shipped, "gen3_twin")
    ratio = limits.qdd_max / ex.reachable_acceleration(limits, 5, 2 * np.pi * 0.075)
    np.testing.assert_allclose([ratio.min(), ratio.max()], [2.6, 8.1], atol=0.05)
    assert ex.loose_acceleration(limits, 5, 2 * np.pi * 0.075, gen3.joints, "gen3_twin") is None
    in_degrees = SPEC | {"acceleration_limit_rad_s2": list(np.rad2deg([7.5, 12.5, 20]))}
    limits, _ = ex.limits_of(robot, in_degrees, "unit")
    warning = ex.loose_acceleration(limits, 2, 2 * np.pi * 0.2, JOINTS, "unit")
    assert warning.startswith("robots.unit.excitation.acceleration_limit_rad_s2 bounds nothing on")
    for joint, rad in zip(JOINTS, ["7.5", "12.5", "20"], strict=True):
        assert f"{joint} " in warning and f"as deg/s² {rad} rad/s²" in warning
    assert "give them in rad/s²" in warning
    slide = ex.loose_acceleration(limits, 2, 2 * np.pi * 0.2, JOINTS, "unit", JOINTS[2:])
    assert f"{JOINTS[2]} {np.rad2deg(20):.4g} m/s² (reachable " in slide  # no degrees to mistake
    assert f"{JOINTS[0]} " in slide and "give them in rad/s²" in slide
    only_slides = ex.loose_acceleration(limits, 2, 2 * np.pi * 0.2, JOINTS, "unit", JOINTS)
    assert "deg" not in only_slides


def test_the_trajectory_figure_draws_acceleration_limits_near_the_curve_and_names_far_ones():
    """A limit near the design's peak is drawn dashed; one far above it (that would flatten the
    curve) is written beside its panel, with its unit; each joint's axes in its units (a
    prismatic one's m)."""
    from paramid.excitation.fourier import FourierTrajectory
    from paramid.robot.figures import excitation_figure

    trajectory = FourierTrajectory(np.zeros(2), [[0.5, 0.0], [0.5, 0.0]], np.zeros((2, 2)), 1.0)
    limits = {"q_min": [-1, -1], "q_max": [1, 1], "qd_max": [1, None], "qdd_max": [0.6, 20.0]}
    units = {
        f"{c}_{j}": u
        for j, unit in (("near", "rad"), ("far", "m"))
        for c, u in zip(("q", "dq", "ddq"), (unit, f"{unit}/s", f"{unit}/s^2"), strict=True)
    }
    fig = excitation_figure(trajectory, ["near", "far"], limits, units)
    near, far = fig.axes[2], fig.axes[5]
    assert near.get_ylabel() == "q̈ [rad/s²]" and fig.axes[3].get_ylabel() == "far\nq [m]"
    assert far.get_ylabel() == "q̈ [m/s²]"  # a prismatic joint's, in its own units
    assert [line.get_ydata()[0] for line in near.lines[1:]] == [-0.6, 0.6]
    assert len(far.lines) == 1 and [text.get_text() for text in far.texts] == ["limit ±20 m/s²"]
    assert len(fig.axes[4].lines) == 1  # no velocity limit: none drawn
    assert abs(far.get_ylim()[1]) < 2


def test_a_joint_without_an_effort_limit_is_warned_of(tmp_path):
    """effort="0" (a CAD exporter's) leaves the joint's torque unbounded: named, with the file."""
    path = tmp_path / "lift.urdf"
    path.write_text(LIFT_URDF.replace('effort="50"', 'effort="0"'))
    lift = loaders.load_robot(path, ["lift", "shoulder"])
    physical = ex.physical_of(lift, SPEC)
    assert np.isinf(physical.effort[1]) and np.isfinite(physical.effort[0])
    warning = ex.unbounded_effort(lift, physical, "arm")
    assert warning.startswith(f"robots.arm.excitation: shoulder has no effort limit in {path}")
    path.write_text(LIFT_URDF)
    bounded = loaders.load_robot(path, ["lift", "shoulder"])
    assert ex.unbounded_effort(bounded, ex.physical_of(bounded, SPEC), "arm") is None


def test_twin_errors_leave_out_base_parameters_whose_truth_is_zero():
    """A disc on a horizontal axis, centred on it, has two base parameters whose truth is zero
    (m x, m z): divided by |truth|, their float-residue errors (~1e13 relative) decided the
    median; the median is over the base parameters with a truth (here I_yy's error alone)."""
    urdf = (
        '<robot name="wheel"><link name="base"/><link name="disc"><inertial><origin xyz="0 0 0"/>'
        '<mass value="2"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.03" iyz="0" izz="0.02"/>'
        '</inertial></link><joint name="j1" type="revolute"><parent link="base"/>'
        '<child link="disc"/><origin xyz="0 0 0.5"/><axis xyz="0 1 0"/>'
        '<limit lower="-3" upper="3" effort="50" velocity="3"/></joint></robot>'
    )
    wheel = model.robot_from_urdf(urdf, "wheel.urdf", ["j1"], friction=())
    structure = base.structural_base(wheel, loaders.BASE_REL_TOL)
    assert structure.names == ("mx_disc", "mz_disc", "Iyy_disc")
    setup = ex.TwinSetup(
        robot=wheel,
        base=structure,
        theta=twin.true_parameters(wheel, 0, 0.2, **loaders.TWIN_FRICTION),
        sigma=np.full(1, 0.05),
        rate_hz=200.0,
        validation=twin.excitation(wheel, 2, 5, 10.0),
        validation_s=10.0,
    )
    beta = ex.to_base(setup.theta, structure)
    assert np.all(np.abs(beta[:2]) <= ZERO_TRUTH) and beta[2] > 0.01
    errors = ex.twin_errors(setup, twin.excitation(wheel, 5, 5, 10.0), 2, range(3))
    assert np.all((errors["param_error"] > 0) & (errors["param_error"] < 0.1))
    relative = relative_error(np.array([[0.0, 1e-17], [3e-3, 0.0], [1.1, 0.9]]), [0.0, 0.0, 1.0])
    assert np.isnan(relative[:2]).all() and relative[2] == pytest.approx([0.1, 0.1])


def test_a_prismatic_joints_channels_are_stated_in_m_and_n(tmp_path):
    """The records', signals' and predictions' Parquet units and the torque figure's axis of a
    prismatic joint: m, m/s, m/s², N (they said rad and N m for every joint)."""
    from paramid.robot import study
    from paramid.robot.signals import ProcessedRecord

    path = tmp_path / "lift.urdf"
    path.write_text(LIFT_URDF)
    lift = loaders.load_robot(path, ["lift", "shoulder"])
    units = model.joint_units(lift)
    assert [u["q"] for u in units] == ["m", "rad"] and [u["tau"] for u in units] == ["N", "N m"]
    time = np.arange(4) / 100.0
    states = {c: np.ones((4, 2)) for c in ("q", "dq", "ddq", "tau")}
    part = ProcessedRecord(time=time, sample_rate_hz=100.0, cutoff_hz=10.0, **states)
    _, column_units, _ = study.signals_frame(part, lift.joints, units)
    assert column_units["ddq_lift"] == "m/s^2" and column_units["tau_shoulder"] == "N m"
    assert study.units_of(column_units, lift.joints) == units  # read back from the metadata
    frame, predicted = study.prediction_frame(lift.joints, {"r": (part, states["tau"])}, units)
    assert predicted["tau_pred_lift"] == "N" and predicted["tau_meas_shoulder"] == "N m"
    from paramid.robot.figures import torque_figure

    fig = torque_figure({"ols": frame}, lift.joints, ["r"], predicted)
    assert [ax.get_ylabel() for ax in fig.axes[:2]] == ["lift\n[N]", "shoulder\n[N m]"]


def test_an_effort_limit_binds_the_torque_in_both_directions(robot, designed):
    """The effort check is on |τ|: the same design with every torque negated (a joint pushing
    the other way) has the same excess over the effort, and a limit below its peak |τ| stops
    the run whichever sign the peak has."""

    result, _, _, physical = designed

    class Negated(ex.Physical):
        def torque(self, robot, q, dq, ddq):
            return -super().torque(robot, q, dq, ddq)

    negated = Negated(physical.effort, physical.effort_urdf, physical.floor, physical.clearance)
    t = ex.fine_grid(result.trajectory, SPEC["grid_points"], 10)
    for used in (True, False):
        np.testing.assert_allclose(
            negated.excess(robot, result.trajectory, t, used)["effort"],
            physical.excess(robot, result.trajectory, t, used)["effort"],
            rtol=1e-12,
        )
    reached = np.abs(physical.torque(robot, *result.trajectory.evaluate_joints(t))).max(axis=0)
    for j, joint in enumerate(JOINTS):
        for side in (physical, negated):
            limit = side.effort_urdf.copy()
            limit[j] = 0.5 * reached[j]
            with pytest.raises(ex.ExcitationError, match=rf"breaks its effort limit \({joint} by "):
                ex.crossed_limits(
                    robot, result.trajectory, replace(side, effort_urdf=limit), t, "u"
                )


def test_the_design_keeps_to_the_urdfs_effort_less_its_margin(robot):
    """Effort used by the design = (1 - effort_margin) x the URDF's <limit effort> (read from
    the XML here), the URDF's own kept beside it; a joint without one is unbounded."""
    joints = {j.get("name"): j for j in ET.parse(URDF).getroot().iter("joint")}
    effort = np.array([float(joints[name].find("limit").get("effort")) for name in JOINTS])
    physical = ex.physical_of(robot, SPEC)
    np.testing.assert_allclose(physical.effort_urdf, effort)
    np.testing.assert_allclose(physical.effort, (1 - SPEC["effort_margin"]) * effort)
    assert np.all(physical.effort < physical.effort_urdf)


def test_the_design_regressor_smooths_the_coulomb_column_at_the_surrogate_velocity(
    robot, structural
):
    """With a smoothing velocity v_s > 0 the design's regressor is the base regressor of the
    robot whose Coulomb law is tanh(q̇/v_s) (model.with_coulomb); with 0 it is sgn q̇."""
    rng = np.random.default_rng(3)
    q, dq, ddq = (rng.normal(scale=0.5, size=(40, 3)) for _ in range(3))
    fn = ex.design_regressor(robot, structural)
    for v_s in (0.0, 0.1):
        smooth = model.with_coulomb(robot, v_s)
        expected = model.regressor(smooth, q, dq, ddq)[..., structural.independent]
        np.testing.assert_allclose(
            fn(q, dq, ddq, v_s), expected.reshape(-1, structural.rank), rtol=1e-10, atol=1e-10
        )


def test_the_trajectory_figure_draws_a_velocity_limit_where_one_is_given():
    from paramid.excitation.fourier import FourierTrajectory
    from paramid.robot.figures import excitation_figure

    trajectory = FourierTrajectory(np.zeros(2), [[0.5, 0.0], [0.5, 0.0]], np.zeros((2, 2)), 1.0)
    limits = {"q_min": [-1, -1], "q_max": [1, 1], "qd_max": [0.8, None], "qdd_max": [0.6, 20.0]}
    units = {
        f"{c}_{j}": u
        for j in ("a", "b")
        for c, u in (("q", "rad"), ("dq", "rad/s"), ("ddq", "rad/s^2"))
    }
    fig = excitation_figure(trajectory, ["a", "b"], limits, units)
    assert [line.get_ydata()[0] for line in fig.axes[1].lines[1:]] == [-0.8, 0.8]
    assert [line.get_ydata()[0] for line in fig.axes[0].lines[1:]] == [-1, 1]
    assert fig.axes[1].get_ylabel() == "q̇ [rad/s]"


def test_each_comparison_panel_boxes_its_own_column():
    """(a)'s boxes are the parameter errors, (b)'s the validation RMSEs, per trajectory."""
    from paramid.robot import figures

    rng = np.random.default_rng(0)
    names = ["designed", "random"]
    per_seed = pd.DataFrame(
        {
            "trajectory": np.repeat(names, 7),
            "seed": np.tile(np.arange(7), 2),
            "param_error": rng.lognormal(-4.0, 1.0, 14),
            "val_rmse": rng.uniform(0.1, 0.6, 14),
        }
    )
    table = pd.DataFrame({"trajectory": names, "cond": [2.5e5, 8.8e5]})
    fig = figures.excitation_comparison_figure(per_seed, table, "N m")
    for ax, column in zip(fig.axes, ("param_error", "val_rmse"), strict=True):
        flat = [
            line.get_ydata()[0]
            for line in ax.lines
            if len(set(line.get_ydata())) == 1 and len(line.get_ydata()) == 2
        ]
        for name in names:
            median = per_seed.loc[per_seed.trajectory == name, column].median()
            assert any(np.isclose(y, median) for y in flat), (column, name)


def test_design_warnings_are_empty_for_a_sound_design_and_follow_their_order(robot, designed):
    """robot_excitation_design's warnings: none for the shipped-like design; limits in deg/s²
    and a joint without an effort limit give one warning each, the acceleration's first."""
    result, limits, _, physical = designed
    assert ex.design_warnings(robot, result, limits, physical, SPEC, "unit") == []
    in_degrees = SPEC | {"acceleration_limit_rad_s2": list(np.rad2deg([7.5, 12.5, 20]))}
    loose, _ = ex.limits_of(robot, in_degrees, "unit")
    free = replace(physical, effort_urdf=np.array([np.inf, *physical.effort_urdf[1:]]))
    loose_text = ex.loose_acceleration(loose, 2, 2 * np.pi * 0.2, JOINTS, "unit")
    warned = ex.design_warnings(robot, result, loose, free, in_degrees, "unit")
    assert warned == [loose_text, ex.unbounded_effort(robot, free, "unit")]
    assert warned[0].startswith("robots.unit.excitation.acceleration_limit_rad_s2 bounds nothing")
    assert warned[1].startswith("robots.unit.excitation: joint_2 has no effort limit in")


def test_the_checked_summary_carries_the_warnings_and_stops_a_still_design(
    robot, structural, designed
):
    """design.json is design_summary's with the warnings; a design that barely moves stops."""
    from paramid.excitation.fourier import FourierTrajectory

    result, limits, urdf, physical = designed
    args = (robot, structural, limits, urdf, physical, SPEC, "unit")
    summary = ex.checked_summary(result, *args, ["a warning"])
    plain = ex.design_summary(result, robot, structural, limits, urdf, physical, SPEC)
    assert summary.pop("warnings") == ["a warning"]
    assert summary.keys() == plain.keys() and summary["scores"] == plain["scores"]
    n, order = robot.n_joints, result.trajectory.order
    still = FourierTrajectory(
        result.trajectory.q0, np.full((n, order), 1e-6), np.zeros((n, order)), 2 * np.pi * 0.2
    )
    with pytest.raises(ex.ExcitationError, match=r"excites the base parameters poorly"):
        ex.checked_summary(replace(result, trajectory=still), *args, [])


def test_coefficient_files_read_each_compare_entry_at_the_designs_order(robot, tmp_path):
    """Each `compare:` entry's file, in order, read at the designed trajectory's order and
    base frequency with the entry's `constant`; a file missing for an entry is an error."""
    path = tmp_path / "c.csv"
    original = _coefficients(robot, path)
    table = (pd.read_csv(path), path)
    entries = [
        {"name": "as_offset", "constant": "offset"},
        {"name": "as_start", "constant": "start"},
    ]
    files = ex.coefficient_files(entries, [table, table], robot.joints, original)
    assert list(files) == ["as_offset", "as_start"]
    np.testing.assert_allclose(files["as_offset"].theta, original.theta)
    assert files["as_offset"].omega_f == original.omega_f
    q_start = files["as_start"].evaluate_joints(np.zeros(1))[0][0]
    np.testing.assert_allclose(q_start, original.q0, atol=1e-12)
    with pytest.raises(ValueError):
        ex.coefficient_files(entries, [table], robot.joints, original)


def test_a_design_for_other_base_columns_must_be_rebuilt(structural):
    """design.json names the base columns it was made for; other columns name the file."""
    columns = {"independent": structural.independent.tolist()}
    ex.check_design_base({"base_columns": columns}, structural, "d/design.json")
    other = {"independent": structural.independent.tolist()[:-1]}
    with pytest.raises(RuntimeError, match="d/design.json: base columns differ"):
        ex.check_design_base({"base_columns": other}, structural, "d/design.json")


def test_the_worst_excess_is_the_largest_over_every_limit():
    """Negative margins everywhere but one 0.05 excess: 0.05; all met: the least negative."""
    assert ex.worst_excess({"q_min": -0.2, "qd_max": 0.05, "effort": -1.0}) == 0.05
    assert ex.worst_excess({"q_min": -0.2, "qdd_max": -3.0}) == -0.2
