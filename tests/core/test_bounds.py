"""Tests of dpclust_core.bounds.private_bounds: budget, refusal before reading data, coverage and width on
realistic data, robustness to one extreme record, and an audit of the guarantee (Ding et al. 2018) on
neighbouring datasets that differ by one record at 1e6, with broken controls that the auditor must catch.

Audits run at fixed seeds: a correct mechanism's p-value is uniform or larger, so "p > 0.01" fails with
probability <= 1 % per fresh seed; the broken controls give p-values far below 1e-6.
"""
import math
import warnings

import numpy as np
import pytest
from sklearn import datasets as skd

from dpclust_core import PrivacyLedger, audit
from dpclust_core._validation import check_bounds
from dpclust_core.accounting import BudgetExceededError
from dpclust_core.bounds import (LOCATE_SPLIT, _bounds_1d, _cell_counts, _pick_cells, _split_budget, _tail_runs,
                                 private_bounds)
from dpclust_book.datasets import make_s1_like


def gaussian_blobs(n=5000, seed=0):
    rng = np.random.default_rng(seed)
    centers = rng.uniform(-5, 5, size=(4, 2))
    return centers[rng.integers(0, 4, n)] + rng.normal(size=(n, 2))


def coverage_and_width(X, eps, seeds=10, **kw):
    """Mean fraction of the values inside the box (per column) and median width / true range."""
    cov, wid = [], []
    rng0 = X.max(0) - X.min(0)
    for s in range(seeds):
        low, high = private_bounds(X, eps, random_state=s, **kw)
        cov.append(((X >= low) & (X <= high)).mean())
        keep = rng0 > 0
        wid.append(np.median((high - low)[keep] / rng0[keep]))
    return float(np.mean(cov)), float(np.median(wid))


# ------------------------------------------------------------------------------------------- budget
@pytest.mark.parametrize("eps,d,weights", [(1.0, 1, None), (0.1, 3, None), (0.7, 7, None), (2.0, 4, [1, 2, 3, 4]),
                                           (1e-3, 13, None)])
def test_ledger_total_equals_epsilon(eps, d, weights):
    X = np.random.default_rng(0).normal(size=(300, d))
    led = PrivacyLedger()
    low, high = private_bounds(X, eps, weights=weights, random_state=1, ledger=led)
    assert led.epsilon == pytest.approx(eps, rel=1e-12) and led.epsilon <= eps * (1 + 1e-12)
    assert led.delta == 0.0
    assert len(led) == 5 * d
    names = [r["release"] for r in led.rows()]
    assert names[:5] == ["bounds[0]: scale of |x| (EM)", "bounds[0]: median (EM)",
                         "bounds[0]: spread of |x - median| (EM)", "bounds[0]: lower 0.01-quantile (EM)",
                         "bounds[0]: upper 0.99-quantile (EM)"]
    assert {r["group"] for r in led.rows()} == {"private_bounds"}
    if weights is not None:  # column j gets a share proportional to its weight
        per_col = [math.fsum(r["epsilon"] for r in led.rows() if r["release"].startswith(f"bounds[{j}]"))
                   for j in range(d)]
        assert np.allclose(np.array(per_col) / per_col[0], np.array(weights) / weights[0])
    assert low.shape == high.shape == (d,) and np.all(low < high)


def test_default_split_inside_a_column():
    led = PrivacyLedger()
    private_bounds(np.random.default_rng(0).normal(size=(100, 1)), 1.0, random_state=0, ledger=led)
    eps = [r["epsilon"] for r in led.rows()]
    assert eps == pytest.approx([0.25, 0.15, 0.2, 0.2, 0.2], rel=1e-12)
    assert _split_budget(1.0, [1.0] * 3) == [1 / 3, 1 / 3, 1.0 - 2 / 3]


def test_shared_ledger_refuses_before_reading_data():
    bad_X = np.full((20, 2), np.nan)  # reading it would raise a ValueError naming X
    led = PrivacyLedger(budget_epsilon=0.5)
    with pytest.raises(BudgetExceededError):
        private_bounds(bad_X, 1.0, ledger=led, random_state=0)
    assert len(led) == 0
    with pytest.raises(ValueError, match="X"):  # affordable: now the data are checked, nothing is spent
        private_bounds(bad_X, 0.5, ledger=led, random_state=0)
    assert len(led) == 0 and led.epsilon == 0.0
    private_bounds(np.zeros((20, 2)), 0.5, ledger=led, random_state=0)
    assert led.epsilon == pytest.approx(0.5, rel=1e-12)
    with pytest.raises(BudgetExceededError):  # the budget is now spent
        private_bounds(np.zeros((20, 2)), 1e-6, ledger=led, random_state=0)


