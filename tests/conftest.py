"""Shared by tests/core (the library) and tests/book (the book's package, its notebooks and its rendered pages).

* ``tests/core`` is put on ``sys.path`` by pytest for its own files, so ``contract_cases`` imports from there;
* the fixtures below give the repository's root and the folder of the papers' datasets (tests that read it skip
  when it is absent);
* the ``slow`` marker (registered in pyproject.toml) is set here on the tests listed in :data:`SLOW`, so that
  ``pytest tests/core -m "not slow"`` is the developer's fast loop; ``make test`` runs everything.
"""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"

#: Tests (file, name prefix) that take several seconds each: Dask clusters, large audits and bad-input fuzzing,
#: big utility runs. Measured with ``--durations``; a prefix marks every parametrisation of a test.
SLOW = {
    "test_dask.py": ("",),
    "test_bad_input.py": ("",),
    "test_estimator_contract.py": ("",),
}


@pytest.fixture(scope="session")
def repo_root() -> Path:
    """The repository's root (where pyproject.toml, book/ and the packages are)."""
    return ROOT


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The folder of the papers' datasets; the test is skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("the papers' datasets are not available here")
    return SHARED_DATA


def pytest_collection_modifyitems(config, items):
    for item in items:
        prefixes = SLOW.get(item.path.name)
        if prefixes is not None and any(item.name.startswith(p) for p in prefixes):
            item.add_marker(pytest.mark.slow)
