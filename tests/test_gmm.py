"""Tests of dpclust_core.gmm: private learning of separated Gaussian mixtures (Cohen et al. 2021, §6).

Every statistical test uses a FIXED seed (deterministic); the stated false-alarm rate is what it would have
under a fresh seed. The recovery thresholds are the ones chapter 8 states for its worked example.
"""
import math

import numpy as np
import pytest
from scipy import stats
import sklearn.mixture  # noqa: F401  (load its OpenMP runtime before threadpool_limits)
from threadpoolctl import threadpool_limits

from dpclust_core import gmm
from dpclust_core.mechanisms import gaussian_sigma

EPS, DELTA = 4.0, 1e-6


@pytest.fixture(autouse=True)
def _one_thread():
    """Small problems: one BLAS/OpenMP thread (sklearn's EM oversubscribes the shared 2-core machine)."""
    with threadpool_limits(1):
        yield


class Untouchable:
    """Stands in for X: ``len()`` gives the public n; reading any value raises."""

    def __init__(self, n, allow_len=True):
        self.n, self.allow_len = n, allow_len

    def __len__(self):
        if not self.allow_len:
            raise AssertionError("len() read before the budget was checked")
        return self.n

    def _touch(self, *a, **k):
        raise AssertionError("the data were read before the public preconditions were checked")

    __array__ = __getitem__ = __iter__ = _touch

    @property
    def shape(self):
        self._touch()


def worked_example():
    """The chapter's worked example: 3 anisotropic components in 2-D, weights .2/.3/.5, separation 300."""
    return gmm.random_separated_mixture(3, 2, separation=300, weights=(0.2, 0.3, 0.5), random_state=7)


def fit_worked(seed):
    P = worked_example()
    X, y = gmm.sample_mixture(P, 324 * 1000 + 60_000, seed)
    est = gmm.PrivateGaussianMixture(3, EPS, DELTA, radius=600, sigma_min=0.1, sigma_max=1.0, chunk_size=1000,
                                     random_state=seed).fit(X)
    return P, X, y, est


# ------------------------------------------------------------------ ledger
@pytest.mark.parametrize("k,d,eps,delta", [(2, 2, 4.0, 1e-6), (3, 5, 2.0, 1e-5), (4, 8, 1.0, 1e-6),
                                           (2, 16, 0.5, 1e-8)])
def test_ledger_total_equals_budget_simulated(k, d, eps, delta):
    P = gmm.paper_mixture(k, d, R=1000.0)
    est = gmm.PrivateGaussianMixture(k, eps, delta, radius=2000, sigma_max=1.0, random_state=1)
    t = est._min_tuples(k, eps, delta, 0.05)
    est = gmm.fit_private_gmm_simulated(P, t, 20_000, 5000, est, random_state=2)
    assert est.ledger_.total() == (pytest.approx(eps, rel=1e-12), pytest.approx(delta, rel=1e-12))
    est.ledger_.check(eps, delta)
    names = " ".join(e.name for e in est.ledger_.entries)
    assert "GoodCenters" in names
    assert est.success_  # so the X2 side ran: its three kinds of release are recorded
    assert "weights" in names and "mean round 2/2" in names and "scatter" in names


def test_ledger_total_on_failure_and_predict_raises():
    rng = np.random.default_rng(3)
    T = rng.normal(size=(400, 2, 2)) * 50  # no structure: the niceness test fails
    X2 = rng.normal(size=(1000, 2))
    est = gmm.PrivateGaussianMixture(2, EPS, DELTA, radius=500, random_state=0).fit_tuples(T, X2)
    assert not est.success_ and est.means_ is None
    assert est.ledger_.total() == (pytest.approx(EPS, rel=1e-12), pytest.approx(DELTA, rel=1e-12))
    with pytest.raises(RuntimeError):
        est.predict(X2)


