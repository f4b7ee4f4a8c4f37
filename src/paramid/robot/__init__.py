"""Dynamic identification of multi-joint robots described by a URDF (issue #16).

- :mod:`~paramid.robot.model`: the robot from a URDF with Pinocchio (joints not identified
  are locked), the standard + friction regressor and inverse dynamics;
- :mod:`~paramid.robot.base`: the model's own base parameters (by
  :mod:`paramid.base_parameters`: pivoted QR of a stacked regressor and the map between base
  and standard parameters, shared with the planar chain);
- :mod:`~paramid.robot.twin`: a digital twin of a real arm (Fourier excitation, friction,
  encoder and current-torque noise) with known ground truth;
- :mod:`~paramid.robot.records`, :mod:`~paramid.robot.signals`,
  :mod:`~paramid.robot.estimators`, :mod:`~paramid.robot.consistency`: joint logs, their
  filtering, the estimators (OLS, WLS, BCLS, LMI, population methods) and the physical
  consistency report.
"""
