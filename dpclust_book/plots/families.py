"""Figures of the appendix "Which private k-means?": every family of private k-means on the same datasets.

Every function takes the summary of :func:`dpclust_book.experiments.families.summarize` (median and spread of the
loss over the seeds) and returns a matplotlib ``Figure`` in the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes, each method in its fixed style. The loss axis is
logarithmic (losses run from 1 to several hundred). GkM and the LSH coreset share a colour in the book's palette;
here GkM is a thin dotted line with crosses and the LSH coreset a thick solid line with pentagons.

Examples
--------
>>> from dpclust_book.experiments import families as fx
>>> from dpclust_book.plots import families as draw
>>> s = fx.summarize(fx.run_grid(fx.datasets(["Image (3-D)"]), [0.5, 1.0], [0], methods=["EUGkM"]))
>>> fig = draw.loss_vs_epsilon(s, ["Image (3-D)"])
>>> len(fig.axes), fig.axes[0].get_yscale()
(1, 'log')
"""
from __future__ import annotations

import numpy as np
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

from . import PALETTE, figure, method_style

__all__ = ["loss_vs_epsilon", "fit_times", "at_epsilon", "lsh_tree"]

_THICK = {"LSH coreset": 3.0, "GkM": 1.4}
_DATASET_MARKERS = ("o", "s", "^", "D", "v", "P")


def _style(name):
    st = method_style(name)
    st["linewidth"] = _THICK.get(name, 2.0)
    return st


def _edge(marker):
    """Edge keywords for a scatter marker: a thin black edge on filled markers, none on line markers."""
    return {} if marker in ("x", "+", "|", "_", "1", "2", "3", "4") else dict(edgecolors=PALETTE["black"],
                                                                             linewidths=0.5)


def _methods_in(summary, methods=None):
    from ..experiments.families import METHOD_NAMES

    present = [m for m in METHOD_NAMES if m in set(summary["method"])]
    return present if methods is None else [m for m in methods if m in present]


def _legend_below(fig, handles, ncol=4):
    fig.legend(handles=handles, loc="outside lower center", ncol=ncol, fontsize=9, handlelength=2.6,
               columnspacing=1.2)


def _method_handles(methods):
    out = []
    for m in methods:
        st = _style(m)
        out.append(Line2D([], [], color=st["color"], marker=st["marker"], linestyle=st["linestyle"],
                          linewidth=st["linewidth"], label=m))
    return out


def _reference_handles():
    return [Line2D([], [], color=PALETTE["black"], linestyle="--", linewidth=1.3, label="non-private (1)"),
            Line2D([], [], color=PALETTE["grey"], linestyle=(0, (1, 1.5)), linewidth=2.2,
                   label="one centre (no information)")]


def _log_ticks(ax, axis="y"):
    lo, hi = (ax.get_ylim() if axis == "y" else ax.get_xlim())
    fine = (1, 1.2, 1.5, 2, 3, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000)
    coarse = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10_000)
    ticks = [t for t in (fine if hi / max(lo, 1e-9) < 12 else coarse) if lo <= t <= hi]
    loc = FixedLocator(ticks)
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(loc)
    target.set_major_formatter(lambda v, _pos: f"{v:g}")
    target.set_minor_locator(NullLocator())
    target.set_minor_formatter(NullFormatter())


def _title(summary, name):
    s = summary[summary["dataset"] == name]
    n, d, k = (int(s[c].iloc[0]) for c in ("n", "d", "k"))
    return f"{name}: N = {n:,}, k = {k}"


