"""Cases for dpclust_core.wavecluster: WaveCluster, every method of PrivateWaveCluster, and the public functions.

WaveCluster is a density method: it has no centres, but ``predict`` labels any point from the released grid
(-1 for noise), so the contract's predict checks apply.
"""
import numpy as np

from dpclust_book import evaluation
from dpclust_book.experiments import wavecluster as wx
from dpclust_core import wavecluster as wc

from . import EstimatorCase, FunctionCase, blobs

BOUNDS = (-1.0, 1.0)


def _private(method, **fixed):
    def make(**kw):
        args = dict(method=method, grid_size=16, p=30.0, bounds=BOUNDS)
        args.update(fixed)
        args.update(kw)
        eps = args.pop("epsilon", 1.0)
        return wc.PrivateWaveCluster(eps, **args)
    return make


def _nonprivate(random_state=None, ledger=None, **kw):
    args = dict(grid_size=16, p=30.0, bounds=BOUNDS)
    args.update(kw)
    return wc.WaveCluster(**args)


def _blobs2(n=300, seed=0):
    # data(n, seed): explicit keywords, since blobs' second positional parameter is d, not the seed
    return blobs(n, d=2, seed=seed)


def _blobs3(n=300, seed=0):
    return blobs(n, d=3, seed=seed)


ESTIMATORS = [
    EstimatorCase("WaveCluster", _nonprivate, data=_blobs2, epsilon=None),
    EstimatorCase("PrivateWaveCluster-baseline", _private("baseline"), data=_blobs2),
    EstimatorCase("PrivateWaveCluster-baseline-n_public", _private("baseline", n_public=500), data=_blobs2),
    EstimatorCase("PrivateWaveCluster-qt", _private("qt"), data=_blobs2),
    EstimatorCase("PrivateWaveCluster-qt-3d", _private("qt", grid_size=8, connectivity=4), data=_blobs3),
    EstimatorCase("PrivateWaveCluster-thr", _private("thr"), data=_blobs2),
    EstimatorCase("PrivateWaveCluster-thr_em", _private("thr_em"), data=_blobs2),
    EstimatorCase("PrivateWaveCluster-thr_em-upper", _private("thr_em", upper=50.0, alpha=0.6), data=_blobs2),
]

_X = blobs(80)
_W = wc.haar_approx(wc.quantize(_X, BOUNDS, 8))
_GRID = wc.WaveCluster(grid_size=8, p=30.0, bounds=BOUNDS).fit(_X).grid_labels_

FUNCTIONS = [
    FunctionCase("cell_index", wc.cell_index, dict(X=_X, bounds=BOUNDS, grid_size=8),
                 dict(X="data", bounds="bounds", grid_size="positive_int")),
    FunctionCase("quantize", wc.quantize, dict(X=_X, bounds=BOUNDS, grid_size=8),
                 dict(X="data", bounds="bounds", grid_size="positive_int")),
    FunctionCase("haar_approx", wc.haar_approx, dict(M=np.ones((4, 4))), dict(M="values", integer_valued="flag")),
    FunctionCase("significant_mask", wc.significant_mask, dict(W=_W, p=30.0), dict(W="values", p="nonneg_real")),
    FunctionCase("label_components", wc.label_components, dict(mask=_W > 0, connectivity=8),
                 dict(mask="mask", connectivity="positive_int")),
    FunctionCase("grid_cell_centers", wc.grid_cell_centers, dict(bounds=BOUNDS, shape=(4, 4)),
                 dict(bounds="bounds")),
    FunctionCase("em_threshold_intervals", wc.em_threshold_intervals, dict(W=_W, p=30.0, upper=40.0),
                 dict(W="values", p="nonneg_real", upper="positive_real")),
    FunctionCase("em_threshold_probabilities", wc.em_threshold_probabilities,
                 dict(W=_W, p=30.0, epsilon=1.0, upper=40.0),
                 dict(W="values", p="nonneg_real", epsilon="epsilon", upper="positive_real")),
    FunctionCase("em_threshold", wc.em_threshold, dict(W=_W, p=30.0, epsilon=1.0, upper=40.0, rng=0, size=3),
                 dict(W="values", p="nonneg_real", epsilon="epsilon", upper="positive_real", rng="random_state",
                      size="size", ledger="ledger")),
    FunctionCase("adaptive_grid_synthetic", wc.adaptive_grid_synthetic,
                 dict(X=_X, bounds=BOUNDS, epsilon=1.0, rng=0),
                 dict(X="data", bounds="bounds", epsilon="epsilon", rng="random_state", c="positive_real",
                      c2="positive_real", alpha="probability", n_share="probability", ledger="ledger",
                      n_public="positive_int")),
    FunctionCase("privqt_bias", wx.privqt_bias, dict(n_zero=241, p=10.0, theta=0.0),
                 dict(n_zero="nonneg_real", p="nonneg_real", theta="nonneg_real")),
    FunctionCase("grid_classifier", evaluation.grid_classifier, dict(grid_labels=_GRID, bounds=BOUNDS, random_state=0),
                 dict(grid_labels="grid_labels", bounds="bounds", random_state="random_state")),
    FunctionCase("cluster_then_classify", evaluation.cluster_then_classify,
                 dict(true_grid_labels=_GRID, private_grid_labels=_GRID, bounds=BOUNDS, X_test=_X[:20],
                      random_state=0),
                 dict(true_grid_labels="classes", private_grid_labels="classes", bounds="bounds", X_test="data_d",
                      random_state="random_state")),
]