def test_ledger_total_real_fit_and_parallel_structure():
    _, _, _, est = fit_worked(0)
    assert est.success_
    assert est.ledger_.total() == (pytest.approx(EPS, rel=1e-12), pytest.approx(DELTA, rel=1e-12))
    parts = {e.partition for e in est.ledger_.entries}
    assert parts == {0, 1}  # X1 | X2: two disjoint parts, each costs the whole budget
    x2 = [e for e in est.ledger_.entries if e.partition == 1]
    assert sum(e.epsilon for e in x2) == pytest.approx(EPS, rel=1e-12)
    assert sum(e.delta for e in x2) == pytest.approx(DELTA, rel=1e-12)


def test_ledger_with_private_k_averages():
    P = gmm.paper_mixture(2, 2, R=100.0)
    est = gmm.PrivateGaussianMixture(2, 2.0, 1e-6, radius=200, k_tuple="averages", random_state=0)
    t = est._min_tuples(2, 2.0, 1e-6, 0.05)
    est = gmm.fit_private_gmm_simulated(P, t, 10_000, 2000, est, random_state=0)
    assert est.ledger_.total() == (pytest.approx(2.0, rel=1e-12), pytest.approx(1e-6, rel=1e-12))


def test_naive_ledger():
    X, _ = gmm.sample_mixture(gmm.paper_mixture(2, 2, R=5.0), 2000, 0)
    est = gmm.NaiveNoisyGaussianMixture(2, 0.7, 1e-5, radius=10, random_state=0).fit(X)
    assert est.ledger_.total() == (pytest.approx(0.7, rel=1e-12), pytest.approx(1e-5, rel=1e-12))


# ------------------------------------------------------------------ sensitivities of the X2 statistics
def _neighbours(X2, rng, n_pairs=60):
    """Random and adversarial replacements of one row."""
    d = X2.shape[1]
    out = []
    for _ in range(n_pairs):
        j = int(rng.integers(X2.shape[0]))
        kind = rng.integers(3)
        new = (rng.normal(size=d) * 1e4 if kind == 0 else
               X2[int(rng.integers(X2.shape[0]))] + rng.normal(size=d) * 0.01 if kind == 1 else
               -X2[j] * 50)
        Y = X2.copy()
        Y[j] = new
        out.append(Y)
    return out


def test_x2_statistics_respect_their_sensitivities():
    rng = np.random.default_rng(5)
    P = gmm.paper_mixture(3, 3, R=8.0)
    X2, _ = gmm.sample_mixture(P, 300, rng)
    C = P.means + rng.normal(size=P.means.shape)  # the private centres: fixed w.r.t. X2
    radii = np.array([2.0, 5.0, 0.7])
    A = P.means + 0.3  # a released mean (fixed in the sensitivity analysis of the next round)
    rho2 = 1.7
    base_lab = gmm.assign(X2, C)
    S0 = gmm.clipped_cluster_sums(X2, base_lab, C, radii)
    Q0 = gmm.clipped_scatter_triu(X2, base_lab, A, rho2)
    c0 = np.bincount(base_lab, minlength=3)
    worst = [0.0, 0.0, 0.0]
    for Y in _neighbours(X2, rng):
        lab = gmm.assign(Y, C)
        dS = np.linalg.norm(gmm.clipped_cluster_sums(Y, lab, C, radii) - S0)
        dQ = np.linalg.norm(gmm.clipped_scatter_triu(Y, lab, A, rho2) - Q0)
        dc = np.abs(np.bincount(lab, minlength=3) - c0).sum()
        assert dS <= 2.0 + 1e-9
        assert dQ <= math.sqrt(2.0) * rho2**2 + 1e-9
        assert dc <= 2
        worst = [max(worst[0], dS), max(worst[1], dQ), max(worst[2], dc)]
    # the bounds are attained up to a small factor (the test would notice a loose clip)
    assert worst[0] > 1.4 and worst[1] > 0.9 * rho2**2 and worst[2] == 2


# ------------------------------------------------------------------ utility: the chapter's claims
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_recovers_worked_example_within_stated_error(seed):
    P, X, y, est = fit_worked(seed)
    assert est.success_
    err = gmm.parameter_errors(P, est.params())
    assert err["mean"] <= 0.05  # chapter 8: max mean error <= 0.05 (sigma units)
    assert err["cov"] <= 0.05  # max operator-norm covariance error <= 0.05
    assert err["weight"] <= 0.01  # max weight error <= 0.01
    perm = gmm.match_components(P.means, est.means_)
    assert np.mean(perm[y[:20000]] == est.predict(X[:20000])) == 1.0  # est component perm[i] is true i


