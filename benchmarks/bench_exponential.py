"""Speed of the exact exponential mechanism against the Gumbel-max sampler it replaced.

Usage (from the repository root)::

    nice -n 10 .venv/bin/python benchmarks/bench_exponential.py [--quick]

The reference is the package's former sampler, reproduced here as it was: the same checks of the inputs, then
``argmax(logits + Gumbel noise)`` with the logits ``eps (q - max q) / (2Δ)``, one Gumbel draw per option and per
selection (in chunks of 4·10^6 numbers for a batch), and the Gumbel top-k trick for the top-k selection. It is not exact: an option trailing the best by more than
about 40 (in units of ``2Δ/eps``) is never drawn. The new sampler (:func:`dpclust_core.exponential_mechanism`)
inverts a lazily refined uniform against float prefix sums with a rigorous error bound, falling back to exact
Decimal arithmetic near a bucket edge; a batch computes the prefix sums once, then one uniform and one binary
search per selection.

Measured: single selections (one call per selection, as the algorithms make them), batches (``size=``), and the
top-k selection without replacement (``exponential_mechanism_top_k``), for 10^2 ... 10^5 options whose scores are
spread over about 100 units (normal, sd 30, eps = Δ = 1: most options far in the tail). Each entry is the median
of 7 timing runs of both samplers, interleaved round robin after a warm-up; the ratio is new / old (the target:
at most 3 for 10^4 options). The number of draws that took the exact slow path is counted too.

Writes ``benchmarks/results/exponential.md``. ``--quick``: 3 runs and fewer repetitions, printed only.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from dpclust_core import mechanisms  # noqa: E402
from dpclust_core.mechanisms import exponential_mechanism, exponential_mechanism_top_k  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "exponential.md"


# ------------------------------------------------------------------------------------------ the old sampler
def _logits(q, eps, sens):
    """The former ``_em_logits``: the same input checks, then the shifted logits."""
    eps, sens = mechanisms._em_check(sens, eps)
    q = mechanisms._as_scores(q)
    logits = eps * q / (2.0 * sens)
    return logits - logits.max()


def gumbel_single(q, eps, sens, rng):
    logits = _logits(q, eps, sens)
    return int(np.argmax(logits + rng.gumbel(size=logits.shape)))  # not privacy noise: the old sampler, timed


def gumbel_batch(q, eps, sens, rng, n):
    logits = _logits(q, eps, sens)
    out = np.empty(n, dtype=np.int64)
    step = max(1, 4_000_000 // logits.size)
    for a in range(0, n, step):
        b = min(n, a + step)
        g = rng.gumbel(size=(b - a, logits.size))  # not privacy noise: the old sampler, timed
        g += logits
        out[a:b] = np.argmax(g, axis=1)
    return out


def gumbel_top_k(q, k, eps, sens, rng, n):
    logits = _logits(q, eps, sens)
    out = np.empty((n, k), dtype=np.int64)
    step = max(1, 4_000_000 // logits.size)
    for a in range(0, n, step):
        b = min(n, a + step)
        g = rng.gumbel(size=(b - a, logits.size))  # not privacy noise: the old sampler, timed
        g += logits
        top = np.argpartition(-g, k - 1, axis=1)[:, :k]
        order = np.argsort(-np.take_along_axis(g, top, axis=1), axis=1)
        out[a:b] = np.take_along_axis(top, order, axis=1)
    return out


# ------------------------------------------------------------------------------------------ timing
def _median_times(fns, runs):
    """Median wall time of every callable over ``runs`` interleaved runs (after one warm-up each)."""
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(runs):
        for i, f in enumerate(fns):
            t = time.perf_counter()
            f()
            times[i].append(time.perf_counter() - t)
    return [statistics.median(t) for t in times]


def _count_slow_paths(fn):
    calls = []
    original = mechanisms._EMTable._exact_draw

    def counting(self, a, rng):
        calls.append(a)
        return original(self, a, rng)

    mechanisms._EMTable._exact_draw = counting
    try:
        fn()
    finally:
        mechanisms._EMTable._exact_draw = original
    return len(calls)


def run(quick):
    runs = 3 if quick else 7
    rows = []
    for n_opt in (100, 1_000, 10_000, 100_000):
        q = np.random.default_rng(n_opt).normal(0.0, 30.0, n_opt)
        reps = max(5, (200 if not quick else 40) * 1000 // n_opt)
        rng_new, rng_old = np.random.default_rng(1), np.random.default_rng(2)

        def new_single():
            for _ in range(reps):
                exponential_mechanism(q, 1.0, 1.0, rng_new)

        def old_single():
            for _ in range(reps):
                gumbel_single(q, 1.0, 1.0, rng_old)

        t_new, t_old = _median_times([new_single, old_single], runs)
        rows.append(("single selection", n_opt, t_old / reps, t_new / reps))
        size = 10_000 if n_opt <= 10_000 else 1_000
        t_new, t_old = _median_times([lambda: exponential_mechanism(q, 1.0, 1.0, rng_new, size=size),
                                      lambda: gumbel_batch(q, 1.0, 1.0, rng_old, size)], runs)
        rows.append((f"batch, size={size:,}", n_opt, t_old, t_new))
        if n_opt <= 10_000:
            t_new, t_old = _median_times([lambda: exponential_mechanism_top_k(q, 10, 1.0, 1.0, rng_new, size=1000),
                                          lambda: gumbel_top_k(q, 10, 1.0, 1.0, rng_old, 1000)], runs)
            rows.append(("top-10, size=1,000", n_opt, t_old, t_new))
    q = np.random.default_rng(10_000).normal(0.0, 30.0, 10_000)
    n_draws = 200_000 if quick else 1_000_000
    slow = _count_slow_paths(lambda: exponential_mechanism(q, 1.0, 1.0, np.random.default_rng(3), size=n_draws))
    return rows, slow, n_draws, runs


def _fmt_time(t):
    return f"{t * 1e6:,.0f} µs" if t < 1e-2 else f"{t * 1e3:,.1f} ms"


def table(rows):
    lines = ["| what | options | Gumbel-max (old) | exact inversion (new) | new / old |", "|---|---:|---:|---:|---:|"]
    for what, n_opt, old, new in rows:
        lines.append(f"| {what} | {n_opt:,} | {_fmt_time(old)} | {_fmt_time(new)} | {new / old:.2f} |")
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    rows, slow, n_draws, runs = run(args.quick)
    text = "\n".join([
        "# The exact exponential mechanism against Gumbel-max",
        "",
        f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}, "
        f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}; median of {runs} interleaved runs "
        "(`benchmarks/bench_exponential.py`). Scores normal with sd 30, eps = sensitivity = 1. Times are per "
        "selection for single selections, per call otherwise.",
        "",
        table(rows),
        "",
        f"Exact slow path: {slow} of {n_draws:,} draws over 10,000 options.",
        "",
    ])
    print(text)
    if not args.quick:
        RESULTS.write_text(text)
        print(f"wrote {RESULTS}")


if __name__ == "__main__":
    main()
