"""The basic mechanisms of differential privacy — the only place in the package where noise is drawn.

Thesis Theorems 2.3.1, 2.3.2, 2.4.1 and Corollary 3; Canonne, Kamath & Steinke (NeurIPS 2020) for the
discrete samplers; Mironov (CCS 2012) for why they are needed.

**Floating point.** The textbook Laplace mechanism ``value + rng.laplace(0, b)`` is not differentially private
on a computer: the set of floating-point numbers that ``fl(value + noise)`` can produce depends on ``value``,
and the low-order bits of the output betray it (Mironov 2012). Every mechanism here therefore releases a
number on a **power-of-two grid** ``γ·Z``: the value is rounded to the grid (a deterministic function of the
data, whose effect on the sensitivity is accounted for) and *integer* noise, sampled **exactly** from the
discrete Laplace or discrete Gaussian distribution with integer arithmetic and exact comparisons, is added.
The sum of an integer below ``2**53`` and a power of two is exactly representable, so the output carries no
information beyond the noisy integer. The cost is a slightly larger noise scale (at most 0.1 % for the
Laplace mechanism), never extra ε: the ledger records exactly the ε that was asked for, and the guarantee
holds for that ε. :func:`naive_laplace` keeps the textbook sampler, for study only.

Every mechanism takes ``rng`` (None, an int seed or a ``numpy.random.Generator``) and an optional ``ledger``
(:class:`~dpclust_core.accounting.PrivacyLedger`). A ledger with a budget is asked **before** any noise is
drawn; a release it cannot afford raises :class:`~dpclust_core.accounting.BudgetExceededError`.
"""
from __future__ import annotations

import functools
import math
from decimal import Decimal, localcontext
from fractions import Fraction
from typing import Literal

import numpy as np
from scipy import optimize, special

from ._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, Bool, Delta, Epsilon, EpsilonTooSmallError, Int,
                          Ledger, NoneOr, Options, Real, Rng, RNGLike, Shape, check_int, check_real, check_shape,
                          validate_params)
from .accounting import PrivacyLedger

#: An output shape: an int or a tuple of ints (None for one scalar draw).
ShapeLike = int | tuple[int, ...] | None

__all__ = [
    "laplace_mechanism",
    "geometric_mechanism",
    "gaussian_mechanism",
    "gaussian_mechanism_zcdp",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "exponential_mechanism_intervals",
    "exponential_mechanism_top_k",
    "laplace_noise",
    "gaussian_noise",
    "naive_laplace",
    "gaussian_sigma",
    "discrete_gaussian_sigma",
    "gaussian_mechanism_sigma",
    "zcdp_delta",
    "laplace_grid",
    "grid_step",
    "interval_grid",
    "snap_to_grid",
    "snap_release",
]

#: Relative grid resolution: the grid step is at most ``sensitivity / 2**GRID_BITS`` (see :func:`laplace_grid`).
GRID_BITS = 10
_INT_LIMIT = 2.0**52  # largest integer magnitude the grid arithmetic keeps exact


# ============================================================================================ bookkeeping
def _charge(ledger, name, epsilon, delta=0.0, sensitivity=None):
    """Ask ``ledger`` (already checked by the caller) whether it can afford a release (raises before any noise)."""
    if ledger is not None:
        ledger.require(epsilon, delta)


def _record(ledger, name, epsilon, delta=0.0, sensitivity=None):
    if ledger is not None:
        ledger.record(name, epsilon, delta, sensitivity)


def _as_value(value, name="value"):
    if isinstance(value, (str, bytes)):
        raise BadTypeError(f"{name} must be a real number or an array of real numbers, got a string")
    raw = np.asarray(value)
    if raw.dtype.kind not in "biuf" or raw.dtype.kind == "b":
        raise BadTypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    arr = raw.astype(float)
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


class _GridScale(Real):
    """A sensitivity or noise scale whose power-of-two grid stays a normal float (see :func:`_check_grid_scale`)."""

    def __call__(self, value, name):
        return _check_grid_scale(super().__call__(value, name), name)


#: The checks (Specs) of the arguments the mechanisms share.
_EPS, _DELTA, _SENS, _RNG, _LEDGER = Epsilon(), Delta(), Real(0.0), Rng(), Ledger()
_SIZE = NoneOr(Int(1))


def _out(arr):
    return float(arr) if arr.ndim == 0 else arr


# ============================================================================================ exact samplers
# A uniform real R in (0, 1) is drawn lazily: 64 random bits give the dyadic interval [a 2^-64, (a+1) 2^-64)
# that holds R. A comparison with R is decided in floating point when a rigorous error bound settles it, which
# is almost always; otherwise more bits are drawn and the comparison is redone exactly (Decimal arithmetic,
# whose ln is correctly rounded). The samples are therefore exact draws from the stated distributions.

_LN_ERR = 2.0**-49  # generous bound on the relative error of numpy's log and of one float operation


def _raw64(rng, n):
    return rng.bit_generator.random_raw(n)


_FAST_RAW = np.uint64(2**48)  # below this (probability 2^-16) a draw takes the exact slow path
_LN_2_64 = 64.0 * math.log(2.0)


def _neg_log_uniform(raw):
    """Float ``L ≈ -ln(raw 2^-64)``; for raw >= 2^48, ``-ln R`` lies in ``[L - E - 2^-48, L + E]`` with
    ``E = _LN_ERR (1 + L)`` (conversion of raw to float, the log's own error and one subtraction)."""
    L = raw.astype(np.float64)
    np.log(L, out=L)
    np.subtract(_LN_2_64, L, out=L)
    return L


def _decimal_neg_log_interval(a, k, prec):
    """Decimal bounds ``(lo, hi)`` of ``-ln R`` for ``R`` in ``[a 2^-k, (a+1) 2^-k)`` (hi = inf when a = 0)."""
    with localcontext() as ctx:
        ctx.prec = prec
        ln2k = Decimal(k) * Decimal(2).ln()
        slack = Decimal(10) ** (-(prec - 8)) * (ln2k + 10)
        lo = ln2k - Decimal(a + 1).ln() - slack
        hi = Decimal("Infinity") if a == 0 else ln2k - Decimal(a).ln() + slack
    return lo, hi


def _geometric_exact_scalar(b, a, rng):
    """Exact ``floor(-b ln R)`` for one uniform R whose first 64 bits are ``a`` (the rare slow path)."""
    bd = Decimal(b)  # exact: a float is a dyadic rational
    k = 64
    while True:
        prec = 40 + k // 2
        lo, hi = _decimal_neg_log_interval(a, k, prec)
        with localcontext() as ctx:
            ctx.prec = prec
            if hi.is_finite():
                glo = math.floor(bd * lo * (1 - Decimal(10) ** (8 - prec)))
                ghi = math.floor(bd * hi * (1 + Decimal(10) ** (8 - prec)))
                if glo == ghi:
                    return glo
        a = (a << 64) | int(_raw64(rng, None))
        k += 64


def _geometric(b, n, rng):
    """``n`` exact draws of ``G = floor(-b ln R)``: ``P(G >= g) = exp(-g / b)`` for g = 0, 1, 2, ...

    The float ``x = b L`` (:func:`_neg_log_uniform`) is within ``E = x (2^-49 + 2^-51) + b (2^-49 + 2^-48)`` of
    the true ``b (-ln R)``. ``floor(x)`` is the exact answer whenever the fractional part of ``x`` is at least
    ``E`` from an integer; the other draws (about ``2E`` of them), and those with ``R < 2^-16``, take the exact
    slow path."""
    raw = _raw64(rng, n)
    x = _neg_log_uniform(raw)
    x *= b
    E = x * (_LN_ERR + 2.0**-51)
    E += b * (_LN_ERR + 2.0**-48)
    fl = np.floor(x)
    x -= fl  # the fractional part
    ok = x >= E
    np.subtract(1.0, E, out=E)
    ok &= x < E
    ok &= raw >= _FAST_RAW
    ok &= fl < _INT_LIMIT
    out = fl.astype(np.int64)
    if not ok.all():
        for i in np.flatnonzero(~ok):  # rare: about 2^-16 of the draws, plus ambiguous roundings
            out[i] = _geometric_exact_scalar(b, int(raw[i]), rng)
    return out


