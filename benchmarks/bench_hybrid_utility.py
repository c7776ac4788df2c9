"""Utility of the hybrid against DPLloyd-Impr, EUGkM, DPLloyd and IBM diffprivlib's KMeans on the 2-D stand-ins.

Usage::

    bash benchmarks/make_diffprivlib_venv.sh               # once: benchmarks/.venv-diffprivlib (diffprivlib 0.6.6)
    .venv/bin/python benchmarks/bench_hybrid_utility.py [--runs 20] [--n-init 30]

For the seeded stand-ins of S1 (5,000 x 2, k = 15), Gowalla (107,091 x 2, k = 5) and TIGER (16,281 x 2, k = 2) at
full size and every epsilon in {0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0}: the median NICV over ``--runs`` runs
(different seeds) of HybridKMeans (rule R2, ``policy="half"``, and rule R1, ``policy="regression"``),
DPLloyd-Impr, DPLloyd (original), EUGkM, and diffprivlib's ``KMeans`` (run as a subprocess with the venv's python
on the same data, bounds [-1, 1]^2), plus the non-private baseline (best of 30 Lloyd runs). Checks the issue's
claim: at epsilon <= 0.5 the hybrid's median NICV is no worse than DPLloyd-Impr's and than diffprivlib's.
Writes ``benchmarks/results/hybrid_utility.md`` (and a CSV next to it).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from dpclust_book.datasets import make_gowalla_like, make_s1_like, make_tiger_like  # noqa: E402
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, best_of_lloyd  # noqa: E402
from dpclust_core.metrics import nicv  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
VENV_PY = ROOT / "benchmarks" / ".venv-diffprivlib" / "bin" / "python"
RESULTS = ROOT / "benchmarks" / "results" / "hybrid_utility.md"
EPS = [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0]

DIFFPRIVLIB_SCRIPT = r"""
import json, sys, warnings
import numpy as np
from diffprivlib.models import KMeans
import diffprivlib
X = np.load(sys.argv[1]); k = int(sys.argv[2]); eps_list = json.loads(sys.argv[3]); runs = int(sys.argv[4])
warnings.simplefilter("ignore")
out = {}
for eps in eps_list:
    nicvs = []
    for s in range(runs):
        km = KMeans(n_clusters=k, epsilon=eps, bounds=([-1.0] * X.shape[1], [1.0] * X.shape[1]), random_state=s)
        km.fit(X)
        C = km.cluster_centers_
        d2 = ((X * X).sum(1)[:, None] - 2 * X @ C.T + (C * C).sum(1)[None, :]).min(axis=1)
        nicvs.append(float(np.maximum(d2, 0).mean()))
    out[str(eps)] = nicvs
print(json.dumps({"nicv": out, "version": diffprivlib.__version__}))
"""


def diffprivlib_nicv(X, k, runs):
    if not VENV_PY.exists():
        return None, None
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "X.npy")
        np.save(path, X)
        out = subprocess.run([str(VENV_PY), "-c", DIFFPRIVLIB_SCRIPT, path, str(k), json.dumps(EPS), str(runs)],
                             capture_output=True, text=True, check=True)
    res = json.loads(out.stdout.strip().splitlines()[-1])
    return {float(e): v for e, v in res["nicv"].items()}, res["version"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--n-init", type=int, default=30)
    args = ap.parse_args()
    sets = {"S1": (make_s1_like(random_state=0)[0], 15),
            "Gowalla": (make_gowalla_like(random_state=0)[0], 5),
            "TIGER": (make_tiger_like(random_state=0)[0], 2)}
    methods = {
        "Hybrid (R2)": lambda k, e, s: HybridKMeans(k, e, policy="half", n_init=args.n_init, random_state=s),
        "Hybrid (R1)": lambda k, e, s: HybridKMeans(k, e, policy="regression", n_init=args.n_init, random_state=s),
        "DPLloyd-Impr": lambda k, e, s: DPLloyd(k, e, variant="improved", random_state=s),
        "DPLloyd": lambda k, e, s: DPLloyd(k, e, variant="original", random_state=s),
        "EUGkM": lambda k, e, s: EUGkM(k, e, n_init=args.n_init, random_state=s),
    }
    lines = [f"Median NICV over {args.runs} runs, 2-D stand-ins at full size, synopsis methods with "
             f"{args.n_init} sphere-packing inits (selection on the synopsis). 'ok' = Hybrid (R2) median <= both "
             "DPLloyd-Impr's and diffprivlib's.", ""]
    csv = ["dataset,epsilon,method,median_nicv"]
    checks = []
    t0 = time.perf_counter()
    for name, (X, k) in sets.items():
        _, base = best_of_lloyd(X, k, 30, rng=0)
        dpl, version = diffprivlib_nicv(X, k, args.runs)
        cols = list(methods) + ([f"diffprivlib {version}"] if dpl else [])
        lines += [f"**{name}** (N = {len(X):,}, k = {k}; non-private best of 30 Lloyd runs: {base:.5f})", "",
                  "| epsilon | " + " | ".join(cols) + " | hybrid switch (R2) | ok |",
                  "|---|" + "---|" * (len(cols) + 2)]
        for eps in EPS:
            med, used = {}, []
            for mname, make in methods.items():
                vals = []
                for s in range(args.runs):
                    est = make(k, eps, s).fit(X)
                    assert abs(est.ledger_.epsilon - eps) <= 1e-12 * eps
                    vals.append(nicv(X, est.scaled_centers_))
                    if mname == "Hybrid (R2)":
                        used.append(est.used_hybrid_)
                med[mname] = float(np.median(vals))
            if dpl:
                med[cols[-1]] = float(np.median(dpl[eps]))
            ok = med["Hybrid (R2)"] <= med["DPLloyd-Impr"] and (not dpl or med["Hybrid (R2)"] <= med[cols[-1]])
            if eps <= 0.5:
                checks.append((name, eps, ok))
            lines.append(f"| {eps} | " + " | ".join(f"{med[c]:.5f}" for c in cols)
                         + f" | {'hybrid' if all(used) else 'EUGkM fallback'} | {'yes' if ok else 'NO'} |")
            csv += [f"{name},{eps},{c},{med[c]:.6g}" for c in cols]
            print(name, eps, {c: round(v, 5) for c, v in med.items()}, flush=True)
        lines.append("")
    n_ok = sum(ok for _, _, ok in checks)
    lines.append(f"Claim (eps <= 0.5): Hybrid (R2) median no worse than DPLloyd-Impr and diffprivlib in "
                 f"{n_ok} of {len(checks)} (dataset, eps) cells"
                 + ("" if n_ok == len(checks) else "; fails at " + ", ".join(f"{n} eps={e}" for n, e, ok in checks
                                                                            if not ok)) + ".")
    lines.append(f"Total time {time.perf_counter() - t0:.0f} s on a shared 2-core machine.")
    text = "\n".join(lines)
    print(text)
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(text + "\n")
    RESULTS.with_suffix(".csv").write_text("\n".join(csv) + "\n")


if __name__ == "__main__":
    main()
