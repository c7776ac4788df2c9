"""Clustering quality metrics (the ground floor: no algorithm module is imported here).

* :func:`nicv` — Normalised Intra-Cluster Variance, the thesis's objective and metric, Eq. (2.8):
  ``NICV = (1/N) Σ_l min_j ||x_l − o_j||²`` (normalised by N only).
* :func:`wcss` — within-cluster sum of squares, ``N · NICV`` (the metric of Lee & Kifer).
* :func:`squared_distances`, :func:`assign` — the nearest-centre helpers, computed in blocks of rows by the
  shared kernels (no n × k × d temporary).
* WaveCluster's metrics (Chen, Yu & Chirkova, CIKM 2015, §6): :func:`dsg_c` (clusters as sets of grid cells),
  :func:`ocm` and :func:`two_ce` (agreement of two classifications), :func:`rand_index`, :func:`f_measure` (its
  Fig. 7) and :func:`k_relative_error`. The classifier of the protocol needs the
  grid geometry and lives in :mod:`dpclust_core.wavecluster` (``grid_classifier``, ``cluster_then_classify``).

Every function validates its input and raises a ``ValueError``/``TypeError`` naming the argument (NaN, inf,
strings, wrong shapes); none returns NaN for NaN input.
"""
from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from . import _kernels
from ._validation import MAX_ALLOCATION, ArrayLike, BadTypeError, Real, check_data, validate_params

__all__ = ["nicv", "wcss", "squared_distances", "assign", "dsg_c", "ocm", "two_ce", "rand_index", "f_measure",
           "k_relative_error"]


def _check(X, centers):
    X = check_data(X)
    C = check_data(centers, "centers")
    if C.shape[1] != X.shape[1]:
        raise ValueError(f"centers has {C.shape[1]} features but X has {X.shape[1]}")
    return X, C


def _finite_cost(value):
    """A sum of squared distances, refused when it overflows a float (data of magnitude near 1e154 or more)."""
    if not np.isfinite(value):
        raise ValueError("X and centers: the sum of squared distances overflows a float (values of magnitude "
                         "about 1e154 or more); rescale the data first")
    return value


def squared_distances(X: ArrayLike, centers: ArrayLike) -> np.ndarray:
    """Squared Euclidean distances of every point to every centre, shape (N, k), never negative.

    Computed in blocks of rows (no (N, k, d) intermediate).

    Examples
    --------
    >>> squared_distances([[0.0, 0.0], [3.0, 4.0]], [[0.0, 0.0]]).tolist()
    [[0.0], [25.0]]
    """
    X, C = _check(X, centers)
    return _kernels.sq_distances(X, C)


def assign(X: ArrayLike, centers: ArrayLike) -> np.ndarray:
    """Index of the nearest centre for every point (ties go to the lowest index), in blocks of rows.

    Examples
    --------
    >>> assign([[0.0], [0.9], [2.0]], [[0.0], [2.0]]).tolist()
    [0, 0, 1]
    """
    X, C = _check(X, centers)
    return _kernels.assign(X, C)


def wcss(X: ArrayLike, centers: ArrayLike) -> float:
    """Within-cluster sum of squares: ``Σ_l min_j ||x_l − o_j||²``.

    Examples
    --------
    >>> wcss([[0.0, 0.0], [2.0, 0.0], [10.0, 0.0]], [[1.0, 0.0], [10.0, 0.0]])
    2.0
    """
    X, C = _check(X, centers)
    return _finite_cost(float(_kernels.wcss(X, C)))


def nicv(X: ArrayLike, centers: ArrayLike) -> float:
    """Normalised intra-cluster variance, Eq. (2.8): ``(1/N) Σ_l min_j ||x_l − o_j||²``.

    Parameters
    ----------
    X : array_like, shape (N, d)
        The points (finite real numbers).
    centers : array_like, shape (k, d)
        The centres.

    Returns
    -------
    float
        The mean squared distance of a point to its nearest centre.

    Examples
    --------
    >>> nicv([[0.0, 0.0], [2.0, 0.0], [10.0, 0.0], [10.0, 4.0]], [[1.0, 0.0], [10.0, 1.0]])
    3.0
    """
    X, C = _check(X, centers)
    return _finite_cost(float(_kernels.wcss(X, C))) / X.shape[0]


