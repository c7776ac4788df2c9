"""The Sparse Vector Technique (SVT): every variant of thesis chapter 5 and their exact privacy losses.

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
:func:`output_probability`, :func:`privacy_loss`
    Exact probability of an output vector by 1-D integration over the threshold noise in log space
    (master formula, Eq. 5.5), and the log ratio of that on two neighbouring answer vectors.

The chapter's counterexamples, their three views, the GPTT proof evaluated, the top-c selection experiment
(SVT vs the exponential mechanism) and the thesis's Zipf tables are the book's (``dpclust_book.experiments.svt``).

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
from typing import Any, Callable, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from ._validation import (MAX_ALLOCATION, BadTypeError, Bool, Data, Epsilon, Int, Ledger, Options, Real, Rng,
                          RNGLike, check_bool, check_data, check_epsilon, check_int, check_options, check_real,
                          validate_params)
from .accounting import PrivacyLedger
from .audit import AuditResult, audit
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
    "output_probability",
    "privacy_loss",
    "monte_carlo_probability",
    "matches_output",
    "audit_variant",
    "decode_event",
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
                         f"MAX_ALLOCATION = {MAX_ALLOCATION:,}; use fewer runs (monte_carlo_probability "
                         f"simulates in batches)")
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


# ---------------------------------------------------------------------------------------------------
# exact output probabilities (master formula, Eq. 5.5)
# ---------------------------------------------------------------------------------------------------
_LOG_HALF = math.log(0.5)


def _log_cdf(x, b):
    """log F_b(x) of Lap(b), stable in both tails."""
    x = np.asarray(x, dtype=float)
    neg = x < 0
    xs = np.where(neg, x, 0.0)
    xp = np.where(neg, 0.0, x)
    return np.where(neg, _LOG_HALF + xs / b, np.log1p(-0.5 * np.exp(-xp / b)))


def _log_sf(x, b):
    return _log_cdf(-np.asarray(x, dtype=float), b)


def _log_interval(x, y, b):
    """log(F(y) − F(x)) for x < y (−inf where x >= y)."""
    x, y = np.broadcast_arrays(np.asarray(x, float), np.asarray(y, float))
    with np.errstate(divide="ignore", invalid="ignore"):
        lf_y, lf_x = _log_cdf(y, b), _log_cdf(x, b)
        ls_x, ls_y = _log_sf(x, b), _log_sf(y, b)
        via_f = lf_y + np.log1p(-np.exp(np.minimum(lf_x - lf_y, 0.0)))
        via_s = ls_x + np.log1p(-np.exp(np.minimum(ls_y - ls_x, 0.0)))
        out = np.where(y <= 0, via_f, via_s)
    return np.where(x < y, out, -np.inf)


class _Segment:
    """One integral ∫ p_ρ(z) Π terms dz of the master formula, with grouped (identical) terms."""

    def __init__(self, b_rho, b_nu, bot_d, top_d, topu_d=(), topu_e=()):
        self.b_rho, self.b_nu = float(b_rho), float(b_nu)
        self.bot = self._group(np.asarray(bot_d, float))
        self.top = self._group(np.asarray(top_d, float))
        td, te = np.asarray(topu_d, float), np.asarray(topu_e, float)
        if td.size:
            pairs, cnt = np.unique(np.stack([td, te], axis=1), axis=0, return_counts=True)
            self.topu = (pairs[:, 0], pairs[:, 1], cnt.astype(float))
        else:
            self.topu = (np.zeros(0), np.zeros(0), np.zeros(0))
        # support of z from hard constraints
        lo, hi = -np.inf, np.inf
        if self.b_nu == 0:  # step functions: ⊥ needs z > d_i, ⊤ needs z <= d_i
            if self.bot[0].size:
                lo = max(lo, self.bot[0].max())
            if self.top[0].size:
                hi = min(hi, self.top[0].min())
            if td.size:
                raise ValueError("numeric releases need query noise")
        if td.size:  # z - d < e  (the release interval must be non-empty)
            hi = min(hi, float(np.min(td + te)))
        self.lo, self.hi = lo, hi
        pts = [0.0]
        for arr in (self.bot[0], self.top[0], self.topu[0], self.topu[0] + self.topu[1]):
            pts.extend(arr.tolist())
        self.breaks = np.unique(np.asarray(pts))
        scales = [self.b_rho] + ([self.b_nu] if self.b_nu > 0 else [])
        self.scale = max(scales)

    @staticmethod
    def _group(d):
        if d.size == 0:
            return np.zeros(0), np.zeros(0)
        u, cnt = np.unique(d, return_counts=True)
        return u, cnt.astype(float)

    def logf(self, z):
        z = np.asarray(z, dtype=float)
        zz = z[..., None]
        out = -math.log(2 * self.b_rho) - np.abs(z) / self.b_rho
        if self.b_nu > 0:
            if self.bot[0].size:
                out = out + (self.bot[1] * _log_cdf(zz - self.bot[0], self.b_nu)).sum(-1)
            if self.top[0].size:
                out = out + (self.top[1] * _log_sf(zz - self.top[0], self.b_nu)).sum(-1)
            if self.topu[0].size:
                li = _log_interval(zz - self.topu[0], self.topu[1], self.b_nu)
                with np.errstate(invalid="ignore"):
                    out = out + np.where(np.isneginf(li), -np.inf, self.topu[2] * li).sum(-1)
        out = np.where((z > self.lo) & (z <= self.hi) if np.isfinite(self.lo) else (z <= self.hi), out, -np.inf)
        return out

    def log_integral(self, drop=60.0, n_gauss=24):
        """log ∫ exp(logf) dz. ``logf`` is concave (log-concave Laplace density, CDF and interval
        probabilities), so the mass sits in one interval around the mode; panels are cut at the
        levels L_max − k (k = 1, ..., ``drop``) and at every kink, and each panel gets ``n_gauss``-point
        Gauss–Legendre. Relative accuracy ~1e-10 (checked against closed forms in the tests)."""
        lo, hi = self.lo, self.hi
        if lo >= hi:
            return -np.inf
        s = self.scale
        # a finite bracket inside the support
        a = lo if np.isfinite(lo) else min(self.breaks.min(), 0.0) - 5 * s
        b = hi if np.isfinite(hi) else self.breaks.max() + 5 * s
        if self.b_nu == 0:
            # no query noise: every factor is an indicator, the integrand is the ρ density on (lo, hi]
            return _log_lap_mass(lo, hi, self.b_rho)
        # expand the bracket until both ends are far below the inner maximum
        def f(z):
            return float(self.logf(np.array(z)))

        eps_in = 1e-12 * max(1.0, abs(a), abs(b))
        if not np.isfinite(lo):
            while True:
                grid = np.linspace(a, b, 65)
                vals = self.logf(grid)
                if vals[0] < vals.max() - drop - 5:
                    break
                a -= (b - a)
        if not np.isfinite(hi):
            while True:
                grid = np.linspace(a, b, 65)
                vals = self.logf(grid)
                if vals[-1] < vals.max() - drop - 5:
                    break
                b += (b - a)
        aa = a + eps_in if np.isfinite(lo) else a
        bb = b - eps_in if np.isfinite(hi) else b
        if not aa < bb:  # an interval narrower than the inset (tiny noise scales, a huge epsilon)
            aa, bb = a, b
        grid = np.linspace(aa, bb, 257)
        vals = self.logf(grid)
        j = int(np.argmax(vals))
        res = optimize.minimize_scalar(lambda z: -f(z), bounds=(grid[max(j - 1, 0)], grid[min(j + 1, 256)]),
                                       method="bounded", options={"xatol": 1e-10 * s})
        zmax = float(res.x) if -res.fun >= vals[j] else float(grid[j])
        lmax = f(zmax)
        if not np.isfinite(lmax):
            return -np.inf
        levels = lmax - np.arange(1, int(drop) + 1, dtype=float)
        left = self._level_points(aa, zmax, levels, increasing=True)
        right = self._level_points(zmax, bb, levels, increasing=False)
        edges = np.concatenate([left, [zmax], right, self.breaks[(self.breaks > left.min()) &
                                                                  (self.breaks < right.max())]])
        edges = np.unique(edges)
        xg, wg = _leggauss(n_gauss)
        lo_e, hi_e = edges[:-1], edges[1:]
        half = (hi_e - lo_e) / 2
        nodes = (lo_e + hi_e)[:, None] / 2 + half[:, None] * xg[None, :]
        lw = np.log(np.maximum(half[:, None] * wg[None, :], 1e-300))
        vals = self.logf(nodes) - lmax
        tot = np.exp(vals + lw)
        return float(lmax + np.log(tot.sum()))

    def _level_points(self, a, b, levels, increasing):
        """Points in [a, b] where the monotone (on that side of the mode) logf crosses each level.

        A 513-point grid brackets every crossing, then 30 vectorised bisection steps refine it.
        """
        grid = np.linspace(a, b, 513)
        v = self.logf(grid)
        if not increasing:
            grid, v = grid[::-1], v[::-1]
        v = np.maximum.accumulate(np.where(np.isnan(v), -np.inf, v))  # enforce monotone (rounding noise)
        j = np.searchsorted(v, levels, side="left") - 1  # v[j] < level <= v[j+1]
        crossed = j >= 0
        j = np.clip(j, 0, grid.size - 2)
        lo, hi = grid[j], grid[j + 1]  # lo on the low-value side
        for _ in range(30):
            mid = (lo + hi) / 2
            below = self.logf(mid) < levels
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        pts = np.where(crossed, (lo + hi) / 2, grid[0])  # levels never crossed: the end point
        return np.unique(pts)


_GAUSS = {}


def _leggauss(n):
    if n not in _GAUSS:
        _GAUSS[n] = np.polynomial.legendre.leggauss(n)
    return _GAUSS[n]


def _log_lap_mass(lo, hi, b):
    """log Pr[lo < ρ <= hi] for ρ ~ Lap(b)."""
    if lo >= hi:
        return -np.inf
    return float(_log_interval(np.array(lo), np.array(hi), b))


def _pattern(output, m, name="output"):
    a = _real_array(output, name, ndim=None, allow_nan=True, allow_inf=True, allow_empty=True, allow_bool=True)
    if a.shape != (m,):
        raise ValueError(f"{name} must have one entry per query ({m}), got shape {a.shape}")
    ok = np.isnan(a) | (a == 0) | (a == 1)
    if not np.all(ok):
        raise ValueError(f"{name} entries must be 1 (⊤), 0 (⊥) or NaN (halted)")
    return a


def _check_upper(upper, m, cfg, variant):
    """``upper`` as one bound per query (+inf = no bound), only for the variants that release numbers."""
    if upper is None:
        return np.full(m, np.inf)
    if isinstance(upper, np.ndarray) and upper.ndim == 0:
        upper = upper[()]
    if np.ndim(upper) == 0 and not isinstance(upper, (str, bytes)):
        u = np.full(m, check_real(upper, "upper", allow_inf=True))
    else:
        u = _real_array(upper, "upper", ndim=1, allow_inf=True)
    if u.shape != (m,):
        raise ValueError(f"upper must be a number or one number per query ({m}), got shape {u.shape}")
    if cfg is not None and cfg.numeric is None and np.any(np.isfinite(u)):
        raise ValueError(f"variant {variant!r} releases no numbers; upper must be left at +inf")
    return u


def _feasible(a, cutoff):
    """Whether the pattern can occur at all under the cutoff convention; returns (ok, n_answered)."""
    nan = np.isnan(a)
    n_ans = int(np.argmax(nan)) if nan.any() else a.size
    if nan[n_ans:].sum() != a.size - n_ans:  # NaN must be a suffix
        return False, n_ans
    pos = a[:n_ans] == 1
    k = int(pos.sum())
    if cutoff is None:
        return (not nan.any()), n_ans
    if k > cutoff:
        return False, n_ans
    if n_ans < a.size and (k != cutoff or not pos[-1]):
        return False, n_ans
    if n_ans == a.size and k == cutoff and not pos[-1]:
        return False, n_ans
    return True, n_ans


def _check_exact_scales(cfg, q, t, epsilon):
    """The exact integration resolves noise scales within 1e-9..1e9 of the spread of the queries around the
    threshold; outside that range (an extreme epsilon or sensitivity) it would return 0 or NaN silently."""
    spread = max(1.0, float(np.max(np.abs(q - t))) if q.size else 1.0)
    for b in (cfg.b_rho, cfg.b_nu, cfg.resample_b, cfg.b_out):
        if b and not 1e-9 * spread <= b <= 1e9 * spread:
            raise ValueError(f"epsilon={epsilon!r} with sensitivity={cfg.sensitivity!r} gives the noise scale {b:.3g}: "
                             f"the exact integration handles scales within 1e-9..1e9 of the queries' spread "
                             f"({spread:.3g}); use Monte Carlo (monte_carlo_probability) outside it")


@validate_params(queries=_QUERIES, log=Bool())
def output_probability(variant: str, queries: ArrayLike, threshold: ArrayLike, epsilon: float, c: int = 1,
                       output: ArrayLike | None = None, *, sensitivity: float = 1.0, upper: ArrayLike | None = None,
                       log: bool = False, **params: Any) -> float:
    """Exact probability that ``run(variant, ...)`` produces the ⊤/⊥ pattern ``output``.

    The master formula (thesis Eq. 5.5): conditional on the threshold noise ρ = z the answers
    are independent, so

        Pr[a] = ∫ p_ρ(z) Π_{i∈I⊥} F_ν(T_i + z − q_i) Π_{i∈I⊤} (1 − F_ν(T_i + z − q_i)) dz,

    a one-dimensional integral computed in log space (log-CDFs, grouped identical factors, Gauss–Legendre
    panels cut at the integrand's level sets and kinks; relative error about 1e-10, so ln-ratios are
    accurate to ~1e-9 even with 10^4 queries). Handles every variant without threshold redraw, plus
    ``dwork_roth_2014`` by its segment formula (one independent ρ per stretch ending in a ⊤).

    The formula is for the continuous Laplace noise of the thesis. :func:`run` draws exact discrete Laplace
    noise on a grid of about 2^-20 times each scale (floating-point safe), whose probabilities differ from
    these by a relative 1e-6 or less: far below any Monte Carlo error.

    Parameters
    ----------
    variant, queries, threshold, epsilon, c, sensitivity, **params
        As in :func:`run`.
    output : array_like, shape (m,)
        1 (⊤), 0 (⊥) or NaN (not answered, after the halt). A pattern the variant cannot produce (NaN
        not at the end, more than c ⊤'s, answers after the c-th ⊤) has probability 0.
    upper : float or array_like, shape (m,), optional
        For the variants that release numbers (``roth_2011``; ``standard`` with ``eps3 > 0``): the event
        is "the pattern is ``output`` and every released value a_i <= upper_i". Default +inf (only the
        pattern). For ``roth_2011`` this uses the density of the released value integrated over a_i <= upper_i.
    log : bool
        Return log Pr (−inf for impossible outputs) instead of Pr.

    Returns
    -------
    float
        Pr[output] (or its logarithm).

    Examples
    --------
    Theorem 5.2.2: Alg. 21 outputs (⊥, ⊤) on q(D) = (0, 1) with probability (1 − e^{−1/2})/2, never on
    q(D') = (1, 0):

    >>> round(output_probability("stoddard_2014", [0, 1], 0.0, 1.0, 1, [0, 1]), 6)
    0.196735
    >>> output_probability("stoddard_2014", [1, 0], 0.0, 1.0, 1, [0, 1])
    0.0
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q = queries
    t = _check_threshold(threshold, q.size)
    a = _pattern(output, q.size)
    u = _check_upper(upper, q.size, cfg, variant)
    _check_exact_scales(cfg, q, t, epsilon)
    ok, n_ans = _feasible(a, cfg.cutoff)
    if not ok:
        return -np.inf if log else 0.0
    d = (q - t)[:n_ans]
    aa = a[:n_ans]
    uu = u[:n_ans]
    is_top = aa == 1
    total = 0.0
    if cfg.numeric == "fresh":  # independent release noise: a factor outside the integral
        lim = uu[is_top] - q[:n_ans][is_top]
        fin = np.isfinite(lim)
        if fin.any():
            total += float(_log_cdf(lim[fin], cfg.b_out).sum())
    if cfg.resample_b is not None:
        # Alg. 18: one independent ρ per stretch that ends with a ⊤ (and a final stretch of ⊥'s)
        ends = np.flatnonzero(is_top)
        starts = np.concatenate([[0], ends + 1])
        stops = np.concatenate([ends + 1, [n_ans]])
        for j, (s, e) in enumerate(zip(starts, stops)):
            if s >= e:
                continue
            b_rho = cfg.b_rho if j == 0 else cfg.resample_b
            seg_top = is_top[s:e]
            total += _Segment(b_rho, cfg.b_nu, d[s:e][~seg_top], d[s:e][seg_top]).log_integral()
    else:
        top_plain = is_top & ~np.isfinite(uu) if cfg.numeric == "same" else is_top
        top_u = is_top & np.isfinite(uu) if cfg.numeric == "same" else np.zeros_like(is_top)
        # released value a_i = q_i + ν_i <= u_i  ⇔  ν_i <= u_i − q_i
        e_u = (uu - q[:n_ans])[top_u]
        seg = _Segment(cfg.b_rho, cfg.b_nu, d[~is_top], d[top_plain], d[top_u], e_u)
        total += seg.log_integral()
    total = float(total)
    return total if log else float(np.exp(total))


@validate_params(queries=_QUERIES, queries_neighbour=_QUERIES)
def privacy_loss(variant: str, queries: ArrayLike, queries_neighbour: ArrayLike, threshold: ArrayLike, epsilon: float,
                 c: int = 1, output: ArrayLike | None = None, **kwargs: Any) -> float:
    """ln( Pr[A(D) = output] / Pr[A(D') = output] ) with D, D' given by their answer vectors.

    ε-DP requires this to be <= ε for every pair of neighbours and every output.

    Parameters
    ----------
    queries, queries_neighbour : array_like, shape (m,)
        q(D) and q(D').
    variant, threshold, epsilon, c, output, **kwargs
        As in :func:`output_probability`.

    Returns
    -------
    float
        The log ratio; +inf when only D can produce the output, NaN when neither can.

    Examples
    --------
    Counterexample C3 of chapter 6 with m = 1 pinning query: Alg. 20 (Lee & Clifton) is already not 1-DP with
    two queries.

    >>> round(privacy_loss("lee_clifton_2014", [0.0, 1.0], [1.0, 0.0], 0.0, 1.0, 1, [0.0, 1.0]), 4)
    1.0326
    """
    if queries.shape != queries_neighbour.shape:
        raise ValueError("queries and queries_neighbour must have the same length")
    l1 = output_probability(variant, queries, threshold, epsilon, c, output, log=True, **kwargs)
    l2 = output_probability(variant, queries_neighbour, threshold, epsilon, c, output, log=True, **kwargs)
    if np.isneginf(l1) and np.isneginf(l2):
        return float("nan")
    if np.isneginf(l2):
        return float("inf")
    return float(l1 - l2)


def matches_output(outputs: ArrayLike, output: ArrayLike, upper: ArrayLike | None = None) -> np.ndarray:
    """Boolean mask of the rows of :func:`run`'s ``outputs`` that equal the pattern ``output``.

    Parameters
    ----------
    outputs : array_like, shape (n_runs, m)
        As returned by :func:`run` (NaN for "halted").
    output : array_like, shape (m,)
        The pattern: 1 (⊤), 0 (⊥) or NaN (halted). A released number counts as ⊤.
    upper : float or array_like, shape (m,), optional
        A released number must also be <= ``upper`` (+inf: no bound).

    Returns
    -------
    ndarray of bool, shape (n_runs,)

    Examples
    --------
    >>> matches_output([[0.0, 1.0, np.nan], [1.0, 0.0, 0.0]], [0, 1, np.nan]).tolist()
    [True, False]
    """
    o = _real_array(outputs, "outputs", ndim=2, allow_nan=True, allow_inf=True, allow_bool=True)
    a = _pattern(output, o.shape[1])
    nan_o = np.isnan(o)
    top_o = ~nan_o & (o != 0)
    bot_o = ~nan_o & (o == 0)
    want_nan, want_top, want_bot = np.isnan(a), a == 1, a == 0
    ok = np.where(want_nan, nan_o, np.where(want_top, top_o, bot_o))
    if upper is not None:
        u = _check_upper(upper, a.size, None, None)
        with np.errstate(invalid="ignore"):
            ok &= ~(want_top & (o > u))
    return ok.all(axis=1)


@validate_params(queries=_QUERIES, n_runs=Int(1), chunk=Int(1), rng=Rng())
def monte_carlo_probability(variant: str, queries: ArrayLike, threshold: ArrayLike, epsilon: float, c: int = 1,
                            output: ArrayLike | None = None, *, n_runs: int = 1_000_000, rng: RNGLike = None,
                            sensitivity: float = 1.0, upper: ArrayLike | None = None, chunk: int = 1_000_000,
                            **params: Any) -> tuple[float, int, int]:
    """Monte Carlo estimate of :func:`output_probability`, from ``n_runs`` simulated runs.

    Parameters
    ----------
    variant, queries, threshold, epsilon, c, output, upper, sensitivity, **params
        As in :func:`output_probability`.
    n_runs : int
        Number of runs, simulated in batches (at most ``MAX_ALLOCATION`` in all).
    rng : None, int or numpy.random.Generator
    chunk : int
        Runs per batch (fewer when there are many queries, to bound memory).

    Returns
    -------
    (p_hat, hits, n_runs) : (float, int, int)

    Examples
    --------
    >>> p, hits, n = monte_carlo_probability("stoddard_2014", [1, 0], 0.0, 1.0, 1, [0, 1], n_runs=1000, rng=0)
    >>> p, hits, n
    (0.0, 0, 1000)
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q, n = queries, n_runs
    t = _check_threshold(threshold, q.size)
    a = _pattern(output, q.size)
    u = _check_upper(upper, q.size, cfg, variant)
    rows = min(chunk, max(1, 20_000_000 // q.size))
    hits = 0
    done = 0
    while done < n:
        k = min(rows, n - done)
        out = _simulate(cfg, q, t, k, rng)
        hits += int(matches_output(out, a, u).sum())
        done += k
    return hits / n, hits, n


@validate_params(queries=_QUERIES, queries_neighbour=_QUERIES, rng=Rng(),
                 categories=Options("auto", "vectors", "counts"))
def audit_variant(variant: str, queries: ArrayLike, queries_neighbour: ArrayLike, threshold: ArrayLike,
                  epsilon: float, c: int = 1, *, n_samples: int = 200_000, rng: RNGLike = None,
                  sensitivity: float = 1.0, categories: Literal["auto", "vectors", "counts"] = "auto",
                  **params: Any) -> AuditResult:
    """Run the foundation's auditor (:func:`dpclust_core.audit.audit`) on ``variant`` at its claimed ε.

    The outputs are whole ⊤/⊥/NaN vectors; each distinct vector is coded as one integer category and the
    auditor searches the categories (and unions of them, ranked by their likelihood ratio on a first batch)
    for a violating event, which it then tests on a fresh batch. Released numbers (``roth_2011``,
    ``standard`` with ``eps3 > 0``) are first coarsened to "released value <= T_i" and "> T_i", so the
    outputs stay categorical. At most 22 queries. The result's ``event`` lists the codes (base 5, query i
    is digit i: ⊥=0, ⊤=1, halted=2, released <= T_i: 3, > T_i: 4); :func:`decode_event` turns them back
    into vectors.

    Parameters
    ----------
    variant, threshold, epsilon, c, sensitivity, **params
        As in :func:`run`; ``epsilon`` is the claim under test.
    queries, queries_neighbour : array_like, shape (m,)
        q(D) and q(D'); they may differ by at most ``sensitivity`` in every coordinate.
    n_samples : int
        Runs per input per batch (two batches).
    rng : None, int or numpy.random.Generator
    categories : {"auto", "vectors", "counts"}
        ``"vectors"`` (the whole output vector is the category), ``"counts"`` (a coarser,
        output-independent summary: the numbers of ⊤ among the queries whose answer goes up, goes down and
        stays equal from D to D'; any violation found on a post-processing of the output is a violation of
        the mechanism), or ``"auto"``: vectors for the variants with a cutoff, counts for the ones without
        (up to 2^m distinct vectors, too many categories for the auditor's search to be quick).

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> res = audit_variant("stoddard_2014", [0.0, 1.0], [1.0, 0.0], 0.0, 1.0, n_samples=2000, rng=0)
    >>> res.rejects(0.01)
    True
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q1, q2 = queries, queries_neighbour
    if q1.shape != q2.shape:
        raise ValueError("queries and queries_neighbour must have the same length")
    t = _check_threshold(threshold, q1.size)
    if np.max(np.abs(q1 - q2)) > cfg.sensitivity * (1 + 1e-12):
        raise ValueError("queries and queries_neighbour differ by more than the sensitivity: not neighbours")
    n = _check_runs(n_samples, q1.size, "n_samples")

    def mech(data, n, g):
        return _simulate(cfg, data, t, n, g)

    if categories == "auto":
        categories = "vectors" if cfg.cutoff is not None else "counts"
    if categories == "counts":
        if cfg.numeric is not None:
            raise ValueError("categories='counts' is for variants that output only ⊤/⊥")
        groups = np.sign(q1 - q2)
        cols = [groups == g for g in (1.0, -1.0, 0.0)]

        def count_statistic(out):
            top = np.nan_to_num(np.asarray(out, dtype=float)) == 1
            return np.stack([top[:, k].sum(axis=1) for k in cols], axis=1).astype(float)

        return audit(mech, q1, q2, epsilon, n_samples=n, statistic=count_statistic, rng=rng)
    if q1.size > 22:
        raise ValueError("audit_variant encodes output vectors as integers and supports at most 22 queries")
    weights = 5.0 ** np.arange(q1.size)

    def statistic(out):
        # one integer code per output vector (base 5: ⊥=0, ⊤=1, NaN=2, released <= T_i: 3, > T_i: 4),
        # returned as a column so the auditor treats the codes as categories
        o = np.asarray(out, dtype=float)
        dig = np.where(np.isnan(o), 2.0, np.where(o == 0, 0.0, 1.0))
        if cfg.numeric is not None:
            num = ~np.isnan(o) & (o != 0)
            dig = np.where(num, np.where(o <= t, 3.0, 4.0), dig)
        return (dig @ weights)[:, None]

    return audit(mech, q1, q2, epsilon, n_samples=n, statistic=statistic, rng=rng)


@validate_params(m=Int(1, 22))
def decode_event(codes: ArrayLike, m: int) -> np.ndarray:
    """Turn the integer codes of :func:`audit_variant`'s event back into output vectors (one row each).

    Parameters
    ----------
    codes : int or array_like of int
        Codes in [0, 5^m): query i is base-5 digit i.
    m : int
        Number of queries (1 to 22).

    Returns
    -------
    ndarray, shape (n_codes, m)
        Entries 0 (⊥), 1 (⊤), NaN (halted), and for released numbers −1 (value <= T_i) / −2 (value > T_i).

    Examples
    --------
    >>> decode_event([5], 2).tolist()
    [[0.0, 1.0]]
    """
    c = _real_array(np.atleast_1d(codes) if not isinstance(codes, (str, bytes)) else codes, "codes", ndim=1)
    if np.any(c != np.round(c)) or np.any(c < 0) or np.any(c >= 5.0 ** m):
        raise ValueError(f"codes must be integers in [0, 5^m) = [0, {5 ** m}), got {codes!r:.60}")
    c = c.astype(np.int64)
    dig = (c[:, None] // (5 ** np.arange(m))[None, :]) % 5
    lut = np.array([0.0, 1.0, np.nan, -1.0, -2.0])
    return lut[dig]
