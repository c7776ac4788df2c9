"""Private learning of separated Gaussian mixtures by reduction to k-tuple clustering.

Cohen, Kaplan, Mansour, Stemmer & Tsfadia, *Differentially-Private Clustering of Easy Instances*
(ICML 2021), §6 (algorithms) and §7 (experiments).

The reduction (:class:`PrivateGaussianMixture`):

1. split the sample into ``X1`` (``t`` chunks) and ``X2`` (the rest) by independent random labels, one per
   record (data-independent);
2. ``SampleTuples``: run a non-private labeling algorithm (k-means++ then Lloyd) on every chunk of ``X1`` and
   turn chunk ``j`` into the k-tuple of its per-label **averages** (not raw points, §6.3);
3. private k-tuple clustering ``G`` on the ``t`` tuples (:mod:`dpclust_core.ktuple`) gives private
   centres ``ĉ_1..ĉ_k`` (this is the *private separation*);
4. every point of ``X2`` goes to its nearest ``ĉ_i``; a private single-Gaussian learner ``M`` runs
   on each cluster ``X2^i`` and Laplace noise on the counts gives the weights;
5. the weights are post-processed onto the simplex.

Neighbouring notion: **add/remove one record**, the book's notion, with N private. The paper splits the sample
by index with n public (replace-one); here each record draws its own part (a chunk of ``X1`` or ``X2``), so
adding or removing one record changes one tuple or one point of ``X2``, and nothing depends on N: the number
of tuples is a function of public parameters, the expected chunk size is ``x1_fraction·N/t``. ``X1`` and
``X2`` are the parts of a random partition with a fixed number of parts, so they compose in parallel
(Thm 6.1): the total is ``(max(ε_G, ε_X2), max(δ_G, δ_X2))``; the ledger records a parallel group of two parts.

The single-Gaussian learner (the paper leaves ``M`` abstract; its running example is [KLSU19] and CoinPress
[BDKU20] is the practical choice it names) is one concrete learner in the spirit of CoinPress:
``mean_steps`` clipped Gaussian-mechanism rounds for the means (the first centred at the private centre
``ĉ_i``, each later one at the previous released mean with a smaller public radius), then one clipped
Gaussian release of the scatter matrices around the released means; the noisy counts of the weight release
are the denominators; covariance eigenvalues are projected onto the public range ``[σ_min², σ_max²]``
(post-processing). Under add/remove the stacked statistics of the k clusters have sensitivity 1 (the
radius-normalised sums), ``ρ₂²`` (the scatter matrices) and 1 (the counts): one record enters one cluster.

Every noisy release goes through :mod:`dpclust_core.mechanisms` (exact discrete Laplace / Gaussian noise,
floating-point safe) and is recorded in the ledger by the mechanism.

The paper's naive baseline is :class:`NaiveNoisyGaussianMixture`. The experiments of §7 (generators of
separated mixtures, ``SampleTuples`` on its own and its exact simulator, error measures) and their harness are
the book's: ``dpclust_book.experiments.mixtures`` and ``dpclust_book.experiments.gmm``.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import special

from . import _kernels
from . import tuples
from . import ktuple as _kt
from ._validation import (MAX_ALLOCATION, MAX_BOUND, ArrayLike, BadTypeError, RNGLike, Bool, Delta, Epsilon, Int,
                          Ledger, NoneOr, Options, Radius, RandomState, Real, Spec, budget_shares, 
                          check_data, check_delta, check_epsilon, check_int, check_options,
                          check_radius, check_real, check_rng)
from ._validation import Data, Rng, validate_params
from .accounting import PrivacyLedger
from .base import DPEstimator
from .mechanisms import discrete_gaussian_sigma, gaussian_mechanism_sigma, gaussian_mechanism, gaussian_sigma, laplace_mechanism

__all__ = [
    "MixtureParams",
    "check_mixture_params",
    "paper_mixture",
    "sample_mixture",
    "clipped_cluster_sums",
    "clipped_scatter_triu",
    "private_cluster_gaussians",
    "PrivateGaussianMixture",
    "naive_noise_sigma",
    "naive_noisy_points",
    "NaiveNoisyGaussianMixture",
    "make_k_tuple",
    "min_tuples",
]

#: √(2 ln 10^6): a Gaussian point lies more than σ(√d + this) from its mean with probability below 1e-6
#: (norm tail), which sets the default covariance clipping radius without looking at N.
_CLIP_TAIL = math.sqrt(2.0 * math.log(1e6))


def _positive(x, name):
    return check_real(x, name, low=0.0, low_open=True)


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


def check_mixture_params(params: MixtureParams, name: str = "params", definite: bool = True) -> MixtureParams:
    """A valid :class:`MixtureParams`, its arrays as floats; with ``definite``, symmetric positive definite
    covariances (needed to sample from it or evaluate its density; an estimate compared with the truth need not
    be). Raises ``TypeError``/``ValueError`` naming ``name`` otherwise.

    Examples
    --------
    >>> check_mixture_params(paper_mixture(2, 2)).weights.tolist()
    [0.5, 0.5]
    """
    if not isinstance(params, MixtureParams):
        raise BadTypeError(f"{name} must be a MixtureParams, got {type(params).__name__}")
    mu = check_data(params.means, f"{name}.means")
    k, d = mu.shape
    cov = check_data(params.covariances, f"{name}.covariances", ndim=3)
    if cov.shape != (k, d, d):
        raise ValueError(f"{name}.covariances must have shape {(k, d, d)}, got {cov.shape}")
    if definite and not np.allclose(cov, np.swapaxes(cov, 1, 2), rtol=1e-10, atol=0.0):
        raise ValueError(f"{name}.covariances must be symmetric matrices")
    try:
        if definite:
            np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(f"{name}.covariances must be positive definite (a covariance with a zero or negative "
                         f"eigenvalue gives undefined separations)") from None
    w = check_data(params.weights, f"{name}.weights", ndim=1)
    if w.shape != (k,) or np.any(w < 0) or not np.isclose(w.sum(), 1.0):
        raise ValueError(f"{name}.weights must be k non-negative numbers summing to 1")
    return MixtureParams(mu, cov, w)


def paper_mixture(n_components: int = 2, n_features: int = 2, R: float = 20.0) -> MixtureParams:
    """The mixture of the paper's §7 experiments: uniform weights, components ``N(R·e_i, I_d)``.

    ``e_i`` is the i-th standard basis vector, so every pair of means is ``R√2`` apart (needs d >= k).

    Examples
    --------
    >>> paper_mixture(2, 3, R=5.0).means.tolist()
    [[5.0, 0.0, 0.0], [0.0, 5.0, 0.0]]
    """
    k = check_int(n_components, "n_components", 1, 10_000)
    d = check_int(n_features, "n_features", 1, 10_000)
    if d < k:
        raise ValueError(f"n_features={d} must be >= n_components={k} (means R·e_i)")
    R = _positive(R, "R")
    means = R * np.eye(k, d)
    return MixtureParams(means, np.repeat(np.eye(d)[None], k, axis=0), np.full(k, 1.0 / k))


def sample_mixture(params: MixtureParams, n_samples: int,
                   random_state: RNGLike = None) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``n_samples`` i.i.d. points; returns ``(X, labels)`` (labels i.i.d. from the weights).

    Examples
    --------
    >>> X, y = sample_mixture(paper_mixture(2, 2), 100, random_state=0)
    >>> X.shape, y.shape
    ((100, 2), (100,))
    """
    params = check_mixture_params(params)
    k, d = params.means.shape
    n = check_int(n_samples, "n_samples", 1, MAX_ALLOCATION // d)
    rng = check_rng(random_state, "random_state")
    labels = rng.choice(k, size=n, p=params.weights)
    chol = np.linalg.cholesky(params.covariances + 1e-12 * np.eye(d))
    Z = rng.normal(size=(n, d))  # not privacy noise: a data generator
    X = params.means[labels] + np.einsum("nij,nj->ni", chol[labels], Z) if d > 1 else \
        params.means[labels] + Z * chol[labels, 0, 0][:, None]
    return X, labels


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


def _labels(labels, n, k, name="labels"):
    if isinstance(labels, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of integers, got a string")
    lab = np.asarray(labels)
    if lab.dtype.kind not in "iu":
        raise BadTypeError(f"{name} must be integers, got dtype {lab.dtype}")
    if lab.shape != (n,):
        raise ValueError(f"{name} must have one entry per row ({n}), got shape {lab.shape}")
    if n and (lab.min() < 0 or lab.max() >= k):
        raise ValueError(f"{name} must lie in [0, {k})")
    return lab


def clipped_cluster_sums(X2: ArrayLike, labels: ArrayLike, centers: ArrayLike,
                         radii: float | ArrayLike) -> np.ndarray:
    """The statistic of a mean round: ``S_i = Σ_{x: label i} clip_{ρ_i}(x − a_i) / ρ_i``, shape (k, d).

    L2 sensitivity of the stacked ``(S_1..S_k)``: 1 under add/remove of one record (one row moves by at most
    1); 2 under replace-one.

    Examples
    --------
    >>> import numpy as np
    >>> clipped_cluster_sums(np.array([[3.0, 0.0], [0.5, 0.0]]), np.array([0, 0]), np.zeros((1, 2)), 1.0).tolist()
    [[1.5, 0.0]]
    """
    X2 = check_data(X2, "X2")
    A = check_data(centers, "centers", n_features=X2.shape[1], features_of="X2")
    k = A.shape[0]
    rho = _radii(radii, k, "radii")
    lab = _labels(labels, X2.shape[0], k)
    return _clipped_sums(X2, lab, A, rho)


def _radii(radii, k, name):
    if np.ndim(radii) == 0:
        return np.full(k, check_radius(radii, name))
    r = check_data(radii, name, ndim=1)
    if r.shape != (k,) or np.any(r < 1e-100) or np.any(r > MAX_BOUND):
        raise ValueError(f"{name} must be a positive number or {k} positive numbers (each in [1e-100, "
                         f"{MAX_BOUND:g}])")
    return r


def _clipped_sums(X2, lab, A, rho):
    U = _clip_rows(X2 - A[lab], rho[lab]) / rho[lab][:, None]
    return _kernels.cluster_stats(U, lab, A.shape[0])[1]


def clipped_scatter_triu(X2: ArrayLike, labels: ArrayLike, means: ArrayLike, radius: float) -> np.ndarray:
    """The statistic of the covariance step: upper triangles (diagonal included) of
    ``Q_i = Σ_{x: label i} v vᵀ``, ``v = clip_ρ₂(x − μ̂_i)``; shape (k, d(d+1)/2).

    L2 sensitivity of the stacked vector: ``ρ₂²`` under add/remove (``‖vvᵀ‖_F = ‖v‖² <= ρ₂²``, and the upper
    triangle has at most that norm); ``√2 ρ₂²`` under replace-one.

    Examples
    --------
    >>> import numpy as np
    >>> clipped_scatter_triu(np.array([[1.0, 2.0]]), np.array([0]), np.zeros((1, 2)), 10.0).tolist()
    [[1.0, 2.0, 4.0]]
    """
    X2 = check_data(X2, "X2")
    M = check_data(means, "means", n_features=X2.shape[1], features_of="X2")
    rho2 = check_radius(radius)
    lab = _labels(labels, X2.shape[0], M.shape[0])
    return _clipped_scatter(X2, lab, M, rho2)


def _clipped_scatter(X2, lab, M, rho2):
    k, d = M.shape
    V = _clip_rows(X2 - M[lab], rho2)
    iu = np.triu_indices(d)
    out = np.empty((k, iu[0].size))
    for i in range(k):  # loop over clusters, each a vectorised pass over its points
        Vi = V[lab == i]
        out[i] = (Vi.T @ Vi)[iu]
    return out


def _gaussian_sigma_bound(l2, eps, dl):
    """An upper bound on the σ ``gaussian_mechanism`` adds for L2 sensitivity ``l2`` (grid rounding included)."""
    return discrete_gaussian_sigma(l2 * (1.0 + 2.0**-10), eps, dl)


@validate_params(X2=Data(), epsilon_weights=Epsilon(), epsilon_mean=Epsilon(), delta_mean=Delta(),
                 epsilon_cov=Epsilon(), delta_cov=Delta(), cov_radius=Radius(), mean_steps=Int(1, 1000),
                 beta=tuples.check_beta, sigma_min=Real(0.0), sigma_max=Real(0.0, low_open=True, allow_inf=True),
                 ledger=Ledger(), rng=Rng())
def private_cluster_gaussians(X2: ArrayLike, centers: ArrayLike, epsilon_weights: float, epsilon_mean: float,
                              delta_mean: float, epsilon_cov: float, delta_cov: float, mean_radius: float | ArrayLike,
                              cov_radius: float, *, mean_steps: int = 2, beta: float = 0.05, sigma_min: float = 0.0,
                              sigma_max: float = np.inf, rng: RNGLike = None, ledger: PrivacyLedger | None = None
                              ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Steps 4–5 of ``PrivateGMM``: assign ``X2`` to the private centres, learn each Gaussian, noisy weights.

    (ε, δ)-DP under add/remove of one row of ``X2`` for fixed ``centers``, with ``ε = ε_w + ε_mean + ε_cov``
    and ``δ = δ_mean + δ_cov``. The single-Gaussian learner ``M`` (the paper's ``M`` is abstract) is a few
    clipped Gaussian-mechanism steps in the spirit of CoinPress [BDKU20], all k clusters released together:

    0. **weights** (step 4c): the count vector ``|X2^i|`` + discrete Laplace noise of scale ``1/ε_w`` (one
       record changes one count by 1); its clamped values ``ñ_i >= 1`` are the denominators below;
    1. **means**, ``mean_steps`` rounds, each with ``(ε_mean, δ_mean)/mean_steps``: offsets ``x − a_i`` from
       the current centre ``a_i`` (first ``ĉ_i``) are clipped to radius ``ρ_i`` and divided by ``ρ_i``, so the
       stacked k sums have L2 sensitivity 1; ``a_i ← a_i + ρ_i (S_i + N(0, σ² I)) / ñ_i``. The next radius is
       ``cov_radius`` plus twice the high-probability noise bound ``ρ_i σ (√d + √(2 ln(2k·steps/β))) / ñ_i``
       (public: built from released values), as in CoinPress;
    2. **covariances**: offsets from the final means clipped to ``ρ₂ = cov_radius``; the k scatter matrices
       ``Σ (x−a_i)(x−a_i)ᵀ`` get Gaussian noise on their upper triangles (L2 sensitivity ``ρ₂²``),
       ``Σ̂_i = Q̃_i / ñ_i`` projected onto eigenvalues ``[σ_min², σ_max²]``.

    The Gaussian releases use :func:`~dpclust_core.mechanisms.gaussian_mechanism` (discrete, floating-point
    safe; its σ is a few % above the continuous analytic one). Each round is DP for every value of the
    earlier released quantities (adaptive composition).

    Parameters
    ----------
    X2 : array_like (n2, d)
        The fresh part of the data.
    centers : array_like (k, d)
        The private centres ``ĉ`` (public with respect to ``X2``).
    epsilon_weights, epsilon_mean, delta_mean, epsilon_cov, delta_cov : float
        The budget of each release.
    mean_radius : float or array (k,)
        The first-round radii ``ρ_i`` (public).
    cov_radius : float
        ``ρ₂`` (public).
    mean_steps : int
        Number of mean rounds.
    beta : float
        Failure probability of the radius updates (utility).
    sigma_min, sigma_max : float
        Public range of the component standard deviations.
    rng : None, int or Generator
    ledger : PrivacyLedger, optional

    Returns
    -------
    (means, covariances, weights)
        2 + mean_steps ledger entries (the weights, each mean round, the scatter matrices).

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> X2, _ = sample_mixture(paper_mixture(2, 2, R=20.0), 20_000, random_state=0)
    >>> led = PrivacyLedger()
    >>> mu, cov, w = private_cluster_gaussians(X2, 20 * np.eye(2), 0.2, 0.3, 5e-7, 0.5, 5e-7, 5.0, 6.0,
    ...                                        rng=0, ledger=led)
    >>> bool(np.abs(mu - 20 * np.eye(2)).max() < 0.1), tuple(round(v, 9) for v in led.total())
    (True, (1.0, 1e-06))
    """
    C = check_data(centers, "centers", n_features=X2.shape[1], features_of="X2")
    rho = _radii(mean_radius, C.shape[0], "mean_radius")
    if not sigma_min < sigma_max:
        raise ValueError(f"sigma_min must be < sigma_max, got {sigma_min} and {sigma_max}")
    with budget_shares("private_cluster_gaussians", epsilon_weights=epsilon_weights, epsilon_mean=epsilon_mean,
                       delta_mean=delta_mean, epsilon_cov=epsilon_cov, delta_cov=delta_cov, mean_steps=mean_steps):
        return _cluster_gaussians(X2, C, epsilon_weights, epsilon_mean, delta_mean, epsilon_cov, delta_cov, rho,
                                  cov_radius, mean_steps, beta, sigma_min, sigma_max, rng, ledger)


def _cluster_gaussians(X2, C, eps_w, eps_m, dl_m, eps_c, dl_c, rho, rho2, steps, beta, smin, smax, rng, ledger):
    k, d = C.shape
    lab = _kernels.assign(X2, C)  # ties -> smallest index
    counts = np.bincount(lab, minlength=k).astype(float)
    # 0. weights: one Laplace release of the whole count vector (one record changes one count by 1)
    noisy_counts = laplace_mechanism(counts, 1.0, eps_w, rng, l0_sensitivity=1, ledger=ledger,
                                     name="gmm: cluster counts -> weights (Laplace, L1 sens 1)")
    nhat = np.maximum(noisy_counts, 1.0)
    # 1. means: CoinPress-style clipped rounds
    a = C.copy()
    eps_step, dl_step = eps_m / steps, dl_m / steps
    sig = _gaussian_sigma_bound(1.0, eps_step, dl_step)
    tail = math.sqrt(d) + math.sqrt(2.0 * math.log(2.0 * k * steps / beta))
    rho = np.array(rho, dtype=float)
    for s in range(steps):  # loop over rounds
        S = _clipped_sums(X2, lab, a, rho)
        S_hat = gaussian_mechanism(S, 1.0, eps_step, dl_step, rng, l0_sensitivity=d, ledger=ledger,
                                   name=f"gmm: mean round {s + 1}/{steps}, clipped sums / rho_i (Gaussian, L2 sens 1)")
        a = a + rho[:, None] * S_hat / nhat[:, None]
        rho = rho2 + 2.0 * rho * sig * tail / nhat
    means = a
    # 2. covariances: clipped scatter around the released means, one Gaussian release
    Q = _clipped_scatter(X2, lab, means, rho2)
    Q = gaussian_mechanism(Q, rho2**2, eps_c, dl_c, rng, l0_sensitivity=Q.shape[1], ledger=ledger,
                           name="gmm: clipped scatter matrices (Gaussian, L2 sens rho2^2)")
    iu = np.triu_indices(d)
    scat = np.zeros((k, d, d))
    scat[:, iu[0], iu[1]] = Q
    scat = scat + np.triu(scat, 1).swapaxes(1, 2)  # mirrored (post-processing)
    covs = _psd_project(scat / nhat[:, None, None], smin**2, smax**2)
    w = np.maximum(noisy_counts, 0.0)
    weights = w / w.sum() if w.sum() > 0 else np.full(k, 1.0 / k)
    return means, covs, weights


# ============================================================================ the estimator
def _log_gaussian(X, means, covs):
    """log N(x; μ_i, Σ_i) for every x and i, shape (n, k), via Cholesky factors."""
    n, d = X.shape
    out = np.empty((n, means.shape[0]))
    for i in range(means.shape[0]):  # loop over components, each a vectorised pass over the points
        L = np.linalg.cholesky(covs[i])
        z = np.linalg.solve(L, (X - means[i]).T)
        out[:, i] = -0.5 * (z * z).sum(0) - np.log(np.diag(L)).sum() - 0.5 * d * np.log(2 * np.pi)
    return out


class _MixtureMixin:
    """predict / predict_proba / score_samples / score from ``means_``, ``covariances_``, ``weights_``."""

    def _weighted_log(self, X):
        X = self._check_X(X, "means_")
        with np.errstate(divide="ignore"):
            return _log_gaussian(X, self.means_, self.covariances_) + np.log(self.weights_)[None, :]

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Most probable component of every point under the fitted mixture."""
        return np.argmax(self._weighted_log(X), axis=1)

    def fit_predict(self, X: ArrayLike, y: ArrayLike | None = None) -> np.ndarray:
        """``fit(X)`` then ``predict(X)``. The labels of private training data are **not** private."""
        return self.fit(X).predict(X)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Posterior probability of every component for every point."""
        lw = self._weighted_log(X)
        return np.exp(lw - special.logsumexp(lw, axis=1, keepdims=True))

    def score_samples(self, X: ArrayLike) -> np.ndarray:
        """Log-density of the fitted mixture at every point."""
        return special.logsumexp(self._weighted_log(X), axis=1)

    def score(self, X: ArrayLike, y: ArrayLike | None = None) -> float:
        """Mean log-density of the fitted mixture over the rows of X (as scikit-learn's GaussianMixture)."""
        return float(np.mean(self.score_samples(X)))

    def params(self) -> MixtureParams:
        """The fitted mixture as :class:`MixtureParams`."""
        self._check_fitted("means_")
        return MixtureParams(self.means_, self.covariances_, self.weights_)


def make_k_tuple(name: Literal["noisy_centers", "averages"], n_components: int, epsilon: float, delta: float, *,
                 beta: float = 0.05, radius: float | None = None, rng: RNGLike = None,
                 **params: Any) -> _kt.PrivatekNoisyCenters | _kt.PrivatekAverages:
    """``G``: :class:`~dpclust_core.ktuple.PrivatekNoisyCenters` (``name="noisy_centers"``) or
    :class:`~dpclust_core.ktuple.PrivatekAverages` (``"averages"``, domain ``B(0, radius)``).

    Examples
    --------
    >>> make_k_tuple("noisy_centers", 2, 1.0, 1e-6)
    PrivatekNoisyCenters(delta=1e-06, epsilon=1.0, n_clusters=2)
    """
    check_options(name, "name", ("noisy_centers", "averages"))
    check_int(n_components, "n_components", 2, MAX_ALLOCATION)
    check_epsilon(epsilon)
    check_delta(delta)
    tuples.check_beta(beta)
    if name == "noisy_centers":
        return _kt.PrivatekNoisyCenters(n_components, epsilon, delta, beta=beta, random_state=rng, **params)
    if radius is None:
        raise ValueError("radius is required for k_tuple='averages'")
    return _kt.PrivatekAverages(n_components, epsilon, delta, radius=check_radius(radius), beta=beta,
                                random_state=rng, **params)


def min_tuples(k_tuple: Literal["noisy_centers", "averages"], n_components: int, epsilon: float, delta: float,
               beta: float = 0.05, **params: Any) -> int:
    """Smallest number of tuples ``t`` with ``t >= 2ℓ(t) + 2`` for ``G`` (public). ℓ does not increase with t,
    so a doubling search then bisection finds it.

    Examples
    --------
    >>> min_tuples("noisy_centers", 2, 1.0, 1e-6)
    1133
    """
    g = make_k_tuple(k_tuple, n_components, epsilon, delta, beta=beta, radius=1.0, **params)
    gp = g._validate_params()
    return _kt.min_valid_tuples(lambda t: g._public_params(gp, t, None, False)["min_n"])


class _DictSpec(Spec):
    def __call__(self, value, name):
        if not isinstance(value, dict):
            raise BadTypeError(f"{name} must be a dict of keyword arguments, got {type(value).__name__}")
        return value


class PrivateGaussianMixture(_MixtureMixin, DPEstimator):
    """``PrivateGMM`` of Cohen et al. (ICML 2021, §6.2, Thm 6.1): private mixtures by k-tuple clustering —
    (ε, δ)-DP under add/remove of one record, N private.

    Every record draws its part independently: with probability ``x1_fraction`` one of the ``t`` chunks of
    ``X1`` (uniformly), else ``X2``. The k-tuple clustering ``G`` runs on the chunks' tuples and the
    single-Gaussian learner on ``X2`` (:func:`private_cluster_gaussians`); the two parts compose in parallel,
    so each gets the whole ``(ε, δ)``. **N is not used**: ``t`` depends on public parameters only and a chunk
    holds ``x1_fraction·N/t`` records on average. With too few records the tuples are poor, ``G`` fails and
    the fit returns the data-independent fallback mixture with ``success_ = False``.

    Parameters
    ----------
    n_components : int
        ``k >= 2``.
    epsilon, delta : float
        Total budget, ``epsilon > 0``, ``0 < delta < 1``.
    radius : float
        Public ``Λ``: the component means are assumed in ``B(0, Λ)`` (bounded mixture, §6.1.2). Tuples with a
        point outside ``B(0, Λ)`` are replaced by a fixed public tuple before ``G`` (§6.2 wrap); with
        ``k_tuple="averages"`` it is also the domain of the private averages.
    sigma_min, sigma_max : float
        Public range of the component standard deviations (``σ_min² I ⪯ Σ_i ⪯ σ_max² I``). The covariance
        estimates are projected onto it (post-processing); ``sigma_max`` sets the default ``cov_clip_radius``.
    n_tuples : int, optional
        ``t``, the number of k-tuples (= chunks of ``X1``). Default: the smallest ``t`` the k-tuple algorithm
        accepts (``t >= 2ℓ+2``), computed from public parameters only.
    x1_fraction : float in (0, 1), default 0.5
        Probability that a record goes to ``X1``.
    k_tuple : {"noisy_centers", "averages"}, default "noisy_centers"
        ``G``: :class:`~dpclust_core.ktuple.PrivatekNoisyCenters` (Alg. 4.4, practical) or
        :class:`~dpclust_core.ktuple.PrivatekAverages` (Alg. 4.3, needs ~1e5-1e7 tuples).
    k_tuple_params : dict, optional
        Extra keyword arguments for ``G`` (e.g. ``{"gamma": 2000.0}`` for NoisyCenters; by default its Γ is
        :func:`~dpclust_core.ktuple.noisy_centers_min_gamma` for (k, d, ε, δ, β), in the thousands at ε = 1).
    beta : float, default 0.05
        Failure probability passed to ``G``.
    budget_split : (float, float, float), default (0.2, 0.3, 0.5)
        Shares of ``ε`` spent on ``X2`` by the weights, the means and the covariances; ``δ`` is split evenly
        between means and covariances. ``G`` on ``X1`` gets the whole ``(ε, δ)`` (parallel composition).
    clip_radius : float, optional
        Public clipping radius of the first mean round around ``ĉ_i``. Default, per cluster,
        ``ρ₂ + center_slack·D̂_i`` with ``D̂_i = min_{j≠i} ‖ĉ_i − ĉ_j‖`` (public: computed from the private
        output; NoisyCenters' Γ is sized so that ``‖ĉ_i − c_i‖ <= D_i/4`` w.h.p.).
    cov_clip_radius : float, optional
        ``ρ₂``, public clipping radius of the covariance step around the released means. Default
        ``σ_max·(√d + √(2 ln 10^6))``: a Gaussian point lies outside it with probability below 1e-6 (norm tail).
    center_slack : float, default 0.5
        See ``clip_radius``.
    mean_steps : int, default 2
        Clipped rounds of the mean estimate (CoinPress-style).
    kmeans_iter : int, default 20
        Lloyd iterations of the labeler on every chunk (after k-means++ seeding).
    n_init : int, default 3
        Restarts of the labeler on every chunk (the lowest inertia is kept).
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger; a fit it cannot afford raises before the data are read.

    Attributes
    ----------
    means_, covariances_, weights_ : ndarray
        The private mixture (the fallback mixture — means ``(i/k)·Λ·e_1``, covariances ``σ_max² I``, uniform
        weights — when ``G`` returned ⊥).
    centers_ : ndarray (k, d) or None
        The private separation centres ``ĉ`` (the output of ``G``; None on ⊥).
    success_ : bool
        False when ``G`` returned ⊥.
    clip_radius_ : ndarray (k,) or None
        The first-round clipping radii used (public), None on ⊥.
    cov_clip_radius_ : float
        ``ρ₂`` (public).
    n_tuples_ : int
        ``t`` (public).
    ledger_ : PrivacyLedger
        Total ``(ε, δ)``: a parallel group ``X1 | X2``.
    n_features_in_ : int

    Examples
    --------
    >>> P = paper_mixture(2, 2, R=100.0)
    >>> X, _ = sample_mixture(P, 400_000, random_state=0)
    >>> gm = PrivateGaussianMixture(2, 4.0, 1e-6, radius=200.0, x1_fraction=0.9, random_state=1).fit(X)
    >>> gm.success_, gm.means_.shape, tuple(round(v, 9) for v in gm.ledger_.total())
    (True, (2, 2), (4.0, 1e-06))
    """

    _budget_params = ("epsilon", "delta", "x1_fraction", "budget_split")
    #: Post-processed releases and the public scale of their grids (see DPEstimator): the public radius, its
    #: square for the covariances.
    _release_grids = {"means_": lambda est: est.radius, "covariances_": lambda est: est.radius**2,
                      "weights_": 1.0, "centers_": lambda est: est.radius, "clip_radius_": lambda est: est.radius}
    _parameters = dict(n_components=Int(2, _kt.MAX_K), epsilon=Epsilon(), delta=Delta(), radius=Radius(),
                       sigma_min=Real(0.0), sigma_max=Real(0.0, low_open=True), n_tuples=NoneOr(Int(1, _kt.MAX_TUPLES)),
                       x1_fraction=Real(0.0, 1.0, low_open=True, high_open=True),
                       k_tuple=Options("noisy_centers", "averages"), k_tuple_params=NoneOr(_DictSpec()),
                       beta=Real(_kt.MIN_BETA, 1.0, high_open=True), budget_split=tuples.Shares(3, normalise=True),
                       clip_radius=NoneOr(Radius()), cov_clip_radius=NoneOr(Radius()),
                       center_slack=Real(0.0), mean_steps=Int(1, 1000), kmeans_iter=Int(1, 10_000),
                       n_init=Int(1, 100), random_state=RandomState(), ledger=Ledger())

    def __init__(self, n_components: int, epsilon: float, delta: float, *, radius: float, sigma_min: float = 1e-3,
                 sigma_max: float = 1.0, n_tuples: int | None = None, x1_fraction: float = 0.5,
                 k_tuple: Literal["noisy_centers", "averages"] = "noisy_centers", k_tuple_params: dict | None = None,
                 beta: float = 0.05, budget_split: Sequence[float] = (0.2, 0.3, 0.5), clip_radius: float | None = None,
                 cov_clip_radius: float | None = None, center_slack: float = 0.5, mean_steps: int = 2,
                 kmeans_iter: int = 20, n_init: int = 3, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.sigma_min = sigma_min
        self.sigma_max = sigma_max
        self.n_tuples = n_tuples
        self.x1_fraction = x1_fraction
        self.k_tuple = k_tuple
        self.k_tuple_params = k_tuple_params
        self.beta = beta
        self.budget_split = budget_split
        self.clip_radius = clip_radius
        self.cov_clip_radius = cov_clip_radius
        self.center_slack = center_slack
        self.mean_steps = mean_steps
        self.kmeans_iter = kmeans_iter
        self.n_init = n_init
        self.random_state = random_state
        self.ledger = ledger

    # ------------------------------------------------------------ public inputs only
    def _setup(self, p, d, t=None):
        """``G``, its checked parameters and public parameters, and ``t`` (public inputs only; raises ValueError)."""
        if not p.sigma_min < p.sigma_max:
            raise ValueError(f"sigma_min must be < sigma_max, got {p.sigma_min} and {p.sigma_max}")
        kw = dict(p.k_tuple_params or {})
        for bad in ("random_state", "ledger", "n_clusters", "epsilon", "delta", "beta", "radius"):
            if bad in kw:
                raise ValueError(f"k_tuple_params must not set {bad!r} (it is set by PrivateGaussianMixture)")
        try:
            g = make_k_tuple(p.k_tuple, p.n_components, p.epsilon, p.delta, beta=p.beta, radius=p.radius, **kw)
            gp = g._validate_params()
        except TypeError as exc:
            raise BadTypeError(f"k_tuple_params: {exc}") from None
        t_min = _kt.min_valid_tuples(lambda n: g._public_params(gp, n, None, False)["min_n"])
        if t is None:
            t = t_min if p.n_tuples is None else p.n_tuples
        if t < t_min:
            raise ValueError(f"n_tuples={t} is too small: the k-tuple clustering needs at least {t_min} tuples "
                             f"(t >= 2*ell+2) at epsilon={p.epsilon}, delta={p.delta}")
        prm = g._public_params(gp, t, d)
        return g, gp, prm, t

    def fit(self, X: ArrayLike, y: ArrayLike | None = None) -> PrivateGaussianMixture:
        """Fit on ``X`` (n_samples, n_features); ``y`` is ignored. Returns self.

        Every public precondition (including ``G``'s) is checked before any value of X is read."""
        p = self._validate_params()
        shape = np.shape(X) if not isinstance(X, (str, bytes)) else ()
        if len(shape) == 2 and shape[1] >= 1:
            self._setup(p, shape[1])
        return super().fit(X, y)

    def _fit(self, X, p, ledger, rng):
        n, d = X.shape
        g, gp, prm, t = self._setup(p, d)
        # every record draws its own part: a chunk of X1 (probability x1_fraction, uniform chunk) or X2
        split = tuples.split_stream(rng)
        u = split.random(n)
        in1 = u < p.x1_fraction
        chunk = np.minimum((u[in1] * (t / p.x1_fraction)).astype(np.int64), t - 1)
        T = tuples.chunk_tuples(X[in1], chunk, t, p.n_components, split, p.kmeans_iter, p.n_init, empty=np.nan)
        T, _ = tuples.wrap_tuples(T, p.radius)
        self._fit_parts(T, X[~in1], p, (g, gp, prm, t), ledger, rng)

    def fit_tuples(self, T: ArrayLike, X2: ArrayLike) -> PrivateGaussianMixture:
        """Run steps 3–6 on precomputed tuples ``T`` (t, k, d) and the fresh part ``X2``. Returns self.

        For experiments: the guarantee of :meth:`fit` holds when ``T`` was made by ``SampleTuples`` from a part
        of the data disjoint from ``X2``, one tuple per disjoint chunk (then one record changes at most one
        tuple or one row of ``X2``). Used with :func:`simulate_chunk_means` to sweep sample sizes that are too
        large to materialise. The number of tuples is ``len(T)``; it must be at least what ``G`` needs.
        """
        p = self._validate_params()
        t, k, d = tuples.tuple_shape(T, p.n_components)
        shape2 = np.shape(X2) if not isinstance(X2, (str, bytes)) else ()
        if len(shape2) != 2 or shape2[1] != d:
            raise ValueError(f"X2 must have shape (n, {d}) (the tuples' dimension), got shape {shape2}")
        setup = self._setup(p, d, t)
        eps, dl = self._privacy_cost(p)
        if p.ledger is not None:
            p.ledger.require(eps, dl, name=f"fitting {type(self).__name__}")
        T = check_data(T, "T", ndim=3)
        X2 = check_data(X2, "X2", n_features=d, allow_empty=True)
        self.n_features_in_ = d
        T, _ = tuples.wrap_tuples(T, p.radius)
        ledger = PrivacyLedger(budget_epsilon=eps, budget_delta=dl)
        rng = check_rng(p.random_state, "random_state")
        tuples.split_stream(rng)  # as in fit: G then draws from the same point of the stream (the split is done)
        try:
            with _kernels.single_blas_thread():
                self._fit_parts(T, X2, p, setup, ledger, rng)
            self._snap_releases()
        finally:
            if p.ledger is not None and len(ledger):
                p.ledger.extend(ledger, group=f"{type(self).__name__}.fit_tuples")
        ledger.check()
        self.ledger_ = ledger
        return self

    def _fit_parts(self, T, X2, p, setup, ledger, rng):
        g, gp, prm, t = setup
        k, d = p.n_components, T.shape[2]
        self.n_tuples_ = int(t)
        rho2 = p.cov_clip_radius if p.cov_clip_radius is not None else p.sigma_max * (math.sqrt(d) + _CLIP_TAIL)
        self.cov_clip_radius_ = float(rho2)
        split = p.budget_split
        eps, dl = p.epsilon, p.delta
        eps_w, eps_m = split[0] * eps, split[1] * eps
        eps_c = eps - eps_w - eps_m
        with ledger.parallel("PrivateGMM: X1 | X2 (a random partition, Thm 6.1)") as par:
            with par.partition(), ledger.group(f"X1: k-tuple clustering ({type(g).__name__}) on {t} tuples"):
                centers, status = g._run(T, gp, prm, ledger, rng)
            self.centers_ = None if not status else np.asarray(centers, dtype=float)
            self.success_ = bool(status)
            if not status:
                self.clip_radius_ = None
                self.means_ = tuples.fallback_tuple(k, d, p.radius)
                self.covariances_ = np.repeat((p.sigma_max**2 * np.eye(d))[None], k, axis=0)
                self.weights_ = np.full(k, 1.0 / k)
                return
            if p.clip_radius is not None:
                rho = np.full(k, float(p.clip_radius))
            else:
                Dhat = tuples.separation(self.centers_)
                rho = rho2 + p.center_slack * Dhat
            self.clip_radius_ = rho
            with par.partition(), ledger.group("X2: the single-Gaussian learner on each cluster"):
                mu, cov, w = _cluster_gaussians(X2, self.centers_, eps_w, eps_m, dl / 2, eps_c, dl / 2, rho, rho2,
                                                p.mean_steps, p.beta, p.sigma_min, p.sigma_max, rng, ledger)
        self.means_, self.covariances_, self.weights_ = mu, cov, w


# ============================================================================ naive baseline
@validate_params(radius=Radius(), epsilon=Epsilon(), delta=Delta(), method=Options("discrete", "analytic", "classic"),
                 n_features=Int(1))
def naive_noise_sigma(radius: float, epsilon: float, delta: float,
                      method: Literal["discrete", "analytic", "classic"] = "discrete",
                      n_features: int = 1) -> float:
    """Per-point noise of the naive baseline: the Gaussian mechanism for one record in ``B(0, radius)``.

    Under replace-one the released noisy point moves with L2 sensitivity ``2·radius`` (the domain diameter
    Λ of the paper's formula). ``method="discrete"`` (default) is the σ the baseline actually adds
    (:func:`~dpclust_core.mechanisms.gaussian_mechanism`: the discrete Gaussian, a few % above the continuous
    calibration, for rows of ``n_features`` coordinates); ``"analytic"`` (Balle & Wang) and ``"classic"``
    (the paper's ``σ = Λ·√(2 ln(1.25/δ))/ε`` with ``Λ = 2·radius``, proved for ε < 1) are the continuous
    references.

    Examples
    --------
    >>> round(naive_noise_sigma(1.0, 1.0, 1e-5, "analytic"), 3)
    7.461
    """
    if method == "discrete":
        return gaussian_mechanism_sigma(2.0 * radius, epsilon, delta, n_features)
    return gaussian_sigma(2.0 * radius, epsilon, delta, method=method)


@validate_params(radius=Radius(), epsilon=Epsilon(), delta=Delta(), ledger=Ledger(), X=Data(), rng=Rng())
def naive_noisy_points(X: ArrayLike, radius: float, epsilon: float, delta: float, rng: RNGLike = None, *,
                       ledger: PrivacyLedger | None = None) -> np.ndarray:
    """The naive baseline's release: every row clipped onto ``B(0, radius)`` plus Gaussian noise.

    (ε, δ)-DP under **replace-one** neighbours with n public (the release has one row per record, so it
    publishes N): a replaced record moves one released row, with L2 sensitivity ``2·radius``. One ledger
    entry, written by :func:`~dpclust_core.mechanisms.gaussian_mechanism`.

    Examples
    --------
    >>> import numpy as np
    >>> naive_noisy_points(np.zeros((5, 2)), 1.0, 1.0, 1e-5, rng=0).shape
    (5, 2)
    """
    return gaussian_mechanism(_clip_rows(X, radius), 2.0 * radius, epsilon, delta, rng, l0_sensitivity=X.shape[1],
                              ledger=ledger, name="naive: per-point Gaussian noise (replace-one, L2 sens 2*radius)")


class NaiveNoisyGaussianMixture(_MixtureMixin, DPEstimator):
    """The naive baseline of the paper's §7: Gaussian noise on every point, then scikit-learn's EM.

    Every row is clipped onto the ball ``B(0, radius)`` and released as ``x + N(0, σ² I_d)``
    (:func:`naive_noisy_points`, ``σ = naive_noise_sigma(radius, ε, δ, n_features=d)``);
    ``sklearn.mixture.GaussianMixture`` is then fitted to the noisy points (post-processing).

    Privacy (as in the paper): **(ε, δ)-DP under replace-one** neighbours with n public: a replaced record
    changes one released row, by the Gaussian mechanism with L2 sensitivity ``2·radius``; the other rows are
    unchanged and EM is post-processing. Its release has one row per record, so unlike the other estimators
    it publishes N (it is a baseline for study). It is *local*-style noise: its scale does not shrink with n,
    and the noisy components are ``N(μ_i, Σ_i + σ² I)``, almost coinciding when ``σ`` dwarfs the separation,
    which is why the paper found that EM "failed even" with many samples.

    Parameters
    ----------
    n_components : int
        k.
    epsilon, delta : float
        The budget.
    radius : float
        Public radius of the ball the rows are clipped onto.
    deconvolve : bool, default True
        Subtract ``σ² I`` from the fitted covariances and project onto ``[sigma_min², ∞)`` (not in the paper;
        post-processing). The paper's baseline is ``deconvolve=False``.
    sigma_min : float, default 1e-3
        Floor of the deconvolved standard deviations.
    n_init, max_iter : int
        Passed to scikit-learn's EM.
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional

    Attributes
    ----------
    means_, covariances_, weights_ : ndarray
        The fitted mixture.
    noise_sigma_ : float
        σ of the per-point noise (public).
    ledger_ : PrivacyLedger
    n_features_in_ : int

    Examples
    --------
    >>> X, _ = sample_mixture(paper_mixture(2, 2, R=5.0), 2000, random_state=0)
    >>> est = NaiveNoisyGaussianMixture(2, 1.0, 1e-5, radius=10.0, random_state=0).fit(X)
    >>> est.means_.shape, tuple(round(v, 9) for v in est.ledger_.total())
    ((2, 2), (1.0, 1e-05))
    """

    #: Post-processed releases and the public scale of their grids (see DPEstimator): the public radius, its
    #: square for the covariances.
    _release_grids = {"means_": lambda est: est.radius, "covariances_": lambda est: est.radius**2,
                      "weights_": 1.0, "centers_": lambda est: est.radius, "clip_radius_": lambda est: est.radius}
    _parameters = dict(n_components=Int(1, _kt.MAX_K), epsilon=Epsilon(), delta=Delta(), radius=Radius(),
                       deconvolve=Bool(), sigma_min=Real(0.0, low_open=True), n_init=Int(1, 100),
                       max_iter=Int(1, 100_000), random_state=RandomState(), ledger=Ledger())

    def __init__(self, n_components: int, epsilon: float, delta: float, *, radius: float, deconvolve: bool = True,
                 sigma_min: float = 1e-3, n_init: int = 1, max_iter: int = 200, random_state: RNGLike = None,
                 ledger: PrivacyLedger | None = None) -> None:
        self.n_components = n_components
        self.epsilon = epsilon
        self.delta = delta
        self.radius = radius
        self.deconvolve = deconvolve
        self.sigma_min = sigma_min
        self.n_init = n_init
        self.max_iter = max_iter
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        from sklearn.mixture import GaussianMixture

        k, d = p.n_components, X.shape[1]
        if X.shape[0] < k:  # the release has one row per record: under replace-one N is public
            raise ValueError(f"X has {X.shape[0]} rows, fewer than n_components={k}: EM cannot fit")
        noisy = naive_noisy_points(X, p.radius, p.epsilon, p.delta, rng, ledger=ledger)
        self.noise_sigma_ = naive_noise_sigma(p.radius, p.epsilon, p.delta, n_features=d)
        gm = GaussianMixture(k, covariance_type="full", n_init=p.n_init, max_iter=p.max_iter,
                             random_state=int(rng.integers(2**31 - 1)))
        gm.fit(noisy)
        self.means_ = gm.means_.copy()
        self.weights_ = gm.weights_.copy()
        cov = gm.covariances_.copy()
        if p.deconvolve:
            cov = _psd_project(cov - self.noise_sigma_**2 * np.eye(d), p.sigma_min**2, np.inf)
        self.covariances_ = cov
