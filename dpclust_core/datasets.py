"""A seeded synthetic data generator to try the estimators on.

* :func:`make_blobs_ratio` — the thesis's *Synthe* sets: k Gaussian clusters with sizes in ratio
  1 : 2 : ... : k, plus a few uniform outliers, in ``[-r, r]^d``. R's ``clusterGeneration`` (used by the thesis)
  is not available; a numpy generator with a controllable separation replaces it.

It takes ``random_state`` (None, an int seed or a ``numpy.random.Generator``; never the global state) and returns
the same data for the same seed. Its random draws make synthetic data; none of them is privacy noise (each is
marked so in a comment). The book's stand-ins for the papers' data sets
live in ``dpclust_book.datasets``.
"""
from __future__ import annotations

import numpy as np

from ._validation import (MAX_ALLOCATION, RNGLike, check_bool, check_half_width, check_positive_int, check_real,
                          check_rng)

__all__ = ["make_blobs_ratio"]


#: Largest number of clusters :func:`make_blobs_ratio` places (its rejection sampling is quadratic in k).
MAX_BLOB_CLUSTERS = 1000


def _n_samples(n_samples, minimum=1, n_features=1):
    """The number of rows a generator makes: an int >= ``minimum``, with rows x features under the public cap."""
    return check_positive_int(n_samples, "n_samples", minimum=minimum, maximum=MAX_ALLOCATION // max(n_features, 1))


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


def make_blobs_ratio(n_samples: int = 10_000, n_clusters: int = 5, n_features: int = 2, *,
                     separation: float = 0.21, n_outliers: int | None = None, r: float = 1.0,
                     random_state: RNGLike = None, return_centers: bool = False) -> tuple[np.ndarray, ...]:
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
    n_clusters : int
        k, the number of Gaussian clusters (at most ``n_samples`` and :data:`MAX_BLOB_CLUSTERS`).
    n_features : int
        d, the dimension.
    separation : float, default 0.21
        In [0, 1): clusterGeneration's ``sepVal`` (larger is better separated).
    n_outliers : int, optional
        Number of uniform outliers on ``[-r, r]^d``; by default drawn uniformly from 0..100.
    r : float, default 1.0
        Half-width of the domain ``[-r, r]^d`` (> 0).
    random_state : None, int or numpy.random.Generator
    return_centers : bool, default False
        Also return the generating centres.

    Returns
    -------
    X : ndarray (n_samples + n_outliers, n_features)
    y : ndarray of int, cluster label per point, -1 for outliers
    centers : ndarray (n_clusters, n_features), only with ``return_centers=True``

    Examples
    --------
    >>> X, y = make_blobs_ratio(600, 3, 2, n_outliers=5, random_state=0)
    >>> X.shape, sorted(np.bincount(y[y >= 0]).tolist()), int((y == -1).sum())
    ((605, 2), [100, 200, 300], 5)
    """
    d = check_positive_int(n_features, "n_features", maximum=MAX_ALLOCATION)
    n = _n_samples(n_samples, n_features=d)
    k = check_positive_int(n_clusters, "n_clusters", maximum=MAX_BLOB_CLUSTERS)
    if k > n:
        raise ValueError(f"n_clusters={k} is larger than n_samples={n}")
    separation = check_real(separation, "separation", low=0.0, high=1.0, high_open=True)
    r = check_half_width(r)
    return_centers = check_bool(return_centers, "return_centers")
    rng = check_rng(random_state, "random_state")
    if n_outliers is None:
        n_outliers = int(rng.integers(0, 101))
    n_outliers = check_positive_int(n_outliers, "n_outliers", minimum=0, maximum=MAX_ALLOCATION // d - n)
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
    X = centers[labels] + rng.normal(size=(n, d)) * sigma[labels, None]  # not privacy noise: synthetic data
    out = rng.uniform(-r, r, size=(n_outliers, d))
    X = np.clip(np.vstack([X, out]), -r, r)
    y = np.concatenate([labels, np.full(n_outliers, -1)])
    perm = rng.permutation(X.shape[0])
    X, y = X[perm], y[perm]
    return (X, y, centers) if return_centers else (X, y)
