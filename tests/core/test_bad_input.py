"""Bad input everywhere (property-based, Hypothesis): every public function and estimator refuses it clearly.

The cases are in tests/core/contract_cases (one file per area of the package). Hypothesis **generates** the bad values:

* every argument a :class:`~contract_cases.FunctionCase` lists with a *kind* (``epsilon``, ``delta``, ``data``,
  ``labels``, ...) is replaced by values drawn from that kind's strategies (:data:`KINDS`): floats from the whole
  float line filtered to the invalid region of the kind (NaN, ±inf, 0, negatives, outside (0, 1)), integers far
  out of range, wrong types (text, bools, complex numbers, lists, dicts, None where None is not the default), and
  for arrays the valid value with NaN/inf injected at a drawn position, wrong ndim, zero rows or columns,
  string/object/complex/bool dtypes, labels out of range, negative, fractional or of the wrong length;
* every parameter of every estimator is attacked with values generated from its declarative spec and filtered to
  those the spec refuses; ``fit`` is attacked with bad data and ``predict`` with bad data and the wrong number of
  features.

Each call must raise a ``ValueError`` or ``TypeError`` whose message names the argument — never an IndexError, a
ZeroDivisionError, an OverflowError, an AttributeError, a MemoryError, a silent result, or a hang (a call that runs
longer than 20 s fails; while a call runs, the address space may grow by at most 2 GiB, so an attempt at a huge
allocation is a ``MemoryError`` and fails).

Besides the invalid values, the *extreme but valid* magnitudes of a kind (ε = 1e300 or 1e-300, a width of 1e-310,
N = 10**18, ...) are drawn too: for those the call may refuse by name or return, but must not hang, crash or
return NaN.

``test_every_public_callable_has_a_case`` fails when a public function or estimator of the package has no case,
so coverage cannot silently regress. Set ``BAD_INPUT_TALLY=<file.json>`` to record the outcome of every generated
case (named / unnamed / wrong_type / silent / hang / ok) instead of failing; the file then holds the counts.
"""
from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import math
import os
import pkgutil
import re
import resource
import signal
from collections import Counter

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as npst
from sklearn.base import BaseEstimator

import dpclust_core
from dpclust_core import _validation as V

from contract_cases import collect

ESTIMATORS, FUNCTIONS = collect()

TALLY_PATH = os.environ.get("BAD_INPUT_TALLY")
TALLY: Counter = Counter()
TALLY_FAILURES: list = []
ALARM_SECONDS = 10 if TALLY_PATH else 20
MEMORY_HEADROOM = 2 * 2**30


def _settings(n):
    return settings(max_examples=n, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture,
                                           HealthCheck.filter_too_much, HealthCheck.data_too_large])


FN_EXAMPLES = 20      # generated values per (function, argument)
PARAM_EXAMPLES = 12   # per (estimator, parameter)
DATA_EXAMPLES = 20    # per estimator, bad X at fit and at predict

# =============================================================================================== strategies
INF = math.inf
FLOATS = st.floats(allow_nan=True, allow_infinity=True)
FINITE = st.floats(allow_nan=False, allow_infinity=False)
NONFINITE = st.sampled_from([math.nan, INF, -INF])
HUGE = st.floats(min_value=1e250, max_value=1.7976931348623157e308)
TINY = st.floats(min_value=5e-324, max_value=1e-250)
HUGE_INT = st.one_of(st.integers(min_value=10**12, max_value=10**18), st.just(2**63),
                     st.integers(min_value=2**64, max_value=10**30))


def _wrong_types(none_ok=False, lists=True):
    """Values of a wrong type for a scalar argument: text (also "1"), bools, complex numbers, lists, dicts..."""
    parts = [st.text(max_size=4), st.booleans(), st.just(np.True_), st.complex_numbers(max_magnitude=1e6),
             st.binary(max_size=3), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2)]
    if lists:
        parts.append(st.lists(st.floats(-10, 10), min_size=1, max_size=3))
    if not none_ok:
        parts.append(st.none())
    return st.one_of(parts)


def _array_wrong_types(none_ok=False):
    parts = [st.text(max_size=4), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
             st.builds(object), st.complex_numbers(max_magnitude=1e6).filter(lambda z: z.imag != 0)]
    if not none_ok:
        parts.append(st.none())
    return st.one_of(parts)


def _scalar(invalid_pred, int_invalid, extreme):
    """A scalar kind: floats of the invalid region, invalid integers, wrong types; and its extreme magnitudes."""
    def make(valid, none_ok):
        bad = st.one_of(FLOATS.filter(invalid_pred), int_invalid, _wrong_types(none_ok))
        return bad, extreme
    return make


