"""Tests of DPLloyd, DPLloyd-Impr, the Lee–Kifer configuration and the DPLloyd error models
(spec ``dp-basics-and-kmeans.md`` §2.5, §3.1–§3.6, §7, §8; ``mcmc-postprocessing.md`` §1.2, §10)."""
import contextlib
import importlib
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats
from sklearn.exceptions import NotFittedError

from dpclust_core import _kernels, audit, mechanisms
from dpclust_core.accounting import PrivacyLedger
from dpclust_book.datasets import make_blobs_ratio, make_s1_like
from dpclust_core.preprocessing import scale_to_domain
from dpclust_core.mechanisms import laplace_grid, laplace_mechanism
from dpclust_core.kmeans import (DPLloyd, best_of_lloyd, budget_split, count_sum_ratio, dplloyd_mse, epsilon_m,
                                 n_rounds, optimal_count_share, project_l1_ball, separated_centroids,
                                 sphere_packing_centroids, swapped_split_epsilon)
from dpclust_book.experiments.dplloyd import simulate_one_round_mse
from dpclust_core.metrics import nicv

# the module (the package re-exports a function of the same name, `lloyd`, which shadows the attribute)
lloyd_module = importlib.import_module("dpclust_core.kmeans.lloyd")

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
VARIANTS = ("original", "improved", "lee_kifer")
B = (-1.0, 1.0)  # the public domain of every synthetic data set here


def _data(n=300, d=2, seed=0):
    X, _ = make_blobs_ratio(n, n_clusters=3, n_features=d, n_outliers=5, random_state=seed)
    return X


def _l1_data(n=300, d=2, seed=0):
    return project_l1_ball(_data(n, d, seed))


# ------------------------------------------------------------------ spec §8 derived numbers
@pytest.mark.parametrize("n,d,k,c_d,g_c,g_s,em", [
    (5000, 2, 15, 0.7399, 0.2700, 0.3650, 1.1783),
    (107091, 2, 5, 0.7399, 0.2700, 0.3650, 0.0106),
    (16281, 2, 2, 0.7399, 0.2700, 0.3650, 0.0176),
    (34112, 3, 3, 0.8469, 0.2202, 0.2599, 0.0257),
    (48841, 6, 5, 1.0671, 0.1510, 0.1415, 0.0962),
    (26733, 10, 3, 1.2651, 0.1123, 0.0888, 0.1643),
])
def test_spec_section8_split_and_epsilon_m(n, d, k, c_d, g_c, g_s, em):
    assert count_sum_ratio(d) == pytest.approx(c_d, abs=5e-5)
    assert optimal_count_share(d) == pytest.approx(g_c, abs=5e-5)
    e0, es = budget_split(d, 1.0)
    assert e0 == pytest.approx(g_c, abs=5e-5) and es == pytest.approx(g_s, abs=5e-5)
    assert e0 + d * es == pytest.approx(1.0, rel=1e-14)
    assert epsilon_m(n, d, k) == pytest.approx(em, abs=5e-5)


def test_spec_section8_rounds():
    # (dataset, eps) -> t- from the §8 table
    cases = [((5000, 2, 15), 0.05, 2), ((5000, 2, 15), 0.7, 2), ((5000, 2, 15), 2.0, 2),
             ((107091, 2, 5), 0.05, 4), ((107091, 2, 5), 0.1, 7), ((107091, 2, 5), 2.0, 7),
             ((16281, 2, 2), 0.05, 2), ((16281, 2, 2), 0.1, 5), ((16281, 2, 2), 0.3, 7),
             ((34112, 3, 3), 0.05, 2), ((34112, 3, 3), 0.1, 3), ((34112, 3, 3), 0.3, 7),
             ((48841, 6, 5), 0.05, 2), ((48841, 6, 5), 0.1, 2), ((48841, 6, 5), 0.5, 5), ((48841, 6, 5), 2.0, 7),
             ((26733, 10, 3), 0.1, 2), ((26733, 10, 3), 0.5, 3), ((26733, 10, 3), 1.0, 6),
             ((26733, 10, 3), 2.0, 7)]
    for (n, d, k), eps, t in cases:
        assert n_rounds(eps, epsilon_m(n, d, k)) == t, (n, d, k, eps)
    # case 1 boundary: eps == 2 eps_m gives 2
    assert n_rounds(0.2, 0.1) == 2


def test_spec_section8_mse_values():
    # MSE_DPLloyd(eps=0.1, t=5): Gowalla 0.000236, Adult-num 0.0185 (Eq. 4.5)
    assert dplloyd_mse(107091, 2, 5, 0.1, t=5) == pytest.approx(0.000236, rel=2e-3)
    assert dplloyd_mse(48841, 6, 5, 0.1, t=5) == pytest.approx(0.0185, rel=2e-3)
    # R2 column of §8: MSE_DPL(eps/2, 1) for S1 at eps = 0.05, 0.7, 2.0; Gowalla at 0.05, 0.1
    assert dplloyd_mse(5000, 2, 15, 0.025) == pytest.approx(0.623, rel=1e-3)
    assert dplloyd_mse(5000, 2, 15, 0.35) == pytest.approx(0.00318, rel=2e-3)
    assert dplloyd_mse(5000, 2, 15, 1.0) == pytest.approx(0.00039, rel=3e-3)
    assert dplloyd_mse(107091, 2, 5, 0.025) == pytest.approx(0.000151, rel=3e-3)
    assert dplloyd_mse(107091, 2, 5, 0.05) == pytest.approx(3.77e-05, rel=3e-3)
    # Eq. 4.5 closed form and the improved split being the minimum of Eq. 4.6
    n, d, k, eps, t, r, rho = 1000, 4, 3, 0.5, 3, 1.0, 0.225
    eq45 = 2 * d * (1 + (2 * rho * r) ** 2) * (k * t * (d * r + 1) / (n * eps)) ** 2
    assert dplloyd_mse(n, d, k, eps, t=t) == pytest.approx(eq45, rel=1e-12)
    c = count_sum_ratio(d)
    impr = 2 * r * r * k * k / n ** 2 * (d + c) ** 3 / (eps / t) ** 2
    assert dplloyd_mse(n, d, k, eps, t=t, split="improved") == pytest.approx(impr, rel=1e-12)
    shares = np.linspace(0.01, 0.99, 99)
    vals = [dplloyd_mse(n, d, k, eps, t=t, split=(s, (1 - s) / d)) for s in shares]
    assert min(vals) >= impr * (1 - 1e-12)
    assert dplloyd_mse(n, d, k, eps, t=t, per="all") == pytest.approx(k * eq45, rel=1e-12)
    assert dplloyd_mse(n, d, k, eps, t=t, per="coordinate") == pytest.approx(eq45 / d, rel=1e-12)
    # Eq. 4.8: at eps_m the k centroids' MSE equals 0.004 r^d exactly
    em = epsilon_m(n, d, k)
    assert dplloyd_mse(n, d, k, em, t=1, split="improved", per="all") == pytest.approx(0.004, rel=1e-12)


