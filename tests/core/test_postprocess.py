"""Tests of dpclust_core.postprocess (Lee & Kifer's MCMC postprocessing; spec mcmc-postprocessing.md)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from scipy import optimize, stats

from dpclust_book.datasets import make_s1_like
from dpclust_core import _kernels
from dpclust_core.kmeans.lloyd import DPLloyd
from dpclust_core.mechanisms import laplace_grid
from dpclust_core.metrics import wcss
from dpclust_core.postprocess import MCMCPostprocessor, Transcript, _kmeans_best, consistent_l1

# the transcript's likelihood and the L1 bound serve the book's chapter; they check the sampler's target here
from dpclust_book.experiments.mcmc import (l1_consistency_lower_bound, l1_consistency_objective,
                                           partition_statistics, pooled_proposal_kmeans, transcript_log_likelihood,
                                           transcript_loss)

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="module")
def s1_small():
    X, _ = make_s1_like(1500, random_state=3)
    return X / 2.0                              # inside the unit L1 ball (spec §10.2: "scale" mode)


@pytest.fixture(scope="module")
def lk_run(s1_small):
    est = DPLloyd(15, 0.5, bounds=(-1, 1), variant="lee_kifer", random_state=11).fit(s1_small)
    return est, Transcript.from_dplloyd(est)


def _synthetic_transcript(T=4, K=3, d=2, seed=0, scale=(2.0, 3.0)):
    rng = np.random.default_rng(seed)
    C = rng.uniform(-0.8, 0.8, size=(T + 1, K, d))
    n = rng.uniform(-5, 40, size=(T, K))
    s = rng.normal(0, 5, size=(T, K, d))
    return Transcript(C, s, n, scale[0], scale[1], domain="box", radius=1.0)


# --------------------------------------------------------------------------------------- transcript
def test_transcript_from_dplloyd_lee_kifer(lk_run, s1_small):
    est, tr = lk_run
    T = est.n_iter_
    assert (tr.n_rounds, tr.n_clusters, tr.n_features) == (T, 15, 2)
    assert tr.domain == "l1" and tr.radius == 1.0
    np.testing.assert_array_equal(tr.centroids[0], est.init_centroids_)
    np.testing.assert_array_equal(tr.centroids[-1], est.scaled_centers_)
    for t, h in enumerate(est.history_):
        np.testing.assert_array_equal(tr.centroids[t], h["centroids"])
        np.testing.assert_array_equal(tr.s_tilde[t], h["noisy_sums"])
        np.testing.assert_array_equal(tr.n_tilde[t], h["noisy_counts"])
    # the paper's setting: Lap(2T/eps) on every count and every coordinate sum
    np.testing.assert_allclose(tr.count_scale, 2 * T / 0.5, rtol=1e-12)
    np.testing.assert_allclose(tr.sum_scale, 2 * T / 0.5, rtol=1e-12)
    assert tr.epsilon == pytest.approx(0.5, rel=1e-12)
    np.testing.assert_allclose(tr.to_original(tr.final_centroids), est.cluster_centers_, atol=1e-12)


def test_transcript_from_improved_dplloyd():
    X, _ = make_s1_like(1000, random_state=1)
    X = X * 50 + 100                                                  # original units
    b = (np.array([50.0, 50.0]), np.array([150.0, 150.0]))
    est = DPLloyd(15, 1.0, bounds=b, variant="improved", random_state=2).fit(X)
    tr = Transcript.from_dplloyd(est)
    assert tr.domain == "box" and tr.n_rounds == est.n_iter_
    h = est.history_[0]
    assert tr.count_scale[0] == h["count_scale"] and tr.sum_scale[0] == h["sum_scale"]
    assert tr.count_scale[0] != tr.sum_scale[0]                       # the improved split differs
    np.testing.assert_allclose(tr.to_original(tr.final_centroids), est.cluster_centers_, atol=1e-9)
    pp = MCMCPostprocessor(2000, n_points=1000, random_state=0).fit(tr)
    assert pp.cluster_centers_.shape == (15, 2)
    np.testing.assert_allclose(pp.cluster_centers_, tr.to_original(pp.cluster_centers_domain_), atol=1e-9)
    assert 50 < np.median(pp.cluster_centers_) < 150                  # back in original units (around 100)
    # a proposal centre s/n with a small noisy count can lie far outside the box; projected onto the box,
    # every sampled point and so every final centre lies inside it (up to the proposal's spread)
    pj = MCMCPostprocessor(2000, n_points=1000, project_centroids=True, random_state=0).fit(tr)
    assert np.all(pj.cluster_centers_ > 45) and np.all(pj.cluster_centers_ < 155)


@pytest.mark.parametrize("bad", ["shape_s", "shape_n", "shape_c", "neg_scale", "zero_scale", "nan",
                                 "inf_scale", "T0", "domain"])
def test_bad_transcripts_raise(bad):
    T, K, d = 3, 2, 2
    C = np.zeros((T + 1, K, d))
    s = np.zeros((T, K, d))
    n = np.ones((T, K))
    kw = dict(count_scale=1.0, sum_scale=1.0)
    if bad == "shape_s":
        s = np.zeros((T, K, d + 1))
    elif bad == "shape_n":
        n = np.ones((T + 1, K))
    elif bad == "shape_c":
        C = np.zeros((T, K, d))                                       # missing the final centroids
    elif bad == "neg_scale":
        kw["count_scale"] = np.array([1.0, -1.0, 1.0])
    elif bad == "zero_scale":
        kw["sum_scale"] = 0.0
    elif bad == "nan":
        n = n.copy()
        n[1, 0] = np.nan
    elif bad == "inf_scale":
        kw["sum_scale"] = np.inf
    elif bad == "T0":
        C, s, n = np.zeros((1, K, d)), np.zeros((0, K, d)), np.zeros((0, K))
    elif bad == "domain":
        kw["domain"] = "sphere"
    with pytest.raises(ValueError):
        Transcript(C, s, n, **kw)


def test_bad_history_and_raw_data_raise(lk_run, s1_small):
    est, tr = lk_run
    h = [dict(x) for x in est.history_]
    del h[1]["noisy_sums"]
    with pytest.raises(ValueError, match="noisy_sums"):
        Transcript.from_history(h)
    h = [dict(x) for x in est.history_]
    h[2]["noisy_counts"] = np.ones(14)
    with pytest.raises(ValueError):
        Transcript.from_history(h)
    with pytest.raises(ValueError):
        Transcript.from_history([])
    # the postprocessor never takes the private data
    with pytest.raises(ValueError, match="transcript"):
        MCMCPostprocessor(10).fit(s1_small)
    with pytest.raises(ValueError, match="transcript"):
        MCMCPostprocessor(10).fit(est)


@pytest.mark.parametrize("kw", [dict(n_steps=-1), dict(n_steps=1.5), dict(proposal_var=0.0),
                                dict(proposal_var=np.nan), dict(hastings="exact"), dict(obs="both"),
                                dict(domain="clip"), dict(temperature=0), dict(n_sweeps=-1)])
def test_bad_parameters_raise(lk_run, kw):
    with pytest.raises(ValueError):
        MCMCPostprocessor(**kw).fit(lk_run[1])


def test_transcript_is_read_only(lk_run):
    tr = lk_run[1]
    with pytest.raises(ValueError):
        tr.s_tilde[0, 0, 0] = 1.0


# --------------------------------------------------------------------------------------- likelihood
def test_log_likelihood_is_the_laplace_density_of_the_transcript(lk_run, s1_small):
    """Spec §2.1: round t is compared with the statistics of the data under the centroids of round t-1."""
    est, tr = lk_run
    ll = 0.0
    for h in est.history_:
        lab = np.argmin(((s1_small[:, None, :] - h["centroids"][None]) ** 2).sum(-1), axis=1)
        N = np.bincount(lab, minlength=15)
        S = np.stack([np.bincount(lab, weights=s1_small[:, j], minlength=15) for j in range(2)], axis=1)
        ll += stats.laplace.logpdf(h["noisy_counts"], loc=N, scale=h["count_scale"]).sum()
        ll += stats.laplace.logpdf(h["noisy_sums"], loc=S, scale=h["sum_scale"]).sum()
    assert transcript_log_likelihood(s1_small, tr) == pytest.approx(ll, rel=1e-12)
    # raw-observation loss = -(log-likelihood - its constant)
    const = sum(-15 * 2 * np.log(2 * h["sum_scale"]) - 15 * np.log(2 * h["count_scale"]) for h in est.history_)
    assert transcript_loss(s1_small, tr, obs="raw") == pytest.approx(const - ll, rel=1e-12)


def test_zero_noise_dp_kmeans_is_lloyd(s1_small):
    """With no noise, DP-KMEANS (Algorithm 1) is T plain Lloyd iterations from c^(0).

    At ε = 1e20 the discrete noise is exactly 0 and every release is the statistic rounded to its
    power-of-two grid: counts (integers) exactly, sums (L1 sensitivity 1 over d = 2 coordinates) to
    γ = 2^-12, so a centroid is within γ/2 / count of Lloyd's."""
    gamma = laplace_grid(1.0, 2)[0]
    assert gamma == 2.0**-12
    for seed in range(4):
        est = DPLloyd(15, 1e20, bounds=(-1, 1), variant="lee_kifer", random_state=seed).fit(s1_small)
        C = _kernels.lloyd(s1_small, est.init_centroids_, max_iter=est.n_iter_, tol=0.0)[0]
        np.testing.assert_allclose(est.scaled_centers_, C, atol=1e-5)
        tr = Transcript.from_dplloyd(est)
        # the true data reproduce the transcript's statistics up to the grid rounding
        S, N = partition_statistics(s1_small, tr)
        np.testing.assert_allclose(S, tr.s_tilde, atol=0.51 * gamma)
        np.testing.assert_array_equal(N, tr.n_tilde)


