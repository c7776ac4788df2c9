"""The advisor's recommendation: which methods need δ, only what the ledger can pay for, and the fitted rule
against rows of the real-data benchmark (benchmarks/bench_realdata.py, benchmarks/results/realdata.md)."""
import inspect

import numpy as np
import pytest

from dpclust_core import BudgetExceededError, PrivacyLedger
from dpclust_core.advisor import (HIGH_DIMENSION, LOW_DIMENSION, LOW_SIGNAL, LSH_MIN_SIGNAL, LSH_MIN_SIGNAL_LOW_D,
                                  NEEDS_DELTA, recommend)
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, LSHCoresetKMeans

CLASSES = {"DPLloyd-Impr": DPLloyd, "EUGkM": EUGkM, "Hybrid": HybridKMeans, "LSHCoresetKMeans": LSHCoresetKMeans}
#: Public inputs spanning tiny to huge N·ε, low to high dimension.
GRID = [(n, d, k, e) for n in (150, 3_000, 20_000, 10**6) for d in (1, 2, 3, 7, 11, 30, 100) for k in (2, 10)
        for e in (0.1, 1.0, 5.0)]


def lsh_threshold(d):
    """The N·ε/k from which the rule picks the LSH coreset (δ > 0), as its docstring states."""
    return 0 if d > HIGH_DIMENSION else LSH_MIN_SIGNAL if d > LOW_DIMENSION else LSH_MIN_SIGNAL_LOW_D


# ============================================================================================ which methods need δ
def test_needs_delta_names_every_method_and_matches_the_estimators():
    assert set(NEEDS_DELTA) == set(CLASSES)
    for method, cls in CLASSES.items():
        assert ("delta" in inspect.signature(cls).parameters) == NEEDS_DELTA[method], method
    assert [m for m, v in NEEDS_DELTA.items() if v] == ["LSHCoresetKMeans"]


@pytest.mark.parametrize("n, d, k, eps", GRID)
def test_delta_free_never_gets_a_method_that_needs_delta(n, d, k, eps):
    for rec in (recommend(n, d, k, eps), recommend(n, d, k, eps, delta=0.0)):
        assert rec.method != "LSHCoresetKMeans" and not rec.needs_delta and rec.delta == 0.0
        assert rec.estimator is CLASSES[rec.method]
        assert "needs δ > 0 and this fit has none" in rec.reason


@pytest.mark.parametrize("n, d, k, eps", GRID)
def test_with_delta_the_lsh_coreset_exactly_from_the_threshold(n, d, k, eps):
    rec = recommend(n, d, k, eps, delta=1e-6)
    assert (rec.method == "LSHCoresetKMeans") == (n * eps / k >= lsh_threshold(d))
    assert rec.needs_delta == (rec.method == "LSHCoresetKMeans")
    assert rec.delta == (1e-6 if rec.needs_delta else 0.0)
    if not rec.needs_delta:  # the pure ε-DP part of the rule does not depend on δ
        assert rec.method == recommend(n, d, k, eps).method


@pytest.mark.parametrize("n, d, k, eps", GRID)
def test_no_grid_method_in_high_dimension(n, d, k, eps):
    if d > HIGH_DIMENSION:
        for rec, method in ((recommend(n, d, k, eps), "DPLloyd-Impr"),
                            (recommend(n, d, k, eps, delta=1e-6), "LSHCoresetKMeans")):
            assert rec.method == method
            assert ("no method did much better" in rec.reason) == (n * eps / k < LOW_SIGNAL)


@pytest.mark.parametrize("d, threshold", [(1, LSH_MIN_SIGNAL_LOW_D), (LOW_DIMENSION, LSH_MIN_SIGNAL_LOW_D),
                                          (LOW_DIMENSION + 1, LSH_MIN_SIGNAL), (HIGH_DIMENSION, LSH_MIN_SIGNAL)])
def test_threshold_edge(d, threshold):
    k = 4  # N·ε/k exactly at the threshold, and just below
    assert recommend(threshold * k, d, k, 1.0, delta=1e-6).method == "LSHCoresetKMeans"
    assert recommend(threshold * k - 1, d, k, 1.0, delta=1e-6).method != "LSHCoresetKMeans"


def test_above_high_dimension_the_lsh_coreset_at_any_signal():
    assert recommend(1, HIGH_DIMENSION + 1, 10, 0.01, delta=1e-6).method == "LSHCoresetKMeans"  # N·ε/k = 0.001
    rec = recommend(LOW_SIGNAL * 4 - 1, HIGH_DIMENSION + 1, 4, 1.0, delta=1e-6)
    assert "no method did much better" in rec.reason
    assert "no method did much better" not in recommend(LOW_SIGNAL * 4, HIGH_DIMENSION + 1, 4, 1.0).reason


