"""Experiments of chapter 6 (the Sparse Vector Technique): the counterexamples, their three views, the worked
example and the Zipf comparison of SVT with the exponential mechanism, as tidy tables.

Every function is a thin loop over :mod:`dpclust_core.svt` (which does the sampling and the exact integration)
and returns a ``pandas.DataFrame`` (or a dict of them) that chapter 6 shows or hands to
:mod:`dpclust_book.plots.svt`.

Examples
--------
>>> from dpclust_book.experiments import svt as svt_ex
>>> df = svt_ex.pinned_losses([0, 10], epsilon=1.0, cs=[1])
>>> sorted(df["variant"].unique())
['chen_2015', 'lee_clifton_2014', 'lyu_su_li']
>>> round(float(df.query("variant == 'lee_clifton_2014' and m == 10")["loss"].iloc[0]), 4)
1.7449
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Literal

import numpy as np
import pandas as pd

from dpclust_core import svt
from dpclust_core._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, RNGLike, check_bool, check_data,
                                      check_epsilon, check_int, check_ledger, check_options, check_probability,
                                      check_real, check_rng)
from dpclust_core.accounting import PrivacyLedger
from dpclust_core.mechanisms import exponential_mechanism_top_k, laplace_noise
from dpclust_core.svt import (VARIANTS, _charge_runs, _check_ledger_for, _check_runs, _real_array, _simulate,
                              noise_config)
from dpclust_book.svt_exact import (_log_cdf, _log_sf, audit_variant, monte_carlo_probability, output_probability,
                                    privacy_loss)

__all__ = ["SHORT_NAMES", "variant_table", "outputs_table", "worked_example", "all_three_views", "views_table",
           "released_value_losses", "pinned_inputs", "pinned_limit", "pinned_loss", "pinned_losses", "gptt_pairs",
           "gptt_argument", "zipf_table", "zipf_agreement", "counterexample", "three_views", "gptt_proof_argument",
           "ZIPF_METHODS", "THESIS_ZIPF_SER", "zipf_experiment", "alpha_svt", "alpha_em", "zipf_scores",
           "default_threshold", "select_top_c", "selection_metrics"]

#: How chapter 6 names each variant (the thesis numbers them Alg. 17-23).
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
    """:func:`three_views` of every variant on its counterexample: ``{variant: dict}``."""
    rng = check_rng(rng)
    return {v: three_views(v, epsilon=epsilon, n_mc=n_mc, rng=rng) for v in svt.VARIANTS}


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
        row = {"queries": ell, "exact": privacy_loss("roth_2011", qd, qn, 0.0, epsilon, 1, out, upper=up),
               "Monte Carlo": np.nan, "95% half-width": np.nan}
        if ell in mc_ells:
            _, h1, _ = monte_carlo_probability("roth_2011", qd, 0.0, epsilon, 1, out, n_runs=n_runs, rng=rng,
                                                   upper=up)
            _, h2, _ = monte_carlo_probability("roth_2011", qn, 0.0, epsilon, 1, out, n_runs=n_runs, rng=rng,
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
    are passed to :func:`dpclust_book.svt_exact.privacy_loss`, e.g. ``monotonic=True, ratio=1.0`` for the standard
    SVT)."""
    qd, qn, out = pinned_inputs(int(m), int(c), monotone)
    return privacy_loss(variant, qd, qn, 0.0, epsilon, int(c), out, **params)


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
        rows.append({"pairs t": t, "exact ln R": privacy_loss("gptt", np.tile([0.0, 1.0], t),
                                                                  np.tile([1.0, 0.0], t), 0.0, epsilon, 1,
                                                                  np.tile([0.0, 1.0], t))})
    return pd.DataFrame(rows)


def gptt_argument(ts, epsilon=1.0) -> pd.DataFrame:
    """The published GPTT argument evaluated (:func:`gptt_proof_argument`) on GPTT pairs and on
    the Lyu–Su–Li all-negative output, for every t (long format: ``kind``, ``t``, ``kappa``, ``bound``,
    ``exact``)."""
    rows = []
    for kind in ("gptt", "lyu_su_li"):
        for t in ts:
            g = gptt_proof_argument(int(t), epsilon, kind=kind)
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
        cols[(label, "ours")] = [zipf[key][m][0] for m in ZIPF_METHODS]
        cols[(label, "thesis")] = [np.nan if x is None else x for x in THESIS_ZIPF_SER[key]]
    df = pd.DataFrame(cols, index=list(ZIPF_METHODS))
    df.columns = pd.MultiIndex.from_tuples(df.columns)
    df.index.name = "method"
    return df


