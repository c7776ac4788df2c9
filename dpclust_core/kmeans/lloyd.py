"""DPLloyd and DPLloyd-Impr (thesis chapter 4; spec ``dp-basics-and-kmeans.md`` §2.5, §3.1–§3.6), Lee & Kifer's
DP-KMEANS configuration (spec ``mcmc-postprocessing.md`` §1, §10), sphere-packing initial centroids
(Algorithm 12) and non-private Lloyd baselines.

Privacy model: **unbounded DP** (add/remove one record). The data domain is the **public** box ``bounds``;
data are mapped into ``[-r, r]^d`` and points outside the box are **clipped** onto it (that is what makes the
sensitivity of a coordinate sum ``r``). A count has sensitivity 1; the k·d coordinate sums of one round have
L1 sensitivity ``d·r`` (one record lands in one cluster and moves its d sums by at most r each).
"""
from __future__ import annotations

import numbers

import numpy as np

from .._validation import (check_bounds, check_data, check_epsilon, check_n_clusters, check_positive_int,
                           check_rng)
from ..accounting import PrivacyLedger
from ..data import scale_to_domain, unscale_from_domain
from ..mechanisms import laplace_mechanism
from ..metrics import squared_distances
from .error_models import RHO, budget_split, epsilon_m, n_rounds as _n_rounds

__all__ = [
    "DPLloyd",
    "sphere_packing_centroids",
    "random_centroids",
    "separated_centroids",
    "project_l1_ball",
    "lloyd",
    "best_of_lloyd",
]

_VARIANTS = ("original", "improved", "lee_kifer")
_BLOCK = 1 << 14  # points per block in the nearest-centroid pass


# --------------------------------------------------------------------------------------------- geometry
def project_l1_ball(V, radius=1.0):
    """Euclidean projection of every row of ``V`` onto the L1 ball ``{x : ||x||_1 <= radius}``.

    Sort-based algorithm of Duchi, Shalev-Shwartz, Singer & Chandra (ICML 2008), vectorised over rows.
    Rows already inside the ball are returned unchanged.
    """
    V = np.asarray(V, dtype=float)
    one = V.ndim == 1
    W = np.atleast_2d(V).copy()
    if not (np.isfinite(radius) and radius > 0):
        raise ValueError(f"radius must be finite and > 0, got {radius!r}")
    A = np.abs(W)
    outside = np.flatnonzero(A.sum(axis=1) > radius)
    if outside.size:
        allrows = outside.size == W.shape[0]
        Ao = A if allrows else A[outside]
        U = np.sort(Ao, axis=1)[:, ::-1]  # descending
        css = np.cumsum(U, axis=1)
        j = np.arange(1, U.shape[1] + 1)
        cond = U - (css - radius) / j > 0
        rho_idx = U.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1)  # last index where cond holds
        theta = (css[np.arange(U.shape[0]), rho_idx] - radius) / (rho_idx + 1)
        Ao -= theta[:, None]
        np.maximum(Ao, 0.0, out=Ao)  # the projected magnitudes; signs restored below
        if allrows:
            W = np.copysign(Ao, W)
        else:
            W[outside] = np.copysign(Ao, W[outside])
    return W[0] if one else W


def _uniform_l1_ball(n, d, rng):
    """n points uniform in the unit L1 ball of R^d (exponential spacings + random signs)."""
    E = rng.exponential(size=(n, d + 1))
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
    for _ in range(k):
        nxt = np.flatnonzero(valid[start:])
        if nxt.size == 0:
            break
        i = start + int(nxt[0])
        acc.append(i)
        diff = C[i + 1:] - C[i]
        valid[i + 1:] &= (diff * diff).sum(axis=1) >= md2
        start = i + 1
    if len(acc) == k:
        failures = acc[-1] + 1 - k
    else:
        failures = n - len(acc)
    return np.array(acc, dtype=int), failures


def random_centroids(k, d, r=1.0, rng=None):
    """k centroids uniform in the domain ``[-r, r]^d`` (original DPLloyd, Algorithm 3 line 2; data-independent)."""
    k = check_positive_int(k, "k")
    d = check_positive_int(d, "d")
    rng = check_rng(rng)
    return rng.uniform(-r, r, size=(k, d))


