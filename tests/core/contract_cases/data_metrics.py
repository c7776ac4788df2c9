"""Cases for the data generators (dpclust_core.datasets, dpclust_book.datasets), the public-box scaling
(dpclust_core.preprocessing), dpclust_core.metrics and the WaveCluster paper's metrics (dpclust_book.evaluation)."""
import numpy as np

import dpclust_book.datasets as data
from dpclust_book import evaluation
from dpclust_book.experiments import wavecluster as wx
from dpclust_core import metrics, preprocessing

from . import FunctionCase, blobs

_X = blobs(60)
_C = _X[:3].copy()
_GRID = np.array([[0, 0, -1], [-1, 1, 1]])
_PRED = np.array([0, 0, 1, 1, 2])

_GEN = dict(n_samples="positive_int", random_state="random_state")

FUNCTIONS = [
    # ---------------------------------------------------------------- metrics
    FunctionCase("nicv", metrics.nicv, dict(X=_X, centers=_C), dict(X="data_d", centers="data_d")),
    FunctionCase("wcss", metrics.wcss, dict(X=_X, centers=_C), dict(X="data_d", centers="data_d")),
    FunctionCase("squared_distances", metrics.squared_distances, dict(X=_X, centers=_C),
                 dict(X="data_d", centers="data_d")),
    FunctionCase("assign", metrics.assign, dict(X=_X, centers=_C), dict(X="data_d", centers="data_d")),
    FunctionCase("dsg_c", evaluation.dsg_c, dict(true_grid_labels=_GRID, private_grid_labels=_GRID),
                 dict(true_grid_labels="classes", private_grid_labels="classes")),
    FunctionCase("ocm", evaluation.ocm, dict(pred_t=_PRED, pred_p=_PRED), dict(pred_t="classes", pred_p="classes")),
    FunctionCase("two_ce", evaluation.two_ce, dict(pred_t=_PRED, pred_p=_PRED), dict(pred_t="classes", pred_p="classes")),
    FunctionCase("rand_index", evaluation.rand_index, dict(pred_t=_PRED, pred_p=_PRED),
                 dict(pred_t="classes", pred_p="classes")),
    FunctionCase("f_measure", metrics.f_measure, dict(true_labels=_PRED, labels=_PRED),
                 dict(true_labels="classes", labels="classes")),
    FunctionCase("k_relative_error", evaluation.k_relative_error, dict(k_prime=141.0, k=144),
                 dict(k_prime="values", k="positive_real")),
    FunctionCase("fixed_split", wx.fixed_split, dict(n_samples=100, test_fraction=0.1, random_state=0),
                 dict(n_samples="positive_int", test_fraction="probability", random_state="random_state")),
    # ---------------------------------------------------------------- scaling into the public box
    FunctionCase("scale_to_domain", preprocessing.scale_to_domain, dict(X=_X, bounds=(-1.0, 1.0), r=2.0),
                 dict(X="data", bounds="bounds", r="positive_real", return_n_clipped="flag")),
    FunctionCase("unscale_from_domain", preprocessing.unscale_from_domain, dict(Z=_X, bounds=(-1.0, 1.0), r=2.0),
                 dict(Z="data", bounds="bounds", r="positive_real")),
    FunctionCase("clip_to_domain", preprocessing.clip_to_domain, dict(X=_X, bounds=(-0.5, 0.5)),
                 dict(X="data", bounds="bounds")),
    # ---------------------------------------------------------------- generators (small sizes)
    FunctionCase("make_blobs_ratio", data.make_blobs_ratio,
                 dict(n_samples=200, n_clusters=3, n_features=2, separation=0.2, r=1.0, random_state=0),
                 dict(n_samples="positive_int", n_clusters="positive_int", n_features="positive_int",
                      separation="nonneg_real", r="positive_real", random_state="random_state", n_outliers="count",
                      return_centers="flag")),
    FunctionCase("make_s1_like", data.make_s1_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_tiger_like", data.make_tiger_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_gowalla_like", data.make_gowalla_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_image_like", data.make_image_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_adult_num_like", data.make_adult_num_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_lifesci_like", data.make_lifesci_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_ds1_like", data.make_ds1_like, dict(n_samples=300, random_state=0), _GEN),
    FunctionCase("make_ds2_like", data.make_ds2_like, dict(n_samples=400, random_state=0), _GEN),
    FunctionCase("make_ds3_like", data.make_ds3_like, dict(n_samples=800, random_state=0), _GEN),
]
