"""Cases for the synopsis and composite k-means of dpclust_core.kmeans: UGkM, EUGkM, MkM (grid), HybridKMeans,
GkM, PGkM (sample_aggregate), the estimator behind choose_k, and the public functions of those modules.

Fast settings (few initialisations, a small PrivGene pool) keep the contract tests quick; every estimator is
checked with the private N (the default) and with ``n_public``.
"""
import importlib

import numpy as np

from dpclust_book import evaluation
from dpclust_core.kmeans import grid, hybrid
from dpclust_core.kmeans import sample_aggregate as sa

from . import EstimatorCase, FunctionCase, blobs

ck = importlib.import_module("dpclust_core.kmeans.choose_k")  # the package re-exports the function choose_k

BOUNDS = (-1.0, 1.0)


def _maker(cls, k=3, eps=1.0, **fixed):
    def make(**kw):
        args = dict(bounds=BOUNDS)
        args.update(fixed)
        args.update(kw)
        n_clusters = args.pop("n_clusters", k)
        epsilon = args.pop("epsilon", eps)
        return cls(n_clusters, epsilon, **args)
    return make


def _blobs3d(n=300, seed=0):
    return blobs(n, d=3, seed=seed)


def _choose_k(**kw):
    args = dict(bounds=BOUNDS, n_init=2)
    args.update(kw)
    k_range = args.pop("k_range", [2, 3])
    epsilon = args.pop("epsilon", 1.0)
    return ck._ChooseK(k_range, epsilon, **args)


ESTIMATORS = [
    EstimatorCase("EUGkM", _maker(grid.EUGkM, n_init=3)),
    EstimatorCase("EUGkM-n_public", _maker(grid.EUGkM, n_init=3, n_public=5000)),
    EstimatorCase("EUGkM-3d-init-array", _maker(grid.EUGkM, k=2, n_init=1, init=np.array([[-0.5] * 3, [0.5] * 3])),
                  data=_blobs3d),
    EstimatorCase("UGkM", _maker(grid.UGkM, n_init=3)),
    EstimatorCase("MkM", _maker(grid.MkM, eps=0.5, n_init=3, init="random"), epsilon=0.5),
    EstimatorCase("HybridKMeans-regression", _maker(hybrid.HybridKMeans, n_init=3)),
    EstimatorCase("HybridKMeans-half-switches", _maker(hybrid.HybridKMeans, eps=20.0, policy="half", n_init=3),
                  epsilon=20.0),
    EstimatorCase("HybridKMeans-n_public", _maker(hybrid.HybridKMeans, eps=20.0, n_init=2, n_public=10**5),
                  epsilon=20.0),
    EstimatorCase("GkM", _maker(sa.GkM)),
    EstimatorCase("GkM-domain-clip", _maker(sa.GkM, range_estimation="domain", aggregate="clip", n_blocks=7)),
    EstimatorCase("GkM-n_public", _maker(sa.GkM, n_public=5000)),
    EstimatorCase("PGkM", _maker(sa.PGkM, pool_size=20, n_select=3)),
    EstimatorCase("PGkM-fixed-rounds", _maker(sa.PGkM, pool_size=12, n_select=2, n_rounds=3, init_spread=1.0)),
    EstimatorCase("choose_k", _choose_k, has_predict=False, in_pipeline=False),
]

_X = blobs(200)
_Z = np.clip(_X, -1, 1)
_SYN = grid.noisy_grid_synopsis(_Z, 4, 1.0, rng=0)

