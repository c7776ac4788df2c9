"""GkM (GUPT's sample-and-aggregate k-means) and PGkM (PrivGene for k-means), thesis §4.2 / §2.6
(spec ``dp-basics-and-kmeans.md`` §2.7–§2.8, §3.7, §3.9). The two single-workload competitors of DPLloyd.

Both use add/remove-one-record (unbounded) DP on data scaled from the public ``bounds`` into ``[-r, r]^d``
(points outside are clipped).

**GkM** (sample and aggregate): every record is sent to one of ``l`` blocks by an independent uniform draw (so
adding or removing a record changes exactly one block); non-private Lloyd runs inside every block; the k
centroids of a block are put in a canonical order (sorted by their first coordinate, then the next — a
data-independent rule; the thesis does not say how blocks are aligned); half the budget estimates the output
range ``[min_i, max_i]`` of every dimension (the thesis does not say how: here 2d exponential-mechanism quantiles
of the block centroids' coordinates, each ``epsilon/(4d)``, rank utility with sensitivity k), clipped to the domain
(the thesis's fix); block centroids are clipped to the range and averaged; the average gets
``Lap(2 (max_i - min_i) k d / (l epsilon))`` per coordinate, Eq. (4.10). ``l = N^0.4`` blocks by default (GUPT's
choice: blocks of about ``N^0.6`` records; N public, spec §3.9). The partition uses only the estimator's own random
stream, never the data: it is data-independent, and every record lands in exactly one block.

**PGkM** (PrivGene, Algorithms 6–7): a genetic search over candidate sets of k centroids; 200 random candidates
from the domain; each of ``R = max(8, floor(1.25e-3 N epsilon / m'))`` rounds selects ``m' = 10`` parents with the
exponential mechanism (budget ``epsilon/(R m')`` each, quality ``-WCSS``, sensitivity ``d (2r)^2`` — the largest
squared distance inside the domain, the safe add/remove choice; the thesis does not state it), then breeds 200
children by one-point crossover and a mutation of one random coordinate (uniform noise whose half-width
``mutation_scale * r`` decays by ``mutation_decay`` per round — unspecified in the thesis); the last round
selects one candidate with ``epsilon/R``. Total ``(R-1) m' epsilon/(R m') + epsilon/R = epsilon``.

N is treated as public in the default block count (GkM) and in the number of rounds (PGkM), as in the thesis
(``n_public``; None = ``len(X)``).
"""
from __future__ import annotations

import numpy as np

from .._validation import (check_bounds, check_data, check_epsilon, check_n_clusters, check_positive_int,
                           check_rng)
from ..accounting import PrivacyLedger
from ..data import scale_to_domain, unscale_from_domain
from ..mechanisms import exponential_mechanism, laplace_mechanism
from ._base import CentroidPredictorMixin
from .grid import _check_n, weighted_lloyd

__all__ = ["GkM", "PGkM", "dp_quantile", "gkm_noise_scale", "pgkm_rounds"]


def gkm_noise_scale(widths, k, n_blocks, epsilon):
    """Laplace scale of Eq. (4.10) per dimension: ``2 (max_i - min_i) k d / (l epsilon)``."""
    widths = np.asarray(widths, dtype=float)
    d = widths.size
    return 2.0 * widths * k * d / (n_blocks * check_epsilon(epsilon))


def pgkm_rounds(n, epsilon, m_sel=10, x=1.25e-3):
    """PrivGene's number of rounds, ``max(8, floor(x N epsilon / m'))`` with ``x = 1.25e-3`` (spec §3.7)."""
    return int(max(8, np.floor(x * _check_n(n) * check_epsilon(epsilon) / m_sel)))


