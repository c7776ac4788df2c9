"""The grid-synopsis engine shared by UGkM, EUGkM, MkM, the hybrid and the private choice of k.

A synopsis is **one** noisy histogram of the data on an ``m^d`` grid over ``[-r, r]^d`` (Algorithm 15 lines 7-11):
every cell count, the empty ones included, gets ``Lap(1/epsilon)`` noise in one Laplace release of L1
sensitivity 1. Everything after it (weighted Lloyd on the cell centres, the choice among runs) is
post-processing.

Public API: :class:`GridSynopsis` (a released histogram, with its weighted Lloyd and NICV) and
:func:`noisy_grid_synopsis` (make one), both also exported by :mod:`dpclust_core.kmeans`.

Internal API (names without an underscore, not exported, used by the estimator modules of this package; they
trust their input unless they are called ``check_*``):

* constants -- ``ROUNDINGS``, ``DEFAULT_MAX_CELLS``, ``MAX_CELLS``, ``MAX_INIT_ELEMS``, ``MAX_D``, ``MAX_K``,
  ``DEFAULT_SCREEN_CELLS``, ``DEFAULT_REFINE_ITER``, ``DEFAULT_SEEDINGS``, ``SEEDING_WORK``;
* checks -- ``check_n(n)`` (a count >= 1), ``check_d(d)``, ``check_k_size(k, d)``;
* grid sizes -- ``LOG_M[method](n, epsilon, d, theta)`` (the log of the number of cells ``M`` of UGkM, EUGkM or
  MkM), ``cells_from_log(log_M, d, rounding, max_cells)`` (cells per dimension, capped), ``round_root``,
  ``max_m``, ``too_many_cells``, and ``power``/``exp_or_inf`` (arithmetic that returns ``inf`` on overflow);
* the release -- ``noisy_histogram(Z, m, epsilon, r, rng, ledger, name)`` (the one Laplace release, recorded
  in ``ledger``), over ``histogram`` and ``cell_index``;
* the search -- ``lloyd_runs(P, w, C0, r, max_iter, tol)`` (weighted, clipped Lloyd from every init at once),
  ``search(syn, inits, r, max_iter, tol, screen_cells, refine_iter, n_seedings=0, rng=None)`` (the run of least
  synopsis cost, screened on the largest cells when the grid is large, beside weighted k-means++ seedings drawn
  from the synopsis), ``screen_set``, ``seeded_search``, ``kmeanspp_batch``;
* initial centroids -- ``initial_centroids(init, n_init, k, d, r, low, high, rng)`` (sphere packing, uniform or
  given, in the scaled domain), ``InitSpec`` (the ``init`` parameter's check), ``sphere_packing``;
* the whole method -- ``fit(Z, inits, epsilon, n_est, *, method, ...)`` on data scaled into ``[-r, r]^d``: grid
  size from the (noisy or published) N, the release, the search. Returns a namespace with ``synopsis``, ``m``,
  ``grid_size``, ``n_cells`` and, with ``inits``, ``centers``, ``iters``, ``best``, ``n_screen``, ``scores``;
* parameter tables -- ``COMMON_PARAMS`` (the estimators' shared parameters) and ``GRID_PARAMS`` (with the
  screened search's).
"""
from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np

from .. import _kernels
from .._validation import (ArrayLike, BadTypeError, BoundsSpec, Data, Epsilon, HalfWidth, Int, Ledger, NoneOr,
                           NPublic, Options, RandomState, Real, Rng, RNGLike, Spec, check_data, check_epsilon,
                           check_half_width, check_int, check_options, check_real, is_dask_array, validate_params)
from ..accounting import PrivacyLedger
from ..mechanisms import laplace_mechanism
from .lloyd import sphere_packing_centroids

__all__ = ["GridSynopsis", "noisy_grid_synopsis"]

