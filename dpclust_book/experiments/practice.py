"""Experiments of the chapter "Private clustering of your own data" and of the appendix "Privacy bugs in the wild".

The chapter runs one private analysis end to end on real data (3,376 US airports, bundled with the PyPI package
``vega_datasets``) under one budget, then measures how its steps behave over many seeds, what the error models
predict, and what ε means for one record (a membership attack). The appendix applies the book's ledger and
auditor to published code: IBM's diffprivlib ``KMeans`` (0.6.6), the Sparse Vector variants of chapter 5 and
the floating-point attack of chapter 1.

Repeated fits on the same data are *evaluation*: a data owner who released them all would pay for every one;
they are run only to measure the error distribution of a method or to audit a mechanism.

Examples
--------
>>> from dpclust_book.experiments import practice as ex
>>> X, names = ex.load_airports()
>>> X.shape, list(names.columns)[:2]
((3376, 2), ['iata', 'name'])
>>> ex.posterior_table([0.1, 1.0], priors=[0.5])["max posterior (prior 50%)"].round(3).tolist()
[0.525, 0.731]
"""
from __future__ import annotations

import contextlib
import math
import time
import warnings

import numpy as np
import pandas as pd

from dpclust_core import _kernels
from dpclust_core._validation import check_epsilon, check_int, check_rng
from dpclust_core.accounting import PrivacyLedger
from dpclust_core.advisor import expected_nicv, posterior_bound, recommend, synopsis_nicv
from dpclust_core.audit import audit
from dpclust_core.bounds import UnreliableBoundsError, private_bounds
from dpclust_core.count import private_count
from ..datasets import make_blobs_ratio
from dpclust_core.kmeans import (DPLloyd, EUGkM, HybridKMeans, best_of_lloyd, cells_per_dimension, choose_k,
                                 eugkm_grid_size, swapped_split_epsilon)
from ..evaluation import rt_validity
from dpclust_core.mechanisms import laplace_grid, laplace_mechanism, naive_laplace
from dpclust_core.metrics import nicv


def _table(df, fmt=None, **kwargs):
    """:func:`dpclust_book.style.table` (the experiments never import the plots)."""
    from ..style import table

    return table(df, fmt, **kwargs)

__all__ = ["load_planner_measurements", "PLAN", "K_RANGE", "LOG2_RANGE", "load_airports", "box_table", "bounds_coverage", "bounds_table",
           "diagnostics_table", "advice_text", "run_pipeline", "pipeline_runs", "runs_table", "choose_k_table", "ledger_by_step",
           "nonprivate_reference", "planner_models", "planner_measurements", "membership_attack",
           "posterior_table", "epsilon_meaning", "meaning_table", "n_public_effect", "recommend_table",
           # appendix
           "diffprivlib_ledger", "diffprivlib_spend_table", "diffprivlib_iteration_boundary",
           "audit_diffprivlib_iterations", "audit_diffprivlib_empty_cluster", "audit_dplloyd_empty_cluster",
           "svt_table", "svt_display", "float_attack_summary", "float_attack_display", "audit_table",
           "bugs_table"]

#: The chapter's budget plan (total ε = 1): a noisy N shared by every step, the bounds, the choice of k, the fit.
PLAN = {"N (noisy count)": 0.02, "bounds": 0.3, "choose k": 0.3, "fit": 0.38}
#: The candidate numbers of clusters (a public choice: between 3 and 8 regions).
K_RANGE = range(3, 9)
#: Public range of magnitudes for the bounds: coordinates in degrees lie between 2^-4 and 2^8 (or are ~0).
LOG2_RANGE = (-4, 8)


# ============================================================================================ the data
def load_airports():
    """The 3,376 US airports of ``vega_datasets`` (shipped inside the package: nothing is downloaded).

    Returns ``(X, names)``: ``X`` of shape (3376, 2) holds longitude and latitude in degrees (x east, y north,
    so a scatter plot is a map), ``names`` the other columns (iata, name, city, state, country).
    """
    from vega_datasets import data

    df = data.airports()
    X = df[["longitude", "latitude"]].to_numpy(dtype=float)
    return X, df.drop(columns=["longitude", "latitude"]).reset_index(drop=True)


# ============================================================================================ bounds
def bounds_coverage(X, epsilons, seeds, **kwargs) -> pd.DataFrame:
    """:func:`~dpclust_core.bounds.private_bounds` on ``X`` at every ε and seed (with ``on_unreliable="flag"``):
    one row per (ε, seed, column) with ``low``, ``high``, ``reliable`` (False where the default
    ``on_unreliable="raise"`` would have refused the box), ``coverage`` (fraction of the column inside) and
    ``width ratio`` (the box's width over the width of the column's 1 %–99 % range)."""
    X = np.asarray(X, dtype=float)
    q = np.quantile(X, [0.01, 0.99], axis=0)
    ref = q[1] - q[0]
    rows = []
    for eps in epsilons:
        for s in seeds:
            box = private_bounds(X, eps, random_state=s, **{"on_unreliable": "flag", **kwargs})
            low, high = box
            inside = np.mean((X >= low) & (X <= high), axis=0)
            for j in range(X.shape[1]):
                rows.append({"epsilon": eps, "seed": s, "column": j, "low": low[j], "high": high[j],
                             "reliable": box.reliable, "coverage": inside[j],
                             "width ratio": (high[j] - low[j]) / ref[j]})
    return pd.DataFrame(rows)


def box_table(X, low, high, columns=("longitude", "latitude")):
    """The released box, one row per column of ``X``: ``low`` and ``high`` (one decimal) and, for reference only
    (it reads the data), the share of the column's values inside. An HTML table."""
    X = np.asarray(X, dtype=float)
    low, high = np.asarray(low, dtype=float), np.asarray(high, dtype=float)
    inside = np.mean((X >= low) & (X <= high), axis=0)
    df = pd.DataFrame({"low": low, "high": high, "values inside (for reference)": inside},
                      index=pd.Index(list(columns), name="column"))
    return _table(df, {"low": "{:.1f}", "high": "{:.1f}", "values inside (for reference)": "{:.1%}"})


