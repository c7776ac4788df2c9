"""Grid-synopsis k-means: UGkM, EUGkM and MkM (thesis §4.3, spec ``dp-basics-and-kmeans.md`` §3.10–§3.14).

A synopsis method spends its **whole** budget once, on a histogram: the public domain ``[-r, r]^d`` is cut
into ``m^d`` equal-width cells, and every cell count — **including the empty cells** — gets ``Lap(1/epsilon)``
noise. The cells partition the data, so by parallel composition the histogram costs ``epsilon`` (one ledger
entry with L1 sensitivity 1 under add/remove-one-record DP). Everything after that (Lloyd's algorithm on the
cell centres weighted by the noisy counts, from many initialisations, selection among them, choosing k) is
post-processing and costs nothing.

The three methods differ only in the number of cells ``M`` (spec §3.10, [L1999]):

* **UGkM** (Qardaji et al.'s UG): ``M = N epsilon / 10``, Eq. (4.12);
* **EUGkM** (the thesis's method): ``M = (N epsilon / theta)^(2d/(2+d))`` with ``theta = 10``, Eq. (4.13);
* **MkM** (Lei's M-estimator grid): ``M = (N / sqrt(ln N))^(2d/(2+d))``, Eq. (4.11) (no epsilon).

``m = M^(1/d)`` cells per dimension is rarely an integer; the rounding is a parameter (``"round"`` by default,
at least 1), and the real number of cells ``m^d`` is recorded (pitfall P8). Negative and fractional noisy
counts are **kept** (pitfall P7): a cell with centre ``c`` and noisy count ``n~`` adds ``n~`` to its cluster's
weight and ``n~ c`` to its sum. A cluster whose total noisy weight is ``<= 0`` keeps its previous centroid
(a post-processing rule of this implementation; the thesis only clips), and every centroid is clipped to
``[-r, r]^d`` (Algorithm 15 line 18).

**N is treated as public**, as the thesis does for all three grid sizes (spec §3.1, pitfall P10): the grid
size uses ``n_public`` if given, else ``len(X)`` — the thesis's (small) leak, stated here and in the chapters.
"""
from __future__ import annotations

import numpy as np

from .._validation import (check_bounds, check_data, check_epsilon, check_n_clusters, check_positive_int,
                           check_rng)
from ..accounting import PrivacyLedger
from ..data import scale_to_domain, unscale_from_domain
from ..mechanisms import laplace_mechanism
from ._base import CentroidPredictorMixin

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
#: Largest number of cells a synopsis may have (a dense array of noisy counts plus the cell centres).
DEFAULT_MAX_CELLS = 1_000_000


# --------------------------------------------------------------------------- grid sizes (public formulas)
def _check_n(n, name="n"):
    if isinstance(n, bool) or not np.isscalar(n) or not np.isfinite(float(n)) or float(n) < 1:
        raise ValueError(f"{name} must be a number >= 1, got {n!r}")
    return float(n)


def ugkm_grid_size(n, epsilon):
    """UGkM's total number of cells ``M = N epsilon / 10`` (Eq. 4.12; misprinted at [L1999]).

    Per dimension, ``m = M^(1/d)``. For d = 2 this is UG's ``m = sqrt(N epsilon / 10)`` (Eq. 2.12).
    """
    return _check_n(n) * check_epsilon(epsilon) / 10.0


def eugkm_grid_size(n, epsilon, d, theta=10.0):
    """EUGkM's total number of cells ``M = (N epsilon / theta)^(2d/(2+d))`` (Eq. 4.13, theta = 10)."""
    d = check_positive_int(d, "d")
    theta = check_epsilon(theta, "theta")
    return (_check_n(n) * check_epsilon(epsilon) / theta) ** (2.0 * d / (2.0 + d))


def mkm_grid_size(n, d):
    """MkM's total number of cells ``M = (N / sqrt(ln N))^(2d/(2+d))`` (Eq. 4.11; natural log; no epsilon)."""
    n = _check_n(n)
    d = check_positive_int(d, "d")
    if n <= 1:
        raise ValueError("n must be > 1 for MkM (ln N = 0)")
    return (n / np.sqrt(np.log(n))) ** (2.0 * d / (2.0 + d))