ROUNDINGS = ("round", "floor", "ceil")
#: Default public cap on the number of cells ``m^d`` of a synopsis.
DEFAULT_MAX_CELLS = 1_000_000
#: Largest ``max_cells`` accepted (a dense array of noisy counts and of the cell centres must fit in memory).
MAX_CELLS = 2**27
#: Largest number of coordinates of the initial centroids (n_init x k x d) a fit may ask for.
MAX_INIT_ELEMS = 2**26
MAX_D = 10**6
#: Largest number of clusters (as DPLloyd: beyond it no DP k-means is meaningful).
MAX_K = 10_000
#: Default ``screen_cells``: above this many cells the n_init Lloyd runs screen on the largest cells only.
DEFAULT_SCREEN_CELLS = 2048
#: Default ``refine_iter``: iterations of the screened winner on every cell of the synopsis.
DEFAULT_REFINE_ITER = 5
#: The seeded search (:func:`seeded_search`): default ``n_seedings``, the public cap on its work, the support
#: threshold in Laplace scales, the iterations of every seeding on the support and the number of finalists.
DEFAULT_SEEDINGS, SEEDING_WORK, SUPPORT_SCALES, SEEDED_ITER, SEEDED_FINALISTS = 0, 1e8, 3.0, 5, 10


# ============================================================================ checks and safe arithmetic
def check_n(n, name="n") -> float:
    """A count N: a finite real number >= 1 (floats accepted: a published estimate need not be an integer)."""
    return check_real(n, name, low=1.0)


def check_d(d, name="d") -> int:
    """A dimension d: an int in 1..MAX_D."""
    return check_int(d, name, 1, MAX_D)


def power(x, y) -> float:
    """``x ** y`` for x >= 0 as a float, ``inf`` on overflow (Python's ``**`` raises OverflowError instead)."""
    with np.errstate(over="ignore"):
        return float(np.power(np.float64(x), np.float64(y)))


def exp_or_inf(x) -> float:
    """``exp(x)``, ``inf`` instead of an OverflowError."""
    return math.inf if x > 709.0 else math.exp(x)


def log_m_ugkm(n, epsilon, d, theta=None):
    return math.log(n) + math.log(epsilon) - math.log(10.0)


def log_m_eugkm(n, epsilon, d, theta=10.0):
    return (2.0 * d / (2.0 + d)) * (math.log(n) + math.log(epsilon) - math.log(theta))


def log_m_mkm(n, epsilon, d, theta=None):
    ln = math.log(max(n, math.e))  # N <= e (only a noisy N can be that small): ln ln N taken as 0
    return (2.0 * d / (2.0 + d)) * (ln - 0.5 * math.log(ln))


def round_root(root: float, rounding: str) -> float:
    root_r = round(root, 9) if root < 1e6 else root  # guard 2.9999999 -> 3 before floor/ceil
    return {"round": np.round(root), "floor": math.floor(root_r), "ceil": math.ceil(root_r)}[rounding]


def too_many_cells(m: int, d: int, cap: int = MAX_CELLS) -> bool:
    """``m^d > cap``, without building a huge integer."""
    if m == 1:
        return False
    if d * math.log(m) > math.log(cap) + 1e-6:
        return True
    return m ** d > cap


def max_m(d: int, max_cells: int) -> int:
    """The largest integer m with ``m^d <= max_cells`` (computed directly, corrected by exact integer powers)."""
    if 2 ** min(d, 64) > max_cells:
        return 1
    m = max(1, int(max_cells ** (1.0 / d)))
    while m > 1 and m ** d > max_cells:
        m -= 1
    while (m + 1) ** d <= max_cells:
        m += 1
    return m


def cells_from_log(log_M: float, d: int, rounding: str, max_cells: int) -> int:
    """Cells per dimension for ``M = exp(log_M)``: rounded, at least 1, at most the public cap (no loop over m)."""
    cap = max_m(d, max_cells)
    log_root = log_M / d
    if log_root >= math.log(cap + 1.0):
        return cap
    return int(min(cap, max(1, round_root(math.exp(log_root), rounding))))


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
        self.d = check_d(d)
        self.r = check_half_width(r)
        self.epsilon = check_epsilon(epsilon)
        if too_many_cells(self.m, self.d):
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
        """Weighted Lloyd on the cell centres from ``init`` ((k, d) or (B, k, d)).

        Every cell centre is assigned to its nearest centroid (ties to the lowest index) before any centroid
        moves; a centroid becomes the mean of its cells weighted by their noisy counts, clipped to ``[-r, r]^d``
        (Algorithm 15 lines 12-21). Negative counts are kept: a cluster whose total weight is ``<= 0`` keeps its
        previous centroid. With negative weights Lloyd need not converge, hence the cap ``max_iter``; a run stops
        when no centroid moves by more than ``tol * r``.

        Returns
        -------
        (centroids, n_iter)
            Same shape as ``init``; an int, or an array of B ints.
        """
        C, single = self._check_centroids(init, "init")
        max_iter = check_int(max_iter, "max_iter", 1, 10**6)
        tol = check_real(tol, "tol", low=0.0)
        cents, iters = lloyd_runs(self.cell_centres(), self.counts, C, self.r, max_iter, tol)
        return (cents[0], int(iters[0])) if single else (cents, iters)


