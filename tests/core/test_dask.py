"""DP k-means on a dask.distributed cluster (issue 14).

DPLloyd (three variants), EUGkM, HybridKMeans and choose_k accept a ``dask.array.Array``: the statistics are
reductions computed on the workers, only k x d numbers (or the histogram of the public grid) reach the driver,
and the noise is drawn there, once, through the same mechanisms and the same ledger. For the same seed the fit
on a dask array equals the in-memory fit **exactly**, for any chunking: the per-block statistics are exact
integers (fixed-point coordinates, elementwise distances), so the order of the reduction cannot change a bit.

The module starts its own local cluster (two worker processes, one thread each, loopback only, no dashboard)
and shuts it down at the end.
"""
import importlib

import numpy as np
import pytest

from dpclust_core import PrivacyLedger, _kernels
from dpclust_core._validation import BadTypeError
from dpclust_book.datasets import make_blobs_ratio
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans, MkM, UGkM
lloyd_module = importlib.import_module("dpclust_core.kmeans.lloyd")
from dpclust_core.kmeans.choose_k import choose_k

da = pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")

B = (-2.0, 4.0)


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, host="127.0.0.1")
    cl = distributed.Client(cluster)
    try:
        yield cl
    finally:
        cl.close()
        cluster.close()


@pytest.fixture(scope="module")
def data():
    X, _ = make_blobs_ratio(30_000, 4, 3, random_state=1)
    return X * 3.0 + 1.0  # in the public box B = (-2, 4), a few points outside it (clipped)


def _same_fit(a, b):
    """Every release and every fitted quantity equal, bit for bit."""
    np.testing.assert_array_equal(a.cluster_centers_, b.cluster_centers_)
    assert a.ledger_.rows() == b.ledger_.rows()
    if hasattr(a, "history_"):
        assert len(a.history_) == len(b.history_)
        for ha, hb in zip(a.history_, b.history_):
            for key in ha:
                np.testing.assert_array_equal(ha[key], hb[key], err_msg=key)


# ------------------------------------------------------------------ equality with the in-memory fit
@pytest.mark.parametrize("variant", ["improved", "original", "lee_kifer"])
def test_dplloyd_on_the_cluster_equals_the_in_memory_fit(client, data, variant):
    ref = DPLloyd(4, 1.0, bounds=B, variant=variant, random_state=7).fit(data)
    for chunks in [(len(data), 3), (6_999, 2)]:
        D = da.from_array(data, chunks=chunks).persist()  # blocks on the two workers
        _same_fit(ref, DPLloyd(4, 1.0, bounds=B, variant=variant, random_state=7).fit(D))


@pytest.mark.parametrize("variant", ["improved", "lee_kifer"])
def test_any_chunking_gives_the_same_bits(data, variant):
    """The reduction order cannot matter: many chunkings (uneven blocks, blocks of 13 rows, column blocks) on the
    threaded scheduler give the in-memory release exactly."""
    import dask

    n = len(data)
    ref = DPLloyd(4, 1.0, bounds=B, variant=variant, random_state=11).fit(data)
    with dask.config.set(scheduler="threads"):
        for chunks in [((13,) * 20 + (n - 260,), 3), (1_000, 1), (4_321, 2), ((5, n - 10, 5), (1, 2))]:
            D = da.from_array(data, chunks=chunks)
            _same_fit(ref, DPLloyd(4, 1.0, bounds=B, variant=variant, random_state=11).fit(D))


@pytest.mark.parametrize("chunking", [lambda n: (7_001, 2), lambda n: (n, 3), lambda n: ((13,) * 20 + (n - 260,), 1)],
                         ids=["7001x2", "one block", "uneven"])
def test_grid_hybrid_and_choose_k_on_the_cluster_equal_the_in_memory_fit(client, data, chunking):
    """Any chunking, of rows and of columns: a histogram is a sum of integer counts, and the hybrid's round is
    DPLloyd's exact reduction."""
    D = da.from_array(data, chunks=chunking(len(data))).persist()
    for cls, kw in [(EUGkM, {}), (HybridKMeans, {"policy": "half"}), (HybridKMeans, {"policy": "regression"})]:
        a = cls(4, 1.0, bounds=B, n_init=3, random_state=2, **kw).fit(data)
        b = cls(4, 1.0, bounds=B, n_init=3, random_state=2, **kw).fit(D)
        np.testing.assert_array_equal(a.synopsis_.counts, b.synopsis_.counts)
        _same_fit(a, b)
    h = HybridKMeans(4, 1.0, bounds=B, policy="half", n_init=3, random_state=2).fit(D)
    assert h.used_hybrid_  # the DPLloyd round ran on the workers
    r1 = choose_k(data, 1.0, range(2, 6), bounds=B, n_init=3, random_state=0)
    r2 = choose_k(D, 1.0, range(2, 6), bounds=B, n_init=3, random_state=0)
    assert r1.k_ == r2.k_ and r1.scores_ == r2.scores_
    assert r1.ledger_.rows() == r2.ledger_.rows()


