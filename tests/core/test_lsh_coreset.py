"""LSHCoresetKMeans (dpclust_core.kmeans.lsh_coreset): its releases composed in zCDP inside one (epsilon, delta).

Privacy: the ledger totals exactly (epsilon, delta), its releases carry their rho and the rho add up to exactly
``zcdp_budget(epsilon, delta)``; every entry carries the sensitivity of its release (1 for counts and quantiles, the
public radii for the leaf sums and the lift, the released clipping radii for the Lloyd steps); a seeded re-run is
identical; audits (Ding et al.) of the whole estimator and of one Lloyd step on neighbouring inputs find nothing,
and catch the same code with its noise scaled down. Utility on reduced versions of the benchmark data, over seeds.
"""
import math

import numpy as np
import pytest
from sklearn.cluster import KMeans

import dpclust_book.datasets as data
from dpclust_core import _kernels
from dpclust_core.accounting import PrivacyLedger, zcdp_budget
from dpclust_core.audit import audit
from dpclust_core.kmeans import lsh_coreset
from dpclust_core.kmeans.lsh_coreset import LSHCoresetKMeans
from dpclust_core.mechanisms import GRID_BITS


def _mixture(n=4000, d=30, k=4, seed=0):
    X, _ = data.make_lsh_mixture(n, d, k, random_state=seed)
    return X


def _rho(est):
    return math.fsum(e.rho for e in est.ledger_.entries)


# ------------------------------------------------------------------------------------------------ ledger
@pytest.mark.parametrize("d, kw", [(2, {}), (30, {}), (30, dict(n_public=4000, n_final_rounds=2)),
                                   (30, dict(projection_dim=30, n_seed_rounds=3)), (30, dict(radius="private")),
                                   (2, dict(radius=None, n_final_rounds=3))])
def test_ledger_total_equals_budget_and_rho_is_spent_exactly(d, kw):
    X = _mixture(d=d)
    kw = dict(dict(radius=1.0), **kw)
    est = LSHCoresetKMeans(4, 0.7, 1e-7, bounds=(-1, 1), random_state=0, **kw).fit(X)
    eps, dl = est.ledger_.total()
    assert eps == pytest.approx(0.7, rel=1e-12)
    assert dl == pytest.approx(1e-7, rel=1e-12)
    # every release has its rho, and together they spend the zCDP budget of (0.7, 1e-7), no more, no less
    assert all(e.rho is not None and e.rho > 0 and e.group == "LSHCoresetKMeans" for e in est.ledger_.entries)
    assert _rho(est) == pytest.approx(zcdp_budget(0.7, 1e-7), rel=1e-12)
    assert _rho(est) <= zcdp_budget(0.7, 1e-7) * (1 + 1e-12)
    names = [e.name for e in est.ledger_.entries]
    assert ("N (noisy count)" in names) == ("n_public" not in kw)
    assert any(n.startswith("tree level 1") for n in names)
    n_final = kw.get("n_final_rounds", 1 if est.projection_dim_ < d else 2)
    assert sum(n.endswith("residual sums") for n in names) == est.n_seed_rounds + n_final
    assert ("lift sums" in names) == (est.projection_dim_ < d)
    assert ("ball radius" in names) == (kw["radius"] == "private")
    # pure releases cost eps^2 / 2; the Gaussian ones record no (epsilon, delta) of their own
    for e in est.ledger_.entries:
        if e.name.endswith("sums"):
            assert e.epsilon == 0 and e.delta == 0
        else:
            assert e.rho == pytest.approx(e.epsilon**2 / 2, rel=1e-15)


def test_noisy_n_and_radius_shares():
    """n_share of rho buys the count of N (eps_N = sqrt(2 n_share rho)); the ball radius 3 % of the rest."""
    X = _mixture(n=8000, d=30)
    est = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=0).fit(X)
    rho = zcdp_budget(1.0, 1e-6)
    ent = {e.name: e for e in est.ledger_.entries}
    assert ent["N (noisy count)"].rho == pytest.approx(0.05 * rho, rel=1e-12)
    assert ent["ball radius"].rho == pytest.approx(0.03 * 0.95 * rho, rel=1e-12)
    assert ent["ball radius"].sensitivity == 1.0
    norms = np.linalg.norm(X, axis=1)
    assert np.quantile(norms, 0.85) <= est.radius_ <= norms.max() * 1.05
    assert est.ledger_.total() == pytest.approx((1.0, 1e-6), rel=1e-12)


