"""MCMC postprocessing of iterative DP algorithms (Lee & Kifer, arXiv:1609.03251).

DP k-means (DPLloyd, the paper's Algorithm 1) releases, in every round ``t = 1..T``, a noisy count
``ñ_k^(t)`` and a noisy coordinate sum ``s̃_k^(t)`` of every Voronoi cell of the centroids
``c^(t-1)`` it used, and usually only the last centroids ``c^(T)`` are kept. The intermediate
releases were paid for (sequential composition) and carry information about the data that ``c^(T)``
alone discards. This module turns them back into an estimate:

* :class:`Transcript` — the whole released sequence: the centroids actually used (``(T+1, K, d)``,
  index 0 = the public initial centroids), the noisy sums ``(T, K, d)`` and counts ``(T, K)``, and the
  Laplace scale of every released statistic, per round. Built from any DPLloyd run with
  :meth:`Transcript.from_dplloyd` (the paper's own setting is ``DPLloyd(variant="lee_kifer")``: unit
  L1 ball, ``Lap(2T/ε)`` on every count and coordinate sum).
* the sampler's target — the exact factorised Laplace likelihood of the whole transcript given a
  dataset (the paper's §3.1, corrected): round ``t``'s observations are compared with the statistics
  of the data in the cells of ``c^(t-1)``.
* :func:`consistent_l1` — the consistency step of the paper's §3.2 (constrained maximum likelihood under
  Laplace noise = constrained weighted L1 fit) in closed form: weighted medians of the per-round totals and
  a same-sign reallocation, which attains the L1 lower bound.
* :class:`MCMCPostprocessor` — the paper's Metropolis–Hastings sampler over synthetic datasets with the
  Gaussian-mixture proposal (Eq. 1), the labelled Hastings correction of §3.3 or its marginal
  (Rao-Blackwellised) variant, best-state tracking, and a final non-private k-means on the best
  sampled dataset.

Privacy: everything here is **post-processing**. The postprocessor takes only a :class:`Transcript`
(released values and public parameters) and public sizes, and uses its own random generator; it never
receives the private data or the mechanism's noise, so it spends no privacy budget.
"""
from __future__ import annotations

import itertools
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from . import _kernels
from ._validation import (ArrayLike, BadTypeError, Bool, RNGLike, Int, NoneOr, Options, RandomState, Real, check_data,
                          check_options, check_real, check_rng)
from .base import CentroidMixin, Estimator
from .kmeans.lloyd import DPLloyd, project_l1_ball

__all__ = [
    "Transcript",
    "ConsistentStatistics",
    "consistent_l1",
    "project_l1_ball",
    "MCMCPostprocessor",
]

_MAX_STEPS = 10**8  #: most MH steps (each costs ~3 µs and ~100 bytes of pre-drawn proposal)
_MAX_POINTS = 10**8  #: largest synthetic dataset
_MAX_PROPOSAL_VAR = 1e6  #: largest proposal variance (scaled units: the domain has radius about 1)


# --------------------------------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------------------------------
def _project_domain(V, domain, radius):
    if domain == "l1":
        return _kernels.project_l1(V, radius)
    return np.clip(V, -radius, radius)


def _in_domain(V, domain, radius, tol=1e-12):
    V = np.atleast_2d(V)
    if domain == "l1":
        return np.abs(V).sum(axis=1) <= radius * (1 + tol)
    return np.all(np.abs(V) <= radius * (1 + tol), axis=1)


# --------------------------------------------------------------------------------------------------
# the transcript
# --------------------------------------------------------------------------------------------------
def _as_finite(a, name, shape=None):
    if isinstance(a, (str, bytes)):
        raise BadTypeError(f"{name} must be a numeric array, got a string")
    raw = np.asarray(a)
    if raw.dtype.kind not in "iuf":
        if raw.dtype.kind == "O":
            try:
                raw = np.asarray(a, dtype=float)
            except (TypeError, ValueError):
                raise BadTypeError(f"{name} must be a numeric array") from None
        if raw.dtype.kind not in "iuf":
            raise BadTypeError(f"{name} must be a numeric array of real numbers, got dtype {raw.dtype}")
    arr = raw.astype(float)
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def _per_round(value, name, T):
    arr = _as_finite(value, name)
    if arr.ndim == 0:
        arr = np.full(T, float(arr))
    if arr.shape != (T,):
        raise ValueError(f"{name} must be a scalar or have shape ({T},), got {arr.shape}")
    return arr


