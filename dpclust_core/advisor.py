"""Practical helpers for clustering your own data privately: which k-means method, what error to expect, what a
release means for one person, and what to publish with it.

* :func:`expected_nicv` — the error models of the thesis (chapters 2–4 of the book) turned into the NICV each
  k-means method is expected to add to the non-private optimum, for given N, d, k and ε;
* :func:`recommend` — the method those models favour for N, d, k and ε, with the reason in words;
* :func:`posterior_bound` — what ε means for one person: the largest posterior probability an attacker can
  reach about them from a prior (the posterior odds are at most ``e^ε`` times the prior odds);
* ``synopsis_nicv`` and ``release_card`` (the private quality estimate and the facts to publish) live in
  :mod:`~dpclust_core.report`; they are importable from here too.

Nothing here reads private data except through released values: N, d, k and ε are public (or a released noisy
N).

Examples
--------
>>> rec = recommend(3376, 2, 5, 0.38)
>>> rec.method, rec.estimator.__name__
('EUGkM', 'EUGkM')
>>> round(posterior_bound(0.5, 1.0), 3)
0.731
"""
from __future__ import annotations

import html
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from ._validation import BadTypeError, check_bounds, check_epsilon, check_half_width, check_int, check_real
from .kmeans.error_models import RHO, _epsilon_m, _n_rounds, dplloyd_mse
from .kmeans.grid import eugkm_grid_size, eugkm_variance, eugkm_variance_m, mkm_grid_size, ugkm_grid_size
from .kmeans.hybrid import hybrid_decision
from .report import release_card, synopsis_nicv  # noqa: F401 (moved to report; importable from here too)

if TYPE_CHECKING:  # pandas is imported on use only (the library does not depend on it)
    import pandas as pd

__all__ = ["MODELLED_METHODS", "HIGH_DIMENSION", "LOW_SIGNAL", "expected_nicv", "Recommendation", "recommend",
           "posterior_bound"]

#: The k-means methods with a closed-form error model in the thesis, in the order of the book's figures.
MODELLED_METHODS = ("DPLloyd", "DPLloyd-Impr", "UGkM", "EUGkM", "MkM", "Hybrid")
#: Above this dimension the recommendation leaves the thesis's models (its largest data set has d = 10).
HIGH_DIMENSION = 10
#: Above HIGH_DIMENSION, an N·ε/k below this carries a warning: in the book's benchmark (appendix "Which
#: private k-means?") no method learned much more than the mean of the data there (the digits, N·ε/k = 180 at
#: ε = 1 and 360 at ε = 2), while the LSH coreset came within 1.12 of non-private k-means at N·ε/k = 1,560.
LOW_SIGNAL = 500
_MAX_D = 10**6


def _check_nd(n, d, k, epsilon):
    n = check_real(n, "n", low=1.0)
    d = check_int(d, "d", 1, _MAX_D)
    k = check_int(k, "k", 1, 10**6)
    eps = check_epsilon(epsilon)
    return n, d, k, eps


def _models(n, d, k, eps, r=1.0, theta=10.0, rho=RHO):
    """The modelled MSE of one centroid (scaled domain ``[-r, r]^d``) of every method, and the details."""
    t_impr = _n_rounds(eps, _epsilon_m(n, d, k, rho, r))
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
        return (f"<p><b>Recommended: {html.escape(self.method)}</b>{cls}. {html.escape(self.reason)}</p>"
                "<table style='border-collapse: collapse; margin: 0.4em 0 1em 0;'><thead><tr>"
                f"<th style='text-align:left; {cell}'>method</th><th style='text-align:right; {cell}'>"
                "modelled excess NICV (data scaled to [−1, 1]<sup>d</sup>)</th></tr></thead><tbody>"
                + rows + "</tbody></table>")