def bounds_table(cov: pd.DataFrame, columns=("longitude", "latitude")):
    """Summary of :func:`bounds_coverage` for display (an HTML table): per ε and column, how many runs were
    refused, and over the boxes handed back the median and lowest coverage (in %) and the median and largest
    width ratio."""
    runs = cov.groupby(["epsilon", "column"])["reliable"]
    ok = cov[cov["reliable"]].groupby(["epsilon", "column"])
    refused = runs.size() - runs.sum().astype(int)
    df = pd.DataFrame({"refused": refused.astype(str) + " of " + runs.size().astype(str),
                       "coverage (median)": ok["coverage"].median(), "coverage (lowest)": ok["coverage"].min(),
                       "width / 1–99 % range (median)": ok["width ratio"].median(),
                       "width / 1–99 % range (largest)": ok["width ratio"].max()}).reset_index()
    df["column"] = [columns[j] for j in df["column"]]
    df = df.rename(columns={"epsilon": "ε of the bounds"}).set_index(["ε of the bounds", "column"])
    fmt = {c: ("{:.1%}" if c.startswith("coverage") else "{:.2f}") for c in df.columns if c != "refused"}
    return _table(df, fmt, index_fmt="{:g}")


#: The columns of :meth:`~dpclust_core.bounds.BoundsDiagnostics.to_frame` the chapter shows.
DIAGNOSTIC_COLUMNS = ("epsilon", "non-zero (noisy)", "non-zero (lower bound)", "signal", "needed", "edges",
                      "low", "high", "reliable")


def diagnostics_table(diagnostics, columns=None):
    """The per-column diagnostics of :func:`~dpclust_core.bounds.private_bounds` (a
    :class:`~dpclust_core.bounds.BoundsDiagnostics`, from a box or from an
    :class:`~dpclust_core.bounds.UnreliableBoundsError`) for reading: one row per column, named by ``columns``,
    with the column's budget, the noisy count of its non-zero values and the count's lower bound, the signal
    against the threshold, how the edges were found, the box and the verdict (the last three left out when no
    column was located). Every entry is computed from releases: nothing here reads the data. An HTML table."""
    df = diagnostics.to_frame()[list(DIAGNOSTIC_COLUMNS)].copy()
    if columns is not None:
        df.index = pd.Index(list(columns), name="column")
    if df["low"].isna().all():  # refused from the counts: nothing was located
        df = df.drop(columns=["edges", "low", "high"])
    df["reliable"] = ["yes" if v else "no" for v in df["reliable"]]
    df = df.rename(columns={"epsilon": "ε", "non-zero (noisy)": "non-zero values (noisy)",
                            "non-zero (lower bound)": "lower bound (90 %)"})
    fmt = {"ε": "{:.3g}", "non-zero values (noisy)": "{:,.0f}", "lower bound (90 %)": "{:,.0f}",
           "signal": "{:.0f}", "needed": "{:.0f}", "low": "{:.1f}", "high": "{:.1f}"}
    return _table(df, {c: f for c, f in fmt.items() if c in df.columns})


def advice_text(error, width=88) -> str:
    """The message of an :class:`~dpclust_core.bounds.UnreliableBoundsError` for reading: one wrapped
    paragraph per clause (the message separates them with semicolons)."""
    import textwrap

    msg = str(error).removeprefix("private_bounds: ")
    parts = [p.strip() for p in msg.split("; ") if p.strip()]
    return "\n".join(textwrap.fill(p[0].upper() + p[1:] + ".", width, subsequent_indent="  ") for p in parts)


# ============================================================================================ the pipeline
def run_pipeline(X, plan=PLAN, *, k_range=K_RANGE, random_state=None, log2_range=LOG2_RANGE, method=None,
                 ledger=None):
    """The chapter's analysis in one call: noisy N, private bounds, private k, the recommended fit, the private
    NICV estimate — all in one ``PrivacyLedger(budget_epsilon=sum(plan))`` (or in ``ledger``, if given).

    ``plan`` maps the four steps (the keys of :data:`PLAN`) to their ε. ``method`` forces an estimator class
    (default: the one :func:`~dpclust_core.advisor.recommend` returns). Returns a dict with ``ledger``,
    ``n_hat``, ``bounds`` (the :class:`~dpclust_core.bounds.PrivateBox`), ``choice`` (the
    :class:`~dpclust_core.kmeans.choose_k.ChooseKResult`), ``recommendation``, ``model`` (the fitted estimator)
    and ``nicv_estimate``.

    Raises :class:`~dpclust_core.bounds.UnreliableBoundsError` when the bounds step refuses (the analysis stops
    there; what was spent is in ``ledger``).
    """
    rng = check_rng(random_state, "random_state")
    X = np.asarray(X, dtype=float)
    eps_n, eps_b, eps_k, eps_f = (plan[k] for k in PLAN)
    if ledger is None:
        ledger = PrivacyLedger(budget_epsilon=math.fsum(plan.values()))
    n_hat = private_count(X, eps_n, random_state=rng, ledger=ledger)
    box = private_bounds(X, eps_b, log2_range=log2_range, random_state=rng, ledger=ledger)
    with warnings.catch_warnings():  # the result carries the choice's stability (reliable_); the tables show it
        warnings.filterwarnings("ignore", message="choose_k:")
        ck = choose_k(X, eps_k, k_range, bounds=box, n_public=n_hat, random_state=rng, ledger=ledger)
    rec = recommend(n_hat, X.shape[1], ck.k_, eps_f)
    Est = rec.estimator if method is None else method
    est = Est(ck.k_, eps_f, bounds=box, n_public=n_hat, random_state=rng, ledger=ledger).fit(X)
    syn = [ck.synopsis_] + ([est.synopsis_] if getattr(est, "synopsis_", None) is not None else [])
    return {"ledger": ledger, "n_hat": n_hat, "bounds": box, "choice": ck, "recommendation": rec,
            "model": est, "nicv_estimate": synopsis_nicv(syn, est.cluster_centers_, box)}