# --------------------------------------------------------------------------------------- consistency
def _lp_optimum(s, n, ws, wn):
    """Solve the consistency problem as a linear program (scipy HiGHS): the reference optimum."""
    T, K, d = s.shape
    best = 0.0
    for j in range(d + 1):                     # the problem separates: d sum coordinates + the counts
        a = (s[:, :, j] if j < d else n).ravel()
        w = np.repeat(ws if j < d else wn, K)
        m = a.size
        # variables: x (m), e (m) >= |x - a|, total c
        cost = np.concatenate([np.zeros(m), w, [0.0]])
        A, b = [], []
        for i in range(m):
            r = np.zeros(2 * m + 1); r[i] = 1; r[m + i] = -1; A.append(r); b.append(a[i])
            r = np.zeros(2 * m + 1); r[i] = -1; r[m + i] = -1; A.append(r); b.append(-a[i])
        Aeq, beq = [], []
        for t in range(T):
            r = np.zeros(2 * m + 1); r[t * K:(t + 1) * K] = 1; r[-1] = -1; Aeq.append(r); beq.append(0.0)
        lb = [0.0 if j == d else None] * m + [0] * m + [None]
        res = optimize.linprog(cost, A_ub=np.array(A), b_ub=b, A_eq=np.array(Aeq), b_eq=beq,
                               bounds=list(zip(lb, [None] * (2 * m + 1))), method="highs")
        assert res.status == 0
        best += res.fun
    return best


