"""Cases for dpclust_core.kmeans.lloyd (DPLloyd in its three configurations and the public helpers) and
dpclust_core.kmeans.error_models."""
import numpy as np

from dpclust_book.experiments.dplloyd import simulate_one_round_mse
from dpclust_core.kmeans import error_models as em
from dpclust_core.kmeans.lloyd import (DPLloyd, best_of_lloyd, project_l1_ball, random_centroids,
                                       separated_centroids, sphere_packing_centroids)

from . import EstimatorCase, FunctionCase, blobs


def _dplloyd(**defaults):
    def make(**kw):
        kw = {"n_clusters": 3, "epsilon": 1.0, **defaults, **kw}
        return DPLloyd(kw.pop("n_clusters"), kw.pop("epsilon"), **kw)
    return make


ESTIMATORS = [
    EstimatorCase("DPLloyd-improved", _dplloyd(bounds=(-1.0, 1.0))),  # private N: a noisy count
    EstimatorCase("DPLloyd-improved-n_public", _dplloyd(bounds=(-1.0, 1.0), n_public=500)),
    EstimatorCase("DPLloyd-original", _dplloyd(bounds=(-1.0, 1.0), variant="original")),
    # Lee & Kifer: r = 1, and the public box (-2, 2)^d maps the data ([-1, 1]^d) into [-0.5, 0.5]^d, inside
    # the unit L1 ball
    EstimatorCase("DPLloyd-lee_kifer", _dplloyd(bounds=(-2.0, 2.0), variant="lee_kifer")),
]

_X = blobs(40, 2, 2, seed=1)
_C = np.array([[-0.5, -0.5], [0.5, 0.5]])

FUNCTIONS = [
    # ---------------------------------------------------------------- lloyd.py
    FunctionCase("sphere_packing_centroids", sphere_packing_centroids, dict(k=3, d=2, r=1.0, rng=0),
                 dict(k="positive_int", d="positive_int", r="positive_real", rng="random_state",
                      max_tries="positive_int", max_steps="positive_int")),
    FunctionCase("random_centroids", random_centroids, dict(k=3, d=2, r=1.0, rng=0),
                 dict(k="positive_int", d="positive_int", r="positive_real", rng="random_state")),
    FunctionCase("separated_centroids", separated_centroids, dict(k=3, d=2, rng=0),
                 dict(k="positive_int", d="positive_int", rng="random_state", r0="positive_real",
                      max_failures="positive_int", shrink="probability")),
    FunctionCase("project_l1_ball", project_l1_ball, dict(V=np.array([[2.0, 0.0]]), radius=1.0),
                 dict(V="values", radius="positive_real")),
    FunctionCase("best_of_lloyd", best_of_lloyd, dict(X=_X, k=2, n_init=2, rng=0),
                 dict(X="data", k="positive_int", n_init="positive_int", rng="random_state", n_iter="positive_int",
                      r="positive_real")),
    # ---------------------------------------------------------------- error_models.py
    FunctionCase("count_sum_ratio", em.count_sum_ratio, dict(d=2), dict(d="positive_int", rho="nonneg_real")),
    FunctionCase("optimal_count_share", em.optimal_count_share, dict(d=2),
                 dict(d="positive_int", rho="nonneg_real")),
    FunctionCase("budget_split", em.budget_split, dict(d=2, epsilon_round=1.0),
                 dict(d="positive_int", epsilon_round="epsilon", rho="nonneg_real", r="positive_real")),
    FunctionCase("swapped_split_epsilon", em.swapped_split_epsilon, dict(d=20, epsilon_round=1.0),
                 dict(d="positive_int", epsilon_round="epsilon", rho="nonneg_real")),
    FunctionCase("dplloyd_mse", em.dplloyd_mse, dict(n=1000, d=2, k=3, epsilon=1.0, t=2),
                 dict(n="positive_real_vec", d="positive_int_vec", k="positive_int_vec", epsilon="epsilon_vec",
                      t="positive_int_vec", r="positive_real", rho="nonneg_real", per="option")),
    FunctionCase("epsilon_m", em.epsilon_m, dict(n=1000, d=2, k=3),
                 dict(n="positive_real", d="positive_int", k="positive_int", rho="nonneg_real", r="positive_real",
                      threshold="positive_real")),
    FunctionCase("n_rounds", em.n_rounds, dict(epsilon=1.0, eps_m=0.1),
                 dict(epsilon="epsilon", eps_m="epsilon", max_rounds="positive_int", min_rounds="positive_int")),
    FunctionCase("simulate_one_round_mse", simulate_one_round_mse,
                 dict(X=_X, centroids=_C, epsilon=1.0, n_trials=20, rng=0),
                 dict(X="data", centroids="values", epsilon="epsilon", t="positive_int", r="positive_real",
                      rho="nonneg_real", n_trials="size", rng="random_state")),
]
