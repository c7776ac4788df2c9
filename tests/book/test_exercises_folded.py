"""Exercise solutions stay folded: nothing after a chapter's "Exercises" heading is shown in the open.

A reader who wants to try an exercise must not see its answer under the question. The book's convention:
the explanation sits in a ``{dropdown} Solution`` block of the markdown cell, and every code cell that
computes the answer is tagged ``hide-cell`` (its code *and* its output fold into one toggle), or
``remove-cell`` for the hidden checks. A code cell after the heading without one of those tags prints its
output in the open — the failure this test catches.
"""
import json
import re
from pathlib import Path

import pytest

BOOK = Path(__file__).resolve().parents[2] / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
FOLDED = ({"hide-cell"}, {"remove-cell"}, {"hide-input", "hide-output"})
HEADING = re.compile(r"^#{1,3}\s+Exercises\b", flags=re.M)


def _source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def _exercise_cells(path):
    """(index, cell) of every cell after the Exercises heading (the heading's own cell included)."""
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    start = next((i for i, c in enumerate(cells)
                  if c["cell_type"] == "markdown" and HEADING.search(_source(c))), None)
    return [] if start is None else list(enumerate(cells))[start:]


def _folded(cell):
    tags = set(cell.get("metadata", {}).get("tags", []))
    return any(need <= tags for need in FOLDED)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_exercise_code_cells_are_folded(path):
    open_cells = [i for i, c in _exercise_cells(path) if c["cell_type"] == "code" and not _folded(c)]
    assert not open_cells, (f"{path.name}: code cells {open_cells} after the Exercises heading show their "
                            "output in the open; tag them hide-cell (or remove-cell for checks)")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_question_has_a_folded_solution(path):
    """Every question (a line opening with ``**1.`` or ``1.``) is followed by exactly one dropdown before the
    next question."""
    marks = re.compile(r"^(?:((?:\*\*)?\d+\.[ *])|(?:`{3,}|:{3,})\{dropdown\})", flags=re.M)
    seq = "".join("Q" if m.group(1) else "D"
                  for _, c in _exercise_cells(path) if c["cell_type"] == "markdown"
                  for m in marks.finditer(_source(c)))
    assert re.fullmatch(r"(QD)*", seq), (
        f"{path.name}: questions (Q) and folded solutions (D) in the exercises come as {seq!r}, "
        "not one folded solution per question")


def test_the_check_catches_an_open_output(tmp_path):
    """The rule fails on a notebook whose exercise prints its answer in the open (tagged hide-input only)."""
    nb = {"cells": [{"cell_type": "markdown", "metadata": {}, "source": "## Exercises\n\n**1. Q?**\n"},
                    {"cell_type": "code", "metadata": {"tags": ["hide-input"]}, "source": "1 + 1",
                     "outputs": [], "execution_count": None}],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    path = tmp_path / "bad.ipynb"
    path.write_text(json.dumps(nb), encoding="utf-8")
    with pytest.raises(AssertionError, match="in the open"):
        test_exercise_code_cells_are_folded(path)
    with pytest.raises(AssertionError, match="folded solution"):
        test_every_question_has_a_folded_solution(path)
