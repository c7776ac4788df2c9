"""Fast checks of the benchmark across every family of private k-means (``experiments.families``) and of its
figures (``plots.families``), on tiny inputs: the tidy table's columns, the non-private reference, the time cap,
the budget each method really spends, the summaries and the figures' shape. The appendix runs the loop on the
book's datasets and asserts its claims; ``benchmarks/bench_families.py`` runs the full grid."""
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpclust_book.experiments import families as fx  # noqa: E402
from dpclust_book.experiments.practice import diffprivlib_ledger  # noqa: E402
from dpclust_book.plots import FIG_WIDTH  # noqa: E402
from dpclust_book.plots import families as draw  # noqa: E402


def _blobs(n, d, k, seed):
    rng = np.random.default_rng(seed)
    C = rng.uniform(-0.6, 0.6, size=(k, d))
    X = C[rng.integers(0, k, n)] + 0.05 * rng.normal(size=(n, d))  # not privacy noise: test data
    return np.clip(X, -1.0, 1.0)


@pytest.fixture(scope="module")
def tiny():
    return [fx.Dataset("low", _blobs(600, 2, 3, 0), 3, (-1.0, 1.0), "test blobs, 2-D"),
            fx.Dataset("high", 1.0 + _blobs(600, 24, 3, 1), 3, (0.0, 2.0), "test blobs, 24-D, box [0, 2]")]


@pytest.fixture(scope="module")
def grid(tiny):
    return fx.run_grid(tiny, [0.5, 2.0], [0, 1], max_fit=30.0)


def _check_figure(fig):
    """7 inches wide, at most two panels a row, every panel with an x label and the first with a y label."""
    try:
        assert fig.get_figwidth() == pytest.approx(FIG_WIDTH)
        panels = [ax for ax in fig.axes if ax.get_visible()]
        assert panels
        rows = {}
        for ax in panels:
            rows.setdefault(round(ax.get_position().y0, 2), []).append(ax)
        assert max(len(r) for r in rows.values()) <= 2
        assert all(ax.get_xlabel() for ax in panels)
        assert panels[0].get_ylabel()
    finally:
        plt.close(fig)


# ------------------------------------------------------------------ the loop
def test_table_columns_and_shape(grid, tiny):
    assert list(grid.columns) == fx.COLUMNS
    fits = grid[grid["status"] != "reference"]
    assert len(fits) == len(tiny) * len(fx.METHOD_NAMES) * 2 * 2  # datasets x methods x eps x seeds
    assert set(fits["method"]) == set(fx.METHOD_NAMES)
    assert (fits["status"] == "ok").all(), fits.loc[fits["status"] != "ok", ["method", "note"]]
    assert (fits["loss"] >= 1.0 - 1e-9).all()  # nothing beats the best of ten non-private runs by much
    assert (fits["fit_seconds"] > 0).all() and (fits["cpu_seconds"] >= 0).all()
    assert grid.groupby("dataset")[["n", "d", "k"]].first().to_dict("index") == {
        "high": {"n": 600, "d": 24, "k": 3}, "low": {"n": 600, "d": 2, "k": 3}}


def test_non_private_reference_is_one(grid):
    ref = grid[grid["status"] == "reference"].set_index(["dataset", "method"])
    assert ref.loc[("low", "non-private"), "loss"] == 1.0 and ref.loc[("high", "non-private"), "loss"] == 1.0
    assert ref["epsilon"].isna().all()
    assert (ref.xs("one centre", level="method")["loss"] > 5).all()  # three separated blobs


def test_baseline_is_sklearn_best_of_ten():
    from sklearn.cluster import KMeans

    X = _blobs(300, 3, 4, 2)
    b = fx.baseline(X, 4)
    assert b["wcss"] == pytest.approx(KMeans(4, n_init=10, random_state=0).fit(X).inertia_)
    assert b["one_centre"] == pytest.approx(((X - X.mean(0)) ** 2).sum())


def test_ledgers_total_the_epsilon_asked(grid):
    fits = grid[grid["status"] == "ok"]
    ours = fits[fits["method"] != "diffprivlib"]
    assert np.allclose(ours["epsilon_spent"], ours["epsilon"], rtol=1e-9)
    with_delta = ours["method"].isin(["PrivateKMeansEasy", "LSH coreset"])
    assert np.allclose(ours.loc[with_delta, "delta_spent"], 1e-6, rtol=1e-9)
    assert (ours.loc[~with_delta, "delta_spent"] == 0).all()


