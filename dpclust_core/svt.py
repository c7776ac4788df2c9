"""The Sparse Vector Technique (SVT): every variant of thesis chapter 5, their noise and their actual privacy.

After Dong Su's thesis, ch. 5 "Understanding the Sparse Vector Technique" (= Lyu, Su & Li, PVLDB 2017).
SVT answers a stream of queries ``q_1, q_2, ...`` with "above" (⊤) or "below" (⊥) a threshold ``T`` and pays
only for the (at most ``c``) positive answers. The thesis lists six published variants (Algs. 17–22), the
GPTT model of the buggy ones, and its generalised standard SVT (Alg. 23). Four of them are **not
differentially private**; they live here, named after their source, only to be studied (the book's chapter 6
shows each one failing).

Conventions, shared by every variant:

* comparison: ⊤ iff ``q_i + ν_i >= T_i + ρ``; the threshold noise ρ is drawn once per run (only
  ``dwork_roth_2014`` redraws it after every ⊤);
* cutoff: the run halts right after its c-th ⊤ (variants without a cutoff never halt);
* neighbouring datasets: unbounded DP (add/remove one record); every query has sensitivity ``Δ``.
  The privacy analysis only uses the answer vectors ``q(D)``, ``q(D')``, so the functions here take the
  **answers** (``queries``) directly.

Entry points
------------
:func:`run`
    One vectorised simulator for every variant: ``run(variant, queries, threshold, epsilon, c)`` returns
    a float array ``(n_runs, len(queries))`` with 1.0 (⊤), 0.0 (⊥), NaN (after the halt) and, for
    variants that release numbers, the released number in place of 1.0.
:data:`VARIANTS`
    The registry: name -> :class:`Variant` (function, algorithm number, noise scales, claimed and
    actual privacy). The chapter's comparison table (Fig. 5.7) is generated from it.

The exact probability of an output vector (master formula, Eq. 5.5), the privacy loss on two neighbouring
answer vectors, their Monte Carlo estimates and the auditor run on a variant are the book's analysis tools
(``dpclust_book.svt_exact``). So are the chapter's counterexamples, their three views, the GPTT proof evaluated,
the top-c selection experiment (SVT vs the exponential mechanism) and the thesis's Zipf tables
(``dpclust_book.experiments.svt``).

Noise and sizes
---------------
Every random draw that plays the role of privacy noise goes through :mod:`~dpclust_core.mechanisms`: exact
discrete Laplace noise on a fine power-of-two grid (:func:`~dpclust_core.mechanisms.laplace_noise`, floating-point
safe) for the comparisons and the released numbers. A simulation
allocates at most ``MAX_ALLOCATION`` (2^31) outputs at once; a bigger ``n_runs`` is refused by name.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
from numpy.typing import ArrayLike

from ._validation import (MAX_ALLOCATION, BadTypeError, Bool, Data, Epsilon, Int, Ledger, Real, Rng,
                          RNGLike, check_bool, check_data, check_epsilon, check_int, check_options, check_real,
                          validate_params)
from .accounting import PrivacyLedger
from .mechanisms import laplace_mechanism, laplace_noise

__all__ = [
    "Variant",
    "VARIANTS",
    "run",
    "lyu_su_li",
    "dwork_roth_2014",
    "roth_2011",
    "lee_clifton_2014",
    "stoddard_2014",
    "chen_2015",
    "gptt",
    "standard",
    "noise_config",
    "optimal_split",
    "comparison_noise_std",
]


# ---------------------------------------------------------------------------------------------------
# input checks (through _validation; every message names the argument)
# ---------------------------------------------------------------------------------------------------
def _real_array(x, name, *, ndim=1, allow_nan=False, allow_inf=False, allow_empty=False, allow_bool=False):
    """``x`` as a float array of ``ndim`` dimensions (any if None); refuses strings, complex numbers, objects,
    booleans (unless ``allow_bool``), NaN and infinities (unless allowed), naming ``name``."""
    if isinstance(x, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of real numbers, got a string")
    try:
        raw = np.asarray(x)
        if raw.dtype.kind == "O":
            raw = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise BadTypeError(f"{name} must be an array of real numbers, got {type(x).__name__} {x!r:.60}") from None
    if raw.dtype.kind not in ("biuf" if allow_bool else "iuf"):
        raise BadTypeError(f"{name} must hold real numbers, got dtype {raw.dtype}")
    a = raw.astype(float)
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {a.shape}")
    if not allow_empty and a.size == 0:
        raise ValueError(f"{name} is empty (shape {a.shape})")
    if not allow_nan and np.isnan(a).any():
        raise ValueError(f"{name} contains NaN")
    if not allow_inf and np.isinf(a).any():
        raise ValueError(f"{name} contains infinite values")
    return a


def _check_threshold(threshold, m, name="threshold"):
    """A finite public threshold, or one per query: returned as an array of shape (m,)."""
    if isinstance(threshold, np.ndarray) and threshold.ndim == 0:
        threshold = threshold[()]
    if np.ndim(threshold) == 0 or isinstance(threshold, (str, bytes)):
        return np.full(m, check_real(threshold, name))
    t = check_data(threshold, name, ndim=1)
    if t.shape != (m,):
        raise ValueError(f"{name} must be a scalar or have one entry per query ({m}), got shape {t.shape}")
    return t


#: The checks (Specs) of the arguments every variant's function shares.
_QUERIES, _SENSITIVITY, _C = Data(1), Real(0.0, low_open=True), Int(1)


def _check_runs(n_runs, m, name="n_runs", what="queries"):
    """A number of runs >= 1 whose ``n_runs x m`` outputs fit under ``MAX_ALLOCATION``."""
    n = check_int(n_runs, name, 1)
    if n > MAX_ALLOCATION // max(int(m), 1):
        raise ValueError(f"{name}={n} asks for {n:,} runs x {m} {what} = {n * m:,} outputs at once, more than "
                         f"MAX_ALLOCATION = {MAX_ALLOCATION:,}; use fewer runs (a Monte Carlo "
                         f"estimate simulates in batches)")
    return n


def _check_ledger_for(ledger, cost, name):
    """Ask ``ledger`` (a checked ledger or None), before any noise is drawn, whether it can afford ``cost``."""
    if ledger is not None:
        ledger.require(cost, 0.0, name=name)
    return ledger


# ---------------------------------------------------------------------------------------------------
# noise configuration of every variant
# ---------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Config:
    """Resolved noise parameters of one variant for given (epsilon, c, Δ)."""

    variant: str
    b_rho: float  # scale of the threshold noise ρ
    b_nu: float  # scale of the query noise ν_i (0 = no noise)
    cutoff: int | None  # c, or None for "no cutoff"
    resample_b: float | None = None  # scale of the redrawn ρ after every ⊤ (Alg. 18 only)
    numeric: str | None = None  # None, "same" (Alg. 19: releases q_i+ν_i) or "fresh" (Alg. 23, eps3 > 0)
    b_out: float | None = None  # scale of the fresh release noise (Alg. 23 with eps3 > 0)
    budget: tuple = ()  # ((name, epsilon), ...) for the ledger; only for private variants
    sensitivity: float = 1.0  # Δ of every query

    def __post_init__(self):
        # every noise scale is about sensitivity / (a share of epsilon): keep it where noise can be drawn
        for b in (self.b_rho, self.b_nu, self.resample_b, self.b_out):
            if b is not None and b != 0 and not 1e-290 <= b <= 1e290:
                raise ValueError(f"{self.variant}: a noise scale sensitivity / epsilon comes out as {b!r}, outside "
                                 f"[1e-290, 1e290] where noise can be drawn (sensitivity={self.sensitivity!r}): "
                                 f"choose epsilon (and the sensitivity) to bring it back")


def _check_params(variant, params, allowed):
    extra = set(params) - set(allowed)
    if extra:
        raise ValueError(f"variant {variant!r} does not take the parameter(s) {sorted(extra)}; "
                         f"allowed: {sorted(allowed) or 'none'}")


def _cutoff_flag(variant, params, c):
    return c if check_bool(params.get("cutoff", False), "cutoff") else None


@validate_params(epsilon=Epsilon(), c=_C, monotonic=Bool())
def optimal_split(epsilon: float, c: int = 1, monotonic: bool = False) -> tuple[float, float]:
    """The ε1:ε2 split minimising the variance of the comparison noise ν_i − ρ (thesis Eq. 5.12).

    ``ε1 : ε2 = 1 : (2c)^(2/3)`` in general, ``1 : c^(2/3)`` for monotonic queries (§5.3.3), i.e.
    ``ε1 = ε / (1 + k^(2/3))`` with ``k = 2c`` (or ``c``).

    Parameters
    ----------
    epsilon : float
        ε1 + ε2, finite and > 0.
    c : int
        The cutoff (number of positive answers).
    monotonic : bool
        Monotonic queries (the query noise needs cΔ/ε2 instead of 2cΔ/ε2).

    Returns
    -------
    (eps1, eps2) : tuple of float
        Summing to ``epsilon``.

    Examples
    --------
    >>> e1, e2 = optimal_split(1.0, 300)
    >>> round(e1, 4), round(e1 + e2, 12)
    (0.0139, 1.0)
    """
    k = c if monotonic else 2 * c
    eps1 = epsilon / (1.0 + k ** (2.0 / 3.0))
    return eps1, epsilon - eps1


@validate_params(epsilon=Epsilon(), c=_C, sensitivity=_SENSITIVITY, monotonic=Bool())
def comparison_noise_std(fraction: ArrayLike, epsilon: float, c: int = 1, sensitivity: float = 1.0,
                         monotonic: bool = False) -> float | np.ndarray:
    """Std of the comparison noise ν − ρ of Alg. 23 when ε1 = ``fraction``·ε and ε2 = (1−fraction)·ε.

    ``sqrt(2 (Δ/ε1)^2 + 2 (kΔ/ε2)^2)`` with ``k = 2c`` (``c`` if monotonic): the quantity minimised by
    :func:`optimal_split` (§5.3.2).

    Parameters
    ----------
    fraction : float or array_like
        ε1/ε, every value in the open interval (0, 1).
    epsilon : float
        ε = ε1 + ε2.
    c : int
        The cutoff.
    sensitivity : float
        Δ > 0.
    monotonic : bool
        Monotonic queries.

    Returns
    -------
    float or ndarray
        Same shape as ``fraction``.

    Examples
    --------
    >>> round(comparison_noise_std(0.5, 1.0, 1), 3)
    6.325
    """
    f = _real_array(fraction, "fraction", ndim=None)
    if np.any((f <= 0) | (f >= 1)):
        raise ValueError("fraction must lie in the open interval (0, 1)")
    k = c if monotonic else 2 * c
    b1 = sensitivity / (f * epsilon)
    b2 = k * sensitivity / ((1 - f) * epsilon)
    out = np.sqrt(2 * b1 ** 2 + 2 * b2 ** 2)
    return float(out) if out.ndim == 0 else out


def _budget_eps(params, name):
    v = params.get(name, None)
    return None if v is None else check_epsilon(v, name)


def _gptt_split(eps, c, params):
    """GPTT's free split: ``eps1``/``eps2`` (default ε/2 each), summing to ε."""
    e1, e2 = _budget_eps(params, "eps1"), _budget_eps(params, "eps2")
    if e1 is None and e2 is None:
        e1 = e2 = eps / 2
    elif e1 is None:
        e1 = eps - e2
    elif e2 is None:
        e2 = eps - e1
    if e1 <= 0 or e2 <= 0 or not math.isclose(e1 + e2, eps, rel_tol=1e-9):
        raise ValueError(f"gptt: eps1 + eps2 must equal epsilon={eps}, got eps1={e1}, eps2={e2}")
    return e1, e2, 0.0, 1