@dataclass(frozen=True)
class Transcript:
    """Everything an iterative DP k-means run released, in the scaled domain.

    Parameters
    ----------
    centroids : array (T+1, K, d)
        ``centroids[t-1]`` are the centroids **actually used** to partition the data in round ``t``
        (index 0 = the public, data-independent initial centroids ``c^(0)``); ``centroids[T]`` is the
        final output ``c^(T)``, which partitions nothing in the likelihood.
    s_tilde : array (T, K, d)
        Noisy cluster sums ``s̃_k^(t)`` (Algorithm 1).
    n_tilde : array (T, K)
        Noisy cluster counts ``ñ_k^(t)``.
    count_scale, sum_scale : float or array (T,)
        Laplace scale of every noisy count / every noisy coordinate sum of round ``t`` (> 0;
        ``2T/ε`` for all rounds in the paper's setting).
    domain : {"l1", "box"}
        The public data domain in scaled units: the L1 ball ``||x||_1 <= radius`` (paper) or the box
        ``[-radius, radius]^d`` (the thesis's DPLloyd).
    radius : float, default 1.0
        ``r`` of the domain.
    bounds : tuple (low, high) of arrays (d,), optional
        Public bounds of the original units (to map centroids back), if known.
    epsilon : float, optional
        The budget the run spent (informational).
    meta : dict, optional
        Free-form public information (e.g. the variant).

    Examples
    --------
    >>> import numpy as np
    >>> tr = Transcript(np.zeros((3, 2, 1)), np.zeros((2, 2, 1)), np.ones((2, 2)), 1.0, 1.0)
    >>> tr.n_rounds, tr.n_clusters, tr.n_features
    (2, 2, 1)
    """

    centroids: np.ndarray
    s_tilde: np.ndarray
    n_tilde: np.ndarray
    count_scale: np.ndarray
    sum_scale: np.ndarray
    domain: Literal["l1", "box"] = "box"
    radius: float = 1.0
    bounds: tuple | None = None
    epsilon: float | None = None
    meta: dict = field(default_factory=dict, compare=False)

    def __post_init__(self):
        C = _as_finite(self.centroids, "centroids")
        if C.ndim != 3:
            raise ValueError(f"centroids must have shape (T+1, K, d), got {C.shape}")
        T1, K, d = C.shape
        if T1 < 2 or K < 1 or d < 1:
            raise ValueError(f"centroids must have shape (T+1, K, d) with T >= 1, K >= 1, d >= 1; got {C.shape}")
        T = T1 - 1
        S = _as_finite(self.s_tilde, "s_tilde", (T, K, d))
        N = _as_finite(self.n_tilde, "n_tilde", (T, K))
        cs = _per_round(self.count_scale, "count_scale", T)
        ss = _per_round(self.sum_scale, "sum_scale", T)
        if np.any(cs <= 0):
            raise ValueError(f"count_scale must be > 0 in every round, got {cs}")
        if np.any(ss <= 0):
            raise ValueError(f"sum_scale must be > 0 in every round, got {ss}")
        check_options(self.domain, "domain", ("l1", "box"))
        radius = check_real(self.radius, "radius", low=0.0, low_open=True)
        bounds = self.bounds
        if bounds is not None:
            try:
                lo_raw, hi_raw = bounds
            except (TypeError, ValueError):
                raise ValueError("bounds must be a pair (low, high)") from None
            lo = _as_finite(np.broadcast_to(np.asarray(lo_raw, dtype=float), (d,)), "bounds low")
            hi = _as_finite(np.broadcast_to(np.asarray(hi_raw, dtype=float), (d,)), "bounds high")
            if np.any(lo >= hi):
                raise ValueError("bounds must have low < high in every dimension")
            bounds = (lo.copy(), hi.copy())
        eps = self.epsilon
        if eps is not None:
            eps = check_real(eps, "epsilon", low=0.0)
        for name, val in (("centroids", C), ("s_tilde", S), ("n_tilde", N), ("count_scale", cs),
                          ("sum_scale", ss)):
            val = np.array(val, dtype=float)
            val.setflags(write=False)
            object.__setattr__(self, name, val)
        object.__setattr__(self, "bounds", bounds)
        object.__setattr__(self, "radius", radius)
        object.__setattr__(self, "epsilon", eps)

    # shapes -------------------------------------------------------------------------------------
    @property
    def n_rounds(self) -> int:
        """T, the number of released rounds."""
        return self.s_tilde.shape[0]

    @property
    def n_clusters(self) -> int:
        """K, the number of clusters."""
        return self.s_tilde.shape[1]

    @property
    def n_features(self) -> int:
        """d, the number of features."""
        return self.s_tilde.shape[2]

    @property
    def final_centroids(self) -> np.ndarray:
        """``c^(T)``, what DP k-means itself outputs (scaled domain)."""
        return self.centroids[-1]

    def to_original(self, C: ArrayLike) -> np.ndarray:
        """Map centroids from the scaled domain back to the original units with the linear map of the
        public ``bounds`` (what ``DPLloyd.cluster_centers_`` uses, for every variant). Identity without bounds."""
        C = check_data(C, "C", n_features=self.n_features)
        if self.bounds is None:
            return C.copy()
        lo, hi = self.bounds
        return _kernels.unscale_from(C, lo, hi, self.radius)

    def to_domain(self, X: ArrayLike) -> np.ndarray:
        """Map data in original units into the scaled domain as DPLloyd does: linear map of the public
        ``bounds`` with clipping, then (L1 domain) projection onto the ball. Without bounds the data are
        taken as scaled already (but still clipped / projected)."""
        X = check_data(X, n_features=self.n_features)
        if self.bounds is not None:
            X = _kernels.scale_into(X, self.bounds[0], self.bounds[1], self.radius)
        return _project_domain(X, self.domain, self.radius)

    # construction -------------------------------------------------------------------------------
    @classmethod
    def from_history(cls, history: Sequence[dict], *, domain: Literal["l1", "box"] = "box", radius: float = 1.0,
                     bounds: tuple[ArrayLike, ArrayLike] | None = None, epsilon: float | None = None,
                     meta: dict | None = None) -> Transcript:
        """Build a transcript from a DPLloyd-style ``history_`` (one dict per round ``t``).

        Every round needs ``"centroids"`` (the ``(K, d)`` centroids used for the assignment of round
        ``t``, scaled domain), ``"noisy_counts"`` ``(K,)``, ``"noisy_sums"`` ``(K, d)``,
        ``"count_scale"``, ``"sum_scale"`` (Laplace scales) and ``"new_centroids"`` ``(K, d)``.
        ``centroids[T]`` of the transcript is the last round's ``"new_centroids"``.
        """
        if not isinstance(history, (list, tuple)) or len(history) == 0:
            raise ValueError("history must be a non-empty list of per-round dicts")
        keys = ("centroids", "noisy_counts", "noisy_sums", "count_scale", "sum_scale", "new_centroids")
        for t, h in enumerate(history):
            if not isinstance(h, dict):
                raise ValueError(f"history[{t}] must be a dict, got {type(h).__name__}")
            missing = [k for k in keys if k not in h]
            if missing:
                raise ValueError(f"history[{t}] lacks the keys {missing}")
        try:
            C = np.stack([np.asarray(h["centroids"], dtype=float) for h in history]
                         + [np.asarray(history[-1]["new_centroids"], dtype=float)])
            S = np.stack([np.asarray(h["noisy_sums"], dtype=float) for h in history])
            N = np.stack([np.asarray(h["noisy_counts"], dtype=float) for h in history])
            cs = np.array([np.asarray(h["count_scale"], dtype=float) for h in history])
            ss = np.array([np.asarray(h["sum_scale"], dtype=float) for h in history])
        except (TypeError, ValueError) as exc:
            raise ValueError(f"history has inconsistent shapes or non-numeric values: {exc}") from None
        if cs.ndim != 1 or ss.ndim != 1:
            raise ValueError("count_scale and sum_scale must be scalars per round")
        return cls(C, S, N, cs, ss, domain=domain, radius=radius, bounds=bounds, epsilon=epsilon,
                   meta=dict(meta or {}))

    @classmethod
    def from_dplloyd(cls, est: DPLloyd) -> Transcript:
        """Build the transcript of a fitted ``DPLloyd`` estimator (any variant) from its ``history_``.

        ``variant="lee_kifer"`` is the paper's setting (unit L1 ball of radius ``r``); the other
        variants use the box ``[-r, r]^d``, whose public ``bounds`` are kept so that centroids can be
        mapped back to the original units. ``epsilon`` is the estimator's whole spend (its noisy count of N
        included, when it bought one).
        """
        history = getattr(est, "history_", None)
        if history is None:
            raise ValueError("est must be a fitted DPLloyd estimator (no history_)")
        domain = getattr(est, "domain_", "l1" if getattr(est, "variant", None) == "lee_kifer" else "box")
        r = float(getattr(est, "r_", 1.0))
        bounds = getattr(est, "bounds_", None)
        ledger = getattr(est, "ledger_", None)
        eps = float(ledger.epsilon) if ledger is not None else None
        return cls.from_history(history, domain=domain, radius=r, bounds=bounds, epsilon=eps,
                                meta={"variant": getattr(est, "variant", None)})


