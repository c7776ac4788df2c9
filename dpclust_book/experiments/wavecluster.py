"""Experiments of the chapter on DP WaveCluster (Chen, Yu & Chirkova 2015), on the seeded look-alikes.

Every function runs non-private :class:`~dpclust_core.wavecluster.WaveCluster` and
:class:`~dpclust_core.wavecluster.PrivateWaveCluster` over methods, budgets and seeds, and returns a tidy
``pandas.DataFrame`` that the chapter shows as a table or hands to :mod:`dpclust_book.plots.wavecluster`.
Repeating a private fit many times on the same data is a *simulation* of its error distribution, the way the
paper averages 10 runs per point; releasing all those runs would cost their budgets added up.

The methods are named by the estimator's ``method`` strings (``"baseline"``, ``"qt"``, ``"thr"``,
``"thr_em"``); :data:`NAMES` gives the paper's names.

Examples
--------
>>> from dpclust_book.experiments import wavecluster as ex
>>> data = ex.lookalikes(n_samples=3_000)
>>> sorted(data), data["ds2"][1:]
(['ds1', 'ds2', 'ds3'], (40, 10.0))
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from dpclust_core._validation import Int, Real, Rng, RNGLike, check_int, check_real, check_rng, validate_params
from ..datasets import WAVECLUSTER_BOUNDS, WAVECLUSTER_PARAMS, make_ds1_like, make_ds2_like, make_ds3_like
from ..evaluation import dsg_c, grid_classifier, k_relative_error, ocm, two_ce
from dpclust_core.wavecluster import (METHODS, PrivateWaveCluster, WaveCluster, _P, em_threshold_probabilities,
                                      haar_approx, quantize)

__all__ = ["NAMES", "BY_NAME", "PAPER_DS2_K", "PAPER_DS2_EPS1", "lookalikes", "summary", "k_prime_runs",
           "k_prime_table", "privqt_gap", "metrics_vs_epsilon", "metric_means", "em_upper_comparison",
           "em_rank_probabilities", "em_rank_summary", "alpha_sweep", "large_epsilon", "dsg_c_table",
           "neighbour_changes", "budget_splits", "connectivity_comparison", "K_PRIME_FORMAT",
           "privqt_bias", "fixed_split"]

#: The paper's names of the four private techniques, keyed by the estimator's ``method``.
NAMES = {"baseline": "Baseline", "qt": "PrivQT", "thr": "PrivTHR", "thr_em": "PrivTHR_EM"}
#: The estimator's ``method`` of each paper name.
BY_NAME = {v: k for k, v in NAMES.items()}
#: The paper's true k on its DS2 (g = 40, p = 10 %), §7.2.
PAPER_DS2_K = 144
#: The paper's mean k' over 10 runs on DS2 at ε = 1 (§7.2, Fig. 5).
PAPER_DS2_EPS1 = {"thr": 141.0, "thr_em": 142.8, "baseline": 284.0, "qt": 249.2}

#: How the chapter shows :func:`k_prime_table` (``Styler.format`` argument): k' to one decimal, ratios to two,
#: relative errors in percent.
K_PRIME_FORMAT = {"k' (mean)": "{:.1f}", "k' / k": "{:.2f}", "relative error": "{:.1%}", "paper k'": "{:.1f}",
                  "paper k' / k": "{:.2f}", "paper relative error": "{:.1%}"}

_MAKERS = {"ds1": make_ds1_like, "ds2": make_ds2_like, "ds3": make_ds3_like}
_METRICS = ("DSG_C", "OCM", "2CE")


def _seeds(seed, n_runs):
    n = check_int(n_runs, "n_runs", 1, 100_000)
    s = check_int(seed, "seed", 0)
    return range(s, s + n)


def lookalikes(n_samples=None, random_state=0) -> dict:
    """The three look-alikes of the paper's DS1–DS3 with the paper's ``(g, p)``: ``{name: (X, g, p)}``.

    ``n_samples=None`` keeps the paper's sizes (30,000, 31,200 and 31,520 points).
    """
    out = {}
    for name, make in _MAKERS.items():
        X, _ = make(random_state=random_state) if n_samples is None else make(n_samples,
                                                                              random_state=random_state)
        g, p = WAVECLUSTER_PARAMS[name]
        out[name] = (X, g, p)
    return out


def summary(wc) -> pd.DataFrame:
    """The quantities of a fitted non-private WaveCluster, one row each, with what they mean."""
    rows = [
        ("cells of M", wc.counts_.size, "g × g, the grid of counts"),
        ("cells of W", wc.W_.size, "(g/2) × (g/2), one per 2×2 block of M"),
        ("|L|", int((wc.W_ > 0).sum()), "cells of W with a positive value"),
        ("|Z|", wc.n_zero_, "cells of W with value 0 (empty blocks)"),
        ("k", wc.k_, "⌈(1 − p)|L|⌉, the number of cells to keep"),
        ("d", wc.threshold_, "the k-th largest value of W"),
        ("significant cells", wc.n_significant_, "cells with W ≥ d (ties at d included)"),
        ("clusters", wc.n_clusters_, "connected groups of significant cells"),
    ]
    df = pd.DataFrame(rows, columns=["quantity", "value", "meaning"]).set_index("quantity")
    df["value"] = [f"{v:g}" for v in df["value"]]
    df.index.name = None
    return df


def k_prime_runs(X, method, epsilon, *, grid_size, p, bounds=WAVECLUSTER_BOUNDS, n_runs=10, seed=0,
                 **kwargs) -> np.ndarray:
    """k' of ``n_runs`` private fits (seeds ``seed, seed+1, ...``); ``kwargs`` go to the estimator."""
    return np.array([PrivateWaveCluster(epsilon, method=method, grid_size=grid_size, p=p, bounds=bounds,
                                        random_state=s, **kwargs).fit(X).k_prime_
                     for s in _seeds(seed, n_runs)], dtype=float)


