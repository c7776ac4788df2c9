"""Figures of the chapter "WaveCluster with differential privacy".

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes. The four private techniques keep one style each
(:data:`STYLES`, keyed by the estimator's ``method``): Baseline grey, PrivQT vermillion, PrivTHR blue,
PrivTHR_EM green. A labelled grid is drawn with one colour per cluster and white for the cells that are not
significant.

Examples
--------
>>> import numpy as np
>>> from dpclust_book.plots import wavecluster as viz
>>> fig, ax = viz.figure()
>>> _ = viz.grid_map(ax, np.array([[0, -1], [-1, 1]]), title="two clusters")
>>> viz.style("thr")["color"]
'#0072B2'
"""
from __future__ import annotations

import numpy as np
from matplotlib.colors import ListedColormap

from . import METHODS as _BOOK_METHODS
from . import PALETTE, figure
from ._layout import MIN_FONT, NARROW, stacked_2x2
from . import table  # the book's table (a format string applies to numbers only)

__all__ = ["table", "NAMES", "STYLES", "style", "figure", "grid_map", "pipeline", "privqt_bias", "k_prime_bars",
           "metric_panels", "metric_curve", "compare_maps", "match_labels", "alpha_curves"]

#: The paper's names of the techniques, keyed by the estimator's ``method``.
NAMES = {"baseline": "Baseline", "qt": "PrivQT", "thr": "PrivTHR", "thr_em": "PrivTHR_EM"}
#: Colour, marker and line style of each technique (the book's palette).
STYLES = {
    "baseline": dict(color=PALETTE["grey"], marker="s", linestyle=":"),
    "qt": dict(color=PALETTE["vermillion"], marker="v", linestyle="-."),
    "thr": dict(color=PALETTE["blue"], marker="o", linestyle="-"),
    "thr_em": dict(color=PALETTE["green"], marker="^", linestyle="--"),
}
_ORDER = ("baseline", "qt", "thr", "thr_em")
_NOISE = PALETTE["vermillion"]
# one colour per cluster: 20 distinguishable colours, cycled (matplotlib's tab20 reordered, dark shades first)
_CLUSTER_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22",
                   "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173", "#3182bd", "#e6550d", "#31a354",
                   "#756bb1", "#636363", "#aec7e8", "#98df8a"]
_CMAP = ListedColormap(_CLUSTER_COLORS)


def style(method: str) -> dict:
    """Style of a technique, by its ``method`` string or its paper name (the book's palette if it has one)."""
    key = {v: k for k, v in NAMES.items()}.get(method, method)
    name = NAMES.get(key, method)
    if name in _BOOK_METHODS:  # a book-wide style wins, so every chapter agrees
        return dict(_BOOK_METHODS[name])
    return dict(STYLES.get(key, dict(color=PALETTE["grey"], marker=".", linestyle="-")))


def _label(method):
    return NAMES.get(method, method)


def _map_axes(ax, bounds):
    lo, hi = (np.broadcast_to(np.asarray(b, dtype=float), (2,)) for b in bounds)
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_aspect("equal")
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(True)
        ax.spines[side].set_color(PALETTE["grey"])
    ax.set_xlabel("$x_1$")
    ax.set_ylabel("$x_2$")
    return (lo[0], hi[0], lo[1], hi[1])


def grid_map(ax, grid_labels, bounds=(0.0, 1.0), *, title=None):
    """Draw a labelled W grid: one colour per cluster (cycled), white where the cell is not significant."""
    lab = np.asarray(grid_labels).T.astype(float)  # W[i, j] is cell (x1 = i, x2 = j): transpose for imshow
    lab[lab < 0] = np.nan
    extent = _map_axes(ax, bounds)
    ax.imshow(lab % len(_CLUSTER_COLORS), origin="lower", extent=extent, cmap=_CMAP, vmin=-0.5,
              vmax=len(_CLUSTER_COLORS) - 0.5, interpolation="nearest")
    if title:
        ax.set_title(title)
    return ax


def _subset(X, max_points, seed=0):
    X = np.asarray(X, dtype=float)
    if X.shape[0] <= max_points:
        return np.arange(X.shape[0])
    return np.random.default_rng(seed).choice(X.shape[0], max_points, replace=False)  # a display subset


