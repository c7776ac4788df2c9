"""Mixtures for the Gaussian-mixture chapter: generators, the SampleTuples step on its own, and error measures.

The library's :mod:`dpclust_core.gmm` holds the estimators, :class:`~dpclust_core.gmm.MixtureParams`,
:func:`~dpclust_core.gmm.paper_mixture` and :func:`~dpclust_core.gmm.sample_mixture`. What the chapters add to
reproduce the experiments of Cohen, Kaplan, Mansour, Stemmer & Tsfadia (ICML 2021, §7) lives here:

* :func:`random_separated_mixture`, :func:`mixture_separation` -- mixtures with a given separation;
* :func:`kmeanspp_label_chunks`, :func:`sample_tuples` -- ``SampleTuples`` (§6.2) on its own, on chunks split
  by index, and :func:`simulate_chunk_means`, its exact fast simulator;
* :func:`match_components`, :func:`parameter_errors`, :func:`gaussian_tv_upper_bound`,
  :func:`mixture_tv_upper_bound`, :func:`mixture_tv_mc`, :func:`separates` -- how far an estimate is from the
  truth, and whether centres separate a mixture (the paper's Test1-Test3 criterion).

None of it is private: these functions generate or evaluate, they release nothing.
"""
from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

import numpy as np
from scipy import optimize, special

from dpclust_core import _kernels, tuples
from dpclust_core._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, RNGLike, check_data, check_int,
                                      check_real, check_rng)
from dpclust_core.gmm import MixtureParams, _log_gaussian, check_mixture_params, paper_mixture, sample_mixture

__all__ = [
    "random_separated_mixture",
    "mixture_separation",
    "kmeanspp_label_chunks",
    "sample_tuples",
    "simulate_chunk_means",
    "match_components",
    "parameter_errors",
    "gaussian_tv_upper_bound",
    "mixture_tv_upper_bound",
    "mixture_tv_mc",
    "separates",
]


def _positive(x, name):
    return check_real(x, name, low=0.0, low_open=True)


def random_separated_mixture(n_components: int = 3, n_features: int = 2, separation: float = 8.0, *,
                             weights: ArrayLike | None = None, sigma_range: tuple[float, float] = (0.5, 1.0),
                             random_state: RNGLike = None) -> MixtureParams:
    """A random mixture whose means are ``separation``-separated in the paper's sense (§6.1.2).

    ``‖μ_i − μ_j‖ >= s·max(σ_i, σ_j)`` with ``σ_i² = ‖Σ_i‖`` (operator norm; the paper's exact form was lost).
    Covariances are random rotations of diagonal matrices with standard deviations in ``sigma_range``; the
    means are Gaussian, rescaled so that the closest pair meets the separation exactly, and centred at 0.

    Examples
    --------
    >>> P = random_separated_mixture(3, 2, separation=10.0, random_state=0)
    >>> round(mixture_separation(P), 6)
    10.0
    """
    k = check_int(n_components, "n_components", 1, 10_000)
    d = check_int(n_features, "n_features", 1, 1000)
    rng = check_rng(random_state, "random_state")
    sr = check_data(sigma_range, "sigma_range", ndim=1)
    if sr.shape != (2,) or not (0 < sr[0] <= sr[1]):
        raise ValueError(f"sigma_range must be (low, high) with 0 < low <= high, got {sigma_range!r}")
    lo, hi = float(sr[0]), float(sr[1])
    separation = _positive(separation, "separation")
    if weights is None:
        w = np.full(k, 1.0 / k)
    else:
        w = check_data(weights, "weights", ndim=1)
        if w.shape != (k,) or np.any(w <= 0):
            raise ValueError("weights must be k positive numbers")
        w = w / w.sum()
    covs = np.empty((k, d, d))
    for i in range(k):  # loop over components (k is small)
        q, r = np.linalg.qr(rng.normal(size=(d, d)))  # not privacy noise: a random test mixture
        q = q * np.sign(np.diag(r))
        s = rng.uniform(lo, hi, size=d)
        covs[i] = (q * s**2) @ q.T
    sig = np.sqrt(np.linalg.eigvalsh(covs)[:, -1])
    means = rng.normal(size=(k, d))  # not privacy noise: a random test mixture
    if k > 1:
        dist = np.sqrt(_kernels.sq_distances(means, means))
        need = separation * np.maximum(sig[:, None], sig[None, :])
        iu = np.triu_indices(k, 1)
        means *= np.max(need[iu] / dist[iu])  # now every pair is at least its required distance
    means -= means.mean(axis=0)  # centred at the origin
    return MixtureParams(means, covs, w)


