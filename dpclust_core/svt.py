"""The Sparse Vector Technique (SVT): every variant of thesis chapter 5, exact privacy losses, SVT vs EM.

Spec ``svt.md`` (Dong Su's thesis, ch. 5 "Understanding the Sparse Vector Technique", = Lyu, Su & Li,
PVLDB 2017). SVT answers a stream of queries ``q_1, q_2, ...`` with "above" (⊤) or "below" (⊥) a
threshold ``T`` and pays only for the (at most ``c``) positive answers. The thesis lists six published
variants (Algs. 17–22), the GPTT model of the buggy ones, and its generalised standard SVT (Alg. 23).
Four of them are **not differentially private**; they live here, named after their source, only to be
studied (chapter 05 shows each one failing).

Conventions (spec §0), shared by every variant:

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
:func:`select_top_c`, :func:`selection_metrics`, :func:`zipf_scores`
    The top-c selection experiment of §5.4–5.5: SVT (interactive, ``standard`` monotone with an
    ε1:ε2 ratio, or ``dwork_roth_2014``), SVT with retraversal, and the exponential mechanism.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Callable

import numpy as np
from scipy import optimize

from ._validation import check_epsilon, check_positive_int, check_rng, check_sensitivity

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
    "counterexample",
    "three_views",
    "default_threshold",
    "gptt_proof_argument",
    "alpha_svt",
    "alpha_em",
    "zipf_scores",
    "select_top_c",
    "selection_metrics",
    "variant_table",
    "zipf_experiment",
    "THESIS_ZIPF_SER",
    "ZIPF_METHODS",
]


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


def _check_params(variant, params, allowed):
    extra = set(params) - set(allowed)
    if extra:
        raise ValueError(f"variant {variant!r} does not take the parameter(s) {sorted(extra)}; "
                         f"allowed: {sorted(allowed) or 'none'}")


def _cutoff_flag(variant, params, c):
    flag = params.get("cutoff", False)
    if not isinstance(flag, (bool, np.bool_)):
        raise ValueError(f"cutoff must be True or False, got {flag!r}")
    return c if flag else None


def optimal_split(epsilon, c=1, monotonic=False):
    """The ε1:ε2 split minimising the variance of the comparison noise ν_i − ρ (thesis Eq. 5.12).

    ``ε1 : ε2 = 1 : (2c)^(2/3)`` in general, ``1 : c^(2/3)`` for monotonic queries (§5.3.3), i.e.
    ``ε1 = ε / (1 + k^(2/3))`` with ``k = 2c`` (or ``c``). Returns ``(eps1, eps2)`` summing to ``epsilon``.
    """
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    k = c if monotonic else 2 * c
    r = k ** (2.0 / 3.0)
    eps1 = eps / (1.0 + r)
    return eps1, eps - eps1


def comparison_noise_std(fraction, epsilon, c=1, sensitivity=1.0, monotonic=False):
    """Std of the comparison noise ν − ρ of Alg. 23 when ε1 = ``fraction``·ε and ε2 = (1−fraction)·ε.

    ``sqrt(2 (Δ/ε1)^2 + 2 (kΔ/ε2)^2)`` with ``k = 2c`` (``c`` if monotonic): the quantity minimised by
    :func:`optimal_split` (§5.3.2). ``fraction`` may be an array of values in (0, 1).
    """
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    sens = check_sensitivity(sensitivity)
    f = np.asarray(fraction, dtype=float)
    if np.any(~np.isfinite(f)) or np.any((f <= 0) | (f >= 1)):
        raise ValueError("fraction must lie in the open interval (0, 1)")
    k = c if monotonic else 2 * c
    b1 = sens / (f * eps)
    b2 = k * sens / ((1 - f) * eps)
    out = np.sqrt(2 * b1 ** 2 + 2 * b2 ** 2)
    return float(out) if out.ndim == 0 else out


def _budget_eps(params, name, default):
    v = params.get(name, None)
    if v is None:
        return default
    return check_epsilon(v, name)


def noise_config(variant, epsilon, c=1, sensitivity=1.0, **params) -> _Config:
    """Resolve the noise scales, cutoff and budget split of ``variant`` (spec §1.2).

    Raises ``ValueError`` for an unknown variant, an unknown parameter or an inconsistent budget.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}")
    eps = check_epsilon(epsilon)
    c = check_positive_int(c, "c")
    d = check_sensitivity(sensitivity)
    if d <= 0:
        raise ValueError(f"sensitivity must be > 0, got {sensitivity!r}")
    if variant == "lyu_su_li":
        _check_params(variant, params, ())
        e1 = e2 = eps / 2
        return _Config(variant, d / e1, 2 * c * d / e2, c,
                       budget=(("threshold noise rho", e1), (f"query noise, <= {c} positives", e2)))
    if variant == "dwork_roth_2014":
        _check_params(variant, params, ())
        e1 = e2 = eps / 2
        return _Config(variant, c * d / e1, 2 * c * d / e2, c, resample_b=c * d / e2,
                       budget=(("threshold noise rho (redrawn after each positive)", e1),
                               (f"query noise, <= {c} positives", e2)))
    if variant == "roth_2011":
        _check_params(variant, params, ())
        e1 = e2 = eps / 2
        return _Config(variant, d / e1, c * d / e2, c, numeric="same")
    if variant == "lee_clifton_2014":
        _check_params(variant, params, ())
        e1 = eps / 4
        e2 = eps - e1
        return _Config(variant, d / e1, d / e2, c)
    if variant == "stoddard_2014":
        _check_params(variant, params, ("cutoff",))
        return _Config(variant, d / (eps / 2), 0.0, _cutoff_flag(variant, params, c))
    if variant == "chen_2015":
        _check_params(variant, params, ("cutoff",))
        return _Config(variant, d / (eps / 2), d / (eps / 2), _cutoff_flag(variant, params, c))
    if variant == "gptt":
        _check_params(variant, params, ("eps1", "eps2", "cutoff"))
        e1 = _budget_eps(params, "eps1", None)
        e2 = _budget_eps(params, "eps2", None)
        if e1 is None and e2 is None:
            e1 = e2 = eps / 2
        elif e1 is None:
            e1 = eps - e2
        elif e2 is None:
            e2 = eps - e1
        if e1 <= 0 or e2 <= 0 or not math.isclose(e1 + e2, eps, rel_tol=1e-9):
            raise ValueError(f"gptt: eps1 + eps2 must equal epsilon={eps}, got eps1={e1}, eps2={e2}")
        return _Config(variant, d / e1, d / e2, _cutoff_flag(variant, params, c))
    # standard (Alg. 23)
    _check_params(variant, params, ("eps1", "eps2", "eps3", "monotonic", "ratio"))
    mono = params.get("monotonic", False)
    if not isinstance(mono, (bool, np.bool_)):
        raise ValueError(f"monotonic must be True or False, got {mono!r}")
    e3 = params.get("eps3", 0.0)
    if e3 is None:
        e3 = 0.0
    if not isinstance(e3, numbers.Real) or isinstance(e3, bool) or not np.isfinite(e3) or e3 < 0:
        raise ValueError(f"eps3 must be a finite number >= 0, got {e3!r}")
    e3 = float(e3)
    if e3 >= eps:
        raise ValueError(f"eps3={e3} must be smaller than epsilon={eps}")
    rest = eps - e3
    e1 = _budget_eps(params, "eps1", None)
    e2 = _budget_eps(params, "eps2", None)
    ratio = params.get("ratio", None)
    if ratio is not None:
        if e1 is not None or e2 is not None:
            raise ValueError("give either ratio or eps1/eps2, not both")
        ratio = check_epsilon(ratio, "ratio")  # a positive finite number
        e1 = rest / (1 + ratio)
        e2 = rest - e1
    elif e1 is None and e2 is None:
        e1, e2 = optimal_split(rest, c, monotonic=bool(mono))
    elif e1 is None:
        e1 = rest - e2
    elif e2 is None:
        e2 = rest - e1
    if e1 <= 0 or e2 <= 0 or not math.isclose(e1 + e2 + e3, eps, rel_tol=1e-9):
        raise ValueError(f"standard: eps1 + eps2 + eps3 must equal epsilon={eps}, "
                         f"got eps1={e1}, eps2={e2}, eps3={e3}")
    k = c if mono else 2 * c
    budget = [("threshold noise rho", e1), (f"query noise, <= {c} positives", e2)]
    if e3 > 0:
        budget.append((f"numeric release of <= {c} positives", e3))
        return _Config(variant, d / e1, k * d / e2, c, numeric="fresh", b_out=c * d / e3, budget=tuple(budget))
    return _Config(variant, d / e1, k * d / e2, c, budget=tuple(budget))


