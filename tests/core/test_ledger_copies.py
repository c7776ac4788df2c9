"""A shared ledger is shared: every copy of an estimator, every thread and every model-selection tool charges it.

scikit-learn copies estimators all the time (``clone`` deep-copies every parameter): before a ledger refused to be
copied, ``clone(est).fit(X)`` charged a private copy of ``ledger=`` and the shared budget never saw the fit. A fit
that runs in another process (joblib's worker processes, ``n_jobs > 1``) can never charge the budget it came
from, so it must refuse rather than lose the charge.
"""
import copy
import pickle
import threading
import warnings
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from joblib import parallel_config
from sklearn.base import clone
from sklearn.exceptions import FitFailedWarning
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_val_score, cross_validate

from dpclust_core import BudgetExceededError, DetachedLedgerError, PrivacyLedger, laplace_mechanism
from dpclust_core.kmeans import DPLloyd

X = np.random.default_rng(0).uniform(-1, 1, size=(400, 2))
POISONED = np.full_like(X, np.nan)  # reading it raises a ValueError about NaN: a refusal must come first


def lloyd(epsilon, ledger, seed=0, **kw):
    return DPLloyd(3, epsilon, bounds=(-1, 1), random_state=seed, ledger=ledger, **kw)


@pytest.fixture
def reads(monkeypatch):
    """Counts the fits that read their data (``_validate_data`` is the first look at X)."""
    count = {"n": 0}
    original = DPLloyd._validate_data

    def counting(self, X, reset=True):
        count["n"] += 1
        return original(self, X, reset)

    monkeypatch.setattr(DPLloyd, "_validate_data", counting)
    return count


def fit_groups(ledger):
    return [e.group for e in ledger.entries]


def assert_exact(ledger, n_fits, eps_fit):
    """The shared ledger holds exactly ``n_fits`` fits of ``eps_fit`` each, and no reservation is left."""
    assert ledger.epsilon == pytest.approx(n_fits * eps_fit, rel=1e-12)
    assert not any(e.name.startswith("(reserved)") for e in ledger.entries)


# ======================================================================================= copies in one process
def test_the_issue_reproduction_clone_twice():
    """``clone(est).fit(X); clone(est).fit(X)`` under a budget of 1 with ε = 0.6 left the ledger at 0.0."""
    L = PrivacyLedger(budget_epsilon=1.0)
    est = lloyd(0.6, L)
    clone(est).fit(X)
    with pytest.raises(BudgetExceededError):
        clone(est).fit(POISONED)  # refused before the data are read
    assert_exact(L, 1, 0.6)


@pytest.mark.parametrize("how", ["clone", "deepcopy", "copy", "get_params", "set_params", "pickle-free deepcopy of a dict"])
def test_every_copy_of_an_estimator_shares_the_ledger(how):
    L = PrivacyLedger(budget_epsilon=1.0)
    est = lloyd(0.4, L)
    twin = {
        "clone": lambda: clone(est),
        "deepcopy": lambda: copy.deepcopy(est),
        "copy": lambda: copy.copy(est),
        "get_params": lambda: DPLloyd(**est.get_params()),
        "set_params": lambda: lloyd(0.4, None).set_params(**est.get_params()),
        "pickle-free deepcopy of a dict": lambda: copy.deepcopy({"e": est})["e"],
    }[how]()
    assert twin.ledger is L
    twin.fit(X)
    clone(twin).fit(X)
    assert_exact(L, 2, 0.4)
    with pytest.raises(BudgetExceededError):
        clone(twin).fit(POISONED)
    assert_exact(L, 2, 0.4)


def test_a_ledger_is_never_copied():
    L = PrivacyLedger(budget_epsilon=1.0)
    assert copy.copy(L) is L and copy.deepcopy(L) is L
    assert copy.deepcopy([L, {"x": L}])[1]["x"] is L
    free = PrivacyLedger()  # without a budget too: it is the one complete record
    assert copy.deepcopy(free) is free


def test_a_fitted_copy_keeps_its_own_receipt():
    L = PrivacyLedger(budget_epsilon=2.0)
    a = lloyd(0.5, L).fit(X)
    b = clone(a).fit(X)
    assert a.ledger_ is not b.ledger_  # each fit has its own ledger_, both charged to L
    assert a.ledger_.epsilon == pytest.approx(0.5, rel=1e-12) and b.ledger_.epsilon == pytest.approx(0.5, rel=1e-12)
    assert_exact(L, 2, 0.5)
    assert fit_groups(L).count("DPLloyd.fit") == len(a.ledger_) + len(b.ledger_)


# ======================================================================================= model selection, n_jobs=1
def test_cross_val_score_charges_fit_by_fit(reads):
    """Five folds of 0.3 under a budget of 1: three fits run, two are refused before reading their fold."""
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.warns(FitFailedWarning, match="BudgetExceededError"):
        scores = cross_val_score(lloyd(0.3, L), X, cv=5)
    assert np.isfinite(scores).sum() == 3 and np.isnan(scores).sum() == 2
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)