def _random_signs(n, rng):
    """``n`` fair random bits as a boolean array (64 per raw draw)."""
    words = _raw64(rng, (n + 63) // 64)
    return np.unpackbits(words.view(np.uint8))[:n].astype(bool)


def _check_scale(b, name="epsilon"):
    """Refuse a noise scale (in grid steps) too large for exact integer arithmetic (epsilon far too small)."""
    if not b < 2.0**48:
        raise EpsilonTooSmallError(f"{name} is too small for the sensitivity: the noise scale sensitivity/{name} "
                                   f"would exceed 2^48 grid steps (use a larger {name})")
    return b


#: Smallest positive sensitivity or noise scale: the power-of-two grid under it must stay a normal float.
_MIN_SCALE = 1e-290


def _check_grid_scale(value, name):
    """A sensitivity (or noise scale) that is 0 or in [1e-290, 1e290]: the power-of-two grid under it must stay a
    normal float, and the noise and its rounding slack must stay finite."""
    if 0 < value < _MIN_SCALE or value > 1.0 / _MIN_SCALE:
        raise ValueError(f"{name} must be 0 or in [{_MIN_SCALE:g}, {1 / _MIN_SCALE:g}] (the grid of the noise would "
                         f"under- or overflow), got {value!r}")
    return value


#: Samplers draw at most this many values at a time, so that their temporaries (about ten 8-byte arrays of the
#: block's size, about 90 MB) stay fixed whatever the size of the release; releases of up to one block draw as
#: one call would.
_BLOCK = 1 << 20


def _in_blocks(sampler, scale, n, rng):
    """``n`` draws of ``sampler(scale, m, rng)``, taken in blocks of at most ``_BLOCK``."""
    if n <= _BLOCK:
        return sampler(scale, n, rng)
    out = np.empty(n, dtype=np.int64)
    for a in range(0, n, _BLOCK):
        b = min(n, a + _BLOCK)
        out[a:b] = sampler(scale, b - a, rng)
    return out


def _discrete_laplace(b, n, rng):
    """``n`` exact draws from the discrete Laplace law ``P(z) ∝ exp(-|z| / b)`` on the integers (CKS Alg. 2)."""
    return _in_blocks(_discrete_laplace_block, b, n, rng)


def _discrete_laplace_block(b, n, rng):
    out = np.empty(n, dtype=np.int64)
    todo = np.arange(n)
    while todo.size:
        g = _geometric(b, todo.size, rng)
        neg = _random_signs(todo.size, rng)
        np.negative(g, out=g, where=neg)
        redo = neg & (g == 0)  # (-, 0) would count zero twice: reject and redraw
        if todo.size == n and not redo.any():
            return g
        keep = ~redo
        out[todo[keep]] = g[keep]
        todo = todo[redo]
    return out


def _accept_exact_scalar(q_exact, a, rng):
    """Exact test ``-ln R > q`` for one lazily refined uniform R (first 64 bits ``a``); q a Fraction or float."""
    qf = Fraction(q_exact)
    k = 64
    while True:
        prec = 40 + k // 2
        lo, hi = _decimal_neg_log_interval(a, k, prec)
        with localcontext() as ctx:
            ctx.prec = prec
            qd = Decimal(qf.numerator) / Decimal(qf.denominator)
            margin = Decimal(10) ** (8 - prec) * (abs(qd) + 1)
            if lo > qd + margin:
                return True
            if hi.is_finite() and hi < qd - margin:
                return False
        a = (a << 64) | int(_raw64(rng, None))
        k += 64


def _discrete_gaussian(sigma, n, rng):
    """``n`` exact draws from the discrete Gaussian ``P(z) ∝ exp(-z^2 / (2 sigma^2))`` (CKS Alg. 3).

    Proposals from the discrete Laplace law of scale ``t = floor(sigma) + 1`` are accepted with probability
    ``exp(-(|y| - sigma^2/t)^2 / (2 sigma^2))`` (about 3 in 4 are).
    """
    return _in_blocks(_discrete_gaussian_block, sigma, n, rng)


def _discrete_gaussian_block(sigma, n, rng):
    s2 = float(np.nextafter(float(sigma) ** 2, np.inf))  # never below the calibrated variance
    t = math.floor(sigma) + 1
    out = np.empty(n, dtype=np.int64)
    todo = None
    m = n
    while m:
        y = _discrete_laplace_block(float(t), m, rng)
        acc = _accept_dg(y, s2, t, rng)
        if todo is None:
            out[: acc.sum()] = y[acc]
            filled = int(acc.sum())
            todo = np.arange(filled, n)
        else:
            out[todo[: acc.sum()]] = y[acc]
            todo = todo[acc.sum():]
        m = todo.size
    return out


def _accept_dg(y, s2, t, rng):
    """Exact Bernoulli(exp(-q)), ``q = (|y| - s2/t)^2 / (2 s2)``, for every proposal ``y``."""
    c = s2 / t
    a = np.abs(y).astype(np.float64)
    q = a - c
    q *= q
    q *= 0.5 / s2  # q, with a relative error below 2^-50 plus the cancellation bounded next
    a += c
    a *= a
    a *= 2.0**-45 / s2  # a bound on the rounding error of q, whatever the cancellation in |y| - s2/t
    raw = _raw64(rng, y.size)
    L = _neg_log_uniform(raw)  # -ln R in [L - E - 2^-48, L + E], E = _LN_ERR (1 + L)
    L -= q
    a += _LN_ERR * (2.0 + np.abs(L + q)) + 2.0**-48  # total margin
    yes = L > a
    unsure = ~yes & (L >= -a)
    unsure |= raw < _FAST_RAW
    yes &= raw >= _FAST_RAW
    if unsure.any():
        for i in np.flatnonzero(unsure):  # rare exact path
            qx = (Fraction(int(abs(y[i]))) - Fraction(s2) / t) ** 2 / (2 * Fraction(s2))
            yes[i] = _accept_exact_scalar(qx, int(raw[i]), rng)
    return yes


# ============================================================================================ the grid
@validate_params(sensitivity=_GridScale(0.0), n_coords=Int(1))
def laplace_grid(sensitivity: float, n_coords: int = 1) -> tuple[float, int]:
    """The grid step ``γ`` (a power of two) and the sensitivity in grid steps of a Laplace release.

    A release of ``n_coords`` coordinates whose L1 sensitivity is ``sensitivity`` is rounded to ``γ Z``, with
    ``γ = 2^floor(log2(sensitivity / (2^10 (n_coords + 1))))``. Rounding each coordinate moves it by at most
    ``γ/2``, so on neighbouring datasets the rounded integers differ in L1 by at most
    ``floor(sensitivity/γ) + n_coords`` steps; one more step absorbs floating-point error in computing the value
    (up to ``γ``, far above the error of summing even 10^10 bounded numbers). The noise scale in steps is this
    integer sensitivity over ε, so the noise is at most ``1 + 1/2^10`` times ``sensitivity/ε``.

    Returns ``(gamma, steps)``.
    """
    if sensitivity == 0:
        return 1.0, 0
    gamma = 2.0 ** math.floor(math.log2(sensitivity / (2.0**GRID_BITS * (n_coords + 1))))
    steps = math.floor(sensitivity / gamma) + n_coords + 1
    return gamma, steps


def _to_grid(arr, gamma, name, sens_name="sensitivity"):
    K = np.divide(arr, gamma, out=np.empty(np.shape(arr)))  # always an array (a 0-d one for a scalar)
    np.rint(K, out=K)
    if K.size and not (K.max() < _INT_LIMIT and K.min() > -_INT_LIMIT):
        raise ValueError(f"{name} is too large for its {sens_name}: |{name}| / {sens_name} must stay below about "
                         f"2^40 for an exact release; rescale the data or the query")
    return K


def _check_l0(l0_sensitivity, size):
    if l0_sensitivity is None:
        return max(int(size), 1)
    return check_int(l0_sensitivity, "l0_sensitivity", 1, max(int(size), 1))


# ============================================================================================ Laplace
@validate_params(epsilon=_EPS, sensitivity=_SENS, value=_as_value, rng=_RNG, ledger=_LEDGER)
def laplace_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None, *,
                      l0_sensitivity: int | None = None, ledger: PrivacyLedger | None = None,
                      name: str = "laplace") -> float | np.ndarray:
    """Release ``value`` plus Laplace noise of scale ``sensitivity/epsilon``, floating-point safe (Eqs. 2.4–2.5).

    The thesis's Theorem 2.3.1 adds ``Lap(Δ/ε)`` to every coordinate of ``f(D)``. Here the value is rounded to
    the power-of-two grid of :func:`laplace_grid` and **exact discrete Laplace** noise is added on that grid
    (Canonne, Kamath & Steinke 2020), which is ε-DP for the numbers a computer actually outputs.

    Parameters
    ----------
    value : float or array_like
        The exact answer f(D). For a vector, independent noise is added to every coordinate and
        ``sensitivity`` is the **L1** sensitivity of the whole vector, Eq. (2.5).
    sensitivity : float
        Global L1 sensitivity Δf >= 0 under the neighbouring notion the caller uses.
    epsilon : float
        Privacy budget, finite and > 0.
    rng : None, int or numpy.random.Generator
        Source of randomness.
    l0_sensitivity : int, optional
        How many coordinates one record can change (default: all of them). A smaller value (1 for a
        histogram, d for the d coordinate sums of one cluster) gives a coarser grid; it never changes ε.
    ledger : PrivacyLedger, optional
        Where the release is recorded (asked first, so an over-budget release raises before any noise).
    name : str
        The ledger entry's name.

    Returns
    -------
    float or ndarray
        Same shape as ``value``, every entry a multiple of the grid step. The probability of any output on
        neighbouring datasets differs by a factor of at most ``e^epsilon``.

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> noisy = laplace_mechanism([120.0, 80.0], sensitivity=1, epsilon=0.5, rng=0, ledger=led, name="counts")
    >>> noisy.shape, led.epsilon
    ((2,), 0.5)
    """
    l0 = _check_l0(l0_sensitivity, value.size)
    _charge(ledger, name, epsilon, 0.0, sensitivity)
    if sensitivity == 0:
        noisy = value.copy()
    else:
        gamma, steps = laplace_grid(sensitivity, l0)
        K = _to_grid(value, gamma, "value")
        b = _check_scale(np.nextafter(steps / epsilon, np.inf))
        K += _discrete_laplace(b, value.size, rng).reshape(value.shape)  # exact integers below 2^53
        K *= gamma
        noisy = K
    _record(ledger, name, epsilon, 0.0, sensitivity)
    return _out(noisy)