# --------------------------------------------------------------------------------------------------
# likelihood of the transcript
# --------------------------------------------------------------------------------------------------
def _check_transcript(transcript, name="transcript"):
    if not isinstance(transcript, Transcript):
        raise BadTypeError(f"{name} must be a Transcript (released values only; the postprocessor never "
                           f"takes raw data), got {type(transcript).__name__}")
    return transcript


def _assign_rounds(X, centroids_used):
    """(n, T) int32 cell index of every point under each round's partition centroids (ties -> lowest index),
    computed by the same nearest-centroid kernel as DPLloyd, so a dataset is partitioned exactly as the
    mechanism partitioned it."""
    out = np.empty((X.shape[0], len(centroids_used)), dtype=np.int32)
    for t, C in enumerate(centroids_used):
        out[:, t] = _kernels.assign(X, C)
    return out


def _round_statistics(X, A, K):
    """Sums (T, K, d) and counts (T, K) of the rows of X in the cells given by the (n, T) index array A."""
    T = A.shape[1]
    S = np.empty((T, K, X.shape[1]))
    N = np.empty((T, K))
    for t in range(T):  # one pass per round (bincounts; no loop over points)
        N[t], S[t] = _kernels.cluster_stats(X, np.ascontiguousarray(A[:, t]), K)
    return S, N


def _observations(tr, obs, consistency):
    if obs == "raw" or not consistency:
        return tr.s_tilde, tr.n_tilde
    cs = _consistent(tr.s_tilde, tr.n_tilde, 1.0 / tr.sum_scale, 1.0 / tr.count_scale)
    return cs.s_hat, cs.n_hat


# --------------------------------------------------------------------------------------------------
# consistency (the paper's §3.2)
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConsistentStatistics:
    """Output of :func:`consistent_l1`: ``s_hat (T,K,d)``, ``n_hat (T,K)``, common totals ``sum_total (d,)``,
    ``count_total`` (= ``m_N*``, the consistent estimate of the dataset size)."""

    s_hat: np.ndarray
    n_hat: np.ndarray
    sum_total: np.ndarray
    count_total: float