def _integer_kind(valid, none_ok):
    bad = st.one_of(st.integers(max_value=0), FLOATS, _wrong_types(none_ok))
    return bad, HUGE_INT


def _vectorised(kind, integer=False):
    """A kind for a formula vectorised over arrays: a list of valid numbers is valid, so the wrong types are
    drawn without lists, and an array holding one invalid value (after a valid one) is invalid too. For an
    integer kind an integral float (3.0, as np.linspace gives) is valid."""
    def make(valid, none_ok):
        scalar_bad, extreme = KINDS[kind](valid, none_ok)
        base = valid if _is_array_like(valid) and np.ndim(valid) == 0 else 1
        numbers = FLOATS.filter(lambda x: not (math.isfinite(x) and x == int(x) and x >= 1)) if integer else None
        if integer:
            bad = st.one_of(st.integers(max_value=0), numbers, _wrong_types(none_ok, lists=False))
        else:
            bad = st.one_of(scalar_bad.filter(lambda v: not isinstance(v, list)))
        arrays = st.one_of(st.integers(max_value=0), numbers) if integer else \
            scalar_bad.filter(lambda v: isinstance(v, (int, float)) and not isinstance(v, bool))
        return st.one_of(bad, arrays.map(lambda v: np.array([base, v]))), extreme
    return make


def _random_state(valid, none_ok):
    bad = st.one_of(st.booleans(), st.integers(max_value=-1), FLOATS, st.text(max_size=4),
                    st.lists(st.integers(0, 9), min_size=1, max_size=3), st.complex_numbers(max_magnitude=9),
                    st.builds(np.random.RandomState, st.integers(0, 99)),
                    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1))
    return bad, None


def _ledger(valid, none_ok):
    bad = st.one_of(st.lists(st.integers(), max_size=2), st.text(max_size=4), st.integers(), FLOATS, st.booleans(),
                    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1), st.builds(object))
    return bad, None


def _pair(a, b):
    return st.tuples(a, b)


def _bounds(valid, none_ok):
    two = _pair(FINITE, FINITE).filter(lambda t: t[0] != t[1])
    bad = st.one_of(
        two.map(lambda t: (max(t), min(t))),                                   # reversed
        FINITE.map(lambda x: (x, x)),                                           # equal
        _pair(NONFINITE, FINITE), _pair(FINITE, NONFINITE),                     # NaN / inf at either end
        _pair(st.floats(-1.7976931348623157e308, -9e307), st.floats(9e307, 1.7976931348623157e308)),  # overflow
        _pair(st.text(max_size=3), st.text(max_size=3)), st.text(max_size=4), st.booleans(),
        _pair(st.complex_numbers(max_magnitude=9), st.complex_numbers(max_magnitude=9)),
        FINITE,                                                                 # a scalar
        st.lists(FINITE, min_size=3, max_size=3),                               # three numbers
        st.just((np.zeros(7), np.ones(7))),                                     # 7 dimensions: never the data's
        st.just(np.zeros((2, 2, 2))),
        *([] if none_ok else [st.none()]),
    )
    x = st.floats(-1e6, 1e6)
    extreme = st.one_of(
        _pair(st.floats(-1.7e308, -1e300), st.floats(1e300, 1.7e308)).filter(lambda t: math.isfinite(t[1] - t[0])),
        x.map(lambda v: (v, float(np.nextafter(v, INF)))),                      # a width of one ulp
        x.flatmap(lambda v: st.floats(1e-320, 1e-300).map(lambda w: (v, v + w))).filter(lambda t: t[0] < t[1]),
    )
    return bad, extreme


def _as_float_array(valid):
    return np.array(valid, dtype=float, copy=True)


def _inject(valid, values=NONFINITE):
    """The valid array with one drawn position set to a drawn non-finite value."""
    arr = _as_float_array(valid)
    if arr.ndim == 0 or arr.size == 0:
        return values.map(lambda v: float(v))

    def put(t):
        idx, v = t
        out = arr.copy()
        out.flat[idx] = v
        return out
    return st.tuples(st.integers(0, arr.size - 1), values).map(put)


def _dtype_variants(valid):
    arr = np.asarray(valid)
    shape = arr.shape
    return st.sampled_from([
        arr.astype(complex) + 1j, arr.astype(str), np.full(shape, None, dtype=object),
        np.full(shape, "a", dtype=object), arr != 0, arr.astype(complex),
    ])


