"""k-tuple clustering and k-means on easy instances (Cohen, Kaplan, Mansour, Stemmer & Tsfadia, ICML 2021).

The paper's text lost most of its inline formulas; where a constant could not be recovered the docstring says
so ("the paper does not state X; we use Y") and the constant is a named parameter.

Contents
--------
*Primitives* (App. A.1), reused by :mod:`dpclust_core.gmm`:

* :func:`private_interior_point` — 1-D interior point: the exponential mechanism over a grid (App. A.1.2);
* :func:`private_bounding_segment` — two interior points on the t smallest / t largest points;
* :func:`private_average_1d` — PrivAvg1D: bounding segment, clip, Gaussian noisy average (App. A.1.3);
* :func:`private_average` — d-dimensional private average, coordinate-wise or after a random rotation
  (the [NSV16] variant of §4.3.2).

*k-tuple clustering* (§3–§4): :func:`partitioned_by`, :func:`close_tuple_counts` (the statistic of
TestCloseTuples, Alg. 4.1), :func:`good_centers_params`, :func:`good_centers` (GoodCenters, Alg. 4.2, the
private niceness test), :func:`good_centers_status_samples` (vectorised status bits, for audits and
figures), :class:`PrivatekAverages` (Alg. 4.3), :class:`PrivatekNoisyCenters` (Alg. 4.4),
:func:`noisy_centers_min_gamma`.

*k-means on easy instances* (§5): :func:`kmeans_tuples` (k-means++ on disjoint chunks),
:class:`PrivateKMeansEasy` (sample-and-aggregate + one private Lloyd step).

The experiments of §7 (a fast exact tuple simulator, the success criterion, repeated trials) are the book's:
``dpclust_book.experiments.ktuple``.

The composition rules the algorithms use (advanced composition, group privacy, amplification by
subsampling, zCDP) live in :mod:`dpclust_core.accounting`; every noisy release goes through
:mod:`dpclust_core.mechanisms` (floating-point safe) and is recorded in the ledger by the mechanism itself.

Neighbouring notions. The k-tuple algorithms are DP for databases of ``n`` tuples (``n`` public) that differ
in one whole tuple (replace-one). The averages inside them and the Lloyd step of :class:`PrivateKMeansEasy`
are DP under add/remove of one point. :class:`PrivateKMeansEasy` is DP under add/remove of one data point
(the book's notion): each point is sent to one chunk by its own independent random label, so adding or
removing a point changes exactly one tuple, and the number of tuples is a function of public parameters.

What is released. Only the status bit and the final centres (sorted in canonical lexicographic order) leave
the k-tuple algorithms; the selected tuple, the balls and the cluster sizes are never stored.
"""
from __future__ import annotations

import contextlib
import functools
import math
from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from . import _kernels
from . import tuples
from .tuples import MIN_BETA
from ._validation import (MAX_ALLOCATION, ArrayLike, ArrayOrNone, BadTypeError, RNGLike, Bool, BoundsSpec, Delta,
                          Epsilon, EpsilonTooSmallError, Int, Ledger, NoneOr, Options, Radius, RandomState, Real,
                          check_bool, check_bounds, check_data, check_delta, check_radius, check_epsilon,
                          check_int, check_ledger, check_options, check_probability, check_real, check_rng)
from ._validation import Rng, check_n_public, validate_params
from .accounting import PrivacyLedger, advanced_composition_inverse
from .base import CentroidMixin, DPEstimator
from ._grid import _grid_step, _snap
from .mechanisms import (GRID_BITS, discrete_gaussian_sigma, exponential_mechanism_intervals, gaussian_mechanism,
                         gaussian_sigma, laplace_grid, laplace_mechanism)

__all__ = [
    # primitives
    "private_interior_point", "private_bounding_segment", "private_average_1d", "private_average",
    "random_rotation", "interior_point_quality", "bounding_segment_t",
    # k-tuple clustering
    "partitioned_by", "close_tuple_counts", "tuple_separation", "canonical_order", "good_centers_params",
    "good_centers", "good_centers_status_samples", "private_kaverages_params", "PrivatekAverages",
    "PrivatekNoisyCenters", "noisy_centers_min_gamma", "min_valid_tuples", "min_tuples_noisy_centers",
    "min_tuples_kaverages",
    # k-means
    "PrivateKMeansEasy",
    "MAX_TUPLES",
]

#: Largest number of tuples any algorithm here will ask for (a public cap: a budget so small that it would
#: need more tuples raises a clear ``ValueError`` instead of searching forever).
MAX_TUPLES = MAX_ALLOCATION
#: The most clusters the k-tuple estimators accept: beyond it no private clustering of easy instances is
#: meaningful, and the tuples alone (n_tuples x k x d floats) would not fit in memory.
MAX_K = 10_000

#: Largest Γ of PrivatekNoisyCenters: beyond it the log-separations' sensitivity k·ln((Γ+2)/(Γ-2)) is so small
#: that their exact release on a grid would need more than 52 bits.
MAX_GAMMA = 1e9
_GRID_LIMIT = 2**52  # largest number of grid points an interior point may range over (exact integers)


# =====================================================================================================
# small helpers
# =====================================================================================================
def _positive(x, name):
    return check_real(x, name, low=0.0, low_open=True)


def _prob(x, name):
    return check_probability(x, name)


@contextlib.contextmanager
def _nothing():
    yield


def _group(ledger, name):
    """A named sequential group of the ledger (nothing when there is no ledger)."""
    return _nothing() if ledger is None else ledger.group(name)


def _analysis_term(ledger, name, epsilon, delta):
    """Record a term of the privacy *analysis* that no mechanism draws: the δ of a wrapper lemma or of a
    high-probability event, or the budget reserved for releases that are skipped on a ⊥ output (the
    guarantee covers both branches). Never used for noise: every noisy release is recorded by its mechanism."""
    if ledger is not None:
        ledger.record(name, epsilon, delta)


def canonical_order(C: ArrayLike) -> np.ndarray:
    """Rows of ``C`` sorted lexicographically (first coordinate first).

    Used for every released k-tuple, so the output order cannot reveal the storage order of the selected
    input tuple.

    Examples
    --------
    >>> canonical_order([[2.0, 0.0], [1.0, 5.0]]).tolist()
    [[1.0, 5.0], [2.0, 0.0]]
    """
    C = check_data(C, "C")
    return C[np.lexsort(C.T[::-1])]


def _split_composition(eps_total, delta_total, n_calls, composition="auto"):
    """Per-call ``(eps_c, delta_c)`` for ``n_calls`` adaptive calls within (eps_total, delta_total), and the
    composition used. ``basic``: (eps/n, delta/n). ``advanced`` (Dwork, Rothblum & Vadhan 2010): delta' =
    delta/2, delta_c = delta/(2n), eps_c from :func:`~dpclust_core.accounting.advanced_composition_inverse`.
    ``auto`` takes the larger eps_c."""
    check_options(composition, "composition", ("auto", "basic", "advanced"))
    basic = (eps_total / n_calls, delta_total / n_calls, "basic")
    if composition == "basic" or n_calls == 1:
        return basic
    if delta_total <= 0:
        if composition == "advanced":
            raise ValueError("composition='advanced' needs delta > 0")
        return basic
    adv = (advanced_composition_inverse(eps_total, n_calls, delta_total / 2), delta_total / (2 * n_calls),
           "advanced")
    if composition == "advanced":
        return adv
    return adv if adv[0] > basic[0] else basic


def _composed(ledger, how, name, delta_prime):
    """The ledger context of ``n_calls`` releases composed as ``how`` ("basic" or "advanced")."""
    if ledger is None:
        return _nothing()
    if how == "advanced":
        return ledger.advanced(f"{name} (advanced composition)", delta_prime)
    return ledger.group(name)


# =====================================================================================================
# 1-D primitives (App. A.1.2–A.1.3)
# =====================================================================================================
def _grid(low, high, resolution):
    """The public grid of the interior point: ``(g_low, g_high, step, n)``.

    The step is the largest power of two not above ``resolution``, and the grid points are the multiples of it
    inside ``[low, high]``: ``g_low + j·step`` for ``j = 0..n`` with ``g_low``, ``g_high = g_low + n·step`` the
    first and last. Every grid point is then an exact float (a release carries no low-order bits of the data)."""
    low = check_real(low, "low")
    high = check_real(high, "high")
    if not low < high:
        raise ValueError(f"low must be < high, got low={low}, high={high}")
    xi = _positive(resolution, "resolution")
    step = math.ldexp(1.0, math.frexp(xi)[1] - 1)  # 2^floor(log2 xi), exact
    width = high - low
    if not math.isfinite(width) or width / step >= _GRID_LIMIT or max(abs(low), abs(high)) / step >= _GRID_LIMIT:
        raise ValueError(f"resolution={xi} is too fine for [low, high] = [{low}, {high}]: the grid would have more "
                         f"than 2^52 points")
    j_low, j_high = math.ceil(low / step), math.floor(high / step)
    if j_high - j_low < 1:
        raise ValueError(f"resolution={xi} is too coarse for [low, high] = [{low}, {high}]: the grid needs at least "
                         f"two points inside")
    return j_low * step, j_high * step, step, j_high - j_low


def _check_1d(x, name="x"):
    return check_data(x, name, ndim=1, allow_empty=True)


def _ip_quality_pieces(x, low, xi, n_grid):
    """Piecewise-constant quality of the interior point: pieces [start, end) of grid indices and q on each.

    ``q(S, z_j) = min(#{x : floor_G(x) <= z_j}, #{x : ceil_G(x) >= z_j})``; sensitivity 1 under replace
    and add/remove. Breakpoints are the floor indices and (ceil index + 1)."""
    u = (x - low) / xi
    f = np.clip(np.floor(u), 0, n_grid).astype(np.int64)
    c = np.clip(np.ceil(u), 0, n_grid).astype(np.int64)
    fs, cs = np.sort(f), np.sort(c)
    starts = np.unique(np.concatenate([[0], f, c + 1]))
    starts = starts[starts <= n_grid]
    ends = np.append(starts[1:], n_grid + 1)
    left = np.searchsorted(fs, starts, side="right")
    right = u.size - np.searchsorted(cs, starts, side="left")
    return starts, ends, np.minimum(left, right)


