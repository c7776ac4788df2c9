"""DP k-means on a dask cluster: data generated on the workers, the fit timed, the driver's memory watched.

Shared by the appendix "When the data outgrow one machine" (small sizes, a local cluster started in the
notebook) and ``benchmarks/bench_dask.py`` (10^7 to 10^8 points, one and two workers).

The data never exist on the driver: :func:`lazy_blobs` describes them as a dask array whose blocks the workers
generate when a computation asks for them (as they would read blocks of a file on a real cluster). A fit of
:class:`~dpclust_core.kmeans.DPLloyd` on it sends one small task graph per round; the workers return the exact
per-block statistics, and the driver adds the noise. :func:`time_fit` measures the wall time of a fit and the
peak resident memory of the driver process (sampled every few milliseconds while the fit runs).

Examples
--------
>>> import dask
>>> from dpclust_book.experiments import scaling
>>> X = scaling.lazy_blobs(10_000, chunk_rows=2_500, seed=0)
>>> X.shape, X.numblocks
((10000, 2), (4, 1))
>>> with dask.config.set(scheduler="threads"):
...     row = scaling.time_fit(X, n_clusters=5, epsilon=1.0, n_rounds=3)
>>> row["n"], row["rounds"], sorted(row)[:3]
(10000, 3, ['cpu_ns_per_point_round', 'driver_peak_mb', 'driver_rise_mb'])
"""
from __future__ import annotations

import os
import threading
import time

import numpy as np
import pandas as pd

from dpclust_core._validation import check_int, check_real
from dpclust_core.kmeans import DPLloyd
from dpclust_core.kmeans.lloyd import _exact_stats, sphere_packing_centroids

__all__ = ["BOUNDS", "lazy_blobs", "numpy_blobs", "blob_centres", "time_fit", "scaling_runs", "scaling_table",
           "DriverMemory", "block_partials", "same_release"]

#: The public domain of the generated data (the blobs are clipped into it).
BOUNDS = (-1.0, 1.0)


def blob_centres(k: int = 5, d: int = 2, seed: int = 0) -> np.ndarray:
    """The k centres of the generated blobs: well separated in ``[-0.75, 0.75]^d`` (sphere packing)."""
    return sphere_packing_centroids(k, d, r=0.75, rng=np.random.default_rng([seed, 1]))


def _assemble(u, z, centres=None, spread=0.06):
    """One block of blobs from a block of uniforms (which centre) and of standard normals (the offset)."""
    k = centres.shape[0]
    idx = np.minimum((u[:, 0] * k).astype(np.intp), k - 1)
    return np.clip(centres[idx] + spread * z, -1.0, 1.0)


def lazy_blobs(n: int, d: int = 2, k: int = 5, *, chunk_rows: int = 1_000_000, spread: float = 0.06,
               seed: int = 0):
    """``n`` points of ``k`` Gaussian blobs in ``[-1, 1]^d`` as a **lazy** dask array: the workers generate each
    block of ``chunk_rows`` rows when a computation reads it (``dask.array.random``), nothing is held anywhere.

    Each computation generates the blocks again, like reading them from storage; ``.persist()`` keeps them in
    the workers' memory instead.
    """
    import dask.array as da

    n = check_int(n, "n", 1)
    d, k = check_int(d, "d", 1, 1000), check_int(k, "k", 1, 10_000)
    chunk_rows = check_int(chunk_rows, "chunk_rows", 1)
    spread = check_real(spread, "spread", low=0.0)
    rng = da.random.default_rng(seed)
    u = rng.random((n, 1), chunks=(chunk_rows, 1))
    z = rng.standard_normal((n, d), chunks=(chunk_rows, d))  # not privacy noise: synthetic data
    return da.map_blocks(_assemble, u, z, centres=blob_centres(k, d, seed), spread=spread, dtype=float,
                         chunks=z.chunks)


def numpy_blobs(n: int, d: int = 2, k: int = 5, *, spread: float = 0.06, seed: int = 0) -> np.ndarray:
    """The same kind of data as :func:`lazy_blobs` (the same centres), generated in memory with NumPy."""
    rng = np.random.default_rng(seed)
    u = rng.random((n, 1))
    z = rng.standard_normal((n, d))  # not privacy noise: synthetic data
    return _assemble(u, z, blob_centres(k, d, seed), spread)


class DriverMemory:
    """Context manager sampling this process's resident memory (RSS) every ``interval`` seconds in a thread.

    ``base_mb`` is the RSS on entry, ``peak_mb`` the largest sample (in MiB). The driver process also hosts the
    local cluster's scheduler, so its memory is what a laptop running the notebook pays.
    """

    def __init__(self, interval: float = 0.005):
        self.interval = float(interval)
        self.base_mb = self.peak_mb = 0.0

    @staticmethod
    def _rss():
        import psutil

        return psutil.Process(os.getpid()).memory_info().rss / 2**20

    def __enter__(self):
        self.base_mb = self.peak_mb = self._rss()
        self._stop = threading.Event()

        def sample():
            while not self._stop.is_set():
                self.peak_mb = max(self.peak_mb, self._rss())
                self._stop.wait(self.interval)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak_mb = max(self.peak_mb, self._rss())
        return False


def _cpu_seconds():
    """User + system CPU seconds of the calling process (run on every worker by ``Client.run``)."""
    import psutil

    t = psutil.Process(os.getpid()).cpu_times()
    return t.user + t.system


def _active_client():
    try:
        from distributed import default_client

        return default_client()
    except (ImportError, ValueError):
        return None