def _is_array_like(valid):
    if isinstance(valid, (np.ndarray, list, tuple)):
        try:
            return np.asarray(valid).dtype.kind in "iuf"
        except Exception:
            return False
    return isinstance(valid, (int, float, np.integer, np.floating)) and not isinstance(valid, bool)


def _values(valid, none_ok, nonfinite=NONFINITE):
    """An array argument: NaN/inf injected at a drawn position, wrong dtypes, wrong types."""
    if not _is_array_like(valid):  # an object (MixtureParams, GridSynopsis, ...): anything else is wrong
        return st.one_of(_array_wrong_types(none_ok), FLOATS, st.integers(), npst.arrays(float, (2, 2))), None
    parts = [_inject(valid, nonfinite), _array_wrong_types(none_ok)]
    if np.ndim(valid) > 0:
        parts.append(_dtype_variants(valid))
    else:
        parts.append(st.one_of(st.text(max_size=3), st.booleans()))
    return st.one_of(parts), None


def _scores(valid, none_ok):
    """Scores of an exponential mechanism: -inf is valid (it excludes an option), NaN and +inf are not."""
    return _values(valid, none_ok, st.sampled_from([math.nan, INF]))


def _random_data(template):
    """Data of the template's shape generated by Hypothesis, with a non-finite value injected."""
    arr = np.asarray(template, dtype=float)
    gen = npst.arrays(np.float64, arr.shape, elements=st.floats(-1, 1), fill=st.floats(-1, 1))

    def inject(t):
        a, idx, v = t
        a = a.copy()
        a.flat[idx] = v
        return a
    return st.tuples(gen, st.integers(0, arr.size - 1), NONFINITE).map(inject)


def _data(valid, none_ok, paired=False):
    """A 2-D data argument: NaN/inf at a drawn position, 1-D/3-D/0-D, no rows or columns, bad dtypes, wrong
    types; with ``paired``, also the wrong number of features (another argument fixes it)."""
    arr = np.asarray(valid, dtype=float)
    if arr.ndim != 2:
        return _values(valid, none_ok)
    shapes = [arr[:, 0], arr[None], arr[:0], arr[:, :0], float(arr.flat[0])]
    if arr.shape[0] > 1:
        shapes.append(arr.ravel())
    parts = [_inject(arr), _random_data(arr), st.sampled_from(shapes), _dtype_variants(arr),
             _array_wrong_types(none_ok)]
    if paired:
        wider = [np.hstack([arr, arr[:, :1]])] + ([arr[:, :-1]] if arr.shape[1] > 1 else [])
        parts.append(st.sampled_from(wider))
    return st.one_of(parts), None


def _data_d(valid, none_ok):
    return _data(valid, none_ok, paired=True)


def _label_common(arr, none_ok, paired):
    parts = [_inject(arr), _dtype_variants(arr), _array_wrong_types(none_ok),
             st.tuples(st.integers(0, arr.size - 1), st.floats(0.01, 0.99)).map(
                 lambda t: _set_flat(arr.astype(float), t[0], np.floor(arr.flat[t[0]]) + t[1]))]   # fractional
    if paired:
        parts.append(st.sampled_from([arr[:-1], np.concatenate([arr, arr[:1]])]))                   # wrong length
    return parts


def _set_flat(a, idx, v):
    a = a.copy()
    a.flat[idx] = v
    return a


def _labels(valid, none_ok):
    """Labels indexing 0..max(valid): out of range, negative, fractional, NaN, wrong length, bad dtypes."""
    arr = np.asarray(valid).astype(np.int64)
    pos = st.integers(0, arr.size - 1)
    parts = _label_common(arr, none_ok, True) + [
        st.tuples(pos, st.integers(int(arr.max()) + 1, 2**62)).map(lambda t: _set_flat(arr, *t)),   # out of range
        st.tuples(pos, st.integers(-(2**62), -1)).map(lambda t: _set_flat(arr, *t)),                # negative
    ]
    return st.one_of(parts), None


def _classes(valid, none_ok):
    """Class labels compared pairwise (any integers; -1 is noise): fractional, NaN, wrong length, bad dtypes."""
    return st.one_of(_label_common(np.asarray(valid), none_ok, True)), None


def _grid_labels(valid, none_ok):
    """A grid of cluster labels that defines its own shape: fractional, NaN, bad dtypes, wrong types."""
    return st.one_of(_label_common(np.asarray(valid), none_ok, False)), None