def pipeline(X, wc, *, max_points=6000):
    """The steps of WaveCluster on one dataset, as a 3 × 2 figure: the data, the counts M, the approximation
    W, the significant cells, the connected components, and the points labelled (noise in vermillion).

    ``wc`` is a fitted non-private :class:`~dpclust_core.wavecluster.WaveCluster` (2-D)."""
    fig, axes = figure(ncols=2, nrows=3, height=9.0)
    bounds = wc.bounds_
    g, h = wc.counts_.shape[0], wc.W_.shape[0]
    idx = _subset(X, max_points)
    ax = axes[0, 0]
    _map_axes(ax, bounds)
    ax.scatter(*np.asarray(X)[idx].T, s=1.5, color=PALETTE["black"], alpha=0.4, linewidths=0)
    ax.set_title(f"The data: {len(X):,} points")
    ax = axes[0, 1]
    ext = _map_axes(ax, bounds)
    im = ax.imshow(wc.counts_.T, origin="lower", extent=ext, cmap="viridis", interpolation="nearest")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="points per cell")
    ax.set_title(f"Step 1: counts M ({g} × {g})")
    ax = axes[1, 0]
    ext = _map_axes(ax, bounds)
    im = ax.imshow(wc.W_.T, origin="lower", extent=ext, cmap="magma", interpolation="nearest")
    fig.colorbar(im, ax=ax, fraction=0.046, pad=0.03, label="W (block count / 2)")
    ax.set_title(f"Step 2: W ({h} × {h})")
    ax = axes[1, 1]
    ext = _map_axes(ax, bounds)
    ax.imshow(np.where(wc.significant_.T, 1.0, np.nan), origin="lower", extent=ext,
              cmap=ListedColormap([PALETTE["blue"]]), interpolation="nearest")
    ax.set_title(f"Step 3: {wc.n_significant_} cells with W ≥ {wc.threshold_:g}")
    grid_map(axes[2, 0], wc.grid_labels_, bounds, title=f"Step 4: {wc.n_clusters_} clusters of cells")
    ax = axes[2, 1]
    _map_axes(ax, bounds)
    lab = np.asarray(wc.labels_)[idx]
    pts = np.asarray(X)[idx]
    noise = lab < 0
    ax.scatter(*pts[~noise].T, s=1.5, c=lab[~noise] % len(_CLUSTER_COLORS), cmap=_CMAP, vmin=-0.5,
               vmax=len(_CLUSTER_COLORS) - 0.5, linewidths=0)
    ax.scatter(*pts[noise].T, s=8, color=_NOISE, linewidths=0, label="noise")
    share = float(np.mean(np.asarray(wc.labels_) < 0))
    ax.set_title(f"Step 5: points labelled ({share:.1%} noise)")
    return fig


def privqt_bias(noisy_W, true_W, gap, predicted, *, epsilon=1.0):
    """Why PrivQT overshoots, in two rows: (top) the noisy values W' of the cells that are empty in W and of
    those that are not, at one ε; (bottom) the measured mean ``k' - k`` against ε (``gap``: columns
    ``epsilon``, ``mean``, ``sd``) and the predicted ``(1 - p)|Z|/2``."""
    noisy_W, true_W = np.asarray(noisy_W, dtype=float), np.asarray(true_W, dtype=float)
    fig, (ax, bx) = figure(nrows=2, height=7.4)
    zero = true_W <= 0
    lo, hi = -6.0, 16.0
    bins = np.arange(lo, hi + 0.25, 0.5)
    beyond = int((noisy_W[~zero] > hi).sum())
    # stacked, so each colour is shown pure (no see-through blend) and the bar heights add up
    heights, _, _ = ax.hist([noisy_W[zero], noisy_W[~zero]], bins=bins, stacked=True,
                            color=[_NOISE, PALETTE["blue"]],
                            label=[f"empty cells, W = 0 ({int(zero.sum())})",
                                   f"non-empty cells, W > 0 ({int((~zero).sum())}; "
                                   f"{beyond} lie off the chart, W' > {hi:g})"])
    ax.axvline(0, color=PALETTE["black"], linewidth=1)
    up = int((noisy_W[zero] > 0).sum())
    ax.set_xlim(lo, hi)
    ax.set_ylim(0, 1.45 * float(np.max(heights[-1])))  # room for the legend above the bars
    ax.set_xlabel("noisy value W' of the cell (block count / 2)")
    ax.set_ylabel("number of cells")
    ax.set_title(f"PrivQT, ε = {epsilon:g}: {up} of {int(zero.sum())} empty cells get W' > 0")
    ax.legend(loc="upper right", fontsize=9.5)
    st = style("qt")
    x = gap["epsilon"].to_numpy()
    y = gap["mean"].to_numpy()
    bx.plot(x, y, label="PrivQT, measured mean", **st)
    if "sd" in gap:
        sd = gap["sd"].to_numpy()
        bx.fill_between(x, y - sd, y + sd, color=st["color"], alpha=0.15, linewidth=0, label="± 1 sd of a run")
    bx.axhline(predicted, color=PALETTE["black"], linestyle="--", linewidth=1.2,
               label=f"(1 − p)|Z|/2 = {predicted:.1f}")
    bx.set_xscale("log")
    bx.set_xticks(x, [f"{e:g}" for e in x])
    bx.minorticks_off()
    bx.set_ylim(0, 1.35 * max(predicted, float(np.max(y))))
    bx.set_xlabel("privacy budget ε (log scale)")
    bx.set_ylabel("k' − k (cells)")
    bx.set_title("The overshoot does not shrink as ε grows")
    bx.legend(loc="lower right")
    return fig


