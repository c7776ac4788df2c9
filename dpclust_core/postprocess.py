"""MCMC postprocessing of iterative DP algorithms (Lee & Kifer, arXiv:1609.03251).

DP k-means (DPLloyd, the paper's Algorithm 1) releases, in every round ``t = 1..T``, a noisy count
``ñ_k^(t)`` and a noisy coordinate sum ``s̃_k^(t)`` of every Voronoi cell of the centroids
``c^(t-1)`` it used, and usually only the last centroids ``c^(T)`` are kept. The intermediate
releases were paid for (sequential composition) and carry information about the data that ``c^(T)``
alone discards. This module turns them back into an estimate (spec ``mcmc-postprocessing.md``):

* :class:`Transcript` — the whole released sequence: the centroids actually used (``(T+1, K, d)``,
  index 0 = the public initial centroids), the noisy sums ``(T, K, d)`` and counts ``(T, K)``, and the
  Laplace scale of every released statistic, per round. Built from any DPLloyd run with
  :meth:`Transcript.from_dplloyd` (the paper's own setting is ``DPLloyd(variant="lee_kifer")``: unit
  L1 ball, ``Lap(2T/ε)`` on every count and coordinate sum).
* :func:`transcript_log_likelihood` / :func:`transcript_loss` — the exact factorised Laplace
  likelihood of the whole transcript given a dataset (spec §2.1): round ``t``'s observations are
  compared with the statistics of the data in the cells of ``c^(t-1)``.
* :func:`consistent_l1` — the consistency step of §3.2 (constrained maximum likelihood under Laplace
  noise = constrained weighted L1 fit) in the closed form of spec §3: weighted medians of the per-round
  totals and a same-sign reallocation, which attains the L1 lower bound.
* :class:`MCMCPostprocessor` — the paper's Metropolis–Hastings sampler over synthetic datasets with the
  Gaussian-mixture proposal (Eq. 1), the labelled Hastings correction of §3.3 or its marginal
  (Rao-Blackwellised) variant, best-state tracking, and a final non-private k-means on the best
  sampled dataset (spec §4, §10.6).

Privacy: everything here is **post-processing**. The postprocessor takes only a :class:`Transcript`
(released values and public parameters) and public sizes, and uses its own random generator; it never
receives the private data or the mechanism's noise, so it spends no privacy budget.
"""
from __future__ import annotations

import math
import numbers
import time
from dataclasses import dataclass, field

import numpy as np

from ._validation import check_positive_int, check_rng
from .kmeans.lloyd import _assign_t, _kmeanspp, _stats_t, project_l1_ball
from .metrics import squared_distances

__all__ = [
    "Transcript",
    "ConsistentStatistics",
    "consistent_l1",
    "l1_consistency_objective",
    "l1_consistency_lower_bound",
    "partition_statistics",
    "transcript_loss",
    "transcript_log_likelihood",
    "project_l1_ball",
    "kmeans_best",
    "pooled_proposal_kmeans",
    "MCMCPostprocessor",
]