def k_prime_table(X, wc, epsilon=1.0, *, n_runs=10, seed=0, paper=PAPER_DS2_EPS1,
                  paper_k=PAPER_DS2_K) -> pd.DataFrame:
    """Mean k' of each technique over ``n_runs`` (the paper's Fig. 5 at one ε), next to the paper's values.

    ``wc`` is the fitted non-private WaveCluster (its ``k_`` is the true k, its parameters are reused).
    Columns: ``k' (mean)``, ``k' / k``, ``relative error``, ``paper k'``, ``paper k' / k``,
    ``paper relative error``; one row per technique, named as in the paper.
    """
    rows = []
    for m in ("thr", "thr_em", "baseline", "qt"):
        ks = k_prime_runs(X, m, epsilon, grid_size=wc.grid_size, p=wc.p, bounds=wc.bounds, n_runs=n_runs,
                          seed=seed)
        rows.append({"technique": NAMES[m], "k' (mean)": ks.mean(), "k' / k": ks.mean() / wc.k_,
                     "relative error": k_relative_error(ks, wc.k_), "paper k'": paper[m],
                     "paper k' / k": paper[m] / paper_k,
                     "paper relative error": k_relative_error(paper[m], paper_k)})
    return pd.DataFrame(rows).set_index("technique")


def privqt_gap(X, wc, epsilons, *, n_runs=20, seed=0) -> pd.DataFrame:
    """PrivQT's rank inflation ``k' - k`` over ``n_runs`` at each ε: columns ``epsilon``, ``mean``, ``sd``."""
    rows = []
    for e in epsilons:
        gap = k_prime_runs(X, "qt", e, grid_size=wc.grid_size, p=wc.p, bounds=wc.bounds, n_runs=n_runs,
                           seed=seed) - wc.k_
        rows.append({"epsilon": float(e), "mean": gap.mean(), "sd": gap.std(ddof=1) if gap.size > 1 else 0.0})
    return pd.DataFrame(rows)


