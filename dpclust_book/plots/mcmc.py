"""Figures of the chapter "MCMC postprocessing" (of DP k-means).

Every function returns a matplotlib ``Figure`` in the book's style (:func:`dpclust_book.plots.figure`): 7
inches wide, at most two panels a row, labelled axes. DP k-means keeps DPLloyd's colour (orange circles), the
paper's postprocessing the colour of "MCMC" (green diamonds, solid line), the variant with projected proposal
centres the same colour as a variant of the same method (triangles, dashed line; hatched bars), and the
non-private baseline a black dashed line. The tables come from
:mod:`dpclust_book.experiments.mcmc`.

Examples
--------
>>> from dpclust_book.experiments import mcmc as ex
>>> from dpclust_book.plots import mcmc as draw
>>> fig = draw.toy(ex.toy_histogram(["marginal"], n_steps=1000, bins=8))
>>> len(fig.axes)
1
"""
from __future__ import annotations

import matplotlib.ticker as mticker
import numpy as np

from . import PALETTE, figure, method_style
from . import table  # the book's table (a format string applies to numbers only)
from dpclust_core.metrics import wcss

__all__ = ["table", "STYLES", "transcript", "trace", "datasets", "per_round_gap", "headline", "ablation", "centres",
           "toy"]

#: the fixed look of the chapter's methods
STYLES = {
    "DP k-means": method_style("DPLloyd"),
    "+ MCMC (paper)": method_style("MCMC"),
    "+ MCMC (projected centres)": dict(method_style("MCMC"), marker="^", linestyle="--"),
    "non-private": dict(color=PALETTE["black"], linestyle="--"),
}
_POINTS = dict(s=3, color=PALETTE["grey"], alpha=0.35, linewidths=0)
_BALL = ([1, 0, -1, 0, 1], [0, 1, 0, -1, 0])


def _domain(ax, lim=1.3, ball=True):
    if ball:
        ax.plot(*_BALL, ":", color=PALETTE["black"], lw=1)
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$ (scaled)")
    ax.set_ylabel("$x_2$ (scaled)")


def _in_view(ax, C, lim, label, **style):
    """Scatter centres; those beyond the frame are drawn hollow at its edge, and counted in the label."""
    C = np.asarray(C, dtype=float)
    out = (np.abs(C) > lim).any(axis=1)
    edge = np.clip(C, -lim + 0.04, lim - 0.04)
    if out.any():
        label += f" ({int(out.sum())} beyond the frame: hollow, at its edge)"
        hollow = {k: v for k, v in style.items() if k not in ("color", "edgecolors")}
        ax.scatter(edge[out, 0], edge[out, 1], facecolors="none", edgecolors=style["color"], clip_on=False,
                   **{k: v for k, v in hollow.items() if k != "linewidths"}, linewidths=1.5)
    ax.scatter(edge[~out, 0], edge[~out, 1], label=label, **style)


def transcript(Z, tr, epsilon: float):
    """The whole released transcript of one DP k-means run over the data it saw: the public starting
    centroids, the intermediate rounds and the output, with the path of every centroid."""
    fig, ax = figure(height=4.8)
    ax.scatter(Z[:, 0], Z[:, 1], **_POINTS, label="data (projected onto the L1 ball)")
    for k in range(tr.n_clusters):
        ax.plot(tr.centroids[:, k, 0], tr.centroids[:, k, 1], "-", color=PALETTE["sky"], lw=0.9, alpha=0.8)
    ax.scatter(*tr.centroids[0].T, marker="s", s=30, color=PALETTE["black"], label="$c^{(0)}$ (public start)")
    mid = tr.centroids[1:-1].reshape(-1, tr.n_features)
    ax.scatter(mid[:, 0], mid[:, 1], s=14, color=PALETTE["sky"], label="$c^{(1)}, \\dots, c^{(T-1)}$")
    st = STYLES["DP k-means"]
    ax.scatter(*tr.centroids[-1].T, marker=st["marker"], s=55, color=st["color"], edgecolors="white",
               linewidths=0.8, label="$c^{(T)}$: the output of DP k-means", zorder=4)
    _domain(ax)
    ax.set_title(f"The released transcript, ε = {epsilon:g}, T = {tr.n_rounds}")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=9)
    return fig


