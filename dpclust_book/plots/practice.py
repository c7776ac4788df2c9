"""Figures of the chapter "Private clustering of your own data" and of the appendix "Privacy bugs in the wild".

Every function returns a matplotlib ``Figure`` in the book's style (:func:`dpclust_book.plots.figure`): 7 inches
wide, at most two panels a row, labelled axes with units, the fixed colours of the methods. The tables they draw
come from :mod:`dpclust_book.experiments.practice`.

Examples
--------
>>> from dpclust_book.experiments import practice as ex
>>> from dpclust_book.plots import practice as draw
>>> fig = draw.planner(ex.planner_models(3376, 2, 5, [0.1, 1.0]), None, n=3376, k=5)
>>> len(fig.axes)
1
"""
from __future__ import annotations

import math

import matplotlib.ticker
import numpy as np
from matplotlib.patches import Rectangle

from . import PALETTE, figure, method_style, table

__all__ = ["airports_map", "fit_map", "planner", "membership", "diffprivlib_spend", "true_epsilon_frame", "table"]

_POINTS = dict(s=5, color=PALETTE["grey"], alpha=0.45, linewidths=0)
_BOX_COLOURS = [PALETTE["vermillion"], PALETTE["blue"], PALETTE["green"], PALETTE["orange"]]
_EPS_COLOURS = [PALETTE["sky"], PALETTE["blue"], PALETTE["vermillion"], PALETTE["black"], PALETTE["purple"]]


#: Vertical stretch of the maps: a degree of latitude is drawn 1/cos(40°) ≈ 1.3 times as long as a degree of
#: longitude, as on an equirectangular map of the contiguous United States.
_MAP_ASPECT = 1.3


def _map_figure(xlim, ylim):
    """A map figure whose height fits the region (no empty band above or below), with room for a legend below."""
    w_axes = 6.0  # inches of the 7-inch figure taken by the map
    h_axes = w_axes * _MAP_ASPECT * (ylim[1] - ylim[0]) / (xlim[1] - xlim[0])
    fig, ax = figure(height=float(np.clip(h_axes, 1.6, 4.2)) + 1.4, layout="constrained")
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect(_MAP_ASPECT, adjustable="box")
    ax.set_xlabel("longitude (degrees, negative = west)")
    ax.set_ylabel("latitude (degrees north)")
    return fig, ax


def _extent(points, pad=6.0):
    P = np.asarray(points, dtype=float)
    lo, hi = P.min(axis=0) - pad, P.max(axis=0) + pad
    return (lo[0], hi[0]), (lo[1], hi[1])


def _legend_below(fig, ax, ncol=3):
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=ncol, fontsize=10)


def airports_map(X, boxes: dict, *, title=None):
    """The points of ``X`` (longitude, latitude) on one map, with every box of ``boxes`` (label -> ``(low,
    high)``) drawn as a rectangle; the legend sits below the map, off the data."""
    X = np.asarray(X, dtype=float)
    corners = [X.min(axis=0), X.max(axis=0)] + [np.asarray(b, float) for box in boxes.values() for b in box]
    fig, ax = _map_figure(*_extent(corners))
    ax.scatter(X[:, 0], X[:, 1], **_POINTS)
    for (label, (lo, hi)), col in zip(boxes.items(), _BOX_COLOURS):
        lo, hi = np.asarray(lo, float), np.asarray(hi, float)
        ax.add_patch(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1], fill=False, lw=2.0, ec=col,
                               label=label))
    _legend_below(fig, ax, ncol=2)
    if title:
        ax.set_title(title)
    return fig


