"""Every optimiser of :mod:`paramid.optim` by name, once (``METHODS``); imported only by what
looks an optimiser up by its name, so that editing one optimiser reruns the jobs that may run
it and no others."""

from __future__ import annotations

from collections.abc import Callable

from paramid.optim.base import OptimResult
from paramid.optim.dqpso import dqpso
from paramid.optim.genetic import ga
from paramid.optim.ggo import ggo
from paramid.optim.grey_wolf import agwo, gwo
from paramid.optim.hho import hho
from paramid.optim.ho import ho
from paramid.optim.ipso import ipso
from paramid.optim.mipo import mipo
from paramid.optim.particle_swarm import pso
from paramid.optim.po import po
from paramid.optim.sga import sga
from paramid.optim.woa import woa

#: Every optimiser by name, once: the hip paper's four; the CEC2022 comparison's (issue #8;
#: budget convention in paramid.optim.po); the KR210 calibration's IPSO (M2) and DQPSO
#: (EKF+DQPSO's second stage, issue #9).
METHODS: dict[str, Callable[..., OptimResult]] = {
    "pso": pso,
    "ga": ga,
    "gwo": gwo,
    "agwo": agwo,
    "po": po,
    "mipo": mipo,
    "woa": woa,
    "hho": hho,
    "ggo": ggo,
    "sga": sga,
    "ho": ho,
    "ipso": ipso,
    "dqpso": dqpso,
}