def recommend(n: float, d: int, k: int, epsilon: float) -> Recommendation:
    """The k-means method the thesis's error analysis favours for N, d, k and ε, and why.

    The rules, in order:

    1. ``d > HIGH_DIMENSION`` (10): :class:`~dpclust_core.kmeans.LSHCoresetKMeans`. The thesis's models and
       experiments stop at d = 10; above it a grid has too few cells per dimension to help, and the book's
       high-dimensional benchmark measures the LSH coreset ahead of DPLloyd, the hybrid and EUGkM. When
       ``N ε / k < LOW_SIGNAL`` (500) the reason adds a warning: there the benchmark found no method much
       better than a single centre at the mean of the data.
    2. EUGkM's grid has fewer than 2 cells per dimension (``M^(1/d) < 2``, Eq. 4.13): a grid carries no
       information, so :class:`~dpclust_core.kmeans.DPLloyd` (DPLloyd-Impr).
    3. Otherwise the hybrid's switch (Algorithm 16, Eq. 4.20): if one DPLloyd-Impr round after EUGkM is
       expected to help, :class:`~dpclust_core.kmeans.HybridKMeans`; if not, EUGkM alone
       (:class:`~dpclust_core.kmeans.EUGkM`, what the hybrid falls back to).

    Parameters
    ----------
    n : float
        N, >= 1: public or a released noisy count.
    d, k : int
        Dimension and number of clusters.
    epsilon : float
        The budget of the fit.

    Returns
    -------
    Recommendation
        ``method``, ``estimator`` (the class), ``reason``, ``expected`` (:func:`expected_nicv` in the scaled
        domain) and ``details``; it displays as an HTML table in a notebook.

    Examples
    --------
    >>> recommend(3376, 2, 5, 0.38).method
    'EUGkM'
    >>> recommend(100_000, 2, 5, 2.0).method
    'Hybrid'
    >>> recommend(20_000, 16, 16, 1.0).method
    'LSHCoresetKMeans'
    >>> "no method did much better" in recommend(1797, 64, 10, 1.0).reason   # N·ε/k = 180
    True
    >>> recommend(300, 8, 5, 0.1).method
    'DPLloyd-Impr'
    """
    from .kmeans import DPLloyd, EUGkM, HybridKMeans, LSHCoresetKMeans

    n, d, k, eps = _check_nd(n, d, k, epsilon)
    models, det = _models(n, d, k, eps)
    m_eug = eugkm_grid_size(n, eps, d) ** (1.0 / d)
    det["cells_per_dim_eugkm"] = m_eug
    impr = f"DPLloyd-Impr ({det['rounds_impr']} rounds) is modelled at {models['DPLloyd-Impr']:.2g}"
    if d > HIGH_DIMENSION:
        signal = n * eps / k
        det["n_eps_per_cluster"] = signal
        reason = (f"d = {d} is above the thesis's range (d <= {HIGH_DIMENSION}): its grids have few cells per "
                  f"dimension and grow slow, and on high-dimensional data the LSH coreset measures best. {impr}.")
        if signal < LOW_SIGNAL:
            reason += (f" But N·ε/k = {signal:.3g} is small: in the book's benchmark, below about {LOW_SIGNAL:,} "
                       "no method did much better than one centre at the mean of the data; raise ε, reduce d "
                       "with public knowledge, or collect more data.")
        return Recommendation("LSHCoresetKMeans", LSHCoresetKMeans, reason, models, det)
    if m_eug < 2.0:
        return Recommendation(
            "DPLloyd-Impr", DPLloyd,
            f"N·ε = {n * eps:.3g} is too small for a grid in d = {d}: EUGkM would have {m_eug:.2g} cells per "
            f"dimension (fewer than 2 carry no information). {impr}; it needs no grid.",
            models, det)
    dec = det["decision"]
    chosen = dec["mse_hybrid"] if dec["use_hybrid"] else dec["var_eugkm"]
    if models["DPLloyd-Impr"] < chosen:
        impr += (", lower, but that model leaves out that a few rounds from a data-independent start seldom "
                 "converge, and measured, the hybrid is ahead of it on the thesis's data")
    grid = f"EUGkM's grid has about {m_eug:.0f} cells per dimension; its variance is modelled at " \
           f"{dec['var_eugkm']:.2g}"
    if dec["use_hybrid"]:
        return Recommendation(
            "Hybrid", HybridKMeans,
            f"{grid}; one DPLloyd-Impr round from EUGkM's centres (with {1 - dec['f']:.0%} of the budget) brings "
            f"the model down to {dec['mse_hybrid']:.2g}, so the hybrid runs both steps. {impr}.",
            models, det)
    return Recommendation(
        "EUGkM", EUGkM,
        f"{grid}; a DPLloyd-Impr round after it would add more noise than it removes (the hybrid's switch: "
        f"{dec['mse_hybrid']:.2g} with the round, {dec['var_eugkm']:.2g} without), so EUGkM alone. {impr}.",
        models, det)


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
