"""Private bounds of the data: a per-dimension box found with no public range at all, with a verdict.

Every private estimator of the package needs public ``bounds`` (the data domain): the noise is calibrated to
the width of the box, and points outside it are clipped onto it. Reading them off the data (``X.min(0)``,
``X.max(0)``) leaks the extremes — one record at 1e6 moves the box to 1e6 — yet that is what practitioners do
when no domain knowledge is at hand. :func:`private_bounds` spends a chosen ε to find a box instead, and says
when it could not: a box far off is refused, never handed back silently.

**The method.** It follows the idea of Tumult Analytics' ``get_bounds`` — look at the magnitudes on
power-of-two bins over a very wide public range, then search finely inside the chosen scale — but every step is
an exponential mechanism (a private quantile, Smith 2011) rather than a noisy histogram: a histogram over 129
bins adds the noise of every bin to its cumulative counts, while the exponential mechanism pays only the
logarithm of the number of candidates. For each column ``x`` of ``X``:

0. **Count** of the non-zero values (magnitudes of at least ``2^lo``), with Laplace noise (10 % of the column's
   budget). It feeds the rules below and nothing else.
1. **Scale** ``2^k1``: the octave ``[2^(k-1), 2^k)``, ``k`` in the public range (``2^-64`` to ``2^64`` by
   default), that holds the median of the non-zero magnitudes ``|x|``. The median has the largest margin of any
   quantile (N/2 records on either side), so this, the step with the most candidates, is the most robust.
2. **Centre** ``c``: the median of ``x``, searched on 2^10 equal cells of ``[-2^(k1+1), 2^(k1+1)]``; a cell's
   quality is minus its rank distance to the median, so a value shared by many records (0 in a mostly-zero
   column) is found in its own cell.
3. **Spread** ``2^(k2/2)``: the half-octave holding the 0.85-quantile of the non-zero ``|x - c|``, searched
   from ``2^(k1 - 12)`` to ``2^(k1 + 4)`` — to ``2^(k1 + 12)`` when the count shows enough values to tell a
   far spread from a spurious one (the spread step's weak side is the 15 % of the values above a candidate).
   The **window** is ``[c - W, c + W]`` with ``W = 2^(k2/2 + 1.25)``, 2.4 to 3.4 times the 0.85-quantile of
   the deviations (a Gaussian's 99 % deviation is 1.8 times its 85 % one, an exponential's about 3 times).
4. **Edges**, when the count shows enough values (a tail's budget times ``(quantile - 1/2) N`` at least 60):
   the ``1 - quantile`` and ``quantile`` quantiles of ``x``, each searched on 2^14 equal cells of the window;
   values beyond it count as below / above every cell. Otherwise the window itself is the box, and the whole
   column budget goes to steps 1–3: with little data or budget, fewer and more robust steps.

Exact zeros are left out of steps 1 and 3, so a column that is mostly zeros (pixel intensities, amounts) still
gets the scale of its non-zero values. Centring (steps 2–3) makes the method work on data far from 0 relative
to their spread (coordinates, years), where a box searched in ``[-R, R]`` would waste most of its candidates.

**Sensitivity.** Every quality is a rank distance ``-|(1 - p) #{below} - p #{above}|`` (or, for an octave or a
cell, the distance from the bin to the quantile), which compares the counts on the two sides of a candidate.
Adding or removing one record changes one of them by one, so the sensitivity is ``max(p, 1 - p)``. One record —
however extreme — moves each count by at most one, so a record at 1e6 moves the box no more than any other
record. Each value is snapped to its cell (a fixed function of one record given the earlier, already private,
selections), and every selection is an index: the released edges are computed from the selected indices alone,
so the floating-point attack on the Laplace mechanism (Mironov 2012), which reads the data in the low-order
bits of a noisy real number, does not apply; the counts are released on a power-of-two grid.

**The verdict.** A column is *reliable* when (a) its locating budget (steps 1–3) times a 90 % lower confidence
bound on its non-zero count is at least 60 (with the default ``log2_range`` of 129 octaves; ``60 ln K / ln 129``,
at least 40, for K octaves) — at or above which, over twelve real data sets, one column in 1,210 came out absurd
(covering under half of its values or over 1000 times too wide), against 15 % between 40 and 60 and 29 % between
20 and 30 — and (b) the released selections agree with each other: the median not in the outermost cell of its
grid (it would be beyond the scale), and the spread not at either end of its search range (the search was cut off
there). Both read only ε, the weights, ``quantile``, ``locate_share`` and the releases, never the data, so the
verdict is as private as the releases and costs nothing beyond ``epsilon``. When the counts alone fail (a),
:func:`private_bounds` refuses before locating anything (only the counts are spent); when (b) fails it refuses
with the box attached; with ``on_unreliable="flag"`` it returns the box marked ``reliable=False``, which every
estimator refuses as ``bounds``. The message says what would help: a public range for the columns named, the ε at
which the rule would pass, or how many columns that ε can box.

**Composition.** A record has a value in every column, so the columns are not disjoint parts of the data and
parallel composition does not apply: the budget is split over the d columns by **basic sequential
composition** (evenly by default, or by ``weights``) and within a column over its adaptive releases (the count,
three or five selections). The result is pure ε-DP (δ = 0) under add/remove-one neighbours.

**Dask.** Every step is a histogram of the columns given the earlier releases: on a dask array each block's
histograms are computed on the worker that holds it, summed as exact integers, and the noise is drawn on the
driver — the same release as for the same data in memory and the same seed.

**When it works.** When ``ε N / d`` is above about 85 (``N`` the non-zero values of a column, ``ε / d`` its
budget): the locating rule then passes; the tails are searched once it is above about 700. Measured on real
data sets that ship inside PyPI packages, 10 seeds: the fraction of a column inside its box (median over
columns and seeds) and the box's width over the column's 1–99 % range (median), or "refused" where every run
was refused. Over all the boxes handed back, the lowest coverage of a column was 0.89 and the largest width 9.1
times the range; no run handed back an absurd box. Before this method the same runs were never refused and
52 % of them had a column covered under 50 % or over 1000 times too wide — every run of iris, wine, cars,
diabetes, breast cancer and digits at ε = 0.1 and 0.3, and movies at ε = 0.1 in 9 runs of 10:

==========================  =========================  ==========  ==========
data (N × d)                ε = 0.1                    ε = 0.3     ε = 1
==========================  =========================  ==========  ==========
iris, 150 × 4               refused                    refused     refused
wine, 178 × 13              refused                    refused     refused
cars, 392 × 6               refused                    refused     refused
diabetes, 442 × 10          refused                    refused     refused
breast_cancer, 569 × 30     refused                    refused     refused
seattle-weather, 1,461 × 4  refused                    refused     1.00, 1.75
digits, 1,797 × 64          refused                    refused     refused
airports, 3,376 × 2         0.99, 1.40 (10 % refused)  0.99, 1.40  0.98, 1.09
BudgetFood, 23,972 × 5      1.00, 1.68                 0.99, 1.25  0.99, 1.07
diamonds, 53,940 × 7        0.99, 1.22                 0.99, 1.16  0.98, 1.00
movies, 58,788 × 21         refused                    refused     0.99, 1.07
mhtdata, 159,312 × 6        1.00, 1.61                 0.99, 1.36  0.99, 1.28
==========================  =========================  ==========  ==========

A refusal is the honest answer for the small sets at these budgets: their columns cannot be located privately.
What helps, in order: a public range for the columns (domain knowledge, units — even a generous one), fewer
columns, ``weights`` that favour the columns that matter, a larger ε, or a narrower ``log2_range``.
"""
from __future__ import annotations

