"""Seeded data generators and the scaling of data into a public domain.

The papers' real datasets cannot be downloaded by a reader's notebook, so the book uses seeded
stand-ins (spec ``dp-basics-and-kmeans.md`` §4.2):

* :func:`make_blobs_ratio` — the thesis's *Synthe* sets: k Gaussian clusters with sizes in ratio
  1 : 2 : ... : k, plus a few uniform outliers. R's ``clusterGeneration`` (used by the thesis) is not
  available; a numpy generator with a controllable separation replaces it.
* :func:`make_s1_like` — a stand-in for Fränti's S1 (5,000 points, 15 Gaussian clusters in 2-D).

Domain handling (spec §3.1): the domain bounds are **public** inputs. :func:`scale_to_domain` maps
data from the public bounds into ``[-r, r]^d`` and **clips** points that lie outside the bounds onto
the boundary (it reports how many were clipped). Nothing is read off the data.
"""
from __future__ import annotations

import numpy as np

from ._validation import check_bounds, check_data, check_positive_int, check_rng

__all__ = ["make_blobs_ratio", "make_s1_like", "scale_to_domain", "unscale_from_domain", "clip_to_domain"]


def _place_centers(k, d, min_dist, rng, low=-0.8, high=0.8, max_tries=2000):
    """k centres uniform in [low, high]^d, rejection-sampled to be at least ``min_dist`` apart."""
    centers = np.empty((0, d))
    tries = 0
    while centers.shape[0] < k:
        c = rng.uniform(low, high, size=(1, d))
        if centers.shape[0] == 0 or np.min(np.linalg.norm(centers - c, axis=1)) >= min_dist:
            centers = np.vstack([centers, c])
        tries += 1
        if tries > max_tries:  # relax the separation rather than loop forever
            min_dist *= 0.9
            tries = 0
    return centers


def make_blobs_ratio(n_samples=10_000, n_clusters=5, n_features=2, *, separation=0.21, n_outliers=None,
                     r=1.0, random_state=None, return_centers=False):
    """Gaussian clusters with sizes in ratio 1:2:...:k plus uniform outliers, in ``[-r, r]^d``.

    A stand-in for the thesis's *Synthe* datasets (clusterGeneration, sizes ∝ 1:2:…:k, outliers
    uniform, separation sampled from [0.16, 0.26]). ``separation`` plays the role of clusterGeneration's
    ``sepVal`` (0.01 close, 0.21 separated, 0.34 well separated): cluster standard deviations are
    chosen so that neighbouring clusters are ``(1 + 6·separation)`` pooled standard deviations apart
    per side, with isotropic Gaussians in place of clusterGeneration's random rotations.

    Parameters
    ----------
    n_samples : int
        Number of clustered points (outliers come on top, as in the thesis).
    n_outliers : int, optional
        Number of uniform outliers on ``[-r, r]^d``; by default drawn uniformly from 0..100.
    Returns
    -------
    X : ndarray (n_samples + n_outliers, n_features)
    y : ndarray of int, cluster label per point, -1 for outliers
    centers : ndarray (n_clusters, n_features), only with ``return_centers=True``
    """
    n = check_positive_int(n_samples, "n_samples")
    k = check_positive_int(n_clusters, "n_clusters")
    d = check_positive_int(n_features, "n_features")
    if k > n:
        raise ValueError(f"n_clusters={k} is larger than n_samples={n}")
    if not (0 <= separation < 1):
        raise ValueError(f"separation must lie in [0, 1), got {separation!r}")
    rng = check_rng(random_state)
    if n_outliers is None:
        n_outliers = int(rng.integers(0, 101))
    n_outliers = check_positive_int(n_outliers, "n_outliers", minimum=0)
    weights = np.arange(1, k + 1, dtype=float)
    sizes = np.floor(n * weights / weights.sum()).astype(int)
    sizes[-1] += n - sizes.sum()
    # centres in the unit cube [-0.8, 0.8]^d (times r), spread with a minimum distance
    min_dist = 1.6 / max(k ** (1.0 / d), 1.0)
    centers = _place_centers(k, d, min_dist, rng) * r
    # nearest-neighbour distance sets the spread: dist = 2 * (1 + 6 sep) * sigma
    dists = np.linalg.norm(centers[:, None, :] - centers[None, :, :], axis=2)
    np.fill_diagonal(dists, np.inf)
    nn = dists.min(axis=1) if k > 1 else np.full(1, 0.8 * r)
    sigma = nn / (2.0 * (1.0 + 6.0 * separation))
    labels = np.repeat(np.arange(k), sizes)
    X = centers[labels] + rng.normal(size=(n, d)) * sigma[labels, None]
    out = rng.uniform(-r, r, size=(n_outliers, d))
    X = np.clip(np.vstack([X, out]), -r, r)
    y = np.concatenate([labels, np.full(n_outliers, -1)])
    perm = rng.permutation(X.shape[0])
    X, y = X[perm], y[perm]
    return (X, y, centers) if return_centers else (X, y)


