"""Scaling data into a public domain: the first step of every private estimator here.

The domain bounds are **public** inputs. :func:`scale_to_domain` maps data from the public bounds into
``[-r, r]^d`` and **clips** points that lie outside the bounds onto the boundary (it reports how many were
clipped). Nothing is read off the data. The public functions validate once and call the trusting kernels
:func:`dpclust_core._kernels.scale_into` / :func:`~dpclust_core._kernels.unscale_from`.
"""
from __future__ import annotations

import numpy as np

from . import _kernels
from ._validation import ArrayLike, check_bool, check_bounds, check_data, check_half_width

__all__ = ["scale_to_domain", "unscale_from_domain", "clip_to_domain"]


def _check_r(r):
    return check_half_width(r)


def _scale_coefficients(low, high, r):
    """Refuse an ``r`` for which the affine map of the public box overflows a float (never a silent inf/NaN)."""
    with np.errstate(over="ignore", invalid="ignore"):
        a = (2.0 * r) / (high - low)
        ok = np.isfinite(2.0 * r) and np.all(np.isfinite(a)) and np.all(np.isfinite(-low * a - r))
    if not ok:
        raise ValueError(f"r={r!r} is too large for these bounds: the scaling overflows a float")


def clip_to_domain(X: ArrayLike, bounds: ArrayLike) -> tuple[np.ndarray, int]:
    """Clip every coordinate of ``X`` onto the public ``bounds``.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    bounds : (low, high), (lows, highs) or an array of (low, high) rows
        The public domain (see :func:`dpclust_core._validation.check_bounds`).

    Returns
    -------
    (X_clipped, n_clipped) : ndarray, int
        The clipped copy and the number of rows that had at least one coordinate outside the bounds (computed on
        the data: for the data owner's eyes, not a private release).

    Examples
    --------
    >>> Xc, n = clip_to_domain([[0.5, 0.5], [2.0, 0.0], [-3.0, -3.0]], (-1.0, 1.0))
    >>> Xc.tolist(), n
    ([[0.5, 0.5], [1.0, 0.0], [-1.0, -1.0]], 2)
    """
    X = check_data(X)
    low, high = check_bounds(bounds, X.shape[1])
    Xc = np.clip(X, low, high)
    n_clipped = int(np.any(Xc != X, axis=1).sum())
    return Xc, n_clipped


def scale_to_domain(X: ArrayLike, bounds: ArrayLike, r: float = 1.0, *,
                    return_n_clipped: bool = False) -> np.ndarray | tuple[np.ndarray, int]:
    """Map ``X`` from the public box ``bounds`` into ``[-r, r]^d``, clipping outliers onto the boundary.

    Points outside ``bounds`` are **clipped** onto the boundary. Clipping is what keeps the sensitivity of a
    coordinate sum at ``r``; the number of clipped points is returned when ``return_n_clipped=True`` (it is
    computed on the private data and is for the data owner's eyes). Validates once, then calls the kernel
    :func:`dpclust_core._kernels.scale_into`.

    Parameters
    ----------
    X : array_like, shape (n_samples, n_features)
    bounds : (low, high), (lows, highs) or an array of (low, high) rows
        The public domain.
    r : float, default 1.0
        Half-width of the target box (> 0).
    return_n_clipped : bool, default False

    Returns
    -------
    Z : ndarray, shape (n_samples, n_features), in ``[-r, r]^d``
    n_clipped : int, only with ``return_n_clipped=True``

    Examples
    --------
    >>> scale_to_domain([[0.0, -5.0], [10.0, 5.0], [5.0, 0.0], [20.0, 0.0]], [(0, 10), (-5, 5)]).tolist()
    [[-1.0, -1.0], [1.0, 1.0], [0.0, 0.0], [1.0, 0.0]]
    """
    r = _check_r(r)
    return_n_clipped = check_bool(return_n_clipped, "return_n_clipped")
    X = check_data(X)
    low, high = check_bounds(bounds, X.shape[1])
    _scale_coefficients(low, high, r)
    Z = _kernels.scale_into(X, low, high, r)
    if not return_n_clipped:
        return Z
    n_clipped = int(np.any((X < low) | (X > high), axis=1).sum())
    return Z, n_clipped


def unscale_from_domain(Z: ArrayLike, bounds: ArrayLike, r: float = 1.0) -> np.ndarray:
    """Inverse of :func:`scale_to_domain` (without the clipping): from ``[-r, r]^d`` back to ``bounds``.

    Parameters
    ----------
    Z : array_like, shape (n_samples, n_features)
        Points in the scaled domain (values outside ``[-r, r]`` map outside the bounds).
    bounds : the public domain used for the scaling.
    r : float, default 1.0

    Returns
    -------
    ndarray, shape (n_samples, n_features)

    Examples
    --------
    >>> unscale_from_domain([[-1.0, 1.0], [0.0, 0.0]], [(0, 10), (-5, 5)]).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    """
    r = _check_r(r)
    Z = check_data(Z, "Z")
    low, high = check_bounds(bounds, Z.shape[1])
    _scale_coefficients(low, high, r)
    with np.errstate(over="ignore", invalid="ignore"):
        out = _kernels.unscale_from(Z, low, high, r)
    if not np.all(np.isfinite(out)):
        raise ValueError("Z: mapping back to the bounds overflows a float (values far outside [-r, r])")
    return out
