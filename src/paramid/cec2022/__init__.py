"""The CEC 2022 optimiser comparison of the MIPO paper (§3.1, Tables 3-4, Figures 6-7).

Modules: ``suite`` (the functions F1-F12, class ``CEC2022``), ``basic`` (their basic
functions), ``kernels`` (numerical kernels), ``data`` (the organisers' data files), ``runs``
(one run job, the ``ALGORITHMS`` registry), ``paper`` (the paper's printed values and the
places its text states), ``study`` (tables, tests, audit) and ``figures``.
"""
