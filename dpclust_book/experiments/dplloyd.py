"""Experiments of chapter 2 (DPLloyd and its error analysis): the thesis's error model checked by simulation,
the count/sum split, the number of rounds, the initial centroids and the original-against-improved comparison.

Every function takes its randomness from a seed (None, an int or a ``numpy.random.Generator``), draws the
privacy noise of a fit only through :class:`~dpclust_core.kmeans.DPLloyd` (hence through
:mod:`dpclust_core.mechanisms`) and returns a tidy ``pandas.DataFrame`` that the chapter shows as a table or
hands to :mod:`dpclust_book.plots.dplloyd`. Repeated fits on the same data are *evaluation*: each run would
cost its own budget if it were released; the averages only measure the algorithms' accuracy.

Examples
--------
>>> from dpclust_book.experiments import dplloyd as ex
>>> df = ex.split_table([2, 10])
>>> list(df.columns)
['d', 'c_d', 'count share', 'share of each sum', 'MSE(PINQ) / MSE(optimal)']
>>> df["count share"].round(3).tolist()
[0.27, 0.112]
"""
from __future__ import annotations

import math
from typing import Literal

import numpy as np
import pandas as pd

from dpclust_core._kernels import assign_stats
from dpclust_core._validation import (MAX_ALLOCATION, ArrayLike, BadTypeError, RNGLike, check_data, check_epsilon,
                                      check_half_width, check_int, check_real, check_rng)
from dpclust_core.accounting import PrivacyLedger
from dpclust_core.kmeans import DPLloyd
from dpclust_core.kmeans.error_models import (RHO, budget_split, count_sum_ratio, dplloyd_mse, epsilon_m, n_rounds,
                                              optimal_count_share, swapped_split_epsilon)
from dpclust_core.kmeans.lloyd import sphere_packing_centroids
from dpclust_core.metrics import nicv

__all__ = ["equal_blobs", "cluster_rho", "error_model_sweeps", "error_model_summary", "split_model_curves", "split_measured",
           "split_table", "rounds_table", "nicv_by_rounds", "compare_dplloyd", "ratio_table", "fit_summary",
           "swapped_split_table", "swapped_split_ledger", "best_rounds_table", "headline_table",
           "simulate_one_round_mse"]

BOUNDS = (-1.0, 1.0)


def _seed(seed):
    """An int seed stays an int (so several functions can share it); a Generator is kept."""
    return seed if isinstance(seed, (int, np.integer)) or seed is None else check_rng(seed)


# ----------------------------------------------------------------------------------------- error model
def equal_blobs(n: int, k: int, d: int, seed=None, spread: float = 0.05):
    """``k`` equal-sized Gaussian clusters around sphere-packing centres in ``[-1, 1]^d``: the data for which
    the thesis's error model is derived (clusters of about ``N/k`` points).

    Returns ``(X, centres)``; point ``i`` belongs to cluster ``i mod k``.

    Examples
    --------
    >>> X, C = equal_blobs(100, 4, 2, seed=0)
    >>> X.shape, C.shape, bool(abs(X).max() <= 1)
    ((100, 2), (4, 2), True)
    """
    n, k, d = check_int(n, "n", 1), check_int(k, "k", 1), check_int(d, "d", 1)
    rng = check_rng(seed)
    centres = sphere_packing_centroids(k, d, 1.0, rng)
    X = np.clip(centres[np.arange(n) % k] + rng.normal(scale=spread, size=(n, d)), -1.0, 1.0)  # data: not privacy noise
    return X, centres


def cluster_rho(X, labels, r: float = 1.0) -> float:
    """The thesis's ρ measured on labelled data: the mean over clusters and coordinates of ``|S_i| / (2 r C)``,
    i.e. of the absolute cluster-mean coordinate divided by ``2r``.

    Examples
    --------
    >>> round(cluster_rho([[0.5, -0.5], [0.3, -0.3], [-0.2, 0.0]], [0, 0, 1]), 3)
    0.125
    """
    X = np.asarray(X, dtype=float)
    labels = np.asarray(labels)
    means = np.array([X[labels == j].mean(axis=0) for j in np.unique(labels)])
    return float(np.abs(means).mean() / (2.0 * r))


