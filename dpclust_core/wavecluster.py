"""WaveCluster and its differentially private versions (Chen, Yu & Chirkova, CIKM 2015).

Non-private WaveCluster (paper §3.2) and the four private techniques of the paper:

* ``"baseline"`` — Alg. 1: DP synthetic data from the adaptive grid (AG) of Qardaji et al. (ICDE 2013), then
  WaveCluster on the synthetic points;
* ``"qt"`` — PrivQT, Alg. 2: Laplace noise on every cell of the count matrix;
* ``"thr"`` — PrivTHR, Alg. 3: PrivQT plus a noisy count ``|Z|'`` of the non-positive cells of W, half of which is
  removed from the bottom of L' before the rank k' is computed; budget split α = 0.9;
* ``"thr_em"`` — PrivTHR_EM, Alg. 4: PrivQT plus a density threshold chosen by the exponential mechanism over
  the threshold intervals of the true W; budget split α = 0.7, with a **public** (or privately estimated)
  upper end of the threshold domain.

Conventions:

* the grid is ``g × g`` (``g^d`` in d dimensions) equal-width cells over the **public** ``bounds``; points
  outside the bounds are clipped into the border cells. ``g^d`` may not exceed the public cap
  :data:`MAX_CELLS` (checked before anything is allocated);
* Haar level 1 with the orthonormal scaling of PyWavelets: ``W = blocksum(M, 2×…×2) / 2^(d/2)``
  (``pywt.dwtn(M, "haar")``); ``g`` must be even;
* ``k = ceil((1 - p/100)·|L|)`` with ``L`` the positive values of ``W``; the significant cells are
  ``{W >= d} ∩ {W > 0}`` with ``d`` the k-th largest value of ``L`` (every cell tied with it is included);
* connected components with ``scipy.ndimage.label``, 8-connectivity by default (4 as an option);
* grid labels and point labels are ``-1`` for noise (non-significant) and ``0..n_clusters_-1`` otherwise.

Privacy: unbounded DP (add/remove one record), under which one record changes one cell of M by 1, hence one
cell of W by ``2^(-d/2)``, ``|Z|`` by at most 1 and the EM quality by at most 1. (The paper's wording, "modifying"
one record, is replace-one; that would double every sensitivity.) The released object is the **labelled
grid**; ``PrivateWaveCluster.predict`` labels any point from it (post-processing). The private estimator
stores no per-record labels of its training data.

Public inputs (never read off the data): ``bounds``, ``grid_size``, ``p``, ``connectivity``, ``alpha``, the
Haar wavelet, PrivTHR_EM's ``upper`` and ``n_public``. The dataset size N is **private by default**: the
Baseline's adaptive grid sizes its grids from N, and PrivTHR_EM's default threshold domain ``(0, N/2^(d/2)]``
needs N; both spend a share ``n_share`` of ε on a noisy count unless the caller publishes N with ``n_public``.

The paper's evaluation protocol (its metrics and the clustering-first-then-classification trees) is the book's
(``dpclust_book.evaluation``).
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pywt
from scipy import ndimage
from sklearn.base import ClusterMixin

from ._validation import (ArrayLike, BadTypeError, RNGLike, Bool, BoundsSpec, Data, Epsilon, Int, Ledger, NoneOr,
                          Options, Real, RandomState, Rng, budget_shares, check_bounds, check_data, check_int,
                          validate_params)
from ._validation import NPublic
from .accounting import PrivacyLedger
from .base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, Estimator
from ._grid import _grid_index, _grid_steps, _interval_grid, _snap
from .mechanisms import (exponential_mechanism_intervals, exponential_mechanism_probabilities, laplace_grid,
                         laplace_mechanism)

__all__ = [
    "cell_index",
    "quantize",
    "haar_approx",
    "significant_mask",
    "label_components",
    "grid_cell_centers",
    "em_threshold_intervals",
    "em_threshold_probabilities",
    "em_threshold",
    "adaptive_grid_synthetic",
    "WaveCluster",
    "PrivateWaveCluster",
    "METHODS",
    "MAX_CELLS",
]

METHODS = ("baseline", "qt", "thr", "thr_em")
DEFAULT_ALPHA = {"thr": 0.9, "thr_em": 0.7}

#: Public cap on the number of cells ``g^d`` of a grid (2**25 cells: 256 MiB per float array). A larger grid is
#: refused with a ValueError before anything is allocated.
MAX_CELLS = 2**25
#: Public cap on the number of leaves of the AG baseline's two-level grid (its sizes grow with N·ε).
MAX_AG_CELLS = 2**22
#: Public cap on the number of synthetic points the AG baseline draws (reached only at absurdly small ε, where
#: the leaf counts are then scaled down proportionally — post-processing of the noisy counts).
MAX_SYNTHETIC = 2**24


# ============================================================================= parameter specs and checks
class _GridSize(Int):
    """An even integer g >= 2 (Haar level 1 pairs cells), at most :data:`MAX_CELLS`."""

    def __init__(self):
        super().__init__(2, MAX_CELLS)

    def __call__(self, value, name):
        g = super().__call__(value, name)
        if g % 2:
            raise ValueError(f"{name} must be even (Haar level 1 pairs cells), got {g}")
        return g


class _Connectivity(Int):
    """4 (face neighbours) or 8 (every neighbour, diagonals included)."""

    def __init__(self):
        super().__init__(4, 8)

    def __call__(self, value, name):
        c = super().__call__(value, name)
        if c not in (4, 8):
            raise ValueError(f"{name} must be 4 or 8, got {value!r}")
        return c


#: A density threshold in percent, in [0, 100); the public upper end of a density; a number of grid cells per side.
_P, _UPPER, _CELLS = Real(0.0, 100.0, high_open=True), Real(0.0, low_open=True), Int(1, MAX_CELLS)


def _check_cells(g, d, name="grid_size"):
    """Refuse a grid of ``g^d`` cells above :data:`MAX_CELLS` (before anything is allocated)."""
    cells = int(g) ** int(d)
    if cells > MAX_CELLS:
        raise ValueError(f"{name}={g} in {d} dimensions gives g^d = {cells:.3g} cells, above the public cap "
                         f"MAX_CELLS = {MAX_CELLS} (use a coarser grid)")
    return cells


def _check_array(a, name, *, allow_bool=False, min_ndim=1):
    """A finite, non-empty real array (strings, objects, complex numbers and NaN/inf refused, naming ``name``)."""
    if isinstance(a, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of real numbers, got a string")
    try:
        raw = np.asarray(a)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    kinds = "biuf" if allow_bool else "iuf"
    if raw.dtype.kind not in kinds:
        raise BadTypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    if raw.ndim < min_ndim or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty array with at least {min_ndim} dimension(s), "
                         f"got shape {raw.shape}")
    if raw.dtype.kind == "f" and not np.all(np.isfinite(raw)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return raw


def _grid_array(a, name):
    """:func:`_check_array` as floats."""
    return _check_array(a, name).astype(float)


def _k_of(m, p):
    """Rank k = ceil((1 - p/100) m) (fits DS2's k = 144), clamped to [0, m]."""
    # round away floating error before ceil: 0.9 * 160 must give 144, not 145
    return int(min(m, max(0, math.ceil(round((1.0 - p / 100.0) * m, 9)))))


# ============================================================================= trusting kernels
def _cell_index(X, low, high, g):
    t = X - low  # floor((x - lo) / (hi - lo) * g), computed in place (one float and one int temporary)
    t /= high - low
    t *= g
    np.floor(t, out=t)
    np.clip(t, 0, g - 1, out=t)
    return t.astype(np.int64)


def _counts(idx, g, d):
    """The count matrix from the cell indices (n, d)."""
    flat = np.ravel_multi_index(tuple(idx.T), (g,) * d) if idx.shape[0] else np.zeros(0, dtype=np.int64)
    return np.bincount(flat, minlength=g ** d).reshape((g,) * d).astype(float)


def _quantize(X, low, high, g):
    return _counts(_cell_index(X, low, high, g), g, X.shape[1])


def _haar(M, integer_valued):
    d = M.ndim
    W = pywt.dwtn(M, "haar", mode="zero")["a" * d]
    if integer_valued:
        scale = 2.0 ** (d / 2.0)
        W = np.round(W * scale) / scale
    return W


def _significant(W, p):
    L = W[W > 0]
    k = _k_of(L.size, p)
    if k == 0:
        return np.zeros(W.shape, dtype=bool), 0, np.inf
    d = float(np.partition(L, L.size - k)[L.size - k])  # k-th largest
    return (W >= d) & (W > 0), k, d


def _label(mask, connectivity):
    rank = 1 if connectivity == 4 else mask.ndim
    structure = ndimage.generate_binary_structure(mask.ndim, rank)
    lab, c = ndimage.label(mask, structure=structure)
    return lab.astype(np.int64) - 1, int(c)


def _intervals(W, p, upper):
    L = np.sort(W[W > 0])[::-1]
    m = L.size
    L = np.minimum(L, upper)  # values above the public bound are capped (data-independent)
    xs = np.concatenate([[upper], L, [0.0]])
    return xs[1:], xs[:-1], np.arange(m + 1), _k_of(m, p)


#: The grid of a noisy count (:func:`~dpclust_core.mechanisms.laplace_grid` at sensitivity 1): that of PrivTHR_EM's
#: default ``upper``; the noisy Haar values W' are on it divided by 2^d.
_COUNT_STEP = laplace_grid(1.0)[0]


def _ceil_to(x, step):
    return float(math.ceil(x / step) * step)


def _grid_runs(W, p, upper):
    """The threshold intervals as runs of the public grid of (0, upper]: ``(step, starts, counts, k)``.

    The grid is :func:`~dpclust_core.mechanisms.interval_grid` of ``[0, upper]`` (its points ``j·step``,
    ``1 <= j <= j_max``, lie in (0, upper]); the values of L are snapped onto it (a per-cell deterministic map).
    Interval ``i`` holds the grid points ``starts[i] + 1 .. starts[i] + counts[i]``, every one of which is a
    threshold in ``(x_{i+1}, x_i]`` of the snapped values."""
    step, _, j_max = _interval_grid(0.0, upper)
    L = np.sort(W[W > 0])[::-1]
    s = _grid_index(np.minimum(L, upper), step, 0, j_max)
    xs = np.concatenate([[j_max], s, [0]])
    return step, xs[1:], xs[:-1] - xs[1:], _k_of(L.size, p)


def _em_threshold(W, p, epsilon, upper, rng, size, ledger, name):
    step, starts, counts, k = _grid_runs(W, p, upper)
    ranks = np.arange(counts.size)
    i, off = exponential_mechanism_intervals(-np.abs(ranks - k).astype(float), counts, 1.0, epsilon, rng,
                                             size=size, ledger=ledger, name=name)
    d = (starts[i] + 1 + off) * step  # a point of the public grid: exact whatever the data
    return (float(d), i) if size is None else (d, i)


# ============================================================================= building blocks (public)
@validate_params(X=Data(), grid_size=_CELLS)
def cell_index(X: ArrayLike, bounds: ArrayLike, grid_size: int) -> np.ndarray:
    """M-cell index of every point, shape (n, d): ``floor((x - lo)/(hi - lo)·g)`` clipped to ``[0, g-1]``.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    bounds : public domain, see :func:`~dpclust_core._validation.check_bounds`. Points outside are clipped
        into the border cells.
    grid_size : int
        g, the number of cells per dimension.

    Examples
    --------
    >>> cell_index([[0.0, 0.99], [0.5, 2.0]], (0, 1), 4).tolist()
    [[0, 3], [2, 3]]
    """
    low, high = check_bounds(bounds, X.shape[1])
    return _cell_index(X, low, high, grid_size)


@validate_params(X=Data(), grid_size=_CELLS)
def quantize(X: ArrayLike, bounds: ArrayLike, grid_size: int) -> np.ndarray:
    """The count matrix M (Step 1 of WaveCluster): shape ``(g,)*d``, points per cell (outliers clipped).

    ``g^d`` may not exceed :data:`MAX_CELLS`.

    Examples
    --------
    >>> quantize([[0.1, 0.1], [0.2, 0.1], [0.9, 0.9]], (0, 1), 2).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    """
    low, high = check_bounds(bounds, X.shape[1])
    _check_cells(grid_size, X.shape[1])
    return _quantize(X, low, high, grid_size)


@validate_params(M=_grid_array, integer_valued=NoneOr(Bool()))
def haar_approx(M: ArrayLike, integer_valued: bool | None = None) -> np.ndarray:
    """Haar level-1 approximation subband W of M with PyWavelets (Step 2 of WaveCluster).

    ``W = pywt.dwtn(M, "haar")["a"*d]``, which equals ``blocksum(M, 2×…×2) / 2^(d/2)`` (orthonormal Haar;
    in 2-D the sum of each 2×2 block divided by 2). Every side of M must be even.

    PyWavelets' two 1/√2 passes leave errors of one ulp, which would break the ties between equal block sums
    that the significance rule relies on. When M is integer-valued (``integer_valued=None`` detects it), W is
    snapped to the exact multiple of ``2^(-d/2)``.

    Examples
    --------
    >>> M = [[1, 0, 0, 0], [0, 0, 0, 0], [2, 2, 0, 0], [0, 0, 0, 0]]
    >>> haar_approx(M).tolist()   # a lone point gives 0.5 (the paper's minimum value)
    [[0.5, 0.0], [2.0, 0.0]]
    """
    if any(s % 2 for s in M.shape):
        raise ValueError(f"M must have even sides for Haar level 1, got shape {M.shape}")
    if integer_valued is None:
        integer_valued = bool(np.all(M == np.round(M)))
    return _haar(M, integer_valued)


@validate_params(W=_grid_array, p=_P)
def significant_mask(W: ArrayLike, p: float) -> tuple[np.ndarray, int, float]:
    """Significant cells by the top-(1-p) rule (Step 3 of WaveCluster).

    Returns ``(mask, k, d)``: ``L`` = positive values of W, ``k = ceil((1-p/100)|L|)``, ``d`` = k-th largest of
    L, ``mask = (W >= d) & (W > 0)`` (every value tied with d is significant). ``k = 0`` gives an empty mask and
    ``d = inf``.

    Examples
    --------
    >>> mask, k, d = significant_mask([[4.0, 3.0], [3.0, 0.5]], 50)
    >>> mask.tolist(), k, d
    ([[True, True], [True, False]], 2, 3.0)
    """
    return _significant(W, p)


@validate_params(connectivity=_Connectivity())
def label_components(mask: ArrayLike, connectivity: int = 8) -> tuple[np.ndarray, int]:
    """Connected components of a boolean grid: labels -1 (not significant) and 0..c-1; returns (labels, c).

    ``connectivity=8`` joins diagonal neighbours (full connectivity in d dimensions, MATLAB ``bwlabeln``'s
    default); ``4`` joins face neighbours only (``scipy.ndimage.label``'s default). ``mask`` holds booleans
    (or 0/1).

    Examples
    --------
    >>> label_components([[True, False], [False, True]], 8)[1], label_components([[1, 0], [0, 1]], 4)[1]
    (1, 2)
    """
    raw = _check_array(mask, "mask", allow_bool=True)
    if raw.dtype.kind != "b" and not np.all((raw == 0) | (raw == 1)):
        raise ValueError("mask must hold booleans (or 0/1)")
    return _label(raw.astype(bool), connectivity)


def grid_cell_centers(bounds: ArrayLike, shape: Sequence[int]) -> np.ndarray:
    """Centres (in data coordinates) of every cell of a grid of ``shape`` over ``bounds``; shape (prod, d).

    Examples
    --------
    >>> grid_cell_centers((0, 1), (2, 2)).tolist()
    [[0.25, 0.25], [0.25, 0.75], [0.75, 0.25], [0.75, 0.75]]
    """
    if isinstance(shape, (str, bytes)) or np.ndim(shape) != 1 or len(shape) == 0:
        raise BadTypeError(f"shape must be a tuple of positive ints, got {shape!r}")
    shape = tuple(check_int(s, "shape", 1, MAX_CELLS) for s in shape)
    if math.prod(shape) > MAX_CELLS:
        raise ValueError(f"shape {shape} has more than MAX_CELLS = {MAX_CELLS} cells")
    low, high = check_bounds(bounds, len(shape))
    axes = [low[i] + (np.arange(s) + 0.5) * (high[i] - low[i]) / s for i, s in enumerate(shape)]
    mesh = np.meshgrid(*axes, indexing="ij")
    return np.column_stack([m.ravel() for m in mesh])


# ============================================================================= PrivTHR_EM's threshold
@validate_params(W=_grid_array, p=_P, upper=_UPPER)
def em_threshold_intervals(W: ArrayLike, p: float,
                           upper: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
    """Threshold intervals of NoisyDensityThreshold (Alg. 4, with a public upper end).

    ``L`` = positive values of the TRUE W sorted descending ``x1 >= ... >= xm``; ``x0 = upper`` (public) and
    ``x_{m+1} = 0``. Interval ``i = 0..m`` is ``(x_{i+1}, x_i]``; every threshold in it selects exactly ``i``
    cells of W (rank ``i``); its quality is ``q_i = -|i - k|`` with ``k = ceil((1-p)m)``.

    Returns ``(lower_ends, upper_ends, ranks, k)`` (arrays of length m + 1). Values of W above ``upper`` are
    capped at it.

    Examples
    --------
    >>> lo, hi, ranks, k = em_threshold_intervals([[4.0, 2.0], [0.0, 1.0]], 50, 10.0)
    >>> lo.tolist(), hi.tolist(), k
    ([4.0, 2.0, 1.0, 0.0], [10.0, 4.0, 2.0, 1.0], 2)
    """
    return _intervals(W, p, upper)


@validate_params(epsilon=Epsilon(), W=_grid_array, p=_P, upper=_UPPER)
def em_threshold_probabilities(W: ArrayLike, p: float, epsilon: float, upper: float) -> np.ndarray:
    """Probability that PrivTHR_EM's EM picks each rank i = 0..m.

    Interval ``i`` is picked with probability ∝ ``(x_i - x_{i+1})·exp(-ε|i - k|/2)`` (Alg. 4; Cormode et al.'s
    private quantile), its length measured in points of the public grid that :func:`em_threshold` draws from
    (:func:`~dpclust_core.mechanisms.interval_grid` of ``[0, upper]``, a step of about ``upper·2^-40``); empty
    (tied) intervals get probability 0.

    Examples
    --------
    >>> em_threshold_probabilities([[4.0, 2.0], [0.0, 1.0]], 50, 1e6, 10.0).round(3).tolist()
    [0.0, 0.0, 1.0, 0.0]
    """
    _, _, counts, k = _grid_runs(W, p, upper)
    ranks = np.arange(counts.size)
    return exponential_mechanism_probabilities(-np.abs(ranks - k).astype(float), 1.0, epsilon, counts=counts)


@validate_params(epsilon=Epsilon(), rng=Rng(), ledger=Ledger(), size=NoneOr(Int(1)), W=_grid_array, p=_P,
                 upper=_UPPER)
def em_threshold(W: ArrayLike, p: float, epsilon: float, upper: float, rng: RNGLike = None, *,
                 size: int | None = None, ledger: PrivacyLedger | None = None,
                 name: str = "EM threshold") -> tuple[float | np.ndarray, int | np.ndarray]:
    """NoisyDensityThreshold of Alg. 4: sample the rank i* by the EM, then d' uniform on (x_{i*+1}, x_{i*}].

    The threshold is a point of a public power-of-two grid of (0, upper] (step about ``upper·2^-40``), onto which
    the values of W are snapped: :func:`~dpclust_core.mechanisms.exponential_mechanism_intervals` (quality
    ``-|i - k|``, sensitivity 1, the number of grid points of each interval as the base measure) picks the
    interval and an exactly uniform grid point inside it, and records ``epsilon`` (per draw) in ``ledger``. The
    paper's ``d' ~ Uniform(x_{i*+1}, x_{i*}]`` computed in floating point, ``x + u·(x' - x)`` with data values
    ``x, x'``, would leak them through its low-order bits.

    Returns
    -------
    (d', i*)
        A float and an int, or arrays when ``size`` is given.

    Examples
    --------
    >>> d, i = em_threshold([[4.0, 2.0], [0.0, 1.0]], 50, 1e6, 10.0, rng=0)
    >>> int(i), bool(1.0 < d <= 2.0)
    (2, True)
    """
    return _em_threshold(W, p, epsilon, upper, rng, size, ledger, name)


# ============================================================================= Baseline: adaptive grid
def _ag_synthetic(X, low, high, epsilon, N, rng, ledger, c=10.0, c2=5.0, alpha=0.5):
    """AG synthetic data (trusting kernel): X checked, (low, high) public, N public or a noisy estimate."""
    d = X.shape[1]
    U = np.clip(X, low, high)
    U -= low
    U /= high - low  # unit square
    m1_max = math.isqrt(MAX_AG_CELLS)
    x = math.sqrt(N) * math.sqrt(epsilon / c) / 4.0
    m1 = m1_max if not x < m1_max else max(10, math.ceil(x))
    U *= m1  # level-1 grid units
    i1 = np.minimum(U.astype(np.int64), m1 - 1)
    cell = i1[:, 0] * m1 + i1[:, 1]
    n1 = np.bincount(cell, minlength=m1 * m1).astype(float)
    e1 = alpha * epsilon
    e2 = epsilon - e1
    noisy1 = laplace_mechanism(n1, 1.0, e1, rng, l0_sensitivity=1, ledger=ledger,
                               name="AG level-1 counts (Lap(1/(a eps)))")
    m2_max = max(1, math.isqrt(MAX_AG_CELLS // (m1 * m1)))
    with np.errstate(over="ignore", invalid="ignore"):
        m2f = np.ceil(np.sqrt(np.maximum(noisy1, 0.0) * (e2 / c2)))
    m2 = np.where(noisy1 > 0, np.clip(np.nan_to_num(m2f, nan=1.0, posinf=m2_max), 1, m2_max), 1).astype(np.int64)
    n_leaf = m2 * m2
    offset = np.concatenate([[0], np.cumsum(n_leaf)[:-1]])
    # leaf of every point: its position inside its level-1 cell
    U -= i1  # position inside its level-1 cell, in [0, 1)
    mp = m2[cell]
    U *= mp[:, None]
    j = np.minimum(U.astype(np.int64), mp[:, None] - 1)
    leaf = offset[cell] + j[:, 0] * mp + j[:, 1]
    total = int(n_leaf.sum())
    n2 = np.bincount(leaf, minlength=total).astype(float)
    noisy2 = laplace_mechanism(n2, 1.0, e2, rng, l0_sensitivity=1, ledger=ledger,
                               name="AG level-2 counts (Lap(1/((1-a) eps)))")
    leaf_cell = np.repeat(np.arange(m1 * m1), n_leaf)
    sub = np.bincount(leaf_cell, weights=noisy2, minlength=m1 * m1)
    a2m = (alpha * m2) ** 2
    w1 = a2m / ((1 - alpha) ** 2 + a2m)
    combined = w1 * noisy1 + (1 - w1) * sub
    adj = noisy2 + ((combined - sub) / n_leaf)[leaf_cell]
    cnt = np.maximum(adj, 0.0)  # the reset of negative counts the paper blames (§4.1)
    tot = float(cnt.sum())
    if tot > MAX_SYNTHETIC:  # public cap (absurdly small epsilon only): scale the counts down
        cnt *= MAX_SYNTHETIC / tot
    counts = np.rint(cnt).astype(np.int64)
    # leaf rectangles in the unit square
    li = np.arange(total) - offset[leaf_cell]
    mleaf = m2[leaf_cell]
    rx, ry = li // mleaf, li % mleaf
    cx, cy = leaf_cell // m1, leaf_cell % m1
    x0 = (cx + rx / mleaf) / m1
    y0 = (cy + ry / mleaf) / m1
    size = 1.0 / (m1 * mleaf)
    rep = np.repeat(np.arange(total), counts)
    pts = np.column_stack([x0[rep], y0[rep]]) + rng.uniform(size=(rep.size, d)) * size[rep, None]
    # synthetic points: uniform in public cells, rounded onto the public grid of the box (post-processing)
    return _snap(low + pts * (high - low), _grid_steps(high - low))


@validate_params(epsilon=Epsilon(), rng=Rng(), ledger=Ledger(), alpha=Real(0.0, 1.0, low_open=True, high_open=True),
                 c=_UPPER, c2=_UPPER, n_share=Real(0.0, 0.5, low_open=True), n_public=NPublic())
def adaptive_grid_synthetic(X: ArrayLike, bounds: ArrayLike, epsilon: float, rng: RNGLike = None, *,
                            n_public: float | None = None, n_share: float = 0.05, c: float = 10.0, c2: float = 5.0,
                            alpha: float = 0.5, ledger: PrivacyLedger | None = None) -> np.ndarray:
    """DP synthetic data from the Adaptive Grid (AG) of Qardaji et al. (ICDE 2013), with DPComp's defaults.

    Level 1: an ``m1 × m1`` grid, ``m1 = max(10, ceil(sqrt(N ε / c) / 4))``, counts + Lap(1/(αε)). Level 2: every
    level-1 cell with noisy count N' is split into ``m2 × m2`` cells, ``m2 = ceil(sqrt(N'(1-α)ε / c2))`` (1 if
    N' <= 0), counts + Lap(1/((1-α)ε)). Constrained inference combines both levels; then negative leaf counts
    are reset to 0 (the distortion the paper blames, §4.1), counts are rounded, and that many points are drawn
    uniformly in each leaf. 2-D only. The grid sizes are capped by the public :data:`MAX_AG_CELLS`.

    Parameters
    ----------
    X : array_like, shape (n_samples, 2)
        The private data.
    bounds : public domain (points outside are clipped).
    epsilon : float
        Total budget of the release (the noisy N included).
    rng : None, int or Generator
    n_public : float, optional
        AG sizes its grid from N. ``None`` (default) keeps N private: ``n_share·ε`` buys a noisy count (ledger
        entry "N (noisy count)") and AG gets the rest. Passing a number (>= 1; an int, or a noisy count from
        :func:`~dpclust_core.count.private_count`) treats it as a public constant (AG and
        DPComp treat N as public); passing the true ``len(X)`` publishes N.
    n_share : float, default 0.05
        Share of epsilon spent on the noisy N when ``n_public`` is None, in (0, 0.5].
    c, c2 : float
        AG's constants (10 and 5).
    alpha : float
        AG's level-1 share of its budget (0.5).
    ledger : PrivacyLedger, optional
        Receives the entries: the noisy N (if private), level 1 and level 2 (sensitivity 1 each: each level
        partitions the domain).

    Returns
    -------
    ndarray, shape (n_synthetic, 2)
        Synthetic points inside ``bounds``.

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> from sklearn.datasets import make_blobs
    >>> X, _ = make_blobs(3_000, centers=[[0.2, 0.2], [0.8, 0.2], [0.5, 0.8]], cluster_std=0.04, random_state=0)
    >>> led = PrivacyLedger()
    >>> S = adaptive_grid_synthetic(X, (0, 1), 1.0, rng=0, ledger=led)
    >>> S.shape[1], round(led.epsilon, 12), len(led.entries)
    (2, 1.0, 3)
    """
    X = check_data(X, n_features=2)
    low, high = check_bounds(bounds, 2)
    eps = epsilon
    if ledger is not None:
        ledger.require(eps, 0.0, name="adaptive_grid_synthetic")
    with budget_shares("adaptive_grid_synthetic", epsilon=eps, n_share=n_share, alpha=alpha):
        N, e_n = DPEstimator._estimate_n(X, _NPublic(n_public), n_share * eps, rng, ledger)
        return _ag_synthetic(X, low, high, eps - e_n, N, rng, ledger, c, c2, alpha)


class _NPublic:
    def __init__(self, n_public):
        self.n_public = n_public


# ============================================================================= estimators
class _GridPredictMixin(ClusterMixin):
    """``predict`` / ``fit_predict`` from the released labelled grid ``grid_labels_`` over ``bounds_``."""

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Cluster of every point of X from the (released) labelled grid; -1 for noise. Clips to the bounds.

        Labelling points is post-processing of the grid; the labels of the private training records are, like
        any function of them, **not** differentially private with respect to those records.
        """
        X = self._check_X(X, "grid_labels_")
        low, high = self.bounds_
        g = 2 * self.grid_labels_.shape[0]
        idx = _cell_index(X, low, high, g) // 2
        return self.grid_labels_[tuple(idx.T)]

    def fit_predict(self, X: ArrayLike, y: ArrayLike | None = None) -> np.ndarray:
        """``fit(X)`` then ``predict(X)``."""
        return self.fit(X).predict(X)


class WaveCluster(_GridPredictMixin, Estimator):
    """Non-private WaveCluster (Sheikholeslami et al., as used by Chen et al. §3.2).

    Parameters
    ----------
    grid_size : int
        g, the number of cells per dimension of the count matrix M (even; W is g/2 per side). ``g^d`` may not
        exceed :data:`MAX_CELLS`.
    p : float
        Density threshold in percent, in [0, 100): the lowest p % of the positive W values are not significant.
    bounds : (low, high) or array of (low, high) rows
        The domain of the grid (required). Points outside are clipped into the border cells.
    connectivity : {4, 8}, default 8
        Neighbourhood of the connected components (8 joins diagonal neighbours).

    Attributes
    ----------
    counts_ : ndarray, shape (g,)*d
        The count matrix M.
    W_ : ndarray, shape (g/2,)*d
        The Haar approximation subband.
    k_ : int
        ``ceil((1-p)|L|)``, the number of significant values.
    threshold_ : float
        d, the k-th largest positive value of W.
    n_zero_ : int
        ``|Z|``, the number of cells with W <= 0.
    significant_ : ndarray of bool, shape of W
    n_significant_ : int
    grid_labels_ : ndarray of int, shape of W
        -1 for a non-significant cell, else its cluster 0..n_clusters_-1.
    n_clusters_ : int
    labels_ : ndarray of int, shape (n_samples,)
        The cluster of every training point (-1 for noise).
    bounds_ : (low, high) arrays
    n_features_in_ : int

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, _ = make_blobs(31_200, centers=[[0.2, 0.2], [0.8, 0.2], [0.5, 0.8]], cluster_std=0.04, random_state=0)
    >>> wc = WaveCluster(grid_size=40, p=10, bounds=(0, 1)).fit(X)
    >>> wc.n_clusters_, wc.W_.shape, wc.labels_.shape
    (3, (20, 20), (31200,))
    """

    _parameters = dict(grid_size=_GridSize(), p=Real(0.0, 100.0, high_open=True), bounds=BoundsSpec(),
                       connectivity=_Connectivity())

    def __init__(self, *, grid_size: int, p: float, bounds: ArrayLike, connectivity: int = 8) -> None:
        self.grid_size = grid_size
        self.p = p
        self.bounds = bounds
        self.connectivity = connectivity

    def _fit(self, X, p):
        d = X.shape[1]
        low, high = check_bounds(p.bounds, d)
        self.bounds_ = (low, high)
        _check_cells(p.grid_size, d)
        idx = _cell_index(X, low, high, p.grid_size)  # one pass over the points for M and the labels
        self.counts_ = _counts(idx, p.grid_size, d)
        self.W_ = _haar(self.counts_, True)
        self.n_zero_ = int((self.W_ <= 0).sum())
        mask, self.k_, self.threshold_ = _significant(self.W_, p.p)
        self.significant_ = mask
        self.n_significant_ = int(mask.sum())
        self.grid_labels_, self.n_clusters_ = _label(mask, p.connectivity)
        idx //= 2
        self.labels_ = self.grid_labels_[tuple(idx.T)]


class PrivateWaveCluster(_GridPredictMixin, DPEstimator):
    """Differentially private WaveCluster: Baseline, PrivQT, PrivTHR or PrivTHR_EM (Chen et al., Algs. 1–4).

    ε-DP under add/remove-one neighbours. The release is the labelled grid (``grid_labels_``) and the noisy
    quantities listed below; :meth:`predict` labels any point from it.

    Parameters
    ----------
    epsilon : float
        Total budget; ``ledger_.epsilon == epsilon``.
    method : {"baseline", "qt", "thr", "thr_em"}
        Baseline (Alg. 1, AG synthetic data), PrivQT (Alg. 2), PrivTHR (Alg. 3) or PrivTHR_EM (Alg. 4).
    grid_size : int
        g, cells per dimension of M (even, public); ``g^d`` at most :data:`MAX_CELLS`.
    p : float
        Density threshold in percent, in [0, 100) (public).
    bounds : (low, high) or array of (low, high) rows
        The public domain (required: reading it off the data would leak the extremes). Points outside are
        clipped into the border cells.
    connectivity : {4, 8}, default 8
    alpha : float, optional
        Share of the (remaining) epsilon for the noisy count matrix (ε1 = αε); the rest (ε2) goes to ``|Z|'``
        (PrivTHR, default 0.9) or to the EM threshold (PrivTHR_EM, default 0.7) — the paper's splits (§7 and
        §4.4). Ignored by the Baseline and PrivQT.
    upper : float, optional
        PrivTHR_EM: public upper end of the threshold domain (0, upper]; W values above it are capped. Default:
        ``N / 2^(d/2)``, the largest W value a dataset of N points can have, with N from ``n_public`` or a noisy
        count. (The paper's ``(0, max W]`` moves with the data and is not ε-DP.) Ignored by the other methods.
    {n_public}
        Used by the Baseline (AG's grid sizes) and by PrivTHR_EM when ``upper`` is None; the other methods
        need no N and spend nothing on it.
    {n_share}
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger: a fit it cannot afford raises ``BudgetExceededError`` before reading X.

    Attributes
    ----------
    noisy_counts_ : ndarray, shape (g,)*d
        M' (Laplace-perturbed counts; for the Baseline, the counts of the synthetic data).
    noisy_W_ : ndarray, shape (g/2,)*d
        W', the Haar approximation of M'.
    k_prime_ : int
        The private k': ``ceil((1-p)|L'|)`` (Baseline, PrivQT), ``ceil((1-p)|L''|)`` (PrivTHR), the sampled
        rank i* (PrivTHR_EM).
    threshold_ : float
        d', the density threshold applied to W'.
    significant_, n_significant_, grid_labels_, n_clusters_
        The released labelled grid (cells with W' >= d' and W' > 0, their connected components).
    noisy_zero_count_ : float
        ``|Z|'`` (PrivTHR only).
    removed_ : int
        r = round(``|Z|'``/2) clamped to [0, ``|L'|``] (PrivTHR only).
    synthetic_X_ : ndarray, shape (n_synthetic, 2)
        The AG synthetic data (Baseline only); its size is noisy.
    upper_ : float
        The upper end of the EM's domain (PrivTHR_EM only).
    n_estimate_ : float
        The N used (``n_public``, or the noisy count) — Baseline, and PrivTHR_EM without ``upper``.
    epsilon_n_, epsilon1_, epsilon2_ : float
        ε spent on N, on the counts (M' or AG), and on ``|Z|'`` or the EM (0 otherwise).
    ledger_ : PrivacyLedger
    bounds_, n_features_in_

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, _ = make_blobs(31_200, centers=[[0.2, 0.2], [0.8, 0.2], [0.5, 0.8]], cluster_std=0.04, random_state=0)
    >>> est = PrivateWaveCluster(1.0, method="thr", grid_size=40, p=10, bounds=(0, 1), random_state=0).fit(X)
    >>> est.ledger_.epsilon, est.grid_labels_.shape, est.predict(X[:5]).shape
    (1.0, (20, 20), (5,))
    >>> hasattr(est, "labels_")          # no per-record output of the private training data
    False
    """

    __doc__ = __doc__.replace("{n_public}", N_PUBLIC_DOC).replace("{n_share}", N_SHARE_DOC)

    _budget_params = ("epsilon", "n_share", "alpha")  # alpha: the threshold share of PrivTHR(_EM)
    _parameters = dict(
        epsilon=Epsilon(), method=Options(*METHODS), grid_size=_GridSize(), p=Real(0.0, 100.0, high_open=True),
        bounds=BoundsSpec(), connectivity=_Connectivity(),
        alpha=NoneOr(Real(0.0, 1.0, low_open=True, high_open=True)), upper=NoneOr(Real(0.0, low_open=True)),
        n_public=NPublic(), n_share=Real(0.0, 0.5, low_open=True),
        random_state=RandomState(), ledger=Ledger())

    def __init__(self, epsilon: float, *, method: Literal["baseline", "qt", "thr", "thr_em"], grid_size: int,
                 p: float, bounds: ArrayLike, connectivity: int = 8, alpha: float | None = None,
                 upper: float | None = None, n_public: float | None = None, n_share: float = 0.05,
                 random_state: RNGLike = None, ledger: PrivacyLedger | None = None) -> None:
        self.epsilon = epsilon
        self.method = method
        self.grid_size = grid_size
        self.p = p
        self.bounds = bounds
        self.connectivity = connectivity
        self.alpha = alpha
        self.upper = upper
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        d = X.shape[1]
        low, high = p.bounds
        g, eps = p.grid_size, p.epsilon
        _check_cells(g, d)
        if p.method == "baseline":
            if d != 2:
                raise ValueError(f"X must have 2 features for the Baseline (AG is 2-D only), got {d}")
            N, e_n = self._estimate_n(X, p, p.n_share * eps, rng, ledger)
            self.n_estimate_, self.epsilon_n_ = float(N), e_n
            self.epsilon1_, self.epsilon2_ = eps - e_n, 0.0
            self.synthetic_X_ = _ag_synthetic(X, low, high, eps - e_n, N, rng, ledger)
            self.noisy_counts_ = _quantize(self.synthetic_X_, low, high, g)
            self.noisy_W_ = _haar(self.noisy_counts_, True)
            mask, self.k_prime_, self.threshold_ = _significant(self.noisy_W_, p.p)
            return self._finish(mask, p)

        e_n, rest = 0.0, eps
        upper = p.upper
        if p.method == "thr_em" and upper is None:
            # the threshold domain (0, N / 2^(d/2)] must not move with the data: N public or a noisy count
            N, e_n = self._estimate_n(X, p, p.n_share * eps, rng, ledger)
            self.n_estimate_ = float(N)
            rest = eps - e_n
            upper = _ceil_to(N / 2.0 ** (d / 2.0), _COUNT_STEP)  # post-processing of N, on a public grid
        alpha = p.alpha if p.alpha is not None else DEFAULT_ALPHA.get(p.method)
        e1 = rest if p.method == "qt" else alpha * rest
        e2 = rest - e1  # the remainder, so that the parts add up to epsilon
        self.epsilon_n_, self.epsilon1_, self.epsilon2_ = e_n, e1, e2
        M = _quantize(X, low, high, g)
        # Laplace noise on EVERY cell of the public grid (one release, L1 sensitivity 1, one cell per record)
        self.noisy_counts_ = laplace_mechanism(M, 1.0, e1, rng, l0_sensitivity=1, ledger=ledger,
                                               name="noisy count matrix M'")
        # W' on a public grid (post-processing of M'): the noisy counts' grid over 2^d holds every Haar average
        self.noisy_W_ = Wn = _snap(_haar(self.noisy_counts_, False), _COUNT_STEP * 2.0**-d)
        Lp = np.sort(Wn[Wn > 0])[::-1]  # L' descending
        if p.method == "qt":
            kp = _k_of(Lp.size, p.p)
            dth = float(Lp[kp - 1]) if kp > 0 else np.inf
        elif p.method == "thr":
            n_zero = float((_haar(M, True) <= 0).sum())
            self.noisy_zero_count_ = laplace_mechanism(n_zero, 1.0, e2, rng, ledger=ledger,
                                                       name="noisy |Z| (non-positive cells of W)")
            r = int(np.clip(np.rint(self.noisy_zero_count_ / 2.0), 0, Lp.size))
            self.removed_ = r
            kp = _k_of(Lp.size - r, p.p)  # L'' = L' minus its r smallest values
            dth = float(Lp[kp - 1]) if kp > 0 else np.inf
        else:  # thr_em: the threshold comes from the TRUE W through the exponential mechanism
            self.upper_ = float(upper)
            dth, kp = _em_threshold(_haar(M, True), p.p, e2, self.upper_, rng, None, ledger,
                                    "EM density threshold d'")
            dth, kp = float(dth), int(kp)
        self.k_prime_, self.threshold_ = int(kp), dth
        return self._finish((Wn >= dth) & (Wn > 0), p)

    def _finish(self, mask, p):
        self.significant_ = mask
        self.n_significant_ = int(mask.sum())
        self.grid_labels_, self.n_clusters_ = _label(mask, p.connectivity)
        return self