def trace(pp, log_target_real: float | None = None):
    """Two panels: the log target after every MH step (current state, best so far, the real data), and the
    running acceptance rate."""
    fig, axes = figure(ncols=2, height=3.4)
    steps = np.arange(pp.log_target_trace_.size)
    ax = axes[0]
    ax.plot(steps, pp.log_target_trace_, lw=0.7, color=PALETTE["sky"], label="current state")
    ax.plot(steps, np.maximum.accumulate(pp.log_target_trace_), lw=1.6, color=STYLES["+ MCMC (paper)"]["color"],
            label="best so far")
    if log_target_real is not None:
        ax.axhline(log_target_real, color=PALETTE["black"], ls="--", lw=1.2, label="the real data")
    ax.set_xlabel("MH step")
    ax.set_ylabel("log target $\\ln \\pi(D)$")
    ax.set_title("Log target", fontsize=11)
    ax.legend(loc="lower right", fontsize=9)
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v else "0"))
    ax = axes[1]
    run = np.cumsum(pp.accepted_) / np.arange(1, pp.accepted_.size + 1)
    ax.plot(steps[1:], run, color=STYLES["+ MCMC (paper)"]["color"])
    ax.set_ylim(0, 1)
    ax.set_xlabel("MH step")
    ax.set_ylabel("share of proposals accepted")
    ax.set_title("Running acceptance rate", fontsize=11)
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v / 1000:g}k" if v else "0"))
    return fig


def datasets(Z, pp):
    """Two panels over the real data (grey): the sampler's starting dataset (copies of the consistent final
    centroids, marker area ∝ copies) and the best sampled dataset with the final k-means centres."""
    fig, axes = figure(ncols=2, height=3.9, sharey=True)
    ax = axes[0]
    ax.scatter(Z[:, 0], Z[:, 1], **_POINTS)
    u, cnt = np.unique(pp.initial_dataset_, axis=0, return_counts=True)
    ax.scatter(u[:, 0], u[:, 1], s=cnt / 4, color=PALETTE["orange"], alpha=0.8, edgecolors="white")
    ax.set_title("start: $\\hat n_k^{(T)}$ copies of $\\hat c_k^{(T)}$", fontsize=11)
    ax = axes[1]
    ax.scatter(Z[:, 0], Z[:, 1], **_POINTS)
    B = pp.best_dataset_
    ax.scatter(B[:, 0], B[:, 1], s=2, color=STYLES["+ MCMC (paper)"]["color"], alpha=0.35, linewidths=0)
    ax.scatter(*pp.cluster_centers_domain_.T, marker="X", s=60, color=PALETTE["black"], edgecolors="white",
               linewidths=0.6, label="k-means on it", zorder=4)
    ax.set_title(f"best sampled dataset (step {pp.best_step_:,})", fontsize=11)
    ax.legend(loc="lower left", fontsize=9, frameon=True, framealpha=0.8)
    for ax in axes:
        _domain(ax)
    axes[1].set_ylabel("")
    return fig


def per_round_gap(gap):
    """Bars from zero: how much worse than the real data each dataset explains each round (a table from
    :func:`~dpclust_book.experiments.mcmc.per_round_fit`, one column per dataset)."""
    fig, ax = figure(height=3.3)
    cols = list(gap.columns)
    colours = [PALETTE["orange"], STYLES["+ MCMC (paper)"]["color"], PALETTE["blue"], PALETTE["purple"]]
    w = 0.8 / len(cols)
    x = np.arange(len(gap))
    for j, (c, col) in enumerate(zip(cols, colours)):
        ax.bar(x + (j - (len(cols) - 1) / 2) * w, gap[c].to_numpy(), w, color=col, label=c)
    ax.set_xticks(x, [f"round {t}" for t in gap.index])
    ax.set_ylim(0, gap.to_numpy().max() * 1.25)
    ax.set_ylabel("log-likelihood below\nthat of the real data")
    ax.grid(axis="x", visible=False)
    ax.set_title("How much worse than the real data each round is explained", fontsize=11)
    ax.legend(loc="upper left", fontsize=9, ncols=len(cols))
    return fig


