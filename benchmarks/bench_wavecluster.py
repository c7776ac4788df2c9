"""Speed of WaveCluster and its private versions on 1,000,000 2-D points with g = 256 (issue 5: < 1 s each).

Run: ``.venv/bin/python benchmarks/bench_wavecluster.py``. Prints a table (best of 5 repeats, wall clock) and
writes ``benchmarks/results/wavecluster_speed.md``. If the paper's datasets are in ``../shared/data`` it also
prints the mean private k' on DS2 at eps = 1 against the paper's numbers.
"""
import time
from pathlib import Path

import numpy as np

from dpclust_book.datasets import WAVECLUSTER_REAL_BOUNDS, WAVECLUSTER_REAL_N
from dpclust_core.wavecluster import PrivateWaveCluster, WaveCluster

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"


def best_of(fn, repeats=5):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times), float(np.median(times))


def main():
    rng = np.random.default_rng(0)
    n, g, p = 1_000_000, 256, 30.0
    centers = rng.uniform(0.1, 0.9, size=(20, 2))
    X = np.clip(centers[rng.integers(0, 20, n)] + rng.normal(scale=0.03, size=(n, 2)), 0, 1)
    rows = [("WaveCluster (non-private)", *best_of(lambda: WaveCluster(g, p, (0, 1)).fit(X)))]
    for m in ("baseline", "qt", "thr", "thr_em"):
        rows.append((f"PrivateWaveCluster({m!r}, eps=1)",
                     *best_of(lambda: PrivateWaveCluster(m, 1.0, g, p, (0, 1), random_state=1, n_public=n).fit(X))))
    lines = ["| estimator (N = 1,000,000, g = 256) | best of 5 (s) | median (s) |", "|---|---|---|"]
    lines += [f"| {name} | {b:.3f} | {med:.3f} |" for name, b, med in rows]
    f = DATA / "wavecluster-ds2-spiral-30k.csv"
    if f.exists():
        Xr = np.loadtxt(f, delimiter=",")
        # public inputs: the file's box and size, fixed as constants (never min/max of the data being privatised)
        bounds, n_pub = WAVECLUSTER_REAL_BOUNDS["ds2"], WAVECLUSTER_REAL_N["ds2"]
        paper = {"thr": 141.0, "thr_em": 142.8, "baseline": 284.0, "qt": 249.2}
        lines += ["", "| real DS2, eps = 1, g = 40, p = 10 | mean k' (20 runs) | paper | rel. diff |", "|---|---|---|---|"]
        for m, ref in paper.items():
            ks = [PrivateWaveCluster(m, 1.0, 40, 10, bounds, random_state=s, n_public=n_pub).fit(Xr).k_prime_
                  for s in range(20)]
            lines.append(f"| {m} | {np.mean(ks):.1f} | {ref} | {(np.mean(ks) - ref) / ref:+.1%} |")
    text = "\n".join(lines)
    print(text)
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "wavecluster_speed.md").write_text(text + "\n\n(2-core machine shared with other jobs: timings are "
                                               "inflated by contention.)\n")


if __name__ == "__main__":
    main()
