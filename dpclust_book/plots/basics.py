"""Figures of chapter 1 (differential privacy basics).

Every function returns a matplotlib ``Figure`` drawn with the book's style (:func:`dpclust_book.plots.figure`):
7 inches wide, at most two panels a row, labelled axes. Two neighbouring datasets keep the same look throughout
the chapter: D in blue (solid), D' in orange (dashed).

Examples
--------
>>> from dpclust_book.plots import basics
>>> fig = basics.neighbour_densities(epsilon=1.0, calibrated_to=1.0)
>>> len(fig.axes)
2
"""
from __future__ import annotations

import numpy as np
from scipy import stats

from . import PALETTE, figure, table
from ._layout import MIN_FONT, stacked_2x2

__all__ = ["table", "randomized_response", "local_changes", "laplace_release", "histogram_release",
           "gaussian_calibrations", "exponential_choices", "postprocessing", "budget_split",
           "parallel_composition", "neighbour_densities", "neighbour_densities_pair", "audit_sweep"]

D_STYLE = dict(color=PALETTE["blue"], linestyle="-")
DN_STYLE = dict(color=PALETTE["orange"], linestyle="--")
BAND = PALETTE["green"]
BAD = PALETTE["vermillion"]


def randomized_response(freq, epsilon):
    """Bars of the report frequencies (a DataFrame indexed by the true bit, columns ``report 0``/``report 1``)."""
    fig, ax = figure(height=3.4)
    w = 0.38
    for j, b in enumerate(freq.index):
        st = D_STYLE if j == 0 else DN_STYLE
        ax.bar(np.arange(2) + (j - 0.5) * w, freq.loc[b].to_numpy(), w, color=st["color"],
               label=f"true bit = {b}")
    ax.set_xticks([0, 1], ["report 0", "report 1"])
    ax.set_ylabel("fraction of reports")
    ax.set_ylim(0, 1)
    ax.set_title(f"Randomised response, ε = {epsilon:g}: each pair differs by a factor " + r"$e^{\varepsilon}$")
    ax.legend(loc="upper center", ncols=2)
    return fig


def local_changes(changes, sensitivity):
    """Histogram of how much a sum changes when one record is removed, with the global sensitivity."""
    fig, ax = figure(height=3.4)
    counts, _, _ = ax.hist(changes, bins=40, color=PALETTE["blue"], alpha=0.85, label="records")
    ax.axvline(sensitivity, color=BAD, linestyle="--", label=f"global sensitivity r = {sensitivity:g}")
    ax.set_xlabel("change of the sum of x₁ when one record is removed")
    ax.set_ylabel("number of records")
    ax.set_ylim(0, 1.3 * counts.max())
    ax.set_title("Local changes stay below the global sensitivity")
    ax.legend(loc="upper left")
    return fig


def laplace_release(releases, true_value, epsilon, sensitivity=1.0):
    """Histogram of many Laplace releases of a count on D, with the output densities on D and on D'
    (one record fewer)."""
    b = sensitivity / epsilon
    t = np.linspace(true_value - 8 * b, true_value + 8 * b, 600)
    fig, ax = figure(height=3.8)
    ax.hist(releases, bins=120, range=(t[0], t[-1]), density=True, color=PALETTE["sky"], alpha=0.6,
            label=f"{len(releases):,} simulated releases on D")
    ax.plot(t, stats.laplace(true_value, b).pdf(t), **D_STYLE, label=f"density on D (count {true_value:g})")
    ax.plot(t, stats.laplace(true_value - sensitivity, b).pdf(t), **DN_STYLE,
            label=f"density on D' (count {true_value - sensitivity:g})")
    ax.set_xlabel("released count")
    ax.set_ylabel("probability density")
    ax.set_ylim(0, 1.45 / (2 * b))
    ax.set_title(f"Laplace mechanism for a count, ε = {epsilon:g} (noise scale {b:g})")
    ax.legend(loc="upper left")
    return fig


def histogram_release(labels, true_counts, noisy_counts, epsilon):
    """True and privately released counts of a histogram, side by side."""
    fig, ax = figure(height=3.6)
    xs = np.arange(len(labels))
    ax.bar(xs - 0.2, true_counts, 0.4, color=PALETTE["grey"], label="true counts")
    ax.bar(xs + 0.2, noisy_counts, 0.4, color=PALETTE["blue"], label=f"one private release, ε = {epsilon:g}")
    ax.set_xticks(xs, labels)
    ax.set_xlabel("years of smoking (bins fixed in advance)")
    ax.set_ylabel("number of people")
    ax.set_title("A private histogram: Lap(1/ε) on every bin")
    ax.legend(loc="upper right")
    return fig


