# The hip chain of the 1-DOF studies (`studies:`; paramid.hip, helpers in paramid.hip.workflow):
# records (simulated twin, Eq 18/19, or an ingested measured file) -> [hip_cutoff when
# signals.cutoff_hz is auto] -> hip_signals (zero-phase low-pass, central differences, trim,
# §4.1) -> hip_rls (offline RLS, the box [L, U], gamma and mu, §3.1-3.2) -> hip_fit (LS, BCLS)
# and hip_fit_population (all seeds of a population method in one batched job, §4.2).
# hip_fit_population's mem_mb grows with its inputs' size (paramid.workflow.memory_mb: 12 x, its
# peak RSS over its Parquet inputs on a 30 min 1 kHz log). The "prepare" group's rules keep a
# fixed request: Snakemake sizes a group job before the inputs made inside it exist.


rule hip_simulate:
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/hip_simulate_{record}.log",
    wildcard_constraints:
        study=one_of(HIP.twin),
        record=one_of(HIP.records),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.simulate_params,
    script:
        "../../scripts/hip_simulate.py"


rule hip_ingest:
    input:
        HIP.measured_path,
    output:
        "results/{study}/records/{record}.parquet",
    log:
        "logs/{study}/hip_ingest_{record}.log",
    wildcard_constraints:
        study=one_of(HIP.measured),
        record=one_of(HIP.records),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.ingest_params,
    script:
        "../../scripts/hip_ingest.py"


rule hip_cutoff:
    input:
        calibration="results/{study}/records/calibration.parquet",
        validation="results/{study}/records/validation.parquet",
    output:
        choice="results/{study}/signals/cutoff.json",
        csv=report(
            "results/{study}/tables/cutoff.csv",
            caption="../report/hip_cutoff.rst",
            category="{study}",
            subcategory="Signals",
        ),
        md="results/{study}/tables/cutoff.md",
    log:
        "logs/{study}/hip_cutoff.log",
    wildcard_constraints:
        study=one_of(HIP.names),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.cutoff_params,
    script:
        "../../scripts/hip_cutoff.py"


rule hip_signals:
    input:
        record="results/{study}/records/{record}.parquet",
        cutoff=HIP.chosen_cutoff,
    output:
        "results/{study}/signals/{record}.parquet",
    log:
        "logs/{study}/hip_signals_{record}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        record=one_of(HIP.records),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.signals_params,
    script:
        "../../scripts/hip_signals.py"


rule hip_rls:
    input:
        "results/{study}/signals/calibration.parquet",
    output:
        trajectory="results/{study}/rls/trajectory.parquet",
        summary="results/{study}/rls/summary.json",
    log:
        "logs/{study}/hip_rls.log",
    wildcard_constraints:
        study=one_of(HIP.names),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.rls_params,
    script:
        "../../scripts/hip_rls.py"


rule hip_fit:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        bounds=HIP.rls_bounds,
    output:
        "results/{study}/fits/{method}.parquet",
    log:
        "logs/{study}/hip_fit_{method}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        method=one_of(HIP.deterministic),
    group:
        "prepare"
    threads: 1
    resources:
        mem_mb=1000,
        runtime=5,
    params:
        cfg=HIP.fit_params,
    script:
        "../../scripts/hip_fit.py"


rule hip_fit_population:
    input:
        calibration="results/{study}/signals/calibration.parquet",
        validation="results/{study}/signals/validation.parquet",
        bounds=HIP.rls_bounds,
    output:
        fits="results/{study}/fits/{method}.parquet",
        history="results/{study}/histories/{method}.parquet",
    log:
        "logs/{study}/hip_fit_{method}.log",
    wildcard_constraints:
        study=one_of(HIP.names),
        method=one_of(HIP.population),
    group:
        "population"
    threads: 1
    resources:
        mem_mb=memory_mb(2000, 12),
        runtime=20,
    params:
        cfg=HIP.fit_population_params,
    script:
        "../../scripts/hip_fit_population.py"
