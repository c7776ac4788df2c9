"""Speed of DPLloyd against IBM diffprivlib's KMeans on 1,000,000 x 2 points, k = 5, 7 rounds.

Usage (from the repository root)::

    bash benchmarks/make_diffprivlib_venv.sh          # once: benchmarks/.venv-diffprivlib (diffprivlib 0.6.6)
    .venv/bin/python benchmarks/bench_dplloyd.py [--repeats 5] [--n 1000000]

dpclust_core's DPLloyd runs in this process; diffprivlib (which needs scikit-learn < 1.8) runs as a
subprocess with the venv's python on the same data (written to a temporary .npy file). Both fit times are
wall-clock times of ``fit`` only (data generation and loading excluded); the table reports the median and the
minimum of the repeats. Both run 7 rounds: DPLloyd with ``n_rounds=7`` and the improved split; diffprivlib
picks its number of iterations from epsilon (Su et al.'s rule, which gives 7 at this N and epsilon = 1), checked
from its ``n_iter_``. The table is printed and written to ``benchmarks/results/dplloyd.md``.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpclust_book.datasets import make_blobs_ratio  # noqa: E402
from dpclust_core.kmeans import DPLloyd  # noqa: E402
from dpclust_core.metrics import nicv  # noqa: E402

VENV_PY = ROOT / "benchmarks" / ".venv-diffprivlib" / "bin" / "python"
RESULTS = ROOT / "benchmarks" / "results" / "dplloyd.md"

DIFFPRIVLIB_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np
import diffprivlib
from diffprivlib.models import KMeans
X = np.load(sys.argv[1]); k = int(sys.argv[2]); eps = float(sys.argv[3]); repeats = int(sys.argv[4])
warnings.simplefilter("ignore")
times, cpus, iters, centers = [], [], [], []
for s in range(repeats):
    km = KMeans(n_clusters=k, epsilon=eps, bounds=([-1.0] * X.shape[1], [1.0] * X.shape[1]), random_state=s)
    t = time.perf_counter(); c = time.process_time(); km.fit(X)
    times.append(time.perf_counter() - t); cpus.append(time.process_time() - c)
    iters.append(int(km.n_iter_)); centers.append(km.cluster_centers_.tolist())
print(json.dumps({"times": times, "cpus": cpus, "n_iter": iters, "centers": centers, "version": diffprivlib.__version__}))
"""


def time_dplloyd(X, k, eps, repeats):
    times, cpus, centers, iters = [], [], [], []
    DPLloyd(k, eps, n_rounds=7, random_state=123).fit(X[:1000])  # warm-up (imports, caches)
    for s in range(repeats):
        m = DPLloyd(k, eps, variant="improved", n_rounds=7, random_state=s)
        t = time.perf_counter()
        c = time.process_time()
        m.fit(X)
        times.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        centers.append(m.cluster_centers_)
        iters.append(m.n_iter_)
        assert abs(m.ledger_.epsilon - eps) <= 1e-12 * eps
    return times, cpus, centers, iters


def time_diffprivlib(X, k, eps, repeats):
    if not VENV_PY.exists():
        return None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "X.npy")
        np.save(path, X)
        out = subprocess.run([str(VENV_PY), "-c", DIFFPRIVLIB_SCRIPT, path, str(k), str(eps), str(repeats)],
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--k", type=int, default=5)
    ap.add_argument("--epsilon", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()

    X, _ = make_blobs_ratio(args.n, n_clusters=args.k, n_features=2, n_outliers=0, random_state=0)
    ours_t, ours_cpu, ours_c, ours_it = time_dplloyd(X, args.k, args.epsilon, args.repeats)
    dpl = time_diffprivlib(X, args.k, args.epsilon, args.repeats)

    sub = X[:: max(1, len(X) // 100_000)]  # NICV on a 100k subsample: enough for 3 digits
    rows = [("dpclust_core DPLloyd (improved, 7 rounds)", np.median(ours_t), np.min(ours_t), np.median(ours_cpu),
             sorted(set(ours_it)), np.mean([nicv(sub, c) for c in ours_c]))]
    if dpl is not None:
        rows.append((f"diffprivlib {dpl['version']} KMeans", np.median(dpl["times"]), np.min(dpl["times"]),
                     np.median(dpl["cpus"]),
                     sorted(set(dpl["n_iter"])), np.mean([nicv(sub, np.array(c)) for c in dpl["centers"]])))
    lines = [f"DPLloyd vs diffprivlib KMeans: N = {args.n:,}, d = 2, k = {args.k}, epsilon = {args.epsilon}, "
             f"{args.repeats} repeats (fit only; wall clock)",
             f"machine: {platform.machine()}, {os.cpu_count()} cores shared with other jobs (timings inflated by "
             f"contention), numpy {np.__version__}, python {platform.python_version()}",
             "",
             "| implementation | median wall fit (s) | min wall fit (s) | median CPU fit (s) | rounds | mean NICV |",
             "|---|---|---|---|---|---|"]
    for name, med, mn, cpu, it, nv in rows:
        lines.append(f"| {name} | {med:.3f} | {mn:.3f} | {cpu:.3f} | {','.join(map(str, it))} | {nv:.5f} |")
    if dpl is not None:
        lines.append("")
        lines.append(f"speed-up, wall median / median: {rows[1][1] / rows[0][1]:.1f}x; wall min / min: "
                     f"{rows[1][2] / rows[0][2]:.1f}x; CPU median / median: {rows[1][3] / rows[0][3]:.1f}x")
        lines.append("CPU time (process_time, all threads of the process) is less affected by other jobs on the "
                     "machine than wall time.")
    else:
        lines.append("")
        lines.append("diffprivlib not run: create its venv with `bash benchmarks/make_diffprivlib_venv.sh`")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text("# DPLloyd benchmark\n\n" + text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
