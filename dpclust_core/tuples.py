"""The tuple toolkit shared by k-tuple clustering and the Gaussian mixtures.

Both :mod:`dpclust_core.ktuple` and :mod:`dpclust_core.gmm` work on *tuple sets*: arrays ``T`` of shape
``(n_tuples, k, d)``, one k-tuple of points per disjoint chunk of the data (one record changes one tuple). This
module holds what they share. It is an internal API: the names have no underscore because two modules use
them, but they are not exported and not part of the library's public API. Functions trust their input unless
they are called ``check_*`` (or are a :class:`~dpclust_core._validation.Spec`).

* ``MIN_BETA``, ``check_beta(x, name)`` -- a failure probability in ``[MIN_BETA, 1)``;
* ``tuple_shape(T, n_clusters, name)`` -- the public shape ``(n, k, d)`` of a tuple set, read without touching its
  values; ``check_tuples(T, name, n_clusters)`` -- the tuple set as a float array;
* ``separation(X)`` -- ``min_{j != i} ||x_i - x_j||`` for every point of one tuple (the trusting kernel of
  :func:`dpclust_core.ktuple.tuple_separation`);
* ``chunk_tuples(X, labels, n_tuples, k, rng, n_iter, n_init, empty)`` -- the tuple set of per-chunk k-means
  (k-means++ then ``n_iter`` Lloyd iterations on every chunk at once), empty chunks given the public ``empty``;
* ``split_stream(rng)`` -- a generator seeded from one draw of ``rng``, for the data-independent random split;
* ``wrap_tuples(T, radius)`` -- tuples leaving ``B(0, radius)`` replaced by the public all-zero tuple, and
  ``fallback_tuple(k, d, radius)`` -- the data-independent tuple output when private clustering returns nothing;
* ``Shares(size, normalise)`` -- the check of a parameter made of ``size`` positive budget shares.
"""
from __future__ import annotations

import numpy as np

from . import _kernels
from ._validation import BadTypeError, Spec, check_data, check_real

__all__: list[str] = []  # an internal API: nothing here is exported

#: Smallest failure probability ``beta`` accepted: the number of tuples (and the quadratic niceness test on them)
#: grows with log(1/beta); below 1e-30 a fit would take minutes for no meaningful gain.
MIN_BETA = 1e-30


def check_beta(x, name="beta"):
    """A failure probability in [MIN_BETA, 1)."""
    return check_real(x, name, low=MIN_BETA, high=1.0, high_open=True)


def split_stream(rng):
    """A generator seeded from one draw of ``rng``, for the data-independent random split of a sample.

    Its stream never coincides with that of a data generator seeded like the estimator (both with seed 0, say):
    drawn from the same stream, the split would follow the generator's own draws (e.g. the component labels of
    a simulated mixture) and every chunk would hold a single component."""
    return np.random.default_rng(int(rng.integers(2**63)))


def tuple_shape(T, n_clusters=None, name="T"):
    """The public shape ``(n, k, d)`` of a tuple set, read without touching its values."""
    if isinstance(T, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of shape (n_tuples, k, d), got a string")
    shape = tuple(np.shape(T))
    if len(shape) != 3:
        raise ValueError(f"{name} must have shape (n_tuples, k, d), got shape {shape}")
    if shape[0] < 1 or shape[1] < 1 or shape[2] < 1:
        raise ValueError(f"{name} is empty (shape {shape})")
    if n_clusters is not None and shape[1] != n_clusters:
        raise ValueError(f"{name} has tuples of size {shape[1]}, expected n_clusters={n_clusters}")
    return shape


def check_tuples(T, name="T", n_clusters=None):
    """The tuple set ``T`` as a float array of shape (n, k, d), its shape checked first."""
    tuple_shape(T, n_clusters, name)
    return check_data(T, name, ndim=3)


def separation(X):
    d2 = _kernels.sq_distances(X, X)
    np.fill_diagonal(d2, np.inf)
    return np.sqrt(d2.min(axis=1))


class Shares(Spec):
    """``size`` positive finite shares; ``normalise`` rescales them to sum 1, else they must sum to 1."""

    def __init__(self, size, normalise=False):
        self.size, self.normalise = size, normalise

    def __call__(self, value, name):
        if isinstance(value, (str, bytes)):
            raise BadTypeError(f"{name} must be {self.size} positive numbers, got a string")
        try:
            raw = np.asarray(value)
        except Exception:
            raise BadTypeError(f"{name} must be {self.size} positive numbers, got {value!r}") from None
        if raw.dtype.kind not in "iuf":
            raise BadTypeError(f"{name} must be {self.size} positive numbers, got {value!r}")
        f = raw.astype(float)
        if f.shape != (self.size,) or not np.all(np.isfinite(f)) or np.any(f <= 0):
            raise ValueError(f"{name} must be {self.size} positive finite numbers, got {value!r}")
        if self.normalise:
            return f / f.sum()
        if abs(f.sum() - 1) > 1e-9:
            raise ValueError(f"{name} must sum to 1, got {value!r}")
        return f


def chunk_tuples(X, labels, n_tuples, k, rng, n_iter, n_init=1, empty=0.0):
    """The tuple set of per-chunk k-means (NaN centres of empty chunks replaced by the public ``empty``)."""
    T, _ = _kernels.chunk_kmeans(X, labels, n_tuples, k, rng, n_iter=n_iter, n_init=n_init)
    bad = np.isnan(T)
    if bad.any():
        T[bad] = np.broadcast_to(empty, T.shape)[bad]
    return T


def fallback_tuple(k, d, radius):
    """The means of the data-independent fallback mixture (output when ``G`` returns ⊥): ``(i/k)·Λ·e_1``."""
    out = np.zeros((k, d))
    out[:, 0] = radius * np.arange(k) / k
    return out


def wrap_tuples(T, radius):
    """Replace every tuple with a point outside ``B(0, radius)`` (or a NaN: an empty chunk) by the fixed public
    all-zero tuple (§6.2 wrap). Its points coincide, so it can never be selected by GoodCenters, and it is
    never partitioned by far balls: a wrapped tuple only counts against the niceness test."""
    T = np.array(T, dtype=float, copy=True)
    with np.errstate(invalid="ignore"):
        out = ~np.all(np.einsum("tkd,tkd->tk", T, T) <= radius**2, axis=1)
    T[out] = 0.0
    return T, int(out.sum())