def zipf_agreement(zipf: dict, settings, n_runs=100) -> pd.DataFrame:
    """One row per (setting, method) with a published value: ours (mean and std over ``n_runs`` runs), the
    thesis's mean, the difference and the difference in standard errors of a difference of two ``n_runs``-run
    means (our per-run std standing in for both)."""
    rows = []
    for key in settings:
        for m, t in zip(ZIPF_METHODS, THESIS_ZIPF_SER[key]):
            if t is None:
                continue
            mean, std = zipf[key][m][:2]
            se = math.sqrt(2) * std / math.sqrt(n_runs)
            rows.append({"ε": key[0], "c": key[1], "method": m, "ours": mean, "std": std, "thesis": t,
                         "difference": mean - t, "z": (mean - t) / se if se > 0 else 0.0})
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------------------------------
# the chapter's counterexamples and their three views
# ---------------------------------------------------------------------------------------------------
def counterexample(variant: str, m: int = 10) -> dict:
    """The neighbouring answer vectors and output the chapter uses for ``variant``, at Δ = 1, T = 0.

    * ``stoddard_2014``: C1, q(D) = (0, 1), q(D') = (1, 0), output (⊥, ⊤).
    * ``roth_2011``: C2 with ℓ = 4, q(D) = 0^4, q(D') = (1, 1, 1, 0), event ⊥⊥⊥ then a released number <= 0.
    * ``lee_clifton_2014``, ``chen_2015`` and the correct ``lyu_su_li``, ``standard``: C3, m pinning queries
      q(D) = (0^m, 1), q(D') = (1^m, 0), output (⊥^m, ⊤), c = 1.
    * ``dwork_roth_2014``: C3 with k = c = 2 (so the threshold redraw is exercised).
    * ``gptt``: C4 with t = 5 pairs, q(D) = (0,1)^5, q(D') = (1,0)^5, output (⊥,⊤)^5.

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    m : int
        Number of pinning queries of C3 (1 to 10^6).

    Returns
    -------
    dict
        ``queries`` (q(D)), ``queries_neighbour`` (q(D')), ``output``, ``upper`` (for Alg. 19's numeric
        event, else None), ``c``, ``name`` (C1–C4) and ``description``.

    Examples
    --------
    >>> counterexample("lee_clifton_2014", m=2)["description"]
    "q(D)=(0^2,1^1), q(D')=(1^2,0^1), output (⊥^2,⊤^1), c=1"
    """
    check_options(variant, "variant", tuple(VARIANTS))
    m = check_int(m, "m", 1, 10**6)
    if variant == "stoddard_2014":
        return {"name": "C1", "queries": np.array([0.0, 1.0]), "queries_neighbour": np.array([1.0, 0.0]),
                "output": np.array([0.0, 1.0]), "upper": None, "c": 1,
                "description": "q(D)=(0,1), q(D')=(1,0), output (⊥,⊤)"}
    if variant == "roth_2011":
        return {"name": "C2", "queries": np.zeros(4), "queries_neighbour": np.array([1.0, 1.0, 1.0, 0.0]),
                "output": np.array([0.0, 0.0, 0.0, 1.0]), "upper": np.array([np.inf, np.inf, np.inf, 0.0]), "c": 1,
                "description": "q(D)=0^4, q(D')=(1,1,1,0), output ⊥⊥⊥ then a released number <= 0"}
    if variant == "gptt":
        return {"name": "C4", "queries": np.tile([0.0, 1.0], 5), "queries_neighbour": np.tile([1.0, 0.0], 5),
                "output": np.tile([0.0, 1.0], 5), "upper": None, "c": 1,
                "description": "q(D)=(0,1)^5, q(D')=(1,0)^5, output (⊥,⊤)^5"}
    k = 2 if variant == "dwork_roth_2014" else 1
    return {"name": "C3", "queries": np.r_[np.zeros(m), np.ones(k)], "queries_neighbour": np.r_[np.ones(m), np.zeros(k)],
            "output": np.r_[np.zeros(m), np.ones(k)], "upper": None, "c": k,
            "description": f"q(D)=(0^{m},1^{k}), q(D')=(1^{m},0^{k}), output (⊥^{m},⊤^{k}), c={k}"}


