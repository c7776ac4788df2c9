"""Figures of the chapters "k-tuple clustering" and "Private Gaussian mixtures".

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes. Each algorithm keeps one look across both chapters
(:data:`STYLES`): PrivatekNoisyCenters purple circles, PrivatekAverages green squares, PrivateGaussianMixture
vermillion, the naive baseline orange triangles, non-private EM black; true centres are black crosses.

Examples
--------
>>> import pandas as pd
>>> from dpclust_book.plots import ktuple as kp
>>> df = pd.DataFrame({"epsilon": [1.0, 1.0], "corrupted": [0, 10], "success rate": [1.0, 0.5]})
>>> fig = kp.soft_test(df, pd.DataFrame({"epsilon": [1.0], "pass threshold": [5.0], "m": [3]}))
>>> len(fig.axes)
1
"""
from __future__ import annotations

import math

import matplotlib.ticker as mticker
import numpy as np
from matplotlib.patches import Circle, Ellipse

from . import PALETTE, figure, method_style
from ._layout import MIN_FONT, stacked_2x2
from . import table  # the book's table (a format string applies to numbers only)

__all__ = ["table", "sci", "log_axis", "STYLES", "style", "instance", "soft_test", "private_centres", "kaverages_cost", "tuples_sweep",
           "samples_vs_separation", "kmeans_comparison", "spread_sweep", "spread_frame", "mixture_fit",
           "sample_complexity", "naive_histograms", "errors_vs", "separation_heatmap", "mixture_frame"]

#: The look of every algorithm of the two chapters (methods of earlier chapters keep their book-wide style).
STYLES = {
    "PrivatekNoisyCenters": dict(color=PALETTE["purple"], marker="o", linestyle="-"),
    "PrivatekAverages": dict(color=PALETTE["green"], marker="s", linestyle="-"),
    "PrivateKMeansEasy (NoisyCenters)": method_style("PrivateKMeansEasy"),
    "PrivateKMeansEasy (Averages)": dict(method_style("PrivateKMeansEasy"), hatch="//"),
    "PrivateGaussianMixture": dict(color=PALETTE["vermillion"], marker="o", linestyle="-"),
    "naive": dict(color=PALETTE["orange"], marker="^", linestyle="-"),
    "EM (non-private)": dict(color=PALETTE["black"], marker="s", linestyle="--"),
}
_EPS_COLORS = [PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["vermillion"]]
_EPS_MARKERS = ["o", "s", "^", "D"]
_TRUE = dict(marker="x", s=70, color=PALETTE["black"], linewidths=1.8, zorder=4)


_SUPER = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(v, digits: int = 2) -> str:
    """A number for a table: plain below 10⁴ (``digits`` significant digits), else as ``5.2 × 10⁵``; a missing
    or infinite value is "—".

    Examples
    --------
    >>> sci(523_000), sci(1e9), sci(0.0123), sci(173), sci(7.18e-4), sci(float("inf"))
    ('5.2 × 10⁵', '10⁹', '0.012', '173', '7.2 × 10⁻⁴', '—')
    """
    if v is None or not np.isfinite(v):
        return "—"
    v = float(v)
    if v == 0 or 1e-3 <= abs(v) < 1e4:
        if v == round(v) or abs(v) >= 10 ** digits:
            return f"{v:,.0f}"  # counts stay whole numbers
        return f"{v:.{digits}g}"
    e = math.floor(math.log10(abs(v)))
    mant = f"{v / 10 ** e:.{digits - 1}f}".rstrip("0").rstrip(".")
    if mant == "10":  # rounding carried into the next power
        mant, e = "1", e + 1
    power = "10" + str(e).translate(_SUPER)
    return power if mant == "1" else f"{mant} × {power}"


def _tick(v, _pos=None, powers=False):
    if v <= 0:
        return ""
    if not powers and 1e-4 <= v < 1e4:
        return f"{v:g}"
    e = math.floor(math.log10(v) + 1e-9)
    m = v / 10 ** e
    return f"$10^{{{e}}}$" if abs(m - 1) < 1e-6 else f"${m:g}{{\\times}}10^{{{e}}}$"


