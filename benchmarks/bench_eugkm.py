"""Speed and memory of EUGkM on 1,000,000 x 2 points (the Gowalla stand-in scaled up), k = 5.

Usage::

    .venv/bin/python benchmarks/bench_eugkm.py [--n 1000000] [--repeats 5]

For several epsilon and numbers of initialisations (the thesis uses 30 sphere-packing inits), prints the median
and minimum wall time of ``EUGkM.fit`` and its two parts — building the noisy synopsis (scaling, clipping, binning
with ``np.ravel_multi_index`` + ``np.bincount``, Laplace noise on every cell) and weighted Lloyd on the synopsis —
plus the peak extra memory measured with ``tracemalloc`` against the size of the data and of the grid. Writes
``benchmarks/results/eugkm.md``.

With ``--k-table`` it instead reproduces the thesis's k-estimation Tables 4.3–4.5 on the six full-size stand-ins:
``choose_k`` (one EUGkM synopsis, RT-validity) repeated ``--runs`` times per epsilon, reporting how often each k is
chosen and its mean synopsis validity, plus the non-private row (best-of-Lloyd centroids, validity on the data);
written to ``benchmarks/results/choose_k.md``. One BLAS thread (``OPENBLAS_NUM_THREADS=1``): multithreaded BLAS is several times
slower on the shared 2-core machine. Timings on a machine shared with other jobs are inflated; the minimum of the
repeats is the least disturbed figure.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from dpclust_book.datasets import (make_adult_num_like, make_gowalla_like, make_image_like,  # noqa: E402
                                   make_lifesci_like, make_s1_like, make_tiger_like)
from dpclust_core.preprocessing import scale_to_domain  # noqa: E402
from dpclust_book.evaluation import rt_validity  # noqa: E402
from dpclust_core.kmeans import (EUGkM, best_of_lloyd, cells_per_dimension, choose_k, eugkm_grid_size,  # noqa: E402
                                 noisy_grid_synopsis)

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "eugkm.md"
K_RESULTS = ROOT / "benchmarks" / "results" / "choose_k.md"


def k_table(runs, n_init):
    sets = {"S1": (make_s1_like(random_state=0)[0], range(2, 17)),
            "Gowalla": (make_gowalla_like(random_state=0)[0], range(2, 7)),
            "TIGER": (make_tiger_like(random_state=0)[0], range(2, 5)),
            "Image": (make_image_like(random_state=0)[0], range(2, 5)),
            "Adult-num": (make_adult_num_like(random_state=0)[0], range(2, 7)),
            "Lifesci": (make_lifesci_like(random_state=0)[0], range(2, 8))}
    lines = [f"k chosen by choose_k (one EUGkM synopsis, RT-validity, {n_init} inits per k) over {runs} runs per "
             "epsilon, full-size stand-ins; each cell 'k (share of runs, mean synopsis validity)'; the inf row is "
             "the non-private ranking (best of 10 Lloyd runs, validity on the data).", "",
             "| dataset | epsilon | top 1 | top 2 | top 3 | top 4 |", "|---|---|---|---|---|---|"]
    t0 = time.perf_counter()
    for name, (X, kr) in sets.items():
        for eps in (0.05, 0.1, 0.3, 0.5, 1.0, 2.0):
            picks, vals = [], {}
            for s in range(runs):
                res = choose_k(X, eps, kr, n_init=n_init, random_state=s)
                picks.append(res.k_)
                vals.setdefault(res.k_, []).append(res.scores_[res.k_])
            order = sorted(set(picks), key=lambda k: (-picks.count(k), k))[:4]
            cells = [f"{k} ({picks.count(k) / runs:.2f}, {np.mean(vals[k]):.4f})" for k in order]
            lines.append(f"| {name} | {eps} | " + " | ".join(cells + [""] * (4 - len(cells))) + " |")
            print(lines[-1], flush=True)
        v = {k: rt_validity(X[::max(1, len(X) // 20000)], best_of_lloyd(X, k, 10, rng=0)[0]) for k in kr}
        order = sorted(v, key=v.get)[:4]
        lines.append(f"| {name} | inf | " + " | ".join(f"{k} ({v[k]:.4f})" for k in order)
                     + " |" * (5 - len(order)))
        print(lines[-1], flush=True)
    lines.append(f"\nTotal time {time.perf_counter() - t0:.0f} s (shared 2-core machine).")
    text = "\n".join(lines)
    K_RESULTS.write_text(text + "\n")
    print(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--k-table", action="store_true", help="reproduce the k-estimation tables instead")
    ap.add_argument("--runs", type=int, default=5, help="runs per epsilon for --k-table")
    ap.add_argument("--n-init", type=int, default=5, help="inits per k for --k-table")
    args = ap.parse_args()
    if args.k_table:
        return k_table(args.runs, args.n_init)
    X, _ = make_gowalla_like(args.n, random_state=0)
    n, d = X.shape
    EUGkM(args.k, 0.1, n_init=2, random_state=99).fit(X[:10_000])  # warm-up
    rows = []
    for eps in (0.1, 0.5, 1.0):
        for n_init in (30, 1):
            times = []
            for s in range(args.repeats):
                t = time.perf_counter()
                est = EUGkM(args.k, eps, n_init=n_init, random_state=s).fit(X)
                times.append(time.perf_counter() - t)
                assert abs(est.ledger_.epsilon - eps) <= 1e-12 * eps
            # the synopsis part alone
            m = cells_per_dimension(eugkm_grid_size(n, eps, d), d)
            syn_t = []
            for s in range(args.repeats):
                t = time.perf_counter()
                noisy_grid_synopsis(scale_to_domain(X, (-1.0, 1.0)), m, eps, 1.0, rng=s)
                syn_t.append(time.perf_counter() - t)
            tracemalloc.start()
            EUGkM(args.k, eps, n_init=n_init, random_state=0).fit(X)
            _, peak = tracemalloc.get_traced_memory()
            tracemalloc.stop()
            rows.append((eps, n_init, m * m, np.median(times), np.min(times), np.median(syn_t), peak / 2 ** 20))
    data_mb = X.nbytes / 2 ** 20
    lines = [f"EUGkM on the Gowalla stand-in, N = {n:,}, d = {d}, k = {args.k}, {args.repeats} repeats "
             f"(data: {data_mb:.1f} MiB; OPENBLAS_NUM_THREADS=1; shared 2-core machine, timings inflated by other jobs)",
             "",
             "| epsilon | n_init | cells m^d | fit median (s) | fit min (s) | synopsis only, median (s) | peak extra memory (MiB) |",
             "|---|---|---|---|---|---|---|"]
    for eps, n_init, cells, med, mn, syn, peak in rows:
        lines.append(f"| {eps} | {n_init} | {cells:,} | {med:.3f} | {mn:.3f} | {syn:.3f} | {peak:.1f} |")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
