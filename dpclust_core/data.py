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

__all__ = ["make_blobs_ratio", "make_s1_like", "scale_to_domain", "unscale_from_domain", "clip_to_domain",
           "make_tiger_like"]


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
    if not (np.isfinite(r) and r > 0):
        raise ValueError(f"r must be finite and > 0, got {r!r}")
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
    points with slightly different anisotropic spreads (standard deviations 0.047–0.083 of the
    half-width per axis), and returns labels 0..14.

    Calibration (``random_state=0``) against the real S1 (``../shared/data/s1.arff``, scaled to
    ``[-1, 1]^2`` by its min/max): best-of-30 Lloyd NICV for k = 15 is 0.0084 (real 0.0082); the mean
    NICV of 10 runs of DPLloyd-Impr is 0.068 / 0.025 / 0.020 at eps = 0.1 / 0.5 / 1 (real 0.074 / 0.027 /
    0.022). What differs: random centre positions (not S1's layout) and no elongated cluster.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=15)
    rng = check_rng(random_state)
    k = 15
    centers = _place_centers(k, 2, 0.36, rng, low=-0.85, high=0.85)
    sizes = np.full(k, n // k)
    sizes[: n - sizes.sum()] += 1
    labels = np.repeat(np.arange(k), sizes)
    scales = rng.uniform(0.047, 0.083, size=(k, 2))
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


# --------------------------------------------------------------------------- stand-ins for the thesis's
# chapter-4 datasets (spec dp-basics-and-kmeans.md §4.2). Every one is seeded, returns data already in the
# public domain [-1, 1]^d (the thesis normalises every attribute to [-1, 1]) and labels of the generating
# component; none is the real data, and each docstring says what differs.
def _cities(n, centers, spreads, weights, rng):
    """n points from a mixture of isotropic Gaussian 'cities' (vectorised)."""
    w = np.asarray(weights, float)
    lab = rng.choice(len(w), size=n, p=w / w.sum())
    X = np.asarray(centers)[lab] + rng.normal(size=(n, np.shape(centers)[1])) * np.asarray(spreads)[lab][:, None]
    return X, lab


def make_gowalla_like(n_samples=107_091, *, random_state=None):
    """Stand-in for the thesis's Gowalla set (one check-in location per user; 107,091 x 2; k = 5).

    Longitude/latitude of five populated regions (North America heaviest, as Gowalla was US-based; Europe;
    East Asia; South America; Oceania), each a mixture of many tight 'cities' with log-normal popularity,
    plus 3% of points uniform over land-like latitudes. Coordinates are mapped with the **public** bounds
    longitude [-180, 180], latitude [-90, 90] into [-1, 1]^2. What differs: synthetic city positions and
    weights; the real data's exact skew and coast-line shapes are not reproduced. Its best-of-Lloyd NICV for
    k = 5 is 0.015–0.02 over seeds, near the level the thesis reports for Gowalla (hybrid 0.02172 at eps = 0.7).

    Returns ``(X, y)``: X in [-1, 1]^2, y the region (0..4, 5 for background).
    """
    n = check_positive_int(n_samples, "n_samples", minimum=10)
    rng = check_rng(random_state)
    regions = [  # (lon, lat, lon spread, lat spread, share, number of cities)
        (-92.0, 37.0, 20.0, 7.0, 0.52, 60),
        (12.0, 47.0, 15.0, 7.0, 0.24, 40),
        (118.0, 30.0, 16.0, 10.0, 0.10, 25),
        (-52.0, -18.0, 9.0, 9.0, 0.06, 12),
        (145.0, -32.0, 7.0, 4.0, 0.05, 8),
    ]
    n_bg = int(round(0.03 * n))
    shares = np.array([g[4] for g in regions])
    sizes = np.floor((n - n_bg) * shares / shares.sum()).astype(int)
    sizes[0] += n - n_bg - sizes.sum()
    parts, labs = [], []
    for j, ((lon, lat, slon, slat, _, nc), sz) in enumerate(zip(regions, sizes)):
        cen = np.column_stack([rng.normal(lon, slon, nc), rng.normal(lat, slat, nc)])
        w = rng.lognormal(0.0, 1.2, nc)
        P, _ = _cities(sz, cen, rng.uniform(0.5, 4.0, nc), w, rng)
        parts.append(P)
        labs.append(np.full(sz, j))
    bg = np.column_stack([rng.uniform(-180, 180, n_bg), rng.uniform(-45, 65, n_bg)])
    parts.append(bg)
    labs.append(np.full(n_bg, len(regions)))
    X = np.vstack(parts)
    y = np.concatenate(labs)
    Z = scale_to_domain(X, ([-180.0, -90.0], [180.0, 90.0]))
    perm = rng.permutation(n)
    return Z[perm], y[perm]


def make_tiger_like(n_samples=16_281, *, random_state=None):
    """Stand-in for the TIGER set of the thesis and of Lee & Kifer (1% of the road intersections of Washington
    and New Mexico; 16,281 x 2; k = 2).

    Road intersections cluster in towns along roads: here 80 towns with log-normal sizes placed around two
    'states' (the left and right halves of the domain, as two regions mapped side by side), each town a
    Gaussian of random width, plus 10% of intersections spread uniformly over the two states. The domain is
    the public box [-1, 1]^2. What differs: no real road network, and the two 'states' touch in the middle
    of the domain rather than being two separate maps.

    Calibration: the only copy at hand, ``../shared/data/tiger-nm-wa.tsv``, does **not** look like road
    intersections: it has 29,910 points (the thesis's TIGER has 16,281) and, plotted, shows 15 compact
    Gaussian blobs in exactly the layout of Fränti's S1 (one of them elongated), i.e. an up-sampled S-set
    rather than two states. So this stand-in follows the thesis's *description* of TIGER (sizes, k = 2) and is
    calibrated only on the copy's k = 2 spread, which is dominated by the between-half variance: the
    best-of-Lloyd NICV for k = 2 is 0.320 with ``random_state=0`` (0.2–0.33 over other seeds) against 0.32 for
    the copy scaled to [-1, 1]^2 by its min/max, and DPLloyd-Impr's mean NICV (10 runs) agrees within 10% at
    eps = 0.1, 0.5, 1.

    Returns ``(X, y)``: X in [-1, 1]^2, y the 'state' (0 or 1).
    """
    n = check_positive_int(n_samples, "n_samples", minimum=10)
    rng = check_rng(random_state)
    n_towns = 80
    state = rng.integers(0, 2, n_towns)
    cx = np.where(state == 0, rng.uniform(-0.95, -0.05, n_towns), rng.uniform(0.05, 0.95, n_towns))
    cen = np.column_stack([cx, rng.uniform(-0.8, 0.8, n_towns)])
    n_bg = int(round(0.1 * n))
    P, lab = _cities(n - n_bg, cen, rng.uniform(0.01, 0.08, n_towns), rng.lognormal(0.0, 1.0, n_towns), rng)
    bg = rng.uniform(-1.0, 1.0, size=(n_bg, 2))
    X = np.clip(np.vstack([P, bg]), -1.0, 1.0)
    y = np.concatenate([state[lab], (bg[:, 0] > 0).astype(int)])
    perm = rng.permutation(n)
    return X[perm], y[perm]


def make_image_like(n_samples=34_112, *, random_state=None):
    """Stand-in for the thesis's Image set (RGB vectors of an image, Fränti; 34,112 x 3; k = 3).

    Pixels of a natural image: three broad, overlapping colour populations (dark shadows, mid-tone greens/browns,
    bright sky) stretched along the grey diagonal, clipped to [0, 255] and mapped with the public bounds
    [0, 255]^3 into [-1, 1]^3. What differs: synthetic colours; like the real set it has only weak cluster
    structure (the thesis's RT-validity barely separates k = 2 and k = 3).

    Returns ``(X, y)``: X in [-1, 1]^3, y the colour population.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=10)
    rng = check_rng(random_state)
    means = np.array([[45.0, 50.0, 40.0], [110.0, 125.0, 80.0], [185.0, 205.0, 230.0]])
    shares = np.array([0.3, 0.45, 0.25])
    lab = rng.choice(3, size=n, p=shares)
    grey = rng.normal(size=n) * np.array([22.0, 30.0, 20.0])[lab]
    X = means[lab] + grey[:, None] + rng.normal(size=(n, 3)) * np.array([10.0, 14.0, 12.0])[lab][:, None]
    X = np.clip(X, 0.0, 255.0)
    return scale_to_domain(X, (0.0, 255.0)), lab


#: Public bounds of :func:`make_adult_num_like`'s attributes (documented ranges of UCI Adult).
ADULT_NUM_BOUNDS = (np.array([17.0, 12_285.0, 1.0, 0.0, 0.0, 1.0]),
                    np.array([90.0, 1_490_400.0, 16.0, 99_999.0, 4_356.0, 99.0]))


def make_adult_num_like(n_samples=48_841, *, random_state=None, return_raw=False):
    """Stand-in for Adult-num (the six numerical attributes of UCI Adult; 48,841 x 6; k = 5).

    Attributes as in Adult: age (17–90, right-skewed), fnlwgt (log-normal), education-num (integers 1–16),
    capital-gain (92% zeros, the rest log-normal, capped at 99,999), capital-loss (95% zeros, the rest around
    1,900), hours-per-week (peaked at 40, 1–99). Mapped with the **public** bounds :data:`ADULT_NUM_BOUNDS`
    (the attributes' documented ranges) into [-1, 1]^6. What differs: the attributes are drawn independently
    given a latent 'worker type', so correlations are weaker than in the census data; like the real set the
    clusters are skewed and not well separated.

    Returns ``(X, y)`` (y the latent type), or ``(X_raw, y)`` in the original units with ``return_raw=True``.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=10)
    rng = check_rng(random_state)
    typ = rng.choice(4, size=n, p=[0.25, 0.4, 0.25, 0.1])  # student/young, mid, senior, retired-ish
    age = np.clip(np.array([22.0, 37.0, 50.0, 66.0])[typ] + rng.normal(size=n) * np.array([4, 7, 7, 6])[typ],
                  17, 90)
    fnlwgt = np.clip(rng.lognormal(12.0, 0.5, n), 12_285, 1_490_400)
    edu = np.clip(np.round(np.array([9.0, 10.0, 11.5, 9.5])[typ] + rng.normal(size=n) * 2.5), 1, 16)
    gain = np.where(rng.random(n) < 0.92, 0.0, np.clip(rng.lognormal(8.5, 1.1, n), 0, 99_999))
    gain[rng.random(n) < 0.005] = 99_999.0
    loss = np.where(rng.random(n) < 0.953, 0.0, np.clip(rng.normal(1900, 350, n), 0, 4_356))
    hours = np.clip(np.round(np.array([30.0, 42.0, 44.0, 28.0])[typ] + rng.normal(size=n) * 9), 1, 99)
    raw = np.column_stack([age, fnlwgt, edu, gain, loss, hours])
    if return_raw:
        return raw, typ
    return scale_to_domain(raw, ADULT_NUM_BOUNDS), typ


def make_lifesci_like(n_samples=26_733, *, random_state=None):
    """Stand-in for Lifesci (top 10 principal components of a life-science data set; 26,733 x 10; k = 3).

    Principal components: uncorrelated coordinates with decreasing variances (sd ∝ 1/sqrt(i)), with three
    overlapping groups shifted along the first two components; the public box is +-4 sd of the first component
    in every dimension, mapped to [-1, 1]^10 (points outside clipped). What differs: synthetic; like the real set
    the cluster structure is weak (the thesis's RT-validity is about 1 for every k).

    Returns ``(X, y)``: X in [-1, 1]^10, y the group.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=10)
    rng = check_rng(random_state)
    sd = 1.0 / np.sqrt(np.arange(1, 11))
    lab = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    shift = np.zeros((3, 10))
    shift[1, :2] = [1.4, 0.5]
    shift[2, :2] = [-1.2, 0.9]
    X = rng.normal(size=(n, 10)) * sd + shift[lab]
    return scale_to_domain(X, (-4.0, 4.0)), lab


__all__ += ["make_gowalla_like", "make_image_like", "make_adult_num_like", "make_lifesci_like",
            "ADULT_NUM_BOUNDS"]


# ----------------------------------------------------------------------------- WaveCluster look-alikes
__all__ += ["make_ds1_like", "make_ds2_like", "make_ds3_like", "WAVECLUSTER_PARAMS", "WAVECLUSTER_BOUNDS"]

#: The paper's WaveCluster parameters (grid_size g, density threshold p in percent) per dataset (Fig. 4,
#: spec wavecluster.md §3.6). The look-alikes below live in the public domain ``WAVECLUSTER_BOUNDS``.
WAVECLUSTER_PARAMS = {"ds1": (64, 58.0), "ds2": (40, 10.0), "ds3": (36, 23.0)}
WAVECLUSTER_BOUNDS = (0.0, 1.0)

_DS1_CENTERS = np.array([
    (0.25, 0.85), (0.42, 0.79), (0.68, 0.86), (0.86, 0.72), (0.13, 0.55), (0.33, 0.57), (0.61, 0.57),
    (0.87, 0.55), (0.17, 0.35), (0.42, 0.40), (0.62, 0.40), (0.77, 0.34), (0.33, 0.17), (0.53, 0.18),
    (0.87, 0.17)])


def _upsample(seeds, n_samples, jitter, rng):
    """Repeat ``seeds`` to ``n_samples`` points (as the paper's sets up-sample classic small sets) with jitter."""
    reps = np.resize(np.arange(seeds.shape[0]), n_samples)
    return seeds[reps] + rng.normal(scale=jitter, size=(n_samples, 2)), reps


def make_ds1_like(n_samples=30_000, *, random_state=None):
    """Seeded look-alike of the WaveCluster paper's DS1: 15 Gaussian clusters with graded overlap, in [0, 1]^2.

    Fixed centres in the layout of the paper's Fig. 4 (S-set style), random anisotropic spreads (one cluster
    elongated), equal sizes. Returns ``(X, y)`` with ``y`` the generating cluster 0..14. Paper's
    ``(g, p) = WAVECLUSTER_PARAMS["ds1"] = (64, 58)``.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=15)
    rng = check_rng(random_state)
    k = 15
    y = np.resize(np.arange(k), n)
    scales = rng.uniform(0.025, 0.036, size=(k, 2))
    scales[11] = (0.04, 0.007)  # the thin diagonal cluster
    angles = rng.uniform(0, np.pi, size=k)
    angles[11] = 1.25
    Z = rng.normal(size=(n, 2)) * scales[y]
    c, s = np.cos(angles[y]), np.sin(angles[y])
    X = _DS1_CENTERS[y] + np.column_stack([c * Z[:, 0] - s * Z[:, 1], s * Z[:, 0] + c * Z[:, 1]])
    X = np.clip(X, 0.0, 1.0)
    perm = rng.permutation(n)
    return X[perm], y[perm]


def make_ds2_like(n_samples=31_200, *, random_state=None):
    """Seeded look-alike of DS2: three interleaved spirals (Chang & Yeung's Spiral, 312 seeds) up-sampled.

    Each arm is an Archimedean spiral of 104 seed points winding three quarters of a turn outwards from near the centre,
    the heads of the three spirals close together; every seed is repeated to ``n_samples`` points with a small
    Gaussian jitter. Returns ``(X, y)`` with the arm 0..2. Paper's ``(g, p) = (40, 10)``.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=312)
    rng = check_rng(random_state)
    t = np.linspace(0.0, 1.0, 104)
    seeds, arms = [], []
    for j in range(3):
        theta = 2 * np.pi * j / 3 + 1.5 * np.pi * t
        r = 0.10 + 0.37 * t
        seeds.append(np.column_stack([0.53 + r * np.cos(theta), 0.52 + r * np.sin(theta)]))
        arms.append(np.full(104, j))
    seeds, arms = np.vstack(seeds), np.concatenate(arms)
    X, reps = _upsample(seeds, n, 0.0045, rng)
    X = np.clip(X, 0.0, 1.0)
    y = arms[reps]
    perm = rng.permutation(n)
    return X[perm], y[perm]


def _in_shapes(P):
    """Component of the DS3 look-alike each point falls in (-1: none); 5 WaveCluster clusters."""
    x, y = P[:, 0], P[:, 1]
    lab = np.full(P.shape[0], -1)
    # 0: big concave blob top-left (disk with a bite out of its right side)
    big = ((x - 0.25) / 0.17) ** 2 + ((y - 0.72) / 0.17) ** 2 <= 1
    bite = ((x - 0.43) / 0.09) ** 2 + ((y - 0.68) / 0.09) ** 2 <= 1
    lab[big & ~bite] = 0
    # 1: small disk top-middle
    lab[((x - 0.57) ** 2 + (y - 0.74) ** 2) <= 0.065 ** 2] = 1
    # 2: right dumbbell: two ellipses joined by a thin vertical bridge
    top = ((x - 0.88) / 0.08) ** 2 + ((y - 0.72) / 0.15) ** 2 <= 1
    bot = ((x - 0.88) / 0.08) ** 2 + ((y - 0.25) / 0.13) ** 2 <= 1
    bridge = (np.abs(x - 0.88) <= 0.012) & (y > 0.3) & (y < 0.65)
    lab[top | bot | bridge] = 2
    # 3: bottom dumbbell: big disk + small blob on the left, joined by a thin horizontal bridge
    disk = ((x - 0.50) ** 2 + (y - 0.24) ** 2) <= 0.17 ** 2
    blob = ((x - 0.18) / 0.06) ** 2 + ((y - 0.36) / 0.05) ** 2 <= 1
    hbr = (np.abs(y - 0.36) <= 0.012) & (x > 0.2) & (x < 0.36)
    lab[disk | blob | hbr] = 3
    # 4: small disk bottom-left
    lab[((x - 0.15) ** 2 + (y - 0.11) ** 2) <= 0.05 ** 2] = 4
    return lab


def make_ds3_like(n_samples=31_520, *, random_state=None):
    """Seeded look-alike of DS3 (Aggregation-like, 788 seeds up-sampled 40×): 5 clusters of various shapes.

    A concave blob, a small disk, two "dumbbells" (two sub-components joined by a narrow line-shaped bridge)
    and a small isolated disk; seeds are uniform in the shapes, each repeated with a tiny jitter. Returns
    ``(X, y)`` with the shape 0..4. Paper's ``(g, p) = (36, 23)``.
    """
    n = check_positive_int(n_samples, "n_samples", minimum=788)
    rng = check_rng(random_state)
    cand = rng.uniform(0.0, 1.0, size=(20_000, 2))
    lab = _in_shapes(cand)
    # the thin bridges are rare under uniform sampling; add explicit seeds along them
    tb = rng.uniform(0.3, 0.65, 20)
    hb = rng.uniform(0.2, 0.36, 14)
    bridges = np.vstack([np.column_stack([0.88 + rng.uniform(-0.008, 0.008, 20), tb]),
                         np.column_stack([hb, 0.36 + rng.uniform(-0.008, 0.008, 14)])])
    inside = cand[lab >= 0][: 788 - bridges.shape[0]]
    seeds = np.vstack([inside, bridges])
    seed_lab = _in_shapes(seeds)
    X, reps = _upsample(seeds, n, 0.0008, rng)
    X = np.clip(X, 0.0, 1.0)
    y = seed_lab[reps]
    perm = rng.permutation(n)
    return X[perm], y[perm]


# ----------------------------------------------------------------------------- WaveCluster real files: public bounds
__all__ += ["WAVECLUSTER_REAL_BOUNDS", "WAVECLUSTER_REAL_N"]

#: Public domains ``(lows, highs)`` of the paper's real DS1–DS3 files (``../shared/data/wavecluster-*.csv``,
#: tests and benchmarks only). They are the extent of each published file, fixed here ONCE as constants, which
#: is the paper's setting (its non-private WaveCluster grids the data's box) while keeping the private
#: estimators honest: a private run receives these numbers as a public input and never computes a min/max of
#: the data it is given, so a neighbouring dataset (one record added or removed) gets the same grid.
WAVECLUSTER_REAL_BOUNDS = {
    "ds1": (np.array([20_406.0, 51_397.0]), np.array([963_731.0, 972_296.0])),
    "ds2": (np.array([90_045.0, 87_019.0]), np.array([964_418.0, 955_379.0])),
    "ds3": (np.array([100_504.0, 58_503.0]), np.array([1_097_098.0, 875_093.0])),
}
#: Published sizes of the same files (paper §7.1), for ``n_public`` (Baseline's AG grid, PrivTHR_EM's ``upper``).
WAVECLUSTER_REAL_N = {"ds1": 30_000, "ds2": 31_200, "ds3": 31_520}