def lloyd_runs(P, w, C0, r, max_iter, tol):
    """Weighted Lloyd (the shared batched kernel) from every init of C0 (B, k, d) at once: clipped to [-r, r], a
    cluster of noisy weight <= 0 keeps its centroid, a run stops when no centroid moves by more than ``tol * r``."""
    return _kernels.lloyd_batch(P, C0, weights=w, max_iter=max_iter, tol=tol * r, min_weight=0.0, clip=(-r, r))


def screen_set(counts, screen_cells):
    """Indices (in cell order) of the ``screen_cells`` cells of largest ``|noisy count|``: a function of the
    released counts only (post-processing). Ties are broken by ``argpartition``'s deterministic order."""
    n = counts.shape[0]
    idx = np.argpartition(np.abs(counts), n - screen_cells)[n - screen_cells:]
    idx.sort()
    return idx


def kmeanspp_batch(P, w, k, n_seedings, rng):
    """``n_seedings`` weighted k-means++ seedings (D^2 sampling, Arthur & Vassilvitskii 2007) of the points P
    with weights ``w >= 0`` (``w.sum() > 0``), drawn together: (n_seedings, k, d). Trusting."""
    C = np.empty((n_seedings, k, P.shape[1]))
    cw, pn = np.cumsum(w), np.einsum("ij,ij->i", P, P)
    C[:, 0] = P[np.minimum(np.searchsorted(cw, rng.random(n_seedings) * cw[-1], side="right"), P.shape[0] - 1)]
    d2 = np.full((n_seedings, P.shape[0]), np.inf)
    for c in range(k):  # a loop over the k centres, vectorised over seedings and points
        if c:
            cs = np.cumsum(d2 * w, axis=1)
            idx = np.minimum((cs < (rng.random(n_seedings) * cs[:, -1])[:, None]).sum(axis=1), P.shape[0] - 1)
            C[:, c] = P[idx]
        new = pn[None, :] - 2.0 * (C[:, c] @ P.T) + np.einsum("ij,ij->i", C[:, c], C[:, c])[:, None]
        np.minimum(d2, np.maximum(new, 0.0), out=d2)
    return C


