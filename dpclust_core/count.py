"""The number of records, released privately: the one noisy count that every estimator and every recipe uses.

Many algorithms need N (to size a grid, to choose a number of rounds, to normalise a sum). N is private: the
presence of one record changes it by one. :func:`private_count` releases it with the Laplace mechanism
(sensitivity 1 under add/remove-one, Theorem 2.3.1), floating-point safe, and clamps the result to at least 1
— post-processing, which costs nothing — so that its output is accepted as it is by every ``n_public=``
argument of the package. Estimators that are not given ``n_public`` buy the same count themselves, as a ledger
entry named "N (noisy count)".
"""
from __future__ import annotations

from ._validation import (ArrayLike, Epsilon, Ledger, Rng, RNGLike, check_data, is_dask_array, read_dask_rows,
                          validate_params)
from .accounting import PrivacyLedger
from .mechanisms import laplace_mechanism

__all__ = ["private_count"]


def noisy_count(n, epsilon, rng, ledger, name):
    """``max(n + Lap(1/epsilon), 1)`` on the Laplace mechanism's grid: the kernel of :func:`private_count`, shared
    with the estimators and the scalers, which validate their arguments first (it trusts them)."""
    noisy = laplace_mechanism(float(n), 1.0, epsilon, rng, ledger=ledger, name=name)
    return max(float(noisy), 1.0)


@validate_params(epsilon=Epsilon(), random_state=Rng(), ledger=Ledger())
def private_count(X: ArrayLike, epsilon: float, *, random_state: RNGLike = None, ledger: PrivacyLedger | None = None,
                  name: str = "N (noisy count)") -> float:
    """The number of rows of ``X``, released with epsilon-DP (add/remove-one) and clamped to at least 1.

    Parameters
    ----------
    X : array_like of shape (n_samples, n_features), or a dask array
        The private data. A dask array is read once on its workers (its number of rows, and a check that every
        value is finite); only the count reaches the driver.
    epsilon : float
        The budget of the count, finite and > 0. The noise has scale ``1/epsilon``: about ``±1.4/epsilon``
        (one standard deviation).
    random_state : None, int or numpy.random.Generator
        Source of randomness.
    ledger : PrivacyLedger, optional
        Asked for ``epsilon`` before the data are read, then given one entry named ``name``.
    name : str
        The ledger entry's name.

    Returns
    -------
    float
        ``max(N + noise, 1)``: a float >= 1 on the Laplace mechanism's power-of-two grid, accepted by every
        ``n_public=`` of the package. It is not an integer: rounding it would not make it more accurate.

    Examples
    --------
    >>> import numpy as np
    >>> from dpclust_core import PrivacyLedger
    >>> led = PrivacyLedger(budget_epsilon=1.0)
    >>> n = private_count(np.zeros((5000, 2)), 0.5, random_state=0, ledger=led)
    >>> bool(abs(n - 5000) < 50), led.epsilon
    (True, 0.5)
    >>> private_count(np.zeros((0, 2)), 0.5, random_state=1) >= 1.0   # never below 1, even with no rows
    True
    """
    if ledger is not None:
        ledger.require(epsilon, 0.0, name=str(name))  # before the data are read
    X = check_data(X, "X", allow_dask=True, allow_empty=True)
    if is_dask_array(X):
        X = read_dask_rows(X)
    return noisy_count(X.shape[0], epsilon, random_state, ledger, str(name))