import html
import math
from typing import Any

import numpy as np

from ._validation import (ArrayLike, BadTypeError, Epsilon, EpsilonTooSmallError, Ledger, NPublic, Options, Real,
                          Rng, RNGLike, _is_int_scalar, budget_shares, check_data, is_dask_array,
                          read_dask_rows, validate_params)
from .accounting import PrivacyLedger
from .mechanisms import exponential_mechanism, exponential_mechanism_intervals, laplace_grid, laplace_mechanism

__all__ = ["private_bounds", "PrivateBox", "BoundsDiagnostics", "UnreliableBoundsError"]

#: Number of equal cells each private quantile search is cut into (the resolution of the edges).
GRID_CELLS = 2**14
#: Number of equal cells of the median search (the centre only needs to be precise relative to the spread).
CENTRE_CELLS = 2**10
#: The quantile of the non-zero magnitudes ``|x|`` the scale step looks for (the median: the widest margin).
SCALE_QUANTILE = 0.5
#: The quantile of the non-zero deviations ``|x - c|`` the spread step looks for.
SPREAD_QUANTILE = 0.85
#: The spread is searched from ``2^(k1 - SPREAD_BELOW)`` to ``2^(k1 + SPREAD_ABOVE)`` around the scale ``2^k1``.
#: ``SPREAD_ABOVE`` is 4, or 12 when the spread step has at least ``SPREAD_EVIDENCE`` nats of evidence against
#: a too-wide candidate (``ε_spread (1 - s) N / (2 s)``, ``s = SPREAD_QUANTILE``, N the non-zero count's lower
#: bound): its weak side is the ``1 - s`` share of the values above the candidate.
SPREAD_BELOW, SPREAD_ABOVE, SPREAD_ABOVE_WIDE, SPREAD_EVIDENCE = 12, 4, 12, 10.0
#: The spread is searched on half-octaves (the window then overshoots by a factor of at most sqrt(2)).
SPREAD_BINS_PER_OCTAVE = 2
#: The window is ``c ± 2^(k2 / 2 + MARGIN_OCTAVES)`` for the spread half-octave ``k2``.
MARGIN_OCTAVES = 1.25
#: The edges are searched in a window ``2^TAIL_WINDOW_OCTAVES`` times as wide (heavy tails reach beyond it).
TAIL_WINDOW_OCTAVES = 0
#: How the locating budget is split between the scale, centre and spread steps.
LOCATE_SPLIT = (5 / 12, 3 / 12, 4 / 12)
#: The box edges are rounded outwards onto the power-of-two grid ``2^(floor(log2 w) - EDGE_GRID_BITS)`` (w the
#: width of an edge cell of the window), so that they are exact multiples of a power of two chosen from earlier
#: selections only.
EDGE_GRID_BITS = 10
#: Share of each column's budget spent on the noisy count of its non-zero values.
COUNT_SHARE = 0.1
#: The noisy count is lowered to a one-sided lower confidence bound of this level before any rule uses it.
COUNT_CONFIDENCE = 0.9
#: A column is located reliably when its locating budget times N is at least this much.
LOCATE_SIGNAL = 60.0
#: With a narrower ``log2_range`` (K octaves instead of 129) the threshold is ``LOCATE_SIGNAL ln K / ln 129``, but
#: at least this: the scale step's cost grows with ``ln K``, the other steps' does not.
LOCATE_SIGNAL_MIN = 40.0


