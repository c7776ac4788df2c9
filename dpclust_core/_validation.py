"""Input checks shared by every module.

Every public function validates its arguments with these helpers so that bad input raises a
``ValueError`` that names the offending argument, before any data is touched or any budget spent.
"""
from __future__ import annotations

import numbers

import numpy as np

__all__ = [
    "check_rng",
    "check_epsilon",
    "check_delta",
    "check_sensitivity",
    "check_data",
    "check_bounds",
    "check_n_clusters",
    "check_positive_int",
]


def check_rng(rng=None) -> np.random.Generator:
    """Normalise ``rng`` (None, an int seed or a ``numpy.random.Generator``) to a Generator.

    The global ``np.random`` state is never used.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, (numbers.Integral, np.integer)):
        if rng is not None and int(rng) < 0:
            raise ValueError(f"rng/random_state must be a non-negative seed, got {rng!r}")
        return np.random.default_rng(rng)
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    raise ValueError(
        f"rng/random_state must be None, an int or a numpy.random.Generator, got {type(rng).__name__}"
    )


def _is_real_scalar(x) -> bool:
    return isinstance(x, (numbers.Real, np.floating, np.integer)) and not isinstance(x, bool)


def check_epsilon(epsilon, name: str = "epsilon", allow_inf: bool = False) -> float:
    """Return ``epsilon`` as a float; raise ``ValueError`` unless it is a finite number > 0."""
    if not _is_real_scalar(epsilon):
        raise ValueError(f"{name} must be a positive real number, got {epsilon!r}")
    eps = float(epsilon)
    if np.isnan(eps) or eps <= 0 or (np.isinf(eps) and not allow_inf):
        raise ValueError(f"{name} must be finite and > 0, got {epsilon!r}")
    return eps


def check_delta(delta, name: str = "delta") -> float:
    """Return ``delta`` as a float; raise ``ValueError`` unless 0 < delta < 1."""
    if not _is_real_scalar(delta):
        raise ValueError(f"{name} must be a real number in (0, 1), got {delta!r}")
    d = float(delta)
    if not (0.0 < d < 1.0):
        raise ValueError(f"{name} must lie in the open interval (0, 1), got {delta!r}")
    return d


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float; raise ``ValueError`` unless it is finite and >= 0."""
    if not _is_real_scalar(sensitivity):
        raise ValueError(f"{name} must be a non-negative real number, got {sensitivity!r}")
    s = float(sensitivity)
    if not np.isfinite(s) or s < 0:
        raise ValueError(f"{name} must be finite and >= 0, got {sensitivity!r}")
    return s


def check_positive_int(value, name: str, minimum: int = 1) -> int:
    """Return ``value`` as an int; raise ``ValueError`` unless it is an integer >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def check_data(X, name: str = "X", ndim: int = 2, n_features: int | None = None) -> np.ndarray:
    """Return ``X`` as a float array of ``ndim`` dimensions; reject NaN, inf, empty or wrongly shaped input."""
    try:
        arr = np.asarray(X, dtype=float)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name} must be numeric array-like: {exc}") from None
    if ndim == 2 and arr.ndim == 1:
        raise ValueError(
            f"{name} must be 2-D of shape (n_samples, n_features); got 1-D shape {arr.shape} "
            "(use X.reshape(-1, 1) for one feature)"
        )
    if arr.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {arr.shape}")
    if arr.size == 0 or arr.shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape})")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains NaN or infinite values")
    if n_features is not None and ndim == 2 and arr.shape[1] != n_features:
        raise ValueError(f"{name} has {arr.shape[1]} features, expected {n_features}")
    return arr


def check_bounds(bounds, n_features: int | None = None, name: str = "bounds"):
    """Normalise public domain ``bounds`` to two float arrays ``(low, high)`` of length ``n_features``.

    Accepted forms: a pair ``(low, high)`` of scalars applied to every dimension; a pair of arrays of
    lows and highs; or an array of shape ``(n_features, 2)`` with one ``(low, high)`` row per dimension.
    A 2x2 input is read as ``(lows, highs)`` when that reading is valid, otherwise as rows.
    Raises ``ValueError`` if a bound is not finite, if ``low >= high`` anywhere, or if the number of
    dimensions does not match ``n_features``.
    """
    if bounds is None:
        raise ValueError(f"{name} is required: the public domain must be given, never read off the data")
    try:
        b = np.asarray(bounds, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a pair (low, high) or an array of (low, high) rows") from None
    if b.ndim == 1 and b.shape[0] == 2:
        low, high = np.array([b[0]]), np.array([b[1]])
    elif (b.ndim == 2 and b.shape[0] == 2 and (n_features is None or b.shape[1] == n_features)
          and not (b.shape[1] == 2 and np.any(b[0] >= b[1]) and np.all(b[:, 0] < b[:, 1]))):
        # (lows, highs). A 2x2 array is ambiguous; it is read as (lows, highs) unless only the
        # per-dimension-rows reading is valid, e.g. [(0, 10), (-5, 5)] (numpy histogramdd's `range`).
        low, high = b[0].copy(), b[1].copy()
    elif b.ndim == 2 and b.shape[1] == 2:
        low, high = b[:, 0].copy(), b[:, 1].copy()
    else:
        raise ValueError(f"{name} must be (low, high), (lows, highs) or shape (n_features, 2); got shape {b.shape}")
    if not (np.all(np.isfinite(low)) and np.all(np.isfinite(high))):
        raise ValueError(f"{name} must be finite")
    if np.any(low >= high):
        raise ValueError(f"{name}: every low must be < high, got low={low.tolist()} high={high.tolist()}")
    if n_features is not None:
        if low.shape[0] == 1 and n_features > 1:
            low = np.repeat(low, n_features)
            high = np.repeat(high, n_features)
        elif low.shape[0] != n_features:
            raise ValueError(f"{name} describes {low.shape[0]} dimensions but the data has {n_features}")
    return low, high


def check_n_clusters(n_clusters, n_samples: int | None = None, name: str = "n_clusters") -> int:
    """Return ``n_clusters`` as an int; raise ``ValueError`` unless 1 <= k (<= n_samples when given)."""
    k = check_positive_int(n_clusters, name)
    if n_samples is not None and k > n_samples:
        raise ValueError(f"{name}={k} is larger than the number of samples ({n_samples})")
    return k