def sphere_packing_centroids(k, d, r=1.0, rng=None, *, max_tries=1000, tol=1e-6, max_steps=50,
                             return_radius=False):
    """Sphere-packing initial centroids, Algorithm 12 (spec §3.3). Data-independent: costs no budget.

    For a radius a, centroids are drawn one by one uniformly in ``[-r + a, r - a]^d`` (at least a from every
    face of the domain — the plausible reading of the thesis's "every corner") and a draw is accepted iff it
    is at least 2a from every accepted centroid. ``numTrials`` counts the rejected draws; a set that cannot be
    completed within ``max_tries`` rejections counts as ``numTrials = max_tries``. Binary search on a over
    ``[0, r]`` (radii above r are infeasible; the printed upper end r√d is never useful):
    ``numTrials < 3`` → a can grow; ``numTrials > 0.8·max_tries`` → a must shrink; otherwise accept.
    Stops when ``hi - lo < tol·r`` or after ``max_steps`` bisections and returns the **last successful**
    set; if none succeeded, k uniform points of the domain (radius 0).

    Returns ``(k, d)`` centroids in ``[-r, r]^d`` (and the radius used when ``return_radius=True``).
    """
    k = check_positive_int(k, "k")
    d = check_positive_int(d, "d")
    max_tries = check_positive_int(max_tries, "max_tries")
    rng = check_rng(rng)
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
    return (best, best_a) if return_radius else best


def separated_centroids(k, d, rng=None, *, r0=None, max_failures=1000, shrink=0.9):
    """Data-independent, well-separated initial centroids in the unit L1 ball (spec ``mcmc-postprocessing.md``
    §5.2 and §10.3, the Lee–Kifer configuration).

    Candidates are uniform in the L1 ball; a candidate is accepted iff its L2 distance to every accepted
    centroid is at least the current radius, which starts at ``r0 = 1/k^(1/d)`` and shrinks by ``shrink``
    whenever a batch of ``max_failures + k`` draws does not complete the set (accepted centroids are kept:
    they satisfy the smaller radius too).
    """
    k = check_positive_int(k, "k")
    d = check_positive_int(d, "d")
    rng = check_rng(rng)
    rad = 1.0 / k ** (1.0 / d) if r0 is None else float(r0)
    acc = np.empty((0, d))
    while acc.shape[0] < k:
        C = np.vstack([acc, _uniform_l1_ball(max_failures + k, d, rng)])
        # accepted points first; the greedy pass re-accepts them (they are mutually separated)
        idx, _ = _greedy_accept(C, k, rad)
        new = C[idx]
        if new.shape[0] == k:
            return new
        # keep only the accepted that come from the fresh batch up to the first max_failures rejections
        acc = new
        rad *= shrink
    return acc


# --------------------------------------------------------------------------------------------- Lloyd
def _assign_t(Xt, C):
    """Nearest centroid for the points given TRANSPOSED, ``Xt`` of shape (d, N); ties -> lowest index.

    For d <= 4 the score ``-2 x·c_j + ||c_j||²`` of every cluster is computed with elementwise ufuncs (the same
    operations in the same order for every point, so a point's label depends only on the point and the
    centroids, never on its position in the array) into a (k, block) buffer of ``_BLOCK`` points; the minimum
    over the clusters is one ``np.minimum.reduce`` and the label is the LOWEST j whose score equals it. This
    avoids ``argmin`` along a short axis (which copies and loops per point) and is about 1.9x faster than
    ``argmin(X @ C.T, axis=1)`` at d = 2, k = 5. For d > 4 the matrix product is used. No loop over points.
    """
    d, n = Xt.shape
    k = C.shape[0]
    if k == 1:
        return np.zeros(n, dtype=np.intp)
    cc = (C * C).sum(axis=1)
    if d > 4:
        D = Xt.T @ (-2.0 * C.T)
        D += cc
        return np.argmin(D, axis=1)
    A = -2.0 * C
    lab = np.empty(n, dtype=np.intp)
    B = min(n, _BLOCK)
    D = np.empty((k, B))
    tmp, low = np.empty(B), np.empty(B)
    m = np.empty(B, dtype=bool)
    lb = np.empty(B, dtype=np.intp)
    for s in range(0, n, B):  # loop over blocks of points and over clusters, each step vectorised
        e = min(n, s + B)
        L = e - s
        DD, tt, lo, mm, ll = D[:, :L], tmp[:L], low[:L], m[:L], lb[:L]
        for j in range(k):
            dd = DD[j]
            np.multiply(Xt[0, s:e], A[j, 0], out=dd)
            for i in range(1, d):
                np.multiply(Xt[i, s:e], A[j, i], out=tt)
                dd += tt
            dd += cc[j]
        np.minimum.reduce(DD, axis=0, out=lo)
        ll.fill(k - 1)
        for j in range(k - 2, -1, -1):  # descending, so a tie ends with the lowest index
            np.equal(DD[j], lo, out=mm)
            np.copyto(ll, j, where=mm)
        lab[s:e] = ll
    return lab