def test_diffprivlib_reports_its_measured_spend(grid, tiny):
    dpl = grid[grid["method"] == "diffprivlib"]
    assert not np.allclose(dpl["epsilon_spent"], dpl["epsilon"])  # not the epsilon asked
    for ds in tiny:
        row = dpl[(dpl["dataset"] == ds.name) & (dpl["epsilon"] == 2.0) & (dpl["seed"] == 1)].iloc[0]
        d = ds.X.shape[1]
        box = (np.full(d, ds.bounds[0]), np.full(d, ds.bounds[1]))
        led, model = diffprivlib_ledger(ds.X, ds.k, 2.0, box, random_state=1, true_sensitivity=True)
        assert row["epsilon_spent"] == pytest.approx(led.epsilon)
    # on a centred box in 2-D it spends less than asked; in 24-D on [0, 2] its swapped shares spend more
    low = dpl[dpl["dataset"] == "low"]
    high = dpl[dpl["dataset"] == "high"]
    assert (low["epsilon_spent"] < low["epsilon"]).all() and (high["epsilon_spent"] > high["epsilon"]).all()
    est = fx.methods(3, (-1.0, 1.0), ["diffprivlib"])["diffprivlib"](1.0, 0).fit(tiny[0].X)
    assert est.accountant_epsilon_ == 1.0 and est.cluster_centers_.shape == (3, 2)


def test_time_cap_records_a_skip(tiny):
    df = fx.run_grid(tiny[:1], [0.5, 1.0], [0, 1], methods=["PGkM", "DPLloyd-Impr"], max_fit=1e-6)
    pg = df[df["method"] == "PGkM"]
    assert (pg["status"] == "skipped").all() and len(pg) == 4
    assert pg["note"].str.contains("fit stopped after 1e-06 s").all() and pg["loss"].isna().all()
    s = fx.summarize(df)
    assert set(s.loc[s["method"] == "PGkM", "status"]) == {"skipped"}


def test_a_failing_method_is_recorded(tiny, monkeypatch):
    def boom(e, s):
        raise ValueError("cannot fit this")

    monkeypatch.setattr(fx, "_methods_for", lambda k, b, names, delta: {"GkM": boom})
    df = fx.run_grid(tiny[:1], [1.0], [0, 1])
    bad = df[df["method"] == "GkM"]
    assert (bad["status"] == "failed").all() and bad["note"].str.contains("ValueError: cannot fit this").all()


def test_bad_names_are_refused():
    with pytest.raises(ValueError, match="names must be"):
        fx.datasets(["nope"])
    with pytest.raises(ValueError, match="names must be"):
        fx.methods(3, (-1, 1), ["KMeans"])
    with pytest.raises(ValueError, match="max_fit"):
        fx.run_grid([], max_fit=0.0)


# ------------------------------------------------------------------ summaries
def test_summary_tables(grid):
    s = fx.summarize(grid)
    cells = s[s["status"] != "reference"]
    assert len(cells) == 2 * len(fx.METHOD_NAMES) * 2 and (cells["fits"] == 2).all()
    assert (cells["loss_min"] <= cells["loss"]).all() and (cells["loss"] <= cells["loss_max"]).all()
    assert (cells["loss_q25"] <= cells["loss_q75"]).all()
    t = fx.loss_table(s, 2.0)
    assert t.index.tolist() == list(fx.REFERENCES + fx.METHOD_NAMES) and t.columns.tolist() == ["high", "low"]
    assert (t.loc["non-private"] == 1.0).all()
    h = fx.headline(s, 2.0)
    assert set(h["best of the package"]) <= set(fx.PACKAGE_METHODS)
    assert (h["its loss"] <= t.loc[list(fx.PACKAGE_METHODS)].min()).all()
    a = fx.advisor_check(s)
    # 600 points, k = 3, asked with δ > 0: in 24-D (above d = 10) the LSH coreset at every N·ε/k; in 2-D,
    # N·ε/k = 100 and 400 are below the LSH coreset's 2,000 there, so a pure ε-DP method
    assert a.xs("high", level="dataset")["recommended"].eq("LSH coreset").all()
    assert not a.xs("low", level="dataset")["recommended"].eq("LSH coreset").any()
    assert (a["recommended / best"] >= 1.0 - 1e-12).all()


def test_summary_reads_back_from_csv(grid, tmp_path):
    path = tmp_path / "g.csv"
    grid.to_csv(path, index=False)
    back = fx.summarize(pd.read_csv(path))
    assert (back["failed_share"] <= fx.summarize(grid)["failed_share"] + 1e-12).all()
    assert back["note"].map(lambda x: isinstance(x, str)).all()


def test_high_dimension_table():
    t = fx.high_dimension_table(100_000, 64, 1.0)
    assert t.index.tolist() == [2, 10, 64, 100]
    assert t.loc[100, "EUGkM cells per dimension"] == 1 and t.loc[2, "EUGkM cells per dimension"] > 10
    ratio = t["DPLloyd-Impr error / spread"]
    assert ratio.loc[100] > 1 > 100 * ratio.loc[10] and ratio.is_monotonic_increasing
    assert math.isclose(t.loc[64, "cells at 2 per dimension"], 2.0 ** 64)


