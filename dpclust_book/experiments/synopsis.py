"""Experiments of chapters 3 and 4: grid synopses (UGkM, EUGkM, MkM), the hybrid, and every k-means method of
the thesis compared over datasets and budgets.

Each function runs one experiment of the book (several methods, budgets and seeds) and returns a tidy
``pandas.DataFrame`` that a chapter shows as a table or hands to :mod:`dpclust_book.plots.synopsis`. Repeated
fits on the same data are *simulations*: a data owner who released them all would pay for every one; they are
run only to measure the error distribution of a method.

The datasets are the seeded stand-ins of :mod:`dpclust_book.datasets` (already mapped into ``[-1, 1]^d`` with their
public bounds) and four sets bundled with scikit-learn, mapped with the ranges published in their documentation
(:data:`DOCUMENTED_BOUNDS`).

Examples
--------
>>> from dpclust_book.experiments import synopsis as ex
>>> df = ex.compare_methods({"blobs": ex.blobs(500, 3, 2)}, [1.0], methods=["EUGkM", "DPLloyd-Impr"])
>>> sorted(df["method"].unique().tolist()), len(df)
(['DPLloyd-Impr', 'EUGkM'], 2)
"""
from __future__ import annotations

import warnings

from collections import Counter

import numpy as np
import pandas as pd

from dpclust_core.base import PublishedNWarning
from dpclust_core._validation import check_int
from dpclust_core.preprocessing import scale_to_domain
from ..datasets import (make_adult_num_like, make_blobs_ratio, make_gowalla_like, make_image_like, make_lifesci_like,
                        make_s1_like, make_tiger_like)
from dpclust_core.kmeans import (DPLloyd, EUGkM, GkM, HybridKMeans, MkM, PGkM, UGkM, best_of_lloyd, cells_per_dimension,
                                 choose_k, dplloyd_mse, eugkm_bias, eugkm_grid_size, eugkm_variance, hybrid_decision,
                                 mkm_grid_size, ugkm_grid_size)
from ..evaluation import rt_validity
from dpclust_core.metrics import nicv

__all__ = ["THESIS_DATASETS", "METHODS", "SYNOPSIS_METHODS", "DOCUMENTED_BOUNDS", "make_method", "blobs",
           "standins", "bundled", "seed_ratios", "grid_size_sweep", "error_model_check", "synopsis_methods_over_d",
           "rounding_table", "lloyd_cap_fraction", "switch_table", "switch_curves", "hybrid_example",
           "compare_methods", "comparison_summary", "best_methods", "highd_fix", "choose_k_runs",
           "choose_k_table", "top_choice", "grid_cells"]

#: N, d and k of the thesis's six datasets (Table 4.1).
THESIS_DATASETS = {"S1": (5000, 2, 15), "Gowalla": (107_091, 2, 5), "TIGER": (16_281, 2, 2),
                   "Image": (34_112, 3, 3), "Adult-num": (48_841, 6, 5), "Lifesci": (26_733, 10, 3)}

#: The eight private k-means methods of the thesis's comparison, in the order of its figures.
METHODS = ("DPLloyd", "DPLloyd-Impr", "GkM", "PGkM", "MkM", "UGkM", "EUGkM", "Hybrid")
SYNOPSIS_METHODS = ("EUGkM", "UGkM", "MkM")

#: Public attribute ranges of scikit-learn's bundled sets: the minimum and maximum of every attribute as
#: published in the datasets' descriptions (UCI's summary statistics, reprinted in scikit-learn's
#: documentation), and the natural range 0-16 of the digits' pixel counts. Records outside are clipped.
DOCUMENTED_BOUNDS = {
    "iris": ([4.3, 2.0, 1.0, 0.1], [7.9, 4.4, 6.9, 2.5]),
    "wine": ([11.0, 0.74, 1.36, 10.6, 70.0, 0.98, 0.34, 0.13, 0.41, 1.3, 0.48, 1.27, 278.0],
             [14.8, 5.80, 3.23, 30.0, 162.0, 3.88, 5.08, 0.66, 3.58, 13.0, 1.71, 4.00, 1680.0]),
    "breast cancer": (
        [6.981, 9.71, 43.79, 143.5, 0.053, 0.019, 0.0, 0.0, 0.106, 0.05, 0.112, 0.36, 0.757, 6.802, 0.002,
         0.002, 0.0, 0.0, 0.008, 0.001, 7.93, 12.02, 50.41, 185.2, 0.071, 0.027, 0.0, 0.0, 0.156, 0.055],
        [28.11, 39.28, 188.5, 2501.0, 0.163, 0.345, 0.427, 0.201, 0.304, 0.097, 2.873, 4.885, 21.98, 542.2,
         0.031, 0.135, 0.396, 0.053, 0.079, 0.03, 36.04, 49.54, 251.2, 4254.0, 0.223, 1.058, 1.252, 0.291,
         0.664, 0.208]),
    "digits": (0.0, 16.0),
}

