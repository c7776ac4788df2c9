"""Experiments of chapter 10 (MCMC postprocessing of DP k-means, Lee & Kifer): summaries of one transcript and
one sampler run, the paper's paired experiment with its ablations, the thesis's improved DPLloyd postprocessed,
and a one-dimensional toy on which the sampler's target can be computed exactly.

DP k-means runs through :class:`~dpclust_core.kmeans.DPLloyd` (noise from :mod:`dpclust_core.mechanisms`); the
postprocessing (:mod:`dpclust_core.postprocess`) reads only the released transcript. Every function returns a
tidy ``pandas.DataFrame``; repeated runs are *evaluation* (each would cost its own budget if released). WCSS is
measured on the data as DP k-means saw them (mapped into the domain and projected onto the unit L1 ball).

Examples
--------
>>> from dpclust_book.datasets import make_s1_like
>>> from dpclust_book.experiments import mcmc as ex
>>> X, _ = make_s1_like(1000, random_state=0)
>>> runs, fits = ex.paired_runs(X, 15, [1.0], seeds=[0], n_steps=500)
>>> sorted(runs["method"].unique())
['+ MCMC (paper)', '+ MCMC (projected centres)', 'DP k-means']
"""
from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from dpclust_core._validation import (ArrayLike, Bool, Int, NoneOr, Options, Real, Rng, RNGLike, check_data,
                                     validate_params)
from dpclust_core.kmeans import DPLloyd
from dpclust_core.kmeans.lloyd import best_of_lloyd
from dpclust_core.metrics import wcss
from dpclust_core.postprocess import (_MAX_POINTS, _MAX_PROPOSAL_VAR, MCMCPostprocessor, Transcript, _assign_rounds,
                                      _check_noisy, _check_transcript, _check_weights, _kmeans_best, _observations,
                                      _proposal_parameters, _resolve_n_points, _round_statistics, _sample_proposal,
                                      consistent_l1)

__all__ = ["METHODS", "transcript_summary", "consistency_table", "sampler_summary", "outside_share", "per_round_fit",
           "paired_runs", "mean_table", "wins_table", "ablation", "improved_runs", "non_private_wcss",
           "toy_transcript", "toy_histogram", "partition_statistics", "transcript_loss", "transcript_log_likelihood",
           "l1_consistency_objective", "l1_consistency_lower_bound", "pooled_proposal_kmeans"]

BOUNDS = (-1.0, 1.0)
#: the three methods of the paper's experiment, in the order of the tables
METHODS = ["DP k-means", "+ MCMC (paper)", "+ MCMC (projected centres)"]


# ----------------------------------------------------------------------------------------- one run
def transcript_summary(est, transcript) -> pd.DataFrame:
    """What one DP k-means run released, in numbers: rounds, clusters, the Laplace scales, the budget and how
    many noisy counts fell below 1. One column ``value`` (formatted text)."""
    tr = transcript
    low = int((tr.n_tilde < 1).sum())
    rows = {"rounds T": f"{tr.n_rounds}",
            "clusters K": f"{tr.n_clusters}",
            "Laplace scale of every count": f"{float(tr.count_scale[0]):g}",
            "Laplace scale of every coordinate sum": f"{float(tr.sum_scale[0]):g}",
            "ε spent (ledger)": f"{est.ledger_.epsilon:g}",
            "noisy counts below 1": f"{low} of {tr.n_tilde.size}"}
    return pd.DataFrame({"value": rows})