@validate_params(scale=_GridScale(0.0, low_open=True), rng=_RNG)
def laplace_noise(scale: float, size: ShapeLike = None, rng: RNGLike = None) -> float | np.ndarray:
    """Exact discrete-Laplace noise of scale ``scale`` on the grid ``2^(floor(log2 scale) - 20) Z``.

    For algorithms that add noise to a comparison and account for it themselves (the Sparse Vector Technique):
    nothing is recorded. The distribution is the discrete Laplace law ``∝ exp(-|z|/scale)`` on that fine grid.
    """
    shape = check_shape(size, "size")
    gamma = 2.0 ** (math.floor(math.log2(scale)) - 20)
    z = _discrete_laplace(np.nextafter(scale / gamma, np.inf), math.prod(shape), rng) * gamma
    return float(z[0]) if size is None else z.reshape(shape)


@validate_params(epsilon=_EPS, sensitivity=_SENS, value=_as_value, rng=_RNG)
def naive_laplace(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None) -> float | np.ndarray:
    """The textbook floating-point Laplace mechanism ``value + rng.laplace(0, Δ/ε)`` — **not private**.

    Kept only to study Mironov's (2012) attack: the set of floats it can output depends on ``value``, so the
    low bits of one output can tell neighbouring datasets apart. Use :func:`laplace_mechanism`.
    """
    return _out(value + rng.laplace(0.0, sensitivity / epsilon, size=value.shape))


# ============================================================================================ geometric
@validate_params(epsilon=_EPS, sensitivity=_SENS, value=_as_value, rng=_RNG, ledger=_LEDGER)
def geometric_mechanism(value: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None, *,
                        ledger: PrivacyLedger | None = None, name: str = "geometric") -> int | np.ndarray:
    """Integer-valued Laplace: ``value + Z`` with ``P(Z = z) ∝ exp(-epsilon |z| / sensitivity)``, sampled exactly.

    The discrete analogue of Theorem 2.3.1 (Ghosh, Roughgarden & Sundararajan 2009): for an integer-valued
    f with L1 sensitivity Δ, ``f(D) + Z`` is ε-DP and stays an integer (dtype int64).

    Examples
    --------
    >>> geometric_mechanism(10, 1, 1.0, rng=0).__class__.__name__
    'int'
    """
    arr, eps, sens = value, epsilon, sensitivity
    if np.any(arr != np.round(arr)):
        raise ValueError("value must be integer-valued for the geometric mechanism")
    if np.any(np.abs(arr) >= _INT_LIMIT):
        raise ValueError("value must be smaller than 2^52 in magnitude")
    _charge(ledger, name, eps, 0.0, sens)
    ints = np.round(arr).astype(np.int64)
    if sens == 0:
        noisy = ints.copy()
    else:
        noisy = ints + _discrete_laplace(_check_scale(np.nextafter(sens / eps, np.inf)), ints.size, rng).reshape(ints.shape)
    _record(ledger, name, eps, 0.0, sens)
    return int(noisy) if noisy.ndim == 0 else noisy


# ============================================================================================ Gaussian
@validate_params(epsilon=_EPS, delta=_DELTA, l2_sensitivity=_SENS, method=Options("analytic", "classic"))
def gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float,
                   method: Literal["analytic", "classic"] = "analytic") -> float:
    """Noise standard deviation of the *continuous* Gaussian mechanism for (epsilon, delta)-DP.

    ``method="analytic"`` (default) is the exact calibration of Balle & Wang (ICML 2018, Theorem 8):
    the smallest sigma with Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) <= δ, valid for every ε > 0.
    ``method="classic"`` is Dwork & Roth's sigma = sqrt(2 ln(1.25/δ)) Δ/ε (Theorem A.1), which the
    proof only supports for ε < 1; larger epsilon raises ``ValueError``.

    :func:`gaussian_mechanism` samples *discrete* Gaussian noise and calibrates it with
    :func:`discrete_gaussian_sigma`; this function is the textbook reference the chapters compare with.

    Examples
    --------
    >>> round(gaussian_sigma(1.0, 1.0, 1e-5), 4)
    3.7306
    """
    eps, dl, sens = epsilon, delta, l2_sensitivity
    if sens == 0:
        return 0.0
    if method == "classic":
        if eps >= 1:
            raise ValueError("epsilon must be < 1 for the classic Gaussian mechanism (use method='analytic')")
        return float(np.sqrt(2 * np.log(1.25 / dl)) * sens / eps)

    def excess(log_s):  # in units of the sensitivity: sigma = sens * exp(log_s)
        s = np.exp(log_s)
        a, b = 1.0 / (2 * s), eps * s
        return special.ndtr(a - b) - np.exp(eps + special.log_ndtr(-a - b)) - dl

    # excess() decreases in sigma; grow the bracket until it holds the root (no fixed bracket to fall out of)
    lo, hi = -5.0, 5.0
    while excess(lo) < 0:
        lo -= 10.0
    while excess(hi) > 0:
        hi += 10.0
    root = optimize.brentq(excess, lo, hi, xtol=1e-13)
    while excess(root) > 0:  # brentq may stop a hair below the root: never exceed delta
        root += 1e-12
    return float(sens * np.exp(root))


