"""Cases for dpclust_core.postprocess (MCMC postprocessing of DP k-means transcripts)."""
import numpy as np

from dpclust_book.experiments import mcmc as mx
from dpclust_core import postprocess as pp

from . import EstimatorCase, FunctionCase, blobs

_rng = np.random.default_rng(0)
_T, _K, _D = 3, 2, 2
_S = _rng.normal(0, 5, size=(_T, _K, _D))
_N = _rng.uniform(5, 30, size=(_T, _K))
_C = _rng.uniform(-0.8, 0.8, size=(_T + 1, _K, _D))
_TR = pp.Transcript(_C, _S, _N, 2.0, 3.0, domain="box", radius=1.0)
_X = blobs(40, _D, _K, seed=2)

ESTIMATORS = [
    # fit(transcript): the scikit-learn parameter contract and the bad-parameter checks apply
    EstimatorCase("MCMCPostprocessor", lambda **kw: pp.MCMCPostprocessor(**{"n_steps": 100, **kw}),
                  epsilon=None, fit_arg="transcript"),
]

FUNCTIONS = [
    FunctionCase("Transcript", pp.Transcript,
                 dict(centroids=_C, s_tilde=_S, n_tilde=_N, count_scale=2.0, sum_scale=3.0),
                 dict(centroids="values", s_tilde="values", n_tilde="values", count_scale="positive_real_vec",
                      sum_scale="positive_real_vec", radius="positive_real", domain="option")),
    FunctionCase("consistent_l1", pp.consistent_l1, dict(s_tilde=_S, n_tilde=_N),
                 dict(s_tilde="values", n_tilde="values", sum_weights="positive_real_vec",
                      count_weights="positive_real_vec")),
    FunctionCase("l1_consistency_objective", mx.l1_consistency_objective,
                 dict(s_hat=_S, n_hat=_N, s_tilde=_S, n_tilde=_N),
                 dict(s_hat="values", n_hat="values", s_tilde="values", n_tilde="values",
                      sum_weights="positive_real_vec", count_weights="positive_real_vec")),
    FunctionCase("l1_consistency_lower_bound", mx.l1_consistency_lower_bound, dict(s_tilde=_S, n_tilde=_N),
                 dict(s_tilde="values", n_tilde="values", sum_weights="positive_real_vec",
                      count_weights="positive_real_vec")),
    FunctionCase("partition_statistics", mx.partition_statistics, dict(X=_X, transcript=_TR), dict(X="data")),
    FunctionCase("transcript_loss", mx.transcript_loss, dict(X=_X, transcript=_TR),
                 dict(X="data", temperature="positive_real")),
    FunctionCase("transcript_log_likelihood", mx.transcript_log_likelihood, dict(X=_X, transcript=_TR),
                 dict(X="data")),
    FunctionCase("postprocess.project_l1_ball", pp.project_l1_ball, dict(V=np.array([0.5, 2.0])),
                 dict(V="values", radius="positive_real")),
    FunctionCase("pooled_proposal_kmeans", mx.pooled_proposal_kmeans,
                 dict(transcript=_TR, n_points=50, n_init=1, random_state=0),
                 dict(n_points="size", proposal_var="positive_real", random_state="random_state")),
]