def nonprivate_reference(X, k, bounds, n_init=10, seed=0):
    """The best of ``n_init`` non-private Lloyd runs (k-means++) on ``X`` clipped to ``bounds``: ``(centres,
    NICV)``. NOT private: only for measuring the private results on a public data set."""
    Xc = np.clip(np.asarray(X, dtype=float), bounds[0], bounds[1])
    C, _ = best_of_lloyd(Xc, k, n_init=n_init, rng=seed)
    return C, nicv(Xc, C)


def pipeline_runs(X, seeds, plan=PLAN, **kwargs) -> pd.DataFrame:
    """:func:`run_pipeline` once per seed: the chosen k, the method, the box's coverage, the true NICV of the
    released centres on the clipped data, the private estimate, the non-private NICV for that k and box, and the
    total ε spent. A run whose bounds were refused has the method "refused (bounds)", NaN elsewhere, and the ε
    it spent before stopping."""
    X = np.asarray(X, dtype=float)
    rows = []
    for s in seeds:
        ledger = PrivacyLedger(budget_epsilon=math.fsum(plan.values()))
        try:
            out = run_pipeline(X, plan, random_state=s, ledger=ledger, **kwargs)
        except UnreliableBoundsError:
            rows.append({"seed": s, "k": np.nan, "method": "refused (bounds)", "coverage": np.nan,
                         "NICV": np.nan, "NICV estimate": np.nan, "non-private NICV": np.nan,
                         "epsilon spent": ledger.epsilon})
            continue
        low, high = out["bounds"]
        Xc = np.clip(X, low, high)
        k = out["choice"].k_
        true = nicv(Xc, out["model"].cluster_centers_)
        _, base = nonprivate_reference(X, k, (low, high), n_init=5, seed=s)
        rows.append({"seed": s, "k": k, "method": out["recommendation"].method,
                     "coverage": float(np.mean(np.all((X >= low) & (X <= high), axis=1))),
                     "NICV": true, "NICV estimate": out["nicv_estimate"], "non-private NICV": base,
                     "epsilon spent": ledger.epsilon})
    return pd.DataFrame(rows)


def runs_table(runs: pd.DataFrame):
    """:func:`pipeline_runs` for reading (an HTML table): per run the chosen k, the method, the share of records
    inside the box, the NICV of the released centres, its private estimate, the non-private NICV, and the two
    ratios the chapter discusses (released / non-private, estimate / true)."""
    df = pd.DataFrame({"k": runs["k"].to_numpy(), "method": runs["method"].to_numpy(),
                       "records inside the box": runs["coverage"].to_numpy(),
                       "NICV": runs["NICV"].to_numpy(), "private estimate": runs["NICV estimate"].to_numpy(),
                       "non-private NICV": runs["non-private NICV"].to_numpy(),
                       "NICV / non-private": (runs["NICV"] / runs["non-private NICV"]).to_numpy(),
                       "estimate / NICV": (runs["NICV estimate"] / runs["NICV"]).to_numpy()},
                      index=pd.Index(runs["seed"].to_numpy(), name="run"))
    fmt = {"records inside the box": "{:.1%}", "NICV": "{:.1f}", "private estimate": "{:.1f}",
           "non-private NICV": "{:.1f}", "NICV / non-private": "{:.2f}", "estimate / NICV": "{:.2f}"}
    return _table(df, fmt)


def choose_k_table(choice, X=None, bounds=None) -> pd.DataFrame:
    """The validity of every candidate k from a :class:`~dpclust_core.kmeans.choose_k.ChooseKResult` (lower is better),
    with the chosen one marked; given ``X`` and ``bounds`` also the non-private validity (best of 5 Lloyd runs
    on the clipped data), for reference only."""
    ks = sorted(choice.scores_)
    df = pd.DataFrame({"k": ks, "private validity": [choice.scores_[k] for k in ks],
                       "chosen": ["✓" if k == choice.k_ else "" for k in ks]})
    if X is not None:
        Xc = np.clip(np.asarray(X, dtype=float), bounds[0], bounds[1])
        df["non-private validity (reference)"] = [rt_validity(Xc, best_of_lloyd(Xc, k, n_init=5, rng=0)[0])
                                                  for k in ks]
    return df.set_index("k").round(3)


def _step_of(row):
    grp, name = row["group"] or "", row["release"]
    if grp == "private_bounds" or name.startswith("bounds["):
        return "bounds"
    if grp.startswith("_ChooseK") or name.startswith("choose_k"):
        return "choose k"
    if grp.endswith(".fit"):
        return "fit"
    return name


def ledger_by_step(ledger: PrivacyLedger, plan=PLAN) -> pd.DataFrame:
    """The ledger summed per step of the plan: planned ε, spent ε and the number of releases, plus the total."""
    raw = ledger.rows()
    rows = pd.DataFrame({"step": [_step_of(r) for r in raw], "epsilon": [r["epsilon"] for r in raw]})
    spent = rows.groupby("step", sort=False)["epsilon"].agg(["sum", "size"])
    steps = list(plan) + [s for s in spent.index if s not in plan]
    df = pd.DataFrame({"planned ε": [plan.get(s, 0.0) for s in steps],
                       "spent ε": [spent["sum"].get(s, 0.0) for s in steps],
                       "releases": [int(spent["size"].get(s, 0)) for s in steps]}, index=pd.Index(steps, name="step"))
    df.loc["total"] = [math.fsum(plan.values()), ledger.epsilon, len(ledger)]
    df["releases"] = df["releases"].astype(int)
    return df.round(4)


def n_public_effect(n_true, n_hat, d, epsilon) -> pd.DataFrame:
    """EUGkM's grid (cells per dimension) sized from the exact N and from a released noisy N."""
    rows = []
    for label, n in (("exact N (published)", n_true), ("noisy N (released)", n_hat)):
        M = eugkm_grid_size(n, epsilon, d)
        rows.append({"N used": label, "N": f"{float(n):,.0f}", "cells per dimension": cells_per_dimension(M, d)})
    return pd.DataFrame(rows).set_index("N used")