def _needed(lo, hi):
    """The locating signal a column needs with the public range of magnitudes ``2^lo`` to ``2^hi``."""
    k = hi - lo + 1
    return LOCATE_SIGNAL if k == 129 else max(LOCATE_SIGNAL_MIN, LOCATE_SIGNAL * math.log(k) / math.log(129))
#: A tail is searched (rather than the window kept) when its budget times ``(quantile - 1/2) N`` is at least this.
TAIL_SIGNAL = 60.0
_LOG2_LIMIT = 1000  # |log2 scale| allowed in log2_range: 2^(1000 + 6) is still a finite float
_ROW_BLOCK = 1 << 16  # rows per block of the in-memory histograms (bounded temporaries)


# ============================================================================================ counts
def _octave_counts(av, lo, kmin, kmax, per_octave=1):
    """Counts of the magnitudes ``av >= 2^lo`` in the bins ``[2^((k-1)/B), 2^(k/B))``, k = kmin..kmax (``B =
    per_octave``; values below the first bin fall into it, values above the last one into it)."""
    av = av[av >= 2.0**lo]
    if per_octave == 1:
        e = np.frexp(av)[1]  # |v| in [2^(e-1), 2^e), exactly
    else:
        e = np.floor(np.log2(av) * per_octave).astype(np.int64) + 1  # a fixed function of one value
    return np.bincount(np.clip(e, kmin, kmax) - kmin, minlength=kmax - kmin + 1)


def _cell_counts(x, R, cells=GRID_CELLS):
    """Counts of ``x`` snapped to the ``cells`` equal cells of ``[-R, R]``; the last count is of ``x >= R``."""
    w = 2.0 * R / cells
    idx = np.floor((np.clip(x, -R, R) + R) / w)
    idx[x >= R] = cells
    idx = np.clip(idx, 0, cells).astype(np.int64)
    return np.bincount(idx, minlength=cells + 1)


_SPREAD_LEN = SPREAD_BINS_PER_OCTAVE * (SPREAD_BELOW + SPREAD_ABOVE_WIDE) + 1


def _spread_range(k1, lo, wide=False):
    """The half-octave indices ``(kmin, kmax)`` the spread is searched over, around the scale octave ``k1``."""
    B = SPREAD_BINS_PER_OCTAVE
    return B * max(int(k1) - SPREAD_BELOW, lo + 1), B * (int(k1) + (SPREAD_ABOVE_WIDE if wide else SPREAD_ABOVE))


def _wide_spread(eps_spread, nz_low):
    """Whether the spread may be searched up to ``2^(k1 + SPREAD_ABOVE_WIDE)`` (a public rule)."""
    s = SPREAD_QUANTILE
    return eps_spread * (1 - s) * nz_low / (2 * s) >= SPREAD_EVIDENCE


def _column_counts(x, step, arg, lo, hi):
    """The histogram of one column for one step, given the earlier (already released) selections ``arg``."""
    if step == "scale":
        return _octave_counts(np.abs(x), lo, lo + 1, hi + 1)
    if step == "centre":
        return _cell_counts(x, 2.0 ** (int(arg) + 1), CENTRE_CELLS)
    with np.errstate(over="ignore"):
        dev = x - arg[0]
    if step == "spread":
        kmin, kmax = arg[1], arg[2]
        cnt = _octave_counts(np.nan_to_num(np.abs(dev), posinf=np.finfo(float).max), lo, kmin, kmax,
                             SPREAD_BINS_PER_OCTAVE)
        return np.pad(cnt, (0, _SPREAD_LEN - cnt.size))
    return _cell_counts(dev, arg[1])  # "edges": window c ± W


def _block_counts(block, step, args, lo, hi):
    """Histograms of every column of one block of rows: an int64 array of shape (n_features, bins)."""
    block = np.asarray(block, dtype=float)
    return np.stack([_column_counts(np.ascontiguousarray(block[:, j]), step, args[j], lo, hi)
                     for j in range(block.shape[1])])


def _counts(X, step, args, lo, hi):
    """The histograms of every column, summed over blocks of rows (exact integers, so the sum does not depend
    on the blocks). A dask array is reduced on its workers: each block's histograms are computed where the
    block lives and only these counts travel to the driver."""
    if is_dask_array(X):
        import dask

        parts = [dask.delayed(_block_counts)(b, step, args, lo, hi) for b in X.to_delayed().ravel()]
        return np.sum(dask.compute(*parts), axis=0)
    total = None
    for a in range(0, X.shape[0], _ROW_BLOCK):
        c = _block_counts(X[a:a + _ROW_BLOCK], step, args, lo, hi)
        total = c if total is None else total + c
    return total


# ============================================================================================ selections
def _quantile_quality(below, above, p):
    """Quality ``-|(1 - p) below - p above|`` of a candidate with ``below``/``above`` records on its sides."""
    return -np.abs((1.0 - p) * below - p * above)