@pytest.mark.parametrize("T,weighted,seed", [(5, False, 0), (4, False, 1), (5, True, 2), (3, True, 3), (1, False, 4)])
def test_consistency_attains_the_l1_lower_bound(T, weighted, seed):
    rng = np.random.default_rng(seed)
    K, d = 4, 3
    s = rng.normal(0, 10, size=(T, K, d))
    n = rng.normal(8, 10, size=(T, K))                                 # many negative counts
    ws = rng.uniform(0.2, 2, T) if weighted else None
    wn = rng.uniform(0.2, 2, T) if weighted else None
    cs = consistent_l1(s, n, ws, wn)
    # constraints
    tot_s = cs.s_hat.sum(axis=1)
    np.testing.assert_allclose(tot_s, np.broadcast_to(cs.sum_total, tot_s.shape), atol=1e-9)
    np.testing.assert_allclose(cs.n_hat.sum(axis=1), cs.count_total, atol=1e-9)
    assert np.all(cs.n_hat >= 0)
    # objective = lower bound = LP optimum
    obj = l1_consistency_objective(cs.s_hat, cs.n_hat, s, n, ws, wn)
    lb = l1_consistency_lower_bound(s, n, ws, wn)
    assert obj == pytest.approx(lb, rel=1e-10, abs=1e-9)
    ones = np.ones(T)
    assert obj == pytest.approx(_lp_optimum(s, n, ws if weighted else ones, wn if weighted else ones),
                                rel=1e-7, abs=1e-7)


