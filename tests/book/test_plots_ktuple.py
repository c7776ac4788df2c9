"""Fast checks of the figures and experiment helpers of chapters 7 and 8 (k-tuple clustering, Gaussian mixtures).

Every figure is 7 inches wide with at most two panels a row and labelled axes; every experiment helper returns a
tidy DataFrame with the columns the chapters read. The experiments run here on tiny inputs; the chapters run them
at full size and assert their claims.
"""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpclust_core import PrivacyLedger, gmm  # noqa: E402
from dpclust_book.experiments import mixtures as mx  # noqa: E402
from dpclust_book.experiments import ktuple as kx  # noqa: E402
from dpclust_book.experiments.ktuple import simulate_tuples  # noqa: E402
from dpclust_core.ktuple import PrivatekNoisyCenters  # noqa: E402
from dpclust_book.plots import FIG_WIDTH  # noqa: E402
from dpclust_book.plots import ktuple as kp  # noqa: E402
from dpclust_book.plots._layout import NARROW, smallest_text_px  # noqa: E402


def _phone_readable(fig):
    """A stacked (narrow) figure keeps every text at 9 pt (12 px) or more when shown 368 px wide on a phone."""
    if fig.get_figwidth() == pytest.approx(NARROW):
        assert smallest_text_px(fig) >= 12.0 - 1e-9, smallest_text_px(fig)

C3 = np.array([[-6.0, -4.0], [5.0, -3.0], [0.0, 6.0]])


def _check_figure(fig):
    """7 inches wide, at most two panels a row, every visible panel with an x label."""
    try:
        assert fig.get_figwidth() in (pytest.approx(FIG_WIDTH), pytest.approx(NARROW))
        _phone_readable(fig)
        panels = [ax for ax in fig.axes if ax.get_visible() and ax.get_label() != "<colorbar>"]
        assert panels
        rows = {}
        for ax in panels:
            box = ax.get_position()
            rows.setdefault(round(box.y0, 2), []).append(ax)
        assert max(len(r) for r in rows.values()) <= 2
        assert all(ax.get_xlabel() for ax in panels)
    finally:
        plt.close(fig)


@pytest.fixture(scope="module")
def tuples():
    rng = np.random.default_rng(0)
    T = simulate_tuples(C3, 40, 0.15, rng)
    return T, kx.corrupt_tuples(T, rng)


# ------------------------------------------------------------------ chapter 7
def test_corrupt_tuples_and_partition_counts(tuples):
    T, Tb = tuples
    assert Tb.shape == T.shape and np.array_equal(Tb[4:], T[4:]) and not np.array_equal(Tb[:4], T[:4])
    counts = kx.partition_counts({"nice": T, "spoiled": Tb}, T[10], 10.0)
    assert counts.loc["nice", "partitioned"] == 40 and counts.loc["spoiled", "partitioned"] <= 36
    _check_figure(kp.instance(T, Tb, T[10], 10.0, 4))


def test_soft_test_figure_and_table():
    base = simulate_tuples(20 * np.eye(2), 300, 0.05, rng=1)
    rates = kx.soft_test_rates(base, [2.0, 4.0], [0, 30], n_runs=50, rng=1)
    params = kx.good_centers_table(300, [2.0, 4.0])
    assert list(rates.columns) == ["epsilon", "corrupted", "success rate"] and len(rates) == 4
    assert params["pass threshold"].is_monotonic_decreasing  # a larger epsilon tolerates fewer bad tuples
    _check_figure(kp.soft_test(rates, params))


def test_ledger_table_shows_composition():
    T = simulate_tuples(20 * np.eye(2), 400, 1e-3, rng=2)
    est = PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=2).fit(T)
    frame = kx.ledger_frame(est.ledger_)
    assert frame.index[-1] == "total (composed)" and frame["ε"].iloc[-1] == "4"
    assert frame["composed as"].str.startswith("sampled").sum() == 1
    assert kx.ledger_table(est.ledger_).data.shape == (len(frame), 4)
    led = PrivacyLedger()
    with led.parallel("two parts") as par:
        for _ in range(2):
            with par.partition():
                led.record("a release", 1.0)
    assert kx.ledger_frame(led)["composed as"].tolist()[:2] == ["part 0", "part 1"]


def test_worked_example_and_spread_figures():
    T, est = kx.noisy_centers_run(C3, 0.0005, 4.0)
    assert est.status_
    _check_figure(kp.private_centres(T, C3, est.cluster_centers_))
    _check_figure(kp.private_centres(T, C3, None))
    _check_figure(kp.spread_frame(T, est, C3, 700.0, 0.0005, 4.0))
    df = kx.spread_sweep(C3, [0.0005, 0.05], [4.0], reps=1, rng=3)
    assert df["success rate"].tolist()[1] == 0.0
    _check_figure(kp.spread_sweep(df))


def test_kaverages_cost_figure():
    slack = kx.kaverages_slack([10**3, 10**5], [1.0, 4.0])
    budget = kx.kaverages_budget([1.0, 4.0])
    assert (budget["g"] == 2 * (budget["ℓ"] + 1) * 2).all()
    _check_figure(kp.kaverages_cost(slack, budget))


