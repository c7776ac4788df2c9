"""Clustering quality metrics (the ground floor: no algorithm module is imported here).

* :func:`nicv` — Normalised Intra-Cluster Variance, the thesis's objective and metric, Eq. (2.8):
  ``NICV = (1/N) Σ_l min_j ||x_l − o_j||²`` (normalised by N only).
* :func:`wcss` — within-cluster sum of squares, ``N · NICV`` (the metric of Lee & Kifer).
* :func:`squared_distances`, :func:`assign` — the nearest-centre helpers, computed in blocks of rows by the
  shared kernels (no n × k × d temporary).

* :func:`f_measure` — how well a clustering recovers known classes (the set-matching F-measure).

The WaveCluster paper's other evaluation metrics (DSG_C, OCM, 2CE) and its classification protocol are the
book's (``dpclust_book.evaluation``).

Every function validates its input and raises a ``ValueError``/``TypeError`` naming the argument (NaN, inf,
strings, wrong shapes); none returns NaN for NaN input.
"""
from __future__ import annotations

import numpy as np

from . import _kernels
from ._validation import MAX_ALLOCATION, ArrayLike, check_data, check_labels

__all__ = ["nicv", "wcss", "squared_distances", "assign", "f_measure"]


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
    t = check_labels(true_labels, "true_labels", integer=True).ravel()
    p = check_labels(labels, "labels", integer=True).ravel()
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