def log_axis(ax, which: str = "y"):
    """Label a logarithmic axis at round values only: decades when it spans several, else 1-2-5 steps; plain
    numbers between 0.0001 and 10⁴, powers of ten beyond. No minor-tick labels. Call it after plotting."""
    axis = ax.yaxis if which == "y" else ax.xaxis
    lo, hi = ax.get_ylim() if which == "y" else ax.get_xlim()
    span = math.log10(hi) - math.log10(max(lo, 1e-300))
    subs = (1.0,) if span > 2.6 else (1.0, 2.0, 5.0) if span > 0.7 else (1.0, 1.5, 2.0, 3.0, 5.0, 7.0)
    axis.set_major_locator(mticker.LogLocator(base=10, subs=subs))
    powers = span > 2.6 and (hi > 2e4 or lo < 1e-4)  # one style on an axis: all powers of ten, or all plain
    axis.set_major_formatter(mticker.FuncFormatter(lambda v, pos: _tick(v, pos, powers)))
    axis.set_minor_formatter(mticker.NullFormatter())
    return ax


def style(name: str) -> dict:
    """``color``, ``marker``, ``linestyle`` (and ``hatch`` for bars) of an algorithm of these chapters."""
    return dict(STYLES.get(name, method_style(name)))


def _line(name):
    st = style(name)
    st.pop("hatch", None)
    return st


def _centres(ax, C, name, label=None, size=90):
    st = style(name)
    ax.scatter(C[:, 0], C[:, 1], marker=st["marker"] or "o", s=size, color=st["color"], edgecolors="white",
               linewidths=1.0, zorder=5, label=label or name)


# ============================================================================ chapter 7
def instance(T_nice, T_bad, X, gamma: float, n_bad: int):
    """Two tuple sets side by side (each tuple's points joined by a faint line) with the balls
    ``B(x_i, D_i(X)/gamma)`` of the tuple ``X``; the first ``n_bad`` tuples of ``T_bad`` are highlighted."""
    from dpclust_core.ktuple import tuple_separation

    radii = tuple_separation(X) / gamma
    fig, axes = figure(ncols=2, height=3.9, sharex=True, sharey=True)
    for ax, T, title in ((axes[0], T_nice, "every tuple partitioned"),
                         (axes[1], T_bad, f"{n_bad} tuples spoiled")):
        for t, Y in enumerate(T):
            loop = np.vstack([Y, Y[:1]])
            bad = T is T_bad and t < n_bad
            ax.plot(loop[:, 0], loop[:, 1], color=PALETTE["vermillion"] if bad else PALETTE["grey"],
                    lw=1.2 if bad else 0.5, alpha=1.0 if bad else 0.5, zorder=1)
        ax.scatter(T[:, :, 0].ravel(), T[:, :, 1].ravel(), s=7, color=PALETTE["blue"], zorder=2,
                   label="tuple points")
        if T is T_bad:
            ax.scatter(T[:n_bad, :, 0].ravel(), T[:n_bad, :, 1].ravel(), s=22, color=PALETTE["vermillion"], zorder=3,
                       label="spoiled tuples")
        for c, r in zip(X, radii):
            ax.add_patch(Circle(c, r, fill=False, color=PALETTE["black"], lw=1.3, zorder=4))
        ax.set_title(title)
        ax.set_xlabel("$x_1$ (data units)")
        ax.set_aspect("equal")
        ax.legend(loc="lower left", fontsize=9, handletextpad=0.2, borderaxespad=0.2)
    axes[0].set_ylabel("$x_2$ (data units)")
    axes[0].set_ylim(-9, 11.5)
    return fig


