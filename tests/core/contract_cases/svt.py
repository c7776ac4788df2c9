"""Cases for the Sparse Vector Technique (dpclust_core.svt), the auditor (dpclust_core.audit) and the top-k
exponential mechanism that svt_ex.select_top_c draws through (mechanisms.exponential_mechanism_top_k)."""
import numpy as np

from dpclust_core import PrivacyLedger, audit, mechanisms, svt
from dpclust_core.audit import epsilon_lower_bound, fisher_thinned_pvalue
from dpclust_book import svt_exact
from dpclust_book.experiments import svt as svt_ex

from . import FunctionCase

Q2 = np.array([0.0, 1.0])  # two queries: a bad threshold of length 2 with NaN is caught as NaN, not as a shape
Q2N = np.array([1.0, 0.0])
SCORES = svt_ex.zipf_scores(200, 20_000)

_RUN_KINDS = dict(queries="values", threshold="values", epsilon="epsilon", c="positive_int",
                  sensitivity="positive_real", n_runs="size", rng="random_state")


def _variant_case(name):
    kinds = dict(_RUN_KINDS)
    kwargs = dict(queries=Q2, threshold=0.5, epsilon=1.0, c=1, n_runs=3, rng=0)
    if svt.VARIANTS[name].private:
        kwargs["ledger"] = PrivacyLedger()
        kinds["ledger"] = "ledger"
    return FunctionCase(f"svt.{name}", getattr(svt, name), kwargs, kinds, nan_ok=True)  # NaN: halted


def _laplace_count(data, n, rng):
    return mechanisms.laplace_mechanism(np.full(n, float(len(data))), 1.0, 1.0, rng, l0_sensitivity=1)