def _options(valid, none_ok):
    """A string option: other strings (also the valid one in capitals), numbers, bools."""
    bad = st.one_of(st.text(max_size=6), st.integers(), st.booleans(), FLOATS, *([] if none_ok else [st.none()]))
    return bad, None


def _flag(valid, none_ok):
    bad = st.one_of(st.integers().filter(lambda i: i not in (0, 1)), st.text(max_size=4), FLOATS,
                    *([] if none_ok else [st.none()]))
    return bad, None


def _count(valid, none_ok):
    """An integer >= 0."""
    return st.one_of(st.integers(max_value=-1), FLOATS, _wrong_types(none_ok)), HUGE_INT


def _shape(valid, none_ok):
    """An output shape: None, an int or a tuple of ints (>= 0)."""
    bad = st.one_of(st.integers(max_value=-1), FLOATS.filter(lambda x: x != int(x) if math.isfinite(x) else True),
                    st.text(max_size=3), st.booleans(), st.complex_numbers(max_magnitude=9),
                    st.tuples(st.integers(1, 3), st.floats(0.1, 2.9)), st.tuples(st.integers(1, 3), st.integers(max_value=-1)))
    return bad, st.one_of(HUGE_INT, st.tuples(HUGE_INT, st.integers(1, 3)))


def _ledger_required(valid, none_ok):
    bad, _ = _ledger(valid, True)
    return st.one_of(bad, st.none()), None


def _delta_or_zero(valid, none_ok):
    """A delta that may be 0: [0, 1)."""
    bad = st.one_of(FLOATS.filter(lambda x: not 0 <= x < 1), st.integers().filter(lambda i: i != 0),
                    _wrong_types(none_ok))
    return bad, st.one_of(TINY, st.floats(1 - 1e-12, 1, exclude_max=True), st.just(-0.0))


def _count_real(valid, none_ok):
    """A number of records N (a real number >= 1, public or a released noisy count)."""
    bad = st.one_of(FLOATS.filter(lambda x: not 1 <= x < INF), st.integers(max_value=0), _wrong_types(none_ok))
    return bad, st.one_of(HUGE, HUGE_INT)


def _int_pair(valid, none_ok):
    """A pair of integers (lo, hi) with lo < hi."""
    two = _pair(st.integers(-10**4, 10**4), st.integers(-10**4, 10**4))
    bad = st.one_of(two.filter(lambda t: t[0] >= t[1]), _pair(FLOATS, FLOATS), st.integers(), st.text(max_size=3),
                    st.lists(st.integers(-5, 5), min_size=3, max_size=3), _pair(HUGE_INT, HUGE_INT),
                    _pair(st.integers(max_value=-(10**4)), st.integers(min_value=10**4)),
                    *([] if none_ok else [st.none()]))
    return bad, None


def _text(valid, none_ok):
    return st.one_of(st.integers(), FLOATS, st.booleans(), st.lists(st.text(max_size=2), max_size=2),
                     st.binary(max_size=2), *([] if none_ok else [st.none()])), None


def _strings(valid, none_ok):
    """A sequence of strings: a bare string, numbers, lists of numbers."""
    return st.one_of(st.text(min_size=1, max_size=4), st.integers(), FLOATS,
                     st.lists(st.integers(), min_size=1, max_size=2), st.lists(st.none(), min_size=1, max_size=2),
                     *([] if none_ok else [st.none()])), None


def _mapping(valid, none_ok):
    return st.one_of(st.lists(st.integers(), max_size=2), st.text(max_size=3), st.integers(), FLOATS,
                     *([] if none_ok else [st.none()])), None


def _mixture(valid, none_ok):
    """Mixture parameters: NaN/inf in the means or covariances, weights that do not sum to 1 or are negative,
    covariances of the wrong shape; and wrong types."""
    from dpclust_core.gmm import MixtureParams

    mu, cov, w = (np.asarray(a, dtype=float) for a in (valid.means, valid.covariances, valid.weights))
    variants = st.one_of(
        _inject(mu).map(lambda m: MixtureParams(m, cov, w)),
        _inject(cov).map(lambda c: MixtureParams(mu, c, w)),
        _inject(w).map(lambda x: MixtureParams(mu, cov, x)),
        st.floats(0.01, 10).map(lambda f: MixtureParams(mu, cov, w * (1 + f))),
        st.just(MixtureParams(mu, cov, np.r_[-w[0], w[1:] + 2 * w[0] / max(len(w) - 1, 1)])),
        st.just(MixtureParams(mu, cov[:, :1, :1], w)),
        st.just(MixtureParams(mu.astype(str), cov, w)),
    )
    return st.one_of(variants, _array_wrong_types(none_ok), FLOATS, npst.arrays(float, (2, 2))), None


