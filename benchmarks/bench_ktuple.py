"""Benchmark of dpclust_core.ktuple (Cohen et al., ICML 2021): speed, and the paper's Test1/Test3 shapes.

Run: ``.venv/bin/python benchmarks/bench_ktuple.py`` (a few minutes on 2 busy cores). Prints two tables and writes
``benchmarks/results/ktuple.md``:

1. wall time of GoodCenters, PrivatekNoisyCenters and PrivatekAverages against the number of tuples n
   (k = 2, d = 4, eps = 4, simulated tuples; median of 3 runs);
2. sample complexity of PrivatekNoisyCenters against k (Test1: d = 10, R = 20) and d (Test3: k = 2, R = 20),
   eps = 4, delta = 1e-6, beta = 0.05: n at its minimum, samples per tuple searched on the grid 250 * 2^j, success =
   at least 4 of 5 runs recover the centres (spec §3.2). PrivatekAverages is measured once per row at n = 1e5 tuples
   with 50 (k/2) samples per tuple (1 run), to show whether it works at that size.

All settings are the spec's tutorial proposals (§3.3); the paper's values are lost.
"""
from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from dpclust_book.experiments.ktuple import ktuple_trials, simulate_tuples
from dpclust_core.ktuple import (PrivatekAverages, PrivatekNoisyCenters, good_centers, min_tuples_noisy_centers,
                                 noisy_centers_min_gamma)

EPS, DELTA, BETA, R = 4.0, 1e-6, 0.05, 20.0


def timing_table():
    rows = []
    k, d = 2, 4
    C = R * np.eye(k, d)
    rng = np.random.default_rng(0)
    for n in (1_000, 10_000, 100_000, 1_000_000):
        T = simulate_tuples(C, n, 0.005, rng)
        out = {}
        for name, fn in (("GoodCenters", lambda: good_centers(T, EPS / 2, 1e-8, BETA, 10.0, rng)),
                         ("NoisyCenters", lambda: PrivatekNoisyCenters(k, EPS, DELTA, random_state=1).cluster(T)),
                         ("kAverages", lambda: PrivatekAverages(k, EPS, DELTA, radius=2 * R + 10, r_min=0.01,
                                                                random_state=1).cluster(T))):
            ts = []
            for _ in range(3):
                t0 = time.perf_counter()
                fn()
                ts.append(time.perf_counter() - t0)
            out[name] = float(np.median(ts))
        rows.append((n, out))
    return rows


def min_samples_nc(k, d, rng, reps=5, start=250):
    C = R * np.eye(k, d)
    n = min_tuples_noisy_centers(k, EPS, DELTA)
    N = start
    while N <= 2**22:
        r = ktuple_trials(lambda s: PrivatekNoisyCenters(k, EPS, DELTA, random_state=s), C, n, reps, rng,
                          samples_per_tuple=N)
        if r["success_rate"] >= 0.8:
            return n, N
        N *= 2
    return n, None


def avg_works(k, d, rng):
    C = R * np.eye(k, d)
    r = ktuple_trials(lambda s: PrivatekAverages(k, EPS, DELTA, radius=2 * R + 10, r_min=0.01, random_state=s), C,
                      100_000, 1, rng, samples_per_tuple=25 * k)
    return r["success_rate"], r["median_error"]


def sample_complexity_table():
    rng = np.random.default_rng(1)
    rows = []
    for label, k, d in [("Test1", 2, 10), ("Test1", 4, 10), ("Test1", 6, 10), ("Test1", 8, 10),
                        ("Test3", 2, 2), ("Test3", 2, 8), ("Test3", 2, 32)]:
        t0 = time.perf_counter()
        n, N = min_samples_nc(k, d, rng)
        ok, err = avg_works(k, d, rng)
        rows.append((label, k, d, noisy_centers_min_gamma(k, d, EPS, DELTA), n, N, None if N is None else n * N,
                     ok, err, time.perf_counter() - t0))
    return rows


def main():
    lines = ["# k-tuple clustering benchmark", "",
             "Machine: the project's 2-core box, shared (timings inflated by contention).", ""]
    print("1. wall time (s), k=2, d=4, eps=4, median of 3")
    lines += ["## 1. Wall time (s), k = 2, d = 4, eps = 4 (median of 3)", "",
              "| n tuples | GoodCenters | PrivatekNoisyCenters | PrivatekAverages |", "|---|---|---|---|"]
    for n, out in timing_table():
        print(f"  n={n:>9,d}  GoodCenters {out['GoodCenters']:.3f}  NoisyCenters {out['NoisyCenters']:.3f}  "
              f"kAverages {out['kAverages']:.3f}")
        lines.append(f"| {n:,d} | {out['GoodCenters']:.3f} | {out['NoisyCenters']:.3f} | {out['kAverages']:.3f} |")
    print("\n2. sample complexity (eps=4, R=20)")
    lines += ["", "## 2. Sample complexity, eps = 4, delta = 1e-6, R = 20", "",
              "| test | k | d | Gamma | n (min) | NC samples/tuple | NC total | kAverages success at n=1e5 | "
              "kAverages error | time (s) |", "|---|---|---|---|---|---|---|---|---|---|"]
    for label, k, d, g, n, N, tot, ok, err, dt in sample_complexity_table():
        tot_s = "not found" if tot is None else f"{tot:.2e}"
        print(f"  {label} k={k} d={d:>2} Gamma={g:7.0f} n={n} N={N} total={tot_s} | kAverages@1e5 success={ok} "
              f"err={err:.2f} ({dt:.1f}s)")
        lines.append(f"| {label} | {k} | {d} | {g:.0f} | {n} | {N} | {tot_s} | {ok} | {err:.2f} | {dt:.1f} |")
    out = Path(__file__).resolve().parent / "results" / "ktuple.md"
    out.parent.mkdir(exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
