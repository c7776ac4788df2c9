"""Figures of chapter 2 (DPLloyd and its error analysis).

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes, and the fixed colours of the methods (DPLloyd orange,
DPLloyd-Impr vermillion, the non-private baseline black and dashed). The tables they draw come from
:mod:`dpclust_book.experiments.dplloyd`.

Examples
--------
>>> from dpclust_book.experiments import dplloyd as ex
>>> from dpclust_book.plots import dplloyd as draw
>>> fig = draw.swapped_split(ex.swapped_split_table(range(1, 11)))
>>> len(fig.axes)
1
"""
from __future__ import annotations

import matplotlib.pyplot as plt
import matplotlib.ticker as mticker
import numpy as np

from . import PALETTE, figure, method_style
from ._layout import MIN_FONT, stacked_2x2
from dpclust_core.kmeans.error_models import count_sum_ratio, epsilon_m, n_rounds

__all__ = ["centroid_paths", "error_model", "split_curves", "rounds_rule", "nicv_by_rounds",
           "initial_centroids", "init_comparison", "original_vs_improved", "swapped_split", "versions"]

NAMES = {"original": "DPLloyd", "improved": "DPLloyd-Impr"}
_POINTS = dict(s=3, color=PALETTE["grey"], alpha=0.35, linewidths=0)


def _value_axis(ax, values):
    """Log scale with plain labels when the values span more than a factor 4, else a linear axis."""
    values = np.asarray(values, dtype=float)
    if values.max() > 4 * values.min():
        ax.set_yscale("log")
        ax.yaxis.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
        ax.yaxis.set_minor_formatter(mticker.NullFormatter())


def _square(ax, lim=1.05):
    ax.set_xlim(-lim, lim)
    ax.set_ylim(-lim, lim)
    ax.set_aspect("equal")
    ax.set_xlabel("$x_1$ (scaled to [−1, 1])")


def centroid_paths(X, fits: dict, nicvs: dict | None = None):
    """Two panels: the path of every centroid over the rounds of each fitted DPLloyd in ``fits`` (a dict
    from a method name, e.g. "DPLloyd", to a fitted estimator with ``history_``)."""
    fig, axes = figure(ncols=2, height=3.9, sharey=True)
    X = np.asarray(X)
    for ax, (name, est) in zip(axes, fits.items()):
        st = method_style(name)
        ax.scatter(X[:, 0], X[:, 1], **_POINTS)
        path = np.stack([h["centroids"] for h in est.history_] + [est.history_[-1]["new_centroids"]])
        for j in range(path.shape[1]):
            ax.plot(path[:, j, 0], path[:, j, 1], "-", lw=1.0, color=st["color"], alpha=0.7)
        ax.scatter(path[0, :, 0], path[0, :, 1], marker="x", s=35, color=PALETTE["black"], linewidths=1.2,
                   label="start", zorder=3)
        ax.scatter(path[-1, :, 0], path[-1, :, 1], marker=st["marker"], s=45, color=st["color"],
                   edgecolors="white", linewidths=0.8, label="after the last round", zorder=4)
        sub = f"{est.n_iter_} rounds"
        if nicvs and name in nicvs:
            sub += f", NICV {nicvs[name]:.3f}"
        ax.set_title(f"{name}\n{sub}", fontsize=11)
        _square(ax)
    axes[0].set_ylabel("$x_2$ (scaled to [−1, 1])")
    axes[0].legend(loc="lower left", fontsize=9, framealpha=0.8, frameon=True)
    return fig


