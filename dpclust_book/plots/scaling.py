"""Figures of the appendix "When the data outgrow one machine" (DP k-means on a dask cluster).

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes; DPLloyd-Impr keeps its colour. The tables come from
:mod:`dpclust_book.experiments.scaling`.

Examples
--------
>>> import numpy as np
>>> from dpclust_book.experiments import scaling as ex
>>> from dpclust_book.plots import scaling as draw
>>> X = ex.numpy_blobs(2_000, seed=0)
>>> fig = draw.block_sums(X, ex.blob_centres(5, 2, 0), n_blocks=4)
>>> len(fig.axes)
2
"""
from __future__ import annotations

import numpy as np
from matplotlib.ticker import FixedLocator, NullLocator

from . import PALETTE, figure, method_style, table
from ..experiments.scaling import block_partials

__all__ = ["block_sums", "scaling", "table"]

# the blocks' colours (vermillion is kept for the released values of DPLloyd-Impr)
_BLOCK_COLOURS = [PALETTE[c] for c in ("blue", "orange", "green", "purple", "sky", "yellow", "grey")]


def block_sums(X, centroids, n_blocks: int, *, released=None, max_points: int = 3000):
    """Two panels: the rows of ``X`` coloured by the block that holds them (the data split into ``n_blocks``
    blocks of consecutive rows, as a dask array would be), with the centroids of the round; and, per cluster,
    the block's exact counts stacked on each other — the total the driver receives — with ``released`` (the
    noisy counts, if given) as ticks in DPLloyd-Impr's colour."""
    X = np.asarray(X, dtype=float)
    n_blocks = int(round(float(n_blocks)))  # a slider may hand over 5.0
    part = block_partials(X, centroids, n_blocks)
    fig, (ax, bx) = figure(ncols=2)
    bounds = np.linspace(0, X.shape[0], n_blocks + 1).astype(int)
    step = max(1, X.shape[0] // max_points)
    for b in range(n_blocks):
        rows = np.arange(bounds[b], bounds[b + 1], step)
        ax.scatter(X[rows, 0], X[rows, 1], s=3, color=_BLOCK_COLOURS[b % len(_BLOCK_COLOURS)], alpha=0.5,
                   linewidths=0)
    C = np.asarray(centroids)
    st = method_style("DPLloyd-Impr")
    ax.scatter(C[:, 0], C[:, 1], marker="X", s=110, color=PALETTE["black"], edgecolors="white", linewidths=1.0,
               zorder=3)
    for j, c in enumerate(C):
        ax.annotate(str(j + 1), c, xytext=(6, 6), textcoords="offset points", fontsize=10, weight="bold")
    ax.set_aspect("equal", adjustable="datalim")
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    ax.set_title(f"{n_blocks} block{'s' if n_blocks > 1 else ''}; × the round's centroids")
    k = C.shape[0]
    x = np.arange(1, k + 1)
    bottom = np.zeros(k)
    for b in range(n_blocks):
        h = part[b]
        bx.bar(x, h, bottom=bottom, color=_BLOCK_COLOURS[b % len(_BLOCK_COLOURS)], edgecolor="white",
               linewidth=0.5, width=0.7)
        bottom += h
    if released is not None:
        bx.scatter(x, np.asarray(released), marker="_", s=500, color=st["color"], linewidths=3, zorder=3,
                   label="noisy count (released)")
        bx.legend(loc="upper right")
    bx.set_xticks(x)
    bx.set_xlabel("cluster")
    bx.set_ylabel("points (one colour per block)")
    bx.set_ylim(0, max(bottom.max(), 1) * 1.25)
    bx.set_title("counts: block sums, added")
    return fig


def scaling(df):
    """Two panels from :func:`~dpclust_book.experiments.scaling.scaling_runs`: wall seconds per round against the
    number of points (log-log), and the CPU nanoseconds of the work per point and round (flat when the cost is
    linear in n; CPU time is what the workers spent, whatever else ran at the same time)."""
    fig, (ax, bx) = figure(ncols=2, height=3.9, layout="constrained")
    styles = {"dask cluster": dict(color=method_style("DPLloyd-Impr")["color"], marker="o", linestyle="-"),
              "in memory": dict(color=PALETTE["black"], marker="s", linestyle="--")}
    for where, g in df.groupby("where", sort=False):
        g = g.sort_values("n")
        st = styles.get(where, dict(color=PALETTE["grey"], marker=".", linestyle="-"))
        ax.plot(g["n"], g["seconds_per_round"], label=where, **st)
        bx.plot(g["n"], g["cpu_ns_per_point_round"], label=where, **st)
    ns = np.sort(df["n"].unique())
    for a in (ax, bx):
        a.set_xscale("log")
        a.xaxis.set_major_locator(FixedLocator(ns))
        a.xaxis.set_major_formatter(lambda v, _pos: _count(v))
        a.xaxis.set_minor_locator(NullLocator())
        a.set_xlabel("points n (log scale)")
    ax.set_yscale("log")
    secs = df["seconds_per_round"].to_numpy(dtype=float)
    lo, hi = np.nanmin(secs) / 1.5, np.nanmax(secs) * 1.5
    ax.set_ylim(lo, hi)
    ax.yaxis.set_major_locator(FixedLocator([t for t in (0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1,
                                                         2, 5, 10, 20) if lo <= t <= hi]))
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
    ax.yaxis.set_minor_locator(NullLocator())
    ax.set_ylabel("wall seconds per round (log scale)")
    ax.set_title("time of a round", fontsize=11)
    bx.set_ylabel("CPU ns per point and round")
    bx.set_ylim(0, np.nanmax(df["cpu_ns_per_point_round"].to_numpy()) * 1.2)
    bx.set_title("work per point", fontsize=11)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=2)
    return fig


def _count(v: float) -> str:
    """100,000 -> "100k", 2,000,000 -> "2M"."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= div:
            return f"{v / div:g}{unit}"
    return f"{v:g}"