def metrics_vs_epsilon(data, epsilons, *, n_runs=10, seed=0, methods=METHODS, bounds=WAVECLUSTER_BOUNDS,
                       test_fraction=0.1, split_seed=0):
    """The paper's §7.3–7.4 experiment: DSG_C, OCM and 2CE of every technique against ε.

    ``data`` maps a dataset name to ``(X, g, p)`` (e.g. :func:`lookalikes`). Each dataset is split once into a
    training and a test part (:func:`fixed_split`); WaveCluster and every private
    technique run on the training part; DSG_C compares the labelled grids, OCM and 2CE the predictions on the
    test part of the two decision trees trained on them (the clustering-then-classification protocol,
    :func:`~dpclust_book.evaluation.cluster_then_classify`).

    Returns
    -------
    runs : DataFrame
        One row per (dataset, method, epsilon, seed): ``DSG_C``, ``OCM``, ``2CE``, ``k'``, ``clusters``.
    truth : DataFrame
        Per dataset: the true ``k``, ``|Z|`` and ``clusters`` on the training part.
    """
    rows, truth = [], []
    for name, (X, g, p) in data.items():
        tr, te = fixed_split(X.shape[0], test_fraction=test_fraction, random_state=split_seed)
        X_tr, X_te = X[tr], X[te]
        wc = WaveCluster(grid_size=g, p=p, bounds=bounds).fit(X_tr)
        truth.append({"dataset": name, "k": wc.k_, "|Z|": wc.n_zero_, "clusters": wc.n_clusters_,
                      "training points": tr.size})
        # the true tree is the same for every run: train it once (cluster_then_classify's protocol, seed 0)
        pred_t = _tree_predict(wc.grid_labels_, bounds, X_te)
        for m in methods:
            for e in epsilons:
                for s in _seeds(seed, n_runs):
                    est = PrivateWaveCluster(e, method=m, grid_size=g, p=p, bounds=bounds,
                                             random_state=s).fit(X_tr)
                    pp = _tree_predict(est.grid_labels_, bounds, X_te)
                    rows.append({"dataset": name, "method": m, "epsilon": float(e), "seed": s,
                                 "DSG_C": dsg_c(wc.grid_labels_, est.grid_labels_), "OCM": ocm(pred_t, pp),
                                 "2CE": two_ce(pred_t, pp), "k'": est.k_prime_, "clusters": est.n_clusters_})
    return pd.DataFrame(rows), pd.DataFrame(truth).set_index("dataset")


def _tree_predict(grid_labels, bounds, X_test):
    """Predictions of the protocol's tree trained on a labelled grid (-1 everywhere if nothing is significant),
    exactly as :func:`~dpclust_book.evaluation.cluster_then_classify` makes them (tree seed 0)."""
    tree = grid_classifier(grid_labels, bounds, random_state=0)
    if tree is None:
        return np.full(X_test.shape[0], -1, dtype=np.int64)
    return tree.predict(X_test).astype(np.int64)


def metric_means(runs) -> pd.DataFrame:
    """Means over the seeds of :func:`metrics_vs_epsilon`'s runs, indexed by (dataset, method, epsilon)."""
    cols = [c for c in ("DSG_C", "OCM", "2CE", "k'", "clusters") if c in runs]
    return runs.groupby(["dataset", "method", "epsilon"])[cols].mean()


def em_upper_comparison(X, wc, epsilon, uppers: dict, *, n_runs=20, seed=0) -> pd.DataFrame:
    """Mean k' (the sampled rank) of PrivTHR_EM for several upper ends of its threshold domain.

    ``uppers`` maps a label to the ``upper=`` argument (None: the estimator's default, N'/2 from a noisy N).
    Columns: ``mean k'``, ``k' / k``, ``runs with no significant cell``.
    """
    rows = []
    for label, u in uppers.items():
        kw = {} if u is None else {"upper": u}
        ks = k_prime_runs(X, "thr_em", epsilon, grid_size=wc.grid_size, p=wc.p, bounds=wc.bounds,
                          n_runs=n_runs, seed=seed, **kw)
        rows.append({"upper end U": label, "mean k'": ks.mean(), "k' / k": ks.mean() / wc.k_,
                     "runs with no significant cell": f"{int((ks == 0).sum())} of {ks.size}"})
    return pd.DataFrame(rows).set_index("upper end U")