def make_s1_like(n_samples=5000, *, random_state=None, return_centers=False):
    """A seeded stand-in for Fränti's S1: 15 Gaussian clusters in 2-D, scaled to ``[-1, 1]^2``.

    S1 has 5,000 points in 15 roughly equal, well-separated Gaussian clusters with a little overlap.
    This generator places 15 centres with a minimum distance, gives every cluster about ``n/15``
    points with slightly different anisotropic spreads, and returns labels 0..14.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=15)
    rng = check_rng(random_state)
    k = 15
    centers = _place_centers(k, 2, 0.36, rng, low=-0.85, high=0.85)
    sizes = np.full(k, n // k)
    sizes[: n - sizes.sum()] += 1
    labels = np.repeat(np.arange(k), sizes)
    scales = rng.uniform(0.035, 0.06, size=(k, 2))
    angles = rng.uniform(0, np.pi, size=k)
    Z = rng.normal(size=(n, 2)) * scales[labels]
    c, s = np.cos(angles[labels]), np.sin(angles[labels])
    X = centers[labels] + np.column_stack([c * Z[:, 0] - s * Z[:, 1], s * Z[:, 0] + c * Z[:, 1]])
    X = np.clip(X, -1.0, 1.0)
    perm = rng.permutation(n)
    X, labels = X[perm], labels[perm]
    return (X, labels, centers) if return_centers else (X, labels)


def clip_to_domain(X, bounds):
    """Clip every coordinate of ``X`` onto the public ``bounds``; returns ``(X_clipped, n_clipped_points)``."""
    X = check_data(X)
    low, high = check_bounds(bounds, X.shape[1])
    Xc = np.clip(X, low, high)
    n_clipped = int(np.any(Xc != X, axis=1).sum())
    return Xc, n_clipped


def scale_to_domain(X, bounds, r=1.0, *, return_n_clipped=False):
    """Map ``X`` from the public box ``bounds`` into ``[-r, r]^d`` (spec §3.1), clipping outliers.

    Points outside ``bounds`` are **clipped** onto the boundary first. Clipping is what keeps the
    sensitivity of a coordinate sum at ``r``; the number of clipped points is returned when
    ``return_n_clipped=True`` (it is computed on the private data and is for the data owner's eyes).
    """
    if not (np.isfinite(r) and r > 0):
        raise ValueError(f"r must be finite and > 0, got {r!r}")
    Xc, n_clipped = clip_to_domain(X, bounds)
    low, high = check_bounds(bounds, Xc.shape[1])
    Z = (Xc - low) / (high - low) * (2 * r) - r
    return (Z, n_clipped) if return_n_clipped else Z


def unscale_from_domain(Z, bounds, r=1.0):
    """Inverse of :func:`scale_to_domain` (without the clipping): from ``[-r, r]^d`` back to ``bounds``."""
    Z = check_data(Z, "Z")
    low, high = check_bounds(bounds, Z.shape[1])
    return (Z + r) / (2 * r) * (high - low) + low
