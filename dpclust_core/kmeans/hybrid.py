"""The hybrid of EUGkM and DPLloyd-Impr (thesis §4.5, Algorithm 16; spec ``dp-basics-and-kmeans.md`` §3.15).

Idea: good initial centroids make a single DPLloyd round enough. Spend a fraction ``f`` of the budget on an
EUGkM synopsis, take its centroids, and run ONE DPLloyd-Impr round (Algorithm 13, the improved count/sum split)
with the remaining ``(1 - f) epsilon``. When epsilon is small that one noisy round can do more harm than good, so
the hybrid **falls back** to EUGkM with the whole budget. The decision uses only public quantities
(N, d, k, r, epsilon) and the error models, so it costs nothing.

Two switching rules (both appear in the thesis):

* ``policy="regression"`` — **R1, Algorithm 16 as printed**: ``f* = argmin_f MSE_Hybrid(epsilon, f)`` with Eq. (4.20)
  and the weights fitted by linear regression on Synthe-PT (``w1 = 0.14``, ``w2 = -0.0019`` — dropped by the
  thesis because it is tiny — ``w3 = 0.42``); use the hybrid iff ``MSE_Hybrid(epsilon, f*) < Var_EUGkM(epsilon)``
  (unweighted right-hand side).
* ``policy="half"`` — **R2, the rule the experiments of §4.6.3 describe** (the CODASPY rule): ``f = 1/2``, use the
  hybrid iff ``MSE_DPLloyd(epsilon/2, t=1) < Var_EUGkM(epsilon)``. This reproduces the fallbacks the text reports
  (Adult-num and Lifesci fall back only at epsilon = 0.05).

**N is public** here, as in the thesis (spec P10): the models use ``n_public`` or, if it is None, ``len(X)``.
"""
from __future__ import annotations

import numpy as np

from .._validation import (check_bounds, check_data, check_epsilon, check_n_clusters, check_positive_int,
                           check_rng)
from ..accounting import PrivacyLedger
from ._base import CentroidPredictorMixin
from .error_models import RHO, dplloyd_mse
from .grid import ROUNDINGS, EUGkM, _check_n, eugkm_bias, eugkm_variance

__all__ = ["HYBRID_WEIGHTS", "hybrid_mse", "hybrid_decision", "HybridKMeans"]

#: (w1, w2, w3) of Eq. (4.20), fitted by the thesis on Synthe-PT.
HYBRID_WEIGHTS = (0.14, -0.0019, 0.42)
POLICIES = ("regression", "half")


def hybrid_mse(epsilon, f, n, d, k, r=1.0, theta=10.0, weights=HYBRID_WEIGHTS, include_bias=False, rho=RHO):
    """Eq. (4.20): ``w1 Var_EUGkM(f eps) + w2 Bias_EUGkM(f eps) + w3 MSE_DPLloyd((1-f) eps, t=1)``.

    ``Var_EUGkM`` is Eq. (4.18), ``Bias_EUGkM`` the squared-bias bound Eq. (4.19) and ``MSE_DPLloyd`` Eq. (4.17)
    (the original ``(dr+1)`` split, as the thesis uses even though the hybrid's round has the improved split).
    The thesis drops the bias term (``w2 = -0.0019``): ``include_bias=False`` (default) does the same.
    ``f`` may be an array (vectorised over a grid of f).
    """
    eps = check_epsilon(epsilon)
    f = np.asarray(f, dtype=float)
    if np.any((f <= 0) | (f >= 1)):
        raise ValueError("f must lie in the open interval (0, 1)")
    w1, w2, w3 = weights
    var = eugkm_variance(n, 1.0, d, k, r=r, theta=theta) * f ** (-4.0 / (2.0 + d)) * eps ** (-4.0 / (2.0 + d))
    mse_dpl = dplloyd_mse(n, d, k, (1.0 - f) * eps, t=1, r=r, rho=rho, split="original")
    out = w1 * var + w3 * mse_dpl
    if include_bias:
        out = out + w2 * eugkm_bias(n, 1.0, d, r=r, theta=theta) * (f * eps) ** (-4.0 / (2.0 + d))
    return float(out) if np.ndim(out) == 0 else out