def soft_test(rates, thresholds):
    """Success probability of GoodCenters against the number of spoiled tuples, one line per ε, with each
    ε's pass threshold as a dashed vertical line (``rates`` and ``thresholds`` as returned by
    :func:`dpclust_book.experiments.ktuple.soft_test_rates` and ``good_centers_table``)."""
    fig, ax = figure(height=3.8)
    for j, (eps, df) in enumerate(rates.groupby("epsilon", sort=True)):
        col, mk = _EPS_COLORS[j % 4], _EPS_MARKERS[j % 4]
        thr = thresholds.set_index("epsilon").loc[eps]
        ax.plot(df["corrupted"], df["success rate"], marker=mk, color=col,
                label=f"ε = {eps:g} (m = {int(thr['m'])})")
        ax.axvline(thr["pass threshold"], color=col, linestyle="--", lw=1.2)
    ax.set_xlabel("number of spoiled tuples (of n = 300)")
    ax.set_ylabel("Pr[status = Success]")
    ax.set_ylim(-0.03, 1.03)
    ax.set_title("The private niceness test is soft (dashed: pass thresholds)")
    ax.legend(loc="upper right", frameon=True, framealpha=0.95, edgecolor="white")
    return fig


def private_centres(T, true_centres, centres, name="PrivatekNoisyCenters", zoom: int = 1, half_width=None):
    """Left: a tuple set's points, the true centres and an algorithm's private centres. Right: a zoom on the
    true centre ``zoom``, where the whole cloud of tuple points is a dot next to the private centre's error."""
    C = np.asarray(true_centres)
    fig, (a, b) = figure(ncols=2, height=3.7)
    E = None if centres is None else np.asarray(centres)
    for ax in (a, b):
        ax.scatter(T[:, :, 0].ravel(), T[:, :, 1].ravel(), s=6, color=PALETTE["grey"], alpha=0.5,
                   label=f"{T.shape[0]:,} × {T.shape[1]} tuple points", zorder=2)
        ax.scatter(C[:, 0], C[:, 1], label="true centres", **_TRUE)
        if E is not None:
            _centres(ax, E, name, label="private centres")
        ax.set_xlabel("$x_1$ (data units)")
        ax.set_aspect("equal", adjustable="box")
    a.set_ylabel("$x_2$ (data units)")
    a.set_title(name, fontsize=11)
    c = C[zoom]
    if half_width is None:
        half_width = 1.5 if E is None else 1.3 * max(np.min(np.linalg.norm(E - c, axis=1)), 0.05)
    b.set_xlim(c[0] - half_width, c[0] + half_width)
    b.set_ylim(c[1] - half_width, c[1] + half_width)
    b.set_title(f"zoom on the centre at ({c[0]:g}, {c[1]:g})", fontsize=11)
    b.annotate(f"all {T.shape[0]:,} tuple points\n(under the cross)", c, xytext=(12, -30),
               textcoords="offset points", fontsize=9, arrowprops=dict(arrowstyle="->", lw=0.8))
    b.legend(loc="lower right", fontsize=9, frameon=True, framealpha=0.95, edgecolor="white")
    return fig


def kaverages_cost(slack, budget):
    """Left: the slack ℓ against the number of tuples, one line per ε. Right: the group size g and the
    per-cluster budget ε̂ against ε (``slack``/``budget`` from ``kaverages_slack``/``kaverages_budget``)."""
    fig, (a, b) = figure(ncols=2, height=3.6)
    for j, (eps, df) in enumerate(slack.groupby("epsilon", sort=True)):
        a.plot(df["n"], df["ell"], marker=_EPS_MARKERS[j % 4], color=_EPS_COLORS[j % 4], label=f"ε = {eps:g}")
    a.set_xscale("log")
    a.set_yscale("log")
    a.set_xlabel("number of tuples n")
    a.set_ylabel("slack ℓ (tuples)")
    a.set_title("The slack of the soft test")
    a.legend(loc="upper right")
    log_axis(a, "x")
    log_axis(a, "y")
    b.plot(budget["epsilon"], budget["g"], marker="o", color=PALETTE["blue"], label="group size g = 2(ℓ+1)k")
    b.plot(budget["epsilon"], budget["ε̂"], marker="s", color=PALETTE["vermillion"],
           label="per-cluster budget ε̂")
    b.set_xscale("log")
    b.set_yscale("log")
    b.set_xlabel("total budget ε")
    b.set_ylabel("g (points), ε̂")
    b.set_title("k = 2, n = $10^6$ tuples")
    b.legend(loc="center left", fontsize=9)
    log_axis(b, "x")
    log_axis(b, "y")
    return fig