FUNCTIONS = [
    FunctionCase("svt.run", svt.run,
                 dict(variant="lyu_su_li", queries=Q2, threshold=0.5, epsilon=1.0, c=1, n_runs=3, rng=0,
                      ledger=PrivacyLedger()),
                 dict(_RUN_KINDS, ledger="ledger"), nan_ok=True),  # NaN marks the queries after the run halted
    *[_variant_case(name) for name in svt.VARIANTS],
    FunctionCase("svt.noise_config", svt.noise_config, dict(variant="standard", epsilon=1.0, c=2, sensitivity=1.0),
                 dict(epsilon="epsilon", c="positive_int", sensitivity="positive_real")),
    FunctionCase("svt.optimal_split", svt.optimal_split, dict(epsilon=1.0, c=3),
                 dict(epsilon="epsilon", c="positive_int", monotonic="flag")),
    FunctionCase("svt.comparison_noise_std", svt.comparison_noise_std,
                 dict(fraction=0.3, epsilon=1.0, c=3, sensitivity=1.0),
                 dict(fraction="probability_vec", epsilon="epsilon", c="positive_int", sensitivity="positive_real",
                      monotonic="flag")),
    FunctionCase("svt_exact.output_probability", svt_exact.output_probability,
                 dict(variant="roth_2011", queries=Q2, threshold=0.0, epsilon=1.0, c=1, output=np.array([0.0, 1.0]),
                      upper=np.array([np.inf, 0.0])),
                 dict(queries="values", threshold="values", epsilon="epsilon", c="positive_int", upper="values_inf_ok",
                      sensitivity="positive_real")),
    FunctionCase("svt_exact.privacy_loss", svt_exact.privacy_loss,
                 dict(variant="lee_clifton_2014", queries=Q2, queries_neighbour=Q2N, threshold=0.0, epsilon=1.0, c=1,
                      output=np.array([0.0, 1.0])),
                 dict(queries="values", queries_neighbour="values", threshold="values", epsilon="epsilon",
                      c="positive_int")),
    FunctionCase("svt_exact.monte_carlo_probability", svt_exact.monte_carlo_probability,
                 dict(variant="lyu_su_li", queries=Q2, threshold=0.0, epsilon=1.0, c=1, output=np.array([0.0, 1.0]),
                      n_runs=100, rng=0),
                 dict(queries="values", threshold="values", epsilon="epsilon", c="positive_int", n_runs="size",
                      rng="random_state", sensitivity="positive_real", chunk="size")),
    FunctionCase("svt_exact.matches_output", svt_exact.matches_output,
                 dict(outputs=np.array([[0.0, 1.0], [1.0, np.nan]]), output=np.array([0.0, 1.0]),
                      upper=np.array([np.inf, 2.0])),
                 dict(upper="values_inf_ok")),
    FunctionCase("svt_exact.audit_variant", svt_exact.audit_variant,
                 dict(variant="stoddard_2014", queries=Q2, queries_neighbour=Q2N, threshold=0.0, epsilon=1.0, c=1,
                      n_samples=500, rng=0),
                 dict(queries="values", queries_neighbour="values", threshold="values", epsilon="epsilon",
                      c="positive_int", n_samples="size", rng="random_state", sensitivity="positive_real")),
    FunctionCase("svt_exact.decode_event", svt_exact.decode_event, dict(codes=np.array([5, 7]), m=2),
                 dict(codes="values", m="size")),
    FunctionCase("svt_ex.counterexample", svt_ex.counterexample, dict(variant="chen_2015", m=3), dict(m="size")),
    FunctionCase("svt_ex.three_views", svt_ex.three_views,
                 dict(variant="stoddard_2014", epsilon=1.0, n_mc=500, n_audit=500, rng=0),
                 dict(epsilon="epsilon", n_mc="size", n_audit="size", rng="random_state", m="size")),
    FunctionCase("svt_ex.default_threshold", svt_ex.default_threshold, dict(scores=SCORES, c=5),
                 dict(scores="values", c="positive_int")),
    FunctionCase("svt_ex.gptt_proof_argument", svt_ex.gptt_proof_argument, dict(t=3, epsilon=1.0),
                 dict(t="size", epsilon="epsilon")),
    FunctionCase("svt_ex.alpha_svt", svt_ex.alpha_svt, dict(k=1000, beta=0.05, epsilon=1.0),
                 dict(k="values", beta="probability", epsilon="epsilon")),
    FunctionCase("svt_ex.alpha_em", svt_ex.alpha_em, dict(k=1000, beta=0.05, epsilon=1.0),
                 dict(k="values", beta="probability", epsilon="epsilon")),
    FunctionCase("svt_ex.zipf_scores", svt_ex.zipf_scores, dict(n_items=100, total=1000.0),
                 dict(n_items="size", total="positive_real")),
    *[FunctionCase(f"svt_ex.select_top_c[{method}]", svt_ex.select_top_c,
                   dict(method=method, scores=SCORES, c=5, epsilon=1.0, n_runs=4, rng=0, threshold=60.0,
                        increment=1.0, max_passes=100, ledger=PrivacyLedger()),
                   dict(scores="values", c="positive_int", epsilon="epsilon", n_runs="size", rng="random_state",
                        threshold="values", increment="nonneg_real", sensitivity="positive_real",
                        max_passes="size", ratio="positive_real", ledger="ledger"))
      for method in ("svt", "dpbook", "retraversal", "em")],
    FunctionCase("svt_ex.selection_metrics", svt_ex.selection_metrics,
                 dict(scores=SCORES, selected=np.array([[0, 1], [2, -1]]), c=2),
                 dict(scores="values", selected="data", c="positive_int")),
    FunctionCase("svt_ex.zipf_experiment", svt_ex.zipf_experiment,
                 dict(settings=[(0.5, 5)], methods=["S 1:1", "EM"], n_runs=3, rng=0, scores=SCORES),
                 dict(n_runs="size", rng="random_state", scores="values")),
    # the auditor
    FunctionCase("audit.audit", audit,
                 dict(mechanism=_laplace_count, d1=np.ones(5), d2=np.ones(6), epsilon=1.0, n_samples=200, rng=0),
                 dict(epsilon="epsilon", n_samples="size", n_grid="size", confidence="probability",
                      rng="random_state")),
    FunctionCase("audit.fisher_thinned_pvalue", fisher_thinned_pvalue,
                 dict(c1=np.array([120, 30]), c2=np.array([100, 40]), n=1000, epsilon=0.5, rng=0),
                 dict(c1="values", c2="values", n="size", epsilon="nonneg_real", rng="random_state")),
    FunctionCase("audit.epsilon_lower_bound", epsilon_lower_bound,
                 dict(c1=200, c2=50, n=1000),
                 dict(c1="values", c2="values", n="size", confidence="probability")),
    # the top-k exponential mechanism (added to mechanisms.py for select_top_c)
    FunctionCase("exponential_mechanism_top_k", mechanisms.exponential_mechanism_top_k,
                 dict(scores=np.array([0.0, 1.0, 2.0]), k=2, sensitivity=1.0, epsilon=1.0, rng=0, size=3),
                 dict(scores="scores", k="positive_int", sensitivity="positive_real", epsilon="epsilon",
                      rng="random_state", size="size", ledger="ledger", monotonic="flag")),
]
