"""Empirical auditing of differential privacy, after Ding, Wang, Wang, Zhang & Kifer,
"Detecting Violations of Differential Privacy" (CCS 2018).

An auditor cannot prove that a mechanism is private, but it can catch one that is not. Given a
mechanism ``M``, two neighbouring inputs ``D1`` and ``D2`` and a claimed ``epsilon``, it looks for an
event ``E`` (a set of outputs) with ``Pr[M(D1) ∈ E] > e^epsilon · Pr[M(D2) ∈ E]``:

1. **Event selection.** Run ``M`` ``n_samples`` times on each input, compute the empirical
   probability of every candidate event, and keep the event (and direction) whose one-sided test,
   below, gives the smallest p-value on this first batch.
2. **Hypothesis test on fresh samples.** Run ``M`` ``n_samples`` more times on each input and count
   ``c1 = #{M(D1) ∈ E}``, ``c2 = #{M(D2) ∈ E}``. Under the null hypothesis ``p1 <= e^eps · p2``,
   thinning ``c1`` by ``Binomial(c1, e^-eps)`` gives a count whose rate is at most ``p2``; Fisher's
   exact (hypergeometric) one-sided test of "thinned rate > p2" then gives a valid p-value.

Because the event is chosen on batch 1 and tested on batch 2, the p-value is valid for the event that was
chosen. A small p-value (say < 0.01) is strong evidence that the claim is false. A large one means
only that no violation was found among the candidate events with these sample sizes.

The result also reports an **empirical epsilon lower bound**: ln(p1_low / p2_high) from
Clopper–Pearson intervals at the stated confidence, a value the true epsilon exceeds with that
confidence.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats

from ._validation import (ArrayLike, BadTypeError, Epsilon, Int, Real, Rng, RNGLike, check_int, check_rng,
                          validate_params)

__all__ = ["AuditResult", "audit", "fisher_thinned_pvalue", "epsilon_lower_bound"]

_SHORTLIST = 256  # candidate events given the exact test in the selection step


@dataclass
class AuditResult:
    """Outcome of :func:`audit`.

    Attributes
    ----------
    p_value : float
        One-sided p-value of H0: Pr[M(D1) ∈ E] <= e^ε Pr[M(D2) ∈ E] on the fresh batch.
    event : str
        Description of the selected event E.
    direction : str
        ``"D1>D2"`` or ``"D2>D1"``: which input's probability was tested as the larger.
    epsilon_claimed : float
    epsilon_lower_bound : float
        Empirical lower bound on the true ε (Clopper–Pearson, at ``confidence``).
    counts : tuple
        ``(c1, c2)`` on the fresh batch, in the tested direction.
    n_samples : int
    confidence : float
    candidates : int
        Number of candidate events searched in the selection step.
    details : dict

    Examples
    --------
    >>> res = AuditResult(p_value=1e-9, event="output > 3", direction="D1>D2", epsilon_claimed=1.0,
    ...                   epsilon_lower_bound=1.6, counts=(900, 100), n_samples=1000)
    >>> res.rejects(0.01)
    True
    """

    p_value: float  #: one-sided p-value of H0: Pr[M(D1)∈E] <= e^eps Pr[M(D2)∈E], on the fresh batch
    event: str  #: description of the selected event E
    direction: str  #: "D1>D2" or "D2>D1": which input's probability was tested as the larger
    epsilon_claimed: float
    epsilon_lower_bound: float  #: empirical lower bound on the true epsilon (Clopper–Pearson)
    counts: tuple  #: (c1, c2) on the fresh batch, in the tested direction
    n_samples: int
    confidence: float = 0.95
    candidates: int = 0  #: number of candidate events searched in the selection step
    details: dict = field(default_factory=dict)

    def rejects(self, alpha: float = 0.01) -> bool:
        """True if the claimed epsilon is rejected at level ``alpha``."""
        return self.p_value < alpha

    def __str__(self) -> str:
        verdict = "VIOLATION" if self.rejects(0.01) else "no violation found"
        return (f"audit at eps={self.epsilon_claimed:g}: p={self.p_value:.3g} ({verdict}); "
                f"event {self.event} [{self.direction}], counts {self.counts} of {self.n_samples}; "
                f"empirical eps >= {self.epsilon_lower_bound:.3f} ({self.confidence:.0%} conf.)")


#: A probability (the confidence of an interval) and a δ in [0, 1).
_CONFIDENCE, _DELTA = Real(0.0, 1.0, low_open=True, high_open=True), Real(0.0, 1.0, high_open=True)


def _counts(x, name, n, *, scalar=False):
    """Integer counts in [0, n] (a scalar, or an array unless ``scalar``), refusing anything else by name."""
    if isinstance(x, (str, bytes)):
        raise BadTypeError(f"{name} must be a count (an integer in [0, n]), got a string")
    if scalar:
        if isinstance(x, np.ndarray) and x.ndim == 0:
            x = x[()]
        return check_int(x, name, 0, n)
    try:
        a = np.asarray(x)
    except (TypeError, ValueError):
        raise BadTypeError(f"{name} must be integer counts in [0, n]") from None
    if a.dtype.kind not in "iuf":
        raise BadTypeError(f"{name} must be integer counts in [0, n], got dtype {a.dtype}")
    if not np.all(np.isfinite(a)) or np.any(a != np.round(a)) or np.any(a < 0) or np.any(a > n):
        raise ValueError(f"{name} must be integer counts in [0, n={n}], got {x!r:.60}")
    return a.astype(np.int64)


@validate_params(n=Int(1), epsilon=Real(0.0))
def fisher_thinned_pvalue(c1: int | ArrayLike, c2: int | ArrayLike, n: int, epsilon: float, rng: RNGLike = None,
                          thinned: int | ArrayLike | None = None) -> float | np.ndarray:
    """One-sided p-value for H0: p1 <= e^eps p2, from counts ``c1, c2`` out of ``n`` draws each.

    ``c1`` is thinned by Binomial(c1, e^-eps) (drawn from ``rng``) unless ``thinned`` is given, then
    Fisher's exact test asks whether the thinned count is significantly larger than ``c2``:
    p = Pr[X >= c1'] for X ~ Hypergeometric(2n, c1' + c2, n). Vectorised over arrays of counts.

    Parameters
    ----------
    c1, c2 : int or array_like of int
        Counts of the event among the ``n`` draws on each input (``c1`` may be None when ``thinned`` is
        given).
    n : int
        Draws per input.
    epsilon : float
        The claimed ε (>= 0).
    rng : None, int or numpy.random.Generator
        For the binomial thinning.
    thinned : int or array_like of int, optional
        The thinned count, if already drawn (deterministic thinning in the selection step).

    Returns
    -------
    float or ndarray
        The p-value(s).

    Examples
    --------
    >>> p = fisher_thinned_pvalue(None, 100, 1000, 1.0, thinned=150)
    >>> bool(p < 0.001)
    True
    """
    eps = epsilon
    c2 = _counts(c2, "c2", n)
    if thinned is None:
        c1 = _counts(c1, "c1", n)
        rng = check_rng(rng, "rng")
        thinned = rng.binomial(c1, np.exp(-eps))
    else:
        thinned = _counts(thinned, "thinned", n)
    out = stats.hypergeom.sf(thinned - 1, 2 * n, thinned + c2, n)
    return float(out) if np.ndim(out) == 0 else out


@validate_params(n=Int(1), confidence=_CONFIDENCE, delta=_DELTA)
def epsilon_lower_bound(c1: int, c2: int, n: int, confidence: float = 0.95, delta: float = 0.0) -> float:
    """ln((p1_low - delta) / p2_high) with two-sided Clopper–Pearson bounds at ``confidence``; >= 0.

    Parameters
    ----------
    c1, c2 : int
        Counts of the event among the ``n`` draws on each input.
    n : int
        Draws per input.
    confidence : float
        Confidence level in (0, 1) of the two intervals.
    delta : float
        δ of an (ε, δ) claim, in [0, 1).

    Returns
    -------
    float
        A lower bound on the true ε at that confidence (0 when the data give none).

    Examples
    --------
    >>> round(epsilon_lower_bound(20_000, 5_000, 100_000), 2)
    1.35
    """
    c1 = _counts(c1, "c1", n, scalar=True)
    c2 = _counts(c2, "c2", n, scalar=True)
    a = (1 - confidence) / 2
    p1_low = stats.beta.ppf(a, c1, n - c1 + 1) if c1 > 0 else 0.0
    p2_high = stats.beta.ppf(1 - a, c2 + 1, n - c2) if c2 < n else 1.0
    num = p1_low - delta
    if num <= 0 or p2_high <= 0:
        return 0.0 if num <= 0 else float("inf")
    return float(max(0.0, np.log(num / p2_high)))


def _row_keys(out: np.ndarray) -> np.ndarray:
    """Map every output (a scalar or a row) to an integer category id."""
    a = np.asarray(out, dtype=float)
    if a.ndim == 1:
        a = a[:, None]
    a = np.where(np.isnan(a), 1e300, a)  # NaN gets its own value (the same sentinel as in audit())
    _, inv = np.unique(a, axis=0, return_inverse=True)
    return inv.ravel()


def _continuous_events(s1: np.ndarray, s2: np.ndarray, n_grid: int):
    both = np.concatenate([s1, s2])
    qs = np.unique(np.quantile(both, np.linspace(0.0, 1.0, n_grid + 1)[1:-1]))
    events = []
    for t in qs:
        events.append((f"output > {t:.4g}", lambda x, t=t: x > t))
        events.append((f"output < {t:.4g}", lambda x, t=t: x < t))
    for w in (1, 2, 4):
        for i in range(len(qs) - w):
            a, b = qs[i], qs[i + w]
            events.append((f"{a:.4g} < output <= {b:.4g}", lambda x, a=a, b=b: (x > a) & (x <= b)))
    return events


@validate_params(epsilon=Epsilon(), n_samples=Int(10), n_grid=Int(2, 10_000), delta=_DELTA,
                 confidence=_CONFIDENCE, rng=Rng())
def audit(mechanism: Callable, d1: Any, d2: Any, epsilon: float, *, n_samples: int = 200_000,
          events: Sequence | None = None, statistic: Callable | None = None, n_grid: int = 40,
          delta: float = 0.0, confidence: float = 0.95, rng: RNGLike = None) -> AuditResult:
    """Test the claim "``mechanism`` is ``epsilon``-DP" on the neighbouring inputs ``d1`` and ``d2``.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(data, n, rng)`` returns ``n`` independent outputs on ``data`` in one vectorised call:
        an array of shape ``(n,)`` (scalars) or ``(n, m)`` (vectors; NaN allowed, e.g. "halted").
    d1, d2 : any
        Neighbouring inputs, passed to ``mechanism`` unchanged.
    epsilon : float
        The claimed privacy parameter.
    n_samples : int
        Draws per input per batch (two batches: selection and test), 10 to ``MAX_ALLOCATION``.
    events : sequence of (description, predicate), optional
        Candidate events; ``predicate(outputs)`` returns a boolean mask. If omitted, outputs (after
        ``statistic``, if given) with at most 64 distinct values are treated as categories (events: each
        category, and unions of the categories ranked by their likelihood ratio); 1-D outputs with more
        distinct values get threshold and interval events on an ``n_grid``-quantile grid.
    statistic : callable, optional
        Maps raw outputs to a numeric array of ``n`` rows before the automatic events are built (any
        post-processing of the outputs: a violation found on it is a violation of the mechanism).
    n_grid : int
        Number of quantile cells of the automatic threshold and interval events (2 to 10,000).
    delta : float
        For (epsilon, delta) claims, in [0, 1): the test then uses c1 - delta*n in place of c1
        (conservative).
    confidence : float
        Confidence level of the empirical lower bound on ε, in (0, 1).
    rng : None, int or numpy.random.Generator
        Passed to ``mechanism`` (both batches) and used for the test's thinning.

    Returns
    -------
    AuditResult

    Examples
    --------
    A counting query with the Laplace noise for sensitivity 1 passes; with half that noise it is caught:

    >>> from dpclust_core.mechanisms import laplace_mechanism
    >>> def noisy_count(scale):
    ...     return lambda data, n, rng: laplace_mechanism([float(len(data))] * n, scale, 1.0, rng)
    >>> audit(noisy_count(1.0), [1] * 5, [1] * 6, 1.0, n_samples=20_000, rng=1).rejects(0.01)
    False
    >>> bad = audit(noisy_count(0.5), [1] * 5, [1] * 6, 1.0, n_samples=20_000, rng=1)
    >>> bad.rejects(0.01), bad.epsilon_lower_bound > 1.0
    (True, True)
    """
    if not callable(mechanism):
        raise BadTypeError(f"mechanism must be a callable mechanism(data, n, rng), got {type(mechanism).__name__}")
    eps, n = epsilon, n_samples
    if statistic is not None and not callable(statistic):
        raise BadTypeError(f"statistic must be None or a callable, got {type(statistic).__name__}")
    if events is not None:
        try:
            events = [(str(desc), pred) for desc, pred in events]
        except (TypeError, ValueError):
            raise BadTypeError("events must be a sequence of (description, predicate) pairs") from None
        if not events or not all(callable(pred) for _, pred in events):
            raise ValueError("events must be a non-empty sequence of (description, predicate) pairs with "
                             "callable predicates")

    def as_outputs(out, who):
        try:
            arr = np.asarray(out)
        except (TypeError, ValueError):
            raise ValueError(f"{who} must return an array of {n} outputs") from None
        if arr.ndim == 0 or arr.shape[0] != n:
            got = "a scalar" if arr.ndim == 0 else f"{arr.shape[0]} outputs"
            raise ValueError(f"{who} returned {got}, expected n={n} outputs (one per row)")
        if arr.dtype.kind not in "biuf":
            raise BadTypeError(f"{who} must return numeric outputs, got dtype {arr.dtype}")
        return arr.astype(float) if arr.dtype.kind == "b" else arr

    def draw(data):
        out = as_outputs(mechanism(data, n, rng), "mechanism")
        return as_outputs(statistic(out), "statistic") if statistic is not None else out

    a1, a2 = draw(d1), draw(d2)

    categorical = None
    if events is None:
        keys = _row_keys(np.concatenate([a1, a2]))
        n_cat = int(keys.max()) + 1
        if n_cat <= 64 or np.asarray(a1).ndim > 1:
            categorical = True
            if n_cat > 10_000:
                raise ValueError("outputs take too many distinct values; pass `statistic` or `events`")
            # remember the category values so the test batch is mapped identically
            allv = np.concatenate([a1, a2])
            allv = allv[:, None] if allv.ndim == 1 else allv
            allv = np.where(np.isnan(allv), 1e300, allv)
            cats, first = np.unique(allv, axis=0, return_index=True)
            k1 = keys[:n]
            k2 = keys[n:]
            f1 = np.bincount(k1, minlength=n_cat)
            f2 = np.bincount(k2, minlength=n_cat)
            # candidates, per direction: every single category, and every union of the categories ranked
            # first by likelihood ratio (prefix sets), interleaved as single j, prefix j (j >= 1)
            cand, ca_parts, cb_parts = [], [], []
            for (fa, fb, dirn) in ((f1, f2, "D1>D2"), (f2, f1, "D2>D1")):
                ratio = (fa + 0.5) / (fb + 0.5)
                order = np.argsort(-ratio)
                sa, sb = fa[order], fb[order]
                pa, pb = np.cumsum(sa), np.cumsum(sb)
                lo = np.empty(2 * n_cat - 1, dtype=np.int64)
                hi = np.empty(2 * n_cat - 1, dtype=np.int64)
                lo[0], hi[0] = 0, 1
                lo[1::2], hi[1::2] = 0, np.arange(2, n_cat + 1)  # prefix j = order[:j+1]
                lo[2::2], hi[2::2] = np.arange(1, n_cat), np.arange(2, n_cat + 1)  # single j = order[j:j+1]
                # reorder to single j, prefix j
                idx = np.empty_like(lo)
                idx[0] = 0
                idx[1::2] = np.arange(2, 2 * n_cat - 1, 2)  # singles j >= 1
                idx[2::2] = np.arange(1, 2 * n_cat - 1, 2)  # prefixes j >= 1
                lo, hi = lo[idx], hi[idx]
                ca_parts.append(np.where(lo == 0, pa[hi - 1], sa[lo]))
                cb_parts.append(np.where(lo == 0, pb[hi - 1], sb[lo]))
                cand.extend((dirn, order, int(a), int(b)) for a, b in zip(lo, hi))
            c_a = np.concatenate(ca_parts)
            c_b = np.concatenate(cb_parts)
        else:
            categorical = False
            events = _continuous_events(np.ravel(a1), np.ravel(a2), n_grid)
    if not categorical:
        m1 = np.array([pred(a1) for _, pred in events])
        m2 = np.array([pred(a2) for _, pred in events])
        s1, s2 = m1.sum(axis=1), m2.sum(axis=1)
        cand = [("D1>D2", i) for i in range(len(events))] + [("D2>D1", i) for i in range(len(events))]
        c_a = np.concatenate([s1, s2])
        c_b = np.concatenate([s2, s1])

    # selection: deterministic thinning (the expected thinned count) on batch 1
    sel_thin = np.floor(np.maximum(c_a - delta * n, 0) * np.exp(-eps)).astype(np.int64)
    # The exact test is slow over thousands of candidates: rank them by a normal approximation of the same
    # one-sided comparison and run the exact test on the most promising ones only.
    z = (sel_thin - c_b) / np.sqrt(sel_thin + c_b + 1.0)
    shortlist = np.argsort(-z, kind="stable")[:_SHORTLIST]
    sel_p = np.ones(len(c_a))
    sel_p[shortlist] = fisher_thinned_pvalue(c_a[shortlist], c_b[shortlist], n, eps, thinned=sel_thin[shortlist])
    best = int(np.argmin(sel_p))
    if categorical:
        dirn, order, lo_b, hi_b = cand[best]
        which = order[lo_b:hi_b]
    else:
        dirn, which = cand[best]

    # fresh batch
    b1, b2 = draw(d1), draw(d2)
    if categorical:
        sel_vals = cats[which]

        def in_event(out):
            o = out[:, None] if out.ndim == 1 else out
            o = np.where(np.isnan(o), 1e300, o)
            return (o[:, None, :] == sel_vals[None, :, :]).all(axis=2).any(axis=1)

        desc = "output in {" + ", ".join(
            str(tuple(np.where(v == 1e300, np.nan, v).tolist())) if v.size > 1 else f"{v[0]:g}"
            for v in sel_vals[:6]) + (", ..." if len(sel_vals) > 6 else "") + "}"
    else:
        desc, in_event = events[which]
    e1, e2 = int(in_event(b1).sum()), int(in_event(b2).sum())
    ca, cb = (e1, e2) if dirn == "D1>D2" else (e2, e1)
    ca_adj = int(max(ca - np.ceil(delta * n), 0))
    p = float(fisher_thinned_pvalue(ca_adj, cb, n, eps, rng=rng))
    lb = epsilon_lower_bound(ca, cb, n, confidence=confidence, delta=delta)
    return AuditResult(p_value=p, event=desc, direction=dirn, epsilon_claimed=eps, epsilon_lower_bound=lb,
                       counts=(ca, cb), n_samples=n, confidence=confidence, candidates=len(cand),
                       details={"selection_p_value": float(sel_p[best])})
