"""Tests of dpclust_core.datasets, dpclust_core.preprocessing, dpclust_book.datasets, dpclust_core.metrics and the array checks of dpclust_core._validation."""
import numpy as np
import pytest

from dpclust_core._validation import check_bounds, check_data, check_n_clusters, check_positive_int
from dpclust_book.datasets import make_blobs_ratio, make_s1_like
from dpclust_core.preprocessing import clip_to_domain, scale_to_domain, unscale_from_domain
from dpclust_core.metrics import assign, nicv, squared_distances, wcss


# ------------------------------------------------------------------ generators
@pytest.mark.parametrize("n,k,d", [(1000, 3, 2), (5000, 5, 4), (10, 10, 1)])
def test_make_blobs_ratio_sizes_and_domain(n, k, d):
    X, y, C = make_blobs_ratio(n, k, d, n_outliers=7, random_state=0, return_centers=True)
    assert X.shape == (n + 7, d) and y.shape == (n + 7,) and C.shape == (k, d)
    assert np.all(np.abs(X) <= 1.0)
    sizes = np.bincount(y[y >= 0], minlength=k)
    w = np.arange(1, k + 1)
    expected = np.floor(n * w / w.sum()).astype(int)
    expected[-1] += n - expected.sum()
    assert np.array_equal(sizes, expected)
    assert np.sum(y == -1) == 7
    # the points of each cluster sit around its centre
    for j in range(k):
        if sizes[j] >= 20:
            assert np.linalg.norm(X[y == j].mean(axis=0) - C[j]) < 0.1


def test_make_blobs_ratio_reproducible_default_outliers_and_radius():
    a = make_blobs_ratio(500, 4, 3, random_state=42)
    b = make_blobs_ratio(500, 4, 3, random_state=42)
    c = make_blobs_ratio(500, 4, 3, random_state=43)
    assert np.array_equal(a[0], b[0]) and np.array_equal(a[1], b[1])
    assert not np.array_equal(a[0][:100], c[0][:100])
    n_out = [np.sum(make_blobs_ratio(100, 2, random_state=s)[1] == -1) for s in range(20)]
    assert all(0 <= m <= 100 for m in n_out) and len(set(n_out)) > 5
    X, _ = make_blobs_ratio(300, 3, 2, r=5.0, random_state=1)
    assert np.all(np.abs(X) <= 5.0) and np.abs(X).max() > 1.0


def test_make_blobs_ratio_bad_input():
    with pytest.raises(ValueError, match="n_clusters"):
        make_blobs_ratio(5, 6)
    with pytest.raises(ValueError, match="n_clusters"):
        make_blobs_ratio(50, 0)
    with pytest.raises(ValueError, match="separation"):
        make_blobs_ratio(50, 2, separation=1.5)
    with pytest.raises(ValueError, match="n_outliers"):
        make_blobs_ratio(50, 2, n_outliers=-1)
    with pytest.raises(ValueError, match="n_features"):
        make_blobs_ratio(50, 2, 0)
    with pytest.raises(ValueError, match="rng|random_state"):
        make_blobs_ratio(50, 2, random_state="x")
    for r in (0.0, -1.0, np.inf):
        with pytest.raises(ValueError, match="r must"):
            make_blobs_ratio(50, 2, r=r)


def test_make_s1_like():
    X, y, C = make_s1_like(random_state=0, return_centers=True)
    assert X.shape == (5000, 2) and C.shape == (15, 2)
    assert np.all(np.abs(X) <= 1.0)
    sizes = np.bincount(y)
    assert sizes.size == 15 and sizes.min() >= 333 and sizes.max() <= 334
    X2, y2 = make_s1_like(1000, random_state=0)
    assert X2.shape == (1000, 2)
    assert np.array_equal(make_s1_like(200, random_state=5)[0], make_s1_like(200, random_state=5)[0])
    # well separated: nearest-centre assignment recovers most labels
    assert np.mean(assign(X, C) == y) > 0.9
    with pytest.raises(ValueError, match="n_samples"):
        make_s1_like(14)


# ------------------------------------------------------------------ domain scaling
def test_scale_to_domain_maps_bounds_and_round_trips():
    bounds = [(0.0, 10.0), (-5.0, 5.0)]
    X = np.array([[0.0, -5.0], [10.0, 5.0], [5.0, 0.0], [2.5, 1.0]])
    Z = scale_to_domain(X, bounds)
    assert np.allclose(Z[:3], [[-1, -1], [1, 1], [0, 0]])
    assert np.allclose(unscale_from_domain(Z, bounds), X)
    Z3 = scale_to_domain(X, bounds, r=3.0)
    assert np.allclose(Z3, 3 * Z)
    assert np.allclose(unscale_from_domain(Z3, bounds, r=3.0), X)


