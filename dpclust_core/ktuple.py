"""k-tuple clustering and k-means on easy instances (Cohen, Kaplan, Mansour, Stemmer & Tsfadia, ICML 2021).

Spec ``ktuple-and-gaussian-mixtures.md``. The seed text lost its inline math, so the spec tags every
formula: [S] structure survives, [R] reconstructed (privacy-consistent, the paper's constant may differ),
[K] standard, [U] unrecoverable. Every reconstructed constant is a named parameter here and says so.

Contents
--------
*Primitives* (spec §2.0), reused by :mod:`dpclust_core.gmm`:

* :func:`private_interior_point` — 1-D interior point (exponential mechanism on a grid, App. A.1.2) [S/R];
* :func:`private_bounding_segment` — two interior points on the t smallest / t largest points [S/R];
* :func:`private_average_1d` — PrivAvg1D: bounding segment, clip, Gaussian noisy average [S/R];
* :func:`private_average` — d-dimensional private average, coordinate-wise (no JL) or after a random
  rotation (the [NSV16] variant, §4.3.2) [R].

*Accounting helpers* (spec §2.0, §4): :func:`advanced_composition`, :func:`group_privacy`,
:func:`subsample_wor` / :func:`subsample_wor_inverse` (BBG18), :func:`subsample_kln11`,
:func:`subsample_wr_bnsv15`, :func:`zcdp_to_dp`, :func:`dp_to_zcdp`, :func:`gaussian_zcdp`.

*k-tuple clustering* (spec §1, §2.1–§2.5): :func:`partitioned_by`, :func:`close_tuple_counts`
(the statistic of TestCloseTuples, Alg. 4.1), :func:`good_centers_params`, :func:`good_centers`
(GoodCenters, Alg. 4.2, the private niceness test), :func:`good_centers_status_samples` (vectorised
status bits, for audits and figures), :class:`PrivatekAverages` (Alg. 4.3), :class:`PrivatekNoisyCenters`
(Alg. 4.4), :func:`noisy_centers_min_gamma`.

*k-means on easy instances* (spec §2.7): :func:`kmeans_tuples` (k-means++ on disjoint chunks),
:class:`PrivateKMeansEasy` (sample-and-aggregate + one private Lloyd step).

*Experiments* (spec §3.4): :func:`simulate_tuples` (the fast exact tuple simulator),
:func:`match_centers` (success criterion and centre error).

Neighbouring notions. The k-tuple algorithms are DP for databases of ``n`` tuples (``n`` public) that differ
in one whole tuple (replace-one, spec §1.1). The averages inside them and the Lloyd step of
:class:`PrivateKMeansEasy` are DP under add/remove of one point (spec §6 pitfall 4). :class:`PrivateKMeansEasy`
is DP under add/remove of one data point (the book's notion): each point is sent to one chunk by its own
independent random label, so adding or removing a point changes exactly one tuple.

What is released. Only the status bit and the final centres (sorted in canonical lexicographic order) leave
the k-tuple algorithms; the selected tuple, the balls, the cluster sizes are never stored (pitfall 2).
Numpy floating-point samplers are not exactly DP (Mironov 2012): this code is for education.
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from ._validation import (check_bounds, check_data, check_delta, check_epsilon, check_n_clusters,
                          check_positive_int, check_rng)
from .accounting import PrivacyLedger
from .mechanisms import gaussian_sigma

__all__ = [
    # primitives
    "private_interior_point", "private_bounding_segment", "private_average_1d", "private_average",
    "random_rotation",
    # accounting helpers
    "advanced_composition", "advanced_composition_inverse", "group_privacy", "subsample_wor",
    "subsample_wor_inverse", "subsample_kln11", "subsample_wr_bnsv15", "zcdp_to_dp", "dp_to_zcdp",
    "gaussian_zcdp",
    # k-tuple clustering
    "partitioned_by", "close_tuple_counts", "good_centers_params", "good_centers", "good_centers_status_samples",
    "PrivatekAverages", "PrivatekNoisyCenters", "noisy_centers_min_gamma", "private_kaverages_params",
    # k-means and experiments
    "kmeans_tuples", "PrivateKMeansEasy", "simulate_tuples", "match_centers", "canonical_order",
    "min_valid_tuples", "min_tuples_noisy_centers", "min_tuples_kaverages", "interior_point_quality",
    "tuple_separation", "bounding_segment_t", "ktuple_trials",
]


# =====================================================================================================
# small helpers
# =====================================================================================================
def _check_prob(x, name):
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a real number in (0, 1), got {x!r}")
    x = float(x)
    if not (0.0 < x < 1.0):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {x!r}")
    return x


def _check_pos(x, name):
    if isinstance(x, bool) or not isinstance(x, (numbers.Real, np.floating, np.integer)):
        raise ValueError(f"{name} must be a positive real number, got {x!r}")
    x = float(x)
    if not (math.isfinite(x) and x > 0):
        raise ValueError(f"{name} must be finite and > 0, got {x!r}")
    return x


def _record(ledger, name, eps, delta=0.0, sens=None):
    if ledger is not None:
        ledger.record(name, eps, delta, sens)


def canonical_order(C):
    """Rows of ``C`` sorted lexicographically (first coordinate first). Used for every released k-tuple,
    so the output order cannot reveal the storage order of the selected input tuple (pitfall 1)."""
    C = np.asarray(C, dtype=float)
    order = np.lexsort(C.T[::-1])
    return C[order]


# =====================================================================================================
# accounting helpers (spec §2.0 and §4) [K]
# =====================================================================================================
def advanced_composition(eps0, delta0, k, delta_prime):
    """[DRV10] k-fold adaptive composition of (eps0, delta0)-DP mechanisms (Dwork, Rothblum & Vadhan 2010;
    Dwork & Roth 2014, Thm 3.20): ``(sqrt(2k ln(1/delta')) eps0 + k eps0 (e^{eps0} - 1),  k delta0 + delta')``.

    The spec's ``2 k eps0^2`` second term is the usual simplification of ``k eps0 (e^{eps0} - 1)``; it is an
    upper bound only for ``eps0 <= 1.256`` and *under*-states the cost above that, so the exact term is used."""
    eps0 = float(eps0)
    if not (math.isfinite(eps0) and eps0 >= 0):
        raise ValueError(f"eps0 must be finite and >= 0, got {eps0!r}")
    k = check_positive_int(k, "k")
    dp = _check_prob(delta_prime, "delta_prime")
    return (math.sqrt(2 * k * math.log(1 / dp)) * eps0 + k * eps0 * math.expm1(eps0), k * float(delta0) + dp)


def advanced_composition_inverse(eps_total, k, delta_prime):
    """Largest per-call eps0 with ``advanced_composition(eps0, ., k, delta_prime)[0] <= eps_total``
    (the composed epsilon is increasing in eps0: bisection, returning the lower end, so never over budget)."""
    eps_total = check_epsilon(eps_total, "eps_total")
    k = check_positive_int(k, "k")
    dp = _check_prob(delta_prime, "delta_prime")
    b = math.sqrt(2 * k * math.log(1 / dp))

    def cost(x):
        return b * x + k * x * math.expm1(x)

    lo, hi = 0.0, eps_total / b  # cost(x) >= b x, so cost(eps_total / b) >= eps_total
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if cost(mid) <= eps_total:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-16 * hi:
            break
    return lo


def group_privacy(eps, delta, g):
    """Group privacy [K]: an (eps, delta)-DP mechanism is ``(g eps, g e^{(g-1) eps} delta)``-DP for
    datasets at distance g."""
    g = check_positive_int(g, "g")
    return g * float(eps), g * math.exp((g - 1) * float(eps)) * float(delta)


def subsample_wor(eps_star, delta_star, m, n):
    """Amplification by subsampling m of n without replacement, substitution neighbours
    [Balle, Barthe & Gaboardi 2018]: ``(ln(1 + (m/n)(e^{eps*} - 1)), (m/n) delta*)``."""
    m = check_positive_int(m, "m")
    n = check_positive_int(n, "n")
    if m > n:
        raise ValueError(f"m={m} must be <= n={n}")
    q = m / n
    return math.log1p(q * math.expm1(float(eps_star))), q * float(delta_star)


def subsample_wor_inverse(eps_target, m, n):
    """The eps* an m-of-n sampled mechanism may use so that :func:`subsample_wor` gives ``eps_target``:
    ``ln(1 + (n/m)(e^{eps_target} - 1))`` (spec §2.2 step 1, the BBG18 inverse) [R]."""
    eps_target = check_epsilon(eps_target, "eps_target")
    m = check_positive_int(m, "m")
    n = check_positive_int(n, "n")
    if m > n:
        raise ValueError(f"m={m} must be <= n={n}")
    return math.log1p((n / m) * math.expm1(eps_target))


def subsample_kln11(eps_star, delta_star, m, n, eps):
    """[BKN10, KLN+11] as restated in [BNSV15]: for eps <= 1 and ``n >= (m/eps)(3 + e^{2 eps*})``, sampling
    m of n without replacement is ``(eps, 4 eps delta*/(3 + e^{2 eps*}))``-DP. Raises if the condition fails."""
    eps = check_epsilon(eps)
    if eps > 1:
        raise ValueError("eps must be <= 1 for the KLN+11 subsampling lemma")
    if n < (m / eps) * (3 + math.exp(2 * eps_star)):
        raise ValueError("n too small for the KLN+11 subsampling lemma: need n >= (m/eps)(3 + e^{2 eps*})")
    return eps, 4 * eps * delta_star / (3 + math.exp(2 * eps_star))


def subsample_wr_bnsv15(eps_star, delta_star, m, n):
    """[BNSV15] with replacement: for eps* <= 1 and n >= 2m, sampling m of n rows with replacement gives
    ``(6 eps* m/n, exp(6 eps* m/n) (4m/n) delta*)``."""
    if eps_star > 1:
        raise ValueError("eps_star must be <= 1 for the BNSV15 lemma")
    if n < 2 * m:
        raise ValueError("the BNSV15 lemma needs n >= 2m")
    e = 6 * eps_star * m / n
    return e, math.exp(e) * (4 * m / n) * delta_star


def zcdp_to_dp(rho, delta):
    """rho-zCDP implies ``(rho + 2 sqrt(rho ln(1/delta)), delta)``-DP for every delta > 0 [BS16]."""
    rho = float(rho)
    if not (math.isfinite(rho) and rho >= 0):
        raise ValueError(f"rho must be finite and >= 0, got {rho!r}")
    delta = check_delta(delta)
    return rho + 2 * math.sqrt(rho * math.log(1 / delta))


def dp_to_zcdp(eps):
    """eps-DP (pure) implies ``eps^2 / 2``-zCDP [BS16]."""
    return check_epsilon(eps) ** 2 / 2


def gaussian_zcdp(l2_sensitivity, sigma):
    """The Gaussian mechanism with L2 sensitivity Δ and noise σ is ``Δ² / (2σ²)``-zCDP [BS16]."""
    return float(l2_sensitivity) ** 2 / (2 * float(sigma) ** 2)


def _split_composition(eps_total, delta_total, n_calls, composition="auto"):
    """Per-call (eps_c, delta_c) for ``n_calls`` adaptive calls within (eps_total, delta_total), and the
    composition used. ``basic``: (eps/n, delta/n). ``advanced`` [DRV10]: delta' = delta/2, delta_c = delta/(2n),
    eps_c from :func:`advanced_composition_inverse`. ``auto`` takes the larger eps_c (spec §2.0 tip)."""
    basic = (eps_total / n_calls, delta_total / n_calls, "basic")
    if composition == "basic" or delta_total <= 0 or n_calls == 1:
        if composition == "advanced" and delta_total <= 0:
            raise ValueError("advanced composition needs delta > 0")
        return basic
    adv = (advanced_composition_inverse(eps_total, n_calls, delta_total / 2), delta_total / (2 * n_calls),
           "advanced")
    if composition == "advanced":
        return adv
    if composition != "auto":
        raise ValueError(f"composition must be 'auto', 'basic' or 'advanced', got {composition!r}")
    return adv if adv[0] > basic[0] else basic


def _record_composed(ledger, scratch, how, eps_total, delta_total, name):
    """Copy ``scratch`` into ``ledger``: entry by entry under basic composition, or as one composed entry."""
    if ledger is None:
        return
    if how == "basic":
        ledger.extend(scratch, prefix=name + ": ")
    else:
        ledger.record(f"{name}: advanced composition of {len(scratch)} releases", eps_total, delta_total)


# =====================================================================================================
# 1-D primitives (spec §2.0, App. A.1.2–A.1.3)
# =====================================================================================================
def _grid(low, high, resolution):
    low, high = float(low), float(high)
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"low/high must be finite with low < high, got ({low}, {high})")
    xi = _check_pos(resolution, "resolution")
    n_grid = int(math.ceil((high - low) / xi))
    return low, high, xi, n_grid


def _ip_quality_pieces(x, low, xi, n_grid):
    """Piecewise-constant quality of the interior point: pieces [start, end) of grid indices and q on each.

    ``q(S, z_j) = min(#{x : floor_G(x) <= z_j}, #{x : ceil_G(x) >= z_j})`` [R]; sensitivity 1 under replace
    and add/remove. Breakpoints are the floor indices and (ceil index + 1)."""
    u = (np.asarray(x, dtype=float) - low) / xi
    f = np.clip(np.floor(u), 0, n_grid).astype(np.int64)
    c = np.clip(np.ceil(u), 0, n_grid).astype(np.int64)
    fs, cs = np.sort(f), np.sort(c)
    starts = np.unique(np.concatenate([[0], f, c + 1]))
    starts = starts[starts <= n_grid]
    ends = np.append(starts[1:], n_grid + 1)
    left = np.searchsorted(fs, starts, side="right")
    right = u.size - np.searchsorted(cs, starts, side="left")
    return starts, ends, np.minimum(left, right)


def interior_point_quality(x, z, low, high, resolution):
    """The interior-point quality q(S, z) at grid points ``z`` (for tests and figures; not private)."""
    low, high, xi, n_grid = _grid(low, high, resolution)
    x = np.clip(np.asarray(x, dtype=float).ravel(), low, high)
    u = (x - low) / xi
    f = np.floor(u)
    c = np.ceil(u)
    j = np.round((np.atleast_1d(np.asarray(z, dtype=float)) - low) / xi)
    left = (f[None, :] <= j[:, None]).sum(axis=1)
    right = (c[None, :] >= j[:, None]).sum(axis=1)
    return np.minimum(left, right)


def private_interior_point(x, epsilon, low, high, resolution, rng=None, *, size=None, ledger=None,
                           name="interior point"):
    """Private interior point in 1-D (paper App. A.1.2; spec §2.0 "IP") — epsilon-DP, add/remove or replace.

    The exponential mechanism over the grid ``G = {low + j*resolution : j = 0..N}``, ``N = ceil((high-low)/resolution)``,
    with quality ``q(S, z) = min(#{x : floor_G(x) <= z}, #{x : ceil_G(x) >= z})`` (sensitivity 1) and
    weights ``exp(epsilon q / 2)`` [R: the exact form of q is a reconstruction]. The grid is never enumerated:
    q is constant between breakpoints, each piece is weighted by its number of grid points (log space),
    then a grid point is drawn uniformly inside the chosen piece. O(n log n).

    Utility [R]: if ``len(x) >= (4/epsilon) ln((N+1)/beta) + 2`` then with probability 1-beta the output
    lies in ``[min x - resolution, max x + resolution]``. With fewer points the output is close to uniform
    noise on [low, high] (the practical bottleneck of PrivatekAverages, paper §7).

    Parameters
    ----------
    x : array_like, 1-D
        The data; values outside ``[low, high]`` are clipped to it (public domain). May be empty.
    epsilon : float
    low, high, resolution : float
        Public domain and grid step (the paper's a, a+Λ and ξ).
    size : int, optional
        Draw this many independent outputs (audits, figures); the ledger is charged ``size * epsilon``.

    Returns
    -------
    float, or ndarray of shape (size,)
    """
    eps = check_epsilon(epsilon)
    low, high, xi, n_grid = _grid(low, high, resolution)
    x = np.asarray(x, dtype=float).ravel()
    if x.size and not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinite values")
    rng = check_rng(rng)
    x = np.clip(x, low, high)
    starts, ends, q = _ip_quality_pieces(x, low, xi, n_grid)
    logw = np.log((ends - starts).astype(float)) + eps * q / 2.0
    n_draw = 1 if size is None else check_positive_int(size, "size")
    piece = np.argmax(logw[None, :] + rng.gumbel(size=(n_draw, logw.size)), axis=1)
    j = starts[piece] + np.floor(rng.random(n_draw) * (ends[piece] - starts[piece])).astype(np.int64)
    out = np.minimum(low + j * xi, high)
    _record(ledger, name if size is None else f"{name} (x{n_draw})", eps * n_draw, 0.0, 1.0)
    return float(out[0]) if size is None else out


def private_bounding_segment(x, t, epsilon, low, high, resolution, rng=None, *, ledger=None,
                             name="bounding segment"):
    """BoundingSegment (paper App. A.1.2; spec §2.0) — epsilon-DP under add/remove and replace.

    ``z_L = IP(t smallest points, epsilon/2)``, ``z_R = IP(t largest points, epsilon/2)``, output
    ``[max(low, z_L - resolution), min(high, z_R + resolution)]`` (sorted, so always z1 <= z2). Adding,
    removing or replacing one point changes each of the two t-sets by at most one element.

    Utility [R]: if ``t >= (8/epsilon) ln(2(N+1)/beta) + 2`` and ``len(x) >= 2t``, with probability 1-beta all but
    at most 2t points lie in the segment, whose length is at most ``max x - min x + 4 resolution``.

    Returns
    -------
    (z1, z2) : tuple of float
    """
    eps = check_epsilon(epsilon)
    t = check_positive_int(t, "t")
    low, high, xi, _ = _grid(low, high, resolution)
    x = np.sort(np.clip(np.asarray(x, dtype=float).ravel(), low, high))
    rng = check_rng(rng)
    zl = private_interior_point(x[:t], eps / 2, low, high, xi, rng, ledger=ledger, name=name + " (left IP)")
    zr = private_interior_point(x[-t:] if x.size else x, eps / 2, low, high, xi, rng, ledger=ledger,
                                name=name + " (right IP)")
    z1, z2 = max(low, zl - xi), min(high, zr + xi)
    return (min(z1, z2), max(z1, z2))


def bounding_segment_t(epsilon, n_grid, beta):
    """The t of PrivAvg1D step 1 [R]: ``ceil((16/epsilon) ln(4(N+1)/beta)) + 2``."""
    return int(math.ceil((16.0 / epsilon) * math.log(4 * (n_grid + 1) / beta))) + 2


def private_average_1d(x, epsilon, delta, low, high, resolution, *, n_public=None, beta=0.05, rng=None,
                       gaussian_method="analytic", ledger=None, name="PrivAvg1D"):
    """PrivAvg1D (paper App. A.1.3; spec §2.0) — (epsilon, delta)-DP under add/remove and replace.

    1. ``t = ceil((16/eps) ln(4(N+1)/beta)) + 2`` [R]; ``[z1, z2] = BoundingSegment(x, t, eps/2)``.
    2. ``mu = (z1+z2)/2``, ``h = (z2-z1)/2``; clip every x to [z1, z2].
    3. ``y = mu + (sum(clip(x) - mu) + N(0, sigma^2)) / n_public`` with sigma for L2 sensitivity ``2h``
       (covers replace; add/remove needs only h) at (eps/2, delta).

    ``gaussian_method="analytic"`` (Balle–Wang, default, valid for every eps) or ``"classic"``
    (sqrt(2 ln(1.25/delta)) 2h/(eps/2), the spec's formula, needs eps/2 < 1).

    Parameters
    ----------
    n_public : int, optional
        The public normaliser (spec pitfall 4). Default ``len(x)``, which is only private when the size of
        ``x`` is itself public; pass the public n when it is not.

    Returns
    -------
    float
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = _check_prob(beta, "beta")
    low, high, xi, n_grid = _grid(low, high, resolution)
    x = np.asarray(x, dtype=float).ravel()
    if x.size and not np.all(np.isfinite(x)):
        raise ValueError("x contains NaN or infinite values")
    n_pub = x.size if n_public is None else check_positive_int(n_public, "n_public")
    if n_pub < 1:
        raise ValueError("n_public must be >= 1 (x is empty and no public size was given)")
    rng = check_rng(rng)
    t = bounding_segment_t(eps, n_grid, beta)
    z1, z2 = private_bounding_segment(x, t, eps / 2, low, high, xi, rng, ledger=ledger, name=name + " segment")
    mu, h = (z1 + z2) / 2.0, (z2 - z1) / 2.0
    s = float(np.sum(np.clip(x, z1, z2) - mu))
    sigma = gaussian_sigma(2 * h, eps / 2, dl, method=gaussian_method) if h > 0 else 0.0
    _record(ledger, name + " Gaussian sum", eps / 2, dl, 2 * h)
    return float(mu + (s + rng.normal(0.0, sigma)) / n_pub)


# =====================================================================================================
# d-dimensional private average (spec §2.0 "PrivAvg (no JL)" and "PrivAvg with JL / random rotation")
# =====================================================================================================
def random_rotation(d, rng=None):
    """A Haar-random orthogonal d x d matrix (QR of a Gaussian matrix with the sign fix). Public randomness."""
    d = check_positive_int(d, "d")
    rng = check_rng(rng)
    q, r = np.linalg.qr(rng.normal(size=(d, d)))
    return q * np.sign(np.diag(r))[None, :]


def _project_to_ball(X, center, radius):
    Z = X - center[None, :]
    nrm = np.linalg.norm(Z, axis=1)
    scale = np.minimum(1.0, radius / np.maximum(nrm, 1e-300))
    return Z * scale[:, None]


def private_average(X, epsilon, delta, radius, center=None, *, resolution=None, rotate=True, n_public=None,
                    beta=0.05, composition="auto", gaussian_method="analytic", rng=None, ledger=None,
                    name="PrivAvg"):
    """d-dimensional private average on the public ball ``B(center, radius)`` — (epsilon, delta)-DP under
    add/remove (and replace) of one point. Points outside the ball are projected onto it (clipped).

    ``rotate=False`` — the paper's Prop 2.2.6 / A.1.3 (no JL) [S skeleton, R split]: PrivAvg1D on each
    coordinate over ``[c_j - radius, c_j + radius]`` at (eps_c, delta_c), composed over d coordinates by basic
    (eps/d, delta/d) or advanced composition (delta' = delta/2, delta_c = delta/(2d)), whichever gives the
    larger eps_c (``composition="auto"``; spec §2.0 tip).

    ``rotate=True`` — the [NSV16] variant (§2.2.6, §4.3.2) as the spec's concrete reconstruction [R]:
    rotate by a public Haar-random orthogonal U, run BoundingSegment on each rotated coordinate (total budget
    eps/2, same composition rule), clip the rotated points to the resulting box, add ONE isotropic Gaussian to
    the clipped sum with L2 sensitivity = the box diagonal at (eps/2, remaining delta), divide by n_public and
    rotate back. On sets whose coordinates all spread as far as the radius (e.g. points on the axes) this is
    about sqrt(d) more accurate (spec figure 5).

    Parameters
    ----------
    X : array_like, shape (n, d)
        May have zero rows only if ``n_public`` is given.
    radius : float
        Public radius Λ of the domain ball.
    center : array_like of shape (d,), optional
        Public centre of the ball (default the origin).
    resolution : float, optional
        Grid step ξ = r_min of the interior points (default ``radius * 1e-4``).
    n_public : int, optional
        Public normaliser (default ``len(X)``; pass the public size when the size is private).
    beta : float
        Failure probability used to size the bounding segments (utility only, not privacy).

    Returns
    -------
    ndarray, shape (d,)
        The private average, projected onto the domain ball (post-processing).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    rad = _check_pos(radius, "radius")
    beta = _check_prob(beta, "beta")
    X = np.asarray(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D of shape (n, d), got shape {X.shape}")
    d = X.shape[1]
    if d < 1:
        raise ValueError("X must have at least one feature")
    if X.size and not np.all(np.isfinite(X)):
        raise ValueError("X contains NaN or infinite values")
    c = np.zeros(d) if center is None else np.asarray(center, dtype=float).reshape(-1)
    if c.shape != (d,) or not np.all(np.isfinite(c)):
        raise ValueError(f"center must be a finite vector of length {d}")
    xi = rad * 1e-4 if resolution is None else _check_pos(resolution, "resolution")
    n_pub = X.shape[0] if n_public is None else check_positive_int(n_public, "n_public")
    if n_pub < 1:
        raise ValueError("n_public must be given when X is empty")
    rng = check_rng(rng)
    Z = _project_to_ball(X, c, rad)  # centred, inside B(0, rad)
    scratch = PrivacyLedger()
    if not rotate:
        eps_c, dl_c, how = _split_composition(eps, dl, d, composition)
        y = np.array([private_average_1d(Z[:, j], eps_c, dl_c, -rad, rad, xi, n_public=n_pub, beta=beta / d,
                                         rng=rng, gaussian_method=gaussian_method, ledger=scratch,
                                         name=f"coord {j}") for j in range(d)])
        _record_composed(ledger, scratch, how, eps, dl, name)
        return c + _project_to_ball(y[None, :], np.zeros(d), rad)[0]  # post-processing: stay in the domain
    U = random_rotation(d, rng)
    W = Z @ U.T
    # the pure segment stage may borrow delta/2 (as delta') for advanced composition
    eps_c, _, how = _split_composition(eps / 2, dl / 2, d, composition) if d > 1 else (eps / 2, 0.0, "basic")
    dl_seg = dl / 2 if how == "advanced" else 0.0
    n_grid = int(math.ceil(2 * rad / xi))
    t = bounding_segment_t(2 * eps_c, n_grid, beta / d)  # segment gets 2*eps_c/2 per IP pair, as in PrivAvg1D
    lo = np.empty(d)
    hi = np.empty(d)
    for j in range(d):
        lo[j], hi[j] = private_bounding_segment(W[:, j], t, eps_c, -rad, rad, xi, rng, ledger=scratch,
                                                name=f"rotated coord {j} segment")
    if how == "basic":
        _record_composed(ledger, scratch, "basic", eps / 2, 0.0, name)
    else:
        _record(ledger, f"{name}: advanced composition of {d} bounding segments", eps / 2, dl_seg)
    mid = (lo + hi) / 2
    Wc = np.clip(W, lo, hi) - mid[None, :]
    sens = float(np.linalg.norm(hi - lo))  # covers replace; add/remove needs only half
    dl_g = dl - dl_seg
    sigma = gaussian_sigma(sens, eps / 2, dl_g, method=gaussian_method) if sens > 0 else 0.0
    _record(ledger, f"{name}: Gaussian on the clipped rotated sum", eps / 2, dl_g, sens)
    y = mid + (Wc.sum(axis=0) + rng.normal(0.0, sigma, size=d)) / n_pub
    return c + _project_to_ball((U.T @ y)[None, :], np.zeros(d), rad)[0]  # post-processing: stay in the domain


# =====================================================================================================
# k-tuple clustering: partitions and the niceness statistic (spec §1.2, §2.1)
# =====================================================================================================
def _check_tuples(T, name="T", n_clusters=None, finite=True):
    shape = np.shape(T)
    if len(shape) != 3:
        raise ValueError(f"{name} must have shape (n_tuples, k, d), got shape {shape}")
    if n_clusters is not None and shape[1] != n_clusters:
        raise ValueError(f"{name} has tuples of size {shape[1]}, expected n_clusters={n_clusters}")
    if shape[0] < 1 or shape[1] < 1 or shape[2] < 1:
        raise ValueError(f"{name} is empty (shape {shape})")
    if not finite:
        return shape
    arr = np.asarray(T, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def tuple_separation(X):
    """``D_i(X) = min_{j != i} ||x_i - x_j||`` for one tuple X of shape (k, d) (inf when k = 1)."""
    X = np.asarray(X, dtype=float)
    dist = np.linalg.norm(X[:, None, :] - X[None, :, :], axis=2)
    np.fill_diagonal(dist, np.inf)
    return dist.min(axis=1)


def partitioned_by(T, centers, radii):
    """Whether each tuple of ``T`` (n, k, d) is partitioned by the balls ``B(centers[i], radii[i])``:
    exactly one of its points in every (closed) ball (spec §1.2). Returns a bool array of shape (n,).

    With Γ-far balls (Γ > 2) the balls are disjoint, so "one point per ball" for all k balls is the whole test.
    Each tuple's verdict depends on that tuple only, which is what gives q_X its sensitivity 1."""
    T = np.asarray(T, dtype=float)
    C = np.asarray(centers, dtype=float)
    r = np.asarray(radii, dtype=float)
    # squared distances (n, k_points, k_balls) without an (n, k, k, d) intermediate
    d2 = (T * T).sum(axis=2)[:, :, None] - 2.0 * np.einsum("npd,bd->npb", T, C) + (C * C).sum(axis=1)[None, None, :]
    d2 = np.maximum(d2, 0.0)
    inside = d2 <= (r * r)[None, None, :] * (1 + 1e-12)
    return np.all(inside.sum(axis=1) == 1, axis=1)


def close_tuple_counts(T, candidates, gamma):
    """The statistic of TestCloseTuples (Alg. 4.1 step (b)): for every candidate tuple X, ``q_X`` = the number
    of tuples of ``T`` partitioned by ``B^X = {B(x_i, D_i(X)/gamma)}``. Also returns ``valid_X = min_i D_i(X) > 0``
    (a tuple with duplicate points can never be selected, pitfall 6).

    Sensitivity: replacing one tuple of T changes every q_X by at most 1 (tests check this).

    Returns
    -------
    q : ndarray of int, shape (n_candidates,)
    valid : ndarray of bool, shape (n_candidates,)
    """
    T = np.asarray(T, dtype=float)
    Cand = np.asarray(candidates, dtype=float)
    if Cand.ndim == 2:
        Cand = Cand[None]
    n, k, _ = T.shape
    dist = np.linalg.norm(Cand[:, :, None, :] - Cand[:, None, :, :], axis=3)  # (c, k, k)
    idx = np.arange(k)
    dist[:, idx, idx] = np.inf
    D = dist.min(axis=2)  # (c, k): D_i(X) for every candidate
    valid = np.all(D > 0, axis=1)
    r2 = (D / gamma) ** 2
    tn = (T * T).sum(axis=2)  # (n, k)
    cn = (Cand * Cand).sum(axis=2)  # (c, k)
    q = np.empty(Cand.shape[0], dtype=np.int64)
    block = max(1, int(4_000_000 // max(1, n * k * k)))
    for a0 in range(0, Cand.shape[0], block):  # blocks of candidates, vectorised inside
        Cb = Cand[a0:a0 + block]
        cross = (T.reshape(n * k, -1) @ Cb.reshape(Cb.shape[0] * k, -1).T).reshape(n, k, Cb.shape[0], k)
        d2 = tn[None, :, :, None] - 2.0 * cross.transpose(2, 0, 1, 3) + cn[a0:a0 + block, None, None, :]
        inside = np.maximum(d2, 0.0) <= r2[a0:a0 + block, None, None, :] * (1 + 1e-12)
        q[a0:a0 + block] = np.all(inside.sum(axis=2) == 1, axis=2).sum(axis=1)
    return q, valid


# =====================================================================================================
# GoodCenters: the private niceness test (spec §2.1–§2.3)
# =====================================================================================================
def good_centers_params(n, epsilon, delta, beta):
    """Public parameters of GoodCenters(T, epsilon, delta, beta) for n tuples [R] (spec §2.2):

    * ``m`` = smallest integer >= 1 with ``m >= ln(2/(beta delta)) / eps2(m)``, where
      ``eps2(m) = ln(1 + (n/m)(e^{epsilon/2} - 1))`` is the budget the sampled pass-sum may use so that sampling
      m of n (BBG18, without replacement) gives epsilon/2;
    * ``eps1 = (epsilon/2)/m`` (each of the m noisy counts);
    * ``ell = ceil((1/eps1) ln(2 m^2/(beta delta)))`` — the near-partition slack that Success certifies.

    The paper's m, ell definitions and numbers are [U]; these are the spec's reconstruction. Depends on public
    quantities only. Returns a dict with keys m, eps1, eps2, ell.
    """
    n = check_positive_int(n, "n")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = _check_prob(beta, "beta")
    need = math.log(2 / (beta * dl))
    m = 1
    while True:
        if m > n:
            raise ValueError(f"n={n} tuples is too small for GoodCenters at epsilon={eps}, delta={dl}, beta={beta}")
        eps2 = subsample_wor_inverse(eps / 2, m, n)
        if m >= need / eps2:
            break
        m += 1
    eps1 = (eps / 2) / m
    ell = int(math.ceil(math.log(2 * m * m / (beta * dl)) / eps1))
    return {"m": m, "eps1": eps1, "eps2": eps2, "ell": ell}


def _status_from_counts(q, valid, n, eps1, eps2, beta, rng):
    """TestCloseTuples steps (c)-(d) and the status, vectorised over runs: ``q``/``valid`` of shape (runs, m).
    Returns (status (runs,), index of the first passing candidate or -1 (runs,))."""
    runs, m = q.shape
    q_hat = q + rng.laplace(0.0, 1.0 / eps1, size=q.shape)
    passed = (q_hat >= n - math.log(2 * m / beta) / eps1) & valid
    s_hat = passed.sum(axis=1) + rng.laplace(0.0, 1.0 / eps2, size=runs)
    status = s_hat >= m - math.log(2 / beta) / eps2
    first = np.where(passed.any(axis=1), np.argmax(passed, axis=1), -1)
    return status, first


def good_centers(T, epsilon, delta, beta, gamma, rng=None, *, ledger=None, name="GoodCenters"):
    """GoodCenters (paper Alg. 4.2; spec §2.2) — the private niceness test. The status is epsilon-DP (pure)
    w.r.t. replacing one tuple of T (n public).

    1. ``(m, eps1, eps2, ell) = good_centers_params(n, epsilon, delta, beta)``;
    2. ``T'`` = m tuples sampled from T without replacement (random order);
    3. TestCloseTuples (Alg. 4.1) [R thresholds]: ``q_X = #{Y in T : Y partitioned by B^X}``,
       ``q̂_X = q_X + Lap(1/eps1)``, ``pass_X = [q̂_X >= n - ln(2m/beta)/eps1]``, ``s = Σ pass_X``,
       ``ŝ = s + Lap(1/eps2)``, Success iff ``ŝ >= m - ln(2/beta)/eps2``.

    Ledger: "q̂ (m Laplace counts)" costs m*eps1 = epsilon/2; "ŝ (amplified by sampling)" costs epsilon/2.

    Returns
    -------
    status : bool
        Private.
    selected : ndarray (k, d) or None
        **NOT private** — the first passing tuple X* of T' (its balls are B^{X*}). Only for use inside the
        wrapper algorithms (Alg. 4.3, 4.4); never release it (pitfall 2). None on Failure or when no
        candidate passed (treated as Failure, pitfall 12).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = _check_prob(beta, "beta")
    gamma = _check_pos(gamma, "gamma")
    if gamma <= 2:
        raise ValueError(f"gamma must be > 2 (the balls must be disjoint), got {gamma}")
    shape = _check_tuples(T, finite=False)
    prm = good_centers_params(shape[0], eps, dl, beta)
    T = _check_tuples(T)
    rng = check_rng(rng)
    n = T.shape[0]
    idx = rng.choice(n, size=prm["m"], replace=False)
    q, valid = close_tuple_counts(T, T[idx], gamma)
    status, first = _status_from_counts(q[None], valid[None], n, prm["eps1"], prm["eps2"], beta, rng)
    _record(ledger, f"{name}: q̂_X, {prm['m']} Laplace counts (basic composition)", eps / 2, 0.0, 1.0)
    _record(ledger, f"{name}: ŝ pass-sum, Laplace amplified by sampling {prm['m']} of {n} (BBG18)", eps / 2, 0.0, 1.0)
    ok = bool(status[0]) and first[0] >= 0
    return ok, (T[idx[first[0]]].copy() if ok else None)


def good_centers_status_samples(T, epsilon, delta, beta, gamma, size, rng=None):
    """``size`` independent GoodCenters status bits on T in one vectorised call (for audits and figures).

    Same code path as :func:`good_centers` (:func:`_status_from_counts`), with q_X precomputed for every
    tuple of T as a candidate (O(n^2 k^2 d), so keep n moderate). Returns a float array of 0/1 of shape (size,).
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = _check_prob(beta, "beta")
    gamma = _check_pos(gamma, "gamma")
    if gamma <= 2:
        raise ValueError(f"gamma must be > 2 (the balls must be disjoint), got {gamma}")
    size = check_positive_int(size, "size")
    T = _check_tuples(T)
    rng = check_rng(rng)
    n = T.shape[0]
    prm = good_centers_params(n, eps, dl, beta)
    q_all, valid_all = close_tuple_counts(T, T, gamma)
    idx = np.argpartition(rng.random((size, n)), prm["m"] - 1, axis=1)[:, : prm["m"]]
    status, _ = _status_from_counts(q_all[idx], valid_all[idx], n, prm["eps1"], prm["eps2"], beta, rng)
    return status.astype(float)


# =====================================================================================================
# PrivatekAverages (Alg. 4.3) and PrivatekNoisyCenters (Alg. 4.4)
# =====================================================================================================
def private_kaverages_params(n, n_clusters, epsilon, delta, beta=0.05):
    """Public parameters of PrivatekAverages [R] (spec §2.4): GoodCenters at (eps/2, delta_s, beta/2) with
    ``delta_s = delta/(2(1+e^eps))``; its (m, ell); the group size ``g = 2(ell+1)k``; the per-cluster
    ``eps_hat = (eps/2)/g`` and ``delta_hat = (delta/2)/(g e^{eps/2})``; and ``min_n = 2 ell + 2``."""
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    k = check_positive_int(n_clusters, "n_clusters")
    dl_s = dl / (2 * (1 + math.exp(eps)))
    prm = good_centers_params(n, eps / 2, dl_s, beta / 2)
    g = 2 * (prm["ell"] + 1) * k
    prm.update(delta_s=dl_s, g=g, eps_hat=(eps / 2) / g, delta_hat=(dl / 2) / (g * math.exp(eps / 2)),
               min_n=2 * prm["ell"] + 2)
    return prm


class _KTupleBase:
    """Shared validation and fit/predict plumbing for the k-tuple algorithms."""

    def _validate(self):
        self._k = check_positive_int(self.n_clusters, "n_clusters")
        self._eps = check_epsilon(self.epsilon)
        self._dl = check_delta(self.delta)
        self._beta = _check_prob(self.beta, "beta")
        if self.gaussian_method not in ("analytic", "classic"):
            raise ValueError(f"gaussian_method must be 'analytic' or 'classic', got {self.gaussian_method!r}")

    def fit(self, T, y=None):
        """Run the algorithm on the tuple set ``T`` (array (n_tuples, k, d)); returns self.

        Sets ``status_`` (True = Success), ``cluster_centers_`` (k x d, canonical order; None on Failure)
        and ``ledger_``. Preconditions on public parameters are checked before the data is read."""
        self.cluster_centers_, self.status_ = self.cluster(T)
        return self

    def predict(self, X):
        """Index of the nearest released centre for each row of X (ties to the smallest index)."""
        if getattr(self, "cluster_centers_", None) is None:
            raise ValueError("no centres: call fit first, or the k-tuple test failed (status_ is False)")
        X = check_data(X, n_features=self.cluster_centers_.shape[1])
        d2 = ((X[:, None, :] - self.cluster_centers_[None]) ** 2).sum(axis=2)
        return np.argmin(d2, axis=1)


class PrivatekAverages(_KTupleBase):
    """PrivatekAverages (paper Alg. 4.3; spec §2.4) — (epsilon, delta)-DP k-tuple clustering that privately
    averages each identified cluster. "Better in theory".

    Steps [S steps, R parameters]:

    0. public check ``n >= 2 ell + 2`` (ell of GoodCenters at (eps/2, delta_s, beta/2)); else ValueError;
    1. ``(status, B) = GoodCenters(T, eps/2, delta_s = delta/(2(1+e^eps)), beta/2, gamma)``;
    2. Failure -> output None (⊥);
    3. ``P_i`` = points of P(T) whose nearest centre of B is c_i (ties to the smallest index);
    4. group size ``g = 2(ell+1)k`` (pitfall 5);
    5. ``â_i = PrivAvg(P_i; B(center, radius), r_min, eps_hat = (eps/2)/g, delta_hat = (delta/2)/(g e^{eps/2}),
       n_public = n)`` (:func:`private_average`, with or without rotation);
    6. output {â_i} in canonical (lexicographic) order.

    Privacy: status eps/2 (pure); the averages, by group privacy over total distance g and basic
    composition over clusters, (eps/2, delta/2); the wrapper lemma (§2.3) adds (1+e^eps) delta_s = delta/2.
    The ledger records exactly these three items, total (epsilon, delta).

    Parameters
    ----------
    n_clusters, epsilon, delta : int, float, float
    radius : float
        Public Λ: tuple points are assumed in ``B(center, radius)``; points outside are projected onto it.
    r_min : float
        Public grid step ξ of the interior points (default ``radius * 1e-4``).
    beta : float
        Failure probability (utility).
    gamma : float
        Far-ness Γ of the test's balls [R]: the privacy proof needs the consistency proposition (§1.5),
        derived for Γ > 4 + 2√5 ≈ 8.47; default 10 (the paper's constant is [U]). Must be >= 9.
    rotate : bool
        Use the random-rotation private average (§4.3.2) instead of the coordinate-wise one.
    """

    def __init__(self, n_clusters, epsilon, delta, *, radius, center=None, r_min=None, beta=0.05, gamma=10.0,
                 rotate=True, gaussian_method="analytic", random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.center = center
        self.r_min = r_min
        self.beta = beta
        self.gamma = gamma
        self.rotate = rotate
        self.gaussian_method = gaussian_method
        self.random_state = random_state

    def params(self, n_tuples):
        """Public parameters for ``n_tuples`` (see :func:`private_kaverages_params`)."""
        self._validate()
        return private_kaverages_params(n_tuples, self._k, self._eps, self._dl, self._beta)

    def check_params(self, n_tuples, n_features):
        """Every public precondition for ``n_tuples`` tuples in R^``n_features`` (raises ValueError); no data is
        read. Returns the public parameters (:func:`private_kaverages_params`) plus ``gamma``, ``radius``,
        ``r_min``, ``center``. Called by :meth:`cluster` before the data, and by wrappers (k-means, GMM) before
        they touch theirs."""
        self._validate()
        rad = _check_pos(self.radius, "radius")
        gamma = _check_pos(self.gamma, "gamma")
        if gamma < 9:
            raise ValueError(f"gamma must be >= 9 for PrivatekAverages' privacy proof (derived), got {gamma}")
        n = check_positive_int(n_tuples, "n_tuples")
        d = check_positive_int(n_features, "n_features")
        if self.center is None:
            center = np.zeros(d)
        else:
            center = np.asarray(self.center, dtype=float).reshape(-1)
            if center.shape != (d,) or not np.all(np.isfinite(center)):
                raise ValueError(f"center must be a finite vector of length {d}, got {self.center!r}")
        if not isinstance(self.rotate, (bool, np.bool_)):
            raise ValueError(f"rotate must be True or False, got {self.rotate!r}")
        xi = rad * 1e-4 if self.r_min is None else _check_pos(self.r_min, "r_min")
        prm = private_kaverages_params(n, self._k, self._eps, self._dl, self._beta)
        if n < prm["min_n"]:
            raise ValueError(f"n_tuples={n} is too small: PrivatekAverages needs n >= 2*ell+2 = {prm['min_n']} "
                             f"at epsilon={self._eps}, delta={self._dl}, beta={self._beta}")
        if self.gaussian_method == "classic" and prm["eps_hat"] / 2 >= 1:
            raise ValueError("gaussian_method='classic' needs the per-call epsilon eps_hat/2 < 1")
        prm.update(gamma=gamma, radius=rad, r_min=xi, center=center)
        return prm

    def cluster(self, T):
        """Run on ``T`` (n_tuples, k, d). Returns ``(centers or None, status)`` and sets ``ledger_``.

        All public preconditions (:meth:`check_params`) are checked before any value of ``T`` is read."""
        self._validate()
        shape = _check_tuples(T, n_clusters=self._k, finite=False)
        n, k, d = shape
        prm = self.check_params(n, d)
        rad, gamma, xi = prm["radius"], prm["gamma"], prm["r_min"]
        T = _check_tuples(T, n_clusters=k)
        rng = check_rng(self.random_state)
        led = PrivacyLedger(self._eps, self._dl)
        self.ledger_ = led
        status, X = good_centers(T, self._eps / 2, prm["delta_s"], self._beta / 2, gamma, rng, ledger=led,
                                 name="GoodCenters")
        led.record("wrapper lemma: soundness term (1+e^eps)*delta_s", 0.0, (1 + math.exp(self._eps)) * prm["delta_s"])
        if not status:
            led.record("k private averages (reserved; not run, output is ⊥)", self._eps / 2, self._dl / 2)
            return None, False
        X = canonical_order(X)
        P = T.reshape(-1, d)
        lab = np.argmin(((P[:, None, :] - X[None]) ** 2).sum(axis=2), axis=1)
        scratch = PrivacyLedger()
        out = np.empty((k, d))
        for i in range(k):  # loop over clusters
            out[i] = private_average(P[lab == i], prm["eps_hat"], prm["delta_hat"], rad, prm["center"],
                                     resolution=xi, rotate=self.rotate, n_public=n, beta=self._beta / (2 * k),
                                     gaussian_method=self.gaussian_method, rng=rng, ledger=scratch)
        led.record(f"k={k} private averages at (eps_hat, delta_hat) under group privacy g={prm['g']}",
                   self._eps / 2, self._dl / 2)
        return canonical_order(out), True


def _noisy_centers_sigma_factor(k, epsilon, delta_gauss, method):
    """sigma_i / Δ_i for one Gaussian release at (eps/(4k), delta_gauss)."""
    return gaussian_sigma(1.0, epsilon / (4 * k), delta_gauss, method=method)


class PrivatekNoisyCenters(_KTupleBase):
    """PrivatekNoisyCenters (paper Alg. 4.4; spec §2.5) — (epsilon, delta)-DP k-tuple clustering that selects
    one input tuple and adds Gaussian noise scaled to its own (noisy) separation. "More practical".

    Steps [S steps, R noise scales]:

    0. public checks ``n >= 2 ell + 2``, ``gamma > 4``;
    1. ``(status, B) = GoodCenters(T, eps/2, delta_s, beta/2, gamma)``, ``delta_s = f_s delta/(1+e^eps)``;
    2. Failure -> None (⊥);
    3. ``c_i`` = the selected tuple's points (canonically ordered first), ``D_i = min_{j!=i} ||c_i - c_j||``;
    4. ``b = 4k ln((gamma+2)/(gamma-2))/eps``; ``λ̂_i = ln D_i + Lap(b)`` (eps/4 in total: the vector of log
       separations has L1 sensitivity ``k ln((gamma+2)/(gamma-2))``, §1.5 ratio bound);
       ``u_i = λ̂_i + b ln(k/(2 f_E delta))`` (one-sided margin: each λ̂_i falls below λ_i - b ln(k/(2 f_E delta))
       with probability f_E delta/k, so the event E fails with probability <= f_E delta);
       ``Δ_i = 2 e^{u_i}/(gamma-2)`` (bound on ||c_i - c̃_i||); ``ĉ_i = c_i + N(0, σ_i² I)`` with σ_i the
       Gaussian noise for sensitivity Δ_i at (eps/(4k), f_G delta / k);
    5. output {ĉ_i} in canonical order.

    δ split [R, named parameter ``delta_split = (f_s, f_E, f_G)``, default (1/4, 1/4, 1/2)]: the spec's
    reconstruction uses δ/4 for the wrapper, δ/4 for the event E (margin ``b ln(2k/δ)``) and
    δ/(4k e^{eps/4}) per Gaussian, which sums to less than δ. Here the three parts are sized so the ledger
    sums to exactly δ by adaptive composition (the λ̂ step is pure, E's failure probability is an additive
    δ term, the Gaussians add theirs); with the default split the margin equals the spec's ``b ln(2k/δ)``.

    Utility [R]: on (2Γ+2)-far-partitioned input the output is a correct clustering if
    ``max_i ||ĉ_i - c_i|| < min_i D_i/4``; :func:`noisy_centers_min_gamma` gives the Γ this needs w.h.p.
    (thousands at eps = 1). Tuples then must be (2Γ+2)-far: very tight tuples.

    Parameters
    ----------
    gamma : float
        Γ of the test's balls (privacy needs Γ > 2; we require Γ > 4). Default: ``noisy_centers_min_gamma``
        for (k, d, eps, delta, beta) at fit time.
    gaussian_method : "analytic" or "classic"
        Analytic (Balle–Wang, default) or the spec's classic σ (needs eps/(4k) < 1).
    """

    def __init__(self, n_clusters, epsilon, delta, *, gamma=None, beta=0.05, delta_split=(0.25, 0.25, 0.5),
                 gaussian_method="analytic", random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.gamma = gamma
        self.beta = beta
        self.delta_split = delta_split
        self.gaussian_method = gaussian_method
        self.random_state = random_state

    def _split(self):
        f = np.asarray(self.delta_split, dtype=float)
        if f.shape != (3,) or np.any(~np.isfinite(f)) or np.any(f <= 0) or abs(f.sum() - 1) > 1e-9:
            raise ValueError(f"delta_split must be three positive fractions summing to 1, got {self.delta_split!r}")
        return f

    def params(self, n_tuples, n_features=None):
        """Public parameters for n_tuples: GoodCenters' m, eps1, eps2, ell, min_n, delta_s and the Γ used."""
        self._validate()
        f = self._split()
        dl_s = f[0] * self._dl / (1 + math.exp(self._eps))
        prm = good_centers_params(n_tuples, self._eps / 2, dl_s, self._beta / 2)
        prm.update(delta_s=float(dl_s), min_n=2 * prm["ell"] + 2)
        if self.gamma is not None:
            prm["gamma"] = _check_pos(self.gamma, "gamma")
        elif n_features is not None:
            prm["gamma"] = noisy_centers_min_gamma(self._k, n_features, self._eps, self._dl, self._beta,
                                                   delta_split=tuple(f), gaussian_method=self.gaussian_method)
        return prm

    def check_params(self, n_tuples, n_features):
        """Every public precondition for ``n_tuples`` tuples in R^``n_features`` (raises ValueError); no data is
        read. Returns :meth:`params` (with the Γ used). Called by :meth:`cluster` before the data, and by wrappers
        (k-means, GMM) before they touch theirs."""
        self._validate()
        if self._k < 2:
            raise ValueError(f"n_clusters must be >= 2 for PrivatekNoisyCenters (D_i needs another point), "
                             f"got {self._k}")
        n = check_positive_int(n_tuples, "n_tuples")
        d = check_positive_int(n_features, "n_features")
        prm = self.params(n, d)
        gamma = prm["gamma"]
        if gamma <= 4:
            raise ValueError(f"gamma must be > 4, got {gamma}")
        if self.gaussian_method == "classic" and self._eps / (4 * self._k) >= 1:
            raise ValueError("gaussian_method='classic' needs epsilon/(4k) < 1")
        if n < prm["min_n"]:
            raise ValueError(f"n_tuples={n} is too small: PrivatekNoisyCenters needs n >= 2*ell+2 = {prm['min_n']} "
                             f"at epsilon={self._eps}, delta={self._dl}, beta={self._beta}")
        return prm

    def cluster(self, T):
        """Run on ``T`` (n_tuples, k, d). Returns ``(centers or None, status)`` and sets ``ledger_``.

        All public preconditions (:meth:`check_params`) are checked before any value of ``T`` is read."""
        self._validate()
        shape = _check_tuples(T, n_clusters=self.n_clusters, finite=False)
        n, k, d = shape
        prm = self.check_params(n, d)
        gamma = prm["gamma"]
        f = self._split()
        T = _check_tuples(T, n_clusters=k)
        rng = check_rng(self.random_state)
        led = PrivacyLedger(self._eps, self._dl)
        self.ledger_ = led
        status, X = good_centers(T, self._eps / 2, prm["delta_s"], self._beta / 2, gamma, rng, ledger=led,
                                 name="GoodCenters")
        led.record("wrapper lemma: soundness term (1+e^eps)*delta_s", 0.0, (1 + math.exp(self._eps)) * prm["delta_s"])
        if not status:
            led.record("noisy log-separations and Gaussian centres (reserved; not run, output is ⊥)",
                       self._eps / 2, (f[1] + f[2]) * self._dl)
            return None, False
        C = canonical_order(X)  # canonical BEFORE noise: output law does not depend on storage order
        D = tuple_separation(C)  # > 0: GoodCenters never selects a tuple with duplicate points
        log_ratio = math.log((gamma + 2) / (gamma - 2))
        b = 4 * k * log_ratio / self._eps
        lam_hat = np.log(D) + rng.laplace(0.0, b, size=k)
        led.record("λ̂ = ln D_i + Lap(b), k log-separations", self._eps / 4, 0.0, k * log_ratio)
        dl_E = f[1] * self._dl
        u = lam_hat + b * math.log(k / (2 * dl_E))
        led.record("event E fails (one-sided Laplace margin)", 0.0, dl_E)
        Delta = 2 * np.exp(u) / (gamma - 2)
        factor = _noisy_centers_sigma_factor(k, self._eps, f[2] * self._dl / k, self.gaussian_method)
        sigma = factor * Delta
        out = C + rng.normal(size=(k, d)) * sigma[:, None]
        for i in range(k):
            led.record(f"Gaussian centre {i} (sensitivity Δ_i)", self._eps / (4 * k), f[2] * self._dl / k)
        return canonical_order(out), True


def noisy_centers_min_gamma(n_clusters, n_features, epsilon, delta, beta=0.05, *, delta_split=(0.25, 0.25, 0.5),
                            gaussian_method="analytic", target=0.25):
    """Smallest Γ for which PrivatekNoisyCenters' noise bound is below ``target * D_i`` (spec §2.5 utility) [R]:

    ``σ_i (√d + √(2 ln(4k/β))) <= target * D_i`` with the high-probability bound
    ``σ_i <= (σ/Δ) * 2 D_i e^{b (ln(k/(2 f_E δ)) + ln(4k/β))} / (Γ - 2)``, ``b = 4k ln((Γ+2)/(Γ-2))/ε``.
    (``target = 1/4``: the clustering stays correct.) Bisection on Γ. Thousands at ε = 1."""
    k = check_positive_int(n_clusters, "n_clusters")
    d = check_positive_int(n_features, "n_features")
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = _check_prob(beta, "beta")
    f = np.asarray(delta_split, dtype=float)
    factor = _noisy_centers_sigma_factor(k, eps, f[2] * dl / k, gaussian_method)
    L = math.log(k / (2 * f[1] * dl)) + math.log(4 * k / beta)
    tail = math.sqrt(d) + math.sqrt(2 * math.log(4 * k / beta))

    def ratio(g):
        b = 4 * k * math.log((g + 2) / (g - 2)) / eps
        return factor * 2 * math.exp(b * L) / (g - 2) * tail

    lo, hi = 4.0 + 1e-9, 8.0
    while ratio(hi) > target:
        hi *= 2
        if hi > 1e12:
            raise ValueError("no finite gamma meets the target")
    for _ in range(100):
        mid = math.sqrt(lo * hi)
        if ratio(mid) > target:
            lo = mid
        else:
            hi = mid
    return float(hi)


# =====================================================================================================
# experiments: the fast tuple simulator and the success criterion (spec §3.2, §3.4)
# =====================================================================================================
def simulate_tuples(centers, n_tuples, noise=None, rng=None, *, samples_per_tuple=None, sigma=1.0, weights=None,
                    shuffle=True):
    """Fast exact simulator of k-tuples (spec §3.4): tuple t is ``{c_i + noise_ti}``.

    Two modes:

    * ``noise`` (float): every tuple point is ``c_i + N(0, noise^2 I)``;
    * ``samples_per_tuple`` (int N): the tuple is the per-cluster mean of N samples of the mixture
      ``Σ w_i N(c_i, sigma^2 I)`` with correct labels, i.e. ``c_i + N(0, sigma^2/N_i I)`` with
      ``(N_1..N_k) ~ Multinomial(N, w)`` (empty clusters get N_i = 1 — a degenerate k-means++ output would
      be no better). Exact whenever k-means++ recovers the true partition of the chunk.

    Each tuple's rows are shuffled (tuples are unordered) unless ``shuffle=False``.

    Returns
    -------
    ndarray, shape (n_tuples, k, d)
    """
    C = check_data(centers, "centers")
    n_tuples = check_positive_int(n_tuples, "n_tuples")
    rng = check_rng(rng)
    k, d = C.shape
    if (noise is None) == (samples_per_tuple is None):
        raise ValueError("give exactly one of noise and samples_per_tuple")
    if noise is not None:
        sd = np.full((n_tuples, k), float(noise))
        if not (np.isfinite(sd).all() and float(noise) >= 0):
            raise ValueError(f"noise must be finite and >= 0, got {noise!r}")
    else:
        N = check_positive_int(samples_per_tuple, "samples_per_tuple")
        w = np.full(k, 1.0 / k) if weights is None else np.asarray(weights, dtype=float)
        if w.shape != (k,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
            raise ValueError("weights must be k non-negative numbers summing to 1")
        counts = np.maximum(rng.multinomial(N, w, size=n_tuples), 1)
        sd = _check_pos(sigma, "sigma") / np.sqrt(counts)
    T = C[None, :, :] + rng.normal(size=(n_tuples, k, d)) * sd[:, :, None]
    if shuffle and k > 1:
        perm = np.argsort(rng.random((n_tuples, k)), axis=1)
        T = np.take_along_axis(T, perm[:, :, None], axis=1)
    return T


def match_centers(estimated, true_centers):
    """Success criterion and error of a k-tuple output (spec §3.2) [R].

    ``success`` is True when ``estimated`` is not None and the nearest estimated centre of each true centre is
    a bijection, with every matched error below ``min_i D_i(true)/4`` (then every point nearer to its own true
    centre than the separation margin is assigned correctly). ``max_error`` is the largest distance between
    matched centres (optimal assignment), inf when estimated is None.

    Returns
    -------
    (success, max_error) : (bool, float)
    """
    C = check_data(true_centers, "true_centers")
    if estimated is None:
        return False, float("inf")
    E = check_data(estimated, "estimated", n_features=C.shape[1])
    from scipy.optimize import linear_sum_assignment
    dist = np.linalg.norm(E[:, None, :] - C[None, :, :], axis=2)
    r, c = linear_sum_assignment(dist)
    err = float(dist[r, c].max())
    nearest = np.argmin(dist, axis=0)
    bij = len(np.unique(nearest)) == C.shape[0]
    sep = tuple_separation(C).min() if C.shape[0] > 1 else np.inf
    return bool(bij and err < sep / 4), err


def ktuple_trials(make_estimator, centers, n_tuples, n_reps, rng=None, *, noise=None, samples_per_tuple=None,
                  sigma=1.0):
    """Repeat a k-tuple experiment on fresh simulated tuple sets (spec §3.2 metric) [R].

    ``make_estimator(seed)`` returns a PrivatekAverages / PrivatekNoisyCenters; each repetition draws T with
    :func:`simulate_tuples` (``noise`` or ``samples_per_tuple``/``sigma``) and scores the output with
    :func:`match_centers`.

    Returns
    -------
    dict with ``success_rate``, ``status_rate`` (fraction of Success bits), ``median_error`` (over runs;
    inf if most runs failed) and ``errors`` (array, inf for ⊥).
    """
    C = check_data(centers, "centers")
    n_reps = check_positive_int(n_reps, "n_reps")
    rng = check_rng(rng)
    ok = np.zeros(n_reps, dtype=bool)
    st = np.zeros(n_reps, dtype=bool)
    err = np.full(n_reps, np.inf)
    for r in range(n_reps):  # loop over repetitions
        T = simulate_tuples(C, n_tuples, noise, rng, samples_per_tuple=samples_per_tuple, sigma=sigma)
        out, st[r] = make_estimator(int(rng.integers(2**31 - 1))).cluster(T)
        ok[r], err[r] = match_centers(out, C)
    return {"success_rate": float(ok.mean()), "status_rate": float(st.mean()),
            "median_error": float(np.median(err)), "errors": err}


# =====================================================================================================
# k-means on easy instances (spec §2.7)
# =====================================================================================================
def kmeans_tuples(X, n_clusters, n_tuples, rng=None, *, labels=None, n_iter=20, method="batched"):
    """Sample-and-aggregate input: split X into ``n_tuples`` data-independent chunks and run k-means++ on each;
    returns the tuple set (n_tuples, k, d) (not private).

    Chunks: every point gets its own independent uniform chunk label (``labels`` may pass them), so adding or
    removing one point changes one chunk, hence one tuple (pitfall 14: never by value). A chunk with fewer than
    k distinct points yields a degenerate tuple (pitfall 16) that just fails the closeness test.

    ``method="batched"`` (default): k-means++ seeding [AV07] (D² sampling) followed by ``n_iter`` Lloyd
    iterations, vectorised over all chunks at once (no loop over chunks or points). ``method="sklearn"``:
    scikit-learn ``KMeans(init="k-means++", n_init=1)`` per chunk (slow: ~0.1 s per call on 2 busy cores).
    """
    X = check_data(X)
    k = check_positive_int(n_clusters, "n_clusters")
    n_tuples = check_positive_int(n_tuples, "n_tuples")
    rng = check_rng(rng)
    n, d = X.shape
    if labels is None:
        labels = rng.integers(0, n_tuples, size=n)
    labels = np.asarray(labels)
    order = np.argsort(labels, kind="stable")
    Xs, ls = X[order], labels[order]
    bnd = np.searchsorted(ls, np.arange(n_tuples + 1))
    sizes = np.diff(bnd)
    out = np.zeros((n_tuples, k, d))
    if method == "sklearn":
        from sklearn.cluster import KMeans
        for t in range(n_tuples):  # loop over chunks
            S = Xs[bnd[t]:bnd[t + 1]]
            if S.shape[0] >= k:
                out[t] = KMeans(n_clusters=k, init="k-means++", n_init=1,
                                random_state=int(rng.integers(2**31 - 1))).fit(S).cluster_centers_
            elif S.shape[0] > 0:
                out[t] = S[np.arange(k) % S.shape[0]]
        return out
    if method != "batched":
        raise ValueError(f"method must be 'batched' or 'sklearn', got {method!r}")
    nonempty = sizes > 0
    # k-means++ seeding, all chunks at once
    first = bnd[:-1] + np.floor(rng.random(n_tuples) * np.maximum(sizes, 1)).astype(np.int64)
    first = np.minimum(first, n - 1)
    out[:, 0] = Xs[first]
    mind = ((Xs - out[ls, 0]) ** 2).sum(axis=1)
    # D² sampling with CHUNK-LOCAL cumulative sums (a padded (n_tuples, max chunk size) array): a global cumsum
    # would let the other chunks' values enter each chunk's draw through floating-point rounding, and the privacy
    # argument needs every tuple to be a function of its own chunk only.
    pos = np.arange(n) - bnd[ls]
    width = max(int(sizes.max()), 1)
    for j in range(1, k):  # loop over the k seeds
        W = np.zeros((n_tuples, width))
        W[ls, pos] = mind
        cs = np.cumsum(W, axis=1)
        target = rng.random(n_tuples) * cs[:, -1]
        loc = np.minimum((cs <= target[:, None]).sum(axis=1), np.maximum(sizes - 1, 0))  # searchsorted "right"
        idx = np.minimum(bnd[:-1] + loc, n - 1)
        # chunks whose points all coincide with the seeds (tot == 0) repeat a point: a degenerate tuple
        out[:, j] = Xs[idx]
        mind = np.minimum(mind, ((Xs - out[ls, j]) ** 2).sum(axis=1))
    # Lloyd iterations, all chunks at once
    for _ in range(n_iter):
        d2 = ((Xs[:, None, :] - out[ls]) ** 2).sum(axis=2)
        a = np.argmin(d2, axis=1)
        key = ls * k + a
        cnt = np.bincount(key, minlength=n_tuples * k).reshape(n_tuples, k)
        sm = np.stack([np.bincount(key, weights=Xs[:, j], minlength=n_tuples * k) for j in range(d)], axis=1)
        sm = sm.reshape(n_tuples, k, d)
        upd = cnt > 0
        out[upd] = sm[upd] / cnt[upd][:, None]
    out[~nonempty] = 0.0
    return out


def min_valid_tuples(min_n_of):
    """Smallest n with ``min_n_of(n) <= n`` (``min_n_of`` = 2 ell(n) + 2 is non-increasing in n, so
    ``n - min_n_of(n)`` is increasing: bisection). Public computation only."""
    def ok(n):
        try:
            return min_n_of(n) <= n
        except ValueError:
            return False
    hi = 2
    while not ok(hi):
        hi *= 2
        if hi > 2**40:
            raise ValueError("no number of tuples satisfies n >= 2 ell + 2")
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def min_tuples_noisy_centers(n_clusters, epsilon, delta, beta=0.05, delta_split=(0.25, 0.25, 0.5)):
    """Smallest number of tuples PrivatekNoisyCenters accepts (n >= 2 ell(n) + 2)."""
    g = PrivatekNoisyCenters(n_clusters, epsilon, delta, gamma=10.0, beta=beta, delta_split=delta_split)
    return min_valid_tuples(lambda n: g.params(n)["min_n"])


def min_tuples_kaverages(n_clusters, epsilon, delta, beta=0.05):
    """Smallest number of tuples PrivatekAverages accepts (n >= 2 ell(n) + 2)."""
    return min_valid_tuples(lambda n: private_kaverages_params(n, n_clusters, epsilon, delta, beta)["min_n"])


class PrivateKMeansEasy:
    """k-means on easy (well-separated) instances by reduction to k-tuple clustering (paper §5; spec §2.7) —
    (epsilon, delta)-DP under add/remove of one point.

    1. Split X into ``n_tuples`` chunks by independent random labels (sample-and-aggregate; disjoint chunks,
       so no subsampling lemma is needed) and run k-means++ on each chunk: a tuple set T (not private);
    2. ``Ĉ = G(T)`` with G = :class:`PrivatekNoisyCenters` (default) or :class:`PrivatekAverages` at
       (tuple_fraction * eps, tuple_fraction * delta) — one point changes one tuple;
    3. one private Lloyd step: ``S_i`` = points nearest to ĉ_i; noisy sum (Gaussian, L2 sensitivity = the
       half-diagonal of the bounds box, points centred at the box centre) and noisy count (Laplace, sensitivity 1),
       ``â_i = noisy sum / max(noisy count, 1)`` clipped to the box. Under add/remove one point enters one S_i,
       so the k releases compose in parallel (ledger group), costing the remaining (eps, delta) once.
    4. If G fails (status False), the Lloyd step starts from k centres drawn uniformly in the box
       (data-independent) — the budget is still charged, so ``ledger_`` always totals (epsilon, delta).

    Parameters
    ----------
    n_clusters, epsilon, delta : int, float, float
    bounds : public box (low, high), (lows, highs) or (d, 2). Data outside is clipped to it.
    n_tuples : int or None
        Number of chunks = tuples. Default: the smallest valid number for G (2 ell + 2), plus 10%.
    tuple_algorithm : "noisy_centers" or "averages"
    tuple_fraction : float in (0, 1)
        Share of epsilon and of delta given to G (default 0.5).
    count_fraction : float in (0, 1)
        Share of the Lloyd-step epsilon given to the noisy counts (default 0.25).
    gamma : float, optional
        Γ of G (see the k-tuple classes).
    kmeans_iter : int
        Lloyd iterations after the k-means++ seeding on every chunk (default 20).
    min_chunk : int
        The smallest allowed expected chunk size (default 10k); fit raises ValueError if ``len(X) < n_tuples * min_chunk``.
        This refusal is the only use of ``len(X)``: it reveals whether ``len(X) >= n_tuples * min_chunk``, so the
        add/remove guarantee treats that bit as public (as the paper treats n); everything else is DP under
        add/remove with no assumption on n.

    Attributes
    ----------
    cluster_centers_, status_ (G's status bit), ledger_, n_tuples_
    """

    def __init__(self, n_clusters, epsilon, delta, *, bounds, n_tuples=None, tuple_algorithm="noisy_centers",
                 tuple_fraction=0.5, count_fraction=0.25, gamma=None, beta=0.05, min_chunk=None, kmeans_iter=20,
                 random_state=None):
        self.kmeans_iter = kmeans_iter
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.n_tuples = n_tuples
        self.tuple_algorithm = tuple_algorithm
        self.tuple_fraction = tuple_fraction
        self.count_fraction = count_fraction
        self.gamma = gamma
        self.beta = beta
        self.min_chunk = min_chunk
        self.random_state = random_state

    def _make_g(self, d, rng_seed, radius, center):
        k = self.n_clusters
        eg, dg = self._eps * self._tf, self._dl * self._tf
        if self.tuple_algorithm == "noisy_centers":
            return PrivatekNoisyCenters(k, eg, dg, gamma=self.gamma, beta=self._beta, random_state=rng_seed)
        if self.tuple_algorithm == "averages":
            return PrivatekAverages(k, eg, dg, radius=radius, center=center, beta=self._beta,
                                    gamma=10.0 if self.gamma is None else self.gamma, random_state=rng_seed)
        raise ValueError(f"tuple_algorithm must be 'noisy_centers' or 'averages', got {self.tuple_algorithm!r}")

    def _min_tuples(self):
        eg, dg = self._eps * self._tf, self._dl * self._tf
        if self.tuple_algorithm == "averages":
            f = lambda n: private_kaverages_params(n, self._k, eg, dg, self._beta)["min_n"]  # noqa: E731
        else:
            g = PrivatekNoisyCenters(self._k, eg, dg, gamma=self.gamma, beta=self._beta)
            f = lambda n: g.params(n)["min_n"]  # noqa: E731
        return int(math.ceil(1.1 * min_valid_tuples(f)))

    def _validate(self, n_samples, n_features):
        self._k = check_n_clusters(self.n_clusters)
        self._eps = check_epsilon(self.epsilon)
        self._dl = check_delta(self.delta)
        self._beta = _check_prob(self.beta, "beta")
        self._tf = _check_prob(self.tuple_fraction, "tuple_fraction")
        self._cf = _check_prob(self.count_fraction, "count_fraction")
        self._kit = check_positive_int(self.kmeans_iter, "kmeans_iter")
        if self.tuple_algorithm not in ("noisy_centers", "averages"):
            raise ValueError(f"tuple_algorithm must be 'noisy_centers' or 'averages', got {self.tuple_algorithm!r}")
        low, high = check_bounds(self.bounds, n_features)
        n_t = self._min_tuples() if self.n_tuples is None else check_positive_int(self.n_tuples, "n_tuples")
        # G's own preconditions (gamma, n_tuples >= 2 ell + 2, ...) on public values, before the data is read
        self._make_g(n_features, None, float(np.linalg.norm(high - low) / 2), (low + high) / 2).check_params(
            n_t, n_features)
        min_chunk = 10 * self._k if self.min_chunk is None else check_positive_int(self.min_chunk, "min_chunk")
        if n_samples < n_t * min_chunk:
            raise ValueError(f"n_samples={n_samples} is too small: PrivateKMeansEasy needs n_tuples * min_chunk = "
                             f"{n_t} * {min_chunk} = {n_t * min_chunk} points at epsilon={self._eps}, "
                             f"delta={self._dl} (k={self._k})")
        return low, high, n_t

    def fit(self, X, y=None):
        """Fit on X (n, d); returns self. Public-parameter checks run before any data value is read."""
        shape = np.shape(X)
        if len(shape) != 2:
            raise ValueError(f"X must be 2-D of shape (n_samples, n_features), got shape {shape}")
        low, high, n_t = self._validate(shape[0], shape[1])
        X = check_data(X)
        rng = check_rng(self.random_state)
        d = X.shape[1]
        X = np.clip(X, low, high)
        center = (low + high) / 2
        radius = float(np.linalg.norm(high - low) / 2)
        led = PrivacyLedger(self._eps, self._dl)
        self.ledger_ = led
        self.n_tuples_ = n_t
        # 1. disjoint chunks by independent labels, k-means++ on each
        T = kmeans_tuples(X, self._k, n_t, rng, n_iter=self._kit)
        # 2. private k-tuple clustering
        G = self._make_g(d, int(rng.integers(2**31 - 1)), radius, center)
        C, status = G.cluster(T)
        led.extend(G.ledger_, prefix="k-tuple: ")
        self.status_ = bool(status)
        if C is None:
            C = low + rng.random((self._k, d)) * (high - low)
        # 3. one private Lloyd step (parallel composition over the clusters)
        eps_l, dl_l = self._eps * (1 - self._tf), self._dl * (1 - self._tf)
        eps_cnt, eps_sum = eps_l * self._cf, eps_l * (1 - self._cf)
        lab = np.argmin(((X[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1)
        Z = X - center[None, :]
        sums = np.zeros((self._k, d))
        np.add.at(sums, lab, Z)
        counts = np.bincount(lab, minlength=self._k).astype(float)
        sigma = gaussian_sigma(radius, eps_sum, dl_l)
        noisy_sums = sums + rng.normal(0.0, sigma, size=sums.shape)
        noisy_counts = counts + rng.laplace(0.0, 1.0 / eps_cnt, size=self._k)
        with led.parallel("Lloyd step (one point joins one cluster)") as par:
            for i in range(self._k):
                with par.partition():
                    led.record(f"Lloyd step: noisy count {i}", eps_cnt, 0.0, 1.0)
                    led.record(f"Lloyd step: noisy sum {i} (Gaussian)", eps_sum, dl_l, radius)
        centers = center[None, :] + noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
        self.cluster_centers_ = np.clip(centers, low, high)
        self.tuple_centers_ = None if not status else C  # G's released output (private)
        return self

    def predict(self, X):
        """Index of the nearest centre for each row of X."""
        if getattr(self, "cluster_centers_", None) is None:
            raise ValueError("call fit first")
        X = check_data(X, n_features=self.cluster_centers_.shape[1])
        return np.argmin(((X[:, None, :] - self.cluster_centers_[None]) ** 2).sum(axis=2), axis=1)