def test_consistency_is_identity_on_consistent_input():
    rng = np.random.default_rng(5)
    base = rng.uniform(0, 10, size=(5, 3))
    n = base / base.sum(axis=1, keepdims=True) * 20.0                 # every row sums to 20
    s = rng.normal(size=(5, 3, 2))
    s -= s.mean(axis=1, keepdims=True)                                 # every row sums to 0
    cs = consistent_l1(s, n)
    np.testing.assert_allclose(cs.s_hat, s, atol=1e-12)
    np.testing.assert_allclose(cs.n_hat, n, atol=1e-12)
    assert cs.count_total == pytest.approx(20.0)


# --------------------------------------------------------------------------------------- the sampler
def _chain_states(pp):
    """x after every step (M = 1): the last accepted proposal, else the initial point."""
    idx = np.where(pp.accepted_, np.arange(pp.accepted_.size), -1)
    idx = np.maximum.accumulate(idx)
    x0 = pp.initial_dataset_[0]
    return np.where(idx[:, None] >= 0, pp.proposals_[np.maximum(idx, 0)], x0)


@pytest.mark.parametrize("kw", [dict(), dict(hastings="marginal"), dict(obs="raw"), dict(consistency=False),
                                dict(domain="reject", project_centroids=True), dict(temperature=3.0)])
def test_incremental_log_target_equals_full_recomputation(kw):
    """Spec §4.4: ΔL from the two affected cells per round equals L(D') − L(D) recomputed from scratch."""
    tr = _synthetic_transcript(T=4, K=3, d=2, seed=7, scale=(6.0, 4.0))
    pp = MCMCPostprocessor(400, n_points=30, proposal_var=0.2, random_state=3, **kw).fit(tr)
    assert 0.05 < pp.acceptance_rate_ < 0.95
    X = pp.initial_dataset_.copy()
    obs = kw.get("obs", "consistent") if kw.get("consistency", True) else "raw"
    temp = kw.get("temperature", 1.0)
    full = [-transcript_loss(X, tr, obs=obs, temperature=temp)]
    for s in range(400):
        if pp.accepted_[s]:
            X[pp.proposal_index_[s]] = pp.proposals_[s]
        full.append(-transcript_loss(X, tr, obs=obs, temperature=temp))
    np.testing.assert_allclose(pp.log_target_trace_, full, rtol=0, atol=1e-9)
    np.testing.assert_allclose(pp.final_dataset_, X, atol=0)
    # best state by replay
    assert pp.best_log_target_ == pytest.approx(-transcript_loss(pp.best_dataset_, tr, obs=obs, temperature=temp),
                                                abs=1e-9)
    assert pp.best_log_target_ == pytest.approx(pp.log_target_trace_.max(), abs=0)


def test_incremental_on_a_real_transcript_with_same_cell_moves(lk_run):
    tr = lk_run[1]
    pp = MCMCPostprocessor(3000, random_state=1).fit(tr)
    assert pp.log_target_trace_[-1] == pytest.approx(-transcript_loss(pp.final_dataset_, tr), abs=1e-8)
    assert pp.best_log_target_ == pytest.approx(-transcript_loss(pp.best_dataset_, tr), abs=1e-8)
    assert pp.log_target_trace_.shape == (3001,)


def _toy_transcript():
    C = np.array([[[-0.5], [0.5]], [[-0.2], [0.6]], [[-0.3], [0.4]]])
    n = np.array([[0.5, 0.6], [0.4, 0.7]])                            # consistent already, m_N = 1.1 -> M = 1
    s = np.array([[[-0.2], [0.3]], [[-0.3], [0.4]]])                  # row sums 0.1 both rounds
    # proposal centres s/n = -0.4, 0.5 (round 1), -0.75, 0.57 (round 2): all inside the support
    return Transcript(C, s, n, count_scale=0.5, sum_scale=0.3, domain="box", radius=1.0)