def test_cross_val_score_error_score_raise(reads):
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(BudgetExceededError, match="budget 1"):
        cross_val_score(lloyd(0.3, L), X, cv=5, error_score="raise")
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)


def test_cross_validate_charges_fit_by_fit(reads):
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.warns(FitFailedWarning):
        res = cross_validate(lloyd(0.3, L), X, cv=5)
    assert np.isnan(res["test_score"]).sum() == 2
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_grid_search_charges_every_fit_and_the_refit(reads):
    """2 candidates x 2 folds of 0.3 under 1: three fits run, the fourth is refused, and so is the refit."""
    L = PrivacyLedger(budget_epsilon=1.0)
    search = GridSearchCV(lloyd(0.3, L), {"n_clusters": [2, 3]}, cv=2)
    with pytest.warns(FitFailedWarning), pytest.raises(BudgetExceededError):
        search.fit(X)  # the refit of the best candidate is one more fit
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)
    L2 = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(BudgetExceededError):
        GridSearchCV(lloyd(0.3, L2), {"n_clusters": [2, 3]}, cv=2, error_score="raise").fit(X)
    assert_exact(L2, 3, 0.3)


def test_grid_search_within_budget_spends_exactly_the_budget():
    """4 fits + the refit, 0.2 each: exactly the budget of 1, nothing refused."""
    L = PrivacyLedger(budget_epsilon=1.0)
    search = GridSearchCV(lloyd(0.2, L), {"n_clusters": [2, 3]}, cv=2, error_score="raise").fit(X)
    assert search.best_estimator_.ledger is L
    assert_exact(L, 5, 0.2)
    with pytest.raises(BudgetExceededError):
        clone(search.best_estimator_).fit(POISONED)


@pytest.mark.filterwarnings("ignore:One or more of the test scores are non-finite")
def test_randomized_search_charges_fit_by_fit(reads):
    L = PrivacyLedger(budget_epsilon=1.0)
    search = RandomizedSearchCV(lloyd(0.3, L), {"n_clusters": [2, 3]}, n_iter=2, cv=2, refit=False,
                                random_state=0)
    with pytest.warns(FitFailedWarning):
        search.fit(X)
    assert np.isnan(search.cv_results_["split1_test_score"]).sum() + \
        np.isnan(search.cv_results_["split0_test_score"]).sum() == 1
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)


# ======================================================================================= threads
def test_concurrent_fits_in_threads_cannot_overspend(monkeypatch):
    """Five fits of 0.3 under a budget of 1 start together: exactly three read the data, total exactly 0.9.

    Every fit that passed the budget check waits before reading its data until all five have either arrived
    there or been refused, so all five checks happen before any fit finishes (the schedule where a check that
    is not atomic with the charge lets all five through)."""
    L = PrivacyLedger(budget_epsilon=1.0)
    cond = threading.Condition()
    state = {"settled": 0, "read": 0}
    original = DPLloyd._validate_data

    def settled():
        with cond:
            state["settled"] += 1
            cond.notify_all()

    def reading(self, X, reset=True):
        with cond:
            state["read"] += 1
        settled()
        with cond:
            cond.wait_for(lambda: state["settled"] >= 5, timeout=60)  # a guard against a hang, not a timing
        return original(self, X, reset)

    monkeypatch.setattr(DPLloyd, "_validate_data", reading)

    def one_fit(seed):
        est = lloyd(0.3, L, seed)
        try:
            est.fit(X)
        except BudgetExceededError:
            settled()
        return est

    with ThreadPoolExecutor(5) as pool:
        fits = list(pool.map(one_fit, range(5)))
    assert state["read"] == 3
    assert sum(hasattr(e, "cluster_centers_") for e in fits) == 3  # the refused ones released nothing
    assert_exact(L, 3, 0.3)


def test_joblib_threading_backend_charges_the_shared_ledger(reads):
    L = PrivacyLedger(budget_epsilon=1.0)
    with parallel_config(backend="threading"), pytest.warns(FitFailedWarning):
        scores = cross_val_score(lloyd(0.3, L), X, cv=5, n_jobs=5)
    assert np.isfinite(scores).sum() == 3
    assert reads["n"] == 3
    assert_exact(L, 3, 0.3)


def test_threaded_grid_search_within_budget():
    L = PrivacyLedger(budget_epsilon=1.0)
    with parallel_config(backend="threading"):
        GridSearchCV(lloyd(0.2, L), {"n_clusters": [2, 3]}, cv=2, n_jobs=4, error_score="raise").fit(X)
    assert_exact(L, 5, 0.2)