def seeded_search(syn, k, r, max_iter, tol, n_seedings, refine_iter, rng):
    """Weighted Lloyd from k-means++ seedings drawn from the synopsis (post-processing; trusting).

    The seedings use the **support** of the synopsis, the cells whose noisy count is at least ``SUPPORT_SCALES
    / epsilon`` (the k largest if fewer; D^2 sampling from empty cells would place centres on noise), and run
    ``SEEDED_ITER`` iterations there. Their number is ``n_seedings``, lowered so that seedings x support x k x d
    stays within the public ``SEEDING_WORK``. The ``SEEDED_FINALISTS`` of least cost go on on every cell
    (negative counts included: the noise of the empty cells cancels in expectation) until they converge, or for
    ``refine_iter`` iterations and fewer finalists when that would exceed the work cap. Returns the finalist of
    least synopsis cost: ``(centres, n_iter, cost)``.
    """
    P, w = syn.cell_centres(), syn.counts
    d = P.shape[1]
    sup = np.flatnonzero(w >= SUPPORT_SCALES / syn.epsilon)
    if sup.size < k:
        sup = np.sort(np.argsort(-w, kind="stable")[:k])
    Ps, ws = P[sup], np.maximum(w[sup], 0.0)
    ws = ws if ws.sum() > 0 else np.ones(sup.size)
    S = int(max(1, min(n_seedings, SEEDING_WORK // (sup.size * k * d), MAX_INIT_ELEMS // (4 * sup.size * d))))
    cents, iters = lloyd_runs(Ps, ws, kmeanspp_batch(Ps, ws, k, S, rng), r, min(SEEDED_ITER, max_iter), tol)
    n_fin = int(min(SEEDED_FINALISTS, max(1, SEEDING_WORK // (syn.n_cells * k * d))))
    top = np.argsort(_kernels.wcss_batch(Ps, cents, ws), kind="stable")[:n_fin]
    long = n_fin == SEEDED_FINALISTS
    fin, it2 = lloyd_runs(P, w, cents[top], r, max_iter if long else max(refine_iter, 1), tol)
    costs = _kernels.wcss_batch(P, fin, w)
    b = int(np.argmin(costs))
    return fin[b], int(iters[top[b]] + it2[b]), float(costs[b])


def search(syn, inits, r, max_iter, tol, screen_cells, refine_iter, n_seedings=0, rng=None):
    """Weighted Lloyd on the synopsis from every init, and the run of least synopsis cost (trusting).

    With at most ``screen_cells`` cells (or ``screen_cells=None``) this is the thesis's protocol: every run on
    every cell, the least cost on the synopsis wins. With more cells the runs go on the ``screen_cells`` cells of
    largest ``|noisy count|`` (all of them, to the end), the least cost **there** wins, and the winner is refined
    by ``refine_iter`` iterations on every cell of the synopsis. With ``n_seedings > 0`` the winner of
    :func:`seeded_search` (drawn with ``rng``) is appended as one more run, and it is selected when its cost on
    the whole synopsis is below that of the init runs' winner. Returns ``(centers (B, k, d), n_iter (B,),
    costs (B,), best, n_screen)``: the costs are on the cells the init runs used, ``n_screen`` how many cells
    that was (B is the number of inits, plus one with seedings).
    """
    P, w = syn.cell_centres(), syn.counts
    if screen_cells is None or syn.n_cells <= screen_cells:
        cents, iters = lloyd_runs(P, w, inits, r, max_iter, tol)
        costs = _kernels.wcss_batch(P, cents, w)
        best, S = int(np.argmin(costs)), None
    else:
        S = screen_set(w, screen_cells)
        cents, iters = lloyd_runs(P[S], w[S], inits, r, max_iter, tol)
        costs = _kernels.wcss_batch(P[S], cents, w[S])
        best = int(np.argmin(costs))
        if refine_iter > 0:
            ref, it = lloyd_runs(P, w, cents[best:best + 1], r, refine_iter, tol)
            cents[best] = ref[0]
            iters[best] += it[0]
    n_screen = syn.n_cells if S is None else int(S.size)
    if n_seedings > 0:
        C, it, cost = seeded_search(syn, inits.shape[1], r, max_iter, tol, n_seedings, refine_iter, rng)
        cost_init = costs[best] if S is None else float(_kernels.wcss_batch(P, cents[best:best + 1], w)[0])
        on_used = cost if S is None else float(_kernels.wcss_batch(P[S], C[None], w[S])[0])
        cents = np.concatenate([cents, C[None]])
        iters = np.append(iters, it)
        costs = np.append(costs, on_used)
        if cost < cost_init:
            best = cents.shape[0] - 1
    return cents, iters, costs, best, n_screen


def cell_index(Z, m, r):
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


def histogram(Z, m, r):
    """Exact counts of the m^d cells. A dask array is reduced on the workers (one partial histogram per block
    of rows, summed); only the m^d totals reach the driver."""
    n_cells = m ** Z.shape[1]
    if not is_dask_array(Z):
        return np.bincount(cell_index(Z, m, r), minlength=n_cells).astype(float)
    Z = Z.rechunk({1: -1})
    parts = Z.map_blocks(lambda b: np.bincount(cell_index(b, m, r), minlength=n_cells).astype(float)[None, :],
                         dtype=float, chunks=((1,) * Z.numblocks[0], (n_cells,)))
    return np.asarray(parts.sum(axis=0).compute(), dtype=float)


def noisy_histogram(Z, m, epsilon, r, rng, ledger, name):
    """The synopsis (trusting): exact counts of the m^d cells, then ONE Laplace release of the whole vector."""
    d = Z.shape[1]
    hist = histogram(Z, m, r)
    noisy = laplace_mechanism(hist, 1.0, epsilon, rng, l0_sensitivity=1, ledger=ledger,
                              name=f"{name}: histogram of {m}^{d} = {m ** d} cells")
    return GridSynopsis._trusted(np.atleast_1d(noisy), m, d, r, epsilon)


@validate_params(Z=Data(), m=Int(1, MAX_CELLS), epsilon=Epsilon(), r=HalfWidth(), rng=Rng(), ledger=Ledger())
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
    if too_many_cells(m, Z.shape[1]):
        raise ValueError(f"m^d = {m}^{Z.shape[1]} cells exceeds the cap of {MAX_CELLS} cells")
    return noisy_histogram(Z, m, epsilon, r, rng, ledger, str(name))


# ============================================================================ initial centroids
class InitSpec(Spec):
    """"sphere_packing", "random" or an array of initial centroids (checked against the data in fit)."""

    def __call__(self, value, name):
        if isinstance(value, str):
            return check_options(value, name, ("sphere_packing", "random"))
        if value is None or isinstance(value, (bool, bytes, int, float)):
            raise BadTypeError(f"{name} must be 'sphere_packing', 'random' or an array of initial centroids, "
                               f"got {value!r}")
        return value


def sphere_packing(k, d, r, rng):
    """k data-independent centroids in ``[-r, r]^d`` (Algorithm 12)."""
    return np.asarray(sphere_packing_centroids(k, d, r=r, rng=rng), dtype=float)


def initial_centroids(init, n_init, k, d, r, low, high, rng):
    """(B, k, d) initial centroids in the scaled domain: sphere packing (Alg. 12), uniform, or given (public)."""
    if isinstance(init, str):
        if n_init * k * d > MAX_INIT_ELEMS:
            raise ValueError(f"n_clusters={k} x n_init={n_init} x {d} features is too large "
                             f"(at most {MAX_INIT_ELEMS} initial coordinates)")
        if init == "sphere_packing":
            return np.stack([sphere_packing(k, d, r, rng) for _ in range(n_init)])
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


def check_k_size(k, d):
    """Refuse a k whose k x d centroids exceed the public cap on initial coordinates."""
    if k * d > MAX_INIT_ELEMS:
        raise ValueError(f"n_clusters={k} is too large for {d} features (k x d at most {MAX_INIT_ELEMS})")


# ============================================================================ the fit on scaled data
LOG_M = {"UGkM": log_m_ugkm, "EUGkM": log_m_eugkm, "MkM": log_m_mkm}


def fit(Z, inits, epsilon, n_est, *, method, theta, rounding, max_cells, r, max_iter, tol, rng, ledger,
                  name, screen_cells=DEFAULT_SCREEN_CELLS, refine_iter=DEFAULT_REFINE_ITER, n_seedings=0):
    """The whole grid method on data already scaled into [-r, r]^d (trusting): grid size from the (noisy or
    published) N, the histogram with ``epsilon``, weighted Lloyd from every init, the cheapest run on the synopsis
    (screened on the largest cells when the grid has more than ``screen_cells`` cells: :func:`search`).

    The entry point shared by UGkM, EUGkM, MkM, the hybrid and choose_k.
    """
    d = Z.shape[1]
    log_M = LOG_M[method](max(float(n_est), 1.0), epsilon, d, theta)
    m = cells_from_log(log_M, d, rounding, max_cells)
    syn = noisy_histogram(Z, m, epsilon, r, rng, ledger, name)
    out = SimpleNamespace(synopsis=syn, m=m, grid_size=exp_or_inf(log_M), n_cells=m ** d)
    if inits is not None:
        # the run of least synopsis COST: the noisy total can be <= 0, and dividing by it would reverse the order
        cents, iters, costs, best, n_screen = search(syn, inits, r, max_iter, tol, screen_cells,
                                                     refine_iter, n_seedings, rng)
        out.centers, out.iters, out.best, out.n_screen = cents, iters, best, n_screen
        out.scores = costs / syn.total()
    return out


# ============================================================================ estimators
COMMON_PARAMS = dict(
    n_clusters=Int(1, MAX_K),
    epsilon=Epsilon(),
    bounds=BoundsSpec(),
    init=InitSpec(),
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
GRID_PARAMS = dict(COMMON_PARAMS, screen_cells=NoneOr(Int(1, MAX_CELLS)), refine_iter=Int(0, 10**6))