@validate_params(rho=Real(0.0), epsilon=_EPS)
def zcdp_delta(rho: float, epsilon: float) -> float:
    """δ of the (ε, δ)-DP guarantee implied by ρ-zCDP (Canonne, Kamath & Steinke 2020, Corollary 13).

    ``δ = inf_{α>1} exp((α−1)(αρ−ε)) / (α−1) · (1 − 1/α)^α``; any α gives a valid bound, and the minimiser is
    found by bisection on the derivative.
    """
    return _zcdp_delta(rho, epsilon)


def _zcdp_delta(rho, eps):
    if rho <= 0:
        return 0.0
    lo, hi = 1.0 + 1e-9, max((eps + 1.0) / (2.0 * rho) + 2.0, 2.0)
    for _ in range(200):
        a = 0.5 * (lo + hi)
        if (2 * a - 1) * rho - eps + math.log1p(-1.0 / a) < 0:
            lo = a
        else:
            hi = a
    a = 0.5 * (lo + hi)
    log_d = (a - 1) * (a * rho - eps) + a * math.log1p(-1.0 / a) - math.log(a - 1)
    return min(math.exp(log_d), 1.0) if log_d < 700 else 1.0


@validate_params(epsilon=_EPS, delta=_DELTA, l2_sensitivity=_SENS)
def discrete_gaussian_sigma(l2_sensitivity: float, epsilon: float, delta: float) -> float:
    """Smallest σ (to 1e-9 relative, rounded up) for which discrete Gaussian noise gives (ε, δ)-DP.

    The multivariate discrete Gaussian with variance σ² per coordinate is ``Δ²/(2σ²)``-zCDP (Canonne, Kamath &
    Steinke 2020, Theorem 14, whose correction term τ is below 1e-300 for the grids used here, σ >= 2^10 steps),
    and ρ-zCDP gives (ε, :func:`zcdp_delta`)-DP. About 8 % more noise than the continuous analytic calibration
    at ε = 1, δ = 1e-5, and exact for the numbers released.
    """
    if l2_sensitivity == 0:
        return 0.0
    return float(np.nextafter(l2_sensitivity / math.sqrt(2.0 * _largest_rho(epsilon, delta)), np.inf))


@functools.lru_cache(maxsize=4096)
def _largest_rho(eps, dl):
    """The largest rho (to 1e-12 relative, from below) with ``zcdp_delta(rho, eps) <= dl`` (cached: it does not
    depend on the sensitivity, and estimators calibrate many releases at the same (eps, delta))."""
    lo, hi = 1e-12, 1.0  # rho bracket: find the largest rho with zcdp_delta(rho) <= delta
    while _zcdp_delta(hi, eps) <= dl:
        hi *= 2.0
    while _zcdp_delta(lo, eps) > dl:
        lo /= 2.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if _zcdp_delta(mid, eps) <= dl:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * lo:
            break
    return lo


def _gaussian_grid(l2, eps, dl, l0):
    gamma = 2.0 ** math.floor(math.log2(l2 / (2.0**GRID_BITS * (math.sqrt(l0) + 1.0))))
    sens_grid = l2 + (math.sqrt(l0) + 1.0) * gamma  # rounding (sqrt(l0) gamma) + float error (gamma)
    sigma = discrete_gaussian_sigma(sens_grid, eps, dl)
    return gamma, sigma


@validate_params(epsilon=_EPS, delta=_DELTA, l2_sensitivity=_GridScale(0.0), l0_sensitivity=Int(1))
def gaussian_mechanism_sigma(l2_sensitivity: float, epsilon: float, delta: float,
                             l0_sensitivity: int = 1) -> float:
    """The standard deviation of the noise :func:`gaussian_mechanism` actually adds (in the value's units).

    It is :func:`discrete_gaussian_sigma` for the sensitivity plus the rounding slack of the grid, so it is a
    little above the continuous analytic σ of :func:`gaussian_sigma`.

    Examples
    --------
    >>> round(gaussian_mechanism_sigma(1.0, 1.0, 1e-5), 2)
    4.05
    """
    if l2_sensitivity == 0:
        return 0.0
    return float(_gaussian_grid(l2_sensitivity, epsilon, delta, l0_sensitivity)[1])


@validate_params(epsilon=_EPS, delta=_DELTA, value=_as_value, rng=_RNG, ledger=_LEDGER)
def gaussian_mechanism(value: ArrayLike, l2_sensitivity: float | ArrayLike, epsilon: float, delta: float,
                       rng: RNGLike = None, *, l0_sensitivity: int | None = None,
                       rows: Literal["sequential", "disjoint"] | None = None, ledger: PrivacyLedger | None = None,
                       name: str = "gaussian") -> float | np.ndarray:
    """Release ``value`` plus Gaussian noise for (epsilon, delta)-DP, floating-point safe.

    The value is rounded to a power-of-two grid and **exact discrete Gaussian** noise is added (Canonne, Kamath
    & Steinke 2020, Algorithm 3), calibrated by :func:`discrete_gaussian_sigma` to the L2 sensitivity plus the
    rounding of up to ``l0_sensitivity`` coordinates.

    Parameters
    ----------
    value : float or array_like
        The exact answer.
    l2_sensitivity : float or array of shape (n_rows,)
        The L2 sensitivity of the whole ``value`` (a float), or one per row of a 2-D ``value`` (see ``rows``).
    epsilon, delta : float
        The guarantee of the release (of each row, with per-row sensitivities).
    l0_sensitivity : int, optional
        How many coordinates (per row) one record can change; default all of them.
    rows : {"sequential", "disjoint"}, optional
        Required with per-row sensitivities: every row is its own (ε, δ) Gaussian mechanism. ``"sequential"``
        records one ledger entry per row (they compose); ``"disjoint"`` records them as the parts of one parallel
        group, which is right only when one record can change a single row.
    ledger, name
        As in :func:`laplace_mechanism`.

    Returns
    -------
    float or ndarray, same shape as ``value``.

    Examples
    --------
    >>> out = gaussian_mechanism([1.0, 2.0, 3.0], l2_sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    >>> out.shape
    (3,)
    """
    arr, eps, dl = value, epsilon, delta
    per_row = np.ndim(l2_sensitivity) > 0
    if per_row:
        sens = _as_value(l2_sensitivity, "l2_sensitivity")
        if arr.ndim == 0 or sens.shape != (arr.shape[0],) or np.any(sens < 0):
            raise ValueError("l2_sensitivity must be a float, or one non-negative value per row of value")
        Options("sequential", "disjoint")(rows, "rows")
        n_rows = arr.shape[0]
        l0 = _check_l0(l0_sensitivity, arr[0].size)
        if ledger is not None:
            _charge(ledger, name, eps * (n_rows if rows == "sequential" else 1),
                    dl * (n_rows if rows == "sequential" else 1))
        noisy = np.empty_like(arr)
        for i in range(n_rows):  # a loop over released rows (clusters), never over data points
            noisy[i] = _gaussian_release(arr[i], float(sens[i]), eps, dl, l0, rng)
        if ledger is not None:
            if rows == "sequential":
                for i in range(n_rows):
                    ledger.record(f"{name} [row {i}]", eps, dl, float(sens[i]))
            else:
                with ledger.parallel(name) as par:
                    for i in range(n_rows):
                        with par.partition():
                            ledger.record(f"{name} [row {i}]", eps, dl, float(sens[i]))
        return noisy
    sens = _GridScale(0.0)(l2_sensitivity, "l2_sensitivity")
    l0 = _check_l0(l0_sensitivity, arr.size)
    _charge(ledger, name, eps, dl, sens)
    noisy = _gaussian_release(arr, sens, eps, dl, l0, rng)
    _record(ledger, name, eps, dl, sens)
    return _out(noisy)


