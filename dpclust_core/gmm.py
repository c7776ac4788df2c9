"""Private learning of separated Gaussian mixtures by reduction to k-tuple clustering.

Cohen, Kaplan, Mansour, Stemmer & Tsfadia, *Differentially-Private Clustering of Easy Instances*
(ICML 2021), §6; spec ``ktuple-and-gaussian-mixtures.md`` §2.8 (algorithms), §3 (experiments), §4 (accounting).

The reduction (:class:`PrivateGaussianMixture`):

1. split the sample **by index** into ``X1`` (``t`` chunks of ``n'`` points) and ``X2`` (the rest);
2. ``SampleTuples``: run a non-private labeling algorithm on every chunk of ``X1`` and turn chunk ``j``
   into the k-tuple of its per-label **averages** (not raw points, §6.3);
3. private k-tuple clustering ``G`` on the ``t`` tuples (:mod:`dpclust_core.ktuple`) gives private
   centres ``ĉ_1..ĉ_k`` (this is the *private separation*);
4. every fresh point of ``X2`` goes to its nearest ``ĉ_i``; a private single-Gaussian learner ``M`` runs
   on each cluster ``X2^i`` and Laplace noise on the counts gives the weights;
5. the weights are post-processed onto the simplex.

Neighbouring notion: **replace-one record, n public** (the paper's): neighbours differ in the record at one
*position* of the data set, so the order of the rows must not depend on their values (shuffle them with a
data-independent permutation first if it might; never sort by value). ``X1`` and ``X2`` are disjoint *index*
sets, so a replaced record lies in exactly one of them (parallel composition, Thm 6.1): the total is
``(max(ε_G, ε_X2), max(δ_G, δ_X2))``. The ledger records this with a parallel group of two parts.

The single-Gaussian learner implemented here (the paper leaves ``M`` abstract; its running example is
[KLSU19], the spec proposes CoinPress [BDKU20]) is a reconstruction [R] in the spirit of CoinPress:
``mean_steps`` clipped Gaussian-mechanism rounds for the means (the first centred at the private centre
``ĉ_i``, each later one at the previous released mean with a smaller public radius), then one clipped
Gaussian release of the scatter matrices around the released means; the noisy counts of the weight release
are the denominators; covariance eigenvalues are projected onto the public range ``[σ_min², σ_max²]``
(post-processing). The k learners are calibrated **jointly** to the replace-one sensitivity of the stacked
statistics (2 for the radius-normalised sums, ``√2 ρ₂²`` for the scatter matrices, L1 sensitivity 2 for the
counts), which also covers the case that the replaced record and its replacement fall in the same cluster
(see :func:`private_cluster_gaussians`).

Experiments (spec §3): :func:`simulate_chunk_means` (exact fast simulator of ``SampleTuples``),
:func:`separation_success_rate` / :func:`separation_sample_complexity` (the paper's Test1–Test3 criterion),
:class:`NaiveNoisyGaussianMixture` (the paper's naive baseline), :func:`parameter_errors`,
:func:`compare_methods`.

Everything in this module is for education: numpy's floating-point samplers are not exactly DP
(Mironov 2012).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from ._validation import (check_data, check_delta, check_epsilon, check_n_clusters, check_positive_int,
                          check_rng)
from .accounting import PrivacyLedger
from .mechanisms import gaussian_sigma, laplace_mechanism
from .metrics import assign, squared_distances

__all__ = [
    "MixtureParams",
    "paper_mixture",
    "random_separated_mixture",
    "sample_mixture",
    "mixture_separation",
    "kmeanspp_label_chunks",
    "sample_tuples",
    "simulate_chunk_means",
    "clipped_cluster_sums",
    "clipped_scatter_triu",
    "private_cluster_gaussians",
    "PrivateGaussianMixture",
    "naive_noise_sigma",
    "NaiveNoisyGaussianMixture",
    "match_components",
    "parameter_errors",
    "gaussian_tv_upper_bound",
    "mixture_tv_upper_bound",
    "mixture_tv_mc",
    "separates",
    "fit_private_gmm_simulated",
    "compare_methods",
    "make_k_tuple",
    "min_tuples",
    "separation_success_rate",
    "separation_sample_complexity",
]


# ============================================================================ mixtures (data)
@dataclass
class MixtureParams:
    """Parameters ``{(μ_i, Σ_i, w_i)}`` of a Gaussian k-mixture in R^d."""

    means: np.ndarray  #: (k, d)
    covariances: np.ndarray  #: (k, d, d)
    weights: np.ndarray  #: (k,), sums to 1

    @property
    def n_components(self) -> int:
        return self.means.shape[0]

    @property
    def n_features(self) -> int:
        return self.means.shape[1]


def _check_params(params: MixtureParams) -> MixtureParams:
    mu = check_data(params.means, "means")
    k, d = mu.shape
    cov = np.asarray(params.covariances, dtype=float)
    if cov.shape != (k, d, d) or not np.all(np.isfinite(cov)):
        raise ValueError(f"covariances must be a finite array of shape {(k, d, d)}, got {cov.shape}")
    w = np.asarray(params.weights, dtype=float)
    if w.shape != (k,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError("weights must be k non-negative numbers summing to 1")
    return MixtureParams(mu, cov, w)


def paper_mixture(n_components=2, n_features=2, R=20.0) -> MixtureParams:
    """The mixture of the paper's §7 experiments: uniform weights, components ``N(R·e_i, I_d)``.

    ``e_i`` is the i-th standard basis vector, so every pair of means is ``R√2`` apart (needs d >= k).
    """
    k = check_positive_int(n_components, "n_components")
    d = check_positive_int(n_features, "n_features")
    if d < k:
        raise ValueError(f"n_features={d} must be >= n_components={k} (means R·e_i)")
    if not (np.isfinite(R) and R > 0):
        raise ValueError(f"R must be finite and > 0, got {R!r}")
    means = float(R) * np.eye(k, d)
    return MixtureParams(means, np.repeat(np.eye(d)[None], k, axis=0), np.full(k, 1.0 / k))


def random_separated_mixture(n_components=3, n_features=2, separation=8.0, *, weights=None,
                             sigma_range=(0.5, 1.0), random_state=None) -> MixtureParams:
    """A random mixture whose means are ``separation``-separated in the paper's sense (§6.1.2, [R] form).

    ``‖μ_i − μ_j‖ >= s·max(σ_i, σ_j)`` with ``σ_i² = ‖Σ_i‖`` (operator norm). Covariances are random
    rotations of diagonal matrices with standard deviations in ``sigma_range``; the means are Gaussian, rescaled
    so that the closest pair meets the separation exactly, and centred at the origin.
    """
    k = check_positive_int(n_components, "n_components")
    d = check_positive_int(n_features, "n_features")
    rng = check_rng(random_state)
    lo, hi = (float(sigma_range[0]), float(sigma_range[1]))
    if not (0 < lo <= hi):
        raise ValueError(f"sigma_range must satisfy 0 < low <= high, got {sigma_range!r}")
    if not (np.isfinite(separation) and separation > 0):
        raise ValueError(f"separation must be finite and > 0, got {separation!r}")
    if weights is None:
        w = np.full(k, 1.0 / k)
    else:
        w = np.asarray(weights, dtype=float)
        if w.shape != (k,) or np.any(w <= 0):
            raise ValueError("weights must be k positive numbers")
        w = w / w.sum()
    covs = np.empty((k, d, d))
    for i in range(k):  # loop over components (k is small)
        q, r = np.linalg.qr(rng.normal(size=(d, d)))
        q = q * np.sign(np.diag(r))
        s = rng.uniform(lo, hi, size=d)
        covs[i] = (q * s**2) @ q.T
    sig = np.sqrt(np.linalg.eigvalsh(covs)[:, -1])
    means = rng.normal(size=(k, d))
    if k > 1:
        dist = np.sqrt(squared_distances(means, means))
        need = separation * np.maximum(sig[:, None], sig[None, :])
        iu = np.triu_indices(k, 1)
        means *= np.max(need[iu] / dist[iu])  # now every pair is at least its required distance
    means -= means.mean(axis=0)  # centred at the origin
    return MixtureParams(means, covs, w)


def sample_mixture(params: MixtureParams, n_samples, random_state=None):
    """Draw ``n_samples`` i.i.d. points; returns ``(X, labels)`` (labels i.i.d. from the weights)."""
    params = _check_params(params)
    n = check_positive_int(n_samples, "n_samples")
    rng = check_rng(random_state)
    k, d = params.means.shape
    labels = rng.choice(k, size=n, p=params.weights)
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    Z = rng.normal(size=(n, d))
    X = params.means[labels] + np.einsum("nij,nj->ni", chol[labels], Z) if d > 1 else \
        params.means[labels] + Z * chol[labels, 0, 0][:, None]
    return X, labels


def mixture_separation(params: MixtureParams) -> float:
    """The separation ``s = min_{i≠j} ‖μ_i − μ_j‖ / max(σ_i, σ_j)`` with ``σ_i² = ‖Σ_i‖`` ([R] form)."""
    params = _check_params(params)
    if params.n_components < 2:
        return math.inf
    sig = np.sqrt(np.linalg.eigvalsh(params.covariances)[:, -1])
    dist = np.sqrt(squared_distances(params.means, params.means))
    ratio = dist / np.maximum(sig[:, None], sig[None, :])
    np.fill_diagonal(ratio, np.inf)
    return float(ratio.min())


# ============================================================================ SampleTuples
def kmeanspp_label_chunks(chunks, n_clusters, random_state=None, *, n_init=3, max_iter=20):
    """Non-private labeling oracle ``A`` of ``SampleTuples``: k-means++ then Lloyd, **batched over chunks**.

    ``chunks`` has shape ``(t, n', d)``. Every chunk is clustered independently (k-means++ seeding [AV07]
    followed by ``max_iter`` Lloyd iterations, best of ``n_init`` restarts by inertia), all chunks at once
    in vectorised numpy. Returns ``(labels, means)`` of shapes ``(t, n')`` and ``(t, k, d)``: ``means[j, i]``
    is the average of the points of chunk ``j`` labelled ``i`` (an empty label keeps its seed).
    """
    C = np.asarray(chunks, dtype=float)
    if C.ndim != 3:
        raise ValueError(f"chunks must have shape (t, n', d), got {C.shape}")
    t, m, d = C.shape
    k = check_n_clusters(n_clusters, m)
    rng = check_rng(random_state)
    rows = np.arange(t)
    best_lab, best_cent, best_inertia = None, None, np.full(t, np.inf)
    sq = np.einsum("tmd,tmd->tm", C, C)
    for _ in range(check_positive_int(n_init, "n_init")):
        # --- k-means++ seeding, vectorised over the t chunks
        cent = np.empty((t, k, d))
        cent[:, 0] = C[rows, rng.integers(m, size=t)]
        d2 = np.maximum(sq - 2 * np.einsum("tmd,td->tm", C, cent[:, 0]) + (cent[:, 0] ** 2).sum(1)[:, None], 0)
        for j in range(1, k):
            cdf = np.cumsum(d2, axis=1)
            tot = cdf[:, -1]
            u = rng.random(t) * tot
            idx = np.minimum((cdf < u[:, None]).sum(axis=1), m - 1)
            idx = np.where(tot > 0, idx, rng.integers(m, size=t))
            cent[:, j] = C[rows, idx]
            nd2 = np.maximum(sq - 2 * np.einsum("tmd,td->tm", C, cent[:, j]) + (cent[:, j] ** 2).sum(1)[:, None], 0)
            d2 = np.minimum(d2, nd2)
        # --- Lloyd iterations. Convergence is decided PER CHUNK and a converged chunk is frozen: a global
        # "stop when every chunk has converged" would make chunk j's tuple depend on the other chunks' data
        # (through the number of iterations), and the privacy proof needs one record to move one tuple only.
        done = np.zeros(t, dtype=bool)
        for _it in range(check_positive_int(max_iter, "max_iter")):
            dist = sq[:, :, None] - 2 * np.einsum("tmd,tkd->tmk", C, cent) + (cent**2).sum(2)[:, None, :]
            lab = np.argmin(dist, axis=2)
            onehot = (lab[:, :, None] == np.arange(k)).astype(float)
            cnt = onehot.sum(axis=1)
            sums = np.einsum("tmk,tmd->tkd", onehot, C)
            new = np.where(cnt[:, :, None] > 0, sums / np.maximum(cnt, 1)[:, :, None], cent)
            conv = np.all(np.isclose(new, cent), axis=(1, 2))  # np.allclose's tolerances, chunk by chunk
            cent = np.where(done[:, None, None], cent, new)
            done |= conv
            if done.all():
                break
        dist = sq[:, :, None] - 2 * np.einsum("tmd,tkd->tmk", C, cent) + (cent**2).sum(2)[:, None, :]
        lab = np.argmin(dist, axis=2)
        inertia = np.maximum(np.take_along_axis(dist, lab[:, :, None], 2)[:, :, 0], 0).sum(axis=1)
        onehot = (lab[:, :, None] == np.arange(k)).astype(float)
        cnt = onehot.sum(axis=1)
        cent = np.where(cnt[:, :, None] > 0, np.einsum("tmk,tmd->tkd", onehot, C) / np.maximum(cnt, 1)[:, :, None],
                        cent)
        better = inertia < best_inertia
        if best_lab is None:
            best_lab, best_cent = lab.copy(), cent.copy()
        best_lab[better], best_cent[better] = lab[better], cent[better]
        best_inertia = np.minimum(best_inertia, inertia)
    return best_lab, best_cent


def _fallback_tuple(k, d, radius):
    """The fixed public tuple that replaces a tuple leaving ``B(0, Λ)`` (§6.2 wrap): ``(i/k)·Λ·e_1``."""
    out = np.zeros((k, d))
    out[:, 0] = radius * np.arange(k) / k
    return out


def _wrap_tuples(T, radius):
    """Replace every tuple with a point outside ``B(0, radius)`` by the fixed public tuple (spec pitfall 15)."""
    T = np.array(T, dtype=float, copy=True)
    out = np.any(np.einsum("tkd,tkd->tk", T, T) > radius**2, axis=1)
    T[out] = _fallback_tuple(T.shape[1], T.shape[2], radius)
    return T, int(out.sum())


def sample_tuples(X1, n_tuples, chunk_size, n_components, *, radius=np.inf, labeler="kmeans++",
                  random_state=None, n_init=3, max_iter=20):
    """``SampleTuples`` (paper §6.2, spec §2.8): one k-tuple of per-label averages per disjoint chunk.

    Chunk ``j`` is ``X1[j·n' : (j+1)·n']`` (split by index, data-independent). ``labeler`` is
    ``"kmeans++"`` (:func:`kmeanspp_label_chunks`, batched) or a callable ``labeler(chunk, k, rng) -> labels``
    called once per chunk. Tuples leaving ``B(0, radius)`` are replaced by a fixed public tuple.
    Returns an array ``(t, k, d)``. The tuples are **not** private; only ``G``'s output on them is.
    """
    t = check_positive_int(n_tuples, "n_tuples")
    m = check_positive_int(chunk_size, "chunk_size")
    k = check_positive_int(n_components, "n_components")
    X1 = np.asarray(X1, dtype=float)
    if X1.shape[0] < t * m:
        raise ValueError(f"X1 has {X1.shape[0]} rows, fewer than n_tuples*chunk_size={t * m}")
    rng = check_rng(random_state)
    chunks = X1[: t * m].reshape(t, m, X1.shape[1])
    if labeler == "kmeans++":
        _, T = kmeanspp_label_chunks(chunks, k, rng, n_init=n_init, max_iter=max_iter)
    elif callable(labeler):
        T = np.empty((t, k, X1.shape[1]))
        for j in range(t):  # loop over chunks (t is a few hundred); user oracles are not vectorised
            lab = np.asarray(labeler(chunks[j], k, rng))
            for i in range(k):
                sel = chunks[j][lab == i]
                T[j, i] = sel.mean(axis=0) if sel.shape[0] else _fallback_tuple(k, X1.shape[1], 0.0)[i]
    else:
        raise ValueError(f"labeler must be 'kmeans++' or a callable, got {labeler!r}")
    if np.isfinite(radius):
        T, _ = _wrap_tuples(T, radius)
    return T


def simulate_chunk_means(params: MixtureParams, n_tuples, chunk_size, random_state=None, *, radius=np.inf):
    """Exact fast simulator of ``SampleTuples`` when the labeler recovers the true partition (spec §3.4).

    For chunk j the component counts are ``(N_1..N_k) ~ Multinomial(n', w)`` and the label-average of
    component i is exactly ``N(μ_i, Σ_i/N_i)``; the tuple costs O(k d) instead of a k-means run on n' points.
    A component absent from a chunk (``N_i = 0``) makes the tuple the fixed public fallback tuple (a bad
    tuple), as does a tuple leaving ``B(0, radius)``. Returns ``(t, k, d)``.
    """
    params = _check_params(params)
    t = check_positive_int(n_tuples, "n_tuples")
    m = check_positive_int(chunk_size, "chunk_size")
    rng = check_rng(random_state)
    k, d = params.means.shape
    counts = rng.multinomial(m, params.weights, size=t)  # (t, k)
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    Z = rng.normal(size=(t, k, d)) / np.sqrt(np.maximum(counts, 1))[:, :, None]
    T = params.means[None] + np.einsum("kij,tkj->tki", chol, Z)
    empty = np.any(counts == 0, axis=1)
    fb_radius = radius if np.isfinite(radius) else float(np.max(np.linalg.norm(params.means, axis=1))) + 1.0
    T[empty] = _fallback_tuple(k, d, fb_radius)
    if np.isfinite(radius):
        T, _ = _wrap_tuples(T, radius)
    return T


# ============================================================================ the X2 side
def _psd_project(S, lo, hi):
    """Symmetrise and clip the eigenvalues of every matrix of ``S`` (…, d, d) to ``[lo, hi]``."""
    S = 0.5 * (S + np.swapaxes(S, -1, -2))
    vals, vecs = np.linalg.eigh(S)
    vals = np.clip(vals, lo, hi)
    return np.einsum("...ij,...j,...kj->...ik", vecs, vals, vecs)


def _clip_rows(V, r):
    """Project every row of ``V`` onto the ball of radius ``r`` (scalar or per-row)."""
    norms = np.sqrt(np.einsum("nd,nd->n", V, V))
    return V * np.minimum(1.0, np.asarray(r, dtype=float) / np.maximum(norms, 1e-300))[:, None]


def clipped_cluster_sums(X2, labels, centers, radii):
    """The statistic of a mean round: ``S_i = Σ_{x: label i} clip_{ρ_i}(x − a_i) / ρ_i``, shape (k, d).

    Replace-one L2 sensitivity of the stacked ``(S_1..S_k)``: 2 (same cluster) or √2 (two clusters)."""
    A = np.asarray(centers, dtype=float)
    k = A.shape[0]
    rho = np.broadcast_to(np.asarray(radii, dtype=float), (k,))
    lab = np.asarray(labels)
    U = _clip_rows(X2 - A[lab], rho[lab]) / rho[lab][:, None]
    return (lab[:, None] == np.arange(k)).astype(float).T @ U


def clipped_scatter_triu(X2, labels, means, radius):
    """The statistic of the covariance step: upper triangles (diagonal included) of
    ``Q_i = Σ_{x: label i} v vᵀ``, ``v = clip_ρ₂(x − μ̂_i)``; shape (k, d(d+1)/2).

    Replace-one L2 sensitivity of the stacked vector: ``√2 ρ₂²`` (``‖vvᵀ − v'v'ᵀ‖_F² <= ‖v‖⁴ + ‖v'‖⁴``)."""
    M = np.asarray(means, dtype=float)
    k, d = M.shape
    lab = np.asarray(labels)
    V = _clip_rows(X2 - M[lab], float(radius))
    iu = np.triu_indices(d)
    out = np.empty((k, iu[0].size))
    for i in range(k):  # loop over clusters
        Vi = V[lab == i]
        out[i] = (Vi.T @ Vi)[iu]
    return out


def private_cluster_gaussians(X2, centers, epsilon_weights, epsilon_mean, delta_mean, epsilon_cov, delta_cov,
                              mean_radius, cov_radius, *, mean_steps=2, beta=0.05, sigma_min=0.0, sigma_max=np.inf,
                              rng=None, ledger=None):
    """Steps 4–5 of ``PrivateGMM``: assign ``X2`` to the private centres, learn each Gaussian, noisy weights.

    The single-Gaussian learner ``M`` (a reconstruction: the paper's ``M`` is abstract; its running example
    is [KLSU19], the spec proposes CoinPress [BDKU20]) is a few clipped Gaussian-mechanism steps in the
    spirit of CoinPress, all k clusters calibrated **jointly** to the replace-one sensitivity:

    0. **weights** (step 4c): the count vector ``|X2^i|`` + ``Lap(2/ε_w)`` (L1 sensitivity 2: a replaced
       point leaves one cluster and joins one); its clamped values ``ñ_i >= 1`` are the denominators below;
    1. **means**, ``mean_steps`` rounds, each with ``(ε_mean, δ_mean)/mean_steps``: offsets ``x − a_i`` from the
       current centre ``a_i`` (first ``ĉ_i``) are clipped to radius ``ρ_i`` and divided by ``ρ_i``, so the
       stacked k sums have L2 sensitivity 2 under replace-one (same cluster: 2; two clusters: √2);
       ``a_i ← a_i + ρ_i (S_i + N(0, σ² I)) / ñ_i``. The next radius is ``cov_radius`` plus twice the
       high-probability noise bound ``ρ_i σ (√d + √(2 ln(2k·steps/β))) / ñ_i`` (public: built from released
       values), as in CoinPress;
    2. **covariances**: offsets from the final means clipped to ``ρ₂ = cov_radius``; the k scatter matrices
       ``Σ (x−a_i)(x−a_i)ᵀ`` get Gaussian noise on their upper triangles (L2 sensitivity ``√2 ρ₂²``:
       ``‖vvᵀ − v'v'ᵀ‖_F <= √2 ρ₂²``), ``Σ̂_i = Q̃_i / ñ_i`` projected onto eigenvalues ``[σ_min², σ_max²]``.

    Each round is DP for every value of the earlier released quantities (adaptive composition).

    Parameters
    ----------
    X2 : (n2, d) the fresh part of the data.
    centers : (k, d) the private centres ``ĉ`` (public with respect to ``X2``).
    mean_radius : float or (k,) array, the first-round radii ``ρ_i`` (public).
    cov_radius : float, ``ρ₂`` (public).

    Returns ``(means, covariances, weights)``; ``2 + mean_steps`` ledger entries, together
    ``(ε_w + ε_mean + ε_cov, δ_mean + δ_cov)``.
    """
    X2 = check_data(X2, "X2")
    C = check_data(centers, "centers", n_features=X2.shape[1])
    k, d = C.shape
    rho = np.broadcast_to(np.asarray(mean_radius, dtype=float), (k,)).copy()
    rho2 = float(cov_radius)
    if not (np.all(np.isfinite(rho)) and np.all(rho > 0)):
        raise ValueError(f"mean_radius must be finite and > 0, got {mean_radius!r}")
    if not (np.isfinite(rho2) and rho2 > 0):
        raise ValueError(f"cov_radius must be finite and > 0, got {cov_radius!r}")
    steps = check_positive_int(mean_steps, "mean_steps")
    rng = check_rng(rng)

    lab = assign(X2, C)  # ties -> smallest index
    onehot = (lab[:, None] == np.arange(k)).astype(float)
    counts = onehot.sum(axis=0)
    # 0. weights: one Laplace release of the whole count vector, L1 sensitivity 2 under replace-one
    noisy_counts = laplace_mechanism(counts, 2.0, epsilon_weights, rng, ledger=ledger,
                                     name="gmm: cluster counts -> weights (Laplace, L1 sens 2)")
    nhat = np.maximum(noisy_counts, 1.0)
    # 1. means: CoinPress-style clipped rounds
    a = C.copy()
    eps_step, dl_step = epsilon_mean / steps, delta_mean / steps
    tail = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * k * steps / beta))
    for s in range(steps):  # loop over rounds
        S = clipped_cluster_sums(X2, lab, a, rho)
        sig = gaussian_sigma(2.0, eps_step, dl_step)
        a = a + rho[:, None] * (S + rng.normal(0.0, sig, size=(k, d))) / nhat[:, None]
        if ledger is not None:
            ledger.record(f"gmm: mean round {s + 1}/{steps}, clipped sums / rho_i (Gaussian, L2 sens 2)",
                          eps_step, dl_step, 2.0)
        rho = rho2 + 2.0 * rho * sig * tail / nhat
    means = a
    # 2. covariances: clipped scatter around the released means, one Gaussian release
    Q = clipped_scatter_triu(X2, lab, means, rho2)
    s_scat = gaussian_sigma(math.sqrt(2.0) * rho2**2, epsilon_cov, delta_cov)
    Q = Q + rng.normal(0.0, s_scat, size=Q.shape)  # noise on the upper triangles ...
    iu = np.triu_indices(d)
    scat = np.zeros((k, d, d))
    scat[:, iu[0], iu[1]] = Q
    scat = scat + np.triu(scat, 1).swapaxes(1, 2)  # ... mirrored (post-processing)
    if ledger is not None:
        ledger.record("gmm: clipped scatter matrices (Gaussian, L2 sens sqrt2*rho2^2)", epsilon_cov, delta_cov,
                      math.sqrt(2.0) * rho2**2)
    covs = _psd_project(scat / nhat[:, None, None], float(sigma_min) ** 2, float(sigma_max) ** 2)
    w = np.maximum(noisy_counts, 0.0)
    weights = w / w.sum() if w.sum() > 0 else np.full(k, 1.0 / k)
    return means, covs, weights


# ============================================================================ the estimator
def _ktuple_module():
    from . import ktuple  # imported lazily: ktuple.py is a sibling module
    return ktuple


def _log_gaussian(X, means, covs):
    """log N(x; μ_i, Σ_i) for every x and i, shape (n, k), via Cholesky factors."""
    n, d = X.shape
    out = np.empty((n, means.shape[0]))
    for i in range(means.shape[0]):  # loop over components
        L = np.linalg.cholesky(covs[i])
        z = np.linalg.solve(L, (X - means[i]).T)
        out[:, i] = -0.5 * (z * z).sum(0) - np.log(np.diag(L)).sum() - 0.5 * d * np.log(2 * np.pi)
    return out


class _MixtureMixin:
    """predict / predict_proba / score_samples from ``means_``, ``covariances_``, ``weights_``."""

    def _check_fitted(self):
        if getattr(self, "means_", None) is None:
            raise RuntimeError(f"{type(self).__name__} has no fitted mixture (not fitted, or the private test failed)")

    def _weighted_log(self, X):
        self._check_fitted()
        X = check_data(X, n_features=self.means_.shape[1])
        with np.errstate(divide="ignore"):
            return _log_gaussian(X, self.means_, self.covariances_) + np.log(self.weights_)[None, :]

    def predict(self, X):
        """Most probable component of every point under the fitted mixture."""
        return np.argmax(self._weighted_log(X), axis=1)

    def predict_proba(self, X):
        """Posterior probability of every component for every point."""
        lw = self._weighted_log(X)
        return np.exp(lw - special.logsumexp(lw, axis=1, keepdims=True))

    def score_samples(self, X):
        """Log-density of the fitted mixture at every point."""
        return special.logsumexp(self._weighted_log(X), axis=1)

    def params(self) -> MixtureParams:
        """The fitted mixture as :class:`MixtureParams`."""
        self._check_fitted()
        return MixtureParams(self.means_, self.covariances_, self.weights_)


def make_k_tuple(name, n_components, epsilon, delta, *, beta=0.05, radius=None, rng=None, **params):
    """``G``: :class:`~dpclust_core.ktuple.PrivatekNoisyCenters` (``name="noisy_centers"``) or
    :class:`~dpclust_core.ktuple.PrivatekAverages` (``"averages"``, domain ``B(0, radius)``)."""
    kt = _ktuple_module()
    if name == "noisy_centers":
        return kt.PrivatekNoisyCenters(n_components, epsilon, delta, beta=beta, random_state=rng, **params)
    if name == "averages":
        if radius is None:
            raise ValueError("radius is required for k_tuple='averages'")
        return kt.PrivatekAverages(n_components, epsilon, delta, radius=float(radius), beta=beta, random_state=rng,
                                   **params)
    raise ValueError(f"k_tuple must be 'noisy_centers' or 'averages', got {name!r}")


def min_tuples(k_tuple, n_components, epsilon, delta, beta=0.05, **params):
    """Smallest number of tuples ``t`` with ``t >= 2ℓ(t) + 2`` for ``G`` (public; spec §2.3). ℓ does not increase
    with t, so a doubling search then bisection finds it."""
    g = make_k_tuple(k_tuple, n_components, epsilon, delta, beta=beta, radius=1.0, **params)
    return _ktuple_module().min_valid_tuples(lambda t: g.params(t)["min_n"])


class PrivateGaussianMixture(_MixtureMixin):
    """``PrivateGMM`` of Cohen et al. (ICML 2021, §6.2, Thm 6.1): private mixtures by k-tuple clustering.

    Parameters
    ----------
    n_components : int
        ``k >= 2``.
    epsilon, delta : float
        Total budget, ``epsilon > 0``, ``0 < delta < 1``; ``(ε, δ)``-DP under **replace-one** neighbours with
        the sample size ``n`` public (the paper's notion).
    radius : float
        Public ``Λ``: the component means are assumed in ``B(0, Λ)`` (bounded mixture, §6.1.2). Tuples with a
        point outside ``B(0, Λ)`` are replaced by a fixed public tuple before ``G`` (§6.2 wrap); with
        ``k_tuple="averages"`` it is also the domain of the private averages.
    sigma_min, sigma_max : float
        Public range of the component standard deviations (``σ_min² I ⪯ Σ_i ⪯ σ_max² I``). The covariance
        estimates are projected onto it (post-processing); ``sigma_max`` sets the default ``cov_clip_radius``.
    n_tuples : int, optional
        ``t``, the number of k-tuples (= chunks of ``X1``). Default: the smallest ``t`` the k-tuple algorithm
        accepts (``t >= 2ℓ+2``, spec §2.3), computed from public parameters only.
    chunk_size : int, optional
        ``n'``, points per chunk. Default ``floor(x1_fraction·n / t)``.
    x1_fraction : float
        Share of the sample used for ``X1`` when ``chunk_size`` is not given (default 0.5).
    k_tuple : {"noisy_centers", "averages"} or callable
        ``G``: :class:`dpclust_core.ktuple.PrivatekNoisyCenters` (Alg. 4.4, practical, default) or
        :class:`~dpclust_core.ktuple.PrivatekAverages` (Alg. 4.3, needs ~1e5-1e7 tuples); or a callable
        ``G(T, epsilon, delta, rng, ledger) -> (k, d) array or None`` that is ``(ε, δ)``-DP on tuple sets
        under replace-one and records its cost in ``ledger``.
    k_tuple_params : dict, optional
        Extra keyword arguments for ``G`` (e.g. ``{"gamma": 2000.0}`` for NoisyCenters; by default its Γ is
        :func:`~dpclust_core.ktuple.noisy_centers_min_gamma` for (k, d, ε, δ, β), in the thousands at ε = 1).
    beta : float
        Failure probability passed to ``G``.
    budget_split : (float, float, float)
        Shares of ``ε`` spent on ``X2`` by the weights, the means and the covariances (default
        ``(0.2, 0.3, 0.5)``); ``δ`` is split evenly between means and covariances. ``G`` on ``X1`` gets the
        whole ``(ε, δ)`` (parallel composition).
    clip_radius : float, optional
        Public clipping radius of the first mean round around ``ĉ_i``. Default, per cluster,
        ``ρ₂ + center_slack·D̂_i`` with ``D̂_i = min_{j≠i} ‖ĉ_i − ĉ_j‖`` (public: computed from the private
        output). Reconstruction: NoisyCenters' Γ is sized so that ``‖ĉ_i − c_i‖ <= D_i/4`` w.h.p.
    center_slack : float
        See ``clip_radius`` (default 0.5).
    mean_steps : int
        Clipped rounds of the mean estimate (CoinPress-style, default 2).
    cov_clip_radius : float, optional
        ``ρ₂``, public clipping radius of the covariance step around the released means. Default
        ``σ_max·(√d + √(2 ln n))``: a Gaussian sample lies within it w.h.p. (norm tail, spec §2.0).
    labeler : "kmeans++" or callable
        The non-private labeling oracle ``A`` of ``SampleTuples``.
    random_state : None, int or Generator

    Attributes
    ----------
    means_, covariances_, weights_ : the private mixture (``None`` if the k-tuple test failed)
    centers_ : (k, d) the private separation centres ``ĉ`` (private output of ``G``)
    success_ : bool, ``False`` when ``G`` returned ⊥ (then only ``G``'s budget is spent; still ``(ε, δ)``)
    ledger_ : :class:`PrivacyLedger`, total ``(ε, δ)``: a parallel group ``X1 | X2``
    n_tuples_, chunk_size_, clip_radius_, cov_clip_radius_ : the public parameters used

    Notes
    -----
    Preconditions are checked on public inputs only (``ε``, ``δ``, ``k``, ``t``, ``n'``, ``n = len(X)``)
    **before** the data are read: ``t >= 2ℓ+2`` and ``t·n' + k <= n`` (at least one fresh point per
    component). Violations raise ``ValueError``.

    Out-of-range data: no point is dropped. Tuples (chunk averages) outside ``B(0, Λ)`` are replaced by the
    fixed public tuple; in ``X2`` every offset from its centre is clipped to the public radii above.
    """

    def __init__(self, n_components, epsilon, delta, *, radius, sigma_min=1e-3, sigma_max=1.0, n_tuples=None,
                 chunk_size=None, x1_fraction=0.5, k_tuple="noisy_centers", k_tuple_params=None, beta=0.05,
                 budget_split=(0.2, 0.3, 0.5), clip_radius=None, cov_clip_radius=None, center_slack=0.5,
                 mean_steps=2, labeler="kmeans++", random_state=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.sigma_min = sigma_min
        self.sigma_max = sigma_max
        self.n_tuples = n_tuples
        self.chunk_size = chunk_size
        self.x1_fraction = x1_fraction
        self.k_tuple = k_tuple
        self.k_tuple_params = k_tuple_params
        self.beta = beta
        self.budget_split = budget_split
        self.clip_radius = clip_radius
        self.cov_clip_radius = cov_clip_radius
        self.center_slack = center_slack
        self.mean_steps = mean_steps
        self.labeler = labeler
        self.random_state = random_state

    # ------------------------------------------------------------ checks on public inputs only
    def _check_hyper(self):
        k = check_n_clusters(self.n_components, name="n_components")
        if k < 2:
            raise ValueError(f"n_components must be >= 2 (the reduction separates k >= 2 components; for one "
                             f"Gaussian use a single-Gaussian learner), got {k}")
        eps = check_epsilon(self.epsilon)
        dl = check_delta(self.delta)
        r = float(self.radius) if np.isscalar(self.radius) else np.nan
        if not (np.isfinite(r) and r > 0):
            raise ValueError(f"radius must be finite and > 0, got {self.radius!r}")
        smin, smax = float(self.sigma_min), float(self.sigma_max)
        if not (0 <= smin < smax < np.inf):
            raise ValueError(f"sigma_min/sigma_max must satisfy 0 <= sigma_min < sigma_max < inf, "
                             f"got {self.sigma_min!r}, {self.sigma_max!r}")
        beta = float(self.beta)
        if not (0 < beta < 1):
            raise ValueError(f"beta must lie in (0, 1), got {self.beta!r}")
        split = np.asarray(self.budget_split, dtype=float)
        if split.shape != (3,) or np.any(~np.isfinite(split)) or np.any(split <= 0):
            raise ValueError(f"budget_split must be three positive shares, got {self.budget_split!r}")
        if not (0 < float(self.x1_fraction) < 1):
            raise ValueError(f"x1_fraction must lie in (0, 1), got {self.x1_fraction!r}")
        for nm in ("clip_radius", "cov_clip_radius"):
            v = getattr(self, nm)
            if v is not None and not (np.isscalar(v) and np.isfinite(v) and v > 0):
                raise ValueError(f"{nm} must be finite and > 0, got {v!r}")
        if not (np.isscalar(self.center_slack) and np.isfinite(self.center_slack) and self.center_slack >= 0):
            raise ValueError(f"center_slack must be finite and >= 0, got {self.center_slack!r}")
        check_positive_int(self.mean_steps, "mean_steps")
        if not (self.labeler == "kmeans++" or callable(self.labeler)):
            raise ValueError(f"labeler must be 'kmeans++' or a callable, got {self.labeler!r}")
        if not (self.k_tuple in ("noisy_centers", "averages") or callable(self.k_tuple)):
            raise ValueError(f"k_tuple must be 'noisy_centers', 'averages' or a callable, got {self.k_tuple!r}")
        if self.k_tuple_params is not None and not isinstance(self.k_tuple_params, dict):
            raise ValueError("k_tuple_params must be a dict")
        return k, eps, dl, r, smin, smax, beta, split / split.sum()

    def _make_g(self, k, eps, dl, beta, rng):
        """The k-tuple clustering object ``G`` of :mod:`dpclust_core.ktuple` (or None for a callable)."""
        if callable(self.k_tuple):
            return None
        return make_k_tuple(self.k_tuple, k, eps, dl, beta=beta, radius=float(self.radius), rng=rng,
                            **(self.k_tuple_params or {}))

    def _check_g(self, k, eps, dl, beta, t, d):
        """``G``'s public preconditions (Γ range, ``t >= 2ℓ+2``, the domain centre, ...) for t tuples in R^d."""
        g = self._make_g(k, eps, dl, beta, None)
        if g is not None:
            g.check_params(t, d)

    def _min_tuples(self, k, eps, dl, beta):
        """Smallest number of tuples ``G`` accepts, from public parameters only (:func:`min_tuples`)."""
        if callable(self.k_tuple):
            return 1
        return min_tuples(self.k_tuple, k, eps, dl, beta, **(self.k_tuple_params or {}))

    @staticmethod
    def _public_n(X) -> int:
        try:
            return int(len(X))
        except TypeError:
            raise ValueError("X must be a 2-D array-like with a length") from None

    # ------------------------------------------------------------ fitting
    def fit(self, X, y=None):
        """Fit on ``X`` (n, d). Checks every public precondition before reading the data."""
        k, eps, dl, r, smin, smax, beta, split = self._check_hyper()
        n = self._public_n(X)
        t_min = self._min_tuples(k, eps, dl, beta)
        t = t_min if self.n_tuples is None else check_positive_int(self.n_tuples, "n_tuples")
        if t < t_min:
            raise ValueError(f"n_tuples={t} is too small: the k-tuple clustering needs at least {t_min} tuples "
                             f"(t >= 2*ell+2) at epsilon={eps}, delta={dl}")
        if self.chunk_size is None:
            m = int(math.floor(float(self.x1_fraction) * n / t))
        else:
            m = check_positive_int(self.chunk_size, "chunk_size")
        if m < k or t * m + k > n:
            raise ValueError(f"n={n} is too small for the public parameters: need n >= n_tuples*chunk_size + "
                             f"n_components with chunk_size >= n_components (n_tuples={t}, chunk_size={m}, "
                             f"n_components={k})")
        # ---- only now the data are read
        X = check_data(X)
        d = X.shape[1]
        self._check_g(k, eps, dl, beta, t, d)  # G's own preconditions, before any computation on the data
        rng = check_rng(self.random_state)
        T = sample_tuples(X[: t * m], t, m, k, radius=r, labeler=self.labeler, random_state=rng)
        return self._fit_tuples(T, X[t * m:], n=n, rng=rng, checked=(k, eps, dl, r, smin, smax, beta, split),
                                t=t, m=m, d=d)

    def fit_tuples(self, T, X2, n_total=None):
        """Run steps 3–6 on precomputed tuples ``T`` (t, k, d) and the fresh part ``X2``.

        The privacy guarantee of :meth:`fit` holds when ``T`` was made by ``SampleTuples`` from a part of the
        data disjoint from ``X2``, one tuple per disjoint chunk (then one record changes at most one tuple).
        Used with :func:`simulate_chunk_means` to sweep sample sizes that are too large to materialise.
        """
        k, eps, dl, r, smin, smax, beta, split = self._check_hyper()
        T = np.asarray(T, dtype=float)
        if T.ndim != 3 or T.shape[1] != k:
            raise ValueError(f"T must have shape (t, {k}, d), got {T.shape}")
        t = T.shape[0]
        t_min = self._min_tuples(k, eps, dl, beta)
        if t < t_min:
            raise ValueError(f"T has {t} tuples; the k-tuple clustering needs at least {t_min}")
        n2 = self._public_n(X2)
        if n2 < k:
            raise ValueError(f"X2 has {n2} rows, fewer than n_components={k}")
        self._check_g(k, eps, dl, beta, t, T.shape[2])
        X2 = check_data(X2, "X2", n_features=T.shape[2])
        if not np.all(np.isfinite(T)):
            raise ValueError("T contains NaN or infinite values")
        T, _ = _wrap_tuples(T, r)
        n = t + n2 if n_total is None else int(n_total)
        return self._fit_tuples(T, X2, n=n, rng=check_rng(self.random_state),
                                checked=(k, eps, dl, r, smin, smax, beta, split), t=t, m=None, d=T.shape[2])

    def _run_k_tuple(self, T, k, eps, dl, beta, rng, ledger):
        """Step 3: ``Ĉ = G(T)``; records ``G``'s ledger entries into ``ledger``; returns centres or None (⊥)."""
        if callable(self.k_tuple):
            return self.k_tuple(T, eps, dl, rng, ledger)
        g = self._make_g(k, eps, dl, beta, rng)
        centers, status = g.cluster(T)
        for e in g.ledger_.entries:
            ledger.record(e.name, e.epsilon, e.delta, e.sensitivity)
        return centers if status else None

    def _fit_tuples(self, T, X2, *, n, rng, checked, t, m, d):
        k, eps, dl, r, smin, smax, beta, split = checked
        self.n_features_in_ = d
        self.n_tuples_, self.chunk_size_ = t, m
        rho2 = float(self.cov_clip_radius) if self.cov_clip_radius is not None else \
            smax * (math.sqrt(d) + math.sqrt(2.0 * math.log(max(n, 2))))
        self.cov_clip_radius_ = rho2
        ledger = PrivacyLedger(budget_epsilon=eps, budget_delta=dl)
        eps_w = split[0] * eps
        eps_m = split[1] * eps
        eps_c = eps - eps_w - eps_m
        with ledger.parallel("PrivateGMM: X1 | X2 (disjoint by index, Thm 6.1)") as par:
            with par.partition():
                sub = PrivacyLedger()
                centers = self._run_k_tuple(T, k, eps, dl, beta, rng, sub)
                for e in sub.entries:
                    ledger.record("X1 k-tuple: " + e.name, e.epsilon, e.delta, e.sensitivity)
            self.centers_ = None if centers is None else np.asarray(centers, dtype=float)
            self.success_ = self.centers_ is not None
            if not self.success_:
                self.means_ = self.covariances_ = self.weights_ = None
                self.ledger_ = ledger
                return self
            if self.clip_radius is not None:
                rho = np.full(k, float(self.clip_radius))
            else:
                Dhat = np.sqrt(squared_distances(self.centers_, self.centers_))
                np.fill_diagonal(Dhat, np.inf)
                rho = rho2 + float(self.center_slack) * (Dhat.min(axis=1) if k > 1 else np.zeros(1))
            self.clip_radius_ = rho
            with par.partition():
                mu, cov, w = private_cluster_gaussians(X2, self.centers_, eps_w, eps_m, dl / 2, eps_c, dl / 2, rho,
                                                       rho2, mean_steps=self.mean_steps, beta=beta,
                                                       sigma_min=smin, sigma_max=smax, rng=rng, ledger=ledger)
        self.means_, self.covariances_, self.weights_ = mu, cov, w
        self.ledger_ = ledger
        return self


# ============================================================================ naive baseline
def naive_noise_sigma(radius, epsilon, delta, method="analytic"):
    """Per-point noise of the naive baseline: the Gaussian mechanism for one record in ``B(0, radius)``.

    Under replace-one the released noisy point moves with L2 sensitivity ``2·radius`` (the domain diameter
    Λ of the paper's formula). ``method="classic"`` is the paper's ``σ = Λ·√(2 ln(1.25/δ))/ε`` with
    ``Λ = 2·radius`` (proved for ε < 1); ``"analytic"`` (Balle–Wang) is the exact, smaller calibration.
    """
    r = float(radius)
    if not (np.isfinite(r) and r > 0):
        raise ValueError(f"radius must be finite and > 0, got {radius!r}")
    return gaussian_sigma(2.0 * r, epsilon, delta, method=method)


class NaiveNoisyGaussianMixture(_MixtureMixin):
    """The naive baseline of the paper's §7: Gaussian noise on every point, then scikit-learn's EM.

    Every row is clipped onto the ball ``B(0, radius)`` and released as ``x + N(0, σ² I_d)`` with
    ``σ = naive_noise_sigma(radius, ε, δ, method)``; ``sklearn.mixture.GaussianMixture`` is then fitted to the
    noisy points (post-processing).

    Privacy (as in the paper): **(ε, δ)-DP under replace-one** neighbours (n public): a replaced record
    changes one released row, by the Gaussian mechanism with L2 sensitivity ``2·radius``; the other rows are
    unchanged and EM is post-processing. It is *local*-style noise: its scale does not shrink with n, and the
    noisy components are ``N(μ_i, Σ_i + σ² I)``, almost coinciding when ``σ`` dwarfs the separation, which is
    why the paper found that EM "failed even" with many samples.

    ``deconvolve=True`` (not in the paper; post-processing) subtracts ``σ² I`` from the fitted covariances
    and projects onto ``[sigma_min², ∞)``; the paper's baseline is ``deconvolve=False``.

    Attributes: ``means_``, ``covariances_``, ``weights_``, ``noise_sigma_``, ``noisy_X_`` (the private
    release), ``ledger_``.
    """

    def __init__(self, n_components, epsilon, delta, *, radius, method="analytic", deconvolve=True,
                 sigma_min=1e-3, n_init=1, max_iter=200, random_state=None):
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.method = method
        self.deconvolve = deconvolve
        self.sigma_min = sigma_min
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state

    def fit(self, X, y=None):
        """Clip, add per-point noise (one ledger entry), fit EM on the noisy points."""
        from sklearn.mixture import GaussianMixture

        k = check_n_clusters(self.n_components, name="n_components")
        eps = check_epsilon(self.epsilon)
        dl = check_delta(self.delta)
        sigma = naive_noise_sigma(self.radius, eps, dl, method=self.method)
        n = PrivateGaussianMixture._public_n(X)
        if n < k:
            raise ValueError(f"n={n} is smaller than n_components={k}")
        X = check_data(X)
        rng = check_rng(self.random_state)
        r = float(self.radius)
        norms = np.sqrt(np.einsum("nd,nd->n", X, X))
        Xc = X * np.minimum(1.0, r / np.maximum(norms, 1e-300))[:, None]
        self.noise_sigma_ = sigma
        self.noisy_X_ = Xc + rng.normal(0.0, sigma, size=Xc.shape)
        self.ledger_ = PrivacyLedger(budget_epsilon=eps, budget_delta=dl)
        self.ledger_.record("naive: per-point Gaussian noise (replace-one, L2 sens 2*radius)", eps, dl, 2.0 * r)
        gm = GaussianMixture(k, covariance_type="full", n_init=self.n_init, max_iter=self.max_iter,
                             random_state=int(rng.integers(2**31 - 1)))
        gm.fit(self.noisy_X_)
        self.gm_ = gm
        self.means_ = gm.means_.copy()
        self.weights_ = gm.weights_.copy()
        cov = gm.covariances_.copy()
        if self.deconvolve:
            cov = _psd_project(cov - sigma**2 * np.eye(X.shape[1]), float(self.sigma_min) ** 2, np.inf)
        self.covariances_ = cov
        return self


# ============================================================================ evaluation
def match_components(true_means, est_means):
    """Permutation ``perm`` with ``est_means[perm[i]]`` matched to ``true_means[i]`` (Hungarian, L2 cost)."""
    A = np.asarray(true_means, float)
    B = np.asarray(est_means, float)
    cost = np.sqrt(squared_distances(A, B))
    rows, cols = optimize.linear_sum_assignment(cost)
    perm = np.empty(A.shape[0], dtype=int)
    perm[rows] = cols
    return perm


def gaussian_tv_upper_bound(mu1, S1, mu2, S2):
    """``min(1, √(KL/2))`` (Pinsker) with the closed-form KL(N(μ1,Σ1) ‖ N(μ2,Σ2)); an upper bound on d_TV."""
    mu1, mu2 = np.asarray(mu1, float), np.asarray(mu2, float)
    S1, S2 = np.asarray(S1, float), np.asarray(S2, float)
    d = mu1.size
    L2 = np.linalg.cholesky(S2)
    A = np.linalg.solve(L2, np.linalg.solve(L2, S1).T)  # L2^-1 S1 L2^-T, symmetric
    diff = np.linalg.solve(L2, mu2 - mu1)
    logdet = 2 * np.log(np.diag(L2)).sum() - np.linalg.slogdet(S1)[1]
    kl = 0.5 * (np.trace(A) + diff @ diff - d + logdet)
    return float(min(1.0, math.sqrt(max(kl, 0.0) / 2)))


def mixture_tv_upper_bound(true: MixtureParams, est: MixtureParams):
    """``d_TV(D, D̂) <= Σ_i w_i d_TV(G_i, Ĝ_i) + ½ Σ_i |w_i − ŵ_i|`` after matching (spec §2.8, Fact B.3)."""
    perm = match_components(true.means, est.means)
    tv = sum(true.weights[i] * gaussian_tv_upper_bound(true.means[i], true.covariances[i], est.means[perm[i]],
                                                       est.covariances[perm[i]])
             for i in range(true.n_components))
    return float(min(1.0, tv + 0.5 * np.abs(true.weights - est.weights[perm]).sum()))


def mixture_tv_mc(p: MixtureParams, q: MixtureParams, n_samples=20_000, random_state=None):
    """Monte-Carlo estimate of ``d_TV(p, q) = E_{x~p}[(1 − q(x)/p(x))_+]``."""
    rng = check_rng(random_state)
    X, _ = sample_mixture(p, n_samples, rng)

    def logmix(P, X):
        return special.logsumexp(_log_gaussian(X, P.means, P.covariances) + np.log(P.weights)[None], axis=1)

    lr = logmix(q, X) - logmix(p, X)
    return float(np.mean(np.maximum(0.0, 1.0 - np.exp(np.minimum(lr, 50.0)))))


def parameter_errors(true: MixtureParams, est: MixtureParams) -> dict:
    """Errors after matching components: ``mean`` = max_i ‖μ̂_i − μ_i‖₂, ``cov`` = max_i ‖Σ̂_i − Σ_i‖₂
    (operator norm), ``weight`` = max_i |ŵ_i − w_i|, ``tv_bound`` = :func:`mixture_tv_upper_bound`."""
    perm = match_components(true.means, est.means)
    mean_err = np.linalg.norm(est.means[perm] - true.means, axis=1).max()
    cov_err = np.abs(np.linalg.eigvalsh(est.covariances[perm] - true.covariances)).max()
    w_err = np.abs(est.weights[perm] - true.weights).max()
    return {"mean": float(mean_err), "cov": float(cov_err), "weight": float(w_err),
            "tv_bound": mixture_tv_upper_bound(true, est)}


def separates(params: MixtureParams, centers, n_eval_per_component=2000, random_state=None) -> bool:
    """The paper's §7 success criterion on fresh samples (spec §3.2): there is a bijection between centres and
    components such that **every** one of ``n_eval_per_component`` fresh samples of component i is nearest to
    its centre. ``centers=None`` (⊥) is a failure."""
    if centers is None:
        return False
    rng = check_rng(random_state)
    params = _check_params(params)
    C = np.asarray(centers, float)
    k, d = params.means.shape
    m = check_positive_int(n_eval_per_component, "n_eval_per_component")
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    X = params.means[:, None, :] + np.einsum("kij,kmj->kmi", chol, rng.normal(size=(k, m, d)))
    lab = assign(X.reshape(-1, d), C).reshape(k, m)
    first = lab[:, 0]
    return bool(np.all(lab == first[:, None]) and np.unique(first).size == k)


# ============================================================================ experiment harness
def fit_private_gmm_simulated(params: MixtureParams, n_tuples, chunk_size, n2, estimator: PrivateGaussianMixture,
                              random_state=None):
    """Fit ``estimator`` on a sample of size ``t·n' + n2`` without materialising ``X1``.

    ``X1``'s tuples come from :func:`simulate_chunk_means` (exact when the labeler recovers the partition),
    ``X2`` is sampled for real. Returns the fitted estimator.
    """
    rng = check_rng(random_state)
    T = simulate_chunk_means(params, n_tuples, chunk_size, rng, radius=float(estimator.radius))
    X2, _ = sample_mixture(params, n2, rng)
    return estimator.fit_tuples(T, X2, n_total=n_tuples * chunk_size + n2)


def compare_methods(params: MixtureParams, n, *, epsilon, delta, radius, sigma_max=1.0, sigma_min=1e-3,
                    methods=("em", "naive", "private"), private_kwargs=None, simulate_x1=False, n_tuples=None,
                    chunk_size=None, random_state=None) -> dict:
    """Parameter errors of non-private EM, the naive baseline and :class:`PrivateGaussianMixture` on one sample.

    ``n`` is the total sample size. With ``simulate_x1=True`` the private method's ``X1`` is simulated
    (``n_tuples``/``chunk_size`` required, ``n2 = n − t·n'``) and EM / naive run on an ``n``-point sample
    only if ``n <= 200_000`` (else they are skipped, NaN). Returns ``{method: errors dict or None}``
    (``None`` = the private test failed).
    """
    from sklearn.mixture import GaussianMixture

    rng = check_rng(random_state)
    params = _check_params(params)
    k = params.n_components
    out = {}
    X = None
    if not simulate_x1 or n <= 200_000:
        X, _ = sample_mixture(params, n, rng)
    nan = {"mean": np.nan, "cov": np.nan, "weight": np.nan, "tv_bound": np.nan}
    for meth in methods:
        if meth == "em":
            if X is None:
                out[meth] = nan
                continue
            gm = GaussianMixture(k, covariance_type="full", random_state=int(rng.integers(2**31 - 1))).fit(X)
            out[meth] = parameter_errors(params, MixtureParams(gm.means_, gm.covariances_, gm.weights_))
        elif meth == "naive":
            if X is None:
                out[meth] = nan
                continue
            est = NaiveNoisyGaussianMixture(k, epsilon, delta, radius=radius, sigma_min=sigma_min,
                                            random_state=rng).fit(X)
            out[meth] = parameter_errors(params, est.params())
        elif meth == "private":
            est = PrivateGaussianMixture(k, epsilon, delta, radius=radius, sigma_min=sigma_min, sigma_max=sigma_max,
                                         n_tuples=n_tuples, chunk_size=chunk_size, random_state=rng,
                                         **(private_kwargs or {}))
            if simulate_x1:
                if n_tuples is None or chunk_size is None:
                    raise ValueError("simulate_x1=True needs n_tuples and chunk_size")
                n2 = n - n_tuples * chunk_size
                if n2 < k:
                    raise ValueError(f"n={n} leaves no fresh half: n_tuples*chunk_size={n_tuples * chunk_size}")
                est = fit_private_gmm_simulated(params, n_tuples, chunk_size, n2, est, rng)
            else:
                est.fit(X)
            out[meth] = parameter_errors(params, est.params()) if est.success_ else None
        else:
            raise ValueError(f"unknown method {meth!r}")
    return out


def _score_centers(params, centers, criterion, n_eval, rng):
    if criterion not in ("samples", "centers", "both"):
        raise ValueError(f"criterion must be 'samples', 'centers' or 'both', got {criterion!r}")
    if centers is None:
        return False
    ok = True
    if criterion in ("centers", "both"):
        C = np.asarray(centers, float)
        perm = match_components(params.means, C)
        D = np.sqrt(squared_distances(params.means, params.means))
        np.fill_diagonal(D, np.inf)
        ok = bool(np.all(np.linalg.norm(C[perm] - params.means, axis=1) < D.min(axis=1) / 4))
    if ok and criterion in ("samples", "both"):
        ok = separates(params, centers, n_eval, rng)
    return ok


def separation_success_rate(params: MixtureParams, epsilon, delta, n_tuples, chunk_size, reps=10, *,
                            k_tuple="noisy_centers", k_tuple_params=None, beta=0.05, radius=None,
                            n_eval_per_component=500, criterion="samples", stop_below=None,
                            random_state=None) -> float:
    """Success rate of the **private separation** step (paper §7 criterion, :func:`separates`) over ``reps`` runs.

    Each run simulates ``n_tuples`` tuples of chunk means of ``chunk_size`` samples (:func:`simulate_chunk_means`),
    runs ``G`` and scores the released centres with ``criterion``: ``"samples"`` (the paper's: they separate
    ``n_eval_per_component`` fresh samples per component, :func:`separates`), ``"centers"`` (the spec's §3.2
    alternative: after optimal matching every centre is within ``D_i/4`` of its mean, ``D_i`` the distance to
    the nearest other mean) or ``"both"``. With k = 2 random centres separate the samples by luck about half
    the time; ``"centers"`` does not have that weakness. ``radius`` (default
    ``2·max‖μ_i‖ + 10``) is the public domain of PrivatekAverages and of the tuple wrap. With ``stop_below``,
    the runs stop as soon as the rate can no longer reach ``stop_below`` (the returned value then counts the
    runs not made as failures; the decision "rate >= stop_below" is unchanged).
    """
    params = _check_params(params)
    rng = check_rng(random_state)
    k = params.n_components
    if radius is None:
        radius = 2.0 * float(np.max(np.linalg.norm(params.means, axis=1))) + 10.0
    k_tuple_params = dict(k_tuple_params or {})
    if k_tuple == "noisy_centers" and k_tuple_params.get("gamma") is None:  # compute the default Γ once
        kt = _ktuple_module()
        k_tuple_params["gamma"] = kt.noisy_centers_min_gamma(k, params.n_features, epsilon, delta, beta)
    ok = fail = 0
    reps = check_positive_int(reps, "reps")
    max_fail = math.inf if stop_below is None else reps * (1.0 - float(stop_below)) + 1e-9
    for _ in range(reps):  # loop over repetitions
        T = simulate_chunk_means(params, n_tuples, chunk_size, rng, radius=radius)
        g = make_k_tuple(k_tuple, k, epsilon, delta, beta=beta, radius=radius, rng=rng, **k_tuple_params)
        centers, status = g.cluster(T)
        good = _score_centers(params, centers if status else None, criterion, n_eval_per_component, rng)
        ok += good
        fail += not good
        if fail > max_fail:
            break
    return ok / reps


def separation_sample_complexity(params: MixtureParams, epsilon, delta, *, reps=10, threshold=0.9,
                                 k_tuple="noisy_centers", k_tuple_params=None, beta=0.05, n_tuples=None,
                                 criterion="samples", chunk_start=8, max_chunk=2**36, refine=2, random_state=None) -> dict:
    """Sample complexity of the private separation (spec §3.2): the smallest total ``t·n'`` at which the success
    rate over ``reps`` runs reaches ``threshold``.

    The number of tuples is fixed at ``n_tuples`` (default: the minimum ``G`` accepts, as the paper did for
    PrivatekAverages) and the chunk size ``n'`` is searched by doubling from ``chunk_start``, then ``refine``
    bisection steps in log scale. Returns ``{"n_tuples", "chunk_size", "total", "rates"}`` with
    ``chunk_size = None`` / ``total = inf`` if ``max_chunk`` is reached without success.
    """
    params = _check_params(params)
    rng = check_rng(random_state)
    k = params.n_components
    t = min_tuples(k_tuple, k, epsilon, delta, beta, **(k_tuple_params or {})) if n_tuples is None else \
        check_positive_int(n_tuples, "n_tuples")
    rates = {}

    def rate(m):
        if m not in rates:
            rates[m] = separation_success_rate(params, epsilon, delta, t, m, reps, k_tuple=k_tuple,
                                               k_tuple_params=k_tuple_params, beta=beta, criterion=criterion,
                                               stop_below=threshold,
                                               random_state=rng)
        return rates[m]

    m = check_positive_int(chunk_start, "chunk_start")
    while rate(m) < threshold:
        m *= 2
        if m > max_chunk:
            return {"n_tuples": t, "chunk_size": None, "total": math.inf, "rates": rates}
    lo, hi = m // 2, m
    for _ in range(refine if m > chunk_start else 0):
        mid = int(round(math.sqrt(lo * hi)))
        if mid in (lo, hi):
            break
        lo, hi = (lo, mid) if rate(mid) >= threshold else (mid, hi)
    return {"n_tuples": t, "chunk_size": hi, "total": t * hi, "rates": rates}
