"""Experiments of chapter 5 (the Sparse Vector Technique): the counterexamples, their three views, the worked
example and the Zipf comparison of SVT with the exponential mechanism, as tidy tables.

Every function is a thin loop over :mod:`dpclust_core.svt` (which does the sampling and the exact integration)
and returns a ``pandas.DataFrame`` (or a dict of them) that chapter 5 shows or hands to
:mod:`dpclust_core.plots.svt`.

Examples
--------
>>> from dpclust_core.experiments import svt as svt_ex
>>> df = svt_ex.pinned_losses([0, 10], epsilon=1.0, cs=[1])
>>> sorted(df["variant"].unique())
['chen_2015', 'lee_clifton_2014', 'lyu_su_li']
>>> round(float(df.query("variant == 'lee_clifton_2014' and m == 10")["loss"].iloc[0]), 4)
1.7449
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from .. import svt
from .._validation import check_epsilon, check_int, check_rng

__all__ = ["SHORT_NAMES", "variant_table", "outputs_table", "worked_example", "all_three_views", "views_table",
           "released_value_losses", "pinned_inputs", "pinned_limit", "pinned_loss", "pinned_losses", "gptt_pairs",
           "gptt_argument", "zipf_table", "zipf_agreement"]

#: How chapter 5 names each variant (the thesis numbers them Alg. 17-23).
SHORT_NAMES = {
    "lyu_su_li": "Lyu–Su–Li", "dwork_roth_2014": "Dwork–Roth", "roth_2011": "Roth 2011",
    "lee_clifton_2014": "Lee–Clifton", "stoddard_2014": "Stoddard et al.", "chen_2015": "Chen et al.",
    "gptt": "GPTT", "standard": "standard SVT",
}


def variant_table() -> pd.DataFrame:
    """The comparison table of every SVT variant (from ``dpclust_core.svt.VARIANTS``), one row per variant,
    indexed by its name in the chapter: first how it adds noise (six columns), then its name in the package and
    its privacy (four columns)."""
    sub = str.maketrans({"1": "₁", "2": "₂", "3": "₃"})

    def pretty(text):  # ε1 -> ε₁, q_i -> qᵢ
        text = text.replace("q_i", "qᵢ").replace("ν_i", "νᵢ").replace(">=", "≥")
        return "".join(ch.translate(sub) if prev == "ε" else ch for prev, ch in zip(" " + text, text))

    rows = []
    for name, v in svt.VARIANTS.items():
        nu = "none" if v.nu_scale == "0" else f"Lap({v.nu_scale})"
        if "monotone" in v.nu_scale:
            nu = "Lap(2cΔ/ε2), or Lap(cΔ/ε2) if monotone"
        actual = v.actual.replace("(Thm 5.2.1, tight)", "(tight)").replace(" (Thms 5.3.1-5.3.2)", "")
        rows.append({"variant": SHORT_NAMES[name], "thesis": v.algorithm,
                     "threshold noise ρ": pretty(f"Lap({v.rho_scale})"),
                     "ρ redrawn after ⊤": "yes" if v.resample else "no", "query noise ν": pretty(nu),
                     "output on ⊤": pretty(v.output), "cutoff": v.cutoff,
                     "svt name": name, "claimed": pretty(v.claimed),
                     "private as claimed": "yes" if v.private else "no", "actual privacy": pretty(actual)})
    return pd.DataFrame(rows).set_index("variant")


def outputs_table(out) -> pd.DataFrame:
    """Simulated runs (rows of :func:`dpclust_core.svt.run`) as symbols: ⊤, ⊥, · (not asked: the run halted), or
    the released number."""
    out = np.asarray(out, dtype=float)

    def sym(x):
        if np.isnan(x):
            return "·"
        if x == 0:
            return "⊥"
        if x == 1:
            return "⊤"
        return f"{x:.1f}"

    df = pd.DataFrame([[sym(x) for x in row] for row in out],
                      columns=[f"q{j + 1}" for j in range(out.shape[1])])
    df.index = [f"run {i + 1}" for i in range(out.shape[0])]
    return df


def worked_example(answers, threshold, epsilon, c, configs: dict, n_runs=10_000, rng=None):
    """Run each configuration ``label -> (variant, params)`` ``n_runs`` times on ``answers``.

    Returns ``(p_top, summary)``: a DataFrame of the probability that each query is reported ⊤ (one column per
    label) and a DataFrame with, per label, the share of ⊤'s that are truly above the threshold (precision) and
    the share of the truly-above queries found per run (recall).
    """
    rng = check_rng(rng)
    answers = np.asarray(answers, dtype=float)
    above = answers > threshold
    p_top, rows = {}, []
    for label, (variant, params) in configs.items():
        out = svt.run(variant, answers, threshold, epsilon, c, n_runs=n_runs, rng=rng, **params)
        pos = out == 1
        p_top[label] = pos.mean(axis=0)
        rows.append({"configuration": label,
                     "precision": pos[:, above].sum() / max(pos.sum(), 1),
                     "recall": pos[:, above].sum(axis=1).mean() / above.sum()})
    p = pd.DataFrame(p_top)
    p.insert(0, "answer", answers)
    return p, pd.DataFrame(rows).set_index("configuration")


def all_three_views(epsilon=1.0, n_mc=200_000, rng=None) -> dict:
    """:func:`dpclust_core.svt.three_views` of every variant on its counterexample: ``{variant: dict}``."""
    rng = check_rng(rng)
    return {v: svt.three_views(v, epsilon=epsilon, n_mc=n_mc, rng=rng) for v in svt.VARIANTS}


def views_table(views: dict, epsilon=1.0) -> pd.DataFrame:
    """One row per variant: its inputs, the exact probabilities of the output on both neighbours, the exact and
    the Monte Carlo ln R, the auditor's p-value and the verdict against ``epsilon``."""
    rows = []
    for name, w in views.items():
        rows.append({"variant": SHORT_NAMES[name], "inputs": w["case"],
                     "Pr[a] on D": f"{w['p_D']:.3g}", "Pr[a] on D'": f"{w['p_Dn']:.3g}",
                     "exact ln R": "∞" if math.isinf(w["lnR"]) else f"{w['lnR']:.3f}",
                     "Monte Carlo ln R": "∞" if math.isinf(w["mc_lnR"]) else f"{w['mc_lnR']:.2f}",
                     "auditor p": f"{w['audit_p']:.2g}",
                     "verdict": "violation" if w["lnR"] > epsilon + 1e-9 else "within ε"})
    return pd.DataFrame(rows).set_index("variant")


