"""Bad input everywhere (property-based, Hypothesis): every public function and estimator refuses it clearly.

For every estimator of tests/contract_cases, every parameter is replaced by values its declarative spec must
refuse (derived from the spec: out of range, wrong type, NaN, bools, strings); for every public function, each
argument listed with a *kind* is replaced by bad values of that kind. Each call must raise a ``ValueError`` or
``TypeError`` whose message names the argument — never an IndexError, a numpy message, a silent result or a hang
(a call that runs longer than 20 s fails).
"""
import math
import signal

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dpclust_core import _validation as V

from contract_cases import collect

ESTIMATORS, FUNCTIONS = collect()
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

BAD = {
    "epsilon": [0, -1.0, math.inf, math.nan, "1", True, None, 1 + 1j, [1.0]],
    "delta": [0, 1, -0.1, 2.0, math.nan, "x", True],
    "positive_int": [0, -3, 2.5, "3", True, None, math.nan],
    "nonneg_real": [-1.0, math.nan, math.inf, "1", True, None],
    "positive_real": [0.0, -1.0, math.nan, math.inf, "1", True],
    "probability": [0.0, 1.0, -0.5, 1.5, math.nan, "x"],
    "random_state": [True, -1, 1.5, "seed", [1, 2], np.random.RandomState(0)],
    "ledger": [[], "ledger", 1],
    "size": [-1, 0, 2.5, "3", 10**13],
    "bounds": [None, (1.0, -1.0), (math.nan, 1.0), (0.0, math.inf), "ab", (-1.7e308, 1.7e308), (0.0, 0.0)],
    "values": [np.array([np.nan, 1.0]), np.array(["a", "b"]), np.array([1 + 1j]), "text", np.array([np.inf])],
    "data": [np.full((20, 2), np.nan), np.zeros((0, 2)), np.zeros(20), np.zeros((20, 0)),
             np.array([["a", "b"]] * 20), np.zeros((20, 2), dtype=complex), np.zeros((20, 2), dtype=bool),
             np.zeros((4, 5, 2))],
}


class _Hang(Exception):
    pass


def _call_with_alarm(fn, seconds=20):
    def handler(signum, frame):
        raise _Hang()

    old = signal.signal(signal.SIGALRM, handler)
    signal.alarm(seconds)
    try:
        return fn()
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def _expect_named_error(call, name):
    try:
        _call_with_alarm(call)
    except _Hang:
        pytest.fail(f"a bad {name} made the call hang")
    except (ValueError, TypeError) as exc:
        msg = str(exc)
        assert name in msg or name.replace("_", " ") in msg, f"error for bad {name} does not name it: {msg!r}"
        assert type(exc).__name__ not in ("IndexError", "ZeroDivisionError", "OverflowError")
        return
    pytest.fail(f"a bad {name} was accepted silently")


def _bad_values_for_spec(spec):
    """Values a parameter spec must refuse."""
    if isinstance(spec, V.NoneOr):
        return [v for v in _bad_values_for_spec(spec.spec) if v is not None]
    if isinstance(spec, V.AnyOf):
        out = []
        for s in spec.specs:
            out += [v for v in _bad_values_for_spec(s) if not _accepted(spec, v)]
        return out
    if isinstance(spec, V.Int):
        vals = [2.5, "3", True, math.nan]
        if spec.minimum is not None:
            vals.append(spec.minimum - 1)
        if spec.maximum is not None:
            vals.append(spec.maximum + 1)
        return vals
    if isinstance(spec, V.Real):
        kw = spec.kw
        vals = [math.nan, "1", True, 1 + 1j]
        if not kw["allow_inf"]:
            vals.append(math.inf)
        if kw["low"] is not None:
            vals.append(kw["low"] - 1.0 if not kw["low_open"] else kw["low"])
        if kw["high"] is not None:
            vals.append(kw["high"] + 1.0 if not kw["high_open"] else kw["high"])
        return vals
    if isinstance(spec, (V.Epsilon,)):
        return BAD["epsilon"]
    if isinstance(spec, V.Delta):
        return BAD["delta"]
    if isinstance(spec, V.Options):
        return ["not-an-option", 3, None]
    if isinstance(spec, V.Bool):
        return ["yes", 2, None]
    if isinstance(spec, V.RandomState):
        return BAD["random_state"]
    if isinstance(spec, V.Ledger):
        return BAD["ledger"]
    if isinstance(spec, V.BoundsSpec):
        return BAD["bounds"]
    return []


def _accepted(spec, value):
    try:
        spec(value, "x")
        return True
    except (ValueError, TypeError):
        return False


EST_PARAMS = []
for case in ESTIMATORS:
    est = case.make()
    for pname, spec in type(est)._parameters.items():
        bad = [v for v in _bad_values_for_spec(spec) if not _accepted(spec, v)]
        if bad:
            EST_PARAMS.append(pytest.param(case, pname, bad, id=f"{case.id}-{pname}"))


@pytest.mark.parametrize("case,pname,bad", EST_PARAMS)
def test_estimator_refuses_bad_parameter(case, pname, bad):
    X = case.data(60, 0) if case.fit_arg == "X" else None

    @SETTINGS
    @given(st.sampled_from(bad))
    def check(value):
        est = case.make(**{pname: value})
        if X is not None:
            _expect_named_error(lambda: est.fit(X), pname)
        else:
            _expect_named_error(lambda: est._validate_params(), pname)

    check()


X_EST = [c for c in ESTIMATORS if c.fit_arg == "X"]


@pytest.mark.parametrize("case", X_EST, ids=[c.id for c in X_EST])
def test_estimator_refuses_bad_data(case):
    @SETTINGS
    @given(st.sampled_from(BAD["data"]))
    def check(X):
        _expect_named_error(lambda: case.make(random_state=0).fit(X), "X")

    check()


FN_ARGS = [pytest.param(fc, arg, kind, id=f"{fc.id}-{arg}") for fc in FUNCTIONS for arg, kind in fc.kinds.items()]


@pytest.mark.parametrize("fc,arg,kind", FN_ARGS)
def test_function_refuses_bad_argument(fc, arg, kind):
    fc.fn(**fc.kwargs)  # the valid call works

    @SETTINGS
    @given(st.sampled_from(BAD[kind]))
    def check(value):
        kwargs = dict(fc.kwargs)
        kwargs[arg] = value
        _expect_named_error(lambda: fc.fn(**kwargs), arg)

    check()
