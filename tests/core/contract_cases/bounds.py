"""Cases for dpclust_core.bounds: private_bounds (a public function; no estimator)."""
import numpy as np

from dpclust_core import bounds

from . import FunctionCase, blobs

FUNCTIONS = [
    FunctionCase("private_bounds", bounds.private_bounds,
                 dict(X=blobs(200, 2), epsilon=1.0, quantile=0.99, locate_share=0.6, weights=np.array([1.0, 2.0]),
                      on_unreliable="flag", random_state=0),
                 dict(X="data", epsilon="epsilon", random_state="random_state", ledger="ledger",
                      quantile="probability", locate_share="probability", weights="values",
                      log2_range="int_pair", on_unreliable="option")),
]