def error_model(sweeps):
    """Model against measurement of the one-round MSE (a table from
    :func:`~dpclust_book.experiments.dplloyd.error_model_sweeps`): one panel per parameter varied, and a
    fourth with the ratio measured/model of all settings against the relative noise of a count."""
    fig, axes = stacked_2x2(2.88)
    model_st = dict(color=PALETTE["blue"], linestyle="-", label="model")
    meas_st = dict(color=PALETTE["vermillion"], marker="o", linestyle="", label="measured")
    labels = {"ε": "ε (total budget)", "d": "d (dimensions)", "k": "k (clusters)"}
    for ax, sweep in zip(axes.flat, ("ε", "d", "k")):
        g = sweeps[sweeps.sweep == sweep]
        ax.plot(g.value, g.model, **model_st)
        ax.plot(g.value, g.measured, **meas_st)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(labels[sweep])
        ax.set_ylabel("MSE of a centroid")
        if sweep != "ε":
            ax.set_xticks(g.value, [f"{v:g}" for v in g.value])
            ax.xaxis.set_minor_formatter(plt.NullFormatter())
        fixed = {"ε": f"d={g.d.iloc[0]}, k={g.k.iloc[0]}", "d": f"k={g.k.iloc[0]}, ε={g.epsilon.iloc[0]:g}",
                 "k": f"d={g.d.iloc[0]}, ε={g.epsilon.iloc[0]:g}"}[sweep]
        ax.set_title(f"varying {sweep} (N={g.n.iloc[0]:,}, {fixed})", fontsize=10)
    axes[0, 0].legend(loc="upper right")
    ax = axes[1, 1]
    ax.axhspan(0.85, 1.15, color=PALETTE["green"], alpha=0.12, linewidth=0, label="within 15%")
    ax.axhline(1.0, color=PALETTE["black"], lw=1, ls="--")
    for sweep, mk in (("ε", "o"), ("d", "s"), ("k", "^")):
        g = sweeps[sweeps.sweep == sweep]
        ax.plot(g["count noise"], g["measured / model"], marker=mk, linestyle="", label=f"varying {sweep}",
                color={"ε": PALETTE["vermillion"], "d": PALETTE["blue"], "k": PALETTE["orange"]}[sweep])
    ax.set_xscale("log")
    ax.set_ylim(0, 1.3)
    ax.set_xlabel("relative noise of a count")
    ax.set_ylabel("measured / model")
    ax.set_title("all settings", fontsize=10)
    ax.legend(loc="lower left", fontsize=MIN_FONT)
    return fig


def split_curves(curves, measured=None, measured_d: int = 5):
    """The model's MSE against the count/sum ratio ``ε_0/ε_i`` for several d (a table from
    :func:`~dpclust_book.experiments.dplloyd.split_model_curves`), the optimum of each marked, and measured
    points for one d."""
    fig, ax = figure(height=3.9)
    colours = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple")]
    for col, (d, g) in zip(colours, curves.groupby("d")):
        ax.plot(g.ratio, g["relative MSE"], color=col, label=f"d = {d}: optimum at $c_d$ = {count_sum_ratio(d):.2f}")
        ax.axvline(count_sum_ratio(d), color=col, ls=":", lw=1)
        if measured is not None and d == measured_d:
            ax.plot(measured.ratio, measured["relative MSE"], "o", color=col, ms=7,
                    label=f"d = {d}, measured")
    ax.axvline(1.0, color=PALETTE["black"], lw=1.2, ls="--", label="PINQ's ratio at r = 1")
    ax.set_xscale("log")
    ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:g}"))
    _value_axis(ax, curves["relative MSE"])
    ax.set_xlabel("count budget / budget of one sum  ($\\varepsilon_0 / \\varepsilon_i$)")
    ax.set_ylabel("MSE / MSE at the optimum")
    ax.set_title("The count/sum split of one round")
    ax.legend(loc="upper center", fontsize=9, ncols=2)
    ax.set_ylim(top=ax.get_ylim()[1] * 3)
    return fig