def test_unknown_block_sizes_are_fine(client, data):
    """A dask array filtered by a mask has blocks of unknown length (as from a dask DataFrame): DPLloyd reads N
    off its first round's exact counts; the grid-based estimators measure the blocks' lengths first."""
    D = da.from_array(data, chunks=(5_000, 3))
    U = D[D[:, 0] > -100.0]  # keeps every row, but dask cannot know it
    assert np.isnan(U.shape[0])
    _same_fit(DPLloyd(4, 1.0, bounds=B, random_state=3).fit(data), DPLloyd(4, 1.0, bounds=B, random_state=3).fit(U))
    a = HybridKMeans(4, 1.0, bounds=B, policy="half", n_init=2, random_state=3).fit(data)
    _same_fit(a, HybridKMeans(4, 1.0, bounds=B, policy="half", n_init=2, random_state=3).fit(U))
    for cls in (EUGkM, UGkM, MkM):  # the grid is sized from the noisy N: private N needs the number of rows
        a = cls(4, 1.0, bounds=B, n_init=2, random_state=3).fit(data)
        _same_fit(a, cls(4, 1.0, bounds=B, n_init=2, random_state=3).fit(U))
    r1 = choose_k(data, 1.0, range(2, 5), bounds=B, n_init=2, random_state=3)
    r2 = choose_k(U, 1.0, range(2, 5), bounds=B, n_init=2, random_state=3)
    assert r1.k_ == r2.k_ and r1.scores_ == r2.scores_ and r1.ledger_.rows() == r2.ledger_.rows()


# ------------------------------------------------------------------ what reaches the driver
def test_only_statistics_reach_the_driver(client, monkeypatch):
    """X generated on the workers is never turned into a NumPy array on the driver: every computed result is a
    vector of k (d + 1) statistics (two int64 limbs each), the histogram of the public grid, or a count."""
    computed = []
    real_compute = da.Array.compute

    def spy(self, **kw):
        computed.append(self.shape)
        return real_compute(self, **kw)

    def forbidden(self, *a, **kw):
        raise AssertionError("the raw data were converted to a NumPy array on the driver")

    monkeypatch.setattr(da.Array, "compute", spy)
    monkeypatch.setattr(da.Array, "__array__", forbidden)
    X = da.random.default_rng(0).uniform(-1.0, 1.0, size=(200_000, 3), chunks=(50_000, 3))
    k, d = 5, 3
    est = DPLloyd(k, 1.0, bounds=(-1.0, 1.0), random_state=0).fit(X)
    assert computed and all(len(s) == 1 and s[0] == 2 * k * (d + 1) for s in computed), computed
    assert len(computed) == est.n_iter_  # one reduction per round (the first also checks the values)
    computed.clear()
    EUGkM(k, 1.0, bounds=(-1.0, 1.0), n_init=2, random_state=0).fit(X)
    assert len(computed) == 1 and len(computed[0]) == 1  # one histogram, over the public grid


def test_noise_is_drawn_once_on_the_driver(client, data, monkeypatch):
    """The mechanisms run in this process (the workers never draw noise): two calls per round, on (k,) and (k, d)
    statistics, in the same order as for NumPy data."""
    calls = []
    real = lloyd_module.laplace_mechanism

    def spy(value, *a, **kw):
        calls.append(np.shape(value))
        return real(value, *a, **kw)

    monkeypatch.setattr(lloyd_module, "laplace_mechanism", spy)
    est = DPLloyd(4, 1.0, bounds=B, variant="original", random_state=0).fit(da.from_array(data, chunks=(7_000, 3)))
    assert calls == [(4,), (4, 3)] * est.n_iter_