def dp_quantile(values, q, lo, hi, epsilon, sensitivity, rng=None, *, ledger=None, name="dp quantile"):
    """An epsilon-DP q-quantile of ``values`` in ``[lo, hi]`` by the exponential mechanism (Smith 2011).

    The output is uniform inside one of the intervals between consecutive sorted values; interval ``i`` (with
    ``i`` values below it) has utility ``-|i - q n|`` and probability proportional to its length times
    ``exp(epsilon * utility / (2 * sensitivity))``. ``sensitivity`` bounds how much one record moves any rank
    (k for the block centroids of GkM: one record changes one block, i.e. k values).
    """
    values = check_data(values, "values", ndim=1)
    if isinstance(q, bool) or not (np.isscalar(q) and 0.0 <= float(q) <= 1.0):
        raise ValueError(f"q must be a number in [0, 1], got {q!r}")
    if not (np.isscalar(lo) and np.isscalar(hi) and np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise ValueError(f"lo and hi must be finite with lo < hi, got lo={lo!r}, hi={hi!r}")
    epsilon = check_epsilon(epsilon)
    rng = check_rng(rng)
    v = np.sort(np.clip(values, lo, hi))
    n = v.size
    edges = np.concatenate([[lo], v, [hi]])
    lengths = np.diff(edges)
    util = -np.abs(np.arange(n + 1) - q * n)
    with np.errstate(divide="ignore"):
        # log-length folded into the score; zero-length intervals are excluded (-inf)
        scores = util + (2.0 * sensitivity / epsilon) * np.log(lengths)
    i = exponential_mechanism(scores, sensitivity, epsilon, rng, ledger=ledger, name=name)
    return float(rng.uniform(edges[i], edges[i + 1]))


def _fit_common(est, X):
    eps = check_epsilon(est.epsilon)
    if not (np.isscalar(est.r) and np.isfinite(est.r) and est.r > 0):
        raise ValueError(f"r must be finite and > 0, got {est.r!r}")
    X = check_data(X)
    k = check_n_clusters(est.n_clusters, X.shape[0])
    low, high = check_bounds(est.bounds, X.shape[1])
    n_pub = X.shape[0] if est.n_public is None else _check_n(est.n_public, "n_public")
    return X, eps, k, low, high, n_pub


class GkM(CentroidPredictorMixin):
    """GUPT sample-and-aggregate k-means with the thesis's range fix, Eq. (4.10) (spec §3.9, pitfall P14).

    Parameters
    ----------
    n_clusters, epsilon, bounds : k, total budget, public domain (data scaled into ``[-r, r]^d``, clipped).
    n_blocks : int or None
        l, the number of blocks; None = ``round(N^block_exponent)`` with N public (``n_public``).
    block_exponent : float
        0.4 as in GUPT / the thesis.
    range_estimation : "quantile" (default) or "domain"
        "quantile": spend ``epsilon/2`` on 2d DP quantiles (``range_quantiles``) of the block centroids' coordinates,
        then ``epsilon/2`` on the noise (Eq. 4.10, with its factor 2). "domain": use ``[-r, r]`` as the range and
        the whole budget for the noise (scale ``2 r k d / (l epsilon)`` per coordinate; a tutorial variant).
    range_quantiles : (float, float)
        The quantiles used as ``min_i`` and ``max_i``.
    n_iter : int
        Lloyd iterations inside each block (non-private; Forgy initialisation from the block's own points).
    n_public, r, random_state : as elsewhere.

    Attributes
    ----------
    cluster_centers_, scaled_centers_, ledger_ (total = epsilon), n_iter_ (= ``n_iter``, the public cap on the
    block Lloyd iterations; a block that converges earlier stays fixed), n_blocks_, range_ ((d, 2) estimated
    range, scaled domain; a DP release), noise_scale_ (per dimension, from the released range).
    Every attribute is a function of public inputs and the noisy releases: the exact block outputs and their
    iteration counts are statistics of the raw data and are NOT kept on the estimator.
    """

    def __init__(self, n_clusters=8, epsilon=1.0, bounds=(-1.0, 1.0), *, n_blocks=None, block_exponent=0.4,
                 range_estimation="quantile", range_quantiles=(0.01, 0.99), n_iter=20, n_public=None, r=1.0,
                 random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.n_blocks = n_blocks
        self.block_exponent = block_exponent
        self.range_estimation = range_estimation
        self.range_quantiles = range_quantiles
        self.n_iter = n_iter
        self.n_public = n_public
        self.r = r
        self.random_state = random_state

    def fit(self, X, y=None):
        X, eps, k, low, high, n_pub = _fit_common(self, X)
        if self.range_estimation not in ("quantile", "domain"):
            raise ValueError(f"range_estimation must be 'quantile' or 'domain', got {self.range_estimation!r}")
        q_lo, q_hi = (float(v) for v in self.range_quantiles)
        if not (0.0 <= q_lo < q_hi <= 1.0):
            raise ValueError(f"range_quantiles must satisfy 0 <= lo < hi <= 1, got {self.range_quantiles!r}")
        n_iter = check_positive_int(self.n_iter, "n_iter")
        if self.n_blocks is None:
            if not (0 < self.block_exponent <= 1):
                raise ValueError(f"block_exponent must lie in (0, 1], got {self.block_exponent!r}")
            ell = max(1, int(round(n_pub ** self.block_exponent)))
        else:
            ell = check_positive_int(self.n_blocks, "n_blocks")
        n, d = X.shape
        r = float(self.r)
        rng = check_rng(self.random_state)
        Z = scale_to_domain(X, (low, high), r=r)

        # 1. independent uniform block of every record; pad blocks to equal length with zero-weight points
        block = rng.integers(0, ell, size=n)
        order = np.argsort(block, kind="stable")
        sizes = np.bincount(block, minlength=ell)
        size_max = max(int(sizes.max()), 1)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        pos = np.arange(n) - np.repeat(starts, sizes)
        P = np.zeros((ell, size_max, d))
        W = np.zeros((ell, size_max))
        P[block[order], pos] = Z[order]
        W[block[order], pos] = 1.0
        # 2. non-private Lloyd in every block, batched; Forgy init from the block's points (uniform if empty)
        pick = (rng.random((ell, k)) * np.maximum(sizes, 1)[:, None]).astype(int)
        init = P[np.arange(ell)[:, None], pick]
        empty = sizes == 0
        init[empty] = rng.uniform(-r, r, size=(int(empty.sum()), k, d))
        cents, _ = weighted_lloyd(P, W, init, r=r, max_iter=n_iter, tol=0.0)
        # canonical, data-independent alignment: sort each block's centroids lexicographically
        keys = [cents[:, :, i] for i in range(d - 1, -1, -1)]
        idx = np.lexsort(keys, axis=-1)
        cents = np.take_along_axis(cents, idx[:, :, None], axis=1)

        ledger = PrivacyLedger(budget_epsilon=eps)
        rng_range = np.empty((d, 2))
        if self.range_estimation == "quantile":
            e_q = eps / (4.0 * d)
            for i in range(d):  # loop over dimensions
                vals = cents[:, :, i].ravel()
                a = dp_quantile(vals, q_lo, -r, r, e_q, float(k), rng, ledger=ledger,
                                name=f"GkM range: dim {i} lower quantile")
                b = dp_quantile(vals, q_hi, -r, r, e_q, float(k), rng, ledger=ledger,
                                name=f"GkM range: dim {i} upper quantile")
                a, b = min(a, b), max(a, b)
                rng_range[i] = (max(a, -r), min(b, r))  # the thesis's fix: clip the range to the domain
            eps_noise = eps / 2.0
        else:
            rng_range[:, 0], rng_range[:, 1] = -r, r
            eps_noise = eps
        cents = np.clip(cents, rng_range[:, 0], rng_range[:, 1])  # block outputs clipped to the range (P14)
        avg = cents.mean(axis=0)  # (k, d)
        widths = rng_range[:, 1] - rng_range[:, 0]
        noisy = np.empty((k, d))
        scale = np.empty(d)
        for i in range(d):
            # dimension i: k averages, each moved by <= width_i / l by one record -> L1 sensitivity k width_i / l;
            # budget eps_noise / d, i.e. Lap(k d width_i / (l eps_noise)) per coordinate = Eq. (4.10)
            sens = k * widths[i] / ell
            scale[i] = sens / (eps_noise / d)
            if sens > 0:
                noisy[:, i] = laplace_mechanism(avg[:, i], sens, eps_noise / d, rng, ledger=ledger,
                                                name=f"GkM noisy average: dim {i}")
            else:  # zero-width range: the average is the constant range point; record the spend anyway
                noisy[:, i] = avg[:, i]
                ledger.record(f"GkM noisy average: dim {i} (zero width)", eps_noise / d, 0.0, 0.0)
        noisy = np.clip(noisy, -r, r)
        self.n_blocks_ = ell
        self.range_ = rng_range
        self.noise_scale_ = scale
        self.n_iter_ = n_iter  # public; the blocks' own iteration counts depend on the data and are not kept
        self.ledger_ = ledger
        self.bounds_ = (low, high)
        self.scaled_centers_ = noisy
        self.cluster_centers_ = unscale_from_domain(noisy, (low, high), r=r)
        return self


def _wcss_many(Z, cands, chunk_elems=4_000_000):
    """Non-normalised k-means cost of every candidate (P, k, d) on Z (N, d), chunked over candidates.

    ``sum_l min_j ||z_l - o_j||^2 = sum_l ||z_l||^2 + sum_l min_j (||o_j||^2 - 2 z_l . o_j)``; the score matrix is
    laid out (candidates, k, N) so the min over k is an elementwise minimum of k slices (float32 for speed;
    the relative error ~1e-7 is far below the exponential mechanism's noise).
    """
    P, k, d = cands.shape
    n = Z.shape[0]
    Zt = np.ascontiguousarray(Z.T, dtype=np.float32)
    const = float((Z * Z).sum())
    out = np.empty(P)
    step = max(1, chunk_elems // max(1, n * k))
    for s in range(0, P, step):
        C = cands[s:s + step].reshape(-1, d).astype(np.float32)
        S = C @ Zt  # (p k, N)
        S *= -2.0
        S += (C * C).sum(axis=1)[:, None]
        out[s:s + step] = S.reshape(-1, k, n).min(axis=1).sum(axis=1, dtype=np.float64) + const
    return np.maximum(out, 0.0)


class PGkM(CentroidPredictorMixin):
    """PrivGene for k-means, Algorithms 6–7 (spec §2.8, §3.7).

    Parameters
    ----------
    n_clusters, epsilon, bounds : k, total budget, public domain (data scaled into ``[-r, r]^d``, clipped).
    pool_size : int, default 200 (m); n_select : int, default 10 (m').
    n_rounds : "auto" (``max(8, floor(1.25e-3 N eps / m'))``) or int >= 1.
    mutation_scale, mutation_decay : the mutation's uniform half-width ``mutation_scale * r`` at round 1, times
        ``mutation_decay`` every round (not specified in the thesis).
    n_public, r, random_state : as elsewhere.

    Attributes
    ----------
    cluster_centers_, scaled_centers_, ledger_ (``(R-1) m' + 1`` selections summing to epsilon), n_iter_ (= R),
    sensitivity_ (``d (2r)^2``).
    """

    def __init__(self, n_clusters=8, epsilon=1.0, bounds=(-1.0, 1.0), *, pool_size=200, n_select=10,
                 n_rounds="auto", mutation_scale=0.5, mutation_decay=0.8, n_public=None, r=1.0, random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.pool_size = pool_size
        self.n_select = n_select
        self.n_rounds = n_rounds
        self.mutation_scale = mutation_scale
        self.mutation_decay = mutation_decay
        self.n_public = n_public
        self.r = r
        self.random_state = random_state

    def fit(self, X, y=None):
        X, eps, k, low, high, n_pub = _fit_common(self, X)
        pool = check_positive_int(self.pool_size, "pool_size", minimum=2)
        m_sel = check_positive_int(self.n_select, "n_select")
        if m_sel > pool:
            raise ValueError(f"n_select={m_sel} must be <= pool_size={pool}")
        R = pgkm_rounds(n_pub, eps, m_sel) if self.n_rounds == "auto" else check_positive_int(self.n_rounds,
                                                                                             "n_rounds")
        if not (self.mutation_scale > 0 and 0 < self.mutation_decay <= 1):
            raise ValueError("mutation_scale must be > 0 and mutation_decay in (0, 1]")
        n, d = X.shape
        r = float(self.r)
        rng = check_rng(self.random_state)
        Z = scale_to_domain(X, (low, high), r=r)
        sens = d * (2.0 * r) ** 2
        h = k * d
        ledger = PrivacyLedger(budget_epsilon=eps)
        omega = rng.uniform(-r, r, size=(pool, k, d))
        scale = self.mutation_scale * r
        for t in range(1, R):
            # DPSELECT: m' selections without replacement, each eps/(R m'), quality -J
            q = -_wcss_many(Z, omega)
            chosen = []
            for s in range(m_sel):
                i = exponential_mechanism(q, sens, eps / (R * m_sel), rng, ledger=ledger,
                                          name=f"PGkM round {t}: selection {s + 1}")
                chosen.append(i)
                q[i] = -np.inf
            parents = omega[chosen].reshape(m_sel, h)
            # crossover: pool/2 pairs of random parents, one cut point in (0, h), swap tails
            n_pairs = pool // 2
            a = parents[rng.integers(0, m_sel, n_pairs)]
            b = parents[rng.integers(0, m_sel, n_pairs)]
            if h > 1:
                cut = rng.integers(1, h, size=n_pairs)[:, None]
                tail = np.arange(h)[None, :] >= cut
                c1, c2 = np.where(tail, b, a), np.where(tail, a, b)
            else:
                c1, c2 = a.copy(), b.copy()
            kids = np.concatenate([c1, c2])
            if kids.shape[0] < pool:
                kids = np.concatenate([kids, parents[rng.integers(0, m_sel, pool - kids.shape[0])]])
            # mutation: one random coordinate of every child
            j = rng.integers(0, h, size=kids.shape[0])
            kids[np.arange(kids.shape[0]), j] += rng.uniform(-scale, scale, size=kids.shape[0])
            omega = np.clip(kids, -r, r).reshape(pool, k, d)
            scale *= self.mutation_decay
        q = -_wcss_many(Z, omega)
        i = exponential_mechanism(q, sens, eps / R, rng, ledger=ledger, name=f"PGkM round {R}: final selection")
        best = omega[i]
        self.sensitivity_ = sens
        self.n_iter_ = R
        self.ledger_ = ledger
        self.bounds_ = (low, high)
        self.scaled_centers_ = best
        self.cluster_centers_ = unscale_from_domain(best, (low, high), r=r)
        return self
