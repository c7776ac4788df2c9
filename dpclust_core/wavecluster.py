"""WaveCluster and its differentially private versions (Chen, Yu & Chirkova, CIKM 2015).

Spec ``wavecluster.md``. Non-private WaveCluster (§1.8) and the four private techniques of the paper:

* ``"baseline"`` — Alg. 1: DP synthetic data from the adaptive grid (AG) of Qardaji et al. (§2.2), then
  WaveCluster on the synthetic points;
* ``"qt"`` — PrivQT, Alg. 2: Laplace noise on every cell of the count matrix (§2.3);
* ``"thr"`` — PrivTHR, Alg. 3: PrivQT plus a noisy count |Z|' of the non-positive cells of W, whose half is
  removed from the bottom of L' before the rank k' is computed (§2.4), budget split α = 0.9;
* ``"thr_em"`` — PrivTHR_EM, Alg. 4: PrivQT plus a density threshold chosen by the exponential mechanism over
  the threshold intervals of the true W (§2.5), budget split α = 0.7, with a **public** upper bound.

Conventions (spec §1.3–§1.7):

* the grid is ``g × g`` (``g^d`` in d dimensions) equal-width cells over the **public** ``bounds``; points
  outside the bounds are clipped into the border cells;
* Haar level 1 with the orthonormal scaling of PyWavelets: ``W = blocksum(M, 2×…×2) / 2^(d/2)``
  (``pywt.dwtn(M, "haar")``); ``g`` must be even;
* ``k = ceil((1 - p/100)·|L|)`` with ``L`` the positive values of ``W``; the significant cells are
  ``{W >= d} ∩ {W > 0}`` with ``d`` the k-th largest value of ``L`` (every cell tied with it is included);
* connected components with ``scipy.ndimage.label``, 8-connectivity by default (4 as an option);
* grid labels and point labels are ``-1`` for noise (non-significant) and ``0..n_clusters_-1`` otherwise.

Privacy: unbounded DP (add/remove one record), under which one record changes one cell of M by 1, hence one
cell of W by ``2^(-d/2)``, |Z| by at most 1 and the EM quality by at most 1 (spec §2.1, §2.4, §2.5). (The
paper's wording, "modifying" one record, is replace-one; that would double every sensitivity.) The released
object is the labelled grid; point labels of the private records are post-processing of it.

Public inputs (never read off the data): ``bounds``, ``grid_size``, ``p``, ``connectivity``, ``alpha``, the
Haar wavelet, PrivTHR_EM's ``upper`` and ``n_public``. The dataset size N is treated as public only where the
paper does so: the Baseline's adaptive grid sizes its grids from N (Qardaji et al.; DPComp), so there
``n_public=None`` falls back to ``len(X)`` under that documented assumption. PrivTHR_EM's threshold domain
``(0, upper]`` must not move with the data (spec §2.5), so it takes no such fallback: it needs ``upper`` or
``n_public`` explicitly.
"""
from __future__ import annotations

import math

import numpy as np
import pywt
from scipy import ndimage

from ._validation import check_bounds, check_data, check_epsilon, check_positive_int, check_rng
from .accounting import PrivacyLedger
from .mechanisms import exponential_mechanism, exponential_mechanism_probabilities, laplace_mechanism

__all__ = [
    "cell_index",
    "quantize",
    "haar_approx",
    "significant_mask",
    "label_components",
    "grid_cell_centers",
    "em_threshold_intervals",
    "em_threshold_probabilities",
    "adaptive_grid_synthetic",
    "privqt_bias",
    "WaveCluster",
    "PrivateWaveCluster",
    "METHODS",
]

METHODS = ("baseline", "qt", "thr", "thr_em")
DEFAULT_ALPHA = {"thr": 0.9, "thr_em": 0.7}


# ----------------------------------------------------------------------------- validation helpers
def _check_grid_size(grid_size):
    g = check_positive_int(grid_size, "grid_size", minimum=2)
    if g % 2:
        raise ValueError(f"grid_size must be even (Haar level 1 pairs cells), got {g}")
    return g