def _count_noise(n, d, k, epsilon, r=1.0, t=1):
    """Relative standard deviation of a noisy count under PINQ's split: sqrt(2)·b/(N/k), b = (dr+1)t/ε."""
    return math.sqrt(2.0) * (d * r + 1.0) * t * k / (n * epsilon)


def error_model_sweeps(n: int = 10_000, k: int = 5, d: int = 2, epsilon: float = 0.5, *, epsilons=None,
                       dims=None, ks=None, n_trials: int = 2000, seed=2016) -> pd.DataFrame:
    """The one-round error model of DPLloyd (PINQ's split) against simulation, varying ε, d and k in turn.

    For every setting, :func:`~dpclust_core.kmeans.error_models.dplloyd_mse` gives the model and
    :func:`simulate_one_round_mse` measures the same quantity (``n_trials``
    noise draws on :func:`equal_blobs` data, the partition computed once). The other parameters stay at
    ``n, k, d, epsilon``.

    Returns
    -------
    DataFrame
        One row per setting: ``sweep`` ("ε", "d" or "k"), ``value``, ``n``, ``d``, ``k``, ``epsilon``,
        ``model``, ``measured``, ``measured / model`` and ``count noise`` (the relative standard deviation of a
        noisy count, ``√2 k (dr+1) / (N ε)``: the model holds while it is small).

    Examples
    --------
    >>> df = error_model_sweeps(2000, epsilons=[0.5], dims=[2], ks=[5], n_trials=50, seed=0)
    >>> df["sweep"].tolist(), bool((df["measured / model"] > 0.5).all())
    (['ε', 'd', 'k'], True)
    """
    epsilons = [0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0] if epsilons is None else list(epsilons)
    dims = [1, 2, 3, 5, 8, 12, 20] if dims is None else list(dims)
    ks = [2, 3, 5, 8, 12, 20, 30] if ks is None else list(ks)
    rows = []
    data = {}
    for sweep, values in (("ε", epsilons), ("d", dims), ("k", ks)):
        for v in values:
            kk, dd, ee = (int(v) if sweep == "k" else k), (int(v) if sweep == "d" else d), \
                (float(v) if sweep == "ε" else epsilon)
            if (kk, dd) not in data:
                data[(kk, dd)] = equal_blobs(n, kk, dd, seed)
            X, C = data[(kk, dd)]
            meas = simulate_one_round_mse(X, C, ee, n_trials=n_trials, rng=seed)
            model = dplloyd_mse(n, dd, kk, ee)
            rows.append(dict(sweep=sweep, value=v, n=n, d=dd, k=kk, epsilon=ee, model=model, measured=meas,
                             **{"measured / model": meas / model,
                                "count noise": _count_noise(n, dd, kk, ee)}))
    return pd.DataFrame(rows)


def error_model_summary(sweeps: pd.DataFrame) -> pd.DataFrame:
    """The ratio measured/model of :func:`error_model_sweeps`, one column per parameter varied: the range
    varied, the ratio at its two ends, its lowest and its highest value (rounded to 2 decimals)."""
    cols = {}
    for sweep, g in sweeps.groupby("sweep", sort=False):
        r = g["measured / model"].to_numpy()
        v = g["value"].to_numpy()
        cols[f"varying {sweep}"] = {"from – to": f"{v[0]:g} – {v[-1]:g}",
                                    "ratio at the first value": f"{r[0]:.2f}",
                                    "ratio at the last value": f"{r[-1]:.2f}",
                                    "lowest ratio": f"{r.min():.2f}", "highest ratio": f"{r.max():.2f}"}
    return pd.DataFrame(cols)