def rounds_rule(cases: dict, eps_range=(0.01, 3.0)):
    """Algorithm 14's number of rounds against ε for datasets of the given public sizes (``cases`` maps a name
    to ``(N, d, k)``)."""
    fig, ax = figure(height=3.4)
    eps = np.logspace(np.log10(eps_range[0]), np.log10(eps_range[1]), 400)
    colours = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion", "purple")]
    for col, (name, (n, d, k)) in zip(colours, cases.items()):
        em = epsilon_m(n, d, k)
        ax.plot(eps, [n_rounds(e, em) for e in eps], drawstyle="steps-post", color=col,
                label=f"{name}: $\\varepsilon^m$ = {em:.3g}")
    ax.set_xscale("log")
    ax.set_xlabel("ε (budget of the rounds)")
    ax.set_ylabel("rounds $t^-$")
    ax.set_yticks(range(2, 8))
    ax.set_ylim(1.5, 7.5)
    ax.set_title("How many rounds DPLloyd-Impr runs")
    ax.legend(loc="upper left", fontsize=9)
    return fig


def nicv_by_rounds(df):
    """Mean NICV against a fixed number of rounds, one line per ε, Algorithm 14's choice circled (a table from
    :func:`~dpclust_book.experiments.dplloyd.nicv_by_rounds`)."""
    fig, ax = figure(height=3.6)
    colours = [PALETTE[c] for c in ("blue", "orange", "green", "vermillion")]
    for col, (e, g) in zip(colours, df.groupby("epsilon")):
        ax.plot(g.rounds, g["mean NICV"], "o-", color=col, label=f"ε = {e:g}")
        t = int(g["Algorithm 14's rounds"].iloc[0])
        y = g.loc[g.rounds == t, "mean NICV"]
        if len(y):
            ax.plot([t], [y.iloc[0]], "o", ms=15, mfc="none", mew=1.8, color=col)
    ax.plot([], [], "o", ms=12, mfc="none", color=PALETTE["black"], label="Algorithm 14's choice")
    _value_axis(ax, df["mean NICV"])
    ax.set_xticks(sorted(df.rounds.unique()))
    ax.set_xlabel("number of rounds (fixed)")
    ax.set_ylabel("mean NICV")
    ax.set_title("More rounds: more steps, but more noise in each")
    ax.legend(loc="upper left", fontsize=9, ncols=2)
    return fig


def initial_centroids(X, random, sphere, radius):
    """Two panels: k uniform random initial centroids, and k sphere-packing centroids with their disks."""
    fig, axes = figure(ncols=2, height=3.7, sharey=True)
    X = np.asarray(X)
    for ax, C, title in ((axes[0], random, "uniform random (PINQ)"),
                         (axes[1], sphere, f"sphere packing, a = {radius:.2f}")):
        ax.scatter(X[:, 0], X[:, 1], **_POINTS)
        C = np.asarray(C)
        if ax is axes[1]:
            for c in C:
                ax.add_patch(plt.Circle(c, radius, fill=False, color=PALETTE["vermillion"], lw=0.9))
        ax.scatter(C[:, 0], C[:, 1], marker="x", s=40, color=PALETTE["vermillion"], linewidths=1.5, zorder=3)
        ax.set_title(f"{len(C)} starting centroids:\n{title}", fontsize=11)
        _square(ax)
    axes[0].set_ylabel("$x_2$ (scaled to [−1, 1])")
    return fig


def init_comparison(df):
    """Grouped bars (from zero) of the mean NICV of the two starts at each ε (a table from
    :func:`~dpclust_book.experiments.dplloyd.compare_dplloyd` with methods "random" and "sphere packing")."""
    fig, ax = figure(height=3.4)
    eps = sorted(df.epsilon.unique())
    w = 0.38
    for j, (name, col) in enumerate((("random", PALETTE["sky"]), ("sphere packing", PALETTE["vermillion"]))):
        g = df[df.method == name].set_index("epsilon").loc[eps, "mean NICV"]
        x = np.arange(len(eps)) + (j - 0.5) * w
        ax.bar(x, g.to_numpy(), w, color=col, label=name)
        for xi, v in zip(x, g):
            ax.annotate(f"{v:.3f}", (xi, v), textcoords="offset points", xytext=(0, 3), ha="center", fontsize=9)
    ax.set_xticks(range(len(eps)), [f"ε = {e:g}" for e in eps])
    ax.set_ylim(0, df["mean NICV"].max() * 1.2)
    ax.set_ylabel("mean NICV")
    ax.grid(axis="x", visible=False)
    ax.set_title("DPLloyd-Impr from the two starts")
    ax.legend(loc="upper right")
    return fig


