"""Hygiene of the committed book: notebooks without outputs, the table of contents, citations.

These checks fail for real reasons: a notebook committed with outputs (stale results, large diffs),
a chapter missing from ``_toc.yml`` (never built or published), a ``_toc.yml`` entry without a file
(the build breaks), a {cite} key missing from ``book/references.bib`` (the ``-W`` build breaks), a
notebook that touches the global ``np.random`` state (its results are not reproducible).
"""
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BOOK = ROOT / "book"
NOTEBOOKS = sorted(BOOK.glob("*.ipynb"))
NB_IDS = [p.name for p in NOTEBOOKS]


def _load(path):
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def _toc_files():
    """Every `file:` entry of _toc.yml (root included), without extension."""
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    files = re.findall(r"^\s*(?:-\s*)?(?:file|root)\s*:\s*['\"]?([^'\"#\s]+)", text, flags=re.M)
    assert files, "_toc.yml lists no files"
    return [f.rsplit(".", 1)[0] if f.endswith((".md", ".ipynb")) else f for f in files]


def _cell_source(cell):
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def test_there_are_notebooks():
    assert NOTEBOOKS, "no notebook in book/"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_is_valid_and_has_no_outputs(path):
    nbformat = pytest.importorskip("nbformat")
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4
    assert nb.metadata.get("kernelspec", {}).get("name") == "python3", "kernelspec must be python3"
    bad = [i for i, c in enumerate(nb.cells)
           if c.cell_type == "code" and (c.get("outputs") or c.get("execution_count") is not None)]
    assert not bad, f"{path.name}: code cells {bad} have outputs or execution counts (clear them)"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_first_cell_is_markdown_title(path):
    cells = _load(path)["cells"]
    assert cells and cells[0]["cell_type"] == "markdown"
    first = _cell_source(cells[0]).lstrip()
    assert first.startswith("# ") and len(first.splitlines()[0]) > 2, "first cell must start with '# Title'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_notebook_has_hidden_assert_cells(path):
    """Claims are checked by code cells tagged remove-cell that contain asserts."""
    cells = _load(path)["cells"]
    hidden = [c for c in cells if c["cell_type"] == "code"
              and "remove-cell" in c.get("metadata", {}).get("tags", [])]
    assert any(re.search(r"^\s*assert\b", _cell_source(c), flags=re.M) for c in hidden), \
        f"{path.name} has no remove-cell assert cell"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=NB_IDS)
def test_no_global_numpy_random(path):
    """Notebooks use seeded Generators; the legacy global np.random state is never used."""
    pattern = re.compile(r"\b(?:np|numpy)\.random\.(?!default_rng\b|Generator\b|SeedSequence\b|PCG64\b)\w+")
    for i, c in enumerate(_load(path)["cells"]):
        if c["cell_type"] == "code":
            m = pattern.search(_cell_source(c))
            assert m is None, f"{path.name} cell {i} uses the global RNG: {m.group(0)}"


def test_every_notebook_is_in_the_toc():
    listed = set(_toc_files())
    missing = [p.name for p in NOTEBOOKS if f"book/{p.stem}" not in listed]
    assert not missing, f"notebooks not listed in _toc.yml: {missing}"


def test_every_toc_entry_exists():
    missing = [f for f in _toc_files()
               if not any((ROOT / f"{f}{ext}").exists() for ext in (".ipynb", ".md"))]
    assert not missing, f"_toc.yml lists files that do not exist: {missing}"


