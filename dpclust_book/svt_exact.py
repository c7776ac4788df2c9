"""Exact output probabilities of the Sparse Vector Technique, and its auditor (thesis ch. 5, Eq. 5.5).

The book's chapter 6 checks each SVT variant of :mod:`dpclust_core.svt` against its claim in three views: the
exact probability of an output vector, a Monte Carlo estimate of it, and the foundation's auditor. They are
analysis tools, not releases, so they live with the book; the variants themselves and their simulator
(:func:`dpclust_core.svt.run`) are the library's.

* :func:`output_probability` — Pr[A(D) = a] by 1-D integration over the threshold noise in log space (master
  formula, Eq. 5.5); :func:`privacy_loss` — the log ratio of that on two neighbouring answer vectors;
* :func:`monte_carlo_probability` and :func:`matches_output` — the same probability estimated from runs of
  :func:`dpclust_core.svt.run`;
* :func:`audit_variant` and :func:`decode_event` — the auditor (:func:`dpclust_core.audit.audit`) on a variant
  at its claimed ε, and its event decoded back into output vectors.
"""
from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import optimize

from dpclust_core._validation import Bool, Data, Int, Options, Rng, RNGLike, check_real, validate_params
from dpclust_core.audit import AuditResult, audit
from dpclust_core.svt import noise_config, run
# the argument checks shared with the simulator (a threshold per query, a bounded number of runs)
from dpclust_core.svt import _check_runs, _check_threshold, _real_array

__all__ = [
    "output_probability",
    "privacy_loss",
    "monte_carlo_probability",
    "matches_output",
    "audit_variant",
    "decode_event",
]

_QUERIES = Data(1)

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

    The formula is for the continuous Laplace noise of the thesis. :func:`~dpclust_core.svt.run` draws exact
    discrete Laplace noise on a grid of about 2^-20 times each scale (floating-point safe), whose probabilities
    differ from these by a relative 1e-6 or less: far below any Monte Carlo error.

    Parameters
    ----------
    variant, queries, threshold, epsilon, c, sensitivity, **params
        As in :func:`~dpclust_core.svt.run`.
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
    """Boolean mask of the rows of :func:`~dpclust_core.svt.run`'s ``outputs`` that equal the pattern ``output``.

    Parameters
    ----------
    outputs : array_like, shape (n_runs, m)
        As returned by :func:`~dpclust_core.svt.run` (NaN for "halted").
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
        out = run(variant, q, t, epsilon, c, sensitivity=sensitivity, n_runs=k, rng=rng, **params)
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
        As in :func:`~dpclust_core.svt.run`; ``epsilon`` is the claim under test.
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
        return run(variant, data, t, epsilon, c, sensitivity=sensitivity, n_runs=n, rng=g, **params)

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
