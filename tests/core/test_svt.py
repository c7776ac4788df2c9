"""Tests of dpclust_core.svt: exact counterexample values (spec svt.md §2.4–2.5), Monte Carlo agreement,
auditor verdicts, budget ledgers, input validation, speed, and the top-c selection experiment.

Statistical tests use fixed seeds; each states its false-alarm rate under a correct implementation.
"""
import itertools
import math

import numpy as np
import pytest
from scipy import integrate, stats

from dpclust_core import PrivacyLedger, svt
from dpclust_core.accounting import BudgetExceededError
from dpclust_core.mechanisms import (exponential_mechanism_probabilities, exponential_mechanism_top_k,
                                     laplace_noise)
from dpclust_book import svt_exact
from dpclust_book.experiments import svt as svt_ex

EPS = 1.0


def c3_inputs(m, k, monotone=False):
    """Spec §2.4 C3: m pinning queries then k leaking ones; output (⊥^m, ⊤^k)."""
    qd = np.r_[np.zeros(m), np.ones(k)]
    qn = np.zeros(m + k) if monotone else np.r_[np.ones(m), np.zeros(k)]
    return qd, qn, np.r_[np.zeros(m), np.ones(k)]


def c2_inputs(ell):
    """Spec §2.4 C2 (Alg. 19): q(D) = 0^ℓ, q(D') = (1^(ℓ-1), 0); event ⊥^(ℓ-1) then a number <= 0."""
    qd = np.zeros(ell)
    qn = np.r_[np.ones(ell - 1), 0.0]
    out = np.r_[np.zeros(ell - 1), 1.0]
    up = np.r_[np.full(ell - 1, np.inf), 0.0]
    return qd, qn, out, up


def c4_inputs(t):
    return np.tile([0.0, 1.0], t), np.tile([1.0, 0.0], t), np.tile([0.0, 1.0], t)


# ------------------------------------------------------------------ exact values of spec §2.4
def test_c1_stoddard_exact():
    pd = svt_exact.output_probability("stoddard_2014", [0, 1], 0.0, EPS, 1, [0, 1])
    pn = svt_exact.output_probability("stoddard_2014", [1, 0], 0.0, EPS, 1, [0, 1])
    assert pd == pytest.approx(0.196735, abs=1e-4)
    assert pd == pytest.approx(0.5 * (1 - math.exp(-0.5)), rel=1e-12)
    assert pn == 0.0
    assert svt_exact.privacy_loss("stoddard_2014", [0, 1], [1, 0], 0.0, EPS, 1, [0, 1]) == math.inf


C2_TABLE = {2: (0.0208333, 0.0126361, 0.5), 3: (0.00520833, 0.00191604, 1.0), 4: (0.0015625, 0.000348641, 1.5),
            5: (0.000520833, 7.04871e-5, 2.0), 8: (2.71267e-5, 8.19156e-7, 3.5)}


@pytest.mark.parametrize("ell", sorted(C2_TABLE))
def test_c2_roth_exact(ell):
    qd, qn, out, up = c2_inputs(ell)
    pd = svt_exact.output_probability("roth_2011", qd, 0.0, EPS, 1, out, upper=up)
    pn = svt_exact.output_probability("roth_2011", qn, 0.0, EPS, 1, out, upper=up)
    want_d, want_n, want_lr = C2_TABLE[ell]
    assert pd == pytest.approx(want_d, abs=1e-4, rel=1e-5)
    assert pn == pytest.approx(want_n, abs=1e-4, rel=1e-5)
    assert pd == pytest.approx(2.0 ** -(ell - 1) / (4 * ell * (ell + 1)), rel=1e-9)  # closed form
    lr = svt_exact.privacy_loss("roth_2011", qd, qn, 0.0, EPS, 1, out, upper=up)
    assert lr == pytest.approx(want_lr, abs=1e-4)
    assert lr == pytest.approx((ell - 1) * EPS / 2, abs=1e-8)  # exactly (ℓ-1)ε2/c


C3_TABLE = {  # (variant, k=c): ln R at m = 0, 1, 10, 100 ; limit
    ("lyu_su_li", 1): ([0.1517, 0.3958, 0.9940, 1.0000], 1.0),
    ("lyu_su_li", 10): ([0.2222, 0.2490, 0.4786, 1.0000], 1.0),
    ("lee_clifton_2014", 1): ([0.1680, 1.0326, 1.7449, 1.7500], 1.75),
    ("lee_clifton_2014", 2): ([0.2101, 1.3802, 3.2168, 3.2500], 3.25),
    ("lee_clifton_2014", 5): ([0.2417, 1.6595, 7.3030, 7.7500], 7.75),
    ("chen_2015", 1): ([0.2166, 0.7367, 1.4960, 1.5000], 1.5),
    ("chen_2015", 5): ([0.4584, 1.3477, 5.2193, 5.5000], 5.5),
}


@pytest.mark.parametrize("variant,k", sorted(C3_TABLE))
def test_c3_pinned_threshold_exact(variant, k):
    want, limit = C3_TABLE[(variant, k)]
    for m, w in zip([0, 1, 10, 100], want):
        qd, qn, out = c3_inputs(m, k)
        lr = svt_exact.privacy_loss(variant, qd, qn, 0.0, EPS, k, out)
        assert lr == pytest.approx(w, abs=1e-4), (variant, k, m)
    qd, qn, out = c3_inputs(10_000, k)
    assert svt_exact.privacy_loss(variant, qd, qn, 0.0, EPS, k, out) == pytest.approx(limit, abs=1e-4)


