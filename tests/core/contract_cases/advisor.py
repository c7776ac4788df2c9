"""Cases for dpclust_core.advisor: the error models per method, the recommendation, the posterior bound, the
NICV estimated from released synopses and the release card (public functions; no estimator)."""
import numpy as np

from dpclust_core import advisor
from dpclust_core.accounting import PrivacyLedger
from dpclust_core.kmeans.grid import GridSynopsis

from . import FunctionCase

_SYN = GridSynopsis(np.array([10.0, 0.0, 0.0, 10.0]), m=2, d=2, r=1.0, epsilon=1.0)
_LEDGER = PrivacyLedger(budget_epsilon=1.0)
_LEDGER.record("noisy count", 0.5)

_NDKE = dict(n="count_real", d="positive_int", k="positive_int", epsilon="epsilon")

FUNCTIONS = [
    FunctionCase("advisor.expected_nicv", advisor.expected_nicv,
                 dict(n=3376, d=2, k=5, epsilon=0.38, bounds=(-10.0, 10.0), methods=("DPLloyd", "EUGkM")),
                 dict(_NDKE, bounds="bounds", methods="strings", baseline="nonneg_real", r="positive_real",
                      theta="positive_real")),
    FunctionCase("advisor.recommend", advisor.recommend, dict(n=3376, d=2, k=5, epsilon=0.38, delta=1e-6),
                 dict(_NDKE, delta="delta_or_zero", ledger="ledger")),
    FunctionCase("advisor.posterior_bound", advisor.posterior_bound,
                 dict(prior=np.array([0.01, 0.5]), epsilon=1.0, delta=1e-6),
                 dict(prior="values", epsilon="epsilon", delta="delta_or_zero")),
    FunctionCase("advisor.synopsis_nicv", advisor.synopsis_nicv,
                 dict(synopses=[_SYN], centers=np.array([[-5.0, -5.0], [5.0, 5.0]]), bounds=(-10.0, 10.0)),
                 dict(synopses="values", centers="data_d", bounds="bounds")),
    FunctionCase("advisor.release_card", advisor.release_card,
                 dict(ledger=_LEDGER, unit="one person", public={"k": 3}, released=["the count"],
                      not_covered=["timing"]),
                 dict(ledger="ledger_required", neighbours="text", unit="text", public="mapping",
                      released="strings", not_covered="strings")),
]
