"""The scikit-learn and privacy contract, checked on every estimator of the package (tests/core/contract_cases).

For each estimator: clone / get_params / set_params / repr; ``fit`` returns self and changes no parameter;
``NotFittedError`` before fit; it works inside a ``Pipeline``; its ``ledger_`` totals exactly the (ε, δ) it was
given; a shared ledger that cannot afford a fit refuses **before the data are read**; no fitted attribute has
one row per private training record or equals N; a fixed seed gives the same release twice; bad input raises a
``ValueError``/``TypeError`` that names the argument.
"""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from dpclust_core.accounting import BudgetExceededError, PrivacyLedger

from contract_cases import collect

ESTIMATORS, _ = collect()
X_CASES = [c for c in ESTIMATORS if c.fit_arg == "X"]
PRIVATE = [c for c in X_CASES if c.epsilon is not None]
N_ODD = 211  # an unusual number of rows, so an attribute equal to N (or with N rows) stands out


def ids(cases):
    return [c.id for c in cases]


@pytest.mark.parametrize("case", ESTIMATORS, ids=ids(ESTIMATORS))
def test_sklearn_parameter_contract(case):
    est = case.make()
    params = est.get_params(deep=False)
    twin = clone(est)
    assert type(twin) is type(est) and twin.get_params(deep=False).keys() == params.keys()
    est.set_params(**params)
    assert est.get_params(deep=False) == params
    text = repr(est)
    assert text.startswith(type(est).__name__ + "(") and "object at 0x" not in text
    # every parameter has a spec in the estimator's declarative table
    assert set(params) <= set(type(est)._parameters), set(params) - set(type(est)._parameters)


@pytest.mark.parametrize("case", X_CASES, ids=ids(X_CASES))
def test_fit_returns_self_and_keeps_parameters(case):
    est = case.make(random_state=0)
    before = {k: (v if np.isscalar(v) or v is None else repr(v)) for k, v in est.get_params(deep=False).items()}
    X = case.data(N_ODD, 1)
    assert est.fit(X) is est
    after = {k: (v if np.isscalar(v) or v is None else repr(v)) for k, v in est.get_params(deep=False).items()}
    assert after == before
    assert est.n_features_in_ == X.shape[1]


@pytest.mark.parametrize("case", [c for c in X_CASES if c.has_predict], ids=ids([c for c in X_CASES if c.has_predict]))
def test_not_fitted_and_predict(case):
    est = case.make(random_state=0)
    X = case.data(N_ODD, 2)
    with pytest.raises(NotFittedError):
        est.predict(X)
    labels = est.fit(X).predict(X)
    assert labels.shape == (X.shape[0],) and labels.dtype.kind in "iu"
    with pytest.raises(ValueError, match="X"):
        est.predict(X[:, :-1] if X.shape[1] > 1 else np.hstack([X, X]))


@pytest.mark.parametrize("case", [c for c in X_CASES if c.in_pipeline], ids=ids([c for c in X_CASES if c.in_pipeline]))
def test_inside_a_pipeline(case):
    X = case.data(N_ODD, 3)
    pipe = make_pipeline(FunctionTransformer(lambda Z: Z * 1.0), case.make(random_state=0))
    pipe.fit(X)
    if case.has_predict:
        assert pipe.predict(X).shape == (X.shape[0],)


@pytest.mark.parametrize("case", PRIVATE, ids=ids(PRIVATE))
def test_ledger_total_equals_budget(case):
    est = case.make(random_state=0).fit(case.data(N_ODD, 4))
    eps, dl = est.ledger_.total()
    assert eps == pytest.approx(case.epsilon, rel=1e-9)
    assert dl == pytest.approx(case.delta, rel=1e-9, abs=1e-300)
    est.ledger_.check()


@pytest.mark.parametrize("case", PRIVATE, ids=ids(PRIVATE))
def test_shared_ledger_caps_across_fits_before_reading_data(case):
    X = case.data(N_ODD, 5)
    shared = PrivacyLedger(budget_epsilon=1.5 * case.epsilon, budget_delta=1.5 * case.delta)
    case.make(random_state=0, ledger=shared).fit(X)
    assert shared.epsilon == pytest.approx(case.epsilon, rel=1e-9)
    poisoned = np.full_like(X, np.nan)  # reading it would raise a ValueError about NaN
    with pytest.raises(BudgetExceededError):
        case.make(random_state=1, ledger=shared).fit(poisoned)
    assert shared.epsilon == pytest.approx(case.epsilon, rel=1e-9)  # the refused fit spent nothing


@pytest.mark.parametrize("case", PRIVATE, ids=ids(PRIVATE))
def test_no_attribute_reveals_the_training_records_or_n(case):
    X = case.data(N_ODD, 6)
    est = case.make(random_state=0).fit(X)
    for name, value in vars(est).items():
        if not name.endswith("_") or name.startswith("_"):
            continue
        shape = np.shape(value) if isinstance(value, (np.ndarray, list, tuple)) else ()
        assert not (len(shape) and shape[0] == N_ODD), f"{name} has one entry per training record"
        if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
            assert value != N_ODD, f"{name} equals N"


@pytest.mark.parametrize("case", PRIVATE, ids=ids(PRIVATE))
def test_same_seed_same_release(case):
    X = case.data(N_ODD, 7)
    a = case.make(random_state=3).fit(X)
    b = case.make(random_state=3).fit(X)
    for name in ("cluster_centers_", "means_"):
        if hasattr(a, name):
            np.testing.assert_array_equal(getattr(a, name), getattr(b, name))


@pytest.mark.parametrize("case", X_CASES, ids=ids(X_CASES))
def test_bad_data_names_x(case):
    X = case.data(N_ODD, 8)
    bad = X.astype(float).copy()
    bad[0, 0] = np.nan
    for data in (bad, X[:, 0], X[:0], X.astype(str), X.astype(complex)):
        with pytest.raises((ValueError, TypeError), match="X"):
            case.make(random_state=0).fit(data)