def _standard_split(eps, c, params):
    """Alg. 23's split: ``eps3`` (default 0) for the numeric release, then ``ratio`` = ε2/ε1, or ``eps1``/``eps2``,
    or the optimum of :func:`optimal_split`; the query noise is Lap(2cΔ/ε2), or Lap(cΔ/ε2) when monotonic."""
    mono = check_bool(params.get("monotonic", False), "monotonic")
    e3 = params.get("eps3", 0.0)
    e3 = 0.0 if e3 is None else check_real(e3, "eps3", low=0.0)
    if e3 >= eps:
        raise ValueError(f"eps3={e3} must be smaller than epsilon={eps}")
    rest = eps - e3
    e1, e2 = _budget_eps(params, "eps1"), _budget_eps(params, "eps2")
    ratio = params.get("ratio", None)
    if ratio is not None:
        if e1 is not None or e2 is not None:
            raise ValueError("give either ratio or eps1/eps2, not both")
        ratio = check_real(ratio, "ratio", low=1e-9, high=1e9)
        e1 = rest / (1 + ratio)
        e2 = rest - e1
    elif e1 is None and e2 is None:
        e1, e2 = optimal_split(rest, c, monotonic=mono)
    elif e1 is None:
        e1 = rest - e2
    elif e2 is None:
        e2 = rest - e1
    if e1 <= 0 or e2 <= 0 or not math.isclose(e1 + e2 + e3, eps, rel_tol=1e-9):
        raise ValueError(f"standard: eps1 + eps2 + eps3 must equal epsilon={eps}, "
                         f"got eps1={e1}, eps2={e2}, eps3={e3}")
    return e1, e2, e3, (c if mono else 2 * c)