@validate_params(rho=Real(low=0.0, low_open=True), value=_as_value, rng=_RNG, ledger=_LEDGER)
def gaussian_mechanism_zcdp(value: ArrayLike, l2_sensitivity: float, rho: float, rng: RNGLike = None, *,
                            l0_sensitivity: int | None = None, ledger: PrivacyLedger | None = None,
                            name: str = "gaussian") -> float | np.ndarray:
    """Release ``value`` plus discrete Gaussian noise for ``rho``-zCDP, floating-point safe.

    As :func:`gaussian_mechanism` (the same grid and rounding slack), with ``σ = (Δ + slack)/sqrt(2ρ)``: the
    discrete Gaussian is ``Δ²/(2σ²)``-zCDP (Canonne, Kamath & Steinke 2020, Thm. 14). A ``ledger`` must hold an
    open :meth:`~dpclust_core.accounting.PrivacyLedger.zcdp` group, where the release is recorded with its ρ.
    """
    arr = value
    sens = _GridScale(0.0)(l2_sensitivity, "l2_sensitivity")
    l0 = _check_l0(l0_sensitivity, arr.size)
    if ledger is not None:
        ledger.require(0.0, 0.0, name, rho=rho)
    noisy = np.array(arr, dtype=float, copy=True)
    if sens > 0:
        gamma = 2.0 ** math.floor(math.log2(sens / (2.0**GRID_BITS * (math.sqrt(l0) + 1.0))))
        sigma = np.nextafter((sens + (math.sqrt(l0) + 1.0) * gamma) / math.sqrt(2.0 * rho), np.inf)
        noisy = _to_grid(arr, gamma, "value", "l2_sensitivity")
        noisy += _discrete_gaussian(sigma / gamma, arr.size, rng).reshape(arr.shape)
        noisy *= gamma
    if ledger is not None:
        ledger.record(name, 0.0, 0.0, sens, rho=rho)
    return _out(noisy)


def _gaussian_release(arr, sens, eps, dl, l0, rng):
    if sens == 0:
        return np.array(arr, dtype=float, copy=True)
    gamma, sigma = _gaussian_grid(sens, eps, dl, l0)
    K = _to_grid(arr, gamma, "value", "l2_sensitivity")
    K += _discrete_gaussian(sigma / gamma, arr.size, rng).reshape(arr.shape)  # exact integers below 2^53
    K *= gamma
    return K


@validate_params(rng=_RNG, size=NoneOr(Shape()))
def gaussian_noise(sigma: float | ArrayLike, size: ShapeLike = None, rng: RNGLike = None) -> float | np.ndarray:
    """Exact discrete Gaussian noise of standard deviation about ``sigma`` on the grid ``2^(floor(log2 σ)-20) Z``.

    For simulations and for algorithms that calibrate and account for their noise themselves; nothing is
    recorded. ``sigma`` may be an array broadcast against ``size`` (one scale per row).
    """
    if isinstance(sigma, (str, bytes)) or np.asarray(sigma).dtype.kind not in "iuf":
        raise BadTypeError(f"sigma must be a real number or an array of real numbers, got {sigma!r}")
    s = np.asarray(sigma, dtype=float)
    if not np.all(np.isfinite(s)) or np.any(s < _MIN_SCALE):
        raise ValueError(f"sigma must be finite and at least {_MIN_SCALE:g}, got {sigma!r}")
    try:
        shape = np.broadcast_shapes(s.shape, () if size is None else size)
    except ValueError:
        raise ValueError(f"sigma of shape {s.shape} does not broadcast to size={size!r}") from None
    n = math.prod(shape)
    check_int(n, "size", 0, MAX_ALLOCATION)
    sb = np.broadcast_to(s, shape).ravel() if shape else s.ravel()
    out = np.empty(n)
    for val in np.unique(sb):  # one exact sampler per distinct scale (rows), never per data point
        idx = np.flatnonzero(sb == val)
        gamma = 2.0 ** (math.floor(math.log2(val)) - 20)
        out[idx] = _discrete_gaussian(val / gamma, idx.size, rng) * gamma
    return float(out[0]) if not shape else out.reshape(shape)


# ============================================================================================ release grids
from ._grid import RELEASE_BITS, _grid_step, _interval_grid, _snap, _snap_release


@validate_params(scale=_GridScale(0.0, low_open=True), bits=Int(1, 1000))
def grid_step(scale: float, bits: int = RELEASE_BITS) -> float:
    """The power-of-two step ``2^(floor(log2 scale) - bits)`` of a release whose public scale is ``scale``.

    A released float that is a multiple of this step, and smaller than ``2^52`` steps, carries no low-order bits
    beyond the integer it encodes (Mironov 2012): the step must be chosen from public inputs only.

    Examples
    --------
    >>> grid_step(1.0), grid_step(3.0, bits=4)
    (9.094947017729282e-13, 0.125)
    """
    return _grid_step(scale, bits)


@validate_params(value=_as_value, step=lambda v, name: _check_steps(v, name))
def snap_to_grid(value: ArrayLike, step: float | ArrayLike) -> float | np.ndarray:
    """``value`` rounded to the nearest multiple of the power-of-two ``step`` (one step, or one per column).

    Post-processing of a release: a value that is already a function of released quantities only may be snapped
    onto a public grid at no cost in privacy.

    Examples
    --------
    >>> snap_to_grid([0.3, -1.26], 0.25).tolist()
    [0.25, -1.25]
    """
    return _out(_snap(value, step))


def _check_steps(step, name="step"):
    """A positive power of two, or an array of them."""
    st = _as_value(step, name)
    if not (np.all(st > 0) and np.all(np.frexp(st)[0] == 0.5)):
        raise ValueError(f"{name} must be a positive power of two (or an array of them), got {step!r}")
    return st


def snap_release(value: object, step: float | ArrayLike) -> object:
    """A released float, array, or dict / list / tuple of them, rounded onto the power-of-two grid ``step``
    (one step, or an array broadcast against every array); anything else is returned unchanged.

    For the attributes an algorithm computes from its releases (post-processing): rounding them onto a public
    grid costs no privacy and leaves no low-order bits of the arithmetic behind.

    Examples
    --------
    >>> snap_release({"a": [0.3, 1.1], "b": (0.6, "text")}, 0.5)
    {'a': [0.5, 1.0], 'b': (0.5, 'text')}
    """
    return _snap_release(value, _check_steps(step))


@validate_params(low=Real(), high=Real())
def interval_grid(low: float, high: float, bits: int = RELEASE_BITS) -> tuple[float, int, int]:
    """A public power-of-two grid for releasing a point of ``[low, high]``: ``(step, j_low, j_high)``.

    The grid points are ``j·step`` for the integers ``j_low <= j <= j_high``, all inside ``[low, high]``. The step
    is :func:`grid_step` of the width, coarsened when the interval lies far from 0 so that every ``|j|`` stays
    below ``2^52`` (the products ``j·step`` are then exact).

    Examples
    --------
    >>> interval_grid(-1.0, 1.0, bits=3)
    (0.25, -4, 4)
    """
    if not low < high:
        raise ValueError(f"low and high must satisfy low < high, got low={low!r}, high={high!r}")
    with np.errstate(over="ignore"):
        width = high - low
    if not math.isfinite(width):
        raise ValueError("low and high: the width high - low overflows a float")
    bits = check_int(bits, "bits", 1, 1000)
    return _interval_grid(low, high, bits)


