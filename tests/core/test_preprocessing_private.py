"""The private scalers and the private pipeline (dpclust_core.preprocessing).

Statistical checks run at fixed seeds; the audits state their false-alarm rates where they are made.
"""
from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.datasets import load_wine
from sklearn.pipeline import make_pipeline

from dpclust_core import (BudgetExceededError, PrivacyLedger, PrivateMinMaxScaler, PrivateStandardScaler,
                          UnreliableBoundsError, audit, make_private_pipeline)
from dpclust_core.kmeans import DPLloyd, EUGkM, LSHCoresetKMeans
from dpclust_core.report import release_card

EPS_TOL = 1e-12


def _blobs(n=20_000, d=4, k=16, seed=0, offset=1000.0, spread=50.0):
    """k well-separated blobs far from 0, in original units (offset ± spread)."""
    rng = np.random.default_rng(seed)
    centres = offset + spread * rng.uniform(-1, 1, size=(k, d))
    lab = rng.integers(0, k, size=n)
    return centres[lab] + 0.02 * spread * rng.normal(size=(n, d)), centres


class _Poison:
    """An "array" that fails the test if anything reads it."""

    shape = (10, 2)

    def __array__(self, *a, **k):
        raise AssertionError("the data were read")


# --------------------------------------------------------------------------- the pipeline of the issue
def _issue_pipeline(ledger, seed=0):
    return make_pipeline(PrivateMinMaxScaler(0.3, ledger=ledger, random_state=seed),
                         LSHCoresetKMeans(16, 0.7, 1e-6, bounds=(-1, 1), ledger=ledger, random_state=seed))


