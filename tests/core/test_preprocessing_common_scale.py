"""One scale for all columns: the private min-max scaler as a translation and a uniform scaling.

Stretching every column's private box onto [-1, 1] changes the distance a next clustering step uses, so its
centres, mapped back, are judged by another cost than the one they minimised. ``common_scale=True`` (the
default of ``make_private_pipeline``) keeps the geometry. All checks run at fixed seeds.
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.cluster import KMeans

from dpclust_core import PrivacyLedger, PrivateMinMaxScaler, make_private_pipeline, wcss
from dpclust_core.kmeans import EUGkM, LSHCoresetKMeans

EPS_TOL = 1e-12


def _wide_and_narrow(n=20_000, seed=0):
    """Column 0: four clusters 100 apart (the structure, in the original units); column 1: two modes 10 apart,
    a small effect in the original units that a per-column stretch makes the largest one."""
    rng = np.random.default_rng(seed)
    x0 = 100.0 * rng.integers(0, 4, n) + 3.0 * rng.normal(size=n)
    x1 = 10.0 * rng.integers(0, 2, n) + 0.3 * rng.normal(size=n)
    return np.column_stack([x0, x1])


def test_common_scale_is_a_similarity_and_releases_the_same_box():
    X = _wide_and_narrow()
    led = PrivacyLedger(budget_epsilon=1.0)
    sc = PrivateMinMaxScaler(0.5, common_scale=True, random_state=3, ledger=led).fit(X)
    per = PrivateMinMaxScaler(0.5, random_state=3).fit(X)
    # the same releases: the choice is post-processing of the one private box
    assert np.array_equal(sc.data_min_, per.data_min_) and np.array_equal(sc.data_max_, per.data_max_)
    assert [e.name for e in sc.ledger_.entries] == [e.name for e in per.ledger_.entries]
    assert abs(led.epsilon - 0.5) < EPS_TOL and abs(sc.ledger_.epsilon - 0.5) < EPS_TOL
    # one factor: the widest box fills feature_range, the others are centred inside it
    assert np.all(sc.scale_ == sc.scale_[0])
    assert sc.scale_[0] == pytest.approx(2.0 / np.max(sc.data_range_), rel=1e-15)
    low, high = sc.transformed_bounds_
    j = int(np.argmax(sc.data_range_))
    assert low[j] == pytest.approx(-1.0, abs=1e-12) and high[j] == pytest.approx(1.0, abs=1e-12)
    assert np.all(low >= -1 - 1e-12) and np.all(high <= 1 + 1e-12)
    assert np.allclose(low + high, 0.0, atol=1e-12)
    # distances keep their ratios: |z_a - z_b| = scale |x_a - x_b|
    Z = sc.transform(X[:200])
    dX = np.linalg.norm(X[:100] - X[100:200], axis=1)
    dZ = np.linalg.norm(Z[:100] - Z[100:], axis=1)
    assert np.allclose(dZ, sc.scale_[0] * dX, rtol=1e-12)
    assert np.allclose(sc.inverse_transform(sc.transform(X)), X, rtol=1e-12, atol=1e-9)
    # per column (the default): every box onto feature_range, as before
    assert np.allclose(per.transformed_bounds_[0], -1.0) and np.allclose(per.transformed_bounds_[1], 1.0)
    assert clone(sc).get_params()["common_scale"] is True


def test_common_scale_is_validated():
    with pytest.raises(TypeError, match="common_scale"):
        PrivateMinMaxScaler(1.0, common_scale="yes").fit(_wide_and_narrow(n=3000))
    with pytest.raises(TypeError, match="common_scale"):
        make_private_pipeline(EUGkM, 1.0, n_clusters=3, common_scale=1.5)


def test_make_private_pipeline_keeps_the_cost_of_the_original_units():
    """The LSH pipeline's centres, mapped back, minimise the k-means cost of the original units: with one scale
    for all columns the median over five seeds is within 1.1 times the best non-private cost (one seed of five
    merges two clusters, a local optimum of the estimator's seeding); stretching the narrow column makes the
    clusters follow it in every run (more than 10 times). Ledgers total exactly (1, 1e-6) in every run."""
    X = _wide_and_narrow()
    best = wcss(X, KMeans(4, n_init=10, random_state=0).fit(X).cluster_centers_)
    runs = {True: [], False: []}
    for seed in range(5):
        for common in (True, False):
            kw = {} if common else dict(common_scale=False)
            pipe = make_private_pipeline(LSHCoresetKMeans, 1.0, delta=1e-6, n_clusters=4, random_state=seed,
                                         **kw).fit(X)
            assert pipe[0].common_scale is common
            eps, delta = pipe[0].ledger.total()
            assert abs(eps - 1.0) < EPS_TOL and abs(delta - 1e-6) < EPS_TOL
            runs[common].append(wcss(X, pipe[0].inverse_transform(pipe[-1].cluster_centers_)) / best)
    assert np.median(runs[True]) < 1.1 and min(runs[False]) > 10.0, runs


def test_the_estimator_gets_the_scaled_private_box():
    """With one scale, the last step's ``bounds`` are the scaler's box in the scaled units (post-processing of
    its release), set at every fit; a clone (which shares the ledger) refits with its own box."""
    X = _wide_and_narrow(n=10_000, seed=1)
    led = PrivacyLedger(budget_epsilon=4.0)
    pipe = make_private_pipeline(EUGkM, 2.0, n_clusters=4, random_state=0, ledger=led)
    assert pipe[-1].get_params()["bounds"] == (-1.0, 1.0)  # before the fit: the public feature_range
    pipe.fit(X)
    low, high = pipe[-1].get_params()["bounds"]
    t_low, t_high = pipe[0].transformed_bounds_
    assert np.array_equal(low, t_low) and np.array_equal(high, t_high)
    assert high[1] - low[1] < 0.2 and high[0] - low[0] == pytest.approx(2.0)
    assert np.all(pipe[-1].cluster_centers_ >= low - 1e-12) and np.all(pipe[-1].cluster_centers_ <= high + 1e-12)
    other = clone(pipe)
    assert other.set_params(scaler__random_state=5).fit(X)[-1].get_params()["bounds"][0][1] != low[1]
    assert other[0].ledger is led and abs(led.epsilon - 4.0) < EPS_TOL


def test_the_lsh_pipeline_spends_exactly_its_budget_with_one_scale():
    X = _wide_and_narrow(n=10_000, seed=1)
    pipe = make_private_pipeline(LSHCoresetKMeans, 1.0, delta=1e-6, n_clusters=4, random_state=0).fit(X)
    eps, delta = pipe[0].ledger.total()
    assert abs(eps - 1.0) < EPS_TOL and abs(delta - 1e-6) < EPS_TOL
    assert np.all(pipe[0].scale_ == pipe[0].scale_[0])
