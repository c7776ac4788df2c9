"""One noisy count for everyone: ``private_count`` and the ``n_public=`` of every estimator and function."""
import inspect

import numpy as np
import pytest

import dpclust_core
from dpclust_core import PrivacyLedger, private_count
from dpclust_core._validation import BadTypeError
from dpclust_core.audit import audit
from dpclust_core.kmeans import DPLloyd, EUGkM, GkM, HybridKMeans, LSHCoresetKMeans, MkM, PGkM, UGkM, choose_k
from dpclust_core.ktuple import private_average, private_average_1d
from dpclust_core.wavecluster import PrivateWaveCluster, adaptive_grid_synthetic


def test_private_count_is_one_ledger_entry_and_never_below_one():
    led = PrivacyLedger(budget_epsilon=1.0)
    n = private_count(np.zeros((200, 3)), 0.25, random_state=0, ledger=led)
    assert isinstance(n, float) and n >= 1.0
    assert led.epsilon == 0.25 and [e.name for e in led.entries] == ["N (noisy count)"]
    # at a tiny budget the raw noisy count of 3 records is negative half of the time: always clamped to 1
    draws = [private_count(np.zeros((3, 1)), 0.01, random_state=s) for s in range(200)]
    assert min(draws) == 1.0 and sum(d == 1.0 for d in draws) > 60
    assert private_count(np.zeros((0, 2)), 1.0, random_state=0) >= 1.0  # no rows is counted, not refused


def test_private_count_refuses_before_reading_the_data():
    led = PrivacyLedger(budget_epsilon=0.1)
    with pytest.raises(dpclust_core.BudgetExceededError):
        private_count("not even data", 0.5, ledger=led)  # the budget is asked first
    assert led.epsilon == 0.0
    with pytest.raises(ValueError, match="epsilon"):
        private_count(np.zeros((5, 2)), -1.0)
    with pytest.raises(ValueError, match="X"):
        private_count(np.array([[np.nan, 1.0]]), 1.0)


def test_private_count_on_the_grid():
    """The release is an integer multiple of a power of two fixed by epsilon alone (Mironov-safe)."""
    vals = np.array([private_count(np.zeros((n, 1)), 0.7, random_state=s) for s in range(50) for n in (10, 11)])
    gamma = 2.0 ** -11  # laplace_grid(1, 1): sensitivity 1 / (2^10 * 2)
    assert np.all(np.mod(vals, gamma) == 0.0)


def test_private_count_passes_the_audit():
    """Ding et al.'s test on 2 vs 3 records (where the clamp at 1 is active): no violation at the stated
    epsilon at the 1 % level; the same count with the noise of epsilon = 2, claimed as 1, is caught."""
    def counts(eps):
        return lambda data, n, rng: np.array([private_count(np.zeros((data, 1)), eps, random_state=rng)
                                              for _ in range(n)])

    assert not audit(counts(1.0), 2, 3, 1.0, n_samples=4_000, rng=0).rejects(0.01)
    assert audit(counts(3.0), 2, 3, 1.0, n_samples=4_000, rng=0).rejects(0.01)


N_PUBLIC_ESTIMATORS = [
    lambda n: DPLloyd(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: EUGkM(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: UGkM(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: MkM(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: HybridKMeans(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: GkM(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: PGkM(3, 1.0, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: LSHCoresetKMeans(3, 1.0, 1e-6, bounds=(-1, 1), n_public=n, random_state=0),
    lambda n: PrivateWaveCluster(1.0, bounds=(-1, 1), grid_size=8, p=50, method="baseline", n_public=n,
                               random_state=0),
]


@pytest.mark.parametrize("make", N_PUBLIC_ESTIMATORS)
def test_every_estimator_takes_the_noisy_count_as_it_comes(make):
    """The recipe "buy N once, pass it on" works everywhere: a float noisy count and an int alike; a count
    below 1 is refused naming n_public and pointing at private_count."""
    X = np.random.default_rng(0).uniform(-1, 1, size=(600, 2))
    n = private_count(X, 0.05, random_state=1)
    assert make(n).fit(X).ledger_.epsilon == pytest.approx(1.0, abs=1e-12)
    make(600).fit(X)
    for bad in (-67.98, 0.5, float("nan")):
        with pytest.raises(ValueError, match="n_public.*private_count"):
            make(bad).fit(X)
    with pytest.raises(BadTypeError, match="n_public"):
        make("600").fit(X)


def test_functions_take_the_noisy_count_as_it_comes():
    X = np.random.default_rng(0).uniform(-1, 1, size=(600, 2))
    n = private_count(X, 0.05, random_state=1)
    choose_k(X, 1.0, range(2, 4), bounds=(-1, 1), n_public=n, random_state=0)
    private_average(X, 1.0, 1e-6, radius=2.0, n_public=n, rng=0)
    private_average_1d(X[:, 0], 1.0, 1e-6, -1, 1, 1e-3, n_public=n, rng=0)
    adaptive_grid_synthetic(X, (-1, 1), 1.0, n_public=n, rng=0)
    with pytest.raises(ValueError, match="n_public"):
        private_average(X, 1.0, 1e-6, radius=2.0, n_public=0.2, rng=0)


def test_every_n_public_is_documented_alike():
    """No docstring calls n_public an int any more (the noisy count is a float)."""
    import pkgutil, importlib

    for mod in pkgutil.walk_packages(dpclust_core.__path__, "dpclust_core."):
        if ".experiments" in mod.name or ".plots" in mod.name or mod.name.endswith("widgets"):
            continue
        m = importlib.import_module(mod.name)
        for _, obj in inspect.getmembers(m):
            doc = inspect.getdoc(obj) or ""
            assert "n_public : int" not in doc, f"{mod.name}.{getattr(obj, '__name__', obj)}"


def test_dataframe_column_names_are_kept_and_checked():
    """``feature_names_in_`` for a DataFrame (the schema is public), refused mismatched columns at predict."""
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.uniform(-1, 1, size=(400, 2)), columns=["lon", "lat"])
    est = EUGkM(3, 1.0, bounds=(-1, 1), random_state=0).fit(df)
    assert list(est.feature_names_in_) == ["lon", "lat"]
    assert est.predict(df).shape == (400,)
    with pytest.raises(ValueError, match="columns"):
        est.predict(df.rename(columns={"lat": "latitude"}))
    est.fit(df.to_numpy())  # refitted on an array: the names are gone
    assert not hasattr(est, "feature_names_in_")
    ok = pd.DataFrame(rng.uniform(-1, 1, size=(400, 2)), columns=[0, 1])  # not all strings: no names
    assert not hasattr(DPLloyd(3, 1.0, bounds=(-1, 1), random_state=0).fit(ok), "feature_names_in_")
