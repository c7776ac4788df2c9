"""Input checks shared by every module: one checker per kind of argument.

Public functions and estimators validate their arguments here, **before any data is read or any budget is
spent**, and then call private kernels that trust their input. Every failure names the argument:

* a value of the wrong *type* (a string for ``epsilon``, ``True`` for a seed, a complex array) raises
  :class:`BadTypeError`, which is both a ``TypeError`` and a ``ValueError``;
* a value of the right type but out of range (``epsilon=0``, ``delta=2``, reversed bounds) raises ``ValueError``.

So ``except ValueError`` catches every bad-input error of the package, and ``except TypeError`` the type errors.

The small *parameter specifications* at the end (:class:`Int`, :class:`Real`, :class:`Options`, ...) are the one
vocabulary of both doors: estimators list them in their declarative parameter table (see :mod:`dpclust_core.base`),
and public functions name them in the :func:`validate_params` decorator, which checks each argument of a call with
its spec before the body runs.
"""
from __future__ import annotations

import functools
import inspect
import math
import numbers

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse

__all__ = [
    "ArrayLike",
    "RNGLike",
    "BadTypeError",
    "EpsilonTooSmallError",
    "MIN_EPSILON",
    "MIN_DELTA",
    "MAX_BOUND",
    "R_RANGE",
    "check_rng",
    "check_real",
    "check_epsilon",
    "check_delta",
    "check_probability",
    "check_sensitivity",
    "check_int",
    "check_positive_int",
    "check_bool",
    "check_options",
    "check_data",
    "check_labels",
    "check_bounds",
    "check_n_clusters",
    "check_ledger",
    "check_shape",
    "check_half_width",
    "check_radius",
    "budget_shares",
    "is_dask_array",
    "validate_params",
]

#: Largest number of rows or runs an argument may ask the package to allocate at once (a public cap that
#: turns a typo such as ``n_runs=10**12`` into a clear error instead of a 512 GiB allocation).
MAX_ALLOCATION = 2**31

#: What an ``rng`` or ``random_state`` argument accepts (see :func:`check_rng`): None (fresh entropy), a
#: non-negative int seed, a ``numpy.random.SeedSequence`` or a ``numpy.random.Generator``. The type hints of the
#: package use it with ``ArrayLike`` (re-exported from ``numpy.typing``) for array inputs.
RNGLike = np.random.Generator | np.random.SeedSequence | int | None


#: Smallest epsilon accepted: the noise of a release at a smaller epsilon would be more than 10^50 times its
#: sensitivity (the formulas of the package square and cube 1/epsilon, which must stay finite).
MIN_EPSILON = 1e-50
#: Smallest delta accepted: the number of tuples, noise scales and search loops grow with log(1/delta); no
#: analysis needs a delta below 1e-100 (far below 1/N for any N).
MIN_DELTA = 1e-100
#: Largest magnitude of a public bound: squared distances of points inside bounds of this size stay finite.
MAX_BOUND = 1e100
#: The range of the half-width ``r`` of the scaled domain ``[-r, r]^d`` every estimator maps its public box onto
#: (the noise formulas square and divide by it, so it stays far from under- and overflow).
R_RANGE = (1e-6, 1e6)


class BadTypeError(TypeError, ValueError):
    """An argument of the wrong type. Both a ``TypeError`` and a ``ValueError``."""


class EpsilonTooSmallError(ValueError):
    """A budget (epsilon or delta) too small for the noise the package can draw: below :data:`MIN_EPSILON` or
    :data:`MIN_DELTA`, or a noise scale beyond 2^48 grid steps. Raised for a derived budget too (a share of the
    user's epsilon); estimators and composite functions re-raise it naming the parameters that set the share
    (see :class:`budget_shares`)."""


# --------------------------------------------------------------------------------------------- scalars
def _is_real_scalar(x) -> bool:
    return isinstance(x, (numbers.Real, np.floating, np.integer)) and not isinstance(x, (bool, np.bool_))


def _is_int_scalar(x) -> bool:
    return isinstance(x, (numbers.Integral, np.integer)) and not isinstance(x, (bool, np.bool_))