@validate_params(variant=lambda v, name: check_options(v, name, tuple(VARIANTS)), epsilon=Epsilon(), c=_C,
                 sensitivity=_SENSITIVITY)
def noise_config(variant: str, epsilon: float, c: int = 1, sensitivity: float = 1.0, **params: Any) -> _Config:
    """Resolve the noise scales, cutoff and budget split of ``variant`` from its :data:`VARIANTS` entry.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    epsilon : float
        The total budget the variant claims.
    c : int
        The cutoff.
    sensitivity : float
        Δ > 0 of every query.
    **params
        The variant's own parameters (see :func:`run`).

    Returns
    -------
    _Config
        ``b_rho``, ``b_nu`` (Laplace scales of the threshold and query noise), ``cutoff``, ``resample_b``,
        ``numeric``, ``b_out``, ``budget`` (the ledger entries of the private variants) and ``sensitivity``.

    Raises ``ValueError`` for an unknown variant, an unknown parameter or an inconsistent budget.

    Examples
    --------
    >>> cfg = noise_config("lyu_su_li", 1.0, c=3)
    >>> cfg.b_rho, cfg.b_nu, cfg.cutoff
    (2.0, 12.0, 3)
    """
    return VARIANTS[variant].configure(epsilon, c, sensitivity, params)


