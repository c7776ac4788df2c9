"""Closed-form error models and budget rules of DPLloyd (thesis chapter 4, spec ``dp-basics-and-kmeans.md``
§3.4–§3.6).

* :func:`dplloyd_mse` — the one-round MSE of a noisy centroid, Eqs. (4.2)–(4.6);
* :func:`optimal_count_share` / :func:`budget_split` — the optimal count/sum split, Eq. (4.7);
* :func:`swapped_split_epsilon` — what a round really spends when the two shares of Eq. (4.7) are
  unpacked in the wrong order (spec pitfall P2);
* :func:`epsilon_m` and :func:`n_rounds` — the minimum per-round budget and the number of rounds of
  DPLloyd-Impr, Eqs. (4.8)–(4.9) and Algorithm 14.

All formulas are for add/remove (unbounded) DP on data in the public box ``[-r, r]^d``: a count has
sensitivity 1, one coordinate sum has sensitivity ``r``. ``rho`` is the thesis's "normalised coordinate of
the cluster centroid" ``|S_i| / (2 r C)``, 0.225 throughout the thesis.
"""
from __future__ import annotations

import math

import numpy as np

from .._validation import check_epsilon, check_positive_int

__all__ = [
    "RHO",
    "MAX_ROUNDS",
    "MIN_ROUNDS",
    "count_sum_ratio",
    "optimal_count_share",
    "budget_split",
    "swapped_split_epsilon",
    "dplloyd_mse",
    "epsilon_m",
    "n_rounds",
    "simulate_one_round_mse",
]

RHO = 0.225  #: the thesis's ρ, "empirically computed from 81 synthetic datasets" (§3.5)
MAX_ROUNDS = 7  #: at most 7 rounds in DPLloyd-Impr (Algorithm 14)
MIN_ROUNDS = 2  #: at least 2 rounds in DPLloyd-Impr (Algorithm 14, case 1)


def _check_r(r):
    if not (isinstance(r, (int, float, np.integer, np.floating)) and not isinstance(r, bool)) \
            or not np.isfinite(r) or r <= 0:
        raise ValueError(f"r must be a finite number > 0, got {r!r}")
    return float(r)


def _check_rho(rho):
    if not (isinstance(rho, (int, float, np.integer, np.floating)) and not isinstance(rho, bool)) \
            or not (0.0 <= float(rho) <= 0.5):
        raise ValueError(f"rho must lie in [0, 0.5], got {rho!r}")
    return float(rho)


def count_sum_ratio(d, rho=RHO) -> float:
    """``c_d = ∛(4 d ρ²)``, the optimal ratio ε_0 : ε_i of the count's budget to one sum's budget, Eq. (4.7)."""
    d = check_positive_int(d, "d")
    rho = _check_rho(rho)
    return float(np.cbrt(4.0 * d * rho * rho))


def optimal_count_share(d, rho=RHO) -> float:
    """The count's share of a round's budget, ``γ_c = c_d / (d + c_d)``, Eq. (4.7).

    Each of the d coordinate sums gets ``γ_s = 1 / (d + c_d)``, so ``γ_c + d γ_s = 1``.
    Spec §8: 0.2700 (d = 2), 0.2202 (d = 3), 0.1510 (d = 6), 0.1123 (d = 10).
    """
    c = count_sum_ratio(d, rho)
    return c / (d + c)


def budget_split(d, epsilon_round, rho=RHO, split="improved", r=1.0):
    """The per-round budgets ``(ε_0, ε_s)`` of the count and of EACH of the d coordinate sums.

    ``split="improved"``: Eq. (4.7), ``ε_0 = c_d/(d+c_d)·z`` and ``ε_s = z/(d+c_d)`` for a round of budget z.
    ``split="original"``: PINQ / thesis Algorithm 3 (canonical form, spec §2.5), every query gets noise
    ``Lap((d r + 1)/z)``: ``ε_0 = z/(d r + 1)`` and ``ε_s = r z/(d r + 1)``.
    In both cases ``ε_0 + d·ε_s = z``; the count's noise is ``Lap(1/ε_0)`` and each sum's ``Lap(r/ε_s)``.
    """
    d = check_positive_int(d, "d")
    z = check_epsilon(epsilon_round, "epsilon_round")
    r = _check_r(r)
    if split == "improved":
        c = count_sum_ratio(d, rho)
        return c / (d + c) * z, z / (d + c)
    if split == "original":
        return z / (d * r + 1.0), r * z / (d * r + 1.0)
    raise ValueError(f"split must be 'improved' or 'original', got {split!r}")


