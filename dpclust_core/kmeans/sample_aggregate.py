"""GkM (GUPT's sample-and-aggregate k-means) and PGkM (PrivGene for k-means), thesis §2.6–§2.7 and §4.2
(Eq. 4.10, Algorithms 6–7). The two single-workload competitors of DPLloyd.

Both are epsilon-DP under add/remove one record, on data scaled from the public ``bounds`` into ``[-r, r]^d``
(points outside are clipped). N is private: the default number of blocks (GkM) and of rounds (PGkM) use a noisy
count bought with ``n_share`` of epsilon, unless ``n_public`` publishes N.

**GkM** (sample and aggregate): every record is sent to one of ``l`` blocks by an independent uniform draw (the
partition never looks at the data, so adding or removing a record changes exactly one block); non-private
k-means (k-means++ then a fixed number of Lloyd iterations, the shared per-chunk kernel) runs inside every block;
the k centroids of a block are put in a canonical order (sorted by their first coordinate, then the next — a
data-independent rule; the thesis does not say how blocks are aligned); half the budget estimates the output
range ``[min_i, max_i]`` of every dimension (the thesis does not say how: here 2d private quantiles of the block
centroids' coordinates, each ``epsilon/(4d)``, rank sensitivity k), clipped to the domain (the thesis's fix); the
block centroids are clipped to the range and averaged; the average gets ``Lap(2 (max_i - min_i) k d / (l epsilon))``
per coordinate, Eq. (4.10). ``l = N^0.4`` blocks by default (GUPT's choice).

*Why GkM left the data in high dimension.* The noise scale of Eq. (4.10) grows like ``k d / l``: at d = 100,
k = 64, N = 10^5 (l = 100) it is 128 times the width of the range. The thesis then clips every noisy coordinate to
the range, which sends each coordinate to one of the two ends: every centre lands on a **vertex** of the range box,
at squared distance about ``d (width/2)^2`` from the data (a NICV near 92 where one centre at the mean gives 0.37).
The fix here is a different post-processing of the same release (``aggregate="posterior_mean"``, the default):
the mean of each coordinate under a uniform prior on the released range given the noisy value and the public
noise scale. It equals the clipped value when the noise is small against the range and moves to the middle of
the range when the noise swamps it, so a hopeless release degrades to "one centre in the middle" instead of
"centres in the corners". ``aggregate="clip"`` keeps the thesis's rule.

**PGkM** (PrivGene, Algorithms 6–7): a genetic search over candidate sets of k centroids; ``pool_size`` random
candidates; each of ``R = max(8, floor(1.25e-3 N epsilon / m'))`` rounds selects ``m' = 10`` parents with the
exponential mechanism (budget ``epsilon/(R m')`` each, quality ``-WCSS``, sensitivity ``d (2r)^2`` — the largest
squared distance inside the domain), then breeds children by one-point crossover and the mutation of one random
coordinate; the last round selects one candidate with ``epsilon/R``. R is capped by the public ``max_rounds``
(default 30; the thesis's datasets need at most 26), which keeps a fit linear in N.

*Why PGkM left the data in high dimension.* Its candidates start uniform in the cube ``[-r, r]^d``, and a uniform
point of a cube in d = 100 lies at squared distance about ``d r^2 / 3 = 33`` from any fixed point. A round changes
one coordinate of each child, so R rounds move at most ``R * pool_size`` of the ``pool_size * k * d`` coordinates:
the search never leaves its random start. Here the initial candidates are drawn uniformly from a box shrunk
around the domain's centre by ``init_spread`` (default ``1/sqrt(d)``, data-independent), so every candidate starts
at squared distance about ``r^2 / 3`` from the centre of the domain, in every dimension; ``init_spread=1`` is the
thesis's initialisation.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, BoundsSpec, Epsilon, Int, Ledger, NoneOr,
                           Options, RandomState, Real, RNGLike, Spec, check_epsilon, check_int,
                           check_ledger, check_real, check_rng, HalfWidth)
from .._validation import Data, NPublic, validate_params
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, ScaledCentroidMixin
from .._grid import _grid_index, _grid_step, _interval_grid
from ..mechanisms import exponential_mechanism, exponential_mechanism_intervals, laplace_mechanism
from .synopsis import MAX_K, check_k_size, check_n

__all__ = ["GkM", "PGkM", "dp_quantile", "gkm_noise_scale", "pgkm_rounds"]

#: Largest number of candidate coordinates PGkM may hold (memory).
_MAX_BLOCK_ELEMS = 2**26
#: Largest number of block centroid coordinates ``l k d`` GkM may hold: each costs about 100 bytes in the fit
#: (centroids, per-block uniforms, sorting, the private quantiles), so 2^22 keeps a fit under ~0.5 GB even when a
#: huge public N asks for more blocks than there are records (2^26 went past 2 GB for 60 records).
_MAX_GKM_BLOCK_ELEMS = 2**22
#: Default public cap on PGkM's number of rounds.
PGKM_MAX_ROUNDS = 30


# ============================================================================ formulas
@validate_params(widths=Data(ndim=1), k=Int(1), n_blocks=Int(1), epsilon=Epsilon())
def gkm_noise_scale(widths: ArrayLike, k: int, n_blocks: int, epsilon: float) -> np.ndarray:
    """Laplace scale of Eq. (4.10) per dimension: ``2 (max_i - min_i) k d / (l epsilon)``.

    Parameters
    ----------
    widths : array of d floats
        The (released) range widths ``max_i - min_i``.
    k, n_blocks : int
        Number of clusters and of blocks l.
    epsilon : float
        GkM's total budget (half of it buys the noise).

    Returns
    -------
    ndarray of d floats

    Examples
    --------
    >>> gkm_noise_scale([0.5, 2.0], 5, 100, 0.1).tolist()
    [1.0, 4.0]
    """
    if np.any(widths < 0):
        raise ValueError("widths must be >= 0")
    return 2.0 * widths * k * widths.size / (n_blocks * epsilon)


def _pgkm_rounds(n, eps, m_sel, x=1.25e-3, max_rounds=None):
    raw = x * n * eps / m_sel
    R = 8 if not raw >= 8 else (int(math.floor(raw)) if raw < 2**62 else 2**62)
    return R if max_rounds is None else min(R, max_rounds)


@validate_params(n=check_n, epsilon=Epsilon(), m_sel=Int(1), x=Real(0.0, low_open=True), max_rounds=NoneOr(Int(1)))
def pgkm_rounds(n: float, epsilon: float, m_sel: int = 10, x: float = 1.25e-3, max_rounds: int | None = None) -> int:
    """PrivGene's number of rounds, ``max(8, floor(x N epsilon / m'))`` with ``x = 1.25e-3`` (thesis §4.2).

    Parameters
    ----------
    n : float
        N (public or already released).
    epsilon : float
    m_sel : int, default 10
        m', the selections per round.
    x : float, default 1.25e-3
    max_rounds : int, optional
        A public cap (the estimator's ``max_rounds``).

    Returns
    -------
    int

    Examples
    --------
    >>> pgkm_rounds(107091, 2.0), pgkm_rounds(10**12, 1.0, max_rounds=50)
    (26, 50)
    """
    return _pgkm_rounds(n, epsilon, m_sel, x, max_rounds)


# ============================================================================ private quantile
def _dp_quantile(values, q, lo, hi, epsilon, sensitivity, rng, ledger, name):
    step, j_lo, j_hi = _interval_grid(lo, hi)
    s = np.sort(_grid_index(values, step, j_lo, j_hi))
    n = s.size
    # run i: the grid points j with exactly i snapped values below them, s_(i) < j <= s_(i+1)
    edges = np.concatenate([[j_lo - 1], s, [j_hi]])
    util = -np.abs(np.arange(n + 1) - q * n)
    i, off = exponential_mechanism_intervals(util, np.diff(edges), sensitivity, epsilon, rng, ledger=ledger,
                                             name=name)
    return float((edges[i] + 1 + off) * step)  # a point of the public grid: exact whatever the data


@validate_params(values=Data(ndim=1), q=Real(0.0, 1.0), lo=Real(), hi=Real())
def dp_quantile(values: ArrayLike, q: float, lo: float, hi: float, epsilon: float, sensitivity: float = 1.0,
                rng: RNGLike = None, *, ledger: PrivacyLedger | None = None, name: str = "dp quantile") -> float:
    """An epsilon-DP q-quantile of ``values`` in ``[lo, hi]`` by the exponential mechanism (Smith 2011).

    The output is a point of a public power-of-two grid of ``[lo, hi]``
    (:func:`~dpclust_core.mechanisms.interval_grid`, a step of about ``(hi - lo)·2^-40``), onto which the values
    are snapped. The grid points between consecutive sorted values form runs; run ``i`` (the points with ``i``
    values below them) has utility ``-|i - q n|`` and probability proportional to its number of points times
    ``exp(epsilon * utility / (2 * sensitivity))``, and the output is uniform inside it
    (:func:`~dpclust_core.mechanisms.exponential_mechanism_intervals`). Smith's continuous version, a uniform
    real number between two data values, is not private in floating point: ``x + u·(x' - x)`` between data
    values ``x, x'`` carries them in its low-order bits.

    Parameters
    ----------
    values : 1-D array
        The private values (clipped to ``[lo, hi]``).
    q : float
        The quantile, in [0, 1].
    lo, hi : float
        The public range, lo < hi.
    epsilon : float
    sensitivity : float, default 1
        How far one record can move any rank (k for GkM's block centroids: one record changes one block, i.e.
        k values).
    rng : None, int or Generator
    ledger : PrivacyLedger, optional
    name : str
        The ledger entry.

    Returns
    -------
    float
        A multiple of the grid step, in ``[lo, hi]``.

    Examples
    --------
    >>> v = np.linspace(-0.5, 0.5, 2001)
    >>> abs(dp_quantile(v, 0.5, -1.0, 1.0, 5.0, rng=0)) < 0.01
    True
    """
    if not lo < hi:
        raise ValueError(f"lo and hi must satisfy lo < hi, got lo={lo!r}, hi={hi!r}")
    with np.errstate(over="ignore"):
        if not math.isfinite(hi - lo):
            raise ValueError("lo and hi: the width hi - lo overflows a float")
    eps = check_epsilon(epsilon)
    sens = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    rng = check_rng(rng, "rng")
    check_ledger(ledger)
    return _dp_quantile(values, q, lo, hi, eps, sens, rng, ledger, str(name))


# ============================================================================ GkM
def _posterior_mean(y, b, a, c):
    """E[mu | y] for mu uniform on [a, c] and y = mu + Lap(b) (all arrays broadcast; b > 0, a <= c).

    The posterior density is proportional to exp(-|mu - yc| / b) on [a, c] with yc = clip(y, a, c), so the mean
    is ``yc + b^2 (g(v/b) - g(u/b)) / (Z_u + Z_v)`` with ``u = yc - a``, ``v = c - yc``, ``Z_t = b (1 - e^(-t/b))``
    and ``g(x) = 1 - e^(-x) (1 + x)``. It is the clipped value when b is small and (a + c)/2 when b is large.
    """
    yc = np.clip(y, a, c)
    u, v = (yc - a) / b, (c - yc) / b

    def g(x):  # 1 - e^-x (1 + x), accurate for small x
        s = np.minimum(x, 1e-3)  # the series only where it is used (no overflow on huge x)
        return np.where(x < 1e-3, s * s / 2.0 - s ** 3 / 3.0 + s ** 4 / 8.0, -np.expm1(-x) - x * np.exp(-x))

    z = -np.expm1(-u) - np.expm1(-v)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = yc + b * (g(v) - g(u)) / z
    return np.where(z > 0, np.clip(out, a, c), yc)


class _QuantilePairSpec(Spec):
    def __call__(self, value, name):
        if isinstance(value, (str, bytes)):
            raise BadTypeError(f"{name} must be a pair (low, high) of quantiles in [0, 1], got a string")
        try:
            a, b = value
        except (TypeError, ValueError):
            raise BadTypeError(f"{name} must be a pair (low, high) of quantiles in [0, 1], got {value!r}") from None
        a, b = check_real(a, name, low=0.0, high=1.0), check_real(b, name, low=0.0, high=1.0)
        if not a < b:
            raise ValueError(f"{name} must satisfy 0 <= low < high <= 1, got {value!r}")
        return a, b


class GkM(ScaledCentroidMixin, DPEstimator):
    __doc__ = """GUPT sample-and-aggregate k-means with the thesis's range fix, Eq. (4.10).

    epsilon-DP under add/remove one record: the partition into blocks is data-independent and every record lands
    in exactly one block, so one record changes one block's k centroids; the range and the noisy average are
    released with ``epsilon/2`` each (or the whole epsilon on the noise with ``range_estimation="domain"``).

    Parameters
    ----------
    n_clusters : int
        k >= 1.
    epsilon : float
        Total budget (``n_share`` of it buys the noisy N when the block count is derived from N).
    bounds : pair or per-dimension bounds
        The **public** domain (required); data are scaled into ``[-r, r]^d`` and clipped.
    n_blocks : int, optional
        l, the number of blocks. None: ``round(N^block_exponent)`` with the noisy N (or ``n_public``), capped so
        that the block centroids (``l k d`` numbers) stay below 2^22.
    block_exponent : float, default 0.4
        GUPT's and the thesis's exponent, in (0, 1].
    range_estimation : {"quantile", "domain"}, default "quantile"
        "quantile": half the budget buys 2d private quantiles (``range_quantiles``) of the block centroids'
        coordinates (rank sensitivity k, ``epsilon/(4d)`` each), the other half the noise (Eq. 4.10 with its
        factor 2). "domain": ``[-r, r]`` is the range and the whole budget buys the noise.
    range_quantiles : (float, float), default (0.01, 0.99)
        The quantiles used as ``min_i`` and ``max_i``.
    n_iter : int, default 20
        Lloyd iterations inside each block (after k-means++ on the block's own points; non-private).
    aggregate : {"posterior_mean", "clip"}, default "posterior_mean"
        Post-processing of the noisy average: "clip" clips each coordinate to the range (the thesis; sends the
        centres to the corners of the range when the noise is larger than the range, as in high d);
        "posterior_mean" takes its mean under a uniform prior on the range (module doc).
    r : float, default 1
        Half-width of the scaled domain (at most 10^6).
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger asked for ``epsilon`` before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        Original units; ``scaled_centers_`` in ``[-r, r]^d``.
    ledger_ : PrivacyLedger
        Noisy N (if used), 2d quantiles, d noisy averages: total epsilon.
    n_blocks_ : int
        l (from the noisy N, or ``n_blocks``, or ``n_public``).
    n_estimate_ : float or None
        The noisy N (a DP release), ``n_public``, or None when ``n_blocks`` is given.
    range_ : ndarray (d, 2)
        The released range (scaled domain).
    noise_scale_ : ndarray (d,)
        The Laplace scale of every coordinate of the average, from the released range.
    n_iter_ : int
        ``n_iter`` (the public number of Lloyd iterations of every block).

    Examples
    --------
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(5000, 3, 2, n_outliers=0, random_state=0)
    >>> g = GkM(3, 1.0, bounds=(-1, 1), random_state=0).fit(X)
    >>> g.cluster_centers_.shape, round(g.ledger_.epsilon, 12), len(g.ledger_.entries)
    ((3, 2), 1.0, 7)
    """

    #: Post-processed releases and the public scale of their grids (see DPEstimator).
    _release_grids = {**DPEstimator._release_grids, "noise_scale_": "domain"}
    _parameters = dict(
        n_clusters=Int(1, MAX_K), epsilon=Epsilon(), bounds=BoundsSpec(),
        n_blocks=NoneOr(Int(1, MAX_ALLOCATION)), block_exponent=Real(0.0, 1.0, low_open=True),
        range_estimation=Options("quantile", "domain"), range_quantiles=_QuantilePairSpec(),
        n_iter=Int(1, 10_000), aggregate=Options("posterior_mean", "clip"), r=HalfWidth(),
        n_public=NPublic(), n_share=Real(0.0, 0.5, low_open=True), random_state=RandomState(),
        ledger=Ledger())

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike, n_blocks: int | None = None,
                 block_exponent: float = 0.4, range_estimation: Literal["quantile", "domain"] = "quantile",
                 range_quantiles: tuple[float, float] = (0.01, 0.99), n_iter: int = 20,
                 aggregate: Literal["posterior_mean", "clip"] = "posterior_mean", r: float = 1.0,
                 n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.n_blocks = n_blocks
        self.block_exponent = block_exponent
        self.range_estimation = range_estimation
        self.range_quantiles = range_quantiles
        self.n_iter = n_iter
        self.aggregate = aggregate
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        k, d = p.n_clusters, X.shape[1]
        r = p.r
        check_k_size(k, d)
        cap = max(1, _MAX_GKM_BLOCK_ELEMS // (k * d))
        if p.n_blocks is not None:
            if p.n_blocks > cap:
                raise ValueError(f"n_blocks={p.n_blocks} is too large: l x k x d block centroids must stay below "
                                 f"{_MAX_GKM_BLOCK_ELEMS} (at most {cap} blocks here)")
            ell, n_est, eps_n = p.n_blocks, None, 0.0
        else:
            n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
            ell = int(min(cap, max(1.0, round(math.exp(p.block_exponent * math.log(n_est))))))
        eps = p.epsilon - eps_n
        Z = _kernels.scale_into(X, low, high, r)
        q_lo, q_hi = p.range_quantiles

        # 1. an independent uniform block for every record (data-independent), k-means in every block
        block = rng.integers(0, ell, size=Z.shape[0])
        cents, sizes = _kernels.chunk_kmeans(Z, block, ell, k, rng, n_iter=p.n_iter)
        cents[sizes == 0] = 0.0  # an empty block outputs the centre of the domain (a data-independent constant)
        # canonical, data-independent alignment: sort each block's centroids lexicographically
        idx = np.lexsort([cents[:, :, i] for i in range(d - 1, -1, -1)], axis=-1)
        cents = np.take_along_axis(cents, idx[:, :, None], axis=1)

        # 2. the output range: 2d private quantiles (rank sensitivity k), clipped to the domain
        rng_range = np.empty((d, 2))
        if p.range_estimation == "quantile":
            e_q = eps / (4.0 * d)
            for i in range(d):  # a loop over dimensions
                vals = cents[:, :, i].ravel()
                a = _dp_quantile(vals, q_lo, -r, r, e_q, float(k), rng, ledger, f"GkM range: dim {i} lower quantile")
                b = _dp_quantile(vals, q_hi, -r, r, e_q, float(k), rng, ledger, f"GkM range: dim {i} upper quantile")
                rng_range[i] = (max(min(a, b), -r), min(max(a, b), r))
            eps_noise = eps / 2.0
        else:
            rng_range[:, 0], rng_range[:, 1] = -r, r
            eps_noise = eps
        # 3. clip the block outputs to the range (what bounds the sensitivity), average, Laplace per dimension
        cents = np.clip(cents, rng_range[:, 0], rng_range[:, 1])
        avg = cents.mean(axis=0)  # (k, d)
        widths = rng_range[:, 1] - rng_range[:, 0]  # exact: differences of grid points
        noisy = np.empty((k, d))
        scale = np.empty(d)
        step = _grid_step(2.0 * r)
        for i in range(d):
            # dimension i: k averages, each moved by <= width_i / l by one record: L1 sensitivity k width_i / l,
            # rounded up onto the public grid of the domain; budget eps_noise / d, i.e.
            # Lap(k d width_i / (l eps_noise)) per coordinate = Eq. (4.10)
            sens = math.ceil(k * widths[i] / ell / step) * step
            scale[i] = sens / (eps_noise / d)
            noisy[:, i] = laplace_mechanism(avg[:, i], sens, eps_noise / d, rng, l0_sensitivity=k, ledger=ledger,
                                            name=f"GkM noisy average: dim {i}")
        # 4. post-processing of the release (public noise scale and range only)
        if p.aggregate == "clip":
            noisy = np.clip(noisy, rng_range[:, 0], rng_range[:, 1])
        else:
            noisy = _posterior_mean(noisy, np.maximum(scale, 1e-300), -r, r)
        self.r_ = r
        self.n_blocks_ = int(ell)
        self.n_estimate_ = None if n_est is None else float(n_est)
        self.range_ = rng_range
        self.noise_scale_ = scale
        self.n_iter_ = p.n_iter
        self.scaled_centers_ = noisy
        self.cluster_centers_ = _kernels.unscale_from(noisy, low, high, r)


# ============================================================================ PGkM
def _augmented(C):
    """Rows ``[-2 o, ||o||^2]`` of the centres C (m, d): their product with ``[z; 1]`` is ``||o||^2 - 2 z.o``."""
    A = np.empty((C.shape[0], C.shape[1] + 1))
    A[:, :-1] = -2.0 * C
    A[:, -1] = np.einsum("ij,ij->i", C, C)
    return A


def _point_blocks(Z, n_blk):
    """Blocks ``[z; 1]`` (d + 1, n_blk) of the points, transposed (one block in memory at a time)."""
    n, d = Z.shape
    for a in range(0, n, n_blk):
        Za = np.empty((d + 1, min(n, a + n_blk) - a))
        Za[:d] = Z[a:a + n_blk].T
        Za[d] = 1.0
        yield Za


def _wcss_pool(Z, cands, block_elems=1 << 17):
    """Non-normalised k-means cost of every candidate (P, k, d) on Z (N, d), in blocks of points and candidates.

    ``sum_l min_j ||z_l - o_j||^2 = sum_l ||z_l||^2 + sum_l min_j (||o_j||^2 - 2 z_l . o_j)``; the scores of a
    block of candidates on a block of points are one matrix product (``[-2 o, ||o||^2]`` times ``[z; 1]``),
    laid out (candidates, k, points), so the minimum over the k centroids is an elementwise minimum of k slices.
    Memory is bounded (``block_elems`` numbers) whatever N; float64 throughout, so the computed quality is exact
    to ~1e-16 relative (the exponential mechanism's sensitivity bound is not eroded by rounding).
    """
    P, k, d = cands.shape
    n = Z.shape[0]
    C = _augmented(cands.reshape(P * k, d))
    out = np.zeros(P)
    n_blk = int(min(n, max(1024, block_elems // (P * k))))
    p_blk = int(max(1, min(P, block_elems // (n_blk * k))))
    for Za in _point_blocks(Z, n_blk):  # blocks of points ...
        for s in range(0, P, p_blk):  # ... and of candidates, each one matrix product
            S = C[s * k:(s + p_blk) * k] @ Za
            out[s:s + p_blk] += S.reshape(-1, k, S.shape[1]).min(axis=1).sum(axis=1)
    out += float(np.einsum("ij,ij->", Z, Z))
    return np.maximum(out, 0.0)


def _range_min_layout(n_par, k):
    """Rows of a sparse table of range minima over the k centroids of ``n_par`` parents: level l holds, for
    every parent p and start i, the minimum over centroids ``[i, i + 2^l)`` at row ``off[l] + p width[l] + i``.
    Returns ``(off, width, n_rows)``."""
    off, width, rows, lvl = [], [], 0, 0
    while (1 << lvl) <= k:
        off.append(rows)
        width.append(k - (1 << lvl) + 1)
        rows += n_par * width[-1]
        lvl += 1
    return np.array(off), np.array(width), rows


def _range_rows(off, width, level_of, p, lo, hi, empty_row):
    """Two table rows whose minimum is the minimum over centroids ``[lo, hi)`` of parent p (vectorised);
    an empty range points both at ``empty_row`` (+inf)."""
    length = hi - lo
    lvl = level_of[np.maximum(length, 1)]
    base = off[lvl] + p * width[lvl]
    r1 = base + lo
    r2 = base + hi - (1 << lvl)
    empty = length <= 0
    r1[empty] = empty_row
    r2[empty] = empty_row
    return r1, r2


def _wcss_children(Z, parents, first, second, cut_c, mut_c, cands, block_elems=1 << 18):
    """:func:`_wcss_pool` of the children of one PGkM round, reusing the parents' distances (trusting).

    Child i has the centroids ``[0, cut_c[i])`` of parent ``first[i]``, a new centroid at ``cut_c[i]`` (the one
    the crossover cut through), the centroids ``(cut_c[i], k)`` of parent ``second[i]``, and centroid
    ``mut_c[i]`` replaced by its mutation; ``cands`` (P, k, d) holds the children themselves (only their two new
    centroids are read). The scores ``||o||^2 - 2 z.o`` of the ``n_par k`` parent centroids and of the 2 new
    centroids of every child are one matrix product per block of points; each child's minimum over its k
    centroids is then the minimum of 8 rows: three ranges of the parents' centroids (2 rows each of a sparse
    table of range minima) and the 2 new centroids. The same numbers as :func:`_wcss_pool` (each child's cost is
    a minimum over the same scores) with about ``(n_par k + 2P) / (P k)`` of its multiplications.
    """
    P, k, d = cands.shape
    n_par = parents.shape[0]
    n = Z.shape[0]
    ar = np.arange(P)
    off, width, n_sparse = _range_min_layout(n_par, k)
    empty_row = n_sparse
    new0 = empty_row + 1  # new0 + 2i: the cut centroid of child i; new0 + 2i + 1: its mutated centroid
    n_rows = new0 + 2 * P
    level_of = np.zeros(k + 1, dtype=np.int64)
    level_of[1:] = [int(v).bit_length() - 1 for v in range(1, k + 1)]
    new = np.empty((2 * P, d))
    new[0::2] = cands[ar, cut_c]
    new[1::2] = cands[ar, mut_c]
    A = _augmented(np.concatenate([parents.reshape(n_par * k, d), new]))
    # the 8 rows whose minimum is child i's score; unused slots point at the +inf row. With m = mut_c < c =
    # cut_c: [0, m) and (m, c) of the first parent, (c, k) of the second; with m > c: [0, c) of the first,
    # (c, m) and (m, k) of the second; with m = c: [0, c) of the first and (c, k) of the second.
    same = mut_c == cut_c
    below = mut_c < cut_c
    lo, hi = np.minimum(mut_c, cut_c), np.maximum(mut_c, cut_c)
    rows = np.empty((P, 8), dtype=np.int64)
    rows[:, 0], rows[:, 1] = _range_rows(off, width, level_of, first, np.zeros(P, dtype=np.int64), lo, empty_row)
    m1, m2 = _range_rows(off, width, level_of, np.where(below, first, second), lo + 1, hi, empty_row)
    rows[:, 2] = np.where(same, empty_row, m1)
    rows[:, 3] = np.where(same, empty_row, m2)
    rows[:, 4], rows[:, 5] = _range_rows(off, width, level_of, second, hi + 1, np.full(P, k, dtype=np.int64),
                                         empty_row)
    rows[:, 6] = new0 + 2 * ar
    rows[:, 7] = np.where(same, empty_row, new0 + 2 * ar + 1)
    out = np.zeros(P)
    n_blk = int(min(n, max(32, block_elems // n_rows)))
    table = np.empty((n_rows, n_blk))
    table[empty_row] = np.inf
    for Za in _point_blocks(Z, n_blk):
        nb = Za.shape[1]
        T = table[:, :nb] if nb < n_blk else table
        S = A @ Za
        T[:n_par * k] = S[:n_par * k]
        T[new0:] = S[n_par * k:]
        for lvl in range(1, off.size):  # a loop over the log2(k) levels of the sparse table
            h = 1 << (lvl - 1)
            prev = T[off[lvl - 1]:off[lvl - 1] + n_par * width[lvl - 1]].reshape(n_par, width[lvl - 1], nb)
            cur = T[off[lvl]:off[lvl] + n_par * width[lvl]].reshape(n_par, width[lvl], nb)
            np.minimum(prev[:, :width[lvl]], prev[:, h:h + width[lvl]], out=cur)
        best = T[rows[:, 0]]
        for j in range(1, 8):  # a loop over the 8 slots; each a gather of P rows
            np.minimum(best, T[rows[:, j]], out=best)
        out += best.sum(axis=1)
    out += float(np.einsum("ij,ij->", Z, Z))
    return np.maximum(out, 0.0)


class _RoundsSpec(Spec):
    def __call__(self, value, name):
        if isinstance(value, str):
            if value != "auto":
                raise ValueError(f"{name} must be 'auto' or an integer >= 1, got {value!r}")
            return value
        return check_int(value, name, 1, 100_000)


class PGkM(ScaledCentroidMixin, DPEstimator):
    __doc__ = """PrivGene for k-means, Algorithms 6–7 (a genetic search with exponential-mechanism selections).

    epsilon-DP under add/remove one record: ``(R - 1) m'`` selections of ``epsilon/(R m')`` and a final one of
    ``epsilon/R`` (sequential composition), each an exponential mechanism with quality ``-WCSS`` of sensitivity
    ``d (2r)^2``; the candidates themselves are data-independent.

    Parameters
    ----------
    n_clusters : int
        k >= 1.
    epsilon : float
        Total budget (``n_share`` of it buys the noisy N when ``n_rounds="auto"``).
    bounds : pair or per-dimension bounds
        The **public** domain (required); data are scaled into ``[-r, r]^d`` and clipped.
    pool_size : int, default 200
        m, the candidates per round.
    n_select : int, default 10
        m', the parents selected per round (<= pool_size).
    n_rounds : "auto" or int, default "auto"
        R. "auto": ``max(8, floor(1.25e-3 N epsilon / m'))`` with the noisy N (or ``n_public``).
    max_rounds : int, default 30
        A public cap on R (the thesis's largest dataset needs 26); it keeps the fit linear in N.
    mutation_scale, mutation_decay : float
        The mutation's uniform half-width ``mutation_scale * r`` at round 1, times ``mutation_decay`` every round
        (the thesis does not specify the mutation).
    init_spread : float, optional
        The initial candidates are uniform in ``[-s r, s r]^d`` with ``s = init_spread``; None (default) means
        ``1/sqrt(d)`` (see the module doc), 1.0 the thesis's uniform draw from the whole domain.
    r : float, default 1
        Half-width of the scaled domain (at most 10^6).
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger asked for ``epsilon`` before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        Original units; ``scaled_centers_`` in ``[-r, r]^d``.
    ledger_ : PrivacyLedger
        Noisy N (with "auto"), ``(R - 1) m'`` selections and the final one: total epsilon.
    n_rounds_ : int
        R; ``n_iter_`` the same.
    n_estimate_ : float or None
        The noisy N or ``n_public`` (None with an int ``n_rounds``).
    sensitivity_ : float
        ``d (2r)^2``.

    Examples
    --------
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(2000, 3, 2, n_outliers=0, random_state=0)
    >>> p = PGkM(3, 1.0, bounds=(-1, 1), pool_size=40, n_select=4, random_state=0).fit(X)
    >>> p.n_rounds_, round(p.ledger_.epsilon, 12), len(p.ledger_.entries) == 1 + (p.n_rounds_ - 1) * 4 + 1
    (8, 1.0, True)
    """

    _parameters = dict(
        n_clusters=Int(1, MAX_K), epsilon=Epsilon(), bounds=BoundsSpec(), pool_size=Int(2, 100_000),
        n_select=Int(1, 100_000), n_rounds=_RoundsSpec(), max_rounds=Int(1, 100_000),
        mutation_scale=Real(0.0, low_open=True), mutation_decay=Real(0.0, 1.0, low_open=True),
        init_spread=NoneOr(Real(0.0, 1.0, low_open=True)), r=HalfWidth(),
        n_public=NPublic(),
        n_share=Real(0.0, 0.5, low_open=True), random_state=RandomState(), ledger=Ledger())

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike, pool_size: int = 200,
                 n_select: int = 10, n_rounds: int | Literal["auto"] = "auto", max_rounds: int = PGKM_MAX_ROUNDS,
                 mutation_scale: float = 0.5, mutation_decay: float = 0.8, init_spread: float | None = None,
                 r: float = 1.0, n_public: float | None = None, n_share: float = 0.05, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.pool_size = pool_size
        self.n_select = n_select
        self.n_rounds = n_rounds
        self.max_rounds = max_rounds
        self.mutation_scale = mutation_scale
        self.mutation_decay = mutation_decay
        self.init_spread = init_spread
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        k, d = p.n_clusters, X.shape[1]
        r = p.r
        pool, m_sel = p.pool_size, p.n_select
        if m_sel > pool:
            raise ValueError(f"n_select={m_sel} must be <= pool_size={pool}")
        h = k * d
        if pool * h > _MAX_BLOCK_ELEMS:
            raise ValueError(f"pool_size={pool} x n_clusters={k} x {d} features is too large "
                             f"(at most {_MAX_BLOCK_ELEMS} candidate coordinates)")
        if p.n_rounds == "auto":
            n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
        else:
            n_est, eps_n = None, 0.0
        eps = p.epsilon - eps_n
        R = _pgkm_rounds(n_est, eps, m_sel) if p.n_rounds == "auto" else p.n_rounds
        R = min(R, p.max_rounds)
        Z = _kernels.scale_into(X, low, high, r)
        sens = d * (2.0 * r) ** 2
        spread = (1.0 / math.sqrt(d) if p.init_spread is None else p.init_spread) * r
        omega = spread * (2.0 * rng.random((pool, k, d)) - 1.0)
        scale = p.mutation_scale * r
        q = -_wcss_pool(Z, omega)  # the random first pool; later pools reuse their parents' distances
        for t in range(1, R):
            # DPSELECT: m' selections without replacement, each eps/(R m'), quality -J
            chosen = []
            for s in range(m_sel):
                i = exponential_mechanism(q, sens, eps / (R * m_sel), rng, ledger=ledger,
                                          name=f"PGkM round {t}: selection {s + 1}")
                chosen.append(i)
                q[i] = -np.inf
            par = omega[chosen]
            parents = par.reshape(m_sel, h)
            # crossover: pool/2 pairs of random parents, one cut point in (0, h), swap tails
            n_pairs = pool // 2
            ia = rng.integers(0, m_sel, n_pairs)
            ib = rng.integers(0, m_sel, n_pairs)
            a, b = parents[ia], parents[ib]
            if h > 1:
                cut = rng.integers(1, h, size=n_pairs)
                tail = np.arange(h)[None, :] >= cut[:, None]
                c1, c2 = np.where(tail, b, a), np.where(tail, a, b)
            else:
                cut = np.zeros(n_pairs, dtype=np.int64)
                c1, c2 = a.copy(), b.copy()
            kids = np.concatenate([c1, c2])
            # child i: centroids [0, cut // d) of `first`, the centroid the cut runs through, the rest of `second`
            first, second, cut_c = np.concatenate([ia, ib]), np.concatenate([ib, ia]), np.concatenate([cut, cut]) // d
            if kids.shape[0] < pool:
                extra = rng.integers(0, m_sel, pool - kids.shape[0])
                kids = np.concatenate([kids, parents[extra]])
                first, second = np.concatenate([first, extra]), np.concatenate([second, extra])
                cut_c = np.concatenate([cut_c, np.zeros(extra.size, dtype=np.int64)])
            # mutation: one random coordinate of every child, uniform in [-scale, scale]
            j = rng.integers(0, h, size=kids.shape[0])
            kids[np.arange(kids.shape[0]), j] += scale * (2.0 * rng.random(kids.shape[0]) - 1.0)
            omega = np.clip(kids, -r, r).reshape(pool, k, d)
            scale *= p.mutation_decay
            # the children's costs: only their cut and mutated centroids are new (the rest are the parents')
            q = -_wcss_children(Z, par, first, second, cut_c, j // d, omega)
        i = exponential_mechanism(q, sens, eps / R, rng, ledger=ledger, name=f"PGkM round {R}: final selection")
        self.r_ = r
        self.sensitivity_ = sens
        self.n_rounds_ = int(R)
        self.n_iter_ = int(R)
        self.n_estimate_ = None if n_est is None else float(n_est)
        self.scaled_centers_ = omega[i]
        self.cluster_centers_ = _kernels.unscale_from(omega[i], low, high, r)