def time_fit(X, *, n_clusters: int = 5, epsilon: float = 1.0, n_rounds: int = 5, random_state=0) -> dict:
    """Fit DPLloyd-Impr with ``n_rounds`` rounds on ``X`` (NumPy or dask) and measure it.

    Returns a dict: ``n``, ``rounds``, ``seconds`` (the whole fit, wall clock), ``seconds_per_round``,
    ``ns_per_point_round`` (wall nanoseconds per point and round), ``cpu_ns_per_point_round`` (CPU time of the
    processes that did the work — the workers of the active ``distributed.Client`` for a dask array, this
    process for NumPy — per point and round: less sensitive than wall time to other work running at the same time),
    ``driver_peak_mb`` (the driver's peak RSS during the fit) and ``driver_rise_mb`` (that peak minus the RSS
    before the fit).
    """
    from dpclust_core._validation import is_dask_array

    est = DPLloyd(n_clusters, epsilon, bounds=BOUNDS, n_rounds=n_rounds, random_state=random_state)
    client = _active_client() if is_dask_array(X) else None

    def cpu():
        if client is not None:
            return sum(client.run(_cpu_seconds).values())
        return time.process_time() if not is_dask_array(X) else float("nan")

    c0 = cpu()
    with DriverMemory() as mem:
        t0 = time.perf_counter()
        est.fit(X)
        sec = time.perf_counter() - t0
    cpu_sec = cpu() - c0
    n = int(X.shape[0])
    per = est.n_iter_ * n
    return {"n": n, "rounds": est.n_iter_, "seconds": sec, "seconds_per_round": sec / est.n_iter_,
            "ns_per_point_round": 1e9 * sec / per, "cpu_ns_per_point_round": 1e9 * cpu_sec / per,
            "driver_peak_mb": mem.peak_mb, "driver_rise_mb": mem.peak_mb - mem.base_mb}


def scaling_runs(sizes, *, chunk_rows: int = 250_000, d: int = 2, k: int = 5, n_rounds: int = 5,
                 in_memory: bool = True, seed: int = 0) -> pd.DataFrame:
    """DPLloyd on data of every size in ``sizes``: on the current dask scheduler (a ``distributed.Client`` if one
    is active) with data generated on the workers, and (``in_memory=True``) on the same kind of data in NumPy in
    this process. One row per (where, n) with the columns of :func:`time_fit` and ``where``.
    """
    rows = []
    time_fit(lazy_blobs(2 * chunk_rows, d, k, chunk_rows=chunk_rows, seed=seed), n_clusters=k, n_rounds=1)  # warm-up
    for n in sizes:
        X = lazy_blobs(int(n), d, k, chunk_rows=chunk_rows, seed=seed)
        rows.append({"where": "dask cluster", **time_fit(X, n_clusters=k, n_rounds=n_rounds)})
        if in_memory:
            Xn = numpy_blobs(int(n), d, k, seed=seed)
            rows.append({"where": "in memory", **time_fit(Xn, n_clusters=k, n_rounds=n_rounds)})
            del Xn
    return pd.DataFrame(rows)


def scaling_table(runs: pd.DataFrame):
    """:func:`scaling_runs` for reading (an HTML table): one row per n, for the dask cluster and in memory the
    wall seconds of a round, the CPU nanoseconds of the work per point and round, and the rise of the driver's
    resident memory during the fit (MiB)."""
    from ..style import table

    cols = {"seconds_per_round": "s / round", "cpu_ns_per_point_round": "CPU ns / point",
            "driver_rise_mb": "driver + MiB"}
    wheres = list(dict.fromkeys(runs["where"]))  # "dask cluster", then "in memory"
    t = pd.concat({w: runs[runs["where"] == w].set_index("n")[list(cols)].rename(columns=cols) for w in wheres},
                  axis=1)
    t.index = [f"{int(v):,}" for v in t.index]
    t.index.name = "points n"
    fmt = {c: ("{:.3f}" if c[1] == "s / round" else "{:.0f}" if c[1] == "CPU ns / point" else "{:.1f}")
           for c in t.columns}
    return table(t, fmt)


def block_partials(X, centroids, n_blocks: int, r: float = 1.0) -> np.ndarray:
    """Exact cluster counts of every block when the rows of ``X`` (already in ``[-r, r]^d``) are split into
    ``n_blocks`` blocks of consecutive rows, with the clusters of ``centroids``: an int array (n_blocks, k)
    whose column sums are the counts of the whole data (what a dask reduction adds up on the workers)."""
    X = np.asarray(X, dtype=float)
    C = np.asarray(centroids, dtype=float)
    n_blocks = check_int(n_blocks, "n_blocks", 1, max(1, X.shape[0]))
    cuts = np.linspace(0, X.shape[0], n_blocks + 1).astype(int)
    return np.array([[int(v) for v in _exact_stats(X[a:b], C, r)[:, 0]] for a, b in zip(cuts[:-1], cuts[1:])])


def same_release(make, X, chunkings) -> pd.DataFrame:
    """Fit ``make()`` (a fresh estimator, fixed ``random_state``) on the NumPy array ``X`` and on
    ``dask.array.from_array(X, chunks=c)`` for every ``c`` in ``chunkings``; one row per chunking: the blocks
    (rows x columns), whether the centroids and the whole ledger are identical, and the largest difference of
    the centroids.
    """
    import dask.array as da

    ref = make().fit(X)
    rows = []
    for c in chunkings:
        D = da.from_array(X, chunks=c).persist()  # the blocks sent to the workers once, not at every round
        est = make().fit(D)
        rows.append({"blocks": f"{D.numblocks[0]} x {D.numblocks[1]}",
                     "same centroids": bool(np.array_equal(est.cluster_centers_, ref.cluster_centers_)),
                     "same ledger": est.ledger_.rows() == ref.ledger_.rows(),
                     "max. difference": float(np.abs(est.cluster_centers_ - ref.cluster_centers_).max())})
    return pd.DataFrame(rows)
