"""Figures of chapters 3 and 4: grid synopses (UGkM, EUGkM, MkM), the hybrid, and the comparison of every method.

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes, and each method in its fixed colour and marker
(:data:`dpclust_book.style.METHODS`). The inputs are the frames of :mod:`dpclust_book.experiments.synopsis` or
fitted estimators; nothing here fits a private model except the two ``*_frame`` functions, which draw one
frame of an interactive figure.

Examples
--------
>>> import numpy as np
>>> from dpclust_core.kmeans import EUGkM
>>> from dpclust_book.plots import synopsis as draw
>>> X = np.random.default_rng(0).uniform(-1, 1, size=(500, 2))
>>> fig = draw.synopsis_map(EUGkM(3, 1.0, bounds=(-1, 1), n_init=2, random_state=0).fit(X), X)
>>> len(fig.axes)
3
"""
from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

from . import PALETTE, clusters, figure, method_style

__all__ = ["synopsis_map", "grid_size_sweep", "error_model", "methods_over_d", "synopsis_frame",
           "switch_models", "hybrid_step", "comparison", "hybrid_frame"]

_EPS = "privacy budget ε"
_EPS_LINES = (PALETTE["blue"], PALETTE["vermillion"], PALETTE["green"])


def _square(ax, r=1.0):
    """The whole domain [-r, r]^2, square (the data-limits aspect of :func:`clusters` is replaced)."""
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlim(-r, r)
    ax.set_ylim(-r, r)


def _heatmap(ax, est, *, colorbar=True):
    """The noisy counts of a 2-D synopsis (red positive, blue negative) with the centroids on top."""
    syn = est.synopsis_
    if syn.d != 2:
        raise ValueError("the synopsis map needs 2-D data")
    r = syn.r
    H = syn.counts.reshape(syn.m, syn.m).T  # counts[i, j] is cell (x-bin i, y-bin j); imshow rows are y
    lim = float(np.abs(H).max()) or 1.0
    im = ax.imshow(H, origin="lower", extent=(-r, r, -r, r), cmap="RdBu_r", vmin=-lim, vmax=lim)
    C = est.scaled_centers_
    ax.scatter(C[:, 0], C[:, 1], marker="*", s=130, color=PALETTE["black"], edgecolors="white", linewidths=0.8,
               zorder=3, label="centroids")
    ax.set_xlabel("$x_1$ (scaled)")
    ax.set_ylabel("$x_2$ (scaled)")
    ax.grid(False)
    if colorbar:
        ax.figure.colorbar(im, ax=ax, orientation="horizontal", location="bottom", shrink=0.8, pad=0.02,
                           label="noisy count")
    return im


def synopsis_map(est, X, *, title=None):
    """Left: the released synopsis of a fitted 2-D grid estimator (noisy counts, negative ones in blue) with its
    centroids. Right: the private data (never released) with the same centroids."""
    fig, (ax0, ax1) = figure(ncols=2, height=4.3)
    _heatmap(ax0, est)
    ax0.set_title(f"Released: {est.n_cells_} noisy counts")
    name = type(est).__name__
    clusters(ax1, X, est.scaled_centers_, method=name, legend=True)
    ax1.set_title("Private data and the centroids")
    ax1.set_xlabel("$x_1$ (scaled)")
    ax1.set_ylabel("$x_2$ (scaled)")
    _square(ax1)
    ax1.legend(loc="lower left")
    if title:
        fig.suptitle(title)
    return fig