def em_rank_probabilities(W, p, epsilon2, uppers: dict) -> pd.DataFrame:
    """Exact probability of every rank i = 0..|L| under PrivTHR_EM's EM, one column per upper end U."""
    return pd.DataFrame({label: em_threshold_probabilities(W, p, epsilon2, u) for label, u in uppers.items()})


def em_rank_summary(wc, epsilon2s: dict, uppers: dict, *, near=0.1) -> pd.DataFrame:
    """Three numbers of the exact rank distribution of PrivTHR_EM for each budget and upper end U.

    ``epsilon2s`` maps a label (e.g. "ε = 1") to the EM's own budget ε₂; ``uppers`` maps a label to U. Rows
    (budget, statistic): ``Pr[rank 0]`` (a threshold that selects no cell), ``mean rank`` and
    ``Pr[within 10 % of k]``; one column per U.

    Examples
    --------
    >>> from dpclust_book.datasets import make_ds2_like
    >>> from dpclust_core.wavecluster import WaveCluster
    >>> X, _ = make_ds2_like(3_000, random_state=0)
    >>> wc = WaveCluster(grid_size=40, p=10.0, bounds=(0.0, 1.0)).fit(X)
    >>> em_rank_summary(wc, {"ε = 1": 0.3}, {"max W": wc.W_.max()}).shape
    (3, 1)
    """
    ranks = np.arange(int((wc.W_ > 0).sum()) + 1)
    close = np.abs(ranks - wc.k_) <= near * wc.k_
    rows = {}
    for label, e2 in epsilon2s.items():
        P = em_rank_probabilities(wc.W_, wc.p, e2, uppers)
        rows[label, "Pr[rank 0]"] = P.iloc[0]
        rows[label, "mean rank"] = P.mul(ranks, axis=0).sum()
        rows[label, f"Pr[within {100 * near:g} % of k]"] = P[close].sum()
    out = pd.DataFrame(rows).T
    out.index.names = ["budget", ""]
    return out


def alpha_sweep(X, wc, method, alphas, epsilon, *, n_runs=10, seed=0) -> pd.DataFrame:
    """Mean DSG_C of ``method`` ("thr" or "thr_em") for each budget share ``alpha`` given to the counts."""
    rows = []
    for a in alphas:
        vals = [dsg_c(wc.grid_labels_, PrivateWaveCluster(epsilon, method=method, grid_size=wc.grid_size,
                                                          p=wc.p, bounds=wc.bounds, alpha=a,
                                                          random_state=s).fit(X).grid_labels_)
                for s in _seeds(seed, n_runs)]
        rows.append({"method": NAMES[method], "alpha": float(a), "DSG_C": float(np.mean(vals))})
    return pd.DataFrame(rows)


def large_epsilon(X, wc, epsilons, *, methods=("qt", "thr", "thr_em"), n_runs=10, seed=0) -> pd.DataFrame:
    """What is left of each technique's error as ε grows, over ``n_runs``: the mean ``k' - k`` (bias), the
    mean ``|k' - k|`` (typical rank error) and the mean number of cells whose significance differs from the
    non-private run (symmetric difference of the two significant sets)."""
    rows = []
    for m in methods:
        for e in epsilons:
            gaps, diffs = [], []
            for s in _seeds(seed, n_runs):
                est = PrivateWaveCluster(e, method=m, grid_size=wc.grid_size, p=wc.p, bounds=wc.bounds,
                                         random_state=s).fit(X)
                gaps.append(est.k_prime_ - wc.k_)
                diffs.append(int((est.significant_ != wc.significant_).sum()))
            gaps = np.array(gaps, dtype=float)
            rows.append({"method": NAMES[m], "epsilon": float(e), "mean k' - k": gaps.mean(),
                         "mean |k' - k|": np.abs(gaps).mean(), "cells that differ": float(np.mean(diffs))})
    return pd.DataFrame(rows)