def test_shared_ledger_refuses_before_reading():
    shared = PrivacyLedger(budget_epsilon=1.0, budget_delta=1e-6)
    X = _mixture()
    LSHCoresetKMeans(4, 0.6, bounds=(-1, 1), random_state=0, ledger=shared).fit(X)
    with pytest.raises(ValueError):
        LSHCoresetKMeans(4, 0.6, bounds=(-1, 1), random_state=0, ledger=shared).fit(np.full_like(X, np.nan))
    assert shared.epsilon == pytest.approx(0.6)
    assert shared.delta == pytest.approx(1e-6)
    assert _rho(LSHCoresetKMeans(4, 0.6, bounds=(-1, 1), random_state=0).fit(X)) == \
        pytest.approx(math.fsum(e.rho for e in shared.entries), rel=1e-12)


# ------------------------------------------------------------------------------------------------ noise scales
def test_sensitivities_recorded_match_the_releases():
    d, m = 30, 10
    X = _mixture(d=d)
    est = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), radius=1.0, random_state=3).fit(X)
    R = est.radius_
    R_m = min(R, 2.0 * R * np.sqrt(m / d))
    assert est.projection_dim_ == m
    sens = {e.name: e.sensitivity for e in est.ledger_.entries}
    for name, s in sens.items():
        if name.endswith("counts") or name.startswith("clip radius") or name.startswith("N "):
            assert s == 1.0, name
    assert sens["leaf sums"] == pytest.approx(R_m, rel=1e-15)
    assert sens["lift sums"] == pytest.approx(R, rel=1e-15)
    r_seed, r_final = est.clip_radii_
    assert sens["seeding step 1 residual sums"] == r_seed and sens["seeding step 2 residual sums"] == r_seed
    assert sens["final step 1 residual sums"] == r_final
    assert 0 < r_final < 2 * R and 0 < r_seed < 2 * R_m
    assert LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), radius=None, random_state=0).fit(X).radius_ == \
        pytest.approx(np.sqrt(d))


def test_seeded_rerun_is_identical_and_seeds_differ():
    X = _mixture()
    a = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=11).fit(X)
    b = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=11).fit(X)
    c = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=12).fit(X)
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    assert a.ledger_.rows() == b.ledger_.rows()
    assert not np.array_equal(a.cluster_centers_, c.cluster_centers_)


def test_lloyd_step_noise_scale_matches_rho():
    """The residual sums of one step carry discrete Gaussian noise of sd (r + slack) / sqrt(2 rho_sums), not
    more or less: the spread of the step's output over many draws matches it (400 draws: the sample sd is within
    15 % of the truth with probability > 0.999)."""
    rng = np.random.default_rng(0)
    Y = 0.01 * rng.normal(size=(400, 3))  # not privacy noise: test data
    C = np.zeros((1, 3))
    r, rho = 0.5, 0.02
    step = LSHCoresetKMeans._lloyd_step
    outs = np.array([step(Y, C, r, rho, np.random.default_rng(s), None, "t")[0][0, 0] for s in range(400)])
    gamma = 2.0 ** math.floor(math.log2(r / (2.0**GRID_BITS * (math.sqrt(3) + 1))))
    sigma = (r + (math.sqrt(3) + 1) * gamma) / math.sqrt(2 * 0.6 * rho)
    assert np.std(outs) == pytest.approx(sigma / 400, rel=0.15)


# ------------------------------------------------------------------------------------------------ audits
def _estimator_mechanism(scale=1.0):
    """n fits on a small input -> the first coordinate of the single centre. ``scale`` < 1 is the broken
    control: every Laplace and Gaussian release of the same code gets its sensitivity multiplied by it."""
    lap, gau = lsh_coreset.laplace_mechanism, lsh_coreset.gaussian_mechanism_zcdp

    def mech(D, n, rng):
        seeds = rng.integers(0, 2**63, size=n)
        out = np.empty(n)
        if scale != 1.0:
            lsh_coreset.laplace_mechanism = lambda v, s, *a, **k: lap(v, s * scale, *a, **k)
            lsh_coreset.gaussian_mechanism_zcdp = lambda v, s, *a, **k: gau(v, s * scale, *a, **k)
        try:
            for i, s in enumerate(seeds):  # one fit per output: the audit needs independent runs
                est = LSHCoresetKMeans(1, 1.0, bounds=(-1, 1), random_state=int(s)).fit(D)
                out[i] = est.cluster_centers_[0, 0]
        finally:
            lsh_coreset.laplace_mechanism, lsh_coreset.gaussian_mechanism_zcdp = lap, gau
        return out

    return mech


D1 = np.full((40, 2), 0.5)
D2 = np.vstack([D1, [[-1.0, -1.0]]])  # one record added, as far as the box allows


