"""Tests of dpclust_core.wavecluster and the WaveCluster metrics.

Statistical tests use fixed seeds; each states its false-alarm rate under a correct implementation.
"""
from pathlib import Path

import numpy as np
import pytest
import pywt
from scipy import stats
from sklearn.exceptions import NotFittedError
from sklearn.metrics import rand_score

from dpclust_book.datasets import (WAVECLUSTER_BOUNDS, WAVECLUSTER_PARAMS, WAVECLUSTER_REAL_BOUNDS,
                                   WAVECLUSTER_REAL_N, make_ds1_like, make_ds2_like, make_ds3_like)
from dpclust_book.experiments.wavecluster import fixed_split, privqt_bias
from dpclust_book.evaluation import (cluster_then_classify, dsg_c, grid_classifier, k_relative_error, ocm,
                                    rand_index, two_ce)
from dpclust_core.accounting import PrivacyLedger
from dpclust_core.wavecluster import (MAX_CELLS, PrivateWaveCluster, WaveCluster, adaptive_grid_synthetic,
                                      em_threshold, em_threshold_intervals, em_threshold_probabilities,
                                      haar_approx, label_components, quantize, significant_mask)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


def pwc(epsilon, method, grid_size=40, p=10, bounds=WAVECLUSTER_BOUNDS, **kw):
    """A PrivateWaveCluster with the DS2 defaults (keyword-only API)."""
    return PrivateWaveCluster(epsilon, method=method, grid_size=grid_size, p=p, bounds=bounds, **kw)


def blocksum(M):
    g = M.shape[0]
    return M.reshape(g // 2, 2, g // 2, 2).sum(axis=(1, 3))


# ----------------------------------------------------------------------------- Haar and the building blocks
def test_haar_equals_block_sums_over_two():
    rng = np.random.default_rng(0)
    M = rng.poisson(3, size=(40, 40)).astype(float)
    W = haar_approx(M)
    np.testing.assert_array_equal(W, blocksum(M) / 2.0)  # exact after snapping
    np.testing.assert_allclose(pywt.dwt2(M, "haar")[0], blocksum(M) / 2.0, rtol=0, atol=1e-12)
    Mc = rng.normal(size=(16, 16))  # continuous (noisy) counts: PyWavelets' value, not snapped
    np.testing.assert_allclose(haar_approx(Mc), blocksum(Mc) / 2.0, atol=1e-12)
    M3 = rng.poisson(2, size=(4, 6, 8)).astype(float)
    W3 = haar_approx(M3)
    np.testing.assert_allclose(W3, M3.reshape(2, 2, 3, 2, 4, 2).sum(axis=(1, 3, 5)) / 2 ** 1.5, atol=1e-12)
    # the paper's "minimum value 0.5 due to the sum of adjacent four grid counts being 1" (L276)
    one = np.zeros((4, 4))
    one[1, 2] = 1
    assert haar_approx(one).max() == 0.5
    with pytest.raises(ValueError, match="even"):
        haar_approx(np.ones((5, 4)))


def test_quantize_counts_and_clipping():
    X = np.array([[0.0, 0.0], [0.999, 0.999], [1.0, 1.0], [5.0, -3.0], [0.5, 0.26]])
    M = quantize(X, (0, 1), 4)
    assert M.sum() == 5
    assert M[0, 0] == 1 and M[3, 3] == 2 and M[3, 0] == 1 and M[2, 1] == 1  # outliers clipped to the border


def test_significant_mask_top_k_with_ties():
    # positive values: 4, 3, 3, 3, 1, 1, 0.5 (m = 7); p = 50 -> k = ceil(3.5) = 4, d = 3 -> 4 cells
    W = np.array([[4, 3, 3, 0], [3, 1, 1, 0.5], [0, 0, 0, 0], [0, 0, 0, 0]], dtype=float)
    mask, k, d = significant_mask(W, 50)
    assert (k, d, mask.sum()) == (4, 3.0, 4)
    # p = 60 -> k = ceil(2.8) = 3, d = 3: the tie at the k-th value brings all three 3s in (spec §1.5)
    mask, k, d = significant_mask(W, 60)
    assert (k, d, mask.sum()) == (3, 3.0, 4)
    # p = 10, m = 160 must give k = 144 (no floating-point ceil overshoot)
    W2 = np.arange(1, 161, dtype=float).reshape(16, 10)
    assert significant_mask(W2, 10)[1] == 144
    assert significant_mask(np.zeros((4, 4)), 10)[1] == 0


def test_connectivity_8_joins_diagonals_4_does_not():
    mask = np.eye(4, dtype=bool)
    lab8, c8 = label_components(mask, 8)
    lab4, c4 = label_components(mask, 4)
    assert (c8, c4) == (1, 4)
    assert lab8[0, 1] == -1 and lab8[0, 0] == 0


def test_wavecluster_two_blobs_and_noise():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(0.25, 0.03, (2000, 2)), rng.normal(0.75, 0.03, (2000, 2)),
                   rng.uniform(0, 1, (20, 2))])
    wc = WaveCluster(grid_size=20, p=50, bounds=(0, 1)).fit(X)
    assert wc.n_clusters_ == 2
    assert wc.significant_.shape == (10, 10)
    assert set(np.unique(wc.labels_)) == {-1, 0, 1}
    assert (wc.labels_[:2000] == wc.labels_[0]).mean() > 0.99
    assert wc.labels_[0] != wc.labels_[2000]
    np.testing.assert_array_equal(wc.predict(X), wc.labels_)