def three_views(variant: str, epsilon: float = 1.0, *, n_mc: int = 400_000, n_audit: int | None = None,
                rng: RNGLike = None, m: int = 10) -> dict:
    """The three views of the chapter on :func:`counterexample` ``(variant)`` at the claimed ``epsilon``.

    The exact ln R (:func:`~dpclust_book.svt_exact.privacy_loss`), a Monte Carlo estimate of both probabilities and
    of ln R (``n_mc`` runs on each input), and the auditor's p-value (:func:`~dpclust_book.svt_exact.audit_variant`).

    Parameters
    ----------
    variant : str
        A key of :data:`VARIANTS`.
    epsilon : float
        The claimed ε.
    n_mc : int
        Monte Carlo runs per input.
    n_audit : int, optional
        Auditor samples per input and batch; default 200,000 for ``roth_2011`` whose event is rare, 50,000
        otherwise.
    rng : None, int or numpy.random.Generator
    m : int
        Pinning queries of the C3 counterexamples (the audit encodes at most 22 queries).

    Returns
    -------
    dict
        ``p_D``, ``p_Dn``, ``lnR`` (exact), ``mc_p_D``, ``mc_p_Dn``, ``mc_hits``, ``mc_lnR``, ``audit``
        (the :class:`~dpclust_core.audit.AuditResult`), ``audit_p`` and the inputs' description.

    Examples
    --------
    >>> v = three_views("stoddard_2014", 1.0, n_mc=2000, n_audit=2000, rng=0)
    >>> v["p_Dn"], v["mc_hits"][1], v["audit_p"] < 0.01
    (0.0, 0, True)
    """
    ce = counterexample(variant, m)
    eps = check_epsilon(epsilon)
    size = ce["queries"].size
    n_mc = check_int(n_mc, "n_mc", 1, MAX_ALLOCATION)
    if n_audit is None:
        n_audit = 200_000 if variant == "roth_2011" else 50_000
    n_audit = _check_runs(n_audit, size, "n_audit")
    rng = check_rng(rng, "rng")
    args = (0.0, eps, ce["c"], ce["output"])
    p1 = output_probability(variant, ce["queries"], *args, upper=ce["upper"])
    p2 = output_probability(variant, ce["queries_neighbour"], *args, upper=ce["upper"])
    lr = privacy_loss(variant, ce["queries"], ce["queries_neighbour"], *args, upper=ce["upper"])
    mc1, h1, _ = monte_carlo_probability(variant, ce["queries"], *args, n_runs=n_mc, rng=rng, upper=ce["upper"])
    mc2, h2, _ = monte_carlo_probability(variant, ce["queries_neighbour"], *args, n_runs=n_mc, rng=rng,
                                         upper=ce["upper"])
    mc_lr = math.log(mc1 / mc2) if h1 > 0 and h2 > 0 else (math.inf if h1 > 0 else math.nan)
    res = audit_variant(variant, ce["queries"], ce["queries_neighbour"], 0.0, eps, ce["c"], n_samples=n_audit,
                        rng=rng)
    return {"variant": variant, "case": ce["name"], "description": ce["description"], "p_D": p1, "p_Dn": p2,
            "lnR": lr, "mc_p_D": mc1, "mc_p_Dn": mc2, "mc_hits": (h1, h2), "mc_lnR": mc_lr, "n_mc": n_mc,
            "audit": res, "audit_p": res.p_value, "epsilon": eps}