def interior_point_quality(x: ArrayLike, z: float | ArrayLike, low: float, high: float,
                           resolution: float) -> np.ndarray:
    """The interior-point quality ``q(S, z)`` at grid points ``z`` (for tests and figures; not private).

    ``q(S, z) = min(#{x : floor_G(x) <= z}, #{x : ceil_G(x) >= z})`` on the grid G of
    :func:`private_interior_point`; ``z`` is rounded to the nearest grid point. O((n + len(z)) log n).

    Examples
    --------
    >>> interior_point_quality([0.1, 0.5, 0.9], [0.0, 0.5, 1.0], 0.0, 1.0, 0.1).tolist()
    [0, 2, 0]
    """
    low, high, xi, _ = _grid(low, high, resolution)
    x = np.clip(_check_1d(x), low, high)
    zz = _check_1d(z, "z")
    u = (x - low) / xi
    fs, cs = np.sort(np.floor(u)), np.sort(np.ceil(u))
    j = np.round((zz - low) / xi)
    left = np.searchsorted(fs, j, side="right")
    right = u.size - np.searchsorted(cs, j, side="left")
    return np.minimum(left, right)


@validate_params(epsilon=Epsilon(), size=NoneOr(Int(1, MAX_ALLOCATION)), ledger=Ledger())
def private_interior_point(x: ArrayLike, epsilon: float, low: float, high: float, resolution: float,
                           rng: RNGLike = None, *, size: int | None = None, ledger: PrivacyLedger | None = None,
                           name: str = "interior point") -> float | np.ndarray:
    """Private interior point in 1-D (paper App. A.1.2) — epsilon-DP under add/remove and replace.

    The exponential mechanism over a grid G of ``N + 1`` points spanning ``[low, high]``, with quality
    ``q(S, z) = min(#{x : floor_G(x) <= z}, #{x : ceil_G(x) >= z})`` (sensitivity 1) and weights ``exp(epsilon·q/2)``. The paper does not state q
    exactly; this form has sensitivity 1 and its maximiser is the median. The grid is never enumerated: q is
    constant between breakpoints, so each piece is weighted by its number of grid points
    (:func:`~dpclust_core.mechanisms.exponential_mechanism_intervals`) and a grid point is drawn uniformly
    inside the chosen piece. O(n log n).

    The paper's grid is ``{low + j·resolution}``; here the step is the largest power of two ``ξ <= resolution``
    and G holds the multiples of ξ in ``[low, high]`` (``N <= 2·(high - low)/resolution``), so that every output
    is a multiple of a public power of two: an exact float, whose low-order bits say nothing about the data.

    Utility: if ``len(x) >= (4/epsilon) ln((N+1)/beta) + 2`` then with probability 1 - beta the output lies
    in ``[min x - resolution, max x + resolution]``. With fewer points it is close to uniform on [low, high]
    (the practical bottleneck of PrivatekAverages, paper §7).

    Parameters
    ----------
    x : array_like, 1-D
        The data; values outside ``[low, high]`` are clipped to it (public domain). May be empty.
    epsilon : float
        Budget of one draw.
    low, high : float
        The public domain (the paper's a and a + Λ).
    resolution : float
        The paper's grid step; the grid uses the largest power of two not above it.
    rng : None, int or numpy.random.Generator
    size : int, optional
        Draw this many independent outputs (audits, figures); the ledger is charged ``size * epsilon``.
    ledger : PrivacyLedger, optional
    name : str
        The ledger entry's name.

    Returns
    -------
    float, or ndarray of shape (size,)

    Examples
    --------
    >>> import numpy as np
    >>> z = private_interior_point(np.linspace(0.4, 0.6, 200), 1.0, 0.0, 1.0, 1e-3, rng=0)
    >>> 0.3 < z < 0.7
    True
    """
    low, high, xi, n_grid = _grid(low, high, resolution)
    x = _check_1d(x)
    return _interior_point(x, epsilon, low, high, xi, n_grid, check_rng(rng), size, ledger, name)


def _interior_point(x, eps, low, high, xi, n_grid, rng, size, ledger, name):
    starts, ends, q = _ip_quality_pieces(np.clip(x, low, high), low, xi, n_grid)
    i, off = exponential_mechanism_intervals(q.astype(float), ends - starts, 1.0, eps, rng, size=size,
                                             ledger=ledger, name=name)
    out = low + (starts[i] + off) * xi  # a grid point: low and xi are a multiple and a power of two, so exact
    return float(out) if size is None else out


@validate_params(epsilon=Epsilon(), t=Int(1), ledger=Ledger())
def private_bounding_segment(x: ArrayLike, t: int, epsilon: float, low: float, high: float, resolution: float,
                             rng: RNGLike = None, *, ledger: PrivacyLedger | None = None,
                             name: str = "bounding segment") -> tuple[float, float]:
    """BoundingSegment (paper App. A.1.2) — epsilon-DP under add/remove and replace.

    ``z_L = IP(t smallest points, epsilon/2)``, ``z_R = IP(t largest points, epsilon/2)``, output
    ``[max(low, z_L - resolution), min(high, z_R + resolution)]`` (sorted, so always z1 <= z2). Adding,
    removing or replacing one point changes each of the two t-sets by at most one element.

    Utility: if ``t >= (8/epsilon) ln(2(N+1)/beta) + 2`` and ``len(x) >= 2t``, with probability 1 - beta all
    but at most 2t points lie in the segment, whose length is at most ``max x - min x + 4 resolution``.

    Parameters
    ----------
    x : array_like, 1-D
    t : int
        How many extreme points each interior point sees.
    epsilon : float
    low, high, resolution : float
        Public domain and grid step.
    rng, ledger, name
        As in :func:`private_interior_point`.

    Returns
    -------
    (z1, z2) : tuple of float

    Examples
    --------
    >>> import numpy as np
    >>> z1, z2 = private_bounding_segment(np.linspace(0.4, 0.6, 400), 100, 2.0, 0.0, 1.0, 1e-3, rng=0)
    >>> 0.3 < z1 <= z2 < 0.7
    True
    """
    low, high, xi, n_grid = _grid(low, high, resolution)
    x = _check_1d(x)
    return _bounding_segment(x, t, epsilon, low, high, xi, n_grid, check_rng(rng), ledger, name)


def _bounding_segment(x, t, eps, low, high, xi, n_grid, rng, ledger, name):
    x = np.sort(np.clip(x, low, high))
    with _group(ledger, name):
        zl = _interior_point(x[:t], eps / 2, low, high, xi, n_grid, rng, None, ledger, name + " (left IP)")
        zr = _interior_point(x[-t:] if x.size else x, eps / 2, low, high, xi, n_grid, rng, None, ledger,
                             name + " (right IP)")
    z1, z2 = max(low, zl - xi), min(high, zr + xi)
    return (min(z1, z2), max(z1, z2))


@validate_params(epsilon=Epsilon(), n_grid=Int(1), beta=tuples.check_beta)
def bounding_segment_t(epsilon: float, n_grid: int, beta: float) -> int:
    """The t of PrivAvg1D step 1: ``ceil((16/epsilon) ln(4(N+1)/beta)) + 2`` (N = ``n_grid``).

    The paper does not state the constant; this one makes both interior points succeed with probability
    1 - beta/2 each (the utility bound of :func:`private_interior_point` at epsilon/4).

    Examples
    --------
    >>> bounding_segment_t(1.0, 1000, 0.05)
    183
    """
    t = (16.0 / epsilon) * math.log(4 * (n_grid + 1) / beta)
    if not t < 2.0**62:
        raise ValueError(f"epsilon={epsilon} is too small: the bounding segment would need t > 2^62 points")
    return int(math.ceil(t)) + 2


@validate_params(epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta)
def private_average_1d(x: ArrayLike, epsilon: float, delta: float, low: float, high: float, resolution: float, *,
                       n_public: float, beta: float = 0.05, rng: RNGLike = None, ledger: PrivacyLedger | None = None,
                       name: str = "PrivAvg1D") -> float:
    """PrivAvg1D (paper App. A.1.3) — (epsilon, delta)-DP under add/remove and replace.

    1. ``t = ceil((16/eps) ln(4(N+1)/beta)) + 2``; ``[z1, z2] = BoundingSegment(x, t, eps/2)``.
    2. ``mu = (z1+z2)/2``, ``h = (z2-z1)/2``; clip every x to [z1, z2].
    3. ``y = mu + (sum(clip(x) - mu) + noise) / n_public`` with the Gaussian mechanism
       (:func:`~dpclust_core.mechanisms.gaussian_mechanism`, discrete and floating-point safe) for L2
       sensitivity ``2h`` (covers replace; add/remove needs only h) at (eps/2, delta).

    Parameters
    ----------
    x : array_like, 1-D
    epsilon, delta : float
    low, high, resolution : float
        Public domain and grid step of the interior points.
    n_public : float
        The **public** normaliser n (required, >= 1): dividing by the true ``len(x)`` would release a function of the
        private size. Pass a size that is public by design (inside the k-tuple algorithms every cluster holds
        one point of each of the public number of tuples) or a noisy count released earlier.
    beta : float
        Failure probability used to size the bounding segment (utility only).
    rng, ledger, name
        As in :func:`private_interior_point`.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> y = private_average_1d(np.full(5000, 0.25), 1.0, 1e-6, -1, 1, 1e-3, n_public=5000, rng=0, ledger=led)
    >>> abs(y - 0.25) < 0.01, led.total()
    (True, (1.0, 1e-06))
    """
    low, high, xi, n_grid = _grid(low, high, resolution)
    n_pub = check_n_public(n_public)
    check_ledger(ledger)
    x = _check_1d(x)
    t = bounding_segment_t(epsilon, n_grid, beta)
    return _average_1d(x, epsilon, delta, low, high, xi, n_grid, n_pub, t, check_rng(rng), ledger, name)


