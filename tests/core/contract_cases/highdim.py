"""Cases for the high-dimensional private k-means (dpclust_core.kmeans.lsh_coreset) and the generators of its
benchmark datasets (dpclust_book.datasets: make_lsh_mixture, make_letter_like, make_segment_like).

Small, fast configurations: 2-D data (no projection), 30-D data (projected to 10 dimensions), the private radius
(default), the box's half-diagonal as radius, ``n_public`` with a public radius.
"""
import numpy as np

import dpclust_book.datasets as data
from dpclust_core import accounting, mechanisms
from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans

from . import EstimatorCase, FunctionCase, blobs

BOUNDS = (-1.0, 1.0)


def _maker(k=3, eps=1.0, delta=1e-6, **fixed):
    def make(**kw):
        args = dict(bounds=BOUNDS)
        args.update(fixed)
        args.update(kw)
        n_clusters = args.pop("n_clusters", k)
        epsilon = args.pop("epsilon", eps)
        dl = args.pop("delta", delta)
        return LSHCoresetKMeans(n_clusters, epsilon, dl, **args)
    return make


def _blobs30(n=300, seed=0):
    return blobs(n, d=30, k=4, seed=seed, scale=0.02)


ESTIMATORS = [
    EstimatorCase("LSHCoresetKMeans", _maker(), delta=1e-6),
    EstimatorCase("LSHCoresetKMeans-30d-projected", _maker(k=4), data=_blobs30, delta=1e-6),
    EstimatorCase("LSHCoresetKMeans-box-radius", _maker(k=2, radius=None, n_seed_rounds=1), delta=1e-6),
    EstimatorCase("LSHCoresetKMeans-n_public-radius", _maker(eps=2.0, delta=1e-5, n_public=5000, radius=1.0,
                                                            n_seed_rounds=1, n_final_rounds=2),
                  epsilon=2.0, delta=1e-5),
]

_GEN = dict(n_samples="positive_int", random_state="random_state")

FUNCTIONS = [
    FunctionCase("make_lsh_mixture", data.make_lsh_mixture,
                 dict(n_samples=200, n_features=5, n_clusters=4, random_state=0),
                 dict(n_samples="positive_int", n_features="positive_int", n_clusters="positive_int",
                      cluster_ratio="positive_real", radius="positive_real", random_state="random_state")),
    FunctionCase("make_letter_like", data.make_letter_like, dict(n_samples=200, random_state=0), _GEN),
    FunctionCase("make_segment_like", data.make_segment_like, dict(n_samples=70, random_state=0), _GEN),
    FunctionCase("zcdp_budget", accounting.zcdp_budget, dict(epsilon=1.0, delta=1e-6),
                 dict(epsilon="epsilon", delta="delta")),
    FunctionCase("zcdp_epsilon", accounting.zcdp_epsilon, dict(rho=0.02, delta=1e-6),
                 dict(rho="nonneg_real", delta="delta")),
    FunctionCase("gaussian_mechanism_zcdp", mechanisms.gaussian_mechanism_zcdp,
                 dict(value=np.array([1.0, 2.0]), l2_sensitivity=1.0, rho=0.02, rng=0),
                 dict(value="values", l2_sensitivity="nonneg_real", rho="positive_real", rng="random_state",
                      l0_sensitivity="positive_int")),
]