# ---------------------------------------------------------------------------------------------------
# §5.2.3: the flawed GPTT proof, evaluated
# ---------------------------------------------------------------------------------------------------
def gptt_proof_argument(t: int, epsilon: float = 1.0, kind: Literal["gptt", "lyu_su_li"] = "gptt") -> dict:
    """Evaluate the GPTT proof's bound κ(t)^t/2 next to the true ratio (thesis §5.2.3).

    ``kind="gptt"``: GPTT with ε1 = ε2 = ε/2 on t pairs q(D) = (0,1)^t, q(D') = (1,0)^t, output (⊥,⊤)^t.
    ``kind="lyu_su_li"``: the chapter's reductio, Alg. 17 with c = 1 on q(D) = 0^t, q(D') = 1^t, output ⊥^t.

    Returns a dict with ``alpha`` (= Pr[A(D') = a]), ``delta`` (the proof's interval half-width),
    ``kappa`` (min of the integrand ratio on [−δ, δ]), ``log_bound`` (= t ln κ − ln 2, the proof's lower
    bound on ln R) and ``log_ratio`` (the exact ln R).

    The chain of inequalities is valid; the published step that fails in general is "κ > 1, so κ^t/2
    grows without bound", because δ, hence κ, depend on t. For Alg. 17, κ(z) = F(z)/F(z−1) -> 1 as
    z -> ∞, so κ(t) -> 1 and the bound never exceeds ε/2 (Lemma 4). For GPTT, however, κ(z) >= e^{ε2}
    for every z (it tends to e^{ε2} in both tails, not to 1 as the thesis says): ln κ(z) is the integral
    over [z−1, z] of f/F + f/(1−F), and for Laplace noise one of the two terms equals ε2 at every point
    (f/F on the left half-line, f/(1−F) on the right). So the bound t·ε2 − ln 2 does diverge, and even
    ln R >= t·ε2 holds without restricting to [−δ, δ]: [74]'s argument has a gap, but the gap closes.

    Parameters
    ----------
    t : int
        Number of pairs (GPTT) or of ⊥ answers (Alg. 17), 1 to 10^7.
    epsilon : float
        The claimed ε (ε1 = ε2 = ε/2).
    kind : {"gptt", "lyu_su_li"}

    Returns
    -------
    dict

    Examples
    --------
    >>> g = gptt_proof_argument(5, 1.0)
    >>> g["kappa"] > math.exp(0.5), g["log_bound"] <= g["log_ratio"]
    (True, True)
    """
    t = check_int(t, "t", 1, 10**7)
    eps = check_epsilon(epsilon)
    check_options(kind, "kind", ("gptt", "lyu_su_li"))
    if kind == "gptt":
        qd = np.tile([0.0, 1.0], t)
        qn = np.tile([1.0, 0.0], t)
        out = np.tile([0.0, 1.0], t)
        la = output_probability("gptt", qn, 0.0, eps, 1, out, log=True)
        lb = output_probability("gptt", qd, 0.0, eps, 1, out, log=True)
        b_rho = b_nu = 2.0 / eps

        def log_kappa(z):
            return (_log_cdf(z, b_nu) + _log_sf(z - 1, b_nu)) - (_log_cdf(z - 1, b_nu) + _log_sf(z, b_nu))

        alpha = math.exp(la)
        # |F_ρ^{-1}(α/4)|: ρ-mass outside [−δ, δ] is α/2 (in log space where α underflows, at a huge epsilon)
        delta = b_rho * (math.log(2.0 / alpha) if alpha > 0 else math.log(2.0) - la)
    elif kind == "lyu_su_li":
        qd = np.zeros(t)
        qn = np.ones(t)
        out = np.zeros(t)
        la = output_probability("lyu_su_li", qn, 0.0, eps, 1, out, log=True)
        lb = output_probability("lyu_su_li", qd, 0.0, eps, 1, out, log=True)
        b_rho, b_nu = 2.0 / eps, 4.0 / eps

        def log_kappa(z):
            return _log_cdf(z, b_nu) - _log_cdf(z - 1, b_nu)

        alpha = math.exp(la)
        delta = b_rho * (math.log(2.0 / alpha) if alpha > 0 else math.log(2.0) - la)  # ∫_{−δ}^{δ} p_ρ >= 1 − α/2
    else:
        raise ValueError(f"kind must be 'gptt' or 'lyu_su_li', got {kind!r}")
    zs = np.linspace(-delta, delta, 20001)
    lk = float(np.min(log_kappa(zs)))
    return {"t": t, "alpha": alpha, "delta": delta, "kappa": math.exp(lk) if lk < 709.0 else math.inf,
            "log_bound": t * lk - math.log(2.0),
            "log_ratio": lb - la}


# ---------------------------------------------------------------------------------------------------
# the thesis's Zipf experiment (§5.5)
# ---------------------------------------------------------------------------------------------------
#: Zipf rows of the thesis's Tables 5.4 (ε = 0.1) and 5.6 (ε = 0.5): mean SER over 100 runs, per method;
#: None marks a cell the published tables leave unreadable.
ZIPF_METHODS = ("DPBook", "S 1:1", "S 1:3", "S 1:c", "S 1:c^(2/3)", "ReTr 1D", "ReTr 2D", "ReTr 3D", "EM")
THESIS_ZIPF_SER = {
    (0.1, 50): (.957, .917, .832, .665, .711, .423, .164, .090, .082),
    (0.1, 100): (.969, .960, .955, .924, .944, .876, .750, .404, .262),
    (0.1, 150): (.952, .952, .958, .922, .936, .896, .765, .468, .355),
    (0.1, 200): (.947, .946, .948, .898, .940, .887, .769, .468, .412),
    (0.1, 300): (.937, .939, .933, .874, .928, .867, .719, .485, .481),
    (0.5, 50): (.426, .034, .011, .022, None, .004, .002, .009, .000),
    (0.5, 100): (.919, .808, .571, .353, None, .090, .035, .036, .033),
    (0.5, 150): (.935, .916, .864, .745, .784, .570, .232, .114, .111),
    (0.5, 200): (.932, .919, .896, .848, None, .734, .435, .173, .170),
    (0.5, 300): (.903, .912, .899, .832, .907, .767, .484, .247, .247),
}


