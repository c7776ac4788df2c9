"""dpclust_core: the mechanisms and algorithms of the dpclust book on differentially private clustering.

Foundations: :mod:`~dpclust_core.mechanisms` (Laplace, geometric, exponential, Gaussian),
:mod:`~dpclust_core.accounting` (:class:`PrivacyLedger`), :mod:`~dpclust_core.audit` (empirical DP
auditing), :mod:`~dpclust_core.data` (seeded stand-in datasets, public-domain scaling),
:mod:`~dpclust_core.metrics` (NICV, WCSS, DSG_C, OCM, 2CE).

Algorithms, one module per family (each chapter of the book imports one of them):
:mod:`~dpclust_core.kmeans` (DPLloyd, EUGkM/UGkM/MkM, HybridKMeans, GkM, PGkM, choose_k),
:mod:`~dpclust_core.svt` (every published Sparse Vector variant, exact privacy loss),
:mod:`~dpclust_core.wavecluster` (WaveCluster, PrivQT, PrivTHR, PrivTHR_EM, baseline),
:mod:`~dpclust_core.ktuple` (k-tuple clustering, PrivateKMeansEasy),
:mod:`~dpclust_core.gmm` (private Gaussian mixtures) and
:mod:`~dpclust_core.postprocess` (MCMC postprocessing of DP k-means transcripts).
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
