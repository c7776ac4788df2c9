"""FastLloyd's central-DP clustering mechanism (Diaa, Humphries & Kerschbaum, USENIX Security 2025, arXiv 2405.02437).

Re-implemented from the paper's description of its DP mechanism (the secure-aggregation layer is irrelevant in
the central model and left out):

1. **Initialisation** independent of the data: k points uniform in the public box [-1, 1]^d, kept at a minimum
   mutual distance that is halved until k points fit (the proximity initialisation the paper takes over from
   diffprivlib).
2. **Rounds.** T rounds, T = clamp(0.016 n^2 / (k^3 eta_d^2 (1 + sqrt(4d))^2 s^2), 2, 7) with
   ``eta_d = 2 sqrt(d) alpha / (2 k^(1/d))`` and s the noise scale of one unit-sensitivity Gaussian release at
   the whole (epsilon, delta) — the paper's rule for the number of iterations of the constrained variant.
3. **Radius constraint.** In round t a point is assigned to its nearest centre only when it lies within
   ``r_t`` of it (``r_0 = sqrt(d)``, half the box diagonal; afterwards ``r_t = 2 sqrt(d) alpha / (2 k^(1/d))``,
   alpha = 2, capped at the diagonal). Points farther out are left out of the round.
4. **Relative updates.** Each cluster releases its count and the sum of ``x - c_j`` over its points: the L2
   sensitivity of the sums is ``r_t`` (instead of the box's half-diagonal ... diagonal), of the counts 1.
   The new centre is ``c_j + S~_j / C~_j``; its move is clipped to ``r_t`` and it is folded back into the box.

**Privacy.** Gaussian noise throughout; the sums of a round get the share ``sqrt(4d)/(1 + sqrt(4d))`` and the
counts ``1/(1 + sqrt(4d))`` of the round's zCDP budget ``rho/T``, the paper's split (its noise scales
``sqrt(T (1 + sqrt(4d)))/(4d)^{1/4} r_t s`` and ``sqrt(T (1 + sqrt(4d))) s``). The paper composes with the
analytic Gaussian mechanism (Gaussian DP); here the same split composes in zCDP and the total rho is calibrated
to (epsilon - epsilon_N, delta) by the package's discrete-Gaussian calibration (about 8 % more noise than the
analytic calibration at epsilon = 1). The paper treats N as public (it sets delta = 1/(N ln N) and T from N);
here N is private: ``n_share`` (5 %) of epsilon buys a Laplace count that sets T, and delta is the harness's.
Ledger: ``noisy N`` (Laplace) + one entry for the composed Gaussian rounds; total (epsilon, delta).
"""
from __future__ import annotations

import math

import numpy as np

from dpclust_core import PrivacyLedger
from dpclust_core.mechanisms import discrete_gaussian_sigma

from ._common import ZCDPGaussian, fold, noisy_count


def proximity_init(k, d, rng, low=-1.0, high=1.0, max_retries=100):
    """k centres uniform in the box, pairwise at least 2*prox apart; prox halves until they fit (data-free)."""
    prox = (high - low) / 2.0
    while prox > 0:
        centres, retry = [], 0
        while len(centres) < k and retry < max_retries:
            c = low + prox + rng.random(d) * (high - low - 2 * prox)
            if not centres or np.sqrt(((np.asarray(centres) - c) ** 2).sum(1).min()) >= 2 * prox:
                centres.append(c)
                retry = 0
            else:
                retry += 1
        if len(centres) == k:
            return np.asarray(centres)
        prox /= 2.0
    raise RuntimeError("no initialisation")  # pragma: no cover


def fastlloyd_rounds(n_est, k, d, epsilon, delta, alpha=2.0, t_min=2, t_max=7):
    """The paper's number of rounds of the constrained Gaussian variant, from a (noisy) N."""
    s = discrete_gaussian_sigma(1.0, epsilon, delta)
    eta = 2 * math.sqrt(d) * alpha / (2 * k ** (1 / d))
    iters = 0.004 * 4 * n_est**2 / (k**3 * eta**2 * (1 + math.sqrt(4 * d)) ** 2 * s**2)
    return int(max(min(iters, t_max), t_min))


