#!/usr/bin/env python
"""Check the rendered book in a real (headless) browser.

Usage::

    python tests/render/check_render.py [_build/html | _build/html/book/01_dp_basics.html] [options]

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

2. serves the HTML directory on ``127.0.0.1`` (a random free port, ``http.server`` in a thread), loads each
   page in headless Chromium with every non-local host name unresolvable (no network is needed or used),
   saves a full-width screenshot under ``_render/`` and fails if the screenshot itself is blank.

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


def screenshot(chromium: str, url: str, out_png: Path, width: int, height: int, timeout: float,
               scale: float = 1.0) -> str | None:
    """Screenshot ``url`` in a fresh headless profile; returns an error string or None."""
    out_png.parent.mkdir(parents=True, exist_ok=True)
    if out_png.exists():
        out_png.unlink()
    with tempfile.TemporaryDirectory(prefix="check-render-profile-") as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync",
               "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
               # every host but the local server fails to resolve: no network is used, and CDN
               # scripts (MathJax, Thebe, widgets) fail fast instead of hanging
               "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
               f"--force-device-scale-factor={scale:g}",
               f"--user-data-dir={profile}", f"--window-size={width},{height}",
               f"--screenshot={out_png}", url]
        try:
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                                  env={**os.environ, "DBUS_SESSION_BUS_ADDRESS": "/dev/null"})
        except subprocess.TimeoutExpired:
            return f"chromium timed out after {timeout:.0f} s"
    if not out_png.is_file():
        tail = " | ".join((proc.stderr or "").strip().splitlines()[-3:])
        return f"chromium wrote no screenshot (exit {proc.returncode}): {tail}"
    bad, reason = _image_is_blank(out_png)
    if bad:
        return f"screenshot {reason}"
    return None


def _trim_screenshot(png: Path) -> bool:
    """Cut the empty space between the end of the content and the footer pinned to the window bottom.

    The theme stretches every page to the window height, so a tall window leaves a long blank gap in
    the content column. Returns False if no such gap was found (the page may be taller than the window).
    """
    try:
        import numpy as np
        import matplotlib.pyplot as plt
        arr = plt.imread(str(png))[..., :3]
        h, w = arr.shape[:2]
        band = arr[:, int(0.3 * w): int(0.7 * w)]  # the content column, away from the sidebars' borders
        rows = np.nonzero(np.ptp(band.reshape(h, -1), axis=1) > 0)[0]
        if rows.size < 2:
            return True
        gaps = np.diff(rows)
        j = int(np.argmax(gaps))
        if gaps[j] > 200 and rows[j + 1] > h - 200:  # one big gap, then only the footer
            cut = min(h, rows[j] + 40)
            plt.imsave(str(png), np.concatenate([arr[:cut], arr[rows[j + 1] - 10:]]))
            return True
        return False
    except Exception:  # noqa: BLE001 - trimming is cosmetic
        return True


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
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--height", type=int, default=32000,
                    help="window height in CSS pixels; pages are captured up to it (default 32000)")
    ap.add_argument("--scale", type=float, default=0.5,
                    help="device scale factor of the screenshot (default 0.5; use 1 for sharp text)")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per page in the browser")
    ap.add_argument("--chromium", default=None, help="path of the Chromium binary (default: search PATH)")
    ap.add_argument("--no-browser", action="store_true", help="only the HTML checks, no screenshots")
    args = ap.parse_args(argv)

    target = Path(args.target)
    if not target.exists():
        print(f"check-render: {target} does not exist; build the book first (make build)", file=sys.stderr)
        return 2
    root, pages = collect_pages(target)
    if not pages:
        print(f"check-render: no HTML pages under {target}", file=sys.stderr)
        return 2

    chromium = None
    if not args.no_browser:
        chromium = find_chromium(args.chromium)
        if chromium is None:
            print("check-render: Chromium not found (apt-get install chromium, or pass --chromium)",
                  file=sys.stderr)
            return 2

    problems: dict[str, list[str]] = {}
    server = port = None
    if chromium:
        server, port = serve(root)
    out_dir = Path(args.out)
    t_start = time.perf_counter()
    try:
        for page in pages:
            rel = page.relative_to(root).as_posix()
            t0 = time.perf_counter()
            found = check_page_html(page, root)
            shot_msg = ""
            if chromium:
                png = out_dir / (rel[:-5].replace("/", "__") + ".png")
                height = min(args.height, int(16000 / args.scale))  # Chromium's bitmap limit ~16k px
                err = screenshot(chromium, f"http://127.0.0.1:{port}/{rel}", png, args.width, height,
                                 args.timeout, args.scale)
                if err:
                    found.append(f"browser: {err}")
                else:
                    complete = _trim_screenshot(png)
                    shot_msg = f" -> {png}" + ("" if complete else f" (page taller than {height} px: cut)")
            status = "ok" if not found else f"{len(found)} problem(s)"
            print(f"{rel:<45} {status:<14} {time.perf_counter() - t0:5.1f} s{shot_msg}")
            if found:
                problems[rel] = found
    finally:
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
    print("render check passed: no tracebacks, no empty figures")
    return 0


if __name__ == "__main__":
    sys.exit(main())