def hybrid_decision(n, d, k, epsilon, policy="regression", r=1.0, theta=10.0, weights=HYBRID_WEIGHTS,
                    include_bias=False, f_step=0.001, rho=RHO):
    """The hybrid's switch (Algorithm 16 lines 1–2), from public quantities only.

    Returns a dict with ``use_hybrid`` (bool), ``f`` (the EUGkM share), ``mse_hybrid`` (the model's value for
    the hybrid path), ``var_eugkm`` (``Var_EUGkM(epsilon)``, Eq. 4.18, the fallback's lower bound).

    * ``"regression"`` (R1): ``f*`` minimises :func:`hybrid_mse` over the grid ``f_step, 2 f_step, ..., 1 - f_step``.
    * ``"half"`` (R2): ``f = 1/2`` and ``mse_hybrid = MSE_DPLloyd(epsilon/2, t=1)`` (unweighted).

    Spec §8 (S1, N=5000, d=2, k=15, eps=0.05): R1 gives f* = 0.02, 0.0718 vs 0.000533 -> EUGkM.
    """
    eps = check_epsilon(epsilon)
    d = check_positive_int(d, "d")
    k = check_positive_int(k, "k")
    n = _check_n(n)
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {POLICIES}, got {policy!r}")
    var_full = eugkm_variance(n, eps, d, k, r=r, theta=theta)
    if policy == "regression":
        if not (0 < f_step < 0.5):
            raise ValueError(f"f_step must lie in (0, 0.5), got {f_step!r}")
        grid = np.arange(1, int(round(1.0 / f_step))) * f_step
        vals = hybrid_mse(eps, grid, n, d, k, r=r, theta=theta, weights=weights, include_bias=include_bias,
                          rho=rho)
        i = int(np.argmin(vals))
        f, mse_h = float(grid[i]), float(vals[i])
    else:
        f = 0.5
        mse_h = dplloyd_mse(n, d, k, eps / 2.0, t=1, r=r, rho=rho, split="original")
    return {"use_hybrid": bool(mse_h < var_full), "f": f, "mse_hybrid": mse_h, "var_eugkm": var_full}


