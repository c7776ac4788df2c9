"""(Superseded: written for the former LSHCoresetKMeans, which summed (epsilon, delta); the library estimator
now composes in zCDP natively and these wrappers no longer match its ledger. Kept for the recorded results.)

Prototype: account an estimator's releases in zero-concentrated DP instead of summing their (epsilon, delta).

``dpclust_core`` composes the releases of one fit sequentially: epsilons add and deltas add, and each Gaussian
release gets its own share (epsilon_i, delta_i). Every release the package makes is in fact rho_i-zCDP:

* a Gaussian release calibrated by ``discrete_gaussian_sigma`` at (epsilon_i, delta_i) adds noise
  ``(Delta + slack) / sqrt(2 rho*)`` with ``rho* = 1 / (2 discrete_gaussian_sigma(1, epsilon_i, delta_i)^2)``,
  so it is rho*-zCDP (Canonne, Kamath & Steinke 2020, Thm. 14);
* an epsilon_i-DP release (Laplace, exponential mechanism) is epsilon_i^2/2-zCDP (Bun & Steinke 2016, Prop. 1.4);
* zCDP composes additively (adaptively), and parallel composition over disjoint parts takes the maximum.

So a fit whose ledger reads rho = sum rho_i is (epsilon, zcdp_delta(rho, epsilon))-DP for every epsilon.
:class:`ZCDPLSHCoreset` uses this to run the package's LSHCoresetKMeans, unchanged, at a larger *internal*
epsilon' with the same (epsilon, delta) guarantee; epsilon' is chosen from public values only (see the class).
"""
from __future__ import annotations

import math

from dpclust_core import PrivacyLedger
from dpclust_core.mechanisms import discrete_gaussian_sigma


def rho_target(epsilon, delta):
    return 1.0 / (2.0 * discrete_gaussian_sigma(1.0, epsilon, delta) ** 2)


def _entry_rho(e):
    if e.epsilon == 0:
        return 0.0
    if e.delta > 0:
        return rho_target(e.epsilon, e.delta)
    return 0.5 * e.epsilon**2


def _group_rho(grp):
    if grp.rule is not None:
        raise ValueError(f"no zCDP rule for the ledger group {grp.name!r} ({grp.rule[0]})")
    items = [(p, _entry_rho(it) if not hasattr(it, "items") else _group_rho(it)) for p, it in grp.items]
    if not grp.parallel:
        return math.fsum(r for _, r in items)
    parts, outside = {}, 0.0
    for p, r in items:
        if p is None:
            outside += r
        else:
            parts[p] = parts.get(p, 0.0) + r
    return max(parts.values(), default=0.0) + outside


def ledger_rho(ledger: PrivacyLedger) -> float:
    """The zCDP rho of every release in ``ledger`` (sequential sums, parallel maxima)."""
    return _group_rho(ledger._root)


# ================================================================ a rigorous zCDP version of LSHCoresetKMeans
def _lsh_rho_bound(ledger, depth, n_final_rounds, eps_internal, round_count_fraction=0.2):
    """The largest zCDP rho an LSHCoresetKMeans fit with this plan can spend, over every number of tree levels.

    The plan's epsilons are public given (N~, epsilon', d, k); the only data-dependent part is how many of the
    ``depth`` tree levels are released: the share of the levels not released moves to the final Lloyd steps
    (20 % counts, 80 % residual sums). The bound is the maximum over 0 ... depth released levels.
    """
    entries = ledger.entries
    if any(e.group is not None for e in entries):
        raise ValueError("unexpected grouped entries in the LSHCoresetKMeans ledger")
    lvl = [e for e in entries if e.name.startswith("tree level")]
    fc = [e for e in entries if e.name.startswith("final step") and e.name.endswith(" counts")]
    fs = [e for e in entries if e.name.startswith("final step") and e.name.endswith("residual sums")]
    if len(fc) != n_final_rounds or len(fs) != n_final_rounds or any(e.name.startswith("N ") for e in entries):
        raise ValueError("unexpected LSHCoresetKMeans ledger layout")
    # the plan's epsilon of one level (n_public: nothing on N; 3 % to the private radius; 12 % of the rest to the
    # tree over its depth), checked against the levels released
    e_plan = 0.12 * 0.97 * eps_internal / depth
    if lvl and abs(lvl[0].epsilon - e_plan) > 1e-9 * e_plan:
        raise ValueError("unexpected LSHCoresetKMeans budget plan")
    fixed = [e for e in entries if e not in lvl and e not in fc and e not in fs]
    rho_fixed = math.fsum(_entry_rho(e) for e in fixed)
    u, e_lvl = len(lvl), e_plan
    worst = 0.0
    for u2 in range(0, depth + 1):
        x = (u - u2) * e_lvl / n_final_rounds
        ecs = [c.epsilon + round_count_fraction * x for c in fc]
        ess = [s.epsilon + (1 - round_count_fraction) * x for s in fs]
        if min(ecs + ess) <= 0:
            continue  # not a reachable plan
        r = u2 * e_lvl**2 / 2 + sum(e * e / 2 for e in ecs) + sum(rho_target(e, s.delta) for e, s in zip(ess, fs))
        worst = max(worst, r)
    return rho_fixed + worst