def _toy_target_bins(tr, edges):
    """Quadrature-normalised π over [-1, 1] (midpoint rule on a fine grid), integrated per bin."""
    g = np.linspace(-1, 1, 400_001)
    mid = 0.5 * (g[1:] + g[:-1])
    L = np.array([transcript_loss(m.reshape(1, 1), tr) for m in mid[::4000]])  # coarse check below
    # exact vectorised L for one point: S_k = x if x in cell k, N_k = 1
    y, u = tr.s_tilde[:, :, 0], tr.n_tilde
    Lf = np.zeros_like(mid)
    for t in range(tr.n_rounds):
        c = tr.centroids[t, :, 0]
        cell = np.argmin((mid[:, None] - c[None]) ** 2, axis=1)
        for k in range(2):
            Sk = np.where(cell == k, mid, 0.0)
            Nk = (cell == k).astype(float)
            Lf += np.abs(y[t, k] - Sk) / tr.sum_scale[t] + np.abs(u[t, k] - Nk) / tr.count_scale[t]
    np.testing.assert_allclose(Lf[::4000], L, atol=1e-12)             # the vectorised L is transcript_loss
    w = np.exp(-(Lf - Lf.min()))
    p = np.array([w[(mid >= a) & (mid < b)].sum() for a, b in zip(edges[:-1], edges[1:])])
    return p / p.sum()


def _batch_means_chi2(x, p, edges, n_batches=200):
    """Goodness of fit of an MCMC sample to bin probabilities ``p``, robust to autocorrelation.

    A chi-square statistic whose covariance is estimated from batch means (Hotelling's T² on the
    ``n_batches`` batch means of the bin indicators, last bin dropped); under H0 with batches longer than
    the autocorrelation time, ``T²·(B − q)/((B − 1)·q) ~ F(q, B − q)``, q = bins − 1. Returns (T², p-value).
    """
    k = len(p)
    b = np.clip(np.searchsorted(edges, x, side="right") - 1, 0, k - 1)
    n = x.size // n_batches * n_batches
    Y = (b[:n, None] == np.arange(k - 1)[None, :]).astype(float)
    means = Y.reshape(n_batches, -1, k - 1).mean(axis=1)
    diff = means.mean(axis=0) - p[:k - 1]
    S = np.cov(means, rowvar=False)
    T2 = n_batches * diff @ np.linalg.solve(S, diff)
    q = k - 1
    return float(T2), float(stats.f.sf(T2 * (n_batches - q) / ((n_batches - 1) * q), q, n_batches - q))


@pytest.mark.parametrize("hastings", ["labelled", "marginal"])
def test_sampler_matches_quadrature_target_on_1d_toy(hastings):
    """d = 1, K = 2, T = 2, M = 1, support [-1, 1] (domain="reject"), wide proposal (δ = 0.5).

    The chain's histogram over 20 bins against the quadrature-normalised π: a chi-square test with a
    batch-means covariance (200 batches of 1,000 steps; an MCMC sample is autocorrelated, so the iid
    chi-square would over-reject). False-alarm rate 0.1% (reject if p < 0.001), fixed seed.
    """
    tr = _toy_transcript()
    pp = MCMCPostprocessor(200_000, proposal_var=0.5, hastings=hastings, domain="reject",
                           random_state=2024).fit(tr)
    assert pp.n_points_ == 1
    x = _chain_states(pp)[:, 0]
    assert np.all(np.abs(x) <= 1)                                      # the chain never left the support
    edges = np.linspace(-1, 1, 21)
    p = _toy_target_bins(tr, edges)
    T2, pval = _batch_means_chi2(x, p, edges)
    assert pval > 1e-3, (hastings, T2, pval, pp.acceptance_rate_)


def test_toy_chi_square_has_power_without_hastings_correction():
    """The same test rejects a chain that drops the Hastings ratio (hastings="none", wrong on purpose)."""
    tr = _toy_transcript()
    pp = MCMCPostprocessor(200_000, proposal_var=0.5, hastings="none", domain="reject", random_state=2024).fit(tr)
    x = _chain_states(pp)[:, 0]
    edges = np.linspace(-1, 1, 21)
    T2, pval = _batch_means_chi2(x, _toy_target_bins(tr, edges), edges)
    assert pval < 1e-6, (T2, pval)


def test_postprocessing_spends_no_budget(lk_run):
    est, tr = lk_run
    before = (est.ledger_.epsilon, len(est.ledger_), est.ledger_.summary())
    hist = [{k: np.copy(v) for k, v in h.items()} for h in est.history_]
    MCMCPostprocessor(2000, random_state=0).fit(tr)
    pooled_proposal_kmeans(tr, random_state=0)
    assert (est.ledger_.epsilon, len(est.ledger_), est.ledger_.summary()) == before
    assert est.ledger_.epsilon == pytest.approx(0.5, rel=1e-12)
    for h0, h1 in zip(hist, est.history_):
        for k in h0:
            np.testing.assert_array_equal(h0[k], h1[k])
    assert not hasattr(MCMCPostprocessor(10).fit(tr), "ledger_")