def consistency_table(transcript) -> tuple[pd.DataFrame, object]:
    """The consistency step on a transcript: the noisy grand count of every round and the common (consistent)
    one; also the (unweighted) L1 distance the step moved the releases and the lower bound of that distance —
    with equal Laplace scales in every round, as in the paper, the weighted and unweighted fits coincide.

    Returns ``(table, consistent)`` where ``consistent`` is the
    :class:`~dpclust_core.postprocess.ConsistentStatistics`; the table has one row per round and a last row
    ``after consistency``, and its ``attrs`` hold ``moved`` and ``lower_bound``.
    """
    tr = transcript
    cs = consistent_l1(tr.s_tilde, tr.n_tilde, 1 / tr.sum_scale, 1 / tr.count_scale)
    totals = tr.n_tilde.sum(axis=1)
    rows = {f"round {t + 1}": {"grand count": totals[t], "of which negative counts": tr.n_tilde[t][tr.n_tilde[t] < 0].sum()}
            for t in range(tr.n_rounds)}
    rows["after consistency"] = {"grand count": cs.count_total, "of which negative counts": 0.0}
    table = pd.DataFrame(rows).T.round(1)
    table.attrs["moved"] = l1_consistency_objective(cs.s_hat, cs.n_hat, tr.s_tilde, tr.n_tilde)
    table.attrs["lower_bound"] = l1_consistency_lower_bound(tr.s_tilde, tr.n_tilde)
    return table, cs


def outside_share(pp) -> float:
    """Share of a fitted sampler's proposals that lie outside the public domain of its transcript (the L1 ball
    or the box of radius r)."""
    P, t = pp.proposals_, pp.transcript_
    out = (np.abs(P).sum(axis=1) > t.radius) if t.domain == "l1" else (np.abs(P) > t.radius).any(axis=1)
    return float(out.mean()) if out.size else 0.0


def sampler_summary(pp, log_target_real: float | None = None) -> pd.DataFrame:
    """A fitted :class:`~dpclust_core.postprocess.MCMCPostprocessor` in numbers: size of the synthetic
    dataset, steps, share of proposals outside the domain, acceptance rate, coverage, the log target at the start, at its best (and when), at the end,
    and (if given) that of the real data. One column ``value`` (formatted text)."""
    tr = pp.log_target_trace_
    rows = {"synthetic points M": f"{pp.n_points_:,}",
            "MH steps": f"{pp.n_steps_:,}",
            "proposals outside the domain": f"{outside_share(pp):.0%}",
            "acceptance rate": f"{pp.acceptance_rate_:.2f}",
            "points replaced at least once": f"{pp.coverage_:.0%}",
            "log target at the start": f"{tr[0]:.0f}",
            "best log target (step)": f"{pp.best_log_target_:.0f} (step {pp.best_step_:,})",
            "log target at the end": f"{tr[-1]:.0f}"}
    if log_target_real is not None:
        rows["log target of the real data"] = f"{log_target_real:.0f}"
    return pd.DataFrame({"value": rows})


def per_round_fit(datasets: dict, transcript, reference: str) -> pd.DataFrame:
    """How much worse than ``reference`` each dataset explains each round: ``ln P[round t | reference] −
    ln P[round t | D]`` (≥ 0 when the reference explains the round better), one column per dataset of
    ``datasets`` (a dict name -> points in the scaled domain; the reference is one of them)."""
    ll = {name: transcript_log_likelihood(D, transcript, per_round=True) for name, D in datasets.items()}
    ref = ll[reference]
    out = pd.DataFrame({name: ref - v for name, v in ll.items() if name != reference},
                       index=pd.RangeIndex(1, transcript.n_rounds + 1, name="round"))
    return out


def non_private_wcss(Z, n_clusters: int, n_init: int = 5, seed=0) -> float:
    """WCSS of the best of ``n_init`` non-private Lloyd runs (k-means++ starts) on ``Z`` (a baseline)."""
    return wcss(Z, best_of_lloyd(Z, n_clusters, n_init=n_init, rng=seed)[0])