# ============================================================================================ the ledger rule
def test_delta_free_ledger_is_never_told_to_use_lsh():
    led = PrivacyLedger(budget_epsilon=5.0)  # budget_delta = 0
    for n, d, k, eps in GRID:
        rec = recommend(n, d, k, eps, ledger=led)
        assert rec.method != "LSHCoresetKMeans" and rec.delta == 0.0
    with pytest.raises(BudgetExceededError, match="delta = 1e-06 but the ledger has δ = 0 left"):
        recommend(10**6, 7, 5, 1.0, delta=1e-6, ledger=led)
    assert len(led) == 0  # nothing spent


def test_ledger_with_delta_budget_lends_its_delta_until_spent():
    led = PrivacyLedger(budget_epsilon=2.0, budget_delta=1e-6)
    rec = recommend(10**6, 7, 5, 1.0, ledger=led)
    assert rec.method == "LSHCoresetKMeans" and rec.delta == 1e-6
    led.record("an earlier (ε, δ) release", 0.5, 1e-6)
    rec = recommend(10**6, 7, 5, 1.0, ledger=led)
    assert rec.method != "LSHCoresetKMeans" and rec.delta == 0.0


def test_uncapped_ledger_follows_the_delta_argument():
    led = PrivacyLedger()
    assert recommend(10**6, 7, 5, 1.0, ledger=led).method != "LSHCoresetKMeans"
    assert recommend(10**6, 7, 5, 1.0, delta=1e-6, ledger=led).method == "LSHCoresetKMeans"


def test_too_little_epsilon_left_is_a_clear_refusal():
    led = PrivacyLedger(budget_epsilon=1.0)
    led.record("noisy count and box", 0.8)
    with pytest.raises(BudgetExceededError, match=r"ε = 0\.2 left .* epsilon = 0\.5; pass an epsilon of at most 0\.2"):
        recommend(5000, 2, 3, 0.5, ledger=led)
    assert len(led) == 1
    assert recommend(5000, 2, 3, 0.2, ledger=led).method == "EUGkM"  # what is left is affordable


def test_spent_ledger_refuses():
    led = PrivacyLedger(budget_epsilon=1.0)
    led.record("everything", 1.0)
    with pytest.raises(BudgetExceededError, match="ε = 0 left"):
        recommend(5000, 2, 3, 0.1, ledger=led)


@pytest.mark.parametrize("budget_delta, n", [(0.0, 2_000), (1e-6, 20_000)])
def test_the_recommended_fit_spends_what_the_ledger_allows(budget_delta, n):
    rng = np.random.default_rng(0)
    X = np.clip(rng.normal(0, 0.3, size=(n, 3)), -1, 1)
    led = PrivacyLedger(budget_epsilon=1.0, budget_delta=budget_delta)
    rec = recommend(n, 3, 3, 1.0, ledger=led)
    assert rec.needs_delta == (budget_delta > 0)
    args = (3, 1.0, rec.delta) if rec.needs_delta else (3, 1.0)
    rec.estimator(*args, bounds=(-1, 1), n_public=n, random_state=0, ledger=led).fit(X)
    eps, delta = led.total()
    assert abs(eps - 1.0) < 1e-12 and abs(delta - budget_delta) < 1e-18


@pytest.mark.parametrize("kwargs, exc, word", [
    (dict(delta="x"), TypeError, "delta"), (dict(delta=-0.1), ValueError, "delta"),
    (dict(delta=1.0), ValueError, "delta"), (dict(ledger="x"), TypeError, "ledger")])
def test_bad_delta_or_ledger(kwargs, exc, word):
    with pytest.raises(exc, match=word):
        recommend(1000, 2, 3, 1.0, **kwargs)