# ----------------------------------------------------------------------------------------- the split
def split_model_curves(n: int, k: int, epsilon: float, dims, ratios=None) -> pd.DataFrame:
    """The one-round MSE of the model (Eq. 4.6) as a function of the count/sum ratio ``ε_0/ε_i``, relative to
    its minimum (the split of Eq. 4.7), for each ``d`` in ``dims``.

    Returns a DataFrame with columns ``d``, ``ratio``, ``relative MSE``.

    Examples
    --------
    >>> df = split_model_curves(10_000, 5, 0.5, [2], ratios=[count_sum_ratio(2)])
    >>> round(float(df["relative MSE"].iloc[0]), 9)
    1.0
    """
    ratios = np.logspace(-1, 1, 60) if ratios is None else np.asarray(ratios, float)
    rows = []
    for d in dims:
        best = dplloyd_mse(n, d, k, epsilon, split="improved")
        for q in ratios:
            mse = dplloyd_mse(n, d, k, epsilon, split=(q / (d + q), 1.0 / (d + q)))
            rows.append({"d": int(d), "ratio": float(q), "relative MSE": mse / best})
    return pd.DataFrame(rows)


def split_measured(n: int, k: int, d: int, epsilon: float, ratios, *, n_trials: int = 2000,
                   seed=2016) -> pd.DataFrame:
    """Measured one-round MSE (simulation on :func:`equal_blobs`) at the given count/sum ratios, with its value
    relative to the model's optimum. Columns ``ratio``, ``measured``, ``relative MSE``."""
    X, C = equal_blobs(n, k, d, seed)
    best = dplloyd_mse(n, d, k, epsilon, split="improved")
    rows = []
    for q in ratios:
        m = simulate_one_round_mse(X, C, epsilon, split=(q / (d + q), 1.0 / (d + q)), n_trials=n_trials,
                                   rng=seed)
        rows.append({"ratio": float(q), "measured": m, "relative MSE": m / best})
    return pd.DataFrame(rows)


def split_table(dims, n: int = 10_000, k: int = 5, epsilon: float = 0.5, rho: float = RHO) -> pd.DataFrame:
    """For each ``d``: the optimal ratio ``c_d``, the count's share ``γ_c``, each sum's share ``γ_s`` (Eq. 4.7),
    and how much larger the model's MSE is under PINQ's split than under the optimal one (``r = 1``)."""
    rows = []
    for d in dims:
        d = int(d)
        rows.append({"d": d, "c_d": count_sum_ratio(d, rho), "count share": optimal_count_share(d, rho),
                     "share of each sum": budget_split(d, 1.0, rho=rho)[1],
                     "MSE(PINQ) / MSE(optimal)": dplloyd_mse(n, d, k, epsilon, rho=rho)
                     / dplloyd_mse(n, d, k, epsilon, rho=rho, split="improved")})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------- the rounds
def rounds_table(cases: dict, epsilons=(0.05, 0.1, 0.5, 1.0, 2.0)) -> pd.DataFrame:
    """ε^m (Eq. 4.9) and the number of rounds of Algorithm 14 at each ε, for datasets of the given public sizes.

    ``cases`` maps a name to ``(N, d, k)``. The N here is the dataset's published size (the thesis's setting);
    :class:`~dpclust_core.kmeans.DPLloyd` uses a noisy count of it unless told otherwise. The columns are
    ``("", "ε^m")`` and ``("rounds at ε =", f"{ε:g}")``.

    Examples
    --------
    >>> t = rounds_table({"Gowalla": (107091, 2, 5)}, epsilons=[0.05])
    >>> round(float(t.iloc[0, 0]), 4), int(t.iloc[0, 1])
    (0.0106, 4)
    """
    rows = {}
    for name, (n, d, k) in cases.items():
        em = epsilon_m(n, d, k)
        row = {("", "ε^m"): round(em, 4)}
        row.update({("rounds at ε =", f"{e:g}"): n_rounds(e, em) for e in epsilons})
        rows[name] = row
    out = pd.DataFrame(rows).T
    out.columns = pd.MultiIndex.from_tuples(out.columns)
    out.index.name = "dataset"
    return out.astype({c: int for c in out.columns if c[0]})