def test_simulated_one_round_mse_matches_model():
    """Equal clusters, noise small against C = N/k: the first-order model (Eq. 4.5) is within 10% of 4000 noise
    draws (fixed seed; the Monte-Carlo s.e. is about 2%). At tiny eps clipping bounds the error below the model."""
    rng = np.random.default_rng(0)
    k, d, n = 5, 3, 10_000
    C = sphere_packing_centroids(k, d, 1.0, rng)
    X = np.clip(C[np.arange(n) % k] + rng.normal(scale=0.05, size=(n, d)), -1, 1)
    for eps, split in [(0.5, "original"), (0.2, "improved"), (1.0, (0.3, 0.7 / d))]:
        meas = simulate_one_round_mse(X, C, eps, split=split, n_trials=4000, rng=1)
        assert meas == pytest.approx(dplloyd_mse(n, d, k, eps, split=split), rel=0.10)
    assert simulate_one_round_mse(X, C, 0.002, n_trials=500, rng=1) < 0.5 * dplloyd_mse(n, d, k, 0.002)
    e0, es = budget_split(d, 0.7, split="original", r=2.0)
    assert e0 + d * es == pytest.approx(0.7, rel=1e-14) and es / e0 == pytest.approx(2.0)


def test_swapped_split():
    # the round spends (1 + d c_d)/(d + c_d): under for d <= 4, over for d >= 5, ~1.52 at d = 20
    for d in range(1, 5):
        assert swapped_split_epsilon(d) <= 1.0 + 1e-12
    for d in range(5, 30):
        assert swapped_split_epsilon(d) > 1.0
    assert swapped_split_epsilon(20) == pytest.approx(1.5227, abs=1e-3)
    assert swapped_split_epsilon(20, 0.5) == pytest.approx(0.5 * swapped_split_epsilon(20), rel=1e-12)


# ------------------------------------------------------------------ ledger
@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("d", [1, 2, 5, 10, 20])
@pytest.mark.parametrize("k", [1, 3, 7])
def test_ledger_total_equals_epsilon(variant, d, k):
    X = _l1_data(120, d, seed=d) if variant == "lee_kifer" else _data(120, d, seed=d)
    for eps in (0.05, 0.7, 3.0):
        m = DPLloyd(k, eps, bounds=B, variant=variant, random_state=1).fit(X)
        assert m.ledger_.epsilon == pytest.approx(eps, rel=1e-12)
        bought_n = variant == "improved"  # DPLloyd-Impr buys a noisy N (nothing else needs N)
        assert len(m.ledger_.entries) == 2 * m.n_iter_ + bought_n
        m.ledger_.check(eps)
        if bought_n:
            first = m.ledger_.entries[0]
            assert first.name == "N (noisy count)" and first.sensitivity == 1.0
            assert first.epsilon == pytest.approx(0.05 * eps, rel=1e-12) == m.epsilon_n_
        cnt = [e for e in m.ledger_.entries if "counts" in e.name]
        sm = [e for e in m.ledger_.entries if "sums" in e.name]
        assert len(cnt) == len(sm) == m.n_iter_
        assert all(e.sensitivity == 1.0 for e in cnt)
        expected_sum_sens = 1.0 if variant == "lee_kifer" else d * 1.0
        assert all(e.sensitivity == pytest.approx(expected_sum_sens) for e in sm)


@pytest.mark.parametrize("r", [1.0, 2.5])
@pytest.mark.parametrize("d", [1, 3, 8])
def test_laplace_scales_equal_formulas(r, d):
    X = _data(150, d)
    eps, k = 0.8, 4
    m = DPLloyd(k, eps, bounds=B, variant="original", r=r, random_state=0).fit(X)
    t = m.n_iter_
    assert t == 5
    for h in m.history_:
        assert h["count_scale"] == pytest.approx((d * r + 1) * t / eps, rel=1e-12)
        assert h["sum_scale"] == pytest.approx((d * r + 1) * t / eps, rel=1e-12)
    m = DPLloyd(k, eps, bounds=B, variant="improved", r=r, random_state=0, n_public=150).fit(X)
    t = m.n_iter_
    assert t == n_rounds(eps, epsilon_m(150, d, k, r=r))
    g_c, g_s = optimal_count_share(d), 1.0 / (d + count_sum_ratio(d))
    for h in m.history_:
        assert h["count_scale"] == pytest.approx(1.0 / (g_c * eps / t), rel=1e-12)
        assert h["sum_scale"] == pytest.approx(r / (g_s * eps / t), rel=1e-12)
    if r == 1.0:
        m = DPLloyd(k, eps, bounds=B, variant="lee_kifer", random_state=0, n_rounds=4).fit(project_l1_ball(X))
        for h in m.history_:
            assert h["count_scale"] == pytest.approx(2 * 4 / eps, rel=1e-12)
            assert h["sum_scale"] == pytest.approx(2 * 4 / eps, rel=1e-12)