def test_postprocessor_is_a_scikit_learn_estimator(lk_run):
    from sklearn.base import clone
    from sklearn.exceptions import NotFittedError

    tr = lk_run[1]
    pp = MCMCPostprocessor(500, proposal_var=2e-3, random_state=1)
    assert clone(pp).get_params() == pp.get_params()
    assert repr(pp).startswith("MCMCPostprocessor(")
    with pytest.raises(NotFittedError):
        pp.predict(np.zeros((3, 2)))
    assert pp.fit(tr) is pp and pp.get_params()["proposal_var"] == 2e-3
    labels = pp.predict(lk_run[0].cluster_centers_)
    assert labels.shape == (15,)
    with pytest.raises(TypeError):
        MCMCPostprocessor(500, 1e-3)                        # keyword-only after n_steps
    zero = MCMCPostprocessor(0, random_state=0).fit(tr)     # 0 steps: consistency + final k-means only
    assert zero.n_steps_ == 0 and zero.log_target_trace_.shape == (1,) and zero.acceptance_rate_ == 0.0
    np.testing.assert_array_equal(zero.best_dataset_, zero.initial_dataset_)
    with pytest.raises(ValueError, match="n_steps"):
        MCMCPostprocessor(10**9).fit(tr)                    # capped: no hour-long loop by a typo
    with pytest.raises(ValueError, match="n_sweeps"):
        MCMCPostprocessor(n_sweeps=1e4, n_points=10**6).fit(tr)


def test_same_seed_same_result(lk_run):
    tr = lk_run[1]
    a = MCMCPostprocessor(3000, random_state=5).fit(tr)
    b = MCMCPostprocessor(3000, random_state=5).fit(tr)
    c = MCMCPostprocessor(3000, random_state=6).fit(tr)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    np.testing.assert_array_equal(a.log_target_trace_, b.log_target_trace_)
    assert a.acceptance_rate_ == b.acceptance_rate_
    assert not np.array_equal(a.log_target_trace_, c.log_target_trace_)


def test_sweeps_and_public_size(lk_run):
    tr = lk_run[1]
    pp = MCMCPostprocessor(n_sweeps=0.5, n_points=1500, random_state=0).fit(tr)
    assert pp.n_points_ == 1500 and pp.n_steps_ == 750
    assert pp.best_dataset_.shape == (1500, 2)
    assert 0 < pp.coverage_ <= 1


def test_final_kmeans_finds_separated_blobs():
    """The non-private k-means the postprocessor runs on its best synthetic dataset."""
    X, y, centers = make_s1_like(3000, random_state=9, return_centers=True)
    # one k-means++ + Lloyd run reaches the optimum on these 15 blobs about 23% of the time (measured over
    # 100 seeds): 30 restarts miss it with probability 0.77^30 < 0.1% (10 restarts: 7%)
    C, w = _kmeans_best(X, 15, 30, [], np.random.default_rng(0))
    assert w == pytest.approx(wcss(X, C))
    assert w <= wcss(X, centers) * 1.05
    # an extra start is one of the runs: from the true centres Lloyd stays put
    C2, w2 = _kmeans_best(X, 15, 0, [centers], np.random.default_rng(0))
    assert w2 <= wcss(X, centers) * 1.0001


def test_sampler_state_lives_in_arrays_not_python_lists(lk_run):
    """The MH state and the pre-drawn moves are numpy arrays (about 8·(d+1) + 4·T bytes a point for the state;
    the old sampler kept ~550 bytes a point in Python lists). Peak extra memory of a fit with M = 20,000 points
    and one sweep, measured with tracemalloc: below 400 bytes a point (measured ~310; the list-based sampler
    peaked at ~870)."""
    import tracemalloc

    tr = lk_run[1]
    M = 20_000
    tracemalloc.start()
    pp = MCMCPostprocessor(n_sweeps=1.0, n_points=M, n_init=1, random_state=0).fit(tr)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert peak / M < 400, peak / M
    for name in ("initial_dataset_", "final_dataset_", "best_dataset_", "accepted_", "proposal_index_",
                 "proposals_", "log_target_trace_"):
        assert isinstance(getattr(pp, name), np.ndarray), name
    assert pp.final_dataset_.shape == (M, 2) and pp.n_steps_ == M