def nicv_by_rounds(X, n_clusters: int, epsilons, rounds, *, runs: int = 15, bounds=BOUNDS,
                   seed=2016) -> pd.DataFrame:
    """Mean NICV of DPLloyd-Impr's split and start run for a FIXED number of rounds, against that number.

    Run ``s`` of every setting uses ``random_state=s`` (paired across settings). Also records how many rounds
    Algorithm 14 picks at each ε (from a noisy N, fit with ``random_state=seed``).

    Returns
    -------
    DataFrame
        Columns ``epsilon``, ``rounds``, ``mean NICV``, ``Algorithm 14's rounds``.
    """
    rows = []
    for e in epsilons:
        auto = DPLloyd(n_clusters, e, bounds=bounds, random_state=seed).fit(X).n_iter_
        for t in rounds:
            v = np.mean([nicv(X, DPLloyd(n_clusters, e, bounds=bounds, n_rounds=int(t), random_state=s)
                              .fit(X).cluster_centers_) for s in range(runs)])
            rows.append({"epsilon": e, "rounds": int(t), "mean NICV": v, "Algorithm 14's rounds": auto})
    return pd.DataFrame(rows)


# ----------------------------------------------------------------------------------------- comparisons
def compare_dplloyd(X, n_clusters: int, epsilons, configs: dict, *, runs: int = 20, bounds=BOUNDS,
                    rounds_seed: int = 0) -> pd.DataFrame:
    """Mean NICV over ``runs`` fits of each DPLloyd configuration at each ε.

    ``configs`` maps a label to keyword arguments of :class:`~dpclust_core.kmeans.DPLloyd` (e.g.
    ``{"DPLloyd": {"variant": "original"}}``). Run ``s`` uses ``random_state=s`` for every configuration, so
    the comparison is paired.

    Returns
    -------
    DataFrame
        Columns ``method``, ``epsilon``, ``mean NICV``, ``rounds`` (of the fit with ``random_state=rounds_seed``).

    Examples
    --------
    >>> from dpclust_book.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(500, 3, 2, random_state=0)
    >>> df = compare_dplloyd(X, 3, [1.0], {"DPLloyd": {"variant": "original"}}, runs=2)
    >>> df[["method", "epsilon", "rounds"]].values.tolist()
    [['DPLloyd', 1.0, 5]]
    """
    rows = []
    for label, kw in configs.items():
        for e in epsilons:
            fits = [DPLloyd(n_clusters, e, bounds=bounds, random_state=s, **kw).fit(X) for s in range(runs)]
            rounds = (fits[rounds_seed] if rounds_seed < runs else
                      DPLloyd(n_clusters, e, bounds=bounds, random_state=rounds_seed, **kw).fit(X)).n_iter_
            rows.append({"method": label, "epsilon": e,
                         "mean NICV": float(np.mean([nicv(X, f.cluster_centers_) for f in fits])),
                         "rounds": int(rounds)})
    return pd.DataFrame(rows)


def ratio_table(df: pd.DataFrame, numerator: str, denominator: str, *, rounds_of: str | None = "denominator"
                ) -> pd.DataFrame:
    """From a :func:`compare_dplloyd` table: the ratio of two methods' mean NICV at each ε (> 1: the
    denominator is better), with the rounds of ``rounds_of`` (by default the denominator; None: no rounds).
    Indexed by ε."""
    if rounds_of == "denominator":
        rounds_of = denominator
    p = df.pivot(index="epsilon", columns="method", values="mean NICV")
    out = pd.DataFrame({f"NICV {numerator}": p[numerator], f"NICV {denominator}": p[denominator],
                        f"{numerator} / {denominator}": p[numerator] / p[denominator]})
    if rounds_of is not None:
        out[f"rounds of {rounds_of}"] = df[df.method == rounds_of].set_index("epsilon")["rounds"]
    out.index.name = "ε"
    return out


