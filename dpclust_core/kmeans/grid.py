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
"""
from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, Epsilon, Int, Ledger, NoneOr, Options,
                           RandomState, Real, RNGLike, Spec, BoundsSpec, check_data, check_epsilon, check_int,
                           check_ledger, check_options, check_half_width, check_real, check_rng, is_dask_array,
                           read_dask_rows, HalfWidth)
from .._validation import NPublic
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, ScaledCentroidMixin
from ..mechanisms import laplace_mechanism

__all__ = [
    "ugkm_grid_size",
    "eugkm_grid_size",
    "mkm_grid_size",
    "cells_per_dimension",
    "eugkm_variance",
    "eugkm_bias",
    "eugkm_variance_m",
    "GridSynopsis",
    "noisy_grid_synopsis",
    "weighted_lloyd",
    "UGkM",
    "EUGkM",
    "MkM",
]

ROUNDINGS = ("round", "floor", "ceil")
#: Default public cap on the number of cells ``m^d`` of a synopsis.
DEFAULT_MAX_CELLS = 1_000_000
#: Largest ``max_cells`` accepted (a dense array of noisy counts and of the cell centres must fit in memory).
MAX_CELLS = 2**27
#: Largest number of coordinates of the initial centroids (n_init x k x d) a fit may ask for.
_MAX_INIT_ELEMS = 2**26
_MAX_D = 10**6
#: Largest number of clusters (as DPLloyd: beyond it no DP k-means is meaningful).
MAX_K = 10_000
#: Default ``screen_cells``: above this many cells the n_init Lloyd runs screen on the largest cells only.
DEFAULT_SCREEN_CELLS = 2048
#: Default ``refine_iter``: iterations of the screened winner on every cell of the synopsis.
DEFAULT_REFINE_ITER = 5


# ============================================================================ checks shared by the module
def _check_n(n, name="n") -> float:
    """A count N: a finite real number >= 1 (floats accepted: a published estimate need not be an integer)."""
    return check_real(n, name, low=1.0)


def _check_d(d, name="d") -> int:
    return check_int(d, name, 1, _MAX_D)


def _check_r(r, name="r") -> float:
    return check_half_width(r, name)


def _pow(x, y) -> float:
    """``x ** y`` for x >= 0 as a float, ``inf`` on overflow (Python's ``**`` raises OverflowError instead)."""
    with np.errstate(over="ignore"):
        return float(np.power(np.float64(x), np.float64(y)))


def _exp(x) -> float:
    return math.inf if x > 709.0 else math.exp(x)


# ============================================================================ grid sizes (public formulas)
def _log_m_ugkm(n, epsilon, d, theta=None):
    return math.log(n) + math.log(epsilon) - math.log(10.0)


def _log_m_eugkm(n, epsilon, d, theta=10.0):
    return (2.0 * d / (2.0 + d)) * (math.log(n) + math.log(epsilon) - math.log(theta))


def _log_m_mkm(n, epsilon, d, theta=None):
    ln = math.log(max(n, math.e))  # N <= e (only a noisy N can be that small): ln ln N taken as 0
    return (2.0 * d / (2.0 + d)) * (ln - 0.5 * math.log(ln))


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
    return _check_n(n) * check_epsilon(epsilon) / 10.0  # inf on overflow (float multiplication)


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
    n, eps, d = _check_n(n), check_epsilon(epsilon), _check_d(d)
    theta = check_real(theta, "theta", low=0.0, low_open=True)
    with np.errstate(over="ignore"):
        base = np.float64(n) * eps / theta
    return _pow(base, 2.0 * d / (2.0 + d))


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
    n = _check_n(n)
    d = _check_d(d)
    if n <= 1.0:
        raise ValueError("n must be > 1 for MkM (ln N = 0 in Eq. 4.11)")
    return _pow(n / math.sqrt(math.log(n)), 2.0 * d / (2.0 + d))


def _round_root(root: float, rounding: str) -> float:
    root_r = round(root, 9) if root < 1e6 else root  # guard 2.9999999 -> 3 before floor/ceil
    return {"round": np.round(root), "floor": math.floor(root_r), "ceil": math.ceil(root_r)}[rounding]


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
    M = check_real(M, "M", low=0.0, low_open=True)
    d = _check_d(d)
    rounding = check_options(rounding, "rounding", ROUNDINGS)
    return max(1, int(_round_root(M ** (1.0 / d), rounding)))


def _too_many_cells(m: int, d: int, cap: int = MAX_CELLS) -> bool:
    """``m^d > cap``, without building a huge integer."""
    if m == 1:
        return False
    if d * math.log(m) > math.log(cap) + 1e-6:
        return True
    return m ** d > cap


def _max_m(d: int, max_cells: int) -> int:
    """The largest integer m with ``m^d <= max_cells`` (computed directly, corrected by exact integer powers)."""
    if 2 ** min(d, 64) > max_cells:
        return 1
    m = max(1, int(max_cells ** (1.0 / d)))
    while m > 1 and m ** d > max_cells:
        m -= 1
    while (m + 1) ** d <= max_cells:
        m += 1
    return m


def _cells_from_log(log_M: float, d: int, rounding: str, max_cells: int) -> int:
    """Cells per dimension for ``M = exp(log_M)``: rounded, at least 1, at most the public cap (no loop over m)."""
    cap = _max_m(d, max_cells)
    log_root = log_M / d
    if log_root >= math.log(cap + 1.0):
        return cap
    return int(min(cap, max(1, _round_root(math.exp(log_root), rounding))))


# ============================================================================ EUGkM error model
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
    M = check_real(M, "M", low=0.0, low_open=True)
    n, eps = _check_n(n), check_epsilon(epsilon)
    d, k, r = _check_d(d), check_int(k, "k", 1, MAX_ALLOCATION), _check_r(r)
    with np.errstate(over="ignore", under="ignore"):
        return float(np.float64(2.0 * d * r * r) * M * _pow(k, (d - 2.0) / d)
                     / (3.0 * np.float64(n) ** 2 * np.float64(eps) ** 2))


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
    n, eps = _check_n(n), check_epsilon(epsilon)
    d, k, r = _check_d(d), check_int(k, "k", 1, MAX_ALLOCATION), _check_r(r)
    theta = check_real(theta, "theta", low=0.0, low_open=True)
    log_den = (math.log(3.0) + (2.0 * d / (2.0 + d)) * math.log(theta)
               + (4.0 / (2.0 + d)) * (math.log(n) + math.log(eps)))
    log_num = math.log(2.0 * d) + 2.0 * math.log(r) + ((d - 2.0) / d) * math.log(k)
    return _exp(log_num - log_den)


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
    n, eps, d, r = _check_n(n), check_epsilon(epsilon), _check_d(d), _check_r(r)
    theta = check_real(theta, "theta", low=0.0, low_open=True)
    return _exp(math.log(d) + 2.0 * math.log(r) - (4.0 / (2.0 + d)) * (math.log(n) + math.log(eps)
                                                                         - math.log(theta)))


# ============================================================================ the synopsis
class GridSynopsis:
    """A released noisy histogram on an ``m^d`` grid over ``[-r, r]^d``. Everything in it is public.

    Parameters
    ----------
    counts : array of shape (m^d,)
        Noisy counts in C order of the cell multi-index (negative values kept).
    m : int
        Cells per dimension.
    d : int
        Dimension.
    r : float
        Half-width of the domain.
    epsilon : float
        The budget the histogram cost (for the record).

    Examples
    --------
    >>> syn = GridSynopsis([3.0, -1.0, 0.5, 7.5], m=2, d=2, r=1.0, epsilon=1.0)
    >>> syn.cell_centres().tolist()
    [[-0.5, -0.5], [-0.5, 0.5], [0.5, -0.5], [0.5, 0.5]]
    >>> syn.total()
    10.0
    """

    def __init__(self, counts: ArrayLike, m: int, d: int, r: float, epsilon: float) -> None:
        self.m = check_int(m, "m", 1, MAX_CELLS)
        self.d = _check_d(d)
        self.r = _check_r(r)
        self.epsilon = check_epsilon(epsilon)
        if _too_many_cells(self.m, self.d):
            raise ValueError(f"m^d = {self.m}^{self.d} cells exceeds the cap of {MAX_CELLS} cells")
        self.counts = check_data(counts, "counts", ndim=1)
        if self.counts.shape[0] != self.m ** self.d:
            raise ValueError(f"counts has {self.counts.shape[0]} entries, expected m^d = {self.m ** self.d}")
        self._centres = None

    @classmethod
    def _trusted(cls, counts, m, d, r, epsilon):
        syn = cls.__new__(cls)
        syn.counts, syn.m, syn.d, syn.r, syn.epsilon = counts, int(m), int(d), float(r), float(epsilon)
        syn._centres = None
        return syn

    @property
    def n_cells(self) -> int:
        """``m^d``."""
        return self.m ** self.d

    def cell_centres(self) -> np.ndarray:
        """Cell centres ``-r + (i + 1/2) 2r/m`` of every cell, shape (m^d, d), in the order of ``counts``."""
        if self._centres is None:
            axis = -self.r + (np.arange(self.m) + 0.5) * (2.0 * self.r / self.m)
            strides = np.int64(self.m) ** np.arange(self.d - 1, -1, -1, dtype=np.int64)
            idx = (np.arange(self.n_cells, dtype=np.int64)[:, None] // strides[None, :]) % self.m  # C order
            self._centres = axis[idx]
        return self._centres

    def total(self) -> float:
        """The noisy total ``sum n~`` (a free, post-processed estimate of N)."""
        return float(self.counts.sum())

    def _check_centroids(self, centroids, name):
        C = np.asarray(centroids) if not isinstance(centroids, (str, bytes)) else centroids
        if isinstance(C, np.ndarray) and C.ndim == 3:
            flat = check_data(C.reshape(-1, C.shape[-1]) if C.size else C.reshape(0, self.d), name,
                              n_features=self.d)
            return flat.reshape(C.shape), False
        return check_data(C, name, n_features=self.d)[None], True

    def _costs(self, C):
        """Synopsis cost ``sum_c n~_c min_j ||c - o_j||^2`` of every run of C (B, k, d) (trusting)."""
        return _kernels.wcss_batch(self.cell_centres(), C, self.counts)

    def nicv(self, centroids: ArrayLike) -> float | np.ndarray:
        """NICV relative to the synopsis: ``sum_c n~_c min_j ||c - o_j||^2 / sum_c n~_c``.

        Parameters
        ----------
        centroids : array (k, d) or (B, k, d)

        Returns
        -------
        float, or array of B floats
        """
        C, single = self._check_centroids(centroids, "centroids")
        val = self._costs(C) / self.total()
        return float(val[0]) if single else val

    def lloyd(self, init: ArrayLike, max_iter: int = 30,
              tol: float = 1e-4) -> tuple[np.ndarray, int] | tuple[np.ndarray, np.ndarray]:
        """Weighted Lloyd on the cell centres from ``init`` ((k, d) or (B, k, d)); see :func:`weighted_lloyd`.

        Returns
        -------
        (centroids, n_iter)
            Same shape as ``init``; an int, or an array of B ints.
        """
        C, single = self._check_centroids(init, "init")
        max_iter = check_int(max_iter, "max_iter", 1, 10**6)
        tol = check_real(tol, "tol", low=0.0)
        cents, iters = _lloyd_runs(self.cell_centres(), self.counts, C, self.r, max_iter, tol)
        return (cents[0], int(iters[0])) if single else (cents, iters)


def _lloyd_runs(P, w, C0, r, max_iter, tol):
    """Weighted Lloyd (the shared batched kernel) from every init of C0 (B, k, d) at once: clipped to [-r, r], a
    cluster of noisy weight <= 0 keeps its centroid, a run stops when no centroid moves by more than ``tol * r``."""
    return _kernels.lloyd_batch(P, C0, weights=w, max_iter=max_iter, tol=tol * r, min_weight=0.0, clip=(-r, r))


def _screen_set(counts, screen_cells):
    """Indices (in cell order) of the ``screen_cells`` cells of largest ``|noisy count|``: a function of the
    released counts only (post-processing). Ties are broken by ``argpartition``'s deterministic order."""
    n = counts.shape[0]
    idx = np.argpartition(np.abs(counts), n - screen_cells)[n - screen_cells:]
    idx.sort()
    return idx


def _synopsis_search(syn, inits, r, max_iter, tol, screen_cells, refine_iter):
    """Weighted Lloyd on the synopsis from every init, and the run of least synopsis cost (trusting).

    With at most ``screen_cells`` cells (or ``screen_cells=None``) this is the thesis's protocol: every run on
    every cell, the least cost on the synopsis wins. With more cells the runs go on the ``screen_cells`` cells of
    largest ``|noisy count|`` (all of them, to the end), the least cost **there** wins, and the winner is refined
    by ``refine_iter`` iterations on every cell of the synopsis. Returns ``(centers (B, k, d), n_iter (B,),
    costs (B,), best, n_screen)``: the costs are on the cells the runs used, ``n_screen`` how many cells that was.
    """
    P, w = syn.cell_centres(), syn.counts
    if screen_cells is None or syn.n_cells <= screen_cells:
        cents, iters = _lloyd_runs(P, w, inits, r, max_iter, tol)
        costs = _kernels.wcss_batch(P, cents, w)
        return cents, iters, costs, int(np.argmin(costs)), syn.n_cells
    S = _screen_set(w, screen_cells)
    cents, iters = _lloyd_runs(P[S], w[S], inits, r, max_iter, tol)
    costs = _kernels.wcss_batch(P[S], cents, w[S])
    best = int(np.argmin(costs))
    if refine_iter > 0:
        ref, it = _lloyd_runs(P, w, cents[best:best + 1], r, refine_iter, tol)
        cents[best] = ref[0]
        iters[best] += it[0]
    return cents, iters, costs, best, int(S.size)


def weighted_lloyd(points: ArrayLike, weights: ArrayLike, init: ArrayLike, r: float = 1.0, max_iter: int = 30,
                   tol: float = 1e-4) -> tuple[np.ndarray, int] | tuple[np.ndarray, np.ndarray]:
    """Lloyd's algorithm on weighted points (SYNOPSISLLOYD, Algorithm 15 lines 12–21), from one or several inits.

    Every point is assigned to its nearest centroid (ties to the lowest index) before any centroid moves; a
    centroid becomes the weighted mean of its points, clipped to ``[-r, r]^d`` (line 18). Weights may be negative
    (noisy counts are kept as they are): a cluster whose total weight is ``<= 0`` keeps its previous centroid.
    With negative weights Lloyd need not converge, hence the cap ``max_iter`` (the thesis's "until no more
    changes" gives none).

    Parameters
    ----------
    points : array (M, d)
    weights : array (M,)
    init : array (k, d) or (B, k, d)
        Initial centroids (one run per (k, d) slice).
    r : float, default 1
        Centroids are clipped to ``[-r, r]^d``.
    max_iter : int, default 30
    tol : float, default 1e-4
        A run stops when no centroid moves by more than ``tol * r`` (Euclidean).

    Returns
    -------
    (centroids, n_iter)
        Same shape as ``init``; an int, or an array of B ints.

    Examples
    --------
    >>> C, it = weighted_lloyd([[-0.5], [0.5], [0.6]], [2.0, 1.0, 1.0], [[-0.1], [0.1]])
    >>> C.round(3).tolist()
    [[-0.5], [0.55]]
    """
    P = check_data(points, "points")
    w = check_data(weights, "weights", ndim=1)
    if w.shape[0] != P.shape[0]:
        raise ValueError(f"weights has {w.shape[0]} entries, points has {P.shape[0]} rows")
    r = _check_r(r)
    max_iter = check_int(max_iter, "max_iter", 1, 10**6)
    tol = check_real(tol, "tol", low=0.0)
    A = np.asarray(init) if not isinstance(init, (str, bytes)) else init
    if isinstance(A, np.ndarray) and A.ndim == 3:
        C = check_data(A.reshape(-1, A.shape[-1]), "init", n_features=P.shape[1],
                       features_of="points").reshape(A.shape)
        return _lloyd_runs(P, w, C, r, max_iter, tol)
    C = check_data(A, "init", n_features=P.shape[1], features_of="points")
    cents, iters = _lloyd_runs(P, w, C[None], r, max_iter, tol)
    return cents[0], int(iters[0])


def _cell_index(Z, m, r):
    """C-order flat cell index of every row of Z in an m^d grid over [-r, r]^d (rows outside go to edge cells)."""
    d = Z.shape[1]
    flat = np.zeros(Z.shape[0], dtype=np.int64)
    scale = m / (2.0 * r)
    for i in range(d):  # a loop over dimensions, each a vectorised pass over the points
        idx = np.floor((Z[:, i] + r) * scale).astype(np.int64)
        np.clip(idx, 0, m - 1, out=idx)
        flat *= m
        flat += idx
    return flat


def _histogram(Z, m, r):
    """Exact counts of the m^d cells. A dask array is reduced on the workers (one partial histogram per block
    of rows, summed); only the m^d totals reach the driver."""
    n_cells = m ** Z.shape[1]
    if not is_dask_array(Z):
        return np.bincount(_cell_index(Z, m, r), minlength=n_cells).astype(float)
    Z = Z.rechunk({1: -1})
    parts = Z.map_blocks(lambda b: np.bincount(_cell_index(b, m, r), minlength=n_cells).astype(float)[None, :],
                         dtype=float, chunks=((1,) * Z.numblocks[0], (n_cells,)))
    return np.asarray(parts.sum(axis=0).compute(), dtype=float)


def _noisy_histogram(Z, m, epsilon, r, rng, ledger, name):
    """The synopsis (trusting): exact counts of the m^d cells, then ONE Laplace release of the whole vector."""
    d = Z.shape[1]
    hist = _histogram(Z, m, r)
    noisy = laplace_mechanism(hist, 1.0, epsilon, rng, l0_sensitivity=1, ledger=ledger,
                              name=f"{name}: histogram of {m}^{d} = {m ** d} cells")
    return GridSynopsis._trusted(np.atleast_1d(noisy), m, d, r, epsilon)


def noisy_grid_synopsis(Z: ArrayLike, m: int, epsilon: float, r: float = 1.0, rng: RNGLike = None, *,
                        ledger: PrivacyLedger | None = None, name: str = "grid synopsis") -> GridSynopsis:
    """Noisy histogram of ``Z`` (points in ``[-r, r]^d``) on an ``m^d`` grid, Algorithm 15 lines 7–11.

    **Every** one of the ``m^d`` cells gets Laplace noise of scale ``1/epsilon``, empty ones included. One record
    changes one count by one, so the count vector has L1 sensitivity 1 and is released by **one** call of
    :func:`~dpclust_core.mechanisms.laplace_mechanism` (``l0_sensitivity=1``), which costs ``epsilon`` whatever
    the number of cells. A point exactly at ``+r`` goes to the last cell; points outside ``[-r, r]`` go to the
    edge cells (scale your data into the domain first, e.g. with :func:`~dpclust_core.preprocessing.scale_to_domain`).

    Parameters
    ----------
    Z : array (N, d)
        The points, already in ``[-r, r]^d``.
    m : int
        Cells per dimension (``m^d`` at most ``MAX_CELLS``).
    epsilon : float
        The histogram's budget.
    r : float, default 1
    rng : None, int or Generator
    ledger : PrivacyLedger, optional
        Where the release is recorded (one entry).
    name : str
        Prefix of the ledger entry.

    Returns
    -------
    GridSynopsis

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> syn = noisy_grid_synopsis(np.zeros((100, 2)), 4, 1.0, rng=0, ledger=led)
    >>> syn.counts.shape, led.epsilon, len(led)
    ((16,), 1.0, 1)
    """
    Z = check_data(Z, "Z")
    d = Z.shape[1]
    m = check_int(m, "m", 1, MAX_CELLS)
    if _too_many_cells(m, d):
        raise ValueError(f"m^d = {m}^{d} cells exceeds the cap of {MAX_CELLS} cells")
    eps = check_epsilon(epsilon)
    r = _check_r(r)
    rng = check_rng(rng, "rng")
    check_ledger(ledger)
    return _noisy_histogram(Z, m, eps, r, rng, ledger, str(name))


# ============================================================================ initial centroids
class _InitSpec(Spec):
    """"sphere_packing", "random" or an array of initial centroids (checked against the data in fit)."""

    def __call__(self, value, name):
        if isinstance(value, str):
            return check_options(value, name, ("sphere_packing", "random"))
        if value is None or isinstance(value, (bool, bytes, int, float)):
            raise BadTypeError(f"{name} must be 'sphere_packing', 'random' or an array of initial centroids, "
                               f"got {value!r}")
        return value


def _sphere_packing(k, d, r, rng):
    from .lloyd import sphere_packing_centroids  # data-independent, Algorithm 12

    try:
        return np.asarray(sphere_packing_centroids(k, d, r=r, rng=rng), dtype=float)
    except TypeError:  # a signature with random_state= instead of rng=
        return np.asarray(sphere_packing_centroids(k, d, r=r, random_state=rng), dtype=float)


def _initial_centroids(init, n_init, k, d, r, low, high, rng):
    """(B, k, d) initial centroids in the scaled domain: sphere packing (Alg. 12), uniform, or given (public)."""
    if isinstance(init, str):
        if n_init * k * d > _MAX_INIT_ELEMS:
            raise ValueError(f"n_clusters={k} x n_init={n_init} x {d} features is too large "
                             f"(at most {_MAX_INIT_ELEMS} initial coordinates)")
        if init == "sphere_packing":
            return np.stack([_sphere_packing(k, d, r, rng) for _ in range(n_init)])
        return r * (2.0 * rng.random((n_init, k, d)) - 1.0)  # uniform in the domain
    A = np.asarray(init)
    if A.ndim == 3:
        if A.shape[1:] != (k, d):
            raise ValueError(f"init must have shape (n_init, n_clusters={k}, {d}), got {A.shape}")
        A = check_data(A.reshape(-1, d), "init", n_features=d).reshape(-1, k, d)
    else:
        A = check_data(A, "init", n_features=d)
        if A.shape[0] != k:
            raise ValueError(f"init must have n_clusters={k} rows, got {A.shape[0]}")
        A = A[None]
    return _kernels.scale_into(A.reshape(-1, d), low, high, r).reshape(A.shape)


def _check_k_size(k, d):
    if k * d > _MAX_INIT_ELEMS:
        raise ValueError(f"n_clusters={k} is too large for {d} features (k x d at most {_MAX_INIT_ELEMS})")


# ============================================================================ the fit on scaled data
_LOG_M = {"UGkM": _log_m_ugkm, "EUGkM": _log_m_eugkm, "MkM": _log_m_mkm}


def _fit_synopsis(Z, inits, epsilon, n_est, *, method, theta, rounding, max_cells, r, max_iter, tol, rng, ledger,
                  name, screen_cells=DEFAULT_SCREEN_CELLS, refine_iter=DEFAULT_REFINE_ITER):
    """The whole grid method on data already scaled into [-r, r]^d (trusting): grid size from the (noisy or
    published) N, the histogram with ``epsilon``, weighted Lloyd from every init, the cheapest run on the synopsis
    (screened on the largest cells when the grid has more than ``screen_cells`` cells: :func:`_synopsis_search`).

    The entry point shared by UGkM, EUGkM, MkM, the hybrid and choose_k.
    """
    d = Z.shape[1]
    log_M = _LOG_M[method](max(float(n_est), 1.0), epsilon, d, theta)
    m = _cells_from_log(log_M, d, rounding, max_cells)
    syn = _noisy_histogram(Z, m, epsilon, r, rng, ledger, name)
    out = SimpleNamespace(synopsis=syn, m=m, grid_size=_exp(log_M), n_cells=m ** d)
    if inits is not None:
        # the run of least synopsis COST: the noisy total can be <= 0, and dividing by it would reverse the order
        cents, iters, costs, best, n_screen = _synopsis_search(syn, inits, r, max_iter, tol, screen_cells,
                                                               refine_iter)
        out.centers, out.iters, out.best, out.n_screen = cents, iters, best, n_screen
        out.scores = costs / syn.total()
    return out


# ============================================================================ estimators
_COMMON_PARAMS = dict(
    n_clusters=Int(1, MAX_K),
    epsilon=Epsilon(),
    bounds=BoundsSpec(),
    init=_InitSpec(),
    n_init=Int(1, 10_000),
    rounding=Options(*ROUNDINGS),
    max_cells=Int(1, MAX_CELLS),
    max_iter=Int(1, 10**6),
    tol=Real(0.0),
    r=HalfWidth(),
    n_public=NPublic(),
    n_share=Real(0.0, 0.5, low_open=True),
    random_state=RandomState(),
    ledger=Ledger(),
)


#: The parameters of UGkM, EUGkM and MkM: the shared ones and the screened search.
_GRID_PARAMS = dict(_COMMON_PARAMS, screen_cells=NoneOr(Int(1, MAX_CELLS)), refine_iter=Int(0, 10**6))


class _GridKMeans(ScaledCentroidMixin, DPEstimator):
    """Shared machinery of UGkM, EUGkM and MkM; subclasses set ``_method``."""

    _method = "EUGkM"
    _parameters = _GRID_PARAMS
    _accepts_dask = True  # the histogram is a reduction over the rows: computed on the workers

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike,
                 init: Literal["sphere_packing", "random"] | ArrayLike = "sphere_packing", n_init: int = 30,
                 rounding: Literal["round", "floor", "ceil"] = "round", max_cells: int = DEFAULT_MAX_CELLS,
                 max_iter: int = 30, tol: float = 1e-4, screen_cells: int | None = DEFAULT_SCREEN_CELLS,
                 refine_iter: int = DEFAULT_REFINE_ITER, r: float = 1.0, n_public: float | None = None,
                 n_share: float = 0.05, random_state: RNGLike = None, ledger: PrivacyLedger | None = None) -> None:
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
        _check_k_size(k, d)
        inits = _initial_centroids(p.init, p.n_init, k, d, p.r, low, high, rng)
        X = read_dask_rows(X)  # dask: NaN/inf found, and the number of rows known, before any release
        Z = _kernels.scale_into(X, low, high, p.r)
        n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
        eps_hist = p.epsilon - eps_n
        res = _fit_synopsis(Z, inits, eps_hist, n_est, method=self._method, theta=self._theta(p),
                            rounding=p.rounding, max_cells=p.max_cells, r=p.r, max_iter=p.max_iter, tol=p.tol,
                            rng=rng, ledger=ledger, name=self._method, screen_cells=p.screen_cells,
                            refine_iter=p.refine_iter)
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
        the runs used, over the noisy total of the synopsis); ``init_n_iter_`` the iterations of every run
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
    faster and its NICV on the data is unchanged within the spread over seeds at epsilon = 1 and 0.1
    (``benchmarks/results/fit_speed.md``); grids of at most ``screen_cells`` cells (the 2-D and 3-D sets of the
    thesis at most epsilons) are searched exactly as in the thesis.

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
    _parameters = dict(_GRID_PARAMS, theta=Real(0.0, low_open=True))

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike, theta: float = 10.0,
                 init: Literal["sphere_packing", "random"] | ArrayLike = "sphere_packing", n_init: int = 30,
                 rounding: Literal["round", "floor", "ceil"] = "round", max_cells: int = DEFAULT_MAX_CELLS,
                 max_iter: int = 30, tol: float = 1e-4, screen_cells: int | None = DEFAULT_SCREEN_CELLS,
                 refine_iter: int = DEFAULT_REFINE_ITER, r: float = 1.0, n_public: float | None = None,
                 n_share: float = 0.05, random_state: RNGLike = None, ledger: PrivacyLedger | None = None) -> None:
        super().__init__(n_clusters, epsilon, bounds=bounds, init=init, n_init=n_init, rounding=rounding,
                         max_cells=max_cells, max_iter=max_iter, tol=tol, screen_cells=screen_cells,
                         refine_iter=refine_iter, r=r, n_public=n_public, n_share=n_share,
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
