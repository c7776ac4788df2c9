"""Cases for the foundation: mechanisms, the ledger and its composition rules."""
import inspect

import numpy as np

from dpclust_core import accounting, mechanisms
from dpclust_core.accounting import PrivacyLedger

from . import FunctionCase


def _ledger_context(method):
    """A function that opens (and closes) one of the ledger's composition contexts: its arguments are checked
    when the context is entered."""
    def run(**kw):
        with getattr(PrivacyLedger(), method)(**kw):
            pass
    run.__name__ = f"PrivacyLedger.{method}"
    run.__signature__ = inspect.signature(getattr(PrivacyLedger(), method))
    return run


def _ledger_method(method):
    def run(**kw):
        led = PrivacyLedger()
        led.record("earlier release", 0.5, 1e-7)
        return getattr(led, method)(**kw)
    run.__name__ = f"PrivacyLedger.{method}"
    run.__signature__ = inspect.signature(getattr(PrivacyLedger(), method))
    return run


FUNCTIONS = [
    FunctionCase("laplace_mechanism", mechanisms.laplace_mechanism,
                 dict(value=np.array([1.0, 2.0]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", sensitivity="nonneg_real", epsilon="epsilon", rng="random_state",
                      l0_sensitivity="positive_int", ledger="ledger")),
    FunctionCase("geometric_mechanism", mechanisms.geometric_mechanism,
                 dict(value=np.array([1, 2]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", sensitivity="nonneg_real", epsilon="epsilon", rng="random_state",
                      ledger="ledger")),
    FunctionCase("gaussian_mechanism", mechanisms.gaussian_mechanism,
                 dict(value=np.array([1.0, 2.0]), l2_sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0),
                 dict(value="values", l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta",
                      rng="random_state", l0_sensitivity="positive_int", ledger="ledger")),
    FunctionCase("exponential_mechanism", mechanisms.exponential_mechanism,
                 dict(scores=np.array([0.0, 1.0]), sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(scores="scores", sensitivity="positive_real", epsilon="epsilon", rng="random_state", size="size",
                      monotonic="flag", ledger="ledger")),
    FunctionCase("exponential_mechanism_intervals", mechanisms.exponential_mechanism_intervals,
                 dict(scores=np.array([0.0, 1.0]), counts=np.array([1, 2]), sensitivity=1.0, epsilon=1.0,
                      rng=0),
                 dict(scores="scores", counts="values", sensitivity="positive_real", epsilon="epsilon",
                      rng="random_state", monotonic="flag", size="size", ledger="ledger")),
    FunctionCase("gaussian_sigma", mechanisms.gaussian_sigma, dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                 dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta", method="option")),
    FunctionCase("discrete_gaussian_sigma", mechanisms.discrete_gaussian_sigma,
                 dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                 dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta")),
    FunctionCase("naive_laplace", mechanisms.naive_laplace, dict(value=1.0, sensitivity=1.0, epsilon=1.0, rng=0),
                 dict(value="values", sensitivity="nonneg_real", epsilon="epsilon", rng="random_state")),
    FunctionCase("exponential_mechanism_probabilities", mechanisms.exponential_mechanism_probabilities,
                 dict(scores=np.array([0.0, 1.0, -np.inf]), sensitivity=1.0, epsilon=1.0),
                 dict(scores="scores", sensitivity="positive_real", epsilon="epsilon", monotonic="flag")),
    FunctionCase("laplace_noise", mechanisms.laplace_noise, dict(scale=2.0, size=(3, 2), rng=0),
                 dict(scale="positive_real", size="shape", rng="random_state")),
    FunctionCase("gaussian_noise", mechanisms.gaussian_noise, dict(sigma=np.array([1.0, 2.0]), size=(3, 2), rng=0),
                 dict(sigma="values", size="shape", rng="random_state")),
    FunctionCase("zcdp_delta", mechanisms.zcdp_delta, dict(rho=0.1, epsilon=1.0),
                 dict(rho="nonneg_real", epsilon="epsilon")),
    FunctionCase("laplace_grid", mechanisms.laplace_grid, dict(sensitivity=1.0, n_coords=3),
                 dict(sensitivity="nonneg_real", n_coords="positive_int")),
    FunctionCase("grid_step", mechanisms.grid_step, dict(scale=3.0, bits=10),
                 dict(scale="positive_real", bits="positive_int")),
    FunctionCase("interval_grid", mechanisms.interval_grid, dict(low=-1.0, high=2.0, bits=10),
                 dict(bits="positive_int")),
    FunctionCase("snap_to_grid", mechanisms.snap_to_grid, dict(value=np.array([0.3, -1.2]), step=0.25),
                 dict(value="values", step="positive_real")),
    FunctionCase("snap_release", mechanisms.snap_release, dict(value={"a": np.array([0.3])}, step=0.25),
                 dict(step="positive_real")),
    # ---------------------------------------------------------------- the ledger
    FunctionCase("PrivacyLedger", PrivacyLedger, dict(budget_epsilon=1.0, budget_delta=1e-6),
                 dict(budget_epsilon="epsilon", budget_delta="delta_or_zero")),
    FunctionCase("PrivacyLedger.record", _ledger_method("record"),
                 dict(name="count", epsilon=0.5, delta=1e-6, sensitivity=1.0),
                 dict(epsilon="nonneg_real", delta="delta_or_zero", sensitivity="nonneg_real")),
    FunctionCase("PrivacyLedger.require", _ledger_method("require"), dict(epsilon=0.5, delta=1e-6),
                 dict(epsilon="nonneg_real", delta="delta_or_zero")),
    FunctionCase("PrivacyLedger.check", _ledger_method("check"), dict(epsilon=1.0, delta=1e-6, rtol=1e-9),
                 dict(epsilon="epsilon", delta="delta_or_zero", rtol="nonneg_real")),
    FunctionCase("PrivacyLedger.extend", _ledger_method("extend"), dict(other=PrivacyLedger(), prefix="a: "),
                 dict(other="ledger_required")),
    FunctionCase("PrivacyLedger.subsampled", _ledger_context("subsampled"), dict(name="sample", m=10, n=100),
                 dict(m="positive_int", n="positive_int")),
    FunctionCase("PrivacyLedger.advanced", _ledger_context("advanced"), dict(name="rounds", delta_prime=1e-6),
                 dict(delta_prime="delta")),
    FunctionCase("PrivacyLedger.group_privacy", _ledger_context("group_privacy"), dict(name="groups", g=3),
                 dict(g="positive_int")),
    # ---------------------------------------------------------------- composition rules
    FunctionCase("advanced_composition", accounting.advanced_composition,
                 dict(eps0=0.1, delta0=0.0, k=10, delta_prime=1e-6),
                 dict(eps0="nonneg_real", delta0="delta_or_zero", k="positive_int", delta_prime="delta")),
    FunctionCase("advanced_composition_inverse", accounting.advanced_composition_inverse,
                 dict(eps_total=1.0, k=10, delta_prime=1e-6),
                 dict(eps_total="epsilon", k="positive_int", delta_prime="delta")),
    FunctionCase("group_privacy", accounting.group_privacy, dict(eps=0.5, delta=1e-6, g=3),
                 dict(eps="nonneg_real", delta="delta_or_zero", g="positive_int")),
    FunctionCase("subsample_wor", accounting.subsample_wor, dict(eps_star=1.0, delta_star=1e-6, m=10, n=100),
                 dict(eps_star="nonneg_real", delta_star="delta_or_zero", m="positive_int", n="positive_int")),
    FunctionCase("subsample_wor_inverse", accounting.subsample_wor_inverse, dict(eps_target=0.5, m=10, n=100),
                 dict(eps_target="epsilon", m="positive_int", n="positive_int")),
    FunctionCase("subsample_kln11", accounting.subsample_kln11,
                 dict(eps_star=0.5, delta_star=1e-6, m=10, n=100_000, eps=0.5),
                 dict(eps_star="nonneg_real", delta_star="delta_or_zero", m="positive_int", n="positive_int",
                      eps="epsilon")),
    FunctionCase("subsample_wr_bnsv15", accounting.subsample_wr_bnsv15,
                 dict(eps_star=0.5, delta_star=1e-6, m=10, n=100),
                 dict(eps_star="nonneg_real", delta_star="delta_or_zero", m="positive_int", n="positive_int")),
    FunctionCase("dp_to_zcdp", accounting.dp_to_zcdp, dict(eps=1.0), dict(eps="epsilon")),
    FunctionCase("gaussian_zcdp", accounting.gaussian_zcdp, dict(l2_sensitivity=1.0, sigma=2.0),
                 dict(l2_sensitivity="nonneg_real", sigma="positive_real")),
    FunctionCase("zcdp_to_dp", accounting.zcdp_to_dp, dict(rho=0.1, delta=1e-6),
                 dict(rho="nonneg_real", delta="delta")),
]
FUNCTIONS.append(FunctionCase("gaussian_mechanism_sigma", mechanisms.gaussian_mechanism_sigma,
                              dict(l2_sensitivity=1.0, epsilon=1.0, delta=1e-5),
                              dict(l2_sensitivity="nonneg_real", epsilon="epsilon", delta="delta",
                                   l0_sensitivity="positive_int")))