def best_rounds_table(df: pd.DataFrame) -> pd.DataFrame:
    """From a :func:`nicv_by_rounds` table, one column per ε: the best fixed number of rounds and its mean
    NICV, Algorithm 14's choice and the mean NICV of that choice."""
    cols = {}
    for e, g in df.groupby("epsilon"):
        best = g.loc[g["mean NICV"].idxmin()]
        auto = int(g["Algorithm 14's rounds"].iloc[0])
        chosen = g.loc[g.rounds == auto, "mean NICV"]
        cols[f"ε = {e:g}"] = {"best fixed number of rounds": f"{int(best.rounds)}",
                              "its mean NICV": f"{best['mean NICV']:.4f}",
                              "rounds chosen by the rule": f"{auto}",
                              "their mean NICV": f"{float(chosen.iloc[0]):.4f}" if len(chosen) else ""}
    return pd.DataFrame(cols)


def fit_summary(estimators: dict) -> pd.DataFrame:
    """The public settings of fitted DPLloyd estimators, one column each: the N used for ε^m (noisy or
    published), the budget spent on it, ε^m, the rounds, the budget of a round and the total spent — all
    released or public values, formatted for reading."""
    cols = {}
    for name, est in estimators.items():
        published = est.epsilon_n_ == 0 and est.n_estimate_ is not None
        n_used = "not needed" if est.n_estimate_ is None else (
            f"{est.n_estimate_:.0f} (published)" if published else f"{est.n_estimate_:.1f} (noisy)")
        cols[name] = {"N used for the rounds": n_used,
                      "ε spent on N": f"{est.epsilon_n_:.3g}",
                      "ε^m": "" if est.epsilon_m_ is None else f"{est.epsilon_m_:.3f}",
                      "rounds": f"{est.n_iter_}",
                      "ε per round": f"{est.epsilon_round_:.3f}",
                      "ε total": f"{est.ledger_.epsilon:.3g}"}
    return pd.DataFrame(cols)


def headline_table(panels: dict, numerator: str = "DPLloyd", denominator: str = "DPLloyd-Impr") -> pd.DataFrame:
    """The paper's experiment in one table: for every data set of ``panels`` (title -> ``(table, baseline)``
    with a :func:`compare_dplloyd` table; the title up to " (" names the columns), the ``ratio`` of the two
    methods' mean NICV (> 1: the denominator is better) and the denominator's number of ``rounds``, by ε."""
    parts = {}
    for title, (df, _) in panels.items():
        t = ratio_table(df, numerator, denominator)
        short = title.split(" (")[0]
        parts[(short, "ratio")] = t[f"{numerator} / {denominator}"].round(2)
        parts[(short, "rounds")] = t[f"rounds of {denominator}"].astype(int)
    out = pd.DataFrame(parts)
    out.index = [f"{e:g}" for e in out.index]
    out.index.name = "ε"
    return out


# ----------------------------------------------------------------------------------------- the swapped split
def swapped_split_table(dims, rho: float = RHO) -> pd.DataFrame:
    """ε actually spent by a round, per unit of requested budget, when the two shares of Eq. (4.7) are
    unpacked in the wrong order, for each ``d`` (> 1: the round is not ε-DP)."""
    return pd.DataFrame({"d": [int(d) for d in dims], "c_d": [count_sum_ratio(int(d), rho) for d in dims],
                         "spent / requested": [swapped_split_epsilon(int(d), 1.0, rho) for d in dims]})


def swapped_split_ledger(d: int, epsilon_round: float = 1.0, budget: float | None = None) -> PrivacyLedger:
    """The ledger of one round whose count and sum shares were swapped: the counts get each sum's share, each
    of the ``d`` sums gets the count's share. With ``budget``, the ledger refuses the release that overspends
    (:class:`~dpclust_core.accounting.BudgetExceededError`).

    Examples
    --------
    >>> round(swapped_split_ledger(20).epsilon, 3)
    1.523
    """
    e_count, e_sum = budget_split(d, epsilon_round)
    led = PrivacyLedger(budget_epsilon=budget)
    led.record("counts (swapped share)", e_sum, sensitivity=1)
    led.record("sums (swapped share)", d * e_count, sensitivity=d)
    return led


