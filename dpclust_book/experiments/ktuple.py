"""Experiments of the chapters "k-tuple clustering" and "Private Gaussian mixtures".

Each function runs one experiment of Cohen, Kaplan, Mansour, Stemmer & Tsfadia (ICML 2021) or one check of
the book, over several budgets, sizes or seeds, and returns a tidy ``pandas.DataFrame`` that the chapter shows
as a table or hands to :mod:`dpclust_book.plots.ktuple`. The repetitions are *simulations*: running a private
algorithm many times on the same data would spend the budget many times over; they are run only to measure
how often it succeeds.

Tuple sets come from the exact simulators of the package (:func:`dpclust_book.experiments.ktuple.simulate_tuples`,
:func:`dpclust_book.experiments.mixtures.simulate_chunk_means`), which give the tuples k-means++ would produce on chunks of a
mixture when it recovers the chunk's true partition, at a cost of O(k d) a tuple.

Examples
--------
>>> from dpclust_book.experiments import ktuple as kx
>>> kx.good_centers_table(300, [1.0, 4.0]).columns.tolist()
['epsilon', 'm', 'pass threshold', 'slack ℓ']
"""
from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Literal

import numpy as np
import pandas as pd

from dpclust_core import _kernels
from dpclust_core import gmm as _gmm
from dpclust_core import ktuple as _kt
from dpclust_core._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, RNGLike, check_bool, check_data, check_options,
                                      check_int, check_real, check_rng)
from dpclust_core.kmeans import DPLloyd, EUGkM
from dpclust_core.ktuple import MAX_TUPLES, PrivatekAverages, PrivatekNoisyCenters
from dpclust_core.tuples import chunk_tuples
from dpclust_core.tuples import separation as _separation

from . import gmm as _gx
from . import mixtures as _mx


def _positive(x, name):
    return check_real(x, name, low=0.0, low_open=True)


def _vector(v, name, length):
    """A finite real vector of the given length."""
    arr = check_data(v, name, ndim=1)
    if arr.shape != (length,):
        raise ValueError(f"{name} must be a vector of length {length}, got shape {arr.shape}")
    return arr


__all__ = [
    # chapter 7
    "ledger_table", "ledger_frame", "corrupt_tuples", "partition_counts", "good_centers_table", "soft_test_rates", "kaverages_slack",
    "kaverages_budget", "simulator_check", "tuples_sweep", "noisy_centers_samples_needed", "averages_check",
    "blobs", "kmeans_easy_comparison", "spread_sweep", "noisy_centers_run", "audit_pair",
    # chapter 8
    "gmm_public_parameters", "em_params", "mixture_errors", "chunk_means_check", "sample_complexity_tests",
    "true_means_failure_rate", "averages_at_minimum", "naive_baseline", "private_gmm_errors", "errors_vs_n",
    "errors_vs_separation", "separation_grid", "private_gmm_simulated",
    # the fast tuple simulator and the success criterion (§7)
    "simulate_tuples", "match_centers", "ktuple_trials",
    # tuple sets of real data
    "kmeans_tuples",
]


# ============================================================================ display
def ledger_table(ledger):
    """:func:`ledger_frame` styled for a narrow page: release names wrap, index hidden (a pandas ``Styler``;
    its ``.data`` is the DataFrame).

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> led.record("count", 0.5)
    >>> ledger_table(led).data.shape
    (2, 4)
    """
    df = ledger_frame(ledger).reset_index()
    return (df.style.hide(axis="index").set_table_attributes('class="dataframe"')
            .set_properties(subset=["release"], **{"white-space": "normal", "text-align": "left",
                                                   "min-width": "14em", "max-width": "24em"})
            .set_properties(subset=["composed as"], **{"white-space": "normal", "text-align": "left"})
            .set_table_styles([{"selector": "th.col_heading.col0", "props": "text-align: left;"}]))


def ledger_frame(ledger) -> pd.DataFrame:
    """A compact table of a :class:`~dpclust_core.accounting.PrivacyLedger`: one row per release (its ε and
    δ as recorded) with how it is composed (``part p`` of a parallel group, ``sampled m of n``: amplified by
    subsampling, ``group of g``: group privacy, ``advanced``: advanced composition), then the composed total. Numbers are formatted to 3 significant digits.

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> led.record("count", 0.5)
    >>> ledger_frame(led).index.tolist()
    ['count', 'total (composed)']
    """
    rows = []

    def how(rule):
        if rule[0] == "subsample_wor":
            return f"sampled {rule[1]} of {rule[2]}"
        if rule[0] == "group_privacy":
            return f"group of {rule[1]}"
        return "advanced"

    def walk(grp, notes):
        for part, item in grp.items:
            here = list(notes)
            if grp.parallel and part is not None:
                here.append(f"part {part}")
            if hasattr(item, "items"):
                walk(item, here + ([how(item.rule)] if item.rule is not None else []))
            else:
                rows.append({"release": _readable(item.name), "ε": f"{item.epsilon:.3g}",
                             "δ": f"{item.delta:.3g}", "composed as": "; ".join(here)})

    walk(ledger._root, [])
    eps, dl = ledger.total()
    rows.append({"release": "total (composed)", "ε": f"{eps:.3g}", "δ": f"{dl:.3g}", "composed as": ""})
    return pd.DataFrame(rows).set_index("release")


_NAME_FIXES = [(re.compile(r"^gmm: "), ""), (re.compile(r" -> "), " → "), (re.compile(r"\brho2\^2\b"), "ρ₂²"),
               (re.compile(r"\brho_i\b"), "ρ_i"), (re.compile(r"\(1\+e\^ε\)·δ_s"), "(1 + e^ε) δ_s"),
               (re.compile(r"\bsens\b"), "sensitivity")]


def _readable(name: str) -> str:
    """A ledger entry's name for a reader: '[row i]' becomes 'centre i+1', ASCII arrows and names become
    symbols."""
    m = re.match(r"^Gaussian centre \((.*)\) \[row (\d+)\]$", name)
    if m:
        return f"centre {int(m.group(2)) + 1}: Gaussian noise ({m.group(1)})"
    name = re.sub(r" \[row (\d+)\]", lambda m: f", row {int(m.group(1)) + 1}", name)
    for pat, rep in _NAME_FIXES:
        name = pat.sub(rep, name)
    return name