_DOMAIN = (-1.0, 1.0)


# ============================================================================ methods and datasets
def make_method(name, k, epsilon, *, random_state=None, n_init=2, policy="half", bounds=_DOMAIN, **kwargs):
    """An unfitted estimator of one of :data:`METHODS` with the thesis's settings.

    ``"DPLloyd"`` is the PINQ baseline (``variant="original"``), ``"DPLloyd-Impr"`` the improved one; the
    synopsis methods and the hybrid run Lloyd on the synopsis from ``n_init`` sphere-packing starts; the hybrid
    uses the switching ``policy`` ("half": the rule of the thesis's experiments). Extra keyword arguments go to
    the estimator.
    """
    common = dict(bounds=bounds, random_state=random_state, **kwargs)
    if name == "DPLloyd":
        return DPLloyd(k, epsilon, variant="original", **common)
    if name == "DPLloyd-Impr":
        return DPLloyd(k, epsilon, variant="improved", **common)
    if name == "GkM":
        return GkM(k, epsilon, **common)
    if name == "PGkM":
        return PGkM(k, epsilon, **common)
    if name in ("MkM", "UGkM", "EUGkM"):
        return {"MkM": MkM, "UGkM": UGkM, "EUGkM": EUGkM}[name](k, epsilon, n_init=n_init, **common)
    if name == "Hybrid":
        return HybridKMeans(k, epsilon, policy=policy, n_init=n_init, **common)
    raise ValueError(f"name must be one of {METHODS}, got {name!r}")


def blobs(n_samples, k, d, *, n_outliers=None, separation=0.21, random_state=0):
    """``(X, k)``: a Synthe-like set (k Gaussian clusters of sizes 1:2:...:k plus outliers) in ``[-1, 1]^d``."""
    X, _ = make_blobs_ratio(n_samples, k, d, separation=separation, n_outliers=n_outliers,
                            random_state=random_state)
    return X, k


def standins(n_samples=2000, random_state=0) -> dict:
    """The six datasets of the thesis as seeded stand-ins of ``n_samples`` points: ``{name: (X, k)}``.

    Every generator maps its raw attributes into ``[-1, 1]^d`` with public bounds (longitude and latitude,
    documented attribute ranges, ...), so ``bounds=(-1, 1)`` is the public domain of every set.
    """
    n, s = n_samples, random_state
    return {"S1 (2-D)": (make_s1_like(n, random_state=s)[0], 15),
            "Gowalla (2-D)": (make_gowalla_like(n, random_state=s)[0], 5),
            "TIGER (2-D)": (make_tiger_like(n, random_state=s)[0], 2),
            "Image (3-D)": (make_image_like(n, random_state=s)[0], 3),
            "Adult-num (6-D)": (make_adult_num_like(n, random_state=s)[0], 5),
            "Lifesci (10-D)": (make_lifesci_like(n, random_state=s)[0], 3)}


def bundled() -> dict:
    """scikit-learn's iris, wine, breast cancer and digits, mapped into ``[-1, 1]^d`` with
    :data:`DOCUMENTED_BOUNDS`: ``{name: (X, k)}`` with k the number of classes."""
    from sklearn import datasets as skd

    out = {}
    for name, loader, k in (("iris", skd.load_iris, 3), ("wine", skd.load_wine, 3),
                            ("breast cancer", skd.load_breast_cancer, 2), ("digits", skd.load_digits, 10)):
        X = loader().data.astype(float)
        d = X.shape[1]
        out[f"{name} ({d}-D)"] = (scale_to_domain(X, DOCUMENTED_BOUNDS[name]), k)
    return out


