#!/usr/bin/env python
"""Check the rendered book in a real (headless) browser.

Usage::

    python tests/book/render/check_render.py [_build/html | _build/html/book/01_dp_basics.html] [options]

For every HTML page of the built book (or the single page given) this script

1. inspects the built HTML for problems a reader would see:

   * a notebook whose **execution failed** during the build (myst-nb leaves ``reports/<page>.err.log``
     and renders the cells after the failure without outputs);

   * a Python **traceback** in a cell output (myst-nb renders errors as ``div.output.traceback``; any
     output containing ``Traceback (most recent call last)``; a ``stderr`` output naming an
     ``...Error``/``...Exception``);
   * a docutils/Sphinx **error box** (``div.system-message``) in the page;
   * **unparsed math**: a ``$`` left in the prose (outside code and math elements), i.e. TeX the Markdown
     parser did not recognise, which a reader sees raw;
   * an **empty figure cell**: a code cell whose source draws a figure (``plt.show()``, ``plt.subplots``,
     ``fig.savefig``/``display(fig)`` ... outside ``def`` bodies) but whose output has no ``<img>``/``<svg>``
     (cells that display an ipywidget are exempt: widgets need a kernel, and the chapter's static figure
     sits next to them; so are cells tagged ``remove-output``);
   * a **blank or missing image**: an ``<img>`` in a cell output whose PNG/JPEG file is missing or has
     uniform pixels (decoded with ``matplotlib.pyplot.imread``);

2. serves the HTML directory on ``127.0.0.1`` (a random free port, ``http.server`` in a thread) and loads
   each page in headless Chromium (driven by Playwright, with every request to another host refused: the
   reader is offline), at 1280 and at 400 CSS pixels wide, and fails on what a reader would see:

   * **math not rendered**: a page whose HTML holds math but where MathJax produced no formula, or TeX
     source (``\\frac``, ``\\varepsilon``, ``$$`` ...) left in the visible text after typesetting;
   * a Python **traceback or warning** printed in a visible output (``Traceback``, ``...Warning:``);
   * an output **wider than the text column** at 1280 px (printed text, a table or an image cut on the right),
     a **visible code line cut off** at 1280 px (code cells are at most 88 characters a line and must show
     whole), and any horizontal scrolling of the whole page at 400 px (wide math and tables must scroll on
     their own);
   * a **dead slider**: every kernel-free interactive figure (``.dpclust-explore``) has one of its sliders
     moved, and its image must change;
   * a live **ipywidget left on the static page** (it shows nothing without a kernel);
   * a **script error** in the browser console: an uncaught exception or syntax error (e.g. a ``const``
     declared twice by two copies of one inline script), or a failed request for a file of the book itself
     (requests to other hosts are refused on purpose and not counted);
   * **figure text too small on a phone**: at widths below 1000 px every figure (a cell's image or a
     kernel-free slider's frame) must be shown at no less than 96 % of its natural size, so that text drawn
     at 9 pt in a 100-dpi figure (12.5 px) is at least 12 px (9 pt) on the screen;

   and saves full-page screenshots under ``_render/`` (``<page>.png`` at 1280 px, ``<page>.400.png``).

It exits 0 when every page is clean, 1 with a list of problems otherwise, and 2 if it cannot run
(no built HTML, no Chromium). Importing this module has no side effects.
"""
from __future__ import annotations

import argparse
import functools
import http.server
import html
import os
import re
import shutil
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlparse

SKIP_PAGES = {"genindex.html", "search.html", "py-modindex.html"}
# a check of the whole build reads these pages at least (the home page and both halves of the API reference)
REQUIRED_PAGES = ("book/index.html", "book/api/core/index.html", "book/api/helpers/index.html")
VOID_TAGS = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
             "track", "wbr"}
CHROMIUM_CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")