# ============================================================================ chapter 7
def corrupt_tuples(T, rng=None, *, n_merged: int = 2, n_stray: int = 2, offset=(0.4, -0.3), box: float = 8.0):
    """A copy of the tuple set ``T`` (n, k, 2) with ``n_merged + n_stray`` spoiled tuples at the front.

    The first ``n_merged`` tuples get their first point moved next to their second one (two points in one
    ball); the next ``n_stray`` get their first point drawn uniformly in ``[-box, box]²`` (a point outside
    every ball). Returns the new array.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.zeros((5, 3, 2))
    >>> corrupt_tuples(T, rng=0)[0, 0].tolist()
    [0.4, -0.3]
    """
    T = check_data(T, "T", ndim=3)
    a = check_int(n_merged, "n_merged", 0, T.shape[0])
    b = check_int(n_stray, "n_stray", 0, T.shape[0] - a)
    rng = check_rng(rng, "rng")
    out = T.copy()
    out[:a, 0] = out[:a, 1] + np.asarray(offset, dtype=float)
    out[a:a + b, 0] = rng.uniform(-box, box, size=(b, T.shape[2]))  # not privacy noise: spoiled test data
    return out


def partition_counts(tuple_sets: dict, X, gamma: float) -> pd.DataFrame:
    """For each named tuple set, how many of its tuples the balls ``B(x_i, D_i(X)/gamma)`` of the tuple ``X``
    partition (the non-private statistic q_X of the niceness test).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[[0.0, 0.0], [10.0, 0.0]], [[0.0, 0.0], [0.5, 0.0]]])
    >>> partition_counts({"T": T}, T[0], 10.0)["partitioned"].tolist()
    [1]
    """
    rows = []
    for name, T in tuple_sets.items():
        q, _ = _kt.close_tuple_counts(T, X, gamma)
        rows.append({"tuple set": name, "tuples": int(np.shape(T)[0]), "partitioned": int(q[0])})
    return pd.DataFrame(rows).set_index("tuple set")


def good_centers_table(n: int, epsilons, delta: float = 1e-6, beta: float = 0.05) -> pd.DataFrame:
    """Public parameters of GoodCenters on ``n`` tuples for each ε: the sample size m, the pass threshold
    ``ln(2m/β)/ε₁`` (how many unpartitioned tuples a candidate may miss and still pass) and the slack ℓ.

    Examples
    --------
    >>> good_centers_table(300, [4.0])["m"].tolist()
    [3]
    """
    rows = []
    for eps in epsilons:
        p = _kt.good_centers_params(n, eps, delta, beta)
        rows.append({"epsilon": float(eps), "m": p["m"], "pass threshold": math.log(2 * p["m"] / beta) / p["eps1"],
                     "slack ℓ": p["ell"]})
    return pd.DataFrame(rows)


def soft_test_rates(T, epsilons, n_bad, *, n_runs: int = 1000, delta: float = 1e-6, beta: float = 0.05,
                    gamma: float = 10.0, shift: float = 0.3, rng=None) -> pd.DataFrame:
    """Success rate of GoodCenters on ``T`` with its first ``b`` tuples spoiled, for every ``b`` in ``n_bad``
    and every ε (``n_runs`` status bits each, :func:`~dpclust_core.ktuple.good_centers_status_samples`).

    A spoiled tuple has its second point moved to ``first point + shift``: both points in one ball.
    Returns columns ``epsilon``, ``corrupted``, ``success rate``.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_book.experiments.ktuple import simulate_tuples
    >>> T = simulate_tuples(20 * np.eye(2), 300, 0.05, rng=0)
    >>> df = soft_test_rates(T, [4.0], [0, 60], n_runs=200, rng=0)
    >>> bool(df["success rate"].iloc[0] > 0.9), bool(df["success rate"].iloc[1] < 0.1)
    (True, True)
    """
    T = check_data(T, "T", ndim=3)
    rng = check_rng(rng, "rng")
    rows = []
    for eps in epsilons:  # loop over budgets, then over the number of spoiled tuples
        for b in n_bad:
            Tb = T.copy()
            Tb[:b, 1] = Tb[:b, 0] + shift
            rate = _kt.good_centers_status_samples(Tb, eps, delta, beta, gamma, n_runs, rng).mean()
            rows.append({"epsilon": float(eps), "corrupted": int(b), "success rate": float(rate)})
    return pd.DataFrame(rows)


def kaverages_slack(ns, epsilons, n_clusters: int = 2, delta: float = 1e-6, beta: float = 0.05) -> pd.DataFrame:
    """The slack ℓ of PrivatekAverages' niceness test against the number of tuples, for each ε.

    Examples
    --------
    >>> kaverages_slack([10**6], [4.0])["ell"].tolist()
    [49]
    """
    rows = [{"epsilon": float(e), "n": int(n),
             "ell": _kt.private_kaverages_params(int(n), n_clusters, e, delta, beta)["ell"]}
            for e in epsilons for n in ns]
    return pd.DataFrame(rows)


def kaverages_budget(epsilons, n: int = 10**6, n_clusters: int = 2, delta: float = 1e-6,
                     beta: float = 0.05) -> pd.DataFrame:
    """PrivatekAverages' public parameters against ε: columns ``epsilon``, ``m``, ``ℓ`` (the slack), ``g`` (the
    group size 2(ℓ+1)k), ``ε̂`` (the per-cluster budget (ε/2)/g) and ``δ̂``.

    Examples
    --------
    >>> kaverages_budget([4.0])["g"].tolist()
    [200]
    """
    rows = []
    for e in epsilons:
        p = _kt.private_kaverages_params(n, n_clusters, e, delta, beta)
        rows.append({"epsilon": float(e), "m": p["m"], "ℓ": p["ell"], "g": p["g"], "ε̂": p["eps_hat"],
                     "δ̂": p["delta_hat"]})
    return pd.DataFrame(rows)


