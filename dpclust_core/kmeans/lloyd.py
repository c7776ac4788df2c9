"""DPLloyd and DPLloyd-Impr (thesis chapter 4: Algorithms 2–3, 12–14, Eqs. 4.6–4.9), Lee & Kifer's DP-KMEANS
configuration (their Algorithm 1), sphere-packing initial centroids (Algorithm 12) and the non-private
baseline :func:`best_of_lloyd`.

Privacy model: **unbounded DP** (add/remove one record). The data domain is the **public** box ``bounds``;
data are mapped into ``[-r, r]^d`` and points outside the box are **clipped** onto it (that is what makes the
sensitivity of a coordinate sum ``r``). A count has sensitivity 1; the k·d coordinate sums of one round have
L1 sensitivity ``d·r`` (one record lands in one cluster and moves its d sums by at most r each). The number
of records N is **private**: DPLloyd-Impr, the only variant that needs it, buys a noisy count unless the
caller publishes N with ``n_public``.

**Exact statistics, any partition.** A round reads the data once, through :func:`_round_statistics`: every point
is assigned to its nearest centroid with squared distances computed coordinate by coordinate (elementwise IEEE
operations, so a point's label depends on that point and the centroids only — not on BLAS, the CPU or the
block of rows it sits in; ties go to the lowest index), and its coordinates enter the sums as **fixed-point
integers** ``trunc(z · 2^32 / r)`` (rounded toward zero, so a magnitude never grows: the sensitivities ``r`` per
coordinate and 1 for the L1 ball hold exactly). Integer sums are associative, so the counts and sums are the
same bits whatever the order of the points or however they are split into blocks; they are converted to floats
once, at the end (``sum · r / 2^32``; a point moves by less than ``r·2^-32``, far below the mechanisms' grid).

**Dask.** ``DPLloyd.fit`` accepts a ``dask.array.Array``: each round is a reduction on the workers (one exact
(k, d + 1) partial per block of rows, summed in a tree), only those k·(d + 1) integers reach the driver, and
the noise is drawn there, once, through the same mechanisms and the same ledger. The raw data are never
computed on the driver. For the same ``random_state`` the fit on ``da.from_array(X, chunks=...)`` is
identical, bit for bit, to the fit on ``X``, for any chunking.
"""
from __future__ import annotations

from types import SimpleNamespace
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (ArrayLike, BadTypeError, Bool, BoundsSpec, Epsilon, Int, Ledger, Options, RandomState,
                           Real, RNGLike, Spec, check_data, check_int, check_n_clusters, check_options,
                           check_real, check_rng, is_dask_array, HalfWidth)
from .._validation import Data, NPublic, Rng, validate_params
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, ScaledCentroidMixin
from .._grid import _grid_step
from ..mechanisms import laplace_mechanism
from .error_models import RHO, epsilon_m_kernel, n_rounds_kernel, budget_split

__all__ = [
    "DPLloyd",
    "sphere_packing_centroids",
    "random_centroids",
    "separated_centroids",
    "project_l1_ball",
    "best_of_lloyd",
]

_VARIANTS = ("original", "improved", "lee_kifer")
_INITS = ("sphere_packing", "random", "separated")
_MAX_K = 10_000  # clusters: beyond this no DP k-means is meaningful, and seeding would cost O(k^2) per try
_MAX_USER_ROUNDS = 10_000
_MAX_ELEMS = 2**26  # largest candidate array (elements) the seeding helpers may allocate


# --------------------------------------------------------------------------------------------- geometry
def project_l1_ball(V: ArrayLike, radius: float = 1.0) -> np.ndarray:
    """Euclidean projection of every row of ``V`` onto the L1 ball ``{x : ||x||_1 <= radius}``.

    Sort-based algorithm of Duchi, Shalev-Shwartz, Singer & Chandra (ICML 2008), vectorised over rows. Rows
    already inside the ball are returned unchanged. Lee & Kifer's DP-KMEANS maps every record into the unit
    L1 ball this way, which makes the L1 sensitivity of a cluster's sum vector 1.

    Parameters
    ----------
    V : array (d,) or (n, d)
        Points, finite.
    radius : float, default 1.0
        Radius of the ball, > 0.

    Returns
    -------
    ndarray, same shape as ``V``

    Examples
    --------
    >>> project_l1_ball([2.0, 0.0]).tolist(), project_l1_ball([[1.0, 1.0], [0.2, -0.3]]).tolist()
    ([1.0, 0.0], [[0.5, 0.5], [0.2, -0.3]])
    """
    if isinstance(V, (str, bytes)):
        raise BadTypeError("V must be an array of real numbers, got a string")
    ndim = np.ndim(V)
    V = check_data(V, "V", ndim=1 if ndim == 1 else 2)
    radius = check_real(radius, "radius", low=0.0, low_open=True)
    return _kernels.project_l1(V, radius)


def _uniform_l1_ball(n, d, rng):
    """n points uniform in the unit L1 ball of R^d (exponential spacings + random signs)."""
    E = rng.exponential(size=(n, d + 1))  # not privacy noise: data-independent random candidate points
    P = E[:, :d] / E.sum(axis=1, keepdims=True)
    return P * rng.choice([-1.0, 1.0], size=(n, d))