def k_prime_bars(table):
    """k'/k of each technique: this book's look-alike (filled) next to the paper's DS2 (hatched).

    ``table`` is :func:`dpclust_book.experiments.wavecluster.k_prime_table`'s result."""
    fig, ax = figure(height=3.8)
    names = list(table.index)
    x = np.arange(len(names))
    w = 0.38
    inv = {v: k for k, v in NAMES.items()}
    for i, name in enumerate(names):
        col = style(inv.get(name, name))["color"]
        ours, paper = table.loc[name, "k' / k"], table.loc[name, "paper k' / k"]
        ax.bar(i - w / 2, ours, w, color=col, label="look-alike (this book)" if i == 0 else None)
        ax.bar(i + w / 2, paper, w, facecolor="white", edgecolor=col, hatch="///", linewidth=1.5,
               label="paper's DS2" if i == 0 else None)
        for dx, v in ((-w / 2, ours), (w / 2, paper)):
            ax.annotate(f"{v:.2f}", (i + dx, v), textcoords="offset points", xytext=(0, 4), ha="center",
                        fontsize=10, bbox=dict(facecolor="white", edgecolor="none", pad=0.6))
    ax.axhline(1.0, color=PALETTE["black"], linestyle="--", linewidth=1.2, label="k' = k", zorder=0.5)
    ax.set_xticks(x, names)
    ax.set_ylim(0, 1.2 * float(np.nanmax(table[["k' / k", "paper k' / k"]].to_numpy())))
    ax.set_xlabel("technique")
    ax.set_ylabel("mean k' / true k")
    ax.set_title("How many cells each technique keeps (ε = 1)")
    ax.grid(axis="x", visible=False)
    ax.legend(loc="upper left")
    return fig


_HIGHER_IS_BETTER = {"F-measure"}  # every other metric of the chapter is a dissimilarity


def _curve(ax, means, dataset, metric, *, legend=True):
    sub = means.loc[dataset]
    for m in _ORDER:
        if m not in sub.index.get_level_values(0):
            continue
        s = sub.loc[m][metric]
        ax.plot(s.index.to_numpy(), s.to_numpy(), label=_label(m), **style(m))
    ax.set_xscale("log")
    eps = sub.index.get_level_values(-1).unique().to_numpy()
    ax.set_xticks(eps, [f"{e:g}" for e in eps])
    ax.minorticks_off()
    ax.set_ylim(bottom=0)
    ax.set_xlabel("privacy budget ε")
    better = "higher" if metric in _HIGHER_IS_BETTER else "lower"
    ax.set_ylabel(f"{metric} ({better} is better)")
    if legend:
        ax.legend(loc="best")
    return ax


_DATASETS = {"ds1": "DS1 look-alike (15 blobs)", "ds2": "DS2 look-alike (spirals)",
             "ds3": "DS3 look-alike (shapes)"}