def simulator_check(centers, n_tuples: int = 300, samples_per_tuple: int = 200, rng=None) -> pd.DataFrame:
    """RMS distance of tuple points to their nearest true centre: k-means++ on real chunks of the mixture
    ``Σ N(c_i, I)/k`` against :func:`~dpclust_book.experiments.ktuple.simulate_tuples`, and the theory ``√(d k/N)``.

    Examples
    --------
    >>> df = simulator_check(20 * np.eye(2, 4), 50, 200, rng=0)
    >>> df["rms distance"].round(1).tolist()
    [0.2, 0.2, 0.2]
    """
    C = check_data(centers, "centers")
    k, d = C.shape
    rng = check_rng(rng, "rng")
    N = n_tuples * samples_per_tuple
    X = C[rng.integers(0, k, N)] + rng.normal(size=(N, d))  # not privacy noise: a data generator
    T_real = kmeans_tuples(X, k, n_tuples, rng, labels=np.arange(N) % n_tuples)
    T_sim = simulate_tuples(C, n_tuples, rng=rng, samples_per_tuple=samples_per_tuple)

    def rms(T):
        d2 = ((T[:, :, None, :] - C[None, None]) ** 2).sum(axis=3).min(axis=2)
        return float(np.sqrt(d2.mean()))

    return pd.DataFrame({"tuples from": ["k-means++ on real chunks", "the simulator", "theory"],
                         "rms distance": [rms(T_real), rms(T_sim), math.sqrt(d * k / samples_per_tuple)]})


def tuples_sweep(centers, runs: dict, rng=None) -> pd.DataFrame:
    """Success rate and centre error of k-tuple algorithms against the number of tuples.

    ``runs`` maps an algorithm's name to ``(make, n_grid, n_reps, samples_per_tuple)``: ``make(seed)`` builds
    the estimator; each point repeats :func:`~dpclust_book.experiments.ktuple.ktuple_trials` on fresh simulated tuples.
    Returns columns ``algorithm``, ``tuples``, ``samples per tuple``, ``runs``, ``success rate``,
    ``median error`` (inf when most runs failed).

    Examples
    --------
    >>> from dpclust_core.ktuple import PrivatekNoisyCenters
    >>> mk = lambda s: PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=s)
    >>> df = tuples_sweep(20 * np.eye(2), {"NC": (mk, [330], 2, 20_000)}, rng=0)
    >>> df.columns.tolist()
    ['algorithm', 'tuples', 'samples per tuple', 'runs', 'success rate', 'median error']
    """
    C = check_data(centers, "centers")
    rng = check_rng(rng, "rng")
    rows = []
    for name, (make, grid, reps, spt) in runs.items():  # loop over algorithms, then over sizes
        for n in grid:
            r = ktuple_trials(make, C, int(n), reps, rng, samples_per_tuple=spt)
            rows.append({"algorithm": name, "tuples": int(n), "samples per tuple": int(spt), "runs": int(reps),
                         "success rate": r["success_rate"], "median error": r["median_error"]})
    return pd.DataFrame(rows)


def noisy_centers_samples_needed(separations, make, n_tuples: int, n_clusters: int = 2, n_features: int = 4, *,
                                 reps: int = 10, target: float = 0.8, start: int = 250, max_samples: int = 2**21,
                                 rng=None) -> pd.DataFrame:
    """For each separation R (means ``R e_i``), the smallest number of samples per tuple on the grid
    ``start·2^j`` at which PrivatekNoisyCenters (``make(seed)``) succeeds in at least ``target`` of ``reps``
    runs with ``n_tuples`` tuples. Returns ``R``, ``samples per tuple`` (NaN if ``max_samples`` is not enough)
    and ``total samples``.

    Examples
    --------
    >>> from dpclust_core.ktuple import PrivatekNoisyCenters
    >>> mk = lambda s: PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=s)
    >>> noisy_centers_samples_needed([80.0], mk, 324, reps=1, start=4000, rng=0).columns.tolist()
    ['R', 'samples per tuple', 'total samples']
    """
    rng = check_rng(rng, "rng")
    rows = []
    for R in separations:  # loop over separations; doubling search inside
        C = float(R) * np.eye(n_clusters, n_features)
        N = int(start)
        while N <= max_samples:
            if ktuple_trials(make, C, n_tuples, reps, rng, samples_per_tuple=N)["success_rate"] >= target:
                break
            N *= 2
        found = N <= max_samples
        rows.append({"R": float(R), "samples per tuple": float(N) if found else np.nan,
                     "total samples": float(N * n_tuples) if found else np.nan})
    return pd.DataFrame(rows)


def averages_check(separations, make, n_tuples: int, samples_per_tuple, n_clusters: int = 2, n_features: int = 4, *,
                   reps: int = 1, rng=None) -> pd.DataFrame:
    """Success rate of PrivatekAverages (``make(seed, R)``) at each separation R with ``n_tuples`` tuples of
    ``samples_per_tuple(R)`` samples each. Returns ``R``, ``samples per tuple``, ``total samples``,
    ``success rate``.

    Examples
    --------
    >>> from dpclust_core.ktuple import PrivatekAverages
    >>> mk = lambda s, R: PrivatekAverages(2, 4.0, 1e-6, radius=2 * R + 10, r_min=0.01, random_state=s)
    >>> averages_check([20.0], mk, 300, lambda R: 50, rng=0).columns.tolist()
    ['R', 'samples per tuple', 'total samples', 'success rate']
    """
    rng = check_rng(rng, "rng")
    rows = []
    for R in separations:  # loop over separations
        N = int(samples_per_tuple(R))
        r = ktuple_trials(lambda s, R=R: make(s, R), float(R) * np.eye(n_clusters, n_features), n_tuples, reps,
                              rng, samples_per_tuple=N)
        rows.append({"R": float(R), "samples per tuple": float(N), "total samples": float(N * n_tuples),
                     "success rate": r["success_rate"]})
    return pd.DataFrame(rows)


def blobs(centers, sd: float, n: int = 100_000, seed: int = 7) -> np.ndarray:
    """``n`` points, each a uniformly chosen centre plus ``N(0, sd² I)`` (a seeded data generator).

    Examples
    --------
    >>> blobs([[0.0, 0.0], [5.0, 5.0]], 0.1, 10).shape
    (10, 2)
    """
    C = check_data(centers, "centers")
    r = np.random.default_rng(seed)
    return C[r.integers(0, C.shape[0], n)] + r.normal(size=(n, C.shape[1])) * sd  # not privacy noise: data