def _check_p(p):
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise ValueError(f"p must be a percentage in [0, 100), got {p!r}")
    p = float(p)
    if not (0.0 <= p < 100.0):
        raise ValueError(f"p must be a percentage in [0, 100), got {p!r}")
    return p


def _check_connectivity(connectivity):
    if connectivity not in (4, 8):
        raise ValueError(f"connectivity must be 4 or 8, got {connectivity!r}")
    return connectivity


def _k_of(m, p):
    """Rank k = ceil((1 - p/100) m) (spec §1.4: fits DS2's k = 144), clamped to [0, m]."""
    # round away floating error before ceil: 0.9 * 160 must give 144, not 145
    return int(min(m, max(0, math.ceil(round((1.0 - p / 100.0) * m, 9)))))


# ----------------------------------------------------------------------------- building blocks
def cell_index(X, bounds, grid_size):
    """M-cell index of every point, shape (n, d): ``floor((x - lo)/(hi - lo)·g)`` clipped to ``[0, g-1]``.

    Points outside the public ``bounds`` are clipped into the border cells (spec §1.7).
    """
    X = check_data(X)
    low, high = check_bounds(bounds, X.shape[1])
    g = check_positive_int(grid_size, "grid_size")
    idx = np.floor((X - low) / (high - low) * g).astype(np.int64)
    return np.clip(idx, 0, g - 1)


def quantize(X, bounds, grid_size):
    """The count matrix M (spec §1.1 step 1): shape ``(g,)*d``, counts of points per cell (clipped)."""
    idx = cell_index(X, bounds, grid_size)
    g = int(grid_size)
    d = idx.shape[1]
    flat = np.ravel_multi_index(tuple(idx.T), (g,) * d)
    return np.bincount(flat, minlength=g ** d).reshape((g,) * d).astype(float)


def haar_approx(M, integer_valued=None):
    """Haar level-1 approximation subband W of M with PyWavelets (spec §1.3).

    ``W = pywt.dwtn(M, "haar")["a"*d]``, which equals ``blocksum(M, 2×…×2) / 2^(d/2)`` (orthonormal Haar;
    in 2-D the sum of each 2×2 block divided by 2). Every side of M must be even.

    PyWavelets' two 1/√2 passes leave errors of one ulp, which would break the ties between equal block sums
    that the significance rule relies on (spec §1.5). When M is integer-valued (``integer_valued=None``
    detects it), W is snapped to the exact multiple of ``2^(-d/2)``.
    """
    M = np.asarray(M, dtype=float)
    if M.ndim < 1 or any(s % 2 for s in M.shape) or M.size == 0:
        raise ValueError(f"M must have even, non-zero sides for Haar level 1, got shape {M.shape}")
    if not np.all(np.isfinite(M)):
        raise ValueError("M contains NaN or infinite values")
    d = M.ndim
    W = pywt.dwtn(M, "haar", mode="zero")["a" * d]
    if integer_valued is None:
        integer_valued = bool(np.all(M == np.round(M)))
    if integer_valued:
        scale = 2.0 ** (d / 2.0)
        W = np.round(W * scale) / scale
    return W


def significant_mask(W, p):
    """Significant cells by the top-(1-p) rule (spec §1.1 step 3, §1.5).

    Returns ``(mask, k, d)``: ``L`` = positive values of W, ``k = ceil((1-p/100)|L|)``, ``d`` = k-th largest of
    L, ``mask = (W >= d) & (W > 0)`` (every value tied with d is significant). ``k = 0`` gives an empty mask and
    ``d = inf``.
    """
    W = np.asarray(W, dtype=float)
    p = _check_p(p)
    L = W[W > 0]
    k = _k_of(L.size, p)
    if k == 0:
        return np.zeros(W.shape, dtype=bool), 0, np.inf
    d = float(np.partition(L, L.size - k)[L.size - k])  # k-th largest
    return (W >= d) & (W > 0), k, d