# ============================================================================================ the fitted rule
#: Rows of the real-data benchmark (benchmarks/results/realdata.md): data set, N, d, k, ε and the median loss
#: (k-means cost over the best of 10 non-private k-means++ runs) of DPLloyd-Impr, EUGkM, the hybrid and the LSH
#: coreset (δ = 1e-6, measured with its zCDP accounting).
BENCHMARK_ROWS = [
    ("iris", 150, 4, 3, 0.5, 3.864, 1.773, 1.773, 4.166),
    ("iris", 150, 4, 3, 1, 2.250, 1.742, 1.742, 2.444),
    ("wine", 178, 13, 3, 0.5, 4.310, 2.426, 2.426, 3.203),
    ("wine", 178, 13, 3, 1, 2.680, 2.426, 2.426, 2.353),
    ("faithful", 272, 2, 2, 0.5, 1.180, 1.025, 1.025, 2.409),
    ("faithful", 272, 2, 2, 1, 1.052, 1.005, 1.005, 1.131),
    ("cars", 392, 6, 3, 0.5, 2.254, 1.556, 1.556, 3.275),
    ("cars", 392, 6, 3, 1, 1.755, 1.557, 1.557, 1.579),
    ("diabetes", 442, 10, 4, 0.5, 2.197, 1.540, 1.540, 1.747),
    ("diabetes", 442, 10, 4, 1, 1.673, 1.328, 1.328, 1.462),
    ("breast_cancer", 569, 30, 2, 0.5, 3.606, 10.725, 10.725, 2.419),
    ("breast_cancer", 569, 30, 2, 1, 2.140, 10.725, 10.725, 1.553),
    ("seattle-weather", 1461, 4, 5, 0.5, 1.770, 1.751, 1.751, 1.385),
    ("seattle-weather", 1461, 4, 5, 1, 1.539, 1.521, 1.521, 1.107),
    ("digits", 1797, 61, 10, 0.5, 3.137, 50.932, 50.932, 1.878),
    ("digits", 1797, 61, 10, 1, 2.106, 50.932, 50.932, 1.550),
    ("airports", 3376, 2, 5, 0.5, 2.263, 1.535, 1.535, 1.894),
    ("airports", 3376, 2, 5, 1, 2.077, 1.456, 1.456, 1.871),
    ("msq", 3395, 76, 5, 0.5, 1.575, 4.380, 4.380, 1.170),
    ("msq", 3395, 76, 5, 1, 1.395, 4.380, 1.298, 1.069),
    ("Car", 4654, 55, 4, 0.5, 1.299, 2.409, 1.203, 1.101),
    ("Car", 4654, 55, 4, 1, 1.182, 2.409, 1.154, 1.052),
    ("rwm5yr", 19609, 17, 4, 0.5, 1.203, 9.973, 1.153, 1.100),
    ("rwm5yr", 19609, 17, 4, 1, 1.185, 12.953, 1.088, 1.092),
    ("DoctorContacts", 20186, 9, 4, 0.5, 1.065, 1.931, 1.042, 1.042),
    ("DoctorContacts", 20186, 9, 4, 1, 1.064, 1.461, 1.042, 1.039),
    ("BudgetFood", 23972, 5, 4, 0.5, 1.238, 1.227, 1.097, 1.036),
    ("BudgetFood", 23972, 5, 4, 1, 1.185, 1.180, 1.102, 1.039),
    ("diamonds", 53940, 7, 5, 0.5, 1.443, 3.624, 1.471, 1.038),
    ("diamonds", 53940, 7, 5, 1, 1.381, 3.831, 1.371, 1.031),
    ("movies", 58788, 21, 5, 0.5, 1.131, 147.062, 1.272, 1.055),
    ("movies", 58788, 21, 5, 1, 1.119, 147.062, 1.267, 1.043),
    ("mhtdata", 100000, 6, 5, 0.5, 1.151, 1.069, 1.003, 1.003),
    ("mhtdata", 100000, 6, 5, 1, 1.153, 1.062, 1.026, 1.007),
]
#: Where the benchmark found the pick more than 15 % behind the best method (N·ε/k = 30: every method there
#: was worse than one centre at the mean; the LSH coreset 1.32 times EUGkM's loss, DPLloyd-Impr 1.78 times).
KNOWN_MISSES = {("wine", 0.5)}


def _hit(pick, losses, allowed):
    best = min(v for m, v in losses.items() if m in allowed)
    return losses[pick] <= 1.15 * best


@pytest.mark.parametrize("row", BENCHMARK_ROWS, ids=lambda r: f"{r[0]}-{r[4]}")
def test_pick_within_15_percent_of_the_best_measured(row):
    name, n, d, k, eps, *losses = row
    losses = dict(zip(CLASSES, losses))
    with_delta = recommend(n, d, k, eps, delta=1e-6).method
    delta_free = recommend(n, d, k, eps).method
    expected = (name, eps) not in KNOWN_MISSES
    assert _hit(with_delta, losses, CLASSES) == expected
    assert _hit(delta_free, losses, [m for m in CLASSES if not NEEDS_DELTA[m]]) == expected


def test_benchmark_rows_cover_the_stated_range():
    ns = [r[1] for r in BENCHMARK_ROWS]
    ds = [r[2] for r in BENCHMARK_ROWS]
    assert len({r[0] for r in BENCHMARK_ROWS}) >= 8 and min(ns) == 150 and max(ns) == 100_000
    assert min(ds) == 2 and max(ds) >= 64