def tuples_sweep(df):
    """Success rate (left) and median largest centre error (right, failures drawn at the top) against the
    number of tuples, one line per algorithm (``df`` from ``tuples_sweep``)."""
    fig, (a, b) = figure(ncols=2, height=3.6)
    top = 1e3
    for name, g in df.groupby("algorithm", sort=False):
        st = _line(name)
        lab = f"{name}\n({int(g['samples per tuple'].iloc[0]):,} samples a tuple)"
        a.plot(g["tuples"], g["success rate"], **st)
        err = np.minimum(g["median error"].to_numpy(), top)
        b.plot(g["tuples"], err, label=lab, **st)
    a.set_xscale("log")
    a.set_ylim(-0.03, 1.03)
    a.set_xlabel("number of tuples n")
    a.set_ylabel("success rate")
    b.legend(loc="lower left", fontsize=9)
    b.set_xscale("log")
    b.set_yscale("log")
    b.axhline(top, color=PALETTE["grey"], lw=1, linestyle=":")
    b.annotate("failed", (df["tuples"].min(), top), xytext=(2, -12), textcoords="offset points", fontsize=9,
               color=PALETTE["grey"])
    b.set_xlabel("number of tuples n")
    b.set_ylabel("median centre error (data units)")
    for ax in (a, b):
        log_axis(ax, "x")
    log_axis(b, "y")
    return fig


def samples_vs_separation(nc, avg, nc_tuples: int, avg_tuples: int):
    """Total samples (tuples × samples per tuple) each algorithm needed against the separation R."""
    fig, ax = figure(height=3.8)
    ax.plot(nc["R"], nc["total samples"], label=f"PrivatekNoisyCenters ({nc_tuples} tuples, least N)",
            **_line("PrivatekNoisyCenters"))
    ok = avg["success rate"] > 0
    ax.plot(avg["R"][ok], avg["total samples"][ok], label=f"PrivatekAverages ({avg_tuples:,} tuples, succeeded)",
            **_line("PrivatekAverages"))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ticks = sorted(set(nc["R"]) | set(avg["R"]))
    ax.set_xticks(ticks, [f"{r:g}" for r in ticks])
    ax.minorticks_off()
    ax.set_xlabel("separation R (means at R·e_i, unit-variance Gaussians)")
    ax.set_ylabel("total samples")
    ax.legend(loc="upper right", fontsize=9)
    log_axis(ax, "y")
    return fig


def kmeans_comparison(df):
    """Fraction of runs recovering the centres, per method (horizontal bars), one panel per blob standard
    deviation (``df`` from ``kmeans_easy_comparison``)."""
    sds = sorted(df["sd"].unique())
    fig, axes = figure(ncols=2, height=3.4, sharey=True)
    for ax, sd in zip(np.atleast_1d(axes), sds):
        g = df[df["sd"] == sd].groupby("method", sort=False)["recovered"].mean()
        names = list(g.index)
        for i, name in enumerate(names):
            st = style(name)
            ax.barh(i, g[name], color=st["color"], hatch=st.get("hatch"), edgecolor="white", height=0.7)
            ax.annotate(f"{g[name]:.2f}", (g[name], i), xytext=(3, 0), textcoords="offset points", va="center",
                        fontsize=9)
        ax.set_yticks(range(len(names)), [n.replace(" (", "\n(") for n in names], fontsize=9)
        ax.set_xlim(0, 1.2)
        ax.invert_yaxis()
        ax.grid(axis="y", visible=False)
        n_runs = int(df[df["sd"] == sd].groupby("method").size().iloc[0])
        ax.set_title(f"blob sd = {sd:g} ({n_runs} runs each)", fontsize=11)
        ax.set_xlabel("fraction of runs recovering")
    return fig


