"""Every public estimator and function of the package has a real docstring (a class body that opens with a
concatenated string has none: Python keeps only a plain literal as ``__doc__``), and every estimator's
docstring has the numpydoc sections a reader looks for and an Examples block that the doctests run."""
import importlib
import inspect
import pkgutil

import pytest

import dpclust_core
from dpclust_core.base import DPEstimator

MODULES = [m.name for m in pkgutil.walk_packages(dpclust_core.__path__, "dpclust_core.")
           if not m.name.rsplit(".", 1)[-1].startswith("_")]


def _public():
    seen = {}
    for name in MODULES:
        mod = importlib.import_module(name)
        for attr in getattr(mod, "__all__", []):
            obj = getattr(mod, attr)
            if (inspect.isclass(obj) or inspect.isfunction(obj)) and obj.__module__.startswith("dpclust_core"):
                seen.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
    return sorted(seen.items())


PUBLIC = _public()


def test_there_are_public_objects():
    assert len(PUBLIC) > 100


@pytest.mark.parametrize("name, obj", PUBLIC, ids=[n for n, _ in PUBLIC])
def test_public_object_has_a_docstring(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert len(doc.strip()) >= 20, f"{name} has no docstring"


ESTIMATORS = [(n, o) for n, o in PUBLIC if inspect.isclass(o) and issubclass(o, DPEstimator) and o is not DPEstimator]


@pytest.mark.parametrize("name, obj", ESTIMATORS, ids=[n for n, _ in ESTIMATORS])
def test_estimator_docstring_sections(name, obj):
    doc = obj.__doc__ or ""
    for section in ("Parameters\n", "Attributes\n", "Examples\n"):
        assert section in doc, f"{name}: no {section.strip()} section"
    assert ">>> " in doc, f"{name}: the Examples block has no doctest"



def _api_pages():
    from pathlib import Path
    book = Path(__file__).resolve().parents[2] / "book"
    return (book / "api.md").read_text() + (book / "api_helpers.md").read_text()


MODULE_FILES = [m for m in MODULES if not hasattr(importlib.import_module(m), "__path__")]


@pytest.mark.parametrize("name", MODULE_FILES)
def test_module_is_in_the_api_reference(name):
    """Every public module of the package has its own section (``automodule``) on one of the API pages, so
    that its docstring (often the algorithm, with its numbered equations) can be read and cross-referenced."""
    assert f".. automodule:: {name}\n" in _api_pages(), f"{name} is missing from the API pages"
