"""Prototype improvements, measured in the same harness as the published methods (``bench_sota.py``).

* ``LSH-zCDP``: :class:`~benchmarks.sota.zcdp_accounting.ZCDPLSHCoreset` — the package's LSHCoresetKMeans
  unchanged, its releases composed in zCDP instead of summed (epsilon, delta): about 1.4x the internal epsilon at
  the same guarantee.
* ``LSH-zCDP 2 final``: the same with two final Lloyd steps instead of one.
* ``LSH-zCDP+FL``: 70 % of the zCDP budget to LSH-zCDP, 30 % to two FastLloyd-style rounds (points within r of
  their centre, relative sums, moves clipped to r) with r = 1.5 x the private final clipping radius the LSH fit
  released (post-processing of a release, so public).

Privacy: the noisy N is eps_N^2/2-zCDP, the LSH fit at most its share of rho (checked on its ledger), the
FastLloyd rounds exactly their share (:class:`~benchmarks.sota._common.ZCDPGaussian`); the total rho is at most
``rho_target(epsilon, delta)`` and so the fit is (epsilon, delta)-DP. Each ledger totals (epsilon, delta).
"""
from __future__ import annotations

import numpy as np

from dpclust_core import PrivacyLedger

from ._common import ZCDPGaussian
from .fastlloyd import dp_constrained_lloyd
from .zcdp_accounting import ZCDPLSHCoreset, rho_target

DELTA = 1e-6


class LSHThenFastLloyd:
    """LSH-zCDP seeds (``1 - f`` of rho) then ``rounds`` FastLloyd-style constrained rounds (``f`` of rho)."""

    def __init__(self, n_clusters, epsilon, delta=DELTA, *, f=0.3, rounds=2, r_factor=1.5, random_state=None):
        self.n_clusters, self.epsilon, self.delta, self.f = n_clusters, epsilon, delta, f
        self.rounds, self.r_factor, self.random_state = rounds, r_factor, random_state

    def fit(self, X):
        X = np.clip(np.asarray(X, float), -1, 1)
        rng = np.random.default_rng(self.random_state)
        lsh = ZCDPLSHCoreset(self.n_clusters, self.epsilon, self.delta, rho_fraction=1 - self.f,
                             random_state=rng).fit(X)
        total = rho_target(self.epsilon, self.delta)
        rho_left = total - lsh.rho_
        led = PrivacyLedger()
        g = ZCDPGaussian(self.epsilon, self.delta, led, "LSH-zCDP seeds + constrained rounds")
        g.rho_total = rho_left  # this run gets what the seeding left of the one (epsilon, delta) budget
        r = self.r_factor * float(lsh.inner_.clip_radii_[-1])
        c = dp_constrained_lloyd(X, np.asarray(lsh.cluster_centers_, float), self.rounds, [r] * self.rounds, g,
                                 rng)
        g.rho_total = total  # the record states the whole fit: seeds (lsh.rho_) + rounds (rho_left) = total
        g.close()
        self.seeds_, self.cluster_centers_, self.ledger_, self.radius_ = lsh.cluster_centers_, c, led, r
        return self


METHODS = {
    "LSH-zCDP": lambda k, e, s, d: ZCDPLSHCoreset(k, e, DELTA, random_state=s),
    "LSH-zCDP 2 final": lambda k, e, s, d: ZCDPLSHCoreset(k, e, DELTA, n_final_rounds=2, random_state=s),
    "LSH-zCDP+FL": lambda k, e, s, d: LSHThenFastLloyd(k, e, DELTA, random_state=s),
}