def label_components(mask, connectivity=8):
    """Connected components of a boolean grid: labels -1 (not significant) and 0..c-1; returns (labels, c).

    ``connectivity=8`` joins diagonal neighbours (full connectivity in d dimensions, MATLAB ``bwlabeln``'s
    default); ``4`` joins face neighbours only (``scipy.ndimage.label``'s default).
    """
    mask = np.asarray(mask, dtype=bool)
    _check_connectivity(connectivity)
    rank = 1 if connectivity == 4 else mask.ndim
    structure = ndimage.generate_binary_structure(mask.ndim, rank)
    lab, c = ndimage.label(mask, structure=structure)
    return lab.astype(np.int64) - 1, int(c)


def grid_cell_centers(bounds, shape):
    """Centres (in data coordinates) of every cell of a grid of ``shape`` over ``bounds``; shape (prod, d)."""
    shape = tuple(int(s) for s in shape)
    low, high = check_bounds(bounds, len(shape))
    axes = [low[i] + (np.arange(s) + 0.5) * (high[i] - low[i]) / s for i, s in enumerate(shape)]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.column_stack([m.ravel() for m in mesh])


def privqt_bias(n_zero, p, theta=0.0):
    """PrivQT's expected rank inflation ``E[k' - k] = (1 - p)(|Z|/2 - θ)`` (spec §2.3, paper §5.2.1)."""
    return (1.0 - _check_p(p) / 100.0) * (n_zero / 2.0 - theta)


# ----------------------------------------------------------------------------- PrivTHR_EM internals
def em_threshold_intervals(W, p, upper):
    """Threshold intervals of NoisyDensityThreshold (Alg. 4, spec §2.5, repaired listing §6.1 item 4).

    ``L`` = positive values of the TRUE W sorted descending ``x1 >= ... >= xm``; ``x0 = upper`` (public) and
    ``x_{m+1} = 0``. Interval ``i = 0..m`` is ``(x_{i+1}, x_i]``, every threshold in it selects exactly ``i``
    cells of W (rank ``i``); its quality is ``q_i = -|i - k|`` with ``k = ceil((1-p)m)``.

    Returns ``(lower_ends, upper_ends, ranks, k)`` (arrays of length m + 1). Values of W above ``upper`` are capped at it.
    """
    W = np.asarray(W, dtype=float)
    L = np.sort(W[W > 0])[::-1]
    m = L.size
    if upper is None or not np.isfinite(upper) or upper <= 0:
        raise ValueError(f"upper must be a finite positive public bound, got {upper!r}")
    L = np.minimum(L, float(upper))  # values above the public bound are capped (data-independent)
    xs = np.concatenate([[float(upper)], L, [0.0]])
    k = _k_of(m, _check_p(p))
    return xs[1:], xs[:-1], np.arange(m + 1), k


def _em_scores(lo, hi, ranks, k, epsilon):
    """Scores for :func:`~dpclust_core.mechanisms.exponential_mechanism` that encode the continuous EM.

    The continuous EM draws a threshold x in (0, upper] with density ∝ exp(ε q(x)/2); the interval of rank i
    has mass ``ℓ_i·exp(-ε|i-k|/2)``. Feeding the discrete EM (sensitivity 1) the scores
    ``s_i = -|i-k| + (2/ε) log ℓ_i`` gives exactly these masses, since exp(ε s_i/2) = ℓ_i exp(-ε|i-k|/2); the
    ``log ℓ_i`` term is the base measure, not a second use of the data. Empty intervals (ties) get -inf.
    """
    length = hi - lo
    with np.errstate(divide="ignore"):
        return -np.abs(ranks - k) + (2.0 / epsilon) * np.log(length)


def em_threshold_probabilities(W, p, epsilon, upper):
    """Exact probability that PrivTHR_EM's EM picks each rank i = 0..m (spec §2.5)."""
    eps = check_epsilon(epsilon)
    lo, hi, ranks, k = em_threshold_intervals(W, p, upper)
    return exponential_mechanism_probabilities(_em_scores(lo, hi, ranks, k, eps), 1.0, eps)