def _baseline(X, k, n_init=30, rng=0):
    return best_of_lloyd(X, k, n_init, rng=rng)[1]


# ============================================================================ chapter 3: grid synopses
def seed_ratios(X, k, epsilon, seeds, *, n_init=10, baseline=None) -> pd.DataFrame:
    """EUGkM's NICV over several seeds, and its ratio to the non-private ``baseline`` NICV.

    Returns a frame indexed by ``seed`` with ``cells per dimension``, ``NICV`` and ``NICV / baseline``.
    """
    base = _baseline(X, k, 10) if baseline is None else float(baseline)
    rows = []
    for s in seeds:
        est = EUGkM(k, epsilon, bounds=_DOMAIN, n_init=n_init, random_state=s).fit(X)
        v = nicv(X, est.scaled_centers_)
        rows.append({"seed": s, "cells per dimension": est.cells_per_dim_, "NICV": v, "NICV / baseline": v / base})
    return pd.DataFrame(rows).set_index("seed")


def grid_size_sweep(X, k, epsilons, ms, *, n_runs=4, n_init=5, baseline=None) -> pd.DataFrame:
    """Excess NICV of EUGkM's method on a grid forced to ``m`` cells per dimension (2-D data).

    The grid is pinned by publishing N (``n_public=len(X)``: synthetic data) and setting ``theta = N eps / m^2``,
    so that Eq. (4.13) gives exactly ``m``; everything else is EUGkM's default. Returns ``epsilon``, ``m``,
    ``excess`` (mean over ``n_runs`` seeds of NICV minus the baseline) and ``m_eugkm`` (EUGkM's own m,
    ``sqrt(N eps / 10)``, for reference).
    """
    X = np.asarray(X, float)
    if X.shape[1] != 2:
        raise ValueError("grid_size_sweep expects 2-D data")
    n = X.shape[0]
    base = _baseline(X, k, 10) if baseline is None else float(baseline)
    rows = []
    for eps in epsilons:
        m_eug = float(np.sqrt(n * eps / 10.0))
        for m in ms:
            theta = n * eps / m ** 2 * (1 - 1e-9)  # a hair below: sqrt(M) = m exactly, rounding cannot flip
            vals = []
            for s in range(n_runs):
                with warnings.catch_warnings():  # N is published on purpose: it pins the grid
                    warnings.simplefilter("ignore", PublishedNWarning)
                    est = EUGkM(k, eps, bounds=_DOMAIN, theta=theta, n_init=n_init, n_public=n,
                                random_state=s).fit(X)
                if est.cells_per_dim_ != m:  # pragma: no cover - a guard on the arithmetic above
                    raise RuntimeError(f"the grid has {est.cells_per_dim_} cells per dimension, not {m}")
                vals.append(nicv(X, est.scaled_centers_))
            rows.append({"epsilon": eps, "m": int(m), "excess": float(np.mean(vals)) - base, "m_eugkm": m_eug})
    return pd.DataFrame(rows)


def error_model_check(X, k, epsilons, reference, *, n_runs=10) -> pd.DataFrame:
    """Measured mean squared error of EUGkM's centroids against the model, over ``epsilons``.

    Lloyd on every synopsis starts from ``reference`` (non-private centroids: an experiment-only choice that
    isolates the noise-and-coarseness error from bad local optima); the error is the mean over centroids and
    over ``n_runs`` synopses of ``||o_j - reference_j||^2``. Returns a frame indexed by ``epsilon`` with
    ``measured``, ``variance model`` (Eq. 4.18), ``squared-bias bound`` (Eq. 4.19) and
    ``measured / variance model``, all in scaled units.
    """
    X = np.asarray(X, float)
    ref = np.asarray(reference, float)
    n, d = X.shape
    rows = []
    for eps in epsilons:
        errs = [((EUGkM(k, eps, bounds=_DOMAIN, init=ref, n_init=1, random_state=s).fit(X).scaled_centers_
                  - ref) ** 2).sum(axis=1).mean() for s in range(n_runs)]
        var = eugkm_variance(n, eps, d, k)
        rows.append({"epsilon": eps, "measured": float(np.mean(errs)), "variance model": var,
                     "squared-bias bound": eugkm_bias(n, eps, d), "measured / variance model": np.mean(errs) / var})
    return pd.DataFrame(rows).set_index("epsilon")