# ----------------------------------------------------------------------------------------- the experiment
def paired_runs(X, n_clusters: int, epsilons, seeds=(0, 1), *, n_steps: int = 30_000, project: bool = True,
                bounds=BOUNDS, seed_offset: int = 100):
    """The paper's experiment: DP k-means (``DPLloyd(variant="lee_kifer")``, T = 5) and its postprocessing
    (``MCMCPostprocessor`` with the paper's settings), paired on the same transcript, for every ε and seed.

    Run ``s`` fits DP k-means with ``random_state=s`` and the sampler with ``random_state=seed_offset + s``;
    with ``project`` it also runs the sampler with the proposal centres projected onto the domain.

    Returns
    -------
    (DataFrame, dict)
        The tidy table (``epsilon``, ``run``, ``method``, ``WCSS``, ``acceptance``) and the fitted objects
        ``{(epsilon, seed): (transcript, mcmc, mcmc_projected or None)}``.
    """
    rows, fits = [], {}
    for e in epsilons:
        for s in seeds:
            est = DPLloyd(n_clusters, e, bounds=bounds, variant="lee_kifer", random_state=int(s)).fit(X)
            tr = Transcript.from_dplloyd(est)
            Z = tr.to_domain(X)
            p = MCMCPostprocessor(n_steps, random_state=seed_offset + int(s)).fit(tr)
            pj = (MCMCPostprocessor(n_steps, project_centroids=True, random_state=seed_offset + int(s)).fit(tr)
                  if project else None)
            res = [("DP k-means", wcss(Z, tr.final_centroids), np.nan),
                   ("+ MCMC (paper)", wcss(Z, p.cluster_centers_domain_), p.acceptance_rate_)]
            if pj is not None:
                res.append(("+ MCMC (projected centres)", wcss(Z, pj.cluster_centers_domain_), pj.acceptance_rate_))
            rows += [{"epsilon": e, "run": int(s), "method": m, "WCSS": w, "acceptance": a} for m, w, a in res]
            fits[(e, int(s))] = (tr, p, pj)
    return pd.DataFrame(rows), fits


def mean_table(runs: pd.DataFrame, floor: float | None = None) -> pd.DataFrame:
    """Mean WCSS per ε (rows) and method (columns) of a :func:`paired_runs` table, rounded to 0.1, with the
    non-private WCSS as a last column if given."""
    t = runs.pivot_table(index="epsilon", columns="method", values="WCSS", aggfunc="mean")
    t = t[[m for m in METHODS if m in t.columns]]
    if floor is not None:
        t["non-private"] = floor
    t.index = [f"{e:g}" for e in t.index]
    t.index.name = "ε"
    t.columns.name = None
    return t.round(1)


def wins_table(runs: pd.DataFrame) -> pd.DataFrame:
    """Per ε: mean WCSS of DP k-means and of the paper's postprocessing, the relative change, and in how many
    paired runs the postprocessing is lower."""
    p = runs.pivot_table(index=["epsilon", "run"], columns="method", values="WCSS")
    g = p.groupby(level="epsilon")
    out = pd.DataFrame({"DP k-means": g["DP k-means"].mean(), "+ MCMC (paper)": g["+ MCMC (paper)"].mean()})
    out["change"] = out["+ MCMC (paper)"] / out["DP k-means"] - 1
    out["MCMC lower in"] = [f"{int((gg['+ MCMC (paper)'] < gg['DP k-means']).sum())} of {len(gg)}"
                            for _, gg in g]
    return out


def ablation(X, n_clusters: int, epsilon: float, fits: dict, seeds=(0, 1), *, n_steps: int = 30_000,
             bounds=BOUNDS, seed_offset: int = 100) -> pd.DataFrame:
    """What each ingredient of the postprocessing adds, at one ε, over the runs of :func:`paired_runs`
    (``fits`` from it, with ``project=True``): DP k-means; its own centroids projected onto the domain;
    consistency only (0 MH steps); the pooled proposal (every move accepted); the sampler with the labelled
    (paper) and the marginal Hastings ratio; and with projected proposal centres. Mean WCSS per ingredient."""
    acc = {}
    for s in seeds:
        tr, p, pj = fits[(epsilon, int(s))]
        Z = tr.to_domain(X)
        est_p = DPLloyd(n_clusters, epsilon, bounds=bounds, variant="lee_kifer", guard="keep_prev+project",
                        random_state=int(s)).fit(X)
        marg = MCMCPostprocessor(n_steps, hastings="marginal", random_state=seed_offset + int(s)).fit(tr)
        vals = {
            "DP k-means": wcss(Z, tr.final_centroids),
            "DP k-means, centroids projected": wcss(Z, est_p.scaled_centers_),
            "consistency only (0 MH steps)": wcss(Z, MCMCPostprocessor(0, random_state=int(s)).fit(tr)
                                                  .cluster_centers_domain_),
            "pooled proposal (every move accepted)": wcss(Z, pooled_proposal_kmeans(tr, random_state=int(s))),
            "MCMC, labelled Hastings (paper)": wcss(Z, p.cluster_centers_domain_),
            "MCMC, marginal Hastings": wcss(Z, marg.cluster_centers_domain_),
            "MCMC, projected centres": wcss(Z, pj.cluster_centers_domain_),
        }
        for k, v in vals.items():
            acc.setdefault(k, []).append(v)
    return pd.DataFrame({"mean WCSS": {k: float(np.mean(v)) for k, v in acc.items()}})


