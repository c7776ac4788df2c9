"""The ground floor (dpclust_core.base): ``predict``, ``transform`` and ``score`` validate ``X`` once, and the
scikit-learn wording of refusals that scikit-learn's own tools look for."""
import importlib
import pkgutil

import numpy as np
import pytest
from scipy import sparse

import dpclust_core
from dpclust_core import _validation
from dpclust_core.kmeans.grid import EUGkM
from dpclust_core.kmeans.lloyd import DPLloyd
from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans
from dpclust_core.ktuple import PrivateKMeansEasy

from contract_cases import blobs

B = (-1.0, 1.0)
CENTROID_ESTIMATORS = [  # scaled domain (DPLloyd, EUGkM), original units (LSH coreset), clipped (KMeansEasy)
    lambda: DPLloyd(3, 1.0, bounds=B, random_state=0),
    lambda: EUGkM(3, 1.0, bounds=B, n_init=2, random_state=0),
    lambda: LSHCoresetKMeans(3, 1.0, bounds=B, random_state=0),
    lambda: PrivateKMeansEasy(3, 1.0, 1e-6, bounds=B, random_state=0),
]


@pytest.fixture
def count_check_data(monkeypatch):
    """Count every call of the data checker, under each name a module of the package imported it by."""
    calls = []
    original = _validation.check_data

    def counting(*args, **kwargs):
        calls.append(args[1] if len(args) > 1 else kwargs.get("name", "X"))
        return original(*args, **kwargs)

    modules = [dpclust_core] + [importlib.import_module(m.name)
                                for m in pkgutil.walk_packages(dpclust_core.__path__, "dpclust_core.")]
    for mod in modules:
        for name, obj in list(vars(mod).items()):
            if obj is original:
                monkeypatch.setattr(mod, name, counting)
    return calls


@pytest.mark.parametrize("make", CENTROID_ESTIMATORS, ids=lambda m: type(m()).__name__)
@pytest.mark.parametrize("method", ["predict", "transform", "score"])
def test_predict_transform_score_validate_X_once(make, method, count_check_data):
    X = blobs(200)
    est = make().fit(X)
    count_check_data.clear()
    getattr(est, method)(X[:50])
    assert count_check_data == ["X"]


def test_fit_validates_X_once(count_check_data):
    DPLloyd(3, 1.0, bounds=B, random_state=0).fit(blobs(200))
    assert count_check_data == ["X"]


def test_fit_transform_is_fit_then_transform():
    X = blobs(200)
    D = DPLloyd(3, 1.0, bounds=B, random_state=4).fit_transform(X)
    np.testing.assert_array_equal(D, DPLloyd(3, 1.0, bounds=B, random_state=4).fit(X).transform(X))
    assert D.shape == (200, 3) and D.dtype == np.float64


def test_wrong_number_of_features_names_the_estimator_and_both_counts():
    est = DPLloyd(3, 1.0, bounds=B, random_state=0).fit(blobs(200))
    with pytest.raises(ValueError, match="X has 3 features, but DPLloyd is expecting 2 features as input"):
        est.predict(np.zeros((4, 3)))


@pytest.mark.parametrize("fmt", ["csr_matrix", "csc_array"])
def test_sparse_input_is_refused_naming_sparse(fmt):
    X = getattr(sparse, fmt)(blobs(50))
    with pytest.raises(TypeError, match="X is a sparse .*: sparse input is not supported"):
        DPLloyd(3, 1.0, bounds=B).fit(X)


def test_refusals_carry_the_words_scikit_learn_looks_for():
    est = DPLloyd(3, 1.0, bounds=B)
    with pytest.raises(ValueError, match="Reshape your data"):
        est.fit(np.zeros(5))
    with pytest.raises(ValueError, match=r"X has 0 feature\(s\) \(shape=\(5, 0\)\) while a minimum of 1 is"):
        est.fit(np.zeros((5, 0)))
    with pytest.raises(TypeError, match="Complex data not supported"):
        est.fit(np.zeros((5, 2), dtype=complex))
    X = blobs(10).astype(object)
    X[0, 0] = {"a": 1}
    with pytest.raises(TypeError, match="X must be numeric .*argument must be .* string.* number"):
        est.fit(X)