def test_n_public_drives_rounds():
    X = _data(400, 2)
    eps = 0.05
    big = DPLloyd(3, eps, bounds=B, random_state=0, n_public=10**6).fit(X)
    assert big.n_estimate_ == 10**6 and big.epsilon_n_ == 0.0
    assert big.n_iter_ == n_rounds(eps, epsilon_m(10**6, 2, 3)) == 7
    assert all("N (noisy count)" != e.name for e in big.ledger_.entries)
    # with n_public given, the number of rounds does not depend on the data at all (not even on len(X))
    other = DPLloyd(3, eps, bounds=B, random_state=1, n_public=10**6).fit(np.clip(3 * X[:37] + 0.2, -1, 1))
    assert other.n_iter_ == 7 and other.n_estimate_ == 10**6
    for variant in ("original", "lee_kifer"):  # they do not need N and buy nothing
        m = DPLloyd(3, eps, bounds=B, variant=variant, random_state=0).fit(project_l1_ball(X))
        assert m.n_estimate_ is None and m.epsilon_n_ == 0.0 and m.n_iter_ == 5
    assert DPLloyd(3, eps, bounds=B, n_rounds=4, random_state=0).fit(X).n_estimate_ is None


def test_n_is_private_by_default():
    """DPLloyd-Impr's rounds come from a noisy count (5% of eps, a ledger entry), never from len(X): no fitted
    attribute equals N, the rounds use eps' = 0.95 eps and the noisy N, and k > N is not refused (the refusal
    would reveal N); with the same seed, N and N + 1 records give noisy counts exactly 1 apart (the same noise)."""
    X = _data(401, 2)
    eps = 1.0
    m = DPLloyd(3, eps, bounds=B, random_state=0).fit(X)
    assert m.n_estimate_ != len(X) and abs(m.n_estimate_ - len(X)) < 200   # scale 20: within 10 scales
    assert m.epsilon_n_ == pytest.approx(0.05) and m.ledger_.epsilon == pytest.approx(eps, rel=1e-12)
    assert m.epsilon_m_ == pytest.approx(epsilon_m(m.n_estimate_, 2, 3), rel=1e-12)
    assert m.n_iter_ == n_rounds(0.95 * eps, m.epsilon_m_)
    for name, value in vars(m).items():
        if name.endswith("_") and isinstance(value, (int, float, np.integer, np.floating)):
            assert value != len(X), name
    m2 = DPLloyd(3, eps, bounds=B, random_state=0).fit(X[:-1])
    assert m.n_estimate_ - m2.n_estimate_ == pytest.approx(1.0, abs=1e-9)
    # k larger than N: allowed (only a published N is compared with k)
    assert DPLloyd(12, eps, bounds=B, random_state=0).fit(X[:10]).cluster_centers_.shape == (12, 2)
    with pytest.raises(ValueError, match="n_clusters"):
        DPLloyd(12, eps, bounds=B, n_public=10).fit(X[:10])
    # the noisy count is floored at 1 (post-processing) and a tiny noisy N just means 2 rounds
    tiny = DPLloyd(2, 0.01, bounds=B, random_state=3).fit(X[:2])
    assert tiny.n_estimate_ >= 1.0 and tiny.n_iter_ == 2


def test_shared_ledger_refuses_before_reading_data():
    X = _data(200, 2)
    shared = PrivacyLedger(budget_epsilon=1.5)
    DPLloyd(3, 1.0, bounds=B, random_state=0, ledger=shared).fit(X)
    from dpclust_core.accounting import BudgetExceededError
    with pytest.raises(BudgetExceededError):
        DPLloyd(3, 1.0, bounds=B, random_state=0, ledger=shared).fit(np.full_like(X, np.nan))
    assert shared.epsilon == pytest.approx(1.0, rel=1e-12)


def _released_state(m):
    """Every attribute a fitted DPLloyd exposes, as plain arrays / scalars (ledger as its entries)."""
    out = {}
    for key, val in sorted(vars(m).items()):
        if not key.endswith("_"):
            continue
        if key == "ledger_":
            val = [(e.name, e.epsilon, e.delta, e.sensitivity) for e in val.entries]
        elif key == "history_":
            val = [{kk: np.asarray(vv) for kk, vv in h.items()} for h in val]
        out[key] = val
    return out


def _assert_same_state(a, b):
    assert a.keys() == b.keys()
    for key in a:
        va, vb = a[key], b[key]
        if key == "history_":
            for ha, hb in zip(va, vb, strict=True):
                assert ha.keys() == hb.keys()
                for kk in ha:
                    np.testing.assert_array_equal(ha[kk], hb[kk], err_msg=f"history_[{kk}]")
        elif isinstance(va, tuple) and va and isinstance(va[0], np.ndarray):
            for x, y in zip(va, vb, strict=True):
                np.testing.assert_array_equal(x, y, err_msg=key)
        elif isinstance(va, np.ndarray):
            np.testing.assert_array_equal(va, vb, err_msg=key)
        else:
            assert va == vb, key


@pytest.mark.parametrize("variant", VARIANTS)
def test_fitted_estimator_holds_no_raw_data_statistic(variant):
    """Two datasets that are identical after the public clipping / projection must give fitted estimators that
    are identical in EVERY attribute (same seed): then nothing on the estimator is a statistic of the raw data
    beyond what the mechanism releases. (A stored count of clipped points, say, would differ: 0 vs 3.)"""
    d, k = 2, 3
    X, _ = make_blobs_ratio(400, n_clusters=3, n_features=d, n_outliers=0, random_state=2)
    X = 0.4 * X
    far = np.array([[5.0, 5.0], [-7.0, 0.1], [0.0, -30.0]])          # outside the box [-1, 1]^2
    Xa = np.vstack([X, far])
    if variant == "lee_kifer":
        Xb = np.vstack([X, project_l1_ball(np.clip(far, -1, 1))])     # what the mechanism sees of them
    else:
        Xb = np.vstack([X, np.clip(far, -1, 1)])
    a = DPLloyd(k, 0.5, bounds=B, variant=variant, random_state=3, n_public=403).fit(Xa)
    b = DPLloyd(k, 0.5, bounds=B, variant=variant, random_state=3, n_public=403).fit(Xb)
    _assert_same_state(_released_state(a), _released_state(b))
    # ... and a real change of the data does change the release (the comparison has power)
    c = DPLloyd(k, 0.5, bounds=B, variant=variant, random_state=3, n_public=403)
    c.fit(np.vstack([X, 0.5 * np.clip(far, -1, 1)]))
    assert not np.array_equal(a.cluster_centers_, c.cluster_centers_)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("d", [1, 3, 6])
