"""Time the bootstrap behind every table's interval: ``paramid.stats.bootstrap_median_diff``
(10 000 replicates of median(a) - median(b), 30 vs 30 runs, as `hip_stats` and the KR210
tables draw them) against scipy's own two-sample ``scipy.stats.bootstrap`` with
``np.median`` as the statistic, in the same run; prints the best of ``--repeats`` for each
and their ratio (ours / scipy's; below 1 is faster).

    python perf/stats.py [--repeats 5] [--replicates 10000]

Ours resamples each group from its own named stream and takes medians by a sort
(``stats.sorted_median``, bit for bit ``np.median``); the peer draws both groups from one
generator.  The replicates differ (other draws), the work is the same.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np
import scipy.stats

from paramid import stats
from paramid.seeding import generator


def _best(call: Callable[[], object], repeats: int) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--replicates", type=int, default=10_000)
    args = parser.parse_args()
    rng = generator("perf", "stats")
    a, b = rng.normal(size=30), rng.normal(size=30)

    def peer() -> object:
        return scipy.stats.bootstrap(
            (a, b),
            lambda u, v, axis: np.median(u, axis=axis) - np.median(v, axis=axis),
            n_resamples=args.replicates,
            vectorized=True,
            method="percentile",
            rng=generator("perf", "stats", "scipy"),
        )

    ours = _best(lambda: stats.bootstrap_median_diff(a, b, n_boot=args.replicates), args.repeats)
    theirs = _best(peer, args.repeats)
    print(f"{args.replicates} replicates of 30 vs 30 runs (best of {args.repeats}):")
    print(f"  paramid.stats.bootstrap_median_diff  {ours * 1e3:8.1f} ms")
    print(f"  scipy.stats.bootstrap (np.median)    {theirs * 1e3:8.1f} ms")
    print(f"  ratio ours / scipy's: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
