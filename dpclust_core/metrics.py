"""Clustering quality metrics (the ground floor: no algorithm module is imported here).

* :func:`nicv` — Normalised Intra-Cluster Variance, the thesis's objective and metric, Eq. (2.8):
  ``NICV = (1/N) Σ_l min_j ||x_l − o_j||²`` (normalised by N only).
* :func:`wcss` — within-cluster sum of squares, ``N · NICV`` (the metric of Lee & Kifer).
* :func:`squared_distances`, :func:`assign` — the nearest-centre helpers, computed in blocks of rows by the
  shared kernels (no n × k × d temporary).

The WaveCluster paper's evaluation metrics (DSG_C, OCM, 2CE, the F-measure) and its classification protocol are
the book's (``dpclust_book.evaluation``).

Every function validates its input and raises a ``ValueError``/``TypeError`` naming the argument (NaN, inf,
strings, wrong shapes); none returns NaN for NaN input.
"""
from __future__ import annotations

import numpy as np

from . import _kernels
from ._validation import ArrayLike, check_data

__all__ = ["nicv", "wcss", "squared_distances", "assign"]


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