# ----------------------------------------------------------------------------- WaveCluster metrics
def _labels(a, name, *, integer=False):
    """A non-empty array of finite real labels (strings, objects, complex numbers and NaN refused); with
    ``integer``, whole numbers only (returned as int64)."""
    if isinstance(a, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of labels (numbers), got a string")
    try:
        raw = np.asarray(a)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a numeric array of labels: {exc}") from None
    if raw.dtype.kind not in "iuf":
        raise BadTypeError(f"{name} must hold numeric labels, got dtype {raw.dtype}")
    if raw.ndim == 0 or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty array of labels, got shape {raw.shape}")
    if raw.dtype.kind == "f":
        if not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} contains NaN or infinite values")
        if integer:
            if np.any(raw != np.round(raw)):
                raise ValueError(f"{name} must hold integer labels, got a fractional value")
            raw = raw.astype(np.int64)
    return raw


def _grid_clusters(lab):
    """Cluster id per significant cell (labels >= 0) as a dense 0..c-1 code; returns (flat_codes, sizes)."""
    lab = lab.ravel()
    codes = np.full(lab.shape, -1, dtype=np.int64)
    sig = lab >= 0
    if sig.any():
        _, codes[sig] = np.unique(lab[sig], return_inverse=True)
    sizes = np.bincount(codes[sig], minlength=0) if sig.any() else np.zeros(0, dtype=np.int64)
    return codes, sizes


def dsg_c(true_grid_labels: ArrayLike, private_grid_labels: ArrayLike) -> float:
    """DSG_C, the dissimilarity of significant grids and clusters (paper §6.1).

    Clusters are sets of significant cells of the same public grid (label >= 0; negative = not significant).
    ``d(T_i, P_j) = max(|T_i \\ P_j|, |P_j \\ T_i|)``; clusters are matched one-to-one by the Hungarian method
    (``scipy.optimize.linear_sum_assignment``) on a square cost matrix padded with dummy clusters, so an
    unmatched true cluster costs ``|T_i|`` and an unmatched private one ``|P_j|`` inside the optimisation.
    ``DSG_C = min cost / |T|``, ``|T|`` = number of true significant cells. No private cluster gives 1; DSG_C can
    exceed 1. With no true cluster DSG_C is undefined: 0 if there is no private cluster either, else a
    ``ValueError``.

    Examples
    --------
    >>> t = [-1, 0, -1, 0, -1, 0, -1, -1, -1, -1]   # the paper's {g1, g3, g5}
    >>> q = [-1, 4, -1, -1, -1, 4, -1, 4, -1, 4]    # against {g1, g5, g7, g9}: d = 2
    >>> round(dsg_c(t, q), 4)
    0.6667
    """
    a = _labels(true_grid_labels, "true_grid_labels", integer=True)
    b = _labels(private_grid_labels, "private_grid_labels", integer=True)
    if a.shape != b.shape:
        raise ValueError(f"true_grid_labels and private_grid_labels must have the same shape, got {a.shape} "
                         f"and {b.shape}")
    ta, sa = _grid_clusters(a)
    tb, sb = _grid_clusters(b)
    t, s = sa.size, sb.size
    total = int(sa.sum())
    if t == 0:
        if s == 0:
            return 0.0
        raise ValueError("true_grid_labels has no significant cell: DSG_C is undefined (it divides by |T| = 0)")
    if max(t, s) > 20_000:
        raise ValueError(f"true_grid_labels/private_grid_labels: {max(t, s)} clusters is too many for the "
                         f"Hungarian matching (at most 20000)")
    both = (ta >= 0) & (tb >= 0)
    inter = np.zeros((t, s))
    if s:
        np.add.at(inter, (ta[both], tb[both]), 1)
    n = max(t, s)
    cost = np.zeros((n, n))
    cost[:t, :s] = np.maximum(sa[:, None] - inter, sb[None, :] - inter)
    cost[:t, s:] = sa[:, None]  # true cluster left unmatched
    cost[t:, :s] = sb[None, :]  # private cluster left unmatched
    r, c = linear_sum_assignment(cost)
    return float(cost[r, c].sum() / total)


def _contingency(pred_t, pred_p):
    a = _labels(pred_t, "pred_t", integer=True).ravel()
    b = _labels(pred_p, "pred_p", integer=True).ravel()
    if a.shape != b.shape:
        raise ValueError(f"pred_t and pred_p must have the same length, got {a.size} and {b.size}")
    ua, ia = np.unique(a, return_inverse=True)
    ub, ib = np.unique(b, return_inverse=True)
    if ua.size * ub.size > MAX_ALLOCATION // 8:
        raise ValueError(f"pred_t/pred_p: {ua.size} x {ub.size} classes is too large a contingency table")
    C = np.zeros((ua.size, ub.size))
    np.add.at(C, (ia, ib), 1)
    return C