def swapped_split_epsilon(d, epsilon_round=1.0, rho=RHO) -> float:
    """Budget actually spent by one round when the shares of Eq. (4.7) are swapped (spec pitfall P2).

    The correct split gives the count ``γ_c z`` and each of the d sums ``γ_s z``. Unpacking the pair in the
    wrong order gives the count ``γ_s z`` and each sum ``γ_c z``, so the round costs
    ``(γ_s + d γ_c) z = (1 + d c_d)/(d + c_d) · z``: less than z for d <= 4 (c_d < 1), more for d >= 5,
    about 1.52 z at d = 20. This is the error of diffprivlib's ``KMeans`` (0.6.x), which returns
    ``(ε_i, ε_0)`` from ``_split_epsilon`` and unpacks it as ``(ε_0, ε_i)``.
    """
    d = check_positive_int(d, "d")
    z = check_epsilon(epsilon_round, "epsilon_round")
    c = count_sum_ratio(d, rho)
    return (1.0 + d * c) / (d + c) * z


def dplloyd_mse(n, d, k, epsilon, t=1, r=1.0, rho=RHO, split="original", per="centroid"):
    """The thesis's first-order MSE model of ONE noisy centroid after one round, Eqs. (4.2)–(4.6).

    ``MSE(ô) ≈ (k²/N²) Σ_i (Var(ΔS_i) + (2ρr)² Var(ΔC))``, with ``C ≈ N/k`` points per cluster and
    ``|S_i| = 2ρrC`` (Eqs. 4.2/4.3). With ``Var(ΔS_i) = 2r²/ε_s²`` and ``Var(ΔC) = 2/ε_0²`` this is Eq. (4.6)::

        MSE(ô) ≈ (2 r² k² / N²) (d/ε_s² + 4 d ρ² / ε_0²),

    where the round's budget ``z = ε/t`` is split by :func:`budget_split`:

    * ``split="original"`` (PINQ, every query ``Lap((dr+1)t/ε)``) gives Eq. (4.5),
      ``2d(1 + (2ρr)²)(k t (dr+1) / (N ε))²``; spec §8: Gowalla (N = 107091, d = 2, k = 5) at ε = 0.1,
      t = 5 gives 0.000236, and this is the ``MSE_DPL`` used by the hybrid's decision (Eq. 4.20).
    * ``split="improved"`` (Eq. 4.7) gives ``(2 r² k² / N²)(d + c_d)³ / z²`` — the minimum over splits.
    * a pair ``(count_share, sum_share)`` of fractions of z (``count_share + d·sum_share`` need not be 1,
      which lets a chapter evaluate a wrong split).

    ``per="centroid"`` (default) returns the MSE of one centroid (sum over its d coordinates, Eq. 4.5);
    ``per="coordinate"`` divides by d (Eq. 4.4); ``per="all"`` multiplies by k (the k centroids together,
    the left side of Eq. 4.8). Inputs may be numpy arrays (broadcast); ``n`` is the number of points,
    which the model treats as known (it is a public parameter wherever the thesis uses it).
    """
    n = np.asarray(n, dtype=float)
    eps = np.asarray(epsilon, dtype=float)
    t = np.asarray(t, dtype=float)
    k = np.asarray(k, dtype=float)
    d_arr = np.asarray(d, dtype=float)
    if np.any(n <= 0) or np.any(eps <= 0) or np.any(t < 1) or np.any(k < 1) or np.any(d_arr < 1):
        raise ValueError("n, epsilon must be > 0 and t, k, d >= 1")
    r = _check_r(r)
    rho = _check_rho(rho)
    z = eps / t
    if isinstance(split, str) and split == "original":
        e0 = z / (d_arr * r + 1.0)
        es = r * z / (d_arr * r + 1.0)
    elif isinstance(split, str) and split == "improved":
        c = np.cbrt(4.0 * d_arr * rho * rho)
        e0 = c / (d_arr + c) * z
        es = z / (d_arr + c)
    elif not isinstance(split, str) and len(split) == 2:
        cs, ss = float(split[0]), float(split[1])
        if cs <= 0 or ss <= 0:
            raise ValueError(f"split shares must be > 0, got {split!r}")
        e0, es = cs * z, ss * z
    else:
        raise ValueError(f"split must be 'original', 'improved' or a pair of shares, got {split!r}")
    mse = 2.0 * r * r * k * k / (n * n) * (d_arr / es ** 2 + 4.0 * d_arr * rho * rho / e0 ** 2)
    if per == "centroid":
        out = mse
    elif per == "coordinate":
        out = mse / d_arr
    elif per == "all":
        out = mse * k
    else:
        raise ValueError(f"per must be 'centroid', 'coordinate' or 'all', got {per!r}")
    return float(out) if np.ndim(out) == 0 else out