# ----------------------------------------------------------------------------- privacy: ledger and sensitivity
SPLITS = {"baseline": (0.5, 0.5), "qt": (1.0,), "thr": (0.9, 0.1), "thr_em": (0.7, 0.3)}


# with N private (the default) the Baseline and PrivTHR_EM first spend n_share = 5 % on a noisy count of N
SPLITS_PRIVATE_N = {"baseline": (0.05, 0.475, 0.475), "qt": (1.0,), "thr": (0.9, 0.1),
                    "thr_em": (0.05, 0.95 * 0.7, 0.95 * 0.3)}


@pytest.mark.parametrize("method", ["baseline", "qt", "thr", "thr_em"])
@pytest.mark.parametrize("eps,g,p", [(0.1, 20, 10), (1.0, 40, 50), (2.5, 64, 58)])
def test_ledger_spends_exactly_epsilon_as_the_paper_splits(method, eps, g, p):
    X, _ = make_ds2_like(3000, random_state=0)
    for kw, splits in ((dict(n_public=3000), SPLITS), ({}, SPLITS_PRIVATE_N)):
        est = pwc(eps, method, g, p, random_state=1, **kw).fit(X)
        assert est.ledger_.epsilon == pytest.approx(eps, rel=1e-12)
        assert est.ledger_.delta == 0
        parts = [e.epsilon for e in est.ledger_.entries]
        np.testing.assert_allclose(parts, [s * eps for s in splits[method]], rtol=1e-12)
        assert all(e.sensitivity == 1.0 for e in est.ledger_.entries)
        est.ledger_.check(eps)
        assert est.noisy_counts_.shape == (g, g) and est.significant_.shape == (g // 2, g // 2)
        # no per-record attribute: the release is the grid; predict labels any point from it
        assert not hasattr(est, "labels_")
        assert est.predict(X).shape == (3000,)
        assert est.epsilon == eps and est.grid_size == g and est.p == p  # fit rebinds no parameter


@pytest.mark.parametrize("method", ["qt", "thr", "thr_em"])
def test_ledger_exact_in_three_dimensions(method):
    X = np.random.default_rng(4).uniform(size=(2000, 3))
    est = pwc(0.7, method, 8, 30, (0, 1), random_state=0, upper=100.0).fit(X)
    assert est.ledger_.epsilon == pytest.approx(0.7, rel=1e-12)
    assert all(e.sensitivity == 1.0 for e in est.ledger_.entries)
    assert est.significant_.shape == (4, 4, 4) and est.predict(X).shape == (2000,)
    assert "N (noisy count)" not in [e.name for e in est.ledger_.entries]  # no N needed with a public upper


def test_adaptive_grid_bad_input():
    X = np.random.default_rng(0).uniform(size=(50, 2))
    for kw, match in [(dict(c=0), "^c must"), (dict(c2=-1.0), "^c2 must"), (dict(alpha=1.0), "alpha"),
                      (dict(n_public=0), "n_public")]:
        with pytest.raises(ValueError, match=match):
            adaptive_grid_synthetic(X, (0, 1), 1.0, 0, **kw)
    with pytest.raises(ValueError, match="X"):  # the AG baseline is 2-D only
        adaptive_grid_synthetic(np.ones((5, 3)), (0, 1), 1.0, 0)


def test_neighbouring_datasets_change_one_cell_and_z_by_at_most_one():
    rng = np.random.default_rng(2)
    X, _ = make_ds3_like(2000, random_state=3)
    M = quantize(X, (0, 1), 36)
    W = haar_approx(M)
    for x in rng.uniform(-0.1, 1.1, size=(200, 2)):  # add one record (possibly out of bounds: clipped)
        M2 = quantize(np.vstack([X, x]), (0, 1), 36)
        dM = M2 - M
        assert np.abs(dM).sum() == 1  # L1 sensitivity of the count matrix is 1
        W2 = haar_approx(M2)
        dW = W2 - W
        assert (dW != 0).sum() == 1 and np.abs(dW).max() == 0.5
        assert abs(int((W2 <= 0).sum()) - int((W <= 0).sum())) <= 1  # |Z| sensitivity 1
        # EM quality -|rank(x) - k| changes by at most 1 at every threshold x (spec §2.5)
        xs = np.linspace(0.01, W2.max() + 1, 400)
        q1 = -np.abs((W.ravel()[None, :] >= xs[:, None]).sum(1) - significant_mask(W, 23)[1])
        q2 = -np.abs((W2.ravel()[None, :] >= xs[:, None]).sum(1) - significant_mask(W2, 23)[1])
        assert np.abs(q1 - q2).max() <= 1


def test_privqt_bias_formula_against_simulation():
    # a grid whose positive W cells are all far above the noise (theta ~ 0): E[k' - k] = (1-p)|Z|/2
    g, p, eps = 20, 10.0, 2.0
    rng = np.random.default_rng(5)
    cells = rng.choice(g * g, size=120, replace=False)
    X = ((np.column_stack([cells // g, cells % g]) + 0.5) / g).repeat(60, axis=0)
    wc = WaveCluster(grid_size=g, p=p, bounds=(0, 1)).fit(X)
    diffs = np.array([pwc(eps, "qt", g, p, (0, 1), random_state=s).fit(X).k_prime_ - wc.k_ for s in range(400)])
    predicted = privqt_bias(wc.n_zero_, p)
    # |Z|' ~ Binomial(|Z|, 1/2) sign noise; the mean of 400 runs is within 4 standard errors of the formula
    # (false-alarm rate < 1e-4 under the normal approximation)
    assert abs(diffs.mean() - predicted) < 4 * diffs.std(ddof=1) / np.sqrt(diffs.size)
    # and raising epsilon does not remove it (the bias comes from the signs, not the size, of the noise) ...
    big = np.mean([pwc(100.0, "qt", g, p, (0, 1), random_state=s).fit(X).k_prime_ - wc.k_ for s in range(100)])
    assert big > 0.8 * predicted
    # ... until the noise falls below the floating-point-safe mechanism's grid step (2^-11 for a count): then
    # most noise draws are exactly 0, empty cells stay empty and the bias goes away (a computer, not the paper)
    huge = np.mean([pwc(1e6, "qt", g, p, (0, 1), random_state=s).fit(X).k_prime_ - wc.k_ for s in range(20)])
    assert abs(huge) < 0.1 * predicted


def test_privthr_removes_the_bias_and_thr_em_converges():
    X, _ = make_ds2_like(random_state=0)
    g, p = WAVECLUSTER_PARAMS["ds2"]
    wc = WaveCluster(grid_size=g, p=p, bounds=WAVECLUSTER_BOUNDS).fit(X)
    ks = [pwc(1.0, "thr", g, p, random_state=s).fit(X).k_prime_ for s in range(10)]
    assert abs(np.mean(ks) - wc.k_) / wc.k_ < 0.05
    em = pwc(1e4, "thr_em", g, p, random_state=0, n_public=31_200).fit(X)
    assert em.upper_ == 31_200 / 2  # public N -> the largest W value a dataset of that size can have
    # ranks inside a block of ties have empty intervals: the EM converges to the non-empty rank nearest to k
    lo, hi, ranks, k = em_threshold_intervals(wc.W_, p, em.upper_)
    nonempty = ranks[hi > lo]
    assert em.k_prime_ == nonempty[np.argmin(np.abs(nonempty - k))]
    assert abs(em.k_prime_ - wc.k_) <= 3 and em.n_significant_ == em.k_prime_


# ----------------------------------------------------------------------------- the exponential mechanism
def test_em_threshold_matches_its_exact_probabilities():
    W = np.array([[5, 4, 4, 2.5], [2, 1, 0.5, 0.5], [0, 0, 3, 0], [7, 0, 0, 1]], dtype=float)
    eps, p, upper = 0.8, 40.0, 10.0
    probs = em_threshold_probabilities(W, p, eps, upper)
    lo, hi, ranks, k = em_threshold_intervals(W, p, upper)
    assert k == 7 and probs.size == 12  # m = 11 positive values, k = ceil(0.6 * 11)
    assert np.all(probs[hi == lo] == 0)  # empty (tied) intervals are never chosen
    length = hi - lo
    expected = length * np.exp(-eps * np.abs(ranks - k) / 2)
    np.testing.assert_allclose(probs, expected / expected.sum(), rtol=1e-12)
    n = 200_000
    d, i = em_threshold(W, p, eps, upper, np.random.default_rng(7), size=n)
    counts = np.bincount(i, minlength=probs.size)
    keep = probs > 0
    chi2, pval = stats.chisquare(counts[keep], n * probs[keep])
    assert pval > 1e-3  # false-alarm rate 0.1 %
    assert np.all((d > lo[i]) & (d <= hi[i]))
    # the threshold selects exactly rank i cells of the true W
    sel = (W.ravel()[None, :] >= d[:2000, None]).sum(1)
    np.testing.assert_array_equal(sel, i[:2000])


# ----------------------------------------------------------------------------- metrics
def test_dsg_c_hand_made():
    a = np.full(10, -1)
    b = np.full(10, -1)
    a[[1, 3, 5]] = 0
    b[[1, 5, 7, 9]] = 4  # the paper's example: {g1,g3,g5} vs {g1,g5,g7,g9}: d = 2
    assert dsg_c(a, b) == pytest.approx(2 / 3)
    assert dsg_c(a, a) == 0.0
    assert dsg_c(a, np.full(10, -1)) == 1.0
    # one true cluster split into two private ones: the best matching keeps one, the other costs its size
    t = np.array([0, 0, 0, 0, -1, 1, 1])
    q = np.array([0, 0, 2, 2, -1, 1, 1])
    assert dsg_c(t, q) == pytest.approx((2 + 2 + 0) / 6)
    # padded matching must cost unmatched clusters inside the optimisation
    t2 = np.array([0, 0, 0, 1])
    q2 = np.array([0, 0, 1, 1])
    assert dsg_c(t2, q2) == pytest.approx(min(1 + 1, 3 + 2) / 4)
    with pytest.raises(ValueError):
        dsg_c(a, b[:5])


def test_ocm_two_ce_hand_made():
    t = np.array([0, 0, 0, 1, 1, 2])
    perm = np.array([5, 5, 5, 3, 3, 9])
    assert ocm(t, perm) == 0.0 and two_ce(t, perm) == 0.0
    q = np.array([0, 0, 1, 1, 1, 1])
    assert ocm(t, q) == pytest.approx(1 - 4 / 6)  # best matching 0->0 (2 points), 1->1 (2 points)
    assert two_ce(t, q) == pytest.approx(1 - rand_score(t, q))
    rng = np.random.default_rng(0)
    x, y = rng.integers(0, 6, 500), rng.integers(0, 4, 500)
    assert rand_index(x, y) == pytest.approx(rand_score(x, y), rel=1e-12)
    assert k_relative_error(141.0, 144) == pytest.approx(3 / 144)


def test_cluster_then_classify_protocol():
    X, _ = make_ds3_like(8000, random_state=0)
    tr, te = fixed_split(X.shape[0])
    assert te.size == 800 and np.intersect1d(tr, te).size == 0
    wc = WaveCluster(grid_size=36, p=23, bounds=WAVECLUSTER_BOUNDS).fit(X[tr])
    pt, pp = cluster_then_classify(wc.grid_labels_, wc.grid_labels_, WAVECLUSTER_BOUNDS, X[te])
    assert ocm(pt, pp) == 0.0 and two_ce(pt, pp) == 0.0
    empty = np.full_like(wc.grid_labels_, -1)
    pt, pp = cluster_then_classify(wc.grid_labels_, empty, WAVECLUSTER_BOUNDS, X[te])
    assert np.all(pp == -1) and ocm(pt, pp) > 0.3


# ----------------------------------------------------------------------------- data and real data
@pytest.mark.parametrize("name,maker,n_clusters", [("ds1", make_ds1_like, 15), ("ds2", make_ds2_like, 3),
                                                   ("ds3", make_ds3_like, 5)])
def test_lookalikes(name, maker, n_clusters):
    X, y = maker(random_state=0)
    X2, _ = maker(random_state=0)
    np.testing.assert_array_equal(X, X2)
    assert X.min() >= 0 and X.max() <= 1
    g, p = WAVECLUSTER_PARAMS[name]
    assert WaveCluster(grid_size=g, p=p, bounds=WAVECLUSTER_BOUNDS).fit(X).n_clusters_ == n_clusters


PAPER_DS2_EPS1 = {"thr": 141.0, "thr_em": 142.8, "baseline": 284.0, "qt": 249.2}


@pytest.fixture(scope="module")
def real_ds2():
    f = DATA / "wavecluster-ds2-spiral-30k.csv"
    if not f.exists():
        pytest.skip("real DS2 not available in ../shared/data")
    X = np.loadtxt(f, delimiter=",")
    # PUBLIC bounds: the file's extent fixed once as constants (the paper's box), never a min/max of the data
    # handed to an estimator
    return X, WAVECLUSTER_REAL_BOUNDS["ds2"]


def test_real_ds2_nonprivate(real_ds2):
    X, bounds = real_ds2
    # the constants are the published file's box, the domain the paper's non-private WaveCluster used
    np.testing.assert_array_equal(bounds[0], X.min(axis=0))
    np.testing.assert_array_equal(bounds[1], X.max(axis=0))
    assert X.shape[0] == WAVECLUSTER_REAL_N["ds2"]
    wc = WaveCluster(grid_size=40, p=10, bounds=bounds).fit(X)
    assert (wc.k_, wc.n_zero_, wc.n_clusters_) == (144, 241, 3)  # paper §7.2: k = 144, |Z| = 241


@pytest.mark.parametrize("fname,name,n_clusters", [("wavecluster-ds1-15clusters-30k.csv", "ds1", 15),
                                                    ("wavecluster-ds3-aggregation-30k.csv", "ds3", 5)])
def test_real_ds1_ds3_nonprivate_cluster_counts(fname, name, n_clusters):
    f = DATA / fname
    if not f.exists():
        pytest.skip(f"{fname} not available in ../shared/data")
    X = np.loadtxt(f, delimiter=",")
    g, p = WAVECLUSTER_PARAMS[name]
    bounds = WAVECLUSTER_REAL_BOUNDS[name]
    np.testing.assert_array_equal(np.vstack(bounds), np.vstack([X.min(axis=0), X.max(axis=0)]))
    assert X.shape[0] == WAVECLUSTER_REAL_N[name]
    wc = WaveCluster(grid_size=g, p=p, bounds=bounds).fit(X)
    assert wc.n_clusters_ == n_clusters  # the paper's Fig. 4: 15 Gaussian clusters, 5 shapes


@pytest.mark.parametrize("method", ["thr", "thr_em", "baseline", "qt"])
def test_real_ds2_private_k_prime_within_10_percent(real_ds2, method):
    X, bounds = real_ds2
    ks = [pwc(1.0, method, bounds=bounds, random_state=s, n_public=WAVECLUSTER_REAL_N["ds2"]).fit(X).k_prime_
          for s in range(20)]
    assert abs(np.mean(ks) - PAPER_DS2_EPS1[method]) / PAPER_DS2_EPS1[method] < 0.10


# ----------------------------------------------------------------------------- reproducibility and bad input
def test_seeded_reproducibility():
    X, _ = make_ds2_like(5000, random_state=0)
    for m in ("baseline", "qt", "thr", "thr_em"):
        for kw in ({}, dict(upper=2500.0, n_public=5000)):  # N private (default) or published
            a = pwc(0.5, m, random_state=3, **kw).fit(X)
            b = pwc(0.5, m, random_state=3, **kw).fit(X)
            np.testing.assert_array_equal(a.grid_labels_, b.grid_labels_)
            np.testing.assert_array_equal(a.noisy_counts_, b.noisy_counts_)


@pytest.mark.parametrize("kwargs,match", [
    (dict(grid_size=41), "grid_size"), (dict(grid_size=0), "grid_size"), (dict(p=100), "p"), (dict(p=-1), "p"),
    (dict(bounds=(1, 0)), "bounds"), (dict(bounds=None), "bounds"), (dict(connectivity=6), "connectivity"),
])
def test_bad_input_wavecluster(kwargs, match):
    args = dict(grid_size=40, p=10, bounds=(0, 1))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        WaveCluster(**args).fit(np.random.default_rng(0).uniform(size=(100, 2)))


@pytest.mark.parametrize("kwargs,match", [
    (dict(method="dp"), "method"), (dict(epsilon=0), "epsilon"), (dict(epsilon=-1), "epsilon"),
    (dict(epsilon=np.inf), "epsilon"), (dict(grid_size=39), "grid_size"), (dict(p=150), "p"),
    (dict(method="thr", alpha=1.0), "alpha"), (dict(method="thr_em", upper=-1.0), "upper"),
    (dict(method="thr_em", upper="big"), "upper"), (dict(method="baseline", n_public=0), "n_public"),
    (dict(n_share=0.0), "n_share"), (dict(n_share=0.7), "n_share"), (dict(connectivity=4.0), "connectivity"),
    (dict(random_state="x"), "random_state"), (dict(random_state=True), "random_state"),
    (dict(ledger=[]), "ledger"),
])
def test_bad_input_private(kwargs, match):
    args = dict(method="qt", epsilon=1.0, grid_size=40, p=10, bounds=(0, 1))
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        PrivateWaveCluster(**args).fit(np.random.default_rng(0).uniform(size=(100, 2)))


def test_bad_data():
    X = np.random.default_rng(0).uniform(size=(100, 2))
    X[3, 1] = np.nan
    with pytest.raises(ValueError, match="X"):
        WaveCluster(grid_size=40, p=10, bounds=(0, 1)).fit(X)
    with pytest.raises(ValueError, match="X"):
        PrivateWaveCluster(1.0, method="thr", grid_size=40, p=10, bounds=(0, 1)).fit(np.ones(10))
    with pytest.raises(NotFittedError, match="not fitted"):
        WaveCluster(grid_size=40, p=10, bounds=(0, 1)).predict(X)
    with pytest.raises(NotFittedError):
        pwc(1.0, "thr").predict(X)
    est = pwc(1.0, "thr", random_state=0).fit(np.random.default_rng(0).uniform(size=(100, 2)))
    with pytest.raises(ValueError, match="X"):
        est.predict(np.zeros((3, 3)))


# ----------------------------------------------------------------------------- empirical audits of the EM threshold
def _tiny_neighbours():
    """D1: 8, 4 and 2 points in three 2x2 blocks of an 8x8 grid (W = 4, 2, 1); D2 adds one point to the first."""
    a, b, c = [0.05, 0.05], [0.55, 0.55], [0.05, 0.80]
    d1 = np.array([a] * 8 + [b] * 4 + [c] * 2)
    d2 = np.vstack([d1, [a]])
    return d1, d2


def _em_mechanism(upper):
    def mech(data, n, rng):
        W = haar_approx(quantize(data, (0, 1), 8))
        u = W.max() if upper is None else upper
        return em_threshold(W, 50, 1.0, u, rng, size=n)[0]
    return mech


def test_audit_em_threshold_with_public_upper_bound_finds_no_violation():
    from dpclust_core.audit import audit
    d1, d2 = _tiny_neighbours()
    res = audit(_em_mechanism(10.0), d1, d2, 1.0, n_samples=100_000, rng=11)
    assert not res.rejects(0.01)  # false-alarm rate at most 1 % (valid one-sided p-value)


def test_audit_detects_the_papers_data_dependent_em_domain():
    # the paper's domain (0, max W] moves with the data: thresholds in (4, 4.5] are impossible under D1
    from dpclust_core.audit import audit
    d1, d2 = _tiny_neighbours()
    res = audit(_em_mechanism(None), d1, d2, 1.0, n_samples=50_000, rng=12,
                events=[("d' > max W(D1) = 4", lambda out: out > 4.0)])
    assert res.rejects(0.01) and res.counts[1] == 0


def test_audit_detects_an_upper_bound_read_off_len_X():
    # why PrivTHR_EM refuses to default upper to len(X)/2: D1 has 14 points (U = 7), D2 = D1 + 1 point (U = 7.5),
    # so thresholds in (7, 7.5] are impossible under D1 and have probability ~0.04 under D2
    from dpclust_core.audit import audit
    d1, d2 = _tiny_neighbours()

    def mech(data, n, rng):
        W = haar_approx(quantize(data, (0, 1), 8))
        return em_threshold(W, 50, 1.0, data.shape[0] / 2.0, rng, size=n)[0]

    res = audit(mech, d1, d2, 1.0, n_samples=50_000, rng=13, events=[("d' > 7", lambda out: out > 7.0)])
    assert res.rejects(0.01) and min(res.counts) == 0 and max(res.counts) > 1500  # expected ~2170 under D2


# ----------------------------------------------------------------------------- the AG baseline (Qardaji et al.)
def test_adaptive_grid_keeps_every_count_when_noise_vanishes():
    # huge epsilon (noise scale 2e-4) with large c, c2 so the grids stay small (m1 = 10, m2 <= 2): constrained
    # inference and rounding must give back exactly N points with the true level-1 counts
    X, _ = make_ds2_like(3000, random_state=0)
    led = PrivacyLedger()
    syn = adaptive_grid_synthetic(X, (0, 1), 1e4, 0, n_public=3000, c=1e6, c2=1e6, ledger=led)
    assert syn.shape == (3000, 2) and syn.min() >= 0 and syn.max() <= 1
    np.testing.assert_array_equal(quantize(syn, (0, 1), 10), quantize(X, (0, 1), 10))
    assert [(e.epsilon, e.sensitivity) for e in led.entries] == [(5e3, 1.0), (5e3, 1.0)]  # alpha_AG = 0.5
    # at a real budget the negative noisy leaves are reset to 0, which inflates the total (paper §4.1)
    led2 = PrivacyLedger()
    syn2 = adaptive_grid_synthetic(X, (0, 1), 0.5, 1, n_public=3000, ledger=led2)
    assert led2.epsilon == pytest.approx(0.5, rel=1e-12) and syn2.shape[0] > 3000


def test_n_is_private_by_default_and_n_public_publishes_it():
    X, _ = make_ds2_like(3000, random_state=0)
    base = pwc(1.0, "baseline", random_state=0).fit(X)
    names = [e.name for e in base.ledger_.entries]
    assert names[0] == "N (noisy count)" and base.ledger_.entries[0].epsilon == pytest.approx(0.05)
    assert base.n_estimate_ != 3000 and abs(base.n_estimate_ - 3000) < 400  # Lap(20): |noise| < 400 w.p. 1 - 2e-9
    base2 = pwc(1.0, "baseline", random_state=0, n_public=500).fit(X)
    assert base2.n_estimate_ == 500 and base2.epsilon_n_ == 0.0
    assert "N (noisy count)" not in [e.name for e in base2.ledger_.entries]
    em = pwc(1.0, "thr_em", random_state=0, n_public=1000).fit(X)
    assert em.upper_ == 500.0  # from the public N, not from len(X) = 3000
    em2 = pwc(1.0, "thr_em", random_state=0, upper=77.0).fit(X)
    assert em2.upper_ == 77.0 and not hasattr(em2, "n_estimate_")
    em3 = pwc(1.0, "thr_em", random_state=0).fit(X)  # private N: the domain is (0, N'/2] with N' noisy
    assert em3.upper_ == em3.n_estimate_ / 2 and em3.upper_ != 1500.0
    for est in (base, em, em3, pwc(1.0, "qt", random_state=0).fit(X), pwc(1.0, "thr", random_state=0).fit(X)):
        # no exact statistic of X, nothing with one entry per record, nothing equal to N
        assert not any(hasattr(est, a) for a in ("counts_", "W_", "k_", "n_zero_", "labels_", "n_public_"))
        for name, value in vars(est).items():
            if name.endswith("_") and not name.startswith("_"):
                assert np.shape(value)[:1] != (3000,), name
                if np.isscalar(value) and not isinstance(value, (str, bool)):
                    assert value != 3000, name


def test_fit_predict_is_predict_after_fit():
    X, _ = make_ds2_like(3000, random_state=0)
    a = pwc(1.0, "thr", random_state=4)
    np.testing.assert_array_equal(a.fit_predict(X), pwc(1.0, "thr", random_state=4).fit(X).predict(X))
    wc = WaveCluster(grid_size=40, p=10, bounds=WAVECLUSTER_BOUNDS)
    np.testing.assert_array_equal(wc.fit_predict(X), wc.labels_)


# ----------------------------------------------------------------------------- caps (no 512 GiB allocations)
def test_grid_cells_are_capped_before_allocating():
    X = np.random.default_rng(0).uniform(size=(50, 3))
    g = 2 * int(round(MAX_CELLS ** (1 / 3) / 2)) + 2  # g^3 just above the cap
    with pytest.raises(ValueError, match="grid_size.*MAX_CELLS"):
        WaveCluster(grid_size=g, p=10, bounds=(0, 1)).fit(X)
    with pytest.raises(ValueError, match="grid_size.*MAX_CELLS"):
        pwc(1.0, "qt", grid_size=g, bounds=(0, 1)).fit(X)
    with pytest.raises(ValueError, match="grid_size"):
        quantize(X, (0, 1), 1 << 20)
    with pytest.raises(ValueError, match="grid_size"):  # a huge g is refused by the parameter table itself
        WaveCluster(grid_size=2 * MAX_CELLS, p=10, bounds=(0, 1)).fit(X)


def test_adaptive_grid_is_capped_for_huge_n_and_epsilon():
    X, _ = make_ds2_like(3000, random_state=0)
    led = PrivacyLedger()
    syn = adaptive_grid_synthetic(X, (0, 1), 1e6, 0, n_public=2**31 - 1, ledger=led)  # m1 would be ~ 3.6e6
    assert syn.shape[1] == 2 and led.epsilon == pytest.approx(1e6)
    est = pwc(1e6, "baseline", random_state=0, n_public=2**31 - 1).fit(X)
    assert est.synthetic_X_.shape[0] < 2 * 3000 + 10


def test_em_threshold_uses_the_package_interval_em():
    # the same draws as mechanisms.exponential_mechanism_intervals with an identically seeded Generator, over the
    # runs of the public grid of (0, upper]; the thresholds are grid points inside their intervals
    from dpclust_core.mechanisms import exponential_mechanism_intervals, interval_grid
    W = np.array([[5, 4, 4, 2.5], [2, 1, 0.5, 0.5], [0, 0, 3, 0], [7, 0, 0, 1]], dtype=float)
    lo, hi, ranks, k = em_threshold_intervals(W, 40.0, 10.0)
    step, _, j_max = interval_grid(0.0, 10.0)
    starts = np.rint(lo / step).astype(np.int64)
    counts = np.rint(hi / step).astype(np.int64) - starts
    i, off = exponential_mechanism_intervals(-np.abs(ranks - k).astype(float), counts, 1.0, 0.8,
                                             np.random.default_rng(3), size=50)
    d, i2 = em_threshold(W, 40.0, 0.8, 10.0, np.random.default_rng(3), size=50)
    np.testing.assert_array_equal(i, i2)
    np.testing.assert_array_equal(d, (starts[i] + 1 + off) * step)
    assert np.all((d > lo[i]) & (d <= hi[i])) and np.all(d / step == np.round(d / step))


def test_evaluation_protocol_is_the_books_and_metrics_is_ground_floor():
    import subprocess
    import sys
    # (the package itself imports every estimator, WaveCluster's too; the metrics module imports none of them)
    code = ("import sys, dpclust_core.metrics as m, dpclust_core.wavecluster as w; "
            "assert not any(hasattr(mod, f) for mod in (m, w) for f in ('grid_classifier', 'dsg_c'))")
    subprocess.run([sys.executable, "-c", code], check=True)
    src = (Path(__file__).resolve().parents[2] / "dpclust_core" / "metrics.py").read_text()
    assert "wavecluster" not in src.split('"""', 2)[2]  # no import of wavecluster (the docstring may name it)
    tree = grid_classifier(np.array([[0, -1], [-1, 1]]), (0, 1))
    assert tree.predict([[0.1, 0.1], [0.9, 0.9]]).tolist() == [0, 1]
    assert grid_classifier(np.full((2, 2), -1), (0, 1)) is None