def em_threshold(W, p, epsilon, upper, rng=None, *, size=None, ledger=None, name="EM threshold"):
    """NoisyDensityThreshold of Alg. 4: sample the rank i* by the EM, then d' ~ Uniform(x_{i*+1}, x_{i*}].

    Returns ``(d', i*)`` (arrays with ``size``). Uses :func:`~dpclust_core.mechanisms.exponential_mechanism`
    (Gumbel-max in log space) with the length-weighted scores of :func:`_em_scores`; records ``epsilon`` with
    sensitivity 1 in ``ledger``.
    """
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    lo, hi, ranks, k = em_threshold_intervals(W, p, upper)
    scores = _em_scores(lo, hi, ranks, k, eps)
    i = exponential_mechanism(scores, 1.0, eps, rng, size=size, ledger=ledger, name=name)
    u = rng.uniform(size=None if size is None else np.shape(i))
    d = hi[i] - u * (hi[i] - lo[i])  # uniform on (lo, hi]
    return d, i


# ----------------------------------------------------------------------------- Baseline: adaptive grid
def adaptive_grid_synthetic(X, bounds, epsilon, rng=None, *, n_public=None, c=10.0, c2=5.0, alpha=0.5,
                            ledger=None):
    """DP synthetic data from the Adaptive Grid (AG) of Qardaji et al. (ICDE 2013), spec §2.2 (DPComp defaults).

    Level 1: an ``m1 × m1`` grid, ``m1 = max(10, ceil(sqrt(N ε / c) / 4))``, counts + Lap(1/(αε)). Level 2: every
    level-1 cell with noisy count N' is split into ``m2 × m2`` cells, ``m2 = ceil(sqrt(N'(1-α)ε / c2))`` (1 if
    N' <= 0), counts + Lap(1/((1-α)ε)). Constrained inference combines both levels; then negative leaf counts
    are reset to 0 (the distortion the paper blames, §4.1), counts are rounded, and that many points are drawn
    uniformly in each leaf. 2-D only.

    ``n_public`` is the dataset size N used to size the grid; AG and DPComp treat N as **public**. If None,
    ``len(X)`` is used under that same assumption: N then shapes the grid without noise, which is ε-DP only if
    N really is public (e.g. a bounded-DP reading, or a published dataset size). Pass ``n_public`` to make the
    mechanism independent of ``len(X)``.
    Ledger: two entries (level 1: αε, level 2: (1-α)ε), sensitivity 1 each (each level partitions the domain).
    """
    X = check_data(X, n_features=2)
    low, high = check_bounds(bounds, 2)
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    if not (0.0 < alpha < 1.0):
        raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
    for name, val in (("c", c), ("c2", c2)):
        if isinstance(val, bool) or not isinstance(val, (int, float, np.integer, np.floating)) or not (
                np.isfinite(val) and val > 0):
            raise ValueError(f"{name} must be a finite positive constant, got {val!r}")
    N = X.shape[0] if n_public is None else check_positive_int(n_public, "n_public")
    Xc = np.clip(X, low, high)
    U = (Xc - low) / (high - low)  # unit square
    m1 = max(10, math.ceil(math.sqrt(N * eps / c) / 4.0))
    i1 = np.minimum((U * m1).astype(np.int64), m1 - 1)
    cell = i1[:, 0] * m1 + i1[:, 1]
    n1 = np.bincount(cell, minlength=m1 * m1).astype(float)
    e1, e2 = alpha * eps, (1.0 - alpha) * eps
    noisy1 = laplace_mechanism(n1, 1.0, e1, rng, ledger=ledger, name="AG level-1 counts (Lap(1/(a eps)))")
    m2 = np.where(noisy1 > 0, np.ceil(np.sqrt(np.maximum(noisy1, 0) * e2 / c2)), 1).astype(np.int64)
    m2 = np.maximum(m2, 1)
    n_leaf = m2 * m2
    offset = np.concatenate([[0], np.cumsum(n_leaf)[:-1]])
    # leaf of every point: position inside its level-1 cell
    local = U * m1 - i1  # in [0, 1)
    mp = m2[cell]
    j = np.minimum((local * mp[:, None]).astype(np.int64), mp[:, None] - 1)
    leaf = offset[cell] + j[:, 0] * mp + j[:, 1]
    total = int(n_leaf.sum())
    n2 = np.bincount(leaf, minlength=total).astype(float)
    noisy2 = laplace_mechanism(n2, 1.0, e2, rng, ledger=ledger, name="AG level-2 counts (Lap(1/((1-a) eps)))")
    leaf_cell = np.repeat(np.arange(m1 * m1), n_leaf)
    sub = np.bincount(leaf_cell, weights=noisy2, minlength=m1 * m1)
    a2m = (alpha * m2) ** 2
    w1 = a2m / ((1 - alpha) ** 2 + a2m)
    combined = w1 * noisy1 + (1 - w1) * sub
    adj = noisy2 + ((combined - sub) / n_leaf)[leaf_cell]
    counts = np.rint(np.maximum(adj, 0.0)).astype(np.int64)
    # leaf rectangles in the unit square
    li = np.arange(total) - offset[leaf_cell]
    mleaf = m2[leaf_cell]
    rx, ry = li // mleaf, li % mleaf
    cx, cy = leaf_cell // m1, leaf_cell % m1
    x0 = (cx + rx / mleaf) / m1
    y0 = (cy + ry / mleaf) / m1
    size = 1.0 / (m1 * mleaf)
    rep = np.repeat(np.arange(total), counts)
    pts = np.column_stack([x0[rep], y0[rep]]) + rng.uniform(size=(rep.size, 2)) * size[rep, None]
    return low + pts * (high - low)