def synopsis_methods_over_d(dims, epsilons, *, n_samples=4000, k=3, n_runs=3, n_init=3, n_outliers=20,
                            methods=SYNOPSIS_METHODS) -> pd.DataFrame:
    """UGkM, EUGkM and MkM on Synthe-like data of every dimension in ``dims`` (one dataset per d, seeded by d).

    Returns ``epsilon``, ``d``, ``method``, ``excess`` (mean NICV over ``n_runs`` seeds minus the best of 5
    Lloyd runs) and ``m`` (the cells per dimension of the first run).
    """
    rows = []
    for d in dims:
        X, _ = make_blobs_ratio(n_samples, k, d, n_outliers=n_outliers, random_state=d)
        base = _baseline(X, k, 5)
        for eps in epsilons:
            for name in methods:
                fits = [make_method(name, k, eps, n_init=n_init, random_state=s).fit(X) for s in range(n_runs)]
                rows.append({"epsilon": eps, "d": d, "method": name,
                             "excess": float(np.mean([nicv(X, f.scaled_centers_) for f in fits])) - base,
                             "m": fits[0].cells_per_dim_})
    return pd.DataFrame(rows)


def rounding_table(n, epsilon, d) -> pd.DataFrame:
    """EUGkM's grid for N, epsilon, d under the three roundings of ``m = M^(1/d)``: ``M``, ``m`` and cells."""
    M = eugkm_grid_size(n, epsilon, d)
    rows = []
    for rounding in ("floor", "round", "ceil"):
        m = cells_per_dimension(M, d, rounding)
        rows.append({"rounding": rounding, "M (formula)": M, "M^(1/d)": M ** (1.0 / d), "m": m, "cells m^d": m ** d})
    return pd.DataFrame(rows).set_index("rounding")


def lloyd_cap_fraction(X, k, epsilons, seeds, *, n_init=10, max_iters=(30,)) -> pd.DataFrame:
    """Percentage of the weighted-Lloyd runs on EUGkM's synopsis that stop at the cap ``max_iter`` (did not
    converge), for every epsilon (rows) and cap (columns).

    Every (epsilon, max_iter) pair fits EUGkM once per seed with ``n_init`` starts; a run that is still moving
    at a larger cap cycles rather than converges slowly.
    """
    out = pd.DataFrame(index=pd.Index(list(epsilons), name="epsilon"),
                       columns=pd.Index(list(max_iters), name="% of runs stopped at max_iter ="), dtype=float)
    for eps in epsilons:
        for mi in max_iters:
            fr = [np.mean(est.init_n_iter_ >= mi) for est in
                  (EUGkM(k, eps, bounds=_DOMAIN, n_init=n_init, max_iter=mi, random_state=s).fit(X) for s in seeds)]
            out.loc[eps, mi] = 100.0 * float(np.mean(fr))
    return out


# ============================================================================ chapter 4: the hybrid
def switch_table(datasets=None, epsilons=(0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 2.0)) -> pd.DataFrame:
    """The hybrid's decision under both rules, from the error models alone (no data are read).

    ``datasets`` maps a name to ``(N, d, k)`` (default :data:`THESIS_DATASETS`). Returns a frame indexed by
    ``(dataset, rule)`` with one column per epsilon holding "H" (hybrid) or "E" (fall back to EUGkM).
    """
    datasets = THESIS_DATASETS if datasets is None else datasets
    rows = []
    for name, (n, d, k) in datasets.items():
        for policy, label in (("regression", "R1 (Alg. 16)"), ("half", "R2 (f = 1/2)")):
            row = {"dataset": name, "rule": label}
            for eps in epsilons:
                row[eps] = "H" if hybrid_decision(n, d, k, eps, policy)["use_hybrid"] else "E"
            rows.append(row)
    df = pd.DataFrame(rows).set_index(["dataset", "rule"])
    df.columns.name = "ε"
    return df


