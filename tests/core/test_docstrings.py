"""Every public estimator and function of the package has a real docstring (a class body that opens with a
concatenated string has none: Python keeps only a plain literal as ``__doc__``), and every estimator's
docstring has the numpydoc sections a reader looks for and an Examples block that the doctests run."""
import importlib
import inspect
import pkgutil
import re

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


# ---------------------------------------------------------------------------------------- words a reader must not see
# Docstrings become the API pages: they speak of the papers and the algorithms, not of how the project was made.
PROCESS_WORDS = [
    ("spec §", re.compile(r"\bspecs?\s*§", re.I)),
    ("spec section", re.compile(r"\bspecs?\s+sections?\b", re.I)),
    ("the spec", re.compile(r"\bthe\s+specs?\b", re.I)),
    ("[DERIVED", re.compile(r"\[DERIVED", re.I)),
    ("PDF conversion", re.compile(r"\bPDF\s+conversion", re.I)),
    ("tests/", re.compile(r"\btests/")),
    ("chapter 0N (old file numbering)", re.compile(r"\bchapters?\s+0\d", re.I)),
    ("session", re.compile(r"\bsessions?\b", re.I)),
    ("issue #", re.compile(r"\bissues?\s*#", re.I)),
    ("machine", re.compile(r"(?<!outgrow one )\bmachines?\b", re.I)),  # the Dask appendix's title is fine
    ("shared/data", re.compile(r"\bshared/")),
]


def _docstrings():
    """(name, docstring) of every module, class, function, method and property of both packages."""
    import dpclust_book

    out = {}
    for pkg in (dpclust_core, dpclust_book):
        names = [pkg.__name__] + [m.name for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + ".")]
        for modname in names:
            mod = importlib.import_module(modname)
            out[modname] = mod.__doc__
            # ``#:`` comments document module constants on the API pages too
            comments = re.findall(r"^[ \t]*#:(.*)$", inspect.getsource(mod), re.M)
            out[f"{modname} (#: comments)"] = "\n".join(comments)
            for attr, obj in vars(mod).items():
                if not (inspect.isclass(obj) or inspect.isfunction(obj)) or obj.__module__ != modname:
                    continue
                out[f"{modname}.{attr}"] = obj.__doc__
                if inspect.isclass(obj):
                    for mname, member in vars(obj).items():
                        if isinstance(member, (staticmethod, classmethod)):
                            member = member.__func__
                        elif isinstance(member, property):
                            member = member.fget
                        if inspect.isfunction(member) or isinstance(member, type):
                            out[f"{modname}.{attr}.{mname}"] = member.__doc__
    return {k: v for k, v in out.items() if v}


def _process_word_hits():
    hits = []
    for name, doc in sorted(_docstrings().items()):
        for label, pattern in PROCESS_WORDS:
            for m in pattern.finditer(doc):
                a, b = max(0, m.start() - 30), m.end() + 30
                hits.append(f"{name}: {label!r} in ...{' '.join(doc[a:b].split())}...")
    return hits


def test_the_scan_sees_modules_classes_methods_and_the_books_helpers():
    docs = _docstrings()
    assert "dpclust_core.mechanisms" in docs and "dpclust_book.widgets.Explorer.live" in docs
    assert "dpclust_core.accounting.PrivacyLedger" in docs and "dpclust_book.style.table" in docs
    assert len(docs) > 500


@pytest.mark.parametrize("text", ["see spec §4.2", "as the spec says", "[DERIVED; checked in tests/test_svt.py]",
                                  "lost in the PDF conversion", "as in chapter 05", "a dev machine",
                                  "filed in issue #22", "the session",
                                  "``../shared/data/s1.arff``", "on small machines"])
def test_the_patterns_catch_process_words(text):
    assert any(p.search(text) for _, p in PROCESS_WORDS)


@pytest.mark.parametrize("text", ["chapter 5 of the thesis", "Section 4.2 of the paper", "specific", "Definition 2",
                                  'the appendix "When the data outgrow one machine"'])
def test_the_patterns_spare_ordinary_words(text):
    assert not any(p.search(text) for _, p in PROCESS_WORDS)


def test_docstrings_are_free_of_process_words():
    hits = _process_word_hits()
    assert not hits, f"{len(hits)} process word(s) in docstrings (they become the API pages):\n" + "\n".join(hits)