# ----------------------------------------------------------------------------- estimators
class _WaveClusterBase:
    def _finish(self, X, mask, low, high):
        self.significant_ = mask
        self.grid_labels_, self.n_clusters_ = label_components(mask, self.connectivity)
        self.n_significant_ = int(mask.sum())
        self._low, self._high = low, high
        self.labels_ = self.predict(X)
        return self

    def predict(self, X):
        """Cluster of every point of X from the (released) labelled grid; -1 for noise. Clips to the bounds."""
        if not hasattr(self, "grid_labels_"):
            raise ValueError("this estimator is not fitted yet; call fit(X) first")
        X = check_data(X, n_features=self._low.shape[0])
        idx = cell_index(X, (self._low, self._high), self.grid_size) // 2
        return self.grid_labels_[tuple(idx.T)]


class WaveCluster(_WaveClusterBase):
    """Non-private WaveCluster (spec §1.8; Sheikholeslami et al., as used by Chen et al. §3.2).

    Parameters
    ----------
    grid_size : int
        g, the number of cells per dimension of the count matrix M (even; W is g/2 per side).
    p : float
        Density threshold in percent: the lowest p % of the positive W values are not significant.
    bounds : public domain, see :func:`~dpclust_core._validation.check_bounds`. Points outside are clipped.
    connectivity : 4 or 8 (default 8, spec §1.6).

    Attributes
    ----------
    counts_ (M), W_ (approximation subband), k_ (= ceil((1-p)|L|)), threshold_ (d), n_zero_ (|Z| = #cells
    with W <= 0), significant_ (boolean grid of W's shape), n_significant_, grid_labels_ (-1 / 0..c-1),
    n_clusters_, labels_ (per point, -1 for noise).
    """

    def __init__(self, grid_size, p, bounds, connectivity=8):
        self.grid_size = grid_size
        self.p = p
        self.bounds = bounds
        self.connectivity = connectivity

    def fit(self, X):
        self.grid_size = _check_grid_size(self.grid_size)
        self.p = _check_p(self.p)
        _check_connectivity(self.connectivity)
        X = check_data(X)
        low, high = check_bounds(self.bounds, X.shape[1])
        self.counts_ = quantize(X, (low, high), self.grid_size)
        self.W_ = haar_approx(self.counts_, integer_valued=True)
        self.n_zero_ = int((self.W_ <= 0).sum())
        mask, self.k_, self.threshold_ = significant_mask(self.W_, self.p)
        return self._finish(X, mask, low, high)