#: The methods of the k-means comparison of chapter 7 (name -> constructor of (k, epsilon, delta, seed)).
KMEANS_METHODS = {
    "PrivateKMeansEasy (NoisyCenters)": lambda k, e, dl, s: _kt.PrivateKMeansEasy(
        k, e, dl, bounds=(-10, 10), kmeans_iter=10, random_state=s),
    "PrivateKMeansEasy (Averages)": lambda k, e, dl, s: _kt.PrivateKMeansEasy(
        k, e, dl, bounds=(-10, 10), tuple_algorithm="averages", kmeans_iter=10, random_state=s),
    "DPLloyd-Impr": lambda k, e, dl, s: DPLloyd(k, e, bounds=(-10, 10), variant="improved", random_state=s),
    "EUGkM": lambda k, e, dl, s: EUGkM(k, e, bounds=(-10, 10), random_state=s),
}


def kmeans_easy_comparison(centers, sds, seeds, *, epsilon: float = 4.0, delta: float = 1e-6, n: int = 100_000,
                           data_seed: int = 7, methods=None) -> pd.DataFrame:
    """PrivateKMeansEasy (both k-tuple algorithms), DPLloyd-Impr and EUGkM on ``n`` points of blobs around
    ``centers`` in ``[-10, 10]^d`` (:func:`blobs`), for each blob standard deviation and seed.

    ``recovered``: the centres match the true ones within a quarter of their separation
    (:func:`~dpclust_book.experiments.ktuple.match_centers`); ``status``: the k-tuple test's bit and
    ``tuple recovered``: whether the k-tuple step's own centres (``tuple_centers_``, before the Lloyd step) match
    them (PrivateKMeansEasy only).
    DPLloyd-Impr and EUGkM are pure ε-DP (``delta`` is not used). ``methods`` selects names of
    :data:`KMEANS_METHODS` (default all).

    Examples
    --------
    >>> df = kmeans_easy_comparison([[-5.0, 0.0], [5.0, 0.0]], [0.01], [0], n=20_000)
    >>> sorted(df["method"].unique())[-1]
    'PrivateKMeansEasy (NoisyCenters)'
    """
    C = check_data(centers, "centers")
    k = C.shape[0]
    chosen = list(KMEANS_METHODS) if methods is None else list(methods)
    unknown = [m for m in chosen if m not in KMEANS_METHODS]
    if unknown:
        raise ValueError(f"unknown methods {unknown}; choose from {list(KMEANS_METHODS)}")
    rows = []
    for sd in sds:  # loop over data sets, methods and seeds
        X = blobs(C, sd, n, data_seed)
        for name in chosen:
            make = KMEANS_METHODS[name]
            for s in seeds:
                est = make(k, epsilon, delta, s).fit(X)
                tuple_c = getattr(est, "tuple_centers_", None)
                rows.append({"sd": float(sd), "method": name, "seed": int(s),
                             "recovered": bool(match_centers(est.cluster_centers_, C)[0]),
                             "status": getattr(est, "status_", None),
                             "tuple recovered": None if tuple_c is None else bool(match_centers(tuple_c, C)[0])})
    return pd.DataFrame(rows)


def spread_sweep(centers, spreads, epsilons, *, reps: int = 5, delta: float = 1e-6, rng=None) -> pd.DataFrame:
    """Success rate of PrivatekNoisyCenters at its minimum number of tuples against the spread of the tuples
    (standard deviation of each tuple point around its centre), for each ε. Columns ``epsilon``, ``gamma``,
    ``spread``, ``success rate``.

    Examples
    --------
    >>> spread_sweep(20 * np.eye(2), [1e-4], [4.0], reps=2, rng=0)["success rate"].tolist()
    [1.0]
    """
    C = check_data(centers, "centers")
    k, d = C.shape
    rng = check_rng(rng, "rng")
    rows = []
    for e in epsilons:  # loop over budgets and spreads
        n_min = _kt.min_tuples_noisy_centers(k, e, delta)
        gamma = _kt.noisy_centers_min_gamma(k, d, e, delta)
        for sp in spreads:
            r = ktuple_trials(lambda s, e=e: _kt.PrivatekNoisyCenters(k, e, delta, random_state=s), C, n_min,
                                  reps, rng, noise=sp)
            rows.append({"epsilon": float(e), "gamma": gamma, "spread": float(sp), "success rate": r["success_rate"]})
    return pd.DataFrame(rows)


def noisy_centers_run(centers, spread: float, epsilon: float, *, delta: float = 1e-6, seed: int = 7):
    """One PrivatekNoisyCenters fit on its minimum number of simulated tuples of the given spread.
    Returns ``(T, estimator)``.

    Examples
    --------
    >>> T, est = noisy_centers_run(20 * np.eye(2), 1e-4, 4.0)
    >>> T.shape, est.status_
    ((324, 2, 2), True)
    """
    C = check_data(centers, "centers")
    k = C.shape[0]
    rng = np.random.default_rng(seed)
    T = simulate_tuples(C, _kt.min_tuples_noisy_centers(k, epsilon, delta), spread, rng)
    return T, _kt.PrivatekNoisyCenters(k, epsilon, delta, random_state=seed).fit(T)


def audit_pair(n: int = 120, epsilon: float = 2.0, delta: float = 1e-3, beta: float = 0.1, seed: int = 3):
    """Two neighbouring tuple sets (they differ in one tuple) on which GoodCenters' status is hardest to hide:
    the number of unpartitioned tuples sits at the pass threshold ``ln(2m/β)/ε₁``, so the spoiled tuple
    decides whether the candidates pass. Returns ``(T1, T2)``.

    Examples
    --------
    >>> T1, T2 = audit_pair()
    >>> int((T1 != T2).any(axis=(1, 2)).sum())
    1
    """
    rng = np.random.default_rng(seed)
    p = _kt.good_centers_params(n, epsilon, delta, beta)
    nbad = int(round(math.log(2 * p["m"] / beta) / p["eps1"]))
    T1 = simulate_tuples(20.0 * np.eye(2), n, 0.01, rng)
    bad = T1[: nbad + 1].copy()
    bad[:, 1] = bad[:, 0] + 0.5  # both points in one ball: not partitioned
    T1[:nbad] = bad[:nbad]
    T2 = T1.copy()
    T2[nbad] = bad[nbad]
    return T1, T2


