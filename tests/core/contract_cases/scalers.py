"""Cases for the private scalers and the pipeline helper (dpclust_core.preprocessing)."""
from dpclust_core import preprocessing
from dpclust_core.kmeans.lloyd import DPLloyd

from . import EstimatorCase, FunctionCase, blobs

BOUNDS = (-1.0, 1.0)


def _maker(cls):
    def make(**kw):
        args = dict(bounds=BOUNDS)
        args.update(kw)
        epsilon = args.pop("epsilon", 1.0)
        return cls(epsilon, **args)
    return make


def _enough_rows(n=300, seed=0):
    """Blobs with at least 2,000 rows: with fewer, the min-max scaler keeps the public range as its box and spends
    only its noisy count (documented; tested in test_preprocessing_private), so its ledger would not total ε."""
    return blobs(max(n, 2000), seed=seed)


ESTIMATORS = [
    EstimatorCase("PrivateMinMaxScaler", _maker(preprocessing.PrivateMinMaxScaler), data=_enough_rows,
                  has_predict=False, in_pipeline=False, min_n=2000),
    EstimatorCase("PrivateStandardScaler", _maker(preprocessing.PrivateStandardScaler), data=_enough_rows,
                  has_predict=False, in_pipeline=False, min_n=2000),
]

FUNCTIONS = [
    FunctionCase("make_private_pipeline", preprocessing.make_private_pipeline,
                 dict(estimator=DPLloyd(3, 1.0, bounds=BOUNDS), epsilon=1.0),
                 dict(epsilon="epsilon")),
]