def test_c3_bounds_alg17_tight_and_never_exceeded():
    for c in (1, 2, 5, 10):
        for m in (0, 1, 10, 100, 1000):
            qd, qn, out = c3_inputs(m, c)
            assert svt_exact.privacy_loss("lyu_su_li", qd, qn, 0.0, EPS, c, out) <= EPS + 1e-9
    qd, qn, out = c3_inputs(1000, 5)
    assert svt_exact.privacy_loss("lyu_su_li", qd, qn, 0.0, EPS, 5, out) == pytest.approx(EPS, abs=1e-6)  # tight


def test_c3_monotone_version():
    for c, want in [(1, 0.75), (2, 1.50), (4, 3.00)]:
        qd, qn, out = c3_inputs(100, c, monotone=True)
        assert svt_exact.privacy_loss("lee_clifton_2014", qd, qn, 0.0, EPS, c, out) == pytest.approx(want, abs=1e-4)
    qd, qn, out = c3_inputs(100, 1, monotone=True)
    assert svt_exact.privacy_loss("lyu_su_li", qd, qn, 0.0, EPS, 1, out) == pytest.approx(0.25, abs=1e-4)
    assert svt_exact.privacy_loss("standard", qd, qn, 0.0, EPS, 1, out, monotonic=True, ratio=1) == pytest.approx(
        0.50, abs=1e-4)
    for c in (1, 3, 10):  # T7: monotone Alg. 23 at its default split stays within ε1 + ε2
        qd, qn, out = c3_inputs(100, c, monotone=True)
        assert svt_exact.privacy_loss("standard", qd, qn, 0.0, EPS, c, out, monotonic=True) <= EPS + 1e-9


def test_dwork_roth_segment_formula_within_bound():
    for c in (1, 2, 3):
        for m in (0, 10, 100):
            qd, qn, out = c3_inputs(m, c)
            assert svt_exact.privacy_loss("dwork_roth_2014", qd, qn, 0.0, EPS, c, out) <= EPS + 1e-9


C4_TABLE = {1: 0.7367, 2: 1.5295, 5: 4.0308, 10: 8.3466, 20: 17.1437, 100: 88.5876, 200: 178.2891}


def test_c4_gptt_pairs_grow_linearly():
    for t, want in C4_TABLE.items():
        qd, qn, out = c4_inputs(t)
        assert svt_exact.privacy_loss("gptt", qd, qn, 0.0, EPS, 1, out) == pytest.approx(want, abs=1e-4), t
    qd, _, out = c4_inputs(5)
    assert svt_exact.output_probability("gptt", qd, 0.0, EPS, 1, out, log=True) / math.log(10) == pytest.approx(-2.65,
                                                                                                         abs=0.01)
    # asymptotic slope 2 ln(2 e^{1/4} - 1) = 0.8997 per pair
    lr = [svt_exact.privacy_loss("gptt", *c4_inputs(t)[:2], 0.0, EPS, 1, c4_inputs(t)[2]) for t in (400, 800)]
    assert (lr[1] - lr[0]) / 400 == pytest.approx(2 * math.log(2 * math.exp(0.25) - 1), abs=2e-3)
    # GPTT at eps1 = eps2 = eps/2 is Alg. 22
    qd, qn, out = c4_inputs(3)
    assert svt_exact.privacy_loss("gptt", qd, qn, 0.0, EPS, 1, out) == pytest.approx(
        svt_exact.privacy_loss("chen_2015", qd, qn, 0.0, EPS, 1, out), abs=1e-12)


def test_gptt_proof_reductio_alg17():
    want = {1: 0.17886, 2: 0.30584, 5: 0.46705, 10: 0.49884, 100: 0.50000}
    for t, w in want.items():
        r = svt_ex.gptt_proof_argument(t, EPS, kind="lyu_su_li")
        assert r["log_ratio"] == pytest.approx(w, abs=1e-4)
        assert r["log_ratio"] <= EPS / 2 + 1e-12  # Lemma 4
        assert r["kappa"] > 1
    g = svt_ex.gptt_proof_argument(1, EPS, kind="gptt")
    # κ(0) = (1 − F(−1))/F(−1) = 2.2974 at ε2 = 1/2; the minimum over [−δ, δ] is smaller
    f = 0.5 * math.exp(-0.5)
    assert (1 - f) / f == pytest.approx(2.2974, abs=1e-4)
    assert 1 < g["kappa"] < 2.2974
    # κ(t) shrinks as t grows: the proof's parameter dependence
    ks = [svt_ex.gptt_proof_argument(t, EPS, kind="gptt")["kappa"] for t in (1, 5, 20)]
    assert ks[0] > ks[1] > ks[2] > 1


def test_output_probabilities_sum_to_one():
    q = np.array([0.3, -1.0, 2.0, 0.5])
    patterns = [np.array(p, dtype=float) for p in itertools.product([0.0, 1.0, np.nan], repeat=4)]
    for variant, c, kw in [("lyu_su_li", 2, {}), ("lee_clifton_2014", 1, {}), ("chen_2015", 2, {}),
                           ("dwork_roth_2014", 2, {}), ("standard", 3, {"monotonic": True}),
                           ("gptt", 1, {"eps1": 0.3})]:
        tot = sum(svt_exact.output_probability(variant, q, 0.5, EPS, c, p, **kw) for p in patterns)
        assert tot == pytest.approx(1.0, abs=1e-9), variant


def test_optimal_split_table():
    # spec §3.2: eps1/E and std(1:1)/std(opt)
    for c, f_gen, r_gen, f_mono, r_mono in [(1, 0.3865, 1.075, 0.5, 1.0), (25, 0.0686, 1.798, 0.1047, 1.696),
                                            (50, 0.0444, 1.869, 0.0686, 1.798), (300, 0.0139, 1.959, 0.0218, 1.935)]:
        for mono, f, r in ((False, f_gen, r_gen), (True, f_mono, r_mono)):
            e1, e2 = svt.optimal_split(1.0, c, monotonic=mono)
            assert e1 + e2 == pytest.approx(1.0, rel=1e-15)
            assert e1 == pytest.approx(f, abs=1e-4)
            s_opt = svt.comparison_noise_std(e1, 1.0, c, monotonic=mono)
            assert svt.comparison_noise_std(0.5, 1.0, c, monotonic=mono) / s_opt == pytest.approx(r, abs=1e-3)
            grid = np.linspace(0.001, 0.999, 2000)
            assert svt.comparison_noise_std(grid, 1.0, c, monotonic=mono).min() >= s_opt * (1 - 1e-12)