def _zipf_method(label, c):
    return {"DPBook": ("dpbook", {}), "S 1:1": ("svt", {"ratio": 1.0}), "S 1:3": ("svt", {"ratio": 3.0}),
            "S 1:c": ("svt", {"ratio": float(c)}), "S 1:c^(2/3)": ("svt", {"ratio": c ** (2.0 / 3.0)}),
            "ReTr 1D": ("retraversal", {"increment": 1.0}), "ReTr 2D": ("retraversal", {"increment": 2.0}),
            "ReTr 3D": ("retraversal", {"increment": 3.0}), "EM": ("em", {})}[label]


def zipf_experiment(settings: Sequence[tuple[float, int]], methods: Sequence[str] = ZIPF_METHODS, *,
                    n_runs: int = 100, rng: RNGLike = None,
                    scores: ArrayLike | None = None) -> dict:
    """SER (mean, std) and miss rate (mean) of every method at every ``(epsilon, c)`` in ``settings``.

    Reproduces the Zipf rows of thesis Tables 5.4/5.6 on :func:`zipf_scores`: SVT-S is
    ``standard`` with monotone noise and ε1:ε2 = 1:ratio; ReTr uses 1:c^(2/3) and the threshold raised by
    k·b_ν; EM is c rounds at ε/c without replacement.

    Parameters
    ----------
    settings : sequence of (epsilon, c)
        The table cells.
    methods : sequence of str
        Labels from :data:`ZIPF_METHODS`.
    n_runs : int
        Runs per cell (the thesis uses 100).
    rng : None, int or numpy.random.Generator
    scores : array_like, optional
        Default :func:`zipf_scores`.

    Returns
    -------
    dict
        ``{(eps, c): {method: (ser_mean, ser_std, miss_mean)}}``.

    Examples
    --------
    >>> r = zipf_experiment([(0.5, 5)], ["EM"], n_runs=10, rng=0, scores=zipf_scores(500, 50_000))
    >>> sorted(r), len(r[(0.5, 5)]["EM"])
    ([(0.5, 5)], 3)
    """
    s = zipf_scores() if scores is None else check_data(scores, "scores", ndim=1)
    n_runs = _check_runs(n_runs, s.size, what="items")
    rng = check_rng(rng, "rng")
    try:
        cells = [(check_epsilon(e, "settings epsilon"), check_int(k, "settings c", 1)) for e, k in settings]
    except (TypeError, ValueError) as exc:
        if isinstance(exc, ValueError) and "settings" in str(exc):
            raise
        raise BadTypeError(f"settings must be a sequence of (epsilon, c) pairs, got {settings!r:.60}") from None
    if isinstance(methods, str):
        methods = [methods]
    for label in methods:
        check_options(label, "methods", ZIPF_METHODS)
    out = {}
    for eps, c in cells:
        row = {}
        for label in methods:
            method, kw = _zipf_method(label, c)
            sel = select_top_c(method, s, c, eps, n_runs=n_runs, rng=rng, **kw)
            ser, miss = selection_metrics(s, sel, c)
            row[label] = (float(ser.mean()), float(ser.std()), float(miss.mean()))
        out[(eps, c)] = row
    return out


# ---------------------------------------------------------------------------------------------------
# SVT vs the exponential mechanism for top-c selection (thesis §5.4-5.5)
# ---------------------------------------------------------------------------------------------------
def _alpha_inputs(k, beta, epsilon, *, min_k):
    """The validated ``(k, beta, epsilon)`` of :func:`alpha_svt` and :func:`alpha_em` (k >= ``min_k``)."""
    eps = check_epsilon(epsilon)
    kk = _real_array(k, "k", ndim=None)
    if np.any(kk < min_k):
        raise ValueError(f"k must be a number of queries >= {min_k}, got {k!r:.60}")
    return kk, check_probability(beta, "beta"), eps


def alpha_svt(k: ArrayLike, beta: float, epsilon: float) -> float | np.ndarray:
    """α for which SVT (Dwork & Roth Thm 3.24, c = Δ = 1) is (α, β)-accurate on k queries: 8(ln k + ln(2/β))/ε.

    Parameters
    ----------
    k : float or array_like
        Number of queries (>= 1).
    beta : float
        Failure probability, in (0, 1).
    epsilon : float
        The budget.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(float(alpha_svt(1000, 0.05, 1.0)), 2)
    84.77
    """
    k, beta, eps = _alpha_inputs(k, beta, epsilon, min_k=1)
    return 8 * (np.log(k) + math.log(2 / beta)) / eps


def alpha_em(k: ArrayLike, beta: float, epsilon: float) -> float | np.ndarray:
    """α for which EM picks the single query above T + α among k with probability >= 1 − β (§5.4).

    (ln(k−1) + ln((1−β)/β))/ε, with c = Δ = 1.

    Parameters
    ----------
    k, beta, epsilon
        As in :func:`alpha_svt`, with k >= 2.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> round(float(alpha_em(1000, 0.05, 1.0)), 2)
    9.85
    """
    k, beta, eps = _alpha_inputs(k, beta, epsilon, min_k=2)
    return (np.log(k - 1) + math.log((1 - beta) / beta)) / eps


