"""The book's seeded stand-ins for the papers' data sets.

The papers' real datasets cannot be downloaded by a reader's notebook, so the book uses seeded
stand-ins:

* :func:`~dpclust_core.datasets.make_blobs_ratio` (re-exported from the library) — the thesis's *Synthe* sets.
* :func:`make_s1_like` — a stand-in for Fränti's S1 (5,000 points, 15 Gaussian clusters in 2-D).
* the thesis's chapter-4 sets (Gowalla, TIGER, Image, Adult, Lifesci), the WaveCluster paper's DS1–DS3 and
  high-dimensional k-means sets (Letter, Segment, an LSH mixture), with their public bounds.

Every generator takes ``random_state`` (None, an int seed or a ``numpy.random.Generator``; never the global
state) and returns the same data for the same seed. Their random draws make synthetic data; none of them is
privacy noise (which is drawn only in :mod:`dpclust_core.mechanisms`).
"""
from __future__ import annotations

import numpy as np

from dpclust_core._validation import MAX_ALLOCATION, RNGLike, check_bool, check_positive_int, check_real, check_rng
from dpclust_core.datasets import _n_samples, _place_centers, make_blobs_ratio

__all__ = ["make_blobs_ratio", "make_s1_like", "make_tiger_like"]


def _to_box(X, low, high, r=1.0):
    """The generators' own clip-and-scale into ``[-r, r]^d`` (kept bit for bit, so a seed gives the same data)."""
    Xc = np.clip(X, low, high)
    return (Xc - low) / (high - low) * (2 * r) - r