# ======================================================================================= processes and pickling
def test_grid_search_in_worker_processes_refuses_with_the_reason():
    """n_jobs=2 (joblib's process backend) sends pickled copies to workers: every fit refuses, the ledger is
    untouched, and the error says why and what to do."""
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(DetachedLedgerError, match="unpickled.*n_jobs=1.*threading"):
        GridSearchCV(lloyd(0.2, L), {"n_clusters": [2, 3]}, cv=2, n_jobs=2, error_score="raise").fit(X)
    assert len(L) == 0 and L.epsilon == 0.0
    with pytest.raises(ValueError, match="fits failed(.|\n)*DetachedLedgerError(.|\n)*another process"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitFailedWarning)
            GridSearchCV(lloyd(0.2, L), {"n_clusters": [2, 3]}, cv=2, n_jobs=2).fit(X)
    assert len(L) == 0 and L.epsilon == 0.0


def test_cross_val_score_in_worker_processes_refuses_with_the_reason():
    L = PrivacyLedger(budget_epsilon=1.0)
    with pytest.raises(DetachedLedgerError, match="n_jobs > 1"):
        cross_val_score(lloyd(0.2, L), X, cv=2, n_jobs=2, error_score="raise")
    with pytest.raises(ValueError, match="fits failed(.|\n)*DetachedLedgerError"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FitFailedWarning)
            cross_val_score(lloyd(0.2, L), X, cv=2, n_jobs=2)
    assert len(L) == 0 and L.epsilon == 0.0
    unbudgeted = PrivacyLedger()  # a ledger kept only as a record: a lost charge would falsify it the same way
    with pytest.raises(DetachedLedgerError):
        cross_val_score(lloyd(0.2, unbudgeted), X, cv=2, n_jobs=2, error_score="raise")
    assert len(unbudgeted) == 0


def test_an_unpickled_estimator_refuses_to_fit_before_reading_the_data(reads):
    L = PrivacyLedger(budget_epsilon=1.0)
    est = pickle.loads(pickle.dumps(lloyd(0.2, L)))
    assert est.ledger is not L and est.ledger.detached
    with pytest.raises(DetachedLedgerError, match="unpickled"):
        est.fit(POISONED)
    assert reads["n"] == 0 and len(L) == 0
    assert lloyd(0.2, None).fit(X).ledger_.epsilon == pytest.approx(0.2, rel=1e-12)  # without a ledger= it fits


def test_a_pickled_fitted_estimator_still_reads_its_ledger():
    L = PrivacyLedger(budget_epsilon=1.0)
    est = lloyd(0.5, L).fit(X)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.cluster_centers_, est.cluster_centers_)
    assert back.ledger_.total() == est.ledger_.total()
    assert back.ledger_.total()[0] == pytest.approx(0.5, rel=1e-12)
    assert back.ledger_.rows() == est.ledger_.rows()
    assert back.ledger.entries == L.entries and back.ledger.remaining() == L.remaining()
    with pytest.raises(DetachedLedgerError):
        back.fit(X)
    assert_exact(L, 1, 0.5)


@pytest.mark.parametrize("budget", [1.0, None])
def test_a_detached_ledger_refuses_every_spend(budget):
    L = PrivacyLedger(budget_epsilon=budget)
    with L.parallel("cells") as par:
        for e in (0.1, 0.3):
            with par.partition():
                L.record("cell", e, sensitivity=1)
    L.record("count", 0.2)
    record = pickle.loads(pickle.dumps(L))
    # it reads like the original
    assert record.detached and not L.detached
    assert record.total() == L.total() and record.entries == L.entries and record.rows() == L.rows()
    assert record.summary() == L.summary() and record.budget_epsilon == L.budget_epsilon
    assert record.remaining() == L.remaining()
    record.check(1.0)
    assert repr(record).endswith("detached=True)")
    assert pickle.loads(pickle.dumps(record)).entries == L.entries
    assert copy.deepcopy(record) is record
    live = PrivacyLedger()
    live.extend(record, group="copied")  # reading a record into a live ledger is fine
    assert live.total() == L.total()
    # and every spend is refused, before anything is drawn
    attempts = [
        lambda: record.record("x", 0.1),
        lambda: record.require(0.1),
        lambda: record.extend(live),
        lambda: record.reserve(0.1).__enter__(),
        lambda: record.group("g").__enter__(),
        lambda: record.parallel("p").__enter__(),
        lambda: record.subsampled("s", 1, 2).__enter__(),
        lambda: record.advanced("a", 1e-6).__enter__(),
        lambda: record.group_privacy("gp", 2).__enter__(),
        lambda: laplace_mechanism(0.0, 1.0, 0.1, rng=0, ledger=record),
    ]
    for attempt in attempts:
        with pytest.raises(DetachedLedgerError, match="another process"):
            attempt()
    assert record.entries == L.entries


def test_detached_ledger_error_is_public_and_not_a_budget_error():
    import dpclust_core

    assert "DetachedLedgerError" in dpclust_core.__all__
    assert not issubclass(DetachedLedgerError, BudgetExceededError)
    err = pickle.loads(pickle.dumps(DetachedLedgerError("why")))  # it crosses process boundaries intact
    assert isinstance(err, DetachedLedgerError) and str(err) == "why"