def mixture_separation(params: MixtureParams) -> float:
    """The separation ``s = min_{i≠j} ‖μ_i − μ_j‖ / max(σ_i, σ_j)`` with ``σ_i² = ‖Σ_i‖``.

    Examples
    --------
    >>> round(mixture_separation(paper_mixture(2, 2, R=3.0)), 6)
    4.242641
    """
    params = check_mixture_params(params)
    if params.n_components < 2:
        return math.inf
    sig = np.sqrt(np.linalg.eigvalsh(params.covariances)[:, -1])
    dist = np.sqrt(_kernels.sq_distances(params.means, params.means))
    ratio = dist / np.maximum(sig[:, None], sig[None, :])
    np.fill_diagonal(ratio, np.inf)
    return float(ratio.min())


# ============================================================================ SampleTuples
def kmeanspp_label_chunks(chunks: ArrayLike, n_clusters: int, random_state: RNGLike = None, *, n_init: int = 3,
                          max_iter: int = 20) -> tuple[np.ndarray, np.ndarray]:
    """Non-private labeling oracle ``A`` of ``SampleTuples``: k-means++ then Lloyd, **batched over chunks**.

    ``chunks`` has shape ``(t, n', d)``. Every chunk is clustered independently by the package's per-chunk
    k-means kernel (k-means++ seeding followed by exactly ``max_iter`` Lloyd iterations, best of ``n_init``
    restarts by inertia, each chunk with its own random numbers), so a chunk's result depends on its own
    points only. Returns ``(labels, means)`` of shapes ``(t, n')`` and ``(t, k, d)``: ``means[j, i]`` is the
    average of the points of chunk ``j`` assigned to centre ``i`` in the last iteration (an empty label keeps
    its seed) and ``labels`` assigns every point to its nearest final centre.

    Examples
    --------
    >>> import numpy as np
    >>> chunks = np.concatenate([np.zeros((4, 50, 2)), np.full((4, 50, 2), 9.0)], axis=1)
    >>> labels, means = kmeanspp_label_chunks(chunks, 2, random_state=0)
    >>> labels.shape, means.shape
    ((4, 100), (4, 2, 2))
    """
    C = check_data(chunks, "chunks", ndim=3)
    t, m, d = C.shape
    k = check_int(n_clusters, "n_clusters", 1, m)
    n_init = check_int(n_init, "n_init", 1, 100)
    max_iter = check_int(max_iter, "max_iter", 1, 10_000)
    rng = check_rng(random_state, "random_state")
    chunk = np.repeat(np.arange(t), m)
    means, _ = _kernels.chunk_kmeans(C.reshape(-1, d), chunk, t, k, rng, n_iter=max_iter, n_init=n_init)
    labels = np.empty((t, m), dtype=np.int64)
    step = max(1, (1 << 20) // max(m * k * d, 1))
    for a in range(0, t, step):  # blocks of chunks, vectorised inside (bounded memory)
        b = min(t, a + step)
        D = (np.einsum("tmd,tmd->tm", C[a:b], C[a:b])[:, :, None] - 2 * np.einsum("tmd,tkd->tmk", C[a:b], means[a:b])
             + np.einsum("tkd,tkd->tk", means[a:b], means[a:b])[:, None, :])
        labels[a:b] = np.argmin(D, axis=2)
    return labels, means


def _check_labels(lab, m, k):
    """The labels a user's ``labeler`` returned for one chunk: ``m`` integers in ``[0, k)``."""
    if isinstance(lab, (str, bytes)):
        raise BadTypeError("labeler must return an array of integer labels, got a string")
    lab = np.asarray(lab)
    if lab.dtype.kind not in "iu" and not (lab.dtype.kind == "f" and np.all(np.isfinite(lab))
                                          and np.all(lab == np.round(lab))):
        raise BadTypeError(f"labeler must return integer labels, got dtype {lab.dtype}")
    if lab.shape != (m,):
        raise ValueError(f"labeler must return one label per row of the chunk (shape ({m},)), got shape {lab.shape}")
    if lab.size and (lab.min() < 0 or lab.max() >= k):
        raise ValueError(f"labeler returned labels outside [0, n_components={k}): {int(lab.min())} to "
                         f"{int(lab.max())}")
    return lab.astype(np.int64)


def sample_tuples(X1: ArrayLike, n_tuples: int, chunk_size: int, n_components: int, *, radius: float = np.inf,
                  labeler: (Literal["kmeans++"]
                            | Callable[[np.ndarray, int, np.random.Generator], ArrayLike]) = "kmeans++",
                  random_state: RNGLike = None, n_init: int = 3, max_iter: int = 20) -> np.ndarray:
    """``SampleTuples`` (paper §6.2): one k-tuple of per-label averages per disjoint chunk, chunks by index.

    Chunk ``j`` is ``X1[j·n' : (j+1)·n']`` (split by index, as in the paper). ``labeler`` is ``"kmeans++"``
    (:func:`kmeanspp_label_chunks`, batched) or a callable ``labeler(chunk, k, rng) -> labels`` called once
    per chunk. Tuples leaving ``B(0, radius)`` are replaced by the fixed public all-zero tuple. Returns an array
    ``(t, k, d)``. The tuples are **not** private; only ``G``'s output on them is. (:class:`PrivateGaussianMixture`
    splits its sample by independent random labels instead, which needs no public N.)

    Examples
    --------
    >>> X, _ = sample_mixture(paper_mixture(2, 2, R=20.0), 2000, random_state=0)
    >>> sample_tuples(X, 10, 200, 2, random_state=0).shape
    (10, 2, 2)
    """
    t = check_int(n_tuples, "n_tuples", 1, MAX_ALLOCATION)
    m = check_int(chunk_size, "chunk_size", 1, MAX_ALLOCATION)
    k = check_int(n_components, "n_components", 1, m)
    r = check_real(radius, "radius", low=0.0, low_open=True, allow_inf=True)
    if not (labeler == "kmeans++" or callable(labeler)):
        raise ValueError(f"labeler must be 'kmeans++' or a callable, got {labeler!r}")
    X1 = check_data(X1, "X1")
    if X1.shape[0] < t * m:
        raise ValueError(f"X1 has {X1.shape[0]} rows, fewer than n_tuples*chunk_size={t * m}")
    rng = check_rng(random_state, "random_state")
    chunks = X1[: t * m].reshape(t, m, X1.shape[1])
    if labeler == "kmeans++":
        _, T = kmeanspp_label_chunks(chunks, k, rng, n_init=n_init, max_iter=max_iter)
    else:
        T = np.empty((t, k, X1.shape[1]))
        for j in range(t):  # loop over chunks (t is a few hundred); user oracles are not vectorised
            lab = _check_labels(labeler(chunks[j], k, rng), m, k)
            for i in range(k):
                sel = chunks[j][lab == i]
                T[j, i] = sel.mean(axis=0) if sel.shape[0] else 0.0
    if np.isfinite(r):
        T, _ = tuples.wrap_tuples(T, r)
    return T


def simulate_chunk_means(params: MixtureParams, n_tuples: int, chunk_size: int, random_state: RNGLike = None, *,
                         radius: float = np.inf) -> np.ndarray:
    """Exact fast simulator of ``SampleTuples`` when the labeler recovers the true partition (§7).

    For chunk j the component counts are ``(N_1..N_k) ~ Multinomial(n', w)`` and the label-average of
    component i is exactly ``N(μ_i, Σ_i/N_i)``; the tuple costs O(k d) instead of a k-means run on n' points.
    A component absent from a chunk (``N_i = 0``) makes the tuple the fixed public all-zero tuple (a bad
    tuple), as does a tuple leaving ``B(0, radius)``. Returns ``(t, k, d)``.

    Examples
    --------
    >>> simulate_chunk_means(paper_mixture(2, 2), 5, 100, random_state=0).shape
    (5, 2, 2)
    """
    params = check_mixture_params(params)
    k, d = params.means.shape
    t = check_int(n_tuples, "n_tuples", 1, MAX_ALLOCATION // (k * d))
    m = check_int(chunk_size, "chunk_size", 1, 2**62)
    r = check_real(radius, "radius", low=0.0, low_open=True, allow_inf=True)
    rng = check_rng(random_state, "random_state")
    counts = rng.multinomial(m, params.weights, size=t)  # (t, k)
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    Z = rng.normal(size=(t, k, d)) / np.sqrt(np.maximum(counts, 1))[:, :, None]  # not privacy noise: simulation
    T = params.means[None] + np.einsum("kij,tkj->tki", chol, Z)
    T[np.any(counts == 0, axis=1)] = 0.0
    if np.isfinite(r):
        T, _ = tuples.wrap_tuples(T, r)
    return T


def match_components(true_means: ArrayLike, est_means: ArrayLike) -> np.ndarray:
    """Permutation ``perm`` with ``est_means[perm[i]]`` matched to ``true_means[i]`` (Hungarian, L2 cost).

    Examples
    --------
    >>> match_components([[0.0, 0.0], [5.0, 5.0]], [[5.0, 4.9], [0.1, 0.0]]).tolist()
    [1, 0]
    """
    A = check_data(true_means, "true_means")
    B = check_data(est_means, "est_means", n_features=A.shape[1], features_of="true_means")
    if B.shape[0] != A.shape[0]:
        raise ValueError(f"est_means must have {A.shape[0]} rows, got {B.shape[0]}")
    cost = np.sqrt(_kernels.sq_distances(A, B))
    rows, cols = optimize.linear_sum_assignment(cost)
    perm = np.empty(A.shape[0], dtype=int)
    perm[rows] = cols
    return perm


def gaussian_tv_upper_bound(mu1: ArrayLike, S1: ArrayLike, mu2: ArrayLike, S2: ArrayLike) -> float:
    """``min(1, √(KL/2))`` (Pinsker) with the closed-form KL(N(μ1,Σ1) ‖ N(μ2,Σ2)); an upper bound on d_TV.

    Examples
    --------
    >>> import numpy as np
    >>> gaussian_tv_upper_bound([0.0], np.eye(1), [0.0], np.eye(1))
    0.0
    """
    mu1 = check_data(mu1, "mu1", ndim=1)
    d = mu1.size
    mu2 = check_data(mu2, "mu2", ndim=1)
    S1 = check_data(S1, "S1")
    S2 = check_data(S2, "S2")
    if mu2.shape != (d,) or S1.shape != (d, d) or S2.shape != (d, d):
        raise ValueError(f"mu1, mu2 must have length d and S1, S2 shape (d, d), d = {d}")
    try:
        L2 = np.linalg.cholesky(S2)
        np.linalg.cholesky(S1)
    except np.linalg.LinAlgError:
        raise ValueError("S1 and S2 must be positive definite covariance matrices") from None
    A = np.linalg.solve(L2, np.linalg.solve(L2, S1).T)  # L2^-1 S1 L2^-T, symmetric
    diff = np.linalg.solve(L2, mu2 - mu1)
    logdet = 2 * np.log(np.diag(L2)).sum() - np.linalg.slogdet(S1)[1]
    kl = 0.5 * (np.trace(A) + diff @ diff - d + logdet)
    return float(min(1.0, math.sqrt(max(kl, 0.0) / 2)))


def mixture_tv_upper_bound(true: MixtureParams, est: MixtureParams) -> float:
    """``d_TV(D, D̂) <= Σ_i w_i d_TV(G_i, Ĝ_i) + ½ Σ_i |w_i − ŵ_i|`` after matching (Fact B.3).

    Examples
    --------
    >>> P = paper_mixture(2, 2)
    >>> mixture_tv_upper_bound(P, P)
    0.0
    """
    true = check_mixture_params(true, "true")
    est = check_mixture_params(est, "est", definite=False)
    perm = match_components(true.means, est.means)
    tv = sum(true.weights[i] * gaussian_tv_upper_bound(true.means[i], true.covariances[i], est.means[perm[i]],
                                                       est.covariances[perm[i]])
             for i in range(true.n_components))
    return float(min(1.0, tv + 0.5 * np.abs(true.weights - est.weights[perm]).sum()))


def mixture_tv_mc(p: MixtureParams, q: MixtureParams, n_samples: int = 20_000,
                  random_state: RNGLike = None) -> float:
    """Monte-Carlo estimate of ``d_TV(p, q) = E_{x~p}[(1 − q(x)/p(x))_+]``.

    Examples
    --------
    >>> P = paper_mixture(2, 2)
    >>> mixture_tv_mc(P, P, random_state=0)
    0.0
    """
    p = check_mixture_params(p, "p")
    q = check_mixture_params(q, "q")
    rng = check_rng(random_state, "random_state")
    X, _ = sample_mixture(p, n_samples, rng)

    def logmix(P, X):
        return special.logsumexp(_log_gaussian(X, P.means, P.covariances) + np.log(P.weights)[None], axis=1)

    lr = logmix(q, X) - logmix(p, X)
    return float(np.mean(np.maximum(0.0, 1.0 - np.exp(np.minimum(lr, 50.0)))))


def parameter_errors(true: MixtureParams, est: MixtureParams) -> dict:
    """Errors after matching components: ``mean`` = max_i ‖μ̂_i − μ_i‖₂, ``cov`` = max_i ‖Σ̂_i − Σ_i‖₂
    (operator norm), ``weight`` = ``max_i |ŵ_i − w_i|``, ``tv_bound`` = :func:`mixture_tv_upper_bound`.

    Examples
    --------
    >>> P = paper_mixture(2, 2)
    >>> parameter_errors(P, P)["mean"]
    0.0
    """
    true = check_mixture_params(true, "true")
    est = check_mixture_params(est, "est", definite=False)
    perm = match_components(true.means, est.means)
    mean_err = np.linalg.norm(est.means[perm] - true.means, axis=1).max()
    cov_err = np.abs(np.linalg.eigvalsh(est.covariances[perm] - true.covariances)).max()
    w_err = np.abs(est.weights[perm] - true.weights).max()
    return {"mean": float(mean_err), "cov": float(cov_err), "weight": float(w_err),
            "tv_bound": mixture_tv_upper_bound(true, est)}


def separates(params: MixtureParams, centers: ArrayLike, n_eval_per_component: int = 2000,
              random_state: RNGLike = None) -> bool:
    """The paper's §7 success criterion on fresh samples: there is a bijection between centres and components
    such that **every** one of ``n_eval_per_component`` fresh samples of component i is nearest to its centre.
    ``centers=None`` (⊥) is a failure.

    Examples
    --------
    >>> P = paper_mixture(2, 2, R=20.0)
    >>> separates(P, P.means, random_state=0), separates(P, None)
    (True, False)
    """
    params = check_mixture_params(params)
    k, d = params.means.shape
    m = check_int(n_eval_per_component, "n_eval_per_component", 1, MAX_ALLOCATION // (k * d))
    rng = check_rng(random_state, "random_state")
    if centers is None:
        return False
    C = check_data(centers, "centers", n_features=d)
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    Z = rng.normal(size=(k, m, d))  # not privacy noise: fresh evaluation samples
    X = params.means[:, None, :] + np.einsum("kij,kmj->kmi", chol, Z)
    lab = _kernels.assign(X.reshape(-1, d), C).reshape(k, m)
    first = lab[:, 0]
    return bool(np.all(lab == first[:, None]) and np.unique(first).size == k)
