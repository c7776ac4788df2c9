"""Experiments of chapter 1 (differential privacy basics): small simulations that check the theory.

Every function draws its noise through :mod:`dpclust_core.mechanisms` (or is a pure computation), takes an
``rng`` (None, an int or a ``numpy.random.Generator``) and returns a tidy ``pandas.DataFrame`` that the chapter
shows as a table or hands to :mod:`dpclust_book.plots.basics`. The repetitions are *simulations*: releasing
the same answer many times would cost the budget many times over; they are run only to measure a
mechanism's error distribution.

Examples
--------
>>> from dpclust_book.experiments import basics
>>> df = basics.parallel_vs_sequential([1, 10], epsilon=0.5, n_reps=200, rng=0)
>>> list(df.columns), len(df)
(['bins', 'parallel', 'sequential'], 2)
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from dpclust_core._validation import check_epsilon, check_int, check_real, check_rng
from dpclust_core.audit import audit
from dpclust_core.mechanisms import (discrete_gaussian_sigma, exponential_mechanism_probabilities, gaussian_sigma,
                                     laplace_mechanism)

__all__ = ["randomized_response", "randomized_response_frequencies", "local_sum_changes", "laplace_error_summary",
           "postprocessing_rmse", "budget_split_errors", "parallel_vs_sequential", "gaussian_calibrations",
           "em_best_probability", "max_log_ratio", "noisy_count", "audit_table", "audit_noise_sweep",
           "float_attack", "float_attack_table"]


# ------------------------------------------------------------------------------------- randomised response
def randomized_response(bit, n, epsilon, rng=None):
    """``n`` independent randomised-response reports of one person's secret ``bit`` (local ε-DP).

    Each report is the true bit with probability ``p = e^ε / (1 + e^ε)`` and the flipped bit otherwise, so
    ``Pr[report | bit = 1] / Pr[report | bit = 0]`` is at most ``p / (1 - p) = e^ε`` for either report.

    Parameters
    ----------
    bit : {0, 1}
    n : int
        Number of independent reports (one vectorised call; the auditor uses this).
    epsilon : float
    rng : None, int or numpy.random.Generator

    Returns
    -------
    ndarray of int, shape (n,)

    Examples
    --------
    >>> randomized_response(1, 5, 50.0, rng=0).tolist()
    [1, 1, 1, 1, 1]
    """
    eps = check_epsilon(epsilon)
    b = check_int(bit, "bit", 0, 1)
    n = check_int(n, "n", 1)
    rng = check_rng(rng)
    keep = math.exp(eps) / (1.0 + math.exp(eps)) if eps < 700 else 1.0
    return np.where(rng.random(n) < keep, b, 1 - b)


def randomized_response_frequencies(epsilon, n, rng=None) -> pd.DataFrame:
    """Fraction of ``n`` reports equal to 0 and to 1, for each true bit: one row per true bit."""
    rng = check_rng(rng)
    rows = []
    for b in (0, 1):
        rep = randomized_response(b, n, epsilon, rng)
        ones = float(np.mean(rep))
        rows.append({"true bit": b, "report 0": 1 - ones, "report 1": ones})
    return pd.DataFrame(rows).set_index("true bit")


# ------------------------------------------------------------------------------------- sensitivity
def local_sum_changes(X, column=0) -> np.ndarray:
    """``|sum(D) - sum(D minus record i)|`` for every record i: the change of a coordinate sum when one record
    is removed (it equals ``|x_i|``; computed by removing the record, to show it)."""
    X = np.asarray(X, dtype=float)
    total = X[:, column].sum()
    return np.abs(total - (total - X[:, column]))


# ------------------------------------------------------------------------------------- the Laplace mechanism
def laplace_error_summary(releases, true_value, epsilon, sensitivity=1.0, k=3.0) -> pd.DataFrame:
    """Measured versus theoretical error of Laplace releases: standard deviation ``√2 Δ/ε`` and the share of
    releases within ``± k Δ/ε`` of the truth (``1 - e^-k``). One row per quantity."""
    err = np.asarray(releases, dtype=float) - float(true_value)
    b = float(sensitivity) / check_epsilon(epsilon)
    return pd.DataFrame({
        "quantity": ["standard deviation", f"share within ±{k * b:g}"],
        "measured": [float(err.std()), float(np.mean(np.abs(err) <= k * b))],
        "theory": [math.sqrt(2) * b, 1 - math.exp(-k)],
    }).set_index("quantity")


def postprocessing_rmse(counts, epsilon, n_reps=20_000, rng=None) -> pd.DataFrame:
    """Root mean squared error of raw Laplace counts and of the same counts rounded and clamped at 0.

    Rounding and clamping read only the noisy release (post-processing), so they cost no budget.
    """
    rng = check_rng(rng)
    n_reps = check_int(n_reps, "n_reps", 1)
    counts = np.asarray(counts, dtype=float)
    raw = laplace_mechanism(np.tile(counts, (n_reps, 1)), 1.0, epsilon, rng, l0_sensitivity=1)
    post = np.maximum(np.round(raw), 0.0)
    return pd.DataFrame({"true count": counts,
                         "raw": np.sqrt(((raw - counts) ** 2).mean(axis=0)),
                         "rounded and clamped": np.sqrt(((post - counts) ** 2).mean(axis=0))})


# ------------------------------------------------------------------------------------- composition
def budget_split_errors(n_records, true_sum, sum_sensitivity, epsilon, shares, n_reps=20_000,
                        rng=None) -> pd.DataFrame:
    """Median absolute error of a private mean ``noisy sum / noisy count`` when a share ``s`` of ``epsilon`` goes
    to the count (sensitivity 1) and ``1 - s`` to the sum (sensitivity ``sum_sensitivity``)."""
    rng = check_rng(rng)
    eps = check_epsilon(epsilon)
    n_reps = check_int(n_reps, "n_reps", 1)
    true_mean = float(true_sum) / float(n_records)
    rows = []
    for s in np.asarray(shares, dtype=float):
        s = check_real(s, "shares", low=0.0, high=1.0, low_open=True, high_open=True)
        c = laplace_mechanism(np.full(n_reps, float(n_records)), 1.0, s * eps, rng, l0_sensitivity=1)
        sm = laplace_mechanism(np.full(n_reps, float(true_sum)), sum_sensitivity, (1 - s) * eps, rng,
                               l0_sensitivity=1)
        rows.append({"share on the count": s, "median error": float(np.median(np.abs(sm / c - true_mean)))})
    return pd.DataFrame(rows)


def parallel_vs_sequential(ks, epsilon, n_reps=2000, rng=None) -> pd.DataFrame:
    """Mean absolute error per bin of a k-bin histogram at total ``epsilon``: with parallel composition (every bin
    at ``epsilon``) and answered as k unrelated queries (every bin at ``epsilon / k``)."""
    rng = check_rng(rng)
    eps = check_epsilon(epsilon)
    rows = []
    for k in ks:
        k = check_int(k, "ks", 1)
        zero = np.zeros((n_reps, k))
        par = laplace_mechanism(zero, 1.0, eps, rng, l0_sensitivity=1)
        seq = laplace_mechanism(zero, 1.0, eps / k, rng, l0_sensitivity=1)
        rows.append({"bins": k, "parallel": float(np.abs(par).mean()), "sequential": float(np.abs(seq).mean())})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- Gaussian
def gaussian_calibrations(epsilons, delta, l2_sensitivity=1.0) -> pd.DataFrame:
    """σ of the Gaussian mechanism at every ε: the classic formula (NaN for ε >= 1, where its proof does not
    apply), the analytic calibration of Balle & Wang, and the discrete Gaussian the package samples."""
    rows = []
    for e in np.asarray(epsilons, dtype=float):
        rows.append({"epsilon": e,
                     "classic": gaussian_sigma(l2_sensitivity, e, delta, method="classic") if e < 1 else np.nan,
                     "analytic": gaussian_sigma(l2_sensitivity, e, delta),
                     "discrete (package)": discrete_gaussian_sigma(l2_sensitivity, e, delta)})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- exponential mechanism
def em_best_probability(scores, epsilons, index=None, sensitivity=1.0) -> pd.DataFrame:
    """Probability that the exponential mechanism picks option ``index`` (default: the best score), for the
    general mechanism (factor 2) and the monotonic one, at every ε."""
    scores = np.asarray(scores, dtype=float)
    i = int(np.argmax(scores)) if index is None else int(index)
    rows = []
    for e in np.asarray(epsilons, dtype=float):
        rows.append({"epsilon": e,
                     "general": float(exponential_mechanism_probabilities(scores, sensitivity, e)[i]),
                     "monotonic": float(exponential_mechanism_probabilities(scores, sensitivity, e,
                                                                            monotonic=True)[i])})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- seeing the guarantee
def max_log_ratio(epsilon, calibrated_to, difference=1.0) -> float:
    """Largest ``|ln p_D(t) / p_D'(t)|`` over outputs t for Laplace noise ``Lap(calibrated_to / ε)`` when the true
    answers differ by ``difference``: ``ε · difference / calibrated_to`` (it stays within ε iff
    ``difference <= calibrated_to``)."""
    return check_epsilon(epsilon) * float(difference) / check_real(calibrated_to, "calibrated_to", low=0.0,
                                                                    low_open=True)


# ------------------------------------------------------------------------------------- auditing
def noisy_count(noise_scale):
    """A counting query with ``Lap(noise_scale)`` noise, in the form :func:`dpclust_core.audit.audit` expects:
    ``mechanism(data, n, rng)`` returns n independent releases of ``len(data)`` (``noise_scale = 1/ε`` is
    correct for ε; a smaller scale is a bug)."""
    scale = check_real(noise_scale, "noise_scale", low=0.0, low_open=True)

    def mechanism(data, n, rng):
        return laplace_mechanism(np.full(n, float(len(data))), 1.0, 1.0 / scale, rng)

    return mechanism


def audit_table(results: dict) -> pd.DataFrame:
    """A table for display, one row per named :class:`~dpclust_core.audit.AuditResult`: the p-value (as text,
    two significant digits), the verdict at the 0.01 level and the empirical lower bound on ε (2 decimals)."""
    rows = []
    for res in results.values():
        rows.append({"p-value": f"{res.p_value:.2g}",
                     "verdict": "violation" if res.rejects(0.01) else "no violation found",
                     "ε at least": round(res.epsilon_lower_bound, 2)})
    return pd.DataFrame(rows, index=list(results))


def audit_noise_sweep(factors, epsilon, d1, d2, n_samples=50_000, rng=None) -> pd.DataFrame:
    """Audit a noisy count whose noise is ``factor / epsilon`` (``factor = 1`` is correct) at the claimed
    ``epsilon``, for every factor: p-value, the auditor's lower bound on ε and the true ε (``epsilon / factor``)."""
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    rows = []
    for f in np.asarray(factors, dtype=float):
        res = audit(noisy_count(f / eps), d1, d2, eps, n_samples=n_samples, rng=rng)
        rows.append({"noise factor": f, "true epsilon": eps / f, "p-value": res.p_value,
                     "lower bound": res.epsilon_lower_bound})
    return pd.DataFrame(rows)


# ------------------------------------------------------------------------------------- floating point
def float_attack(y) -> np.ndarray:
    """Mironov's test on releases of a count 5 versus its neighbour 6: the event ``|y - 6| - |y - 5| > 1``,
    impossible in exact arithmetic, computed in floating point."""
    y = np.asarray(y, dtype=float)
    return (np.abs(y - 6.0) - np.abs(y - 5.0)) > 1.0


def float_attack_table(outputs: dict) -> pd.DataFrame:
    """One row per ``(mechanism, true count)`` key of ``outputs`` (arrays of releases): how many releases fall
    between 1 and 2 (``in (1, 2)``), how many of those are odd multiples of 2^-51 (``odd × 2⁻⁵¹``), and how often
    the attack's event happens."""
    rows = []
    for (name, value), y in outputs.items():
        y = np.asarray(y, dtype=float)
        mid = y[(y > 1) & (y < 2)]
        rows.append({"mechanism": name, "count": value, "in (1, 2)": mid.size,
                     "odd × 2⁻⁵¹": int(np.sum(np.mod(mid * 2.0**51, 2) == 1)),
                     "attack event": int(float_attack(y).sum())})
    return pd.DataFrame(rows).set_index(["mechanism", "count"])