# --------------------------------------------------------------------------------------------------
# geometry helpers
# --------------------------------------------------------------------------------------------------
def _project_domain(V, domain, radius):
    if domain == "l1":
        return project_l1_ball(V, radius)
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
    try:
        arr = np.asarray(a, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a numeric array") from None
    if shape is not None and arr.shape != shape:
        raise ValueError(f"{name} must have shape {shape}, got {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


@dataclass(frozen=True)
class Transcript:
    """Everything an iterative DP k-means run released (spec §1.3), in the scaled domain.

    Attributes
    ----------
    centroids : ndarray (T+1, K, d)
        ``centroids[t-1]`` are the centroids **actually used** to partition the data in round ``t``
        (index 0 = the public, data-independent initial centroids ``c^(0)``); ``centroids[T]`` is the
        final output ``c^(T)``, which partitions nothing in the likelihood.
    s_tilde : ndarray (T, K, d)
        Noisy cluster sums ``s̃_k^(t)`` (Algorithm 1).
    n_tilde : ndarray (T, K)
        Noisy cluster counts ``ñ_k^(t)``.
    count_scale, sum_scale : ndarray (T,)
        Laplace scale of every noisy count / every noisy coordinate sum of round ``t``
        (``2T/ε`` for all rounds in the paper's setting).
    domain : {"l1", "box"}
        The public data domain in scaled units: the L1 ball ``||x||_1 <= radius`` (paper) or the box
        ``[-radius, radius]^d`` (the thesis's DPLloyd).
    radius : float
        ``r`` of the domain.
    bounds : tuple (low, high) of arrays (d,), or None
        Public bounds of the original units (to map centroids back), if known.
    epsilon : float or None
        The budget the run spent (informational).
    """

    centroids: np.ndarray
    s_tilde: np.ndarray
    n_tilde: np.ndarray
    count_scale: np.ndarray
    sum_scale: np.ndarray
    domain: str = "box"
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
        cs = _as_finite(np.broadcast_to(np.asarray(self.count_scale, dtype=float), (T,)) if np.ndim(
            self.count_scale) == 0 else self.count_scale, "count_scale", (T,))
        ss = _as_finite(np.broadcast_to(np.asarray(self.sum_scale, dtype=float), (T,)) if np.ndim(
            self.sum_scale) == 0 else self.sum_scale, "sum_scale", (T,))
        if np.any(cs <= 0):
            raise ValueError(f"count_scale must be > 0 in every round, got {cs}")
        if np.any(ss <= 0):
            raise ValueError(f"sum_scale must be > 0 in every round, got {ss}")
        if self.domain not in ("l1", "box"):
            raise ValueError(f"domain must be 'l1' or 'box', got {self.domain!r}")
        if not (isinstance(self.radius, numbers.Real) and np.isfinite(self.radius) and self.radius > 0):
            raise ValueError(f"radius must be finite and > 0, got {self.radius!r}")
        bounds = self.bounds
        if bounds is not None:
            lo = _as_finite(np.broadcast_to(np.asarray(bounds[0], dtype=float), (d,)), "bounds low")
            hi = _as_finite(np.broadcast_to(np.asarray(bounds[1], dtype=float), (d,)), "bounds high")
            if np.any(lo >= hi):
                raise ValueError("bounds must have low < high in every dimension")
            bounds = (lo.copy(), hi.copy())
        for name, val in (("centroids", C), ("s_tilde", S), ("n_tilde", N), ("count_scale", cs),
                          ("sum_scale", ss)):
            val = np.array(val, dtype=float)
            val.setflags(write=False)
            object.__setattr__(self, name, val)
        object.__setattr__(self, "bounds", bounds)
        object.__setattr__(self, "radius", float(self.radius))

    # shapes -------------------------------------------------------------------------------------
    @property
    def n_rounds(self) -> int:
        """T, the number of released rounds."""
        return self.s_tilde.shape[0]

    @property
    def n_clusters(self) -> int:
        return self.s_tilde.shape[1]

    @property
    def n_features(self) -> int:
        return self.s_tilde.shape[2]

    @property
    def final_centroids(self) -> np.ndarray:
        """``c^(T)``, what DP k-means itself outputs (scaled domain)."""
        return self.centroids[-1]

    def to_original(self, C) -> np.ndarray:
        """Map centroids from the scaled domain back to the original units with the linear map of the
        public ``bounds`` (what ``DPLloyd.cluster_centers_`` uses, for every variant). Identity without bounds."""
        C = np.asarray(C, dtype=float)
        if self.bounds is None:
            return C.copy()
        lo, hi = self.bounds
        return (C + self.radius) / (2 * self.radius) * (hi - lo) + lo

    def to_domain(self, X) -> np.ndarray:
        """Map data in original units into the scaled domain as DPLloyd does: linear map of the public
        ``bounds`` with clipping, then (L1 domain) projection onto the ball. Identity map without bounds
        (but still clipped / projected)."""
        X = np.asarray(X, dtype=float)
        if self.bounds is not None:
            lo, hi = self.bounds
            X = (np.clip(X, lo, hi) - lo) / (hi - lo) * (2 * self.radius) - self.radius
        return _project_domain(X, self.domain, self.radius)

    # construction -------------------------------------------------------------------------------
    @classmethod
    def from_history(cls, history, *, domain="box", radius=1.0, bounds=None, epsilon=None, meta=None):
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
        except ValueError as exc:
            raise ValueError(f"history has inconsistent shapes across rounds: {exc}") from None
        if cs.ndim != 1 or ss.ndim != 1:
            raise ValueError("count_scale and sum_scale must be scalars per round")
        return cls(C, S, N, cs, ss, domain=domain, radius=radius, bounds=bounds, epsilon=epsilon,
                   meta=dict(meta or {}))

    @classmethod
    def from_dplloyd(cls, est):
        """Build the transcript of a fitted ``DPLloyd`` estimator (any variant) from its ``history_``.

        ``variant="lee_kifer"`` is the paper's setting (unit L1 ball of radius ``r``); the other
        variants use the box ``[-r, r]^d``, whose public ``bounds`` are kept so that centroids can be
        mapped back to the original units.
        """
        history = getattr(est, "history_", None)
        if history is None:
            raise ValueError("est must be a fitted DPLloyd estimator (no history_)")
        variant = getattr(est, "variant", "improved")
        r = float(getattr(est, "r_", getattr(est, "r", 1.0)))
        domain = "l1" if variant == "lee_kifer" else "box"
        bounds = getattr(est, "bounds_", None)
        ledger = getattr(est, "ledger_", None)
        eps = float(ledger.epsilon) if ledger is not None else None
        return cls.from_history(history, domain=domain, radius=r, bounds=bounds, epsilon=eps,
                                meta={"variant": variant})


# --------------------------------------------------------------------------------------------------
# likelihood of the transcript (spec §2.1)
# --------------------------------------------------------------------------------------------------
def _check_transcript(transcript, name="transcript"):
    if not isinstance(transcript, Transcript):
        raise ValueError(f"{name} must be a Transcript (released values only; the postprocessor never "
                         f"takes raw data), got {type(transcript).__name__}")
    return transcript


def _assign_rounds(X, centroids_used):
    """(n, T) cell index of every point under each round's partition centroids (ties -> lowest index),
    computed by DPLloyd's own assignment function, so a dataset is partitioned exactly as the mechanism
    partitioned it."""
    Xt = np.ascontiguousarray(np.asarray(X, dtype=float).T)
    out = np.empty((Xt.shape[1], len(centroids_used)), dtype=np.intp)
    for t, C in enumerate(centroids_used):
        out[:, t] = _assign_t(Xt, np.asarray(C, dtype=float))
    return out


def _round_statistics(X, A, K):
    """Sums (T, K, d) and counts (T, K) of the rows of X in the cells given by the (n, T) index array A."""
    Xt = np.ascontiguousarray(np.asarray(X, dtype=float).T)
    T = A.shape[1]
    S = np.empty((T, K, Xt.shape[0]))
    N = np.empty((T, K))
    for t in range(T):  # one bincount per round and dimension (no loop over points)
        N[t], S[t] = _stats_t(Xt, np.ascontiguousarray(A[:, t]), K)
    return S, N


def partition_statistics(X, transcript):
    """Sums ``S (T, K, d)`` and counts ``N (T, K)`` of dataset ``X`` in the cells of ``c^(t-1)``, t=1..T."""
    tr = _check_transcript(transcript)
    X = np.asarray(X, dtype=float).reshape(-1, tr.n_features)
    return _round_statistics(X, _assign_rounds(X, tr.centroids[:-1]), tr.n_clusters)


def _observations(tr, obs, consistency):
    if obs not in ("consistent", "raw"):
        raise ValueError(f"obs must be 'consistent' or 'raw', got {obs!r}")
    if obs == "raw" or not consistency:
        return tr.s_tilde, tr.n_tilde
    cs = consistent_l1(tr.s_tilde, tr.n_tilde, 1.0 / tr.sum_scale, 1.0 / tr.count_scale)
    return cs.s_hat, cs.n_hat


def transcript_loss(X, transcript, *, obs="consistent", temperature=1.0):
    """Negative log target ``L(D)`` of spec §2.2/§4.1 (so ``π(D) = exp(-L)``).

    ``L = temperature · Σ_t Σ_k ( ||y_k^(t) − S_k(D, c^(t-1))||_1 / b_S^(t)``
    ``+ |u_k^(t) − N_k(D, c^(t-1))| / b_N^(t) )``
    with ``(y, u)`` the consistent values (``obs="consistent"``, the paper's choice) or the raw noisy ones.
    With ``obs="raw"`` and ``temperature=1`` this is minus the Laplace log-likelihood of the transcript
    up to its constant (see :func:`transcript_log_likelihood`).
    """
    tr = _check_transcript(transcript)
    y, u = _observations(tr, obs, True)
    S, N = partition_statistics(X, tr)
    per_t = (np.abs(y - S).sum(axis=(1, 2)) / tr.sum_scale + np.abs(u - N).sum(axis=1) / tr.count_scale)
    return float(temperature * per_t.sum())


def transcript_log_likelihood(X, transcript, *, per_round=False):
    """Exact ``ln P[transcript | D = X]`` under the Laplace mechanism (spec §2.1, paper §3.1 corrected).

    ``ln P = Σ_t [ −K·d·ln(2 b_S^(t)) − K·ln(2 b_N^(t))``
    ``− Σ_k ||s̃_k^(t) − S_k||_1 / b_S^(t) − Σ_k |ñ_k^(t) − N_k| / b_N^(t) ]``
    where ``S_k, N_k`` are the statistics of ``X`` in the cells of the centroids of round ``t − 1``.
    With ``per_round=True`` returns the ``(T,)`` per-round terms.
    """
    tr = _check_transcript(transcript)
    S, N = partition_statistics(X, tr)
    K, d = tr.n_clusters, tr.n_features
    per_t = (-K * d * np.log(2 * tr.sum_scale) - K * np.log(2 * tr.count_scale)
             - np.abs(tr.s_tilde - S).sum(axis=(1, 2)) / tr.sum_scale
             - np.abs(tr.n_tilde - N).sum(axis=1) / tr.count_scale)
    return per_t if per_round else float(per_t.sum())


# --------------------------------------------------------------------------------------------------
# consistency (spec §3)
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


def consistent_l1(s_tilde, n_tilde, sum_weights=None, count_weights=None) -> ConsistentStatistics:
    """The consistency step of the paper's §3.2 in closed form (spec §3).

    Minimises ``Σ_t w_S^(t) Σ_k ||ŝ_k^(t) − s̃_k^(t)||_1 + w_N^(t) Σ_k |n̂_k^(t) − ñ_k^(t)|`` (the
    constrained Laplace MLE when ``w = 1/scale``) subject to: the grand sum ``Σ_k ŝ_k^(t)`` and the
    grand count ``Σ_k n̂_k^(t)`` are the same in every round, and ``n̂ ≥ 0``. The problem separates
    per sum coordinate and for the counts; each part is solved exactly:

    * sums, coordinate j: common total ``m_j* = weighted median_t(R_{t,j})`` with ``R_{t,j} = Σ_k s̃_{k,j}^(t)``;
      equal shift ``ŝ_{k,j}^(t) = s̃_{k,j}^(t) + (m_j* − R_{t,j})/K``;
    * counts: clip ``max(ñ, 0)``, ``P_t = Σ_k max(ñ_k^(t), 0)``, ``m_N* = weighted median_t(P_t)``;
      rescale each row proportionally to total ``m_N*`` (``m_N*/K`` each if ``P_t = 0``).

    Every move within a row has the same sign, which is why the lower bound
    :func:`l1_consistency_lower_bound` is attained. Weights default to 1 (equal scales, the paper).
    """
    s = np.asarray(s_tilde, dtype=float)
    n = np.asarray(n_tilde, dtype=float)
    if s.ndim != 3 or n.shape != s.shape[:2]:
        raise ValueError(f"s_tilde must be (T,K,d) and n_tilde (T,K); got {s.shape} and {n.shape}")
    T, K, _ = s.shape
    ws = np.ones(T) if sum_weights is None else np.broadcast_to(np.asarray(sum_weights, float), (T,))
    wn = np.ones(T) if count_weights is None else np.broadcast_to(np.asarray(count_weights, float), (T,))
    if np.any(~np.isfinite(ws)) or np.any(ws <= 0) or np.any(~np.isfinite(wn)) or np.any(wn <= 0):
        raise ValueError("sum_weights and count_weights must be finite and > 0")
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


def l1_consistency_objective(s_hat, n_hat, s_tilde, n_tilde, sum_weights=None, count_weights=None) -> float:
    """The weighted L1 objective of :func:`consistent_l1` at ``(s_hat, n_hat)``."""
    T = np.shape(s_tilde)[0]
    ws = np.ones(T) if sum_weights is None else np.broadcast_to(np.asarray(sum_weights, float), (T,))
    wn = np.ones(T) if count_weights is None else np.broadcast_to(np.asarray(count_weights, float), (T,))
    return float((ws * np.abs(np.asarray(s_hat) - s_tilde).sum(axis=(1, 2))).sum()
                 + (wn * np.abs(np.asarray(n_hat) - n_tilde).sum(axis=1)).sum())


def l1_consistency_lower_bound(s_tilde, n_tilde, sum_weights=None, count_weights=None) -> float:
    """Lower bound on the objective over all feasible points (spec §3):
    ``Σ_j min_m Σ_t w_S^(t)|m − R_{t,j}| + min_{m≥0} Σ_t w_N^(t) [Σ_k max(−ñ_k^(t),0) + |m − P_t|]``.

    Per round, ``Σ_k |x_k − a_k| ≥ |Σ_k x_k − Σ_k a_k|`` (triangle inequality); for counts the
    negative parts must be paid before the clipped total can move. The minimum over the common total
    is found here by evaluating at every breakpoint (no use of the median formula).
    """
    s = np.asarray(s_tilde, dtype=float)
    n = np.asarray(n_tilde, dtype=float)
    T = s.shape[0]
    ws = np.ones(T) if sum_weights is None else np.broadcast_to(np.asarray(sum_weights, float), (T,))
    wn = np.ones(T) if count_weights is None else np.broadcast_to(np.asarray(count_weights, float), (T,))
    R = s.sum(axis=1)                                        # (T, d)
    # candidate common totals = the breakpoints R_{t,j}
    cost_s = (ws[None, :, None] * np.abs(R[:, None, :] - R[None, :, :])).sum(axis=1).min(axis=0).sum()
    P = np.maximum(n, 0).sum(axis=1)
    neg = np.maximum(-n, 0).sum(axis=1)
    cost_n = (wn[None, :] * np.abs(P[:, None] - P[None, :])).sum(axis=1).min() + (wn * neg).sum()
    return float(cost_s + cost_n)


# --------------------------------------------------------------------------------------------------
# non-private k-means on the synthetic dataset (spec §4.6, §10.6)
# --------------------------------------------------------------------------------------------------
def _lloyd(X, C, max_iter=300, tol=1e-6):
    """Lloyd to convergence: stops when the assignment no longer changes or no centre moves by more than
    ``tol`` (or after ``max_iter`` iterations); an empty cluster keeps its centre."""
    C = np.array(C, dtype=float)
    K, d = C.shape
    prev = None
    for _ in range(max_iter):
        D = X @ (-2.0 * C.T)
        D += (C * C).sum(axis=1)
        lab = np.argmin(D, axis=1)
        if prev is not None and np.array_equal(lab, prev):
            break
        prev = lab
        cnt = np.bincount(lab, minlength=K)
        sums = np.stack([np.bincount(lab, weights=X[:, j], minlength=K) for j in range(d)], axis=1)
        newC = C.copy()
        nz = cnt > 0
        newC[nz] = sums[nz] / cnt[nz, None]
        shift = float(np.max(np.abs(newC - C)))
        C = newC
        if shift <= tol:
            break
    return C, float(squared_distances(X, C).min(axis=1).sum())


def kmeans_best(X, n_clusters, *, n_init=10, extra_inits=(), random_state=None, max_iter=300, tol=1e-6):
    """Non-private k-means: Lloyd from ``n_init`` k-means++ seeds plus each array in ``extra_inits``;
    returns ``(centers, wcss)`` of the run with the lowest WCSS **on X** (spec §10.6)."""
    X = np.asarray(X, dtype=float)
    rng = check_rng(random_state)
    K = check_positive_int(n_clusters, "n_clusters")
    starts = [np.asarray(c, dtype=float) for c in extra_inits]
    starts += [_kmeanspp(X, K, rng) for _ in range(n_init)]
    if not starts:
        raise ValueError("kmeans_best needs n_init >= 1 or an extra init")
    best = None
    for C0 in starts:
        C, w = _lloyd(X, C0, max_iter, tol)
        if best is None or w < best[1]:
            best = (C, w)
    return best


# --------------------------------------------------------------------------------------------------
# the proposal (paper Eq. 1)
# --------------------------------------------------------------------------------------------------
def _proposal_parameters(tr, consistency, project_centroids):
    """Centres ĉ (T,K,d), weights ω (T,K), observations (y, u), size estimate m_N (spec §3, §4.2)."""
    T, K, d = tr.n_rounds, tr.n_clusters, tr.n_features
    if consistency:
        cs = consistent_l1(tr.s_tilde, tr.n_tilde, 1.0 / tr.sum_scale, 1.0 / tr.count_scale)
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
    base = np.floor(raw).astype(int)
    rest = total - base.sum()
    if rest > 0:
        order = np.argsort(-(raw - base), kind="stable")
        base[order[:rest]] += 1
    return base


def _log_q_marginal(X, c_hat, omega, delta):
    """ln q(x) + const of the pooled proposal (1/T) Σ_t Σ_k ω_k^(t) N(x; ĉ_k^(t), δI) (logsumexp)."""
    T, K, d = c_hat.shape
    C = c_hat.reshape(T * K, d)
    w = omega.reshape(T * K)
    keep = w > 0
    lw = np.log(w[keep])
    out = np.empty(X.shape[0])
    for s in range(0, X.shape[0], 20000):
        Z = lw[None, :] - squared_distances(X[s:s + 20000], C[keep]) / (2 * delta)
        mx = Z.max(axis=1)
        out[s:s + 20000] = mx + np.log(np.exp(Z - mx[:, None]).sum(axis=1))
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
    x = c_hat[t, z] + math.sqrt(delta) * rng.standard_normal((n, d))
    return t, z, x


def pooled_proposal_kmeans(transcript, n_points=None, *, proposal_var=1e-3, consistency=True,
                           project_centroids=False, n_init=10, random_state=None):
    """Cheap baseline (spec §6 ablation ii): k-means on ``M`` iid draws from the pooled proposal —
    what the sampler would output if it accepted every move. Returns centres in scaled units."""
    tr = _check_transcript(transcript)
    rng = check_rng(random_state)
    c_hat, omega, mN = _proposal_parameters(tr, consistency, project_centroids)
    M = _resolve_n_points(n_points, mN)
    _, _, X = _sample_proposal(M, c_hat, omega, proposal_var, rng)
    C, _ = kmeans_best(X, tr.n_clusters, n_init=n_init, extra_inits=[tr.final_centroids], random_state=rng)
    return C


def _resolve_n_points(n_points, mN):
    if n_points is None:
        M = int(round(mN))
        if M < 1:
            raise ValueError("the transcript's consistent count total rounds to 0; pass n_points (public N)")
        return M
    return check_positive_int(n_points, "n_points")


# --------------------------------------------------------------------------------------------------
# the sampler (spec §4)
# --------------------------------------------------------------------------------------------------
class MCMCPostprocessor:
    """Lee & Kifer's MCMC postprocessing of a DP k-means transcript (paper §3; spec §4).

    The state is a synthetic dataset ``D`` of ``M`` points (``M`` = the public ``n_points`` or, by
    default, the consistent count total ``m_N*``). It starts with ``n̂_k^(T)`` copies of every
    ``ĉ_k^(T)`` (largest-remainder rounding). Each step replaces one uniformly chosen point ``x`` by
    ``x'`` from the pooled Gaussian mixture of Eq. 1: ``t' ~ U{1..T}``, ``z' ~ Cat(ω^(t'))``,
    ``x' ~ N(ĉ_{z'}^(t'), δI)`` (δ = ``proposal_var`` is a **variance**), and accepts with probability
    ``min(1, π(D')/π(D) · q(x)/q(x'))`` where ``π(D) = exp(−L(D))`` is the Laplace likelihood of the
    whole transcript (:func:`transcript_loss`). Only the two cells that ``x`` leaves and ``x'`` enters
    change in each round ``t``, so a step costs ``O(T·d)`` after the proposal's ``T`` assignments
    (precomputed in bulk): the cost per step does not depend on ``M``.

    Parameters
    ----------
    n_steps : int
        Number of MH proposals (paper: 30,000). Ignored if ``n_sweeps`` is given.
    n_sweeps : float, optional
        Chain length in sweeps: ``n_steps = round(n_sweeps · M)`` (spec §10.7).
    proposal_var : float
        δ, the variance of every proposal component (paper: 0.001).
    hastings : {"labelled", "marginal", "none"}
        ``"labelled"`` (paper §3.3): ``q(x)/q(x')`` evaluated with the mixture labels ``(t, z)`` each point
        was drawn with — an exact MH kernel on the space of (dataset, labels). ``"marginal"``:
        the Rao-Blackwellised ratio of the pooled mixture densities. ``"none"``: **incorrect on purpose**
        (drops the Hastings ratio, so the chain does not target π); only for the ablation that shows
        why the correction is needed.
    obs : {"consistent", "raw"}
        Observations inside π: the consistent values (paper) or the raw noisy ones (exact posterior
        under a flat prior). Partition centroids are always the raw centroids used by the mechanism.
    consistency : bool
        Apply the consistency step to the proposal parameters (and to ``obs="consistent"``).
    domain : {"none", "reject"}
        ``"none"`` (paper): proposals may leave the public domain. ``"reject"``: proposals outside it
        have π = 0 and are rejected; the initial points are then projected into the domain.
    project_centroids : bool
        Project the proposal centres ĉ onto the domain (an extension, spec §3; useful at small ε).
    temperature : float
        Multiplier of ``L`` (1 = the Laplace likelihood with λ = 1/b = ε/(2T)).
    n_init : int
        k-means++ restarts of the final k-means on the best dataset (plus one started at ``c^(T)``).
    random_state : None, int or Generator
        The postprocessor's **own** randomness (never the mechanism's).

    Attributes
    ----------
    cluster_centers_ : ndarray (K, d)
        Final centres in the original units (the transcript's public ``bounds``; scaled units without bounds),
        comparable with ``DPLloyd.cluster_centers_``.
    cluster_centers_domain_ : ndarray (K, d)
        The same in the scaled domain.
    acceptance_rate_ : float
    log_target_trace_ : ndarray (n_steps + 1,)
        ``ln π(D^(τ)) = −L`` after every step τ (index 0 = initial state).
    best_log_target_, best_step_ : the best visited state (lowest L; τ = 0 included).
    best_dataset_, initial_dataset_, final_dataset_ : ndarray (M, d), scaled units.
    accepted_, proposal_index_, proposals_ : the pre-drawn moves and which were accepted (for replay).
    coverage_ : fraction of the M initial points replaced at least once.
    timings_ : dict of wall-clock seconds spent in the precomputation, the MH loop and the final k-means.
    """

    def __init__(self, n_steps=30_000, *, n_sweeps=None, proposal_var=1e-3, hastings="labelled",
                 obs="consistent", consistency=True, domain="none", project_centroids=False,
                 temperature=1.0, n_init=10, random_state=None):
        self.n_steps = n_steps
        self.n_sweeps = n_sweeps
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
    def _validate(self):
        check_positive_int(self.n_steps, "n_steps", minimum=0)
        if self.n_sweeps is not None:
            if not (isinstance(self.n_sweeps, numbers.Real) and np.isfinite(self.n_sweeps) and self.n_sweeps >= 0):
                raise ValueError(f"n_sweeps must be a finite number >= 0, got {self.n_sweeps!r}")
        pv = self.proposal_var
        if not (isinstance(pv, numbers.Real) and np.isfinite(pv) and pv > 0):
            raise ValueError(f"proposal_var must be finite and > 0, got {pv!r}")
        if self.hastings not in ("labelled", "marginal", "none"):
            raise ValueError(f"hastings must be 'labelled', 'marginal' or 'none', got {self.hastings!r}")
        if self.obs not in ("consistent", "raw"):
            raise ValueError(f"obs must be 'consistent' or 'raw', got {self.obs!r}")
        if self.domain not in ("none", "reject"):
            raise ValueError(f"domain must be 'none' or 'reject', got {self.domain!r}")
        tmp = self.temperature
        if not (isinstance(tmp, numbers.Real) and np.isfinite(tmp) and tmp > 0):
            raise ValueError(f"temperature must be finite and > 0, got {tmp!r}")
        check_positive_int(self.n_init, "n_init", minimum=0)

    def fit(self, transcript, n_points=None):
        """Run the sampler on ``transcript`` (a :class:`Transcript`; raw data is refused).

        ``n_points`` is the public dataset size ``M`` of the synthetic dataset; by default the
        consistent noisy count total ``round(m_N*)`` (the paper treats N as unknown).
        """
        self._validate()
        tr = _check_transcript(transcript)
        rng = check_rng(self.random_state)
        tic = time.perf_counter()
        T, K, d = tr.n_rounds, tr.n_clusters, tr.n_features
        delta = float(self.proposal_var)
        c_hat, omega, mN = _proposal_parameters(tr, self.consistency, self.project_centroids)
        y, u = _observations(tr, self.obs, self.consistency)
        M = _resolve_n_points(n_points, mN)
        n_steps = int(round(self.n_sweeps * M)) if self.n_sweeps is not None else int(self.n_steps)
        wS = (self.temperature / tr.sum_scale).tolist()
        wN = (self.temperature / tr.count_scale).tolist()

        # ---- initial state: n_init_k copies of ĉ_k^(T), labels (T, k) --------------------------
        counts0 = _largest_remainder(omega[-1], M)
        lab0 = np.repeat(np.arange(K), counts0)
        X0 = c_hat[-1][lab0]
        if self.domain == "reject":
            X0 = _project_domain(X0, tr.domain, tr.radius)
        A0 = _assign_rounds(X0, tr.centroids[:-1])                       # (M, T)
        S0, N0 = _round_statistics(X0, A0, K)
        with np.errstate(divide="ignore"):
            log_omega = np.log(omega)
        if self.hastings == "labelled":
            lq0 = log_omega[-1][lab0] - ((X0 - c_hat[-1][lab0]) ** 2).sum(axis=1) / (2 * delta)
        elif self.hastings == "marginal":
            lq0 = _log_q_marginal(X0, c_hat, omega, delta)
        else:
            lq0 = np.zeros(M)

        # ---- pre-draw every state-independent quantity (spec §7.3) -------------------------------
        I = rng.integers(M, size=n_steps)
        tp, zp, XP = _sample_proposal(n_steps, c_hat, omega, delta, rng)
        B = _assign_rounds(XP, tr.centroids[:-1]) if n_steps else np.zeros((0, T), dtype=int)
        if self.hastings == "labelled":
            lqp = log_omega[tp, zp] - ((XP - c_hat[tp, zp]) ** 2).sum(axis=1) / (2 * delta)
        elif self.hastings == "marginal":
            lqp = _log_q_marginal(XP, c_hat, omega, delta) if n_steps else np.zeros(0)
        else:
            lqp = np.zeros(n_steps)
        logU = np.log(rng.random(n_steps))
        if self.domain == "reject":
            logU[~_in_domain(XP, tr.domain, tr.radius)] = np.inf            # never accepted

        # ---- the sequential MH loop: Python floats and lists (numpy scalar ops are ~1 µs each) ----
        Rs = (y - S0).tolist()           # residual y - S, per (t, k, j)
        Rn = (u - N0).tolist()           # residual u - N, per (t, k)
        L0 = float(sum(wS[t] * np.abs(y[t] - S0[t]).sum() + wN[t] * np.abs(u[t] - N0[t]).sum()
                       for t in range(T)))
        Xl = X0.tolist()
        Al = A0.tolist()
        lq = lq0.tolist()
        t_pre = time.perf_counter()
        accepted, trace = _mh_loop(n_steps, I.tolist(), XP.tolist(), B.tolist(), lqp.tolist(), logU.tolist(),
                                   Xl, Al, lq, Rs, Rn, wS, wN, T, d, L0)
        t_loop = time.perf_counter()
        accepted = np.asarray(accepted, dtype=bool)
        trace = -np.asarray(trace)
        best_step = int(np.argmax(trace))                                 # first maximum (lowest L)

        # ---- best state by replaying the accepted moves up to best_step ---------------------------
        self.initial_dataset_ = X0
        self.final_dataset_ = np.asarray(Xl, dtype=float).reshape(M, d)
        self.best_dataset_ = self._replay(X0, I, XP, accepted, best_step)
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

        # ---- final non-private k-means on the best dataset (spec §10.6) --------------------------
        C, w = kmeans_best(self.best_dataset_, K, n_init=self.n_init, extra_inits=[tr.final_centroids],
                           random_state=rng)
        self.cluster_centers_domain_ = C
        self.wcss_sampled_ = w
        t_end = time.perf_counter()
        self.timings_ = {"precompute": t_pre - tic, "mh_loop": t_loop - t_pre,
                         "final_kmeans_and_replay": t_end - t_loop}
        self.cluster_centers_ = tr.to_original(C)
        self.transcript_ = tr
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

    def predict(self, X):
        """Index of the nearest of ``cluster_centers_`` for each row of ``X`` (same units as the centres)."""
        if not hasattr(self, "cluster_centers_"):
            raise ValueError("MCMCPostprocessor is not fitted")
        X = np.asarray(X, dtype=float)
        return np.argmin(squared_distances(X, self.cluster_centers_), axis=1)


def _mh_loop(n_steps, I, XP, B, lqp, logU, X, A, lq, Rs, Rn, wS, wN, T, d, L):
    """The sequential MH loop on Python lists (O(T·d) per step; spec §4.4 incremental ΔL).

    Residuals ``Rs[t][k][j] = y − S`` and ``Rn[t][k] = u − N``: removing ``x`` from cell ``a`` adds ``x`` to
    the sum residual and 1 to the count residual; adding ``x'`` to cell ``b`` subtracts them. When
    ``a = b`` only the sum of that cell changes (by ``x' − x``); counts do not.
    Returns (accepted flags, L after every step including step 0).
    """
    fabs = abs
    rT = range(T)
    rd = range(d)
    accepted = [False] * n_steps
    trace = [0.0] * (n_steps + 1)
    trace[0] = L
    for s in range(n_steps):
        lu = logU[s]
        if lu == math.inf:
            trace[s + 1] = L
            continue
        i = I[s]
        x = X[i]
        xp = XP[s]
        ai = A[i]
        bs = B[s]
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
        logr = lq[i] - lqp[s] - dL
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
            X[i] = xp
            A[i] = bs
            lq[i] = lqp[s]
            L += dL
            accepted[s] = True
        trace[s + 1] = L
    return accepted, trace
