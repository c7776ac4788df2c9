"""Tests of choose_k's cap on k (k_cap) and of its stability flag (a parametric bootstrap of the synopsis).

Data come from scikit-learn's generators with fixed seeds. The flag tests use the seeds and settings stated in
each test; the stabilities they rely on were measured with those seeds (a flaky failure would mean the random
stream changed, not a false alarm: nothing here is a statistical test with a false-alarm rate).
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_blobs

from dpclust_core.accounting import PrivacyLedger
from dpclust_core.kmeans.choose_k import _ChooseK, choose_k, k_cap

CENTRES3 = [[0.2, 0.2], [0.8, 0.2], [0.5, 0.8]]


def _quiet(*args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return choose_k(*args, **kw)


def _blobs(n=4000, seed=0):
    X, _ = make_blobs(n, centers=CENTRES3, cluster_std=0.04, random_state=seed)
    return np.clip(X, 0.0, 1.0)


# --------------------------------------------------------------------------- the cap
def test_k_cap_is_the_stated_formula():
    # (n eps)^2 / (2 z^2 M), with the cell noise (1 + 2^-10)/eps at most; and k <= M
    for n, eps, M, z in [(1484, 0.95, 3**8, 3.0), (150, 0.475, 16, 3.0), (5000, 0.475, 65536, 2.0),
                         (20_000, 0.95, 2**16, 3.0)]:
        got = k_cap(n, eps, M, z)
        exact = (n * eps) ** 2 / (2 * z * z * M)
        assert got <= min(M, math.floor(exact))
        assert got >= min(M, math.floor(exact / (1 + 2**-10) ** 2))
    assert k_cap(100_000, 0.95, 9500) == 9500          # the grid is the limit
    assert k_cap(10, 1.0, 10**6) == 0                  # nothing to see
    assert k_cap(1e300, 1e300, 7) == 7                 # no overflow
    assert k_cap(200, 9.5e299, 10_000) == 10_000 and k_cap(100, 1.0, 16, 1e-300) == 16  # nor underflow
    assert all(k_cap(n, 1.0, 4096) <= k_cap(n + 100, 1.0, 4096) for n in range(0, 3000, 100))  # monotone in N


@pytest.mark.parametrize("kw,name", [(dict(n=-1.0), "n"), (dict(epsilon_hist=0.0), "epsilon_hist"),
                                     (dict(n_cells=0), "n_cells"), (dict(min_snr=0.0), "min_snr")])
def test_k_cap_refuses_bad_input(kw, name):
    args = dict(n=100.0, epsilon_hist=1.0, n_cells=16, min_snr=3.0)
    args.update(kw)
    with pytest.raises(ValueError, match=name):
        k_cap(**args)


@pytest.mark.parametrize("seed", range(3))
def test_a_small_n_never_gets_a_large_k(seed):
    """1,484 records in 8-D with k_range 2..100 (the old code could return k = 100): at epsilon = 1 every pick is
    at most the cap, which is far below 100; the candidates above it are dropped and the caller is told."""
    X, _ = make_blobs(1484, n_features=8, centers=10, random_state=seed)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    with pytest.warns(UserWarning, match="dropped"):
        res = choose_k(X, 1.0, range(2, 101), bounds=(0, 1), n_init=3, n_boot=2, random_state=seed)
    syn = res.synopsis_
    assert res.k_max_ == k_cap(res.n_estimate_, syn.epsilon, syn.n_cells, 3.0)
    assert res.k_max_ <= 25
    assert res.k_ <= res.k_max_
    assert res.dropped_k_ == tuple(range(res.k_max_ + 1, 101))
    assert set(res.scores_) == set(range(2, res.k_max_ + 1))
    assert res.ledger_.epsilon == pytest.approx(1.0, abs=1e-12)


def test_the_cap_uses_the_published_n():
    X = _blobs(400)
    # 400 records in 2-D at epsilon 0.2 (n_public: all of it on the histogram): M = round(sqrt(8))^2 = 9 cells
    res = _quiet(X, 0.2, range(2, 11), bounds=(0, 1), n_public=400, n_init=3, n_boot=0, random_state=0)
    assert res.synopsis_.n_cells == 9
    assert res.k_max_ == k_cap(400, 0.2, 9) == 9 and res.dropped_k_ == (10,)


def test_nothing_visible_returns_the_smallest_candidate_flagged():
    """178 records in 13-D at epsilon 0.5: the grid has one cell, no k >= 2 can be seen."""
    X, _ = make_blobs(178, n_features=13, centers=3, random_state=0)
    X = (X - X.min(0)) / (X.max(0) - X.min(0))
    with pytest.warns(UserWarning, match="no candidate k"):
        res = choose_k(X, 0.5, range(3, 8), bounds=(0, 1), n_init=3, n_boot=3, random_state=0)
    assert res.k_max_ < 3 and res.k_ == 3 and res.reliable_ is False
    assert res.dropped_k_ == (3, 4, 5, 6, 7)
    assert res.ledger_.epsilon == pytest.approx(0.5, abs=1e-12)
    res0 = _quiet(X, 0.5, range(3, 8), bounds=(0, 1), n_init=3, n_boot=0, random_state=0)
    assert res0.reliable_ is False and res0.stability_ is None


# --------------------------------------------------------------------------- the stability flag
@pytest.mark.parametrize("seed", [0, 1])
def test_the_flag_fires_on_data_without_clusters_at_small_epsilon(seed):
    """1,000 uniform records in [0, 1]^5 at epsilon 0.5, n_init 30, 10 replicates (seeds 0 and 1: measured
    stability 0.3 and 0.1). On the uniform square instead, RT-validity picks k = 4 stably (the 2 x 2 split is its
    optimum with or without noise): the flag measures what the noise does to the choice, not whether clusters exist."""
    X = np.random.default_rng(1).uniform(size=(1000, 5))
    with pytest.warns(UserWarning, match="unstable.*more epsilon"):
        res = choose_k(X, 0.5, range(2, 11), bounds=(0, 1), n_boot=10, random_state=seed)
    assert res.reliable_ is False and res.stability_ < 0.8
    assert sum(res.bootstrap_picks_.values()) == 10
    assert res.bootstrap_picks_.get(res.k_, 0) == round(10 * res.stability_)


@pytest.mark.parametrize("seed", [0, 1])
def test_the_flag_stays_down_on_separated_blobs_at_large_epsilon(seed):
    """Three blobs (sd 0.04, centres 0.5 apart), 4,000 records, epsilon 2, n_init 30, 10 replicates."""
    X = _blobs(4000, seed=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # no warning at all
        res = choose_k(X, 2.0, range(2, 11), bounds=(0, 1), n_boot=10, random_state=seed)
    assert res.k_ == 3 and res.reliable_ is True and res.stability_ == 1.0 and res.bootstrap_picks_ == {3: 10}


# --------------------------------------------------------------------------- privacy
@pytest.mark.parametrize("n_public", [None, 4000])
def test_the_stability_spends_nothing_and_changes_nothing_released(n_public):
    X = _blobs(4000, seed=3)
    runs, after = {}, {}
    for n_boot in (0, 10):
        led = PrivacyLedger(budget_epsilon=0.7)
        gen = np.random.default_rng(11)
        runs[n_boot] = _quiet(X, 0.7, range(2, 7), bounds=(0, 1), n_init=5, n_boot=n_boot, n_public=n_public,
                              random_state=gen, ledger=led)
        after[n_boot] = gen.random(3)  # a caller's generator continues where it would without the bootstrap
        assert led.epsilon == pytest.approx(0.7, abs=1e-12)
        assert runs[n_boot].ledger_.epsilon == pytest.approx(0.7, abs=1e-12)
    a, b = runs[0], runs[10]
    entries = [[(e.name, e.epsilon, e.delta) for e in r.ledger_.entries] for r in (a, b)]
    assert entries[0] == entries[1] and len(entries[0]) == (1 if n_public else 2)
    assert np.array_equal(a.synopsis_.counts, b.synopsis_.counts) and a.k_ == b.k_ and a.scores_ == b.scores_
    assert all(np.array_equal(a.centers_[k], b.centers_[k]) for k in a.centers_)
    assert a.stability_ is None and a.reliable_ is None and b.stability_ is not None
    assert np.array_equal(after[0], after[10])


@pytest.mark.parametrize("kw,name", [(dict(n_boot=-1), "n_boot"), (dict(n_boot=2.0), "n_boot"),
                                     (dict(min_stability=1.5), "min_stability"), (dict(min_snr=0), "min_snr")])
def test_new_parameters_are_checked_before_the_data_are_read(kw, name):
    led = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises((ValueError, TypeError), match=name):
        choose_k(_blobs(200), 1.0, bounds=(0, 1), ledger=led, **kw)
    assert led.epsilon == 0.0
    assert _ChooseK([2, 3], 1.0, bounds=(0, 1), **kw).get_params()[name] == kw[name]