# ------------------------------------------------------------------ Monte Carlo agrees with the integrals
def _mc_cases():
    qd, _, out = c3_inputs(10, 1)
    qd2, _, out2 = c3_inputs(3, 2)
    q4, _, out4 = c4_inputs(2)
    qr, _, outr, upr = c2_inputs(4)
    return [  # (variant, q, output, c, upper, params)
        ("lee_clifton_2014", qd, out, 1, None, {}),
        ("lyu_su_li", qd, out, 1, None, {}),
        ("dwork_roth_2014", qd2, out2, 2, None, {}),
        ("chen_2015", q4, out4, 1, None, {}),
        ("roth_2011", qr, outr, 1, upr, {}),
        ("standard", np.array([0.5, -0.2, 1.0]), np.array([0.0, 1.0, np.nan]), 1,
         np.array([np.inf, 0.8, np.inf]), {"eps3": 0.4}),
        ("standard", np.array([0.5, -0.2, 1.0, 0.0]), np.array([0.0, 1.0, 0.0, 1.0]), 2, None, {"monotonic": True}),
    ]


@pytest.mark.parametrize("case", _mc_cases(), ids=lambda c: c[0])
def test_monte_carlo_agrees_with_integral(case):
    variant, q, out, c, up, kw = case
    p = svt_exact.output_probability(variant, q, 0.0, EPS, c, out, upper=up, **kw)
    n = 1_000_000
    p_hat, hits, _ = svt_exact.monte_carlo_probability(variant, q, 0.0, EPS, c, out, n_runs=n, rng=12345, upper=up,
                                                 **kw)
    se = math.sqrt(p * (1 - p) / n)
    # 4.4 binomial standard errors: two-sided false-alarm rate about 1e-5 per case
    assert abs(p_hat - p) <= 4.4 * se + 1e-12, (variant, p, p_hat)


def test_stoddard_monte_carlo_zero_hits():
    _, hits, _ = svt_exact.monte_carlo_probability("stoddard_2014", [1, 0], 0.0, EPS, 1, [0, 1], n_runs=200_000, rng=3)
    assert hits == 0


# ------------------------------------------------------------------ the auditor
# At the claimed epsilon, on the counterexample inputs. For the buggy variants the true log-ratio exceeds
# eps by >= 0.5 and the p-values are astronomically small. For the correct ones the null hypothesis holds,
# so p is (at least) uniform: a correct implementation fails "p > 0.05" for about 5% of seeds; the seed is fixed.
AUDIT_BAD = {
    "roth_2011": (c2_inputs(4)[0], c2_inputs(4)[1], 1, 200_000),
    "lee_clifton_2014": (c3_inputs(10, 1)[0], c3_inputs(10, 1)[1], 1, 200_000),
    "stoddard_2014": (np.array([0.0, 1.0]), np.array([1.0, 0.0]), 1, 20_000),
    "chen_2015": (c3_inputs(10, 1)[0], c3_inputs(10, 1)[1], 1, 100_000),
    "gptt": (c4_inputs(5)[0], c4_inputs(5)[1], 1, 100_000),
}


@pytest.mark.parametrize("variant", sorted(AUDIT_BAD))
def test_auditor_rejects_non_private(variant):
    q1, q2, c, n = AUDIT_BAD[variant]
    res = svt_exact.audit_variant(variant, q1, q2, 0.0, EPS, c, n_samples=n, rng=2024)
    assert res.p_value < 0.01, str(res)
    assert res.epsilon_lower_bound > EPS


@pytest.mark.parametrize("variant,c", [("lyu_su_li", 1), ("dwork_roth_2014", 2), ("standard", 1)])
def test_auditor_passes_private(variant, c):
    q1, q2, _ = c3_inputs(10, c)
    res = svt_exact.audit_variant(variant, q1, q2, 0.0, EPS, c, n_samples=200_000, rng=2024)
    assert res.p_value > 0.05, str(res)


# ------------------------------------------------------------------ fresh noise for the released value
def test_standard_eps3_uses_fresh_noise():
    # all answers 0 at threshold 0: with fresh noise the released values of positives are 0 + Lap(c/eps3),
    # independent of the comparison; reusing ν (the Alg. 19 bug) would bias them upward.
    c, eps3 = 2, 1.0
    q = np.zeros(6)
    out = svt.run("standard", q, 0.0, 2.0, c, n_runs=20_000, rng=7, eps3=eps3)
    rel = out[~np.isnan(out) & (out != 0)]
    assert rel.size > 10_000
    # KS against Lap(c/eps3): false-alarm rate 1e-3 under a correct implementation
    assert stats.kstest(rel, stats.laplace(0, c / eps3).cdf).pvalue > 1e-3
    # positive control: Roth's variant releases the compared noisy value, which fails the same test
    out_r = svt.run("roth_2011", q, 0.0, 2.0, c, n_runs=20_000, rng=7)
    rel_r = out_r[~np.isnan(out_r) & (out_r != 0)]
    b_nu = c / 1.0  # Lap(cΔ/ε2), ε2 = 1
    assert stats.kstest(rel_r, stats.laplace(0, b_nu).cdf).pvalue < 1e-6