def _octave_scores(cnt, s):
    """Qualities of the bins of ``cnt`` (octaves from :func:`_octave_counts`, or cells) for the ``s``-quantile
    of the values counted: minus the weighted rank distance from the bin to the quantile, ``-max(0, g(lower edge),
    -g(upper edge))`` with ``g(t) = (1 - s) #{v < t} - s #{v >= t}``; 0 for the bin that holds the quantile."""
    incl = np.cumsum(cnt)
    excl = incl - cnt
    n = incl[-1] if incl.size else 0
    g_low = (1.0 - s) * excl - s * (n - excl)
    g_high = (1.0 - s) * incl - s * (n - incl)
    return -np.maximum(0.0, np.maximum(g_low, -g_high))


def _runs(scores):
    """Cut the cells into runs of equal quality: (starts, lengths, run qualities)."""
    starts = np.concatenate([[0], np.flatnonzero(np.diff(scores) != 0) + 1])
    lengths = np.diff(np.append(starts, scores.size))
    return starts, lengths, scores[starts]


def _tail_runs(cnt, p, upper):
    """Runs of cells with their qualities for the ``p`` quantile, from the cell counts ``cnt`` (the last one of
    values beyond the window). Lower edge ``low = e_j`` (cell j's lower edge): records below are those snapped to
    cells ``< j``. Upper edge ``high = e_{j+1}``: records below are those snapped to cells ``<= j``."""
    n = cnt.sum()
    inclusive = np.cumsum(cnt[:-1])
    below = inclusive if upper else np.concatenate([[0], inclusive[:-1]])
    return _runs(_quantile_quality(below, n - below, p))


def _pick_cells(runs, sens, eps, rng, size, ledger, name):
    starts, lengths, quality = runs
    i, off = exponential_mechanism_intervals(quality, lengths, sens, eps, rng, size=size, ledger=ledger, name=name)
    return starts[i] + off  # an exactly uniform cell inside the selected run (its cells all have this quality)


def _select_scale(cnt, lo, eps, rng, m, ledger, name):
    s = SCALE_QUANTILE
    return lo + 1 + exponential_mechanism(_octave_scores(cnt, s), max(s, 1 - s), eps, rng, size=m, ledger=ledger,
                                          name=f"{name}: scale of |x| (EM)")


def _select_centre(cnt, k1, eps, rng, m, ledger, name):
    R = 2.0 ** (int(k1) + 1)
    # a cell's quality is minus its rank distance to the median (0 for the cell that holds it, even when the
    # median is a value shared by many records); the last count, of the values beyond the grid, is no candidate
    j = _pick_cells(_runs(_octave_scores(cnt, 0.5)[:-1]), 0.5, eps, rng, m, ledger, f"{name}: median (EM)")
    return -R + (j + 0.5) * (2.0 * R / CENTRE_CELLS)  # the middle of the cell: exact


def _select_spread(cnt, kmin, kmax, eps, rng, m, ledger, name):
    s = SPREAD_QUANTILE
    return kmin + exponential_mechanism(_octave_scores(cnt[:kmax - kmin + 1], s), max(s, 1 - s), eps, rng, size=m,
                                        ledger=ledger, name=f"{name}: spread of |x - median| (EM)")


def _window(k2):
    """Half-width ``W = 2^(k2/B + MARGIN_OCTAVES)`` of the window around the median for the spread bin ``k2``."""
    return 2.0 ** (int(k2) / SPREAD_BINS_PER_OCTAVE + MARGIN_OCTAVES)


def _select_edges(cnt, c, W, q, eps_low, eps_high, rng, m, ledger, name):
    w = 2.0 * W / GRID_CELLS
    alpha = 1.0 - q
    a = _pick_cells(_tail_runs(cnt, alpha, upper=False), q, eps_low, rng, m, ledger,
                    f"{name}: lower {alpha:g}-quantile (EM)")
    b = _pick_cells(_tail_runs(cnt, q, upper=True), q, eps_high, rng, m, ledger,
                    f"{name}: upper {q:g}-quantile (EM)")
    return c + (-W + a * w), c + (-W + (b + 1) * w)


def _ordered(low, high, W):
    """Post-processing: the edges rounded outwards onto a power-of-two grid fixed by the window half-widths ``W``
    (released selections only), so that they are exact multiples of a power of two whatever their value; then
    ordered, since the two edges are drawn independently and may cross or meet."""
    step = np.exp2(np.frexp(2.0 * np.asarray(W, dtype=float) / GRID_CELLS)[1] - 1 - EDGE_GRID_BITS)
    low = np.floor(np.asarray(low) / step) * step
    high = np.ceil(np.asarray(high) / step) * step
    lo_e, hi_e = np.minimum(low, high), np.maximum(low, high)
    same = lo_e == hi_e
    if np.any(same):
        hi_e = np.where(same, hi_e + step, hi_e)
    return lo_e, hi_e