def make_s1_like(n_samples: int = 5000, *, random_state: RNGLike = None,
                 return_centers: bool = False) -> tuple[np.ndarray, ...]:
    """A seeded stand-in for Fränti's S1: 15 Gaussian clusters in 2-D, scaled to ``[-1, 1]^2``.

    S1 has 5,000 points in 15 roughly equal, well-separated Gaussian clusters with a little overlap.
    This generator places 15 centres with a minimum distance, gives every cluster about ``n/15``
    points with slightly different anisotropic spreads (standard deviations 0.047–0.083 of the
    half-width per axis), and returns labels 0..14.

    Calibration (``random_state=0``) against the real S1 (``s1.arff``, scaled to ``[-1, 1]^2`` by its
    min/max): best-of-30 Lloyd NICV for k = 15 is 0.0084 (real 0.0082); the mean
    NICV of 10 runs of DPLloyd-Impr is 0.068 / 0.025 / 0.020 at eps = 0.1 / 0.5 / 1 (real 0.074 / 0.027 /
    0.022). What differs: random centre positions (not S1's layout) and no elongated cluster.

    Parameters
    ----------
    n_samples : int, default 5000
        Number of points (>= 15).
    random_state : None, int or numpy.random.Generator
    return_centers : bool, default False

    Returns
    -------
    X : ndarray (n_samples, 2) in [-1, 1]^2
    labels : ndarray of int (0..14)
    centers : ndarray (15, 2), only with ``return_centers=True``

    Examples
    --------
    >>> X, y = make_s1_like(1500, random_state=0)
    >>> X.shape, np.bincount(y).tolist()[:3], bool(np.abs(X).max() <= 1)
    ((1500, 2), [100, 100, 100], True)
    """
    n = _n_samples(n_samples, 15, 2)
    return_centers = check_bool(return_centers, "return_centers")
    rng = check_rng(random_state, "random_state")
    k = 15
    centers = _place_centers(k, 2, 0.36, rng, low=-0.85, high=0.85)
    sizes = np.full(k, n // k)
    sizes[: n - sizes.sum()] += 1
    labels = np.repeat(np.arange(k), sizes)
    scales = rng.uniform(0.047, 0.083, size=(k, 2))
    angles = rng.uniform(0, np.pi, size=k)
    Z = rng.normal(size=(n, 2)) * scales[labels]  # not privacy noise: synthetic data
    c, s = np.cos(angles[labels]), np.sin(angles[labels])
    X = centers[labels] + np.column_stack([c * Z[:, 0] - s * Z[:, 1], s * Z[:, 0] + c * Z[:, 1]])
    X = np.clip(X, -1.0, 1.0)
    perm = rng.permutation(n)
    X, labels = X[perm], labels[perm]
    return (X, labels, centers) if return_centers else (X, labels)


# --------------------------------------------------------------------------- stand-ins for the thesis's
# chapter-4 datasets (spec dp-basics-and-kmeans.md §4.2). Every one is seeded, returns data already in the
# public domain [-1, 1]^d (the thesis normalises every attribute to [-1, 1]) and labels of the generating
# component; none is the real data, and each docstring says what differs.
def _cities(n, centers, spreads, weights, rng):
    """n points from a mixture of isotropic Gaussian 'cities' (vectorised)."""
    w = np.asarray(weights, float)
    lab = rng.choice(len(w), size=n, p=w / w.sum())
    Z = rng.normal(size=(n, np.shape(centers)[1]))  # not privacy noise: synthetic data
    X = np.asarray(centers)[lab] + Z * np.asarray(spreads)[lab][:, None]
    return X, lab


def make_gowalla_like(n_samples: int = 107_091, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for the thesis's Gowalla set (one check-in location per user; 107,091 x 2; k = 5).

    Longitude/latitude of five populated regions (North America heaviest, as Gowalla was US-based; Europe;
    East Asia; South America; Oceania), each a mixture of many tight 'cities' with log-normal popularity,
    plus 3% of points uniform over land-like latitudes. Coordinates are mapped with the **public** bounds
    longitude [-180, 180], latitude [-90, 90] into [-1, 1]^2. What differs: synthetic city positions and
    weights; the real data's exact skew and coast-line shapes are not reproduced. Its best-of-Lloyd NICV for
    k = 5 is 0.015–0.02 over seeds, near the level the thesis reports for Gowalla (hybrid 0.02172 at eps = 0.7).

    Returns ``(X, y)``: X in [-1, 1]^2, y the region (0..4, 5 for background).

    Examples
    --------
    >>> X, y = make_gowalla_like(2_000, random_state=0)
    >>> X.shape, sorted(set(y.tolist())), bool(np.abs(X).max() <= 1)
    ((2000, 2), [0, 1, 2, 3, 4, 5], True)
    """
    n = _n_samples(n_samples, 10, 2)
    rng = check_rng(random_state, "random_state")
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
        cen = np.column_stack([rng.normal(lon, slon, nc),  # not privacy noise: synthetic data
                               rng.normal(lat, slat, nc)])  # not privacy noise: synthetic data
        w = rng.lognormal(0.0, 1.2, nc)  # not privacy noise: synthetic data
        P, _ = _cities(sz, cen, rng.uniform(0.5, 4.0, nc), w, rng)
        parts.append(P)
        labs.append(np.full(sz, j))
    bg = np.column_stack([rng.uniform(-180, 180, n_bg), rng.uniform(-45, 65, n_bg)])
    parts.append(bg)
    labs.append(np.full(n_bg, len(regions)))
    X = np.vstack(parts)
    y = np.concatenate(labs)
    Z = _to_box(X, np.array([-180.0, -90.0]), np.array([180.0, 90.0]))
    perm = rng.permutation(n)
    return Z[perm], y[perm]


def make_tiger_like(n_samples: int = 16_281, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for the TIGER set of the thesis and of Lee & Kifer (1% of the road intersections of Washington
    and New Mexico; 16,281 x 2; k = 2).

    Road intersections cluster in towns along roads: here 80 towns with log-normal sizes placed around two
    'states' (the left and right halves of the domain, as two regions mapped side by side), each town a
    Gaussian of random width, plus 10% of intersections spread uniformly over the two states. The domain is
    the public box [-1, 1]^2. What differs: no real road network, and the two 'states' touch in the middle
    of the domain rather than being two separate maps.

    Calibration: the TIGER file we could obtain (``tiger-nm-wa.tsv``) does **not** look like road
    intersections: it has 29,910 points (the thesis's TIGER has 16,281) and, plotted, shows 15 compact
    Gaussian blobs in exactly the layout of Fränti's S1 (one of them elongated), i.e. an up-sampled S-set
    rather than two states. So this stand-in follows the thesis's *description* of TIGER (sizes, k = 2) and is
    calibrated only on that file's k = 2 spread, which is dominated by the between-half variance: the
    best-of-Lloyd NICV for k = 2 is 0.320 with ``random_state=0`` (0.2–0.33 over other seeds) against 0.32 for
    the file scaled to [-1, 1]^2 by its min/max, and DPLloyd-Impr's mean NICV (10 runs) agrees within 10% at
    eps = 0.1, 0.5, 1.

    Returns ``(X, y)``: X in [-1, 1]^2, y the 'state' (0 or 1).

    Examples
    --------
    >>> X, y = make_tiger_like(1_000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 2), [0, 1])
    """
    n = _n_samples(n_samples, 10, 2)
    rng = check_rng(random_state, "random_state")
    n_towns = 80
    state = rng.integers(0, 2, n_towns)
    cx = np.where(state == 0, rng.uniform(-0.95, -0.05, n_towns), rng.uniform(0.05, 0.95, n_towns))
    cen = np.column_stack([cx, rng.uniform(-0.8, 0.8, n_towns)])
    n_bg = int(round(0.1 * n))
    spreads = rng.uniform(0.01, 0.08, n_towns)
    pop = rng.lognormal(0.0, 1.0, n_towns)  # not privacy noise: synthetic data
    P, lab = _cities(n - n_bg, cen, spreads, pop, rng)
    bg = rng.uniform(-1.0, 1.0, size=(n_bg, 2))
    X = np.clip(np.vstack([P, bg]), -1.0, 1.0)
    y = np.concatenate([state[lab], (bg[:, 0] > 0).astype(int)])
    perm = rng.permutation(n)
    return X[perm], y[perm]


def make_image_like(n_samples: int = 34_112, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for the thesis's Image set (RGB vectors of an image, Fränti; 34,112 x 3; k = 3).

    Pixels of a natural image: three broad, overlapping colour populations (dark shadows, mid-tone greens/browns,
    bright sky) stretched along the grey diagonal, clipped to [0, 255] and mapped with the public bounds
    [0, 255]^3 into [-1, 1]^3. What differs: synthetic colours; like the real set it has only weak cluster
    structure (the thesis's RT-validity barely separates k = 2 and k = 3).

    Returns ``(X, y)``: X in [-1, 1]^3, y the colour population.

    Examples
    --------
    >>> X, y = make_image_like(1_000, random_state=0)
    >>> X.shape, bool(np.abs(X).max() <= 1)
    ((1000, 3), True)
    """
    n = _n_samples(n_samples, 10, 3)
    rng = check_rng(random_state, "random_state")
    means = np.array([[45.0, 50.0, 40.0], [110.0, 125.0, 80.0], [185.0, 205.0, 230.0]])
    shares = np.array([0.3, 0.45, 0.25])
    lab = rng.choice(3, size=n, p=shares)
    grey = rng.normal(size=n) * np.array([22.0, 30.0, 20.0])[lab]  # not privacy noise: synthetic data
    E = rng.normal(size=(n, 3))  # not privacy noise: synthetic data
    X = means[lab] + grey[:, None] + E * np.array([10.0, 14.0, 12.0])[lab][:, None]
    X = np.clip(X, 0.0, 255.0)
    return _to_box(X, np.full(3, 0.0), np.full(3, 255.0)), lab


#: Public bounds of :func:`make_adult_num_like`'s attributes (documented ranges of UCI Adult).
ADULT_NUM_BOUNDS = (np.array([17.0, 12_285.0, 1.0, 0.0, 0.0, 1.0]),
                    np.array([90.0, 1_490_400.0, 16.0, 99_999.0, 4_356.0, 99.0]))


def make_adult_num_like(n_samples: int = 48_841, *, random_state: RNGLike = None,
                        return_raw: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for Adult-num (the six numerical attributes of UCI Adult; 48,841 x 6; k = 5).

    Attributes as in Adult: age (17–90, right-skewed), fnlwgt (log-normal), education-num (integers 1–16),
    capital-gain (92% zeros, the rest log-normal, capped at 99,999), capital-loss (95% zeros, the rest around
    1,900), hours-per-week (peaked at 40, 1–99). Mapped with the **public** bounds :data:`ADULT_NUM_BOUNDS`
    (the attributes' documented ranges) into [-1, 1]^6. What differs: the attributes are drawn independently
    given a latent 'worker type', so correlations are weaker than in the census data; like the real set the
    clusters are skewed and not well separated.

    Returns ``(X, y)`` (y the latent type), or ``(X_raw, y)`` in the original units with ``return_raw=True``.

    Examples
    --------
    >>> X, y = make_adult_num_like(1_000, random_state=0)
    >>> X.shape, bool(np.abs(X).max() <= 1)
    ((1000, 6), True)
    """
    n = _n_samples(n_samples, 10, 6)
    rng = check_rng(random_state, "random_state")
    typ = rng.choice(4, size=n, p=[0.25, 0.4, 0.25, 0.1])  # student/young, mid, senior, retired-ish
    age_z = rng.normal(size=n)  # not privacy noise: synthetic data
    age = np.clip(np.array([22.0, 37.0, 50.0, 66.0])[typ] + age_z * np.array([4, 7, 7, 6])[typ], 17, 90)
    fnlwgt = np.clip(rng.lognormal(12.0, 0.5, n), 12_285, 1_490_400)  # not privacy noise: synthetic data
    edu_z = rng.normal(size=n)  # not privacy noise: synthetic data
    edu = np.clip(np.round(np.array([9.0, 10.0, 11.5, 9.5])[typ] + edu_z * 2.5), 1, 16)
    no_gain = rng.random(n) < 0.92
    gain = np.where(no_gain, 0.0, np.clip(rng.lognormal(8.5, 1.1, n), 0, 99_999))  # not privacy noise: synthetic data
    gain[rng.random(n) < 0.005] = 99_999.0
    no_loss = rng.random(n) < 0.953
    loss = np.where(no_loss, 0.0, np.clip(rng.normal(1900, 350, n), 0, 4_356))  # not privacy noise: synthetic data
    hours_z = rng.normal(size=n)  # not privacy noise: synthetic data
    hours = np.clip(np.round(np.array([30.0, 42.0, 44.0, 28.0])[typ] + hours_z * 9), 1, 99)
    raw = np.column_stack([age, fnlwgt, edu, gain, loss, hours])
    if return_raw:
        return raw, typ
    return _to_box(raw, *ADULT_NUM_BOUNDS), typ


def make_lifesci_like(n_samples: int = 26_733, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for Lifesci (top 10 principal components of a life-science data set; 26,733 x 10; k = 3).

    Principal components: uncorrelated coordinates with decreasing variances (sd ∝ 1/sqrt(i)), with three
    overlapping groups shifted along the first two components; the public box is +-4 sd of the first component
    in every dimension, mapped to [-1, 1]^10 (points outside clipped). What differs: synthetic; like the real set
    the cluster structure is weak (the thesis's RT-validity is about 1 for every k).

    Returns ``(X, y)``: X in [-1, 1]^10, y the group.

    Examples
    --------
    >>> X, y = make_lifesci_like(1_000, random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((1000, 10), [0, 1, 2])
    """
    n = _n_samples(n_samples, 10, 10)
    rng = check_rng(random_state, "random_state")
    sd = 1.0 / np.sqrt(np.arange(1, 11))
    lab = rng.choice(3, size=n, p=[0.5, 0.3, 0.2])
    shift = np.zeros((3, 10))
    shift[1, :2] = [1.4, 0.5]
    shift[2, :2] = [-1.2, 0.9]
    X = rng.normal(size=(n, 10)) * sd + shift[lab]  # not privacy noise: synthetic data
    return _to_box(X, np.full(10, -4.0), np.full(10, 4.0)), lab


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
    return seeds[reps] + rng.normal(scale=jitter, size=(n_samples, 2)), reps  # not privacy noise: synthetic data


def make_ds1_like(n_samples: int = 30_000, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Seeded look-alike of the WaveCluster paper's DS1: 15 Gaussian clusters with graded overlap, in [0, 1]^2.

    Fixed centres in the layout of the paper's Fig. 4 (S-set style), random anisotropic spreads (one cluster
    elongated), equal sizes. Returns ``(X, y)`` with ``y`` the generating cluster 0..14. Paper's
    ``(g, p) = WAVECLUSTER_PARAMS["ds1"] = (64, 58)``.

    Examples
    --------
    >>> X, y = make_ds1_like(3_000, random_state=0)
    >>> X.shape, len(set(y.tolist())), bool(X.min() >= 0 and X.max() <= 1)
    ((3000, 2), 15, True)
    """
    n = _n_samples(n_samples, 15, 2)
    rng = check_rng(random_state, "random_state")
    k = 15
    y = np.resize(np.arange(k), n)
    scales = rng.uniform(0.025, 0.036, size=(k, 2))
    scales[11] = (0.04, 0.007)  # the thin diagonal cluster
    angles = rng.uniform(0, np.pi, size=k)
    angles[11] = 1.25
    Z = rng.normal(size=(n, 2)) * scales[y]  # not privacy noise: synthetic data
    c, s = np.cos(angles[y]), np.sin(angles[y])
    X = _DS1_CENTERS[y] + np.column_stack([c * Z[:, 0] - s * Z[:, 1], s * Z[:, 0] + c * Z[:, 1]])
    X = np.clip(X, 0.0, 1.0)
    perm = rng.permutation(n)
    return X[perm], y[perm]


def make_ds2_like(n_samples: int = 31_200, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Seeded look-alike of DS2: three interleaved spirals (Chang & Yeung's Spiral, 312 seeds) up-sampled.

    Each arm is an Archimedean spiral of 104 seed points winding three quarters of a turn outwards from near the centre,
    the heads of the three spirals close together; every seed is repeated to ``n_samples`` points with a small
    Gaussian jitter. Returns ``(X, y)`` with the arm 0..2. Paper's ``(g, p) = (40, 10)``.

    Examples
    --------
    >>> X, y = make_ds2_like(random_state=0)
    >>> X.shape, np.bincount(y).tolist()
    ((31200, 2), [10400, 10400, 10400])
    """
    n = _n_samples(n_samples, 312, 2)
    rng = check_rng(random_state, "random_state")
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


def make_ds3_like(n_samples: int = 31_520, *, random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Seeded look-alike of DS3 (Aggregation-like, 788 seeds up-sampled 40×): 5 clusters of various shapes.

    A concave blob, a small disk, two "dumbbells" (two sub-components joined by a narrow line-shaped bridge)
    and a small isolated disk; seeds are uniform in the shapes, each repeated with a tiny jitter. Returns
    ``(X, y)`` with the shape 0..4. Paper's ``(g, p) = (36, 23)``.

    Examples
    --------
    >>> X, y = make_ds3_like(random_state=0)
    >>> X.shape, sorted(set(y.tolist()))
    ((31520, 2), [0, 1, 2, 3, 4])
    """
    n = _n_samples(n_samples, 788, 2)
    rng = check_rng(random_state, "random_state")
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

#: Public domains ``(lows, highs)`` of the paper's real DS1–DS3 files (``wavecluster-ds1.csv`` ...), for runs on
#: those files where a reader has them. They are the extent of each published file, fixed here ONCE as constants,
#: which is the paper's setting (its non-private WaveCluster grids the data's box) while keeping the private
#: estimators honest: a private run receives these numbers as a public input and never computes a min/max of the
#: data it is given, so a neighbouring dataset (one record added or removed) gets the same grid.
WAVECLUSTER_REAL_BOUNDS = {
    "ds1": (np.array([20_406.0, 51_397.0]), np.array([963_731.0, 972_296.0])),
    "ds2": (np.array([90_045.0, 87_019.0]), np.array([964_418.0, 955_379.0])),
    "ds3": (np.array([100_504.0, 58_503.0]), np.array([1_097_098.0, 875_093.0])),
}
#: Published sizes of the same files (paper §7.1), for ``n_public`` (Baseline's AG grid, PrivTHR_EM's ``upper``).
WAVECLUSTER_REAL_N = {"ds1": 30_000, "ds2": 31_200, "ds3": 31_520}


# ----------------------------------------------------------------------------- high-dimensional k-means stand-ins
__all__ += ["make_lsh_mixture", "make_letter_like", "make_segment_like", "LETTER_BOUNDS", "SEGMENT_BOUNDS"]


def make_lsh_mixture(n_samples: int = 100_000, n_features: int = 100, n_clusters: int = 64, *,
                     cluster_ratio: float = 8.0, radius: float = 1.0,
                     random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """The synthetic benchmark of Google's private-clustering library: a tight mixture in the ball of ``radius``.

    As Google's ``learning/clustering/demo/data_generation.py`` with the parameters of its benchmark (100,000
    points, d = 100, 64 clusters, ``cluster_ratio = 8``): cluster centres uniform in the ball of radius
    ``radius (1 - 1/cluster_ratio)`` (0.875), equal cluster sizes (the remainder in the last cluster), Gaussian
    noise of standard deviation ``radius / (cluster_ratio sqrt(d))`` per coordinate (0.0125), and points outside
    the ball of ``radius`` scaled back onto it. The public domain is that ball: ``bounds=(-radius, radius)``
    with ``radius=radius``. What differs: a seeded numpy ``Generator`` replaces the global ``np.random`` state
    (other numbers, same distribution), the rows are shuffled, and the noise scale is ``radius / ...`` where
    Google writes ``sqrt(radius) / ...`` (the same for the default radius 1).

    Returns ``(X, y)``: X of shape (n_samples, n_features) with every row of norm <= radius, y the cluster.

    Examples
    --------
    >>> X, y = make_lsh_mixture(2_000, 20, 8, random_state=0)
    >>> X.shape, bool(np.linalg.norm(X, axis=1).max() <= 1 + 1e-12), len(set(y.tolist()))
    ((2000, 20), True, 8)
    """
    d = check_positive_int(n_features, "n_features", maximum=100_000)
    k = check_positive_int(n_clusters, "n_clusters", maximum=MAX_ALLOCATION)
    n = _n_samples(n_samples, k, d)
    ratio = check_real(cluster_ratio, "cluster_ratio", low=1.0, low_open=True)
    rad = check_real(radius, "radius", low=0.0, low_open=True)
    rng = check_rng(random_state, "random_state")
    g = rng.normal(size=(k, d))  # not privacy noise: synthetic data
    g *= (rad * (1 - 1 / ratio) * rng.random(k) ** (1.0 / d) / np.linalg.norm(g, axis=1))[:, None]
    sizes = np.full(k, n // k)
    sizes[-1] += n - sizes.sum()
    y = np.repeat(np.arange(k), sizes)
    X = g[y] + rng.normal(scale=rad / (ratio * np.sqrt(d)), size=(n, d))  # not privacy noise: synthetic data
    nrm = np.linalg.norm(X, axis=1)
    X *= np.minimum(1.0, rad / np.maximum(nrm, 1e-300))[:, None]
    perm = rng.permutation(n)
    return X[perm], y[perm]


#: Public bounds of :func:`make_letter_like`'s raw attributes: UCI Letter's 16 attributes are integers 0-15.
LETTER_BOUNDS = (np.zeros(16), np.full(16, 15.0))
_LETTER_MEAN = np.array([4.02, 7.04, 5.12, 5.37, 3.51, 6.90, 7.50, 4.63, 5.18, 8.28, 6.45, 7.93, 3.05, 8.34, 3.69,
                         7.80])
_LETTER_SD = np.array([1.91, 3.30, 2.01, 2.26, 2.19, 2.03, 2.33, 2.70, 2.38, 2.49, 2.63, 2.08, 2.33, 1.55, 2.57,
                       1.62])


def make_letter_like(n_samples: int = 20_000, *, random_state: RNGLike = None,
                     return_raw: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for UCI Letter Recognition (20,000 x 16; 26 letters; k = 16 in the private k-means benchmarks).

    Sixteen integer attributes in 0-15 with about the means and standard deviations documented for the real
    set (x-box 4.0 +- 1.9, y-box 7.0 +- 3.3, ..., yegvx 7.8 +- 1.6). Each record is a letter (26, equally
    likely) in one of 20 "fonts": its attributes are the letter's mean, plus the font's offset, plus, for the
    five size attributes (x-box, y-box, width, high, onpix), a shared "size" factor (which correlates them at
    about 0.5-0.6, as in the real data), plus noise; rounded and clipped to 0-15, then mapped with the public
    bounds :data:`LETTER_BOUNDS` into [-1, 1]^16. Variance shares per attribute: between letters 20 % (size
    attributes) / 50 % (shape attributes), fonts 10 % / 20 %, size factor 55 % / 0, noise the rest. What differs:
    the letters' means and the fonts are random, not the real glyph statistics, and the shape attributes are
    independent given letter and font; the non-private 16-means cost is about 58 % of the total variance (the
    real set's is not known to us).

    Returns ``(X, y)``: X in [-1, 1]^16, y the letter 0-25; or ``(X_raw, y)`` with ``return_raw=True``.

    Examples
    --------
    >>> X, y = make_letter_like(1_000, random_state=0)
    >>> X.shape, bool(np.abs(X).max() <= 1)
    ((1000, 16), True)
    """
    n = _n_samples(n_samples, 26, 16)
    rng = check_rng(random_state, "random_state")
    d = 16
    size_attr = np.arange(d) < 5
    between = np.where(size_attr, 0.2, 0.5)
    font = np.where(size_attr, 0.1, 0.2)
    size = np.where(size_attr, 0.55, 0.0)
    var = _LETTER_SD**2
    letter_mean = _LETTER_MEAN + rng.normal(size=(26, d)) * np.sqrt(between * var)  # not privacy noise: synthetic
    font_offset = rng.normal(size=(26, 20, d)) * np.sqrt(font * var)  # not privacy noise: synthetic data
    y = rng.integers(0, 26, n)
    f = rng.integers(0, 20, n)
    z = rng.normal(size=n)  # not privacy noise: synthetic data
    loading = np.sqrt(size * var) * np.where(np.arange(d) == 4, 0.8, 1.0)
    e = rng.normal(size=(n, d))  # not privacy noise: synthetic data
    raw = letter_mean[y] + font_offset[y, f] + z[:, None] * loading + e * np.sqrt((1 - between - font - size) * var)
    raw = np.clip(np.rint(raw), 0.0, 15.0)
    if return_raw:
        return raw, y
    return _to_box(raw, *LETTER_BOUNDS), y


#: Public bounds of :func:`make_segment_like`'s raw attributes: the ranges of UCI Image Segmentation's 18
#: non-constant attributes (region-centroid-col, -row, short-line-density-5, -2, vedge-mean, vegde-sd,
#: hedge-mean, hedge-sd, intensity-mean, rawred-mean, rawblue-mean, rawgreen-mean, exred-mean, exblue-mean,
#: exgreen-mean, value-mean, saturation-mean, hue-mean).
SEGMENT_BOUNDS = (np.array([1.0, 11.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -49.7, -12.4, -33.9, 0, 0, -3.04]),
                  np.array([254.0, 251.0, 0.333, 0.222, 29.2, 991.7, 44.7, 1386.3, 143.4, 137.1, 150.9, 142.6,
                            9.9, 82.0, 24.7, 150.9, 1.0, 2.91]))
_SEGMENT_CLASSES = (  # (R, G, B) mean, log-spread of the colour, image rows, edge level
    ((14.0, 6.0, 8.0), 0.35, (60.0, 200.0), 3.0),  # brickface
    ((108.0, 122.0, 138.0), 0.12, (11.0, 110.0), 0.4),  # sky
    ((6.0, 9.0, 5.0), 0.6, (30.0, 200.0), 2.5),  # foliage
    ((36.0, 38.0, 44.0), 0.25, (80.0, 251.0), 1.2),  # cement
    ((6.0, 7.0, 9.0), 0.7, (40.0, 190.0), 2.0),  # window
    ((24.0, 22.0, 27.0), 0.15, (150.0, 251.0), 0.7),  # path
    ((9.0, 18.0, 5.0), 0.35, (140.0, 251.0), 1.2),  # grass
)


def make_segment_like(n_samples: int = 2_310, *, random_state: RNGLike = None,
                      return_raw: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Stand-in for UCI Image Segmentation (2,310 x 18 without the constant region-pixel-count; 7 classes).

    Seven equally frequent classes of 3 x 3 outdoor-image regions (brickface, sky, foliage, cement, window,
    path, grass). Each record draws its mean raw red, green and blue from its class's colour (log-normal), and
    the other colour attributes are **computed** from them as in the real set (intensity = (R+G+B)/3,
    exred = 2R - G - B, exblue, exgreen, value = max, saturation, hue), which gives the real set's strong
    correlations; the region's column is uniform, its row depends on the class (sky at the top, grass and path
    at the bottom); the edge statistics are log-normal (their sd columns heavy-tailed) and the short-line
    densities mostly 0. Clipped to and mapped with the public bounds :data:`SEGMENT_BOUNDS` into [-1, 1]^18.
    What differs: the class colours and spreads are plausible guesses, not the real pixel statistics, and the
    attributes other than colour are independent given the class.

    Returns ``(X, y)``: X in [-1, 1]^18, y the class 0-6; or ``(X_raw, y)`` with ``return_raw=True``.

    Examples
    --------
    >>> X, y = make_segment_like(random_state=0)
    >>> X.shape, sorted(set(y.tolist())) == list(range(7))
    ((2310, 18), True)
    """
    n = _n_samples(n_samples, 7, 18)
    rng = check_rng(random_state, "random_state")
    sizes = np.full(7, n // 7)
    sizes[: n % 7] += 1
    parts, labels = [], []
    for c, ((rgb, spread, rows, edge), m) in enumerate(zip(_SEGMENT_CLASSES, sizes)):  # 7 classes
        level = np.exp(rng.normal(0.0, spread, m))[:, None]  # not privacy noise: synthetic data
        jitter = np.exp(rng.normal(0.0, spread / 3, (m, 3)))  # not privacy noise: synthetic data
        red, green, blue = (np.array(rgb) * level * jitter).T
        col = rng.uniform(1.0, 254.0, m)
        row = rng.uniform(rows[0], rows[1], m)
        sl5 = np.where(rng.random(m) < 0.85, 0.0, rng.choice([0.111, 0.222, 0.333], m))
        sl2 = np.where(rng.random(m) < 0.95, 0.0, rng.choice([0.111, 0.222], m))
        vm = edge * np.exp(rng.normal(0.0, 0.8, m))  # not privacy noise: synthetic data
        hm = edge * np.exp(rng.normal(0.0, 0.8, m))  # not privacy noise: synthetic data
        vsd = vm**2 * np.exp(rng.normal(0.0, 0.7, m))  # not privacy noise: synthetic data
        hsd = hm**2 * np.exp(rng.normal(0.0, 0.7, m))  # not privacy noise: synthetic data
        value = np.maximum(np.maximum(red, green), blue)
        saturation = (value - np.minimum(np.minimum(red, green), blue)) / np.maximum(value, 1e-9)
        hue = np.arctan2(np.sqrt(3.0) * (green - blue), 2 * red - green - blue)
        parts.append(np.column_stack([col, row, sl5, sl2, vm, vsd, hm, hsd, (red + green + blue) / 3, red, blue,
                                      green, 2 * red - green - blue, 2 * blue - red - green,
                                      2 * green - red - blue, value, saturation, hue]))
        labels.append(np.full(m, c))
    raw = np.clip(np.vstack(parts), *SEGMENT_BOUNDS)
    y = np.concatenate(labels)
    perm = rng.permutation(n)
    raw, y = raw[perm], y[perm]
    if return_raw:
        return raw, y
    return _to_box(raw, *SEGMENT_BOUNDS), y
