"""The figures and experiment loops of chapters 1 (DP basics) and 5 (the Sparse Vector Technique) run on small
inputs and return figures of at most two panels a row and tables of the expected shape."""
import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402

from dpclust_core import svt  # noqa: E402
from dpclust_book.experiments import basics as ex  # noqa: E402
from dpclust_book import svt_exact  # noqa: E402
from dpclust_book.experiments import svt as svt_ex  # noqa: E402
from dpclust_book.plots import basics as draw1  # noqa: E402
from dpclust_book.plots import svt as draw5  # noqa: E402
from dpclust_book.plots._layout import NARROW, smallest_text_px  # noqa: E402


def _phone_readable(fig):
    """A stacked (narrow) figure keeps every text at 9 pt (12 px) or more when shown 368 px wide on a phone."""
    if fig.get_figwidth() == pytest.approx(NARROW):
        assert smallest_text_px(fig) >= 12.0 - 1e-9, smallest_text_px(fig)


def _panels_per_row(fig):
    rows = {}
    for ax in fig.axes:
        spec = ax.get_subplotspec()
        if spec is not None:
            rows.setdefault(spec.rowspan.start, set()).add(spec.colspan.start)
    return max(len(v) for v in rows.values())


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# ----------------------------------------------------------------------------------------------- chapter 1
def test_randomized_response_is_local_dp():
    freq = ex.randomized_response_frequencies(1.0, 20_000, rng=0)
    assert freq.shape == (2, 2) and np.allclose(freq.sum(axis=1), 1.0)
    assert abs(freq.loc[1, "report 1"] / freq.loc[0, "report 1"] - np.e) < 0.3
    assert _panels_per_row(draw1.randomized_response(freq, 1.0)) == 1


def test_chapter1_tables_have_the_expected_shape():
    assert ex.laplace_error_summary(np.zeros(100), 0.0, 1.0).shape == (2, 2)
    assert ex.postprocessing_rmse([0, 1, 2], 0.5, n_reps=50, rng=0).shape == (3, 3)
    split = ex.budget_split_errors(100, 30.0, 1.0, 0.2, [0.2, 0.5], n_reps=50, rng=0)
    assert list(split.columns) == ["share on the count", "median error"] and len(split) == 2
    assert ex.parallel_vs_sequential([1, 4], 0.5, n_reps=20, rng=0).shape == (2, 3)
    g = ex.gaussian_calibrations([0.5, 1.0], 1e-5)
    assert g.shape == (2, 4) and np.isnan(g.loc[1, "classic"])
    assert ex.em_best_probability([3.0, 1.0], [0.1, 1.0]).shape == (2, 3)
    assert ex.max_log_ratio(1.0, 0.5) == 2.0
    sweep = ex.audit_noise_sweep([0.5, 1.0], 1.0, np.ones(10), np.ones(11), n_samples=2000, rng=0)
    assert sweep.shape == (2, 4)
    res = {"a": svt_exact.audit_variant("stoddard_2014", [0, 1], [1, 0], 0.0, 1.0, 1, n_samples=500, rng=0)}
    assert ex.audit_table(res).shape == (1, 3)


def test_float_attack_table_counts_the_event():
    y = np.array([1.5, 2.5, 5.0, 6.0])
    tab = ex.float_attack_table({("textbook", 5): y, ("package", 5): np.full(3, 5.0)})
    assert list(tab.columns) == ["in (1, 2)", "odd × 2⁻⁵¹", "attack event"]
    assert tab.loc[("textbook", 5), "in (1, 2)"] == 1 and tab["attack event"].sum() == 0
    assert ex.float_attack(np.array([5.0])).dtype == bool


def test_chapter1_figures_are_at_most_two_panels_wide():
    curve = ex.gaussian_calibrations([0.5, 1.0, 2.0], 1e-5)
    em = ex.em_best_probability([3.0, 2.0, 1.0], [0.1, 0.5])
    figs = [
        draw1.local_changes(np.linspace(0, 1, 50), 1.0),
        draw1.laplace_release(np.zeros(100) + 10, 10.0, 0.5),
        draw1.histogram_release(["a", "b"], [3, 4], [3.5, 4.2], 0.5),
        draw1.gaussian_calibrations(curve, 1e-5),
        draw1.exponential_choices(["a", "b", "c"], [0.5, 0.3, 0.2], [0.6, 0.3, 0.1], [0.6, 0.3, 0.1], 0.1, em),
        draw1.postprocessing(ex.postprocessing_rmse([0, 1], 0.5, n_reps=20, rng=0), 0.5),
        draw1.budget_split(pd.DataFrame({"share on the count": [0.2, 0.5], "median error": [0.1, 0.2]}), 0.2, 100),
        draw1.parallel_composition(ex.parallel_vs_sequential([1, 2], 0.5, n_reps=10, rng=0), 0.5),
        draw1.neighbour_densities(1.0, 0.5),
        draw1.neighbour_densities_pair(1.0),
        draw1.audit_sweep(pd.DataFrame({"noise factor": [0.5, 1.0], "true epsilon": [2.0, 1.0],
                                        "p-value": [0.0, 0.5], "lower bound": [1.8, 0.9]}), 1.0),
    ]
    for fig in figs:
        assert isinstance(fig, plt.Figure) and 1 <= _panels_per_row(fig) <= 2
        assert fig.get_figwidth() in (pytest.approx(7.0), pytest.approx(NARROW))
        _phone_readable(fig)


