"""Figures of the appendix "Which private k-means?": every family of private k-means on the same datasets.

Every function takes the summary of :func:`dpclust_core.experiments.families.summarize` (median and spread of the
loss over the seeds) and returns a matplotlib ``Figure`` in the book's style (:func:`dpclust_core.plots.figure`):
7 inches wide, at most two panels a row, labelled axes, each method in its fixed style. The loss axis is
logarithmic (losses run from 1 to several hundred). GkM and the LSH coreset share a colour in the book's palette;
here GkM is a thin dotted line with crosses and the LSH coreset a thick solid line with pentagons.

Examples
--------
>>> from dpclust_core.experiments import families as fx
>>> from dpclust_core.plots import families as draw
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

__all__ = ["loss_vs_epsilon", "fit_times", "at_epsilon"]

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
        From :func:`~dpclust_core.experiments.families.summarize`.
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