def grid_size_sweep(df):
    """Excess NICV against the cells per dimension m, one line per ε, with EUGkM's m marked (a frame from
    :func:`dpclust_book.experiments.synopsis.grid_size_sweep`)."""
    fig, ax = figure(height=4.0)
    for (eps, g), color in zip(df.groupby("epsilon"), _EPS_LINES):
        ax.plot(g["m"], g["excess"], marker="o", color=color, label=f"measured, ε = {eps:g}")
        m_eug = g["m_eugkm"].iloc[0]
        ax.axvline(m_eug, color=color, linestyle="--", linewidth=1.3, label=f"EUGkM's m = {m_eug:.1f} (ε = {eps:g})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = sorted(df["m"].unique())
    ax.set_xticks(ticks, [str(t) for t in ticks])
    ax.minorticks_off()
    ax.set_xlabel("cells per dimension m")
    ax.set_ylabel("NICV − non-private NICV")
    ax.set_title("Too coarse or too noisy: the grid size matters")
    ax.legend(loc="upper center", ncols=2)
    ax.set_ylim(top=ax.get_ylim()[1] * 8)
    return fig


def error_model(df, *, n=None, d=None, k=None):
    """Measured mean squared error of EUGkM's centroids against the variance model and the variance plus the
    squared-bias bound (a frame from :func:`dpclust_book.experiments.synopsis.error_model_check`)."""
    fig, ax = figure(height=4.0)
    eps = df.index.to_numpy()
    ax.plot(eps, df["measured"], marker="o", color=PALETTE["black"], label="measured (mean of synopses)")
    ax.plot(eps, df["variance model"], color=PALETTE["blue"], linestyle="--", label="variance model")
    ax.plot(eps, df["variance model"] + df["squared-bias bound"], color=PALETTE["vermillion"], linestyle=":",
            label="variance + squared-bias bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    _log_ticks(ax, list(eps))
    ax.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
    ax.set_xlabel(_EPS)
    ax.set_ylabel("squared error of a centroid\n(scaled units²)")
    ax.set_title("EUGkM's centroid error: measured and modelled")
    if n is not None:
        ax.text(0.02, 0.03, f"N = {n:,}, d = {d}, k = {k}", transform=ax.transAxes)
    ax.legend(loc="upper right")
    return fig


def methods_over_d(df):
    """Excess NICV of the synopsis methods against the dimension, one panel per ε (a frame from
    :func:`dpclust_book.experiments.synopsis.synopsis_methods_over_d`)."""
    eps_values = sorted(df["epsilon"].unique())
    fig, axes = figure(ncols=2, height=3.8, sharey=True)
    axes = np.atleast_1d(axes)
    for ax, eps in zip(axes, eps_values):
        g = df[df["epsilon"] == eps]
        for name in ("MkM", "UGkM", "EUGkM"):
            h = g[g["method"] == name].sort_values("d")
            if len(h):
                ax.plot(h["d"], h["excess"], label=name, **method_style(name))
        ax.set_yscale("log")
        ax.set_xticks(sorted(g["d"].unique()))
        ax.set_xlabel("dimension d")
        ax.set_title(f"ε = {eps:g}")
    axes[0].set_ylabel("NICV − non-private NICV")
    axes[0].legend(loc="lower right")
    return fig


def synopsis_frame(X, k, epsilon, theta, *, n_init=3, random_state=0):
    """One frame of chapter 3's interactive figure: EUGkM on 2-D data ``X`` at ``epsilon`` and ``theta`` —
    the synopsis (left) and the data with the centroids (right), with m and the NICV in the title."""
    from dpclust_core.kmeans import EUGkM
    from dpclust_core.metrics import nicv

    est = EUGkM(k, epsilon, bounds=(-1, 1), theta=theta, n_init=n_init, random_state=random_state).fit(X)
    fig, (ax0, ax1) = figure(ncols=2, height=3.9)
    _heatmap(ax0, est, colorbar=False)
    ax0.set_title(f"synopsis: m = {est.cells_per_dim_} per dimension")
    clusters(ax1, X, est.scaled_centers_, method="EUGkM", legend=False)
    _square(ax1)
    ax1.set_xlabel("$x_1$ (scaled)")
    ax1.set_ylabel("$x_2$ (scaled)")
    ax1.set_title(f"NICV = {nicv(X, est.scaled_centers_):.4f}")
    fig.suptitle(f"EUGkM, ε = {epsilon:g}, θ = {theta:g}")
    return fig


# ============================================================================ chapter 4
_CURVES = {  # column of switch_curves -> (label, style)
    "DPLloyd t=5": ("DPLloyd, 5 rounds", dict(color=PALETTE["orange"], linestyle=":")),
    "DPLloyd t=1": ("DPLloyd, 1 round", dict(color=PALETTE["vermillion"], linestyle="-.")),
    "Var EUGkM": ("EUGkM (variance)", dict(color=PALETTE["blue"], linestyle="--")),
    "Hybrid (R1)": ("hybrid, rule R1", dict(color=PALETTE["green"], linestyle="-", linewidth=2.6)),
    "Hybrid (R2)": ("hybrid, rule R2", dict(color=PALETTE["black"], linestyle=(0, (1, 1)))),
}


def switch_models(curves: dict):
    """The error models behind the hybrid's switch, one panel per dataset: ``curves`` maps a panel title to a
    frame of :func:`dpclust_book.experiments.synopsis.switch_curves`. The hybrid runs where its curve is below
    EUGkM's."""
    if not 1 <= len(curves) <= 2:
        raise ValueError("switch_models draws one or two panels")
    fig, axes = figure(ncols=len(curves), height=4.0)
    axes = np.atleast_1d(axes)
    for ax, (title, df) in zip(axes, curves.items()):
        for col, (label, style) in _CURVES.items():
            ax.plot(df["epsilon"], df[col], label=label, **style)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(_EPS)
        ax.set_title(title)
        _log_ticks(ax)
        ax.yaxis.set_major_locator(LogLocator(base=10, numticks=6))
    axes[0].set_ylabel("model error of a centroid\n(scaled units²)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=3)
    return fig


def hybrid_step(X, hyb, *, max_points=20_000, zoom=0.12):
    """The hybrid's two steps on 2-D data: EUGkM's centroids (hollow squares) and where the one DPLloyd round
    moved them (filled markers, arrows). Left the whole domain; right a window of half-width ``zoom`` around
    the centroid that moved most."""
    fig, axes = figure(ncols=2, height=4.0)
    E, H = hyb.eugkm_scaled_centers_, hyb.scaled_centers_
    eu, hy = method_style("EUGkM"), method_style("Hybrid")
    j = int(np.argmax(((E - H) ** 2).sum(axis=1)))
    for i, ax in enumerate(axes):
        clusters(ax, X, max_points=max_points, legend=False)
        ax.scatter(E[:, 0], E[:, 1], marker="s", s=110, facecolors="none", edgecolors=eu["color"], linewidths=2,
                   label=f"EUGkM step ({hyb.f_:.0%} of the budget)", zorder=3)
        ax.scatter(H[:, 0], H[:, 1], marker=hy["marker"], s=110, color=hy["color"], edgecolors="white",
                   linewidths=0.8, label="after one DPLloyd round", zorder=4)
        for a, b in zip(E, H):
            ax.annotate("", xy=b, xytext=a, arrowprops=dict(arrowstyle="->", color=PALETTE["black"], lw=1.3))
        if i == 0:
            _square(ax)
            ax.add_patch(Rectangle(H[j] - zoom, 2 * zoom, 2 * zoom, fill=False,
                                                                  edgecolor=PALETTE["black"], linewidth=1))
            ax.set_title("the whole domain")
        else:
            ax.set_aspect("equal", adjustable="box")
            ax.set_xlim(H[j, 0] - zoom, H[j, 0] + zoom)
            ax.set_ylim(H[j, 1] - zoom, H[j, 1] + zoom)
            ax.set_title("zoomed in (the box on the left)")
        ax.set_xlabel("longitude (scaled)")
        ax.set_ylabel("latitude (scaled)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside upper center", ncols=2)
    return fig


def _log_ticks(ax, xticks=None):
    """Log axes labelled with plain numbers (0.1, 0.2, 0.5, ...) instead of powers of ten."""
    fmt = FuncFormatter(lambda v, _: f"{v:g}")
    ax.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(NullFormatter())
    if xticks is not None:
        ax.set_xticks(list(xticks), [f"{v:g}" for v in xticks])
        ax.xaxis.set_minor_formatter(NullFormatter())


#: Lines that often coincide (UGkM = EUGkM in 2-D; the hybrid = EUGkM when it falls back) are drawn from the
#: widest to the narrowest, so that each stays visible as a stripe around the next.
_WIDTH = {"UGkM": 4.6, "EUGkM": 3.0, "Hybrid": 1.5}


def comparison(df, datasets=None, *, methods=None, title=None, row_height=3.0):
    """NICV against ε for every method, one panel per dataset (two a row), the non-private NICV dashed, one
    legend for the figure (a frame from :func:`dpclust_book.experiments.synopsis.compare_methods`; the mean
    over runs is drawn). Where UGkM, EUGkM and the hybrid coincide their lines are nested stripes."""
    datasets = list(dict.fromkeys(df["dataset"])) if datasets is None else list(datasets)
    methods = list(dict.fromkeys(df["method"])) if methods is None else list(methods)
    order = [m for m in methods if m not in _WIDTH] + [m for m in _WIDTH if m in methods]
    nrows = (len(datasets) + 1) // 2
    ncols = 1 if len(datasets) == 1 else 2
    fig, axes = figure(ncols=ncols, nrows=nrows, height=row_height * nrows + 0.9)
    axes = np.atleast_1d(axes).ravel()
    mean = df.groupby(["dataset", "method", "epsilon"])["nicv"].mean()
    eps = sorted(df["epsilon"].unique())
    lines = {}
    for ax, name in zip(axes, datasets):
        for m in order:
            s = mean.loc[name, m]
            lw = _WIDTH.get(m, 1.6)
            (lines[m],) = ax.plot(s.index, s.values, label=m, markersize=3 + lw, linewidth=lw, **method_style(m))
        base = df.loc[df["dataset"] == name, "baseline"].iloc[0]
        (lines["non-private"],) = ax.plot(eps, [base] * len(eps), color=PALETTE["black"], linestyle="--",
                                          linewidth=1.4, label="non-private")
        k = int(df.loc[df["dataset"] == name, "k"].iloc[0])
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_ticks(ax, [e for e in eps if e in (0.05, 0.1, 0.2, 0.5, 1.0, 2.0)] or None)
        ax.set_title(f"{name}, k = {k}")
        ax.set_xlabel(_EPS)
        ax.set_ylabel("NICV")
    for ax in axes[len(datasets):]:
        ax.set_visible(False)
    names = methods + ["non-private"]
    fig.legend([lines[m] for m in names], names, loc="outside upper center", ncols=5)
    if title:
        fig.suptitle(title)
    return fig


def hybrid_frame(epsilon, n_records, *, d=6, k=4, random_state=0, n_init=2):
    """One frame of chapter 4's interactive figure: the hybrid (rule R2), EUGkM and DPLloyd-Impr on Synthe-like
    data (``n_records`` points in ``k`` clusters plus 20 outliers, dimension ``d``) at ``epsilon`` — centroids in
    the first two coordinates (left), NICV (right). The NICVs are also stored in ``fig.scores_``."""
    from ..datasets import make_blobs_ratio
    from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, best_of_lloyd
    from dpclust_core.metrics import nicv

    X, _ = make_blobs_ratio(n_records, k, d, n_outliers=20, random_state=random_state)
    kw = dict(bounds=(-1, 1), random_state=random_state)
    fits = {"Hybrid": HybridKMeans(k, epsilon, policy="half", n_init=n_init, **kw),
            "EUGkM": EUGkM(k, epsilon, n_init=n_init, **kw),
            "DPLloyd-Impr": DPLloyd(k, epsilon, **kw)}
    fig, (ax0, ax1) = figure(ncols=2, height=3.9)
    clusters(ax0, X, legend=False, max_points=1000)
    scores = {}
    for name in ("EUGkM", "DPLloyd-Impr", "Hybrid"):  # the hybrid on top: it often equals EUGkM
        est = fits[name].fit(X)
        scores[name] = nicv(X, est.scaled_centers_)
        st = method_style(name)
        C = est.scaled_centers_
        ax0.scatter(C[:, 0], C[:, 1], marker=st["marker"], s=90, color=st["color"], edgecolors="white",
                    linewidths=0.8, label=name, zorder=3)
    _square(ax0)
    ax0.set_title(f"N = {n_records:,}: centroids (2 of {d} coordinates)", fontsize=11)
    handles, labels = ax0.get_legend_handles_labels()
    ax0.legend([handles[labels.index(n)] for n in fits], list(fits), loc="lower left", fontsize=9)
    base = best_of_lloyd(X, k, 3, rng=random_state)[1]
    ys = [scores[n] for n in fits]
    ax1.bar(range(3), ys, color=[method_style(n)["color"] for n in fits])
    ax1.axhline(base, color=PALETTE["black"], linestyle="--", linewidth=1.2, label="non-private")
    ax1.set_xticks(range(3), list(fits), rotation=20, ha="right")
    ax1.set_ylim(0, 1.25 * max(max(ys), base))
    ax1.set_ylabel("NICV")
    ax1.grid(axis="x", visible=False)
    used = "the hybrid ran" if fits["Hybrid"].used_hybrid_ else "fell back to EUGkM"
    ax1.set_title(f"ε = {epsilon:g}: {used}")
    ax1.legend(loc="upper right")
    fig.scores_ = dict(scores, used_hybrid=fits["Hybrid"].used_hybrid_)
    return fig