def test_recovers_paper_mixture_simulated_eps1():
    """Paper's mixture N(R e_i, I), k=2, d=2, R=10 at eps=1 with X1 simulated (n ~ 2.3e9)."""
    P = gmm.paper_mixture(2, 2, R=10.0)
    est = gmm.PrivateGaussianMixture(2, 1.0, DELTA, radius=50, sigma_max=1.5, random_state=0)
    est = gmm.fit_private_gmm_simulated(P, 1133, 2_000_000, 50_000, est, random_state=1)
    assert est.success_
    err = gmm.parameter_errors(P, est.params())
    assert err["mean"] <= 0.1 and err["weight"] <= 0.01 and err["cov"] <= 0.3


def test_naive_baseline_fails_where_private_succeeds():
    P = gmm.paper_mixture(2, 2, R=10.0)
    X, _ = gmm.sample_mixture(P, 50_000, 0)
    est = gmm.NaiveNoisyGaussianMixture(2, 1.0, DELTA, radius=20, random_state=0).fit(X)
    assert gmm.parameter_errors(P, est.params())["mean"] > 5.0  # the noise (sigma ~ 160) swamps R*sqrt2 ~ 14


# ------------------------------------------------------------------ preconditions: before the data
@pytest.mark.parametrize("kwargs", [dict(epsilon=0.0), dict(epsilon=-1.0), dict(epsilon=float("nan")),
                                    dict(delta=0.0), dict(delta=1.0), dict(delta=1.5), dict(n_components=0),
                                    dict(n_components=1), dict(k_tuple="nope"), dict(labeler="nope"),
                                    dict(radius=-1.0), dict(sigma_max=0.0), dict(beta=1.0),
                                    dict(budget_split=(1, 0, 1)), dict(clip_radius=-2.0)])
def test_bad_parameters_raise_before_length_or_data(kwargs):
    base = dict(n_components=2, epsilon=1.0, delta=1e-6, radius=10.0)
    base.update(kwargs)
    est = gmm.PrivateGaussianMixture(**{k: base.pop(k) for k in ("n_components", "epsilon", "delta")}, **base)
    with pytest.raises(ValueError):
        est.fit(Untouchable(10**9, allow_len=False))


def test_n_too_small_raises_before_data():
    est = gmm.PrivateGaussianMixture(2, 1.0, 1e-6, radius=10.0, n_tuples=1133, chunk_size=100)
    with pytest.raises(ValueError, match="too small"):
        est.fit(Untouchable(1133 * 100))  # no room for X2
    with pytest.raises(ValueError, match="too small"):
        est.fit(Untouchable(1000))
    est = gmm.PrivateGaussianMixture(2, 1.0, 1e-6, radius=10.0, n_tuples=100)  # t < 2*ell + 2
    with pytest.raises(ValueError, match="n_tuples"):
        est.fit(Untouchable(10**7))
    # the check passes on the public n, and only then is the data touched
    est = gmm.PrivateGaussianMixture(2, 1.0, 1e-6, radius=10.0, n_tuples=1133, chunk_size=10)
    with pytest.raises(AssertionError, match="data were read"):
        est.fit(Untouchable(20_000))


def test_naive_bad_parameters_raise_before_data():
    for kw in (dict(epsilon=0.0), dict(delta=1.0), dict(radius=0.0)):
        base = dict(epsilon=1.0, delta=1e-6, radius=10.0)
        base.update(kw)
        est = gmm.NaiveNoisyGaussianMixture(2, base.pop("epsilon"), base.pop("delta"), **base)
        with pytest.raises(ValueError):
            est.fit(Untouchable(1000, allow_len=False))


