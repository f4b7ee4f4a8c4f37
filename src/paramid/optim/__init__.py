"""One batched optimiser interface for every study (hip identification, CEC2022, calibration).

Objective
    A callable f(X) -> values with X (runs, population, dim) float64 and values
    (runs, population); row i of run r is candidate i of that run.  ``LinearRMSE`` is the
    paper's Eq 13 for a linear-in-parameters model; ``RowwiseObjective`` wraps any row
    function; ``CountingObjective`` counts evaluated rows per run.

Method
    ``method(objective, lower, upper, *, population, iterations, seeds, **settings)``
    returning an ``OptimResult``; ``lower``/``upper`` are (dim,) or (runs, dim); ``seeds``
    holds one ``numpy.random.SeedSequence`` per run, built by the caller with
    ``paramid.seeding.seed_sequence(study, method, run)``.  ``METHODS`` maps names to
    methods (``paramid.optim.registry``: the package imports none of its modules, so a job that
    imports one optimiser's module runs, and reruns with, that optimiser's code alone).
    Every candidate is projected onto [lower, upper] after every update.  A method
    module writes only its search over a validated ``base.Problem``; ``base.optimiser`` gives
    it this interface (and its default budget).

Budget
    The evaluation of the initial population is iteration 1, so ``population`` x
    ``iterations`` is exactly the number of evaluations per run: 30 x 80 = 2400 (mealpy's
    epoch = 79 plus its initialisation).  ``n_evals`` is counted at the objective, never
    inferred.  ``history[:, k]`` is the best-so-far value after (k + 1) x population
    evaluations, an iteration-equivalent axis shared by all methods (the GA reads it
    inside its generations, see ``paramid.optim.genetic``).  Methods whose iterations
    evaluate other than ``population`` points (MIPO, HHO, HO) iterate until the budget is
    spent, truncating the last batch (``paramid.optim.po.Ledger``).

CEC2022 methods (issue #8)
    ``po`` (Lian et al. 2024), ``mipo`` (the MIPO paper's Alg 1), ``woa``, ``hho``, ``ggo``,
    ``sga``, ``ho``; readings of ambiguous text are in ``docs/choices.md``.

KR210 calibration methods (issue #9)
    ``ipso`` (M2) and ``dqpso`` (stage 2 of EKF+DQPSO), our readings of the MIPO-ARKEKF
    paper's references [14] and [15] (``paramid.optim.ipso``, ``paramid.optim.dqpso``).

Schedules
    The update made after iteration g (g = 1..G-1, producing the population evaluated at
    iteration g + 1) uses the fraction t = g/G (``base.progress``): PSO's inertia is
    w0 + (w1 - w0) t, GWO's a = 2(1 - t), AGWO's a = 2(1 - t^mu) (Eq 11-12).

Reproducibility
    All runs advance together in one vectorised call.  Each run draws its random numbers
    from its own generator (SFC64 seeded by its SeedSequence; uniforms of 32-bit
    resolution, ``base.uniform_block``) in blocks whose lengths do not depend on the number
    of runs, and nothing mixes runs (no BLAS, per-run sorts only), so run s gives
    bit-identical results alone or batched with any other seeds.
"""