def _weighted_median(values, weights):
    """Minimiser of Σ_t w_t |m − v_t| along the last axis of ``values`` (midpoint when it is an interval)."""
    order = np.argsort(values, axis=-1, kind="stable")
    v = np.take_along_axis(values, order, axis=-1)
    w = np.broadcast_to(weights, values.shape)
    w = np.take_along_axis(w, order, axis=-1)
    cw = np.cumsum(w, axis=-1)
    half = 0.5 * cw[..., -1:]
    tol = 1e-12 * cw[..., -1:]
    lo_idx = np.argmax(cw >= half - tol, axis=-1)      # first index whose cumulative weight reaches half
    exact = np.abs(np.take_along_axis(cw, lo_idx[..., None], axis=-1) - half) <= tol
    hi_idx = np.minimum(lo_idx + exact[..., 0].astype(int), v.shape[-1] - 1)
    lo = np.take_along_axis(v, lo_idx[..., None], axis=-1)[..., 0]
    hi = np.take_along_axis(v, hi_idx[..., None], axis=-1)[..., 0]
    return 0.5 * (lo + hi)


def _check_noisy(s_tilde, n_tilde, s_name="s_tilde", n_name="n_tilde"):
    s = _as_finite(s_tilde, s_name)
    if s.ndim != 3 or 0 in s.shape:
        raise ValueError(f"{s_name} must have shape (T, K, d) with T, K, d >= 1, got {s.shape}")
    n = _as_finite(n_tilde, n_name, s.shape[:2])
    return s, n


def _check_weights(w, name, T):
    if w is None:
        return np.ones(T)
    arr = _per_round(w, name, T)
    if np.any(arr <= 0):
        raise ValueError(f"{name} must be > 0, got {w!r}")
    return arr


def consistent_l1(s_tilde: ArrayLike, n_tilde: ArrayLike, sum_weights: float | ArrayLike | None = None,
                  count_weights: float | ArrayLike | None = None) -> ConsistentStatistics:
    """The consistency step of the paper's §3.2 in closed form.

    Minimises ``Σ_t w_S^(t) Σ_k ||ŝ_k^(t) − s̃_k^(t)||_1 + w_N^(t) Σ_k |n̂_k^(t) − ñ_k^(t)|`` (the
    constrained Laplace MLE when ``w = 1/scale``) subject to: the grand sum ``Σ_k ŝ_k^(t)`` and the
    grand count ``Σ_k n̂_k^(t)`` are the same in every round, and ``n̂ ≥ 0``. The problem separates
    per sum coordinate and for the counts; each part is solved exactly:

    * sums, coordinate j: common total ``m_j* = weighted median_t(R_{t,j})`` with ``R_{t,j} = Σ_k s̃_{k,j}^(t)``;
      equal shift ``ŝ_{k,j}^(t) = s̃_{k,j}^(t) + (m_j* − R_{t,j})/K``;
    * counts: clip ``max(ñ, 0)``, ``P_t = Σ_k max(ñ_k^(t), 0)``, ``m_N* = weighted median_t(P_t)``;
      rescale each row proportionally to total ``m_N*`` (``m_N*/K`` each if ``P_t = 0``).

    Every move within a row has the same sign, which is why the triangle-inequality lower bound
    ``Σ_k |x_k − a_k| ≥ |Σ_k x_k − Σ_k a_k|`` (per round) is attained.

    Parameters
    ----------
    s_tilde : array (T, K, d)
        Noisy sums.
    n_tilde : array (T, K)
        Noisy counts.
    sum_weights, count_weights : float or array (T,), optional
        Per-round weights ``1/scale`` (> 0); default 1 (equal scales, the paper).

    Returns
    -------
    ConsistentStatistics

    Examples
    --------
    >>> import numpy as np
    >>> cs = consistent_l1(np.zeros((3, 2, 1)), np.array([[4.0, 6.0], [5.0, 7.0], [-1.0, 9.0]]))
    >>> cs.count_total, cs.n_hat.sum(axis=1).tolist()
    (10.0, [10.0, 10.0, 10.0])
    """
    s, n = _check_noisy(s_tilde, n_tilde)
    T = s.shape[0]
    return _consistent(s, n, _check_weights(sum_weights, "sum_weights", T),
                       _check_weights(count_weights, "count_weights", T))


def _consistent(s, n, ws, wn):
    K = s.shape[1]
    R = s.sum(axis=1)                                        # (T, d)
    m = _weighted_median(R.T, ws)                            # (d,)
    s_hat = s + ((m[None, :] - R) / K)[:, None, :]
    npos = np.maximum(n, 0.0)
    P = npos.sum(axis=1)                                     # (T,)
    mN = float(_weighted_median(P, wn))
    n_hat = np.empty_like(npos)
    pos = P > 0
    n_hat[pos] = npos[pos] * (mN / P[pos])[:, None]
    n_hat[~pos] = mN / K
    return ConsistentStatistics(s_hat, n_hat, m, mN)


# --------------------------------------------------------------------------------------------------
# non-private k-means on the synthetic dataset
# --------------------------------------------------------------------------------------------------
def _kmeans_best(X, K, n_init, starts, rng, max_iter=300, tol=1e-6):
    """Lloyd from each of ``starts`` and from ``n_init`` k-means++ seeds; the run of least WCSS on X wins (NOT
    private: X is the synthetic dataset). The library's public non-private k-means is ``best_of_lloyd``."""
    seeds = itertools.chain(starts, (_kernels.kmeans_plusplus(X, K, rng) for _ in range(n_init)))
    with _kernels.single_blas_thread():
        return _kernels.best_of_lloyd(X, K, n_init, rng, max_iter=max_iter, tol=tol, inits=seeds)