def test_noise_actually_added_has_the_recorded_scales(variant, d):
    """Reconstruct the Laplace draws: the estimator spawns (init, noise) streams from ``random_state`` and the
    noise stream gives, per round, the k count draws then the k*d sum draws. The noise actually added
    (noisy - exact statistic of the scaled data in the cells of the round's centroids) must equal the standard
    draws times ledger sensitivity / ledger epsilon, and that scale must be the one in ``history_``."""
    k, seed = 4, 21
    X = _data(600, d, seed=d)
    m = DPLloyd(k, 0.9, bounds=B, variant=variant, random_state=seed, n_public=600).fit(X)
    Z = scale_to_domain(X, m.bounds_)
    if variant == "lee_kifer":
        Z = project_l1_ball(Z)
    _, noise_rng = np.random.default_rng(seed).spawn(2)
    entries = m.ledger_.entries
    for t, h in enumerate(m.history_):
        e_cnt, e_sum = entries[2 * t], entries[2 * t + 1]
        d2 = ((Z[:, None, :] - h["centroids"][None]) ** 2).sum(axis=2)
        lab = np.argmin(d2, axis=1)
        cnt = np.bincount(lab, minlength=k).astype(float)
        sums = np.stack([np.bincount(lab, weights=Z[:, i], minlength=k) for i in range(d)], axis=1)
        b_cnt = e_cnt.sensitivity / e_cnt.epsilon
        b_sum = e_sum.sensitivity / e_sum.epsilon
        assert h["count_scale"] == pytest.approx(b_cnt, rel=1e-12)
        assert h["sum_scale"] == pytest.approx(b_sum, rel=1e-12)
        # the release is the package's mechanism on the exact statistics, with the recorded sensitivities
        # and budgets, fed by the estimator's noise stream (one record changes 1 count and d sums)
        exp_cnt = laplace_mechanism(cnt, e_cnt.sensitivity, e_cnt.epsilon, noise_rng, l0_sensitivity=1)
        exp_sum = laplace_mechanism(sums, e_sum.sensitivity, e_sum.epsilon, noise_rng, l0_sensitivity=d)
        gamma_sum = laplace_grid(e_sum.sensitivity, d)[0]  # a sum computed in another order may round apart
        np.testing.assert_array_equal(h["noisy_counts"], exp_cnt)
        np.testing.assert_allclose(h["noisy_sums"], exp_sum, rtol=0, atol=gamma_sum * 1.01)
    T = m.n_iter_
    if variant == "lee_kifer":      # Lap(2T/eps) on every count and coordinate sum
        assert b_cnt == pytest.approx(2 * T / 0.9, rel=1e-12) and b_sum == pytest.approx(2 * T / 0.9, rel=1e-12)
        assert e_sum.sensitivity == 1.0
    else:                           # per coordinate Lap(r / eps_s); the recorded vector release costs d*eps_s
        assert b_sum == pytest.approx(1.0 / m.epsilon_sum_, rel=1e-12)
        assert e_sum.epsilon == pytest.approx(d * m.epsilon_sum_, rel=1e-12)
        assert e_sum.sensitivity == pytest.approx(d * 1.0)
        assert e_cnt.epsilon + e_sum.epsilon == pytest.approx(0.9 / T, rel=1e-12)


# ------------------------------------------------------------------ history
def _rule(prev, cnt, sums, proj, r=1.0):
    """The update rule, written out: guard, projection, then every coordinate rounded towards 0 onto the public
    grid 2^(floor(log2 2r) - 40) of the scaled domain."""
    out = prev.copy()
    ok = cnt >= 1.0
    out[ok] = sums[ok] / cnt[ok, None]
    step = 2.0 ** (math.floor(math.log2(2 * r)) - 40)
    return np.trunc(proj(out) / step) * step


@pytest.mark.parametrize("variant", VARIANTS)
def test_history_shape_and_consistency(variant):
    d, k = 3, 4
    X = _l1_data(500, d) if variant == "lee_kifer" else _data(500, d)
    m = DPLloyd(k, 0.3, bounds=B, variant=variant, random_state=7).fit(X)
    assert len(m.history_) == m.n_iter_ == m.n_rounds_
    np.testing.assert_array_equal(m.history_[0]["centroids"], m.init_centroids_)
    # default guards: clip to the box for original/improved, 'keep_prev' without projection for lee_kifer
    proj = (lambda C: C) if variant == "lee_kifer" else (lambda C: np.clip(C, -1.0, 1.0))
    for t, h in enumerate(m.history_):
        assert h["centroids"].shape == (k, d) and h["new_centroids"].shape == (k, d)
        assert h["noisy_counts"].shape == (k,) and h["noisy_sums"].shape == (k, d)
        assert np.isscalar(h["count_scale"]) and np.isscalar(h["sum_scale"])
        np.testing.assert_array_equal(_rule(h["centroids"], h["noisy_counts"], h["noisy_sums"], proj),
                                      h["new_centroids"])
        np.testing.assert_array_equal(m.update_rule(h["centroids"], h["noisy_counts"], h["noisy_sums"]),
                                      h["new_centroids"])
        if t + 1 < len(m.history_):
            np.testing.assert_array_equal(h["new_centroids"], m.history_[t + 1]["centroids"])
    np.testing.assert_allclose(m.cluster_centers_, m.history_[-1]["new_centroids"], atol=1e-12)
    if variant != "lee_kifer":
        assert np.all(np.abs(m.history_[-1]["new_centroids"]) <= 1.0)


