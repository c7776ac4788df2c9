"""Cases for dpclust_core.ktuple (k-tuple clustering, PrivateKMeansEasy) and dpclust_core.gmm (Gaussian mixtures).

At the contract tests' N = 211 the sample-and-aggregate estimators have far too few records per chunk: their
k-tuple test fails and they return their data-independent fallback (``status_``/``success_`` False), still
spending exactly (ε, δ). The tuple estimators are fitted on tuple sets, so they are checked for the
scikit-learn parameter contract only (``fit_arg="T"``).
"""
import numpy as np

from dpclust_core import gmm, ktuple
from dpclust_book.experiments import ktuple as kx
from dpclust_book.experiments import mixtures as mx
from dpclust_book.experiments import ktuple as kx
from dpclust_book.experiments import gmm as gx

from . import EstimatorCase, FunctionCase, blobs


def _make(cls, *args, **defaults):
    """A factory ``make(**overrides)``; the leading arguments may be overridden by keyword too."""
    names = {ktuple.PrivateKMeansEasy: ("n_clusters", "epsilon", "delta"),
             ktuple.PrivatekAverages: ("n_clusters", "epsilon", "delta"),
             ktuple.PrivatekNoisyCenters: ("n_clusters", "epsilon", "delta"),
             gmm.PrivateGaussianMixture: ("n_components", "epsilon", "delta"),
             gmm.NaiveNoisyGaussianMixture: ("n_components", "epsilon", "delta")}[cls]
    base = dict(zip(names, args), **defaults)
    return lambda **kw: cls(**{**base, **kw})


ESTIMATORS = [
    EstimatorCase("PrivateKMeansEasy", _make(ktuple.PrivateKMeansEasy, 3, 1.0, 1e-6, bounds=(-1.0, 1.0)),
                  epsilon=1.0, delta=1e-6),
    EstimatorCase("PrivateKMeansEasy-averages",
                  _make(ktuple.PrivateKMeansEasy, 2, 2.0, 1e-5, bounds=(-1.0, 1.0), tuple_algorithm="averages",
                        kmeans_iter=5),
                  epsilon=2.0, delta=1e-5),
    EstimatorCase("PrivatekNoisyCenters", _make(ktuple.PrivatekNoisyCenters, 2, 1.0, 1e-6), epsilon=1.0, delta=1e-6,
                  fit_arg="T"),
    EstimatorCase("PrivatekAverages", _make(ktuple.PrivatekAverages, 2, 1.0, 1e-6, radius=10.0), epsilon=1.0,
                  delta=1e-6, fit_arg="T"),
    EstimatorCase("PrivateGaussianMixture", _make(gmm.PrivateGaussianMixture, 2, 1.0, 1e-6, radius=2.0),
                  epsilon=1.0, delta=1e-6),
    EstimatorCase("PrivateGaussianMixture-averages",
                  _make(gmm.PrivateGaussianMixture, 3, 4.0, 1e-5, radius=2.0, k_tuple="averages", mean_steps=1),
                  epsilon=4.0, delta=1e-5),
    EstimatorCase("NaiveNoisyGaussianMixture", _make(gmm.NaiveNoisyGaussianMixture, 3, 1.0, 1e-6, radius=2.0),
                  epsilon=1.0, delta=1e-6),
]

# ------------------------------------------------------------------------------------------------ functions
_rng = np.random.default_rng(0)
_X = blobs(200, 2, 2, seed=1)
_x = np.linspace(0.2, 0.8, 50)
_C2 = np.array([[0.0, 0.0], [20.0, 0.0]])
_T = _C2 + _rng.normal(0, 1e-3, size=(340, 2, 2))
_Tsmall = _T[:40]
_P = gmm.paper_mixture(2, 2, R=20.0)
_X2, _ = gmm.sample_mixture(_P, 400, random_state=0)
_lab2 = np.array(_X2[:, 0] < _X2[:, 1], dtype=np.int64)
_chunks = np.concatenate([np.zeros((3, 20, 2)), np.full((3, 20, 2), 9.0)], axis=1)
_GRID = dict(low=0.0, high=1.0, resolution=0.01)
_EPS = dict(epsilon="epsilon")
_EPS_DL = dict(epsilon="epsilon", delta="delta")