def test_audit_whole_estimator_finds_no_violation_and_catches_broken_noise():
    """False-alarm rate of each verdict at most 1 % (the auditor's test at level 0.01), fixed seeds."""
    ok = audit(_estimator_mechanism(), D1, D2, 1.0, delta=1e-6, n_samples=500, n_grid=20, rng=0)
    assert not ok.rejects(0.01), str(ok)
    broken = audit(_estimator_mechanism(scale=1e-3), D1, D2, 1.0, delta=1e-6, n_samples=500, n_grid=20, rng=0)
    assert broken.rejects(0.01), str(broken)
    assert broken.epsilon_lower_bound > 1.0


def _step_mechanism(scale=1.0):
    """n independent private Lloyd steps (Eq. 5) at the whole zCDP budget of (1, 1e-6), r = 0.5."""
    gau = lsh_coreset.gaussian_mechanism_zcdp
    rho = zcdp_budget(1.0, 1e-6)

    def mech(D, n, rng):
        seeds = rng.integers(0, 2**63, size=n)
        if scale != 1.0:
            lsh_coreset.gaussian_mechanism_zcdp = lambda v, s, *a, **k: gau(v, s * scale, *a, **k)
        try:
            step = LSHCoresetKMeans._lloyd_step
            C0 = np.zeros((1, 1))
            return np.array([step(D, C0, 0.5, rho, np.random.default_rng(int(s)), None, "a")[0][0, 0]
                             for s in seeds])
        finally:
            lsh_coreset.gaussian_mechanism_zcdp = gau

    return mech


def test_audit_one_lloyd_step():
    """One step at the whole budget: its count (Laplace) and sum (Gaussian) compose in zCDP to (1, 1e-6)."""
    S1 = np.zeros((30, 1))
    S2 = np.vstack([S1, [[1.0]]])  # its residual is clipped to r = 0.5
    ok = audit(_step_mechanism(), S1, S2, 1.0, delta=1e-6, n_samples=3000, rng=1)
    assert not ok.rejects(0.01), str(ok)
    broken = audit(_step_mechanism(scale=0.05), S1, S2, 1.0, delta=1e-6, n_samples=3000, rng=1)
    assert broken.rejects(0.01), str(broken)


# ------------------------------------------------------------------------------------------------ utility
def _ratio(X, k, **kw):
    base = KMeans(k, n_init=3, random_state=0).fit(X).inertia_
    return [_kernels.wcss(X, LSHCoresetKMeans(k, 1.0, bounds=(-1, 1), random_state=s, **kw).fit(X).cluster_centers_)
            / base for s in range(3)]


def test_utility_mixture_low_and_high_dimension():
    X20, _ = data.make_lsh_mixture(10_000, 20, 8, random_state=1)
    r20 = _ratio(X20, 8, radius=1.0)
    assert np.median(r20) < 1.1 and max(r20) < 1.5, r20
    X40, _ = data.make_lsh_mixture(10_000, 40, 8, random_state=1)  # projected to 10 dimensions for the seeds
    r40 = _ratio(X40, 8, radius=1.0)
    assert np.median(r40) < 1.2 and max(r40) < 1.6, r40


def test_utility_letter_like_reduced():
    X, _ = data.make_letter_like(5_000, random_state=1)
    r = _ratio(X, 16)
    assert np.median(r) < 1.4, r


def test_predict_and_tiny_inputs():
    X = _mixture(n=500, d=30)
    est = LSHCoresetKMeans(4, 1.0, bounds=(-1, 1), random_state=0).fit(X)
    assert est.predict(X).shape == (500,) and est.cluster_centers_.shape == (4, 30)
    assert np.all(np.abs(est.cluster_centers_) <= 1)
    # more clusters than points, a single point, one dimension: no error, k centres, ledger exact
    for Xs, k in [(X[:3], 5), (X[:1], 2), (np.linspace(-1, 1, 50)[:, None], 3)]:
        e = LSHCoresetKMeans(k, 1.0, bounds=(-1, 1), random_state=0).fit(Xs)
        assert e.cluster_centers_.shape == (k, Xs.shape[1]) and np.all(np.isfinite(e.cluster_centers_))
        assert e.ledger_.total() == pytest.approx((1.0, 1e-6), rel=1e-12)
        assert _rho(e) == pytest.approx(zcdp_budget(1.0, 1e-6), rel=1e-12)


def test_reduce_and_ward():
    rng = np.random.default_rng(0)
    groups = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    C = np.repeat(groups, 4, axis=0) + 0.1 * rng.normal(size=(12, 2))  # not privacy noise: test data
    w = rng.uniform(1, 3, 12)
    out = lsh_coreset._reduce(C, w, 3, rng)
    assert np.sort(np.round(out).sum(axis=1)).tolist() == [0.0, 5.0, 5.0]
    assert lsh_coreset._ward(C, w, 3).shape == (3, 2)
    # fewer positive weights than k: the heaviest k are kept
    assert lsh_coreset._reduce(C, np.r_[1.0, np.zeros(11)], 3, rng).shape == (3, 2)