def test_same_seed_same_box_and_n_is_not_needed():
    X = gaussian_blobs(1000)
    a = private_bounds(X, 1.0, random_state=3)
    b = private_bounds(X, 1.0, random_state=np.random.default_rng(3))
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    # N never enters the computation: a public N (used only to warn about too little data) changes nothing
    c = private_bounds(X, 1.0, n_public=10**6, random_state=3)
    assert np.array_equal(a[0], c[0]) and np.array_equal(a[1], c[1])


# ------------------------------------------------------------------------------------------- utility
@pytest.mark.parametrize("name", ["blobs", "s1"])
@pytest.mark.parametrize("eps", [1.0, 0.1])
def test_coverage_and_width_on_5000_points(name, eps):
    X = gaussian_blobs() if name == "blobs" else make_s1_like(5000, random_state=0)[0]
    cov, width = coverage_and_width(X, eps)
    # measured (20 seeds): blobs 0.993 / 1.21 (eps 1), 0.990 / 1.33 (eps 0.1); S1 0.996 / 1.42, 0.999 / 1.76
    assert cov >= 0.97
    assert 0.8 <= width <= 2.5


def test_coverage_and_width_on_offset_data():
    """Coordinates far from 0 (latitude/longitude-like): the centring step keeps the box tight."""
    X = gaussian_blobs(3300, seed=1) * [2.5, 6.0] + [38.0, -95.0]
    cov, width = coverage_and_width(X, 1.0)
    assert cov >= 0.97 and width <= 2.0  # measured 0.994 / 1.15


@pytest.mark.parametrize("loader", [skd.load_iris, skd.load_wine, skd.load_breast_cancer, skd.load_digits,
                                    skd.load_diabetes])
def test_bundled_sets_at_a_large_epsilon(loader):
    """150-1,800 records over 4-64 columns: eps * N / d is 4-40 at eps = 1, too little to locate a column
    (measured per-column coverage 0.26-0.77 at eps = 1, 0.10-0.15 at eps = 0.1); at eps = 10 it works."""
    X = loader().data
    cov, width = coverage_and_width(X, 10.0, seeds=4)
    assert cov >= 0.95  # measured 0.97-0.99
    assert width <= 3.0  # measured 0.9-2.2


def test_mostly_zero_and_constant_and_extreme_columns():
    rng = np.random.default_rng(0)
    n = 4000
    sparse = np.where(rng.random(n) < 0.8, 0.0, rng.uniform(1, 16, n))  # 80 % zeros
    X = np.column_stack([sparse, np.zeros(n), np.full(n, 7.0), rng.normal(1e300, 1e299, n),
                         rng.normal(0, 1e-200, n)])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high = private_bounds(X, 5.0, random_state=0)
    assert np.all(np.isfinite(low)) and np.all(np.isfinite(high)) and np.all(low < high)
    check_bounds((low, high), 5)  # usable as public bounds
    inside = ((X >= low) & (X <= high)).mean(axis=0)
    # the zeros do not hide the non-zero values' scale (which would leave only the zeros, 0.8, inside);
    # measured 0.91-0.98 over seeds, 0.948 on average
    assert inside[0] >= 0.9
    assert inside[1] == 1.0 and inside[2] == 1.0
    assert inside[4] >= 0.95
    # beyond the public range 2^-64..2^64 the guarantee holds but the box cannot reach the data
    assert high[3] < 1e300


# ------------------------------------------------------------------------------------------- robustness
def test_one_record_at_1e6_does_not_drag_the_box():
    """Over 40 seeds, the boxes of X + one record at 1e6 are distributed like those of X + one typical record:
    the outlier moves each count by one, like any record (the random draws differ between inputs, so boxes are
    compared as distributions, not seed by seed)."""
    X = gaussian_blobs()
    span = X.max(0) - X.min(0)

    def boxes(data):
        out = np.array([np.concatenate(private_bounds(data, 1.0, random_state=s)) for s in range(40)])
        return out[:, :2], out[:, 2:]

    low0, high0 = boxes(np.vstack([X, X.mean(0)]))
    for outlier in ([1e6, 1e6], [-1e6, 1e6]):
        low1, high1 = boxes(np.vstack([X, outlier]))
        assert np.all(high1 < X.max(0) + span) and np.all(low1 > X.min(0) - span)  # never near 1e6
        mean0 = np.mean(high0 - low0, axis=0)  # measured about 16.5 in both columns, with or without the outlier
        mean1 = np.mean(high1 - low1, axis=0)
        assert np.all(mean1 <= 1.2 * mean0) and np.all(mean1 >= mean0 / 1.2)
        assert np.all(np.abs(np.mean(high1, 0) - np.mean(high0, 0)) <= 0.15 * span)
    # for contrast: the min/max box that practitioners read off the data is dragged to 1e6
    assert np.vstack([X, [1e6, 1e6]]).max(0).min() == 1e6


