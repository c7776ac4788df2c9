"""Run chapters live in JupyterLab, in headless Chromium, as a reader would: open the notebook, Run All, then
move every slider of the live explorers.

Fails when a cell shows an error or writes to stderr (a warning), when a run does not finish, when a slider move
does not redraw its figure, or when a move shows more than one figure. Screenshots go to ``--out``.

    python tests/book/render/check_lab.py book/01_dp_basics.ipynb book/02_dplloyd.ipynb --out _render/lab
"""
from __future__ import annotations

import argparse
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
TOKEN = "dpclust-lab-check"

_STATE = r"""
() => {
  const prompts = [...document.querySelectorAll('.jp-Notebook .jp-CodeCell .jp-InputArea-prompt')].map(p => p.innerText.trim());
  const errors = [...document.querySelectorAll('.jp-Notebook .jp-OutputArea-output')]
    .filter(o => o.matches('[data-mime-type="application/vnd.jupyter.stderr"]') || o.querySelector('.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]') || o.matches('[data-mime-type="application/vnd.jupyter.error"]'))
    .map(o => o.innerText.slice(0, 300));
  return {running: prompts.filter(p => p.includes('*')).length, total: prompts.length,
          unrun: prompts.filter(p => !/\[\d+\]/.test(p)).length, errors};
}
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start_lab(port: int, root: Path) -> subprocess.Popen:
    lab = Path(sys.executable).with_name("jupyter-lab")
    cmd = [str(lab), "--no-browser", "--allow-root", f"--port={port}", f"--IdentityProvider.token={TOKEN}",
           f"--ServerApp.root_dir={root}", "--LabApp.news_url=None",
           "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
    # every cell in the page (no virtual scrolling, so that every output can be read) and no news pop-up
    settings = root.parent / "settings"
    for name, text in {"notebook-extension/tracker": '{"windowingMode": "none"}',
                       "apputils-extension/notification": '{"fetchNews": "false", "checkForUpdates": false}'}.items():
        f = settings / "@jupyterlab" / f"{name}.jupyterlab-settings"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
    env = dict(os.environ, PYTHONPATH=str(ROOT), JUPYTERLAB_SETTINGS_DIR=str(settings))
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    for _ in range(120):
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return proc
        except OSError:
            time.sleep(0.5)
    proc.kill()
    raise RuntimeError("JupyterLab did not start")


def _move_sliders(page) -> tuple[list[str], int]:
    """Press the right arrow on every slider handle; each move must redraw exactly one figure."""
    problems = []
    handles = page.locator(".jp-Notebook .widget-slider .noUi-handle, .jp-Notebook .widget-hslider .noUi-handle")
    for i in range(handles.count()):
        h = handles.nth(i)
        out = h.locator("xpath=ancestor::div[contains(@class,'jp-OutputArea')][1]")
        before = out.locator("img").evaluate_all("(imgs) => imgs.map(i => i.src.slice(-64))")
        h.scroll_into_view_if_needed()
        h.focus()
        at_max = h.evaluate("(e) => +e.getAttribute('aria-valuenow') >= +e.getAttribute('aria-valuemax')")
        key = "ArrowLeft" if at_max else "ArrowRight"  # a slider at its end moves back
        h.press(key)
        h.press(key)
        deadline = time.time() + 60
        after = before
        while time.time() < deadline:
            page.wait_for_timeout(500)
            after = out.locator("img").evaluate_all("(imgs) => imgs.map(i => i.src.slice(-64))")
            if after and after != before:
                page.wait_for_timeout(1500)  # a second display would come right after the first
                after = out.locator("img").evaluate_all("(imgs) => imgs.map(i => i.src.slice(-64))")
                break
        if after == before:
            problems.append(f"slider {i}: moving it did not redraw its figure")
        elif len(after) != 1:
            problems.append(f"slider {i}: a move shows {len(after)} figures (one expected)")
    return problems, handles.count()


def check(page, port: int, nb: str, out: Path, timeout: float) -> list[str]:
    ws = Path(nb).stem.replace("_", "-")  # a fresh workspace per chapter: only this notebook is open
    page.goto(f"http://127.0.0.1:{port}/lab/workspaces/{ws}/tree/{nb}?reset&token={TOKEN}",
              wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook .jp-Cell", timeout=120_000)
    page.wait_for_selector(".jp-Notebook-ExecutionIndicator[data-status='idle'], "
                           "#jp-main-statusbar :text('Idle')", timeout=120_000)
    page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook").first.click()
    page.keyboard.press("Escape")
    page.evaluate("() => 0")
    page.get_by_role("menuitem", name="Run", exact=True).click()
    page.get_by_text("Run All Cells", exact=True).click()
    t0 = time.time()
    state = page.evaluate(_STATE)
    while time.time() - t0 < timeout:
        page.wait_for_timeout(1000)
        state = page.evaluate(_STATE)
        if state["running"] == 0 and state["unrun"] == 0:
            break
    problems = []
    if state["running"] or state["unrun"]:
        problems.append(f"Run All did not finish in {timeout:.0f} s ({state['running']} running, "
                        f"{state['unrun']} not run)")
    for e in state["errors"][:5]:
        problems.append(f"a cell shows an error or warning: {' '.join(e.split())[:200]}")
    secs = time.time() - t0
    moved = 0
    if not problems:
        slider_problems, moved = _move_sliders(page)
        problems += slider_problems
    page.screenshot(path=str(out / (Path(nb).stem + ".png")), full_page=False)
    print(f"{nb:40s} {'ok' if not problems else f'{len(problems)} problem(s)':15s} Run All {secs:5.1f} s, {moved} slider(s) moved",
          flush=True)
    return problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebooks", nargs="+")
    ap.add_argument("--out", default=str(ROOT / "_render" / "lab"))
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--width", type=int, default=1280)
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    port = _free_port()
    # a copy of the chapters: JupyterLab autosaves, and the committed notebooks must stay without outputs
    tmp = Path(tempfile.mkdtemp(prefix="dpclust-lab-"))
    shutil.copytree(ROOT / "book", tmp / "book")
    shutil.copytree(ROOT / "benchmarks" / "results", tmp / "benchmarks" / "results")  # read by hidden checks
    lab = _start_lab(port, tmp / "book")
    failed = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium" if Path("/usr/bin/chromium").exists()
                                        else None)
            for nb in args.notebooks:
                page = browser.new_page(viewport={"width": args.width, "height": 900})
                try:
                    probs = check(page, port, Path(nb).name, out, args.timeout)
                except Exception as exc:  # a page that never loaded is a failure too
                    probs = [f"could not run: {exc!s}"[:300]]
                if probs:
                    failed[nb] = probs
                page.close()
            browser.close()
    finally:
        lab.terminate()
        lab.wait(timeout=30)
        shutil.rmtree(tmp, ignore_errors=True)
    for nb, probs in failed.items():
        print(f"\n{nb}:\n  " + "\n  ".join(probs))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