def gaussian_calibrations(df, delta):
    """σ against ε for the classic, analytic and discrete calibrations (a frame from
    :func:`dpclust_book.experiments.basics.gaussian_calibrations`)."""
    fig, ax = figure(height=3.8)
    ax.plot(df["epsilon"], df["classic"], color=PALETTE["grey"], linestyle=":",
            label="classic (proof only for ε < 1)")
    ax.plot(df["epsilon"], df["analytic"], color=PALETTE["vermillion"], label="analytic (Balle & Wang)")
    ax.plot(df["epsilon"], df["discrete (package)"], color=PALETTE["blue"], linestyle="--",
            label="discrete Gaussian (the package)")
    ax.set_yscale("log")
    ax.set_xlabel("ε")
    ax.set_ylabel("noise standard deviation σ")
    ax.set_title(f"Gaussian mechanism, δ = {delta:g}, L2 sensitivity 1")
    ax.legend(loc="upper right")
    return fig


def exponential_choices(labels, p_general, p_monotonic, frequencies, epsilon, curve):
    """Top: the probability of choosing each option (general, monotonic, and the frequencies of simulated
    draws). Bottom: Pr[choose the best] against ε (a frame with ``epsilon``, ``general``, ``monotonic``)."""
    fig, (ax0, ax1) = figure(nrows=2, height=7.6)
    fig.get_layout_engine().set(h_pad=0.25)
    xs = np.arange(len(labels))
    w = 0.27
    ax0.bar(xs - w, p_general, w, color=PALETTE["sky"], label=r"general: $\propto \exp(\varepsilon q / 2\Delta q)$")
    ax0.bar(xs, p_monotonic, w, color=PALETTE["blue"], label=r"monotonic: $\propto \exp(\varepsilon q / \Delta q)$")
    ax0.bar(xs + w, frequencies, w, color=PALETTE["orange"], label="monotonic, simulated draws")
    ax0.set_xticks(xs, labels)
    ax0.set_xlabel("bin (years of smoking)")
    ax0.set_ylabel("probability of being chosen")
    ax0.set_title(f"Which bin is the largest? Exponential mechanism, ε = {epsilon:g}")
    ax0.legend(loc="upper right")
    ax1.plot(curve["epsilon"], curve["general"], color=PALETTE["sky"], label="general")
    ax1.plot(curve["epsilon"], curve["monotonic"], color=PALETTE["blue"], linestyle="--", label="monotonic")
    ax1.set_xlabel("ε")
    ax1.set_ylabel("Pr[choose the largest bin]")
    ax1.set_title("Dropping the factor 2 doubles the effective ε")
    ax1.legend(loc="lower right")
    return fig


def postprocessing(df, epsilon):
    """RMSE of raw and post-processed (rounded, clamped) Laplace counts against the true count."""
    fig, ax = figure(height=3.6)
    ax.plot(df["true count"], df["raw"], marker="o", color=PALETTE["grey"], label="raw Laplace release")
    ax.plot(df["true count"], df["rounded and clamped"], marker="s", color=PALETTE["blue"],
            label="rounded and clamped at 0 (post-processing)")
    ax.set_xlabel("true count")
    ax.set_ylabel("root mean squared error")
    ax.set_ylim(0, 1.25 * df["raw"].max())
    ax.set_title(f"Post-processing is free and helps small counts (ε = {epsilon:g})")
    ax.legend(loc="lower right")
    return fig


def budget_split(df, epsilon, n_records):
    """Median error of a private mean against the share of the budget spent on the count."""
    fig, ax = figure(height=3.6)
    ax.plot(df["share on the count"], df["median error"], marker="o", color=PALETTE["blue"])
    best = df.loc[df["median error"].idxmin()]
    ax.plot([best["share on the count"]], [best["median error"]], marker="*", markersize=16,
            color=PALETTE["vermillion"], linestyle="", label=f"best share ≈ {best['share on the count']:.2f}")
    ax.set_yscale("log")
    ax.set_xlabel("share s of the budget spent on the count")
    ax.set_ylabel("median |private mean − true mean|")
    ax.set_title(f"Splitting ε = {epsilon:g} between a count and a sum (N = {n_records})")
    ax.legend(loc="upper center")
    return fig


def parallel_composition(df, epsilon):
    """Error per bin of a k-bin histogram with and without parallel composition (log-log)."""
    fig, ax = figure(height=3.6)
    ax.loglog(df["bins"], df["sequential"], marker="o", color=PALETTE["vermillion"],
              label="bins as unrelated queries: ε/k each")
    ax.loglog(df["bins"], df["parallel"], marker="s", color=PALETTE["blue"],
              label="parallel composition: ε each")
    ax.set_xlabel("number of bins k")
    ax.set_ylabel("mean absolute error per bin")
    ax.set_title(f"A histogram with k bins at a total ε = {epsilon:g}")
    ax.legend(loc="upper left")
    return fig