# --------------------------------------------------------------------------------- Roth 2011: released values
def _released_inputs(ell):
    """ℓ queries: q(D) = 0^ℓ, q(D') = (1^(ℓ-1), 0); event: ℓ-1 negatives, then a released number <= 0."""
    return (np.zeros(ell), np.r_[np.ones(ell - 1), 0.0], np.r_[np.zeros(ell - 1), 1.0],
            np.r_[np.full(ell - 1, np.inf), 0.0])


def released_value_losses(ells, epsilon=1.0, mc_ells=(), n_runs=300_000, rng=None) -> pd.DataFrame:
    """Roth 2011 on ℓ queries: the exact ln R for every ℓ in ``ells`` and, for ℓ in ``mc_ells``, a Monte Carlo
    estimate with its 95 % interval half-width (``n_runs`` runs on each neighbour)."""
    rng = check_rng(rng)
    rows = []
    for ell in ells:
        ell = check_int(ell, "ells", 2)
        qd, qn, out, up = _released_inputs(ell)
        row = {"queries": ell, "exact": svt.privacy_loss("roth_2011", qd, qn, 0.0, epsilon, 1, out, upper=up),
               "Monte Carlo": np.nan, "95% half-width": np.nan}
        if ell in mc_ells:
            _, h1, _ = svt.monte_carlo_probability("roth_2011", qd, 0.0, epsilon, 1, out, n_runs=n_runs, rng=rng,
                                                   upper=up)
            _, h2, _ = svt.monte_carlo_probability("roth_2011", qn, 0.0, epsilon, 1, out, n_runs=n_runs, rng=rng,
                                                   upper=up)
            row["Monte Carlo"] = math.log(h1 / h2)
            row["95% half-width"] = 1.96 * math.sqrt(1 / h1 + 1 / h2)
        rows.append(row)
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------- the pinned threshold
def pinned_inputs(m, k, monotone=False):
    """m "pinning" queries then k "leaking" ones: ``(q(D), q(D'), output)`` with output (⊥^m, ⊤^k).

    Non-monotone: q(D) = (0^m, 1^k), q(D') = (1^m, 0^k). Monotone (counting queries, D = D' plus one record):
    q(D') = (0^m, 0^k)."""
    qd = np.r_[np.zeros(m), np.ones(k)]
    qn = np.r_[np.zeros(m), np.zeros(k)] if monotone else np.r_[np.ones(m), np.zeros(k)]
    return qd, qn, np.r_[np.zeros(m), np.ones(k)]