def loss_vs_epsilon(summary, datasets, methods=None, *, spread=True):
    """The median loss of every method against ε, one panel per dataset (one or two datasets), with the
    [25 %, 75 %] band over the seeds, the non-private level 1 and the loss of one centre.

    Parameters
    ----------
    summary : DataFrame
        From :func:`~dpclust_book.experiments.families.summarize`.
    datasets : sequence of str
        One or two dataset names.
    methods : sequence of str, optional
        The methods to draw (default: all in ``summary``).
    spread : bool, default True
        Draw the quartile bands.

    Returns
    -------
    matplotlib.figure.Figure
    """
    datasets = list(datasets)
    if not 1 <= len(datasets) <= 2:
        raise ValueError(f"datasets must name one or two datasets, got {datasets!r}")
    ms = _methods_in(summary, methods)
    fig, axes = figure(len(datasets), height=4.6 if len(datasets) == 2 else 5.0, layout="constrained")
    axes = np.atleast_1d(axes)
    eps = sorted(summary["epsilon"].dropna().unique())
    for ax, name in zip(axes, datasets):
        s = summary[summary["dataset"] == name]
        for m in ms:
            sm = s[s["method"] == m].set_index("epsilon").reindex(eps)
            st = _style(m)
            ax.plot(eps, sm["loss"], label=m, zorder=3 if m == "LSH coreset" else 2, **st)
            if spread:
                ax.fill_between(eps, sm["loss_q25"], sm["loss_q75"], color=st["color"], alpha=0.12, linewidth=0)
        ax.axhline(1.0, color=PALETTE["black"], linestyle="--", linewidth=1.3)
        one = s.loc[s["method"] == "one centre", "loss"]
        if len(one):
            ax.axhline(float(one.iloc[0]), color=PALETTE["grey"], linestyle=(0, (1, 1.5)), linewidth=2.2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xticks(eps)
        ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
        ax.xaxis.set_minor_locator(NullLocator())
        ax.set_xlabel("ε (privacy budget)")
        ax.set_ylabel("loss (WCSS / non-private WCSS)")
        ax.set_title(_title(summary, name), fontsize=10)
        _log_ticks(ax)
    _legend_below(fig, _method_handles(ms) + _reference_handles(), ncol=4)
    return fig


def fit_times(summary, epsilon: float = 1.0, methods=None):
    """Median wall time of one fit at ``epsilon``: a row per method (in its colour), a marker per dataset,
    logarithmic time axis.

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"dataset": ["A", "A"], "n": 10, "d": 2, "k": 2, "method": ["EUGkM", "diffprivlib"],
    ...                   "epsilon": 1.0, "fit_seconds": [0.01, 0.2]})
    >>> fit_times(s).axes[0].get_xlabel()
    'wall time of one fit (seconds, log scale)'
    """
    from ..experiments.families import DATASET_NAMES

    ms = _methods_in(summary, methods)
    names = [n for n in DATASET_NAMES if n in set(summary["dataset"])] + sorted(
        n for n in set(summary["dataset"]) if n not in DATASET_NAMES)
    fig, ax = figure(height=4.6, layout="constrained")
    s = summary[summary["epsilon"] == epsilon]
    for j, name in enumerate(names):
        sd = s[s["dataset"] == name].set_index("method")
        for i, m in enumerate(ms):
            if m in sd.index and np.isfinite(sd.loc[m, "fit_seconds"]):
                ax.scatter(sd.loc[m, "fit_seconds"], i + (j - (len(names) - 1) / 2) * 0.12,
                           marker=_DATASET_MARKERS[j % len(_DATASET_MARKERS)], s=42,
                           color=method_style(m)["color"], edgecolors=PALETTE["black"], linewidths=0.6, zorder=3)
    ax.set_yticks(range(len(ms)))
    ax.set_yticklabels(ms)
    ax.invert_yaxis()
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(lambda v, _pos: f"{v:g}")
    ax.set_xlabel("wall time of one fit (seconds, log scale)")
    ax.set_ylabel("method")
    ax.grid(axis="y", visible=False)
    handles = [Line2D([], [], color="white", marker=_DATASET_MARKERS[j % len(_DATASET_MARKERS)],
                      markerfacecolor=PALETTE["grey"], markeredgecolor=PALETTE["black"], markersize=7, label=n)
               for j, n in enumerate(names)]
    _legend_below(fig, handles, ncol=3)
    ax.set_title(f"ε = {epsilon:g}", fontsize=10)
    return fig


def at_epsilon(summary, epsilon: float, methods=None, groups=None):
    """Every method's loss on every dataset at one ε (the frame of the appendix's Explore slider): two panels,
    low- and high-dimensional datasets; a marker per method at the median, a bar over [25 %, 75 %], short grey
    dotted bars at the loss of one centre and the non-private level 1.

    Parameters
    ----------
    summary : DataFrame
    epsilon : float
    methods : sequence of str, optional
    groups : pair of sequences of str, optional
        The datasets of the left and right panels (default: d <= 10 left, d > 10 right).

    Examples
    --------
    >>> import pandas as pd
    >>> s = pd.DataFrame({"dataset": ["A", "B"], "n": 10, "d": [2, 64], "k": 2, "method": "EUGkM",
    ...                   "epsilon": 1.0, "loss": [1.5, 3.0], "loss_q25": [1.4, 2.0], "loss_q75": [1.6, 4.0]})
    >>> [ax.get_ylabel() for ax in at_epsilon(s, 1.0).axes]
    ['loss (WCSS / non-private WCSS)', '']
    """
    from ..experiments.families import DATASET_NAMES

    ms = _methods_in(summary, methods)
    names = [n for n in DATASET_NAMES if n in set(summary["dataset"])] + sorted(
        n for n in set(summary["dataset"]) if n not in DATASET_NAMES)
    if groups is None:
        dim = summary.groupby("dataset")["d"].first()
        groups = ([n for n in names if dim[n] <= 10], [n for n in names if dim[n] > 10])
    groups = [list(g) for g in groups if len(g)]
    fig, axes = figure(len(groups), height=4.6, layout="constrained", sharey=True)
    axes = np.atleast_1d(axes)
    s = summary[(summary["epsilon"] == epsilon) | (summary["method"] == "one centre")]
    width = 0.8 / max(len(ms), 1)
    top = []
    for ax, group in zip(axes, groups):
        for j, name in enumerate(group):
            sd = s[s["dataset"] == name].set_index("method")
            for i, m in enumerate(ms):
                if m not in sd.index or not np.isfinite(sd.loc[m, "loss"]):
                    continue
                x = j + (i - (len(ms) - 1) / 2) * width
                st = method_style(m)
                ax.vlines(x, sd.loc[m, "loss_q25"], sd.loc[m, "loss_q75"], color=st["color"], linewidth=2.2)
                ax.scatter(x, sd.loc[m, "loss"], marker=st["marker"] or "o", s=40, color=st["color"], zorder=3,
                           **_edge(st["marker"]))
                top.append(sd.loc[m, "loss_q75"])
            if "one centre" in sd.index:
                ax.hlines(sd.loc["one centre", "loss"], j - 0.45, j + 0.45, color=PALETTE["grey"],
                          linestyle=(0, (1, 1.5)), linewidth=2.2)
        ax.axhline(1.0, color=PALETTE["black"], linestyle="--", linewidth=1.3)
        ax.set_xticks(range(len(group)))
        ax.set_xticklabels(group)
        ax.set_xlim(-0.55, len(group) - 0.45)
        ax.set_xlabel("dataset")
        ax.grid(axis="x", visible=False)
        ax.set_yscale("log")
    axes[0].set_ylabel("loss (WCSS / non-private WCSS)")
    finite = [t for t in top if np.isfinite(t)]
    axes[0].set_ylim(0.9, max(max(finite, default=2.0) * 1.3, 2.0))
    for ax in axes:
        _log_ticks(ax)
    fig.suptitle(f"ε = {epsilon:g}: median and [25 %, 75 %] over the seeds", fontsize=11)
    _legend_below(fig, [Line2D([], [], color=method_style(m)["color"], marker=method_style(m)["marker"] or "o",
                               linestyle="", markersize=7, label=m) for m in ms] + _reference_handles(), ncol=4)
    return fig


_LEAF_COLOURS = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple", "sky", "yellow", "black")]


def lsh_tree(X, demo, *, title=None):
    """The SimHash prefix tree of :func:`~dpclust_book.experiments.families.lsh_tree_demo` in two panels. Left:
    the 2-D points coloured by their leaf (grey: in no leaf), the random hyperplanes through the centre (lines,
    numbered by level) and every leaf's average as a large marker. Right: the tree, one row per level, each
    node with its noisy count: split (it has children), kept as a leaf, or dropped (below the threshold τ).

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_book.experiments import families as fx
    >>> X = np.random.default_rng(0).normal(0, 0.3, (1000, 2))
    >>> len(lsh_tree(X, fx.lsh_tree_demo(X, depth=3)).axes)
    2
    """
    X = np.asarray(X, dtype=float)
    nodes, leaf_of, dirs = demo["nodes"], demo["leaf_of"], demo["directions"]
    depth = len(dirs)
    fig, (ax, bx) = figure(ncols=2, height=4.2, layout="constrained")
    # left: the data, the hyperplanes, the leaves
    out = leaf_of < 0
    ax.scatter(X[out, 0], X[out, 1], s=4, color=PALETTE["grey"], alpha=0.35, linewidths=0)
    for j in range(int(leaf_of.max()) + 1):
        m = leaf_of == j
        col = _LEAF_COLOURS[j % len(_LEAF_COLOURS)]
        ax.scatter(X[m, 0], X[m, 1], s=4, color=col, alpha=0.4, linewidths=0)
        c, w = demo["leaf_means"][j], demo["leaf_counts"][j]
        ax.scatter(*c, s=40 + 0.25 * max(w, 0.0), marker="o", color=col, edgecolors=PALETTE["black"],
                   linewidths=1.2, zorder=4)
    lim = 1.05 * float(np.abs(X).max())
    for level, v in enumerate(dirs, start=1):
        w = np.array([-v[1], v[0]]) / np.linalg.norm(v)  # the hyperplane <y, v> = 0 is the line along w
        w = w * lim / np.abs(w).max()  # to the edge of the square panel
        ax.plot([-w[0], w[0]], [-w[1], w[1]], color=PALETTE["black"], lw=1.0, ls="--")
        ax.annotate(f"ℓ = {level}", 0.85 * w, fontsize=10, ha="center", va="center",
                    bbox=dict(boxstyle="round,pad=0.15", fc="white", ec="none", alpha=0.85), zorder=5)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xlabel("$y_1$")
    ax.set_ylabel("$y_2$")
    ax.set_title("leaves; ● noisy leaf averages", fontsize=11)
    # right: the tree
    pos = {}
    for level in range(1, depth + 1):
        lv = nodes[nodes["level"] == level].sort_values("code")
        xs = np.linspace(0, 1, len(lv) + 2)[1:-1]
        for x, (_, r) in zip(xs, lv.iterrows()):
            pos[(level, r["code"])] = x
    leaf_no = 0
    crowded = {lvl for lvl in range(1, depth + 1) if (nodes["level"] == lvl).sum() > 7}
    rank = {key: i for lvl in range(1, depth + 1)
            for i, key in enumerate(sorted(k for k in pos if k[0] == lvl))}
    for _, r in nodes.iterrows():
        x, y = pos[(r["level"], r["code"])], -r["level"]
        parent = (r["level"] - 1, r["code"] // 2)
        px, py = (0.5, 0.0) if r["level"] == 1 else (pos[parent], -(r["level"] - 1))
        bx.plot([px, x], [py, y], color=PALETTE["grey"], lw=1.0, zorder=1)
        if r["status"] == "split":
            style = dict(marker="o", color=PALETTE["grey"], edgecolors=PALETTE["black"])
        elif r["status"] == "leaf":
            style = dict(marker="o", color=_LEAF_COLOURS[leaf_no % len(_LEAF_COLOURS)], edgecolors=PALETTE["black"])
            leaf_no += 1
        else:
            style = dict(marker="x", color=PALETTE["black"])
        bx.scatter(x, y, s=90, zorder=3, linewidths=1.0, **style)
        up = r["level"] in crowded and rank[(r["level"], r["code"])] % 2 == 1  # stagger a crowded row
        bx.annotate(f"{int(round(r['noisy count']))}", (x, y), xytext=(0, 9 if up else -9), textcoords="offset points",
                    ha="center", va="bottom" if up else "top", fontsize=9, zorder=4,
                    bbox=dict(boxstyle="round,pad=0.1", fc="white", ec="none", alpha=0.85))
    bx.scatter(0.5, 0.0, s=90, marker="o", color=PALETTE["grey"], edgecolors=PALETTE["black"], zorder=3)
    bx.set_ylim(-depth - 0.7, 0.4)
    bx.set_xlim(-0.02, 1.02)
    bx.set_yticks([-lvl for lvl in range(0, depth + 1)])
    bx.set_yticklabels(["root"] + [f"ℓ = {lvl}" for lvl in range(1, depth + 1)])
    bx.set_xticks([])
    bx.set_xlabel("the nodes of each level")
    bx.grid(False)
    bx.spines["bottom"].set_visible(False)
    t = demo["threshold"]
    bx.set_title(f"the tree: noisy counts, τ = {t:.0f}", fontsize=11)
    handles = [Line2D([], [], marker="o", ls="", color=PALETTE["grey"], markeredgecolor=PALETTE["black"],
                      markersize=8, label="split (≥ 3τ)"),
               Line2D([], [], marker="o", ls="", color=_LEAF_COLOURS[0], markeredgecolor=PALETTE["black"],
                      markersize=8, label="leaf (≥ τ)"),
               Line2D([], [], marker="x", ls="", color=PALETTE["black"], markersize=8, label="dropped (below τ)"),
               Line2D([], [], color=PALETTE["black"], ls="--", lw=1.0, label="hyperplane of level ℓ")]
    fig.legend(handles=handles, loc="outside lower center", ncol=4, fontsize=9, columnspacing=1.0)
    if title:
        fig.suptitle(title, fontsize=11)
    return fig