def improved_runs(X, n_clusters: int, epsilons, *, seed: int = 0, n_steps: int = 30_000, bounds=BOUNDS,
                  mcmc_seed: int = 100) -> pd.DataFrame:
    """The thesis's DPLloyd-Impr (box domain, its own split and rounds, N private), postprocessed: per ε the
    rounds, the Laplace scales, and the WCSS (original units) of DPLloyd-Impr and of its postprocessing."""
    rows = []
    for e in epsilons:
        est = DPLloyd(n_clusters, e, bounds=bounds, variant="improved", random_state=seed).fit(X)
        tr = Transcript.from_dplloyd(est)
        p = MCMCPostprocessor(n_steps, random_state=mcmc_seed).fit(tr)
        rows.append({"ε": f"{e:g}", "rounds T": tr.n_rounds, "count scale": float(tr.count_scale[0]),
                     "sum scale": float(tr.sum_scale[0]), "DPLloyd-Impr": wcss(X, est.cluster_centers_),
                     "+ MCMC": wcss(X, p.cluster_centers_)})
    return pd.DataFrame(rows).set_index("ε").round(1)


# ----------------------------------------------------------------------------------------- a 1-D toy
def toy_transcript() -> Transcript:
    """A tiny transcript (d = 1, K = 2, T = 2, one synthetic point, box domain [-1, 1]) whose target
    distribution π can be computed by quadrature: the sampler's histogram must match it.

    Examples
    --------
    >>> tr = toy_transcript()
    >>> tr.n_rounds, tr.n_clusters, tr.n_features
    (2, 2, 1)
    """
    C = np.array([[[-0.5], [0.5]], [[-0.2], [0.6]], [[-0.3], [0.4]]])
    n = np.array([[0.5, 0.6], [0.4, 0.7]])
    s = np.array([[[-0.2], [0.3]], [[-0.3], [0.4]]])
    return Transcript(C, s, n, count_scale=0.5, sum_scale=0.3, domain="box", radius=1.0)


def _chain_states(pp):
    """x after every step of a one-point chain: the last accepted proposal, else the initial point."""
    idx = np.where(pp.accepted_, np.arange(pp.accepted_.size), -1)
    idx = np.maximum.accumulate(idx)
    return np.where(idx[:, None] >= 0, pp.proposals_[np.maximum(idx, 0)], pp.initial_dataset_[0])[:, 0]