def epsilon_m(n, d, k, rho=RHO, r=1.0, threshold=0.004) -> float:
    """Minimum per-round budget ε^m of DPLloyd-Impr, Eq. (4.9).

    Smallest ε^m such that the MSE of all k centroids, split by Eq. (4.7), is at most ``threshold·r^d``
    (Eq. 4.8, threshold 0.004)::

        ε^m = sqrt( 500 · k³ / N² · (d + ∛(4dρ²))³ )              (Eq. 4.9, r = 1)

    For general r the same derivation gives ``sqrt(2 r^(2-d) k³ (d + c_d)³ / (threshold N²))``; with r = 1 and
    threshold 0.004 it is Eq. (4.9) exactly. ``n`` is N, **treated as public** as in the thesis.
    Spec §8: S1 1.1783, Gowalla 0.0106, TIGER 0.0176, Image 0.0257, Adult-num 0.0962, Lifesci 0.1643.
    """
    n = check_positive_int(n, "n")
    d = check_positive_int(d, "d")
    k = check_positive_int(k, "k")
    r = _check_r(r)
    if not (threshold > 0):
        raise ValueError(f"threshold must be > 0, got {threshold!r}")
    c = count_sum_ratio(d, rho)
    return math.sqrt(2.0 * r ** (2 - d) * k ** 3 * (d + c) ** 3 / (threshold * n * n))


def n_rounds(epsilon, eps_m, max_rounds=MAX_ROUNDS, min_rounds=MIN_ROUNDS) -> int:
    """Number of rounds t⁻ of DPLloyd-Impr (Algorithm 14, spec §3.6).

    ``t⁻ = 2`` if ``ε <= 2 ε^m``, else ``min(⌊ε/ε^m⌋, 7)``; every round gets ``ε/t⁻``. The floor keeps at least
    ε^m per round (the thesis leaves the rounding open).
    """
    eps = check_epsilon(epsilon)
    em = check_epsilon(eps_m, "eps_m")
    max_rounds = check_positive_int(max_rounds, "max_rounds")
    min_rounds = check_positive_int(min_rounds, "min_rounds")
    if eps <= 2.0 * em:
        return min_rounds
    return int(max(min_rounds, min(math.floor(eps / em), max_rounds)))


def simulate_one_round_mse(X, centroids, epsilon, t=1, r=1.0, rho=RHO, split="original", n_trials=1000, rng=None,
                           clip=True):
    """Measured counterpart of :func:`dplloyd_mse`: the MSE of one noisy centroid after one round, by simulation.

    ``X`` must already be in ``[-r, r]^d`` and ``centroids`` (k, d) are the centroids the round starts from
    (public). The partition, the exact counts C and sums S are computed once; then ``n_trials`` independent
    draws of the round's Laplace noise (the scales DPLloyd uses for this ``split``, budget ``ε/t``) give
    ``ô = (S + ΔS)/(C + ΔC)`` (clipped to the domain when ``clip=True``, as the algorithm releases it), and the
    result is ``mean over trials and clusters of ||ô − S/C||²`` (Eq. 4.1). Empty clusters are skipped in the
    average (their true centroid is undefined). Vectorised over trials; costs no privacy (it is an
    experiment on data the reader owns).
    """
    from .._validation import check_data, check_rng
    X = check_data(X)
    C0 = check_data(centroids, "centroids", n_features=X.shape[1])
    n, d = X.shape
    k = C0.shape[0]
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    z = eps / t
    if isinstance(split, str):
        e0, es = budget_split(d, z, rho=rho, split=split, r=r)
    else:
        e0, es = float(split[0]) * z, float(split[1]) * z
    d2 = (X * X).sum(axis=1)[:, None] - 2.0 * X @ C0.T + (C0 * C0).sum(axis=1)[None, :]
    labels = np.argmin(d2, axis=1)
    counts = np.bincount(labels, minlength=k).astype(float)
    sums = np.stack([np.bincount(labels, weights=X[:, i], minlength=k) for i in range(d)], axis=1)
    keep = counts > 0
    counts, sums = counts[keep], sums[keep]
    true = sums / counts[:, None]
    n_trials = check_positive_int(n_trials, "n_trials")
    nc = counts[None, :] + rng.laplace(0.0, 1.0 / e0, size=(n_trials, counts.size))
    ns = sums[None, :, :] + rng.laplace(0.0, r / es, size=(n_trials,) + sums.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        est = ns / nc[:, :, None]
    if clip:
        est = np.clip(np.nan_to_num(est, nan=0.0, posinf=r, neginf=-r), -r, r)
    return float(((est - true[None]) ** 2).sum(axis=2).mean())