def recommend_table(cases: dict, epsilons=(0.1, 1.0)) -> pd.DataFrame:
    """:func:`~dpclust_core.advisor.recommend` for every named ``(N, d, k)`` of ``cases`` and every ε: the
    method, EUGkM's cells per dimension and the modelled excess NICV of EUGkM, the hybrid and DPLloyd-Impr
    (data scaled to ``[-1, 1]^d``), as text rounded to two significant digits."""
    rows = []
    for name, (n, d, k) in cases.items():
        for e in epsilons:
            r = recommend(n, d, k, e)
            rows.append({"data": name, "ε": f"{e:g}", "recommended": r.method,
                         "EUGkM cells per dimension": f"{r.details['cells_per_dim_eugkm']:.1f}",
                         **{f"model: {m}": f"{r.expected[m]:.2g}" for m in ("EUGkM", "Hybrid", "DPLloyd-Impr")}})
    return pd.DataFrame(rows).set_index(["data", "ε"])


# ============================================================================================ the planner
PLANNER_METHODS = ("DPLloyd", "DPLloyd-Impr", "EUGkM", "Hybrid")


def planner_models(n, d, k, epsilons) -> pd.DataFrame:
    """:func:`~dpclust_core.advisor.expected_nicv` (scaled domain) over ``epsilons``: one column per method."""
    eps = np.asarray(epsilons, dtype=float)
    rows = [dict(epsilon=e, **expected_nicv(n, d, k, float(e))) for e in eps]
    return pd.DataFrame(rows)


def _planner_estimator(name, k, eps, n, seed, n_init):
    B = (-1.0, 1.0)
    if name == "DPLloyd":
        return DPLloyd(k, eps, bounds=B, variant="original", random_state=seed)
    if name == "DPLloyd-Impr":
        return DPLloyd(k, eps, bounds=B, n_public=n, random_state=seed)
    if name == "EUGkM":
        return EUGkM(k, eps, bounds=B, n_public=n, n_init=n_init, random_state=seed)
    return HybridKMeans(k, eps, bounds=B, n_public=n, n_init=n_init, random_state=seed)


def planner_measurements(ns=(1000, 3376, 10000), ks=(3, 5, 8), epsilons=(0.1, 0.5, 2.0), seeds=(0, 1), d=2,
                         methods=PLANNER_METHODS, n_init=5) -> pd.DataFrame:
    """Measured excess NICV (mean NICV over the seeds minus the best of 10 non-private Lloyd runs) of each method
    on synthetic blobs (``make_blobs_ratio(n, k, d)`` in ``[-1, 1]^d``, N public) at every (n, k, ε): the points
    next to the models of :func:`planner_models`."""
    rows = []
    for n in ns:
        for k in ks:
            X, _ = make_blobs_ratio(n, k, d, random_state=k)
            C, _ = best_of_lloyd(X, k, n_init=10, rng=0)
            base = nicv(X, C)
            for eps in epsilons:
                for name in methods:
                    vals = [nicv(X, _planner_estimator(name, k, eps, n, s, n_init).fit(X).cluster_centers_)
                            for s in seeds]
                    rows.append({"n": n, "k": k, "d": d, "epsilon": eps, "method": name,
                                 "excess": max(float(np.mean(vals)) - base, 0.0), "baseline": base})
    return pd.DataFrame(rows)


PLANNER_FILE = "planner_measurements.csv"


def load_planner_measurements() -> pd.DataFrame:
    """The measurements of :func:`planner_measurements` for d = 2, 4 and 8 (648 fits, a minute or two), as stored
    with the book so that the chapter opens fast; ``python benchmarks/bench_planner.py`` measures them again."""
    from importlib.resources import files

    return pd.read_csv(files("dpclust_book") / "data" / PLANNER_FILE)


# ============================================================================================ what ε means
def membership_attack(X, target, epsilon, bounds, n_hat, *, n_samples=200_000, random_state=None):
    """A membership attack on the released EUGkM synopsis of ``X``: is record ``target`` in the data?

    The attacker knows every other record and the public inputs, so she knows the grid (sized from the released
    ``n_hat``, ``epsilon`` and the dimension) and the exact count of the target's cell without the target; she
    looks at the released noisy count of that cell. Its law is the count plus the synopsis's discrete Laplace
    noise (:func:`~dpclust_core.mechanisms.laplace_mechanism` with sensitivity 1), drawn here directly.

    Returns a dict: ``audit`` (:func:`~dpclust_core.audit.audit` of the claim ``epsilon`` on the datasets with
    and without the target), ``fpr`` and ``tpr`` (the attack's ROC over thresholds), ``tpr_at_5`` (true positive
    rate at a 5 % false positive rate), ``bound_at_5`` (the ε-DP bound there), ``cell``, ``count``.
    """
    eps = check_epsilon(epsilon)
    rng = check_rng(random_state, "random_state")
    X = np.asarray(X, dtype=float)
    low, high = np.asarray(bounds[0], float), np.asarray(bounds[1], float)
    d = X.shape[1]
    m = cells_per_dimension(eugkm_grid_size(n_hat, eps, d), d)
    Z = _kernels.scale_into(X, low, high, 1.0)
    idx = np.zeros(len(Z), dtype=np.int64)
    for j in range(d):  # the C-order cell index, as the grid synopsis computes it
        idx = idx * m + np.clip(np.floor((Z[:, j] + 1.0) * m / 2.0).astype(np.int64), 0, m - 1)
    cell = int(idx[target])
    count_in = float(np.sum(idx == cell))

    def release(count, n, g):
        return laplace_mechanism(np.full(n, count), 1.0, eps, g, l0_sensitivity=1)

    res = audit(release, count_in, count_in - 1.0, eps, n_samples=n_samples, rng=rng)
    a = release(count_in, n_samples, rng)
    b = release(count_in - 1.0, n_samples, rng)
    ts = np.unique(np.quantile(np.concatenate([a, b]), np.linspace(0.0, 1.0, 201)))
    a.sort()
    b.sort()
    tpr = 1.0 - np.searchsorted(a, ts, side="right") / a.size
    fpr = 1.0 - np.searchsorted(b, ts, side="right") / b.size
    tpr = np.r_[1.0, tpr, 0.0]
    fpr = np.r_[1.0, fpr, 0.0]
    order = np.argsort(fpr, kind="stable")
    fpr, tpr = fpr[order], tpr[order]
    ok = fpr <= 0.05
    return {"audit": res, "fpr": fpr, "tpr": tpr, "tpr_at_5": float(tpr[ok].max()),
            "bound_at_5": float(min(1.0, math.exp(eps) * 0.05, 1.0 - math.exp(-eps) * 0.95)),
            "cell": cell, "cells": m ** d, "count": count_in, "epsilon": eps}