def test_history_in_scaled_domain_and_centers_in_original_units():
    X = _data(400, 2) * np.array([50.0, 3.0]) + np.array([100.0, -7.0])
    bounds = ([50.0, -10.0], [150.0, -4.0])
    m = DPLloyd(3, 1.0, bounds=bounds, variant="original", random_state=3).fit(X)
    C = m.history_[-1]["new_centroids"]
    assert np.all(np.abs(C) <= 1.0)
    back = scale_to_domain(m.cluster_centers_, bounds)
    np.testing.assert_allclose(back, C, atol=1e-9)
    assert m.scaled_bounds_ == (-1.0, 1.0)
    assert np.all(m.cluster_centers_ >= np.array(bounds[0]) - 1e-9)
    assert np.all(m.cluster_centers_ <= np.array(bounds[1]) + 1e-9)


# ------------------------------------------------------------------ empty clusters are noised
def test_empty_clusters_still_noised():
    """All points at one spot; 4 of 5 initial centroids are far away, so their clusters are empty in round 1.
    Their noisy counts and sums must be pure Laplace noise of the stated scale. KS test at alpha = 0.001
    (fixed seeds: a false alarm would be reproducible, its probability is 0.1% per test) plus the variance."""
    X = np.full((20, 2), 0.9)
    init = np.array([[0.9, 0.9], [-0.9, -0.9], [-0.9, 0.9], [0.9, -0.9], [-0.9, 0.0]])
    zc, zs = [], []
    for s in range(500):
        m = DPLloyd(5, 1.0, bounds=B, variant="original", n_rounds=1, init=init, random_state=s).fit(X)
        h = m.history_[0]
        assert h["noisy_counts"].shape == (5,)
        zc.append(h["noisy_counts"][1:] / h["count_scale"])
        zs.append(h["noisy_sums"][1:].ravel() / h["sum_scale"])
    zc, zs = np.concatenate(zc), np.concatenate(zs)
    # the noise is discrete on a grid thousands of times finer than its scale: an exact 0 is rare
    assert np.mean(zc == 0) < 0.005 and np.mean(zs == 0) < 0.005
    assert stats.kstest(zc, stats.laplace.cdf).pvalue > 1e-3
    assert stats.kstest(zs, stats.laplace.cdf).pvalue > 1e-3
    # Var(Lap(1)) = 2; 2000 samples: relative s.e. of the variance sqrt((kurtosis - 1)/n) = 0.05 -> 5 s.e.
    assert np.var(zc) == pytest.approx(2.0, rel=0.25)
    assert np.var(zs) == pytest.approx(2.0, rel=0.25)


# ------------------------------------------------------------------ zero-noise limit
@pytest.mark.parametrize("variant", VARIANTS)
def test_zero_noise_equals_lloyd(variant):
    """At eps = 1e10 the noise is 0, but every release is rounded to its power-of-two grid (step 2^-11 or
    2^-12 for sums of sensitivity 2 or 1): a centroid moves by at most half a step over its count."""
    d, k = 2, 4
    X = _l1_data(800, d, seed=3) if variant == "lee_kifer" else _data(800, d, seed=3)
    m = DPLloyd(k, 1e10, bounds=B, variant=variant, random_state=5).fit(X)
    ref = lloyd(X, m.init_centroids_, n_iter=m.n_iter_)
    np.testing.assert_allclose(m.cluster_centers_, ref, atol=1e-5)
    assert m.n_iter_ == (7 if variant == "improved" else 5)


def lloyd(X, init, n_iter):
    """Plain Lloyd (the shared kernel) for ``n_iter`` iterations at most, stopping when no centre moves."""
    return _kernels.lloyd(np.asarray(X, dtype=float), init, max_iter=n_iter, tol=0.0)[0]


def test_lloyd_and_best_of_lloyd():
    X, y, centers = make_s1_like(random_state=1, return_centers=True)
    C = lloyd(X, centers, n_iter=50)
    # from the true centres Lloyd barely moves
    assert np.max(np.abs(C - centers)) < 0.05
    # the thesis's 30 inits: on S1-like data (as on the real S1) a best of only 5 k-means++ runs lands in a
    # local optimum (one cluster split, two merged; NICV about 1.5x higher) for about a third of the seeds
    c, v = best_of_lloyd(X, 15, n_init=30, rng=0)
    assert c.shape == (15, 2) and v == pytest.approx(nicv(X, c), rel=1e-12)
    assert v <= nicv(X, C) * 1.05
    c2, v2 = best_of_lloyd(X, 15, n_init=30, rng=0)
    assert v2 == v


# ------------------------------------------------------------------ initialisation
def test_sphere_packing():
    for k, d in [(1, 2), (5, 2), (15, 2), (4, 6), (10, 10)]:
        C, a = sphere_packing_centroids(k, d, 1.0, rng=k * 10 + d, return_radius=True)
        assert C.shape == (k, d)
        assert 0.0 <= a <= 1.0
        assert np.all(np.abs(C) <= 1.0 - a + 1e-12)
        if k > 1:
            D = np.linalg.norm(C[:, None] - C[None], axis=2)[np.triu_indices(k, 1)]
            assert D.min() >= 2 * a - 1e-12
    # a meaningful radius in 2-D: 5 disks of radius a in the unit square [-1, 1]^2 -> a well above 0.1
    assert sphere_packing_centroids(5, 2, rng=0, return_radius=True)[1] > 0.2
    C2 = sphere_packing_centroids(5, 2, 3.0, rng=0)
    assert np.all(np.abs(C2) <= 3.0)


def test_separated_centroids_in_l1_ball():
    C = separated_centroids(6, 3, rng=0)
    assert C.shape == (6, 3)
    assert np.all(np.abs(C).sum(axis=1) <= 1.0 + 1e-12)