def fit_map(X, centers, bounds, *, method="EUGkM", reference=None, title=None):
    """The points of ``X`` clipped to ``bounds`` (as the fit saw them), the released ``centers`` in the method's
    style and, if given, the non-private ``reference`` centres as black crosses; the legend below the map."""
    lo, hi = np.asarray(bounds[0], float), np.asarray(bounds[1], float)
    fig, ax = _map_figure(*_extent([lo, hi], pad=2.0))
    Xc = np.clip(np.asarray(X, dtype=float), lo, hi)
    ax.scatter(Xc[:, 0], Xc[:, 1], **_POINTS)
    ax.add_patch(Rectangle((lo[0], lo[1]), hi[0] - lo[0], hi[1] - lo[1], fill=False, lw=1.5,
                           ec=PALETTE["vermillion"], label="private box"))
    if reference is not None:
        R = np.asarray(reference)
        ax.scatter(R[:, 0], R[:, 1], marker="x", s=70, color=PALETTE["black"], linewidths=2.0,
                   label="non-private centres", zorder=3)
    st = method_style(method)
    C = np.asarray(centers)
    ax.scatter(C[:, 0], C[:, 1], marker=st["marker"] or "o", s=110, color=st["color"], edgecolors="white",
               linewidths=1.0, label=f"{method} centres (private)", zorder=4)
    _legend_below(fig, ax, ncol=3)
    if title:
        ax.set_title(title)
    return fig


def planner(models, measured, *, n, k, d=2, ylim=(1e-6, 3.0)):
    """The budget planner: the models' excess NICV of every method against ε (lines, from
    :func:`~dpclust_book.experiments.practice.planner_models`) and the measured excess at the same N, k and d
    (markers, from :func:`~dpclust_book.experiments.practice.planner_measurements`; ``None`` for none)."""
    fig, ax = figure(height=5.2, layout="constrained")
    eps = models["epsilon"].to_numpy()
    for name in ("DPLloyd", "DPLloyd-Impr", "MkM", "EUGkM", "Hybrid"):
        st = method_style(name)
        ls = "--" if name == "Hybrid" else st["linestyle"]
        ax.plot(eps, models[name], color=st["color"], linestyle=ls, lw=2.0, label=f"{name} (model)")
    if measured is not None:
        sel = measured[(measured["n"] == n) & (measured["k"] == k) & (measured["d"] == d)]
        shift = {"DPLloyd": 0.92, "DPLloyd-Impr": 0.96, "EUGkM": 1.04, "Hybrid": 1.09}  # side by side
        for name, grp in sel.groupby("method", sort=False):
            st = method_style(name)
            y = np.maximum(grp["excess"].to_numpy(), ylim[0])
            ax.scatter(grp["epsilon"] * shift.get(name, 1.0), y, marker=st["marker"], s=70, color=st["color"],
                       edgecolors="black", linewidths=0.6, zorder=4, label=f"{name} (measured)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(*ylim)
    ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10) if eps.min() <= t <= eps.max()]
    ax.xaxis.set_major_locator(matplotlib.ticker.FixedLocator(ticks))
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("ε of the fit")
    ax.set_ylabel(f"excess NICV (data scaled to [−1, 1]$^{{{d}}}$)")
    ax.set_title(f"N = {n:,}, k = {k}, d = {d}: lines are the models, markers measured", fontsize=11)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=9)
    return fig


def membership(attacks: dict, priors=np.linspace(0.0, 1.0, 201)):
    """Two panels: the ROC of the membership attack at every ε of ``attacks`` (ε -> result of
    :func:`~dpclust_book.experiments.practice.membership_attack`) with the ε-DP bound dashed; and the largest
    posterior an attacker can reach from every prior."""
    from dpclust_core.advisor import posterior_bound

    fig, (a1, a2) = figure(ncols=2, height=3.7)
    f = np.linspace(0.0, 1.0, 401)
    for (eps, res), col in zip(attacks.items(), _EPS_COLOURS):
        bound = np.minimum(1.0, np.minimum(math.exp(eps) * f, 1.0 - math.exp(-eps) * (1.0 - f)))
        a1.plot(res["fpr"], res["tpr"], color=col, lw=2.0, label=f"ε = {eps:g}")
        a1.plot(f, bound, color=col, lw=1.2, ls="--")
        a2.plot(priors, posterior_bound(priors, eps), color=col, lw=2.0, label=f"ε = {eps:g}")
    a1.plot([0, 1], [0, 1], color=PALETTE["grey"], lw=1.0, ls=":")
    a1.set_xlabel("false positive rate")
    a1.set_ylabel("true positive rate")
    a1.set_title("attack (solid) and DP bound (dashed)")
    a1.legend(loc="lower right", fontsize=9)
    a2.plot([0, 1], [0, 1], color=PALETTE["grey"], lw=1.0, ls=":")
    a2.set_xlabel("attacker's prior")
    a2.set_ylabel("largest posterior")
    a2.set_title("what one release can teach")
    a2.legend(loc="lower right", fontsize=9)
    for ax in (a1, a2):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.01)
        ax.set_aspect("equal")
    return fig


