"""Cases for the foundation: mechanisms and the ledger's composition rules."""
import numpy as np

from dpclust_core import accounting, mechanisms

from . import FunctionCase

FUNCTIONS = [
    FunctionCase("laplace_mechanism", mechanisms.laplace_mechanism,
                 dict(value=np.array([1.0, 2.0]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", sensitivity="nonneg_real", epsilon="epsilon", rng="random_state")),
    FunctionCase("geometric_mechanism", mechanisms.geometric_mechanism,
                 dict(value=np.array([1, 2]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", sensitivity="nonneg_real", epsilon="epsilon", rng="random_state")),
    FunctionCase("gaussian_mechanism", mechanisms.gaussian_mechanism,
                 dict(value=np.array([1.0, 2.0]), l2_sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
                 dict(value="values", l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta",
                      rng="random_state")),
    FunctionCase("exponential_mechanism", mechanisms.exponential_mechanism,
                 dict(scores=np.array([0.0, 1.0]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(scores="values", epsilon="epsilon", rng="random_state", size="size")),
    FunctionCase("exponential_mechanism_intervals", mechanisms.exponential_mechanism_intervals,
                 dict(scores=np.array([0.0, 1.0]), lengths=np.array([1.0, 2.0]), sensitivity=1.0, epsilon=1.0,
                      rng=0),
                 dict(scores="values", lengths="values", epsilon="epsilon", rng="random_state")),
    FunctionCase("gaussian_sigma", mechanisms.gaussian_sigma, dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                 dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta")),
    FunctionCase("discrete_gaussian_sigma", mechanisms.discrete_gaussian_sigma,
                 dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                 dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta")),
    FunctionCase("naive_laplace", mechanisms.naive_laplace, dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", epsilon="epsilon", rng="random_state")),
    FunctionCase("advanced_composition", accounting.advanced_composition,
                 dict(eps0=0.1, delta0=0.0, k=10, delta_prime=1e-6),
                 dict(eps0="nonneg_real", k="positive_int", delta_prime="delta")),
    FunctionCase("advanced_composition_inverse", accounting.advanced_composition_inverse,
                 dict(eps_total=1.0, k=10, delta_prime=1e-6),
                 dict(eps_total="epsilon", k="positive_int", delta_prime="delta")),
    FunctionCase("group_privacy", accounting.group_privacy, dict(eps=0.5, delta=1e-6, g=3),
                 dict(eps="nonneg_real", g="positive_int")),
    FunctionCase("subsample_wor", accounting.subsample_wor, dict(eps_star=1.0, delta_star=1e-6, m=10, n=100),
                 dict(eps_star="nonneg_real", m="positive_int", n="positive_int")),
    FunctionCase("zcdp_to_dp", accounting.zcdp_to_dp, dict(rho=0.1, delta=1e-6),
                 dict(rho="nonneg_real", delta="delta")),
]
FUNCTIONS.append(FunctionCase("gaussian_mechanism_sigma", mechanisms.gaussian_mechanism_sigma,
                              dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                              dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta",
                                   l0_sensitivity="positive_int")))