def cells_per_dimension(M, d, rounding="round"):
    """Integer cells per dimension ``m`` from a total ``M``: ``round``/``floor``/``ceil`` of ``M^(1/d)``, at least 1.

    The thesis leaves the rounding open (pitfall P8): e.g. Lifesci at epsilon = 0.05 has ``M = 3494``, ``m = 2.26``;
    floor and round give ``2^10 = 1024`` cells, ceil ``3^10 = 59,049``.
    """
    d = check_positive_int(d, "d")
    if rounding not in ROUNDINGS:
        raise ValueError(f"rounding must be one of {ROUNDINGS}, got {rounding!r}")
    if not (np.isfinite(M) and M > 0):
        raise ValueError(f"M must be finite and > 0, got {M!r}")
    root = float(M) ** (1.0 / d)
    root_r = np.round(root, 9)  # guard 2.9999999 -> 3 before floor/ceil
    m = {"round": np.round(root), "floor": np.floor(root_r), "ceil": np.ceil(root_r)}[rounding]
    return max(1, int(m))


# --------------------------------------------------------------------------- EUGkM error model
def eugkm_variance_m(M, n, epsilon, d, k, r=1.0):
    """Variance of EUGkM's centroids for a grid of ``M`` cells, Eq. (4.15): ``2 d M r^2 k^((d-2)/d) / (3 N^2 eps^2)``."""
    d = check_positive_int(d, "d")
    k = check_positive_int(k, "k")
    n, eps = _check_n(n), check_epsilon(epsilon)
    return 2.0 * d * M * r ** 2 * k ** ((d - 2.0) / d) / (3.0 * n ** 2 * eps ** 2)


def eugkm_variance(n, epsilon, d, k, r=1.0, theta=10.0):
    """``Var_EUGkM(eps) = 2 d r^2 k^((d-2)/d) / (3 theta^(2d/(2+d)) (N eps)^(4/(2+d)))``, Eq. (4.18).

    This is Eq. (4.15) at EUGkM's grid size ``M = (N eps/theta)^(2d/(2+d))`` (real-valued, unrounded).
    """
    d = check_positive_int(d, "d")
    k = check_positive_int(k, "k")
    n, eps = _check_n(n), check_epsilon(epsilon)
    return 2.0 * d * r ** 2 * k ** ((d - 2.0) / d) / (3.0 * theta ** (2.0 * d / (2.0 + d))
                                                       * (n * eps) ** (4.0 / (2.0 + d)))


def eugkm_bias(n, epsilon, d, r=1.0, theta=10.0):
    """The squared-bias bound ``d r^2 / (N eps/theta)^(4/(2+d))``, Eq. (4.19) (= Eq. 4.16 at EUGkM's M).

    The thesis names it "Bias"; it is the bound on the **squared** bias, ``d r^2 / M^(2/d)``.
    """
    d = check_positive_int(d, "d")
    n, eps = _check_n(n), check_epsilon(epsilon)
    return d * r ** 2 / (n * eps / theta) ** (4.0 / (2.0 + d))