def _bounds_1d(x, eps_steps, q, lo, hi, rng, *, wide=False, size=None, ledger=None, name="x"):
    """The selections for one column: ``eps_steps = (scale, centre, spread)`` budgets (the box is the window
    around the median) or ``(scale, centre, spread, lower, upper)`` (the edges are searched inside it).

    Returns ``(k1, c, k2, low, high)``: scalars, or arrays of ``size`` independent draws (for simulations and
    audits: the later selections are drawn once per distinct earlier outcome, with ``size`` = its count).
    """
    x = np.asarray(x, dtype=float)
    cnt = _column_counts(x, "scale", None, lo, hi)
    k1 = np.atleast_1d(_select_scale(cnt, lo, eps_steps[0], rng, size, ledger, name))
    cs = np.empty(k1.shape)
    for k in np.unique(k1):
        sel = k1 == k
        m = None if size is None else int(sel.sum())
        cs[sel] = _select_centre(_column_counts(x, "centre", k, lo, hi), k, eps_steps[1], rng, m, ledger, name)
    ks = np.empty(k1.shape, dtype=np.int64)
    for k, c in np.unique(np.column_stack([k1, cs]), axis=0):
        sel = (k1 == k) & (cs == c)
        m = None if size is None else int(sel.sum())
        kmin, kmax = _spread_range(k, lo, wide)
        cnt = _column_counts(x, "spread", (c, kmin, kmax), lo, hi)
        ks[sel] = _select_spread(cnt, kmin, kmax, eps_steps[2], rng, m, ledger, name)
    W = np.array([_window(k) for k in ks])
    low, high = cs - W, cs + W
    if len(eps_steps) == 5:
        for c, k in np.unique(np.column_stack([cs, ks]), axis=0):
            sel = (cs == c) & (ks == k)
            m = None if size is None else int(sel.sum())
            Wk = _window(k) * 2.0**TAIL_WINDOW_OCTAVES
            cnt = _column_counts(x, "edges", (c, Wk), lo, hi)
            low[sel], high[sel] = _select_edges(cnt, c, Wk, q, eps_steps[3], eps_steps[4], rng, m, ledger, name)
    low, high = _ordered(low, high, W)
    if size is None:
        return int(k1[0]), float(cs[0]), int(ks[0]), float(low[0]), float(high[0])
    return k1, cs, ks, low, high


# ============================================================================================ the result
class BoundsDiagnostics:
    """Per-column diagnostics of :func:`private_bounds`: a table with one row per column, computed from the
    public inputs and the private releases only (never from the data).

    ``rows`` is a list of dicts; ``to_frame()`` returns a pandas DataFrame; in a notebook the object displays
    as an HTML table.
    """

    columns = ("column", "epsilon", "non-zero (noisy)", "non-zero (lower bound)", "signal", "needed", "edges",
               "scale", "centre", "spread", "low", "high", "consistent", "reliable")

    def __init__(self, rows: list[dict]) -> None:
        self.rows = [dict(r) for r in rows]

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, j: int) -> dict:
        return self.rows[j]

    @staticmethod
    def _fmt(v):
        if isinstance(v, (bool, np.bool_)):
            return "yes" if v else "NO"
        if isinstance(v, (float, np.floating)):
            return f"{v:.4g}"
        return str(v)

    def to_frame(self) -> Any:
        """The table as a :class:`pandas.DataFrame` (pandas is imported on use)."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=list(self.columns)).set_index("column")

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{html.escape(c)}</th>" for c in self.columns)
        body = "".join("<tr>" + "".join(f"<td>{html.escape(self._fmt(r[c]))}</td>" for c in self.columns) + "</tr>"
                       for r in self.rows)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        cells = [list(self.columns)] + [[self._fmt(r[c]) for c in self.columns] for r in self.rows]
        widths = [max(len(row[i]) for row in cells) for i in range(len(self.columns))]
        return "\n".join("  ".join(s.rjust(w) for s, w in zip(row, widths)) for row in cells)


class PrivateBox(tuple):
    """The box released by :func:`private_bounds`: a pair ``(low, high)`` of arrays that unpacks as a tuple and
    is accepted as ``bounds=`` by every estimator, with the verdict attached.

    Attributes
    ----------
    low, high : ndarray of shape (n_features,)
    reliable : bool
        Whether every column passed the rules of :func:`private_bounds` (a function of public inputs and private
        releases only). An estimator given a box with ``reliable=False`` refuses it.
    diagnostics : BoundsDiagnostics
        One row per column.
    advice : str
        What would help when the box is not reliable (empty otherwise).
    """

    def __new__(cls, low: np.ndarray, high: np.ndarray, *, diagnostics: BoundsDiagnostics | None = None,
                reliable: bool = True, advice: str = "") -> "PrivateBox":
        self = super().__new__(cls, (low, high))
        self.diagnostics = diagnostics
        self.reliable = bool(reliable)
        self.advice = str(advice)
        return self

    def __getnewargs__(self) -> tuple:
        return tuple(self)

    @property
    def low(self) -> np.ndarray:
        return self[0]

    @property
    def high(self) -> np.ndarray:
        return self[1]

    def __repr__(self) -> str:
        return f"PrivateBox(low={self[0]!r}, high={self[1]!r}, reliable={self.reliable})"


class UnreliableBoundsError(ValueError):
    """:func:`private_bounds` could not find a reliable box at this budget. ``result`` holds the flagged
    :class:`PrivateBox` when the whole budget was spent (``None`` when the refusal came from the noisy count
    alone, before the columns were read), ``diagnostics`` the per-column table."""

    def __init__(self, message: str, result: PrivateBox | None = None,
                 diagnostics: BoundsDiagnostics | None = None) -> None:
        super().__init__(message)
        self.result = result
        self.diagnostics = diagnostics


# ============================================================================================ the rules
def count_lower_bound(n_hat, eps_count):
    """A one-sided ``COUNT_CONFIDENCE`` lower bound on a count from its release with Laplace noise of scale
    ``1/eps_count``: ``P(noise > t) = exp(-t eps) / 2``."""
    return n_hat - math.log(0.5 / (1.0 - COUNT_CONFIDENCE)) / eps_count


def tail_is_searched(eps_tail, q, n_low):
    """Whether a tail of budget ``eps_tail`` is searched: ``eps_tail (q - 1/2) N >= TAIL_SIGNAL``, so that the
    search rarely lands inside the bulk of the data (a candidate at the 3/4-quantile loses about
    ``eps_tail (q - 3/4) N / 2`` nats against the target)."""
    return eps_tail * (q - 0.5) * n_low >= TAIL_SIGNAL


def _consistent(k1, c, k2, lo, wide):
    """Checks of the released selections against each other (a function of the releases, never of the data).

    The median of ``x`` is at most the median of the non-zero ``|x|`` in magnitude when most values are non-zero,
    so it should not sit in the outermost cell of its grid ``[-2^(k1+1), 2^(k1+1)]``; and the spread should not
    sit at either end of its search range (the search was cut off there)."""
    kmin, kmax = _spread_range(k1, lo, wide)
    cell = 2.0 ** (k1 + 2) / CENTRE_CELLS
    return bool(abs(c) <= 2.0 ** (k1 + 1) - cell and kmin < k2 < kmax)


def _advice(rows, eps):
    """What would help, from the public diagnostics: a public range, more ε, fewer columns. The typical number
    of records is read off the median of the columns' noisy non-zero counts (a post-processing of releases)."""
    weak = [r for r in rows if r["signal"] < r["needed"]]
    odd = [r for r in rows if r not in weak and r["consistent"] is False]
    if not weak and not odd:
        return ""
    bad = sorted(weak + odd, key=lambda r: r["column"])
    cols = ", ".join(str(r["column"]) for r in bad[:8]) + (", ..." if len(bad) > 8 else "")
    parts = [f"columns {cols} ({len(bad)} of {len(rows)}) cannot be boxed reliably at epsilon={eps:g}"]
    n_typ = float(np.median([r["non-zero (noisy)"] for r in rows]))
    sparse = [r for r in weak if r["non-zero (noisy)"] < n_typ / 4]
    weak = [r for r in weak if r not in sparse]
    if sparse:
        parts.append("columns " + ", ".join(str(r["column"]) for r in sparse[:8]) + (", ..." if len(sparse) > 8
                                                                                       else "")
                     + " have few or no non-zero values (constant or mostly zero, from their noisy counts): give "
                       "them a public range or leave them out")
    if weak:
        worst = min(weak, key=lambda r: r["signal"])
        z = math.log(0.5 / (1.0 - COUNT_CONFIDENCE))
        per_col = (worst["needed"] + (1 - COUNT_SHARE) * z / COUNT_SHARE) / (1 - COUNT_SHARE)  # ε_column times N
        helps = (f"the locating budget times the number of non-zero values is {worst['signal']:.3g} in the weakest "
                 f"column (column {worst['column']}) and the method needs {worst['needed']:.3g}: what would help is a "
                 f"public range for these columns (bounds from domain knowledge)")
        if n_typ >= 1:
            need = max(eps * per_col / (max(r["non-zero (noisy)"], 1.0) * r["epsilon"]) for r in weak)
            ncols = int(eps * n_typ / per_col)
            helps += f", about epsilon >= {need:.2g} for the bounds"
            helps += (f", or at most {ncols} columns at this epsilon (fewer columns, or weights that favour the "
                      f"ones that matter)" if ncols >= 1 else ", or fewer columns")
        else:
            helps += ", or a much larger epsilon: the noisy counts show almost no non-zero values"
        parts.append(helps)
    if odd:
        parts.append("in columns " + ", ".join(str(r["column"]) for r in odd)
                     + " the released selections disagree with each other (the median at the edge of its grid, "
                       "or the spread at the end of its search range): a public range for them, or more epsilon")
    return "; ".join(parts)