def _densities(ax_d, ax_r, epsilon, calibrated_to, difference, legend=True):
    b = calibrated_to / epsilon
    half = max(6 * b, 2 * difference, 2.0)
    t = np.linspace(-half, difference + half, 800)
    p1, p2 = stats.laplace(0.0, b), stats.laplace(difference, b)
    ax_d.plot(t, p1.pdf(t), **D_STYLE, label="on D (f(D) = 0)")
    ax_d.plot(t, p2.pdf(t), **DN_STYLE, label=f"on D' (f(D') = {difference:g})")
    ax_d.set_xlabel("output t")
    ax_d.set_ylabel("density")
    ax_d.set_ylim(0, 1.5 * p1.pdf(0.0))
    ax_d.set_title(f"Lap({calibrated_to:g}/{epsilon:g}) noise")
    if legend:
        ax_d.legend(loc="upper left")
    lr = p1.logpdf(t) - p2.logpdf(t)
    top = float(np.abs(lr).max())
    inside = top <= epsilon + 1e-9
    ax_r.axhspan(-epsilon, epsilon, color=BAND, alpha=0.15, label="allowed: ±ε")
    ax_r.plot(t, lr, color=PALETTE["black"] if inside else BAD, label=r"$\ln\, p_D(t)/p_{D'}(t)$")
    lim = max(3.0, 1.25 * top)
    ax_r.set_ylim(-lim, lim)
    ax_r.set_xlabel("output t")
    ax_r.set_ylabel("log-ratio")
    ax_r.set_title(f"max |log-ratio| = {top:.2f} " + ("≤" if inside else ">") + f" ε = {epsilon:g}",
                   color=PALETTE["black"] if inside else BAD)
    if legend:
        ax_r.legend(loc="upper right")
    return top


def neighbour_densities(epsilon=1.0, calibrated_to=1.0, difference=1.0):
    """Output densities of the Laplace mechanism on two neighbours whose answers differ by ``difference``,
    with noise calibrated to the sensitivity ``calibrated_to`` (left), and their log-ratio (right)."""
    fig, (ax_d, ax_r) = figure(ncols=2, height=3.6)
    _densities(ax_d, ax_r, epsilon, calibrated_to, difference)
    return fig


def neighbour_densities_pair(epsilon=1.0, difference=1.0):
    """Two rows: noise calibrated to the true sensitivity ``difference`` (top) and to half of it (bottom)."""
    fig, axes = stacked_2x2(2.97)
    _densities(axes[0, 0], axes[0, 1], epsilon, difference, difference)
    _densities(axes[1, 0], axes[1, 1], epsilon, difference / 2, difference, legend=False)
    axes[0, 0].set_title(f"calibrated to sensitivity {difference:g}")
    axes[1, 0].set_title(f"calibrated to {difference / 2:g} (too little noise)", color=BAD)
    return fig


def audit_sweep(df, epsilon):
    """Left: −log10 p-value of the audit against the noise factor. Right: the auditor's lower bound on ε, the
    true ε and the claimed ε (a frame from :func:`dpclust_book.experiments.basics.audit_noise_sweep`)."""
    fig, (ax0, ax1) = figure(ncols=2, height=3.8)
    f = df["noise factor"].to_numpy()
    score = -np.log10(np.maximum(df["p-value"].to_numpy(), 1e-300))
    ax0.plot(f, score, marker="o", color=PALETTE["blue"])
    ax0.axhline(2, color=BAD, linestyle="--", label="p = 0.01")
    ax0.set_yscale("symlog", linthresh=10)
    ax0.set_ylim(0, 600)
    ax0.set_xlabel("noise / correct noise")
    ax0.set_ylabel("−log₁₀ p-value")
    ax0.set_title("Too little noise is caught")
    ax0.legend(loc="upper right")
    ax1.plot(f, df["lower bound"], marker="o", color=PALETTE["blue"], label="audit's lower bound")
    ax1.plot(f, df["true epsilon"], color=PALETTE["black"], linestyle=":", label="true ε")
    ax1.axhline(epsilon, color=BAD, linestyle="--", label=f"claimed ε = {epsilon:g}")
    ax1.set_xlabel("noise / correct noise")
    ax1.set_ylabel("ε")
    ax1.set_ylim(0, None)
    ax1.set_title("The bound tracks the true ε")
    ax1.legend(loc="upper right")
    return fig