# --------------------------------------------------------------------------------------- the paper's claim
def _compare(X, K, eps, runs, n_steps=30_000, seed0=0):
    dp, pp = [], []
    for s in range(runs):
        est = DPLloyd(K, eps, bounds=(-1, 1), variant="lee_kifer", random_state=seed0 + s).fit(X)
        tr = Transcript.from_dplloyd(est)
        post = MCMCPostprocessor(n_steps, random_state=10_000 + seed0 + s).fit(tr)
        Z = tr.to_domain(X)                                            # the projected data DPLloyd saw
        dp.append(wcss(Z, tr.final_centroids))
        pp.append(wcss(Z, post.cluster_centers_domain_))
    return np.array(dp), np.array(pp)


def test_s1_standin_eps005_postprocessing_beats_dp_kmeans_in_median():
    """The paper's claim (§4) on the S1 stand-in, in the paper's own pipeline: data in [-1, 1]^2 (public
    bounds), projected onto the unit L1 ball by DPLloyd(variant="lee_kifer"), T = 5, ε = 0.05, 30,000 MH
    steps with the paper's defaults; 10 paired runs; WCSS on the data the algorithm saw (the projected data).
    Measured: median 578.5 (postprocessed) vs 627.5 (DP k-means), 6 of 10 paired runs won — an 8% gain of
    the median, not the "huge improvement" of the paper (that needs ``project_centroids=True``)."""
    X, _ = make_s1_like(5000, random_state=0)
    dp, pp = _compare(X, 15, 0.05, runs=10)
    assert np.median(pp) < np.median(dp), (np.median(pp), np.median(dp))


def _load_real(name):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    if name.endswith(".arff"):
        rows = [ln.strip().split(",") for ln in path.read_text().splitlines()
                if ln.strip() and ln.strip()[0] not in "@%"]
        return np.array([[float(r[0]), float(r[1])] for r in rows])
    return np.loadtxt(path)


@pytest.mark.parametrize("name,K", [("s1.arff", 15), ("tiger-nm-wa.tsv", 2)])
def test_real_copies_eps005_comparison(name, K, capsys):
    """The same comparison on the real copies (skipped when absent). Public bounds (0, 1e6) per axis,
    ε = 0.05, T = 5, 10 paired runs, WCSS on the projected data.

    What we measured, and assert: with the paper's defaults the postprocessing does **not** give a huge
    improvement on either copy — real S1: the two medians within 15% of each other (573.5 vs 573.0);
    "TIGER" with the paper's K = 2: within 3% (7358 vs 7301). The huge improvement appears on S1 only
    with the proposal centres projected onto the domain (``project_centroids=True``, spec §3 extension):
    median below 60% of DP k-means's. Note: the shared ``tiger-nm-wa.tsv`` looks like 15 Gaussian
    clusters in the S-set layout (29,910 points), not road intersections.
    """
    X = _load_real(name)
    b = (np.zeros(2), np.full(2, 1e6))
    dp, pp, ppj = [], [], []
    for s in range(10):
        est = DPLloyd(K, 0.05, bounds=b, variant="lee_kifer", random_state=s).fit(X)
        tr = Transcript.from_dplloyd(est)
        Z = tr.to_domain(X)
        dp.append(wcss(Z, tr.final_centroids))
        pp.append(wcss(Z, MCMCPostprocessor(30_000, random_state=10_000 + s).fit(tr).cluster_centers_domain_))
        if K == 15:
            post = MCMCPostprocessor(30_000, project_centroids=True, random_state=10_000 + s).fit(tr)
            ppj.append(wcss(Z, post.cluster_centers_domain_))
    m_dp, m_pp = np.median(dp), np.median(pp)
    with capsys.disabled():
        extra = f", + postprocessing with projected centres {np.median(ppj):.1f}" if ppj else ""
        print(f"\n{name} (K={K}): eps=0.05 median WCSS DP k-means {m_dp:.1f}, + postprocessing {m_pp:.1f}{extra}")
    if K == 15:
        assert abs(m_pp - m_dp) < 0.15 * m_dp
        assert np.median(ppj) < 0.6 * m_dp
    else:
        assert abs(m_pp - m_dp) < 0.03 * m_dp