def test_scale_and_clip_count_outliers():
    X = np.array([[0.5, 0.5], [2.0, 0.0], [-3.0, -3.0], [1.0, 1.0]])
    Xc, n = clip_to_domain(X, (-1.0, 1.0))
    assert n == 2 and np.array_equal(Xc[1], [1.0, 0.0]) and np.array_equal(Xc[2], [-1.0, -1.0])
    Z, n2 = scale_to_domain(X, (0.0, 1.0), return_n_clipped=True)
    assert n2 == 2 and np.all(np.abs(Z) <= 1.0)
    assert np.array_equal(X[1], [2.0, 0.0])  # input not modified


@pytest.mark.parametrize("r", [0.0, -1.0, np.nan, np.inf])
def test_scale_bad_r(r):
    with pytest.raises(ValueError, match="r must"):
        scale_to_domain(np.zeros((2, 2)), (-1, 1), r=r)


# ------------------------------------------------------------------ validation of arrays
def test_check_bounds_forms():
    lo, hi = check_bounds((-1, 2), 3)
    assert np.array_equal(lo, [-1, -1, -1]) and np.array_equal(hi, [2, 2, 2])
    lo, hi = check_bounds(([0, 1], [2, 3]), 2)
    assert np.array_equal(lo, [0, 1]) and np.array_equal(hi, [2, 3])
    lo, hi = check_bounds([[0, 2], [1, 3], [5, 6]], 3)
    assert np.array_equal(lo, [0, 1, 5]) and np.array_equal(hi, [2, 3, 6])
    # a 2x2 input: (lows, highs) when that reading is valid, else one (low, high) row per dimension
    lo, hi = check_bounds(([0, 1], [3, 4]), 2)
    assert np.array_equal(lo, [0, 1]) and np.array_equal(hi, [3, 4])
    lo, hi = check_bounds([(0, 10), (-5, 5)], 2)
    assert np.array_equal(lo, [0, -5]) and np.array_equal(hi, [10, 5])


@pytest.mark.parametrize("bounds,nf", [((1, 1), 2), ((2, 1), 2), (([0, 1], [1, 1]), 2), ([[0, 1], [3, 2], [4, 5]], 3),
                                       ((0, np.inf), 2), ((np.nan, 1), 1), (None, 2), ("ab", 2),
                                       ([[0, 1], [0, 1], [0, 1]], 2), ((0, 1, 2), 3)])
def test_check_bounds_rejects(bounds, nf):
    with pytest.raises(ValueError, match="bounds"):
        check_bounds(bounds, nf)


def test_scale_to_domain_rejects_low_ge_high():
    with pytest.raises(ValueError, match="bounds"):
        scale_to_domain(np.zeros((3, 2)), [(0, 1), (1, 1)])


@pytest.mark.parametrize("X,msg", [([[1.0, np.nan]], "NaN"), ([[np.inf, 0.0]], "NaN or infinite"),
                                   ([1.0, 2.0], "2-D"), (np.zeros((0, 2)), "empty"),
                                   (np.zeros((2, 2, 2)), "2-D"), ([["a", "b"]], "numeric")])
def test_check_data_rejects(X, msg):
    with pytest.raises(ValueError, match=f"X.*{msg}|{msg}.*X|X"):
        check_data(X)
    with pytest.raises(ValueError, match=msg):
        check_data(X)


def test_check_data_features_and_name():
    with pytest.raises(ValueError, match="centers has 3 features, expected 2"):
        check_data(np.zeros((2, 3)), "centers", n_features=2)
    assert check_data([[1, 2]]).dtype == float


def test_check_n_clusters_and_positive_int():
    assert check_n_clusters(3, 10) == 3 and check_n_clusters(np.int64(10), 10) == 10
    for bad in (0, -1, 2.0, True, "3", None):
        with pytest.raises(ValueError, match="n_clusters"):
            check_n_clusters(bad, 10)
    with pytest.raises(ValueError, match="n_clusters"):
        check_n_clusters(11, 10)
    assert check_positive_int(0, "m", minimum=0) == 0
    with pytest.raises(ValueError, match="m must"):
        check_positive_int(-1, "m", minimum=0)


# ------------------------------------------------------------------ metrics
def test_nicv_and_wcss_hand_example():
    X = np.array([[0.0, 0.0], [2.0, 0.0], [10.0, 0.0], [10.0, 4.0]])
    C = np.array([[1.0, 0.0], [10.0, 1.0]])
    # squared distances to the nearest centre: 1, 1, 1, 9
    assert wcss(X, C) == pytest.approx(12.0, rel=1e-12)
    assert nicv(X, C) == pytest.approx(3.0, rel=1e-12)
    assert np.array_equal(assign(X, C), [0, 0, 1, 1])


