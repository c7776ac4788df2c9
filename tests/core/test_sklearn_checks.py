"""scikit-learn's own estimator checks (``parametrize_with_checks``) on every public estimator of dpclust_core.

Each estimator is built with small valid parameters (public bounds that hold the checks' data, a radius for the
Gaussian mixtures). A check that fails **by design** is declared below, with its reason, through scikit-learn's
``expected_failed_checks``; the declaration is strict (a declared check that passes fails the test), so the list
stays exactly the set of by-design exceptions. Every other check must pass.

The k-tuple estimators (fitted on an array of tuples, shape (n_tuples, k, d)) and the MCMC postprocessor (fitted on
a transcript of released values) declare through their tags that ``fit`` takes no 2-D data matrix, so scikit-learn
generates no data checks for them; the checks of the parameter contract, which never call ``fit``, run on them
in :func:`test_parameter_checks_on_estimators_without_a_data_matrix`.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import warnings

import pytest
from sklearn.utils import estimator_checks as ec
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import parametrize_with_checks

import dpclust_core
from dpclust_core.base import CentroidMixin, DPEstimator, Estimator
from dpclust_core.gmm import NaiveNoisyGaussianMixture, PrivateGaussianMixture
from dpclust_core.kmeans.grid import EUGkM, MkM, UGkM
from dpclust_core.kmeans.hybrid import HybridKMeans
from dpclust_core.kmeans.lloyd import DPLloyd
from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans
from dpclust_core.kmeans.sample_aggregate import GkM, PGkM
from dpclust_core.ktuple import PrivatekAverages, PrivateKMeansEasy, PrivatekNoisyCenters
from dpclust_core.postprocess import MCMCPostprocessor
from dpclust_core.preprocessing import PrivateMinMaxScaler, PrivateStandardScaler
from dpclust_core.wavecluster import PrivateWaveCluster, WaveCluster

#: Public bounds that hold the checks' data (standardised blobs, uniform draws times 3, ...); points outside
#: would be clipped, which is the documented behaviour and changes no check.
B = (-4.0, 4.0)

#: One estimator of every public class, with small valid parameters.
ESTIMATORS = [
    DPLloyd(3, 1.0, bounds=B),
    EUGkM(3, 1.0, bounds=B, n_init=2),
    UGkM(3, 1.0, bounds=B, n_init=2),
    MkM(3, 1.0, bounds=B, n_init=2),
    HybridKMeans(3, 1.0, bounds=B, n_init=2),
    GkM(3, 1.0, bounds=B),
    PGkM(3, 1.0, bounds=B, pool_size=12, n_select=2, n_rounds=3),
    LSHCoresetKMeans(3, 1.0, bounds=B),
    PrivateKMeansEasy(3, 1.0, 1e-6, bounds=B),
    PrivateGaussianMixture(2, 1.0, 1e-6, radius=4.0),
    NaiveNoisyGaussianMixture(2, 1.0, 1e-6, radius=4.0),
    # a grid fine enough for the clustering check's three blobs (50 standardised points)
    WaveCluster(grid_size=16, p=30.0, bounds=(-2.0, 2.0)),
    PrivateWaveCluster(1.0, method="qt", grid_size=16, p=30.0, bounds=B),
    PrivateMinMaxScaler(1.0, bounds=B),
    PrivateStandardScaler(1.0, bounds=B),
]
#: Estimators whose ``fit`` takes no 2-D data matrix (see the module docstring).
NOT_A_DATA_MATRIX = [
    PrivatekAverages(2, 1.0, 1e-6, radius=10.0),
    PrivatekNoisyCenters(2, 1.0, 1e-6),
    MCMCPostprocessor(n_steps=100),
]

NO_LABELS = ("a private fit keeps no labels_: one label per training record would release information about "
             "each record (predict on data you may publish instead)")
K_AT_LEAST_2 = ("k-tuple clustering separates at least two clusters; the check sets n_clusters (n_components) "
                "to 1")
GRID_CAP = "the grid has grid_size^d cells: at the check's 10 features it exceeds the public cap on cells"

#: The by-design exceptions: check name -> reason, per estimator class.
BY_DESIGN = {
    DPEstimator: {"check_clustering": NO_LABELS},
    PrivateKMeansEasy: dict.fromkeys(["check_dont_overwrite_parameters", "check_methods_subset_invariance",
                                      "check_fit2d_1sample", "check_fit2d_1feature", "check_fit2d_predict1d"],
                                     K_AT_LEAST_2),
    PrivateGaussianMixture: dict.fromkeys(["check_dont_overwrite_parameters", "check_methods_sample_order_invariance",
                                           "check_methods_subset_invariance", "check_fit2d_1sample",
                                           "check_fit2d_1feature", "check_fit2d_predict1d"], K_AT_LEAST_2),
    WaveCluster: dict.fromkeys(["check_dtype_object", "check_fit2d_1sample"], GRID_CAP),
    PrivateWaveCluster: dict.fromkeys(["check_dtype_object", "check_fit2d_1sample"], GRID_CAP),
}


def expected_failed_checks(estimator) -> dict[str, str]:
    """The by-design exceptions of ``estimator`` (those of its classes, the most specific last)."""
    out = {}
    for cls in reversed(type(estimator).__mro__):
        out.update(BY_DESIGN.get(cls, {}))
    return out


def _strict(decorator):
    """``parametrize_with_checks`` with strict expected failures: a declared check that passes fails."""
    ParameterSet = type(pytest.param(None))
    names, values = decorator.mark.args
    values = [pytest.param(*v.values, id=v.id,
                           marks=[pytest.mark.xfail(reason=m.kwargs["reason"], strict=True) if m.name == "xfail"
                                  else m for m in v.marks])
              if isinstance(v, ParameterSet) else v for v in values]
    return pytest.mark.parametrize(names, values, **decorator.mark.kwargs)


def public_estimator_classes() -> set[type]:
    """Every estimator class named in the ``__all__`` of dpclust_core or of one of its modules."""
    found = set()
    modules = [dpclust_core] + [importlib.import_module(m.name)
                                for m in pkgutil.walk_packages(dpclust_core.__path__, "dpclust_core.")]
    for mod in modules:
        for name in getattr(mod, "__all__", ()):
            obj = getattr(mod, name, None)
            if inspect.isclass(obj) and issubclass(obj, Estimator) and obj not in (Estimator, DPEstimator):
                found.add(obj)
    return found


def test_every_public_estimator_is_checked():
    checked = {type(e) for e in ESTIMATORS + NOT_A_DATA_MATRIX}
    public = public_estimator_classes()
    assert len(public) >= 16
    assert public <= checked, f"no instance for {sorted(c.__name__ for c in public - checked)}"


@pytest.mark.parametrize("estimator", ESTIMATORS + NOT_A_DATA_MATRIX, ids=lambda e: type(e).__name__)
def test_tags(estimator):
    """Clusterers with centres are transformers (transform: distances to the centres, float64); no estimator
    accepts sparse input or NaN; only data-matrix estimators take 2-D X."""
    tags = get_tags(estimator)
    assert not tags.input_tags.sparse and not tags.input_tags.allow_nan
    assert tags.input_tags.two_d_array == (estimator in ESTIMATORS)
    assert tags.requires_fit and not tags.non_deterministic  # a fixed random_state gives the same fit
    if hasattr(estimator, "transform"):
        assert tags.transformer_tags is not None and tags.transformer_tags.preserves_dtype == ["float64"]
    if isinstance(estimator, CentroidMixin):
        assert tags.estimator_type == "clusterer"


@pytest.mark.slow  # about 700 checks: ~25 s of CPU
@_strict(parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failed_checks))
def test_sklearn_check(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # noisy releases of tiny data sets may warn; not checked
        check(estimator)


#: scikit-learn's checks of the parameter contract: none of them calls ``fit``.
PARAMETER_CHECKS = [ec.check_estimator_cloneable, ec.check_estimator_tags_renamed, ec.check_valid_tag_types,
                    ec.check_estimator_repr, ec.check_no_attributes_set_in_init,
                    ec.check_do_not_raise_errors_in_init_or_set_params, ec.check_mixin_order,
                    ec.check_parameters_default_constructible, ec.check_get_params_invariance,
                    ec.check_set_params, ec.check_estimators_unfitted]


@pytest.mark.parametrize("check", PARAMETER_CHECKS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("estimator", NOT_A_DATA_MATRIX, ids=lambda e: type(e).__name__)
def test_parameter_checks_on_estimators_without_a_data_matrix(estimator, check):
    assert not get_tags(estimator).input_tags.two_d_array
    check(type(estimator).__name__, estimator)