def headline(panels: dict):
    """Two panels of WCSS against ε: ``panels`` maps a title to ``(runs, floor, log)`` with a
    :func:`~dpclust_book.experiments.mcmc.paired_runs` table, the non-private WCSS and whether the value axis
    is logarithmic. Lines are the means over runs, small markers the single runs."""
    fig, axes = figure(ncols=2, height=3.9)
    for ax, (title, (runs, floor, log)) in zip(axes, panels.items()):
        for name, g in runs.groupby("method", sort=False):
            st = STYLES[name]
            m = g.groupby("epsilon")["WCSS"].mean()
            ax.plot(m.index, m.to_numpy(), label=name, **st)
            if g.run.nunique() > 1:
                ax.scatter(g.epsilon, g.WCSS, s=12, color=st["color"], alpha=0.45, marker=st["marker"])
        ax.axhline(floor, label="non-private Lloyd", **STYLES["non-private"])
        ax.set_xscale("log")
        e = sorted(runs.epsilon.unique())
        ax.set_xticks(e, [f"{v:g}" for v in e])
        ax.xaxis.set_minor_formatter(mticker.NullFormatter())
        if log:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
            ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
            ax.yaxis.set_minor_formatter(mticker.NullFormatter())
        ax.set_xlabel("ε (total budget)")
        n = runs.run.nunique()
        ax.set_title(f"{title}\n(mean of {n} run{'s' if n > 1 else ''})", fontsize=11)
    axes[0].set_ylabel("WCSS (scaled units)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, fontsize=9)
    return fig


def ablation(table, title: str):
    """Horizontal bars from zero of the mean WCSS of each ingredient (a table from
    :func:`~dpclust_book.experiments.mcmc.ablation`), DP k-means on top, values written at the bar ends."""
    fig, ax = figure(height=3.6)
    names = list(table.index)[::-1]
    vals = table["mean WCSS"].to_numpy()[::-1]

    def colour(n):
        if n.startswith("DP k-means"):
            return STYLES["DP k-means"]["color"]
        if "projected centres" in n:
            return STYLES["+ MCMC (projected centres)"]["color"]
        if n.startswith("MCMC"):
            return STYLES["+ MCMC (paper)"]["color"]
        return PALETTE["sky"]

    ax.barh(range(len(names)), vals, color=[colour(n) for n in names], edgecolor="white",
            hatch=["//" if "projected centres" in n else None for n in names])
    for i, v in enumerate(vals):
        ax.annotate(f"{v:.0f}", (v, i), textcoords="offset points", xytext=(4, 0), va="center", fontsize=9)
    ax.set_yticks(range(len(names)), names)
    ax.set_xlim(0, vals.max() * 1.15)
    ax.set_xlabel("mean WCSS (lower is better)")
    ax.grid(axis="y", visible=False)
    ax.set_title(title, fontsize=11)
    return fig


def centres(Z, tr, post, title: str):
    """The output of DP k-means and of a postprocessing of its transcript over the data it saw, with the WCSS
    of each in the legend (one panel; a frame of the chapter's interactive figure)."""
    fig, ax = figure(height=5.2)
    ax.scatter(Z[:, 0], Z[:, 1], **_POINTS)
    a, b = STYLES["DP k-means"], STYLES["+ MCMC (paper)"]
    _in_view(ax, tr.final_centroids, 1.3, f"DP k-means: WCSS {wcss(Z, tr.final_centroids):.0f}",
             marker=a["marker"], s=55, color=a["color"], edgecolors="white", linewidths=0.8, zorder=3)
    _in_view(ax, post.cluster_centers_domain_, 1.3,
             f"+ MCMC: WCSS {wcss(Z, post.cluster_centers_domain_):.0f}",
             marker="X", s=70, color=b["color"], edgecolors="white", linewidths=0.8, zorder=4)
    _domain(ax)
    ax.set_title(title, fontsize=11)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), fontsize=9)
    return fig


def toy(hist):
    """The sampler's histogram on the toy transcript against the exact target (a table from
    :func:`~dpclust_book.experiments.mcmc.toy_histogram`)."""
    fig, ax = figure(height=3.4)
    x = hist.index.to_numpy()
    width = x[1] - x[0]
    ax.bar(x, hist["target"], width * 0.95, color=PALETTE["grey"], alpha=0.45, label="target π (exact)")
    marks = {"labelled": ("o", PALETTE["green"]), "marginal": ("s", PALETTE["blue"]),
             "none": ("x", PALETTE["vermillion"])}
    tv = hist.attrs.get("tv", {})
    for c in hist.columns[1:]:
        mk, col = marks.get(c, ("d", PALETTE["purple"]))
        lab = f"Hastings: {c}" + (f" (TV {tv[c]:.2f})" if c in tv else "")
        ax.plot(x, hist[c], mk, color=col, ms=6, label=lab)
    ax.set_xlabel("x (the one synthetic point)")
    ax.set_ylabel("share of the steps")
    ax.set_ylim(0, hist.to_numpy().max() * 1.2)
    ax.set_title("A chain on a toy transcript against its exact target", fontsize=11)
    ax.legend(loc="upper left", fontsize=9)
    return fig