def ocm(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """Optimal class matching (paper §6.2): ``1 - CT/TT`` with CT the best one-to-one class matching.

    ``C[a, b]`` = #test points with ``pred_t = a`` and ``pred_p = b``; CT = max over one-to-one matchings of
    the matched counts (``linear_sum_assignment(C, maximize=True)``, rectangular tables allowed).

    Examples
    --------
    >>> ocm([0, 0, 0, 1, 1, 2], [5, 5, 5, 3, 3, 9]), round(ocm([0, 0, 0, 1, 1, 2], [0, 0, 1, 1, 1, 1]), 4)
    (0.0, 0.3333)
    """
    C = _contingency(pred_t, pred_p)
    r, c = linear_sum_assignment(C, maximize=True)
    return float(1.0 - C[r, c].sum() / C.sum())


def rand_index(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """Unadjusted Rand index, from the contingency table in O(N) (no loop over pairs).

    Examples
    --------
    >>> rand_index([0, 0, 1, 1], [1, 1, 0, 0]), round(rand_index([0, 0, 1, 1], [0, 1, 0, 1]), 4)
    (1.0, 0.3333)
    """
    C = _contingency(pred_t, pred_p)
    n = C.sum()

    def comb(x):
        return x * (x - 1) / 2.0

    pairs = comb(n)
    if pairs == 0:
        return 1.0
    disagree = comb(C.sum(1)).sum() + comb(C.sum(0)).sum() - 2 * comb(C).sum()
    return float(1.0 - disagree / pairs)


def two_ce(pred_t: ArrayLike, pred_p: ArrayLike) -> float:
    """2CE, the 2-combination enumeration error (paper §6.2): inconsistent test pairs / C(TT, 2) = 1 - Rand.

    Examples
    --------
    >>> round(two_ce([0, 0, 1, 1], [0, 1, 0, 1]), 4)
    0.6667
    """
    return 1.0 - rand_index(pred_t, pred_p)


def f_measure(true_labels: ArrayLike, labels: ArrayLike) -> float:
    """The clustering F-measure of the WaveCluster paper's Fig. 7: each true cluster matched with its best cluster.

    ``F = Σ_i (|T_i| / Σ_i |T_i|) · max_j 2 |T_i ∩ P_j| / (|T_i| + |P_j|)`` over the true clusters ``T_i`` and the
    found clusters ``P_j`` of the same points; a label of -1 (or any negative label) puts a point in no cluster.
    The paper does not print its formula; this is the standard set-matching F-measure (Larsen & Aone 1999).
    It rewards a found cluster that covers a true one even when other found clusters split the rest, which is why
    it can stay high while the number of clusters is far off.

    Examples
    --------
    >>> f_measure([0, 0, 1, 1], [5, 5, 7, 7]), round(f_measure([0, 0, 1, 1], [0, 0, 0, 0]), 4)
    (1.0, 0.6667)
    """
    t = _labels(true_labels, "true_labels", integer=True).ravel()
    p = _labels(labels, "labels", integer=True).ravel()
    if t.shape != p.shape:
        raise ValueError(f"true_labels and labels must have the same length, got {t.size} and {p.size}")
    in_t, in_p = t >= 0, p >= 0
    if not in_t.any():
        raise ValueError("true_labels puts no point in a cluster (every label is negative)")
    if not in_p.any():
        return 0.0
    _, ti = np.unique(t[in_t], return_inverse=True)
    _, pi = np.unique(p[in_p], return_inverse=True)
    if (ti.max() + 1) * (pi.max() + 1) > MAX_ALLOCATION // 8:
        raise ValueError("true_labels/labels: too many clusters for the table of intersections")
    both_t, both_p = in_p[in_t], in_t[in_p]  # points in a cluster of both labellings, in the same order
    inter = np.zeros((ti.max() + 1, pi.max() + 1))
    np.add.at(inter, (ti[both_t], pi[both_p]), 1)  # |T_i ∩ P_j|
    size_t, size_p = np.bincount(ti), np.bincount(pi)
    f1 = 2.0 * inter / (size_t[:, None] + size_p[None, :])
    return float(size_t @ f1.max(axis=1) / size_t.sum())


@validate_params(k=Real(0.0, low_open=True))
def k_relative_error(k_prime: float | ArrayLike, k: float) -> float:
    """Relative error of the private number of significant cells, ``|k' - k| / k`` (paper §7.2).

    For an array of k' (several runs), the relative error of their mean, as the paper reports it.

    Examples
    --------
    >>> round(k_relative_error([141.0, 143.0], 144), 4)
    0.0139
    """
    kp = _labels(k_prime if isinstance(k_prime, (str, bytes)) else np.atleast_1d(k_prime), "k_prime")
    return abs(float(np.mean(kp)) - k) / k
