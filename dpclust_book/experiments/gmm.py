"""The experiment harness of the Gaussian-mixture chapter (Kamath et al.'s easy instances, §6–§7).

:func:`fit_private_gmm_simulated` fits :class:`~dpclust_core.gmm.PrivateGaussianMixture` with its first half
``X1`` simulated as chunk means (the sample sizes of the paper's theorems do not fit in memory),
:func:`compare_methods` runs the private method next to EM and the naive baseline, and
:func:`separation_success_rate` / :func:`separation_sample_complexity` measure the paper's Test1–Test3 criterion.
Nothing here is needed to *use* the estimators.
"""
from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np

from dpclust_core import _kernels
from dpclust_core import ktuple as _kt
from dpclust_core import tuples
from dpclust_core._validation import (MAX_ALLOCATION, BadTypeError, RNGLike, check_bool, check_delta, check_epsilon,
                                      check_int, check_options, check_radius, check_real, check_rng)
from dpclust_core.gmm import (MixtureParams, NaiveNoisyGaussianMixture, PrivateGaussianMixture, check_mixture_params,
                              make_k_tuple, min_tuples, sample_mixture)

from .mixtures import match_components, parameter_errors, separates, simulate_chunk_means

__all__ = ["fit_private_gmm_simulated", "compare_methods", "separation_success_rate", "separation_sample_complexity"]