def spread_sweep(df):
    """Success rate of PrivatekNoisyCenters against the spread of the tuples, one line per ε."""
    fig, ax = figure(height=3.8)
    for j, (eps, g) in enumerate(df.groupby("epsilon", sort=True)):
        ax.plot(g["spread"], g["success rate"], marker=_EPS_MARKERS[j % 4], color=_EPS_COLORS[j % 4],
                label=f"ε = {eps:g} (Γ = {g['gamma'].iloc[0]:,.0f})")
    ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("tuple spread (sd of each tuple point around its centre, data units)")
    ax.set_ylabel(f"success rate ({int(df.attrs.get('reps', 5))} runs)")
    ax.set_title("PrivatekNoisyCenters needs very tight tuples")
    ax.legend(loc="upper right")
    log_axis(ax, "x")
    return fig


def spread_frame(T, est, true_centres, gamma: float, spread: float, epsilon: float):
    """One run of PrivatekNoisyCenters: the plane (left) and a zoom on the first true centre (right) with the
    ball of radius ``D/Γ`` that every tuple point must fall in for the test to pass."""
    from dpclust_core.ktuple import tuple_separation

    C = np.asarray(true_centres)
    fig, (a, b) = figure(ncols=2, height=3.7)
    for ax in (a, b):
        ax.scatter(T[:, :, 0].ravel(), T[:, :, 1].ravel(), s=5, color=PALETTE["grey"], alpha=0.5,
                   label="tuple points")
        ax.scatter(C[:, 0], C[:, 1], label="true centre", **_TRUE)
        if est.status_:
            _centres(ax, est.cluster_centers_, "PrivatekNoisyCenters", label="private centre")
        ax.set_xlabel("$x_1$ (data units)")
        ax.set_aspect("equal", adjustable="box")
    a.set_ylabel("$x_2$ (data units)")
    r = tuple_separation(C)[0] / gamma
    b.add_patch(Circle(C[0], r, fill=False, color=PALETTE["blue"], lw=2.2, zorder=6, label="ball radius D/Γ"))
    w = max(6 * r, 6 * spread)
    b.set_xlim(C[0, 0] - w, C[0, 0] + w)
    b.set_ylim(C[0, 1] - w, C[0, 1] + w)
    b.legend(loc="upper right", fontsize=9, frameon=True, framealpha=0.9, edgecolor="white")
    b.set_title(f"zoom: spread {spread:g}, Γ = {gamma:,.0f}", fontsize=11)
    a.set_title(f"ε = {epsilon:g}: status = {'Success' if est.status_ else 'Failure'}", fontsize=11)
    return fig


# ============================================================================ chapter 8
def _ellipse(ax, mean, cov, **kw):
    """The 2-sigma ellipse of a 2-D Gaussian."""
    vals, vecs = np.linalg.eigh(cov)
    angle = np.degrees(np.arctan2(vecs[1, -1], vecs[0, -1]))
    ax.add_patch(Ellipse(mean, 4 * np.sqrt(vals[-1]), 4 * np.sqrt(vals[0]), angle=angle, fill=False, **kw))


def mixture_fit(true, X, labels, centres, private, em, max_points: int = 3000):
    """Top left: the mixture's sample and the private centres ĉ_i. Other panels: a zoom on each component
    (up to three) with the 2-sigma ellipses of the truth, the private fit and non-private EM."""
    from dpclust_book.experiments.mixtures import match_components

    k = true.n_components
    fig, axes = stacked_2x2(2.97)
    axes = axes.ravel()
    idx = np.random.default_rng(0).choice(X.shape[0], min(max_points, X.shape[0]), replace=False)  # display subset
    Xs, ys = X[idx], np.asarray(labels)[idx]
    axes[0].scatter(Xs[:, 0], Xs[:, 1], s=3, c=ys, cmap="tab10", alpha=0.5, linewidths=0)
    if centres is not None:
        _centres(axes[0], np.asarray(centres), "PrivateGaussianMixture", label="private centres ĉ", size=60)
    axes[0].set_title("the mixture and the private centres", fontsize=11)
    axes[0].set_xlabel("$x_1$")
    axes[0].set_ylabel("$x_2$")
    axes[0].legend(loc="center", fontsize=MIN_FONT, frameon=True, framealpha=0.95, edgecolor="white")
    perm_p = match_components(true.means, private.means)
    perm_e = match_components(true.means, em.means)
    for i in range(min(k, 3)):
        ax = axes[i + 1]
        pts = Xs[ys == i]
        ax.scatter(pts[:, 0], pts[:, 1], s=4, color=PALETTE["grey"], alpha=0.4, linewidths=0)
        _ellipse(ax, true.means[i], true.covariances[i], color=PALETTE["black"], lw=2.5, label="true")
        _ellipse(ax, private.means[perm_p[i]], private.covariances[perm_p[i]],
                 color=style("PrivateGaussianMixture")["color"], lw=1.8, ls="--", label="private")
        _ellipse(ax, em.means[perm_e[i]], em.covariances[perm_e[i]], color=PALETTE["sky"], lw=1.5, ls=":",
                 label="EM (non-private)")
        ax.set_xlim(true.means[i, 0] - 3, true.means[i, 0] + 3)
        ax.set_ylim(true.means[i, 1] - 3, true.means[i, 1] + 3)
        ax.set_aspect("equal")
        ax.set_title(f"component {i} (weight {true.weights[i]:.1f})", fontsize=11)
        ax.set_xlabel("$x_1$")
    axes[1].legend(loc="upper left", fontsize=MIN_FONT)
    for j in range(min(k, 3) + 1, 4):
        axes[j].set_visible(False)
    return fig