def posterior_table(epsilons, priors=(0.01, 0.5)) -> pd.DataFrame:
    """For every ε: ``e^ε`` and the largest posterior an attacker can reach from each prior
    (:func:`~dpclust_core.advisor.posterior_bound`)."""
    rows = []
    for e in epsilons:
        row = {"ε": e, "e^ε": math.exp(e)}
        for p in priors:
            row[f"max posterior (prior {p:.0%})"] = posterior_bound(p, e)
        rows.append(row)
    return pd.DataFrame(rows).set_index("ε")


def meaning_table(meaning: pd.DataFrame):
    """:func:`epsilon_meaning` for reading (an HTML table): e^ε to three significant digits, probabilities in %,
    the auditor's bound to two decimals."""
    fmt = {c: "{:.1%}" for c in meaning.columns if c.startswith(("max posterior", "TPR"))}
    fmt["e^ε"] = lambda v: f"{v:,.0f}" if v >= 100 else f"{v:.3g}"
    fmt["auditor: ε at least"] = "{:.2f}"
    return _table(meaning, fmt, index_fmt="{:g}")


def epsilon_meaning(attacks: dict, priors=(0.01, 0.5)) -> pd.DataFrame:
    """One row per ε of ``attacks`` (ε -> :func:`membership_attack` result): the posterior bounds, the DP bound
    on the attack's true positive rate at 5 % false positives, the measured one, and the auditor's lower bound."""
    df = posterior_table(list(attacks), priors)
    df["TPR at 5 % FPR: bound"] = [a["bound_at_5"] for a in attacks.values()]
    df["TPR at 5 % FPR: measured"] = [a["tpr_at_5"] for a in attacks.values()]
    df["auditor: ε at least"] = [a["audit"].epsilon_lower_bound for a in attacks.values()]
    return df.round(3)


# ============================================================================================ appendix: diffprivlib
@contextlib.contextmanager
def _recording_diffprivlib(events):
    """Patch diffprivlib's k-means module so that every mechanism it builds reports its parameters to
    ``events``: ``("round",)`` when a round starts, ``("count", ε, sensitivity)`` for every noisy cluster count,
    ``("sum", ε, sensitivity, lower_bound, upper_bound)`` for every noisy coordinate sum (with the data bounds of
    that coordinate). The mechanisms themselves are unchanged."""
    import diffprivlib.models.k_means as km

    geo, lap = km.GeometricFolded, km.LaplaceBoundedDomain
    state = {"bounds": None}

    class Geometric(geo):
        def __init__(self, **kw):
            super().__init__(**kw)
            events.append(("round",))

        def randomise(self, value):
            events.append(("count", self.epsilon, self.sensitivity))
            return super().randomise(value)

    class Laplace(lap):
        def __init__(self, **kw):
            super().__init__(**kw)
            j = 0  # the coordinate: how many sums of this cluster came just before
            while j < len(events) and events[-1 - j][0] == "sum":
                j += 1
            lo, hi = state["bounds"][0][j], state["bounds"][1][j]
            events.append(("sum", self.epsilon, self.sensitivity, lo, hi))

    orig_update = km.KMeans._update_centers

    def update(self, X, centers, labels, dims, total_iters, random_state):
        state["bounds"] = self.bounds
        return orig_update(self, X, centers, labels, dims, total_iters, random_state)

    km.GeometricFolded, km.LaplaceBoundedDomain, km.KMeans._update_centers = Geometric, Laplace, update
    try:
        yield
    finally:
        km.GeometricFolded, km.LaplaceBoundedDomain, km.KMeans._update_centers = geo, lap, orig_update


def diffprivlib_ledger(X, n_clusters, epsilon, bounds, *, random_state=0, true_sensitivity=False):
    """Fit diffprivlib's ``KMeans`` and record, in a :class:`~dpclust_core.accounting.PrivacyLedger`, every
    noisy release it makes with the ε its own mechanisms are given.

    Every round is a parallel block (the clusters are disjoint parts of the data) and every cluster a
    partition: its count and its d coordinate sums compose sequentially. With ``true_sensitivity=True`` a sum's
    entry is the privacy loss under add/remove-one instead: a record changes a coordinate sum by up to
    ``max(|low|, |high|)``, not by the width ``high - low`` that diffprivlib calibrates with, so the entry is
    ``ε_i · max(|low|, |high|) / (high - low)``.

    Returns ``(ledger, model)``.
    """
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import KMeans

    events = []
    with _recording_diffprivlib(events), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = KMeans(n_clusters, epsilon=epsilon, bounds=bounds, random_state=random_state,
                       accountant=BudgetAccountant()).fit(X)
    led = PrivacyLedger()
    r, i = 0, 0
    while i < len(events):
        assert events[i][0] == "round"
        r += 1
        i += 1
        with led.parallel(f"round {r}") as par:
            c = 0
            while i < len(events) and events[i][0] == "count":
                with par.partition():
                    _, e0, s0 = events[i]
                    led.record(f"round {r}, cluster {c}: count", e0, sensitivity=s0)
                    i += 1
                    j = 0
                    while i < len(events) and events[i][0] == "sum":
                        _, ei, si, lo, hi = events[i]
                        if true_sensitivity:
                            true = max(abs(lo), abs(hi))
                            led.record(f"round {r}, cluster {c}: sum {j}", ei * true / si, sensitivity=true)
                        else:
                            led.record(f"round {r}, cluster {c}: sum {j}", ei, sensitivity=si)
                        i += 1
                        j += 1
                c += 1
    return led, model