# figure-producing calls, searched in a cell's source outside `def` bodies
FIGURE_CALL = re.compile(
    r"\bplt\.(show|subplots|figure|subplot|imshow|plot|scatter|hist|bar|contourf?|pcolormesh)\s*\("
    r"|\bdisplay\s*\(\s*fig\b|\bfig\w*\.show\s*\(")
ERROR_NAME = re.compile(r"\b\w*(Error|Exception)\b")
TRACEBACK_TEXT = "Traceback (most recent call last)"


# ----------------------------------------------------------------------------- a tiny DOM
@dataclass
class Node:
    tag: str
    attrs: dict
    parent: "Node | None" = None
    children: list = field(default_factory=list)
    text_parts: list = field(default_factory=list)

    @property
    def classes(self) -> set:
        return set((self.attrs.get("class") or "").split())

    def text(self) -> str:
        out = list(self.text_parts)
        for c in self.children:
            out.append(c.text())
        return "".join(out)

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def find_all(self, pred):
        return [n for n in self.iter() if pred(n)]


class _TreeBuilder(HTMLParser):
    """Build a Node tree with the stdlib parser (tolerant of unclosed tags)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {})
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v or "") for k, v in attrs}, parent=self.cur)
        self.cur.children.append(node)
        if tag not in VOID_TAGS:
            self.cur = node

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, {k: (v or "") for k, v in attrs}, parent=self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        # keep text in document order relative to children: store as a pseudo child
        self.cur.children.append(Node("#text", {}, parent=self.cur, text_parts=[data]))


def parse_html(text: str) -> Node:
    b = _TreeBuilder()
    b.feed(text)
    b.close()
    return b.root


# ----------------------------------------------------------------------------- static checks
def _strip_def_bodies(source: str) -> str:
    """Drop the bodies of `def`/`class` blocks (figure calls there run only when the function is called)."""
    out, skip_indent = [], None
    for line in source.splitlines():
        stripped = line.lstrip()
        indent = len(line) - len(stripped)
        if skip_indent is not None:
            if stripped and indent <= skip_indent:
                skip_indent = None
            else:
                continue
        if re.match(r"(async\s+)?def\s|class\s", stripped):
            skip_indent = indent
            continue
        out.append(line)
    return "\n".join(out)


def _image_is_blank(path: Path) -> tuple[bool, str]:
    """(problem?, reason) for one image file: missing, undecodable or uniform pixels."""
    if not path.is_file():
        return True, "image file is missing"
    if path.suffix.lower() not in (".png", ".jpg", ".jpeg"):
        return False, ""
    try:
        import numpy as np
        import matplotlib
        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
        arr = plt.imread(str(path))
    except Exception as exc:  # noqa: BLE001 - report any decoding problem
        return True, f"image cannot be decoded ({exc})"
    if arr.size == 0:
        return True, "image is empty (0 pixels)"
    if arr.ndim == 3 and arr.shape[2] == 4:  # composite onto white so transparent pixels count as background
        rgb = arr[..., :3] * arr[..., 3:4] + (1 - arr[..., 3:4])
    else:
        rgb = arr
    if float(np.ptp(rgb)) == 0.0:
        return True, "image is blank (every pixel has the same colour)"
    return False, ""


def _parts(cell: Node, cls: str):
    """Descendants of ``cell`` with class ``cls``, not descending into nested cells or matches."""
    stack = list(reversed(cell.children))
    while stack:
        n = stack.pop()
        if cls in n.classes:
            yield n
        elif "cell" not in n.classes:
            stack.extend(reversed(n.children))


def _first_part(cell: Node, cls: str):
    return next(_parts(cell, cls), None)


_NOT_PROSE = re.compile(r"<(script|style|pre|code|textarea)[^>]*>.*?</\1>"
                        r"|<(span|div) class=\"math[^\"]*\">.*?</\2>", re.S)


def unparsed_math(html_text: str) -> list[str]:
    """Snippets of page prose that still contain a ``$``: math the Markdown parser did not recognise
    (for example ``$$...$$`` written on one line inside a list item), which a reader sees as raw TeX."""
    prose = _NOT_PROSE.sub(" ", html_text)
    prose = html.unescape(re.sub(r"<[^>]+>", " ", prose))
    return [" ".join(m.group(0).split()) for m in re.finditer(r".{0,40}\$.{0,40}", prose)]


def check_page_html(html_path: Path, html_root: Path) -> list[str]:
    """Problems visible in one built page, from its HTML alone."""
    problems = []
    tree = parse_html(html_path.read_text(encoding="utf-8", errors="replace"))

    # myst-nb writes reports/<page>.err.log when executing the notebook failed (its later cells are empty)
    err_log = html_root / "reports" / html_path.relative_to(html_root).with_suffix(".err.log")
    if err_log.is_file():
        text = re.sub(r"\x1b\[[0-9;]*m", "", err_log.read_text(encoding="utf-8", errors="replace"))
        lines = [ln for ln in text.splitlines() if ln.strip()]
        last = next((ln for ln in reversed(lines) if ERROR_NAME.search(ln)), lines[-1] if lines else "")
        problems.append(f"executing the notebook failed ({err_log.relative_to(html_root)}): "
                        f"{' '.join(last.split())[:140]}")

    for snippet in unparsed_math(html_path.read_text(encoding="utf-8", errors="replace"))[:5]:
        problems.append(f"unparsed math (raw TeX on the page): ...{snippet}...")

    for sm in tree.find_all(lambda n: "system-message" in n.classes):
        problems.append(f"Sphinx/docutils error box: {' '.join(sm.text().split())[:160]}")

    cells = tree.find_all(lambda n: n.tag == "div" and "cell" in n.classes)
    for idx, cell in enumerate(cells, start=1):
        # inputs/outputs may sit inside <details> (tags hide-input / hide-output)
        inp = _first_part(cell, "cell_input")
        outs = [n for n in _parts(cell, "cell_output")]
        source = inp.text() if inp is not None else ""
        first_line = next((ln.strip() for ln in source.splitlines() if ln.strip()), "")[:70]
        where = f"cell {idx} ({first_line!r})"
        out_nodes = [n for o in outs for n in o.iter()]

        # tracebacks and errors
        if any("traceback" in n.classes for n in out_nodes):
            ename = ERROR_NAME.search(" ".join(o.text() for o in outs))
            problems.append(f"{where}: Python traceback in the output"
                            + (f" ({ename.group(0)})" if ename else ""))
        else:
            out_text = "\n".join(o.text() for o in outs)
            if TRACEBACK_TEXT in out_text:
                problems.append(f"{where}: output contains '{TRACEBACK_TEXT}'")
            for n in out_nodes:
                if "stderr" in n.classes and "output" in n.classes:
                    m = ERROR_NAME.search(n.text())
                    if m:
                        problems.append(f"{where}: stderr output reports {m.group(0)}: "
                                        f"{' '.join(n.text().split())[:120]}")
                        break

        # figures
        imgs = [n for n in out_nodes if n.tag == "img"]
        has_vector = any(n.tag == "svg" for n in out_nodes)
        has_widget = any(n.tag == "script" and "widget-view" in n.attrs.get("type", "") for n in out_nodes)
        draws = FIGURE_CALL.search(_strip_def_bodies(source)) is not None
        removed = "tag_remove-output" in cell.classes  # output removed on purpose
        if draws and not imgs and not has_vector and not has_widget and not removed:
            problems.append(f"{where}: the cell draws a figure but its output shows no image")
        for img in imgs:
            src = img.attrs.get("src", "")
            if not src or src.startswith("data:"):
                continue
            target = (html_path.parent / unquote(urlparse(src).path)).resolve()
            try:
                target.relative_to(html_root.resolve())
            except ValueError:
                problems.append(f"{where}: image {src} points outside the built book")
                continue
            bad, reason = _image_is_blank(target)
            if bad:
                problems.append(f"{where}: {reason}: {src}")
    return problems


# ----------------------------------------------------------------------------- browser
class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # keep the check's output readable
        pass


class _Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True
    allow_reuse_address = True


def serve(directory: Path):
    """Start a static HTTP server for ``directory`` on 127.0.0.1 and a free port; returns (server, port)."""
    handler = functools.partial(_QuietHandler, directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="check-render-http", daemon=True)
    thread.start()
    return server, server.server_address[1]


def find_chromium(explicit: str | None = None) -> str | None:
    if explicit:
        return explicit if shutil.which(explicit) or Path(explicit).is_file() else None
    for name in CHROMIUM_CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


# TeX a reader must never see as text once MathJax has run
RAW_TEX = re.compile(r"\\(frac|varepsilon|eps|sum|mathbb|operatorname|sqrt|left|right|begin\{|cdot|le|ge|in)\b"
                     r"|\$\$|\\\(|\\\[")
WARNING_TEXT = re.compile(r"\b\w*Warning:|Traceback \(most recent call last\)")
NO_MATH_PAGES = {"genindex.html", "search.html", "py-modindex.html"}

_PAGE_SCRIPT = r"""
async () => {
  const out = {math_sources: 0, math_rendered: 0, raw_tex: [], warnings: [], too_wide: [], live_widgets: 0,
               explorers: 0, dead_sliders: [], page_width: document.documentElement.scrollWidth};
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    try { await MathJax.startup.promise; } catch (e) {}
  }
  out.math_sources = document.querySelectorAll('.math, span.math, div.math').length;
  out.math_rendered = document.querySelectorAll('mjx-container').length;
  const main = document.querySelector('main') || document.querySelector('article') || document.body;
  const walker = document.createTreeWalker(main, NodeFilter.SHOW_TEXT, {acceptNode: (n) => {
    const p = n.parentElement;
    if (!p || p.closest('mjx-container, code, pre, script, style, .cell_input, .highlight, mjx-assistive-mml'))
      return NodeFilter.FILTER_REJECT;
    const st = getComputedStyle(p);
    if (st.display === 'none' || st.visibility === 'hidden') return NodeFilter.FILTER_REJECT;
    return NodeFilter.FILTER_ACCEPT; }});
  const texts = [];
  while (walker.nextNode()) texts.push(walker.currentNode.nodeValue);
  out.visible_text = texts.join(' ');
  for (const o of document.querySelectorAll('.cell_output')) {
    const r = o.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    out.warnings.push(o.innerText.slice(0, 4000));
  }
  const col = (document.querySelector('main article') || main).getBoundingClientRect();
  for (const el of document.querySelectorAll('.cell_output pre, .cell_output img, .cell_output table, .cell_output .output')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    const overflowing = el.scrollWidth > el.clientWidth + 2 && el.tagName !== 'IMG';
    if (r.right > col.right + 2 || overflowing)
      out.too_wide.push(el.tagName.toLowerCase() + ': ' + (el.innerText || el.getAttribute('src') || '').slice(0, 60));
  }
  out.wide_code = [];
  for (const el of document.querySelectorAll('.cell_input pre')) {
    if (el.getBoundingClientRect().width === 0) continue;
    if (el.scrollWidth > el.clientWidth + 2) {
      const line = (el.textContent || '').split('\n').reduce((a, b) => (b.length > a.length ? b : a), '');
      out.wide_code.push(line.slice(0, 70));
    }
  }
  out.wide_math = [];
  for (const el of document.querySelectorAll('mjx-container[display="true"]')) {
    const r = el.getBoundingClientRect();
    if (r.width === 0) continue;
    const inner = el.firstElementChild ? el.firstElementChild.getBoundingClientRect() : r;
    if (el.scrollWidth > el.clientWidth + 2 || r.right > col.right + 2 || inner.right > col.right + 2) {
      const box = el.closest('div.math');
      out.wide_math.push(((box && box.id) || '') + ' ' + (el.querySelector('mjx-assistive-mml') ?
                         el.querySelector('mjx-assistive-mml').textContent : '').slice(0, 60));
    }
  }
  out.eqno_overlaps = [];
  for (const box of document.querySelectorAll('div.math')) {
    const no = box.querySelector(':scope > span.eqno'), mj = box.querySelector('mjx-container[display="true"]');
    if (!no || !mj) continue;
    const a = no.getBoundingClientRect(), m = mj.getBoundingClientRect();
    if (a.width === 0 || m.width === 0) continue;
    const visibleRight = Math.min(m.right, m.left + mj.clientWidth, col.right);
    if (a.left < visibleRight - 1 && a.right > m.left + 1 && a.top < m.bottom - 1 && a.bottom > m.top + 1)
      out.eqno_overlaps.push(box.id || '(unlabelled)');
  }
  out.small_figures = [];
  for (const img of document.querySelectorAll('.cell_output img, .dpclust-explore img')) {
    const r = img.getBoundingClientRect();
    if (r.width === 0 || !img.naturalWidth) continue;  // hidden (e.g. in a closed dropdown) or not loaded
    out.small_figures.push({scale: r.width / img.naturalWidth, natural: img.naturalWidth,
                            shown: Math.round(r.width),
                            what: (img.getAttribute('alt') || img.getAttribute('src') || '').slice(0, 60)});
  }
  out.live_widgets = document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]').length;
  const exps = document.querySelectorAll('.dpclust-explore');
  out.explorers = exps.length;
  for (const ex of exps) {
    const img = ex.querySelector('img'); const s = ex.querySelector('input[type=range]');
    if (!img || !s) { out.dead_sliders.push(ex.id + ': no image or slider'); continue; }
    const before = img.src;
    s.value = String(+s.value === +s.max ? +s.min : +s.max);
    s.dispatchEvent(new Event('input', {bubbles: true}));
    await new Promise((res) => setTimeout(res, 50));
    if (img.src === before) out.dead_sliders.push(ex.id + ': the image did not change');
  }
  return out;
}
"""


# the smallest text of a figure (9 pt at 100 dpi = 12.5 px) must be shown at >= 12 px (9 CSS pt)
MIN_FIGURE_SCALE = 12.0 / 12.5


class ConsoleLog:
    """Script errors of one page: uncaught exceptions and console errors, but not the requests to other hosts
    that the offline check refuses on purpose."""

    def __init__(self, page, local_prefix: str):
        self.local_prefix = local_prefix
        self.errors: list[str] = []
        self.refused: set[str] = set()
        page.on("pageerror", lambda exc: self.errors.append(f"uncaught {exc!s}"[:200]))
        page.on("console", self._console)
        page.on("requestfailed", self._failed)

    def _failed(self, request):
        if not request.url.startswith(self.local_prefix):
            self.refused.add(request.url)
        else:
            self.errors.append(f"a file of the book failed to load: {request.url[len(self.local_prefix):]}")

    def _console(self, msg):
        if msg.type != "error":
            return
        text = msg.text
        if text.startswith("Failed to load resource"):
            url = (msg.location or {}).get("url", "")
            if url and not url.startswith(self.local_prefix):
                return  # a refused request to another host: the reader is offline
            if "net::ERR_FAILED" in text and not url:
                return
        self.errors.append(f"console error: {text}"[:200])

    def take(self) -> list[str]:
        out, self.errors = self.errors, []
        return out


def browser_checks(page, url: str, width: int, console: ConsoleLog | None = None) -> tuple[list[str], dict]:
    """Load ``url`` at ``width`` CSS pixels and return (problems, raw measurements)."""
    page.set_viewport_size({"width": width, "height": 900})
    if console is not None:
        console.take()
    page.goto(url, wait_until="load", timeout=120_000)
    res = page.evaluate(_PAGE_SCRIPT)
    problems = []
    if console is not None:
        page.wait_for_timeout(100)  # async scripts report their errors after "load"
        for msg in dict.fromkeys(console.take()):
            problems.append(f"script error in the browser console: {msg}")
    name = url.rsplit("/", 1)[-1]
    if res["math_sources"] and not res["math_rendered"]:
        problems.append(f"{res['math_sources']} formulas but none rendered by MathJax (raw TeX on the page)")
    for m in list(RAW_TEX.finditer(res["visible_text"]))[:3]:
        a = max(0, m.start() - 30)
        problems.append(f"TeX left in the rendered text: ...{res['visible_text'][a:m.end() + 30]!r}...")
    for text in res["warnings"]:
        m = WARNING_TEXT.search(text)
        if m:
            problems.append(f"an output shows {m.group(0)!r}: {' '.join(text[max(0, m.start() - 40):m.end() + 60].split())}")
    if width >= 1000:
        for what in res["too_wide"][:5]:
            problems.append(f"output wider than the column at {width} px: {what}")
        for what in res["wide_math"][:5]:
            problems.append(f"a display equation is wider than the column at {width} px: {what.strip()!r}")
        for line in res["wide_code"][:5]:
            problems.append(f"a visible code line is cut off at {width} px: {line!r}")
    elif res["page_width"] > width + 2:
        problems.append(f"the page scrolls sideways at {width} px (content {res['page_width']} px wide)")
    for what in res["eqno_overlaps"][:5]:
        problems.append(f"an equation number sits on its formula at {width} px: {what}")
    if res["live_widgets"]:
        problems.append(f"{res['live_widgets']} live ipywidget(s) on the static page (dead without a kernel; tag "
                        f"the cell remove-cell and show an explore() figure instead)")
    for msg in res["dead_sliders"]:
        problems.append(f"dead slider: {msg}")
    if width < 1000:
        for fig in res["small_figures"]:
            if fig["scale"] < MIN_FIGURE_SCALE:
                problems.append(
                    f"a figure shrinks to {fig['shown']} of its {fig['natural']} px at {width} px: its 9-pt text "
                    f"shows at {12.5 * fig['scale']:.1f} px (< 12 px): {fig['what']!r}")
    if name not in NO_MATH_PAGES:
        pass
    return problems, res


# ----------------------------------------------------------------------------- driver
def _html_root_of(page: Path) -> Path:
    """The build root of a single page: the nearest ancestor that holds `_static`."""
    for parent in [page.parent, *page.parents]:
        if (parent / "_static").is_dir():
            return parent
    return page.parent


def collect_pages(target: Path) -> tuple[Path, list[Path]]:
    target = target.resolve()
    if target.is_file():
        return _html_root_of(target), [target]
    pages = []
    for p in sorted(target.rglob("*.html")):
        rel = p.relative_to(target)
        if rel.parts[0] in ("_static", "_sources", "_images") or p.name in SKIP_PAGES:
            continue
        head = p.read_text(encoding="utf-8", errors="replace")[:3000].lower()
        if 'http-equiv="refresh"' in head:  # a redirect stub (e.g. the root index.html)
            continue
        pages.append(p)
    return target, pages


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("target", nargs="?", default="_build/html",
                    help="the built HTML directory, or one .html page of it (default: _build/html)")
    ap.add_argument("--out", default="_render", help="directory for the screenshots (default: _render)")
    ap.add_argument("--widths", default="1280,400", help="viewport widths in CSS pixels (default 1280,400)")
    ap.add_argument("--chromium", default=None, help="path of the Chromium binary (default: search PATH)")
    ap.add_argument("--no-browser", action="store_true", help="only the HTML checks, no browser")
    ap.add_argument("--no-screenshots", action="store_true", help="browser checks without saving screenshots")
    args = ap.parse_args(argv)

    target = Path(args.target)
    if not target.exists():
        print(f"check-render: {target} does not exist; build the book first (make build)", file=sys.stderr)
        return 2
    root, pages = collect_pages(target)
    if not pages:
        print(f"check-render: no HTML pages under {target}", file=sys.stderr)
        return 2
    widths = [int(w) for w in args.widths.split(",") if w.strip()]
    if target.is_dir():
        found = {p.relative_to(root).as_posix() for p in pages}
        missing = [p for p in REQUIRED_PAGES if p not in found]
        if missing:
            print(f"check-render: the build lacks {', '.join(missing)} (is every page in _toc.yml?)", file=sys.stderr)
            return 1

    chromium = None
    if not args.no_browser:
        chromium = find_chromium(args.chromium)
        if chromium is None:
            print("check-render: Chromium not found (apt-get install chromium, or pass --chromium)",
                  file=sys.stderr)
            return 2
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            print("check-render: the playwright package is missing (pip install playwright)", file=sys.stderr)
            return 2

    problems: dict[str, list[str]] = {}
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    t_start = time.perf_counter()
    server = port = None
    pw = browser = None
    try:
        if chromium:
            server, port = serve(root)
            pw = sync_playwright().start()
            browser = pw.chromium.launch(executable_path=chromium, headless=True,
                                         args=["--no-sandbox", "--disable-gpu", "--disable-quic",
                                               "--disable-background-networking", "--disable-component-update",
                                               "--disable-sync", "--no-first-run", "--disable-extensions"])
        for page_path in pages:
            rel = page_path.relative_to(root).as_posix()
            t0 = time.perf_counter()
            found = check_page_html(page_path, root)
            notes = []
            if browser is not None:
                ctx = browser.new_context(device_scale_factor=1)
                # the reader is offline: every request to another host is refused
                ctx.route("**/*", lambda route: route.continue_() if route.request.url.startswith(
                    f"http://127.0.0.1:{port}/") else route.abort())
                page = ctx.new_page()
                console = ConsoleLog(page, f"http://127.0.0.1:{port}/")
                for width in widths:
                    try:
                        msgs, res = browser_checks(page, f"http://127.0.0.1:{port}/{rel}", width, console)
                    except Exception as exc:  # noqa: BLE001 - report, do not crash the whole check
                        msgs, res = [f"browser failed at {width} px: {exc!s}"[:200]], {}
                    found += [f"[{width}px] {m}" for m in msgs]
                    if not args.no_screenshots:
                        png = out_dir / (rel[:-5].replace("/", "__") + ("" if width >= 1000 else f".{width}") + ".png")
                        page.screenshot(path=str(png), full_page=True)
                        bad, reason = _image_is_blank(png)
                        if bad:
                            found.append(f"[{width}px] screenshot {reason}")
                    if res:
                        notes.append(f"{width}px: {res['math_rendered']} formulas, {res['explorers']} sliders")
                ctx.close()
            status = "ok" if not found else f"{len(found)} problem(s)"
            print(f"{rel:<45} {status:<14} {time.perf_counter() - t0:5.1f} s  {'; '.join(notes)}")
            if found:
                problems[rel] = found
    finally:
        if browser is not None:
            browser.close()
        if pw is not None:
            pw.stop()
        if server is not None:
            server.shutdown()
            server.server_close()

    print(f"checked {len(pages)} page(s) in {time.perf_counter() - t_start:.1f} s")
    if problems:
        print("\nRENDER CHECK FAILED:")
        for rel, found in problems.items():
            for msg in found:
                print(f"  {rel}: {msg}")
        return 1
    print("render check passed: math rendered offline, live sliders, no tracebacks, warnings, empty figures, "
          "outputs wider than the page, script errors or figures shrunk below readable text on a phone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
