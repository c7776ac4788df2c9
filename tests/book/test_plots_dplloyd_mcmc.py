"""The experiment and plotting helpers of chapters 2 (DPLloyd) and 9 (MCMC postprocessing) run on small inputs and
return DataFrames and Figures of the expected shape (fast: each test well under a second or two)."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpclust_book.datasets import make_blobs_ratio, make_s1_like  # noqa: E402
from dpclust_book.experiments import dplloyd as exd  # noqa: E402
from dpclust_book.experiments import mcmc as exm  # noqa: E402
from dpclust_core.kmeans import DPLloyd  # noqa: E402
from dpclust_book.plots import dplloyd as drd  # noqa: E402
from dpclust_book.plots import mcmc as drm  # noqa: E402


def _panels(fig):
    return [ax for ax in fig.axes if ax.get_visible()]


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def blobs():
    X, _ = make_blobs_ratio(600, n_clusters=3, n_features=2, random_state=0)
    return X


@pytest.fixture(scope="module")
def s1_small():
    X, _ = make_s1_like(600, random_state=0)
    return X


# ------------------------------------------------------------------------------------------- chapter 2
def test_error_model_sweeps_and_figure():
    df = exd.error_model_sweeps(2000, epsilons=[0.1, 1.0], dims=[1, 2], ks=[2, 5], n_trials=50, seed=0)
    assert len(df) == 6 and {"sweep", "model", "measured", "measured / model", "count noise"} <= set(df.columns)
    assert (df["measured / model"] > 0).all()
    summary = exd.error_model_summary(df)
    assert summary.shape == (5, 3)
    fig = drd.error_model(df)
    assert len(_panels(fig)) == 4
    from dpclust_book.plots._layout import NARROW, smallest_text_px

    # four panels, one a row, narrow enough that every text is 9 pt (12 px) or more on a 368-px phone column
    assert fig.get_figwidth() == pytest.approx(NARROW)
    assert len({ax.get_subplotspec().colspan.start for ax in _panels(fig)}) == 1
    assert smallest_text_px(fig) >= 12.0 - 1e-9


def test_split_helpers_and_figure():
    curves = exd.split_model_curves(10_000, 5, 0.5, [2, 5], ratios=[0.5, 1.0, 2.0])
    assert curves.shape == (6, 3) and (curves["relative MSE"] >= 1 - 1e-12).all()
    measured = exd.split_measured(2000, 3, 5, 0.5, [0.5, 1.0], n_trials=20, seed=0)
    assert measured.shape == (2, 3)
    table = exd.split_table([1, 2, 20])
    assert table.shape == (3, 5) and abs(table["count share"].iloc[1] - 0.270) < 1e-3
    assert len(_panels(drd.split_curves(curves, measured, measured_d=5))) == 1


def test_rounds_helpers_and_figures(blobs):
    rounds = exd.rounds_table({"a": (5000, 2, 15), "b": (107_091, 2, 5)}, epsilons=[0.1, 1.0])
    assert rounds.shape == (2, 3) and int(rounds.loc["b"].iloc[2]) == 7
    assert len(_panels(drd.rounds_rule({"a": (5000, 2, 15)}))) == 1
    by = exd.nicv_by_rounds(blobs, 3, [0.5], [1, 2], runs=2, seed=0)
    assert by.shape == (2, 4)
    best = exd.best_rounds_table(by)
    assert best.shape == (4, 1)
    assert len(_panels(drd.nicv_by_rounds(by))) == 1


def test_compare_ratio_headline_and_figures(blobs):
    versions = {"DPLloyd": {"variant": "original"}, "DPLloyd-Impr": {"variant": "improved"}}
    df = exd.compare_dplloyd(blobs, 3, [0.5, 1.0], versions, runs=2)
    assert df.shape == (4, 4) and set(df.method) == set(versions)
    ratio = exd.ratio_table(df, "DPLloyd", "DPLloyd-Impr")
    assert ratio.shape == (2, 4)
    panels = {"A (x)": (df, 0.01), "B (y)": (df, 0.01)}
    table = exd.headline_table(panels)
    assert table.shape == (2, 4) and list(table.columns.get_level_values(0).unique()) == ["A", "B"]
    assert len(_panels(drd.original_vs_improved(panels))) == 2
    starts = {"random": {"init": "random"}, "sphere packing": {"init": "sphere_packing"}}
    init = exd.compare_dplloyd(blobs, 3, [1.0], starts, runs=2)
    assert len(_panels(drd.init_comparison(init))) == 1


def test_fit_summary_swapped_and_figures(blobs):
    priv = DPLloyd(3, 1.0, bounds=(-1, 1), random_state=0).fit(blobs)
    pub = DPLloyd(3, 1.0, bounds=(-1, 1), n_public=len(blobs), random_state=0).fit(blobs)
    summary = exd.fit_summary({"private": priv, "public": pub})
    assert summary.shape == (6, 2) and "(published)" in summary.loc["N used for the rounds", "public"]
    swapped = exd.swapped_split_table(range(1, 6))
    assert swapped.shape == (5, 3)
    assert len(_panels(drd.swapped_split(swapped))) == 1
    assert len(exd.swapped_split_ledger(3).entries) == 2
    fits = {"DPLloyd": DPLloyd(3, 1.0, bounds=(-1, 1), variant="original", random_state=0).fit(blobs),
            "DPLloyd-Impr": priv}
    assert len(_panels(drd.centroid_paths(blobs, fits, {"DPLloyd": 0.1}))) == 2
    assert len(_panels(drd.versions(blobs, 3, 0.5))) == 2
    X, C = exd.equal_blobs(200, 4, 2, seed=0)
    assert X.shape == (200, 2) and C.shape == (4, 2)
    assert 0 <= exd.cluster_rho(X, np.arange(200) % 4) <= 0.5
    from dpclust_core.kmeans import random_centroids, sphere_packing_centroids
    sp, a = sphere_packing_centroids(5, 2, 1.0, 0, return_radius=True)
    assert len(_panels(drd.initial_centroids(blobs, random_centroids(5, 2, 1.0, 0), sp, a))) == 2


# ------------------------------------------------------------------------------------------- chapter 9
@pytest.fixture(scope="module")
def lk(s1_small):
    est = DPLloyd(15, 0.5, bounds=(-1, 1), variant="lee_kifer", random_state=0).fit(s1_small)
    from dpclust_core.postprocess import MCMCPostprocessor, Transcript
    tr = Transcript.from_dplloyd(est)
    pp = MCMCPostprocessor(500, random_state=0).fit(tr)
    return est, tr, pp


def test_one_run_summaries_and_figures(s1_small, lk):
    est, tr, pp = lk
    Z = tr.to_domain(s1_small)
    assert exm.transcript_summary(est, tr).shape == (6, 1)
    table, cs = exm.consistency_table(tr)
    assert table.shape == (tr.n_rounds + 1, 2)
    assert abs(table.attrs["moved"] - table.attrs["lower_bound"]) <= 1e-6 * max(1.0, table.attrs["lower_bound"])
    assert exm.sampler_summary(pp, -1.0).shape == (9, 1)
    assert 0.0 <= exm.outside_share(pp) <= 1.0
    gap = exm.per_round_fit({"real": Z, "start": pp.initial_dataset_, "best": pp.best_dataset_}, tr, "real")
    assert gap.shape == (tr.n_rounds, 2)
    assert len(_panels(drm.transcript(Z, tr, 0.5))) == 1
    assert len(_panels(drm.trace(pp, -1.0))) == 2
    assert len(_panels(drm.datasets(Z, pp))) == 2
    assert len(_panels(drm.per_round_gap(gap))) == 1
    assert len(_panels(drm.centres(Z, tr, pp, "t"))) == 1
    assert exm.non_private_wcss(Z, 15, n_init=1) > 0


def test_paired_runs_tables_ablation_and_figures(s1_small):
    runs, fits = exm.paired_runs(s1_small, 15, [0.5, 1.0], seeds=[0, 1], n_steps=200)
    assert runs.shape == (12, 5) and set(runs.method) == set(exm.METHODS)
    assert set(fits) == {(0.5, 0), (0.5, 1), (1.0, 0), (1.0, 1)}
    assert exm.mean_table(runs, 10.0).shape == (2, 4)
    wins = exm.wins_table(runs)
    assert wins.shape == (2, 4) and wins["MCMC lower in"].str.endswith("of 2").all()
    abl = exm.ablation(s1_small, 15, 0.5, fits, seeds=[0], n_steps=200)
    assert abl.shape == (7, 1)
    assert len(_panels(drm.ablation(abl, "t"))) == 1
    assert len(_panels(drm.headline({"a": (runs, 10.0, True), "b": (runs, 10.0, False)}))) == 2
    imp = exm.improved_runs(s1_small, 15, [1.0], n_steps=200)
    assert imp.shape == (1, 5)


def test_toy_histogram_and_figure():
    h = exm.toy_histogram(["marginal", "none"], n_steps=2000, bins=5)
    assert h.shape == (5, 3) and abs(h["target"].sum() - 1) < 1e-9 and set(h.attrs["tv"]) == {"marginal", "none"}
    assert isinstance(h, pd.DataFrame)
    assert len(_panels(drm.toy(h))) == 1
