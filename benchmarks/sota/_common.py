"""Shared pieces of the benchmark re-implementations: zCDP budget of Gaussian releases, scaling, folding."""
from __future__ import annotations

import math

import numpy as np

from dpclust_core import PrivacyLedger
from dpclust_core.mechanisms import discrete_gaussian_sigma, gaussian_noise, laplace_mechanism


class ZCDPGaussian:
    """A run of adaptive Gaussian releases whose *total* is one (epsilon, delta)-DP guarantee.

    The discrete Gaussian with per-coordinate sd ``sigma`` and L2 sensitivity ``Delta`` is ``Delta^2/(2 sigma^2)``-zCDP
    (Canonne, Kamath & Steinke 2020, Thm. 14) and zCDP composes additively under adaptivity (Bun & Steinke 2016).
    ``rho_total`` is the largest rho whose (epsilon, delta) conversion holds, read off the package's own calibration:
    ``discrete_gaussian_sigma(1, eps, delta) = 1/sqrt(2 rho_total)``. Each release asks for a share ``rho_i`` of it;
    the value is first rounded to the noise grid (the rounding adds ``(sqrt(l0) + 1) * gamma`` to the sensitivity,
    as in ``dpclust_core.mechanisms``), so every output lies on a power-of-two grid. :meth:`close` records one ledger
    entry of ``(epsilon, delta)`` for the whole run after checking that no more than ``rho_total`` was spent.
    """

    def __init__(self, epsilon, delta, ledger: PrivacyLedger, name: str):
        self.epsilon, self.delta, self.ledger, self.name = float(epsilon), float(delta), ledger, name
        self.rho_total = 1.0 / (2.0 * discrete_gaussian_sigma(1.0, self.epsilon, self.delta) ** 2)
        self.spent = 0.0
        self.n_releases = 0
        ledger.require(self.epsilon, self.delta, name)

    def release(self, value, l2_sensitivity, rho, rng):
        value = np.asarray(value, dtype=float)
        if rho <= 0 or self.spent + rho > self.rho_total * (1 + 1e-9):
            raise ValueError(f"{self.name}: rho {rho} exceeds the remaining {self.rho_total - self.spent}")
        l0 = max(value.size, 1)
        sigma = l2_sensitivity / math.sqrt(2.0 * rho)
        gamma = 2.0 ** (math.floor(math.log2(sigma)) - 20)  # the grid of gaussian_noise(sigma)
        sigma = (l2_sensitivity + (math.sqrt(l0) + 1.0) * gamma) / math.sqrt(2.0 * rho)  # rounding slack
        gamma_out = 2.0 ** (math.floor(math.log2(sigma)) - 20)
        grid = np.rint(value / gamma_out) * gamma_out
        self.spent += rho
        self.n_releases += 1
        return grid + gaussian_noise(sigma, size=value.shape if value.ndim else None, rng=rng)

    def close(self):
        assert self.spent <= self.rho_total * (1 + 1e-9)
        self.ledger.record(f"{self.name} ({self.n_releases} Gaussian releases, zCDP rho = {self.rho_total:.4g})",
                           self.epsilon, self.delta)


def noisy_count(n, epsilon, rng, ledger, name="noisy N"):
    """Laplace count of the records (sensitivity 1, add/remove), floored at 1."""
    return max(float(laplace_mechanism(float(n), 1.0, epsilon, rng, ledger=ledger, name=name)), 1.0)


def fold(c, low=-1.0, high=1.0):
    """Reflect points into [low, high] (the 'fold' post-processing of FastLloyd; a function of public values)."""
    w = high - low
    v = np.mod(c - low, 2 * w)
    v = np.where(v > w, 2 * w - v, v)
    return low + v


def minmax_to_box(X):
    """Min-max scale every column into [-1, 1] (the harness's stated assumption: the scaled box is public)."""
    X = np.asarray(X, dtype=float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return 2.0 * (X - lo) / span - 1.0
