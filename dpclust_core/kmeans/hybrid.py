"""The hybrid of EUGkM and DPLloyd-Impr (thesis §4.5, Algorithm 16, Eqs. 4.17–4.20).

Idea: good initial centroids make a single DPLloyd round enough. Spend a fraction ``f`` of the budget on an
EUGkM synopsis, take its centroids, and run ONE DPLloyd-Impr round (Algorithm 13, the improved count/sum split)
with the rest. When epsilon is small that one noisy round can do more harm than good, so the hybrid **falls back**
to EUGkM with the whole budget. The decision uses N, d, k, r, epsilon and the error models.

Two switching rules (both appear in the thesis):

* ``policy="regression"`` — **R1, Algorithm 16 as printed**: ``f* = argmin_f MSE_Hybrid(epsilon, f)`` with Eq. (4.20)
  and the weights fitted by linear regression on Synthe-PT (``w1 = 0.14``, ``w2 = -0.0019`` — dropped by the
  thesis because it is tiny — ``w3 = 0.42``); use the hybrid iff ``MSE_Hybrid(epsilon, f*) < Var_EUGkM(epsilon)``.
* ``policy="half"`` — **R2, the rule the experiments of §4.6.3 describe** (the CODASPY rule): ``f = 1/2``, use the
  hybrid iff ``MSE_DPLloyd(epsilon/2, t=1) < Var_EUGkM(epsilon)``. This reproduces the fallbacks the text reports.

**N is private.** The thesis reads N in the switch and in EUGkM's grid. Here one noisy count (``n_share`` of
epsilon) serves both, unless ``n_public`` publishes N; the switch and the grid then read only released values.
The data are validated and scaled **once** per fit, and the two steps are the private entry points of EUGkM
(the synopsis engine of :mod:`dpclust_core.kmeans.synopsis`) and of one DPLloyd-Impr round on the scaled data.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from .. import _kernels
from .._validation import (ArrayLike, BadTypeError, Bool, Epsilon, HalfWidth, Int, Options, Real, RNGLike, Spec,
                           check_real, read_dask_rows, validate_params)
from ..accounting import PrivacyLedger
from ..base import N_PUBLIC_DOC, N_SHARE_DOC, DPEstimator, ScaledCentroidMixin
from .error_models import RHO, dplloyd_mse
from . import synopsis as syn
from .grid import eugkm_bias, eugkm_variance
from .synopsis import DEFAULT_MAX_CELLS, DEFAULT_SEEDINGS

__all__ = ["HYBRID_WEIGHTS", "hybrid_mse", "hybrid_decision", "HybridKMeans"]

#: (w1, w2, w3) of Eq. (4.20), fitted by the thesis on Synthe-PT.
HYBRID_WEIGHTS = (0.14, -0.0019, 0.42)
POLICIES = ("regression", "half")


def _check_weights(weights, name="weights"):
    if isinstance(weights, (str, bytes)):
        raise BadTypeError(f"{name} must be three real numbers (w1, w2, w3), got a string")
    try:
        vals = tuple(weights)
    except TypeError:
        raise BadTypeError(f"{name} must be three real numbers (w1, w2, w3), got {weights!r}") from None
    if len(vals) != 3:
        raise ValueError(f"{name} must be three real numbers (w1, w2, w3), got {len(vals)}")
    return tuple(check_real(v, name) for v in vals)


class _WeightsSpec(Spec):
    def __call__(self, value, name):
        return _check_weights(value, name)


def _hybrid_mse(eps, f, n, d, k, r, theta, weights, include_bias, rho):
    w1, w2, w3 = weights
    var = eugkm_variance(n, 1.0, d, k, r=r, theta=theta) * f ** (-4.0 / (2.0 + d)) * eps ** (-4.0 / (2.0 + d))
    mse_dpl = dplloyd_mse(n, d, k, (1.0 - f) * eps, t=1, r=r, rho=rho, split="original")
    out = w1 * var + w3 * mse_dpl
    if include_bias:
        out = out + w2 * eugkm_bias(n, 1.0, d, r=r, theta=theta) * (f * eps) ** (-4.0 / (2.0 + d))
    return out


#: The checks of the error model's arguments, shared by :func:`hybrid_mse` and :func:`hybrid_decision`.
_MODEL_SPECS = dict(epsilon=Epsilon(), n=syn.check_n, d=syn.check_d, k=Int(1, None), r=HalfWidth(),
                    theta=Real(0.0, low_open=True), rho=Real(0.0, 0.5), weights=_check_weights)


@validate_params(**_MODEL_SPECS)
def hybrid_mse(epsilon: float, f: float | ArrayLike, n: float, d: int, k: int, r: float = 1.0, theta: float = 10.0,
               weights: Sequence[float] = HYBRID_WEIGHTS, include_bias: bool = False,
               rho: float = RHO) -> float | np.ndarray:
    """Eq. (4.20): ``w1 Var_EUGkM(f eps) + w2 Bias_EUGkM(f eps) + w3 MSE_DPLloyd((1-f) eps, t=1)``.

    ``Var_EUGkM`` is Eq. (4.18), ``Bias_EUGkM`` the squared-bias bound Eq. (4.19) and ``MSE_DPLloyd`` Eq. (4.17)
    (the original ``(dr+1)`` split, as the thesis uses even though the hybrid's round has the improved split).

    Parameters
    ----------
    epsilon : float
        The hybrid's budget.
    f : float or array
        The share of epsilon spent on EUGkM, in (0, 1) (vectorised over an array of f).
    n, d, k : float, int, int
        N, the dimension, the number of clusters.
    r, theta, rho : float
        Domain half-width, EUGkM's theta, DPLloyd's rho.
    weights : (w1, w2, w3)
        Default the thesis's fitted weights.
    include_bias : bool, default False
        Keep the (tiny, negative) bias term the thesis drops.

    Returns
    -------
    float or ndarray

    Examples
    --------
    >>> f"{hybrid_mse(0.05, 0.02, 5000, 2, 15):.2g}"
    '0.072'
    """
    if not isinstance(include_bias, (bool, np.bool_)):
        raise BadTypeError(f"include_bias must be True or False, got {include_bias!r}")
    if isinstance(f, (str, bytes)) or np.asarray(f).dtype.kind not in "iuf":
        raise BadTypeError(f"f must be a real number or an array of real numbers, got {f!r}")
    fa = np.asarray(f, dtype=float)
    if not np.all((fa > 0) & (fa < 1)):
        raise ValueError("f must lie in the open interval (0, 1)")
    out = _hybrid_mse(epsilon, fa, n, d, k, r, theta, weights, bool(include_bias), rho)
    return float(out) if np.ndim(out) == 0 else out


def _decision(n, d, k, eps, policy, r, theta, weights, include_bias, f_step, rho):
    var_full = eugkm_variance(n, eps, d, k, r=r, theta=theta)
    if policy == "regression":
        grid = np.arange(1, int(round(1.0 / f_step))) * f_step
        vals = _hybrid_mse(eps, grid, n, d, k, r, theta, weights, include_bias, rho)
        i = int(np.argmin(vals))
        f, mse_h = float(grid[i]), float(vals[i])
    else:
        f = 0.5
        mse_h = float(dplloyd_mse(n, d, k, eps / 2.0, t=1, r=r, rho=rho, split="original"))
    return {"use_hybrid": bool(mse_h < var_full), "f": f, "mse_hybrid": mse_h, "var_eugkm": var_full}


@validate_params(**_MODEL_SPECS, policy=Options(*POLICIES), f_step=Real(1e-6, 0.5, high_open=True))
def hybrid_decision(n: float, d: int, k: int, epsilon: float, policy: Literal["regression", "half"] = "regression",
                    r: float = 1.0, theta: float = 10.0, weights: Sequence[float] = HYBRID_WEIGHTS,
                    include_bias: bool = False, f_step: float = 0.001, rho: float = RHO) -> dict:
    """The hybrid's switch (Algorithm 16 lines 1–2) from N, d, k, epsilon and the error models.

    * ``"regression"`` (R1): ``f*`` minimises :func:`hybrid_mse` over ``f_step, 2 f_step, ..., 1 - f_step``;
    * ``"half"`` (R2): ``f = 1/2`` and ``mse_hybrid = MSE_DPLloyd(epsilon/2, t=1)`` (unweighted).

    ``n`` must be public or already released (the estimator passes its noisy N).

    Parameters
    ----------
    n, d, k : float, int, int
        N, the dimension, the number of clusters.
    epsilon : float
        The budget the hybrid has for its two steps.
    policy : {"regression", "half"}
    r, theta, weights, include_bias, rho
        As in :func:`hybrid_mse`.
    f_step : float, default 0.001
        The grid step for f, in (0, 0.5).

    Returns
    -------
    dict
        ``use_hybrid`` (bool), ``f`` (the EUGkM share), ``mse_hybrid`` (the model for the hybrid path) and
        ``var_eugkm`` (``Var_EUGkM(epsilon)``, Eq. 4.18).

    Examples
    --------
    >>> dec = hybrid_decision(5000, 2, 15, 0.05)
    >>> dec["use_hybrid"], round(dec["f"], 2)
    (False, 0.02)
    """
    if not isinstance(include_bias, (bool, np.bool_)):
        raise BadTypeError(f"include_bias must be True or False, got {include_bias!r}")
    return _decision(n, d, k, epsilon, policy, r, theta, weights, bool(include_bias), f_step, rho)


def _dplloyd_round(Z, C, epsilon, low, high, rho, r, rng, ledger):
    """ONE DPLloyd-Impr round (Algorithm 13/14, the improved split of Eq. 4.7) from the public centroids ``C`` on
    data already scaled into ``[-r, r]^d``, through DPLloyd's private entry point (no validation, no scaling, no
    noisy N: with one fixed round DPLloyd-Impr needs none). Returns the DPLloyd instance that ran it."""
    from .lloyd import DPLloyd

    dpl = DPLloyd(C.shape[0], epsilon, bounds=(low, high), variant="improved", n_rounds=1, r=r, rho=rho)
    q = dpl._validate_params()  # its parameters only (public values); X is not looked at again
    q.bounds = (low, high)
    with ledger.group("DPLloyd-Impr round"):
        dpl._fit_scaled(Z, q, ledger, rng, init_scaled=C)
    return dpl


class HybridKMeans(ScaledCentroidMixin, DPEstimator):
    __doc__ = """Hybrid EUGkM + one DPLloyd-Impr round, Algorithm 16 (Eqs. 4.17–4.20).

    With ``eps' = epsilon - n_share * epsilon`` left after the noisy N (``eps' = epsilon`` with ``n_public``): if
    the switch says so, EUGkM with ``f eps'`` then one DPLloyd-Impr round from its centroids with
    ``(1 - f) eps'``; otherwise EUGkM with the whole ``eps'``. epsilon-DP under add/remove one record (sequential
    composition), ``bounds`` public (and N, if ``n_public`` is given).

    Parameters
    ----------
    n_clusters : int
        k >= 1.
    epsilon : float
        Total budget.
    bounds : pair or per-dimension bounds
        The **public** domain (required); data are mapped into ``[-r, r]^d`` and clipped.
    policy : {"regression", "half"}, default "regression"
        R1 (Algorithm 16 as printed, Eq. 4.20 with the fitted weights) or R2 (the rule of the experiments: f = 1/2,
        compare ``MSE_DPLloyd(eps'/2, 1)`` with ``Var_EUGkM(eps')``).
    init : "sphere_packing", "random" or array
        EUGkM's initial centroids (in original units if an array; public).
    n_init : int, default 30
        EUGkM's number of initialisations.
    theta : float, default 10
        EUGkM's constant, Eq. (4.13).
    rounding : {"round", "floor", "ceil"}
        EUGkM's rounding of m.
    max_cells : int
        Public cap on EUGkM's number of cells.
    max_iter, tol : int, float
        Lloyd on the synopsis.
    n_seedings : int, default 0
        Weighted k-means++ seedings drawn from the released synopsis beside EUGkM's ``n_init`` runs (as in
        :class:`~dpclust_core.kmeans.EUGkM`; post-processing, 0 for the thesis's protocol).
    weights : (w1, w2, w3)
        The regression rule's weights (default the thesis's).
    include_bias : bool, default False
        Keep the (tiny, negative) bias term of Eq. (4.20) that the thesis drops.
    f_step : float, default 0.001
        Grid step for f (rule R1).
    r : float, default 1
        Half-width of the scaled domain (at most 10^6).
    rho : float, default 0.225
        rho of the DPLloyd model and of the improved split.
    """ + N_PUBLIC_DOC + """
    """ + N_SHARE_DOC + """
    random_state : None, int or numpy.random.Generator
    ledger : PrivacyLedger, optional
        A shared ledger asked for ``epsilon`` before the data are read.

    Attributes
    ----------
    cluster_centers_ : ndarray (k, d)
        Original units; ``scaled_centers_`` in ``[-r, r]^d``.
    ledger_ : PrivacyLedger
        The noisy N, EUGkM's histogram (``f eps'``), then the round's counts and sums (``(1 - f) eps'``); or the
        noisy N and one histogram of ``eps'``.
    used_hybrid_ : bool
        Whether the DPLloyd round ran.
    f_ : float
        The share of ``eps'`` spent on EUGkM (1.0 on fallback).
    decision_ : dict
        :func:`hybrid_decision` at ``n_estimate_`` and ``eps'``.
    n_estimate_ : float
        The noisy N (a DP release) or ``n_public``.
    synopsis_ : GridSynopsis
        The released EUGkM synopsis (built with ``f eps'``).
    eugkm_centers_ : ndarray (k, d)
        EUGkM's centroids (original units), the start of the round; ``eugkm_scaled_centers_`` the same scaled.
    round_ : dict or None
        The DPLloyd round: ``centroids``, ``noisy_counts``, ``noisy_sums``, ``count_scale``, ``sum_scale``,
        ``new_centroids`` (scaled domain); None on fallback.
    dplloyd_ : DPLloyd or None
        The DPLloyd-Impr instance that ran the round (``history_``, ``epsilon_count_``, ...); its releases are
        in this estimator's ``ledger_``. None on fallback.
    cells_per_dim_, n_cells_ : int
        EUGkM's grid.
    n_iter_ : int
        Lloyd iterations on the synopsis plus the DPLloyd round.

    Notes
    -----
    ``X`` may be a dask array: the histogram and the round's counts and sums are reductions computed on the
    workers, the noise is added once, on the driver, and the release equals the in-memory fit's for the same
    ``random_state`` (see :class:`~dpclust_core.kmeans.DPLloyd`). A NaN is found by the workers during the
    first pass (the histogram), after the noisy N was drawn from the array's shape; the fit then raises.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core.datasets import make_blobs_ratio
    >>> X, _ = make_blobs_ratio(20000, 3, 2, n_outliers=0, random_state=0)
    >>> h = HybridKMeans(3, 1.0, bounds=(-1, 1), policy="half", n_init=3, random_state=0).fit(X)
    >>> h.used_hybrid_, round(h.ledger_.epsilon, 12), len(h.ledger_.entries)
    (True, 1.0, 4)
    """

    _accepts_dask = True  # the histogram and the round are reductions over the rows: computed on the workers
    _budget_params = ("epsilon", "n_share", "rho")
    #: Post-processed releases and the public scale of their grids (see DPEstimator); the DPLloyd round rounds
    #: its own.
    _release_grids = {**DPEstimator._release_grids, "decision_": "domain2", "f_": 1.0,
                      "eugkm_scaled_centers_": "domain", "eugkm_centers_": "box", "round_": "domain",
                      "dplloyd_": None}
    _parameters = dict(syn.COMMON_PARAMS, policy=Options(*POLICIES), theta=Real(0.0, low_open=True),
                       weights=_WeightsSpec(), include_bias=Bool(), f_step=Real(1e-6, 0.5, high_open=True),
                       rho=Real(0.0, 0.5), n_seedings=Int(0, 10_000))

    def __init__(self, n_clusters: int, epsilon: float, *, bounds: ArrayLike,
                 policy: Literal["regression", "half"] = "regression",
                 init: Literal["sphere_packing", "random"] | ArrayLike = "sphere_packing", n_init: int = 30,
                 theta: float = 10.0, rounding: Literal["round", "floor", "ceil"] = "round",
                 max_cells: int = DEFAULT_MAX_CELLS, max_iter: int = 30, tol: float = 1e-4,
                 n_seedings: int = DEFAULT_SEEDINGS, weights: Sequence[float] = HYBRID_WEIGHTS,
                 include_bias: bool = False, f_step: float = 0.001,
                 r: float = 1.0, rho: float = RHO, n_public: float | None = None, n_share: float = 0.05,
                 random_state: RNGLike = None, ledger: PrivacyLedger | None = None) -> None:
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.policy = policy
        self.init = init
        self.n_init = n_init
        self.theta = theta
        self.rounding = rounding
        self.max_cells = max_cells
        self.max_iter = max_iter
        self.tol = tol
        self.n_seedings = n_seedings
        self.weights = weights
        self.include_bias = include_bias
        self.f_step = f_step
        self.r = r
        self.rho = rho
        self.n_public = n_public
        self.n_share = n_share
        self.random_state = random_state
        self.ledger = ledger

    def _fit(self, X, p, ledger, rng):
        low, high = p.bounds
        k, d = p.n_clusters, X.shape[1]
        syn.check_k_size(k, d)
        inits = syn.initial_centroids(p.init, p.n_init, k, d, p.r, low, high, rng)
        X = read_dask_rows(X)  # dask: NaN/inf found, and the number of rows known, before any release
        Z = _kernels.scale_into(X, low, high, p.r)  # the one scaling of this fit
        n_est, eps_n = self._estimate_n(X, p, p.n_share * p.epsilon, rng, ledger)  # the one noisy N
        eps = p.epsilon - eps_n
        dec = _decision(n_est, d, k, eps, p.policy, p.r, p.theta, p.weights, p.include_bias, p.f_step, p.rho)
        use = dec["use_hybrid"]
        eps_eug = dec["f"] * eps if use else eps
        res = syn.fit(Z, inits, eps_eug, n_est, method="EUGkM", theta=p.theta, rounding=p.rounding,
                            max_cells=p.max_cells, r=p.r, max_iter=p.max_iter, tol=p.tol, rng=rng, ledger=ledger,
                            name="hybrid/EUGkM", n_seedings=p.n_seedings)
        C = res.centers[res.best]
        self.r_ = p.r
        self.n_estimate_ = float(n_est)
        self.decision_ = dec
        self.used_hybrid_ = use
        self.f_ = dec["f"] if use else 1.0
        self.synopsis_ = res.synopsis
        self.cells_per_dim_ = res.m
        self.n_cells_ = res.n_cells
        self.eugkm_scaled_centers_ = C
        self.eugkm_centers_ = _kernels.unscale_from(C, low, high, p.r)
        self.round_ = None
        self.dplloyd_ = None
        self.n_iter_ = int(res.iters[res.best])
        if use:
            # the remaining budget, computed so that the two parts add up to eps exactly
            self.dplloyd_ = _dplloyd_round(Z, C, eps - eps_eug, low, high, p.rho, p.r, rng, ledger)
            self.round_ = self.dplloyd_.history_[0]
            C = self.dplloyd_.scaled_centers_
            self.n_iter_ += 1
        self.scaled_centers_ = C
        self.cluster_centers_ = _kernels.unscale_from(C, low, high, p.r)