# ------------------------------------------------------------------ figures
def test_figures(grid):
    s = fx.summarize(grid)
    _check_figure(draw.loss_vs_epsilon(s, ["low", "high"]))
    _check_figure(draw.loss_vs_epsilon(s, ["low"], methods=["EUGkM", "LSH coreset"]))
    _check_figure(draw.fit_times(s, 2.0))
    fig = draw.at_epsilon(s, 0.5)
    assert len([ax for ax in fig.axes if ax.get_visible()]) == 2
    _check_figure(fig)
    with pytest.raises(ValueError, match="one or two"):
        draw.loss_vs_epsilon(s, ["low", "high", "low"])


def test_gkm_and_lsh_are_told_apart():
    g, lsh = draw._style("GkM"), draw._style("LSH coreset")
    assert g["color"] != lsh["color"]  # the book's palette gives them their own colours ...
    assert (g["marker"], g["linestyle"]) != (lsh["marker"], lsh["linestyle"]) and lsh["linewidth"] > g["linewidth"]
    styles = [draw._style(m) for m in ("DPLloyd", "DPLloyd-Impr", "EUGkM", "Hybrid", "GkM", "PGkM",
                                        "PrivateKMeansEasy", "LSH coreset", "diffprivlib")]
    assert len({s["color"] for s in styles}) == len(styles)  # ... and every method of the benchmark its own


# ------------------------------------------------------------------ tables for reading
def test_reading_tables(grid):
    s = fx.summarize(grid)
    h = fx.headline(s, 2.0)
    assert np.allclose(h["its loss / one centre"], h["its loss"] / h["one centre"])
    html = fx.headline_display(h).to_html()
    assert "best / one centre" in html and "diffprivlib" in html
    st = fx.loss_display(s, 2.0)
    st._compute()
    bold = [cell for cell, css in st.ctx.items() if ("font-weight", "bold") in css]
    assert len({col for _, col in bold}) == 2  # the best method of the package on each dataset
    shown = fx.results_table(grid[grid["epsilon"].isin([2.0]) | (grid["status"] == "reference")]).to_html()
    assert "—" in shown and "δ spent" in shown  # the reference rows spend nothing
    spend = fx.diffprivlib_spend(s)
    assert spend.columns.tolist() == ["asked ε = 0.5", "asked ε = 2"] and sorted(spend.index) == ["high", "low"]
    t = fx.high_dimension_table(100_000, 64, 1.0, dims=(2, 100)).iloc[:, :2]
    assert "1.3 × 10³⁰" in fx.high_dimension_display(t).to_html()
    assert fx._sci(6.74e-5) == "6.7 × 10⁻⁵" and fx._sci(1024.0) == "1,000" and fx._sci(0.435) == "0.43"


def test_lsh_tree_demo():
    X = _blobs(3000, 2, 6, 2)
    demo = fx.lsh_tree_demo(X, depth=4, epsilon=1.0, random_state=27)
    nodes, t = demo["nodes"], demo["threshold"]
    assert set(nodes["status"]) <= {"split", "leaf", "dropped"} and nodes["level"].max() == 4
    assert (nodes.loc[nodes["status"] == "leaf", "noisy count"] >= t).all()
    assert (nodes.loc[nodes["status"] == "dropped", "noisy count"] < t).all()
    assert (nodes.loc[nodes["status"] == "split", "noisy count"] >= 3 * t).all()
    level1 = nodes[nodes["level"] == 1]
    assert level1["count"].sum() == len(X)  # the root splits every point in two
    n_leaves = (nodes["status"] == "leaf").sum()
    assert demo["leaf_means"].shape == (n_leaves, 2) and demo["leaf_of"].max() == n_leaves - 1
    for j in range(n_leaves):  # a noisy average near the exact one (hundreds of points per leaf)
        m = demo["leaf_of"] == j
        if m.sum() > 200:
            assert np.linalg.norm(demo["leaf_means"][j] - X[m].mean(axis=0)) < 0.2
    _check_figure(draw.lsh_tree(X, demo))


def test_lsh_fitted():
    from dpclust_core.kmeans import LSHCoresetKMeans

    est = LSHCoresetKMeans(3, 1.0, bounds=(-1, 1), random_state=0).fit(_blobs(2000, 24, 3, 3))
    t = fx.lsh_fitted(est)
    assert len(t) == 6 and t.loc["projected dimension, p", "chosen by the fit"] == str(est.projection_dim_)