def _mask(valid, none_ok):
    """A boolean mask (0/1 numbers allowed): NaN, other numbers, bad dtypes, wrong types."""
    arr = np.asarray(valid)
    other = st.one_of(st.sampled_from([math.nan, INF, -1.0, 2.0]), st.floats(0.01, 0.99))
    return st.one_of(_inject(arr, other), st.sampled_from([arr.astype(complex) + 1j, arr.astype(str),
                                                           np.full(arr.shape, None, dtype=object)]),
                     _array_wrong_types(none_ok)), None


def _values_inf_ok(valid, none_ok):
    """An array where +inf and -inf mean "no bound": NaN is the bad value."""
    return _values(valid, none_ok, st.just(math.nan))


#: kind -> maker(valid value, None is the default) -> (strategy of invalid values, strategy of extreme valid ones)
KINDS = {
    "epsilon": _scalar(lambda x: not 0 < x < INF, st.integers(max_value=0),
                       st.one_of(HUGE, TINY, st.floats(1e3, 1e20), st.floats(1e-50, 1e-30))),
    "delta": _scalar(lambda x: not 0 < x < 1, st.integers(), st.one_of(TINY, st.floats(1 - 1e-12, 1, exclude_max=True))),
    "probability": _scalar(lambda x: not 0 < x < 1, st.integers(),
                           st.one_of(TINY, st.floats(1 - 1e-12, 1, exclude_max=True))),
    "positive_int": _integer_kind,
    "size": _integer_kind,
    "nonneg_real": _scalar(lambda x: not 0 <= x < INF, st.integers(max_value=-1),
                           st.one_of(HUGE, TINY, st.just(-0.0))),
    "positive_real": _scalar(lambda x: not 0 < x < INF, st.integers(max_value=0), st.one_of(HUGE, TINY)),
    "random_state": _random_state,
    "ledger": _ledger,
    "bounds": _bounds,
    "values": _values,
    "scores": _scores,
    "data": _data,
    "data_d": _data_d,
    "labels": _labels,
    "classes": _classes,
    "grid_labels": _grid_labels,
    "option": _options,
    "flag": _flag,
    "count": _count,
    "shape": _shape,
    "ledger_required": _ledger_required,
    "delta_or_zero": _delta_or_zero,
    "count_real": _count_real,
    "int_pair": _int_pair,
    "text": _text,
    "strings": _strings,
    "mapping": _mapping,
    "mixture": _mixture,
    "values_inf_ok": _values_inf_ok,
    "mask": _mask,
    # None documented as a valid value (e.g. a failed fit's centres, ⊥), though not the default
    "data_none_ok": lambda valid, none_ok: _data(valid, True),
    "data_d_none_ok": lambda valid, none_ok: _data(valid, True, paired=True),
}
KINDS.update({f"{k}_vec": _vectorised(k) for k in ("epsilon", "probability", "positive_real", "count_real")})
KINDS["positive_int_vec"] = _vectorised("positive_int", integer=True)


# =============================================================================================== the oracle
class _Hang(Exception):
    pass