class HybridKMeans(CentroidPredictorMixin):
    """Hybrid EUGkM + one DPLloyd-Impr round, Algorithm 16 (spec §3.15).

    Parameters
    ----------
    n_clusters, epsilon, bounds : as for :class:`~dpclust_core.kmeans.grid.EUGkM` (``bounds`` is the public
        domain; data is scaled into ``[-r, r]^d`` and clipped).
    policy : "regression" (R1, Algorithm 16 as printed, Eq. 4.20 with the fitted weights) or "half" (R2, the rule
        of the experiments: f = 1/2, compare ``MSE_DPLloyd(eps/2, 1)`` with ``Var_EUGkM(eps)``).
    init, n_init, theta, rounding, max_cells : passed to the EUGkM step (sphere-packing inits, 30 of them).
    weights, include_bias, f_step : the regression rule's weights (default the thesis's), whether to keep the
        (tiny, negative) bias term the thesis drops, and the grid step for f.
    n_public : N used by the error models and EUGkM's grid. None = ``len(X)``, treated as public (thesis, P10).
    r, rho : domain half-width and the rho of the DPLloyd model / split.
    random_state : None, int or Generator.

    Attributes
    ----------
    cluster_centers_ (original units), ``scaled_centers_`` (``[-r, r]^d``), ``ledger_`` (EUGkM's histogram at
    ``f eps`` then the DPLloyd round's counts and sums at ``(1 - f) eps``; or one histogram entry of ``eps``),
    ``used_hybrid_`` (bool), ``f_`` (share spent on EUGkM; 1.0 on fallback), ``decision_`` (dict of
    :func:`hybrid_decision`), ``synopsis_`` (the released EUGkM synopsis, built with ``f eps``: P17),
    ``eugkm_`` and ``dplloyd_`` (the fitted parts; ``dplloyd_`` is None on fallback), ``n_iter_`` (Lloyd
    iterations on the synopsis plus the DPLloyd round).
    """

    def __init__(self, n_clusters=8, epsilon=1.0, bounds=(-1.0, 1.0), *, policy="regression",
                 init="sphere_packing", n_init=30, theta=10.0, rounding="round", max_cells=1_000_000,
                 weights=HYBRID_WEIGHTS, include_bias=False, f_step=0.001, n_public=None, r=1.0, rho=RHO,
                 random_state=None):
        self.n_clusters = n_clusters
        self.epsilon = epsilon
        self.bounds = bounds
        self.policy = policy
        self.init = init
        self.n_init = n_init
        self.theta = theta
        self.rounding = rounding
        self.max_cells = max_cells
        self.weights = weights
        self.include_bias = include_bias
        self.f_step = f_step
        self.n_public = n_public
        self.r = r
        self.rho = rho
        self.random_state = random_state

    def fit(self, X, y=None):
        """Decide (public), then run EUGkM(f eps) + one DPLloyd-Impr round ((1-f) eps), or EUGkM(eps)."""
        eps = check_epsilon(self.epsilon)
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, got {self.policy!r}")
        if self.rounding not in ROUNDINGS:
            raise ValueError(f"rounding must be one of {ROUNDINGS}, got {self.rounding!r}")
        check_positive_int(self.n_init, "n_init")
        X = check_data(X)
        n, d = X.shape
        k = check_n_clusters(self.n_clusters, n)
        low, high = check_bounds(self.bounds, d)
        n_pub = n if self.n_public is None else _check_n(self.n_public, "n_public")
        rng = check_rng(self.random_state)
        eug_rng, dpl_rng = rng.spawn(2)
        dec = hybrid_decision(n_pub, d, k, eps, self.policy, r=self.r, theta=self.theta, weights=self.weights,
                              include_bias=self.include_bias, f_step=self.f_step, rho=self.rho)
        self.decision_ = dec
        self.used_hybrid_ = dec["use_hybrid"]
        self.f_ = dec["f"] if self.used_hybrid_ else 1.0
        eps_eug = self.f_ * eps
        eug = EUGkM(k, eps_eug, (low, high), theta=self.theta, init=self.init, n_init=self.n_init,
                    rounding=self.rounding, max_cells=self.max_cells, n_public=n_pub, r=self.r,
                    random_state=eug_rng).fit(X)
        ledger = PrivacyLedger(budget_epsilon=eps)
        ledger.extend(eug.ledger_, prefix="hybrid/EUGkM: ")
        self.eugkm_ = eug
        self.synopsis_ = eug.synopsis_
        self.dplloyd_ = None
        if self.used_hybrid_:
            from .lloyd import DPLloyd
            # the remaining budget, computed so that the two parts add up to eps exactly
            eps_dpl = eps - eps_eug
            dpl = DPLloyd(k, eps_dpl, (low, high), variant="improved", n_rounds=1, init=eug.cluster_centers_,
                          random_state=dpl_rng, r=self.r, n_public=int(round(n_pub)), rho=self.rho).fit(X)
            ledger.extend(dpl.ledger_, prefix="hybrid/DPLloyd-Impr round: ")
            self.dplloyd_ = dpl
            self.scaled_centers_ = dpl.scaled_centers_
            self.cluster_centers_ = dpl.cluster_centers_
            self.n_iter_ = eug.n_iter_ + 1
        else:
            self.scaled_centers_ = eug.scaled_centers_
            self.cluster_centers_ = eug.cluster_centers_
            self.n_iter_ = eug.n_iter_
        self.ledger_ = ledger
        self.bounds_ = (low, high)
        return self

    def __repr__(self):
        return (f"HybridKMeans(n_clusters={self.n_clusters!r}, epsilon={self.epsilon!r}, "
                f"policy={self.policy!r})")