def original_vs_improved(panels: dict):
    """Two panels of mean NICV against ε: ``panels`` maps a panel title to ``(table, baseline)`` with a table
    from :func:`~dpclust_book.experiments.dplloyd.compare_dplloyd` (methods "DPLloyd", "DPLloyd-Impr") and
    the non-private NICV."""
    fig, axes = figure(ncols=2, height=4.0)
    for ax, (title, (df, base)) in zip(axes, panels.items()):
        for name, g in df.groupby("method", sort=False):
            ax.plot(g.epsilon, g["mean NICV"], label=name, **method_style(name))
        ax.axhline(base, label="non-private", **{k: v for k, v in method_style("non-private").items()
                                                 if k != "marker"})
        ax.set_xscale("log")
        _value_axis(ax, np.append(df["mean NICV"].to_numpy(), base))
        e = sorted(df.epsilon.unique())
        ax.set_xticks(e, [f"{v:g}" for v in e])
        ax.xaxis.set_minor_formatter(plt.NullFormatter())
        ax.set_xlabel("ε")
        ax.set_title(title, fontsize=11)
    axes[0].set_ylabel("mean NICV")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=3)
    return fig


def swapped_split(table):
    """ε spent per unit requested when the count and sum shares are swapped, against d (a table from
    :func:`~dpclust_book.experiments.dplloyd.swapped_split_table`)."""
    fig, ax = figure(height=3.4)
    d, eff = table["d"].to_numpy(), table["spent / requested"].to_numpy()
    ax.plot(d, eff, "o-", color=PALETTE["vermillion"], label="shares swapped")
    ax.axhline(1.0, color=PALETTE["black"], ls="--", lw=1.2, label="correct split: exactly the budget")
    ax.fill_between(d, 1.0, eff, where=eff > 1, color=PALETTE["vermillion"], alpha=0.18, lw=0,
                    label="overspent: not ε-DP")
    ax.fill_between(d, eff, 1.0, where=eff < 1, color=PALETTE["blue"], alpha=0.18, lw=0,
                    label="underspent: needless noise")
    ax.set_xlabel("d (dimensions)")
    ax.set_ylabel("ε spent / ε requested")
    ax.set_title("Count and sum shares unpacked in the wrong order")
    ax.legend(loc="upper left", fontsize=9)
    return fig


def versions(X, n_clusters: int, epsilon: float, *, bounds=(-1.0, 1.0), random_state=0):
    """Both versions of DPLloyd fitted on ``X`` at ``epsilon``, side by side (first two coordinates): the
    released centroids, the number of rounds and the NICV. Used by the chapter's interactive figure."""
    from dpclust_core.kmeans import DPLloyd
    from dpclust_core.metrics import nicv

    fig, axes = figure(ncols=2, height=3.6, sharey=True)
    X = np.asarray(X)
    for ax, v in zip(axes, ("original", "improved")):
        est = DPLloyd(n_clusters, epsilon, bounds=bounds, variant=v, random_state=random_state).fit(X)
        name = NAMES[v]
        st = method_style(name)
        ax.scatter(X[:, 0], X[:, 1], **_POINTS)
        C = est.cluster_centers_
        ax.scatter(C[:, 0], C[:, 1], marker=st["marker"], s=70, color=st["color"], edgecolors="white",
                   linewidths=0.8, zorder=3)
        ax.set_title(f"{name}: {est.n_iter_} rounds\nNICV {nicv(X, C):.4f}", fontsize=11)
        _square(ax)
        ax.set_xlabel("coordinate 1")
    axes[0].set_ylabel("coordinate 2")
    fig.suptitle(f"d = {X.shape[1]}, k = {n_clusters}, ε = {epsilon:g}", fontsize=11)
    return fig