def pinned_limit(variant, epsilon, c, monotone=False) -> float:
    """The limit of ln R on the pinned inputs as m grows: ε for Lyu–Su–Li, (1+6c)ε/4 for Lee–Clifton (3cε/4 on
    monotone inputs), ε/2 + cε for Chen et al."""
    if monotone:
        return {"lyu_su_li": epsilon / 4, "lee_clifton_2014": 3 * c * epsilon / 4,
                "chen_2015": c * epsilon / 2}[variant]
    return {"lyu_su_li": epsilon, "lee_clifton_2014": (1 + 6 * c) / 4 * epsilon,
            "chen_2015": epsilon / 2 + c * epsilon}[variant]


def pinned_loss(variant, m, c, epsilon=1.0, monotone=False, **params) -> float:
    """Exact ln R of ``variant`` on the pinned inputs with m pinning queries and k = c leaking ones (``params``
    are passed to :func:`dpclust_core.svt.privacy_loss`, e.g. ``monotonic=True, ratio=1.0`` for the standard
    SVT)."""
    qd, qn, out = pinned_inputs(int(m), int(c), monotone)
    return svt.privacy_loss(variant, qd, qn, 0.0, epsilon, int(c), out, **params)


def pinned_losses(ms, epsilon=1.0, cs=(1, 2, 5), variants=("lyu_su_li", "lee_clifton_2014", "chen_2015"),
                  monotone=False) -> pd.DataFrame:
    """Exact ln R of the pinned inputs (k = c leaking queries) for every m, c and variant (long format)."""
    eps = check_epsilon(epsilon)
    rows = []
    for v in variants:
        for c in cs:
            for m in ms:
                rows.append({"variant": v, "c": int(c), "m": int(m),
                             "loss": pinned_loss(v, m, c, eps, monotone)})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------- GPTT
def gptt_pairs(ts, epsilon=1.0) -> pd.DataFrame:
    """Exact ln R of GPTT on t pairs, q(D) = (0,1)^t, q(D') = (1,0)^t, output (⊥,⊤)^t, for every t."""
    rows = []
    for t in ts:
        t = check_int(t, "ts", 1)
        rows.append({"pairs t": t, "exact ln R": svt.privacy_loss("gptt", np.tile([0.0, 1.0], t),
                                                                  np.tile([1.0, 0.0], t), 0.0, epsilon, 1,
                                                                  np.tile([0.0, 1.0], t))})
    return pd.DataFrame(rows)


def gptt_argument(ts, epsilon=1.0) -> pd.DataFrame:
    """The published GPTT argument evaluated (:func:`dpclust_core.svt.gptt_proof_argument`) on GPTT pairs and on
    the Lyu–Su–Li all-negative output, for every t (long format: ``kind``, ``t``, ``kappa``, ``bound``,
    ``exact``)."""
    rows = []
    for kind in ("gptt", "lyu_su_li"):
        for t in ts:
            g = svt.gptt_proof_argument(int(t), epsilon, kind=kind)
            rows.append({"kind": kind, "t": int(t), "kappa": g["kappa"], "bound": g["log_bound"],
                         "exact": g["log_ratio"]})
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------- Zipf: SVT vs EM
def zipf_table(zipf: dict, settings) -> pd.DataFrame:
    """Mean SER of our runs next to the thesis's (Tables 5.4 and 5.6): one row per method, two columns (``ours``,
    ``thesis``) per setting ``"ε = .., c = .."``; a cell without a published value is NaN."""
    cols = {}
    for key in settings:
        label = f"ε = {key[0]:g}, c = {key[1]}"
        cols[(label, "ours")] = [zipf[key][m][0] for m in svt.ZIPF_METHODS]
        cols[(label, "thesis")] = [np.nan if x is None else x for x in svt.THESIS_ZIPF_SER[key]]
    df = pd.DataFrame(cols, index=list(svt.ZIPF_METHODS))
    df.columns = pd.MultiIndex.from_tuples(df.columns)
    df.index.name = "method"
    return df


def zipf_agreement(zipf: dict, settings, n_runs=100) -> pd.DataFrame:
    """One row per (setting, method) with a published value: ours (mean and std over ``n_runs`` runs), the
    thesis's mean, the difference and the difference in standard errors of a difference of two ``n_runs``-run
    means (our per-run std standing in for both)."""
    rows = []
    for key in settings:
        for m, t in zip(svt.ZIPF_METHODS, svt.THESIS_ZIPF_SER[key]):
            if t is None:
                continue
            mean, std = zipf[key][m][:2]
            se = math.sqrt(2) * std / math.sqrt(n_runs)
            rows.append({"ε": key[0], "c": key[1], "method": m, "ours": mean, "std": std, "thesis": t,
                         "difference": mean - t, "z": (mean - t) / se if se > 0 else 0.0})
    return pd.DataFrame(rows)