def metric_panels(means, metric="DSG_C"):
    """One metric against ε on the look-alikes: one panel a row, :data:`~dpclust_book.plots._layout.NARROW`
    inches wide (readable on a phone), the legend below them.

    ``means`` is :func:`dpclust_book.experiments.wavecluster.metric_means`'s result."""
    datasets = list(means.index.get_level_values(0).unique())[:3]
    fig, axes = figure(nrows=len(datasets), height=2.9 * len(datasets) + 1.1)
    fig.set_size_inches(NARROW, 2.9 * len(datasets) + 1.1)
    axes = np.atleast_1d(axes)
    for ax, d in zip(axes, datasets):
        _curve(ax, means, d, metric, legend=False)
        ax.set_title(_DATASETS.get(d, d))
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=2, title="technique", fontsize=11,
               title_fontsize=11)
    return fig


def metric_curve(means, dataset, metric):
    """One metric against ε on one dataset, one line per technique (a single panel)."""
    fig, ax = figure(height=3.8)
    _curve(ax, means, dataset, metric)
    ax.set_title(f"{metric}, {_DATASETS.get(dataset, dataset)}")
    return fig


def compare_maps(truth, est, *, method=None, epsilon=None, score=None):
    """The non-private labelled grid (left) next to a private one (right), with their k and cluster counts.

    ``truth`` is a fitted WaveCluster, ``est`` a fitted PrivateWaveCluster on the same public grid; ``score``
    (e.g. the DSG_C) is written under the private map's title."""
    fig, (a, b) = figure(ncols=2, height=3.9)
    grid_map(a, truth.grid_labels_, truth.bounds_,
             title=f"non-private\nk = {truth.k_}, {truth.n_clusters_} clusters")
    name = _label(method or getattr(est, "method", ""))
    eps = epsilon if epsilon is not None else getattr(est, "epsilon", None)
    head = f"{name}, ε = {eps:g}" if eps is not None else name
    sub = f"k' = {est.k_prime_}, {est.n_clusters_} clusters"
    if score is not None:
        sub += f"\nDSG_C = {score:.2f}"
    grid_map(b, match_labels(truth.grid_labels_, est.grid_labels_), est.bounds_, title=f"{head}\n{sub}")
    return fig


def match_labels(true_grid_labels, private_grid_labels):
    """Renumber the private clusters for display: each takes the number of the true cluster it overlaps most
    (one-to-one, Hungarian matching on the overlaps); the others get numbers after the true ones. Only the
    colours change, never which cells are clustered together."""
    from scipy.optimize import linear_sum_assignment

    t = np.asarray(true_grid_labels).ravel()
    q = np.asarray(private_grid_labels)
    qf = q.ravel()
    out = np.full(qf.shape, -1, dtype=np.int64)
    present, code = np.unique(qf[qf >= 0], return_inverse=True)  # private clusters as 0..nq-1
    nq = present.size
    if nq == 0:
        return out.reshape(q.shape)
    codes = np.full(qf.shape, -1, dtype=np.int64)
    codes[qf >= 0] = code
    nt = int(t.max()) + 1 if t.size and t.max() >= 0 else 0
    new = np.full(nq, -1, dtype=np.int64)
    if nt > 0:
        both = (t >= 0) & (codes >= 0)
        overlap = np.zeros((nq, nt))
        np.add.at(overlap, (codes[both], t[both]), 1)
        r, c = linear_sum_assignment(overlap, maximize=True)
        keep = overlap[r, c] > 0
        new[r[keep]] = c[keep]
    rest = np.flatnonzero(new < 0)
    new[rest] = nt + np.arange(rest.size)
    out[codes >= 0] = new[codes[codes >= 0]]
    return out.reshape(q.shape)


def alpha_curves(df):
    """Mean DSG_C against the share α of ε given to the counts, one line per technique.

    ``df`` has columns ``method`` (paper names), ``alpha``, ``DSG_C`` (see ``experiments.alpha_sweep``)."""
    fig, ax = figure(height=3.6)
    inv = {v: k for k, v in NAMES.items()}
    for name, sub in df.groupby("method", sort=False):
        ax.plot(sub["alpha"], sub["DSG_C"], label=name, **style(inv.get(name, name)))
    ax.set_ylim(bottom=0)
    ax.set_xlabel("share α of ε spent on the counts M'")
    ax.set_ylabel("DSG_C (lower is better)")
    ax.legend(loc="upper center")
    return fig
