"""Figures of chapter 6 (the Sparse Vector Technique).

Every function returns a matplotlib ``Figure`` in the book's style (:func:`dpclust_book.plots.figure`): 7 inches
wide, at most two panels a row. Each SVT variant keeps one colour and marker throughout the chapter
(:data:`VARIANT_STYLE`); in the top-c experiment the methods are coloured by family (interactive SVT, SVT with
retraversal, the exponential mechanism).

Examples
--------
>>> from dpclust_book.plots import svt as svt_plots
>>> fig = svt_plots.pinned_frame(epsilon=1.0, c=2, ms=[0, 10])
>>> len(fig.axes)
1
"""
from __future__ import annotations

import numpy as np

from . import PALETTE, figure
from ._layout import MIN_FONT, stacked_2x2
from ..experiments import svt as svt_ex
from . import table

__all__ = ["table", "VARIANT_STYLE", "ZIPF_STYLE", "worked_example", "impossible_output", "released_value_leak",
           "pinned_threshold", "pinned_frame", "gptt_argument", "budget_split", "zipf_ser"]

#: One colour, marker and line style per SVT variant (chapter 6).
VARIANT_STYLE = {
    "lyu_su_li": dict(color=PALETTE["blue"], marker="o", linestyle="-"),
    "dwork_roth_2014": dict(color=PALETTE["sky"], marker="s", linestyle="-"),
    "standard": dict(color=PALETTE["green"], marker="^", linestyle="-"),
    "roth_2011": dict(color=PALETTE["purple"], marker="D", linestyle="-"),
    "lee_clifton_2014": dict(color=PALETTE["orange"], marker="v", linestyle="-"),
    "stoddard_2014": dict(color=PALETTE["grey"], marker="P", linestyle="-"),
    "chen_2015": dict(color=PALETTE["vermillion"], marker="X", linestyle="-"),
    "gptt": dict(color=PALETTE["black"], marker="d", linestyle="-"),
}

#: Colours of the top-c selection methods, by family.
ZIPF_STYLE = {"DPBook": PALETTE["sky"], "S 1:1": PALETTE["blue"], "S 1:3": PALETTE["blue"],
              "S 1:c": PALETTE["blue"], "S 1:c^(2/3)": PALETTE["blue"], "ReTr 1D": PALETTE["green"],
              "ReTr 2D": PALETTE["green"], "ReTr 3D": PALETTE["green"], "EM": PALETTE["vermillion"]}
CLAIM = dict(color=PALETTE["black"], linestyle="--", linewidth=1.3)
C_LINES = {1: "-", 2: "--", 5: ":", 10: "-."}