class PrivateWaveCluster(_WaveClusterBase):
    """Differentially private WaveCluster: Baseline, PrivQT, PrivTHR or PrivTHR_EM (Algs. 1–4, spec §2).

    Parameters
    ----------
    method : {"baseline", "qt", "thr", "thr_em"}
    epsilon : float
        Total budget; ``ledger_.epsilon == epsilon`` exactly.
    grid_size, p, bounds, connectivity : as in :class:`WaveCluster` (public).
    alpha : float, optional
        Share of epsilon for the noisy count matrix (ε1 = αε); the rest (ε2) goes to |Z|' (PrivTHR, default 0.9)
        or to the EM threshold (PrivTHR_EM, default 0.7) — the paper's splits (§7 and §4.4). Ignored otherwise.
    upper : float, optional (PrivTHR_EM)
        Public upper bound of the threshold domain (0, upper] (spec §2.5, §6.2 item 14); W values above it are
        capped. Default: ``n_public / 2^(d/2)``, the largest W value a dataset of ``n_public`` points can have
        (all points in one block). PrivTHR_EM needs ``upper`` or ``n_public``: a bound computed from
        ``len(X)`` would move with the data (one added record widens the domain), which breaks ε-DP exactly
        like the paper's ``(0, max W]`` — so there is no such fallback, and ``fit`` raises ``ValueError``.
    n_public : int, optional
        Public dataset size N. Baseline: sizes the AG grids; None falls back to ``len(X)``, treated as public as
        in the paper's Baseline, Qardaji et al. and DPComp (documented assumption, no budget spent).
        PrivTHR_EM: gives the default ``upper``. Ignored by PrivQT and PrivTHR.
    random_state : None, int or Generator.

    Attributes
    ----------
    noisy_counts_ (M', the Laplace-perturbed counts; for the baseline, the counts of the synthetic data),
    noisy_W_ (W'), k_prime_ (the paper's private k': ceil((1-p)|L'|) for baseline/qt, ceil((1-p)|L''|) for thr,
    the sampled rank i* for thr_em), threshold_ (d'), n_significant_ (cells with W' >= d', W' > 0),
    noisy_zero_count_ (|Z|', thr), removed_ (r = round(|Z|'/2) clamped, thr), synthetic_X_ (baseline),
    upper_ (thr_em), n_public_ (``n_public`` as given; for the baseline, the N its AG used),
    significant_, grid_labels_, n_clusters_, labels_, ledger_, epsilon1_, epsilon2_.
    Every attribute is a function of the public inputs and the noisy releases; no exact statistic of X (exact
    counts, true W, true k) is stored. ``labels_`` applies the released grid to the private points.
    """

    def __init__(self, method, epsilon, grid_size, p, bounds, random_state=None, *, connectivity=8, alpha=None,
                 upper=None, n_public=None):
        self.method = method
        self.epsilon = epsilon
        self.grid_size = grid_size
        self.p = p
        self.bounds = bounds
        self.random_state = random_state
        self.connectivity = connectivity
        self.alpha = alpha
        self.upper = upper
        self.n_public = n_public

    def _validate(self):
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        eps = check_epsilon(self.epsilon)
        g = _check_grid_size(self.grid_size)
        p = _check_p(self.p)
        _check_connectivity(self.connectivity)
        alpha = self.alpha if self.alpha is not None else DEFAULT_ALPHA.get(self.method)
        if self.method in DEFAULT_ALPHA:
            if isinstance(alpha, bool) or not isinstance(alpha, (float, int, np.floating)) or not (0 < alpha < 1):
                raise ValueError(f"alpha must lie in (0, 1), got {alpha!r}")
        if self.n_public is not None:
            check_positive_int(self.n_public, "n_public")
        if self.upper is not None:
            u = self.upper
            if (isinstance(u, bool) or not isinstance(u, (int, float, np.integer, np.floating))
                    or not np.isfinite(u) or u <= 0):
                raise ValueError(f"upper must be a finite positive public bound, got {u!r}")
        elif self.method == "thr_em" and self.n_public is None:
            raise ValueError("upper: PrivTHR_EM needs a public upper bound of the threshold domain; pass upper= "
                             "or n_public= (upper = n_public / 2^(d/2)). A bound read off len(X) or max W "
                             "would move with the data and break epsilon-DP (spec §2.5)")
        return eps, g, p, alpha

    def fit(self, X):
        eps, g, p, alpha = self._validate()
        self.grid_size, self.p = g, p
        X = check_data(X)
        d = X.shape[1]
        low, high = check_bounds(self.bounds, d)
        rng = check_rng(self.random_state)
        led = PrivacyLedger(budget_epsilon=eps)
        self.ledger_ = led
        self.n_public_ = None if self.n_public is None else int(self.n_public)
        if self.method == "baseline":
            # AG sizes its grids from N, which the paper's Baseline (via AG/DPComp) treats as public
            n_pub = X.shape[0] if self.n_public is None else int(self.n_public)
            self.n_public_ = n_pub
            self.epsilon1_, self.epsilon2_ = eps, 0.0
            self.synthetic_X_ = adaptive_grid_synthetic(X, (low, high), eps, rng, n_public=n_pub, ledger=led)
            if self.synthetic_X_.shape[0]:
                self.noisy_counts_ = quantize(self.synthetic_X_, (low, high), g)
            else:
                self.noisy_counts_ = np.zeros((g,) * d)
            self.noisy_W_ = haar_approx(self.noisy_counts_, integer_valued=True)
            mask, self.k_prime_, self.threshold_ = significant_mask(self.noisy_W_, p)
            return self._finish(X, mask, low, high)

        e1 = eps if self.method == "qt" else alpha * eps
        # ε2 as the remainder so that ε1 + ε2 == ε holds exactly in floating point
        e2 = eps - e1
        self.epsilon1_, self.epsilon2_ = e1, e2
        M = quantize(X, (low, high), g)
        # Laplace noise on EVERY cell of the public grid (one vectorised release, L1 sensitivity 1)
        self.noisy_counts_ = laplace_mechanism(M, 1.0, e1, rng, ledger=led, name="noisy count matrix M'")
        self.noisy_W_ = haar_approx(self.noisy_counts_, integer_valued=False)
        Wn = self.noisy_W_
        Lp = np.sort(Wn[Wn > 0])[::-1]  # L' descending
        if self.method == "qt":
            kp = _k_of(Lp.size, p)
            dth = float(Lp[kp - 1]) if kp > 0 else np.inf
        elif self.method == "thr":
            W = haar_approx(M, integer_valued=True)
            n_zero = float((W <= 0).sum())
            self.noisy_zero_count_ = laplace_mechanism(n_zero, 1.0, e2, rng, ledger=led,
                                                       name="noisy |Z| (non-positive cells of W)")
            r = int(np.clip(np.rint(self.noisy_zero_count_ / 2.0), 0, Lp.size))
            self.removed_ = r
            kp = _k_of(Lp.size - r, p)  # L'' = L' minus its r smallest values
            dth = float(Lp[kp - 1]) if kp > 0 else np.inf
        else:  # thr_em
            W = haar_approx(M, integer_valued=True)
            # public only: an explicit upper, or the largest W value of a dataset of n_public points
            upper = self.upper if self.upper is not None else self.n_public_ / 2.0 ** (d / 2.0)
            self.upper_ = float(upper)
            dth, kp = em_threshold(W, p, e2, self.upper_, rng, ledger=led, name="EM density threshold d'")
            dth, kp = float(dth), int(kp)
        self.k_prime_, self.threshold_ = int(kp), dth
        mask = (Wn >= dth) & (Wn > 0)
        return self._finish(X, mask, low, high)