# ============================================================================ chapter 8
def gmm_public_parameters(epsilons, n_components: int = 2, n_features: int = 2, delta: float = 1e-6,
                          beta: float = 0.05) -> pd.DataFrame:
    """What PrivateGaussianMixture derives from public inputs alone: the least number of tuples t and
    PrivatekNoisyCenters' far-ness Γ (columns ``epsilon``, ``tuples``, ``Γ``), for each ε.

    Examples
    --------
    >>> gmm_public_parameters([4.0])["tuples"].tolist()
    [324]
    """
    rows = [{"epsilon": float(e), "tuples": _gmm.min_tuples("noisy_centers", n_components, e, delta, beta),
             "Γ": _kt.noisy_centers_min_gamma(n_components, n_features, e, delta, beta)} for e in epsilons]
    return pd.DataFrame(rows)


def em_params(X, n_components: int, seed: int = 0) -> "_gmm.MixtureParams":
    """Non-private EM (scikit-learn's ``GaussianMixture``, full covariances) as :class:`~dpclust_core.gmm.MixtureParams`.

    Examples
    --------
    >>> X, _ = _gmm.sample_mixture(_gmm.paper_mixture(2, 2, R=10.0), 2000, random_state=0)
    >>> em_params(X, 2).means.shape
    (2, 2)
    """
    from sklearn.mixture import GaussianMixture

    X = check_data(X)
    gm = GaussianMixture(n_components, covariance_type="full", random_state=seed).fit(X)
    return _gmm.MixtureParams(gm.means_, gm.covariances_, gm.weights_)


def mixture_errors(true, fits: dict) -> pd.DataFrame:
    """One row per fitted mixture (``name -> MixtureParams``, or None for a failed private fit): the largest
    errors after matching (``mean``: L2, ``covariance``: operator norm, ``weight``: absolute) and the bound on
    the total-variation distance (``TV bound``).

    Examples
    --------
    >>> P = _gmm.paper_mixture(2, 2)
    >>> mixture_errors(P, {"truth": P})["mean"].tolist()
    [0.0]
    """
    rows = []
    for name, est in fits.items():
        e = {"mean": np.nan, "cov": np.nan, "weight": np.nan, "tv_bound": np.nan} if est is None else \
            _mx.parameter_errors(true, est)
        rows.append({"method": name, "mean": e["mean"], "covariance": e["cov"], "weight": e["weight"],
                     "TV bound": e["tv_bound"]})
    return pd.DataFrame(rows).set_index("method")


def chunk_means_check(params, n_tuples: int = 300, chunk_size: int = 200, seeds=(1, 1, 2)):
    """Distance of each tuple point to its nearest true mean: ``SampleTuples`` (k-means++ on real chunks)
    against :func:`~dpclust_book.experiments.mixtures.simulate_chunk_means`. ``seeds`` = (data, labeler, simulator).

    Returns ``(quantiles, p_value)``: a DataFrame of the 10/50/90/99 % quantiles of both, and the two-sample
    Kolmogorov–Smirnov p-value of the two error distributions.

    Examples
    --------
    >>> q, p = chunk_means_check(_gmm.paper_mixture(2, 2), 50, 200)
    >>> list(q.columns), 0 <= p <= 1
    (['10 %', '50 %', '90 %', '99 %'], True)
    """
    from scipy.stats import ks_2samp

    k = params.n_components
    Xs, _ = _gmm.sample_mixture(params, n_tuples * chunk_size, random_state=seeds[0])
    real = _mx.sample_tuples(Xs, n_tuples, chunk_size, k, random_state=seeds[1])
    sim = _mx.simulate_chunk_means(params, n_tuples, chunk_size, random_state=seeds[2])

    def err(T):
        return np.linalg.norm(T[:, :, None] - params.means[None, None], axis=3).min(axis=2).ravel()

    qs = [10, 50, 90, 99]
    table = pd.DataFrame([np.percentile(err(real), qs), np.percentile(err(sim), qs)],
                         index=["k-means++ on real chunks", "the simulator"], columns=[f"{q} %" for q in qs])
    return table, float(ks_2samp(err(real), err(sim)).pvalue)


def sample_complexity_tests(tests: dict, epsilon: float = 1.0, delta: float = 1e-6, *, reps: int = 10,
                            refine: int = 1, chunk_start: int = 256, **kwargs) -> pd.DataFrame:
    """The paper's Test1–Test3: the sample complexity of the private separation
    (:func:`~dpclust_book.experiments.gmm.separation_sample_complexity`) as one parameter varies.

    ``tests`` maps a test's name to ``(parameter, values, make)`` with ``make(value)`` the mixture; the search
    of value ``v`` is seeded with ``v``. Returns ``test``, ``parameter``, ``value``, ``tuples``,
    ``chunk size`` and ``total samples``.

    Examples
    --------
    >>> t = {"vary R": ("R", [80], lambda v: _gmm.paper_mixture(2, 2, float(v)))}
    >>> sample_complexity_tests(t, 4.0, reps=2, refine=0, chunk_start=1024)["tuples"].tolist()
    [324]
    """
    rows = []
    for name, (var, values, make) in tests.items():  # loop over tests and their values
        for v in values:
            res = _gx.separation_sample_complexity(make(v), epsilon, delta, reps=reps, refine=refine,
                                                    chunk_start=chunk_start, random_state=v, **kwargs)
            rows.append({"test": name, "parameter": var, "value": v, "tuples": res["n_tuples"],
                         "chunk size": res["chunk_size"], "total samples": float(res["total"])})
    return pd.DataFrame(rows)


