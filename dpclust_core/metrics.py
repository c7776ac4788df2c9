"""Clustering quality metrics.

* :func:`nicv` — Normalised Intra-Cluster Variance, the thesis's objective and metric, Eq. (2.8):
  ``NICV = (1/N) Σ_l min_j ||x_l − o_j||²`` (normalised by N only), spec §2.1 and §4.1.
* :func:`wcss` — within-cluster sum of squares, ``N · NICV`` (the metric of Lee & Kifer).
"""
from __future__ import annotations

import numpy as np

from ._validation import check_data

__all__ = ["nicv", "wcss", "squared_distances", "assign"]


def squared_distances(X, centers) -> np.ndarray:
    """Squared Euclidean distances, shape (N, k), computed without an (N, k, d) intermediate."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(centers, dtype=float)
    d2 = (X * X).sum(axis=1)[:, None] - 2.0 * X @ C.T + (C * C).sum(axis=1)[None, :]
    return np.maximum(d2, 0.0)


def assign(X, centers) -> np.ndarray:
    """Index of the nearest centre for every point (ties go to the lowest index)."""
    return np.argmin(squared_distances(X, centers), axis=1)


def _check(X, centers):
    X = check_data(X)
    C = check_data(centers, "centers")
    if C.shape[1] != X.shape[1]:
        raise ValueError(f"centers has {C.shape[1]} features but X has {X.shape[1]}")
    return X, C


def wcss(X, centers) -> float:
    """Within-cluster sum of squares: ``Σ_l min_j ||x_l − o_j||²``."""
    X, C = _check(X, centers)
    return float(squared_distances(X, C).min(axis=1).sum())


def nicv(X, centers) -> float:
    """Normalised intra-cluster variance, Eq. (2.8): ``(1/N) Σ_l min_j ||x_l − o_j||²``."""
    X, C = _check(X, centers)
    return float(squared_distances(X, C).min(axis=1).mean())