def _assign(X, C):
    """Nearest centroid for the rows of X (N, d); ties -> lowest index."""
    return _assign_t(np.ascontiguousarray(np.asarray(X, float).T), np.asarray(C, float))


def _stats_t(Xt, labels, k):
    """Exact counts (k,) and coordinate sums (k, d) of the partition; Xt is (d, N). One bincount per dimension."""
    counts = np.bincount(labels, minlength=k).astype(float)
    sums = np.empty((k, Xt.shape[0]))
    for i in range(Xt.shape[0]):  # loop over dimensions, not points
        sums[:, i] = np.bincount(labels, weights=Xt[i], minlength=k)
    return counts, sums


def _stats(X, labels, k):
    """Exact counts (k,) and coordinate sums (k, d) of the partition of the rows of X."""
    return _stats_t(np.ascontiguousarray(np.asarray(X, float).T), labels, k)


def lloyd(X, init, n_iter=100, tol=0.0, return_n_iter=False):
    """Plain (non-private) Lloyd's algorithm, Eq. (2.9), from the given initial centroids.

    Each iteration assigns every point to its nearest centroid (ties to the lowest index) and then moves
    every non-empty cluster's centroid to its mean; an empty cluster keeps its centroid. Stops after
    ``n_iter`` iterations or when no centroid moves by more than ``tol``. NOT private.
    """
    X = check_data(X)
    C = check_data(init, "init", n_features=X.shape[1]).copy()
    n_iter = check_positive_int(n_iter, "n_iter")
    k = C.shape[0]
    Xt = np.ascontiguousarray(X.T)
    it = 0
    for it in range(1, n_iter + 1):
        labels = _assign_t(Xt, C)
        counts, sums = _stats_t(Xt, labels, k)
        nonempty = counts > 0
        newC = C.copy()
        newC[nonempty] = sums[nonempty] / counts[nonempty, None]
        shift = np.max(np.abs(newC - C))
        C = newC
        if shift <= tol:
            break
    return (C, it) if return_n_iter else C


def _kmeanspp(X, k, rng):
    """k-means++ seeding (Arthur & Vassilvitskii 2007) — reads the data, so NOT private."""
    n = X.shape[0]
    C = np.empty((k, X.shape[1]))
    C[0] = X[rng.integers(n)]
    d2 = ((X - C[0]) ** 2).sum(axis=1)
    for j in range(1, k):
        tot = d2.sum()
        idx = rng.integers(n) if tot <= 0 else rng.choice(n, p=d2 / tot)
        C[j] = X[idx]
        d2 = np.minimum(d2, ((X - C[j]) ** 2).sum(axis=1))
    return C


def best_of_lloyd(X, k, n_init=30, rng=None, *, n_iter=100, init="k-means++", r=1.0):
    """The non-private baseline of the thesis: the best (lowest NICV) of ``n_init`` Lloyd runs (spec §4.4, P18).

    ``init="k-means++"`` (default, data-driven seeding — fine for a non-private baseline),
    ``"sphere_packing"`` (Algorithm 12 in ``[-r, r]^d``, as the thesis's 30 inits; X must then live in that
    domain) or ``"random"`` (uniform in ``[-r, r]^d``). NOT private.

    Returns ``(centers, nicv)``.
    """
    X = check_data(X)
    k = check_n_clusters(k, X.shape[0], "k")
    n_init = check_positive_int(n_init, "n_init")
    rng = check_rng(rng)
    best_c, best_v = None, np.inf
    d = X.shape[1]
    for _ in range(n_init):
        if init == "k-means++":
            c0 = _kmeanspp(X, k, rng)
        elif init == "sphere_packing":
            c0 = sphere_packing_centroids(k, d, r, rng)
        elif init == "random":
            c0 = random_centroids(k, d, r, rng)
        else:
            raise ValueError(f"init must be 'k-means++', 'sphere_packing' or 'random', got {init!r}")
        c = lloyd(X, c0, n_iter=n_iter)
        v = float(squared_distances(X, c).min(axis=1).mean())
        if v < best_v:
            best_c, best_v = c, v
    return best_c, best_v