# ------------------------------------------------------------------ validation without computing X
def test_nan_is_found_by_the_workers_before_any_noise(client, data):
    bad = data.copy()
    bad[12_345, 1] = np.nan
    inf = data.copy()
    inf[3, 0] = np.inf
    for arr in (bad, inf):
        D = da.from_array(arr, chunks=(4_000, 3))
        shared = PrivacyLedger(budget_epsilon=10.0)
        with pytest.raises(ValueError, match="X contains NaN or infinite"):
            DPLloyd(4, 1.0, bounds=B, random_state=0, ledger=shared).fit(D)
        assert shared.epsilon == 0.0  # the first pass over the data comes before the noisy N
        for cls in (EUGkM, UGkM, MkM, HybridKMeans):  # every grid estimator reads X in full before its noisy N
            shared = PrivacyLedger(budget_epsilon=10.0)
            with pytest.raises(ValueError, match="X contains NaN or infinite"):
                cls(4, 1.0, bounds=B, n_init=2, ledger=shared).fit(D)
            assert shared.epsilon == 0.0 and len(shared) == 0, cls.__name__
        shared = PrivacyLedger(budget_epsilon=10.0)
        with pytest.raises(ValueError, match="X contains NaN or infinite"):
            choose_k(D, 1.0, range(2, 5), bounds=B, n_init=2, ledger=shared)
        assert shared.epsilon == 0.0 and len(shared) == 0


def test_bad_dask_input_is_refused_without_computing(client):
    ok = da.zeros((100, 2), chunks=50)
    with pytest.raises(BadTypeError, match="X"):
        DPLloyd(2, 1.0, bounds=(-1, 1)).fit(ok.astype(complex))
    with pytest.raises(BadTypeError, match="X"):
        DPLloyd(2, 1.0, bounds=(-1, 1)).fit(ok > 0)
    with pytest.raises(ValueError, match="1-D"):
        DPLloyd(2, 1.0, bounds=(-1, 1)).fit(ok[:, 0])
    with pytest.raises(ValueError, match="empty"):
        DPLloyd(2, 1.0, bounds=(-1, 1)).fit(ok[:0])
    with pytest.raises(ValueError, match="features"):
        DPLloyd(2, 1.0, bounds=(-1, 1), init=np.zeros((2, 3))).fit(ok)


def test_predict_takes_numpy_and_says_how_to_predict_lazily(client, data):
    D = da.from_array(data, chunks=(10_000, 3))
    est = DPLloyd(4, 1.0, bounds=B, random_state=0).fit(D)
    with pytest.raises(BadTypeError, match="map_blocks"):
        est.predict(D)
    lazy = D.map_blocks(est.predict, drop_axis=1, dtype=np.int64)
    np.testing.assert_array_equal(lazy.compute(), est.predict(data))


# ------------------------------------------------------------------ the exact statistics (no cluster needed)
def test_round_statistics_are_the_same_bits_for_any_order_or_partition():
    rng = np.random.default_rng(0)
    Z = rng.uniform(-1.5, 1.5, size=(5_000, 4))
    Z[:100] = np.round(Z[:100], 1)  # many exact ties between centroids
    C = np.array([[0.0, 0.0, 0.0, 0.0], [0.5, 0.5, 0.5, 0.5], [0.5, 0.5, 0.5, 0.5], [-0.5, 0.0, 0.5, 0.0]])
    ref = lloyd_module._exact_stats(Z, C, 1.5)
    for _ in range(3):
        perm = rng.permutation(len(Z))
        cuts = np.sort(rng.choice(len(Z), size=7, replace=False))
        parts = sum(lloyd_module._exact_stats(p, C, 1.5) for p in np.split(Z[perm], cuts))
        assert (parts == ref).all()
    counts, sums = lloyd_module._round_statistics(Z, C, 1.5)
    assert counts.sum() == len(Z) and counts[2] == 0  # ties go to the lowest index
    lab = np.argmin(((Z[:, None, :] - C[None]) ** 2).sum(axis=2), axis=1)
    exact = np.stack([Z[lab == j].sum(axis=0) for j in range(4)])
    np.testing.assert_allclose(sums, exact, rtol=0, atol=len(Z) * 1.5 * 2.0**-32)


def test_fixed_point_never_grows_a_coordinate_or_an_l1_norm():
    """Rounding toward zero keeps every coordinate within [-r, r] and every point of the unit L1 ball inside it,
    so the sensitivities (r per coordinate; 1 for Lee & Kifer's L1 ball) hold exactly for the released sums."""
    rng = np.random.default_rng(1)
    V = rng.normal(size=(2_000, 5))
    P = _kernels.project_l1(V / np.abs(V).sum(axis=1, keepdims=True))  # on the sphere, up to float error
    C = np.zeros((1, 5))
    for p in P:
        q = lloyd_module._exact_stats(p[None, :], C, 1.0)[0, 1:]
        assert sum(abs(int(v)) for v in q) <= 2**32
    r = 3.7
    edge = np.full((1, 3), r)
    q = lloyd_module._exact_stats(np.vstack([edge, -edge]), np.zeros((2, 3)), r)
    assert all(abs(int(v)) <= 2**32 for v in q[:, 1:].ravel())
