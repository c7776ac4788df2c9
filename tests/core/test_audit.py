"""Tests of the empirical DP auditor (dpclust_core.audit, after Ding et al., CCS 2018).

Each audit runs at a fixed seed. For a correct mechanism the p-value is uniform or larger under a
fresh seed, so "p > 0.05" would fail with probability <= 5% per fresh seed; for the broken ones the
p-values are far below 1e-6, so the "p < 0.01" checks have essentially no false-alarm rate.
"""

import numpy as np
import pytest
from scipy import stats

from dpclust_core import audit
from dpclust_core.audit import AuditResult, _row_keys, epsilon_lower_bound, fisher_thinned_pvalue

EPS = 1.0


def laplace_count(noise_factor=1.0, eps=EPS):
    """A counting query (sensitivity 1) with Lap(noise_factor / eps) noise; 1.0 is correct."""
    def mech(data, n, rng):
        return np.sum(data) + rng.laplace(0.0, noise_factor / eps, size=n)
    return mech


def randomized_response(true_eps):
    """Report the bit with probability e^eps/(1+e^eps), its flip otherwise: true_eps-DP."""
    keep = np.exp(true_eps) / (1 + np.exp(true_eps))

    def mech(bit, n, rng):
        return np.where(rng.random(n) < keep, bit, 1 - bit)
    return mech


D1 = np.ones(5)  # neighbours under add/remove: D2 = D1 plus one record
D2 = np.ones(6)


def _counted(python_steps, mech, *args, **kw):
    """Audit ``mech`` and check the work without a clock: the mechanism is called four times (two batches on
    two inputs), each for the whole batch, and the auditor's own Python work does not grow with ``n_samples``
    (about 7,000 steps at any size; a loop over the 400,000 outputs would take millions)."""
    sizes = []

    def counting(data, n, rng):
        sizes.append(n)
        return mech(data, n, rng)

    res, steps = python_steps(audit, counting, *args, limit=50_000, **kw)
    assert sizes == [res.n_samples] * 4
    return res, steps


def test_correct_laplace_passes(python_steps):
    res, _ = _counted(python_steps, laplace_count(1.0), D1, D2, EPS, rng=2018)
    assert isinstance(res, AuditResult)
    assert res.p_value > 0.05, str(res)
    assert not res.rejects(0.01)
    # the empirical lower bound cannot exceed the true epsilon (at 95% confidence)
    assert 0.0 <= res.epsilon_lower_bound < EPS
    assert res.n_samples == 200_000 and sum(res.counts) > 0 and res.candidates > 10


def test_half_noise_laplace_is_rejected(python_steps):
    res, _ = _counted(python_steps, laplace_count(0.5), D1, D2, EPS, rng=2018)
    assert res.p_value < 0.01, str(res)
    assert res.rejects(0.01)
    # the true epsilon is 2: the bound is above the claim and below the truth
    assert EPS < res.epsilon_lower_bound < 2.0
    assert "VIOLATION" in str(res)


def test_randomized_response_pass_and_fail():
    ok = audit(randomized_response(EPS), 0, 1, EPS, n_samples=100_000, rng=7)
    assert ok.p_value > 0.05 and ok.epsilon_lower_bound < EPS, str(ok)
    assert ok.event.startswith("output in {")
    bad = audit(randomized_response(2 * EPS), 0, 1, EPS, n_samples=100_000, rng=7)
    assert bad.p_value < 0.01 and bad.epsilon_lower_bound > EPS, str(bad)
    assert bad.epsilon_lower_bound < 2 * EPS


def test_audit_with_nan_outputs_treats_nan_as_one_category():
    """A mechanism that sometimes halts (NaN) must not split NaN into many categories."""
    keys = _row_keys(np.array([1.0, np.nan, np.nan, 2.0, np.nan]))
    assert len(np.unique(keys)) == 3 and keys[1] == keys[2] == keys[4]

    def halting(true_eps):
        base = randomized_response(true_eps)

        def mech(bit, n, rng):
            out = base(bit, n, rng).astype(float)
            out[rng.random(n) < 0.2] = np.nan
            return out
        return mech

    ok = audit(halting(EPS), 0, 1, EPS, n_samples=50_000, rng=3)
    assert ok.p_value > 0.05, str(ok)
    bad = audit(halting(2 * EPS), 0, 1, EPS, n_samples=50_000, rng=3)
    assert bad.p_value < 0.01, str(bad)


