"""The zCDP rule of the ledger (dpclust_core.accounting: ``PrivacyLedger.zcdp``, ``zcdp_budget``, ``zcdp_epsilon``)
and the zCDP Gaussian release (dpclust_core.mechanisms.gaussian_mechanism_zcdp) that LSHCoresetKMeans composes.

The conversion is checked against the formula of Canonne, Kamath & Steinke (2020, Cor. 13) evaluated on a fine grid
of alpha, against the package's Gaussian calibration and against Bun & Steinke's looser bound; the group is checked
to cost exactly its declared budget, to refuse an overspending release before its noise is drawn and to report the
true conversion when nothing caps it; the mechanism's noise has the stated sd (a statistical test, fixed seed).
"""
import math

import numpy as np
import pytest

from dpclust_core.accounting import BudgetExceededError, PrivacyLedger, zcdp_budget, zcdp_epsilon, zcdp_to_dp
from dpclust_core.mechanisms import GRID_BITS, _largest_rho, gaussian_mechanism, gaussian_mechanism_zcdp


def _cks_delta_on_grid(rho, eps):
    a = 1.0 + np.exp(np.linspace(-12, 8, 200_001))  # alpha - 1 from 6e-6 to 3000
    log_d = (a - 1) * (a * rho - eps) + a * np.log1p(-1 / a) - np.log(a - 1)
    return math.exp(log_d.min())


@pytest.mark.parametrize("eps, delta", [(0.1, 1e-6), (0.5, 1e-6), (1.0, 1e-6), (2.0, 1e-5), (8.0, 1e-9)])
def test_budget_is_the_largest_rho_of_the_conversion(eps, delta):
    rho = zcdp_budget(eps, delta)
    # the conversion at that rho meets delta (the grid's minimum is at least the infimum) ...
    assert _cks_delta_on_grid(rho, eps) <= delta * (1 + 1e-6)
    # ... and a rho 1e-6 larger does not: it is the largest
    assert _cks_delta_on_grid(rho * (1 + 1e-6), eps) > delta
    assert rho == pytest.approx(_largest_rho(eps, delta), rel=1e-10)  # the Gaussian calibration's rho
    assert zcdp_epsilon(rho, delta) == pytest.approx(eps, rel=1e-12)
    assert zcdp_epsilon(rho, delta) <= eps * (1 + 1e-14)  # at most float rounding above
    assert zcdp_epsilon(rho, delta) < zcdp_to_dp(rho, delta)  # tighter than Bun & Steinke's bound
    assert zcdp_epsilon(0.0, delta) == 0.0


def test_group_costs_its_budget_and_records_rho():
    led = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
    assert led.total() == (0.0, 0.0)
    rho = zcdp_budget(1.0, 1e-6)
    with led.zcdp("fit", 1.0, 1e-6):
        assert led.total() == (0.0, 0.0)  # an empty group costs nothing
        led.record("count", 0.1)
        assert led.total() == (1.0, 1e-6)
        with led.parallel("cells") as par:  # parallel parts: the maximum of their rho
            for r in (0.3 * rho, 0.5 * rho):
                with par.partition():
                    led.record("cell", 0.0, rho=r)
        led.record("rest", 0.0, rho=rho - 0.005 - 0.5 * rho)
        with pytest.raises(BudgetExceededError):  # one rho too many: refused, nothing recorded
            led.require(0.0, 0.0, "probe", rho=1e-9 * rho)
        with pytest.raises(BudgetExceededError):
            led.record("one too many", 0.001)
    assert [e.rho for e in led.entries][0] == pytest.approx(0.005, rel=1e-15)
    assert [r.get("rho") is not None for r in led.rows()] == [True] * 4
    assert led.total() == (1.0, 1e-6)
    assert "(rho " in led.summary()
    copy = PrivacyLedger()
    copy.extend(led)  # copies keep the rho and the rule
    assert copy.total() == (1.0, 1e-6) and [e.rho for e in copy.entries] == [e.rho for e in led.entries]


def test_overspending_without_a_cap_reports_the_true_conversion():
    led = PrivacyLedger()
    with led.zcdp("fit", 1.0, 1e-6):
        led.record("g", 0.0, rho=2 * zcdp_budget(1.0, 1e-6))
    eps, dl = led.total()
    assert dl == 1e-6 and eps == pytest.approx(zcdp_epsilon(2 * zcdp_budget(1.0, 1e-6), 1e-6), rel=1e-12)
    assert eps > 1.4


def test_what_the_group_refuses():
    led = PrivacyLedger()
    with pytest.raises(ValueError, match="zcdp"):  # a rho outside a zCDP group has no (epsilon, delta)
        led.record("g", 0.0, rho=0.01)
    with led.zcdp("fit", 1.0, 1e-6):
        with pytest.raises(ValueError, match="zcdp"):  # an (eps, delta) release with delta > 0 has no rho
            led.record("approx", 0.5, 1e-7)
        with pytest.raises(ValueError, match="rho"):
            led.record("g", 0.0, rho=-1.0)
    with pytest.raises(ValueError, match="zcdp"):
        gaussian_mechanism_zcdp([1.0], 1.0, 0.01, rng=0, ledger=led)
    assert led.total() == (0.0, 0.0)
    with led.zcdp("fit", 1.0, 1e-6):
        with led.advanced("inner", 1e-7):  # a rule without a zCDP cost inside: charged as unbounded
            led.record("x", 0.1)
    assert led.total()[0] == math.inf or led.total()[0] > 1e6


def test_gaussian_mechanism_zcdp_noise_and_grid():
    """sd of the noise (r + slack) / sqrt(2 rho) over 20,000 draws (the sample sd is within 3 % of the truth with
    probability > 0.999); outputs on the grid of the sensitivity; as the (eps, delta) mechanism at the same rho."""
    rho, sens = 0.02, 0.5
    out = gaussian_mechanism_zcdp(np.zeros(20_000), sens, rho, rng=0, l0_sensitivity=1)
    gamma = 2.0 ** math.floor(math.log2(sens / (2.0**GRID_BITS * 2)))
    assert np.std(out) == pytest.approx((sens + 2 * gamma) / math.sqrt(2 * rho), rel=0.03)
    assert np.all(np.abs(out / gamma - np.rint(out / gamma)) == 0)
    ref = gaussian_mechanism(np.zeros(20_000), sens, 1.0, 1e-6, rng=0, l0_sensitivity=1)
    ratio = np.std(gaussian_mechanism_zcdp(np.zeros(20_000), sens, zcdp_budget(1.0, 1e-6), rng=1, l0_sensitivity=1))
    assert ratio == pytest.approx(np.std(ref), rel=0.03)