# --------------------------------------------------------------------------------------------------
# the proposal (paper Eq. 1)
# --------------------------------------------------------------------------------------------------
def _proposal_parameters(tr, consistency, project_centroids):
    """Centres ĉ (T,K,d), weights ω (T,K) and the size estimate m_N of the proposal."""
    T, K, d = tr.n_rounds, tr.n_clusters, tr.n_features
    if consistency:
        cs = _consistent(tr.s_tilde, tr.n_tilde, 1.0 / tr.sum_scale, 1.0 / tr.count_scale)
        s_hat, n_hat, mN = cs.s_hat, cs.n_hat, cs.count_total
    else:
        s_hat, n_hat = tr.s_tilde, np.maximum(tr.n_tilde, 0.0)
        mN = float(np.median(n_hat.sum(axis=1)))
    tot = n_hat.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        omega = np.where(tot > 0, n_hat / np.where(tot > 0, tot, 1.0), 1.0 / K)
        c_hat = np.where(n_hat[..., None] > 0, s_hat / np.where(n_hat > 0, n_hat, 1.0)[..., None], 0.0)
    # a component with zero weight is never proposed; a row with zero total falls back to the raw
    # centroids of that round with uniform weights
    zero_rows = tot[:, 0] <= 0
    c_hat[zero_rows] = tr.centroids[1:][zero_rows]
    if project_centroids:
        c_hat = _project_domain(c_hat.reshape(-1, d), tr.domain, tr.radius).reshape(T, K, d)
    return c_hat, omega, mN


def _largest_remainder(weights, total):
    raw = np.asarray(weights, float) * total
    base = np.floor(raw).astype(np.int64)
    rest = total - int(base.sum())
    if rest > 0:
        order = np.argsort(-(raw - base), kind="stable")
        base[order[:rest]] += 1
    return base


