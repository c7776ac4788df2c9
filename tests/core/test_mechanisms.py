"""Unit tests of dpclust_core.mechanisms and the scalar checks of dpclust_core._validation.

Statistical tests use FIXED seeds, so they are deterministic; the stated false-alarm rate is what
the test would have under a fresh seed. Every distribution test is paired with a negative control
showing the same test rejects a wrong distribution (so the test can fail).
"""
import numpy as np
import pytest
from scipy import stats

from dpclust_core import PrivacyLedger
from dpclust_core._validation import check_delta, check_epsilon, check_rng, check_sensitivity
from dpclust_core.mechanisms import (exponential_mechanism, exponential_mechanism_intervals,
                                     exponential_mechanism_probabilities, discrete_gaussian_sigma, gaussian_mechanism, gaussian_sigma,
                                     geometric_mechanism, laplace_mechanism)

N_DRAWS = 20_000
ALPHA = 1e-3  # false-alarm rate of each distribution test under a fresh seed


# ------------------------------------------------------------------ Laplace
@pytest.mark.parametrize("value,sens,eps", [(3.0, 1.0, 1.0), (-2.5, 2.0, 0.5), (0.0, 0.1, 4.0)])
def test_laplace_scalar_distribution_ks(value, sens, eps):
    rng = np.random.default_rng(20240601)
    draws = np.array([laplace_mechanism(value, sens, eps, rng) for _ in range(2000)])
    assert stats.kstest(draws, stats.laplace(loc=value, scale=sens / eps).cdf).pvalue > ALPHA


def test_laplace_vector_distribution_ks_and_negative_control():
    value = np.full(N_DRAWS, 7.0)
    out = laplace_mechanism(value, 2.0, 0.5, rng=11)
    assert out.shape == value.shape and isinstance(out, np.ndarray)
    assert stats.kstest(out, stats.laplace(loc=7.0, scale=4.0).cdf).pvalue > ALPHA
    # negative control: the scale of an off-by-two sensitivity is rejected by the same test
    assert stats.kstest(out, stats.laplace(loc=7.0, scale=2.0).cdf).pvalue < 1e-10
    assert stats.kstest(out, stats.laplace(loc=7.0, scale=8.0).cdf).pvalue < 1e-10