# ------------------------------------------------------------------ ledgers
@pytest.mark.parametrize("variant,kw", [("lyu_su_li", {}), ("dwork_roth_2014", {}), ("standard", {}),
                                        ("standard", {"monotonic": True}), ("standard", {"eps3": 0.3}),
                                        ("standard", {"ratio": 3.0, "eps3": 0.1}),
                                        ("standard", {"eps1": 0.2, "eps2": 0.5, "eps3": 0.3})])
@pytest.mark.parametrize("eps,c", [(1.0, 1), (0.7, 5), (2.5, 30)])
def test_ledger_total_equals_budget(variant, kw, eps, c):
    if "eps1" in kw:
        kw = {k: v * eps for k, v in kw.items()}
    elif "eps3" in kw:
        kw = dict(kw, eps3=kw["eps3"] * eps)
    led = PrivacyLedger()
    svt.run(variant, np.arange(12.0), 5.0, eps, c, rng=0, ledger=led, **kw)
    assert led.epsilon == pytest.approx(eps, rel=1e-12)
    led2 = PrivacyLedger()
    svt.run(variant, np.arange(12.0), 5.0, eps, c, rng=0, n_runs=7, ledger=led2, **kw)
    assert led2.epsilon == pytest.approx(7 * eps, rel=1e-12)


def test_ledger_selection_and_nonprivate_refused():
    s = svt_ex.zipf_scores(500, 50_000)
    for method in ("svt", "dpbook", "retraversal", "em"):
        led = PrivacyLedger()
        svt_ex.select_top_c(method, s, 10, 0.5, n_runs=1, rng=0, ledger=led, increment=1.0, threshold=700.0)
        assert led.epsilon == pytest.approx(0.5, rel=1e-12)
    # the default threshold is computed from the data without privacy: no ledger may be charged with it
    for method in ("svt", "dpbook", "retraversal"):
        with pytest.raises(ValueError, match="threshold"):
            svt_ex.select_top_c(method, s, 10, 0.5, n_runs=1, rng=0, ledger=PrivacyLedger())
    for v in ("roth_2011", "lee_clifton_2014", "stoddard_2014", "chen_2015", "gptt"):
        with pytest.raises(ValueError, match="not differentially private"):
            svt.run(v, [0.0, 1.0], 0.0, 1.0, 1, ledger=PrivacyLedger())


# ------------------------------------------------------------------ output format and registry
def test_run_output_format():
    q = np.array([5.0, -5, 5, 5, -5, 5, 5, 5])
    out = svt.run("lyu_su_li", q, 0.0, 50.0, 2, n_runs=5000, rng=1)
    assert out.shape == (5000, 8)
    ans = ~np.isnan(out)
    assert set(np.unique(out[ans])) <= {0.0, 1.0}
    # NaN exactly after the second ⊤
    npos = np.nansum(out, axis=1)
    assert np.all(npos <= 2)
    cum = np.cumsum(np.nan_to_num(out), axis=1)
    prev = np.concatenate([np.zeros((5000, 1)), cum[:, :-1]], axis=1)
    assert np.array_equal(np.isnan(out), prev >= 2)
    # uncapped variants never halt
    assert not np.isnan(svt.run("chen_2015", q, 0.0, 1.0, 1, n_runs=100, rng=1)).any()
    assert np.isnan(svt.run("chen_2015", q, 0.0, 1.0, 1, n_runs=100, rng=1, cutoff=True)).any()
    # a per-query threshold is the same as shifting the answers
    t = np.linspace(-1, 1, 8)
    a = svt.run("lee_clifton_2014", q, t, 1.0, 3, n_runs=50, rng=9)
    b = svt.run("lee_clifton_2014", q - t, 0.0, 1.0, 3, n_runs=50, rng=9)
    assert np.array_equal(a, b, equal_nan=True)
    # Roth releases numbers in place of 1.0
    r = svt.run("roth_2011", q, 0.0, 1.0, 3, n_runs=100, rng=2)
    num = r[~np.isnan(r) & (r != 0)]
    assert num.size > 0 and not np.all(num == 1.0)


def test_noise_scales_match_spec_table():
    # spec §1.2 with eps = 1, c = 3, Δ = 2 (every scale written out by hand)
    e, c, d = 1.0, 3, 2.0
    cfg = lambda v, **kw: svt.noise_config(v, e, c, d, **kw)  # noqa: E731
    g = cfg("lyu_su_li")
    assert (g.b_rho, g.b_nu, g.cutoff, g.resample_b, g.numeric) == (pytest.approx(4), pytest.approx(24), 3, None, None)
    g = cfg("dwork_roth_2014")
    assert (g.b_rho, g.b_nu, g.resample_b, g.cutoff) == (pytest.approx(12), pytest.approx(24), pytest.approx(12), 3)
    g = cfg("roth_2011")
    assert (g.b_rho, g.b_nu, g.numeric, g.cutoff) == (pytest.approx(4), pytest.approx(12), "same", 3)
    g = cfg("lee_clifton_2014")
    assert (g.b_rho, g.b_nu, g.cutoff) == (pytest.approx(8), pytest.approx(8 / 3), 3)
    g = cfg("stoddard_2014")
    assert (g.b_rho, g.b_nu, g.cutoff) == (pytest.approx(4), 0.0, None)
    g = cfg("chen_2015")
    assert (g.b_rho, g.b_nu, g.cutoff) == (pytest.approx(4), pytest.approx(4), None)
    g = cfg("gptt", eps1=0.3)
    assert (g.b_rho, g.b_nu, g.cutoff) == (pytest.approx(2 / 0.3), pytest.approx(2 / 0.7), None)
    g = cfg("standard", eps1=0.2, eps2=0.5, eps3=0.3)
    assert (g.b_rho, g.b_nu, g.b_out, g.numeric) == (pytest.approx(10), pytest.approx(24), pytest.approx(20), "fresh")
    assert [x for _, x in g.budget] == pytest.approx([0.2, 0.5, 0.3])
    g = cfg("standard", eps1=0.2, eps2=0.8, monotonic=True)  # Thm 5.3.2: cΔ/ε2 instead of 2cΔ/ε2
    assert (g.b_rho, g.b_nu, g.numeric) == (pytest.approx(10), pytest.approx(7.5), None)
    g = cfg("standard")  # default: optimal split 1:(2c)^(2/3)
    r = 6 ** (2 / 3)
    assert (g.b_rho, g.b_nu) == (pytest.approx(d * (1 + r)), pytest.approx(2 * c * d * (1 + r) / r))
    # the simulator really uses these scales: Pr[⊤] for one query at q − T = Δ is Pr[ν − ρ >= −Δ] with
    # ρ ~ Lap(8), ν ~ Lap(8/3), integrated here with scipy from the hand-written scales
    want = integrate.quad(lambda z: stats.laplace(0, 8).pdf(z) * stats.laplace(0, 8 / 3).sf(z - 2), -np.inf, np.inf,
                          epsabs=1e-12)[0]
    out = svt.run("lee_clifton_2014", [2.0], 0.0, e, c, sensitivity=d, n_runs=400_000, rng=4)
    # 4.4 binomial standard errors: false-alarm rate about 1e-5
    assert out.mean() == pytest.approx(want, abs=4.4 * math.sqrt(want * (1 - want) / 400_000))
    assert abs(want - 0.5) > 0.05  # the check is sensitive to the scales (unlike a query at the threshold)