# --------------------------------------------------------------------------- the synopsis
class GridSynopsis:
    """A released noisy histogram on an ``m^d`` grid over ``[-r, r]^d`` (everything here is public).

    Attributes
    ----------
    counts : ndarray (m^d,)
        Noisy counts in C order of the cell multi-index, negatives kept.
    m, d, r : the grid (``m`` cells per dimension).
    epsilon : the budget it cost.
    """

    def __init__(self, counts, m, d, r, epsilon):
        self.counts = np.asarray(counts, dtype=float)
        self.m, self.d, self.r, self.epsilon = int(m), int(d), float(r), float(epsilon)
        self._centres = None

    @property
    def n_cells(self):
        return self.m ** self.d

    def cell_centres(self):
        """Cell centres ``-r + (i + 1/2) 2r/m`` for every cell, shape (m^d, d), in the order of ``counts``."""
        if self._centres is None:
            axis = -self.r + (np.arange(self.m) + 0.5) * (2.0 * self.r / self.m)
            strides = np.int64(self.m) ** np.arange(self.d - 1, -1, -1, dtype=np.int64)
            idx = (np.arange(self.n_cells, dtype=np.int64)[:, None] // strides[None, :]) % self.m  # C order
            self._centres = axis[idx]
        return self._centres

    def total(self):
        """The noisy total count ``sum n~`` (a free, post-processed estimate of N)."""
        return float(self.counts.sum())

    def nicv(self, centroids):
        """NICV *relative to the synopsis*: ``sum_c n~_c min_j ||c - o_j||^2 / sum_c n~_c`` (spec §4.1 reading).

        ``centroids`` may be (k, d) or a batch (B, k, d); returns a float or an array of B values.
        """
        C = np.asarray(centroids, dtype=float)
        single = C.ndim == 2
        C = C[None] if single else C
        if self.d == 2 and C.shape[1] < self.m:  # the interval form pays off when k < m
            val = self._grid2d().nicv(C)
        else:
            P = self.cell_centres()
            val = np.array([_batched_sq_dist(P, C[b:b + 1])[0].min(axis=1) @ self.counts
                            for b in range(C.shape[0])])
            val = val / self.total()  # one run at a time: memory O(cells * k), not O(runs * cells * k)
        return float(val[0]) if single else val

    def _grid2d(self):
        if getattr(self, "_g2", None) is None:
            self._g2 = _Grid2D(self.counts, self.m, self.r)
        return self._g2

    def lloyd(self, init, max_iter=30, tol=1e-4):
        """Weighted Lloyd on the cell centres from ``init`` ((k, d) or (B, k, d)); see :func:`weighted_lloyd`.

        In 2-D the same iterations run on the exact Voronoi-interval form of the grid (:class:`_Grid2D`), which
        never visits every cell; the result is that of :func:`weighted_lloyd` on the cell centres (tested).
        """
        C = np.asarray(init, dtype=float)
        if self.d == 2 and C.shape[-2] < self.m:  # the interval form pays off when k < m
            single = C.ndim == 2
            cents, iters = self._grid2d().lloyd(C[None] if single else C, max_iter, tol)
            return (cents[0], int(iters[0])) if single else (cents, iters)
        return weighted_lloyd(self.cell_centres(), self.counts, init, r=self.r, max_iter=max_iter, tol=tol)


class _Grid2D:
    """Exact Lloyd statistics on a 2-D grid by Voronoi intervals: O(m k^2) per assignment instead of O(m^2 k).

    Along a grid row (first coordinate u fixed) the squared distance from cell centre (u, v) to centroid j is
    ``v^2 - 2 v c_j1 + (c_j1^2 + (u - c_j0)^2)`` — linear in v up to the common ``v^2`` — so the cells nearest to
    centroid j form ONE contiguous run of the row. Its ends follow from the k - 1 pairwise comparisons (ties go
    to the lowest index, as ``argmin`` does), and the run's weight and weighted sums from prefix sums along the
    row. The result equals the brute-force assignment of every cell (tested), without touching every cell.
    """

    def __init__(self, counts, m, r):
        W = np.asarray(counts, dtype=float).reshape(m, m)  # W[i, j]: first-coordinate bin i, second bin j
        self.m, self.r, self.h = m, float(r), 2.0 * r / m
        self.axis = -r + (np.arange(m) + 0.5) * self.h
        zero = np.zeros((m, 1))
        ax = self.axis
        self.pw = np.hstack([zero, np.cumsum(W, axis=1)])
        self.pv = np.hstack([zero, np.cumsum(W * ax[None, :], axis=1)])
        self.pq = np.hstack([zero, np.cumsum(W * (ax[:, None] ** 2 + ax[None, :] ** 2), axis=1)])
        self.total = float(W.sum())

    def stats(self, C):
        """(B, k, 4): per cluster the totals of w, w u, w v and w (u^2 + v^2) for centroids C (B, k, 2)."""
        B, k, _ = C.shape
        step = max(1, 2_000_000 // (self.m * k * k))  # bound the (runs, m, k, k) temporaries
        if B > step:
            return np.concatenate([self._stats(C[i:i + step]) for i in range(0, B, step)])
        return self._stats(C)

    def _stats(self, C):
        m, r, h, axis = self.m, self.r, self.h, self.axis
        B, k, _ = C.shape
        c0, c1 = C[:, :, 0], C[:, :, 1]
        a = c1[:, None, :] ** 2 + (axis[None, :, None] - c0[:, None, :]) ** 2  # (B, m, k)
        dc = (c1[:, None, :] - c1[:, :, None])[:, None]  # (B, 1, j, j'): c_j'1 - c_j1
        da = a[:, :, None, :] - a[:, :, :, None]  # (B, m, j, j'): a_j' - a_j
        jj = np.arange(k)
        strict = jj[None, :] < jj[:, None]  # j' < j: j must win strictly (ties go to the lower index)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = (da / (2.0 * dc) + r) / h - 0.5  # the bound on the cell index of the row
        up, dn = dc > 0, dc < 0
        hi = np.where(up, np.where(strict, np.ceil(t), np.floor(t) + 1.0), float(m))
        lo = np.where(dn, np.where(strict, np.floor(t) + 1.0, np.ceil(t)), 0.0)
        lose = ~(up | dn) & ((da < 0) | ((da == 0) & strict))  # equal c_1: the row goes to the smaller a
        hi = np.where(lose, 0.0, hi)
        eye = np.eye(k, dtype=bool)
        hi = np.clip(np.where(eye, float(m), hi).min(axis=3), 0, m).astype(np.int64)  # (B, m, k)
        lo = np.clip(np.where(eye, 0.0, lo).max(axis=3), 0, m).astype(np.int64)
        lo = np.minimum(lo, hi)
        rows = np.arange(m)[None, :, None]
        sw = self.pw[rows, hi] - self.pw[rows, lo]
        sv = self.pv[rows, hi] - self.pv[rows, lo]
        sq = self.pq[rows, hi] - self.pq[rows, lo]
        return np.stack([sw.sum(axis=1), (sw * axis[None, :, None]).sum(axis=1), sv.sum(axis=1), sq.sum(axis=1)],
                        axis=2)

    def nicv(self, C):
        st = self.stats(C)
        val = st[:, :, 3] - 2.0 * (C[:, :, 0] * st[:, :, 1] + C[:, :, 1] * st[:, :, 2]) + (C * C).sum(2) * st[:, :, 0]
        return val.sum(axis=1) / self.total

    def lloyd(self, init, max_iter, tol):
        C = np.array(init, dtype=float)
        B = C.shape[0]
        n_iter = np.zeros(B, dtype=int)
        act = np.arange(B)
        for _ in range(int(max_iter)):
            Ca = C[act]
            st = self.stats(Ca)
            cnt = st[:, :, 0]
            ok = cnt > 0
            new = np.where(ok[:, :, None], st[:, :, 1:3] / np.where(ok, cnt, 1.0)[:, :, None], Ca)
            np.clip(new, -self.r, self.r, out=new)
            moved = np.abs(new - Ca).max(axis=(1, 2)) > tol * self.r
            C[act] = new
            n_iter[act] += 1
            act = act[moved]
            if act.size == 0:
                break
        return C, n_iter


def _batched_sq_dist(P, C):
    """Squared distances between points ``P`` (M, d) and each centroid set ``C`` (B, k, d) -> (B, M, k)."""
    pn = (P * P).sum(axis=1)
    cn = (C * C).sum(axis=2)  # (B, k)
    d2 = pn[None, :, None] - 2.0 * np.einsum("md,bkd->bmk", P, C, optimize=True) + cn[:, None, :]
    return np.maximum(d2, 0.0)


def weighted_lloyd(points, weights, init, r=1.0, max_iter=30, tol=1e-4):
    """Lloyd's algorithm on weighted points (SYNOPSISLLOYD, Algorithm 15 lines 12–21), batched over inits.

    Parameters
    ----------
    points : ndarray (M, d) shared by every run, or (B, M, d) one set per run.
    weights : ndarray (M,) or (B, M); may be negative (noisy counts are kept as they are, pitfall P7).
    init : ndarray (k, d) or (B, k, d) initial centroids.
    r : float
        Centroids are clipped to ``[-r, r]^d`` after every update (Alg. 15 line 18).
    max_iter, tol : int, float
        At most ``max_iter`` iterations (with negative weights convergence is not guaranteed); a run stops
        when no centroid coordinate moves by more than ``tol * r`` (the thesis's "until no more changes";
        the tolerance is this implementation's).

    Every point is assigned to its nearest centroid (ties to the lowest index) before any centroid moves.
    A cluster with total weight ``<= 0`` keeps its previous centroid. Runs that have converged leave the
    batch, so the cost is the sum of the runs' own iteration counts.

    Returns
    -------
    centroids : ndarray, same shape as ``init``; n_iter : int or ndarray (B,) iterations each run took.
    """
    C = np.array(init, dtype=float)
    single = C.ndim == 2
    if single:
        C = C[None]
    B, k, d = C.shape
    P = np.asarray(points, dtype=float)
    W = np.asarray(weights, dtype=float)
    shared = P.ndim == 2
    if shared:
        M = P.shape[0]
        WP = np.column_stack([W, W[:, None] * P])  # (M, 1 + d): weight and weighted coordinates
        Pcols = [np.ascontiguousarray(P[:, i]) for i in range(d)]
        chunk = max(1, 250_000 // max(1, M * k))
    n_iter = np.zeros(B, dtype=int)
    act = np.arange(B)
    tiled, tiled_for = None, -1
    for _ in range(int(max_iter)):
        Ca = C[act]
        b = act.size
        if shared:
            # argmin_j ||p - c_j||^2 = argmin_j (||c_j||^2 - 2 p.c_j), in chunks of runs small enough to stay
            # in cache (the (M, runs, k) score array is the whole cost of an iteration)
            stats = np.empty((b, k, d + 1))
            for s0 in range(0, b, chunk):
                Cc = Ca[s0:s0 + chunk]
                bc = Cc.shape[0]
                Cf = Cc.reshape(bc * k, d)
                if d <= 2:  # outer products beat a BLAS call with an inner dimension of 1 or 2
                    score = np.multiply.outer(Pcols[0], -2.0 * Cf[:, 0])
                    for i in range(1, d):
                        score += np.multiply.outer(Pcols[i], -2.0 * Cf[:, i])
                else:
                    score = P @ (-2.0 * Cf.T)
                score += (Cf * Cf).sum(axis=1)
                lab = score.reshape(M, bc, k).argmin(axis=2)  # (M, bc)
                if d <= 2:  # a few bincounts over (M, bc) labels
                    lab += (np.arange(bc) * k)[None, :]
                    flat = lab.ravel()
                    if tiled_for != bc:
                        tiled = [np.repeat(WP[:, i], bc) for i in range(d + 1)]
                        tiled_for = bc
                    stats[s0:s0 + bc] = np.stack([np.bincount(flat, weights=tw, minlength=bc * k)
                                                  for tw in tiled], axis=1).reshape(bc, k, d + 1)
                else:  # one BLAS product per run: one-hot (k, M) @ (M, 1 + d)
                    ks = np.arange(k)[:, None]
                    for j in range(bc):
                        stats[s0 + j] = (lab[:, j][None, :] == ks).astype(float) @ WP
        else:
            Pa, Wa = P[act], W[act]
            d2 = ((Pa[:, :, None, :] - Ca[:, None, :, :]) ** 2).sum(axis=3)
            lab = d2.argmin(axis=2)  # (b, M)
            flat = (lab + (np.arange(b) * k)[:, None]).ravel()
            stats = np.stack([np.bincount(flat, weights=Wa.ravel(), minlength=b * k)]
                             + [np.bincount(flat, weights=(Wa * Pa[:, :, i]).ravel(), minlength=b * k)
                                for i in range(d)], axis=1).reshape(b, k, d + 1)
        cnt = stats[:, :, 0]
        ok = cnt > 0
        new = np.where(ok[:, :, None], stats[:, :, 1:] / np.where(ok, cnt, 1.0)[:, :, None], Ca)
        np.clip(new, -r, r, out=new)
        moved = np.abs(new - Ca).max(axis=(1, 2)) > tol * r
        C[act] = new
        n_iter[act] += 1
        act = act[moved]
        if act.size == 0:
            break
    return (C[0], int(n_iter[0])) if single else (C, n_iter)


def noisy_grid_synopsis(Z, m, epsilon, r=1.0, rng=None, *, ledger=None, name="grid synopsis"):
    """Noisy histogram of ``Z`` (already in ``[-r, r]^d``) on an ``m^d`` grid, Algorithm 15 lines 7–11.

    Points are binned with ``np.ravel_multi_index`` + ``np.bincount`` (a point exactly at ``+r`` goes to the
    last cell). **Every** one of the ``m^d`` cells gets ``Lap(1/epsilon)``, empty ones included; the cells are
    disjoint, so the whole vector has L1 sensitivity 1 under add/remove and costs ``epsilon`` (one ledger entry).
    Memory: the ``m^d`` counts plus an (N,) index array.
    """
    Z = check_data(Z, "Z")
    n, d = Z.shape
    m = check_positive_int(m, "m")
    eps = check_epsilon(epsilon)
    if isinstance(r, bool) or not (np.isscalar(r) and np.isfinite(r) and r > 0):
        raise ValueError(f"r must be finite and > 0, got {r!r}")
    r = float(r)
    rng = check_rng(rng)
    idx = np.floor((Z + r) * (m / (2.0 * r))).astype(np.int64)
    np.clip(idx, 0, m - 1, out=idx)
    if 1 < d <= 32:
        flat = np.ravel_multi_index(tuple(idx.T), (m,) * d)
    else:  # numpy's ravel_multi_index takes at most 32 dimensions; same C-order index by a dot product
        flat = idx @ (np.int64(m) ** np.arange(d - 1, -1, -1, dtype=np.int64))
    hist = np.bincount(flat, minlength=m ** d).astype(float)
    noisy = laplace_mechanism(hist, 1.0, eps, rng, ledger=ledger,
                              name=f"{name}: Lap(1/eps) on all {m}^{d}={m ** d} cells (disjoint, L1 sens 1)")
    return GridSynopsis(noisy, m, d, r, eps)


# --------------------------------------------------------------------------- estimators
def _initial_centroids(init, n_init, k, d, r, low, high, rng):
    """(B, k, d) initial centroids in the scaled domain: sphere packing (Alg. 12), uniform random, or given."""
    if isinstance(init, str):
        if init == "sphere_packing":
            from .lloyd import sphere_packing_centroids
            return np.stack([_sphere_packing(sphere_packing_centroids, k, d, r, rng) for _ in range(n_init)])
        if init == "random":
            return rng.uniform(-r, r, size=(n_init, k, d))
        raise ValueError(f"init must be 'sphere_packing', 'random' or an array, got {init!r}")
    A = check_data(np.asarray(init, dtype=float).reshape(-1, d) if np.ndim(init) == 3 else init, "init",
                   n_features=d)
    A = A.reshape(-1, k, d) if np.ndim(init) == 3 else A[None]
    if A.shape[1] != k:
        raise ValueError(f"init must have n_clusters={k} rows, got {A.shape[1]}")
    lo, hi = low, high
    return np.clip((A - lo) / (hi - lo) * (2 * r) - r, -r, r)


def _best_on_synopsis(syn, scores):
    """Index of the run with the lowest synopsis cost ``sum_c n~_c min_j ||c - o_j||^2`` (post-processing).

    ``scores`` are synopsis-NICVs, i.e. that cost divided by the noisy total ``sum n~``. The total is common to
    all runs, but it can be <= 0 when the noise outweighs the data (many cells, small N epsilon); dividing by a
    negative total would turn ``argmin`` into ``argmax`` and keep the *worst* run. So the selection multiplies
    the total back in and minimises the cost itself (identical to ``argmin(scores)`` whenever the total is > 0).
    """
    return int(np.argmin(np.asarray(scores, dtype=float) * syn.total()))


def _sphere_packing(fn, k, d, r, rng):
    try:
        return np.asarray(fn(k, d, r=r, rng=rng), dtype=float)
    except TypeError:  # tolerate a positional signature (k, d, r, rng)
        return np.asarray(fn(k, d, r, rng), dtype=float)


class _GridKMeans(CentroidPredictorMixin):
    """Shared machinery of UGkM, EUGkM and MkM (spec §3.10). Subclasses define :meth:`grid_size`."""

    _name = "grid"

    def __init__(self, n_clusters=8, epsilon=1.0, bounds=(-1.0, 1.0), *, init="sphere_packing", n_init=30,
                 rounding="round", max_cells=DEFAULT_MAX_CELLS, n_public=None, r=1.0, max_iter=30,
                 tol=1e-4, random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.init = init
        self.n_init = n_init
        self.rounding = rounding
        self.max_cells = max_cells
        self.n_public = n_public
        self.r = r
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    # subclasses: total number of cells M (real-valued)
    def grid_size(self, n, epsilon, d):  # pragma: no cover - abstract
        raise NotImplementedError

    def _validate(self, X):
        eps = check_epsilon(self.epsilon)
        if not (np.isscalar(self.r) and np.isfinite(self.r) and self.r > 0):
            raise ValueError(f"r must be finite and > 0, got {self.r!r}")
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"rounding must be one of {ROUNDINGS}, got {self.rounding!r}")
        n_init = check_positive_int(self.n_init, "n_init")
        check_positive_int(self.max_iter, "max_iter")
        check_positive_int(self.max_cells, "max_cells")
        X = check_data(X)
        k = check_n_clusters(self.n_clusters, X.shape[0])
        low, high = check_bounds(self.bounds, X.shape[1])
        n_pub = X.shape[0] if self.n_public is None else _check_n(self.n_public, "n_public")
        return X, eps, k, low, high, n_pub, n_init

    def _grid_m(self, n_pub, eps, d):
        M = self.grid_size(n_pub, eps, d)
        m = cells_per_dimension(M, d, self.rounding)
        while m > 1 and float(m) ** d > self.max_cells:  # public cap on memory: shrink the grid
            m -= 1
        return M, m

    def fit(self, X, y=None):
        """Build the noisy synopsis with the whole budget, then run weighted Lloyd on it (post-processing).

        ``X`` is mapped from the public ``bounds`` into ``[-r, r]^d``; points outside the bounds are **clipped**.
        Lloyd runs from ``n_init`` initialisations (sphere packing, Alg. 12, by default; they read no data), and
        the run with the lowest NICV **on the synopsis** is kept (pitfall P13) — selection is post-processing.
        """
        X, eps, k, low, high, n_pub, n_init = self._validate(X)
        rng = check_rng(self.random_state)
        d = X.shape[1]
        inits = _initial_centroids(self.init, n_init, k, d, self.r, low, high, rng)
        Z = scale_to_domain(X, (low, high), r=self.r)
        self.grid_size_, m = self._grid_m(n_pub, eps, d)
        self.cells_per_dim_ = m
        self.n_cells_ = m ** d
        self.ledger_ = PrivacyLedger(budget_epsilon=eps)
        self.synopsis_ = noisy_grid_synopsis(Z, m, eps, self.r, rng, ledger=self.ledger_, name=self._name)
        self._fit_from_synopsis(self.synopsis_, inits, low, high)
        return self

    def _fit_from_synopsis(self, syn, inits, low, high):
        cents, iters = syn.lloyd(inits, max_iter=self.max_iter, tol=self.tol)
        scores = syn.nicv(cents)
        best = _best_on_synopsis(syn, scores)
        self.init_scores_ = scores
        self.init_n_iter_ = np.asarray(iters)
        self.best_init_ = best
        self.n_iter_ = int(iters[best])
        self.scaled_centers_ = cents[best]
        self.cluster_centers_ = unscale_from_domain(cents[best], (low, high), r=self.r)
        self.bounds_ = (low, high)
        return self

    def __repr__(self):
        return f"{type(self).__name__}(n_clusters={self.n_clusters!r}, epsilon={self.epsilon!r}, bounds={self.bounds!r})"


_DOC_PARAMS = """
    Parameters
    ----------
    n_clusters : int
        k, with 1 <= k <= N.
    epsilon : float
        Total budget; all of it goes to the noisy histogram.
    bounds : pair or per-dimension bounds
        The **public** domain (``(low, high)``, ``(lows, highs)`` or shape (d, 2)); data is mapped into
        ``[-r, r]^d`` and points outside are clipped.
    init : "sphere_packing" (default), "random", or array (k, d) / (B, k, d) in ORIGINAL units
        Initial centroids for Lloyd on the synopsis; with a string, ``n_init`` sets are drawn (no data read).
    n_init : int
        Number of initialisations (the thesis uses the same 30 sphere-packing sets as DPLloyd-Impr).
    rounding : "round" | "floor" | "ceil"
        How ``m = M^(1/d)`` becomes an integer (pitfall P8; at least 1).
    max_cells : int
        Public cap on ``m^d`` (memory); ``m`` is lowered until ``m^d <= max_cells``.
    n_public : float, optional
        N used by the grid-size formula. ``None`` means ``len(X)``, which the thesis treats as public (P10).
    r : float
        Half-width of the scaled domain (the thesis uses r = 1).
    max_iter, tol : Lloyd's cap (default 30) and tolerance on the synopsis. With negative noisy counts Lloyd
        need not converge — a cluster of net negative weight freezes while the others can wander — so the
        thesis's "until no more changes" needs a cap; it gives none.
    random_state : None, int or Generator.

    Attributes
    ----------
    cluster_centers_ : (k, d) in original units; ``scaled_centers_`` in ``[-r, r]^d``.
    ledger_ : PrivacyLedger with one entry of ``epsilon`` (the histogram).
    synopsis_ : :class:`GridSynopsis`, the released noisy histogram (reusable at no cost).
    grid_size_ : the real-valued M of the formula; ``cells_per_dim_`` m; ``n_cells_`` = m^d.
    n_iter_ : Lloyd iterations of the selected run; ``init_scores_`` synopsis-NICV of every run;
        ``init_n_iter_`` iterations of every run (``== max_iter`` means it did not converge).
"""


class EUGkM(_GridKMeans):
    __doc__ = ("""EUGkM, Algorithm 15: k-means on a noisy grid of ``M = (N eps/theta)^(2d/(2+d))`` cells (Eq. 4.13).

    The grid size balances the noise variance (grows like ``M``) against the coarseness bias (shrinks like
    ``M^(-2/d)``); ``theta = 10`` was tuned by the thesis on Synthe-PT.
    """ + _DOC_PARAMS + """
    theta : float
        The constant of Eq. (4.13), default 10.
    """)

    _name = "EUGkM"

    def __init__(self, n_clusters=8, epsilon=1.0, bounds=(-1.0, 1.0), *, theta=10.0, **kwargs):
        super().__init__(n_clusters, epsilon, bounds, **kwargs)
        self.theta = theta

    def grid_size(self, n, epsilon, d):
        return eugkm_grid_size(n, epsilon, d, self.theta)


class UGkM(_GridKMeans):
    __doc__ = ("""UGkM: k-means on a noisy uniform grid of ``M = N eps / 10`` cells (Eq. 4.12, UG of Qardaji et al.).

    Per dimension ``m = (N eps/10)^(1/d)``: in high d the grid is too coarse (spec §5.2).
    """ + _DOC_PARAMS)

    _name = "UGkM"

    def grid_size(self, n, epsilon, d):
        return ugkm_grid_size(n, epsilon)


class MkM(_GridKMeans):
    __doc__ = ("""MkM: k-means on a noisy grid of ``M = (N / sqrt(ln N))^(2d/(2+d))`` cells (Eq. 4.11, Lei).

    The grid ignores epsilon, so at small epsilon its many cells drown in noise.
    """ + _DOC_PARAMS)

    _name = "MkM"

    def grid_size(self, n, epsilon, d):
        return mkm_grid_size(n, d)