def zipf_scores(n_items: int = 10_000, total: float = 1_000_000) -> np.ndarray:
    """The synthetic Zipf item counts of thesis §5.5: s_i = round(total / (H_n · i)), i = 1..n.

    Parameters
    ----------
    n_items : int
        Number of items n.
    total : float
        The counts sum to about ``total`` (> 0).

    Returns
    -------
    ndarray, shape (n_items,)

    Examples
    --------
    With the defaults s_1 = 102,170, s_50 = 2,043, s_100 = 1,022, s_300 = 341, s_10000 = 10:

    >>> s = zipf_scores()
    >>> s[[0, 49, 99, 299, 9999]].astype(int).tolist()
    [102170, 2043, 1022, 341, 10]
    """
    n = check_int(n_items, "n_items", 1, MAX_ALLOCATION)
    total = check_real(total, "total", low=0.0, low_open=True)
    i = np.arange(1, n + 1, dtype=float)
    h = np.sum(1.0 / i)
    return np.round(total / (h * i))


def _check_scores(scores, c):
    s = check_data(scores, "scores", ndim=1)
    c = check_int(c, "c", 1, MAX_ALLOCATION)
    if c >= s.size:
        raise ValueError(f"c={c} must be smaller than the number of items ({s.size})")
    return s, c


def default_threshold(scores: ArrayLike, c: int) -> float:
    """T = (s_(c) + s_(c+1))/2, the midpoint between the c-th and (c+1)-th largest score (§5.5).

    NOT private: it is computed from the data, an experimental shortcut of the thesis.

    Parameters
    ----------
    scores : array_like, shape (n_items,)
    c : int
        1 <= c < n_items.

    Returns
    -------
    float

    Examples
    --------
    >>> default_threshold([10.0, 8.0, 6.0, 4.0], 2)
    7.0
    """
    s, c = _check_scores(scores, c)
    srt = np.sort(s)[::-1]
    return float((srt[c - 1] + srt[c]) / 2)