def _greedy_accept(C, k, min_dist):
    """Accept candidates in order, each at distance >= min_dist from all accepted ones (sequential
    rejection sampling, computed with k vectorised passes). Returns (accepted indices, n_failures)."""
    n = C.shape[0]
    valid = np.ones(n, dtype=bool)
    acc = []
    start = 0
    md2 = min_dist * min_dist
    for _ in range(k):  # a loop over the k centroids; each pass is vectorised over the candidates
        nxt = np.flatnonzero(valid[start:])
        if nxt.size == 0:
            break
        i = start + int(nxt[0])
        acc.append(i)
        diff = C[i + 1:] - C[i]
        valid[i + 1:] &= (diff * diff).sum(axis=1) >= md2
        start = i + 1
    failures = acc[-1] + 1 - k if len(acc) == k else n - len(acc)
    return np.array(acc, dtype=int), failures


def _check_k_d(k, d, extra=0):
    k = check_int(k, "k", 1, _MAX_K)
    d = check_int(d, "d", 1, _MAX_ELEMS)
    if (k + extra) * d > _MAX_ELEMS:
        raise ValueError(f"k={k} and d={d} ask for {(k + extra) * d} candidate coordinates; at most {_MAX_ELEMS}")
    return k, d


@validate_params(r=HalfWidth(), rng=Rng())
def random_centroids(k: int, d: int, r: float = 1.0, rng: RNGLike = None) -> np.ndarray:
    """k centroids uniform in the domain ``[-r, r]^d`` (original DPLloyd, Algorithm 3 line 2; data-independent).

    Parameters
    ----------
    k, d : int
        Number of centroids (1..10000) and dimensions.
    r : float, default 1.0
        Half-width of the domain, > 0.
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray (k, d)

    Examples
    --------
    >>> C = random_centroids(3, 2, rng=0)
    >>> C.shape, bool(abs(C).max() <= 1)
    ((3, 2), True)
    """
    k, d = _check_k_d(k, d)
    return rng.uniform(-r, r, size=(k, d))


@validate_params(max_tries=Int(1, _MAX_ELEMS), r=HalfWidth(), tol=Real(0.0, 1.0, high_open=True),
                 max_steps=Int(1, 1000), return_radius=Bool(), rng=Rng())
def sphere_packing_centroids(k: int, d: int, r: float = 1.0, rng: RNGLike = None, *, max_tries: int = 1000,
                             tol: float = 1e-6, max_steps: int = 50,
                             return_radius: bool = False) -> np.ndarray | tuple[np.ndarray, float]:
    """Sphere-packing initial centroids, Algorithm 12. Data-independent: costs no budget.

    For a radius a, centroids are drawn one by one uniformly in ``[-r + a, r - a]^d`` (at least a from every
    face of the domain — the plausible reading of the thesis's "every corner") and a draw is accepted iff it
    is at least 2a from every accepted centroid. ``numTrials`` counts the rejected draws; a set that cannot be
    completed within ``max_tries`` rejections counts as ``numTrials = max_tries``. Binary search on a over
    ``[0, r]`` (radii above r are infeasible; the printed upper end r√d is never useful):
    ``numTrials < 3`` → a can grow; ``numTrials > 0.8·max_tries`` → a must shrink; otherwise accept.
    Stops when ``hi - lo < tol·r`` or after ``max_steps`` bisections and returns the **last successful**
    set; if none succeeded, k uniform points of the domain (radius 0).

    Parameters
    ----------
    k, d : int
        Number of centroids (1..10000) and dimensions.
    r : float, default 1.0
        Half-width of the domain, > 0.
    rng : None, int or numpy.random.Generator
    max_tries : int, default 1000
        Rejections allowed per attempt (``(max_tries + k)·d <= 2^26``).
    tol : float, default 1e-6
        Relative width of the radius interval at which the bisection stops, in [0, 1).
    max_steps : int, default 50
        Most bisection steps (1..1000).
    return_radius : bool, default False
        Also return the radius a.

    Returns
    -------
    ndarray (k, d), or ``(centroids, a)`` with ``return_radius=True``

    Examples
    --------
    >>> C, a = sphere_packing_centroids(5, 2, rng=0, return_radius=True)
    >>> C.shape, bool(a > 0.2), bool(abs(C).max() <= 1 - a)
    ((5, 2), True, True)
    """
    k, d = _check_k_d(k, d, extra=max_tries)
    C, a = _sphere_packing(k, d, r, rng, max_tries, tol, max_steps)
    return (C, a) if return_radius else C


def _sphere_packing(k, d, r, rng, max_tries=1000, tol=1e-6, max_steps=50):
    lo, hi = 0.0, float(r)
    best, best_a = None, 0.0
    for _ in range(max_steps):
        if hi - lo < tol * r:
            break
        a = 0.5 * (lo + hi)
        C = rng.uniform(-r + a, r - a, size=(max_tries + k, d))
        acc, failures = _greedy_accept(C, k, 2.0 * a)
        ok = acc.size == k and failures < max_tries
        num_trials = failures if ok else max_tries
        if ok:
            best, best_a = C[acc], a
        if num_trials < 3:
            lo = a
        elif num_trials > 0.8 * max_tries:
            hi = a
        else:
            break
    if best is None:
        best, best_a = rng.uniform(-r, r, size=(k, d)), 0.0
    return best, best_a