def test_project_l1_ball():
    np.testing.assert_allclose(project_l1_ball([2.0, 0.0]), [1.0, 0.0])
    np.testing.assert_allclose(project_l1_ball([1.0, 1.0]), [0.5, 0.5])
    np.testing.assert_allclose(project_l1_ball([0.2, -0.3]), [0.2, -0.3])
    rng = np.random.default_rng(0)
    V = rng.normal(size=(200, 5)) * 2
    W = project_l1_ball(V)
    assert np.all(np.abs(W).sum(axis=1) <= 1.0 + 1e-12)
    # optimality: W is at least as close to V as any of many random points of the ball
    P = project_l1_ball(rng.normal(size=(2000, 5)))
    for v, w in zip(V[:20], W[:20]):
        assert np.linalg.norm(v - w) <= np.min(np.linalg.norm(P - v, axis=1)) + 1e-12


def _exact_l1_projection(v, radius):
    """The projection onto the L1 ball in exact rational arithmetic (Duchi et al.'s rule), for checking."""
    from fractions import Fraction

    a = [abs(Fraction(float(x))) for x in v]
    r = Fraction(float(radius))
    if sum(a) <= r:
        return np.array(v, dtype=float)
    u = sorted(a, reverse=True)
    css, rho, acc = Fraction(0), 0, Fraction(0)
    for j, uj in enumerate(u, 1):
        acc += uj
        if uj - (acc - r) / j > 0:
            rho, css = j, acc
    theta = (css - r) / rho
    return np.array([float(max(x - theta, 0)) for x in a]) * np.sign(v)


def test_project_l1_ball_far_outside_the_ball():
    """Points whose magnitude dwarfs the radius land on the ball, at the exact projection (a point at 1e20 used to
    come back at 5e19: the threshold test cancelled to False)."""
    np.testing.assert_array_equal(project_l1_ball([[0.0, 1e20]], 1.0), [[0.0, 1.0]])
    np.testing.assert_array_equal(project_l1_ball([[1e300, -1e300]], 1.0), [[0.5, -0.5]])
    rng = np.random.default_rng(5)
    for _ in range(300):
        d = int(rng.integers(1, 6))
        v = rng.normal(size=d) * 10.0 ** rng.integers(-3, 250, size=d)
        radius = 10.0 ** rng.integers(-3, 4)
        w = project_l1_ball(v, radius)
        assert np.abs(w).sum() <= radius * (1 + 1e-12)
        np.testing.assert_allclose(w, _exact_l1_projection(v, radius), rtol=0, atol=radius * 1e-9)


def test_lee_kifer_projects_data_and_init_array():
    X = _data(300, 2)  # some points have ||x||_1 > 1
    init = np.array([[0.9, 0.9], [-0.5, 0.1]])
    assert np.any(np.abs(X).sum(axis=1) > 1.0)
    m = DPLloyd(2, 1e9, bounds=B, variant="lee_kifer", init=init, random_state=0).fit(X)
    assert np.all(np.abs(m.init_centroids_).sum(axis=1) <= 1.0 + 1e-12)
    ref = lloyd(project_l1_ball(X), m.init_centroids_, n_iter=5)
    np.testing.assert_allclose(m.cluster_centers_, ref, atol=1e-5)  # grid rounding, as above
    labels = m.predict(X)  # predict maps (and projects) X as fit did
    np.testing.assert_array_equal(labels, lloyd_module._kernels.assign(project_l1_ball(X), m.scaled_centers_))


# ------------------------------------------------------------------ reproducibility and errors
@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_result(variant):
    X = _data(300, 3)
    a = DPLloyd(3, 0.5, bounds=B, variant=variant, random_state=11).fit(X)
    b = DPLloyd(3, 0.5, bounds=B, variant=variant, random_state=11).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    c = DPLloyd(3, 0.5, bounds=B, variant=variant, random_state=12).fit(X)
    assert not np.array_equal(a.cluster_centers_, c.cluster_centers_)
    g1 = DPLloyd(3, 0.5, bounds=B, variant=variant, random_state=np.random.default_rng(4)).fit(X)
    g2 = DPLloyd(3, 0.5, bounds=B, variant=variant, random_state=np.random.default_rng(4)).fit(X)
    np.testing.assert_array_equal(g1.cluster_centers_, g2.cluster_centers_)