def toy_histogram(hastings=("labelled", "marginal", "none"), *, n_steps: int = 50_000, proposal_var: float = 0.5,
                  bins: int = 20, seed: int = 2024) -> pd.DataFrame:
    """Run the sampler on :func:`toy_transcript` with a wide proposal (variance ``proposal_var``, proposals
    outside [-1, 1] rejected) for each Hastings variant, and compare the share of steps in each of ``bins``
    bins of [-1, 1] with the target π (quadrature).

    Returns a DataFrame indexed by the bin centre with a column ``target`` and one column per variant, and
    ``attrs["tv"]``: the total-variation distance of each variant's histogram to the target.

    Examples
    --------
    >>> h = toy_histogram(["labelled"], n_steps=2000, bins=4)
    >>> list(h.columns), round(float(h["target"].sum()), 6)
    (['target', 'labelled'], 1.0)
    """
    tr = toy_transcript()
    edges = np.linspace(-1.0, 1.0, bins + 1)
    grid = np.linspace(-1.0, 1.0, 40_001)
    mid = 0.5 * (grid[1:] + grid[:-1])
    L = np.array([transcript_loss(m.reshape(1, 1), tr) for m in mid[::50]])
    w = np.exp(-(L - L.min()))
    centres = mid[::50]
    target = np.array([w[(centres >= a) & (centres < b)].sum() for a, b in zip(edges[:-1], edges[1:])])
    out = {"target": target / target.sum()}
    tv = {}
    for h in hastings:
        pp = MCMCPostprocessor(n_steps, proposal_var=proposal_var, hastings=h, domain="reject",
                               random_state=seed).fit(tr)
        x = _chain_states(pp)
        counts = np.histogram(x, bins=edges)[0]
        out[h] = counts / counts.sum()
        tv[h] = 0.5 * float(np.abs(out[h] - out["target"]).sum())
    df = pd.DataFrame(out, index=pd.Index(np.round(0.5 * (edges[1:] + edges[:-1]), 3), name="x"))
    df.attrs["tv"] = tv
    return df


# ----------------------------------------------------------------------- the likelihood of a transcript, the L1 bound
@validate_params(transcript=_check_transcript)
def partition_statistics(X: ArrayLike, transcript: Transcript) -> tuple[np.ndarray, np.ndarray]:
    """Sums ``S (T, K, d)`` and counts ``N (T, K)`` of dataset ``X`` in the cells of ``c^(t-1)``, t = 1..T.

    Parameters
    ----------
    X : array (n, d)
        A dataset in the scaled domain (e.g. a synthetic one).
    transcript : Transcript

    Returns
    -------
    (ndarray (T, K, d), ndarray (T, K))

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[[-1.0], [1.0]]] * 2)
    >>> tr = Transcript(C, np.zeros((1, 2, 1)), np.zeros((1, 2)), 1.0, 1.0)
    >>> S, N = partition_statistics([[-0.5], [0.2], [0.9]], tr)
    >>> S.ravel().tolist(), N.ravel().tolist()
    ([-0.5, 1.1], [1.0, 2.0])
    """
    X = check_data(X, n_features=transcript.n_features)
    return _round_statistics(X, _assign_rounds(X, transcript.centroids[:-1]), transcript.n_clusters)


@validate_params(transcript=_check_transcript, obs=Options("consistent", "raw"),
                 temperature=Real(0.0, low_open=True))
def transcript_loss(X: ArrayLike, transcript: Transcript, *, obs: Literal["consistent", "raw"] = "consistent",
                    temperature: float = 1.0) -> float:
    """Negative log target ``L(D)`` of the sampler (so ``π(D) = exp(-L)``).

    ``L = temperature · Σ_t Σ_k ( ||y_k^(t) − S_k(D, c^(t-1))||_1 / b_S^(t)``
    ``+ |u_k^(t) − N_k(D, c^(t-1))| / b_N^(t) )``
    with ``(y, u)`` the consistent values (``obs="consistent"``, the paper's choice) or the raw noisy ones.
    With ``obs="raw"`` and ``temperature=1`` this is minus the Laplace log-likelihood of the transcript
    up to its constant (see :func:`transcript_log_likelihood`).

    Parameters
    ----------
    X : array (n, d)
        A dataset in the scaled domain.
    transcript : Transcript
    obs : {"consistent", "raw"}
    temperature : float, default 1.0
        Multiplier of L, > 0.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[[-1.0], [1.0]]] * 2)
    >>> tr = Transcript(C, np.array([[[-0.5], [1.0]]]), np.array([[1.0, 2.0]]), 1.0, 1.0)
    >>> round(transcript_loss([[-0.5], [0.2], [0.9]], tr, obs="raw"), 6)
    0.1
    """
    tr = transcript
    y, u = _observations(tr, obs, True)
    S, N = partition_statistics(X, tr)
    per_t = (np.abs(y - S).sum(axis=(1, 2)) / tr.sum_scale + np.abs(u - N).sum(axis=1) / tr.count_scale)
    return float(temperature * per_t.sum())