def test_table_formats_only_numbers_in_the_index():
    df = pd.DataFrame({"x": [0.12345]}, index=pd.MultiIndex.from_tuples([(0.1, "ours")]))
    html = draw1.table(df, "{:.2f}", index_fmt="{:g}").to_html()
    assert "0.12" in html and "ours" in html and "0.1" in html


# ----------------------------------------------------------------------------------------------- chapter 5
def test_variant_table_lists_every_version():
    t = svt_ex.variant_table()
    assert len(t) == len(svt.VARIANTS) == 8 and (t["private as claimed"] == "no").sum() == 5
    assert t.shape[1] == 10


def test_outputs_table_uses_symbols():
    df = svt_ex.outputs_table([[0.0, 1.0, np.nan], [2.5, 0.0, 0.0]])
    assert df.shape == (2, 3) and df.iloc[0].tolist() == ["⊥", "⊤", "·"] and df.iloc[1, 0] == "2.5"


def test_pinned_losses_and_limits():
    df = svt_ex.pinned_losses([0, 10], 1.0, cs=[1, 2])
    assert df.shape == (12, 4)
    assert svt_ex.pinned_loss("lee_clifton_2014", 10, 1) == pytest.approx(1.7449, abs=1e-4)
    assert svt_ex.pinned_limit("lee_clifton_2014", 1.0, 2) == 3.25
    assert svt_ex.pinned_limit("lee_clifton_2014", 1.0, 2, monotone=True) == 1.5


def test_chapter5_experiments_have_the_expected_shape():
    answers = np.r_[np.full(2, 120.0), np.arange(0, 80, 10.0)]
    configs = {"Lyu–Su–Li": ("lyu_su_li", {}), "standard SVT": ("standard", {"monotonic": True})}
    p_top, found = svt_ex.worked_example(answers, 100.0, 1.0, 2, configs, n_runs=200, rng=0)
    assert p_top.shape == (10, 3) and found.shape == (2, 2)
    leak = svt_ex.released_value_losses([2, 4], 1.0, mc_ells=(2,), n_runs=2000, rng=0)
    assert leak.shape == (2, 4) and np.isnan(leak.loc[1, "Monte Carlo"])
    assert np.allclose(leak["exact"], [0.5, 1.5])
    assert svt_ex.gptt_pairs([1, 2]).shape == (2, 2)
    arg = svt_ex.gptt_argument([1, 5])
    assert arg.shape == (4, 5) and set(arg["kind"]) == {"gptt", "lyu_su_li"}
    views = {"stoddard_2014": svt_ex.three_views("stoddard_2014", 1.0, n_mc=500, n_audit=500, rng=0)}
    assert svt_ex.views_table(views).shape == (1, 7)


def test_zipf_tables():
    settings = [(0.5, 5)]
    scores = svt_ex.zipf_scores(300, 30_000)
    zipf = svt_ex.zipf_experiment(settings, ["EM"], n_runs=5, rng=0, scores=scores)
    zipf[(0.5, 5)].update({m: (0.5, 0.1, 0.5) for m in svt_ex.ZIPF_METHODS if m != "EM"})
    svt_ex.THESIS_ZIPF_SER.setdefault((0.5, 5), svt_ex.THESIS_ZIPF_SER[(0.5, 50)])
    try:
        table = svt_ex.zipf_table(zipf, settings)
        assert table.shape == (9, 2)
        agree = svt_ex.zipf_agreement(zipf, settings, n_runs=5)
        assert len(agree) == 8 and {"ours", "thesis", "z"} <= set(agree.columns)
        fig = draw5.zipf_ser(zipf, settings * 4, n_runs=5)
        assert _panels_per_row(fig) == 1  # four panels stacked: readable on a phone
        _phone_readable(fig)
    finally:
        svt_ex.THESIS_ZIPF_SER.pop((0.5, 5))


def test_chapter5_figures_are_at_most_two_panels_wide():
    v = svt_ex.three_views("stoddard_2014", 1.0, n_mc=500, n_audit=500, rng=0)
    p_top = pd.DataFrame({"answer": [1.0, 120.0], "Lyu–Su–Li": [0.0, 0.9]})
    figs = [
        draw5.worked_example(p_top, 100.0, 1.0, 1, {"Lyu–Su–Li": "lyu_su_li"}),
        draw5.impossible_output(v),
        draw5.released_value_leak(svt_ex.released_value_losses([2, 3], 1.0), 1.0),
        draw5.pinned_threshold(svt_ex.pinned_losses([0, 10], 1.0, cs=[1]), 1.0, cs=[1]),
        draw5.pinned_frame(1.0, 2, ms=[0, 10]),
        draw5.gptt_argument(svt_ex.gptt_argument([1, 5])),
        draw5.budget_split(cs=(1, 10)),
    ]
    for fig in figs:
        assert isinstance(fig, plt.Figure) and 1 <= _panels_per_row(fig) <= 2
        assert fig.get_figwidth() in (pytest.approx(7.0), pytest.approx(NARROW))
        _phone_readable(fig)