# ------------------------------------------------------------------ the error model measured by simulation
def simulate_one_round_mse(X: ArrayLike, centroids: ArrayLike, epsilon: float, t: int = 1, r: float = 1.0,
                           rho: float = RHO, split: Literal["original", "improved"] | tuple[float, float] = "original",
                           n_trials: int = 1000, rng: RNGLike = None, clip: bool = True) -> float:
    """Measured counterpart of :func:`dplloyd_mse`: the MSE of one noisy centroid after one round, by simulation.

    The partition of ``X`` by ``centroids``, its exact counts C and sums S are computed once; then
    ``n_trials`` independent draws of the round's Laplace noise (the scales DPLloyd uses for this ``split``,
    budget ``ε/t``) give ``ô = (S + ΔS)/(C + ΔC)`` (clipped to the domain when ``clip=True``, as the algorithm
    releases it), and the result is the mean over trials and clusters of ``||ô − S/C||²`` (Eq. 4.1). Empty
    clusters are skipped (their true centroid is undefined). Vectorised over trials.

    This is an experiment on data the reader owns, not a release: it costs no privacy and its (continuous)
    Laplace draws are a simulation of the mechanism's error, not privacy noise.

    Parameters
    ----------
    X : array (n, d)
        Data already in ``[-r, r]^d``.
    centroids : array (k, d)
        The (public) centroids the round starts from.
    epsilon : float
        Total budget ε > 0.
    t : int, default 1
        Rounds; the simulated round gets ``ε/t``.
    r : float, default 1.0
        Half-width of the domain.
    rho : float, default 0.225
        ρ, for ``split="improved"``.
    split : "original", "improved" or (count_share, sum_share)
        As in :func:`dplloyd_mse`.
    n_trials : int, default 1000
        Number of simulated noise draws, ``1 <= n_trials`` and ``n_trials·k·d <= 2^27``.
    rng : None, int or numpy.random.Generator
        The simulation's randomness.
    clip : bool, default True
        Clip the noisy centroid into ``[-r, r]^d``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> X = np.repeat([[-0.5, -0.5], [0.5, 0.5]], 5000, axis=0)
    >>> mse = simulate_one_round_mse(X, [[-0.5, -0.5], [0.5, 0.5]], 1.0, n_trials=2000, rng=0)
    >>> 0.5 < mse / dplloyd_mse(10_000, 2, 2, 1.0) < 2.0
    True
    """
    X = check_data(X)
    C0 = check_data(centroids, "centroids", n_features=X.shape[1], features_of="X")
    d = X.shape[1]
    k = C0.shape[0]
    eps = check_epsilon(epsilon)
    t = check_int(t, "t", 1, 10_000)
    r = check_half_width(r)
    rho = check_real(rho, "rho", low=0.0, high=0.5)
    n_trials = check_int(n_trials, "n_trials", 1, MAX_ALLOCATION)
    if n_trials * k * d > 2**27:
        raise ValueError(f"n_trials={n_trials} is too large: n_trials * k * d must stay below 2^27 "
                         f"(memory of the vectorised simulation)")
    if not isinstance(clip, (bool, np.bool_)):
        raise BadTypeError(f"clip must be True or False, got {clip!r}")
    rng = check_rng(rng, "rng")
    z = eps / t
    if isinstance(split, str):
        e0, es = budget_split(d, z, rho=rho, split=split, r=r)
    else:
        try:
            e0 = check_real(split[0], "split", low=0.0, low_open=True) * z
            es = check_real(split[1], "split", low=0.0, low_open=True) * z
        except (TypeError, IndexError):
            raise ValueError(f"split must be 'original', 'improved' or a pair of shares, got {split!r}") from None
    _, counts, sums = assign_stats(X, C0)
    keep = counts > 0
    counts, sums = counts[keep], sums[keep]
    true = sums / counts[:, None]
    nc = counts[None, :] + rng.laplace(0.0, 1.0 / e0, size=(n_trials, counts.size))  # a simulation, not a release
    ns = sums[None, :, :] + rng.laplace(0.0, r / es, size=(n_trials,) + sums.shape)  # a simulation, not a release
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        est = ns / nc[:, :, None]
    if clip:
        est = np.clip(np.nan_to_num(est, nan=0.0, posinf=r, neginf=-r), -r, r)
    return float(((est - true[None]) ** 2).sum(axis=2).mean())
