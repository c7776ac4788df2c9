"""Private choice of the number of clusters k from ONE EUGkM synopsis (thesis §4.6.7, Tables 4.3–4.5).

EUGkM's grid depends on N, epsilon and d but not on k, so one noisy histogram serves every candidate k: for each
k, weighted Lloyd runs on the synopsis from ``n_init`` sphere-packing initialisations, the run of least synopsis
cost is kept, and its **RT-validity** (Ray & Turi 1999) is computed on the synopsis. The k with the lowest
validity wins. Everything after the histogram is post-processing, so the whole choice costs epsilon (a share
``n_share`` of it buys the noisy N that sizes the grid, unless ``n_public`` publishes N).

The thesis does not define RT-validity; following Ray & Turi: ``validity = intra / inter`` with ``intra`` the
NICV (here on the synopsis: cell centres weighted by noisy counts, divided by the total noisy count) and
``inter = min_{i<j} ||o_i - o_j||^2``. Lower is better; k = 1 has no inter distance (validity inf). When the
noise makes the noisy total negative, the ranking uses the synopsis cost over ``inter`` (the same order as the
validity whenever the total is positive, and not reversed when it is not).

The thesis compares neither k with N nor the choice with the noise. Two additions, both post-processing of the
released synopsis and the (noisy or published) N: candidates whose clusters would hold too few records for the
noisy cells to show them are dropped (:func:`k_cap`), and a parametric bootstrap re-runs the choice on simulated
re-releases of the synopsis to say how stable it is (``stability_``, ``reliable_``).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (ArrayLike, BadTypeError, Int, Real, RNGLike, Spec, check_data, check_int, read_dask_rows,
                           validate_params)
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator
from ..mechanisms import laplace_grid, laplace_noise
from . import synopsis as engine
from .synopsis import DEFAULT_MAX_CELLS, DEFAULT_REFINE_ITER, DEFAULT_SCREEN_CELLS, MAX_K, GridSynopsis

__all__ = ["synopsis_rt_validity", "k_cap", "choose_k", "ChooseKResult"]

_MAX_CANDIDATES = 1000


def synopsis_rt_validity(synopsis: GridSynopsis, centers: ArrayLike) -> float:
    """RT-validity on a synopsis: synopsis-NICV (noisy-count weighted) over ``min_{i<j} ||o_i - o_j||^2``.

    Parameters
    ----------
    synopsis : GridSynopsis
    centers : array (k, d) in the synopsis's scaled domain

    Returns
    -------
    float

    Examples
    --------
    >>> syn = GridSynopsis([5.0, 0.0, 0.0, 5.0], m=2, d=2, r=1.0, epsilon=1.0)
    >>> synopsis_rt_validity(syn, [[-0.5, -0.5], [0.5, 0.5]])
    0.0
    """
    if not isinstance(synopsis, GridSynopsis):
        raise BadTypeError(f"synopsis must be a GridSynopsis, got {type(synopsis).__name__}")
    C = check_data(centers, "centers", n_features=synopsis.d)
    inter = _kernels.min_pair_sq_distance(C)
    if not inter > 0:
        return float("inf")
    return float(synopsis.nicv(C) / inter)


@dataclass
class ChooseKResult:
    """Result of :func:`choose_k`: the chosen ``k_``, the validity of every candidate searched, the centroids per
    k, and how far the choice can be trusted (``k_max_``, ``dropped_k_``, ``stability_``, ``reliable_``)."""

    k_: int
    scores_: dict
    centers_: dict = field(repr=False)
    scaled_centers_: dict = field(repr=False)
    synopsis_: GridSynopsis = field(repr=False)
    ledger_: PrivacyLedger = field(repr=False)
    n_estimate_: float | None = None
    k_max_: int | None = None
    dropped_k_: tuple = ()
    stability_: float | None = None
    bootstrap_picks_: dict = field(default_factory=dict)
    reliable_: bool | None = None

    def ranking(self):
        """Candidates sorted by validity (best first)."""
        return sorted(self.scores_, key=lambda k: self.scores_[k])


class _KRange(Spec):
    def __call__(self, value, name):
        if isinstance(value, (str, bytes)) or value is None:
            raise BadTypeError(f"{name} must be an iterable of integers >= 1, got {value!r}")
        try:
            it = iter(value)
        except TypeError:
            raise BadTypeError(f"{name} must be an iterable of integers >= 1, got {value!r}") from None
        ks = []
        for v in it:
            ks.append(check_int(v, f"{name} element", 1, MAX_K))
            if len(ks) > _MAX_CANDIDATES:
                raise ValueError(f"{name} has more than {_MAX_CANDIDATES} candidates")
        if not ks:
            raise ValueError(f"{name} must not be empty")
        return sorted(set(ks))


# ============================================================================ what the synopsis can see
def _cell_noise_scale(epsilon_hist: float) -> float:
    """The Laplace scale of every cell of a synopsis released with ``epsilon_hist`` (sensitivity 1 on the
    mechanism's power-of-two grid: at most ``(1 + 2^-10) / epsilon_hist``)."""
    gamma, steps = laplace_grid(1.0, 1)
    return gamma * steps / epsilon_hist


@validate_params(n=Real(0.0), epsilon_hist=Real(0.0, low_open=True), n_cells=Int(1, None),
                 min_snr=Real(0.0, low_open=True))
def k_cap(n: float, epsilon_hist: float, n_cells: int, min_snr: float = 3.0) -> int:
    """The largest k whose clusters a synopsis of ``n_cells`` noisy cells can see (public: N, ε and the grid).

    Every cell of the synopsis carries Laplace noise of scale ``b = 1/epsilon_hist`` (standard deviation
    ``sqrt(2) b``). With k clusters of ``n/k`` records each, the Voronoi region of one centroid covers
    ``M/k`` of the ``M = n_cells`` cells on average, so the noise on that cluster's total has standard deviation
    ``b sqrt(2 M / k)``. Its signal-to-noise ratio is ``(n/k) / (b sqrt(2M/k)) = n ε / sqrt(2 M k)``; asking for at
    least ``min_snr`` gives

    ``k <= (n ε)^2 / (2 min_snr^2 M)``,

    and a centroid needs at least one cell of its own, so also ``k <= M``. The thesis sizes the grid but does not
    compare k with N; this bound is ours. With ``min_snr = 3`` the noise on a cluster's count is at most a third
    of the count.

    Parameters
    ----------
    n : float
        The number of records (published, or a noisy count).
    epsilon_hist : float
        The budget of the histogram.
    n_cells : int
        ``M = m^d``, the number of cells of the grid.
    min_snr : float, default 3
        The smallest signal-to-noise ratio of a cluster's count.

    Returns
    -------
    int
        At least 0, at most ``min(M, MAX_K)``.

    Examples
    --------
    >>> k_cap(1484, 0.95, 3 ** 8)   # 1,484 records in 8-D: about 16 clusters at most
    16
    >>> k_cap(100_000, 0.95, 9500)  # 100,000 records in 2-D: the grid, not the noise, is the limit
    9500
    """
    return _k_cap(n, epsilon_hist, n_cells, min_snr)


def _k_cap(n, eps, M, z):
    cap = min(M, MAX_K)
    if n <= 0.0:
        return 0
    # log of (n eps / s)^2 / (2 z^2 M), s = the cell noise scale at epsilon 1 (no overflow for huge n or eps)
    log_snr_cap = (2.0 * (math.log(n) + math.log(eps) - math.log(_cell_noise_scale(1.0)) - math.log(z))
                   - math.log(2.0 * M))
    if log_snr_cap < math.log(cap):
        cap = int(math.floor(math.exp(log_snr_cap)))
    return max(int(cap), 0)


# ============================================================================ the selection (post-processing)
def _select(syn, ks, inits, p):
    """The EUGkM search of every candidate on ``syn`` from ``inits[k]`` and the k of least ``cost / inter``.

    Returns ``(k_best, scores, key, best centres per k)`` (trusting; draws nothing)."""
    scores, key, best = {}, {}, {}
    total = syn.total()
    for k in ks:  # a loop over candidate k: post-processing of the one synopsis
        # EUGkM's search (screened on the largest cells when the grid is large), then the winner's cost on
        # the whole synopsis; the least synopsis cost wins (robust to a noisy total <= 0)
        cands, _, _, b, _ = engine.search(syn, inits[k], p.r, p.max_iter, p.tol, p.screen_cells, p.refine_iter)
        C = cands[b]
        cost = float(syn._costs(C[None])[0])
        inter = _kernels.min_pair_sq_distance(C)
        best[k] = C
        scores[k] = float(cost / total / inter) if inter > 0 else float("inf")
        key[k] = float(cost / inter) if inter > 0 else float("inf")
    k_best = min(ks, key=lambda k: (key[k], k))
    return k_best, scores, key, best


def _bootstrap_picks(syn, ks, warm, p, rng):
    """The k chosen on ``p.n_boot`` simulated re-releases of the synopsis (a parametric bootstrap).

    Replicate i is ``counts + L_i`` with ``L_i`` fresh Laplace noise of the synopsis's own scale on every cell:
    a function of the released counts and public quantities only, so it spends nothing. Each replicate searches
    every candidate from the released winner for that k (a warm start) and ``max(1, n_init // n_boot)`` fresh
    sphere-packing starts, so the whole bootstrap costs about as many Lloyd runs as the selection itself.
    """
    b = max(_cell_noise_scale(syn.epsilon), 1e-280)  # below that the noise vanishes next to any count anyway
    n_fresh = max(1, p.n_init // p.n_boot)
    picks = np.empty(p.n_boot, dtype=np.int64)
    for i in range(p.n_boot):  # a loop over replicates (each one vectorised over cells and starts)
        counts = syn.counts + laplace_noise(b, syn.n_cells, rng)
        rep = GridSynopsis._trusted(counts, syn.m, syn.d, syn.r, syn.epsilon)
        inits = {k: np.concatenate([warm[k][None],
                                    engine.initial_centroids("sphere_packing", n_fresh, k, syn.d, p.r, None, None, rng)])
                 for k in ks}
        picks[i] = _select(rep, ks, inits, p)[0]
    return picks


def _child_rng(rng):
    """An independent generator for the bootstrap that leaves ``rng``'s stream where it was (a caller who passes
    one Generator to several fits gets the same later draws whatever ``n_boot`` is)."""
    try:
        return rng.spawn(1)[0]
    except (AttributeError, TypeError, ValueError):  # a bit generator without a seed sequence
        return np.random.default_rng(rng.integers(2**63))


class _ChooseK(DPEstimator):
    """The estimator behind :func:`choose_k` (the ledger, the budget check and the validation of DPEstimator)."""

    _accepts_dask = True  # one histogram: a reduction over the rows, computed on the workers
    #: Post-processed releases (one per candidate k) and the public scale of their grids (see DPEstimator).
    _release_grids = {"scores_": 1.0, "centers_": "box", "scaled_centers_": lambda est: 2.0 * est.r,
                      "stability_": 1.0}
    _parameters = dict({k: v for k, v in engine.GRID_PARAMS.items() if k not in ("n_clusters", "init")},
                       k_range=_KRange(), theta=Real(0.0, low_open=True), n_boot=Int(0, 1000),
                       min_stability=Real(0.0, 1.0), min_snr=Real(0.0, low_open=True))

    def __init__(self, k_range, epsilon, *, bounds, n_init=30, theta=10.0, rounding="round",
                 max_cells=DEFAULT_MAX_CELLS, max_iter=30, tol=1e-4, screen_cells=DEFAULT_SCREEN_CELLS,
                 refine_iter=DEFAULT_REFINE_ITER, r=1.0, n_public=None, n_share=0.05, n_boot=10,
                 min_stability=0.8, min_snr=3.0, random_state=None, ledger=None):
        self.k_range = k_range
        self.epsilon = epsilon
        self.bounds = bounds
        self.n_init = n_init
        self.theta = theta
        self.rounding = rounding
        self.max_cells = max_cells
        self.max_iter = max_iter
        self.tol = tol
        self.screen_cells = screen_cells
        self.refine_iter = refine_iter
        self.r = r
        self.n_public = n_public
        self.n_share = n_share
        self.n_boot = n_boot
        self.min_stability = min_stability
        self.min_snr = min_snr
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        d = X.shape[1]
        for k in p.k_range:
            engine.check_k_size(k, d)
        X = read_dask_rows(X)  # dask: NaN/inf found, and the number of rows known, before any release
        Z = _kernels.scale_into(X, low, high, p.r)
        n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)
        res = engine.fit(Z, None, p.epsilon - eps_n, n_est, method="EUGkM", theta=p.theta, rounding=p.rounding,
                            max_cells=p.max_cells, r=p.r, max_iter=p.max_iter, tol=p.tol, rng=rng, ledger=ledger,
                            name="choose_k EUGkM")
        syn = res.synopsis
        # the cap: a function of the noisy (or published) N, the histogram's epsilon and the grid, all public
        self.k_max_ = _k_cap(n_est, syn.epsilon, syn.n_cells, p.min_snr)
        ks = [k for k in p.k_range if k <= self.k_max_]
        self.dropped_k_ = tuple(k for k in p.k_range if k > self.k_max_)
        self.too_few_records_ = not ks
        if not ks:  # nothing the synopsis can see: the smallest candidate, flagged
            ks = [p.k_range[0]]
        inits = {k: engine.initial_centroids("sphere_packing", p.n_init, k, d, p.r, low, high, rng) for k in ks}
        k_best, scores, _, best = _select(syn, ks, inits, p)
        self.k_ = k_best
        self.scores_ = scores
        self.centers_ = {k: _kernels.unscale_from(C, low, high, p.r) for k, C in best.items()}
        self.scaled_centers_ = best
        self.synopsis_ = syn
        self.n_estimate_ = float(n_est)
        self.stability_, self.bootstrap_picks_, self.reliable_ = None, {}, None
        if p.n_boot > 0:
            picks = _bootstrap_picks(syn, ks, best, p, _child_rng(rng))
            values, counts = np.unique(picks, return_counts=True)
            self.bootstrap_picks_ = {int(v): int(c) for v, c in zip(values, counts)}
            self.stability_ = float(np.mean(picks == k_best))
            self.reliable_ = bool(self.stability_ >= p.min_stability)
        if self.too_few_records_:
            self.reliable_ = False


def _warning(est, n_boot, min_stability):
    """The text of the warning for an unreliable or capped choice (None when there is nothing to say)."""
    lines = []
    if est.too_few_records_:
        lines.append(f"no candidate k has clusters this synopsis can see (k_max_ = {est.k_max_} for about "
                     f"{est.n_estimate_:.0f} records at this epsilon); k_ = {est.k_} is the smallest candidate, not "
                     f"a choice")
    elif est.dropped_k_:
        lines.append(f"candidates k > {est.k_max_} were dropped (too few records per cluster for the synopsis "
                     f"to see them): {list(est.dropped_k_)}")
    if est.stability_ is not None and est.stability_ < min_stability:
        lines.append(f"the choice k_ = {est.k_} is unstable: {round(est.stability_ * n_boot)} of {n_boot} "
                     f"simulated re-releases of the synopsis pick it (stability_ = {est.stability_:.2f} < "
                     f"{min_stability})")
    if not lines:
        return None
    if est.reliable_ is False:
        lines.append("more epsilon, fewer candidates in k_range, or a k known from public information would help")
    return "choose_k: " + "; ".join(lines) + "."


def choose_k(X: ArrayLike, epsilon: float, k_range: Iterable[int] = range(2, 11), *, bounds: ArrayLike,
             n_init: int = 30, theta: float = 10.0, rounding: Literal["round", "floor", "ceil"] = "round",
             max_cells: int = DEFAULT_MAX_CELLS, max_iter: int = 30, tol: float = 1e-4,
             screen_cells: int | None = DEFAULT_SCREEN_CELLS, refine_iter: int = DEFAULT_REFINE_ITER, r: float = 1.0,
             n_public: float | None = None, n_share: float = 0.05, n_boot: int = 10, min_stability: float = 0.8,
             min_snr: float = 3.0, random_state: RNGLike = None,
             ledger: PrivacyLedger | None = None) -> ChooseKResult:
    est = _ChooseK(k_range, epsilon, bounds=bounds, n_init=n_init, theta=theta, rounding=rounding,
                   max_cells=max_cells, max_iter=max_iter, tol=tol, screen_cells=screen_cells,
                   refine_iter=refine_iter, r=r, n_public=n_public, n_share=n_share, n_boot=n_boot,
                   min_stability=min_stability, min_snr=min_snr, random_state=random_state, ledger=ledger).fit(X)
    msg = _warning(est, n_boot, min_stability)
    if msg is not None:
        warnings.warn(msg, UserWarning, stacklevel=2)
    return ChooseKResult(est.k_, est.scores_, est.centers_, est.scaled_centers_, est.synopsis_, est.ledger_,
                         est.n_estimate_, est.k_max_, est.dropped_k_, est.stability_, est.bootstrap_picks_,
                         est.reliable_)


choose_k.__doc__ = """Choose k privately from one EUGkM synopsis with the RT-validity statistic (thesis §4.6.7), and
    say how far the choice can be trusted.

    epsilon-DP under add/remove one record (one noisy N and one histogram; the rest — the search, the cap on k
    and the stability — is post-processing), with ``bounds`` public (and N, if ``n_public`` is given).

    **The cap.** Candidates above :func:`k_cap` of the noisy (or published) N, the histogram's epsilon and the
    grid are dropped before the search and listed in ``dropped_k_``: with ``M`` cells of Laplace noise of scale
    ``1/ε``, a cluster of ``N/k`` records shows above the noise in its ``M/k`` cells with signal-to-noise ratio
    ``N ε / sqrt(2 M k)``, which must reach ``min_snr``; and k is at most ``M``. If no candidate survives,
    ``k_`` is the smallest candidate and ``reliable_`` is False.

    **The stability.** ``n_boot`` replicates ``counts + L`` of the released synopsis, ``L`` fresh Laplace noise
    of the synopsis's own scale on every cell, are searched as the synopsis was (from the released winner of
    every k and ``max(1, n_init // n_boot)`` fresh starts); ``stability_`` is the share of replicates that pick
    ``k_``. The replicates carry twice the noise variance of the release, so the measure errs towards
    instability. ``reliable_`` is ``stability_ >= min_stability``; when it is False (or candidates were
    dropped) a ``UserWarning`` says so and what would help (more epsilon, fewer candidates, a public k).

    The stability measures what the noise does to the choice, not whether the data have clusters or whether
    RT-validity is the right statistic for them: a choice RT-validity gets wrong with or without noise can be
    stable (2,000 uniform points in a square at epsilon 0.5: k = 4 in all 30 replicates of 3 seeds; the
    2 x 2 split is RT-validity's optimum there).

    **Measured reliability** (real data min-max scaled into ``[0, 1]^d``, ``bounds=(0, 1)``, N private,
    ``k_range = 2..10``, defaults otherwise, 5 seeds at each of epsilon = 0.5 and 1; "non-private" is the k
    of least RT-validity of scikit-learn's k-means on the same data):

    - wine (178 x 13), breast_cancer (569 x 30), digits (1,797 x 64): the grid has one cell, ``k_max_ = 1``, no
      candidate survives; every run returned the smallest candidate flagged ``reliable_ = False``.
    - iris (150 x 4, 16 cells): picks 10, 10, 10, 2, 9 at epsilon 0.5 and 10, 9, 2, 10, 10 at epsilon 1
      (non-private: 2); flagged in 3 of 5 runs at each epsilon.
    - airports (3,376 x 2, longitude and latitude): picks 3, 2, 2, 2, 2 and 3, 2, 2, 2, 3 (non-private: 2);
      flagged in 3 and 2 of 5 runs.
    - 100 separated clusters (100,000 x 2, ``k_range`` 2, 4, 8, ..., 64, 100, 128): picks 4 in 4 of 5 runs at
      both epsilons, never flagged (non-private: 64) — a stable choice that is wrong.

    Read ``reliable_ = True`` as "the noise did not decide this", and ``False`` as "do not use this k".

    Parameters
    ----------
    X : array (N, d) or dask array
        The private data. A dask array is reduced on its workers (one histogram of the public grid); only the
        cell counts reach the driver, where the noise is added.
    epsilon : float
        Total budget.
    k_range : iterable of int, default range(2, 11)
        Candidate k (each >= 1; at most 1000 candidates), capped by :func:`k_cap`.
    bounds : pair or per-dimension bounds
        The **public** domain (required); data scaled into ``[-r, r]^d`` and clipped.
    n_init, theta, rounding, max_cells, max_iter, tol, screen_cells, refine_iter, r
        As in :class:`~dpclust_core.kmeans.grid.EUGkM`: every candidate k is searched as EUGkM searches its
        synopsis (on the ``screen_cells`` cells of largest noisy count when the grid has more cells).
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    n_boot : int, default 10
        Bootstrap replicates for ``stability_`` (0: not measured; ``stability_`` and ``reliable_`` are then
        None unless no candidate survived the cap). They spend nothing.
    min_stability : float, default 0.8
        ``reliable_`` is True when at least this share of the replicates picks ``k_``.
    min_snr : float, default 3
        The smallest signal-to-noise ratio of a cluster's count in the synopsis (:func:`k_cap`).
    random_state : None, int or numpy.random.Generator
        The bootstrap draws from a child generator (``Generator.spawn``), so ``k_``, the centres, and the later
        draws of a Generator passed here do not depend on ``n_boot``.
    ledger : PrivacyLedger, optional
        A shared ledger asked for ``epsilon`` before the data are read.

    Returns
    -------
    ChooseKResult
        ``k_``, ``scores_`` {k: validity} of the candidates searched, ``centers_`` {k: (k, d) original units},
        ``scaled_centers_``, ``synopsis_``, ``ledger_`` (total = epsilon), ``n_estimate_`` (the noisy N or
        ``n_public``), ``k_max_`` and ``dropped_k_`` (the cap and the candidates above it), ``stability_``,
        ``bootstrap_picks_`` {k: replicates that picked it} and ``reliable_``.

    Warns
    -----
    UserWarning
        When candidates were dropped, or the choice is not reliable.

    Examples
    --------
    >>> from sklearn.datasets import make_blobs
    >>> X, _ = make_blobs(6000, centers=[[-0.5, -0.5], [0.5, -0.5], [0.0, 0.5]], cluster_std=0.08,
    ...                   random_state=4)
    >>> res = choose_k(X, 2.0, range(2, 6), bounds=(-1, 1), n_init=5, random_state=0)
    >>> res.k_, res.reliable_, round(res.ledger_.epsilon, 12)
    (3, True, 2.0)
    """
