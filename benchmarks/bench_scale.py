"""Linear in n, bounded memory (issue 11): fit time and peak extra memory of every estimator at n = 10^4 ... 10^7.

Usage (from the repository root)::

    OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_scale.py [--sizes 1e4,1e5,1e6,1e7] [--only EUGkM,GkM]
                                                                       [--max-seconds 300] [--quick]

Every estimator is fitted once per n, each fit in a fresh subprocess (so one fit's memory cannot hide another's):
the subprocess builds the data (in chunks, into one preallocated array), warms the estimator up on 2,000 rows,
then resets the kernel's high-water mark of its resident memory (``/proc/self/clear_refs``) and times ``fit``.
**Peak extra memory** = the high-water mark of the resident set during ``fit`` minus the resident set just before
it, reported as a multiple of the data's size (target < 10). **The exponent** is the slope of ``log(time)``
against ``log(n)``: by least squares over all sizes, and between the two largest (fixed costs — initial
centroids, a synopsis of a fixed number of cells, a fixed number of MCMC steps — flatten the small sizes, so the
last slope is the one to read; target ~1).

The data: a mixture of 16 Gaussian clusters in [-1, 1]^8 (centres uniform in [-0.7, 0.7]^8, sd 0.08, clipped),
k = 16, epsilon = 1 (delta = 1e-6 where the estimator takes one), the estimators' defaults otherwise. Smaller
settings where an estimator's cost or data size grows with k or d, stated in the table: the Gaussian mixtures
fit 4 components (a 4-cluster 8-D mixture); the k-tuple estimators cluster n tuples of 2 points in 8-D
(``(n, 2, 8)``: one point near each of 2 centres); WaveCluster works on 2-D data (a 64 x 64 grid: its ``g^d``
cells forbid d = 8); MCMCPostprocessor runs its default 30,000 steps on the transcript of a DPLloyd fit on the
8-D data (the DPLloyd fit is not timed; the sampler's state holds about n points). A size is skipped when the
fit at the previous size, scaled linearly to this size, would exceed ``--max-seconds`` (default 300 s), and the
table says so; a fit that runs past ``--timeout`` is stopped.

Writes ``benchmarks/results/scale.md``. ``--quick``: n = 10^4, 10^5 only.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "scale.md"
B = (-1.0, 1.0)
D = 8
K = 16


# ---------------------------------------------------------------------------------------------- data
def mixture(n, d=D, k=K, seed=0):
    """n points of a k-cluster Gaussian mixture in [-1, 1]^d, built in chunks (no temporary of the full size)."""
    rng = np.random.default_rng(seed)
    C = rng.uniform(-0.7, 0.7, size=(k, d))
    X = np.empty((n, d))
    step = 1 << 20
    for a in range(0, n, step):
        m = min(n, a + step) - a
        X[a:a + m] = C[rng.integers(0, k, m)]
        X[a:a + m] += 0.08 * rng.standard_normal((m, d))  # not privacy noise: synthetic data
    np.clip(X, -1.0, 1.0, out=X)
    return X


def tuples(n, kt=2, d=D, seed=0):
    """n k-tuples (n, kt, d): one point near each of kt fixed centres (an 'easy' instance), in chunks."""
    rng = np.random.default_rng(seed)
    C = rng.uniform(-0.7, 0.7, size=(kt, d))
    T = np.empty((n, kt, d))
    step = 1 << 19
    for a in range(0, n, step):
        m = min(n, a + step) - a
        T[a:a + m] = C
        T[a:a + m] += 0.01 * rng.standard_normal((m, kt, d))  # not privacy noise: synthetic data
    return T


# ---------------------------------------------------------------------------------------------- cases
def _cases():
    """name -> (setting, data(n) -> (fit argument, data bytes), fit(argument) -> None)."""
    from dpclust_core.gmm import NaiveNoisyGaussianMixture, PrivateGaussianMixture
    from dpclust_core.kmeans import (EUGkM, DPLloyd, GkM, HybridKMeans, LSHCoresetKMeans, MkM, PGkM, UGkM,
                                     choose_k)
    from dpclust_core.ktuple import PrivatekAverages, PrivatekNoisyCenters, PrivateKMeansEasy
    from dpclust_core.postprocess import MCMCPostprocessor, Transcript
    from dpclust_core.wavecluster import PrivateWaveCluster, WaveCluster

    def x8(n):
        X = mixture(n)
        return X, X.nbytes

    def est(make):
        return lambda X: make().fit(X)

    kmeans = f"d = {D}, k = {K}"
    cases = {
        "DPLloyd (original)": (kmeans, x8, est(lambda: DPLloyd(K, 1.0, bounds=B, variant="original", random_state=0))),
        "DPLloyd-Impr": (kmeans, x8, est(lambda: DPLloyd(K, 1.0, bounds=B, random_state=0))),
        "UGkM": (kmeans, x8, est(lambda: UGkM(K, 1.0, bounds=B, random_state=0))),
        "EUGkM": (kmeans, x8, est(lambda: EUGkM(K, 1.0, bounds=B, random_state=0))),
        "MkM": (kmeans, x8, est(lambda: MkM(K, 1.0, bounds=B, random_state=0))),
        "HybridKMeans": (kmeans, x8, est(lambda: HybridKMeans(K, 1.0, bounds=B, random_state=0))),
        "GkM": (kmeans, x8, est(lambda: GkM(K, 1.0, bounds=B, random_state=0))),
        "PGkM": (kmeans, x8, est(lambda: PGkM(K, 1.0, bounds=B, random_state=0))),
        "LSHCoresetKMeans": (kmeans, x8, est(lambda: LSHCoresetKMeans(K, 1.0, 1e-6, bounds=B, random_state=0))),
        "PrivateKMeansEasy": (kmeans, x8, est(lambda: PrivateKMeansEasy(K, 1.0, 1e-6, bounds=B, random_state=0))),
        "choose_k": (f"d = {D}, k in 14..18", x8,
                     lambda X: choose_k(X, 1.0, range(14, 19), bounds=B, random_state=0)),
    }

    def x8_4(n):
        X = mixture(n, k=4)
        return X, X.nbytes

    gmm = f"d = {D}, 4 components"
    cases["PrivateGaussianMixture"] = (gmm, x8_4, est(lambda: PrivateGaussianMixture(
        4, 1.0, 1e-6, radius=3.0, random_state=0)))
    cases["NaiveNoisyGaussianMixture"] = (gmm, x8_4, est(lambda: NaiveNoisyGaussianMixture(
        4, 1.0, 1e-6, radius=3.0, random_state=0)))

    def tup(n):
        T = tuples(n)
        return T, T.nbytes

    kt = f"n tuples (n, 2, {D})"
    cases["PrivatekAverages"] = (kt, tup, est(lambda: PrivatekAverages(2, 1.0, 1e-6, radius=3.0, random_state=0)))
    cases["PrivatekNoisyCenters"] = (kt, tup, est(lambda: PrivatekNoisyCenters(2, 1.0, 1e-6, random_state=0)))

    def x2(n):
        X = mixture(n, d=2, k=8)
        return X, X.nbytes

    wc = "d = 2, grid 64 x 64"
    cases["WaveCluster"] = (wc, x2, est(lambda: WaveCluster(grid_size=64, p=10, bounds=B)))
    cases["PrivateWaveCluster (PrivTHR)"] = (wc, x2, est(lambda: PrivateWaveCluster(
        1.0, method="thr", grid_size=64, p=10, bounds=B, random_state=0)))

    def transcript(n):
        X = mixture(n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tr = Transcript.from_dplloyd(DPLloyd(K, 1.0, bounds=B, random_state=0).fit(X))
        return tr, X.nbytes

    cases["MCMCPostprocessor"] = (f"transcript of DPLloyd, d = {D}, k = {K}; 30,000 steps", transcript,
                                  est(lambda: MCMCPostprocessor(30_000, random_state=0)))
    return cases


def _rss_kib(field):
    for line in open("/proc/self/status"):
        if line.startswith(field):
            return int(line.split()[1])
    return 0


def run_one(name, n):
    """In a subprocess: build the data, warm up, time one fit and measure its peak extra resident memory."""
    from dpclust_core import _kernels

    setting, data, fit = _cases()[name]
    arg, nbytes = data(n)
    small, _ = data(2000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit(small)  # warm-up: imports, caches
        del small
        rss0 = _rss_kib("VmRSS")
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")  # reset the high-water mark VmHWM
            hwm_ok = True
        except OSError:
            hwm_ok = False
        t, c = time.perf_counter(), time.process_time()
        with _kernels.single_blas_thread():
            fit(arg)
        wall, cpu = time.perf_counter() - t, time.process_time() - c
    hwm = _rss_kib("VmHWM") if hwm_ok else float("nan")
    extra = max(0.0, (hwm - rss0) * 1024.0)
    print(json.dumps({"name": name, "n": n, "wall": wall, "cpu": cpu, "extra": extra, "data": nbytes}))


# ---------------------------------------------------------------------------------------------- driver
def _slope(ns, ts):
    if len(ns) < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns), np.log(ts), 1)[0])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1e4,1e5,1e6,1e7")
    ap.add_argument("--only", default=None, help="comma-separated estimator names")
    ap.add_argument("--max-seconds", type=float, default=300.0)
    ap.add_argument("--timeout", type=float, default=1200.0)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--one", nargs=2, metavar=("NAME", "N"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        return run_one(args.one[0], int(float(args.one[1])))
    sizes = [10_000, 100_000] if args.quick else [int(float(s)) for s in args.sizes.split(",")]
    names = list(_cases())
    if args.only:
        names = [s.strip() for s in args.only.split(",")]
    rows = []
    for name in names:
        res, note = [], ""
        for i, n in enumerate(sizes):
            if res and res[-1]["wall"] * (n / res[-1]["n"]) * 1.0 > args.max_seconds:
                note = (f"n = {n:.0e} skipped: about {res[-1]['wall'] * n / res[-1]['n']:.0f} s expected "
                        f"(> {args.max_seconds:.0f} s)")
                break
            cmd = [sys.executable, __file__, "--one", name, str(n)]
            try:
                out = subprocess.run(cmd, capture_output=True, text=True, timeout=args.timeout,
                                     env=dict(os.environ, OPENBLAS_NUM_THREADS="1"))
            except subprocess.TimeoutExpired:
                note = f"n = {n:.0e} stopped after {args.timeout:.0f} s"
                break
            line = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
            if out.returncode != 0 or not line:
                err = (out.stderr.strip().splitlines() or ["?"])[-1]
                note = f"n = {n:.0e} failed: {err[:160]}"
                break
            r = json.loads(line[-1])
            res.append(r)
            print(f"{name:30s} n={n:>9,} wall {r['wall']:8.2f} s  cpu {r['cpu']:8.2f} s  "
                  f"extra {r['extra'] / r['data']:6.2f} x data", flush=True)
        rows.append((name, res, note))
    setting = {name: s for name, (s, _, _) in _cases().items()}
    head = " | ".join(f"n = 10^{int(round(math.log10(n)))} (s)" for n in sizes)
    lines = ["# Scaling in n: fit time and peak extra memory (issue 11)", "",
             "`benchmarks/bench_scale.py` (method in its docstring): one fit per n in a fresh process; wall time of "
             "`fit`; exponent = slope of log(time) on log(n), least squares over all sizes and between the two "
             "largest; peak extra memory = high-water mark of the resident set during `fit` minus the resident "
             "set before it, over the data's size (the largest over n, and at the largest n). Targets: exponent "
             f"~1, extra < 10x the data. Machine: {platform.machine()}, Python {platform.python_version()}, "
             "`OPENBLAS_NUM_THREADS=1`, 2 cores shared with other jobs (wall times inflated, the exponents "
             "less so).", "",
             f"| estimator | setting | {head} | exponent (all) | exponent (last two) | peak extra / data (max) | "
             "at largest n | note |",
             "|---|---|" + "---|" * len(sizes) + "---|---|---|---|---|"]
    for name, res, note in rows:
        t = {r["n"]: r["wall"] for r in res}
        cells = " | ".join(f"{t[n]:.3g}" if n in t else "—" for n in sizes)
        ns = [r["n"] for r in res]
        ts = [r["wall"] for r in res]
        ratios = [r["extra"] / r["data"] for r in res]
        last = _slope(ns[-2:], ts[-2:]) if len(ns) >= 2 else float("nan")
        lines.append(f"| {name} | {setting.get(name, '')} | {cells} | {_slope(ns, ts):.2f} | {last:.2f} | "
                     f"{max(ratios) if ratios else float('nan'):.2f} | "
                     f"{ratios[-1] if ratios else float('nan'):.2f} | {note} |")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n")


if __name__ == "__main__":
    main()
