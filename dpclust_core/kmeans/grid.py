"""Grid-synopsis k-means: UGkM, EUGkM and MkM (thesis §4.3, Algorithm 15, Eqs. 4.11–4.19).

A synopsis method releases **one** noisy histogram: the public domain ``[-r, r]^d`` is cut into ``m^d``
equal-width cells, and every cell count — **including the empty cells** — gets ``Lap(1/epsilon)`` noise. One
record sits in exactly one cell, so the vector of counts has L1 sensitivity 1 under add/remove-one-record DP
and the whole histogram is **one** Laplace release (``l0_sensitivity=1``: one record changes one coordinate) —
parallel composition over the cells is the sensitivity of that vector, nothing needs to be composed by hand.
Everything after it (weighted Lloyd on the cell centres from many initialisations, the choice among them,
the choice of k) is post-processing and costs nothing.

The three methods differ only in the number of cells ``M``:

* **UGkM** (Qardaji et al.'s UG): ``M = N epsilon / 10``, Eq. (4.12);
* **EUGkM** (the thesis's method): ``M = (N epsilon / theta)^(2d/(2+d))`` with ``theta = 10``, Eq. (4.13);
* **MkM** (Lei's M-estimator grid): ``M = (N / sqrt(ln N))^(2d/(2+d))``, Eq. (4.11) (no epsilon).

``m = M^(1/d)`` cells per dimension is rarely an integer: the rounding is a parameter (``"round"`` by default,
at least 1), and the real number of cells ``m^d`` is recorded. ``m`` is computed directly (in log space) and
capped by the public ``max_cells``, so a huge ``epsilon``, ``n_public`` or a tiny ``theta`` cannot make the grid
size overflow or loop. Negative and fractional noisy counts are **kept**: a cell with centre ``c`` and noisy
count ``n~`` adds ``n~`` to its cluster's weight and ``n~ c`` to its sum; a cluster whose noisy weight is
``<= 0`` keeps its previous centroid, and every centroid is clipped to ``[-r, r]^d`` (Algorithm 15 line 18).

**N is private.** The thesis treats N as public in all three grid sizes. Here the estimators spend a share
``n_share`` of epsilon (default 5 %) on a noisy count of N and size the grid from it; ``n_public=`` publishes N
instead. Reading ``len(X)`` silently, as the thesis does, is not "a small leak" under add/remove DP: N and N + 1
get different grids, and the grid size shows in the output (an audit of EUGkM at epsilon = 1 on 62 against 63
identical records tells the two apart in 3000 of 3000 runs: an empirical epsilon above 6.7, where 1 was claimed).

The synopsis itself (:class:`~dpclust_core.kmeans.synopsis.GridSynopsis`), its release and the search over it
live in :mod:`dpclust_core.kmeans.synopsis`, shared with the hybrid and the private choice of k.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (ArrayLike, Epsilon, HalfWidth, Int, Options, Real, RNGLike, check_epsilon, read_dask_rows,
                           validate_params)
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, ScaledCentroidMixin
from . import synopsis as syn
from .synopsis import (DEFAULT_MAX_CELLS, DEFAULT_REFINE_ITER, DEFAULT_SCREEN_CELLS, DEFAULT_SEEDINGS, ROUNDINGS,
                       GridSynopsis, noisy_grid_synopsis)  # noqa: F401  (re-exported: they lived here before)

__all__ = [
    "ugkm_grid_size",
    "eugkm_grid_size",
    "mkm_grid_size",
    "cells_per_dimension",
    "eugkm_variance",
    "eugkm_bias",
    "eugkm_variance_m",
    "UGkM",
    "EUGkM",
    "MkM",
]

# ============================================================================ grid sizes (public formulas)
def ugkm_grid_size(n: float, epsilon: float) -> float:
    """UGkM's total number of cells ``M = N epsilon / 10``, Eq. (4.12).

    Per dimension ``m = M^(1/d)``; for d = 2 this is UG's ``m = sqrt(N epsilon / 10)`` (Eq. 2.12). The thesis's
    experiments section misprints it with EUGkM's exponent.

    Parameters
    ----------
    n : float
        The number of records N (>= 1).
    epsilon : float
        The budget of the histogram.

    Returns
    -------
    float
        M (``inf`` if it overflows a float).

    Examples
    --------
    >>> ugkm_grid_size(5000, 0.7)
    350.0
    """
    return syn.check_n(n) * check_epsilon(epsilon) / 10.0  # inf on overflow (float multiplication)


@validate_params(n=syn.check_n, epsilon=Epsilon(), d=syn.check_d, theta=Real(0.0, low_open=True))
def eugkm_grid_size(n: float, epsilon: float, d: int, theta: float = 10.0) -> float:
    """EUGkM's total number of cells ``M = (N epsilon / theta)^(2d/(2+d))``, Eq. (4.13).

    The exponent balances the noise variance of a range query (grows like M) against the bias of the cells its
    faces cut (falls like ``M^(-2/d)``); ``theta = 10`` was tuned by the thesis on Synthe-PT.

    Parameters
    ----------
    n : float
        The number of records N (>= 1).
    epsilon : float
        The budget of the histogram.
    d : int
        The dimension.
    theta : float, default 10
        The constant of Eq. (4.13), > 0.

    Returns
    -------
    float
        M (``inf`` if it overflows a float).

    Examples
    --------
    >>> round(eugkm_grid_size(48841, 1.0, 6), 1)
    341331.9
    """
    with np.errstate(over="ignore"):
        base = np.float64(n) * epsilon / theta
    return syn.power(base, 2.0 * d / (2.0 + d))


def mkm_grid_size(n: float, d: int) -> float:
    """MkM's total number of cells ``M = (N / sqrt(ln N))^(2d/(2+d))``, Eq. (4.11) (natural log; no epsilon).

    Parameters
    ----------
    n : float
        The number of records N (> 1, since ``ln 1 = 0``).
    d : int
        The dimension.

    Returns
    -------
    float
        M (``inf`` if it overflows a float).

    Examples
    --------
    >>> round(mkm_grid_size(5000, 2) ** 0.5, 2)
    41.39
    """
    n = syn.check_n(n)
    d = syn.check_d(d)
    if n <= 1.0:
        raise ValueError("n must be > 1 for MkM (ln N = 0 in Eq. 4.11)")
    return syn.power(n / math.sqrt(math.log(n)), 2.0 * d / (2.0 + d))


@validate_params(M=Real(0.0, low_open=True), d=syn.check_d, rounding=Options(*ROUNDINGS))
def cells_per_dimension(M: float, d: int, rounding: Literal["round", "floor", "ceil"] = "round") -> int:
    """Integer cells per dimension ``m`` from a total ``M``: round, floor or ceil of ``M^(1/d)``, at least 1.

    The thesis leaves the rounding open: Lifesci at epsilon = 0.05 has ``M = 3494``, ``m = 2.26``; floor and round
    give ``2^10 = 1024`` cells, ceil ``3^10 = 59,049``.

    Parameters
    ----------
    M : float
        Total number of cells (finite, > 0).
    d : int
        The dimension.
    rounding : {"round", "floor", "ceil"}

    Returns
    -------
    int

    Examples
    --------
    >>> cells_per_dimension(3494, 10), cells_per_dimension(3494, 10, "ceil")
    (2, 3)
    """
    return max(1, int(syn.round_root(M ** (1.0 / d), rounding)))


# ============================================================================ EUGkM error model
@validate_params(M=Real(0.0, low_open=True), n=syn.check_n, epsilon=Epsilon(), d=syn.check_d, k=Int(1), r=HalfWidth())
def eugkm_variance_m(M: float, n: float, epsilon: float, d: int, k: int, r: float = 1.0) -> float:
    """Variance of EUGkM's centroids for a grid of ``M`` cells, Eq. (4.15).

    ``2 d M r^2 k^((d-2)/d) / (3 N^2 epsilon^2)`` (k equal cubic clusters of N/k points).

    Parameters
    ----------
    M : float
        Number of cells (> 0).
    n, epsilon, d, k, r : float, float, int, int, float
        N, the histogram's budget, the dimension, the number of clusters and the half-width of the domain.

    Returns
    -------
    float

    Examples
    --------
    >>> round(eugkm_variance_m(250, 5000, 0.5, 2, 15), 8)
    5.333e-05
    """
    with np.errstate(over="ignore", under="ignore"):
        return float(np.float64(2.0 * d * r * r) * M * syn.power(k, (d - 2.0) / d)
                     / (3.0 * np.float64(n) ** 2 * np.float64(epsilon) ** 2))


@validate_params(n=syn.check_n, epsilon=Epsilon(), d=syn.check_d, k=Int(1), r=HalfWidth(), theta=Real(0.0, low_open=True))
def eugkm_variance(n: float, epsilon: float, d: int, k: int, r: float = 1.0, theta: float = 10.0) -> float:
    """``Var_EUGkM(eps) = 2 d r^2 k^((d-2)/d) / (3 theta^(2d/(2+d)) (N eps)^(4/(2+d)))``, Eq. (4.18).

    Eq. (4.15) at EUGkM's grid size (real-valued, unrounded). The thesis calls it a lower bound of the error.

    Parameters
    ----------
    n, epsilon, d, k : float, float, int, int
        N, the histogram's budget, the dimension, the number of clusters.
    r : float, default 1
        Half-width of the scaled domain.
    theta : float, default 10
        The constant of Eq. (4.13).

    Returns
    -------
    float

    Examples
    --------
    >>> f"{eugkm_variance(107091, 0.1, 2, 5):.3g}"
    '1.25e-05'
    """
    log_den = (math.log(3.0) + (2.0 * d / (2.0 + d)) * math.log(theta)
               + (4.0 / (2.0 + d)) * (math.log(n) + math.log(epsilon)))
    log_num = math.log(2.0 * d) + 2.0 * math.log(r) + ((d - 2.0) / d) * math.log(k)
    return syn.exp_or_inf(log_num - log_den)


@validate_params(n=syn.check_n, epsilon=Epsilon(), d=syn.check_d, r=HalfWidth(), theta=Real(0.0, low_open=True))
def eugkm_bias(n: float, epsilon: float, d: int, r: float = 1.0, theta: float = 10.0) -> float:
    """The squared-bias bound ``d r^2 / (N eps / theta)^(4/(2+d))``, Eq. (4.19) (= Eq. 4.16 at EUGkM's M).

    The thesis names it "Bias"; it bounds the **squared** bias, ``d r^2 / M^(2/d)``.

    Parameters
    ----------
    n, epsilon, d : float, float, int
        N, the histogram's budget, the dimension.
    r : float, default 1
    theta : float, default 10

    Returns
    -------
    float

    Examples
    --------
    >>> round(eugkm_bias(5000, 1.0, 2), 6)
    0.004
    """
    return syn.exp_or_inf(math.log(d) + 2.0 * math.log(r) - (4.0 / (2.0 + d)) * (math.log(n) + math.log(epsilon)
                                                                         - math.log(theta)))


# ============================================================================ the synopsis
class _GridKMeans(ScaledCentroidMixin, DPEstimator):
    """Shared machinery of UGkM, EUGkM and MkM; subclasses set ``_method``."""

    _method = "EUGkM"
    _parameters = dict(syn.GRID_PARAMS, n_seedings=Int(0, 10_000))
    _accepts_dask = True  # the histogram is a reduction over the rows: computed on the workers

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike,
                 init: Literal["sphere_packing", "random"] | ArrayLike = "sphere_packing", n_init: int = 30,
                 rounding: Literal["round", "floor", "ceil"] = "round", max_cells: int = DEFAULT_MAX_CELLS,
                 max_iter: int = 30, tol: float = 1e-4, screen_cells: int | None = DEFAULT_SCREEN_CELLS,
                 refine_iter: int = DEFAULT_REFINE_ITER, n_seedings: int = DEFAULT_SEEDINGS, r: float = 1.0,
                 n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.init = init
        self.n_init = n_init
        self.rounding = rounding
        self.max_cells = max_cells
        self.max_iter = max_iter
        self.tol = tol
        self.screen_cells = screen_cells
        self.refine_iter = refine_iter
        self.n_seedings = n_seedings
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _theta(self, p):
        return None

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        k, d = p.n_clusters, X.shape[1]
        syn.check_k_size(k, d)
        inits = syn.initial_centroids(p.init, p.n_init, k, d, p.r, low, high, rng)
        X = read_dask_rows(X)  # dask: NaN/inf found, and the number of rows known, before any release
        Z = _kernels.scale_into(X, low, high, p.r)
        n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
        eps_hist = p.epsilon - eps_n
        res = syn.fit(Z, inits, eps_hist, n_est, method=self._method, theta=self._theta(p),
                            rounding=p.rounding, max_cells=p.max_cells, r=p.r, max_iter=p.max_iter, tol=p.tol,
                            rng=rng, ledger=ledger, name=self._method, screen_cells=p.screen_cells,
                            refine_iter=p.refine_iter, n_seedings=p.n_seedings)
        self.r_ = p.r
        self.n_estimate_ = float(n_est)
        self.epsilon_synopsis_ = eps_hist
        self.grid_size_ = res.grid_size
        self.cells_per_dim_ = res.m
        self.n_cells_ = res.n_cells
        self.synopsis_ = res.synopsis
        self.init_scores_ = res.scores
        self.init_n_iter_ = res.iters
        self.best_init_ = res.best
        self.n_screen_cells_ = res.n_screen
        self.n_iter_ = int(res.iters[res.best])
        self.scaled_centers_ = res.centers[res.best]
        self.cluster_centers_ = _kernels.unscale_from(self.scaled_centers_, low, high, p.r)


_DOC_PARAMS = """
    Parameters
    ----------
    n_clusters : int
        k >= 1. (Never compared with N: that comparison would itself reveal N.)
    epsilon : float
        Total budget: ``n_share * epsilon`` buys the noisy N (unless ``n_public`` is given), the rest the histogram.
    bounds : pair or per-dimension bounds
        The **public** domain (``(low, high)``, ``(lows, highs)`` or shape (d, 2)); required — reading it off the
        data would leak the extremes. Data are mapped into ``[-r, r]^d`` and points outside are clipped.
    init : "sphere_packing" (default), "random", or array (k, d) / (B, k, d) in ORIGINAL units
        Initial centroids of Lloyd on the synopsis; with a string, ``n_init`` sets are drawn (no data read).
        An array must be public (not computed from the private data).
    n_init : int, default 30
        Number of initialisations (the thesis uses the same 30 sphere-packing sets as DPLloyd-Impr).
    rounding : {"round", "floor", "ceil"}, default "round"
        How ``m = M^(1/d)`` becomes an integer (at least 1).
    max_cells : int, default 1,000,000
        Public cap on the number of cells ``m^d`` (memory): ``m`` is the largest integer within the cap when the
        formula asks for more.
    max_iter : int, default 30
        Cap on Lloyd's iterations on the synopsis: with negative noisy counts Lloyd need not converge.
    tol : float, default 1e-4
        A run stops when no centroid moves by more than ``tol * r``.
    screen_cells : int or None, default 2048
        When the synopsis has more cells than this, the ``n_init`` runs go on its ``screen_cells`` cells of largest
        ``|noisy count|`` only, and the winner is refined on every cell (Notes). None: every run on every cell
        (the thesis's protocol, slow when ``m^d`` is large).
    refine_iter : int, default 5
        Iterations of the screened winner on every cell of the synopsis (0: none).
    n_seedings : int, default 0
        Weighted k-means++ seedings drawn from the released synopsis and run beside the ``n_init`` runs (Notes;
        post-processing). 0: the thesis's protocol.
    r : float, default 1
        Half-width of the scaled domain (at most 10^6).
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger (budget) asked for ``epsilon`` before the data are read; the fit's entries land in it.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        In original units; ``scaled_centers_`` the same in ``[-r, r]^d``.
    ledger_ : PrivacyLedger
        The noisy N (``n_share * epsilon``, absent with ``n_public``) and the histogram (the rest): total epsilon.
    n_estimate_ : float
        The N the grid was sized with: the noisy count (a DP release), or ``n_public``.
    epsilon_synopsis_ : float
        The budget of the histogram.
    synopsis_ : GridSynopsis
        The released noisy histogram (reusable at no cost).
    grid_size_ : float
        M of the formula at ``n_estimate_`` and ``epsilon_synopsis_``; ``cells_per_dim_`` m; ``n_cells_`` m^d.
    n_iter_ : int
        Lloyd iterations of the selected run; ``init_scores_`` synopsis-NICV of every run (its cost on the cells
        the runs used, over the noisy total of the synopsis; the last entry is the seeded search's winner when
        ``n_seedings > 0``); ``init_n_iter_`` the iterations of every run
        (``== max_iter`` means it did not converge; the winner's count includes its refinement); ``best_init_``
        the selected run (the least synopsis cost).
    n_screen_cells_ : int
        The cells the runs used: ``n_cells_`` (every cell), or ``screen_cells``.
    bounds_, r_, n_features_in_
        The public box as arrays, the scaled half-width, the number of features.

    Notes
    -----
    **What differs from the thesis: the screened search.** The thesis runs weighted Lloyd from 30 initialisations
    on every cell and keeps the run of least cost on the synopsis. Its cost is ``n_init x iterations x m^d x k``:
    in high dimension ``m^d`` far exceeds N (2^16 = 65,536 cells for 20,000 Letter records), almost every cell
    is pure noise, runs with noisy weights rarely converge, and the search takes ~100 times longer than the rest
    of the fit. So above ``screen_cells`` cells the runs go on the ``screen_cells`` cells of largest
    ``|noisy count|`` and the winner is refined by ``refine_iter`` iterations on every cell. The synopsis and
    its privacy are unchanged: which cells screen is decided from the released noisy counts only
    (post-processing), never from the true counts; the threshold is symmetric (large negative counts are kept,
    so the noise of the empty cells still cancels in expectation, as the thesis asks); and the final centroids
    are Lloyd iterations on the whole synopsis. On Letter-like data (20,000 x 16, k = 16) the fit is 25-40 times
    faster and its NICV on the data is unchanged within the spread over seeds at epsilon = 1 and 0.1; grids of at
    most ``screen_cells`` cells (the 2-D and 3-D sets of the thesis at most epsilons) are searched exactly as in
    the thesis.

    **The seeded search (``n_seedings > 0``).** Sphere-packing or uniform initialisations are far from the data
    when k is large: on 10^5 points in 2-D with k = 100 the thesis's 30 runs end in local optima at 1.16 times
    the cost of non-private k-means at epsilon = 1 (a finer grid, at larger epsilon, does not help). With
    ``n_seedings`` weighted k-means++ seedings (Arthur & Vassilvitskii 2007) are drawn from the cells whose noisy
    count is at least three Laplace scales (D^2 sampling from empty cells would place centres on noise), run
    five Lloyd iterations there, and the ten of least cost go on to convergence on every cell; their winner
    replaces the init runs' winner when its cost on the whole synopsis is lower. The number of seedings is
    lowered so that seedings x cells x k x d stays within a public cap (10^8). All of it reads the released
    counts only: the privacy of the fit is the histogram's. With ``n_seedings=400`` EUGkM reaches 1.03 times the
    non-private cost on that 2-D set (median of nine seeds, ``benchmarks/results/sota.md``). The default, 0,
    is the thesis's protocol.

    ``X`` may be a dask array: the histogram is computed block by block on the workers and the noise is added
    once, to the totals, on the driver.
    """


class EUGkM(_GridKMeans):
    __doc__ = """EUGkM, Algorithm 15: k-means on a noisy grid of ``M = (N eps/theta)^(2d/(2+d))`` cells (Eq. 4.13).

    The grid size balances the noise variance (grows like M) against the coarseness bias (falls like
    ``M^(-2/d)``); ``theta = 10`` was tuned by the thesis on Synthe-PT. Privacy: epsilon-DP under add/remove
    one record, with ``bounds`` public (and N, if ``n_public`` is given).
    """ + _DOC_PARAMS.replace("""    random_state : None""", """    theta : float, default 10
        The constant of Eq. (4.13), > 0.
    random_state : None""", 1) + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(2000, 2))
    >>> est = EUGkM(3, 1.0, bounds=(-1, 1), n_init=3, random_state=0).fit(X)
    >>> est.cluster_centers_.shape, round(est.ledger_.epsilon, 12)
    ((3, 2), 1.0)
    >>> [e.name for e in est.ledger_.entries]
    ['N (noisy count)', 'EUGkM: histogram of 14^2 = 196 cells']
    """

    _method = "EUGkM"
    _parameters = dict(syn.GRID_PARAMS, n_seedings=Int(0, 10_000), theta=Real(0.0, low_open=True))

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike, theta: float = 10.0,
                 init: Literal["sphere_packing", "random"] | ArrayLike = "sphere_packing", n_init: int = 30,
                 rounding: Literal["round", "floor", "ceil"] = "round", max_cells: int = DEFAULT_MAX_CELLS,
                 max_iter: int = 30, tol: float = 1e-4, screen_cells: int | None = DEFAULT_SCREEN_CELLS,
                 refine_iter: int = DEFAULT_REFINE_ITER, n_seedings: int = DEFAULT_SEEDINGS, r: float = 1.0,
                 n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        super().__init__(n_clusters, epsilon, bounds=bounds, init=init, n_init=n_init, rounding=rounding,
                         max_cells=max_cells, max_iter=max_iter, tol=tol, screen_cells=screen_cells,
                         refine_iter=refine_iter, n_seedings=n_seedings, r=r, n_public=n_public, n_share=n_share,
                         random_state=random_state, ledger=ledger)
        self.theta = theta

    def _theta(self, p):
        return p.theta


class UGkM(_GridKMeans):
    __doc__ = """UGkM: k-means on a noisy uniform grid of ``M = N eps / 10`` cells (Eq. 4.12, UG of Qardaji et al.).

    Per dimension ``m = (N eps/10)^(1/d)``: in high d the grid is too coarse. Privacy as for :class:`EUGkM`.
    """ + _DOC_PARAMS + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(2000, 3))
    >>> est = UGkM(2, 1.0, bounds=(-1, 1), n_init=2, n_public=2000, random_state=0).fit(X)
    >>> est.cells_per_dim_, est.n_cells_, est.ledger_.epsilon
    (6, 216, 1.0)
    """

    _method = "UGkM"


class MkM(_GridKMeans):
    __doc__ = """MkM: k-means on a noisy grid of ``M = (N / sqrt(ln N))^(2d/(2+d))`` cells (Eq. 4.11, Lei).

    The grid ignores epsilon, so at small epsilon its many cells drown in noise. Privacy as for :class:`EUGkM`.
    """ + _DOC_PARAMS + """
    Examples
    --------
    >>> import numpy as np
    >>> X = np.random.default_rng(0).uniform(-1, 1, size=(2000, 2))
    >>> est = MkM(2, 0.5, bounds=(-1, 1), n_init=2, random_state=0).fit(X)
    >>> est.cluster_centers_.shape, round(est.ledger_.epsilon, 12)
    ((2, 2), 0.5)
    """

    _method = "MkM"