def _average_1d(x, eps, dl, low, high, xi, n_grid, n_pub, t, rng, ledger, name):
    with _group(ledger, name):
        z1, z2 = _bounding_segment(x, t, eps / 2, low, high, xi, n_grid, rng, ledger, name + " segment")
        mu, h = (z1 + z2) / 2.0, (z2 - z1) / 2.0
        s = float(np.sum(np.clip(x, z1, z2) - mu))
        noisy = gaussian_mechanism(s, 2 * h, eps / 2, dl, rng, l0_sensitivity=1, ledger=ledger,
                                   name=name + " Gaussian sum")
    return float(_snap(np.float64(mu + noisy / n_pub), _grid_step(high - low)))  # post-processing, on a grid


# =====================================================================================================
# d-dimensional private average (Prop. 2.2.6 / A.1.3, and the random-rotation variant of §4.3.2)
# =====================================================================================================
@validate_params(d=Int(1, 4096), rng=Rng())
def random_rotation(d: int, rng: RNGLike = None) -> np.ndarray:
    """A Haar-random orthogonal d x d matrix (QR of a Gaussian matrix with the sign fix). Public randomness.

    Examples
    --------
    >>> import numpy as np
    >>> U = random_rotation(3, rng=0)
    >>> bool(np.allclose(U @ U.T, np.eye(3)))
    True
    """
    q, r = np.linalg.qr(rng.normal(size=(d, d)))  # not privacy noise: a data-independent random rotation
    return q * np.sign(np.diag(r))[None, :]


def _project_to_ball(X, center, radius):
    Z = X - center[None, :]
    nrm = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    scale = np.minimum(1.0, radius / np.maximum(nrm, 1e-300))
    return Z * scale[:, None]