def sample_complexity(tests, gammas):
    """Three panels, one per test (total samples for 90 % success against the varied parameter, log-log),
    and a fourth with PrivatekNoisyCenters' Γ against k and d (``gammas``: columns ``parameter``, ``value``,
    ``gamma``). Test 2 gets a reference line of slope −2."""
    fig, axes = stacked_2x2(2.97)
    axes = axes.ravel()
    st = _line("PrivatekNoisyCenters")
    for ax, (name, g) in zip(axes, tests.groupby("test", sort=False)):
        ax.plot(g["value"], g["total samples"], **st)
        ax.set_xscale("log")
        ax.set_yscale("log")
        vals = list(g["value"])
        ax.set_xticks(vals, [f"{v:g}" for v in vals])
        ax.minorticks_off()
        ax.set_xlabel(g["parameter"].iloc[0])
        ax.set_title(name, fontsize=11)
        log_axis(ax, "y")
        if g["parameter"].iloc[0] == "R":
            x0, y0 = vals[0], 2.5 * g["total samples"].iloc[0]
            ax.plot([x0, vals[-1]], [y0, y0 * (x0 / vals[-1]) ** 2], color=PALETTE["grey"], linestyle=":",
                    lw=2, label="slope −2 (∝ 1/R²)")
            ax.legend(loc="upper right", fontsize=MIN_FONT)
    axes[0].set_ylabel("total samples for 90 % success")
    axes[2].set_ylabel("total samples for 90 % success")
    ax = axes[3]
    for j, (par, g) in enumerate(gammas.groupby("parameter", sort=False)):
        ax.plot(g["value"], g["gamma"], marker=_EPS_MARKERS[j], color=_EPS_COLORS[j], label=f"against {par}")
    ax.set_xscale("log")
    ticks = sorted(set(gammas["value"]))
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.minorticks_off()
    ax.set_xlabel("k or d")
    ax.set_ylabel("Γ of PrivatekNoisyCenters")
    ax.set_title("why: Γ grows with k and d", fontsize=11)
    ax.set_ylim(0, 1.1 * float(gammas["gamma"].max()))
    ax.legend(loc="lower right", fontsize=MIN_FONT)
    return fig


def naive_histograms(x, noisy, sigma: float, epsilon: float):
    """Histograms of a 1-D sample before (left) and after (right) the naive per-point Gaussian noise."""
    fig, (a, b) = figure(ncols=2, height=3.3)
    a.hist(x, bins=80, color=PALETTE["blue"])
    a.set_title("the sample (means −5 and +5)", fontsize=11)
    a.set_xlabel("x (data units)")
    a.set_ylabel("count")
    b.hist(noisy, bins=80, color=style("naive")["color"])
    b.set_title(f"after per-point noise, σ = {sigma:.0f} (ε = {epsilon:g})", fontsize=11)
    b.set_xlabel("x (data units)")
    return fig


