"""Cases for dpclust_core.count: private_count (a public function; no estimator)."""
from dpclust_core import count

from . import FunctionCase, blobs

FUNCTIONS = [
    FunctionCase("private_count", count.private_count,
                 dict(X=blobs(200, 2), epsilon=1.0, random_state=0),
                 dict(epsilon="epsilon", random_state="random_state", ledger="ledger")),
]