def select_top_c(method: str, scores: ArrayLike, c: int, epsilon: float, *, n_runs: int = 100, rng: RNGLike = None,
                 ratio: float | None = None, increment: float = 0.0, threshold: float | None = None,
                 sensitivity: float = 1.0, monotonic: bool = True, max_passes: int = 100_000,
                 ledger: PrivacyLedger | None = None,
                 return_passes: bool = False) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """Select c items of high score privately, ``n_runs`` times (the experiment of thesis §5.5).

    Parameters
    ----------
    method : {"svt", "dpbook", "retraversal", "em"}
        * ``"svt"``: SVT-S, Alg. 23 (``standard``, ε3 = 0, monotone noise Lap(cΔ/ε2) by default) on the
          items in a fresh random order per run, with ε1:ε2 = 1:``ratio`` (default the optimum
          1:c^(2/3), or 1:(2c)^(2/3) with ``monotonic=False``); may return fewer than c items.
        * ``"dpbook"``: SVT-DPBook, Alg. 18 in a random order per run.
        * ``"retraversal"``: SVT-ReTr, SVT-S with threshold ``T + increment·b_ν`` (b_ν = cΔ/ε2 the
          Laplace scale of the query noise, "1D" in the thesis's tables), passing again over the
          not-yet-selected items (fresh ν, same ρ, fresh random order) until c are selected, or until
          ``max_passes`` passes (then that run's selection is partial; the other runs are unaffected).
        * ``"em"``: c rounds of the exponential mechanism at ε/c each without replacement, weights
          exp(ε·s_i/(cΔ)) (monotone) or exp(ε·s_i/(2cΔ)); sampled exactly by the Gumbel top-c trick
          (:func:`dpclust_core.mechanisms.exponential_mechanism_top_k`).
    scores : array_like, shape (n_items,)
        Item scores (counting queries: Δ = 1, monotonic under add/remove).
    c : int
        Number of items to select, 1 <= c < n_items.
    epsilon : float
        Budget of one run.
    n_runs : int
        Independent runs (rows of the output); ``n_runs * n_items`` may not exceed ``MAX_ALLOCATION``.
    rng : None, int or numpy.random.Generator
        The SVT noise is exact discrete Laplace noise (:func:`dpclust_core.mechanisms.laplace_noise`).
    ratio : float, optional
        ε2/ε1 of the SVT methods (``"svt"``, ``"retraversal"``), in [1e-9, 1e9].
    increment : float
        ReTr's threshold increment, in units of b_ν (>= 0).
    threshold : float, optional
        Default :func:`default_threshold` (computed from the data, NOT private, as in the thesis). The SVT
        methods are ε-DP only with a public threshold, so a ``ledger`` is refused (``ValueError``) unless
        ``threshold`` is given explicitly.
    sensitivity : float
        Δ > 0 of every score.
    monotonic : bool
        Monotonic scores (default True, as for counts).
    max_passes : int
        Most passes of ``"retraversal"`` per run. A run that has not selected c items by then returns a
        partial selection (padded with −1) and a ``RuntimeWarning`` says how many runs did; a run whose
        chance of any further positive within the remaining passes is below 1e-12 (its threshold is out of
        reach) is stopped early and reported the same way.
    ledger : PrivacyLedger, optional
        Charged ``n_runs * epsilon`` (refused before any noise is drawn if the budget cannot afford it).
    return_passes : bool
        Also return the number of passes each run used.

    Returns
    -------
    selected : ndarray, shape (n_runs, c), int
        Selected item indices in selection order, padded with −1 where a run selected fewer than c.
    passes : ndarray, shape (n_runs,), int
        Only with ``return_passes=True``: passes used per run (1 for every method but ``"retraversal"``;
        ``max_passes`` for a run that did not complete).

    Examples
    --------
    >>> s = zipf_scores(1000, 100_000)
    >>> sel = select_top_c("em", s, 5, 1.0, n_runs=3, rng=0)
    >>> sel.shape, bool(np.all(sel >= 0))
    ((3, 5), True)
    """
    check_options(method, "method", ("svt", "dpbook", "retraversal", "em"))
    s, c = _check_scores(scores, c)
    eps = check_epsilon(epsilon)
    sens = check_real(sensitivity, "sensitivity", low=0.0, low_open=True)
    m = s.size
    n = _check_runs(n_runs, m, what="items")
    if ratio is not None:
        ratio = check_real(ratio, "ratio", low=1e-9, high=1e9)
    increment = check_real(increment, "increment", low=0.0)
    mono = check_bool(monotonic, "monotonic")
    max_passes = check_int(max_passes, "max_passes", 1, MAX_ALLOCATION)
    return_passes = check_bool(return_passes, "return_passes")
    if threshold is not None:
        T = check_real(threshold[()] if isinstance(threshold, np.ndarray) and threshold.ndim == 0 else threshold,
                       "threshold")
    rng = check_rng(rng, "rng")
    check_ledger(ledger)
    one_pass = np.ones(n, dtype=np.int64)
    if method == "em":  # needs no threshold
        sel = exponential_mechanism_top_k(s, c, sens, eps / c, rng, mono, size=n, ledger=ledger,
                                          name="select_top_c[em]")
        return (sel, one_pass) if return_passes else sel
    if threshold is None:
        if ledger is not None:
            raise ValueError("threshold=None uses default_threshold, which is computed from the data without "
                             "privacy: pass a public threshold explicitly to charge the run to a ledger")
        T = default_threshold(s, c)
    if method == "dpbook":
        cfg = noise_config("dwork_roth_2014", eps, c, sens)
    else:
        kw = {"monotonic": mono}
        if ratio is not None:
            kw["ratio"] = ratio
        cfg = noise_config("standard", eps, c, sens, **kw)
    if ledger is not None:
        _check_ledger_for(ledger, n * sum(e for _, e in cfg.budget), f"select_top_c[{method}] x{n} runs")
    if method == "dpbook":  # the threshold is redrawn after every ⊤, so the order matters: simulate it
        perm = np.argsort(rng.random((n, m)), axis=1)
        out = _simulate(cfg, s[perm], np.full(m, T), n, rng)
        hit = out == 1
        sel = np.full((n, c), -1, dtype=np.int64)
        k = np.cumsum(hit, axis=1) - 1
        r, col = np.nonzero(hit)
        sel[r, k[r, col]] = perm[r, col]
        passes = one_pass
    else:
        sel, passes = _svt_passes(cfg, s, c, n, T if method == "svt" else T + increment * cfg.b_nu,
                                  1 if method == "svt" else max_passes, rng)
        short = int(np.sum(sel[:, -1] < 0))
        if method == "retraversal" and short:
            warnings.warn(f"retraversal: {short} of {n} runs did not select c={c} items within max_passes="
                          f"{max_passes} passes; their selections are partial (padded with -1)", RuntimeWarning,
                          stacklevel=2)
    if ledger is not None:
        _charge_runs(ledger, cfg, None, n, f"svt[{method}]")
    return (sel, passes) if return_passes else sel