def test_registry():
    assert set(svt.VARIANTS) == {"lyu_su_li", "dwork_roth_2014", "roth_2011", "lee_clifton_2014", "stoddard_2014",
                                 "chen_2015", "gptt", "standard"}
    private = {k for k, v in svt.VARIANTS.items() if v.private}
    assert private == {"lyu_su_li", "dwork_roth_2014", "standard"}
    assert svt.VARIANTS["lee_clifton_2014"].actual_epsilon(1.0, 3) == pytest.approx(19 / 4)
    for name, v in svt.VARIANTS.items():
        assert v.function.__name__ == name
        doc = v.function.__doc__
        assert "Claimed" in doc and "Actual" in doc or "Claimed and actual" in doc
        if not v.private:
            assert "only to be studied" in doc and "NOT PRIVATE" in doc.splitlines()[0]
    assert len(svt_ex.variant_table()) == 8


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("call,names", [
    (lambda: svt.run("nope", [1.0], 0.0, 1.0), "variant"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 0.0), "epsilon"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, -1.0), "epsilon"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, 0), "c"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, 1.5), "c"),
    (lambda: svt.run("lyu_su_li", [np.nan], 0.0, 1.0), "queries"),
    (lambda: svt.run("lyu_su_li", [], 0.0, 1.0), "queries"),
    (lambda: svt.run("lyu_su_li", [[1.0, 2.0]], 0.0, 1.0), "queries"),
    (lambda: svt.run("lyu_su_li", [1.0, 2.0], [0.0, 1.0, 2.0], 1.0), "threshold"),
    (lambda: svt.run("lyu_su_li", [1.0, 2.0], np.inf, 1.0), "threshold"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, sensitivity=0.0), "sensitivity"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, n_runs=0), "n_runs"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, eps3=0.1), "eps3"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, eps1=0.3, eps2=0.3), "eps1"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, eps3=1.0), "eps3"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, eps3=-0.1), "eps3"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, ratio=0), "ratio"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, ratio=2, eps1=0.5), "ratio"),
    (lambda: svt.run("standard", [1.0], 0.0, 1.0, monotonic="yes"), "monotonic"),
    (lambda: svt.run("gptt", [1.0], 0.0, 1.0, eps1=0.7, eps2=0.7), "eps1"),
    (lambda: svt.run("chen_2015", [1.0], 0.0, 1.0, cutoff=1), "cutoff"),
    (lambda: svt_exact.output_probability("lyu_su_li", [1.0, 2.0], 0.0, 1.0, 1, [0.0, 2.0]), "output"),
    (lambda: svt_exact.output_probability("lyu_su_li", [1.0, 2.0], 0.0, 1.0, 1, [0.0]), "output"),
    (lambda: svt_exact.output_probability("lyu_su_li", [1.0, 2.0], 0.0, 1.0, 1, [0.0, 1.0], upper=[0.0, 0.0]), "upper"),
    (lambda: svt_ex.select_top_c("magic", np.arange(10.0), 2, 1.0), "method"),
    (lambda: svt_ex.select_top_c("em", np.arange(10.0), 10, 1.0), "c"),
    (lambda: svt_ex.select_top_c("retraversal", np.arange(10.0), 2, 1.0, increment=-1), "increment"),
    (lambda: svt_ex.select_top_c("svt", np.arange(10.0), 2, 1.0, threshold="high"), "threshold"),
    (lambda: svt_ex.selection_metrics(np.arange(10.0), np.array([[0, 10]]), 2), "selected"),
    (lambda: svt_ex.selection_metrics(np.arange(10.0), np.array([[0.5, 1.0]]), 2), "selected"),
    (lambda: svt_exact.audit_variant("lyu_su_li", [0.0, 0.0], [0.0, 3.0], 0.0, 1.0), "queries_neighbour"),
    (lambda: svt.optimal_split(1.0, 0), "c"),
    (lambda: svt.comparison_noise_std(1.0, 1.0, 1), "fraction"),
    (lambda: svt_ex.alpha_svt(1000, 1.5, 1.0), "beta"),
    (lambda: svt_ex.alpha_em(1, 0.05, 1.0), "k"),
])
def test_bad_input_raises(call, names):
    with pytest.raises(ValueError, match=rf"\b{names}\b"):
        call()