@validate_params(transcript=_check_transcript, per_round=Bool())
def transcript_log_likelihood(X: ArrayLike, transcript: Transcript, *,
                              per_round: bool = False) -> float | np.ndarray:
    """Exact ``ln P[transcript | D = X]`` under the Laplace mechanism (the paper's §3.1, corrected).

    ``ln P = Σ_t [ −K·d·ln(2 b_S^(t)) − K·ln(2 b_N^(t))``
    ``− Σ_k ||s̃_k^(t) − S_k||_1 / b_S^(t) − Σ_k |ñ_k^(t) − N_k| / b_N^(t) ]``
    where ``S_k, N_k`` are the statistics of ``X`` in the cells of the centroids of round ``t − 1``.

    Parameters
    ----------
    X : array (n, d)
        A dataset in the scaled domain.
    transcript : Transcript
    per_round : bool, default False
        Return the ``(T,)`` per-round terms instead of their sum.

    Returns
    -------
    float or ndarray (T,)

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[[-1.0], [1.0]]] * 2)
    >>> tr = Transcript(C, np.array([[[-0.5], [1.1]]]), np.array([[1.0, 2.0]]), 0.5, 0.5)
    >>> round(transcript_log_likelihood([[-0.5], [0.2], [0.9]], tr), 6)   # data match the release: 4 ln(1)
    0.0
    """
    tr = transcript
    S, N = partition_statistics(X, tr)
    K, d = tr.n_clusters, tr.n_features
    per_t = (-K * d * np.log(2 * tr.sum_scale) - K * np.log(2 * tr.count_scale)
             - np.abs(tr.s_tilde - S).sum(axis=(1, 2)) / tr.sum_scale
             - np.abs(tr.n_tilde - N).sum(axis=1) / tr.count_scale)
    return per_t if per_round else float(per_t.sum())


def _weighted_releases(s_tilde, n_tilde, sum_weights, count_weights, *, max_rounds=None):
    """The validated noisy releases and per-round weights ``(s, n, w_S, w_N)`` of the L1 objective."""
    s, n = _check_noisy(s_tilde, n_tilde)
    T = s.shape[0]
    if max_rounds is not None and T > max_rounds:
        raise ValueError(f"s_tilde has T={T} rounds; at most {max_rounds} (the bound costs T^2)")
    return s, n, _check_weights(sum_weights, "sum_weights", T), _check_weights(count_weights, "count_weights", T)


def l1_consistency_objective(s_hat: ArrayLike, n_hat: ArrayLike, s_tilde: ArrayLike, n_tilde: ArrayLike,
                             sum_weights: float | ArrayLike | None = None,
                             count_weights: float | ArrayLike | None = None) -> float:
    """The weighted L1 objective of :func:`consistent_l1` at ``(s_hat, n_hat)``.

    Parameters
    ----------
    s_hat, n_hat : arrays (T, K, d) and (T, K)
        A candidate consistent point.
    s_tilde, n_tilde : arrays (T, K, d) and (T, K)
        The noisy releases.
    sum_weights, count_weights : float or array (T,), optional
        Per-round weights (> 0; default 1).

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> s, n = np.zeros((2, 2, 1)), np.array([[4.0, 6.0], [5.0, 7.0]])
    >>> cs = consistent_l1(s, n)
    >>> round(l1_consistency_objective(cs.s_hat, cs.n_hat, s, n), 9), l1_consistency_lower_bound(s, n)
    (2.0, 2.0)
    """
    s, n, ws, wn = _weighted_releases(s_tilde, n_tilde, sum_weights, count_weights)
    sh, nh = _check_noisy(s_hat, n_hat, "s_hat", "n_hat")
    if sh.shape != s.shape:
        raise ValueError(f"s_hat must have the shape of s_tilde {s.shape}, got {sh.shape}")
    return float((ws * np.abs(sh - s).sum(axis=(1, 2))).sum() + (wn * np.abs(nh - n).sum(axis=1)).sum())


