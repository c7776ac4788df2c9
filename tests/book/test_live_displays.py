"""Explorer.live shows one figure per slider move, and one for its first render, under the inline backend.

The count runs in a fresh interpreter with JupyterLab's matplotlib backend (``matplotlib_inline``, interactive
mode on, as the kernel sets it) and a recording ``display``: every object handed to IPython's display by the
widget, by ipywidgets' interact machinery or by the backend's flush of open figures counts once.
"""
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("ipywidgets")
pytest.importorskip("matplotlib_inline")

_SCRIPT = textwrap.dedent("""
    import json, os
    os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    import matplotlib
    matplotlib.use("module://matplotlib_inline.backend_inline")
    import matplotlib.pyplot as plt
    plt.ion()  # the kernel runs pyplot in interactive mode

    shown = []
    def record(*objs, **kwargs):
        shown.extend(type(o).__name__ for o in objs)

    import IPython.display, IPython.core.display_functions
    import ipywidgets.widgets.interaction as interaction
    import matplotlib_inline.backend_inline as inline
    for mod in (IPython.display, IPython.core.display_functions, interaction, inline):
        mod.display = record

    from dpclust_book.widgets import explore

    def draw(a):
        fig, ax = plt.subplots(figsize=(2, 1.5))
        ax.plot([0, 1], [0, a])
        return fig

    view = explore(draw, a=[1, 2, 3])
    counts = {}
    widget = view.live()
    inline.flush_figures()  # what the kernel does when the cell finishes
    counts["first render"] = shown.count("Figure")
    del shown[:]
    slider = widget.children[0]
    slider.value = 3  # one slider move
    inline.flush_figures()
    counts["one move"] = shown.count("Figure")
    del shown[:]
    continuous = view.live(a=(0.0, 3.0, 0.5))
    continuous.children[0].value = 2.5
    inline.flush_figures()
    counts["first render and one move of a continuous slider"] = shown.count("Figure")
    counts["open figures"] = len(plt.get_fignums())
    print(json.dumps(counts))
""")


def test_one_figure_for_the_first_render_and_for_each_slider_move():
    proc = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[2])  # imports this checkout's dpclust_book
    assert proc.returncode == 0, proc.stderr[-2000:]
    counts = json.loads(proc.stdout.strip().splitlines()[-1])
    assert counts == {"first render": 1, "one move": 1,
                      "first render and one move of a continuous slider": 2, "open figures": 0}
