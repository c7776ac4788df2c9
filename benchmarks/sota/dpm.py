"""DPM, differentially private Mondrian-style clustering by separation (Liebenow et al., CCS 2024, arXiv 2307.02969).

Re-implemented from the paper's description. DPM splits the data recursively with axis-aligned hyperplanes placed
in wide low-density gaps, then releases one noisy mean per leaf:

1. **Noisy N** (Laplace) and the **interval width** w of the candidate split positions: a private quantile (the
   65th percentile, exponential mechanism) of the per-record average gap between coordinate-sorted values,
   matched against the same statistic of n Gaussian samples to read off a spread sigma, ``w = sigma / 2`` (the
   paper's band-width estimate; the look-up is simulated from public values only). The paper's table runs over
   sigma = 0.5, 1, ..., 30 in the data's own units; in the harness's box [-1, 1]^d every data set would fall
   below its first entry (w = 0.25 always), so sigma is solved continuously (the gap statistic is linear in
   sigma) and w is kept within [2/512, 1/2] (4 to 512 candidate positions per axis).
2. **Split** (levels 0 ... L-1, L = 7): the candidates are the centres of the intervals of width w on every
   axis. Each gets ``w_e * emptiness + w_c * centreness`` (w_e = 5, w_c = 1): emptiness ``1 - count/n~`` of the
   interval, centreness a piecewise-linear function (t = 0.3, q = 1/12) of the rank of the candidate among the
   node's points that favours splits near the node's median. One candidate is drawn by the exponential mechanism
   with sensitivity ``(w_c t/q + w_e) / n_low``, where ``n_low = n~ + ln(2 delta_c)/eps_c`` is a lower bound of
   the node's size that holds except with probability delta_c (the delta the counts carry).
3. **Stop** when a child's noisy count falls below ``n~ / 2^L``, or at depth L.
4. **Averaging**: every leaf releases its coordinate sum with the Gaussian mechanism (L2 sensitivity
   ``sqrt(d) * max|bound|``) divided by its noisy count.

**Privacy** (the paper's split): eps = 4 % band width + 18 % counts + 18 % splits + 60 % averages; the counts and
splits of one level are spread over the levels in proportion to ``sqrt(2^l)``; nodes of a level hold disjoint
data (parallel composition); delta = 20 % for the counts' lower bounds (evenly over the L+1 levels) + 80 % for
the averages. Ledger entries: one per level for counts and for splits (each a parallel group over the nodes),
one for the band width, one parallel group for the leaf sums; total (epsilon, delta).

**k.** DPM chooses its own number of clusters (up to 2^L). The harness asks for k centres; when DPM returns more,
they are merged by a weighted k-means on the released centres and noisy counts (post-processing, free of
budget), which the paper does not do; fewer are returned as they are.
"""
from __future__ import annotations

import math

import numpy as np
from sklearn.cluster import KMeans

from dpclust_core import PrivacyLedger
from dpclust_core.mechanisms import exponential_mechanism, exponential_mechanism_intervals, gaussian_mechanism, laplace_mechanism


def _centreness(n, q, t, p):
    """The paper's centreness of a split with p of the node's n (noisy) points on its left."""
    n = max(n, 1.0)
    dist = np.abs(n / 2 - p)
    edge = (n / 2 - dist) * t / (n * q)
    inner = (t - 2 * q) / (1 - 2 * q) + (n / 2 - dist) * (1 - t) / (n / 2 - n * q)
    return np.where(dist >= n / 2 - n * q, edge, inner)


def _gap_unit(n, q=65, rng=None, reps=30):
    """The q-th percentile of gaps between n sorted N(0, 1) samples (a public simulation); it scales with sigma."""
    n = int(min(max(n, 2), 20000))
    z = np.sort(rng.normal(size=(n, reps)), axis=0)
    return float(np.percentile(np.diff(z, axis=0), q, axis=0).mean())