def true_means_failure_rate(params, n_eval_per_component: int = 500, n_draws: int = 200) -> float:
    """How often the *true* means fail the paper's criterion "every one of ``n_eval_per_component`` fresh
    samples of component i is nearest to centre i" (over ``n_draws`` seeded draws).

    Examples
    --------
    >>> true_means_failure_rate(_gmm.paper_mixture(2, 2, 20.0), 100, 5)
    0.0
    """
    ok = [_mx.separates(params, params.means, n_eval_per_component, random_state=s) for s in range(n_draws)]
    return float(1.0 - np.mean(ok))


def averages_at_minimum(epsilon: float = 4.0, delta: float = 1e-6) -> pd.DataFrame:
    """PrivatekAverages as the separation step on the paper's mixture (k = d = 2), scored with the strict
    criterion (centres within D/4 of the means *and* separating the samples): at its minimum number of
    tuples with chunks of 10^6 samples (R = 20 and 80), and with 2·10^4 and 10^5 tuples of 400 samples
    (R = 20). Returns ``R``, ``tuples``, ``chunk size``, ``total samples``, ``runs``, ``success rate``.

    Examples
    --------
    >>> averages_at_minimum().shape
    (4, 6)
    """
    t_min = _gmm.min_tuples("averages", 2, epsilon, delta)
    plan = [(20.0, t_min, 10**6, 5, 0), (80.0, t_min, 10**6, 5, 0), (20.0, 20_000, 400, 2, 1),
            (20.0, 100_000, 400, 2, 1)]
    rows = []
    for R, t, c, reps, seed in plan:  # the four settings
        rate = _gx.separation_success_rate(_gmm.paper_mixture(2, 2, R), epsilon, delta, t, c, reps=reps,
                                            k_tuple="averages", criterion="both", random_state=seed)
        rows.append({"R": R, "tuples": t, "chunk size": c, "total samples": float(t * c), "runs": reps,
                     "success rate": rate})
    return pd.DataFrame(rows)


def naive_baseline(params, ns, epsilon: float = 1.0, delta: float = 1e-6, radius: float = 20.0) -> pd.DataFrame:
    """Largest mean error of the naive baseline (:class:`~dpclust_core.gmm.NaiveNoisyGaussianMixture`) and of
    non-private EM on samples of each size in ``ns`` (the sample of size n is seeded with n).

    Examples
    --------
    >>> naive_baseline(_gmm.paper_mixture(2, 2, 10.0), [1000]).shape
    (1, 3)
    """
    rows = []
    for n in ns:  # loop over sample sizes
        X, _ = _gmm.sample_mixture(params, int(n), random_state=int(n))
        est = _gmm.NaiveNoisyGaussianMixture(params.n_components, epsilon, delta, radius=radius,
                                             random_state=0).fit(X)
        rows.append({"n": int(n), "naive": _mx.parameter_errors(params, est.params())["mean"],
                     "EM (non-private)": _mx.parameter_errors(params, em_params(X, params.n_components))["mean"]})
    return pd.DataFrame(rows)