def check_rng(rng=None, name: str = "rng") -> np.random.Generator:
    """Normalise ``rng`` (None, a non-negative int seed, a ``SeedSequence`` or a ``Generator``) to a Generator.

    The global ``np.random`` state is never used. ``True``/``False`` are refused (they are not seeds).
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None:
        return np.random.default_rng()
    if isinstance(rng, np.random.SeedSequence):
        return np.random.default_rng(rng)
    if _is_int_scalar(rng):
        if int(rng) < 0:
            raise ValueError(f"{name} must be a non-negative seed, got {rng!r}")
        return np.random.default_rng(int(rng))
    raise BadTypeError(
        f"{name} must be None, a non-negative int or a numpy.random.Generator, got {type(rng).__name__} {rng!r}"
    )


def check_real(value, name: str, *, low=None, high=None, low_open: bool = False, high_open: bool = False,
               allow_inf: bool = False) -> float:
    """Return ``value`` as a float in the given range; refuse strings, bools, complex numbers and NaN."""
    if not _is_real_scalar(value):
        raise BadTypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    v = float(value) + 0.0  # -0.0 becomes 0.0
    if math.isnan(v) or (math.isinf(v) and not allow_inf):
        raise ValueError(f"{name} must be a finite number, got {value!r}")
    if low is not None and (v < low or (low_open and v == low)):
        raise ValueError(f"{name} must be {'>' if low_open else '>='} {low}, got {value!r}")
    if high is not None and (v > high or (high_open and v == high)):
        raise ValueError(f"{name} must be {'<' if high_open else '<='} {high}, got {value!r}")
    return v


def check_epsilon(epsilon, name: str = "epsilon", allow_inf: bool = False, maximum: float | None = None) -> float:
    """Return ``epsilon`` as a float; refuse anything but a finite real number >= :data:`MIN_EPSILON` (and <=
    ``maximum`` when given). A huge epsilon is valid: it switches the noise off (tests and demonstrations use it).

    A value in [0, MIN_EPSILON) raises :class:`EpsilonTooSmallError` (a ``ValueError``), so a share of a budget
    that is too small is reported by :class:`budget_shares` with the parameters that set it.
    """
    v = check_real(epsilon, name, low=0.0, allow_inf=allow_inf)
    if v < MIN_EPSILON:
        raise EpsilonTooSmallError(f"{name} must be > 0 (at least {MIN_EPSILON:g}), got {epsilon!r}")
    if maximum is not None and v > maximum and not math.isinf(v):  # inf only gets here with allow_inf
        raise ValueError(f"{name} must be <= {maximum:g}, got {epsilon!r}")
    return v


def check_delta(delta, name: str = "delta") -> float:
    """Return ``delta`` as a float; refuse anything but a real number in [:data:`MIN_DELTA`, 1).

    A value in [0, MIN_DELTA) raises :class:`EpsilonTooSmallError` (a share of a budget that is too small)."""
    v = check_real(delta, name, low=0.0, high=1.0, high_open=True)
    if v < MIN_DELTA:
        raise EpsilonTooSmallError(f"{name} must be > 0 (at least {MIN_DELTA:g}), got {delta!r}")
    return v


def check_probability(p, name: str, *, open_low: bool = True, open_high: bool = True) -> float:
    """A real number in (0, 1) (ends included when asked)."""
    return check_real(p, name, low=0.0, high=1.0, low_open=open_low, high_open=open_high)


def check_sensitivity(sensitivity, name: str = "sensitivity") -> float:
    """Return ``sensitivity`` as a float; refuse anything but a finite real number >= 0."""
    return check_real(sensitivity, name, low=0.0)


def check_int(value, name: str, minimum: int | None = None, maximum: int | None = None) -> int:
    """Return ``value`` as an int in ``[minimum, maximum]``; refuse floats (even ``3.0``), bools and strings."""
    if not _is_int_scalar(value):
        raise BadTypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    v = int(value)
    if minimum is not None and v < minimum:
        raise ValueError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if maximum is not None and v > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}, got {value!r}")
    return v


#: The largest number of records ``n_public`` may state (a float holds every integer up to it exactly).
N_PUBLIC_MAX = 2.0**53


def check_n_public(value, name: str = "n_public") -> float:
    """A public (or already released) number of records: a real number in ``[1, 2^53]``, int or float alike.

    A noisy count is a float and may fall below 1 on small data; :func:`~dpclust_core.count.private_count` returns it
    clamped to at least 1 (post-processing), which every ``n_public=`` accepts.
    """
    if not _is_real_scalar(value):
        raise BadTypeError(f"{name} must be a number of records (an int or a float), got "
                           f"{type(value).__name__} {value!r}")
    v = float(value)
    if math.isnan(v) or not 1.0 <= v <= N_PUBLIC_MAX:
        raise ValueError(f"{name} must be a number of records in [1, 2^53], got {value!r} (a noisy count can come out "
                         f"below 1 on small data: dpclust_core.private_count clamps it to 1)")
    return v


def check_positive_int(value, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """An integer >= ``minimum`` (default 1)."""
    return check_int(value, name, minimum, maximum)


def check_half_width(r, name: str = "r") -> float:
    """The half-width ``r`` of the scaled domain ``[-r, r]^d``: a real number in :data:`R_RANGE`."""
    return check_real(r, name, low=R_RANGE[0], high=R_RANGE[1])


def check_radius(r, name: str = "radius") -> float:
    """A public radius in the data's units: a real number in [1e-100, :data:`MAX_BOUND`] (the noise scales
    with it, and squared radii must stay finite)."""
    return check_real(r, name, low=1e-100, high=MAX_BOUND)


def check_bool(value, name: str) -> bool:
    """A real bool (``True``/``False`` or a numpy bool), nothing else."""
    if not isinstance(value, (bool, np.bool_)):
        raise BadTypeError(f"{name} must be True or False, got {type(value).__name__} {value!r}")
    return bool(value)


def check_options(value, name: str, options) -> str:
    """One of the strings in ``options``."""
    if not isinstance(value, str):
        raise BadTypeError(f"{name} must be one of {tuple(options)}, got {type(value).__name__} {value!r}")
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


def check_n_clusters(n_clusters, n_samples: int | None = None, name: str = "n_clusters") -> int:
    """Return ``n_clusters`` as an int >= 1.

    ``n_samples`` is compared only when it is *public* (a non-private helper, or ``n_public`` given): a private
    estimator never compares k with ``len(X)``, because the refusal itself would reveal N.
    """
    k = check_int(n_clusters, name, 1, MAX_ALLOCATION)
    if n_samples is not None and k > n_samples:
        raise ValueError(f"{name}={k} is larger than the number of samples ({n_samples})")
    return k


class LedgerBase:
    """The type :func:`check_ledger` accepts: :class:`~dpclust_core.accounting.PrivacyLedger` subclasses it, so this
    module (which the accounting imports) needs no import of the accounting."""

    __slots__ = ()


def check_ledger(ledger, name: str = "ledger"):
    """None or a :class:`~dpclust_core.accounting.PrivacyLedger`."""
    if ledger is not None and not isinstance(ledger, LedgerBase):
        raise BadTypeError(f"{name} must be None or a PrivacyLedger, got {type(ledger).__name__}")
    return ledger


class budget_shares:
    """Context that re-raises an :class:`EpsilonTooSmallError` from inside (a release whose share of the budget
    is too small) naming the user's parameters that set the shares::

        with budget_shares(epsilon=eps, n_share=n_share):
            ...   # releases that spend parts of eps

    The message then ends "(this release's budget is a share set by epsilon=1.0, n_share=1e-250: raise epsilon
    or that share)".
    """

    def __init__(self, what: str = "", **params):
        self.what, self.params = what, params

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None and issubclass(exc_type, EpsilonTooSmallError) and not getattr(exc, "_named", False):
            names = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
            err = EpsilonTooSmallError(f"{self.what + ': ' if self.what else ''}{exc} (this release's budget is a "
                                       f"share set by {names}: raise epsilon or that share)")
            err._named = True
            raise err from None
        return False


def check_shape(size, name: str = "size", *, allow_none: bool = True, maximum: int = MAX_ALLOCATION):
    """An output shape: None (when allowed), an int >= 0 or a tuple of them, with at most ``maximum`` elements
    in all. Returns ``()`` for None, else a tuple of ints."""
    if size is None:
        if allow_none:
            return ()
        raise BadTypeError(f"{name} must be an int or a tuple of ints, got None")
    dims = size if isinstance(size, (tuple, list)) else (size,)
    if isinstance(size, np.ndarray) and size.ndim == 1:
        dims = tuple(size.tolist())
    out = []
    for v in dims:
        if not _is_int_scalar(v):
            raise BadTypeError(f"{name} must be an int or a tuple of ints, got {size!r}")
        if int(v) < 0:
            raise ValueError(f"{name} must not be negative, got {size!r}")
        out.append(int(v))
    total = math.prod(out)
    if total > maximum:
        raise ValueError(f"{name}={size!r} asks for {total} values, more than {maximum} at once")
    return tuple(out)


# --------------------------------------------------------------------------------------------- arrays
def is_dask_array(X) -> bool:
    """True for a ``dask.array.Array`` (checked without importing dask)."""
    return type(X).__module__.startswith("dask.") and hasattr(X, "chunks") and hasattr(X, "dask")


def _check_dtype(arr_dtype, name, reason=None):
    kind = np.dtype(arr_dtype).kind
    if kind in "biuf":
        if kind == "b":
            raise BadTypeError(f"{name} must hold real numbers, got booleans (dtype bool); convert with "
                               f"{name}.astype(float) if that is what you mean")
        return
    what = {"c": "complex numbers", "U": "strings", "S": "bytes", "O": "Python objects",
            "M": "dates", "m": "time deltas", "V": "records"}.get(kind, f"dtype {arr_dtype}")
    why = "; Complex data not supported" if kind == "c" else f": {reason}" if reason else ""
    raise BadTypeError(f"{name} must be numeric (real numbers), got {what} (dtype {arr_dtype}){why}")


def check_data(X, name: str = "X", ndim: int = 2, n_features: int | None = None, *,
               allow_dask: bool = False, allow_empty: bool = False, features_of: str | None = None):
    """Return ``X`` as a float array of ``ndim`` dimensions.

    Refuses, naming ``name``: strings, objects, complex numbers and booleans (:class:`BadTypeError`); a 1-D
    array where 2-D is needed (with the ``reshape`` hint); an empty array or zero columns; NaN or infinity;
    the wrong number of features (``features_of`` names the argument that fixed it, so the message names
    both). With ``allow_dask=True`` a ``dask.array.Array`` is returned as a lazy float
    array after the checks that need no computation (dtype, shape); its values are never computed here.
    Finiteness is checked **lazily**: every block is checked by the worker that reads it, inside whatever
    computation first reads it, which then raises ``ValueError`` naming ``name``.
    """
    if allow_dask and is_dask_array(X):
        _check_dtype(X.dtype, name)
        _check_shape(X.shape, name, ndim, n_features, allow_empty, features_of)
        X = X.astype(float) if X.dtype != np.float64 else X
        return X.map_blocks(_finite_block, name, dtype=float)
    if is_dask_array(X):
        raise BadTypeError(f"{name} is a dask array, which this function does not accept. The fit of DPLloyd, "
                           f"UGkM, EUGkM, MkM, HybridKMeans and choose_k accept one (their statistics are "
                           f"reduced on the workers); to predict block by block, use "
                           f"{name}.map_blocks(est.predict, drop_axis=1); otherwise call {name}.compute() "
                           f"first if it fits in memory")
    if isinstance(X, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of real numbers, got a string")
    if sparse.issparse(X):
        raise BadTypeError(f"{name} is a sparse {type(X).__name__}: sparse input is not supported, pass a dense "
                           f"array ({name}.toarray())")
    try:
        raw = np.asarray(X)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a numeric array: {exc}") from None
    if raw.dtype.kind == "O":
        try:
            raw = np.asarray(X, dtype=float)
        except (TypeError, ValueError) as exc:
            _check_dtype(raw.dtype, name, exc)
    _check_dtype(raw.dtype, name)
    arr = np.asarray(raw, dtype=float)
    _check_shape(arr.shape, name, ndim, n_features, allow_empty, features_of)
    if not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite values")
    return arr


def read_dask_rows(X):
    """A dask array checked in full and with its number of rows known; any other array unchanged.

    One pass over the blocks (``compute_chunk_sizes``, which returns only their lengths) runs every block through
    the lazy finiteness check of :func:`check_data`, so NaN or infinity anywhere raises ``ValueError`` **before**
    anything is released; it also gives a dask array of unknown block sizes (e.g. after a boolean filter) a known
    number of rows. It reads the data once more than the fit itself does.
    """
    if is_dask_array(X):
        X = X.compute_chunk_sizes()
    return X


def _finite_block(block, name):
    """The lazy finiteness check of a dask array, run by a worker on each block it reads."""
    if not np.isfinite(block).all():
        raise ValueError(f"{name} contains NaN or infinite values (found in a block of the dask array)")
    return block


def _check_shape(shape, name, ndim, n_features, allow_empty, features_of=None):
    if ndim == 2 and len(shape) == 1:
        raise ValueError(f"{name} must be 2-D of shape (n_samples, n_features); got 1-D shape {tuple(shape)}. "
                         f"Reshape your data: {name}.reshape(-1, 1) for one feature, {name}.reshape(1, -1) "
                         f"for one sample")
    if len(shape) != ndim:
        raise ValueError(f"{name} must be {ndim}-D, got shape {tuple(shape)}")
    if ndim == 2 and shape[1] == 0:
        raise ValueError(f"{name} has 0 feature(s) (shape={tuple(shape)}) while a minimum of 1 is required.")
    if not allow_empty and shape[0] == 0:
        raise ValueError(f"{name} is empty (shape {tuple(shape)})")
    if n_features is not None and ndim == 2 and shape[1] != n_features:
        ref = f" (as {features_of} has)" if features_of else ""
        raise ValueError(f"{name} has {shape[1]} features, expected {n_features}{ref}")


def check_bounds(bounds, n_features: int | None = None, name: str = "bounds"):
    """Normalise public domain ``bounds`` to two float arrays ``(low, high)`` of length ``n_features``.

    Accepted forms: a pair ``(low, high)`` of scalars applied to every dimension; a pair of arrays of
    lows and highs; or an array of shape ``(n_features, 2)`` with one ``(low, high)`` row per dimension.
    A 2x2 input is read as ``(lows, highs)`` when that reading is valid, otherwise as rows.

    Bounds are **required** and must be public: reading them off the private data would leak its extremes
    (use :func:`dpclust_core.bounds.private_bounds` to find them privately). Raises ``ValueError`` if a bound
    is not finite or exceeds :data:`MAX_BOUND` in magnitude, if ``low >= high`` anywhere, if a width is below
    ``max(1e-100, 1e-12 * magnitude)`` (scaling by it would overflow or lose every digit), if the number of
    dimensions does not match ``n_features``, or if ``bounds`` is a box that ``private_bounds`` flagged as
    unreliable (``reliable=False``).
    """
    if getattr(bounds, "reliable", True) is False:  # a box flagged by private_bounds
        raise ValueError(f"{name} is a box that private_bounds flagged as unreliable; it is refused. "
                         f"{getattr(bounds, 'advice', '')}")
    if bounds is None:
        raise BadTypeError(f"{name} is required: the data domain must be public, never read off the private "
                           f"data (that would leak its extremes); pass {name}=(low, high) from domain knowledge, "
                           f"or find it privately with dpclust_core.bounds.private_bounds")
    if isinstance(bounds, (str, bytes)):
        raise BadTypeError(f"{name} must be a pair (low, high) or an array of (low, high) rows, got a string")
    try:
        raw = np.asarray(bounds)
        if raw.dtype.kind in "cUSOb":
            raise TypeError
        b = raw.astype(float)
    except (TypeError, ValueError):
        raise BadTypeError(f"{name} must be a pair (low, high) or an array of (low, high) rows of real numbers, "
                           f"got {bounds!r}") from None
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
        raise ValueError(f"{name} must be finite, got low={low.tolist()} high={high.tolist()}")
    if np.any(low >= high):
        raise ValueError(f"{name}: every low must be < high, got low={low.tolist()} high={high.tolist()}")
    if np.any(np.abs(low) > MAX_BOUND) or np.any(np.abs(high) > MAX_BOUND):
        raise ValueError(f"{name} must lie within +-{MAX_BOUND:g} (squared distances of larger values overflow a "
                         f"float); rescale the data, got low={low.tolist()} high={high.tolist()}")
    width = high - low
    floor = np.maximum(1e-100, 1e-12 * np.maximum(np.abs(low), np.abs(high)))
    if np.any(width < floor):
        raise ValueError(f"{name}: a width high - low is too small to scale the data by (below 1e-100, or below "
                         f"1e-12 of the bounds' magnitude), got low={low.tolist()} high={high.tolist()}")
    if n_features is not None:
        if low.shape[0] == 1 and n_features > 1:
            low = np.repeat(low, n_features)
            high = np.repeat(high, n_features)
        elif low.shape[0] != n_features:
            raise ValueError(f"{name} describes {low.shape[0]} dimensions but the data has {n_features}")
    return low, high


# --------------------------------------------------------------------------------------------- parameter specs
class Spec:
    """A declarative check of one estimator parameter: ``spec(value, name) -> cleaned value``."""

    def __call__(self, value, name):  # pragma: no cover - abstract
        raise NotImplementedError

    def __or__(self, other):
        return AnyOf(self, other)


class Int(Spec):
    """An integer in ``[minimum, maximum]``."""

    def __init__(self, minimum=None, maximum=MAX_ALLOCATION):
        self.minimum, self.maximum = minimum, maximum

    def __call__(self, value, name):
        return check_int(value, name, self.minimum, self.maximum)


class Real(Spec):
    """A real number in a range (see :func:`check_real`)."""

    def __init__(self, low=None, high=None, *, low_open=False, high_open=False, allow_inf=False):
        self.kw = dict(low=low, high=high, low_open=low_open, high_open=high_open, allow_inf=allow_inf)

    def __call__(self, value, name):
        return check_real(value, name, **self.kw)


class NPublic(Spec):
    """None, or a number of records (see :func:`check_n_public`)."""

    def __call__(self, value, name):
        return None if value is None else check_n_public(value, name)


class HalfWidth(Spec):
    """The half-width ``r`` of the scaled domain (see :func:`check_half_width`)."""

    def __call__(self, value, name):
        return check_half_width(value, name)


class Radius(Spec):
    """A public radius (see :func:`check_radius`)."""

    def __call__(self, value, name):
        return check_radius(value, name)


class Options(Spec):
    """One of a fixed set of strings."""

    def __init__(self, *options):
        self.options = options

    def __call__(self, value, name):
        return check_options(value, name, self.options)


class Bool(Spec):
    def __call__(self, value, name):
        return check_bool(value, name)


class NoneOr(Spec):
    """None, or what ``spec`` accepts."""

    def __init__(self, spec):
        self.spec = spec

    def __call__(self, value, name):
        return None if value is None else self.spec(value, name)


class AnyOf(Spec):
    """The first of several specs that accepts the value; the error of the last one otherwise."""

    def __init__(self, *specs):
        self.specs = specs

    def __call__(self, value, name):
        errors = []
        for spec in self.specs:
            try:
                return spec(value, name)
            except ValueError as exc:
                errors.append(exc)
        kinds = {type(e) for e in errors}
        msg = "; or ".join(str(e) for e in errors)
        raise (BadTypeError if kinds == {BadTypeError} else ValueError)(msg)


class Epsilon(Spec):
    """A privacy budget epsilon (see :func:`check_epsilon`)."""

    def __init__(self, *, allow_inf=False, maximum=None):
        self.allow_inf, self.maximum = allow_inf, maximum

    def __call__(self, value, name):
        return check_epsilon(value, name, allow_inf=self.allow_inf, maximum=self.maximum)


class Delta(Spec):
    def __call__(self, value, name):
        return check_delta(value, name)


class RandomState(Spec):
    """None, a non-negative int, a SeedSequence or a Generator (returned unchanged; see :func:`check_rng`)."""

    def __call__(self, value, name):
        check_rng(value, name)
        return value


class Rng(Spec):
    """None, a non-negative int, a SeedSequence or a Generator, returned as a Generator (see :func:`check_rng`)."""

    def __call__(self, value, name):
        return check_rng(value, name)


class Shape(Spec):
    """An output shape (see :func:`check_shape`), returned as a tuple of ints (``()`` for None)."""

    def __init__(self, *, allow_none=True, maximum=MAX_ALLOCATION):
        self.allow_none, self.maximum = allow_none, maximum

    def __call__(self, value, name):
        return check_shape(value, name, allow_none=self.allow_none, maximum=self.maximum)


class Data(Spec):
    """A finite float array of ``ndim`` dimensions (see :func:`check_data`)."""

    def __init__(self, ndim=2, *, allow_dask=False, allow_empty=False):
        self.kw = dict(ndim=ndim, allow_dask=allow_dask, allow_empty=allow_empty)

    def __call__(self, value, name):
        return check_data(value, name, **self.kw)


class Ledger(Spec):
    def __call__(self, value, name):
        return check_ledger(value, name)


class BoundsSpec(Spec):
    """Required public bounds; the shape is checked against the data in ``fit``."""

    def __call__(self, value, name):
        check_bounds(value, None, name)
        return value


class ArrayOrNone(Spec):
    """None, or an array the estimator checks itself in ``fit`` (e.g. initial centroids)."""

    def __call__(self, value, name):
        return value


class Anything(Spec):
    def __call__(self, value, name):
        return value


# --------------------------------------------------------------------------------------------- public functions
def validate_params(**specs):
    """Decorator: check the named arguments of every call with their :class:`Spec` before the body runs.

    Each keyword names an argument of the decorated function and gives its spec (a :class:`Spec`, or any callable
    ``spec(value, name) -> cleaned value``). A call binds its arguments to the signature (a missing or unknown
    argument is Python's usual ``TypeError``), fills in the defaults, replaces each named argument by what its spec
    returns — so the body receives e.g. a float for ``epsilon`` and a ``Generator`` for ``rng`` — and raises the
    check's ``ValueError`` or :class:`BadTypeError` naming the argument otherwise. Arguments are checked in the
    order the decorator lists them. Checks that relate two arguments (a feature count, a size bound by another
    argument) stay in the body.

    >>> @validate_params(epsilon=Epsilon(), k=Int(1))
    ... def f(k, epsilon=1.0):
    ...     return k, epsilon
    >>> f(3, epsilon=2)
    (3, 2.0)
    >>> f(0)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer >= 1, got 0
    """
    def decorate(func):
        signature = inspect.signature(func)
        unknown = set(specs) - set(signature.parameters)
        if unknown:
            raise TypeError(f"validate_params on {func.__qualname__}: no argument named {sorted(unknown)}")

        @functools.wraps(func)
        def checked(*args, **kwargs):
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            arguments = bound.arguments
            for name, spec in specs.items():
                arguments[name] = spec(arguments[name], name)
            return func(*bound.args, **bound.kwargs)

        checked.__signature__ = signature
        checked._param_specs = dict(specs)
        return checked

    return decorate


def check_labels(a, name, *, integer=False):
    """A non-empty array of finite real labels (strings, objects, complex numbers and NaN refused); with
    ``integer``, whole numbers only (returned as int64)."""
    if isinstance(a, (str, bytes)):
        raise BadTypeError(f"{name} must be an array of labels (numbers), got a string")
    try:
        raw = np.asarray(a)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"{name} must be a numeric array of labels: {exc}") from None
    if raw.dtype.kind not in "iuf":
        raise BadTypeError(f"{name} must hold numeric labels, got dtype {raw.dtype}")
    if raw.ndim == 0 or raw.size == 0:
        raise ValueError(f"{name} must be a non-empty array of labels, got shape {raw.shape}")
    if raw.dtype.kind == "f":
        if not np.all(np.isfinite(raw)):
            raise ValueError(f"{name} contains NaN or infinite values")
        if integer:
            if np.any(raw != np.round(raw)):
                raise ValueError(f"{name} must hold integer labels, got a fractional value")
            raw = raw.astype(np.int64)
    return raw