def switch_curves(n, d, k, epsilons) -> pd.DataFrame:
    """The models behind the switch over ``epsilons``: ``DPLloyd t=1``, ``DPLloyd t=5`` (Eq. 4.17),
    ``Var EUGkM`` (Eq. 4.18), ``Hybrid (R1)`` (Eq. 4.20 at its best f) and ``Hybrid (R2)``
    (``MSE_DPLloyd(eps/2, 1)``)."""
    eps = np.asarray(epsilons, float)
    return pd.DataFrame({
        "epsilon": eps,
        "DPLloyd t=1": dplloyd_mse(n, d, k, eps, t=1),
        "DPLloyd t=5": dplloyd_mse(n, d, k, eps, t=5),
        "Var EUGkM": [eugkm_variance(n, e, d, k) for e in eps],
        "Hybrid (R1)": [hybrid_decision(n, d, k, e, "regression")["mse_hybrid"] for e in eps],
        "Hybrid (R2)": [hybrid_decision(n, d, k, e, "half")["mse_hybrid"] for e in eps],
    })


def hybrid_example(X, k, epsilon, *, hybrid=None, random_state=0, n_init=10, baseline_runs=5) -> pd.DataFrame:
    """NICV of the hybrid, EUGkM and DPLloyd-Impr on ``X`` at ``epsilon``, and of the non-private baseline.

    ``hybrid`` is a fitted :class:`~dpclust_core.kmeans.HybridKMeans` to report (fitted here with rule R2
    otherwise); EUGkM and DPLloyd-Impr are fitted with the same ``random_state``. Returns a frame indexed by
    method with the column ``NICV``.
    """
    if hybrid is None:
        hybrid = make_method("Hybrid", k, epsilon, n_init=n_init, random_state=random_state).fit(X)
    eug = make_method("EUGkM", k, epsilon, n_init=n_init, random_state=random_state).fit(X)
    dpl = make_method("DPLloyd-Impr", k, epsilon, random_state=random_state).fit(X)
    return pd.DataFrame({"NICV": [nicv(X, hybrid.scaled_centers_), nicv(X, eug.scaled_centers_),
                                  nicv(X, dpl.scaled_centers_), _baseline(X, k, baseline_runs)]},
                        index=pd.Index(["Hybrid", "EUGkM", "DPLloyd-Impr", "non-private"], name="method"))


def compare_methods(datasets, epsilons, *, methods=METHODS, n_runs=1, n_init=2, random_state=0,
                    baseline_runs=30) -> pd.DataFrame:
    """Every method on every dataset at every epsilon (the thesis's Figs. 4.1, 4.2 and 4.5).

    ``datasets`` maps a name to ``(X, k)`` with X in ``[-1, 1]^d``. ``n_runs`` is the number of runs of every
    (dataset, method, epsilon) cell — an int, or a dict from method name to runs (methods not in it get 1).
    Run ``j`` uses the seed ``random_state + j``. Returns a tidy frame: ``dataset``, ``d``, ``k``, ``method``,
    ``epsilon``, ``run``, ``nicv`` and ``baseline`` (the best of ``baseline_runs`` non-private Lloyd runs).
    """
    runs = {m: (n_runs.get(m, 1) if isinstance(n_runs, dict) else n_runs) for m in methods}
    runs = {m: check_int(r, f"n_runs[{m!r}]", 1, 10_000) for m, r in runs.items()}
    rows = []
    for dname, (X, k) in datasets.items():
        base = _baseline(X, k, baseline_runs)
        for eps in epsilons:
            for m in methods:
                for j in range(runs[m]):
                    est = make_method(m, k, eps, n_init=n_init, random_state=random_state + j).fit(X)
                    rows.append({"dataset": dname, "d": X.shape[1], "k": k, "method": m, "epsilon": eps, "run": j,
                                 "nicv": nicv(X, est.scaled_centers_), "baseline": base})
    return pd.DataFrame(rows)


def _cells(df):
    """dataset x epsilon x method table of the mean NICV over runs."""
    return df.groupby(["dataset", "epsilon", "method"])["nicv"].mean().unstack("method")