def test_bad_input_raises():
    X = _data(50, 2)
    with pytest.raises(ValueError, match="X"):
        Xn = X.copy()
        Xn[3, 1] = np.nan
        DPLloyd(2, 1.0, bounds=B).fit(Xn)
    for eps in (0, -1.0, np.inf, np.nan, "1", True):
        with pytest.raises(ValueError, match="epsilon"):
            DPLloyd(2, eps, bounds=B).fit(X)
    for k in (0, -1, 2.5, True, 10**6):
        with pytest.raises(ValueError, match="n_clusters"):
            DPLloyd(k, 1.0, bounds=B).fit(X)
    with pytest.raises(TypeError):
        DPLloyd(2, 1.0).fit(X)  # bounds are required (keyword-only, no default)
    with pytest.raises(ValueError, match="bounds.*public"):
        DPLloyd(2, 1.0, bounds=None).fit(X)
    with pytest.raises(TypeError):
        DPLloyd(2, 1.0, B)  # everything after epsilon is keyword-only
    for bad in (dict(n_share=0.0), dict(n_share=0.7), dict(rho=0.6), dict(r=0.0), dict(guard="x"),
                dict(random_state=True), dict(ledger=[])):
        with pytest.raises(ValueError, match=list(bad)[0]):
            DPLloyd(2, 1.0, bounds=B, **bad).fit(X)
    for b in ((1.0, -1.0), (0.0, 0.0), ([0, 0], [1, -1])):
        with pytest.raises(ValueError, match="bounds"):
            DPLloyd(2, 1.0, bounds=b).fit(X)
    with pytest.raises(ValueError, match="variant"):
        DPLloyd(2, 1.0, bounds=B, variant="fast").fit(X)
    with pytest.raises(ValueError, match="n_rounds"):
        DPLloyd(2, 1.0, bounds=B, n_rounds=0).fit(X)
    with pytest.raises(ValueError, match="init"):
        DPLloyd(2, 1.0, bounds=B, init=np.zeros((3, 2))).fit(X)
    with pytest.raises(ValueError, match="init"):
        DPLloyd(2, 1.0, bounds=B, init="forgy").fit(X)
    with pytest.raises(ValueError, match="r"):
        DPLloyd(2, 1.0, bounds=B, variant="lee_kifer", r=2.0).fit(X)
    with pytest.raises(ValueError, match="n_public"):
        DPLloyd(2, 1.0, bounds=B, n_public=0).fit(X)
    with pytest.raises(ValueError, match="init"):
        DPLloyd(2, 1.0, bounds=B, init=np.zeros((2, 3))).fit(X)
    with pytest.raises(ValueError, match="X"):
        DPLloyd(2, 1.0, bounds=B).fit(X[:, 0])
    m = DPLloyd(2, 1.0, bounds=B, random_state=0).fit(X)
    with pytest.raises(ValueError, match="X"):
        m.predict(np.zeros((4, 3)))
    with pytest.raises(NotFittedError):
        DPLloyd(2, 1.0, bounds=B).predict(X)  # not fitted
    labels = m.predict(X)
    assert labels.shape == (len(X),) and set(np.unique(labels)) <= {0, 1}
    with pytest.raises(ValueError, match="epsilon"):
        epsilon_m(100, 2, 3) and n_rounds(0.0, 0.1)
    with pytest.raises(ValueError, match="split"):
        budget_split(2, 1.0, split="swapped")


# ------------------------------------------------------------------ real data vs stand-ins
def _load_s1():
    p = DATA / "s1.arff"
    if not p.exists():
        pytest.skip("../shared/data/s1.arff is absent")
    rows = [ln.split(",")[:2] for ln in p.read_text().splitlines() if ln[:1].isdigit()]
    return np.array(rows, dtype=float)


def _load_tiger():
    p = DATA / "tiger-nm-wa.tsv"
    if not p.exists():
        pytest.skip("../shared/data/tiger-nm-wa.tsv is absent")
    return np.loadtxt(p)


def _dp_nicv(X, k, eps, runs=10):
    return float(np.mean([nicv(X, DPLloyd(k, eps, bounds=B, random_state=s).fit(X).cluster_centers_)
                          for s in range(runs)]))


@pytest.mark.parametrize("loader", ["s1", "tiger"])
def test_real_data_close_to_standin(loader):
    """The real copies, scaled to [-1, 1]^2 by their own min/max (taken as the public domain here), against
    the S1-like stand-in with the same N and k = 15.

    The stored ``tiger-nm-wa.tsv`` is 29,910 points in 15 Gaussian blobs (an S-set-like layout, not road
    intersections with k = 2), so it is compared with the S1-like stand-in too.
    Tolerances: DPLloyd-Impr's NICV at eps in {0.5, 1} (mean of 10 runs) is dominated by the noise and the
    initialisation, which depend on N, k and d, not on the exact cluster shapes: within 30%. The non-private
    best-of-Lloyd NICV depends on the clusters' spread, on which ``make_s1_like`` is calibrated (spreads
    0.047-0.083 of the half-width; 0.0084 vs 0.0082 for S1 at best of 30): within 15% of S1, and about 1.5
    times the TIGER copy's (0.0085 vs 0.0056: its blobs are tighter than S1's)
    """
    R = _load_s1() if loader == "s1" else _load_tiger()
    Xr = scale_to_domain(R, (R.min(axis=0), R.max(axis=0)))
    Xs, _ = make_s1_like(len(Xr), random_state=0)
    base_r = best_of_lloyd(Xr, 15, n_init=30, rng=0)[1]  # 30 inits: best of 5 can stop in a local optimum
    base_s = best_of_lloyd(Xs, 15, n_init=30, rng=0)[1]
    if loader == "s1":
        assert base_s == pytest.approx(base_r, rel=0.15)
    else:  # the TIGER copy's 15 blobs are tighter than S1's (0.0056 vs 0.0082): the stand-in is 1.5x above it
        assert 1.3 < base_s / base_r < 1.7
    for eps in (0.5, 1.0):
        assert _dp_nicv(Xs, 15, eps) == pytest.approx(_dp_nicv(Xr, 15, eps), rel=0.3)


def test_real_tiger_close_to_tiger_standin_k2():
    """The TIGER copy at the thesis's k = 2 against the TIGER stand-in of ``dpclust_book.datasets`` (owned by the
    grid/hybrid chapter; calibrated on the copy's best-of-Lloyd NICV). With k = 2 the NICV is dominated by the
    between-state spread, which the stand-in reproduces, so both the non-private NICV and DPLloyd-Impr's mean
    NICV (10 runs, eps in {0.1, 0.5, 1}) agree within 10%."""
    from dpclust_book.datasets import make_tiger_like
    R = _load_tiger()
    Xr = scale_to_domain(R, (R.min(axis=0), R.max(axis=0)))
    Xs, _ = make_tiger_like(random_state=0)
    assert best_of_lloyd(Xs, 2, n_init=5, rng=0)[1] == pytest.approx(best_of_lloyd(Xr, 2, n_init=5, rng=0)[1],
                                                                      rel=0.10)
    for eps in (0.1, 0.5, 1.0):
        assert _dp_nicv(Xs, 2, eps) == pytest.approx(_dp_nicv(Xr, 2, eps), rel=0.10)


