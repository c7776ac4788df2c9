"""Private bounds of the data: a per-dimension box found with no public range at all.

Every private estimator of the package needs public ``bounds`` (the data domain): the noise is calibrated to
the width of the box, and points outside it are clipped onto it. Reading them off the data (``X.min(0)``,
``X.max(0)``) leaks the extremes — one record at 1e6 moves the box to 1e6 — yet that is what practitioners do
when no domain knowledge is at hand (a question asked again and again in the issue trackers of DP libraries).
:func:`private_bounds` spends a chosen ε to find a box instead.

**The method.** It follows the idea of Tumult Analytics' ``get_bounds`` — look at the magnitudes on
power-of-two bins over a very wide public range, then search finely inside the chosen scale — but every step is
an exponential mechanism (a private quantile, Smith 2011) rather than a noisy histogram: a histogram over 129
bins adds the noise of every bin to its cumulative counts, while the exponential mechanism pays only the
logarithm of the number of candidates. For each column ``x`` of ``X``, five selections:

1. **Scale** ``2^k1``: the octave ``[2^(k-1), 2^k)``, ``k`` in the public range (``2^-64`` to ``2^64`` by
   default), that holds the median of the non-zero magnitudes ``|x|``. The median has the largest margin of any
   quantile (N/2 records on either side), so this, the step with the most candidates, is the most robust.
2. **Centre** ``c``: the median of ``x``, searched on 2^10 equal cells of ``[-2^(k1+1), 2^(k1+1)]``.
3. **Spread** ``2^(k2/2)``: the half-octave holding the 0.85-quantile of the non-zero ``|x - c|``, searched
   from ``2^(k1 - 12)`` to ``2^(k1 + 4)`` (a bounded search: a failure here cannot send the box to 2^60).
4. **Lower and upper edges**: the ``1 - quantile`` and ``quantile`` quantiles of ``x``, each searched on 2^14
   equal cells of ``[c - W, c + W]`` with ``W = 2^(k2/2 + 1.25)``, 2.4 to 3.4 times the 0.85-quantile of the
   deviations (a Gaussian's 99 % deviation is 1.8 times its 85 % one, an exponential's about 3 times); values
   beyond the window count as below / above every cell. The box edges are the outer edges of the chosen cells.

Exact zeros (magnitudes below ``2^lo``) are left out of steps 1 and 3, so a column that is mostly zeros
(pixel intensities, amounts) still gets the scale of its non-zero values. Centring (steps 2–3) makes the method
work on data far from 0 relative to their spread (coordinates, years), where a box searched in ``[-R, R]`` would
waste most of its candidates.

**Sensitivity; N is never needed.** Every quality is a rank distance ``-|(1 - p) #{below} - p #{above}|``
(or, for an octave, the distance from the octave to the quantile), which compares the counts on the two sides of
a candidate. Adding or removing one record changes one of them by one, so the sensitivity is ``max(p, 1 - p)``
and N itself is never used: it stays private and nothing is spent on a noisy count. One record — however
extreme — moves each count by at most one, so a record at 1e6 moves the box no more than any other record.
Each value is snapped to its cell (a fixed function of one record given the earlier, already private,
selections), and every selection is an index drawn exactly (including the uniform cell inside a run of equal
quality): the released edges are computed from the selected indices alone and rounded outwards onto a
power-of-two grid, so the floating-point attack on the Laplace mechanism (Mironov 2012), which reads the data
in the low-order bits of a noisy real number, does not apply.

**Composition.** A record has a value in every column, so the columns are not disjoint parts of the data and
parallel composition does not apply: the budget is split over the d columns by **basic sequential
composition** (evenly by default, or by ``weights``) and within a column over its five adaptive selections.
The result is pure ε-DP (δ = 0) under add/remove-one neighbours. Advanced composition would only pay off for
hundreds of columns and would need a δ; it is not used.

**When it works.** A step succeeds when the quality gap it must detect, times its budget, clearly exceeds the
logarithm of its number of candidates: the scale needs about ``ε_column · N >= 60`` (ε_column = ε/d), the tails
about ``ε_column · (1 - quantile) · N >= 40``; a tail that falls short is drawn nearly uniformly in its window,
which keeps the coverage and costs width (up to about twice the data range). Measured over 20 seeds with the
defaults (fraction of the values inside the box, per column; median width over the true range):

============================================  =============  =============
data                                          ε = 1          ε = 0.1
============================================  =============  =============
2-D Gaussian blobs, N = 5,000                 0.993, 1.21    0.990, 1.33
S1 stand-in, N = 5,000                        0.996, 1.42    0.999, 1.76
blobs far from 0 (lat/lon-like), N = 3,300    0.994, 1.15    0.984, 1.41
============================================  =============  =============

The small bundled scikit-learn sets (iris, wine, breast cancer, diabetes, digits: 150–1,800 records over 4–64
columns) have ``ε_column · N`` of 14–45 at ε = 1 (1.4–4.5 at ε = 0.1): no step can locate their columns
reliably, and the boxes are often far off (0.26–0.77 of the values inside at ε = 1, 0.10–0.15 at ε = 0.1). At
ε = 10 they get 0.96–0.99 inside and widths 0.7–1.7 times the range. Narrowing ``log2_range`` to the plausible
units of the data, giving ``weights`` to the columns that matter, or public domain knowledge is the remedy.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ._validation import (ArrayLike, BadTypeError, RNGLike, _is_int_scalar, budget_shares, check_data,
                          check_epsilon, check_ledger, check_real, check_rng)
from ._validation import check_n_public
from .accounting import PrivacyLedger
from .mechanisms import exponential_mechanism, exponential_mechanism_intervals

__all__ = ["private_bounds"]

#: Number of equal cells each private quantile search is cut into (the resolution of centre and edges).
GRID_CELLS = 2**14
#: Number of equal cells of the median search (the centre only needs to be precise relative to the spread).
CENTRE_CELLS = 2**10
#: The quantile of the non-zero magnitudes ``|x|`` the scale step looks for (the median: the widest margin).
SCALE_QUANTILE = 0.5
#: The quantile of the non-zero deviations ``|x - c|`` the spread step looks for.
SPREAD_QUANTILE = 0.85
#: The spread is searched from ``2^(k1 - SPREAD_BELOW)`` to ``2^(k1 + SPREAD_ABOVE)`` around the scale ``2^k1``.
SPREAD_BELOW, SPREAD_ABOVE = 12, 4
#: The spread is searched on half-octaves (the window then overshoots by a factor of at most sqrt(2)).
SPREAD_BINS_PER_OCTAVE = 2
#: The edge search window is ``c ± 2^(k2 / 2 + MARGIN_OCTAVES)`` for the spread half-octave ``k2``.
MARGIN_OCTAVES = 1.25
#: Below this ``ε·N/d`` (with ``n_public`` given) the scale step is unreliable: :func:`private_bounds` warns.
MIN_EPS_N_PER_COLUMN = 60
#: How ``locate_share`` is split between the scale, centre and spread steps.
LOCATE_SPLIT = (5 / 12, 3 / 12, 4 / 12)
#: The box edges are rounded outwards onto the power-of-two grid ``2^(floor(log2 w) - EDGE_GRID_BITS)`` (w the
#: width of an edge cell), so that they are exact multiples of a power of two chosen from earlier selections.
EDGE_GRID_BITS = 10
_LOG2_LIMIT = 1000  # |log2 scale| allowed in log2_range: 2^(1000 + 6) is still a finite float


# ============================================================================================ one column
def _quantile_quality(below, above, p):
    """Quality ``-|(1 - p) below - p above|`` of a candidate with ``below``/``above`` records on its sides."""
    return -np.abs((1.0 - p) * below - p * above)


def _octave_scores(v, lo, kmin, kmax, s, per_octave=1):
    """Qualities of the candidate scales ``2^(k/B)``, k = kmin..kmax (``B = per_octave``), for the ``s``
    quantile of the non-zero ``|v|``.

    Candidate ``k`` stands for the bin ``[2^((k-1)/B), 2^(k/B))`` (the first one reaching down to ``2^lo``, the
    last one open above); its quality is minus the weighted rank distance from the bin to the quantile,
    ``-max(0, g(lower edge), -g(upper edge))`` with ``g(t) = (1 - s) #{|v| < t} - s #{|v| >= t}``: 0 for the
    bin that holds the quantile. Values below ``2^lo`` (zeros) are left out.
    """
    av = np.abs(v)
    av = av[av >= 2.0**lo]
    if per_octave == 1:
        e = np.frexp(av)[1]  # |v| in [2^(e-1), 2^e), exactly
    else:
        e = np.floor(np.log2(av) * per_octave).astype(np.int64) + 1  # a fixed function of one value
    e = np.clip(e, kmin, kmax)
    cnt = np.bincount(e - kmin, minlength=kmax - kmin + 1)
    incl = np.cumsum(cnt)
    excl = incl - cnt
    n = av.size
    g_low = (1.0 - s) * excl - s * (n - excl)
    g_high = (1.0 - s) * incl - s * (n - incl)
    return -np.maximum(0.0, np.maximum(g_low, -g_high))


def _cell_counts(x, R, cells=GRID_CELLS):
    """Counts of ``x`` snapped to the ``cells`` equal cells of ``[-R, R]``; the last count is of ``x >= R``."""
    w = 2.0 * R / cells
    idx = np.floor((np.clip(x, -R, R) + R) / w)
    idx[x >= R] = cells
    idx = np.clip(idx, 0, cells).astype(np.int64)
    return np.bincount(idx, minlength=cells + 1)


def _runs(scores):
    """Cut the cells into runs of equal quality: (starts, lengths, run qualities)."""
    starts = np.concatenate([[0], np.flatnonzero(np.diff(scores) != 0) + 1])
    lengths = np.diff(np.append(starts, scores.size))
    return starts, lengths, scores[starts]


def _tail_runs(cnt, n, p, upper):
    """Runs of cells with their qualities for the ``p`` quantile.

    Lower edge ``low = e_j`` (cell j's lower edge): records below are those snapped to cells ``< j``. Upper edge
    ``high = e_{j+1}``: records below are those snapped to cells ``<= j``.
    """
    inclusive = np.cumsum(cnt[:-1])
    below = inclusive if upper else np.concatenate([[0], inclusive[:-1]])
    return _runs(_quantile_quality(below, n - below, p))


def _pick_cells(runs, sens, eps, rng, size, ledger, name):
    starts, lengths, quality = runs
    i, off = exponential_mechanism_intervals(quality, lengths, sens, eps, rng, size=size, ledger=ledger, name=name)
    return starts[i] + off  # an exactly uniform cell inside the selected run (its cells all have this quality)


def _bounds_1d(x, eps_steps, q, lo, hi, rng, *, size=None, ledger=None, name="x"):
    """The five selections for one column; ``eps_steps = (scale, centre, spread, lower, upper)`` budgets.

    Returns ``(k1, c, k2, low, high)``: scalars, or arrays of ``size`` independent draws (for simulations and
    audits: the later selections are drawn once per distinct earlier outcome, with ``size`` = its count).
    """
    n = x.size
    s1, s2 = SCALE_QUANTILE, SPREAD_QUANTILE
    k1 = lo + 1 + exponential_mechanism(_octave_scores(x, lo, lo + 1, hi + 1, s1), max(s1, 1 - s1), eps_steps[0],
                                        rng, size=size, ledger=ledger, name=f"{name}: scale of |x| (EM)")
    k1 = np.atleast_1d(k1)
    cs = np.empty(k1.shape)
    for k in np.unique(k1):
        sel = k1 == k
        m = None if size is None else int(sel.sum())
        R = 2.0 ** (int(k) + 1)
        j = _pick_cells(_tail_runs(_cell_counts(x, R, CENTRE_CELLS), n, 0.5, upper=False), 0.5, eps_steps[1], rng,
                        m, ledger, f"{name}: median (EM)")
        cs[sel] = -R + (j + 0.5) * (2.0 * R / CENTRE_CELLS)  # the middle of the cell: exact
    ks = np.empty(k1.shape, dtype=np.int64)
    for k, c in np.unique(np.column_stack([k1, cs]), axis=0):
        sel = (k1 == k) & (cs == c)
        m = None if size is None else int(sel.sum())
        B = SPREAD_BINS_PER_OCTAVE
        kmin, kmax = B * max(int(k) - SPREAD_BELOW, lo + 1), B * (int(k) + SPREAD_ABOVE)
        with np.errstate(over="ignore"):
            dev = np.nan_to_num(np.abs(x - c), posinf=np.finfo(float).max)
        ks[sel] = kmin + exponential_mechanism(_octave_scores(dev, lo, kmin, kmax, s2, B), max(s2, 1 - s2),
                                               eps_steps[2], rng, size=m, ledger=ledger,
                                               name=f"{name}: spread of |x - median| (EM)")
    low = np.empty(k1.shape)
    high = np.empty(k1.shape)
    step = np.empty(k1.shape)
    alpha = 1.0 - q
    for c, k in np.unique(np.column_stack([cs, ks]), axis=0):
        sel = (cs == c) & (ks == k)
        m = None if size is None else int(sel.sum())
        W = 2.0 ** (int(k) / SPREAD_BINS_PER_OCTAVE + MARGIN_OCTAVES)
        w = 2.0 * W / GRID_CELLS
        with np.errstate(over="ignore"):
            cnt = _cell_counts(x - c, W)
        a = _pick_cells(_tail_runs(cnt, n, alpha, upper=False), q, eps_steps[3], rng, m, ledger,
                        f"{name}: lower {alpha:g}-quantile (EM)")
        b = _pick_cells(_tail_runs(cnt, n, q, upper=True), q, eps_steps[4], rng, m, ledger,
                        f"{name}: upper {q:g}-quantile (EM)")
        # the edges, rounded outwards onto a power-of-two grid finer than the cells: computed from the selected
        # indices and the earlier selections only (post-processing), and on a grid whatever their value
        step[sel] = 2.0 ** (math.frexp(w)[1] - 1 - EDGE_GRID_BITS)
        low[sel] = np.floor((c + (-W + a * w)) / step[sel]) * step[sel]
        high[sel] = np.ceil((c + (-W + (b + 1) * w)) / step[sel]) * step[sel]
    # post-processing: the two edges are drawn independently and may cross
    lo_e, hi_e = np.minimum(low, high), np.maximum(low, high)
    same = lo_e == hi_e
    if same.any():
        hi_e[same] = lo_e[same] + step[same]
    if size is None:
        return int(k1[0]), float(cs[0]), int(ks[0]), float(lo_e[0]), float(hi_e[0])
    return k1, cs, ks, lo_e, hi_e


# ============================================================================================ checks
def _check_log2_range(log2_range):
    if isinstance(log2_range, (str, bytes)) or not hasattr(log2_range, "__len__") or len(log2_range) != 2:
        raise BadTypeError(f"log2_range must be a pair of integers (lo, hi), got {log2_range!r}")
    lo, hi = log2_range
    if not (_is_int_scalar(lo) and _is_int_scalar(hi)):
        raise BadTypeError(f"log2_range must be a pair of integers (lo, hi), got {log2_range!r}")
    lo, hi = int(lo), int(hi)
    if not (-_LOG2_LIMIT <= lo < hi <= _LOG2_LIMIT):
        raise ValueError(f"log2_range must satisfy -{_LOG2_LIMIT} <= lo < hi <= {_LOG2_LIMIT}, got {log2_range!r}")
    return lo, hi


def _check_weights(weights, d=None):
    if weights is None:
        return None
    if isinstance(weights, (str, bytes)):
        raise BadTypeError("weights must be an array of positive real numbers, got a string")
    raw = np.asarray(weights)
    if raw.dtype.kind not in "iuf":
        raise BadTypeError(f"weights must hold real numbers, got dtype {raw.dtype}")
    w = raw.astype(float)
    if w.ndim != 1 or w.size == 0:
        raise ValueError(f"weights must be a 1-D array with one weight per column, got shape {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise ValueError("weights must be finite and > 0 (one per column)")
    if d is not None and w.size != d:
        raise ValueError(f"weights has {w.size} entries but X has {d} columns")
    return w


def _split_budget(eps, shares):
    """``eps`` split in proportion to ``shares``. The last part is the exact remainder when that is close to its
    intended value (Sterbenz: the remainder is exact when it is at most half of ``eps``), so the ledger adds the
    parts up to exactly ``eps``."""
    total = math.fsum(float(v) for v in shares)
    parts = [eps * (float(v) / total) for v in shares]
    rest = eps - math.fsum(parts[:-1])
    if rest > 0 and abs(rest - parts[-1]) <= 1e-9 * eps:
        parts[-1] = rest
    return parts


# ============================================================================================ public
def private_bounds(X: ArrayLike, epsilon: float, *, quantile: float = 0.99, locate_share: float = 0.6,
                   weights: ArrayLike | None = None, log2_range: tuple[int, int] = (-64, 64),
                   n_public: float | None = None, random_state: RNGLike = None,
                   ledger: PrivacyLedger | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A private box ``(low, high)`` around the data, found with no public range (ε-DP, add/remove-one).

    For every column: a private power-of-two scale of the magnitudes, a private median, a private power-of-two
    spread around it, then private lower and upper quantiles in a window of two to four spreads around the
    median (the module documentation gives the method, the qualities and their sensitivities). One extreme
    record moves the box no more than any other record.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features)
        The private data: finite real numbers.
    epsilon : float
        The total budget, finite and > 0. It is split over the columns by basic sequential composition (a record
        has a value in every column, so parallel composition does not apply): evenly, or in proportion to
        ``weights``.
    quantile : float, default 0.99
        Coverage target per tail, in (0.5, 1): ``high`` estimates the ``quantile``-quantile of each column and
        ``low`` the ``(1 - quantile)``-quantile, so the box holds about ``2·quantile - 1`` of each column (98 % by
        default) and clips the rest. A tail is found when ``(1 - quantile)·N·ε/d`` is above about 40; below that
        its search is nearly uniform over the window and the box comes out up to about twice as wide. A lower
        target (0.95, 0.9) gives a tighter box with little data or budget.
    locate_share : float, default 0.6
        Share of each column's budget spent on locating it (scale 25 %, median 15 %, spread 20 % of the column's
        part at the default), in (0, 1); the rest is halved between the two edges.
    weights : array_like of shape (n_features,), optional
        Positive relative budgets of the columns (default: equal). Give more to the columns whose range matters
        most.
    log2_range : (int, int), default (-64, 64)
        The public range of magnitudes searched, ``2^lo`` to ``2^hi`` (``-1000 <= lo < hi <= 1000``).
        Magnitudes below ``2^lo`` count as zeros; larger ones than ``2^hi`` fall into the last octave. Narrowing
        it to the plausible units of the data makes the scale step more reliable (its cost grows with the
        logarithm of the number of octaves).
    n_public : float, optional
        A public number of records, or one released earlier (a noisy count): used **only** to warn, before
        anything is computed, when ``ε·N/d`` (per column) is below 60, where the scale step cannot locate a
        column reliably and the box may be far off. It never enters the computation of the box.
    random_state : None, int or numpy.random.Generator
        Source of randomness.
    ledger : PrivacyLedger, optional
        A shared ledger: asked for the whole ``epsilon`` **before the data are read** (a refusal raises
        :class:`~dpclust_core.accounting.BudgetExceededError`), then given every selection — five per column,
        named ``"bounds[j]: scale of |x| (EM)"``, ``"bounds[j]: median (EM)"``, ``"bounds[j]: spread of
        |x - median| (EM)"``, ``"bounds[j]: lower 0.01-quantile (EM)"`` and ``"bounds[j]: upper 0.99-quantile
        (EM)"`` — in one group named ``"private_bounds"``, totalling ``epsilon``.

    Returns
    -------
    low, high : ndarray of shape (n_features,)
        Finite floats with ``low < high`` in every column, ready for ``bounds=(low, high)``.

    Notes
    -----
    N is never used: every quality compares the counts on the two sides of a candidate, so nothing is spent on
    a noisy count and no ``n_public`` is needed. The guarantee does not depend on the data being inside
    ``log2_range``; only the accuracy does. With ``ε·N/d`` below about 60 (small data, many columns, small ε)
    the scale step itself is unreliable and the box can be far off: see "When it works" in the module
    documentation.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0.0, 1.0, size=(5000, 2))
    >>> X[0] = 1e6                        # one extreme record does not drag the box
    >>> led = PrivacyLedger(budget_epsilon=1.0)
    >>> low, high = private_bounds(X, 1.0, random_state=0, ledger=led)
    >>> low.shape, bool(np.all(low < -1) and np.all(high > 1) and np.all(high < 10))
    ((2,), True)
    >>> round(led.epsilon, 12), len(led)
    (1.0, 10)
    """
    eps = check_epsilon(epsilon)
    n_hint = None if n_public is None else check_n_public(n_public)
    q = check_real(quantile, "quantile", low=0.5, high=1.0, low_open=True, high_open=True)
    share = check_real(locate_share, "locate_share", low=0.0, high=1.0, low_open=True, high_open=True)
    w = _check_weights(weights)
    lo, hi = _check_log2_range(log2_range)
    rng = check_rng(random_state, "random_state")
    check_ledger(ledger)
    if ledger is not None:
        ledger.require(eps, 0.0, name="private_bounds")  # before the data are read
    X = check_data(X, "X")
    d = X.shape[1]
    w = np.ones(d) if w is None else _check_weights(w, d)
    if n_hint is not None and eps * n_hint / d < MIN_EPS_N_PER_COLUMN:
        warnings.warn(f"private_bounds: epsilon * N / d = {eps * n_hint / d:.3g} is below "
                      f"{MIN_EPS_N_PER_COLUMN}: too few records for this budget to locate the columns reliably; "
                      f"the box may be far off. Use public domain knowledge, a larger epsilon or fewer columns",
                      UserWarning, stacklevel=2)
    parts = []
    for v in w:
        parts += [share * f * v for f in LOCATE_SPLIT] + [0.5 * (1.0 - share) * v] * 2
    eps_steps = _split_budget(eps, parts)
    inner = PrivacyLedger(budget_epsilon=eps)
    low = np.empty(d)
    high = np.empty(d)
    shares = dict(epsilon=eps, locate_share=share, **({} if weights is None else {"weights": weights}))
    try:
        with budget_shares("private_bounds", **shares):
            for j in range(d):  # a loop over columns, never over records
                col = np.ascontiguousarray(X[:, j])
                *_, low[j], high[j] = _bounds_1d(col, eps_steps[5 * j: 5 * j + 5], q, lo, hi, rng, ledger=inner,
                                                 name=f"bounds[{j}]")
    finally:
        if ledger is not None and len(inner):
            ledger.extend(inner, group="private_bounds")
    inner.check()
    return low, high
