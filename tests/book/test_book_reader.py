"""What a newcomer reads: rules every chapter of the book keeps (issue "a book a newcomer learns from").

* **No process notes**: a reader has no spec, no shared data, no copy of a paper and no test files, so none of
  those words may appear in Markdown or in a visible code cell.
* **Code that teaches**: a visible code cell is at most 15 lines and 88 characters a line (plotting and
  experiment loops live in ``dpclust_book.plots`` / ``dpclust_book.experiments`` or in ``hide-input`` cells).
* **Structure**: learning objectives and prerequisites first; a summary and exercises with folded solutions last;
  claims checked by hidden ``assert`` cells; chapter-local equation labels (no thesis numbering like
  "Definition 2.1.1" except as "(thesis ...)").
"""
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = sorted((ROOT / "book").glob("*.ipynb"))
HIDDEN = {"remove-cell", "remove-input", "hide-input", "hide-cell"}

PROCESS_WORDS = [
    (re.compile(r"\bspecs?\b", re.I), "spec"),
    (re.compile(r"\[(U|R|S|K)\]"), "[U]/[R]/[S]/[K] tags"),
    (re.compile(r"\bconversions?\b", re.I), "conversion"),
    (re.compile(r"copy of the paper", re.I), "copy of the paper"),
    (re.compile(r"\b2-core\b|shared (2-core )?machine", re.I), "machine"),
    (re.compile(r"\.\./shared|shared/data|shared data", re.I), "shared data"),
    (re.compile(r"\bon the real file\b|\breal file\b", re.I), "real file"),
    (re.compile(r"\btests?/\w|\btest file\b|\bpytest\b", re.I), "tests"),
    (re.compile(r"\bpitfall P\d+", re.I), "pitfall numbering"),
    (re.compile(r"threadpool_limits|OPENBLAS_NUM_THREADS", re.I), "thread limits"),
    (re.compile(r"\bseed text\b|\bseeds?/", re.I), "seed text"),
]


def _cells(path):
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _src(cell):
    s = cell.get("source", "")
    return "".join(s) if isinstance(s, list) else s


def _visible(cell):
    return not (HIDDEN & set(cell.get("metadata", {}).get("tags", [])))


def _in_solutions(cells):
    """Indices of the cells between a ``{solution-start}`` and its ``{solution-end}``: an exercise's solution
    folds them into its dropdown, like a ``hide-cell`` toggle."""
    inside, folded = False, set()
    for i, cell in enumerate(cells):
        if cell["cell_type"] == "markdown":
            for m in re.finditer(r"\{solution-(start|end)\}", _src(cell)):
                inside = m.group(1) == "start"
        elif inside:
            folded.add(i)
    return folded


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_no_process_notes(path):
    found = []
    for i, cell in enumerate(_cells(path)):  # code in an exercise's solution is read once it is opened
        if cell["cell_type"] == "code" and not _visible(cell):
            continue
        text = _src(cell)
        for pat, what in PROCESS_WORDS:
            m = pat.search(text)
            if m:
                found.append(f"cell {i}: {what}: ...{text[max(0, m.start() - 40):m.end() + 40]!r}...")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_visible_code_cells_are_short(path):
    bad = []
    for i, cell in enumerate(_cells(path)):  # code in an exercise's solution is read once it is opened
        if cell["cell_type"] != "code" or not _visible(cell):
            continue
        lines = _src(cell).rstrip("\n").splitlines()
        if len(lines) > 15:
            bad.append(f"cell {i}: {len(lines)} lines")
        wide = [ln for ln in lines if len(ln) > 88]
        if wide:
            bad.append(f"cell {i}: a line of {len(wide[0])} characters: {wide[0][:60]!r}...")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_foldable_code_fits_the_column(path):
    """Code behind a "show code" toggle (hide-input, hide-cell) or in an exercise's folded solution is read too:
    no line is cut off at 1280 px."""
    bad = []
    cells = _cells(path)
    folded = _in_solutions(cells)
    for i, cell in enumerate(cells):
        tags = set(cell.get("metadata", {}).get("tags", []))
        shown = {"hide-input", "hide-cell"} & tags or (i in folded and "remove-cell" not in tags)
        if cell["cell_type"] != "code" or not shown:
            continue
        wide = [ln for ln in _src(cell).splitlines() if len(ln) > 88]
        if wide:
            bad.append(f"cell {i}: a line of {len(wide[0])} characters: {wide[0][:60]!r}...")
    assert not bad, "\n".join(bad)


REFERENCE_PAGES = {"privacy_model.ipynb"}  # reference pages, not chapters: no objectives or exercises
STRUCTURED = [p for p in CHAPTERS if p.name not in REFERENCE_PAGES]


@pytest.mark.parametrize("path", STRUCTURED, ids=[p.name for p in STRUCTURED])
def test_chapter_structure(path):
    md = "\n".join(_src(c) for c in _cells(path) if c["cell_type"] == "markdown")
    assert re.search(r"^#+ .*(learning objectives|what you will learn)", md, re.I | re.M), "no learning objectives"
    assert re.search(r"prerequisite", md, re.I), "no prerequisites"
    assert re.search(r"^#+ .*(summary|what to remember)", md, re.I | re.M), "no summary"
    assert re.search(r"^#+ .*exercises", md, re.I | re.M), "no exercises"
    assert re.search(r"dropdown|\{toggle\}", md), "exercise solutions are not folded (dropdown)"
    asserts = sum(1 for c in _cells(path) if c["cell_type"] == "code" and not _visible(c) and "assert" in _src(c))
    assert asserts >= 3, f"only {asserts} hidden assert cells check the chapter's claims"
    m = re.search(r"(?<!thesis )(?<!thesis's )\b(Definition|Theorem|Proposition|Lemma) \d+\.\d+\.\d+", md)
    assert not m, f"thesis numbering used as the chapter's own: {m.group(0)!r} (write '(thesis {m.group(0)})')"


def _imported_classes(code):
    """Class names a cell imports from ``dpclust_core`` (``from dpclust_core[.x] import A, B as C``)."""
    import ast

    names = set()
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dpclust_core"):
            for alias in node.names:
                n = alias.name
                if n[:1].isupper() and not n.isupper():  # a class, not a constant
                    names.add(n)
    return names


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.name for p in CHAPTERS])
def test_classes_a_reader_sees_are_linked_to_the_api(path):
    """Every dpclust_core class imported in code a reader can see (visible or folded) is linked to the API
    reference (``{py:class}`...Name```) somewhere in the chapter's text."""
    cells = _cells(path)
    md = "\n".join(_src(c) for c in cells if c["cell_type"] == "markdown")
    seen = set()
    for c in cells:
        if c["cell_type"] == "code" and "remove-cell" not in c.get("metadata", {}).get("tags", []):
            seen |= _imported_classes(_src(c))
    unlinked = sorted(n for n in seen if not re.search(r"\{py:(class|exc)\}`[~\w.]*\b" + n + "`", md))
    assert not unlinked, f"{path.name}: classes used without a link to the API reference: {unlinked}"