def _svt_passes(cfg, s, c, n, T, max_passes, rng):
    """SVT-S (one pass) or SVT-ReTr (up to ``max_passes``) on ``n`` runs; returns ``(selected, passes)``.

    The set of positives of a pass does not depend on the order (ρ fixed, every ν_i independent), so a random
    order only decides WHICH positives fill the last free slots: a uniform random subset of them.
    """
    m = s.size
    rho = laplace_noise(cfg.b_rho, n, rng)
    chosen = np.zeros((n, m), dtype=bool)
    count = np.zeros(n, dtype=np.int64)
    passes = np.zeros(n, dtype=np.int64)
    stalled = np.zeros(n, dtype=bool)
    sel = np.full((n, c), -1, dtype=np.int64)
    for p in range(max_passes):
        act = np.flatnonzero((count < c) & ~stalled)
        if act.size == 0:
            break
        if p > 0 and p & (p - 1) == 0:  # after 1, 2, 4, 8, ... passes: drop runs that cannot fill c any more
            z = (T + rho[act])[:, None] - s[None, :]  # a positive needs ν >= z
            bound = np.exp(-np.maximum(z, 0.0) / cfg.b_nu)  # >= Pr[ν >= z] for ν ~ Lap(b_ν)
            bound[chosen[act]] = 0.0
            hopeless = (max_passes - p) * bound.sum(axis=1) < 1e-12
            stalled[act[hopeless]] = True
            act = act[~hopeless]
            if act.size == 0:
                break
        passes[act] += 1
        x = laplace_noise(cfg.b_nu, (act.size, m), rng)
        x += s
        pos = x >= (T + rho[act])[:, None]
        pos &= ~chosen[act]
        r, j = np.nonzero(pos)
        if r.size == 0:
            continue
        # a fresh random order of this pass: sort the positives of each row by a uniform key
        order = np.lexsort((rng.random(r.size), r))
        r, j = r[order], j[order]
        rank = np.arange(r.size) - np.searchsorted(r, np.arange(act.size))[r]
        keep = rank < (c - count[act])[r]
        r, j, rank = r[keep], j[keep], rank[keep]
        rows = act[r]
        sel[rows, count[rows] + rank] = j
        chosen[rows, j] = True
        count[act] += np.bincount(r, minlength=act.size)
    passes[stalled] = max_passes  # what running every pass would have given, with probability >= 1 - 1e-12
    return sel, passes


def selection_metrics(scores: ArrayLike, selected: ArrayLike, c: int) -> tuple[np.ndarray, np.ndarray]:
    """Score error rate and miss rate of top-c selections (thesis §5.5.1).

    SER = 1 − sum(s[S]) / sum(s[Top_c]) (= 1 − avgScore(S)/avgScore(Top_c) with a missing slot scoring
    0, so SER ∈ [0, 1] for non-negative scores); miss rate (FNR) = fraction of the true top-c not selected.

    Parameters
    ----------
    scores : array_like, shape (n_items,)
        The scores; the c largest must have a positive sum.
    selected : array_like of int, shape (n_runs, c)
        Item indices, −1 for an empty slot (as returned by :func:`select_top_c`).
    c : int
        The number of items selected per run.

    Returns
    -------
    (ser, miss) : two ndarrays of length n_runs

    Examples
    --------
    >>> ser, miss = selection_metrics([10.0, 8, 6, 4, 2], [[0, 1], [0, 4], [2, -1]], 2)
    >>> np.round(ser, 3).tolist(), miss.tolist()
    ([0.0, 0.333, 0.667], [0.0, 0.5, 1.0])
    """
    s, c = _check_scores(scores, c)
    if isinstance(selected, (str, bytes)):
        raise BadTypeError("selected must be an integer array of item indices, got a string")
    sel = np.asarray(selected)
    if sel.dtype.kind not in "iu":
        raise BadTypeError(f"selected must hold integer item indices, got dtype {sel.dtype}")
    if sel.ndim != 2 or sel.shape[1] != c or sel.shape[0] == 0:
        raise ValueError(f"selected must have shape (n_runs, {c}) with n_runs >= 1, got {sel.shape}")
    if np.any(sel < -1) or np.any(sel >= s.size):
        raise ValueError(f"selected must hold item indices in [0, {s.size}) or -1 for an empty slot")
    top = np.argsort(-s, kind="stable")[:c]
    best = s[top].sum()
    if not best > 0:
        raise ValueError("scores: the c largest scores must have a positive sum (the SER divides by it)")
    val = np.where(sel >= 0, s[np.maximum(sel, 0)], 0.0)
    ser = 1 - val.sum(axis=1) / best
    is_top = np.zeros(s.size, dtype=bool)
    is_top[top] = True
    hit = np.where(sel >= 0, is_top[np.maximum(sel, 0)], False)
    miss = 1 - hit.sum(axis=1) / c
    return ser, miss