def test_data_validation():
    est = gmm.PrivateGaussianMixture(2, 1.0, 1e-6, radius=10.0, n_tuples=1133, chunk_size=3)
    X = np.zeros((5000, 2))
    X[7, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        est.fit(X)


# ------------------------------------------------------------------ naive baseline noise
def test_naive_noise_sigma_formulas():
    r, eps, dl = 7.0, 0.5, 1e-6
    assert gmm.naive_noise_sigma(r, eps, dl, "classic") == pytest.approx(2 * r * math.sqrt(2 * math.log(1.25 / dl))
                                                                        / eps, rel=1e-12)
    assert gmm.naive_noise_sigma(r, eps, dl) == pytest.approx(gaussian_sigma(2 * r, eps, dl), rel=1e-12)
    assert gmm.naive_noise_sigma(r, eps, dl) < gmm.naive_noise_sigma(r, eps, dl, "classic")


def test_naive_noise_scale_and_clipping_empirical():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(20_000, 3)) * 4.0
    r = 5.0
    est = gmm.NaiveNoisyGaussianMixture(2, 0.8, 1e-6, radius=r, method="classic", random_state=0).fit(X)
    sigma = 2 * r * math.sqrt(2 * math.log(1.25 / 1e-6)) / 0.8
    assert est.noise_sigma_ == pytest.approx(sigma, rel=1e-12)
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    clipped = X * np.minimum(1.0, r / norms)
    noise = (est.noisy_X_ - clipped).ravel()
    # KS test against N(0, sigma^2): false-alarm rate 1e-3 under a fresh seed
    assert stats.kstest(noise / sigma, "norm").pvalue > 1e-3
    # negative control: a 10% wrong scale is rejected by the same test
    assert stats.kstest(noise / (1.1 * sigma), "norm").pvalue < 1e-6


# ------------------------------------------------------------------ determinism
def test_same_seed_same_result():
    P = gmm.paper_mixture(2, 2, R=200.0)
    X, _ = gmm.sample_mixture(P, 324 * 200 + 5000, 0)
    fits = [gmm.PrivateGaussianMixture(2, EPS, DELTA, radius=400, chunk_size=200, random_state=11).fit(X)
            for _ in range(2)]
    assert fits[0].success_ and fits[1].success_
    for attr in ("centers_", "means_", "covariances_", "weights_"):
        np.testing.assert_array_equal(getattr(fits[0], attr), getattr(fits[1], attr))
    other = gmm.PrivateGaussianMixture(2, EPS, DELTA, radius=400, chunk_size=200, random_state=12).fit(X)
    assert not np.array_equal(other.means_, fits[0].means_)
    n1 = gmm.NaiveNoisyGaussianMixture(2, 1.0, DELTA, radius=400, random_state=3).fit(X[:3000])
    n2 = gmm.NaiveNoisyGaussianMixture(2, 1.0, DELTA, radius=400, random_state=3).fit(X[:3000])
    np.testing.assert_array_equal(n1.noisy_X_, n2.noisy_X_)
    np.testing.assert_array_equal(n1.means_, n2.means_)


# ------------------------------------------------------------------ building blocks
def test_simulator_matches_real_sample_tuples():
    """The chunk-mean simulator has the law of SampleTuples with a correct labeler (two-sample KS, alpha 1e-3)."""
    P = gmm.random_separated_mixture(2, 2, separation=50, weights=(0.3, 0.7), random_state=2)
    X, _ = gmm.sample_mixture(P, 400 * 100, 0)
    T = gmm.sample_tuples(X, 400, 100, 2, random_state=0)
    S = gmm.simulate_chunk_means(P, 400, 100, 1)
    e_real = np.linalg.norm(T[:, :, None] - P.means[None, None], axis=3).min(axis=2).ravel()
    e_sim = np.linalg.norm(S[:, :, None] - P.means[None, None], axis=3).min(axis=2).ravel()
    assert stats.ks_2samp(e_real, e_sim).pvalue > 1e-3
    assert stats.ks_2samp(e_real, 2 * e_sim).pvalue < 1e-6  # negative control


def test_kmeanspp_labeler_recovers_partitions():
    P = gmm.paper_mixture(3, 3, R=30.0)
    X, y = gmm.sample_mixture(P, 50 * 200, 4)
    lab, T = gmm.kmeanspp_label_chunks(X.reshape(50, 200, 3), 3, random_state=0)
    yc = y.reshape(50, 200)
    for j in range(50):  # labels agree with the truth up to a permutation
        conf = np.zeros((3, 3), int)
        np.add.at(conf, (yc[j], lab[j]), 1)
        assert (conf > 0).sum() == 3