def separated_centroids(k: int, d: int, rng: RNGLike = None, *, r0: float | None = None, max_failures: int = 1000,
                        shrink: float = 0.9) -> np.ndarray:
    """Data-independent, well-separated initial centroids in the unit L1 ball (Lee & Kifer's configuration).

    Candidates are uniform in the L1 ball; a candidate is accepted iff its L2 distance to every accepted
    centroid is at least the current radius, which starts at ``r0`` (default ``1/k^(1/d)``) and shrinks by
    ``shrink`` whenever a batch of ``max_failures + k`` draws does not complete the set (accepted centroids
    are kept: they satisfy the smaller radius too). No two points of the ball are more than 2 apart, so a
    larger ``r0`` is lowered to 2; after 500 shrinks the radius drops to 0, so the search always ends.

    Parameters
    ----------
    k, d : int
        Number of centroids (1..10000) and dimensions.
    rng : None, int or numpy.random.Generator
    r0 : float, optional
        Initial separation radius (finite, > 0).
    max_failures : int, default 1000
        Rejected candidates per batch (``(max_failures + k)·(d + 1) <= 2^26``).
    shrink : float, default 0.9
        Factor applied to the radius after a failed batch, in (0, 0.99].

    Returns
    -------
    ndarray (k, d)

    Examples
    --------
    >>> C = separated_centroids(6, 3, rng=0)
    >>> C.shape, bool((abs(C).sum(axis=1) <= 1 + 1e-12).all())
    ((6, 3), True)
    """
    max_failures = check_int(max_failures, "max_failures", 1, _MAX_ELEMS)
    d = check_int(d, "d", 1, _MAX_ELEMS)
    k, _ = _check_k_d(k, d + 1, extra=max_failures)
    rng = check_rng(rng)
    if r0 is not None:
        r0 = check_real(r0, "r0", low=0.0, low_open=True)
    shrink = check_real(shrink, "shrink", low=0.0, high=0.99, low_open=True)
    return _separated(k, d, rng, r0, max_failures, shrink)


def _separated(k, d, rng, r0=None, max_failures=1000, shrink=0.9, max_shrinks=500):
    rad = min(1.0 / k ** (1.0 / d) if r0 is None else float(r0), 2.0)
    acc = np.empty((0, d))
    for it in range(max_shrinks + 1):
        if it == max_shrinks:
            rad = 0.0
        C = np.vstack([acc, _uniform_l1_ball(max_failures + k, d, rng)])
        # accepted points first; the greedy pass re-accepts them (they are mutually separated)
        idx, _ = _greedy_accept(C, k, rad)
        acc = C[idx]
        if acc.shape[0] == k:
            break
        rad *= shrink
    return acc


# --------------------------------------------------------------------------------------------- the Lloyd baseline
@validate_params(X=Data(), n_init=Int(1, 10_000), n_iter=Int(1, 10**6),
                 init=Options("k-means++", "sphere_packing", "random"), r=HalfWidth(), rng=Rng())
def best_of_lloyd(X: ArrayLike, k: int, n_init: int = 30, rng: RNGLike = None, *, n_iter: int = 100,
                  init: Literal["k-means++", "sphere_packing", "random"] = "k-means++",
                  r: float = 1.0) -> tuple[np.ndarray, float]:
    """The non-private baseline of the thesis: the best (lowest NICV) of ``n_init`` Lloyd runs. NOT private.

    The library's one public non-private k-means, for study and as the baseline every private result is measured
    against (the estimators run the same Lloyd kernel inside). Each run assigns every point to its nearest centre
    (ties to the lowest index), then moves every non-empty cluster's centre to its mean, Eq. (2.9), until no centre
    moves or after ``n_iter`` iterations.

    Parameters
    ----------
    X : array (n, d)
    k : int
        Clusters, ``1 <= k <= n`` (the data are not private here, so k is checked against n).
    n_init : int, default 30
        Number of runs (1..10000); the thesis uses 30.
    rng : None, int or numpy.random.Generator
    n_iter : int, default 100
        Iterations per run.
    init : {"k-means++", "sphere_packing", "random"}
        k-means++ seeding (data-driven — fine for a non-private baseline), Algorithm 12 in ``[-r, r]^d`` (as the
        thesis's 30 inits; X must then live in that domain) or uniform in ``[-r, r]^d``.
    r : float, default 1.0
        Half-width of the domain used by the data-independent inits.

    Returns
    -------
    (ndarray (k, d), float)
        The centres and their NICV (WCSS / n).

    Examples
    --------
    >>> import numpy as np
    >>> X = np.repeat([[0.0, 0.0], [1.0, 1.0]], 10, axis=0)
    >>> C, v = best_of_lloyd(X, 2, n_init=3, rng=0)
    >>> sorted(C.tolist()), v
    ([[0.0, 0.0], [1.0, 1.0]], 0.0)
    """
    n, d = X.shape
    k = check_n_clusters(k, n, "k")
    check_int(k, "k", 1, _MAX_K)
    if init == "k-means++":
        inits = None
    elif init == "sphere_packing":
        inits = (_sphere_packing(k, d, r, rng)[0] for _ in range(n_init))
    else:
        inits = (rng.uniform(-r, r, size=(k, d)) for _ in range(n_init))
    with _kernels.single_blas_thread():
        C, cost = _kernels.best_of_lloyd(X, k, n_init, rng, max_iter=n_iter, tol=0.0, inits=inits)
    return C, cost / n