def diffprivlib_spend(table):
    """ε spent per ε asked by diffprivlib's ``KMeans`` against d (a table from
    :func:`~dpclust_book.experiments.practice.diffprivlib_spend_table`)."""
    fig, ax = figure(height=3.8)
    d = table.index.to_numpy()
    asked = table["ε asked"].to_numpy()
    st = method_style("diffprivlib")
    ax.plot(d, table["spent (its own mechanisms)"] / asked, "o-", color=st["color"], lw=2.0,
            label="its mechanisms' ε (box $[0, 1]^d$)")
    ax.plot(d, table["true ε, box [1, 2]^d"] / asked, "s-", color=PALETTE["vermillion"], lw=2.0,
            label="true ε, box $[1, 2]^d$ (excludes 0)")
    ax.plot(d, table["true ε, box [-1, 1]^d"] / asked, "^-", color=PALETTE["blue"], lw=2.0,
            label="true ε, box $[-1, 1]^d$ (centred)")
    ax.axhline(1.0, color=PALETTE["black"], ls="--", lw=1.2, label="ε asked")
    ax.set_xscale("log")
    ax.set_xticks(d)
    ax.set_xticklabels([str(int(v)) for v in d])
    ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())  # no "6 x 10^0" between the ticks
    ax.set_xlabel("d (dimensions)")
    ax.set_ylabel("ε spent / ε asked")
    ax.set_title("diffprivlib 0.6.6 KMeans: what a fit really spends")
    ax.legend(loc="upper left", fontsize=9)
    return fig


def true_epsilon_frame(offset, dims=np.arange(1, 41), epsilon=1.0):
    """The add/remove privacy loss of diffprivlib's ``KMeans`` over d when the public box is
    ``[offset, offset + 1]^d``: its swapped shares, and sums calibrated to the width 1 while a record can move
    a sum by ``max(|offset|, |offset + 1|)``. Drawn next to the correct split (no swap). For the appendix's
    interactive figure."""
    from dpclust_core.kmeans import optimal_count_share

    fig, ax = figure(height=4.2, layout="constrained")
    dims = np.asarray(dims)
    reach = max(abs(offset), abs(offset + 1.0))
    gc = np.array([optimal_count_share(int(v)) for v in dims])
    gs = (1.0 - gc) / dims
    swapped = gs + dims * gc * reach
    correct = gc + dims * gs * reach
    ax.plot(dims, swapped * epsilon, color=method_style("diffprivlib")["color"], lw=2.2,
            label="diffprivlib (shares swapped)")
    ax.plot(dims, correct * epsilon, color=PALETTE["blue"], lw=2.0, ls="-.", label="shares in the right order")
    ax.axhline(epsilon, color=PALETTE["black"], ls="--", lw=1.2, label="ε asked")
    ax.set_yscale("log")  # one range for every frame: boxes up to [4, 5]^d stay below 10 times the ε asked
    ax.set_ylim(0.4 * epsilon, 12 * epsilon)
    ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator([t * epsilon for t in (0.5, 1, 2, 5, 10)]))
    ax.yaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xlabel("d (dimensions)")
    ax.set_ylabel("true ε (add/remove one record, log scale)")
    ax.set_title(f"public box $[{offset:g}, {offset + 1:g}]^d$: a record moves a sum by up to {reach:g}",
                 fontsize=11)
    fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncol=3, fontsize=10)
    return fig