# ============================================================================ experiment harness
def fit_private_gmm_simulated(params: MixtureParams, n_tuples: int, chunk_size: int, n2: int,
                              estimator: PrivateGaussianMixture,
                              random_state: RNGLike = None) -> PrivateGaussianMixture:
    """Fit ``estimator`` on a sample of about ``t·n' + n2`` points without materialising ``X1``.

    ``X1``'s tuples come from :func:`~dpclust_book.experiments.mixtures.simulate_chunk_means` (exact when the labeler recovers the partition),
    ``X2`` is sampled for real; then :meth:`~dpclust_core.gmm.PrivateGaussianMixture.fit_tuples`. Returns the fitted estimator.

    Examples
    --------
    >>> from dpclust_core.gmm import PrivateGaussianMixture, paper_mixture
    >>> P = paper_mixture(2, 2, R=100.0)
    >>> est = PrivateGaussianMixture(2, 4.0, 1e-6, radius=200.0, random_state=1)
    >>> fit_private_gmm_simulated(P, 324, 2000, 5000, est, random_state=0).success_
    True
    """
    params = check_mixture_params(params)
    if not isinstance(estimator, PrivateGaussianMixture):
        raise BadTypeError(f"estimator must be a PrivateGaussianMixture, got {type(estimator).__name__}")
    n2 = check_int(n2, "n2", 0, MAX_ALLOCATION // params.n_features)
    rng = check_rng(random_state, "random_state")
    T = simulate_chunk_means(params, n_tuples, chunk_size, rng, radius=check_radius(estimator.radius))
    X2 = sample_mixture(params, n2, rng)[0] if n2 else np.empty((0, params.n_features))
    return estimator.fit_tuples(T, X2)


def compare_methods(params: MixtureParams, n: int, *, epsilon: float, delta: float, radius: float,
                    sigma_max: float = 1.0, sigma_min: float = 1e-3,
                    methods: Sequence[Literal["em", "naive", "private"]] = ("em", "naive", "private"),
                    private_kwargs: dict | None = None, simulate_x1: bool = False, n_tuples: int | None = None,
                    chunk_size: int | None = None, random_state: RNGLike = None) -> dict:
    """Parameter errors of non-private EM, the naive baseline and :class:`~dpclust_core.gmm.PrivateGaussianMixture` on one sample.

    ``n`` is the total sample size. With ``simulate_x1=True`` the private method's ``X1`` is simulated
    (``n_tuples``/``chunk_size`` required, ``n2 = n − t·n'``) and EM / naive run on an ``n``-point sample
    only if ``n <= 200_000`` (else they are skipped, NaN). Without it the private method gets
    ``x1_fraction = 0.5`` of the sample for ``X1``. Returns ``{method: errors dict or None}``
    (``None`` = the private test failed).

    Examples
    --------
    >>> from dpclust_core.gmm import paper_mixture
    >>> out = compare_methods(paper_mixture(2, 2, R=10.0), 5000, epsilon=1.0, delta=1e-6, radius=20.0,
    ...                       methods=("em",), random_state=0)
    >>> out["em"]["mean"] < 0.2
    True
    """
    from sklearn.mixture import GaussianMixture

    params = check_mixture_params(params)
    k = params.n_components
    n = check_int(n, "n", 1, 2**62)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    radius = check_radius(radius)
    simulate_x1 = check_bool(simulate_x1, "simulate_x1")
    if isinstance(methods, str) or not all(m in ("em", "naive", "private") for m in methods):
        raise ValueError(f"methods must be a sequence of 'em', 'naive', 'private', got {methods!r}")
    if private_kwargs is not None and not isinstance(private_kwargs, dict):
        raise BadTypeError("private_kwargs must be a dict")
    rng = check_rng(random_state, "random_state")
    if simulate_x1:
        if n_tuples is None or chunk_size is None:
            raise ValueError("simulate_x1=True needs n_tuples and chunk_size")
        n_tuples = check_int(n_tuples, "n_tuples", 1, _kt.MAX_TUPLES)
        chunk_size = check_int(chunk_size, "chunk_size", 1, 2**62)
        if n - n_tuples * chunk_size < k:
            raise ValueError(f"n={n} leaves no fresh half: n_tuples*chunk_size={n_tuples * chunk_size}")
    out = {}
    X = None
    if (not simulate_x1 or n <= 200_000) and n <= MAX_ALLOCATION // params.n_features:
        X, _ = sample_mixture(params, n, rng)
    nan = {"mean": np.nan, "cov": np.nan, "weight": np.nan, "tv_bound": np.nan}
    for meth in methods:
        if meth in ("em", "naive") and X is None:
            out[meth] = nan
        elif meth == "em":
            gm = GaussianMixture(k, covariance_type="full", random_state=int(rng.integers(2**31 - 1))).fit(X)
            out[meth] = parameter_errors(params, MixtureParams(gm.means_, gm.covariances_, gm.weights_))
        elif meth == "naive":
            est = NaiveNoisyGaussianMixture(k, eps, dl, radius=radius, sigma_min=sigma_min, random_state=rng).fit(X)
            out[meth] = parameter_errors(params, est.params())
        else:
            est = PrivateGaussianMixture(k, eps, dl, radius=radius, sigma_min=sigma_min, sigma_max=sigma_max,
                                         n_tuples=n_tuples, random_state=rng, **(private_kwargs or {}))
            if simulate_x1:
                est = fit_private_gmm_simulated(params, n_tuples, chunk_size, n - n_tuples * chunk_size, est, rng)
            else:
                est.fit(X)
            out[meth] = parameter_errors(params, est.params()) if est.success_ else None
    return out


def _score_centers(params, centers, criterion, n_eval, rng):
    if centers is None:
        return False
    ok = True
    if criterion in ("centers", "both"):
        C = np.asarray(centers, float)
        perm = match_components(params.means, C)
        D = np.sqrt(_kernels.sq_distances(params.means, params.means))
        np.fill_diagonal(D, np.inf)
        ok = bool(np.all(np.linalg.norm(C[perm] - params.means, axis=1) < D.min(axis=1) / 4))
    if ok and criterion in ("samples", "both"):
        ok = separates(params, centers, n_eval, rng)
    return ok


def separation_success_rate(params: MixtureParams, epsilon: float, delta: float, n_tuples: int, chunk_size: int,
                            reps: int = 10, *, k_tuple: Literal["noisy_centers", "averages"] = "noisy_centers",
                            k_tuple_params: dict | None = None, beta: float = 0.05, radius: float | None = None,
                            n_eval_per_component: int = 500,
                            criterion: Literal["samples", "centers", "both"] = "samples",
                            stop_below: float | None = None, random_state: RNGLike = None) -> float:
    """Success rate of the **private separation** step (paper §7 criterion, :func:`~dpclust_book.experiments.mixtures.separates`) over ``reps`` runs.

    Each run simulates ``n_tuples`` tuples of chunk means of ``chunk_size`` samples (:func:`~dpclust_book.experiments.mixtures.simulate_chunk_means`),
    runs ``G`` and scores the released centres with ``criterion``: ``"samples"`` (the paper's: they separate
    ``n_eval_per_component`` fresh samples per component, :func:`~dpclust_book.experiments.mixtures.separates`), ``"centers"`` (after optimal
    matching every centre is within ``D_i/4`` of its mean, ``D_i`` the distance to the nearest other mean) or
    ``"both"``. With k = 2 random centres separate the samples by luck about half the time; ``"centers"`` does
    not have that weakness. ``radius`` (default ``2·max‖μ_i‖ + 10``) is the public domain of PrivatekAverages
    and of the tuple wrap. With ``stop_below``, the runs stop as soon as the rate can no longer reach
    ``stop_below`` (the returned value then counts the runs not made as failures; the decision
    "rate >= stop_below" is unchanged).

    Examples
    --------
    >>> from dpclust_core.gmm import paper_mixture
    >>> separation_success_rate(paper_mixture(2, 2, R=20.0), 4.0, 1e-6, 324, 10_000, reps=2, random_state=0)
    1.0
    """
    params = check_mixture_params(params)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    n_tuples = check_int(n_tuples, "n_tuples", 1, _kt.MAX_TUPLES)
    chunk_size = check_int(chunk_size, "chunk_size", 1, 2**62)
    reps = check_int(reps, "reps", 1, 10**6)
    check_options(k_tuple, "k_tuple", ("noisy_centers", "averages"))
    check_options(criterion, "criterion", ("samples", "centers", "both"))
    beta = tuples.check_beta(beta)
    if stop_below is not None:
        stop_below = check_real(stop_below, "stop_below", low=0.0, high=1.0)
    rng = check_rng(random_state, "random_state")
    k = params.n_components
    radius = 2.0 * float(np.max(np.linalg.norm(params.means, axis=1))) + 10.0 if radius is None else \
        check_radius(radius)
    k_tuple_params = dict(k_tuple_params or {})
    if k_tuple == "noisy_centers" and k_tuple_params.get("gamma") is None:  # compute the default Γ once
        gamma = _kt.noisy_centers_min_gamma(k, params.n_features, eps, dl, beta)
        if gamma > _kt.MAX_GAMMA:
            raise ValueError(f"epsilon={eps!r} is too small: PrivatekNoisyCenters would need a separation gamma of "
                             f"{gamma:.3g}, above {_kt.MAX_GAMMA:g} (delta={dl!r}, beta={beta!r})")
        k_tuple_params["gamma"] = gamma
    ok = fail = 0
    max_fail = math.inf if stop_below is None else reps * (1.0 - stop_below) + 1e-9
    for _ in range(reps):  # loop over repetitions
        T = simulate_chunk_means(params, n_tuples, chunk_size, rng, radius=radius)
        g = make_k_tuple(k_tuple, k, eps, dl, beta=beta, radius=radius, rng=rng, **k_tuple_params)
        centers, status = g.cluster(T)
        good = _score_centers(params, centers if status else None, criterion, n_eval_per_component, rng)
        ok += good
        fail += not good
        if fail > max_fail:
            break
    return ok / reps


def separation_sample_complexity(params: MixtureParams, epsilon: float, delta: float, *, reps: int = 10,
                                 threshold: float = 0.9,
                                 k_tuple: Literal["noisy_centers", "averages"] = "noisy_centers",
                                 k_tuple_params: dict | None = None, beta: float = 0.05, n_tuples: int | None = None,
                                 criterion: Literal["samples", "centers", "both"] = "samples",
                                 chunk_start: int = 8, max_chunk: int = 2**36, refine: int = 2,
                                 random_state: RNGLike = None) -> dict:
    """Sample complexity of the private separation (§7): the smallest total ``t·n'`` at which the success
    rate over ``reps`` runs reaches ``threshold``.

    The number of tuples is fixed at ``n_tuples`` (default: the minimum ``G`` accepts, as the paper did for
    PrivatekAverages) and the chunk size ``n'`` is searched by doubling from ``chunk_start``, then ``refine``
    bisection steps in log scale. Returns ``{"n_tuples", "chunk_size", "total", "rates"}`` with
    ``chunk_size = None`` / ``total = inf`` if ``max_chunk`` is reached without success.

    Examples
    --------
    >>> from dpclust_core.gmm import paper_mixture
    >>> res = separation_sample_complexity(paper_mixture(2, 2, R=20.0), 4.0, 1e-6, reps=2, chunk_start=4096,
    ...                                    refine=0, random_state=0)
    >>> res["n_tuples"], res["chunk_size"] is not None
    (324, True)
    """
    params = check_mixture_params(params)
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    threshold = check_real(threshold, "threshold", low=0.0, high=1.0)
    refine = check_int(refine, "refine", 0, 64)
    m = check_int(chunk_start, "chunk_start", 1, 2**62)
    max_chunk = check_int(max_chunk, "max_chunk", 1, 2**62)
    reps = check_int(reps, "reps", 1, 10**6)
    rng = check_rng(random_state, "random_state")
    k = params.n_components
    t = min_tuples(k_tuple, k, eps, dl, beta, **(k_tuple_params or {})) if n_tuples is None else \
        check_int(n_tuples, "n_tuples", 1, _kt.MAX_TUPLES)
    rates = {}

    def rate(c):
        if c not in rates:
            rates[c] = separation_success_rate(params, eps, dl, t, c, reps, k_tuple=k_tuple,
                                               k_tuple_params=k_tuple_params, beta=beta, criterion=criterion,
                                               stop_below=threshold, random_state=rng)
        return rates[c]

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