def _diag_row(j, eps_col, nz_hat, nz_low, eps_locate, tails, needed, sel=None, lo=None, wide=False):
    row = {"column": j, "epsilon": eps_col, "non-zero (noisy)": nz_hat, "non-zero (lower bound)": nz_low,
           "signal": eps_locate * nz_low,
           "needed": needed, "edges": "quantiles" if tails else "window", "scale": np.nan,
           "centre": np.nan, "spread": np.nan, "low": np.nan, "high": np.nan, "consistent": None}
    if sel is not None:
        k1, c, k2, low, high = sel
        row.update({"scale": 2.0 ** k1, "centre": c, "spread": 2.0 ** (k2 / SPREAD_BINS_PER_OCTAVE), "low": low,
                    "high": high, "consistent": _consistent(k1, c, k2, lo, wide)})
    row["reliable"] = bool(row["signal"] >= needed and row["consistent"] is True)
    return row


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
@validate_params(epsilon=Epsilon(), n_public=NPublic(), quantile=Real(0.5, 1.0, low_open=True, high_open=True),
                 locate_share=Real(0.0, 1.0, low_open=True, high_open=True), on_unreliable=Options("raise", "flag"),
                 random_state=Rng(), ledger=Ledger())
def private_bounds(X: ArrayLike, epsilon: float, *, quantile: float = 0.99, locate_share: float = 0.6,
                   weights: ArrayLike | None = None, log2_range: tuple[int, int] = (-64, 64),
                   n_public: float | None = None, on_unreliable: str = "raise", random_state: RNGLike = None,
                   ledger: PrivacyLedger | None = None) -> PrivateBox:
    """A private box ``(low, high)`` around the data, found with no public range (ε-DP, add/remove-one).

    For every column: a noisy count of its non-zero values, a private power-of-two scale of the magnitudes, a
    private median and a private power-of-two spread around it, which give a window of two to four spreads
    around the median; with enough values and budget the two edges are then searched as private quantiles inside
    the window, otherwise the window is the box. The box is checked by rules that read only the public inputs and
    the releases, and refused (or flagged) when they fail. The module documentation gives the method, the
    qualities, their sensitivities, the rules and measured coverage and width on real data.

    Parameters
    ----------
    X : array_like or dask array of shape (n_samples, n_features)
        The private data: finite real numbers. A dask array is reduced block by block on its workers (every
        step is a histogram); only the counts travel to the driver, where the noise is drawn: the release is the
        same as for the same data in memory and the same ``random_state``.
    epsilon : float
        The total budget, finite and > 0. It is split over the columns by basic sequential composition (a record
        has a value in every column, so parallel composition does not apply): evenly, or in proportion to
        ``weights``. Each column spends 10 % of its part on the noisy count.
    quantile : float, default 0.99
        Coverage target per tail, in (0.5, 1), when the edges are searched: ``high`` estimates the
        ``quantile``-quantile of each column and ``low`` the ``(1 - quantile)``-quantile. They are searched when
        a tail's budget times ``(quantile - 1/2)`` times the count's lower bound is at least 60; otherwise the box
        is the window around the median, which held at least 92 % of a column (median 99.5 %) and was a median
        1.6 times (95th percentile 4.8 times) as wide as its 1–99 % range on the real data sets measured.
    locate_share : float, default 0.6
        Share of what the count leaves of each column's budget that locates it when its edges are searched
        (scale 25 %, median 15 %, spread 20 % at the default), in (0, 1); the rest is halved between the two
        edges. When the window is the box, all of it locates the column.
    weights : array_like of shape (n_features,), optional
        Positive relative budgets of the columns (default: equal). Give more to the columns whose range matters
        most.
    log2_range : (int, int), default (-64, 64)
        The public range of magnitudes searched, ``2^lo`` to ``2^hi`` (``-1000 <= lo < hi <= 1000``).
        Magnitudes below ``2^lo`` count as zeros; larger ones than ``2^hi`` fall into the last octave. Narrowing
        it to the plausible units of the data makes the scale step more reliable (its cost grows with the
        logarithm of the number of octaves) and lowers the threshold of the verdict accordingly, from 60 to 42
        for ``(-10, 20)``.
    n_public : float, optional
        Not needed, and it does not change the release: the rules use each column's noisy count of non-zero
        values, which the method needs in any case (a mostly-zero column is located from its non-zero values).
        Accepted (a number >= 0) so that one ``n_public`` can be passed to every step of an analysis.
    on_unreliable : {"raise", "flag"}, default "raise"
        What happens when a column fails the rules. ``"raise"``: an :class:`UnreliableBoundsError` (a
        ``ValueError``) saying what would help — a public range, more ε, fewer columns; when the counts alone
        fail, it is raised before the columns are located and only the counts are spent. ``"flag"``: the whole
        budget is spent and the box is returned with ``reliable=False``; every estimator refuses it as
        ``bounds``.
    random_state : None, int or numpy.random.Generator
        Source of randomness.
    ledger : PrivacyLedger, optional
        A shared ledger: asked for the whole ``epsilon`` **before the data are read** (a refusal raises
        :class:`~dpclust_core.accounting.BudgetExceededError`), then given every release in the order drawn —
        ``"bounds[j]: non-zero count"`` for every column ``j``, then ``"bounds[j]: scale of |x| (EM)"``,
        ``"bounds[j]: median (EM)"`` and ``"bounds[j]: spread of |x - median| (EM)"`` for every column, and,
        where the edges are searched, ``"bounds[j]: lower 0.01-quantile (EM)"`` and ``"bounds[j]: upper
        0.99-quantile (EM)"`` — in one group named ``"private_bounds"``, totalling ``epsilon`` (the counts'
        share only, after a refusal from the counts).

    Returns
    -------
    PrivateBox
        A tuple ``(low, high)`` of float arrays of shape ``(n_features,)`` with ``low < high``, ready for
        ``bounds=``, with ``reliable`` (True unless ``on_unreliable="flag"`` and a rule failed),
        ``diagnostics`` (one row per column, an HTML table in a notebook: budget, noisy count and its lower
        bound, the signal and the threshold, how the edges were found, the selected scale, centre and spread,
        the box and the verdicts) and ``advice``.

    Raises
    ------
    UnreliableBoundsError
        With ``on_unreliable="raise"``, when a column fails the rules.

    Notes
    -----
    The verdict reads only ε, the weights, ``quantile``, ``locate_share`` and the releases, so it is itself
    differentially private and nothing beyond ``epsilon`` is spent on it. The guarantee does not depend on the
    data being inside ``log2_range``; only the accuracy does.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(0.0, 1.0, size=(5000, 2))
    >>> X[0] = 1e6                        # one extreme record does not drag the box
    >>> led = PrivacyLedger(budget_epsilon=1.0)
    >>> box = private_bounds(X, 1.0, random_state=0, ledger=led)
    >>> low, high = box
    >>> box.reliable, bool(np.all(low < -1) and np.all(high > 1) and np.all(high < 10))
    (True, True)
    >>> round(led.epsilon, 12), len(led)
    (1.0, 12)

    On 178 records over 13 columns, ε = 0.3 cannot locate a column; the refusal says what would help:

    >>> from sklearn.datasets import load_wine
    >>> try:
    ...     private_bounds(load_wine().data, 0.3, random_state=0)
    ... except UnreliableBoundsError as err:
    ...     print("public range" in str(err), err.result is None)
    True True
    """
    w = _check_weights(weights)
    lo, hi = _check_log2_range(log2_range)
    if ledger is not None:
        ledger.require(epsilon, 0.0, name="private_bounds")  # before the data are read
    X = read_dask_rows(check_data(X, "X", allow_dask=True))
    if is_dask_array(X):
        X = X.rechunk({1: -1})  # blocks of whole rows
    n, d = X.shape
    w = np.ones(d) if w is None else _check_weights(w, d)
    inner = PrivacyLedger(budget_epsilon=epsilon)
    shares = dict(epsilon=epsilon, locate_share=locate_share, **({} if weights is None else {"weights": weights}))
    try:
        with budget_shares("private_bounds", **shares):
            box = _private_bounds(X, epsilon, quantile, locate_share, w, lo, hi, on_unreliable, random_state, inner)
    finally:
        if ledger is not None and len(inner):
            ledger.extend(inner, group="private_bounds")
    inner.check()
    return box