def l1_consistency_lower_bound(s_tilde: ArrayLike, n_tilde: ArrayLike, sum_weights: float | ArrayLike | None = None,
                               count_weights: float | ArrayLike | None = None) -> float:
    """Lower bound on the consistency objective over all feasible points:
    ``Σ_j min_m Σ_t w_S^(t)|m − R_{t,j}| + min_{m≥0} Σ_t w_N^(t) [Σ_k max(−ñ_k^(t),0) + |m − P_t|]``.

    Per round, ``Σ_k |x_k − a_k| ≥ |Σ_k x_k − Σ_k a_k|`` (triangle inequality); for counts the
    negative parts must be paid before the clipped total can move. The minimum over the common total
    is found here by evaluating at every breakpoint (no use of the median formula).

    Parameters
    ----------
    s_tilde, n_tilde, sum_weights, count_weights
        As in :func:`l1_consistency_objective`, with T at most 10000.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> l1_consistency_lower_bound(np.zeros((2, 2, 1)), np.array([[4.0, 6.0], [5.0, 7.0]]))
    2.0
    """
    s, n, ws, wn = _weighted_releases(s_tilde, n_tilde, sum_weights, count_weights, max_rounds=10_000)
    R = s.sum(axis=1)                                        # (T, d)
    cost_s = (ws[None, :, None] * np.abs(R[:, None, :] - R[None, :, :])).sum(axis=1).min(axis=0).sum()
    P = np.maximum(n, 0).sum(axis=1)
    neg = np.maximum(-n, 0).sum(axis=1)
    cost_n = (wn[None, :] * np.abs(P[:, None] - P[None, :])).sum(axis=1).min() + (wn * neg).sum()
    return float(cost_s + cost_n)


# ----------------------------------------------------------------------- a baseline: every move accepted
@validate_params(transcript=_check_transcript, n_points=NoneOr(Int(1, _MAX_POINTS)),
                 proposal_var=Real(0.0, _MAX_PROPOSAL_VAR, low_open=True), consistency=Bool(),
                 project_centroids=Bool(), n_init=Int(0, 1000), random_state=Rng())
def pooled_proposal_kmeans(transcript: Transcript, n_points: int | None = None, *, proposal_var: float = 1e-3,
                           consistency: bool = True, project_centroids: bool = False, n_init: int = 10,
                           random_state: RNGLike = None) -> np.ndarray:
    """Cheap baseline: k-means on ``M`` iid draws from the pooled proposal — what the sampler would output if
    it accepted every move. Returns centres in scaled units.

    Parameters
    ----------
    transcript : Transcript
    n_points : int, optional
        M (1..10^8); default the consistent noisy count total.
    proposal_var : float, default 1e-3
        δ, the variance of every proposal component, in (0, 1e6].
    consistency : bool, default True
        Apply the consistency step to the proposal parameters.
    project_centroids : bool, default False
        Project the proposal centres onto the domain.
    n_init : int, default 10
        k-means++ restarts of the final k-means (plus one from ``c^(T)``).
    random_state : None, int or numpy.random.Generator

    Returns
    -------
    ndarray (K, d)

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[[-0.5], [0.5]]] * 3)
    >>> tr = Transcript(C, np.array([[[-5.0], [5.0]]] * 2), np.full((2, 2), 10.0), 1.0, 1.0)
    >>> np.round(pooled_proposal_kmeans(tr, random_state=0), 1).ravel().tolist()
    [-0.5, 0.5]
    """
    c_hat, omega, mN = _proposal_parameters(transcript, consistency, project_centroids)
    M = _resolve_n_points(n_points, mN)
    _, _, X = _sample_proposal(M, c_hat, omega, proposal_var, random_state)
    C, _ = _kmeans_best(X, transcript.n_clusters, n_init, [transcript.final_centroids], random_state)
    return C
