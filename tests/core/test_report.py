"""The release card and the private quality estimate (dpclust_core.report)."""
from __future__ import annotations

import math
import pickle

import numpy as np
import pytest

from dpclust_core import PrivacyLedger, advisor, nicv
from dpclust_core.bounds import PrivateBox
from dpclust_core.kmeans import EUGkM, GridSynopsis
from dpclust_core.report import NICVEstimate, release_card, synopsis_nicv


def test_advisor_re_exports_the_same_functions():
    assert advisor.synopsis_nicv is synopsis_nicv and advisor.release_card is release_card


def test_the_estimate_is_never_impossible():
    """Negative noisy counts made the raw ratio negative (-483 here); the estimate is clamped to [0, D^2]."""
    bad = GridSynopsis([-30.0, 1.0, 1.0, 40.0], m=2, d=2, r=1.0, epsilon=1.0)
    est = synopsis_nicv(bad, [[5.0, 5.0]], bounds=(-10, 10))
    assert 0.0 <= est <= 800.0 and 0.0 <= est.low <= est <= est.high <= 800.0
    rng = np.random.default_rng(0)
    for _ in range(200):
        counts = rng.laplace(0, 20, size=27) + rng.integers(0, 3, size=27)
        syn = GridSynopsis(counts, m=3, d=3, r=1.0, epsilon=float(rng.uniform(0.05, 2)))
        C = rng.uniform(-12, 12, size=(int(rng.integers(1, 5)), 3))
        est = synopsis_nicv(syn, C, bounds=(-10, 10))
        if math.isnan(est):
            assert (est.low, est.high) == (0.0, 1200.0)
            continue
        assert 0.0 <= est.low <= est <= est.high <= 1200.0
        assert 0.0 <= est.one_centre <= 1200.0


def test_known_values_and_nan():
    syn = GridSynopsis([10.0, 0.0, 0.0, 10.0], m=2, d=2, r=1.0, epsilon=1.0)
    est = synopsis_nicv(syn, [[-5.0, -5.0], [5.0, 5.0]], bounds=(-10, 10))
    assert float(est) == 0.0 and est.one_centre == 50.0 and est.low == 0.0
    # noise variance 2 sum_c (d2_c - est)^2 / (eps n)^2 = 2 (100^2 + 100^2) / 20^2 = 100 (empty cells count too),
    # then the grid: every point within h = 5 sqrt(2) of its cell centre
    assert est.high == pytest.approx((math.sqrt(0.0 + 2 * 10.0) + 5 * math.sqrt(2)) ** 2)
    assert not est.better_than_one_centre  # the interval reaches the one-centre value
    empty = synopsis_nicv(GridSynopsis([-1.0, 0.0, 0.0, 0.0], m=2, d=2, r=1.0, epsilon=1.0), [[0.0, 0.0]], (0, 1))
    assert math.isnan(empty) and (empty.low, empty.high) == (0.0, 2.0) and not empty.better_than_one_centre
    assert pickle.loads(pickle.dumps(est)).high == est.high


def test_the_interval_holds_the_truth_in_two_dimensions():
    rng = np.random.default_rng(1)
    centres = rng.uniform(-0.6, 0.6, size=(5, 2))
    X = np.clip(centres[rng.integers(0, 5, 20_000)] + 0.05 * rng.normal(size=(20_000, 2)), -1, 1)
    held, ratios = 0, []
    for s in range(10):
        model = EUGkM(5, 1.0, bounds=(-1, 1), random_state=s).fit(X)
        est = synopsis_nicv(model.synopsis_, model.cluster_centers_, (-1, 1))
        true = nicv(X, model.cluster_centers_)
        held += est.low <= true <= est.high
        ratios.append(est / true)
        assert est.better_than_one_centre
    assert held == 10 and 0.7 < np.median(ratios) < 1.3


def test_the_card_warns_about_a_flagged_box_and_an_uninformative_fit():
    led = PrivacyLedger(budget_epsilon=1.0)
    led.record("noisy count", 0.5)
    good = release_card(led, released=["x"])
    assert "WARNING" not in good.index
    flagged = PrivateBox(np.zeros(2), np.ones(2), reliable=False, advice="a public range would help")
    card = release_card(led, box=flagged)
    assert "a public range would help" in card.loc["WARNING", "value"]
    syn = GridSynopsis([10.0, 10.0, 10.0, 10.0], m=2, d=2, r=1.0, epsilon=1.0)
    flat = synopsis_nicv(syn, [[0.0, 0.0], [1.0, 1.0]], (-10, 10))  # uniform data: nothing to find
    card = release_card(led, quality=flat)
    assert "one centre" in card.loc["WARNING", "value"]
    assert card.loc["quality: estimated NICV (private, free)", "value"].startswith(f"{flat:.4g} (interval")
    sharp = NICVEstimate(1.0, 0.5, 2.0, 40.0, 800.0)
    assert "WARNING" not in release_card(led, quality=sharp, box=PrivateBox(np.zeros(2), np.ones(2))).index
    with pytest.raises(TypeError, match="quality"):
        release_card(led, quality=0.5)