def test_impossible_outputs_have_probability_zero():
    q = [0.0, 0.0, 0.0]
    assert svt_exact.output_probability("lyu_su_li", q, 0.0, 1.0, 1, [1.0, 0.0, np.nan]) == 0.0  # answer after halt
    assert svt_exact.output_probability("lyu_su_li", q, 0.0, 1.0, 1, [1.0, 1.0, np.nan]) == 0.0  # 2 ⊤ with c = 1
    assert svt_exact.output_probability("lyu_su_li", q, 0.0, 1.0, 2, [0.0, np.nan, np.nan]) == 0.0  # halted early
    assert svt_exact.output_probability("chen_2015", q, 0.0, 1.0, 1, [1.0, np.nan, np.nan]) == 0.0  # no cutoff
    assert svt_exact.output_probability("lyu_su_li", q, 0.0, 1.0, 1, [0.0, 1.0, np.nan]) > 0


# ------------------------------------------------------------------ work (speed without a clock)
def test_run_is_vectorised_across_runs(python_steps, allocation_peak):
    """200 times the runs cost no more Python work (about 2,000 steps either way; a loop over the runs would add
    200,000), and the simulation's memory stays a small multiple of its output (about 6 times; a quadratic
    temporary would be thousands of times)."""
    q = np.arange(10.0)
    _, few = python_steps(svt.run, "lyu_su_li", q, 5.0, 1.0, 3, n_runs=1_000, rng=0)
    out, many = python_steps(svt.run, "lyu_su_li", q, 5.0, 1.0, 3, n_runs=200_000, rng=0)
    assert out.shape == (200_000, 10)
    assert many <= 2 * few
    out, peak = allocation_peak(svt.run, "lyu_su_li", q, 5.0, 1.0, 3, n_runs=200_000, rng=0)
    assert peak <= 12 * out.nbytes


# ------------------------------------------------------------------ top-c selection
def test_zipf_scores_and_metrics():
    s = svt_ex.zipf_scores()
    assert s.size == 10_000
    assert [s[0], s[49], s[50], s[99], s[299], s[-1]] == [102170, 2043, 2003, 1022, 341, 10]
    assert s.sum() == pytest.approx(1e6, rel=1e-4)
    assert svt_ex.default_threshold(s, 50) == pytest.approx((2043 + 2003) / 2)
    sc = np.array([10.0, 8, 6, 4, 2])
    ser, miss = svt_ex.selection_metrics(sc, np.array([[0, 1], [0, 4], [2, -1]]), 2)
    np.testing.assert_allclose(ser, [0.0, 1 - 12 / 18, 1 - 6 / 18])
    np.testing.assert_allclose(miss, [0.0, 0.5, 1.0])


def test_em_first_round_matches_exponential_mechanism():
    s = np.array([10.0, 9, 7, 4, 0])
    sel = svt_ex.select_top_c("em", s, 2, 1.0, n_runs=200_000, rng=5)
    p = exponential_mechanism_probabilities(s, 1.0, 1.0 / 2, monotonic=True)  # round 1 at eps/c
    freq = np.bincount(sel[:, 0], minlength=5) / sel.shape[0]
    se = np.sqrt(p * (1 - p) / sel.shape[0])
    assert np.all(np.abs(freq - p) <= 4.4 * se + 1e-12)
    assert np.all(sel[:, 0] != sel[:, 1])  # without replacement


def test_retraversal_fills_c_and_svt_may_not():
    s = svt_ex.zipf_scores(2000, 100_000)
    sel = svt_ex.select_top_c("retraversal", s, 20, 0.2, n_runs=30, rng=1, increment=2.0)
    assert np.all(sel >= 0)
    assert all(len(set(r)) == 20 for r in sel.tolist())
    sel2 = svt_ex.select_top_c("svt", s, 20, 0.2, n_runs=30, rng=1, threshold=1e9)
    assert np.all(sel2 == -1)


def test_zipf_ser_reproduces_thesis_cell():
    # thesis Table 5.6, Zipf, eps = 0.5, c = 100: SVT-S 1:1 = .808 (std .093), EM = .033 (std .005)
    s = svt_ex.zipf_scores()
    rng = np.random.default_rng(11)
    ser_s, _ = svt_ex.selection_metrics(s, svt_ex.select_top_c("svt", s, 100, 0.5, n_runs=200, rng=rng, ratio=1), 100)
    ser_e, _ = svt_ex.selection_metrics(s, svt_ex.select_top_c("em", s, 100, 0.5, n_runs=200, rng=rng), 100)
    assert abs(ser_s.mean() - 0.808) < 0.05
    assert abs(ser_e.mean() - 0.033) < 0.01


def test_gptt_kappa_pointwise_and_direct_bound():
    # independent of the module's log-CDFs: κ(z) = F(z)(1 − F(z−1)) / (F(z−1)(1 − F(z))) with scipy's Laplace
    for eps2 in (0.2, 0.5, 1.5):
        lap = stats.laplace(0, 1 / eps2)
        z = np.linspace(-60, 60, 24001)
        lk = lap.logcdf(z) + lap.logsf(z - 1) - lap.logcdf(z - 1) - lap.logsf(z)
        assert np.all(lk >= eps2 - 1e-9)
        assert lk[0] == pytest.approx(eps2, abs=1e-6) and lk[-1] == pytest.approx(eps2, abs=1e-6)  # both tails
        assert lk.max() > eps2 + 0.05  # strictly larger in the middle (κ(1/2) > e^{ε2})
    # hence Pr[GPTT(D) = a] >= e^{t ε2} Pr[GPTT(D') = a] on t pairs, for any split
    for kw, eps2 in (({}, 0.5), ({"eps1": 0.3}, 0.7), ({"eps1": 0.8}, 0.2)):
        for t in (1, 3, 10, 40):
            qd, qn, out = c4_inputs(t)
            assert svt_exact.privacy_loss("gptt", qd, qn, 0.0, EPS, 1, out, **kw) >= t * eps2 - 1e-9