def private_average(X: ArrayLike, epsilon: float, delta: float, radius: float, center: ArrayLike | None = None, *,
                    resolution: float | None = None, rotate: bool = True, n_public: float, beta: float = 0.05,
                    composition: Literal["auto", "basic", "advanced"] = "auto", rng: RNGLike = None,
                    ledger: PrivacyLedger | None = None, name: str = "PrivAvg") -> np.ndarray:
    """d-dimensional private average on the public ball ``B(center, radius)`` — (epsilon, delta)-DP under
    add/remove (and replace) of one point. Points outside the ball are projected onto it.

    ``rotate=False`` — the paper's coordinate-wise average (Prop. 2.2.6 / A.1.3, no JL): PrivAvg1D on each
    coordinate over ``[c_j - radius, c_j + radius]`` at (eps_c, delta_c), composed over the d coordinates by
    basic (eps/d, delta/d) or advanced composition (delta' = delta/2, delta_c = delta/(2d)), whichever gives
    the larger eps_c (``composition="auto"``). The paper states advanced composition; basic is better whenever
    d < 8 ln(2/delta).

    ``rotate=True`` — the [NSV16] variant (§2.2.6, §4.3.2): rotate by a public Haar-random orthogonal U, run
    BoundingSegment on each rotated coordinate (total budget eps/2, same composition rule), clip the rotated
    points to the resulting box, add ONE isotropic Gaussian to the clipped sum with L2 sensitivity = the box
    diagonal at (eps/2, remaining delta), divide by n_public and rotate back. The paper describes this variant
    only in words ("uses the JL transform ... saves a factor √d"); this is one concrete realisation.

    Parameters
    ----------
    X : array_like, shape (n, d)
        May have zero rows.
    epsilon, delta : float
    radius : float
        Public radius Λ of the domain ball.
    center : array_like of shape (d,), optional
        Public centre of the ball (default the origin).
    resolution : float, optional
        Grid step ξ = r_min of the interior points (default ``radius * 1e-4``).
    rotate : bool
        Use the random rotation (default).
    n_public : float
        The **public** normaliser (required, >= 1): dividing by the true ``len(X)`` would release a function of the
        private size. Pass a size that is public by design or a noisy count released earlier.
    beta : float
        Failure probability used to size the bounding segments (utility only, not privacy).
    composition : {"auto", "basic", "advanced"}
        How the per-coordinate releases compose.
    rng, ledger, name
        As in :func:`private_interior_point`.

    Returns
    -------
    ndarray, shape (d,)
        The private average, projected onto the domain ball (post-processing).

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> X = np.random.default_rng(0).normal(1.0, 0.1, size=(5000, 2))
    >>> led = PrivacyLedger()
    >>> y = private_average(X, 1.0, 1e-6, radius=10.0, n_public=5000, rng=0, ledger=led)
    >>> bool(np.linalg.norm(y - 1.0) < 0.05), led.total()
    (True, (1.0, 1e-06))
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    rad = check_radius(radius)
    beta = tuples.check_beta(beta)
    rotate = check_bool(rotate, "rotate")
    check_options(composition, "composition", ("auto", "basic", "advanced"))
    xi = rad * 1e-4 if resolution is None else _positive(resolution, "resolution")
    n_pub = check_n_public(n_public)
    check_ledger(ledger)
    X = check_data(X, "X", allow_empty=True)
    d = X.shape[1]
    c = np.zeros(d) if center is None else _check_center(center, d)
    _grid(-rad, rad, xi)
    rng = check_rng(rng, "rng")
    return _private_average(X, eps, dl, rad, c, xi, rotate, n_pub, beta, composition, rng, ledger, name)


def _vector(v, name, length):
    """A finite real vector of the given length (refusing strings, bools, complex numbers, NaN)."""
    arr = check_data(v, name, ndim=1)
    if arr.shape != (length,):
        raise ValueError(f"{name} must be a vector of length {length}, got shape {arr.shape}")
    return arr


def _check_center(center, d, name="center"):
    return _vector(center, name, d)


def _private_average(X, eps, dl, rad, c, xi, rotate, n_pub, beta, composition, rng, ledger, name):
    d = X.shape[1]
    Z = _project_to_ball(X, c, rad)  # centred, inside B(0, rad)
    g_low, g_high, xi, n_grid = _grid(-rad, rad, xi)
    if not rotate:
        eps_c, dl_c, how = _split_composition(eps, dl, d, composition)
        t = bounding_segment_t(eps_c, n_grid, beta / d)
        with _composed(ledger, how, name, dl / 2):
            y = np.array([_average_1d(Z[:, j], eps_c, dl_c, g_low, g_high, xi, n_grid, n_pub, t, rng, ledger,
                                      f"{name}: coord {j}") for j in range(d)])
        # post-processing: stay in the domain, on the public grid of its diameter
        return _snap(c + _project_to_ball(y[None, :], np.zeros(d), rad)[0], _grid_step(2 * rad))
    U = random_rotation(d, rng)
    W = Z @ U.T
    # the pure segment stage may borrow delta/2 (as delta') for advanced composition
    eps_c, _, how = _split_composition(eps / 2, dl / 2, d, composition) if d > 1 else (eps / 2, 0.0, "basic")
    dl_seg = dl / 2 if how == "advanced" else 0.0
    t = bounding_segment_t(2 * eps_c, n_grid, beta / d)  # each segment gets 2*eps_c/2 per IP pair, as in PrivAvg1D
    lo = np.empty(d)
    hi = np.empty(d)
    with _composed(ledger, how, f"{name}: bounding segments of the rotated coordinates", dl / 2):
        for j in range(d):  # a loop over the d coordinates
            lo[j], hi[j] = _bounding_segment(W[:, j], t, eps_c, g_low, g_high, xi, n_grid, rng, ledger,
                                             f"{name}: rotated coord {j} segment")
    mid = (lo + hi) / 2
    Wc = np.clip(W, lo, hi) - mid[None, :]
    # covers replace (add/remove needs only half); rounded up onto the public grid of the domain's diameter
    step = _grid_step(2 * rad)
    sens = math.ceil(float(np.linalg.norm(hi - lo)) / step) * step
    noisy = gaussian_mechanism(Wc.sum(axis=0), sens, eps / 2, dl - dl_seg, rng, l0_sensitivity=d, ledger=ledger,
                               name=f"{name}: Gaussian on the clipped rotated sum")
    y = mid + noisy / n_pub
    # post-processing: stay in the domain, on the public grid of its diameter
    return _snap(c + _project_to_ball((U.T @ y)[None, :], np.zeros(d), rad)[0], step)


# =====================================================================================================
# k-tuple clustering: partitions and the niceness statistic (§1.2, Alg. 4.1)
# =====================================================================================================
def tuple_separation(X: ArrayLike) -> np.ndarray:
    """``D_i(X) = min_{j != i} ||x_i - x_j||`` for one tuple X of shape (k, d) (inf when k = 1).

    Examples
    --------
    >>> tuple_separation([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]]).tolist()
    [1.0, 4.242640687119285, 1.0]
    """
    X = check_data(X, "X")
    return tuples.separation(X)


def partitioned_by(T: ArrayLike, centers: ArrayLike, radii: ArrayLike) -> np.ndarray:
    """Whether each tuple of ``T`` (n, k, d) is partitioned by the balls ``B(centers[i], radii[i])``:
    exactly one of its points in every (closed) ball (§1.2). Returns a bool array of shape (n,).

    With Γ-far balls (Γ > 2) the balls are disjoint, so "one point per ball" for all k balls is the whole test.
    Each tuple's verdict depends on that tuple only, which is what gives q_X its sensitivity 1.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[[0.0, 0.0], [10.0, 0.0]], [[0.0, 0.0], [0.5, 0.0]]])
    >>> partitioned_by(T, [[0.0, 0.0], [10.0, 0.0]], [1.0, 1.0]).tolist()
    [True, False]
    """
    T = tuples.check_tuples(T)
    C = check_data(centers, "centers", n_features=T.shape[2])
    r = _vector(radii, "radii", C.shape[0])
    if np.any(r < 0):
        raise ValueError("radii must be non-negative")
    # squared distances (n, k_points, k_balls) without an (n, k, k, d) intermediate
    d2 = (T * T).sum(axis=2)[:, :, None] - 2.0 * np.einsum("npd,bd->npb", T, C) + (C * C).sum(axis=1)[None, None, :]
    inside = np.maximum(d2, 0.0) <= (r * r)[None, None, :] * (1 + 1e-12)
    return np.all(inside.sum(axis=1) == 1, axis=1)


def close_tuple_counts(T: ArrayLike, candidates: ArrayLike, gamma: float) -> tuple[np.ndarray, np.ndarray]:
    """The statistic of TestCloseTuples (Alg. 4.1 step (b)): for every candidate tuple X, ``q_X`` = the number
    of tuples of ``T`` partitioned by ``B^X = {B(x_i, D_i(X)/gamma)}``. Also returns ``valid_X = min_i D_i(X) > 0``
    (a tuple with duplicate points can never be selected).

    Sensitivity: replacing one tuple of T changes every q_X by at most 1.

    Parameters
    ----------
    T : array_like, shape (n, k, d)
    candidates : array_like, shape (c, k, d) or (k, d)
    gamma : float
        Γ > 0, the far-ness of the balls.

    Returns
    -------
    q : ndarray of int, shape (n_candidates,)
    valid : ndarray of bool, shape (n_candidates,)

    Examples
    --------
    >>> import numpy as np
    >>> T = np.array([[[0.0, 0.0], [10.0, 0.0]], [[0.1, 0.0], [10.0, 0.1]], [[0.0, 0.0], [0.5, 0.0]]])
    >>> q, valid = close_tuple_counts(T, T[0], 10.0)
    >>> q.tolist(), valid.tolist()
    ([2], [True])
    """
    gamma = _positive(gamma, "gamma")
    T = tuples.check_tuples(T)
    shape = np.shape(candidates) if not isinstance(candidates, (str, bytes)) else ()
    if len(shape) == 2:
        Cand = check_data(candidates, "candidates")[None]
    else:
        Cand = tuples.check_tuples(candidates, "candidates")
    if Cand.shape[1:] != T.shape[1:]:
        raise ValueError(f"candidates must be tuples of shape {T.shape[1:]}, got {Cand.shape[1:]}")
    return _close_tuple_counts(T, Cand, gamma)


def _close_tuple_counts(T, Cand, gamma):
    n, k, _ = T.shape
    D = np.stack([tuples.separation(X) for X in Cand]) if k > 1 else np.full((Cand.shape[0], 1), np.inf)
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
# GoodCenters: the private niceness test (Alg. 4.2)
# =====================================================================================================
@validate_params(n=Int(1, MAX_TUPLES), epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta)
def good_centers_params(n: int, epsilon: float, delta: float, beta: float) -> dict:
    """Public parameters of GoodCenters(T, epsilon, delta, beta) for n tuples (Alg. 4.2).

    * ``m`` = smallest integer >= 1 with ``m >= ln(2/(beta delta)) / eps2(m)``, where
      ``eps2(m) = ln(1 + (n/m)(e^{epsilon/2} - 1))`` is the budget the sampled pass-sum may use so that sampling
      m of n (Balle, Barthe & Gaboardi 2018, without replacement) gives epsilon/2;
    * ``eps1 = (epsilon/2)/m`` (each of the m noisy counts);
    * ``ell = ceil((1/eps1) ln(2 m^2/(beta delta)))`` — the near-partition slack that Success certifies.

    The paper's definitions of m and ell were lost with its formulas; these are reconstructions with the same
    structure. ``m·eps2(m)`` increases with m, so m is found by bisection (O(log n), whatever epsilon).
    Depends on public quantities only.

    Returns
    -------
    dict with keys ``m``, ``eps1``, ``eps2``, ``ell``.

    Examples
    --------
    >>> p = good_centers_params(1000, 0.5, 1e-6 / (2 * (1 + 2.718281828459045)), 0.05)
    >>> p["m"], p["ell"]
    (5, 455)
    """
    return _good_centers_params(n, epsilon, delta, beta)


def _log1p_a_expm1(a, x):
    """``ln(1 + a (e^x - 1))`` for a >= 1, x >= 0, also where e^x overflows (then x + ln(a + (1 - a) e^-x))."""
    if x < 700.0:
        return math.log1p(a * math.expm1(x))
    return x + math.log(a + (1.0 - a) * math.exp(-x))


def _good_centers_params(n, eps, dl, beta):
    need = math.log(2 / (beta * dl))

    def ok(m):
        return m * _log1p_a_expm1(n / m, eps / 2) >= need

    if not ok(n):
        raise ValueError(f"n_tuples={n} is too small for GoodCenters at epsilon={eps}, delta={dl}, beta={beta} "
                         f"(the sampled pass-sum cannot reach its threshold)")
    lo, hi = 0, n  # ok(hi) holds; find the smallest m with ok(m)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    m = hi
    eps2 = _log1p_a_expm1(n / m, eps / 2)
    eps1 = (eps / 2) / m
    ell = math.log(2 * m * m / (beta * dl)) / eps1 if eps1 > 0 else math.inf
    if not ell < 2.0**62:
        raise ValueError(f"epsilon={eps} is too small for GoodCenters: its slack ell would exceed 2^62 tuples")
    return {"m": m, "eps1": eps1, "eps2": eps2, "ell": int(math.ceil(ell))}


def _good_centers_run(T, eps, dl, beta, gamma, prm, rng, ledger, name):
    """GoodCenters on checked input: returns ``(status, selected tuple or None)``; the noisy releases are
    recorded by the mechanisms (q̂: eps/2; ŝ: eps2, charged eps/2 by the subsampling rule)."""
    n = T.shape[0]
    m = prm["m"]
    idx = rng.choice(n, size=m, replace=False)
    q, valid = _close_tuple_counts(T, T[idx], gamma)
    status, first = _test_close_tuples(q[None], valid[None], n, m, eps, prm["eps2"], beta, rng, ledger, name)
    ok = bool(status[0]) and bool(first[0] >= 0)
    return ok, (T[idx[first[0]]].copy() if ok else None)


def _test_close_tuples(q, valid, n, m, eps, eps2, beta, rng, ledger, name):
    """TestCloseTuples steps (c)-(d) and the status, vectorised over runs: ``q``/``valid`` of shape (runs, m).

    ``q̂ = q + Lap(m/(eps/2))`` (the m counts have sensitivity 1 each: L1 sensitivity m); ``pass_X = [q̂_X >=
    n - ln(2m/beta)/eps1]``; ``ŝ = Σ pass_X + Lap(1/eps2)``, a sum over a uniform sample of m of the n tuples
    (amplification by subsampling gives eps/2). Returns (status (runs,), first passing candidate or -1)."""
    eps1 = (eps / 2) / m
    q_hat = laplace_mechanism(q.astype(float), float(m), eps / 2, rng, l0_sensitivity=m, ledger=ledger,
                              name=f"{name}: q̂_X, {m} Laplace counts")
    passed = (q_hat >= n - math.log(2 * m / beta) / eps1) & valid
    s = passed.sum(axis=1).astype(float)
    ctx = _nothing() if ledger is None else ledger.subsampled(
        f"{name}: pass-sum over a sample of {m} of {n} tuples (amplified by subsampling)", m, n)
    with ctx:
        s_hat = laplace_mechanism(s, 1.0, eps2, rng, l0_sensitivity=1, ledger=ledger, name=f"{name}: ŝ pass-sum")
    status = s_hat >= m - math.log(2 / beta) / eps2
    first = np.where(passed.any(axis=1), np.argmax(passed, axis=1), -1)
    return status, first


def _check_gamma_far(gamma, name="gamma"):
    gamma = _positive(gamma, "gamma")
    if gamma <= 2:
        raise ValueError(f"gamma must be > 2 (the balls must be disjoint), got {gamma}")
    return gamma


@validate_params(epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta, gamma=_check_gamma_far, ledger=Ledger())
def good_centers(T: ArrayLike, epsilon: float, delta: float, beta: float, gamma: float, rng: RNGLike = None, *,
                 ledger: PrivacyLedger | None = None, name: str = "GoodCenters") -> tuple[bool, np.ndarray | None]:
    """GoodCenters (paper Alg. 4.2) — the private niceness test. The status is epsilon-DP (pure) w.r.t.
    replacing one tuple of T (n public).

    1. ``(m, eps1, eps2, ell) = good_centers_params(n, epsilon, delta, beta)``;
    2. ``T'`` = m tuples sampled from T without replacement (random order);
    3. TestCloseTuples (Alg. 4.1): ``q_X = #{Y in T : Y partitioned by B^X}``, ``q̂_X = q_X + Lap(1/eps1)``,
       ``pass_X = [q̂_X >= n - ln(2m/beta)/eps1]``, ``s = Σ pass_X``, ``ŝ = s + Lap(1/eps2)``, Success iff
       ``ŝ >= m - ln(2/beta)/eps2``. The thresholds are reconstructions (the paper's were lost).

    Ledger (written by the mechanisms): "q̂ (m Laplace counts)" costs epsilon/2; "ŝ" costs eps2 on the
    sample, charged epsilon/2 by the subsampling rule (:meth:`~dpclust_core.accounting.PrivacyLedger.subsampled`).

    Parameters
    ----------
    T : array_like, shape (n, k, d)
    epsilon, delta, beta : float
    gamma : float
        Γ > 2: the balls ``B(x_i, D_i(X)/Γ)`` are then disjoint.
    rng, ledger, name
        As in :func:`private_interior_point`.

    Returns
    -------
    status : bool
        Private.
    selected : ndarray (k, d) or None
        **NOT private** — the first passing tuple X* of T' (its balls are B^{X*}). Only for use inside the
        wrapper algorithms (Alg. 4.3, 4.4); never release it. None on Failure or when no candidate passed.

    Examples
    --------
    >>> import numpy as np
    >>> T = np.tile([[0.0, 0.0], [20.0, 0.0]], (300, 1, 1)) + np.random.default_rng(0).normal(0, 0.01, (300, 2, 2))
    >>> ok, X = good_centers(T, 1.0, 1e-6, 0.05, 10.0, rng=1)
    >>> ok, X.shape
    (True, (2, 2))
    """
    prm = good_centers_params(tuples.tuple_shape(T)[0], epsilon, delta, beta)
    T = tuples.check_tuples(T)
    return _good_centers_run(T, epsilon, delta, beta, gamma, prm, check_rng(rng), ledger, name)


@validate_params(epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta, gamma=_check_gamma_far)
def good_centers_status_samples(T: ArrayLike, epsilon: float, delta: float, beta: float, gamma: float, size: int,
                                rng: RNGLike = None) -> np.ndarray:
    """``size`` independent GoodCenters status bits on T in one vectorised call (for audits and figures).

    The same code path as :func:`good_centers` (the same mechanisms and thresholds), with q_X precomputed for
    every tuple of T as a candidate (O(n^2 k^2 d), so keep n moderate). Each bit is one epsilon-DP release;
    nothing is recorded (this is a tool for audits). Returns a float array of 0/1 of shape (size,).

    Examples
    --------
    >>> import numpy as np
    >>> T = np.tile([[0.0, 0.0], [20.0, 0.0]], (300, 1, 1))
    >>> float(good_centers_status_samples(T, 1.0, 1e-6, 0.05, 10.0, 200, rng=0).mean()) > 0.9
    True
    """
    n = tuples.tuple_shape(T)[0]
    size = check_int(size, "size", 1, max(1, MAX_ALLOCATION // max(n, 1)))
    prm = good_centers_params(n, epsilon, delta, beta)
    T = tuples.check_tuples(T)
    rng = check_rng(rng, "rng")
    q_all, valid_all = _close_tuple_counts(T, T, gamma)
    idx = np.argpartition(rng.random((size, n)), prm["m"] - 1, axis=1)[:, : prm["m"]]
    status, _ = _test_close_tuples(q_all[idx], valid_all[idx], n, prm["m"], epsilon, prm["eps2"], beta, rng,
                                   None, "GoodCenters")
    return status.astype(float)


# =====================================================================================================
# PrivatekAverages (Alg. 4.3) and PrivatekNoisyCenters (Alg. 4.4)
# =====================================================================================================
@validate_params(n=Int(1, MAX_TUPLES), n_clusters=Int(1, MAX_ALLOCATION), epsilon=Epsilon(), delta=Delta(),
                 beta=tuples.check_beta)
def private_kaverages_params(n: int, n_clusters: int, epsilon: float, delta: float, beta: float = 0.05) -> dict:
    """Public parameters of PrivatekAverages (Alg. 4.3): GoodCenters at (eps/2, delta_s, beta/2) with
    ``delta_s = delta/(2(1+e^eps))``; its (m, ell); the group size ``g = 2(ell+1)k``; the per-cluster budget
    ``eps_hat = (eps/2)/g`` and ``delta_hat = (delta/2)/(g e^{(g-1) eps_hat})`` — exactly what group privacy
    over g records turns into (eps/2, delta/2); and ``min_n = 2 ell + 2``.

    Examples
    --------
    >>> p = private_kaverages_params(10**6, 2, 4.0, 1e-6)
    >>> p["ell"], p["g"], round(p["eps_hat"], 6)
    (49, 200, 0.01)
    """
    return _kaverages_params(n, n_clusters, epsilon, delta, beta)


class _EpsilonTooLargeError(ValueError):
    """An epsilon too large for k-tuple clustering (never taken for "this number of tuples is too small")."""


def _check_delta_s(dl_s, eps, dl):
    """The wrapper lemma charges (1 + e^eps) delta_s: at a huge epsilon nothing of delta is left for delta_s."""
    if dl_s < 1e-300:
        raise _EpsilonTooLargeError(f"epsilon={eps!r} is too large for k-tuple clustering at delta={dl!r}: the soundness term "
                         f"(1 + e^epsilon) delta_s leaves delta_s = {dl_s:.3g} (use a smaller epsilon)")
    return dl_s


def _kaverages_params(n, k, eps, dl, beta):
    dl_s = _check_delta_s(dl / (2 * (1 + math.exp(min(eps, 700.0)))), eps, dl)
    prm = _good_centers_params(n, eps / 2, dl_s, beta / 2)
    g = 2 * (prm["ell"] + 1) * k
    eps_hat = (eps / 2) / g
    x = (g - 1) * eps_hat  # delta_hat = (delta/2) / (g e^x); 0.0 where e^x overflows (never overstated)
    prm.update(delta_s=dl_s, g=g, eps_hat=eps_hat, delta_hat=(dl / 2) / (g * math.exp(x)) if x < 700.0 else 0.0,
               min_n=2 * prm["ell"] + 2)
    return prm


def _noisy_centers_gc_params(n, eps, dl, beta, f):
    dl_s = _check_delta_s(f[0] * dl / (1 + math.exp(min(eps, 700.0))), eps, dl)
    prm = _good_centers_params(n, eps / 2, dl_s, beta / 2)
    prm.update(delta_s=float(dl_s), min_n=2 * prm["ell"] + 2)
    return prm


class _KTupleBase(DPEstimator):
    """Shared plumbing of the k-tuple algorithms: they are fitted on a tuple set ``T`` of shape
    (n_tuples, k, d), whose shape is public (the number of tuples n is public, neighbours replace a tuple).

    Every public precondition (budget split, Γ, ``n >= 2 ell + 2``, ...) is checked from the shape alone,
    before any value of ``T`` is read.
    """

    _x_name = "T"
    _fit_ndim = 3
    #: The centres are mechanism releases or post-processing of them (see each algorithm and DPEstimator).
    _release_grids: dict = {}

    def _validate_data(self, T, reset=True):
        T = check_data(T, "T", ndim=3)
        if reset:
            self.n_features_in_ = int(T.shape[2])
        return T

    def fit(self, T: ArrayLike, y: ArrayLike | None = None) -> DPEstimator:
        """Run the algorithm on the tuple set ``T`` (array (n_tuples, k, d)); ``y`` is ignored. Returns self.

        Sets ``status_`` (True = Success), ``cluster_centers_`` (k x d, canonical order; None on Failure)
        and ``ledger_``. Preconditions on public parameters are checked before the data is read."""
        p = self._validate_params()
        n, _, d = tuples.tuple_shape(T, p.n_clusters)
        with self._budget_context(p):
            self._public_params(p, n, d)
        return super().fit(T, y)

    def _fit(self, T, p, ledger, rng):
        prm = self._public_params(p, T.shape[0], T.shape[2])
        C, status = self._run(T, p, prm, ledger, rng)
        self.status_ = bool(status)
        self.cluster_centers_ = C

    def cluster(self, T: ArrayLike) -> tuple[np.ndarray | None, bool]:
        """Run on ``T`` (n_tuples, k, d): ``fit(T)``, then return ``(cluster_centers_ or None, status_)``."""
        self.fit(T)
        return self.cluster_centers_, self.status_

    def params(self, n_tuples: int, n_features: int | None = None) -> dict:
        """The public parameters for ``n_tuples`` tuples (GoodCenters' m, eps1, eps2, ell, min_n, ...)."""
        p = self._validate_params()
        n = check_int(n_tuples, "n_tuples", 1, MAX_TUPLES)
        d = None if n_features is None else check_int(n_features, "n_features", 1)
        return self._public_params(p, n, d, enforce=False)

    def check_params(self, n_tuples: int, n_features: int) -> dict:
        """Every public precondition for ``n_tuples`` tuples in R^``n_features`` (raises ValueError); no data is
        read. Returns the public parameters. Called by ``fit`` before the data, and by the wrappers (k-means,
        Gaussian mixtures) before they touch theirs."""
        p = self._validate_params()
        n = check_int(n_tuples, "n_tuples", 1, MAX_TUPLES)
        d = check_int(n_features, "n_features", 1)
        return self._public_params(p, n, d)

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Index of the nearest released centre for each row of X (ties to the smallest index)."""
        self._check_fitted()
        if self.cluster_centers_ is None:
            raise ValueError("no centres: the k-tuple test failed (status_ is False), the output is ⊥")
        X = check_data(X, n_features=self.n_features_in_)
        return _kernels.assign(X, self.cluster_centers_)


class PrivatekAverages(_KTupleBase):
    """PrivatekAverages (paper Alg. 4.3) — (epsilon, delta)-DP k-tuple clustering that privately averages each
    identified cluster. "Better in theory".

    0. public check ``n >= 2 ell + 2`` (ell of GoodCenters at (eps/2, delta_s, beta/2)); else ValueError;
    1. ``(status, B) = GoodCenters(T, eps/2, delta_s = delta/(2(1+e^eps)), beta/2, gamma)``;
    2. Failure -> output None (⊥);
    3. ``P_i`` = points of P(T) whose nearest centre of B is c_i (ties to the smallest index);
    4. group size ``g = 2(ell+1)k``: neighbouring tuple sets move at most g points between the P_i;
    5. ``â_i = PrivAvg(P_i; B(center, radius), r_min, eps_hat = (eps/2)/g, delta_hat, n_public = n)``
       (:func:`private_average`, with or without rotation);
    6. output {â_i} in canonical (lexicographic) order.

    Privacy: the status costs eps/2 (pure); the k averages run on disjoint clusters (parallel composition)
    and group privacy over g points turns (eps_hat, delta_hat) into (eps/2, delta/2); the wrapper lemma adds
    (1+e^eps) delta_s = delta/2. The ledger shows exactly this structure and totals (epsilon, delta).

    Parameters
    ----------
    n_clusters : int
        k, the size of every tuple.
    epsilon, delta : float
        The budget, epsilon > 0 and 0 < delta < 1.
    radius : float
        Public Λ: tuple points are assumed in ``B(center, radius)``; points outside are projected onto it.
    center : array_like of shape (d,), optional
        Public centre of that ball (default the origin).
    r_min : float, optional
        Public grid step ξ of the interior points (default ``radius * 1e-4``).
    beta : float, default 0.05
        Failure probability (utility), in [1e-30, 1).
    gamma : float, default 10
        Far-ness Γ of the test's balls: the privacy proof needs every point of a ball to be nearest to its own
        centre for both neighbouring selections, which holds for Γ > 4 + 2√5 ≈ 8.47 (the paper's constant is
        not recoverable). Must be >= 9.
    rotate : bool, default True
        Use the random-rotation private average (§4.3.2) instead of the coordinate-wise one.
    composition : {"auto", "basic", "advanced"}, default "auto"
        How the per-coordinate releases inside each private average compose.
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger; a fit it cannot afford raises before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d) or None
        The private centres (None when the status is Failure).
    status_ : bool
    ledger_ : PrivacyLedger
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> T = np.array([[0.0, 0.0], [20.0, 0.0]]) + rng.normal(0, 0.3, size=(20_000, 2, 2))
    >>> est = PrivatekAverages(2, 4.0, 1e-6, radius=50.0, r_min=0.01, random_state=0).fit(T)
    >>> est.status_, tuple(round(v, 9) for v in est.ledger_.total())
    (True, (4.0, 1e-06))
    """

    #: The centres (private averages, post-processed) on the grid of the public radius (see DPEstimator).
    _release_grids = {"cluster_centers_": lambda est: est.radius}
    _parameters = dict(n_clusters=Int(1, MAX_K), epsilon=Epsilon(), delta=Delta(), radius=Radius(),
                       center=ArrayOrNone(), r_min=NoneOr(Real(0.0, low_open=True)),
                       beta=Real(MIN_BETA, 1.0, high_open=True), gamma=Real(9.0), rotate=Bool(),
                       composition=Options("auto", "basic", "advanced"), random_state=RandomState(),
                       ledger=Ledger())

    def __init__(self, n_clusters: int, epsilon: float, delta: float, *, radius: float,
                 center: ArrayLike | None = None, r_min: float | None = None, beta: float = 0.05, gamma: float = 10.0,
                 rotate: bool = True, composition: Literal["auto", "basic", "advanced"] = "auto",
                 random_state: RNGLike = None, ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.center = center
        self.r_min = r_min
        self.beta = beta
        self.gamma = gamma
        self.rotate = rotate
        self.composition = composition
        self.random_state = random_state
        self.ledger = ledger

    def _public_params(self, p, n, d, enforce=True):
        prm = _kaverages_params(n, p.n_clusters, p.epsilon, p.delta, p.beta)
        xi = p.radius * 1e-4 if p.r_min is None else p.r_min
        _grid(-p.radius, p.radius, xi)
        if d is not None:
            prm["center"] = np.zeros(d) if p.center is None else _check_center(p.center, d)
        if enforce and n < prm["min_n"]:
            raise ValueError(f"n_tuples={n} is too small: PrivatekAverages needs n >= 2*ell+2 = {prm['min_n']} "
                             f"at epsilon={p.epsilon}, delta={p.delta}, beta={p.beta}")
        prm.update(gamma=p.gamma, radius=p.radius, r_min=xi)
        return prm

    def _run(self, T, p, prm, ledger, rng):
        """The algorithm on checked tuples; records in ``ledger``; returns ``(centers or None, status)``."""
        n, k, d = T.shape
        eps, dl = p.epsilon, p.delta
        status, X = _good_centers_run(T, eps / 2, prm["delta_s"], p.beta / 2, prm["gamma"], prm, rng, ledger,
                                      "GoodCenters")
        _analysis_term(ledger, "wrapper lemma: soundness term (1+e^ε)·δ_s", 0.0,
                       (1 + math.exp(min(eps, 700.0))) * prm["delta_s"])  # as delta_s is computed
        if not status:
            _analysis_term(ledger, "k private averages: reserved (not run, the output is ⊥)", eps / 2, dl / 2)
            return None, False
        X = canonical_order(X)
        P = T.reshape(-1, d)
        lab = _kernels.assign(P, X)
        out = np.empty((k, d))
        g = prm["g"]
        ctx = _nothing() if ledger is None else ledger.group_privacy(
            f"k private averages (group privacy over g = {g} moved points)", g)
        with ctx, (_nothing() if ledger is None else ledger.parallel("one average per cluster")) as par:
            for i in range(k):  # a loop over the k clusters (disjoint: parallel composition)
                with (_nothing() if par is None else par.partition()):
                    out[i] = _private_average(P[lab == i], prm["eps_hat"], prm["delta_hat"], prm["radius"],
                                              prm["center"], prm["r_min"], p.rotate, n, p.beta / (2 * k),
                                              p.composition, rng, ledger, f"cluster {i}")
        return canonical_order(out), True


@functools.lru_cache(maxsize=256)
def _sigma_factor(k, eps, delta_gauss, method):
    """σ_i / Δ_i of one Gaussian centre release at (eps/(4k), delta_gauss)."""
    if method == "discrete":  # what gaussian_mechanism uses, including the grid rounding (<= 2^-10 of Δ)
        return discrete_gaussian_sigma(1.0 + 2.0**-GRID_BITS, eps / (4 * k), delta_gauss)
    return gaussian_sigma(1.0, eps / (4 * k), delta_gauss, method=method)


def _laplace_scale(sensitivity, epsilon, l0):
    """The grid step γ and the exact noise scale of ``laplace_mechanism(sensitivity, epsilon, l0_sensitivity=l0)``."""
    gamma, steps = laplace_grid(sensitivity, l0)
    return gamma, float(np.nextafter(steps / epsilon, np.inf)) * gamma


class PrivatekNoisyCenters(_KTupleBase):
    """PrivatekNoisyCenters (paper Alg. 4.4) — (epsilon, delta)-DP k-tuple clustering that selects one input
    tuple and adds Gaussian noise scaled to its own (noisy) separation. "More practical".

    0. public checks ``n >= 2 ell + 2``, ``gamma > 4``;
    1. ``(status, B) = GoodCenters(T, eps/2, delta_s, beta/2, gamma)``, ``delta_s = f_s delta/(1+e^eps)``;
    2. Failure -> None (⊥);
    3. ``c_i`` = the selected tuple's points (canonically ordered first), ``D_i = min_{j!=i} ||c_i - c_j||``;
    4. ``λ̂_i = ln D_i + Lap(b)``, ``b = 4k ln((Γ+2)/(Γ-2))/eps`` (eps/4 in total: the vector of log
       separations has L1 sensitivity ``k ln((Γ+2)/(Γ-2))``, by the ratio bound of far balls, §1.5);
       ``u_i = λ̂_i + M`` with the one-sided margin ``M ≈ b ln(k/(2 f_E delta))`` (each λ̂_i falls more than M
       below λ_i with probability <= f_E delta/k, so the event E fails with probability <= f_E delta; M is
       computed for the exact discrete noise the mechanism adds); ``Δ_i = 2 e^{u_i}/(Γ-2)`` (a bound on
       ``||c_i - c̃_i||`` under E); ``ĉ_i = c_i + N(0, σ_i² I)`` with σ_i the Gaussian noise for L2
       sensitivity Δ_i at (eps/(4k), f_G delta/k), each;
    5. output {ĉ_i} in canonical order.

    The paper's noise scales were lost; these are reconstructions. The δ split ``delta_split = (f_s, f_E,
    f_G)`` (default (1/4, 1/4, 1/2)) makes the ledger total exactly δ (the λ̂ step is pure, E's failure
    probability is an additive δ term, the Gaussians add theirs). If a bound Δ_i overflows a float (only
    for Γ close to 4 at small ε), the output is ⊥ — a function of the private λ̂ only.

    Utility: on (2Γ+2)-far-partitioned input the output is a correct clustering if
    ``max_i ||ĉ_i - c_i|| < min_i D_i/4``; :func:`noisy_centers_min_gamma` gives the Γ this needs w.h.p.
    (thousands at eps = 1). The tuples then must be (2Γ+2)-far: very tight tuples.

    The Gaussian centres are released on a grid about 2^10 times finer than Δ_i (the exact mechanism), which
    needs ``|c_i| / Δ_i`` below about 10^9: translate the tuples so that a public centre of the data is at the
    origin (:class:`PrivateKMeansEasy` centres them on its public box, Gaussian mixtures on ``B(0, Λ)``).

    Parameters
    ----------
    n_clusters : int
        k >= 2 (D_i needs another point).
    epsilon, delta : float
        The budget.
    gamma : float, optional
        Γ > 4 of the test's balls. Default: :func:`noisy_centers_min_gamma` for (k, d, eps, delta, beta).
    beta : float, default 0.05
        Failure probability (utility), in [1e-30, 1).
    delta_split : (float, float, float), default (0.25, 0.25, 0.5)
        Shares of δ for the wrapper lemma, the event E and the Gaussian centres (positive, summing to 1).
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger; a fit it cannot afford raises before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d) or None
        The private centres in canonical order (None when the status is Failure).
    status_ : bool
    ledger_ : PrivacyLedger
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> T = np.array([[0.0, 0.0], [20.0, 0.0]]) + rng.normal(0, 1e-3, size=(400, 2, 2))
    >>> est = PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=1).fit(T)
    >>> est.status_, est.cluster_centers_.shape, tuple(round(v, 9) for v in est.ledger_.total())
    (True, (2, 2), (4.0, 1e-06))
    """

    _budget_params = ("epsilon", "delta", "delta_split")
    _parameters = dict(n_clusters=Int(2, MAX_K), epsilon=Epsilon(), delta=Delta(),
                       gamma=NoneOr(Real(4.0, MAX_GAMMA, low_open=True)),
                       beta=Real(MIN_BETA, 1.0, high_open=True), delta_split=tuples.Shares(3),
                       random_state=RandomState(), ledger=Ledger())

    def __init__(self, n_clusters: int, epsilon: float, delta: float, *, gamma: float | None = None,
                 beta: float = 0.05, delta_split: Sequence[float] = (0.25, 0.25, 0.5), random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.delta = delta
        self.gamma = gamma
        self.beta = beta
        self.delta_split = delta_split
        self.random_state = random_state
        self.ledger = ledger

    def _public_params(self, p, n, d, enforce=True):
        f = p.delta_split
        prm = _noisy_centers_gc_params(n, p.epsilon, p.delta, p.beta, f)
        if p.gamma is not None:
            prm["gamma"] = p.gamma
        elif d is not None:
            prm["gamma"] = _min_gamma(p.n_clusters, d, p.epsilon, p.delta, p.beta, tuple(float(v) for v in f),
                                      "discrete", 0.25)
            if prm["gamma"] > MAX_GAMMA:
                raise ValueError(f"epsilon={p.epsilon} is too small for PrivatekNoisyCenters: the default gamma "
                                 f"would exceed {MAX_GAMMA:g}")
        if enforce and n < prm["min_n"]:
            raise ValueError(f"n_tuples={n} is too small: PrivatekNoisyCenters needs n >= 2*ell+2 = {prm['min_n']} "
                             f"at epsilon={p.epsilon}, delta={p.delta}, beta={p.beta}")
        return prm

    def _run(self, T, p, prm, ledger, rng):
        """The algorithm on checked tuples; records in ``ledger``; returns ``(centers or None, status)``."""
        n, k, d = T.shape
        eps, dl, f = p.epsilon, p.delta, p.delta_split
        gamma = prm["gamma"]
        status, X = _good_centers_run(T, eps / 2, prm["delta_s"], p.beta / 2, gamma, prm, rng, ledger,
                                      "GoodCenters")
        _analysis_term(ledger, "wrapper lemma: soundness term (1+e^ε)·δ_s", 0.0,
                       (1 + math.exp(min(eps, 700.0))) * prm["delta_s"])
        if not status:
            _analysis_term(ledger, "noisy log-separations and Gaussian centres: reserved (not run, output ⊥)",
                           eps / 2, (f[1] + f[2]) * dl)
            return None, False
        C = canonical_order(X)  # canonical BEFORE noise: the output law does not depend on storage order
        D = tuples.separation(C)  # > 0: GoodCenters never selects a tuple with duplicate points
        sens = k * math.log1p(4.0 / (gamma - 2))  # L1 sensitivity of (ln D_i)_i: k ln((Γ+2)/(Γ-2))
        lam_hat = laplace_mechanism(np.log(D), sens, eps / 4, rng, l0_sensitivity=k, ledger=ledger,
                                    name="λ̂ = ln D_i + Lap(b): k log-separations")
        dl_E = f[1] * dl
        grid, b = _laplace_scale(sens, eps / 4, k)
        # one-sided margin for the exact discrete noise on the grid: P(noise + rounding < -M) <= f_E delta / k
        margin = b * math.log(0.5 * (1 + grid / b) * k / dl_E) + grid / 2
        _analysis_term(ledger, "event E fails (one-sided Laplace margin)", 0.0, dl_E)
        with np.errstate(over="ignore"):
            Delta = 2 * np.exp(lam_hat + margin) / (gamma - 2)
        if not np.all(np.isfinite(Delta)) or not np.all(Delta > 0):  # post-processing of the private λ̂
            _analysis_term(ledger, "Gaussian centres: reserved (not run: a bound Δ_i overflowed, output ⊥)",
                           eps / 4, f[2] * dl)
            return None, False
        out = gaussian_mechanism(C, Delta, eps / (4 * k), f[2] * dl / k, rng, l0_sensitivity=d, rows="sequential",
                                 ledger=ledger, name="Gaussian centre (sensitivity Δ_i)")
        return canonical_order(out), True


def noisy_centers_min_gamma(n_clusters: int, n_features: int, epsilon: float, delta: float, beta: float = 0.05, *,
                            delta_split: Sequence[float] = (0.25, 0.25, 0.5),
                            gaussian_method: Literal["discrete", "analytic", "classic"] = "discrete",
                            target: float = 0.25) -> float:
    """Smallest Γ for which PrivatekNoisyCenters' noise bound is below ``target * D_i`` (Alg. 4.4 utility):

    ``σ_i (√d + √(2 ln(4k/β))) <= target * D_i`` with the high-probability bound
    ``σ_i <= (σ/Δ) * 2 D_i e^{b (ln(k/(2 f_E δ)) + ln(4k/β))} / (Γ - 2)``, ``b = 4k ln((Γ+2)/(Γ-2))/ε``
    (``target = 1/4``: the clustering stays correct). Bisection on Γ, in log space (no overflow at any ε).
    Thousands at ε = 1.

    Parameters
    ----------
    n_clusters, n_features : int
        k >= 2 and d.
    epsilon, delta, beta : float
    delta_split : (float, float, float)
        As in :class:`PrivatekNoisyCenters`.
    gaussian_method : {"discrete", "analytic", "classic"}
        The σ/Δ of the Gaussian centres: "discrete" (default) is what the estimator adds
        (:func:`~dpclust_core.mechanisms.discrete_gaussian_sigma`); "analytic" (Balle & Wang) and "classic"
        (sqrt(2 ln(1.25/δ))/ε, needs ε/(4k) < 1) are the continuous references.
    target : float
        The bound as a fraction of D_i, in (0, 1).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        If no Γ below 1e300 meets the target (epsilon far too small).

    Examples
    --------
    >>> 1700 < noisy_centers_min_gamma(2, 2, 1.0, 1e-6) < 1900
    True
    """
    k = check_int(n_clusters, "n_clusters", 2, MAX_ALLOCATION)
    d = check_int(n_features, "n_features", 1)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    beta = tuples.check_beta(beta)
    f = tuples.Shares(3)(delta_split, "delta_split")
    check_options(gaussian_method, "gaussian_method", ("discrete", "analytic", "classic"))
    target = _prob(target, "target")
    if gaussian_method == "classic" and eps / (4 * k) >= 1:
        raise ValueError("gaussian_method='classic' needs epsilon/(4k) < 1")
    return _min_gamma(k, d, eps, dl, beta, tuple(float(v) for v in f), gaussian_method, target)


@functools.lru_cache(maxsize=256)
def _min_gamma(k, d, eps, dl, beta, f, method, target):
    factor = _sigma_factor(k, eps, f[2] * dl / k, method)
    L = math.log(k / (2 * f[1] * dl)) + math.log(4 * k / beta)
    tail = math.sqrt(d) + math.sqrt(2 * math.log(4 * k / beta))
    # the exact discrete Laplace noise is up to 2^-9 above b (grid rounding): count it in the bound (the
    # continuous references keep the exact b)
    inflate = 1.0 + 2.0**-9 if method == "discrete" else 1.0
    log_target = math.log(target)
    const = math.log(factor * 2 * tail)

    def log_ratio(g):
        b = 4 * k * math.log1p(4.0 / (g - 2)) / eps * inflate
        return const + b * L - math.log(g - 2)

    lo, hi = 4.0, 8.0
    while log_ratio(hi) > log_target:
        lo, hi = hi, hi * 2
        if hi > 1e300:
            raise ValueError(f"epsilon={eps} is too small for target={target}: no gamma below 1e300 makes "
                             f"PrivatekNoisyCenters' noise smaller than that fraction of the separation")
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        if log_ratio(mid) > log_target:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return float(hi)


# =====================================================================================================
# k-means on easy instances (§5)
# =====================================================================================================
def min_valid_tuples(min_n_of: Callable[[int], float], *, max_tuples: int = MAX_TUPLES) -> int:
    """Smallest n with ``min_n_of(n) <= n`` (a public computation).

    ``min_n_of`` (= 2 ell(n) + 2) does not increase with n, so ``n - min_n_of(n)`` increases: a doubling
    search then bisection, O(log n) evaluations. ``min_n_of`` may raise ``ValueError`` for an n that is too
    small. Raises ``ValueError`` if no n up to ``max_tuples`` works (a budget far too small).

    Examples
    --------
    >>> min_valid_tuples(lambda n: 1000 - n // 2)
    667
    """
    if not callable(min_n_of):
        raise BadTypeError(f"min_n_of must be a callable n -> minimum number of tuples, got {min_n_of!r}")
    cap = check_int(max_tuples, "max_tuples", 2, MAX_TUPLES)

    def ok(n):
        try:
            return min_n_of(n) <= n
        except _EpsilonTooLargeError:
            raise
        except ValueError:
            return False

    hi = 2
    while not ok(hi):
        if hi >= cap:
            raise EpsilonTooSmallError(f"no number of tuples up to {cap} satisfies n >= 2*ell(n)+2: epsilon (or "
                                       f"delta) is too small for k-tuple clustering")
        hi = min(2 * hi, cap)
    lo = hi // 2 if hi > 2 else 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


@validate_params(n_clusters=Int(2, MAX_ALLOCATION), epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta,
                 delta_split=tuples.Shares(3))
def min_tuples_noisy_centers(n_clusters: int, epsilon: float, delta: float, beta: float = 0.05,
                             delta_split: Sequence[float] = (0.25, 0.25, 0.5)) -> int:
    """Smallest number of tuples PrivatekNoisyCenters accepts (n >= 2 ell(n) + 2).

    Examples
    --------
    >>> min_tuples_noisy_centers(2, 4.0, 1e-6)
    324
    """
    return min_valid_tuples(lambda n: _noisy_centers_gc_params(n, epsilon, delta, beta, delta_split)["min_n"])


@validate_params(n_clusters=Int(1, MAX_ALLOCATION), epsilon=Epsilon(), delta=Delta(), beta=tuples.check_beta)
def min_tuples_kaverages(n_clusters: int, epsilon: float, delta: float, beta: float = 0.05) -> int:
    """Smallest number of tuples PrivatekAverages accepts (n >= 2 ell(n) + 2).

    Examples
    --------
    >>> min_tuples_kaverages(2, 4.0, 1e-6)
    282
    """
    return min_valid_tuples(lambda n: _kaverages_params(n, n_clusters, epsilon, delta, beta)["min_n"])


class PrivateKMeansEasy(CentroidMixin, DPEstimator):
    """k-means on easy (well-separated) instances by reduction to k-tuple clustering (paper §5) —
    (epsilon, delta)-DP under add/remove of one point.

    1. Split X into ``n_tuples`` chunks by independent random labels (sample-and-aggregate: disjoint chunks, so
       no subsampling lemma is needed) and run k-means++ then Lloyd on each chunk: a tuple set T (not private);
    2. ``Ĉ = G(T)`` with G = :class:`PrivatekNoisyCenters` (default) or :class:`PrivatekAverages` at
       (tuple_fraction·ε, tuple_fraction·δ) — one point changes one tuple;
    3. one private Lloyd step: ``S_i`` = points nearest to ĉ_i; noisy sums (Gaussian mechanism, L2
       sensitivity = the half-diagonal of the bounds box, points centred at the box centre) and noisy counts
       (Laplace mechanism, sensitivity 1), ``â_i = noisy sum / max(noisy count, 1)`` clipped to the box. Under
       add/remove one point enters one S_i, so each vector release has the sensitivity of one point.
    4. If G fails (status False), the Lloyd step starts from k centres drawn uniformly in the box
       (data-independent) — the budget is still charged, so ``ledger_`` always totals (epsilon, delta).

    **N is not used.** The number of tuples is a function of public parameters only (k, ε, δ, β): by default
    the smallest number G accepts, plus 10%. Nothing depends on the number of records; with too few records
    per chunk (fewer than about 10k) the tuples degrade, G's test fails and ``status_`` is False.

    Parameters
    ----------
    n_clusters : int
        k.
    epsilon, delta : float
        The budget, ε > 0 and 0 < δ < 1.
    bounds : (low, high), (lows, highs) or array (d, 2)
        Required public box of the data; points outside are clipped onto it.
    n_tuples : int, optional
        Number of chunks = tuples (>= 2). Default: the smallest valid number for G (2 ell + 2), plus 10%.
    tuple_algorithm : {"noisy_centers", "averages"}, default "noisy_centers"
        G: :class:`PrivatekNoisyCenters` (Alg. 4.4) or :class:`PrivatekAverages` (Alg. 4.3).
    tuple_fraction : float in (0, 1), default 0.5
        Share of ε and of δ given to G.
    count_fraction : float in (0, 1), default 0.25
        Share of the Lloyd step's ε given to the noisy counts.
    gamma : float, optional
        Γ of G (see the k-tuple classes; >= 9 for "averages").
    beta : float, default 0.05
        Failure probability of G (utility), in [1e-30, 1).
    kmeans_iter : int, default 20
        Lloyd iterations after the k-means++ seeding on every chunk.
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger; a fit it cannot afford raises before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        The private centres, inside the box.
    status_ : bool
        G's status bit (False: the Lloyd step started from data-independent random centres).
    tuple_centers_ : ndarray (k, d) or None
        G's released centres (private), None on Failure.
    n_tuples_ : int
        The number of tuples used (public).
    ledger_ : PrivacyLedger
    bounds_ : (ndarray, ndarray)
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(4000, 2)) * 0.01 + rng.choice([-5.0, 5.0], size=(4000, 1))
    >>> km = PrivateKMeansEasy(2, 4.0, 1e-6, bounds=(-10, 10), random_state=0).fit(X)
    >>> km.cluster_centers_.shape, tuple(round(v, 9) for v in km.ledger_.total())
    ((2, 2), (4.0, 1e-06))
    """

    _budget_params = ("epsilon", "delta", "tuple_fraction", "count_fraction")
    #: Post-processed releases and the public scale of their grids (see DPEstimator).
    _release_grids = {"cluster_centers_": "box", "tuple_centers_": "box"}
    _parameters = dict(n_clusters=Int(1, MAX_K), epsilon=Epsilon(), delta=Delta(), bounds=BoundsSpec(),
                       n_tuples=NoneOr(Int(2, MAX_TUPLES)), tuple_algorithm=Options("noisy_centers", "averages"),
                       tuple_fraction=Real(0.0, 1.0, low_open=True, high_open=True),
                       count_fraction=Real(0.0, 1.0, low_open=True, high_open=True),
                       gamma=NoneOr(Real(4.0, MAX_GAMMA, low_open=True)),
                       beta=Real(MIN_BETA, 1.0, high_open=True), kmeans_iter=Int(1, 10_000),
                       random_state=RandomState(), ledger=Ledger())

    def __init__(self, n_clusters: int, epsilon: float, delta: float, *, bounds: ArrayLike,
                 n_tuples: int | None = None, tuple_algorithm: Literal["noisy_centers", "averages"] = "noisy_centers",
                 tuple_fraction: float = 0.5, count_fraction: float = 0.25, gamma: float | None = None,
                 beta: float = 0.05, kmeans_iter: int = 20, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
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
        self.kmeans_iter = kmeans_iter
        self.random_state = random_state
        self.ledger = ledger

    def _setup(self, p, d, low, high):
        """G, its checked parameters and public parameters, and the number of tuples (public inputs only)."""
        k = p.n_clusters
        eg, dg = p.epsilon * p.tuple_fraction, p.delta * p.tuple_fraction
        if p.tuple_algorithm == "noisy_centers":
            if k < 2:
                raise ValueError(f"n_clusters must be >= 2 for tuple_algorithm='noisy_centers', got {k}")
            g = PrivatekNoisyCenters(k, eg, dg, gamma=p.gamma, beta=p.beta)
        else:
            if p.gamma is not None and p.gamma < 9:
                raise ValueError(f"gamma must be >= 9 for tuple_algorithm='averages', got {p.gamma}")
            g = PrivatekAverages(k, eg, dg, radius=float(np.linalg.norm(high - low) / 2), center=np.zeros(d),
                                 beta=p.beta, gamma=10.0 if p.gamma is None else p.gamma)
        gp = g._validate_params()
        if p.n_tuples is None:
            n_t = int(math.ceil(1.1 * min_valid_tuples(lambda n: g._public_params(gp, n, None, False)["min_n"])))
        else:
            n_t = p.n_tuples
        prm = g._public_params(gp, n_t, d)
        return g, gp, prm, n_t

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> PrivateKMeansEasy:
        """Fit on X (n_samples, n_features); ``y`` is ignored. Returns self.

        Every public precondition (including G's: Γ, n_tuples >= 2 ell + 2) is checked before any value of X
        is read; a shared ``ledger`` that cannot afford the fit raises before the data are read."""
        p = self._validate_params()
        shape = () if isinstance(X, (str, bytes)) else getattr(X, "shape", None) or np.asarray(X).shape
        if len(shape) == 2 and shape[1] >= 1:
            low, high = check_bounds(p.bounds, shape[1])
            with self._budget_context(p):
                self._setup(p, shape[1], low, high)
        return super().fit(X, y)

    def _predict_space(self, X):
        low, high = self.bounds_
        return np.clip(X, low, high), self.cluster_centers_

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        n, d = X.shape
        k = p.n_clusters
        g, gp, prm, n_t = self._setup(p, d, low, high)
        center = (low + high) / 2
        radius = float(np.linalg.norm(high - low) / 2)
        Z = np.clip(X, low, high)
        Z -= center  # centred at the public box centre: the tuples and G's noise work near the origin
        # 1. disjoint chunks by independent labels, k-means++ and Lloyd on each (not private)
        split = tuples.split_stream(rng)
        T = tuples.chunk_tuples(Z, split.integers(0, n_t, size=n), n_t, k, split, p.kmeans_iter)
        # 2. private k-tuple clustering
        with ledger.group(f"k-tuple clustering ({type(g).__name__}) on {n_t} chunk tuples"):
            C, status = g._run(T, gp, prm, ledger, rng)
        self.status_ = bool(status)
        self.tuple_centers_ = None if C is None else center + C
        if C is None:
            C = (rng.random((k, d)) - 0.5) * (high - low)  # data-independent fallback, uniform in the box
        # 3. one private Lloyd step: one point changes one cluster's count by 1 and its sum by <= radius
        eps_l, dl_l = p.epsilon * (1 - p.tuple_fraction), p.delta * (1 - p.tuple_fraction)
        eps_cnt = eps_l * p.count_fraction
        _, counts, sums = _kernels.assign_stats(Z, C)
        noisy_counts = laplace_mechanism(counts, 1.0, eps_cnt, rng, l0_sensitivity=1, ledger=ledger,
                                         name="Lloyd step: noisy counts")
        noisy_sums = gaussian_mechanism(sums, radius, eps_l - eps_cnt, dl_l, rng, l0_sensitivity=d, ledger=ledger,
                                        name="Lloyd step: noisy sums (Gaussian)")
        centers = center[None, :] + noisy_sums / np.maximum(noisy_counts, 1.0)[:, None]
        self.cluster_centers_ = np.clip(centers, low, high)
        self.n_tuples_ = int(n_t)