def test_metrics_match_brute_force():
    rng = np.random.default_rng(0)
    X, C = rng.normal(size=(300, 5)), rng.normal(size=(7, 5))
    brute = ((X[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
    assert np.allclose(squared_distances(X, C), brute, atol=1e-12)
    assert np.all(squared_distances(X, X[:3]) >= 0)
    assert nicv(X, C) == pytest.approx(brute.min(axis=1).mean(), rel=1e-12)
    assert wcss(X, C) == pytest.approx(X.shape[0] * nicv(X, C), rel=1e-12)
    assert np.array_equal(assign(X, C), brute.argmin(axis=1))


def test_assign_ties_go_to_lowest_index():
    assert np.array_equal(assign(np.array([[0.0], [1.0]]), np.array([[-1.0], [1.0], [1.0]])), [0, 1])


def test_metrics_bad_input():
    with pytest.raises(ValueError, match="centers has 3 features but X has 2"):
        nicv(np.zeros((4, 2)), np.zeros((2, 3)))
    with pytest.raises(ValueError, match="X"):
        wcss(np.array([[np.nan, 0.0]]), np.zeros((1, 2)))
    with pytest.raises(ValueError, match="centers"):
        nicv(np.zeros((4, 2)), np.array([[np.inf, 0.0]]))


# ------------------------------------------------------------------ issue 10/11: validation, kernels, ground floor
def test_metrics_never_return_nan_on_nan_input():
    from dpclust_book.evaluation import dsg_c, k_relative_error, ocm, rand_index, two_ce

    X = np.zeros((5, 2))
    bad = X.copy()
    bad[2, 1] = np.nan
    for fn in (nicv, wcss, assign, squared_distances):
        with pytest.raises(ValueError, match="X"):
            fn(bad, X[:2])
        with pytest.raises(ValueError, match="centers"):
            fn(X, bad[1:3])
        with pytest.raises(ValueError, match="centers"):
            fn(X, np.zeros(2))  # 1-D centres: a shape error naming the argument, not a numpy message
    lab = np.array([0.0, 1.0, np.nan])
    for fn in (ocm, rand_index, two_ce):
        with pytest.raises(ValueError, match="pred_t"):
            fn(lab, np.zeros(3))
        with pytest.raises(ValueError, match="pred_p"):
            fn(np.zeros(3), np.array(["a", "b", "c"]))
    with pytest.raises(ValueError, match="private_grid_labels"):
        dsg_c(np.zeros((2, 2)), np.full((2, 2), np.nan))
    with pytest.raises(ValueError, match="true_grid_labels"):  # DSG_C is undefined without true clusters
        dsg_c(np.full((2, 2), -1), np.zeros((2, 2)))
    assert dsg_c(np.full((2, 2), -1), np.full((2, 2), -1)) == 0.0
    with pytest.raises(ValueError, match="k_prime"):
        k_relative_error(np.array([np.nan]), 10)
    with pytest.raises(ValueError, match="k must"):
        k_relative_error(5, 0)


def test_metrics_use_the_chunked_kernels(monkeypatch):
    # a small block size forces many blocks: the answers must not change, and no n x k x d array is built
    from dpclust_core import _kernels

    rng = np.random.default_rng(1)
    X, C = rng.normal(size=(5000, 3)), rng.normal(size=(9, 3))
    ref = (nicv(X, C), wcss(X, C), assign(X, C), squared_distances(X, C))
    monkeypatch.setattr(_kernels, "_BLOCK_ELEMS", 64)
    assert nicv(X, C) == pytest.approx(ref[0], rel=1e-12)
    assert wcss(X, C) == pytest.approx(ref[1], rel=1e-12)
    assert np.array_equal(assign(X, C), ref[2])
    np.testing.assert_allclose(squared_distances(X, C), ref[3], rtol=1e-12, atol=1e-12)


def test_metrics_is_the_ground_floor():
    import ast
    import pathlib

    import dpclust_core.metrics as m

    tree = ast.parse(pathlib.Path(m.__file__).read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    imported |= {a.name for node in ast.walk(tree) if isinstance(node, ast.Import) for a in node.names}
    assert imported <= {"__future__", "numpy", "scipy.optimize", None, "_kernels", "_validation"}, imported


def test_scaling_validates_once_and_uses_the_kernel():
    from dpclust_core import _kernels

    rng = np.random.default_rng(2)
    X = rng.uniform(-3, 3, size=(200, 2))
    low, high = np.array([-1.0, 0.0]), np.array([2.0, 5.0])
    np.testing.assert_array_equal(scale_to_domain(X, (low, high), r=2.0), _kernels.scale_into(X, low, high, 2.0))
    Z = scale_to_domain(X, (low, high))
    np.testing.assert_array_equal(unscale_from_domain(Z, (low, high)), _kernels.unscale_from(Z, low, high))
    for bad in ("1", True, np.nan, 0.0):
        with pytest.raises(ValueError, match="r"):
            scale_to_domain(X, (low, high), r=bad)
    # an overflowing scale is refused at the door, never inf/NaN: r is at most 1e6 and a width at least 1e-100
    with pytest.raises(ValueError, match="r must be <= 1000000"):
        scale_to_domain(X, (0.0, 1.0), r=1e300)
    with pytest.raises(ValueError, match="bounds: a width"):
        scale_to_domain(X, (0.0, 1e-300), r=1.0)
    with pytest.raises(ValueError, match="Z"):
        unscale_from_domain(np.array([[1e300, 0.0]]), (0.0, 1e10))
    with pytest.raises(ValueError, match="return_n_clipped"):
        scale_to_domain(X, (low, high), return_n_clipped="yes")


@pytest.mark.parametrize("name", ["make_blobs_ratio", "make_s1_like", "make_tiger_like", "make_gowalla_like",
                                  "make_image_like", "make_adult_num_like", "make_lifesci_like", "make_ds1_like",
                                  "make_ds2_like", "make_ds3_like"])
def test_generators_take_random_state_and_refuse_bad_seeds(name):
    import dpclust_book.datasets as data

    fn = getattr(data, name)
    n = 800
    a = fn(n, random_state=5)
    b = fn(n, random_state=np.random.default_rng(5))
    np.testing.assert_array_equal(a[0], b[0])  # an int seed and a Generator seeded alike give the same data
    for bad in (True, -1, 1.5, "seed", np.random.RandomState(0)):
        with pytest.raises(ValueError, match="random_state"):
            fn(n, random_state=bad)
    with pytest.raises(ValueError, match="n_samples"):
        fn(2**40, random_state=0)  # above the public allocation cap: refused before allocating


def test_make_blobs_ratio_caps_and_types():
    with pytest.raises(ValueError, match="n_clusters"):
        make_blobs_ratio(10**6, 10**5, random_state=0)  # the rejection placement is quadratic in k
    for bad in ("0.2", True, np.nan):
        with pytest.raises(ValueError, match="separation"):
            make_blobs_ratio(50, 2, separation=bad)
    with pytest.raises(ValueError, match="return_centers"):
        make_blobs_ratio(50, 2, return_centers="yes")


def test_costs_that_overflow_are_refused():
    """Data of magnitude 1e300 made nicv and wcss return inf silently."""
    X = np.array([[1e300, 0.0], [-1e300, 0.0]])
    for fn in (nicv, wcss):
        with pytest.raises(ValueError, match="overflows"):
            fn(X, [[0.0, 0.0]])
    assert wcss([[1e150, 0.0]], [[0.0, 0.0]]) == pytest.approx(1e300)  # large but finite: still computed


def test_dplloyd_mse_refuses_an_epsilon_whose_model_overflows():
    from dpclust_core._validation import EpsilonTooSmallError
    from dpclust_core.kmeans import dplloyd_mse

    with pytest.raises(EpsilonTooSmallError, match="epsilon"):
        dplloyd_mse(1000, 2, 3, epsilon=1e-300)
    assert np.isfinite(dplloyd_mse(1000, 2, 3, epsilon=1e-100))


def test_f_measure_matches_its_definition_by_brute_force():
    """Eq. (wc-fmeasure) computed pair by pair over the clusters equals the vectorised metric, with -1 (no
    cluster) on both sides; a perfect relabelling scores 1, nothing found scores 0."""
    from dpclust_core.metrics import f_measure
    rng = np.random.default_rng(7)
    for _ in range(20):
        t, p = rng.integers(-1, 4, size=300), rng.integers(-1, 6, size=300)
        T = [set(np.flatnonzero(t == a)) for a in np.unique(t[t >= 0])]
        P = [set(np.flatnonzero(p == b)) for b in np.unique(p[p >= 0])]
        n = sum(len(A) for A in T)
        ref = sum(len(A) / n * max(2 * len(A & B) / (len(A) + len(B)) for B in P) for A in T)
        assert f_measure(t, p) == pytest.approx(ref, rel=1e-12)
    assert f_measure([0, 0, 1, 1, -1], [4, 4, 9, 9, 4]) == pytest.approx(1 - 0.5 * (1 - 4 / 5))
    assert f_measure([0, 1, 2], [7, 8, 9]) == 1.0 and f_measure([0, 1], [-1, -1]) == 0.0
    with pytest.raises(ValueError, match="true_labels"):
        f_measure([-1, -1], [0, 1])
    with pytest.raises(ValueError, match="same length"):
        f_measure([0, 1], [0, 1, 1])
