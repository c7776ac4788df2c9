"""Cases for the dask path: DPLloyd, EUGkM and HybridKMeans fitted on a ``dask.array.Array`` (the local scheduler;
tests/core/test_dask.py runs them on a distributed cluster). The data are the default blobs split into blocks of rows
and columns, so the whole contract (ledger totals, no attribute equal to N, a refused fit spends nothing, bad data
named ``X``, NaN found lazily) also holds when the statistics are reduced block by block."""
from dpclust_core.kmeans import DPLloyd, EUGkM, HybridKMeans

from . import EstimatorCase, blobs

try:
    import dask.array as da
except ImportError:  # dask is the optional extra "dask": without it these cases are simply absent
    da = None


def _dask_data(n=300, seed=0):
    return da.from_array(blobs(n, seed=seed), chunks=(max(1, n // 3), 1))


def _maker(cls, **defaults):
    def make(**kw):
        kw = {"n_clusters": 3, "epsilon": 1.0, "bounds": (-1.0, 1.0), **defaults, **kw}
        return cls(kw.pop("n_clusters"), kw.pop("epsilon"), **kw)
    return make


# predict takes NumPy data (a dask array is predicted block by block: X.map_blocks(est.predict, drop_axis=1))
ESTIMATORS = [] if da is None else [
    EstimatorCase("dask-DPLloyd-improved", _maker(DPLloyd), data=_dask_data, has_predict=False),
    EstimatorCase("dask-DPLloyd-original", _maker(DPLloyd, variant="original"), data=_dask_data, has_predict=False),
    EstimatorCase("dask-DPLloyd-lee_kifer", _maker(DPLloyd, variant="lee_kifer", bounds=(-2.0, 2.0)),
                  data=_dask_data, has_predict=False),
    EstimatorCase("dask-EUGkM", _maker(EUGkM, n_init=3), data=_dask_data, has_predict=False),
    EstimatorCase("dask-HybridKMeans", _maker(HybridKMeans, epsilon=20.0, policy="half", n_init=3),
                  data=_dask_data, has_predict=False, epsilon=20.0),
]
FUNCTIONS = []
