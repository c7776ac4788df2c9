"""One look for every figure of the book: a colour-blind-safe palette with a fixed colour per method, a style
readable at page width, and small helpers that chapters call in one line.

Every figure of the book is at most two panels wide, its text at least 9 pt at the size it is shown (figures
are drawn 7 inches wide and shown at about 700 pixels), with labelled axes. Each method keeps its colour,
marker and line style across all chapters (:data:`METHODS`), so a reader learns them once.

The palette, :func:`figure`, :func:`method_style` and :func:`table` live in :mod:`dpclust_book.style` (shared
with the experiments' tables) and are re-exported here. Chapter-specific figures live in the submodules
(:mod:`.synopsis`, ...); they all start from :func:`figure` and :func:`method_style`.

Examples
--------
>>> from dpclust_book import plots
>>> plots.method_style("EUGkM")["color"]
'#0072B2'
>>> fig, ax = plots.figure()
>>> len(fig.axes)
1
"""
from __future__ import annotations

import numpy as np

from ..style import _FONT, EXTRA, FIG_WIDTH, METHODS, PALETTE, figure, method_style, table, use_style

__all__ = ["PALETTE", "METHODS", "method_style", "use_style", "figure", "clusters", "lines", "bars", "table",
           "FIG_WIDTH"]


def clusters(ax, X, centers=None, *, labels=None, true_centers=None, title=None, method=None, max_points=4000,
             seed=0, legend=True):
    """Scatter a 2-D data set (a random subset of at most ``max_points``), with centres on top.

    ``centers`` are drawn as large markers in the method's colour (``method`` names it); ``true_centers`` as
    black crosses; ``labels`` colour the points in light shades.
    """
    X = np.asarray(X, dtype=float)
    if X.shape[0] > max_points:
        idx = np.random.default_rng(seed).choice(X.shape[0], max_points, replace=False)  # a display subset
        X = X[idx]
        labels = None if labels is None else np.asarray(labels)[idx]
    if labels is None:
        ax.scatter(X[:, 0], X[:, 1], s=4, color=PALETTE["grey"], alpha=0.35, linewidths=0)
    else:
        ax.scatter(X[:, 0], X[:, 1], s=4, c=labels, cmap="tab20", alpha=0.35, linewidths=0)
    if true_centers is not None:
        tc = np.asarray(true_centers)
        ax.scatter(tc[:, 0], tc[:, 1], marker="x", s=60, color=PALETTE["black"], linewidths=1.5,
                   label="true centres")
    if centers is not None:
        st = method_style(method or "")
        c = np.asarray(centers)
        ax.scatter(c[:, 0], c[:, 1], marker=st["marker"] or "o", s=90, color=st["color"], edgecolors="white",
                   linewidths=1.0, label=method or "centres", zorder=3)
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    if title:
        ax.set_title(title)
    if legend and (centers is not None or true_centers is not None):
        ax.legend(loc="best")
    return ax


def lines(ax, x, series: dict, *, xlabel, ylabel, logx=False, logy=False, spread: dict | None = None,
          title=None, legend_loc="best"):
    """One line per method: ``series`` maps a method name to y values over ``x``; ``spread`` maps a name to
    ``(low, high)`` arrays drawn as a band (e.g. the quartiles over seeds)."""
    for name, y in series.items():
        st = method_style(name)
        ax.plot(x, y, label=name, **st)
        if spread and name in spread:
            lo, hi = spread[name]
            ax.fill_between(x, lo, hi, color=st["color"], alpha=0.15, linewidth=0)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend(loc=legend_loc)
    return ax


def bars(ax, values: dict, *, ylabel, title=None, errors: dict | None = None, baseline=None, fmt="{:.3g}"):
    """A bar per method, in its colour, with its value written on top. ``baseline`` draws a dashed reference
    line (e.g. the non-private cost). The value axis starts at zero."""
    names = list(values)
    ys = [values[n] for n in names]
    yerr = None if errors is None else np.array([errors.get(n, (0, 0)) for n in names]).T
    ax.bar(range(len(names)), ys, color=[method_style(n)["color"] for n in names], yerr=yerr, capsize=3)
    for i, y in enumerate(ys):
        ax.annotate(fmt.format(y), (i, y), textcoords="offset points", xytext=(0, 3), ha="center",
                    fontsize=_FONT - 2)
    if baseline is not None:
        ax.axhline(baseline, color=PALETTE["black"], linestyle="--", linewidth=1.2, label="non-private")
        ax.legend(loc="upper left")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=30 if len(names) > 4 else 0, ha="right" if len(names) > 4 else "center")
    ax.set_ylim(bottom=0)
    ax.set_ylabel(ylabel)
    ax.grid(axis="x", visible=False)
    if title:
        ax.set_title(title)
    return ax