# --------------------------------------------------------------------------------------------- DPLloyd
class DPLloyd:
    """Differentially private Lloyd's algorithm (DPLloyd), in three configurations.

    Parameters
    ----------
    n_clusters : int
        k >= 1 (and <= N).
    epsilon : float
        Total budget ε > 0. ``ledger_.epsilon == epsilon`` after ``fit``.
    bounds : pair or arrays, default (-1.0, 1.0)
        The **public** data domain (one (low, high) pair for every dimension, or arrays of lows and highs).
        Never read off the data. Data are mapped linearly from this box into ``[-r, r]^d``; points outside
        the box are **clipped** onto it.
    variant : {"improved", "original", "lee_kifer"}
        * ``"original"`` — the thesis's DPLloyd baseline (PINQ, Algorithms 2–3, spec §2.5): 5 rounds, every
          count and every coordinate sum gets ``Lap((d r + 1) t / ε)``, i.e. per round the count gets
          ``ε_0 = ε/((dr+1)t)`` and each sum ``ε_s = r ε/((dr+1)t)``; initial centroids uniform in the domain.
        * ``"improved"`` — DPLloyd-Impr (Algorithm 14): sphere-packing initial centroids (Algorithm 12),
          the count/sum split ``∛(4dρ²) : 1`` per dimension (Eqs. 4.6–4.7), and ``t⁻`` rounds from ε^m
          (Eqs. 4.8–4.9): 2 if ``ε <= 2ε^m`` else ``min(⌊ε/ε^m⌋, 7)``, each with ``ε/t⁻``.
        * ``"lee_kifer"`` — DP-KMEANS of Lee & Kifer (spec ``mcmc-postprocessing.md`` §1.2): the box is
          mapped to ``[-1, 1]^d`` and every point outside the **unit L1 ball** is replaced by its Euclidean
          projection onto the ball (:func:`project_l1_ball`; Duchi et al. 2008); ``T = 5`` rounds by
          default; every count and EVERY coordinate sum gets ``Lap(2T/ε)`` (the count vector and the sum
          vector have L1 sensitivity 1 each, so each costs ``ε/(2T)`` per round); data-independent initial
          centroids from :func:`separated_centroids`. Requires ``r = 1``.
    n_rounds : "auto" or int >= 1
        ``"auto"``: 5 (original, lee_kifer) or ``t⁻`` of Algorithm 14 (improved). An int overrides it (the
        improved variant keeps its split, the budget is divided equally over the rounds).
    init : None, "sphere_packing", "random", "separated" or array (k, d)
        Initial centroids. None = the variant's default. An array is taken in the ORIGINAL data units and
        is public (it must not be computed from the private data); it is mapped into the scaled domain
        (and clipped / projected like the data).
    random_state : None, int or numpy.random.Generator
        Two independent streams are spawned from it: one for the initial centroids, one for the noise.
    r : float, default 1.0
        Half-width of the scaled domain ``[-r, r]^d``. Eq. (4.9) is stated for r = 1; for other r the
        general form of :func:`~dpclust_core.kmeans.error_models.epsilon_m` is used.
    n_public : int, optional
        N, **treated as public**. Only the improved variant uses N (in ε^m, Eq. 4.9, hence the number of
        rounds). The thesis never privatises N (spec pitfall P10): if ``n_public`` is None the improved
        variant uses ``len(X)`` — the thesis's convention, which strictly leaks the exact N. Pass a public
        (or separately privatised) N to avoid that. The original and Lee–Kifer variants do not use N.
    rho : float, default 0.225
        ρ of Eqs. (4.6)–(4.9).
    guard : {"auto", "keep_prev", "keep_prev+project"}
        The post-processing rule (free under DP; it only reads the noisy statistics): a cluster whose noisy
        count is **< 1** keeps its previous centroid; otherwise its centroid is ``noisy_sum / noisy_count``.
        ``"keep_prev+project"`` then maps the centroid back into the domain: per-coordinate clipping to
        ``[-r, r]`` (Π of Algorithm 2) for the box variants, Euclidean projection onto the L1 ball for
        lee_kifer. ``"auto"`` = ``"keep_prev+project"`` for original/improved, ``"keep_prev"`` for lee_kifer
        (spec ``mcmc-postprocessing.md`` §10.1: the paper does not project).

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d), in the ORIGINAL data units.
    ledger_ : PrivacyLedger — per round one entry for the k noisy counts (sensitivity 1) and one for the k·d
        noisy sums (sensitivity d·r; 1 for lee_kifer). Empty clusters are part of the same vectorised
        release. ``ledger_.epsilon == epsilon``.
    n_iter_ : int, rounds run (= the number of rounds; DPLloyd never stops early, that would leak).
    history_ : list of dicts, one per round t, with (all in the SCALED domain)
        ``centroids`` (k, d) used for the assignment in round t; ``noisy_counts`` (k,); ``noisy_sums``
        (k, d); ``count_scale`` (Laplace scale of every noisy count); ``sum_scale`` (Laplace scale of every
        noisy coordinate sum); ``new_centroids`` (k, d) produced by the round after the guard.
    init_centroids_ : (k, d) scaled initial centroids; ``r_``, ``scaled_bounds_`` (= (-r, r)),
    ``bounds_`` (low, high arrays), ``n_features_in_``, ``n_rounds_``, ``epsilon_round_``,
    ``epsilon_count_`` (per-round budget of the count vector), ``epsilon_sum_`` (original / improved: the
    per-round budget of EACH coordinate sum, whose noise is ``Lap(r / epsilon_sum_)``, so a round costs
    ``epsilon_count_ + d * epsilon_sum_``; lee_kifer: the per-round budget of the WHOLE sum vector, L1
    sensitivity 1, noise ``Lap(1 / epsilon_sum_)`` on every coordinate, so a round costs
    ``epsilon_count_ + epsilon_sum_``), ``epsilon_m_`` (improved only, else None), ``n_public_`` (the N used,
    or None), ``min_count_`` (= 1.0).

    Every attribute above is a function of public inputs and the noisy releases only (``n_public_`` is
    ``len(X)`` when ``n_public`` is None — the thesis's convention that N is public). No statistic of the raw
    data (such as the number of clipped points) is stored on the estimator;
    :func:`~dpclust_core.data.scale_to_domain` with ``return_n_clipped=True`` gives it to the data owner.
    """

    def __init__(self, n_clusters, epsilon, bounds=(-1.0, 1.0), variant="improved", n_rounds="auto", init=None,
                 random_state=None, r=1.0, n_public=None, rho=RHO, guard="auto"):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.variant = variant
        self.n_rounds = n_rounds
        self.init = init
        self.random_state = random_state
        self.r = r
        self.n_public = n_public
        self.rho = rho
        self.guard = guard

    # ------------------------------------------------------------------ validation
    def _check_params(self, n_features=None):
        if self.variant not in _VARIANTS:
            raise ValueError(f"variant must be one of {_VARIANTS}, got {self.variant!r}")
        eps = check_epsilon(self.epsilon)
        k = check_positive_int(self.n_clusters, "n_clusters")
        if not (isinstance(self.r, numbers.Real) and not isinstance(self.r, bool) and np.isfinite(self.r)
                and self.r > 0):
            raise ValueError(f"r must be a finite number > 0, got {self.r!r}")
        r = float(self.r)
        if self.variant == "lee_kifer" and r != 1.0:
            raise ValueError("r must be 1.0 for variant='lee_kifer' (data live in the unit L1 ball)")
        if not (self.n_rounds == "auto" or (isinstance(self.n_rounds, (numbers.Integral, np.integer))
                                             and not isinstance(self.n_rounds, bool) and self.n_rounds >= 1)):
            raise ValueError(f"n_rounds must be 'auto' or an integer >= 1, got {self.n_rounds!r}")
        if self.n_public is not None:
            check_positive_int(self.n_public, "n_public")
        if not (isinstance(self.rho, numbers.Real) and 0.0 <= float(self.rho) <= 0.5):
            raise ValueError(f"rho must lie in [0, 0.5], got {self.rho!r}")
        if self.guard not in ("auto", "keep_prev", "keep_prev+project"):
            raise ValueError(f"guard must be 'auto', 'keep_prev' or 'keep_prev+project', got {self.guard!r}")
        if isinstance(self.init, str):
            if self.init not in ("sphere_packing", "random", "separated"):
                raise ValueError(f"init must be None, 'sphere_packing', 'random', 'separated' or an array, "
                                 f"got {self.init!r}")
        elif self.init is not None:
            arr = check_data(self.init, "init", n_features=n_features)
            if arr.shape[0] != k:
                raise ValueError(f"init has {arr.shape[0]} rows, expected n_clusters={k}")
        bounds = check_bounds(self.bounds, n_features)
        return eps, k, r, bounds

    # ------------------------------------------------------------------ scaling
    def _to_domain_t(self, X):
        """Map X (N, d) into the scaled domain, returned TRANSPOSED as (d, N).

        Linear map of the public box onto ``[-r, r]^d`` followed by clipping onto the box (as
        :func:`~dpclust_core.data.scale_to_domain`); lee_kifer then projects the points outside the unit L1
        ball onto it (:func:`project_l1_ball`). How many points were moved is a statistic of the private data:
        it is neither computed nor stored here (the data owner can get it from
        ``scale_to_domain(X, bounds, return_n_clipped=True)``).
        """
        low, high = self.bounds_
        r = self.r_
        n, d = X.shape
        Zt = np.empty((d, n))
        for i in range(d):  # loop over dimensions, not points
            a = 2.0 * r / (high[i] - low[i])
            np.multiply(X[:, i], a, out=Zt[i])
            Zt[i] -= low[i] * a + r
            np.clip(Zt[i], -r, r, out=Zt[i])
        if self.variant == "lee_kifer":
            l1 = np.abs(Zt[0])
            for i in range(1, d):
                l1 += np.abs(Zt[i])
            outside = np.flatnonzero(l1 > 1.0)
            if outside.size:
                Zt[:, outside] = project_l1_ball(Zt[:, outside].T).T
        return Zt

    def _project(self, C):
        if self.variant == "lee_kifer":
            return project_l1_ball(C)
        return np.clip(C, -self.r_, self.r_)

    # ------------------------------------------------------------------ fit
    def fit(self, X, y=None):
        """Run DPLloyd on X (n_samples, n_features) and return self. ``y`` is ignored."""
        X0 = check_data(X)
        n, d = X0.shape
        eps, k, r, bounds = self._check_params(n_features=d)
        k = check_n_clusters(k, n)
        self.bounds_ = bounds
        self.r_ = r
        self.scaled_bounds_ = (-r, r)
        self.n_features_in_ = d
        self.min_count_ = 1.0
        variant = self.variant
        guard = self.guard
        if guard == "auto":
            guard = "keep_prev" if variant == "lee_kifer" else "keep_prev+project"
        self.guard_ = guard

        rng = check_rng(self.random_state)
        init_rng, noise_rng = rng.spawn(2)

        # ---- initial centroids (public, data-independent)
        init = self.init
        if init is None:
            init = {"original": "random", "improved": "sphere_packing", "lee_kifer": "separated"}[variant]
        if isinstance(init, str):
            if init == "sphere_packing":
                C0 = sphere_packing_centroids(k, d, r, init_rng)
            elif init == "random":
                C0 = random_centroids(k, d, r, init_rng)
            else:  # separated
                C0 = separated_centroids(k, d, init_rng)
                C0 = C0 * r if variant != "lee_kifer" else C0
        else:
            C0 = scale_to_domain(np.asarray(init, float), (bounds[0], bounds[1]), r)
            if variant == "lee_kifer":
                C0 = project_l1_ball(C0)

        # ---- number of rounds and per-round split
        self.epsilon_m_ = None
        self.n_public_ = None
        if variant == "improved":
            n_pub = n if self.n_public is None else int(self.n_public)
            self.n_public_ = n_pub
            self.epsilon_m_ = epsilon_m(n_pub, d, k, rho=self.rho, r=r)
            T = _n_rounds(eps, self.epsilon_m_) if self.n_rounds == "auto" else int(self.n_rounds)
        else:
            T = 5 if self.n_rounds == "auto" else int(self.n_rounds)
        z = eps / T
        if variant == "lee_kifer":
            e_count = z / 2.0  # the whole count vector
            e_sums_total = z / 2.0  # the whole sum vector (L1 sensitivity 1 in the unit L1 ball)
            sens_sums = 1.0
            self.epsilon_count_, self.epsilon_sum_ = e_count, e_sums_total
        else:
            e_count, e_sum = budget_split(d, z, rho=self.rho, split=variant, r=r)
            # the k x d sums: L1 sensitivity d*r, budget d*e_sum, i.e. Lap(r / e_sum) per coordinate
            e_sums_total = d * e_sum
            sens_sums = d * r
            self.epsilon_count_, self.epsilon_sum_ = e_count, e_sum
        self.n_rounds_ = T
        self.epsilon_round_ = z

        # ---- data into the domain, stored transposed (d, N) for fast per-dimension passes
        Zt = self._to_domain_t(X0)

        ledger = PrivacyLedger(budget_epsilon=eps)
        history = []
        C = np.array(C0, dtype=float)
        self.init_centroids_ = C.copy()
        project = guard == "keep_prev+project"
        for t in range(1, T + 1):
            labels = _assign_t(Zt, C)  # every point assigned before any centroid moves (pitfall P3)
            counts, sums = _stats_t(Zt, labels, k)
            # every cluster is noised, empty or not (pitfall P4): one vectorised release each
            n_counts = laplace_mechanism(counts, 1.0, e_count, noise_rng, ledger=ledger,
                                         name=f"round {t}: counts (k={k})")
            n_sums = laplace_mechanism(sums, sens_sums, e_sums_total, noise_rng, ledger=ledger,
                                       name=f"round {t}: sums (k={k}, d={d})")
            n_counts = np.atleast_1d(n_counts)
            n_sums = np.asarray(n_sums).reshape(k, d)
            newC = self._update(C, n_counts, n_sums, project)
            history.append({
                "centroids": C.copy(),
                "noisy_counts": n_counts.copy(),
                "noisy_sums": n_sums.copy(),
                "count_scale": 1.0 / e_count,
                "sum_scale": sens_sums / e_sums_total,
                "new_centroids": newC.copy(),
            })
            C = newC
        self.history_ = history
        self.ledger_ = ledger
        self.n_iter_ = T
        self.scaled_centers_ = C
        self.cluster_centers_ = self._from_domain(C)
        return self

    def _update(self, C_prev, n_counts, n_sums, project):
        """The post-processing rule (guard): count < 1 keeps the previous centroid; optional projection."""
        ok = n_counts >= self.min_count_
        newC = C_prev.copy()
        newC[ok] = n_sums[ok] / n_counts[ok, None]
        if project:
            newC = self._project(newC)
        return newC

    def update_rule(self, previous_centroids, noisy_counts, noisy_sums):
        """Apply this fitted estimator's post-processing rule to given noisy statistics (scaled domain).

        ``update_rule(h["centroids"], h["noisy_counts"], h["noisy_sums"])`` reproduces ``h["new_centroids"]``
        for every round ``h`` of ``history_``.
        """
        self._check_fitted()
        return self._update(np.asarray(previous_centroids, float), np.asarray(noisy_counts, float),
                            np.asarray(noisy_sums, float), self.guard_ == "keep_prev+project")

    def _from_domain(self, C):
        return unscale_from_domain(C, (self.bounds_[0], self.bounds_[1]), self.r_)

    def _check_fitted(self):
        if not hasattr(self, "cluster_centers_"):
            raise ValueError("this DPLloyd is not fitted yet: call fit(X) first")

    def predict(self, X):
        """Index of the nearest centroid for every row of X, computed in the scaled domain (after the same
        clipping / projection as in ``fit``), ties to the lowest index."""
        self._check_fitted()
        X = check_data(X, n_features=self.n_features_in_)
        return _assign_t(self._to_domain_t(X), self.scaled_centers_)

    def fit_predict(self, X, y=None):
        """``fit(X)`` then ``predict(X)``. The labels are computed from the private data: they are not DP."""
        return self.fit(X).predict(X)

    def __repr__(self):
        return (f"DPLloyd(n_clusters={self.n_clusters!r}, epsilon={self.epsilon!r}, variant={self.variant!r}, "
                f"n_rounds={self.n_rounds!r})")