FUNCTIONS = [
    # ---------------------------------------------------------------- ktuple: primitives
    FunctionCase("ktuple.private_interior_point", ktuple.private_interior_point,
                 dict(x=_x, epsilon=1.0, rng=0, **_GRID),
                 dict(x="values", resolution="positive_real", rng="random_state", size="size", ledger="ledger",
                      **_EPS)),
    FunctionCase("ktuple.private_bounding_segment", ktuple.private_bounding_segment,
                 dict(x=_x, t=5, epsilon=1.0, rng=0, **_GRID),
                 dict(x="values", t="positive_int", resolution="positive_real", rng="random_state",
                      ledger="ledger", **_EPS)),
    FunctionCase("ktuple.private_average_1d", ktuple.private_average_1d,
                 dict(x=_x, epsilon=1.0, delta=1e-6, n_public=len(_x), rng=0, **_GRID),
                 dict(x="values", resolution="positive_real", beta="probability", n_public="positive_int",
                      rng="random_state", ledger="ledger", **_EPS_DL)),
    FunctionCase("ktuple.private_average", ktuple.private_average,
                 dict(X=_X, epsilon=1.0, delta=1e-6, radius=2.0, n_public=len(_X), rng=0),
                 dict(X="data", radius="positive_real", center="values", resolution="positive_real",
                      n_public="positive_int",
                      beta="probability", rng="random_state", ledger="ledger",
                      **_EPS_DL)),
    FunctionCase("ktuple.random_rotation", ktuple.random_rotation, dict(d=3, rng=0),
                 dict(d="positive_int", rng="random_state")),
    FunctionCase("ktuple.interior_point_quality", ktuple.interior_point_quality, dict(x=_x, z=_x, **_GRID),
                 dict(x="values", z="values", resolution="positive_real")),
    FunctionCase("ktuple.bounding_segment_t", ktuple.bounding_segment_t, dict(epsilon=1.0, n_grid=1000, beta=0.05),
                 dict(n_grid="positive_int", beta="probability", **_EPS)),
    # ---------------------------------------------------------------- ktuple: the niceness test
    FunctionCase("ktuple.partitioned_by", ktuple.partitioned_by,
                 dict(T=_Tsmall, centers=_C2, radii=np.array([1.0, 1.0])),
                 dict(T="values", centers="data", radii="values")),
    FunctionCase("ktuple.close_tuple_counts", ktuple.close_tuple_counts,
                 dict(T=_Tsmall, candidates=_Tsmall[:3], gamma=10.0),
                 dict(T="values", candidates="values", gamma="positive_real")),
    FunctionCase("ktuple.tuple_separation", ktuple.tuple_separation, dict(X=_C2), dict(X="data")),
    FunctionCase("ktuple.canonical_order", ktuple.canonical_order, dict(C=_C2), dict(C="data")),
    FunctionCase("ktuple.good_centers_params", ktuple.good_centers_params,
                 dict(n=1000, epsilon=1.0, delta=1e-6, beta=0.05),
                 dict(n="positive_int", beta="probability", **_EPS_DL)),
    FunctionCase("ktuple.good_centers", ktuple.good_centers,
                 dict(T=_T, epsilon=1.0, delta=1e-6, beta=0.05, gamma=10.0, rng=0),
                 dict(T="values", beta="probability", gamma="positive_real", rng="random_state", ledger="ledger",
                      **_EPS_DL)),
    FunctionCase("ktuple.good_centers_status_samples", ktuple.good_centers_status_samples,
                 dict(T=_Tsmall, epsilon=4.0, delta=1e-3, beta=0.05, gamma=10.0, size=5, rng=0),
                 dict(T="values", beta="probability", gamma="positive_real", size="size", rng="random_state",
                      **_EPS_DL)),
    FunctionCase("ktuple.private_kaverages_params", ktuple.private_kaverages_params,
                 dict(n=10_000, n_clusters=2, epsilon=1.0, delta=1e-6),
                 dict(n="positive_int", n_clusters="positive_int", beta="probability", **_EPS_DL)),
    FunctionCase("ktuple.noisy_centers_min_gamma", ktuple.noisy_centers_min_gamma,
                 dict(n_clusters=2, n_features=2, epsilon=1.0, delta=1e-6),
                 dict(n_clusters="positive_int", n_features="positive_int", beta="probability",
                      target="probability", **_EPS_DL)),
    FunctionCase("ktuple.min_valid_tuples", ktuple.min_valid_tuples, dict(min_n_of=lambda n: 100),
                 dict(max_tuples="positive_int")),
    FunctionCase("ktuple.min_tuples_noisy_centers", ktuple.min_tuples_noisy_centers,
                 dict(n_clusters=2, epsilon=1.0, delta=1e-6),
                 dict(n_clusters="positive_int", beta="probability", **_EPS_DL)),
    FunctionCase("ktuple.min_tuples_kaverages", ktuple.min_tuples_kaverages,
                 dict(n_clusters=2, epsilon=1.0, delta=1e-6),
                 dict(n_clusters="positive_int", beta="probability", **_EPS_DL)),
    # ---------------------------------------------------------------- ktuple: k-means and experiments
    FunctionCase("experiments.ktuple.kmeans_tuples", kx.kmeans_tuples,
                 dict(X=_X, n_clusters=2, n_tuples=5, rng=0, labels=np.arange(len(_X)) % 5),
                 dict(X="data", n_clusters="positive_int", n_tuples="positive_int", n_iter="positive_int",
                      labels="labels", rng="random_state", method="option")),
    FunctionCase("kx.simulate_tuples", kx.simulate_tuples, dict(centers=_C2, n_tuples=5, noise=0.1, rng=0),
                 dict(centers="data", n_tuples="positive_int", noise="nonneg_real", rng="random_state")),
    FunctionCase("kx.match_centers", kx.match_centers, dict(estimated=_C2, true_centers=_C2),
                 dict(estimated="data_d_none_ok", true_centers="data_d")),
    FunctionCase("kx.ktuple_trials", kx.ktuple_trials,
                 dict(make_estimator=lambda s: ktuple.PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=s),
                      centers=_C2, n_tuples=330, n_reps=1, rng=0, noise=1e-3),
                 dict(centers="data", n_tuples="positive_int", n_reps="positive_int", rng="random_state")),
    # ---------------------------------------------------------------- gmm: data and SampleTuples
    FunctionCase("gmm.paper_mixture", gmm.paper_mixture, dict(n_components=2, n_features=2, R=20.0),
                 dict(n_components="positive_int", n_features="positive_int", R="positive_real")),
    FunctionCase("mixtures.random_separated_mixture", mx.random_separated_mixture,
                 dict(n_components=2, n_features=2, separation=8.0, random_state=0),
                 dict(n_components="positive_int", n_features="positive_int", separation="positive_real",
                      weights="values", sigma_range="values", random_state="random_state")),
    FunctionCase("gmm.sample_mixture", gmm.sample_mixture, dict(params=_P, n_samples=10, random_state=0),
                 dict(params="mixture", n_samples="positive_int", random_state="random_state")),
    FunctionCase("mixtures.mixture_separation", mx.mixture_separation, dict(params=_P), dict(params="mixture")),
    FunctionCase("gmm.check_mixture_params", gmm.check_mixture_params, dict(params=_P), dict(params="mixture")),
    FunctionCase("mixtures.kmeanspp_label_chunks", mx.kmeanspp_label_chunks,
                 dict(chunks=_chunks, n_clusters=2, random_state=0),
                 dict(chunks="values", n_clusters="positive_int", n_init="positive_int", max_iter="positive_int",
                      random_state="random_state")),
    FunctionCase("mixtures.sample_tuples", mx.sample_tuples,
                 dict(X1=_X2, n_tuples=4, chunk_size=50, n_components=2, random_state=0),
                 dict(X1="data", n_tuples="positive_int", chunk_size="positive_int", n_components="positive_int",
                      random_state="random_state")),
    FunctionCase("mixtures.simulate_chunk_means", mx.simulate_chunk_means,
                 dict(params=_P, n_tuples=4, chunk_size=50, random_state=0),
                 dict(params="mixture", n_tuples="positive_int", chunk_size="positive_int",
                      random_state="random_state")),
    # ---------------------------------------------------------------- gmm: the X2 learner
    FunctionCase("gmm.clipped_cluster_sums", gmm.clipped_cluster_sums,
                 dict(X2=_X2, labels=_lab2, centers=_P.means, radii=2.0),
                 dict(X2="data_d", labels="labels", centers="data_d", radii="values")),
    FunctionCase("gmm.clipped_scatter_triu", gmm.clipped_scatter_triu,
                 dict(X2=_X2, labels=_lab2, means=_P.means, radius=2.0),
                 dict(X2="data_d", labels="labels", means="data_d", radius="positive_real")),
    FunctionCase("gmm.private_cluster_gaussians", gmm.private_cluster_gaussians,
                 dict(X2=_X2, centers=_P.means, epsilon_weights=0.2, epsilon_mean=0.3, delta_mean=5e-7,
                      epsilon_cov=0.5, delta_cov=5e-7, mean_radius=5.0, cov_radius=6.0, rng=0),
                 dict(X2="data", centers="data", epsilon_weights="epsilon", epsilon_mean="epsilon",
                      delta_mean="delta", epsilon_cov="epsilon", delta_cov="delta", mean_radius="values",
                      cov_radius="positive_real", mean_steps="positive_int", beta="probability",
                      rng="random_state", ledger="ledger")),
    # ---------------------------------------------------------------- gmm: baseline, evaluation, harness
    FunctionCase("gmm.naive_noise_sigma", gmm.naive_noise_sigma, dict(radius=1.0, epsilon=1.0, delta=1e-5),
                 dict(radius="positive_real", n_features="positive_int", **_EPS_DL)),
    FunctionCase("gmm.naive_noisy_points", gmm.naive_noisy_points,
                 dict(X=_X, radius=1.0, epsilon=1.0, delta=1e-5, rng=0),
                 dict(X="data", radius="positive_real", rng="random_state", ledger="ledger", **_EPS_DL)),
    FunctionCase("mixtures.match_components", mx.match_components, dict(true_means=_C2, est_means=_C2[::-1]),
                 dict(true_means="data", est_means="data")),
    FunctionCase("mixtures.parameter_errors", mx.parameter_errors, dict(true=_P, est=_P),
                 dict(true="mixture", est="mixture")),
    FunctionCase("mixtures.gaussian_tv_upper_bound", mx.gaussian_tv_upper_bound,
                 dict(mu1=np.zeros(2), S1=np.eye(2), mu2=np.ones(2), S2=np.eye(2)),
                 dict(mu1="values", mu2="values", S1="data", S2="data")),
    FunctionCase("mixtures.mixture_tv_upper_bound", mx.mixture_tv_upper_bound, dict(true=_P, est=_P),
                 dict(true="mixture", est="mixture")),
    FunctionCase("mixtures.mixture_tv_mc", mx.mixture_tv_mc, dict(p=_P, q=_P, n_samples=500, random_state=0),
                 dict(p="mixture", q="mixture", n_samples="positive_int", random_state="random_state")),
    FunctionCase("mixtures.separates", mx.separates,
                 dict(params=_P, centers=_P.means, n_eval_per_component=50, random_state=0),
                 dict(params="mixture", centers="data_d_none_ok", n_eval_per_component="positive_int",
                      random_state="random_state")),
    FunctionCase("gx.fit_private_gmm_simulated", gx.fit_private_gmm_simulated,
                 dict(params=gmm.paper_mixture(2, 2, R=100.0), n_tuples=324, chunk_size=2000, n2=500,
                      estimator=gmm.PrivateGaussianMixture(2, 4.0, 1e-6, radius=200.0, random_state=1),
                      random_state=0),
                 dict(n_tuples="positive_int", chunk_size="positive_int", random_state="random_state")),
    FunctionCase("gx.compare_methods", gx.compare_methods,
                 dict(params=_P, n=1000, epsilon=1.0, delta=1e-6, radius=40.0, methods=("em",), random_state=0),
                 dict(n="positive_int", radius="positive_real", random_state="random_state", **_EPS_DL),
                 nan_ok=True),  # a method skipped for a large n has NaN errors
    FunctionCase("gmm.make_k_tuple", gmm.make_k_tuple,
                 dict(name="noisy_centers", n_components=2, epsilon=1.0, delta=1e-6),
                 dict(n_components="positive_int", beta="probability", **_EPS_DL)),
    FunctionCase("gmm.min_tuples", gmm.min_tuples, dict(k_tuple="noisy_centers", n_components=2, epsilon=4.0,
                                                        delta=1e-6),
                 dict(n_components="positive_int", beta="probability", **_EPS_DL)),
    FunctionCase("gx.separation_success_rate", gx.separation_success_rate,
                 dict(params=_P, epsilon=4.0, delta=1e-6, n_tuples=324, chunk_size=10_000, reps=1, random_state=0),
                 dict(n_tuples="positive_int", chunk_size="positive_int", reps="positive_int", beta="probability",
                      radius="positive_real", random_state="random_state", **_EPS_DL)),
    FunctionCase("gx.separation_sample_complexity", gx.separation_sample_complexity,
                 dict(params=_P, epsilon=4.0, delta=1e-6, reps=1, chunk_start=8192, refine=0, random_state=0),
                 dict(reps="positive_int", chunk_start="positive_int", max_chunk="positive_int",
                      random_state="random_state", **_EPS_DL)),
]