_EPS_CACHE: dict = {}


class ZCDPLSHCoreset:
    """LSHCoresetKMeans with its releases composed in zCDP: (epsilon, delta)-DP, N private.

    1. ``N~ = N + Lap(1/eps_N)``, eps_N = ``n_share`` epsilon: eps_N^2/2-zCDP.
    2. The internal budget epsilon' is the largest (bisection) for which the plan's worst-case rho
       (:func:`_lsh_rho_bound`) is at most ``rho_target(epsilon, delta) - eps_N^2/2``. The plan is read off fits on
       public dummy data with ``n_public`` (its structure depends on (N~, epsilon', d, k) only): first at N~
       rounded to a power of two (a cached, deterministic function of public values), then checked at N~.
    3. One fit of ``LSHCoresetKMeans(k, epsilon', delta, n_public=N~)`` on the data; its own ledger is checked
       against the bound. Total: rho <= rho_target(epsilon, delta), i.e. (epsilon, delta)-DP.
    """

    def __init__(self, n_clusters, epsilon, delta=1e-6, *, n_share=0.05, n_final_rounds=1, rho_fraction=1.0,
                 random_state=None, **lsh_kwargs):
        self.n_clusters, self.epsilon, self.delta, self.n_share = n_clusters, epsilon, delta, n_share
        self.rho_fraction = rho_fraction
        self.n_final_rounds, self.random_state, self.lsh_kwargs = n_final_rounds, random_state, lsh_kwargs

    def _make(self, eps_in, n_pub, seed):
        from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans
        return LSHCoresetKMeans(self.n_clusters, eps_in, self.delta, bounds=(-1, 1), n_public=n_pub,
                                n_final_rounds=self.n_final_rounds, random_state=seed, **self.lsh_kwargs)

    def _bound(self, est):
        return _lsh_rho_bound(est.ledger_, est.tree_depth_, self.n_final_rounds, est.epsilon)

    def internal_epsilon(self, n_pub, d):
        import numpy as np
        dummy = np.random.default_rng(12345).uniform(-0.5, 0.5, size=(max(4 * self.n_clusters, 400), d))
        budget = self.rho_budget_

        def ok(e):
            return self._bound(self._make(e, n_pub, 0).fit(dummy)) <= budget

        lo, hi = self.epsilon * 0.5, self.epsilon
        while ok(hi):
            lo, hi = hi, hi * 1.5
        for _ in range(12):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
        return lo

    def fit(self, X):
        import numpy as np
        from dpclust_core.mechanisms import laplace_mechanism
        rng = np.random.default_rng(self.random_state)
        eps_n = self.n_share * self.epsilon
        n_pub = max(float(laplace_mechanism(float(len(X)), 1.0, eps_n, rng)), 1.0)
        self.rho_budget_ = self.rho_fraction * (rho_target(self.epsilon, self.delta) - eps_n**2 / 2)
        d = X.shape[1]
        # epsilon' is a deterministic function of public values: the bisection runs at N~ rounded to a power of
        # two (cached per bucket, so equal inputs give equal epsilon' and no fit depends on another fit's N~) and
        # is then checked at this N~ itself; if the check fails, the bisection is redone at this N~
        bucket = 2.0 ** round(math.log2(n_pub))
        key = (self.n_clusters, self.epsilon, self.rho_fraction, self.delta, d, self.n_final_rounds, bucket,
               tuple(sorted(self.lsh_kwargs.items())))
        if key not in _EPS_CACHE:
            _EPS_CACHE[key] = self.internal_epsilon(bucket, d)
        eps_in = _EPS_CACHE[key]
        dummy = np.random.default_rng(12345).uniform(-0.5, 0.5, size=(max(4 * self.n_clusters, 400), d))
        if self._bound(self._make(eps_in, n_pub, 0).fit(dummy)) > self.rho_budget_:
            eps_in = self.internal_epsilon(n_pub, d)
        est = self._make(eps_in, n_pub, rng).fit(X)
        rho = self._bound(est)
        assert rho <= self.rho_budget_ * (1 + 1e-12), (rho, self.rho_budget_)
        self.inner_, self.internal_epsilon_, self.rho_ = est, eps_in, rho + eps_n**2 / 2
        self.cluster_centers_ = est.cluster_centers_
        self.ledger_ = PrivacyLedger()
        self.ledger_.record(f"noisy N + LSHCoresetKMeans(eps'={eps_in:.4g}) composed in zCDP "
                            f"(rho = {self.rho_:.4g} <= {rho_target(self.epsilon, self.delta):.4g})",
                            self.epsilon, self.delta)
        return self