# ------------------------------------------------------------------------------------------- audits
D1 = np.random.default_rng(0).normal(0.0, 1.0, 200)  # one private column of 200 records near 0
D2 = np.append(D1, 1e6)  # its neighbour: the same plus one record at 1e6


def one_column(eps, which="high", read_max=False):
    """The full five-step mechanism on one column, ``n`` independent draws at once (the same code path as
    ``private_bounds``, with ``size=n``); ``read_max`` is a broken control that releases max(x) as ``high``."""
    steps = _split_budget(eps, [0.6 * f for f in LOCATE_SPLIT] + [0.2, 0.2])
    index = {"low": 3, "high": 4}[which]

    def mech(x, n, rng):
        out = _bounds_1d(x, steps, 0.99, -64, 64, rng, size=n)[index]
        return np.full(n, x.max()) if read_max else out
    return mech


def upper_edge_step(eps, noise_factor=1.0, W=8.0):
    """The upper-edge selection alone (centre 0, window [-W, W]); noise_factor 0.5 = half the noise."""
    def mech(x, n, rng):
        runs = _tail_runs(_cell_counts(x, W), x.size, 0.99, upper=True)
        return _pick_cells(runs, 0.99, eps / noise_factor, rng, n, None, "upper")
    return mech


@pytest.mark.parametrize("which", ["high", "low"])
def test_audit_full_mechanism_passes(which):
    res = audit(one_column(2.0, which), D1, D2, 2.0, n_samples=20_000, rng=1)
    assert not res.rejects(0.01), str(res)  # measured p = 1.0 for both
    assert res.epsilon_lower_bound < 2.0


def test_audit_catches_reading_the_max():
    res = audit(one_column(2.0, read_max=True), D1, D2, 2.0, n_samples=20_000, rng=1)
    assert res.rejects(1e-6) and res.epsilon_lower_bound > 5.0, str(res)


def test_audit_edge_step_passes_and_half_noise_is_caught():
    """The upper-edge exponential mechanism realises nearly its whole epsilon on this pair (the record at 1e6
    lowers every candidate below the quantile and raises those above it), so half the noise is caught."""
    good = audit(upper_edge_step(1.0), D1, D2, 1.0, n_samples=100_000, rng=1)
    bad = audit(upper_edge_step(1.0, noise_factor=0.5), D1, D2, 1.0, n_samples=100_000, rng=1)
    assert not good.rejects(0.01), str(good)  # measured p = 0.995, empirical eps >= 0.84
    assert bad.rejects(1e-6) and bad.epsilon_lower_bound > 1.2, str(bad)  # measured p = 1e-233, eps >= 1.77


# ------------------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("value", [(0, 0), (5, -5), (-2000, 10), (0, 1001), (1.5, 10), ("a", 3), "ab", 3, (1, 2, 3),
                                   None, (True, 10)])
def test_bad_log2_range(value):
    with pytest.raises(ValueError, match="log2_range"):
        private_bounds(np.zeros((10, 2)), 1.0, log2_range=value)


@pytest.mark.parametrize("value", [[1.0], [1.0, 0.0], [1.0, -1.0], [[1.0, 1.0]], []])
def test_bad_weights(value):
    with pytest.raises(ValueError, match="weights"):
        private_bounds(np.zeros((10, 2)), 1.0, weights=value)


def test_narrow_log2_range_is_accepted():
    X = gaussian_blobs(2000)
    low, high = private_bounds(X, 1.0, log2_range=(-8, 8), random_state=0)
    assert np.all(low < X.mean(0)) and np.all(high > X.mean(0))


def test_extreme_weights_still_spend_epsilon():
    led = PrivacyLedger()
    low, high = private_bounds(np.random.default_rng(0).normal(size=(500, 2)), 1.0, weights=[1.0, 1e-20],
                               random_state=0, ledger=led)
    assert led.epsilon == pytest.approx(1.0, rel=1e-12) and np.all(low < high)


def test_too_little_data_for_the_budget_is_flagged_from_a_public_n():
    """178 wine records, epsilon 0.2 over 2 columns: epsilon N / d = 17.8, far too little to locate the columns
    (the box comes out absurd). With the public or noisy N given, the function warns before computing."""
    import warnings

    from sklearn.datasets import load_wine

    X = load_wine().data[:, [0, 9]]
    with pytest.warns(UserWarning, match="too few records"):
        private_bounds(X, 0.2, n_public=178, random_state=0)
    X2 = np.random.default_rng(0).normal(size=(5000, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        private_bounds(X2, 1.0, n_public=5000, random_state=0)  # 2,500 per column: no warning
    with pytest.raises((ValueError, TypeError), match="n_public"):
        private_bounds(X2, 1.0, n_public=-1)
