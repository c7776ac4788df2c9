"""Benchmark of the MCMC postprocessing of DP k-means (Lee & Kifer; dpclust_core.postprocess).

1. Speed: 30,000 MH steps for n = 5,000, K = 15, d = 2, T = 5 (target: under 3 s for the whole fit), and
   the MH-loop time for a fixed number of steps as n grows (the cost per step must not depend on n).
2. The paper's experiment, full protocol: WCSS of DP k-means (Algorithm 1, ``DPLloyd(variant="lee_kifer")``)
   vs DP k-means + postprocessing over ε ∈ {0.05, 0.1, 0.2, 0.5, 1.0}, T = 5, 10 paired runs, on the S1 and
   TIGER stand-ins (and the real copies in ../shared/data when present), with the ablations of spec §6:
   DP k-means with projected centroids (guard "keep_prev+project"), consistency only (0 MH steps),
   pooled proposal (k-means on draws from the proposal), MCMC with the paper's defaults, MCMC with the
   proposal centres projected onto the domain. Also the thesis's improved DPLloyd, postprocessed.

Run: ``.venv/bin/python benchmarks/bench_mcmc.py [--quick]``; writes benchmarks/results/bench_mcmc.md and .csv.

3. ``--paired``: chapter 10's own protocol over 10 runs instead of the page's two — the same data (the S1 stand-in,
   ``make_s1_like(5000, random_state=0)``), the same ε grid and the same functions of
   ``dpclust_book.experiments.mcmc``: ``paired_runs(X_s1, 15, EPS, seeds=range(10))`` and, at ε = 0.05, its
   ``ablation`` run by run (the mean over runs is ``ablation(..., seeds=range(10))``). Writes the tidy tables
   benchmarks/results/mcmc_paired.csv (epsilon, run, method, WCSS) and mcmc_ablation.csv (run, ingredient, WCSS),
   which the chapter reads.
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from dpclust_book.datasets import make_s1_like, make_tiger_like  # noqa: E402
from dpclust_core.kmeans.lloyd import DPLloyd, best_of_lloyd  # noqa: E402
from dpclust_core.metrics import wcss  # noqa: E402
from dpclust_core.postprocess import MCMCPostprocessor, Transcript  # noqa: E402
from dpclust_book.experiments import mcmc as ex  # noqa: E402
from dpclust_book.experiments.mcmc import pooled_proposal_kmeans  # noqa: E402

DATA = ROOT.parent / "shared" / "data"
EPS = [0.05, 0.1, 0.2, 0.5, 1.0]


def speed(repeats=5):
    X, _ = make_s1_like(5000, random_state=0)
    est = DPLloyd(15, 0.1, variant="lee_kifer", random_state=1).fit(X)
    tr = Transcript.from_dplloyd(est)
    tot, loop = [], []
    for r in range(repeats):
        t0 = time.perf_counter()
        pp = MCMCPostprocessor(30_000, random_state=r).fit(tr)
        tot.append(time.perf_counter() - t0)
        loop.append(pp.timings_["mh_loop"])
    rows = [("n=5000 K=15 d=2 T=5, 30,000 steps: whole fit (median of %d), s" % repeats, np.median(tot)),
            ("  of which the MH loop, s", np.median(loop)),
            ("  per step, µs", 1e6 * np.median(loop) / 30_000)]
    per_n = []
    for n in [1_000, 5_000, 20_000, 100_000]:
        ls = [MCMCPostprocessor(30_000, n_init=1, random_state=r).fit(tr, n_points=n).timings_["mh_loop"]
              for r in range(3)]
        per_n.append((n, np.median(ls)))
    return rows, per_n


def load_real(name):
    path = DATA / name
    if not path.exists():
        return None
    if name.endswith(".arff"):
        rows = [ln.strip().split(",") for ln in path.read_text().splitlines()
                if ln.strip() and ln.strip()[0] not in "@%"]
        return np.array([[float(r[0]), float(r[1])] for r in rows])
    return np.loadtxt(path)


METHODS = ["DP k-means", "DP k-means (projected)", "consistency only", "pooled proposal", "MCMC (paper)",
           "MCMC (projected centres)"]


def one_run(X, K, eps, bounds, seed, n_steps):
    est = DPLloyd(K, eps, bounds=bounds, variant="lee_kifer", random_state=seed).fit(X)
    estp = DPLloyd(K, eps, bounds=bounds, variant="lee_kifer", guard="keep_prev+project", random_state=seed).fit(X)
    tr = Transcript.from_dplloyd(est)
    Z = tr.to_domain(X)
    out = {"DP k-means": wcss(Z, tr.final_centroids), "DP k-means (projected)": wcss(Z, estp.scaled_centers_)}
    out["consistency only"] = wcss(Z, MCMCPostprocessor(0, random_state=seed + 1).fit(tr).cluster_centers_domain_)
    out["pooled proposal"] = wcss(Z, pooled_proposal_kmeans(tr, random_state=seed + 2))
    pp = MCMCPostprocessor(n_steps, random_state=10_000 + seed).fit(tr)
    out["MCMC (paper)"] = wcss(Z, pp.cluster_centers_domain_)
    out["acceptance"] = pp.acceptance_rate_
    ppj = MCMCPostprocessor(n_steps, project_centroids=True, random_state=10_000 + seed).fit(tr)
    out["MCMC (projected centres)"] = wcss(Z, ppj.cluster_centers_domain_)
    return out, Z


def improved_run(X, K, eps, bounds, seed, n_steps):
    est = DPLloyd(K, eps, bounds=bounds, variant="improved", random_state=seed).fit(X)
    tr = Transcript.from_dplloyd(est)
    Z = tr.to_domain(X)
    pp = MCMCPostprocessor(n_steps, random_state=10_000 + seed).fit(tr, n_points=X.shape[0])
    return wcss(Z, tr.final_centroids), wcss(Z, pp.cluster_centers_domain_), tr.n_rounds


def paired(runs=10):
    """Chapter 10's experiment and its ε = 0.05 ablation over ``runs`` paired runs; writes two tidy CSV files."""
    X_s1, _ = make_s1_like(5000, random_state=0)     # the chapter's data
    seeds = range(runs)
    t0 = time.time()
    runs_df, fits = ex.paired_runs(X_s1, 15, EPS, seeds=seeds)
    t_paired = time.time() - t0
    abl = []
    for s in seeds:                                   # the chapter's ablation, one run at a time
        a = ex.ablation(X_s1, 15, 0.05, fits, seeds=[s])["mean WCSS"]
        abl += [{"run": s, "ingredient": k, "WCSS": float(v)} for k, v in a.items()]
    abl_df = pd.DataFrame(abl)
    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    runs_df[["epsilon", "run", "method", "WCSS"]].to_csv(out / "mcmc_paired.csv", index=False)
    abl_df.to_csv(out / "mcmc_ablation.csv", index=False)
    print(ex.wins_table(runs_df).round(3).to_string())
    print(ex.mean_table(runs_df).to_string())
    print(abl_df.groupby("ingredient", sort=False)["WCSS"].mean().round(1).to_string())
    print(f"paired runs {t_paired:.0f} s, with the ablation {time.time() - t0:.0f} s "
          "(2 shared cores, other jobs running)")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="3 runs instead of 10")
    ap.add_argument("--paired", action="store_true",
                    help="only chapter 10's protocol over 10 runs: results/mcmc_paired.csv, mcmc_ablation.csv")
    args = ap.parse_args()
    if args.paired:
        paired(3 if args.quick else 10)
        return
    runs = 3 if args.quick else 10
    lines = ["# MCMC postprocessing benchmark", "",
             "Machine: 2 shared cores (other jobs running: timings are inflated by contention).", ""]
    t_start = time.time()
    rows, per_n = speed()
    lines += ["## Speed", "", "| measurement | value |", "|---|---|"]
    lines += [f"| {a} | {b:.3f} |" for a, b in rows]
    lines += ["", "MH loop time for 30,000 steps as the synthetic dataset size M grows (K=15, d=2, T=5):", "",
              "| M | loop s |", "|---|---|"] + [f"| {n} | {t:.3f} |" for n, t in per_n] + [""]
    print("\n".join(lines), flush=True)

    datasets = [("S1 stand-in", make_s1_like(5000, random_state=0)[0], 15, (-1.0, 1.0)),
                ("TIGER stand-in", make_tiger_like(random_state=0)[0], 2, (-1.0, 1.0))]
    for name, fname, K in [("S1 (real copy)", "s1.arff", 15), ("TIGER copy (tiger-nm-wa.tsv)", "tiger-nm-wa.tsv", 2)]:
        Xr = load_real(fname)
        if Xr is not None:
            datasets.append((name, Xr, K, (np.zeros(2), np.full(2, 1e6))))

    csv_rows = []
    for name, X, K, bounds in datasets:
        sec = [f"## {name} (N={X.shape[0]}, K={K}), {runs} paired runs, T=5, 30,000 MH steps", "",
               "WCSS on the data DP k-means saw (normalised, projected onto the unit L1 ball); mean ± s.e. "
               "and [median].", "",
               "| ε | " + " | ".join(METHODS) + " | MCMC wins (paired) | acc. rate |",
               "|---" * (len(METHODS) + 3) + "|"]
        print("\n".join(sec), flush=True)
        Z0 = None
        for eps in EPS:
            res = []
            for s in range(runs):
                out, Z0 = one_run(X, K, eps, bounds, s, 30_000)
                res.append(out)
                csv_rows.append({"dataset": name, "eps": eps, "run": s, **out})
            cells = []
            for m in METHODS:
                v = np.array([r[m] for r in res])
                cells.append(f"{v.mean():.1f} ± {v.std(ddof=1) / np.sqrt(len(v)):.1f} [{np.median(v):.1f}]")
            wins = sum(r["MCMC (paper)"] < r["DP k-means"] for r in res)
            acc = np.mean([r["acceptance"] for r in res])
            sec.append(f"| {eps} | " + " | ".join(cells) + f" | {wins}/{runs} | {acc:.2f} |")
            print(sec[-1], flush=True)
        floor = wcss(Z0, best_of_lloyd(Z0, K, n_init=10, rng=0)[0])
        sec += ["", f"Non-private Lloyd (best of 10 k-means++ runs) on the same data: WCSS {floor:.1f}.", ""]
        lines += sec

    # the thesis's improved DPLloyd (box domain), postprocessed
    X = make_s1_like(5000, random_state=0)[0]
    sec = ["## The thesis's improved DPLloyd, postprocessed (S1 stand-in, box [-1,1]^2, N public)", "",
           "| ε | rounds T | DPLloyd-Impr | + MCMC (paper defaults) | MCMC wins |", "|---|---|---|---|---|"]
    for eps in EPS:
        r = [improved_run(X, 15, eps, (-1.0, 1.0), s, 30_000) for s in range(runs)]
        a = np.array([x[0] for x in r])
        b = np.array([x[1] for x in r])
        se_a, se_b = a.std(ddof=1) / np.sqrt(runs), b.std(ddof=1) / np.sqrt(runs)
        sec.append(f"| {eps} | {r[0][2]} | {a.mean():.1f} ± {se_a:.1f} [{np.median(a):.1f}] | "
                   f"{b.mean():.1f} ± {se_b:.1f} [{np.median(b):.1f}] | {(b < a).sum()}/{runs} |")
        print(sec[-1], flush=True)
    lines += sec + ["", f"Total benchmark time {time.time() - t_start:.0f} s.", ""]

    out = ROOT / "benchmarks" / "results"
    out.mkdir(parents=True, exist_ok=True)
    (out / "bench_mcmc.md").write_text("\n".join(lines))
    with open(out / "bench_mcmc.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(csv_rows[0].keys()))
        w.writeheader()
        w.writerows(csv_rows)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