def _log_q_marginal(X, c_hat, omega, delta):
    """ln q(x) + const of the pooled proposal (1/T) Σ_t Σ_k ω_k^(t) N(x; ĉ_k^(t), δI) (logsumexp, in blocks)."""
    T, K, d = c_hat.shape
    C = c_hat.reshape(T * K, d)
    w = omega.reshape(T * K)
    keep = w > 0
    lw = np.log(w[keep])
    Ck = C[keep]
    out = np.empty(X.shape[0])
    step = max(1, (1 << 20) // max(Ck.shape[0], 1))
    for s in range(0, X.shape[0], step):
        Z = lw[None, :] - _kernels.sq_distances(X[s:s + step], Ck) / (2 * delta)
        mx = Z.max(axis=1)
        out[s:s + step] = mx + np.log(np.exp(Z - mx[:, None]).sum(axis=1))
    return out


def _sample_proposal(n, c_hat, omega, delta, rng):
    """n iid draws (t', z', x') from the pooled Gaussian-mixture proposal (paper Eq. 1)."""
    T, K, d = c_hat.shape
    t = rng.integers(T, size=n)
    cum = np.cumsum(omega, axis=1)
    # inverse CDF per row; from the last positive-weight component on, the cumulative weight is set
    # to inf so that rounding (a total of 0.99999...) can never select a zero-weight component
    last_pos = K - 1 - np.argmax(omega[:, ::-1] > 0, axis=1)
    cum[np.arange(K)[None, :] >= last_pos[:, None]] = np.inf
    u = rng.random(n)
    z = np.empty(n, dtype=np.int64)
    for tt in range(T):
        m = t == tt
        z[m] = np.searchsorted(cum[tt], u[m], side="right")
    z = np.minimum(z, K - 1)
    x = c_hat[t, z] + math.sqrt(delta) * rng.standard_normal((n, d))  # not privacy noise: the MH proposal
    return t, z, x


def _resolve_n_points(n_points, mN):
    if n_points is None:
        M = int(round(mN)) if math.isfinite(mN) else 0
        if M < 1:
            raise ValueError("the transcript's consistent count total rounds to 0; pass n_points (a public N)")
        if M > _MAX_POINTS:
            raise ValueError(f"the transcript's consistent count total {M} exceeds {_MAX_POINTS}; "
                             f"pass a smaller n_points")
        return M
    return n_points


# --------------------------------------------------------------------------------------------------
# the sampler
# --------------------------------------------------------------------------------------------------
class MCMCPostprocessor(CentroidMixin, Estimator):
    """Lee & Kifer's MCMC postprocessing of a DP k-means transcript (the paper's §3).

    The state is a synthetic dataset ``D`` of ``M`` points (``M`` = the public ``n_points`` or, by
    default, the consistent count total ``m_N*``). It starts with ``n̂_k^(T)`` copies of every
    ``ĉ_k^(T)`` (largest-remainder rounding). Each step replaces one uniformly chosen point ``x`` by
    ``x'`` from the pooled Gaussian mixture of Eq. 1: ``t' ~ U{1..T}``, ``z' ~ Cat(ω^(t'))``,
    ``x' ~ N(ĉ_{z'}^(t'), δI)`` (δ = ``proposal_var`` is a **variance**), and accepts with probability
    ``min(1, π(D')/π(D) · q(x)/q(x'))`` where ``π(D) = exp(−L(D))`` is the Laplace likelihood of the
    whole transcript (the paper's §3.1). Only the two cells that ``x`` leaves and ``x'`` enters
    change in each round ``t``, so a step costs ``O(T·d)`` after the proposal's ``T`` assignments
    (precomputed in bulk): the cost per step does not depend on ``M``. The state lives in numpy arrays
    (about 8·(d + 1) + 4·T bytes a point), read and written through memory views in the sequential loop.

    ``fit(transcript)`` reads only the transcript (released values and public parameters); raw data are
    refused. It spends no privacy budget and keeps no ledger.

    Parameters
    ----------
    n_steps : int, default 30000
        Number of MH proposals (paper: 30,000), 0..10^8. Ignored if ``n_sweeps`` is given.
    n_sweeps : float, optional
        Chain length in sweeps: ``n_steps = round(n_sweeps · M)`` (0..10^4; the result at most 10^8).
    n_points : int, optional
        M, the size of the synthetic dataset (1..10^8), a **public** number; default the consistent noisy
        count total ``round(m_N*)`` (the paper treats N as unknown). Passing the true N publishes it.
    proposal_var : float, default 1e-3
        δ, the variance of every proposal component (paper: 0.001), in (0, 1e6].
    hastings : {"labelled", "marginal", "none"}
        ``"labelled"`` (paper §3.3): ``q(x)/q(x')`` evaluated with the mixture labels ``(t, z)`` each point
        was drawn with — an exact MH kernel on the space of (dataset, labels). ``"marginal"``: the
        Rao-Blackwellised ratio of the pooled mixture densities. ``"none"``: **incorrect on purpose** (drops
        the Hastings ratio, so the chain does not target π); only for the ablation that shows why the
        correction is needed.
    obs : {"consistent", "raw"}
        Observations inside π: the consistent values (paper) or the raw noisy ones (exact posterior under a
        flat prior). Partition centroids are always the raw centroids used by the mechanism.
    consistency : bool, default True
        Apply the consistency step to the proposal parameters (and to ``obs="consistent"``).
    domain : {"none", "reject"}
        ``"none"`` (paper): proposals may leave the public domain. ``"reject"``: proposals outside it have
        π = 0 and are rejected; the initial points are then projected into the domain.
    project_centroids : bool, default False
        Project the proposal centres ĉ onto the domain (an extension; useful at small ε).
    temperature : float, default 1.0
        Multiplier of ``L`` (1 = the Laplace likelihood with λ = 1/b), > 0.
    n_init : int, default 10
        k-means++ restarts of the final k-means on the best dataset (plus one started at ``c^(T)``), 0..1000.
    random_state : None, int or numpy.random.Generator
        The postprocessor's **own** randomness (never the mechanism's).

    Attributes
    ----------
    cluster_centers_ : ndarray (K, d)
        Final centres in the original units (the transcript's public ``bounds``; scaled units without
        bounds), comparable with ``DPLloyd.cluster_centers_``.
    cluster_centers_domain_ : ndarray (K, d)
        The same in the scaled domain.
    acceptance_rate_ : float
    log_target_trace_ : ndarray (n_steps + 1,)
        ``ln π(D^(τ)) = −L`` after every step τ (index 0 = initial state).
    best_log_target_, best_step_ : float, int
        The best visited state (lowest L; τ = 0 included).
    best_dataset_, initial_dataset_, final_dataset_ : ndarray (M, d)
        Synthetic datasets, scaled units.
    accepted_, proposal_index_, proposals_, proposal_labels_ : ndarrays
        The pre-drawn moves and which were accepted (for replay).
    coverage_ : float
        Fraction of the M initial points replaced at least once.
    n_points_, n_steps_ : int
    proposal_centers_, proposal_weights_ : ndarrays (T, K, d) and (T, K)
    wcss_sampled_ : float
        WCSS of the final centres on the best sampled dataset.
    timings_ : dict
        Wall-clock seconds spent in the precomputation, the MH loop and the final k-means.
    transcript_ : Transcript
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> from dpclust_core.kmeans import DPLloyd
    >>> X, _ = make_blobs_ratio(1000, 15, random_state=0)
    >>> est = DPLloyd(15, 1.0, bounds=(-1, 1), variant="lee_kifer", random_state=0).fit(X)
    >>> pp = MCMCPostprocessor(2000, random_state=0).fit(Transcript.from_dplloyd(est))
    >>> pp.cluster_centers_.shape, pp.log_target_trace_.shape, hasattr(pp, "ledger_")
    ((15, 2), (2001,), False)
    """

    _fit_ndim = None  # fit reads a Transcript, not a data matrix
    _parameters = {
        "n_steps": Int(0, _MAX_STEPS),
        "n_sweeps": NoneOr(Real(0.0, 1e4)),
        "n_points": NoneOr(Int(1, _MAX_POINTS)),
        "proposal_var": Real(0.0, _MAX_PROPOSAL_VAR, low_open=True),
        "hastings": Options("labelled", "marginal", "none"),
        "obs": Options("consistent", "raw"),
        "consistency": Bool(),
        "domain": Options("none", "reject"),
        "project_centroids": Bool(),
        "temperature": Real(0.0, low_open=True),
        "n_init": Int(0, 1000),
        "random_state": RandomState(),
    }

    def __init__(self, n_steps: int = 30_000, *, n_sweeps: float | None = None, n_points: int | None = None,
                 proposal_var: float = 1e-3, hastings: Literal["labelled", "marginal", "none"] = "labelled",
                 obs: Literal["consistent", "raw"] = "consistent", consistency: bool = True,
                 domain: Literal["none", "reject"] = "none", project_centroids: bool = False,
                 temperature: float = 1.0, n_init: int = 10, random_state: RNGLike = None) -> None:
        self.n_steps = n_steps
        self.n_sweeps = n_sweeps
        self.n_points = n_points
        self.proposal_var = proposal_var
        self.hastings = hastings
        self.obs = obs
        self.consistency = consistency
        self.domain = domain
        self.project_centroids = project_centroids
        self.temperature = temperature
        self.n_init = n_init
        self.random_state = random_state

    # ---------------------------------------------------------------------------------------------
    def fit(self, transcript: Transcript, y: ArrayLike | None = None) -> MCMCPostprocessor:
        """Run the sampler on ``transcript`` (a :class:`Transcript`; raw data are refused). Returns self.

        Parameters
        ----------
        transcript : Transcript
            What the DP algorithm released.
        y : ignored
        """
        p = self._validate_params()
        tr = _check_transcript(transcript)
        with _kernels.single_blas_thread():
            self._run(tr, p)
        return self

    def _run(self, tr, p):
        rng = check_rng(p.random_state, "random_state")
        tic = time.perf_counter()
        T, K, d = tr.n_rounds, tr.n_clusters, tr.n_features
        delta = float(p.proposal_var)
        c_hat, omega, mN = _proposal_parameters(tr, p.consistency, p.project_centroids)
        y, u = _observations(tr, p.obs, p.consistency)
        M = _resolve_n_points(p.n_points, mN)
        if p.n_sweeps is not None:
            n_steps = int(round(p.n_sweeps * M))
            if n_steps > _MAX_STEPS:
                raise ValueError(f"n_sweeps={p.n_sweeps} gives {n_steps} steps for M={M} points; "
                                 f"at most {_MAX_STEPS}")
        else:
            n_steps = int(p.n_steps)
        wS = (p.temperature / tr.sum_scale).tolist()
        wN = (p.temperature / tr.count_scale).tolist()

        # ---- initial state: n_init_k copies of ĉ_k^(T) -------------------------------------------
        lab0 = np.repeat(np.arange(K), _largest_remainder(omega[-1], M))
        X = c_hat[-1][lab0]                                                # (M, d), the state
        if p.domain == "reject":
            X = _project_domain(X, tr.domain, tr.radius)
        A = _assign_rounds(X, tr.centroids[:-1])                           # (M, T) int32, the state
        S0, N0 = _round_statistics(X, A, K)
        with np.errstate(divide="ignore"):
            log_omega = np.log(omega)
        if p.hastings == "labelled":
            lq = log_omega[-1][lab0] - ((X - c_hat[-1][lab0]) ** 2).sum(axis=1) / (2 * delta)
        elif p.hastings == "marginal":
            lq = _log_q_marginal(X, c_hat, omega, delta)
        else:
            lq = np.zeros(M)
        del lab0
        self.initial_dataset_ = X.copy()

        # ---- pre-draw every state-independent quantity -------------------------------------------
        I = rng.integers(M, size=n_steps)
        tp, zp, XP = _sample_proposal(n_steps, c_hat, omega, delta, rng)
        B = _assign_rounds(XP, tr.centroids[:-1])
        if p.hastings == "labelled":
            lqp = log_omega[tp, zp] - ((XP - c_hat[tp, zp]) ** 2).sum(axis=1) / (2 * delta)
        elif p.hastings == "marginal":
            lqp = _log_q_marginal(XP, c_hat, omega, delta)
        else:
            lqp = np.zeros(n_steps)
        logU = np.log(rng.random(n_steps))
        if p.domain == "reject":
            logU[~_in_domain(XP, tr.domain, tr.radius)] = np.inf           # never accepted

        # ---- the sequential MH loop on arrays (memory views give Python-speed scalar access) ------
        Rs = (y - S0).tolist()           # residual y - S, per (t, k, j): small (T·K·d)
        Rn = (u - N0).tolist()           # residual u - N, per (t, k)
        L0 = float(sum(wS[t] * np.abs(y[t] - S0[t]).sum() + wN[t] * np.abs(u[t] - N0[t]).sum()
                       for t in range(T)))
        accepted = np.zeros(n_steps, dtype=np.uint8)
        trace = np.empty(n_steps + 1)
        t_pre = time.perf_counter()
        _mh_loop(n_steps, _view(I), _view(XP), _view(B), _view(lqp), _view(logU), _view(X), _view(A),
                 _view(lq), Rs, Rn, wS, wN, T, d, L0, _view(accepted), _view(trace))
        t_loop = time.perf_counter()
        accepted = accepted.view(bool)
        trace = -trace
        best_step = int(np.argmax(trace))                                   # first maximum (lowest L)

        # ---- best state by replaying the accepted moves up to best_step ---------------------------
        self.final_dataset_ = X
        self.best_dataset_ = self._replay(self.initial_dataset_, I, XP, accepted, best_step)
        self.accepted_ = accepted
        self.proposal_index_ = I
        self.proposals_ = XP
        self.proposal_labels_ = np.stack([tp, zp], axis=1)
        self.log_target_trace_ = trace
        self.best_step_ = best_step
        self.best_log_target_ = float(trace[best_step])
        self.acceptance_rate_ = float(accepted.mean()) if n_steps else 0.0
        self.coverage_ = float(np.unique(I[accepted]).size / M)
        self.n_points_ = M
        self.n_steps_ = n_steps
        self.proposal_centers_ = c_hat
        self.proposal_weights_ = omega

        # ---- final non-private k-means on the best dataset ---------------------------------------
        C, w = _kmeans_best(self.best_dataset_, K, p.n_init, [tr.final_centroids], rng)
        self.cluster_centers_domain_ = C
        self.wcss_sampled_ = w
        t_end = time.perf_counter()
        self.timings_ = {"precompute": t_pre - tic, "mh_loop": t_loop - t_pre,
                         "final_kmeans_and_replay": t_end - t_loop}
        self.cluster_centers_ = tr.to_original(C)
        self.transcript_ = tr
        self.n_features_in_ = d
        return self

    @staticmethod
    def _replay(X0, I, XP, accepted, upto):
        X = X0.copy()
        steps = np.flatnonzero(accepted[:upto])                           # accepted moves 1..upto
        if steps.size:
            idx = I[steps][::-1]
            uniq, first = np.unique(idx, return_index=True)               # last write per index wins
            X[uniq] = XP[steps[::-1][first]]
        return X


def _view(a):
    """A flat memory view of a C-contiguous array: element access at Python-list speed, no copy (writes
    through the view update the array)."""
    if not a.flags.c_contiguous:
        raise RuntimeError("internal error: the MH state must be C-contiguous")  # pragma: no cover
    if a.size == 0:  # a chain of 0 steps: never indexed (a view with a zero in its shape cannot be cast)
        a = np.zeros(1, dtype=a.dtype)
    return memoryview(a).cast("B").cast(a.dtype.char)


def _mh_loop(n_steps, I, XP, B, lqp, logU, X, A, lq, Rs, Rn, wS, wN, T, d, L, accepted, trace):
    """The sequential MH loop (O(T·d) per step; the incremental ΔL of the paper's §3, corrected).

    Every argument but the small residual lists is a flat memory view of a numpy array, updated in place:
    ``I`` (n_steps,) point index, ``XP`` (n_steps·d) proposals, ``B`` (n_steps·T) their cells, ``lqp`` and
    ``logU`` (n_steps,), the state ``X`` (M·d), ``A`` (M·T), ``lq`` (M,), and the outputs ``accepted`` and
    ``trace`` (L after every step, step 0 included). Residuals ``Rs[t][k][j] = y − S`` and ``Rn[t][k] = u − N``:
    removing ``x`` from cell ``a`` adds ``x`` to the sum residual and 1 to the count residual; adding ``x'``
    to cell ``b`` subtracts them. When ``a = b`` only the sum of that cell changes (by ``x' − x``).
    """
    fabs = abs
    inf = math.inf
    rT = range(T)
    rd = range(d)
    trace[0] = L
    for s in range(n_steps):
        lu = logU[s]
        if lu == inf:
            trace[s + 1] = L
            continue
        i = I[s]
        x = X[i * d:(i + 1) * d].tolist()
        xp = XP[s * d:(s + 1) * d].tolist()
        ai = A[i * T:(i + 1) * T].tolist()
        bs = B[s * T:(s + 1) * T].tolist()
        dL = 0.0
        for t in rT:
            a = ai[t]
            b = bs[t]
            rst = Rs[t]
            ra = rst[a]
            if a == b:
                acc = 0.0
                for j in rd:
                    r = ra[j]
                    acc += fabs(r + x[j] - xp[j]) - fabs(r)
                dL += wS[t] * acc
            else:
                rb = rst[b]
                acc = 0.0
                for j in rd:
                    r = ra[j]
                    q = rb[j]
                    acc += fabs(r + x[j]) - fabs(r) + fabs(q - xp[j]) - fabs(q)
                rnt = Rn[t]
                na = rnt[a]
                nb = rnt[b]
                dL += wS[t] * acc + wN[t] * (fabs(na + 1.0) - fabs(na) + fabs(nb - 1.0) - fabs(nb))
        lqs = lqp[s]
        logr = lq[i] - lqs - dL
        if logr >= 0.0 or lu < logr:
            for t in rT:
                a = ai[t]
                b = bs[t]
                rst = Rs[t]
                ra = rst[a]
                if a == b:
                    for j in rd:
                        ra[j] += x[j] - xp[j]
                else:
                    rb = rst[b]
                    for j in rd:
                        ra[j] += x[j]
                        rb[j] -= xp[j]
                    rnt = Rn[t]
                    rnt[a] += 1.0
                    rnt[b] -= 1.0
            X[i * d:(i + 1) * d] = XP[s * d:(s + 1) * d]
            A[i * T:(i + 1) * T] = B[s * T:(s + 1) * T]
            lq[i] = lqs
            L += dL
            accepted[s] = 1
        trace[s + 1] = L