# --------------------------------------------------------------------------------------------- DPLloyd
#: Fixed-point resolution of the coordinate sums: a coordinate z in [-r, r] enters as trunc(z 2^32 / r).
_FIXED_BITS = 32
#: Rows per pass of the statistics kernel (bounded temporaries; integer partial sums stay below 2^53 in the
#: float64 bincount: 2^15 rows x 2^32 < 2^53).
_STAT_ROWS = 1 << 15
#: Rows whose int64 partial sums cannot overflow (2^30 rows x 2^32 < 2^63); longer arrays are cut into pieces.
_INT64_ROWS = 1 << 30
_LIMB = 1 << 32


def _stats_int64(Z, C, r):
    """Exact integer statistics of the rows of ``Z`` (at most ``_INT64_ROWS``): an int64 array (k, d + 1) with
    the counts in column 0 and the fixed-point coordinate sums ``sum trunc(z 2^32 / r)`` in columns 1..d.

    Labels: squared distances coordinate by coordinate (elementwise operations: a row's label does not depend
    on the other rows), first strict minimum (ties to the lowest index)."""
    n, d = Z.shape
    k = C.shape[0]
    scale = float(_LIMB) / r
    lim = float(_LIMB)
    acc = np.zeros((k, d + 1), dtype=np.int64)
    rows = max(1, min(n, _STAT_ROWS, max(256, (1 << 17) // k)))
    D = np.empty((k, rows))
    T = np.empty((k, rows))
    best = np.empty(rows)
    lab = np.empty(rows, dtype=np.intp)
    better = np.empty(rows, dtype=bool)
    Q = np.empty(rows)
    cols = [np.ascontiguousarray(C[:, j:j + 1], dtype=float) for j in range(d)]
    for a in range(0, n, rows):  # a loop over blocks of rows; each pass is vectorised over the block
        m = min(n, a + rows) - a
        Zb = Z[a:a + m]
        Dm, Tm, bm, lm, btm, Qm = D[:, :m], T[:, :m], best[:m], lab[:m], better[:m], Q[:m]
        np.subtract(Zb[:, 0], cols[0], out=Dm)
        np.multiply(Dm, Dm, out=Dm)
        for j in range(1, d):  # a loop over dimensions
            np.subtract(Zb[:, j], cols[j], out=Tm)
            np.multiply(Tm, Tm, out=Tm)
            np.add(Dm, Tm, out=Dm)
        bm[:] = Dm[0]
        lm[:] = 0
        for c in range(1, k):  # a loop over centroids: running strict minimum, ties to the lowest index
            np.less(Dm[c], bm, out=btm)
            np.copyto(bm, Dm[c], where=btm)
            lm[btm] = c
        acc[:, 0] += np.bincount(lm, minlength=k)
        for j in range(d):  # integer-valued float64 partial sums: exact below 2^53
            np.multiply(Zb[:, j], scale, out=Qm)
            np.trunc(Qm, out=Qm)
            np.clip(Qm, -lim, lim, out=Qm)
            acc[:, j + 1] += np.bincount(lm, weights=Qm, minlength=k).astype(np.int64)
    return acc


def _exact_stats(Z, C, r):
    """Exact statistics of all rows of ``Z``: an object array (k, d + 1) of Python ints."""
    n = Z.shape[0]
    total = np.zeros((C.shape[0], Z.shape[1] + 1), dtype=object)
    for a in range(0, max(n, 1), _INT64_ROWS):
        total = total + _stats_int64(Z[a:a + _INT64_ROWS], C, r).astype(object)
    return total


def _block_limbs(block, C=None, r=1.0):
    """The per-block task of the dask reduction: the exact statistics of one block of rows as two int64 limbs
    (high and low 32 bits, ``v = hi 2^32 + lo``), flattened to one row, so that summing the rows of all blocks
    in int64 can never overflow."""
    tot = _exact_stats(np.asarray(block, dtype=float), C, r)
    hi = np.array([[v >> 32 for v in row] for row in tot], dtype=np.int64)
    lo = np.array([[v & (_LIMB - 1) for v in row] for row in tot], dtype=np.int64)
    return np.concatenate([hi.ravel(), lo.ravel()])[None, :]


def _float_stats(total, r):
    """Counts (k,) and coordinate sums (k, d) as floats from the exact integers (one rounding each)."""
    counts = np.array([float(v) for v in total[:, 0]], dtype=float)
    sums = np.array([[float(v) for v in row] for row in total[:, 1:]], dtype=float).reshape(total.shape[0], -1)
    return counts, sums * (r / _LIMB)


def _round_statistics(Z, C, r=1.0):
    """The only pass over the data in a round: counts (k,) and coordinate sums (k, d) of the points of ``Z``
    (scaled domain, half-width ``r``) in the Voronoi cells of ``C``.

    Computed exactly in integers (see the module docstring), so the result is the same bits for any order or
    partition of the rows. A dask array is reduced on its workers: one (k, d + 1) partial per block of rows,
    summed in a tree; only the totals reach the caller.
    """
    C = np.asarray(C, dtype=float)
    k, d = C.shape
    if not is_dask_array(Z):
        return _float_stats(_exact_stats(Z, C, r), r)
    Z = Z.rechunk({1: -1})
    width = 2 * k * (d + 1)
    parts = Z.map_blocks(_block_limbs, C=C, r=float(r), dtype=np.int64,
                         chunks=((1,) * Z.numblocks[0], (width,)))
    flat = np.asarray(parts.sum(axis=0).compute(), dtype=np.int64)
    hi, lo = flat[: width // 2], flat[width // 2:]
    total = np.array([int(h) * _LIMB + int(l) for h, l in zip(hi, lo)], dtype=object).reshape(k, d + 1)
    return _float_stats(total, r)


def _to_domain(X, low, high, r, l1_ball):
    """Map X (n, d) into the scaled domain: the public box onto ``[-r, r]^d`` with clipping, then (Lee–Kifer)
    the Euclidean projection of every point outside the unit L1 ball onto it. Column-major (one pass per
    dimension in the statistics is then contiguous). Nothing about how many points were moved is kept.
    A dask array is mapped block by block (lazily, the same per-row arithmetic)."""
    if is_dask_array(X):
        X = X.rechunk({1: -1})
        return X.map_blocks(_to_domain, low, high, r, l1_ball, dtype=float)
    Z = np.asfortranarray(_kernels.scale_into(X, low, high, r))
    if l1_ball:
        outside = np.flatnonzero(np.abs(Z).sum(axis=1) > 1.0)
        if outside.size:
            Z[outside] = _kernels.project_l1(Z[outside])
    return Z


class _InitSpec(Spec):
    """None, one of the named data-independent initialisations, or a (k, d) array of public centroids."""

    def __call__(self, value, name):
        if value is None:
            return None
        if isinstance(value, str):
            return check_options(value, name, _INITS)
        return check_data(value, name)


def _to_grid_towards_zero(C, r):
    """Centroids rounded towards 0 onto the public power-of-two grid of the scaled domain ``[-r, r]``."""
    step = _grid_step(2.0 * r)
    return np.trunc(C / step) * step


class DPLloyd(ScaledCentroidMixin, DPEstimator):
    """Differentially private Lloyd's algorithm (DPLloyd), in three configurations.

    Every round assigns every point to its nearest current centroid, releases the k cluster counts and the
    k·d coordinate sums with Laplace noise, and moves every centroid to ``noisy sum / noisy count``.

    Parameters
    ----------
    n_clusters : int
        k, 1 <= k <= 10000. It is never compared with the private N (only with ``n_public``, if given).
    epsilon : float
        Total budget ε > 0. ``ledger_`` totals exactly ε after ``fit``.
    bounds : pair or arrays
        The **public** data domain (one (low, high) pair for every dimension, or arrays of lows and highs).
        Required: it must come from domain knowledge, never from the data (that would leak its extremes).
        Data are mapped linearly from this box into ``[-r, r]^d``; points outside are **clipped** onto it.
    variant : {"improved", "original", "lee_kifer"}
        * ``"original"`` — the thesis's DPLloyd baseline (PINQ, Algorithms 2–3): 5 rounds, every count and
          every coordinate sum gets ``Lap((d r + 1) t / ε)``, i.e. per round the count gets
          ``ε_0 = ε/((dr+1)t)`` and each sum ``ε_s = r ε/((dr+1)t)``; initial centroids uniform in the domain.
        * ``"improved"`` — DPLloyd-Impr (Algorithm 14): sphere-packing initial centroids (Algorithm 12), the
          count/sum split ``∛(4dρ²) : 1`` per dimension (Eqs. 4.6–4.7) and ``t⁻`` rounds from ε^m
          (Eqs. 4.8–4.9): 2 if ``ε' <= 2ε^m`` else ``min(⌊ε'/ε^m⌋, 7)``, each with ``ε'/t⁻``, where ε' is
          the budget left for the rounds. ε^m needs N: see ``n_public``.
        * ``"lee_kifer"`` — DP-KMEANS of Lee & Kifer: the box is mapped to ``[-1, 1]^d`` and every point
          outside the **unit L1 ball** is replaced by its Euclidean projection onto the ball
          (:func:`project_l1_ball`); ``T = 5`` rounds by default; every count and every coordinate sum gets
          ``Lap(2T/ε)`` (the count vector and the sum vector have L1 sensitivity 1 each, so each costs
          ``ε/(2T)`` per round); data-independent initial centroids from :func:`separated_centroids`.
          Requires ``r = 1``.
    n_rounds : "auto" or int
        ``"auto"``: 5 (original, lee_kifer) or ``t⁻`` of Algorithm 14 (improved). An int in 1..10000 fixes it
        (the improved variant keeps its split and then needs no N; the budget is divided equally).
    init : None, "sphere_packing", "random", "separated" or array (k, d)
        Initial centroids. None = the variant's default. An array is taken in the ORIGINAL data units and is
        public (it must not be computed from the private data); it is mapped into the scaled domain (and
        clipped / projected like the data).
    r : float, default 1.0
        Half-width of the scaled domain ``[-r, r]^d`` (at most 10^6). Eq. (4.9) is stated for r = 1; for other
        r the general form of :func:`~dpclust_core.kmeans.error_models.epsilon_m` is used.
    {n_public}
        Only DPLloyd-Impr with ``n_rounds="auto"`` uses N (in ε^m, Eq. 4.9, hence the number of rounds); the
        other configurations ignore it except to refuse ``n_clusters > n_public``.
    {n_share}
        Spent only by DPLloyd-Impr with ``n_rounds="auto"`` and no ``n_public``; the rounds get the rest.
    rho : float, default 0.225
        ρ of Eqs. (4.6)–(4.9), in [0, 0.5].
    guard : {"auto", "keep_prev", "keep_prev+project"}
        The post-processing rule (free under DP; it only reads the noisy statistics): a cluster whose noisy
        count is **< 1** keeps its previous centroid; otherwise its centroid is ``noisy_sum / noisy_count``.
        ``"keep_prev+project"`` then maps the centroid back into the domain: per-coordinate clipping to
        ``[-r, r]`` (Π of Algorithm 2) for the box variants, Euclidean projection onto the L1 ball for
        lee_kifer. ``"auto"`` = ``"keep_prev+project"`` for original/improved, ``"keep_prev"`` for lee_kifer
        (Lee & Kifer do not project).
    random_state : None, int or numpy.random.Generator
        Two independent streams are spawned from it: one for the initial centroids, one for the noise.
    ledger : PrivacyLedger, optional
        A shared ledger: the fit is refused before the data are read if it cannot afford ε, and its entries
        are added to it as one group.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        The released centroids, in the ORIGINAL data units.
    scaled_centers_ : ndarray (k, d)
        The same in the scaled domain.
    ledger_ : PrivacyLedger
        "N (noisy count)" when DPLloyd-Impr bought one; then per round one entry for the k noisy counts
        (sensitivity 1) and one for the k·d noisy sums (sensitivity d·r; 1 for lee_kifer). Empty clusters are
        part of the same vectorised release. Totals exactly ε.
    n_iter_ : int
        Rounds run (= ``n_rounds_``; DPLloyd never stops early, that would leak). For DPLloyd-Impr it is a
        function of the noisy N (or of ``n_public``), never of the exact N.
    history_ : list of dict
        One dict per round t, with (all in the SCALED domain) ``centroids`` (k, d) used for the assignment in
        round t; ``noisy_counts`` (k,); ``noisy_sums`` (k, d); ``count_scale`` (Laplace scale of every noisy
        count); ``sum_scale`` (Laplace scale of every noisy coordinate sum); ``new_centroids`` (k, d) after the
        guard. Only noisy releases and public values.
    init_centroids_ : ndarray (k, d)
        The scaled initial centroids (public).
    n_estimate_ : float or None
        The N used by ε^m: the noisy count, or ``n_public``; None when N was not needed.
    epsilon_n_ : float
        Budget spent on the noisy count (0 when none was bought).
    epsilon_m_ : float or None
        ε^m of Eq. (4.9) (DPLloyd-Impr with ``n_rounds="auto"`` only).
    epsilon_round_, epsilon_count_, epsilon_sum_ : float
        The per-round budget, the budget of the count vector, and (original / improved) the budget of EACH
        coordinate sum, whose noise is ``Lap(r / epsilon_sum_)``, so a round costs
        ``epsilon_count_ + d * epsilon_sum_``; (lee_kifer) the budget of the WHOLE sum vector, L1 sensitivity
        1, noise ``Lap(1 / epsilon_sum_)`` on every coordinate, so a round costs
        ``epsilon_count_ + epsilon_sum_``.
    n_rounds_ : int
    r_, scaled_bounds_, bounds_, n_features_in_, guard_, domain_, min_count_ :
        Public settings as used (``domain_`` is "l1" for lee_kifer, else "box"; ``min_count_`` = 1.0).

    Notes
    -----
    Every attribute is a function of public inputs and the noisy releases only. No statistic of the raw data
    (such as the number of clipped points) is stored; :func:`~dpclust_core.preprocessing.scale_to_domain` with
    ``return_n_clipped=True`` gives it to the data owner.

    ``X`` may be a ``dask.array.Array`` (on a ``dask.distributed`` cluster or the local scheduler). Every round
    is then a reduction on the workers: each block of rows gives its exact cluster counts and fixed-point
    coordinate sums, the blocks' partials are summed in a tree, and only the k·(d + 1) totals reach the driver,
    which adds the noise through the same mechanisms, in the same order, into the same ledger. The raw data are
    never computed on the driver, and with the same ``random_state`` the release equals the in-memory fit's bit
    for bit, whatever the chunking (the statistics are exact integers; see the module docstring). NaN or
    infinite values cannot be checked without reading the data: the workers check every block while computing
    the first round, before any noise is drawn, and the fit raises ``ValueError`` naming ``X``. Each round reads
    ``X`` again; ``X.persist()`` first keeps it in the workers' memory if it fits there.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(2000, n_clusters=3, random_state=0)
    >>> est = DPLloyd(3, 1.0, bounds=(-1, 1), random_state=0).fit(X)
    >>> est.cluster_centers_.shape, round(est.ledger_.epsilon, 12)
    ((3, 2), 1.0)
    >>> est.ledger_.entries[0].name, est.n_iter_ == len(est.history_)
    ('N (noisy count)', True)
    >>> DPLloyd(3, 1.0, bounds=(-1, 1), n_public=2000, random_state=0).fit(X).n_estimate_
    2000.0

    The same fit on a dask array (here on the local scheduler), split into blocks of 700 rows:

    >>> import dask.array as da
    >>> est_d = DPLloyd(3, 1.0, bounds=(-1, 1), random_state=0).fit(da.from_array(X, chunks=(700, 2)))
    >>> bool((est_d.cluster_centers_ == est.cluster_centers_).all())
    True
    """

    _accepts_dask = True  # every round is a reduction over the rows: computed on the workers
    _budget_params = ("epsilon", "n_share", "rho")  # rho sets the count/sum split of a round (Eq. 4.7)
    #: Post-processed releases and the public scale of their grids (see DPEstimator): the centres, and the round
    #: budget DPLloyd-Impr derives from the noisy N. The centroids of every round are on the grid already (the
    #: update rule rounds them).
    _release_grids = {**DPEstimator._release_grids, "epsilon_m_": lambda est: est.epsilon}
    _parameters = {
        "n_clusters": Int(1, _MAX_K),
        "epsilon": Epsilon(),
        "bounds": BoundsSpec(),
        "variant": Options(*_VARIANTS),
        "n_rounds": Options("auto") | Int(1, _MAX_USER_ROUNDS),
        "init": _InitSpec(),
        "r": HalfWidth(),
        "n_public": NPublic(),
        "n_share": Real(0.0, 0.5, low_open=True),
        "rho": Real(0.0, 0.5),
        "guard": Options("auto", "keep_prev", "keep_prev+project"),
        "random_state": RandomState(),
        "ledger": Ledger(),
    }

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike,
                 variant: Literal["improved", "original", "lee_kifer"] = "improved",
                 n_rounds: int | Literal["auto"] = "auto",
                 init: Literal["sphere_packing", "random", "separated"] | ArrayLike | None = None, r: float = 1.0,
                 n_public: float | None = None, n_share: float = 0.05, rho: float = RHO,
                 guard: Literal["auto", "keep_prev", "keep_prev+project"] = "auto", random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.variant = variant
        self.n_rounds = n_rounds
        self.init = init
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.rho = rho
        self.guard = guard
        self.random_state = random_state
        self.ledger = ledger

    # ------------------------------------------------------------------ checks of public inputs
    def _validate_params(self):
        p = super()._validate_params()
        if p.variant == "lee_kifer" and p.r != 1.0:
            raise ValueError(f"r must be 1.0 for variant='lee_kifer' (the data live in the unit L1 ball), "
                             f"got {p.r!r}")
        if isinstance(p.init, np.ndarray) and p.init.shape[0] != p.n_clusters:
            raise ValueError(f"init has {p.init.shape[0]} rows, expected n_clusters={p.n_clusters}")
        if p.n_public is not None and p.n_clusters > p.n_public:
            raise ValueError(f"n_clusters={p.n_clusters} is larger than n_public={p.n_public}")
        return p

    # ------------------------------------------------------------------ fit
    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        if isinstance(p.init, np.ndarray) and p.init.shape[1] != X.shape[1]:
            raise ValueError(f"init has {p.init.shape[1]} features, expected {X.shape[1]} (as X)")
        Z = _to_domain(X, low, high, p.r, p.variant == "lee_kifer")
        self._fit_scaled(Z, p, ledger, rng)

    def _fit_scaled(self, Z, p, ledger, rng, *, init_scaled=None, n_estimate=None):
        """Run DPLloyd on data already in the scaled domain (the entry point of composite estimators).

        ``Z`` (n, d) is the output of the public scaling (clipped, and projected for lee_kifer); ``p`` the
        validated parameters with ``p.bounds`` as arrays; ``init_scaled`` optional public initial centroids in
        the scaled domain (they override ``p.init``); ``n_estimate`` a noisy N the caller already bought (so
        one fit of a composite estimator buys one). Records every release in ``ledger``.
        """
        d = Z.shape[1]
        k = p.n_clusters
        r = float(p.r)
        lee_kifer = p.variant == "lee_kifer"
        guard = p.guard if p.guard != "auto" else ("keep_prev" if lee_kifer else "keep_prev+project")
        init_rng, noise_rng = rng.spawn(2)
        self.bounds_ = (np.asarray(p.bounds[0], float), np.asarray(p.bounds[1], float))
        self.n_features_in_ = d
        self.r_ = r
        self.scaled_bounds_ = (-r, r)
        self.guard_ = guard
        self.domain_ = "l1" if lee_kifer else "box"
        self.min_count_ = 1.0
        C = _to_grid_towards_zero(self._initial_centroids(p, k, d, init_rng) if init_scaled is None
                                  else np.array(init_scaled, dtype=float, copy=True), r)
        self.init_centroids_ = C.copy()

        # ---- the first round's pass over the data comes before any noise: the initial centroids are public,
        # and on a dask array this pass is where the workers find NaN/inf (a ValueError before any release)
        first = _round_statistics(Z, C, r)
        n_rows = int(first[0].sum())  # = len(Z), also for a dask array of unknown block sizes
        if n_rows == 0:
            raise ValueError("X is empty (no rows)")

        # ---- number of rounds: DPLloyd-Impr's t- needs N (private unless published)
        eps_rounds = p.epsilon
        self.n_estimate_, self.epsilon_n_, self.epsilon_m_ = None, 0.0, None
        if p.variant == "improved" and p.n_rounds == "auto":
            if n_estimate is None:
                n_estimate, eps_n = self._estimate_n(SimpleNamespace(shape=(n_rows, d)), p,
                                                     p.n_share * p.epsilon, noise_rng, ledger)
                eps_rounds = p.epsilon - eps_n
                self.epsilon_n_ = eps_n
            self.n_estimate_ = float(n_estimate)
            self.epsilon_m_ = epsilon_m_kernel(self.n_estimate_, d, k, p.rho, r)
            T = n_rounds_kernel(eps_rounds, self.epsilon_m_)
        else:
            T = 5 if p.n_rounds == "auto" else int(p.n_rounds)

        # ---- per-round split
        z = eps_rounds / T
        if lee_kifer:
            e_count = e_sums_total = z / 2.0  # the whole count vector; the whole sum vector (L1 sensitivity 1)
            sens_sums = 1.0
            self.epsilon_count_, self.epsilon_sum_ = e_count, e_sums_total
        else:
            e_count, e_sum = budget_split(d, z, rho=p.rho, split=p.variant, r=r)
            e_sums_total = z - e_count  # = d * e_sum: the k x d sums, L1 sensitivity d*r, Lap(r / e_sum) each
            sens_sums = d * r
            self.epsilon_count_, self.epsilon_sum_ = e_count, e_sum
        self.n_rounds_ = self.n_iter_ = T
        self.epsilon_round_ = z

        history = []
        project = guard == "keep_prev+project"
        for t in range(1, T + 1):
            # every point assigned before any centroid moves
            counts, sums = first if t == 1 else _round_statistics(Z, C, r)
            # every cluster is noised, empty or not: one vectorised release each
            n_counts = laplace_mechanism(counts, 1.0, e_count, noise_rng, l0_sensitivity=1, ledger=ledger,
                                         name=f"round {t}: counts (k={k})")
            n_sums = laplace_mechanism(sums, sens_sums, e_sums_total, noise_rng, l0_sensitivity=d,
                                       ledger=ledger, name=f"round {t}: sums (k={k}, d={d})")
            n_counts = np.atleast_1d(n_counts)
            n_sums = np.asarray(n_sums).reshape(k, d)
            newC = self._update(C, n_counts, n_sums, project, lee_kifer, r)
            history.append({
                "centroids": C,
                "noisy_counts": n_counts,
                "noisy_sums": n_sums,
                "count_scale": 1.0 / e_count,
                "sum_scale": sens_sums / e_sums_total,
                "new_centroids": newC,
            })
            C = newC
        self.history_ = history
        self.scaled_centers_ = C.copy()
        self.cluster_centers_ = _kernels.unscale_from(C, self.bounds_[0], self.bounds_[1], r)
        return self

    def _initial_centroids(self, p, k, d, rng):
        """Public, data-independent initial centroids in the scaled domain."""
        init = p.init
        r = float(p.r)
        if init is None:
            init = {"original": "random", "improved": "sphere_packing", "lee_kifer": "separated"}[p.variant]
        if isinstance(init, str):
            if init == "sphere_packing":
                return _sphere_packing(k, d, r, rng)[0]
            if init == "random":
                return rng.uniform(-r, r, size=(k, d))
            C0 = _separated(k, d, rng)
            return C0 if p.variant == "lee_kifer" else C0 * r
        return _to_domain(init, p.bounds[0], p.bounds[1], r, p.variant == "lee_kifer").copy(order="C")

    @staticmethod
    def _update(C_prev, n_counts, n_sums, project, lee_kifer, r):
        """The post-processing rule (guard): count < 1 keeps the previous centroid; optional projection; then
        every coordinate rounded towards 0 onto the public grid of the domain (which keeps it in the box and the
        L1 ball)."""
        ok = n_counts >= 1.0
        newC = C_prev.copy()
        newC[ok] = n_sums[ok] / n_counts[ok, None]
        if project:
            newC = _kernels.project_l1(newC) if lee_kifer else np.clip(newC, -r, r)
        return _to_grid_towards_zero(newC, r)

    def update_rule(self, previous_centroids, noisy_counts, noisy_sums) -> np.ndarray:
        """Apply this fitted estimator's post-processing rule to given noisy statistics (scaled domain).

        ``update_rule(h["centroids"], h["noisy_counts"], h["noisy_sums"])`` reproduces ``h["new_centroids"]``
        for every round ``h`` of ``history_``: the guard, the projection, and the rounding of every coordinate
        towards 0 onto the power-of-two grid ``2^(floor(log2 2r) - 40)`` of the scaled domain (a public grid, so
        the released centroids carry no low-order bits of the arithmetic).

        Parameters
        ----------
        previous_centroids : array (k, d)
        noisy_counts : array (k,)
        noisy_sums : array (k, d)

        Returns
        -------
        ndarray (k, d)
        """
        self._check_fitted("cluster_centers_")
        k, d = self.scaled_centers_.shape
        C = check_data(previous_centroids, "previous_centroids", n_features=d)
        cnt = check_data(noisy_counts, "noisy_counts", ndim=1)
        S = check_data(noisy_sums, "noisy_sums", n_features=d)
        if C.shape[0] != k or cnt.shape[0] != k or S.shape[0] != k:
            raise ValueError(f"previous_centroids, noisy_counts and noisy_sums must have k={k} rows")
        return self._update(C, cnt, S, self.guard_ == "keep_prev+project", self.domain_ == "l1",
                            self.r_)

    def _predict_space(self, X):
        """X mapped as in fit (clipped to the public box; projected onto the L1 ball for lee_kifer)."""
        return (_to_domain(X, self.bounds_[0], self.bounds_[1], self.r_, self.domain_ == "l1"),
                self.scaled_centers_)


DPLloyd.__doc__ = DPLloyd.__doc__.replace("{n_public}", N_PUBLIC_DOC).replace("{n_share}", N_SHARE_DOC)
