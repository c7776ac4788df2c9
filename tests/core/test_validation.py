"""The validate_params decorator: one vocabulary (the Specs) for estimators and public functions."""
import inspect

import numpy as np
import pytest

from dpclust_core._validation import (BadTypeError, Data, Epsilon, Int, NoneOr, Options, Real, Rng, Shape,
                                      validate_params)


@validate_params(epsilon=Epsilon(), k=Int(1, 10), rng=Rng(), how=Options("a", "b"), size=Shape())
def _f(k, epsilon, rng=None, *, how="a", size=None):
    """A docstring."""
    return k, epsilon, rng, how, size


def test_valid_values_are_cleaned_and_passed_on():
    k, eps, rng, how, size = _f(np.int64(3), 2, rng=5, how="b", size=4)
    assert (k, eps, how, size) == (3, 2.0, "b", (4,))
    assert type(k) is int and type(eps) is float
    assert isinstance(rng, np.random.Generator)
    assert rng.random() == np.random.default_rng(5).random()


def test_defaults_are_checked_and_cleaned_too():
    k, eps, rng, how, size = _f(1, 1.0)
    assert isinstance(rng, np.random.Generator) and how == "a" and size == ()


def test_a_generator_is_passed_through_unchanged():
    g = np.random.default_rng(0)
    assert _f(1, 1.0, g)[2] is g


@pytest.mark.parametrize("kwargs, exc, words", [
    (dict(k=0, epsilon=1.0), ValueError, "k must be an integer >= 1, got 0"),
    (dict(k=11, epsilon=1.0), ValueError, "k must be an integer <= 10"),
    (dict(k=2.0, epsilon=1.0), BadTypeError, "k must be an integer"),
    (dict(k=True, epsilon=1.0), BadTypeError, "k must be an integer"),
    (dict(k=1, epsilon=0.0), ValueError, "epsilon must be > 0"),
    (dict(k=1, epsilon="1"), BadTypeError, "epsilon must be a real number"),
    (dict(k=1, epsilon=1.0, rng=-1), ValueError, "rng must be a non-negative seed"),
    (dict(k=1, epsilon=1.0, rng=True), BadTypeError, "rng must be None"),
    (dict(k=1, epsilon=1.0, how="c"), ValueError, "how must be one of ('a', 'b')"),
    (dict(k=1, epsilon=1.0, size=-1), ValueError, "size must not be negative"),
])
def test_bad_values_raise_the_specs_error_naming_the_argument(kwargs, exc, words):
    with pytest.raises(exc) as info:
        _f(**kwargs)
    assert words in str(info.value)
    if exc is ValueError:  # out of range, not a type error
        assert not isinstance(info.value, TypeError)


def test_arguments_are_checked_in_the_order_the_decorator_lists_them():
    with pytest.raises(ValueError, match="^epsilon"):
        _f(0, 0.0)


def test_binding_errors_are_pythons_own():
    with pytest.raises(TypeError, match="missing"):
        _f(1)
    with pytest.raises(TypeError, match="unexpected keyword"):
        _f(1, 1.0, colour="red")


def test_signature_name_and_docstring_are_kept():
    assert _f.__name__ == "_f" and _f.__doc__ == "A docstring."
    assert list(inspect.signature(_f).parameters) == ["k", "epsilon", "rng", "how", "size"]
    assert inspect.unwrap(_f) is not _f


def test_a_spec_for_an_argument_the_function_lacks_is_refused_at_definition():
    with pytest.raises(TypeError, match="no argument named"):
        @validate_params(epsilon=Epsilon())
        def g(eps):
            return eps


def test_composed_specs_and_plain_callables_work():
    @validate_params(x=Data(1), t=NoneOr(Real(0.0)), s=lambda v, name: str(v))
    def g(x, t=None, s=1):
        return x, t, s

    x, t, s = g([1, 2], s=3)
    assert x.dtype == float and t is None and s == "3"
    with pytest.raises(ValueError, match="t must be >= 0.0"):
        g([1.0], t=-1)
    with pytest.raises(ValueError, match="x contains NaN"):
        g([np.nan])


def test_epsilon_spec_options():
    assert Epsilon(allow_inf=True)(np.inf, "e") == np.inf
    with pytest.raises(ValueError, match="e must be <= 2"):
        Epsilon(maximum=2.0)(3.0, "e")
