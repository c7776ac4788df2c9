"""Private choice of the number of clusters k from ONE EUGkM synopsis (thesis §4.6.7, Tables 4.3–4.5).

EUGkM's grid depends on N, epsilon and d but not on k, so one noisy histogram serves every candidate k: for each
k, weighted Lloyd runs on the synopsis from ``n_init`` sphere-packing initialisations, the run of least synopsis
cost is kept, and its **RT-validity** (Ray & Turi 1999) is computed on the synopsis. The k with the lowest
validity wins. Everything after the histogram is post-processing, so the whole choice costs epsilon (a share
``n_share`` of it buys the noisy N that sizes the grid, unless ``n_public`` publishes N).

The thesis does not define RT-validity; following Ray & Turi: ``validity = intra / inter`` with ``intra`` the
NICV (here on the synopsis: cell centres weighted by noisy counts, divided by the total noisy count) and
``inter = min_{i<j} ||o_i - o_j||^2``. Lower is better; k = 1 has no inter distance (validity inf). When the
noise makes the noisy total negative, the ranking uses the synopsis cost over ``inter`` (the same order as the
validity whenever the total is positive, and not reversed when it is not).
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import ArrayLike, BadTypeError, Real, RNGLike, Spec, check_data, check_int, read_dask_rows
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator
from .grid import (_GRID_PARAMS, DEFAULT_MAX_CELLS, DEFAULT_REFINE_ITER, DEFAULT_SCREEN_CELLS, MAX_K, GridSynopsis,
                   _check_k_size, _fit_synopsis, _initial_centroids, _synopsis_search)

__all__ = ["rt_validity", "synopsis_rt_validity", "choose_k", "ChooseKResult"]

_MAX_CANDIDATES = 1000


def _min_pair_sq(C):
    """``min_{i<j} ||o_i - o_j||^2`` (inf for one centroid)."""
    if C.shape[0] < 2:
        return np.inf
    cd = _kernels.sq_distances(C, C)
    return float(cd[np.triu_indices(C.shape[0], 1)].min())


def rt_validity(X: ArrayLike, centers: ArrayLike) -> float:
    """Ray–Turi validity ``intra / inter`` on data ``X``: NICV over the smallest squared centroid distance.

    Not private (it reads X); the book uses it for the non-private row of the k tables.

    Parameters
    ----------
    X : array (N, d)
    centers : array (k, d)

    Returns
    -------
    float
        ``inf`` for k = 1 or two coinciding centroids.

    Examples
    --------
    >>> round(rt_validity([[0.0], [0.1], [1.0], [1.1]], [[0.05], [1.05]]), 6)
    0.0025
    """
    X = check_data(X, "X")
    C = check_data(centers, "centers", n_features=X.shape[1], features_of="X")
    inter = _min_pair_sq(C)
    if not inter > 0:
        return float("inf")
    return float(_kernels.min_sq_distances(X, C).mean() / inter)


def synopsis_rt_validity(synopsis: GridSynopsis, centers: ArrayLike) -> float:
    """RT-validity on a synopsis: synopsis-NICV (noisy-count weighted) over ``min_{i<j} ||o_i - o_j||^2``.

    Parameters
    ----------
    synopsis : GridSynopsis
    centers : array (k, d) in the synopsis's scaled domain

    Returns
    -------
    float

    Examples
    --------
    >>> syn = GridSynopsis([5.0, 0.0, 0.0, 5.0], m=2, d=2, r=1.0, epsilon=1.0)
    >>> synopsis_rt_validity(syn, [[-0.5, -0.5], [0.5, 0.5]])
    0.0
    """
    if not isinstance(synopsis, GridSynopsis):
        raise BadTypeError(f"synopsis must be a GridSynopsis, got {type(synopsis).__name__}")
    C = check_data(centers, "centers", n_features=synopsis.d)
    inter = _min_pair_sq(C)
    if not inter > 0:
        return float("inf")
    return float(synopsis.nicv(C) / inter)


@dataclass
class ChooseKResult:
    """Result of :func:`choose_k`: the chosen ``k_``, the validity of every candidate, the centroids per k."""

    k_: int
    scores_: dict
    centers_: dict = field(repr=False)
    scaled_centers_: dict = field(repr=False)
    synopsis_: GridSynopsis = field(repr=False)
    ledger_: PrivacyLedger = field(repr=False)
    n_estimate_: float | None = None

    def ranking(self):
        """Candidates sorted by validity (best first)."""
        return sorted(self.scores_, key=lambda k: self.scores_[k])


class _KRange(Spec):
    def __call__(self, value, name):
        if isinstance(value, (str, bytes)) or value is None:
            raise BadTypeError(f"{name} must be an iterable of integers >= 1, got {value!r}")
        try:
            it = iter(value)
        except TypeError:
            raise BadTypeError(f"{name} must be an iterable of integers >= 1, got {value!r}") from None
        ks = []
        for v in it:
            ks.append(check_int(v, f"{name} element", 1, MAX_K))
            if len(ks) > _MAX_CANDIDATES:
                raise ValueError(f"{name} has more than {_MAX_CANDIDATES} candidates")
        if not ks:
            raise ValueError(f"{name} must not be empty")
        return sorted(set(ks))


class _ChooseK(DPEstimator):
    """The estimator behind :func:`choose_k` (the ledger, the budget check and the validation of DPEstimator)."""

    _accepts_dask = True  # one histogram: a reduction over the rows, computed on the workers
    #: Post-processed releases (one per candidate k) and the public scale of their grids (see DPEstimator).
    _release_grids = {"scores_": 1.0, "centers_": "box", "scaled_centers_": lambda est: 2.0 * est.r}
    _parameters = dict({k: v for k, v in _GRID_PARAMS.items() if k not in ("n_clusters", "init")},
                       k_range=_KRange(), theta=Real(0.0, low_open=True))

    def __init__(self, k_range, epsilon, *, bounds, n_init=30, theta=10.0, rounding="round",
                 max_cells=DEFAULT_MAX_CELLS, max_iter=30, tol=1e-4, screen_cells=DEFAULT_SCREEN_CELLS,
                 refine_iter=DEFAULT_REFINE_ITER, r=1.0, n_public=None, n_share=0.05, random_state=None,
                 ledger=None):
        self.k_range = k_range
        self.epsilon = epsilon
        self.bounds = bounds
        self.n_init = n_init
        self.theta = theta
        self.rounding = rounding
        self.max_cells = max_cells
        self.max_iter = max_iter
        self.tol = tol
        self.screen_cells = screen_cells
        self.refine_iter = refine_iter
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        d = X.shape[1]
        ks = p.k_range
        for k in ks:
            _check_k_size(k, d)
        X = read_dask_rows(X)  # dask: NaN/inf found, and the number of rows known, before any release
        Z = _kernels.scale_into(X, low, high, p.r)
        n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
        res = _fit_synopsis(Z, None, p.epsilon - eps_n, n_est, method="EUGkM", theta=p.theta, rounding=p.rounding,
                            max_cells=p.max_cells, r=p.r, max_iter=p.max_iter, tol=p.tol, rng=rng, ledger=ledger,
                            name="choose_k EUGkM")
        syn = res.synopsis
        scores, centers, scaled, cost_key = {}, {}, {}, {}
        for k in ks:  # a loop over candidate k: post-processing of the one synopsis
            inits = _initial_centroids("sphere_packing", p.n_init, k, d, p.r, low, high, rng)
            # EUGkM's search (screened on the largest cells when the grid is large), then the winner's cost on
            # the whole synopsis; the least synopsis cost wins (robust to a noisy total <= 0)
            cands, _, _, b, _ = _synopsis_search(syn, inits, p.r, p.max_iter, p.tol, p.screen_cells,
                                                 p.refine_iter)
            best = cands[b]
            cost = float(syn._costs(best[None])[0])
            inter = _min_pair_sq(best)
            scaled[k] = best
            centers[k] = _kernels.unscale_from(best, low, high, p.r)
            scores[k] = float(cost / syn.total() / inter) if inter > 0 else float("inf")
            cost_key[k] = float(cost / inter) if inter > 0 else float("inf")
        k_best = min(ks, key=lambda k: (cost_key[k], k))
        self.k_ = k_best
        self.scores_ = scores
        self.centers_ = centers
        self.scaled_centers_ = scaled
        self.synopsis_ = syn
        self.n_estimate_ = float(n_est)


def choose_k(X: ArrayLike, epsilon: float, k_range: Iterable[int] = range(2, 11), *, bounds: ArrayLike,
             n_init: int = 30, theta: float = 10.0, rounding: Literal["round", "floor", "ceil"] = "round",
             max_cells: int = DEFAULT_MAX_CELLS, max_iter: int = 30, tol: float = 1e-4,
             screen_cells: int | None = DEFAULT_SCREEN_CELLS, refine_iter: int = DEFAULT_REFINE_ITER, r: float = 1.0,
             n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
             ledger: PrivacyLedger | None = None) -> ChooseKResult:
    est = _ChooseK(k_range, epsilon, bounds=bounds, n_init=n_init, theta=theta, rounding=rounding,
                   max_cells=max_cells, max_iter=max_iter, tol=tol, screen_cells=screen_cells,
                   refine_iter=refine_iter, r=r, n_public=n_public, n_share=n_share, random_state=random_state,
                   ledger=ledger).fit(X)
    return ChooseKResult(est.k_, est.scores_, est.centers_, est.scaled_centers_, est.synopsis_, est.ledger_,
                         est.n_estimate_)


choose_k.__doc__ = """Choose k privately from one EUGkM synopsis with the RT-validity statistic (thesis §4.6.7).

    epsilon-DP under add/remove one record (one noisy N and one histogram; the rest is post-processing), with
    ``bounds`` public (and N, if ``n_public`` is given).

    Parameters
    ----------
    X : array (N, d) or dask array
        The private data. A dask array is reduced on its workers (one histogram of the public grid); only the
        cell counts reach the driver, where the noise is added.
    epsilon : float
        Total budget.
    k_range : iterable of int, default range(2, 11)
        Candidate k (each >= 1; at most 1000 candidates). Never compared with N.
    bounds : pair or per-dimension bounds
        The **public** domain (required); data scaled into ``[-r, r]^d`` and clipped.
    n_init, theta, rounding, max_cells, max_iter, tol, screen_cells, refine_iter, r
        As in :class:`~dpclust_core.kmeans.grid.EUGkM`: every candidate k is searched as EUGkM searches its
        synopsis (on the ``screen_cells`` cells of largest noisy count when the grid has more cells).
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger asked for ``epsilon`` before the data are read.

    Returns
    -------
    ChooseKResult
        ``k_``, ``scores_`` {k: validity}, ``centers_`` {k: (k, d) original units}, ``scaled_centers_``,
        ``synopsis_``, ``ledger_`` (total = epsilon) and ``n_estimate_`` (the noisy N or ``n_public``).

    Examples
    --------
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(6000, 3, 2, separation=0.34, n_outliers=0, random_state=4)
    >>> res = choose_k(X, 2.0, range(2, 6), bounds=(-1, 1), n_init=5, random_state=0)
    >>> res.k_, round(res.ledger_.epsilon, 12)
    (3, 2.0)
    """