def _private_bounds(X, eps, q, share, w, lo, hi, mode, rng, inner):
    n, d = X.shape
    names = [f"bounds[{j}]" for j in range(d)]
    col = [eps * (float(v) / math.fsum(w)) for v in w]  # Python floats: a huge epsilon gives inf, quietly
    # one pass: the octave histograms of |x|; their totals are the non-zero counts, released first
    cnt_scale = _counts(X, "scale", [None] * d, lo, hi)
    eps_count = [COUNT_SHARE * b for b in col]
    steps_per_unit = laplace_grid(1.0)[1]
    if min(eps_count) <= steps_per_unit / 2.0**48:  # refused before any release (the count's noise would overflow)
        raise EpsilonTooSmallError(f"the noisy count of a column would get epsilon={min(eps_count):.3g}, too small "
                                   f"for its noise")
    nz_hat = [float(laplace_mechanism(float(cnt_scale[j].sum()), 1.0, eps_count[j], rng, ledger=inner,
                                      name=f"{names[j]}: non-zero count")) for j in range(d)]
    nz_low = [count_lower_bound(v, e) for v, e in zip(nz_hat, eps_count)]
    rest = [b - e for b, e in zip(col, eps_count)]
    tails = [tail_is_searched(0.5 * (1.0 - share) * r, q, m) for r, m in zip(rest, nz_low)]
    steps = [[share * f * r for f in LOCATE_SPLIT] + [0.5 * (1.0 - share) * r] * 2 if t
             else [f * r for f in LOCATE_SPLIT] for r, t in zip(rest, tails)]
    eps_locate = [share * r if t else r for r, t in zip(rest, tails)]
    # the step budgets, adjusted so that the whole ledger adds up to eps
    flat = _split_budget(eps - math.fsum(eps_count), [v for st in steps for v in st])
    at = np.cumsum([0] + [len(st) for st in steps])
    steps = [flat[at[j]:at[j + 1]] for j in range(d)]
    needed = _needed(lo, hi)
    rows = [_diag_row(j, col[j], nz_hat[j], nz_low[j], eps_locate[j], tails[j], needed) for j in range(d)]
    if mode == "raise" and any(r["signal"] < r["needed"] for r in rows):
        raise UnreliableBoundsError("private_bounds: " + _advice(rows, eps) + " (only the noisy counts were spent)",
                                    None, BoundsDiagnostics(rows))
    k1 = [int(_select_scale(cnt_scale[j], lo, steps[j][0], rng, None, inner, names[j])) for j in range(d)]
    cnt = _counts(X, "centre", k1, lo, hi)
    c = [float(_select_centre(cnt[j], k1[j], steps[j][1], rng, None, inner, names[j])) for j in range(d)]
    wide = [_wide_spread(steps[j][2], nz_low[j]) for j in range(d)]
    ranges = [_spread_range(k1[j], lo, wide[j]) for j in range(d)]
    cnt = _counts(X, "spread", [(c[j], *ranges[j]) for j in range(d)], lo, hi)
    k2 = [int(_select_spread(cnt[j], *ranges[j], steps[j][2], rng, None, inner, names[j]))
          for j in range(d)]
    W = [_window(k) for k in k2]
    low = np.array(c) - np.array(W)
    high = np.array(c) + np.array(W)
    if any(tails):
        Wt = [w_ * 2.0**TAIL_WINDOW_OCTAVES for w_ in W]
        cnt = _counts(X, "edges", [(c[j], Wt[j]) for j in range(d)], lo, hi)
        for j in np.flatnonzero(tails):
            low[j], high[j] = _select_edges(cnt[j], c[j], Wt[j], q, steps[j][3], steps[j][4], rng, None, inner,
                                            names[j])
    low, high = _ordered(low, high, W)
    rows = [_diag_row(j, col[j], nz_hat[j], nz_low[j], eps_locate[j], tails[j], needed,
                      (k1[j], c[j], k2[j], low[j], high[j]), lo, wide[j]) for j in range(d)]
    diag = BoundsDiagnostics(rows)
    reliable = all(r["reliable"] for r in rows)
    advice = _advice(rows, eps)
    box = PrivateBox(low, high, diagnostics=diag, reliable=reliable, advice=advice)
    if not reliable and mode == "raise":
        raise UnreliableBoundsError("private_bounds: " + advice, box, diag)
    return box