class DPM:
    """DPM in the central model, data in the public box [-1, 1]^d; (epsilon, delta)-DP (see the module docstring)."""

    def __init__(self, n_clusters, epsilon, delta=1e-6, *, levels=7, w_c=1.0, w_e=5.0, t=0.3, q=1 / 12,
                 shares=(0.04, 0.18, 0.18, 0.6), random_state=None):
        self.n_clusters, self.epsilon, self.delta, self.levels = n_clusters, epsilon, delta, levels
        self.w_c, self.w_e, self.t, self.q, self.shares, self.random_state = w_c, w_e, t, q, shares, random_state

    # ---------------------------------------------------------------------------------------------- pieces
    def _band_width(self, X, n_est, eps, rng, led):
        xs = np.sort(X, axis=0)
        gaps = np.diff(xs, axis=0).mean(axis=1)  # per-rank average gap, in [0, 2]
        gs = np.sort(gaps)
        m = len(gs)
        edges = np.concatenate([[0.0], gs, [2.0]])
        target = 0.65 * m
        scores = -np.abs(np.arange(m + 1) - target)
        # one record changes the per-rank gaps in up to two places: sensitivity 2 of the rank score
        i, u = exponential_mechanism_intervals(scores, np.diff(edges), 2.0, eps, rng, ledger=led,
                                               name="band width (65th percentile of gaps)")
        value = edges[i] + u * (edges[i + 1] - edges[i])
        sigma = value / _gap_unit(n_est, rng=rng)
        return float(np.clip(sigma * 0.5, 2.0 / 512, 2.0 / 4))

    def _scores(self, Xn, n_noisy, w):
        m = max(int(round(2.0 / w)), 2)
        w = 2.0 / m
        edges = -1.0 + w * np.arange(m + 1)
        centres = edges[:-1] + w / 2
        d = Xn.shape[1]
        idx = np.clip(((Xn + 1.0) / w).astype(int), 0, m - 1)
        hist = np.zeros((d, m))
        for j in range(d):  # a loop over dimensions (not points): one bincount each
            hist[j] = np.bincount(idx[:, j], minlength=m)[:m]
        empt = np.clip(1 - hist / max(n_noisy, 1.0), 0, 1)
        srt = np.sort(Xn, axis=0)
        ranks = np.stack([np.searchsorted(srt[:, j], centres) for j in range(d)])
        cent = _centreness(n_noisy, self.q, self.t, ranks)
        return self.w_c * cent + self.w_e * empt, centres

    # ---------------------------------------------------------------------------------------------- fit
    def fit(self, X):
        X = np.clip(np.asarray(X, dtype=float), -1, 1)
        rng = np.random.default_rng(self.random_state)
        n, d = X.shape
        L = self.levels
        eps = self.epsilon
        e_bw, e_cnt, e_exp, e_avg = (s * eps for s in self.shares)
        lev = np.sqrt(2.0 ** np.arange(L + 1))
        e_cnt_l = e_cnt * lev / lev.sum()
        e_exp_l = e_exp * lev[:L] / lev[:L].sum()
        d_cnt = 0.2 * self.delta / (L + 1)
        d_avg = 0.8 * self.delta
        self.ledger_ = led = PrivacyLedger(budget_epsilon=eps, budget_delta=self.delta)
        n0 = float(laplace_mechanism(float(n), 1.0, e_cnt_l[0], rng, ledger=led, name="count, level 0"))
        led.record("count lower bounds, level 0 (delta of the shifted count)", 0.0, d_cnt)
        w = self._band_width(X, max(n0, 2.0), e_bw, rng, led)
        split_limit = n0 / 2**L
        nodes = [(np.arange(n), n0)]
        leaves = []
        for level in range(L):
            if not nodes:
                break
            nxt = []
            with led.parallel(f"splits, level {level}") as par_s:
                picks = []
                for ids, nn in nodes:
                    with par_s.partition():
                        n_low = max(nn + math.log(2 * d_cnt) / e_cnt_l[level], 1.0)
                        sens = (self.w_c * self.t / self.q + self.w_e) / n_low
                        sc, centres = self._scores(X[ids], nn, w)
                        i = exponential_mechanism(sc.ravel(), sens, e_exp_l[level], rng, ledger=led,
                                                  name=f"split, level {level}")
                        picks.append((i // sc.shape[1], centres[i % sc.shape[1]]))
            with led.parallel(f"counts, level {level + 1}") as par_c:
                for (ids, nn), (dim, pos) in zip(nodes, picks):
                    left = X[ids, dim] <= pos
                    kids = []
                    for part in (ids[~left], ids[left]):
                        with par_c.partition():
                            kids.append((part, float(laplace_mechanism(float(len(part)), 1.0, e_cnt_l[level + 1],
                                                                       rng, ledger=led,
                                                                       name=f"count, level {level + 1}"))))
                    if min(kids[0][1], kids[1][1]) <= split_limit:
                        leaves.append((ids, nn))
                    else:
                        nxt.extend(kids)
            led.record(f"count lower bounds, level {level + 1}", 0.0, d_cnt)
            nodes = nxt
        leaves.extend(nodes)
        # levels never reached still carry their delta share so the ledger states the whole plan
        n_count_levels = sum(1 for e in led.entries if e.name.startswith("count lower bounds"))
        for level in range(n_count_levels, L + 1):
            led.record(f"count lower bounds, level {level} (unused)", 0.0, d_cnt)
        sums = np.stack([X[ids].sum(0) for ids, _ in leaves])
        noisy = gaussian_mechanism(sums, np.full(len(leaves), math.sqrt(d)), e_avg, d_avg, rng, rows="disjoint",
                                   ledger=led, name="leaf sums")
        cnts = np.array([max(nn, 1.0) for _, nn in leaves])
        centres = np.clip(noisy / cnts[:, None], -1, 1)
        self.dpm_centers_, self.dpm_counts_ = centres, cnts
        k = self.n_clusters
        if len(centres) > k:
            km = KMeans(k, n_init=10, random_state=0).fit(centres, sample_weight=cnts)
            centres = km.cluster_centers_
        self.cluster_centers_ = centres
        # levels with no split (no nodes left) did not spend their epsilon: record them so the ledger is the plan
        done = {e.name for e in led.entries}
        for level in range(L):
            if f"split, level {level}" not in done:
                led.record(f"split, level {level} (unused)", e_exp_l[level])
        for level in range(1, L + 1):
            if f"count, level {level}" not in done:
                led.record(f"count, level {level} (unused)", e_cnt_l[level])
        return self