def comparison_summary(df, low_d, high_d, *, small_eps=0.3) -> pd.DataFrame:
    """The thesis's claims about the comparison, as the share of (dataset, epsilon) cells where each holds.

    ``low_d`` and ``high_d`` name the low- and high-dimensional datasets of ``df`` (from
    :func:`compare_methods`). Returns a frame indexed by the claim, with ``cells`` (how many (dataset, epsilon)
    cells the claim is about) and ``holds in % of the cells``.
    """
    t = _cells(df)
    lo = t.loc[t.index.get_level_values("dataset").isin(low_d)]
    hi = t.loc[t.index.get_level_values("dataset").isin(high_d)]
    both = t.loc[t.index.get_level_values("dataset").isin(list(low_d) + list(high_d))]
    lo_small = lo.loc[lo.index.get_level_values("epsilon") <= small_eps]
    best = both.min(axis=1)
    others = both.drop(columns=["GkM", "PGkM"]).max(axis=1)
    tiny = both.loc[both.index.get_level_values("epsilon") <= 0.1]
    claims = {
        f"low d, ε ≤ {small_eps:g}: EUGkM beats DPLloyd-Impr": (lo_small["EUGkM"] < lo_small["DPLloyd-Impr"]),
        "high d: DPLloyd-Impr beats EUGkM": (hi["DPLloyd-Impr"] < hi["EUGkM"]),
        "DPLloyd-Impr beats DPLloyd": (both["DPLloyd-Impr"] < both["DPLloyd"]),
        "ε ≤ 0.1: EUGkM beats MkM": (tiny["EUGkM"] < tiny["MkM"]),
        "GkM worse than every method but PGkM": (both["GkM"] >= others),
        "low d: Hybrid within 10% of the best": (lo["Hybrid"] <= 1.1 * lo.min(axis=1)),
        "high d: Hybrid within 10% of the best": (hi["Hybrid"] <= 1.1 * best.loc[hi.index]),
    }
    return pd.DataFrame({"cells": [len(v) for v in claims.values()],
                         "holds in % of the cells": [round(100.0 * float(v.mean())) for v in claims.values()]},
                        index=pd.Index(list(claims), name="claim"))


def best_methods(df, eps_groups=((0.05, 0.2), (0.5, 2.0))) -> pd.DataFrame:
    """The private method of least mean NICV per dataset over each range of epsilon in ``eps_groups`` (the mean
    over the epsilons of the range), written as ``"EUGkM (1.21)"``: the method and its NICV divided by the
    non-private NICV. Returns one row per dataset and one column per range."""
    t = _cells(df)
    base = df.groupby("dataset")["baseline"].first()
    out = {}
    for lo, hi in eps_groups:
        sel = t.loc[(t.index.get_level_values("epsilon") >= lo) & (t.index.get_level_values("epsilon") <= hi)]
        mean = sel.groupby("dataset").mean()
        best, ratio = mean.idxmin(axis=1), mean.min(axis=1) / base.loc[mean.index]
        label = f"ε = {lo:g}" if lo == hi else f"ε from {lo:g} to {hi:g}"
        out[label] = [f"{m} ({r:.2f})" for m, r in zip(best, ratio)]
        out[label] = pd.Series(out[label], index=mean.index)
    order = list(dict.fromkeys(df["dataset"]))
    frame = pd.DataFrame(out).loc[order]
    frame.columns.name = "best method (NICV ÷ non-private NICV)"
    return frame


def highd_fix(X, k, epsilon, *, seeds=(0, 1, 2)) -> pd.DataFrame:
    """GkM and PGkM with the thesis's rules and with the package's defaults, on high-dimensional data.

    Rows: GkM with its noisy average clipped to the range (``aggregate="clip"``) and with the posterior mean
    (the default); PGkM with initial candidates uniform in the whole domain (``init_spread=1``) and in the
    shrunk box (the default); DPLloyd-Impr; and two non-private references: one centre at the data mean, and
    the best of 3 Lloyd runs with k centres. Column ``NICV``: the mean over ``seeds``.
    """
    X = np.asarray(X, float)
    fits = {
        "GkM, noisy average clipped to the range (thesis)": lambda s: GkM(k, epsilon, bounds=_DOMAIN,
                                                                         aggregate="clip", random_state=s),
        "GkM, posterior mean (package)": lambda s: GkM(k, epsilon, bounds=_DOMAIN, random_state=s),
        "PGkM, candidates uniform in the domain (thesis)": lambda s: PGkM(k, epsilon, bounds=_DOMAIN,
                                                                         init_spread=1.0, random_state=s),
        "PGkM, candidates in a shrunk box (package)": lambda s: PGkM(k, epsilon, bounds=_DOMAIN, random_state=s),
        "DPLloyd-Impr": lambda s: DPLloyd(k, epsilon, bounds=_DOMAIN, random_state=s),
    }
    rows = {name: float(np.mean([nicv(X, f(s).fit(X).scaled_centers_) for s in seeds])) for name, f in fits.items()}
    rows["one centre at the data mean (not private)"] = nicv(X, X.mean(axis=0, keepdims=True))
    rows[f"best of 3 Lloyd runs, k = {k} (not private)"] = _baseline(X, k, 3)
    return pd.DataFrame({"NICV": list(rows.values())}, index=pd.Index(list(rows), name="method"))