def diffprivlib_spend_table(dims, epsilon=1.0, *, n=300, n_clusters=3, seed=0) -> pd.DataFrame:
    """ε asked of diffprivlib's ``KMeans`` against ε spent, for every d in ``dims``.

    ``spent (its own mechanisms)``: the ledger of :func:`diffprivlib_ledger` on uniform data in ``[0, 1]^d``
    (where the width is the true sensitivity); ``formula``: :func:`~dpclust_core.kmeans.error_models.swapped_split_epsilon`;
    ``true ε, box [-1, 1]^d`` and ``true ε, box [1, 2]^d``: the add/remove privacy loss when the public box does
    (sums over-noised twice) or does not (under-noised twice) contain 0; ``diffprivlib's accountant``: what its
    own ``BudgetAccountant`` records.
    """
    rng = np.random.default_rng(seed)
    eps = check_epsilon(epsilon)
    rows = []
    for d in dims:
        d = check_int(d, "d", 1, 10_000)
        U = rng.uniform(size=(n, d))
        led, model = diffprivlib_ledger(U, n_clusters, eps, (np.zeros(d), np.ones(d)), random_state=seed)
        true = {}
        for label, (lo, hi) in (("[-1, 1]", (-1.0, 1.0)), ("[1, 2]", (1.0, 2.0))):
            led2, _ = diffprivlib_ledger(lo + (hi - lo) * U, n_clusters, eps, (np.full(d, lo), np.full(d, hi)),
                                         random_state=seed, true_sensitivity=True)
            true[label] = led2.epsilon
        rows.append({"d": d, "ε asked": eps, "rounds": model.n_iter_,
                     "diffprivlib's accountant": model.accountant.total()[0],
                     "spent (its own mechanisms)": led.epsilon, "formula": swapped_split_epsilon(d, eps),
                     "true ε, box [-1, 1]^d": true["[-1, 1]"], "true ε, box [1, 2]^d": true["[1, 2]"]})
    return pd.DataFrame(rows).set_index("d")


def _dpl_iters(k, d, n, epsilon):
    from diffprivlib.models import KMeans

    return KMeans(k, epsilon=epsilon)._calc_iters(d, n)


def diffprivlib_iteration_boundary(n_clusters=2, d=2, epsilon=1.0, n_max=100_000):
    """The smallest N at which diffprivlib's ``KMeans`` runs one more round with N + 1 records than with N
    (its ``_calc_iters`` reads the exact N). Returns ``(N, rounds with N, rounds with N + 1)``."""
    lo_n = 1
    base = _dpl_iters(n_clusters, d, lo_n, epsilon)
    hi_n = 2
    while hi_n <= n_max and _dpl_iters(n_clusters, d, hi_n, epsilon) == base:
        hi_n *= 2
    hi_n = min(hi_n, n_max)
    while hi_n - lo_n > 1:  # rounds are non-decreasing in N: bisect for the first change
        mid = (lo_n + hi_n) // 2
        if _dpl_iters(n_clusters, d, mid, epsilon) == base:
            lo_n = mid
        else:
            hi_n = mid
    return lo_n, _dpl_iters(n_clusters, d, lo_n, epsilon), _dpl_iters(n_clusters, d, lo_n + 1, epsilon)