FUNCTIONS = [
    # grid.py
    FunctionCase("ugkm_grid_size", grid.ugkm_grid_size, dict(n=5000, epsilon=0.5),
                 dict(n="positive_real", epsilon="epsilon")),
    FunctionCase("eugkm_grid_size", grid.eugkm_grid_size, dict(n=5000, epsilon=0.5, d=3, theta=10.0),
                 dict(n="positive_real", epsilon="epsilon", d="positive_int", theta="positive_real")),
    FunctionCase("mkm_grid_size", grid.mkm_grid_size, dict(n=5000, d=3), dict(n="positive_real", d="positive_int")),
    FunctionCase("cells_per_dimension", grid.cells_per_dimension, dict(M=3494.0, d=10),
                 dict(M="positive_real", d="positive_int")),
    FunctionCase("eugkm_variance", grid.eugkm_variance, dict(n=5000, epsilon=0.5, d=2, k=3),
                 dict(n="positive_real", epsilon="epsilon", d="positive_int", k="positive_int", r="positive_real",
                      theta="positive_real")),
    FunctionCase("eugkm_bias", grid.eugkm_bias, dict(n=5000, epsilon=0.5, d=2),
                 dict(n="positive_real", epsilon="epsilon", d="positive_int", r="positive_real",
                      theta="positive_real")),
    FunctionCase("eugkm_variance_m", grid.eugkm_variance_m, dict(M=250.0, n=5000, epsilon=0.5, d=2, k=3),
                 dict(M="positive_real", n="positive_real", epsilon="epsilon", d="positive_int", k="positive_int",
                      r="positive_real")),
    FunctionCase("GridSynopsis", grid.GridSynopsis, dict(counts=np.ones(16), m=4, d=2, r=1.0, epsilon=1.0),
                 dict(counts="values", m="positive_int", d="positive_int", r="positive_real", epsilon="epsilon")),
    FunctionCase("noisy_grid_synopsis", grid.noisy_grid_synopsis, dict(Z=_Z, m=4, epsilon=1.0, r=1.0, rng=0),
                 dict(Z="data", m="positive_int", epsilon="epsilon", r="positive_real", rng="random_state",
                      ledger="ledger")),
    FunctionCase("GridSynopsis.nicv", _SYN.nicv, dict(centroids=np.zeros((2, 2))), dict(centroids="values")),
    FunctionCase("GridSynopsis.lloyd", _SYN.lloyd, dict(init=np.array([[-0.5, 0.0], [0.5, 0.0]])),
                 dict(init="values", max_iter="positive_int", tol="nonneg_real")),
    # hybrid.py
    FunctionCase("hybrid_mse", hybrid.hybrid_mse, dict(epsilon=0.5, f=0.3, n=5000, d=2, k=3),
                 dict(epsilon="epsilon", f="probability_vec", n="positive_real", d="positive_int", k="positive_int",
                      r="positive_real", theta="positive_real", include_bias="flag")),
    FunctionCase("hybrid_decision", hybrid.hybrid_decision, dict(n=5000, d=2, k=3, epsilon=0.5),
                 dict(n="positive_real", d="positive_int", k="positive_int", epsilon="epsilon", r="positive_real",
                      theta="positive_real", policy="option", include_bias="flag", f_step="probability")),
    # sample_aggregate.py
    FunctionCase("gkm_noise_scale", sa.gkm_noise_scale, dict(widths=np.array([0.5, 2.0]), k=5, n_blocks=100,
                                                            epsilon=0.1),
                 dict(widths="values", k="positive_int", n_blocks="positive_int", epsilon="epsilon")),
    FunctionCase("pgkm_rounds", sa.pgkm_rounds, dict(n=107091, epsilon=2.0),
                 dict(n="positive_real", epsilon="epsilon", m_sel="positive_int", x="positive_real")),
    FunctionCase("dp_quantile", sa.dp_quantile,
                 dict(values=np.linspace(-0.5, 0.5, 50), q=0.5, lo=-1.0, hi=1.0, epsilon=1.0, sensitivity=1.0,
                      rng=0),
                 dict(values="values", epsilon="epsilon", sensitivity="positive_real", rng="random_state",
                      ledger="ledger")),
    # choose_k.py
    FunctionCase("rt_validity", evaluation.rt_validity, dict(X=_X, centers=np.array([[-0.5, 0.0], [0.5, 0.0]])),
                 dict(X="data", centers="data")),
    FunctionCase("synopsis_rt_validity", ck.synopsis_rt_validity,
                 dict(synopsis=_SYN, centers=np.array([[-0.5, 0.0], [0.5, 0.0]])), dict(centers="data")),
    FunctionCase("k_cap", ck.k_cap, dict(n=1000.0, epsilon_hist=1.0, n_cells=16, min_snr=3.0),
                 dict(epsilon_hist="epsilon", n_cells="positive_int", min_snr="positive_real")),
    FunctionCase("choose_k", ck.choose_k, dict(X=_X, epsilon=1.0, k_range=[2, 3], bounds=BOUNDS, n_init=2,
                                                random_state=0),
                 dict(X="data", epsilon="epsilon", bounds="bounds", n_init="positive_int", theta="positive_real",
                      max_cells="positive_int", r="positive_real", random_state="random_state", ledger="ledger")),
]
