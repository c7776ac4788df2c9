"""Private k-means in high dimensions: an LSH-tree private coreset for the seeds, then private Lloyd steps on
clipped residuals (:class:`LSHCoresetKMeans`).

**Which method, and why.** The seeding is the central-DP form of the LSH private coreset of Chang, Ghazi, Kumar
& Manurangsi ("Locally Private k-Means in One Round", ICML 2021), as Google's differential-privacy library
implements it (``learning/clustering``): a prefix tree over SimHash bits (random hyperplanes) whose nodes are
kept and branched on **noisy counts**, one noisy average per leaf, and non-private k-means on the weighted
leaves. It was chosen over DPM (Liebenow et al., CCS 2024) because DPM splits along *coordinate axes*: on a
high-dimensional mixture such as Google's (64 clusters whose centres are spread over all 100 directions) every
single coordinate shows the 64 clusters overlapping, so there is no empty gap for its exponential mechanism to
find; random hyperplanes do not depend on the axes. Taken literally, the LSH coreset is not good enough here
(the published figure is about 4.7 times the non-private cost on Google's d = 100, k = 64 mixture, and a
direct implementation measured 6-9 times here): a leaf is rarely one cluster — random hyperplanes cut
clusters into pieces and pool pieces of different clusters — and the leaf averages are noisy because their
sensitivity is the radius of the whole domain. Four published devices fix that, each cited where it is used:

* the tree and the leaf averages are computed after a random **projection** to ``m = 10`` dimensions
  (Johnson–Lindenstrauss; dimension reduction before private clustering and "lifting" the result back is the
  route of Ghazi, Kumar & Manurangsi, NeurIPS 2020, and of Cohen-Addad et al., KDD 2022): the projected points
  have a radius about ``2 R sqrt(m/d)``, so the noise of a leaf average is several times smaller;
* the leaves are **over-seeded** (every leaf gives two seeds) and refined by one private Lloyd step in the
  projected space, then **reduced** to k centres by weighted Ward agglomeration / k-means on the refined seeds
  and their noisy counts (post-processing) — the coreset-then-cluster step of the LSH method, applied to
  better points;
* every later Lloyd step releases **clipped residuals** ``clip_r(x - c_j)`` around the current centres with a
  clipping radius ``r`` chosen by a private quantile, as CoinPress (Biswas, Dong, Kamath & Ullman, NeurIPS
  2020) does for one mean: the noise then scales with the spread of a cluster, not with the radius of the
  domain, so a final step on the full-dimensional data costs little;
* seeds from a cheap, non-interactive synopsis followed by private Lloyd steps is the thesis's **hybrid**
  (Su et al.; :class:`~dpclust_core.kmeans.HybridKMeans`), here with a synopsis that works in high dimension.

Measured with delta = 1e-6 and N private (``benchmarks/results/sota.md``): 1.04 times the best of ten
non-private k-means++ runs on the Google-style mixture (10^5 x 100, k = 64) at epsilon = 0.5, 1.05 on UCI
Letter (k = 26), 1.10 on UCI Segment (k = 7) and 1.54 on UCI Yeast (k = 10) at epsilon = 1.

**The algorithm.** Chang et al. state their algorithm for the local model; the central form has no numbered
equations there, so the equations are numbered here.

1. The public domain. ``bounds`` is a box; the algorithm needs a ball. Points are clipped into the box, centred
   at the box centre ``c0`` and projected onto the ball of radius ``R`` around it::

       x <- c0 + clip_R(clip_box(x) - c0),   clip_R(v) = v min(1, R / ||v||)                (1)

   ``R = radius`` when it is a number (a public radius, e.g. 1 for data known to lie in the unit ball); with
   ``radius=None`` the half-diagonal of the box, the smallest ball that contains it (nothing is clipped then);
   with ``radius="private"`` (the default) a private quantile of the norms (the mechanism of step 7 with
   q = 0.99, or lower down to 0.9 when ``N~ eps_R < 2000``, at 3 % of the zCDP budget)::

       R = quantile_q({||x - c0||}),  searched in [0, half-diagonal]                         (1')

   and the points are clipped onto that ball.
2. The seeding space. When ``d > 20`` (``projection_dim="auto"``) the points are projected with a public random
   orthonormal ``Q`` (d x m, m = 10) and clipped to ``R_m = min(R, 2 R sqrt(m/d))``::

       y = clip_{R_m}(Q^T (x - c0))                                                          (2)

   otherwise ``y = x - c0`` and ``R_m = R``.
3. N. ``N~ = N + Lap(1/eps_N)`` with ``eps_N^2 / 2 = n_share rho`` (see Privacy), or ``n_public``.
4. The LSH tree (SimHash prefix tree, Google's ``lsh_tree``). Level l hashes by the sign of ``<y, v_l>`` for a
   public Gaussian ``v_l``. The children of every branching node of level l - 1 get noisy counts::

       n~_v = n_v + Lap(1 / eps_l),   eps_l = sqrt(2 rho_tree / L)                            (3)

   (one Laplace release per level: one record lies in one node of a level, so the vector of counts has L1
   sensitivity 1; the L levels compose to ``L eps_l^2 / 2 = rho_tree``). A child is kept when ``n~_v >= t``,
   branched when ``n~_v >= 3 t`` and ``l < L``; kept, unbranched nodes are the leaves. Google takes
   ``t = min(10 sqrt(d) sigma / R, N / (2k))`` and depth 20; here ``t = max(N~ / (16 k), 4 / eps_l)`` (small
   leaves, but never below four noise scales) and ``L = ceil(log2(N~ / t)) + 3`` (at most 24).
5. Leaf averages (Google's ``get_private_average``)::

       mu~_v = (sum_{y in v} y + N(0, sigma_leaf^2 I_m)) / n^_v                              (4)

   with ``sigma_leaf = R_m / sqrt(2 rho_leaf)`` (L2 sensitivity ``R_m``) and ``n^_v`` the inverse-variance
   combination of ``n~_v`` and a fresh ``Lap`` count of the leaf.
6. Seeds: every leaf average twice (more copies if there are fewer than k/2 leaves), each copy moved by
   ``1e-6 R_m`` in a random direction, so that the next Voronoi assignment splits the leaf's cell in two.
7. Clipping radius: the exponential mechanism over a geometric grid of radii picks the ``clip_quantile``
   quantile of the distances of the points to their nearest seed (after Smith 2011: a piece of the grid scores
   ``-min_t |#{dist < t} - q N~|`` over its radii t, sensitivity 1, and the radius is uniform in the piece).
8. A private Lloyd step on clipped residuals (CoinPress-style)::

       c_j <- c_j + (sum_{y in S_j} clip_r(y - c_j) + N(0, sigma_r^2 I)) / (n_j + Lap(1/eps_c))   (5)

   ``sigma_r = r / sqrt(2 rho_step)`` (L2 sensitivity ``r``: one record moves one cluster's residual sum by at
   most r), the counts to L1 sensitivity 1. ``n_seed_rounds`` steps (default 2) in the seeding space; between two
   of them, seeds that lost (almost) all their points are moved to split the heaviest cells (post-processing
   of the noisy counts, like a bisecting step).
9. Reduce the seeds to k centres (post-processing): weighted Ward agglomeration followed by weighted Lloyd, or
   the best of 10 weighted k-means++ runs, whichever has the lower weighted cost, with the noisy counts of (5)
   as weights.
10. Lift (only when projected): assign every point by its projection ``y`` to the nearest reduced centre and
    release the full-dimensional averages::

        c_j = (sum_{x in S_j} (x - c0) + N(0, sigma_R^2 I_d)) / (n_j + Lap(1/eps_c))          (6)

11. A new clipping radius (7) around the full-dimensional centres, then ``n_final_rounds`` steps of (5) on the
    full-dimensional data (default: 2 without projection, 1 after one — in high dimension a step's noise is
    large and splitting its budget in two costs more than the extra step gains).

**Privacy.** (epsilon, delta)-DP under add/remove one record, with ``bounds``, a numeric ``radius`` and (if given)
``n_public`` public. The releases are composed in zero-concentrated DP (Bun & Steinke 2016) within one budget
``rho = zcdp_budget(epsilon, delta)``, the largest rho whose conversion (Canonne, Kamath & Steinke 2020, Cor. 13)
gives (epsilon, delta)-DP (:meth:`~dpclust_core.accounting.PrivacyLedger.zcdp`): a Gaussian release (4)-(6) adds
discrete Gaussian noise ``Delta / sqrt(2 rho_i)`` and is ``rho_i``-zCDP (ibid., Thm. 14); a Laplace count or an
exponential-mechanism radius at ``eps_i`` is ``eps_i^2 / 2``-zCDP (Bun & Steinke 2016, Prop. 1.4); the rho add up
under adaptive composition, and each tree level is one release over disjoint nodes. Every release goes through
:mod:`dpclust_core.mechanisms` and is recorded with its rho in ``ledger_``, whose total is (epsilon, delta). Every
choice made between releases (nodes, depth, thresholds, seeds, clipping radii, the reduction) is a function of
earlier releases and public inputs only. The split of rho: ``n_share`` to the noisy N, 3 % of the rest to the
radius of Eq. (1'), then tree 5.5 %, leaves 12.5 %, clipping radii 8.5 %, seeding steps 17 %, lift 23 %, final
steps 33.5 % (without projection the lift's share goes to the final steps); 40 % of a step's rho to its counts.
Tree levels not released (no node left to branch) cost nothing and their rho goes to the final steps: budgets
chosen from earlier releases within a fixed total are sound (a privacy filter, Rogers, Roth, Ullman & Vadhan 2016;
for Rényi DP, and so for zCDP order by order, Feldman & Zrnic 2021).
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (MAX_ALLOCATION, ArrayLike, BoundsSpec, RNGLike, Delta, Epsilon, Int, Ledger, NoneOr,
                           Options, RandomState, Real, MAX_BOUND)
from .._validation import NPublic
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, CentroidMixin, DPEstimator
from ..accounting import zcdp_budget
from ..mechanisms import exponential_mechanism_intervals, gaussian_mechanism_zcdp, laplace_mechanism

__all__ = ["LSHCoresetKMeans"]

#: Share of the zCDP budget rho (after the noisy N and the radius) of each stage, in the projected configuration.
SHARES = {"tree": 0.055, "leaves": 0.125, "quantiles": 0.085, "seed_rounds": 0.17, "lift": 0.23,
          "final_rounds": 0.335}
_LEAF_COUNT_FRACTION = 0.4  # of the leaves' rho, for the fresh leaf counts
_ROUND_COUNT_FRACTION = 0.4  # of a Lloyd step's rho, for its counts
_AUTO_DIM = 10  # projection dimension of "auto"
_AUTO_THRESHOLD = 20  # "auto" projects only when d exceeds this
_PROJ_FACTOR = 2.0  # R_m = min(R, 2 R sqrt(m / d))
_DIV = 16  # leaves of about N / (16 k) points
_NOISE_SCALES = 4.0  # ... but never below 4 Laplace scales of a level count
_EXTRA_DEPTH = 3
_MAX_DEPTH = 24
_GRID = 2048  # pieces of the geometric grid of the clipping-radius quantile
_GRID_OCTAVES = 40  # the grid spans [2R 2^-40, 2R]
_RADIUS_GRID_BITS = 48  # the released radius is a multiple of 2^(floor(log2 2R) - 48): every piece holds points
_WARD_MAX = 1500  # Ward agglomeration up to this many seeds (O(s^2) memory), k-means++ beyond
_BLOCK_ELEMS = 1 << 20
_RADIUS_SHARE = 0.03  # with radius="private": the share of rho (after N) of the ball's radius
_RADIUS_QUANTILE = 0.99  # ... which is this quantile of the norms
_MAX_K = 100_000


# ============================================================================================ small kernels
def _clip_norms(V, radius):
    """Scale every row of ``V`` (in place) to norm at most ``radius``; returns ``V``."""
    nrm = np.sqrt(np.einsum("ij,ij->i", V, V))
    over = nrm > radius
    if np.any(over):
        V[over] *= (radius / nrm[over])[:, None]
    return V


def _blocks(n, d):
    step = max(1, _BLOCK_ELEMS // max(d, 1))
    for a in range(0, n, step):
        yield a, min(n, a + step)


def _residual_stats(Y, C, r):
    """Nearest centre of every row and, per centre, the count and the sum of residuals clipped to norm r.

    One pass in blocks of rows (no n x d temporary beyond a block).
    """
    k, d = C.shape
    counts = np.zeros(k)
    sums = np.zeros((k, d))
    for a, b in _blocks(Y.shape[0], max(d, k)):
        lab = _kernels.assign(Y[a:b], C)
        D = Y[a:b] - C[lab]
        _clip_norms(D, r)
        c, s = _kernels.cluster_stats(D, lab, k)
        counts += c
        sums += s
    return counts, sums


def _min_distances(Y, C):
    return np.sqrt(_kernels.min_sq_distances(Y, C))


def _ward(C, w, k):
    """Weighted Ward agglomeration of the rows of ``C`` (weights ``w > 0``) down to k groups; their means."""
    C = np.array(C, dtype=float)
    w = np.array(w, dtype=float)
    s = C.shape[0]
    alive = np.ones(s, dtype=bool)
    cost = (w[:, None] * w[None, :] / (w[:, None] + w[None, :])) * _kernels.sq_distances(C, C)
    np.fill_diagonal(cost, np.inf)
    for _ in range(s - k):  # a loop over merges of seeds (at most _WARD_MAX), each vectorised
        a, b = divmod(int(np.argmin(cost)), s)
        tw = w[a] + w[b]
        C[a] = (w[a] * C[a] + w[b] * C[b]) / tw
        w[a] = tw
        alive[b] = False
        cost[b, :] = np.inf
        cost[:, b] = np.inf
        row = w * w[a] / (w + w[a]) * ((C - C[a]) ** 2).sum(axis=1)
        row[~alive] = np.inf
        row[a] = np.inf
        cost[a, :] = row
        cost[:, a] = row
    return C[alive]


def _reduce(C, w, k, rng):
    """k centres from weighted seeds (post-processing): Ward + Lloyd or best-of-10 k-means++, lower cost wins."""
    w = np.maximum(np.asarray(w, dtype=float), 0.0)
    keep = w > 0
    if keep.sum() < k:  # too few seeds with positive weight: keep the heaviest k, weights floored
        keep = np.zeros(C.shape[0], dtype=bool)
        keep[np.argsort(-w, kind="stable")[:k]] = True
        w = np.maximum(w, 1e-9)
    C, w = C[keep], w[keep]
    if C.shape[0] == k:
        return C.copy()
    best, best_cost = _kernels.best_of_lloyd(C, k, 10, rng, weights=w)
    if C.shape[0] <= _WARD_MAX:
        Cw, _ = _kernels.lloyd(C, _ward(C, w, k), weights=w)
        cw = _kernels.wcss(C, Cw, w)
        if cw <= best_cost:
            best = Cw
    return best


def _split_seeds(P, k, scale, rng):
    """Every row of P twice, moved by +-scale along a random direction; at least k rows (cycling)."""
    reps = max(2, -(-k // max(P.shape[0], 1)))
    S = np.repeat(P, reps, axis=0)
    U = rng.normal(size=S.shape)  # not privacy noise: a data-independent direction to split a seed
    U *= (scale / np.maximum(np.linalg.norm(U, axis=1), 1e-300))[:, None]
    S += U
    return S


# ============================================================================================ the estimator
class LSHCoresetKMeans(CentroidMixin, DPEstimator):
    __doc__ = """Private k-means for high-dimensional data: LSH-tree private coreset seeds + clipped private Lloyd.

    See the module documentation for the method, its equations (1)-(6) and the privacy argument. (epsilon,
    delta)-DP under add/remove one record, with ``bounds``, a numeric ``radius`` and ``n_public`` (if given)
    public.

    Parameters
    ----------
    n_clusters : int
        k >= 1. (Never compared with N: that comparison would itself reveal N.)
    epsilon : float
        Total epsilon of the fit (> 0).
    delta : float, default 1e-6
        Total delta of the fit, in (0, 1): the releases are composed in zCDP and converted once.
    bounds : pair or per-dimension bounds
        The **public** box of the data (``(low, high)``, ``(lows, highs)`` or shape (d, 2)); required — reading
        it off the data would leak its extremes. Points outside are clipped onto it.
    radius : "private", float or None, default "private"
        The radius R of the ball around the box centre in which the algorithm works, Eq. (1); the noise of the
        leaf averages and of the lift is proportional to it. A float is a **public** radius (e.g. 1 for data
        known to lie in the unit ball, with ``bounds=(-1, 1)``): points farther out are moved onto the ball.
        None: the half-diagonal of the box (the smallest ball containing it: nothing more is clipped).
        "private": a private 0.99-quantile of the distances to the box centre (Eq. 1', 3 % of rho),
        searched below the half-diagonal; in high dimension it is far smaller than the half-diagonal (0.9
        instead of 10 on the d = 100 benchmark mixture, where the half-diagonal makes the loss 38 times the
        non-private one instead of 1.1).
    projection_dim : "auto" or int, default "auto"
        Dimension m of the random projection used for the seeding, Eq. (2). "auto": 10 when d > 20, otherwise
        no projection. An int >= d also means no projection.
    clip_quantile : "auto" or float, default "auto"
        The quantile of the point-to-centre distances used as clipping radius of the Lloyd steps, in (0, 1).
        A lower quantile clips more (bias) but adds less noise (the noise of a step has norm about
        ``r sqrt(d)``, so it weighs more in more dimensions). "auto": 0.8 for d <= 2, 0.7 above. Measured
        against 0.6 and 0.8 on eight real and generated sets at epsilon 0.5 and 1, 0.7 is better than 0.8
        where clusters hold few points per dimension (UCI Yeast 1.54 instead of 1.61 at epsilon = 1, diabetes
        1.54 instead of 1.76, Segment 1.36 instead of 2.06 at epsilon = 0.5) and equal on the other sets in
        d >= 7, while in 2-D it was 2-10 % worse (airports, the 10^5-point k = 100 blobs).
    n_seed_rounds : int, default 2
        Private Lloyd steps (5) on the over-seeded centres in the seeding space; between two steps, centres
        that lost (almost) all their points are moved to split the heaviest cells.
    n_final_rounds : "auto" or int, default "auto"
        Private Lloyd steps (5) on the k centres in the full space; "auto": 2 without projection, 1 with one.
    """ + N_PUBLIC_DOC.replace("of its epsilon", "of its zCDP budget") + """
    n_share : float, default 0.05
        The share of the fit's zCDP budget rho spent on the noisy count of N when ``n_public`` is None (a
        Laplace count with ``eps_N = sqrt(2 n_share rho)``; in (0, 0.5]).
    random_state : None, int or numpy.random.Generator
        Source of randomness (the projection, the hashes and the noise).
    ledger : PrivacyLedger, optional
        A shared ledger (budget) asked for ``(epsilon, delta)`` before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        The private centres, in the original units.
    ledger_ : PrivacyLedger
        Every release of the fit (noisy N, tree levels, leaves, clipping radii, Lloyd steps, lift) with its zCDP
        cost ``rho``, in one zCDP group; totals (epsilon, delta).
    radius_ : float
        The radius R of Eq. (1): public, or the private quantile of Eq. (1').
    projection_dim_ : int
        The dimension of the seeding space (d when there is no projection).
    n_estimate_ : float
        The N the thresholds were computed from: the noisy count (a DP release) or ``n_public``.
    tree_depth_ : int
        The depth L of the LSH tree (a function of ``n_estimate_``).
    leaf_threshold_ : float
        The noisy count a node needs to be kept (t of step 4).
    n_leaves_ : int
        The number of leaves of the tree (a function of the noisy counts).
    coreset_centers_, coreset_weights_ : ndarray
        The private leaf averages (seeding space, relative to the box centre) and their noisy counts.
    clip_radii_ : list of float
        The clipping radii chosen privately (seeding space, then full space).
    bounds_, n_features_in_
        The public box as arrays; the number of features.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans
    >>> rng = np.random.default_rng(0)
    >>> centres = rng.uniform(-0.6, 0.6, size=(4, 30))
    >>> X = np.clip(centres[rng.integers(0, 4, 4000)] + 0.05 * rng.normal(size=(4000, 30)), -1, 1)
    >>> est = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=0).fit(X)
    >>> est.cluster_centers_.shape, est.projection_dim_
    ((4, 30), 10)
    >>> eps, delta = est.ledger_.total()
    >>> round(eps, 9), delta
    (1.0, 1e-06)
    """

    #: Post-processed releases and the public scale of their grids (see DPEstimator): the centres on the grid of
    #: the box, the coreset in the centred seeding space on that of the box's half-diagonal, its weights on the
    #: grid of a noisy count.
    _release_grids = {"cluster_centers_": "box", "coreset_centers_": lambda est: est._half_diagonal(),
                      "coreset_weights_": "count", "leaf_threshold_": "count"}

    def _half_diagonal(self):
        low, high = self.bounds_
        return float(0.5 * np.linalg.norm(np.asarray(high, float) - np.asarray(low, float)))

    _parameters = dict(
        n_clusters=Int(1, _MAX_K),
        epsilon=Epsilon(),
        delta=Delta(),
        bounds=BoundsSpec(),
        radius=NoneOr(Options("private") | Real(1e-100, MAX_BOUND)),
        projection_dim=Options("auto") | Int(1, 10_000),
        clip_quantile=Options("auto") | Real(0.0, 1.0, low_open=True, high_open=True),
        n_seed_rounds=Int(1, 20),
        n_final_rounds=Options("auto") | Int(1, 20),
        n_public=NPublic(),
        n_share=Real(0.0, 0.5, low_open=True),
        random_state=RandomState(),
        ledger=Ledger(),
    )

    def __init__(self, n_clusters: int, epsilon: float, delta: float = 1e-6, *, bounds: ArrayLike,
                 radius: Literal["private"] | float | None = "private", projection_dim: Literal["auto"] | int = "auto",
                 clip_quantile: Literal["auto"] | float = "auto", n_seed_rounds: int = 2,
                 n_final_rounds: Literal["auto"] | int = "auto",
                 n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.radius = radius
        self.projection_dim = projection_dim
        self.clip_quantile = clip_quantile
        self.n_seed_rounds = n_seed_rounds
        self.n_final_rounds = n_final_rounds
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    # ------------------------------------------------------------------------------------------ budget
    @staticmethod
    def _seeding_dim(p, d):
        if p.projection_dim == "auto":
            return _AUTO_DIM if d > _AUTO_THRESHOLD else d
        return min(int(p.projection_dim), d)

    def _plan(self, p, d, rho_rest):
        """The rho of every stage and the number of final steps (public inputs only)."""
        m = self._seeding_dim(p, d)
        projected = m < d
        sh = dict(SHARES)
        if not projected:
            sh["final_rounds"] += sh.pop("lift")
        plan = {key: rho_rest * v for key, v in sh.items()}
        n_final = (1 if projected else 2) if p.n_final_rounds == "auto" else int(p.n_final_rounds)
        plan.update(m=m, projected=projected, n_final=n_final)
        return plan

    # ------------------------------------------------------------------------------------------ fit
    def _fit(self, X, p, ledger, rng):
        with ledger.zcdp(type(self).__name__, p.epsilon, p.delta):
            self._fit_zcdp(X, p, ledger, rng, zcdp_budget(p.epsilon, p.delta))

    def _fit_zcdp(self, X, p, ledger, rng, rho):
        low, high = p.bounds
        n, d = X.shape
        k = p.n_clusters
        c0 = 0.5 * (low + high)
        half_diag = float(0.5 * np.linalg.norm(high - low))
        R = half_diag if p.radius in (None, "private") else float(p.radius)
        if not (math.isfinite(R) and R > 0):
            raise ValueError("radius: the half-diagonal of bounds is not a finite positive number; pass radius")

        # Eq. (1): box, centre, ball (a per-record map: no sensitivity is read off the data)
        Z = np.clip(X, low, high) - c0
        _clip_norms(Z, R)

        n_est, eps_n = self._estimate_n(X, p, math.sqrt(2 * p.n_share * rho), rng, ledger)
        rho_rest = rho - eps_n**2 / 2
        if p.radius == "private":  # Eq. (1'): a private high quantile of the norms replaces the half-diagonal
            eps_r = math.sqrt(2 * _RADIUS_SHARE * rho_rest)
            rho_rest -= eps_r**2 / 2
            # the quantile: 0.99, lowered (to 0.9 at most) when N~ eps is too small for the exponential mechanism
            # to tell it from the radii beyond every point (their score is -(1 - q) N~)
            q = min(_RADIUS_QUANTILE, max(0.9, 1.0 - 20.0 / (eps_r * n_est)))
            R = self._clip_radius(Z, np.zeros((1, d)), n_est, q, eps_r, 0.5 * R, rng, ledger, "ball radius")
            _clip_norms(Z, R)
        plan = self._plan(p, d, rho_rest)
        m = plan["m"]

        # Eq. (2): the seeding space
        if plan["projected"]:
            Q, _ = np.linalg.qr(rng.normal(size=(d, m)))  # not privacy noise: a public random projection
            R_m = min(R, _PROJ_FACTOR * R * math.sqrt(m / d))
            Y = _clip_norms(Z @ Q, R_m)
        else:
            Q, R_m, Y = None, R, Z

        # step 4, Eq. (3): the LSH tree on noisy counts
        leaf_of, tree_counts, eps_lvl, n_levels = self._lsh_tree(Y, n_est, k, plan["tree"], rng, ledger)
        n_leaves = tree_counts.size
        # levels never reached (no node left to branch) spent nothing: their rho goes to the final steps
        plan["final_rounds"] += max(plan["tree"] - n_levels * eps_lvl**2 / 2, 0.0)

        # Eq. (4): the leaf averages, with a fresh count combined with the tree's
        eps_leaf_count = math.sqrt(2 * _LEAF_COUNT_FRACTION * plan["leaves"])
        counts, sums = _kernels.cluster_stats(Y, leaf_of, n_leaves + 1)  # bin n_leaves: points in no leaf
        counts, sums = counts[:n_leaves], sums[:n_leaves]
        fresh = laplace_mechanism(counts, 1.0, eps_leaf_count, rng, l0_sensitivity=1, ledger=ledger,
                                  name="leaf counts")
        noisy_sums = gaussian_mechanism_zcdp(sums, R_m, (1 - _LEAF_COUNT_FRACTION) * plan["leaves"], rng,
                                             l0_sensitivity=m, ledger=ledger, name="leaf sums")
        if eps_lvl < 1e100 and eps_leaf_count < 1e100:  # inverse-variance weighting of the two counts
            var_tree, var_fresh = 2.0 / eps_lvl**2, 2.0 / eps_leaf_count**2
            weights = (tree_counts / var_tree + np.atleast_1d(fresh) / var_fresh) / (1 / var_tree + 1 / var_fresh)
        else:  # a huge epsilon (both variances 0): the same weighting through the ratio of the variances
            ratio = (eps_leaf_count / eps_lvl) ** 2  # var_tree / var_fresh
            weights = (tree_counts + np.atleast_1d(fresh) * ratio) / (1.0 + ratio)
        weights = np.maximum(weights, 1.0)
        leaf_means = _clip_norms(np.atleast_2d(noisy_sums) / weights[:, None], R_m)
        self.coreset_centers_ = leaf_means.copy()
        self.coreset_weights_ = weights.copy()

        # step 6: over-seeding
        C = _split_seeds(leaf_means, k, 1e-6 * R_m, rng)

        # steps 7-8: a clipping radius, then private Lloyd steps in the seeding space
        eps_q = math.sqrt(plan["quantiles"])  # two radii, each eps_q^2 / 2
        radii = []
        q_clip = (0.8 if d <= 2 else 0.7) if p.clip_quantile == "auto" else p.clip_quantile
        r = self._clip_radius(Y, C, n_est, q_clip, eps_q, R_m, rng, ledger, "clip radius (seeding)")
        radii.append(r)
        rho_step = plan["seed_rounds"] / p.n_seed_rounds
        w = np.ones(C.shape[0])
        for t in range(p.n_seed_rounds):
            C, w = self._lloyd_step(Y, C, r, rho_step, rng, ledger, f"seeding step {t + 1}")
            if t < p.n_seed_rounds - 1:
                C = self._respawn(C, w, r, rng)

        # step 9: reduce to k centres (post-processing)
        C = _reduce(C, w, k, rng)

        # step 10, Eq. (6): lift to the full space
        if plan["projected"]:
            C = self._lift(Z, Y, C, Q, R, plan["lift"], rng, ledger)

        # step 11: a clipping radius in the full space, then the final Lloyd steps
        r = self._clip_radius(Z, C, n_est, q_clip, eps_q, R, rng, ledger, "clip radius (final)")
        radii.append(r)
        rho_step = plan["final_rounds"] / plan["n_final"]
        for t in range(plan["n_final"]):
            C, _ = self._lloyd_step(Z, C, r, rho_step, rng, ledger, f"final step {t + 1}")
        _clip_norms(C, R)

        self.cluster_centers_ = np.clip(C + c0, low, high)
        self.radius_ = R
        self.projection_dim_ = int(m)
        self.n_estimate_ = float(n_est)
        self.n_leaves_ = int(n_leaves)
        self.clip_radii_ = [float(v) for v in radii]

    # ------------------------------------------------------------------------------------------ stages
    def _lsh_tree(self, Y, n_est, k, rho_tree, rng, ledger):
        """Eq. (3). Returns (leaf index of every point, n_leaves for points in no leaf; noisy leaf counts;
        the epsilon of one level; the number of levels released)."""
        n, m = Y.shape
        t = n_est / (_DIV * k)
        depth = 1
        for _ in range(4):  # the depth and the threshold depend on each other; settle them (public values)
            depth = int(min(_MAX_DEPTH, max(1, math.ceil(math.log2(max(n_est / max(t, 1.0), 2.0))) + _EXTRA_DEPTH)))
            t = max(n_est / (_DIV * k), _NOISE_SCALES / math.sqrt(2 * rho_tree / depth))
        t_branch = 3.0 * t
        eps_lvl = math.sqrt(2 * rho_tree / depth)
        self.tree_depth_ = depth
        self.leaf_threshold_ = float(t)

        code = np.zeros(n, dtype=np.int64)
        alive = np.ones(n, dtype=bool)  # in a branching node of the current level
        leaf_of = np.full(n, -1, dtype=np.int64)
        leaf_counts = []
        n_levels = 0
        # the root branches only when its (noisy) count reaches the branching threshold, as any node
        branching = np.array([0] if n_est >= t_branch else [], dtype=np.int64)
        for level in range(1, depth + 1):  # a loop over levels; each is one vectorised pass
            v = rng.normal(size=m)  # not privacy noise: the public SimHash direction of this level
            code = 2 * code + (Y @ v < 0)
            if branching.size == 0:
                continue  # the hash directions are drawn anyway: the random stream does not depend on data
            cand = np.sort(np.concatenate([2 * branching, 2 * branching + 1]))
            idx = np.minimum(np.searchsorted(cand, code), cand.size - 1)
            inside = alive & (cand[idx] == code)
            cnt = np.bincount(idx[inside], minlength=cand.size).astype(float)
            noisy = np.atleast_1d(laplace_mechanism(cnt, 1.0, eps_lvl, rng, l0_sensitivity=1, ledger=ledger,
                                                    name=f"tree level {level} counts"))
            n_levels += 1
            keep = noisy >= t
            branch = keep & (noisy >= t_branch) & (level < depth)
            new_leaves = np.flatnonzero(keep & ~branch)
            slot = np.full(cand.size, -1, dtype=np.int64)
            slot[new_leaves] = len(leaf_counts) + np.arange(new_leaves.size)
            leaf_counts.extend(noisy[new_leaves].tolist())
            hit = inside & (slot[idx] >= 0)
            leaf_of[hit] = slot[idx[hit]]
            alive = inside & branch[idx]
            branching = cand[branch]
        if not leaf_counts:  # nothing kept: the whole domain is one leaf (its count is the noisy N)
            leaf_of[:] = 0
            leaf_counts = [n_est]
        n_leaves = len(leaf_counts)
        leaf_of[leaf_of < 0] = n_leaves
        return leaf_of, np.asarray(leaf_counts, dtype=float), eps_lvl, n_levels

    @staticmethod
    def _clip_radius(Y, C, n_est, q, eps, r_max, rng, ledger, name):
        """Step 7: the exponential mechanism over a geometric grid of radii for the q-quantile of the distances.

        The radius released is a point of the power-of-two grid ``j·step`` of ``(0, top]`` (``step`` about
        ``top·2^-48``): piece i of the geometric grid holds the grid points in ``(edges[i], edges[i+1]]``, its
        count is the base measure, and a grid point is drawn uniformly inside the selected piece."""
        top = 2.0 * r_max
        edges = np.concatenate([[0.0], top * np.exp2(np.linspace(-_GRID_OCTAVES, 0.0, _GRID))])
        step = 2.0 ** (math.frexp(top)[1] - 1 - _RADIUS_GRID_BITS)  # public: r_max is public
        j_edges = np.floor(edges / step).astype(np.int64)  # grid point j lies in piece i iff j_edges[i] < j
        dist = np.minimum(_min_distances(Y, C), top)
        hist, _ = np.histogram(dist, bins=edges)
        below = np.concatenate([[0.0], np.cumsum(hist)[:-1]])  # #points with distance < left edge of a piece
        # score of a piece: the least |#{dist < t} - q N~| over its points t (0 for the piece holding the quantile);
        # adding or removing one record moves every #{dist < t} by at most 1, so the score's sensitivity is 1
        target = q * n_est
        scores = -np.maximum(0.0, np.maximum(below - target, target - (below + hist)))
        i, off = exponential_mechanism_intervals(scores, np.diff(j_edges), 1.0, eps, rng, ledger=ledger, name=name)
        floor_r = math.ceil(top * 2.0**-_GRID_OCTAVES / step) * step
        return float(max((j_edges[i] + 1 + off) * step, floor_r))

    @staticmethod
    def _lloyd_step(Y, C, r, rho, rng, ledger, name):
        """Eq. (5): counts (Laplace) and clipped residual sums (Gaussian, sensitivity r) of every cluster; the
        two releases cost ``rho`` in zCDP."""
        k, m = C.shape
        counts, sums = _residual_stats(Y, C, r)
        eps_c = math.sqrt(2 * _ROUND_COUNT_FRACTION * rho)
        noisy_n = np.atleast_1d(laplace_mechanism(counts, 1.0, eps_c, rng, l0_sensitivity=1, ledger=ledger,
                                                  name=f"{name} counts"))
        noisy_s = np.atleast_2d(gaussian_mechanism_zcdp(sums, r, (1 - _ROUND_COUNT_FRACTION) * rho, rng,
                                                        l0_sensitivity=m, ledger=ledger,
                                                        name=f"{name} residual sums"))
        ok = noisy_n >= max(1.0, 3.0 / eps_c)  # a cluster with too few points keeps its centre
        C = C.copy()
        C[ok] += noisy_s[ok] / noisy_n[ok, None]
        return C, np.maximum(noisy_n, 0.0)

    @staticmethod
    def _respawn(C, w, r, rng):
        """Between seeding steps: centres that (almost) lost their points split the heaviest cells instead."""
        pos = w[w > 0]
        if pos.size == 0:
            return C
        dead = np.flatnonzero(w <= 0.25 * np.median(pos))
        if dead.size == 0:
            return C
        heavy = np.argsort(-w, kind="stable")[:dead.size]
        U = rng.normal(size=(dead.size, C.shape[1]))  # not privacy noise: a direction to split a cell
        U *= (1e-6 * r / np.maximum(np.linalg.norm(U, axis=1), 1e-300))[:, None]
        C = C.copy()
        C[dead] = C[heavy] + U
        C[heavy] -= U
        return C

    @staticmethod
    def _lift(Z, Y, C, Q, R, rho, rng, ledger):
        """Eq. (6): full-dimensional private averages of the cells of the reduced centres (assigned by y)."""
        k, d = C.shape[0], Z.shape[1]
        counts = np.zeros(k)
        sums = np.zeros((k, d))
        for a, b in _blocks(Z.shape[0], max(d, k)):
            lab = _kernels.assign(Y[a:b], C)
            c, s = _kernels.cluster_stats(Z[a:b], lab, k)
            counts += c
            sums += s
        eps_c = math.sqrt(2 * _ROUND_COUNT_FRACTION * rho)
        noisy_n = np.atleast_1d(laplace_mechanism(counts, 1.0, eps_c, rng, l0_sensitivity=1, ledger=ledger,
                                                  name="lift counts"))
        noisy_s = np.atleast_2d(gaussian_mechanism_zcdp(sums, R, (1 - _ROUND_COUNT_FRACTION) * rho, rng,
                                                        l0_sensitivity=d, ledger=ledger, name="lift sums"))
        ok = noisy_n >= max(1.0, 3.0 / eps_c)
        out = C @ Q.T  # a cell without enough points: its centre mapped back by the projection
        out[ok] = noisy_s[ok] / noisy_n[ok, None]
        return _clip_norms(out, R)