def _dpl_fits(X, n, rng, k, epsilon, bounds, statistic):
    from diffprivlib.accountant import BudgetAccountant
    from diffprivlib.models import KMeans

    seeds = rng.integers(0, 2**31 - 1, size=n)
    out = np.empty(n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i, s in enumerate(seeds):  # one fit per sample: a loop over independent runs, not over data
            out[i] = statistic(KMeans(k, epsilon=epsilon, bounds=bounds, random_state=int(s),
                                      accountant=BudgetAccountant()).fit(X))
    return out


def audit_diffprivlib_iterations(n_samples=100, *, epsilon=1.0, n_clusters=2, random_state=None):
    """Audit diffprivlib's ``KMeans`` at ``epsilon`` on two neighbouring datasets of N and N + 1 records (N from
    :func:`diffprivlib_iteration_boundary`), looking only at the released ``n_iter_``. Returns ``(AuditResult,
    N)``."""
    rng = check_rng(random_state, "random_state")
    n0, _, _ = diffprivlib_iteration_boundary(n_clusters, 2, epsilon)
    gen = np.random.default_rng(1)
    D = gen.uniform(0.2, 0.8, size=(n0 + 1, 2))
    bounds = ([0.0, 0.0], [1.0, 1.0])

    def mech(data, n, g):
        return _dpl_fits(data, n, g, n_clusters, epsilon, bounds, lambda m: m.n_iter_)

    return audit(mech, D[:n0], D, epsilon, n_samples=n_samples, rng=rng), n0


#: The empty-cluster audit: a narrow first coordinate makes diffprivlib's initial centres share it exactly.
EMPTY_BOUNDS = ([0.0, 0.0], [1.0, 10.0])


def _empty_cluster_data(n=100):
    """D: ``n`` records at (0.5, 0.5); D': the same and one record at (0.5, 9.5)."""
    D = np.tile([[0.5, 0.5]], (n, 1))
    return D, np.vstack([D, [[0.5, 9.5]]])


def _kept_initial(model):
    """1.0 if some released centre still has the first coordinate of the initial centres (0.5 exactly)."""
    return float(np.any(model.cluster_centers_[:, 0] == 0.5))


def audit_diffprivlib_empty_cluster(n_samples=200, *, epsilon=1.0, random_state=None):
    """Audit diffprivlib's ``KMeans`` (k = 2) at ``epsilon`` on D = 100 records at (0.5, 0.5) and D' = D plus
    one record at (0.5, 9.5), in the box ``[0, 1] × [0, 10]``.

    diffprivlib draws the initial centres with the first coordinate at the box's middle, 0.5 exactly (the box
    is narrow in that coordinate). On D every record is nearest to the same centre, so the other cluster is
    empty; its centre is skipped ("if cluster not in labels: continue") and keeps 0.5 exactly. On D' the extra
    record makes it non-empty and its centre becomes a noisy mean. The event "a released centre has first
    coordinate exactly 0.5" is then (nearly) certain on D and (nearly) impossible on D'. Returns the
    :class:`~dpclust_core.audit.AuditResult`.
    """
    rng = check_rng(random_state, "random_state")
    D, Dn = _empty_cluster_data()

    def mech(data, n, g):
        return _dpl_fits(data, n, g, 2, epsilon, EMPTY_BOUNDS, _kept_initial)

    return audit(mech, D, Dn, epsilon, n_samples=n_samples, rng=rng)


def audit_dplloyd_empty_cluster(n_samples=2000, *, epsilon=1.0, random_state=None):
    """The same audit as :func:`audit_diffprivlib_empty_cluster` on the book's
    :class:`~dpclust_core.kmeans.DPLloyd` (DPLloyd-Impr, 2 rounds), started from public initial centres with
    first coordinate 0.5: every cluster is noised, empty or not. Returns the
    :class:`~dpclust_core.audit.AuditResult`."""
    rng = check_rng(random_state, "random_state")
    D, Dn = _empty_cluster_data()
    init = np.array([[0.5, 2.5], [0.5, 7.5]])

    def mech(data, n, g):
        seeds = g.integers(0, 2**31 - 1, size=n)
        return np.array([_kept_initial(DPLloyd(2, epsilon, bounds=EMPTY_BOUNDS, init=init, n_rounds=2,
                                               random_state=int(s)).fit(data)) for s in seeds])

    return audit(mech, D, Dn, epsilon, n_samples=n_samples, rng=rng)


# ============================================================================================ appendix: SVT, floats
def svt_table(epsilon=1.0, *, n_audit=20_000, random_state=None) -> pd.DataFrame:
    """Every Sparse Vector variant of chapter 5 in one table: its source, the ε it claims, its actual ε (c = 1
    and c = 10), the exact privacy loss ln R on its counterexample, the auditor's p-value (``n_audit`` runs per
    input and batch; 200,000 for Roth 2011, whose event is rare), and the standard deviation of its comparison
    noise ν − ρ at c = 1 and c = 10 relative to the correct Alg. 17 (what the broken variants save, and what
    correctness costs)."""
    from dpclust_core import svt

    from ..svt_exact import audit_variant, privacy_loss
    from .svt import counterexample

    rng = check_rng(random_state, "random_state")
    eps = check_epsilon(epsilon)
    ref_std = {c: math.hypot(svt.noise_config("lyu_su_li", eps, c).b_rho, svt.noise_config("lyu_su_li", eps, c).b_nu)
               for c in (1, 10)}
    rows = []
    for name, v in svt.VARIANTS.items():
        ce = counterexample(name, 10)
        args = (0.0, eps, ce["c"], ce["output"])
        lr = privacy_loss(name, ce["queries"], ce["queries_neighbour"], *args, upper=ce["upper"])
        n = 200_000 if name == "roth_2011" else n_audit
        res = audit_variant(name, ce["queries"], ce["queries_neighbour"], 0.0, eps, ce["c"], n_samples=n,
                            rng=rng)
        std = {c: math.hypot(*(lambda g: (g.b_rho, g.b_nu))(svt.noise_config(name, eps, c))) for c in (1, 10)}
        rows.append({"variant": name, "source": v.source, "claimed": v.claimed,
                     "actual ε (c = 1)": v.actual_epsilon(eps, 1), "actual ε (c = 10)": v.actual_epsilon(eps, 10),
                     "exact ln R": lr, "auditor p-value": res.p_value, "audit runs": n,
                     "noise vs correct (c = 1)": std[1] / ref_std[1],
                     "noise vs correct (c = 10)": std[10] / ref_std[10], "private": v.private})
    return pd.DataFrame(rows).set_index("variant")


def _p_text(p: float) -> str:
    """A p-value for reading: two significant digits, and "< 10⁻³⁰⁰" where it underflows to 0."""
    return "<\u00a010⁻³⁰⁰" if p <= 0 else f"{p:.2g}"


def _p_is(p: float) -> str:
    """"p = 0.003", or "p < 10⁻³⁰⁰" where the p-value underflows to 0."""
    return "p <\u00a010⁻³⁰⁰" if p <= 0 else f"p = {p:.1g}"


def svt_display(df: pd.DataFrame) -> pd.DataFrame:
    """:func:`svt_table` for reading, one row per variant named by its source: ε values to two decimals (∞
    written out), p-values to two significant digits, noise ratios to two decimals, every cell as text (the
    number of audit runs, the same on every row, is left out)."""
    def eps(x):
        return "∞" if math.isinf(x) else f"{x:.2f}"

    src = [s_.replace(" (this chapter)", "") for s_ in df["source"]]
    out = pd.DataFrame(index=pd.Index(src, name="variant (source)"))
    out["private?"] = ["yes" if v else "no" for v in df["private"]]
    out["actual ε (c = 1)"] = [eps(x) for x in df["actual ε (c = 1)"]]
    out["actual ε (c = 10)"] = [eps(x) for x in df["actual ε (c = 10)"]]
    out["exact ln R"] = [eps(x) for x in df["exact ln R"]]
    out["auditor p-value"] = [_p_text(p) for p in df["auditor p-value"]]
    out["noise vs correct (c = 1)"] = [f"{x:.2f}" for x in df["noise vs correct (c = 1)"]]
    out["noise vs correct (c = 10)"] = [f"{x:.2f}" for x in df["noise vs correct (c = 10)"]]
    return out


def float_attack_summary(n=200_000, *, epsilon=0.5, random_state=None) -> pd.DataFrame:
    """Chapter 1's floating-point attack in one table: for the textbook sampler
    (:func:`~dpclust_core.mechanisms.naive_laplace`) and the package's
    :func:`~dpclust_core.mechanisms.laplace_mechanism`, ``n`` releases of the count 5 and of its neighbour 6: how
    often the test ``|y - 6| - |y - 5| > 1`` fires on each, the auditor's p-value on that test, the noise scale
    relative to ``1/ε`` and the time of 10^6 releases relative to numpy's sampler."""
    from .basics import float_attack

    rng = check_rng(random_state, "random_state")
    eps = check_epsilon(epsilon)

    def textbook(value, m, g):
        return naive_laplace(np.full(m, value), 1.0, eps, g)

    def package(value, m, g):
        return laplace_mechanism(np.full(m, value), 1.0, eps, g, l0_sensitivity=1)

    def seconds(mech):
        best = math.inf
        for _ in range(3):
            t = time.perf_counter()
            mech(5.0, 10**6, rng)
            best = min(best, time.perf_counter() - t)
        return best

    t_np = seconds(textbook)
    gamma, steps = laplace_grid(1.0, 1)
    rows = []
    for mech, scale in ((textbook, 1.0), (package, steps * gamma)):
        e5 = int(float_attack(mech(5.0, n, rng)).sum())
        e6 = int(float_attack(mech(6.0, n, rng)).sum())
        res = audit(mech, 5.0, 6.0, eps, n_samples=n, statistic=lambda y: float_attack(y).astype(float), rng=rng)
        rows.append({"sampler": "textbook (numpy)" if mech is textbook else "package (discrete, on a grid)",
                     "events from 5": e5, "events from 6": e6, "auditor p-value": res.p_value,
                     "ε at least": res.epsilon_lower_bound, "noise scale × ε": scale,
                     "time / numpy's": seconds(mech) / t_np if mech is package else 1.0})
    return pd.DataFrame(rows).set_index("sampler")


def audit_table(results: dict) -> pd.DataFrame:
    """One row per named :class:`~dpclust_core.audit.AuditResult`: runs per dataset, how often the selected event
    happened on the first dataset D and on its neighbour D′ (fresh batch), the p-value, the verdict at the 0.01
    level and the empirical lower bound on ε."""
    rows = []
    for name, res in results.items():
        c1, c2 = res.counts if res.direction == "D1>D2" else res.counts[::-1]
        rows.append({"audit": name, "runs per dataset": res.n_samples, "event on D": int(c1),
                     "event on D′": int(c2), "p-value": _p_text(res.p_value),
                     "verdict": "violation" if res.rejects(0.01) else "no violation found",
                     "ε at least": f"{res.epsilon_lower_bound:.2f}"})
    return pd.DataFrame(rows).set_index("audit")


def float_attack_display(floats: pd.DataFrame) -> pd.DataFrame:
    """:func:`float_attack_summary` for reading: counts as integers, the p-value to two significant digits,
    the bound on ε and the ratios rounded, every cell as text."""
    out = pd.DataFrame(index=floats.index)
    out["test fires on 5"] = [f"{int(v):,}" for v in floats["events from 5"]]
    out["test fires on 6"] = [f"{int(v):,}" for v in floats["events from 6"]]
    out["auditor p-value"] = [_p_text(p) for p in floats["auditor p-value"]]
    out["ε at least"] = [f"{v:.2f}" for v in floats["ε at least"]]
    out["noise scale × ε"] = [f"{v:.4f}" for v in floats["noise scale × ε"]]
    out["time / numpy's"] = [f"{v:.1f}" for v in floats["time / numpy's"]]
    return out


def bugs_table(spend: pd.DataFrame, iters, empty, svt_df: pd.DataFrame, floats: pd.DataFrame) -> pd.DataFrame:
    """Every bug of the appendix in one table (each claims ε-DP): what holds instead, how it was found, the fix
    and what the fix costs."""
    worst = spend["spent (its own mechanisms)"].max()
    d_worst = int(spend["spent (its own mechanisms)"].idxmax())
    broken = svt_df[~svt_df["private"]]
    saving = 1.0 / broken["noise vs correct (c = 10)"].min()
    fp, pk = floats.iloc[0], floats.iloc[1]
    t_ratio = pk["time / numpy's"]
    svt_actual = "; ".join(f"{src.replace(' (this chapter)', '')}: {'∞' if math.isinf(a) else f'{a:.2f} ε'}"
                           for src, a in zip(broken["source"], broken["actual ε (c = 10)"]))
    rows = [
        ("diffprivlib 0.6.6 KMeans: count and sum shares swapped",
         f"up to {worst:.2f} ε (d = {d_worst}); {spend['true ε, box [1, 2]^d'].max():.2f} ε when the box "
         "excludes 0", "ledger of its mechanisms' parameters", "unpack the pair in the right order",
         "nothing"),
        ("diffprivlib 0.6.6 KMeans: rounds read the exact N",
         f"∞ (n_iter_ differs between N = {iters[1]} and N + 1)", f"auditor, {_p_is(iters[0].p_value)}",
         "rounds from a noisy N (as DPLloyd-Impr here)", "5 % of ε for the noisy N"),
        ("diffprivlib 0.6.6 KMeans: empty clusters skipped", "∞ (a centre stays exactly put)",
         f"auditor, {_p_is(empty.p_value)}", "noise every cluster, empty or not", "nothing"),
        (f"Sparse Vector: {len(broken)} published variants",
         svt_actual + " (c = 10)", "exact ln R and auditor", "the correct version (thesis Alg. 17 or 23)",
         f"comparison noise up to {saving:.0f}× larger (c = 10)"),
        ("Textbook floating-point Laplace", "∞ (low bits reveal the input)",
         f"auditor, {_p_is(fp['auditor p-value'])}", "discrete noise on a power-of-two grid",
         f"{(pk['noise scale × ε'] - 1) * 100:.1f} % more noise, {t_ratio:.1f}× the time"),
    ]
    return pd.DataFrame(rows, columns=["bug (each claims ε-DP)", "actual privacy", "found by", "fix",
                                       "cost of the fix"]).set_index("bug (each claims ε-DP)")
