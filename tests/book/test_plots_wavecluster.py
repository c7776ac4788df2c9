"""Fast tests of chapter 6's experiment loops and figures (dpclust_book.experiments / plots .wavecluster)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from dpclust_book.datasets import make_ds2_like  # noqa: E402
from dpclust_book.experiments import wavecluster as ex  # noqa: E402
from dpclust_book.experiments.wavecluster import fixed_split  # noqa: E402
from dpclust_book.evaluation import cluster_then_classify, dsg_c, ocm, two_ce  # noqa: E402
from dpclust_book.plots import wavecluster as viz  # noqa: E402
from dpclust_core.wavecluster import PrivateWaveCluster, WaveCluster  # noqa: E402
from dpclust_book.plots._layout import NARROW, smallest_text_px  # noqa: E402


def _phone_readable(fig):
    """A stacked (narrow) figure keeps every text at 9 pt (12 px) or more when shown 368 px wide on a phone."""
    if fig.get_figwidth() == pytest.approx(NARROW):
        assert smallest_text_px(fig) >= 12.0 - 1e-9, smallest_text_px(fig)

B = (0.0, 1.0)


@pytest.fixture(scope="module")
def small():
    X, _ = make_ds2_like(6_240, random_state=0)
    wc = WaveCluster(grid_size=40, p=10, bounds=B).fit(X)
    return X, wc


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _panels_per_row(fig):
    rows = {}
    for ax in fig.axes:
        if ax.get_label() == "<colorbar>":
            continue
        y = round(ax.get_position().y0, 2)
        rows[y] = rows.get(y, 0) + 1
    return max(rows.values())


# ----------------------------------------------------------------------------------------- experiments
def test_lookalikes_and_summary(small):
    data = ex.lookalikes(n_samples=3_120)
    assert set(data) == {"ds1", "ds2", "ds3"} and data["ds2"][1:] == (40, 10.0)
    X, wc = small
    s = ex.summary(wc)
    assert list(s.columns) == ["value", "meaning"]
    assert s.loc["k", "value"] == str(wc.k_) and s.loc["clusters", "value"] == str(wc.n_clusters_)


def test_k_prime_runs_and_table(small):
    X, wc = small
    ks = ex.k_prime_runs(X, "thr", 1.0, grid_size=40, p=10, n_runs=3)
    assert ks.shape == (3,)
    again = [PrivateWaveCluster(1.0, method="thr", grid_size=40, p=10, bounds=B, random_state=s).fit(X).k_prime_
             for s in range(3)]
    np.testing.assert_array_equal(ks, again)
    t = ex.k_prime_table(X, wc, n_runs=2)
    assert list(t.index) == ["PrivTHR", "PrivTHR_EM", "Baseline", "PrivQT"]
    np.testing.assert_allclose(t["k' / k"], t["k' (mean)"] / wc.k_)
    assert t.loc["PrivTHR", "paper k'"] == 141.0


def test_privqt_gap_is_positive(small):
    X, wc = small
    gap = ex.privqt_gap(X, wc, [1.0, 10.0], n_runs=4)
    assert list(gap.columns) == ["epsilon", "mean", "sd"]
    assert (gap["mean"] > 0).all()


def test_metrics_match_the_protocol():
    data = {"ds2": (make_ds2_like(3_120, random_state=0)[0], 40, 10.0)}
    runs, truth = ex.metrics_vs_epsilon(data, [0.5, 2.0], n_runs=2, methods=("qt", "thr"))
    assert len(runs) == 2 * 2 * 2 and truth.loc["ds2", "clusters"] >= 1
    # the cached true tree gives exactly what cluster_then_classify gives
    X = data["ds2"][0]
    tr, te = fixed_split(X.shape[0], 0.1, random_state=0)
    wc = WaveCluster(grid_size=40, p=10, bounds=B).fit(X[tr])
    est = PrivateWaveCluster(2.0, method="thr", grid_size=40, p=10, bounds=B, random_state=1).fit(X[tr])
    pt, pp = cluster_then_classify(wc.grid_labels_, est.grid_labels_, B, X[te])
    row = runs[(runs.method == "thr") & (runs.epsilon == 2.0) & (runs.seed == 1)].iloc[0]
    assert row["DSG_C"] == pytest.approx(dsg_c(wc.grid_labels_, est.grid_labels_))
    assert row["OCM"] == pytest.approx(ocm(pt, pp)) and row["2CE"] == pytest.approx(two_ce(pt, pp))
    means = ex.metric_means(runs)
    assert means.index.names == ["dataset", "method", "epsilon"] and len(means) == 4


def test_em_tables_alpha_large_eps_and_budget(small):
    X, wc = small
    cmp_ = ex.em_upper_comparison(X, wc, 1.0, {"default": None, "max W": wc.W_.max()}, n_runs=2)
    assert list(cmp_.index) == ["default", "max W"]
    P = ex.em_rank_probabilities(wc.W_, 10, 0.3, {"a": 1000.0, "b": wc.W_.max()})
    np.testing.assert_allclose(P.sum(), 1.0)
    assert len(P) == (wc.W_ > 0).sum() + 1
    a = ex.alpha_sweep(X, wc, "thr", [0.5, 0.9], 1.0, n_runs=2)
    assert list(a["alpha"]) == [0.5, 0.9] and (a["DSG_C"] >= 0).all()
    big = ex.large_epsilon(X, wc, [10.0], n_runs=2)
    assert set(big["method"]) == {"PrivQT", "PrivTHR", "PrivTHR_EM"}
    assert (big["mean |k' - k|"] >= big["mean k' - k"].abs() - 1e-12).all()
    duel = ex.dsg_c_table(X, wc, [1.0, 5.0], n_runs=3)
    assert list(duel.columns) == ["PrivTHR", "PrivTHR s.e.", "PrivTHR_EM", "PrivTHR_EM s.e."]
    b = ex.budget_splits(X, wc, 0.5)
    np.testing.assert_allclose(b["total (ledger)"], 0.5)
    np.testing.assert_allclose(b[["ε on N (noisy count)", "ε on the counts", "ε on the second step"]].sum(axis=1),
                               0.5)


def test_neighbour_sensitivities():
    nc = ex.neighbour_changes(300, rng=0)
    assert nc.loc["add/remove one record"].tolist() == [1, 1, 1]
    assert nc.loc["replace one record"].tolist() == [2, 1, 2]


def test_names_round_trip():
    assert {ex.BY_NAME[v] for v in ex.NAMES.values()} == set(ex.NAMES)


# ----------------------------------------------------------------------------------------- figures
def test_style_and_match_labels():
    assert viz.style("thr") == viz.style("PrivTHR")
    assert len({viz.style(m)["color"] for m in viz.NAMES}) == 4
    t = np.array([[0, 0, -1], [-1, 1, 1]])
    q = np.array([[5, 5, -1], [-1, 2, 7]])  # 5 -> 0, 2 -> 1, 7 unmatched -> a new number
    out = viz.match_labels(t, q)
    assert out[0, 0] == 0 and out[1, 1] == 1 and out[1, 2] == 2 and out[0, 2] == -1
    assert (viz.match_labels(t, np.full((2, 3), -1)) == -1).all()


def test_figures_have_at_most_two_panels_a_row(small):
    X, wc = small
    est = PrivateWaveCluster(1.0, method="qt", grid_size=40, p=10, bounds=B, random_state=0).fit(X)
    gap = ex.privqt_gap(X, wc, [1.0, 10.0], n_runs=2)
    data = {"ds2": (X, 40, 10.0)}
    runs, _ = ex.metrics_vs_epsilon(data, [0.5, 1.0], n_runs=1)
    means = ex.metric_means(runs)
    sweep = ex.alpha_sweep(X, wc, "thr", [0.5, 0.9], 1.0, n_runs=1)
    figs = [viz.pipeline(X, wc), viz.privqt_bias(est.noisy_W_, wc.W_, gap, 100.0),
            viz.k_prime_bars(ex.k_prime_table(X, wc, n_runs=1)), viz.metric_panels(means, "OCM"),
            viz.metric_curve(means, "ds2", "2CE"), viz.compare_maps(wc, est, score=0.5),
            viz.alpha_curves(sweep)]
    for fig in figs:
        assert fig.get_size_inches()[0] in (pytest.approx(7.0), pytest.approx(NARROW))
        _phone_readable(fig)
        assert _panels_per_row(fig) <= 2
    labelled = [ax for fig in figs for ax in fig.axes if ax.get_label() != "<colorbar>" and ax.axison]
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in labelled)