def private_gmm_simulated(params, n: int, seed: int, *, epsilon: float = 1.0, delta: float = 1e-6,
                          radius: float = 200.0, sigma_max: float = 1.5, n2_max: int = 100_000,
                          n_tuples: int | None = None):
    """PrivateGaussianMixture on a sample of ``n`` points whose ``X1`` is simulated
    (:func:`~dpclust_book.experiments.gmm.fit_private_gmm_simulated`): the least number of tuples, ``X2`` real with
    ``min(n/2, n2_max)`` points, the rest of the first half in chunks. Returns the fitted estimator.

    Examples
    --------
    >>> private_gmm_simulated(_gmm.paper_mixture(2, 2, 10.0), 10**10, 0, n2_max=5000).success_
    True
    """
    k = params.n_components
    n = int(n)
    t = _gmm.min_tuples("noisy_centers", k, epsilon, delta) if n_tuples is None else n_tuples
    n2 = int(min(n // 2, n2_max))
    est = _gmm.PrivateGaussianMixture(k, epsilon, delta, radius=radius, sigma_max=sigma_max, random_state=seed)
    return _gx.fit_private_gmm_simulated(params, t, max((n - n2) // t, 1), n2, est, random_state=seed)


def private_gmm_errors(params, n: int, seed: int, **kwargs):
    """:func:`~dpclust_book.experiments.mixtures.parameter_errors` of :func:`private_gmm_simulated`, or None when the private
    separation failed (the output ⊥)."""
    est = private_gmm_simulated(params, n, seed, **kwargs)
    return _mx.parameter_errors(params, est.params()) if est.success_ else None


def _error_rows(errs, extra):
    out = []
    for e, x in zip(errs, extra):
        row = dict(x)
        row.update({"success": e is not None, "mean error": np.nan if e is None else e["mean"],
                    "covariance error": np.nan if e is None else e["cov"],
                    "weight error": np.nan if e is None else e["weight"]})
        out.append(row)
    return out


def errors_vs_n(R: float = 10.0, ns_private=(10**8, 10**9, 10**10), ns_real=(10**3, 10**4, 10**5),
                seeds=(0, 1), epsilon: float = 1.0, delta: float = 1e-6) -> pd.DataFrame:
    """Parameter errors of PrivateGaussianMixture (``X1`` simulated, two seeds a size), non-private EM and the
    naive baseline against the total sample size, on the paper's mixture ``N(R e_i, I_2)``, k = 2.

    Returns ``method``, ``n``, ``seed``, ``success`` and the three errors (NaN on ⊥).

    Examples
    --------
    >>> df = errors_vs_n(ns_private=(10**10,), ns_real=(1000,), seeds=(0,))
    >>> df["method"].tolist()
    ['PrivateGaussianMixture', 'EM (non-private)', 'naive']
    """
    P = _gmm.paper_mixture(2, 2, float(R))
    rows = _error_rows([private_gmm_errors(P, n, s, epsilon=epsilon, delta=delta) for n in ns_private
                        for s in seeds],
                       [{"method": "PrivateGaussianMixture", "n": float(n), "seed": s} for n in ns_private
                        for s in seeds])
    for n in ns_real:  # the non-private and naive fits on real samples
        X = _gmm.sample_mixture(P, int(n), random_state=int(n))[0]
        em = _mx.parameter_errors(P, em_params(X, 2))
        nv = _mx.parameter_errors(P, _gmm.NaiveNoisyGaussianMixture(2, epsilon, delta, radius=20.0,
                                                                      random_state=0).fit(X).params())
        rows += _error_rows([em, nv], [{"method": "EM (non-private)", "n": float(n), "seed": 0},
                                       {"method": "naive", "n": float(n), "seed": 0}])
    return pd.DataFrame(rows)


def errors_vs_separation(Rs=(5, 10, 20, 40), n_private: int = 10**9, n_real: int = 10**4, epsilon: float = 1.0,
                         delta: float = 1e-6) -> pd.DataFrame:
    """Parameter errors against the separation R of the paper's mixture (k = d = 2): PrivateGaussianMixture on
    ``n_private`` samples (``X1`` simulated, domain radius 4R + 10), EM and the naive baseline (domain radius
    2R) on ``n_real`` samples. Columns as :func:`errors_vs_n` with ``R`` in place of ``n``.

    Examples
    --------
    >>> errors_vs_separation(Rs=(40,), n_real=1000).shape[0]
    3
    """
    rows = []
    for R in Rs:  # loop over separations
        P = _gmm.paper_mixture(2, 2, float(R))
        pr = private_gmm_errors(P, n_private, R, epsilon=epsilon, delta=delta, radius=4 * R + 10)
        X = _gmm.sample_mixture(P, n_real, random_state=R)[0]
        em = _mx.parameter_errors(P, em_params(X, 2))
        nv = _mx.parameter_errors(P, _gmm.NaiveNoisyGaussianMixture(2, epsilon, delta, radius=2 * R,
                                                                      random_state=0).fit(X).params())
        rows += _error_rows([pr, em, nv], [{"method": m, "R": float(R)} for m in
                                           ("PrivateGaussianMixture", "EM (non-private)", "naive")])
    return pd.DataFrame(rows)


def separation_grid(Rs=(7, 10, 20, 40), ns=(10**7, 10**8, 10**9, 10**10, 10**11), *, epsilon: float = 1.0,
                    delta: float = 1e-6, reps: int = 4) -> pd.DataFrame:
    """Success rate of the private separation (PrivatekNoisyCenters at its least number of tuples, ``X1``
    simulated) on the paper's mixture (k = d = 2) over a grid of separations R and total sample sizes n.
    Cell (i, j) is seeded with ``10 i + j``. Returns ``R``, ``n``, ``success rate``.

    Examples
    --------
    >>> separation_grid(Rs=(40,), ns=(10**10,), reps=1)["success rate"].tolist()
    [1.0]
    """
    t = _gmm.min_tuples("noisy_centers", 2, epsilon, delta)
    rows = []
    for i, R in enumerate(Rs):  # loop over the grid
        for j, n in enumerate(ns):
            rate = _gx.separation_success_rate(_gmm.paper_mixture(2, 2, float(R)), epsilon, delta, t,
                                                max(int(n) // t, 1), reps=reps, random_state=10 * i + j)
            rows.append({"R": float(R), "n": float(n), "success rate": rate})
    return pd.DataFrame(rows)


# =====================================================================================================
# experiments: the fast tuple simulator and the success criterion (§7)
# =====================================================================================================
def simulate_tuples(centers: ArrayLike, n_tuples: int, noise: float | None = None, rng: RNGLike = None, *,
                    samples_per_tuple: int | None = None, sigma: float = 1.0, weights: ArrayLike | None = None,
                    shuffle: bool = True) -> np.ndarray:
    """Fast exact simulator of k-tuples: tuple t is ``{c_i + noise_ti}`` (a data generator, not a mechanism).

    Two modes:

    * ``noise`` (float): every tuple point is ``c_i + N(0, noise^2 I)``;
    * ``samples_per_tuple`` (int N): the tuple is the per-cluster mean of N samples of the mixture
      ``Σ w_i N(c_i, sigma^2 I)`` with correct labels, i.e. ``c_i + N(0, sigma^2/N_i I)`` with
      ``(N_1..N_k) ~ Multinomial(N, w)`` (empty clusters get N_i = 1 — a degenerate k-means++ output would
      be no better). Exact whenever k-means++ recovers the true partition of the chunk.

    Each tuple's rows are shuffled (tuples are unordered) unless ``shuffle=False``.

    Returns
    -------
    ndarray, shape (n_tuples, k, d)

    Examples
    --------
    >>> simulate_tuples([[0.0, 0.0], [5.0, 5.0]], 10, 0.1, rng=0).shape
    (10, 2, 2)
    """
    C = check_data(centers, "centers")
    k, d = C.shape
    n_tuples = check_int(n_tuples, "n_tuples", 1, max(1, MAX_ALLOCATION // (k * d)))
    rng = check_rng(rng, "rng")
    shuffle = check_bool(shuffle, "shuffle")
    if (noise is None) == (samples_per_tuple is None):
        raise ValueError("give exactly one of noise and samples_per_tuple")
    if noise is not None:
        sd = np.full((n_tuples, k), check_real(noise, "noise", low=0.0))
    else:
        N = check_int(samples_per_tuple, "samples_per_tuple", 1)
        w = np.full(k, 1.0 / k) if weights is None else _vector(weights, "weights", k)
        if np.any(w < 0) or not np.isclose(w.sum(), 1.0):
            raise ValueError("weights must be k non-negative numbers summing to 1")
        counts = np.maximum(rng.multinomial(N, w, size=n_tuples), 1)
        sd = _positive(sigma, "sigma") / np.sqrt(counts)
    T = C[None, :, :] + rng.normal(size=(n_tuples, k, d)) * sd[:, :, None]  # not privacy noise: simulated data
    if shuffle and k > 1:
        perm = np.argsort(rng.random((n_tuples, k)), axis=1)
        T = np.take_along_axis(T, perm[:, :, None], axis=1)
    return T


def match_centers(estimated: ArrayLike | None, true_centers: ArrayLike) -> tuple[bool, float]:
    """Success criterion and error of a k-tuple output (§7).

    ``success`` is True when ``estimated`` is not None and the nearest estimated centre of each true centre is
    a bijection, with every matched error below ``min_i D_i(true)/4`` (then every point nearer to its own true
    centre than the separation margin is assigned correctly). ``max_error`` is the largest distance between
    matched centres (optimal assignment), inf when estimated is None.

    Returns
    -------
    (success, max_error) : (bool, float)

    Examples
    --------
    >>> match_centers([[0.1, 0.0], [10.0, 0.0]], [[0.0, 0.0], [10.0, 0.0]])
    (True, 0.1)
    """
    C = check_data(true_centers, "true_centers")
    if estimated is None:
        return False, float("inf")
    E = check_data(estimated, "estimated", n_features=C.shape[1], features_of="true_centers")
    from scipy.optimize import linear_sum_assignment
    dist = np.sqrt(_kernels.sq_distances(E, C))
    r, c = linear_sum_assignment(dist)
    err = float(dist[r, c].max())
    nearest = np.argmin(dist, axis=0)
    bij = len(np.unique(nearest)) == C.shape[0]
    sep = _separation(C).min() if C.shape[0] > 1 else np.inf
    return bool(bij and err < sep / 4), err


def ktuple_trials(make_estimator: Callable[[int], PrivatekAverages | PrivatekNoisyCenters], centers: ArrayLike,
                  n_tuples: int, n_reps: int, rng: RNGLike = None, *, noise: float | None = None,
                  samples_per_tuple: int | None = None, sigma: float = 1.0) -> dict:
    """Repeat a k-tuple experiment on fresh simulated tuple sets (§7 metric).

    ``make_estimator(seed)`` returns a PrivatekAverages / PrivatekNoisyCenters; each repetition draws T with
    :func:`simulate_tuples` (``noise`` or ``samples_per_tuple``/``sigma``) and scores the output with
    :func:`match_centers`.

    Returns
    -------
    dict with ``success_rate``, ``status_rate`` (fraction of Success bits), ``median_error`` (over runs;
    inf if most runs failed) and ``errors`` (array, inf for ⊥).

    Examples
    --------
    >>> res = ktuple_trials(lambda s: PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=s),
    ...                     [[0.0, 0.0], [20.0, 0.0]], 330, 2, rng=0, noise=1e-3)
    >>> res["success_rate"]
    1.0
    """
    if not callable(make_estimator):
        raise BadTypeError(f"make_estimator must be a callable seed -> estimator, got {make_estimator!r}")
    C = check_data(centers, "centers")
    n_reps = check_int(n_reps, "n_reps", 1, 10**6)
    n_tuples = check_int(n_tuples, "n_tuples", 1, MAX_TUPLES)
    rng = check_rng(rng, "rng")
    ok = np.zeros(n_reps, dtype=bool)
    st = np.zeros(n_reps, dtype=bool)
    err = np.full(n_reps, np.inf)
    for r in range(n_reps):  # loop over repetitions
        T = simulate_tuples(C, n_tuples, noise, rng, samples_per_tuple=samples_per_tuple, sigma=sigma)
        out, st[r] = make_estimator(int(rng.integers(2**31 - 1))).cluster(T)
        ok[r], err[r] = match_centers(out, C)
    return {"success_rate": float(ok.mean()), "status_rate": float(st.mean()),
            "median_error": float(np.median(err)), "errors": err}


# ============================================================================ tuple sets of real data
def kmeans_tuples(X: ArrayLike, n_clusters: int, n_tuples: int, rng: RNGLike = None, *,
                  labels: ArrayLike | None = None, n_iter: int = 20,
                  method: Literal["batched", "sklearn"] = "batched") -> np.ndarray:
    """Sample-and-aggregate input: split X into ``n_tuples`` data-independent chunks and run k-means++ on each;
    returns the tuple set (n_tuples, k, d) (not private).

    Chunks: every point gets its own independent uniform chunk label (``labels`` may pass them), so adding or
    removing one point changes one chunk, hence one tuple (never split by value). A chunk with fewer than k
    distinct points yields a degenerate tuple (duplicate points) that just fails the closeness test; an empty
    chunk yields the all-zero tuple.

    ``method="batched"`` (default): k-means++ seeding (D² sampling) followed by exactly ``n_iter`` Lloyd
    iterations, vectorised over all chunks at once (the package's per-chunk k-means kernel, whose random
    numbers are drawn per chunk: with a fixed seed, a point changes its own tuple only, bit for bit).
    ``method="sklearn"``: scikit-learn ``KMeans(init="k-means++", n_init=1)`` per chunk (slow; a reference).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.repeat([[0.0, 0.0], [5.0, 5.0]], 500, axis=0)
    >>> kmeans_tuples(X, 2, 10, rng=0).shape
    (10, 2, 2)
    """
    X = check_data(X)
    n, d = X.shape
    k = check_int(n_clusters, "n_clusters", 1, MAX_ALLOCATION)
    n_tuples = check_int(n_tuples, "n_tuples", 1, max(1, MAX_ALLOCATION // (k * d)))
    n_iter = check_int(n_iter, "n_iter", 1, 10_000)
    check_options(method, "method", ("batched", "sklearn"))
    rng = check_rng(rng, "rng")
    if labels is None:
        labels = rng.integers(0, n_tuples, size=n)
    else:
        labels = _gmm._labels(labels, n, n_tuples)   # integers, one per row, in [0, n_tuples)
    if method == "sklearn":
        return _kmeans_tuples_sklearn(X, labels, k, n_tuples, rng)
    return chunk_tuples(X, labels, n_tuples, k, rng, n_iter)


def _kmeans_tuples_sklearn(X, labels, k, n_tuples, rng):
    from sklearn.cluster import KMeans

    order = np.argsort(labels, kind="stable")
    Xs, ls = X[order], labels[order]
    bnd = np.searchsorted(ls, np.arange(n_tuples + 1))
    out = np.zeros((n_tuples, k, X.shape[1]))
    for t in range(n_tuples):  # loop over chunks (the reference implementation)
        S = Xs[bnd[t]:bnd[t + 1]]
        if S.shape[0] >= k:
            out[t] = KMeans(n_clusters=k, init="k-means++", n_init=1,
                            random_state=int(rng.integers(2**31 - 1))).fit(S).cluster_centers_
        elif S.shape[0] > 0:
            out[t] = S[np.arange(k) % S.shape[0]]
    return out