def choose_k_runs(datasets, epsilons, *, n_runs=5, n_init=3, lloyd_runs=10, n_boot=0) -> pd.DataFrame:
    """The private choice of k (:func:`~dpclust_core.kmeans.choose_k`) ``n_runs`` times per dataset and epsilon,
    and the non-private choice (RT-validity of the best of ``lloyd_runs`` Lloyd runs on the data).

    The table is about the picks across runs, so by default no run computes its own stability (``n_boot=0``: the
    bootstrap is post-processing that changes neither the pick nor the later random draws).

    ``datasets`` maps a name to ``(X, k_range)``. Returns ``dataset``, ``epsilon`` (``inf`` for the
    non-private choice), ``run`` and ``k`` (for the non-private rows, ``run`` is the rank 0, 1, 2 of the three
    best k by validity).
    """
    rows = []
    for name, (X, k_range) in datasets.items():
        for eps in epsilons:
            for s in range(n_runs):
                with warnings.catch_warnings():  # the table reports the pick; its stability is not the point here
                    warnings.filterwarnings("ignore", message="choose_k:")
                    res = choose_k(X, eps, k_range, bounds=_DOMAIN, n_init=n_init, n_boot=n_boot, random_state=s)
                rows.append({"dataset": name, "epsilon": eps, "run": s, "k": res.k_})
        val = {k: rt_validity(X, best_of_lloyd(X, k, lloyd_runs, rng=0)[0]) for k in k_range}
        for rank, k in enumerate(sorted(val, key=val.get)[:3]):
            rows.append({"dataset": name, "epsilon": np.inf, "run": rank, "k": k})
    return pd.DataFrame(rows)


def choose_k_table(runs) -> pd.DataFrame:
    """The frame of :func:`choose_k_runs` as a table: one row per dataset and epsilon, the chosen k with
    their share of the runs (most frequent first); for the non-private row, the three best k by validity."""
    rows = []
    for (name, eps), g in runs.groupby(["dataset", "epsilon"], sort=False):
        if np.isinf(eps):
            text = ", then ".join(str(k) for k in g.sort_values("run")["k"])
            rows.append({"dataset": name, "ε": "∞ (not private)", "chosen k (share of runs)": text})
            continue
        counts = Counter(g["k"].tolist())
        text = ", ".join(f"{k} ({c / len(g):.0%})" for k, c in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
        rows.append({"dataset": name, "ε": f"{eps:g}", "chosen k (share of runs)": text})
    return pd.DataFrame(rows).set_index(["dataset", "ε"])


def top_choice(runs, dataset, epsilon):
    """The most frequent k of ``dataset`` at ``epsilon`` in :func:`choose_k_runs` (the best k for inf)."""
    g = runs[(runs["dataset"] == dataset) & (runs["epsilon"] == epsilon)]
    if np.isinf(epsilon):
        return int(g.sort_values("run")["k"].iloc[0])
    return int(Counter(g["k"].tolist()).most_common(1)[0][0])


def grid_cells(n, epsilon, dims) -> pd.DataFrame:
    """Cells per dimension of UGkM, EUGkM and MkM for N, epsilon and every d in ``dims`` (N public here)."""
    rows = []
    for d in dims:
        rows.append({"d": d, "EUGkM": cells_per_dimension(eugkm_grid_size(n, epsilon, d), d),
                     "UGkM": cells_per_dimension(ugkm_grid_size(n, epsilon), d),
                     "MkM": cells_per_dimension(mkm_grid_size(n, d), d)})
    return pd.DataFrame(rows).set_index("d")