# ============================================================================================ exponential
# Exact sampling by inversion. Option i (finite score, count c_i >= 1 of points) has the weight
# w_i = c_i exp(-G_i), G_i = eps (q* - q_i) / (f Δ) >= 0 with q* the best score and f = 2 (1 when monotonic),
# and the output is the i with S_{i-1} <= R W < S_i, where S are the prefix sums of the exact weights, W their
# total and R a uniform real in (0, 1): option i is drawn with probability w_i / W exactly. R is drawn lazily
# (64 random bits, more on demand). The prefix sums are computed in floating point with a rigorous bound E on
# their error; when R W lies farther than about 2E from every bucket edge (all but about 2·n·E/W of the draws)
# the float search is the exact answer, and otherwise the comparison is redone in Decimal arithmetic (wide
# exponent range, precision growing with the number of random bits). No option with a finite score is ever given
# probability 0, and the ratio bound holds exactly for the inputs taken as exact numbers.

_EXP_ERR = 2.0**-46  # generous bound on the relative error of numpy's exp
_U = 2.0**-53  # unit roundoff of float64
_TINY = 2.0**-1072  # absolute slack per weight: exp(-g) under-flows below 2^-1074
_MAX_COUNT = 2**53  # counts of grid points are exact floats below this
_EXACT_PREC_G = 19  # decimal digits of the largest gap G that matters (exp(-G) under-flows Decimal beyond 10^18)


def _scaled_gaps(qs, q, eps, factor, sens):
    """Float ``g_i ≈ eps (qs - q_i) / (factor sens)`` with relative error below ``3.01 u`` (three roundings), or
    ``inf`` where the exact value exceeds the float range; never NaN. The caller ignores under-flow."""
    scale = eps / sens / factor  # Python floats: inf or 0 on over- or under-flow, never an error
    if 2.0**-1000 < scale < math.inf and math.isfinite((qs - float(q.min())) * scale):
        return (qs - q) * scale  # the common case: no overflow and no loss of range anywhere
    # extreme inputs: add the binary exponents separately, so that nothing over- or under-flows on the way
    with np.errstate(over="ignore", invalid="ignore"):
        gap = qs - q
    big = np.isinf(gap)
    if big.any():  # qs - q overflowed: halve both (exact for such large numbers) and add 1 to the exponent
        gap = np.where(big, 0.5 * qs - 0.5 * q, gap)
    mg, eg = np.frexp(gap)
    me, ee = math.frexp(eps)
    ms, es = math.frexp(sens)
    shift = eg.astype(np.int64) + big + (ee - es - (1 if factor == 2.0 else 0))
    with np.errstate(over="ignore", under="ignore"):
        return np.ldexp(mg * (me / ms), np.clip(shift, -4000, 4000))


class _EMTable:
    """The weights of the exponential mechanism for one list of options, ready for exact inversion draws.

    ``q`` holds the scores (``-inf`` excludes an option), ``counts`` the number of points of each option (None:
    one each; 0 excludes it).
    """

    def __init__(self, q, counts, eps, factor, sens):
        live = q > -np.inf
        if counts is not None:
            live &= counts > 0
        self.index = None if live.all() else np.flatnonzero(live)  # None: every option is live
        self.q = q if self.index is None else q[self.index]
        self.counts = counts if counts is None or self.index is None else counts[self.index]
        self.qs = float(self.q.max())
        self.eps, self.factor, self.sens = eps, factor, sens
        with np.errstate(under="ignore"):
            g = _scaled_gaps(self.qs, self.q, eps, factor, sens)
            w = np.exp(-g)
            if self.counts is not None:
                w *= self.counts
            inf = np.isinf(g)
            if inf.any():
                g = np.where(inf, 0.0, g)  # their weights are 0 (the under-flow slack covers them)
            wg = float(np.dot(w, g))  # sum w_i g_i: the error of exp(-g) grows with g
        m = self.q.size
        n_tiny = float(m if self.counts is None else self.counts.sum())
        self.cum = np.cumsum(w)
        self.total = float(self.cum[-1])  # >= 1: the best option has g = 0 and a count >= 1
        # |cum_j - S_j| <= err: the weights' errors (exp, the count's product, the gaps' 3.01 u, under-flow) plus
        # the sequential summation (j u per partial sum)
        err = 1.01 * ((_EXP_ERR + 2 * _U) * self.total + 3.02 * _U * wg + n_tiny * _TINY) + 1.02 * m * _U * self.total
        # margin around every bucket edge: err for the edge, err for the total, the 64-bit quantisation of R and
        # the roundings of the comparisons
        self.margin = 2.05 * err + (2.0**-63 + 8 * _U) * self.total
        self._exact = None
        self._decimal = {}

    def draw(self, n, rng):
        """``n`` exact draws; returns the positions in the caller's list of options."""
        if n == 1:
            return self._draw_one(rng)
        raw = _raw64(rng, n)
        t = raw.astype(np.float64)
        t *= 2.0**-64 * self.total
        m = self.cum.size
        j = np.searchsorted(self.cum, t, side="right")
        np.minimum(j, m - 1, out=j)
        below = np.where(j > 0, self.cum[np.maximum(j - 1, 0)], -np.inf)
        ok = (j == 0) | (t - below >= self.margin)
        ok &= (j == m - 1) | (self.cum[j] - t > self.margin)
        if not ok.all():
            for i in np.flatnonzero(~ok):  # rare: R W lies within the float error of a bucket edge
                j[i] = self._exact_draw(int(raw[i]), rng)
        return j if self.index is None else self.index[j]

    def _draw_one(self, rng):
        """One draw, as :meth:`draw` does it, in Python floats (a single selection is the common call)."""
        a = int(_raw64(rng, None))
        t = a * (2.0**-64 * self.total)
        cum, m = self.cum, self.cum.size
        j = min(int(np.searchsorted(cum, t, side="right")), m - 1)
        if not ((j == 0 or t - cum[j - 1] >= self.margin) and (j == m - 1 or cum[j] - t > self.margin)):
            j = self._exact_draw(a, rng)  # rare: R W lies within the float error of a bucket edge
        return np.array([j if self.index is None else self.index[j]], dtype=np.int64)

    # ------------------------------------------------------------------ the exact slow path
    def _exact_data(self):
        """The exact scale ``eps / (f Δ)``, the counts as ints, and the decimal digits of the largest gap G."""
        if self._exact is None:
            scale = Fraction(self.eps) / (Fraction(self.factor) * Fraction(self.sens))
            gmax = scale * (Fraction(self.qs) - Fraction(float(self.q.min())))
            cnt = [1] * self.q.size if self.counts is None else [int(c) for c in self.counts]
            digits = min(_EXACT_PREC_G, len(str(int(gmax))) if gmax >= 1 else 1)
            self._exact = (scale, cnt, digits)
        return self._exact

    def _exact_cum(self, prec):
        """Decimal prefix sums of the exact weights at ``prec`` digits, and their relative error bound."""
        if prec not in self._decimal:
            scale, cnt, digits = self._exact_data()
            m = len(cnt)
            with localcontext() as ctx:
                ctx.prec = prec
                ctx.Emax = 999_999_999_999_999_999
                ctx.Emin = -999_999_999_999_999_999
                sd = Decimal(scale.numerator) / Decimal(scale.denominator)
                qs = Decimal(self.qs)
                acc = Decimal(0)
                cum = []
                for v, c in zip(self.q.tolist(), cnt):  # a loop over the options, on the rare slow path only
                    acc += (-(sd * (qs - Decimal(v)))).exp() * c
                    cum.append(acc)
                # relative error of every partial sum: three roundings of G (amplified by G <= 10^digits), exp,
                # the count and one per addition
                rel = Decimal(4 * 10**digits + m + 10) * Decimal(10) ** (2 - prec)
            self._decimal[prec] = (cum, rel)
        return self._decimal[prec]

    def _exact_draw(self, a, rng):
        """Exact inversion for one uniform whose first 64 bits are ``a`` (Decimal arithmetic, more bits on demand)."""
        _, cnt, digits = self._exact_data()
        m = len(cnt)
        k = 64
        while True:
            prec = 30 + digits + len(str(m)) + (3 * k) // 10
            cum, rel = self._exact_cum(prec)
            with localcontext() as ctx:
                ctx.prec = prec
                ctx.Emax = 999_999_999_999_999_999
                ctx.Emin = -999_999_999_999_999_999
                W = cum[-1]
                two_k = Decimal(2) ** k
                t_lo = Decimal(a) / two_k * W * (1 - 2 * rel)
                t_hi = Decimal(a + 1) / two_k * W * (1 + 2 * rel)
                j = _first_above([s * (1 - rel) for s in cum], t_hi)
                j = min(j, m - 1)  # R < 1, so R W < W: the last edge is never crossed
                if j == 0 or cum[j - 1] * (1 + rel) <= t_lo:
                    return j
            a = (a << 64) | int(_raw64(rng, None))
            k += 64