def errors_vs(by_n, by_R):
    """Largest mean error (left) and weight error (right) against the sample size n (top) and against the
    separation R (bottom), one line per method; a private run that failed (⊥) is a cross at the bottom."""
    fig, axes = stacked_2x2(2.97)
    for row, (df, x, xlabel) in enumerate(((by_n, "n", "total samples n"),
                                          (by_R, "R", "separation R (means at R·e_i)"))):
        for col, key in enumerate(("mean error", "weight error")):
            ax = axes[row, col]
            floor = np.nanmin(df[key].to_numpy()) / 3
            for name, g in df.groupby("method", sort=False):
                st = _line(name)
                ok = g["success"].to_numpy()
                if name == "PrivateGaussianMixture":
                    agg = g[ok].groupby(x)[key].median()
                    ax.plot(agg.index, agg.to_numpy(), label=name, **st)
                    if (~ok).any():
                        ax.scatter(g[x][~ok], np.full((~ok).sum(), floor), marker="x", s=70, color=st["color"],
                                   label="private: ⊥ (failed)", zorder=5)
                else:
                    ax.plot(g[x], g[key], label=name, **st)
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel(f"largest {key}")
            ax.set_title(f"{key} against {x}", fontsize=11)
            log_axis(ax, "y")
            if row == 1:
                vals = sorted(df[x].unique())
                ax.set_xticks(vals, [f"{v:g}" for v in vals])
                ax.minorticks_off()
            else:
                log_axis(ax, "x")
    axes[0, 0].legend(loc="center left", fontsize=MIN_FONT)
    return fig


def separation_heatmap(df):
    """Success rate of the private separation on a grid of separations R (rows) and sample sizes n."""
    Rs = sorted(df["R"].unique())
    ns = sorted(df["n"].unique())
    M = df.pivot(index="R", columns="n", values="success rate").loc[Rs, ns].to_numpy()
    fig, ax = figure(height=3.6)
    im = ax.imshow(M, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
    for i in range(len(Rs)):
        for j in range(len(ns)):
            ax.text(j, i, f"{M[i, j]:.2f}", ha="center", va="center", fontsize=10,
                    color="white" if M[i, j] < 0.5 else "black")
    ax.set_xticks(range(len(ns)), [f"$10^{{{int(round(np.log10(n)))}}}$" for n in ns])
    ax.set_yticks(range(len(Rs)), [f"{r:g}" for r in Rs])
    ax.set_xlabel("total samples n")
    ax.set_ylabel("separation R")
    ax.grid(False)
    fig.colorbar(im, ax=ax, label="success rate")
    return fig


def mixture_frame(true, est, sample, title: str):
    """A 2-D sample with the 2-sigma ellipses of the true mixture and of a private fit (none on ⊥): the whole
    plane (left) and a zoom on the first component (right), where the two fits can be told apart."""
    fig, (a, b) = figure(ncols=2, height=3.9)
    col = style("PrivateGaussianMixture")["color"]
    for ax in (a, b):
        ax.scatter(sample[:, 0], sample[:, 1], s=3, color=PALETTE["grey"], alpha=0.4, linewidths=0)
        for i in range(true.n_components):
            _ellipse(ax, true.means[i], true.covariances[i], color=PALETTE["black"], lw=2.5,
                     label="true" if i == 0 else None)
        if est.success_:
            for i in range(true.n_components):
                _ellipse(ax, est.means_[i], est.covariances_[i], color=col, lw=1.8, ls="--",
                         label="private fit" if i == 0 else None)
        ax.set_xlabel("$x_1$")
    a.set_aspect("equal", adjustable="datalim")
    a.set_ylabel("$x_2$")
    a.set_title("the plane", fontsize=11)
    m = true.means[0]
    w = 3.5 * float(np.sqrt(np.linalg.eigvalsh(true.covariances[0]).max()))
    b.set_xlim(m[0] - w, m[0] + w)
    b.set_ylim(m[1] - w, m[1] + w)
    b.set_aspect("equal")
    b.set_title("zoom on one component", fontsize=11)
    b.legend(loc="upper right", fontsize=9, frameon=True, framealpha=0.9, edgecolor="white")
    fig.suptitle(title, fontsize=12)
    return fig