def test_gptt_kappa_bounded_away_from_one():
    # [DERIVED] the thesis says κ(z) -> 1 as |z| -> ∞ for the GPTT pairs; in fact κ(z) >= e^{ε2} for every z,
    # so the flawed-looking bound κ(t)^t / 2 >= e^{ε2 t}/2 diverges and is below the exact ratio.
    for t in (1, 5, 20, 100):
        g = svt_ex.gptt_proof_argument(t, EPS, kind="gptt")
        assert g["kappa"] >= math.exp(EPS / 2) * (1 - 1e-9)
        assert g["log_bound"] <= g["log_ratio"]
        assert g["log_bound"] >= t * EPS / 2 - math.log(2) - 1e-6
    # for Alg. 17 κ(t) -> 1 and the bound stays below ε/2 (Lemma 4)
    ks = [svt_ex.gptt_proof_argument(t, EPS, kind="lyu_su_li") for t in (10, 100, 1000)]
    assert ks[0]["kappa"] > ks[1]["kappa"] > ks[2]["kappa"] > 1
    assert all(k["log_bound"] < EPS / 2 for k in ks)


# ------------------------------------------------------------------ retraversal: one run's failure is its own
def test_retraversal_run_hitting_max_passes_reports_partial_and_batch_goes_on():
    """Issue 10: a run that hits ``max_passes`` used to raise RuntimeError for the whole batch. Now it returns
    its partial selection (padded with -1), the other runs are complete, and a warning counts the short runs."""
    s = svt_ex.zipf_scores(2000, 100_000)
    with pytest.warns(RuntimeWarning, match=r"of 200 runs did not select c=20 items within max_passes=3"):
        sel, passes = svt_ex.select_top_c("retraversal", s, 20, 0.2, n_runs=200, rng=1, increment=2.0, max_passes=3,
                                       return_passes=True)
    assert sel.shape == (200, 20) and passes.shape == (200,)
    full = np.all(sel >= 0, axis=1)
    assert 20 < full.sum() < 180  # both outcomes occur in the batch (about 60 % complete here)
    assert np.all(passes[~full] == 3) and np.all((passes[full] >= 1) & (passes[full] <= 3))
    for row in sel:  # distinct items first, then the padding
        k = int(np.sum(row >= 0))
        assert np.all(row[:k] >= 0) and np.all(row[k:] == -1) and len(set(row[:k].tolist())) == k
    # the same batch with enough passes completes every run, and its pass counts agree where both finished
    sel2, passes2 = svt_ex.select_top_c("retraversal", s, 20, 0.2, n_runs=200, rng=1, increment=2.0,
                                     return_passes=True)
    assert np.all(sel2 >= 0) and passes2.max() > 3
    assert np.array_equal(passes2[full], passes[full]) and np.array_equal(sel2[full], sel[full])


def test_retraversal_out_of_reach_threshold_stops_quickly(python_steps):
    # threshold 1e9 noise scales above every score: no run can ever fill c; without the early stop this batch
    # would draw 10^6 passes x 50 runs x 500 items of noise, one pass at a time (the early stop takes about
    # 2,000 Python steps; 10^6 passes are stopped at 100,000)
    s = svt_ex.zipf_scores(500, 50_000)
    with pytest.warns(RuntimeWarning, match="50 of 50 runs"):
        (sel, passes), _ = python_steps(svt_ex.select_top_c, "retraversal", s, 5, 1.0, n_runs=50, rng=0,
                                        increment=1e9, max_passes=1_000_000, return_passes=True, limit=100_000)
    assert np.all(sel == -1) and np.all(passes == 1_000_000)


def test_select_top_c_passes_for_single_pass_methods():
    s = svt_ex.zipf_scores(300, 30_000)
    for method in ("svt", "dpbook", "em"):
        sel, passes = svt_ex.select_top_c(method, s, 5, 1.0, n_runs=7, rng=0, return_passes=True)
        assert sel.shape == (7, 5) and np.all(passes == 1)


# ------------------------------------------------------------------ noise from mechanisms.py, caps, ledgers
def test_simulator_draws_through_laplace_noise():
    """The simulator's comparisons are exactly those of mechanisms.laplace_noise on an identically seeded stream."""
    cfg = svt.noise_config("chen_2015", 1.0, 1)
    out = svt.run("chen_2015", [0.3, -0.2], 0.0, 1.0, n_runs=1000, rng=np.random.default_rng(42))
    g = np.random.default_rng(42)
    nu = laplace_noise(cfg.b_nu, (1000, 2), g)
    rho = laplace_noise(cfg.b_rho, (1000, 1), g)
    assert np.array_equal(out, (nu + np.array([0.3, -0.2]) >= rho).astype(float))


@pytest.mark.parametrize("variant,kw,scale", [("roth_2011", {}, "b_nu"), ("standard", {"eps3": 0.5}, "b_out")])
def test_released_numbers_lie_on_the_noise_grid(variant, kw, scale):
    # released value - q_i is discrete Laplace noise on the grid 2^(floor(log2 b) - 20) Z (floating-point safe)
    q = np.zeros(5)
    out = svt.run(variant, q, 0.0, 2.0, 2, n_runs=2000, rng=3, **kw)
    rel = out[~np.isnan(out) & (out != 0)]
    b = getattr(svt.noise_config(variant, 2.0, 2, **kw), scale)
    gamma = 2.0 ** (math.floor(math.log2(b)) - 20)
    assert rel.size > 500 and np.all(rel / gamma == np.round(rel / gamma))


def test_em_selection_is_the_top_k_mechanism():
    s = svt_ex.zipf_scores(300, 30_000)
    a = svt_ex.select_top_c("em", s, 7, 0.5, n_runs=50, rng=np.random.default_rng(9))
    b = exponential_mechanism_top_k(s, 7, 1.0, 0.5 / 7, np.random.default_rng(9), True, size=50)
    assert np.array_equal(a, b)


