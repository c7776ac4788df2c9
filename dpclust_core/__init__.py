"""dpclust_core: the mechanisms and algorithms of the dpclust book on differentially private clustering.

Modules: :mod:`~dpclust_core.mechanisms` (Laplace, geometric, exponential, Gaussian),
:mod:`~dpclust_core.accounting` (:class:`PrivacyLedger`), :mod:`~dpclust_core.audit` (empirical DP
auditing), :mod:`~dpclust_core.data` (seeded generators, public-domain scaling),
:mod:`~dpclust_core.metrics` (NICV, WCSS, ...), and one module per algorithm family.
"""
from .accounting import PrivacyLedger
from .audit import audit
from .mechanisms import (exponential_mechanism, exponential_mechanism_probabilities, gaussian_mechanism,
                         geometric_mechanism, laplace_mechanism)
from .metrics import nicv, wcss

__version__ = "0.1.0"

__all__ = [
    "PrivacyLedger",
    "audit",
    "laplace_mechanism",
    "geometric_mechanism",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "gaussian_mechanism",
    "nicv",
    "wcss",
]