# ------------------------------------------------------------------ design for a partitioned (dask) fit
def test_round_statistics_is_a_reduction_over_row_blocks():
    """A round reads the data once, through ``_round_statistics(Z, C) -> (counts, sums)``: on row blocks the
    results add up to the whole, so a partitioned array can be reduced on workers and noised once."""
    Z = scale_to_domain(_data(1000, 3, seed=4), B)
    C = sphere_packing_centroids(4, 3, rng=0)
    cnt, sums = lloyd_module._round_statistics(Z, C)
    parts = [lloyd_module._round_statistics(Z[a:a + 137], C) for a in range(0, len(Z), 137)]
    np.testing.assert_array_equal(sum(p[0] for p in parts), cnt)
    np.testing.assert_allclose(sum(p[1] for p in parts), sums, atol=1e-12)
    assert cnt.sum() == len(Z)


# ------------------------------------------------------------------ public helpers: bad input and caps
def test_helpers_refuse_bad_input_and_never_hang():
    with pytest.raises(ValueError, match="r0"):
        separated_centroids(3, 2, rng=0, r0=np.inf)
    # a huge but finite radius is lowered to the ball's diameter (2): no long shrinking loop
    C = separated_centroids(3, 2, rng=0, r0=1e300)
    assert C.shape == (3, 2) and np.all(np.abs(C).sum(axis=1) <= 1 + 1e-12)
    with pytest.raises(ValueError, match="shrink"):
        separated_centroids(3, 2, rng=0, shrink=1.0)
    with pytest.raises(ValueError, match="k"):
        sphere_packing_centroids(10**7, 2, rng=0)
    with pytest.raises(ValueError, match="max_tries"):
        sphere_packing_centroids(3, 2, rng=0, max_tries=10**12)
    with pytest.raises(ValueError, match="k"):
        best_of_lloyd(_data(20, 2)[:20], 21, n_init=1, rng=0)  # non-private: k is compared with n
    with pytest.raises(ValueError, match="init"):
        best_of_lloyd(_data(20, 2), 2, init="forgy")
    with pytest.raises(ValueError, match="radius"):
        project_l1_ball([1.0, 2.0], radius=0.0)
    with pytest.raises(ValueError, match="V"):
        project_l1_ball([np.nan, 1.0])
    # error models
    with pytest.raises(ValueError, match="n"):
        epsilon_m(0, 2, 3)
    assert epsilon_m(1e-300, 2, 3) > 0 and np.isfinite(epsilon_m(1e-300, 2, 3))
    assert n_rounds(1.0, epsilon_m(1e300, 2, 3)) == 7        # eps_m tiny: capped at 7 rounds
    with pytest.raises(ValueError, match="min_rounds"):
        n_rounds(1.0, 0.1, max_rounds=2, min_rounds=3)
    with pytest.raises(ValueError, match="n_trials"):
        simulate_one_round_mse(np.zeros((10, 2)), np.zeros((2, 2)), 1.0, n_trials=10**12)
    for bad in (0, -1.0, np.nan, "1", True):
        with pytest.raises(ValueError, match="epsilon"):
            dplloyd_mse(100, 2, 3, bad)
    with pytest.raises(ValueError, match="d"):
        dplloyd_mse(100, 2.5, 3, 1.0)
    with pytest.raises(ValueError, match="per"):
        dplloyd_mse(100, 2, 3, 1.0, per="x")


# ------------------------------------------------------------------ floating point (Mironov 2012)
def _attack_event(y):
    """``fl(|y - 6| - |y - 5|) > 1``: impossible in exact arithmetic, frequent for fl(5 + float Laplace)."""
    y = np.asarray(y, dtype=float)
    return (np.abs(y - 6.0) - np.abs(y - 5.0)) > 1.0


def _naive_release(value, sensitivity, epsilon, rng=None, *, l0_sensitivity=None, ledger=None, name="laplace"):
    """DPLloyd's release before the fix: ``fl(value + rng.laplace(0, sensitivity/epsilon))``."""
    if ledger is not None:
        ledger.record(name, epsilon, 0.0, sensitivity)
    return mechanisms.naive_laplace(value, sensitivity, epsilon, rng)


@contextlib.contextmanager
def _old_float_sampler(monkeypatch):
    with monkeypatch.context() as mp:
        mp.setattr(lloyd_module, "laplace_mechanism", _naive_release)
        yield


def _released_counts(n_points, n, rng):
    """n fits of DPLloyd (one cluster, one round, eps = 1) on n_points records: the released noisy count."""
    X = np.zeros((n_points, 1))
    seeds = rng.integers(2**63, size=n)
    return np.array([DPLloyd(1, 1.0, bounds=B, variant="original", n_rounds=1, random_state=int(s)).fit(X)
                     .history_[0]["noisy_counts"][0] for s in seeds])


def test_audit_catches_the_float_sampler_on_dplloyd_counts(monkeypatch):
    """Neighbouring data sets of 5 and 6 records; the attack event on DPLloyd's released count (scale 2) is a
    post-processing of the release. With the old float sampler it fires for about 1.2% of the releases on 5
    records and never on 6: the claimed eps = 1 is refused (measured: 56 of 5,000 against 0, empirical
    eps >= 2.4; with 20,000 fits per batch, 242 against 0 and eps >= 4.05)."""
    stat = lambda out: _attack_event(out).astype(float)  # noqa: E731
    with _old_float_sampler(monkeypatch):
        res = audit(_released_counts, 5, 6, 1.0, n_samples=5000, statistic=stat, rng=1)
    assert res.rejects(1e-4) and res.epsilon_lower_bound > 2.0, str(res)


def test_dplloyd_passes_the_floating_point_audit():
    """The same audit on the package's DPLloyd (exact discrete Laplace on a power-of-two grid): the attack
    event never happens and the claim eps = 1 stands."""
    hits = []

    def stat(out):
        event = _attack_event(out)
        hits.append(int(event.sum()))
        return event.astype(float)

    res = audit(_released_counts, 5, 6, 1.0, n_samples=5000, statistic=stat, rng=1)
    assert not res.rejects(0.01), str(res)
    assert len(hits) == 4 and sum(hits) == 0  # 20,000 releases, not one attack event