def test_laplace_vector_independent_coordinates_and_shape():
    value = np.zeros((N_DRAWS // 2, 2))
    out = laplace_mechanism(value, 1.0, 1.0, rng=5)
    assert out.shape == (N_DRAWS // 2, 2)
    assert abs(np.corrcoef(out[:, 0], out[:, 1])[0, 1]) < 4 / np.sqrt(out.shape[0])
    # variance of Lap(b) is 2 b^2 = 2
    assert np.var(out) == pytest.approx(2.0, rel=0.05)


def test_laplace_scalar_returns_float_and_zero_sensitivity_is_exact():
    out = laplace_mechanism(5, 1.0, 1.0, rng=0)
    assert isinstance(out, float)
    assert laplace_mechanism(5.5, 0.0, 1.0, rng=0) == 5.5
    v = np.array([1.0, 2.0])
    out0 = laplace_mechanism(v, 0.0, 1.0, rng=0)
    assert np.array_equal(out0, v) and out0 is not v


def test_laplace_records_in_ledger():
    led = PrivacyLedger()
    laplace_mechanism([1.0, 2.0], 3.0, 0.25, rng=0, ledger=led, name="sums")
    (e,) = led.entries
    assert (e.name, e.epsilon, e.delta, e.sensitivity) == ("sums", 0.25, 0.0, 3.0)


# ------------------------------------------------------------------ geometric
@pytest.mark.parametrize("sens,eps", [(1.0, 1.0), (2.0, 0.5), (1.0, 0.1)])
def test_geometric_chi_square_against_exact_pmf(sens, eps):
    out = geometric_mechanism(np.full(N_DRAWS * 2, 10), sens, eps, rng=3) - 10
    assert out.dtype == np.int64
    alpha = np.exp(-eps / sens)
    pmf = lambda z: (1 - alpha) / (1 + alpha) * alpha ** np.abs(z)  # noqa: E731
    # bins: every integer in [-K, K] with expected count >= 5, plus the two tails
    K = int(np.floor(np.log(5 / (2 * N_DRAWS * (1 - alpha) / (1 + alpha))) / np.log(alpha)))
    zs = np.arange(-K, K + 1)
    expected = 2 * N_DRAWS * pmf(zs)
    tail = 2 * N_DRAWS * (1 - pmf(zs).sum()) / 2
    observed = np.array([(out == z).sum() for z in zs])
    obs = np.concatenate([[np.sum(out < -K)], observed, [np.sum(out > K)]])
    exp_ = np.concatenate([[tail], expected, [tail]])
    assert obs.sum() == 2 * N_DRAWS
    assert stats.chisquare(obs, exp_).pvalue > ALPHA
    # negative control: the pmf at twice the epsilon is rejected
    a2 = np.exp(-2 * eps / sens)
    wrong = 2 * N_DRAWS * (1 - a2) / (1 + a2) * a2 ** np.abs(zs)
    wtail = (2 * N_DRAWS - wrong.sum()) / 2
    assert stats.chisquare(obs, np.concatenate([[wtail], wrong, [wtail]])).pvalue < 1e-10


def test_geometric_scalar_int_and_rejects_non_integer():
    out = geometric_mechanism(4, 1, 1.0, rng=0)
    assert isinstance(out, int)
    assert geometric_mechanism(4, 0, 1.0, rng=0) == 4
    with pytest.raises(ValueError, match="value"):
        geometric_mechanism(1.5, 1, 1.0, rng=0)
    led = PrivacyLedger()
    geometric_mechanism([1, 2, 3], 1, 0.3, rng=0, ledger=led)
    assert led.epsilon == 0.3 and led.entries[0].sensitivity == 1.0


# ------------------------------------------------------------------ Gaussian
def test_gaussian_sigma_analytic_balle_wang_value():
    # Balle & Wang (2018): sigma = 3.7305... for Delta=1, eps=1, delta=1e-5
    assert gaussian_sigma(1.0, 1.0, 1e-5) == pytest.approx(3.7305, abs=5e-4)


@pytest.mark.parametrize("eps,delta", [(0.1, 1e-6), (1.0, 1e-5), (3.0, 1e-3), (10.0, 1e-8)])
def test_gaussian_sigma_analytic_is_tight(eps, delta):
    """The analytic sigma achieves exactly delta in Balle & Wang's Theorem 8 condition."""
    s = gaussian_sigma(1.0, eps, delta)
    a, b = 1 / (2 * s), eps * s
    achieved = stats.norm.cdf(a - b) - np.exp(eps) * stats.norm.cdf(-a - b)
    assert achieved == pytest.approx(delta, rel=1e-6)
    # linear in the sensitivity
    assert gaussian_sigma(2.5, eps, delta) == pytest.approx(2.5 * s, rel=1e-9)


def test_gaussian_sigma_classic_formula_and_domain():
    for eps, delta in [(0.5, 1e-5), (0.9, 1e-3)]:
        classic = gaussian_sigma(2.0, eps, delta, method="classic")
        assert classic == pytest.approx(np.sqrt(2 * np.log(1.25 / delta)) * 2.0 / eps, rel=1e-12)
        assert gaussian_sigma(2.0, eps, delta) < classic  # analytic is never worse
    with pytest.raises(ValueError, match="epsilon"):
        gaussian_sigma(1.0, 1.0, 1e-5, method="classic")
    with pytest.raises(ValueError, match="method"):
        gaussian_sigma(1.0, 0.5, 1e-5, method="renyi")
    assert gaussian_sigma(0.0, 1.0, 1e-5) == 0.0


def test_gaussian_mechanism_distribution_and_ledger():
    led = PrivacyLedger()
    out = gaussian_mechanism(np.zeros(N_DRAWS), 1.0, 1.0, 1e-5, rng=8, ledger=led, name="g")
    s = discrete_gaussian_sigma(1.0 + 1e-3, 1.0, 1e-5)  # sensitivity plus the grid's rounding slack
    assert s == pytest.approx(discrete_gaussian_sigma(1.0, 1.0, 1e-5), rel=2e-3)
    assert stats.kstest(out, stats.norm(scale=s).cdf).pvalue > ALPHA
    assert stats.kstest(out, stats.norm(scale=1.1 * s).cdf).pvalue < 1e-6  # negative control
    # the zCDP calibration of discrete noise costs a few percent over the continuous analytic sigma
    assert 1.0 < s / gaussian_sigma(1.0, 1.0, 1e-5) < 1.1
    (e,) = led.entries
    assert (e.name, e.epsilon, e.delta, e.sensitivity) == ("g", 1.0, 1e-5, 1.0)
    assert isinstance(gaussian_mechanism(1.0, 1.0, 0.5, 1e-5, rng=0), float)


# ------------------------------------------------------------------ exponential
def _binomial_ok(counts, probs, n, alpha=1e-4):
    """Every count inside its two-sided binomial interval (Bonferroni over the options)."""
    lo, hi = stats.binom.interval(1 - alpha / len(probs), n, probs)
    return np.all((counts >= lo) & (counts <= hi)), (counts, n * probs)


@pytest.mark.parametrize("monotonic,factor", [(False, 2.0), (True, 1.0)])
def test_exponential_frequencies_match_exp_eps_q(monotonic, factor):
    scores = np.array([0.0, 1.0, 2.0, 3.0, 5.0, -np.inf])
    eps, sens, n = 0.8, 1.5, 100_000
    draws = exponential_mechanism(scores, sens, eps, rng=21, monotonic=monotonic, size=n)
    counts = np.bincount(draws, minlength=scores.size)
    w = np.exp(eps * scores / (factor * sens))
    probs = w / w.sum()
    ok, info = _binomial_ok(counts, probs, n)
    assert ok, info
    assert counts[-1] == 0  # -inf is never selected
    assert np.allclose(exponential_mechanism_probabilities(scores, sens, eps, monotonic), probs,
                       rtol=1e-12, atol=0)
    # negative control: the other factor's proportions are outside the bound
    w_wrong = np.exp(eps * scores / ((3.0 - factor) * sens))
    assert not _binomial_ok(counts, w_wrong / w_wrong.sum(), n)[0]


def test_exponential_no_overflow_for_huge_scores():
    scores = np.array([1e6, 1e6 - 1.0, 0.0, -1e6])
    p = exponential_mechanism_probabilities(scores, 1.0, 1.0)
    assert np.all(np.isfinite(p)) and p.sum() == pytest.approx(1.0, abs=1e-12)
    assert p[1] / p[0] == pytest.approx(np.exp(-0.5), rel=1e-9)
    draws = exponential_mechanism(scores, 1.0, 1.0, rng=0, size=20_000)
    assert set(np.unique(draws)) <= {0, 1}
    assert np.mean(draws == 0) == pytest.approx(p[0], abs=0.02)
    with np.errstate(all="raise"):
        idx = exponential_mechanism(scores * 1e3, 1.0, 10.0, rng=0)
    assert idx == 0


def test_exponential_single_draw_and_ledger():
    led = PrivacyLedger()
    idx = exponential_mechanism([0.0, 10.0], 1.0, 5.0, rng=2, ledger=led, name="pick")
    assert isinstance(idx, int) and idx in (0, 1)
    exponential_mechanism([0.0, 10.0], 1.0, 0.5, rng=2, ledger=led, size=4)
    assert led.entries[0].name == "pick" and led.entries[0].epsilon == 5.0
    assert led.entries[1].epsilon == pytest.approx(2.0)  # 4 selections at 0.5 each
    assert led.epsilon == pytest.approx(7.0, rel=1e-12)


# ------------------------------------------------------------------ the exponential mechanism is exact
def _all_ones(monkeypatch, calls=None):
    """Make every random word the sampler reads all ones: the uniform R is then as close to 1 as its bits allow,
    inside the last option's bucket as soon as enough bits are read."""
    from dpclust_core import mechanisms as m

    def raw(rng, n):
        if calls is not None:
            calls.append(n)
        return np.uint64(2**64 - 1) if n is None else np.full(n, 2**64 - 1, dtype=np.uint64)

    monkeypatch.setattr(m, "_raw64", raw)


def test_an_option_trailing_by_60_has_a_positive_probability(monkeypatch):
    """Option 1 trails by 120 score units, G = eps (q* - q) / (2 Δ) = 60: its probability e^-60 / (1 + e^-60),
    about 8.8e-27, is far below what float Gumbel noise (range about [-3.6, 36.7]) can reach, so Gumbel-max gave it
    exactly 0. The sampler's arithmetic puts it in the bucket [1 - 8.8e-27, 1) of the uniform: a uniform forced into
    that bucket (all random bits 1) returns it, after the exact path has read a second 64-bit word."""
    from decimal import Decimal, localcontext

    from dpclust_core import mechanisms as m

    table = m._EMTable(np.array([0.0, -120.0]), None, 1.0, 2.0, 1.0)
    with localcontext() as ctx:
        ctx.prec = 60
        width = Decimal(-60).exp() / (1 + Decimal(-60).exp())
    assert 8.7e-27 < float(width) < 8.8e-27 and 2.0**-128 < float(width) < 2.0**-64
    calls = []
    _all_ones(monkeypatch, calls)
    assert m.exponential_mechanism([0.0, -120.0], 1.0, 1.0, rng=0) == 1
    assert calls == [None, None]  # 64 bits left it ambiguous; 128 bits put R inside the bucket
    assert table.draw(1, None)[0] == 1
    # further down: G = 500 (probability about 7e-218) and a count-weighted piece
    assert m.exponential_mechanism([0.0, -1000.0], 1.0, 1.0, rng=0) == 1
    assert m.exponential_mechanism_intervals([0.0, -200.0], [5, 3], 1.0, 1.0, rng=0)[0] == 1
    # the old sampler could not: the largest float Gumbel draw is about 36.7 < 60
    u_max = np.nextafter(1.0, 0.0)
    assert -np.log(-np.log(u_max)) < 37.0


def test_exact_path_agrees_with_the_float_path():
    """For uniforms the float search decides, the exact Decimal inversion gives the same option; for uniforms
    placed right on a float bucket edge (where the float search defers), it gives the option an independent
    high-precision computation of the edges gives."""
    from decimal import Decimal, localcontext

    from dpclust_core import mechanisms as m

    rng = np.random.default_rng(0)
    q = np.concatenate([rng.normal(0, 20, 300), [-np.inf], rng.normal(0, 3, 200)])
    c = rng.integers(0, 5, q.size).astype(float)
    for counts in (None, c):
        table = m._EMTable(q, counts, 0.7, 2.0, 1.3)
        raw = rng.integers(0, 2**63, 300, dtype=np.uint64) * np.uint64(2)
        fast = np.searchsorted(table.cum, raw.astype(float) * 2.0**-64 * table.total, side="right")
        for a, j in zip(raw.tolist(), fast.tolist()):
            assert table._exact_draw(int(a), None) == j
        # uniforms right at the float edges: the exact answer from an independent 100-digit computation
        live = q > -np.inf if counts is None else (q > -np.inf) & (counts > 0)
        w_c = np.ones(live.sum()) if counts is None else counts[live]
        with localcontext() as ctx:
            ctx.prec = 100
            qs = Decimal(float(q[live].max()))
            w = [(Decimal(0.7) / Decimal(2.6) * (Decimal(float(v)) - qs)).exp() * int(cc)
                 for v, cc in zip(q[live], w_c)]
            S = np.cumsum(np.array(w, dtype=object))
            for j in rng.choice(live.sum() - 1, 20, replace=False):
                edge = S[j] / S[-1]  # the upper edge of bucket j
                a = int(edge * 2**64)  # R in [a 2^-64, (a+1) 2^-64): within 2^-64 of the edge
                below, above = Decimal(a + 1) / 2**64 <= edge, Decimal(a) / 2**64 >= edge
                nxt = j + 1  # the next bucket of positive width above the edge
                got = table._exact_draw(a, np.random.default_rng(1))
                assert got == j if below else got == nxt if above else got in (j, nxt)


def test_slow_path_is_rare_for_ten_thousand_options(monkeypatch):
    """10^4 options spread over 100 units of score: of 2·10^5 draws, at most a handful need the exact path (the
    float error bound is about 2n·u of the total, so about 2·10^-8 of the draws)."""
    from dpclust_core import mechanisms as m

    slow = []
    original = m._EMTable._exact_draw
    monkeypatch.setattr(m._EMTable, "_exact_draw", lambda self, a, rng: slow.append(a) or original(self, a, rng))
    q = np.random.default_rng(3).normal(0, 30, 10_000)
    out = exponential_mechanism(q, 1.0, 1.0, rng=4, size=200_000)
    assert len(slow) <= 3 and out.min() >= 0 and out.max() < q.size


def test_exponential_chi_square_against_its_probabilities():
    """Frequencies of 400,000 draws against exponential_mechanism_probabilities: plain (options trailing by up to
    12 units of 2Δ/ε), monotonic, and count-weighted pieces (exponential_mechanism_intervals, whose offsets are
    uniform). Chi-square at false-alarm rate 1e-4 each; the negative control uses the wrong factor."""
    n = 400_000
    q = np.array([0.0, -1.0, -3.0, 2.0, 2.0, -8.0, -20.0, -np.inf])
    for mono in (False, True):
        p = exponential_mechanism_probabilities(q, 1.5, 1.8, monotonic=mono)
        obs = np.bincount(exponential_mechanism(q, 1.5, 1.8, rng=11, monotonic=mono, size=n), minlength=q.size)
        keep = n * p > 5
        assert obs[~keep].sum() <= 3 * max(1.0, n * p[~keep].sum()) and obs[-1] == 0
        assert stats.chisquare(obs[keep], n * p[keep] / p[keep].sum() * obs[keep].sum() / n).pvalue > 1e-4
        wrong = exponential_mechanism_probabilities(q, 1.5, 1.8, monotonic=not mono)
        assert stats.chisquare(obs[keep], n * wrong[keep] / wrong[keep].sum() * obs[keep].sum() / n).pvalue < 1e-9
    counts = np.array([3, 1, 0, 7, 2, 40, 1000, 5])
    p = exponential_mechanism_probabilities(q, 1.5, 1.8, counts=counts)
    i, off = exponential_mechanism_intervals(q, counts, 1.5, 1.8, rng=12, size=n)
    obs = np.bincount(i, minlength=q.size)
    keep = n * p > 5
    assert obs[2] == 0 and obs[-1] == 0 and np.all(off < counts[i]) and np.all(off >= 0)
    assert stats.chisquare(obs[keep], n * p[keep] / p[keep].sum() * obs[keep].sum() / n).pvalue > 1e-4
    sel = i == 3  # the offsets inside a piece of 7 points are uniform
    assert stats.chisquare(np.bincount(off[sel], minlength=7)).pvalue > 1e-4


def test_top_k_rounds_are_exact_when_one_option_dominates():
    """Round 2 when option 0 takes almost all the mass: the rejection draws give up and the remaining options are
    drawn directly; the second pick follows the law of the remaining options (chi-square, false alarm 1e-4), and
    at a huge epsilon the picks are the scores in decreasing order."""
    from dpclust_core.mechanisms import exponential_mechanism_top_k

    q = np.array([60.0, 1.0, 0.0, 2.0, -np.inf])
    n = 100_000
    sel = exponential_mechanism_top_k(q, 2, 1.0, 1.0, rng=5, size=n)
    assert np.all(sel[:, 0] == 0)  # option 0 has all but e^-29 of the mass
    p = exponential_mechanism_probabilities(q[1:4], 1.0, 1.0)
    obs = np.bincount(sel[:, 1] - 1, minlength=3)
    assert stats.chisquare(obs, n * p).pvalue > 1e-4
    top = exponential_mechanism_top_k(np.array([5.0, -1e300, 3.0, 1e-300, 4.0]), 4, 1.0, 1e300, rng=0, size=20)
    assert np.all(top == [0, 4, 2, 3])


@pytest.mark.parametrize("counts,match", [([1, -1], "counts"), ([1.5, 1], "counts"), ([0, 0], "counts"),
                                          ([1, 2, 3], "counts"), ([2.0**53, 1], "counts"), ("ab", "counts")])
def test_interval_counts_are_checked(counts, match):
    from dpclust_core.mechanisms import exponential_mechanism_intervals

    with pytest.raises(ValueError, match=match):
        exponential_mechanism_intervals([0.0, 1.0], counts, 1.0, 1.0, rng=0)


@pytest.mark.parametrize("scores", [[], [[1.0, 2.0]], [1.0, np.nan], [1.0, np.inf], [-np.inf, -np.inf]])
def test_exponential_bad_scores(scores):
    with pytest.raises(ValueError, match="scores"):
        exponential_mechanism(scores, 1.0, 1.0, rng=0)


def test_exponential_bad_sensitivity_and_size():
    with pytest.raises(ValueError, match="sensitivity"):
        exponential_mechanism([1.0, 2.0], 0.0, 1.0, rng=0)
    with pytest.raises(ValueError, match="size"):
        exponential_mechanism([1.0, 2.0], 1.0, 1.0, rng=0, size=0)


# ------------------------------------------------------------------ bad input, every mechanism
MECHS = {
    "laplace": lambda eps=1.0, sens=1.0, value=1.0: laplace_mechanism(value, sens, eps, rng=0),
    "geometric": lambda eps=1.0, sens=1.0, value=1.0: geometric_mechanism(value, sens, eps, rng=0),
    "gaussian": lambda eps=1.0, sens=1.0, value=1.0: gaussian_mechanism(value, sens, eps, 1e-5, rng=0),
    "exponential": lambda eps=1.0, sens=1.0, value=1.0: exponential_mechanism(
        np.atleast_1d(value), sens, eps, rng=0),
}
BAD_EPS = [0, 0.0, -1.0, np.nan, np.inf, -np.inf, "1", None, True]


@pytest.mark.parametrize("mech", MECHS)
@pytest.mark.parametrize("eps", BAD_EPS, ids=repr)
def test_bad_epsilon_raises_naming_it(mech, eps):
    with pytest.raises(ValueError, match="epsilon"):
        MECHS[mech](eps=eps)


@pytest.mark.parametrize("mech", MECHS)
@pytest.mark.parametrize("sens", [-1.0, -1e-12, np.nan, np.inf, "1", None], ids=repr)
def test_bad_sensitivity_raises_naming_it(mech, sens):
    with pytest.raises(ValueError, match="sensitivity"):
        MECHS[mech](sens=sens)


@pytest.mark.parametrize("mech", ["laplace", "geometric", "gaussian"])
@pytest.mark.parametrize("value", [np.nan, np.inf, [1.0, -np.inf], [[0.0, np.nan]]], ids=repr)
def test_non_finite_value_raises_naming_it(mech, value):
    with pytest.raises(ValueError, match="value"):
        MECHS[mech](value=value)


@pytest.mark.parametrize("delta", [0, 0.0, 1, 1.0, -1e-5, 1.5, np.nan, np.inf, None, "1e-5"], ids=repr)
def test_bad_delta_raises_naming_it(delta):
    with pytest.raises(ValueError, match="delta"):
        gaussian_mechanism(1.0, 1.0, 1.0, delta, rng=0)
    with pytest.raises(ValueError, match="delta"):
        gaussian_sigma(1.0, 1.0, delta)


def test_scalar_checks_return_floats():
    assert check_epsilon(np.float32(0.5)) == 0.5 and isinstance(check_epsilon(1), float)
    assert check_epsilon(np.inf, allow_inf=True) == np.inf
    assert check_delta(1e-6) == 1e-6
    assert check_sensitivity(0) == 0.0
    with pytest.raises(ValueError, match="my_eps"):
        check_epsilon(-1, name="my_eps")


# ------------------------------------------------------------------ randomness handling
ALL_CALLS = [
    lambda rng: laplace_mechanism(np.zeros(5), 1.0, 1.0, rng),
    lambda rng: geometric_mechanism(np.zeros(5, dtype=int), 1.0, 1.0, rng),
    lambda rng: gaussian_mechanism(np.zeros(5), 1.0, 1.0, 1e-5, rng),
    lambda rng: exponential_mechanism(np.arange(5.0), 1.0, 1.0, rng, size=5),
]


@pytest.mark.parametrize("call", ALL_CALLS)
def test_rng_int_seed_reproducible_generator_advances(call):
    assert np.array_equal(call(123), call(123))
    assert not np.array_equal(call(123), call(124))
    g = np.random.default_rng(5)
    a, b = call(g), call(g)
    assert not np.array_equal(a, b)  # the Generator's state advanced
    assert np.array_equal(call(np.random.default_rng(5)), a)
    call(None)  # fresh entropy, must work


def test_global_numpy_random_state_untouched():
    np.random.seed(987)
    before = np.random.get_state()
    for call in ALL_CALLS:
        call(None)
        call(3)
    exponential_mechanism(np.arange(3.0), 1.0, 1.0)
    after = np.random.get_state()
    assert before[0] == after[0] and np.array_equal(before[1], after[1]) and before[2:] == after[2:]


@pytest.mark.parametrize("bad", ["seed", -1, 1.5, np.random.RandomState(0), [1, 2]], ids=repr)
def test_bad_rng_raises(bad):
    with pytest.raises(ValueError, match="rng"):
        check_rng(bad)
    with pytest.raises(ValueError, match="rng"):
        laplace_mechanism(0.0, 1.0, 1.0, bad)


def test_large_releases_draw_in_blocks_with_bounded_memory(monkeypatch):
    """The exact samplers draw in blocks: a release far larger than a block keeps the sampler's temporaries at a
    fixed size (peak extra memory below 4x the release itself, measured 3.1x, against ~11x in one piece), and a
    blocked release is the concatenation of the blocks' draws (so its law is unchanged)."""
    import tracemalloc

    from dpclust_core import mechanisms as m

    monkeypatch.setattr(m, "_BLOCK", 1 << 14)
    value = np.zeros(1 << 20)
    tracemalloc.start()
    tracemalloc.reset_peak()
    out = m.gaussian_mechanism(value, 1.0, 1.0, 1e-6, rng=0, l0_sensitivity=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 4 * value.nbytes
    sigma = m.gaussian_mechanism_sigma(1.0, 1.0, 1e-6, l0_sensitivity=1)
    assert abs(out.std() / sigma - 1) < 0.01            # 2^20 draws: the sd is within 1% (about 7 s.e.)
    first = m._discrete_laplace_block(3.0, 1 << 14, np.random.default_rng(5))
    blocked = m._discrete_laplace(3.0, 3 << 14, np.random.default_rng(5))
    assert np.array_equal(blocked[: 1 << 14], first)