def test_simulator_and_sweeps():
    check = kx.simulator_check(20 * np.eye(2, 4), 30, 100, rng=4)
    assert check["rms distance"].between(0.1, 0.5).all()
    mk = lambda s: PrivatekNoisyCenters(2, 4.0, 1e-6, random_state=s)  # noqa: E731
    sweep = kx.tuples_sweep(20 * np.eye(2, 4), {"PrivatekNoisyCenters": (mk, [324, 400], 1, 20_000)}, rng=4)
    assert sweep["tuples"].tolist() == [324, 400]
    _check_figure(kp.tuples_sweep(sweep))
    nc = pd.DataFrame({"R": [10.0, 80.0], "samples per tuple": [1e5, 2e3], "total samples": [3e7, 6e5]})
    avg = pd.DataFrame({"R": [10.0, 80.0], "samples per tuple": [200.0, 8.0], "total samples": [2e7, 8e5],
                        "success rate": [1.0, 1.0]})
    _check_figure(kp.samples_vs_separation(nc, avg, 324, 100_000))


def test_kmeans_comparison_subset_and_figure():
    df = kx.kmeans_easy_comparison(C3, [0.01], [0], n=20_000, methods=["EUGkM", "DPLloyd-Impr"])
    assert sorted(df["method"]) == ["DPLloyd-Impr", "EUGkM"] and df["status"].isna().all()
    with pytest.raises(ValueError, match="unknown methods"):
        kx.kmeans_easy_comparison(C3, [0.01], [0], methods=["nope"])
    fake = pd.DataFrame({"sd": [0.01, 0.01, 0.3, 0.3], "method": ["EUGkM", "PrivateKMeansEasy (Averages)"] * 2,
                         "seed": 0, "recovered": [True, False, True, True], "status": [None, True, None, True]})
    _check_figure(kp.kmeans_comparison(fake))


def test_audit_pair_differs_in_one_tuple():
    T1, T2 = kx.audit_pair()
    assert T1.shape == T2.shape and int((T1 != T2).any(axis=(1, 2)).sum()) == 1


# ------------------------------------------------------------------ chapter 8
def test_mixture_figures_and_errors():
    P = mx.random_separated_mixture(3, 2, separation=300, weights=(0.2, 0.3, 0.5), random_state=7)
    X, y = gmm.sample_mixture(P, 3000, random_state=0)
    em = kx.em_params(X, 3)
    errs = kx.mixture_errors(P, {"EM": em, "failed": None})
    assert list(errs.columns) == ["mean", "covariance", "weight", "TV bound"]
    assert errs.loc["EM", "mean"] < 0.2 and errs.loc["failed"].isna().all()
    _check_figure(kp.mixture_fit(P, X, y, P.means, em, em))
    q, p = kx.chunk_means_check(P, 30, 200)
    assert q.shape == (2, 4) and 0 <= p <= 1


def test_sample_complexity_figure():
    tests = pd.DataFrame({"test": ["A"] * 2 + ["B"] * 2 + ["C"] * 2, "parameter": ["k"] * 2 + ["R"] * 2 + ["d"] * 2,
                          "value": [2, 4, 10, 80, 2, 8], "total samples": [1e8, 1e9, 1e9, 2e7, 1e8, 5e8]})
    gammas = pd.DataFrame({"parameter": ["k", "k", "d", "d"], "value": [2, 4, 2, 8],
                           "gamma": [2000.0, 4000.0, 1800.0, 2200.0]})
    _check_figure(kp.sample_complexity(tests, gammas))


def test_naive_and_error_figures():
    P1 = gmm.MixtureParams(np.array([[-5.0], [5.0]]), np.ones((2, 1, 1)), np.array([0.5, 0.5]))
    nv = kx.naive_baseline(P1, [500], epsilon=1.0, radius=20.0)
    assert nv["naive"].iloc[0] > nv["EM (non-private)"].iloc[0]
    X, _ = gmm.sample_mixture(P1, 500, random_state=1)
    noisy = gmm.naive_noisy_points(X, 20.0, 1.0, 1e-6, rng=0)
    _check_figure(kp.naive_histograms(X[:, 0], noisy[:, 0], 180.0, 1.0))
    by_n = kx.errors_vs_n(ns_private=(10**7, 10**10), ns_real=(500,), seeds=(0,))
    assert by_n.groupby("method").size().to_dict() == {"EM (non-private)": 1, "PrivateGaussianMixture": 2,
                                                        "naive": 1}
    assert not by_n.iloc[0]["success"]  # 1e7 samples: the private test fails
    by_R = kx.errors_vs_separation(Rs=(5, 40), n_private=10**10, n_real=500)
    _check_figure(kp.errors_vs(by_n, by_R))


def test_separation_grid_and_frame():
    grid = kx.separation_grid(Rs=(10, 40), ns=(1e7, 1e10), reps=1)
    assert grid.shape == (4, 3)
    _check_figure(kp.separation_heatmap(grid))
    P = gmm.paper_mixture(2, 2, 40.0)
    est = kx.private_gmm_simulated(P, 1e10, seed=0, radius=170, n2_max=2000)
    assert est.success_
    X, _ = gmm.sample_mixture(P, 200, random_state=0)
    _check_figure(kp.mixture_frame(P, est, X, "a frame"))
    assert kx.gmm_public_parameters([4.0])["tuples"].tolist() == [324]
    assert kx.true_means_failure_rate(P, 50, 3) == 0.0