def dsg_c_table(X, wc, epsilons, *, methods=("thr", "thr_em"), n_runs=100, seed=0) -> pd.DataFrame:
    """Mean DSG_C of each method (columns, the paper's names) at each ε (rows) over ``n_runs``, against the
    fitted non-private ``wc``; also the standard error of each mean (columns ``... s.e.``)."""
    out = {}
    for m in methods:
        means, ses = [], []
        for e in epsilons:
            vals = np.array([dsg_c(wc.grid_labels_,
                                   PrivateWaveCluster(e, method=m, grid_size=wc.grid_size, p=wc.p,
                                                      bounds=wc.bounds, connectivity=wc.connectivity,
                                                      random_state=s).fit(X).grid_labels_)
                             for s in _seeds(seed, n_runs)])
            means.append(vals.mean())
            ses.append(vals.std(ddof=1) / np.sqrt(vals.size) if vals.size > 1 else np.nan)
        out[NAMES[m]] = means
        out[NAMES[m] + " s.e."] = ses
    return pd.DataFrame(out, index=pd.Index([float(e) for e in epsilons], name="epsilon"))


def _em_quality(W, p, xs):
    """q(x) = -|rank(x) - k| at every x (rank over the positive values of W, k = ceil((1-p)|L|))."""
    L = np.sort(W[W > 0])
    k = int(np.ceil(round((1 - p / 100.0) * L.size, 9)))
    rank = L.size - np.searchsorted(L, xs, side="left")  # #{w in L : w >= x}
    return -np.abs(rank - k)


def neighbour_changes(n_trials=2000, *, grid_size=8, n_points=12, p=50.0, rng=None) -> pd.DataFrame:
    """The largest change, over random small datasets and random neighbours, of the three private inputs.

    For add/remove neighbours (one point added) and replace-one neighbours (one point moved), measures the
    L1 change of the count matrix M, the change of ``|Z|`` (empty cells of W) and of PrivTHR_EM's quality
    ``q(x) = -|rank(x) - k|`` at every threshold x. A brute-force check of the sensitivities.
    """
    n_trials = check_int(n_trials, "n_trials", 1, 10**6)
    g = check_int(grid_size, "grid_size", 2, 256)
    n = check_int(n_points, "n_points", 1, 10**5)
    p = check_real(p, "p", low=0.0, high=100.0, high_open=True)
    rng = check_rng(rng, "rng")
    xs = np.arange(0.25, n + 1, 0.5)  # between and on every possible value of W (multiples of 0.5)
    worst = {"add/remove one record": [0.0, 0, 0], "replace one record": [0.0, 0, 0]}
    for _ in range(n_trials):
        X = rng.uniform(size=(n, 2))
        new = rng.uniform(size=(1, 2))
        for rel, Y in (("add/remove one record", np.vstack([X, new])),
                       ("replace one record", np.vstack([X[1:], new]))):
            Ma, Mb = quantize(X, (0, 1), g), quantize(Y, (0, 1), g)
            Wa, Wb = haar_approx(Ma), haar_approx(Mb)
            w = worst[rel]
            w[0] = max(w[0], float(np.abs(Ma - Mb).sum()))
            w[1] = max(w[1], abs(int((Wa <= 0).sum()) - int((Wb <= 0).sum())))
            w[2] = max(w[2], int(np.abs(_em_quality(Wa, p, xs) - _em_quality(Wb, p, xs)).max()))
    return pd.DataFrame(worst, index=["L1 change of M", "change of |Z|", "change of q(x)"]).T.astype(int)