# ---------------------------------------------------------------------------------------------------
# the simulator
# ---------------------------------------------------------------------------------------------------
# Every noise value comes from mechanisms.laplace_noise: exact discrete Laplace noise on a power-of-two grid
# 2^(floor(log2 b) - 20) Z, so the simulated comparisons are those of the floating-point-safe algorithm. The
# simulator accounts for its budget itself (run() records it), as SVT's noise is compared, never released,
# except for the numeric releases of roth_2011 and standard with eps3 > 0, which are on that grid too.
def _simulate(cfg: _Config, q, t, n_runs, rng, chunk=2_000_000):
    """Vectorised runs. ``q``, ``t``: (m,) or (n_runs, m). Returns float (n_runs, m)."""
    m = q.shape[-1]
    out = np.empty((n_runs, m))
    rows = max(1, chunk // max(m, 1))
    for s in range(0, n_runs, rows):
        e = min(n_runs, s + rows)
        qq = q[s:e] if q.ndim == 2 else q
        tt = t[s:e] if t.ndim == 2 else t
        out[s:e] = _simulate_block(cfg, qq, tt, e - s, rng)
    return out


def _simulate_block(cfg, q, t, n, rng):
    m = q.shape[-1]
    d = q - t  # ⊤ iff d_i + ν_i >= ρ
    if cfg.b_nu > 0:
        nu = laplace_noise(cfg.b_nu, (n, m), rng)
        x = nu + d
    else:
        nu = None
        x = np.broadcast_to(d, (n, m))
    if cfg.resample_b is not None:  # Alg. 18: ρ redrawn after every ⊤; loop over queries only
        c = cfg.cutoff
        rhos = np.concatenate([laplace_noise(cfg.b_rho, (n, 1), rng),
                               laplace_noise(cfg.resample_b, (n, max(c - 1, 0)), rng)], axis=1)
        cnt = np.zeros(n, dtype=np.int64)
        out = np.empty((n, m))
        ar = np.arange(n)
        for i in range(m):
            active = cnt < c
            above = x[:, i] >= rhos[ar, np.minimum(cnt, c - 1)]
            out[:, i] = np.where(active, above, np.nan)
            cnt += above & active
        return out
    rho = laplace_noise(cfg.b_rho, (n, 1), rng)
    above = x >= rho
    if cfg.numeric == "same":  # Alg. 19 releases the very value it compared: q_i + ν_i
        # with q rounded onto the grid of ν (laplace_noise's), so that the sum is exact: the released float has
        # no low-order bits of q (the variant is still not private: it releases the noise it compared)
        gamma = 2.0 ** (math.floor(math.log2(cfg.b_nu)) - 20)
        out = np.where(above, np.rint(q / gamma) * gamma + nu, 0.0) if nu is not None else np.where(above, q, 0.0)
    elif cfg.numeric == "fresh":  # Alg. 23 with eps3 > 0: fresh noise for the release
        # a released number goes through the floating-point-safe mechanism: q rounded to a power-of-two grid,
        # exact discrete noise of scale b_out (up to a factor 1 + 2^-10) on that grid (Mironov 2012)
        noisy_q = laplace_mechanism(np.broadcast_to(q, (n, m)), cfg.b_out, 1.0, rng, l0_sensitivity=1)
        out = np.where(above, noisy_q, 0.0)
    else:
        out = above.astype(float)
    if cfg.cutoff is not None:
        cnt = np.cumsum(above, axis=1, dtype=np.int32)
        cnt -= above  # positives strictly before position i
        out[cnt >= cfg.cutoff] = np.nan
    return out


def _charge_runs(ledger, cfg, variant, n, label):
    """Record the budget of ``n`` independent runs of a private variant (after :func:`_check_ledger_for`)."""
    for name, e in cfg.budget:
        ledger.record(f"{label} {name}" + (f" (x{n} independent runs)" if n > 1 else ""), n * e, 0.0,
                      cfg.sensitivity)


@validate_params(queries=_QUERIES, rng=Rng(), ledger=Ledger())
def run(variant: str, queries: ArrayLike, threshold: ArrayLike, epsilon: float, c: int = 1, *,
        sensitivity: float = 1.0, n_runs: int = 1, rng: RNGLike = None, ledger: PrivacyLedger | None = None,
        **params: Any) -> np.ndarray:
    """Run an SVT variant ``n_runs`` times on one vector of query answers, vectorised across runs.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`: ``"lyu_su_li"`` (Alg. 17), ``"dwork_roth_2014"`` (Alg. 18),
        ``"roth_2011"`` (Alg. 19), ``"lee_clifton_2014"`` (Alg. 20), ``"stoddard_2014"`` (Alg. 21),
        ``"chen_2015"`` (Alg. 22), ``"gptt"`` or ``"standard"`` (Alg. 23).
    queries : array_like, shape (m,)
        The true answers q_i(D), in the order they are asked. Each query has sensitivity ``sensitivity``.
    threshold : float or array_like, shape (m,)
        Public threshold T, or one threshold T_i per query.
    epsilon : float
        The total budget (the budget the variant's authors claim; for ``standard`` ε1 + ε2 + ε3).
    c : int
        Cutoff: the number of positive answers after which the run halts. Ignored by the variants
        published without a cutoff (``stoddard_2014``, ``chen_2015``, ``gptt``) unless ``cutoff=True``.
    sensitivity : float
        Δ > 0, the sensitivity of every query.
    n_runs : int
        Number of independent runs (rows of the output); ``n_runs * m`` may not exceed
        ``MAX_ALLOCATION`` (2^31).
    rng : None, int or numpy.random.Generator
        Source of randomness. The noise is exact discrete Laplace noise on a fine power-of-two grid
        (:func:`dpclust_core.mechanisms.laplace_noise`), floating-point safe.
    ledger : PrivacyLedger, optional
        Records the budget (ε1, ε2, and ε3 if any) of the private variants, ``n_runs`` times over; a ledger
        whose budget cannot afford it refuses before any noise is drawn. Passing a ledger with a
        non-private variant raises ``ValueError``.
    **params
        ``standard``: ``eps1``, ``eps2``, ``eps3`` (default 0), ``monotonic`` (default False), ``ratio``
        (ε2/ε1; default the optimal split, :func:`optimal_split`). ``gptt``: ``eps1``, ``eps2`` (default
        ε/2 each). ``stoddard_2014``/``chen_2015``/``gptt``: ``cutoff`` (default False, as published).

    Returns
    -------
    ndarray, shape (n_runs, m), float
        1.0 = ⊤, 0.0 = ⊥, NaN = not answered because the run halted after its c-th ⊤. For
        ``roth_2011`` and ``standard`` with ``eps3 > 0``, a ⊤ is the released number (nonzero with
        overwhelming probability) instead of 1.0.

    Examples
    --------
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger()
    >>> out = run("lyu_su_li", [3.0, 9.0, 12.0, 8.0], threshold=10.0, epsilon=2.0, c=1, n_runs=5, rng=0,
    ...           ledger=led)
    >>> out.shape, bool(np.all(np.nansum(out, axis=1) <= 1)), round(led.epsilon, 12)
    ((5, 4), True, 10.0)
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    t = _check_threshold(threshold, queries.size)
    n = _check_runs(n_runs, queries.size)
    if ledger is not None:
        if not VARIANTS[variant].private:
            raise ValueError(f"variant {variant!r} is not differentially private; it cannot be charged to a "
                             "privacy ledger (it exists only to be studied)")
        _check_ledger_for(ledger, n * sum(e for _, e in cfg.budget), f"svt[{variant}] x{n} runs")
    out = _simulate(cfg, queries, t, n, rng)
    if ledger is not None:
        _charge_runs(ledger, cfg, variant, n, f"svt[{variant}]")
    return out


def _make_variant_function(name, doc):
    def f(queries: ArrayLike, threshold: ArrayLike, epsilon: float, c: int = 1, *, sensitivity: float = 1.0,
          n_runs: int = 1, rng: RNGLike = None, ledger: PrivacyLedger | None = None, **params: Any) -> np.ndarray:
        return run(name, queries, threshold, epsilon, c, sensitivity=sensitivity, n_runs=n_runs, rng=rng,
                   ledger=ledger, **params)

    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = doc + "\n\n    Same arguments and output as :func:`run` (with this variant).\n"
    return f


lyu_su_li = _make_variant_function("lyu_su_li", """Alg. 17: the SVT instantiation proposed by Lyu, Su & Li (thesis Fig. 5.1).

    ε1 = ε2 = ε/2; ρ ~ Lap(Δ/ε1) drawn once; ν_i ~ Lap(2cΔ/ε2); output ⊤/⊥; halts after c ⊤'s.

    Claimed: ε-DP. Actual: ε-DP (Thm 5.2.1), and the bound is tight (chapter 6, counterexample C3: ln R -> ε
    as the number of "pinning" ⊥ queries grows).""")

dwork_roth_2014 = _make_variant_function("dwork_roth_2014", """Alg. 18: SVT from Dwork & Roth's 2014 book ("SVT-DPBook", Fig. 5.2).

    ε1 = ε2 = ε/2; ρ ~ Lap(cΔ/ε1), **redrawn** as Lap(cΔ/ε2) after every ⊤; ν_i ~ Lap(2cΔ/ε2)
    (the listing prints 2cΔ/ε1, the same number); halts after c ⊤'s.

    Claimed: ε-DP. Actual: ε-DP (each stretch between ⊤'s is Alg. 17 with c = 1 at budget ε/c).
    Correct but needlessly noisy: the factor c on the threshold noise is only needed because of the
    redraw, which the thesis calls unnecessary.""")

roth_2011 = _make_variant_function("roth_2011", """Alg. 19: SVT from Roth's 2011 lecture notes (Fig. 5.3).  NOT PRIVATE.

    ε1 = ε2 = ε/2; ρ ~ Lap(Δ/ε1); ν_i ~ Lap(cΔ/ε2); on ⊤ it **releases q_i + ν_i**, the very noisy value
    that was compared with the threshold; halts after c ⊤'s.

    Claimed: ε-DP. Actual: not ε'-DP for any finite ε' ("∞-DP"): a released value a_i tells that
    ρ <= a_i − T, so the earlier ⊥'s are no longer free; counterexample C2 of chapter 6 gives
    ln R = (ℓ−1)ε/(2c), unbounded in the number ℓ−1 of ⊥'s. Printing ⊤ instead would make it (3ε/2)-DP.
    This function exists only to be studied; never use it to protect data.""")

lee_clifton_2014 = _make_variant_function("lee_clifton_2014", """Alg. 20: SVT of Lee & Clifton, KDD 2014 (top-k itemsets, Fig. 5.4).  NOT PRIVATE AS CLAIMED.

    ε1 = ε/4; ρ ~ Lap(Δ/ε1); ε2 = 3ε/4; ν_i ~ Lap(Δ/ε2) (**no factor c**); halts after c ⊤'s.

    Claimed: ε-DP. Actual: ((1+6c)/4)·ε-DP, tight (chapter 6, counterexample C3); ((1+3c)/4)·ε-DP for
    monotonic queries. Already not ε-DP with c = 1 and two queries. Exists only to be studied.""")

stoddard_2014 = _make_variant_function("stoddard_2014", """Alg. 21: SVT of Stoddard, Chen & Machanavajjhala 2014 (feature selection, Fig. 5.5).  NOT PRIVATE.

    ε1 = ε/2; ρ ~ Lap(Δ/ε1); **no query noise** (ν_i = 0); **no cutoff** (any number of ⊤'s;
    ``cutoff=True`` adds one, for study).

    Claimed: ε-DP. Actual: ∞-DP (Thm 5.2.2): with q(D) = (0, 1), q(D') = (1, 0), T = 0, the output
    (⊥, ⊤) has probability ½(1 − e^{−ε/2}) under D and exactly 0 under D'. Exists only to be studied.""")

chen_2015 = _make_variant_function("chen_2015", """Alg. 22: SVT of Chen, Xiao, Zhang & Xu, KDD 2015 (Fig. 5.6).  NOT PRIVATE.

    ε1 = ε2 = ε/2; ρ ~ Lap(Δ/ε1); ν_i ~ Lap(Δ/ε2) (**no factor c**); **no cutoff** (``cutoff=True``
    adds one, for study).

    Claimed: ε-DP. Actual: ∞-DP (PrivTree, SIGMOD 2016, App. B): k positives after many pinning ⊥'s
    give ln R -> ε/2 + kε (chapter 6, counterexample C3), and the GPTT pairs give ln R growing linearly
    (C4). Exists only to be studied.""")

gptt = _make_variant_function("gptt", """GPTT, "generalized private threshold testing" (Chen & Machanavajjhala 2015).  NOT PRIVATE.

    ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2), no cutoff, ε = ε1 + ε2 (``eps1``/``eps2``, default ε/2 each, which
    is Alg. 22). The model of Algs. 20–22.

    Claimed: ε-DP, by the published Algs. 20–22 it models (ε = ε1 + ε2). Actual: ∞-DP. Chen &
    Machanavajjhala set out to prove exactly that, and it is true (chapter 6, counterexample C4: ln R grows by
    about 0.9 per (⊥, ⊤) pair at ε = 1). The thesis (§5.2.3) calls their proof wrong, because the same argument
    would "prove" the private Alg. 17 non-private. For GPTT, however, the argument's gap
    closes: the integrand ratio per pair is κ(z) >= e^{ε2} for every z (not -> 1, as the thesis says),
    so Pr[A(D) = a] >= e^{t·ε2} Pr[A(D') = a] on t pairs. Exists only to be studied.""")

standard = _make_variant_function("standard", """Alg. 23: the thesis's generalised standard SVT (§5.3).

    ρ ~ Lap(Δ/ε1) drawn once; ν_i ~ Lap(2cΔ/ε2), or Lap(cΔ/ε2) with ``monotonic=True`` (Thm 5.3.2:
    only when every answer moves the same way between neighbours, e.g. counting queries under
    add/remove); on ⊤ it outputs ⊤, or, if ``eps3 > 0``, q_i + Lap(cΔ/ε3) with **fresh** noise;
    halts after c ⊤'s. Default split: the optimum ε1:ε2 = 1:(2c)^(2/3), or 1:c^(2/3) when monotonic
    (Eq. 5.12); ``ratio`` sets ε2/ε1 (the experiments' "SVT-S 1:ratio").

    Claimed and actual: (ε1 + ε2 + ε3)-DP (Thms 5.3.1, 5.3.2); ``epsilon`` is that total.""")


_FACTORS = {"0": lambda c: 0, "1": lambda c: 1, "c": lambda c: c, "2c": lambda c: 2 * c}


@dataclass(frozen=True)
class Variant:
    """Registry entry of one SVT variant: what it is, what it claims, and its noise configuration.

    The noise fields are what :func:`noise_config` computes from: ``eps1_share`` (ε1 = share·ε, ε2 = ε − ε1, or
    None when ``split(eps, c, params) -> (eps1, eps2, eps3, nu_factor)`` sets them from the variant's own
    parameters), the factors of Δ in the threshold noise Lap(``rho_factor``·Δ/ε1) and the query noise
    Lap(``nu_factor``·Δ/ε2), the redraw of ρ as Lap(cΔ/ε2) after every ⊤ (``resample``), what a ⊤ releases
    (``numeric``: None, ``"same"`` = the compared q_i + ν_i) and whether the run halts after c ⊤'s
    (``has_cutoff``; otherwise only with ``cutoff=True``). The display strings of the table are derived from them.
    """

    name: str
    function: Callable
    algorithm: str  #: thesis algorithm number
    source: str
    private: bool  #: True if the variant satisfies its claimed ε-DP
    claimed: str
    actual: str
    output: str
    actual_epsilon: Callable = field(repr=False)  #: (epsilon, c) -> actual ε (inf if none)
    eps1_share: float | None = 0.5
    rho_factor: str = "1"
    nu_factor: str = "2c"
    resample: bool = False
    numeric: str | None = None
    has_cutoff: bool = True
    params: tuple = ()  #: the variant's own keyword parameters
    split: Callable | None = field(repr=False, default=None)
    split_label: str = ""  #: ε1 of a variant with its own split, for the table

    @property
    def eps1(self) -> str:
        return self.split_label or f"ε/{round(1 / self.eps1_share)}"

    @property
    def rho_scale(self) -> str:
        return f"{self.rho_factor if self.rho_factor != '1' else ''}Δ/ε1"

    @property
    def nu_scale(self) -> str:
        if self.nu_factor == "0":
            return "0"
        scale = f"{self.nu_factor if self.nu_factor != '1' else ''}Δ/ε2"
        return scale + (" (monotone: cΔ/ε2)" if "monotonic" in self.params else "")

    @property
    def cutoff(self) -> str:
        return "c" if self.has_cutoff else "none"

    def configure(self, eps: float, c: int, d: float, params: dict) -> _Config:
        """The noise scales of this variant at total budget ``eps``, cutoff ``c`` and sensitivity ``d``."""
        _check_params(self.name, params, self.params)
        if self.split is None:
            e1 = eps * self.eps1_share
            e2, e3, nu = eps - e1, 0.0, _FACTORS[self.nu_factor](c)
        else:
            e1, e2, e3, nu = self.split(eps, c, params)
        cutoff = c if self.has_cutoff else _cutoff_flag(self.name, params, c)
        budget = ()
        if self.private:
            budget = (("threshold noise rho" + (" (redrawn after each positive)" if self.resample else ""), e1),
                      (f"query noise, <= {c} positives", e2))
            if e3 > 0:
                budget += ((f"numeric release of <= {c} positives", e3),)
        return _Config(self.name, _FACTORS[self.rho_factor](c) * d / e1, nu * d / e2, cutoff,
                       resample_b=c * d / e2 if self.resample else None,
                       numeric="fresh" if e3 > 0 else self.numeric, b_out=c * d / e3 if e3 > 0 else None,
                       budget=budget, sensitivity=d)


def _inf(eps, c):
    return math.inf


def _same(eps, c):
    return eps


VARIANTS: dict[str, Variant] = {
    "lyu_su_li": Variant("lyu_su_li", lyu_su_li, "Alg. 17", "Lyu, Su & Li 2017 (this chapter)", True,
                         "ε-DP", "ε-DP (Thm 5.2.1, tight)", "⊤/⊥", _same),
    "dwork_roth_2014": Variant("dwork_roth_2014", dwork_roth_2014, "Alg. 18", "Dwork & Roth 2014 (book)", True,
                               "ε-DP", "ε-DP", "⊤/⊥", _same, rho_factor="c", resample=True),
    "roth_2011": Variant("roth_2011", roth_2011, "Alg. 19", "Roth 2011 (lecture notes)", False,
                         "ε-DP", "∞-DP", "q_i+ν_i (same ν_i)", _inf, nu_factor="c", numeric="same"),
    "lee_clifton_2014": Variant("lee_clifton_2014", lee_clifton_2014, "Alg. 20", "Lee & Clifton 2014", False,
                                "ε-DP", "((1+6c)/4)ε-DP", "⊤/⊥", lambda eps, c: (1 + 6 * c) / 4 * eps,
                                eps1_share=0.25, nu_factor="1"),
    "stoddard_2014": Variant("stoddard_2014", stoddard_2014, "Alg. 21", "Stoddard, Chen & Machanavajjhala 2014",
                             False, "ε-DP", "∞-DP", "⊤/⊥", _inf, nu_factor="0", has_cutoff=False,
                             params=("cutoff",)),
    "chen_2015": Variant("chen_2015", chen_2015, "Alg. 22", "Chen, Xiao, Zhang & Xu 2015", False,
                         "ε-DP", "∞-DP", "⊤/⊥", _inf, nu_factor="1", has_cutoff=False, params=("cutoff",)),
    "gptt": Variant("gptt", gptt, "GPTT", "Chen & Machanavajjhala 2015", False,
                    "ε-DP (model of Algs. 20-22)", "∞-DP (ln R >= t·ε2 on t pairs)", "⊤/⊥", _inf,
                    eps1_share=None, nu_factor="1", has_cutoff=False, params=("eps1", "eps2", "cutoff"),
                    split=_gptt_split, split_label="ε1 (free)"),
    "standard": Variant("standard", standard, "Alg. 23", "Lyu, Su & Li 2017 (generalised)", True,
                        "(ε1+ε2+ε3)-DP", "(ε1+ε2+ε3)-DP (Thms 5.3.1-5.3.2)", "⊤, or q_i+Lap(cΔ/ε3) (fresh)", _same,
                        eps1_share=None, params=("eps1", "eps2", "eps3", "monotonic", "ratio"),
                        split=_standard_split, split_label="ε/(1+(2c)^(2/3))"),
}