def _first_above(sorted_values, x):
    """The first index whose value exceeds x (len if none), by bisection."""
    lo, hi = 0, len(sorted_values)
    while lo < hi:
        mid = (lo + hi) // 2
        if sorted_values[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


def _em_sensitivity(sensitivity, name):
    sens = check_real(sensitivity, name, low=0.0)
    if sens == 0:
        raise ValueError(f"{name} must be > 0 for the exponential mechanism")
    return sens


#: The checks (Specs) of the arguments every exponential mechanism takes.
_EM_SPECS = dict(epsilon=_EPS, sensitivity=_em_sensitivity, scores=lambda v, name: _as_scores(v, name),
                 monotonic=Bool())


def _em_logits(scores, sensitivity, epsilon, monotonic, counts=None):
    """Float log-weights ``eps q / (f Δ) + log c``, shifted so that the best option has 0 (for the law only)."""
    eps, sens, q = epsilon, sensitivity, scores
    c = None if counts is None else _as_counts(counts, q)
    factor = 1.0 if monotonic else 2.0
    live = q > -np.inf if c is None else (q > -np.inf) & (c > 0)
    g = np.full(q.shape, np.inf)
    g[live] = _scaled_gaps(float(q[live].max()), q[live], eps, factor, sens)
    with np.errstate(divide="ignore"):
        logits = -g if c is None else np.log(c) - g
    return logits, eps, sens


def _as_scores(scores, name="scores"):
    if isinstance(scores, (str, bytes)):
        raise BadTypeError(f"{name} must be a 1-D array of real numbers, got a string")
    raw = np.asarray(scores)
    if raw.dtype.kind not in "iuf":
        raise BadTypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    q = raw.astype(float)
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {q.shape}")
    if np.any(np.isnan(q)) or np.any(q == np.inf):
        raise ValueError(f"{name} contains NaN or +inf (use -inf to exclude an option)")
    if np.all(q == -np.inf):
        raise ValueError(f"{name}: every option is excluded (-inf)")
    return q


def _as_counts(counts, q, name="counts"):
    """Counts of points per piece: non-negative integers below 2^53 (int or integer-valued float), one per score,
    at least one positive where the score is finite. Returned as floats (exact)."""
    if isinstance(counts, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of non-negative integers, got a string")
    raw = np.asarray(counts)
    if raw.dtype.kind not in "iuf":
        raise BadTypeError(f"{name} must hold non-negative integers, got dtype {raw.dtype}")
    c = raw.astype(float)
    if c.shape != q.shape:
        raise ValueError(f"{name} must have one entry per score: shape {q.shape}, got {c.shape}")
    if not np.all(np.isfinite(c)) or np.any(c < 0) or np.any(c != np.floor(c)) or np.any(c >= _MAX_COUNT):
        raise ValueError(f"{name} must hold non-negative integers below 2^53 (numbers of grid points)")
    if not np.any((c > 0) & (q > -np.inf)):
        raise ValueError(f"{name}: every piece is empty or excluded")
    return c


@validate_params(**_EM_SPECS)
def exponential_mechanism_probabilities(scores: ArrayLike, sensitivity: float, epsilon: float,
                                        monotonic: bool = False, *, counts: ArrayLike | None = None) -> np.ndarray:
    """Output probabilities of the exponential mechanism (Su's thesis, Definition 2.4.1 / Corollary 3), in floats.

    ``Pr[o] ∝ exp(eps * q(D, o) / (2Δq))``, or ``exp(eps * q / Δq)`` when ``monotonic=True``; with ``counts``,
    ``Pr[o] ∝ counts[o] · exp(...)`` (the law of the piece that :func:`exponential_mechanism_intervals` selects).
    Computed in log space (log-sum-exp), so scores of 1e6 do not overflow; an option whose probability is below
    the smallest float shows 0 here although the sampler gives it its exact, positive probability.

    Examples
    --------
    >>> exponential_mechanism_probabilities([0.0, 0.0], 1.0, 1.0).tolist()
    [0.5, 0.5]
    >>> exponential_mechanism_probabilities([0.0, 0.0], 1.0, 1.0, counts=[1, 3]).round(12).tolist()
    [0.25, 0.75]
    """
    logits, _, _ = _em_logits(scores, sensitivity, epsilon, monotonic, counts)
    return np.exp(logits - special.logsumexp(logits))


@validate_params(**_EM_SPECS, rng=_RNG, size=_SIZE, ledger=_LEDGER)
def exponential_mechanism(scores: ArrayLike, sensitivity: float, epsilon: float, rng: RNGLike = None,
                          monotonic: bool = False, *, size: int | None = None, ledger: PrivacyLedger | None = None,
                          name: str = "exponential") -> int | np.ndarray:
    """Select an index with probability ∝ exp(eps·q/(2Δq)) (Su's thesis, Def. 2.4.1, Thm 2.4.1), exactly.

    Parameters
    ----------
    scores : array_like, shape (n_options,)
        Quality q(D, o) of every option; higher is better. ``-inf`` excludes an option. To minimise
        a loss J, pass ``-J``.
    sensitivity : float
        Δq, the largest change of any score between neighbouring datasets.
    epsilon : float
        The budget of one selection.
    rng : None, int or Generator
    monotonic : bool
        If every score moves in the same direction between any neighbours (Corollary 3), the factor 2
        is dropped, which is the same as doubling epsilon.
    size : int, optional
        Draw this many independent selections at once (for audits and simulations). The ledger is
        charged once per selection.
    ledger, name
        As in :func:`laplace_mechanism`.

    Returns
    -------
    int, or ndarray of ``size`` ints.

    Notes
    -----
    The selection is exact: with the scores, ε and Δq taken as the exact numbers they are, option ``o`` is drawn
    with probability exactly ``exp(ε q_o/(2Δq)) / Σ exp(ε q/(2Δq))``, so every option with a finite score has a
    positive probability and the ratio bound ``e^ε`` between neighbours holds exactly. The sampler inverts a
    uniform real number drawn bit by bit against the cumulative weights: floating-point prefix sums with a
    rigorous error bound decide almost every draw, and the few draws that land within that bound of a bucket
    edge are decided in exact decimal arithmetic with more random bits (the method of the discrete samplers,
    Canonne, Kamath & Steinke 2020). The usual Gumbel-max shortcut, ``argmax(logits + Gumbel noise)``, cannot be
    exact: floating-point Gumbel noise lies in about [−3.6, 36.7], so an option trailing the best by more than
    about 40 (in units of ``2Δq/ε``) would never be drawn.

    Examples
    --------
    >>> exponential_mechanism([0.0, 100.0, 0.0], sensitivity=1, epsilon=1.0, rng=0)
    1
    """
    eps, sens, q, factor = epsilon, sensitivity, scores, 1.0 if monotonic else 2.0
    n = 1 if size is None else size
    _charge(ledger, name, n * eps, 0.0, sens)
    table = _EMTable(q, None, eps, factor, sens)
    out = _in_blocks(lambda _, m, r: table.draw(m, r), None, n, rng)
    if size is None:
        _record(ledger, name, eps, 0.0, sens)
        return int(out[0])
    _record(ledger, f"{name} (x{n} independent selections)", n * eps, 0.0, sens)
    return out


@validate_params(**_EM_SPECS, rng=_RNG, ledger=_LEDGER)
def exponential_mechanism_top_k(scores: ArrayLike, k: int, sensitivity: float, epsilon: float, rng: RNGLike = None,
                                monotonic: bool = False, *, size: int | None = None,
                                ledger: PrivacyLedger | None = None, name: str = "exponential (top-k)") -> np.ndarray:
    """Select ``k`` distinct indices by ``k`` rounds of the exponential mechanism without replacement.

    Round ``j`` picks one of the options not picked in rounds ``1..j-1`` with probability ∝ exp(ε·q/(2Δq))
    (∝ exp(ε·q/Δq) when ``monotonic``), each round at ``epsilon``; by sequential composition the ``k`` rounds
    cost ``k·epsilon``. Every round is an exact draw (:func:`exponential_mechanism`): a draw from all the options
    that hits an option already picked is redrawn (rejection gives exactly the law over the remaining options),
    and the runs still rejected after eight tries, or as soon as most draws are rejected, draw from their
    remaining options directly.

    Parameters
    ----------
    scores : array_like, shape (n_options,)
        Quality of every option (higher is better); ``-inf`` excludes an option.
    k : int
        Number of rounds (distinct selections), at most the number of options not excluded.
    sensitivity : float
        Δq, the largest change of any score between neighbouring datasets.
    epsilon : float
        The budget of **one** round; the release costs ``k * epsilon``.
    rng : None, int or Generator
    monotonic : bool
        Drop the factor 2 when every score moves the same way between neighbours (Corollary 3).
    size : int, optional
        Draw this many independent runs at once (rows of the output); the ledger is charged
        ``size * k * epsilon``.
    ledger, name
        As in :func:`laplace_mechanism`.

    Returns
    -------
    ndarray of int64, shape (k,) or (size, k)
        The selected indices in selection order (round 1 first).

    Examples
    --------
    >>> exponential_mechanism_top_k([0.0, 100.0, 50.0, 0.0], 2, sensitivity=1, epsilon=1.0, rng=0).tolist()
    [1, 2]
    """
    eps, sens, q, factor = epsilon, sensitivity, scores, 1.0 if monotonic else 2.0
    k = check_int(k, "k", 1, int(np.sum(q > -np.inf)))
    n = 1 if size is None else check_int(size, "size", 1, MAX_ALLOCATION // k)
    _charge(ledger, name, n * k * eps, 0.0, sens)
    out = np.empty((n, k), dtype=np.int64)
    table = _EMTable(q, None, eps, factor, sens)
    for r in range(k):  # a loop over the k rounds
        _top_k_round(out, r, q, table, eps, factor, sens, rng)
    runs = "" if size is None else f", x{n} independent runs"
    _record(ledger, f"{name} ({k} rounds without replacement{runs})", n * k * eps, 0.0, sens)
    return out[0] if size is None else out


def _top_k_round(out, r, q, table, eps, factor, sens, rng, tries=8):
    """Round ``r`` of every run: exact draws from the options not yet picked in that run."""
    todo = np.arange(out.shape[0])
    for _ in range(tries if r else 1):  # rejection: redraw the runs whose draw was picked before
        pick = table.draw(todo.size, rng)
        clash = (out[todo, :r] == pick[:, None]).any(axis=1)
        out[todo[~clash], r] = pick[~clash]
        todo = todo[clash]
        if not todo.size:
            return
        if 2 * todo.size > clash.size:  # the picked options hold most of the mass: rejection would be slow
            break
    # the rest draw from their remaining options directly, one table per distinct set of picked options
    picked = np.sort(out[todo, :r], axis=1)
    order = np.lexsort(picked.T[::-1])  # runs with the same picked set become neighbours
    picked = picked[order]
    starts = np.flatnonzero(np.concatenate([[True], (picked[1:] != picked[:-1]).any(axis=1)]))
    ends = np.append(starts[1:], picked.shape[0])
    for a, b in zip(starts, ends):  # a loop over distinct picked sets (few: the heavy options come first)
        rows = todo[order[a:b]]
        rest = q.copy()
        rest[picked[a]] = -np.inf
        out[rows, r] = _EMTable(rest, None, eps, factor, sens).draw(rows.size, rng)


@validate_params(**_EM_SPECS, rng=_RNG, size=_SIZE, ledger=_LEDGER)
def exponential_mechanism_intervals(scores: ArrayLike, counts: ArrayLike, sensitivity: float, epsilon: float,
                                    rng: RNGLike = None, *, monotonic: bool = False, size: int | None = None,
                                    ledger: PrivacyLedger | None = None, name: str = "exponential (intervals)"
                                    ) -> tuple[int | np.ndarray, int | np.ndarray]:
    """The exponential mechanism over a finite grid of points whose quality is constant on runs of points.

    The output space is a public grid cut into runs (pieces) of consecutive grid points; piece ``i`` holds
    ``counts[i]`` points, all of quality ``scores[i]``. A grid point is drawn with probability ∝
    ``exp(ε q / (2Δq))``: piece ``i`` is selected with probability ∝ ``counts[i] · exp(ε scores[i] / (2Δq))``
    (exactly, as in :func:`exponential_mechanism`; the count enters as the base measure, not as a second use of
    the data) and then a point is drawn uniformly inside it, as an exactly uniform integer offset. Used by private
    quantiles (Smith 2011), PrivTHR_EM's threshold, the interior point of k-tuple clustering and the private
    bounds: each snaps the data onto a public power-of-two grid (:func:`interval_grid`) and releases a grid point
    ``(start + offset)·step``, an exact float whatever the data — unlike ``low + u·(high - low)`` between data
    values, whose low-order bits depend on the data.

    Parameters
    ----------
    scores : array_like, shape (n_pieces,)
        The quality of the points of every piece; ``-inf`` excludes a piece.
    counts : array_like of non-negative integers, shape (n_pieces,)
        The number of grid points of every piece (below 2^53); an empty piece is never selected.
    sensitivity, epsilon, rng, monotonic, size, ledger, name
        As in :func:`exponential_mechanism`.

    Returns
    -------
    (index, offset)
        The selected piece(s) and the uniform offset(s) in ``0 .. counts[index] - 1`` (ints, or int64 arrays of
        length ``size``).

    Examples
    --------
    >>> i, j = exponential_mechanism_intervals([0.0, 5.0], [4, 4], 1.0, 2.0, rng=0)
    >>> i, 0 <= j < 4
    (1, True)
    """
    eps, sens, q, factor = epsilon, sensitivity, scores, 1.0 if monotonic else 2.0
    c = _as_counts(counts, q)
    n = 1 if size is None else size
    _charge(ledger, name, n * eps, 0.0, sens)
    table = _EMTable(q, c, eps, factor, sens)
    i = _in_blocks(lambda _, m, r: table.draw(m, r), None, n, rng)
    offset = rng.integers(0, c[i].astype(np.int64))  # exactly uniform integers
    if size is None:
        _record(ledger, name, eps, 0.0, sens)
        return int(i[0]), int(offset[0])
    _record(ledger, f"{name} (x{n} independent selections)", n * eps, 0.0, sens)
    return i, offset
