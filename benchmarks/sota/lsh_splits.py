"""Google-style LSH-splits: the private LSH-tree coreset of Chang, Ghazi, Kumar & Manurangsi (ICML 2021) as Google's
``learning/clustering`` library runs it in the central model (Chang & Kamath's "practical" DP clustering, the
comparator of the DPM paper). A plain re-implementation for the benchmark, without the four devices
``dpclust_core.kmeans.LSHCoresetKMeans`` adds (projection, over-seeding, clipped Lloyd steps, private radius):

1. Points are clipped onto the public ball of radius R around the box centre (R = half-diagonal of the box: only
   the box is public in the harness).
2. A SimHash prefix tree (random public Gaussian directions, one per level, depth <= 20): at every level the
   children of the branching nodes release Laplace counts (sensitivity 1: one record lies in one node of a
   level; eps_count / 20 per level). A node is kept when its noisy count is >= t and branched when >= 3 t,
   ``t = min(10 sqrt(d) sigma / R, N~ / (2k))`` with sigma the noise of the leaf sums (Google's defaults).
3. Each leaf releases its coordinate sum with the Gaussian mechanism (the leaves are disjoint: the whole matrix
   has L2 sensitivity R); the leaf average is the noisy sum over the leaf's noisy count.
4. Non-private k-means++ (10 starts) on the leaf averages weighted by their noisy counts gives the centres.

Privacy: eps = 20 % counts (the root count is N~) + 80 % sums (Gaussian, delta); sequential over levels; the
levels the tree never reaches are recorded as spent, so the ledger shows the whole plan: total (epsilon, delta).
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.cluster import KMeans

from dpclust_core import PrivacyLedger
from dpclust_core.mechanisms import gaussian_mechanism, gaussian_mechanism_sigma, laplace_mechanism


class LSHSplits:
    def __init__(self, n_clusters, epsilon, delta=1e-6, *, max_depth=20, count_share=0.2, random_state=None):
        self.n_clusters, self.epsilon, self.delta = n_clusters, epsilon, delta
        self.max_depth, self.count_share, self.random_state = max_depth, count_share, random_state

    def fit(self, X):
        X = np.clip(np.asarray(X, float), -1, 1)
        rng = np.random.default_rng(self.random_state)
        n, d = X.shape
        k, L = self.n_clusters, self.max_depth
        R = math.sqrt(d)
        self.ledger_ = led = PrivacyLedger(budget_epsilon=self.epsilon, budget_delta=self.delta)
        e_lvl = self.count_share * self.epsilon / (L + 1)  # level 0 = the root count (N~)
        e_sum = (1 - self.count_share) * self.epsilon
        sigma = gaussian_mechanism_sigma(R, e_sum, self.delta, d)
        n_root = float(laplace_mechanism(float(n), 1.0, e_lvl, rng, ledger=led, name="root count (N~)"))
        t = max(min(10 * math.sqrt(d) * sigma / R, n_root / (2 * k)), 1.0)
        dirs = rng.normal(size=(L, d))  # public random hyperplanes (not privacy noise)
        code = np.zeros(n, np.int64)
        active = {0: n_root}  # branching nodes of the current level: code -> noisy count
        leaves = {}  # (level, code) -> noisy count
        leaf_of = np.full(n, -1, np.int64)
        levels = 0
        for lvl in range(1, L + 1):
            if not active:
                break
            bit = (X @ dirs[lvl - 1] > 0).astype(np.int64)
            alive = np.isin(code, np.fromiter(active, np.int64))
            child = 2 * code + bit
            keys = np.array(sorted({2 * c + b for c in active for b in (0, 1)}), np.int64)
            cnt = np.array([np.count_nonzero(alive & (child == c)) for c in keys], float)
            noisy = np.atleast_1d(laplace_mechanism(cnt, 1.0, e_lvl, rng, l0_sensitivity=1, ledger=led,
                                                    name=f"level {lvl} counts"))
            levels += 1
            code = np.where(alive, child, -1)
            nxt = {}
            for c, nc in zip(keys, noisy):
                if nc >= 3 * t and lvl < L:
                    nxt[int(c)] = float(nc)
                elif nc >= t:
                    leaves[(lvl, int(c))] = float(nc)
            for (lv, c), _ in leaves.items():
                if lv == lvl:
                    leaf_of[alive & (child == c)] = len([1 for (l2, _c) in leaves if l2 < lvl]) + \
                        sorted(c2 for (l2, c2) in leaves if l2 == lvl).index(c)
            active = nxt
        for lvl in range(levels + 1, L + 1):
            led.record(f"level {lvl} counts (not reached)", e_lvl)
        m = len(leaves)
        if m == 0:
            self.cluster_centers_ = np.zeros((1, d))
            led.record("leaf sums (no leaf)", e_sum, self.delta)
            return self
        sums = np.zeros((m, d))
        np.add.at(sums, leaf_of[leaf_of >= 0], X[leaf_of >= 0])
        noisy_sums = gaussian_mechanism(sums, R, e_sum, self.delta, rng, l0_sensitivity=d, ledger=led,
                                        name="leaf sums")
        order = sorted(leaves, key=lambda kc: (kc[0], kc[1]))
        cnts = np.maximum(np.array([leaves[kc] for kc in order]), 1.0)
        avg = np.clip(noisy_sums / cnts[:, None], -1, 1)
        kk = min(k, m)
        self.cluster_centers_ = KMeans(kk, n_init=10, random_state=0).fit(avg, sample_weight=cnts).cluster_centers_
        self.n_leaves_ = m
        return self