def test_wrap_replaces_far_tuples():
    T = np.zeros((3, 2, 2))
    T[1, 0] = [100.0, 0.0]
    W, n_out = gmm._wrap_tuples(T, 10.0)
    assert n_out == 1
    np.testing.assert_array_equal(W[1], gmm._fallback_tuple(2, 2, 10.0))
    np.testing.assert_array_equal(W[0], T[0])


def test_tv_helpers():
    P = gmm.paper_mixture(2, 2, R=3.0)
    assert gmm.mixture_tv_upper_bound(P, P) == pytest.approx(0.0, abs=1e-12)
    assert gmm.mixture_tv_mc(P, P, random_state=0) == pytest.approx(0.0, abs=1e-12)
    # one 1-D Gaussian shifted by 1: exact TV = 2 Phi(1/2) - 1 = 0.3829
    p = gmm.MixtureParams(np.zeros((1, 1)), np.ones((1, 1, 1)), np.ones(1))
    q = gmm.MixtureParams(np.ones((1, 1)), np.ones((1, 1, 1)), np.ones(1))
    exact = 2 * stats.norm.cdf(0.5) - 1
    assert gmm.mixture_tv_mc(p, q, 200_000, random_state=0) == pytest.approx(exact, abs=0.005)
    assert gmm.mixture_tv_upper_bound(p, q) >= exact


def test_separates_criterion():
    P = gmm.paper_mixture(3, 3, R=20.0)
    assert gmm.separates(P, P.means, random_state=0)
    assert not gmm.separates(P, P.means[[0, 0, 1]], random_state=0)
    assert not gmm.separates(P, None)


def test_generators_and_separation():
    P = gmm.paper_mixture(3, 5, R=4.0)
    assert gmm.mixture_separation(P) == pytest.approx(4.0 * math.sqrt(2), rel=1e-12)
    Q = gmm.random_separated_mixture(4, 3, separation=12.0, weights=(1, 2, 3, 4), random_state=0)
    assert gmm.mixture_separation(Q) == pytest.approx(12.0, rel=1e-9)
    np.testing.assert_allclose(Q.weights, [0.1, 0.2, 0.3, 0.4])
    X, y = gmm.sample_mixture(Q, 40_000, 1)
    np.testing.assert_allclose(np.bincount(y) / 40_000, Q.weights, atol=0.01)
    np.testing.assert_allclose(X[y == 3].mean(axis=0), Q.means[3], atol=0.05)
    with pytest.raises(ValueError):
        gmm.paper_mixture(3, 2)


def test_compare_methods_runs_all_three():
    P = gmm.paper_mixture(2, 2, R=10.0)
    m = 10**9 // 1133
    out = gmm.compare_methods(P, 1133 * m + 100_000, epsilon=1.0, delta=DELTA, radius=50, sigma_max=1.5,
                              simulate_x1=True, n_tuples=1133, chunk_size=m, random_state=0)
    assert set(out) == {"em", "naive", "private"}
    assert np.isnan(out["em"]["mean"]) and np.isnan(out["naive"]["mean"])  # n too large to materialise
    assert out["private"]["mean"] < 0.1
    small = gmm.compare_methods(P, 20_000, epsilon=1.0, delta=DELTA, radius=20, methods=("em", "naive"),
                                random_state=0)
    assert small["em"]["mean"] < 0.05 and small["naive"]["mean"] > 5


def test_fitted_estimator_keeps_only_private_outputs():
    """No non-private intermediate (tuples, selected tuple, cluster sizes, exact sums) is stored (spec pitfall 2)."""
    _, _, _, est = fit_worked(0)
    params = set(gmm.PrivateGaussianMixture(2, 1.0, 1e-6, radius=1.0).__dict__)
    fitted = set(vars(est)) - params
    assert fitted == {"n_features_in_", "n_tuples_", "chunk_size_", "cov_clip_radius_", "centers_", "success_",
                      "clip_radius_", "means_", "covariances_", "weights_", "ledger_"}


