"""DPLloyd on a dask.distributed cluster: 10^7, 5*10^7 and 10^8 points generated on the workers, 1 vs 2 workers.

Usage (from the repository root)::

    .venv/bin/python benchmarks/bench_dask.py [--sizes 1e7 5e7 1e8] [--workers 1 2] [--rounds 5]
                                              [--chunk-rows 1000000] [--no-numpy]

For each number of workers a ``distributed.LocalCluster`` (processes, one thread each, loopback, no dashboard)
is started. The data (k = 5 Gaussian blobs in [-1, 1]^2) are a lazy ``dask.array.random`` graph: the workers
generate every block when a round reads it, so nothing of the data exists on the driver, and each round pays
the generation again (as it would pay reading the blocks from storage). Measured per size:

* ``s/round``: wall time of the fit (DPLloyd-Impr, ``n_rounds`` fixed, so every size runs the same rounds)
  divided by the rounds; ``ns/point/round``: the same per point — flat when the cost is linear in n;
* ``CPU ns/point/round``: the CPU time of the workers (user + system, summed over the worker processes, read
  with psutil through ``Client.run``) per point and round — the work itself, much less sensitive than wall
  time to other jobs sharing the machine (for the NumPy reference: this process's CPU time);
* ``gen pass (s)``: one pass that only generates the data and sums it (the floor of a round's cost);
* ``driver peak (MiB)``: the peak resident memory of this process (the driver, which also hosts the scheduler)
  during the fit, sampled every 5 ms, and ``driver rise (MiB)``: that peak minus the memory before the fit —
  what the fit itself costs the driver; it must not grow with n.

An in-memory reference (NumPy, this process, one core) is timed at the smallest size unless ``--no-numpy``.
The table is printed and written to ``benchmarks/results/dask.md``.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import dask  # noqa: E402
import distributed  # noqa: E402
import numpy as np  # noqa: E402

from dpclust_book.experiments import scaling  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "dask.md"


def _gen_pass(X):
    t0 = time.perf_counter()
    X.sum(axis=0).compute()
    return time.perf_counter() - t0


def run(sizes, workers, rounds, chunk_rows, numpy_ref):
    rows = []
    for w in workers:
        with distributed.LocalCluster(n_workers=w, threads_per_worker=1, processes=True, dashboard_address=None,
                                      host="127.0.0.1") as cluster, distributed.Client(cluster):
            scaling.time_fit(scaling.lazy_blobs(2 * chunk_rows, chunk_rows=chunk_rows), n_rounds=1)  # warm-up
            for n in sizes:
                X = scaling.lazy_blobs(n, chunk_rows=chunk_rows, seed=1)
                gen = _gen_pass(X)
                r = scaling.time_fit(X, n_rounds=rounds)
                r.update(where=f"dask, {w} worker{'s' if w > 1 else ''}", workers=w, gen_pass=gen)
                rows.append(r)
                print(_line(r), flush=True)
    if numpy_ref:
        n = min(sizes)
        X = scaling.numpy_blobs(n, seed=1)
        r = scaling.time_fit(X, n_rounds=rounds)
        r.update(where="in memory (NumPy, 1 process)", workers=0, gen_pass=float("nan"))
        rows.append(r)
        print(_line(r), flush=True)
        del X
    return rows


def _line(r):
    gen = "-" if np.isnan(r["gen_pass"]) else f"{r['gen_pass']:.2f}"
    return (f"| {r['where']} | {r['n']:,} | {r['rounds']} | {r['seconds_per_round']:.2f} | "
            f"{r['ns_per_point_round']:.0f} | {r['cpu_ns_per_point_round']:.0f} | {gen} | "
            f"{r['driver_peak_mb']:.0f} | {r['driver_rise_mb']:.1f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e7, 5e7, 1e8])
    ap.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--chunk-rows", type=int, default=1_000_000)
    ap.add_argument("--no-numpy", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes]
    t0 = time.perf_counter()
    header = ("| where | n | rounds | s/round | ns/point/round | CPU ns/point/round | gen pass (s) | "
              "driver peak (MiB) | driver rise (MiB) |\n|---|---|---|---|---|---|---|---|---|")
    print(header, flush=True)
    rows = run(sizes, args.workers, args.rounds, args.chunk_rows, not args.no_numpy)
    total = time.perf_counter() - t0
    text = [
        "# DPLloyd on a dask cluster",
        "",
        f"DPLloyd-Impr, k = 5, d = 2, epsilon = 1, {args.rounds} rounds; data: 5 Gaussian blobs in [-1, 1]^2 "
        f"generated on the workers by dask.array.random in blocks of {args.chunk_rows:,} rows (regenerated every "
        f"round). LocalCluster: processes, 1 thread per worker, loopback. Wall clock; driver memory = resident "
        f"memory of the process running the fit (it also hosts the scheduler), sampled every 5 ms.",
        f"machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs (timings inflated by "
        f"contention), numpy {np.__version__}, dask {dask.__version__}, distributed {distributed.__version__}, "
        f"python {platform.python_version()}; total run {total / 60:.1f} min",
        "",
        header,
        *[_line(r) for r in rows],
        "",
    ]
    dk = [r for r in rows if r["workers"] > 0]
    for w in sorted({r["workers"] for r in dk}):
        rr = sorted((r for r in dk if r["workers"] == w), key=lambda r: r["n"])
        ns = [r["ns_per_point_round"] for r in rr]
        cpu = [r["cpu_ns_per_point_round"] for r in rr]
        rise = [r["driver_rise_mb"] for r in rr]
        text.append(f"- {w} worker(s), n = {rr[0]['n']:,} .. {rr[-1]['n']:,}: wall ns/point/round "
                    f"{min(ns):.0f} .. {max(ns):.0f} (max/min {max(ns) / min(ns):.2f}); CPU ns/point/round "
                    f"{min(cpu):.0f} .. {max(cpu):.0f} (max/min {max(cpu) / min(cpu):.2f}); "
                    f"driver rise {min(rise):.1f} .. {max(rise):.1f} MiB")
    for n in sorted({r["n"] for r in dk}):
        by_w = {r["workers"]: r["seconds_per_round"] for r in dk if r["n"] == n}
        if 1 in by_w and 2 in by_w:
            text.append(f"- n = {n:,}: 2 workers are {by_w[1] / by_w[2]:.2f}x faster per round than 1")
    RESULTS.write_text("\n".join(text) + "\n")
    print("\n".join(text[-len(dk):]))
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