def radius_schedule(t, k, d, alpha=2.0):
    diag = 2 * math.sqrt(d)
    r = diag / 2 if t == 0 else diag * alpha / (2 * k ** (1 / d))
    return min(r, diag)


def dp_constrained_lloyd(X, centres, rounds, radii, gauss: ZCDPGaussian, rng, rho_total=None, post="fold"):
    """T rounds of FastLloyd's radius-constrained, relative, clipped private Lloyd step from ``centres``.

    ``radii[t]`` is the public radius of round t; the rho of the run is split evenly over the rounds and within
    a round sqrt(4d) : 1 between sums and counts. X is assumed inside the public box [-1, 1]^d.
    """
    k, d = centres.shape
    rho_total = gauss.rho_total if rho_total is None else rho_total
    w_sum = math.sqrt(4 * d) / (1 + math.sqrt(4 * d))
    c = centres.copy()
    x2 = (X**2).sum(1)
    for t in range(rounds):
        r = radii[t]
        d2 = x2[:, None] - 2 * X @ c.T + (c**2).sum(1)[None, :]
        lab = d2.argmin(1)
        keep = d2[np.arange(len(X)), lab] <= r * r
        lab_k, Xk = lab[keep], X[keep]
        counts = np.bincount(lab_k, minlength=k).astype(float)
        sums = np.zeros((k, d))
        np.add.at(sums, lab_k, Xk)
        rel = sums - c * counts[:, None]  # sum of x - c_j: each term has norm <= r
        rho_t = rho_total / rounds
        rel_n = gauss.release(rel, r, rho_t * w_sum, rng)
        cnt_n = gauss.release(counts, 1.0, rho_t * (1 - w_sum), rng)
        step = rel_n / np.where(np.abs(cnt_n) < 1e-9, 1e-9, cnt_n)[:, None]
        norm = np.linalg.norm(step, axis=1)
        step *= np.minimum(1.0, r / np.maximum(norm, 1e-300))[:, None]  # clip the move to r_t
        c = c + step
        if post == "fold":
            c = fold(c)
        elif post == "truncate":
            c = np.clip(c, -1, 1)
    return c


class FastLloyd:
    """FastLloyd (constrained, Gaussian, fold) in the central model; data in the public box [-1, 1]^d.

    (epsilon, delta)-DP under add/remove one record: a Laplace count (``n_share`` of epsilon) and T rounds of
    Gaussian releases composed in zCDP at (epsilon (1 - n_share), delta); see the module docstring.
    """

    def __init__(self, n_clusters, epsilon, delta=1e-6, *, alpha=2.0, n_share=0.05, post="fold", random_state=None):
        self.n_clusters, self.epsilon, self.delta = n_clusters, epsilon, delta
        self.alpha, self.n_share, self.post, self.random_state = alpha, n_share, post, random_state

    def fit(self, X):
        X = np.clip(np.asarray(X, dtype=float), -1, 1)
        rng = np.random.default_rng(self.random_state)
        k, d = self.n_clusters, X.shape[1]
        self.ledger_ = led = PrivacyLedger(budget_epsilon=self.epsilon, budget_delta=self.delta)
        eps_n = self.n_share * self.epsilon
        n_est = noisy_count(len(X), eps_n, rng, led)
        eps_g = self.epsilon - eps_n
        T = fastlloyd_rounds(n_est, k, d, eps_g, self.delta, self.alpha)
        gauss = ZCDPGaussian(eps_g, self.delta, led, "FastLloyd rounds")
        c0 = proximity_init(k, d, rng)
        radii = [radius_schedule(t, k, d, self.alpha) for t in range(T)]
        self.cluster_centers_ = dp_constrained_lloyd(X, c0, T, radii, gauss, rng, post=self.post)
        gauss.close()
        self.n_rounds_ = T
        return self