def worked_example(p_top, threshold, epsilon, c, variants):
    """Probability that each query is reported ⊤ against its true answer, one series per configuration
    (``p_top`` from :func:`dpclust_book.experiments.svt.worked_example`; ``variants`` maps each column label to
    its variant name, for the colours)."""
    fig, ax = figure(height=4.0)
    labels = [col for col in p_top.columns if col != "answer"]
    for j, label in enumerate(labels):
        st = VARIANT_STYLE[variants[label]]
        ax.plot(p_top["answer"] + (j - 1) * 1.5, p_top[label], linestyle="", marker=st["marker"],
                color=st["color"], alpha=0.85, label=label)
    ax.axvline(threshold, color=PALETTE["black"], linestyle="--", linewidth=1.2, label=f"threshold T = {threshold:g}")
    ax.set_xlabel("true answer of the query")
    ax.set_ylabel("Pr[reported ⊤] (10,000 runs)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(f"Which queries SVT reports as above T (ε = {epsilon:g}, c = {c})")
    ax.legend(loc="upper left")
    return fig


def impossible_output(view):
    """Exact probability of the output (⊥, ⊤) on both neighbours of the Stoddard et al. counterexample, with
    the Monte Carlo frequencies (``view`` from :func:`dpclust_book.experiments.svt.three_views`)."""
    fig, ax = figure(height=3.6)
    ax.bar([0, 1], [view["p_D"], view["p_Dn"]], width=0.5, color=[PALETTE["blue"], PALETTE["orange"]],
           label="exact")
    ax.plot([0, 1], [view["mc_p_D"], view["mc_p_Dn"]], linestyle="", marker="D", color=PALETTE["black"],
            label=f"Monte Carlo ({view['n_mc']:,} runs each)")
    ax.set_xticks([0, 1], ["D: q = (0, 1)", "D': q = (1, 0)"])
    ax.set_ylabel("Pr[output = (⊥, ⊤)]")
    ax.set_ylim(0, 0.25)
    ax.set_title("Stoddard et al. (no query noise): one output, two neighbours")
    ax.legend(loc="upper right")
    return fig


def released_value_leak(df, epsilon):
    """Roth 2011: ln R against the number of queries ℓ, exact and Monte Carlo with 95 % intervals (a frame from
    :func:`dpclust_book.experiments.svt.released_value_losses`)."""
    fig, ax = figure(height=3.8)
    st = VARIANT_STYLE["roth_2011"]
    ax.plot(df["queries"], df["exact"], color=st["color"], label="exact: (ℓ − 1) ε / 2")
    mc = df.dropna(subset=["Monte Carlo"])
    ax.errorbar(mc["queries"], mc["Monte Carlo"], yerr=mc["95% half-width"], fmt="o", color=PALETTE["black"],
                capsize=3, markersize=5, label="Monte Carlo, 95 % interval")
    ax.axhline(epsilon, **CLAIM, label=f"claimed ε = {epsilon:g}")
    ax.set_xlabel("number of queries ℓ (ℓ − 1 negatives, then a released number)")
    ax.set_ylabel("ln R")
    ax.set_title("Roth 2011 leaks through its released numbers")
    ax.legend(loc="upper left")
    return fig


def _pinned_panel(ax, df, variant, epsilon, cs, legend=True):
    st = VARIANT_STYLE[variant]
    for c in cs:
        d = df[(df["variant"] == variant) & (df["c"] == c)]
        ax.plot(np.maximum(d["m"], 0.5), d["loss"], color=st["color"], marker=st["marker"], markersize=4,
                linestyle=C_LINES.get(c, "-"), label=f"c = {c}")
        ax.axhline(svt_ex.pinned_limit(variant, epsilon, c), color=st["color"], linestyle=":", linewidth=1)
    ax.axhline(epsilon, **CLAIM, label=f"claimed ε = {epsilon:g}")
    ax.set_xscale("log")
    ax.set_xlabel("pinning ⊥ queries m (0 drawn at 0.5)")
    ax.set_ylabel("exact ln R")
    ax.set_title(svt_ex.SHORT_NAMES[variant], color=st["color"])
    ax.set_ylim(0, None)
    if legend:
        ax.legend(loc="lower right")


def pinned_threshold(df, epsilon, cs):
    """2×2: ln R of the pinned inputs against m for Lyu–Su–Li, Lee–Clifton and Chen et al. (dotted: the limit
    as m grows), and the limits against c (a frame from :func:`dpclust_book.experiments.svt.pinned_losses`)."""
    fig, axes = stacked_2x2(3.24)
    for ax, v in zip(axes.ravel()[:3], ("lyu_su_li", "lee_clifton_2014", "chen_2015")):
        _pinned_panel(ax, df, v, epsilon, cs)
    ax = axes[1, 1]
    cc = np.arange(1, 11)
    for v in ("lyu_su_li", "lee_clifton_2014", "chen_2015"):
        st = VARIANT_STYLE[v]
        ax.plot(cc, [svt_ex.pinned_limit(v, epsilon, c) for c in cc], color=st["color"], marker=st["marker"],
                markersize=4, label=svt_ex.SHORT_NAMES[v])
    ax.axhline(epsilon, **CLAIM, label=f"claimed ε = {epsilon:g}")
    ax.set_xlabel("cutoff c")
    ax.set_ylabel("limit of ln R as m grows")
    ax.set_title("The limits")
    ax.legend(loc="upper left")
    return fig


def pinned_frame(epsilon=1.0, c=1, ms=(0, 1, 3, 10, 30, 100, 1000, 10_000)):
    """One panel: ln R of the pinned inputs against m for the three variants at one ε and cutoff c (dotted:
    each variant's limit). Used by the chapter's explore figure."""
    df = svt_ex.pinned_losses(ms, epsilon, cs=[c])
    fig, ax = figure(height=4.0)
    top = 0.0
    for v in ("lyu_su_li", "lee_clifton_2014", "chen_2015"):
        st = VARIANT_STYLE[v]
        d = df[df["variant"] == v]
        ax.plot(np.maximum(d["m"], 0.5), d["loss"], color=st["color"], marker=st["marker"], markersize=5,
                label=svt_ex.SHORT_NAMES[v])
        lim = svt_ex.pinned_limit(v, epsilon, c)
        ax.axhline(lim, color=st["color"], linestyle=":", linewidth=1)
        top = max(top, lim)
    ax.axhline(epsilon, **CLAIM, label=f"claimed ε = {epsilon:g}")
    ax.set_xscale("log")
    ax.set_ylim(0, 1.08 * top)
    ax.set_xlabel("pinning ⊥ queries m (0 drawn at 0.5)")
    ax.set_ylabel("exact ln R")
    ax.set_title(f"Pinned threshold, ε = {epsilon:g}, c = {c}; dotted: limits as m grows")
    ax.legend(loc="upper left")
    return fig


def gptt_argument(df, epsilon=1.0):
    """Left: GPTT pairs, exact ln R, the published bound t ln κ(t) − ln 2 and the line ε2·t. Right: Lyu–Su–Li's
    all-negative output, where the same bound never becomes useful (a frame from
    :func:`dpclust_book.experiments.svt.gptt_argument`)."""
    fig, (ax0, ax1) = figure(ncols=2, height=3.9)
    g = df[df["kind"] == "gptt"]
    st = VARIANT_STYLE["gptt"]
    ax0.plot(g["t"], g["exact"], color=st["color"], marker="o", markersize=4, label="exact ln R")
    ax0.plot(g["t"], g["bound"], color=PALETTE["orange"], marker="s", markersize=4, linestyle="--",
             label="proof's bound")
    ax0.plot(g["t"], epsilon / 2 * g["t"], color=PALETTE["grey"], linestyle=":", label="ε₂ · t")
    ax0.axhline(epsilon, **CLAIM, label=f"ε = {epsilon:g}")
    ax0.set_xlabel("pairs (⊥, ⊤) t")
    ax0.set_ylabel("log-ratio")
    ax0.set_title("GPTT: the loss diverges")
    ax0.legend(loc="upper left")
    l_ = df[df["kind"] == "lyu_su_li"]
    st = VARIANT_STYLE["lyu_su_li"]
    ax1.plot(l_["t"], l_["exact"], color=st["color"], marker="o", markersize=4, label="exact ln(β/α)")
    ax1.plot(l_["t"], l_["bound"], color=PALETTE["orange"], marker="s", markersize=4, linestyle="--",
             label="same bound")
    ax1.axhline(epsilon / 2, **CLAIM, label="ε/2 (the lemma)")
    ax1.set_xscale("log")
    ax1.set_ylim(-1.0, 1.0)
    ax1.set_xlabel("negative answers t")
    ax1.set_title("Lyu–Su–Li, all ⊥: bounded")
    ax1.legend(loc="center right")
    return fig


def budget_split(cs=(1, 10, 50, 300), epsilon=1.0):
    """Standard deviation of the comparison noise ν − ρ against the share of ε on the threshold, for several
    cutoffs, with the optimum (★) and the splits 1:1 (○), 1:3 (□) and 1:c (△)."""
    from dpclust_core import svt

    f = np.geomspace(0.002, 0.95, 400)
    fig, ax = figure(height=4.2)
    colors = [PALETTE["blue"], PALETTE["orange"], PALETTE["green"], PALETTE["purple"]]
    for c, col in zip(cs, colors):
        ax.plot(f, svt.comparison_noise_std(f, epsilon, c), color=col, label=f"c = {c}")
        e1, _ = svt.optimal_split(epsilon, c)
        ax.plot(e1 / epsilon, svt.comparison_noise_std(e1 / epsilon, epsilon, c), marker="*", markersize=14,
                color=col, linestyle="")
        for frac, mk in ((0.5, "o"), (0.25, "s"), (1 / (1 + c), "^")):
            ax.plot(frac, svt.comparison_noise_std(frac, epsilon, c), marker=mk, color=col, mfc="none",
                    markersize=8, linestyle="")
    for mk, lab in (("*", "optimum 1:(2c)^(2/3)"), ("o", "1:1"), ("s", "1:3"), ("^", "1:c")):
        ax.plot([], [], marker=mk, color=PALETTE["black"], mfc="none" if mk != "*" else PALETTE["black"],
                linestyle="", label=lab)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε₁ / ε, the share of the budget on the threshold")
    ax.set_ylabel("std of ν − ρ (units of Δ/ε)")
    ax.set_title("Comparison noise against the budget split")
    ax.legend(loc="upper center", ncols=2)
    return fig


def zipf_ser(zipf, settings, n_runs=100):
    """Four panels, one a row: mean SER of every method (horizontal bars, 95 % intervals) at each setting, with
    the thesis's values (black crosses)."""
    fig, axes = stacked_2x2(3.0, sharey=True)
    methods = list(svt_ex.ZIPF_METHODS)
    ys = np.arange(len(methods))[::-1]
    for ax, key in zip(axes.ravel(), settings):
        mean = np.array([zipf[key][m][0] for m in methods])
        half = 1.96 * np.array([zipf[key][m][1] for m in methods]) / np.sqrt(n_runs)
        th = np.array([np.nan if x is None else x for x in svt_ex.THESIS_ZIPF_SER[key]])
        ax.barh(ys, mean, xerr=half, color=[ZIPF_STYLE[m] for m in methods], height=0.7, capsize=2)
        ax.plot(th, ys, linestyle="", marker="x", markersize=8, color=PALETTE["black"], label="thesis")
        ax.set_title(f"ε = {key[0]:g}, c = {key[1]}")
        ax.set_xlim(0, 1)
        ax.grid(axis="y", visible=False)
    axes[0, 0].set_yticks(ys, methods)
    axes[1, 1].set_xlabel("score error rate (lower is better)")
    axes[0, 0].legend(loc="lower right")
    return fig