def test_top_k_mechanism_second_round_law():
    # Pr[(i, j)] = p_i p_j / (1 - p_i) for k = 2 rounds without replacement (Plackett-Luce)
    scores = np.array([3.0, 2.0, 0.0, -1.0])
    p = exponential_mechanism_probabilities(scores, 1.0, 1.0)
    n = 200_000
    sel = exponential_mechanism_top_k(scores, 2, 1.0, 1.0, rng=4, size=n)
    led = PrivacyLedger()
    exponential_mechanism_top_k(scores, 2, 1.0, 1.0, rng=4, size=10, ledger=led)
    assert led.epsilon == pytest.approx(20.0)
    assert np.all(sel[:, 0] != sel[:, 1])
    for i, j in [(0, 1), (1, 0), (0, 2), (2, 3)]:
        want = p[i] * p[j] / (1 - p[i])
        got = np.mean((sel[:, 0] == i) & (sel[:, 1] == j))
        assert abs(got - want) <= 4.4 * math.sqrt(want * (1 - want) / n)  # false-alarm rate about 1e-5 each


@pytest.mark.parametrize("call", [
    lambda: svt.run("lyu_su_li", np.arange(10.0), 5.0, 1.0, n_runs=10**12),
    lambda: svt.lyu_su_li(np.arange(10.0), 5.0, 1.0, n_runs=3 * 10**8),
    lambda: svt_ex.select_top_c("svt", svt_ex.zipf_scores(), 5, 1.0, n_runs=10**6),
    lambda: svt_exact.audit_variant("lyu_su_li", [0.0, 1.0], [1.0, 0.0], 0.0, 1.0, n_samples=10**12),
    lambda: svt_exact.monte_carlo_probability("lyu_su_li", [0.0], 0.0, 1.0, 1, [0.0], n_runs=10**12),
    lambda: svt_ex.zipf_experiment([(0.5, 5)], n_runs=10**9),
])
def test_huge_run_counts_are_refused_before_allocating(call, allocation_peak):
    # each call asks for more outputs at once than MAX_ALLOCATION (2^31); refusing allocates a few hundred kB
    def refused():
        with pytest.raises(ValueError, match=r"\bn_runs\b|\bn_samples\b"):
            call()

    _, peak = allocation_peak(refused)
    assert peak < 2**22


def test_budget_is_refused_before_any_noise():
    for call in (lambda led, g: svt.run("standard", np.arange(5.0), 2.0, 1.0, 2, n_runs=3, rng=g, ledger=led),
                 lambda led, g: svt_ex.select_top_c("svt", np.arange(20.0), 3, 1.0, n_runs=3, rng=g, ledger=led,
                                                 threshold=15.0),
                 lambda led, g: svt_ex.select_top_c("em", np.arange(20.0), 3, 1.0, n_runs=3, rng=g, ledger=led)):
        led = PrivacyLedger(budget_epsilon=2.5)
        g = np.random.default_rng(0)
        state = g.bit_generator.state
        with pytest.raises(BudgetExceededError):
            call(led, g)
        assert len(led) == 0 and g.bit_generator.state == state  # nothing spent, nothing drawn
        led = PrivacyLedger(budget_epsilon=3.0)
        call(led, g)
        assert led.epsilon == pytest.approx(3.0)


@pytest.mark.parametrize("call,name", [
    (lambda: svt.run("lyu_su_li", [1 + 1j], 0.0, 1.0), "queries"),
    (lambda: svt.run("lyu_su_li", ["a"], 0.0, 1.0), "queries"),
    (lambda: svt.run("lyu_su_li", [1.0], True, 1.0), "threshold"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, rng=True), "rng"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, ledger=[]), "ledger"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, "1"), "epsilon"),
    (lambda: svt.run("lyu_su_li", [1.0], 0.0, 1.0, True), "c"),
    (lambda: svt_ex.select_top_c("retraversal", np.arange(10.0), 2, 1.0, max_passes=0), "max_passes"),
    (lambda: svt_ex.select_top_c("em", np.arange(10.0), 2, 1.0, threshold=np.nan), "threshold"),
    (lambda: svt_ex.select_top_c("svt", np.arange(10.0), 2, 1.0, monotonic="yes"), "monotonic"),
    (lambda: svt_ex.selection_metrics(np.zeros(5), np.array([[0, 1]]), 2), "scores"),
    (lambda: svt_ex.selection_metrics(np.arange(5.0), np.zeros((0, 2), dtype=int), 2), "selected"),
    (lambda: svt_exact.decode_event([np.nan], 2), "codes"),
    (lambda: svt_exact.decode_event([25], 2), "codes"),
    (lambda: svt_ex.alpha_svt(np.array([1 + 1j]), 0.05, 1.0), "k"),
    (lambda: svt.comparison_noise_std("x", 1.0), "fraction"),
    (lambda: svt.comparison_noise_std(0.5, 1.0, sensitivity=0.0), "sensitivity"),
    (lambda: svt_exact.matches_output([[0.0, 1.0]], [0.0, 1.0], upper=[np.nan, 1.0]), "upper"),
    (lambda: svt_exact.privacy_loss("lyu_su_li", [0.0, 1.0], [np.nan, 0.0], 0.0, 1.0, 1, [0, 1]), "queries_neighbour"),
    (lambda: svt_ex.gptt_proof_argument(3, 1.0, kind="other"), "kind"),
    (lambda: svt_ex.zipf_experiment([(0.5, 5)], ["S 9:9"]), "methods"),
    (lambda: svt_ex.zipf_experiment([0.5], ["EM"]), "settings"),
])
def test_bad_input_names_the_argument(call, name):
    with pytest.raises(ValueError, match=rf"\b{name}\b"):
        call()
