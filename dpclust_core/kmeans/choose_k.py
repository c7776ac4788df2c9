"""Private choice of the number of clusters k from ONE EUGkM synopsis (thesis §4.6.7, Tables 4.3–4.5;
spec ``dp-basics-and-kmeans.md`` §3.16).

EUGkM's grid size depends on N, epsilon and d but not on k, so one noisy histogram (costing the whole epsilon)
serves every candidate k: for each k, weighted Lloyd runs on the synopsis from ``n_init`` sphere-packing
initialisations, the run with the lowest synopsis-NICV is kept, and its **RT-validity** (Ray & Turi 1999) is
computed on the synopsis. The k with the lowest validity wins. (Synopsis-NICV divides by the noisy total; in the
rare case that the noise makes it negative, both selections rank by the un-normalised synopsis cost instead, so the
order is not reversed — the choice stays post-processing of the synopsis.) Everything after the histogram is
post-processing, so the whole choice costs epsilon.

The thesis does not define RT-validity; following Ray & Turi: ``validity = intra / inter`` with
``intra`` the NICV (here on the synopsis: cell centres weighted by noisy counts, divided by the total noisy
count) and ``inter = min_{i<j} ||o_i - o_j||^2``. Lower is better; k = 1 has no inter distance (validity inf).
N is treated as public for the grid size (``n_public``; None = ``len(X)``), as the thesis does.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .._validation import check_bounds, check_data, check_epsilon, check_positive_int, check_rng
from ..accounting import PrivacyLedger
from ..data import scale_to_domain, unscale_from_domain
from .grid import ROUNDINGS, GridSynopsis, _best_on_synopsis, _check_n, _initial_centroids, cells_per_dimension, \
    eugkm_grid_size, noisy_grid_synopsis

__all__ = ["rt_validity", "synopsis_rt_validity", "choose_k", "ChooseKResult"]


def rt_validity(X, centers):
    """Ray–Turi validity ``intra / inter`` on data ``X``: NICV over the smallest squared centroid distance."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(centers, dtype=float)
    if C.shape[0] < 2:
        return float("inf")
    d2 = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    intra = d2.min(axis=1).mean()
    cd = ((C[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    inter = cd[np.triu_indices(C.shape[0], 1)].min()
    return float(intra / inter) if inter > 0 else float("inf")


def synopsis_rt_validity(synopsis: GridSynopsis, centers):
    """RT-validity on a synopsis: synopsis-NICV (noisy-count weighted) over ``min_{i<j} ||o_i - o_j||^2``."""
    C = np.asarray(centers, dtype=float)
    if C.shape[0] < 2:
        return float("inf")
    cd = ((C[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    inter = cd[np.triu_indices(C.shape[0], 1)].min()
    return float(synopsis.nicv(C) / inter) if inter > 0 else float("inf")


@dataclass
class ChooseKResult:
    """Result of :func:`choose_k`: the chosen ``k_``, the validity of every candidate, the centroids per k."""

    k_: int
    scores_: dict
    centers_: dict = field(repr=False)
    scaled_centers_: dict = field(repr=False)
    synopsis_: GridSynopsis = field(repr=False)
    ledger_: PrivacyLedger = field(repr=False)

    def ranking(self):
        """Candidates sorted by validity (best first)."""
        return sorted(self.scores_, key=lambda k: self.scores_[k])


def choose_k(X, epsilon, k_range=range(2, 11), bounds=(-1.0, 1.0), *, n_init=30, theta=10.0, rounding="round",
             max_cells=1_000_000, n_public=None, r=1.0, max_iter=30, tol=1e-4, random_state=None):
    """Choose k privately from one EUGkM synopsis with the RT-validity statistic (spec §3.16, Algorithm KEST).

    Parameters
    ----------
    X : array (N, d); epsilon : total budget (all of it buys the synopsis).
    k_range : iterable of candidate k (each >= 1).
    bounds : the public domain (data scaled into ``[-r, r]^d`` and clipped).
    n_init, theta, rounding, max_cells, max_iter, tol : as in :class:`~dpclust_core.kmeans.grid.EUGkM`.
    n_public : N for the grid size; None = ``len(X)`` (treated as public, as in the thesis).

    Returns
    -------
    :class:`ChooseKResult` with ``k_``, ``scores_`` {k: validity}, ``centers_`` {k: (k, d) original units},
    ``synopsis_`` and ``ledger_`` (one entry, total = epsilon).
    """
    eps = check_epsilon(epsilon)
    ks = [check_positive_int(k, "k_range element") for k in k_range]
    if not ks:
        raise ValueError("k_range must not be empty")
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    n_init = check_positive_int(n_init, "n_init")
    X = check_data(X)
    n, d = X.shape
    if max(ks) > n:
        raise ValueError(f"k_range contains k={max(ks)} > number of samples ({n})")
    low, high = check_bounds(bounds, d)
    n_pub = n if n_public is None else _check_n(n_public, "n_public")
    rng = check_rng(random_state)
    m = cells_per_dimension(eugkm_grid_size(n_pub, eps, d, theta), d, rounding)
    while m > 1 and float(m) ** d > max_cells:
        m -= 1
    ledger = PrivacyLedger(budget_epsilon=eps)
    Z = scale_to_domain(X, (low, high), r=r)
    syn = noisy_grid_synopsis(Z, m, eps, r, rng, ledger=ledger, name="choose_k EUGkM")
    scores, centers, scaled = {}, {}, {}
    for k in ks:  # loop over candidate k: post-processing of the one synopsis
        inits = _initial_centroids("sphere_packing", n_init, k, d, r, low, high, rng)
        cents, _ = syn.lloyd(inits, max_iter=max_iter, tol=tol)
        best = cents[_best_on_synopsis(syn, syn.nicv(cents))]  # by synopsis cost, robust to a total <= 0
        scaled[k] = best
        centers[k] = unscale_from_domain(best, (low, high), r=r)
        scores[k] = synopsis_rt_validity(syn, best)
    # rank by validity x total = (synopsis cost) / inter: the same order as the validity when the noisy total is
    # > 0, and not reversed when the noise makes it negative (k = 1, validity inf, stays last)
    sign = 1.0 if syn.total() > 0 else -1.0
    k_best = min(ks, key=lambda k: (scores[k] * sign if np.isfinite(scores[k]) else np.inf, k))
    return ChooseKResult(k_best, scores, centers, scaled, syn, ledger)