# ------------------------------------------------------------------ one record moves one tuple (review fix)
@pytest.mark.parametrize("seed", [0, 1, 5])
def test_labeler_chunks_are_independent(seed):
    """Replacing one record of chunk 0 must leave every other chunk's tuple bit-identical (Thm 6.1 needs "one
    record changes at most one tuple"). The labeler used to stop Lloyd when *all* chunks had converged, so the
    number of iterations, hence the other chunks' tuples, depended on chunk 0's data; on these chunks (far from
    the origin, where np.allclose's relative tolerance declares convergence while assignments still move) the
    old code changed 6, 18 and 17 other tuples."""
    rng = np.random.default_rng(seed)
    t, m, d = 30, 200, 2
    C = 1e5 + rng.uniform(0, 10, size=(t, m, d))
    C[0] = rng.uniform(0, 1, size=(m, d))
    C2 = C.copy()
    C2[0, 0] = [0.9, 0.1]
    a = gmm.kmeanspp_label_chunks(C, 3, seed, n_init=1, max_iter=300)[1]
    b = gmm.kmeanspp_label_chunks(C2, 3, seed, n_init=1, max_iter=300)[1]
    np.testing.assert_array_equal(a[1:], b[1:])
    assert not np.array_equal(a[0], b[0])  # the replaced record does move its own tuple


class _SpyRNG(np.random.Generator):
    """Records the scale of every Laplace / Gaussian draw."""

    def __init__(self, seed):
        super().__init__(np.random.PCG64(seed))
        self.scales = []

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.scales.append(("laplace", scale))
        return super().laplace(loc, scale, size)

    def normal(self, loc=0.0, scale=1.0, size=None):
        self.scales.append(("normal", scale))
        return super().normal(loc, scale, size)


def test_x2_learner_noise_scales_exact():
    """The X2 releases use exactly the scales their replace-one sensitivities and budget shares give (review)."""
    rng = np.random.default_rng(9)
    P = gmm.paper_mixture(3, 3, R=8.0)
    X2, _ = gmm.sample_mixture(P, 500, rng)
    spy = _SpyRNG(0)
    ew, em, dm, ec, dc, rho2 = 0.3, 0.9, 4e-7, 1.1, 6e-7, 2.5
    from dpclust_core import PrivacyLedger
    led = PrivacyLedger()
    gmm.private_cluster_gaussians(X2, P.means, ew, em, dm, ec, dc, 3.0, rho2, mean_steps=3, rng=spy, ledger=led)
    expect = [("laplace", 2.0 / ew)] + [("normal", gaussian_sigma(2.0, em / 3, dm / 3))] * 3 + \
        [("normal", gaussian_sigma(math.sqrt(2) * rho2**2, ec, dc))]
    assert [s[0] for s in spy.scales] == [e[0] for e in expect]
    np.testing.assert_allclose([s[1] for s in spy.scales], [e[1] for e in expect], rtol=1e-12)
    assert led.total() == (pytest.approx(ew + em + ec, rel=1e-12), pytest.approx(dm + dc, rel=1e-12))


@pytest.mark.parametrize("kw", [dict(k_tuple_params={"gamma": 3.0}),
                                dict(k_tuple="averages", k_tuple_params={"gamma": 5.0}),
                                dict(k_tuple="averages", k_tuple_params={"center": [0.0, 0.0, 0.0]})])
def test_g_parameters_checked_before_the_tuples_are_built(kw, monkeypatch):
    """G's own preconditions are checked before SampleTuples runs on the data (review: they were checked inside
    G, after the labeler had processed X1 — and for PrivatekAverages' centre only on Success)."""
    def no(*a, **k):
        raise AssertionError("SampleTuples ran before G's parameters were checked")
    monkeypatch.setattr(gmm, "sample_tuples", no)
    X = np.zeros((2_000_000, 2))
    est = gmm.PrivateGaussianMixture(2, 4.0, 1e-6, radius=10.0, chunk_size=100, **kw)
    with pytest.raises(ValueError, match="gamma|center"):
        est.fit(X)
