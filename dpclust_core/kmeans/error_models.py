"""Closed-form error models and budget rules of DPLloyd (thesis chapter 4, §4.2).

* :func:`dplloyd_mse` — the one-round MSE of a noisy centroid, Eqs. (4.2)–(4.6);
* :func:`count_sum_ratio`, :func:`optimal_count_share` and :func:`budget_split` — the optimal count/sum split,
  Eq. (4.7);
* :func:`swapped_split_epsilon` — what a round really spends when the two shares of Eq. (4.7) are unpacked in
  the wrong order;
* :func:`epsilon_m` and :func:`n_rounds` — the minimum per-round budget and the number of rounds of
  DPLloyd-Impr, Eqs. (4.8)–(4.9) and Algorithm 14.

All formulas are for add/remove (unbounded) DP on data in the public box ``[-r, r]^d``: a count has
sensitivity 1, one coordinate sum has sensitivity ``r``. ``rho`` is the thesis's "normalised coordinate of
the cluster centroid" ``|S_i| / (2 r C)``, 0.225 throughout the thesis.
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np

from .._validation import (ArrayLike, BadTypeError, Epsilon, EpsilonTooSmallError, HalfWidth, Int, Options, Real,
                           check_real, validate_params)

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
]

RHO = 0.225  #: the thesis's ρ, "empirically computed from 81 synthetic datasets" (§4.2)
MAX_ROUNDS = 7  #: at most 7 rounds in DPLloyd-Impr (Algorithm 14)
MIN_ROUNDS = 2  #: at least 2 rounds in DPLloyd-Impr (Algorithm 14, case 1)
_MAX_D = 10**6  # a dimension larger than this is a typo (no model here is meaningful there)


# --------------------------------------------------------------------------------------------- checks
#: The checks (Specs) of the arguments the models share: ρ of Eq. (4.6), the half-width r, the dimension d.
_RHO, _R, _D = Real(0.0, 0.5), HalfWidth(), Int(1, _MAX_D)


def _positive_array(x, name, *, integer=False, minimum=None):
    """A real scalar or array (broadcast by the caller) of finite values > 0 (or >= ``minimum``)."""
    if isinstance(x, (str, bytes)) or x is None:
        raise BadTypeError(f"{name} must be a real number or an array of real numbers, got {x!r}")
    raw = np.asarray(x)
    kind = raw.dtype.kind
    if kind not in "iuf" or (integer and kind == "f" and not np.all(raw == np.round(raw))):
        what = "integers" if integer else "real numbers"
        raise BadTypeError(f"{name} must hold {what}, got {x!r}")
    arr = raw.astype(float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite, got {x!r}")
    if minimum is None:
        if np.any(arr <= 0):
            raise ValueError(f"{name} must be > 0, got {x!r}")
    elif np.any(arr < minimum):
        raise ValueError(f"{name} must be >= {minimum}, got {x!r}")
    return arr


# --------------------------------------------------------------------------------------------- Eq. 4.7
@validate_params(d=_D, rho=_RHO)
def count_sum_ratio(d: int, rho: float = RHO) -> float:
    """``c_d = ∛(4 d ρ²)``, the optimal ratio ``ε_0 : ε_i`` of the count's budget to one sum's budget, Eq. (4.7).

    Parameters
    ----------
    d : int
        Number of dimensions, >= 1.
    rho : float, default 0.225
        ρ of Eq. (4.6), in [0, 0.5].

    Returns
    -------
    float

    Examples
    --------
    >>> round(count_sum_ratio(2), 4)
    0.7399
    """
    return float(np.cbrt(4.0 * d * rho * rho))


def optimal_count_share(d: int, rho: float = RHO) -> float:
    """The count's share of a round's budget, ``γ_c = c_d / (d + c_d)``, Eq. (4.7).

    Each of the d coordinate sums gets ``γ_s = 1 / (d + c_d)``, so ``γ_c + d γ_s = 1``.

    Parameters
    ----------
    d : int
        Number of dimensions, >= 1.
    rho : float, default 0.225
        ρ of Eq. (4.6), in [0, 0.5].

    Returns
    -------
    float

    Examples
    --------
    >>> [round(optimal_count_share(d), 4) for d in (2, 3, 6, 10)]
    [0.27, 0.2202, 0.151, 0.1123]
    """
    c = count_sum_ratio(d, rho)
    return c / (d + c)


@validate_params(d=_D, epsilon_round=Epsilon(), rho=_RHO, r=_R, split=Options("improved", "original"))
def budget_split(d: int, epsilon_round: float, rho: float = RHO, split: Literal["improved", "original"] = "improved",
                 r: float = 1.0) -> tuple[float, float]:
    """The per-round budgets ``(ε_0, ε_s)`` of the count and of EACH of the d coordinate sums.

    Parameters
    ----------
    d : int
        Number of dimensions, >= 1.
    epsilon_round : float
        The round's budget z > 0.
    rho : float, default 0.225
        ρ of Eq. (4.6), in [0, 0.5] (used by ``split="improved"``).
    split : {"improved", "original"}
        ``"improved"``: Eq. (4.7), ``ε_0 = c_d/(d+c_d)·z`` and ``ε_s = z/(d+c_d)``.
        ``"original"``: PINQ / thesis Algorithm 3, every query gets noise ``Lap((d r + 1)/z)``:
        ``ε_0 = z/(d r + 1)`` and ``ε_s = r z/(d r + 1)``.
    r : float, default 1.0
        Half-width of the domain ``[-r, r]^d`` (used by ``split="original"``).

    Returns
    -------
    (float, float)
        ``(ε_0, ε_s)`` with ``ε_0 + d·ε_s = z``; the count's noise is ``Lap(1/ε_0)``, each sum's
        ``Lap(r/ε_s)``.

    Examples
    --------
    >>> e0, es = budget_split(2, 1.0)
    >>> round(e0, 4), round(es, 4), round(e0 + 2 * es, 12)
    (0.27, 0.365, 1.0)
    >>> [round(e, 12) for e in budget_split(2, 0.6, split="original")]
    [0.2, 0.2]
    """
    z = epsilon_round
    if split == "improved":
        c = count_sum_ratio(d, rho)
        return c / (d + c) * z, z / (d + c)
    return z / (d * r + 1.0), r * z / (d * r + 1.0)


@validate_params(d=_D, epsilon_round=Epsilon())
def swapped_split_epsilon(d: int, epsilon_round: float = 1.0, rho: float = RHO) -> float:
    """Budget actually spent by one round when the shares of Eq. (4.7) are swapped.

    The correct split gives the count ``γ_c z`` and each of the d sums ``γ_s z``. Unpacking the pair in the
    wrong order gives the count ``γ_s z`` and each sum ``γ_c z``, so the round costs
    ``(γ_s + d γ_c) z = (1 + d c_d)/(d + c_d) · z``: less than z for d <= 4 (c_d < 1), more for d >= 5,
    about 1.52 z at d = 20. This is the error of diffprivlib's ``KMeans`` (0.6.x), which returns
    ``(ε_i, ε_0)`` from ``_split_epsilon`` and unpacks it as ``(ε_0, ε_i)``.

    Parameters
    ----------
    d : int
        Number of dimensions, >= 1.
    epsilon_round : float, default 1.0
        The round's intended budget z > 0.
    rho : float, default 0.225
        ρ of Eq. (4.6), in [0, 0.5].

    Returns
    -------
    float

    Examples
    --------
    >>> round(swapped_split_epsilon(20), 3)
    1.523
    """
    c = count_sum_ratio(d, rho)
    return (1.0 + d * c) / (d + c) * epsilon_round


# --------------------------------------------------------------------------------------------- Eqs. 4.2-4.6
@validate_params(r=_R, rho=_RHO, per=Options("centroid", "coordinate", "all"))
def dplloyd_mse(n: float | ArrayLike, d: int | ArrayLike, k: int | ArrayLike, epsilon: float | ArrayLike,
                t: int | ArrayLike = 1, r: float = 1.0, rho: float = RHO,
                split: Literal["original", "improved"] | tuple[float, float] = "original",
                per: Literal["centroid", "coordinate", "all"] = "centroid") -> float | np.ndarray:
    """The thesis's first-order MSE model of ONE noisy centroid after one round, Eqs. (4.2)–(4.6).

    ``MSE(ô) ≈ (k²/N²) Σ_i (Var(ΔS_i) + (2ρr)² Var(ΔC))``, with ``C ≈ N/k`` points per cluster and
    ``|S_i| = 2ρrC`` (Eqs. 4.2/4.3). With ``Var(ΔS_i) = 2r²/ε_s²`` and ``Var(ΔC) = 2/ε_0²`` this is Eq. (4.6)::

        MSE(ô) ≈ (2 r² k² / N²) (d/ε_s² + 4 d ρ² / ε_0²),

    where the round's budget ``z = ε/t`` is split by :func:`budget_split`.

    Parameters
    ----------
    n : float or array
        The number of points N (> 0). The model treats it as known: it is a model, not a release.
    d : int or array of ints
        Dimensions, >= 1.
    k : int or array of ints
        Clusters, >= 1.
    epsilon : float or array
        Total budget ε > 0.
    t : int or array of ints, default 1
        Number of rounds (each gets ε/t), >= 1.
    r : float, default 1.0
        Half-width of the domain.
    rho : float, default 0.225
        ρ of Eq. (4.6), in [0, 0.5].
    split : "original", "improved" or (count_share, sum_share)
        ``"original"`` (PINQ, every query ``Lap((dr+1)t/ε)``) gives Eq. (4.5),
        ``2d(1 + (2ρr)²)(k t (dr+1) / (N ε))²`` — the ``MSE_DPL`` of the hybrid's decision (Eq. 4.20);
        ``"improved"`` (Eq. 4.7) gives ``(2 r² k² / N²)(d + c_d)³ / z²``, the minimum over splits;
        a pair of fractions of z (``count_share + d·sum_share`` need not be 1, so a wrong split can be
        evaluated).
    per : {"centroid", "coordinate", "all"}
        One centroid (sum over its d coordinates, Eq. 4.5), one coordinate (Eq. 4.4), or the k centroids
        together (the left side of Eq. 4.8).

    Returns
    -------
    float or ndarray
        Broadcast over the array arguments.

    Examples
    --------
    >>> round(dplloyd_mse(107091, 2, 5, 0.1, t=5), 6)   # Gowalla, eps = 0.1, 5 rounds
    0.000236
    >>> (dplloyd_mse(10_000, 2, 5, [0.1, 1.0]) * 1e6).round(1)
    array([1082.2,   10.8])
    """
    n = _positive_array(n, "n")
    d_arr = _positive_array(d, "d", integer=True, minimum=1)
    k = _positive_array(k, "k", integer=True, minimum=1)
    eps = _positive_array(epsilon, "epsilon")
    t = _positive_array(t, "t", integer=True, minimum=1)
    try:
        np.broadcast_shapes(n.shape, d_arr.shape, k.shape, eps.shape, t.shape)
    except ValueError:
        raise ValueError("n, d, k, epsilon and t must broadcast to one shape") from None
    z = eps / t
    if isinstance(split, str):
        split = Options("original", "improved")(split, "split")
        if split == "original":
            e0 = z / (d_arr * r + 1.0)
            es = r * z / (d_arr * r + 1.0)
        else:
            c = np.cbrt(4.0 * d_arr * rho * rho)
            e0 = c / (d_arr + c) * z
            es = z / (d_arr + c)
    else:
        try:
            cs, ss = (check_real(split[0], "split", low=0.0, low_open=True),
                      check_real(split[1], "split", low=0.0, low_open=True))
            if len(split) != 2:
                raise ValueError
        except (TypeError, IndexError, ValueError):
            raise ValueError(f"split must be 'original', 'improved' or a pair of shares > 0, got {split!r}") from None
        e0, es = cs * z, ss * z
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        mse = 2.0 * r * r * k * k / (n * n) * (d_arr / es ** 2 + 4.0 * d_arr * rho * rho / e0 ** 2)
        out = {"centroid": mse, "coordinate": mse / d_arr, "all": mse * k}[per]
    if not np.all(np.isfinite(out)):
        raise EpsilonTooSmallError(f"epsilon={epsilon!r} is too small for this model: the modelled MSE overflows a "
                                   f"float (use a larger epsilon or n)")
    return float(out) if np.ndim(out) == 0 else out


# --------------------------------------------------------------------------------------------- Eqs. 4.8-4.9
@validate_params(n=Real(0.0, low_open=True), d=_D, k=Int(1), rho=_RHO, r=_R, threshold=Real(0.0, low_open=True))
def epsilon_m(n: float, d: int, k: int, rho: float = RHO, r: float = 1.0, threshold: float = 0.004) -> float:
    """Minimum per-round budget ε^m of DPLloyd-Impr, Eq. (4.9).

    Smallest ε^m such that the MSE of all k centroids, split by Eq. (4.7), is at most ``threshold·r^d``
    (Eq. 4.8)::

        ε^m = sqrt( 500 · k³ / N² · (d + ∛(4dρ²))³ )              (Eq. 4.9, r = 1)

    For general r the same derivation gives ``sqrt(2 r^(2-d) k³ (d + c_d)³ / (threshold N²))``; with r = 1 and
    threshold 0.004 it is Eq. (4.9) exactly.

    Parameters
    ----------
    n : float
        N, > 0. The thesis uses the exact N (which publishes it); :class:`~dpclust_core.kmeans.DPLloyd`
        passes a noisy count unless the caller publishes N. A non-integer estimate is fine.
    d, k : int
        Dimensions and clusters, >= 1.
    rho : float, default 0.225
        ρ, in [0, 0.5].
    r : float, default 1.0
        Half-width of the domain.
    threshold : float, default 0.004
        The MSE threshold of Eq. (4.8), in units of ``r^d``.

    Returns
    -------
    float
        ε^m > 0 (computed in logarithms, so it neither overflows nor underflows to 0 for extreme inputs).

    Examples
    --------
    >>> round(epsilon_m(107091, 2, 5), 4)   # Gowalla
    0.0106
    >>> round(epsilon_m(48841, 6, 5), 4)    # Adult-num
    0.0962
    """
    return epsilon_m_kernel(n, d, k, rho, r, threshold)


def epsilon_m_kernel(n, d, k, rho=RHO, r=1.0, threshold=0.004):
    """:func:`epsilon_m` on arguments the caller has validated (shared with DPLloyd and the advisor)."""
    c = float(np.cbrt(4.0 * d * rho * rho))
    log_em = 0.5 * (math.log(2.0) + (2 - d) * math.log(r) + 3 * math.log(k) + 3 * math.log(d + c)
                    - math.log(threshold) - 2 * math.log(n))
    return math.exp(min(max(log_em, -700.0), 700.0))


@validate_params(epsilon=Epsilon(), eps_m=Real(0.0, low_open=True), max_rounds=Int(1, 10_000),
                 min_rounds=Int(1, 10_000))
def n_rounds(epsilon: float, eps_m: float, max_rounds: int = MAX_ROUNDS, min_rounds: int = MIN_ROUNDS) -> int:
    """Number of rounds t⁻ of DPLloyd-Impr (Algorithm 14).

    ``t⁻ = min_rounds`` (2) if ``ε <= 2 ε^m``, else ``min(⌊ε/ε^m⌋, max_rounds)`` (at most 7); every round gets
    ``ε/t⁻``. The floor keeps at least ε^m per round (the thesis leaves the rounding open).

    Parameters
    ----------
    epsilon : float
        The budget of all rounds, > 0.
    eps_m : float
        ε^m of :func:`epsilon_m`, > 0.
    max_rounds, min_rounds : int
        The caps of Algorithm 14 (7 and 2), ``1 <= min_rounds <= max_rounds <= 10000``.

    Returns
    -------
    int

    Examples
    --------
    >>> n_rounds(0.05, epsilon_m(107091, 2, 5)), n_rounds(2.0, epsilon_m(5000, 2, 15))
    (4, 2)
    """
    if min_rounds > max_rounds:  # eps_m is a model quantity, not a budget: any size > 0
        raise ValueError(f"min_rounds={min_rounds} must not exceed max_rounds={max_rounds}")
    return n_rounds_kernel(epsilon, eps_m, max_rounds, min_rounds)


def n_rounds_kernel(eps, em, max_rounds=MAX_ROUNDS, min_rounds=MIN_ROUNDS):
    """:func:`n_rounds` on arguments the caller has validated (shared with DPLloyd and the advisor)."""
    if eps <= 2.0 * em:
        return min_rounds
    ratio = eps / em
    if not math.isfinite(ratio):
        return max_rounds
    return int(max(min_rounds, min(math.floor(ratio), max_rounds)))