def test_vector_outputs_are_categories():
    """Two noisy bits (vector rows) from randomized response on a pair of records."""
    def mech(bits, n, rng):
        rr = randomized_response(2.0)  # one record changes one bit: 2.0-DP
        return np.column_stack([rr(bits[0], n, rng), rr(bits[1], n, rng)])

    assert audit(mech, (0, 0), (0, 1), 2.0, n_samples=50_000, rng=1).p_value > 0.05
    res = audit(mech, (0, 0), (0, 1), 1.0, n_samples=50_000, rng=1)
    assert res.p_value < 0.01 and res.event.startswith("output in {(")


def test_statistic_and_custom_events():
    def mech(data, n, rng):  # vector output, 2 coordinates; only the sum carries the signal
        return np.column_stack([np.sum(data) + rng.laplace(0, 0.5, n), rng.normal(size=n)])

    res = audit(mech, D1, D2, EPS, n_samples=50_000, statistic=lambda o: o[:, 0], rng=4)
    assert res.p_value < 0.01 and res.event.startswith("output")
    events = [("first coordinate > 5.5", lambda o: o[:, 0] > 5.5),
              ("first coordinate < 5.5", lambda o: o[:, 0] < 5.5)]
    res2 = audit(mech, D1, D2, EPS, n_samples=50_000, events=events, rng=4)
    assert res2.event in {"first coordinate > 5.5", "first coordinate < 5.5"}
    assert res2.candidates == 4  # two events, two directions
    assert res2.p_value < 0.01


def test_false_alarm_rate_of_correct_mechanism():
    """Over 20 seeds, a correct mechanism is rejected at level 0.05 at most a few times.

    P[Binomial(20, 0.05) >= 5] = 0.0026, so this check fails by chance with probability < 0.3%.
    """
    pvals = [audit(laplace_count(1.0), D1, D2, EPS, n_samples=20_000, n_grid=20, rng=s).p_value
             for s in range(20)]
    assert sum(p < 0.05 for p in pvals) < 5, pvals


def test_delta_claim_is_more_lenient():
    # Lap(0.5) on a count is (1, delta)-DP exactly for delta >= 1 - e^(-1/2) = 0.3935 (hockey-stick
    # divergence of the two shifted Laplace densities): the audit accepts above and rejects below.
    assert audit(laplace_count(0.5), D1, D2, EPS, delta=0.43, n_samples=50_000, rng=0).p_value > 0.05
    res = audit(laplace_count(0.5), D1, D2, EPS, delta=0.35, n_samples=50_000, rng=0)
    assert res.p_value < 0.01, str(res)


def test_same_seed_same_result():
    a = audit(laplace_count(0.7), D1, D2, EPS, n_samples=20_000, rng=11)
    b = audit(laplace_count(0.7), D1, D2, EPS, n_samples=20_000, rng=11)
    assert (a.p_value, a.event, a.counts) == (b.p_value, b.event, b.counts)


def test_fisher_thinned_pvalue_matches_scipy_fisher_exact():
    n = 1000
    for t, c2 in [(120, 100), (50, 80), (300, 250), (0, 0)]:
        p = fisher_thinned_pvalue(None, c2, n, 1.0, thinned=t)
        ref = stats.fisher_exact([[t, n - t], [c2, n - c2]], alternative="greater")[1]
        assert float(p) == pytest.approx(ref, rel=1e-9)
    # vectorised, and thinning drawn from rng is reproducible
    c1, c2 = np.array([500, 600]), np.array([200, 210])
    assert np.array_equal(fisher_thinned_pvalue(c1, c2, n, 0.5, rng=1),
                          fisher_thinned_pvalue(c1, c2, n, 0.5, rng=1))


def test_epsilon_lower_bound_values():
    n = 100_000
    assert epsilon_lower_bound(5000, 5000, n) == 0.0
    lb = epsilon_lower_bound(20000, 5000, n)
    assert 0 < lb < np.log(4.0)  # below the point estimate ln(p1/p2)
    assert lb == pytest.approx(np.log(4.0), abs=0.05)
    assert epsilon_lower_bound(20000, 5000, n, confidence=0.999) < lb
    assert epsilon_lower_bound(0, 10, n) == 0.0
    assert epsilon_lower_bound(20000, 5000, n, delta=0.2) == 0.0