def test_pipeline_is_private_end_to_end_and_spends_exactly_its_budget():
    X, centres = _blobs()
    L = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
    pipe = _issue_pipeline(L).fit(X)
    eps, delta = L.total()
    assert abs(eps - 1.0) < EPS_TOL and abs(delta - 1e-6) < EPS_TOL
    assert abs(pipe[0].ledger_.epsilon - 0.3) < EPS_TOL and abs(pipe[-1].ledger_.epsilon - 0.7) < EPS_TOL
    # the centres map back to the original units: every true centre has a released one close by
    C = pipe[0].inverse_transform(pipe[-1].cluster_centers_)
    dist = np.sqrt(((centres[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)).min(axis=1)
    assert C.shape == (16, 4) and np.median(dist) < 5.0      # the blobs sit ±50 around 1000, sd 1
    assert np.all(C > 900) and np.all(C < 1100)


def test_a_shared_ledger_over_budget_refuses_before_reading_the_data():
    X, _ = _blobs(n=5000)
    L = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
    pipe = _issue_pipeline(L).fit(X)
    with pytest.raises(BudgetExceededError):
        pipe.fit(_Poison())
    assert abs(L.epsilon - 1.0) < EPS_TOL  # the refused fit spent nothing


def test_cloning_the_pipeline_charges_the_one_budget():
    X, _ = _blobs(n=5000)
    L = PrivacyLedger(budget_epsilon=2.0, budget_delta=2e-6)
    pipe = _issue_pipeline(L)
    pipe.fit(X)
    clone(pipe).fit(X)  # a clone shares the ledger
    assert abs(L.epsilon - 2.0) < EPS_TOL and abs(L.delta - 2e-6) < EPS_TOL
    with pytest.raises(BudgetExceededError):
        clone(pipe).fit(_Poison())


def test_make_private_pipeline_splits_the_total_budget():
    X, _ = _blobs(n=5000, k=4)
    pipe = make_private_pipeline(LSHCoresetKMeans, 1.0, delta=1e-6, n_clusters=4, random_state=3).fit(X)
    L = pipe[0].ledger
    assert L is pipe[-1].ledger and L.budget_epsilon == 1.0
    assert abs(L.epsilon - 1.0) < EPS_TOL and abs(L.delta - 1e-6) < EPS_TOL
    # one scale for all columns (the default): the estimator is fitted on the scaler's box in scaled units
    low, high = pipe[-1].get_params()["bounds"]
    assert np.array_equal(low, pipe[0].transformed_bounds_[0]) and np.array_equal(high, pipe[0].transformed_bounds_[1])
    assert np.all(low >= -1.0) and np.all(high <= 1.0) and np.isclose(np.max(high - low), 2.0)
    per_col = make_private_pipeline(LSHCoresetKMeans, 1.0, delta=1e-6, n_clusters=4, common_scale=False,
                                    random_state=3).fit(X)
    assert per_col[-1].get_params()["bounds"] == (-1.0, 1.0)
    inst = make_private_pipeline(EUGkM(3, 5.0, bounds=(0, 1)), 2.0, scaler_share=0.2, bounds=(0, 2000),
                                 random_state=0).fit(X)
    assert inst[0].refined_ and inst[-1].get_params()["n_clusters"] == 3
    assert abs(inst[0].ledger_.epsilon - 0.4) < EPS_TOL and abs(inst[-1].ledger_.epsilon - 1.6) < EPS_TOL
    with pytest.raises(ValueError, match="estimator_params"):
        make_private_pipeline(EUGkM(3, 1.0, bounds=(0, 1)), 1.0, n_clusters=3)
    with pytest.raises(TypeError, match="estimator"):
        make_private_pipeline("kmeans", 1.0)
    with pytest.raises(ValueError, match="scaler_share"):
        make_private_pipeline(EUGkM, 1.0, scaler_share=1.0, n_clusters=3)


# --------------------------------------------------------------------------- the scalers
@pytest.mark.parametrize("make", [
    lambda: PrivateMinMaxScaler(0.6, random_state=0),
    lambda: PrivateMinMaxScaler(0.6, bounds=(0, 2000), random_state=0),
    lambda: PrivateStandardScaler(0.6, random_state=0),
    lambda: PrivateStandardScaler(0.6, bounds=(0, 2000), random_state=0),
    lambda: PrivateStandardScaler(0.6, bounds=(0, 2000), n_public=20_000.5, random_state=0),
], ids=["minmax", "minmax-public", "standard", "standard-public", "standard-n-public"])
def test_every_scaler_spends_exactly_epsilon_and_round_trips(make):
    X, _ = _blobs(k=4)
    sc = make().fit(X)
    assert abs(sc.ledger_.epsilon - 0.6) < EPS_TOL and sc.ledger_.delta == 0.0
    Z = sc.transform(X)
    assert np.allclose(sc.inverse_transform(Z), X, rtol=1e-12, atol=1e-9)
    low, high = sc.transformed_bounds_
    assert np.all(low < high)
    assert sc.reliable_ is True


def test_minmax_box_is_close_to_the_data_range_and_maps_onto_feature_range():
    X, _ = _blobs(k=4)
    for sc in (PrivateMinMaxScaler(1.0, random_state=1).fit(X),
               PrivateMinMaxScaler(1.0, bounds=(0, 2000), feature_range=(0, 1), random_state=1).fit(X)):
        lo, hi = np.quantile(X, [0.01, 0.99], axis=0)
        coverage = ((X >= sc.data_min_) & (X <= sc.data_max_)).mean(axis=0)
        assert np.all(coverage > 0.95), coverage
        assert np.median((sc.data_max_ - sc.data_min_) / (hi - lo)) < 2.0
        a, b = sc.transformed_bounds_
        assert np.allclose(a, sc.feature_range[0]) and np.allclose(b, sc.feature_range[1])
        assert np.allclose(sc.scale_ * sc.data_range_, sc.feature_range[1] - sc.feature_range[0])
        clipped = clone(sc).set_params(clip=True).fit(X).transform(X)
        assert clipped.min() >= sc.feature_range[0] and clipped.max() <= sc.feature_range[1]


def test_standard_scaler_is_accurate_on_large_data():
    rng = np.random.default_rng(5)
    X = rng.normal([5.0, -2.0, 100.0], [2.0, 0.5, 10.0], size=(100_000, 3))
    sc = PrivateStandardScaler(1.0, bounds=[(-5, 15), (-5, 1), (50, 150)], random_state=0).fit(X)
    assert np.allclose(sc.mean_, X.mean(axis=0), rtol=0, atol=[0.02, 0.01, 0.1])
    assert np.allclose(sc.scale_, X.std(axis=0), rtol=0.01)
    assert np.allclose(sc.var_, sc.scale_**2, rtol=1e-9)
    tiny = PrivateStandardScaler(0.01, bounds=(0, 1), random_state=0).fit(np.full((20, 1), 0.5))
    assert 0 < tiny.scale_[0] <= 0.5 and 0 <= tiny.mean_[0] <= 1  # clipped to what is possible


def test_dataframes_keep_their_feature_names():
    X, _ = _blobs(n=5000, d=2, k=3)
    df = pd.DataFrame(X, columns=["height", "weight"])
    sc = PrivateMinMaxScaler(1.0, random_state=0).fit(df)
    assert list(sc.feature_names_in_) == ["height", "weight"]
    assert list(sc.get_feature_names_out()) == ["height", "weight"]
    assert list(PrivateStandardScaler(1.0, random_state=0).fit(X).get_feature_names_out()) == ["x0", "x1"]
    with pytest.raises(ValueError, match="columns"):
        sc.transform(df.rename(columns={"weight": "mass"}))
    out = PrivateMinMaxScaler(1.0, random_state=0).set_output(transform="pandas").fit(df).transform(df)
    assert list(out.columns) == ["height", "weight"]


def test_small_data_is_refused_or_flagged_and_the_card_warns():
    wine = load_wine().data
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(UnreliableBoundsError, match="public range"):
        PrivateMinMaxScaler(0.3, ledger=L, random_state=0).fit(wine)
    assert 0 < L.epsilon < 0.3  # only the counts were spent
    with pytest.warns(UserWarning, match="flagged"):
        sc = PrivateMinMaxScaler(0.3, on_unreliable="flag", random_state=0).fit(wine)
    assert sc.reliable_ is False and abs(sc.ledger_.epsilon - 0.3) < EPS_TOL
    card = release_card(sc.ledger_, box=sc)
    assert "WARNING" in card.index and "unreliable" in card.loc["WARNING", "value"]
    # a public range removes the refusal; too few records to refine it, so it is kept (only the count spent)
    public = np.c_[np.zeros(13), np.full(13, 2000.0)]
    with pytest.warns(UserWarning, match="public range"):
        kept = PrivateMinMaxScaler(0.3, bounds=public, random_state=0).fit(wine)
    assert kept.reliable_ and not kept.refined_ and abs(kept.ledger_.epsilon - 0.03) < EPS_TOL
    assert np.array_equal(kept.data_min_, public[:, 0]) and np.array_equal(kept.data_max_, public[:, 1])


@pytest.mark.parametrize("kw, match", [
    (dict(epsilon=-1.0), "epsilon"), (dict(epsilon=1.0, feature_range=(1, 0)), "feature_range"),
    (dict(epsilon=1.0, feature_range="ab"), "feature_range"), (dict(epsilon=1.0, quantile=0.4), "quantile"),
    (dict(epsilon=1.0, bounds=(1, 0)), "bounds"), (dict(epsilon=1.0, on_unreliable="ignore"), "on_unreliable"),
])
def test_bad_parameters_are_named(kw, match):
    with pytest.raises(ValueError, match=match):
        PrivateMinMaxScaler(**kw).fit(np.zeros((10, 2)))


def test_bad_input_to_transform_is_named():
    X, _ = _blobs(n=5000, d=2, k=3)
    sc = PrivateStandardScaler(1.0, bounds=(0, 2000), bounds_share=0.5, random_state=0)
    with pytest.raises(Exception, match="not fitted"):
        sc.transform(X)
    sc.fit(X)
    with pytest.raises(ValueError, match="X"):
        sc.transform(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="bounds"):
        PrivateStandardScaler(1.0, bounds=[(0, 1)] * 3).fit(X)
    with pytest.raises(ValueError, match="n_share"):
        PrivateStandardScaler(1.0, n_share=0.9).fit(X)


# --------------------------------------------------------------------------- what is not private
def test_passing_the_exact_row_count_as_n_public_warns():
    X, _ = _blobs(n=2000, d=2, k=3)
    with pytest.warns(UserWarning, match="publishes N"):
        DPLloyd(3, 1.0, bounds=(0, 2000), n_public=len(X), random_state=0).fit(X)
    with pytest.warns(UserWarning, match="publishes N"):
        PrivateStandardScaler(1.0, bounds=(0, 2000), n_public=float(len(X)), random_state=0).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DPLloyd(3, 1.0, bounds=(0, 2000), n_public=len(X) + 0.5, random_state=0).fit(X)


# --------------------------------------------------------------------------- audits
D1 = np.linspace(0.1, 0.8, 400)[:, None]  # enough records at epsilon = 1 for the quantile search
D2 = np.vstack([D1, [[1.0]]])  # add one record, at the edge of the public range


def _scaler_mechanism(make, attribute):
    def mech(data, n, rng):
        seeds = rng.integers(0, 2**63 - 1, size=n)
        return np.array([getattr(make(int(s)).fit(data), attribute)[0] for s in seeds])
    return mech


def _exact_minmax(data, n, rng):
    """The broken control: scikit-learn's MinMaxScaler, whose box is the exact maximum of the data."""
    return np.full(n, np.max(data))


AUDITS = {
    "minmax": (lambda s: PrivateMinMaxScaler(1.0, bounds=(0, 1), random_state=s), "data_max_"),
    "minmax-private-box": (lambda s: PrivateMinMaxScaler(1.0, random_state=s), "data_max_"),
    "standard-mean": (lambda s: PrivateStandardScaler(1.0, bounds=(0, 1), n_public=400.5, random_state=s), "mean_"),
    "standard-scale": (lambda s: PrivateStandardScaler(1.0, bounds=(0, 1), n_public=400.5, random_state=s),
                       "scale_"),
}


@pytest.mark.parametrize("name", list(AUDITS))
def test_the_auditor_passes_the_scalers_quick(name):
    """A correct ε-DP release passes (p > 0.01 fails with probability <= 1 % at a fresh seed)."""
    res = audit(_scaler_mechanism(*AUDITS[name]), D1, D2, 1.0, n_samples=600, rng=7)
    assert not res.rejects(0.01), str(res)


def test_the_auditor_catches_the_exact_minmax_scaler():
    res = audit(_exact_minmax, D1, D2, 1.0, n_samples=600, rng=7)
    assert res.rejects(0.01) and res.p_value < 1e-6, str(res)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(AUDITS))
def test_the_auditor_passes_the_scalers(name):
    """The same audits with 3,000 draws per input and batch (p > 0.01 fails with probability <= 1 %)."""
    res = audit(_scaler_mechanism(*AUDITS[name]), D1, D2, 1.0, n_samples=3000, rng=2018)
    print(name, res)
    assert not res.rejects(0.01), str(res)
