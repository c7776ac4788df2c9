"""The estimators and public functions that the contract and bad-input tests run over.

Each module of the package has its own file here (``kmeans.py``, ``wavecluster.py``, ...) that defines
``ESTIMATORS`` (a list of :class:`EstimatorCase`) and ``FUNCTIONS`` (a list of :class:`FunctionCase`). This
package collects them, so adding an estimator to the package means adding one case to its module's file.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

_MODULES = ["foundation", "lloyd", "postprocess", "kmeans", "wavecluster", "data_metrics", "ktuple_gmm", "svt",
            "bounds", "count", "highdim", "dask", "advisor", "scalers"]


def blobs(n=300, d=2, k=3, seed=0, scale=0.05, low=-1.0, high=1.0):
    """A small mixture inside [low, high]^d (well inside the bounds the cases use)."""
    rng = np.random.default_rng(seed)
    centers = rng.uniform(low * 0.6, high * 0.6, size=(k, d))
    lab = rng.integers(0, k, size=n)
    return np.clip(centers[lab] + scale * (high - low) * rng.normal(size=(n, d)), low, high)


def default_data(n=300, seed=0):
    """The default data of a case: 2-D blobs with ``n`` rows drawn with ``seed``."""
    return blobs(n, seed=seed)


@dataclass
class EstimatorCase:
    """One estimator configuration.

    ``make(**overrides)`` builds it; ``data(n, seed)`` gives a valid X with n rows; ``epsilon``/``delta`` are the
    totals its ``ledger_`` must show (None for a non-private estimator); ``fit_arg`` names what ``fit`` takes
    ("X" for data; anything else means the case is checked only for the scikit-learn parameter contract).
    """

    id: str
    make: Callable
    data: Callable = default_data
    epsilon: float | None = 1.0
    delta: float = 0.0
    fit_arg: str = "X"
    has_predict: bool = True
    in_pipeline: bool = True
    min_n: int = 50
    slow: bool = False


@dataclass
class FunctionCase:
    """A public function, valid keyword arguments, and the kind of each argument the bad-input test attacks."""

    id: str
    fn: Callable
    kwargs: dict
    kinds: dict = field(default_factory=dict)  # argument name -> kind in tests/core/test_bad_input.py
    nan_ok: bool = False  # the function documents NaN in its result (e.g. for a skipped method)


def collect():
    estimators, functions = [], []
    for name in _MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{name}":
                continue
            raise
        estimators += getattr(mod, "ESTIMATORS", [])
        functions += getattr(mod, "FUNCTIONS", [])
    return estimators, functions
