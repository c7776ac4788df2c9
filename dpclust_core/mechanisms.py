"""The basic mechanisms of differential privacy.

Spec ``dp-basics-and-kmeans.md`` §1.6–§1.7 (thesis Theorems 2.3.1, 2.3.2, 2.4.1 and Corollary 3).
Every function takes ``rng`` (None, an int seed or a ``numpy.random.Generator``) and an optional
``ledger`` (:class:`~dpclust_core.accounting.PrivacyLedger`) in which it records its cost.
"""
from __future__ import annotations

import numpy as np
from scipy import optimize, special

from ._validation import check_delta, check_epsilon, check_rng, check_sensitivity

__all__ = [
    "laplace_mechanism",
    "geometric_mechanism",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "gaussian_mechanism",
    "gaussian_sigma",
]


def _record(ledger, name, epsilon, delta, sensitivity):
    if ledger is not None:
        ledger.record(name, epsilon, delta, sensitivity)


def _as_value(value, name="value"):
    arr = np.asarray(value, dtype=float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def laplace_mechanism(value, sensitivity, epsilon, rng=None, *, ledger=None, name="laplace"):
    """Release ``value + Lap(sensitivity / epsilon)`` (Theorems 2.3.1 and 2.3.2, Eqs. 2.4–2.5).

    Parameters
    ----------
    value : float or array_like
        The exact answer f(D). For a vector, independent noise is added to every coordinate and
        ``sensitivity`` must be the **L1** sensitivity of the whole vector, Eq. (2.5).
    sensitivity : float
        Global sensitivity Δf >= 0 under the neighbouring notion the caller uses.
    epsilon : float
        Privacy budget, finite and > 0.

    Returns
    -------
    float or ndarray
        Same shape as ``value``. The density ratio of any output on neighbours is at most e^epsilon.
    """
    eps = check_epsilon(epsilon)
    sens = check_sensitivity(sensitivity)
    arr = _as_value(value)
    rng = check_rng(rng)
    noisy = arr + rng.laplace(0.0, sens / eps, size=arr.shape) if sens > 0 else arr.copy()
    _record(ledger, name, eps, 0.0, sens)
    return float(noisy) if noisy.ndim == 0 else noisy


def geometric_mechanism(value, sensitivity, epsilon, rng=None, *, ledger=None, name="geometric"):
    """Integer-valued Laplace: add two-sided geometric noise with Pr[Z=z] ∝ alpha^|z|, alpha = e^(-eps/Δ).

    The discrete analogue of Theorem 2.3.1 (Ghosh, Roughgarden & Sundararajan 2009): for an
    integer-valued f with sensitivity Δ, ``f(D) + Z`` is epsilon-DP and stays an integer.
    ``value`` must be integer-valued; the result has dtype int64.
    """
    eps = check_epsilon(epsilon)
    sens = check_sensitivity(sensitivity)
    arr = _as_value(value)
    if np.any(arr != np.round(arr)):
        raise ValueError("value must be integer-valued for the geometric mechanism")
    rng = check_rng(rng)
    ints = np.round(arr).astype(np.int64)
    if sens == 0:
        noisy = ints.copy()
    else:
        p = -np.expm1(-eps / sens)  # 1 - alpha, the success probability
        # The difference of two i.i.d. geometric variables is two-sided geometric with parameter alpha.
        noisy = ints + rng.geometric(p, size=ints.shape) - rng.geometric(p, size=ints.shape)
    _record(ledger, name, eps, 0.0, sens)
    return int(noisy) if noisy.ndim == 0 else noisy


def _em_logits(scores, sensitivity, epsilon, monotonic):
    eps = check_epsilon(epsilon)
    sens = check_sensitivity(sensitivity)
    q = np.asarray(scores, dtype=float)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {q.shape}")
    if np.any(np.isnan(q)) or np.any(q == np.inf):
        raise ValueError("scores contains NaN or +inf (use -inf to exclude an option)")
    if np.all(q == -np.inf):
        raise ValueError("scores: every option is excluded (-inf)")
    if sens == 0:
        raise ValueError("sensitivity must be > 0 for the exponential mechanism")
    factor = 1.0 if monotonic else 2.0
    logits = eps * q / (factor * sens)
    # shift so the best option has logit 0: exact in floating point even for scores of 1e6 and more
    return logits - np.max(logits), eps, sens


def exponential_mechanism_probabilities(scores, sensitivity, epsilon, monotonic=False):
    """Exact output probabilities of the exponential mechanism (Definition 2.4.1 / Corollary 3).

    ``Pr[o] ∝ exp(eps * q(D, o) / (2Δq))``, or ``exp(eps * q / Δq)`` when ``monotonic=True``.
    Computed in log space (log-sum-exp), so scores of 1e6 do not overflow.
    """
    logits, _, _ = _em_logits(scores, sensitivity, epsilon, monotonic)
    return np.exp(logits - special.logsumexp(logits))


def exponential_mechanism(scores, sensitivity, epsilon, rng=None, monotonic=False, *, size=None,
                          ledger=None, name="exponential"):
    """Select an index with probability ∝ exp(eps·q/(2Δq)) (Definition 2.4.1, Theorem 2.4.1).

    Parameters
    ----------
    scores : array_like, shape (n_options,)
        Quality q(D, o) of every option; higher is better. ``-inf`` excludes an option. To minimise
        a loss J, pass ``-J``.
    sensitivity : float
        Δq, the largest change of any score between neighbouring datasets.
    monotonic : bool
        If every score moves in the same direction between any neighbours (Corollary 3), the factor 2
        is dropped, which is the same as doubling epsilon.
    size : int, optional
        Draw this many independent selections at once (for audits and simulations). The ledger is
        charged once per selection.

    Sampling uses the Gumbel-max trick, argmax(logits + Gumbel noise), which is exact and never
    exponentiates a score, so it cannot overflow.
    """
    logits, eps, sens = _em_logits(scores, sensitivity, epsilon, monotonic)
    rng = check_rng(rng)
    if size is None:
        idx = int(np.argmax(logits + rng.gumbel(size=logits.shape)))
        _record(ledger, name, eps, 0.0, sens)
        return idx
    n = int(size)
    if n < 1:
        raise ValueError(f"size must be >= 1, got {size!r}")
    draws = np.argmax(logits[None, :] + rng.gumbel(size=(n, logits.size)), axis=1)
    _record(ledger, f"{name} (x{n} independent selections)", n * eps, 0.0, sens)
    return draws


def gaussian_sigma(l2_sensitivity, epsilon, delta, method="analytic"):
    """Noise standard deviation of the Gaussian mechanism for (epsilon, delta)-DP.

    ``method="analytic"`` (default) is the exact calibration of Balle & Wang (ICML 2018, Theorem 8):
    the smallest sigma with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) <= δ, valid for every ε > 0.
    ``method="classic"`` is Dwork & Roth's sigma = sqrt(2 ln(1.25/δ)) Δ/ε (Theorem A.1), which the
    proof only supports for ε < 1; larger epsilon raises ``ValueError``.
    """
    eps = check_epsilon(epsilon)
    dl = check_delta(delta)
    sens = check_sensitivity(l2_sensitivity, "l2_sensitivity")
    if sens == 0:
        return 0.0
    if method == "classic":
        if eps >= 1:
            raise ValueError("epsilon must be < 1 for the classic Gaussian mechanism (use method='analytic')")
        return float(np.sqrt(2 * np.log(1.25 / dl)) * sens / eps)
    if method != "analytic":
        raise ValueError(f"method must be 'analytic' or 'classic', got {method!r}")

    def excess(log_sigma):
        s = np.exp(log_sigma)
        a = sens / (2 * s)
        b = eps * s / sens
        # delta(sigma) - delta, with the second term in log space for stability
        return special.ndtr(a - b) - np.exp(eps + special.log_ndtr(-a - b)) - dl

    # excess() decreases in sigma; bracket the root before solving

    lo, hi = np.log(sens) - 20, np.log(sens) + 20
    root = optimize.brentq(excess, lo, hi, xtol=1e-12)
    # brentq may stop a hair below the root; step up past its tolerance so delta is never exceeded
    root += 1e-9
    while excess(root) > 0:
        root += 1e-9
    return float(np.exp(root))


def gaussian_mechanism(value, l2_sensitivity, epsilon, delta, rng=None, *, method="analytic",
                       ledger=None, name="gaussian"):
    """Release ``value + N(0, sigma^2 I)`` with sigma from :func:`gaussian_sigma` ((epsilon, delta)-DP).

    ``l2_sensitivity`` is the L2 sensitivity of the (vector) query.
    """
    sigma = gaussian_sigma(l2_sensitivity, epsilon, delta, method=method)
    arr = _as_value(value)
    rng = check_rng(rng)
    noisy = arr + rng.normal(0.0, sigma, size=arr.shape) if sigma > 0 else arr.copy()
    _record(ledger, name, float(epsilon), float(delta), float(l2_sensitivity))
    return float(noisy) if noisy.ndim == 0 else noisy