def _vm_size():
    """The process's address space in bytes (Linux); None where /proc is not available."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * resource.getpagesize()
    except OSError:
        return None


@contextlib.contextmanager
def _guarded(seconds=ALARM_SECONDS):
    """Fail a hang (SIGALRM) and a huge allocation (the address space may grow by MEMORY_HEADROOM; Linux)."""
    def handler(signum, frame):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, handler)
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    vm = _vm_size()
    capped = False
    if vm is not None:
        cap = vm + MEMORY_HEADROOM if hard == resource.RLIM_INFINITY else min(vm + MEMORY_HEADROOM, hard)
        try:
            resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
            capped = True
        except (ValueError, OSError):
            pass
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        if capped:
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _names(msg, name):
    """True if ``msg`` names ``name`` as a whole word (so "n" is not found inside "finite")."""
    for form in {name, name.replace("_", " ")}:
        if re.search(rf"(?<![A-Za-z0-9_]){re.escape(form)}(?![A-Za-z0-9_])", msg):
            return True
    return False


def _has_nan(result, depth=0):
    if depth > 3:
        return False
    if isinstance(result, float):
        return math.isnan(result)
    if isinstance(result, np.ndarray):
        return result.dtype.kind in "fc" and bool(np.isnan(result).any())
    if isinstance(result, (tuple, list)):
        return any(_has_nan(r, depth + 1) for r in result[:50])
    if isinstance(result, dict):
        return any(_has_nan(r, depth + 1) for r in list(result.values())[:50])
    if isinstance(result, BaseEstimator):
        return any(_has_nan(getattr(result, a), depth + 1) for a in ("cluster_centers_", "means_", "covariances_")
                   if hasattr(result, a))
    return False


def outcome(call, name, family, nan_ok=False):
    """Run ``call`` and classify it: named / unnamed / wrong_type / silent / hang / ok (extreme values only)."""
    try:
        with _guarded():
            result = call()
    except _Hang:
        return "hang", "the call did not return"
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        if _names(msg, name):
            return "named", msg
        return "unnamed", f"{type(exc).__name__}: {msg}"
    except Exception as exc:  # noqa: BLE001 - IndexError, ZeroDivisionError, OverflowError, MemoryError, ...
        return "wrong_type", f"{type(exc).__name__}: {exc}"
    if family == "extreme":
        return ("silent", "returned NaN") if _has_nan(result) and not nan_ok else ("ok", "")
    return "silent", f"returned {type(result).__name__}"


def expect_refusal(call, name, family, where, nan_ok=False):
    kind, detail = outcome(call, name, family, nan_ok)
    if TALLY_PATH:
        TALLY[(where.split("[")[0], family, kind)] += 1
        if kind not in ("named", "ok"):
            TALLY_FAILURES.append({"where": where, "family": family, "outcome": kind, "detail": detail[:300]})
        return
    if kind in ("named", "ok"):
        return
    pytest.fail(f"{where}: a bad {name} ({family}) gave {kind}: {detail}"[:2000])


@pytest.fixture(scope="module", autouse=True)
def _write_tally():
    yield
    if TALLY_PATH:
        rows = [{"test": t, "family": f, "outcome": o, "count": c} for (t, f, o), c in sorted(TALLY.items())]
        with open(TALLY_PATH, "w") as fh:
            json.dump({"counts": rows, "failures": TALLY_FAILURES}, fh, indent=1)


def _families(bad, extreme):
    parts = [bad.map(lambda v: ("invalid", v))]
    if extreme is not None:
        parts.append(extreme.map(lambda v: ("extreme", v)))
    return st.one_of(parts)


def _short(v):
    r = repr(v)
    return r if len(r) < 120 else r[:117] + "..."


# =============================================================================================== functions
def _default(fn, arg):
    """The default of parameter ``arg`` of ``fn`` (``inspect.Parameter.empty`` if it has none)."""
    try:
        p = inspect.signature(fn).parameters.get(arg)
    except (TypeError, ValueError):
        return inspect.Parameter.empty
    return inspect.Parameter.empty if p is None else p.default


FN_ARGS = [pytest.param(fc, arg, kind, id=f"{fc.id}-{arg}") for fc in FUNCTIONS for arg, kind in fc.kinds.items()]


@pytest.mark.parametrize("fc,arg,kind", FN_ARGS)
def test_function_refuses_bad_argument(fc, arg, kind):
    fc.fn(**fc.kwargs)  # the valid call works
    default = _default(fc.fn, arg)
    valid = fc.kwargs[arg] if arg in fc.kwargs else (None if default is inspect.Parameter.empty else default)
    bad, extreme = KINDS[kind](valid, default is None)

    @_settings(FN_EXAMPLES)
    @given(_families(bad, extreme))
    def check(drawn):
        family, value = drawn
        kwargs = dict(fc.kwargs)
        kwargs[arg] = value
        expect_refusal(lambda: fc.fn(**kwargs), arg, family, f"test_function[{fc.id}-{arg}={_short(value)}]",
                       fc.nan_ok)

    check()


def test_every_kind_argument_is_a_parameter():
    """A kind names a real parameter (a typo would attack nothing), and every valid call uses known kinds."""
    for fc in FUNCTIONS:
        params = inspect.signature(fc.fn).parameters
        var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
        for arg, kind in fc.kinds.items():
            assert kind in KINDS, f"{fc.id}: unknown kind {kind!r}"
            assert var_kw or arg in params, f"{fc.id}: {arg!r} is not a parameter of {fc.fn}"


# =============================================================================================== estimators
def _accepted(spec, value):
    try:
        with _guarded(5):
            spec(value, "x")
        return True
    except (ValueError, TypeError):
        return False
    except Exception:  # noqa: BLE001 - a spec that crashes on a value does not accept it
        return False


_ANYTHING = st.one_of(st.text(max_size=4), st.none(), st.booleans(), FLOATS, st.integers(), HUGE_INT,
                      st.lists(FLOATS, min_size=1, max_size=3), st.complex_numbers(max_magnitude=9),
                      st.dictionaries(st.text(max_size=2), st.integers(), max_size=1), st.builds(object),
                      npst.arrays(float, st.tuples(st.integers(0, 3), st.integers(0, 3)), elements=FLOATS))


def _spec_strategies(spec):
    """(invalid candidates, extreme candidates) for a parameter spec; the caller filters with the spec."""
    if isinstance(spec, V.NoneOr):
        return _spec_strategies(spec.spec)
    if isinstance(spec, V.AnyOf):
        pairs = [_spec_strategies(s) for s in spec.specs]
        bad = st.one_of([b for b, _ in pairs])
        ext = [e for _, e in pairs if e is not None]
        return bad, (st.one_of(ext) if ext else None)
    if isinstance(spec, V.Int):
        parts = [FLOATS, _wrong_types(), HUGE_INT]
        if spec.minimum is not None:
            parts.append(st.integers(max_value=spec.minimum - 1))
        if spec.maximum is not None:
            parts.append(st.integers(min_value=spec.maximum + 1))
        return st.one_of(parts), None
    if isinstance(spec, V.Real):
        kw = spec.kw
        parts = [FLOATS, _wrong_types(), st.integers()]
        ext = [HUGE, TINY, st.just(-0.0)]
        if kw["high"] is not None:
            ext.append(st.just(float(kw["high"])))
        return st.one_of(parts), st.one_of(ext)
    if isinstance(spec, V.Epsilon):
        return KINDS["epsilon"](None, False)
    if isinstance(spec, V.Delta):
        return KINDS["delta"](None, False)
    if isinstance(spec, V.Options):
        return st.one_of(st.text(max_size=6), st.sampled_from([o.upper() for o in spec.options]),
                         st.integers(), st.none(), st.booleans()), None
    if isinstance(spec, V.Bool):
        return st.one_of(st.integers(), st.text(max_size=4), st.none(), FLOATS), None
    if isinstance(spec, V.RandomState):
        return KINDS["random_state"](None, True)
    if isinstance(spec, V.Ledger):
        return KINDS["ledger"](None, True)
    if isinstance(spec, V.BoundsSpec):
        return KINDS["bounds"](None, False)
    if isinstance(spec, (V.ArrayOrNone, V.Anything)):
        return None, None
    return _ANYTHING, None  # an estimator's own spec (init, weights, shares, ...): anything it refuses


EST_PARAMS = []
for case in ESTIMATORS:
    for pname, spec in type(case.make())._parameters.items():
        bad, ext = _spec_strategies(spec)
        if bad is not None:
            EST_PARAMS.append(pytest.param(case, pname, spec, id=f"{case.id}-{pname}"))


@pytest.mark.parametrize("case,pname,spec", EST_PARAMS)
def test_estimator_refuses_bad_parameter(case, pname, spec):
    X = np.asarray(case.data(60, 0)) if case.fit_arg == "X" else None
    bad, ext = _spec_strategies(spec)
    bad = bad.filter(lambda v: not _accepted(spec, v))
    if ext is not None:
        ext = ext.filter(lambda v: _accepted(spec, v))

    @_settings(PARAM_EXAMPLES)
    @given(_families(bad, ext))
    def check(drawn):
        family, value = drawn
        est = case.make(random_state=0, **{pname: value}) if pname != "random_state" else case.make(**{pname: value})
        call = (lambda: est.fit(X)) if X is not None else est._validate_params
        expect_refusal(call, pname, family, f"test_estimator_param[{case.id}-{pname}={_short(value)}]")

    check()


X_EST = [c for c in ESTIMATORS if c.fit_arg == "X"]


@pytest.mark.parametrize("case", X_EST, ids=[c.id for c in X_EST])
def test_estimator_refuses_bad_data(case):
    template = np.asarray(case.data(60, 0))
    bad, _ = _data(template, False)

    @_settings(DATA_EXAMPLES)
    @given(bad)
    def check(X):
        expect_refusal(lambda: case.make(random_state=0).fit(X), "X", "invalid",
                       f"test_estimator_fit[{case.id}-X={_short(X)}]")

    check()


PRED_EST = [c for c in X_EST if c.has_predict]


@pytest.mark.parametrize("case", PRED_EST, ids=[c.id for c in PRED_EST])
def test_estimator_predict_refuses_bad_data(case):
    template = np.asarray(case.data(120, 0))
    est = case.make(random_state=0).fit(template)
    bad, _ = _data(template, False, paired=True)  # also the wrong number of features

    @_settings(DATA_EXAMPLES)
    @given(bad)
    def check(X):
        expect_refusal(lambda: est.predict(X), "X", "invalid", f"test_estimator_predict[{case.id}-X={_short(X)}]")

    check()


# =============================================================================================== coverage
#: Public names that take no user input worth attacking, each with the reason.
NOT_ATTACKED = {
    # exceptions and abstract bases: nothing to call with user data
    "dpclust_core.accounting.BudgetExceededError": "an exception class",
    "dpclust_core.accounting.DetachedLedgerError": "an exception class",
    "dpclust_core._validation.BadTypeError": "an exception class",
    "dpclust_core._validation.EpsilonTooSmallError": "an exception class",
    "dpclust_core.base.NotFittedError": "scikit-learn's exception, re-exported",
    "dpclust_core.base.Estimator": "abstract base of every estimator (each subclass has a case)",
    "dpclust_core.base.DPEstimator": "abstract base of every private estimator (each subclass has a case)",
    "dpclust_core.base.CentroidMixin": "a mixin: its predict/transform/score are attacked through every estimator",
    "dpclust_core.base.ScaledCentroidMixin": "a mixin, as CentroidMixin",
    # result records the package builds and returns (users read them, they do not build them)
    "dpclust_core.accounting.LedgerEntry": "a record PrivacyLedger builds after validating the release",
    "dpclust_core.audit.AuditResult": "the record audit() returns",
    "dpclust_core.advisor.Recommendation": "the record recommend() returns",
    "dpclust_core.kmeans.choose_k.ChooseKResult": "the record choose_k() returns",
    "dpclust_core.bounds.PrivateBox": "the box private_bounds() returns",
    "dpclust_core.bounds.BoundsDiagnostics": "the table private_bounds() attaches to its box",
    "dpclust_core.bounds.UnreliableBoundsError": "an exception class",
    "dpclust_core.base.PublishedNWarning": "a warning class",
    "dpclust_core.report.NICVEstimate": "the record synopsis_nicv() returns",
    "dpclust_core.postprocess.ConsistentStatistics": "the record consistent_l1() returns",
    "dpclust_core.svt.Variant": "a row of the fixed table svt.VARIANTS",
    "dpclust_core.gmm.MixtureParams": "a plain record; every function that takes one checks it (the kind "
                                      "'mixture' attacks params=, true=, est=, p=, q= of those functions)",
    # no arguments at all
    # the widget: its bad-argument tests are in tests/book/test_widgets.py
    "dpclust_book.widgets.explore": "attacked argument by argument in tests/book/test_widgets.py",
    "dpclust_book.widgets.Explorer": "built by explore(); attacked in tests/book/test_widgets.py",
}


def _public_api():
    """(qualified name, object) of every callable in ``__all__`` of every public module of the library and of the
    book's data sets and widgets (the book's experiments, plots and style left out)."""
    names = ["dpclust_core"] + [m.name for m in pkgutil.walk_packages(dpclust_core.__path__, "dpclust_core.")]
    names += ["dpclust_book.datasets", "dpclust_book.widgets"]
    out = {}
    for name in names:
        parts = name.split(".")[1:]
        if any(p.startswith("_") for p in parts):
            continue
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", None) or []:
            obj = getattr(mod, attr)
            if callable(obj):
                home = getattr(obj, "__module__", name) or name
                ours = home.startswith(("dpclust_core", "dpclust_book"))
                key = f"{home}.{obj.__name__}" if ours else f"{name}.{attr}"
                out.setdefault(key, obj)
    return out


def test_every_public_callable_has_a_case():
    api = _public_api()
    fns = {getattr(fc.fn, "__func__", fc.fn) for fc in FUNCTIONS if fc.kinds}
    est_classes = {type(c.make()) for c in ESTIMATORS}
    missing = []
    for key, obj in sorted(api.items()):
        if key in NOT_ATTACKED:
            continue
        if inspect.isclass(obj) and issubclass(obj, BaseEstimator):
            if obj not in est_classes:
                missing.append(f"{key} (estimator: add an EstimatorCase)")
        elif obj not in fns:
            missing.append(f"{key} (add a FunctionCase with at least one attacked argument)")
    assert not missing, "public callables without a bad-input case:\n  " + "\n  ".join(missing)
    stale = sorted(set(NOT_ATTACKED) - set(api))
    assert not stale, f"NOT_ATTACKED lists names that are not public any more: {stale}"