# ---------------------------------------------------------------------------------------------------
# the simulator
# ---------------------------------------------------------------------------------------------------
def _check_queries(queries, name="queries"):
    try:
        q = np.asarray(queries, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a 1-D array of query answers") from None
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array of query answers, got shape {q.shape}")
    if not np.all(np.isfinite(q)):
        raise ValueError(f"{name} contains NaN or infinite values")
    return q


def _check_threshold(threshold, m):
    try:
        t = np.asarray(threshold, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("threshold must be a number or one number per query") from None
    if t.ndim == 0:
        t = np.full(m, float(t))
    if t.shape != (m,):
        raise ValueError(f"threshold must be a scalar or have one entry per query ({m}), got shape {t.shape}")
    if not np.all(np.isfinite(t)):
        raise ValueError("threshold contains NaN or infinite values")
    return t


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
        x = rng.laplace(0.0, cfg.b_nu, size=(n, m))
        x += d
    else:
        x = np.broadcast_to(d, (n, m))
    if cfg.resample_b is not None:  # Alg. 18: ρ redrawn after every ⊤; loop over queries only
        c = cfg.cutoff
        rhos = np.concatenate([rng.laplace(0.0, cfg.b_rho, size=(n, 1)),
                               rng.laplace(0.0, cfg.resample_b, size=(n, max(c - 1, 0)))], axis=1)
        cnt = np.zeros(n, dtype=np.int64)
        out = np.empty((n, m))
        ar = np.arange(n)
        for i in range(m):
            active = cnt < c
            above = x[:, i] >= rhos[ar, np.minimum(cnt, c - 1)]
            out[:, i] = np.where(active, above, np.nan)
            cnt += above & active
        return out
    rho = rng.laplace(0.0, cfg.b_rho, size=(n, 1))
    above = x >= rho
    if cfg.numeric == "same":  # Alg. 19 releases the very value it compared: q_i + ν_i
        out = np.where(above, x + t, 0.0)
    elif cfg.numeric == "fresh":  # Alg. 23 with eps3 > 0: fresh noise for the release
        out = np.where(above, q + rng.laplace(0.0, cfg.b_out, size=(n, m)), 0.0)
    else:
        out = above.astype(float)
    if cfg.cutoff is not None:
        cnt = np.cumsum(above, axis=1, dtype=np.int32)
        cnt -= above  # positives strictly before position i
        out[cnt >= cfg.cutoff] = np.nan
    return out


def run(variant, queries, threshold, epsilon, c=1, *, sensitivity=1.0, n_runs=1, rng=None, ledger=None,
        **params):
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
        Number of independent runs (rows of the output).
    rng : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        Records the budget (ε1, ε2, and ε3 if any) of the private variants, ``n_runs`` times over.
        Passing a ledger with a non-private variant raises ``ValueError``.
    **params
        ``standard``: ``eps1``, ``eps2``, ``eps3`` (default 0), ``monotonic`` (default False), ``ratio``
        (ε2/ε1; default the optimal split, :func:`optimal_split`). ``gptt``: ``eps1``, ``eps2`` (default
        ε/2 each). ``stoddard_2014``/``chen_2015``/``gptt``: ``cutoff`` (default False, as published).

    Returns
    -------
    ndarray, shape (n_runs, m), float
        1.0 = ⊤, 0.0 = ⊥, NaN = not answered because the run halted after its c-th ⊤. For
        ``roth_2011`` and ``standard`` with ``eps3 > 0``, a ⊤ is the released number (a continuous value,
        nonzero with probability 1) instead of 1.0.
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q = _check_queries(queries)
    t = _check_threshold(threshold, q.size)
    n = check_positive_int(n_runs, "n_runs")
    rng = check_rng(rng)
    if ledger is not None:
        if not VARIANTS[variant].private:
            raise ValueError(f"variant {variant!r} is not differentially private; it cannot be charged to a "
                             "privacy ledger (it exists only to be studied)")
        for name, e in cfg.budget:
            label = f"svt[{variant}] {name}" + (f" (x{n} independent runs)" if n > 1 else "")
            ledger.record(label, n * e, 0.0, float(sensitivity))
    return _simulate(cfg, q, t, n, rng)


def _make_variant_function(name, doc):
    def f(queries, threshold, epsilon, c=1, *, sensitivity=1.0, n_runs=1, rng=None, ledger=None, **params):
        return run(name, queries, threshold, epsilon, c, sensitivity=sensitivity, n_runs=n_runs, rng=rng,
                   ledger=ledger, **params)

    f.__name__ = name
    f.__qualname__ = name
    f.__doc__ = doc + "\n\n    Same arguments and output as :func:`run` (with this variant).\n"
    return f


lyu_su_li = _make_variant_function("lyu_su_li", """Alg. 17: the SVT instantiation proposed by Lyu, Su & Li (thesis Fig. 5.1).

    ε1 = ε2 = ε/2; ρ ~ Lap(Δ/ε1) drawn once; ν_i ~ Lap(2cΔ/ε2); output ⊤/⊥; halts after c ⊤'s.

    Claimed: ε-DP. Actual: ε-DP (Thm 5.2.1), and the bound is tight (spec §2.4 C3: ln R -> ε as the
    number of "pinning" ⊥ queries grows).""")

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
    ρ <= a_i − T, so the earlier ⊥'s are no longer free; spec §2.4 C2 gives ln R = (ℓ−1)ε/(2c),
    unbounded in the number ℓ−1 of ⊥'s. Printing ⊤ instead would make it (3ε/2)-DP.
    This function exists only to be studied; never use it to protect data.""")

lee_clifton_2014 = _make_variant_function("lee_clifton_2014", """Alg. 20: SVT of Lee & Clifton, KDD 2014 (top-k itemsets, Fig. 5.4).  NOT PRIVATE AS CLAIMED.

    ε1 = ε/4; ρ ~ Lap(Δ/ε1); ε2 = 3ε/4; ν_i ~ Lap(Δ/ε2) (**no factor c**); halts after c ⊤'s.

    Claimed: ε-DP. Actual: ((1+6c)/4)·ε-DP, tight (spec §2.4 C3); ((1+3c)/4)·ε-DP for monotonic
    queries. Already not ε-DP with c = 1 and two queries. Exists only to be studied.""")

stoddard_2014 = _make_variant_function("stoddard_2014", """Alg. 21: SVT of Stoddard, Chen & Machanavajjhala 2014 (feature selection, Fig. 5.5).  NOT PRIVATE.

    ε1 = ε/2; ρ ~ Lap(Δ/ε1); **no query noise** (ν_i = 0); **no cutoff** (any number of ⊤'s;
    ``cutoff=True`` adds one, for study).

    Claimed: ε-DP. Actual: ∞-DP (Thm 5.2.2): with q(D) = (0, 1), q(D') = (1, 0), T = 0, the output
    (⊥, ⊤) has probability ½(1 − e^{−ε/2}) under D and exactly 0 under D'. Exists only to be studied.""")

chen_2015 = _make_variant_function("chen_2015", """Alg. 22: SVT of Chen, Xiao, Zhang & Xu, KDD 2015 (Fig. 5.6).  NOT PRIVATE.

    ε1 = ε2 = ε/2; ρ ~ Lap(Δ/ε1); ν_i ~ Lap(Δ/ε2) (**no factor c**); **no cutoff** (``cutoff=True``
    adds one, for study).

    Claimed: ε-DP. Actual: ∞-DP (PrivTree, SIGMOD 2016, App. B): k positives after many pinning ⊥'s
    give ln R -> ε/2 + kε (spec §2.4 C3), and the GPTT pairs give ln R growing linearly (C4).
    Exists only to be studied.""")

gptt = _make_variant_function("gptt", """GPTT, "generalized private threshold testing" (Chen & Machanavajjhala 2015).  NOT PRIVATE.

    ρ ~ Lap(Δ/ε1), ν_i ~ Lap(Δ/ε2), no cutoff, ε = ε1 + ε2 (``eps1``/``eps2``, default ε/2 each, which
    is Alg. 22). The model of Algs. 20–22.

    Claimed: ε-DP, by the published Algs. 20–22 it models (ε = ε1 + ε2). Actual: ∞-DP. Chen &
    Machanavajjhala set out to prove exactly that, and it is true (spec §2.4 C4: ln R grows by about 0.9
    per (⊥, ⊤) pair at ε = 1). The thesis (§5.2.3) calls their proof wrong, because the same argument
    would "prove" the private Alg. 17 non-private. [DERIVED, chapter 05] For GPTT the argument's gap
    closes: the integrand ratio per pair is κ(z) >= e^{ε2} for every z (not -> 1, as the thesis says),
    so Pr[A(D) = a] >= e^{t·ε2} Pr[A(D') = a] on t pairs. Exists only to be studied.""")

standard = _make_variant_function("standard", """Alg. 23: the thesis's generalised standard SVT (§5.3).

    ρ ~ Lap(Δ/ε1) drawn once; ν_i ~ Lap(2cΔ/ε2), or Lap(cΔ/ε2) with ``monotonic=True`` (Thm 5.3.2:
    only when every answer moves the same way between neighbours, e.g. counting queries under
    add/remove); on ⊤ it outputs ⊤, or, if ``eps3 > 0``, q_i + Lap(cΔ/ε3) with **fresh** noise;
    halts after c ⊤'s. Default split: the optimum ε1:ε2 = 1:(2c)^(2/3), or 1:c^(2/3) when monotonic
    (Eq. 5.12); ``ratio`` sets ε2/ε1 (the experiments' "SVT-S 1:ratio").

    Claimed and actual: (ε1 + ε2 + ε3)-DP (Thms 5.3.1, 5.3.2); ``epsilon`` is that total.""")


@dataclass(frozen=True)
class Variant:
    """Registry entry of one SVT variant (spec §1.1–1.2)."""

    name: str
    function: Callable
    algorithm: str  #: thesis algorithm number
    source: str
    private: bool  #: True if the variant satisfies its claimed ε-DP
    claimed: str
    actual: str
    eps1: str
    rho_scale: str
    resample: bool
    nu_scale: str
    output: str
    cutoff: str
    actual_epsilon: Callable = field(repr=False, default=None)  #: (epsilon, c) -> actual ε (inf if none)


def _inf(eps, c):
    return math.inf


VARIANTS: dict[str, Variant] = {
    "lyu_su_li": Variant("lyu_su_li", lyu_su_li, "Alg. 17", "Lyu, Su & Li 2017 (this chapter)", True,
                         "ε-DP", "ε-DP (Thm 5.2.1, tight)", "ε/2", "Δ/ε1", False, "2cΔ/ε2", "⊤/⊥", "c",
                         lambda eps, c: eps),
    "dwork_roth_2014": Variant("dwork_roth_2014", dwork_roth_2014, "Alg. 18", "Dwork & Roth 2014 (book)", True,
                               "ε-DP", "ε-DP", "ε/2", "cΔ/ε1", True, "2cΔ/ε2", "⊤/⊥", "c",
                               lambda eps, c: eps),
    "roth_2011": Variant("roth_2011", roth_2011, "Alg. 19", "Roth 2011 (lecture notes)", False,
                         "ε-DP", "∞-DP", "ε/2", "Δ/ε1", False, "cΔ/ε2", "q_i+ν_i (same ν_i)", "c", _inf),
    "lee_clifton_2014": Variant("lee_clifton_2014", lee_clifton_2014, "Alg. 20", "Lee & Clifton 2014", False,
                                "ε-DP", "((1+6c)/4)ε-DP", "ε/4", "Δ/ε1", False, "Δ/ε2", "⊤/⊥", "c",
                                lambda eps, c: (1 + 6 * c) / 4 * eps),
    "stoddard_2014": Variant("stoddard_2014", stoddard_2014, "Alg. 21", "Stoddard, Chen & Machanavajjhala 2014",
                             False, "ε-DP", "∞-DP", "ε/2", "Δ/ε1", False, "0", "⊤/⊥", "none", _inf),
    "chen_2015": Variant("chen_2015", chen_2015, "Alg. 22", "Chen, Xiao, Zhang & Xu 2015", False,
                         "ε-DP", "∞-DP", "ε/2", "Δ/ε1", False, "Δ/ε2", "⊤/⊥", "none", _inf),
    "gptt": Variant("gptt", gptt, "GPTT", "Chen & Machanavajjhala 2015", False,
                    "ε-DP (model of Algs. 20-22)", "∞-DP (ln R >= t·ε2 on t pairs)", "ε1 (free)",
                    "Δ/ε1", False, "Δ/ε2", "⊤/⊥", "none", _inf),
    "standard": Variant("standard", standard, "Alg. 23", "Lyu, Su & Li 2017 (generalised)", True,
                        "(ε1+ε2+ε3)-DP", "(ε1+ε2+ε3)-DP (Thms 5.3.1-5.3.2)", "ε/(1+(2c)^(2/3))",
                        "Δ/ε1", False, "2cΔ/ε2 (monotone: cΔ/ε2)", "⊤, or q_i+Lap(cΔ/ε3) (fresh)", "c",
                        lambda eps, c: eps),
}


def variant_table():
    """The chapter's comparison table (Fig. 5.7 analogue) as a list of dicts, one per variant."""
    rows = []
    for v in VARIANTS.values():
        rows.append({"variant": v.name, "algorithm": v.algorithm, "source": v.source, "ε1": v.eps1,
                     "threshold noise ρ": v.rho_scale, "ρ redrawn after ⊤": "yes" if v.resample else "",
                     "query noise ν_i": v.nu_scale, "output on ⊤": v.output, "cutoff": v.cutoff,
                     "claimed": v.claimed, "actual": v.actual})
    return rows


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


def _pattern(output, m):
    a = np.asarray(output, dtype=float)
    if a.shape != (m,):
        raise ValueError(f"output must have one entry per query ({m}), got shape {a.shape}")
    ok = np.isnan(a) | (a == 0) | (a == 1)
    if not np.all(ok):
        raise ValueError("output entries must be 1 (⊤), 0 (⊥) or NaN (halted)")
    return a


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


def output_probability(variant, queries, threshold, epsilon, c=1, output=None, *, sensitivity=1.0, upper=None,
                       log=False, **params):
    """Exact probability that ``run(variant, ...)`` produces the ⊤/⊥ pattern ``output``.

    The master formula (thesis Eq. 5.5, spec §0): conditional on the threshold noise ρ = z the answers
    are independent, so

        Pr[a] = ∫ p_ρ(z) Π_{i∈I⊥} F_ν(T_i + z − q_i) Π_{i∈I⊤} (1 − F_ν(T_i + z − q_i)) dz,

    a one-dimensional integral computed in log space (log-CDFs, grouped identical factors, Gauss–Legendre
    panels cut at the integrand's level sets and kinks; relative error about 1e-10, so ln-ratios are
    accurate to ~1e-9 even with 10^4 queries). Handles every variant without threshold redraw, plus
    ``dwork_roth_2014`` by its segment formula (one independent ρ per stretch ending in a ⊤, spec §0).

    Parameters
    ----------
    output : array_like, shape (m,)
        1 (⊤), 0 (⊥) or NaN (not answered, after the halt). A pattern the variant cannot produce (NaN
        not at the end, more than c ⊤'s, answers after the c-th ⊤) has probability 0.
    upper : array_like, shape (m,), optional
        For the variants that release numbers (``roth_2011``; ``standard`` with ``eps3 > 0``): the event
        is "the pattern is ``output`` and every released value a_i <= upper_i". Default +inf (only the
        pattern). For ``roth_2011`` this uses the density of spec §0 integrated over a_i <= upper_i.
    log : bool
        Return log Pr (−inf for impossible outputs) instead of Pr.
    """
    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q = _check_queries(queries)
    t = _check_threshold(threshold, q.size)
    a = _pattern(output, q.size)
    if upper is None:
        u = np.full(q.size, np.inf)
    else:
        u = np.asarray(upper, dtype=float)
        if u.ndim == 0:
            u = np.full(q.size, float(u))
        if u.shape != (q.size,) or np.any(np.isnan(u)):
            raise ValueError(f"upper must be a number or one number per query ({q.size}), without NaN")
        if cfg.numeric is None and np.any(np.isfinite(u)):
            raise ValueError(f"variant {variant!r} releases no numbers; upper must be left at +inf")
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


def privacy_loss(variant, queries, queries_neighbour, threshold, epsilon, c=1, output=None, **kwargs):
    """ln( Pr[A(D) = output] / Pr[A(D') = output] ) with D, D' given by their answer vectors.

    ``queries`` = q(D), ``queries_neighbour`` = q(D'); every other argument as in
    :func:`output_probability`. +inf when only D can produce the output. ε-DP requires this to be
    <= ε for every pair of neighbours and every output.
    """
    l1 = output_probability(variant, queries, threshold, epsilon, c, output, log=True, **kwargs)
    l2 = output_probability(variant, queries_neighbour, threshold, epsilon, c, output, log=True, **kwargs)
    if np.isneginf(l1) and np.isneginf(l2):
        return float("nan")
    if np.isneginf(l2):
        return float("inf")
    return float(l1 - l2)


def matches_output(outputs, output, upper=None):
    """Boolean mask of the rows of ``run``'s ``outputs`` that equal the pattern ``output``.

    For numeric outputs, a released number counts as ⊤ (and must be <= ``upper`` when given).
    """
    o = np.asarray(outputs, dtype=float)
    a = np.asarray(output, dtype=float)
    if o.ndim != 2 or o.shape[1] != a.size:
        raise ValueError("outputs must be (n_runs, m) and output of length m")
    nan_o = np.isnan(o)
    top_o = ~nan_o & (o != 0)
    bot_o = ~nan_o & (o == 0)
    want_nan, want_top, want_bot = np.isnan(a), a == 1, a == 0
    ok = np.where(want_nan, nan_o, np.where(want_top, top_o, bot_o))
    if upper is not None:
        u = np.broadcast_to(np.asarray(upper, dtype=float), a.shape)
        with np.errstate(invalid="ignore"):
            ok &= ~(want_top & (o > u))
    return ok.all(axis=1)


def monte_carlo_probability(variant, queries, threshold, epsilon, c=1, output=None, *, n_runs=1_000_000,
                            rng=None, sensitivity=1.0, upper=None, chunk=1_000_000, **params):
    """Monte Carlo estimate of :func:`output_probability`: returns ``(p_hat, hits, n_runs)``."""
    n = check_positive_int(n_runs, "n_runs")
    rng = check_rng(rng)
    hits = 0
    done = 0
    while done < n:
        k = min(chunk, n - done)
        out = run(variant, queries, threshold, epsilon, c, sensitivity=sensitivity, n_runs=k, rng=rng, **params)
        hits += int(matches_output(out, output, upper).sum())
        done += k
    return hits / n, hits, n


def audit_variant(variant, queries, queries_neighbour, threshold, epsilon, c=1, *, n_samples=200_000, rng=None,
                  sensitivity=1.0, categories="auto", **params):
    """Run the foundation's auditor (:func:`dpclust_core.audit.audit`) on ``variant`` at its claimed ε.

    The outputs are whole ⊤/⊥/NaN vectors; each distinct vector is coded as one integer category and the
    auditor searches the categories (and unions of them, ranked by their likelihood ratio on a first batch)
    for a violating event, which it then tests on a fresh batch. Released numbers (``roth_2011``,
    ``standard`` with ``eps3 > 0``) are first coarsened to "released value <= T_i" and "> T_i", so the
    outputs stay categorical. At most 22 queries. The result's ``event`` lists the codes (base 5, query i
    is digit i: ⊥=0, ⊤=1, halted=2, released <= T_i: 3, > T_i: 4); :func:`decode_event` turns them back
    into vectors.

    ``categories``: ``"vectors"`` (the whole output vector is the category), ``"counts"`` (a coarser,
    output-independent summary: the numbers of ⊤ among the queries whose answer goes up, goes down and
    stays equal from D to D'; any violation found on a post-processing of the output is a violation of
    the mechanism), or ``"auto"``: vectors for the variants with a cutoff, counts for the ones without
    (up to 2^m distinct vectors, too many categories for the auditor's search to be quick).
    """
    from .audit import audit

    cfg = noise_config(variant, epsilon, c, sensitivity, **params)
    q1 = _check_queries(queries, "queries")
    q2 = _check_queries(queries_neighbour, "queries_neighbour")
    if q1.shape != q2.shape:
        raise ValueError("queries and queries_neighbour must have the same length")
    t = _check_threshold(threshold, q1.size)
    if np.max(np.abs(q1 - q2)) > sensitivity * (1 + 1e-12):
        raise ValueError("queries and queries_neighbour differ by more than the sensitivity: not neighbours")

    def mech(data, n, g):
        return _simulate(cfg, data, t, n, g)

    if categories == "auto":
        categories = "vectors" if cfg.cutoff is not None else "counts"
    if categories not in ("vectors", "counts"):
        raise ValueError(f"categories must be 'auto', 'vectors' or 'counts', got {categories!r}")
    if categories == "counts":
        if cfg.numeric is not None:
            raise ValueError("categories='counts' is for variants that output only ⊤/⊥")
        groups = np.sign(q1 - q2)
        cols = [groups == g for g in (1.0, -1.0, 0.0)]

        def count_statistic(out):
            top = np.nan_to_num(np.asarray(out, dtype=float)) == 1
            return np.stack([top[:, k].sum(axis=1) for k in cols], axis=1).astype(float)

        return audit(mech, q1, q2, epsilon, n_samples=n_samples, statistic=count_statistic, rng=rng)
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

    return audit(mech, q1, q2, epsilon, n_samples=n_samples, statistic=statistic, rng=rng)


def decode_event(codes, m):
    """Turn the integer codes of :func:`audit_variant`'s event back into output vectors (one row each).

    Entries: 0 (⊥), 1 (⊤), NaN (halted), and for released numbers −1 (value <= T_i) / −2 (value > T_i).
    """
    m = check_positive_int(m, "m")
    c = np.rint(np.atleast_1d(np.asarray(codes, dtype=float))).astype(np.int64)
    dig = (c[:, None] // (5 ** np.arange(m))[None, :]) % 5
    lut = np.array([0.0, 1.0, np.nan, -1.0, -2.0])
    return lut[dig]


def counterexample(variant, m=10):
    """The neighbouring answer vectors and output the chapter uses for ``variant`` (spec §2.4), at Δ = 1, T = 0.

    Returns a dict with ``queries`` (q(D)), ``queries_neighbour`` (q(D')), ``output``, ``upper`` (for
    Alg. 19's numeric event, else None), ``c``, ``name`` (C1–C4) and ``description``.

    * ``stoddard_2014``: C1, q(D) = (0, 1), q(D') = (1, 0), output (⊥, ⊤).
    * ``roth_2011``: C2 with ℓ = 4, q(D) = 0^4, q(D') = (1, 1, 1, 0), event ⊥⊥⊥ then a released number <= 0.
    * ``lee_clifton_2014``, ``chen_2015`` and the correct ``lyu_su_li``, ``standard``: C3, m pinning queries
      q(D) = (0^m, 1), q(D') = (1^m, 0), output (⊥^m, ⊤), c = 1.
    * ``dwork_roth_2014``: C3 with k = c = 2 (so the threshold redraw is exercised).
    * ``gptt``: C4 with t = 5 pairs, q(D) = (0,1)^5, q(D') = (1,0)^5, output (⊥,⊤)^5.
    """
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {sorted(VARIANTS)}, got {variant!r}")
    m = check_positive_int(m, "m", minimum=0)
    if variant == "stoddard_2014":
        return {"name": "C1", "queries": np.array([0.0, 1.0]), "queries_neighbour": np.array([1.0, 0.0]),
                "output": np.array([0.0, 1.0]), "upper": None, "c": 1,
                "description": "q(D)=(0,1), q(D')=(1,0), output (⊥,⊤)"}
    if variant == "roth_2011":
        return {"name": "C2", "queries": np.zeros(4), "queries_neighbour": np.array([1.0, 1.0, 1.0, 0.0]),
                "output": np.array([0.0, 0.0, 0.0, 1.0]), "upper": np.array([np.inf, np.inf, np.inf, 0.0]), "c": 1,
                "description": "q(D)=0^4, q(D')=(1,1,1,0), output ⊥⊥⊥ then a released number <= 0"}
    if variant == "gptt":
        return {"name": "C4", "queries": np.tile([0.0, 1.0], 5), "queries_neighbour": np.tile([1.0, 0.0], 5),
                "output": np.tile([0.0, 1.0], 5), "upper": None, "c": 1,
                "description": "q(D)=(0,1)^5, q(D')=(1,0)^5, output (⊥,⊤)^5"}
    k = 2 if variant == "dwork_roth_2014" else 1
    return {"name": "C3", "queries": np.r_[np.zeros(m), np.ones(k)], "queries_neighbour": np.r_[np.ones(m), np.zeros(k)],
            "output": np.r_[np.zeros(m), np.ones(k)], "upper": None, "c": k,
            "description": f"q(D)=(0^{m},1^{k}), q(D')=(1^{m},0^{k}), output (⊥^{m},⊤^{k}), c={k}"}


def three_views(variant, epsilon=1.0, *, n_mc=400_000, n_audit=None, rng=None, m=10):
    """The three views of the chapter on :func:`counterexample` ``(variant)`` at the claimed ``epsilon``:

    the exact ln R (:func:`privacy_loss`), a Monte Carlo estimate of both probabilities and of ln R
    (``n_mc`` runs on each input), and the auditor's p-value (:func:`audit_variant`, ``n_audit`` samples
    per input and batch; default 200,000 for ``roth_2011`` whose event is rare, 50,000 otherwise).
    Returns a dict.
    """
    ce = counterexample(variant, m)
    rng = check_rng(rng)
    args = (0.0, epsilon, ce["c"], ce["output"])
    p1 = output_probability(variant, ce["queries"], *args, upper=ce["upper"])
    p2 = output_probability(variant, ce["queries_neighbour"], *args, upper=ce["upper"])
    lr = privacy_loss(variant, ce["queries"], ce["queries_neighbour"], *args, upper=ce["upper"])
    mc1, h1, _ = monte_carlo_probability(variant, ce["queries"], *args, n_runs=n_mc, rng=rng, upper=ce["upper"])
    mc2, h2, _ = monte_carlo_probability(variant, ce["queries_neighbour"], *args, n_runs=n_mc, rng=rng,
                                         upper=ce["upper"])
    mc_lr = math.log(mc1 / mc2) if h1 > 0 and h2 > 0 else (math.inf if h1 > 0 else math.nan)
    if n_audit is None:
        n_audit = 200_000 if variant == "roth_2011" else 50_000
    res = audit_variant(variant, ce["queries"], ce["queries_neighbour"], 0.0, epsilon, ce["c"], n_samples=n_audit,
                        rng=rng)
    return {"variant": variant, "case": ce["name"], "description": ce["description"], "p_D": p1, "p_Dn": p2,
            "lnR": lr, "mc_p_D": mc1, "mc_p_Dn": mc2, "mc_hits": (h1, h2), "mc_lnR": mc_lr, "n_mc": n_mc,
            "audit": res, "audit_p": res.p_value, "epsilon": float(epsilon)}


# ---------------------------------------------------------------------------------------------------
# §5.2.3: the flawed GPTT proof, evaluated
# ---------------------------------------------------------------------------------------------------
def gptt_proof_argument(t, epsilon=1.0, kind="gptt"):
    """Evaluate the GPTT proof's bound κ(t)^t/2 next to the true ratio (thesis §5.2.3, spec §2.5).

    ``kind="gptt"``: GPTT with ε1 = ε2 = ε/2 on t pairs q(D) = (0,1)^t, q(D') = (1,0)^t, output (⊥,⊤)^t.
    ``kind="lyu_su_li"``: the chapter's reductio, Alg. 17 with c = 1 on q(D) = 0^t, q(D') = 1^t, output ⊥^t.

    Returns a dict with ``alpha`` (= Pr[A(D') = a]), ``delta`` (the proof's interval half-width),
    ``kappa`` (min of the integrand ratio on [−δ, δ]), ``log_bound`` (= t ln κ − ln 2, the proof's lower
    bound on ln R) and ``log_ratio`` (the exact ln R).

    The chain of inequalities is valid; the published step that fails in general is "κ > 1, so κ^t/2
    grows without bound", because δ, hence κ, depend on t. For Alg. 17, κ(z) = F(z)/F(z−1) -> 1 as
    z -> ∞, so κ(t) -> 1 and the bound never exceeds ε/2 (Lemma 4). For GPTT, however, κ(z) >= e^{ε2}
    for every z (it tends to e^{ε2} in both tails, not to 1 as the thesis says): ln κ(z) is the integral
    over [z−1, z] of f/F + f/(1−F), and for Laplace noise one of the two terms equals ε2 at every point
    (f/F on the left half-line, f/(1−F) on the right). So the bound t·ε2 − ln 2 does diverge, and even
    ln R >= t·ε2 holds without restricting to [−δ, δ]: [74]'s argument has a gap, but the gap closes.
    [DERIVED; checked in tests/test_svt.py]
    """
    t = check_positive_int(t, "t")
    eps = check_epsilon(epsilon)
    if kind == "gptt":
        qd = np.tile([0.0, 1.0], t)
        qn = np.tile([1.0, 0.0], t)
        out = np.tile([0.0, 1.0], t)
        la = output_probability("gptt", qn, 0.0, eps, 1, out, log=True)
        lb = output_probability("gptt", qd, 0.0, eps, 1, out, log=True)
        b_rho = b_nu = 2.0 / eps

        def log_kappa(z):
            return (_log_cdf(z, b_nu) + _log_sf(z - 1, b_nu)) - (_log_cdf(z - 1, b_nu) + _log_sf(z, b_nu))

        alpha = math.exp(la)
        delta = b_rho * math.log(2.0 / alpha)  # |F_ρ^{-1}(α/4)|: ρ-mass outside [−δ, δ] is α/2
    elif kind == "lyu_su_li":
        qd = np.zeros(t)
        qn = np.ones(t)
        out = np.zeros(t)
        la = output_probability("lyu_su_li", qn, 0.0, eps, 1, out, log=True)
        lb = output_probability("lyu_su_li", qd, 0.0, eps, 1, out, log=True)
        b_rho, b_nu = 2.0 / eps, 4.0 / eps

        def log_kappa(z):
            return _log_cdf(z, b_nu) - _log_cdf(z - 1, b_nu)

        alpha = math.exp(la)
        delta = b_rho * math.log(2.0 / alpha)  # ∫_{−δ}^{δ} p_ρ >= 1 − α/2
    else:
        raise ValueError(f"kind must be 'gptt' or 'lyu_su_li', got {kind!r}")
    zs = np.linspace(-delta, delta, 20001)
    lk = float(np.min(log_kappa(zs)))
    return {"t": t, "alpha": alpha, "delta": delta, "kappa": math.exp(lk), "log_bound": t * lk - math.log(2.0),
            "log_ratio": lb - la}


# ---------------------------------------------------------------------------------------------------
# §5.4: SVT vs the exponential mechanism for top-c selection
# ---------------------------------------------------------------------------------------------------
def _check_beta(beta):
    if not isinstance(beta, numbers.Real) or isinstance(beta, bool) or not 0 < beta < 1:
        raise ValueError(f"beta must be a number in (0, 1), got {beta!r}")
    return float(beta)


def _check_k(k, minimum):
    try:
        kk = np.asarray(k, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"k must be a number of queries >= {minimum}") from None
    if not np.all(np.isfinite(kk)) or np.any(kk < minimum):
        raise ValueError(f"k must be a number of queries >= {minimum}, got {k!r}")
    return kk


def alpha_svt(k, beta, epsilon):
    """α for which SVT (Dwork & Roth Thm 3.24, c = Δ = 1) is (α, β)-accurate on k queries: 8(ln k + ln(2/β))/ε."""
    eps = check_epsilon(epsilon)
    k = _check_k(k, 1)
    beta = _check_beta(beta)
    return 8 * (np.log(k) + math.log(2 / beta)) / eps


def alpha_em(k, beta, epsilon):
    """α for which EM picks the single query above T + α among k with probability >= 1 − β (§5.4):
    (ln(k−1) + ln((1−β)/β))/ε (c = Δ = 1)."""
    eps = check_epsilon(epsilon)
    k = _check_k(k, 2)
    beta = _check_beta(beta)
    return (np.log(k - 1) + math.log((1 - beta) / beta)) / eps


def zipf_scores(n_items=10_000, total=1_000_000):
    """The synthetic Zipf item counts of §5.5 (spec §4.6): s_i = round(total / (H_n · i)), i = 1..n.

    With the defaults s_1 = 102,170, s_50 = 2,043, s_100 = 1,022, s_300 = 341, s_10000 = 10.
    """
    n = check_positive_int(n_items, "n_items")
    i = np.arange(1, n + 1, dtype=float)
    h = np.sum(1.0 / i)
    return np.round(total / (h * i))


def _check_scores(scores, c):
    s = _check_queries(scores, "scores")
    c = check_positive_int(c, "c")
    if c >= s.size:
        raise ValueError(f"c={c} must be smaller than the number of items ({s.size})")
    return s, c


def default_threshold(scores, c):
    """T = (s_(c) + s_(c+1))/2, the midpoint between the c-th and (c+1)-th largest score (§5.5).

    NOT private: it is computed from the data, an experimental shortcut of the thesis.
    """
    s, c = _check_scores(scores, c)
    srt = np.sort(s)[::-1]
    return float((srt[c - 1] + srt[c]) / 2)


def select_top_c(method, scores, c, epsilon, *, n_runs=100, rng=None, ratio=None, increment=0.0, threshold=None,
                 sensitivity=1.0, monotonic=True, max_passes=100_000, ledger=None):
    """Select c items of high score privately, ``n_runs`` times (the experiment of thesis §5.5).

    Parameters
    ----------
    method : {"svt", "dpbook", "retraversal", "em"}
        * ``"svt"``: SVT-S, Alg. 23 (``standard``, ε3 = 0, monotone noise Lap(cΔ/ε2) by default) on the
          items in a fresh random order per run, with ε1:ε2 = 1:``ratio`` (default the optimum
          1:c^(2/3), or 1:(2c)^(2/3) with ``monotonic=False``); may return fewer than c items.
        * ``"dpbook"``: SVT-DPBook, Alg. 18 in a random order per run.
        * ``"retraversal"``: SVT-ReTr, SVT-S with threshold ``T + increment·b_ν`` (b_ν = cΔ/ε2 the
          Laplace scale of the query noise, "1D" in the thesis's tables), passing again over the
          not-yet-selected items (fresh ν, same ρ, fresh random order) until c are selected.
        * ``"em"``: c rounds of the exponential mechanism at ε/c each without replacement, weights
          exp(ε·s_i/(cΔ)) (monotone) or exp(ε·s_i/(2cΔ)); sampled exactly by the Gumbel top-c trick.
    scores : array_like
        Item scores (counting queries: Δ = 1, monotonic under add/remove).
    threshold : float, optional
        Default :func:`default_threshold` (computed from the data, NOT private, as in the thesis). The SVT
        methods are ε-DP only with a public threshold, so a ``ledger`` is refused (``ValueError``) unless
        ``threshold`` is given explicitly.

    Returns
    -------
    ndarray, shape (n_runs, c), int
        Selected item indices, padded with −1 where a run selected fewer than c.
    """
    s, c = _check_scores(scores, c)
    eps = check_epsilon(epsilon)
    n = check_positive_int(n_runs, "n_runs")
    sens = check_sensitivity(sensitivity)
    if sens <= 0:
        raise ValueError("sensitivity must be > 0")
    if method not in ("svt", "dpbook", "retraversal", "em"):
        raise ValueError(f"method must be 'svt', 'dpbook', 'retraversal' or 'em', got {method!r}")
    if not isinstance(increment, numbers.Real) or not np.isfinite(increment) or increment < 0:
        raise ValueError(f"increment must be a finite number >= 0, got {increment!r}")
    rng = check_rng(rng)
    m = s.size
    if method == "em":
        factor = 1.0 if monotonic else 2.0
        logits = eps * s / (factor * c * sens)
        if ledger is not None:
            ledger.record(f"exponential mechanism, {c} rounds without replacement" +
                          (f" (x{n} runs)" if n > 1 else ""), n * eps, 0.0, sens)
        sel = np.empty((n, c), dtype=np.int64)
        rows = max(1, 2_000_000 // m)
        for a in range(0, n, rows):
            b = min(n, a + rows)
            g = logits[None, :] + rng.gumbel(size=(b - a, m))
            top = np.argpartition(-g, c - 1, axis=1)[:, :c]
            order = np.argsort(-np.take_along_axis(g, top, axis=1), axis=1)  # selection order
            sel[a:b] = np.take_along_axis(top, order, axis=1)
        return sel
    if threshold is None:
        if ledger is not None:
            raise ValueError("threshold=None uses default_threshold, which is computed from the data without "
                             "privacy: pass a public threshold explicitly to charge the run to a ledger")
        T = default_threshold(s, c)
    else:
        if not isinstance(threshold, numbers.Real) or isinstance(threshold, bool):
            raise ValueError(f"threshold must be a finite number, got {threshold!r}")
        T = float(threshold)
    if not np.isfinite(T):
        raise ValueError("threshold must be finite")
    if method == "dpbook":
        cfg = noise_config("dwork_roth_2014", eps, c, sens)
    else:
        kw = {"monotonic": bool(monotonic)}
        if ratio is not None:
            kw["ratio"] = ratio
        cfg = noise_config("standard", eps, c, sens, **kw)
    if ledger is not None:
        for name, e in cfg.budget:
            ledger.record(f"svt[{method}] {name}" + (f" (x{n} runs)" if n > 1 else ""), n * e, 0.0, sens)
    if method == "dpbook":  # the threshold is redrawn after every ⊤, so the order matters: simulate it
        perm = np.argsort(rng.random((n, m)), axis=1)
        out = _simulate(cfg, s[perm], np.full(m, T), n, rng)
        hit = out == 1
        sel = np.full((n, c), -1, dtype=np.int64)
        k = np.cumsum(hit, axis=1) - 1
        r, col = np.nonzero(hit)
        sel[r, k[r, col]] = perm[r, col]
        return sel
    # SVT-S and retraversal: the set of positives of a pass does not depend on the order (ρ fixed, every ν_i
    # independent), so a random order only decides WHICH positives fill the last free slots: a uniform
    # random subset of them. SVT-S is a single pass (it may select fewer than c).
    if method == "svt":
        T2, max_passes = T, 1
    else:
        T2 = T + increment * cfg.b_nu
    rho = rng.laplace(0.0, cfg.b_rho, size=n)
    chosen = np.zeros((n, m), dtype=bool)
    count = np.zeros(n, dtype=np.int64)
    sel = np.full((n, c), -1, dtype=np.int64)
    for p in range(max_passes):
        act = np.flatnonzero(count < c)
        if act.size == 0:
            break
        x = rng.laplace(0.0, cfg.b_nu, size=(act.size, m))
        x += s
        pos = x >= (T2 + rho[act])[:, None]
        pos &= ~chosen[act]
        r, j = np.nonzero(pos)
        if r.size == 0:
            continue
        # a fresh random order of this pass: sort the positives of each row by a uniform key
        order = np.lexsort((rng.random(r.size), r))
        r, j = r[order], j[order]
        rank = np.arange(r.size) - np.searchsorted(r, np.arange(act.size))[r]
        keep = rank < (c - count[act])[r]
        r, j, rank = r[keep], j[keep], rank[keep]
        rows = act[r]
        sel[rows, count[rows] + rank] = j
        chosen[rows, j] = True
        count[act] += np.bincount(r, minlength=act.size)
    else:
        if method == "retraversal" and np.any(count < c):
            raise RuntimeError(f"retraversal did not select c={c} items within {max_passes} passes")
    return sel


def selection_metrics(scores, selected, c):
    """Score error rate and miss rate of top-c selections (thesis §5.5.1).

    SER = 1 − sum(s[S]) / sum(s[Top_c]) (= 1 − avgScore(S)/avgScore(Top_c) with a missing slot scoring
    0, so SER ∈ [0, 1]); miss rate (FNR) = fraction of the true top-c not selected. ``selected`` is
    ``(n_runs, c)`` with −1 for empty slots. Returns ``(ser, miss)`` arrays of length n_runs.
    """
    s, c = _check_scores(scores, c)
    sel = np.asarray(selected)
    if sel.ndim != 2 or sel.shape[1] != c:
        raise ValueError(f"selected must have shape (n_runs, {c})")
    if not np.issubdtype(sel.dtype, np.integer) or np.any(sel < -1) or np.any(sel >= s.size):
        raise ValueError(f"selected must hold item indices in [0, {s.size}) or -1 for an empty slot")
    top = np.argsort(-s, kind="stable")[:c]
    best = s[top].sum()
    val = np.where(sel >= 0, s[np.maximum(sel, 0)], 0.0)
    ser = 1 - val.sum(axis=1) / best
    is_top = np.zeros(s.size, dtype=bool)
    is_top[top] = True
    hit = np.where(sel >= 0, is_top[np.maximum(sel, 0)], False)
    miss = 1 - hit.sum(axis=1) / c
    return ser, miss


#: Zipf rows of the thesis's Tables 5.4 (ε = 0.1) and 5.6 (ε = 0.5): mean SER over 100 runs, per method;
#: None marks a cell lost in the PDF conversion (spec §4.5).
ZIPF_METHODS = ("DPBook", "S 1:1", "S 1:3", "S 1:c", "S 1:c^(2/3)", "ReTr 1D", "ReTr 2D", "ReTr 3D", "EM")
THESIS_ZIPF_SER = {
    (0.1, 50): (.957, .917, .832, .665, .711, .423, .164, .090, .082),
    (0.1, 100): (.969, .960, .955, .924, .944, .876, .750, .404, .262),
    (0.1, 150): (.952, .952, .958, .922, .936, .896, .765, .468, .355),
    (0.1, 200): (.947, .946, .948, .898, .940, .887, .769, .468, .412),
    (0.1, 300): (.937, .939, .933, .874, .928, .867, .719, .485, .481),
    (0.5, 50): (.426, .034, .011, .022, None, .004, .002, .009, .000),
    (0.5, 100): (.919, .808, .571, .353, None, .090, .035, .036, .033),
    (0.5, 150): (.935, .916, .864, .745, .784, .570, .232, .114, .111),
    (0.5, 200): (.932, .919, .896, .848, None, .734, .435, .173, .170),
    (0.5, 300): (.903, .912, .899, .832, .907, .767, .484, .247, .247),
}


def _zipf_method(label, c):
    return {"DPBook": ("dpbook", {}), "S 1:1": ("svt", {"ratio": 1.0}), "S 1:3": ("svt", {"ratio": 3.0}),
            "S 1:c": ("svt", {"ratio": float(c)}), "S 1:c^(2/3)": ("svt", {"ratio": c ** (2.0 / 3.0)}),
            "ReTr 1D": ("retraversal", {"increment": 1.0}), "ReTr 2D": ("retraversal", {"increment": 2.0}),
            "ReTr 3D": ("retraversal", {"increment": 3.0}), "EM": ("em", {})}[label]


def zipf_experiment(settings, methods=ZIPF_METHODS, *, n_runs=100, rng=None, scores=None):
    """SER (mean, std) and miss rate (mean) of every method at every ``(epsilon, c)`` in ``settings``.

    Reproduces the Zipf rows of thesis Tables 5.4/5.6 (spec §4.6) on :func:`zipf_scores`: SVT-S is
    ``standard`` with monotone noise and ε1:ε2 = 1:ratio; ReTr uses 1:c^(2/3) and the threshold raised by
    k·b_ν; EM is c rounds at ε/c without replacement. Returns ``{(eps, c): {method: (ser_mean, ser_std,
    miss_mean)}}``.
    """
    rng = check_rng(rng)
    s = zipf_scores() if scores is None else _check_queries(scores, "scores")
    out = {}
    for eps, c in settings:
        row = {}
        for label in methods:
            if label not in ZIPF_METHODS:
                raise ValueError(f"unknown method {label!r}; choose from {ZIPF_METHODS}")
            method, kw = _zipf_method(label, c)
            sel = select_top_c(method, s, c, eps, n_runs=n_runs, rng=rng, **kw)
            ser, miss = selection_metrics(s, sel, c)
            row[label] = (float(ser.mean()), float(ser.std()), float(miss.mean()))
        out[(eps, c)] = row
    return out