def _bib_keys():
    text = (BOOK / "references.bib").read_text(encoding="utf-8")
    return re.findall(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", text, flags=re.M)


def test_bib_keys_are_unique():
    keys = _bib_keys()
    dupes = sorted({k for k in keys if keys.count(k) > 1})
    assert keys and not dupes, f"duplicate keys in references.bib: {dupes}"


def _cited_keys():
    """(file, key) for every {cite}, {cite:p}, {cite:t}, ... role in the book's markdown."""
    role = re.compile(r"\{cite(?::\w+)?\}`([^`]+)`")
    texts = []
    for md in sorted(BOOK.glob("*.md")):
        texts.append((md.name, md.read_text(encoding="utf-8")))
    for nb in NOTEBOOKS:
        for c in _load(nb)["cells"]:
            if c["cell_type"] == "markdown":
                texts.append((nb.name, _cell_source(c)))
    out = []
    for name, text in texts:
        for group in role.findall(text):
            out.extend((name, k.strip()) for k in group.split(",") if k.strip())
    return out


def test_every_cited_key_is_in_references_bib():
    keys = set(_bib_keys())
    unknown = sorted({(f, k) for f, k in _cited_keys() if k not in keys})
    assert not unknown, f"{{cite}} keys missing from book/references.bib: {unknown}"


# ------------------------------------------------------------------ the rendered-book checker itself
def _load_render_checker():
    import importlib.util
    spec = importlib.util.spec_from_file_location("check_render", ROOT / "tests" / "book" / "render" / "check_render.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("check_render", mod)  # dataclasses look their module up there
    spec.loader.exec_module(sys.modules["check_render"])
    return sys.modules["check_render"]


_CELL = ('<div class="cell docutils container"><div class="cell_input docutils container">'
         '<pre>{src}</pre></div>{out}</div>')
_OUT = '<div class="cell_output docutils container">{body}</div>'


def _fake_book(tmp_path):
    import numpy as np
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    (tmp_path / "_static").mkdir()
    (tmp_path / "_images").mkdir()
    plt.imsave(tmp_path / "_images" / "blank.png", np.ones((20, 30, 3)))
    plt.imsave(tmp_path / "_images" / "good.png", np.random.default_rng(0).random((20, 30, 3)))
    cells = [
        _CELL.format(src="plt.plot(x); plt.show()", out=_OUT.format(body='<img src="_images/good.png"/>')),
        _CELL.format(src="fig, ax = plt.subplots()", out=_OUT.format(body='<img src="_images/blank.png"/>')),
        _CELL.format(src="plt.show()", out=""),
        _CELL.format(src="fig, ax = plt.subplots()", out=_OUT.format(body='<img src="_images/missing.png"/>')),
        _CELL.format(src="1/0", out=_OUT.format(
            body='<div class="output traceback highlight-ipythontb"><pre>ZeroDivisionError: division by zero'
                 '</pre></div>')),
        _CELL.format(src="run()", out=_OUT.format(
            body='<div class="output stderr highlight-myst-ansi"><pre>KeyError: 3</pre></div>')),
        _CELL.format(src="import warnings", out=_OUT.format(
            body='<div class="output stderr"><pre>UserWarning: careful</pre></div>')),
        _CELL.format(src="def f():\n    plt.show()\ninteract(f)", out=_OUT.format(
            body='<script type="application/vnd.jupyter.widget-view+json">{}</script>')),
        '<div class="cell tag_hide-input docutils container"><details class="hide above-input">'
        '<summary>Show code</summary><div class="cell_input docutils container"><pre>plt.show()</pre></div>'
        '</details>' + _OUT.format(body='<img src="_images/good.png"/>') + '</div>',
        _CELL.format(src="print('Traceback (most recent call last)')", out=""),
        '<div class="cell tag_remove-output docutils container"><div class="cell_input docutils container">'
        '<pre>plt.show()</pre></div></div>',
    ]
    page = tmp_path / "chapter.html"
    page.write_text("<html><body>" + "\n".join(cells) + "</body></html>", encoding="utf-8")
    (tmp_path / "genindex.html").write_text("<html></html>", encoding="utf-8")
    (tmp_path / "index.html").write_text('<html><head><meta http-equiv="Refresh" content="0; url=x.html">'
                                         "</head></html>", encoding="utf-8")
    return page


def test_render_checker_finds_tracebacks_and_empty_figures(tmp_path):
    cr = _load_render_checker()
    page = _fake_book(tmp_path)
    problems = cr.check_page_html(page, tmp_path)
    by_cell = {}
    for p in problems:
        by_cell.setdefault(int(p.split()[1]), []).append(p)
    assert set(by_cell) == {2, 3, 4, 5, 6}, problems
    assert "blank" in by_cell[2][0]
    assert "shows no image" in by_cell[3][0]
    assert "missing" in by_cell[4][0]
    assert "traceback" in by_cell[5][0] and "ZeroDivisionError" in by_cell[5][0]
    assert "KeyError" in by_cell[6][0]
    root, pages = cr.collect_pages(tmp_path)
    assert [p.name for p in pages] == ["chapter.html"]  # redirect stub and genindex skipped
    assert cr.collect_pages(page)[0] == tmp_path.resolve()  # a single page finds its build root
    assert cr.main([str(page), "--no-browser"]) == 1


def test_render_checker_server_serves_the_build(tmp_path):
    import urllib.request
    cr = _load_render_checker()
    _fake_book(tmp_path)
    server, port = cr.serve(tmp_path)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/chapter.html", timeout=10) as resp:
            assert resp.status == 200 and b"cell_output" in resp.read()
    finally:
        server.shutdown()
        server.server_close()


def test_render_checker_reports_failed_execution(tmp_path):
    cr = _load_render_checker()
    page = _fake_book(tmp_path)
    assert not any("executing" in p for p in cr.check_page_html(page, tmp_path))
    (tmp_path / "reports").mkdir()
    (tmp_path / "reports" / "chapter.err.log").write_text("Traceback\n\x1b[31mValueError\x1b[39m: bad\n")
    msgs = [p for p in cr.check_page_html(page, tmp_path) if p.startswith("executing the notebook failed")]
    assert len(msgs) == 1 and msgs[0].endswith("ValueError: bad")


def test_render_checker_finds_unparsed_math(tmp_path):
    cr = _load_render_checker()
    good = ('<p>The noise is <span class="math notranslate nohighlight">\\(\\mathrm{Lap}(1/\\varepsilon)\\)</span>.</p>'
            '<div class="math notranslate nohighlight">\\[W = \\tfrac12 M\\]</div><pre>price = "$5"</pre>'
            '<code>$HOME</code>')
    # one-line $$...$$ inside a list item: the parser leaves the dollars in the prose
    bad = '<li><p>so <span class="math">\\(W\\)</span> is $\\tfrac g2\\times\\tfrac g2$. The paper says</p></li>'
    assert cr.unparsed_math(good) == []
    found = cr.unparsed_math(good + bad)
    assert len(found) == 1 and "tfrac g2" in found[0]
    page = tmp_path / "page.html"
    page.write_text("<html><body>" + bad + "</body></html>", encoding="utf-8")
    assert any("unparsed math" in p for p in cr.check_page_html(page, tmp_path))


def test_chapter_files_are_named_after_their_numbers():
    """The numbered chapters of _toc.yml, in order, are book/01_*.ipynb, book/02_*.ipynb, ...: the file a reader
    sees in JupyterLab's or Binder's file browser carries the number the book prints."""
    text = (ROOT / "_toc.yml").read_text(encoding="utf-8")
    numbered = text.split("numbered: true", 1)[1].split("- caption:", 1)[0]
    chapters = [line.split("file:", 1)[1].strip() for line in numbered.splitlines() if "file:" in line]
    assert len(chapters) == 10
    for i, path in enumerate(chapters, start=1):
        name = path.rsplit("/", 1)[-1]
        assert name.startswith(f"{i:02d}_"), f"chapter {i} is {path}: name it book/{i:02d}_<title>.ipynb"
        assert (ROOT / f"{path}.ipynb").is_file(), path
    unnumbered = sorted(p.stem for p in (ROOT / "book").glob("[0-9][0-9]_*.ipynb"))
    assert unnumbered == sorted(c.rsplit("/", 1)[-1] for c in chapters), "a numbered file outside the chapters"