def budget_splits(X, wc, epsilon=1.0, *, seed=0) -> pd.DataFrame:
    """How each technique splits ``epsilon`` (from one fit each): ε on N, on the counts, on the second step."""
    rows = []
    for m in METHODS:
        est = PrivateWaveCluster(epsilon, method=m, grid_size=wc.grid_size, p=wc.p, bounds=wc.bounds,
                                 random_state=seed).fit(X)
        second = {"baseline": "—", "qt": "—", "thr": "noisy |Z|", "thr_em": "EM threshold"}[m]
        rows.append({"technique": NAMES[m], "ε on N (noisy count)": est.epsilon_n_,
                     "ε on the counts": est.epsilon1_, "ε on the second step": est.epsilon2_,
                     "second step": second, "total (ledger)": est.ledger_.epsilon})
    return pd.DataFrame(rows).set_index("technique")


def connectivity_comparison(X, epsilon=1.0, *, grid_size, p, connectivities=(8, 4),
                            methods=("qt", "thr", "thr_em"), n_runs=20, seed=0,
                            bounds=WAVECLUSTER_BOUNDS) -> pd.DataFrame:
    """Each technique under 8- and 4-connectivity, each against the non-private result with the same
    connectivity: the true number of clusters, the mean DSG_C and the mean number of private clusters over
    ``n_runs``. Indexed by (connectivity, technique).

    Examples
    --------
    >>> from dpclust_book.datasets import make_ds2_like
    >>> X, _ = make_ds2_like(3_000, random_state=0)
    >>> connectivity_comparison(X, grid_size=40, p=10.0, methods=("thr",), n_runs=2).shape
    (2, 3)
    """
    rows = []
    for conn in connectivities:
        wc = WaveCluster(grid_size=grid_size, p=p, bounds=bounds, connectivity=conn).fit(X)
        for m in methods:
            fits = [PrivateWaveCluster(epsilon, method=m, grid_size=grid_size, p=p, bounds=bounds,
                                       connectivity=conn, random_state=s).fit(X)
                    for s in _seeds(seed, n_runs)]
            rows.append({"connectivity": conn, "technique": NAMES[m], "true clusters": wc.n_clusters_,
                         "DSG_C": float(np.mean([dsg_c(wc.grid_labels_, f.grid_labels_) for f in fits])),
                         "private clusters": float(np.mean([f.n_clusters_ for f in fits]))})
    return pd.DataFrame(rows).set_index(["connectivity", "technique"])


# ----------------------------------------------------------------------------- PrivQT's bias, the split of §6
@validate_params(n_zero=Real(0.0), p=_P, theta=Real(0.0))
def privqt_bias(n_zero: float, p: float, theta: float = 0.0) -> float:
    """PrivQT's expected rank inflation ``E[k' - k] = (1 - p)(|Z|/2 - θ)`` (paper §5.2.1).

    Examples
    --------
    >>> round(privqt_bias(241, 10), 2)   # the paper's "theoretical bound 108.45" on DS2
    108.45
    """
    return (1.0 - p / 100.0) * (n_zero / 2.0 - theta)


@validate_params(n_samples=Int(2), test_fraction=Real(0.0, 1.0, low_open=True, high_open=True),
                 random_state=Rng())
def fixed_split(n_samples: int, test_fraction: float = 0.1,
                random_state: RNGLike = 0) -> tuple[np.ndarray, np.ndarray]:
    """A fixed (seeded) split of ``range(n_samples)`` for the protocol of paper §6: ``(train_idx, test_idx)``.

    Examples
    --------
    >>> tr, te = fixed_split(100, 0.1, random_state=0)
    >>> tr.size, te.size, len(set(tr) & set(te))
    (90, 10, 0)
    """
    n = n_samples
    perm = random_state.permutation(n)
    n_test = min(n - 1, max(1, int(round(test_fraction * n))))
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])