@pytest.mark.parametrize("kw,match", [({"epsilon": 0.0}, "epsilon"), ({"epsilon": np.nan}, "epsilon"),
                                      ({"n_samples": 5}, "n_samples"), ({"delta": 1.0}, "delta"),
                                      ({"delta": -0.1}, "delta"), ({"rng": "x"}, "rng")])
def test_bad_arguments(kw, match):
    args = {"epsilon": 1.0, "n_samples": 100}
    args.update(kw)
    eps = args.pop("epsilon")
    with pytest.raises(ValueError, match=match):
        audit(laplace_count(), D1, D2, eps, **args)


def test_mechanism_returning_wrong_count_raises():
    with pytest.raises(ValueError, match="outputs"):
        audit(lambda d, n, rng: np.zeros(n - 1), D1, D2, 1.0, n_samples=100, rng=0)


# ------------------------------------------------------------------ input checks (every message names the argument)
@pytest.mark.parametrize("kw,name", [
    ({"rng": True}, "rng"), ({"rng": -1}, "rng"), ({"rng": np.random.RandomState(0)}, "rng"),
    ({"n_samples": 10**13}, "n_samples"), ({"n_samples": 2.5}, "n_samples"), ({"n_grid": 1}, "n_grid"),
    ({"confidence": 1.0}, "confidence"), ({"confidence": "x"}, "confidence"), ({"delta": np.nan}, "delta"),
    ({"delta": True}, "delta"), ({"statistic": 3}, "statistic"), ({"events": [("a", 1)]}, "events"),
    ({"events": 5}, "events"), ({"events": []}, "events"), ({"epsilon": "1"}, "epsilon"),
    ({"epsilon": np.inf}, "epsilon"),
])
def test_bad_arguments_are_named(kw, name):
    args = {"epsilon": 1.0, "n_samples": 100, "rng": 0}
    args.update(kw)
    eps = args.pop("epsilon")
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        audit(laplace_count(), D1, D2, eps, **args)


@pytest.mark.parametrize("mech,match", [
    (None, "mechanism"),
    (lambda d, n, rng: 3.0, "scalar"),
    (lambda d, n, rng: np.array(["a"] * n), "numeric"),
    (lambda d, n, rng: np.zeros((n + 1, 2)), "outputs"),
])
def test_bad_mechanisms_are_refused(mech, match):
    with pytest.raises(ValueError, match=match):
        audit(mech, D1, D2, 1.0, n_samples=100, rng=0)


def test_statistic_returning_wrong_rows_is_refused():
    with pytest.raises(ValueError, match="statistic"):
        audit(laplace_count(), D1, D2, 1.0, n_samples=100, statistic=lambda o: o[:10], rng=0)


def test_boolean_outputs_are_categories():
    def coin(bit, n, rng):
        return rng.random(n) < (0.7 if bit else 0.3)  # ln(0.7/0.3) = 0.85-DP

    assert not audit(coin, 0, 1, 1.0, n_samples=20_000, rng=2).rejects(0.01)
    assert audit(coin, 0, 1, 0.5, n_samples=20_000, rng=2).rejects(0.01)


@pytest.mark.parametrize("call,name", [
    (lambda: fisher_thinned_pvalue(120, 100, 0, 1.0), "n"),
    (lambda: fisher_thinned_pvalue(1200, 100, 1000, 1.0), "c1"),
    (lambda: fisher_thinned_pvalue(120, -1, 1000, 1.0), "c2"),
    (lambda: fisher_thinned_pvalue(120.5, 100, 1000, 1.0), "c1"),
    (lambda: fisher_thinned_pvalue(120, 100, 1000, -1.0), "epsilon"),
    (lambda: fisher_thinned_pvalue(120, 100, 1000, 1.0, rng="x"), "rng"),
    (lambda: fisher_thinned_pvalue(None, 100, 1000, 1.0, thinned=np.nan), "thinned"),
    (lambda: epsilon_lower_bound(20, 5, 10), "c1"),
    (lambda: epsilon_lower_bound(np.array([2, 3]), 5, 100), "c1"),
    (lambda: epsilon_lower_bound(20, 5, 100, confidence=1.5), "confidence"),
    (lambda: epsilon_lower_bound(20, 5, 100, delta=1.0), "delta"),
])
def test_helper_bad_input(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()


def test_fisher_scalar_in_scalar_out():
    p = fisher_thinned_pvalue(None, 100, 1000, 1.0, thinned=150)
    assert isinstance(p, float) and p < 1e-3
