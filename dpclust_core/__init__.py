"""dpclust_core: the mechanisms and algorithms of the dpclust book on differentially private clustering.

Ground floor: :mod:`~dpclust_core.mechanisms` (the only place noise is drawn: floating-point-safe Laplace,
geometric, Gaussian and exponential mechanisms), :mod:`~dpclust_core.accounting` (:class:`PrivacyLedger`, a
budget that refuses before spending, and the composition rules), :mod:`~dpclust_core.base` (the
scikit-learn estimator every algorithm subclasses), :mod:`~dpclust_core.audit` (empirical DP auditing),
:mod:`~dpclust_core.bounds` (private bounds of the data, for when no public domain is known),
:mod:`~dpclust_core.preprocessing` (scaling into a public domain; private scalers, for a pipeline that is
private end to end), :mod:`~dpclust_core.report` (the release card and a private quality estimate),
:mod:`~dpclust_core.datasets` (a seeded synthetic generator), :mod:`~dpclust_core.metrics` (NICV, WCSS, DSG_C, OCM, 2CE).

Algorithms, one module per family (each chapter of the book imports one of them):
:mod:`~dpclust_core.kmeans` (DPLloyd, EUGkM/UGkM/MkM, HybridKMeans, GkM, PGkM, LSHCoresetKMeans, choose_k),
:mod:`~dpclust_core.svt` (every published Sparse Vector variant, exact privacy loss),
:mod:`~dpclust_core.wavecluster` (WaveCluster, PrivQT, PrivTHR, PrivTHR_EM, baseline),
:mod:`~dpclust_core.ktuple` (k-tuple clustering, PrivateKMeansEasy),
:mod:`~dpclust_core.gmm` (private Gaussian mixtures) and
:mod:`~dpclust_core.postprocess` (MCMC postprocessing of DP k-means transcripts).

The library needs numpy, scipy, scikit-learn, PyWavelets and threadpoolctl only (pandas on use, in the
advisor's tables). The book's figures, widgets, stand-in data sets and experiment loops live in the sibling
package ``dpclust_book`` (``pip install .[book]``), which imports this one and never the reverse.
"""
from ._validation import BadTypeError, EpsilonTooSmallError
from .accounting import BudgetExceededError, DetachedLedgerError, PrivacyLedger
from .audit import audit
from .bounds import PrivateBox, UnreliableBoundsError, private_bounds
from .count import private_count
from .mechanisms import (exponential_mechanism, exponential_mechanism_probabilities, gaussian_mechanism,
                         geometric_mechanism, laplace_mechanism)
from .metrics import nicv, wcss
from .preprocessing import PrivateMinMaxScaler, PrivateStandardScaler, make_private_pipeline
from .base import PublishedNWarning
from .kmeans import (DPLloyd, EUGkM, GkM, HybridKMeans, LSHCoresetKMeans, MkM, PGkM, UGkM, choose_k)
from .ktuple import PrivatekAverages, PrivatekNoisyCenters, PrivateKMeansEasy
from .gmm import NaiveNoisyGaussianMixture, PrivateGaussianMixture
from .wavecluster import PrivateWaveCluster, WaveCluster
from .postprocess import MCMCPostprocessor

__version__ = "0.1.0"

__all__ = [
    "PrivacyLedger",
    "BudgetExceededError",
    "BadTypeError",
    "EpsilonTooSmallError",
    "DetachedLedgerError",
    "PublishedNWarning",
    "audit",
    "private_bounds",
    "PrivateBox",
    "UnreliableBoundsError",
    "private_count",
    "laplace_mechanism",
    "geometric_mechanism",
    "exponential_mechanism",
    "exponential_mechanism_probabilities",
    "gaussian_mechanism",
    "nicv",
    "wcss",
    "PrivateMinMaxScaler",
    "PrivateStandardScaler",
    "make_private_pipeline",
    # the estimators: every one is private except WaveCluster, the non-private reference; MCMCPostprocessor
    # post-processes a private transcript (it reads no data)
    "DPLloyd", "EUGkM", "UGkM", "MkM", "HybridKMeans", "GkM", "PGkM", "LSHCoresetKMeans", "choose_k",
    "PrivateKMeansEasy", "PrivatekAverages", "PrivatekNoisyCenters",
    "PrivateGaussianMixture", "NaiveNoisyGaussianMixture",
    "WaveCluster", "PrivateWaveCluster", "MCMCPostprocessor",
]
